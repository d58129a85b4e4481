/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The functions of the layer "protocol mechanics" (docs/DESIGN.md): incoming
 * and outgoing messages, RPCs, the tick, the pacer. homa_impl.h includes
 * this header after the structs it needs; include homa_impl.h, not this
 * file.
 */

#ifndef _HOMA_LAYER_PROTO_H
#define _HOMA_LAYER_PROTO_H

/* homa_incoming.c: softirq receive and incoming messages */
int homa_softirq(struct sk_buff *skb);
int homa_err_handler_v4(struct sk_buff *skb, u32 info);
int homa_err_handler_v6(struct sk_buff *skb, struct inet6_skb_parm *opt,
			u8 type, u8 code, int offset, __be32 info);
void homa_msgin_advance(struct homa_rpc *rpc);
void homa_msgin_copy_offer(struct homa_rpc *rpc);
void homa_msgin_copied(struct homa_rpc *rpc);
void homa_msgin_start(struct homa_rpc *rpc, const struct homa_pkt *pkt);
void homa_msgin_retry(struct homa_sock *hsk);
bool homa_resend_missing(struct homa_rpc *rpc);
int homa_rx_drain_ms(const struct homa_net *hnet, const struct homa_config *c);
void homa_need_ack_answer(struct homa_rpc *rpc);

/* homa_rcvbuf.c: the receive pool's kernel half */
int homa_pool_setup(struct homa_sock *hsk, const struct homa_rcvbuf_args *args);
void homa_pool_free(struct homa_pool *pool);
int homa_rcvbuf_return(struct homa_sock *hsk,
		       const struct homa_recvmsg_args *args);
bool homa_msgin_alloc(struct homa_rpc *rpc);
void homa_msgin_unwait(struct homa_rpc *rpc);
struct homa_rpc *homa_msgin_waiter(struct homa_sock *hsk);
void homa_msgin_uncharge(struct homa_rpc *rpc);

/* homa_timer.c: the tick */
void homa_timer_start(struct homa_net *hnet);
void homa_timer_stop(struct homa_net *hnet);
bool homa_msgin_outranked(struct homa_rpc *rpc, const struct homa_config *c);

/* homa_outgoing.c: outgoing messages */
u32 homa_payload_max(struct homa_net *hnet, struct homa_peer *peer);
void homa_msgout_shape(struct homa_sock *hsk, struct homa_peer *peer,
		       struct homa_msgout_shape *shape);
int homa_msgout_fill(struct homa_sock *hsk,
		     const struct homa_msgout_shape *shape,
		     struct sk_buff_head *out, struct iov_iter *iter,
		     u32 offset, u32 length);
void homa_msgout_attach(struct homa_rpc *rpc, struct sk_buff_head *packets,
			u32 length);
void homa_msgout_append(struct homa_rpc *rpc, struct sk_buff_head *packets);
void homa_xmit_data(struct homa_rpc *rpc);
bool homa_msgout_peek(struct homa_rpc *rpc, struct homa_msgout_peek *pk);
void homa_xmit_data_next(struct homa_rpc *rpc);
void homa_msgout_grant(struct homa_rpc *rpc, u32 offset, u8 priority);
void homa_msgout_resend(struct homa_rpc *rpc, u32 offset, u32 length,
			u8 priority);
void homa_msgout_restart(struct homa_rpc *rpc);
bool homa_msgout_in_host(const struct homa_rpc *rpc, bool first_only);

/* homa_rpc.c: RPC lifetimes */
struct homa_rpc *homa_rpc_alloc_client(struct homa_sock *hsk,
				       struct homa_peer *peer, u16 dport);
struct homa_rpc *homa_rpc_alloc_server(struct homa_sock *hsk,
				       struct homa_peer *peer, u16 sport,
				       u64 id);
struct homa_rpc *homa_rpc_find_client(struct homa_sock *hsk, u64 id);
struct homa_rpc *homa_rpc_find_server(struct homa_sock *hsk,
				      struct homa_peer *peer, u16 sport,
				      u64 id);
void homa_rpc_ready(struct homa_rpc *rpc);
void homa_rpc_fail(struct homa_rpc *rpc, int err);
void homa_msgin_reset(struct homa_rpc *rpc);
bool homa_rpc_server_limited(struct homa_sock *hsk, struct homa_peer *peer);
void homa_rpc_delivered(struct homa_rpc *rpc);
void homa_rpc_info_fill(const struct homa_rpc *rpc, struct homa_rpc_info *ri);
void homa_msgin_release(struct homa_rpc *rpc);
void homa_rpc_end(struct homa_rpc *rpc);
void homa_rpc_end_all(struct homa_sock *hsk);
u32 homa_rpc_end_matching(struct homa_sock *hsk,
			  bool (*match)(const struct homa_rpc *rpc,
					const void *arg),
			  const void *arg);
bool homa_rpc_reap(struct homa_sock *hsk, int limit);
void homa_rpc_free(struct homa_rpc *rpc);
void homa_skbs_free(struct homa_net *hnet, struct sk_buff_head *list);

/* homa_dedup.c: at-most-once */
void homa_dedup_add(struct homa_rpc *rpc);
bool homa_dedup_find(struct homa_sock *hsk, const struct homa_peer *peer,
		     u16 port, u64 id);
void homa_dedup_prune(struct homa_sock *hsk, int limit);
void homa_dedup_clear(struct homa_sock *hsk);

/* homa_pacer.c: the pacer */
int homa_pacer_net_init(struct homa_net *hnet);
void homa_pacer_net_exit(struct homa_net *hnet);
bool homa_pacer_admit(struct homa_rpc *rpc, const struct homa_msgout_peek *pk);
void homa_pacer_unthrottle(struct homa_rpc *rpc);
void homa_pacer_tick(struct homa_net *hnet);
void homa_pacer_help(struct homa_net *hnet);
u32 homa_pacer_unsched_window(struct homa_net *hnet);
bool homa_pacer_held_lately(struct homa_net *hnet);
void homa_pacer_view(struct homa_net *hnet, struct homa_pacer_view *v);

/* homa_rpc_show.c: /proc/net/homa_rpcs */
int homa_rpc_show_net_init(struct homa_net *hnet);
void homa_rpc_show_net_exit(struct homa_net *hnet);

/* homa_peer_rtt.c: RTT samples per peer */
int homa_peer_rtt_net_init(struct homa_net *hnet);
void homa_peer_rtt_net_exit(struct homa_net *hnet);
void homa_rpc_rtt_sent(struct homa_rpc *rpc, bool retransmit);
void homa_rpc_rtt_heard(struct homa_rpc *rpc, u8 type);
u32 homa_peer_sched_window(struct homa_peer *peer);
u32 homa_peer_resend_ticks(struct homa_peer *peer, bool *by_delay);
void homa_rpc_resend_heard(struct homa_rpc *rpc, bool filled);
void homa_rpc_resend_judge(struct homa_rpc *rpc);
void homa_peer_rx_sample(struct homa_peer *peer, u64 ns);
void homa_peer_tx_signal(struct homa_peer *peer, bool congested);
u32 homa_peer_unsched_share(struct homa_peer *peer);
void homa_rpc_rx_probe_start(struct homa_rpc *rpc, u32 first);
void homa_rpc_rx_probe_end(struct homa_rpc *rpc, u32 incoming,
			   bool retransmit);

#endif /* _HOMA_LAYER_PROTO_H */
