/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The counters of one Homa host (network namespace). Each
 * is a per-CPU u64 summed when /proc/net/homa_metrics is read; gauges (live
 * objects) are counters that go down as well as up, so their sum is the
 * current value. Every reason a packet is dropped has its own counter.
 */

#ifndef _HOMA_METRICS_H
#define _HOMA_METRICS_H

#include <linux/percpu.h>

/**
 * enum homa_metric - index of each metric in struct homa_metrics, in the
 * order /proc/net/homa_metrics prints them (descriptions in homa_metrics.c).
 * @HOMA_M_pkts_rx_data: DATA packets received.
 * @HOMA_M_pkts_rx_grant: GRANT packets received.
 * @HOMA_M_pkts_rx_resend: RESEND packets received.
 * @HOMA_M_pkts_rx_rpc_unknown: RPC_UNKNOWN packets received.
 * @HOMA_M_pkts_rx_busy: BUSY packets received.
 * @HOMA_M_pkts_rx_cutoffs: CUTOFFS packets received.
 * @HOMA_M_pkts_rx_need_ack: NEED_ACK packets received.
 * @HOMA_M_pkts_rx_ack: ACK packets received.
 * @HOMA_M_drop_short: packets dropped: shorter than their header.
 * @HOMA_M_drop_malformed: packets dropped: a header field is invalid.
 * @HOMA_M_drop_unknown_type: packets dropped: unknown packet type.
 * @HOMA_M_drop_no_socket: packets dropped: no socket on the port.
 * @HOMA_M_icmp_errors: ICMP errors received for Homa packets.
 * @HOMA_M_sockets_opened: sockets created.
 * @HOMA_M_sockets_live: sockets open now (gauge).
 * @HOMA_M_bind_errors: bind calls that failed.
 * @HOMA_M_sysctl_rejects: sysctl writes rejected as invalid.
 * @HOMA_M_pkts_tx_data: DATA packets sent.
 * @HOMA_M_pkts_tx_grant: GRANT packets sent.
 * @HOMA_M_pkts_tx_resend: RESEND packets sent.
 * @HOMA_M_pkts_tx_rpc_unknown: RPC_UNKNOWN packets sent.
 * @HOMA_M_pkts_tx_busy: BUSY packets sent.
 * @HOMA_M_pkts_tx_need_ack: NEED_ACK packets sent.
 * @HOMA_M_pkts_tx_ack: ACK packets sent.
 * @HOMA_M_drop_no_rpc: packets dropped: no RPC they could belong to.
 * @HOMA_M_drop_stale_data: DATA dropped: the RPC is past receiving.
 * @HOMA_M_drop_duplicate: DATA dropped: every byte already received.
 * @HOMA_M_drop_wrong_family: packets dropped: IPv6 sender, IPv4 socket.
 * @HOMA_M_drop_no_peer: packets dropped: no memory or route for the sender.
 * @HOMA_M_tx_no_route: packets not sent: no route to the peer.
 * @HOMA_M_tx_no_memory: packets not sent: out of memory.
 * @HOMA_M_tx_stack_drops: packets counted as sent that the IP layer or a
 *	qdisc refused (an error or NET_XMIT_DROP from the hand-off).
 * @HOMA_M_data_resent: DATA packets sent again after a RESEND.
 * @HOMA_M_data_splits: stored DATA packets cut in two at whole segments,
 *	so that no more than the granted bytes (or a RESEND's range) go.
 * @HOMA_M_gso_segmented: large DATA packets cut into segments in software.
 * @HOMA_M_tx_pages_kept: payload pages of freed DATA packets that the
 *	host's page cache took (tx_page_cache_kb).
 * @HOMA_M_tx_pages_reused: payload pages that sendmsg took from that
 *	cache instead of allocating (and zeroing) new ones.
 * @HOMA_M_tx_page_cache_bytes: bytes of pages in that cache now (gauge).
 * @HOMA_M_tx_pages_released: cached pages given back to the allocator
 *	(the cache idle, or above tx_page_cache_kb).
 * @HOMA_M_resends_sent: RESEND requests sent for missing data.
 * @HOMA_M_rpc_restarts: client RPCs restarted after RPC_UNKNOWN.
 * @HOMA_M_rpc_timeouts: RPCs that failed or ended after timeout_ticks.
 * @HOMA_M_rpcs_acked: server RPCs freed by a client ack.
 * @HOMA_M_rpcs_acked_closed: server RPCs freed because ICMP port
 *	unreachable answered their NEED_ACK: the client's socket is gone.
 * @HOMA_M_rpcs_ended_closed: server RPCs whose request was not all
 *	received, ended because ICMP port unreachable answered a GRANT or
 *	RESEND of theirs (the client's socket is closed).
 * @HOMA_M_pool_stalls: messages that waited for receive buffer space.
 * @HOMA_M_rpcs_live: RPCs alive now (gauge).
 * @HOMA_M_skbs_live: packets held now: messages in and out, dead (gauge).
 * @HOMA_M_peers_live: peers in the peer table now (gauge).
 * @HOMA_M_peers_freed: idle peers freed by garbage collection.
 * @HOMA_M_rpc_icmp_failures: client RPCs failed by an ICMP error.
 * @HOMA_M_requests_deduped: request packets dropped: already executed.
 * @HOMA_M_dedup_live: executed requests remembered now (gauge).
 * @HOMA_M_dedup_evicted: executed requests forgotten early (table full).
 * @HOMA_M_drop_gaps_full: DATA dropped: its message has too many holes.
 * @HOMA_M_incast_marked: requests sent marked HOMA_DATA_INCAST.
 * @HOMA_M_incast_responses: responses sent with fewer unscheduled bytes.
 * @HOMA_M_data_tx_prio0: DATA packets sent at priority level 0.
 * @HOMA_M_data_tx_prio1: DATA packets sent at priority level 1.
 * @HOMA_M_data_tx_prio2: DATA packets sent at priority level 2.
 * @HOMA_M_data_tx_prio3: DATA packets sent at priority level 3.
 * @HOMA_M_data_tx_prio4: DATA packets sent at priority level 4.
 * @HOMA_M_data_tx_prio5: DATA packets sent at priority level 5.
 * @HOMA_M_data_tx_prio6: DATA packets sent at priority level 6.
 * @HOMA_M_data_tx_prio7: DATA packets sent at priority level 7.
 * @HOMA_M_grant_decisions: grants that gave a message new bytes.
 * @HOMA_M_grant_bytes: bytes granted beyond earlier grants.
 * @HOMA_M_grant_fifo_grants: grants from the FIFO share to the oldest.
 * @HOMA_M_grant_overflow: messages left out of a grant decision (too many).
 * @HOMA_M_cutoffs_computed: computations of the unscheduled cutoffs.
 * @HOMA_M_cutoffs_updated: CUTOFFS packets that changed a peer's cutoffs.
 * @HOMA_M_pkts_tx_cutoffs: CUTOFFS packets sent.
 * @HOMA_M_pacer_throttled: messages queued for the pacer.
 * @HOMA_M_pacer_bytes: message bytes the pacer thread sent.
 * @HOMA_M_pacer_wakeups: times the idle pacer thread woke for work.
 * @HOMA_M_nic_queue_max_ns: longest NIC queue paced DATA made (ns).
 * @HOMA_M_tx_held_max_bytes: most DATA the host held (handed to IP,
 *	not yet let go of) when the pacer looked.
 * @HOMA_M_pacer_held_waits: times the pacer thread waited because the
 *	host held pacer_held_max_kb of DATA (or the lower limit
 *	pacer_drain_queue_us sets).
 * @HOMA_M_pacer_held_ns: time (ns) the pacer thread waited because the
 *	host held as much DATA as pacer_held_max_kb allows.
 * @HOMA_M_pacer_drain_samples: samples of the rate at which the host's
 *	DATA drains, taken while the held count bound the pacer.
 * @HOMA_M_pacer_drain_kbps: the drain rate the pacer learned last
 *	(Kbit/s; a value, not a count: each sample adds the difference).
 * @HOMA_M_pacer_rx_helps: times a received packet found the NIC queue
 *	drained while messages waited for the pacer, and stepped it.
 * @HOMA_M_pacer_lock_busy: pacer steps that found the chosen message's
 *	socket locked, and so sent nothing then.
 * @HOMA_M_pacer_tick_sends: packets sent by pacer steps taken outside
 *	the pacer thread (the timer's; received packets' with pacer_rx_help).
 * @HOMA_M_pacer_late_ns: time (ns) the NIC queue was empty by the
 *	estimate while the pacer thread slept with packets ready to go (it
 *	woke later than the queue drained).
 * @HOMA_M_pacer_sleeps: timed sleeps of the pacer thread that ended
 *	(it slept while the NIC queue drained).
 * @HOMA_M_pacer_oversleep_ns: time (ns) by which those sleeps ended
 *	later than asked, summed.
 * @HOMA_M_unsched_halvings: times the unscheduled window was halved.
 * @HOMA_M_rx_data_bytes: bytes of DATA packets received (IP packets).
 * @HOMA_M_rx_rate_mbps: the rate DATA arrived at lately, Mbit/s, as the
 *	RTT-based windows use it (a value, not a count;
 *	homa_rtt_rate_update()).
 * @HOMA_M_rtt_samples: RTT samples taken from peers.
 * @HOMA_M_rx_delay_samples: data-delay samples taken (GRANT to the
 *	arrival of the first byte it granted).
 * @HOMA_M_rtt_congested: times a peer turned congested (its recent data
 *	delay passed rtt_congestion_factor x its minimum).
 * @HOMA_M_rtt_uncongested: times a peer's congestion ended.
 * @HOMA_M_grant_scale_cuts: times a congested peer's share of the grant
 *	window was halved (rtt_congestion_react).
 * @HOMA_M_grant_scale_grows: times it grew back a step.
 * @HOMA_M_grant_scale_foreign: steps up of a peer's share taken while it
 *	was congested, because the queue its data delay showed was mostly
 *	not this host's granted bytes (HOMA_REACT_FAIR; also counted in
 *	@HOMA_M_grant_scale_grows).
 * @HOMA_M_grants_congested: GRANTs sent with HOMA_GRANT_CONGESTED (their
 *	receiver's data reaches this host congested).
 * @HOMA_M_unsched_scale_cuts: times the share of the unscheduled window
 *	toward a peer whose GRANTs say congested was halved
 *	(HOMA_REACT_UNSCHED).
 * @HOMA_M_unsched_scale_grows: times it grew back a step.
 * @HOMA_M_unsched_cut_msgs: messages sent with fewer unscheduled bytes
 *	for that share.
 * @HOMA_M_resends_rtt_timed: RESENDs timed by the GRANT-timed round trip
 *	to the peer (rtt_resend 1; with 2, when its timeout was the smaller
 *	or the only one measured).
 * @HOMA_M_resends_delay_timed: RESENDs timed by the delay of the peer's
 *	data (rtt_resend 2, when its timeout was the smaller or the only one
 *	measured).
 * @HOMA_M_resends_tick: RESENDs timed by resend_ticks.
 * @HOMA_M_resends_gap_timed: RESENDs timed by resend_ticks although the
 *	peer is measured: bytes past the missing ones arrived.
 * @HOMA_M_resends_spurious: rounds of an RPC's RESENDs whose
 *	retransmissions all arrived as duplicates: they were premature.
 * @HOMA_M_resend_backoff_eased: steps back of a peer's RESEND backoff
 *	on a data-delay sample that one doubling less would have waited for.
 * @HOMA_M_resend_in_host: RESENDs answered with BUSY: this host still
 *	held copies of first transmissions of the message's packets.
 * @HOMA_M_probe_in_host: timer ticks at which an RPC counted no silence:
 *	this host still held copies of its outgoing message's packets.
 * @HOMA_M_probe_outranked: timer ticks at which a receiving RPC counted
 *	no silence: DATA at a higher IP priority than its bytes' arrived.
 * @HOMA_M_probe_outrank_spent: silences of receiving RPCs that outranked
 *	ticks left uncounted for their whole bound: from then on they count.
 * @HOMA_M_drop_wrong_source: packets and ICMP errors for a client RPC
 *	dropped: not from (or not about) its server's address and port.
 * @HOMA_M_drop_not_host: packets dropped: not addressed to this host
 *	alone (broadcast, multicast, or another host's).
 * @HOMA_M_drop_policy: packets dropped by the inbound IPsec policy.
 * @HOMA_M_drop_rpc_limit: requests dropped: peer_rpc_limit or
 *	sock_rpc_limit undelivered requests already held.
 * @HOMA_M_rpc_stall_timeouts: RPCs ended or failed after stall_ms
 *	without progress.
 * @HOMA_M_peers_evicted: unused peers freed to make room (max_peers).
 * @HOMA_M_drop_rmem: DATA dropped: its socket holds rmem_max bytes of
 *	received packets.
 * @HOMA_M_pool_peer_waits: messages that waited for buffer space because
 *	their peer's incomplete messages held peer_pool_pct of the pool.
 * @HOMA_M_copy_early_batches: batches of an incomplete message's packets
 *	that a waiting recvmsg copied into its buffers (copy_batch).
 * @HOMA_M_copy_early_bytes: message bytes those batches copied.
 * @HOMA_M_resends_urgent: RESENDs that asked for one segment at the top
 *	level after HOMA_PROBE_URGENT unanswered probes (homa_probe_urgent()).
 * @HOMA_M_poll_hits: recvmsg spins (poll_usecs) that ended because the
 *	socket changed (an RPC made ready, as a rule) before the thread slept.
 * @HOMA_M_poll_misses: recvmsg spins that ended with no change (time up,
 *	another task to run, or a signal); the thread then slept.
 * @HOMA_M_probe_outrank_stalled: silences of receiving RPCs whose
 *	outranked wait ended because the stall had counted half of stall_ms
 *	(homa_probe_stall_half()).
 * @HOMA_NUM_METRICS: the number of metrics.
 */
enum homa_metric {
	HOMA_M_pkts_rx_data,
	HOMA_M_pkts_rx_grant,
	HOMA_M_pkts_rx_resend,
	HOMA_M_pkts_rx_rpc_unknown,
	HOMA_M_pkts_rx_busy,
	HOMA_M_pkts_rx_cutoffs,
	HOMA_M_pkts_rx_need_ack,
	HOMA_M_pkts_rx_ack,
	HOMA_M_drop_short,
	HOMA_M_drop_malformed,
	HOMA_M_drop_unknown_type,
	HOMA_M_drop_no_socket,
	HOMA_M_icmp_errors,
	HOMA_M_sockets_opened,
	HOMA_M_sockets_live,
	HOMA_M_bind_errors,
	HOMA_M_sysctl_rejects,
	HOMA_M_pkts_tx_data,
	HOMA_M_pkts_tx_grant,
	HOMA_M_pkts_tx_resend,
	HOMA_M_pkts_tx_rpc_unknown,
	HOMA_M_pkts_tx_busy,
	HOMA_M_pkts_tx_need_ack,
	HOMA_M_pkts_tx_ack,
	HOMA_M_drop_no_rpc,
	HOMA_M_drop_stale_data,
	HOMA_M_drop_duplicate,
	HOMA_M_drop_wrong_family,
	HOMA_M_drop_no_peer,
	HOMA_M_tx_no_route,
	HOMA_M_tx_no_memory,
	HOMA_M_tx_stack_drops,
	HOMA_M_data_resent,
	HOMA_M_data_splits,
	HOMA_M_gso_segmented,
	HOMA_M_tx_pages_kept,
	HOMA_M_tx_pages_reused,
	HOMA_M_tx_page_cache_bytes,
	HOMA_M_tx_pages_released,
	HOMA_M_resends_sent,
	HOMA_M_rpc_restarts,
	HOMA_M_rpc_timeouts,
	HOMA_M_rpcs_acked,
	HOMA_M_rpcs_acked_closed,
	HOMA_M_rpcs_ended_closed,
	HOMA_M_pool_stalls,
	HOMA_M_rpcs_live,
	HOMA_M_skbs_live,
	HOMA_M_peers_live,
	HOMA_M_peers_freed,
	HOMA_M_rpc_icmp_failures,
	HOMA_M_requests_deduped,
	HOMA_M_dedup_live,
	HOMA_M_dedup_evicted,
	HOMA_M_drop_gaps_full,
	HOMA_M_incast_marked,
	HOMA_M_incast_responses,
	HOMA_M_data_tx_prio0,
	HOMA_M_data_tx_prio1,
	HOMA_M_data_tx_prio2,
	HOMA_M_data_tx_prio3,
	HOMA_M_data_tx_prio4,
	HOMA_M_data_tx_prio5,
	HOMA_M_data_tx_prio6,
	HOMA_M_data_tx_prio7,
	HOMA_M_grant_decisions,
	HOMA_M_grant_bytes,
	HOMA_M_grant_fifo_grants,
	HOMA_M_grant_overflow,
	HOMA_M_cutoffs_computed,
	HOMA_M_cutoffs_updated,
	HOMA_M_pkts_tx_cutoffs,
	HOMA_M_pacer_throttled,
	HOMA_M_pacer_bytes,
	HOMA_M_pacer_wakeups,
	HOMA_M_nic_queue_max_ns,
	HOMA_M_tx_held_max_bytes,
	HOMA_M_pacer_held_waits,
	HOMA_M_pacer_held_ns,
	HOMA_M_pacer_drain_samples,
	HOMA_M_pacer_drain_kbps,
	HOMA_M_pacer_rx_helps,
	HOMA_M_pacer_lock_busy,
	HOMA_M_pacer_tick_sends,
	HOMA_M_pacer_late_ns,
	HOMA_M_pacer_sleeps,
	HOMA_M_pacer_oversleep_ns,
	HOMA_M_unsched_halvings,
	HOMA_M_rx_data_bytes,
	HOMA_M_rx_rate_mbps,
	HOMA_M_rtt_samples,
	HOMA_M_rx_delay_samples,
	HOMA_M_rtt_congested,
	HOMA_M_rtt_uncongested,
	HOMA_M_grant_scale_cuts,
	HOMA_M_grant_scale_grows,
	HOMA_M_grant_scale_foreign,
	HOMA_M_grants_congested,
	HOMA_M_unsched_scale_cuts,
	HOMA_M_unsched_scale_grows,
	HOMA_M_unsched_cut_msgs,
	HOMA_M_resends_rtt_timed,
	HOMA_M_resends_delay_timed,
	HOMA_M_resends_tick,
	HOMA_M_resends_gap_timed,
	HOMA_M_resends_spurious,
	HOMA_M_resend_backoff_eased,
	HOMA_M_resend_in_host,
	HOMA_M_probe_in_host,
	HOMA_M_probe_outranked,
	HOMA_M_probe_outrank_spent,
	HOMA_M_drop_wrong_source,
	HOMA_M_drop_not_host,
	HOMA_M_drop_policy,
	HOMA_M_drop_rpc_limit,
	HOMA_M_rpc_stall_timeouts,
	HOMA_M_peers_evicted,
	HOMA_M_drop_rmem,
	HOMA_M_pool_peer_waits,
	HOMA_M_copy_early_batches,
	HOMA_M_copy_early_bytes,
	HOMA_M_resends_urgent,
	HOMA_M_probe_outrank_stalled,
	HOMA_M_poll_hits,
	HOMA_M_poll_misses,
	HOMA_NUM_METRICS
};

/**
 * struct homa_metrics - one CPU's share of a namespace's counters.
 */
struct homa_metrics {
	/** @v: the counters, indexed by enum homa_metric. */
	u64 v[HOMA_NUM_METRICS];
};

struct homa_net;

int homa_metrics_net_init(struct homa_net *hnet);
void homa_metrics_net_exit(struct homa_net *hnet);
u64 homa_metrics_sum(struct homa_net *hnet, enum homa_metric m);

#endif /* _HOMA_METRICS_H */
