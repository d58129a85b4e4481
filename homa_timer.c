// SPDX-License-Identifier: GPL-2.0+
/*
 * The tick of a Homa host: every millisecond, each RPC that waits for its
 * peer counts a silent tick; past resend_ticks the side that receives asks
 * for what is missing (RESEND), past timeout_ticks the RPC fails, and a
 * server whose response is out asks the client to ack it (NEED_ACK).
 */

#include "homa_impl.h"

/* A receiving RPC has waited long enough: ask for the first gap. */
static void homa_timer_resend(struct homa_rpc *rpc)
{
	struct homa_msgin *in = &rpc->msgin;
	struct homa_pkt pkt = { .type = RESEND };
	struct homa_gap gap;
	u32 granted;

	if (in->length < 0) {
		/* Nothing yet: ask for the start; the server says BUSY. */
		gap.start = 0;
		gap.end = READ_ONCE(rpc->hsk->hnet->config.unsched_bytes);
	} else {
		if (in->num_bpages == 0)
			return;
		granted = in->granted;
		if (homa_gaps_first_missing(&in->gaps, granted, &gap))
			return;
	}
	pkt.resend.offset = gap.start;
	pkt.resend.length = gap.end - gap.start;
	pkt.resend.priority = 0;
	homa_rpc_xmit_control(rpc, &pkt);
	homa_metric_inc(rpc->hsk->hnet, HOMA_M_resends_sent);
}

/* Does the RPC wait for its peer (so silence counts against it)? */
static bool homa_timer_waiting(struct homa_rpc *rpc, bool *receiving)
{
	*receiving = false;
	if (rpc->ready || rpc->copying)
		return false;
	if (rpc->id & 1) {
		if (rpc->state == RPC_INCOMING) {
			*receiving = true;
			return true;
		}
		return rpc->state == RPC_OUTGOING &&
		       rpc->msgout.next_xmit_offset >= rpc->msgout.length;
	}
	/*
	 * A client always waits for its server: for grants while it sends
	 * (sendmsg sends all it may at once), then for the response.
	 */
	*receiving = true;
	return true;
}

static void homa_timer_rpc(struct homa_rpc *rpc, const struct homa_config *c,
			   int ms)
{
	struct homa_pkt need_ack = { .type = NEED_ACK };
	bool receiving;

	if (!homa_timer_waiting(rpc, &receiving))
		return;
	rpc->silent_ticks += ms;
	rpc->resend_ticks += ms;
	if (rpc->silent_ticks >= READ_ONCE(c->timeout_ticks)) {
		homa_metric_inc(rpc->hsk->hnet, HOMA_M_rpc_timeouts);
		if (rpc->id & 1)
			homa_rpc_end(rpc);
		else
			homa_rpc_fail(rpc, -ETIMEDOUT);
		return;
	}
	if (!receiving) {
		if (rpc->resend_ticks >= READ_ONCE(c->request_ack_ticks)) {
			rpc->resend_ticks = 0;
			homa_rpc_xmit_control(rpc, &need_ack);
		}
		return;
	}
	if (rpc->silent_ticks < READ_ONCE(c->resend_ticks))
		return;
	/* Packets reset resend_ticks high, so the first RESEND is at once. */
	if (rpc->resend_ticks >= READ_ONCE(c->resend_interval)) {
		rpc->resend_ticks = 0;
		homa_timer_resend(rpc);
	}
}

static void homa_timer_sock(struct homa_sock *hsk, int ms)
{
	struct homa_rpc *rpc, *tmp;

	spin_lock_bh(&hsk->lock);
	if (!hsk->shutdown)
		list_for_each_entry_safe(rpc, tmp, &hsk->active_rpcs,
					 active_links)
			homa_timer_rpc(rpc, &hsk->hnet->config, ms);
	spin_unlock_bh(&hsk->lock);
}

static void homa_timer_fire(struct timer_list *t)
{
	struct homa_net *hnet = from_timer(hnet, t, timer);
	unsigned long now = jiffies;
	struct homa_sock *hsk;
	int bkt, ms;

	/* A tick is a millisecond; the timer may fire less often. */
	ms = clamp_t(int, jiffies_to_msecs(now - hnet->timer_jiffies), 1, 1000);
	hnet->timer_jiffies = now;
	rcu_read_lock();
	hash_for_each_rcu(hnet->socktab.buckets, bkt, hsk, socktab_node)
		homa_timer_sock(hsk, ms);
	rcu_read_unlock();
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
	del_timer_sync(&hnet->timer);
}
