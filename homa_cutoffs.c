// SPDX-License-Identifier: GPL-2.0+
/*
 * Unscheduled cutoffs, both ends. As a receiver, a host records the
 * length of every incoming message in its namespace's histogram; every
 * HOMA_CUTOFFS_TICKS timer ticks, while auto_cutoffs is on and messages
 * arrived, a work item recomputes net.homa.unsched_cutoffs from it
 * (homa_prio_cutoffs()) and bumps cutoff_version when they change. A DATA
 * packet whose cutoff_version is not the receiver's current one is
 * answered with a CUTOFFS packet (at most one per peer per
 * HOMA_CUTOFFS_RESEND_MS for the same version). As a sender, a host keeps
 * each peer's latest cutoffs and picks the level of a message's
 * unscheduled packets from them (its own cutoffs until the peer has sent
 * any).
 */

#include "homa_impl.h"

/* A CUTOFFS packet for the same version goes to a peer this often at most. */
#define HOMA_CUTOFFS_RESEND_MS 10

/**
 * homa_cutoffs_get() - Read a namespace's current unscheduled cutoffs.
 * @hnet: the namespace's Homa host.
 * @cutoffs: HOMA_MAX_PRIORITIES entries, filled.
 */
void homa_cutoffs_get(struct homa_net *hnet, u32 *cutoffs)
{
	u32 i;

	for (i = 0; i < HOMA_MAX_PRIORITIES; i++)
		cutoffs[i] = homa_cfg(hnet, unsched_cutoffs[i]);
}

/**
 * homa_cutoffs_max_sched() - The highest level of this host's scheduled
 * packets (the levels below its lowest unscheduled one).
 * @hnet: the namespace's Homa host.
 *
 * Return: the level.
 */
u8 homa_cutoffs_max_sched(struct homa_net *hnet)
{
	u32 cutoffs[HOMA_MAX_PRIORITIES];

	homa_cutoffs_get(hnet, cutoffs);
	return (u8)homa_prio_max_sched(cutoffs,
				       homa_cfg(hnet, num_priorities));
}

/* Install computed cutoffs if they differ; the config mutex is held. */
static void homa_cutoffs_set(struct homa_net *hnet, const u32 *cutoffs)
{
	struct homa_config *cfg = &hnet->config;
	bool changed = false;
	u32 i;

	lockdep_assert_held(&hnet->config_lock);
	for (i = 0; i < HOMA_MAX_PRIORITIES; i++) {
		if (cfg->unsched_cutoffs[i] == (int)cutoffs[i])
			continue;
		changed = true;
		/* Pairs with READ_ONCE() in homa_cutoffs_get(). */
		WRITE_ONCE(cfg->unsched_cutoffs[i], (int)cutoffs[i]);
	}
	if (changed)
		WRITE_ONCE(cfg->cutoff_version,
			   cfg->cutoff_version % 0xffff + 1);
}

/* Recompute the cutoffs from the histogram (process context). */
static void homa_cutoffs_work(struct work_struct *work)
{
	struct homa_net *hnet = container_of(work, struct homa_net,
					     cutoffs.work);
	struct homa_cutoffs *c = &hnet->cutoffs;
	u32 cutoffs[HOMA_MAX_PRIORITIES];
	int levels;

	mutex_lock(&hnet->config_lock);
	if (!hnet->config.auto_cutoffs)
		goto out;
	spin_lock_bh(&c->lock);
	levels = homa_prio_cutoffs(&c->hist, hnet->config.unsched_bytes,
				   hnet->config.num_priorities, cutoffs);
	c->samples = 0;
	spin_unlock_bh(&c->lock);
	if (levels < 0)
		goto out;
	homa_prio_protect_top(cutoffs, hnet->config.num_priorities);
	homa_metric_inc(hnet, HOMA_M_cutoffs_computed);
	homa_cutoffs_set(hnet, cutoffs);
out:
	mutex_unlock(&hnet->config_lock);
}

/**
 * homa_cutoffs_init() - Start a namespace's histogram, empty.
 * @hnet: the namespace's Homa host.
 */
void homa_cutoffs_init(struct homa_net *hnet)
{
	struct homa_cutoffs *c = &hnet->cutoffs;

	spin_lock_init(&c->lock);
	homa_prio_hist_init(&c->hist, HOMA_CUTOFFS_HALF_LIFE);
	c->samples = 0;
	INIT_WORK(&c->work, homa_cutoffs_work);
}

/**
 * homa_cutoffs_exit() - Wait for a computation in progress to finish.
 * @hnet: the namespace's Homa host; its timer is already stopped.
 */
void homa_cutoffs_exit(struct homa_net *hnet)
{
	cancel_work_sync(&hnet->cutoffs.work);
}

/**
 * homa_cutoffs_record() - Count an incoming message in the histogram.
 * @hnet: the namespace's Homa host.
 * @length: the message's length.
 */
void homa_cutoffs_record(struct homa_net *hnet, u32 length)
{
	struct homa_cutoffs *c = &hnet->cutoffs;

	spin_lock_bh(&c->lock);
	homa_prio_hist_add(&c->hist, length);
	c->samples++;
	spin_unlock_bh(&c->lock);
}

/**
 * homa_cutoffs_tick() - From the timer: start a computation of the
 * cutoffs every HOMA_CUTOFFS_TICKS ticks, if they are automatic and new
 * messages arrived.
 * @hnet: the namespace's Homa host.
 */
void homa_cutoffs_tick(struct homa_net *hnet)
{
	if (hnet->timer_count % HOMA_CUTOFFS_TICKS != 0)
		return;
	if (!homa_cfg(hnet, auto_cutoffs) ||
	    !READ_ONCE(hnet->cutoffs.samples))
		return;
	schedule_work(&hnet->cutoffs.work);
}

/* Should a CUTOFFS packet of @version go to @peer now? */
static bool homa_cutoffs_due(struct homa_peer *peer, u16 version)
{
	unsigned long now = jiffies;
	bool due;

	spin_lock_bh(&peer->lock);
	due = peer->cutoffs_sent_version != version ||
	      time_after_eq(now, peer->cutoffs_sent +
			    msecs_to_jiffies(HOMA_CUTOFFS_RESEND_MS));
	if (due) {
		peer->cutoffs_sent_version = version;
		peer->cutoffs_sent = now;
	}
	spin_unlock_bh(&peer->lock);
	return due;
}

/**
 * homa_cutoffs_resync() - A DATA packet arrived: if its sender used cutoffs
 * other than this host's current ones, send it the current ones.
 * @hsk: the socket the packet arrived on.
 * @peer: the sender.
 * @pkt: the parsed DATA packet.
 */
void homa_cutoffs_resync(struct homa_sock *hsk, struct homa_peer *peer,
			 const struct homa_pkt *pkt)
{
	u16 version = (u16)homa_cfg(hsk->hnet, cutoff_version);
	struct homa_pkt reply = { .type = CUTOFFS };

	if (pkt->data.cutoff_version == version ||
	    !homa_cutoffs_due(peer, version))
		return;
	reply.dport = pkt->sport;
	reply.sender_id = pkt->sender_id ^ 1;
	homa_cutoffs_get(hsk->hnet, reply.cutoffs.cutoffs);
	reply.cutoffs.version = version;
	homa_xmit_control(hsk, peer, &reply);
}

/**
 * homa_cutoffs_pkt() - A peer sent its cutoffs: use them for the next
 * messages to it.
 * @hnet: the namespace's Homa host.
 * @peer: the peer.
 * @pkt: the parsed CUTOFFS packet (any values are safe to store).
 */
void homa_cutoffs_pkt(struct homa_net *hnet, struct homa_peer *peer,
		      const struct homa_pkt *pkt)
{
	bool changed;
	u32 i;

	spin_lock_bh(&peer->lock);
	changed = peer->cutoff_version != pkt->cutoffs.version;
	/* Pairs with READ_ONCE() in homa_cutoffs_unsched_prio(). */
	for (i = 0; i < HOMA_MAX_PRIORITIES; i++)
		WRITE_ONCE(peer->unsched_cutoffs[i], pkt->cutoffs.cutoffs[i]);
	WRITE_ONCE(peer->cutoff_version, pkt->cutoffs.version);
	spin_unlock_bh(&peer->lock);
	if (changed)
		homa_metric_inc(hnet, HOMA_M_cutoffs_updated);
}

/**
 * homa_cutoffs_unsched_prio() - The level for the unscheduled packets of
 * a message to a peer.
 * @hnet: the sender's Homa host.
 * @peer: the receiver.
 * @length: the message's length.
 *
 * Return: the level, from the peer's cutoffs (this host's own until the
 * peer has sent any).
 */
u8 homa_cutoffs_unsched_prio(struct homa_net *hnet, struct homa_peer *peer,
			     u32 length)
{
	u32 cutoffs[HOMA_MAX_PRIORITIES];
	u32 i;

	if (READ_ONCE(peer->cutoff_version) == 0)
		homa_cutoffs_get(hnet, cutoffs);
	else
		for (i = 0; i < HOMA_MAX_PRIORITIES; i++)
			cutoffs[i] = READ_ONCE(peer->unsched_cutoffs[i]);
	return (u8)homa_prio_unsched(cutoffs,
				     homa_cfg(hnet, num_priorities),
				     length);
}
