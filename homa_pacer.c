// SPDX-License-Identifier: GPL-2.0+
/*
 * The pacer of a Homa host (network namespace). The host keeps an
 * estimate of its NIC's transmit queue (homa_pace.c decides; this file
 * keeps the state and does the work) and holds it below
 * max_nic_queue_ns at link_mbps, so that a short message that turns up
 * later can still go out ahead of a long one. A DATA packet that would
 * make the queue too long is not sent: its message waits on the throttled
 * lists, and a per-namespace kthread releases the waiting messages'
 * packets as the queue drains, fewest bytes remaining first, with
 * pacer_fifo_fraction of the bytes for the oldest message. Packets sent
 * again for a RESEND go through it as fresh ones do (ahead of the
 * message's fresh packets), so a storm of RESENDs cannot flood the link.
 * Control packets and messages shorter than throttle_min_bytes skip the
 * pacer but count in the estimate (homa_xmit_account()). The thread
 * sleeps on a waitqueue while nothing is throttled, and in an hrtimer
 * sleep while the queue drains; since such a sleep ends late, the thread
 * lets the queue exceed the bound by a lead that follows how late its
 * sleeps ended (homa_pace_lead(), at most pacer_lead_max_ns and one
 * packet's time); with pacer_rx_help, each packet the host receives takes
 * a step itself if the queue has drained before the thread woke
 * (homa_pacer_help()). The estimate is only as right as link_mbps: the
 * pacer also holds paced packets back while the host holds
 * pacer_held_max_kb of DATA (homa_pace_held_full(); struct homa_txhost
 * counts it), and the thread then sleeps until a copy let go of makes
 * room. While that limit binds, the copies let go of measure the rate at
 * which the host's DATA drains, and the limit falls to a queue of
 * pacer_drain_queue_us at that rate (homa_pace_drain_limit()).
 * The file also keeps the sender's adaptive unscheduled window, which
 * depends on how much the pacer holds back (homa_rtt.c decides).
 */

#include <linux/hrtimer.h>
#include <linux/ip.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "homa_impl.h"

/* How long the thread waits when a throttled RPC's socket is busy. */
#define HOMA_PACER_RETRY_NS 20000

/* Most slack the thread's timed sleeps allow the hrtimer. */
#define HOMA_PACER_MAX_SLACK_NS 50000

/* Most throttled packets the timer sends per tick to help the thread. */
#define HOMA_PACER_HELP_PKTS 8

/*
 * How long after the pacer last waited for the held count new messages
 * are cut into smaller packets (homa_pace_pkt_held()).
 */
#define HOMA_PACER_HELD_LATELY_JIFFIES HZ

/*
 * Longest the thread sleeps waiting for the host's held count to fall
 * (jiffies); a copy let go of wakes it sooner.
 */
#define HOMA_PACER_HELD_WAIT_JIFFIES max(1, HZ / 100)

static bool homa_pacer_enabled(struct homa_net *hnet)
{
	return homa_cfg(hnet, pacer_enable) != 0;
}

/*
 * A DATA packet of a message long enough to be paced joined the queue:
 * keep the longest queue such a packet made (what the pacer bounds;
 * control packets and short messages may add more). The metric's per-CPU
 * parts add up to the maximum because each increase adds the difference.
 */
static void __homa_pacer_note_queue(struct homa_net *hnet, u64 now)
{
	struct homa_pacer *pacer = &hnet->pacer;
	u64 queue = homa_pace_queue_ns(&pacer->state, now);

	lockdep_assert_held(&pacer->lock);
	if (queue <= pacer->queue_max)
		return;
	homa_metric_add(hnet, HOMA_M_nic_queue_max_ns,
			queue - pacer->queue_max);
	pacer->queue_max = queue;
}

/*
 * Read the host's held count into the estimate before a decision, and
 * keep the most it was (metric tx_held_max_bytes, as for the queue above).
 */
static void __homa_pacer_read_held(struct homa_net *hnet)
{
	struct homa_pacer *pacer = &hnet->pacer;
	u32 held = homa_txhost_held(pacer->host);

	lockdep_assert_held(&pacer->lock);
	pacer->state.held = held;
	if (held <= pacer->held_max)
		return;
	homa_metric_add(hnet, HOMA_M_tx_held_max_bytes,
			(u64)(held - pacer->held_max) * HOMA_PACE_HELD_UNIT);
	pacer->held_max = held;
}

/* Payload bytes of a stored DATA packet. */
static u32 homa_pacer_payload(struct sk_buff *skb)
{
	return skb->len - sizeof(struct homa_data_hdr);
}

/*
 * Set @p's held_max to the most DATA the host may hold now: the limit
 * pacer_held_max_kb sets, or less while the pacer knows the rate at which
 * the host's DATA drains (homa_pace_drain_limit()).
 */
static void __homa_pacer_held_limit(struct homa_net *hnet,
				    struct homa_pace_params *p, u64 now)
{
	lockdep_assert_held(&hnet->pacer.lock);
	p->held_max = homa_pace_drain_limit(&hnet->pacer.drain, p, now);
}

/*
 * The host holds as much DATA as it may: the pacer counts as having waited
 * for it lately (homa_pacer_held_lately()), and this is one end of a
 * sample of the rate at which its DATA drains (homa_pace_drain_full());
 * metric pacer_drain_kbps follows the rate learned.
 */
static void __homa_pacer_held_full(struct homa_net *hnet, u64 now)
{
	struct homa_pacer *pacer = &hnet->pacer;
	u64 freed, kbps;
	u32 empties;

	lockdep_assert_held(&pacer->lock);
	WRITE_ONCE(pacer->held_until,
		   jiffies + HOMA_PACER_HELD_LATELY_JIFFIES);
	freed = homa_txhost_drained(pacer->host, &empties);
	if (!homa_pace_drain_full(&pacer->drain, now, freed, empties))
		return;
	homa_metric_inc(hnet, HOMA_M_pacer_drain_samples);
	kbps = div_u64(pacer->drain.rate * HOMA_PACE_HELD_UNIT * 8, 1000);
	homa_metric_add(hnet, HOMA_M_pacer_drain_kbps,
			(s64)(kbps - pacer->drain_kbps));
	pacer->drain_kbps = kbps;
}

/*
 * Put @rpc on the pacer's lists in SRPT and in FIFO order, and wake the
 * thread if it waits for work (homa_pacer_wait_work()).
 */
static void __homa_pacer_insert(struct homa_pacer *pacer,
				struct homa_rpc *rpc)
{
	struct homa_rpc *other;

	lockdep_assert_held(&pacer->lock);
	list_for_each_entry(other, &pacer->srpt, pacer_links)
		if (other->pacer_remaining > rpc->pacer_remaining)
			break;
	list_add_tail(&rpc->pacer_links, &other->pacer_links);
	list_for_each_entry_reverse(other, &pacer->fifo, pacer_fifo_links)
		if (other->msgout.birth <= rpc->msgout.birth)
			break;
	list_add(&rpc->pacer_fifo_links, &other->pacer_fifo_links);
	if (pacer->thread_idle) {
		WRITE_ONCE(pacer->thread_idle, false);
		wake_up(&pacer->wait);
	}
}

/* Take @rpc off the pacer's lists, if it is on them. */
static void __homa_pacer_remove(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->hnet->pacer.lock);
	if (list_empty(&rpc->pacer_links))
		return;
	list_del_init(&rpc->pacer_links);
	list_del_init(&rpc->pacer_fifo_links);
}

/*
 * Make @rpc wait for the pacer (or move it to its place in SRPT order
 * when it waits already); __homa_pacer_insert() wakes the thread if it
 * was idle. The caller holds the RPC's socket lock.
 */
static void __homa_pacer_throttle(struct homa_rpc *rpc, u32 remaining)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_pacer *pacer = &hnet->pacer;

	lockdep_assert_held(&pacer->lock);
	if (list_empty(&rpc->pacer_links))
		homa_metric_inc(hnet, HOMA_M_pacer_throttled);
	__homa_pacer_remove(rpc);
	rpc->pacer_remaining = remaining;
	__homa_pacer_insert(pacer, rpc);
}

/**
 * homa_pacer_admit() - May a DATA packet (fresh or sent again for a
 * RESEND) go now? If not, its RPC waits for the pacer thread, which sends
 * it and the rest later.
 * @rpc: the RPC; the caller holds its socket's lock.
 * @pk: the packet, from homa_msgout_peek().
 *
 * Return: true if the caller sends the packet now (it is accounted for).
 */
bool homa_pacer_admit(struct homa_rpc *rpc, const struct homa_msgout_peek *pk)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_pacer *pacer = &hnet->pacer;
	struct homa_msgout *out = &rpc->msgout;
	struct sk_buff *skb = pk->skb;
	struct homa_pace_params p;
	u32 bytes;
	bool send = true, throttled;
	u64 now;

	lockdep_assert_held(&rpc->hsk->lock);
	homa_pace_params_read(hnet, &p);
	bytes = homa_xmit_pkt_bytes(rpc, skb);
	spin_lock(&pacer->lock);
	now = homa_clock_ns();
	__homa_pacer_read_held(hnet);
	__homa_pacer_held_limit(hnet, &p, now);
	throttled = !list_empty(&pacer->srpt);
	if (!homa_pacer_enabled(hnet))
		homa_pace_sent(&pacer->state, &p, now, bytes);
	else if (!list_empty(&rpc->pacer_links) ||
		 homa_pace_decide(&pacer->state, &p, now, bytes, out->length, 0,
				  throttled) != HOMA_PACE_SEND)
		send = false;
	if (send) {
		homa_rtt_unsched_sent(&pacer->unsched, homa_pacer_payload(skb),
				      pk->unsched, throttled);
		if (out->length >= p.throttle_min_bytes)
			__homa_pacer_note_queue(hnet, now);
	} else {
		__homa_pacer_throttle(rpc, out->length - out->next_xmit_offset);
	}
	spin_unlock(&pacer->lock);
	return send;
}

/**
 * homa_pacer_unthrottle() - Forget an RPC that ends while it may still
 * wait for the pacer.
 * @rpc: the RPC; the caller holds its socket's lock.
 */
void homa_pacer_unthrottle(struct homa_rpc *rpc)
{
	struct homa_pacer *pacer = &rpc->hsk->hnet->pacer;

	lockdep_assert_held(&rpc->hsk->lock);
	spin_lock_bh(&pacer->lock);
	__homa_pacer_remove(rpc);
	spin_unlock_bh(&pacer->lock);
}

/*
 * The throttled RPC to serve next (homa_pace_pick() between the first in
 * SRPT order and the oldest), or NULL; @fifo tells which it was.
 */
static struct homa_rpc *__homa_pacer_pick(struct homa_pacer *pacer,
					  const struct homa_pace_params *p,
					  int *fifo)
{
	struct homa_pace_cand cands[2];
	struct homa_rpc *rpcs[2];
	int i;

	lockdep_assert_held(&pacer->lock);
	*fifo = 0;
	if (list_empty(&pacer->srpt))
		return NULL;
	rpcs[0] = list_first_entry(&pacer->srpt, struct homa_rpc, pacer_links);
	rpcs[1] = list_first_entry(&pacer->fifo, struct homa_rpc,
				   pacer_fifo_links);
	for (i = 0; i < 2; i++) {
		cands[i].id = rpcs[i]->id;
		cands[i].birth = rpcs[i]->msgout.birth;
		cands[i].remaining = rpcs[i]->pacer_remaining;
	}
	i = homa_pace_pick(&pacer->state, p, cands, rpcs[0] == rpcs[1] ? 1 : 2,
			   fifo);
	return i < 0 ? NULL : rpcs[i];
}

/*
 * Account for the pacer thread sending packet @pk of @rpc (both locks
 * held): the queue, the FIFO credit, the RPC's place in SRPT order.
 */
static void __homa_pacer_account(struct homa_rpc *rpc,
				 const struct homa_msgout_peek *pk,
				 const struct homa_pace_params *p, u64 now,
				 int fifo)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	struct homa_pacer *pacer = &hnet->pacer;
	u32 payload = homa_pacer_payload(pk->skb);

	lockdep_assert_held(&pacer->lock);
	homa_pace_sent(&pacer->state, p, now,
		       homa_xmit_pkt_bytes(rpc, pk->skb));
	homa_pace_charge(&pacer->state, p, payload, fifo);
	homa_rtt_unsched_sent(&pacer->unsched, payload, pk->unsched, 1);
	__homa_pacer_note_queue(hnet, now);
	homa_metric_add(hnet, HOMA_M_pacer_bytes, payload);
	__homa_pacer_remove(rpc);
	rpc->pacer_remaining = pk->left;
	__homa_pacer_insert(pacer, rpc);
}

/*
 * Send the packet of @rpc that the pacer thread has accounted for; the
 * socket's lock is held. An RPC whose granted bytes are all out leaves
 * the lists: a new grant brings it back through homa_pacer_admit().
 */
static void homa_pacer_xmit(struct homa_rpc *rpc)
{
	struct homa_pacer *pacer = &rpc->hsk->hnet->pacer;
	struct homa_msgout_peek pk;

	lockdep_assert_held(&rpc->hsk->lock);
	homa_xmit_data_next(rpc);
	if (homa_msgout_peek(rpc, &pk))
		return;
	spin_lock(&pacer->lock);
	__homa_pacer_remove(rpc);
	spin_unlock(&pacer->lock);
}

/*
 * The most lead the thread may take (homa_pace_lead()): pacer_lead_max_ns,
 * and no more than one full-size DATA packet's time on the link, so the
 * queue holds at most one packet more than max_nic_queue_ns allows.
 */
static u64 homa_pacer_lead_max(struct homa_net *hnet,
			       const struct homa_pace_params *p)
{
	u64 max = (u32)homa_cfg(hnet, pacer_lead_max_ns);
	u32 pkt;

	if (!max)
		return 0;
	pkt = homa_pace_pkt_max(p, homa_cfg(hnet, max_gso_size));
	return min(max, homa_pace_wire_ns(pkt, p->link_mbps));
}

/*
 * Fold how late the thread's timed sleep ended (it was to end at
 * *@wake_at; NULL or 0: no such sleep) into the lead, and add the lead to
 * @p's queue bound.
 */
static void __homa_pacer_lead(struct homa_net *hnet,
			      struct homa_pace_params *p, u64 now,
			      const u64 *wake_at)
{
	struct homa_pacer *pacer = &hnet->pacer;
	u64 lead_max = homa_pacer_lead_max(hnet, p);

	lockdep_assert_held(&pacer->lock);
	if (wake_at && *wake_at) {
		u64 late = now > *wake_at ? now - *wake_at : 0;

		homa_metric_inc(hnet, HOMA_M_pacer_sleeps);
		homa_metric_add(hnet, HOMA_M_pacer_oversleep_ns, late);
		pacer->lead = homa_pace_lead(pacer->lead, late, lead_max);
	}
	/* At most 1e9 + 1e8 (the sysctl ranges): fits in a u32. */
	p->max_nic_queue_ns += min(pacer->lead, lead_max);
}

/*
 * One step of the pacer: send one throttled packet if the queue has room.
 * @wake_at: the thread's, NULL for the timer: when the thread's timed
 * sleep just before was to end (0 if it did not sleep); set to when the
 * sleep this step asks for is to end. After a sleep, a queue that ran dry
 * meanwhile is time the link lost to the thread's wake-up, and how late
 * it woke moves the lead. @held: set to the limit to wait for if the host
 * holds as much DATA as it may (then the return is not 0), else to 0.
 * Return: 0 to go on at once, or ns to sleep first.
 */
static u64 homa_pacer_step(struct homa_net *hnet, u64 *wake_at, u32 *held)
{
	struct homa_pacer *pacer = &hnet->pacer;
	struct homa_pace_params p;
	struct homa_rpc *rpc = NULL;
	struct homa_msgout_peek pk;
	bool slept = wake_at && *wake_at;
	u64 now, wait = 0;
	bool found;
	int fifo;

	*held = 0;
	homa_pace_params_read(hnet, &p);
	local_bh_disable();
	spin_lock(&pacer->lock);
	now = homa_clock_ns();
	__homa_pacer_read_held(hnet);
	__homa_pacer_held_limit(hnet, &p, now);
	__homa_pacer_lead(hnet, &p, now, wake_at);
	if (homa_pacer_enabled(hnet)) {
		wait = homa_pace_wait_ns(&pacer->state, &p, now);
		if (!wait && homa_pace_held_full(&pacer->state, &p)) {
			__homa_pacer_held_full(hnet, now);
			*held = p.held_max;
			wait = HOMA_PACER_RETRY_NS;
		}
	}
	if (!wait)
		rpc = __homa_pacer_pick(pacer, &p, &fifo);
	if (!rpc)
		goto unlock;
	/* Against the lock order, so only a try (see homa_impl.h). */
	if (!spin_trylock(&rpc->hsk->lock)) {
		homa_metric_inc(hnet, HOMA_M_pacer_lock_busy);
		wait = HOMA_PACER_RETRY_NS;
		goto unlock;
	}
	found = homa_msgout_peek(rpc, &pk);
	if (found) {
		if (slept && now > pacer->state.link_idle)
			homa_metric_add(hnet, HOMA_M_pacer_late_ns,
					now - pacer->state.link_idle);
		__homa_pacer_account(rpc, &pk, &p, now, fifo);
	} else {
		__homa_pacer_remove(rpc);
	}
	spin_unlock(&pacer->lock);
	if (found) {
		homa_pacer_xmit(rpc);
		if (!wake_at)
			homa_metric_inc(hnet, HOMA_M_pacer_tick_sends);
	}
	spin_unlock(&rpc->hsk->lock);
	local_bh_enable();
	if (wake_at)
		*wake_at = 0;
	return 0;

unlock:
	spin_unlock(&pacer->lock);
	local_bh_enable();
	if (wake_at)
		*wake_at = wait ? now + wait : 0;
	return wait;
}

/* Sleep @ns (or until woken to stop) without holding any lock. */
static void homa_pacer_sleep(u64 ns)
{
	ktime_t until = ns_to_ktime(ns);

	set_current_state(TASK_INTERRUPTIBLE);
	if (kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	schedule_hrtimeout_range(&until, min_t(u64, ns / 2,
					       HOMA_PACER_MAX_SLACK_NS),
				 HRTIMER_MODE_REL);
}

/*
 * A lockless peek at whether nothing waits for the pacer. It may be
 * wrong: moving a throttled RPC to its new place takes it off the lists
 * and puts it back under the lock, and a peek in between sees them empty.
 * The timer and received packets only help, so a wrong answer costs them
 * a step or leaves a packet to the thread; the thread decides to sleep
 * only under the lock (homa_pacer_wait_work()). It once trusted the peek,
 * went to sleep while the lists held messages, and, as nothing woke it
 * until they emptied, left a backlogged host to the timer's steps: about
 * half its link for whole benchmark runs.
 */
static bool homa_pacer_idle(struct homa_pacer *pacer)
{
	return list_empty_careful(&pacer->srpt);
}

/*
 * The thread's wait for work: decide under the lock that nothing waits,
 * and sleep until the first insertion (__homa_pacer_insert()) clears
 * @thread_idle and wakes it; return at once if something waits. Return:
 * true if the thread slept.
 */
static bool homa_pacer_wait_work(struct homa_pacer *pacer)
{
	bool idle;

	spin_lock_bh(&pacer->lock);
	idle = list_empty(&pacer->srpt);
	WRITE_ONCE(pacer->thread_idle, idle);
	spin_unlock_bh(&pacer->lock);
	if (!idle)
		return false;
	wait_event_interruptible(pacer->wait, kthread_should_stop() ||
				 !READ_ONCE(pacer->thread_idle));
	/* Woken to stop (or by a signal): no longer idle either way. */
	spin_lock_bh(&pacer->lock);
	pacer->thread_idle = false;
	spin_unlock_bh(&pacer->lock);
	return true;
}

static int homa_pacer_main(void *arg)
{
	struct homa_net *hnet = arg;
	struct homa_pacer *pacer = &hnet->pacer;
	u64 wake_at = 0, wait;
	u32 held;

	while (!kthread_should_stop()) {
		/* The peek saves the lock while messages wait. */
		if (homa_pacer_idle(pacer) && homa_pacer_wait_work(pacer)) {
			homa_metric_inc(hnet, HOMA_M_pacer_wakeups);
			wake_at = 0;
			continue;
		}
		wait = homa_pacer_step(hnet, &wake_at, &held);
		if (held) {
			u64 t0 = homa_clock_ns();

			/* Not a timed sleep: no news of the lead. */
			homa_metric_inc(hnet, HOMA_M_pacer_held_waits);
			homa_txhost_wait(pacer->host, held,
					 HOMA_PACER_HELD_WAIT_JIFFIES);
			homa_metric_add(hnet, HOMA_M_pacer_held_ns,
					homa_clock_ns() - t0);
			wake_at = 0;
		} else if (wait) {
			homa_pacer_sleep(wait);
		}
		cond_resched();
	}
	return 0;
}

/**
 * homa_pacer_tick() - Called by the timer every tick. Sends a few
 * throttled packets if the queue has room (the thread is an ordinary
 * thread: on a busy host it may not run for a while, and its messages
 * must not stall), and ends an interval of the adaptive unscheduled
 * window: halves it if too few unscheduled bytes went out while messages
 * were throttled, grows it back when none are.
 * @hnet: the namespace's Homa host.
 */
void homa_pacer_tick(struct homa_net *hnet)
{
	struct homa_pacer *pacer = &hnet->pacer;
	u32 max = homa_cfg(hnet, unsched_bytes);
	u32 before, after, held;
	int i;

	for (i = 0; i < HOMA_PACER_HELP_PKTS && !homa_pacer_idle(pacer); i++)
		if (homa_pacer_step(hnet, NULL, &held))
			break;

	spin_lock_bh(&pacer->lock);
	before = pacer->unsched.window;
	after = homa_rtt_unsched_update(&pacer->unsched,
					!list_empty(&pacer->srpt),
					max / HOMA_RTT_UNSCHED_GROW_DIV, max);
	spin_unlock_bh(&pacer->lock);
	if (after < before)
		homa_metric_inc(hnet, HOMA_M_unsched_halvings);
}

/**
 * homa_pacer_help() - Called after each packet the host receives: with
 * pacer_rx_help, if messages wait for the pacer and, by the estimate, the
 * NIC queue has drained to max_nic_queue_ns, take one pacer step now. The
 * thread's timed sleeps end late (by 0.1 to 5 ms under emulation), and a
 * queue that drains meanwhile leaves the link idle while packets wait; a
 * busy host receives packets (among them GRANTs for the very messages
 * that wait) more often than that. Called with no Homa lock held.
 * @hnet: the namespace's Homa host.
 */
void homa_pacer_help(struct homa_net *hnet)
{
	struct homa_pacer *pacer = &hnet->pacer;
	u32 held;

	if (!homa_cfg(hnet, pacer_rx_help) || homa_pacer_idle(pacer) ||
	    !homa_pacer_enabled(hnet))
		return;
	/*
	 * Without the lock: a stale estimate costs a step that sends
	 * nothing, or leaves the packet to the thread. A u64 is read whole
	 * on the 64-bit machines Homa builds for.
	 */
	if (!homa_pace_drained(READ_ONCE(pacer->state.link_idle),
			       (u32)homa_cfg(hnet, max_nic_queue_ns),
			       homa_clock_ns()))
		return;
	homa_metric_inc(hnet, HOMA_M_pacer_rx_helps);
	homa_pacer_step(hnet, NULL, &held);
}

/**
 * homa_pacer_view() - The pacer's state now, for /proc/net/homa_rpcs.
 * @hnet: the namespace's Homa host.
 * @v: filled in.
 */
void homa_pacer_view(struct homa_net *hnet, struct homa_pacer_view *v)
{
	struct homa_pacer *pacer = &hnet->pacer;
	struct homa_rpc *rpc;

	memset(v, 0, sizeof(*v));
	spin_lock_bh(&pacer->lock);
	v->queue_ns = homa_pace_queue_ns(&pacer->state, homa_clock_ns());
	v->fifo_credit = pacer->state.fifo_credit;
	v->lead_ns = pacer->lead;
	v->unsched_window = pacer->unsched.window;
	v->thread_idle = pacer->thread_idle;
	list_for_each_entry(rpc, &pacer->srpt, pacer_links) {
		if (!v->listed++) {
			v->srpt_id = rpc->id;
			v->srpt_remaining = rpc->pacer_remaining;
		}
	}
	if (!list_empty(&pacer->fifo)) {
		rpc = list_first_entry(&pacer->fifo, struct homa_rpc,
				       pacer_fifo_links);
		v->fifo_id = rpc->id;
	}
	spin_unlock_bh(&pacer->lock);
}

/**
 * homa_pacer_held_lately() - Has the pacer waited for the host's held
 * count (pacer_held_max_kb) in the last second?
 * @hnet: the namespace's Homa host.
 *
 * Return: true if it has.
 */
bool homa_pacer_held_lately(struct homa_net *hnet)
{
	unsigned long until = READ_ONCE(hnet->pacer.held_until);

	return until && time_before(jiffies, until);
}

/**
 * homa_pacer_unsched_window() - Bytes a new message may send before any
 * grant.
 * @hnet: the namespace's Homa host.
 *
 * Return: the adaptive window if unsched_adaptive is on, else
 * unsched_bytes.
 */
u32 homa_pacer_unsched_window(struct homa_net *hnet)
{
	struct homa_pacer *pacer = &hnet->pacer;
	u32 window = homa_cfg(hnet, unsched_bytes);

	if (!homa_cfg(hnet, unsched_adaptive))
		return window;
	spin_lock_bh(&pacer->lock);
	window = min(window, pacer->unsched.window);
	spin_unlock_bh(&pacer->lock);
	return window;
}

/**
 * homa_pacer_net_init() - Set up a namespace's pacer and start its
 * thread.
 * @hnet: the new namespace's Homa host; its config holds the defaults.
 *
 * Return: 0, or the error of creating the thread.
 */
int homa_pacer_net_init(struct homa_net *hnet)
{
	struct homa_pacer *pacer = &hnet->pacer;

	spin_lock_init(&pacer->lock);
	homa_pace_init(&pacer->state, homa_clock_ns());
	INIT_LIST_HEAD(&pacer->srpt);
	INIT_LIST_HEAD(&pacer->fifo);
	pacer->queue_max = 0;
	homa_rtt_unsched_init(&pacer->unsched, hnet->config.unsched_bytes);
	init_waitqueue_head(&pacer->wait);
	pacer->thread_idle = false;
	pacer->held_max = 0;
	memset(&pacer->drain, 0, sizeof(pacer->drain));
	pacer->drain_kbps = 0;
	pacer->host = homa_txhost_new();
	pacer->thread = kthread_run(homa_pacer_main, hnet, "homa_pacer/%u",
				    hnet->net->ns.inum);
	if (IS_ERR(pacer->thread)) {
		int err = PTR_ERR(pacer->thread);

		pacer->thread = NULL;
		homa_txhost_put(pacer->host);
		pacer->host = NULL;
		return err;
	}
	return 0;
}

/**
 * homa_pacer_net_exit() - Stop a namespace's pacer thread.
 * @hnet: the Homa host of the namespace going away; its sockets are
 *        gone, so no RPC is throttled.
 */
void homa_pacer_net_exit(struct homa_net *hnet)
{
	struct homa_pacer *pacer = &hnet->pacer;

	if (pacer->thread)
		kthread_stop(pacer->thread);
	pacer->thread = NULL;
	WARN_ON_ONCE(!list_empty(&pacer->srpt));
	/* Copies still in the stack keep the count until they go. */
	homa_txhost_put(pacer->host);
	pacer->host = NULL;
}
