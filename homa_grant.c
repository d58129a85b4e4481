// SPDX-License-Identifier: GPL-2.0+
/*
 * The receiver's grant scheduler, one per namespace. Incoming
 * messages longer than their unscheduled bytes join the namespace's grant
 * tree (whatever socket they arrive on), ordered by bytes remaining, once
 * they have their receive buffers and until their last byte arrives or
 * their RPC ends. A message waiting for buffers is not listed: it could
 * not be granted, and thousands of them (a forger's one-packet messages
 * held back by peer_pool_pct) would fill every pass's candidates and keep
 * the messages that can be granted out of them. Each event that can
 * change a decision (a DATA packet for a listed message, a message leaving
 * the tree, buffer space found for a waiting one) runs a pass: under the
 * grant lock the first HOMA_GRANT_MAX_CANDS messages become an array of
 * candidates for homa_srpt_grants() (what the others are owed is a running
 * sum, so a pass does not walk them), and each decision that grants new
 * bytes is committed to its message's granted offset; then, the lock
 * dropped, a GRANT carrying the offset and the scheduled priority goes out
 * for each. The socket and peer of each GRANT are held across the unlock,
 * since the RPC may end meanwhile.
 */

#include "homa_impl.h"

/**
 * struct homa_grant_send - a GRANT decided under the grant lock, to be
 * sent after it is dropped.
 */
struct homa_grant_send {
	/** @hsk: the RPC's socket (a reference is held). */
	struct homa_sock *hsk;

	/** @peer: the sender of the message (a reference is held). */
	struct homa_peer *peer;

	/** @id: the RPC's id on this host. */
	u64 id;

	/** @offset: the new granted offset. */
	u32 offset;

	/** @dport: the sender's port. */
	u16 dport;

	/** @priority: level for the granted bytes. */
	u8 priority;
};

/**
 * homa_grant_init() - Start a namespace's grant scheduler, with no
 * message to grant.
 * @g: the scheduler.
 */
void homa_grant_init(struct homa_grant *g)
{
	spin_lock_init(&g->lock);
	g->rpcs = RB_ROOT_CACHED;
	g->next_birth = 0;
	g->num_listed = 0;
	g->owed = 0;
	homa_srpt_fifo_init(&g->fifo);
}

/**
 * homa_grant_rpc_init() - Prepare a new RPC's grant entry (not listed).
 * @gr: the entry.
 */
void homa_grant_rpc_init(struct homa_grant_rpc *gr)
{
	RB_CLEAR_NODE(&gr->node);
}

static u32 homa_grant_remaining(const struct homa_grant_rpc *gr)
{
	return gr->length - gr->received;
}

/* The tree's order: fewer bytes remaining first, then the older. */
static bool homa_grant_less(struct rb_node *a, const struct rb_node *b)
{
	const struct homa_grant_rpc *x = rb_entry(a, struct homa_grant_rpc,
						  node);
	const struct homa_grant_rpc *y = rb_entry(b, struct homa_grant_rpc,
						  node);

	if (homa_grant_remaining(x) != homa_grant_remaining(y))
		return homa_grant_remaining(x) < homa_grant_remaining(y);
	return x->birth < y->birth;
}

static bool homa_grant_listed(const struct homa_grant_rpc *gr)
{
	return !RB_EMPTY_NODE(&gr->node);
}

/* Count again what @rpc's listed message is owed (granted, not received). */
static void homa_grant_recount(struct homa_grant *g, struct homa_rpc *rpc)
{
	struct homa_grant_rpc *gr = &rpc->grant;
	u32 granted = min(rpc->msgin.granted, gr->length);
	/* As homa_srpt_outstanding() counts: not the unscheduled bytes. */
	u32 floor = max(gr->received, rpc->msgin.unsched);

	lockdep_assert_held(&g->lock);
	g->owed -= gr->owed;
	gr->owed = granted > floor ? granted - floor : 0;
	g->owed += gr->owed;
}

/* Take @gr off the list if it is on it; returns true if it was. */
static bool homa_grant_drop(struct homa_grant *g, struct homa_grant_rpc *gr)
{
	lockdep_assert_held(&g->lock);
	if (!homa_grant_listed(gr))
		return false;
	rb_erase_cached(&gr->node, &g->rpcs);
	RB_CLEAR_NODE(&gr->node);
	WRITE_ONCE(g->num_listed, g->num_listed - 1);
	g->owed -= gr->owed;
	gr->owed = 0;
	return true;
}

/*
 * Bring @rpc's entry up to date: join the list, move in it, or leave it.
 * Returns true if the message is or was on the list (decisions may have
 * changed).
 */
static bool homa_grant_note(struct homa_grant *g, struct homa_rpc *rpc)
{
	struct homa_grant_rpc *gr = &rpc->grant;
	struct homa_msgin *in = &rpc->msgin;

	lockdep_assert_held(&rpc->hsk->lock);
	lockdep_assert_held(&g->lock);
	if (rpc->state != RPC_INCOMING || in->length < 0 ||
	    homa_gaps_complete(&in->gaps) || in->num_bpages == 0)
		return homa_grant_drop(g, gr);
	if (!homa_grant_listed(gr)) {
		/* Short enough to need no grant: never listed. */
		if (in->granted >= in->length)
			return false;
		gr->birth = g->next_birth++;
		gr->length = in->length;
		gr->owed = 0;
		WRITE_ONCE(g->num_listed, g->num_listed + 1);
	} else {
		/* Its key (bytes remaining) changes: out, then in again. */
		rb_erase_cached(&gr->node, &g->rpcs);
	}
	gr->received = in->length - in->gaps.bytes_remaining;
	rb_add_cached(&gr->node, &g->rpcs, homa_grant_less);
	homa_grant_recount(g, rpc);
	return true;
}

/* One candidate for the decision from a listed message. */
static void homa_grant_cand(struct homa_srpt_cand *c, struct homa_rpc *rpc)
{
	struct homa_grant_rpc *gr = &rpc->grant;

	c->id = rpc->id;
	c->peer = (uintptr_t)rpc->peer;
	c->birth = gr->birth;
	c->length = gr->length;
	c->received = gr->received;
	c->granted = rpc->msgin.granted;
	c->remaining = homa_grant_remaining(gr);
	c->unsched = rpc->msgin.unsched;
	c->flags = 0;
	c->scale = READ_ONCE(rpc->peer->grant_scale);
}

/*
 * Fill the candidate array from the list (the shortest messages, if there
 * are more than fit); the granted-but-unreceived bytes of the others go
 * to @other, from the running sum, so a pass costs the same however many
 * messages are listed. Returns the number of candidates.
 */
static u32 homa_grant_gather(struct homa_net *hnet, u64 *other)
{
	struct homa_grant *g = &hnet->grant;
	struct homa_grant_rpc *gr;
	struct homa_rpc *rpc;
	struct rb_node *node;
	u64 owed = 0;
	u32 n = 0;

	lockdep_assert_held(&g->lock);
	for (node = rb_first_cached(&g->rpcs);
	     node && n < HOMA_GRANT_MAX_CANDS; node = rb_next(node)) {
		gr = rb_entry(node, struct homa_grant_rpc, node);
		rpc = container_of(gr, struct homa_rpc, grant);
		homa_grant_cand(&g->cands[n], rpc);
		g->cand_rpcs[n++] = rpc;
		owed += gr->owed;
	}
	if (g->num_listed > n)
		homa_metric_add(hnet, HOMA_M_grant_overflow,
				g->num_listed - n);
	*other = g->owed - owed;
	return n;
}

/*
 * Commit decision @d if it grants new bytes: store the new offset and fill
 * @s (taking references) so the GRANT can be sent after the unlock.
 */
static bool homa_grant_commit(struct homa_net *hnet,
			      const struct homa_srpt_grant *d,
			      struct homa_grant_send *s)
{
	/* homa_peer.grant_scale goes to homa_srpt_cand.scale as it is. */
	BUILD_BUG_ON(HOMA_RTT_SCALE_FULL != HOMA_SRPT_SCALE_FULL);
	struct homa_rpc *rpc = hnet->grant.cand_rpcs[d->index];
	u32 old = hnet->grant.cands[d->index].granted;

	lockdep_assert_held(&hnet->grant.lock);
	if (d->offset <= old)
		return false;
	/* Pairs with READ_ONCE() in the timer and HOMAIOCINFO. */
	WRITE_ONCE(rpc->msgin.granted, d->offset);
	/* Time the first DATA its sender sends with this GRANT in hand. */
	homa_rpc_rx_probe_start(rpc, d->offset);
	WRITE_ONCE(rpc->msgin.sched_prio, d->priority);
	homa_grant_recount(&hnet->grant, rpc);
	homa_metric_inc(hnet, HOMA_M_grant_decisions);
	homa_metric_add(hnet, HOMA_M_grant_bytes, d->offset - old);
	if (d->fifo)
		homa_metric_inc(hnet, HOMA_M_grant_fifo_grants);
	/* A listed RPC is alive, so its socket and peer are too. */
	sock_hold(&rpc->hsk->inet.sk);
	refcount_inc(&rpc->peer->refs);
	s->hsk = rpc->hsk;
	s->peer = rpc->peer;
	s->id = rpc->id;
	s->dport = rpc->dport;
	s->offset = d->offset;
	s->priority = d->priority;
	return true;
}

/*
 * RTT-adaptive windows: with the dynamic window (window 0) and rtt_adaptive
 * on, each message may be granted the largest RTT-derived window among
 * the senders of the @n candidates (3 x rtt_min x link_mbps), and
 * max_incoming becomes that window times max_overcommit (never above the
 * configured one). Returns @p unchanged until some sender was measured.
 */
static const struct homa_srpt_params *
homa_grant_rtt_params(struct homa_net *hnet, const struct homa_srpt_params *p,
		      u32 n, struct homa_srpt_params *out)
{
	u32 i, window = 0;
	u64 limit;

	lockdep_assert_held(&hnet->grant.lock);
	if (p->window)
		return p;
	for (i = 0; i < n; i++) {
		struct homa_peer *peer = hnet->grant.cand_rpcs[i]->peer;

		window = max(window, homa_peer_sched_window(peer));
	}
	if (!window)
		return p;
	*out = *p;
	limit = homa_rtt_max_incoming(window, p->max_overcommit);
	out->max_incoming = min_t(u64, p->max_incoming, limit);
	out->window = min(window, out->max_incoming);
	return out;
}

/* Store @prio as @rpc's rank level, writing only a change. */
static void homa_grant_set_rank(struct homa_rpc *rpc, u8 prio)
{
	if (READ_ONCE(rpc->msgin.rank_prio) != prio)
		WRITE_ONCE(rpc->msgin.rank_prio, prio);
}

/*
 * Store the level each of the @n candidates ranks at after decision
 * @out of @num entries (homa_msgin.rank_prio): 0 for those outside the
 * SRPT set, whose level no GRANT of this pass says.
 */
static void homa_grant_ranks(struct homa_grant *g, u32 n,
			     const struct homa_srpt_grant *out, u32 num)
{
	u8 prio[HOMA_GRANT_MAX_CANDS];
	u32 i;

	lockdep_assert_held(&g->lock);
	memset(prio, 0, n);
	for (i = 0; i < num; i++)
		if (!out[i].fifo)
			prio[out[i].index] = out[i].priority;
	for (i = 0; i < n; i++)
		homa_grant_set_rank(g->cand_rpcs[i], prio[i]);
}

/* Decide and commit up to HOMA_GRANT_BATCH grants; returns how many. */
static u32 homa_grant_decide(struct homa_net *hnet,
			     const struct homa_srpt_params *p,
			     struct homa_grant_send *sends)
{
	struct homa_grant *g = &hnet->grant;
	struct homa_srpt_params rtt_params;
	u32 n, num, i, count = 0;
	u64 other;

	lockdep_assert_held(&g->lock);
	n = homa_grant_gather(hnet, &other);
	if (n == 0)
		return 0;
	p = homa_grant_rtt_params(hnet, p, n, &rtt_params);
	num = homa_srpt_grants(p, &g->fifo, g->cands, n, other, g->out);
	homa_grant_ranks(g, n, g->out, num);
	for (i = 0; i < num && count < HOMA_GRANT_BATCH; i++)
		if (homa_grant_commit(hnet, &g->out[i], &sends[count]))
			count++;
	return count;
}

/* Send the GRANTs decided and drop the references taken for them. */
static void homa_grant_xmit(struct homa_grant_send *sends, u32 n)
{
	struct homa_grant_send *s;
	u32 i;

	for (i = 0; i < n; i++) {
		struct homa_pkt pkt = { .type = GRANT };

		s = &sends[i];
		pkt.dport = s->dport;
		pkt.sender_id = s->id;
		pkt.grant.offset = s->offset;
		pkt.grant.priority = s->priority;
		if (READ_ONCE(s->peer->congested)) {
			pkt.grant.flags = HOMA_GRANT_CONGESTED;
			homa_metric_inc(s->hsk->hnet, HOMA_M_grants_congested);
		}
		homa_xmit_control(s->hsk, s->peer, &pkt);
		homa_peer_put(s->peer);
		sock_put(&s->hsk->inet.sk);
	}
}

/* The decision's configuration, from net.homa.* of the namespace. */
static void homa_grant_params(struct homa_net *hnet,
			      struct homa_srpt_params *p)
{
	struct homa_config *cfg = &hnet->config;

	p->max_overcommit = READ_ONCE(cfg->max_overcommit);
	p->window = READ_ONCE(cfg->window);
	p->max_incoming = READ_ONCE(cfg->max_incoming);
	p->max_sched_prio = homa_cutoffs_max_sched(hnet);
	p->fifo_fraction = READ_ONCE(cfg->grant_fifo_fraction);
	p->fifo_increment = HOMA_SRPT_DEFAULT_FIFO_INCREMENT;
	p->grant_increment = READ_ONCE(cfg->grant_increment);
}

/*
 * Note @rpc's change (if not NULL), then decide and send grants; a pass
 * that fills a batch is followed by another, a few at most.
 */
static void homa_grant_run(struct homa_net *hnet, struct homa_rpc *rpc)
{
	struct homa_grant_send sends[HOMA_GRANT_BATCH];
	struct homa_grant *g = &hnet->grant;
	struct homa_srpt_params p;
	u32 n = 0, passes = 0;

	homa_grant_params(hnet, &p);
	do {
		spin_lock(&g->lock);
		if (!rpc || homa_grant_note(g, rpc))
			n = homa_grant_decide(hnet, &p, sends);
		rpc = NULL;
		spin_unlock(&g->lock);
		homa_grant_xmit(sends, n);
	} while (n == HOMA_GRANT_BATCH && ++passes < 4);
}

/**
 * homa_grant_update() - Account for news about an incoming message (bytes
 * arrived, buffers found, completion) and send the grants that follow.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_grant_update(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	/*
	 * Waiting for buffers and not listed: nothing to decide. (Only
	 * callers holding the socket's lock list or unlist a message.)
	 */
	if (!rpc->msgin.num_bpages && !homa_grant_listed(&rpc->grant))
		return;
	homa_grant_run(rpc->hsk->hnet, rpc);
}

/**
 * homa_grant_unlist() - Take an RPC's incoming message off the grant list
 * without giving its share to the others yet (the caller does, once, with
 * homa_grant_reschedule() after taking many off).
 * @rpc: the RPC; the caller holds its socket's lock.
 *
 * Return: true if the message was on the list.
 */
bool homa_grant_unlist(struct homa_rpc *rpc)
{
	struct homa_grant *g = &rpc->hsk->hnet->grant;
	bool listed;

	lockdep_assert_held(&rpc->hsk->lock);
	spin_lock(&g->lock);
	listed = homa_grant_drop(g, &rpc->grant);
	spin_unlock(&g->lock);
	return listed;
}

/**
 * homa_grant_reschedule() - Give the shares of messages taken off the
 * grant list with homa_grant_unlist() to the others.
 * @hnet: the namespace's Homa host.
 */
void homa_grant_reschedule(struct homa_net *hnet)
{
	homa_grant_run(hnet, NULL);
}

/**
 * homa_grant_remove() - Take an RPC's incoming message off the grant list
 * (it ends or starts over), and give its share to the others.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_grant_remove(struct homa_rpc *rpc)
{
	if (homa_grant_unlist(rpc))
		homa_grant_run(rpc->hsk->hnet, NULL);
}
