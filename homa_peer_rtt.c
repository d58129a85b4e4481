// SPDX-License-Identifier: GPL-2.0+
/*
 * Round-trip times to each peer, measured on packets Homa sends
 * anyway: an RPC notes when the first DATA packet of its outgoing message
 * goes out, and the first GRANT for that message, or for a client the
 * first DATA packet of the response, ends the measurement. Following
 * Karn's rule a message any of whose data was sent again gives no sample.
 * The samples feed the peer's estimator (homa_rtt.c decides), which gives
 * the RTT-adaptive scheduled window for the grant code, a timeout of
 * RTT-timed RESENDs, and the lines of /proc/net/homa_peers.
 *
 * Those samples are timed by a GRANT, which goes at the highest priority
 * past the queues scheduled data waits in. So a receiver also times its
 * own GRANTs to the arrival of the first byte each let go (the data
 * delay, homa_peer.rx_rtt): its recent value against its minimum is the
 * peer's congestion state, and with rtt_congestion_react the share of the
 * grant window the peer's messages get follows it (AIMD). GRANTs echo the
 * state to the sender (HOMA_GRANT_CONGESTED), whose share of the
 * unscheduled window toward the peer can follow it the same way. The
 * data delay gives the other timeout of this host's RESENDs to the peer
 * (rtt_resend, homa_rtt_resend_basis()).
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "homa_impl.h"

/*
 * The longest RTT-timed wait before a RESEND, as a fraction of
 * timeout_ticks: an RPC needs several unanswered probes to time out.
 */
#define HOMA_RTT_RESEND_MAX_DIV 2

/*
 * The link rate RTT-based windows are built on: link_mbps, or the rate
 * DATA arrived at lately if that is lower (rtt_window_measured).
 */
static u32 homa_peer_window_mbps(struct homa_net *hnet)
{
	return homa_rtt_window_mbps(homa_cfg(hnet, link_mbps),
				    READ_ONCE(hnet->rx_mbps),
				    homa_cfg(hnet, rtt_window_measured));
}

/* Fold one sample into the peer's estimate (@min_only: an upper bound). */
static void homa_peer_rtt_sample(struct homa_peer *peer, u64 ns,
				 bool min_only)
{
	u32 mbps = homa_peer_window_mbps(peer->hnet);

	spin_lock_bh(&peer->lock);
	if (min_only)
		homa_rtt_sample_min(&peer->rtt, ns);
	else
		homa_rtt_sample(&peer->rtt, ns);
	WRITE_ONCE(peer->sched_window,
		   homa_rtt_sched_window(&peer->rtt, mbps));
	if (peer->rtt.num_samples)
		WRITE_ONCE(peer->rto_ns,
			   (peer->rtt.srtt + 4 * peer->rtt.rttvar) ? : 1);
	spin_unlock_bh(&peer->lock);
	homa_metric_inc(peer->hnet, HOMA_M_rtt_samples);
}

/*
 * One round trip's step of a share (@share, in 1/HOMA_RTT_SCALE_FULL, 0
 * for all; homa_rtt_scale_update()), at most once per @interval ns since
 * the last (@stamp). Returns -1 for a cut, 1 for a step back up, 0 for
 * none. Caller holds the peer's lock.
 */
static int homa_peer_share_step(u32 *share, u64 *stamp, u64 interval,
				bool congested, u64 now)
{
	u32 scale = *share ? : HOMA_RTT_SCALE_FULL;
	u32 next;

	if (now - *stamp < interval)
		return 0;
	next = homa_rtt_scale_update(scale, congested);
	if (next == scale)
		return 0;
	*stamp = now;
	WRITE_ONCE(*share, next);
	return next < scale ? -1 : 1;
}

/*
 * The rate a queue at this host's downlink drains at, to size it from a
 * delay (homa_rtt_queue_own()): link_mbps once DATA has arrived at half
 * of it or more at some time, else 0 (not known). A link_mbps left at its
 * default on a slower link is never believed.
 */
static u32 homa_peer_queue_mbps(struct homa_net *hnet)
{
	u32 link = homa_cfg(hnet, link_mbps);

	if ((u64)READ_ONCE(hnet->rx_peak_mbps) * 2 < link)
		return 0;
	return link;
}

/*
 * The bytes of a peer's data delay that are no queue at this host: what
 * its own link and pacer hold ahead of a granted byte, rtt_fair_skip_pkts
 * of the largest DATA packets (sized as this host sizes its own: the
 * peer's link is taken to be as fast).
 */
static u64 homa_peer_queue_skip(struct homa_net *hnet)
{
	struct homa_pace_params p;

	homa_pace_params_read(hnet, &p);
	return (u64)homa_cfg(hnet, rtt_fair_skip_pkts) *
	       homa_pace_pkt_max(&p, homa_cfg(hnet, max_gso_size));
}

/*
 * Whether a congested peer's share is due a cut: with HOMA_REACT_FAIR,
 * only while the bytes on their way to this host account for a fair part
 * of the queue (homa_rtt_queue_own()). Sets *@foreign if the cut is waived.
 */
static bool homa_peer_cut_due(struct homa_peer *peer, int react,
			      bool *foreign)
{
	struct homa_net *hnet = peer->hnet;

	*foreign = false;
	if (!peer->rx_rtt.congested)
		return false;
	if (!(react & HOMA_REACT_FAIR))
		return true;
	/* Counted by the timer each tick: a tick stale at most. */
	if (homa_rtt_queue_own(&peer->rx_rtt, READ_ONCE(hnet->rx_expected),
			       homa_peer_queue_mbps(hnet),
			       homa_peer_queue_skip(hnet)))
		return true;
	*foreign = true;
	return false;
}

/*
 * The step of the share of the grant window the peer's messages get, at
 * most once per smoothed data delay; without HOMA_REACT_GRANTS, the whole
 * window. Returns the metric to count, or HOMA_NUM_METRICS for none;
 * sets *@foreign for a step up that HOMA_REACT_FAIR gave a congested
 * peer. Caller holds peer->lock.
 */
static enum homa_metric homa_peer_scale_step(struct homa_peer *peer, u64 now,
					     bool *foreign)
{
	int react = homa_cfg(peer->hnet, rtt_congestion_react);
	bool cut;
	int step;

	lockdep_assert_held(&peer->lock);
	*foreign = false;
	if (!(react & HOMA_REACT_GRANTS)) {
		WRITE_ONCE(peer->grant_scale, 0);
		return HOMA_NUM_METRICS;
	}
	cut = homa_peer_cut_due(peer, react, foreign);
	step = homa_peer_share_step(&peer->grant_scale, &peer->scale_ns,
				    peer->rx_rtt.srtt, cut, now);
	if (step <= 0)
		*foreign = false;
	if (step < 0)
		return HOMA_M_grant_scale_cuts;
	if (step > 0)
		return HOMA_M_grant_scale_grows;
	return HOMA_NUM_METRICS;
}

/*
 * The RTT-timed RESEND timeout toward @peer in ticks before its backoff
 * (the peer's retransmission timeout, at least rtt_resend_min_us and at
 * most half of timeout_ticks), with that ceiling in *@max_ticks and, if
 * @by_delay is not NULL, whether the data delay gave it in *@by_delay; 0
 * when rtt_resend is off or the peer has no sample yet.
 */
static u32 homa_peer_resend_base(struct homa_peer *peer, u32 *max_ticks,
				 bool *by_delay)
{
	struct homa_net *hnet = peer->hnet;
	u64 min_ns = (u64)homa_cfg(hnet, rtt_resend_min_us) * NSEC_PER_USEC;
	u64 max_ns = (u64)homa_cfg(hnet, timeout_ticks) * NSEC_PER_MSEC /
		     HOMA_RTT_RESEND_MAX_DIV;
	u32 basis;
	u64 rto;

	basis = homa_rtt_resend_basis(homa_cfg(hnet, rtt_resend),
				      READ_ONCE(peer->rx_rto_ns),
				      READ_ONCE(peer->rto_ns), &rto);
	if (by_delay)
		*by_delay = basis == HOMA_RESEND_DATA_DELAY;
	*max_ticks = div_u64(max_ns, NSEC_PER_MSEC);
	if (basis == HOMA_RESEND_FIXED)
		return 0;
	return homa_rtt_ticks(rto, min_ns, max_ns, NSEC_PER_MSEC);
}

/*
 * A data-delay sample of @ns came from @peer: its RESEND backoff steps
 * back if one doubling less would have waited for that data
 * (homa_rtt_backoff_eases()). Without a lock, as the other steps.
 */
static void homa_peer_resend_ease(struct homa_peer *peer, u64 ns)
{
	u8 level = READ_ONCE(peer->resend_backoff);
	u32 ticks, max_ticks;

	if (!level)
		return;
	ticks = homa_peer_resend_base(peer, &max_ticks, NULL);
	if (!ticks || !homa_rtt_backoff_eases(ticks, level, max_ticks,
					      div_u64(ns, NSEC_PER_MSEC)))
		return;
	WRITE_ONCE(peer->resend_backoff, level - 1);
	homa_metric_inc(peer->hnet, HOMA_M_resend_backoff_eased);
}

/**
 * homa_peer_rx_sample() - A data-delay sample of a peer: the time from a
 * GRANT this host decided to the arrival of the first byte it granted.
 * It includes every queue the peer's scheduled data waits in (its pacer,
 * the links, a queue shared with other traffic), which control packets
 * at the highest priority skip. Moves the peer's congestion state and,
 * with rtt_congestion_react, the share of the grant window its messages
 * get.
 * @peer: the sender of the data.
 * @ns: the sample.
 */
void homa_peer_rx_sample(struct homa_peer *peer, u64 ns)
{
	u32 factor = homa_cfg(peer->hnet, rtt_congestion_factor);
	u32 mbps = homa_peer_window_mbps(peer->hnet);
	u64 now = ktime_get_ns();
	enum homa_metric step;
	bool foreign;
	int change;

	spin_lock_bh(&peer->lock);
	homa_rtt_sample(&peer->rx_rtt, ns);
	WRITE_ONCE(peer->rx_rto_ns,
		   (peer->rx_rtt.srtt + 4 * peer->rx_rtt.rttvar) ? : 1);
	WRITE_ONCE(peer->rx_sched_window,
		   homa_rtt_sched_window(&peer->rx_rtt, mbps));
	change = homa_rtt_congestion_update(&peer->rx_rtt, factor);
	WRITE_ONCE(peer->congested, peer->rx_rtt.congested);
	step = homa_peer_scale_step(peer, now, &foreign);
	spin_unlock_bh(&peer->lock);
	homa_metric_inc(peer->hnet, HOMA_M_rx_delay_samples);
	homa_peer_resend_ease(peer, ns);
	if (change > 0)
		homa_metric_inc(peer->hnet, HOMA_M_rtt_congested);
	else if (change < 0)
		homa_metric_inc(peer->hnet, HOMA_M_rtt_uncongested);
	if (step != HOMA_NUM_METRICS)
		homa_metric_inc(peer->hnet, step);
	if (foreign)
		homa_metric_inc(peer->hnet, HOMA_M_grant_scale_foreign);
}

/**
 * homa_peer_tx_signal() - A GRANT from a peer arrived: note whether it
 * says the peer sees this host's data congested and, with
 * HOMA_REACT_UNSCHED, take the round trip's step of the share of the
 * unscheduled window messages to the peer get (at most once per smoothed
 * RTT; the same AIMD rule as the receiver's grant share).
 * @peer: the GRANT's sender.
 * @congested: the GRANT carried HOMA_GRANT_CONGESTED.
 */
void homa_peer_tx_signal(struct homa_peer *peer, bool congested)
{
	struct homa_net *hnet = peer->hnet;
	u64 now;
	int step;

	if (READ_ONCE(peer->tx_congested) != congested)
		WRITE_ONCE(peer->tx_congested, congested);
	if (!(homa_cfg(hnet, rtt_congestion_react) & HOMA_REACT_UNSCHED)) {
		if (READ_ONCE(peer->tx_scale))
			WRITE_ONCE(peer->tx_scale, 0);
		return;
	}
	/* Most GRANTs come within a round trip of the last step: no lock. */
	now = ktime_get_ns();
	if (now - READ_ONCE(peer->tx_scale_ns) < READ_ONCE(peer->rtt.srtt))
		return;
	spin_lock_bh(&peer->lock);
	step = homa_peer_share_step(&peer->tx_scale, &peer->tx_scale_ns,
				    peer->rtt.srtt, congested, now);
	spin_unlock_bh(&peer->lock);
	if (step < 0)
		homa_metric_inc(hnet, HOMA_M_unsched_scale_cuts);
	else if (step > 0)
		homa_metric_inc(hnet, HOMA_M_unsched_scale_grows);
}

/**
 * homa_peer_unsched_share() - The share of its unscheduled window a new
 * message to a peer gets.
 * @peer: the message's receiver.
 *
 * Return: in 1/HOMA_RTT_SCALE_FULL; 0 for all of it (HOMA_REACT_UNSCHED
 * off, or no cut in effect).
 */
u32 homa_peer_unsched_share(struct homa_peer *peer)
{
	if (!(homa_cfg(peer->hnet, rtt_congestion_react) & HOMA_REACT_UNSCHED))
		return 0;
	return READ_ONCE(peer->tx_scale);
}

/**
 * homa_rpc_rx_probe_start() - A GRANT for an RPC's incoming message was
 * decided: time the arrival of the first DATA packet sent after the
 * sender had it, unless a sample is pending.
 * @rpc: the RPC; the caller holds homa_grant.lock.
 * @offset: the GRANT's offset.
 */
void homa_rpc_rx_probe_start(struct homa_rpc *rpc, u32 offset)
{
	if (READ_ONCE(rpc->rx_probe_ns))
		return;
	WRITE_ONCE(rpc->rx_probe_offset, offset);
	/* The offset is visible before the probe that makes it valid. */
	smp_wmb();
	WRITE_ONCE(rpc->rx_probe_ns, ktime_get_ns() ? : 1);
}

/**
 * homa_rpc_rx_probe_end() - A DATA packet of an RPC's incoming message
 * arrived: if its sender had the GRANT a pending probe times when it sent
 * the packet (the packet's incoming field, the sender's grant offset then,
 * is at least that GRANT's), and sent it for the first time, the time
 * since the GRANT was decided is a data-delay sample of the peer. Packets
 * already on their way when the GRANT arrived say less, whatever bytes
 * they carry (a packet cut into segments on the way carries bytes past
 * the old grant offset).
 * @rpc: the RPC; the caller holds its socket's lock.
 * @incoming: the packet's incoming field.
 * @retransmit: it was sent again (no sample: Karn's rule).
 */
void homa_rpc_rx_probe_end(struct homa_rpc *rpc, u32 incoming,
			   bool retransmit)
{
	u64 start = READ_ONCE(rpc->rx_probe_ns);
	u32 first;

	lockdep_assert_held(&rpc->hsk->lock);
	if (!start)
		return;
	/* Pairs with smp_wmb() in homa_rpc_rx_probe_start(). */
	smp_rmb();
	first = READ_ONCE(rpc->rx_probe_offset);
	if (incoming < first)
		return;
	WRITE_ONCE(rpc->rx_probe_ns, 0);
	if (!retransmit)
		homa_peer_rx_sample(rpc->peer, ktime_get_ns() - start);
}

/**
 * homa_rpc_rtt_sent() - Note that a DATA packet of an RPC's outgoing
 * message went out: the first one starts an RTT measurement, and any
 * retransmission cancels it.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @retransmit: the packet is sent again.
 */
void homa_rpc_rtt_sent(struct homa_rpc *rpc, bool retransmit)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (retransmit) {
		rpc->rtt_start = 0;
		rpc->rtt_done = true;
		return;
	}
	if (rpc->rtt_done || rpc->rtt_start)
		return;
	/*
	 * A server hears only GRANTs about its response: none comes for one
	 * sent whole unscheduled, so skip the clock read (a device access
	 * where the clocksource is an HPET) on every short response.
	 */
	if (!homa_is_client(rpc->id) &&
	    rpc->msgout.granted >= rpc->msgout.length) {
		rpc->rtt_done = true;
		return;
	}
	rpc->rtt_start = ktime_get_ns() ? : 1;
}

/**
 * homa_rpc_rtt_heard() - A packet for an RPC arrived: if it answers the
 * RPC's first DATA packet (a GRANT, or response DATA for a client), the
 * time since that packet went out is an RTT sample of the peer; one from
 * response DATA, which includes the server's time, sets only rtt_min
 * (homa_rtt_sample_min()).
 * @rpc: the RPC; the caller holds its socket's lock.
 * @type: the packet's type.
 */
void homa_rpc_rtt_heard(struct homa_rpc *rpc, u8 type)
{
	u64 start = rpc->rtt_start;

	lockdep_assert_held(&rpc->hsk->lock);
	if (!start ||
	    (type != GRANT && (type != DATA || !homa_is_client(rpc->id))))
		return;
	rpc->rtt_start = 0;
	rpc->rtt_done = true;
	homa_peer_rtt_sample(rpc->peer, ktime_get_ns() - start,
			     type != GRANT);
}

/**
 * homa_peer_sched_window() - The RTT-adaptive scheduled window for
 * messages from a peer: 3 x rtt_min x link_mbps of the GRANT-timed round
 * trip, or of the data delay where this host has no GRANT-timed sample
 * (homa_rtt_window_basis(); as of the last samples, no lock needed), at
 * least rtt_window_min.
 * @peer: the peer.
 *
 * Return: the window in bytes, or 0 when rtt_adaptive is off or the peer
 * has no sample of either yet (the caller then uses its configured
 * window).
 */
u32 homa_peer_sched_window(struct homa_peer *peer)
{
	if (!homa_cfg(peer->hnet, rtt_adaptive))
		return 0;
	return homa_rtt_window_basis(READ_ONCE(peer->sched_window),
				     READ_ONCE(peer->rx_sched_window),
				     homa_cfg(peer->hnet, rtt_window_min));
}

/* Move the peer's RESEND backoff one step (homa_rtt_backoff()). */
static void homa_peer_resend_step(struct homa_peer *peer, bool spurious)
{
	u8 level = READ_ONCE(peer->resend_backoff);

	if (spurious)
		homa_metric_inc(peer->hnet, HOMA_M_resends_spurious);
	WRITE_ONCE(peer->resend_backoff, homa_rtt_backoff(level, spurious));
}

/**
 * homa_rpc_resend_heard() - A retransmitted DATA packet of an RPC's
 * incoming message arrived. The first that fills a hole proves the RPC's
 * last RESENDs were due: the peer's backoff takes a step back. Duplicates
 * are only noted: a stored packet is sent again whole, and when it is
 * cut into segments most of them may carry bytes that arrived already,
 * so one duplicate proves nothing; the verdict waits for the round's end
 * (homa_rpc_resend_judge()).
 * @rpc: the RPC; the caller holds its socket's lock.
 * @filled: the packet brought bytes that had not arrived.
 */
void homa_rpc_resend_heard(struct homa_rpc *rpc, bool filled)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->resend_round == HOMA_RESEND_ROUND_NONE)
		return;
	if (filled) {
		rpc->resend_round = HOMA_RESEND_ROUND_NONE;
		homa_peer_resend_step(rpc->peer, false);
		return;
	}
	rpc->resend_round = HOMA_RESEND_ROUND_DUPS;
}

/**
 * homa_rpc_resend_judge() - End the round of an RPC's last RESENDs (it
 * sends new ones, or it ends): if retransmissions came back and not one
 * filled a hole, the RESENDs were premature (the data was late, not
 * lost), and the RTT-timed RESEND timeout toward the peer backs off once
 * more. If nothing came back, there is no verdict.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_rpc_resend_judge(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->resend_round == HOMA_RESEND_ROUND_DUPS)
		homa_peer_resend_step(rpc->peer, true);
	rpc->resend_round = HOMA_RESEND_ROUND_NONE;
}

/**
 * homa_peer_resend_ticks() - Silent ticks after which a receiver asks a
 * peer for missing data: the peer's retransmission timeout (of the delay
 * its data takes to arrive or of the GRANT-timed round trip: rtt_resend,
 * homa_rtt_resend_basis()), at least
 * rtt_resend_min_us and at most half of timeout_ticks, then doubled for
 * each level of the peer's backoff (homa_rpc_resend_judge()), again at
 * most half of timeout_ticks.
 * @peer: the peer.
 * @by_delay: set to whether the data delay gave the timeout.
 *
 * Return: the ticks, or 0 when rtt_resend is off or the peer has no
 * sample yet (the caller then uses resend_ticks).
 */
u32 homa_peer_resend_ticks(struct homa_peer *peer, bool *by_delay)
{
	u32 max_ticks;
	u32 ticks = homa_peer_resend_base(peer, &max_ticks, by_delay);

	if (!ticks)
		return 0;
	return homa_rtt_backed_off(ticks, READ_ONCE(peer->resend_backoff),
				   max_ticks);
}

/*
 * One line of /proc/net/homa_peers. The windows shown are the ones kept,
 * built at the last sample of each kind on the rate of that moment
 * (homa_peer_window_mbps()), not built again here.
 */
static void homa_peer_rtt_show(struct seq_file *seq, struct homa_peer *peer)
{
	struct homa_rtt rtt, rx;
	u32 scale, tx_scale;

	spin_lock_bh(&peer->lock);
	rtt = peer->rtt;
	rx = peer->rx_rtt;
	scale = peer->grant_scale;
	tx_scale = peer->tx_scale;
	spin_unlock_bh(&peer->lock);
	if (ipv6_addr_v4mapped(&peer->addr))
		seq_printf(seq, "%-39pI4", &peer->addr.s6_addr32[3]);
	else
		seq_printf(seq, "%-39pI6c", &peer->addr);
	seq_printf(seq,
		   " %8u %12llu %12llu %12llu %12u %14u %10u %12llu %12llu %9u %11u %12u %8u %12llu %12llu %12u %12u\n",
		   rtt.num_samples, rtt.rtt_min, rtt.srtt, rtt.rttvar,
		   READ_ONCE(peer->sched_window),
		   READ_ONCE(peer->resend_backoff), rx.num_samples,
		   rx.rtt_min, homa_rtt_recent(&rx), rx.congested,
		   scale ? : HOMA_RTT_SCALE_FULL,
		   READ_ONCE(peer->tx_congested),
		   tx_scale ? : HOMA_RTT_SCALE_FULL, rx.srtt, rx.rttvar,
		   READ_ONCE(peer->rx_sched_window),
		   homa_peer_sched_window(peer));
}

static int homa_peers_show(struct seq_file *seq, void *v)
{
	struct homa_net *hnet = homa_net(seq_file_single_net(seq));
	struct homa_peer *peer;
	int bkt;

	seq_printf(seq,
		   "%-39s %8s %12s %12s %12s %12s %14s %10s %12s %12s %9s %11s %12s %8s %12s %12s %12s %12s\n",
		   "addr", "samples", "rtt_min_ns", "srtt_ns", "rttvar_ns",
		   "sched_window", "resend_backoff", "rx_samples",
		   "rx_rtt_min_ns", "rx_recent_ns", "congested", "grant_scale",
		   "tx_congested", "tx_scale", "rx_srtt_ns", "rx_rttvar_ns",
		   "rx_window", "window");
	rcu_read_lock();
	hash_for_each_rcu(hnet->peers, bkt, peer, node)
		homa_peer_rtt_show(seq, peer);
	rcu_read_unlock();
	return 0;
}

/**
 * homa_peer_rtt_net_init() - Create a namespace's /proc/net/homa_peers.
 * @hnet: the new namespace's Homa host.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_peer_rtt_net_init(struct homa_net *hnet)
{
	if (!proc_create_net_single("homa_peers", 0444, hnet->net->proc_net,
				    homa_peers_show, NULL))
		return -ENOMEM;
	return 0;
}

/**
 * homa_peer_rtt_net_exit() - Remove a namespace's /proc/net/homa_peers.
 * @hnet: the Homa host of the namespace going away.
 */
void homa_peer_rtt_net_exit(struct homa_net *hnet)
{
	remove_proc_entry("homa_peers", hnet->net->proc_net);
}
