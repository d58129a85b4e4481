// SPDX-License-Identifier: GPL-2.0+
/*
 * test_homa_timer_policy.cc - unit tests for homa_timer_policy.c, in the
 * order of its functions. The random test drives the probe state and a
 * naive model side by side: the model keeps the whole history of events
 * and ticks and works out every quantity (silence, time since the last
 * probe, unanswered probes, BUSY backoff, stall) from scratch by walking
 * it backwards, instead of keeping counters.
 */

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "homa_timer_policy.h"
}

#include "unit_util.h"

namespace {

struct Probe {
	homa_probe p;

	Probe()
	{
		memset(&p, 0x5a, sizeof(p));
		homa_probe_init(&p);
	}
	homa_probe_action tick(const homa_probe_view &v,
			       const homa_probe_params &par, int ms)
	{
		return homa_probe_tick(&p, &v, &par, ms);
	}
};

homa_probe_params params(int timeout, int stall, int wait, int interval,
			 int busy = -1, int drain = 0, int outranked = INT_MAX)
{
	homa_probe_params par;

	par.outranked_ms = outranked;
	par.timeout_ms = timeout;
	par.stall_ms = stall;
	par.wait_ms = wait;
	par.interval_ms = interval;
	par.busy_ms = busy < 0 ? interval : busy;
	par.drain_ms = drain;
	return par;
}

homa_probe_view view(bool receiving, bool held, bool nothing_yet,
		     bool peer_silent, bool grant_wait = false)
{
	homa_probe_view v;

	v.receiving = receiving;
	v.held = held;
	v.outranked = false;
	v.granted_all = false;
	v.grant_wait = grant_wait;
	v.nothing_yet = nothing_yet;
	v.peer_silent = peer_silent;
	return v;
}

/* Tick 1 ms at a time until the action is not NONE; returns the ms. */
int ms_until(Probe &pr, const homa_probe_view &v,
	     const homa_probe_params &par, homa_probe_action *act, int max)
{
	for (int ms = 1; ms <= max; ms++) {
		*act = pr.tick(v, par, 1);
		if (*act != HOMA_PROBE_NONE)
			return ms;
	}
	*act = HOMA_PROBE_NONE;
	return -1;
}

TEST(homa_probe_init, zeroes_everything)
{
	Probe pr;

	EXPECT_EQ(pr.p.silent_ms, 0);
	EXPECT_EQ(pr.p.since_probe_ms, 0);
	EXPECT_EQ(pr.p.probes, 0);
	EXPECT_EQ(pr.p.busy_backoff, 0);
	EXPECT_EQ(pr.p.stall_ms, 0);
	EXPECT_EQ(pr.p.outranked_ms, 0);
	EXPECT_FALSE(pr.p.outrank_spent);
}

TEST(homa_probe_heard, need_ack_changes_nothing)
{
	Probe pr;

	pr.p.silent_ms = 40;
	pr.p.probes = 3;
	pr.p.busy_backoff = 2;
	pr.p.since_probe_ms = 7;
	homa_probe_heard(&pr.p, true, false);
	EXPECT_EQ(pr.p.silent_ms, 40);
	EXPECT_EQ(pr.p.probes, 3);
	EXPECT_EQ(pr.p.busy_backoff, 2);
	EXPECT_EQ(pr.p.since_probe_ms, 7);
}

TEST(homa_probe_heard, busy_backs_off_up_to_the_cap)
{
	Probe pr;

	pr.p.silent_ms = 40;
	pr.p.probes = 3;
	for (int i = 1; i <= HOMA_BUSY_BACKOFF_MAX + 3; i++) {
		pr.p.since_probe_ms = 99;
		homa_probe_heard(&pr.p, false, true);
		EXPECT_EQ(pr.p.busy_backoff,
			  std::min(i, HOMA_BUSY_BACKOFF_MAX));
		EXPECT_EQ(pr.p.since_probe_ms, 0);
	}
	EXPECT_EQ(pr.p.silent_ms, 0);
	EXPECT_EQ(pr.p.probes, 0);
}

TEST(homa_probe_heard, other_packet_resets_and_makes_probe_overdue)
{
	Probe pr;

	pr.p.silent_ms = 40;
	pr.p.probes = 3;
	pr.p.busy_backoff = 4;
	homa_probe_heard(&pr.p, false, false);
	EXPECT_EQ(pr.p.silent_ms, 0);
	EXPECT_EQ(pr.p.probes, 0);
	EXPECT_EQ(pr.p.busy_backoff, 0);
	EXPECT_EQ(pr.p.since_probe_ms, HOMA_PROBE_OVERDUE_MS);
}

TEST(homa_probe_progress, resets_stall_only)
{
	Probe pr;

	pr.p.stall_ms = 500;
	pr.p.silent_ms = 30;
	homa_probe_progress(&pr.p);
	EXPECT_EQ(pr.p.stall_ms, 0);
	EXPECT_EQ(pr.p.silent_ms, 30);
}

TEST(homa_probe_replied, resets_silence_only)
{
	Probe pr;

	pr.p.silent_ms = 30;
	pr.p.probes = 2;
	homa_probe_replied(&pr.p);
	EXPECT_EQ(pr.p.silent_ms, 0);
	EXPECT_EQ(pr.p.probes, 2);
}

TEST(homa_probe_tick, held_message_counts_no_silence)
{
	Probe pr;
	homa_probe_params par = params(100, 0, 5, 5);

	pr.p.silent_ms = 50;
	pr.p.probes = 4;
	for (int i = 0; i < 5000; i++)
		ASSERT_EQ(pr.tick(view(true, true, false, true), par, 1),
			  HOMA_PROBE_NONE);
	EXPECT_EQ(pr.p.silent_ms, 0);
	EXPECT_EQ(pr.p.probes, 0);
}

TEST(homa_probe_tick, outranked_counts_no_silence_and_keeps_it)
{
	Probe pr;
	homa_probe_params par = params(100, 0, 5, 5);
	homa_probe_view v = view(true, false, false, true);

	pr.p.silent_ms = 3;
	pr.p.probes = 2;
	pr.p.since_probe_ms = 1;
	v.outranked = true;
	for (int i = 0; i < 5000; i++)
		ASSERT_EQ(pr.tick(v, par, 1), HOMA_PROBE_NONE);
	/* Nothing counted, nothing forgotten, no timeout. */
	EXPECT_EQ(pr.p.silent_ms, 3);
	EXPECT_EQ(pr.p.probes, 2);
	EXPECT_EQ(pr.p.since_probe_ms, 1);
	/* A tick that is not outranked counts again. */
	v.outranked = false;
	EXPECT_EQ(pr.tick(v, par, 1), HOMA_PROBE_NONE);
	EXPECT_EQ(pr.p.silent_ms, 4);
	EXPECT_EQ(pr.p.since_probe_ms, 2);
}

/* A receiving RPC whose missing bytes are outranked. */
homa_probe_view outranked_view(bool granted_all)
{
	homa_probe_view v = view(true, false, false, true);

	v.outranked = true;
	v.granted_all = granted_all;
	return v;
}

TEST(homa_probe_tick, outranked_counts_again_past_its_bound)
{
	Probe pr;
	homa_probe_params par = params(100000, 0, 5, 5, -1, 0, 40);
	homa_probe_view v = outranked_view(true);
	homa_probe_action act;

	pr.p.silent_ms = 3;
	pr.p.since_probe_ms = HOMA_PROBE_OVERDUE_MS;
	/* 40 ms uncounted, then 2 more of silence reach the 5 ms wait. */
	EXPECT_EQ(ms_until(pr, v, par, &act, 1000), 42);
	EXPECT_EQ(act, HOMA_PROBE_SEND);
	EXPECT_TRUE(pr.p.outrank_spent);
	EXPECT_EQ(pr.p.outranked_ms, 40);
	/* Spent, a NEED_ACK may draw RESENDs although outranked. */
	pr.p.since_probe_ms = 1000;
	EXPECT_TRUE(homa_probe_ask_now(&pr.p, 0, true));
	/* A packet from the peer starts a silence with a fresh bound. */
	homa_probe_heard(&pr.p, false, false);
	EXPECT_FALSE(pr.p.outrank_spent);
	EXPECT_EQ(pr.p.outranked_ms, 0);
	EXPECT_FALSE(homa_probe_ask_now(&pr.p, 0, true));
	EXPECT_EQ(ms_until(pr, v, par, &act, 1000), 45);
	/* A NEED_ACK is no end of the silence. */
	homa_probe_heard(&pr.p, true, false);
	EXPECT_TRUE(pr.p.outrank_spent);
}

TEST(homa_probe_tick, outranked_bound_counts_a_long_tick_in_part)
{
	Probe pr;
	homa_probe_params par = params(100000, 0, 5, 5, -1, 0, 10);
	homa_probe_view v = outranked_view(true);

	EXPECT_EQ(pr.tick(v, par, 7), HOMA_PROBE_NONE);
	EXPECT_EQ(pr.tick(v, par, 7), HOMA_PROBE_NONE);
	EXPECT_EQ(pr.p.outranked_ms, 10);
	EXPECT_FALSE(pr.p.outrank_spent);
	EXPECT_EQ(pr.p.silent_ms, 0);
	EXPECT_EQ(pr.tick(v, par, 7), HOMA_PROBE_SEND);
	EXPECT_EQ(pr.p.silent_ms, 7);
	/* Held: the sender waits for us; a new silence, a new bound. */
	EXPECT_EQ(pr.tick(view(true, true, false, true), par, 1),
		  HOMA_PROBE_NONE);
	EXPECT_FALSE(pr.p.outrank_spent);
	EXPECT_EQ(pr.p.outranked_ms, 0);
}

TEST(homa_probe_tick, outranked_unbounded_until_granted_all)
{
	Probe pr;
	homa_probe_params par = params(100000, 0, 5, 5, -1, 0, 10);
	homa_probe_view v = outranked_view(false);
	homa_probe_action act;

	/* More to grant: a higher level will end the wait, no bound. */
	EXPECT_EQ(ms_until(pr, v, par, &act, 5000), -1);
	EXPECT_EQ(pr.p.silent_ms, 0);
	EXPECT_EQ(pr.p.outranked_ms, 0);
	EXPECT_FALSE(homa_probe_ask_now(&pr.p, 0, true));
	/* Granted to its end: the bound counts from then. */
	v.granted_all = true;
	EXPECT_EQ(ms_until(pr, v, par, &act, 5000), 15);
	EXPECT_EQ(act, HOMA_PROBE_SEND);
}

TEST(homa_probe_tick, outranked_still_stalls)
{
	Probe pr;
	homa_probe_params par = params(100, 300, 5, 5);
	homa_probe_view v = view(true, false, false, true);
	homa_probe_action act = HOMA_PROBE_NONE;
	int i, first_probe = 0;

	v.outranked = true;
	for (i = 0; i < 1000 && act != HOMA_PROBE_STALL; i++) {
		act = pr.tick(v, par, 1);
		if (act == HOMA_PROBE_SEND) {
			first_probe = first_probe ? first_probe : i + 1;
			homa_probe_sent(&pr.p);
		}
	}
	EXPECT_EQ(act, HOMA_PROBE_STALL);
	EXPECT_EQ(i, 300);
	/* Probes from half the stall bound on (and the 5 ms wait). */
	EXPECT_EQ(first_probe, 154);
}

TEST(homa_probe_tick, outranked_wait_ends_at_half_the_stall)
{
	Probe pr;
	homa_probe_params par = params(100000, 1000, 5, 5);
	homa_probe_view v = outranked_view(false);
	homa_probe_action act;

	EXPECT_EQ(ms_until(pr, v, par, &act, 5000), 504);
	EXPECT_EQ(act, HOMA_PROBE_SEND);
	EXPECT_TRUE(pr.p.outrank_spent);
	EXPECT_TRUE(homa_probe_stall_half(&pr.p, &par));
	/* Spent, a NEED_ACK may draw RESENDs although outranked. */
	EXPECT_TRUE(homa_probe_ask_now(&pr.p, 0, true));
	homa_probe_sent(&pr.p);
	/* New bytes: the stall restarts; the silence goes on, spent. */
	homa_probe_progress(&pr.p);
	EXPECT_FALSE(homa_probe_stall_half(&pr.p, &par));
	EXPECT_EQ(ms_until(pr, v, par, &act, 5000), 10);
	homa_probe_sent(&pr.p);
	/* A packet from the peer: excused again for half the stall. */
	homa_probe_heard(&pr.p, false, false);
	homa_probe_progress(&pr.p);
	EXPECT_EQ(ms_until(pr, v, par, &act, 5000), 504);
	/* Without a stall bound, no end (the FIFO share is the bound). */
	homa_probe_init(&pr.p);
	par.stall_ms = 0;
	EXPECT_EQ(ms_until(pr, v, par, &act, 5000), -1);
	EXPECT_FALSE(pr.p.outrank_spent);
}

TEST(homa_probe_tick, held_message_stalls)
{
	Probe pr;
	homa_probe_params par = params(100, 300, 5, 5);
	homa_probe_action act = HOMA_PROBE_NONE;
	int i;

	pr.p.stall_ms = 100;
	for (i = 0; i < 1000 && act == HOMA_PROBE_NONE; i++)
		act = pr.tick(view(true, true, false, true), par, 1);
	EXPECT_EQ(act, HOMA_PROBE_STALL);
	EXPECT_EQ(i, 200);
}

TEST(homa_probe_tick, grant_wait_does_not_stall)
{
	homa_probe_params par = params(100000, 300, 100000, 5);
	homa_probe_action act;
	Probe pr;

	/* Waiting for the FIFO share's grants: no stall, however long. */
	pr.p.stall_ms = 100;
	EXPECT_EQ(ms_until(pr, view(true, true, false, true, true), par, &act,
			   5000), -1);
	EXPECT_EQ(pr.p.stall_ms, 100);
	/* Granted again, the sender owes bytes: the count goes on. */
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   5000), 200);
	EXPECT_EQ(act, HOMA_PROBE_STALL);
}

TEST(homa_probe_tick, busy_vouches_for_the_rpc)
{
	homa_probe_params par = params(100000, 50, 1000, 1000);
	Probe pr;

	/* The peer's pacer holds the bytes and says BUSY: no stall. */
	for (int ms = 1; ms <= 200; ms++) {
		if (ms % 40 == 0)
			homa_probe_heard(&pr.p, false, true);
		ASSERT_EQ(pr.tick(view(true, false, false, false), par, 1),
			  HOMA_PROBE_NONE) << "ms " << ms;
	}
	/* Then it stalls 50 ms after the last BUSY. */
	EXPECT_EQ(pr.p.stall_ms, 1);
	for (int ms = 2; ms < 50; ms++)
		ASSERT_EQ(pr.tick(view(true, false, false, false), par, 1),
			  HOMA_PROBE_NONE) << "ms " << ms;
	EXPECT_EQ(pr.tick(view(true, false, false, false), par, 1),
		  HOMA_PROBE_STALL);
}

TEST(homa_probe_tick, first_probe_after_the_wait)
{
	Probe pr;
	homa_probe_action act;

	/* A fresh state: since_probe starts at 0, so the interval counts. */
	EXPECT_EQ(ms_until(pr, view(true, false, false, false),
			   params(100000, 0, 20, 30), &act, 1000), 30);
	EXPECT_EQ(act, HOMA_PROBE_SEND);

	Probe pr2;

	/* After a packet, the first probe is due as soon as the wait ends. */
	homa_probe_heard(&pr2.p, false, false);
	EXPECT_EQ(ms_until(pr2, view(true, false, false, false),
			   params(100000, 0, 20, 30), &act, 1000), 20);
	EXPECT_EQ(act, HOMA_PROBE_SEND);
}

TEST(homa_probe_tick, interval_doubles_up_to_eight_times)
{
	Probe pr;
	homa_probe_params par = params(100000, 0, 10, 10);
	homa_probe_view v = view(true, false, false, false);
	homa_probe_action act;
	const int want[] = { 10, 20, 40, 80, 80, 80, 80 };

	homa_probe_heard(&pr.p, false, false);
	for (int i = 0; i < 7; i++) {
		int ms = ms_until(pr, v, par, &act, 10000);

		EXPECT_EQ(ms, want[i]) << "probe " << i;
		ASSERT_EQ(act, HOMA_PROBE_SEND);
		homa_probe_sent(&pr.p);
	}
}

TEST(homa_probe_tick, busy_doubles_the_interval)
{
	Probe pr;
	homa_probe_params par = params(100000, 0, 10, 10);
	homa_probe_action act;

	homa_probe_heard(&pr.p, false, true);
	homa_probe_heard(&pr.p, false, true);
	/* Silence from the BUSY: wait 10, interval 10 << 2 from the BUSY. */
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   10000), 40);
	EXPECT_EQ(act, HOMA_PROBE_SEND);
}

TEST(homa_probe_tick, busy_doubles_its_own_base_not_the_timeout)
{
	/* A timeout of 600 ms (measured under a queue), BUSY base 5 ms. */
	homa_probe_params par = params(100000, 0, 600, 600, 5);
	homa_probe_action act;
	Probe pr;

	/*
	 * Five BUSYs in a row: 5 << 5 = 160 ms, where doubling the timeout
	 * would make it 600 << 5, over 19 s.
	 */
	for (int i = 0; i < 5; i++)
		homa_probe_heard(&pr.p, false, true);
	pr.p.silent_ms = 600;
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   100000), 160);
	EXPECT_EQ(act, HOMA_PROBE_SEND);
	homa_probe_sent(&pr.p);
	/* Unanswered after the BUSYs: that interval doubles. */
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   100000), 320);
	homa_probe_sent(&pr.p);
	/* The peer sends data: the timeout (600 ms) rules again. */
	homa_probe_heard(&pr.p, false, false);
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   100000), 600);
	homa_probe_sent(&pr.p);
	/* Unanswered: the timeout doubles (600 << 1). */
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   100000), 1200);
}

TEST(homa_probe_tick, busy_interval_is_at_least_the_drain_time)
{
	homa_probe_params par = params(100000, 0, 1, 600, 5, 70);
	homa_probe_action act;
	Probe pr;

	homa_probe_heard(&pr.p, false, true);
	/* 5 << 1 = 10 ms, but the link needs 70 ms for what is queued. */
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   100000), 70);
	homa_probe_sent(&pr.p);
	for (int i = 0; i < 4; i++)
		homa_probe_heard(&pr.p, false, true);
	/* Five in a row: 160 ms is above the drain time. */
	EXPECT_EQ(ms_until(pr, view(true, false, false, false), par, &act,
			   100000), 160);
}

TEST(homa_probe_tick, timeout_needs_probes_and_a_silent_peer)
{
	homa_probe_params par = params(100, 0, 1, 1);
	Probe pr;

	pr.p.silent_ms = 1000;
	pr.p.probes = HOMA_TIMEOUT_PROBES - 1;
	EXPECT_NE(pr.tick(view(true, false, false, true), par, 1),
		  HOMA_PROBE_TIMEOUT);
	pr.p.probes = HOMA_TIMEOUT_PROBES;
	EXPECT_NE(pr.tick(view(true, false, false, false), par, 1),
		  HOMA_PROBE_TIMEOUT);
	EXPECT_EQ(pr.tick(view(true, false, false, true), par, 1),
		  HOMA_PROBE_TIMEOUT);
	Probe young;

	young.p.silent_ms = 98;
	young.p.probes = HOMA_TIMEOUT_PROBES;
	EXPECT_NE(young.tick(view(true, false, false, true), par, 1),
		  HOMA_PROBE_TIMEOUT);
	EXPECT_EQ(young.tick(view(true, false, false, true), par, 1),
		  HOMA_PROBE_TIMEOUT);
}

TEST(homa_probe_tick, stall_while_the_peer_talks)
{
	homa_probe_params par = params(100000, 50, 1000, 1000);
	homa_probe_action act;
	Probe pr;

	/* The peer talks (each packet resets silence), nothing progresses. */
	for (int ms = 1; ms <= 49; ms++) {
		homa_probe_heard(&pr.p, false, false);
		ASSERT_EQ(pr.tick(view(true, false, false, false), par, 1),
			  HOMA_PROBE_NONE);
	}
	EXPECT_EQ(pr.tick(view(true, false, false, false), par, 1),
		  HOMA_PROBE_STALL);
	/* A server waiting for its ack stalls too. */
	Probe srv;

	EXPECT_EQ(ms_until(srv, view(false, false, true, false),
			   params(100000, 50, 100000, 100000), &act, 1000),
		  50);
	EXPECT_EQ(act, HOMA_PROBE_STALL);
}

TEST(homa_probe_tick, no_stall_before_the_first_byte_or_when_off)
{
	Probe pr, off;
	homa_probe_action act;

	EXPECT_EQ(ms_until(pr, view(true, false, true, false),
			   params(100000, 50, 100000, 100000), &act, 5000),
		  -1);
	EXPECT_EQ(ms_until(off, view(true, false, false, false),
			   params(100000, 0, 100000, 100000), &act, 5000),
		  -1);
}

TEST(homa_probe_sent, restarts_the_interval_and_counts)
{
	Probe pr;

	pr.p.since_probe_ms = 77;
	homa_probe_sent(&pr.p);
	homa_probe_sent(&pr.p);
	EXPECT_EQ(pr.p.since_probe_ms, 0);
	EXPECT_EQ(pr.p.probes, 2);
}

TEST(homa_probe_ask_now, only_after_the_link_drained)
{
	Probe pr;

	pr.p.since_probe_ms = HOMA_PROBE_OVERDUE_MS;
	pr.p.silent_ms = 9;
	EXPECT_FALSE(homa_probe_ask_now(&pr.p, 10, false));
	pr.p.silent_ms = 10;
	EXPECT_TRUE(homa_probe_ask_now(&pr.p, 10, false));
}

TEST(homa_probe_ask_now, not_again_within_the_drain_time)
{
	Probe pr;

	pr.p.silent_ms = 50;
	homa_probe_sent(&pr.p);
	pr.p.since_probe_ms = 9;
	EXPECT_FALSE(homa_probe_ask_now(&pr.p, 10, false));
	pr.p.since_probe_ms = 10;
	EXPECT_TRUE(homa_probe_ask_now(&pr.p, 10, false));
	/* Nothing owed: the drain time is 0, and nothing holds it back. */
	pr.p.since_probe_ms = 0;
	EXPECT_TRUE(homa_probe_ask_now(&pr.p, 0, false));
}

TEST(homa_probe_ask_now, never_while_outranked)
{
	Probe pr;

	pr.p.silent_ms = 1000;
	pr.p.since_probe_ms = 1000;
	EXPECT_FALSE(homa_probe_ask_now(&pr.p, 10, true));
	EXPECT_FALSE(homa_probe_ask_now(&pr.p, 0, true));
	EXPECT_TRUE(homa_probe_ask_now(&pr.p, 10, false));
}

TEST(homa_probe_urgent, from_the_fourth_unanswered_probe_until_heard)
{
	Probe pr;

	for (int i = 0; i < 3; i++) {
		EXPECT_FALSE(homa_probe_urgent(&pr.p)) << "probe " << i + 1;
		homa_probe_sent(&pr.p);
	}
	EXPECT_TRUE(homa_probe_urgent(&pr.p));
	homa_probe_sent(&pr.p);
	EXPECT_TRUE(homa_probe_urgent(&pr.p));
	/* Asking (NEED_ACK) and a response handed over do not answer. */
	homa_probe_heard(&pr.p, true, false);
	homa_probe_replied(&pr.p);
	EXPECT_TRUE(homa_probe_urgent(&pr.p));
	/* Any other packet does, a BUSY included. */
	homa_probe_heard(&pr.p, false, false);
	EXPECT_FALSE(homa_probe_urgent(&pr.p));
	for (int i = 0; i < 3; i++)
		homa_probe_sent(&pr.p);
	EXPECT_TRUE(homa_probe_urgent(&pr.p));
	homa_probe_heard(&pr.p, false, true);
	EXPECT_FALSE(homa_probe_urgent(&pr.p));
}

TEST(homa_probe_urgent, after_one_unanswered_probe_once_it_asked_so)
{
	Probe pr;

	for (int i = 0; i < 3; i++)
		homa_probe_sent(&pr.p);
	ASSERT_TRUE(homa_probe_urgent(&pr.p));
	/* Counted but never asked at the top level: the threshold stays. */
	homa_probe_sent(&pr.p);
	homa_probe_heard(&pr.p, false, false);
	homa_probe_sent(&pr.p);
	EXPECT_FALSE(homa_probe_urgent(&pr.p));
	homa_probe_sent(&pr.p);
	homa_probe_sent(&pr.p);
	ASSERT_TRUE(homa_probe_urgent(&pr.p));
	homa_probe_urgent_asked(&pr.p);
	homa_probe_sent(&pr.p);
	/* Every later silence: the first probe at the usual level ... */
	for (int round = 0; round < 3; round++) {
		homa_probe_heard(&pr.p, false, round == 1);
		EXPECT_FALSE(homa_probe_urgent(&pr.p)) << "round " << round;
		homa_probe_sent(&pr.p);
		/* ... the second at the top, and every one after it. */
		EXPECT_TRUE(homa_probe_urgent(&pr.p)) << "round " << round;
		homa_probe_urgent_asked(&pr.p);
		homa_probe_sent(&pr.p);
		EXPECT_TRUE(homa_probe_urgent(&pr.p)) << "round " << round;
	}
	/* A new RPC starts with the threshold of three. */
	homa_probe_init(&pr.p);
	homa_probe_sent(&pr.p);
	EXPECT_FALSE(homa_probe_urgent(&pr.p));
}

/* ---- the naive model ---------------------------------------------------- */

enum EvKind { TICK, HEARD, NEED_ACK, BUSY, PROGRESS, REPLIED, SENT, URGENT };

struct Ev {
	EvKind kind;
	int ms;		/* TICK only */
	bool held;	/* TICK only */
	bool stall_counts;	/* TICK only */
	bool excused;	/* TICK only: outranked, within its bound */
	bool bounded;	/* TICK only: outranked and granted to its end */
	bool outranked;	/* TICK only: outranked, not held */
};

/*
 * Every quantity from the history, walking back from the newest event.
 * A tick that ended in STALL or TIMEOUT ends the run, so every tick in
 * the history counted its silence (unless held).
 */
struct Model {
	std::vector<Ev> h;

	/* ms of unheld ticks since the newest event of a resetting kind. */
	template <class Reset> long sum_since(Reset reset, bool stall) const
	{
		long sum = 0;

		for (auto it = h.rbegin(); it != h.rend(); ++it) {
			if (reset(*it))
				return sum;
			if (it->kind == TICK && (stall ? it->stall_counts :
						 !it->excused))
				sum += it->ms;
		}
		return sum;
	}
	long silent() const
	{
		return sum_since([](const Ev &e) {
			return e.kind == HEARD || e.kind == BUSY ||
			       e.kind == REPLIED || (e.kind == TICK && e.held);
		}, false);
	}
	long stall() const
	{
		return sum_since([](const Ev &e) {
			return e.kind == PROGRESS || e.kind == BUSY;
		}, true);
	}
	/* INT_MAX: a packet made the next probe overdue. */
	long since_probe() const
	{
		long sum = 0;

		for (auto it = h.rbegin(); it != h.rend(); ++it) {
			if (it->kind == SENT || it->kind == BUSY)
				return sum;
			if (it->kind == HEARD)
				return LONG_MAX / 4;
			if (it->kind == TICK && !it->held && !it->excused)
				sum += it->ms;
		}
		return sum;
	}
	/*
	 * ms of excused ticks of a message granted to its end in this
	 * silence; *spent: one such tick was past the bound.
	 */
	long bounded_ms(bool *spent) const
	{
		long sum = 0;

		*spent = false;
		for (auto it = h.rbegin(); it != h.rend(); ++it) {
			if (it->kind == HEARD || it->kind == BUSY ||
			    it->kind == REPLIED || (it->kind == TICK && it->held))
				return sum;
			if (it->kind == TICK && it->bounded && it->excused)
				sum += it->ms;
			if (it->kind == TICK && it->outranked && !it->excused)
				*spent = true;
		}
		return sum;
	}
	int probes() const
	{
		int n = 0;

		for (auto it = h.rbegin(); it != h.rend(); ++it) {
			if (it->kind == HEARD || it->kind == BUSY ||
			    (it->kind == TICK && it->held))
				return n;
			n += it->kind == SENT;
		}
		return n;
	}
	/* Unanswered probes before a probe asks at the top level. */
	int urgent_after() const
	{
		for (const Ev &e : h)
			if (e.kind == URGENT)
				return 1;
		return 3;
	}
	int busy() const
	{
		int n = 0;

		for (auto it = h.rbegin(); it != h.rend(); ++it) {
			if (it->kind == HEARD)
				break;
			n += it->kind == BUSY;
		}
		return std::min(n, HOMA_BUSY_BACKOFF_MAX);
	}
	homa_probe_action tick(const homa_probe_view &v,
			       const homa_probe_params &par, int ms)
	{
		bool counts = !(v.receiving && (v.nothing_yet || v.grant_wait));
		bool spent;
		long bounded = bounded_ms(&spent);
		/* The stall with this tick; past half, no excuse. */
		long stall_now = stall() + (counts ? ms : 0);
		bool half = par.stall_ms && stall_now >= par.stall_ms / 2;
		bool excused = !v.held && v.outranked && !spent && !half &&
			       (!v.granted_all || bounded < par.outranked_ms);

		h.push_back({ TICK, ms, v.held, counts, excused,
			      !v.held && v.outranked && v.granted_all,
			      !v.held && v.outranked });
		if (par.stall_ms && counts && stall() >= par.stall_ms)
			return HOMA_PROBE_STALL;
		if (v.held || excused)
			return HOMA_PROBE_NONE;
		if (silent() >= par.timeout_ms &&
		    probes() >= HOMA_TIMEOUT_PROBES && v.peer_silent)
			return HOMA_PROBE_TIMEOUT;
		if (silent() < par.wait_ms)
			return HOMA_PROBE_NONE;
		long base = busy() ? std::max((long)par.busy_ms << busy(),
					      (long)par.drain_ms) :
				     (long)par.interval_ms;
		long interval = base * (1L << std::min(probes(), 3));
		return since_probe() >= interval ? HOMA_PROBE_SEND :
						   HOMA_PROBE_NONE;
	}
};

TEST(homa_probe_tick, random_runs_match_the_naive_model)
{
	uint64_t seed = unit::test_seed();
	std::mt19937_64 rng(seed);
	long checked = 0;

	for (int run = 0; run < 300; run++) {
		homa_probe_params par = params(
			(int)(rng() % 400) + 1, rng() % 3 ? 0 : (int)(rng() % 600) + 1,
			(int)(rng() % 50) + 1, (int)(rng() % 200) + 1,
			(int)(rng() % 20) + 1,
			rng() % 2 ? 0 : (int)(rng() % 100),
			rng() % 4 ? (int)(rng() % 300) : INT_MAX);
		bool receiving = rng() % 4 != 0;
		bool outranked_run = rng() % 2;
		bool granted_all = false;
		Probe pr;
		Model m;

		for (int step = 0; step < 2000; step++) {
			int r = (int)(rng() % 100);

			if (r < 3) {
				homa_probe_heard(&pr.p, false, false);
				m.h.push_back({ HEARD, 0, false, false, false, false, false });
			} else if (r < 6) {
				homa_probe_heard(&pr.p, false, true);
				m.h.push_back({ BUSY, 0, false, false, false, false, false });
			} else if (r < 9) {
				homa_probe_heard(&pr.p, true, false);
				m.h.push_back({ NEED_ACK, 0, false, false, false, false, false });
			} else if (r < 11) {
				homa_probe_progress(&pr.p);
				m.h.push_back({ PROGRESS, 0, false, false, false, false, false });
			} else if (r < 12) {
				homa_probe_replied(&pr.p);
				m.h.push_back({ REPLIED, 0, false, false, false, false, false });
			} else {
				bool held = receiving && rng() % 20 == 0;
				homa_probe_view v = view(
					receiving, held, rng() % 8 == 0,
					rng() % 2 == 0, held && rng() % 2);
				v.outranked = receiving && outranked_run &&
					      rng() % 3 != 0;
				/* Once granted to its end, it stays so. */
				granted_all = granted_all || rng() % 50 == 0;
				v.granted_all = granted_all;
				int ms = (int)(rng() % 4) + 1;
				homa_probe_action got = pr.tick(v, par, ms);
				homa_probe_action want = m.tick(v, par, ms);

				ASSERT_EQ(got, want)
					<< "seed " << seed << " run " << run
					<< " step " << step;
				checked++;
				if (got == HOMA_PROBE_STALL ||
				    got == HOMA_PROBE_TIMEOUT)
					break;
				/*
				 * The fourth probe in a row and later ones;
				 * the second, once one asked at the top.
				 */
				bool urgent = false;

				if (got == HOMA_PROBE_SEND) {
					urgent = homa_probe_urgent(&pr.p);
					ASSERT_EQ(urgent,
						  m.probes() >= m.urgent_after())
						<< "seed " << seed;
				}
				/* The peer's probe budget may refuse. */
				if (got == HOMA_PROBE_SEND && rng() % 5) {
					/* There may be nothing to ask for. */
					if (urgent && rng() % 4) {
						homa_probe_urgent_asked(&pr.p);
						m.h.push_back({ URGENT, 0, false, false, false, false, false });
					}
					homa_probe_sent(&pr.p);
					m.h.push_back({ SENT, 0, false, false, false, false, false });
				}
			}
		}
	}
	EXPECT_GT(checked, 100000);
}

}  // namespace
