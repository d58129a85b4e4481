// SPDX-License-Identifier: GPL-2.0+
/*
 * Grant scheduling on the receiver. The messages that still need
 * grants are ranked shortest remaining first; a sender's uplink carries
 * one message at a time at full speed, so every peer gets its best message
 * in before any peer gets a second one. The first max_overcommit of that
 * order are granted a window beyond what has arrived, as far as
 * max_incoming allows (the best ranked are served first), and every so
 * often the oldest message that is not among them gets a FIFO grant, so
 * that a long message under a steady stream of short ones still finishes.
 * Ranking n candidates from P peers is O(n * P) plus a sort that is
 * linear for candidates already in SRPT order (O(n^2) at worst).
 */

#include "homa_srpt.h"

/* Could this message use a grant at all? */
static int homa_srpt_eligible(const struct homa_srpt_cand *c)
{
	return !(c->flags & HOMA_SRPT_STALLED) && c->remaining != 0 &&
	       c->granted < c->length;
}

/*
 * Does candidate @a come before candidate @b in SRPT order? Fewer bytes
 * remaining first, then the older, then the lower index (so the order is
 * total and the decision deterministic).
 */
static int homa_srpt_before(const struct homa_srpt_cand *cands, u32 a, u32 b)
{
	if (cands[a].remaining != cands[b].remaining)
		return cands[a].remaining < cands[b].remaining;
	if (cands[a].birth != cands[b].birth)
		return cands[a].birth < cands[b].birth;
	return a < b;
}

/* Is candidate @i among the first @num entries of @ranked? */
static int homa_srpt_is_ranked(const u32 *ranked, u32 num, u32 i)
{
	u32 j;

	for (j = 0; j < num; j++)
		if (ranked[j] == i)
			return 1;
	return 0;
}

/*
 * The offset from which new grant bytes count: what was granted, or what
 * has arrived if that is more (never past the message's end).
 */
static u32 homa_srpt_base(const struct homa_srpt_cand *c)
{
	u32 granted = c->granted < c->length ? c->granted : c->length;
	u32 received = c->received < c->length ? c->received : c->length;

	return granted > received ? granted : received;
}

/**
 * homa_srpt_peer_limit() - How many messages of one peer may be granted to
 * at once.
 * @max_overcommit: most messages granted to at once.
 * @scale: the peer's share of the grant window, in
 *	1/HOMA_SRPT_SCALE_FULL (0 or at least HOMA_SRPT_SCALE_FULL: all).
 *
 * A cut share cuts the overcommitment as well as each message's window:
 * every message granted to keeps at least one segment in flight whatever
 * its window (the sender sends up to the end of the segment that holds
 * the granted offset, or the whole stored packet when that reaches at
 * most grant_overshoot_ns of link time past it: homa_pace_pkt_cut()), so
 * with windows alone a congested peer's eight messages still kept about
 * eight segments, or on a fast link eight packets, in the queue it
 * shares.
 *
 * Return: @max_overcommit * @scale / HOMA_SRPT_SCALE_FULL rounded up, at
 * least 1; @max_overcommit for a full share.
 */
u32 homa_srpt_peer_limit(u32 max_overcommit, u32 scale)
{
	u64 limit;

	if (scale == 0 || scale >= HOMA_SRPT_SCALE_FULL)
		return max_overcommit;
	limit = ((u64)max_overcommit * scale + HOMA_SRPT_SCALE_FULL - 1) /
		HOMA_SRPT_SCALE_FULL;
	return limit ? (u32)limit : 1;
}

/**
 * homa_srpt_rank() - Choose the messages to grant to, in SRPT order.
 * @cands: the candidate messages.
 * @n: number of entries in @cands; only the first HOMA_SRPT_MAX_CANDS
 *     are considered.
 * @max_overcommit: most messages to choose (values above
 *                  HOMA_SRPT_MAX_OVERCOMMIT count as that).
 * @ranked: room for min(@max_overcommit, HOMA_SRPT_MAX_OVERCOMMIT)
 *          entries; receives the indexes in @cands of the chosen messages,
 *          best first.
 *
 * Only messages that are not stalled, have bytes remaining and are not
 * fully granted are chosen. Selection goes in rounds: round r takes, in
 * SRPT order (fewest bytes remaining, then oldest, then lowest index),
 * one more message from every peer that has r chosen so far. So a peer
 * gets a second message only when every peer with a message waiting has
 * one, and @ranked lists all first messages before any second one. A
 * peer whose messages have a cut share (@scale) gets at most
 * homa_srpt_peer_limit() of them.
 *
 * The eligible messages are sorted once (by insertion: linear for
 * candidates already in SRPT order, as the grant list gives them) and
 * grouped by peer (each points at its peer's first message, whose entry
 * counts the peer's chosen ones); then each round is one pass over those
 * not yet chosen.
 *
 * Return: the number of messages chosen.
 */
u32 homa_srpt_rank(const struct homa_srpt_cand *cands, u32 n,
		   u32 max_overcommit, u32 *ranked)
{
	u8 left[HOMA_SRPT_MAX_CANDS], first[HOMA_SRPT_MAX_CANDS];
	u8 count[HOMA_SRPT_MAX_CANDS], peers[HOMA_SRPT_MAX_CANDS];
	u8 limit[HOMA_SRPT_MAX_CANDS];
	u32 chosen = 0, round, num_left = 0, num_peers = 0;
	u32 took, kept, i, j, k;

	if (max_overcommit > HOMA_SRPT_MAX_OVERCOMMIT)
		max_overcommit = HOMA_SRPT_MAX_OVERCOMMIT;
	if (n > HOMA_SRPT_MAX_CANDS)
		n = HOMA_SRPT_MAX_CANDS;
	for (i = 0; i < n; i++) {
		if (!homa_srpt_eligible(&cands[i]))
			continue;
		for (k = 0; k < num_peers; k++)
			if (cands[peers[k]].peer == cands[i].peer)
				break;
		if (k == num_peers) {
			peers[num_peers++] = (u8)i;
			count[i] = 0;
		}
		first[i] = peers[k];
		limit[i] = (u8)homa_srpt_peer_limit(max_overcommit,
						     cands[i].scale);
		/* Insert in SRPT order: one test each in the tree's order. */
		for (j = num_left; j > 0; j--) {
			if (!homa_srpt_before(cands, i, left[j - 1]))
				break;
			left[j] = left[j - 1];
		}
		left[j] = (u8)i;
		num_left++;
	}
	for (round = 0; chosen < max_overcommit && num_left > 0; round++) {
		took = 0;
		kept = 0;
		for (j = 0; j < num_left && chosen < max_overcommit; j++) {
			i = left[j];
			k = count[first[i]];
			if (k == round && k < limit[i]) {
				ranked[chosen++] = i;
				count[first[i]]++;
				took++;
				continue;
			}
			left[kept++] = (u8)i;
		}
		if (took == 0)
			break;
		/* What a full round left unread stays, in order. */
		while (j < num_left)
			left[kept++] = left[j++];
		num_left = kept;
	}
	return chosen;
}

/**
 * homa_srpt_window() - How far beyond its received bytes a message may be
 * granted.
 * @p: the configuration; @p->window 0 selects the dynamic window.
 * @active: number of messages being granted to.
 *
 * Return: @p->window if it is not 0, else max_incoming / (@active + 1),
 * which leaves room for one more message to join without exceeding
 * max_incoming.
 */
u32 homa_srpt_window(const struct homa_srpt_params *p, u32 active)
{
	if (p->window != 0)
		return p->window;
	return p->max_incoming / (active + 1);
}

/**
 * homa_srpt_scaled() - The window of one message whose sender's path is
 * congested.
 * @window: the window of every message (homa_srpt_window()).
 * @scale: the message's share, in 1/HOMA_SRPT_SCALE_FULL (0 or at least
 *	HOMA_SRPT_SCALE_FULL: all of it).
 *
 * Return: @window * @scale / HOMA_SRPT_SCALE_FULL, rounded down but at
 * least HOMA_SRPT_MIN_WINDOW (and never above @window).
 */
u32 homa_srpt_scaled(u32 window, u32 scale)
{
	u32 w;

	if (scale == 0 || scale >= HOMA_SRPT_SCALE_FULL)
		return window;
	w = (u32)(((u64)window * scale) / HOMA_SRPT_SCALE_FULL);
	if (w < HOMA_SRPT_MIN_WINDOW)
		w = HOMA_SRPT_MIN_WINDOW;
	return w < window ? w : window;
}

/*
 * Bytes @c was granted beyond its unscheduled ones that have not arrived
 * (up to its end; 0 if it received more than that).
 */
static u32 homa_srpt_owed(const struct homa_srpt_cand *c)
{
	u32 granted = c->granted < c->length ? c->granted : c->length;
	u32 floor = c->received > c->unsched ? c->received : c->unsched;

	return granted > floor ? granted - floor : 0;
}

/**
 * homa_srpt_outstanding() - Bytes the receiver granted that have not yet
 * arrived.
 * @cands: the messages.
 * @n: number of entries in @cands.
 *
 * A message's unscheduled bytes (@unsched) are not counted: the receiver
 * did not grant them, and a burst of them that a switch dropped arrives
 * only after RESENDs; counted, it held every grant back until then (an
 * incast of 100 KB responses stopped, with max_incoming cut to RTT-sized
 * windows). Incast control and the unscheduled window bound them instead.
 *
 * Return: the sum over @cands of granted - max(received, unsched) (grants
 * past the end of a message count up to its end; a message that received
 * more than was granted counts 0).
 */
u64 homa_srpt_outstanding(const struct homa_srpt_cand *cands, u32 n)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < n; i++)
		total += homa_srpt_owed(&cands[i]);
	return total;
}

/**
 * homa_srpt_sched_prio() - The scheduled priority of a granted message.
 * @rank: the message's position in SRPT order (0 = first).
 * @active: number of messages granted to.
 * @max_sched_prio: highest level for scheduled packets; levels
 *                  0..@max_sched_prio are scheduled.
 *
 * The best ranked message gets the highest level in use. When fewer
 * messages are active than there are scheduled levels, the lowest levels
 * are used (rank @active - 1 gets level 0), so that a shorter newcomer
 * can be given a level above all of them and preempt them at once. When
 * more are active, the ranks past the last level share level 0.
 *
 * Return: the level, 0..@max_sched_prio.
 */
u8 homa_srpt_sched_prio(u32 rank, u32 active, u32 max_sched_prio)
{
	if (rank >= active)
		return 0;
	if (active <= max_sched_prio + 1)
		return (u8)(active - 1 - rank);
	if (rank > max_sched_prio)
		return 0;
	return (u8)(max_sched_prio - rank);
}

/**
 * homa_srpt_fifo_init() - Start the FIFO share with no credit.
 * @f: the state to initialise.
 */
void homa_srpt_fifo_init(struct homa_srpt_fifo *f)
{
	f->credit = 0;
}

/*
 * The oldest message that could use a grant, is not among the first
 * @num of @ranked and is owed less than @max_owed granted bytes
 * (homa_srpt_owed()), or @n if there is none. Ties go to the fewer bytes
 * remaining, then to the lower index. A message still owed a whole FIFO
 * grant is passed over: its sender is not answering (or its bytes wait
 * in a queue), and granting it again would only add to what waits.
 */
static u32 homa_srpt_oldest(const struct homa_srpt_cand *cands, u32 n,
			    const u32 *ranked, u32 num, u32 max_owed)
{
	u32 best = n, i;

	for (i = 0; i < n; i++) {
		if (!homa_srpt_eligible(&cands[i]) ||
		    homa_srpt_is_ranked(ranked, num, i) ||
		    homa_srpt_owed(&cands[i]) >= max_owed)
			continue;
		if (best == n || cands[i].birth < cands[best].birth ||
		    (cands[i].birth == cands[best].birth &&
		     cands[i].remaining < cands[best].remaining))
			best = i;
	}
	return best;
}

/*
 * A step worth a GRANT: grant_increment, or @half if that is less (half
 * of a message's window, or of a FIFO grant).
 */
static u64 homa_srpt_step(const struct homa_srpt_params *p, u64 half)
{
	return p->grant_increment < half ? p->grant_increment : half;
}

/*
 * The step a grant that the budget trimmed must still make, or wait: at
 * most half of max_incoming, so that the budget can always grow to it as
 * granted bytes arrive. Without it a message running dry got one GRANT
 * per packet that arrived while the receiver was at max_incoming (each
 * arrival frees a packet's worth of budget); waiting for a step costs it
 * a few packets' time on a downlink that has max_incoming in flight
 * already, and leaves the budget to lower-ranked messages that need less.
 */
static u64 homa_srpt_trim_step(const struct homa_srpt_params *p, u64 half)
{
	u64 step = homa_srpt_step(p, half);

	return step < p->max_incoming / 2 ? step : p->max_incoming / 2;
}

/*
 * The FIFO share: once @fifo has saved up a grant's worth of credit, the
 * oldest message outside the SRPT set (@ranked, @active) that is owed
 * less than fifo_increment (homa_srpt_oldest()) gets up to
 * fifo_increment more bytes, within *@budget (reduced by what it takes);
 * if the budget leaves less than homa_srpt_trim_step() of half of
 * fifo_increment, it gets none yet and the credit stays.
 * Sets *@victim (n if none) and *@offset; returns the bytes granted.
 */
static u64 homa_srpt_fifo_pick(const struct homa_srpt_params *p,
			       struct homa_srpt_fifo *fifo,
			       const struct homa_srpt_cand *cands, u32 n,
			       const u32 *ranked, u32 active, u64 *budget,
			       u32 *victim, u32 *offset)
{
	u32 frac = p->fifo_fraction < 1000 ? p->fifo_fraction : 1000;
	u64 threshold = (u64)p->fifo_increment * (1000 - frac);
	const struct homa_srpt_cand *c;
	u64 target, bytes;
	u32 base;

	*victim = n;
	if (frac == 0 || p->fifo_increment == 0 || fifo->credit < threshold)
		return 0;
	*victim = homa_srpt_oldest(cands, n, ranked, active,
				   p->fifo_increment);
	if (*victim == n) {
		/* Nobody is waiting: keep one grant's worth only. */
		fifo->credit = threshold;
		return 0;
	}
	c = &cands[*victim];
	base = homa_srpt_base(c);
	target = (u64)base + p->fifo_increment;
	if (target > c->length)
		target = c->length;
	bytes = target - base;
	if (bytes > *budget) {
		/* Trimmed: a sliver waits, as an SRPT grant does. */
		bytes = *budget;
		if (bytes < homa_srpt_trim_step(p, p->fifo_increment / 2)) {
			*victim = n;
			return 0;
		}
	}
	*budget -= bytes;
	*offset = base + (u32)bytes;
	return bytes;
}

/*
 * Is a GRANT that moves @c's offset from @base to @target worth sending?
 * Yes if it reaches the message's end, moves it by at least the step
 * (grant_increment, or half the message's window @win if less), or the
 * sender has less than a step granted and not yet received (it would run
 * dry). Fewer, larger grants cost the receiver fewer decisions and the
 * sender fewer packets; the window still leaves at least half of it in
 * flight.
 */
static bool homa_srpt_grant_due(const struct homa_srpt_params *p,
				const struct homa_srpt_cand *c, u32 base,
				u64 target, u32 win)
{
	u64 step = homa_srpt_step(p, win / 2);
	u32 received = c->received < c->length ? c->received : c->length;

	if (target >= c->length || target - base >= step)
		return true;
	return base - received < step;
}

/**
 * homa_srpt_grants() - Decide every grant to send now.
 * @p: the configuration.
 * @fifo: the FIFO share's state, updated here.
 * @cands: the incoming messages (all of them, or at least all that need
 *         grants; those with grants outstanding and not listed count in
 *         @other_incoming).
 * @n: number of entries in @cands.
 * @other_incoming: granted-but-unreceived bytes of messages not in
 *                  @cands.
 * @out: room for min(@p->max_overcommit, HOMA_SRPT_MAX_OVERCOMMIT) + 1
 *       entries; receives the decisions.
 *
 * The messages homa_srpt_rank() chooses get, in rank order, entries with
 * offset min(length, received + window) (homa_srpt_window(), scaled by
 * the message's @scale with homa_srpt_scaled()), never below
 * their current grant, and the priority homa_srpt_sched_prio() gives their
 * rank; an entry moves its offset only by a step worth a GRANT
 * (@p->grant_increment; see homa_srpt_grant_due()). New bytes are granted
 * only while the total of granted-but-unreceived bytes stays at most
 * @p->max_incoming; when it would not, the lowest ranked are trimmed
 * first (their entries remain, with fewer or no new bytes), and a trimmed
 * entry that would move its offset by less than a step grants nothing
 * (homa_srpt_trim_step()). FIFO share: granting B bytes by SRPT adds
 * B * fifo_fraction to @fifo->credit; when the credit reaches
 * fifo_increment * (1000 - fifo_fraction), the oldest message that needs
 * a grant, was not chosen and is owed less than fifo_increment of what
 * it was granted gets up to fifo_increment more bytes at the highest
 * scheduled level (@p->max_sched_prio: at level 0, under strict
 * priority, they would wait behind every ranked message, the very
 * starvation the share is for, and draw RESENDs while they wait), or
 * none yet if the budget leaves less than a step of half that (before
 * the SRPT grants take their share of max_incoming; its entry comes
 * last, with @fifo set, and only if it grants new bytes), and
 * the credit falls by (1000 - fifo_fraction) per byte granted. So over
 * time about fifo_fraction per mille of granted bytes go to old messages.
 *
 * Return: the number of entries in @out.
 */
u32 homa_srpt_grants(const struct homa_srpt_params *p,
		     struct homa_srpt_fifo *fifo,
		     const struct homa_srpt_cand *cands, u32 n,
		     u64 other_incoming, struct homa_srpt_grant *out)
{
	u32 ranked[HOMA_SRPT_MAX_OVERCOMMIT];
	u64 total, budget, extra, target, threshold;
	u64 srpt_bytes = 0, fifo_bytes;
	u32 active, window, win, frac, victim, base, r, num_out = 0;
	const struct homa_srpt_cand *c;
	u32 fifo_offset = 0;

	active = homa_srpt_rank(cands, n, p->max_overcommit, ranked);
	window = homa_srpt_window(p, active);
	total = other_incoming + homa_srpt_outstanding(cands, n);
	budget = p->max_incoming > total ? p->max_incoming - total : 0;

	frac = p->fifo_fraction < 1000 ? p->fifo_fraction : 1000;
	threshold = (u64)p->fifo_increment * (1000 - frac);
	fifo_bytes = homa_srpt_fifo_pick(p, fifo, cands, n, ranked, active,
					 &budget, &victim, &fifo_offset);

	for (r = 0; r < active; r++) {
		c = &cands[ranked[r]];
		base = homa_srpt_base(c);
		win = homa_srpt_scaled(window, c->scale);
		target = (u64)c->received + win;
		if (target > c->length)
			target = c->length;
		extra = target > base ? target - base : 0;
		if (extra && !homa_srpt_grant_due(p, c, base, target, win))
			extra = 0;
		if (extra > budget) {
			extra = budget;
			if (extra < homa_srpt_trim_step(p, win / 2))
				extra = 0;
		}
		budget -= extra;
		srpt_bytes += extra;
		out[num_out].index = ranked[r];
		out[num_out].offset = base + (u32)extra;
		out[num_out].priority = homa_srpt_sched_prio(r, active,
							     p->max_sched_prio);
		out[num_out].fifo = 0;
		out[num_out].rank = (u16)r;
		num_out++;
	}

	if (fifo_bytes != 0) {
		out[num_out].index = victim;
		out[num_out].offset = fifo_offset;
		out[num_out].priority = (u8)p->max_sched_prio;
		out[num_out].fifo = 1;
		out[num_out].rank = 0;
		num_out++;
	}

	fifo->credit += srpt_bytes * frac;
	fifo->credit -= fifo_bytes * (1000 - frac);
	if (fifo->credit > threshold * HOMA_SRPT_FIFO_MAX_BEHIND)
		fifo->credit = threshold * HOMA_SRPT_FIFO_MAX_BEHIND;
	return num_out;
}
