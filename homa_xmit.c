// SPDX-License-Identifier: GPL-2.0+
/*
 * Packet output, the lowest layer of the send side: putting a packet whose
 * Homa header is built on the wire through the IPv4 or IPv6 output path
 * (priority to TOS, the peer's cached route, checksum set-up for GSO),
 * building and sending control packets, and counting what skips the
 * pacer in the NIC-queue estimate, and knowing which DATA copies this host
 * still holds (struct homa_txtrack). Everything that sends calls down into
 * this file; it calls nothing of Homa's above it.
 */

#include <linux/delay.h>
#include <linux/kthread.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "homa_impl.h"

/**
 * struct homa_txhost - the DATA copies that one host (namespace) has
 * handed to IP and not yet let go of, all its messages together, in
 * HOMA_PACE_HELD_UNIT units (homa_pace_held_weight()). The pacer holds
 * paced packets back while the count is at pacer_held_max_kb. Like the
 * trackers, it may outlive its namespace: copies still in the stack keep
 * it alive.
 */
struct homa_txhost {
	/** @refs: the namespace's reference plus one per tracker. */
	refcount_t refs;

	/** @held: the count. */
	atomic_t held;

	/** @freed: units let go of, ever (the drain the pacer learns). */
	atomic_long_t freed;

	/** @empties: times a copy let go of left the count at nothing. */
	atomic_t empties;

	/**
	 * @limit: the pacer's limit when it last waited for room (0:
	 * it never did); a copy let go of wakes @wait as the count falls
	 * below it.
	 */
	atomic_t limit;

	/** @wait: the pacer thread waits here for room. */
	wait_queue_head_t wait;
};

/**
 * struct homa_txtrack - the DATA copies of one outgoing message that this
 * host has handed to IP and not yet let go of. Each such copy carries the
 * destructor homa_txtrack_skb_done(), which the stack runs when the copy
 * leaves the host (a NIC completes it, loopback passes it on, IP receive
 * orphans it: a veth keeps the hold, so through one it ends in the
 * receiving host) or is dropped, wherever it waits meanwhile
 * (a qdisc, a device queue, software segmentation). It holds no pointer
 * into the RPC, the socket or the namespace: it may outlive all three.
 * A copy's destructor_arg is the tracker's address plus what the copy
 * counts for in the host's count (the low bits, free because trackers
 * are HOMA_TXTRACK_SIZE bytes, which kmalloc() aligns to their size).
 */
struct homa_txtrack {
	/** @refs: the RPC's reference plus one per copy it tracks. */
	refcount_t refs;

	/**
	 * @held: copies not yet let go of: [0] of packets sent for the first
	 * time, [1] of packets sent again for a RESEND.
	 */
	atomic_t held[2];

	/** @host: the host's count, or NULL; the tracker holds a reference. */
	struct homa_txhost *host;
};

/* A tracker's allocation: a power of two, above the weight bits. */
#define HOMA_TXTRACK_SIZE 256
#define HOMA_TXTRACK_WEIGHT_MASK ((unsigned long)HOMA_PACE_HELD_WEIGHT_MAX)

/*
 * Trackers not yet freed. Once every namespace is gone, only copies still
 * in the stack hold any, and each will call into this module's text:
 * module exit waits for this to reach 0.
 */
static atomic_long_t homa_txtrack_live = ATOMIC_LONG_INIT(0);

/**
 * homa_txhost_new() - A host's count of held DATA, with one reference for
 * the caller (the namespace).
 *
 * Return: the count, or NULL without memory (nothing is then counted and
 * the pacer never waits for it).
 */
struct homa_txhost *homa_txhost_new(void)
{
	struct homa_txhost *h = kmalloc(sizeof(*h), GFP_KERNEL);

	if (!h)
		return NULL;
	refcount_set(&h->refs, 1);
	atomic_set(&h->held, 0);
	atomic_long_set(&h->freed, 0);
	atomic_set(&h->empties, 0);
	atomic_set(&h->limit, 0);
	init_waitqueue_head(&h->wait);
	return h;
}

/**
 * homa_txhost_put() - Drop a reference to a host's count.
 * @h: the count, or NULL.
 */
void homa_txhost_put(struct homa_txhost *h)
{
	if (h && refcount_dec_and_test(&h->refs))
		kfree(h);
}

/**
 * homa_txhost_held() - How much DATA the host holds.
 * @h: the host's count, or NULL.
 *
 * Return: HOMA_PACE_HELD_UNIT units; 0 without a count.
 */
u32 homa_txhost_held(struct homa_txhost *h)
{
	int held = h ? atomic_read(&h->held) : 0;

	return held > 0 ? held : 0;
}

/**
 * homa_txhost_drained() - How much DATA the host has let go of, ever.
 * @h: the host's count, or NULL.
 * @empties: set to the times the host's count fell to nothing.
 *
 * Return: HOMA_PACE_HELD_UNIT units; 0 without a count.
 */
u64 homa_txhost_drained(struct homa_txhost *h, u32 *empties)
{
	*empties = h ? atomic_read(&h->empties) : 0;
	return h ? atomic_long_read(&h->freed) : 0;
}

/**
 * homa_txhost_wait() - Sleep until the host holds less than @limit units
 * of DATA, @timeout jiffies pass, or the calling kthread is to stop.
 * @h: the host's count, or NULL (then no sleep).
 * @limit: the pacer's limit, HOMA_PACE_HELD_UNIT units (not 0).
 * @timeout: most jiffies to sleep; a wake-up can only be missed if
 *           @limit changes meanwhile.
 */
void homa_txhost_wait(struct homa_txhost *h, u32 limit, long timeout)
{
	if (!h)
		return;
	atomic_set(&h->limit, limit);
	wait_event_interruptible_timeout(h->wait,
					 homa_txhost_held(h) < limit ||
					 kthread_should_stop(), timeout);
}

/**
 * homa_txtrack_new() - A tracker for a message's copies, with one
 * reference for the caller.
 * @host: the count of the host the message leaves from, or NULL.
 *
 * Return: the tracker, or NULL without memory (the message is then not
 * tracked, and homa_txtrack_held() says so).
 */
struct homa_txtrack *homa_txtrack_new(struct homa_txhost *host)
{
	struct homa_txtrack *t;

	BUILD_BUG_ON(sizeof(*t) > HOMA_TXTRACK_SIZE);
	BUILD_BUG_ON(HOMA_TXTRACK_WEIGHT_MASK >= HOMA_TXTRACK_SIZE);
	t = kmalloc(HOMA_TXTRACK_SIZE, GFP_ATOMIC);
	if (!t)
		return NULL;
	if (WARN_ON_ONCE((unsigned long)t & HOMA_TXTRACK_WEIGHT_MASK)) {
		kfree(t);
		return NULL;
	}
	refcount_set(&t->refs, 1);
	atomic_set(&t->held[0], 0);
	atomic_set(&t->held[1], 0);
	t->host = host;
	if (host)
		refcount_inc(&host->refs);
	atomic_long_inc(&homa_txtrack_live);
	return t;
}

/**
 * homa_txtrack_put() - Drop a reference to a tracker.
 * @t: the tracker, or NULL.
 */
void homa_txtrack_put(struct homa_txtrack *t)
{
	if (t && refcount_dec_and_test(&t->refs)) {
		homa_txhost_put(t->host);
		kfree(t);
		atomic_long_dec(&homa_txtrack_live);
	}
}

/* The tracker and the weight a tracked copy carries. */
static struct homa_txtrack *homa_txtrack_of(struct sk_buff *skb, u32 *weight)
{
	unsigned long arg = (unsigned long)skb_shinfo(skb)->destructor_arg;

	*weight = arg & HOMA_TXTRACK_WEIGHT_MASK;
	return (struct homa_txtrack *)(arg & ~HOMA_TXTRACK_WEIGHT_MASK);
}

/*
 * The host let go of a tracked copy counted in @t->held[@i]; wake the
 * pacer if the host's count falls below the limit it waits for.
 */
static void homa_txtrack_done(struct sk_buff *skb, int i)
{
	struct homa_txhost *h;
	struct homa_txtrack *t;
	u32 weight, limit;
	int held;

	t = homa_txtrack_of(skb, &weight);
	/* Module exit waits for a grace period after the last of these. */
	rcu_read_lock();
	atomic_dec(&t->held[i]);
	h = t->host;
	if (h && weight) {
		held = atomic_sub_return(weight, &h->held);
		atomic_long_add(weight, &h->freed);
		if (held <= 0)
			atomic_inc(&h->empties);
		limit = atomic_read(&h->limit);
		if (held < (int)limit && held + (int)weight >= (int)limit)
			wake_up(&h->wait);
	}
	homa_txtrack_put(t);
	rcu_read_unlock();
}

/* The destructor of a tracked copy of a first transmission. */
static void homa_txtrack_skb_done(struct sk_buff *skb)
{
	homa_txtrack_done(skb, 0);
}

/* The destructor of a tracked copy of a retransmission. */
static void homa_txtrack_skb_done_resent(struct sk_buff *skb)
{
	homa_txtrack_done(skb, 1);
}

/* Track @skb with weight @weight in the host's count. */
static void __homa_txtrack_attach(struct sk_buff *skb, struct homa_txtrack *t,
				  bool resent, u32 weight)
{
	refcount_inc(&t->refs);
	atomic_inc(&t->held[resent]);
	if (t->host && weight)
		atomic_add(weight, &t->host->held);
	skb_shinfo(skb)->destructor_arg = (void *)((unsigned long)t | weight);
	skb->destructor = resent ? homa_txtrack_skb_done_resent :
				   homa_txtrack_skb_done;
}

/**
 * homa_txtrack_attach() - Make a copy about to be handed to IP one of
 * those a tracker counts.
 * @skb: the copy, data at its Homa header; it has no destructor (it is no
 *       socket's memory).
 * @t: the tracker, or NULL (nothing is tracked).
 * @resent: the copy is a retransmission (counted apart).
 *
 * The host's count grows by homa_pace_held_weight() of the copy's length
 * until the copy is let go of.
 */
void homa_txtrack_attach(struct sk_buff *skb, struct homa_txtrack *t,
			 bool resent)
{
	if (t)
		__homa_txtrack_attach(skb, t, resent,
				      homa_pace_held_weight(skb->len));
}

/**
 * homa_txtrack_copy() - A tracked packet is cut into segments (in
 * software: by a qdisc such as tbf, or for a device without GSO): each
 * segment is held as well, and counts its own length in the host's count;
 * the original is let go of when it is freed, just after. What the
 * original counted is taken off the host's total let go of now, so that
 * the total counts the segments alone (the drain rate the pacer learns).
 * @from: the packet being segmented.
 * @segs: its segments, a list linked by ->next, none with a destructor;
 *        each one's length, here, is its payload.
 */
void homa_txtrack_copy(struct sk_buff *from, struct sk_buff *segs)
{
	bool resent = from->destructor == homa_txtrack_skb_done_resent;
	struct homa_txtrack *t;
	struct sk_buff *seg;
	u32 weight;

	if (!resent && from->destructor != homa_txtrack_skb_done)
		return;
	t = homa_txtrack_of(from, &weight);
	for (seg = segs; seg; seg = seg->next)
		if (!seg->destructor)
			__homa_txtrack_attach(seg, t, resent,
					      homa_pace_held_weight(seg->len));
	if (t->host && weight)
		atomic_long_sub(weight, &t->host->freed);
}

/**
 * homa_txtrack_held() - Does this host still hold a copy that @t tracks?
 * @t: the tracker, or NULL.
 * @first_only: count only copies of first transmissions.
 *
 * Return: true if such a copy is in a queue or device of this host.
 */
bool homa_txtrack_held(const struct homa_txtrack *t, bool first_only)
{
	if (!t)
		return false;
	return atomic_read(&t->held[0]) > 0 ||
	       (!first_only && atomic_read(&t->held[1]) > 0);
}

/**
 * homa_txtrack_wait_all() - Wait until no packet in the stack carries a
 * destructor of this module (module exit, after every namespace is gone).
 */
void homa_txtrack_wait_all(void)
{
	while (atomic_long_read(&homa_txtrack_live) > 0)
		msleep(20);
	/* The last destructor may still be returning. */
	synchronize_rcu();
}

static enum homa_metric homa_tx_metric(u8 type)
{
	switch (type) {
	case DATA:
		return HOMA_M_pkts_tx_data;
	case GRANT:
		return HOMA_M_pkts_tx_grant;
	case RESEND:
		return HOMA_M_pkts_tx_resend;
	case RPC_UNKNOWN:
		return HOMA_M_pkts_tx_rpc_unknown;
	case BUSY:
		return HOMA_M_pkts_tx_busy;
	case NEED_ACK:
		return HOMA_M_pkts_tx_need_ack;
	case CUTOFFS:
		return HOMA_M_pkts_tx_cutoffs;
	default:
		return HOMA_M_pkts_tx_ack;
	}
}

/**
 * homa_xmit_skb() - Send one packet whose Homa header is built.
 * @hsk: the sending socket.
 * @peer: the destination host.
 * @skb: the packet, data at the Homa header; always consumed.
 * @ip_priority: the IP priority (0-7; the top 3 bits of the TOS), from
 *               priority_map or homa_prio_data_ip().
 */
void homa_xmit_skb(struct homa_sock *hsk, struct homa_peer *peer,
		   struct sk_buff *skb, int ip_priority)
{
	struct sock *sk = &hsk->inet.sk;
	struct homa_net *hnet = hsk->hnet;
	struct dst_entry *dst;
	struct flowi fl;
	int tos = (ip_priority & 7) << 5;
	int err;

	homa_metric_inc(hnet, homa_tx_metric(((struct homa_common_hdr *)
					      skb->data)->type));
	dst = homa_peer_dst(hnet, peer, &fl);
	if (!dst) {
		homa_metric_inc(hnet, HOMA_M_tx_no_route);
		kfree_skb(skb);
		return;
	}
	skb_dst_set(skb, dst);
	skb_reset_transport_header(skb);
	if (skb_is_gso(skb)) {
		/*
		 * Segmentation (in software or by a NIC) treats the common
		 * header as TCP's and fills its checksum field, which Homa
		 * does not use; the stack wants CHECKSUM_PARTIAL for that.
		 */
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct homa_common_hdr, checksum);
	} else {
		skb->ip_summed = CHECKSUM_NONE;
	}
	if (ipv6_addr_v4mapped(&peer->addr))
		err = __ip_queue_xmit(sk, skb, &fl, tos);
	else
		err = ip6_xmit(sk, skb, &fl.u.ip6, sk->sk_mark, NULL, tos,
			       sk->sk_priority);
	/* Counted above as sent; congestion notification is no drop. */
	if (unlikely(net_xmit_eval(err)))
		homa_metric_inc(hnet, HOMA_M_tx_stack_drops);
}

/**
 * homa_xmit_control() - Send a control packet.
 * @hsk: the sending socket.
 * @peer: the destination host.
 * @pkt: the packet; its sport is filled in from @hsk.
 */
void homa_xmit_control(struct homa_sock *hsk, struct homa_peer *peer,
		       struct homa_pkt *pkt)
{
	struct sk_buff *skb = alloc_skb(HOMA_SKB_HEADROOM + HOMA_MAX_HEADER,
					GFP_ATOMIC);
	u32 len;

	if (!skb) {
		homa_metric_inc(hsk->hnet, HOMA_M_tx_no_memory);
		return;
	}
	skb_reserve(skb, HOMA_SKB_HEADROOM);
	pkt->sport = hsk->port;
	len = homa_wire_build(skb_put(skb, HOMA_MAX_HEADER), HOMA_MAX_HEADER,
			      pkt);
	skb_trim(skb, len);
	/* Control packets skip the pacer but fill the NIC queue too. */
	homa_xmit_account(hsk->hnet, len + (ipv6_addr_v4mapped(&peer->addr) ?
					    sizeof(struct iphdr) :
					    sizeof(struct ipv6hdr)));
	homa_xmit_skb(hsk, peer, skb,
		      homa_cfg(hsk->hnet,
			       priority_map[HOMA_MAX_PRIORITIES - 1]));
}

/**
 * homa_rpc_xmit_control() - Send a control packet about an RPC.
 * @rpc: the RPC; its peer, port and id address the packet.
 * @pkt: the packet's type and body.
 */
void homa_rpc_xmit_control(struct homa_rpc *rpc, struct homa_pkt *pkt)
{
	pkt->dport = rpc->dport;
	pkt->sender_id = rpc->id;
	homa_xmit_control(rpc->hsk, rpc->peer, pkt);
}

/**
 * homa_rpc_xmit_busy() - Tell an RPC's peer that we are alive but have
 * nothing for it now (BUSY).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_rpc_xmit_busy(struct homa_rpc *rpc)
{
	struct homa_pkt busy = { .type = BUSY };

	lockdep_assert_held(&rpc->hsk->lock);
	homa_rpc_xmit_control(rpc, &busy);
}

/**
 * homa_xmit_pkt_bytes() - What a stored DATA packet costs the NIC.
 * @rpc: the RPC the packet belongs to.
 * @skb: the packet (data at its Homa header), perhaps a GSO packet.
 *
 * Return: the length to account with homa_pace_sent().
 */
u32 homa_xmit_pkt_bytes(struct homa_rpc *rpc, struct sk_buff *skb)
{
	bool ipv4 = ipv6_addr_v4mapped(&rpc->peer->addr);
	u32 hdr = sizeof(struct homa_data_hdr) +
		  (ipv4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr));
	u32 segs = skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;

	return homa_pace_pkt_bytes(skb->len - sizeof(struct homa_data_hdr),
				   segs, hdr);
}

/**
 * homa_xmit_account() - Account for a packet that skips the pacer (a
 * control packet or a retransmission) in the NIC queue estimate, which
 * the pacer keeps (struct homa_pacer).
 * @hnet: the namespace's Homa host.
 * @bytes: length of the IP packet(s), as homa_pace_sent() takes it.
 */
void homa_xmit_account(struct homa_net *hnet, u32 bytes)
{
	struct homa_pacer *pacer = &hnet->pacer;
	struct homa_pace_params p;
	u64 now;

	homa_pace_params_read(hnet, &p);
	spin_lock_bh(&pacer->lock);
	now = homa_clock_ns();
	homa_pace_sent(&pacer->state, &p, now, bytes);
	spin_unlock_bh(&pacer->lock);
}
