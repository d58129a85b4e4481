// SPDX-License-Identifier: GPL-2.0+
/*
 * RPC lifecycle: creating client and server RPCs, finding them when
 * packets or user calls name them, completing them (ready for recvmsg),
 * and ending them. Everything here runs under the socket's lock.
 */

#include "homa_impl.h"

static void homa_msgin_init(struct homa_msgin *msgin)
{
	msgin->length = -1;
	skb_queue_head_init(&msgin->packets);
	RB_CLEAR_NODE(&msgin->wait_node);
}

static struct homa_rpc *homa_rpc_alloc(struct homa_sock *hsk,
				       struct homa_peer *peer, u16 dport,
				       u64 id)
{
	struct homa_rpc *rpc = kzalloc(sizeof(*rpc), GFP_ATOMIC);

	if (!rpc)
		return NULL;
	rpc->hsk = hsk;
	rpc->id = id;
	rpc->peer = peer;
	refcount_inc(&peer->refs);
	rpc->dport = dport;
	rpc->msgout.length = -1;
	skb_queue_head_init(&rpc->msgout.packets);
	homa_msgin_init(&rpc->msgin);
	INIT_LIST_HEAD(&rpc->ready_links);
	INIT_LIST_HEAD(&rpc->copy_links);
	homa_grant_rpc_init(&rpc->grant);
	homa_probe_init(&rpc->probe);
	INIT_LIST_HEAD(&rpc->pacer_links);
	INIT_LIST_HEAD(&rpc->pacer_fifo_links);
	list_add_tail(&rpc->active_links, &hsk->active_rpcs);
	rpc->timer_ms = READ_ONCE(hsk->hnet->timer_ms);
	hsk->num_rpcs++;
	homa_metric_inc(hsk->hnet, HOMA_M_rpcs_live);
	return rpc;
}

/**
 * homa_rpc_alloc_client() - Create a client RPC for a new request.
 * @hsk: the socket; the caller holds its lock.
 * @peer: the server's host.
 * @dport: the server's port.
 *
 * Return: the RPC (state RPC_OUTGOING), or NULL if out of memory.
 */
struct homa_rpc *homa_rpc_alloc_client(struct homa_sock *hsk,
				       struct homa_peer *peer, u16 dport)
{
	u64 id = (u64)atomic64_add_return(2, &hsk->hnet->next_id);
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	rpc = homa_rpc_alloc(hsk, peer, dport, id);
	if (rpc) {
		rpc->state = RPC_OUTGOING;
		hash_add(hsk->client_rpcs, &rpc->hash_node, id);
		hsk->num_client_rpcs++;
	}
	return rpc;
}

/**
 * homa_rpc_alloc_server() - Create a server RPC for an arriving request.
 * @hsk: the server socket; the caller holds its lock.
 * @peer: the client's host.
 * @sport: the client's port.
 * @id: the RPC's id on this side (the client's id with the low bit set).
 *
 * Return: the RPC (state RPC_INCOMING), or NULL if out of memory.
 */
struct homa_rpc *homa_rpc_alloc_server(struct homa_sock *hsk,
				       struct homa_peer *peer, u16 sport,
				       u64 id)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	rpc = homa_rpc_alloc(hsk, peer, sport, id);
	if (rpc) {
		rpc->state = RPC_INCOMING;
		hash_add(hsk->server_rpcs, &rpc->hash_node,
			 homa_server_rpc_key(hsk, sport, id));
		rpc->limited = true;
		hsk->incoming_rpcs++;
		atomic_inc(&peer->incoming_rpcs);
	}
	return rpc;
}

/**
 * homa_rpc_server_limited() - Would one more server RPC from @peer exceed
 * the limits on requests not yet handed to recvmsg (peer_rpc_limit,
 * sock_rpc_limit)? Like a full SYN backlog, such requests are dropped:
 * a client (or a forger) cannot pin more state than this.
 * @hsk: the server socket; the caller holds its lock.
 * @peer: the client's host.
 *
 * Return: true if the request must be dropped.
 */
bool homa_rpc_server_limited(struct homa_sock *hsk, struct homa_peer *peer)
{
	int peer_limit = homa_cfg(hsk->hnet, peer_rpc_limit);
	int sock_limit = homa_cfg(hsk->hnet, sock_rpc_limit);

	lockdep_assert_held(&hsk->lock);
	return (sock_limit && hsk->incoming_rpcs >= sock_limit) ||
	       (peer_limit && atomic_read(&peer->incoming_rpcs) >= peer_limit);
}

/**
 * homa_rpc_delivered() - A server RPC's request has been handed to recvmsg
 * (or the RPC ended): it no longer counts against the limits.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_rpc_delivered(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (!rpc->limited)
		return;
	rpc->limited = false;
	rpc->hsk->incoming_rpcs--;
	atomic_dec(&rpc->peer->incoming_rpcs);
}

/**
 * homa_rpc_find_client() - Find a client RPC by id.
 * @hsk: the socket; the caller holds its lock.
 * @id: the id (even).
 *
 * Return: the RPC, or NULL.
 */
struct homa_rpc *homa_rpc_find_client(struct homa_sock *hsk, u64 id)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	hash_for_each_possible(hsk->client_rpcs, rpc, hash_node, id)
		if (rpc->id == id)
			return rpc;
	return NULL;
}

/**
 * homa_rpc_find_server() - Find a server RPC by client and id.
 * @hsk: the socket; the caller holds its lock.
 * @peer: the client's host.
 * @sport: the client's port.
 * @id: the id on this side (odd).
 *
 * Return: the RPC, or NULL.
 */
struct homa_rpc *homa_rpc_find_server(struct homa_sock *hsk,
				      struct homa_peer *peer, u16 sport,
				      u64 id)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	hash_for_each_possible(hsk->server_rpcs, rpc, hash_node,
			       homa_server_rpc_key(hsk, sport, id))
		if (rpc->id == id && rpc->peer == peer && rpc->dport == sport)
			return rpc;
	return NULL;
}

/**
 * homa_rpc_info_fill() - Describe one RPC as HOMAIOCINFO returns it (and
 * /proc/net/homa_rpcs shows it, with more).
 * @rpc: the RPC; the caller holds its socket's lock.
 * @ri: filled in; every byte is written (no kernel data leaks through
 *      padding).
 */
void homa_rpc_info_fill(const struct homa_rpc *rpc, struct homa_rpc_info *ri)
{
	const struct homa_msgin *in = &rpc->msgin;
	const struct homa_msgout *out = &rpc->msgout;
	const struct in6_addr *addr = &rpc->peer->addr;

	lockdep_assert_held(&rpc->hsk->lock);
	memset(ri, 0, sizeof(*ri));
	ri->id = rpc->id;
	if (rpc->hsk->inet.sk.sk_family == AF_INET) {
		ri->peer.in4.sin_family = AF_INET;
		ri->peer.in4.sin_port = htons(rpc->dport);
		ri->peer.in4.sin_addr.s_addr = addr->s6_addr32[3];
	} else {
		ri->peer.in6.sin6_family = AF_INET6;
		ri->peer.in6.sin6_port = htons(rpc->dport);
		ri->peer.in6.sin6_addr = *addr;
	}
	ri->completion_cookie = homa_is_client(rpc->id) ?
				rpc->completion_cookie : 0;
	ri->tx_length = out->length;
	if (out->length >= 0) {
		ri->tx_sent = min_t(u32, out->next_xmit_offset, out->length);
		ri->tx_granted = min_t(u32, out->granted, out->length);
		ri->tx_prio = out->priority;
	}
	ri->rx_length = in->length;
	if (in->length >= 0) {
		ri->rx_remaining = in->gaps.bytes_remaining;
		ri->rx_gaps = in->gaps.num_gaps;
		ri->rx_gap_bytes = homa_gaps_gap_bytes(&in->gaps);
		ri->rx_granted = READ_ONCE(in->granted);
		if (!in->num_bpages && !rpc->ready)
			ri->flags |= HOMA_RPC_BUF_STALL;
	}
	if (rpc->private)
		ri->flags |= HOMA_RPC_PRIVATE;
	if (rpc->ready)
		ri->flags |= HOMA_RPC_RX_READY;
	if (!skb_queue_empty(&in->packets))
		ri->flags |= HOMA_RPC_RX_COPY;
}

/**
 * homa_rpc_ready() - Hand an RPC to recvmsg: its message is complete, or
 * it failed. Wakes waiting threads.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_rpc_ready(struct homa_rpc *rpc)
{
	struct sock *sk = &rpc->hsk->inet.sk;

	lockdep_assert_held(&rpc->hsk->lock);
	/* Whatever is left of it, the recvmsg that takes it copies. */
	list_del_init(&rpc->copy_links);
	/*
	 * A message recvmsg is copying out has been handed over already: a
	 * duplicate packet arriving meanwhile must not hand it over again.
	 * One copied early in batches is handed over when the batch is done
	 * (homa_msgin_copied()).
	 */
	if (rpc->ready || rpc->copying || rpc->state == RPC_DEAD)
		return;
	rpc->ready = true;
	list_add_tail(&rpc->ready_links, &rpc->hsk->ready_rpcs);
	WRITE_ONCE(rpc->hsk->ready_gen, rpc->hsk->ready_gen + 1);
	sk->sk_data_ready(sk);
}

/**
 * homa_rpc_fail() - End a client RPC with an error for recvmsg to return.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @err: a negative errno.
 */
void homa_rpc_fail(struct homa_rpc *rpc, int err)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->error || rpc->state == RPC_DEAD)
		return;
	rpc->error = err;
	homa_rpc_ready(rpc);
}

/**
 * homa_msgin_release() - Give an incoming message's buffers back to the
 * pool (those not yet handed to the application).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_msgin_release(struct homa_rpc *rpc)
{
	struct homa_pool *pool = rpc->hsk->pool;
	u32 i;

	lockdep_assert_held(&rpc->hsk->lock);
	homa_msgin_uncharge(rpc);
	for (i = 0; i < rpc->msgin.num_bpages && pool; i++)
		homa_pool_release(&pool->state, rpc->msgin.bpage_offsets[i]);
	rpc->msgin.num_bpages = 0;
}

/**
 * homa_msgin_reset() - Forget an incoming message: drop its packets and
 * give back its buffers (those not yet handed to the application).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_msgin_reset(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	homa_grant_remove(rpc);
	skb_queue_splice_tail_init(&rpc->msgin.packets, &rpc->hsk->dead_skbs);
	rpc->msgin.queued = 0;
	rpc->msgin.pkt_max = 0;
	rpc->msgin.copy_err = 0;
	list_del_init(&rpc->copy_links);
	/*
	 * recvmsg may be writing into the buffers with the lock dropped:
	 * they stay the RPC's until it is done (homa_finish_recv()), or
	 * another message could be given them and be overwritten.
	 */
	if (!rpc->copying)
		homa_msgin_release(rpc);
	homa_msgin_unwait(rpc);
	rpc->msgin.length = -1;
	rpc->msgin.granted = 0;
	rpc->msgin.sched_prio = 0;
	rpc->msgin.rank_prio = 0;
}

/**
 * homa_rpc_end() - Finish with an RPC: unlink it, release its buffers and
 * free it (unless recvmsg is copying from it; recvmsg frees it then).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_rpc_end(struct homa_rpc *rpc)
{
	struct homa_sock *hsk = rpc->hsk;

	lockdep_assert_held(&hsk->lock);
	if (rpc->state == RPC_DEAD)
		return;
	/* A server RPC past RPC_INCOMING has handed its request over. */
	if (!homa_is_client(rpc->id) && rpc->state != RPC_INCOMING)
		homa_dedup_add(rpc);
	rpc->state = RPC_DEAD;
	homa_rpc_delivered(rpc);
	hash_del(&rpc->hash_node);
	list_del(&rpc->active_links);
	hsk->rx_owed -= rpc->owed;
	rpc->owed = 0;
	if (rpc->ready) {
		list_del(&rpc->ready_links);
		rpc->ready = false;
	}
	hsk->num_rpcs--;
	if (homa_is_client(rpc->id))
		hsk->num_client_rpcs--;
	homa_pacer_unthrottle(rpc);
	skb_queue_splice_tail_init(&rpc->msgout.packets, &hsk->dead_skbs);
	/* Its packets are dead: nothing may point at them any more. */
	rpc->msgout.next_xmit = NULL;
	rpc->msgout.resend_next = NULL;
	rpc->msgout.resend_q.n = 0;
	homa_txtrack_put(rpc->msgout.track);
	rpc->msgout.track = NULL;
	homa_rpc_resend_judge(rpc);
	homa_msgin_reset(rpc);
	homa_metric_add(hsk->hnet, HOMA_M_rpcs_live, -1);
	/*
	 * A thread waiting for this RPC's id must learn that it is gone, and
	 * a writer short of transmit memory may reap what it left. Nothing
	 * else waits for an RPC's end: a recvmsg for any RPC woken here (an
	 * exclusive waiter) would only find nothing and sleep again.
	 */
	if (rpc->private || !homa_sock_writeable(hsk)) {
		WRITE_ONCE(hsk->ready_gen, hsk->ready_gen + 1);
		hsk->inet.sk.sk_data_ready(&hsk->inet.sk);
	}
	if (!rpc->copying)
		list_add_tail(&rpc->active_links, &hsk->dead_rpcs);
}

/**
 * homa_rpc_end_matching() - End every RPC of a socket that @match accepts
 * (all of them if @match is NULL). They all leave the grant list first,
 * and the others get one new grant decision at the end: a decision per
 * RPC (each walks the whole list) made ending N granted RPCs cost O(N^2)
 * with bottom halves off.
 * @hsk: the socket; the caller holds its lock.
 * @match: the test, or NULL; called twice for each RPC, with the same
 *	answer both times (the socket's lock is held throughout).
 * @arg: passed to @match.
 *
 * Return: how many RPCs ended.
 */
u32 homa_rpc_end_matching(struct homa_sock *hsk,
			  bool (*match)(const struct homa_rpc *rpc,
					const void *arg),
			  const void *arg)
{
	struct homa_rpc *rpc, *tmp;
	bool listed = false;
	u32 ended = 0;

	lockdep_assert_held(&hsk->lock);
	list_for_each_entry(rpc, &hsk->active_rpcs, active_links)
		if (!match || match(rpc, arg))
			listed |= homa_grant_unlist(rpc);
	list_for_each_entry_safe(rpc, tmp, &hsk->active_rpcs, active_links) {
		if (match && !match(rpc, arg))
			continue;
		homa_rpc_end(rpc);
		ended++;
	}
	if (listed)
		homa_grant_reschedule(hsk->hnet);
	return ended;
}

/**
 * homa_rpc_end_all() - End every RPC of a socket (close, shutdown).
 * @hsk: the socket; the caller holds its lock.
 */
void homa_rpc_end_all(struct homa_sock *hsk)
{
	homa_rpc_end_matching(hsk, NULL, NULL);
}

/**
 * homa_rpc_free() - Free an ended RPC's memory.
 * @rpc: the RPC: dead, unlinked from everything, its packets gone.
 */
void homa_rpc_free(struct homa_rpc *rpc)
{
	homa_peer_put(rpc->peer);
	kfree(rpc);
}

/**
 * homa_skbs_free() - Free a list of packets that Homa held, and count
 * them out of the skbs_live metric.
 * @hnet: the namespace's Homa host.
 * @list: the packets; emptied. The caller owns the list alone (a local
 *	list, or one under its socket's lock): its own spinlock is not taken,
 *	and need not have been initialised.
 */
void homa_skbs_free(struct homa_net *hnet, struct sk_buff_head *list)
{
	u32 n = skb_queue_len(list);
	struct sk_buff *skb;

	if (!n)
		return;
	/*
	 * One at a time, in message order: a page that two packets share
	 * is the second one's alone once the first is freed.
	 */
	while ((skb = __skb_dequeue(list))) {
		homa_txpages_keep(hnet, skb);
		kfree_skb(skb);
	}
	homa_metric_add(hnet, HOMA_M_skbs_live, -(s64)n);
}

/**
 * homa_rpc_reap() - Free part of what ended RPCs left behind: their
 * packets and the RPC structures themselves.
 * @hsk: the socket; its lock must not be held (freeing a sent packet
 *       gives back transmit memory and may wake writers).
 * @limit: most packets and RPCs to free in this call.
 *
 * Return: true if more remains to be freed.
 */
bool homa_rpc_reap(struct homa_sock *hsk, int limit)
{
	struct homa_rpc *rpc, *tmp;
	struct sk_buff_head skbs;
	struct sk_buff *skb;
	LIST_HEAD(rpcs);
	int n = 0;
	bool more;

	__skb_queue_head_init(&skbs);
	spin_lock_bh(&hsk->lock);
	while (n < limit && (skb = __skb_dequeue(&hsk->dead_skbs))) {
		__skb_queue_tail(&skbs, skb);
		n++;
	}
	list_for_each_entry_safe(rpc, tmp, &hsk->dead_rpcs, active_links) {
		if (n++ >= limit)
			break;
		list_move_tail(&rpc->active_links, &rpcs);
	}
	more = !skb_queue_empty(&hsk->dead_skbs) ||
	       !list_empty(&hsk->dead_rpcs);
	spin_unlock_bh(&hsk->lock);
	homa_skbs_free(hsk->hnet, &skbs);
	list_for_each_entry_safe(rpc, tmp, &rpcs, active_links)
		homa_rpc_free(rpc);
	return more;
}
