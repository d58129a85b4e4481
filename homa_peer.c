// SPDX-License-Identifier: GPL-2.0+
/*
 * The peer table of a namespace: one homa_peer per remote host, with the
 * route to it (looked up once, checked before use and renewed when it goes
 * stale) and the acks waiting to be sent to it. Addresses are kept as IPv6,
 * IPv4 ones mapped, so one table serves both families.
 *
 * Lifetime: the table holds one reference to each peer, every RPC and
 * every caller of homa_peer_get() one more. homa_peer_gc() drops the
 * table's reference only while it is the last one (refcount_dec_if_one),
 * under peer_lock, and unlinks the peer in the same critical section; a
 * lookup racing with it under RCU fails refcount_inc_not_zero() and makes
 * a new peer. Memory is freed after an RCU grace period.
 */

#include <linux/jhash.h>
#include <linux/random.h>
#include <net/ip6_route.h>
#include <net/route.h>

#include "homa_impl.h"

/**
 * homa_peertab_init() - Set up a namespace's empty peer table.
 * @hnet: the namespace's Homa host.
 */
void homa_peertab_init(struct homa_net *hnet)
{
	spin_lock_init(&hnet->peer_lock);
	hash_init(hnet->peers);
	hnet->peer_hash_key = get_random_u32();
	hnet->num_peers = 0;
}

/* Take a peer out of the table and free it after a grace period. */
static void homa_peer_unlink(struct homa_net *hnet, struct homa_peer *peer)
{
	hash_del_rcu(&peer->node);
	dst_release(peer->dst);
	kfree_rcu(peer, rcu);
	WRITE_ONCE(hnet->num_peers, hnet->num_peers - 1);
	homa_metric_add(hnet, HOMA_M_peers_live, -1);
}

/**
 * homa_peertab_exit() - Free every peer of a namespace that is going away.
 * @hnet: the namespace's Homa host; no socket is left, so no RPC refers
 *        to any peer.
 */
void homa_peertab_exit(struct homa_net *hnet)
{
	struct homa_peer *peer;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(hnet->peers, bkt, tmp, peer, node)
		homa_peer_unlink(hnet, peer);
}

/**
 * homa_peer_put() - Drop a reference taken by homa_peer_get() or held by
 * an RPC. The peer stays in the table (homa_peer_gc() frees idle ones).
 * @peer: the peer.
 */
void homa_peer_put(struct homa_peer *peer)
{
	refcount_dec(&peer->refs);
}

/**
 * homa_peer_gc() - Free the peers of a namespace that no RPC uses and
 * that nobody looked up for peer_idle_secs. Called by the timer.
 * @hnet: the namespace's Homa host.
 */
void homa_peer_gc(struct homa_net *hnet)
{
	unsigned long idle = homa_cfg(hnet, peer_idle_secs) * HZ;
	struct homa_peer *peer;
	struct hlist_node *tmp;
	int bkt;

	spin_lock_bh(&hnet->peer_lock);
	hash_for_each_safe(hnet->peers, bkt, tmp, peer, node) {
		if (time_before(jiffies, READ_ONCE(peer->last_used) + idle))
			continue;
		if (!refcount_dec_if_one(&peer->refs))
			continue;
		homa_peer_unlink(hnet, peer);
		homa_metric_inc(hnet, HOMA_M_peers_freed);
	}
	spin_unlock_bh(&hnet->peer_lock);
}

/* Keyed hash: addresses a sender picks spread over every chain. */
static u32 homa_peer_hash(const struct homa_net *hnet,
			  const struct in6_addr *addr)
{
	return jhash2((const u32 *)addr->s6_addr32, 4, hnet->peer_hash_key);
}

static struct homa_peer *homa_peer_lookup(struct homa_net *hnet,
					  const struct in6_addr *addr)
{
	struct homa_peer *peer;

	hash_for_each_possible_rcu(hnet->peers, peer, node,
				   homa_peer_hash(hnet, addr))
		if (ipv6_addr_equal(&peer->addr, addr))
			return peer;
	return NULL;
}

/**
 * homa_peer_find() - The peer of an address, if the table has it. Unlike
 * homa_peer_get() it never adds one, for packets that concern only a
 * known peer and that anyone may forge (an ICMP error).
 * @hnet: the namespace's Homa host.
 * @addr: the peer's address (IPv4-mapped for IPv4).
 *
 * Return: the peer, with a reference the caller drops with
 * homa_peer_put(); NULL if there is none.
 */
struct homa_peer *homa_peer_find(struct homa_net *hnet,
				 const struct in6_addr *addr)
{
	struct homa_peer *peer;

	rcu_read_lock();
	peer = homa_peer_lookup(hnet, addr);
	if (peer && !refcount_inc_not_zero(&peer->refs))
		peer = NULL;
	rcu_read_unlock();
	if (peer)
		WRITE_ONCE(peer->last_used, jiffies);
	return peer;
}

/* Find a route to @peer; the caller holds peer->lock or owns the peer. */
static int homa_peer_route(struct homa_net *hnet, struct homa_peer *peer)
{
	struct dst_entry *dst;

	memset(&peer->flow, 0, sizeof(peer->flow));
	if (ipv6_addr_v4mapped(&peer->addr)) {
		struct flowi4 *fl4 = &peer->flow.u.ip4;
		struct rtable *rt;

		fl4->daddr = peer->addr.s6_addr32[3];
		fl4->flowi4_proto = IPPROTO_HOMA;
		rt = ip_route_output_flow(hnet->net, fl4, NULL);
		if (IS_ERR(rt))
			return PTR_ERR(rt);
		dst = &rt->dst;
	} else {
		struct flowi6 *fl6 = &peer->flow.u.ip6;

		fl6->daddr = peer->addr;
		fl6->flowi6_proto = IPPROTO_HOMA;
		dst = ip6_dst_lookup_flow(hnet->net, NULL, fl6, NULL);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
	}
	dst_release(peer->dst);
	peer->dst = dst;
	return 0;
}

/*
 * Is there room for one more peer? In a full table, evict one that no RPC
 * uses, looking at no more than HOMA_PEER_EVICT_SCAN peers (from where
 * the last scan stopped), so that a flood of new source addresses costs
 * bounded work per packet. The caller holds peer_lock.
 */
static bool homa_peer_room(struct homa_net *hnet)
{
	int max = homa_cfg(hnet, max_peers);
	u32 n = HASH_SIZE(hnet->peers), scanned = 0, i;
	struct homa_peer *peer;
	struct hlist_node *tmp;

	lockdep_assert_held(&hnet->peer_lock);
	if (!max || hnet->num_peers < max)
		return true;
	for (i = 0; i < n && scanned < HOMA_PEER_EVICT_SCAN; i++) {
		u32 bkt = (hnet->peer_evict_bkt + i) % n;

		hlist_for_each_entry_safe(peer, tmp, &hnet->peers[bkt], node) {
			scanned++;
			if (!refcount_dec_if_one(&peer->refs))
				continue;
			homa_peer_unlink(hnet, peer);
			homa_metric_inc(hnet, HOMA_M_peers_evicted);
			hnet->peer_evict_bkt = bkt + 1;
			return true;
		}
	}
	hnet->peer_evict_bkt += i;
	return false;
}

/**
 * homa_peer_get() - Find or create the peer for an address.
 * @hnet: the namespace's Homa host.
 * @addr: the peer's address (IPv4-mapped for IPv4).
 *
 * Return: the peer, with a reference the caller drops with
 * homa_peer_put(); or an ERR_PTR: -ENOMEM, -ENOSPC (the table is full
 * of peers in use: see max_peers), or the routing error (e.g.
 * -ENETUNREACH) for a new peer that has no route.
 */
struct homa_peer *homa_peer_get(struct homa_net *hnet,
				const struct in6_addr *addr)
{
	struct homa_peer *peer, *other;
	int err;

	peer = homa_peer_find(hnet, addr);
	if (peer)
		return peer;
	peer = kzalloc(sizeof(*peer), GFP_ATOMIC);
	if (!peer)
		return ERR_PTR(-ENOMEM);
	peer->addr = *addr;
	/* The table's reference and the caller's. */
	refcount_set(&peer->refs, 2);
	peer->last_used = jiffies;
	peer->last_heard = jiffies;
	peer->hnet = hnet;
	homa_rtt_init(&peer->rtt);
	spin_lock_init(&peer->lock);
	err = homa_peer_route(hnet, peer);
	if (err) {
		kfree(peer);
		return ERR_PTR(err);
	}
	spin_lock_bh(&hnet->peer_lock);
	/* Under peer_lock every peer in the table holds the table's ref. */
	other = homa_peer_lookup(hnet, addr);
	if (other) {
		refcount_inc(&other->refs);
	} else if (!homa_peer_room(hnet)) {
		other = ERR_PTR(-ENOSPC);
	} else {
		hash_add_rcu(hnet->peers, &peer->node,
			     homa_peer_hash(hnet, addr));
		WRITE_ONCE(hnet->num_peers, hnet->num_peers + 1);
		homa_metric_inc(hnet, HOMA_M_peers_live);
	}
	spin_unlock_bh(&hnet->peer_lock);
	if (other) {
		dst_release(peer->dst);
		kfree(peer);
		return other;
	}
	return peer;
}

/**
 * homa_peer_dst() - A reference to the current route to a peer.
 * @hnet: the namespace's Homa host.
 * @peer: the peer.
 * @fl: filled in with the flow the route was found for (its addresses go
 *      into IP headers).
 *
 * A route that has become stale is looked up again first.
 *
 * Return: the route (the caller owns one reference), or NULL if there is
 * none now.
 */
struct dst_entry *homa_peer_dst(struct homa_net *hnet, struct homa_peer *peer,
				struct flowi *fl)
{
	struct dst_entry *dst;

	spin_lock_bh(&peer->lock);
	/* A route whose device went away is marked obsolete: find another. */
	if (READ_ONCE(peer->dst->obsolete) > 0 && homa_peer_route(hnet, peer)) {
		spin_unlock_bh(&peer->lock);
		return NULL;
	}
	dst = dst_clone(peer->dst);
	*fl = peer->flow;
	spin_unlock_bh(&peer->lock);
	return dst;
}

/**
 * homa_peer_add_ack() - Remember that a response from @peer arrived, so
 * that its server can free the RPC.
 * @peer: the server's host.
 * @id: the client id of the RPC.
 * @port: the server port of the RPC.
 *
 * Return: true if the acks are full and should be sent now.
 */
bool homa_peer_add_ack(struct homa_peer *peer, u64 id, u16 port)
{
	bool full;

	spin_lock_bh(&peer->lock);
	if (peer->num_acks < HOMA_MAX_ACKS_PER_PKT) {
		peer->ack_ids[peer->num_acks] = id;
		peer->ack_ports[peer->num_acks] = port;
		peer->num_acks++;
	}
	full = peer->num_acks == HOMA_MAX_ACKS_PER_PKT;
	spin_unlock_bh(&peer->lock);
	return full;
}

/**
 * homa_peer_take_acks() - Take the acks waiting for a peer, to send them.
 * @peer: the peer.
 * @pkt: an ACK packet description whose ack fields are filled in.
 * @max: take at most this many.
 *
 * Return: the number of acks taken.
 */
int homa_peer_take_acks(struct homa_peer *peer, struct homa_pkt *pkt, int max)
{
	int n, i;

	spin_lock_bh(&peer->lock);
	n = min(peer->num_acks, max);
	for (i = 0; i < n; i++) {
		peer->num_acks--;
		pkt->ack.client_ids[i] = peer->ack_ids[peer->num_acks];
		pkt->ack.server_ports[i] = peer->ack_ports[peer->num_acks];
	}
	spin_unlock_bh(&peer->lock);
	pkt->ack.num_acks = n;
	return n;
}
