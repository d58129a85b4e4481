/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The receiver's grant decisions: which incoming messages get
 * grants now (SRPT with overcommitment, one message per peer first), how
 * far each grant reaches (the window, capped by max_incoming), the small
 * FIFO share that keeps the oldest message from starving, and the
 * scheduled priority each grant carries. homa_srpt.c is a decision file:
 * the kernel gathers its incoming messages into an array of
 * struct homa_srpt_cand and sends a GRANT for each decision returned; no
 * locks, no allocation, no clock.
 */

#ifndef _HOMA_SRPT_H
#define _HOMA_SRPT_H

#include "homa_types.h"

/* Most messages granted to at once (the range of max_overcommit). */
#define HOMA_SRPT_MAX_OVERCOMMIT 64

/* Most candidates one decision considers (indexes fit in a u8). */
#define HOMA_SRPT_MAX_CANDS 128

/* homa_srpt_cand.flags: no receive buffer yet, so never granted. */
#define HOMA_SRPT_STALLED 0x1

/* A suggested fifo_increment: bytes of one FIFO grant. */
#define HOMA_SRPT_DEFAULT_FIFO_INCREMENT 10000

/*
 * Most full FIFO grants the FIFO share may fall behind by (when grants
 * are trimmed by max_incoming); more credit than that is forgotten.
 */
#define HOMA_SRPT_FIFO_MAX_BEHIND 64

/* struct homa_srpt_cand.scale of a whole window. */
#define HOMA_SRPT_SCALE_FULL 1024

/*
 * A scaled window is never below this many bytes, so a congested sender
 * still moves: a stored packet on a slow link (HOMA_PACE_PKT_FLOOR), the
 * least that went per message while a packet went whole once its first
 * byte was granted. Since a sender stops at the segment that holds the
 * granted offset, a floor of one 1500-byte packet let the reaction
 * starve Homa beside TCP (5-18% of the link, util/README-bench.md); with
 * this floor a congested peer gives up messages (homa_srpt_peer_limit())
 * rather than bytes per message where windows are at rtt_window_min.
 */
#define HOMA_SRPT_MIN_WINDOW 10000

/**
 * struct homa_srpt_cand - one incoming message the grant decision may
 * consider. The caller fills one per message from its own state; all
 * offsets are byte offsets in the message.
 */
struct homa_srpt_cand {
	/** @id: the RPC's id; not used by the decision, kept for the caller. */
	u64 id;

	/**
	 * @peer: identifies the sending host (any value unique per peer,
	 * e.g. an index or an address hash without collisions).
	 */
	u64 peer;

	/**
	 * @birth: when the message's first packet arrived, in any clock
	 * that increases; smaller is older.
	 */
	u64 birth;

	/** @length: length of the message in bytes. */
	u32 length;

	/** @received: bytes of the message received so far. */
	u32 received;

	/** @granted: the sender may already send every byte below this. */
	u32 granted;

	/** @remaining: bytes still to arrive (the SRPT key). */
	u32 remaining;

	/**
	 * @unsched: bytes the sender sent before any grant (the grant
	 * offset its first packet carried): not the receiver's to budget,
	 * so they do not count against max_incoming
	 * (homa_srpt_outstanding()).
	 */
	u32 unsched;

	/** @flags: HOMA_SRPT_* bits. */
	u32 flags;

	/**
	 * @scale: the share of the window this message may be granted, in
	 * 1/HOMA_SRPT_SCALE_FULL (its sender's path is congested); 0 or
	 * HOMA_SRPT_SCALE_FULL for the whole window.
	 */
	u32 scale;
};

/**
 * struct homa_srpt_params - the configuration a grant decision uses
 * (from net.homa.* and the cutoffs; see homa_config.h).
 */
struct homa_srpt_params {
	/** @max_overcommit: most messages granted at once (1..64). */
	u32 max_overcommit;

	/** @window: bytes granted beyond @received; 0 means dynamic. */
	u32 window;

	/** @max_incoming: most granted-but-unreceived bytes in total. */
	u32 max_incoming;

	/**
	 * @max_sched_prio: highest priority level for scheduled packets
	 * (homa_prio_max_sched() of the host's cutoffs).
	 */
	u32 max_sched_prio;

	/** @fifo_fraction: per mille of granted bytes for the oldest. */
	u32 fifo_fraction;

	/** @fifo_increment: bytes of one FIFO grant. */
	u32 fifo_increment;

	/**
	 * @grant_increment: new bytes worth a GRANT (homa_srpt_grants()
	 * waits for at least this many, or half the message's window if
	 * less, unless the message would run dry or the grant reaches its
	 * end); 0 grants every new byte at once.
	 */
	u32 grant_increment;
};

/**
 * struct homa_srpt_fifo - what the FIFO share remembers between
 * decisions; one per receiver, kept by the caller.
 */
struct homa_srpt_fifo {
	/**
	 * @credit: SRPT bytes granted times fifo_fraction, less FIFO
	 * bytes granted times (1000 - fifo_fraction); a FIFO grant is due
	 * when it reaches fifo_increment * (1000 - fifo_fraction).
	 */
	u64 credit;
};

/**
 * struct homa_srpt_grant - one decision: message @index may now be sent
 * up to @offset, at priority @priority.
 */
struct homa_srpt_grant {
	/** @index: the message, as an index in the candidate array. */
	u32 index;

	/**
	 * @offset: the new grant offset, never below the message's
	 * granted; equal to it when no new bytes fit under max_incoming.
	 */
	u32 offset;

	/** @priority: level for the message's scheduled packets. */
	u8 priority;

	/** @fifo: 1 for the FIFO grant to the oldest message, else 0. */
	u8 fifo;

	/** @rank: position in SRPT order (0 = first); 0 for FIFO grants. */
	u16 rank;
};

u32 homa_srpt_peer_limit(u32 max_overcommit, u32 scale);
u32 homa_srpt_rank(const struct homa_srpt_cand *cands, u32 n,
		   u32 max_overcommit, u32 *ranked);
u32 homa_srpt_window(const struct homa_srpt_params *p, u32 active);
u32 homa_srpt_scaled(u32 window, u32 scale);
u64 homa_srpt_outstanding(const struct homa_srpt_cand *cands, u32 n);
u8 homa_srpt_sched_prio(u32 rank, u32 active, u32 max_sched_prio);
void homa_srpt_fifo_init(struct homa_srpt_fifo *f);
u32 homa_srpt_grants(const struct homa_srpt_params *p,
		     struct homa_srpt_fifo *fifo,
		     const struct homa_srpt_cand *cands, u32 n,
		     u64 other_incoming, struct homa_srpt_grant *out);

#endif /* _HOMA_SRPT_H */
