/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The functions of the layer "packet output and tables" (docs/DESIGN.md):
 * packets on the wire, peers, sockets, GSO. homa_impl.h includes this header
 * after the structs it needs; include homa_impl.h, not this file.
 */

#ifndef _HOMA_LAYER_OUT_H
#define _HOMA_LAYER_OUT_H

/* homa_xmit.c: packet output */
void homa_xmit_skb(struct homa_sock *hsk, struct homa_peer *peer,
		   struct sk_buff *skb, int ip_priority);
void homa_xmit_control(struct homa_sock *hsk, struct homa_peer *peer,
		       struct homa_pkt *pkt);
void homa_rpc_xmit_control(struct homa_rpc *rpc, struct homa_pkt *pkt);
void homa_rpc_xmit_busy(struct homa_rpc *rpc);
u32 homa_xmit_pkt_bytes(struct homa_rpc *rpc, struct sk_buff *skb);
void homa_xmit_account(struct homa_net *hnet, u32 bytes);
struct homa_txhost *homa_txhost_new(void);
void homa_txhost_put(struct homa_txhost *h);
u32 homa_txhost_held(struct homa_txhost *h);
u64 homa_txhost_drained(struct homa_txhost *h, u32 *empties);
void homa_txhost_wait(struct homa_txhost *h, u32 limit, long timeout);
struct homa_txtrack *homa_txtrack_new(struct homa_txhost *host);
void homa_txtrack_put(struct homa_txtrack *t);
void homa_txtrack_attach(struct sk_buff *skb, struct homa_txtrack *t,
			 bool resent);
void homa_txtrack_copy(struct sk_buff *from, struct sk_buff *segs);
bool homa_txtrack_held(const struct homa_txtrack *t, bool first_only);
void homa_txtrack_wait_all(void);

/* homa_txpage.c: payload pages for reuse */
void homa_txpages_init(struct homa_txpages *tp);
void homa_txpages_exit(struct homa_net *hnet);
void homa_txpages_keep(struct homa_net *hnet, struct sk_buff *skb);
void homa_txpages_tick(struct homa_net *hnet);
void homa_txpages_refill(struct homa_net *hnet, struct page_frag *pfrag,
			 u32 min);

/* homa_peer.c: peers, routes, acks */
void homa_peertab_init(struct homa_net *hnet);
void homa_peertab_exit(struct homa_net *hnet);
void homa_peer_put(struct homa_peer *peer);
void homa_peer_gc(struct homa_net *hnet);
struct homa_peer *homa_peer_get(struct homa_net *hnet,
				const struct in6_addr *addr);
struct homa_peer *homa_peer_find(struct homa_net *hnet,
				 const struct in6_addr *addr);
struct dst_entry *homa_peer_dst(struct homa_net *hnet, struct homa_peer *peer,
				struct flowi *fl);
bool homa_peer_add_ack(struct homa_peer *peer, u64 id, u16 port);
int homa_peer_take_acks(struct homa_peer *peer, struct homa_pkt *pkt,
			int max);

/* homa_sock.c: ports, the socket table */
void homa_socktab_init(struct homa_socktab *tab);
void homa_socktab_exit(struct homa_socktab *tab);
int homa_sock_init(struct homa_sock *hsk, struct homa_net *hnet);
void homa_sock_unlink(struct homa_sock *hsk);
int homa_sock_bind(struct homa_sock *hsk, u16 port);
struct homa_sock *homa_sock_find(struct homa_net *hnet, u16 port);
bool homa_sock_writeable(struct homa_sock *hsk);

/* homa_offload.c: GSO */
int homa_offload_init(void);
void homa_offload_exit(void);
void homa_gso_prepare(struct sk_buff *skb, u32 mss, bool ipv6);

#endif /* _HOMA_LAYER_OUT_H */
