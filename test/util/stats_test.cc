// SPDX-License-Identifier: GPL-2.0+
// Percentiles against a naive sort-based model.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "stats.h"

using namespace cpnode;

namespace {

// Nearest rank with integer arithmetic: rank = ceil(p * n / 100).
uint64_t naive(std::vector<uint64_t> v, int p)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	size_t rank = (static_cast<size_t>(p) * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

}  // namespace

TEST(Stats, percentile__empty_and_single)
{
	std::vector<uint64_t> v;
	EXPECT_EQ(percentile(v, 50), 0u);
	v = {7};
	EXPECT_EQ(percentile(v, 1), 7u);
	EXPECT_EQ(percentile(v, 50), 7u);
	EXPECT_EQ(percentile(v, 100), 7u);
}

TEST(Stats, percentile__known_values)
{
	std::vector<uint64_t> v;
	for (uint64_t i = 100; i >= 1; i--)
		v.push_back(i);
	EXPECT_EQ(percentile(v, 50), 50u);
	EXPECT_EQ(percentile(v, 99), 99u);
	EXPECT_EQ(percentile(v, 100), 100u);
	EXPECT_EQ(percentile(v, 1), 1u);
	v = {3, 1, 2};
	EXPECT_EQ(percentile(v, 50), 2u);
	EXPECT_EQ(percentile(v, 99), 3u);
	v = {10, 20};
	EXPECT_EQ(percentile(v, 50), 10u);
	EXPECT_EQ(percentile(v, 51), 20u);
}

TEST(Stats, percentile__random_vs_naive)
{
	uint64_t seed = 20261122;
	std::mt19937_64 rng(seed);
	for (int trial = 0; trial < 300; trial++) {
		size_t n = 1 + rng() % 2000;
		std::vector<uint64_t> v(n);
		uint64_t range = trial % 3 == 0 ? 10 : 1000000000;
		for (auto &x : v)
			x = rng() % range;
		for (int p : {1, 10, 50, 90, 99, 100}) {
			std::vector<uint64_t> copy = v;
			ASSERT_EQ(percentile(copy, p), naive(v, p))
				<< "seed " << seed << " trial " << trial
				<< " n " << n << " p " << p;
		}
		std::vector<uint64_t> copy = v;
		std::vector<uint64_t> both = percentiles(copy, {99, 50});
		ASSERT_EQ(both.size(), 2u);
		EXPECT_EQ(both[0], naive(v, 99));
		EXPECT_EQ(both[1], naive(v, 50));
	}
}
