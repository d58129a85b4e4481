// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_gap.cc - unit tests for homa_gap.c, in the order of its
 * functions. Expected states are written out by hand from the interface
 * (gaps are the maximal missing runs below recv_end), never read back from
 * the code under test; the random test compares every step against a naive
 * model that keeps one flag per byte of the message.
 */

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "homa_gap.h"
}

#include "unit_util.h"

namespace {

const uint32_t kMaxGaps = 32;		/* the interface's HOMA_MAX_GAPS */
const uint32_t kMaxLen = 1000000;	/* SPEC: largest message */

using Range = std::pair<uint32_t, uint32_t>;	/* [first, second) */

std::string ranges_str(const std::vector<Range> &v)
{
	std::string s = "{";

	for (const Range &r : v)
		s += " [" + std::to_string(r.first) + "," +
		     std::to_string(r.second) + ")";
	return s + " }";
}

std::vector<Range> gaps_of(const homa_msg_gaps &g)
{
	std::vector<Range> v;

	for (uint32_t i = 0; i < g.num_gaps && i < kMaxGaps; i++)
		v.emplace_back(g.gaps[i].start, g.gaps[i].end);
	return v;
}

/* A message's state plus the expectations of the hand-written cases. */
struct Msg {
	homa_msg_gaps g;

	explicit Msg(uint32_t length)
	{
		memset(&g, 0xa5, sizeof(g));	/* init must set everything */
		homa_gaps_init(&g, length);
	}
	int add(uint32_t start, uint32_t end)
	{
		return homa_gaps_add(&g, start, end);
	}
	/* Every field: recv_end, bytes_remaining and the gap list. */
	void expect(uint32_t recv_end, uint32_t remaining,
		    const std::vector<Range> &gaps) const
	{
		EXPECT_EQ(g.recv_end, recv_end);
		EXPECT_EQ(g.bytes_remaining, remaining);
		EXPECT_EQ(ranges_str(gaps_of(g)), ranges_str(gaps));
		EXPECT_EQ(g.num_gaps, gaps.size());
	}
};

/* Receives [4k + 3, 4k + 4) for k < 32: gaps [4k, 4k + 3), recv_end 128. */
void make_full(Msg &m)
{
	for (uint32_t k = 0; k < kMaxGaps; k++)
		ASSERT_EQ(m.add(4 * k + 3, 4 * k + 4), 1);
	ASSERT_EQ(m.g.num_gaps, kMaxGaps);
	ASSERT_EQ(m.g.recv_end, 128u);
}

/* ---- homa_gaps_init ----------------------------------------------------- */

TEST(homa_gap, homa_gaps_init__fields)
{
	Msg m(5000);

	EXPECT_EQ(m.g.length, 5000u);
	m.expect(0, 5000, {});
}

TEST(homa_gap, homa_gaps_init__zero_length)
{
	Msg m(0);

	m.expect(0, 0, {});
	EXPECT_TRUE(homa_gaps_complete(&m.g));
}

TEST(homa_gap, homa_gaps_init__largest_u32)
{
	Msg m(0xffffffff);

	EXPECT_EQ(m.g.length, 0xffffffffu);
	m.expect(0, 0xffffffff, {});
}

/* ---- homa_gaps_add ------------------------------------------------------ */

TEST(homa_gap, homa_gaps_add__in_order)
{
	Msg m(4000);

	EXPECT_EQ(m.add(0, 1400), 1400);
	m.expect(1400, 2600, {});
	EXPECT_EQ(m.add(1400, 2800), 1400);
	m.expect(2800, 1200, {});
	EXPECT_EQ(m.add(2800, 4000), 1200);
	m.expect(4000, 0, {});
}

TEST(homa_gap, homa_gaps_add__hole_then_fill)
{
	Msg m(4200);

	EXPECT_EQ(m.add(0, 1400), 1400);
	EXPECT_EQ(m.add(2800, 4200), 1400);
	m.expect(4200, 1400, {{1400, 2800}});
	EXPECT_EQ(m.add(1400, 2800), 1400);
	m.expect(4200, 0, {});
}

TEST(homa_gap, homa_gaps_add__first_packet_not_at_zero)
{
	Msg m(3000);

	EXPECT_EQ(m.add(1000, 2000), 1000);
	m.expect(2000, 2000, {{0, 1000}});
}

TEST(homa_gap, homa_gaps_add__overlap_left)
{
	Msg m(1000);

	ASSERT_EQ(m.add(600, 700), 100);	/* gap [0, 600) */
	ASSERT_EQ(m.add(0, 100), 100);		/* gap [100, 600) */
	/* Starts in received bytes, ends inside the gap. */
	EXPECT_EQ(m.add(50, 300), 200);
	m.expect(700, 600, {{300, 600}});
}

TEST(homa_gap, homa_gaps_add__overlap_right)
{
	Msg m(1000);

	ASSERT_EQ(m.add(600, 700), 100);	/* gap [0, 600) */
	/* Starts inside the gap, ends in received bytes. */
	EXPECT_EQ(m.add(400, 650), 200);
	m.expect(700, 700, {{0, 400}});
}

TEST(homa_gap, homa_gaps_add__overlap_both)
{
	Msg m(1000);

	ASSERT_EQ(m.add(0, 100), 100);
	ASSERT_EQ(m.add(300, 400), 100);	/* gap [100, 300) */
	/* Covers the whole gap and received bytes on both sides. */
	EXPECT_EQ(m.add(50, 350), 200);
	m.expect(400, 600, {});
}

TEST(homa_gap, homa_gaps_add__exactly_a_gap)
{
	Msg m(1000);

	ASSERT_EQ(m.add(0, 100), 100);
	ASSERT_EQ(m.add(200, 300), 100);
	ASSERT_EQ(m.add(400, 500), 100);	/* gaps [100,200) [300,400) */
	EXPECT_EQ(m.add(300, 400), 100);
	m.expect(500, 600, {{100, 200}});
}

TEST(homa_gap, homa_gaps_add__covers_several_gaps)
{
	Msg m(2000);

	for (uint32_t s : {100u, 300u, 500u, 700u, 900u})
		ASSERT_EQ(m.add(s, s + 100), 100);
	m.expect(1000, 1500, {{0, 100}, {200, 300}, {400, 500}, {600, 700},
			      {800, 900}});
	/* Trims [200,300) on the left... removes two... trims [800,900). */
	EXPECT_EQ(m.add(250, 850), 50 + 100 + 100 + 50);
	m.expect(1000, 1200, {{0, 100}, {200, 250}, {850, 900}});
	/* All of it, and on past recv_end. */
	EXPECT_EQ(m.add(0, 1500), 100 + 50 + 50 + 500);
	m.expect(1500, 500, {});
}

TEST(homa_gap, homa_gaps_add__covers_gaps_and_extends)
{
	Msg m(2000);

	ASSERT_EQ(m.add(100, 200), 100);
	ASSERT_EQ(m.add(300, 400), 100);	/* gaps [0,100) [200,300) */
	/* From inside the second gap to beyond recv_end. */
	EXPECT_EQ(m.add(250, 600), 50 + 200);
	m.expect(600, 1550, {{0, 100}, {200, 250}});
}

TEST(homa_gap, homa_gaps_add__exact_duplicate)
{
	Msg m(3000);

	ASSERT_EQ(m.add(1000, 2000), 1000);
	homa_msg_gaps before = m.g;

	EXPECT_EQ(m.add(1000, 2000), 0);
	EXPECT_EQ(memcmp(&before, &m.g, sizeof(before)), 0);
	/* Part of a received range, and a range of several received ones. */
	EXPECT_EQ(m.add(1500, 1501), 0);
	ASSERT_EQ(m.add(0, 500), 500);
	ASSERT_EQ(m.add(600, 1000), 400);	/* gap [500, 600) */
	before = m.g;
	EXPECT_EQ(m.add(0, 500), 0);
	EXPECT_EQ(m.add(1999, 2000), 0);
	EXPECT_EQ(memcmp(&before, &m.g, sizeof(before)), 0);
	m.expect(2000, 1100, {{500, 600}});
}

TEST(homa_gap, homa_gaps_add__inside_gap_splits_it)
{
	Msg m(1000);

	ASSERT_EQ(m.add(900, 1000), 100);	/* gap [0, 900) */
	EXPECT_EQ(m.add(400, 500), 100);
	m.expect(1000, 800, {{0, 400}, {500, 900}});
	EXPECT_EQ(m.add(1, 2), 1);
	m.expect(1000, 799, {{0, 1}, {2, 400}, {500, 900}});
}

TEST(homa_gap, homa_gaps_add__straddles_recv_end)
{
	Msg m(1000);

	ASSERT_EQ(m.add(0, 100), 100);
	EXPECT_EQ(m.add(50, 300), 200);
	m.expect(300, 700, {});
	ASSERT_EQ(m.add(400, 500), 100);	/* gap [300, 400) */
	EXPECT_EQ(m.add(450, 1000), 500);
	m.expect(1000, 100, {{300, 400}});
}

TEST(homa_gap, homa_gaps_add__next_to_recv_end)
{
	Msg m(1000);

	ASSERT_EQ(m.add(100, 200), 100);
	EXPECT_EQ(m.add(200, 201), 1);		/* no new gap */
	m.expect(201, 899, {{0, 100}});
	EXPECT_EQ(m.add(202, 203), 1);		/* one missing byte */
	m.expect(203, 898, {{0, 100}, {201, 202}});
}

TEST(homa_gap, homa_gaps_add__einval_start_not_below_end)
{
	Msg m(1000);

	ASSERT_EQ(m.add(100, 200), 100);
	homa_msg_gaps before = m.g;

	EXPECT_EQ(m.add(300, 300), -EINVAL);
	EXPECT_EQ(m.add(0, 0), -EINVAL);
	EXPECT_EQ(m.add(301, 300), -EINVAL);
	EXPECT_EQ(m.add(0xffffffff, 0), -EINVAL);
	EXPECT_EQ(m.add(0xffffffff, 0xffffffff), -EINVAL);
	EXPECT_EQ(memcmp(&before, &m.g, sizeof(before)), 0);
}

TEST(homa_gap, homa_gaps_add__einval_end_past_length)
{
	Msg m(1000);

	ASSERT_EQ(m.add(100, 200), 100);
	homa_msg_gaps before = m.g;

	EXPECT_EQ(m.add(900, 1001), -EINVAL);
	EXPECT_EQ(m.add(1000, 1001), -EINVAL);
	EXPECT_EQ(m.add(0, 0xffffffff), -EINVAL);
	EXPECT_EQ(m.add(0xfffffffe, 0xffffffff), -EINVAL);
	EXPECT_EQ(memcmp(&before, &m.g, sizeof(before)), 0);

	Msg empty(0);

	EXPECT_EQ(empty.add(0, 1), -EINVAL);
	empty.expect(0, 0, {});
}

TEST(homa_gap, homa_gaps_add__end_equals_length)
{
	Msg m(1000);

	EXPECT_EQ(m.add(999, 1000), 1);
	m.expect(1000, 999, {{0, 999}});
	EXPECT_EQ(m.add(0, 1000), 999);
	m.expect(1000, 0, {});

	Msg one(1);

	EXPECT_EQ(one.add(0, 1), 1);
	one.expect(1, 0, {});
}

TEST(homa_gap, homa_gaps_add__u32_extremes)
{
	Msg m(0xffffffff);

	/* The last byte of the longest message a u32 can describe. */
	EXPECT_EQ(m.add(0xfffffffe, 0xffffffff), 1);
	m.expect(0xffffffff, 0xfffffffe, {{0, 0xfffffffe}});
	EXPECT_EQ(homa_gaps_gap_bytes(&m.g), 0xfffffffeu);
	/* The longest range whose count still fits in the int result. */
	EXPECT_EQ(m.add(0, 0x7fffffff), 0x7fffffff);
	m.expect(0xffffffff, 0x7fffffff, {{0x7fffffff, 0xfffffffe}});
	/* One byte longer would not fit: refused, nothing changed. */
	homa_msg_gaps before = m.g;

	EXPECT_EQ(m.add(0x7fffffff, 0xffffffff), -EINVAL);
	EXPECT_EQ(memcmp(&before, &m.g, sizeof(before)), 0);
	EXPECT_EQ(m.add(0x7fffffff, 0xfffffffe), 0x7fffffff);
	m.expect(0xffffffff, 0, {});
	EXPECT_TRUE(homa_gaps_complete(&m.g));
}

TEST(homa_gap, homa_gaps_add__enospc_new_gap_past_recv_end)
{
	Msg m(1000);

	make_full(m);
	homa_msg_gaps before = m.g;

	EXPECT_EQ(m.add(129, 130), -ENOSPC);	/* would need [128, 129) */
	EXPECT_EQ(m.add(999, 1000), -ENOSPC);
	EXPECT_EQ(memcmp(&before, &m.g, sizeof(before)), 0);
	/* Contiguous with recv_end: no new gap, accepted. */
	EXPECT_EQ(m.add(128, 200), 72);
	EXPECT_EQ(m.g.num_gaps, kMaxGaps);
	EXPECT_EQ(m.g.recv_end, 200u);
}

TEST(homa_gap, homa_gaps_add__enospc_split)
{
	Msg m(1000);

	make_full(m);
	homa_msg_gaps before = m.g;

	EXPECT_EQ(m.add(1, 2), -ENOSPC);	/* inside [0, 3) */
	EXPECT_EQ(m.add(125, 126), -ENOSPC);	/* inside [124, 127) */
	EXPECT_EQ(memcmp(&before, &m.g, sizeof(before)), 0);
	/* Trimming a gap's end or start keeps 32 gaps: accepted. */
	EXPECT_EQ(m.add(2, 3), 1);
	EXPECT_EQ(m.add(124, 125), 1);
	EXPECT_EQ(m.g.num_gaps, kMaxGaps);
	/* Removing a whole gap leaves 31; now a split fits. */
	EXPECT_EQ(m.add(0, 5), 3);		/* [0, 2) gone, [5, 7) left */
	EXPECT_EQ(m.g.num_gaps, kMaxGaps - 1);
	EXPECT_EQ(m.add(9, 10), 1);		/* splits [8, 11) */
	EXPECT_EQ(m.g.num_gaps, kMaxGaps);
	EXPECT_EQ(m.add(13, 14), -ENOSPC);	/* splits [12, 15) */

	std::vector<Range> want = {{5, 7}, {8, 9}, {10, 11}};

	for (uint32_t k = 3; k < 31; k++)
		want.emplace_back(4 * k, 4 * k + 3);
	want.emplace_back(125, 127);
	m.expect(128, 1000 - 32 - 1 - 1 - 3 - 1, want);
}

TEST(homa_gap, homa_gaps_add__enospc_not_when_removing)
{
	Msg m(1000);

	make_full(m);
	/* Covering several whole gaps at the limit is always fine. */
	EXPECT_EQ(m.add(0, 64), 48);
	EXPECT_EQ(m.g.num_gaps, kMaxGaps - 16);
	EXPECT_EQ(m.add(64, 1000), 48 + 872);
	m.expect(1000, 0, {});
}

/* ---- homa_gaps_add against a model (checks every function) ------------- */

/*
 * The naive model: one flag per byte of the message (bytes rather than
 * std::vector<bool>, so memchr can scan them: this test runs unoptimised
 * under ASan), plus counters. A missing run starts at byte i when i is
 * missing and i - 1 is not (or i == 0); every run below recv_end is a gap,
 * and the one run that starts at recv_end (if recv_end < length) is the
 * tail.
 */
struct Model {
	uint32_t len;
	std::vector<uint8_t> got;	/* 1: received */
	uint32_t received = 0;
	uint32_t recv_end = 0;
	uint32_t run_starts;		/* over the whole message */
	uint32_t first_missing = 0;	/* lowest byte not received */

	explicit Model(uint32_t n) : len(n), got(n, 0), run_starts(n > 0)
	{
	}
	bool starts_run(uint32_t i) const
	{
		return i < len && !got[i] && (i == 0 || got[i - 1]);
	}
	/* First byte in [from, to) whose flag is @flag, or @to. */
	uint32_t find(uint32_t from, uint32_t to, uint8_t flag) const
	{
		const void *p = from < to ? memchr(&got[from], flag, to - from)
					  : nullptr;

		return p ? (uint32_t)((const uint8_t *)p - got.data()) : to;
	}
	uint32_t gaps() const
	{
		return run_starts - (recv_end < len ? 1 : 0);
	}
	uint32_t gap_bytes() const
	{
		return recv_end - received;
	}
	/*
	 * Bytes [s, e) arrive; the stretches of newly set bytes go to @set.
	 * Setting a stretch [a, b) of missing bytes can change whether a run
	 * starts only at a and at b (inside it no run starts, before or
	 * after).
	 */
	uint32_t apply(uint32_t s, uint32_t e, std::vector<Range> &set)
	{
		uint32_t fresh = 0;

		set.clear();
		for (uint32_t a = find(s, e, 0); a < e; a = find(a, e, 0)) {
			uint32_t b = find(a, e, 1);

			run_starts -= starts_run(a) + starts_run(b);
			memset(&got[a], 1, b - a);
			run_starts += starts_run(a) + starts_run(b);
			set.emplace_back(a, b);
			fresh += b - a;
			a = b;
		}
		received += fresh;
		recv_end = std::max(recv_end, e);
		return fresh;
	}
	/* The exact maximal missing runs below recv_end, by scanning. */
	std::vector<Range> scan_runs() const
	{
		std::vector<Range> v;

		for (uint32_t i = find(0, recv_end, 0); i < recv_end;
		     i = find(i, recv_end, 0)) {
			uint32_t j = find(i, recv_end, 1);

			v.emplace_back(i, j);
			i = j;
		}
		return v;
	}
};

/* Skewed to small: most messages are short, a few are huge. */
uint32_t random_length(std::mt19937_64 &rng)
{
	uint32_t r = rng() % 1000;

	if (r == 0)
		return kMaxLen;
	if (r == 1)
		return 1;
	if (r < 700)
		return 1 + rng() % 1500;
	if (r < 950)
		return 1 + rng() % 10000;
	if (r < 995)
		return 1 + rng() % 100000;
	return 1 + rng() % kMaxLen;
}

/*
 * Checks @g against the model: fields, counts, and the gap list. The gaps
 * equal the model's maximal missing runs below recv_end when their number
 * is the model's run count and each one starts and ends where a run does
 * (a missing byte with a received one, or offset 0, just before it; a
 * missing last byte with a received one just after): each gap then holds
 * at least one whole run, and there are no more runs than gaps. When
 * recv_end is small the runs are also listed by scanning and compared.
 * Returns a description of the first difference found, or "".
 */
std::string state_error(const homa_msg_gaps &g, const Model &m)
{
	auto bad = [&](const std::string &what) {
		return what + "; got recv_end " + std::to_string(g.recv_end) +
		       ", bytes_remaining " +
		       std::to_string(g.bytes_remaining) + ", gaps " +
		       ranges_str(gaps_of(g)) + " (num_gaps " +
		       std::to_string(g.num_gaps) + "); model recv_end " +
		       std::to_string(m.recv_end) + ", received " +
		       std::to_string(m.received) + ", " +
		       std::to_string(m.gaps()) + " runs";
	};
	uint64_t sum = 0;

	if (g.length != m.len)
		return bad("length " + std::to_string(g.length));
	if (g.recv_end != m.recv_end)
		return bad("recv_end differs");
	if (g.bytes_remaining != m.len - m.received)
		return bad("bytes_remaining differs");
	if (g.num_gaps != m.gaps() || g.num_gaps > kMaxGaps)
		return bad("num_gaps differs");
	for (uint32_t k = 0; k < g.num_gaps; k++) {
		uint32_t s = g.gaps[k].start, e = g.gaps[k].end;
		auto gap = [k](const char *what) {
			return "gap " + std::to_string(k) + " " + what;
		};

		if (s >= e || e >= m.recv_end)
			return bad(gap("is empty or not below recv_end"));
		if (k > 0 && s <= g.gaps[k - 1].end)
			return bad(gap("overlaps or touches the one before"));
		if (m.got[s] || m.got[e - 1])
			return bad(gap("starts or ends on a received byte"));
		if ((s > 0 && !m.got[s - 1]) || !m.got[e])
			return bad(gap("is not a whole missing run"));
		sum += e - s;
	}
	if (sum != m.gap_bytes())
		return bad("gaps hold " + std::to_string(sum) + " bytes");
	if (homa_gaps_gap_bytes(&g) != m.gap_bytes())
		return bad("homa_gaps_gap_bytes() " +
			   std::to_string(homa_gaps_gap_bytes(&g)));
	if ((homa_gaps_complete(&g) != 0) != (m.received == m.len))
		return bad("homa_gaps_complete() differs");
	if (m.recv_end <= 4000 && gaps_of(g) != m.scan_runs())
		return bad("runs by scanning: " + ranges_str(m.scan_runs()));
	return "";
}

/*
 * first_missing for @granted: the model's first run if it has gaps (the
 * run starting at its lowest missing byte; state_error() has shown that
 * run is gaps[0]), else [recv_end, min(granted, length)) if not empty.
 * Returns a description of the difference, or "".
 */
std::string first_error(const homa_msg_gaps &g, const Model &m,
			uint32_t granted)
{
	homa_gap out = {0, 0};
	int rc = homa_gaps_first_missing(&g, granted, &out);
	uint32_t limit = std::min(granted, m.len);
	int want_rc = 0;
	Range want = {0, 0};

	if (m.gaps() > 0)
		want = Range(m.first_missing, g.gaps[0].end);
	else if (m.recv_end < limit)
		want = Range(m.recv_end, limit);
	else
		want_rc = -ENOENT;
	if (rc == want_rc && (rc != 0 || Range(out.start, out.end) == want))
		return "";
	return "first_missing(granted " + std::to_string(granted) +
	       ") returned " + std::to_string(rc) + " " +
	       ranges_str({{out.start, out.end}}) + ", expected " +
	       std::to_string(want_rc) + " " + ranges_str({want});
}

/*
 * homa_gaps_missing for @granted and @max: the model's missing runs below
 * recv_end (found by scanning its flags), then [recv_end, min(granted,
 * length)) if not empty, the first @max of them. Returns a description
 * of the difference, or "".
 */
std::string missing_error(const homa_msg_gaps &g, const Model &m,
			  uint32_t granted, uint32_t max)
{
	std::vector<Range> want, got;
	uint32_t limit = std::min(granted, m.len);
	homa_gap out[HOMA_MAX_GAPS + 2];

	for (uint32_t i = m.find(0, m.recv_end, 0); i < m.recv_end;) {
		uint32_t e = m.find(i, m.recv_end, 1);

		want.push_back(Range(i, e));
		i = m.find(e, m.recv_end, 0);
	}
	if (m.recv_end < limit)
		want.push_back(Range(m.recv_end, limit));
	if (want.size() > max)
		want.resize(max);
	uint32_t n = homa_gaps_missing(&g, granted, out, max);

	for (uint32_t i = 0; i < n; i++)
		got.push_back(Range(out[i].start, out[i].end));
	if (got == want)
		return "";
	return "missing(granted " + std::to_string(granted) + ", max " +
	       std::to_string(max) + ") returned " + ranges_str(got) +
	       ", expected " + ranges_str(want);
}

/*
 * Random messages fed random packets until complete: in-order runs with
 * losses, late (reordered) packets, duplicates, overlaps, resends from the
 * first missing byte, packets anywhere, and a few invalid ones. After every
 * call the state is checked against the model.
 */
TEST(homa_gap, homa_gaps_add__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	const int messages = 20000;
	std::mt19937_64 rng(seed);
	std::vector<Range> set;
	uint64_t accepted = 0, enospc = 0, einval = 0, dups = 0;
	uint64_t packets = 0;

	printf("homa_gaps_add__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int n = 0; n < messages; n++) {
		uint32_t len = random_length(rng);
		Model m(len);
		homa_msg_gaps g;
		std::vector<Range> history;	/* packets sent before */
		uint32_t cursor = 0;		/* sender's next new byte */
		uint64_t steps = 0;

		SCOPED_TRACE("message " + std::to_string(n) + ", length " +
			     std::to_string(len));
		homa_gaps_init(&g, len);
		ASSERT_EQ(state_error(g, m), "") << "after init";
		while (m.received < len) {
			uint32_t r = rng() % 100, s, e;
			uint32_t plen = 1 + rng() % 3000;
			bool deliver = true;

			ASSERT_LT(steps++, 1000000u) << "no progress";
			if (r < 45 && cursor < len) {
				/* In order; some are lost or held back. */
				s = cursor;
				e = s + std::min(plen, len - s);
				cursor = e;
				deliver = rng() % 4 != 0;
			} else if (r < 60 && !history.empty()) {
				/* Late, lost-then-found or duplicate. */
				Range p = history[rng() % history.size()];

				s = p.first;
				e = p.second;
			} else if (r < 75) {
				/* A resend from the first missing byte. */
				s = m.first_missing;
				e = s + std::min(plen, len - s);
			} else if (r < 96) {
				/* Anywhere. */
				s = rng() % len;
				e = s + std::min(plen, len - s);
			} else {
				/* Invalid: empty, reversed or too long. */
				switch (rng() % 4) {
				case 0:
					s = e = rng() % (len + 1);
					break;
				case 1:
					e = rng() % len;
					s = e + 1 + rng() % 3000;
					break;
				case 2:
					s = rng() % len;
					e = len + 1 + rng() % 3000;
					break;
				default:
					s = rng() % (len + 1);
					e = 0xffffffff - rng() % 2;
					break;
				}
			}
			if (s < e && e <= len) {
				if (history.size() < 64)
					history.emplace_back(s, e);
				else
					history[rng() % 64] = Range(s, e);
			}
			if (!deliver)
				continue;

			SCOPED_TRACE("packet [" + std::to_string(s) + "," +
				     std::to_string(e) + ") step " +
				     std::to_string(steps));
			homa_msg_gaps before = g;
			int rc = homa_gaps_add(&g, s, e);

			packets++;
			if (s >= e || e > len) {
				einval++;
				ASSERT_EQ(rc, -EINVAL);
				ASSERT_EQ(memcmp(&before, &g, sizeof(g)), 0);
				continue;
			}
			/* Apply to the model; undo if it needs too many. */
			uint32_t old_recv_end = m.recv_end;
			uint32_t old_starts = m.run_starts;
			uint32_t fresh = m.apply(s, e, set);

			if (m.gaps() > kMaxGaps) {
				enospc++;
				for (const Range &r : set)
					memset(&m.got[r.first], 0,
					       r.second - r.first);
				m.received -= fresh;
				m.recv_end = old_recv_end;
				m.run_starts = old_starts;
				ASSERT_EQ(rc, -ENOSPC);
				ASSERT_EQ(memcmp(&before, &g, sizeof(g)), 0);
				continue;
			}
			accepted++;
			if (fresh == 0)
				dups++;
			ASSERT_EQ(rc, (int)fresh);
			m.first_missing = m.find(m.first_missing, len, 0);
			std::string err = state_error(g, m);

			for (uint32_t granted : {m.recv_end, m.recv_end + 1,
						 (uint32_t)(rng() % (len + 2)),
						 len, 0xffffffffu})
				if (err.empty())
					err = first_error(g, m, granted);
			if (err.empty())
				err = missing_error(g, m,
						    (uint32_t)(rng() % (len + 2)),
						    1 + rng() % (HOMA_MAX_GAPS + 2));
			if (!err.empty())
				FAIL() << err;
		}
		ASSERT_TRUE(homa_gaps_complete(&g));
	}
	printf("homa_gaps_add__random_vs_model: %llu packets: %llu accepted "
	       "(%llu duplicates), %llu -ENOSPC, %llu -EINVAL\n",
	       (unsigned long long)packets, (unsigned long long)accepted,
	       (unsigned long long)dups, (unsigned long long)enospc,
	       (unsigned long long)einval);
	/* Every outcome must occur, or the test proves little. */
	EXPECT_GT(enospc, 0u);
	EXPECT_GT(dups, 0u);
	EXPECT_GT(einval, 0u);
}

/* ---- homa_gaps_complete ------------------------------------------------- */

TEST(homa_gap, homa_gaps_complete__basic)
{
	Msg m(300);

	EXPECT_FALSE(homa_gaps_complete(&m.g));
	ASSERT_EQ(m.add(200, 300), 100);
	EXPECT_FALSE(homa_gaps_complete(&m.g));
	ASSERT_EQ(m.add(0, 199), 199);
	EXPECT_FALSE(homa_gaps_complete(&m.g));
	ASSERT_EQ(m.add(199, 200), 1);
	EXPECT_TRUE(homa_gaps_complete(&m.g));
}

/* ---- homa_gaps_first_missing -------------------------------------------- */

/* first_missing as a Range; {~0, ~0} for -ENOENT, {~0 - 1, rc} otherwise. */
Range first(const Msg &m, uint32_t granted)
{
	homa_gap out = {0x5a5a5a5a, 0x5a5a5a5a};
	int rc = homa_gaps_first_missing(&m.g, granted, &out);

	if (rc == -ENOENT) {
		EXPECT_EQ(out.start, 0x5a5a5a5au);	/* untouched */
		return {~0u, ~0u};
	}
	if (rc != 0)
		return {~0u - 1, (uint32_t)rc};
	return {out.start, out.end};
}

const Range kNone = {~0u, ~0u};

TEST(homa_gap, homa_gaps_first_missing__nothing_received)
{
	Msg m(5000);

	EXPECT_EQ(first(m, 1000), Range(0, 1000));
	EXPECT_EQ(first(m, 5000), Range(0, 5000));
	EXPECT_EQ(first(m, 0), kNone);
}

TEST(homa_gap, homa_gaps_first_missing__no_gaps)
{
	Msg m(5000);

	ASSERT_EQ(m.add(0, 1000), 1000);
	EXPECT_EQ(first(m, 3000), Range(1000, 3000));	/* beyond recv_end */
	EXPECT_EQ(first(m, 1001), Range(1000, 1001));
	EXPECT_EQ(first(m, 1000), kNone);		/* at recv_end */
	EXPECT_EQ(first(m, 999), kNone);		/* below recv_end */
	EXPECT_EQ(first(m, 0), kNone);
	EXPECT_EQ(first(m, 5000), Range(1000, 5000));
	EXPECT_EQ(first(m, 5001), Range(1000, 5000));	/* beyond length */
	EXPECT_EQ(first(m, 0xffffffff), Range(1000, 5000));
}

TEST(homa_gap, homa_gaps_first_missing__with_gaps)
{
	Msg m(5000);

	ASSERT_EQ(m.add(0, 100), 100);
	ASSERT_EQ(m.add(200, 300), 100);
	ASSERT_EQ(m.add(400, 1000), 600);	/* gaps [100,200) [300,400) */
	/* The first gap, whatever granted says. */
	for (uint32_t granted : {0u, 150u, 999u, 1000u, 3000u, 5000u, 5001u,
				 0xffffffffu})
		EXPECT_EQ(first(m, granted), Range(100, 200))
			<< "granted " << granted;
	ASSERT_EQ(m.add(100, 200), 100);
	EXPECT_EQ(first(m, 3000), Range(300, 400));
	ASSERT_EQ(m.add(300, 400), 100);
	EXPECT_EQ(first(m, 3000), Range(1000, 3000));
}

TEST(homa_gap, homa_gaps_first_missing__complete)
{
	Msg m(100);

	ASSERT_EQ(m.add(0, 100), 100);
	EXPECT_EQ(first(m, 100), kNone);
	EXPECT_EQ(first(m, 0xffffffff), kNone);

	Msg empty(0);

	EXPECT_EQ(first(empty, 0xffffffff), kNone);
}

/* ---- homa_gaps_gap_bytes ------------------------------------------------ */

TEST(homa_gap, homa_gaps_gap_bytes__basic)
{
	Msg m(5000);

	EXPECT_EQ(homa_gaps_gap_bytes(&m.g), 0u);
	ASSERT_EQ(m.add(1000, 2000), 1000);
	EXPECT_EQ(homa_gaps_gap_bytes(&m.g), 1000u);	/* [0, 1000) */
	ASSERT_EQ(m.add(2500, 2600), 100);
	EXPECT_EQ(homa_gaps_gap_bytes(&m.g), 1500u);	/* + [2000, 2500) */
	ASSERT_EQ(m.add(100, 200), 100);
	EXPECT_EQ(homa_gaps_gap_bytes(&m.g), 1400u);
	ASSERT_EQ(m.add(0, 2600), 1400);
	EXPECT_EQ(homa_gaps_gap_bytes(&m.g), 0u);
}

/* ---- homa_rangeq_add, homa_rangeq_pop ----------------------------------- */

std::vector<Range> q_ranges(const homa_range_q &q)
{
	std::vector<Range> v;

	for (uint32_t i = 0; i < q.n; i++)
		v.push_back({ q.r[i].start, q.r[i].end });
	return v;
}

struct Queue {
	homa_range_q q;

	Queue()
	{
		memset(&q, 0x5a, sizeof(q));
		q.n = 0;
	}
	void add(uint32_t s, uint32_t e)
	{
		homa_rangeq_add(&q, s, e);
	}
};

TEST(homa_gap, homa_rangeq_add__disjoint_stay_apart_sorted)
{
	Queue t;

	t.add(5000, 6000);
	t.add(100, 200);
	t.add(900000, 901424);
	EXPECT_EQ(ranges_str(q_ranges(t.q)),
		  ranges_str({ { 100, 200 }, { 5000, 6000 },
			       { 900000, 901424 } }));
}

TEST(homa_gap, homa_rangeq_add__overlapping_and_touching_join)
{
	Queue t;

	t.add(100, 200);
	t.add(300, 400);
	t.add(500, 600);
	t.add(200, 300);	/* touches both neighbours */
	EXPECT_EQ(ranges_str(q_ranges(t.q)),
		  ranges_str({ { 100, 400 }, { 500, 600 } }));
	t.add(50, 550);		/* covers one, overlaps the next */
	EXPECT_EQ(ranges_str(q_ranges(t.q)), ranges_str({ { 50, 600 } }));
	t.add(60, 70);		/* inside */
	t.add(10, 10);		/* empty */
	EXPECT_EQ(ranges_str(q_ranges(t.q)), ranges_str({ { 50, 600 } }));
}

TEST(homa_gap, homa_rangeq_add__full_joins_the_nearest_two)
{
	Queue t;

	for (uint32_t i = 0; i < HOMA_RANGEQ_MAX; i++)
		t.add(i * 1000, i * 1000 + 100);
	ASSERT_EQ(t.q.n, (uint32_t)HOMA_RANGEQ_MAX);
	/* 40 bytes past [3000, 3100): the nearest pair is that one. */
	t.add(3140, 3200);
	ASSERT_EQ(t.q.n, (uint32_t)HOMA_RANGEQ_MAX);
	EXPECT_EQ(t.q.r[3].start, 3000u);
	EXPECT_EQ(t.q.r[3].end, 3200u);
	EXPECT_EQ(t.q.r[4].start, 4000u);
	/* At the end, 10 bytes past the last one. */
	t.add(7110, 7120);
	ASSERT_EQ(t.q.n, (uint32_t)HOMA_RANGEQ_MAX);
	EXPECT_EQ(t.q.r[HOMA_RANGEQ_MAX - 1].start, 7000u);
	EXPECT_EQ(t.q.r[HOMA_RANGEQ_MAX - 1].end, 7120u);
}

TEST(homa_gap, homa_rangeq_pop__lowest_first_trimmed)
{
	Queue t;
	homa_gap g;

	t.add(100, 200);
	t.add(300, 400);
	t.add(500, 600);
	ASSERT_TRUE(homa_rangeq_pop(&t.q, 0, &g));
	EXPECT_EQ(g.start, 100u);
	EXPECT_EQ(g.end, 200u);
	/* Bytes below 350 were just sent: [300, 400) keeps [350, 400). */
	ASSERT_TRUE(homa_rangeq_pop(&t.q, 350, &g));
	EXPECT_EQ(g.start, 350u);
	EXPECT_EQ(g.end, 400u);
	/* Wholly below: dropped. */
	t.add(700, 800);
	ASSERT_TRUE(homa_rangeq_pop(&t.q, 650, &g));
	EXPECT_EQ(g.start, 700u);
	EXPECT_EQ(t.q.n, 0u);
	EXPECT_FALSE(homa_rangeq_pop(&t.q, 0, &g));
}

/*
 * Random adds and pops against a model with one flag per byte (wanted or
 * not): the queue stays sorted, disjoint, not touching and at most
 * HOMA_RANGEQ_MAX long; it covers every wanted byte; it covers no other
 * byte unless it had to join two ranges (then only bytes between ranges
 * added since the last pop); pops come lowest first.
 */
TEST(homa_gap, homa_rangeq__random_against_a_byte_model)
{
	uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	const uint32_t len = 400;

	for (int run = 0; run < 2000; run++) {
		std::vector<bool> want(len, false);
		bool joined = false;
		Queue t;

		for (int step = 0; step < 40; step++) {
			if (rng() % 4 == 0) {
				uint32_t from = (uint32_t)(rng() % len);
				homa_gap g;
				bool got = homa_rangeq_pop(&t.q, from, &g);
				uint32_t lo = len;

				for (uint32_t b = from; b < len; b++)
					if (want[b]) {
						lo = b;
						break;
					}
				if (!joined) {
					/* The lowest wanted byte at or above from. */
					ASSERT_EQ(got, lo < len)
						<< "seed " << seed;
				}
				if (got) {
					ASSERT_GE(g.start, from);
					ASSERT_LT(g.start, g.end);
					if (!joined) {
						ASSERT_EQ(g.start, lo)
							<< "seed " << seed;
					}
				}
				/* Everything up to the range's end is gone. */
				for (uint32_t b = 0; b < (got ? g.end : len); b++)
					want[b] = false;
				if (!got)
					std::fill(want.begin(), want.end(), false);
				continue;
			}
			uint32_t s = (uint32_t)(rng() % len);
			uint32_t e = s + (uint32_t)(rng() % 30);

			e = std::min(e, len);
			t.add(s, e);
			for (uint32_t b = s; b < e; b++)
				want[b] = true;
			ASSERT_LE(t.q.n, (uint32_t)HOMA_RANGEQ_MAX);
			for (uint32_t i = 0; i < t.q.n; i++) {
				ASSERT_LT(t.q.r[i].start, t.q.r[i].end);
				if (i) {
					ASSERT_GT(t.q.r[i].start,
						  t.q.r[i - 1].end)
						<< "seed " << seed;
				}
			}
			std::vector<bool> cov(len, false);
			for (uint32_t i = 0; i < t.q.n; i++)
				for (uint32_t b = t.q.r[i].start;
				     b < t.q.r[i].end; b++)
					cov[b] = true;
			uint32_t runs = 0;
			for (uint32_t b = 0; b < len; b++) {
				ASSERT_TRUE(!want[b] || cov[b])
					<< "seed " << seed << " byte " << b;
				if (want[b] && (b == 0 || !want[b - 1]))
					runs++;
			}
			if (runs > HOMA_RANGEQ_MAX)
				joined = true;
			if (!joined) {
				ASSERT_TRUE(cov == want) << "seed " << seed;
			}
		}
	}
}

} /* namespace */
