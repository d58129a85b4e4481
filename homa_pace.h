/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The sender's pacer decisions: an estimate of the NIC's transmit
 * queue (the time at which it will be idle), whether a packet may go now,
 * which packets skip the pacer, and which throttled message the pacer
 * sends next. homa_pace.c is a decision file: the caller passes the time
 * (ns, any clock that increases) and holds its own locks.
 */

#ifndef _HOMA_PACE_H
#define _HOMA_PACE_H

#include "homa_types.h"

/*
 * Bytes an Ethernet frame costs on the wire beyond its IP packet:
 * preamble and start delimiter 8, MAC header 14, FCS 4, inter-frame gap 12.
 */
#define HOMA_PACE_ETH_OVERHEAD 38

/* Shortest IP packet an Ethernet frame carries (64-byte minimum frame). */
#define HOMA_PACE_MIN_IP_BYTES 46

/*
 * Message bytes a stored DATA packet may always carry, however slow the
 * link (homa_pace_pkt_max()): on a slow link a packet outlasts any short
 * queue bound anyway, and fewer, larger packets cost less CPU per byte.
 */
#define HOMA_PACE_PKT_FLOOR 10000

/*
 * How slowly the pacer thread's lead forgets a late wake-up: each
 * earlier wake-up takes this fraction of the difference off the lead.
 */
#define HOMA_PACE_LEAD_DECAY 16

/*
 * The unit of the host's held count (homa_pace_held_weight()), and the
 * most units one copy counts for.
 */
#define HOMA_PACE_HELD_UNIT 256
#define HOMA_PACE_HELD_WEIGHT_MAX 255

/*
 * While the held count binds, the pacer learns the rate at which the
 * host's DATA drains (struct homa_pace_drain): a sample needs at least
 * this many units let go of and HOMA_PACE_DRAIN_MIN_NS, in a stretch no
 * longer than HOMA_PACE_DRAIN_MAX_NS; a rate older than
 * HOMA_PACE_DRAIN_FRESH_NS is forgotten.
 */
#define HOMA_PACE_DRAIN_MIN_UNITS 256
#define HOMA_PACE_DRAIN_MIN_NS 1000000ULL
#define HOMA_PACE_DRAIN_MAX_NS 1000000000ULL
#define HOMA_PACE_DRAIN_FRESH_NS 1000000000ULL

/*
 * The least the learned limit goes down to (HOMA_PACE_HELD_UNIT units):
 * 64 KB. Where a copy is held until the receiving host takes it (hosts
 * on one bridge), the count also holds the switch's queue toward each
 * receiver, and below this the host's messages to idle receivers waited
 * behind those to a busy one: on the 16 Mbit/s echo bed, 20-40 KB
 * carried 88-91% of the load, 128 KB 96% (util/README-bench.md).
 */
#define HOMA_PACE_DRAIN_FLOOR_UNITS 256

/*
 * A learned rate at least link_mbps / HOMA_PACE_DRAIN_TRUST_DIV leaves the
 * limit as configured (homa_pace_drain_limit()): link_mbps is about right.
 * On the 16 Mbit/s bed with link_mbps 16, the host drains 14-16 Mbit/s;
 * with link_mbps 25000 (the default), 1500 times less than it says.
 */
#define HOMA_PACE_DRAIN_TRUST_DIV 2

/* A suggested throttle_min_bytes: shorter messages skip the pacer. */
#define HOMA_PACE_DEFAULT_THROTTLE_MIN 1000

/*
 * Most FIFO credit the pacer saves up (per-mille bytes): the oldest
 * message may catch up by at most one 64 KB packet's worth at a time.
 */
#define HOMA_PACE_FIFO_MAX_CREDIT (65536LL * 1000)

/**
 * struct homa_pace_params - the configuration the pacer uses.
 */
struct homa_pace_params {
	/** @link_mbps: uplink rate in Mbit/s (0 counts as 1). */
	u32 link_mbps;

	/** @max_nic_queue_ns: longest NIC queue a new packet may join. */
	u32 max_nic_queue_ns;

	/** @fifo_fraction: per mille of paced bytes for the oldest message. */
	u32 fifo_fraction;

	/** @throttle_min_bytes: messages shorter than this skip the pacer. */
	u32 throttle_min_bytes;

	/**
	 * @held_max: most DATA the host may hold (handed to IP and not yet
	 * let go of, in HOMA_PACE_HELD_UNIT units) before a paced packet
	 * waits, whatever the estimate says; 0: no such limit.
	 */
	u32 held_max;

	/**
	 * @drain_queue_ns: while the held count binds, the host holds at
	 * most this long a queue at the rate it drains (struct
	 * homa_pace_drain), if that is less than @held_max; 0: never.
	 */
	u32 drain_queue_ns;
};

/**
 * struct homa_pace_state - the pacer's memory: one per host, kept by the
 * caller under its pacer lock.
 */
struct homa_pace_state {
	/**
	 * @link_idle: time (ns) at which the NIC will have sent every packet
	 * handed to it so far.
	 */
	u64 link_idle;

	/**
	 * @fifo_credit: SRPT bytes released times fifo_fraction, less FIFO
	 * bytes released times (1000 - fifo_fraction); the oldest message
	 * goes next while it is positive.
	 */
	s64 fifo_credit;

	/**
	 * @held: DATA the host holds (HOMA_PACE_HELD_UNIT units), as the
	 * caller last read it before a decision; the caller keeps it.
	 */
	u32 held;
};

/**
 * struct homa_pace_drain - what the pacer learns of the rate at which the
 * host's DATA leaves it, while the held count binds. Then the host's
 * queue never runs dry (the pacer refills it as copies are let go of),
 * so the copies let go of over such a stretch measure the rate the link
 * gives Homa, whatever link_mbps says. Kept by the caller under its
 * pacer lock.
 */
struct homa_pace_drain {
	/** @start: when the current stretch began (ns); 0: none. */
	u64 start;

	/** @freed0: the host's let-go count (units) at @start. */
	u64 freed0;

	/** @empties0: the host's count of times it held nothing, at @start. */
	u32 empties0;

	/** @rate: the drain rate learned (units per second); 0: none. */
	u64 rate;

	/** @learned: when @rate was last updated (ns). */
	u64 learned;
};

/**
 * struct homa_pace_cand - one throttled message waiting for the pacer.
 */
struct homa_pace_cand {
	/** @id: the RPC's id; not used by the decision, kept for the caller. */
	u64 id;

	/** @birth: when the message was queued; smaller is older. */
	u64 birth;

	/** @remaining: bytes of the message still to transmit. */
	u32 remaining;
};

/* homa_pace_decide() verdicts. */
#define HOMA_PACE_SEND 1
#define HOMA_PACE_THROTTLE 0

void homa_pace_init(struct homa_pace_state *s, u64 now);
u64 homa_pace_wire_ns(u32 bytes, u32 link_mbps);
u64 homa_pace_queue_ns(const struct homa_pace_state *s, u64 now);
int homa_pace_drained(u64 link_idle, u64 bound_ns, u64 now);
u32 homa_pace_held_weight(u32 bytes);
int homa_pace_held_full(const struct homa_pace_state *s,
			const struct homa_pace_params *p);
int homa_pace_may_send(const struct homa_pace_state *s,
		       const struct homa_pace_params *p, u64 now);
u64 homa_pace_wait_ns(const struct homa_pace_state *s,
		      const struct homa_pace_params *p, u64 now);
void homa_pace_sent(struct homa_pace_state *s,
		    const struct homa_pace_params *p, u64 now, u32 bytes);
int homa_pace_bypass(const struct homa_pace_params *p, u32 msg_length,
		     int control);
int homa_pace_decide(struct homa_pace_state *s,
		     const struct homa_pace_params *p, u64 now, u32 bytes,
		     u32 msg_length, int control, int throttled);
int homa_pace_pick(const struct homa_pace_state *s,
		   const struct homa_pace_params *p,
		   const struct homa_pace_cand *cands, u32 n, int *fifo);
void homa_pace_charge(struct homa_pace_state *s,
		      const struct homa_pace_params *p, u32 bytes, int fifo);
u32 homa_pace_pkt_bytes(u32 payload, u32 segs, u32 hdr_bytes);
u32 homa_pace_pkt_max(const struct homa_pace_params *p, u32 max_gso);
u32 homa_pace_pkt_held(u32 pkt, int held_lately);
u32 homa_pace_pkt_slack(u32 slack_ns, u32 link_mbps);
u32 homa_pace_pkt_cut(u32 bytes, u32 room, u32 mss, u32 slack);
u32 homa_pace_pkt_skip(u32 before, u32 mss);
u64 homa_pace_lead(u64 lead, u64 late, u64 max);
int homa_pace_drain_full(struct homa_pace_drain *d, u64 now, u64 freed,
			 u32 empties);
u32 homa_pace_drain_limit(const struct homa_pace_drain *d,
			  const struct homa_pace_params *p, u64 now);

#endif /* _HOMA_PACE_H */
