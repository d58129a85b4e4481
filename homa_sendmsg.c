// SPDX-License-Identifier: GPL-2.0+
/*
 * The sendmsg system call: checks its arguments, waits for transmit
 * memory, and either starts a new client RPC (a request) or hands a server
 * RPC its response, found by the client's address, port and id. Building
 * and sending the message's packets is homa_outgoing.c's work.
 */

#include <net/ipv6.h>

#include "homa_impl.h"

/* Read and check the destination of sendmsg; fill the peer address. */
static int homa_sendmsg_addr(struct sock *sk, struct msghdr *msg,
			     struct in6_addr *addr, u16 *port)
{
	struct sockaddr_in6 *a6 = msg->msg_name;
	struct sockaddr_in *a4 = msg->msg_name;

	if (!msg->msg_name)
		return -EDESTADDRREQ;
	if (sk->sk_family == AF_INET) {
		if (msg->msg_namelen < sizeof(*a4) || a4->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		ipv6_addr_set_v4mapped(a4->sin_addr.s_addr, addr);
		*port = ntohs(a4->sin_port);
		return 0;
	}
	if (msg->msg_namelen < SIN6_LEN_RFC2133 || a6->sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	*addr = a6->sin6_addr;
	*port = ntohs(a6->sin6_port);
	return 0;
}

/*
 * Incast control: a client with many requests outstanding asks the
 * servers to answer with few unscheduled bytes, so that the responses
 * arriving together do not overflow its downlink's queue.
 */
static void homa_incast_mark(struct homa_sock *hsk, struct homa_rpc *rpc)
{
	int threshold = homa_cfg(hsk->hnet, incast_threshold);

	lockdep_assert_held(&hsk->lock);
	if (threshold && hsk->num_client_rpcs > threshold) {
		rpc->msgout.flags |= HOMA_DATA_INCAST;
		homa_metric_inc(hsk->hnet, HOMA_M_incast_marked);
	}
}

/*
 * The server RPC a reply is for: the one with @id from the client at
 * @addr and @port, in @state (RPC_IN_SERVICE: it awaits its response;
 * RPC_OUTGOING: its response is being sent); lock held. Clients on
 * different hosts, or on different ports of one host, may use the same id,
 * so the id alone names no RPC.
 */
static struct homa_rpc *homa_reply_rpc(struct homa_sock *hsk,
				       const struct in6_addr *addr, u16 port,
				       u64 id, enum homa_rpc_state state)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	hash_for_each_possible(hsk->server_rpcs, rpc, hash_node,
			       homa_server_rpc_key(hsk, port, id))
		if (rpc->id == id && rpc->state == state &&
		    rpc->dport == port &&
		    ipv6_addr_equal(&rpc->peer->addr, addr))
			return rpc;
	return NULL;
}

/*
 * Message bytes copied per step once a message's first packet is out (in
 * whole stored packets, at least one): a lock round trip per 64 KB.
 */
#define HOMA_SEND_STEP_BYTES 65536

/**
 * struct homa_send_key - names the RPC whose message a sendmsg copies, so
 * that it can be found again after each step (it may end while the lock
 * is dropped).
 */
struct homa_send_key {
	/** @addr: the peer's address (replies only). */
	struct in6_addr addr;

	/** @port: the client's port (replies only). */
	u16 port;

	/** @id: the RPC's id on this host. */
	u64 id;
};

/* The RPC @key names, if it still sends its message; lock held. */
static struct homa_rpc *homa_send_rpc(struct homa_sock *hsk,
				      const struct homa_send_key *key)
{
	if (homa_is_client(key->id))
		return homa_rpc_find_client(hsk, key->id);
	return homa_reply_rpc(hsk, &key->addr, key->port, key->id,
			      RPC_OUTGOING);
}

/*
 * Copy the rest of a message, from @offset on, about HOMA_SEND_STEP_BYTES
 * at a time, and hand each part to its RPC (which sends what it may), so
 * that the first bytes travel while the rest is copied. Returns 0 (also
 * when the RPC ended meanwhile: nothing is left to send), or the error of
 * a copy (the RPC is ended then: its message cannot be completed).
 */
static int homa_send_rest(struct homa_sock *hsk,
			  const struct homa_msgout_shape *shape,
			  struct iov_iter *iter, u32 offset, u32 length,
			  const struct homa_send_key *key)
{
	u32 step = max_t(u32, HOMA_SEND_STEP_BYTES / shape->chunk, 1) *
		   shape->chunk;
	struct sk_buff_head packets;
	struct homa_rpc *rpc;
	int err = 0;
	u32 n;

	for (; offset < length && !err; offset += n) {
		n = min(length - offset, step);
		err = homa_msgout_fill(hsk, shape, &packets, iter, offset, n);
		spin_lock_bh(&hsk->lock);
		rpc = homa_send_rpc(hsk, key);
		if (rpc && err) {
			homa_rpc_end(rpc);
		} else if (rpc) {
			homa_msgout_append(rpc, &packets);
			homa_xmit_data(rpc);
		}
		spin_unlock_bh(&hsk->lock);
		skb_queue_purge(&packets);
		if (!rpc)
			break;
	}
	return err;
}

/*
 * Send a new request; returns its id through @args. The RPC exists once
 * the first packet is copied, and that packet leaves while the rest is.
 */
static int homa_send_request(struct homa_sock *hsk, struct msghdr *msg,
			     size_t len, struct homa_sendmsg_args *args)
{
	struct homa_send_key key = { .id = 0 };
	struct homa_msgout_shape shape;
	struct sk_buff_head packets;
	struct homa_peer *peer;
	struct in6_addr addr;
	struct homa_rpc *rpc;
	u32 first;
	u16 port;
	int err;

	err = homa_sendmsg_addr(&hsk->inet.sk, msg, &addr, &port);
	if (err)
		return homa_sock_error(hsk, err, err == -EDESTADDRREQ ?
				       "sendmsg: no destination address" :
				       "sendmsg: address family not the socket's");
	if (port == 0)
		return homa_sock_error(hsk, -EINVAL,
				       "sendmsg: destination port 0");
	peer = homa_peer_get(hsk->hnet, &addr);
	if (IS_ERR(peer))
		return homa_sock_error(hsk, PTR_ERR(peer),
				       PTR_ERR(peer) == -ENOSPC ?
				       "sendmsg: peer table full (max_peers)" :
				       "sendmsg: no route to the destination");
	homa_msgout_shape(hsk, peer, &shape);
	first = min_t(u32, len, shape.chunk);
	err = homa_msgout_fill(hsk, &shape, &packets, &msg->msg_iter, 0, first);
	if (err) {
		homa_peer_put(peer);
		return err;
	}
	spin_lock_bh(&hsk->lock);
	if (hsk->shutdown) {
		err = -ESHUTDOWN;
		goto out;
	}
	rpc = homa_rpc_alloc_client(hsk, peer, port);
	if (!rpc) {
		err = -ENOMEM;
		goto out;
	}
	rpc->completion_cookie = args->completion_cookie;
	rpc->private = args->flags & HOMA_SENDMSG_PRIVATE;
	args->id = rpc->id;
	key.id = rpc->id;
	homa_incast_mark(hsk, rpc);
	homa_msgout_attach(rpc, &packets, len);
	homa_xmit_data(rpc);
out:
	spin_unlock_bh(&hsk->lock);
	homa_peer_put(peer);
	skb_queue_purge(&packets);
	if (!err)
		err = homa_send_rest(hsk, &shape, &msg->msg_iter, first, len,
				     &key);
	return err;
}

/*
 * Send the response of server RPC @id to the client msg_name names; as
 * with a request, its first packet leaves while the rest is copied.
 */
static int homa_send_reply(struct homa_sock *hsk, struct msghdr *msg,
			   size_t len, u64 id)
{
	struct homa_send_key key = { .id = id };
	struct homa_msgout_shape shape;
	struct sk_buff_head packets;
	struct homa_peer *peer;
	struct homa_rpc *rpc;
	u32 first;
	int err;

	err = homa_sendmsg_addr(&hsk->inet.sk, msg, &key.addr, &key.port);
	if (err == -EDESTADDRREQ)
		return homa_sock_error(hsk, err,
				       "sendmsg: a reply needs its client's address in msg_name");
	if (err)
		return homa_sock_error(hsk, err,
				       "sendmsg: address family not the socket's");
	spin_lock_bh(&hsk->lock);
	rpc = homa_reply_rpc(hsk, &key.addr, key.port, id, RPC_IN_SERVICE);
	peer = rpc ? rpc->peer : NULL;
	/* The RPC may end while the lock is dropped: hold its peer. */
	if (peer)
		refcount_inc(&peer->refs);
	spin_unlock_bh(&hsk->lock);
	if (!peer)
		return homa_sock_error(hsk, -EINVAL,
				       "sendmsg: no RPC with that id from the client in msg_name awaits a reply");
	homa_msgout_shape(hsk, peer, &shape);
	homa_peer_put(peer);
	first = min_t(u32, len, shape.chunk);
	err = homa_msgout_fill(hsk, &shape, &packets, &msg->msg_iter, 0, first);
	if (err)
		return err;
	spin_lock_bh(&hsk->lock);
	/* The RPC may have ended while the lock was dropped. */
	rpc = homa_reply_rpc(hsk, &key.addr, key.port, id, RPC_IN_SERVICE);
	if (rpc) {
		rpc->state = RPC_OUTGOING;
		homa_probe_replied(&rpc->probe);
		homa_msgout_attach(rpc, &packets, len);
		homa_xmit_data(rpc);
	} else {
		err = -EINVAL;
	}
	spin_unlock_bh(&hsk->lock);
	skb_queue_purge(&packets);
	if (!err)
		err = homa_send_rest(hsk, &shape, &msg->msg_iter, first, len,
				     &key);
	return err;
}

/* A writer waiting for transmit memory may go on (or reap). */
static bool homa_wmem_wake(struct homa_sock *hsk)
{
	return homa_sock_writeable(hsk) || READ_ONCE(hsk->shutdown) ||
	       !skb_queue_empty_lockless(&hsk->dead_skbs);
}

/* Reaping must come before sending: short of memory, or too many dead. */
static bool homa_reap_first(struct homa_sock *hsk)
{
	return !homa_sock_writeable(hsk) ||
	       skb_queue_len_lockless(&hsk->dead_skbs) >
	       (u32)homa_cfg(hsk->hnet, dead_buffs_limit);
}

/*
 * Before sending: while the socket is short of transmit memory or holds
 * over dead_buffs_limit dead packets, reap what ended RPCs left; then wait
 * for transmit memory: 0, or -EAGAIN, -ESHUTDOWN, -EINTR. Otherwise the
 * usual reaping waits until the message's first packets are handed on
 * (homa_sendmsg()), off the round trip's path.
 */
static int homa_wait_wmem(struct homa_sock *hsk, bool nonblocking)
{
	struct homa_net *hnet = hsk->hnet;
	wait_queue_head_t *wq = sk_sleep(&hsk->inet.sk);
	bool more = true;

	for (;;) {
		while (more && homa_reap_first(hsk))
			more = homa_rpc_reap(hsk, homa_cfg(hnet, reap_limit));
		if (homa_sock_writeable(hsk))
			return 0;
		if (nonblocking)
			return -EAGAIN;
		if (wait_event_interruptible(*wq, homa_wmem_wake(hsk)))
			return -EINTR;
		if (READ_ONCE(hsk->shutdown))
			return -ESHUTDOWN;
		more = true;	/* an RPC may have ended while we slept */
	}
}

/**
 * homa_sendmsg() - Send a request or a response (sendmsg on a Homa
 * socket).
 * @sk: the socket.
 * @msg: the message; msg_control points to struct homa_sendmsg_args.
 * @len: bytes in the message.
 *
 * Return: 0, or a negative errno (see sendmsg.2 in man/).
 */
int homa_sendmsg(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_sendmsg_args args;
	void __user *uargs;
	int err;

	if (!msg->msg_control_is_user || !msg->msg_control_user)
		return homa_sock_error(hsk, -EINVAL,
				       "sendmsg: msg_control must point to homa_sendmsg_args");
	uargs = msg->msg_control_user;
	if (copy_from_user(&args, uargs, sizeof(args)))
		return homa_sock_error(hsk, -EFAULT,
				       "sendmsg: cannot read homa_sendmsg_args");
	if (args.flags & ~HOMA_SENDMSG_VALID_FLAGS || args.reserved)
		return homa_sock_error(hsk, -EINVAL,
				       "sendmsg: unknown flags or reserved field set");
	if (len == 0 || len > HOMA_MAX_MESSAGE_LENGTH)
		return homa_sock_error(hsk, -EINVAL,
				       "sendmsg: message length 0 or over HOMA_MAX_MESSAGE_LENGTH");
	if (READ_ONCE(hsk->shutdown))
		return homa_sock_error(hsk, -ESHUTDOWN,
				       "sendmsg: socket shut down");
	err = homa_wait_wmem(hsk, msg->msg_flags & MSG_DONTWAIT);
	if (err)
		return err;
	if (args.id == 0) {
		err = homa_send_request(hsk, msg, len, &args);
		if (!err && copy_to_user(uargs, &args, sizeof(args)))
			err = -EFAULT;
	} else if (args.completion_cookie || homa_is_client(args.id) ||
		   args.flags) {
		return homa_sock_error(hsk, -EINVAL,
				       "sendmsg: a reply takes a server RPC id, no cookie, no flags");
	} else {
		err = homa_send_reply(hsk, msg, len, args.id);
	}
	/* Sent (or failed): now free a little (reap_limit), off its path. */
	homa_rpc_reap(hsk, homa_cfg(hsk->hnet, reap_limit));
	return err;
}
