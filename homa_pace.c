// SPDX-License-Identifier: GPL-2.0+
/*
 * Pacing the sender's output. Homa keeps the NIC's queue short
 * (max_nic_queue_ns) so that a short message that turns up later can
 * still go out ahead of a long one: packets beyond that wait in the
 * host's throttle queue, and the pacer releases them in SRPT order, with
 * a small share (pacer_fifo_fraction) for the oldest message. The queue
 * is not measured but estimated: every packet handed to the NIC moves the
 * time at which the NIC will be idle forward by the packet's time on the
 * wire at link_mbps. An estimate is only as good as link_mbps, so the
 * host also counts the DATA it still holds (handed to IP, not yet let go
 * of: struct homa_txhost), and a paced packet waits while that count is
 * at pacer_held_max_kb, whatever the estimate says: a wrong link_mbps, or a
 * slower queue in the host than the link, cannot fill the host's queues.
 * While that count binds, the pacer also learns the rate at which the
 * host's DATA drains, and lowers the limit to a short queue at that rate
 * (homa_pace_drain_limit()), so that a wrong link_mbps leaves no more
 * queue in the host than pacer_drain_queue_us.
 */

#include "homa_pace.h"

/**
 * homa_pace_init() - Start with an idle NIC and no FIFO credit.
 * @s: the state to initialise.
 * @now: the current time (ns).
 */
void homa_pace_init(struct homa_pace_state *s, u64 now)
{
	s->link_idle = now;
	s->fifo_credit = 0;
	s->held = 0;
}

/**
 * homa_pace_wire_ns() - Time a packet takes to leave the NIC.
 * @bytes: length of the IP packet (IP header included); shorter packets
 *         than HOMA_PACE_MIN_IP_BYTES are padded to that on the wire.
 * @link_mbps: link rate in Mbit/s (0 counts as 1).
 *
 * Return: ns to send @bytes plus HOMA_PACE_ETH_OVERHEAD at @link_mbps,
 * rounded up.
 */
u64 homa_pace_wire_ns(u32 bytes, u32 link_mbps)
{
	u64 wire = bytes < HOMA_PACE_MIN_IP_BYTES ? HOMA_PACE_MIN_IP_BYTES :
						     bytes;

	if (link_mbps == 0)
		link_mbps = 1;
	wire += HOMA_PACE_ETH_OVERHEAD;
	/* bits * 1000 / Mbit/s = ns */
	return div_u64(wire * 8000 + link_mbps - 1, link_mbps);
}

/**
 * homa_pace_queue_ns() - The NIC queue, in time.
 * @s: the pacer's state.
 * @now: the current time (ns).
 *
 * Return: ns until the NIC will have sent everything handed to it (0 if
 * it is idle).
 */
u64 homa_pace_queue_ns(const struct homa_pace_state *s, u64 now)
{
	return s->link_idle > now ? s->link_idle - now : 0;
}

/**
 * homa_pace_drained() - Has the NIC queue drained to a bound?
 * @link_idle: when the queue will be empty (struct homa_pace_state's
 *             @link_idle; the caller may read it without the lock).
 * @bound_ns: the bound (ns of queue).
 * @now: the current time (ns).
 *
 * Return: 1 if at most @bound_ns of queue remains at @now, else 0.
 */
int homa_pace_drained(u64 link_idle, u64 bound_ns, u64 now)
{
	return link_idle <= now + bound_ns;
}

/**
 * homa_pace_held_weight() - What one DATA copy counts for in the host's
 * held count.
 * @bytes: its length from the Homa header on, when it is handed to IP.
 *
 * Return: @bytes in HOMA_PACE_HELD_UNIT units, rounded up, at least 1
 * and at most HOMA_PACE_HELD_WEIGHT_MAX (a 64 KB packet counts a little
 * less than it is; a segment of 1500 bytes a little more).
 */
u32 homa_pace_held_weight(u32 bytes)
{
	u32 w = bytes / HOMA_PACE_HELD_UNIT +
		(bytes % HOMA_PACE_HELD_UNIT != 0);

	if (w == 0)
		return 1;
	return w < HOMA_PACE_HELD_WEIGHT_MAX ? w : HOMA_PACE_HELD_WEIGHT_MAX;
}

/**
 * homa_pace_held_full() - Does the host hold as much DATA as it may?
 * @s: the pacer's state (its @held).
 * @p: the configuration (its @held_max).
 *
 * Return: 1 if @p->held_max is not 0 and @s->held is at least that,
 * else 0.
 */
int homa_pace_held_full(const struct homa_pace_state *s,
			const struct homa_pace_params *p)
{
	return p->held_max != 0 && s->held >= p->held_max;
}

/**
 * homa_pace_may_send() - May a packet join the NIC queue now?
 * @s: the pacer's state.
 * @p: the configuration.
 * @now: the current time (ns).
 *
 * Return: 1 if the queue is at most @p->max_nic_queue_ns and the host
 * holds less DATA than it may (homa_pace_held_full()), else 0.
 */
int homa_pace_may_send(const struct homa_pace_state *s,
		       const struct homa_pace_params *p, u64 now)
{
	return homa_pace_queue_ns(s, now) <= p->max_nic_queue_ns &&
	       !homa_pace_held_full(s, p);
}

/**
 * homa_pace_wait_ns() - How long until a packet may join the NIC queue
 * (for the pacer's timer).
 * @s: the pacer's state.
 * @p: the configuration.
 * @now: the current time (ns).
 *
 * Return: 0 if the queue is short enough now, else the ns after which
 * it will be (if nothing else is sent meanwhile). The held count is not
 * a matter of time: the caller checks homa_pace_held_full() apart.
 */
u64 homa_pace_wait_ns(const struct homa_pace_state *s,
		      const struct homa_pace_params *p, u64 now)
{
	u64 queue = homa_pace_queue_ns(s, now);

	return queue > p->max_nic_queue_ns ? queue - p->max_nic_queue_ns : 0;
}

/**
 * homa_pace_sent() - Account for a packet handed to the NIC.
 * @s: the pacer's state.
 * @p: the configuration.
 * @now: the current time (ns).
 * @bytes: length of the IP packet.
 *
 * The NIC becomes idle homa_pace_wire_ns() after the later of @now and
 * the time it would have become idle before.
 */
void homa_pace_sent(struct homa_pace_state *s,
		    const struct homa_pace_params *p, u64 now, u32 bytes)
{
	u64 start = s->link_idle > now ? s->link_idle : now;

	s->link_idle = start + homa_pace_wire_ns(bytes, p->link_mbps);
}

/**
 * homa_pace_bypass() - Does a packet skip the pacer?
 * @p: the configuration.
 * @msg_length: length of the message the packet belongs to.
 * @control: nonzero for a control packet (GRANT, RESEND, ACK ...).
 *
 * Control packets and the packets of messages shorter than
 * @p->throttle_min_bytes are always sent at once (and counted in the
 * queue estimate): they are short, and delaying them delays far more.
 *
 * Return: 1 if the packet skips the pacer, else 0.
 */
int homa_pace_bypass(const struct homa_pace_params *p, u32 msg_length,
		     int control)
{
	return control || msg_length < p->throttle_min_bytes;
}

/**
 * homa_pace_decide() - Decide whether a packet goes now or is throttled.
 * @s: the pacer's state; the packet is accounted when it goes.
 * @p: the configuration.
 * @now: the current time (ns).
 * @bytes: length of the IP packet.
 * @msg_length: length of its message.
 * @control: nonzero for a control packet.
 * @throttled: nonzero if the throttle queue holds messages.
 *
 * A packet that homa_pace_bypass() lets through goes. Otherwise it waits
 * if other messages are throttled (the pacer releases them in SRPT
 * order, this one's message among them), and else goes if
 * homa_pace_may_send().
 *
 * Return: HOMA_PACE_SEND (and @s accounts for the packet) or
 * HOMA_PACE_THROTTLE (and @s is unchanged).
 */
int homa_pace_decide(struct homa_pace_state *s,
		     const struct homa_pace_params *p, u64 now, u32 bytes,
		     u32 msg_length, int control, int throttled)
{
	if (!homa_pace_bypass(p, msg_length, control)) {
		if (throttled || !homa_pace_may_send(s, p, now))
			return HOMA_PACE_THROTTLE;
	}
	homa_pace_sent(s, p, now, bytes);
	return HOMA_PACE_SEND;
}

/**
 * homa_pace_pick() - Choose the throttled message the pacer sends next.
 * @s: the pacer's state.
 * @p: the configuration.
 * @cands: the throttled messages.
 * @n: number of entries in @cands.
 * @fifo: set to 1 if the message was chosen as the oldest, else 0.
 *
 * Normally the message with the fewest bytes remaining (ties: the older,
 * then the lower index). When @p->fifo_fraction is not 0, the FIFO
 * credit is positive and the oldest message (ties: fewer bytes
 * remaining, then lower index) is another one, the oldest goes instead.
 * The caller reports what it then sends with homa_pace_charge().
 *
 * Return: the index in @cands, or -ENOENT if @n is 0.
 */
int homa_pace_pick(const struct homa_pace_state *s,
		   const struct homa_pace_params *p,
		   const struct homa_pace_cand *cands, u32 n, int *fifo)
{
	u32 srpt = 0, oldest = 0, i;

	*fifo = 0;
	if (n == 0)
		return -ENOENT;
	for (i = 1; i < n; i++) {
		if (cands[i].remaining < cands[srpt].remaining ||
		    (cands[i].remaining == cands[srpt].remaining &&
		     cands[i].birth < cands[srpt].birth))
			srpt = i;
		if (cands[i].birth < cands[oldest].birth ||
		    (cands[i].birth == cands[oldest].birth &&
		     cands[i].remaining < cands[oldest].remaining))
			oldest = i;
	}
	if (p->fifo_fraction != 0 && s->fifo_credit > 0 && oldest != srpt) {
		*fifo = 1;
		return oldest;
	}
	return srpt;
}

/**
 * homa_pace_charge() - Account bytes the pacer released for the FIFO
 * share.
 * @s: the pacer's state.
 * @p: the configuration.
 * @bytes: bytes released.
 * @fifo: the @fifo that homa_pace_pick() gave for the message.
 *
 * SRPT bytes add @bytes * fifo_fraction to the credit; FIFO bytes take
 * away @bytes * (1000 - fifo_fraction); the credit stays within
 * +-HOMA_PACE_FIFO_MAX_CREDIT. So over time about fifo_fraction per
 * mille of the paced bytes belong to the oldest messages.
 */
void homa_pace_charge(struct homa_pace_state *s,
		      const struct homa_pace_params *p, u32 bytes, int fifo)
{
	s64 frac = p->fifo_fraction < 1000 ? p->fifo_fraction : 1000;

	if (fifo)
		s->fifo_credit -= (s64)bytes * (1000 - frac);
	else
		s->fifo_credit += (s64)bytes * frac;
	if (s->fifo_credit > HOMA_PACE_FIFO_MAX_CREDIT)
		s->fifo_credit = HOMA_PACE_FIFO_MAX_CREDIT;
	if (s->fifo_credit < -HOMA_PACE_FIFO_MAX_CREDIT)
		s->fifo_credit = -HOMA_PACE_FIFO_MAX_CREDIT;
}

/**
 * homa_pace_pkt_bytes() - The length to account for a packet that the
 * network device may cut into segments (GSO).
 * @payload: message bytes in the packet.
 * @segs: segments it becomes on the wire (0 counts as 1).
 * @hdr_bytes: bytes of headers (IP and Homa) each segment carries.
 *
 * homa_pace_sent() adds the Ethernet overhead once per call; a packet of
 * @segs segments pays it @segs times, and each segment its own headers.
 *
 * Return: @payload + @segs * @hdr_bytes + (@segs - 1) *
 * HOMA_PACE_ETH_OVERHEAD, at most 0xffffffff.
 */
u32 homa_pace_pkt_bytes(u32 payload, u32 segs, u32 hdr_bytes)
{
	u64 bytes;

	if (segs == 0)
		segs = 1;
	bytes = payload + (u64)segs * hdr_bytes +
		(u64)(segs - 1) * HOMA_PACE_ETH_OVERHEAD;
	return bytes > 0xffffffffULL ? 0xffffffffU : (u32)bytes;
}

/**
 * homa_pace_pkt_max() - Most message bytes one stored DATA packet (one GSO
 * packet) may carry: what the link sends in max_nic_queue_ns, at least
 * HOMA_PACE_PKT_FLOOR, at most @max_gso.
 * @p: the pacer's parameters (link_mbps, max_nic_queue_ns).
 * @max_gso: the max_gso_size setting.
 *
 * The pacer lets the NIC queue reach max_nic_queue_ns before one more
 * packet joins it. Packets no longer than that bound keep the queue within
 * twice the bound, so a message that turns up waits at most that long
 * behind others; and a packet sent while the previous one is still on the
 * wire goes at once rather than through the pacer thread. Larger packets
 * cost less CPU per byte (64 KB, what TCP hands a device, on a 25 Gbit/s
 * link with a 25 us bound); on a link too slow for even the floor within
 * the bound, one packet at a time is in the queue, as with any bound.
 *
 * Return: the bytes (the caller rounds them down to whole segments).
 */
u32 homa_pace_pkt_max(const struct homa_pace_params *p, u32 max_gso)
{
	u64 link = (u64)p->max_nic_queue_ns * p->link_mbps / 8000;

	if (link < HOMA_PACE_PKT_FLOOR)
		link = HOMA_PACE_PKT_FLOOR;
	return link < max_gso ? (u32)link : max_gso;
}

/**
 * homa_pace_pkt_slack() - Message bytes by which a stored DATA packet may
 * reach past the bytes granted and still go whole: what a link of
 * @link_mbps sends in @slack_ns (grant_overshoot_ns).
 * @slack_ns: the link time allowed.
 * @link_mbps: the link rate, Mbit/s.
 *
 * A packet the receiver did not count on costs its downlink queue the
 * time the packet takes on the link; at 25 Gbit/s a 64 KB packet is 21
 * microseconds, at 16 Mbit/s a 10000 byte one is 5 milliseconds.
 *
 * Return: the bytes, at most 0xffffffff.
 */
u32 homa_pace_pkt_slack(u32 slack_ns, u32 link_mbps)
{
	u64 bytes = (u64)slack_ns * link_mbps / 8000;

	return bytes > 0xffffffffULL ? 0xffffffffU : (u32)bytes;
}

/**
 * homa_pace_pkt_cut() - Message bytes of a stored DATA packet that may go
 * now when only its first @room bytes are granted (or asked for by a
 * RESEND): the whole packet if it reaches at most @slack bytes past
 * @room, else the whole segments that cover @room, so that a message's
 * sender exceeds what its receiver counts on by less than one segment,
 * not by up to a whole stored packet (max_gso_size) per message.
 * @bytes: message bytes the packet carries.
 * @room: bytes of it below the limit.
 * @mss: message bytes per segment (0: the packet is one segment).
 * @slack: bytes the packet may reach past @room and still go whole
 *         (homa_pace_pkt_slack(); 0 for a RESEND's range).
 *
 * Return: @bytes when the packet may go whole, else a multiple of @mss
 * below @bytes; 0 when @room is 0.
 */
u32 homa_pace_pkt_cut(u32 bytes, u32 room, u32 mss, u32 slack)
{
	u64 cut;

	if (!room)
		return 0;
	if (!mss || room >= bytes || bytes - room <= slack)
		return bytes;
	cut = (u64)room + (mss - room % mss) % mss;
	return cut < bytes ? (u32)cut : bytes;
}

/**
 * homa_pace_pkt_skip() - Message bytes at the front of a stored DATA
 * packet that a retransmission leaves out because the receiver has them:
 * the whole segments within the first @before bytes.
 * @before: bytes of the packet below the first byte asked for.
 * @mss: message bytes per segment (0: the packet is one segment).
 *
 * Return: a multiple of @mss, at most @before (0 with @mss 0).
 */
u32 homa_pace_pkt_skip(u32 before, u32 mss)
{
	return mss ? before - before % mss : 0;
}

/**
 * homa_pace_pkt_held() - The size of new stored DATA packets once the
 * held count has held the pacer back lately.
 * @pkt: homa_pace_pkt_max()'s size.
 * @held_lately: nonzero if the pacer waited for the held count lately.
 *
 * homa_pace_pkt_max() sizes packets by link_mbps; a host whose held
 * count stops the pacer has evidence that link_mbps is above the link's
 * rate, and so that its packets are larger than the link warrants. A
 * packet is cut where the grant ends (homa_pace_pkt_cut()), so it no
 * longer exceeds a receiver's window; but a large packet still holds the
 * host's queue for its whole length once it goes.
 *
 * Return: @pkt, or at most HOMA_PACE_PKT_FLOOR if @held_lately.
 */
u32 homa_pace_pkt_held(u32 pkt, int held_lately)
{
	if (held_lately && pkt > HOMA_PACE_PKT_FLOOR)
		return HOMA_PACE_PKT_FLOOR;
	return pkt;
}

/**
 * homa_pace_lead() - Fold how late the pacer thread woke into its lead:
 * the time by which the thread lets the NIC queue exceed max_nic_queue_ns,
 * so that the queue does not run dry while the thread wakes up.
 * @lead: the lead so far (ns).
 * @late: how much later than it asked the thread woke this time (ns).
 * @max: the most lead allowed (ns; 0 turns the lead off).
 *
 * The lead follows a later wake-up at once and forgets it slowly (each
 * earlier wake-up takes 1/HOMA_PACE_LEAD_DECAY of the difference off), so
 * it tracks the late wake-ups rather than the typical one: any wake-up
 * later than the lead leaves the link idle.
 *
 * Return: the new lead, at most @max.
 */
u64 homa_pace_lead(u64 lead, u64 late, u64 max)
{
	if (late >= lead)
		lead = late;
	else
		lead -= div_u64(lead - late, HOMA_PACE_LEAD_DECAY);
	return lead < max ? lead : max;
}

/**
 * homa_pace_drain_full() - The pacer found the host holding as much DATA
 * as it may: the end of one sample of the drain rate, and the start of
 * the next.
 * @d: what the pacer has learned.
 * @now: the current time (ns).
 * @freed: the host's count of units let go of, ever.
 * @empties: the host's count of times its held count fell to nothing.
 *
 * A sample counts the units let go of since the stretch began, if the
 * host never ran dry meanwhile (@empties has not moved: the link then
 * waited for the pacer, and the rate would read low), at least
 * HOMA_PACE_DRAIN_MIN_UNITS went and HOMA_PACE_DRAIN_MIN_NS passed (so a
 * packet more or less counts little), and no more than
 * HOMA_PACE_DRAIN_MAX_NS passed. A fresh rate moves a quarter of the way
 * to each sample; a stale one is replaced.
 *
 * Return: 1 if a sample moved the rate, else 0.
 */
int homa_pace_drain_full(struct homa_pace_drain *d, u64 now, u64 freed,
			 u32 empties)
{
	u64 elapsed = now - d->start, sample;

	if (!d->start || empties != d->empties0 || freed < d->freed0 ||
	    elapsed > HOMA_PACE_DRAIN_MAX_NS) {
		d->start = now;
		d->freed0 = freed;
		d->empties0 = empties;
		return 0;
	}
	if (freed - d->freed0 < HOMA_PACE_DRAIN_MIN_UNITS ||
	    elapsed < HOMA_PACE_DRAIN_MIN_NS)
		return 0;
	sample = div64_u64((freed - d->freed0) * 1000000000ULL, elapsed);
	if (d->rate && now - d->learned <= HOMA_PACE_DRAIN_FRESH_NS)
		d->rate = (3 * d->rate + sample) / 4;
	else
		d->rate = sample;
	d->learned = now;
	d->start = now;
	d->freed0 = freed;
	return 1;
}

/**
 * homa_pace_drain_limit() - How much DATA the host may hold now.
 * @d: what the pacer has learned of the drain rate.
 * @p: the configuration (@held_max, @drain_queue_ns).
 * @now: the current time (ns).
 *
 * With a fresh rate, the limit is what drains in @p->drain_queue_ns, at
 * least HOMA_PACE_DRAIN_FLOOR_UNITS and at most @p->held_max: a link
 * slower than link_mbps then queues about that long in the host rather
 * than @p->held_max. A link fast enough to drain @p->held_max within
 * that time is not held back more than before. Nor is a host whose DATA
 * drains at least 1/HOMA_PACE_DRAIN_TRUST_DIV of @p->link_mbps: its NIC
 * queue estimate paces it, and the count binds because copies wait
 * beyond the host (a switch's queue toward a busy receiver, where copies
 * are held until the receiving host takes them): a lower limit would
 * only keep its messages to idle receivers waiting behind them.
 *
 * Return: the limit in HOMA_PACE_HELD_UNIT units (0: none).
 */
u32 homa_pace_drain_limit(const struct homa_pace_drain *d,
			  const struct homa_pace_params *p, u64 now)
{
	u64 link, limit;

	if (!p->held_max || !p->drain_queue_ns || !d->rate ||
	    now - d->learned > HOMA_PACE_DRAIN_FRESH_NS)
		return p->held_max;
	/* link_mbps in units per second. */
	link = div_u64((u64)(p->link_mbps ? p->link_mbps : 1) * 1000000,
		       8 * HOMA_PACE_HELD_UNIT);
	if (d->rate * HOMA_PACE_DRAIN_TRUST_DIV >= link)
		return p->held_max;
	limit = div64_u64(d->rate * p->drain_queue_ns, 1000000000ULL);
	if (limit < HOMA_PACE_DRAIN_FLOOR_UNITS)
		limit = HOMA_PACE_DRAIN_FLOOR_UNITS;
	return limit < p->held_max ? limit : p->held_max;
}
