// SPDX-License-Identifier: GPL-2.0+
/*
 * Choosing receive buffers for incoming messages. A socket's
 * SO_HOMA_RCVBUF region is cut into bpages of HOMA_BPAGE_SIZE bytes. A
 * message takes one whole bpage for every full HOMA_BPAGE_SIZE bytes, and
 * its remaining bytes (its tail) go, contiguously, into the "partial"
 * bpage, which packs the tails of many messages. The application gives
 * each fragment back by its offset; a bpage is free again when all of its
 * fragments have come back. Offsets from the user are checked against a
 * bitmap of the fragments actually handed out, so a wrong or repeated
 * offset is refused and changes nothing. Plain data only: the caller
 * provides the arrays and the locking.
 */

#include "homa_pool.h"

/* Round a byte count up to a multiple of HOMA_POOL_ALIGN (no overflow
 * for counts up to HOMA_BPAGE_SIZE).
 */
static u32 homa_pool_align(u32 bytes)
{
	return (bytes + HOMA_POOL_ALIGN - 1) & ~(u32)(HOMA_POOL_ALIGN - 1);
}

/* Bytes still free at the end of the partial bpage (0 if there is none). */
static u32 homa_pool_room(const struct homa_pool_state *p)
{
	if (p->partial == HOMA_POOL_NONE)
		return 0;
	return HOMA_BPAGE_SIZE - p->partial_used;
}

/* Record a fragment handed out at byte @start of bpage @index. */
static void homa_pool_mark(struct homa_pool_state *p, u32 index, u32 start)
{
	struct homa_bpage *bp = &p->bpages[index];
	u32 bit = start / HOMA_POOL_ALIGN;

	bp->starts[bit / 8] |= (u8)(1U << (bit % 8));
	bp->refs++;
}

/**
 * homa_pool_state_init() - Start a pool with every bpage free.
 * @p: the state to initialise.
 * @num_bpages: bpages in the region (from homa_pool_check_region()); any
 * beyond HOMA_POOL_MAX_BPAGES are left unused.
 * @bpages: @num_bpages entries, owned by the caller, overwritten here.
 * @free_stack: room for @num_bpages indexes, owned by the caller.
 *
 * Bpages are handed out lowest index first from a fresh pool.
 */
void homa_pool_state_init(struct homa_pool_state *p, u32 num_bpages,
			  struct homa_bpage *bpages, u32 *free_stack)
{
	u32 i;

	if (num_bpages > HOMA_POOL_MAX_BPAGES)
		num_bpages = HOMA_POOL_MAX_BPAGES;
	p->num_bpages = num_bpages;
	p->bpages = bpages;
	p->free_stack = free_stack;
	for (i = 0; i < num_bpages; i++) {
		memset(&bpages[i], 0, sizeof(bpages[i]));
		free_stack[i] = num_bpages - 1 - i;
	}
	p->num_free = num_bpages;
	p->partial = HOMA_POOL_NONE;
	p->partial_used = 0;
}

/**
 * homa_pool_alloc_msg() - Choose where an incoming message will lie.
 * @p: the pool.
 * @length: bytes in the message, 1 to HOMA_MAX_MESSAGE_LENGTH.
 * @offsets: room for HOMA_MAX_BPAGES offsets; receives the offset of each
 * fragment in message order: every one but the last is a whole, aligned
 * bpage; the last holds the tail of the message.
 * @num_offsets: receives the number of entries filled in @offsets.
 *
 * The whole bpages come from the free stack. The tail (@length modulo
 * HOMA_BPAGE_SIZE, if not 0) is placed contiguously in the current partial
 * bpage if it fits there; otherwise a free bpage becomes the new partial
 * bpage and the old one is released when its last fragment returns. So a
 * message of at most one bpage is contiguous. An idle partial bpage (no
 * fragments out) counts as free: when the free stack is one short for a
 * message of whole bpages only, that bpage is taken as one of them.
 *
 * Return: 0 on success; -EINVAL for a bad @length; -ENOMEM if there is
 * not enough room now. On error nothing is changed.
 */
int homa_pool_alloc_msg(struct homa_pool_state *p, u32 length, u32 *offsets,
			u32 *num_offsets)
{
	u32 n_full, tail, need, start, i;
	int tail_fits;

	if (length == 0 || length > HOMA_MAX_MESSAGE_LENGTH)
		return -EINVAL;
	n_full = length >> HOMA_BPAGE_SHIFT;
	tail = length & (HOMA_BPAGE_SIZE - 1);
	tail_fits = tail != 0 && tail <= homa_pool_room(p);
	need = n_full + (tail != 0 && !tail_fits);
	if (need > p->num_free) {
		/*
		 * Here need >= 1. Without this, a region whose every bpage
		 * a message needs could never hold it once a small message
		 * had made some bpage the partial one.
		 */
		if (tail != 0 || p->partial == HOMA_POOL_NONE ||
		    p->bpages[p->partial].refs != 0 ||
		    need - 1 != p->num_free)
			return -ENOMEM;
		p->free_stack[p->num_free++] = p->partial;
		p->partial = HOMA_POOL_NONE;
		p->partial_used = 0;
	}

	for (i = 0; i < n_full; i++) {
		u32 index = p->free_stack[--p->num_free];

		homa_pool_mark(p, index, 0);
		offsets[i] = index << HOMA_BPAGE_SHIFT;
	}
	if (tail != 0) {
		if (!tail_fits) {
			p->partial = p->free_stack[--p->num_free];
			p->partial_used = 0;
		}
		start = p->partial_used;
		homa_pool_mark(p, p->partial, start);
		offsets[n_full] = (p->partial << HOMA_BPAGE_SHIFT) + start;
		p->partial_used = start + homa_pool_align(tail);
	}
	*num_offsets = n_full + (tail != 0);
	return 0;
}

/**
 * homa_pool_release() - Take back one fragment from the application.
 * @p: the pool.
 * @offset: an offset that homa_pool_alloc_msg() returned (untrusted: it
 * comes from user space).
 *
 * When the last fragment of a bpage returns, the bpage goes back on the
 * free stack, unless it is the current partial bpage, which is then
 * filled again from its start.
 *
 * Return: 0 on success; -EINVAL, with nothing changed, if @offset is past
 * the region, not a multiple of HOMA_POOL_ALIGN, or not the start of a
 * fragment that is out (never handed out, or already returned).
 */
int homa_pool_release(struct homa_pool_state *p, u32 offset)
{
	u32 index = offset >> HOMA_BPAGE_SHIFT;
	u32 bit = (offset & (HOMA_BPAGE_SIZE - 1)) / HOMA_POOL_ALIGN;
	u8 mask = (u8)(1U << (bit % 8));
	struct homa_bpage *bp;

	if (index >= p->num_bpages || offset % HOMA_POOL_ALIGN != 0)
		return -EINVAL;
	bp = &p->bpages[index];
	if (!(bp->starts[bit / 8] & mask) || bp->refs == 0)
		return -EINVAL;
	bp->starts[bit / 8] &= (u8)~mask;
	bp->refs--;
	if (bp->refs != 0)
		return 0;
	if (index == p->partial)
		p->partial_used = 0;
	else
		p->free_stack[p->num_free++] = index;
	return 0;
}

/**
 * homa_pool_avail_bytes() - Room left for new messages.
 * @p: the pool.
 *
 * Return: bytes in free bpages plus the bytes left in the partial bpage.
 * A u64, because a region of HOMA_POOL_MAX_BPAGES free bpages holds 4 GiB.
 */
u64 homa_pool_avail_bytes(const struct homa_pool_state *p)
{
	return (u64)p->num_free * HOMA_BPAGE_SIZE + homa_pool_room(p);
}

/**
 * homa_pool_bpages_needed() - Free bpages a message may need.
 * @length: bytes in the message (any value).
 *
 * Return: the number of bpages homa_pool_alloc_msg() takes from the free
 * stack for a message of @length bytes when its tail does not fit in the
 * partial bpage: one per whole bpage plus one for a tail. 0 for 0.
 */
u32 homa_pool_bpages_needed(u32 length)
{
	return (length >> HOMA_BPAGE_SHIFT) +
	       ((length & (HOMA_BPAGE_SIZE - 1)) != 0);
}

/**
 * homa_pool_share_ok() - May one peer's incomplete messages take another
 * message's bpages without holding more than @pct percent of a pool?
 * @num_bpages: bpages in the pool.
 * @pct: the share, in percent (0: no limit).
 * @held: bpages the peer's incomplete messages hold already.
 * @length: bytes in the new message.
 *
 * A peer that holds nothing may always take one message, however large,
 * so that a message bigger than the share can still be received.
 *
 * Return: true if the message may have its bpages.
 */
bool homa_pool_share_ok(u32 num_bpages, int pct, u32 held, u32 length)
{
	if (pct <= 0 || held == 0)
		return true;
	return (u64)held + homa_pool_bpages_needed(length) <=
	       (u64)num_bpages * pct / 100;
}

/**
 * homa_pool_copy_due() - Should a waiting recvmsg copy an incomplete
 * message's packets into its bpages now, before the rest arrives?
 * @queued: message bytes received and not yet copied.
 * @remaining: message bytes not yet received.
 * @batch: the copy_batch setting (0: copy complete messages only).
 * @pkt_max: the message's largest DATA packet so far, in message bytes.
 *
 * A complete message (@remaining 0) is copied whole by the recvmsg that
 * takes it; an incomplete one once a batch is there, so that a wakeup and
 * a lock round trip buy many packets' worth of copying. A batch is at
 * least HOMA_COPY_BATCH_PKTS of the message's largest packets: where a
 * packet alone made a batch (64 KB packets of a fast link against the
 * default 32 KB), every packet cost a wakeup.
 *
 * Return: true if the packets should be copied now.
 */
bool homa_pool_copy_due(u32 queued, u32 remaining, u32 batch, u32 pkt_max)
{
	u64 floor = (u64)pkt_max * HOMA_COPY_BATCH_PKTS;

	return batch && remaining && queued >= max_t(u64, batch, floor);
}

/**
 * homa_pool_check_region() - Validate the arguments of SO_HOMA_RCVBUF.
 * @start: user address of the region.
 * @length: bytes in the region.
 * @page_size: the system's page size (a power of 2).
 * @num_bpages: receives the number of bpages in the region on success.
 *
 * @start must be non-zero and a multiple of @page_size; @length must be
 * at least one bpage and at most HOMA_POOL_MAX_BPAGES bpages (4 GiB, so
 * every offset fits in a u32); @start + @length must not pass 2^64 - 1.
 * Bytes past the last whole bpage are left unused.
 *
 * Return: 0 if the region is usable, else -EINVAL (@num_bpages unchanged).
 */
int homa_pool_check_region(u64 start, u64 length, u64 page_size,
			   u32 *num_bpages)
{
	if (page_size == 0 || (page_size & (page_size - 1)) != 0)
		return -EINVAL;
	if (start == 0 || (start & (page_size - 1)) != 0)
		return -EINVAL;
	if (length < HOMA_BPAGE_SIZE ||
	    length > (u64)HOMA_POOL_MAX_BPAGES * HOMA_BPAGE_SIZE)
		return -EINVAL;
	if (length > ~(u64)0 - start)
		return -EINVAL;
	*num_bpages = (u32)(length >> HOMA_BPAGE_SHIFT);
	return 0;
}
