// SPDX-License-Identifier: GPL-2.0+
/*
 * The kernel half of a socket's receive buffer pool (homa_pool.c decides
 * where messages go): its set-up (SO_HOMA_RCVBUF), giving an incoming
 * message its bpages within its peer's share (peer_pool_pct), and taking
 * back the bpages the application returns. It calls nothing above it:
 * homa_msgin_retry() (homa_incoming.c) gives waiting messages the space
 * that comes back.
 */

#include <linux/slab.h>

#include "homa_impl.h"

/**
 * homa_pool_setup() - Give a socket its receive region (SO_HOMA_RCVBUF).
 * @hsk: the socket.
 * @args: the region, from the user (untrusted).
 *
 * Return: 0; -EINVAL for a bad region or if the socket has one already;
 * -ENOMEM.
 */
int homa_pool_setup(struct homa_sock *hsk, const struct homa_rcvbuf_args *args)
{
	struct homa_pool *pool;
	u32 n;
	int err;

	err = homa_pool_check_region(args->start, args->length, PAGE_SIZE, &n);
	if (err)
		return err;
	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	pool->bpages = kvcalloc(n, sizeof(*pool->bpages), GFP_KERNEL);
	pool->free_stack = kvcalloc(n, sizeof(*pool->free_stack), GFP_KERNEL);
	if (!pool->bpages || !pool->free_stack) {
		err = -ENOMEM;
		goto fail;
	}
	pool->start = args->start;
	pool->length = (u64)n * HOMA_BPAGE_SIZE;
	homa_pool_state_init(&pool->state, n, pool->bpages, pool->free_stack);
	spin_lock_bh(&hsk->lock);
	if (!hsk->pool) {
		hsk->pool = pool;
		pool = NULL;
	}
	spin_unlock_bh(&hsk->lock);
	if (!pool)
		return 0;
	err = -EINVAL;
fail:
	homa_pool_free(pool);
	return err;
}

/**
 * homa_pool_free() - Free a pool's kernel state (not the user's region).
 * @pool: the pool, or NULL.
 */
void homa_pool_free(struct homa_pool *pool)
{
	if (!pool)
		return;
	kvfree(pool->bpages);
	kvfree(pool->free_stack);
	kfree(pool);
}

/**
 * homa_rcvbuf_return() - Take back the bpages the application is done with
 * (the offsets recvmsg got from it); the caller then gives waiting
 * messages the space (homa_msgin_retry()).
 * @hsk: the socket.
 * @args: recvmsg's arguments, from the user (untrusted).
 *
 * Return: 0, or -EINVAL if an offset is not one the pool handed out.
 */
int homa_rcvbuf_return(struct homa_sock *hsk,
		       const struct homa_recvmsg_args *args)
{
	int err = 0;
	u32 i;

	if (args->num_bpages == 0)
		return 0;
	spin_lock_bh(&hsk->lock);
	for (i = 0; i < args->num_bpages && !err; i++)
		if (!hsk->pool ||
		    homa_pool_release(&hsk->pool->state,
				      args->bpage_offsets[i]))
			err = -EINVAL;
	spin_unlock_bh(&hsk->lock);
	return err;
}

/**
 * homa_msgin_uncharge() - The message is complete or gone: its buffers no
 * longer count against its peer's share of the pool (peer_pool_pct).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_msgin_uncharge(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (!rpc->msgin.peer_bpages)
		return;
	atomic_sub(rpc->msgin.peer_bpages, &rpc->peer->rx_bpages);
	rpc->msgin.peer_bpages = 0;
}

/*
 * May the incoming message take buffer space without its peer's incomplete
 * messages holding more than peer_pool_pct of the pool
 * (homa_pool_share_ok())? This keeps a peer that starts messages and never
 * finishes them (a forger sending one packet of each) from taking the
 * whole pool from the others. The caller holds the socket's lock and the
 * socket has a pool.
 */
static bool homa_msgin_share_ok(struct homa_rpc *rpc)
{
	int pct = homa_cfg(rpc->hsk->hnet, peer_pool_pct);

	lockdep_assert_held(&rpc->hsk->lock);
	return homa_pool_share_ok(rpc->hsk->pool->state.num_bpages, pct,
				  atomic_read(&rpc->peer->rx_bpages),
				  rpc->msgin.length);
}

/*
 * The order of homa_sock.buf_waiters: by peer, so that one lookup skips
 * all of a peer's messages once its shortest may not have space (the
 * share test grows with the length); then shortest first; then by id.
 */
static bool homa_waiter_less(const struct homa_rpc *a,
			     const struct homa_rpc *b)
{
	if (a->peer != b->peer)
		return (unsigned long)a->peer < (unsigned long)b->peer;
	if (a->msgin.length != b->msgin.length)
		return a->msgin.length < b->msgin.length;
	return a->id < b->id;
}

static bool homa_waiter_node_less(struct rb_node *a, const struct rb_node *b)
{
	return homa_waiter_less(rb_entry(a, struct homa_rpc, msgin.wait_node),
				rb_entry(b, struct homa_rpc,
					 msgin.wait_node));
}

/* The message now waits for bpages (once). */
static void homa_msgin_wait(struct homa_rpc *rpc)
{
	if (RB_EMPTY_NODE(&rpc->msgin.wait_node))
		rb_add(&rpc->msgin.wait_node, &rpc->hsk->buf_waiters,
		       homa_waiter_node_less);
}

/**
 * homa_msgin_unwait() - The message no longer waits for bpages (it has
 * them, or it is gone).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_msgin_unwait(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (RB_EMPTY_NODE(&rpc->msgin.wait_node))
		return;
	rb_erase(&rpc->msgin.wait_node, &rpc->hsk->buf_waiters);
	RB_CLEAR_NODE(&rpc->msgin.wait_node);
}

/* The first waiter of a peer after @peer, or NULL. */
static struct homa_rpc *homa_waiter_next_peer(struct homa_sock *hsk,
					      const struct homa_peer *peer)
{
	struct rb_node *node = hsk->buf_waiters.rb_node;
	struct homa_rpc *rpc, *found = NULL;

	while (node) {
		rpc = rb_entry(node, struct homa_rpc, msgin.wait_node);
		if ((unsigned long)rpc->peer > (unsigned long)peer) {
			found = rpc;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

/**
 * homa_msgin_waiter() - The shortest message waiting for bpages whose
 * peer's share lets it have them: one look at each waiting peer's
 * shortest message.
 * @hsk: the socket; the caller holds its lock and it has a pool.
 *
 * Return: the RPC, or NULL if no waiting message may have space.
 */
struct homa_rpc *homa_msgin_waiter(struct homa_sock *hsk)
{
	struct rb_node *first = rb_first(&hsk->buf_waiters);
	struct homa_rpc *rpc, *best = NULL;

	lockdep_assert_held(&hsk->lock);
	rpc = first ? rb_entry(first, struct homa_rpc, msgin.wait_node) : NULL;
	for (; rpc; rpc = homa_waiter_next_peer(hsk, rpc->peer)) {
		if (homa_msgin_share_ok(rpc) &&
		    (!best || rpc->msgin.length < best->msgin.length))
			best = rpc;
	}
	return best;
}

/**
 * homa_msgin_alloc() - Try to give an incoming message its buffers; if it
 * cannot have them yet, it waits on homa_sock.buf_waiters.
 * @rpc: the RPC; the caller holds its socket's lock.
 *
 * Return: true if the message has its buffers now.
 */
bool homa_msgin_alloc(struct homa_rpc *rpc)
{
	struct homa_msgin *in = &rpc->msgin;
	struct homa_pool *pool = rpc->hsk->pool;

	lockdep_assert_held(&rpc->hsk->lock);
	if (in->num_bpages)
		return true;
	if (pool && !homa_msgin_share_ok(rpc)) {
		homa_metric_inc(rpc->hsk->hnet, HOMA_M_pool_peer_waits);
		homa_msgin_wait(rpc);
		return false;
	}
	if (!pool || homa_pool_alloc_msg(&pool->state, in->length,
					 in->bpage_offsets, &in->num_bpages)) {
		in->num_bpages = 0;
		homa_metric_inc(rpc->hsk->hnet, HOMA_M_pool_stalls);
		homa_msgin_wait(rpc);
		return false;
	}
	homa_msgin_unwait(rpc);
	in->peer_bpages = homa_pool_bpages_needed(in->length);
	atomic_add(in->peer_bpages, &rpc->peer->rx_bpages);
	return true;
}
