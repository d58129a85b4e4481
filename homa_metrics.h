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
 * @HOMA_M_drop_unimplemented: packets dropped: type not handled yet.
 * @HOMA_M_icmp_errors: ICMP errors received for Homa packets.
 * @HOMA_M_sockets_opened: sockets created.
 * @HOMA_M_sockets_live: sockets open now (gauge).
 * @HOMA_M_bind_errors: bind calls that failed.
 * @HOMA_M_sysctl_rejects: sysctl writes rejected as invalid.
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
	HOMA_M_drop_unimplemented,
	HOMA_M_icmp_errors,
	HOMA_M_sockets_opened,
	HOMA_M_sockets_live,
	HOMA_M_bind_errors,
	HOMA_M_sysctl_rejects,
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
