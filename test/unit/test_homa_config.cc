// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_config.cc - unit tests for homa_config.c: the homa_params[]
 * table first, then its functions in the order of the source file. Expected
 * names and defaults come from SPEC.md section 5 (plus the project's
 * decisions: poll_usecs 0, max_gso_size 10000, unsched_cutoffs index 7 =
 * 200), written out here by hand, never read back from the code under test.
 * The cutoff rules are checked against a naive reference model below.
 */

#include <gtest/gtest.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "homa_config.h"
}

#include "unit_util.h"

namespace {

const int kMaxLen = 1000000;	/* SPEC: largest message */
const int kPrios = 8;

/* One expected net.homa.* entry: SPEC.md section 5, written out by hand. */
struct Expected {
	const char *name;
	size_t offset;		/* offsetof the field in struct homa_config */
	unsigned count;
	int defs[kPrios];	/* defs[0] for scalars */
};

#define SCALAR(field, name, d) \
	{ name, offsetof(struct homa_config, field), 1, { d } }

const Expected kExpected[] = {
	SCALAR(unsched_bytes, "unsched_bytes", 40000),
	SCALAR(unsched_bytes, "rtt_bytes", 40000),
	SCALAR(window, "window", 0),
	SCALAR(max_incoming, "max_incoming", 400000),
	SCALAR(max_overcommit, "max_overcommit", 8),
	SCALAR(num_priorities, "num_priorities", 8),
	{ "priority_map", offsetof(struct homa_config, priority_map), 8,
	  { 0, 1, 2, 3, 4, 5, 6, 7 } },
	{ "unsched_cutoffs", offsetof(struct homa_config, unsched_cutoffs), 8,
	  { 0, 0, 0, 0, 1000000, 15000, 2800, 200 } },
	SCALAR(cutoff_version, "cutoff_version", 1),
	SCALAR(link_mbps, "link_mbps", 25000),
	SCALAR(max_nic_queue_ns, "max_nic_queue_ns", 25000),
	SCALAR(max_gso_size, "max_gso_size", 65536),
	SCALAR(grant_overshoot_ns, "grant_overshoot_ns", 25000),
	SCALAR(grant_fifo_fraction, "grant_fifo_fraction", 50),
	SCALAR(grant_increment, "grant_increment", 10000),
	SCALAR(pacer_fifo_fraction, "pacer_fifo_fraction", 50),
	SCALAR(resend_ticks, "resend_ticks", 5),
	SCALAR(resend_interval, "resend_interval", 5),
	/* Longer than neighbour resolution's three tries (issue 15). */
	SCALAR(timeout_ticks, "timeout_ticks", 3000),
	SCALAR(request_ack_ticks, "request_ack_ticks", 2),
	/* Deliberate departure from the reference's 50: no busy-wait. */
	SCALAR(poll_usecs, "poll_usecs", 0),
	SCALAR(reap_limit, "reap_limit", 10),
	SCALAR(dead_buffs_limit, "dead_buffs_limit", 5000),
	SCALAR(wmem_max, "wmem_max", 100000000),
	SCALAR(rmem_max, "rmem_max", 100000000),
	SCALAR(copy_batch, "copy_batch", 32768),
	SCALAR(tx_page_cache_kb, "tx_page_cache_kb", 2048),
	SCALAR(peer_idle_secs, "peer_idle_secs", 60),
	SCALAR(dedup_ms, "dedup_ms", 2000),
	SCALAR(incast_threshold, "incast_threshold", 16),
	SCALAR(incast_unsched_bytes, "incast_unsched_bytes", 1000),
	SCALAR(auto_cutoffs, "auto_cutoffs", 1),
	/* The pacer and RTT-adaptive behaviour (issue 5). */
	SCALAR(pacer_enable, "pacer_enable", 1),
	SCALAR(pacer_lead_max_ns, "pacer_lead_max_ns", 1000000),
	SCALAR(throttle_min_bytes, "throttle_min_bytes", 1000),
	SCALAR(rtt_adaptive, "rtt_adaptive", 1),
	SCALAR(rtt_window_min, "rtt_window_min", 20000),
	SCALAR(rtt_window_measured, "rtt_window_measured", 1),
	SCALAR(unsched_adaptive, "unsched_adaptive", 1),
	SCALAR(rtt_resend, "rtt_resend", 2),
	SCALAR(rtt_resend_min_us, "rtt_resend_min_us", 2000),
	/* Congestion the grants do not see (issue 13). */
	SCALAR(rtt_congestion_factor, "rtt_congestion_factor", 8),
	SCALAR(rtt_congestion_react, "rtt_congestion_react", 0),
	SCALAR(rtt_fair_skip_pkts, "rtt_fair_skip_pkts", 1),
	SCALAR(sched_ip_priority, "sched_ip_priority", -1),
	SCALAR(resend_outranked, "resend_outranked", 1),
	SCALAR(pacer_held_max_kb, "pacer_held_max_kb", 128),
	SCALAR(pacer_drain_queue_us, "pacer_drain_queue_us", 2000),
	/* Throughput (issue 12). */
	SCALAR(pacer_rx_help, "pacer_rx_help", 0),
	/* Bounded state (issue 15). */
	SCALAR(peer_rpc_limit, "peer_rpc_limit", 5000),
	SCALAR(sock_rpc_limit, "sock_rpc_limit", 20000),
	SCALAR(peer_pool_pct, "peer_pool_pct", 50),
	SCALAR(stall_ms, "stall_ms", 10000),
	SCALAR(max_peers, "max_peers", 50000),
};

#undef SCALAR

struct Cfg {
	struct homa_config c;

	Cfg() { homa_config_init(&c); }
	int &at(size_t offset, unsigned idx)
	{
		return reinterpret_cast<int *>(
			reinterpret_cast<char *>(&c) + offset)[idx];
	}
	void set_cutoffs(const int (&v)[kPrios])
	{
		for (int i = 0; i < kPrios; i++)
			c.unsched_cutoffs[i] = v[i];
	}
	int check() const { return homa_config_check(&c); }
};

std::string cutoffs_str(const int *v)
{
	std::string s = "{";

	for (int i = 0; i < kPrios; i++)
		s += (i ? ", " : "") + std::to_string(v[i]);
	return s + "}";
}

/*
 * Reference model of the cutoff rule: every value is >= 0; the non-zero
 * values, read from index 7 down to index 0, strictly increase; there is
 * at least one, and the largest is >= the longest message.
 */
bool model_cutoffs_ok(const int *v)
{
	std::vector<long long> seq;

	for (int i = 0; i < kPrios; i++)
		if (v[i] < 0)
			return false;
	for (int i = kPrios - 1; i >= 0; i--)
		if (v[i] != 0)
			seq.push_back(v[i]);
	if (seq.empty())
		return false;
	for (size_t k = 1; k < seq.size(); k++)
		if (!(seq[k] > seq[k - 1]))
			return false;
	long long largest = 0;
	for (long long x : seq)
		largest = x > largest ? x : largest;
	return largest >= kMaxLen;
}

/* ---- homa_params[] ---------------------------------------------------- */

TEST(homa_params, names_unique_except_alias)
{
	std::set<std::string> names;

	for (u32 i = 0; i < homa_num_params; i++)
		EXPECT_TRUE(names.insert(homa_params[i].name).second)
			<< "duplicate name " << homa_params[i].name;

	/* Offsets are shared only by the rtt_bytes/unsched_bytes alias. */
	for (u32 i = 0; i < homa_num_params; i++)
		for (u32 j = i + 1; j < homa_num_params; j++) {
			const homa_param &a = homa_params[i], &b = homa_params[j];
			bool overlap = a.offset < b.offset + b.count * 4 &&
				       b.offset < a.offset + a.count * 4;
			std::set<std::string> pair = { a.name, b.name };
			bool alias = pair == std::set<std::string>{
				"rtt_bytes", "unsched_bytes" };
			if (alias) {
				EXPECT_EQ(a.offset, b.offset);
				EXPECT_EQ(a.count, b.count);
			} else {
				EXPECT_FALSE(overlap) << a.name << " overlaps "
						      << b.name;
			}
		}
}

TEST(homa_params, alias_has_same_default_and_range)
{
	const homa_param *a = homa_param_find("rtt_bytes");
	const homa_param *b = homa_param_find("unsched_bytes");

	ASSERT_NE(a, nullptr);
	ASSERT_NE(b, nullptr);
	EXPECT_EQ(a->offset, offsetof(struct homa_config, unsched_bytes));
	EXPECT_EQ(a->def, b->def);
	EXPECT_EQ(a->min, b->min);
	EXPECT_EQ(a->max, b->max);
	EXPECT_EQ(a->flags, b->flags);
	EXPECT_EQ(a->defs, nullptr);
	EXPECT_EQ(b->defs, nullptr);
}

TEST(homa_params, entries_within_struct)
{
	for (u32 i = 0; i < homa_num_params; i++) {
		const homa_param &p = homa_params[i];

		EXPECT_GE(p.count, 1u) << p.name;
		EXPECT_EQ(p.offset % sizeof(int), 0u) << p.name;
		EXPECT_LE((size_t)p.offset + (size_t)p.count * sizeof(int),
			  sizeof(struct homa_config)) << p.name;
	}
}

TEST(homa_params, every_int_covered)
{
	const size_t n = sizeof(struct homa_config) / sizeof(int);
	std::vector<int> covered(n, 0);

	ASSERT_EQ(sizeof(struct homa_config) % sizeof(int), 0u);
	for (u32 i = 0; i < homa_num_params; i++) {
		const homa_param &p = homa_params[i];

		for (u32 j = 0; j < p.count; j++) {
			size_t k = p.offset / sizeof(int) + j;
			if (k < n)
				covered[k]++;
		}
	}
	for (size_t k = 0; k < n; k++)
		EXPECT_GT(covered[k], 0) << "int " << k << " (byte offset "
					 << k * sizeof(int)
					 << ") has no parameter";
}

TEST(homa_params, min_le_default_le_max)
{
	for (u32 i = 0; i < homa_num_params; i++) {
		const homa_param &p = homa_params[i];

		EXPECT_LE(p.min, p.max) << p.name;
		for (u32 j = 0; j < p.count; j++) {
			int d = p.defs ? p.defs[j] : p.def;
			EXPECT_LE(p.min, d) << p.name << "[" << j << "]";
			EXPECT_LE(d, p.max) << p.name << "[" << j << "]";
		}
	}
}

TEST(homa_params, names_are_valid_sysctl_names)
{
	for (u32 i = 0; i < homa_num_params; i++) {
		const char *n = homa_params[i].name;

		ASSERT_NE(n, nullptr);
		EXPECT_GT(strlen(n), 0u);
		for (const char *c = n; *c; c++)
			EXPECT_TRUE((*c >= 'a' && *c <= 'z') ||
				    (*c >= '0' && *c <= '9') || *c == '_')
				<< "bad character '" << *c << "' in " << n;
	}
}

TEST(homa_params, exactly_the_expected_names)
{
	std::set<std::string> want, got;

	for (const Expected &e : kExpected)
		want.insert(e.name);
	for (u32 i = 0; i < homa_num_params; i++)
		got.insert(homa_params[i].name);
	for (const std::string &n : want)
		EXPECT_TRUE(got.count(n)) << "missing " << n;
	for (const std::string &n : got)
		EXPECT_TRUE(want.count(n)) << "unexpected " << n;
	EXPECT_EQ(homa_num_params, (u32)(sizeof(kExpected) /
					 sizeof(kExpected[0])));
}

TEST(homa_params, offsets_and_counts_match_fields)
{
	for (const Expected &e : kExpected) {
		const homa_param *p = homa_param_find(e.name);

		ASSERT_NE(p, nullptr) << e.name;
		EXPECT_EQ(p->offset, e.offset) << e.name;
		EXPECT_EQ(p->count, e.count) << e.name;
	}
}

TEST(homa_params, only_cutoff_version_read_only)
{
	for (u32 i = 0; i < homa_num_params; i++) {
		const homa_param &p = homa_params[i];
		bool ro = p.flags & HOMA_PARAM_READ_ONLY;

		EXPECT_EQ(ro, std::string(p.name) == "cutoff_version")
			<< p.name;
	}
}

TEST(homa_params, ranges_fit_the_wire)
{
	/* priority_map values are 3-bit IP priorities (TOS top bits). */
	const homa_param *pm = homa_param_find("priority_map");
	ASSERT_NE(pm, nullptr);
	EXPECT_GE(pm->min, 0);
	EXPECT_LE(pm->max, 7);

	/* num_priorities: between 1 and the 8 levels Homa has. */
	const homa_param *np = homa_param_find("num_priorities");
	ASSERT_NE(np, nullptr);
	EXPECT_GE(np->min, 1);
	EXPECT_LE(np->max, kPrios);

	/* cutoff_version travels as a 16-bit field. */
	const homa_param *cv = homa_param_find("cutoff_version");
	ASSERT_NE(cv, nullptr);
	EXPECT_GE(cv->min, 0);
	EXPECT_LE(cv->max, 0xffff);

	/* A cutoff is a message length: never negative. */
	const homa_param *uc = homa_param_find("unsched_cutoffs");
	ASSERT_NE(uc, nullptr);
	EXPECT_GE(uc->min, 0);
	EXPECT_GE(uc->max, kMaxLen);
}

/* ---- homa_param_find ---------------------------------------------------- */

TEST(homa_param_find, finds_every_name)
{
	for (const Expected &e : kExpected) {
		const homa_param *p = homa_param_find(e.name);

		ASSERT_NE(p, nullptr) << e.name;
		EXPECT_STREQ(p->name, e.name);
		EXPECT_GE(p, &homa_params[0]);
		EXPECT_LT(p, &homa_params[homa_num_params]);
	}
	for (u32 i = 0; i < homa_num_params; i++)
		EXPECT_EQ(homa_param_find(homa_params[i].name),
			  &homa_params[i]);
}

TEST(homa_param_find, unknown_names)
{
	const char *bad[] = { "", "unsched", "unsched_bytes_", "Window",
			      "rtt", "window ", " window", "priority_map[0]",
			      "net.homa.window", "drop_rate", "nosuch" };

	for (const char *n : bad)
		EXPECT_EQ(homa_param_find(n), nullptr) << "\"" << n << "\"";
}

/* ---- homa_config_value -------------------------------------------------- */

TEST(homa_config_value, points_at_field)
{
	struct homa_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	struct {
		const char *name;
		int *field;
	} cases[] = {
		{ "unsched_bytes", &cfg.unsched_bytes },
		{ "rtt_bytes", &cfg.unsched_bytes },
		{ "window", &cfg.window },
		{ "num_priorities", &cfg.num_priorities },
		{ "priority_map", &cfg.priority_map[0] },
		{ "unsched_cutoffs", &cfg.unsched_cutoffs[0] },
		{ "cutoff_version", &cfg.cutoff_version },
		{ "link_mbps", &cfg.link_mbps },
		{ "poll_usecs", &cfg.poll_usecs },
		{ "wmem_max", &cfg.wmem_max },
	};

	for (auto &c : cases) {
		const homa_param *p = homa_param_find(c.name);

		ASSERT_NE(p, nullptr) << c.name;
		EXPECT_EQ(homa_config_value(&cfg, p), c.field) << c.name;
	}
}

TEST(homa_config_value, write_through_alias)
{
	struct homa_config cfg;

	homa_config_init(&cfg);
	*homa_config_value(&cfg, homa_param_find("rtt_bytes")) = 12345;
	EXPECT_EQ(cfg.unsched_bytes, 12345);
	EXPECT_EQ(*homa_config_value(&cfg, homa_param_find("unsched_bytes")),
		  12345);
}

/* ---- homa_config_init --------------------------------------------------- */

TEST(homa_config_init, spec_defaults)
{
	struct homa_config cfg;

	memset(&cfg, 0xa5, sizeof(cfg));	/* init must overwrite all */
	homa_config_init(&cfg);
	EXPECT_EQ(cfg.unsched_bytes, 40000);
	EXPECT_EQ(cfg.window, 0);
	EXPECT_EQ(cfg.max_incoming, 400000);
	EXPECT_EQ(cfg.max_overcommit, 8);
	EXPECT_EQ(cfg.num_priorities, 8);
	for (int i = 0; i < kPrios; i++)
		EXPECT_EQ(cfg.priority_map[i], i) << i;
	const int cut[kPrios] = { 0, 0, 0, 0, 1000000, 15000, 2800, 200 };
	for (int i = 0; i < kPrios; i++)
		EXPECT_EQ(cfg.unsched_cutoffs[i], cut[i]) << i;
	EXPECT_EQ(cfg.cutoff_version, 1);
	EXPECT_EQ(cfg.link_mbps, 25000);
	EXPECT_EQ(cfg.max_nic_queue_ns, 25000);
	EXPECT_EQ(cfg.max_gso_size, 65536);
	EXPECT_EQ(cfg.grant_fifo_fraction, 50);
	EXPECT_EQ(cfg.grant_increment, 10000);
	EXPECT_EQ(cfg.pacer_fifo_fraction, 50);
	EXPECT_EQ(cfg.resend_ticks, 5);
	EXPECT_EQ(cfg.resend_interval, 5);
	EXPECT_EQ(cfg.timeout_ticks, 3000);
	EXPECT_EQ(cfg.request_ack_ticks, 2);
	EXPECT_EQ(cfg.poll_usecs, 0);
	EXPECT_EQ(cfg.reap_limit, 10);
	EXPECT_EQ(cfg.dead_buffs_limit, 5000);
	EXPECT_EQ(cfg.wmem_max, 100000000);
}

TEST(homa_config_init, table_defaults_match_spec)
{
	for (const Expected &e : kExpected) {
		const homa_param *p = homa_param_find(e.name);

		ASSERT_NE(p, nullptr) << e.name;
		for (unsigned j = 0; j < e.count && j < p->count; j++) {
			int d = p->defs ? p->defs[j] : p->def;
			EXPECT_EQ(d, e.defs[j]) << e.name << "[" << j << "]";
		}
	}
}

TEST(homa_config_init, defaults_pass_check)
{
	Cfg cfg;

	EXPECT_EQ(cfg.check(), 0);
}

/* ---- homa_config_check_cutoffs (through homa_config_check) ------------- */

TEST(homa_config_check_cutoffs, valid_sets)
{
	const int ok[][kPrios] = {
		{ 1000000, 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 1000000, 100 },
		{ 0, 0, 0, 0, 1000000, 0, 500, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 1000000 },
		{ 0, 0, 0, 0, 0, 0, 0, INT_MAX },
		{ INT_MAX, 1000000, 999999, 5, 4, 3, 2, 1 },
		{ 2000000, 0, 1000000, 0, 2800, 0, 200, 0 },
		{ 0, 0, 0, 0, 1000000, 15000, 2800, 200 },
	};

	for (const auto &v : ok) {
		Cfg cfg;

		cfg.set_cutoffs(v);
		EXPECT_EQ(cfg.check(), 0) << cutoffs_str(v);
	}
}

TEST(homa_config_check_cutoffs, invalid_sets)
{
	const int bad[][kPrios] = {
		/* not increasing as the index falls */
		{ 0, 0, 0, 0, 1000000, 15000, 2800, 3000 },
		{ 0, 0, 0, 0, 1000000, 2800, 15000, 200 },
		{ 1000000, 2000000, 0, 0, 0, 0, 0, 0 },
		/* equal values */
		{ 0, 0, 0, 0, 1000000, 15000, 2800, 2800 },
		{ 0, 0, 0, 0, 1000000, 1000000, 0, 0 },
		{ 1000000, 0, 0, 0, 0, 0, 0, 1000000 },
		{ 0, 0, 0, 1000000, 0, 2800, 0, 2800 },
		/* largest below the longest message */
		{ 999999, 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 999999, 15000, 2800, 200 },
		{ 0, 0, 0, 0, 0, 15000, 2800, 200 },
		/* all zero */
		{ 0, 0, 0, 0, 0, 0, 0, 0 },
		/* negative */
		{ 1000000, 0, 0, 0, 0, 0, 0, -1 },
		{ 1000000, 0, 0, 0, 0, 0, 0, INT_MIN },
	};

	for (const auto &v : bad) {
		Cfg cfg;

		cfg.set_cutoffs(v);
		EXPECT_EQ(cfg.check(), -EINVAL) << cutoffs_str(v);
	}
}

TEST(homa_config_check_cutoffs, random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	const int pool[] = { 0, 0, 0, 1, 200, 2800, 999999, 1000000,
			     2000000, INT_MAX, -1, INT_MIN };
	std::uniform_int_distribution<int> pick(0, (int)(sizeof(pool) /
							 sizeof(pool[0])) - 1);
	int mismatches = 0, passed = 0;

	for (int n = 0; n < 100000 && mismatches < 5; n++) {
		Cfg cfg;
		int v[kPrios];

		for (int i = 0; i < kPrios; i++)
			v[i] = pool[pick(rng)];
		cfg.set_cutoffs(v);
		bool want = model_cutoffs_ok(v);
		int got = cfg.check();
		if (got == 0)
			passed++;
		if (got != (want ? 0 : -EINVAL)) {
			mismatches++;
			ADD_FAILURE() << cutoffs_str(v) << ": got " << got
				      << ", model says "
				      << (want ? "valid" : "invalid") << "; "
				      << unit::seed_msg(seed);
		}
	}
	/* The pool must reach both outcomes, or the test proves little. */
	EXPECT_GT(passed, 0) << unit::seed_msg(seed);
}

/* ---- homa_config_check -------------------------------------------------- */

/*
 * For element @j of unsched_cutoffs: cutoffs[j] = @val (0, negative, or at
 * least the longest message) and, if @val is not the longest itself, one
 * other level takes the longest message, so the set is valid whenever @val
 * is in range.
 */
void valid_cutoffs_with(Cfg &cfg, unsigned j, int val)
{
	for (int i = 0; i < kPrios; i++)
		cfg.c.unsched_cutoffs[i] = 0;
	cfg.c.unsched_cutoffs[j] = val;
	if (val < kMaxLen) {
		if (j == 0)
			cfg.c.unsched_cutoffs[1] = kMaxLen;
		else
			cfg.c.unsched_cutoffs[0] = INT_MAX;
	}
}

TEST(homa_config_check, each_param_min_and_max_pass)
{
	for (u32 i = 0; i < homa_num_params; i++) {
		const homa_param &p = homa_params[i];
		bool cut = std::string(p.name) == "unsched_cutoffs";

		for (u32 j = 0; j < p.count; j++) {
			for (int val : { p.min, p.max }) {
				Cfg cfg;

				if (cut)
					valid_cutoffs_with(cfg, j, val);
				else
					cfg.at(p.offset, j) = val;
				EXPECT_EQ(cfg.check(), 0)
					<< p.name << "[" << j << "] = " << val
					<< " cutoffs "
					<< cutoffs_str(cfg.c.unsched_cutoffs);
			}
		}
	}
}

TEST(homa_config_check, each_param_outside_range_fails)
{
	for (u32 i = 0; i < homa_num_params; i++) {
		const homa_param &p = homa_params[i];
		bool cut = std::string(p.name) == "unsched_cutoffs";

		for (u32 j = 0; j < p.count; j++) {
			std::vector<int> vals;

			if (p.min > INT_MIN)
				vals.push_back(p.min - 1);
			if (p.max < INT_MAX)
				vals.push_back(p.max + 1);
			for (int val : vals) {
				Cfg cfg;

				if (cut)
					valid_cutoffs_with(cfg, j, val);
				else
					cfg.at(p.offset, j) = val;
				struct homa_config before = cfg.c;
				EXPECT_EQ(cfg.check(), -EINVAL)
					<< p.name << "[" << j << "] = " << val;
				EXPECT_EQ(memcmp(&before, &cfg.c,
						 sizeof(before)), 0)
					<< "check modified the config";
			}
		}
	}
}

TEST(homa_config_check, spec_ranges_from_spec)
{
	/* Values that can never make sense, independent of the table. */
	struct {
		const char *name;
		int val;
	} bad[] = {
		{ "unsched_bytes", 0 },		{ "unsched_bytes", -1 },
		{ "rtt_bytes", 0 },		{ "window", -1 },
		{ "max_incoming", 0 },		{ "max_overcommit", 0 },
		{ "num_priorities", 0 },	{ "num_priorities", 9 },
		{ "priority_map", -1 },		{ "priority_map", 8 },
		{ "cutoff_version", 0 },	{ "cutoff_version", 0x10000 },
		{ "link_mbps", 0 },		{ "max_nic_queue_ns", -1 },
		{ "max_gso_size", 0 },		{ "grant_fifo_fraction", -1 },
		{ "grant_fifo_fraction", 1001 },
		{ "grant_increment", -1 },	{ "grant_increment", 1000001 },
		{ "pacer_fifo_fraction", -1 },	{ "pacer_fifo_fraction", 1001 },
		{ "resend_ticks", 0 },		{ "resend_interval", 0 },
		{ "timeout_ticks", 0 },		{ "request_ack_ticks", 0 },
		{ "poll_usecs", -1 },		{ "reap_limit", 0 },
		{ "dead_buffs_limit", -1 },	{ "wmem_max", 0 },
		{ "peer_idle_secs", 0 },	{ "peer_idle_secs", 86401 },
		{ "dedup_ms", -1 },		{ "dedup_ms", 600001 },
		{ "peer_rpc_limit", -1 },	{ "sock_rpc_limit", -1 },
		{ "stall_ms", -1 },		{ "max_peers", -1 },
		{ "rmem_max", 9999 },		{ "copy_batch", -1 },
		{ "copy_batch", 1000001 },	{ "tx_page_cache_kb", -1 },
		{ "tx_page_cache_kb", 8193 },
		{ "peer_pool_pct", -1 },	{ "peer_pool_pct", 101 },
		{ "incast_threshold", -1 },
		{ "incast_unsched_bytes", 0 },
		{ "incast_unsched_bytes", 1000001 },
		{ "auto_cutoffs", -1 },		{ "auto_cutoffs", 2 },
		{ "unsched_cutoffs", -1 },
		{ "pacer_enable", -1 },		{ "pacer_enable", 2 },
		{ "pacer_lead_max_ns", -1 },
		{ "pacer_lead_max_ns", 100000001 },
		{ "throttle_min_bytes", -1 },	{ "rtt_adaptive", 2 },
		{ "unsched_adaptive", 2 },	{ "rtt_resend", -1 },
		{ "rtt_resend", 3 },
		{ "rtt_resend_min_us", 0 },
		{ "rtt_window_min", -1 },	{ "rtt_window_min", 1000001 },
		{ "rtt_congestion_factor", -1 },
		{ "rtt_congestion_factor", 1001 },
		{ "rtt_congestion_react", -1 },	{ "rtt_congestion_react", 8 },
		{ "rtt_fair_skip_pkts", -1 },	{ "rtt_fair_skip_pkts", 65 },
		{ "sched_ip_priority", -2 },	{ "sched_ip_priority", 8 },
		{ "resend_outranked", -1 },	{ "resend_outranked", 2 },
		{ "grant_overshoot_ns", -1 },
		{ "grant_overshoot_ns", 1000000001 },
		{ "pacer_held_max_kb", -1 },
		{ "rtt_window_measured", -1 },	{ "rtt_window_measured", 2 },
		{ "pacer_held_max_kb", 1000001 },
		{ "pacer_drain_queue_us", -1 },
		{ "pacer_drain_queue_us", 1000001 },
		{ "pacer_rx_help", -1 },	{ "pacer_rx_help", 2 },
	};

	for (auto &b : bad) {
		const homa_param *p = homa_param_find(b.name);
		Cfg cfg;

		ASSERT_NE(p, nullptr) << b.name;
		*homa_config_value(&cfg.c, p) = b.val;
		EXPECT_EQ(cfg.check(), -EINVAL) << b.name << " = " << b.val;
	}
}

} /* namespace */
