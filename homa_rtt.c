// SPDX-License-Identifier: GPL-2.0+
/*
 * RTT-adaptive windows. Each host measures its RTT to each peer
 * (the probes and their timestamps are the caller's business) and folds
 * the samples into an RFC 6298 estimator kept in ns, which gives the
 * retransmission timeout, plus the minimum ever seen, which gives the
 * scheduled window (three minimum RTTs of bytes at link rate) and, with
 * the overcommitment, max_incoming. A recent RTT far above the minimum
 * signals congestion, a state with hysteresis. The sender's unscheduled
 * window is AIMD: it halves when unscheduled bytes make up less than 40%
 * of what the sender sends while its throttle queue is not empty, and
 * grows back by an eighth of its maximum per interval in which nothing
 * was throttled.
 */

#include "homa_config.h"
#include "homa_rtt.h"

/**
 * homa_rtt_init() - Start an estimator with no samples.
 * @r: the state to initialise.
 */
void homa_rtt_init(struct homa_rtt *r)
{
	memset(r, 0, sizeof(*r));
}

/**
 * homa_rtt_sample() - Fold one RTT measurement into the estimate.
 * @r: the peer's estimator.
 * @rtt_ns: the measured RTT in ns (0 counts as 1, more than
 *          HOMA_RTT_MAX_SAMPLE_NS as that).
 *
 * The first sample R sets srtt = R and rttvar = R / 2. Each later one
 * sets rttvar = (3 * rttvar + |srtt - R|) / 4, then
 * srtt = (7 * srtt + R) / 8 (RFC 6298, section 2, in integer ns rounded
 * down). rtt_min is the smallest sample ever (or bound, from
 * homa_rtt_sample_min()); the sample also goes into the ring of recent
 * samples.
 */
void homa_rtt_sample(struct homa_rtt *r, u64 rtt_ns)
{
	u64 diff;

	if (rtt_ns == 0)
		rtt_ns = 1;
	if (rtt_ns > HOMA_RTT_MAX_SAMPLE_NS)
		rtt_ns = HOMA_RTT_MAX_SAMPLE_NS;
	if (r->num_samples == 0) {
		r->srtt = rtt_ns;
		r->rttvar = rtt_ns >> 1;
	} else {
		diff = r->srtt > rtt_ns ? r->srtt - rtt_ns : rtt_ns - r->srtt;
		r->rttvar = (3 * r->rttvar + diff) >> 2;
		r->srtt = (7 * r->srtt + rtt_ns) >> 3;
	}
	if (r->rtt_min == 0 || rtt_ns < r->rtt_min)
		r->rtt_min = rtt_ns;
	r->recent[r->next] = rtt_ns;
	r->next = (r->next + 1) % HOMA_RTT_RECENT;
	if (r->num_samples != 0xffffffffU)
		r->num_samples++;
}

/**
 * homa_rtt_sample_min() - Fold in a measurement that bounds the RTT from
 * above only: it also counts time spent at the peer (a response's first
 * DATA, which waited for the server to execute the request and for its
 * queues).
 * @r: the peer's estimator.
 * @rtt_ns: the measurement in ns (limited as in homa_rtt_sample()).
 *
 * Only rtt_min may fall (or be set, the first time). The smoothed RTT and
 * its variation, which time RESENDs, take only true round trips: with the
 * server's time in them an incast of responses made them seconds long,
 * and lost data waited that long for its RESEND.
 */
void homa_rtt_sample_min(struct homa_rtt *r, u64 rtt_ns)
{
	if (rtt_ns == 0)
		rtt_ns = 1;
	if (rtt_ns > HOMA_RTT_MAX_SAMPLE_NS)
		rtt_ns = HOMA_RTT_MAX_SAMPLE_NS;
	if (r->rtt_min == 0 || rtt_ns < r->rtt_min)
		r->rtt_min = rtt_ns;
}

/**
 * homa_rtt_recent() - The recent RTT to the peer: the smallest of the
 * last HOMA_RTT_RECENT samples (or of all, if there are fewer), so that
 * one delayed sample alone does not raise it: only queues that persist do.
 * @r: the peer's estimator.
 *
 * Return: the RTT in ns, 0 with no samples.
 */
u64 homa_rtt_recent(const struct homa_rtt *r)
{
	u32 n = r->num_samples < HOMA_RTT_RECENT ? r->num_samples :
						   HOMA_RTT_RECENT;
	u64 low;
	u32 i;

	if (n == 0)
		return 0;
	low = r->recent[0];
	for (i = 1; i < n; i++)
		if (r->recent[i] < low)
			low = r->recent[i];
	return low;
}

/**
 * homa_rtt_congested() - Is the recent RTT past the congestion threshold?
 * The signal alone, without hysteresis.
 * @r: the peer's estimator.
 * @factor: the threshold in multiples of rtt_min (0: never).
 *
 * Return: 1 if homa_rtt_recent() exceeds @factor times rtt_min, else 0
 * (also with no samples).
 */
int homa_rtt_congested(const struct homa_rtt *r, u32 factor)
{
	if (!factor || r->num_samples == 0)
		return 0;
	return homa_rtt_recent(r) > (u64)factor * r->rtt_min;
}

/**
 * homa_rtt_congestion_update() - Move the peer's congestion state after a
 * sample (or a change of @factor).
 * @r: the peer's estimator.
 * @factor: the threshold in multiples of rtt_min (0: never congested).
 *
 * The state turns on when homa_rtt_congested() says so, and off only
 * when the recent RTT is at most half the threshold (@factor * rtt_min
 * / 2), so that a queue hovering near the threshold does not make the
 * reactions to it flap with every sample.
 *
 * Return: 1 if the state turned on, -1 if it turned off, else 0.
 */
int homa_rtt_congestion_update(struct homa_rtt *r, u32 factor)
{
	if (!r->congested) {
		if (!homa_rtt_congested(r, factor))
			return 0;
		r->congested = 1;
		return 1;
	}
	if (factor && r->num_samples &&
	    2 * homa_rtt_recent(r) > (u64)factor * r->rtt_min)
		return 0;
	r->congested = 0;
	return -1;
}

/*
 * The bytes a link of @link_mbps Mbit/s carries in @ns (ns * Mbit/s =
 * bits / 1000). Rates above HOMA_RTT_MBPS_MAX count as that, so @ns below
 * 2^38 cannot overflow the product.
 */
static u64 homa_rtt_link_bytes(u64 ns, u32 link_mbps)
{
	if (link_mbps > HOMA_RTT_MBPS_MAX)
		link_mbps = HOMA_RTT_MBPS_MAX;
	return div_u64(ns * link_mbps, 8000);
}

/**
 * homa_rtt_sched_window() - The scheduled window for messages from the
 * peer.
 * @r: the peer's estimator.
 * @link_mbps: the link rate in Mbit/s (values above
 *	HOMA_RTT_MBPS_MAX count as that).
 *
 * Return: HOMA_RTT_WINDOW_RTTS * rtt_min * link rate, in bytes (rounded
 * down, at most 0xffffffff); 0 if there is no sample yet (the caller then
 * keeps its configured window).
 */
u32 homa_rtt_sched_window(const struct homa_rtt *r, u32 link_mbps)
{
	u64 bytes;

	/* 3 * rtt_min < 2^38: homa_rtt_link_bytes() cannot overflow. */
	bytes = homa_rtt_link_bytes(HOMA_RTT_WINDOW_RTTS * r->rtt_min,
				    link_mbps);
	return bytes > 0xffffffffULL ? 0xffffffffU : (u32)bytes;
}

/**
 * homa_rtt_window_floor() - A measured scheduled window, at least
 * @min_bytes. Where a full packet takes longer on the link than the round
 * trip (slow links), three round trips are a packet or two, and a sender
 * would get a GRANT for every packet: in two-way traffic those GRANTs
 * take a tenth of the link that the data needs.
 * @window: homa_rtt_sched_window()'s window; 0 (not measured) stays 0.
 * @min_bytes: the floor (rtt_window_min).
 *
 * Return: the window.
 */
u32 homa_rtt_window_floor(u32 window, u32 min_bytes)
{
	if (window == 0 || window >= min_bytes)
		return window;
	return min_bytes;
}

/**
 * homa_rtt_window_basis() - The RTT-adaptive scheduled window of a peer's
 * messages, from whichever round trip this host has measured. The
 * GRANT-timed round trip needs this host to send the peer messages
 * (a GRANT or a response ends each sample), so a host that only receives
 * from the peer, as the server of short responses, never has one; the
 * data delay (a GRANT of this host to the first byte it let go) it
 * measures as soon as it grants. The GRANT-timed window is used where it
 * exists, as before the data delay was measured.
 * @grant_window: homa_rtt_sched_window() of the GRANT-timed round trip
 *                (0: not measured).
 * @delay_window: homa_rtt_sched_window() of the data delay (0: not
 *                measured).
 * @min_bytes: the floor (rtt_window_min, homa_rtt_window_floor()).
 *
 * Return: the window, or 0 when neither is measured (the configured
 * window applies).
 */
u32 homa_rtt_window_basis(u32 grant_window, u32 delay_window, u32 min_bytes)
{
	return homa_rtt_window_floor(grant_window ? : delay_window, min_bytes);
}

/**
 * homa_rtt_max_incoming() - The receiver's limit on granted-but-
 * unreceived bytes for a window.
 * @window: the scheduled window in bytes.
 * @max_overcommit: messages granted to at once.
 *
 * Return: @window * @max_overcommit.
 */
u64 homa_rtt_max_incoming(u32 window, u32 max_overcommit)
{
	return (u64)window * max_overcommit;
}

/**
 * homa_rtt_rto() - The retransmission timeout.
 * @r: the peer's estimator.
 * @min_ns: the shortest timeout allowed.
 * @max_ns: the longest timeout allowed (wins over @min_ns).
 *
 * Return: srtt + 4 * rttvar limited to [@min_ns, @max_ns]; @max_ns if
 * there is no sample yet.
 */
u64 homa_rtt_rto(const struct homa_rtt *r, u64 min_ns, u64 max_ns)
{
	u64 rto;

	if (r->num_samples == 0)
		return max_ns;
	rto = r->srtt + 4 * r->rttvar;
	if (rto < min_ns)
		rto = min_ns;
	if (rto > max_ns)
		rto = max_ns;
	return rto;
}

/**
 * homa_rtt_resend_basis() - The retransmission timeout a receiver's
 * RESENDs to a peer are timed by.
 * @mode: rtt_resend (HOMA_RESEND_FIXED, HOMA_RESEND_GRANT_RTT or
 *	HOMA_RESEND_SMALLER).
 * @data_rto: srtt + 4 * rttvar of the delay the peer's data takes to
 *	arrive, from the GRANT that let it go (0: no sample yet).
 * @grant_rto: srtt + 4 * rttvar of the round trip from this host's first
 *	DATA of a message to the peer's first GRANT for it (0: no sample
 *	yet).
 * @rto: set to the timeout in ns, or 0 for none (the caller then keeps
 *	its fixed timeout).
 *
 * Each measure fails one way. The GRANT-timed round trip includes the
 * time the peer, as a receiver, took to rank this host's message
 * (seconds under a backlog), and a host that never sends the peer a
 * message long enough to be granted (a server of short responses) has no
 * sample at all. The data delay includes the time the peer's earlier
 * granted bytes take to leave it, so it is longer than the silence a
 * lost packet leaves on a clean path. With HOMA_RESEND_SMALLER the
 * smaller of the two wins, and either alone when only one is measured.
 * Too short a timeout costs a RESEND that the peer answers with BUSY
 * while the bytes are still in its host, and premature rounds back the
 * timeout off (homa_rtt_backoff()); too long a one costs lost data that
 * long.
 *
 * Return: the basis that gave *@rto: HOMA_RESEND_DATA_DELAY,
 * HOMA_RESEND_GRANT_RTT, or HOMA_RESEND_FIXED for none.
 */
u32 homa_rtt_resend_basis(u32 mode, u64 data_rto, u64 grant_rto, u64 *rto)
{
	*rto = 0;
	if (mode == HOMA_RESEND_FIXED)
		return HOMA_RESEND_FIXED;
	if (mode == HOMA_RESEND_SMALLER && data_rto &&
	    (!grant_rto || data_rto <= grant_rto)) {
		*rto = data_rto;
		return HOMA_RESEND_DATA_DELAY;
	}
	*rto = grant_rto;
	return grant_rto ? HOMA_RESEND_GRANT_RTT : HOMA_RESEND_FIXED;
}

/**
 * homa_rtt_ticks() - A timeout in timer ticks, for a timer that only
 * counts whole ticks.
 * @ns: the timeout in ns, before the limits.
 * @min_ns: the shortest timeout allowed.
 * @max_ns: the longest timeout allowed (wins over @min_ns).
 * @tick_ns: length of a tick in ns (0 counts as 1).
 *
 * Return: @ns limited to [@min_ns, @max_ns], rounded up to whole ticks,
 * at least 1 and at most 0xffffffff.
 */
u32 homa_rtt_ticks(u64 ns, u64 min_ns, u64 max_ns, u32 tick_ns)
{
	u64 ticks;

	if (tick_ns == 0)
		tick_ns = 1;
	if (ns < min_ns)
		ns = min_ns;
	if (ns > max_ns)
		ns = max_ns;
	ticks = div_u64(ns, tick_ns);
	if (ticks * tick_ns < ns)
		ticks++;
	if (ticks == 0)
		ticks = 1;
	return ticks > 0xffffffffULL ? 0xffffffffU : (u32)ticks;
}

/**
 * homa_rtt_rto_ticks() - The retransmission timeout in timer ticks.
 * @r: the peer's estimator.
 * @min_ns: the shortest timeout allowed.
 * @max_ns: the longest timeout allowed (wins over @min_ns).
 * @tick_ns: length of a tick in ns (0 counts as 1).
 *
 * Return: homa_rtt_rto() rounded up to whole ticks (homa_rtt_ticks());
 * 0 if there is no sample yet (the caller then keeps its fixed timeout).
 */
u32 homa_rtt_rto_ticks(const struct homa_rtt *r, u64 min_ns, u64 max_ns,
		       u32 tick_ns)
{
	if (r->num_samples == 0)
		return 0;
	return homa_rtt_ticks(r->srtt + 4 * r->rttvar, min_ns, max_ns,
			      tick_ns);
}

/**
 * homa_rtt_backoff() - A retransmitted packet from the peer arrived:
 * move the backoff of the RESEND timeout toward the peer.
 * @level: the backoff now (doublings of the timeout).
 * @spurious: every byte of the packet had arrived already, so the RESEND
 *	that asked for it was premature (its data was late, not lost).
 *
 * As TCP backs its RTO off, a spurious retransmission doubles the timeout
 * once more, up to HOMA_RTT_BACKOFF_MAX times; a retransmission that
 * filled a hole was due, and takes one doubling back. One step each way:
 * with real loss and a slow queue at once, the level settles where
 * premature and needed RESENDs balance.
 *
 * Return: the new level.
 */
u8 homa_rtt_backoff(u8 level, bool spurious)
{
	if (spurious)
		return level < HOMA_RTT_BACKOFF_MAX ? level + 1 :
						      HOMA_RTT_BACKOFF_MAX;
	return level ? level - 1 : 0;
}

/**
 * homa_rtt_backed_off() - A RESEND timeout with its backoff applied.
 * @ticks: the timeout without backoff.
 * @level: doublings (above HOMA_RTT_BACKOFF_MAX counts as that).
 * @max_ticks: the backoff never takes the timeout past this (a timeout
 *	already longer stays as it is).
 *
 * Return: @ticks doubled @level times, limited as above.
 */
u32 homa_rtt_backed_off(u32 ticks, u8 level, u32 max_ticks)
{
	u64 t = (u64)ticks << min_t(u8, level, HOMA_RTT_BACKOFF_MAX);

	if (t <= max_ticks)
		return (u32)t;
	return ticks > max_ticks ? ticks : max_ticks;
}

/**
 * homa_rtt_backoff_eases() - A data-delay sample of the peer came in (its
 * data was not sent again): may the backoff of the RESEND timeout toward
 * the peer take a step back?
 * @ticks: the timeout without backoff.
 * @level: the backoff now (doublings of the timeout).
 * @max_ticks: as for homa_rtt_backed_off().
 * @sample_ticks: the sample, in ticks.
 *
 * As TCP keeps a backed-off RTO only until a segment sent once is
 * acknowledged (Karn), the backoff is kept only while the data's delay
 * needs it: if one doubling less would still have waited longer than
 * this sample's data took, a RESEND timed so would not have been
 * premature, and the level steps back. A queue that drained is so
 * noticed by the data it delays no more; one still as long keeps the
 * level (its samples are as long as the backed-off timeout needed), so a
 * slow queue does not walk the level up and down.
 *
 * Return: true if the level is above 0 and should step back.
 */
bool homa_rtt_backoff_eases(u32 ticks, u8 level, u32 max_ticks,
			    u64 sample_ticks)
{
	if (!level)
		return false;
	return sample_ticks < homa_rtt_backed_off(ticks, level - 1, max_ticks);
}

/**
 * homa_rtt_scale_update() - One round trip's step of the share of its
 * grant window a receiver gives a peer (AIMD).
 * @scale: the share now, in 1/HOMA_RTT_SCALE_FULL (0 counts as full).
 * @congested: the peer's congestion state (homa_rtt_congestion_update()).
 *
 * Additive increase, multiplicative decrease, as TCP's congestion window
 * moves: halve while congested (not below HOMA_RTT_SCALE_MIN), grow by
 * HOMA_RTT_SCALE_STEP otherwise (not above HOMA_RTT_SCALE_FULL). AIMD is
 * what lets flows that share a queue converge to fair shares (Chiu and
 * Jain), and a queue shared with TCP is the case this exists for: Homa
 * backs off about as TCP does, and no faster.
 *
 * Return: the new share.
 */
u32 homa_rtt_scale_update(u32 scale, bool congested)
{
	if (scale == 0 || scale > HOMA_RTT_SCALE_FULL)
		scale = HOMA_RTT_SCALE_FULL;
	if (congested)
		return scale / 2 > HOMA_RTT_SCALE_MIN ? scale / 2 :
							HOMA_RTT_SCALE_MIN;
	scale += HOMA_RTT_SCALE_STEP;
	return scale < HOMA_RTT_SCALE_FULL ? scale : HOMA_RTT_SCALE_FULL;
}

/**
 * homa_rtt_queue_own() - Do the bytes on their way to a receiver account
 * for a fair part of the queue a peer's data delay shows?
 * @r: the peer's data-delay estimator (its recent delay and minimum).
 * @owed: bytes on their way to the receiver: granted or sent unscheduled,
 *	not yet received (from every peer: they share its downlink).
 * @link_mbps: the rate the queue drains at, Mbit/s (0: not known; values
 *	above HOMA_RTT_MBPS_MAX count as that).
 * @skip: bytes of the delay that are no queue at the receiver: the link
 *	time of what the sender's own link and pacer may hold ahead of a
 *	granted byte (a packet on the wire, the NIC queue's bound).
 *
 * The queue holds (recent delay - minimum) x @link_mbps bytes, less
 * @skip. When that is more than HOMA_RTT_OWN_DIV times @owed, most of it
 * is other traffic's (a TCP flow keeps a shared queue full until it loses
 * a packet): cutting the grants then does not drain it, and only hands
 * the link to that traffic, so the caller lets the share grow instead.
 * Where Homa's own bytes make the queue, they always account for it, and
 * the rule changes nothing.
 *
 * Return: 1 if @owed is at least 1/HOMA_RTT_OWN_DIV of the queue, or the
 * queue cannot be sized (no samples, no rate) or is no more than @skip;
 * else 0.
 */
int homa_rtt_queue_own(const struct homa_rtt *r, u64 owed, u32 link_mbps,
		       u64 skip)
{
	u64 recent, queue;

	if (!link_mbps || r->num_samples == 0)
		return 1;
	recent = homa_rtt_recent(r);
	if (recent <= r->rtt_min)
		return 1;
	/* At most 6e10 ns (a sample's cap) < 2^38: no overflow. */
	queue = homa_rtt_link_bytes(recent - r->rtt_min, link_mbps);
	if (queue <= skip)
		return 1;
	queue -= skip;
	if (owed >= queue)
		return 1;
	return owed * HOMA_RTT_OWN_DIV >= queue;
}

/**
 * homa_rtt_unsched_init() - Start a sender's unscheduled window.
 * @u: the state to initialise.
 * @window: the starting window (e.g. net.homa.unsched_bytes).
 */
void homa_rtt_unsched_init(struct homa_rtt_unsched *u, u32 window)
{
	u->window = window;
	u->unsched_bytes = 0;
	u->total_bytes = 0;
}

/**
 * homa_rtt_unsched_sent() - Count bytes the sender transmitted.
 * @u: the sender's state.
 * @bytes: bytes of message data sent.
 * @unscheduled: nonzero if they were sent without a grant.
 * @throttled: nonzero if the throttle queue held messages when they were
 *             sent; only such bytes are counted.
 */
void homa_rtt_unsched_sent(struct homa_rtt_unsched *u, u32 bytes,
			   int unscheduled, int throttled)
{
	if (!throttled)
		return;
	u->total_bytes += bytes;
	if (unscheduled)
		u->unsched_bytes += bytes;
}

/**
 * homa_rtt_unsched_update() - End an interval (e.g. one RTT or one timer
 * tick) and adapt the unscheduled window.
 * @u: the sender's state; the counts start again from 0.
 * @throttled: nonzero if the throttle queue holds messages now.
 * @min_window: the smallest window allowed.
 * @max_window: the largest window allowed (e.g. net.homa.unsched_bytes;
 *              wins over @min_window).
 *
 * If bytes were sent while throttled and less than
 * HOMA_RTT_UNSCHED_MIN_PCT percent of them were unscheduled, the window
 * halves. If nothing was sent while throttled and nothing is throttled
 * now, it grows by @max_window / HOMA_RTT_UNSCHED_GROW_DIV (at least 1).
 * Otherwise it stays. The result is then limited to
 * [@min_window, @max_window].
 *
 * Return: the new window.
 */
u32 homa_rtt_unsched_update(struct homa_rtt_unsched *u, int throttled,
			    u32 min_window, u32 max_window)
{
	u64 window = u->window;
	u32 step;

	if (u->total_bytes != 0 && u->unsched_bytes * 100 <
	    (u64)HOMA_RTT_UNSCHED_MIN_PCT * u->total_bytes) {
		window >>= 1;
	} else if (u->total_bytes == 0 && !throttled) {
		step = max_window / HOMA_RTT_UNSCHED_GROW_DIV;
		window += step ? step : 1;
	}
	if (window < min_window)
		window = min_window;
	if (window > max_window)
		window = max_window;
	u->window = (u32)window;
	u->unsched_bytes = 0;
	u->total_bytes = 0;
	return u->window;
}

/**
 * homa_rtt_rate_init() - Start measuring an arrival rate.
 * @r: the state.
 * @now: the current time (ns).
 * @bytes: the caller's count of bytes arrived so far.
 */
void homa_rtt_rate_init(struct homa_rtt_rate *r, u64 now, u64 bytes)
{
	r->bin_start = now;
	r->bin_bytes = bytes;
	r->kbps = 0;
}

/**
 * homa_rtt_rate_update() - Close the current bin if it is old enough and
 * fold its rate into the kept maximum.
 * @r: the state.
 * @now: the current time (ns); a time before the bin's start restarts it.
 * @bytes: the caller's count of bytes arrived so far (it only grows; a
 *         smaller value restarts the bin).
 *
 * A bin of at least HOMA_RTT_RATE_BIN_NS gives the rate of the bytes that
 * arrived in it. A rate at least the kept maximum replaces it; a lower
 * one takes 1/HOMA_RTT_RATE_DECAY of the difference off it (rounded up,
 * so that a maximum above an idle link's 0 reaches 0).
 *
 * Return: 1 if a bin closed, else 0.
 */
int homa_rtt_rate_update(struct homa_rtt_rate *r, u64 now, u64 bytes)
{
	u64 ns, rate;

	if (now < r->bin_start || bytes < r->bin_bytes) {
		r->bin_start = now;
		r->bin_bytes = bytes;
		return 0;
	}
	ns = now - r->bin_start;
	if (ns < HOMA_RTT_RATE_BIN_NS)
		return 0;
	/* bytes * 8 bits / ns = Gbit/s; * 10^6 = kbit/s. */
	rate = bytes - r->bin_bytes;
	if (rate > ~0ULL / 8000000)
		rate = ~0ULL;
	else
		rate = div64_u64(rate * 8000000, ns);
	if (rate > 0xffffffffULL)
		rate = 0xffffffffULL;
	if (rate >= r->kbps)
		r->kbps = (u32)rate;
	else
		r->kbps -= (u32)div_u64(r->kbps - rate +
					HOMA_RTT_RATE_DECAY - 1,
					HOMA_RTT_RATE_DECAY);
	r->bin_start = now;
	r->bin_bytes = bytes;
	return 1;
}

/**
 * homa_rtt_window_mbps() - The link rate a receiver's scheduled window
 * is built on (homa_rtt_sched_window()).
 * @link_mbps: net.homa.link_mbps.
 * @rate_mbps: the measured arrival rate, Mbit/s (struct homa_rtt_rate's
 *             @kbps / 1000).
 * @measured: nonzero to use it (net.homa.rtt_window_measured).
 *
 * link_mbps may be wrong (its default is 25000, whatever the link): a
 * window built on too high a rate lets the senders queue more than the
 * path holds. The measured rate can only be too low (while the host
 * receives less than its link carries), and a window of three round trips
 * at it lets the arrivals, and so the rate, grow.
 *
 * Return: @link_mbps if @measured is 0, else the smaller of @link_mbps
 * and the measured rate (at least HOMA_RTT_RATE_MIN_MBPS).
 */
u32 homa_rtt_window_mbps(u32 link_mbps, u32 rate_mbps, int measured)
{
	u32 mbps = rate_mbps > HOMA_RTT_RATE_MIN_MBPS ? rate_mbps :
							HOMA_RTT_RATE_MIN_MBPS;

	if (!measured)
		return link_mbps;
	return mbps < link_mbps ? mbps : link_mbps;
}
