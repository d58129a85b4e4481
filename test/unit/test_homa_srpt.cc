// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_srpt.cc - unit tests for homa_srpt.c, in the order of its
 * functions. Expected rankings, offsets and levels in the hand-written
 * cases are worked out by hand from the interface (SPEC.md section 4 and
 * homa_srpt.h); the random tests compare every decision with a naive
 * model below (sort, then pick in rounds; grant in rank order from a
 * budget) and check the properties the protocol needs: never more than
 * max_overcommit granted, never past max_incoming, never a stalled
 * message, never a grant that goes backwards, one message per peer first.
 */

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

extern "C" {
#include "homa_srpt.h"
}

#include "unit_util.h"

namespace {

const uint32_t kMaxOvercommit = 64;	/* net.homa.max_overcommit range */
const uint32_t kMaxLen = 1000000;	/* SPEC: largest message */

homa_srpt_cand cand(uint64_t peer, uint32_t length, uint32_t received,
		    uint32_t granted, uint64_t birth, uint32_t flags = 0)
{
	homa_srpt_cand c;

	memset(&c, 0, sizeof(c));
	c.id = 1000 + peer * 10 + birth;
	c.peer = peer;
	c.length = length;
	c.received = received;
	c.granted = granted;
	c.remaining = length - received;
	c.birth = birth;
	c.flags = flags;
	return c;
}

homa_srpt_params params(uint32_t overcommit, uint32_t window,
			uint32_t max_incoming, uint32_t max_sched = 3,
			uint32_t fifo_fraction = 0, uint32_t fifo_inc = 0)
{
	homa_srpt_params p;

	p.max_overcommit = overcommit;
	p.window = window;
	p.max_incoming = max_incoming;
	p.max_sched_prio = max_sched;
	p.fifo_fraction = fifo_fraction;
	p.fifo_increment = fifo_inc;
	p.grant_increment = 0;
	return p;
}

std::vector<uint32_t> rank(const std::vector<homa_srpt_cand> &c,
			   uint32_t max_overcommit)
{
	std::vector<uint32_t> out(kMaxOvercommit + 1, 0xdeadbeef);
	uint32_t n = homa_srpt_rank(c.data(), (uint32_t)c.size(),
				    max_overcommit, out.data());

	EXPECT_LE(n, std::min(max_overcommit, kMaxOvercommit));
	EXPECT_EQ(out[std::min(max_overcommit, kMaxOvercommit)], 0xdeadbeef)
		<< "wrote past max_overcommit entries";
	out.resize(std::min<size_t>(n, out.size()));
	return out;
}

std::vector<uint32_t> V(std::initializer_list<uint32_t> l) { return l; }

/* One decision as a comparable tuple. */
struct G {
	uint32_t index, offset, priority, fifo, rank;
	bool operator==(const G &o) const
	{
		return std::tie(index, offset, priority, fifo, rank) ==
		       std::tie(o.index, o.offset, o.priority, o.fifo, o.rank);
	}
};

std::ostream &operator<<(std::ostream &os, const G &g)
{
	return os << "{idx " << g.index << " off " << g.offset << " prio "
		  << g.priority << " fifo " << g.fifo << " rank " << g.rank
		  << "}";
}

std::vector<G> grants(const homa_srpt_params &p, homa_srpt_fifo *f,
		      const std::vector<homa_srpt_cand> &c, uint64_t other = 0)
{
	size_t room = std::min(p.max_overcommit, kMaxOvercommit) + 1;
	std::vector<homa_srpt_grant> out(room + 1);
	std::vector<G> v;
	uint32_t n;

	memset(out.data(), 0xa5, out.size() * sizeof(out[0]));
	n = homa_srpt_grants(&p, f, c.data(), (uint32_t)c.size(), other,
			     out.data());
	EXPECT_LE(n, room);
	EXPECT_EQ(out[room].index, 0xa5a5a5a5u) << "wrote past the room";
	for (uint32_t i = 0; i < n && i < room; i++)
		v.push_back({ out[i].index, out[i].offset, out[i].priority,
			      out[i].fifo, out[i].rank });
	return v;
}

/* ---- the naive model ----------------------------------------------------- */

bool model_eligible(const homa_srpt_cand &c)
{
	return !(c.flags & HOMA_SRPT_STALLED) && c.remaining > 0 &&
	       c.granted < c.length;
}

std::vector<uint32_t> model_rank(const std::vector<homa_srpt_cand> &c,
				 uint32_t max)
{
	std::vector<uint32_t> order, chosen;
	std::map<uint64_t, uint32_t> per_peer;
	std::vector<bool> taken(c.size(), false);
	/* A cut share: the fewest k >= 1 with k / max >= scale / full. */
	auto limit = [&](uint32_t scale) {
		uint32_t k = 1;

		if (scale == 0 || scale >= HOMA_SRPT_SCALE_FULL)
			return max;
		while ((uint64_t)k * HOMA_SRPT_SCALE_FULL <
		       (uint64_t)max * scale)
			k++;
		return k;
	};

	max = std::min(max, kMaxOvercommit);
	for (uint32_t i = 0; i < c.size(); i++)
		if (model_eligible(c[i]))
			order.push_back(i);
	std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
		return std::make_tuple(c[a].remaining, c[a].birth, a) <
		       std::make_tuple(c[b].remaining, c[b].birth, b);
	});
	for (uint32_t round = 0; chosen.size() < max; round++) {
		size_t before = chosen.size();

		for (uint32_t i : order) {
			if (chosen.size() >= max)
				break;
			if (taken[i] || per_peer[c[i].peer] != round ||
			    per_peer[c[i].peer] >= limit(c[i].scale))
				continue;
			taken[i] = true;
			per_peer[c[i].peer]++;
			chosen.push_back(i);
		}
		if (chosen.size() == before)
			break;
	}
	return chosen;
}

uint32_t model_prio(uint32_t rank, uint32_t active, uint32_t max_sched)
{
	uint32_t levels = max_sched + 1;

	if (rank >= active)
		return 0;
	/* Few active: ranks use levels active-1 down to 0. */
	if (active <= levels)
		return active - 1 - rank;
	return rank <= max_sched ? max_sched - rank : 0;
}

struct ModelOut {
	std::vector<G> g;
	uint64_t credit;
};

ModelOut model_grants(const homa_srpt_params &p, uint64_t credit,
		      const std::vector<homa_srpt_cand> &c, uint64_t other)
{
	ModelOut m;
	std::vector<uint32_t> r = model_rank(c, p.max_overcommit);
	int64_t budget;
	uint64_t outstanding = other, srpt = 0, fifo = 0;
	uint32_t window = p.window ? p.window :
			  p.max_incoming / (uint32_t)(r.size() + 1);
	uint64_t f = std::min<uint64_t>(p.fifo_fraction, 1000);
	uint64_t threshold = (uint64_t)p.fifo_increment * (1000 - f);
	G fifo_g = {};

	for (const homa_srpt_cand &x : c) {
		uint64_t g = std::min(x.granted, x.length);
		uint64_t floor = std::max(x.received, x.unsched);

		if (g > floor)
			outstanding += g - floor;
	}
	budget = (int64_t)p.max_incoming - (int64_t)outstanding;
	if (budget < 0)
		budget = 0;
	auto base = [](const homa_srpt_cand &x) {
		return std::max(std::min(x.granted, x.length),
				std::min(x.received, x.length));
	};

	if (f > 0 && p.fifo_increment > 0 && credit >= threshold) {
		int victim = -1;

		for (uint32_t i = 0; i < c.size(); i++) {
			uint64_t g = std::min(c[i].granted, c[i].length);
			uint64_t fl = std::max(c[i].received, c[i].unsched);

			if (!model_eligible(c[i]) ||
			    std::find(r.begin(), r.end(), i) != r.end())
				continue;
			/* Still owed a whole FIFO grant: passed over. */
			if (g > fl && g - fl >= p.fifo_increment)
				continue;
			if (victim < 0 ||
			    std::make_pair(c[i].birth, c[i].remaining) <
			    std::make_pair(c[victim].birth,
					   c[victim].remaining))
				victim = (int)i;
		}
		if (victim < 0) {
			credit = threshold;
		} else {
			uint64_t b = base(c[victim]);
			uint64_t want = std::min<uint64_t>(
				c[victim].length, b + p.fifo_increment) - b;

			/* Cut by the budget below a step: none yet. */
			uint64_t fstep = std::min<uint64_t>(
				{ p.fifo_increment / 2, p.grant_increment,
				  p.max_incoming / 2 });

			fifo = std::min<uint64_t>(want, (uint64_t)budget);
			if (fifo < want && fifo < fstep)
				fifo = 0;
			budget -= (int64_t)fifo;
			fifo_g = { (uint32_t)victim, (uint32_t)(b + fifo),
				   p.max_sched_prio, 1, 0 };
		}
	}
	for (uint32_t k = 0; k < r.size(); k++) {
		const homa_srpt_cand &x = c[r[k]];
		uint64_t b = base(x);
		/* A congested sender's share, in real numbers, floored. */
		uint64_t w = window;

		if (x.scale != 0 && x.scale < 1024) {
			w = (uint64_t)std::floor((double)window * x.scale /
						 1024.0);
			w = std::min<uint64_t>(std::max<uint64_t>(w, 10000),
					       window);
		}
		uint64_t t = std::min<uint64_t>(x.length,
						(uint64_t)x.received + w);
		uint64_t extra = t > b ? t - b : 0;
		/* Worth a GRANT: the end, a whole step, or running dry. */
		uint64_t step = std::min<uint64_t>(p.grant_increment, w / 2);

		if (extra && t < x.length && t - b < step &&
		    b - std::min(x.received, x.length) >= step)
			extra = 0;

		/*
		 * Cut by the budget: only a whole step (at most half of
		 * max_incoming) is worth a GRANT.
		 */
		if (extra > (uint64_t)budget) {
			uint64_t tstep = std::min<uint64_t>(
				step, p.max_incoming / 2);

			extra = (uint64_t)budget;
			if (extra < tstep)
				extra = 0;
		}
		budget -= (int64_t)extra;
		srpt += extra;
		m.g.push_back({ r[k], (uint32_t)(b + extra),
				model_prio(k, (uint32_t)r.size(),
					   p.max_sched_prio), 0, k });
	}
	if (fifo)
		m.g.push_back(fifo_g);
	credit = credit + srpt * f - fifo * (1000 - f);
	credit = std::min(credit, threshold * 64);
	m.credit = credit;
	return m;
}

/* ---- homa_srpt_rank ------------------------------------------------------ */

TEST(homa_srpt, homa_srpt_rank__fewest_remaining_first)
{
	std::vector<homa_srpt_cand> c = {
		cand(1, 50000, 0, 10000, 1),	/* remaining 50000 */
		cand(2, 20000, 5000, 10000, 2),	/* remaining 15000 */
		cand(3, 90000, 80000, 85000, 3),	/* remaining 10000 */
	};

	EXPECT_EQ(rank(c, 8), V({ 2, 1, 0 }));
}

TEST(homa_srpt, homa_srpt_rank__ties_go_to_the_older)
{
	std::vector<homa_srpt_cand> c = {
		cand(1, 30000, 0, 10000, 9),
		cand(2, 30000, 0, 10000, 4),
		cand(3, 30000, 0, 10000, 7),
	};

	EXPECT_EQ(rank(c, 8), V({ 1, 2, 0 }));
}

TEST(homa_srpt, homa_srpt_rank__full_ties_go_to_lower_index)
{
	std::vector<homa_srpt_cand> c = {
		cand(1, 30000, 0, 10000, 5),
		cand(2, 30000, 0, 10000, 5),
	};

	EXPECT_EQ(rank(c, 8), V({ 0, 1 }));
}

TEST(homa_srpt, homa_srpt_rank__one_per_peer_before_a_second)
{
	/* Peer 1 has the two shortest; peer 2's comes between them. */
	std::vector<homa_srpt_cand> c = {
		cand(1, 20000, 0, 10000, 1),	/* rem 20000 */
		cand(1, 30000, 0, 10000, 2),	/* rem 30000 */
		cand(2, 90000, 0, 10000, 3),	/* rem 90000 */
		cand(3, 95000, 0, 10000, 4),	/* rem 95000 */
		cand(1, 25000, 0, 10000, 5),	/* rem 25000 */
	};

	/* Round 0: 0, 2, 3; round 1: peer 1's next best, 4; round 2: 1. */
	EXPECT_EQ(rank(c, 8), V({ 0, 2, 3, 4, 1 }));
	EXPECT_EQ(rank(c, 3), V({ 0, 2, 3 }));
	EXPECT_EQ(rank(c, 4), V({ 0, 2, 3, 4 }));
}

TEST(homa_srpt, homa_srpt_rank__cut_share_cuts_the_peer_s_messages)
{
	/* Peer 1 congested (its share at the floor), peer 2 not. */
	std::vector<homa_srpt_cand> c = {
		cand(1, 20000, 0, 10000, 1),
		cand(1, 21000, 0, 10000, 2),
		cand(1, 22000, 0, 10000, 3),
		cand(1, 23000, 0, 10000, 4),
		cand(2, 90000, 0, 10000, 5),
		cand(2, 91000, 0, 10000, 6),
		cand(2, 92000, 0, 10000, 7),
	};

	EXPECT_EQ(rank(c, 8), V({ 0, 4, 1, 5, 2, 6, 3 }));
	for (int i = 0; i < 4; i++)
		c[i].scale = 16;
	EXPECT_EQ(rank(c, 8), V({ 0, 4, 5, 6 }));
	/* Half the share: half of max_overcommit. */
	for (int i = 0; i < 4; i++)
		c[i].scale = HOMA_SRPT_SCALE_FULL / 2;
	EXPECT_EQ(rank(c, 4), V({ 0, 4, 1, 5 }));
	EXPECT_EQ(rank(c, 2), V({ 0, 4 }));
}

TEST(homa_srpt, homa_srpt_peer_limit__values)
{
	EXPECT_EQ(homa_srpt_peer_limit(8, 0), 8u);
	EXPECT_EQ(homa_srpt_peer_limit(8, HOMA_SRPT_SCALE_FULL), 8u);
	EXPECT_EQ(homa_srpt_peer_limit(8, HOMA_SRPT_SCALE_FULL + 1), 8u);
	EXPECT_EQ(homa_srpt_peer_limit(8, HOMA_SRPT_SCALE_FULL / 2), 4u);
	EXPECT_EQ(homa_srpt_peer_limit(8, HOMA_SRPT_SCALE_FULL / 2 + 1), 5u);
	EXPECT_EQ(homa_srpt_peer_limit(8, 16), 1u);
	EXPECT_EQ(homa_srpt_peer_limit(8, 1), 1u);
	EXPECT_EQ(homa_srpt_peer_limit(0, 16), 1u);
	EXPECT_EQ(homa_srpt_peer_limit(64, 1023), 64u);
	EXPECT_EQ(homa_srpt_peer_limit(0xffffffffu, 1023),
		  (uint32_t)((0xffffffffull * 1023 + 1023) / 1024));
}

TEST(homa_srpt, homa_srpt_rank__single_peer_takes_all_slots)
{
	std::vector<homa_srpt_cand> c = {
		cand(7, 30000, 0, 10000, 1),
		cand(7, 20000, 0, 10000, 2),
		cand(7, 40000, 0, 10000, 3),
	};

	EXPECT_EQ(rank(c, 8), V({ 1, 0, 2 }));
	EXPECT_EQ(rank(c, 2), V({ 1, 0 }));
}

TEST(homa_srpt, homa_srpt_rank__max_overcommit_limits)
{
	std::vector<homa_srpt_cand> c;

	for (uint32_t i = 0; i < 10; i++)
		c.push_back(cand(i, 100000 - i * 1000, 0, 10000, i));
	EXPECT_EQ(rank(c, 3), V({ 9, 8, 7 }));
	EXPECT_EQ(rank(c, 1), V({ 9 }));
	EXPECT_EQ(rank(c, 0), V({}));
}

TEST(homa_srpt, homa_srpt_rank__max_overcommit_clamped_to_64)
{
	std::vector<homa_srpt_cand> c;

	for (uint32_t i = 0; i < 100; i++)
		c.push_back(cand(i, 50000 + i, 0, 10000, i));
	std::vector<uint32_t> r = rank(c, 1000);

	ASSERT_EQ(r.size(), 64u);
	for (uint32_t i = 0; i < 64; i++)
		EXPECT_EQ(r[i], i);
}

TEST(homa_srpt, homa_srpt_rank__stalled_never_chosen)
{
	std::vector<homa_srpt_cand> c = {
		cand(1, 20000, 0, 10000, 1, HOMA_SRPT_STALLED),
		cand(2, 90000, 0, 10000, 2),
		cand(1, 95000, 0, 10000, 3),
	};

	/* Peer 1's stalled message does not use up its first slot either. */
	EXPECT_EQ(rank(c, 8), V({ 1, 2 }));
}

TEST(homa_srpt, homa_srpt_rank__complete_and_fully_granted_skipped)
{
	std::vector<homa_srpt_cand> c = {
		cand(1, 20000, 20000, 20000, 1),	/* complete */
		cand(2, 30000, 10000, 30000, 2),	/* fully granted */
		cand(3, 30000, 10000, 40000, 3),	/* granted past end */
		cand(4, 30000, 10000, 29999, 4),	/* one byte left */
	};

	EXPECT_EQ(rank(c, 8), V({ 3 }));
}

TEST(homa_srpt, homa_srpt_rank__empty)
{
	std::vector<homa_srpt_cand> c;

	EXPECT_EQ(rank(c, 8), V({}));
}

/* What random_cands() draws from (each a value "in N" is 1/N likely). */
struct CandShape {
	uint32_t unit;		/* a length is 1..lengths units */
	uint32_t lengths;
	uint32_t recv_unit;	/* received: 0..recv_steps-1 of these */
	uint32_t recv_steps;
	uint32_t full_in;	/* granted to its end, 1 in full_in */
	uint32_t ahead;		/* else granted this far past received */
	uint32_t births;	/* birth: 0..births-1 */
	uint32_t stalled_in;	/* stalled, 1 in stalled_in */
};

const CandShape kTieShape = { 1000, 8, 300, 3, 10, 500, 6, 6 };
const CandShape kManyShape = { 10000, 10, 1000, 10, 8, 5000, 50, 10 };

/* @n random candidates from @peers peers, drawn as @s says. */
std::vector<homa_srpt_cand> random_cands(std::mt19937_64 &rng, uint32_t n,
					 uint32_t peers, const CandShape &s)
{
	std::vector<homa_srpt_cand> c;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = s.unit * (1 + (uint32_t)(rng() % s.lengths));
		uint32_t rec = (uint32_t)(rng() % s.recv_steps) * s.recv_unit;
		uint32_t gr = rng() % s.full_in == 0 ? len : rec + s.ahead;
		uint64_t peer = rng() % peers;
		uint64_t birth = rng() % s.births;

		c.push_back(cand(peer, len, rec, gr, birth,
				 rng() % s.stalled_in == 0 ? HOMA_SRPT_STALLED :
							     0));
	}
	return c;
}

/* Candidates past HOMA_SRPT_MAX_CANDS are not considered, however short. */
TEST(homa_srpt, homa_srpt_rank__only_the_first_max_cands)
{
	std::vector<homa_srpt_cand> c;

	for (uint32_t i = 0; i < HOMA_SRPT_MAX_CANDS + 2; i++)
		c.push_back(cand(i, 100000, 0, 10000, i));
	c[HOMA_SRPT_MAX_CANDS] = cand(900, 2000, 0, 1000, 0);
	c[HOMA_SRPT_MAX_CANDS + 1] = cand(901, 2000, 0, 1000, 0);
	c[HOMA_SRPT_MAX_CANDS - 1] = cand(902, 3000, 0, 1000, 0);
	EXPECT_EQ(rank(c, 3), V({ HOMA_SRPT_MAX_CANDS - 1, 0, 1 }));
}

/*
 * As many candidates as a grant pass gathers, from many peers or few, as
 * an incast lists them: the same choice as the model's.
 */
TEST(homa_srpt, homa_srpt_rank__many_candidates_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	SCOPED_TRACE(unit::seed_msg(seed));
	for (int t = 0; t < 400; t++) {
		uint32_t n = 40 + (uint32_t)(rng() % (HOMA_SRPT_MAX_CANDS - 39));
		uint32_t peers = 1 + (uint32_t)(rng() % 100);
		uint32_t max = 1 + (uint32_t)(rng() % 70);
		std::vector<homa_srpt_cand> c;

		c = random_cands(rng, n, peers, kManyShape);
		for (homa_srpt_cand &x : c)
			x.scale = x.peer % 5 == 0 ? 300 : 0;
		ASSERT_EQ(rank(c, max), model_rank(c, max))
			<< "trial " << t << " n " << n << " max " << max;
	}
}

TEST(homa_srpt, homa_srpt_rank__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	printf("homa_srpt_rank__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int t = 0; t < 5000; t++) {
		uint32_t n = (uint32_t)(rng() % 40);
		uint32_t peers = 1 + (uint32_t)(rng() % 12);
		uint32_t max = (uint32_t)(rng() % 12);
		std::vector<homa_srpt_cand> c;

		if (rng() % 20 == 0)
			max = 60 + (uint32_t)(rng() % 100);
		/* Few distinct values, so ties are common. */
		c = random_cands(rng, n, peers, kTieShape);
		/* Some peers with a cut share (the same for all of theirs). */
		std::map<uint64_t, uint32_t> share;
		const uint32_t shares[] = { 0, 0, 16, 100, 300, 512, 1024 };

		for (homa_srpt_cand &x : c) {
			if (!share.count(x.peer))
				share[x.peer] = shares[rng() % 7];
			x.scale = share[x.peer];
		}
		std::vector<uint32_t> got = rank(c, max);
		std::vector<uint32_t> want = model_rank(c, max);

		ASSERT_EQ(got, want) << "trial " << t << " n " << n << " max "
				     << max;

		/* Properties, independent of the model. */
		std::map<uint64_t, uint32_t> per_peer;
		std::map<uint64_t, bool> waiting;

		for (uint32_t i : got) {
			ASSERT_TRUE(model_eligible(c[i]));
			per_peer[c[i].peer]++;
		}
		for (uint32_t i = 0; i < c.size(); i++)
			if (model_eligible(c[i]))
				waiting[c[i].peer] = true;
		for (auto &pp : per_peer) {
			if (pp.second < 2)
				continue;
			for (auto &w : waiting) {
				ASSERT_GE(per_peer[w.first], 1u)
					<< "peer " << pp.first
					<< " has two, peer " << w.first
					<< " none";
			}
		}
	}
}

/* ---- homa_srpt_window ---------------------------------------------------- */

TEST(homa_srpt, homa_srpt_window__fixed)
{
	homa_srpt_params p = params(8, 60000, 400000);

	EXPECT_EQ(homa_srpt_window(&p, 0), 60000u);
	EXPECT_EQ(homa_srpt_window(&p, 7), 60000u);
}

TEST(homa_srpt, homa_srpt_window__dynamic)
{
	homa_srpt_params p = params(8, 0, 400000);

	EXPECT_EQ(homa_srpt_window(&p, 0), 400000u);
	EXPECT_EQ(homa_srpt_window(&p, 1), 200000u);
	EXPECT_EQ(homa_srpt_window(&p, 3), 100000u);
	EXPECT_EQ(homa_srpt_window(&p, 7), 50000u);
	EXPECT_EQ(homa_srpt_window(&p, 2), 133333u);
}

TEST(homa_srpt, homa_srpt_window__dynamic_large_max_incoming)
{
	homa_srpt_params p = params(8, 0, 1000000000);

	EXPECT_EQ(homa_srpt_window(&p, 63), 15625000u);
}

/* ---- homa_srpt_outstanding ----------------------------------------------- */

TEST(homa_srpt, homa_srpt_outstanding__sum)
{
	std::vector<homa_srpt_cand> c = {
		cand(1, 50000, 1000, 11000, 1),	/* 10000 */
		cand(2, 50000, 0, 40000, 2),		/* 40000 */
		cand(3, 50000, 7, 7, 3),		/* 0 */
	};

	EXPECT_EQ(homa_srpt_outstanding(c.data(), 3), 50000u);
	EXPECT_EQ(homa_srpt_outstanding(c.data(), 1), 10000u);
	EXPECT_EQ(homa_srpt_outstanding(c.data(), 0), 0u);
}

TEST(homa_srpt, homa_srpt_outstanding__clamped)
{
	std::vector<homa_srpt_cand> c = {
		cand(1, 50000, 45000, 90000, 1),	/* granted past end: 5000 */
		cand(2, 50000, 30000, 20000, 2),	/* received > granted: 0 */
	};

	EXPECT_EQ(homa_srpt_outstanding(c.data(), 2), 5000u);
}

TEST(homa_srpt, homa_srpt_outstanding__unscheduled_bytes_not_counted)
{
	std::vector<homa_srpt_cand> c = {
		/* 40000 unscheduled, none arrived, 48000 granted: 8000. */
		cand(1, 100000, 0, 48000, 1),
		/* Unscheduled only, all lost: 0. */
		cand(2, 100000, 0, 40000, 2),
		/* Past the unscheduled bytes: granted - received. */
		cand(3, 100000, 45000, 60000, 3),
	};

	for (homa_srpt_cand &x : c)
		x.unsched = 40000;
	EXPECT_EQ(homa_srpt_outstanding(c.data(), 3), 8000u + 0 + 15000);
}

TEST(homa_srpt, homa_srpt_grants__lost_unscheduled_bursts_block_nothing)
{
	/* 32 messages whose 40000 unscheduled bytes were all dropped. */
	std::vector<homa_srpt_cand> c;
	homa_srpt_params p = params(8, 8000, 64000);
	std::vector<homa_srpt_grant> out(p.max_overcommit + 1);
	homa_srpt_fifo f;

	homa_srpt_fifo_init(&f);
	for (int i = 0; i < 32; i++) {
		c.push_back(cand(i, 100000, 0, 40000, i));
		c.back().unsched = 40000;
	}
	/* One message of another sender got its unscheduled bytes. */
	c.push_back(cand(99, 100000, 40000, 40000, 99));
	c.back().unsched = 40000;
	uint32_t n = homa_srpt_grants(&p, &f, c.data(), (uint32_t)c.size(),
				      0, out.data());
	bool granted = false;

	for (uint32_t i = 0; i < n; i++)
		if (out[i].index == 32 && out[i].offset > 40000)
			granted = true;
	EXPECT_TRUE(granted);
}

TEST(homa_srpt, homa_srpt_outstanding__no_u32_overflow)
{
	std::vector<homa_srpt_cand> c;

	for (int i = 0; i < 10; i++)
		c.push_back(cand(i, 0xffffffffu, 0, 0xffffffffu, i));
	EXPECT_EQ(homa_srpt_outstanding(c.data(), 10), 10ull * 0xffffffffu);
}

/* ---- homa_srpt_sched_prio ------------------------------------------------ */

TEST(homa_srpt, homa_srpt_sched_prio__many_active)
{
	/* Levels 0..3 scheduled, 6 active: ranks 0..3 get 3..0, rest 0. */
	EXPECT_EQ(homa_srpt_sched_prio(0, 6, 3), 3);
	EXPECT_EQ(homa_srpt_sched_prio(1, 6, 3), 2);
	EXPECT_EQ(homa_srpt_sched_prio(2, 6, 3), 1);
	EXPECT_EQ(homa_srpt_sched_prio(3, 6, 3), 0);
	EXPECT_EQ(homa_srpt_sched_prio(4, 6, 3), 0);
	EXPECT_EQ(homa_srpt_sched_prio(5, 6, 3), 0);
}

TEST(homa_srpt, homa_srpt_sched_prio__few_active_use_lowest_levels)
{
	EXPECT_EQ(homa_srpt_sched_prio(0, 1, 3), 0);
	EXPECT_EQ(homa_srpt_sched_prio(0, 2, 3), 1);
	EXPECT_EQ(homa_srpt_sched_prio(1, 2, 3), 0);
	EXPECT_EQ(homa_srpt_sched_prio(0, 4, 3), 3);
	EXPECT_EQ(homa_srpt_sched_prio(3, 4, 3), 0);
}

TEST(homa_srpt, homa_srpt_sched_prio__rank_out_of_range)
{
	EXPECT_EQ(homa_srpt_sched_prio(2, 2, 3), 0);
	EXPECT_EQ(homa_srpt_sched_prio(0, 0, 3), 0);
}

TEST(homa_srpt, homa_srpt_sched_prio__single_level)
{
	for (uint32_t a = 1; a < 5; a++)
		for (uint32_t r = 0; r < a; r++)
			EXPECT_EQ(homa_srpt_sched_prio(r, a, 0), 0);
}

TEST(homa_srpt, homa_srpt_sched_prio__newcomer_preempts)
{
	/*
	 * While fewer are active than there are levels, a newcomer that
	 * ranks first gets a level above every level in use before.
	 */
	for (uint32_t max = 0; max < 8; max++)
		for (uint32_t a = 1; a <= max; a++) {
			uint32_t top_before = homa_srpt_sched_prio(0, a, max);

			EXPECT_GT(homa_srpt_sched_prio(0, a + 1, max),
				  top_before) << "max " << max << " a " << a;
		}
}

TEST(homa_srpt, homa_srpt_sched_prio__vs_model)
{
	for (uint32_t max = 0; max < 8; max++)
		for (uint32_t a = 0; a < 20; a++)
			for (uint32_t r = 0; r < 22; r++) {
				uint32_t p = homa_srpt_sched_prio(r, a, max);

				EXPECT_EQ(p, model_prio(r, a, max))
					<< r << " " << a << " " << max;
				EXPECT_LE(p, max);
			}
}

/* ---- homa_srpt_fifo_init ------------------------------------------------- */

TEST(homa_srpt, homa_srpt_fifo_init__zero)
{
	homa_srpt_fifo f;

	memset(&f, 0x5a, sizeof(f));
	homa_srpt_fifo_init(&f);
	EXPECT_EQ(f.credit, 0u);
}

/* ---- homa_srpt_grants ---------------------------------------------------- */

TEST(homa_srpt, homa_srpt_grants__fixed_window)
{
	homa_srpt_params p = params(8, 20000, 400000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 100000, 10000, 10000, 1),	/* rem 90000 */
		cand(2, 25000, 10000, 10000, 2),	/* rem 15000 */
	};

	/* Rank 0 = index 1: min(25000, 30000); 2 active: levels 1, 0. */
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 1, 25000, 1, 0, 0 },
				   { 0, 30000, 0, 0, 1 } }));
}

TEST(homa_srpt, homa_srpt_grants__dynamic_window)
{
	homa_srpt_params p = params(8, 0, 300000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 500000, 0, 10000, 1),
		cand(2, 600000, 0, 10000, 2),
	};

	/* window = 300000 / 3 = 100000; outstanding 20000 before. */
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 100000, 1, 0, 0 },
				   { 1, 100000, 0, 0, 1 } }));
}

TEST(homa_srpt, homa_srpt_scaled__values)
{
	EXPECT_EQ(homa_srpt_scaled(100000, 0), 100000u);
	EXPECT_EQ(homa_srpt_scaled(100000, HOMA_SRPT_SCALE_FULL), 100000u);
	EXPECT_EQ(homa_srpt_scaled(100000, 5000), 100000u);
	EXPECT_EQ(homa_srpt_scaled(100000, 512), 50000u);
	EXPECT_EQ(homa_srpt_scaled(100000, 200), 19531u);
	EXPECT_EQ(homa_srpt_scaled(100000, 100), 10000u);
	/* Floored at a slow link's stored packet, never above the window. */
	EXPECT_EQ(homa_srpt_scaled(100000, 1), (u32)HOMA_SRPT_MIN_WINDOW);
	EXPECT_EQ(homa_srpt_scaled(1000, 1), 1000u);
	/* No overflow with the largest window. */
	EXPECT_EQ(homa_srpt_scaled(0xffffffffu, 512), 0x7fffffffu);
}

TEST(homa_srpt, homa_srpt_grants__scaled_window)
{
	homa_srpt_params p = params(8, 40000, 400000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 200000, 10000, 10000, 1),
		cand(2, 300000, 10000, 10000, 2),
	};

	/* The second sender's path is congested: a quarter of the window. */
	c[1].scale = HOMA_SRPT_SCALE_FULL / 4;
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 50000, 1, 0, 0 },
				   { 1, 20000, 0, 0, 1 } }));
}

TEST(homa_srpt, homa_srpt_grants__increment)
{
	homa_srpt_params p = params(8, 20000, 400000, 3);
	homa_srpt_fifo f = { 0 };
	/* 2000 new bytes of a 20000-byte window: not worth a GRANT yet. */
	std::vector<homa_srpt_cand> c = {
		cand(1, 100000, 32000, 50000, 1),
	};

	p.grant_increment = 5000;
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 50000, 0, 0, 0 } }));
	/* A whole step. */
	c[0].received = 35000;
	c[0].remaining = 65000;
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 55000, 0, 0, 0 } }));
	/* The last bytes of the message go at once. */
	c = { cand(1, 51000, 32000, 50000, 1) };
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 51000, 0, 0, 0 } }));
	/* The step is at most half the window: 20000 / 2 here. */
	p.grant_increment = 50000;
	c = { cand(1, 100000, 40000, 50000, 1) };
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 60000, 0, 0, 0 } }));
	c[0].received = 39000;
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 50000, 0, 0, 0 } }));
	/* Off: every new byte. */
	p.grant_increment = 0;
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 59000, 0, 0, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__trimmed_needs_a_step)
{
	homa_srpt_params p = params(8, 10000, 20000, 3);
	homa_srpt_fifo f = { 0 };
	/* 1400 granted ahead of 100000 received: running dry. */
	std::vector<homa_srpt_cand> c = {
		cand(1, 1000000, 100000, 101400, 1),
	};

	p.grant_increment = 10000;	/* step: half the window, 5000 */
	/* Budget 20000 - 1400 - 17200 = 1400: a sliver, not sent. */
	EXPECT_EQ(grants(p, &f, c, 17200),
		  std::vector<G>({ { 0, 101400, 0, 0, 0 } }));
	/* 4999: still short of a step. */
	EXPECT_EQ(grants(p, &f, c, 13601),
		  std::vector<G>({ { 0, 101400, 0, 0, 0 } }));
	/* A whole step: granted, though short of the window (110000). */
	EXPECT_EQ(grants(p, &f, c, 13600),
		  std::vector<G>({ { 0, 106400, 0, 0, 0 } }));
	/* Room for the whole window: as before, not trimmed. */
	EXPECT_EQ(grants(p, &f, c, 0),
		  std::vector<G>({ { 0, 110000, 0, 0, 0 } }));
	/* Without an increment every trimmed byte still goes. */
	p.grant_increment = 0;
	EXPECT_EQ(grants(p, &f, c, 17200),
		  std::vector<G>({ { 0, 102800, 0, 0, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__trimmed_step_at_most_half_max_incoming)
{
	/* Step min(10000, 10000 / 2) = 5000, but max_incoming is 6000. */
	homa_srpt_params p = params(8, 10000, 6000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 100000, 50000, 50000, 1),
	};

	p.grant_increment = 10000;
	/* Budget 2999 < 3000: not sent. */
	EXPECT_EQ(grants(p, &f, c, 3001),
		  std::vector<G>({ { 0, 50000, 0, 0, 0 } }));
	/* 3000, half of max_incoming: sent. */
	EXPECT_EQ(grants(p, &f, c, 3000),
		  std::vector<G>({ { 0, 53000, 0, 0, 0 } }));
	/* An empty budget is always enough. */
	EXPECT_EQ(grants(p, &f, c, 0),
		  std::vector<G>({ { 0, 56000, 0, 0, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__never_decreasing)
{
	homa_srpt_params p = params(8, 10000, 400000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 100000, 5000, 40000, 1),
	};

	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 40000, 0, 0, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__received_past_granted)
{
	homa_srpt_params p = params(8, 10000, 400000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 100000, 30000, 20000, 1),
	};

	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 0, 40000, 0, 0, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__max_incoming_trims_lowest_rank)
{
	homa_srpt_params p = params(8, 50000, 100000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 300000, 0, 10000, 1),	/* rank 2 */
		cand(2, 100000, 0, 10000, 2),	/* rank 0 */
		cand(3, 200000, 0, 10000, 3),	/* rank 1 */
	};

	/*
	 * Outstanding 30000, budget 70000: rank 0 takes 40000 (to 50000),
	 * rank 1 the remaining 30000 (to 40000), rank 2 nothing.
	 */
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 1, 50000, 2, 0, 0 },
				   { 2, 40000, 1, 0, 1 },
				   { 0, 10000, 0, 0, 2 } }));
}

TEST(homa_srpt, homa_srpt_grants__other_incoming_counts)
{
	homa_srpt_params p = params(8, 50000, 100000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 300000, 0, 10000, 1),
	};

	/* 10000 outstanding here, 85000 elsewhere: 5000 left. */
	EXPECT_EQ(grants(p, &f, c, 85000),
		  std::vector<G>({ { 0, 15000, 0, 0, 0 } }));
	/* Already over the limit: nothing new, and no underflow. */
	EXPECT_EQ(grants(p, &f, c, 500000),
		  std::vector<G>({ { 0, 10000, 0, 0, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__stalled_counts_but_is_not_granted)
{
	homa_srpt_params p = params(8, 50000, 100000, 3);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 30000, 0, 20000, 1, HOMA_SRPT_STALLED),
		cand(2, 300000, 0, 10000, 2),
	};

	/* 30000 outstanding; budget 70000; message 1 gets 40000 more. */
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 1, 50000, 0, 0, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__nothing_to_grant)
{
	homa_srpt_params p = params(8, 50000, 100000, 3, 50, 10000);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c;

	EXPECT_EQ(grants(p, &f, c), std::vector<G>({}));
	EXPECT_EQ(f.credit, 0u);
}

TEST(homa_srpt, homa_srpt_grants__fifo_credit_and_grant)
{
	/* f = 100 per mille, increment 10000: threshold 10000 * 900. */
	homa_srpt_params p = params(1, 20000, 1000000, 3, 100, 10000);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),		/* oldest, longest */
		cand(2, 500000, 0, 10000, 5),		/* rank 0 */
		cand(3, 800000, 0, 10000, 3),
	};

	c[0].unsched = 10000;	/* owed nothing: a FIFO victim */
	/* Rank 0 gets 10000 new bytes: credit 10000 * 100. */
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 1, 20000, 0, 0, 0 } }));
	EXPECT_EQ(f.credit, 1000000u);

	/* Eight more such rounds bring it to 9000000, the threshold. */
	for (int i = 0; i < 8; i++) {
		c[1].granted += 10000;
		c[1].received += 10000;
		c[1].remaining -= 10000;
		grants(p, &f, c);
	}
	EXPECT_EQ(f.credit, 9000000u);

	/*
	 * Now the oldest (index 0) gets 10000 at the highest scheduled
	 * level (3), above rank 0's (0 here: one message is active), so
	 * that strict priority does not starve it; its entry comes last.
	 */
	c[1].granted += 10000;
	c[1].received += 10000;
	c[1].remaining -= 10000;
	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 1, 110000, 0, 0, 0 },
				   { 0, 20000, 3, 1, 0 } }));
	/* 9000000 + 10000 * 100 - 10000 * 900 */
	EXPECT_EQ(f.credit, 1000000u);
}

TEST(homa_srpt, homa_srpt_grants__fifo_victim_is_oldest_unchosen)
{
	homa_srpt_params p = params(1, 20000, 1000000, 3, 500, 1000);
	homa_srpt_fifo f = { 500000 };	/* threshold 1000 * 500 */
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),		/* oldest: rank 0 */
		cand(2, 950000, 0, 10000, 7, HOMA_SRPT_STALLED),
		cand(3, 990000, 0, 10000, 3),		/* oldest unchosen */
		cand(4, 980000, 0, 10000, 4),
	};

	c[2].unsched = 10000;
	c[3].unsched = 10000;
	std::vector<G> g = grants(p, &f, c);

	ASSERT_EQ(g.size(), 2u);
	EXPECT_EQ(g[0], (G{ 0, 20000, 0, 0, 0 }));
	EXPECT_EQ(g[1], (G{ 2, 11000, 3, 1, 0 }));
}

TEST(homa_srpt, homa_srpt_grants__fifo_passes_over_owed)
{
	/* increment 1000: a message owed 1000 or more is passed over. */
	homa_srpt_params p = params(1, 20000, 1000000, 5, 500, 1000);
	homa_srpt_fifo f = { 500000 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),		/* rank 0 */
		cand(3, 990000, 0, 10000, 3),		/* oldest unchosen */
		cand(4, 980000, 0, 10000, 4),
	};

	c[1].unsched = 9000;			/* owed 1000 */
	c[2].unsched = 9001;			/* owed 999 */
	std::vector<G> g = grants(p, &f, c);

	ASSERT_EQ(g.size(), 2u);
	EXPECT_EQ(g[1], (G{ 2, 11000, 5, 1, 0 }));

	/* Both owed a whole grant: no FIFO grant, one grant's credit. */
	f.credit = 5000000;
	c[2].unsched = 9000;
	g = grants(p, &f, c);
	ASSERT_EQ(g.size(), 1u);
	EXPECT_EQ(g[0].fifo, 0u);
	EXPECT_EQ(f.credit, 500000u + 10000u * 500);
}

TEST(homa_srpt, homa_srpt_grants__fifo_no_victim_caps_credit)
{
	homa_srpt_params p = params(8, 20000, 1000000, 3, 100, 1000);
	homa_srpt_fifo f = { 5000000 };	/* threshold 900000 */
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),
	};

	std::vector<G> g = grants(p, &f, c);

	ASSERT_EQ(g.size(), 1u);
	EXPECT_EQ(g[0].fifo, 0u);
	/* Capped to one grant's worth, then 10000 SRPT bytes * 100. */
	EXPECT_EQ(f.credit, 900000u + 1000000u);
}

TEST(homa_srpt, homa_srpt_grants__fifo_disabled)
{
	homa_srpt_params p = params(1, 20000, 1000000, 3, 0, 10000);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),
		cand(2, 500000, 0, 10000, 5),
	};

	for (int i = 0; i < 50; i++) {
		std::vector<G> g = grants(p, &f, c);

		ASSERT_EQ(g.size(), 1u);
		EXPECT_EQ(g[0].fifo, 0u);
		c[1].granted = g[0].offset;
		c[1].received = g[0].offset;
		c[1].remaining = c[1].length - c[1].received;
	}
	EXPECT_EQ(f.credit, 0u);
}

TEST(homa_srpt, homa_srpt_grants__fifo_zero_increment)
{
	homa_srpt_params p = params(1, 20000, 1000000, 3, 100, 0);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),
		cand(2, 500000, 0, 10000, 5),
	};

	EXPECT_EQ(grants(p, &f, c).size(), 1u);
	EXPECT_EQ(f.credit, 0u);
}

TEST(homa_srpt, homa_srpt_grants__fifo_before_srpt_in_budget)
{
	/* Budget 5000: the due FIFO grant takes 5000, SRPT gets none. */
	homa_srpt_params p = params(1, 20000, 25000, 3, 100, 10000);
	homa_srpt_fifo f = { 9000000 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),
		cand(2, 500000, 0, 10000, 5),
	};

	/* The victim's 10000 were unscheduled: count them in other. */
	c[0].unsched = 10000;
	EXPECT_EQ(grants(p, &f, c, 10000),
		  std::vector<G>({ { 1, 10000, 0, 0, 0 },
				   { 0, 15000, 3, 1, 0 } }));
	EXPECT_EQ(f.credit, 9000000u - 5000u * 900);
}

TEST(homa_srpt, homa_srpt_grants__fifo_no_budget_keeps_credit)
{
	homa_srpt_params p = params(1, 20000, 20000, 3, 100, 10000);
	homa_srpt_fifo f = { 9000000 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),
		cand(2, 500000, 0, 10000, 5),
	};

	EXPECT_EQ(grants(p, &f, c),
		  std::vector<G>({ { 1, 10000, 0, 0, 0 } }));
	EXPECT_EQ(f.credit, 9000000u);
}

TEST(homa_srpt, homa_srpt_grants__fifo_trimmed_needs_a_step)
{
	/* FIFO step min(10000 / 2, grant_increment, max_incoming / 2). */
	homa_srpt_params p = params(1, 20000, 25000, 3, 100, 10000);
	homa_srpt_fifo f = { 9000000 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 10000, 1),
		cand(2, 500000, 0, 10000, 5),
	};

	p.grant_increment = 10000;
	/* The victim's 10000 were unscheduled: count them in other. */
	c[0].unsched = 10000;
	/* Budget 25000 - 20000 - 1000 = 4000 < 5000: none, credit kept. */
	EXPECT_EQ(grants(p, &f, c, 11000),
		  std::vector<G>({ { 1, 10000, 0, 0, 0 } }));
	EXPECT_EQ(f.credit, 9000000u);
	/* Budget 5000: half of fifo_increment, granted. */
	EXPECT_EQ(grants(p, &f, c, 10000),
		  std::vector<G>({ { 1, 10000, 0, 0, 0 },
				   { 0, 15000, 3, 1, 0 } }));
	EXPECT_EQ(f.credit, 9000000u - 5000u * 900);
	/* A smaller grant_increment lowers the step: 4000 >= 3000. */
	f.credit = 9000000;
	p.grant_increment = 3000;
	EXPECT_EQ(grants(p, &f, c, 11000),
		  std::vector<G>({ { 1, 10000, 0, 0, 0 },
				   { 0, 14000, 3, 1, 0 } }));
}

TEST(homa_srpt, homa_srpt_grants__fifo_credit_capped)
{
	/* threshold 1 * 999; cap 64 of those. */
	homa_srpt_params p = params(1, 500000, 1000000, 3, 1, 1);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, 900000, 0, 0, 1),
	};

	grants(p, &f, c);
	EXPECT_EQ(f.credit, 64u * 999);
}

TEST(homa_srpt, homa_srpt_grants__fifo_share_converges)
{
	/*
	 * One old 1 MB message under a stream of 20 KB messages from other
	 * peers, one slot: only FIFO grants move the old one, and about
	 * fifo_fraction per mille of all granted bytes go to it.
	 */
	homa_srpt_params p = params(1, 10000, 1000000, 3, 100, 5000);
	homa_srpt_fifo f = { 0 };
	std::vector<homa_srpt_cand> c = {
		cand(1, kMaxLen, 0, 0, 0),
		cand(2, 20000, 0, 0, 10),
	};
	uint64_t fifo_bytes = 0, all = 0, next_peer = 3;

	for (int step = 0; step < 20000 && c[0].received < kMaxLen; step++) {
		std::vector<G> g = grants(p, &f, c);

		for (const G &x : g) {
			homa_srpt_cand &m = c[x.index];
			uint32_t news = x.offset - m.granted;

			all += news;
			if (x.fifo)
				fifo_bytes += news;
			/* Everything granted arrives before the next step. */
			m.granted = x.offset;
			m.received = x.offset;
			m.remaining = m.length - m.received;
		}
		if (c[1].remaining == 0)
			c[1] = cand(next_peer++, 20000, 0, 0, 10 + step);
	}
	ASSERT_GT(all, 500000u);
	double share = (double)fifo_bytes / (double)all;

	EXPECT_NEAR(share, 0.1, 0.01) << fifo_bytes << " of " << all;
}

/*
 * A host's incoming messages over time: messages arrive (their
 * unscheduled bytes granted), grants are decided and applied, granted
 * bytes arrive in random amounts, buffers stall and return. Each decision
 * must equal the model's, and the properties must hold.
 */
TEST(homa_srpt, homa_srpt_grants__random_vs_model)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	uint64_t decisions = 0, fifo_grants = 0, trimmed = 0;

	printf("homa_srpt_grants__random_vs_model: %s\n",
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int run = 0; run < 60; run++) {
		homa_srpt_params p = params(
			1 + (uint32_t)(rng() % 10),
			rng() % 2 ? 0 : 1000 * (1 + (uint32_t)(rng() % 80)),
			20000 + (uint32_t)(rng() % 400000),
			(uint32_t)(rng() % 8),
			rng() % 4 ? (uint32_t)(rng() % 501) : 0,
			(uint32_t)(rng() % 20000));
		uint32_t unsched = 1000 + (uint32_t)(rng() % 40000);

		p.grant_increment = rng() % 3 ? (uint32_t)(rng() % 20000) : 0;
		uint32_t peers = 1 + (uint32_t)(rng() % 10);
		homa_srpt_fifo f = { 0 };
		uint64_t model_credit = 0, now = 0;
		std::vector<homa_srpt_cand> c;

		SCOPED_TRACE("run " + std::to_string(run));
		for (int step = 0; step < 400; step++) {
			now++;
			/* Arrivals. */
			while (c.size() < 50 && rng() % 3 == 0) {
				uint32_t len = 1 + (uint32_t)(rng() % 300000);
				homa_srpt_cand x = cand(rng() % peers, len, 0,
						std::min(len, unsched), now);

				x.received = (uint32_t)(rng() % (x.granted + 1));
				x.remaining = len - x.received;
				/* Some senders' paths are congested. */
				if (rng() % 4 == 0)
					x.scale = (uint32_t)(rng() % 1100);
				c.push_back(x);
			}
			/* Stalls come and go. */
			for (homa_srpt_cand &x : c)
				if (rng() % 10 == 0)
					x.flags ^= HOMA_SRPT_STALLED;

			uint64_t other = rng() % 4 ? 0 : rng() % 100000;
			uint64_t before = other +
				homa_srpt_outstanding(c.data(),
						      (uint32_t)c.size());
			homa_srpt_fifo saved = f;
			std::vector<G> g = grants(p, &f, c, other);
			ModelOut m = model_grants(p, model_credit, c, other);

			decisions++;
			ASSERT_EQ(g, m.g) << "step " << step;
			ASSERT_EQ(f.credit, m.credit) << "step " << step
				<< " credit before " << saved.credit;
			model_credit = m.credit;

			/* Properties. */
			uint32_t srpt_n = 0, fifo_n = 0;
			std::vector<homa_srpt_cand> after = c;

			for (const G &x : g) {
				const homa_srpt_cand &old = c[x.index];

				ASSERT_LT(x.index, c.size());
				ASSERT_FALSE(old.flags & HOMA_SRPT_STALLED);
				ASSERT_GE(x.offset, old.granted);
				ASSERT_LE(x.offset, old.length);
				if (x.fifo) {
					/* Top scheduled level; owed < inc. */
					ASSERT_EQ(x.priority, p.max_sched_prio);
					ASSERT_LT(homa_srpt_outstanding(&old, 1),
						  p.fifo_increment);
				} else {
					ASSERT_LE(x.priority, p.max_sched_prio);
				}
				(x.fifo ? fifo_n : srpt_n)++;
				after[x.index].granted = x.offset;
			}
			ASSERT_LE(srpt_n, p.max_overcommit);
			ASSERT_LE(fifo_n, 1u);
			uint64_t now_out = other +
				homa_srpt_outstanding(after.data(),
						      (uint32_t)after.size());
			ASSERT_LE(now_out, std::max<uint64_t>(before,
							      p.max_incoming));
			if (now_out == std::max<uint64_t>(before,
							  p.max_incoming) &&
			    now_out > before)
				trimmed++;
			fifo_grants += fifo_n;

			/* Apply; some granted bytes arrive. */
			c = after;
			for (homa_srpt_cand &x : c) {
				uint32_t out = x.granted > x.received ?
					       x.granted - x.received : 0;

				if (out && rng() % 2)
					x.received += (uint32_t)(rng() %
								 (out + 1));
				x.remaining = x.length - x.received;
			}
			c.erase(std::remove_if(c.begin(), c.end(),
					       [](const homa_srpt_cand &x) {
						       return x.remaining == 0;
					       }),
				c.end());
		}
	}
	printf("  %llu decisions, %llu FIFO grants, %llu hit max_incoming\n",
	       (unsigned long long)decisions,
	       (unsigned long long)fifo_grants, (unsigned long long)trimmed);
	EXPECT_GT(fifo_grants, 0u);
	EXPECT_GT(trimmed, 0u);
}

} /* namespace */
