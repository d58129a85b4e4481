// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_pace.cc - unit tests for homa_pace.c, in the order of its
 * functions, then a long random run. Wire times in the hand-written cases
 * are computed by hand: (IP bytes, at least 46, + 38 bytes of Ethernet
 * framing) * 8 bits, over the rate, rounded up. The random run drives a
 * sender with a throttle queue and a pacer for many simulated packets and
 * compares every choice with a naive model (a NIC that drains packets one
 * after the other; a sort for SRPT), checking that the pacer never
 * releases a packet while the NIC queue is beyond max_nic_queue_ns.
 */

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <tuple>
#include <vector>

extern "C" {
#include "homa_pace.h"
}

#include "unit_util.h"

namespace {

homa_pace_params params(uint32_t mbps, uint32_t queue_ns,
			uint32_t fifo = 0, uint32_t throttle_min = 1000)
{
	homa_pace_params p;

	p.link_mbps = mbps;
	p.max_nic_queue_ns = queue_ns;
	p.fifo_fraction = fifo;
	p.throttle_min_bytes = throttle_min;
	p.held_max = 0;
	p.drain_queue_ns = 0;
	return p;
}

homa_pace_state state(uint64_t idle, int64_t credit = 0)
{
	homa_pace_state s;

	s.link_idle = idle;
	s.fifo_credit = credit;
	s.held = 0;
	return s;
}

homa_pace_cand pc(uint64_t birth, uint32_t remaining)
{
	homa_pace_cand c;

	memset(&c, 0, sizeof(c));
	c.id = birth * 2;
	c.birth = birth;
	c.remaining = remaining;
	return c;
}

/* ---- the naive model ----------------------------------------------------- */

uint64_t model_wire(uint32_t bytes, uint32_t mbps)
{
	/* Widen before adding: 32 bits wrap for bytes near 2^32. */
	unsigned __int128 bits =
		((unsigned __int128)std::max(bytes, 46u) + 38) * 8;
	unsigned __int128 d = mbps ? mbps : 1;
	/* bits / (Mbit/s) = us; times 1000 = ns; round up. */
	unsigned __int128 num = bits * 1000;
	uint64_t q = (uint64_t)(num / d);

	return q * d == num ? q : q + 1;
}

int model_pick(const std::vector<homa_pace_cand> &c, uint32_t fifo_fraction,
	       int64_t credit, int *fifo)
{
	std::vector<uint32_t> idx(c.size());

	*fifo = 0;
	if (c.empty())
		return -ENOENT;
	for (uint32_t i = 0; i < c.size(); i++)
		idx[i] = i;
	auto srpt = *std::min_element(idx.begin(), idx.end(),
		[&](uint32_t a, uint32_t b) {
			return std::make_tuple(c[a].remaining, c[a].birth, a) <
			       std::make_tuple(c[b].remaining, c[b].birth, b);
		});
	auto oldest = *std::min_element(idx.begin(), idx.end(),
		[&](uint32_t a, uint32_t b) {
			return std::make_tuple(c[a].birth, c[a].remaining, a) <
			       std::make_tuple(c[b].birth, c[b].remaining, b);
		});
	if (fifo_fraction && credit > 0 && oldest != srpt) {
		*fifo = 1;
		return (int)oldest;
	}
	return (int)srpt;
}

int64_t model_charge(int64_t credit, uint32_t f, uint32_t bytes, int fifo)
{
	const int64_t cap = 65536LL * 1000;

	f = std::min(f, 1000u);
	credit += fifo ? -(int64_t)bytes * (1000 - f) : (int64_t)bytes * f;
	return std::max(-cap, std::min(cap, credit));
}

/* ---- homa_pace_init ------------------------------------------------------ */

TEST(homa_pace, homa_pace_init__idle_now)
{
	homa_pace_state s = state(0xdead, 77);

	homa_pace_init(&s, 123456789);
	EXPECT_EQ(s.link_idle, 123456789u);
	EXPECT_EQ(s.fifo_credit, 0);
}

/* ---- homa_pace_wire_ns --------------------------------------------------- */

TEST(homa_pace, homa_pace_wire_ns__full_packet)
{
	/* 1538 * 8 bits at 25 Gbit/s = 492.16 ns: 493. */
	EXPECT_EQ(homa_pace_wire_ns(1500, 25000), 493u);
	/* 1500 * 8 bits at 10 Gbit/s = 1200 ns exactly. */
	EXPECT_EQ(homa_pace_wire_ns(1462, 10000), 1200u);
	/* At 16 Mbit/s: 12304 bits = 769 us. */
	EXPECT_EQ(homa_pace_wire_ns(1500, 16), 769000u);
}

TEST(homa_pace, homa_pace_wire_ns__short_packet_padded)
{
	/* (46 + 38) * 8 = 672 bits at 25 Gbit/s = 26.88 ns: 27. */
	EXPECT_EQ(homa_pace_wire_ns(0, 25000), 27u);
	EXPECT_EQ(homa_pace_wire_ns(10, 25000), 27u);
	EXPECT_EQ(homa_pace_wire_ns(46, 25000), 27u);
	/* 47 + 38 = 85 bytes = 680 bits: 27.2 ns: 28. */
	EXPECT_EQ(homa_pace_wire_ns(47, 25000), 28u);
}

TEST(homa_pace, homa_pace_wire_ns__extremes)
{
	EXPECT_EQ(homa_pace_wire_ns(1500, 0), 12304000u);	/* as 1 */
	EXPECT_EQ(homa_pace_wire_ns(1500, 1), 12304000u);
	EXPECT_EQ(homa_pace_wire_ns(0xffffffffu, 1),
		  (0xffffffffull + 38) * 8000);
	EXPECT_EQ(homa_pace_wire_ns(1500, 0xffffffffu), 1u);
	/* The model too, where 32 bits would wrap. */
	EXPECT_EQ(model_wire(0xffffffffu, 1), (0xffffffffull + 38) * 8000);
	EXPECT_EQ(homa_pace_wire_ns(0xffffffe0u, 7), model_wire(0xffffffe0u, 7));
}

TEST(homa_pace, homa_pace_wire_ns__vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int i = 0; i < 100000; i++) {
		uint32_t b = (uint32_t)(rng() % 4 ? rng() % 70000 : rng());
		uint32_t m = (uint32_t)(rng() % 4 ? 1 + rng() % 400000 : rng());

		ASSERT_EQ(homa_pace_wire_ns(b, m), model_wire(b, m))
			<< b << " bytes at " << m;
	}
}

/* ---- homa_pace_queue_ns -------------------------------------------------- */

TEST(homa_pace, homa_pace_queue_ns__basic)
{
	homa_pace_state s = state(5000);

	EXPECT_EQ(homa_pace_queue_ns(&s, 1000), 4000u);
	EXPECT_EQ(homa_pace_queue_ns(&s, 5000), 0u);
	EXPECT_EQ(homa_pace_queue_ns(&s, 9000), 0u);
}

/* ---- homa_pace_drained --------------------------------------------------- */

TEST(homa_pace, homa_pace_drained__bound_inclusive)
{
	/* Queue empty at 10000: 2000 of queue left at 8000. */
	EXPECT_EQ(homa_pace_drained(10000, 2000, 7999), 0);
	EXPECT_EQ(homa_pace_drained(10000, 2000, 8000), 1);
	EXPECT_EQ(homa_pace_drained(10000, 2000, 20000), 1);
	EXPECT_EQ(homa_pace_drained(10000, 0, 9999), 0);
	EXPECT_EQ(homa_pace_drained(10000, 0, 10000), 1);
}

TEST(homa_pace, homa_pace_drained__agrees_with_the_queue)
{
	homa_pace_state s;
	u64 now, bound;
	int i;

	/* The lockless test says what homa_pace_queue_ns() says. */
	srand(7);
	for (i = 0; i < 10000; i++) {
		s = state(rand() % 100000);
		now = rand() % 100000;
		bound = rand() % 20000;
		EXPECT_EQ(homa_pace_drained(s.link_idle, bound, now),
			  homa_pace_queue_ns(&s, now) <= bound ? 1 : 0);
	}
}

/* ---- homa_pace_may_send -------------------------------------------------- */

TEST(homa_pace, homa_pace_may_send__bound_inclusive)
{
	homa_pace_params p = params(25000, 2000);
	homa_pace_state s = state(10000);

	EXPECT_EQ(homa_pace_may_send(&s, &p, 7999), 0);
	EXPECT_EQ(homa_pace_may_send(&s, &p, 8000), 1);	/* exactly 2000 */
	EXPECT_EQ(homa_pace_may_send(&s, &p, 20000), 1);	/* idle */
}

TEST(homa_pace, homa_pace_may_send__zero_bound)
{
	homa_pace_params p = params(25000, 0);
	homa_pace_state s = state(10000);

	EXPECT_EQ(homa_pace_may_send(&s, &p, 9999), 0);
	EXPECT_EQ(homa_pace_may_send(&s, &p, 10000), 1);
}

TEST(homa_pace, homa_pace_may_send__held_full_blocks)
{
	homa_pace_params p = params(25000, 2000);
	homa_pace_state s = state(0);

	p.held_max = 512;
	s.held = 511;
	EXPECT_EQ(homa_pace_may_send(&s, &p, 5000), 1);
	s.held = 512;
	EXPECT_EQ(homa_pace_may_send(&s, &p, 5000), 0);
	/* The time-based wait knows nothing of it. */
	EXPECT_EQ(homa_pace_wait_ns(&s, &p, 5000), 0u);
	p.held_max = 0;
	s.held = 1000000;
	EXPECT_EQ(homa_pace_may_send(&s, &p, 5000), 1);
}

/* ---- homa_pace_held_weight, homa_pace_held_full -------------------------- */

TEST(homa_pace, homa_pace_held_weight__values)
{
	EXPECT_EQ(homa_pace_held_weight(0), 1u);
	EXPECT_EQ(homa_pace_held_weight(1), 1u);
	EXPECT_EQ(homa_pace_held_weight(256), 1u);
	EXPECT_EQ(homa_pace_held_weight(257), 2u);
	EXPECT_EQ(homa_pace_held_weight(1448), 6u);	/* 1536: 6% more */
	EXPECT_EQ(homa_pace_held_weight(10040), 40u);
	EXPECT_EQ(homa_pace_held_weight(255 * 256), 255u);
	EXPECT_EQ(homa_pace_held_weight(255 * 256 + 1), 255u);
	EXPECT_EQ(homa_pace_held_weight(65536), 255u);
	EXPECT_EQ(homa_pace_held_weight(0xffffffffu), 255u);
}

TEST(homa_pace, homa_pace_held_weight__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int i = 0; i < 100000; i++) {
		uint32_t b = (uint32_t)(rng() % (i % 2 ? 70000 : 0x100000000));
		uint64_t m = ((uint64_t)b + 255) / 256;

		m = std::max<uint64_t>(1, std::min<uint64_t>(m, 255));
		ASSERT_EQ(homa_pace_held_weight(b), m) << b;
	}
}

TEST(homa_pace, homa_pace_held_full__rules)
{
	homa_pace_params p = params(25000, 2000);
	homa_pace_state s = state(0);

	s.held = 1000000;
	EXPECT_EQ(homa_pace_held_full(&s, &p), 0);	/* no limit */
	p.held_max = 1;
	s.held = 0;
	EXPECT_EQ(homa_pace_held_full(&s, &p), 0);
	s.held = 1;
	EXPECT_EQ(homa_pace_held_full(&s, &p), 1);
}

/* ---- homa_pace_wait_ns --------------------------------------------------- */

TEST(homa_pace, homa_pace_wait_ns__basic)
{
	homa_pace_params p = params(25000, 2000);
	homa_pace_state s = state(10000);

	EXPECT_EQ(homa_pace_wait_ns(&s, &p, 5000), 3000u);
	EXPECT_EQ(homa_pace_wait_ns(&s, &p, 8000), 0u);
	EXPECT_EQ(homa_pace_wait_ns(&s, &p, 30000), 0u);
	/* After waiting that long, a packet may go. */
	EXPECT_EQ(homa_pace_may_send(&s, &p, 5000 + 3000), 1);
	EXPECT_EQ(homa_pace_may_send(&s, &p, 5000 + 2999), 0);
}

/* ---- homa_pace_sent ------------------------------------------------------ */

TEST(homa_pace, homa_pace_sent__idle_nic)
{
	homa_pace_params p = params(10000, 2000);
	homa_pace_state s = state(100);

	homa_pace_sent(&s, &p, 5000, 1462);
	EXPECT_EQ(s.link_idle, 6200u);
}

TEST(homa_pace, homa_pace_sent__busy_nic_queues_behind)
{
	homa_pace_params p = params(10000, 2000);
	homa_pace_state s = state(9000);

	homa_pace_sent(&s, &p, 5000, 1462);
	EXPECT_EQ(s.link_idle, 10200u);
	homa_pace_sent(&s, &p, 5000, 1462);
	EXPECT_EQ(s.link_idle, 11400u);
	EXPECT_EQ(s.fifo_credit, 0);
}

/* ---- homa_pace_bypass ---------------------------------------------------- */

TEST(homa_pace, homa_pace_bypass__rules)
{
	homa_pace_params p = params(25000, 2000, 0, 1000);

	EXPECT_EQ(homa_pace_bypass(&p, 999, 0), 1);
	EXPECT_EQ(homa_pace_bypass(&p, 1000, 0), 0);
	EXPECT_EQ(homa_pace_bypass(&p, 500000, 0), 0);
	EXPECT_EQ(homa_pace_bypass(&p, 500000, 1), 1);
	EXPECT_EQ(homa_pace_bypass(&p, 0, 1), 1);
	p.throttle_min_bytes = 0;
	EXPECT_EQ(homa_pace_bypass(&p, 1, 0), 0);
}

/* ---- homa_pace_decide ------------------------------------------------------ */

TEST(homa_pace, homa_pace_xmit__sends_when_queue_short)
{
	homa_pace_params p = params(10000, 2000);
	homa_pace_state s = state(6000);

	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 1462, 100000, 0, 0),
		  HOMA_PACE_SEND);
	EXPECT_EQ(s.link_idle, 7200u);
}

TEST(homa_pace, homa_pace_xmit__throttles_when_queue_long)
{
	homa_pace_params p = params(10000, 2000);
	homa_pace_state s = state(6001);

	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 1462, 100000, 0, 0),
		  HOMA_PACE_THROTTLE);
	EXPECT_EQ(s.link_idle, 6001u);
}

TEST(homa_pace, homa_pace_xmit__waits_behind_throttled)
{
	homa_pace_params p = params(10000, 2000);
	homa_pace_state s = state(0);

	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 1462, 100000, 0, 1),
		  HOMA_PACE_THROTTLE);
	EXPECT_EQ(s.link_idle, 0u);
}

TEST(homa_pace, homa_pace_xmit__bypass_ignores_queue)
{
	homa_pace_params p = params(10000, 2000);
	homa_pace_state s = state(1000000);

	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 100, 100, 0, 1),
		  HOMA_PACE_SEND);
	/* (100 + 38) * 8 bits at 10 Gbit/s = 110.4 ns: 111. */
	EXPECT_EQ(s.link_idle, 1000111u);
	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 40, 500000, 1, 1),
		  HOMA_PACE_SEND);
	EXPECT_EQ(s.link_idle, 1000111u + 68);	/* 84 bytes: 67.2 ns */
}

TEST(homa_pace, homa_pace_xmit__held_full_throttles_paced_only)
{
	homa_pace_params p = params(10000, 2000);
	homa_pace_state s = state(0);

	p.held_max = 256;
	s.held = 256;
	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 1462, 100000, 0, 0),
		  HOMA_PACE_THROTTLE);
	EXPECT_EQ(s.link_idle, 0u);
	/* Short messages and control packets still go. */
	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 100, 100, 0, 0),
		  HOMA_PACE_SEND);
	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 40, 100000, 1, 0),
		  HOMA_PACE_SEND);
	s.held = 255;
	s.link_idle = 0;
	EXPECT_EQ(homa_pace_decide(&s, &p, 4000, 1462, 100000, 0, 0),
		  HOMA_PACE_SEND);
}

/*
 * A host whose link_mbps is far above what its queue drains: the pacer
 * runs against a model of a FIFO host queue that sends @true_mbps, with
 * a backlog of 10 KB paced packets, for @ms of simulated time in 10 us
 * steps. Return the most the queue held (256-byte units); *@idle_ns: time the
 * queue sat empty with packets waiting for the pacer.
 */
uint32_t slow_queue_max(uint32_t link_mbps, uint32_t true_mbps,
			uint32_t held_max, uint32_t ms, uint64_t *idle_ns)
{
	homa_pace_params p = params(link_mbps, 25000);
	homa_pace_state s;
	std::deque<uint32_t> q;	/* packets' wire bytes, head first */
	uint64_t left = 0;	/* head's wire ns still to go */
	uint32_t held = 0, most = 0;
	const uint32_t pkt = 10000 + 40;

	p.held_max = held_max;
	homa_pace_init(&s, 0);
	*idle_ns = 0;
	for (uint64_t now = 0; now < (uint64_t)ms * 1000000; now += 10000) {
		uint64_t step = 10000;

		/* The queue drains for one step; a sent copy is let go. */
		while (!q.empty() && step) {
			uint64_t d = std::min(step, left);

			left -= d;
			step -= d;
			if (left == 0) {
				held -= homa_pace_held_weight(q.front());
				q.pop_front();
				if (!q.empty())
					left = homa_pace_wire_ns(q.front(),
								 true_mbps);
			}
		}
		if (q.empty() && now > 0)
			*idle_ns += step;
		/* The pacer, with a backlog that never ends. */
		s.held = held;
		while (homa_pace_may_send(&s, &p, now)) {
			homa_pace_sent(&s, &p, now, pkt);
			if (q.empty())
				left = homa_pace_wire_ns(pkt, true_mbps);
			q.push_back(pkt);
			held += homa_pace_held_weight(pkt);
			most = std::max(most, held);
			s.held = held;
		}
	}
	return most;
}

TEST(homa_pace, homa_pace_held__slow_queue_bounded)
{
	uint64_t idle;
	uint32_t most;

	/* link_mbps 25000 on a 16 Mbit/s queue, as issue 13's bed. */
	most = slow_queue_max(25000, 16, 512, 200, &idle);
	EXPECT_LE(most, 512u + 40u);	/* one 10 KB packet past it */
	EXPECT_GE(most, 512u);
	EXPECT_EQ(idle, 0u) << "the limit left the link idle";
	/* Without the limit, the estimate alone lets the queue grow. */
	most = slow_queue_max(25000, 16, 0, 200, &idle);
	EXPECT_GT(most, 40000u);
	/* With link_mbps right, the estimate keeps it short anyway. */
	most = slow_queue_max(16, 16, 512, 200, &idle);
	EXPECT_LE(most, 80u);
	EXPECT_EQ(idle, 0u);
}

/* ---- homa_pace_drain_full, homa_pace_drain_limit ------------------------- */

TEST(homa_pace, homa_pace_drain_full__samples)
{
	const uint64_t ms = 1000000;
	homa_pace_drain d = {};

	/* The first full point starts a stretch. */
	EXPECT_EQ(homa_pace_drain_full(&d, 10 * ms, 1000, 3), 0);
	EXPECT_EQ(d.start, 10 * ms);
	EXPECT_EQ(d.freed0, 1000u);
	EXPECT_EQ(d.rate, 0u);
	/* Too few units, then too little time: no sample yet. */
	EXPECT_EQ(homa_pace_drain_full(&d, 50 * ms, 1255, 3), 0);
	EXPECT_EQ(homa_pace_drain_full(&d, 10 * ms + ms / 2, 2000, 3), 0);
	EXPECT_EQ(d.start, 10 * ms);
	/* 512 units in 64 ms: 8000 units/s. */
	EXPECT_EQ(homa_pace_drain_full(&d, 74 * ms, 1512, 3), 1);
	EXPECT_EQ(d.rate, 8000u);
	EXPECT_EQ(d.learned, 74 * ms);
	EXPECT_EQ(d.start, 74 * ms);
	EXPECT_EQ(d.freed0, 1512u);
	/* A fresh rate moves a quarter of the way: 16000 -> 10000. */
	EXPECT_EQ(homa_pace_drain_full(&d, 106 * ms, 2024, 3), 1);
	EXPECT_EQ(d.rate, 10000u);
	/* The host ran dry meanwhile: a new stretch, the rate kept. */
	EXPECT_EQ(homa_pace_drain_full(&d, 200 * ms, 9000, 4), 0);
	EXPECT_EQ(d.rate, 10000u);
	EXPECT_EQ(d.start, 200 * ms);
	EXPECT_EQ(d.empties0, 4u);
	/* A stretch longer than HOMA_PACE_DRAIN_MAX_NS: restarted. */
	EXPECT_EQ(homa_pace_drain_full(&d, 1201 * ms, 20000, 4), 0);
	EXPECT_EQ(d.start, 1201 * ms);
	EXPECT_EQ(d.freed0, 20000u);
	/* A count that went back (cannot, but): restarted. */
	EXPECT_EQ(homa_pace_drain_full(&d, 1300 * ms, 100, 4), 0);
	EXPECT_EQ(d.freed0, 100u);
	/* A stale rate is replaced, not averaged: 1024 units in 2 ms. */
	d.learned = 0;
	EXPECT_EQ(homa_pace_drain_full(&d, 1302 * ms, 1124, 4), 1);
	EXPECT_EQ(d.rate, 512000u);
}

TEST(homa_pace, homa_pace_drain_limit__values)
{
	const uint64_t now = 5000000000ull;
	const uint32_t floor = HOMA_PACE_DRAIN_FLOOR_UNITS;
	static const struct {
		const char *what;
		uint64_t rate;		/* units/s; 0: nothing learned */
		uint64_t age;		/* ns since it was learned */
		uint32_t held_max;
		uint32_t queue_ns;
		uint32_t limit;
	} cases[] = {
		{ "nothing learned", 0, 1000, 512, 2000000, 512 },
		{ "200000/s for 2 ms", 200000, 1000, 512, 2000000, 400 },
		{ "100000/s: 200, the floor", 100000, 1000, 512, 2000000, 256 },
		{ "16 Mbit/s: 15, the floor", 7812, 1000, 512, 2000000, floor },
		{ "fast: the configured limit", 48828125, 1000, 512, 2000000,
		  512 },
		{ "configured below the floor", 7812, 1000, 40, 2000000, 40 },
		{ "off", 7812, 1000, 512, 0, 512 },
		{ "no limit at all", 7812, 1000, 0, 2000000, 0 },
		{ "stale", 7812, HOMA_PACE_DRAIN_FRESH_NS + 1, 512, 2000000,
		  512 },
		{ "just fresh", 7812, HOMA_PACE_DRAIN_FRESH_NS, 512, 2000000,
		  floor },
	};

	for (const auto &c : cases) {
		homa_pace_params p = params(25000, 25000);
		homa_pace_drain d = {};

		d.rate = c.rate;
		d.learned = now - c.age;
		p.held_max = c.held_max;
		p.drain_queue_ns = c.queue_ns;
		EXPECT_EQ(homa_pace_drain_limit(&d, &p, now), c.limit)
			<< c.what;
	}
}

TEST(homa_pace, homa_pace_drain_limit__link_mbps_right)
{
	const uint64_t now = 5000000000ull;
	/* 16 Mbit/s in units per second: 7812.5. */
	static const struct {
		const char *what;
		uint32_t link_mbps;
		uint64_t rate;
		uint32_t limit;
	} cases[] = {
		{ "drains at link_mbps", 16, 7812, 512 },
		{ "drains at 87% of it (the bed)", 16, 6790, 512 },
		{ "drains at half of it", 16, 3907, 512 },
		{ "drains at a little under half", 16, 3900,
		  HOMA_PACE_DRAIN_FLOOR_UNITS },
		{ "link_mbps 1500 times too high", 25000, 7812,
		  HOMA_PACE_DRAIN_FLOOR_UNITS },
		{ "link_mbps 0 counts as 1", 0, 245, 512 },
		{ "link_mbps 0, slower than 1 Mbit/s", 0, 243,
		  HOMA_PACE_DRAIN_FLOOR_UNITS },
	};

	for (const auto &c : cases) {
		homa_pace_params p = params(c.link_mbps, 25000);
		homa_pace_drain d = {};

		d.rate = c.rate;
		d.learned = now - 1000;
		p.held_max = 512;
		p.drain_queue_ns = 2000000;
		EXPECT_EQ(homa_pace_drain_limit(&d, &p, now), c.limit)
			<< c.what;
	}
}

/*
 * The pacer thread against a model of a host queue that drains
 * @true_mbps, with link_mbps 25000, pacer_held_max_kb 128, a backlog of
 * 10 KB packets and pacer_drain_queue_us @queue_us, for @ms of simulated
 * time in 10 us steps. Like homa_pacer_step(), the thread sends while the
 * host holds less than homa_pace_drain_limit() allows, and when it holds
 * that much, calls homa_pace_drain_full() and sleeps until a copy is let
 * go of, waking a random 0-@late_ns later. Sets *@most to the most the
 * host held after the first @settle_ms, *@idle_ns to the time the queue
 * sat empty meanwhile, and returns the rate learned (units/s).
 */
struct drain_run {
	uint64_t rate;
	uint32_t most;
	uint64_t idle_ns;
	uint32_t samples;
};

drain_run drain_model(uint32_t true_mbps, uint32_t queue_us,
		      uint64_t late_ns, uint32_t ms, uint32_t settle_ms,
		      uint64_t seed)
{
	std::mt19937_64 rng(seed);
	homa_pace_params p = params(25000, 25000);
	homa_pace_state s;
	homa_pace_drain d = {};
	std::deque<uint32_t> q;
	uint64_t left = 0, freed = 0, wake = 0;
	uint32_t held = 0, empties = 0;
	bool waiting = false;
	const uint32_t pkt = 10000 + 60;
	drain_run r = {};

	p.held_max = 512;
	p.drain_queue_ns = queue_us * 1000;
	homa_pace_init(&s, 1);
	for (uint64_t now = 1; now < (uint64_t)ms * 1000000; now += 10000) {
		uint64_t step = 10000;
		bool settled = now >= (uint64_t)settle_ms * 1000000;

		while (!q.empty() && step) {
			uint64_t dt = std::min(step, left);

			left -= dt;
			step -= dt;
			if (left)
				continue;
			held -= homa_pace_held_weight(q.front());
			freed += homa_pace_held_weight(q.front());
			if (held == 0)
				empties++;
			q.pop_front();
			if (!q.empty())
				left = homa_pace_wire_ns(q.front(), true_mbps);
			/* A copy let go of wakes the waiting thread. */
			if (waiting && !wake)
				wake = now + 1 + rng() % (late_ns + 1);
		}
		if (q.empty() && settled)
			r.idle_ns += 10000;
		if (waiting && (!wake || now < wake))
			continue;
		waiting = false;
		wake = 0;
		for (;;) {
			homa_pace_params lp = p;

			lp.held_max = homa_pace_drain_limit(&d, &p, now);
			s.held = held;
			if (homa_pace_held_full(&s, &lp)) {
				r.samples += homa_pace_drain_full(&d, now, freed,
								  empties);
				waiting = true;		/* until a let-go */
				break;
			}
			homa_pace_sent(&s, &p, now, pkt);
			if (q.empty())
				left = homa_pace_wire_ns(pkt, true_mbps);
			q.push_back(pkt);
			held += homa_pace_held_weight(pkt);
			if (settled)
				r.most = std::max(r.most, held);
		}
	}
	r.rate = d.rate;
	return r;
}

TEST(homa_pace, homa_pace_drain__slow_queue_model)
{
	const uint64_t seed = unit::test_seed();
	/* 16 Mbit/s in 256-byte units per second. */
	const double units16 = 16e6 / 8 / 256;
	drain_run r;

	SCOPED_TRACE(unit::seed_msg(seed));
	/* Issue 13's bed: wake-ups up to 2 ms late, packets of 5 ms. */
	r = drain_model(16, 2000, 2000000, 3000, 500, seed);
	EXPECT_GT(r.samples, 10u);
	/* Packets go whole, so the rate reads a little low or high. */
	EXPECT_NEAR((double)r.rate, units16, units16 * 0.05);
	/* The floor binds: at most one packet past 256 units, not 512. */
	EXPECT_LE(r.most, (uint32_t)HOMA_PACE_DRAIN_FLOOR_UNITS - 1 + 40);
	EXPECT_EQ(r.idle_ns, 0u) << "the learned limit left the link idle";
	/* Turned off: the configured limit binds, as before. */
	r = drain_model(16, 0, 2000000, 3000, 500, seed);
	EXPECT_GE(r.most, 512u);
	EXPECT_EQ(r.idle_ns, 0u);
	/* 400 Mbit/s, 2 ms: 390 units, between the floor and 512. */
	r = drain_model(400, 2000, 50000, 600, 100, seed);
	EXPECT_NEAR((double)r.rate, 400e6 / 8 / 256, 400e6 / 8 / 256 * 0.05);
	EXPECT_LE(r.most, 390u + 40u + 8u);
	EXPECT_GE(r.most, 390u - 8u);
	/*
	 * 100 Mbit/s, wake-ups up to 8 ms late, longer than the learned
	 * queue (64 KB: 5.2 ms): the host runs dry, and those stretches are not
	 * samples, so the rate does not read much low (3-8% over seeds, a
	 * packet's rounding; 37% with the dry stretches counted).
	 */
	r = drain_model(100, 2000, 8000000, 3000, 100, seed);
	EXPECT_GT(r.samples, 5u);
	EXPECT_GT(r.idle_ns, 0u);
	EXPECT_GT((double)r.rate, 100e6 / 8 / 256 * 0.9);
	EXPECT_LT((double)r.rate, 100e6 / 8 / 256 * 1.05);
	/* 2 Gbit/s: 2 ms drain more than 128 KB, so no change. */
	r = drain_model(2000, 2000, 50000, 300, 50, seed);
	EXPECT_GE(r.most, 512u);
	EXPECT_EQ(r.idle_ns, 0u);
}

/* ---- homa_pace_pick ------------------------------------------------------ */

TEST(homa_pace, homa_pace_pick__empty)
{
	homa_pace_params p = params(10000, 2000, 50);
	homa_pace_state s = state(0, 1000);
	int fifo = 7;

	EXPECT_EQ(homa_pace_pick(&s, &p, nullptr, 0, &fifo), -ENOENT);
	EXPECT_EQ(fifo, 0);
}

TEST(homa_pace, homa_pace_pick__srpt)
{
	homa_pace_params p = params(10000, 2000, 50);
	homa_pace_state s = state(0, 0);
	std::vector<homa_pace_cand> c = { pc(1, 90000), pc(2, 5000),
					  pc(3, 7000) };
	int fifo = 7;

	EXPECT_EQ(homa_pace_pick(&s, &p, c.data(), 3, &fifo), 1);
	EXPECT_EQ(fifo, 0);
}

TEST(homa_pace, homa_pace_pick__ties)
{
	homa_pace_params p = params(10000, 2000, 50);
	homa_pace_state s = state(0, 0);
	std::vector<homa_pace_cand> c = { pc(5, 5000), pc(2, 5000),
					  pc(2, 5000) };
	int fifo;

	EXPECT_EQ(homa_pace_pick(&s, &p, c.data(), 3, &fifo), 1);
}

TEST(homa_pace, homa_pace_pick__fifo_when_credit)
{
	homa_pace_params p = params(10000, 2000, 50);
	homa_pace_state s = state(0, 1);
	std::vector<homa_pace_cand> c = { pc(9, 5000), pc(1, 90000),
					  pc(1, 80000) };
	int fifo = 0;

	/* Oldest: birth 1, fewer remaining of the two: index 2. */
	EXPECT_EQ(homa_pace_pick(&s, &p, c.data(), 3, &fifo), 2);
	EXPECT_EQ(fifo, 1);
}

TEST(homa_pace, homa_pace_pick__no_fifo_without_credit_or_fraction)
{
	homa_pace_params p = params(10000, 2000, 50);
	homa_pace_state s = state(0, 0);
	std::vector<homa_pace_cand> c = { pc(9, 5000), pc(1, 90000) };
	int fifo = 1;

	EXPECT_EQ(homa_pace_pick(&s, &p, c.data(), 2, &fifo), 0);
	EXPECT_EQ(fifo, 0);
	s.fifo_credit = 1000;
	p.fifo_fraction = 0;
	EXPECT_EQ(homa_pace_pick(&s, &p, c.data(), 2, &fifo), 0);
	EXPECT_EQ(fifo, 0);
}

TEST(homa_pace, homa_pace_pick__oldest_is_also_shortest)
{
	homa_pace_params p = params(10000, 2000, 50);
	homa_pace_state s = state(0, 5000);
	std::vector<homa_pace_cand> c = { pc(1, 5000), pc(2, 90000) };
	int fifo = 1;

	EXPECT_EQ(homa_pace_pick(&s, &p, c.data(), 2, &fifo), 0);
	EXPECT_EQ(fifo, 0);
}

/* ---- homa_pace_charge ---------------------------------------------------- */

TEST(homa_pace, homa_pace_charge__srpt_and_fifo)
{
	homa_pace_params p = params(10000, 2000, 50);
	homa_pace_state s = state(0, 0);

	homa_pace_charge(&s, &p, 1500, 0);
	EXPECT_EQ(s.fifo_credit, 75000);
	homa_pace_charge(&s, &p, 1500, 1);
	EXPECT_EQ(s.fifo_credit, 75000 - 1425000);
	EXPECT_EQ(s.link_idle, 0u);
}

TEST(homa_pace, homa_pace_charge__limits)
{
	homa_pace_params p = params(10000, 2000, 500);
	homa_pace_state s = state(0, 0);

	for (int i = 0; i < 200; i++)
		homa_pace_charge(&s, &p, 65536, 0);
	EXPECT_EQ(s.fifo_credit, 65536LL * 1000);
	for (int i = 0; i < 300; i++)
		homa_pace_charge(&s, &p, 65536, 1);
	EXPECT_EQ(s.fifo_credit, -65536LL * 1000);
	p.fifo_fraction = 5000;	/* counts as 1000 */
	s.fifo_credit = 0;
	homa_pace_charge(&s, &p, 10, 1);
	EXPECT_EQ(s.fifo_credit, 0);
	homa_pace_charge(&s, &p, 10, 0);
	EXPECT_EQ(s.fifo_credit, 10000);
}

TEST(homa_pace, homa_pace_charge__fifo_share_converges)
{
	/* Always two waiting: an old long one and a newer short one. */
	homa_pace_params p = params(10000, 2000, 80);
	homa_pace_state s = state(0, 0);
	std::vector<homa_pace_cand> c = { pc(1, 1000000000), pc(2, 3000) };
	uint64_t fifo_bytes = 0, all = 0;

	for (int i = 0; i < 100000; i++) {
		int fifo;
		int k = homa_pace_pick(&s, &p, c.data(), 2, &fifo);
		uint32_t bytes = 1000 + (uint32_t)(i * 7919 % 500);

		ASSERT_EQ(k, fifo ? 0 : 1);
		homa_pace_charge(&s, &p, bytes, fifo);
		all += bytes;
		fifo_bytes += fifo ? bytes : 0;
	}
	EXPECT_NEAR((double)fifo_bytes / (double)all, 0.08, 0.001);
}

/*
 * A sender over simulated time: messages appear, their packets try to go
 * with homa_pace_decide(), and the pacer drains the throttle queue with
 * homa_pace_pick() while homa_pace_may_send() allows. Everything is
 * compared with the model, and no paced packet may join a NIC queue
 * longer than max_nic_queue_ns.
 */
TEST(homa_pace, homa_pace_xmit__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	uint64_t paced = 0, bypassed = 0, fifo_picks = 0;

	printf("homa_pace_xmit__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int run = 0; run < 30; run++) {
		homa_pace_params p = params(
			100 + (uint32_t)(rng() % 40000),
			(uint32_t)(rng() % 5000),
			rng() % 4 ? (uint32_t)(rng() % 501) : 0,
			(uint32_t)(rng() % 3000));
		homa_pace_state s;
		uint64_t now = rng() % 1000000;
		uint64_t m_idle = now;	/* model: NIC busy until */
		int64_t m_credit = 0;
		uint64_t max_wire = homa_pace_wire_ns(1560, p.link_mbps);
		std::vector<homa_pace_cand> thr;

		SCOPED_TRACE("run " + std::to_string(run));
		homa_pace_init(&s, now);
		for (int step = 0; step < 3000; step++) {
			now += rng() % (2 * max_wire + 1);
			/* New messages try to send their first packet. */
			while (thr.size() < 40 && rng() % 3 == 0) {
				uint32_t len = 1 + (uint32_t)(rng() %
					(rng() % 2 ? 2000 : 200000));
				uint32_t pkt = std::min(len, 1500u) + 60;
				int control = rng() % 5 == 0;
				bool bypass = control ||
					      len < p.throttle_min_bytes;
				uint64_t q = m_idle > now ? m_idle - now : 0;
				bool go = bypass ||
					  (thr.empty() &&
					   q <= p.max_nic_queue_ns);
				int rc = homa_pace_decide(&s, &p, now, pkt, len,
							control,
							!thr.empty());

				ASSERT_EQ(rc, go ? HOMA_PACE_SEND :
					       HOMA_PACE_THROTTLE);
				if (go) {
					m_idle = std::max(m_idle, now) +
						 model_wire(pkt, p.link_mbps);
					bypassed += bypass;
					if (control || len <= 1500)
						continue;
					len -= 1500;
				}
				thr.push_back(pc(now, len));
				thr.back().id = step;
			}
			ASSERT_EQ(s.link_idle, m_idle);

			/* The pacer. */
			while (!thr.empty() &&
			       homa_pace_may_send(&s, &p, now)) {
				uint64_t q = m_idle > now ? m_idle - now : 0;
				int fifo, mfifo;
				int k = homa_pace_pick(&s, &p, thr.data(),
						       (uint32_t)thr.size(),
						       &fifo);
				int mk = model_pick(thr, p.fifo_fraction,
						    m_credit, &mfifo);
				uint32_t bytes;

				ASSERT_LE(q, p.max_nic_queue_ns)
					<< "released beyond the bound";
				ASSERT_EQ(k, mk);
				ASSERT_EQ(fifo, mfifo);
				bytes = std::min(thr[k].remaining, 1500u);
				homa_pace_sent(&s, &p, now, bytes + 60);
				m_idle = std::max(m_idle, now) +
					 model_wire(bytes + 60, p.link_mbps);
				homa_pace_charge(&s, &p, bytes, fifo);
				m_credit = model_charge(m_credit,
							p.fifo_fraction,
							bytes, fifo);
				ASSERT_EQ(s.fifo_credit, m_credit);
				ASSERT_LE(homa_pace_queue_ns(&s, now),
					  p.max_nic_queue_ns + max_wire);
				thr[k].remaining -= bytes;
				if (thr[k].remaining == 0)
					thr.erase(thr.begin() + k);
				paced++;
				fifo_picks += fifo;
			}
			ASSERT_EQ(s.link_idle, m_idle);
			if (!thr.empty()) {
				uint64_t w = homa_pace_wait_ns(&s, &p, now);

				ASSERT_GT(w, 0u);
				ASSERT_EQ(homa_pace_may_send(&s, &p, now + w),
					  1);
			}
		}
	}
	printf("  %llu paced, %llu bypassed, %llu FIFO picks\n",
	       (unsigned long long)paced, (unsigned long long)bypassed,
	       (unsigned long long)fifo_picks);
	EXPECT_GT(paced, 1000u);
	EXPECT_GT(bypassed, 100u);
	EXPECT_GT(fifo_picks, 0u);
}

/* ---- homa_pace_pkt_bytes ------------------------------------------------- */

TEST(homa_pace, homa_pace_pkt_bytes__values)
{
	/* One segment: payload and one set of headers. */
	EXPECT_EQ(homa_pace_pkt_bytes(1400, 1, 76), 1476u);
	EXPECT_EQ(homa_pace_pkt_bytes(1400, 0, 76), 1476u);
	/* Three segments: three sets of headers, two more frame overheads. */
	EXPECT_EQ(homa_pace_pkt_bytes(4200, 3, 76), 4200u + 3 * 76 + 2 * 38);
	EXPECT_EQ(homa_pace_pkt_bytes(0, 1, 0), 0u);
	EXPECT_EQ(homa_pace_pkt_bytes(0xffffffffu, 0xffffffffu, 100),
		  0xffffffffu);
}

TEST(homa_pace, homa_pace_pkt_bytes__matches_wire_time_of_segments)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int i = 0; i < 20000; i++) {
		uint32_t segs = 1 + rng() % 40, hdr = 46 + rng() % 100;
		uint32_t mbps = 1 + rng() % 100000, payload = 0;
		uint64_t bits = 0;

		/* The model: each segment is its own frame on the wire. */
		for (uint32_t k = 0; k < segs; k++) {
			uint32_t part = rng() % 9000;

			payload += part;
			bits += (uint64_t)(part + hdr + 38) * 8;
		}
		uint32_t b = homa_pace_pkt_bytes(payload, segs, hdr);

		ASSERT_EQ(((uint64_t)b + 38) * 8, bits);
		/* One call of homa_pace_wire_ns() times them all. */
		ASSERT_EQ(homa_pace_wire_ns(b, mbps),
			  (bits * 1000 + mbps - 1) / mbps);
	}
}

/* ---- homa_pace_pkt_max --------------------------------------------------- */

/* homa_pace_pkt_max() for a link of @mbps and a bound of @ns. */
uint32_t pkt_max(uint32_t mbps, uint32_t ns, uint32_t gso)
{
	homa_pace_params p = params(mbps, ns);

	return homa_pace_pkt_max(&p, gso);
}

TEST(homa_pace, homa_pace_pkt_max__values)
{
	/* 25 Gbit/s, 25 us: 78125 bytes on the wire, so max_gso_size rules. */
	EXPECT_EQ(pkt_max(25000, 25000, 65536), 65536u);
	/* 10 Gbit/s, 25 us: 31250 bytes. */
	EXPECT_EQ(pkt_max(10000, 25000, 65536), 31250u);
	/* 16 Mbit/s: 50 bytes in 25 us, so the floor. */
	EXPECT_EQ(pkt_max(16, 25000, 65536), 10000u);
	/* max_gso_size below the floor wins. */
	EXPECT_EQ(pkt_max(16, 25000, 1000), 1000u);
	/* Bound 0: the floor. Huge values do not overflow. */
	EXPECT_EQ(pkt_max(25000, 0, 65536), 10000u);
	EXPECT_EQ(pkt_max(10000000, 1000000000, 65536), 65536u);
}

TEST(homa_pace, homa_pace_pkt_held__floor_when_held)
{
	EXPECT_EQ(homa_pace_pkt_held(65536, 0), 65536u);
	EXPECT_EQ(homa_pace_pkt_held(65536, 1), (uint32_t)HOMA_PACE_PKT_FLOOR);
	EXPECT_EQ(homa_pace_pkt_held(10000, 1), 10000u);
	EXPECT_EQ(homa_pace_pkt_held(5000, 1), 5000u);	/* max_gso_size */
	/* link_mbps 25000 on the 16 Mbit/s bed: 64 KB, or 10000 held. */
	homa_pace_params p = params(25000, 25000);

	EXPECT_EQ(homa_pace_pkt_held(homa_pace_pkt_max(&p, 65536), 1),
		  10000u);
}

/* ---- homa_pace_pkt_cut, homa_pace_pkt_skip ------------------------------- */

TEST(homa_pace, homa_pace_pkt_cut__values)
{
	/* Room for all of it, or more: the packet goes whole. */
	EXPECT_EQ(homa_pace_pkt_cut(8688, 8688, 1448, 0), 8688u);
	EXPECT_EQ(homa_pace_pkt_cut(8688, 10000, 1448, 0), 8688u);
	/* One byte granted: one segment. */
	EXPECT_EQ(homa_pace_pkt_cut(8688, 1, 1448, 0), 1448u);
	/* A segment boundary exactly, and one byte past it. */
	EXPECT_EQ(homa_pace_pkt_cut(8688, 2896, 1448, 0), 2896u);
	EXPECT_EQ(homa_pace_pkt_cut(8688, 2897, 1448, 0), 4344u);
	/* Room in the last segment, which is short: whole packet. */
	EXPECT_EQ(homa_pace_pkt_cut(5000, 4345, 1448, 0), 5000u);
	EXPECT_EQ(homa_pace_pkt_cut(5000, 4344, 1448, 0), 4344u);
	/* A one-segment packet (mss 0) is never cut. */
	EXPECT_EQ(homa_pace_pkt_cut(1000, 1, 0, 0), 1000u);
	/* No room: nothing. */
	EXPECT_EQ(homa_pace_pkt_cut(8688, 0, 1448, 0), 0u);
	EXPECT_EQ(homa_pace_pkt_cut(1000, 0, 0, 0), 0u);
	/* 64 KB packets: no overflow near the top. */
	EXPECT_EQ(homa_pace_pkt_cut(65000, 64999, 65000, 0), 65000u);
	EXPECT_EQ(homa_pace_pkt_cut(0xffffffffu, 0xfffffffeu, 0x80000000u, 0),
		  0xffffffffu);
	/* Within the slack the packet goes whole; one byte more, cut. */
	EXPECT_EQ(homa_pace_pkt_cut(8688, 1, 1448, 8687), 8688u);
	EXPECT_EQ(homa_pace_pkt_cut(8688, 1, 1448, 8686), 1448u);
	EXPECT_EQ(homa_pace_pkt_cut(8688, 2897, 1448, 5791), 8688u);
	EXPECT_EQ(homa_pace_pkt_cut(8688, 2897, 1448, 5790), 4344u);
	/* The slack never sends what is not granted at all. */
	EXPECT_EQ(homa_pace_pkt_cut(8688, 0, 1448, 0xffffffffu), 0u);
	EXPECT_EQ(homa_pace_pkt_cut(0xffffffffu, 1, 1448, 0xffffffffu),
		  0xffffffffu);
}

TEST(homa_pace, homa_pace_pkt_slack__values)
{
	/* 25 us at 25 Gbit/s: 78125 bytes, more than a 64 KB packet. */
	EXPECT_EQ(homa_pace_pkt_slack(25000, 25000), 78125u);
	/* At 16 Mbit/s: 50 bytes, less than any segment. */
	EXPECT_EQ(homa_pace_pkt_slack(25000, 16), 50u);
	EXPECT_EQ(homa_pace_pkt_slack(0, 25000), 0u);
	/* The largest settings saturate rather than wrap. */
	EXPECT_EQ(homa_pace_pkt_slack(1000000000, 10000000), 0xffffffffu);
}

TEST(homa_pace, homa_pace_pkt_skip__values)
{
	EXPECT_EQ(homa_pace_pkt_skip(0, 1448), 0u);
	EXPECT_EQ(homa_pace_pkt_skip(1447, 1448), 0u);
	EXPECT_EQ(homa_pace_pkt_skip(1448, 1448), 1448u);
	EXPECT_EQ(homa_pace_pkt_skip(4000, 1448), 2896u);
	EXPECT_EQ(homa_pace_pkt_skip(4000, 0), 0u);
}

/* Segment by segment: what the cut sends, and what the skip leaves out. */
TEST(homa_pace, homa_pace_pkt_cut__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int i = 0; i < 20000; i++) {
		uint32_t mss = rng() % 4 ? 1 + rng() % 9000 : 0;
		uint32_t bytes = 1 + rng() % 65536;
		uint32_t room = rng() % (bytes + 2);
		uint32_t slack = rng() % 4 ? 0 : rng() % (bytes + 2);
		uint32_t want = 0, skip = 0, seg = mss ? mss : bytes;

		/* Naive: add whole segments until the room is covered. */
		while (want < bytes && want < room)
			want += seg;
		if (want > bytes)
			want = bytes;
		/* Naive: a packet reaching at most slack past room is whole. */
		if (room && (uint64_t)room + slack >= bytes)
			want = bytes;
		/* Naive: whole segments wholly below room. */
		while (mss && skip + mss <= room)
			skip += mss;
		SCOPED_TRACE(testing::Message() << "bytes " << bytes << " room "
			     << room << " mss " << mss << " slack " << slack);
		ASSERT_EQ(homa_pace_pkt_cut(bytes, room, mss, slack), want);
		ASSERT_EQ(homa_pace_pkt_skip(room, mss), skip);
	}
}

TEST(homa_pace, homa_pace_pkt_max__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int i = 0; i < 20000; i++) {
		homa_pace_params p = params(1 + rng() % 10000000,
					    rng() % 1000000001);
		uint32_t gso = 1000 + rng() % 64537;
		/* The model: bytes = bits / 8, bits = ns * Mbit/s / 1000. */
		double wire = (double)p.max_nic_queue_ns * p.link_mbps / 8000;
		uint32_t b = homa_pace_pkt_max(&p, gso);

		ASSERT_LE(b, gso);
		ASSERT_GE(b, std::min<uint32_t>(gso, HOMA_PACE_PKT_FLOOR));
		if (b > HOMA_PACE_PKT_FLOOR && b < gso) {
			ASSERT_NEAR(b, wire, 1.0);
		}
		if (wire >= gso) {
			ASSERT_EQ(b, gso);
		}
	}
}

/* ---- homa_pace_lead ------------------------------------------------------ */

TEST(homa_pace, homa_pace_lead__values)
{
	/* A later wake-up is taken at once. */
	EXPECT_EQ(homa_pace_lead(0, 300000, 1000000), 300000u);
	EXPECT_EQ(homa_pace_lead(300000, 300000, 1000000), 300000u);
	/* An earlier one takes 1/16 of the difference off (200000 / 16). */
	EXPECT_EQ(homa_pace_lead(300000, 100000, 1000000), 287500u);
	EXPECT_EQ(homa_pace_lead(300000, 0, 1000000), 281250u);
	/* Never above the maximum; 0 turns it off. */
	EXPECT_EQ(homa_pace_lead(0, 5000000, 1000000), 1000000u);
	EXPECT_EQ(homa_pace_lead(2000000, 0, 1000000), 1000000u);
	EXPECT_EQ(homa_pace_lead(300000, 400000, 0), 0u);
	/* A difference under 16 ns changes nothing. */
	EXPECT_EQ(homa_pace_lead(100, 90, 1000000), 100u);
}

/*
 * The pacer thread on a 16 Mbit/s link (10 KB packets, 5 ms each, 25 us
 * bound) for @pkts packets, whose timed sleeps end late by a random
 * amount: mostly up to @late_ns, one in twenty up to twice that. It does
 * what homa_pacer_step() does: folds each lateness into its lead (with
 * @lead_max; 0 is the thread without a lead), lets the queue exceed the
 * bound by the lead, sleeps until a packet may go. Returns the ns the NIC
 * sat idle between packets, and sets *@queue_max to the longest queue a
 * packet joined.
 */
uint64_t thread_idle_ns(uint64_t lead_max, uint64_t late_ns, int pkts,
			uint64_t seed, uint64_t *queue_max)
{
	std::mt19937_64 rng(seed);
	homa_pace_params p = params(16, 25000);
	homa_pace_state s;
	uint64_t now = 1000, lead = 0, wake_at = 0, idle = 0;

	homa_pace_init(&s, now);
	*queue_max = 0;
	for (int sent = 0; sent < pkts;) {
		homa_pace_params q = p;
		uint64_t wait;

		if (wake_at)
			lead = homa_pace_lead(lead, now > wake_at ?
						    now - wake_at : 0,
					      lead_max);
		q.max_nic_queue_ns += std::min<uint64_t>(lead, lead_max);
		wait = homa_pace_wait_ns(&s, &q, now);
		if (wait) {
			uint64_t late = rng() % (late_ns + 1);

			if (rng() % 20 == 0)
				late *= 2;
			wake_at = now + wait;
			now = wake_at + late;
			continue;
		}
		wake_at = 0;
		if (sent > 0 && now > s.link_idle)
			idle += now - s.link_idle;
		*queue_max = std::max<uint64_t>(*queue_max,
						 homa_pace_queue_ns(&s, now));
		homa_pace_sent(&s, &p, now, 10060);
		sent++;
	}
	return idle;
}

TEST(homa_pace, homa_pace_lead__covers_late_wakeups)
{
	const uint64_t seed = unit::test_seed();
	uint64_t q_without, q_with;

	SCOPED_TRACE(unit::seed_msg(seed));
	/* Wake-ups up to 300 us late (600 us now and then). */
	uint64_t without = thread_idle_ns(0, 300000, 2000, seed, &q_without);
	uint64_t with = thread_idle_ns(1000000, 300000, 2000, seed, &q_with);

	/* Without a lead the link idles for most of each lateness. */
	EXPECT_GT(without, 2000ull * 100000);
	/*
	 * With it, seldom: the lead holds the latest wake-up seen, and only
	 * a wake-up later than any in the last few dozen idles the link
	 * (about 4% of the idle time without, over many seeds; up to 6% in
	 * one run of 2000 packets).
	 */
	EXPECT_LT(with, without / 10);
	/* The queue a packet joins: the bound, plus the lead when on. */
	EXPECT_LE(q_without, 25000u);
	EXPECT_LE(q_with, 25000u + 1000000u);
	EXPECT_GT(q_with, 25000u + 300000u);
	/* Late beyond the maximum: the lead stops there, the link idles. */
	uint64_t capped = thread_idle_ns(100000, 300000, 2000, seed, &q_with);

	EXPECT_LE(q_with, 25000u + 100000u);
	EXPECT_GT(capped, with);
	EXPECT_LT(capped, without);
}

} /* namespace */
