/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The kernel-side state of Homa: the per-namespace host
 * (struct homa_net), sockets and their table, and the lock order that every
 * file follows. The functions of each layer are declared in
 * homa_layer_sys.h, homa_layer_proto.h and homa_layer_out.h, included at
 * the end. Files that only make decisions on plain data include
 * homa_types.h instead.
 *
 * Lock order (a lock may only be taken while holding locks above it):
 *
 *   1. the socket lock, lock_sock(&hsk->inet.sk)
 *   2. homa_net.config_lock (sysctl writes; never held with the ones below)
 *   3. homa_sock.lock (the socket's RPCs, their messages, its pool)
 *   4. homa_grant.lock (homa_net.grant: the namespace's tree of incoming
 *      messages that need grants, across all its sockets); no packet is
 *      sent while it is held: decisions are collected, the lock dropped,
 *      then the GRANTs sent (holding the socket and the peer)
 *   5. homa_socktab.write_lock, homa_net.peer_lock, homa_peer.lock,
 *      homa_cutoffs.lock, homa_pacer.lock, homa_txpages.lock (leaf
 *      locks: never two of them at once)
 *   6. the waitqueue lock of the host's held count (struct homa_txhost),
 *      taken by wake_up() in DATA copies' destructors wherever the stack
 *      frees a packet, under any of the above or the stack's own locks;
 *      it takes none of Homa's
 *
 * The socket and peer tables are read under RCU (softirq lookups); only
 * bind, socket creation and close take the socktab write_lock. No Homa
 * lock is held across a copy to or from user space: recvmsg detaches a
 * message's packets under homa_sock.lock and copies them after dropping it.
 * All spinlocks are taken with bottom halves disabled (_bh) outside
 * softirq, because the receive path and the timer take them in softirq.
 *
 * The pacer thread is the one exception to the order: holding
 * homa_pacer.lock it may spin_trylock() a throttled RPC's homa_sock.lock
 * (never spin on it), then drops the pacer lock before it transmits. A
 * throttled RPC cannot be freed meanwhile: homa_rpc_end() takes it off
 * the pacer's lists under both locks.
 */

#ifndef _HOMA_IMPL_H
#define _HOMA_IMPL_H

#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
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
#include "homa_gap.h"
#include "homa_grant.h"
#include "homa_metrics.h"
#include "homa_pace.h"
#include "homa_pool.h"
#include "homa_rtt.h"
#include "homa_timer_policy.h"
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
	 * @all: every socket in @buckets (homa_sock.socktab_links), for a
	 * walk that visits each once, as the timer's each millisecond, in
	 * a few steps rather than the 1 << HOMA_SOCKTAB_BITS chains; changed
	 * under @write_lock, read under RCU.
	 */
	struct list_head all;

	/**
	 * @next_default_port: where the search for a free client port
	 * starts (protected by @write_lock).
	 */
	u16 next_default_port;
};

/* log2 of the number of buckets in a namespace's peer table. */
#define HOMA_PEERTAB_BITS 12

/* Most peers a full table looks at for one to evict (bounded work). */
#define HOMA_PEER_EVICT_SCAN 64

/* log2 of the number of buckets in a socket's client RPC table. */
#define HOMA_RPCTAB_BITS 8

/*
 * log2 of the number of buckets in a socket's server RPC table: it holds
 * up to sock_rpc_limit RPCs whose ids other hosts choose.
 */
#define HOMA_SERVER_RPCTAB_BITS 10

/* Most executed requests a server socket remembers (see homa_dedup.c). */
#define HOMA_DEDUP_MAX 65536

/**
 * struct homa_peer - another host this one talks to, keyed by address.
 * A peer is freed when no RPC uses it and it has been idle for
 * peer_idle_secs (homa_peer_gc()), or when its namespace goes away.
 */
struct homa_peer {
	/** @addr: the host's address; IPv4 addresses are IPv4-mapped. */
	struct in6_addr addr;

	/** @node: link in homa_net.peers. */
	struct hlist_node node;

	/** @rcu: frees the peer after readers of the table are done. */
	struct rcu_head rcu;

	/**
	 * @refs: one for the peer table, one per RPC and per caller of
	 * homa_peer_get() that has not yet called homa_peer_put(). The
	 * table's reference is dropped only when it is the last one.
	 */
	refcount_t refs;

	/** @last_used: jiffies of the last homa_peer_get() (READ_ONCE). */
	unsigned long last_used;

	/** @lock: protects @dst, @flow and the pending acks. */
	spinlock_t lock;

	/** @dst: cached route to the peer (a reference is held). */
	struct dst_entry *dst;

	/** @flow: the flow @dst was found for (addresses for headers). */
	struct flowi flow;

	/**
	 * @last_heard: jiffies when a packet last came from the peer
	 * (WRITE_ONCE in softirq, READ_ONCE in the timer).
	 */
	unsigned long last_heard;

	/** @probe_tick: homa_net.timer_count when @probes was counted. */
	u32 probe_tick;

	/** @probes: probes the timer sent the peer in that firing. */
	int probes;

	/**
	 * @incoming_rpcs: server RPCs of this namespace whose requests came
	 * from the peer and have not been handed to recvmsg yet (bounded by
	 * peer_rpc_limit).
	 */
	atomic_t incoming_rpcs;

	/**
	 * @rx_bpages: bpages of this namespace's receive pools that
	 * incomplete messages from the peer hold (bounded by peer_pool_pct).
	 */
	atomic_t rx_bpages;

	/** @num_acks: valid entries in @ack_ids and @ack_ports. */
	int num_acks;

	/** @ack_ids: client ids of responses received, not yet acked. */
	u64 ack_ids[HOMA_MAX_ACKS_PER_PKT];

	/** @ack_ports: server ports of those RPCs. */
	u16 ack_ports[HOMA_MAX_ACKS_PER_PKT];

	/**
	 * @unsched_cutoffs: the peer's cutoffs from its last CUTOFFS packet
	 * (written under @lock, read with READ_ONCE; any values are safe).
	 */
	u32 unsched_cutoffs[HOMA_MAX_PRIORITIES];

	/**
	 * @cutoff_version: version of @unsched_cutoffs; 0 until the peer
	 * sent any (this host's own cutoffs are used until then).
	 */
	u16 cutoff_version;

	/**
	 * @cutoffs_sent_version: the version of this host's cutoffs last
	 * sent to the peer in a CUTOFFS packet (under @lock).
	 */
	u16 cutoffs_sent_version;

	/** @cutoffs_sent: jiffies when that was sent (under @lock). */
	unsigned long cutoffs_sent;

	/** @hnet: the host (namespace) whose table holds the peer. */
	struct homa_net *hnet;

	/** @rtt: RTT estimate to the peer (protected by @lock). */
	struct homa_rtt rtt;

	/**
	 * @sched_window: homa_rtt_sched_window() of @rtt at the last sample
	 * (0: none yet); written under @lock, read with READ_ONCE().
	 */
	u32 sched_window;

	/**
	 * @rto_ns: srtt + 4 x rttvar of @rtt at the last sample (0: none
	 * yet), so that the timer needs no lock; written under @lock, read
	 * with READ_ONCE().
	 */
	u64 rto_ns;

	/**
	 * @resend_backoff: doublings of the RTT-timed RESEND timeout toward
	 * the peer, from retransmissions that arrived as duplicates
	 * (homa_rtt_backoff()). Written without a lock (WRITE_ONCE, from
	 * any CPU's softirq): a lost update only delays a step.
	 */
	u8 resend_backoff;

	/**
	 * @rx_rtt: the delay data from the peer sees, measured by this host
	 * as a receiver: from a GRANT to the arrival of the first byte it
	 * granted (homa_peer_rx_sample()); protected by @lock. Its
	 * congestion state is the peer's.
	 */
	struct homa_rtt rx_rtt;

	/**
	 * @rx_rto_ns: srtt + 4 x rttvar of @rx_rtt at the last sample (0:
	 * none yet), a candidate timeout of RESENDs to the peer
	 * (homa_rtt_resend_basis()); written under @lock, read with
	 * READ_ONCE().
	 */
	u64 rx_rto_ns;

	/**
	 * @rx_sched_window: homa_rtt_sched_window() of @rx_rtt at the last
	 * sample (0: none yet), the window of the peer's messages while
	 * @sched_window is 0 (homa_rtt_window_basis()); written under @lock,
	 * read with READ_ONCE().
	 */
	u32 rx_sched_window;

	/**
	 * @congested: @rx_rtt.congested as of the last sample, for readers
	 * without the lock (WRITE_ONCE under @lock, READ_ONCE).
	 */
	u8 congested;

	/**
	 * @grant_scale: the share of the grant window messages from the peer
	 * get, in 1/HOMA_RTT_SCALE_FULL (0: all; rtt_congestion_react);
	 * written under @lock, read with READ_ONCE().
	 */
	u32 grant_scale;

	/** @scale_ns: when @grant_scale last took a step (ns; @lock). */
	u64 scale_ns;

	/**
	 * @tx_congested: the flag of the last GRANT from the peer: it sees
	 * the data this host sends it congested (HOMA_GRANT_CONGESTED).
	 * WRITE_ONCE from any CPU's softirq, READ_ONCE.
	 */
	u8 tx_congested;

	/**
	 * @tx_scale: the share of the unscheduled window messages to the
	 * peer get, in 1/HOMA_RTT_SCALE_FULL (0: all; HOMA_REACT_UNSCHED);
	 * written under @lock, read with READ_ONCE().
	 */
	u32 tx_scale;

	/** @tx_scale_ns: when @tx_scale last took a step (ns; @lock). */
	u64 tx_scale_ns;
};

/* Most pages struct homa_txpages holds (with 32 KB pages, 8 MB). */
#define HOMA_TXPAGES_MAX 256

/**
 * struct homa_txpages - a host's cache of payload pages that its freed
 * DATA packets no longer need, for the next messages' bytes
 * (homa_txpage.c).
 */
struct homa_txpages {
	/** @lock: protects the fields below (a leaf lock). */
	spinlock_t lock;

	/** @count: pages in @pages (read without @lock as a hint). */
	u32 count;

	/** @bytes: the sizes of those pages, summed (tx_page_cache_kb). */
	u64 bytes;

	/**
	 * @used_jiffies: when sendmsg last took a page, or an empty cache
	 * took one (homa_txpages_tick() gives back an idle cache).
	 */
	unsigned long used_jiffies;

	/** @pages: the cached pages, one reference each; a stack. */
	struct page *pages[HOMA_TXPAGES_MAX];
};

/**
 * struct homa_pacer_view - the pacer's state at one moment
 * (homa_pacer_view()), as /proc/net/homa_rpcs shows it.
 */
struct homa_pacer_view {
	/** @queue_ns: the NIC queue by the estimate (ns). */
	u64 queue_ns;

	/** @fifo_credit: the FIFO share's credit (homa_pace_charge()). */
	s64 fifo_credit;

	/** @lead_ns: how far the thread may let the queue exceed its bound. */
	u64 lead_ns;

	/** @unsched_window: the adaptive unscheduled window (bytes). */
	u32 unsched_window;

	/** @listed: RPCs waiting for the pacer. */
	u32 listed;

	/** @srpt_id: the first of them in SRPT order (0: none). */
	u64 srpt_id;

	/** @srpt_remaining: its bytes left to send, as the pacer ranks it. */
	u32 srpt_remaining;

	/** @fifo_id: the oldest of them (0: none). */
	u64 fifo_id;

	/** @thread_idle: the thread waits for work (homa_pacer.thread_idle). */
	bool thread_idle;
};

/**
 * struct homa_pacer - a host's pacer (homa_pacer.c): its estimate of the
 * NIC queue and the outgoing messages that wait for room in it.
 */
struct homa_pacer {
	/**
	 * @lock: protects the fields below up to @thread, and the pacer_*
	 * fields of throttled RPCs. A leaf lock, always taken with bottom
	 * halves disabled.
	 */
	spinlock_t lock;

	/** @state: the NIC queue estimate and the FIFO credit. */
	struct homa_pace_state state;

	/**
	 * @srpt: throttled RPCs (homa_rpc.pacer_links), fewest bytes to
	 * send first. Empty when nothing waits.
	 */
	struct list_head srpt;

	/** @fifo: the same RPCs (homa_rpc.pacer_fifo_links), oldest first. */
	struct list_head fifo;

	/** @queue_max: the longest NIC queue estimate seen, in ns. */
	u64 queue_max;

	/**
	 * @lead: ns by which the thread lets the NIC queue exceed
	 * max_nic_queue_ns, from how late its timed sleeps ended
	 * (homa_pace_lead()).
	 */
	u64 lead;

	/** @unsched: the adaptive unscheduled window and its counts. */
	struct homa_rtt_unsched unsched;

	/** @thread: the pacer thread, which releases throttled packets. */
	struct task_struct *thread;

	/** @wait: the thread sleeps here while @srpt is empty. */
	wait_queue_head_t wait;

	/**
	 * @thread_idle: the thread found @srpt empty and waits on @wait;
	 * set and cleared under @lock (the first insertion clears it and
	 * wakes the thread), read without it by the waiting thread.
	 */
	bool thread_idle;

	/**
	 * @host: the DATA the host holds (homa_xmit.c), or NULL without
	 * memory; set up before the thread starts and kept until it stops.
	 */
	struct homa_txhost *host;

	/** @held_max: the most of @host's count the pacer has read (units). */
	u32 held_max;

	/**
	 * @drain: the rate the host's DATA drains at, as learned (under
	 * @lock).
	 */
	struct homa_pace_drain drain;

	/** @drain_kbps: the rate last put in metric pacer_drain_kbps. */
	u64 drain_kbps;

	/**
	 * @held_until: jiffies until which the pacer counts as having
	 * waited for @host lately (homa_pacer_held_lately()); 0: never.
	 */
	unsigned long held_until;
};

/**
 * struct homa_net - one Homa host: everything Homa keeps per network
 * namespace. Found with homa_net(net).
 */
struct homa_net {
	/** @net: the namespace this host belongs to. */
	struct net *net;

	/**
	 * @config: the net.homa.* values. Readers use homa_cfg() (READ_ONCE()
	 * on single fields) or a layer's params reader; writers hold
	 * @config_lock and use WRITE_ONCE().
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

	/** @peer_lock: serialises additions to and removals from @peers. */
	spinlock_t peer_lock;

	/** @peers: hash chains of homa_peer.node by address (RCU). */
	DECLARE_HASHTABLE(peers, HOMA_PEERTAB_BITS);

	/**
	 * @peer_hash_key: random key of the peer table's hash, so that no
	 * sender can choose addresses that share one chain.
	 */
	u32 peer_hash_key;

	/** @num_peers: peers in @peers (written under @peer_lock). */
	int num_peers;

	/** @peer_evict_bkt: where the next eviction scan starts (peer_lock). */
	u32 peer_evict_bkt;

	/** @next_id: the id of the next client RPC (even; atomic). */
	atomic64_t next_id;

	/** @timer: fires every tick (1 ms) for resends and timeouts. */
	struct timer_list timer;

	/** @timer_stop: set when the namespace goes; the timer stops. */
	bool timer_stop;

	/** @timer_jiffies: when the timer last fired. */
	unsigned long timer_jiffies;

	/** @timer_count: how many times the timer has fired. */
	u32 timer_count;

	/**
	 * @timer_ms: milliseconds the timer has counted since the namespace
	 * started (each firing adds at most a jiffy's worth, however late
	 * it is); written by the timer only. An RPC's waiting is counted
	 * from it (homa_rpc.timer_ms).
	 */
	u64 timer_ms;

	/**
	 * @rx_expected: bytes granted to (or sent unscheduled by) the
	 * senders of all incoming messages and not received yet, as the
	 * timer last counted them (the sum of homa_sock.rx_owed); written
	 * by the timer, read by anyone.
	 */
	u64 rx_expected;

	/**
	 * @rx_ip_prios: bit i set when a DATA packet with IP priority i
	 * brought an RPC new bytes since the timer last fired (set_bit() on
	 * arrival, taken and cleared by the timer).
	 */
	unsigned long rx_ip_prios;

	/**
	 * @rx_ip_prios_tick: @rx_ip_prios as the timer took it at its last
	 * firing: the IP priorities of DATA that arrived in the last tick.
	 */
	unsigned long rx_ip_prios_tick;

	/**
	 * @rx_rate: the rate DATA arrived at lately (homa_rtt_rate_update());
	 * timer only.
	 */
	struct homa_rtt_rate rx_rate;

	/**
	 * @rx_mbps: @rx_rate's rate in Mbit/s, for homa_rtt_window_mbps();
	 * written by the timer, read by anyone.
	 */
	u32 rx_mbps;

	/**
	 * @rx_peak_mbps: the largest @rx_mbps so far: whether link_mbps can
	 * be believed (homa_peer_queue_mbps()); written by the timer, read
	 * by anyone.
	 */
	u32 rx_peak_mbps;

	/** @grant: the receiver's grant scheduler (homa_grant.c). */
	struct homa_grant grant;

	/** @cutoffs: sizes of incoming messages, cutoffs (homa_cutoffs.c). */
	struct homa_cutoffs cutoffs;

	/** @pacer: the NIC queue limit on the host's output. */
	struct homa_pacer pacer;

	/** @txpages: payload pages for reuse by outgoing messages. */
	struct homa_txpages txpages;
};

/**
 * homa_cfg() - Read one net.homa.* value of a host.
 * @hnet: the host (struct homa_net *).
 * @field: a field of struct homa_config (an array element is allowed).
 *
 * A sysctl write may change the value at any time: each read sees either
 * the old or the new value, never a torn one, and two reads may differ.
 * Code that needs several values consistent with each other, or reads
 * them per packet, takes a snapshot through its layer's reader instead
 * (homa_pace_params_read(), homa_grant_params(), homa_timer_params()).
 */
#define homa_cfg(hnet, field) READ_ONCE((hnet)->config.field)

/*
 * homa_rpc.resend_round: no RESEND is being judged; RESENDs went out and
 * no retransmission came back yet; retransmissions came back, every one a
 * duplicate so far.
 */
#define HOMA_RESEND_ROUND_NONE		0
#define HOMA_RESEND_ROUND_SENT		1
#define HOMA_RESEND_ROUND_DUPS		2

/**
 * enum homa_rpc_state - where an RPC is in its life.
 * @RPC_OUTGOING:   sending its message (request or response).
 * @RPC_INCOMING:   receiving (a client waits for the response; a server
 *                  collects the request).
 * @RPC_IN_SERVICE: server only: the request went to the application,
 *                  the response has not been sent yet.
 * @RPC_DEAD:       finished; to be freed.
 */
enum homa_rpc_state {
	RPC_OUTGOING,
	RPC_INCOMING,
	RPC_IN_SERVICE,
	RPC_DEAD,
};

/**
 * struct homa_msgout - an outgoing message.
 */
struct homa_msgout {
	/** @length: bytes in the message; -1 before sendmsg. */
	int length;

	/** @packets: the DATA packets, in offset order, never sent as is. */
	struct sk_buff_head packets;

	/** @next_xmit: the first packet not yet sent, or NULL. */
	struct sk_buff *next_xmit;

	/** @next_xmit_offset: offset of the first byte not yet sent. */
	u32 next_xmit_offset;

	/**
	 * @resend_next: the next packet to send again for a RESEND (below
	 * @next_xmit), or NULL. Retransmissions go through the pacer like
	 * fresh packets (homa_msgout_next() gives them first).
	 */
	struct sk_buff *resend_next;

	/** @resend_end: one past the last byte of @resend_next's range. */
	u32 resend_end;

	/**
	 * @resend_q: the other ranges RESENDs asked for, to be sent again
	 * after @resend_next's (each apart, not their hull: the bytes
	 * between them arrived).
	 */
	struct homa_range_q resend_q;

	/** @granted: the receiver lets us send every byte below this. */
	u32 granted;

	/** @unscheduled: bytes sent without a grant. */
	u32 unscheduled;

	/** @flags: HOMA_DATA_* bits carried by every DATA packet. */
	u8 flags;

	/** @priority: priority for scheduled packets, from the grant. */
	u8 priority;

	/**
	 * @resend_prio: priority for scheduled packets sent again, from
	 * the last RESEND (its level need not be the grant's).
	 */
	u8 resend_prio;

	/** @unsched_prio: priority for unscheduled packets (peer cutoffs). */
	u8 unsched_prio;

	/** @birth: when sendmsg handed the message over (ns), for FIFO. */
	u64 birth;

	/**
	 * @track: counts the copies of the message's packets this host has
	 * handed to IP and still holds (homa_xmit.c); NULL before sendmsg
	 * or without memory. Put when the RPC ends.
	 */
	struct homa_txtrack *track;

	/** @last_xmit: jiffies when a packet of the message last went out. */
	unsigned long last_xmit;
};

/**
 * struct homa_msgout_peek - the next packet of an outgoing message as the
 * pacer sees it (homa_msgout_peek()): the one thing outgoing messages
 * tell the pacer, with homa_xmit_data_next() to send it.
 */
struct homa_msgout_peek {
	/** @skb: the stored packet (a copy of it is sent). */
	struct sk_buff *skb;

	/** @left: bytes of the message not yet sent once it is (SRPT rank). */
	u32 left;

	/** @unsched: it carries unscheduled bytes for the first time. */
	bool unsched;
};

/**
 * struct homa_msgout_shape - how an outgoing message is cut into stored
 * DATA packets (homa_msgout_shape()).
 */
struct homa_msgout_shape {
	/** @mss: message bytes of one segment on the wire (route MTU). */
	u32 mss;

	/** @chunk: message bytes of one stored packet (whole segments). */
	u32 chunk;

	/** @ipv6: the destination is an IPv6 address (not v4-mapped). */
	bool ipv6;
};

/**
 * struct homa_msgin - an incoming message.
 */
struct homa_msgin {
	/** @length: bytes in the message; -1 until a packet arrives. */
	int length;

	/** @gaps: which bytes have arrived. */
	struct homa_msg_gaps gaps;

	/** @packets: DATA packets received, not yet copied to the user. */
	struct sk_buff_head packets;

	/**
	 * @queued: message bytes in @packets (a recvmsg that waits copies
	 * them early once they reach copy_batch).
	 */
	u32 queued;

	/**
	 * @pkt_max: message bytes in the largest DATA packet of the message
	 * so far: an early copy waits for at least HOMA_COPY_BATCH_PKTS of
	 * them (homa_pool_copy_due()).
	 */
	u32 pkt_max;

	/**
	 * @copy_err: the first error of an early copy (homa_recvmsg.c),
	 * which recvmsg returns with the message; 0 if none.
	 */
	int copy_err;

	/**
	 * @granted: the sender may send every byte below this. While the
	 * message is on the grant list, written under homa_grant.lock
	 * (WRITE_ONCE) and read with READ_ONCE elsewhere.
	 */
	u32 granted;

	/**
	 * @sched_prio: the level of the last GRANT sent (same rules as
	 * @granted), where the bytes the message is owed wait.
	 */
	u8 sched_prio;

	/**
	 * @rank_prio: the level the grant scheduler's last pass ranked the
	 * message at (0 when it was not among the messages granted to),
	 * whether or not it had new bytes to grant (same rules as
	 * @granted). Above @sched_prio, the message ranks higher than when
	 * its owed bytes were granted, and they wait behind data of
	 * messages it ranks above now (homa_msgin_outranked()).
	 */
	u8 rank_prio;

	/**
	 * @unsched: @granted as the first packet said it (the bytes its
	 * sender sent unscheduled): they do not count against max_incoming.
	 */
	u32 unsched;

	/** @num_bpages: entries of @bpage_offsets in use (0: none yet). */
	u32 num_bpages;

	/**
	 * @peer_bpages: bpages counted in the peer's rx_bpages for this
	 * message (0 once it is complete or gone).
	 */
	u32 peer_bpages;

	/**
	 * @wait_node: link in homa_sock.buf_waiters while the message waits
	 * for bpages (RB_EMPTY_NODE() when it does not).
	 */
	struct rb_node wait_node;

	/** @bpage_offsets: where the message goes in the pool. */
	u32 bpage_offsets[HOMA_MAX_BPAGES];
};

/**
 * struct homa_rpc - one RPC on one side. Protected by its socket's lock
 * (homa_sock.lock), except where noted.
 */
struct homa_rpc {
	/** @hsk: the socket the RPC belongs to. */
	struct homa_sock *hsk;

	/** @id: the RPC's id on this host (odd on servers). */
	u64 id;

	/** @peer: the other end's host. */
	struct homa_peer *peer;

	/** @dport: the other end's port. */
	u16 dport;

	/** @state: see enum homa_rpc_state. */
	enum homa_rpc_state state;

	/** @error: 0, or the negative errno the RPC failed with. */
	int error;

	/** @completion_cookie: the client's cookie from sendmsg. */
	u64 completion_cookie;

	/** @private: client only: only a recvmsg naming @id receives it. */
	bool private;

	/** @ready: on the socket's ready list. */
	bool ready;

	/**
	 * @copying: recvmsg is copying packets of its message with the
	 * lock dropped: the whole message once it is ready, or a batch of
	 * it before (homa_msgin_copy_offer()). The RPC is not freed, its
	 * buffers not released and it is not made ready meanwhile; the
	 * copying thread does what was held back when it is done.
	 */
	bool copying;

	/**
	 * @incast: server only: the request carried HOMA_DATA_INCAST, so
	 * the response goes with at most incast_unsched_bytes unscheduled.
	 */
	bool incast;

	/**
	 * @limited: server only: counted in the socket's and the peer's
	 * @incoming_rpcs (until recvmsg takes the request or the RPC ends).
	 */
	bool limited;

	/**
	 * @probe: silence, probes, backoff and stall of the RPC; written
	 * only by homa_timer_policy.c, to which the timer, the receive path
	 * and sendmsg report events.
	 */
	struct homa_probe probe;

	/** @hash_node: link in the socket's client or server RPC table. */
	struct hlist_node hash_node;

	/** @active_links: link in homa_sock.active_rpcs. */
	struct list_head active_links;

	/**
	 * @timer_ms: homa_net.timer_ms when the timer last looked at the
	 * RPC (or when it was created).
	 */
	u64 timer_ms;

	/**
	 * @owed: bytes the RPC's sender may send that had not arrived when
	 * the timer last looked, as counted in homa_sock.rx_owed.
	 */
	u32 owed;

	/** @ready_links: link in homa_sock.ready_rpcs. */
	struct list_head ready_links;

	/**
	 * @copy_links: link in homa_sock.copy_rpcs while the incoming
	 * message has a batch of packets to copy early (empty otherwise).
	 */
	struct list_head copy_links;

	/** @msgout: the message this side sends. */
	struct homa_msgout msgout;

	/** @msgin: the message this side receives. */
	struct homa_msgin msgin;

	/** @grant: @msgin's entry in the namespace's grant list. */
	struct homa_grant_rpc grant;

	/**
	 * @pacer_links: link in homa_pacer.srpt; empty while the RPC is not
	 * throttled (protected by homa_pacer.lock).
	 */
	struct list_head pacer_links;

	/** @pacer_fifo_links: link in homa_pacer.fifo (pacer lock). */
	struct list_head pacer_fifo_links;

	/** @pacer_remaining: bytes left to send, for SRPT (pacer lock). */
	u32 pacer_remaining;

	/**
	 * @rtt_start: when the first DATA packet of @msgout went out (ns);
	 * 0 while no RTT sample is pending.
	 */
	u64 rtt_start;

	/**
	 * @rtt_done: @msgout gives no (more) RTT samples: one was taken, or
	 * data was sent again (Karn's rule).
	 */
	bool rtt_done;

	/**
	 * @rx_probe_ns: when a GRANT for @msgin was decided whose first new
	 * byte's arrival will end a data-delay sample (ns); 0 while none is
	 * pending. Set under homa_grant.lock, cleared under the socket's
	 * lock (READ_ONCE/WRITE_ONCE: losing a sample to a race is harmless).
	 */
	u64 rx_probe_ns;

	/**
	 * @rx_probe_offset: that GRANT's offset (valid with @rx_probe_ns):
	 * the first DATA packet whose incoming field reaches it ends the
	 * sample.
	 */
	u32 rx_probe_offset;

	/**
	 * @resend_round: what the retransmissions answering this RPC's
	 * last RESENDs brought (HOMA_RESEND_ROUND_*; the socket's lock):
	 * the verdict on whether those RESENDs were premature.
	 */
	u8 resend_round;
};

/**
 * struct homa_sock - a Homa socket. The inet_sock comes first so that the
 * generic socket code can treat it as any inet socket.
 */
struct homa_sock {
	/** @inet: the generic inet socket. */
	struct inet_sock inet;

	/**
	 * @hnet: the host (namespace) the socket belongs to; set once by
	 * init and valid until the socket is freed (the socket holds a
	 * reference to its namespace), so code that still holds the socket
	 * after destroy (a GRANT on its way out, a packet found under RCU)
	 * may use it. NULL only if init failed early.
	 */
	struct homa_net *hnet;

	/** @destroyed: homa_sk_destroy() has run (it runs once). */
	bool destroyed;

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

	/** @socktab_links: link in homa_socktab.all while @in_socktab. */
	struct list_head socktab_links;

	/** @lock: protects the RPCs below, their messages and @pool. */
	spinlock_t lock;

	/**
	 * @active_rpcs: every RPC of the socket that is not dead, in the
	 * order the timer looks at them (it moves each it looks at to the
	 * end).
	 */
	struct list_head active_rpcs;

	/** @rx_owed: the sum of homa_rpc.owed over @active_rpcs. */
	u64 rx_owed;

	/** @ready_rpcs: RPCs whose incoming message (or error) is ready. */
	struct list_head ready_rpcs;

	/**
	 * @copy_rpcs: RPCs whose incomplete incoming message has at least
	 * copy_batch bytes of packets for a waiting recvmsg to copy into
	 * its buffers, oldest first.
	 */
	struct list_head copy_rpcs;

	/** @client_rpcs: client RPCs by id. */
	DECLARE_HASHTABLE(client_rpcs, HOMA_RPCTAB_BITS);

	/**
	 * @server_rpcs: server RPCs by homa_server_rpc_key() of their id and
	 * client port (a server RPC is named by client address, port and id).
	 */
	DECLARE_HASHTABLE(server_rpcs, HOMA_SERVER_RPCTAB_BITS);

	/**
	 * @rpc_hash_key: random key of homa_server_rpc_key(), so that a
	 * client cannot choose ids that share one bucket.
	 */
	u32 rpc_hash_key;

	/** @pool: the receive buffer pool; NULL until SO_HOMA_RCVBUF. */
	struct homa_pool *pool;

	/**
	 * @buf_waiters: incoming messages waiting for bpages (no pool yet,
	 * the pool full, or their peer at its share), ordered by peer, then
	 * length, then id (homa_rcvbuf.c): finding the shortest message
	 * that may have space costs a lookup per waiting peer, not a look
	 * at every RPC.
	 */
	struct rb_root buf_waiters;

	/** @num_rpcs: RPCs on @active_rpcs. */
	int num_rpcs;

	/** @num_client_rpcs: client RPCs among @num_rpcs (incast control). */
	int num_client_rpcs;

	/**
	 * @incoming_rpcs: server RPCs whose request has not been handed to
	 * recvmsg yet (bounded by sock_rpc_limit).
	 */
	int incoming_rpcs;

	/**
	 * @dead_skbs: packets of ended RPCs, freed a few at a time by
	 * homa_rpc_reap() so that ending a large RPC in softirq stays cheap.
	 */
	struct sk_buff_head dead_skbs;

	/** @dead_rpcs: ended RPCs (linked by active_links) not yet freed. */
	struct list_head dead_rpcs;

	/**
	 * @error_msg: why the last failed sendmsg or recvmsg on the socket
	 * failed (a string constant; NULL if none), for HOMAIOCINFO.
	 */
	const char *error_msg;

	/** @dedup_hash: executed requests remembered, by id (homa_dedup.c). */
	DECLARE_HASHTABLE(dedup_hash, HOMA_RPCTAB_BITS);

	/** @dedup_list: the same entries, oldest first. */
	struct list_head dedup_list;

	/** @dedup_count: entries on @dedup_list. */
	u32 dedup_count;

	/**
	 * @ready_gen: counts RPCs made ready and shutdowns, so waiters
	 * sleep until something new happens (READ_ONCE without the lock).
	 */
	u32 ready_gen;
};

/**
 * homa_server_rpc_key() - The key of a server RPC in homa_sock.server_rpcs.
 * @hsk: the socket.
 * @sport: the client's port.
 * @id: the RPC's id (chosen by the client).
 *
 * Return: a hash of @id and @sport under the socket's random key.
 */
static inline u32 homa_server_rpc_key(const struct homa_sock *hsk, u16 sport,
				      u64 id)
{
	return jhash_3words((u32)id, (u32)(id >> 32), sport,
			    hsk->rpc_hash_key);
}

/**
 * struct homa_skb_cb - what Homa keeps in skb->cb of a message packet.
 */
struct homa_skb_cb {
	/** @offset: offset in the message of the packet's first byte. */
	u32 offset;

	/** @length: message bytes in the packet (received packets). */
	u32 length;

	/**
	 * @tx_pages: a stored outgoing packet whose fragments are pages
	 * homa_msgout_fill() filled: homa_txpages_keep() may take them back
	 * when it is freed. Always false on received packets.
	 */
	bool tx_pages;
};

/**
 * homa_clock_ns() - The clock of per-packet work (the pacer's NIC-queue
 * estimate, message ages): local_clock(), which reads the CPU's cycle
 * counter, where ktime_get_ns() reads the timekeeping clocksource, which
 * may be a device (an HPET read costs microseconds, and several more under
 * emulation: 7% of all CPU time in a profile of bulk transfer with a read
 * per DATA packet). Readings on two CPUs may differ by a little (bounded
 * by a tick where the counters are not synchronized); what uses it
 * tolerates that: a queue estimate off by that much for a moment. RTT
 * samples, whose two ends may be read on different CPUs, keep
 * ktime_get_ns().
 *
 * Return: nanoseconds since boot.
 */
static inline u64 homa_clock_ns(void)
{
	return local_clock();
}

/**
 * homa_pace_params_read() - The pacer's view of a namespace's
 * configuration, for homa_pace.c's decisions.
 * @hnet: the namespace's Homa host.
 * @p: filled in.
 */
static inline void homa_pace_params_read(struct homa_net *hnet,
					 struct homa_pace_params *p)
{
	p->link_mbps = homa_cfg(hnet, link_mbps);
	p->max_nic_queue_ns = homa_cfg(hnet, max_nic_queue_ns);
	p->fifo_fraction = homa_cfg(hnet, pacer_fifo_fraction);
	p->throttle_min_bytes = homa_cfg(hnet, throttle_min_bytes);
	p->held_max = homa_cfg(hnet, pacer_held_max_kb) *
		      (1024 / HOMA_PACE_HELD_UNIT);
	p->drain_queue_ns = homa_cfg(hnet, pacer_drain_queue_us) * 1000U;
}

/* Room for link and IP headers in front of a Homa header. */
#define HOMA_SKB_HEADROOM (MAX_HEADER + sizeof(struct ipv6hdr))

/**
 * homa_skb_cb() - Homa's control block of a packet.
 * @skb: a DATA packet held by Homa.
 *
 * Return: the control block.
 */
static inline struct homa_skb_cb *homa_skb_cb(struct sk_buff *skb)
{
	return (struct homa_skb_cb *)skb->cb;
}

/**
 * struct homa_pool - a socket's receive buffers: the user's region and the
 * allocator state (homa_pool.c) that carves it into bpages.
 */
struct homa_pool {
	/** @start: user address of the region. */
	u64 start;

	/** @length: bytes of the region in use (whole bpages). */
	u64 length;

	/** @state: the allocator. */
	struct homa_pool_state state;

	/** @bpages: per-bpage state, allocated with the pool. */
	struct homa_bpage *bpages;

	/** @free_stack: free bpage indexes, allocated with the pool. */
	u32 *free_stack;
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
 * homa_sock_error() - Note why a call on a socket failed.
 * @hsk: the socket.
 * @err: the negative errno returned.
 * @msg: a string constant explaining it (reported by HOMAIOCINFO).
 *
 * Return: @err.
 */
static inline int homa_sock_error(struct homa_sock *hsk, int err,
				  const char *msg)
{
	WRITE_ONCE(hsk->error_msg, msg);
	return err;
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

/*
 * The functions of each layer, bottom layer last (docs/DESIGN.md); the
 * decision files and the grant scheduler have headers of their own above.
 */
#include "homa_layer_sys.h"
#include "homa_layer_proto.h"
#include "homa_layer_out.h"

#endif /* _HOMA_IMPL_H */
