// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_prio.cc - unit tests for homa_prio.c, in the order of its
 * functions. Bucket bounds and cutoffs in the hand-written cases are
 * worked out by hand in the comments (bucket b >= 4 covers lengths whose
 * x = length - 1 has its top bit at e = b / 4 + 1 and the next two bits
 * equal to b % 4). The random tests compare with a naive model (a
 * histogram keyed by lengths found by search, prefix sums recomputed for
 * every level) and check that the cutoffs pass homa_config_check() and
 * give every unscheduled level about the same bytes.
 */

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "homa_config.h"
#include "homa_prio.h"
}

#include "unit_util.h"

namespace {

const uint32_t kBuckets = 76;
const uint32_t kOne = 256;
const uint32_t kMaxLen = 1000000;	/* SPEC: HOMA_MAX_MESSAGE_LENGTH */
const uint32_t kLevels = 8;		/* SPEC: HOMA_MAX_PRIORITIES */

using Cutoffs = std::vector<uint32_t>;

struct Hist {
	homa_prio_hist h;

	explicit Hist(uint32_t half_life = 0)
	{
		memset(&h, 0x5a, sizeof(h));
		homa_prio_hist_init(&h, half_life);
	}
	void add(uint32_t len, uint32_t times = 1)
	{
		for (uint32_t i = 0; i < times; i++)
			homa_prio_hist_add(&h, len);
	}
	int cutoffs(uint32_t unsched, uint32_t n, Cutoffs *out) const
	{
		Cutoffs c(kLevels + 1, 0xdeadbeef);
		int rc = homa_prio_cutoffs(&h, unsched, n, c.data());

		EXPECT_EQ(c[kLevels], 0xdeadbeef) << "wrote past 8 entries";
		c.resize(kLevels);
		*out = c;
		return rc;
	}
};

/* ---- the naive model ----------------------------------------------------- */

/* Upper bounds of every bucket, by the definition in homa_prio.h. */
std::vector<uint32_t> model_bounds()
{
	std::vector<uint32_t> ub;

	for (uint32_t l = 1; l <= 4; l++)
		ub.push_back(l);
	for (uint32_t e = 2; ub.size() < kBuckets; e++)
		for (uint32_t q = 1; q <= 4 && ub.size() < kBuckets; q++)
			/* x ranges up to (4 + q) << (e - 2) - 1 */
			ub.push_back(((4 + q) << (e - 2)));
	return ub;
}

uint32_t model_bucket(uint32_t len)
{
	static const std::vector<uint32_t> ub = model_bounds();

	for (uint32_t b = 0; b < kBuckets; b++)
		if (len <= ub[b])
			return b;
	return kBuckets - 1;
}

struct ModelHist {
	std::vector<uint64_t> count = std::vector<uint64_t>(kBuckets, 0);
	std::vector<uint64_t> bytes = std::vector<uint64_t>(kBuckets, 0);
	uint32_t half_life = 0, since = 0;

	uint64_t total() const
	{
		uint64_t t = 0;

		for (uint64_t b : bytes)
			t += b;
		return t;
	}
	void decay()
	{
		for (uint32_t b = 0; b < kBuckets; b++) {
			count[b] /= 2;
			bytes[b] /= 2;
		}
		since = 0;
	}
	void add(uint32_t len)
	{
		if (len == 0)
			return;
		len = std::min(len, kMaxLen);
		if (half_life && since >= half_life)
			decay();
		while (total() + (uint64_t)len * kOne > (1ull << 56))
			decay();
		count[model_bucket(len)] += kOne;
		bytes[model_bucket(len)] += (uint64_t)len * kOne;
		since++;
	}
};

int model_cutoffs(const ModelHist &m, uint32_t unsched, uint32_t n,
		  Cutoffs *out)
{
	static const std::vector<uint32_t> ub = model_bounds();
	std::vector<uint64_t> part(kBuckets);
	uint64_t tu = 0, total = m.total();
	uint32_t last = model_bucket(kMaxLen) - 1;
	int prev = -1;

	if (n < 1 || n > kLevels || unsched == 0)
		return -EINVAL;
	for (uint32_t b = 0; b < kBuckets; b++) {
		part[b] = ub[b] <= unsched ? m.bytes[b] :
			  std::min(m.bytes[b], m.count[b] * unsched);
		tu += part[b];
	}
	if (tu == 0)
		return -ENODATA;
	/* Round half up: floor(n * tu / total + 1/2). */
	uint32_t u = (uint32_t)((2 * n * tu + total) / (2 * total));

	u = std::max(1u, std::min(u, n > 1 ? n - 1 : 1));
	out->assign(kLevels, 0);
	(*out)[n - u] = kMaxLen;
	for (uint32_t k = 1; k < u; k++) {
		uint32_t nat = 0;
		uint64_t cum = 0;

		for (nat = 0; nat < kBuckets; nat++) {
			cum += part[nat];
			if (cum * u >= k * tu)
				break;
		}
		int pick = std::max((int)nat, prev + 1);

		pick = std::min(pick, (int)(last - (u - 1 - k)));
		(*out)[n - k] = ub[pick];
		prev = pick;
	}
	return (int)u;
}

/* Unscheduled bytes each level carries under @c, from raw lengths. */
std::vector<double> level_bytes(const Cutoffs &c, uint32_t n,
				const std::vector<uint32_t> &lens,
				uint32_t unsched)
{
	std::vector<double> v(kLevels, 0);

	for (uint32_t l : lens)
		v[homa_prio_unsched(c.data(), n, l)] += std::min(l, unsched);
	return v;
}

std::string str(const Cutoffs &c)
{
	std::string s = "{";

	for (uint32_t v : c)
		s += " " + std::to_string(v);
	return s + " }";
}

/* ---- homa_prio_bucket ---------------------------------------------------- */

TEST(homa_prio, homa_prio_bucket__small_lengths)
{
	EXPECT_EQ(homa_prio_bucket(0), 0u);
	EXPECT_EQ(homa_prio_bucket(1), 0u);
	EXPECT_EQ(homa_prio_bucket(2), 1u);
	EXPECT_EQ(homa_prio_bucket(4), 3u);
	EXPECT_EQ(homa_prio_bucket(5), 4u);	/* x 4 = 100b */
	EXPECT_EQ(homa_prio_bucket(8), 7u);	/* x 7 = 111b */
	EXPECT_EQ(homa_prio_bucket(9), 8u);	/* x 8 = 1000b: e 3, bits 00 */
	EXPECT_EQ(homa_prio_bucket(10), 8u);
	EXPECT_EQ(homa_prio_bucket(11), 9u);
}

TEST(homa_prio, homa_prio_bucket__large_lengths)
{
	/* x 99: e 6, next bits (99 >> 4) & 3 = 2: 4 * 5 + 2. */
	EXPECT_EQ(homa_prio_bucket(100), 22u);
	/* x 127999: e 16, (x >> 14) & 3 = 3: 4 * 15 + 3. */
	EXPECT_EQ(homa_prio_bucket(128000), 63u);
	/* x 999999: e 19, (x >> 17) & 3 = 3. */
	EXPECT_EQ(homa_prio_bucket(1000000), 75u);
	EXPECT_EQ(homa_prio_bucket(1u << 20), 75u);
	EXPECT_EQ(homa_prio_bucket((1u << 20) + 1), 75u);
	EXPECT_EQ(homa_prio_bucket(0xffffffffu), 75u);
}

TEST(homa_prio, homa_prio_bucket__vs_model)
{
	for (uint32_t l = 0; l < 300000; l++)
		ASSERT_EQ(homa_prio_bucket(l), model_bucket(std::max(l, 1u)))
			<< l;
	for (uint32_t l = 300000; l < 2000000; l += 37)
		ASSERT_EQ(homa_prio_bucket(l), model_bucket(l)) << l;
}

TEST(homa_prio, homa_prio_bucket__narrow)
{
	/* No bucket above the first four spans more than a quarter. */
	for (uint32_t b = 4; b < kBuckets; b++) {
		uint32_t lo = homa_prio_bucket_max(b - 1);
		uint32_t hi = homa_prio_bucket_max(b);

		EXPECT_LE(hi - lo, lo / 4) << b;
	}
}

/* ---- homa_prio_bucket_max ------------------------------------------------ */

TEST(homa_prio, homa_prio_bucket_max__values)
{
	EXPECT_EQ(homa_prio_bucket_max(0), 1u);
	EXPECT_EQ(homa_prio_bucket_max(3), 4u);
	EXPECT_EQ(homa_prio_bucket_max(4), 5u);
	EXPECT_EQ(homa_prio_bucket_max(7), 8u);
	EXPECT_EQ(homa_prio_bucket_max(8), 10u);
	EXPECT_EQ(homa_prio_bucket_max(11), 16u);
	EXPECT_EQ(homa_prio_bucket_max(22), 112u);
	EXPECT_EQ(homa_prio_bucket_max(74), 917504u);
	EXPECT_EQ(homa_prio_bucket_max(75), 1048576u);
	EXPECT_EQ(homa_prio_bucket_max(76), 1048576u);
	EXPECT_EQ(homa_prio_bucket_max(0xffffffffu), 1048576u);
}

TEST(homa_prio, homa_prio_bucket_max__inverse_of_bucket)
{
	for (uint32_t b = 0; b < kBuckets; b++) {
		uint32_t m = homa_prio_bucket_max(b);

		EXPECT_EQ(homa_prio_bucket(m), b) << b;
		if (b + 1 < kBuckets) {
			EXPECT_EQ(homa_prio_bucket(m + 1), b + 1) << b;
		}
		if (b > 0) {
			EXPECT_GT(m, homa_prio_bucket_max(b - 1)) << b;
		}
	}
}

/* ---- homa_prio_hist_init ------------------------------------------------- */

TEST(homa_prio, homa_prio_hist_init__empty)
{
	Hist h(77);

	for (uint32_t b = 0; b < kBuckets; b++) {
		EXPECT_EQ(h.h.count[b], 0u);
		EXPECT_EQ(h.h.bytes[b], 0u);
	}
	EXPECT_EQ(h.h.total_bytes, 0u);
	EXPECT_EQ(h.h.half_life, 77u);
	EXPECT_EQ(h.h.since_decay, 0u);
}

/* ---- homa_prio_hist_decay ------------------------------------------------ */

TEST(homa_prio, homa_prio_hist_decay__halves)
{
	Hist h;

	h.add(100, 3);	/* count 768, bytes 76800 */
	h.add(5);	/* count 256, bytes 1280 */
	h.h.count[0] = 1;
	h.h.bytes[0] = 1;
	h.h.total_bytes += 1;
	homa_prio_hist_decay(&h.h);
	EXPECT_EQ(h.h.count[22], 384u);
	EXPECT_EQ(h.h.bytes[22], 38400u);
	EXPECT_EQ(h.h.count[4], 128u);
	EXPECT_EQ(h.h.bytes[4], 640u);
	EXPECT_EQ(h.h.count[0], 0u);
	EXPECT_EQ(h.h.bytes[0], 0u);
	EXPECT_EQ(h.h.total_bytes, 39040u);
	EXPECT_EQ(h.h.since_decay, 0u);
}

/* ---- homa_prio_hist_add -------------------------------------------------- */

TEST(homa_prio, homa_prio_hist_add__one_sample)
{
	Hist h;

	h.add(100);
	EXPECT_EQ(h.h.count[22], 256u);
	EXPECT_EQ(h.h.bytes[22], 25600u);
	EXPECT_EQ(h.h.total_bytes, 25600u);
	EXPECT_EQ(h.h.since_decay, 1u);
	for (uint32_t b = 0; b < kBuckets; b++)
		if (b != 22) {
			EXPECT_EQ(h.h.count[b] + h.h.bytes[b], 0u) << b;
		}
}

TEST(homa_prio, homa_prio_hist_add__zero_ignored)
{
	Hist h;

	h.add(0);
	EXPECT_EQ(h.h.total_bytes, 0u);
	EXPECT_EQ(h.h.count[0], 0u);
	EXPECT_EQ(h.h.since_decay, 0u);
}

TEST(homa_prio, homa_prio_hist_add__too_long_clamped)
{
	Hist h;

	h.add(0xffffffffu);
	EXPECT_EQ(h.h.count[75], 256u);
	EXPECT_EQ(h.h.bytes[75], 256000000u);
}

TEST(homa_prio, homa_prio_hist_add__half_life)
{
	Hist h(3);

	h.add(100, 3);
	EXPECT_EQ(h.h.count[22], 768u);
	h.add(100);	/* halves first: 384 + 256 */
	EXPECT_EQ(h.h.count[22], 640u);
	EXPECT_EQ(h.h.since_decay, 1u);
	EXPECT_EQ(h.h.total_bytes, 64000u);
}

TEST(homa_prio, homa_prio_hist_add__old_traffic_fades)
{
	Hist h(100);

	h.add(100, 100);
	h.add(50000, 1000);
	/* 10 halvings since the short messages: they weigh < 1/1000. */
	EXPECT_LT(h.h.count[22] * 1000, h.h.count[homa_prio_bucket(50000)]);
}

TEST(homa_prio, homa_prio_hist_add__total_kept_below_limit)
{
	Hist h;
	const uint64_t lim = 1ull << 56;

	h.h.bytes[75] = lim - 1000;
	h.h.count[75] = 1000;
	h.h.total_bytes = lim - 1000;
	h.add(1000);	/* would pass the limit: halve first */
	EXPECT_EQ(h.h.bytes[75], (lim - 1000) / 2);
	EXPECT_EQ(h.h.count[75], 500u);
	EXPECT_EQ(h.h.total_bytes, (lim - 1000) / 2 + 256000);
	EXPECT_LE(h.h.total_bytes, lim);
}

TEST(homa_prio, homa_prio_hist_add__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	printf("homa_prio_hist_add__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int t = 0; t < 20; t++) {
		uint32_t hl = rng() % 3 ? (uint32_t)(rng() % 2000) : 0;
		Hist h(hl);
		ModelHist m;

		m.half_life = hl;
		for (int i = 0; i < 5000; i++) {
			uint32_t len = (uint32_t)(rng() % 10 == 0 ?
				rng() : 1 + rng() % (1 + rng() % kMaxLen));

			if (rng() % 500 == 0)
				len = 0;
			h.add(len);
			m.add(len);
		}
		for (uint32_t b = 0; b < kBuckets; b++) {
			ASSERT_EQ(h.h.count[b], m.count[b]) << b;
			ASSERT_EQ(h.h.bytes[b], m.bytes[b]) << b;
		}
		ASSERT_EQ(h.h.total_bytes, m.total());
	}
}

/* ---- homa_prio_cutoffs --------------------------------------------------- */

TEST(homa_prio, homa_prio_cutoffs__errors_change_nothing)
{
	Hist h, empty;
	Cutoffs c;

	h.add(100);
	EXPECT_EQ(h.cutoffs(40000, 0, &c), -EINVAL);
	EXPECT_EQ(c, Cutoffs(kLevels, 0xdeadbeef));
	EXPECT_EQ(h.cutoffs(40000, 9, &c), -EINVAL);
	EXPECT_EQ(c, Cutoffs(kLevels, 0xdeadbeef));
	EXPECT_EQ(h.cutoffs(0, 8, &c), -EINVAL);
	EXPECT_EQ(c, Cutoffs(kLevels, 0xdeadbeef));
	EXPECT_EQ(empty.cutoffs(40000, 8, &c), -ENODATA);
	EXPECT_EQ(c, Cutoffs(kLevels, 0xdeadbeef));
}

TEST(homa_prio, homa_prio_cutoffs__one_level)
{
	Hist h;
	Cutoffs c;

	h.add(100, 10);
	h.add(500000, 10);
	EXPECT_EQ(h.cutoffs(40000, 1, &c), 1);
	EXPECT_EQ(c, Cutoffs({ kMaxLen, 0, 0, 0, 0, 0, 0, 0 }));
}

TEST(homa_prio, homa_prio_cutoffs__equal_thirds)
{
	Hist h;
	Cutoffs c;

	/* 3000 bytes each at 100, 300 and 3000; all unscheduled. */
	h.add(100, 30);
	h.add(300, 10);
	h.add(3000, 1);
	/*
	 * Share 1, n 4: 3 unscheduled levels. 1/3 is reached in the bucket
	 * of 100 (22, up to 112), 2/3 in the bucket of 300 (28: x 299,
	 * e 8, bits 00; up to 5 << 6 = 320).
	 */
	EXPECT_EQ(h.cutoffs(1000000, 4, &c), 3);
	EXPECT_EQ(c, Cutoffs({ 0, kMaxLen, 320, 112, 0, 0, 0, 0 }));
}

TEST(homa_prio, homa_prio_cutoffs__all_unscheduled_keeps_a_sched_level)
{
	Hist h;
	Cutoffs c;

	h.add(100, 50);
	/*
	 * Share 1, n 8: 7 levels; all bytes in bucket 22, so the boundaries
	 * step one bucket each: 112, 128, 160, 192, 224, 256.
	 */
	EXPECT_EQ(h.cutoffs(40000, 8, &c), 7);
	EXPECT_EQ(c, Cutoffs({ 0, kMaxLen, 256, 224, 192, 160, 128, 112 }));
}

TEST(homa_prio, homa_prio_cutoffs__mostly_scheduled_one_level)
{
	Hist h;
	Cutoffs c;

	h.add(1000000, 5);
	/* Share 0.04, 8 * 0.04 = 0.32 rounds to 0: at least 1. */
	EXPECT_EQ(h.cutoffs(40000, 8, &c), 1);
	EXPECT_EQ(c, Cutoffs({ 0, 0, 0, 0, 0, 0, 0, kMaxLen }));
}

TEST(homa_prio, homa_prio_cutoffs__share_rounds_half_up)
{
	Hist h;
	Cutoffs c;

	/* Share 40000 / 128000 = 0.3125; 8 * 0.3125 = 2.5: 3 levels. */
	h.add(128000, 7);
	EXPECT_EQ(h.cutoffs(40000, 8, &c), 3);
	/* Bucket 63 (up to 131072), then 64 (up to 5 << 15). */
	EXPECT_EQ(c, Cutoffs({ 0, 0, 0, 0, 0, kMaxLen, 163840, 131072 }));

	Hist h2;

	/* Share 40000 / 128001 is a little under: 2 levels. */
	h2.add(128001, 7);
	EXPECT_EQ(h2.cutoffs(40000, 8, &c), 2);
}

TEST(homa_prio, homa_prio_cutoffs__capped_below_max_length)
{
	Hist h;
	Cutoffs c;

	h.add(1000000, 4);
	/*
	 * Everything in the last bucket and all of it unscheduled: the
	 * boundaries are pushed down to buckets 69..74 (393216 ...
	 * 917504), all below HOMA_MAX_MESSAGE_LENGTH.
	 */
	EXPECT_EQ(h.cutoffs(1000000, 8, &c), 7);
	EXPECT_EQ(c, Cutoffs({ 0, kMaxLen, 917504, 786432, 655360, 524288,
			       458752, 393216 }));
}

TEST(homa_prio, homa_prio_cutoffs__fewer_priorities)
{
	Hist h;
	Cutoffs c;

	h.add(100, 30);
	h.add(300, 10);
	h.add(3000, 1);
	/* n 2: one unscheduled level (1), one scheduled (0). */
	EXPECT_EQ(h.cutoffs(1000000, 2, &c), 1);
	EXPECT_EQ(c, Cutoffs({ 0, kMaxLen, 0, 0, 0, 0, 0, 0 }));
}

TEST(homa_prio, homa_prio_cutoffs__partial_unscheduled_bucket)
{
	Hist h;
	Cutoffs c;

	/*
	 * unsched_bytes 5000: the bucket of 10000 (48, up to 10240) lies
	 * above it, so 10 messages of 10000 count 10 * 5000, and 1 of
	 * 300000 counts 5000. Unscheduled 55000 of 400000 bytes:
	 * 8 * 0.1375 = 1.1 rounds to 1 level.
	 */
	h.add(10000, 10);
	h.add(300000, 1);
	EXPECT_EQ(h.cutoffs(5000, 8, &c), 1);
	EXPECT_EQ(c[7], kMaxLen);
}

TEST(homa_prio, homa_prio_cutoffs__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	printf("homa_prio_cutoffs__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int t = 0; t < 2000; t++) {
		Hist h(rng() % 2 ? 0 : 1 + (uint32_t)(rng() % 300));
		ModelHist m;
		uint32_t modes = 1 + (uint32_t)(rng() % 4);
		uint32_t samples = (uint32_t)(rng() % 600);
		uint32_t unsched = 1 + (uint32_t)(rng() % 200000);
		uint32_t n = (uint32_t)(rng() % 10);
		std::vector<uint32_t> mode;
		Cutoffs got, want;

		m.half_life = h.h.half_life;
		for (uint32_t i = 0; i < modes; i++)
			mode.push_back(1 + (uint32_t)(rng() % kMaxLen));
		for (uint32_t i = 0; i < samples; i++) {
			uint32_t len = rng() % 3 == 0 ?
				(uint32_t)(1 + rng() % kMaxLen) :
				mode[rng() % modes] / (1 + rng() % 3);

			h.add(len);
			m.add(len);
		}
		int rc = h.cutoffs(unsched, n, &got);
		int mrc = model_cutoffs(m, unsched, n, &want);

		ASSERT_EQ(rc, mrc) << "trial " << t;
		if (rc < 0)
			continue;
		ASSERT_EQ(got, want) << "trial " << t << " n " << n
				     << " unsched " << unsched;

		/* Properties: the config accepts them; levels as said. */
		homa_config cfg;

		homa_config_init(&cfg);
		for (uint32_t i = 0; i < kLevels; i++)
			cfg.unsched_cutoffs[i] = (int)got[i];
		ASSERT_EQ(homa_config_check(&cfg), 0) << str(got);
		ASSERT_EQ(got[n - rc], kMaxLen);
		for (uint32_t i = n - rc + 1; i < n; i++)
			ASSERT_LT(got[i], got[i - 1]) << str(got);
		for (uint32_t i = 0; i < kLevels; i++)
			if (i < n - rc || i >= n) {
				ASSERT_EQ(got[i], 0u) << str(got);
			}
		ASSERT_EQ(homa_prio_unsched(got.data(), n, 1), n - 1);
		ASSERT_EQ(homa_prio_max_sched(got.data(), n),
			  n - rc > 0 ? n - rc - 1 : 0u);
	}
}

TEST(homa_prio, homa_prio_cutoffs__levels_carry_equal_bytes)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	/* {longest length, unsched_bytes}: a range of shares and levels. */
	const std::vector<std::pair<double, uint32_t>> cases = {
		{ 1e5, 40000 }, { 2e4, 1000000 }, { 1e6, 200000 },
		{ 3e4, 10000 },
	};

	printf("homa_prio_cutoffs__levels_carry_equal_bytes: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (const auto &cs : cases) {
		uint32_t unsched = cs.second;
		std::vector<double> mass(kBuckets, 0);
		std::vector<uint32_t> lens;
		double all = 0, biggest = 0;
		Hist h;
		Cutoffs c;

		/* Log-uniform lengths: many buckets share the bytes. */
		for (int i = 0; i < 100000; i++) {
			double x = std::exp(std::uniform_real_distribution<>(
				0, std::log(cs.first))(rng));
			uint32_t len = std::max(1u, (uint32_t)x);

			lens.push_back(len);
			h.add(len);
			mass[model_bucket(len)] += std::min(len, unsched);
			all += std::min(len, unsched);
		}
		for (double m : mass)
			biggest = std::max(biggest, m / all);
		int u = h.cutoffs(unsched, 8, &c);

		ASSERT_GE(u, 2) << cs.first << " " << unsched;
		std::vector<double> lb = level_bytes(c, 8, lens, unsched);

		/*
		 * A level misses its 1/u by less than one bucket (plus a
		 * little for the estimate in the bucket of unsched_bytes).
		 */
		for (uint32_t i = 8 - u; i < 8; i++)
			EXPECT_NEAR(lb[i] / all, 1.0 / u, biggest + 0.02)
				<< "max " << cs.first << " unsched " << unsched
				<< " level " << i << " cutoffs " << str(c);
	}
}

/* ---- homa_prio_protect_top ---------------------------------------------- */

TEST(homa_prio, homa_prio_protect_top__long_messages_move_down)
{
	/* Computed for 100 KB messages only: three unscheduled levels. */
	homa_prio_hist h;
	std::vector<uint32_t> c(HOMA_MAX_PRIORITIES, 0);

	homa_prio_hist_init(&h, 0);
	for (int i = 0; i < 100; i++)
		homa_prio_hist_add(&h, 100000);
	ASSERT_EQ(homa_prio_cutoffs(&h, 40000, 8, c.data()), 3);
	ASSERT_GE(c[7], 100000u);
	homa_prio_protect_top(c.data(), 8);
	EXPECT_EQ(c[7], (uint32_t)HOMA_PRIO_TOP_MAX);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 100000), 6u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 1000), 7u);
	EXPECT_EQ(homa_prio_max_sched(c.data(), 8), 4u);
}

TEST(homa_prio, homa_prio_protect_top__only_unscheduled_level)
{
	/* One unscheduled level (the top): the next one down joins it. */
	uint32_t c[HOMA_MAX_PRIORITIES] = { 0, 0, 0, 0, 0, 0, 0, 1000000 };

	homa_prio_protect_top(c, 8);
	EXPECT_EQ(c[7], (uint32_t)HOMA_PRIO_TOP_MAX);
	EXPECT_EQ(c[6], 1000000u);
	EXPECT_EQ(homa_prio_unsched(c, 8, 5000), 6u);
	EXPECT_EQ(homa_prio_max_sched(c, 8), 5u);
	/* Three levels: one stays scheduled. */
	uint32_t d[HOMA_MAX_PRIORITIES] = { 0, 0, 1000000 };

	homa_prio_protect_top(d, 3);
	EXPECT_EQ(d[2], (uint32_t)HOMA_PRIO_TOP_MAX);
	EXPECT_EQ(d[1], 1000000u);
	EXPECT_EQ(homa_prio_max_sched(d, 3), 0u);
}

TEST(homa_prio, homa_prio_protect_top__unchanged)
{
	/* The defaults (200 B on top) and short top levels stay. */
	uint32_t c[HOMA_MAX_PRIORITIES] = { 0, 0, 0, 0, 1000000, 15000, 2800,
					    200 };
	uint32_t want[HOMA_MAX_PRIORITIES];

	memcpy(want, c, sizeof(c));
	homa_prio_protect_top(c, 8);
	EXPECT_EQ(memcmp(c, want, sizeof(c)), 0);
	/* Two levels or fewer: no room for a level of its own. */
	uint32_t d[HOMA_MAX_PRIORITIES] = { 0, 1000000 };

	homa_prio_protect_top(d, 2);
	EXPECT_EQ(d[1], 1000000u);
	EXPECT_EQ(d[0], 0u);
}

TEST(homa_prio, homa_prio_protect_top__random_cutoffs_stay_valid)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int i = 0; i < 2000; i++) {
		homa_prio_hist h;
		uint32_t n = 1 + rng() % HOMA_MAX_PRIORITIES;
		std::vector<uint32_t> c(HOMA_MAX_PRIORITIES, 0);

		homa_prio_hist_init(&h, 0);
		for (int k = 0, m = 1 + rng() % 50; k < m; k++)
			homa_prio_hist_add(&h, 1 + rng() % 1000000);
		if (homa_prio_cutoffs(&h, 1 + rng() % 100000, n, c.data()) < 0)
			continue;
		homa_prio_protect_top(c.data(), n);
		/* Non-zero cutoffs strictly grow from the top level down. */
		uint32_t prev = 0, top_free = n >= 3;

		for (uint32_t l = n; l-- > 0;) {
			if (!c[l])
				continue;
			ASSERT_GT(c[l], prev) << l;
			prev = c[l];
		}
		/* Every length has a level; long ones never the top. */
		ASSERT_EQ(prev, (uint32_t)HOMA_MAX_MESSAGE_LENGTH);
		if (top_free) {
			ASSERT_LE(c[n - 1], (uint32_t)HOMA_PRIO_TOP_MAX);
			ASSERT_LT(homa_prio_unsched(c.data(), n,
						    HOMA_PRIO_TOP_MAX + 1),
				  n - 1);
		}
		/* With two levels or more, one is left for scheduled packets. */
		if (n >= 2) {
			ASSERT_EQ(c[0], 0u) << n;
		}
	}
}

/* ---- homa_prio_unsched --------------------------------------------------- */

TEST(homa_prio, homa_prio_unsched__default_cutoffs)
{
	/* SPEC: prio7 <= 200, prio6 <= 2800, prio5 <= 15000, prio4 rest. */
	Cutoffs c = { 0, 0, 0, 0, kMaxLen, 15000, 2800, 200 };

	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 1), 7u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 200), 7u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 201), 6u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 2800), 6u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 2801), 5u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 15000), 5u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 15001), 4u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, kMaxLen), 4u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 0xffffffffu), 4u);
}

TEST(homa_prio, homa_prio_unsched__levels_above_num_priorities_ignored)
{
	Cutoffs c = { 0, 0, kMaxLen, 5000, 0, 15000, 2800, 200 };

	EXPECT_EQ(homa_prio_unsched(c.data(), 4, 100), 3u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 4, 6000), 2u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 20, 100), 7u);
}

TEST(homa_prio, homa_prio_unsched__no_cutoffs)
{
	Cutoffs c(kLevels, 0);

	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 100), 7u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 3, 100), 2u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 0, 100), 0u);
}

TEST(homa_prio, homa_prio_unsched__garbage_from_a_peer)
{
	/* Not monotonic, no level for long messages: still in range. */
	Cutoffs c = { 7, 0, 100, 3, 0xffffffffu, 0, 9, 50 };

	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 2), 7u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 8, 51), 4u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 4, 101), 0u);
	EXPECT_EQ(homa_prio_unsched(c.data(), 4, 5), 2u);
}

/* ---- homa_prio_max_sched ------------------------------------------------- */

TEST(homa_prio, homa_prio_max_sched__default)
{
	Cutoffs c = { 0, 0, 0, 0, kMaxLen, 15000, 2800, 200 };

	EXPECT_EQ(homa_prio_max_sched(c.data(), 8), 3u);
}

TEST(homa_prio, homa_prio_max_sched__shared_level_0)
{
	Cutoffs c = { kMaxLen, 200, 0, 0, 0, 0, 0, 0 };

	EXPECT_EQ(homa_prio_max_sched(c.data(), 2), 0u);
}

TEST(homa_prio, homa_prio_max_sched__no_cutoffs)
{
	Cutoffs c = { 0, 0, 0, 0, kMaxLen, 15000, 2800, 200 };

	EXPECT_EQ(homa_prio_max_sched(c.data(), 4), 3u);
	EXPECT_EQ(homa_prio_max_sched(c.data(), 0), 0u);
	EXPECT_EQ(homa_prio_max_sched(c.data(), 100), 3u);
}

/* ---- homa_prio_tos ------------------------------------------------------- */

TEST(homa_prio, homa_prio_tos__default_map)
{
	homa_config cfg;

	homa_config_init(&cfg);
	for (uint32_t l = 0; l < kLevels; l++)
		EXPECT_EQ(homa_prio_tos(cfg.priority_map, l), l * 32) << l;
}

TEST(homa_prio, homa_prio_tos__custom_map)
{
	int map[8] = { 7, 6, 5, 4, 3, 2, 1, 0 };

	EXPECT_EQ(homa_prio_tos(map, 0), 0xe0);
	EXPECT_EQ(homa_prio_tos(map, 7), 0x00);
	EXPECT_EQ(homa_prio_tos(map, 8), 0x00);
	EXPECT_EQ(homa_prio_tos(map, 0xffffffffu), 0x00);
	map[2] = 9;	/* only the low 3 bits count */
	EXPECT_EQ(homa_prio_tos(map, 2), 0x20);
}

/* ---- homa_prio_data_ip ---------------------------------------------------- */

TEST(homa_prio, homa_prio_data_ip__off_follows_the_map)
{
	for (int mapped = 0; mapped < 8; mapped++) {
		EXPECT_EQ(homa_prio_data_ip(mapped, -1, true), mapped);
		EXPECT_EQ(homa_prio_data_ip(mapped, -1, false), mapped);
	}
}

TEST(homa_prio, homa_prio_data_ip__only_scheduled_bytes_take_the_setting)
{
	for (int sched = 0; sched < 8; sched++) {
		for (int mapped = 0; mapped < 8; mapped++) {
			EXPECT_EQ(homa_prio_data_ip(mapped, sched, true), sched)
				<< sched << " " << mapped;
			EXPECT_EQ(homa_prio_data_ip(mapped, sched, false),
				  mapped) << sched << " " << mapped;
		}
	}
	/* Only the low 3 bits count, as in homa_prio_tos(). */
	EXPECT_EQ(homa_prio_data_ip(9, -1, true), 1);
	EXPECT_EQ(homa_prio_data_ip(9, 10, true), 2);
}

/*
 * Whatever the cutoffs make scheduled (u unscheduled levels at the top, u
 * from 1 to 7), sched_ip_priority 0 puts every scheduled level in the IP
 * priority TCP uses and none of the unscheduled ones; the fixed map
 * "0 0 0 0 4 5 6 7" that homa.7 gave did so only for u = 4.
 */
TEST(homa_prio, homa_prio_data_ip__every_split_of_the_levels)
{
	const int fixed_map[8] = { 0, 0, 0, 0, 4, 5, 6, 7 };
	homa_config cfg;

	homa_config_init(&cfg);
	for (uint32_t u = 1; u < kLevels; u++) {
		Cutoffs c(kLevels, 0);
		uint32_t max_sched, l;
		bool fixed_ok = true;

		c[kLevels - u] = kMaxLen;
		for (l = kLevels - u + 1; l < kLevels; l++)
			c[l] = 1000 * (kLevels - l);
		max_sched = homa_prio_max_sched(c.data(), kLevels);
		ASSERT_EQ(max_sched, kLevels - u - 1) << u;
		for (l = 0; l < kLevels; l++) {
			bool scheduled = l <= max_sched;
			int ip = homa_prio_data_ip(cfg.priority_map[l], 0,
						   scheduled);

			EXPECT_EQ(ip == 0, scheduled) << u << " " << l;
			if ((fixed_map[l] == 0) != scheduled)
				fixed_ok = false;
		}
		EXPECT_EQ(fixed_ok, u == 4) << u;
	}
}

} /* namespace */
