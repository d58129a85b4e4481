// SPDX-License-Identifier: GPL-2.0+
/*
 * Segmentation offload for Homa DATA packets. The sender hands the IP
 * layer one large packet: a single DATA header followed by several
 * segments' worth of message bytes (skb_shinfo()->gso_size bytes each).
 * A device that can carry it whole (veth, or a NIC doing TSO on the
 * TCP-shaped common header) does so; for any other device the stack calls
 * homa_gso_segment(), which cuts it into ordinary DATA packets, each with
 * its own copy of the header and its own offset.
 *
 * The receiver needs nothing from this file: a DATA packet may carry any
 * number of bytes, so a large packet that arrives whole is taken as is.
 */

#include <net/protocol.h>
#include <net/ipv6.h>

#include "homa_impl.h"

/*
 * Cut a large DATA packet into gso_size pieces. On entry skb->data is at
 * the Homa header (the IP layer has pulled its own header).
 */
static struct sk_buff *homa_gso_segment(struct sk_buff *skb,
					netdev_features_t features)
{
	u32 mss = skb_shinfo(skb)->gso_size;
	struct homa_data_hdr *h;
	struct sk_buff *segs, *seg;
	u32 offset;

	if (!pskb_may_pull(skb, sizeof(*h)))
		return ERR_PTR(-EINVAL);
	h = (struct homa_data_hdr *)skb->data;
	if (h->common.type != DATA || mss == 0 ||
	    skb->len <= sizeof(*h) + mss)
		return ERR_PTR(-EINVAL);
	offset = be32_to_cpu(h->seg.offset);
	__skb_pull(skb, sizeof(*h));
	segs = skb_segment(skb, features);
	if (IS_ERR_OR_NULL(segs))
		return segs;
	/* The host holds the segments as it held the packet. */
	homa_txtrack_copy(skb, segs);
	if (skb->dev)
		homa_metric_inc(homa_net(dev_net(skb->dev)),
				HOMA_M_gso_segmented);
	for (seg = segs; seg; seg = seg->next) {
		h = (struct homa_data_hdr *)skb_transport_header(seg);
		h->seg.offset = cpu_to_be32(offset);
		h->common.sequence = cpu_to_be32(offset);
		offset += mss;
	}
	return segs;
}

static const struct net_offload homa_offload = {
	.callbacks = {
		.gso_segment = homa_gso_segment,
	},
};

/**
 * homa_offload_init() - Register Homa's segmentation offload for IPv4 and
 * IPv6.
 *
 * Return: 0 or -EBUSY (another module owns protocol 146's offload).
 */
int homa_offload_init(void)
{
	if (inet_add_offload(&homa_offload, IPPROTO_HOMA))
		return -EBUSY;
	if (inet6_add_offload(&homa_offload, IPPROTO_HOMA)) {
		inet_del_offload(&homa_offload, IPPROTO_HOMA);
		return -EBUSY;
	}
	return 0;
}

/**
 * homa_offload_exit() - Unregister what homa_offload_init() registered;
 * waits until no CPU is still inside homa_gso_segment().
 */
void homa_offload_exit(void)
{
	inet6_del_offload(&homa_offload, IPPROTO_HOMA);
	inet_del_offload(&homa_offload, IPPROTO_HOMA);
}

/**
 * homa_gso_prepare() - Make a stored DATA packet that carries more than
 * one segment a GSO packet, and one that carries a single segment (a
 * packet cut down to one, homa_msgout_cut()) a plain packet.
 * @skb: the packet; skb->data at the Homa header, which is complete.
 * @mss: message bytes per segment on the wire.
 * @ipv6: true when the packet goes out over IPv6.
 */
void homa_gso_prepare(struct sk_buff *skb, u32 mss, bool ipv6)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	u32 bytes = skb->len - sizeof(struct homa_data_hdr);

	if (bytes <= mss) {
		shinfo->gso_size = 0;
		shinfo->gso_segs = 0;
		shinfo->gso_type = 0;
		return;
	}
	shinfo->gso_size = mss;
	shinfo->gso_segs = DIV_ROUND_UP(bytes, mss);
	shinfo->gso_type = ipv6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
}
