// SPDX-License-Identifier: GPL-2.0+
/*
 * The receive side: the IPv4/IPv6 protocol handlers that
 * take every Homa packet in softirq context, validate it with the parser,
 * count it, and hand it to the socket it is for. Packets that cannot be
 * used are dropped, each reason with its own counter.
 */

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
 * homa_softirq() - Receive one Homa packet (IPv4 and IPv6).
 * @skb: the packet; skb->data is at the Homa header. Always consumed.
 *
 * Return: 0 (the packet has been handled or dropped).
 */
int homa_softirq(struct sk_buff *skb)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	enum homa_metric drop;
	struct homa_pkt pkt;
	int err;

	/* The parser reads at most HOMA_MAX_HEADER bytes: make them linear. */
	if (!pskb_may_pull(skb, min_t(u32, skb->len, HOMA_MAX_HEADER))) {
		drop = HOMA_M_drop_short;
		goto drop;
	}
	err = homa_wire_parse(skb->data, skb->len, &pkt);
	if (err) {
		drop = homa_parse_drop_reason(skb, err, pkt.type);
		goto drop;
	}
	homa_metric_inc(hnet, homa_rx_metric(pkt.type));

	rcu_read_lock();
	if (!homa_sock_find(hnet, pkt.dport))
		drop = HOMA_M_drop_no_socket;
	else
		drop = HOMA_M_drop_unimplemented;
	rcu_read_unlock();

drop:
	homa_metric_inc(hnet, drop);
	kfree_skb(skb);
	return 0;
}

/**
 * homa_err_handler_v4() - Note an ICMP error about a Homa packet we sent.
 * @skb: the ICMP packet, at the returned IP header.
 * @info: ICMP information (e.g. the MTU).
 *
 * Return: 0.
 */
int homa_err_handler_v4(struct sk_buff *skb, u32 info)
{
	homa_metric_inc(homa_net(dev_net(skb->dev)), HOMA_M_icmp_errors);
	return 0;
}

/**
 * homa_err_handler_v6() - Note an ICMPv6 error about a Homa packet we sent.
 * @skb: the ICMPv6 packet.
 * @opt: IPv6 options of the packet.
 * @type: ICMPv6 type.
 * @code: ICMPv6 code.
 * @offset: offset of the returned packet's header in @skb.
 * @info: ICMPv6 information.
 *
 * Return: 0.
 */
int homa_err_handler_v6(struct sk_buff *skb, struct inet6_skb_parm *opt,
			u8 type, u8 code, int offset, __be32 info)
{
	homa_metric_inc(homa_net(dev_net(skb->dev)), HOMA_M_icmp_errors);
	return 0;
}
