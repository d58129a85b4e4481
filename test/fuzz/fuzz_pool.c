// SPDX-License-Identifier: GPL-2.0+
/*
 * libFuzzer target for homa_pool.c, aimed at the offsets an application
 * hands back (SO_HOMA_RCVBUF fragments returned through recvmsg). The
 * input picks a region of 1 to 32 bpages and a sequence of operations:
 * allocate a message of some length, give back a fragment that is out, or
 * give back an arbitrary offset (misaligned, never handed out, returned
 * twice, past the region). A naive model keeps the list of fragments out.
 * Checked after every step: a release succeeds exactly when the model has
 * that fragment out, and a refused one changes nothing; a new message's
 * fragments lie inside the region, are aligned and overlap nothing that
 * is out (so no bpage is handed out twice); -ENOMEM only when the model
 * has too few unused bpages, and then nothing changes; refs and start bits
 * match the model; the free stack holds distinct, unused bpages and every
 * unused bpage that is not the partial one; avail_bytes() agrees.
 */

#include <stdio.h>
#include <stdlib.h>

#include "homa_pool.h"

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_pool: %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#define MAX_BPAGES 32
#define MAX_FRAGS (MAX_BPAGES * (HOMA_BPAGE_SIZE / HOMA_POOL_ALIGN))

/* A fragment the model has out: [offset, offset + bytes). */
struct frag {
	u32 offset;
	u32 bytes;
};

static struct frag frags[MAX_FRAGS];
static u32 num_frags;

static struct homa_pool_state pool;
static struct homa_bpage *bpages;
static u32 *stack;

/* A copy of everything the pool may change, to check "nothing changed". */
struct snapshot {
	struct homa_pool_state s;
	struct homa_bpage b[MAX_BPAGES];
	u32 stack[MAX_BPAGES];
};

static void take(struct snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	snap->s = pool;
	memcpy(snap->b, bpages, pool.num_bpages * sizeof(*bpages));
	memcpy(snap->stack, stack, pool.num_free * sizeof(*stack));
}

static void check_unchanged(const struct snapshot *before)
{
	struct snapshot now;

	take(&now);
	FUZZ_CHECK(!memcmp(before, &now, sizeof(now)));
}

static int frag_find(u32 offset)
{
	u32 i;

	for (i = 0; i < num_frags; i++)
		if (frags[i].offset == offset)
			return (int)i;
	return -1;
}

static u32 unused_bpages(void)
{
	u32 i, j, n = 0;

	for (i = 0; i < pool.num_bpages; i++) {
		for (j = 0; j < num_frags; j++)
			if (frags[j].offset >> HOMA_BPAGE_SHIFT == i)
				break;
		n += j == num_frags;
	}
	return n;
}

static void check_invariants(void)
{
	u32 refs[MAX_BPAGES] = { 0 };
	u8 starts[MAX_BPAGES][HOMA_POOL_STARTS_BYTES];
	u8 on_stack[MAX_BPAGES] = { 0 };
	u32 i, b, bit, room;

	memset(starts, 0, sizeof(starts));
	for (i = 0; i < num_frags; i++) {
		b = frags[i].offset >> HOMA_BPAGE_SHIFT;
		bit = (frags[i].offset & (HOMA_BPAGE_SIZE - 1)) /
		      HOMA_POOL_ALIGN;
		refs[b]++;
		starts[b][bit / 8] |= (u8)(1U << (bit % 8));
	}
	for (i = 0; i < pool.num_free; i++) {
		b = stack[i];
		FUZZ_CHECK(b < pool.num_bpages);
		FUZZ_CHECK(!on_stack[b]);
		on_stack[b] = 1;
		FUZZ_CHECK(b != pool.partial);
	}
	for (b = 0; b < pool.num_bpages; b++) {
		FUZZ_CHECK(bpages[b].refs == refs[b]);
		if (refs[b] == 0)
			FUZZ_CHECK(on_stack[b] || b == pool.partial);
		else
			FUZZ_CHECK(!on_stack[b]);
		FUZZ_CHECK(!memcmp(bpages[b].starts, starts[b],
				   HOMA_POOL_STARTS_BYTES));
	}
	FUZZ_CHECK(pool.partial == HOMA_POOL_NONE ||
		   pool.partial < pool.num_bpages);
	FUZZ_CHECK(pool.partial_used % HOMA_POOL_ALIGN == 0);
	FUZZ_CHECK(pool.partial_used <= HOMA_BPAGE_SIZE);
	room = pool.partial == HOMA_POOL_NONE ? 0 :
	       HOMA_BPAGE_SIZE - pool.partial_used;
	FUZZ_CHECK(homa_pool_avail_bytes(&pool) ==
		   (u64)pool.num_free * HOMA_BPAGE_SIZE + room);
}

static int overlaps(u32 offset, u32 bytes)
{
	u32 i;

	for (i = 0; i < num_frags; i++)
		if (offset < frags[i].offset + frags[i].bytes &&
		    frags[i].offset < offset + bytes)
			return 1;
	return 0;
}

static void do_alloc(u32 length)
{
	u32 offsets[HOMA_MAX_BPAGES], n = 0xdead, i, bytes;
	u32 n_full = length >> HOMA_BPAGE_SHIFT;
	u32 tail = length & (HOMA_BPAGE_SIZE - 1);
	struct snapshot before;
	int rc;

	take(&before);
	rc = homa_pool_alloc_msg(&pool, length, offsets, &n);
	if (length == 0 || length > HOMA_MAX_MESSAGE_LENGTH) {
		FUZZ_CHECK(rc == -EINVAL);
		check_unchanged(&before);
		return;
	}
	if (rc == -ENOMEM) {
		check_unchanged(&before);
		FUZZ_CHECK(n == 0xdead);
		FUZZ_CHECK(unused_bpages() < n_full + (tail != 0));
		return;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(n == n_full + (tail != 0));
	for (i = 0; i < n; i++) {
		bytes = i < n_full ? HOMA_BPAGE_SIZE :
			(tail + HOMA_POOL_ALIGN - 1) & ~(HOMA_POOL_ALIGN - 1);
		FUZZ_CHECK(offsets[i] % HOMA_POOL_ALIGN == 0);
		FUZZ_CHECK(i == n_full ||
			   offsets[i] % HOMA_BPAGE_SIZE == 0);
		FUZZ_CHECK((offsets[i] & (HOMA_BPAGE_SIZE - 1)) + bytes <=
			   HOMA_BPAGE_SIZE);
		FUZZ_CHECK((offsets[i] >> HOMA_BPAGE_SHIFT) < pool.num_bpages);
		FUZZ_CHECK(!overlaps(offsets[i], bytes));
		FUZZ_CHECK(num_frags < MAX_FRAGS);
		frags[num_frags].offset = offsets[i];
		frags[num_frags].bytes = bytes;
		num_frags++;
	}
}

static void do_release(u32 offset)
{
	struct snapshot before;
	int i = frag_find(offset);
	int rc;

	take(&before);
	rc = homa_pool_release(&pool, offset);
	if (i < 0) {
		FUZZ_CHECK(rc == -EINVAL);
		check_unchanged(&before);
		return;
	}
	FUZZ_CHECK(rc == 0);
	frags[i] = frags[--num_frags];
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u32 n, param;

	if (size < 1)
		return 0;
	n = 1 + data[0] % MAX_BPAGES;
	/* Arrays of exactly n entries: ASan sees any access past them. */
	bpages = malloc(n * sizeof(*bpages));
	stack = malloc(n * sizeof(*stack));
	FUZZ_CHECK(bpages && stack);
	memset(bpages, 0xa5, n * sizeof(*bpages));
	homa_pool_state_init(&pool, n, bpages, stack);
	num_frags = 0;
	check_invariants();
	for (data++, size--; size >= 4; data += 4, size -= 4) {
		param = (u32)data[1] << 16 | data[2] << 8 | data[3];
		switch (data[0] % 6) {
		case 0:		/* a short message, most of the time */
			do_alloc(param % (2 * HOMA_BPAGE_SIZE + 1));
			break;
		case 1:		/* any length, up to a bit past the limit */
			do_alloc(param % (HOMA_MAX_MESSAGE_LENGTH + 2));
			break;
		case 2:		/* give back a fragment that is out */
		case 3:
			if (num_frags)
				do_release(frags[param % num_frags].offset);
			break;
		case 4:		/* an aligned offset anywhere */
			do_release(param << 8);
			break;
		default:	/* any offset; near a fragment if one is out */
			do_release(num_frags && (data[0] & 0x80) ?
				   frags[param % num_frags].offset +
				   (data[1] & 0x80 ? 1u : 0u) - (data[2] & 1) *
				   HOMA_POOL_ALIGN : param);
			break;
		}
		check_invariants();
	}
	free(bpages);
	free(stack);
	return 0;
}
