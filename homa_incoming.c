// SPDX-License-Identifier: GPL-2.0+
/*
 * The receive side: the IPv4/IPv6 protocol handlers that
 * take every Homa packet in softirq context, validate it with the parser,
 * count it, and hand it to the socket it is for. Packets that cannot be
 * used are dropped, each reason with its own counter. Also the incoming
 * message's own mechanics: starting it, giving it buffers when some come
 * back, and asking its sender for what is missing (RESEND, and the answer
 * to a NEED_ACK), which the timer and the receive path both use.
 */

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <net/dsfield.h>
#include <net/icmp.h>
#include <net/xfrm.h>

#include "homa_impl.h"

/* Map a packet type to its receive counter. */
static enum homa_metric homa_rx_metric(u8 type)
{
	switch (type) {
	case DATA:
		return HOMA_M_pkts_rx_data;
	case GRANT:
		return HOMA_M_pkts_rx_grant;
	case RESEND:
		return HOMA_M_pkts_rx_resend;
	case RPC_UNKNOWN:
		return HOMA_M_pkts_rx_rpc_unknown;
	case BUSY:
		return HOMA_M_pkts_rx_busy;
	case CUTOFFS:
		return HOMA_M_pkts_rx_cutoffs;
	case NEED_ACK:
		return HOMA_M_pkts_rx_need_ack;
	default:
		return HOMA_M_pkts_rx_ack;
	}
}

/* Why a packet the parser refused is dropped. */
static enum homa_metric homa_parse_drop_reason(struct sk_buff *skb, int err,
					       u8 type)
{
	if (err == -EPROTONOSUPPORT)
		return HOMA_M_drop_unknown_type;
	if (skb->len < sizeof(struct homa_common_hdr) ||
	    skb->len < homa_wire_header_length(type))
		return HOMA_M_drop_short;
	return HOMA_M_drop_malformed;
}

/**
 * homa_msgin_advance() - Grant more of an incoming message, or hand it to
 * recvmsg if it is complete and has its buffers.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_msgin_advance(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	homa_grant_update(rpc);
	if (homa_gaps_complete(&rpc->msgin.gaps) && rpc->msgin.num_bpages) {
		homa_msgin_uncharge(rpc);
		homa_rpc_ready(rpc);
	}
}

/**
 * homa_msgin_copy_offer() - Offer an incomplete message's packets to a
 * thread waiting in recvmsg once they make a batch (copy_batch), so that
 * it copies them into the message's buffers while the rest arrives; the
 * message is then returned soon after its last packet lands, and each
 * wakeup buys a batch of copying, not a packet's.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_msgin_copy_offer(struct homa_rpc *rpc)
{
	struct homa_msgin *in = &rpc->msgin;
	struct homa_sock *hsk = rpc->hsk;

	lockdep_assert_held(&hsk->lock);
	if (rpc->copying || rpc->ready || rpc->state != RPC_INCOMING ||
	    !in->num_bpages || !list_empty(&rpc->copy_links))
		return;
	if (!homa_pool_copy_due(in->queued, in->gaps.bytes_remaining,
				homa_cfg(hsk->hnet, copy_batch), in->pkt_max))
		return;
	list_add_tail(&rpc->copy_links, &hsk->copy_rpcs);
	WRITE_ONCE(hsk->ready_gen, hsk->ready_gen + 1);
	hsk->inet.sk.sk_data_ready(&hsk->inet.sk);
}

/**
 * homa_msgin_copied() - recvmsg has copied a batch of an incomplete
 * message (homa_msgin_copy_offer()) with the lock dropped: do what waited
 * for it. An RPC that ended meanwhile is freed with its buffers; one that
 * failed, or whose message is complete now, goes to recvmsg; one with
 * another batch waiting is offered again.
 * @rpc: the RPC, whose @copying the caller has just cleared; the caller
 *       holds its socket's lock.
 */
void homa_msgin_copied(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->state == RPC_DEAD) {
		homa_msgin_release(rpc);
		homa_rpc_free(rpc);
	} else if (rpc->error) {
		homa_rpc_ready(rpc);
	} else if (homa_gaps_complete(&rpc->msgin.gaps)) {
		homa_msgin_uncharge(rpc);
		homa_rpc_ready(rpc);
	} else {
		homa_msgin_copy_offer(rpc);
	}
}

/**
 * homa_msgin_retry() - Messages that waited for buffers get them, shortest
 * first (within their peers' shares), after the socket got its pool or
 * bpages came back.
 * @hsk: the socket.
 */
void homa_msgin_retry(struct homa_sock *hsk)
{
	struct homa_rpc *rpc;

	spin_lock_bh(&hsk->lock);
	while (hsk->pool) {
		rpc = homa_msgin_waiter(hsk);
		if (!rpc || !homa_msgin_alloc(rpc))
			break;
		homa_msgin_advance(rpc);
	}
	spin_unlock_bh(&hsk->lock);
}

/*
 * The range a client asks for when nothing of its response has arrived:
 * the bytes the server sends unscheduled (as far as we know them).
 */
static u32 homa_resend_first_bytes(const struct homa_rpc *rpc)
{
	const struct homa_config *c = &rpc->hsk->hnet->config;

	if (rpc->msgout.flags & HOMA_DATA_INCAST)
		return READ_ONCE(c->incast_unsched_bytes);
	return READ_ONCE(c->unsched_bytes);
}

/*
 * Most ranges one probe asks for: each gap would otherwise cost a whole
 * retransmission timeout, and heavy loss leaves dozens in a message.
 */
#define HOMA_RESEND_RANGES 4

/*
 * Send one RESEND for [@start, @end) of @rpc's incoming message, whose
 * copies are to come at @level.
 */
static void homa_resend_range(struct homa_rpc *rpc, u32 start, u32 end,
			      u8 level)
{
	struct homa_pkt pkt = { .type = RESEND };

	pkt.resend.offset = start;
	pkt.resend.length = end - start;
	pkt.resend.priority = level;
	homa_rpc_xmit_control(rpc, &pkt);
	homa_metric_inc(rpc->hsk->hnet, HOMA_M_resends_sent);
}

/**
 * homa_resend_missing() - Ask the peer for the ranges of the incoming
 * message that have not arrived (one RESEND each, the lowest
 * HOMA_RESEND_RANGES of them); with nothing received yet, ask for the
 * start (a server still working answers BUSY).
 * @rpc: the RPC; the caller holds its socket's lock. Its probe state is
 *	that before this probe (homa_probe_urgent()).
 *
 * The copies come at the highest scheduled level, as the reference asks
 * for its own: at the message's level (0 for the lowest ranked) they
 * queued behind every ranked message, under strict priority, overflowed
 * that band and drew more RESENDs (on the incast bed the level-0 band
 * dropped 9186 of 10869 packets, and the servers sent 2469 packets at
 * level 0 and 2580 copies in all). A sender sends its fresh bytes at the
 * grant's level still. After HOMA_PROBE_URGENT unanswered probes (one,
 * once the RPC has asked so before), the RESEND asks only for the first
 * missing byte (its sender sends the segment that holds it) at the top
 * level instead.
 *
 * Return: true if a RESEND was sent.
 */
bool homa_resend_missing(struct homa_rpc *rpc)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_gap gaps[HOMA_RESEND_RANGES];
	struct homa_msgin *in = &rpc->msgin;
	u8 level;
	u32 i, n;

	lockdep_assert_held(&rpc->hsk->lock);
	homa_rpc_resend_judge(rpc);
	rpc->resend_round = HOMA_RESEND_ROUND_SENT;
	if (in->length < 0) {
		/*
		 * Nothing yet: ask for the start; a server still working
		 * says BUSY. The sender takes a RESEND's range as a grant,
		 * so ask for no more than it sends unscheduled: a client
		 * that marked its request for incast control gets few
		 * unscheduled bytes, and a larger RESEND would bypass both
		 * incast control and our grant scheduler.
		 */
		gaps[0].start = 0;
		gaps[0].end = homa_resend_first_bytes(rpc);
		n = 1;
	} else {
		n = 0;
		if (in->num_bpages)
			n = homa_gaps_missing(&in->gaps,
					      READ_ONCE(in->granted), gaps,
					      HOMA_RESEND_RANGES);
		if (n == 0)
			return false;
	}
	if (homa_probe_urgent(&rpc->probe)) {
		level = homa_cfg(hnet, num_priorities) - 1;
		gaps[0].end = gaps[0].start + 1;
		n = 1;
		homa_probe_urgent_asked(&rpc->probe);
		homa_metric_inc(hnet, HOMA_M_resends_urgent);
	} else {
		level = homa_cutoffs_max_sched(hnet);
	}
	for (i = 0; i < n; i++)
		homa_resend_range(rpc, gaps[i].start, gaps[i].end, level);
	return true;
}

/**
 * homa_rx_drain_ms() - Milliseconds the host's link needs to deliver every
 * byte its incoming messages are owed (granted or unscheduled, not yet
 * received): silence shorter than that is the queue ahead of us, not
 * loss. Capped at a minute so that the probe interval built on it cannot
 * overflow.
 * @hnet: the namespace's Homa host.
 * @c: its configuration.
 *
 * Return: the milliseconds.
 */
int homa_rx_drain_ms(const struct homa_net *hnet, const struct homa_config *c)
{
	u32 mbps = max(READ_ONCE(c->link_mbps), 1);

	return min_t(u64, div_u64(hnet->rx_expected * 8, mbps * 1000ULL),
		     60000);
}

/**
 * homa_need_ack_answer() - Answer a NEED_ACK for an RPC whose incoming
 * message is not complete: its sender thinks it has sent everything.
 * If we have been silent long enough for the link to deliver everything
 * we are owed, and have not asked within that time, what is missing is
 * lost: ask for it now (RESEND, counted as a probe), as a timer probe
 * would, without waiting for the probe's turn. Otherwise, or while data
 * at a higher IP priority keeps arriving (homa_msgin_outranked()), it is
 * most likely still queued on its way, and asking would only queue
 * copies behind it: say BUSY (alive, nothing to ask yet). On the incast
 * bed, before the last two rules, the client answered most of 1148
 * NEED_ACKs with RESENDs (963 sent, 628 duplicates came back).
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_need_ack_answer(struct homa_rpc *rpc)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	const struct homa_config *c = &hnet->config;

	lockdep_assert_held(&rpc->hsk->lock);
	if (homa_probe_ask_now(&rpc->probe, homa_rx_drain_ms(hnet, c),
			       homa_msgin_outranked(rpc, c)) &&
	    homa_resend_missing(rpc)) {
		homa_probe_sent(&rpc->probe);
		return;
	}
	homa_rpc_xmit_busy(rpc);
}

/**
 * homa_msgin_start() - Set up an RPC's incoming message from its first
 * DATA packet and find room for it in the pool.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @pkt: the parsed packet.
 */
void homa_msgin_start(struct homa_rpc *rpc, const struct homa_pkt *pkt)
{
	struct homa_msgin *in = &rpc->msgin;

	lockdep_assert_held(&rpc->hsk->lock);
	in->length = pkt->data.message_length;
	if (!homa_is_client(rpc->id))
		rpc->incast = pkt->data.flags & HOMA_DATA_INCAST;
	homa_gaps_init(&in->gaps, in->length);
	in->granted = min_t(u32, pkt->data.incoming, in->length);
	in->unsched = in->granted;
	in->num_bpages = 0;
	homa_cutoffs_record(rpc->hsk->hnet, in->length);
	homa_msgin_alloc(rpc);
}

/*
 * Charge a received packet to its socket's receive memory, unless the
 * socket already holds rmem_max bytes of them; freeing the packet gives
 * the memory back.
 */
static bool homa_rmem_charge(struct homa_sock *hsk, struct sk_buff *skb)
{
	struct sock *sk = &hsk->inet.sk;

	if (atomic_read(&sk->sk_rmem_alloc) + skb->truesize >
	    (unsigned int)homa_cfg(hsk->hnet, rmem_max))
		return false;
	skb_set_owner_r(skb, sk);
	return true;
}

/*
 * Note the IP priority (the top three bits of the TOS or traffic class)
 * of a DATA packet that brought an RPC new bytes, for the timer
 * (homa_net.rx_ip_prios). Only such packets count: DATA for no RPC, or
 * bytes already here, would let anyone who sends them at a high priority
 * stop every RPC's silence from counting (resend_outranked).
 */
static void homa_rx_ip_prio_seen(struct homa_net *hnet, struct sk_buff *skb)
{
	u8 tos = ip_hdr(skb)->version == 4 ? ip_hdr(skb)->tos :
		 ipv6_get_dsfield(ipv6_hdr(skb));
	int bit = tos >> 5;

	/* Most packets find their bit set: no atomic write for them. */
	if (!test_bit(bit, &hnet->rx_ip_prios))
		set_bit(bit, &hnet->rx_ip_prios);
}

/* A DATA packet for @rpc: keep its bytes if new, grant, deliver. */
static void homa_data_pkt(struct homa_rpc *rpc, struct sk_buff *skb,
			  const struct homa_pkt *pkt)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_msgin *in = &rpc->msgin;
	int added;

	if (rpc->state == RPC_OUTGOING && homa_is_client(rpc->id))
		rpc->state = RPC_INCOMING;
	if (rpc->state != RPC_INCOMING) {
		homa_metric_inc(hnet, HOMA_M_drop_stale_data);
		kfree_skb(skb);
		return;
	}
	if (in->length < 0)
		homa_msgin_start(rpc, pkt);
	else if (pkt->data.message_length != in->length)
		goto malformed;
	if (!homa_rmem_charge(rpc->hsk, skb)) {
		/* The socket holds too much: a RESEND brings it back. */
		homa_metric_inc(hnet, HOMA_M_drop_rmem);
		kfree_skb(skb);
		return;
	}
	added = homa_gaps_add(&in->gaps, pkt->data.offset,
			      pkt->data.offset + pkt->data.length);
	if (added == -ENOSPC) {
		/* Too many holes to track: a RESEND brings it back later. */
		homa_metric_inc(hnet, HOMA_M_drop_gaps_full);
		kfree_skb(skb);
		return;
	}
	if (added < 0)
		goto malformed;
	if (pkt->data.retransmit)
		homa_rpc_resend_heard(rpc, added > 0);
	homa_rpc_rx_probe_end(rpc, pkt->data.incoming, pkt->data.retransmit);
	if (added == 0) {
		homa_metric_inc(hnet, HOMA_M_drop_duplicate);
		kfree_skb(skb);
	} else {
		homa_rx_ip_prio_seen(hnet, skb);
		homa_probe_progress(&rpc->probe);
		homa_skb_cb(skb)->offset = pkt->data.offset;
		homa_skb_cb(skb)->length = pkt->data.length;
		homa_skb_cb(skb)->tx_pages = false;
		__skb_queue_tail(&in->packets, skb);
		in->queued += pkt->data.length;
		if (pkt->data.length > in->pkt_max)
			in->pkt_max = pkt->data.length;
		homa_metric_inc(hnet, HOMA_M_skbs_live);
	}
	homa_msgin_advance(rpc);
	homa_msgin_copy_offer(rpc);
	return;

malformed:
	homa_metric_inc(hnet, HOMA_M_drop_malformed);
	kfree_skb(skb);
}

/*
 * Find the RPC a DATA packet is for, creating a server RPC if needed;
 * ERR_PTR(-EBUSY) for a new request beyond the limits on undelivered ones.
 */
static struct homa_rpc *homa_data_rpc(struct homa_sock *hsk,
				      struct homa_peer *peer,
				      const struct homa_pkt *pkt)
{
	u64 id = homa_peer_id(pkt->sender_id);
	struct homa_rpc *rpc;

	if (homa_is_client(id))
		return homa_rpc_find_client(hsk, id);
	rpc = homa_rpc_find_server(hsk, peer, pkt->sport, id);
	if (rpc || !hsk->is_server ||
	    homa_dedup_find(hsk, peer, pkt->sport, id))
		return rpc;
	if (homa_rpc_server_limited(hsk, peer))
		return ERR_PTR(-EBUSY);
	return homa_rpc_alloc_server(hsk, peer, pkt->sport, id);
}

/*
 * A packet of type @type for @rpc arrived: its silence and probe counts.
 * A NEED_ACK asks rather than sends, and so does a RESEND while the rest
 * of @rpc's incoming message is awaited: a client asks its server for the
 * response while the server waits for the rest of the request. Counted as
 * heard, the client's RESENDs (after each BUSY, sooner than the server's
 * retransmission timeout) kept the server from ever asking for the
 * request's lost bytes; seen in the share mode's warm-up.
 */
static void homa_rpc_heard(struct homa_rpc *rpc, u8 type)
{
	bool asks = type == NEED_ACK ||
		    (type == RESEND && rpc->msgin.length >= 0 &&
		     !homa_gaps_complete(&rpc->msgin.gaps));

	lockdep_assert_held(&rpc->hsk->lock);
	homa_probe_heard(&rpc->probe, asks, type == BUSY);
}

/* Handle a packet for an RPC that exists; @skb is consumed. */
static void homa_rpc_pkt(struct homa_rpc *rpc, struct sk_buff *skb,
			 const struct homa_pkt *pkt)
{
	homa_rpc_heard(rpc, pkt->type);
	homa_rpc_rtt_heard(rpc, pkt->type);
	switch (pkt->type) {
	case DATA:
		homa_data_pkt(rpc, skb, pkt);
		return;
	case GRANT:
		homa_peer_tx_signal(rpc->peer,
				    pkt->grant.flags & HOMA_GRANT_CONGESTED);
		homa_msgout_grant(rpc, pkt->grant.offset, pkt->grant.priority);
		break;
	case RESEND:
		homa_msgout_resend(rpc, pkt->resend.offset, pkt->resend.length,
				   pkt->resend.priority);
		break;
	case RPC_UNKNOWN:
		if (!homa_is_client(rpc->id)) {
			/*
			 * Not under recvmsg's feet: once copied and answered,
			 * the client acks it (NEED_ACK) and it ends.
			 */
			if (!rpc->copying)
				homa_rpc_end(rpc);
		} else if (!rpc->ready && !rpc->copying) {
			/*
			 * A client whose response is complete (or that failed)
			 * needs nothing more from the server: an RPC_UNKNOWN
			 * answering an earlier RESEND is stale then.
			 */
			homa_metric_inc(rpc->hsk->hnet, HOMA_M_rpc_restarts);
			rpc->state = RPC_OUTGOING;
			homa_msgin_reset(rpc);
			homa_msgout_restart(rpc);
		}
		break;
	case NEED_ACK:
		/* Not done yet: ask for what is lost, if anything is. */
		if (!rpc->ready && !rpc->copying)
			homa_need_ack_answer(rpc);
		break;
	default:
		/* BUSY only proves the peer is alive. */
		break;
	}
	consume_skb(skb);
}

/* A packet for no RPC we know: answer as the protocol requires. */
static void homa_no_rpc_pkt(struct homa_sock *hsk, struct homa_peer *peer,
			    const struct homa_pkt *pkt)
{
	struct homa_pkt reply = { .dport = pkt->sport,
				  .sender_id = pkt->sender_id ^ 1 };

	if ((pkt->type == DATA || pkt->type == RESEND) &&
	    homa_dedup_find(hsk, peer, pkt->sport, pkt->sender_id ^ 1)) {
		/* Executed already: no second run, no RPC_UNKNOWN. */
		if (pkt->type == DATA)
			homa_metric_inc(hsk->hnet, HOMA_M_requests_deduped);
		return;
	}
	if (pkt->type == RESEND) {
		reply.type = RPC_UNKNOWN;
		homa_xmit_control(hsk, peer, &reply);
	} else if (pkt->type == NEED_ACK) {
		/* The response arrived and its RPC is gone: ack it. */
		reply.type = ACK;
		homa_peer_take_acks(peer, &reply, HOMA_MAX_ACKS_PER_PKT - 1);
		reply.ack.client_ids[reply.ack.num_acks] = pkt->sender_id ^ 1;
		reply.ack.server_ports[reply.ack.num_acks] = pkt->sport;
		reply.ack.num_acks++;
		homa_xmit_control(hsk, peer, &reply);
	} else {
		homa_metric_inc(hsk->hnet, HOMA_M_drop_no_rpc);
	}
}

/*
 * Free a server RPC whose client has its response (or is gone), counting
 * it in @metric; one whose response is not all sent yet stays.
 */
static void homa_ack_one(struct homa_sock *hsk, struct homa_peer *peer,
			 u16 client_port, u64 client_id,
			 enum homa_metric metric)
{
	struct homa_rpc *rpc;

	rpc = homa_rpc_find_server(hsk, peer, client_port, client_id | 1);
	if (rpc && rpc->state == RPC_OUTGOING &&
	    rpc->msgout.next_xmit_offset >= rpc->msgout.length) {
		homa_metric_inc(hsk->hnet, metric);
		homa_rpc_end(rpc);
	}
}

/* Acks in @pkt addressed to @hsk's port; the caller holds hsk->lock. */
static void homa_acks_pkt(struct homa_sock *hsk, struct homa_peer *peer,
			  const struct homa_pkt *pkt)
{
	int i;

	if (pkt->type == DATA) {
		if (pkt->data.ack_id && pkt->data.ack_port == hsk->port)
			homa_ack_one(hsk, peer, pkt->sport, pkt->data.ack_id,
				     HOMA_M_rpcs_acked);
		return;
	}
	for (i = 0; i < pkt->ack.num_acks; i++)
		if (pkt->ack.server_ports[i] == hsk->port)
			homa_ack_one(hsk, peer, pkt->sport,
				     pkt->ack.client_ids[i], HOMA_M_rpcs_acked);
}

static struct homa_rpc *homa_find_rpc(struct homa_sock *hsk,
				      struct homa_peer *peer,
				      const struct homa_pkt *pkt)
{
	u64 id = pkt->sender_id ^ 1;

	if (pkt->type == DATA)
		return homa_data_rpc(hsk, peer, pkt);
	if (!homa_is_client(id))
		return homa_rpc_find_server(hsk, peer, pkt->sport, id);
	return homa_rpc_find_client(hsk, id);
}

/*
 * A request arrived for a port with no server socket (or one shut down):
 * tell the client with ICMP port unreachable (its RPC fails with ENOTCONN)
 * rather than leave it to time out. A client's RESEND for its response
 * gets the same answer: every DATA packet of a request draws one, so the
 * kernel's per-host rate limit can leave a request unanswered, and its
 * client waited for its timeout. A server's NEED_ACK, GRANT or RESEND
 * for a port with no socket (or one shut down) gets the same answer: the
 * client RPC went with its socket, and the server may free its own.
 * Unanswered, a NEED_ACK was asked again until the RPC timed out, and a
 * request the closed socket had not finished sending kept its place among
 * the messages the server grants to, and its receive buffers, until
 * stall_ms: the client's host, busy with other sockets, is never silent.
 * (The kernel rate-limits these answers per host; one ends every such
 * request from the port: homa_icmp_closed_requests().)
 */
static void homa_port_unreachable(struct sk_buff *skb,
				  const struct homa_pkt *pkt)
{
	bool request = homa_is_client(pkt->sender_id) &&
		       (pkt->type == DATA || pkt->type == RESEND);
	bool ask = !homa_is_client(pkt->sender_id) &&
		   (pkt->type == NEED_ACK || pkt->type == GRANT ||
		    pkt->type == RESEND);

	if (!request && !ask)
		return;
	if (ip_hdr(skb)->version == 4)
		icmp_send(skb, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH, 0);
	else
		icmpv6_send(skb, ICMPV6_DEST_UNREACH, ICMPV6_PORT_UNREACH, 0);
}

/*
 * A client RPC is named by its id alone (we chose the id), so anyone can
 * name it: only packets from its server's address and port may act on it.
 */
static bool homa_from_server(const struct homa_rpc *rpc,
			     const struct homa_peer *peer, u16 sport)
{
	return ipv6_addr_equal(&rpc->peer->addr, &peer->addr) &&
	       rpc->dport == sport;
}

/* Deliver a valid packet to its socket; @skb is consumed. */
static void homa_sock_pkt(struct homa_sock *hsk, struct sk_buff *skb,
			  const struct in6_addr *saddr,
			  const struct homa_pkt *pkt)
{
	struct homa_net *hnet = hsk->hnet;
	struct homa_peer *peer;
	struct homa_rpc *rpc;

	if (hsk->inet.sk.sk_family == AF_INET && !ipv6_addr_v4mapped(saddr)) {
		homa_metric_inc(hnet, HOMA_M_drop_wrong_family);
		kfree_skb(skb);
		return;
	}
	peer = homa_peer_get(hnet, saddr);
	if (IS_ERR(peer)) {
		homa_metric_inc(hnet, HOMA_M_drop_no_peer);
		kfree_skb(skb);
		return;
	}
	WRITE_ONCE(peer->last_heard, jiffies);
	spin_lock(&hsk->lock);
	if (hsk->shutdown) {
		/* It keeps its port until closed, but takes no more work. */
		spin_unlock(&hsk->lock);
		homa_peer_put(peer);
		homa_metric_inc(hnet, HOMA_M_drop_no_socket);
		homa_port_unreachable(skb, pkt);
		kfree_skb(skb);
		return;
	}
	if (pkt->type == CUTOFFS) {
		/* About the host, not an RPC. */
		homa_cutoffs_pkt(hnet, peer, pkt);
		consume_skb(skb);
		goto out;
	}
	if (pkt->type == DATA)
		homa_cutoffs_resync(hsk, peer, pkt);
	if (pkt->type == DATA || pkt->type == ACK)
		homa_acks_pkt(hsk, peer, pkt);
	rpc = pkt->type == ACK ? NULL : homa_find_rpc(hsk, peer, pkt);
	if (IS_ERR(rpc)) {
		homa_metric_inc(hnet, HOMA_M_drop_rpc_limit);
		kfree_skb(skb);
	} else if (rpc && homa_is_client(rpc->id) &&
	    !homa_from_server(rpc, peer, pkt->sport)) {
		homa_metric_inc(hnet, HOMA_M_drop_wrong_source);
		kfree_skb(skb);
	} else if (rpc) {
		homa_rpc_pkt(rpc, skb, pkt);
	} else {
		if (pkt->type == DATA && !hsk->is_server) {
			homa_metric_inc(hnet, HOMA_M_drop_no_rpc);
			homa_port_unreachable(skb, pkt);
		} else if (pkt->type != ACK) {
			homa_no_rpc_pkt(hsk, peer, pkt);
		}
		kfree_skb(skb);
	}
out:
	spin_unlock(&hsk->lock);
	homa_peer_put(peer);
}

/* The sender's address of a received packet, IPv4 mapped into IPv6. */
static void homa_skb_saddr(struct sk_buff *skb, struct in6_addr *addr)
{
	if (ip_hdr(skb)->version == 4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, addr);
	else
		*addr = ipv6_hdr(skb)->saddr;
}

/**
 * homa_softirq() - Receive one Homa packet (IPv4 and IPv6).
 * @skb: the packet; skb->data is at the Homa header. Always consumed.
 *
 * Return: 0 (the packet has been handled or dropped).
 */
int homa_softirq(struct sk_buff *skb)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	struct homa_sock *hsk;
	struct in6_addr saddr;
	struct homa_pkt pkt;
	int err;

	/* Homa talks to one host at a time: a shared frame draws no answer. */
	if (skb->pkt_type != PACKET_HOST) {
		homa_metric_inc(hnet, HOMA_M_drop_not_host);
		goto drop;
	}
	if (ip_hdr(skb)->version == 4 ?
	    !xfrm4_policy_check(NULL, XFRM_POLICY_IN, skb) :
	    !xfrm6_policy_check(NULL, XFRM_POLICY_IN, skb)) {
		homa_metric_inc(hnet, HOMA_M_drop_policy);
		goto drop;
	}
	/* The parser reads at most HOMA_MAX_HEADER bytes: make them linear. */
	if (!pskb_may_pull(skb, min_t(u32, skb->len, HOMA_MAX_HEADER))) {
		homa_metric_inc(hnet, HOMA_M_drop_short);
		goto drop;
	}
	err = homa_wire_parse(skb->data, skb->len, &pkt);
	if (err) {
		homa_metric_inc(hnet, homa_parse_drop_reason(skb, err,
							     pkt.type));
		goto drop;
	}
	homa_metric_inc(hnet, homa_rx_metric(pkt.type));
	if (pkt.type == DATA) {
		homa_metric_add(hnet, HOMA_M_rx_data_bytes,
				skb->len + skb_network_header_len(skb));
	}
	homa_skb_saddr(skb, &saddr);

	rcu_read_lock();
	hsk = homa_sock_find(hnet, pkt.dport);
	if (hsk)
		homa_sock_pkt(hsk, skb, &saddr, &pkt);
	rcu_read_unlock();
	if (hsk) {
		homa_pacer_help(hnet);
		return 0;
	}
	homa_metric_inc(hnet, HOMA_M_drop_no_socket);
	homa_port_unreachable(skb, &pkt);
drop:
	kfree_skb(skb);
	return 0;
}

/*
 * ICMP port unreachable answered a NEED_ACK that server RPC @id of @hsk
 * sent to port @dport of @daddr: that client socket is closed, which acks
 * the response (as an ACK would, only once it is all sent).
 */
static void homa_icmp_closed_client(struct homa_sock *hsk,
				    const struct in6_addr *daddr, u16 dport,
				    u64 id)
{
	/* No server RPC can belong to an address without a peer. */
	struct homa_peer *peer = homa_peer_find(hsk->hnet, daddr);

	if (!peer)
		return;
	spin_lock(&hsk->lock);
	if (!hsk->shutdown)
		homa_ack_one(hsk, peer, dport, id, HOMA_M_rpcs_acked_closed);
	spin_unlock(&hsk->lock);
	homa_peer_put(peer);
}

/**
 * struct homa_client_port - A client socket's address: a peer and a port.
 */
struct homa_client_port {
	/** @peer: the client's host. */
	const struct homa_peer *peer;
	/** @port: the client socket's port. */
	u16 port;
};

/*
 * Is @rpc a server RPC still receiving a request from the client port
 * @arg (a struct homa_client_port)?
 */
static bool homa_unfinished_request(const struct homa_rpc *rpc,
				    const void *arg)
{
	const struct homa_client_port *cp = arg;

	return !homa_is_client(rpc->id) && rpc->peer == cp->peer &&
	       rpc->dport == cp->port && rpc->state == RPC_INCOMING &&
	       !rpc->ready && !rpc->copying;
}

/*
 * ICMP port unreachable answered a GRANT or RESEND that server RPC @id of
 * @hsk sent to port @dport of @daddr: that client socket is closed, and
 * no request it had not finished sending will ever be finished. If @id
 * is such a request (anyone can forge an ICMP error, but must then know
 * an RPC's id, as a TCP segment quoted must be in the window), end all of
 * them, not only @id: the kernel answers at most a few such packets per
 * second to one host, and each request holds a place among the messages
 * granted to (and its receive buffers) that live ones need.
 */
static void homa_icmp_closed_requests(struct homa_sock *hsk,
				      const struct in6_addr *daddr, u16 dport,
				      u64 id)
{
	struct homa_client_port cp = { .port = dport };
	struct homa_peer *peer = homa_peer_find(hsk->hnet, daddr);
	struct homa_rpc *rpc;
	u32 ended = 0;

	if (!peer)
		return;
	cp.peer = peer;
	spin_lock(&hsk->lock);
	rpc = hsk->shutdown ? NULL :
	      homa_rpc_find_server(hsk, peer, dport, id);
	if (rpc && homa_unfinished_request(rpc, &cp))
		ended = homa_rpc_end_matching(hsk, homa_unfinished_request,
					      &cp);
	spin_unlock(&hsk->lock);
	homa_metric_add(hsk->hnet, HOMA_M_rpcs_ended_closed, ended);
	homa_peer_put(peer);
}

/*
 * An ICMP error names a packet this host sent to @daddr: fail the client
 * RPC it belonged to with @err, if that packet went to the RPC's server;
 * a port unreachable for a server's NEED_ACK frees the server RPC, and
 * one for its GRANT or RESEND ends the unfinished requests from that port
 * (homa_icmp_closed_requests()).
 * @h is the returned packet's Homa header, whose first HOMA_ICMP_HDR bytes
 * are present.
 */
static void homa_icmp_rpc(struct homa_net *hnet, const struct in6_addr *daddr,
			  const void *h, int err)
{
	const struct homa_common_hdr *common = h;
	u64 id = be64_to_cpu(common->sender_id);
	struct homa_sock *hsk;
	struct homa_rpc *rpc;

	homa_metric_inc(hnet, HOMA_M_icmp_errors);
	if (!err)
		return;
	rcu_read_lock();
	hsk = homa_sock_find(hnet, be16_to_cpu(common->sport));
	if (hsk && !homa_is_client(id) && err == -ENOTCONN &&
	    common->type == NEED_ACK) {
		homa_icmp_closed_client(hsk, daddr, be16_to_cpu(common->dport),
					id);
	} else if (hsk && !homa_is_client(id) && err == -ENOTCONN &&
		   (common->type == GRANT || common->type == RESEND)) {
		homa_icmp_closed_requests(hsk, daddr,
					  be16_to_cpu(common->dport), id);
	} else if (hsk && homa_is_client(id)) {
		spin_lock(&hsk->lock);
		rpc = hsk->shutdown ? NULL : homa_rpc_find_client(hsk, id);
		if (rpc && (!ipv6_addr_equal(&rpc->peer->addr, daddr) ||
			    rpc->dport != be16_to_cpu(common->dport))) {
			homa_metric_inc(hnet, HOMA_M_drop_wrong_source);
			rpc = NULL;
		}
		if (rpc) {
			homa_metric_inc(hnet, HOMA_M_rpc_icmp_failures);
			homa_rpc_fail(rpc, err);
		}
		spin_unlock(&hsk->lock);
	}
	rcu_read_unlock();
}

/* Bytes of the returned Homa header the error handlers need. */
#define HOMA_ICMP_HDR sizeof(struct homa_common_hdr)

/**
 * homa_err_handler_v4() - Handle an ICMP error about a Homa packet this
 * host sent: port unreachable fails its RPC with ENOTCONN, protocol
 * unreachable with EPROTONOSUPPORT, other unreachables with EHOSTUNREACH.
 * @skb: the ICMP packet, data at the returned IP header.
 * @info: ICMP information (e.g. the MTU).
 *
 * Return: 0.
 */
int homa_err_handler_v4(struct sk_buff *skb, u32 info)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	int type = icmp_hdr(skb)->type, code = icmp_hdr(skb)->code;
	int hlen = iph->ihl * 4, err = 0;
	struct in6_addr daddr;

	if (!pskb_may_pull(skb, hlen + HOMA_ICMP_HDR)) {
		homa_metric_inc(hnet, HOMA_M_icmp_errors);
		return 0;
	}
	iph = (const struct iphdr *)skb->data;
	ipv6_addr_set_v4mapped(iph->daddr, &daddr);
	if (type == ICMP_DEST_UNREACH) {
		if (code == ICMP_PORT_UNREACH)
			err = -ENOTCONN;
		else if (code == ICMP_PROT_UNREACH)
			err = -EPROTONOSUPPORT;
		else if (code != ICMP_FRAG_NEEDED)
			err = -EHOSTUNREACH;
	}
	homa_icmp_rpc(hnet, &daddr, skb->data + hlen, err);
	return 0;
}

/**
 * homa_err_handler_v6() - Handle an ICMPv6 error about a Homa packet this
 * host sent, as homa_err_handler_v4() does (an unknown next header is
 * IPv6's protocol unreachable).
 * @skb: the ICMPv6 packet, data at the returned IPv6 header.
 * @opt: IPv6 options of the packet.
 * @type: ICMPv6 type.
 * @code: ICMPv6 code.
 * @offset: offset of the returned packet's Homa header in @skb.
 * @info: ICMPv6 information.
 *
 * Return: 0.
 */
int homa_err_handler_v6(struct sk_buff *skb, struct inet6_skb_parm *opt,
			u8 type, u8 code, int offset, __be32 info)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	int err = 0;

	if (offset < 0 || !pskb_may_pull(skb, offset + HOMA_ICMP_HDR)) {
		homa_metric_inc(hnet, HOMA_M_icmp_errors);
		return 0;
	}
	if (type == ICMPV6_DEST_UNREACH)
		err = code == ICMPV6_PORT_UNREACH ? -ENOTCONN : -EHOSTUNREACH;
	else if (type == ICMPV6_PARAMPROB && code == ICMPV6_UNK_NEXTHDR)
		err = -EPROTONOSUPPORT;
	/* skb->data is at the returned packet's IPv6 header. */
	homa_icmp_rpc(hnet, &((const struct ipv6hdr *)skb->data)->daddr,
		      skb->data + offset, err);
	return 0;
}
