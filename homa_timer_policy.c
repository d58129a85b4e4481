// SPDX-License-Identifier: GPL-2.0+
/*
 * Retransmission decisions: the probe state of an RPC, the events that
 * change it, and the tick's verdict (see homa_timer_policy.h). A decision
 * file: no locks, no clocks (the caller passes the elapsed ms).
 */

#include "homa_timer_policy.h"

/**
 * homa_probe_init() - Start an RPC's probe state.
 * @p: the state.
 */
void homa_probe_init(struct homa_probe *p)
{
	memset(p, 0, sizeof(*p));
}

/*
 * A new silence starts: it counts from zero and has its whole bound of
 * outranked ticks again. The probes sent so far are kept.
 */
static void homa_probe_silence_restarts(struct homa_probe *p)
{
	p->silent_ms = 0;
	p->outranked_ms = 0;
	p->outrank_spent = false;
}

/* The peer spoke, or this side let it go on: a new silence starts. */
static void homa_probe_silence_ends(struct homa_probe *p)
{
	homa_probe_silence_restarts(p);
	p->probes = 0;
}

/**
 * homa_probe_heard() - The peer sent a packet for the RPC.
 * @p: the RPC's probe state.
 * @asks: the packet asks for something and brings nothing this side
 *	waits for: a NEED_ACK (its sender thinks it has sent everything),
 *	or a RESEND while this side still waits for bytes of its incoming
 *	message. It is not progress: our silence goes on counting and our
 *	probe asks for what is missing once it is overdue.
 * @busy: the packet is a BUSY: the peer is alive with nothing to send,
 *	so we ask less and less often. It also vouches for the RPC, whose
 *	bytes wait in the peer (its pacer ranks them below others): no
 *	stall counts until then.
 */
void homa_probe_heard(struct homa_probe *p, bool asks, bool busy)
{
	if (asks)
		return;
	homa_probe_silence_ends(p);
	if (busy) {
		p->busy_backoff = min_t(int, p->busy_backoff + 1,
					HOMA_BUSY_BACKOFF_MAX);
		p->since_probe_ms = 0;
		p->stall_ms = 0;
	} else {
		p->busy_backoff = 0;
		/* After silence, the first probe goes out without waiting. */
		p->since_probe_ms = HOMA_PROBE_OVERDUE_MS;
	}
}

/**
 * homa_probe_progress() - The RPC moved on: new bytes of its incoming
 * message arrived, or its peer asked for bytes again (it still works on
 * our message).
 * @p: the RPC's probe state.
 */
void homa_probe_progress(struct homa_probe *p)
{
	p->stall_ms = 0;
}

/**
 * homa_probe_replied() - A server handed its response over: the client's
 * silence counts from now (the probes it sent so far still count).
 * @p: the RPC's probe state.
 */
void homa_probe_replied(struct homa_probe *p)
{
	homa_probe_silence_restarts(p);
}

/*
 * Does the stall limit apply? Not to a client still waiting for a word,
 * nor to a message that only waits for the FIFO share of this host's
 * grants.
 */
static bool homa_probe_stall_counts(const struct homa_probe_view *v)
{
	return !(v->receiving && (v->nothing_yet || v->grant_wait));
}

/**
 * homa_probe_stall_half() - Has the RPC gone half of @par->stall_ms
 * without progress? Then an outranked wait ends (homa_probe_tick()): on
 * the incast bed with max_overcommit 32, responses granted 10-23 KB at
 * level 0 received none of it for 10 s, counted no silence because data
 * at higher levels kept arriving (a message still to be granted more has
 * no other bound), never sent a RESEND and failed with ETIMEDOUT on live
 * servers. Its probes get the other half: where the probe interval is
 * short next to stall_ms (as there), room for HOMA_PROBE_URGENT of them
 * and one at the top level; a longer interval may leave room for fewer.
 * @p: the RPC's probe state.
 * @par: its timing.
 *
 * Return: true once half the stall bound has passed (never with
 * stall_ms 0).
 */
bool homa_probe_stall_half(const struct homa_probe *p,
			   const struct homa_probe_params *par)
{
	return par->stall_ms && p->stall_ms >= par->stall_ms / 2;
}

/**
 * homa_probe_tick() - Count @ms of waiting and say what to do now.
 * @p: the RPC's probe state.
 * @v: the RPC's situation.
 * @par: its timing.
 * @ms: time since the last tick.
 *
 * Past @par->stall_ms without progress the RPC stalls, even while this
 * host holds its message back for buffer space (a forged message that
 * nothing would ever complete must not live forever), but not while it
 * only waits for grants that the FIFO share will give (@v->grant_wait).
 * A held message counts no silence; an outranked one (@v->outranked)
 * counts none at this tick and keeps what it counted; once the message
 * is granted to its end (@v->granted_all), only until such ticks have
 * left @par->outranked_ms of this silence uncounted, and in any case
 * only until the stall has counted half its bound
 * (homa_probe_stall_half()): from then on they count. The RPC times out
 * only when it has been silent for @par->timeout_ms, HOMA_TIMEOUT_PROBES
 * probes went unanswered and its whole peer is silent.
 * Otherwise it probes after @par->wait_ms of silence, then every
 * @par->interval_ms; after BUSY answers in a row, every @par->busy_ms
 * doubled for each of them (up to HOMA_BUSY_BACKOFF_MAX times), at least
 * @par->drain_ms. Either is doubled for each unanswered probe (up to
 * HOMA_PROBE_DOUBLINGS times).
 *
 * A BUSY does not scale the retransmission timeout: that timeout guesses
 * how long a silence means loss, and a BUSY has just ended the silence.
 * Scaled, a timeout taken from delays measured under a queue (hundreds of
 * ms) would make a message whose sender still holds copies of its packets
 * (BUSY) wait up to 32 such timeouts for its next RESEND, its granted
 * bytes holding the grant budget meanwhile.
 *
 * Return: the action.
 */
enum homa_probe_action homa_probe_tick(struct homa_probe *p,
				       const struct homa_probe_view *v,
				       const struct homa_probe_params *par,
				       int ms)
{
	int interval;

	if (par->stall_ms && homa_probe_stall_counts(v)) {
		p->stall_ms += ms;
		if (p->stall_ms >= par->stall_ms)
			return HOMA_PROBE_STALL;
	}
	if (v->held) {
		/* Its silence starts when we let the sender go on. */
		homa_probe_silence_ends(p);
		return HOMA_PROBE_NONE;
	}
	if (v->outranked && !p->outrank_spent &&
	    !homa_probe_stall_half(p, par)) {
		if (!v->granted_all)
			return HOMA_PROBE_NONE;
		if (p->outranked_ms < par->outranked_ms) {
			p->outranked_ms += min_t(int, ms, par->outranked_ms -
						 p->outranked_ms);
			return HOMA_PROBE_NONE;
		}
	}
	if (v->outranked)
		p->outrank_spent = true;
	p->silent_ms += ms;
	p->since_probe_ms += ms;
	if (p->silent_ms >= par->timeout_ms &&
	    p->probes >= HOMA_TIMEOUT_PROBES && v->peer_silent)
		return HOMA_PROBE_TIMEOUT;
	if (p->silent_ms < par->wait_ms)
		return HOMA_PROBE_NONE;
	if (p->busy_backoff)
		interval = max_t(int, par->busy_ms << p->busy_backoff,
				 par->drain_ms);
	else
		interval = par->interval_ms;
	interval <<= min_t(int, p->probes, HOMA_PROBE_DOUBLINGS);
	if (p->since_probe_ms < interval)
		return HOMA_PROBE_NONE;
	return HOMA_PROBE_SEND;
}

/**
 * homa_probe_sent() - The probe homa_probe_tick() asked for went out.
 * @p: the RPC's probe state.
 */
void homa_probe_sent(struct homa_probe *p)
{
	p->since_probe_ms = 0;
	p->probes++;
}

/**
 * homa_probe_ask_now() - A NEED_ACK came for an RPC whose incoming message
 * is not complete: ask for what is missing now (RESEND), or say BUSY?
 * @p: the RPC's probe state.
 * @drain_ms: how long the link needs to deliver everything the host is
 *	owed. Silence shorter than that is most likely the queue ahead of
 *	the missing bytes, and asking would only queue copies behind it;
 *	so would asking again sooner than that after the last probe (a
 *	sender repeats its NEED_ACK every few milliseconds).
 * @outranked: DATA at a higher IP priority than the missing bytes'
 *	arrived in the last tick (resend_outranked): they wait behind it;
 *	not once the tick found this silence outranked for too long
 *	(homa_probe.outrank_spent).
 *
 * Return: true to ask now.
 */
bool homa_probe_ask_now(const struct homa_probe *p, int drain_ms,
			bool outranked)
{
	return (!outranked || p->outrank_spent) && p->silent_ms >= drain_ms &&
	       p->since_probe_ms >= drain_ms;
}

/**
 * homa_probe_urgent() - Should the probe about to go out ask for its copy
 * at the top level rather than at the highest scheduled one? Once
 * HOMA_PROBE_URGENT probes in a row went unanswered, the copies asked for
 * there are most likely dropped where that band overflows (on the incast
 * bed in a drop storm, every one for the 3 s of timeout_ticks, and the
 * client timed out on a live server). One segment at the top level, where
 * control packets go, gets through and proves the peer alive; hearing it
 * restarts the count, so the next silence asks at the usual level first.
 * An RPC that has asked at the top level before (homa_probe.urgent_once)
 * does so again after HOMA_PROBE_URGENT_AGAIN unanswered probes: the
 * storm that silenced the first ones most likely goes on, and waiting
 * for three doubling intervals per segment again made a 50 KB message
 * take seconds.
 * @p: the RPC's probe state, before the probe is reported sent.
 *
 * Return: true to ask for one segment at the top level.
 */
bool homa_probe_urgent(const struct homa_probe *p)
{
	return p->probes >= (p->urgent_once ? HOMA_PROBE_URGENT_AGAIN :
			     HOMA_PROBE_URGENT);
}

/**
 * homa_probe_urgent_asked() - A probe that homa_probe_urgent() said to
 * send at the top level is going out so (before homa_probe_sent()).
 * @p: the RPC's probe state.
 */
void homa_probe_urgent_asked(struct homa_probe *p)
{
	p->urgent_once = true;
}
