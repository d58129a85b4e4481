// SPDX-License-Identifier: GPL-2.0+
/*
 * Per-namespace counters and their file,
 * /proc/net/homa_metrics: one line per metric with its name, value and
 * description. The values are sums over CPUs, read without locks, so two
 * counters read together may be a few events apart.
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "homa_impl.h"

/* Name and description of each metric, in the order they are printed. */
#define HOMA_METRIC(n, d) { .id = HOMA_M_##n, .name = #n, .desc = d }
static const struct {
	enum homa_metric id;
	const char *name;
	const char *desc;
} homa_metric_info[] = {
	HOMA_METRIC(pkts_rx_data, "DATA packets received"),
	HOMA_METRIC(pkts_rx_grant, "GRANT packets received"),
	HOMA_METRIC(pkts_rx_resend, "RESEND packets received"),
	HOMA_METRIC(pkts_rx_rpc_unknown, "RPC_UNKNOWN packets received"),
	HOMA_METRIC(pkts_rx_busy, "BUSY packets received"),
	HOMA_METRIC(pkts_rx_cutoffs, "CUTOFFS packets received"),
	HOMA_METRIC(pkts_rx_need_ack, "NEED_ACK packets received"),
	HOMA_METRIC(pkts_rx_ack, "ACK packets received"),
	HOMA_METRIC(drop_short, "packets dropped: shorter than their header"),
	HOMA_METRIC(drop_malformed,
		    "packets dropped: a header field is invalid"),
	HOMA_METRIC(drop_unknown_type, "packets dropped: unknown packet type"),
	HOMA_METRIC(drop_no_socket, "packets dropped: no socket on the port"),
	HOMA_METRIC(icmp_errors, "ICMP errors received for Homa packets"),
	HOMA_METRIC(sockets_opened, "sockets created"),
	HOMA_METRIC(sockets_live, "sockets open now (gauge)"),
	HOMA_METRIC(bind_errors, "bind calls that failed"),
	HOMA_METRIC(sysctl_rejects, "sysctl writes rejected as invalid"),
	HOMA_METRIC(pkts_tx_data, "DATA packets sent"),
	HOMA_METRIC(pkts_tx_grant, "GRANT packets sent"),
	HOMA_METRIC(pkts_tx_resend, "RESEND packets sent"),
	HOMA_METRIC(pkts_tx_rpc_unknown, "RPC_UNKNOWN packets sent"),
	HOMA_METRIC(pkts_tx_busy, "BUSY packets sent"),
	HOMA_METRIC(pkts_tx_need_ack, "NEED_ACK packets sent"),
	HOMA_METRIC(pkts_tx_ack, "ACK packets sent"),
	HOMA_METRIC(drop_no_rpc,
		    "packets dropped: no RPC they could belong to"),
	HOMA_METRIC(drop_stale_data, "DATA dropped: the RPC is past receiving"),
	HOMA_METRIC(drop_duplicate,
		    "DATA dropped: every byte already received"),
	HOMA_METRIC(drop_wrong_family,
		    "packets dropped: IPv6 sender, IPv4 socket"),
	HOMA_METRIC(drop_no_peer,
		    "packets dropped: no memory or route for the sender"),
	HOMA_METRIC(tx_no_route, "packets not sent: no route to the peer"),
	HOMA_METRIC(tx_no_memory, "packets not sent: out of memory"),
	HOMA_METRIC(tx_stack_drops,
		    "packets the IP layer or a qdisc refused after counting"),
	HOMA_METRIC(data_resent, "DATA packets sent again after a RESEND"),
	HOMA_METRIC(data_splits,
		    "stored DATA packets cut at the granted or asked bytes"),
	HOMA_METRIC(gso_segmented,
		    "large DATA packets cut into segments in software"),
	HOMA_METRIC(tx_pages_kept,
		    "payload pages of freed DATA packets kept for reuse"),
	HOMA_METRIC(tx_pages_reused,
		    "payload pages sendmsg reused instead of allocating"),
	HOMA_METRIC(tx_page_cache_bytes,
		    "bytes of payload pages kept for reuse now (gauge)"),
	HOMA_METRIC(tx_pages_released,
		    "cached payload pages given back to the allocator"),
	HOMA_METRIC(resends_sent, "RESEND requests sent for missing data"),
	HOMA_METRIC(rpc_restarts, "client RPCs restarted after RPC_UNKNOWN"),
	HOMA_METRIC(rpc_timeouts,
		    "RPCs that failed or ended after timeout_ticks"),
	HOMA_METRIC(rpcs_acked, "server RPCs freed by a client ack"),
	HOMA_METRIC(rpcs_acked_closed,
		    "server RPCs freed: the client's port is closed"),
	HOMA_METRIC(rpcs_ended_closed,
		    "server RPCs ended: the client's port closed mid-request"),
	HOMA_METRIC(pool_stalls,
		    "messages that waited for receive buffer space"),
	HOMA_METRIC(rpcs_live, "RPCs alive now (gauge)"),
	HOMA_METRIC(skbs_live,
		    "packets held now: messages in and out, dead (gauge)"),
	HOMA_METRIC(peers_live, "peers in the peer table now (gauge)"),
	HOMA_METRIC(peers_freed, "idle peers freed by garbage collection"),
	HOMA_METRIC(rpc_icmp_failures, "client RPCs failed by an ICMP error"),
	HOMA_METRIC(requests_deduped,
		    "request packets dropped: already executed"),
	HOMA_METRIC(dedup_live, "executed requests remembered now (gauge)"),
	HOMA_METRIC(dedup_evicted,
		    "executed requests forgotten early (table full)"),
	HOMA_METRIC(drop_gaps_full,
		    "DATA dropped: its message has too many holes"),
	HOMA_METRIC(incast_marked, "requests sent marked for incast control"),
	HOMA_METRIC(incast_responses,
		    "responses sent with fewer unscheduled bytes (incast)"),
	HOMA_METRIC(data_tx_prio0, "DATA packets sent at priority level 0"),
	HOMA_METRIC(data_tx_prio1, "DATA packets sent at priority level 1"),
	HOMA_METRIC(data_tx_prio2, "DATA packets sent at priority level 2"),
	HOMA_METRIC(data_tx_prio3, "DATA packets sent at priority level 3"),
	HOMA_METRIC(data_tx_prio4, "DATA packets sent at priority level 4"),
	HOMA_METRIC(data_tx_prio5, "DATA packets sent at priority level 5"),
	HOMA_METRIC(data_tx_prio6, "DATA packets sent at priority level 6"),
	HOMA_METRIC(data_tx_prio7, "DATA packets sent at priority level 7"),
	HOMA_METRIC(grant_decisions, "grants that gave a message new bytes"),
	HOMA_METRIC(grant_bytes, "bytes granted beyond earlier grants"),
	HOMA_METRIC(grant_fifo_grants,
		    "grants from the FIFO share to the oldest message"),
	HOMA_METRIC(grant_overflow,
		    "messages left out of a grant decision (too many)"),
	HOMA_METRIC(cutoffs_computed,
		    "computations of the unscheduled cutoffs"),
	HOMA_METRIC(cutoffs_updated,
		    "CUTOFFS packets that changed a peer's cutoffs"),
	HOMA_METRIC(pkts_tx_cutoffs, "CUTOFFS packets sent"),
	HOMA_METRIC(pacer_throttled, "messages queued for the pacer"),
	HOMA_METRIC(pacer_bytes, "message bytes the pacer thread sent"),
	HOMA_METRIC(pacer_wakeups, "times the idle pacer thread woke for work"),
	HOMA_METRIC(nic_queue_max_ns,
		    "longest NIC queue paced DATA made (ns; a maximum)"),
	HOMA_METRIC(tx_held_max_bytes,
		    "most DATA bytes the host held, as the pacer saw it"),
	HOMA_METRIC(pacer_held_waits,
		    "times the pacer waited for the host to hold less DATA"),
	HOMA_METRIC(pacer_held_ns,
		    "ns the pacer waited for the host to hold less DATA"),
	HOMA_METRIC(pacer_drain_samples,
		    "samples of the rate the host's DATA drains at"),
	HOMA_METRIC(pacer_drain_kbps,
		    "the drain rate last learned (Kbit/s; 0: none yet)"),
	HOMA_METRIC(pacer_rx_helps,
		    "times a received packet stepped the waiting pacer"),
	HOMA_METRIC(pacer_lock_busy,
		    "pacer steps that found the message's socket locked"),
	HOMA_METRIC(pacer_tick_sends,
		    "packets pacer steps outside the thread sent"),
	HOMA_METRIC(pacer_late_ns,
		    "ns the NIC queue sat empty while the pacer slept"),
	HOMA_METRIC(pacer_sleeps, "timed sleeps of the pacer thread"),
	HOMA_METRIC(pacer_oversleep_ns,
		    "ns by which the pacer's timed sleeps ended late"),
	HOMA_METRIC(unsched_halvings,
		    "times the unscheduled window was halved"),
	HOMA_METRIC(rx_data_bytes, "bytes of DATA received (IP packets)"),
	HOMA_METRIC(rx_rate_mbps,
		    "rate DATA arrived at lately (Mbit/s; a value)"),
	HOMA_METRIC(rtt_samples, "RTT samples taken from peers"),
	HOMA_METRIC(rx_delay_samples,
		    "data-delay samples taken (GRANT to granted byte)"),
	HOMA_METRIC(rtt_congested, "times a peer turned congested"),
	HOMA_METRIC(rtt_uncongested, "times a peer's congestion ended"),
	HOMA_METRIC(grant_scale_cuts,
		    "times a congested peer's grant window was halved"),
	HOMA_METRIC(grant_scale_grows,
		    "times a peer's grant window grew back a step"),
	HOMA_METRIC(grant_scale_foreign,
		    "grew a congested peer's window: queue not ours"),
	HOMA_METRIC(grants_congested,
		    "GRANTs sent saying the data arrives congested"),
	HOMA_METRIC(unsched_scale_cuts,
		    "times a congested peer's unscheduled window was halved"),
	HOMA_METRIC(unsched_scale_grows,
		    "times a peer's unscheduled window grew back a step"),
	HOMA_METRIC(unsched_cut_msgs,
		    "messages sent with their unscheduled bytes cut"),
	HOMA_METRIC(resends_rtt_timed,
		    "RESENDs timed by the GRANT-timed round trip to the peer"),
	HOMA_METRIC(resends_delay_timed,
		    "RESENDs timed by the delay of the peer's data"),
	HOMA_METRIC(resends_tick, "RESENDs timed by resend_ticks"),
	HOMA_METRIC(resends_gap_timed,
		    "RESENDs for a hole, timed by resend_ticks"),
	HOMA_METRIC(resends_spurious,
		    "RESEND rounds answered only with duplicates"),
	HOMA_METRIC(resend_backoff_eased,
		    "RESEND backoff steps back on a data-delay sample"),
	HOMA_METRIC(resend_in_host,
		    "RESENDs answered BUSY: copies still in this host"),
	HOMA_METRIC(probe_in_host,
		    "RPC ticks without silence: copies still in this host"),
	HOMA_METRIC(probe_outranked,
		    "RPC ticks without silence: data at higher levels came"),
	HOMA_METRIC(probe_outrank_spent,
		    "outranked silences that ran past their bound"),
	HOMA_METRIC(drop_wrong_source,
		    "client RPC packets dropped: not from its server"),
	HOMA_METRIC(drop_not_host,
		    "packets dropped: broadcast, multicast or not ours"),
	HOMA_METRIC(drop_policy, "packets dropped by the IPsec policy"),
	HOMA_METRIC(drop_rpc_limit,
		    "requests dropped: too many undelivered requests held"),
	HOMA_METRIC(rpc_stall_timeouts,
		    "RPCs ended after stall_ms without progress"),
	HOMA_METRIC(peers_evicted,
		    "unused peers freed to make room (max_peers)"),
	HOMA_METRIC(drop_rmem, "DATA dropped: socket holds rmem_max bytes"),
	HOMA_METRIC(pool_peer_waits,
		    "messages that waited: their peer held peer_pool_pct"),
	HOMA_METRIC(copy_early_batches,
		    "batches of incomplete messages copied by recvmsg"),
	HOMA_METRIC(copy_early_bytes,
		    "bytes copied in those batches before the message ended"),
	HOMA_METRIC(resends_urgent,
		    "RESENDs for one segment at the top level: peer silent"),
	HOMA_METRIC(probe_outrank_stalled,
		    "outranked silences ended at half of stall_ms"),
	HOMA_METRIC(poll_hits,
		    "recvmsg spins (poll_usecs) ended by a change: RPC ready"),
	HOMA_METRIC(poll_misses,
		    "recvmsg spins ended with no change, then slept"),
};

#undef HOMA_METRIC

static_assert(ARRAY_SIZE(homa_metric_info) == HOMA_NUM_METRICS);

/**
 * homa_metrics_sum() - Current value of a counter, summed over CPUs.
 * @hnet: the namespace's Homa host.
 * @m: which counter.
 *
 * Return: the sum.
 */
u64 homa_metrics_sum(struct homa_net *hnet, enum homa_metric m)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(hnet->metrics, cpu)->v[m];
	return sum;
}

static int homa_metrics_show(struct seq_file *seq, void *v)
{
	struct homa_net *hnet = homa_net(seq_file_single_net(seq));
	size_t i;

	for (i = 0; i < ARRAY_SIZE(homa_metric_info); i++)
		seq_printf(seq, "%-24s %20llu  %s\n", homa_metric_info[i].name,
			   homa_metrics_sum(hnet, homa_metric_info[i].id),
			   homa_metric_info[i].desc);
	return 0;
}

/**
 * homa_metrics_net_init() - Create a namespace's counters and its
 * /proc/net/homa_metrics.
 * @hnet: the new namespace's Homa host.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_metrics_net_init(struct homa_net *hnet)
{
	hnet->metrics = alloc_percpu(struct homa_metrics);
	if (!hnet->metrics)
		return -ENOMEM;
	if (!proc_create_net_single("homa_metrics", 0444, hnet->net->proc_net,
				    homa_metrics_show, NULL)) {
		free_percpu(hnet->metrics);
		hnet->metrics = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * homa_metrics_net_exit() - Remove a namespace's metrics file and counters.
 * @hnet: the Homa host of the namespace going away.
 */
void homa_metrics_net_exit(struct homa_net *hnet)
{
	remove_proc_entry("homa_metrics", hnet->net->proc_net);
	free_percpu(hnet->metrics);
	hnet->metrics = NULL;
}
