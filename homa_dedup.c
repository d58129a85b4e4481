// SPDX-License-Identifier: GPL-2.0+
/*
 * At-most-once execution of requests. A server RPC normally ends when the
 * client acknowledges its response, and from then on the server knows
 * nothing of it; a late or duplicated copy of the request (from the
 * network, or from a client that restarted after an RPC_UNKNOWN that
 * crossed its request) would then create a new RPC and the application
 * would execute the request again. To prevent that, a server socket
 * remembers, for dedup_ms after it ends, every RPC whose request it
 * handed to the application: request packets for such an RPC are
 * dropped, and a RESEND for it gets no RPC_UNKNOWN (which would make the
 * client send the request again); a client that really lost the response
 * times out instead. Everything here runs under the socket's lock.
 */

#include "homa_impl.h"

/**
 * struct homa_dedup - an executed request the socket remembers.
 */
struct homa_dedup {
	/** @hash_node: link in homa_sock.dedup_hash, by @id. */
	struct hlist_node hash_node;

	/** @links: link in homa_sock.dedup_list, oldest first. */
	struct list_head links;

	/** @addr: the client's address (IPv4-mapped for IPv4). */
	struct in6_addr addr;

	/** @id: the server RPC's id (odd). */
	u64 id;

	/** @expires: jiffies after which the entry is forgotten. */
	unsigned long expires;

	/** @port: the client's port. */
	u16 port;
};

static void homa_dedup_free(struct homa_sock *hsk, struct homa_dedup *d)
{
	hash_del(&d->hash_node);
	list_del(&d->links);
	hsk->dedup_count--;
	homa_metric_add(hsk->hnet, HOMA_M_dedup_live, -1);
	kfree(d);
}

/**
 * homa_dedup_prune() - Forget remembered requests whose time is up.
 * @hsk: the socket; the caller holds its lock.
 * @limit: most entries to free.
 */
void homa_dedup_prune(struct homa_sock *hsk, int limit)
{
	struct homa_dedup *d, *tmp;

	lockdep_assert_held(&hsk->lock);
	list_for_each_entry_safe(d, tmp, &hsk->dedup_list, links) {
		if (limit-- <= 0 || time_before(jiffies, d->expires))
			break;
		homa_dedup_free(hsk, d);
	}
}

/**
 * homa_dedup_clear() - Forget every remembered request (socket close).
 * @hsk: the socket; the caller holds its lock.
 */
void homa_dedup_clear(struct homa_sock *hsk)
{
	struct homa_dedup *d, *tmp;

	lockdep_assert_held(&hsk->lock);
	list_for_each_entry_safe(d, tmp, &hsk->dedup_list, links)
		homa_dedup_free(hsk, d);
}

/**
 * homa_dedup_add() - Remember that the request of a server RPC that is
 * ending was handed to the application.
 * @rpc: the server RPC; the caller holds its socket's lock.
 */
void homa_dedup_add(struct homa_rpc *rpc)
{
	struct homa_sock *hsk = rpc->hsk;
	u32 ms = homa_cfg(hsk->hnet, dedup_ms);
	struct homa_dedup *d;

	lockdep_assert_held(&hsk->lock);
	if (!ms)
		return;
	homa_dedup_prune(hsk, 4);
	if (hsk->dedup_count >= HOMA_DEDUP_MAX) {
		/* Full: the oldest entry goes early. */
		homa_metric_inc(hsk->hnet, HOMA_M_dedup_evicted);
		homa_dedup_free(hsk, list_first_entry(&hsk->dedup_list,
						      struct homa_dedup,
						      links));
	}
	d = kmalloc(sizeof(*d), GFP_ATOMIC);
	if (!d) {
		homa_metric_inc(hsk->hnet, HOMA_M_dedup_evicted);
		return;
	}
	d->addr = rpc->peer->addr;
	d->id = rpc->id;
	d->port = rpc->dport;
	d->expires = jiffies + msecs_to_jiffies(ms);
	hash_add(hsk->dedup_hash, &d->hash_node, d->id);
	list_add_tail(&d->links, &hsk->dedup_list);
	hsk->dedup_count++;
	homa_metric_inc(hsk->hnet, HOMA_M_dedup_live);
}

/**
 * homa_dedup_find() - Has this request already been executed?
 * @hsk: the server socket; the caller holds its lock.
 * @peer: the client's host.
 * @port: the client's port.
 * @id: the server RPC's id (odd).
 *
 * Return: true if a server RPC with this client and id handed its request
 * to the application and ended less than dedup_ms ago.
 */
bool homa_dedup_find(struct homa_sock *hsk, const struct homa_peer *peer,
		     u16 port, u64 id)
{
	struct homa_dedup *d;

	lockdep_assert_held(&hsk->lock);
	hash_for_each_possible(hsk->dedup_hash, d, hash_node, id)
		if (d->id == id && d->port == port &&
		    ipv6_addr_equal(&d->addr, &peer->addr))
			return time_before(jiffies, d->expires);
	return false;
}
