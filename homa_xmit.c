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
#include <net/ip.h>
#include <net/ipv6.h>

#include "homa_impl.h"

/**
 * struct homa_txtrack - the DATA copies of one outgoing message that this
 * host has handed to IP and not yet let go of. Each such copy carries the
 * destructor homa_txtrack_skb_done(), which the stack runs when the copy
 * leaves the host (a NIC completes it, a veth or loopback device passes it
 * on, IP receive orphans it) or is dropped, wherever it waits meanwhile
 * (a qdisc, a device queue, software segmentation). It holds no pointer
 * into the RPC, the socket or the namespace: it may outlive all three.
 */
struct homa_txtrack {
	/** @refs: the RPC's reference plus one per copy it tracks. */
	refcount_t refs;

	/**
	 * @held: copies not yet let go of: [0] of packets sent for the first
	 * time, [1] of packets sent again for a RESEND.
	 */
	atomic_t held[2];
};

/*
 * Trackers not yet freed. Once every namespace is gone, only copies still
 * in the stack hold any, and each will call into this module's text:
 * module exit waits for this to reach 0.
 */
static atomic_long_t homa_txtrack_live = ATOMIC_LONG_INIT(0);

/**
 * homa_txtrack_new() - A tracker for a message's copies, with one
 * reference for the caller.
 *
 * Return: the tracker, or NULL without memory (the message is then not
 * tracked, and homa_txtrack_held() says so).
 */
struct homa_txtrack *homa_txtrack_new(void)
{
	struct homa_txtrack *t = kmalloc(sizeof(*t), GFP_ATOMIC);

	if (!t)
		return NULL;
	refcount_set(&t->refs, 1);
	atomic_set(&t->held[0], 0);
	atomic_set(&t->held[1], 0);
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
		kfree(t);
		atomic_long_dec(&homa_txtrack_live);
	}
}

/* The host let go of a tracked copy counted in @t->held[@i]. */
static void homa_txtrack_done(struct sk_buff *skb, int i)
{
	struct homa_txtrack *t = skb_shinfo(skb)->destructor_arg;

	/* Module exit waits for a grace period after the last of these. */
	rcu_read_lock();
	atomic_dec(&t->held[i]);
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

/**
 * homa_txtrack_attach() - Make a copy about to be handed to IP one of
 * those a tracker counts.
 * @skb: the copy; it has no destructor (it is no socket's memory).
 * @t: the tracker, or NULL (nothing is tracked).
 * @resent: the copy is a retransmission (counted apart).
 */
void homa_txtrack_attach(struct sk_buff *skb, struct homa_txtrack *t,
			 bool resent)
{
	if (!t)
		return;
	refcount_inc(&t->refs);
	atomic_inc(&t->held[resent]);
	skb_shinfo(skb)->destructor_arg = t;
	skb->destructor = resent ? homa_txtrack_skb_done_resent :
				   homa_txtrack_skb_done;
}

/**
 * homa_txtrack_copy() - A tracked packet is cut into segments: each
 * segment is held as well (the original is let go of when it is freed).
 * @from: the packet being segmented.
 * @segs: its segments, a list linked by ->next; none has a destructor.
 */
void homa_txtrack_copy(struct sk_buff *from, struct sk_buff *segs)
{
	struct homa_txtrack *t = skb_shinfo(from)->destructor_arg;
	bool resent = from->destructor == homa_txtrack_skb_done_resent;
	struct sk_buff *seg;

	if (!resent && from->destructor != homa_txtrack_skb_done)
		return;
	for (seg = segs; seg; seg = seg->next)
		if (!seg->destructor)
			homa_txtrack_attach(seg, t, resent);
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
