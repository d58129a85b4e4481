// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_wire.cc - unit tests for homa_wire.c, in the order of its
 * functions. Expected values come from SPEC.md section 3 (offsets, codes,
 * sizes), written out here by hand, never from the code under test. Every
 * parse reads from a heap buffer of exactly the packet's length, so
 * AddressSanitizer reports any read past the end.
 */

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "homa_wire.h"
}

#include "unit_util.h"

using unit::ExactBuf;
using unit::get16;
using unit::get32;
using unit::get64;
using unit::put16;
using unit::put32;
using unit::put64;

namespace {

/* The packet types of SPEC.md section 3, written out independently. */
struct TypeInfo {
	uint8_t code;
	const char *name;
	uint32_t hdr_len;	/* header bytes (DATA: before the payload) */
	uint8_t doff;		/* expected doff byte: ceil(len / 4) words */
};

/*
 * doff holds the header length in 4-byte words in its high nibble, so 15
 * words (60 bytes) is the most it can say: CUTOFFS (62) and ACK (80) are
 * expected to saturate at 0xf0 rather than wrap around.
 */
const TypeInfo kTypes[] = {
	{0x10, "DATA", 56, 0xe0},
	{0x11, "GRANT", 33, 0x90},
	{0x12, "RESEND", 37, 0xa0},
	{0x13, "RPC_UNKNOWN", 28, 0x70},
	{0x14, "BUSY", 28, 0x70},
	{0x15, "CUTOFFS", 62, 0xf0},
	{0x17, "NEED_ACK", 28, 0x70},
	{0x18, "ACK", 80, 0xf0},
};

const TypeInfo *find_type(uint8_t code)
{
	for (const TypeInfo &t : kTypes)
		if (t.code == code)
			return &t;
	return nullptr;
}

const uint32_t kDataPayload = 100;

/* A packet of @code with distinctive non-zero values in all its fields. */
homa_pkt sample_pkt(uint8_t code)
{
	homa_pkt p;
	int i;

	memset(&p, 0, sizeof(p));
	p.type = code;
	p.sport = 0x1234;
	p.dport = 0x8765;
	p.sender_id = 0x0123456789abcdefULL;
	switch (code) {
	case 0x10:
		p.data.message_length = 0x000f0000;
		p.data.incoming = 0x000e1234;
		p.data.offset = 0x0000abcd;
		p.data.length = kDataPayload;
		p.data.ack_id = 0xfedcba9876543210ULL;
		p.data.ack_port = 0x4321;
		p.data.cutoff_version = 0x1357;
		p.data.retransmit = 1;
		p.data.flags = 0x81;
		break;
	case 0x11:
		p.grant.offset = 0x00abcdef;
		p.grant.priority = 6;
		p.grant.flags = HOMA_GRANT_CONGESTED;
		break;
	case 0x12:
		p.resend.offset = 0x00012345;
		p.resend.length = 0x00054321;
		p.resend.priority = 3;
		break;
	case 0x15:
		for (i = 0; i < 8; i++)
			p.cutoffs.cutoffs[i] = 0x01020304u * (uint32_t)(i + 1);
		p.cutoffs.version = 0x2468;
		break;
	case 0x18:
		p.ack.num_acks = 5;
		for (i = 0; i < 5; i++) {
			p.ack.client_ids[i] = 0x1111111111111111ULL * (i + 1);
			p.ack.server_ports[i] = (uint16_t)(0x0101 * (i + 1));
		}
		break;
	}
	return p;
}

/* Compares every field of two packets, whatever their type. */
void expect_pkt_eq(const homa_pkt &got, const homa_pkt &exp)
{
	int i;

	EXPECT_EQ(got.type, exp.type);
	EXPECT_EQ(got.sport, exp.sport);
	EXPECT_EQ(got.dport, exp.dport);
	EXPECT_EQ(got.sender_id, exp.sender_id);
	EXPECT_EQ(got.data.message_length, exp.data.message_length);
	EXPECT_EQ(got.data.incoming, exp.data.incoming);
	EXPECT_EQ(got.data.offset, exp.data.offset);
	EXPECT_EQ(got.data.length, exp.data.length);
	EXPECT_EQ(got.data.ack_id, exp.data.ack_id);
	EXPECT_EQ(got.data.ack_port, exp.data.ack_port);
	EXPECT_EQ(got.data.cutoff_version, exp.data.cutoff_version);
	EXPECT_EQ(got.data.retransmit, exp.data.retransmit);
	EXPECT_EQ(got.data.flags, exp.data.flags);
	EXPECT_EQ(got.grant.offset, exp.grant.offset);
	EXPECT_EQ(got.grant.priority, exp.grant.priority);
	EXPECT_EQ(got.grant.flags, exp.grant.flags);
	EXPECT_EQ(got.resend.offset, exp.resend.offset);
	EXPECT_EQ(got.resend.length, exp.resend.length);
	EXPECT_EQ(got.resend.priority, exp.resend.priority);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(got.cutoffs.cutoffs[i], exp.cutoffs.cutoffs[i]) << i;
	EXPECT_EQ(got.cutoffs.version, exp.cutoffs.version);
	EXPECT_EQ(got.ack.num_acks, exp.ack.num_acks);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(got.ack.client_ids[i], exp.ack.client_ids[i]) << i;
		EXPECT_EQ(got.ack.server_ports[i], exp.ack.server_ports[i])
			<< i;
	}
}

/*
 * Builds @p into a buffer of its exact wire length (DATA: header plus a
 * patterned payload of p.data.length bytes) and returns the bytes.
 */
std::vector<uint8_t> build_bytes(const homa_pkt &p)
{
	const TypeInfo *t = find_type(p.type);
	uint32_t payload = p.type == 0x10 ? p.data.length : 0;
	uint32_t total = t->hdr_len + payload;
	ExactBuf buf(std::vector<uint8_t>(total, 0xcc).data(), total);
	uint32_t i;

	for (i = 0; i < payload; i++)
		buf.data()[t->hdr_len + i] = (uint8_t)(i * 7 + 1);
	EXPECT_EQ(homa_wire_build(buf.data(), total, &p), t->hdr_len);
	for (i = 0; i < payload; i++)
		EXPECT_EQ(buf.data()[t->hdr_len + i], (uint8_t)(i * 7 + 1))
			<< "builder overwrote payload byte " << i;
	return std::vector<uint8_t>(buf.data(), buf.data() + total);
}

/* Parses the first @len bytes of @bytes from an exact-size heap copy. */
int parse_exact(const uint8_t *bytes, size_t len, homa_pkt *out)
{
	ExactBuf buf(bytes, len);

	return homa_wire_parse(buf.data(), buf.len(), out);
}

int parse_exact(const std::vector<uint8_t> &bytes, homa_pkt *out)
{
	return parse_exact(bytes.data(), bytes.size(), out);
}

void round_trip(const homa_pkt &p)
{
	std::vector<uint8_t> bytes = build_bytes(p);
	homa_pkt got;

	ASSERT_EQ(parse_exact(bytes, &got), 0);
	expect_pkt_eq(got, p);
}

/*
 * Compares @len built bytes with a golden array; with !check_doff, byte
 * 12 is left to homa_wire_build__doff_long_headers.
 */
void expect_golden(const std::vector<uint8_t> &got, const uint8_t *exp,
		   size_t len, bool check_doff = true)
{
	ASSERT_GE(got.size(), len);
	bool same = check_doff ? memcmp(got.data(), exp, len) == 0
			       : memcmp(got.data(), exp, 12) == 0 &&
				 memcmp(got.data() + 13, exp + 13, len - 13) == 0;
	EXPECT_TRUE(same) << "built:" << unit::hex(got.data(), len)
			  << "\nexpected:" << unit::hex(exp, len);
}

/* A DATA packet from the sample with the given length fields. */
std::vector<uint8_t> data_bytes(uint32_t msg_len, uint32_t offset,
				uint32_t payload)
{
	homa_pkt p = sample_pkt(0x10);
	std::vector<uint8_t> b;

	p.data.length = payload;
	b = build_bytes(p);
	put32(b.data(), 28, msg_len);
	put32(b.data(), 52, offset);
	return b;
}

/*
 * Reference parser: a naive reading of SPEC.md section 3 by byte offsets,
 * with 64-bit arithmetic for the DATA range.
 */
int ref_parse(const uint8_t *b, size_t len, homa_pkt *out)
{
	const TypeInfo *t;
	uint64_t msg_len, offset, payload;
	uint32_t n, i;

	memset(out, 0, sizeof(*out));
	if (len < 28)
		return -EINVAL;
	t = find_type(b[11]);
	if (!t)
		return -EPROTONOSUPPORT;
	out->type = b[11];
	out->sport = get16(b, 0);
	out->dport = get16(b, 2);
	out->sender_id = get64(b, 20);
	switch (t->code) {
	case 0x10:
		if (len < 56)
			return -EINVAL;
		msg_len = get32(b, 28);
		offset = get32(b, 52);
		payload = len - 56;
		if (msg_len == 0 || msg_len > HOMA_MAX_MESSAGE_LENGTH ||
		    payload == 0 || offset + payload > msg_len)
			return -EINVAL;
		out->data.message_length = (uint32_t)msg_len;
		out->data.incoming = get32(b, 32);
		out->data.ack_id = get64(b, 36);
		out->data.ack_port = get16(b, 44);
		out->data.cutoff_version = get16(b, 46);
		out->data.retransmit = b[48];
		out->data.flags = b[49];
		out->data.offset = (uint32_t)offset;
		out->data.length = (uint32_t)payload;
		return 0;
	case 0x11:
		if (len < 33 || b[32] >= 8)
			return -EINVAL;
		out->grant.offset = get32(b, 28);
		out->grant.priority = b[32];
		out->grant.flags = b[13];
		return 0;
	case 0x12:
		if (len < 37 || b[36] >= 8)
			return -EINVAL;
		out->resend.offset = get32(b, 28);
		out->resend.length = get32(b, 32);
		out->resend.priority = b[36];
		return 0;
	case 0x15:
		if (len < 62)
			return -EINVAL;
		for (i = 0; i < 8; i++)
			out->cutoffs.cutoffs[i] = get32(b, 28 + 4 * i);
		out->cutoffs.version = get16(b, 60);
		return 0;
	case 0x18:
		if (len < 30)
			return -EINVAL;
		n = get16(b, 28);
		if (n > 5 || len < 30 + 10 * n)
			return -EINVAL;
		out->ack.num_acks = (uint16_t)n;
		for (i = 0; i < n; i++) {
			out->ack.client_ids[i] = get64(b, 30 + 10 * i);
			out->ack.server_ports[i] = get16(b, 38 + 10 * i);
		}
		return 0;
	default:
		return 0;
	}
}

/* Byte ranges {offset, length} of the fields a parse/build keeps. */
std::vector<std::pair<uint32_t, uint32_t>> kept_ranges(uint8_t code,
						       uint32_t num_acks)
{
	std::vector<std::pair<uint32_t, uint32_t>> r = {{0, 4}, {11, 1},
							{20, 8}};

	switch (code) {
	case 0x10:
		r.push_back({28, 22});	/* message_length .. flags */
		r.push_back({52, 4});	/* seg.offset */
		break;
	case 0x11:
		r.push_back({28, 5});
		break;
	case 0x12:
		r.push_back({28, 9});
		break;
	case 0x15:
		r.push_back({28, 34});
		break;
	case 0x18:
		r.push_back({28, 2 + 10 * num_acks});
		break;
	}
	return r;
}

} /* namespace */

/* ---- homa_wire_header_length ------------------------------------------ */

TEST(homa_wire, homa_wire_header_length__type_codes)
{
	EXPECT_EQ(DATA, 0x10);
	EXPECT_EQ(GRANT, 0x11);
	EXPECT_EQ(RESEND, 0x12);
	EXPECT_EQ(RPC_UNKNOWN, 0x13);
	EXPECT_EQ(BUSY, 0x14);
	EXPECT_EQ(CUTOFFS, 0x15);
	EXPECT_EQ(NEED_ACK, 0x17);
	EXPECT_EQ(ACK, 0x18);
}

TEST(homa_wire, homa_wire_header_length__each_type)
{
	for (const TypeInfo &t : kTypes)
		EXPECT_EQ(homa_wire_header_length(t.code), t.hdr_len) << t.name;
	EXPECT_LE(80u, (unsigned)HOMA_MAX_HEADER);
}

TEST(homa_wire, homa_wire_header_length__unknown_types)
{
	for (int code = 0; code < 256; code++)
		if (!find_type((uint8_t)code)) {
			EXPECT_EQ(homa_wire_header_length((uint8_t)code), 0u)
				<< "type " << code;
		}
}

/* ---- homa_wire_type_name ---------------------------------------------- */

TEST(homa_wire, homa_wire_type_name__each_type)
{
	for (const TypeInfo &t : kTypes)
		EXPECT_STREQ(homa_wire_type_name(t.code), t.name);
}

TEST(homa_wire, homa_wire_type_name__unknown)
{
	for (int code = 0; code < 256; code++)
		if (!find_type((uint8_t)code)) {
			EXPECT_STREQ(homa_wire_type_name((uint8_t)code),
				     "UNKNOWN") << "type " << code;
		}
}

/* ---- homa_wire_parse -------------------------------------------------- */

TEST(homa_wire, homa_wire_parse__data_round_trip)
{
	homa_pkt p = sample_pkt(0x10);
	std::vector<uint8_t> bytes = build_bytes(p);
	homa_pkt got;

	ASSERT_EQ(bytes.size(), 56u + kDataPayload);
	ASSERT_EQ(parse_exact(bytes, &got), 0);
	EXPECT_EQ(got.data.length, kDataPayload);
	expect_pkt_eq(got, p);

	/* Smallest and largest messages. */
	p.data.message_length = 1;
	p.data.offset = 0;
	p.data.length = 1;
	round_trip(p);
	p.data.message_length = HOMA_MAX_MESSAGE_LENGTH;
	p.data.offset = HOMA_MAX_MESSAGE_LENGTH - 1400;
	p.data.length = 1400;
	round_trip(p);
}

TEST(homa_wire, homa_wire_parse__data_unaligned)
{
	homa_pkt p = sample_pkt(0x10);
	std::vector<uint8_t> bytes = build_bytes(p);
	homa_pkt got;
	int shift;

	for (shift = 1; shift < 8; shift++) {
		std::vector<uint8_t> b(shift, 0);
		b.insert(b.end(), bytes.begin(), bytes.end());
		ExactBuf buf(b.data(), b.size());
		ASSERT_EQ(homa_wire_parse(buf.data() + shift,
					  buf.len() - shift, &got), 0) << shift;
		expect_pkt_eq(got, p);
	}
}

TEST(homa_wire, homa_wire_parse__grant_round_trip)
{
	homa_pkt p = sample_pkt(0x11);

	round_trip(p);
	p.grant.priority = 0;
	round_trip(p);
	p.grant.priority = 7;
	p.grant.offset = 0xffffffff;
	round_trip(p);
}

TEST(homa_wire, homa_wire_parse__resend_round_trip)
{
	homa_pkt p = sample_pkt(0x12);

	round_trip(p);
	p.resend.length = HOMA_RESEND_ALL;
	p.resend.priority = 7;
	round_trip(p);
}

TEST(homa_wire, homa_wire_parse__rpc_unknown_round_trip)
{
	round_trip(sample_pkt(0x13));
}

TEST(homa_wire, homa_wire_parse__busy_round_trip)
{
	round_trip(sample_pkt(0x14));
}

TEST(homa_wire, homa_wire_parse__cutoffs_round_trip)
{
	round_trip(sample_pkt(0x15));
}

TEST(homa_wire, homa_wire_parse__need_ack_round_trip)
{
	round_trip(sample_pkt(0x17));
}

TEST(homa_wire, homa_wire_parse__ack_round_trip)
{
	homa_pkt full = sample_pkt(0x18);
	homa_pkt p, got;
	uint16_t n;

	for (n = 0; n <= 5; n++) {
		SCOPED_TRACE("num_acks " + std::to_string(n));
		p = full;
		p.ack.num_acks = n;
		for (int i = n; i < 5; i++) {
			p.ack.client_ids[i] = 0;
			p.ack.server_ports[i] = 0;
		}
		std::vector<uint8_t> bytes = build_bytes(p);
		ASSERT_EQ(parse_exact(bytes, &got), 0);
		expect_pkt_eq(got, p);

		/* The unused tail of the array may be left off. */
		ASSERT_EQ(parse_exact(bytes.data(), 30 + 10 * n, &got), 0);
		expect_pkt_eq(got, p);
	}
}

TEST(homa_wire, homa_wire_parse__clears_other_fields)
{
	homa_pkt p = sample_pkt(0x11);
	std::vector<uint8_t> bytes = build_bytes(p);
	homa_pkt got;

	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(parse_exact(bytes, &got), 0);
	expect_pkt_eq(got, p);
}

TEST(homa_wire, homa_wire_parse__truncated)
{
	homa_pkt got;

	for (const TypeInfo &t : kTypes) {
		std::vector<uint8_t> bytes = build_bytes(sample_pkt(t.code));

		for (uint32_t len = 0; len < t.hdr_len; len++) {
			SCOPED_TRACE(std::string(t.name) + " length " +
				     std::to_string(len));
			EXPECT_EQ(parse_exact(bytes.data(), len, &got),
				  -EINVAL);
		}
	}
}

TEST(homa_wire, homa_wire_parse__ack_truncated)
{
	homa_pkt p = sample_pkt(0x18);
	homa_pkt got;
	uint16_t n;

	for (n = 0; n <= 5; n++) {
		p.ack.num_acks = n;
		std::vector<uint8_t> bytes = build_bytes(p);
		for (uint32_t len = 0; len <= 80; len++) {
			SCOPED_TRACE("num_acks " + std::to_string(n) +
				     " length " + std::to_string(len));
			EXPECT_EQ(parse_exact(bytes.data(), len, &got),
				  len < 30u + 10 * n ? -EINVAL : 0);
		}
	}
}

TEST(homa_wire, homa_wire_parse__unknown_types)
{
	std::vector<uint8_t> bytes = build_bytes(sample_pkt(0x14));
	homa_pkt got;

	bytes.resize(80, 0);
	for (int code = 0; code < 256; code++) {
		if (find_type((uint8_t)code))
			continue;
		SCOPED_TRACE("type " + std::to_string(code));
		bytes[11] = (uint8_t)code;
		EXPECT_EQ(parse_exact(bytes.data(), 28, &got),
			  -EPROTONOSUPPORT);
		EXPECT_EQ(parse_exact(bytes, &got), -EPROTONOSUPPORT);
		/* Too short to hold even the type: not a Homa packet. */
		EXPECT_EQ(parse_exact(bytes.data(), 27, &got), -EINVAL);
	}
}

TEST(homa_wire, homa_wire_parse__data_message_length_zero)
{
	homa_pkt got;

	EXPECT_EQ(parse_exact(data_bytes(0, 0, 1), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1, 0, 1), &got), 0);
}

TEST(homa_wire, homa_wire_parse__data_message_length_too_long)
{
	const uint32_t max = HOMA_MAX_MESSAGE_LENGTH;
	homa_pkt got;

	EXPECT_EQ(parse_exact(data_bytes(max + 1, 0, 10), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(0x80000000u, 0, 10), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(0xffffffffu, 0, 10), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(0xffffffffu, 0xfffffff0u, 10), &got),
		  -EINVAL);
	ASSERT_EQ(parse_exact(data_bytes(max, max - 10, 10), &got), 0);
	EXPECT_EQ(got.data.message_length, max);
	EXPECT_EQ(got.data.offset, max - 10);
	EXPECT_EQ(got.data.length, 10u);
}

TEST(homa_wire, homa_wire_parse__data_zero_payload)
{
	homa_pkt got;

	EXPECT_EQ(parse_exact(data_bytes(1000, 0, 0), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1000, 999, 0), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1000, 1000, 0), &got), -EINVAL);
}

TEST(homa_wire, homa_wire_parse__data_range_past_end)
{
	homa_pkt got;

	EXPECT_EQ(parse_exact(data_bytes(1000, 991, 10), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1000, 1000, 1), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1000, 0, 1001), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(10, 0, 200), &got), -EINVAL);
	ASSERT_EQ(parse_exact(data_bytes(1000, 990, 10), &got), 0);
	EXPECT_EQ(got.data.offset, 990u);
	EXPECT_EQ(got.data.length, 10u);
	ASSERT_EQ(parse_exact(data_bytes(1000, 0, 1000), &got), 0);
	EXPECT_EQ(got.data.length, 1000u);
}

TEST(homa_wire, homa_wire_parse__data_offset_overflow)
{
	homa_pkt got;

	/* offset + payload wraps around to a small u32 value. */
	EXPECT_EQ(parse_exact(data_bytes(1000, 0xffffffffu, 1), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1000, 0xfffffff6u, 10), &got),
		  -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1000, 0xffffff00u, 0x200), &got),
		  -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(HOMA_MAX_MESSAGE_LENGTH, 0xffffffffu,
					 100), &got), -EINVAL);
	EXPECT_EQ(parse_exact(data_bytes(1000, 0x80000000u, 10), &got),
		  -EINVAL);
}

TEST(homa_wire, homa_wire_parse__grant_priority)
{
	std::vector<uint8_t> bytes = build_bytes(sample_pkt(0x11));
	homa_pkt got;

	for (int prio = 0; prio < 256; prio++) {
		SCOPED_TRACE("priority " + std::to_string(prio));
		bytes[32] = (uint8_t)prio;
		ASSERT_EQ(parse_exact(bytes, &got), prio < 8 ? 0 : -EINVAL);
		if (prio < 8) {
			EXPECT_EQ(got.grant.priority, prio);
		}
	}
}

TEST(homa_wire, homa_wire_parse__resend_priority)
{
	std::vector<uint8_t> bytes = build_bytes(sample_pkt(0x12));
	homa_pkt got;

	for (int prio = 0; prio < 256; prio++) {
		SCOPED_TRACE("priority " + std::to_string(prio));
		bytes[36] = (uint8_t)prio;
		ASSERT_EQ(parse_exact(bytes, &got), prio < 8 ? 0 : -EINVAL);
		if (prio < 8) {
			EXPECT_EQ(got.resend.priority, prio);
		}
	}
}

TEST(homa_wire, homa_wire_parse__ack_too_many)
{
	std::vector<uint8_t> bytes = build_bytes(sample_pkt(0x18));
	homa_pkt got;

	bytes.resize(30 + 10 * 8, 0x77);	/* room for the acks claimed */
	for (uint32_t n : {6u, 7u, 8u, 0x100u, 0xffffu}) {
		SCOPED_TRACE("num_acks " + std::to_string(n));
		put16(bytes.data(), 28, (uint16_t)n);
		EXPECT_EQ(parse_exact(bytes, &got), -EINVAL);
	}
}

TEST(homa_wire, homa_wire_parse__random_buffers)
{
	const uint64_t seed = unit::test_seed();
	const int iterations = 100000;
	std::mt19937_64 rng(seed);
	std::vector<int> ok(256, 0);
	int einval = 0, enoproto = 0;

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int iter = 0; iter < iterations && !HasFailure(); iter++) {
		uint32_t len = (uint32_t)(rng() % 201);
		std::vector<uint8_t> b(len);
		homa_pkt got, exp;
		int rc, ref;

		for (uint8_t &x : b)
			x = (uint8_t)rng();
		if (len > 11)
			b[11] = rng() % 5 == 0 ? (uint8_t)rng()
				: kTypes[rng() % 8].code;
		/* Half the time, nudge fields toward valid values. */
		if (len > 11 && rng() % 2) {
			uint32_t msg, payload;

			switch (b[11]) {
			case 0x10:
				if (len < 56)
					break;
				msg = 1 + (uint32_t)(rng() %
						HOMA_MAX_MESSAGE_LENGTH);
				payload = len - 56;
				put32(b.data(), 28, msg);
				if (payload <= msg)
					put32(b.data(), 52, (uint32_t)(rng() %
						(msg - payload + 1)));
				break;
			case 0x11:
				if (len > 32)
					b[32] = rng() % 8;
				break;
			case 0x12:
				if (len > 36)
					b[36] = rng() % 8;
				break;
			case 0x18:
				if (len > 29)
					put16(b.data(), 28,
					      (uint16_t)(rng() % 6));
				break;
			}
		}

		ExactBuf buf(b.data(), len);
		rc = homa_wire_parse(buf.data(), len, &got);
		ref = ref_parse(b.data(), len, &exp);
		/* On the first failure, say which input and stop. */
		auto input = [&] {
			return "iteration " + std::to_string(iter) +
			       ", bytes:" + unit::hex(b.data(), len);
		};
		ASSERT_EQ(rc, ref) << input();
		if (rc == -EINVAL)
			einval++;
		if (rc == -EPROTONOSUPPORT)
			enoproto++;
		if (rc != 0)
			continue;
		ok[b[11]]++;
		expect_pkt_eq(got, exp);
		if (HasFailure())
			ADD_FAILURE() << input();

		/* Rebuilding gives back every field the parse kept. */
		uint32_t hl = homa_wire_header_length(got.type);
		std::vector<uint8_t> out(HOMA_MAX_HEADER, 0xcc);
		ASSERT_EQ(homa_wire_build(out.data(), (uint32_t)out.size(),
					  &got), hl) << input();
		for (auto &r : kept_ranges(got.type, got.ack.num_acks))
			EXPECT_EQ(memcmp(out.data() + r.first,
					 b.data() + r.first, r.second), 0)
				<< "bytes " << r.first << ".."
				<< r.first + r.second - 1 << " differ; built:"
				<< unit::hex(out.data(), hl);
		if (got.type == 0x10) {
			EXPECT_EQ(get32(out.data(), 4), get32(b.data(), 52));
		}
		if (HasFailure())
			ADD_FAILURE() << input();
	}
	/* The generator must reach the accepting paths, or this tests little. */
	for (const TypeInfo &t : kTypes)
		EXPECT_GT(ok[t.code], 500) << t.name;
	EXPECT_GT(einval, 1000);
	EXPECT_GT(enoproto, 1000);
}

/* ---- homa_wire_build -------------------------------------------------- */

TEST(homa_wire, homa_wire_build__data_golden)
{
	homa_pkt p, got;
	const uint8_t payload[4] = {0xde, 0xad, 0xbe, 0xef};
	const uint8_t exp[60] = {
		0x12, 0x34, 0x56, 0x78,		/* 0: sport, dport */
		0x00, 0x00, 0x27, 0x10,		/* 4: sequence = offset */
		0x00, 0x00, 0x00, 0x10,		/* 8: unused, type DATA */
		0xe0, 0x00, 0x00, 0x00,		/* 12: doff 14, flags, window */
		0x00, 0x00, 0x00, 0x00,		/* 16: checksum, urgent */
		0x01, 0x02, 0x03, 0x04,		/* 20: sender_id */
		0x05, 0x06, 0x07, 0x08,
		0x00, 0x01, 0x86, 0xa0,		/* 28: message_length */
		0x00, 0x01, 0x23, 0x45,		/* 32: incoming */
		0x11, 0x12, 0x13, 0x14,		/* 36: ack.client_id */
		0x15, 0x16, 0x17, 0x18,
		0x21, 0x22, 0x31, 0x32,		/* 44: ack.port, cutoff_ver */
		0x01, 0x01, 0x00, 0x00,		/* 48: retransmit, flags, pad */
		0x00, 0x00, 0x27, 0x10,		/* 52: seg.offset */
		0xde, 0xad, 0xbe, 0xef,		/* 56: payload */
	};

	memset(&p, 0, sizeof(p));
	p.type = DATA;
	p.sport = 0x1234;
	p.dport = 0x5678;
	p.sender_id = 0x0102030405060708ULL;
	p.data.message_length = 100000;
	p.data.incoming = 0x12345;
	p.data.offset = 10000;
	p.data.length = 4;
	p.data.ack_id = 0x1112131415161718ULL;
	p.data.ack_port = 0x2122;
	p.data.cutoff_version = 0x3132;
	p.data.retransmit = 1;
	p.data.flags = HOMA_DATA_INCAST;

	std::vector<uint8_t> out(60, 0xcc);
	ASSERT_EQ(homa_wire_build(out.data(), 60, &p), 56u);
	memcpy(out.data() + 56, payload, 4);
	expect_golden(out, exp, 60);

	ASSERT_EQ(parse_exact(exp, sizeof(exp), &got), 0);
	expect_pkt_eq(got, p);
}

TEST(homa_wire, homa_wire_build__grant_golden)
{
	homa_pkt p, got;
	const uint8_t exp[33] = {
		0xa1, 0xb2, 0xc3, 0xd4,		/* 0: sport, dport */
		0x00, 0x00, 0x00, 0x00,		/* 4: sequence */
		0x00, 0x00, 0x00, 0x11,		/* 8: unused, type GRANT */
		0x90, 0x01, 0x00, 0x00,		/* 12: doff 9, flags, window */
		0x00, 0x00, 0x00, 0x00,		/* 16: checksum, urgent */
		0xf0, 0xe1, 0xd2, 0xc3,		/* 20: sender_id */
		0xb4, 0xa5, 0x96, 0x87,
		0x0b, 0xad, 0xf0, 0x0d,		/* 28: offset */
		0x05,				/* 32: priority */
	};

	memset(&p, 0, sizeof(p));
	p.type = GRANT;
	p.sport = 0xa1b2;
	p.dport = 0xc3d4;
	p.sender_id = 0xf0e1d2c3b4a59687ULL;
	p.grant.offset = 0x0badf00d;
	p.grant.priority = 5;
	p.grant.flags = HOMA_GRANT_CONGESTED;
	expect_golden(build_bytes(p), exp, sizeof(exp));

	ASSERT_EQ(parse_exact(exp, sizeof(exp), &got), 0);
	expect_pkt_eq(got, p);
}

TEST(homa_wire, homa_wire_build__resend_golden)
{
	homa_pkt p, got;
	const uint8_t exp[37] = {
		0x00, 0x07, 0x80, 0x01,		/* 0: sport, dport */
		0x00, 0x00, 0x00, 0x00,		/* 4: sequence */
		0x00, 0x00, 0x00, 0x12,		/* 8: unused, type RESEND */
		0xa0, 0x00, 0x00, 0x00,		/* 12: doff 10, flags, window */
		0x00, 0x00, 0x00, 0x00,		/* 16: checksum, urgent */
		0x00, 0x00, 0x00, 0x00,		/* 20: sender_id */
		0x00, 0x00, 0x30, 0x39,
		0x00, 0xab, 0xcd, 0xef,		/* 28: offset */
		0x00, 0x00, 0x12, 0x34,		/* 32: length */
		0x07,				/* 36: priority */
	};

	memset(&p, 0, sizeof(p));
	p.type = RESEND;
	p.sport = 7;
	p.dport = 0x8001;
	p.sender_id = 12345;
	p.resend.offset = 0xabcdef;
	p.resend.length = 0x1234;
	p.resend.priority = 7;
	expect_golden(build_bytes(p), exp, sizeof(exp));

	ASSERT_EQ(parse_exact(exp, sizeof(exp), &got), 0);
	expect_pkt_eq(got, p);
}

TEST(homa_wire, homa_wire_build__no_body_golden)
{
	homa_pkt p, got;
	uint8_t exp[28] = {
		0x40, 0x00, 0x00, 0x63,		/* 0: sport, dport */
		0x00, 0x00, 0x00, 0x00,		/* 4: sequence */
		0x00, 0x00, 0x00, 0x00,		/* 8: unused, type (below) */
		0x70, 0x00, 0x00, 0x00,		/* 12: doff 7, flags, window */
		0x00, 0x00, 0x00, 0x00,		/* 16: checksum, urgent */
		0x80, 0x00, 0x00, 0x00,		/* 20: sender_id */
		0x00, 0x00, 0x00, 0x01,
	};

	for (uint8_t code : {0x13, 0x14, 0x17}) {
		SCOPED_TRACE(homa_wire_type_name(code));
		memset(&p, 0, sizeof(p));
		p.type = code;
		p.sport = 0x4000;
		p.dport = 99;
		p.sender_id = 0x8000000000000001ULL;
		exp[11] = code;
		expect_golden(build_bytes(p), exp, sizeof(exp));
		ASSERT_EQ(parse_exact(exp, sizeof(exp), &got), 0);
		expect_pkt_eq(got, p);
	}
}

TEST(homa_wire, homa_wire_build__cutoffs_golden)
{
	homa_pkt p, got;
	const uint32_t cutoffs[8] = {1000000, 50000, 20000, 8000,
				     3000, 1000, 300, 100};
	const uint8_t exp[62] = {
		0x00, 0x01, 0x00, 0x02,		/* 0: sport, dport */
		0x00, 0x00, 0x00, 0x00,		/* 4: sequence */
		0x00, 0x00, 0x00, 0x15,		/* 8: unused, type CUTOFFS */
		0xf0, 0x00, 0x00, 0x00,		/* 12: doff (not compared) */
		0x00, 0x00, 0x00, 0x00,		/* 16: checksum, urgent */
		0x00, 0x00, 0x00, 0x00,		/* 20: sender_id */
		0x00, 0x00, 0x00, 0x03,
		0x00, 0x0f, 0x42, 0x40,		/* 28: cutoffs[0] 1000000 */
		0x00, 0x00, 0xc3, 0x50,		/* 32: 50000 */
		0x00, 0x00, 0x4e, 0x20,		/* 36: 20000 */
		0x00, 0x00, 0x1f, 0x40,		/* 40: 8000 */
		0x00, 0x00, 0x0b, 0xb8,		/* 44: 3000 */
		0x00, 0x00, 0x03, 0xe8,		/* 48: 1000 */
		0x00, 0x00, 0x01, 0x2c,		/* 52: 300 */
		0x00, 0x00, 0x00, 0x64,		/* 56: 100 */
		0xbe, 0xef,			/* 60: cutoff_version */
	};

	memset(&p, 0, sizeof(p));
	p.type = CUTOFFS;
	p.sport = 1;
	p.dport = 2;
	p.sender_id = 3;
	memcpy(p.cutoffs.cutoffs, cutoffs, sizeof(cutoffs));
	p.cutoffs.version = 0xbeef;
	expect_golden(build_bytes(p), exp, sizeof(exp), false);

	ASSERT_EQ(parse_exact(exp, sizeof(exp), &got), 0);
	expect_pkt_eq(got, p);
}

TEST(homa_wire, homa_wire_build__ack_golden)
{
	homa_pkt p, got;
	uint8_t exp[80] = {
		0x80, 0x10, 0x00, 0x20,		/* 0: sport, dport */
		0x00, 0x00, 0x00, 0x00,		/* 4: sequence */
		0x00, 0x00, 0x00, 0x18,		/* 8: unused, type ACK */
		0xf0, 0x00, 0x00, 0x00,		/* 12: doff (not compared) */
		0x00, 0x00, 0x00, 0x00,		/* 16: checksum, urgent */
		0x00, 0x00, 0x00, 0x00,		/* 20: sender_id */
		0x00, 0x00, 0x00, 0x2a,
		0x00, 0x03,			/* 28: num_acks */
		0x0a, 0x0b, 0x0c, 0x0d,		/* 30: acks[0].client_id */
		0x0e, 0x0f, 0x10, 0x11,
		0x12, 0x13,			/* 38: acks[0].server_port */
		0x20, 0x21, 0x22, 0x23,		/* 40: acks[1] */
		0x24, 0x25, 0x26, 0x27,
		0x28, 0x29,
		0x30, 0x31, 0x32, 0x33,		/* 50: acks[2] */
		0x34, 0x35, 0x36, 0x37,
		0x38, 0x39,
		/* 60..79: acks[3], acks[4] unused, zero */
	};

	memset(&p, 0, sizeof(p));
	p.type = ACK;
	p.sport = 0x8010;
	p.dport = 0x20;
	p.sender_id = 42;
	p.ack.num_acks = 3;
	p.ack.client_ids[0] = 0x0a0b0c0d0e0f1011ULL;
	p.ack.server_ports[0] = 0x1213;
	p.ack.client_ids[1] = 0x2021222324252627ULL;
	p.ack.server_ports[1] = 0x2829;
	p.ack.client_ids[2] = 0x3031323334353637ULL;
	p.ack.server_ports[2] = 0x3839;
	expect_golden(build_bytes(p), exp, sizeof(exp), false);

	ASSERT_EQ(parse_exact(exp, sizeof(exp), &got), 0);
	expect_pkt_eq(got, p);
	ASSERT_EQ(parse_exact(exp, 60, &got), 0);
	expect_pkt_eq(got, p);
}

TEST(homa_wire, homa_wire_build__reserved_fields_zero)
{
	for (const TypeInfo &t : kTypes) {
		SCOPED_TRACE(t.name);
		homa_pkt p = sample_pkt(t.code);
		std::vector<uint8_t> b(128, 0xff);

		if (t.code == 0x18)
			p.ack.num_acks = 2;
		ASSERT_EQ(homa_wire_build(b.data(), 128, &p), t.hdr_len);
		for (int i : {8, 9, 10, 14, 15, 16, 17, 18, 19})
			EXPECT_EQ(b[i], 0) << "byte " << i;
		/* The common flags byte: only a GRANT's flags use it. */
		EXPECT_EQ(b[13], t.code == 0x11 ? p.grant.flags : 0)
			<< "common flags";
		EXPECT_EQ(b[12] & 0x0f, 0) << "low nibble of doff";
		if (t.code == 0x10) {
			EXPECT_EQ(get32(b.data(), 4), p.data.offset);
			EXPECT_EQ(b[49], p.data.flags) << "flags";
			for (int i : {50, 51})
				EXPECT_EQ(b[i], 0) << "pad byte " << i;
		} else {
			EXPECT_EQ(get32(b.data(), 4), 0u) << "sequence";
		}
		if (t.code == 0x18) {
			for (int i = 50; i < 80; i++)
				EXPECT_EQ(b[i], 0) << "unused ack byte " << i;
		}
		for (size_t i = t.hdr_len; i < b.size(); i++)
			ASSERT_EQ(b[i], 0xff) << "wrote past header, byte " << i;
	}
}

TEST(homa_wire, homa_wire_build__ack_ignores_unused_entries)
{
	homa_pkt p = sample_pkt(0x18);	/* all five entries non-zero */
	std::vector<uint8_t> b;

	p.ack.num_acks = 2;
	b = build_bytes(p);
	EXPECT_EQ(get16(b.data(), 28), 2);
	EXPECT_EQ(get64(b.data(), 40), p.ack.client_ids[1]);
	for (int i = 50; i < 80; i++)
		EXPECT_EQ(b[i], 0) << "byte " << i;
}

TEST(homa_wire, homa_wire_build__ignores_other_types_fields)
{
	for (const TypeInfo &t : kTypes) {
		SCOPED_TRACE(t.name);
		homa_pkt clean = sample_pkt(t.code);
		homa_pkt noisy;

		/* Same fields for t, garbage in every other type's. */
		memset(&noisy, 0x5a, sizeof(noisy));
		noisy.type = clean.type;
		noisy.sport = clean.sport;
		noisy.dport = clean.dport;
		noisy.sender_id = clean.sender_id;
		switch (t.code) {
		case 0x10:
			noisy.data = clean.data;
			break;
		case 0x11:
			noisy.grant = clean.grant;
			break;
		case 0x12:
			noisy.resend = clean.resend;
			break;
		case 0x15:
			noisy.cutoffs = clean.cutoffs;
			break;
		case 0x18:
			noisy.ack = clean.ack;
			break;
		}
		EXPECT_EQ(build_bytes(noisy), build_bytes(clean));
	}
}

TEST(homa_wire, homa_wire_build__doff_short_headers)
{
	for (const TypeInfo &t : kTypes) {
		if (t.hdr_len > 60)
			continue;
		EXPECT_EQ((unsigned)build_bytes(sample_pkt(t.code))[12],
			  (unsigned)t.doff)
			<< t.name;
	}
}

/*
 * doff's nibble counts at most 15 words; a longer header must not wrap
 * around to a small (CUTOFFS: zero) length.
 */
TEST(homa_wire, homa_wire_build__doff_long_headers)
{
	for (const TypeInfo &t : kTypes) {
		if (t.hdr_len <= 60)
			continue;
		EXPECT_EQ((unsigned)build_bytes(sample_pkt(t.code))[12],
			  (unsigned)t.doff)
			<< t.name << " header of " << t.hdr_len << " bytes";
	}
}

TEST(homa_wire, homa_wire_build__unknown_type)
{
	homa_pkt p = sample_pkt(0x11);
	std::vector<uint8_t> b(128, 0xcc);

	for (int code = 0; code < 256; code++) {
		if (find_type((uint8_t)code))
			continue;
		p.type = (uint8_t)code;
		EXPECT_EQ(homa_wire_build(b.data(), 128, &p), 0u) << code;
	}
	EXPECT_EQ(b, std::vector<uint8_t>(128, 0xcc));
}

TEST(homa_wire, homa_wire_build__size_too_small)
{
	for (const TypeInfo &t : kTypes) {
		homa_pkt p = sample_pkt(t.code);
		std::vector<uint8_t> b(128, 0xcc);

		for (uint32_t size = 0; size < t.hdr_len; size++)
			EXPECT_EQ(homa_wire_build(b.data(), size, &p), 0u)
				<< t.name << " size " << size;
		EXPECT_EQ(b, std::vector<uint8_t>(128, 0xcc)) << t.name;

		/* Exactly enough room, in an exact heap buffer. */
		ExactBuf exact(b.data(), t.hdr_len);
		EXPECT_EQ(homa_wire_build(exact.data(), t.hdr_len, &p),
			  t.hdr_len) << t.name;
	}
}

TEST(homa_wire, homa_wire_build__too_many_acks)
{
	homa_pkt p = sample_pkt(0x18);
	std::vector<uint8_t> b(256, 0xcc);

	for (uint32_t n : {6u, 7u, 0x100u, 0xffffu}) {
		p.ack.num_acks = (uint16_t)n;
		EXPECT_EQ(homa_wire_build(b.data(), 256, &p), 0u) << n;
	}
	EXPECT_EQ(b, std::vector<uint8_t>(256, 0xcc));
	p.ack.num_acks = 5;
	EXPECT_EQ(homa_wire_build(b.data(), 256, &p), 80u);
}
