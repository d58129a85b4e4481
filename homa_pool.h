/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The decisions of the receive-buffer pool: which bpages of a
 * socket's SO_HOMA_RCVBUF region hold an incoming message, when a bpage
 * becomes free again, and whether the region the user offers is usable.
 * homa_pool.c is a decision file: plain data, no locks, no allocation; the
 * caller owns the arrays, holds whatever lock protects them and copies the
 * data. Offsets are u32 byte offsets from the start of the region.
 */

#ifndef _HOMA_POOL_H
#define _HOMA_POOL_H

#include "homa_types.h"
#include "homa.h"

/* Fragments start on multiples of this many bytes inside a bpage. */
#define HOMA_POOL_ALIGN 256

/* Bytes of the per-bpage bitmap of fragment starts. */
#define HOMA_POOL_STARTS_BYTES (HOMA_BPAGE_SIZE / HOMA_POOL_ALIGN / 8)

/* Most bpages a region may have: every offset must fit in a u32. */
#define HOMA_POOL_MAX_BPAGES 65536

/* An early copy waits for at least this many of a message's packets. */
#define HOMA_COPY_BATCH_PKTS 2

/* Value of homa_pool_state.partial when no bpage is being filled. */
#define HOMA_POOL_NONE 0xffffffffU

/**
 * struct homa_bpage - bookkeeping of one bpage of the region.
 */
struct homa_bpage {
	/**
	 * @refs: fragments that lie in this bpage and have been handed out
	 * but not yet returned (at most HOMA_BPAGE_SIZE / HOMA_POOL_ALIGN).
	 */
	u16 refs;

	/**
	 * @starts: bit i (byte i / 8, bit i % 8) is set when a fragment
	 * handed out and not yet returned starts at byte i * HOMA_POOL_ALIGN
	 * of this bpage.
	 */
	u8 starts[HOMA_POOL_STARTS_BYTES];
};

/**
 * struct homa_pool_state - the allocation state of one socket's region.
 * A bpage is in exactly one of three states: on @free_stack (refs 0, no
 * start bits), the current partial bpage (@partial), or neither, with
 * refs > 0 (whole bpages, and former partial bpages still in use).
 */
struct homa_pool_state {
	/** @num_bpages: bpages in the region (at most HOMA_POOL_MAX_BPAGES). */
	u32 num_bpages;

	/** @bpages: @num_bpages entries, owned by the caller. */
	struct homa_bpage *bpages;

	/**
	 * @free_stack: room for @num_bpages indexes, owned by the caller;
	 * entries [0, @num_free) are the free bpages, the last one is the
	 * next to be used.
	 */
	u32 *free_stack;

	/** @num_free: number of bpages on @free_stack. */
	u32 num_free;

	/**
	 * @partial: index of the bpage that message tails (and messages
	 * shorter than a bpage) are packed into, or HOMA_POOL_NONE.
	 */
	u32 partial;

	/**
	 * @partial_used: bytes at the start of @partial already used, a
	 * multiple of HOMA_POOL_ALIGN (0 when there is no @partial, and
	 * reset to 0 whenever its refs fall to 0).
	 */
	u32 partial_used;
};

void homa_pool_state_init(struct homa_pool_state *p, u32 num_bpages,
			  struct homa_bpage *bpages, u32 *free_stack);
int homa_pool_alloc_msg(struct homa_pool_state *p, u32 length, u32 *offsets,
			u32 *num_offsets);
int homa_pool_release(struct homa_pool_state *p, u32 offset);
u64 homa_pool_avail_bytes(const struct homa_pool_state *p);
u32 homa_pool_bpages_needed(u32 length);
bool homa_pool_share_ok(u32 num_bpages, int pct, u32 held, u32 length);
bool homa_pool_copy_due(u32 queued, u32 remaining, u32 batch, u32 pkt_max);
int homa_pool_check_region(u64 start, u64 length, u64 page_size,
			   u32 *num_bpages);

#endif /* _HOMA_POOL_H */
