// SPDX-License-Identifier: GPL-2.0+
/*
 * Unscheduled priority levels. The receiver learns the sizes of
 * the messages it gets in a log-spaced histogram that forgets old traffic
 * by halving. From it, cutoffs are chosen so that every unscheduled level
 * carries about the same number of unscheduled bytes, the shortest
 * messages on the highest level, and the share of levels left to
 * scheduled packets follows the share of bytes that are scheduled. All
 * arithmetic is on u64 sums kept below HOMA_PRIO_MAX_BYTES, so products
 * with small factors cannot overflow and no division is needed.
 */

#include "homa_prio.h"

/**
 * homa_prio_bucket() - The histogram bucket of a message length.
 * @length: bytes in the message, at least 1 (0 counts as 1).
 *
 * Lengths 1 to 4 have buckets 0 to 3. Above that, with x = length - 1
 * and e = floor(log2(x)), the bucket is 4 * (e - 1) plus the two bits of
 * x below its top bit, so a bucket's lengths span at most a quarter of a
 * power of two. Lengths beyond the last bucket fall into it.
 *
 * Return: the bucket, 0 to HOMA_PRIO_BUCKETS - 1.
 */
u32 homa_prio_bucket(u32 length)
{
	u32 x = length ? length - 1 : 0;
	u32 e = 2, b;

	if (x < 4)
		return x;
	while (e < 31 && (x >> (e + 1)) != 0)
		e++;
	b = (e - 1) * 4 + ((x >> (e - 2)) & 3);
	return b < HOMA_PRIO_BUCKETS ? b : HOMA_PRIO_BUCKETS - 1;
}

/**
 * homa_prio_bucket_max() - The longest length of a bucket.
 * @bucket: a bucket; larger values count as the last one.
 *
 * Return: the largest length homa_prio_bucket() maps to @bucket (for the
 * last bucket, which also takes any longer length: 2^20).
 */
u32 homa_prio_bucket_max(u32 bucket)
{
	u32 e;

	if (bucket >= HOMA_PRIO_BUCKETS)
		bucket = HOMA_PRIO_BUCKETS - 1;
	if (bucket < 4)
		return bucket + 1;
	e = bucket / 4 + 1;
	return (5 + bucket % 4) << (e - 2);
}

/**
 * homa_prio_hist_init() - Start an empty histogram.
 * @h: the histogram.
 * @half_life: halve the histogram after this many samples (0: only when
 *             the byte total would overflow, or by homa_prio_hist_decay()).
 */
void homa_prio_hist_init(struct homa_prio_hist *h, u32 half_life)
{
	memset(h, 0, sizeof(*h));
	h->half_life = half_life;
}

/**
 * homa_prio_hist_decay() - Halve every count and byte sum, so that older
 * samples weigh half as much as newer ones.
 * @h: the histogram.
 */
void homa_prio_hist_decay(struct homa_prio_hist *h)
{
	u32 b;

	h->total_bytes = 0;
	for (b = 0; b < HOMA_PRIO_BUCKETS; b++) {
		h->count[b] >>= 1;
		h->bytes[b] >>= 1;
		h->total_bytes += h->bytes[b];
	}
	h->since_decay = 0;
}

/**
 * homa_prio_hist_add() - Record one received message.
 * @h: the histogram.
 * @length: the message's length; 0 is ignored, lengths past
 *          HOMA_MAX_MESSAGE_LENGTH count as that.
 *
 * When @h->half_life samples have been added since the last halving, the
 * histogram is halved first; it is also halved as often as needed to keep
 * its byte total at most HOMA_PRIO_MAX_BYTES.
 */
void homa_prio_hist_add(struct homa_prio_hist *h, u32 length)
{
	u64 add;
	u32 b;

	if (length == 0)
		return;
	if (length > HOMA_MAX_MESSAGE_LENGTH)
		length = HOMA_MAX_MESSAGE_LENGTH;
	if (h->half_life != 0 && h->since_decay >= h->half_life)
		homa_prio_hist_decay(h);
	add = (u64)length * HOMA_PRIO_ONE;
	while (h->total_bytes + add > HOMA_PRIO_MAX_BYTES)
		homa_prio_hist_decay(h);
	b = homa_prio_bucket(length);
	h->count[b] += HOMA_PRIO_ONE;
	h->bytes[b] += add;
	h->total_bytes += add;
	h->since_decay++;
}

/*
 * Unscheduled bytes of bucket @b: each message sends at most
 * @unsched_bytes before grants. For the bucket that holds @unsched_bytes
 * this is an estimate (count * unsched_bytes, at most the bucket's bytes).
 * No overflow: count * unsched_bytes < count * bucket_max(b), which is
 * less than twice the bucket's bytes.
 */
static u64 homa_prio_unsched_part(const struct homa_prio_hist *h, u32 b,
				  u32 unsched_bytes)
{
	u64 capped;

	if (homa_prio_bucket_max(b) <= unsched_bytes)
		return h->bytes[b];
	capped = h->count[b] * unsched_bytes;
	return capped < h->bytes[b] ? capped : h->bytes[b];
}

/**
 * homa_prio_cutoffs() - Compute unscheduled cutoffs from the histogram.
 * @h: the histogram of received message sizes.
 * @unsched_bytes: bytes of a message sent before any grant.
 * @num_priorities: priority levels in use, 1 to HOMA_MAX_PRIORITIES.
 * @cutoffs: HOMA_MAX_PRIORITIES entries, filled on success in the
 *           net.homa.unsched_cutoffs form.
 *
 * With n = @num_priorities and s the share of unscheduled bytes (each
 * message's first @unsched_bytes) in all bytes, the top u = round(n * s)
 * levels are unscheduled, at least 1 and, when n > 1, at most n - 1, so a
 * level is left for scheduled packets. The lowest unscheduled level
 * (n - u) gets cutoff HOMA_MAX_MESSAGE_LENGTH; the levels above it get the
 * bucket boundaries where the running sum of unscheduled bytes, from the
 * shortest messages up, passes 1/u, 2/u ... of its total (level n - 1 the
 * first). Each boundary lies at least one bucket above the previous one
 * and below the bucket of HOMA_MAX_MESSAGE_LENGTH, so the cutoffs
 * strictly increase as the level falls. Other entries are 0.
 *
 * Return: u, the number of unscheduled levels; -EINVAL for a bad
 * @num_priorities or an @unsched_bytes of 0; -ENODATA for an empty
 * histogram. On error @cutoffs is not changed.
 */
int homa_prio_cutoffs(const struct homa_prio_hist *h, u32 unsched_bytes,
		      u32 num_priorities, u32 *cutoffs)
{
	u32 n = num_priorities, u = 0, b, k, pick, next, cap, last;
	u64 total_unsched = 0, cum;

	if (n < 1 || n > HOMA_MAX_PRIORITIES || unsched_bytes == 0)
		return -EINVAL;
	for (b = 0; b < HOMA_PRIO_BUCKETS; b++)
		total_unsched += homa_prio_unsched_part(h, b, unsched_bytes);
	if (total_unsched == 0)
		return -ENODATA;

	/* u = n * share, rounded half up, limited to [1, n - 1]. */
	for (k = 1; k <= n; k++)
		if (2 * n * total_unsched >= (2 * k - 1) * h->total_bytes)
			u = k;
	if (u >= n)
		u = n - 1;
	if (u < 1)
		u = 1;

	for (k = 0; k < HOMA_MAX_PRIORITIES; k++)
		cutoffs[k] = 0;
	cutoffs[n - u] = HOMA_MAX_MESSAGE_LENGTH;

	last = homa_prio_bucket(HOMA_MAX_MESSAGE_LENGTH) - 1;
	b = 0;
	cum = homa_prio_unsched_part(h, 0, unsched_bytes);
	next = 0;
	for (k = 1; k < u; k++) {
		/* The first bucket where the running sum reaches k/u. */
		while (cum * u < k * total_unsched &&
		       b < HOMA_PRIO_BUCKETS - 1) {
			b++;
			cum += homa_prio_unsched_part(h, b, unsched_bytes);
		}
		pick = b > next ? b : next;
		cap = last - (u - 1 - k);
		if (pick > cap)
			pick = cap;
		cutoffs[n - k] = homa_prio_bucket_max(pick);
		next = pick + 1;
	}
	return u;
}

/**
 * homa_prio_protect_top() - Keep the top level of computed cutoffs for
 * control packets and messages of one packet.
 * @cutoffs: HOMA_MAX_PRIORITIES cutoffs from homa_prio_cutoffs(); changed
 *           in place.
 * @num_priorities: the levels they were computed for.
 *
 * Control packets (GRANTs, RESENDs, ...) travel at the top level, and they
 * are what recovers from a queue's overflow. Equal shares of unscheduled
 * bytes may put long messages there (with all messages of one length of
 * 100 KB, every message's unscheduled bytes): a burst of them then fills
 * the top band of a switch port and drops the GRANTs and RESENDs that
 * would drain it, and the receiver stalls (measured: an incast of 100 KB
 * responses stopped for good once the cutoffs had adapted to them). So
 * the top level's cutoff is at most HOMA_PRIO_TOP_MAX; longer messages it
 * held go one level down. If the top level was the only unscheduled one,
 * the level below it becomes unscheduled for them, as long as one level
 * is left for scheduled packets (3 levels or more).
 */
void homa_prio_protect_top(u32 *cutoffs, u32 num_priorities)
{
	u32 n = num_priorities;

	if (n < 3 || n > HOMA_MAX_PRIORITIES ||
	    cutoffs[n - 1] <= HOMA_PRIO_TOP_MAX)
		return;
	if (!cutoffs[n - 2])
		cutoffs[n - 2] = cutoffs[n - 1];
	cutoffs[n - 1] = HOMA_PRIO_TOP_MAX;
}

/**
 * homa_prio_unsched() - The level for a message's unscheduled packets.
 * @cutoffs: HOMA_MAX_PRIORITIES cutoffs (e.g. a peer's, from a CUTOFFS
 *           packet: any values are safe).
 * @num_priorities: levels in use (0 counts as 1, more than
 *                  HOMA_MAX_PRIORITIES as that).
 * @length: the message's length in bytes.
 *
 * Return: the highest level below @num_priorities whose cutoff is not 0
 * and at least @length; if there is none, the lowest level with a cutoff
 * that is not 0; if no level has one, @num_priorities - 1.
 */
u32 homa_prio_unsched(const u32 *cutoffs, u32 num_priorities, u32 length)
{
	u32 n = num_priorities, lowest, i;

	if (n == 0)
		n = 1;
	if (n > HOMA_MAX_PRIORITIES)
		n = HOMA_MAX_PRIORITIES;
	lowest = n;
	for (i = n; i-- > 0;) {
		if (cutoffs[i] == 0)
			continue;
		if (length <= cutoffs[i])
			return i;
		lowest = i;
	}
	return lowest < n ? lowest : n - 1;
}

/**
 * homa_prio_max_sched() - The highest level for scheduled packets.
 * @cutoffs: HOMA_MAX_PRIORITIES cutoffs in the net.homa.unsched_cutoffs
 *           form.
 * @num_priorities: levels in use (0 counts as 1, more than
 *                  HOMA_MAX_PRIORITIES as that).
 *
 * Return: the level just below the lowest unscheduled level (the lowest
 * level below @num_priorities with a cutoff that is not 0); 0 if that is
 * level 0 (scheduled and unscheduled packets share it); @num_priorities -
 * 1 if no level has a cutoff.
 */
u32 homa_prio_max_sched(const u32 *cutoffs, u32 num_priorities)
{
	u32 n = num_priorities, i;

	if (n == 0)
		n = 1;
	if (n > HOMA_MAX_PRIORITIES)
		n = HOMA_MAX_PRIORITIES;
	for (i = 0; i < n; i++)
		if (cutoffs[i] != 0)
			return i ? i - 1 : 0;
	return n - 1;
}

/**
 * homa_prio_tos() - The IP TOS (IPv6 traffic class) of a priority level.
 * @priority_map: HOMA_MAX_PRIORITIES entries, net.homa.priority_map: the
 *                IP priority, 0 to 7, of each level.
 * @level: the level; values past HOMA_MAX_PRIORITIES - 1 count as that.
 *
 * Return: the IP priority in the top 3 bits, the other bits 0.
 */
u8 homa_prio_tos(const int *priority_map, u32 level)
{
	if (level >= HOMA_MAX_PRIORITIES)
		level = HOMA_MAX_PRIORITIES - 1;
	return (u8)((priority_map[level] & 7) << 5);
}

/**
 * homa_prio_data_ip() - The IP priority of a DATA packet.
 * @mapped: the IP priority that net.homa.priority_map gives the packet's
 *          level.
 * @sched_ip_priority: net.homa.sched_ip_priority: the IP priority of every
 *                     packet of scheduled bytes, or -1 (any value below 0)
 *                     for none.
 * @scheduled: the packet carries scheduled bytes (its first byte lies past
 *             the message's unscheduled bytes).
 *
 * Which levels are scheduled moves with the receiver's cutoffs (with
 * auto_cutoffs, 0 to 5 for one workload, 0 to 3 for another), so a map
 * that puts the scheduled levels in the queue of other traffic cannot be
 * written once for all; @sched_ip_priority puts them there whatever the
 * cutoffs are.
 *
 * Return: the IP priority, 0 to 7.
 */
int homa_prio_data_ip(int mapped, int sched_ip_priority, bool scheduled)
{
	if (scheduled && sched_ip_priority >= 0)
		return sched_ip_priority & 7;
	return mapped & 7;
}
