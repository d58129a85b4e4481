/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The retransmission decisions of the tick (homa_timer.c is the
 * mechanism): each RPC that waits for its peer keeps a probe state, the
 * receive path and sendmsg report events to it, and once per tick a pure
 * function says what to do: nothing, probe the peer (a RESEND when this
 * side receives, a NEED_ACK when a server waits for its ack), give up on
 * a silent peer (timeout), or end an RPC that makes no progress although
 * its peer talks (stall). Only this file writes the probe state.
 */

#ifndef _HOMA_TIMER_POLICY_H
#define _HOMA_TIMER_POLICY_H

#include "homa_types.h"

/*
 * Most doublings of an RPC's probe interval that BUSY answers earn (of
 * the BUSY base interval, homa_probe_params.busy_ms).
 */
#define HOMA_BUSY_BACKOFF_MAX 5

/* Doublings of the probe interval that unanswered probes earn. */
#define HOMA_PROBE_DOUBLINGS 3

/* A probe interval that has surely passed (the first probe after silence). */
#define HOMA_PROBE_OVERDUE_MS (0x7fffffff / 2)

/*
 * Unanswered probes before an RPC may time out: with 20% loss each way a
 * probe and its answer both get through 64% of the time, so 8 failures
 * in a row happen about once in 3500 silences.
 */
#define HOMA_TIMEOUT_PROBES 8

/*
 * Unanswered probes after which each probe asks for its copy at the top
 * level (homa_probe_urgent()): the interval has stopped doubling
 * (HOMA_PROBE_DOUBLINGS), and HOMA_TIMEOUT_PROBES leaves five such
 * probes before the RPC may time out.
 */
#define HOMA_PROBE_URGENT 3

/*
 * Unanswered probes after which each probe asks at the top level once an
 * RPC has asked there before (homa_probe.urgent_once): each silence still
 * tries the highest scheduled level first, once.
 */
#define HOMA_PROBE_URGENT_AGAIN 1

/**
 * enum homa_probe_action - what the tick does for one RPC.
 * @HOMA_PROBE_NONE:    nothing now.
 * @HOMA_PROBE_SEND:    ask the peer: RESEND for what is missing when this
 *                      side receives, NEED_ACK when a server's response
 *                      is all sent (if the peer's probe budget allows;
 *                      then report it with homa_probe_sent()).
 * @HOMA_PROBE_TIMEOUT: the peer is presumed dead: fail or end the RPC.
 * @HOMA_PROBE_STALL:   no progress for stall_ms while the peer talks:
 *                      fail or end the RPC.
 */
enum homa_probe_action {
	HOMA_PROBE_NONE,
	HOMA_PROBE_SEND,
	HOMA_PROBE_TIMEOUT,
	HOMA_PROBE_STALL,
};

/**
 * struct homa_probe - the silence and probe state of one RPC.
 */
struct homa_probe {
	/**
	 * @silent_ms: ms since the peer last sent a packet for the RPC
	 * that does not only ask (homa_probe_heard()), or since this side
	 * let it go on.
	 */
	int silent_ms;

	/** @since_probe_ms: ms since this side last probed the peer. */
	int since_probe_ms;

	/** @probes: probes sent since the peer last spoke. */
	int probes;

	/**
	 * @busy_backoff: BUSY answers since the peer last sent something
	 * else (at most HOMA_BUSY_BACKOFF_MAX); each doubles the interval.
	 */
	int busy_backoff;

	/**
	 * @stall_ms: ms the RPC has waited with no progress (bytes it is
	 * owed, or the ack of its response).
	 */
	int stall_ms;

	/**
	 * @outranked_ms: ms of this silence that counted none because the
	 * missing bytes of a message granted to its end were outranked
	 * (homa_probe_view), up to homa_probe_params.outranked_ms.
	 */
	int outranked_ms;

	/**
	 * @outrank_spent: @outranked_ms reached its bound, or the stall half
	 * of its (homa_probe_stall_half()): outranked ticks count as silence
	 * again, and a NEED_ACK may draw RESENDs, until the silence ends.
	 */
	bool outrank_spent;

	/**
	 * @urgent_once: a probe of this RPC asked at the top level, after
	 * HOMA_PROBE_URGENT unanswered ones (homa_probe_urgent_asked()).
	 * The drops that silenced those probes most likely go on, so for
	 * the rest of the RPC's life its probes ask at the top level after
	 * HOMA_PROBE_URGENT_AGAIN unanswered ones.
	 */
	bool urgent_once;
};

/**
 * struct homa_probe_view - an RPC's situation at one tick, as the
 * mechanism sees it.
 */
struct homa_probe_view {
	/** @receiving: this side waits for its incoming message. */
	bool receiving;

	/**
	 * @held: the incoming message waits for this host (its grants or
	 * buffer space), not for its sender: no silence counts (the stall
	 * does).
	 */
	bool held;

	/**
	 * @grant_wait: @held, with its buffers, only by this host's grant
	 * scheduler, whose FIFO share (grant_fifo_fraction above 0, at most
	 * HOMA_GRANT_MAX_CANDS messages waiting) reaches every waiting
	 * message in time: the stall does not count either.
	 */
	bool grant_wait;

	/**
	 * @outranked: DATA at a higher IP priority than the incoming
	 * message's missing bytes arrived in the last tick: they wait
	 * behind it, so no silence counts (the stall does), and what was
	 * counted stays; once @granted_all, for at most
	 * homa_probe_params.outranked_ms of one silence.
	 */
	bool outranked;

	/**
	 * @granted_all: the incoming message is granted to its end: no
	 * GRANT will raise its level again, so its outranked silence is
	 * bounded (homa_probe_params.outranked_ms).
	 */
	bool granted_all;

	/** @nothing_yet: no byte of the incoming message has arrived. */
	bool nothing_yet;

	/** @peer_silent: the peer host sent nothing for @timeout_ms. */
	bool peer_silent;
};

/**
 * struct homa_probe_params - the timing an RPC is held to at one tick.
 */
struct homa_probe_params {
	/** @timeout_ms: silence after which the RPC may time out. */
	int timeout_ms;

	/** @stall_ms: no progress for this long ends the RPC (0: never). */
	int stall_ms;

	/** @wait_ms: silence before the first probe. */
	int wait_ms;

	/** @interval_ms: the base interval between probes. */
	int interval_ms;

	/**
	 * @busy_ms: the base interval after a BUSY answer instead (the peer
	 * is alive and the bytes wait in its host: no loss to time), doubled
	 * for each BUSY in a row.
	 */
	int busy_ms;

	/**
	 * @drain_ms: the interval after a BUSY is at least this (the time
	 * the link needs to deliver what is already on its way).
	 */
	int drain_ms;

	/**
	 * @outranked_ms: the most ms of one silence that outranked ticks
	 * of a message granted to its end may leave uncounted. Its bytes
	 * outranked for longer were most likely dropped from their band,
	 * or are starved there by data granted after them; a RESEND's
	 * copies come at the highest scheduled level and get through.
	 */
	int outranked_ms;
};

void homa_probe_init(struct homa_probe *p);
void homa_probe_heard(struct homa_probe *p, bool asks, bool busy);
void homa_probe_progress(struct homa_probe *p);
void homa_probe_replied(struct homa_probe *p);
enum homa_probe_action homa_probe_tick(struct homa_probe *p,
				       const struct homa_probe_view *v,
				       const struct homa_probe_params *par,
				       int ms);
void homa_probe_sent(struct homa_probe *p);
bool homa_probe_ask_now(const struct homa_probe *p, int drain_ms,
			bool outranked);
bool homa_probe_urgent(const struct homa_probe *p);
bool homa_probe_stall_half(const struct homa_probe *p,
			   const struct homa_probe_params *par);
void homa_probe_urgent_asked(struct homa_probe *p);

#endif /* _HOMA_TIMER_POLICY_H */
