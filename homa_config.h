/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The tunable parameters of one Homa host (network
 * namespace), their defaults, ranges and the rules that tie them together.
 * homa_config.c is a decision file: plain data, no locks, so the unit tests
 * check the same validation the sysctl handler uses.
 */

#ifndef _HOMA_CONFIG_H
#define _HOMA_CONFIG_H

#include "homa_types.h"
#include "homa.h"

/*
 * Bits of net.homa.rtt_congestion_react. HOMA_REACT_GRANTS: a receiver
 * shrinks the grant window of messages from a congested peer (AIMD, once
 * per data delay). HOMA_REACT_UNSCHED: a sender shrinks the unscheduled
 * bytes of messages to a peer whose GRANTs say it sees this sender's data
 * congested (HOMA_GRANT_CONGESTED; AIMD, once per round trip).
 * HOMA_REACT_FAIR: with HOMA_REACT_GRANTS, the receiver cuts a congested
 * peer's share only while the bytes on their way to it account for a fair
 * part of the queue the peer's data delay shows (homa_rtt_queue_own()); a queue
 * that other traffic keeps full (TCP beside Homa) does not drain when Homa
 * backs off, and the share grows instead.
 */
#define HOMA_REACT_GRANTS	0x1
#define HOMA_REACT_UNSCHED	0x2
#define HOMA_REACT_FAIR		0x4

/*
 * What a receiver's RESENDs to a peer are timed by (sysctl rtt_resend,
 * homa_rtt_resend_basis()): HOMA_RESEND_FIXED, resend_ticks alone;
 * HOMA_RESEND_GRANT_RTT, the round trip this host's DATA and the peer's
 * GRANTs make; HOMA_RESEND_SMALLER, the smaller of that round trip's
 * timeout and the timeout of the delay the peer's data takes to reach
 * this host (GRANT to granted byte), whichever is measured.
 * HOMA_RESEND_DATA_DELAY is not a setting: it says that the data delay
 * gave the timeout.
 */
#define HOMA_RESEND_FIXED	0
#define HOMA_RESEND_GRANT_RTT	1
#define HOMA_RESEND_SMALLER	2
#define HOMA_RESEND_DATA_DELAY	3

/**
 * struct homa_config - every net.homa.* value of one namespace. All fields
 * are int so that each maps onto a sysctl handled by proc_dointvec.
 */
struct homa_config {
	/** @unsched_bytes: bytes of a message sent before any grant. */
	int unsched_bytes;

	/** @window: grant window per message; 0 means dynamic. */
	int window;

	/** @max_incoming: granted-but-unreceived bytes allowed in total. */
	int max_incoming;

	/** @max_overcommit: messages granted to at the same time. */
	int max_overcommit;

	/** @num_priorities: packet priority levels in use. */
	int num_priorities;

	/** @priority_map: IP priority (TOS top bits) of each Homa level. */
	int priority_map[HOMA_MAX_PRIORITIES];

	/**
	 * @unsched_cutoffs: a message of at most unsched_cutoffs[i] bytes
	 * may use unscheduled priority i; 0 marks a level not used.
	 */
	int unsched_cutoffs[HOMA_MAX_PRIORITIES];

	/** @cutoff_version: changes whenever @unsched_cutoffs change. */
	int cutoff_version;

	/** @link_mbps: uplink rate the pacer assumes, in Mbit/s. */
	int link_mbps;

	/** @max_nic_queue_ns: longest NIC queue the pacer allows. */
	int max_nic_queue_ns;

	/** @max_gso_size: largest packet handed to the IP layer. */
	int max_gso_size;

	/**
	 * @grant_overshoot_ns: link time (at @link_mbps) by which a stored
	 * DATA packet may reach past the bytes granted and still go whole;
	 * a packet that reaches further is cut at the granted segment.
	 */
	int grant_overshoot_ns;

	/** @grant_fifo_fraction: per mille of grants for the oldest message. */
	int grant_fifo_fraction;

	/**
	 * @grant_increment: new bytes worth a GRANT (or half a message's
	 * window if less); 0 grants every new byte at once.
	 */
	int grant_increment;

	/** @pacer_fifo_fraction: per mille of pacer output for the oldest. */
	int pacer_fifo_fraction;

	/** @resend_ticks: silent ticks before a RESEND is sent. */
	int resend_ticks;

	/** @resend_interval: ticks between RESENDs for one RPC. */
	int resend_interval;

	/** @timeout_ticks: silent ticks before an RPC fails (ETIMEDOUT). */
	int timeout_ticks;

	/** @request_ack_ticks: ticks before a server sends NEED_ACK. */
	int request_ack_ticks;

	/** @poll_usecs: busy-wait time in recvmsg before sleeping. */
	int poll_usecs;

	/** @reap_limit: dead packets and RPCs freed per reaping step. */
	int reap_limit;

	/** @dead_buffs_limit: dead buffers that force reaping in sendmsg. */
	int dead_buffs_limit;

	/** @wmem_max: transmit memory one socket may hold, in bytes. */
	int wmem_max;

	/**
	 * @rmem_max: memory of received packets one socket may hold (not
	 * yet copied to its buffer pool), in bytes.
	 */
	int rmem_max;

	/**
	 * @copy_batch: bytes of an incomplete message that make a waiting
	 * recvmsg copy them into the message's buffers before the rest
	 * arrives; 0 copies only complete messages.
	 */
	int copy_batch;

	/**
	 * @tx_page_cache_kb: most kilobytes of payload pages that freed
	 * DATA packets leave for the next messages (homa_txpage.c); 0: none.
	 */
	int tx_page_cache_kb;

	/** @peer_idle_secs: idle time after which an unused peer is freed. */
	int peer_idle_secs;

	/**
	 * @dedup_ms: how long a server remembers an executed request so that
	 * late copies of it are not executed again (0: not at all).
	 */
	int dedup_ms;

	/**
	 * @peer_rpc_limit: most server RPCs of one client host whose request
	 * has not yet been handed to recvmsg (across the namespace's
	 * sockets); requests beyond it are dropped (0: no limit).
	 */
	int peer_rpc_limit;

	/**
	 * @sock_rpc_limit: most server RPCs of one socket whose request has
	 * not yet been handed to recvmsg (0: no limit).
	 */
	int sock_rpc_limit;

	/**
	 * @peer_pool_pct: most of a socket's receive pool, in percent, that
	 * the incomplete incoming messages of one peer (across the
	 * namespace's sockets) may hold; a message beyond it waits for
	 * buffer space (0: no limit).
	 */
	int peer_pool_pct;

	/**
	 * @stall_ms: an RPC whose incoming message has waited this long for
	 * bytes its sender owes it, or whose response has waited this long
	 * for its ack, ends even while its peer talks (0: never).
	 */
	int stall_ms;

	/**
	 * @max_peers: most peers the namespace keeps; a new one beyond it
	 * first evicts a peer no RPC uses, and is refused if none is found
	 * (0: no limit).
	 */
	int max_peers;

	/**
	 * @incast_threshold: a request is marked HOMA_DATA_INCAST when its
	 * socket has more client RPCs than this outstanding (0: never).
	 */
	int incast_threshold;

	/**
	 * @incast_unsched_bytes: most unscheduled bytes of a response to a
	 * marked request.
	 */
	int incast_unsched_bytes;

	/**
	 * @auto_cutoffs: 1: @unsched_cutoffs are computed from the sizes of
	 * incoming messages; 0: they stay as written (a write to
	 * unsched_cutoffs sets this to 0).
	 */
	int auto_cutoffs;

	/* The pacer and RTT-adaptive behaviour (homa_pacer.c, homa_peer.c). */

	/** @pacer_enable: 0 sends every packet at once (no pacer). */
	int pacer_enable;

	/**
	 * @pacer_lead_max_ns: most the pacer thread lets the NIC queue
	 * exceed max_nic_queue_ns to cover its own wake-up latency (0: off).
	 */
	int pacer_lead_max_ns;

	/**
	 * @pacer_rx_help: 1 lets each received packet send a paced packet
	 * when the NIC queue has drained and the pacer thread has not yet
	 * woken to do it (homa_pacer_help()); 0 leaves it to the thread.
	 */
	int pacer_rx_help;

	/** @throttle_min_bytes: shorter messages skip the pacer. */
	int throttle_min_bytes;

	/**
	 * @pacer_held_max_kb: KB of DATA the host may hold (handed to IP,
	 * not yet let go of) before paced packets wait, whatever the NIC
	 * queue estimate says (0: no limit).
	 */
	int pacer_held_max_kb;

	/**
	 * @pacer_drain_queue_us: while the held count binds, the pacer
	 * learns the rate at which the host's DATA drains and holds at most
	 * this long a queue at that rate (0: it keeps pacer_held_max_kb).
	 */
	int pacer_drain_queue_us;

	/** @rtt_adaptive: 0 turns off RTT-based scheduled windows. */
	int rtt_adaptive;

	/** @rtt_window_min: bytes an RTT-based window has at least. */
	int rtt_window_min;

	/**
	 * @rtt_window_measured: 1 builds RTT-based windows on the smaller of
	 * link_mbps and the rate DATA arrived at lately
	 * (homa_rtt_window_mbps()); 0 on link_mbps.
	 */
	int rtt_window_measured;

	/** @unsched_adaptive: 0 keeps the unscheduled window fixed. */
	int unsched_adaptive;

	/**
	 * @rtt_resend: what RESENDs are timed by: HOMA_RESEND_FIXED
	 * (resend_ticks only), HOMA_RESEND_GRANT_RTT or
	 * HOMA_RESEND_SMALLER (homa_rtt_resend_basis()).
	 */
	int rtt_resend;

	/** @rtt_resend_min_us: shortest RTT-timed wait before a RESEND. */
	int rtt_resend_min_us;

	/**
	 * @rtt_congestion_factor: a peer turns congested when its recent RTT
	 * exceeds this many times its rtt_min, and back when the RTT falls
	 * to half of that (0: never congested).
	 */
	int rtt_congestion_factor;

	/**
	 * @rtt_congestion_react: HOMA_REACT_* bits: how this host reacts
	 * to congestion (0: it only measures and signals it).
	 */
	int rtt_congestion_react;

	/**
	 * @rtt_fair_skip_pkts: with HOMA_REACT_FAIR, this many of this
	 * host's largest DATA packets (homa_pace_pkt_max()) are taken off
	 * the queue a peer's data delay shows, as what the peer's own link
	 * and pacer hold ahead of a granted byte (homa_rtt_queue_own()).
	 */
	int rtt_fair_skip_pkts;

	/**
	 * @sched_ip_priority: the IP priority of every DATA packet of
	 * scheduled bytes, whatever its level; -1: the level's, from
	 * @priority_map (homa_prio_data_ip()).
	 */
	int sched_ip_priority;

	/**
	 * @resend_outranked: 1: a receiving RPC counts no silence at a tick
	 * in which DATA at a higher IP priority than its last GRANT's
	 * arrived (strict priority held its bytes back); 0: it does.
	 */
	int resend_outranked;
};

/* The parameter may not be written through sysctl. */
#define HOMA_PARAM_READ_ONLY	0x1

/**
 * struct homa_param - describes one net.homa.* entry.
 */
struct homa_param {
	/** @name: the sysctl's name under net.homa. */
	const char *name;

	/** @offset: byte offset of the value in struct homa_config. */
	u32 offset;

	/** @count: number of ints (1, or the length of an array). */
	u32 count;

	/** @def: default value (of every element, unless @defs). */
	int def;

	/** @defs: per-element defaults for arrays, or NULL. */
	const int *defs;

	/** @min: smallest value accepted. */
	int min;

	/** @max: largest value accepted. */
	int max;

	/** @flags: HOMA_PARAM_* bits. */
	u32 flags;
};

extern const struct homa_param homa_params[];
extern const u32 homa_num_params;

const struct homa_param *homa_param_find(const char *name);
void homa_config_init(struct homa_config *cfg);
int homa_config_check(const struct homa_config *cfg);
int *homa_config_value(struct homa_config *cfg, const struct homa_param *p);

#endif /* _HOMA_CONFIG_H */
