// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_pool.cc - unit tests for homa_pool.c, in the order of its
 * functions, then a long random run checked against a naive model. The
 * sizes (bpage 65536 bytes, fragment alignment 256, 4 GiB limit) come from
 * SPEC.md and the pool's design, written out here by hand; expected
 * offsets are worked out by hand in the comments. The pool's arrays are
 * heap vectors of exactly the size given to it, so AddressSanitizer reports
 * any access past them.
 */

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "homa_pool.h"
}

#include "unit_util.h"

namespace {

const uint32_t kBpage = 65536;		/* SPEC: HOMA_BPAGE_SIZE */
const uint32_t kAlign = 256;		/* fragment alignment */
const uint32_t kNone = 0xffffffffu;	/* no partial bpage */
const uint32_t kMaxLen = 1000000;	/* SPEC: HOMA_MAX_MESSAGE_LENGTH */
const uint32_t kMaxFrags = 16;		/* SPEC: HOMA_MAX_BPAGES */
const uint64_t kGiB4 = 4ull << 30;
const uint32_t kSentinel = 0xdeadbeefu;

/* A pool over caller-owned arrays of exactly @n entries. */
struct Pool {
	std::vector<homa_bpage> bpages;
	std::vector<uint32_t> stack;
	homa_pool_state s;

	explicit Pool(uint32_t n) : bpages(n), stack(n)
	{
		if (n)
			memset(bpages.data(), 0xa5, n * sizeof(homa_bpage));
		memset(&s, 0x5a, sizeof(s));
		homa_pool_state_init(&s, n, bpages.data(), stack.data());
	}

	/* Calls alloc_msg; on success stores the offsets in *out. */
	int alloc(uint32_t len, std::vector<uint32_t> *out = nullptr)
	{
		std::vector<uint32_t> offs(kMaxFrags, kSentinel);
		uint32_t n = kSentinel;
		int rc = homa_pool_alloc_msg(&s, len, offs.data(), &n);

		if (rc != 0) {
			EXPECT_EQ(n, kSentinel) << "num_offsets written on error";
			for (uint32_t o : offs)
				EXPECT_EQ(o, kSentinel) << "offsets written on error";
			return rc;
		}
		EXPECT_GE(n, 1u);
		EXPECT_LE(n, kMaxFrags);
		if (out)
			out->assign(offs.begin(), offs.begin() + (n <= kMaxFrags ? n : 0));
		return rc;
	}

	std::vector<uint32_t> alloc_ok(uint32_t len)
	{
		std::vector<uint32_t> out;

		EXPECT_EQ(alloc(len, &out), 0) << "length " << len;
		return out;
	}

	int release(uint32_t off) { return homa_pool_release(&s, off); }
	uint64_t avail() const { return homa_pool_avail_bytes(&s); }
	uint32_t refs(uint32_t i) const { return bpages[i].refs; }

	bool start_bit(uint32_t off) const
	{
		uint32_t slot = (off % kBpage) / kAlign;

		return (bpages[off / kBpage].starts[slot / 8] >> (slot % 8)) & 1;
	}

	int bits_set(uint32_t i) const
	{
		int n = 0;

		for (uint32_t b = 0; b < sizeof(bpages[i].starts); b++)
			n += __builtin_popcount(bpages[i].starts[b]);
		return n;
	}

	std::multiset<uint32_t> free_set() const
	{
		return std::multiset<uint32_t>(stack.begin(),
					       stack.begin() + s.num_free);
	}
};

/* A copy of everything the pool owns or points at. */
struct Snap {
	homa_pool_state s;
	std::vector<homa_bpage> bpages;
	std::vector<uint32_t> stack;

	explicit Snap(const Pool &p) : s(p.s), bpages(p.bpages), stack(p.stack) {}
};

::testing::AssertionResult unchanged(const Snap &a, const Pool &p)
{
	if (memcmp(&a.s, &p.s, sizeof(a.s)) != 0)
		return ::testing::AssertionFailure()
		       << "state struct changed: num_free " << a.s.num_free
		       << "->" << p.s.num_free << " partial " << a.s.partial
		       << "->" << p.s.partial << " partial_used "
		       << a.s.partial_used << "->" << p.s.partial_used;
	for (size_t i = 0; i < a.bpages.size(); i++)
		if (a.bpages[i].refs != p.bpages[i].refs ||
		    memcmp(a.bpages[i].starts, p.bpages[i].starts,
			   sizeof(a.bpages[i].starts)) != 0)
			return ::testing::AssertionFailure()
			       << "bpage " << i << " changed";
	if (a.stack != p.stack)
		return ::testing::AssertionFailure() << "free stack changed";
	return ::testing::AssertionSuccess();
}

std::vector<uint32_t> V(std::initializer_list<uint32_t> l) { return l; }

/* ---- header constants --------------------------------------------------- */

TEST(homa_pool, constants)
{
	EXPECT_EQ(HOMA_BPAGE_SIZE, 65536);
	EXPECT_EQ(HOMA_POOL_ALIGN, 256);
	EXPECT_EQ(HOMA_POOL_STARTS_BYTES, 32);
	EXPECT_EQ(sizeof(((homa_bpage *)nullptr)->starts), 32u);
	EXPECT_EQ(HOMA_POOL_NONE, kNone);
	EXPECT_EQ(HOMA_POOL_MAX_BPAGES, 65536);
	EXPECT_GE(HOMA_MAX_BPAGES, 16);
}

/* ---- homa_pool_state_init ----------------------------------------------- */

TEST(homa_pool, homa_pool_state_init__all_free)
{
	Pool p(5);

	EXPECT_EQ(p.s.num_bpages, 5u);
	EXPECT_EQ(p.s.bpages, p.bpages.data());
	EXPECT_EQ(p.s.free_stack, p.stack.data());
	EXPECT_EQ(p.s.num_free, 5u);
	EXPECT_EQ(p.s.partial, kNone);
	EXPECT_EQ(p.s.partial_used, 0u);
	for (uint32_t i = 0; i < 5; i++) {
		EXPECT_EQ(p.refs(i), 0u) << i;
		EXPECT_EQ(p.bits_set(i), 0) << i;
	}
	EXPECT_EQ(p.free_set(), std::multiset<uint32_t>({ 0, 1, 2, 3, 4 }));
	EXPECT_EQ(p.avail(), 5ull * kBpage);
}

TEST(homa_pool, homa_pool_state_init__lowest_index_first)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(kBpage), V({ 0 }));
	EXPECT_EQ(p.alloc_ok(kBpage), V({ 65536 }));
	EXPECT_EQ(p.alloc_ok(100), V({ 131072 }));
	EXPECT_EQ(p.alloc_ok(kBpage), V({ 196608 }));
}

TEST(homa_pool, homa_pool_state_init__zero_bpages)
{
	Pool p(0);

	EXPECT_EQ(p.s.num_bpages, 0u);
	EXPECT_EQ(p.s.num_free, 0u);
	EXPECT_EQ(p.avail(), 0u);
	EXPECT_EQ(p.alloc(1), -ENOMEM);
	EXPECT_EQ(p.alloc(kBpage), -ENOMEM);
	EXPECT_EQ(p.release(0), -EINVAL);
}

TEST(homa_pool, homa_pool_state_init__reinit_frees_everything)
{
	Pool p(3);

	p.alloc_ok(kBpage + 5);
	p.alloc_ok(300);
	homa_pool_state_init(&p.s, 3, p.bpages.data(), p.stack.data());
	EXPECT_EQ(p.s.num_free, 3u);
	EXPECT_EQ(p.s.partial, kNone);
	EXPECT_EQ(p.s.partial_used, 0u);
	for (uint32_t i = 0; i < 3; i++) {
		EXPECT_EQ(p.refs(i), 0u);
		EXPECT_EQ(p.bits_set(i), 0);
	}
	EXPECT_EQ(p.free_set(), std::multiset<uint32_t>({ 0, 1, 2 }));
}

TEST(homa_pool, homa_pool_state_init__clamps_to_4gib)
{
	/* One entry more than the limit: it must stay untouched. */
	Pool p(0);
	const uint32_t n = 65537;

	p.bpages.assign(n, homa_bpage());
	memset(p.bpages.data(), 0xa5, n * sizeof(homa_bpage));
	p.stack.assign(n, kSentinel);
	homa_pool_state_init(&p.s, n, p.bpages.data(), p.stack.data());
	EXPECT_EQ(p.s.num_bpages, 65536u);
	EXPECT_EQ(p.s.num_free, 65536u);
	EXPECT_EQ(p.stack[65536], kSentinel);
	EXPECT_EQ(p.bpages[65536].refs, 0xa5a5);
	EXPECT_EQ(p.avail(), kGiB4);

	/* The last bpage's offset still fits in a u32. */
	std::vector<uint32_t> seen(65536, 0);
	for (uint32_t i = 0; i < 65536; i++) {
		std::vector<uint32_t> o = p.alloc_ok(kBpage);
		ASSERT_EQ(o.size(), 1u);
		ASSERT_EQ(o[0] % kBpage, 0u);
		seen[o[0] / kBpage]++;
	}
	for (uint32_t i = 0; i < 65536; i++)
		ASSERT_EQ(seen[i], 1u) << i;
	EXPECT_EQ(p.alloc(1), -ENOMEM);
	EXPECT_EQ(p.release(0xffff0000u), 0);
	EXPECT_EQ(p.avail(), (uint64_t)kBpage);
}

/* ---- homa_pool_alloc_msg ------------------------------------------------ */

TEST(homa_pool, homa_pool_alloc_msg__bad_length)
{
	Pool p(20);

	p.alloc_ok(1000);
	Snap before(p);
	for (uint32_t len : { 0u, kMaxLen + 1, 1048576u, 0x7fffffffu,
			      0xffffffffu }) {
		EXPECT_EQ(p.alloc(len), -EINVAL) << len;
		EXPECT_TRUE(unchanged(before, p)) << len;
	}
}

TEST(homa_pool, homa_pool_alloc_msg__length_1)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(1), V({ 0 }));
	EXPECT_EQ(p.s.partial, 0u);
	EXPECT_EQ(p.s.partial_used, 256u);
	EXPECT_EQ(p.s.num_free, 3u);
	EXPECT_EQ(p.refs(0), 1u);
	EXPECT_TRUE(p.start_bit(0));
	EXPECT_EQ(p.bits_set(0), 1);
	EXPECT_EQ(p.avail(), 3ull * kBpage + 65280);
}

TEST(homa_pool, homa_pool_alloc_msg__length_256)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(256), V({ 0 }));
	EXPECT_EQ(p.s.partial_used, 256u);
	EXPECT_EQ(p.alloc_ok(257), V({ 256 }));
	EXPECT_EQ(p.s.partial_used, 768u);
	EXPECT_EQ(p.alloc_ok(1), V({ 768 }));
	EXPECT_EQ(p.refs(0), 3u);
}

TEST(homa_pool, homa_pool_alloc_msg__length_65535)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(65535), V({ 0 }));
	EXPECT_EQ(p.s.partial, 0u);
	EXPECT_EQ(p.s.partial_used, 65536u);
	EXPECT_EQ(p.avail(), 3ull * kBpage);
	/* The partial bpage is full: the next tail starts a new one. */
	EXPECT_EQ(p.alloc_ok(1), V({ 65536 }));
	EXPECT_EQ(p.s.partial, 1u);
	EXPECT_EQ(p.s.partial_used, 256u);
	EXPECT_EQ(p.s.num_free, 2u);
}

TEST(homa_pool, homa_pool_alloc_msg__length_65536)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(65536), V({ 0 }));
	EXPECT_EQ(p.s.partial, kNone);
	EXPECT_EQ(p.s.partial_used, 0u);
	EXPECT_EQ(p.s.num_free, 3u);
	EXPECT_EQ(p.refs(0), 1u);
	EXPECT_TRUE(p.start_bit(0));
	EXPECT_EQ(p.avail(), 3ull * kBpage);
}

TEST(homa_pool, homa_pool_alloc_msg__length_65537)
{
	Pool p(4);

	/* Whole bpage 0, then a 1-byte tail in a new partial bpage 1. */
	EXPECT_EQ(p.alloc_ok(65537), V({ 0, 65536 }));
	EXPECT_EQ(p.s.partial, 1u);
	EXPECT_EQ(p.s.partial_used, 256u);
	EXPECT_EQ(p.refs(0), 1u);
	EXPECT_EQ(p.refs(1), 1u);
	EXPECT_EQ(p.s.num_free, 2u);
	EXPECT_EQ(p.avail(), 2ull * kBpage + 65280);
}

TEST(homa_pool, homa_pool_alloc_msg__length_131072)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(131072), V({ 0, 65536 }));
	EXPECT_EQ(p.s.partial, kNone);
	EXPECT_EQ(p.s.num_free, 2u);
	EXPECT_EQ(p.avail(), 2ull * kBpage);
}

TEST(homa_pool, homa_pool_alloc_msg__length_1000000)
{
	Pool p(20);
	std::vector<uint32_t> want;

	/* 15 whole bpages (983040 bytes), then a 16960-byte tail. */
	for (uint32_t k = 0; k < 16; k++)
		want.push_back(k * kBpage);
	EXPECT_EQ(p.alloc_ok(1000000), want);
	EXPECT_EQ(p.s.partial, 15u);
	EXPECT_EQ(p.s.partial_used, 17152u);	/* 67 * 256 */
	EXPECT_EQ(p.s.num_free, 4u);
	for (uint32_t k = 0; k < 16; k++)
		EXPECT_EQ(p.refs(k), 1u) << k;
	EXPECT_EQ(p.avail(), 4ull * kBpage + 48384);
}

TEST(homa_pool, homa_pool_alloc_msg__tails_aligned_and_packed)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(1), V({ 0 }));		/* used 256 */
	EXPECT_EQ(p.alloc_ok(300), V({ 256 }));		/* used 768 */
	EXPECT_EQ(p.alloc_ok(255), V({ 768 }));		/* used 1024 */
	EXPECT_EQ(p.alloc_ok(1000), V({ 1024 }));	/* used 2048 */
	EXPECT_EQ(p.alloc_ok(256), V({ 2048 }));	/* used 2304 */
	EXPECT_EQ(p.s.partial_used, 2304u);
	EXPECT_EQ(p.refs(0), 5u);
	EXPECT_EQ(p.bits_set(0), 5);
	for (uint32_t o : { 0u, 256u, 768u, 1024u, 2048u })
		EXPECT_TRUE(p.start_bit(o)) << o;
	EXPECT_FALSE(p.start_bit(512));
	EXPECT_EQ(p.s.num_free, 3u);
}

TEST(homa_pool, homa_pool_alloc_msg__tail_after_whole_bpages_shares_partial)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(100), V({ 0 }));
	EXPECT_EQ(p.alloc_ok(kBpage + 100), V({ 65536, 256 }));
	EXPECT_EQ(p.alloc_ok(2 * kBpage + 10000), V({ 131072, 196608, 512 }));
	EXPECT_EQ(p.s.partial, 0u);
	EXPECT_EQ(p.s.partial_used, 10752u);	/* 512 + 40 * 256 */
	EXPECT_EQ(p.refs(0), 3u);
	EXPECT_EQ(p.s.num_free, 0u);
}

TEST(homa_pool, homa_pool_alloc_msg__exact_fill_of_partial)
{
	Pool p(3);

	EXPECT_EQ(p.alloc_ok(65280), V({ 0 }));
	EXPECT_EQ(p.alloc_ok(256), V({ 65280 }));
	EXPECT_EQ(p.s.partial_used, 65536u);
	EXPECT_EQ(p.avail(), 2ull * kBpage);
	EXPECT_EQ(p.alloc_ok(1), V({ 65536 }));
	EXPECT_EQ(p.s.partial, 1u);
}

TEST(homa_pool, homa_pool_alloc_msg__new_partial_when_tail_does_not_fit)
{
	Pool p(4);

	EXPECT_EQ(p.alloc_ok(40000), V({ 0 }));
	EXPECT_EQ(p.s.partial_used, 40192u);	/* 157 * 256 */
	/* 25344 bytes left: 30000 needs a new partial bpage. */
	EXPECT_EQ(p.alloc_ok(30000), V({ 65536 }));
	EXPECT_EQ(p.s.partial, 1u);
	EXPECT_EQ(p.s.partial_used, 30208u);	/* 118 * 256 */
	EXPECT_EQ(p.s.num_free, 2u);
	EXPECT_EQ(p.free_set().count(0), 0u);
	EXPECT_EQ(p.refs(0), 1u);
	EXPECT_EQ(p.avail(), 2ull * kBpage + (65536 - 30208));

	/* A tail that fits the new partial does not go back to bpage 0. */
	EXPECT_EQ(p.alloc_ok(1000), V({ 30208 + 65536 }));

	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.s.num_free, 3u);
	EXPECT_EQ(p.free_set().count(0), 1u);
	EXPECT_EQ(p.s.partial, 1u);
}

TEST(homa_pool, homa_pool_alloc_msg__old_partial_freed_after_last_fragment)
{
	Pool p(3);

	EXPECT_EQ(p.alloc_ok(20000), V({ 0 }));		/* used 20224 */
	EXPECT_EQ(p.alloc_ok(20000), V({ 20224 }));	/* used 40448 */
	EXPECT_EQ(p.alloc_ok(20000), V({ 40448 }));	/* used 60672 */
	EXPECT_EQ(p.alloc_ok(10000), V({ 65536 }));	/* 4864 left: new */
	EXPECT_EQ(p.s.partial, 1u);
	EXPECT_EQ(p.s.num_free, 1u);
	EXPECT_EQ(p.refs(0), 3u);

	EXPECT_EQ(p.release(20224), 0);
	EXPECT_EQ(p.s.num_free, 1u);
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.s.num_free, 1u);
	EXPECT_EQ(p.refs(0), 1u);
	EXPECT_EQ(p.release(40448), 0);
	EXPECT_EQ(p.s.num_free, 2u);
	EXPECT_EQ(p.free_set(), std::multiset<uint32_t>({ 0, 2 }));
	EXPECT_EQ(p.bits_set(0), 0);
	/* The stack's top is the bpage freed last. */
	EXPECT_EQ(p.alloc_ok(kBpage), V({ 0 }));
}

TEST(homa_pool, homa_pool_alloc_msg__partial_reused_from_start)
{
	Pool p(2);

	EXPECT_EQ(p.alloc_ok(1000), V({ 0 }));
	EXPECT_EQ(p.alloc_ok(2000), V({ 1024 }));
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.s.partial_used, 3072u);
	EXPECT_EQ(p.release(1024), 0);
	EXPECT_EQ(p.s.partial, 0u);
	EXPECT_EQ(p.s.partial_used, 0u);
	EXPECT_EQ(p.s.num_free, 1u);
	EXPECT_EQ(p.avail(), 2ull * kBpage);
	EXPECT_EQ(p.alloc_ok(500), V({ 0 }));
	EXPECT_EQ(p.s.num_free, 1u);
	EXPECT_EQ(p.s.partial_used, 512u);
}

TEST(homa_pool, homa_pool_alloc_msg__enomem_all_or_nothing)
{
	Pool p(3);

	EXPECT_EQ(p.alloc_ok(131072), V({ 0, 65536 }));
	Snap one_free(p);
	/* 3 whole + tail; 2 whole; 1 whole + a new partial: 1 free. */
	for (uint32_t len : { 200000u, 131072u, 65537u, kMaxLen }) {
		EXPECT_EQ(p.alloc(len), -ENOMEM) << len;
		EXPECT_TRUE(unchanged(one_free, p)) << len;
	}
	EXPECT_EQ(p.alloc_ok(kBpage), V({ 131072 }));
	Snap none_free(p);
	for (uint32_t len : { 1u, 65535u, 65536u }) {
		EXPECT_EQ(p.alloc(len), -ENOMEM) << len;
		EXPECT_TRUE(unchanged(none_free, p)) << len;
	}
}

TEST(homa_pool, homa_pool_alloc_msg__enomem_when_tail_needs_new_bpage)
{
	Pool p(2);

	EXPECT_EQ(p.alloc_ok(65000), V({ 0 }));		/* used 65024 */
	EXPECT_EQ(p.alloc_ok(kBpage), V({ 65536 }));
	Snap before(p);
	EXPECT_EQ(p.alloc(1000), -ENOMEM);		/* 512 left */
	EXPECT_TRUE(unchanged(before, p));
	EXPECT_EQ(p.alloc(kBpage + 1), -ENOMEM);
	EXPECT_TRUE(unchanged(before, p));
	EXPECT_EQ(p.alloc_ok(512), V({ 65024 }));
}

TEST(homa_pool, homa_pool_alloc_msg__exact_fit_of_whole_pool)
{
	Pool p(16);

	EXPECT_EQ(p.alloc_ok(kMaxLen).size(), 16u);
	EXPECT_EQ(p.s.num_free, 0u);
	EXPECT_EQ(p.avail(), 48384u);
	Pool q(15);
	EXPECT_EQ(q.alloc(kMaxLen), -ENOMEM);
	EXPECT_EQ(q.alloc_ok(15 * kBpage).size(), 15u);
}

TEST(homa_pool, homa_pool_alloc_msg__idle_partial_taken_as_whole_bpage)
{
	Pool p(2);

	EXPECT_EQ(p.alloc_ok(100), V({ 0 }));
	Snap busy(p);
	EXPECT_EQ(p.alloc(131072), -ENOMEM);	/* partial in use */
	EXPECT_TRUE(unchanged(busy, p));
	EXPECT_EQ(p.release(0), 0);		/* partial now idle */
	EXPECT_EQ(p.avail(), 131072u);

	std::vector<uint32_t> o = p.alloc_ok(131072);
	EXPECT_EQ(std::set<uint32_t>(o.begin(), o.end()),
		  std::set<uint32_t>({ 0, 65536 }));
	EXPECT_EQ(p.s.partial, kNone);
	EXPECT_EQ(p.s.partial_used, 0u);
	EXPECT_EQ(p.s.num_free, 0u);
	EXPECT_EQ(p.avail(), 0u);
	EXPECT_EQ(p.refs(0), 1u);
	EXPECT_EQ(p.refs(1), 1u);
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.release(65536), 0);
	EXPECT_EQ(p.s.num_free, 2u);
	EXPECT_EQ(p.avail(), 131072u);
}

TEST(homa_pool, homa_pool_alloc_msg__idle_partial_not_taken_needlessly)
{
	Pool p(3);

	EXPECT_EQ(p.alloc_ok(100), V({ 0 }));
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.alloc_ok(131072), V({ 65536, 131072 }));
	EXPECT_EQ(p.s.partial, 0u);
	EXPECT_EQ(p.s.partial_used, 0u);
	/* A tail still goes to the idle partial... */
	EXPECT_EQ(p.alloc_ok(10), V({ 0 }));
	EXPECT_EQ(p.release(0), 0);
	/* ...even when a whole bpage can't be had: 1 + tail. */
	EXPECT_EQ(p.release(65536), 0);
	EXPECT_EQ(p.alloc_ok(kBpage + 10), V({ 65536, 0 }));
	/* Two whole bpages: one free, the partial busy. */
	Snap before(p);
	EXPECT_EQ(p.alloc(2 * kBpage), -ENOMEM);
	EXPECT_TRUE(unchanged(before, p));
}

TEST(homa_pool, homa_pool_alloc_msg__one_bpage_region)
{
	Pool p(1);

	EXPECT_EQ(p.alloc_ok(100), V({ 0 }));
	EXPECT_EQ(p.alloc(kBpage), -ENOMEM);
	EXPECT_EQ(p.alloc_ok(100), V({ 256 }));
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.release(256), 0);
	/* Once everything is back the whole region is usable again. */
	EXPECT_EQ(p.alloc_ok(kBpage), V({ 0 }));
	EXPECT_EQ(p.s.partial, kNone);
	EXPECT_EQ(p.alloc(1), -ENOMEM);
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.alloc_ok(65535), V({ 0 }));
}

TEST(homa_pool, homa_pool_alloc_msg__most_fragments_in_one_bpage)
{
	Pool p(1);

	for (uint32_t k = 0; k < 256; k++)
		ASSERT_EQ(p.alloc_ok(1 + k % 256), V({ k * 256 })) << k;
	EXPECT_EQ(p.refs(0), 256u);
	EXPECT_EQ(p.bits_set(0), 256);
	EXPECT_EQ(p.avail(), 0u);
	EXPECT_EQ(p.alloc(1), -ENOMEM);
	for (uint32_t k = 0; k < 256; k++)
		ASSERT_EQ(p.release(k * 256), 0) << k;
	EXPECT_EQ(p.refs(0), 0u);
	EXPECT_EQ(p.s.partial_used, 0u);
	EXPECT_EQ(p.avail(), (uint64_t)kBpage);
}

/* ---- homa_pool_release -------------------------------------------------- */

TEST(homa_pool, homa_pool_release__whole_bpage_back_on_free_stack)
{
	Pool p(2);

	EXPECT_EQ(p.alloc_ok(kBpage), V({ 0 }));
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.s.num_free, 2u);
	EXPECT_EQ(p.refs(0), 0u);
	EXPECT_EQ(p.bits_set(0), 0);
	EXPECT_EQ(p.free_set(), std::multiset<uint32_t>({ 0, 1 }));
	EXPECT_EQ(p.avail(), 131072u);
}

TEST(homa_pool, homa_pool_release__clears_only_its_bit)
{
	Pool p(1);

	p.alloc_ok(10);
	p.alloc_ok(10);
	p.alloc_ok(10);
	EXPECT_EQ(p.release(256), 0);
	EXPECT_EQ(p.refs(0), 2u);
	EXPECT_TRUE(p.start_bit(0));
	EXPECT_FALSE(p.start_bit(256));
	EXPECT_TRUE(p.start_bit(512));
	EXPECT_EQ(p.s.partial_used, 768u);	/* not reset while refs > 0 */
}

/* Pool of 3: whole bpage 0, partial bpage 1 with tails at 0 and 256. */
Pool *three_with_fragments()
{
	Pool *p = new Pool(3);

	EXPECT_EQ(p->alloc_ok(kBpage), V({ 0 }));
	EXPECT_EQ(p->alloc_ok(100), V({ 65536 }));
	EXPECT_EQ(p->alloc_ok(300), V({ 65792 }));
	return p;
}

TEST(homa_pool, homa_pool_release__out_of_range)
{
	std::unique_ptr<Pool> p(three_with_fragments());
	Snap before(*p);

	for (uint32_t off : { 196608u, 196608u + 256, 262144u, 0xffff0000u,
			      0xffffff00u, 0xffffffffu, 0x80000000u }) {
		EXPECT_EQ(p->release(off), -EINVAL) << off;
		EXPECT_TRUE(unchanged(before, *p)) << off;
	}
}

TEST(homa_pool, homa_pool_release__misaligned)
{
	std::unique_ptr<Pool> p(three_with_fragments());
	Snap before(*p);

	for (uint32_t off : { 1u, 128u, 255u, 65536u + 1, 65792u + 128,
			      65536u + 255, 32768u + 64 }) {
		EXPECT_EQ(p->release(off), -EINVAL) << off;
		EXPECT_TRUE(unchanged(before, *p)) << off;
	}
}

TEST(homa_pool, homa_pool_release__never_allocated)
{
	std::unique_ptr<Pool> p(three_with_fragments());
	Snap before(*p);

	/* Inside the whole bpage, past the tails, in the free bpage. */
	for (uint32_t off : { 256u, 32768u, 65280u, 66048u, 65536u + 65280,
			      131072u, 131072u + 256 }) {
		EXPECT_EQ(p->release(off), -EINVAL) << off;
		EXPECT_TRUE(unchanged(before, *p)) << off;
	}
}

TEST(homa_pool, homa_pool_release__twice)
{
	std::unique_ptr<Pool> p(three_with_fragments());

	for (uint32_t off : { 65792u, 0u, 65536u }) {
		EXPECT_EQ(p->release(off), 0) << off;
		Snap after_first(*p);
		EXPECT_EQ(p->release(off), -EINVAL) << off;
		EXPECT_TRUE(unchanged(after_first, *p)) << off;
	}
	EXPECT_EQ(p->s.num_free, 2u);
	EXPECT_EQ(p->s.partial, 1u);
	EXPECT_EQ(p->avail(), 3ull * kBpage);
}

/* ---- homa_pool_avail_bytes ---------------------------------------------- */

TEST(homa_pool, homa_pool_avail_bytes__accounting)
{
	Pool p(4);

	EXPECT_EQ(p.avail(), 262144u);
	p.alloc_ok(1);
	EXPECT_EQ(p.avail(), 3ull * kBpage + 65280);
	p.alloc_ok(kBpage);
	EXPECT_EQ(p.avail(), 2ull * kBpage + 65280);
	/* Whole bpage + 4464-byte tail (4608 with alignment) in partial. */
	p.alloc_ok(70000);
	EXPECT_EQ(p.avail(), 1ull * kBpage + 65280 - 4608);
	EXPECT_EQ(p.release(0), 0);
	EXPECT_EQ(p.release(65536), 0);
	EXPECT_EQ(p.release(131072), 0);
	EXPECT_EQ(p.avail(), 3ull * kBpage + 65280 - 4608);
	EXPECT_EQ(p.release(256), 0);
	EXPECT_EQ(p.avail(), 262144u);
}

TEST(homa_pool, homa_pool_avail_bytes__old_partial_not_counted)
{
	Pool p(2);

	p.alloc_ok(60000);			/* 5376 left in bpage 0 */
	p.alloc_ok(10000);			/* new partial: bpage 1 */
	EXPECT_EQ(p.avail(), (uint64_t)(65536 - 10240));
}

/* ---- homa_pool_bpages_needed -------------------------------------------- */

TEST(homa_pool, homa_pool_bpages_needed__lengths)
{
	const struct {
		uint32_t len, want;
	} cases[] = {
		{ 0, 0 }, { 1, 1 }, { 256, 1 }, { 65535, 1 }, { 65536, 1 },
		{ 65537, 2 }, { 131072, 2 }, { 131073, 3 }, { 983040, 15 },
		{ 1000000, 16 }, { 0xffffffffu, 65536 },
	};

	for (const auto &c : cases)
		EXPECT_EQ(homa_pool_bpages_needed(c.len), c.want) << c.len;
}

/* ---- homa_pool_copy_due -------------------------------------------------- */

/*
 * The batch is the configured copy_batch, but at least two of the
 * message's largest packets: one 64 KB packet alone does not make a batch
 * of 32 KB, two do.
 */
TEST(homa_pool, homa_pool_copy_due__cases)
{
	const struct {
		const char *why;
		uint32_t queued, remaining, batch, pkt_max;
		bool want;
	} cases[] = {
		{ "a batch of an incomplete message", 32768, 1, 32768, 1500,
		  true },
		{ "more than a batch", 50000, 400000, 32768, 10000, true },
		{ "a byte short of a batch", 32767, 400000, 32768, 1500,
		  false },
		{ "nothing queued", 0, 400000, 32768, 0, false },
		{ "complete: recvmsg takes it whole", 500000, 0, 32768, 10000,
		  false },
		{ "copy_batch 0: never early", 500000, 1, 0, 1500, false },
		{ "batch 1, no packet size yet", 1, 1, 1, 0, true },
		{ "batch 1, one packet", 1400, 1, 1, 1400, false },
		{ "batch 1, two packets", 2800, 1, 1, 1400, true },
		{ "one 64 KB packet", 65000, 400000, 32768, 65000, false },
		{ "a byte short of two 64 KB packets", 129999, 400000, 32768,
		  65000, false },
		{ "two 64 KB packets", 130000, 400000, 32768, 65000, true },
		{ "small packets: the batch decides (under)", 30000, 400000,
		  32768, 10000, false },
		{ "small packets: the batch decides (over)", 40000, 400000,
		  32768, 10000, true },
		{ "a batch larger than two packets stays", 130000, 400000,
		  200000, 65000, false },
		{ "a byte short of two 65535-byte packets", 131069, 400000,
		  32768, 65535, false },
		{ "two 65535-byte packets", 131070, 400000, 32768, 65535,
		  true },
		{ "no overflow: twice 0xffffffff", 0xffffffffU, 1, 1,
		  0xffffffffU, false },
		{ "no overflow: twice 0x7fffffff", 0xffffffffU, 1, 1,
		  0x7fffffffU, true },
	};

	for (const auto &c : cases)
		EXPECT_EQ(homa_pool_copy_due(c.queued, c.remaining, c.batch,
					     c.pkt_max), c.want) << c.why;
}

/* ---- homa_pool_share_ok ------------------------------------------------- */

TEST(homa_pool, homa_pool_share_ok__cases)
{
	const struct {
		uint32_t num;
		int pct;
		uint32_t held, len;
		bool want;
	} cases[] = {
		/* No limit, or a peer holding nothing: always. */
		{ 1000, 0, 999, 1000000, true },
		{ 1000, 50, 0, 0xffffffffu, true },
		/* 50% of 1000 bpages: 500. */
		{ 1000, 50, 499, 1, true },
		{ 1000, 50, 499, 65536, true },
		{ 1000, 50, 499, 65537, false },
		{ 1000, 50, 500, 1, false },
		{ 1000, 50, 484, 1000000, true },
		{ 1000, 50, 485, 1000000, false },
		/* The share rounds down: 33% of 10 bpages is 3. */
		{ 10, 33, 2, 1, true },
		{ 10, 33, 3, 1, false },
		{ 10, 100, 9, 65536, true },
		{ 10, 100, 10, 1, false },
		/* No overflow at the largest pool. */
		{ 65536, 100, 65535, 65536, true },
		{ 65536, 100, 65535, 65537, false },
	};

	for (const auto &c : cases)
		EXPECT_EQ(homa_pool_share_ok(c.num, c.pct, c.held, c.len),
			  c.want)
			<< c.num << " " << c.pct << " " << c.held << " "
			<< c.len;
}

TEST(homa_pool, homa_pool_share_ok__random_against_model)
{
	uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);

	for (int i = 0; i < 100000; i++) {
		uint32_t num = (uint32_t)(rng() % 65537);
		int pct = (int)(rng() % 101);
		uint32_t held = (uint32_t)(rng() % (num + 2));
		uint32_t len = (uint32_t)(rng() % 2000000);
		/* Whole bpages the message spans, counted byte by byte. */
		uint64_t need = len / 65536 + (len % 65536 ? 1 : 0);
		bool want = pct == 0 || held == 0 ||
			    100 * ((uint64_t)held + need) <= (uint64_t)num * pct;

		ASSERT_EQ(homa_pool_share_ok(num, pct, held, len), want)
			<< "seed " << seed << " " << num << " " << pct << " "
			<< held << " " << len;
	}
}

/* ---- homa_pool_check_region --------------------------------------------- */

struct Region {
	uint64_t start, length, page;
};

int check(const Region &r, uint32_t *n)
{
	*n = kSentinel;
	return homa_pool_check_region(r.start, r.length, r.page, n);
}

TEST(homa_pool, homa_pool_check_region__valid)
{
	const struct {
		Region r;
		uint32_t want;
	} cases[] = {
		{ { 0x10000000, 65536, 4096 }, 1 },		/* one bpage */
		{ { 0x1000, 65536, 4096 }, 1 },
		{ { 0x7f0000000000, 40 * 65536, 4096 }, 40 },
		{ { 0x4000, 65536, 16384 }, 1 },
		{ { 0x200000, 65536, 0x200000 }, 1 },
		{ { 0x1000, 65536, 1 }, 1 },
		{ { 0x1000, kGiB4, 4096 }, 65536 },		/* 4 GiB */
		{ { 0xfffffffffffe0000ull, 65536, 4096 }, 1 },	/* ends below 2^64 - 1 */
		{ { 0xffffffffffff0000ull - kGiB4, kGiB4, 4096 }, 65536 },
	};
	uint32_t n;

	for (const auto &c : cases) {
		EXPECT_EQ(check(c.r, &n), 0) << c.r.start << " " << c.r.length;
		EXPECT_EQ(n, c.want) << c.r.start << " " << c.r.length;
	}
}

TEST(homa_pool, homa_pool_check_region__extra_tail_bytes_unused)
{
	uint32_t n;

	EXPECT_EQ(check({ 0x1000, 131071, 4096 }, &n), 0);
	EXPECT_EQ(n, 1u);
	EXPECT_EQ(check({ 0x1000, 3 * 65536 + 4095, 4096 }, &n), 0);
	EXPECT_EQ(n, 3u);
	EXPECT_EQ(check({ 0x1000, 65536 + 1, 4096 }, &n), 0);
	EXPECT_EQ(n, 1u);
}

TEST(homa_pool, homa_pool_check_region__invalid)
{
	const Region bad[] = {
		{ 0, 65536, 4096 },				/* null */
		{ 0, kGiB4, 4096 },
		{ 0x1001, 65536, 4096 },			/* misaligned */
		{ 0x1800, 65536, 4096 },
		{ 4095, 65536, 4096 },
		{ 0x1000, 65536, 16384 },
		{ 0x1000, 0, 4096 },				/* too small */
		{ 0x1000, 1, 4096 },
		{ 0x1000, 65535, 4096 },
		{ 0x1000, kGiB4 + 1, 4096 },			/* too large */
		{ 0x1000, kGiB4 + 65536, 4096 },
		{ 0x1000, 1ull << 63, 4096 },
		{ 0x1000, ~0ull, 4096 },
		{ 0xfffffffffffff000ull, 65536, 4096 },	/* wraps */
		{ 0xffffffffffff0000ull, 65536, 4096 },	/* ends at 2^64 */
		{ 0xffffffff00000000ull, kGiB4, 4096 },
		{ 0x8000000000000000ull, ~0ull - 4095, 4096 },
		{ 0x1000, 65536, 0 },				/* page size */
		{ 0x1000, 65536, 3 },
		{ 0x3000, 65536, 0x3000 },
		{ 0x1000, 65536, 4097 },
	};
	uint32_t n;

	for (const Region &r : bad) {
		EXPECT_EQ(check(r, &n), -EINVAL)
			<< r.start << " " << r.length << " " << r.page;
		EXPECT_EQ(n, kSentinel);
	}
}

/* ---- random operations against a naive model ---------------------------- */

/*
 * The model keeps its own idea of every bpage: free (a set), the partial
 * bpage and its fill level, references and start offsets, plus every
 * fragment handed out as a byte range. It decides independently whether a
 * message fits: completely empty bpages are the free ones plus an idle
 * partial; a tail goes at the partial's fill level when a busy partial has
 * room for it, otherwise it needs an empty bpage of its own (an idle
 * partial is filled from its start).
 */
class Model {
public:
	explicit Model(uint32_t n) : n_(n), refs_(n, 0), starts_(n)
	{
		for (uint32_t i = 0; i < n; i++)
			free_.insert(i);
	}

	bool idle_partial() const
	{
		return partial_ != kNone && refs_[partial_] == 0;
	}

	/* Whether alloc of @len must succeed (true) or give ENOMEM. */
	bool fits(uint32_t len) const
	{
		uint32_t whole = len / kBpage, tail = len % kBpage;
		uint64_t empty = free_.size() + (idle_partial() ? 1 : 0);
		uint32_t busy_room = partial_ != kNone && refs_[partial_] > 0 ?
				     kBpage - used_ : 0;

		if (tail > 0 && tail <= busy_room)
			return whole <= empty;
		return whole + (tail > 0 ? 1 : 0) <= empty;
	}

	uint64_t avail() const
	{
		uint64_t a = (uint64_t)free_.size() * kBpage;

		if (partial_ != kNone)
			a += kBpage - used_;
		return a;
	}

	/* Checks an allocation's result and records it; "" if all is well. */
	std::string take(uint32_t len, const std::vector<uint32_t> &offs)
	{
		uint32_t whole = len / kBpage, tail = len % kBpage;
		std::set<uint32_t> allowed = free_;
		bool steal_idle = tail == 0 && whole > free_.size();

		if (offs.size() != whole + (tail > 0 ? 1 : 0))
			return "wrong fragment count " +
			       std::to_string(offs.size());
		if (steal_idle) {
			if (!idle_partial())
				return "model: nowhere to take a bpage from";
			allowed.insert(partial_);
			partial_ = kNone;
			used_ = 0;
		}
		for (uint32_t i = 0; i < whole; i++) {
			uint32_t b = offs[i] / kBpage;

			if (offs[i] % kBpage != 0)
				return "whole fragment not bpage-aligned";
			if (b >= n_ || !allowed.count(b))
				return "whole fragment in bpage " +
				       std::to_string(b) + " that wasn't free";
			allowed.erase(b);
			free_.erase(b);
			std::string e = add(offs[i], kBpage);
			if (!e.empty())
				return e;
		}
		if (tail > 0) {
			uint32_t want_used, o = offs[whole];

			if (partial_ != kNone && tail <= kBpage - used_) {
				if (o != partial_ * kBpage + used_)
					return "tail at " + std::to_string(o) +
					       ", expected " + std::to_string(
					       partial_ * kBpage + used_);
				want_used = used_;
			} else {
				uint32_t b = o / kBpage;

				if (o % kBpage != 0 || b >= n_ ||
				    !allowed.count(b))
					return "new partial at bad offset " +
					       std::to_string(o);
				free_.erase(b);
				partial_ = b;
				want_used = 0;
				new_partials++;
			}
			used_ = want_used + (tail + kAlign - 1) / kAlign * kAlign;
			std::string e = add(o, tail);
			if (!e.empty())
				return e;
		}
		return "";
	}

	/* Whether @off is a fragment out; if so, returns it to the model. */
	bool give_back(uint32_t off)
	{
		auto it = out_.find(off);

		if (it == out_.end())
			return false;
		uint32_t b = off / kBpage, slot = off % kBpage / kAlign;

		out_.erase(it);
		for (size_t i = 0; i < list_.size(); i++)
			if (list_[i] == off) {
				list_[i] = list_.back();
				list_.pop_back();
				break;
			}
		refs_[b]--;
		starts_[b][slot / 8] &= (uint8_t)~(1u << (slot % 8));
		if (refs_[b] == 0) {
			if (b == partial_) {
				used_ = 0;
				partial_reuses++;
			} else {
				free_.insert(b);
			}
		}
		return true;
	}

	/* Compares the pool with the model; "" if they agree. */
	std::string compare(const Pool &p) const
	{
		const homa_pool_state &s = p.s;
		std::vector<int> on_stack(n_, 0);
		uint64_t total_refs = 0;

		if (s.num_bpages != n_ || s.bpages != p.bpages.data() ||
		    s.free_stack != p.stack.data())
			return "num_bpages or array pointers changed";
		if (s.num_free > n_)
			return "num_free " + std::to_string(s.num_free);
		for (uint32_t i = 0; i < s.num_free; i++) {
			uint32_t b = s.free_stack[i];

			if (b >= n_)
				return "free stack holds " + std::to_string(b);
			if (on_stack[b]++)
				return "bpage " + std::to_string(b) +
				       " twice on the free stack";
			if (b == s.partial)
				return "partial bpage on the free stack";
		}
		if (s.num_free != free_.size())
			return "num_free " + std::to_string(s.num_free) +
			       ", model " + std::to_string(free_.size());
		for (uint32_t b : free_)
			if (!on_stack[b])
				return "bpage " + std::to_string(b) +
				       " should be free";
		if (s.partial != partial_ || s.partial_used != used_)
			return "partial " + std::to_string(s.partial) + "/" +
			       std::to_string(s.partial_used) + ", model " +
			       std::to_string(partial_) + "/" +
			       std::to_string(used_);
		if (s.partial_used % kAlign != 0 || s.partial_used > kBpage ||
		    (s.partial == kNone && s.partial_used != 0))
			return "bad partial_used";
		if (s.partial != kNone && s.partial >= n_)
			return "partial out of range";
		for (uint32_t b = 0; b < n_; b++) {
			const homa_bpage &bp = p.bpages[b];
			int states = on_stack[b] +
				     (bp.refs > 0 || b == s.partial ? 1 : 0);

			if (states != 1)
				return "bpage " + std::to_string(b) +
				       " is free and in use, or neither";
			if (bp.refs != refs_[b])
				return "bpage " + std::to_string(b) + " refs " +
				       std::to_string(bp.refs) + ", model " +
				       std::to_string(refs_[b]);
			if (memcmp(bp.starts, starts_[b].data(), 32) != 0)
				return "bpage " + std::to_string(b) +
				       " start bits differ" +
				       unit::hex(bp.starts, 32);
			total_refs += bp.refs;
		}
		if (total_refs != out_.size())
			return "sum of refs " + std::to_string(total_refs) +
			       ", fragments out " + std::to_string(out_.size());
		if (homa_pool_avail_bytes(&s) != avail())
			return "avail " + std::to_string(
			       homa_pool_avail_bytes(&s)) + ", model " +
			       std::to_string(avail());
		return "";
	}

	const std::vector<uint32_t> &outstanding() const { return list_; }
	std::vector<uint32_t> returned;	/* offsets given back, for replays */
	uint64_t new_partials = 0, partial_reuses = 0;

private:
	/* Records fragment [@off, @off + @len); checks it overlaps nothing. */
	std::string add(uint32_t off, uint32_t len)
	{
		uint64_t end = (uint64_t)off + len;
		uint32_t b = off / kBpage, slot = off % kBpage / kAlign;

		if (off % kAlign != 0)
			return "fragment not aligned";
		if (end > (uint64_t)n_ * kBpage)
			return "fragment past the region";
		if (off % kBpage + len > kBpage)
			return "fragment crosses a bpage boundary";
		auto next = out_.lower_bound(off);
		if (next != out_.end() && next->first < end)
			return "fragment overlaps the one at " +
			       std::to_string(next->first);
		if (next != out_.begin()) {
			auto prev = std::prev(next);
			if ((uint64_t)prev->first + prev->second > off)
				return "fragment overlaps the one at " +
				       std::to_string(prev->first);
		}
		out_[off] = len;
		list_.push_back(off);
		refs_[b]++;
		starts_[b][slot / 8] |= (uint8_t)(1u << (slot % 8));
		return "";
	}

	uint32_t n_;
	std::set<uint32_t> free_;
	uint32_t partial_ = kNone;
	uint32_t used_ = 0;
	std::vector<uint32_t> refs_;
	std::vector<std::array<uint8_t, 32>> starts_;
	std::map<uint32_t, uint32_t> out_;
	std::vector<uint32_t> list_;
};

/* Message lengths skewed toward small ones, with every kind of edge. */
uint32_t random_length(std::mt19937_64 &rng)
{
	uint32_t r = rng() % 100;

	if (r < 40)
		return 1 + rng() % 2000;
	if (r < 60)
		return 1 + rng() % 65536;
	if (r < 70)
		return (1 + rng() % 15) * kBpage;
	if (r < 75) {
		const uint32_t edges[] = { 1, 255, 256, 257, 65280, 65535,
					   65536, 65537, 131072, kMaxLen };
		return edges[rng() % 10];
	}
	if (r < 77)
		return rng() % 2 ? 0 : kMaxLen + 1 + (uint32_t)rng() % 1000;
	return 1 + rng() % kMaxLen;
}

struct RunStats {
	uint64_t allocs = 0, enomem = 0, einval = 0, releases = 0, bogus = 0;
	uint64_t stolen = 0, new_partials = 0, partial_reuses = 0;
};

/*
 * @iterations random steps on a pool of @n bpages: allocations of random
 * lengths, releases of random fragments out, and bogus releases; after
 * every step the pool must agree with the model.
 */
void random_run(uint32_t n, int iterations, RunStats *st)
{
	const uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	Pool p(n);
	Model m(n);
	uint64_t &allocs = st->allocs, &enomem = st->enomem;
	uint64_t &einval = st->einval, &releases = st->releases;
	uint64_t &bogus = st->bogus, &stolen = st->stolen;

	printf("homa_pool random ops, %u bpages: %s\n", n,
	       unit::seed_msg(seed).c_str());
	SCOPED_TRACE(unit::seed_msg(seed));
	for (int iter = 0; iter < iterations &&
			     !::testing::Test::HasFailure(); iter++) {
		uint32_t r = rng() % 100;
		/* Lean toward releasing when many fragments are out. */
		uint32_t alloc_pct = m.outstanding().size() > 600 ? 30 : 55;

		SCOPED_TRACE("step " + std::to_string(iter));
		if (r < alloc_pct) {
			uint32_t len = random_length(rng);
			std::vector<uint32_t> offs;
			bool valid = len >= 1 && len <= kMaxLen;
			bool room = valid && m.fits(len);
			bool steal = room && len % kBpage == 0 &&
				     len / kBpage > p.s.num_free;
			Snap before(p);
			int rc = p.alloc(len, &offs);

			if (!valid) {
				ASSERT_EQ(rc, -EINVAL) << "len " << len;
				ASSERT_TRUE(unchanged(before, p));
				einval++;
			} else if (!room) {
				ASSERT_EQ(rc, -ENOMEM) << "len " << len;
				ASSERT_TRUE(unchanged(before, p));
				/* The kernel may wait on bpages_needed. */
				ASSERT_GT(homa_pool_bpages_needed(len),
					  before.s.num_free);
				enomem++;
			} else {
				ASSERT_EQ(rc, 0) << "len " << len << " avail "
						 << m.avail();
				ASSERT_EQ(m.take(len, offs), "") << "len " << len;
				allocs++;
				stolen += steal;
			}
		} else if (r < 96 && !m.outstanding().empty()) {
			const std::vector<uint32_t> &out = m.outstanding();
			uint32_t off = out[rng() % out.size()];

			ASSERT_EQ(p.release(off), 0) << "offset " << off;
			ASSERT_TRUE(m.give_back(off));
			if (m.returned.size() < 64)
				m.returned.push_back(off);
			else
				m.returned[rng() % 64] = off;
			releases++;
		} else {
			uint32_t off, k = rng() % 6;
			const std::vector<uint32_t> &out = m.outstanding();

			if (k == 0 || (k == 1 && m.returned.empty()) ||
			    (k >= 2 && out.empty()))
				off = (uint32_t)rng();
			else if (k == 1)
				off = m.returned[rng() % m.returned.size()];
			else if (k == 2)
				off = out[rng() % out.size()] +
				      1 + (uint32_t)rng() % 255;
			else if (k == 3)
				off = out[rng() % out.size()] +
				      kAlign * (1 + (uint32_t)rng() % 255);
			else if (k == 4)
				off = (uint32_t)(rng() % (n + 2)) * kBpage +
				      (uint32_t)(rng() % 256) * kAlign;
			else
				off = n * kBpage + (uint32_t)rng() % 0x10000000;
			Snap before(p);
			int rc = p.release(off);

			if (m.give_back(off)) {
				/* By chance a real fragment: fine. */
				ASSERT_EQ(rc, 0) << "offset " << off;
				releases++;
			} else {
				ASSERT_EQ(rc, -EINVAL) << "offset " << off;
				ASSERT_TRUE(unchanged(before, p))
					<< "offset " << off;
				bogus++;
			}
		}
		ASSERT_EQ(m.compare(p), "");
	}
	st->new_partials = m.new_partials;
	st->partial_reuses = m.partial_reuses;
	printf("homa_pool random ops: %llu allocs, %llu ENOMEM, %llu EINVAL, "
	       "%llu releases, %llu bogus, %llu new partials, %llu partial "
	       "reuses, %llu idle partials taken\n",
	       (unsigned long long)allocs, (unsigned long long)enomem,
	       (unsigned long long)einval, (unsigned long long)releases,
	       (unsigned long long)bogus, (unsigned long long)m.new_partials,
	       (unsigned long long)m.partial_reuses,
	       (unsigned long long)stolen);
}

TEST(homa_pool, homa_pool__random_ops_against_model)
{
	RunStats st;

	random_run(40, 200000, &st);
	/* The run must have reached every interesting state. */
	EXPECT_GT(st.allocs, 10000u);
	EXPECT_GT(st.enomem, 1000u);
	EXPECT_GT(st.einval, 100u);
	EXPECT_GT(st.bogus, 1000u);
	EXPECT_GT(st.new_partials, 100u);
	EXPECT_GT(st.partial_reuses, 10u);
}

TEST(homa_pool, homa_pool__random_ops_small_pool)
{
	RunStats st;

	/* Few bpages: an idle partial is often the only way to fit. */
	random_run(3, 50000, &st);
	EXPECT_GT(st.allocs, 5000u);
	EXPECT_GT(st.enomem, 1000u);
	EXPECT_GT(st.partial_reuses, 100u);
	EXPECT_GT(st.stolen, 10u);
}

} /* namespace */
