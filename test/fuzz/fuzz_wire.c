// SPDX-License-Identifier: GPL-2.0+
/*
 * libFuzzer target for homa_wire.c. The input is a packet, copied into a
 * heap buffer of exactly its length so that AddressSanitizer reports any
 * read past it. Checked: homa_wire_parse() never reads past the buffer;
 * whatever it accepts satisfies the promises of its documentation (DATA
 * range inside a message of at most 1 MB, priorities in range, at most
 * HOMA_MAX_ACKS_PER_PKT acks, fields of other types zero); a packet it
 * accepts, rebuilt by homa_wire_build() (plus the DATA payload), parses to
 * the very same fields; homa_wire_build() writes nothing, and returns 0,
 * when its buffer is one byte short.
 */

#include <stdio.h>
#include <stdlib.h>

#include "homa_wire.h"

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_wire: %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* Every field of @p that its type does not use must be zero. */
static void check_unused_zero(const struct homa_pkt *p)
{
	struct homa_pkt z;

	memset(&z, 0, sizeof(z));
	if (p->type != DATA)
		FUZZ_CHECK(!memcmp(&p->data, &z.data, sizeof(z.data)));
	if (p->type != GRANT)
		FUZZ_CHECK(!memcmp(&p->grant, &z.grant, sizeof(z.grant)));
	if (p->type != RESEND)
		FUZZ_CHECK(!memcmp(&p->resend, &z.resend, sizeof(z.resend)));
	if (p->type != CUTOFFS)
		FUZZ_CHECK(!memcmp(&p->cutoffs, &z.cutoffs,
				   sizeof(z.cutoffs)));
	if (p->type != ACK)
		FUZZ_CHECK(!memcmp(&p->ack, &z.ack, sizeof(z.ack)));
}

/* What a successful parse of @len bytes promises about @p. */
static void check_accepted(const u8 *buf, u32 len, const struct homa_pkt *p)
{
	u32 hdr = homa_wire_header_length(p->type);

	FUZZ_CHECK(hdr != 0);
	FUZZ_CHECK(p->type == buf[11]);
	FUZZ_CHECK(p->sport == (u32)(buf[0] << 8 | buf[1]));
	FUZZ_CHECK(p->dport == (u32)(buf[2] << 8 | buf[3]));
	FUZZ_CHECK(p->type == ACK || len >= hdr);
	switch (p->type) {
	case DATA:
		FUZZ_CHECK(p->data.message_length >= 1);
		FUZZ_CHECK(p->data.message_length <= HOMA_MAX_MESSAGE_LENGTH);
		FUZZ_CHECK(p->data.length == len - hdr);
		FUZZ_CHECK(p->data.length >= 1);
		FUZZ_CHECK((u64)p->data.offset + p->data.length <=
			   p->data.message_length);
		break;
	case GRANT:
		FUZZ_CHECK(p->grant.priority < HOMA_MAX_PRIORITIES);
		break;
	case RESEND:
		FUZZ_CHECK(p->resend.priority < HOMA_MAX_PRIORITIES);
		break;
	case ACK:
		FUZZ_CHECK(p->ack.num_acks <= HOMA_MAX_ACKS_PER_PKT);
		FUZZ_CHECK(len >= 30 + 10 * (u32)p->ack.num_acks);
		break;
	}
	check_unused_zero(p);
}

/* Rebuild @p (payload from @buf) and parse it again: same fields. */
static void check_round_trip(const u8 *buf, u32 len, const struct homa_pkt *p)
{
	u32 hdr = homa_wire_header_length(p->type);
	u32 payload = p->type == DATA ? len - hdr : 0;
	struct homa_pkt again;
	u8 *out, *shorter;

	out = malloc(hdr + payload);
	FUZZ_CHECK(out);
	FUZZ_CHECK(homa_wire_build(out, hdr + payload, p) == hdr);
	memcpy(out + hdr, buf + hdr, payload);
	FUZZ_CHECK(homa_wire_parse(out, hdr + payload, &again) == 0);
	FUZZ_CHECK(memcmp(p, &again, sizeof(again)) == 0);
	free(out);

	/* One byte short: nothing written, 0 returned. */
	shorter = malloc(hdr);
	FUZZ_CHECK(shorter);
	memset(shorter, 0xa5, hdr);
	FUZZ_CHECK(homa_wire_build(shorter, hdr - 1, p) == 0);
	while (hdr-- > 0)
		FUZZ_CHECK(shorter[hdr] == 0xa5);
	free(shorter);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct homa_pkt p;
	u32 len = size > 2000 ? 2000 : (u32)size;
	u8 *buf = malloc(len ? len : 1);
	int rc;

	FUZZ_CHECK(buf);
	memcpy(buf, data, len);
	rc = homa_wire_parse(buf, len, &p);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EPROTONOSUPPORT);
	if (rc == 0) {
		check_accepted(buf, len, &p);
		check_round_trip(buf, len, &p);
	} else {
		FUZZ_CHECK(len < 28 || rc == -EINVAL ||
			   homa_wire_header_length(buf[11]) == 0);
	}
	free(buf);
	return 0;
}
