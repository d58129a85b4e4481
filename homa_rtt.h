/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Per-peer round-trip times and the windows that follow from
 * them: the RTT estimator (minimum, smoothed RTT and variance as in
 * RFC 6298, in ns), the congestion signal, the scheduled window and
 * max_incoming of a receiver, the sender's adaptive unscheduled window,
 * and the retransmission timeout. homa_rtt.c is a decision file: the
 * caller measures the samples and keeps the state.
 */

#ifndef _HOMA_RTT_H
#define _HOMA_RTT_H

#include "homa_types.h"

/* Recent samples kept for the congestion signal. */
#define HOMA_RTT_RECENT 4

/*
 * Congestion: recent RTTs above this many times the minimum (the default
 * of net.homa.rtt_congestion_factor).
 */
#define HOMA_RTT_CONGESTION_FACTOR 8

/*
 * Link rates above this many Mbit/s (2^26, about 67 Tbit/s) count as this
 * when a delay is turned into bytes, so that the product fits in a u64.
 */
#define HOMA_RTT_MBPS_MAX 67108864U

/* The scheduled window covers this many minimum RTTs at link rate. */
#define HOMA_RTT_WINDOW_RTTS 3

/*
 * The arrival rate of a host's DATA (struct homa_rtt_rate): measured over
 * bins of at least this many ns; a bin's rate below the kept maximum takes
 * 1/HOMA_RTT_RATE_DECAY of the difference off it; the rate counts as at
 * least HOMA_RTT_RATE_MIN_MBPS.
 */
#define HOMA_RTT_RATE_BIN_NS 10000000ULL
#define HOMA_RTT_RATE_DECAY 64
#define HOMA_RTT_RATE_MIN_MBPS 1

/*
 * Most doublings of a peer's RESEND timeout that retransmissions arriving
 * as duplicates earn (homa_rtt_backoff()).
 */
#define HOMA_RTT_BACKOFF_MAX 6

/*
 * The share of the grant window a receiver gives a congested peer, in
 * 1/HOMA_RTT_SCALE_FULL (homa_rtt_scale_update()): halved per round trip
 * while congested, down to HOMA_RTT_SCALE_MIN; grown back by
 * HOMA_RTT_SCALE_STEP per round trip when not.
 */
#define HOMA_RTT_SCALE_FULL 1024
#define HOMA_RTT_SCALE_MIN 16
#define HOMA_RTT_SCALE_STEP 128

/*
 * The bytes on their way to a receiver account for a fair part of a queue
 * when they are at least 1/HOMA_RTT_OWN_DIV of it (homa_rtt_queue_own()).
 * A FIFO serves its users in proportion to the bytes each keeps in it.
 * The queue is sized from a delay, which overstates it (the delay also
 * holds a packet's time on the sender's own link and in its pacer); a
 * third rather than a half errs toward the other traffic.
 */
#define HOMA_RTT_OWN_DIV 3

/* Longest sample taken at face value (60 s); longer ones count as this. */
#define HOMA_RTT_MAX_SAMPLE_NS (60ULL * 1000 * 1000 * 1000)

/*
 * The unscheduled window halves when unscheduled bytes are less than
 * this percentage of the bytes sent while messages were throttled.
 */
#define HOMA_RTT_UNSCHED_MIN_PCT 40

/* The unscheduled window grows by 1/this of its maximum per interval. */
#define HOMA_RTT_UNSCHED_GROW_DIV 8

/**
 * struct homa_rtt - what a host knows about its RTT to one peer.
 */
struct homa_rtt {
	/** @rtt_min: smallest sample so far (ns); 0 before the first. */
	u64 rtt_min;

	/** @srtt: smoothed RTT (ns), RFC 6298 SRTT. */
	u64 srtt;

	/** @rttvar: RTT variation (ns), RFC 6298 RTTVAR. */
	u64 rttvar;

	/** @recent: the last HOMA_RTT_RECENT samples (a ring). */
	u64 recent[HOMA_RTT_RECENT];

	/** @next: entry of @recent the next sample goes to. */
	u32 next;

	/** @num_samples: samples taken (stops at 0xffffffff). */
	u32 num_samples;

	/**
	 * @congested: the congestion state, with hysteresis
	 * (homa_rtt_congestion_update()): 1 from when the recent RTT passes
	 * the threshold until it falls to half of it.
	 */
	u8 congested;
};

/**
 * struct homa_rtt_unsched - a sender's adaptive unscheduled window and
 * what it sent in the current interval.
 */
struct homa_rtt_unsched {
	/** @window: bytes of a message it may send before any grant. */
	u32 window;

	/**
	 * @unsched_bytes: unscheduled bytes sent this interval while
	 * messages were throttled.
	 */
	u64 unsched_bytes;

	/** @total_bytes: all bytes sent this interval while throttled. */
	u64 total_bytes;
};

/**
 * struct homa_rtt_rate - the rate at which DATA arrived at a host lately:
 * a maximum over bins of HOMA_RTT_RATE_BIN_NS that forgets slowly, so
 * that it tracks the link's rate while the link is busy now and then, not
 * the average use of it.
 */
struct homa_rtt_rate {
	/** @bin_start: when the current bin began (ns). */
	u64 bin_start;

	/** @bin_bytes: the caller's byte count when it began. */
	u64 bin_bytes;

	/**
	 * @kbps: the kept maximum, kbit/s (0: nothing measured yet); fine
	 * enough that rounding its decay up does not matter on slow links.
	 */
	u32 kbps;
};

void homa_rtt_init(struct homa_rtt *r);
void homa_rtt_sample(struct homa_rtt *r, u64 rtt_ns);
void homa_rtt_sample_min(struct homa_rtt *r, u64 rtt_ns);
u64 homa_rtt_recent(const struct homa_rtt *r);
int homa_rtt_congested(const struct homa_rtt *r, u32 factor);
int homa_rtt_congestion_update(struct homa_rtt *r, u32 factor);
u32 homa_rtt_sched_window(const struct homa_rtt *r, u32 link_mbps);
u32 homa_rtt_window_floor(u32 window, u32 min_bytes);
u32 homa_rtt_window_basis(u32 grant_window, u32 delay_window, u32 min_bytes);
u64 homa_rtt_max_incoming(u32 window, u32 max_overcommit);
u64 homa_rtt_rto(const struct homa_rtt *r, u64 min_ns, u64 max_ns);
u32 homa_rtt_resend_basis(u32 mode, u64 data_rto, u64 grant_rto, u64 *rto);
u32 homa_rtt_ticks(u64 ns, u64 min_ns, u64 max_ns, u32 tick_ns);
u32 homa_rtt_rto_ticks(const struct homa_rtt *r, u64 min_ns, u64 max_ns,
		       u32 tick_ns);
u8 homa_rtt_backoff(u8 level, bool spurious);
u32 homa_rtt_scale_update(u32 scale, bool congested);
int homa_rtt_queue_own(const struct homa_rtt *r, u64 owed, u32 link_mbps,
		       u64 skip);
u32 homa_rtt_backed_off(u32 ticks, u8 level, u32 max_ticks);
bool homa_rtt_backoff_eases(u32 ticks, u8 level, u32 max_ticks,
			    u64 sample_ticks);
void homa_rtt_unsched_init(struct homa_rtt_unsched *u, u32 window);
void homa_rtt_unsched_sent(struct homa_rtt_unsched *u, u32 bytes,
			   int unscheduled, int throttled);
u32 homa_rtt_unsched_update(struct homa_rtt_unsched *u, int throttled,
			    u32 min_window, u32 max_window);
void homa_rtt_rate_init(struct homa_rtt_rate *r, u64 now, u64 bytes);
int homa_rtt_rate_update(struct homa_rtt_rate *r, u64 now, u64 bytes);
u32 homa_rtt_window_mbps(u32 link_mbps, u32 rate_mbps, int measured);

#endif /* _HOMA_RTT_H */
