// SPDX-License-Identifier: GPL-2.0+
/*
 * The tick of a Homa host: every millisecond, each RPC that waits for its
 * peer counts a silent tick; past resend_ticks (or, with rtt_resend, the
 * peer's measured retransmission timeout) the side that receives asks
 * for what is missing (RESEND, homa_resend_missing() in homa_incoming.c),
 * past timeout_ticks the RPC fails, and a server whose response is out
 * asks the client to ack it (NEED_ACK). homa_timer_policy.c decides.
 */

#include "homa_impl.h"

/*
 * Is an incoming message held back by this host rather than its sender?
 * The sender has delivered every byte we granted and waits for more
 * grants (our SRPT scheduler ranks it below others), or we have no
 * buffer space for it. Its silence is ours and must not count against
 * the sender: with many messages waiting for grants, it would time out
 * RPCs whose senders are doing nothing wrong.
 */
static bool homa_msgin_held(struct homa_rpc *rpc)
{
	struct homa_msgin *in = &rpc->msgin;
	struct homa_gap gap;

	if (in->length < 0)
		return false;
	if (in->num_bpages == 0)
		return true;
	return homa_gaps_first_missing(&in->gaps, READ_ONCE(in->granted),
				       &gap) != 0;
}

/*
 * Is the held message waiting only for grants that the FIFO share will
 * give it in time (it has its buffers)? Under SRPT at high load a long
 * message may wait longer than stall_ms for them; it must not fail. The
 * FIFO share picks among the first HOMA_GRANT_MAX_CANDS messages only:
 * with more waiting (a flood of forged ones, say), the stall counts.
 */
static bool homa_msgin_grant_wait(struct homa_rpc *rpc,
				  const struct homa_config *c)
{
	struct homa_grant *g = &rpc->hsk->hnet->grant;

	return rpc->msgin.num_bpages != 0 &&
	       READ_ONCE(c->grant_fifo_fraction) > 0 &&
	       READ_ONCE(g->num_listed) <= HOMA_GRANT_MAX_CANDS;
}

/*
 * Is the RPC's peer silent because this host still holds copies of what
 * the RPC sent it (homa_msgout_in_host())? Then the silence is this
 * host's queue, and counting it would only bring probes, and copies, that
 * wait in the same queue.
 */
static bool homa_timer_in_host(struct homa_rpc *rpc)
{
	if (!homa_msgout_in_host(rpc, false))
		return false;
	homa_metric_inc(rpc->hsk->hnet, HOMA_M_probe_in_host);
	return true;
}

/* Does the RPC wait for its peer (so silence counts against it)? */
static bool homa_timer_waiting(struct homa_rpc *rpc, bool *receiving)
{
	*receiving = false;
	if (rpc->ready || rpc->copying)
		return false;
	if (!homa_is_client(rpc->id)) {
		if (rpc->state == RPC_INCOMING) {
			*receiving = true;
			return true;
		}
		return rpc->state == RPC_OUTGOING &&
		       rpc->msgout.next_xmit_offset >= rpc->msgout.length &&
		       !homa_timer_in_host(rpc);
	}
	/*
	 * A client that still has granted bytes of its request to send is
	 * not waiting for its server: the pacer holds them back, and the
	 * silence is its own doing (a RESEND now could only bring an
	 * RPC_UNKNOWN from a server its request has not reached, and a
	 * restart). Otherwise it waits: for grants, then for the response.
	 */
	if (rpc->msgout.length >= 0 &&
	    rpc->msgout.next_xmit_offset < rpc->msgout.granted)
		return false;
	if (homa_timer_in_host(rpc))
		return false;
	*receiving = true;
	return true;
}

/*
 * Most RPCs of one socket the timer looks at in one firing; with more, each
 * is looked at every few firings, for the time since it last was.
 */
#define HOMA_TIMER_RPCS_PER_TICK 256

/* Firings of the timer between two sweeps for idle peers. */
#define HOMA_PEER_GC_TICKS 1000

/* Most RESEND and NEED_ACK packets the timer sends one peer per firing. */
#define HOMA_PEER_PROBES_PER_TICK 8

/* May the timer send one more probe to @peer in this firing? */
static bool homa_peer_probe_ok(struct homa_net *hnet, struct homa_peer *peer)
{
	if (peer->probe_tick != hnet->timer_count) {
		peer->probe_tick = hnet->timer_count;
		peer->probes = 0;
	}
	if (peer->probes >= HOMA_PEER_PROBES_PER_TICK)
		return false;
	peer->probes++;
	return true;
}

/*
 * Has the RPC's peer been silent for @ticks (ms)? An RPC only times out
 * when its whole peer is silent: a peer busy answering others is alive.
 */
static bool homa_peer_silent(struct homa_peer *peer, int ticks)
{
	unsigned long heard = READ_ONCE(peer->last_heard);

	return time_after_eq(jiffies, heard + msecs_to_jiffies(ticks));
}

/**
 * homa_msgin_outranked() - Did DATA at a higher IP priority than that of
 * an RPC's missing bytes arrive in the last tick? Under strict priority
 * those bytes wait behind it, so the silence is this host's downlink
 * queue, not loss: the lowest ranked messages' bytes (level 0) wait while
 * any other level has data, and RESENDs for them brought copies that
 * overfilled the switch's band for level 0 and drew more RESENDs (the
 * incast bed). Only a message missing scheduled bytes (its unscheduled
 * ones go at their own level) is judged, at the IP priority of its last
 * GRANT's level, or of the level it ranks at now if that is higher: a
 * message whose window is full of bytes sent at a lower level gets no
 * GRANT to say it ranks higher, and would wait while data of messages it
 * now ranks above kept arriving.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @c: the namespace's configuration (resend_outranked, priority_map,
 *     sched_ip_priority).
 *
 * Return: true if outranked; always false with resend_outranked 0.
 */
bool homa_msgin_outranked(struct homa_rpc *rpc, const struct homa_config *c)
{
	struct homa_msgin *in = &rpc->msgin;
	struct homa_gap gap;
	int level, ip;

	if (!READ_ONCE(c->resend_outranked) || in->length < 0 ||
	    homa_gaps_first_missing(&in->gaps, READ_ONCE(in->granted),
				    &gap) ||
	    gap.start < in->unsched)
		return false;
	level = max(READ_ONCE(in->sched_prio), READ_ONCE(in->rank_prio)) &
		(HOMA_MAX_PRIORITIES - 1);
	ip = homa_prio_data_ip(READ_ONCE(c->priority_map[level]),
			       READ_ONCE(c->sched_ip_priority), true);
	return (READ_ONCE(rpc->hsk->hnet->rx_ip_prios_tick) >> (ip + 1)) != 0;
}

/*
 * The most silence outranked ticks may leave uncounted for a message
 * granted to its end, in drain times (homa_rx_drain_ms(); at least the
 * RESEND wait).
 */
#define HOMA_OUTRANKED_DRAINS 4

/* Bytes @rpc's sender may send that have not arrived. */
static u32 homa_rpc_owed(const struct homa_rpc *rpc)
{
	const struct homa_msgin *in = &rpc->msgin;
	u32 received;

	if (in->length < 0)
		return 0;
	received = in->length - in->gaps.bytes_remaining;
	return in->granted > received ? in->granted - received : 0;
}

/*
 * Silent ticks after which a receiving RPC asks for what it lacks, and
 * the interval between its RESENDs: the peer's retransmission timeout
 * when rtt_resend is on and the peer has been measured, else
 * resend_ticks and resend_interval; never less than the time the link
 * needs to deliver what the host is owed (stored in *@drain_ms). Sets
 * *@timed_by to the metric a RESEND sent now counts in.
 *
 * A message with a hole (bytes missing below the highest byte received)
 * waits resend_ticks, backed off as the timeout is, instead of a longer
 * timeout: what was sent after the missing bytes arrived, so they are
 * lost or overtaken, and the drain time bounds an overtaking (packets of
 * one message take different priority levels). This is TCP's fast
 * retransmit, where duplicate acks say the same. The timeout, taken from
 * delays under a queue and its variation, reached its ceiling (1.5 s) in
 * the share mode, and each hole held its message's granted bytes that
 * long.
 */
static int homa_timer_resend_wait(struct homa_rpc *rpc,
				  const struct homa_config *c, int *interval,
				  int *drain_ms, enum homa_metric *timed_by)
{
	bool by_delay;
	int ticks = min_t(u32, homa_peer_resend_ticks(rpc->peer, &by_delay),
			  50000);
	int drain = homa_rx_drain_ms(rpc->hsk->hnet, c);

	*drain_ms = drain;
	if (ticks > 0) {
		u8 level = READ_ONCE(rpc->peer->resend_backoff);
		int wait = max(ticks, drain);
		/* A hole: bytes sent after the missing ones arrived. */
		int gap = homa_rtt_backed_off(READ_ONCE(c->resend_ticks),
					      level, ticks);

		gap = max(gap, drain);

		*timed_by = by_delay ? HOMA_M_resends_delay_timed :
				       HOMA_M_resends_rtt_timed;
		if (rpc->msgin.gaps.num_gaps && gap < wait) {
			wait = gap;
			*timed_by = HOMA_M_resends_gap_timed;
		}
		*interval = wait;
		return wait;
	}
	*timed_by = HOMA_M_resends_tick;
	*interval = max(READ_ONCE(c->resend_interval), drain);
	return max(READ_ONCE(c->resend_ticks), drain);
}

/* Fail a client RPC with @err, or end a server RPC, counting it in @m. */
static void homa_timer_give_up(struct homa_rpc *rpc, enum homa_metric m,
			       int err)
{
	homa_metric_inc(rpc->hsk->hnet, m);
	if (homa_is_client(rpc->id))
		homa_rpc_fail(rpc, err);
	else
		homa_rpc_end(rpc);
}

/*
 * Is @rpc's incoming message granted to its end? Its outranked silence
 * is then bounded (homa_probe_view.granted_all). A message still to be
 * granted more is judged at the level the grant pass ranks it at now
 * (homa_msgin_outranked()), and waits only for messages ranked above
 * it. A message granted to its end is no longer ranked, so its missing
 * bytes stay judged at its last GRANT's level however high it would rank
 * now: on the incast bed responses granted to their end at level 0,
 * missing 9-24 KB (the level-0 band overflowed), counted no silence for
 * 7.5-9.5 s while others' data kept arriving above them. (A bound for
 * every message, four drain times, cut the bed's goodput from 87% of
 * the link to 74%: 244 RESENDs for bytes that were only waiting their
 * turn.)
 */
static bool homa_msgin_granted_all(const struct homa_rpc *rpc)
{
	const struct homa_msgin *in = &rpc->msgin;

	return in->length >= 0 && READ_ONCE(in->granted) >= (u32)in->length;
}

/* The timing @rpc is held to at this tick (homa_timer_policy.h). */
static void homa_timer_params(struct homa_rpc *rpc,
			      const struct homa_config *c, bool receiving,
			      struct homa_probe_params *par,
			      enum homa_metric *timed_by)
{
	par->timeout_ms = READ_ONCE(c->timeout_ticks);
	par->stall_ms = READ_ONCE(c->stall_ms);
	par->busy_ms = READ_ONCE(c->resend_interval);
	if (receiving) {
		par->wait_ms = homa_timer_resend_wait(rpc, c,
						      &par->interval_ms,
						      &par->drain_ms,
						      timed_by);
		par->outranked_ms = max(HOMA_OUTRANKED_DRAINS * par->drain_ms,
					par->wait_ms);
	} else {
		par->wait_ms = READ_ONCE(c->request_ack_ticks);
		par->interval_ms = par->busy_ms;
		par->drain_ms = 0;
		par->outranked_ms = 0;
	}
}

/*
 * Count @ms of waiting for @rpc and act: probe, time out, give up.
 * Returns the bytes its sender owes it (0 unless it waits for them).
 */
static u32 homa_timer_rpc(struct homa_rpc *rpc, const struct homa_config *c,
			  int ms)
{
	struct homa_pkt need_ack = { .type = NEED_ACK };
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_probe_params par;
	struct homa_probe_view v;
	enum homa_metric timed_by = HOMA_M_resends_tick;
	enum homa_probe_action action;
	bool spent;

	lockdep_assert_held(&rpc->hsk->lock);
	if (!homa_timer_waiting(rpc, &v.receiving))
		return 0;
	v.held = v.receiving && homa_msgin_held(rpc);
	v.outranked = v.receiving && !v.held && homa_msgin_outranked(rpc, c);
	if (v.outranked)
		homa_metric_inc(hnet, HOMA_M_probe_outranked);
	v.grant_wait = v.held && homa_msgin_grant_wait(rpc, c);
	v.granted_all = v.receiving && homa_msgin_granted_all(rpc);
	v.nothing_yet = rpc->msgin.length < 0;
	v.peer_silent = homa_peer_silent(rpc->peer,
					 READ_ONCE(c->timeout_ticks));
	homa_timer_params(rpc, c, v.receiving, &par, &timed_by);
	spent = rpc->probe.outrank_spent;
	action = homa_probe_tick(&rpc->probe, &v, &par, ms);
	if (rpc->probe.outrank_spent && !spent)
		homa_metric_inc(hnet, homa_probe_stall_half(&rpc->probe, &par) ?
				HOMA_M_probe_outrank_stalled :
				HOMA_M_probe_outrank_spent);
	switch (action) {
	case HOMA_PROBE_STALL:
		homa_timer_give_up(rpc, HOMA_M_rpc_stall_timeouts, -ETIMEDOUT);
		return 0;
	case HOMA_PROBE_TIMEOUT:
		homa_timer_give_up(rpc, HOMA_M_rpc_timeouts, -ETIMEDOUT);
		return 0;
	case HOMA_PROBE_SEND:
		if (!homa_peer_probe_ok(hnet, rpc->peer))
			break;
		if (!v.receiving)
			homa_rpc_xmit_control(rpc, &need_ack);
		else if (homa_resend_missing(rpc))
			homa_metric_inc(hnet, timed_by);
		homa_probe_sent(&rpc->probe);
		break;
	case HOMA_PROBE_NONE:
		if (v.held)
			return 0;
		break;
	}
	return v.receiving ? homa_rpc_owed(rpc) : 0;
}

/*
 * Look at up to HOMA_TIMER_RPCS_PER_TICK of the socket's RPCs, those the
 * timer looked at longest ago, each with the time since it last did; the
 * work of a firing does not grow with the number of RPCs. Returns the
 * socket's homa_sock.rx_owed.
 */
static u64 homa_timer_sock(struct homa_sock *hsk)
{
	struct homa_net *hnet = hsk->hnet;
	struct homa_rpc *rpc;
	int todo, ms;
	u64 owed;

	spin_lock_bh(&hsk->lock);
	todo = hsk->shutdown ? 0 : min(hsk->num_rpcs, HOMA_TIMER_RPCS_PER_TICK);
	/* Each RPC looked at moves to the end, so none is seen twice. */
	while (todo-- > 0) {
		rpc = list_first_entry(&hsk->active_rpcs, struct homa_rpc,
				       active_links);
		list_move_tail(&rpc->active_links, &hsk->active_rpcs);
		ms = min_t(u64, hnet->timer_ms - rpc->timer_ms, INT_MAX);
		rpc->timer_ms = hnet->timer_ms;
		owed = homa_timer_rpc(rpc, &hnet->config, ms);
		if (rpc->state == RPC_DEAD)
			continue;
		hsk->rx_owed += owed - rpc->owed;
		rpc->owed = owed;
	}
	owed = hsk->rx_owed;
	homa_dedup_prune(hsk, 16);
	spin_unlock_bh(&hsk->lock);
	/* An idle application does not reap: the timer does, in steps. */
	homa_rpc_reap(hsk, homa_cfg(hnet, reap_limit));
	return owed;
}

/*
 * Measure the rate DATA arrives at (homa_rtt_rate_update()) for the
 * RTT-based windows, and publish it (rx_mbps, metric rx_rate_mbps).
 */
static void homa_timer_rx_rate(struct homa_net *hnet)
{
	struct homa_rtt_rate *r = &hnet->rx_rate;
	u64 now = ktime_get_ns();
	u32 before = r->kbps / 1000;
	u64 bytes;

	if (now >= r->bin_start && now - r->bin_start < HOMA_RTT_RATE_BIN_NS)
		return;
	bytes = homa_metrics_sum(hnet, HOMA_M_rx_data_bytes);
	if (!homa_rtt_rate_update(r, now, bytes))
		return;
	WRITE_ONCE(hnet->rx_mbps, r->kbps / 1000);
	if (r->kbps / 1000 > hnet->rx_peak_mbps)
		WRITE_ONCE(hnet->rx_peak_mbps, r->kbps / 1000);
	/* A value kept as a sum of changes (they wrap as u64 does). */
	homa_metric_add(hnet, HOMA_M_rx_rate_mbps,
			(u64)(r->kbps / 1000) - before);
}

static void homa_timer_fire(struct timer_list *t)
{
	struct homa_net *hnet = homa_timer_container_of(hnet, t, timer);
	unsigned long now = jiffies;
	u64 rx_expected = 0;
	struct homa_sock *hsk;
	int ms;

	/*
	 * A tick is a millisecond; the timer may fire less often. A late
	 * firing (a starved CPU) counts as one jiffy only: silence that the
	 * host itself caused must not time RPCs out.
	 */
	ms = clamp_t(int, jiffies_to_msecs(now - hnet->timer_jiffies), 1,
		     jiffies_to_msecs(1));
	hnet->timer_jiffies = now;
	hnet->timer_count++;
	WRITE_ONCE(hnet->timer_ms, hnet->timer_ms + ms);
	hnet->rx_ip_prios_tick = xchg(&hnet->rx_ip_prios, 0);
	rcu_read_lock();
	list_for_each_entry_rcu(hsk, &hnet->socktab.all, socktab_links)
		rx_expected += homa_timer_sock(hsk);
	rcu_read_unlock();
	WRITE_ONCE(hnet->rx_expected, rx_expected);
	homa_timer_rx_rate(hnet);
	homa_pacer_tick(hnet);
	if (hnet->timer_count % HOMA_PEER_GC_TICKS == 0)
		homa_peer_gc(hnet);
	homa_cutoffs_tick(hnet);
	homa_txpages_tick(hnet);
	if (!READ_ONCE(hnet->timer_stop))
		mod_timer(&hnet->timer, jiffies + msecs_to_jiffies(1));
}

/**
 * homa_timer_start() - Start a namespace's tick.
 * @hnet: the namespace's Homa host.
 */
void homa_timer_start(struct homa_net *hnet)
{
	hnet->timer_stop = false;
	hnet->timer_jiffies = jiffies;
	homa_rtt_rate_init(&hnet->rx_rate, ktime_get_ns(), 0);
	hnet->rx_mbps = 0;
	hnet->rx_peak_mbps = 0;
	timer_setup(&hnet->timer, homa_timer_fire, 0);
	mod_timer(&hnet->timer, jiffies + 1);
}

/**
 * homa_timer_stop() - Stop a namespace's tick and wait for it to finish.
 * @hnet: the namespace's Homa host.
 */
void homa_timer_stop(struct homa_net *hnet)
{
	WRITE_ONCE(hnet->timer_stop, true);
	timer_delete_sync(&hnet->timer);
}
