// SPDX-License-Identifier: GPL-2.0+
/*
 * Tracking the arrival of an incoming message's bytes. Packets
 * may come in any order, repeat or overlap one another; each one is folded
 * into a short sorted list of missing ranges, so the receive path learns how
 * many bytes were new, the timer learns what to ask for in a RESEND, and
 * the work per packet is bounded by HOMA_MAX_GAPS. The sender's side: the
 * ranges RESENDs asked for, queued until they are sent again
 * (struct homa_range_q).
 */

#include "homa_gap.h"

/*
 * Longest range homa_gaps_add() accepts, so that the count of new bytes it
 * returns always fits in an int. Real packets are far shorter.
 */
#define HOMA_GAP_MAX_ADD 0x7fffffffU

/**
 * homa_gaps_init() - Start tracking a message of which nothing has arrived.
 * @g: the state to initialise.
 * @length: length of the message in bytes.
 */
void homa_gaps_init(struct homa_msg_gaps *g, u32 length)
{
	memset(g, 0, sizeof(*g));
	g->length = length;
	g->bytes_remaining = length;
}

/*
 * Index of the first gap that ends after @offset, or g->num_gaps if none
 * does.
 */
static u32 homa_gaps_find(const struct homa_msg_gaps *g, u32 offset)
{
	u32 i;

	for (i = 0; i < g->num_gaps; i++)
		if (g->gaps[i].end > offset)
			break;
	return i;
}

/*
 * Bytes [start, end) arrived, with start < g->recv_end: take them out of
 * the gaps they overlap. Returns the number of bytes removed from gaps, or
 * -ENOSPC (with @g unchanged) if a gap would have to split and the list
 * is full.
 */
static int homa_gaps_fill(struct homa_msg_gaps *g, u32 start, u32 end)
{
	struct homa_gap keep[2];
	u32 first, last, n_keep = 0;
	u32 filled = 0;
	u32 lo, hi;

	first = homa_gaps_find(g, start);
	for (last = first; last < g->num_gaps; last++) {
		if (g->gaps[last].start >= end)
			break;
		lo = g->gaps[last].start > start ? g->gaps[last].start : start;
		hi = g->gaps[last].end < end ? g->gaps[last].end : end;
		filled += hi - lo;
	}
	if (last == first)
		return 0;

	/* What survives of gaps[first..last): at most a left and right part. */
	if (g->gaps[first].start < start) {
		keep[n_keep].start = g->gaps[first].start;
		keep[n_keep].end = start;
		n_keep++;
	}
	if (g->gaps[last - 1].end > end) {
		keep[n_keep].start = end;
		keep[n_keep].end = g->gaps[last - 1].end;
		n_keep++;
	}
	if (n_keep > last - first && g->num_gaps >= HOMA_MAX_GAPS)
		return -ENOSPC;

	memmove(&g->gaps[first + n_keep], &g->gaps[last],
		(g->num_gaps - last) * sizeof(g->gaps[0]));
	memcpy(&g->gaps[first], keep, n_keep * sizeof(keep[0]));
	g->num_gaps = g->num_gaps - (last - first) + n_keep;
	return filled;
}

/**
 * homa_gaps_add() - Record the arrival of a packet's bytes.
 * @g: the message's state.
 * @start: offset of the packet's first byte.
 * @end: offset just past the packet's last byte.
 *
 * The packet may repeat or overlap bytes that arrived before, and may
 * arrive in any order. On error @g is left unchanged.
 *
 * Return: the number of bytes of [@start, @end) that had not arrived
 * before (0 for a duplicate); -EINVAL if @start >= @end, @end is past the
 * end of the message or the range is longer than 0x7fffffff bytes;
 * -ENOSPC if accepting the packet would take more than HOMA_MAX_GAPS gaps
 * (the caller drops it; it will be sent again).
 */
int homa_gaps_add(struct homa_msg_gaps *g, u32 start, u32 end)
{
	u32 added = 0;
	int filled;

	if (start >= end || end > g->length || end - start > HOMA_GAP_MAX_ADD)
		return -EINVAL;

	if (start < g->recv_end) {
		filled = homa_gaps_fill(g, start, end < g->recv_end ?
					end : g->recv_end);
		if (filled < 0)
			return filled;
		added = filled;
	} else if (start > g->recv_end) {
		/* The bytes between recv_end and start become a new gap. */
		if (g->num_gaps >= HOMA_MAX_GAPS)
			return -ENOSPC;
		g->gaps[g->num_gaps].start = g->recv_end;
		g->gaps[g->num_gaps].end = start;
		g->num_gaps++;
	}
	if (end > g->recv_end) {
		added += end - (start > g->recv_end ? start : g->recv_end);
		g->recv_end = end;
	}
	g->bytes_remaining -= added;
	return added;
}

/**
 * homa_gaps_complete() - Has the whole message arrived?
 * @g: the message's state.
 *
 * Return: nonzero if every byte has arrived, 0 otherwise.
 */
int homa_gaps_complete(const struct homa_msg_gaps *g)
{
	return g->bytes_remaining == 0;
}

/**
 * homa_gaps_missing() - Choose the ranges RESENDs should ask for.
 * @g: the message's state.
 * @granted: bytes the sender may have sent so far (values beyond the
 *           message's length count as its length).
 * @out: filled with up to @max ranges, lowest first.
 * @max: most ranges wanted.
 *
 * The gaps come first: their bytes lie below the highest byte received,
 * so the sender has sent them whatever @granted says. Then, if there is
 * room, [recv_end, @granted).
 *
 * Return: the number of ranges filled (0 if nothing is missing below
 * @granted).
 */
u32 homa_gaps_missing(const struct homa_msg_gaps *g, u32 granted,
		      struct homa_gap *out, u32 max)
{
	u32 n = 0;

	while (n < max && n < g->num_gaps) {
		out[n] = g->gaps[n];
		n++;
	}
	if (granted > g->length)
		granted = g->length;
	if (n < max && g->recv_end < granted) {
		out[n].start = g->recv_end;
		out[n].end = granted;
		n++;
	}
	return n;
}

/**
 * homa_gaps_first_missing() - Choose the range a RESEND should ask for:
 * the first of homa_gaps_missing().
 * @g: the message's state.
 * @granted: bytes the sender may have sent so far.
 * @out: filled with the range on success.
 *
 * Return: 0 if @out was filled, -ENOENT if nothing is missing below
 * @granted.
 */
int homa_gaps_first_missing(const struct homa_msg_gaps *g, u32 granted,
			    struct homa_gap *out)
{
	return homa_gaps_missing(g, granted, out, 1) ? 0 : -ENOENT;
}

/**
 * homa_gaps_gap_bytes() - Count the bytes missing below the highest byte
 * received.
 * @g: the message's state.
 *
 * Return: the total length of all gaps.
 */
u32 homa_gaps_gap_bytes(const struct homa_msg_gaps *g)
{
	u32 total = 0;
	u32 i;

	for (i = 0; i < g->num_gaps; i++)
		total += g->gaps[i].end - g->gaps[i].start;
	return total;
}

/**
 * homa_rangeq_add() - Queue [@start, @end) to be sent again.
 * @q: the queue.
 * @start: first byte.
 * @end: one past the last byte (an empty range is ignored).
 *
 * Ranges that overlap or touch become one. Disjoint ranges stay apart, so
 * that the bytes between them (which arrived) are not sent again. When
 * HOMA_RANGEQ_MAX ranges would not be enough, the two ranges with the
 * smallest distance between them become one, bytes between included: a
 * bounded cost, where dropping a range would leave it to another RESEND.
 */
void homa_rangeq_add(struct homa_range_q *q, u32 start, u32 end)
{
	struct homa_gap all[HOMA_RANGEQ_MAX + 1];
	u32 i, n = 0, best = 0, dist = U32_MAX;
	bool added = false;

	if (start >= end)
		return;
	/* Sorted by start, the new range among them. */
	for (i = 0; i <= q->n; i++) {
		if (!added && (i == q->n || q->r[i].start > start)) {
			all[n].start = start;
			all[n++].end = end;
			added = true;
		}
		if (i < q->n)
			all[n++] = q->r[i];
	}
	/* Join every pair that overlaps or touches. */
	for (i = 0; i + 1 < n;) {
		if (all[i + 1].start <= all[i].end) {
			all[i].end = max_t(u32, all[i].end, all[i + 1].end);
			memmove(&all[i + 1], &all[i + 2],
				(n - i - 2) * sizeof(all[0]));
			n--;
		} else {
			i++;
		}
	}
	if (n > HOMA_RANGEQ_MAX) {
		/* One too many: join the two nearest. */
		for (i = 0; i + 1 < n; i++) {
			if (all[i + 1].start - all[i].end < dist) {
				dist = all[i + 1].start - all[i].end;
				best = i;
			}
		}
		all[best].end = all[best + 1].end;
		memmove(&all[best + 1], &all[best + 2],
			(n - best - 2) * sizeof(all[0]));
		n--;
	}
	memcpy(q->r, all, n * sizeof(all[0]));
	q->n = n;
}

/**
 * homa_rangeq_pop() - Take the lowest queued range, less what lies below
 * @from (bytes just sent again).
 * @q: the queue.
 * @from: bytes below this are no longer wanted.
 * @out: filled with the range taken.
 *
 * Ranges wholly below @from are dropped.
 *
 * Return: true if @out was filled, false if nothing is left.
 */
bool homa_rangeq_pop(struct homa_range_q *q, u32 from, struct homa_gap *out)
{
	while (q->n) {
		*out = q->r[0];
		q->n--;
		memmove(&q->r[0], &q->r[1], q->n * sizeof(q->r[0]));
		if (out->end <= from)
			continue;
		if (out->start < from)
			out->start = from;
		return true;
	}
	return false;
}
