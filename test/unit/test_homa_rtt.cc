// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_rtt.cc - unit tests for homa_rtt.c, in the order of its
 * functions. Expected estimates are worked out by hand from RFC 6298
 * (alpha 1/8, beta 1/4, K 4) and from SPEC.md section 4 (congestion at
 * 8 x rtt_min, window 3 x rtt_min x link rate, max_incoming = window x
 * overcommit, halve under 40% unscheduled). The random tests compare
 * with an integer model and with the RFC's real-valued recurrences, and
 * check that windows stay within their bounds.
 */

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "homa_config.h"
#include "homa_rtt.h"
}

#include "unit_util.h"

namespace {

const uint64_t kMaxSample = 60000000000ull;	/* 60 s */

struct Rtt {
	homa_rtt r;

	Rtt()
	{
		memset(&r, 0x5a, sizeof(r));
		homa_rtt_init(&r);
	}
	void sample(std::initializer_list<uint64_t> l)
	{
		for (uint64_t v : l)
			homa_rtt_sample(&r, v);
	}
};

/* ---- the models ---------------------------------------------------------- */

struct ModelRtt {
	uint64_t min = 0, srtt = 0, var = 0, n = 0;
	double fsrtt = 0, fvar = 0;
	std::deque<uint64_t> recent;

	void sample(uint64_t v)
	{
		v = std::max<uint64_t>(1, std::min(v, kMaxSample));
		if (n == 0) {
			srtt = v;
			var = v / 2;
			min = v;
			fsrtt = (double)v;
			fvar = (double)v / 2;
		} else {
			uint64_t d = srtt > v ? srtt - v : v - srtt;

			var = (var * 3 + d) / 4;
			srtt = (srtt * 7 + v) / 8;
			min = std::min(min, v);
			fvar = 0.75 * fvar + 0.25 * std::fabs(fsrtt - (double)v);
			fsrtt = 0.875 * fsrtt + 0.125 * (double)v;
		}
		n++;
		recent.push_back(v);
		if (recent.size() > 4)
			recent.pop_front();
	}
	uint64_t recent_low() const
	{
		return n ? *std::min_element(recent.begin(), recent.end()) : 0;
	}
	bool congested() const
	{
		return n && recent_low() > 8 * min;
	}
	/* The state with hysteresis: on above 8 x min, off at 4 x min. */
	bool state = false;
	int update(uint64_t factor)
	{
		double low = (double)recent_low(), thr = (double)factor * min;

		if (!state && factor && n && low > thr) {
			state = true;
			return 1;
		}
		if (state && (!factor || !n || low <= thr / 2)) {
			state = false;
			return -1;
		}
		return 0;
	}
};

uint32_t model_update(uint32_t w, uint64_t uns, uint64_t tot, bool thr,
		      uint32_t lo, uint32_t hi)
{
	uint64_t x = w;

	if (tot > 0 && (double)uns / (double)tot < 0.4)
		x = w / 2;
	else if (tot == 0 && !thr)
		x = (uint64_t)w + std::max<uint32_t>(hi / 8, 1);
	x = std::max<uint64_t>(x, lo);
	x = std::min<uint64_t>(x, hi);
	return (uint32_t)x;
}

/* ---- homa_rtt_init ------------------------------------------------------- */

TEST(homa_rtt, homa_rtt_init__empty)
{
	Rtt t;

	EXPECT_EQ(t.r.rtt_min, 0u);
	EXPECT_EQ(t.r.srtt, 0u);
	EXPECT_EQ(t.r.rttvar, 0u);
	EXPECT_EQ(t.r.num_samples, 0u);
	EXPECT_EQ(t.r.next, 0u);
	for (uint64_t v : t.r.recent)
		EXPECT_EQ(v, 0u);
}

/* ---- homa_rtt_sample ----------------------------------------------------- */

TEST(homa_rtt, homa_rtt_sample__first)
{
	Rtt t;

	t.sample({ 1001 });
	EXPECT_EQ(t.r.srtt, 1001u);
	EXPECT_EQ(t.r.rttvar, 500u);
	EXPECT_EQ(t.r.rtt_min, 1001u);
	EXPECT_EQ(t.r.recent[0], 1001u);
	EXPECT_EQ(t.r.next, 1u);
	EXPECT_EQ(t.r.num_samples, 1u);
}

TEST(homa_rtt, homa_rtt_sample_min__only_the_minimum)
{
	homa_rtt r;

	homa_rtt_init(&r);
	/* The first bound sets rtt_min, and nothing else. */
	homa_rtt_sample_min(&r, 900000);
	EXPECT_EQ(r.rtt_min, 900000u);
	EXPECT_EQ(r.num_samples, 0u);
	EXPECT_EQ(r.srtt, 0u);
	EXPECT_EQ(homa_rtt_rto(&r, 1000, 5000000), 5000000u);
	/* A true sample smooths; a long bound then changes nothing. */
	homa_rtt_sample(&r, 1000000);
	homa_rtt_sample_min(&r, 3000000000ull);
	EXPECT_EQ(r.srtt, 1000000u);
	EXPECT_EQ(r.rttvar, 500000u);
	EXPECT_EQ(r.rtt_min, 900000u);
	EXPECT_EQ(r.num_samples, 1u);
	/* A shorter bound lowers the minimum. */
	homa_rtt_sample_min(&r, 0);
	EXPECT_EQ(r.rtt_min, 1u);
}

TEST(homa_rtt, homa_rtt_sample__rfc6298_update)
{
	Rtt t;

	t.sample({ 1000, 2000 });
	/* rttvar = 3/4 * 500 + 1/4 * 1000; srtt = 7/8 * 1000 + 2000 / 8. */
	EXPECT_EQ(t.r.rttvar, 625u);
	EXPECT_EQ(t.r.srtt, 1125u);
	EXPECT_EQ(t.r.rtt_min, 1000u);
	t.sample({ 500 });
	/* |1125 - 500| = 625: rttvar 625; srtt (7875 + 500) / 8 = 1046. */
	EXPECT_EQ(t.r.rttvar, 625u);
	EXPECT_EQ(t.r.srtt, 1046u);
	EXPECT_EQ(t.r.rtt_min, 500u);
}

TEST(homa_rtt, homa_rtt_sample__steady_converges)
{
	Rtt t;

	t.sample({ 80000 });
	for (int i = 0; i < 200; i++)
		t.sample({ 20000 });
	EXPECT_EQ(t.r.srtt, 20000u);	/* rounding down reaches it */
	EXPECT_LE(t.r.rttvar, 3u);
	EXPECT_EQ(t.r.rtt_min, 20000u);
}

TEST(homa_rtt, homa_rtt_sample__clamped)
{
	Rtt t;

	t.sample({ 0 });
	EXPECT_EQ(t.r.rtt_min, 1u);
	EXPECT_EQ(t.r.srtt, 1u);
	EXPECT_EQ(t.r.rttvar, 0u);

	Rtt u;

	u.sample({ 0xffffffffffffffffull });
	EXPECT_EQ(u.r.srtt, kMaxSample);
	EXPECT_EQ(u.r.recent[0], kMaxSample);
	u.sample({ 0xffffffffffffffffull });
	EXPECT_EQ(u.r.srtt, kMaxSample);
}

TEST(homa_rtt, homa_rtt_sample__ring_wraps)
{
	Rtt t;

	t.sample({ 1, 2, 3, 4, 5, 6 });
	EXPECT_EQ(t.r.recent[0], 5u);
	EXPECT_EQ(t.r.recent[1], 6u);
	EXPECT_EQ(t.r.recent[2], 3u);
	EXPECT_EQ(t.r.recent[3], 4u);
	EXPECT_EQ(t.r.next, 2u);
	EXPECT_EQ(t.r.num_samples, 6u);
}

TEST(homa_rtt, homa_rtt_sample__count_saturates)
{
	Rtt t;

	t.sample({ 100 });
	t.r.num_samples = 0xffffffffu;
	t.sample({ 100 });
	EXPECT_EQ(t.r.num_samples, 0xffffffffu);
}

TEST(homa_rtt, homa_rtt_sample__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	printf("homa_rtt_sample__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int run = 0; run < 200; run++) {
		Rtt t;
		ModelRtt m;
		uint64_t base = 1 + rng() % 1000000;

		for (int i = 0; i < 500; i++) {
			uint64_t v;

			switch (rng() % 10) {
			case 0:
				v = rng() % 10 == 0 ? rng() : 0;
				break;
			case 1:
				v = base * (1 + rng() % 40);
				break;
			default:
				v = base + rng() % (base / 2 + 1);
			}
			t.sample({ v });
			m.sample(v);
			ASSERT_EQ(t.r.srtt, m.srtt) << i;
			ASSERT_EQ(t.r.rttvar, m.var) << i;
			ASSERT_EQ(t.r.rtt_min, m.min) << i;
			ASSERT_EQ(homa_rtt_congested(&t.r, 8), m.congested())
				<< i;
			/* The integer filter stays near the real one. */
			ASSERT_NEAR((double)t.r.srtt, m.fsrtt,
				    8 + 1e-9 * m.fsrtt) << i;
			ASSERT_NEAR((double)t.r.rttvar, m.fvar,
				    16 + 1e-9 * m.fsrtt) << i;
		}
	}
}

/* ---- homa_rtt_congested -------------------------------------------------- */

TEST(homa_rtt, homa_rtt_congested__no_samples)
{
	Rtt t;

	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 0);
}

TEST(homa_rtt, homa_rtt_congested__persistent_queue)
{
	Rtt t;

	t.sample({ 1000, 9000, 9000, 9000 });
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 0);	/* 1000 still recent */
	t.sample({ 9000 });
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 1);
	t.sample({ 7000 });
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 0);
}

TEST(homa_rtt, homa_rtt_congested__strictly_above)
{
	Rtt t;

	t.sample({ 1000, 8000, 8000, 8000, 8000 });
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 0);
	t.sample({ 8001, 8001, 8001, 8001 });
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 1);
}

TEST(homa_rtt, homa_rtt_congested__few_samples)
{
	Rtt t;

	t.sample({ 1000 });
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 0);
	t.r.rtt_min = 100;	/* as if an older, lower sample had left */
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 1);
}

TEST(homa_rtt, homa_rtt_congested__factor)
{
	Rtt t;

	t.sample({ 1000, 3500, 3500, 3500, 3500 });
	EXPECT_EQ(homa_rtt_congested(&t.r, 8), 0);
	EXPECT_EQ(homa_rtt_congested(&t.r, 3), 1);
	EXPECT_EQ(homa_rtt_congested(&t.r, 4), 0);
	/* 0 turns detection off. */
	EXPECT_EQ(homa_rtt_congested(&t.r, 0), 0);
}

/* ---- homa_rtt_recent ----------------------------------------------------- */

TEST(homa_rtt, homa_rtt_recent__window_minimum)
{
	Rtt t;

	EXPECT_EQ(homa_rtt_recent(&t.r), 0u);
	t.sample({ 5000 });
	EXPECT_EQ(homa_rtt_recent(&t.r), 5000u);
	t.sample({ 7000, 3000, 9000 });
	EXPECT_EQ(homa_rtt_recent(&t.r), 3000u);
	/* 3000, the third of four, leaves with the third new sample. */
	t.sample({ 8000, 8000 });
	EXPECT_EQ(homa_rtt_recent(&t.r), 3000u);
	t.sample({ 8000 });
	EXPECT_EQ(homa_rtt_recent(&t.r), 8000u);
}

/* ---- homa_rtt_congestion_update ------------------------------------------ */

TEST(homa_rtt, homa_rtt_congestion_update__hysteresis)
{
	Rtt t;

	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 8), 0);
	t.sample({ 1000, 9000, 9000, 9000, 9000 });
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 8), 1);
	EXPECT_EQ(t.r.congested, 1);
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 8), 0);
	/* Below the threshold but above half of it: still congested. */
	t.sample({ 5000, 5000, 5000, 5000 });
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 8), 0);
	EXPECT_EQ(t.r.congested, 1);
	/* At half the threshold: over. */
	t.sample({ 4000, 4000, 4000, 4000 });
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 8), -1);
	EXPECT_EQ(t.r.congested, 0);
	/* Between half and the threshold does not turn it on again. */
	t.sample({ 7000, 7000, 7000, 7000 });
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 8), 0);
	EXPECT_EQ(t.r.congested, 0);
}

TEST(homa_rtt, homa_rtt_congestion_update__factor_zero_ends_it)
{
	Rtt t;

	t.sample({ 1000, 20000, 20000, 20000, 20000 });
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 8), 1);
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 0), -1);
	EXPECT_EQ(homa_rtt_congestion_update(&t.r, 0), 0);
	EXPECT_EQ(t.r.congested, 0);
}

TEST(homa_rtt, homa_rtt_congestion_update__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	int on = 0, off = 0, flips_raw = 0, flips = 0;

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int run = 0; run < 100; run++) {
		Rtt t;
		ModelRtt m;
		uint64_t base = 1 + rng() % 100000;
		uint32_t factor = rng() % 5 == 0 ? 0 : 2 + rng() % 15;
		bool raw = false;

		for (int i = 0; i < 400; i++) {
			/* A queue that comes and goes, plus noise. */
			uint64_t q = (i / 50) % 2 ? base * (rng() % 20) : 0;
			uint64_t v = base + q + rng() % (base / 4 + 1);

			t.sample({ v });
			m.sample(v);
			int want = m.update(factor);
			int got = homa_rtt_congestion_update(&t.r, factor);

			ASSERT_EQ(got, want) << "run " << run << " i " << i;
			ASSERT_EQ(t.r.congested, m.state ? 1 : 0);
			ASSERT_EQ(homa_rtt_recent(&t.r), m.recent_low());
			on += got > 0;
			off += got < 0;
			bool now = homa_rtt_congested(&t.r, factor);

			flips_raw += now != raw;
			raw = now;
			flips += got != 0;
		}
	}
	EXPECT_GT(on, 0);
	EXPECT_GT(off, 0);
	/* Hysteresis: the state changes no more often than the signal. */
	EXPECT_LE(flips, flips_raw);
}

/* ---- homa_rtt_sched_window ----------------------------------------------- */

TEST(homa_rtt, homa_rtt_sched_window__values)
{
	Rtt t;

	EXPECT_EQ(homa_rtt_sched_window(&t.r, 25000), 0u);
	t.sample({ 10000 });
	/* 3 * 10 us * 25 Gbit/s = 750000 bits = 93750 bytes. */
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 25000), 93750u);
	/* 3 * 10 us * 16 Mbit/s = 480 bits = 60 bytes. */
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 16), 60u);
	t.sample({ 50000 });	/* rtt_min stays 10000 */
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 25000), 93750u);
}

TEST(homa_rtt, homa_rtt_sched_window__rounds_down)
{
	Rtt t;

	t.sample({ 1 });
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 2666), 0u);	/* 0.99975 */
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 2667), 1u);	/* 1.000125 */
}

TEST(homa_rtt, homa_rtt_sched_window__saturates)
{
	Rtt t;

	t.sample({ kMaxSample });
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 10000000), 0xffffffffu);
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 0xffffffffu), 0xffffffffu);
	/* 3 * 60 s * 1 Mbit/s = 22500000 bytes. */
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 1), 22500000u);
}

TEST(homa_rtt, homa_rtt_sched_window__fast_links_clamped)
{
	Rtt t;

	t.sample({ 100 });
	/* 3 * 100 ns * 2^26 Mbit/s / 8000 = 2516582.4 */
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 1u << 26), 2516582u);
	EXPECT_EQ(homa_rtt_sched_window(&t.r, 0xffffffffu), 2516582u);
}

/* ---- homa_rtt_window_floor ----------------------------------------------- */

TEST(homa_rtt, homa_rtt_window_floor__values)
{
	Rtt t;

	/* Not measured: stays 0 (the configured window applies). */
	EXPECT_EQ(homa_rtt_window_floor(0, 10000), 0u);
	/* 16 Mbit/s, 400 us: 3 round trips are 2400 bytes. */
	t.sample({ 400000 });
	EXPECT_EQ(homa_rtt_window_floor(homa_rtt_sched_window(&t.r, 16),
					10000), 10000u);
	EXPECT_EQ(homa_rtt_window_floor(homa_rtt_sched_window(&t.r, 16), 0),
		  2400u);
	/* A fast link's window is above the floor: unchanged. */
	EXPECT_EQ(homa_rtt_window_floor(homa_rtt_sched_window(&t.r, 25000),
					10000), 3750000u);
	EXPECT_EQ(homa_rtt_window_floor(10000, 10000), 10000u);
	EXPECT_EQ(homa_rtt_window_floor(9999, 10000), 10000u);
	EXPECT_EQ(homa_rtt_window_floor(0xffffffffu, 1000000), 0xffffffffu);
}

/* ---- homa_rtt_window_basis ----------------------------------------------- */

TEST(homa_rtt, homa_rtt_window_basis__values)
{
	static const struct {
		uint32_t grant, delay, floor, want;
		const char *why;
	} cases[] = {
		{ 0, 0, 10000, 0, "neither measured: the configured window" },
		{ 0, 2400, 10000, 10000, "data delay only, floored" },
		{ 0, 30000, 10000, 30000, "data delay only, above the floor" },
		{ 0, 2400, 0, 2400, "data delay only, no floor" },
		{ 20000, 30000, 10000, 20000, "GRANT-timed wins, smaller" },
		{ 40000, 30000, 10000, 40000, "GRANT-timed wins, larger" },
		{ 20000, 0, 10000, 20000, "GRANT-timed only" },
		{ 5000, 30000, 10000, 10000, "GRANT-timed wins, floored" },
	};

	for (const auto &c : cases)
		EXPECT_EQ(homa_rtt_window_basis(c.grant, c.delay, c.floor),
			  c.want) << c.why;
}

/*
 * The server of a closed loop that only receives (util/cp_vs_tcp --mode
 * share: h1 and h2 send one-way messages to h0, on 16 Mbit/s links and
 * switch bands of 128 KiB) times no round trip to its senders, but its
 * data delays were 335-680 us. With the GRANT-timed window alone it kept
 * the configured max_incoming, 400000 bytes, three times what the band
 * holding the scheduled bytes takes; from the data delay it gets the
 * floor's window and 8 of them in flight. On a 25 Gbit/s link with 20 us
 * data delays the window is three of them, above the floor.
 */
TEST(homa_rtt, homa_rtt_window_basis__receiver_only_model)
{
	const uint32_t band_bytes = 131072, configured = 400000;
	Rtt grant, delay;
	uint32_t w;

	delay.sample({ 4068200, 680000, 335050, 517200, 13590990 });
	EXPECT_EQ(homa_rtt_sched_window(&grant.r, 16), 0u);
	/* The GRANT-timed rule alone: no window, the configured limit. */
	EXPECT_EQ(homa_rtt_window_floor(homa_rtt_sched_window(&grant.r, 16),
					10000), 0u);
	EXPECT_GT(configured, band_bytes);
	w = homa_rtt_window_basis(homa_rtt_sched_window(&grant.r, 16),
				  homa_rtt_sched_window(&delay.r, 16), 10000);
	EXPECT_EQ(w, 10000u);
	EXPECT_EQ(homa_rtt_max_incoming(w, 8), 80000u);
	EXPECT_LT(homa_rtt_max_incoming(w, 8), band_bytes);

	Rtt fast;

	fast.sample({ 25000, 20000, 40000 });
	/* 3 * 20000 ns * 25000 Mbit/s / 8000 */
	EXPECT_EQ(homa_rtt_window_basis(0, homa_rtt_sched_window(&fast.r, 25000),
					10000), 187500u);
}

/* ---- homa_rtt_max_incoming ----------------------------------------------- */

TEST(homa_rtt, homa_rtt_max_incoming__product)
{
	EXPECT_EQ(homa_rtt_max_incoming(93750, 8), 750000u);
	EXPECT_EQ(homa_rtt_max_incoming(0, 8), 0u);
	EXPECT_EQ(homa_rtt_max_incoming(0xffffffffu, 64),
		  0xffffffffull * 64);
}

/* ---- homa_rtt_rto -------------------------------------------------------- */

TEST(homa_rtt, homa_rtt_rto__values)
{
	Rtt t;

	EXPECT_EQ(homa_rtt_rto(&t.r, 1000, 5000000), 5000000u);
	t.sample({ 100000 });
	/* 100000 + 4 * 50000 */
	EXPECT_EQ(homa_rtt_rto(&t.r, 1000, 5000000), 300000u);
	EXPECT_EQ(homa_rtt_rto(&t.r, 400000, 5000000), 400000u);
	EXPECT_EQ(homa_rtt_rto(&t.r, 1000, 200000), 200000u);
	/* max wins over a min above it */
	EXPECT_EQ(homa_rtt_rto(&t.r, 900000, 200000), 200000u);
	t.sample({ 100000, 100000 });
	/* rttvar 50000 -> 37500 -> 28125; srtt stays 100000. */
	EXPECT_EQ(homa_rtt_rto(&t.r, 1000, 5000000), 212500u);
}

/* ---- homa_rtt_resend_basis ----------------------------------------------- */

TEST(homa_rtt, homa_rtt_resend_basis__modes)
{
	struct {
		uint32_t mode;
		uint64_t data, grant;
		uint32_t basis;
		uint64_t rto;
	} cases[] = {
		/* Fixed: no RTT timing, whatever was measured. */
		{ HOMA_RESEND_FIXED, 7000, 9000, HOMA_RESEND_FIXED, 0 },
		/* The GRANT-timed round trip, even with a data delay. */
		{ HOMA_RESEND_GRANT_RTT, 7000, 9000, HOMA_RESEND_GRANT_RTT,
		  9000 },
		{ HOMA_RESEND_GRANT_RTT, 7000, 0, HOMA_RESEND_FIXED, 0 },
		/* The smaller of the two, the data delay on a tie... */
		{ HOMA_RESEND_SMALLER, 7000, 9000, HOMA_RESEND_DATA_DELAY,
		  7000 },
		{ HOMA_RESEND_SMALLER, 90000, 9000, HOMA_RESEND_GRANT_RTT,
		  9000 },
		{ HOMA_RESEND_SMALLER, 9000, 9000, HOMA_RESEND_DATA_DELAY,
		  9000 },
		/* ...either alone when only one is measured, else none. */
		{ HOMA_RESEND_SMALLER, 0, 9000, HOMA_RESEND_GRANT_RTT, 9000 },
		{ HOMA_RESEND_SMALLER, 7000, 0, HOMA_RESEND_DATA_DELAY,
		  7000 },
		{ HOMA_RESEND_SMALLER, 0, 0, HOMA_RESEND_FIXED, 0 },
	};

	for (auto &c : cases) {
		u64 rto = 12345;

		EXPECT_EQ(homa_rtt_resend_basis(c.mode, c.data, c.grant, &rto),
			  c.basis) << c.mode << " " << c.data << " " << c.grant;
		EXPECT_EQ(rto, c.rto) << c.mode << " " << c.data << " "
				      << c.grant;
	}
}

/*
 * A model of the faults each measure has, with the real estimators and
 * the timeouts homa_peer keeps (srtt + 4 * rttvar after each sample). A
 * receiver that ranks this host's messages late: now and then the
 * GRANT-timed round trip takes seconds while the data comes in 1-3 ms.
 * A clean 20 ms path: the round trip is 20-22 ms, the data delay 20-60 ms
 * (the peer's earlier granted bytes go first). A server of short
 * responses: no round-trip sample at all. The rule must never be the
 * larger of the two measured, and never worse than the old rule where
 * the old one had a sample.
 */
TEST(homa_rtt, homa_rtt_resend_basis__model)
{
	std::mt19937_64 rng(146);
	const uint64_t ms = 1000000;
	struct Case {
		const char *name;
		uint64_t data_lo, data_hi, grant_lo, grant_hi, rank_wait;
		bool grant_samples;
	} cases[] = {
		{ "late ranking", ms, 3 * ms, ms, ms + ms / 5, 2000 * ms, true },
		{ "clean path", 20 * ms, 60 * ms, 20 * ms, 22 * ms, 0, true },
		{ "short responses", ms, 3 * ms, 0, 0, 0, false },
	};

	for (const Case &c : cases) {
		std::uniform_int_distribution<uint64_t> data(c.data_lo,
							     c.data_hi);
		std::uniform_int_distribution<uint64_t> grant(c.grant_lo,
							      c.grant_hi);
		std::uniform_int_distribution<int> ranked_late(0, 9);
		Rtt rx, tx;
		double mean[3] = { 0, 0, 0 };
		int rounds = 400;

		for (int i = 0; i < rounds; i++) {
			u64 rto[3] = { 0, 0, 0 };

			if (c.grant_samples) {
				uint64_t g = grant(rng);

				if (c.rank_wait && ranked_late(rng) == 0)
					g += c.rank_wait;
				homa_rtt_sample(&tx.r, g);
			}
			homa_rtt_sample(&rx.r, data(rng));
			uint64_t tx_rto = c.grant_samples ?
				tx.r.srtt + 4 * tx.r.rttvar : 0;
			uint64_t rx_rto = rx.r.srtt + 4 * rx.r.rttvar;

			for (uint32_t m = HOMA_RESEND_GRANT_RTT;
			     m <= HOMA_RESEND_SMALLER; m++) {
				homa_rtt_resend_basis(m, rx_rto, tx_rto,
						      &rto[m]);
				mean[m] += (double)rto[m] / rounds;
			}
			/* Never the larger of two measured timeouts. */
			ASSERT_EQ(rto[HOMA_RESEND_SMALLER],
				  tx_rto ? std::min(tx_rto, rx_rto) : rx_rto)
				<< c.name << " round " << i;
		}
		/* Always a timeout, and one the data delay bounds. */
		EXPECT_GT(mean[HOMA_RESEND_SMALLER], 0.0) << c.name;
		EXPECT_LT(mean[HOMA_RESEND_SMALLER], 3.0 * c.data_hi) << c.name;
		if (c.rank_wait)
			/* The old rule waited out the ranking. */
			EXPECT_GT(mean[HOMA_RESEND_GRANT_RTT],
				  50 * mean[HOMA_RESEND_SMALLER]) << c.name;
		else if (c.grant_samples)
			/* No later than the old rule on a clean path. */
			EXPECT_LE(mean[HOMA_RESEND_SMALLER],
				  mean[HOMA_RESEND_GRANT_RTT]) << c.name;
		else
			/* The old rule had nothing to go by. */
			EXPECT_EQ(mean[HOMA_RESEND_GRANT_RTT], 0.0) << c.name;
	}
}

/* ---- homa_rtt_rto_ticks -------------------------------------------------- */

TEST(homa_rtt, homa_rtt_rto_ticks__no_sample)
{
	Rtt t;

	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 1000, 5000000, 1000000), 0u);
}

TEST(homa_rtt, homa_rtt_rto_ticks__rounds_up)
{
	Rtt t;

	t.sample({ 100000 });
	/* rto 300000 ns: one 1 ms tick; 3 ticks of 100000; 4 of 99999. */
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 1000, 5000000, 1000000), 1u);
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 1000, 5000000, 100000), 3u);
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 1000, 5000000, 99999), 4u);
	/* min and max apply before rounding */
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 2500000, 5000000, 1000000), 3u);
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 1000, 200000, 100000), 2u);
	/* a zero tick counts as 1 ns */
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 1000, 5000000, 0), 300000u);
}

/* The peer caches srtt + 4 x rttvar and converts it without the estimator. */
TEST(homa_rtt, homa_rtt_ticks__same_as_rto_ticks)
{
	Rtt t;

	t.sample({ 100000, 250000, 180000 });
	uint64_t rto = t.r.srtt + 4 * t.r.rttvar;

	for (uint32_t tick : { 0u, 1u, 99999u, 100000u, 1000000u })
		for (uint64_t min : { 0ull, 1000ull, 2500000ull })
			for (uint64_t max : { 200000ull, 5000000ull, ~0ull })
				EXPECT_EQ(homa_rtt_ticks(rto, min, max, tick),
					  homa_rtt_rto_ticks(&t.r, min, max,
							     tick));
	EXPECT_EQ(homa_rtt_ticks(0, 0, 0, 1000000), 1u);
	EXPECT_EQ(homa_rtt_ticks(1500000, 0, ~0ull, 1000000), 2u);
	EXPECT_EQ(homa_rtt_ticks(1500000, 3000001, ~0ull, 1000000), 4u);
	EXPECT_EQ(homa_rtt_ticks(1500000, 0, 999999, 1000000), 1u);
}

TEST(homa_rtt, homa_rtt_rto_ticks__at_least_one_and_saturates)
{
	Rtt t;

	t.sample({ 1 });
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, 0, 0, 1000000), 1u);
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, ~0ULL, ~0ULL, 1), 0xffffffffu);
	EXPECT_EQ(homa_rtt_rto_ticks(&t.r, ~0ULL, ~0ULL, 0xffffffffu),
		  0xffffffffu);
}

TEST(homa_rtt, homa_rtt_rto_ticks__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int i = 0; i < 20000; i++) {
		Rtt t;
		uint64_t min = rng() % 100000000, max = rng() % 100000000;
		uint32_t tick = 1 + rng() % 2000000;

		t.sample({ 1 + rng() % 50000000, 1 + rng() % 50000000 });
		/* The model: the smallest whole number of ticks >= rto. */
		uint64_t rto = homa_rtt_rto(&t.r, min, max), want = 0;

		while ((unsigned __int128)want * tick < rto)
			want++;
		if (want == 0)
			want = 1;
		ASSERT_EQ(homa_rtt_rto_ticks(&t.r, min, max, tick), want)
			<< "rto " << rto << " tick " << tick;
	}
}

/* ---- homa_rtt_unsched_init ----------------------------------------------- */

TEST(homa_rtt, homa_rtt_backoff__steps)
{
	EXPECT_EQ(homa_rtt_backoff(0, true), 1);
	EXPECT_EQ(homa_rtt_backoff(3, true), 4);
	EXPECT_EQ(homa_rtt_backoff(HOMA_RTT_BACKOFF_MAX, true),
		  HOMA_RTT_BACKOFF_MAX);
	EXPECT_EQ(homa_rtt_backoff(200, true), HOMA_RTT_BACKOFF_MAX);
	EXPECT_EQ(homa_rtt_backoff(4, false), 3);
	EXPECT_EQ(homa_rtt_backoff(1, false), 0);
	EXPECT_EQ(homa_rtt_backoff(0, false), 0);
}

TEST(homa_rtt, homa_rtt_backed_off__doubles_and_limits)
{
	EXPECT_EQ(homa_rtt_backed_off(3, 0, 1000), 3u);
	EXPECT_EQ(homa_rtt_backed_off(3, 1, 1000), 6u);
	EXPECT_EQ(homa_rtt_backed_off(3, 4, 1000), 48u);
	/* Levels above the maximum count as the maximum. */
	EXPECT_EQ(homa_rtt_backed_off(1, 40, 1000),
		  1u << HOMA_RTT_BACKOFF_MAX);
	/* The limit caps the backoff ... */
	EXPECT_EQ(homa_rtt_backed_off(10, 3, 50), 50u);
	/* ... but never shortens a timeout already past it. */
	EXPECT_EQ(homa_rtt_backed_off(80, 0, 50), 80u);
	EXPECT_EQ(homa_rtt_backed_off(80, 2, 50), 80u);
	/* No overflow near the top of u32. */
	EXPECT_EQ(homa_rtt_backed_off(0xffffffffu, 6, 0xffffffffu),
		  0xffffffffu);
	EXPECT_EQ(homa_rtt_backed_off(0x80000000u, 1, 0xfffffff0u),
		  0xfffffff0u);
}

/*
 * A model of a slow queue that control packets skip: every message's data
 * reaches the receiver @delay ticks after its RTT-timed timer starts, the
 * control RTT (hence the unbacked timeout) is @rto ticks. A RESEND fired
 * before the data arrives is premature: its copy queues behind the data
 * and arrives as a duplicate (spurious). Returns the premature RESENDs
 * over @msgs messages and leaves the final level in @level.
 */
static int slow_queue_run(uint32_t rto, uint32_t delay, uint32_t max_ticks,
			  int msgs, uint8_t *level)
{
	int spurious = 0;

	for (int m = 0; m < msgs; m++) {
		uint32_t t = homa_rtt_backed_off(rto, *level, max_ticks);

		if (t < delay) {
			/* One premature RESEND per message in this model. */
			spurious++;
			*level = homa_rtt_backoff(*level, true);
		}
	}
	return spurious;
}

TEST(homa_rtt, backoff__slow_queue_settles)
{
	uint8_t level = 0;

	/* 2-tick RTO, data 50 ticks late: 2 << 5 = 64 >= 50 after 5. */
	EXPECT_EQ(slow_queue_run(2, 50, 5000, 1000, &level), 5);
	EXPECT_EQ(level, 5);
	EXPECT_GE(homa_rtt_backed_off(2, level, 5000), 50u);
	/* Without backoff every message would have one. */
	uint8_t none = 0;
	int naive = 0;

	for (int m = 0; m < 1000; m++)
		naive += homa_rtt_backed_off(2, none, 5000) < 50;
	EXPECT_EQ(naive, 1000);
}

TEST(homa_rtt, backoff__slow_queue_capped)
{
	uint8_t level = 0;

	/* A queue longer than the cap: the level saturates, no more. */
	int s = slow_queue_run(2, 500, 100, 50, &level);

	EXPECT_EQ(level, HOMA_RTT_BACKOFF_MAX);
	EXPECT_EQ(s, 50);
	EXPECT_EQ(homa_rtt_backed_off(2, level, 100), 100u);
}

TEST(homa_rtt, backoff__real_loss_recovers)
{
	std::mt19937 rng(13);
	uint8_t level = HOMA_RTT_BACKOFF_MAX;
	int filled = 0;

	/*
	 * The queue drains (no more late data); retransmissions now fill
	 * real holes, and the level walks back to 0 one step each.
	 */
	for (int i = 0; i < 100; i++) {
		bool spurious = rng() % 10 == 0;	/* a few still late */

		filled += !spurious;
		level = homa_rtt_backoff(level, spurious);
	}
	EXPECT_GT(filled, 80);
	EXPECT_LE(level, 1);
	/* Random walks stay within [0, MAX]. */
	for (int i = 0; i < 100000; i++) {
		level = homa_rtt_backoff(level, rng() % 2);
		ASSERT_LE(level, HOMA_RTT_BACKOFF_MAX);
	}
}

TEST(homa_rtt, homa_rtt_backoff_eases__one_doubling_less)
{
	/* Level 0 has nothing to ease. */
	EXPECT_FALSE(homa_rtt_backoff_eases(10, 0, 1000, 0));
	/* Level 3 of 10 ticks: one less waits 40; a 39-tick delay fits. */
	EXPECT_TRUE(homa_rtt_backoff_eases(10, 3, 1000, 39));
	EXPECT_FALSE(homa_rtt_backoff_eases(10, 3, 1000, 40));
	EXPECT_FALSE(homa_rtt_backoff_eases(10, 3, 1000, 5000));
	/* The ceiling counts: one less is capped at 25 here. */
	EXPECT_TRUE(homa_rtt_backoff_eases(10, 3, 25, 24));
	EXPECT_FALSE(homa_rtt_backoff_eases(10, 3, 25, 30));
	/* Level 1 eases once the bare timeout covers the delay. */
	EXPECT_TRUE(homa_rtt_backoff_eases(10, 1, 1000, 9));
	EXPECT_FALSE(homa_rtt_backoff_eases(10, 1, 1000, 10));
}

/*
 * The slow-queue model of slow_queue_run() with a data-delay sample after
 * each message (the data's own delay, @delay, with jitter below 25%): a
 * queue as long as ever keeps the level it earned (no walk up and down,
 * no premature RESEND after it settles); once the queue drains (delay
 * @after) the samples take the level back down to where the timeout
 * covers the new delay, with no premature RESEND on the way.
 */
static int slow_queue_eased(uint32_t rto, uint32_t delay, uint32_t max_ticks,
			    int msgs, std::mt19937 *rng, uint8_t *level)
{
	int spurious = 0;

	for (int m = 0; m < msgs; m++) {
		uint32_t d = delay + (*rng)() % (delay / 4 + 1);

		if (homa_rtt_backed_off(rto, *level, max_ticks) < d) {
			spurious++;
			*level = homa_rtt_backoff(*level, true);
		}
		if (homa_rtt_backoff_eases(rto, *level, max_ticks, d))
			(*level)--;
	}
	return spurious;
}

TEST(homa_rtt, backoff__eases_only_when_the_queue_drains)
{
	std::mt19937 rng(7);
	uint8_t level = 0;
	int s;

	/* 2-tick RTO, data 50-62 ticks late: settles at 5 (64). */
	s = slow_queue_eased(2, 50, 5000, 1000, &rng, &level);
	EXPECT_EQ(level, 5);
	EXPECT_EQ(s, 5);
	/* Still as long: nothing more, either way. */
	EXPECT_EQ(slow_queue_eased(2, 50, 5000, 1000, &rng, &level), 0);
	EXPECT_EQ(level, 5);
	/* Drained to 3 ticks: back to level 1 (4 ticks), no RESEND. */
	EXPECT_EQ(slow_queue_eased(2, 3, 5000, 100, &rng, &level), 0);
	EXPECT_EQ(level, 1);
	/* Drained fully (1 tick): level 0. */
	EXPECT_EQ(slow_queue_eased(2, 1, 5000, 100, &rng, &level), 0);
	EXPECT_EQ(level, 0);
	/* Without easing the level would have stayed at 5. */
	uint8_t kept = 5;

	EXPECT_EQ(slow_queue_run(2, 1, 5000, 100, &kept), 0);
	EXPECT_EQ(kept, 5);
}

TEST(homa_rtt, homa_rtt_scale_update__aimd)
{
	EXPECT_EQ(homa_rtt_scale_update(0, true), 512u);
	EXPECT_EQ(homa_rtt_scale_update(1024, true), 512u);
	EXPECT_EQ(homa_rtt_scale_update(40, true), 20u);
	EXPECT_EQ(homa_rtt_scale_update(20, true), (u32)HOMA_RTT_SCALE_MIN);
	EXPECT_EQ(homa_rtt_scale_update(HOMA_RTT_SCALE_MIN, true),
		  (u32)HOMA_RTT_SCALE_MIN);
	EXPECT_EQ(homa_rtt_scale_update(16, false), 144u);
	EXPECT_EQ(homa_rtt_scale_update(1000, false), 1024u);
	EXPECT_EQ(homa_rtt_scale_update(0, false), 1024u);
	EXPECT_EQ(homa_rtt_scale_update(5000, false), 1024u);
}

/*
 * Two AIMD flows into one bottleneck converge toward equal shares from
 * any start (Chiu and Jain): the model is a link of capacity 1024 units,
 * each flow's rate its scale, congestion when the sum passes capacity.
 */
TEST(homa_rtt, homa_rtt_scale_update__two_flows_converge)
{
	u32 a = 1024, b = 16;
	int gap_late = 0;

	for (int rt = 0; rt < 400; rt++) {
		bool congested = a + b > 1024;

		a = homa_rtt_scale_update(a, congested);
		b = homa_rtt_scale_update(b, congested);
		ASSERT_GE(a, (u32)HOMA_RTT_SCALE_MIN);
		ASSERT_LE(a, (u32)HOMA_RTT_SCALE_FULL);
		if (rt >= 300)
			gap_late = std::max(gap_late,
					    std::abs((int)a - (int)b));
	}
	/* Equal after the first cuts; the step keeps them within one. */
	EXPECT_LE(gap_late, HOMA_RTT_SCALE_STEP);
}

/* ---- homa_rtt_queue_own --------------------------------------------------- */

/* The fewest bytes of its own that account for a queue of @queue bytes. */
static u64 own_need(u64 queue)
{
	return (queue + HOMA_RTT_OWN_DIV - 1) / HOMA_RTT_OWN_DIV;
}

/* An estimator with rtt_min @min_ns whose recent delay is @recent_ns. */
static void queue_rtt(struct homa_rtt *r, u64 min_ns, u64 recent_ns)
{
	homa_rtt_init(r);
	homa_rtt_sample(r, min_ns);
	for (int i = 0; i < HOMA_RTT_RECENT; i++)
		homa_rtt_sample(r, recent_ns);
}

TEST(homa_rtt, homa_rtt_queue_own__values)
{
	struct homa_rtt r;

	homa_rtt_init(&r);
	EXPECT_EQ(homa_rtt_queue_own(&r, 0, 16, 0), 1);	/* no samples */
	/* 1 ms minimum, 33 ms recent: 32 ms at 16 Mbit/s is 64000 B. */
	queue_rtt(&r, 1000000, 33000000);
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(64000), 16, 0), 1);
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(64000) - 1, 16, 0), 0);
	EXPECT_EQ(homa_rtt_queue_own(&r, 1500, 16, 0), 0);
	EXPECT_EQ(homa_rtt_queue_own(&r, 64000, 16, 0), 1);
	EXPECT_EQ(homa_rtt_queue_own(&r, 1ULL << 40, 16, 0), 1);
	EXPECT_EQ(homa_rtt_queue_own(&r, 0, 0, 0), 1);	/* rate not known */
	/* Twice the rate, twice the bytes. */
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(128000) - 1, 32, 0), 0);
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(128000), 32, 0), 1);
	/* Skipping 40000 B of the 64000 leaves a 24000 B queue. */
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(24000), 16, 40000), 1);
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(24000) - 1, 16, 40000), 0);
	/* Skipping all of it leaves none. */
	EXPECT_EQ(homa_rtt_queue_own(&r, 0, 16, 64000), 1);
	EXPECT_EQ(homa_rtt_queue_own(&r, 0, 16, 63999), 0);
	/* No queue at all: nothing to hand to anyone. */
	queue_rtt(&r, 1000000, 1000000);
	EXPECT_EQ(homa_rtt_queue_own(&r, 0, 16, 0), 1);
}

TEST(homa_rtt, homa_rtt_queue_own__fast_links_clamped)
{
	struct homa_rtt r;
	u64 queue;

	/* The longest sample at the largest rate must not wrap. */
	queue_rtt(&r, 1, HOMA_RTT_MAX_SAMPLE_NS * 2);
	queue = (HOMA_RTT_MAX_SAMPLE_NS - 1) * (1ULL << 26) / 8000;
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(queue), 0xffffffffu, 0), 1);
	EXPECT_EQ(homa_rtt_queue_own(&r, own_need(queue) - 1, 0xffffffffu, 0),
		  0);
}

TEST(homa_rtt, homa_rtt_queue_own__random_vs_model)
{
	std::mt19937_64 rng(146);
	struct homa_rtt r;

	for (int i = 0; i < 20000; i++) {
		u64 min = 1 + rng() % 10000000;
		u64 recent = min + rng() % 100000000;
		u32 mbps = 1 + rng() % 100000;
		u64 owed = rng() % 50000000;
		u64 skip = i % 2 ? rng() % 100000000 : 0;
		double queue;
		int want;

		queue_rtt(&r, min, recent);
		queue = std::floor((double)(recent - min) * mbps / 8000.0);
		want = recent == min || queue <= (double)skip ||
		       (double)HOMA_RTT_OWN_DIV * (double)owed >=
			       queue - (double)skip;
		ASSERT_EQ(homa_rtt_queue_own(&r, owed, mbps, skip), want)
			<< "min " << min << " recent " << recent << " mbps "
			<< mbps << " owed " << owed << " skip " << skip;
	}
}

/*
 * A naive model of a receiver's downlink shared with a loss-based flow,
 * one step per round trip: a FIFO of 64 KB after a 2 KB pipe at 16 Mbit/s
 * (2 bytes per us), a 1 ms minimum delay; the TCP flow grows its window
 * by a packet per round trip and halves it when the FIFO overflows; Homa
 * keeps its share of a 96 KB grant window in flight (at least a packet)
 * and takes homa_rtt_scale_update() steps on the congestion state of the
 * delay its data sees. The FIFO serves both in proportion to their bytes.
 * @sender bytes of link time at the sender (its own link and pacer) add to
 * every delay after the minimum; the fair rule skips @skip bytes of it.
 * Returns Homa's share of what the link carried over the last half.
 */
static double model_shared_fifo(bool fair, bool with_tcp,
				std::vector<u32> *scales, double sender = 0,
				u64 skip = 0)
{
	const double pipe = 2000, fifo = 64000, pkt = 1500;
	double tcp = with_tcp ? 20000 : 0, homa_sum = 0, all_sum = 0;
	struct homa_rtt r;
	u32 scale = 1024;

	/* The minimum was measured before the queue built. */
	homa_rtt_init(&r);
	homa_rtt_sample(&r, 1000000);
	for (int rt = 0; rt < 2000; rt++) {
		double homa = std::max(pkt, 96000.0 * scale / 1024);
		double queue = std::max(0.0, tcp + homa - pipe);
		bool cut;

		if (queue > fifo && with_tcp) {
			tcp = std::max(pkt, tcp / 2);
			queue = fifo;
		}
		queue = std::min(queue, fifo);
		homa_rtt_sample(&r, 1000000 + (u64)((queue + sender) * 500));
		homa_rtt_congestion_update(&r, 8);
		cut = r.congested;
		if (fair && cut)
			cut = homa_rtt_queue_own(&r, (u64)homa, 16, skip) != 0;
		scale = homa_rtt_scale_update(scale, cut);
		if (scales)
			scales->push_back(scale);
		if (with_tcp)
			tcp += pkt;
		if (rt >= 1000) {
			homa_sum += homa / (homa + tcp);
			all_sum += 1;
		}
	}
	return homa_sum / all_sum;
}

TEST(homa_rtt, homa_rtt_queue_own__shared_fifo_model)
{
	std::vector<u32> plain, fair;
	double without = model_shared_fifo(false, true, nullptr);
	double with = model_shared_fifo(true, true, nullptr);

	printf("shared FIFO model: Homa's share %.2f cutting on delay alone, "
	       "%.2f cutting only for its own queue\n", without, with);
	/* On delay alone, Homa sits at its floor beside a full queue. */
	EXPECT_LT(without, 0.2);
	/*
	 * Cutting only for its own bytes, it keeps a fair part: at least
	 * 1/HOMA_RTT_OWN_DIV of the queue (0.31 with 3), never all of it.
	 */
	EXPECT_GT(with, 0.2);
	EXPECT_LT(with, 0.65);
	/* Alone, Homa's bytes are the queue: the same steps either way. */
	model_shared_fifo(false, false, &plain);
	model_shared_fifo(true, false, &fair);
	EXPECT_EQ(plain, fair);
	EXPECT_NE(std::count(plain.begin(), plain.end(), 1024u),
		  (long)plain.size());
}

TEST(homa_rtt, homa_rtt_queue_own__skip_sender_side)
{
	std::vector<u32> plain, fair, skipped;
	double with;

	/*
	 * Alone, with 20 KB of every delay spent at the sender: counted as
	 * queue, the fair rule waives cuts of Homa's own queue; skipped,
	 * it takes the same steps as cutting on delay alone.
	 */
	model_shared_fifo(false, false, &plain, 20000, 0);
	model_shared_fifo(true, false, &fair, 20000, 0);
	model_shared_fifo(true, false, &skipped, 20000, 20000);
	EXPECT_NE(plain, fair);
	EXPECT_EQ(plain, skipped);
	/* Beside TCP the skip still leaves Homa a fair part. */
	with = model_shared_fifo(true, true, nullptr, 20000, 20000);
	printf("shared FIFO model, 20 KB at the sender skipped: Homa's share "
	       "%.2f\n", with);
	EXPECT_GT(with, 0.2);
	EXPECT_LT(with, 0.65);
}

TEST(homa_rtt, homa_rtt_unsched_init__fields)
{
	homa_rtt_unsched u;

	memset(&u, 0x5a, sizeof(u));
	homa_rtt_unsched_init(&u, 40000);
	EXPECT_EQ(u.window, 40000u);
	EXPECT_EQ(u.unsched_bytes, 0u);
	EXPECT_EQ(u.total_bytes, 0u);
}

/* ---- homa_rtt_unsched_sent ----------------------------------------------- */

TEST(homa_rtt, homa_rtt_unsched_sent__counts_only_while_throttled)
{
	homa_rtt_unsched u;

	homa_rtt_unsched_init(&u, 40000);
	homa_rtt_unsched_sent(&u, 1000, 1, 0);
	homa_rtt_unsched_sent(&u, 1000, 0, 0);
	EXPECT_EQ(u.total_bytes, 0u);
	homa_rtt_unsched_sent(&u, 1500, 1, 1);
	homa_rtt_unsched_sent(&u, 700, 0, 1);
	EXPECT_EQ(u.unsched_bytes, 1500u);
	EXPECT_EQ(u.total_bytes, 2200u);
	EXPECT_EQ(u.window, 40000u);
}

/* ---- homa_rtt_unsched_update --------------------------------------------- */

TEST(homa_rtt, homa_rtt_unsched_update__halves_under_40_percent)
{
	homa_rtt_unsched u;

	homa_rtt_unsched_init(&u, 40000);
	homa_rtt_unsched_sent(&u, 3999, 1, 1);
	homa_rtt_unsched_sent(&u, 6001, 0, 1);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 1, 1000, 40000), 20000u);
	EXPECT_EQ(u.window, 20000u);
	EXPECT_EQ(u.unsched_bytes, 0u);
	EXPECT_EQ(u.total_bytes, 0u);
}

TEST(homa_rtt, homa_rtt_unsched_update__holds_at_40_percent)
{
	homa_rtt_unsched u;

	homa_rtt_unsched_init(&u, 40000);
	homa_rtt_unsched_sent(&u, 4000, 1, 1);
	homa_rtt_unsched_sent(&u, 6000, 0, 1);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 0, 1000, 40000), 40000u);
}

TEST(homa_rtt, homa_rtt_unsched_update__grows_without_backlog)
{
	homa_rtt_unsched u;

	homa_rtt_unsched_init(&u, 10000);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 0, 1000, 40000), 15000u);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 0, 1000, 40000), 20000u);
	/* Throttled now, nothing sent: hold. */
	EXPECT_EQ(homa_rtt_unsched_update(&u, 1, 1000, 40000), 20000u);
	for (int i = 0; i < 10; i++)
		homa_rtt_unsched_update(&u, 0, 1000, 40000);
	EXPECT_EQ(u.window, 40000u);
}

TEST(homa_rtt, homa_rtt_unsched_update__floor_and_limits)
{
	homa_rtt_unsched u;

	homa_rtt_unsched_init(&u, 3000);
	homa_rtt_unsched_sent(&u, 100, 0, 1);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 1, 2000, 40000), 2000u);
	homa_rtt_unsched_sent(&u, 100, 0, 1);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 1, 2000, 40000), 2000u);
	/* A window above a new, lower maximum comes down to it. */
	homa_rtt_unsched_init(&u, 90000);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 1, 1000, 40000), 40000u);
	/* max wins over min; a tiny max still grows by at least 1. */
	EXPECT_EQ(homa_rtt_unsched_update(&u, 1, 50000, 30000), 30000u);
	homa_rtt_unsched_init(&u, 3);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 0, 0, 7), 4u);
}

TEST(homa_rtt, homa_rtt_unsched_update__no_overflow)
{
	homa_rtt_unsched u;

	homa_rtt_unsched_init(&u, 0xfffffff0u);
	EXPECT_EQ(homa_rtt_unsched_update(&u, 0, 0, 0xffffffffu),
		  0xffffffffu);
}

TEST(homa_rtt, homa_rtt_unsched_update__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	uint64_t halved = 0, grown = 0;

	printf("homa_rtt_unsched_update__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int run = 0; run < 200; run++) {
		uint32_t hi = 1 + (uint32_t)(rng() % 100000);
		uint32_t lo = (uint32_t)(rng() % (hi + 1));
		uint32_t w = lo + (uint32_t)(rng() % (hi - lo + 1));
		homa_rtt_unsched u;

		homa_rtt_unsched_init(&u, w);
		for (int i = 0; i < 300; i++) {
			uint64_t uns = 0, tot = 0;
			int share = (int)(rng() % 100);
			bool thr_now = rng() % 2;
			int pkts = (int)(rng() % 20);

			for (int k = 0; k < pkts; k++) {
				uint32_t b = 1 + (uint32_t)(rng() % 1500);
				int unsched = (int)(rng() % 100) < share;
				int thr = rng() % 3 != 0;

				homa_rtt_unsched_sent(&u, b, unsched, thr);
				if (thr) {
					tot += b;
					uns += unsched ? b : 0;
				}
			}
			uint32_t want = model_update(w, uns, tot, thr_now, lo,
						     hi);
			uint32_t got = homa_rtt_unsched_update(&u, thr_now, lo,
							       hi);

			ASSERT_EQ(got, want) << "run " << run << " step " << i;
			ASSERT_GE(got, lo);
			ASSERT_LE(got, hi);
			halved += got < w;
			grown += got > w;
			w = got;
		}
	}
	EXPECT_GT(halved, 0u);
	EXPECT_GT(grown, 0u);
}

} /* namespace */

/* ---- homa_rtt_rate_init, homa_rtt_rate_update ---------------------------- */

TEST(homa_rtt, homa_rtt_rate_update__bins)
{
	homa_rtt_rate r;

	homa_rtt_rate_init(&r, 1000, 500);
	EXPECT_EQ(r.kbps, 0u);
	/* A bin shorter than 10 ms does not close. */
	EXPECT_EQ(homa_rtt_rate_update(&r, 1000 + 9999999, 100000), 0);
	EXPECT_EQ(r.kbps, 0u);
	/* 20000 bytes in 10 ms: 16 Mbit/s. */
	EXPECT_EQ(homa_rtt_rate_update(&r, 1000 + 10000000, 20500), 1);
	EXPECT_EQ(r.kbps, 16000u);
	EXPECT_EQ(r.bin_start, 1000u + 10000000);
	EXPECT_EQ(r.bin_bytes, 20500u);
	/* A higher rate replaces it: 3125000 bytes in 20 ms: 1250 Mbit/s. */
	EXPECT_EQ(homa_rtt_rate_update(&r, 1000 + 30000000, 20500 + 3125000),
		  1);
	EXPECT_EQ(r.kbps, 1250000u);
	/* A lower one (0) takes 1/64 of the difference, rounded up: 19532. */
	EXPECT_EQ(homa_rtt_rate_update(&r, 1000 + 40000000, 20500 + 3125000),
		  1);
	EXPECT_EQ(r.kbps, 1230468u);
}

TEST(homa_rtt, homa_rtt_rate_update__idle_reaches_zero)
{
	homa_rtt_rate r;
	uint64_t now = 0;
	int bins = 0;

	homa_rtt_rate_init(&r, 0, 0);
	now += 10000000;
	homa_rtt_rate_update(&r, now, 2000000);	/* 1600 Mbit/s */
	EXPECT_EQ(r.kbps, 1600000u);
	while (r.kbps && bins < 100000) {
		now += 10000000;
		homa_rtt_rate_update(&r, now, 2000000);
		bins++;
	}
	EXPECT_EQ(r.kbps, 0u);
	/* The model: each idle bin takes ceil(x / 64) off. */
	int model = 0;

	for (uint32_t x = 1600000; x; x -= (x + 63) / 64)
		model++;
	EXPECT_EQ(bins, model);
	/*
	 * About 64 bins per e-fold down to 64 kbit/s (ln 25000 x 64 = 648),
	 * then one per bin; a second of silence (100 bins) leaves a fifth.
	 */
	EXPECT_GT(bins, 600);
	EXPECT_LT(bins, 800);
	homa_rtt_rate_init(&r, 0, 0);
	homa_rtt_rate_update(&r, 10000000, 20000);	/* 16 Mbit/s */
	for (int i = 0; i < 100; i++)
		homa_rtt_rate_update(&r, 20000000 + i * 10000000ull, 20000);
	EXPECT_GT(r.kbps, 16000u / 5 - 500);
	EXPECT_LT(r.kbps, 16000u / 5 + 500);
}

TEST(homa_rtt, homa_rtt_rate_update__restarts)
{
	homa_rtt_rate r;

	homa_rtt_rate_init(&r, 50000000, 1000);
	r.kbps = 77;
	/* Time going back, or the count shrinking: a new bin, no rate. */
	EXPECT_EQ(homa_rtt_rate_update(&r, 100, 5000000), 0);
	EXPECT_EQ(r.bin_start, 100u);
	EXPECT_EQ(r.kbps, 77u);
	EXPECT_EQ(homa_rtt_rate_update(&r, 100000000, 10), 0);
	EXPECT_EQ(r.bin_bytes, 10u);
	EXPECT_EQ(r.kbps, 77u);
	/* A huge count saturates, even one whose bits would overflow. */
	EXPECT_EQ(homa_rtt_rate_update(&r, 110000000, 1ull << 50), 1);
	EXPECT_EQ(r.kbps, 0xffffffffu);
	EXPECT_EQ(homa_rtt_rate_update(&r, 120000000, (1ull << 50) + 1), 1);
	EXPECT_EQ(r.kbps, 0xffffffffu - (0xffffffffu / 64 + 1));
	EXPECT_EQ(homa_rtt_rate_update(&r, 130000000, (1ull << 51) + 1), 1);
	EXPECT_EQ(r.kbps, 0xffffffffu);
}

/*
 * A link of @mbps delivering packets of up to 1500 bytes back to back
 * while busy, idle in random stretches: the kept rate never exceeds the
 * link's rate by more than one packet per bin, and after a busy bin it is
 * at least the link's rate less one packet per bin.
 */
TEST(homa_rtt, homa_rtt_rate_update__random_link)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int run = 0; run < 40; run++) {
		uint32_t mbps = 1 + (uint32_t)(rng() % 100000);
		homa_rtt_rate r;
		uint64_t now = rng() % 1000000000, bytes = 0;
		uint64_t bin_start = now, bin_busy = 0;
		int bins = 0;

		homa_rtt_rate_init(&r, now, 0);
		for (int i = 0; i < 20000 && bins < 300; i++) {
			bool busy = rng() % 4 != 0;
			uint32_t pkt = 60 + (uint32_t)(rng() % 1441);
			/* ns for @pkt at @mbps, rounded up. */
			uint64_t ns = ((uint64_t)pkt * 8000 + mbps - 1) / mbps;

			if (busy) {
				bytes += pkt;
				bin_busy += ns;
			}
			now += busy ? ns : 1 + rng() % 3000000;
			if (homa_rtt_rate_update(&r, now, bytes)) {
				uint64_t len = now - bin_start;
				/* One packet of slack per bin. */
				double slack = 1500.0 * 8000 / len;

				ASSERT_LE(r.kbps / 1000.0, mbps + slack + 1)
					<< "run " << run << " mbps " << mbps;
				if (bin_busy == len) {
					ASSERT_GE(r.kbps / 1000.0 + slack + 1,
						  mbps);
				}
				bin_start = now;
				bin_busy = 0;
				bins++;
			}
		}
	}
}

/* ---- homa_rtt_window_mbps ------------------------------------------------ */

TEST(homa_rtt, homa_rtt_window_mbps__rules)
{
	EXPECT_EQ(homa_rtt_window_mbps(25000, 16, 0), 25000u);
	EXPECT_EQ(homa_rtt_window_mbps(25000, 16, 1), 16u);
	EXPECT_EQ(homa_rtt_window_mbps(16, 25000, 1), 16u);
	/* Nothing measured yet: the floor. */
	EXPECT_EQ(homa_rtt_window_mbps(25000, 0, 1), 1u);
	EXPECT_EQ(homa_rtt_window_mbps(1, 0, 1), 1u);
}

/* With the measured rate, link_mbps 25000 on a 16 Mbit/s link gives the
 * window link_mbps 16 gives. */
TEST(homa_rtt, homa_rtt_window_mbps__wrong_link_mbps)
{
	homa_rtt r;

	homa_rtt_init(&r);
	homa_rtt_sample(&r, 2000000);	/* 2 ms */
	EXPECT_EQ(homa_rtt_sched_window(&r, homa_rtt_window_mbps(25000, 16,
								  1)),
		  homa_rtt_sched_window(&r, 16));
	EXPECT_EQ(homa_rtt_sched_window(&r, 16), 12000u);
	EXPECT_EQ(homa_rtt_sched_window(&r, 25000), 18750000u);
}
