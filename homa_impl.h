/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The kernel-side state of Homa: the per-namespace host
 * (struct homa_net), sockets and their table, and the lock order that every
 * file follows. Files that only make decisions on plain data include
 * homa_types.h instead.
 *
 * Lock order (a lock may only be taken while holding locks above it):
 *
 *   1. the socket lock, lock_sock(&hsk->inet.sk)
 *   2. homa_net.config_lock (sysctl writes; never held with the ones below)
 *   3. homa_socktab.write_lock
 *
 * The socket table is read under RCU (softirq lookups); only bind, socket
 * creation and close take its write_lock. No Homa lock is held across a
 * copy to or from user space.
 */

#ifndef _HOMA_IMPL_H
#define _HOMA_IMPL_H

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "homa.h"
#include "homa_compat.h"
#include "homa_config.h"
#include "homa_metrics.h"
#include "homa_wire.h"

/* log2 of the number of buckets in a namespace's socket table. */
#define HOMA_SOCKTAB_BITS 10

/**
 * struct homa_socktab - the sockets of one namespace, by port.
 */
struct homa_socktab {
	/**
	 * @write_lock: serialises changes to @buckets; readers use RCU.
	 */
	spinlock_t write_lock;

	/** @buckets: hash chains of homa_sock.socktab_node by port. */
	DECLARE_HASHTABLE(buckets, HOMA_SOCKTAB_BITS);

	/**
	 * @next_default_port: where the search for a free client port
	 * starts (protected by @write_lock).
	 */
	u16 next_default_port;
};

/**
 * struct homa_net - one Homa host: everything Homa keeps per network
 * namespace. Found with homa_net(net).
 */
struct homa_net {
	/** @net: the namespace this host belongs to. */
	struct net *net;

	/**
	 * @config: the net.homa.* values. Readers use READ_ONCE() on single
	 * fields; writers hold @config_lock and use WRITE_ONCE().
	 */
	struct homa_config config;

	/** @config_lock: serialises sysctl writes to @config. */
	struct mutex config_lock;

	/** @sysctl_table: this namespace's copy of the sysctl table. */
	struct ctl_table *sysctl_table;

	/** @sysctl_header: registration of @sysctl_table. */
	struct ctl_table_header *sysctl_header;

	/** @socktab: the namespace's sockets and port space. */
	struct homa_socktab socktab;

	/** @metrics: per-CPU counters (see homa_metrics.h). */
	struct homa_metrics __percpu *metrics;
};

/**
 * struct homa_sock - a Homa socket. The inet_sock comes first so that the
 * generic socket code can treat it as any inet socket.
 */
struct homa_sock {
	/** @inet: the generic inet socket. */
	struct inet_sock inet;

	/** @hnet: the host (namespace) the socket belongs to. */
	struct homa_net *hnet;

	/**
	 * @port: the socket's port: a server port after bind, otherwise an
	 * automatically assigned client port (protected by the socktab's
	 * write_lock; read under RCU).
	 */
	u16 port;

	/** @is_server: the socket accepts requests (SO_HOMA_SERVER). */
	bool is_server;

	/** @shutdown: shutdown() was called; no new operations start. */
	bool shutdown;

	/** @in_socktab: the socket is linked into the socket table. */
	bool in_socktab;

	/** @socktab_node: link in homa_socktab.buckets. */
	struct hlist_node socktab_node;
};

/**
 * struct homa_v6_sock - an IPv6 Homa socket: the IPv6 state follows the
 * Homa socket, where inet6_sk() expects it.
 */
struct homa_v6_sock {
	/** @homa: the Homa socket. */
	struct homa_sock homa;

	/** @inet6: IPv6 socket state. */
	struct ipv6_pinfo inet6;
};

extern unsigned int homa_net_id;

/**
 * homa_net() - The Homa host of a network namespace.
 * @net: the namespace.
 *
 * Return: its struct homa_net.
 */
static inline struct homa_net *homa_net(const struct net *net)
{
	return net_generic(net, homa_net_id);
}

/**
 * homa_sk() - The Homa socket that contains a struct sock.
 * @sk: a socket created by Homa.
 *
 * Return: the enclosing struct homa_sock.
 */
static inline struct homa_sock *homa_sk(const struct sock *sk)
{
	return (struct homa_sock *)sk;
}

/**
 * homa_metric_add() - Add to one of a namespace's counters.
 * @hnet: the namespace's Homa host.
 * @m: which counter.
 * @delta: how much to add (may be negative for gauges).
 */
static inline void homa_metric_add(struct homa_net *hnet, enum homa_metric m,
				   s64 delta)
{
	this_cpu_add(hnet->metrics->v[m], (u64)delta);
}

/**
 * homa_metric_inc() - Count one event.
 * @hnet: the namespace's Homa host.
 * @m: which counter.
 */
static inline void homa_metric_inc(struct homa_net *hnet, enum homa_metric m)
{
	this_cpu_inc(hnet->metrics->v[m]);
}

/* homa_sock.c */
void homa_socktab_init(struct homa_socktab *tab);
void homa_socktab_exit(struct homa_socktab *tab);
int homa_sock_init(struct homa_sock *hsk, struct homa_net *hnet);
void homa_sock_unlink(struct homa_sock *hsk);
int homa_sock_bind(struct homa_sock *hsk, u16 port);
struct homa_sock *homa_sock_find(struct homa_net *hnet, u16 port);

/* homa_incoming.c */
int homa_softirq(struct sk_buff *skb);
int homa_err_handler_v4(struct sk_buff *skb, u32 info);
int homa_err_handler_v6(struct sk_buff *skb, struct inet6_skb_parm *opt,
			u8 type, u8 code, int offset, __be32 info);

/* homa_sysctl.c */
int homa_sysctl_net_init(struct homa_net *hnet);
void homa_sysctl_net_exit(struct homa_net *hnet);

#endif /* _HOMA_IMPL_H */
