// SPDX-License-Identifier: GPL-2.0+
/*
 * /proc/net/homa_rpcs: every live RPC of the namespace's sockets, one line
 * each, with the state of both its messages as the module sees it now
 * (what is sent, granted, waiting for the pacer or for a retransmission;
 * what arrived, was granted, whether the grant scheduler lists it). It is
 * for finding why an RPC does not progress; homa.7 describes the columns.
 * A socket's lines are read under its lock, so they agree with each other;
 * the pacer's and the grant scheduler's marks are read without their
 * locks and may be a moment old.
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "homa_impl.h"

/* Most RPCs shown per socket (a count of the rest follows them). */
#define HOMA_RPC_SHOW_MAX 4096

static const char *homa_rpc_state_name(enum homa_rpc_state state)
{
	switch (state) {
	case RPC_OUTGOING:
		return "out";
	case RPC_INCOMING:
		return "in";
	case RPC_IN_SERVICE:
		return "svc";
	default:
		return "dead";
	}
}

/* Milliseconds from the earlier time @then (ns, 0: never) to @now. */
static long long homa_rpc_show_ms(u64 then, u64 now)
{
	if (!then)
		return -1;
	return then < now ? div_u64(now - then, NSEC_PER_MSEC) : 0;
}

/*
 * One line of /proc/net/homa_rpcs; the socket's lock is held. The
 * figures HOMAIOCINFO also gives come from homa_rpc_info_fill(), so that
 * the two cannot disagree; the rest are marks only the module sees.
 */
static void homa_rpc_show_one(struct seq_file *seq, struct homa_rpc *rpc,
			      u64 now)
{
	const struct homa_msgout *out = &rpc->msgout;
	const struct homa_msgin *in = &rpc->msgin;
	const struct in6_addr *addr = &rpc->peer->addr;
	bool tx = out->length >= 0;
	struct homa_rpc_info ri;

	homa_rpc_info_fill(rpc, &ri);
	if (ipv6_addr_v4mapped(addr))
		seq_printf(seq, "%5u %20llu %-39pI4 %5u", rpc->hsk->port,
			   ri.id, &addr->s6_addr32[3], rpc->dport);
	else
		seq_printf(seq, "%5u %20llu %-39pI6c %5u", rpc->hsk->port,
			   ri.id, addr, rpc->dport);
	seq_printf(seq, " %-4s %6d %6d %3d %3d",
		   homa_rpc_state_name(rpc->state), rpc->probe.silent_ms,
		   rpc->probe.stall_ms, rpc->probe.probes,
		   rpc->probe.busy_backoff);
	seq_printf(seq, " %9d %9u %9u %2u %6lld %6lld %d%d%d %9u",
		   ri.tx_length, ri.tx_sent, ri.tx_granted, ri.tx_prio,
		   tx ? homa_rpc_show_ms(out->birth, now) : -1,
		   tx && out->last_xmit ?
		   (long long)jiffies_to_msecs(jiffies - out->last_xmit) : -1,
		   !list_empty_careful(&rpc->pacer_links),
		   out->resend_next || out->resend_q.n,
		   tx && homa_msgout_in_host(rpc, false),
		   READ_ONCE(rpc->pacer_remaining));
	seq_printf(seq, " %9d %9u %9u %d %u %u %3u %d%d\n",
		   ri.rx_length, ri.rx_remaining, ri.rx_granted,
		   !RB_EMPTY_NODE(&rpc->grant.node),
		   READ_ONCE(in->rank_prio), READ_ONCE(in->sched_prio),
		   in->num_bpages, rpc->ready, rpc->copying);
}

/* The lines of one socket's RPCs. */
static void homa_rpc_show_sock(struct seq_file *seq, struct homa_sock *hsk)
{
	u64 now = homa_clock_ns();
	struct homa_rpc *rpc;
	int shown = 0;

	spin_lock_bh(&hsk->lock);
	list_for_each_entry(rpc, &hsk->active_rpcs, active_links) {
		if (shown++ < HOMA_RPC_SHOW_MAX)
			homa_rpc_show_one(seq, rpc, now);
	}
	spin_unlock_bh(&hsk->lock);
	if (shown > HOMA_RPC_SHOW_MAX)
		seq_printf(seq, "%5u: %d more RPCs not shown\n", hsk->port,
			   shown - HOMA_RPC_SHOW_MAX);
}

static int homa_rpcs_show(struct seq_file *seq, void *v)
{
	struct homa_net *hnet = homa_net(seq_file_single_net(seq));
	struct homa_pacer_view pv;
	struct homa_sock *hsk;

	homa_pacer_view(hnet, &pv);
	seq_printf(seq,
		   "pacer: queue_ns %llu lead_ns %llu fifo_credit %lld unsched_window %u listed %u srpt_first %llu (remaining %u) oldest %llu thread_idle %d\n",
		   pv.queue_ns, pv.lead_ns, pv.fifo_credit, pv.unsched_window,
		   pv.listed, pv.srpt_id, pv.srpt_remaining, pv.fifo_id,
		   pv.thread_idle);
	seq_printf(seq,
		   "%5s %20s %-39s %5s %-4s %6s %6s %3s %3s %9s %9s %9s %2s %6s %6s %3s %9s %9s %9s %9s %1s %1s %1s %3s %2s\n",
		   "port", "id", "peer", "dport", "st", "silent", "stall",
		   "prb", "bsy", "tx_len", "tx_sent", "tx_grant", "tp",
		   "tx_age", "tx_idl", "PRH", "pace_left", "rx_len", "rx_left",
		   "rx_grant", "L", "r", "s", "bpg", "RC");
	rcu_read_lock();
	list_for_each_entry_rcu(hsk, &hnet->socktab.all, socktab_links)
		homa_rpc_show_sock(seq, hsk);
	rcu_read_unlock();
	return 0;
}

/**
 * homa_rpc_show_net_init() - Create a namespace's /proc/net/homa_rpcs.
 * @hnet: the new namespace's Homa host.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_rpc_show_net_init(struct homa_net *hnet)
{
	if (!proc_create_net_single("homa_rpcs", 0444, hnet->net->proc_net,
				    homa_rpcs_show, NULL))
		return -ENOMEM;
	return 0;
}

/**
 * homa_rpc_show_net_exit() - Remove a namespace's /proc/net/homa_rpcs.
 * @hnet: the Homa host of the namespace going away.
 */
void homa_rpc_show_net_exit(struct homa_net *hnet)
{
	remove_proc_entry("homa_rpcs", hnet->net->proc_net);
}
