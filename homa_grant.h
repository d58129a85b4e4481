/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Receiver-side scheduling state of one Homa host (homa_grant.c) and
 * the unscheduled cutoffs it measures and advertises (homa_cutoffs.c).
 * The decisions themselves are in homa_srpt.c and homa_prio.c; what is
 * here is the kernel state they work on: the namespace's list of incoming
 * messages that still need grants, each message's entry on it, and the
 * histogram of incoming message sizes.
 */

#ifndef _HOMA_GRANT_H
#define _HOMA_GRANT_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "homa_prio.h"
#include "homa_srpt.h"

/* Most messages one grant decision considers (the shortest ones). */
#define HOMA_GRANT_MAX_CANDS HOMA_SRPT_MAX_CANDS

/* Most GRANTs one pass of the scheduler sends; more wait a pass. */
#define HOMA_GRANT_BATCH 16

/* Timer ticks between two computations of the unscheduled cutoffs. */
#define HOMA_CUTOFFS_TICKS 100

/* Messages after which the size histogram halves (ages out old ones). */
#define HOMA_CUTOFFS_HALF_LIFE 1000

/**
 * struct homa_grant_rpc - an incoming message's entry in its namespace's
 * grant list. Every field is protected by homa_grant.lock.
 */
struct homa_grant_rpc {
	/**
	 * @node: node in homa_grant.rpcs; cleared (RB_EMPTY_NODE) when the
	 * message is not in the tree.
	 */
	struct rb_node node;

	/** @birth: homa_grant.next_birth when the message joined. */
	u64 birth;

	/** @length: the message's length. */
	u32 length;

	/** @received: bytes of the message received so far. */
	u32 received;

	/**
	 * @owed: granted bytes of the message not yet received, as counted
	 * in homa_grant.owed.
	 */
	u32 owed;
};

/**
 * struct homa_grant - the grant scheduler of one namespace.
 */
struct homa_grant {
	/**
	 * @lock: protects everything here, every homa_grant_rpc and the
	 * granted offset (homa_msgin.granted) of messages on @rpcs. Taken
	 * after homa_sock.lock; nothing is sent while it is held.
	 */
	spinlock_t lock;

	/**
	 * @rpcs: incoming messages (of every socket of the namespace) that
	 * are longer than their unscheduled bytes and not yet complete, in
	 * a tree ordered by bytes remaining, then age (the first is the
	 * shortest): joining, moving and leaving cost O(log n).
	 */
	struct rb_root_cached rpcs;

	/** @next_birth: gives every message joining @rpcs its age. */
	u64 next_birth;

	/** @num_listed: messages in @rpcs (the timer reads it unlocked). */
	u32 num_listed;

	/**
	 * @owed: the sum of homa_grant_rpc.owed over @rpcs, kept as they
	 * change, so that a decision reads what the messages past its
	 * candidates are owed without walking them.
	 */
	u64 owed;

	/** @fifo: what the FIFO share remembers between decisions. */
	struct homa_srpt_fifo fifo;

	/** @cands: scratch: the candidates of one decision. */
	struct homa_srpt_cand cands[HOMA_GRANT_MAX_CANDS];

	/** @cand_rpcs: scratch: the RPC of each entry of @cands. */
	struct homa_rpc *cand_rpcs[HOMA_GRANT_MAX_CANDS];

	/** @out: scratch: the decisions of one pass. */
	struct homa_srpt_grant out[HOMA_SRPT_MAX_OVERCOMMIT + 1];
};

/**
 * struct homa_cutoffs - the sizes of a namespace's incoming messages and
 * the computation of its unscheduled cutoffs from them.
 */
struct homa_cutoffs {
	/** @lock: protects @hist and @samples (a leaf lock). */
	spinlock_t lock;

	/** @hist: sizes of recently received messages. */
	struct homa_prio_hist hist;

	/** @samples: messages recorded since the last computation. */
	u32 samples;

	/**
	 * @work: computes the cutoffs in process context, where the
	 * configuration's mutex may be taken.
	 */
	struct work_struct work;
};

struct homa_net;
struct homa_peer;
struct homa_pkt;
struct homa_rpc;
struct homa_sock;

/* homa_grant.c */
void homa_grant_init(struct homa_grant *g);
void homa_grant_rpc_init(struct homa_grant_rpc *gr);
void homa_grant_update(struct homa_rpc *rpc);
void homa_grant_remove(struct homa_rpc *rpc);
bool homa_grant_unlist(struct homa_rpc *rpc);
void homa_grant_reschedule(struct homa_net *hnet);

/* homa_cutoffs.c */
void homa_cutoffs_init(struct homa_net *hnet);
void homa_cutoffs_exit(struct homa_net *hnet);
void homa_cutoffs_record(struct homa_net *hnet, u32 length);
void homa_cutoffs_tick(struct homa_net *hnet);
void homa_cutoffs_resync(struct homa_sock *hsk, struct homa_peer *peer,
			 const struct homa_pkt *pkt);
void homa_cutoffs_pkt(struct homa_net *hnet, struct homa_peer *peer,
		      const struct homa_pkt *pkt);
u8 homa_cutoffs_unsched_prio(struct homa_net *hnet, struct homa_peer *peer,
			     u32 length);
void homa_cutoffs_get(struct homa_net *hnet, u32 *cutoffs);
u8 homa_cutoffs_max_sched(struct homa_net *hnet);

#endif /* _HOMA_GRANT_H */
