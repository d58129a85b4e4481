/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Unscheduled priorities: the histogram of incoming message
 * sizes a receiver keeps, the cutoffs it computes from it (and advertises
 * in CUTOFFS packets), the level a sender picks from a peer's cutoffs, and
 * the IP TOS / IPv6 traffic class of a level. homa_prio.c is a decision
 * file: plain data, no locks, no allocation, no division.
 *
 * Cutoffs follow net.homa.unsched_cutoffs: a message of at most
 * cutoffs[i] bytes may use unscheduled level i; 0 marks a level that is
 * not unscheduled; higher levels carry shorter messages and the lowest
 * unscheduled level takes every length.
 */

#ifndef _HOMA_PRIO_H
#define _HOMA_PRIO_H

#include "homa_types.h"
#include "homa.h"

/*
 * Size buckets: lengths 1..4 have a bucket each; above that every power
 * of two is cut into 4 equal parts, up to 2^20 (past the longest message).
 */
#define HOMA_PRIO_BUCKETS 76

/*
 * Longest message whose unscheduled bytes computed cutoffs put on the top
 * level, which control packets use (homa_prio_protect_top()): about one
 * DATA packet's payload at a 1500-byte MTU.
 */
#define HOMA_PRIO_TOP_MAX 1400

/* Weight of one sample in the histogram (room for halving it). */
#define HOMA_PRIO_ONE 256

/* The histogram is halved before its byte total would pass this (2^56). */
#define HOMA_PRIO_MAX_BYTES 0x0100000000000000ULL

/**
 * struct homa_prio_hist - sizes of recently received messages. Every
 * sample adds HOMA_PRIO_ONE to a count and length * HOMA_PRIO_ONE to the
 * bytes of its bucket; halving all of them ages old samples out.
 */
struct homa_prio_hist {
	/** @count: weighted number of messages in each bucket. */
	u64 count[HOMA_PRIO_BUCKETS];

	/** @bytes: weighted sum of the lengths in each bucket. */
	u64 bytes[HOMA_PRIO_BUCKETS];

	/** @total_bytes: sum of @bytes. */
	u64 total_bytes;

	/** @half_life: samples between automatic halvings (0: never). */
	u32 half_life;

	/** @since_decay: samples added since the last halving. */
	u32 since_decay;
};

u32 homa_prio_bucket(u32 length);
u32 homa_prio_bucket_max(u32 bucket);
void homa_prio_hist_init(struct homa_prio_hist *h, u32 half_life);
void homa_prio_hist_decay(struct homa_prio_hist *h);
void homa_prio_hist_add(struct homa_prio_hist *h, u32 length);
int homa_prio_cutoffs(const struct homa_prio_hist *h, u32 unsched_bytes,
		      u32 num_priorities, u32 *cutoffs);
void homa_prio_protect_top(u32 *cutoffs, u32 num_priorities);
u32 homa_prio_unsched(const u32 *cutoffs, u32 num_priorities, u32 length);
u32 homa_prio_max_sched(const u32 *cutoffs, u32 num_priorities);
u8 homa_prio_tos(const int *priority_map, u32 level);
int homa_prio_data_ip(int mapped, int sched_ip_priority, bool scheduled);

#endif /* _HOMA_PRIO_H */
