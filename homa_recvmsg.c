// SPDX-License-Identifier: GPL-2.0+
/*
 * The receive side's user half: recvmsg waits for a ready RPC (any shared
 * one, or one private RPC), returns buffers the application is done with
 * (homa_rcvbuf.c takes them), copies the message's packets into the
 * application's buffer pool and says where they are.
 */

#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "homa_impl.h"

/* The first ready RPC that any recvmsg may take; lock held. */
static struct homa_rpc *homa_first_shared(struct homa_sock *hsk)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	list_for_each_entry(rpc, &hsk->ready_rpcs, ready_links)
		if (!rpc->private)
			return rpc;
	return NULL;
}

/* A ready RPC for this recvmsg, taken off the ready list; lock held. */
static struct homa_rpc *homa_take_ready(struct homa_sock *hsk, u64 id,
					int *err)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	if (id) {
		rpc = homa_rpc_find_client(hsk, id);
		if (!rpc || !rpc->private) {
			*err = -EINVAL;
			return NULL;
		}
		if (!rpc->ready)
			return NULL;
	} else {
		rpc = homa_first_shared(hsk);
		if (!rpc)
			return NULL;
	}
	list_del_init(&rpc->ready_links);
	rpc->ready = false;
	rpc->copying = true;
	return rpc;
}

/* Copy one packet's bytes to their place in the pool. */
static int homa_copy_skb(struct homa_pool *pool, struct homa_rpc *rpc,
			 struct sk_buff *skb)
{
	u32 offset = homa_skb_cb(skb)->offset;
	u32 left = homa_skb_cb(skb)->length;
	u32 pos = sizeof(struct homa_data_hdr);
	struct iov_iter iter;

	while (left) {
		u32 in_page = offset & (HOMA_BPAGE_SIZE - 1);
		u32 n = min(left, HOMA_BPAGE_SIZE - in_page);
		u32 index = offset >> HOMA_BPAGE_SHIFT;
		u64 addr;
		int err;

		/* Only into the message's own buffers, whatever happened. */
		if (index >= rpc->msgin.num_bpages)
			return -EINVAL;
		addr = pool->start + rpc->msgin.bpage_offsets[index] + in_page;

		err = homa_import_ubuf(ITER_DEST, u64_to_user_ptr(addr), n,
				       &iter);
		if (!err)
			err = skb_copy_datagram_iter(skb, pos, &iter, n);
		if (err)
			return err;
		offset += n;
		pos += n;
		left -= n;
	}
	return 0;
}

/*
 * Copy a taken RPC's message into the pool (if @copy: not for a message
 * that failed, which may have no buffers); free its packets. No lock held.
 */
static int homa_copy_msg(struct homa_sock *hsk, struct homa_rpc *rpc,
			 struct sk_buff_head *packets, bool copy)
{
	struct sk_buff *skb;
	int err = 0;

	while ((skb = __skb_dequeue(packets))) {
		if (!err && copy)
			err = homa_copy_skb(hsk->pool, rpc, skb);
		consume_skb(skb);
		homa_metric_add(hsk->hnet, HOMA_M_skbs_live, -1);
	}
	return err;
}

/*
 * The RPC whose early packets (homa_msgin_copy_offer()) this recvmsg may
 * copy: for @id 0 the first one any recvmsg may take, else the private
 * RPC @id if it has a batch. Lock held.
 */
static struct homa_rpc *homa_copy_candidate(struct homa_sock *hsk, u64 id)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	if (id) {
		rpc = homa_rpc_find_client(hsk, id);
		if (rpc && rpc->private && !list_empty(&rpc->copy_links))
			return rpc;
		return NULL;
	}
	list_for_each_entry(rpc, &hsk->copy_rpcs, copy_links)
		if (!rpc->private)
			return rpc;
	return NULL;
}

/*
 * While this recvmsg waits, copy a batch of an incomplete message into its
 * buffers (copy_batch). Returns true if it copied one (the caller looks
 * for a ready RPC again before it sleeps).
 */
static bool homa_copy_early(struct homa_sock *hsk, u64 id)
{
	struct sk_buff_head packets;
	struct homa_rpc *rpc;
	u32 bytes;
	bool copy;
	int err;

	__skb_queue_head_init(&packets);
	spin_lock_bh(&hsk->lock);
	rpc = hsk->shutdown ? NULL : homa_copy_candidate(hsk, id);
	if (!rpc) {
		spin_unlock_bh(&hsk->lock);
		return false;
	}
	list_del_init(&rpc->copy_links);
	skb_queue_splice_init(&rpc->msgin.packets, &packets);
	bytes = rpc->msgin.queued;
	rpc->msgin.queued = 0;
	copy = !rpc->msgin.copy_err;
	rpc->copying = true;
	spin_unlock_bh(&hsk->lock);

	err = homa_copy_msg(hsk, rpc, &packets, copy);
	homa_metric_inc(hsk->hnet, HOMA_M_copy_early_batches);
	homa_metric_add(hsk->hnet, HOMA_M_copy_early_bytes, bytes);

	spin_lock_bh(&hsk->lock);
	rpc->copying = false;
	if (err && !rpc->msgin.copy_err)
		rpc->msgin.copy_err = err;
	homa_msgin_copied(rpc);
	spin_unlock_bh(&hsk->lock);
	return true;
}

/*
 * Wake a thread waiting in recvmsg only for what it waits for: a wakeup
 * for transmit space alone (homa_write_space(), as sent packets are freed)
 * would use up an exclusive waiter's wakeup for nothing.
 */
static int homa_recv_wake(struct wait_queue_entry *wait, unsigned int mode,
			  int sync, void *key)
{
	if (key && !(key_to_poll(key) & (EPOLLIN | EPOLLERR | EPOLLHUP)))
		return 0;
	return autoremove_wake_function(wait, mode, sync, key);
}

/*
 * Sleep until ready_gen moves past @gen: 0, or -ERESTARTSYS on a signal.
 * A recvmsg for any RPC (@id 0) sleeps as an exclusive waiter, so that
 * one RPC made ready wakes one such thread, not all of a server's threads
 * (the others would find nothing and sleep again); a recvmsg for one
 * private RPC's id is woken by every change, as writers and poll are.
 * An exclusive waiter that leaves without an RPC passes the wakeup on
 * (homa_wait_pass()). Neither is woken for transmit space alone.
 */
static int homa_wait_gen(struct homa_sock *hsk, u64 id, u32 gen)
{
	wait_queue_head_t *wq = sk_sleep(&hsk->inet.sk);
	DEFINE_WAIT_FUNC(wait, homa_recv_wake);
	int err = 0;

	for (;;) {
		if (id)
			prepare_to_wait(wq, &wait, TASK_INTERRUPTIBLE);
		else
			prepare_to_wait_exclusive(wq, &wait,
						  TASK_INTERRUPTIBLE);
		if (READ_ONCE(hsk->ready_gen) != gen)
			break;
		if (signal_pending(current)) {
			err = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	finish_wait(wq, &wait);
	return err;
}

/*
 * Spin until ready_gen moves past @gen or local_clock() reaches *@end, so
 * that an RPC made ready soon costs the thread no sleep and no wakeup
 * (the scheduler's wakeup of an idle CPU is most of a short round trip's
 * wait). *@end is one recvmsg's budget (poll_usecs from its first wait),
 * however many changes it sees; 0 once spent. The spin ends early, and
 * the budget with it, if another task wants this CPU or a signal is
 * pending. Returns true if ready_gen moved.
 */
static bool homa_poll_gen(struct homa_sock *hsk, u32 gen, u64 *end)
{
	while (READ_ONCE(hsk->ready_gen) == gen) {
		if (need_resched() || signal_pending(current) ||
		    local_clock() >= *end) {
			*end = 0;
			homa_metric_inc(hsk->hnet, HOMA_M_poll_misses);
			return false;
		}
		cpu_relax();
	}
	homa_metric_inc(hsk->hnet, HOMA_M_poll_hits);
	return true;
}

/*
 * A recvmsg for any RPC leaves with an error: if a shared RPC or an early
 * copy waits, the wakeup it may have taken goes to another waiter.
 */
static void homa_wait_pass(struct homa_sock *hsk, u64 id)
{
	bool pass;

	if (id)
		return;
	spin_lock_bh(&hsk->lock);
	pass = homa_first_shared(hsk) || homa_copy_candidate(hsk, 0);
	spin_unlock_bh(&hsk->lock);
	if (pass)
		hsk->inet.sk.sk_data_ready(&hsk->inet.sk);
}

/* Wait until a ready RPC can be taken; returns it or an ERR_PTR. */
static struct homa_rpc *homa_wait_ready(struct homa_sock *hsk, u64 id,
					bool nonblocking)
{
	long timeo = nonblocking ? 0 : MAX_SCHEDULE_TIMEOUT;
	struct homa_rpc *rpc;
	bool poll_started = false;
	u64 poll_end = 0;
	int err = 0;
	u32 gen;

	for (;;) {
		spin_lock_bh(&hsk->lock);
		rpc = hsk->shutdown ? NULL : homa_take_ready(hsk, id, &err);
		if (hsk->shutdown)
			err = -ESHUTDOWN;
		gen = hsk->ready_gen;
		spin_unlock_bh(&hsk->lock);
		if (rpc || err)
			return rpc ? rpc : ERR_PTR(err);
		if (!timeo)
			return ERR_PTR(-EAGAIN);
		if (homa_copy_early(hsk, id))
			continue;
		if (!poll_started) {
			int usecs = homa_cfg(hsk->hnet, poll_usecs);

			poll_started = true;
			if (usecs)
				poll_end = local_clock() +
					   (u64)usecs * NSEC_PER_USEC;
		}
		if (poll_end && homa_poll_gen(hsk, gen, &poll_end))
			continue;
		if (signal_pending(current) || homa_wait_gen(hsk, id, gen)) {
			homa_wait_pass(hsk, id);
			return ERR_PTR(sock_intr_errno(timeo));
		}
	}
}

static void homa_fill_addr(struct homa_rpc *rpc, struct msghdr *msg,
			   int *addr_len)
{
	struct in6_addr *addr = &rpc->peer->addr;

	if (!msg->msg_name)
		return;
	if (rpc->hsk->inet.sk.sk_family == AF_INET) {
		DECLARE_SOCKADDR(struct sockaddr_in *, a4, msg->msg_name);

		memset(a4, 0, sizeof(*a4));
		a4->sin_family = AF_INET;
		a4->sin_port = htons(rpc->dport);
		a4->sin_addr.s_addr = addr->s6_addr32[3];
		*addr_len = sizeof(*a4);
	} else {
		DECLARE_SOCKADDR(struct sockaddr_in6 *, a6, msg->msg_name);

		memset(a6, 0, sizeof(*a6));
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(rpc->dport);
		a6->sin6_addr = *addr;
		*addr_len = sizeof(*a6);
	}
}

/* The peer's acks are full: send them to the RPC's server now. */
static void homa_send_acks(struct homa_rpc *rpc)
{
	struct homa_pkt pkt = { .type = ACK };

	homa_peer_take_acks(rpc->peer, &pkt, HOMA_MAX_ACKS_PER_PKT);
	homa_rpc_xmit_control(rpc, &pkt);
}

/*
 * After the copy: fill in the results and move the RPC on (a server RPC
 * waits for its reply, a client RPC ends). Returns the message length or
 * the RPC's error.
 */
static int homa_finish_recv(struct homa_sock *hsk, struct homa_rpc *rpc,
			    int copy_err, struct homa_recvmsg_args *args)
{
	int result;

	spin_lock_bh(&hsk->lock);
	rpc->copying = false;
	args->id = rpc->id;
	args->completion_cookie = homa_is_client(rpc->id) ?
				  rpc->completion_cookie : 0;
	args->num_bpages = 0;
	result = rpc->error ? rpc->error : copy_err;
	if (!result && rpc->state != RPC_DEAD) {
		args->num_bpages = rpc->msgin.num_bpages;
		memcpy(args->bpage_offsets, rpc->msgin.bpage_offsets,
		       sizeof(u32) * args->num_bpages);
		/* The application owns the buffers now. */
		rpc->msgin.num_bpages = 0;
		result = rpc->msgin.length;
	} else if (!result) {
		result = -EINVAL;
	}
	if (rpc->state == RPC_DEAD) {
		/* It ended while we copied: its buffers are ours to free. */
		homa_msgin_release(rpc);
		homa_rpc_free(rpc);
	} else if (!homa_is_client(rpc->id)) {
		rpc->state = RPC_IN_SERVICE;
		homa_rpc_delivered(rpc);
	} else {
		if (!rpc->error &&
		    homa_peer_add_ack(rpc->peer, rpc->id, rpc->dport))
			homa_send_acks(rpc);
		homa_rpc_end(rpc);
	}
	spin_unlock_bh(&hsk->lock);
	return result;
}

/**
 * homa_recvmsg() - Receive a request or response (recvmsg on a Homa
 * socket).
 * @sk: the socket.
 * @msg: msg_control points to struct homa_recvmsg_args.
 * @len: ignored (messages go to the buffer pool).
 * @flags: MSG_DONTWAIT or 0.
 * @addr_len: set to the length of the address stored in msg_name.
 *
 * Return: the message's length, or a negative errno (see recvmsg.2 in
 * man/); when an RPC failed, its id is still returned in the arguments.
 */
int homa_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags,
		 int *addr_len)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_recvmsg_args args;
	struct sk_buff_head packets;
	struct homa_rpc *rpc;
	void __user *uargs;
	int result, err;
	bool copy;

	if (!msg->msg_control_is_user || !msg->msg_control_user ||
	    msg->msg_controllen != sizeof(args))
		return homa_sock_error(hsk, -EINVAL,
				       "recvmsg: msg_control must be homa_recvmsg_args");
	uargs = msg->msg_control_user;
	if (copy_from_user(&args, uargs, sizeof(args)))
		return homa_sock_error(hsk, -EFAULT,
				       "recvmsg: cannot read homa_recvmsg_args");
	if (args.reserved || args.num_bpages > HOMA_MAX_BPAGES ||
	    flags & ~(MSG_DONTWAIT | MSG_CMSG_COMPAT))
		return homa_sock_error(hsk, -EINVAL,
				       "recvmsg: reserved field, num_bpages or flags invalid");
	if (!hsk->pool)
		return homa_sock_error(hsk, -EINVAL,
				       "recvmsg: no buffer region (SO_HOMA_RCVBUF)");
	err = homa_rcvbuf_return(hsk, &args);
	if (args.num_bpages)
		homa_msgin_retry(hsk);
	if (err)
		return homa_sock_error(hsk, err,
				       "recvmsg: a returned bpage is not in use");
	/* Free a little of what ended RPCs left, while in process context. */
	homa_rpc_reap(hsk, homa_cfg(hsk->hnet, reap_limit));
	rpc = homa_wait_ready(hsk, args.id, flags & MSG_DONTWAIT);
	if (IS_ERR(rpc)) {
		/* The buffers are back: a retry must not return them again. */
		if (args.num_bpages) {
			args.num_bpages = 0;
			if (copy_to_user(uargs, &args, sizeof(args)))
				return -EFAULT;
		}
		return PTR_ERR(rpc);
	}
	__skb_queue_head_init(&packets);
	spin_lock_bh(&hsk->lock);
	skb_queue_splice_init(&rpc->msgin.packets, &packets);
	/*
	 * An RPC that failed (perhaps while it waited for buffer space) has
	 * no message to copy: its packets are only freed.
	 */
	copy = !rpc->error && rpc->msgin.num_bpages && !rpc->msgin.copy_err;
	err = rpc->msgin.copy_err;
	spin_unlock_bh(&hsk->lock);
	homa_fill_addr(rpc, msg, addr_len);
	if (!err)
		err = homa_copy_msg(hsk, rpc, &packets, copy);
	else
		homa_copy_msg(hsk, rpc, &packets, false);
	result = homa_finish_recv(hsk, rpc, err, &args);
	if (copy_to_user(uargs, &args, sizeof(args)))
		return -EFAULT;
	return result;
}
