// SPDX-License-Identifier: GPL-2.0+
// TCP framing: the encoder's byte stream, cut at arbitrary points, decodes
// back into the same messages.

#include <gtest/gtest.h>

#include <random>

#include "framing.h"

using namespace cpnode;

namespace {

struct Msg {
	uint32_t length;
	uint32_t flags;
};

// Drain an encoder with writes of random sizes (a "socket" that accepts
// only part of what is offered); returns the bytes written.
std::string drain(FrameEncoder *enc, std::mt19937_64 &rng, int *finished)
{
	std::string out;
	struct iovec iov[4];

	*finished = 0;
	while (!enc->empty()) {
		int cnt = enc->fill_iov(iov, 1 + rng() % 4);
		size_t room = 1 + rng() % 5000, wrote = 0;
		for (int i = 0; i < cnt && room > 0; i++) {
			size_t n = std::min(room, iov[i].iov_len);
			out.append(static_cast<char *>(iov[i].iov_base), n);
			room -= n;
			wrote += n;
		}
		*finished += enc->advance(wrote);
	}
	return out;
}

}  // namespace

TEST(Framing, header__round_trip_and_byte_order)
{
	uint8_t b[kHeaderSize];
	uint32_t len, flags;

	encode_header(b, 0x01020304, 0xa0b0c0d0);
	EXPECT_EQ(b[0], 1);
	EXPECT_EQ(b[3], 4);
	EXPECT_EQ(b[4], 0xa0);
	EXPECT_EQ(b[7], 0xd0);
	decode_header(b, &len, &flags);
	EXPECT_EQ(len, 0x01020304u);
	EXPECT_EQ(flags, 0xa0b0c0d0u);
}

TEST(Framing, encoder__rejects_too_long)
{
	uint8_t src[10] = {0};
	FrameEncoder enc(src, sizeof(src));
	EXPECT_FALSE(enc.push(11, 0));
	EXPECT_TRUE(enc.empty());
	EXPECT_TRUE(enc.push(10, 0));
	EXPECT_EQ(enc.pending_bytes(), kHeaderSize + 10);
}

TEST(Framing, random_split__round_trip)
{
	uint64_t seed = 777;
	std::mt19937_64 rng(seed);
	std::vector<uint8_t> src(200000);
	for (auto &b : src)
		b = static_cast<uint8_t>(rng());

	for (int trial = 0; trial < 50; trial++) {
		FrameEncoder enc(src.data(), src.size());
		std::vector<Msg> sent;
		size_t total = 0;
		int nmsgs = 1 + rng() % 30;
		for (int i = 0; i < nmsgs; i++) {
			uint32_t len = rng() % 4 == 0 ? rng() % 10
						      : rng() % src.size();
			uint32_t flags = static_cast<uint32_t>(rng());
			ASSERT_TRUE(enc.push(len, flags));
			sent.push_back({len, flags});
			total += kHeaderSize + len;
		}
		ASSERT_EQ(enc.pending_bytes(), total);
		int finished;
		std::string stream = drain(&enc, rng, &finished);
		ASSERT_EQ(stream.size(), total);
		ASSERT_EQ(finished, nmsgs);

		FrameDecoder dec(src.size(), true);
		std::vector<FrameDecoder::Message> got;
		size_t pos = 0;
		while (pos < stream.size()) {
			size_t n = std::min<size_t>(stream.size() - pos,
						    rng() % 3 == 0 ? 1 + rng() % 7
								   : 1 + rng() % 70000);
			ASSERT_TRUE(dec.feed(reinterpret_cast<const uint8_t *>(
						     stream.data() + pos),
					     n, &got));
			pos += n;
		}
		EXPECT_TRUE(dec.idle());
		ASSERT_EQ(got.size(), sent.size()) << "seed " << seed;
		for (size_t i = 0; i < sent.size(); i++) {
			EXPECT_EQ(got[i].length, sent[i].length);
			EXPECT_EQ(got[i].flags, sent[i].flags);
			ASSERT_EQ(got[i].payload.size(), sent[i].length);
			EXPECT_EQ(0, memcmp(got[i].payload.data(), src.data(),
					    sent[i].length))
				<< "trial " << trial << " message " << i;
		}
	}
}

TEST(Framing, decoder__partial_header_held)
{
	FrameDecoder dec(100);
	std::vector<FrameDecoder::Message> got;
	uint8_t b[kHeaderSize + 3];
	encode_header(b, 3, 5);
	b[8] = b[9] = b[10] = 1;

	for (size_t i = 0; i < sizeof(b) - 1; i++) {
		ASSERT_TRUE(dec.feed(b + i, 1, &got));
		EXPECT_TRUE(got.empty()) << i;
		EXPECT_FALSE(dec.idle());
	}
	ASSERT_TRUE(dec.feed(b + sizeof(b) - 1, 1, &got));
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].length, 3u);
	EXPECT_EQ(got[0].flags, 5u);
	EXPECT_TRUE(got[0].payload.empty());	// not kept by default
}

TEST(Framing, decoder__zero_length_messages)
{
	FrameDecoder dec(100);
	std::vector<FrameDecoder::Message> got;
	uint8_t b[2 * kHeaderSize];
	encode_header(b, 0, 1);
	encode_header(b + kHeaderSize, 0, 2);
	ASSERT_TRUE(dec.feed(b, sizeof(b), &got));
	ASSERT_EQ(got.size(), 2u);
	EXPECT_EQ(got[1].flags, 2u);
}

TEST(Framing, decoder__rejects_oversized)
{
	FrameDecoder dec(1000);
	std::vector<FrameDecoder::Message> got;
	uint8_t b[kHeaderSize];
	encode_header(b, 1001, 0);
	EXPECT_FALSE(dec.feed(b, sizeof(b), &got));
	EXPECT_TRUE(dec.failed());
	encode_header(b, 1, 0);
	EXPECT_FALSE(dec.feed(b, sizeof(b), &got));
	EXPECT_TRUE(got.empty());
}

TEST(Framing, request_flags__echo_one_way_and_sized)
{
	EXPECT_EQ(request_flags(false, -1), 0u);
	EXPECT_EQ(request_flags(true, -1), kFlagOneWay);
	uint32_t f = request_flags(false, 100000);
	EXPECT_TRUE(f & kFlagReplyLength);
	EXPECT_FALSE(f & kFlagOneWay);
	EXPECT_EQ(f >> kReplyLengthShift, 100000u);
	// A sized reply wins over one-way; lengths past the field saturate.
	EXPECT_EQ(request_flags(true, 7), request_flags(false, 7));
	EXPECT_EQ(request_flags(false, 0x7fffffff) >> kReplyLengthShift,
		  kMaxReplyLength);
}

TEST(Framing, reply_length__per_flag)
{
	EXPECT_EQ(reply_length(5000, 0), 5000u);
	EXPECT_EQ(reply_length(5000, kFlagOneWay), kOneWayReply);
	EXPECT_EQ(reply_length(100, request_flags(false, 100000)), 100000u);
	EXPECT_EQ(reply_length(100, request_flags(true, 1)), 1u);
	EXPECT_EQ(reply_length(100, request_flags(false, 1000000)), 1000000u);
	EXPECT_EQ(reply_length(100, request_flags(false, kMaxReplyLength)),
		  kMaxReplyLength);
	// Unknown flag bits alone leave an echo.
	EXPECT_EQ(reply_length(42, 0x80), 42u);
}

TEST(Framing, reply_length__survives_the_stream)
{
	// A request's sized-reply flags cross the TCP framing intact.
	uint8_t src[200] = {0};
	FrameEncoder enc(src, sizeof(src));
	ASSERT_TRUE(enc.push(100, request_flags(false, 123456)));
	ASSERT_TRUE(enc.push(8, request_flags(true, -1)));
	std::string stream;
	struct iovec iov[4];
	while (!enc.empty()) {
		int cnt = enc.fill_iov(iov, 4);
		size_t n = 0;
		for (int i = 0; i < cnt; i++) {
			stream.append(static_cast<char *>(iov[i].iov_base),
				      iov[i].iov_len);
			n += iov[i].iov_len;
		}
		enc.advance(n);
	}
	FrameDecoder dec(1000);
	std::vector<FrameDecoder::Message> got;
	ASSERT_TRUE(dec.feed(reinterpret_cast<const uint8_t *>(stream.data()),
			     stream.size(), &got));
	ASSERT_EQ(got.size(), 2u);
	EXPECT_EQ(reply_length(got[0].length, got[0].flags), 123456u);
	EXPECT_EQ(reply_length(got[1].length, got[1].flags), kOneWayReply);
}
