/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Reassembly bookkeeping for one incoming message: which byte
 * ranges have arrived, which are missing (the gaps a RESEND asks for) and
 * how many bytes are still to come. homa_gap.c is a decision file: plain
 * data, no locks, no allocation, so the unit tests check the same code the
 * receive path runs. Offsets and lengths come from the network and are
 * checked before any arithmetic.
 */

#ifndef _HOMA_GAP_H
#define _HOMA_GAP_H

#include "homa_types.h"

/* Most gaps one message may have; a packet needing more is dropped. */
#define HOMA_MAX_GAPS 32

/**
 * struct homa_gap - a range of a message's bytes that has not arrived.
 */
struct homa_gap {
	/** @start: offset of the first missing byte. */
	u32 start;

	/** @end: offset just past the last missing byte. */
	u32 end;
};

/**
 * struct homa_msg_gaps - what has arrived of one incoming message. Bytes
 * at or above @recv_end are missing but form no gap; every missing byte
 * below @recv_end belongs to exactly one entry of @gaps.
 */
struct homa_msg_gaps {
	/** @length: length of the message in bytes. */
	u32 length;

	/** @recv_end: one past the highest byte received so far (0: none). */
	u32 recv_end;

	/** @bytes_remaining: bytes of the message not yet received. */
	u32 bytes_remaining;

	/** @num_gaps: entries of @gaps in use. */
	u32 num_gaps;

	/**
	 * @gaps: the missing ranges below @recv_end, sorted by start,
	 * disjoint, non-empty and maximal (two gaps never touch).
	 */
	struct homa_gap gaps[HOMA_MAX_GAPS];
};

/*
 * Most ranges a sender keeps queued to send again; a range that would
 * need one more is merged with its nearest neighbour.
 */
#define HOMA_RANGEQ_MAX 8

/**
 * struct homa_range_q - the byte ranges of an outgoing message that RESENDs
 * asked for and that are not yet sent again: sorted by start, disjoint,
 * non-empty, and no two touching.
 */
struct homa_range_q {
	/** @n: entries of @r in use. */
	u32 n;

	/** @r: the ranges, lowest first. */
	struct homa_gap r[HOMA_RANGEQ_MAX];
};

void homa_gaps_init(struct homa_msg_gaps *g, u32 length);
int homa_gaps_add(struct homa_msg_gaps *g, u32 start, u32 end);
int homa_gaps_complete(const struct homa_msg_gaps *g);
u32 homa_gaps_missing(const struct homa_msg_gaps *g, u32 granted,
		      struct homa_gap *out, u32 max);
int homa_gaps_first_missing(const struct homa_msg_gaps *g, u32 granted,
			    struct homa_gap *out);
u32 homa_gaps_gap_bytes(const struct homa_msg_gaps *g);
void homa_rangeq_add(struct homa_range_q *q, u32 start, u32 end);
bool homa_rangeq_pop(struct homa_range_q *q, u32 from, struct homa_gap *out);

#endif /* _HOMA_GAP_H */
