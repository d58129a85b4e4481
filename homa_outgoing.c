// SPDX-License-Identifier: GPL-2.0+
/*
 * Outgoing messages: cutting a message into DATA packets, sending them as
 * grants and the pacer allow, and sending ranges again. A message's
 * packets are kept until the RPC ends so that any range can be sent again;
 * what goes on the wire is always a copy (homa_xmit.c puts it there), of
 * the headers only: message bytes beyond a few hundred sit in page
 * fragments that the copies share. The
 * pacer feeds back into this file through homa_msgout_next() and
 * homa_xmit_data_next(); this file asks it through homa_pacer_admit(),
 * homa_pacer_unsched_window() and homa_pacer_held_lately(). The sendmsg
 * system call above this is homa_sendmsg.c.
 */

#include <net/ip.h>
#include <net/ipv6.h>

#include "homa_impl.h"

/**
 * homa_payload_max() - Most message bytes one DATA packet carries to a
 * peer.
 * @hnet: the namespace's Homa host.
 * @peer: the destination.
 *
 * Return: the payload size for the route's MTU.
 */
u32 homa_payload_max(struct homa_net *hnet, struct homa_peer *peer)
{
	u32 ip = ipv6_addr_v4mapped(&peer->addr) ? sizeof(struct iphdr)
						 : sizeof(struct ipv6hdr);
	struct dst_entry *dst;
	struct flowi fl;
	u32 mtu = 1500;

	dst = homa_peer_dst(hnet, peer, &fl);
	if (dst) {
		mtu = dst_mtu(dst);
		dst_release(dst);
	}
	if (mtu < ip + sizeof(struct homa_data_hdr) + 64)
		mtu = ip + sizeof(struct homa_data_hdr) + 64;
	return mtu - ip - sizeof(struct homa_data_hdr);
}

/*
 * Payloads of at most this many bytes stay in the packet's linear area
 * (a page for a few bytes would waste more than the copy costs); longer
 * ones go into page fragments, which each transmission shares with the
 * stored packet (pskb_copy() copies only the headers).
 */
#define HOMA_LINEAR_PAYLOAD_MAX 512

/*
 * Append @n bytes of @iter to @skb (which has only its header in the
 * linear area) as page fragments, carved one after the other from the
 * task's page fragment (32 KB compound pages, as TCP's sendmsg uses them):
 * consecutive packets share pages, so no byte of a page is allocated (and
 * zeroed, with init_on_alloc) but to be filled, and a fragment that runs
 * out takes a page that freed packets left (homa_txpage.c) before a new
 * one. Returns 0, -ENOMEM or -EFAULT.
 */
static int homa_fill_frags(struct sock *sk, struct sk_buff *skb,
			   struct iov_iter *iter, u32 n)
{
	struct page_frag *pfrag = sk_page_frag(sk);

	while (n > 0) {
		int i = skb_shinfo(skb)->nr_frags;
		u32 len;

		homa_txpages_refill(homa_sk(sk)->hnet, pfrag, 32U);
		if (i >= MAX_SKB_FRAGS ||
		    !skb_page_frag_refill(32U, pfrag, sk->sk_allocation))
			return -ENOMEM;
		len = min_t(u32, n, pfrag->size - pfrag->offset);
		/* Kernel pages are mapped: one copy per fragment. */
		if (copy_from_iter(page_address(pfrag->page) + pfrag->offset,
				   len, iter) != len)
			return -EFAULT;
		skb_fill_page_desc(skb, i, pfrag->page, pfrag->offset, len);
		get_page(pfrag->page);
		pfrag->offset += len;
		skb->len += len;
		skb->data_len += len;
		skb->truesize += len;
		n -= len;
	}
	return 0;
}

/*
 * One stored DATA packet of @n message bytes from @iter: the header's
 * room in the linear area, the bytes after it or in page fragments.
 * Returns the packet or an ERR_PTR (-ENOMEM, -EFAULT).
 */
static struct sk_buff *homa_msgout_pkt(struct sock *sk, struct iov_iter *iter,
				       u32 n)
{
	bool linear = n <= HOMA_LINEAR_PAYLOAD_MAX;
	struct sk_buff *skb;
	int err = -EFAULT;

	skb = alloc_skb(HOMA_SKB_HEADROOM + sizeof(struct homa_data_hdr) +
			(linear ? n : 0), GFP_KERNEL);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	skb_reserve(skb, HOMA_SKB_HEADROOM);
	skb_put(skb, sizeof(struct homa_data_hdr));
	if (linear) {
		if (copy_from_iter(skb_put(skb, n), n, iter) == n)
			return skb;
	} else {
		homa_skb_cb(skb)->tx_pages = true;
		err = homa_fill_frags(sk, skb, iter, n);
		if (!err)
			return skb;
	}
	kfree_skb(skb);
	return ERR_PTR(err);
}

/**
 * homa_msgout_shape() - How a message to a peer is cut into stored DATA
 * packets: the segment size for the route's MTU, and the message bytes of
 * each stored packet (as many whole segments as homa_pace_pkt_max()
 * allows: max_gso_size, within what the link sends in max_nic_queue_ns;
 * no more than HOMA_PACE_PKT_FLOOR while the pacer has waited for the
 * held count lately, homa_pace_pkt_held()).
 * @hsk: the sending socket.
 * @peer: the destination.
 * @shape: filled in; the same for every part of one message.
 */
void homa_msgout_shape(struct homa_sock *hsk, struct homa_peer *peer,
		       struct homa_msgout_shape *shape)
{
	u32 mss = homa_payload_max(hsk->hnet, peer);
	struct homa_pace_params p;
	u32 gso;

	homa_pace_params_read(hsk->hnet, &p);
	gso = homa_pace_pkt_max(&p, homa_cfg(hsk->hnet, max_gso_size));
	gso = homa_pace_pkt_held(gso, homa_pacer_held_lately(hsk->hnet));

	shape->mss = mss;
	shape->chunk = mss;
	if (gso > sizeof(struct homa_data_hdr) + mss)
		shape->chunk = (gso - sizeof(struct homa_data_hdr)) / mss * mss;
	shape->ipv6 = !ipv6_addr_v4mapped(&peer->addr);
}

/**
 * homa_msgout_fill() - Copy part of a message from user space into DATA
 * packets sized for the route to its destination.
 * @hsk: the sending socket; the packets are charged to its transmit
 *       memory until they are freed.
 * @shape: from homa_msgout_shape().
 * @out: an uninitialised list that receives the packets (not yet visible
 *       to anyone else).
 * @iter: the message, at the byte @offset.
 * @offset: the message offset of the first byte, a multiple of
 *          @shape->chunk.
 * @length: bytes to copy (validated by the caller).
 *
 * Headers are written later by homa_msgout_attach() or
 * homa_msgout_append(), which need the RPC. Message bytes beyond a few
 * hundred go into page fragments, so that a transmission copies only the
 * headers. No lock may be held: the copy may fault.
 *
 * Return: 0, -ENOMEM, or -EFAULT (the list is empty then).
 */
int homa_msgout_fill(struct homa_sock *hsk,
		     const struct homa_msgout_shape *shape,
		     struct sk_buff_head *out, struct iov_iter *iter,
		     u32 offset, u32 length)
{
	struct sock *sk = &hsk->inet.sk;
	u32 end = offset + length, n;

	skb_queue_head_init(out);
	for (; offset < end; offset += n) {
		struct sk_buff *skb;

		n = min(shape->chunk, end - offset);
		skb = homa_msgout_pkt(sk, iter, n);
		if (IS_ERR(skb)) {
			skb_queue_purge(out);
			return PTR_ERR(skb);
		}
		/* Kept until the RPC ends: counts against wmem_max. */
		skb_set_owner_w(skb, sk);
		homa_skb_cb(skb)->offset = offset;
		homa_gso_prepare(skb, shape->mss, shape->ipv6);
		__skb_queue_tail(out, skb);
	}
	return 0;
}

/**
 * homa_msgout_append() - Give an RPC more packets of its outgoing message
 * (homa_msgout_fill() of the part after those it has), write their headers
 * and queue them after the others; if every packet before them has been
 * sent, they are the next to send. The caller then calls homa_xmit_data().
 * @rpc: the RPC; the caller holds its socket's lock.
 * @packets: packets from homa_msgout_fill(); emptied.
 */
void homa_msgout_append(struct homa_rpc *rpc, struct sk_buff_head *packets)
{
	struct sk_buff *skb, *first = skb_peek(packets);
	struct homa_msgout *out = &rpc->msgout;
	struct homa_pkt pkt = { .type = DATA };

	lockdep_assert_held(&rpc->hsk->lock);
	if (!first)
		return;
	pkt.sport = rpc->hsk->port;
	pkt.dport = rpc->dport;
	pkt.sender_id = rpc->id;
	pkt.data.message_length = out->length;
	pkt.data.flags = out->flags;
	pkt.data.cutoff_version = READ_ONCE(rpc->peer->cutoff_version);
	homa_metric_add(rpc->hsk->hnet, HOMA_M_skbs_live,
			skb_queue_len(packets));
	skb_queue_walk(packets, skb) {
		pkt.data.offset = homa_skb_cb(skb)->offset;
		pkt.data.incoming = out->granted;
		homa_wire_build(skb->data, sizeof(struct homa_data_hdr), &pkt);
	}
	skb_queue_splice_tail_init(packets, &out->packets);
	if (!out->next_xmit &&
	    out->next_xmit_offset == homa_skb_cb(first)->offset)
		out->next_xmit = first;
}

/**
 * homa_msgout_attach() - Give an RPC its outgoing message and the packets
 * of its first part, and write their headers; homa_msgout_append() adds
 * the others.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @packets: packets from homa_msgout_fill(), from offset 0; emptied.
 * @length: the message's length.
 */
void homa_msgout_attach(struct homa_rpc *rpc, struct sk_buff_head *packets,
			u32 length)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_msgout *out = &rpc->msgout;
	u32 incast_max = homa_cfg(hnet, incast_unsched_bytes);
	u32 share = homa_peer_unsched_share(rpc->peer);
	u32 cut;

	lockdep_assert_held(&rpc->hsk->lock);
	out->length = length;
	out->unscheduled = min_t(u32, length,
				 homa_pacer_unsched_window(hnet));
	cut = homa_srpt_scaled(out->unscheduled, share);
	if (cut < out->unscheduled) {
		out->unscheduled = cut;
		homa_metric_inc(hnet, HOMA_M_unsched_cut_msgs);
	}
	if (rpc->incast && out->unscheduled > incast_max) {
		out->unscheduled = incast_max;
		homa_metric_inc(hnet, HOMA_M_incast_responses);
	}
	out->granted = out->unscheduled;
	out->priority = 0;
	out->resend_prio = 0;
	out->unsched_prio = homa_cutoffs_unsched_prio(rpc->hsk->hnet,
						      rpc->peer, length);
	out->birth = homa_clock_ns();
	out->track = homa_txtrack_new(rpc->hsk->hnet->pacer.host);
	out->next_xmit = NULL;
	out->next_xmit_offset = 0;
	homa_msgout_append(rpc, packets);
}

/*
 * What goes on the wire for stored packet @skb: a clone, which shares
 * everything with it, when no earlier transmission of it is still alive;
 * else a copy of its headers (pskb_copy(), sharing the page fragments).
 * The headers written before each transmission are in the data a clone
 * shares, so only one clone may be out at a time (as TCP's transmissions
 * go); an earlier one may still sit in a queue, or in a receiver on this
 * host that keeps DATA packets until recvmsg copies them.
 */
static struct sk_buff *homa_xmit_data_copy(struct sk_buff *skb)
{
	if (skb_cloned(skb))
		return pskb_copy(skb, GFP_ATOMIC);
	return skb_clone(skb, GFP_ATOMIC);
}

/* Send a copy of one stored DATA packet. */
static void homa_xmit_data_pkt(struct homa_rpc *rpc, struct sk_buff *skb,
			       bool retransmit)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_msgout *out = &rpc->msgout;
	struct homa_data_hdr *h;
	struct homa_pkt acks;
	struct sk_buff *copy;
	bool scheduled;
	int prio, ip;

	copy = homa_xmit_data_copy(skb);
	if (!copy) {
		homa_metric_inc(hnet, HOMA_M_tx_no_memory);
		return;
	}
	h = (struct homa_data_hdr *)copy->data;
	h->incoming = cpu_to_be32(out->granted);
	h->retransmit = retransmit;
	/* Tells the receiver which of its cutoffs this host has. */
	h->cutoff_version = cpu_to_be16(READ_ONCE(rpc->peer->cutoff_version));
	if (homa_peer_take_acks(rpc->peer, &acks, 1)) {
		h->ack.client_id = cpu_to_be64(acks.ack.client_ids[0]);
		h->ack.server_port = cpu_to_be16(acks.ack.server_ports[0]);
	}
	scheduled = homa_skb_cb(skb)->offset >= out->unscheduled;
	if (!scheduled)
		prio = out->unsched_prio;
	else if (retransmit)
		prio = out->resend_prio;
	else
		prio = out->priority;
	prio &= 7;
	ip = homa_prio_data_ip(homa_cfg(hnet, priority_map[prio]),
			       homa_cfg(hnet, sched_ip_priority), scheduled);
	homa_metric_inc(hnet, HOMA_M_data_tx_prio0 + prio);
	if (retransmit || homa_skb_cb(skb)->offset == 0)
		homa_rpc_rtt_sent(rpc, retransmit);
	homa_txtrack_attach(copy, out->track, retransmit);
	out->last_xmit = jiffies;
	homa_xmit_skb(rpc->hsk, rpc->peer, copy, ip);
}

/**
 * homa_msgout_in_host() - Does this host still hold a copy of a packet of
 * the RPC's message that it sent (in a qdisc or device queue)?
 * @rpc: the RPC; the caller holds its socket's lock.
 * @first_only: count only copies of first transmissions, not those sent
 *	again for RESENDs.
 *
 * While it does, the peer's silence is most likely that queue, not loss:
 * the bytes it asks for wait there, and copies sent now would queue
 * behind them. A copy held for timeout_ticks after the last transmission
 * no longer counts (a device that holds packets for ever must not keep an
 * RPC from recovering).
 *
 * Return: true while a copy is held.
 */
bool homa_msgout_in_host(const struct homa_rpc *rpc, bool first_only)
{
	const struct homa_msgout *out = &rpc->msgout;
	u32 ms = homa_cfg(rpc->hsk->hnet, timeout_ticks);

	if (!homa_txtrack_held(out->track, first_only))
		return false;
	return time_before(jiffies, out->last_xmit + msecs_to_jiffies(ms));
}

/*
 * Cut stored packet @skb of @rpc's message after its first @keep message
 * bytes (whole segments, fewer than it carries): a new stored packet,
 * queued right after it, takes the rest; it shares the page fragments
 * and copies the header. Returns false, with nothing changed, where the
 * packet cannot be cut: a transmission of it still shares its fragments
 * (skb_cloned()), its bytes are in its linear area (a short packet), or
 * there is no memory; it then goes whole.
 */
static bool homa_msgout_cut(struct homa_rpc *rpc, struct sk_buff *skb,
			    u32 keep)
{
	const u32 hlen = sizeof(struct homa_data_hdr);
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	struct homa_net *hnet = rpc->hsk->hnet;
	u32 offset = homa_skb_cb(skb)->offset;
	u32 mss = shinfo->gso_size;
	bool ipv6 = shinfo->gso_type & SKB_GSO_TCPV6;
	struct homa_data_hdr *h;
	struct sk_buff *rest;

	lockdep_assert_held(&rpc->hsk->lock);
	if (skb_cloned(skb) || skb_headlen(skb) != hlen)
		return false;
	rest = alloc_skb(HOMA_SKB_HEADROOM + hlen, GFP_ATOMIC);
	if (!rest) {
		homa_metric_inc(hnet, HOMA_M_tx_no_memory);
		return false;
	}
	/* skb_split() sets the length of an empty second part. */
	skb_reserve(rest, HOMA_SKB_HEADROOM + hlen);
	skb_split(skb, rest, hlen + keep);
	h = skb_push(rest, hlen);
	memcpy(h, skb->data, hlen);
	h->seg.offset = cpu_to_be32(offset + keep);
	homa_skb_cb(rest)->offset = offset + keep;
	homa_skb_cb(rest)->length = 0;
	homa_skb_cb(rest)->tx_pages = homa_skb_cb(skb)->tx_pages;
	/* Its fragments stay charged to @skb, which was charged for them. */
	skb_set_owner_w(rest, &rpc->hsk->inet.sk);
	homa_gso_prepare(skb, mss, ipv6);
	homa_gso_prepare(rest, mss, ipv6);
	__skb_queue_after(&rpc->msgout.packets, skb, rest);
	homa_metric_inc(hnet, HOMA_M_skbs_live);
	homa_metric_inc(hnet, HOMA_M_data_splits);
	return true;
}

/*
 * Make stored packet @skb end at the segment that holds message offset
 * @limit (above its first byte), if it reaches more than @slack bytes
 * further: the bytes granted, or the end of a RESEND's range
 * (homa_pace_pkt_cut()).
 */
static void homa_msgout_fit(struct homa_rpc *rpc, struct sk_buff *skb,
			    u32 limit, u32 slack)
{
	u32 bytes = skb->len - sizeof(struct homa_data_hdr);
	u32 keep = homa_pace_pkt_cut(bytes, limit - homa_skb_cb(skb)->offset,
				     skb_shinfo(skb)->gso_size, slack);

	if (keep && keep < bytes)
		homa_msgout_cut(rpc, skb, keep);
}

/**
 * homa_msgout_next() - The next packet of an RPC's message to send; a
 * packet that reaches past the bytes granted by more than
 * grant_overshoot_ns of link time, or past the bytes asked for by the
 * RESEND being answered, is cut first, if it can be (homa_msgout_fit()).
 * @rpc: the RPC; the caller holds its socket's lock.
 *
 * Return: the first packet not yet sent if it is granted, else NULL.
 */
static struct sk_buff *homa_msgout_next(struct homa_rpc *rpc)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_msgout *out = &rpc->msgout;
	struct sk_buff *skb = out->next_xmit;

	lockdep_assert_held(&rpc->hsk->lock);
	if (out->resend_next) {
		homa_msgout_fit(rpc, out->resend_next, out->resend_end, 0);
		return out->resend_next;
	}
	if (!skb || homa_skb_cb(skb)->offset >= out->granted)
		return NULL;
	homa_msgout_fit(rpc, skb, out->granted,
			homa_pace_pkt_slack(homa_cfg(hnet, grant_overshoot_ns),
					    homa_cfg(hnet, link_mbps)));
	return skb;
}

/**
 * homa_msgout_left() - Bytes of an RPC's message not yet sent once @skb
 * (from homa_msgout_next()) is, which ranks it in the pacer's SRPT order.
 * A retransmission leaves what is not sent unchanged.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @skb: the packet about to be sent.
 *
 * Return: the bytes.
 */
static u32 homa_msgout_left(const struct homa_rpc *rpc, struct sk_buff *skb)
{
	const struct homa_msgout *out = &rpc->msgout;

	if (skb == out->resend_next)
		return out->length - out->next_xmit_offset;
	return out->length - homa_skb_cb(skb)->offset - skb->len +
	       sizeof(struct homa_data_hdr);
}

/**
 * homa_msgout_is_resend() - Is @skb (from homa_msgout_next()) sent again
 * for a RESEND rather than for the first time?
 * @rpc: the RPC; the caller holds its socket's lock.
 * @skb: the packet.
 *
 * Return: true for a retransmission.
 */
static bool homa_msgout_is_resend(const struct homa_rpc *rpc,
				  const struct sk_buff *skb)
{
	return skb == rpc->msgout.resend_next;
}

/**
 * homa_msgout_peek() - What the pacer needs to know of the next packet of
 * an RPC's message (homa_xmit_data_next() sends it).
 * @rpc: the RPC; the caller holds its socket's lock.
 * @pk: filled in when there is a packet to send.
 *
 * Return: true if a packet is granted and not yet sent (or asked for
 * again by a RESEND).
 */
bool homa_msgout_peek(struct homa_rpc *rpc, struct homa_msgout_peek *pk)
{
	pk->skb = homa_msgout_next(rpc);
	if (!pk->skb)
		return false;
	pk->left = homa_msgout_left(rpc, pk->skb);
	pk->unsched = !homa_msgout_is_resend(rpc, pk->skb) &&
		      homa_skb_cb(pk->skb)->offset < rpc->msgout.unscheduled;
	return true;
}

/*
 * A RESEND asks for bytes from @start on, within stored packet *@skb:
 * cut off the whole segments in front of them, which arrived, and point
 * *@skb at the packet that starts with the rest (homa_pace_pkt_skip()).
 */
static void homa_resend_skip(struct homa_rpc *rpc, struct sk_buff **skb,
			     u32 start)
{
	u32 offset = homa_skb_cb(*skb)->offset;
	u32 skip;

	if (start <= offset)
		return;
	skip = homa_pace_pkt_skip(start - offset,
				  skb_shinfo(*skb)->gso_size);
	if (skip && homa_msgout_cut(rpc, *skb, skip))
		*skb = (*skb)->next;
}

/*
 * Point resend_next at the first packet of the lowest queued RESEND range
 * that is not below @from, searching from @skb on (NULL: from the first
 * packet); NULL when no range is left.
 */
static void homa_resend_next_range(struct homa_rpc *rpc, struct sk_buff *skb,
				   u32 from)
{
	struct homa_msgout *out = &rpc->msgout;
	struct homa_gap r;

	out->resend_next = NULL;
	if (!skb)
		skb = skb_peek(&out->packets);
	while (skb && homa_rangeq_pop(&out->resend_q, from, &r)) {
		r.end = min(r.end, out->next_xmit_offset);
		for (; skb; skb = skb_queue_is_last(&out->packets, skb) ?
				  NULL : skb->next) {
			u32 offset = homa_skb_cb(skb)->offset;

			if (offset >= r.end)
				break;
			if (offset + skb->len - sizeof(struct homa_data_hdr) >
			    r.start) {
				homa_resend_skip(rpc, &skb, r.start);
				out->resend_next = skb;
				out->resend_end = r.end;
				return;
			}
		}
	}
}

/* Send the next packet a RESEND asked for, and move on past it. */
static void homa_xmit_resend_next(struct homa_rpc *rpc)
{
	struct homa_msgout *out = &rpc->msgout;
	struct sk_buff *skb = out->resend_next;
	struct sk_buff *next;
	u32 sent_end;

	homa_xmit_data_pkt(rpc, skb, true);
	homa_metric_inc(rpc->hsk->hnet, HOMA_M_data_resent);
	sent_end = homa_skb_cb(skb)->offset + skb->len -
		   sizeof(struct homa_data_hdr);
	next = skb_queue_is_last(&out->packets, skb) ? NULL : skb->next;
	if (next && homa_skb_cb(next)->offset < out->resend_end &&
	    homa_skb_cb(next)->offset < out->next_xmit_offset) {
		out->resend_next = next;
		return;
	}
	/* This range is done: on to the next one above what went out. */
	homa_resend_next_range(rpc, next, sent_end);
}

/**
 * homa_xmit_data_next() - Send the packet homa_msgout_next() gives, which
 * the pacer has admitted, and move on to the next one.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_xmit_data_next(struct homa_rpc *rpc)
{
	struct homa_msgout *out = &rpc->msgout;
	struct sk_buff *skb = homa_msgout_next(rpc);

	if (!skb)
		return;
	if (skb == out->resend_next) {
		homa_xmit_resend_next(rpc);
		return;
	}
	homa_xmit_data_pkt(rpc, skb, false);
	out->next_xmit_offset = homa_skb_cb(skb)->offset + skb->len -
				sizeof(struct homa_data_hdr);
	out->next_xmit = skb_queue_is_last(&out->packets, skb) ?
			 NULL : skb->next;
}

/**
 * homa_xmit_data() - Send the packets of an RPC's message that are
 * granted and not yet sent, as far as the pacer lets them go now; the
 * pacer sends the rest later.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_xmit_data(struct homa_rpc *rpc)
{
	struct homa_msgout_peek pk;

	lockdep_assert_held(&rpc->hsk->lock);
	while (homa_msgout_peek(rpc, &pk)) {
		if (!homa_pacer_admit(rpc, &pk))
			return;
		homa_xmit_data_next(rpc);
	}
}

/*
 * Mark the packets of [@start, @end), already sent, to be sent again;
 * homa_xmit_data() (or the pacer) sends them, before any fresh packet,
 * lowest range first. A range asked for while others wait joins them in
 * the queue (homa_rangeq_add()): repeated RESENDs for bytes still waiting
 * add no copies, and the bytes between two ranges, which arrived, are not
 * sent again.
 */
static void homa_resend_data(struct homa_rpc *rpc, u32 start, u32 end)
{
	struct homa_msgout *out = &rpc->msgout;

	lockdep_assert_held(&rpc->hsk->lock);
	end = min(end, out->next_xmit_offset);
	if (start >= end)
		return;
	if (out->resend_next)
		homa_rangeq_add(&out->resend_q,
				homa_skb_cb(out->resend_next)->offset,
				out->resend_end);
	homa_rangeq_add(&out->resend_q, start, end);
	homa_resend_next_range(rpc, NULL, 0);
}

/**
 * homa_msgout_grant() - A GRANT arrived: the receiver lets us send every
 * byte below @offset, at level @priority.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @offset: the granted offset.
 * @priority: the level for the granted bytes.
 */
void homa_msgout_grant(struct homa_rpc *rpc, u32 offset, u8 priority)
{
	struct homa_msgout *out = &rpc->msgout;

	lockdep_assert_held(&rpc->hsk->lock);
	if (offset <= out->granted)
		return;
	out->granted = min_t(u32, offset, out->length);
	out->priority = priority;
	homa_xmit_data(rpc);
}

/**
 * homa_msgout_resend() - A RESEND arrived: send the range again (through
 * the pacer). It also grants the range, since a GRANT may have been lost.
 * A sender with nothing to send yet, or asked only for bytes it has not
 * sent, says BUSY; so does one whose host still holds copies of the
 * message's first transmissions (homa_msgout_in_host()): what is asked for
 * most likely waits in that queue, and another copy would only wait behind
 * it. Copies sent again for RESENDs do not count: a receiver asks for
 * several ranges at once, one RESEND each, and the first range's copies
 * must not turn the others away (which also doubled the receiver's
 * interval once for each of them).
 * @rpc: the RPC; the caller holds its socket's lock.
 * @offset: first byte asked for.
 * @length: bytes asked for, or HOMA_RESEND_ALL.
 * @priority: the level to send them at (fresh bytes keep the grant's).
 */
void homa_msgout_resend(struct homa_rpc *rpc, u32 offset, u32 length,
			u8 priority)
{
	struct homa_msgout *out = &rpc->msgout;
	u32 end;

	lockdep_assert_held(&rpc->hsk->lock);
	if (out->length < 0 || rpc->state == RPC_IN_SERVICE) {
		homa_rpc_xmit_busy(rpc);
		return;
	}
	/* The receiver still works on the message: not stalled. */
	homa_probe_progress(&rpc->probe);
	if (length == HOMA_RESEND_ALL)
		end = out->next_xmit_offset;
	else
		end = offset + min_t(u32, length, out->length);
	end = min_t(u32, end, out->length);
	out->resend_prio = priority;
	if (homa_msgout_in_host(rpc, true)) {
		homa_metric_inc(rpc->hsk->hnet, HOMA_M_resend_in_host);
		if (end > out->granted) {
			out->granted = end;
			homa_xmit_data(rpc);
		}
		homa_rpc_xmit_busy(rpc);
		return;
	}
	homa_resend_data(rpc, offset, end);
	if (end > out->granted)
		out->granted = end;
	else if (offset >= out->next_xmit_offset)
		homa_rpc_xmit_busy(rpc);
	homa_xmit_data(rpc);
}

/**
 * homa_msgout_restart() - Start sending a message from its first byte
 * again (the receiver lost all knowledge of it).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_msgout_restart(struct homa_rpc *rpc)
{
	struct homa_msgout *out = &rpc->msgout;

	lockdep_assert_held(&rpc->hsk->lock);
	out->next_xmit = skb_peek(&out->packets);
	out->next_xmit_offset = 0;
	out->resend_next = NULL;
	out->resend_q.n = 0;
	out->granted = out->unscheduled;
	/* Sending again: no RTT sample from this message (Karn). */
	rpc->rtt_start = 0;
	rpc->rtt_done = true;
	homa_xmit_data(rpc);
}
