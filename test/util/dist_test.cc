// SPDX-License-Identifier: GPL-2.0+
// Tests of workload parsing, sampling and Poisson arrivals.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "dist.h"

using namespace cpnode;

namespace {

Workload must_parse(const std::string &text)
{
	Workload w;
	std::string err;
	EXPECT_TRUE(w.parse(text, &err)) << err;
	return w;
}

// Naive model: mean of a CSV computed line by line, lengths capped.
double naive_mean(const std::string &path)
{
	std::ifstream f(path);
	std::string line;
	double num = 0, den = 0;

	while (std::getline(f, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		double len = std::stod(line.substr(0, line.find(',')));
		double fr = std::stod(line.substr(line.find(',') + 1));
		num += std::min(len, 1e6) * fr;
		den += fr;
	}
	return num / den;
}

}  // namespace

TEST(Workload, parse__comments_blanks_and_spaces)
{
	Workload w = must_parse("# header\n\n 10 , 1\n20,3\r\n# x\n");
	ASSERT_EQ(w.sizes().size(), 2u);
	EXPECT_EQ(w.sizes()[0], 10u);
	EXPECT_EQ(w.sizes()[1], 20u);
	EXPECT_DOUBLE_EQ(w.probability(0), 0.25);
	EXPECT_DOUBLE_EQ(w.probability(1), 0.75);
	EXPECT_DOUBLE_EQ(w.mean(), 17.5);
}

TEST(Workload, parse__merges_duplicates_and_sorts)
{
	Workload w = must_parse("30,1\n10,1\n30,2\n");
	ASSERT_EQ(w.sizes().size(), 2u);
	EXPECT_EQ(w.sizes()[0], 10u);
	EXPECT_DOUBLE_EQ(w.probability(1), 0.75);
}

TEST(Workload, parse__truncates_to_max_message)
{
	Workload w = must_parse("100,1\n2000000,1\n5000000,2\n");
	ASSERT_EQ(w.sizes().size(), 2u);
	EXPECT_EQ(w.sizes()[1], kMaxMessage);
	EXPECT_DOUBLE_EQ(w.probability(1), 0.75);
	EXPECT_DOUBLE_EQ(w.mean(), 0.25 * 100 + 0.75 * kMaxMessage);
}

TEST(Workload, parse__bad_input)
{
	const char *bad[] = {"", "# only comments\n", "10\n", "10,\n",
			     ",5\n", "x,1\n", "10,y\n", "0,1\n", "-5,1\n",
			     "10,-1\n", "10,0\n", "10,1,2\n", "10,nan\n"};
	for (const char *b : bad) {
		Workload w;
		std::string err;
		EXPECT_FALSE(w.parse(b, &err)) << "accepted: " << b;
		EXPECT_FALSE(err.empty());
	}
}

TEST(Workload, parse__error_names_line)
{
	Workload w;
	std::string err;
	EXPECT_FALSE(w.parse("# c\n10,1\nbogus\n", &err));
	EXPECT_NE(err.find("line 3"), std::string::npos) << err;
}

TEST(Workload, load__shipped_workload_means)
{
	// Means from SPEC.md section 7 (truncated at 1 MB).
	struct {
		const char *name;
		double mean;
	} want[] = {{"w1", 189.17}, {"w2", 433.32}, {"w3", 2423.11},
		    {"w4", 60175.12}, {"w5", 385315.51},
		    {"starve", 526315.79}};
	for (auto &x : want) {
		Workload w;
		std::string err;
		ASSERT_TRUE(w.load(x.name, "../workloads", &err)) << err;
		EXPECT_NEAR(w.mean(), x.mean, 0.01) << x.name;
		EXPECT_NEAR(w.mean(),
			    naive_mean(std::string("../workloads/") + x.name +
				       ".csv"),
			    1e-6 * w.mean())
			<< x.name;
	}
}

TEST(Workload, load__fixed_size_and_errors)
{
	Workload w;
	std::string err;
	ASSERT_TRUE(w.load("100000", "../workloads", &err)) << err;
	EXPECT_DOUBLE_EQ(w.mean(), 100000);
	Rng rng(7);
	for (int i = 0; i < 1000; i++)
		ASSERT_EQ(w.sample(rng), 100000u);
	EXPECT_FALSE(w.load("0", "../workloads", &err));
	EXPECT_FALSE(w.load("1000001", "../workloads", &err));
	EXPECT_FALSE(w.load("99999999999999999999999", "../workloads", &err));
	EXPECT_FALSE(w.load("nonesuch", "../workloads", &err));
	EXPECT_NE(err.find("nonesuch.csv"), std::string::npos) << err;
	ASSERT_TRUE(w.load("../workloads/w1.csv", "/nonexistent", &err))
		<< err;
	EXPECT_NEAR(w.mean(), 189.17, 0.01);
}

TEST(Workload, sample__matches_frequencies)
{
	Workload w;
	std::string err;
	ASSERT_TRUE(w.load("w2", "../workloads", &err)) << err;
	for (uint64_t seed : {1u, 42u, 12345u}) {
		Rng rng(seed);
		std::map<uint32_t, int> counts;
		const int n = 400000;
		double sum = 0;
		for (int i = 0; i < n; i++) {
			uint32_t s = w.sample(rng);
			counts[s]++;
			sum += s;
		}
		for (size_t i = 0; i < w.sizes().size(); i++) {
			double p = w.probability(i);
			double got = counts[w.sizes()[i]] / double(n);
			double sd = std::sqrt(p * (1 - p) / n);
			EXPECT_NEAR(got, p, 5 * sd + 1e-6)
				<< "seed " << seed << " size "
				<< w.sizes()[i];
		}
		EXPECT_EQ(counts.size() <= w.sizes().size(), true);
		EXPECT_NEAR(sum / n, w.mean(), 0.03 * w.mean())
			<< "seed " << seed;
	}
}

TEST(Workload, sample__deterministic_for_seed)
{
	Workload w;
	std::string err;
	ASSERT_TRUE(w.load("w4", "../workloads", &err)) << err;
	Rng a(99), b(99), c(100);
	int differ = 0;
	for (int i = 0; i < 1000; i++) {
		uint32_t x = w.sample(a);
		ASSERT_EQ(x, w.sample(b));
		differ += x != w.sample(c);
	}
	EXPECT_GT(differ, 100);
}

TEST(Workload, representative__spread_and_bounded)
{
	Workload w;
	std::string err;
	ASSERT_TRUE(w.load("w3", "../workloads", &err)) << err;
	ASSERT_GT(w.sizes().size(), 100u);
	std::vector<uint32_t> r = w.representative(100);
	ASSERT_LE(r.size(), 100u);
	ASSERT_GE(r.size(), 20u);
	EXPECT_EQ(r.front(), w.sizes().front());
	EXPECT_EQ(r.back(), w.sizes().back());
	for (size_t i = 1; i < r.size(); i++)
		EXPECT_LT(r[i - 1], r[i]);
	for (uint32_t s : r)
		EXPECT_TRUE(std::binary_search(w.sizes().begin(),
					       w.sizes().end(), s));
	// Few sizes: all of them.
	Workload s = must_parse("5,1\n6,1\n7,1\n");
	EXPECT_EQ(s.representative(100), s.sizes());
	EXPECT_EQ(s.representative(2).size(), 2u);
}

TEST(Poisson, exponential__mean_and_variance)
{
	for (double mean : {1.0, 250.0, 1e6}) {
		Rng rng(static_cast<uint64_t>(mean) + 3);
		const int n = 200000;
		double sum = 0, sq = 0;
		for (int i = 0; i < n; i++) {
			double x = exponential(rng, mean);
			ASSERT_GE(x, 0);
			sum += x;
			sq += x * x;
		}
		double m = sum / n;
		double var = sq / n - m * m;
		EXPECT_NEAR(m, mean, 0.02 * mean);
		// Exponential: standard deviation equals the mean.
		EXPECT_NEAR(std::sqrt(var), mean, 0.03 * mean);
	}
}

TEST(Poisson, mean_interarrival_ns__rate)
{
	// 1 Gbit/s of 125-byte messages: one per microsecond.
	EXPECT_DOUBLE_EQ(mean_interarrival_ns(125, 1.0), 1000.0);
	EXPECT_DOUBLE_EQ(mean_interarrival_ns(60175, 0.5), 60175 * 16.0);
	// Simulated arrivals over 1 s offer the requested load.
	Workload w;
	std::string err;
	ASSERT_TRUE(w.load("w1", "../workloads", &err)) << err;
	Rng rng(5);
	double gap = mean_interarrival_ns(w.mean(), 0.2);
	double t = 0, bytes = 0;
	while (t < 1e9) {
		t += exponential(rng, gap);
		bytes += w.sample(rng);
	}
	EXPECT_NEAR(bytes * 8 / 1e9, 0.2, 0.01);
}

TEST(Poisson, uniform01__range)
{
	Rng rng(1);
	double lo = 1, hi = 0;
	for (int i = 0; i < 100000; i++) {
		double u = uniform01(rng);
		ASSERT_GE(u, 0.0);
		ASSERT_LT(u, 1.0);
		lo = std::min(lo, u);
		hi = std::max(hi, u);
	}
	EXPECT_LT(lo, 0.001);
	EXPECT_GT(hi, 0.999);
}

TEST(RequestStream, same_seed_same_requests)
{
	Workload w;
	std::string err;
	ASSERT_TRUE(w.load("w4", "../workloads", &err)) << err;
	RequestStream a(w, 3, 7), b(w, 3, 7), c(w, 3, 8);
	int differ = 0;
	for (int i = 0; i < 1000; i++) {
		Request x = a.next(), y = b.next(), z = c.next();
		ASSERT_EQ(x.length, y.length);
		ASSERT_EQ(x.dest, y.dest);
		ASSERT_EQ(a.gap(1000.0), b.gap(1000.0));
		c.gap(1000.0);
		differ += x.length != z.length || x.dest != z.dest;
	}
	EXPECT_GT(differ, 100);
}

/*
 * Drawing servers alone (as the unloaded runs do), however many times,
 * does not move the lengths and arrival times of the requests: a client
 * that sends at other moments still generates the same load.
 */
TEST(RequestStream, servers_drawn_apart_from_lengths_and_times)
{
	Workload w;
	std::string err;
	ASSERT_TRUE(w.load("w4", "../workloads", &err)) << err;
	RequestStream a(w, 3, 11), b(w, 3, 11);
	Rng extra(5);
	for (int i = 0; i < 1000; i++) {
		int k = static_cast<int>(uniform01(extra) * 4);
		for (int j = 0; j < k; j++)
			b.dest();
		ASSERT_EQ(a.next().length, b.next().length) << "request " << i;
		ASSERT_EQ(a.gap(5000.0), b.gap(5000.0)) << "request " << i;
	}
}

TEST(RequestStream, servers_uniform_and_in_range)
{
	Workload w;
	w.set_fixed(100);
	for (size_t n : {1u, 3u, 7u}) {
		RequestStream s(w, n, 3);
		std::vector<int> counts(n, 0);
		const int draws = 70000;
		for (int i = 0; i < draws; i++) {
			Request r = s.next();
			ASSERT_LT(r.dest, n);
			ASSERT_EQ(r.length, 100u);
			counts[r.dest]++;
		}
		for (size_t d = 0; d < n; d++)
			EXPECT_NEAR(counts[d], draws / double(n),
				    0.05 * draws / n) << "n " << n << " dest " << d;
	}
}
