// SPDX-License-Identifier: GPL-2.0+
/*
 * libFuzzer target for homa_gap.c. The input is a message length and a
 * sequence of byte ranges, as packets would bring them (any order,
 * repeats, overlaps, ranges past the end): in "coarse" inputs any length
 * and range, in "fine" ones short messages and ranges of 1 or 2 bytes, so
 * that the gap list often fills up. Each range goes to
 * homa_gaps_add() and to a naive model, one flag per byte of the message.
 * After every step: the return value is the model's count of new bytes
 * (or -EINVAL for a range the documentation refuses, or -ENOSPC only when
 * the model needs more than HOMA_MAX_GAPS gaps, with the state unchanged);
 * recv_end, bytes_remaining, the gap list (sorted, disjoint, non-empty,
 * maximal, exactly the missing bytes below recv_end), complete(),
 * gap_bytes() and missing() agree with the model.
 */

#include <stdio.h>
#include <stdlib.h>

#include "homa_gap.h"

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_gap: %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* Longest message the model follows; keeps each input fast. */
#define MAX_LEN 4096

/* Most ranges one input applies; keeps each input fast. */
#define MAX_OPS 160

struct model {
	u32 length;
	u8 got[MAX_LEN];
};

/* Number of missing runs below @end in the model. */
static u32 model_runs(const struct model *m, u32 end)
{
	u32 i, runs = 0;

	for (i = 0; i < end; i++)
		if (!m->got[i] && (i == 0 || m->got[i - 1]))
			runs++;
	return runs;
}

static u32 model_recv_end(const struct model *m)
{
	u32 i = m->length;

	while (i > 0 && !m->got[i - 1])
		i--;
	return i;
}

static void check_state(const struct homa_msg_gaps *g, const struct model *m,
			u32 granted)
{
	u32 recv_end = model_recv_end(m), missing = 0, below = 0, i, n;
	struct homa_gap out[HOMA_MAX_GAPS + 1];
	u32 k = 0;

	for (i = 0; i < m->length; i++) {
		missing += !m->got[i];
		below += i < recv_end && !m->got[i];
	}
	FUZZ_CHECK(g->length == m->length);
	FUZZ_CHECK(g->recv_end == recv_end);
	FUZZ_CHECK(g->bytes_remaining == missing);
	FUZZ_CHECK(!!homa_gaps_complete(g) == (missing == 0));
	FUZZ_CHECK(homa_gaps_gap_bytes(g) == below);
	FUZZ_CHECK(g->num_gaps <= HOMA_MAX_GAPS);
	FUZZ_CHECK(g->num_gaps == model_runs(m, recv_end));
	/* Walk the model's runs and the gap list together. */
	for (i = 0; i < recv_end; i++) {
		if (m->got[i])
			continue;
		FUZZ_CHECK(k < g->num_gaps);
		FUZZ_CHECK(g->gaps[k].start == i);
		while (i < recv_end && !m->got[i])
			i++;
		FUZZ_CHECK(g->gaps[k].end == i);
		k++;
	}
	FUZZ_CHECK(k == g->num_gaps);

	n = homa_gaps_missing(g, granted, out, HOMA_MAX_GAPS + 1);
	if (granted > m->length)
		granted = m->length;
	FUZZ_CHECK(n == g->num_gaps + (recv_end < granted));
	for (i = 0; i < g->num_gaps; i++)
		FUZZ_CHECK(out[i].start == g->gaps[i].start &&
			   out[i].end == g->gaps[i].end);
	if (recv_end < granted)
		FUZZ_CHECK(out[n - 1].start == recv_end &&
			   out[n - 1].end == granted);
	FUZZ_CHECK((homa_gaps_first_missing(g, granted, out) == 0) == (n > 0));
}

/*
 * Coverage feedback for the number of gaps: one branch per level, so that
 * libFuzzer keeps inputs that reach more gaps and soon fills the list.
 */
u32 gap_levels[9];	/* not static: the stores must stay */

static void gap_level(u32 num_gaps)
{
	switch (num_gaps / 4) {
	case 0:
		gap_levels[0]++;
		break;
	case 1:
		gap_levels[1]++;
		break;
	case 2:
		gap_levels[2]++;
		break;
	case 3:
		gap_levels[3]++;
		break;
	case 4:
		gap_levels[4]++;
		break;
	case 5:
		gap_levels[5]++;
		break;
	case 6:
		gap_levels[6]++;
		break;
	case 7:
		gap_levels[7]++;
		break;
	default:
		gap_levels[8]++;
		break;
	}
}

/* Apply [start, end) to the state and the model, checking the result. */
static void step(struct homa_msg_gaps *g, struct model *m, u32 start, u32 end)
{
	struct homa_msg_gaps before = *g;
	u32 i, fresh = 0, runs;
	int rc;

	rc = homa_gaps_add(g, start, end);
	if (start >= end || end > m->length) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(!memcmp(&before, g, sizeof(before)));
		return;
	}
	for (i = start; i < end; i++)
		fresh += !m->got[i];
	if (rc == -ENOSPC) {
		static struct model t;

		FUZZ_CHECK(!memcmp(&before, g, sizeof(before)));
		/* Only when the model would need too many gaps. */
		t = *m;
		for (i = start; i < end; i++)
			t.got[i] = 1;
		runs = model_runs(&t, model_recv_end(&t));
		FUZZ_CHECK(runs > HOMA_MAX_GAPS);
		return;
	}
	FUZZ_CHECK(rc >= 0 && (u32)rc == fresh);
	for (i = start; i < end; i++)
		m->got[i] = 1;
	gap_level(g->num_gaps);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct model m;
	struct homa_msg_gaps g;
	u32 start, end, granted;

	if (size < 2)
		return 0;
	if (size > 2 + 6 * MAX_OPS)
		size = 2 + 6 * MAX_OPS;
	if (data[0] & 1) {
		/* Coarse: any length, ranges anywhere (and a bit past). */
		m.length = 1 + ((data[0] << 8 | data[1]) % MAX_LEN);
	} else {
		/*
		 * Fine: a short message and short ranges, so that random
		 * inputs soon fill all HOMA_MAX_GAPS gaps.
		 */
		m.length = 64 + data[1];
	}
	memset(m.got, 0, sizeof(m.got));
	homa_gaps_init(&g, m.length);
	check_state(&g, &m, 0);
	if (!(data[0] & 1)) {
		if (size > 2 + MAX_OPS)
			size = 2 + MAX_OPS;
		for (data += 2, size -= 2; size >= 1; data++, size--) {
			/* Mostly islands at even offsets; odd widths join. */
			start = (2 * data[0]) % (m.length + 4);
			end = start + 1 + (data[0] & 1);
			granted = data[0] & 2 ? m.length : start;
			step(&g, &m, start, end);
			check_state(&g, &m, granted);
		}
		return 0;
	}
	for (data += 2, size -= 2; size >= 6; data += 6, size -= 6) {
		/* Ranges reach a little past the end, to test refusals. */
		start = (data[0] << 8 | data[1]) % (MAX_LEN + 16);
		end = (data[2] << 8 | data[3]) % (MAX_LEN + 16);
		granted = (data[4] << 8 | data[5]) % (MAX_LEN + 16);
		step(&g, &m, start, end);
		check_state(&g, &m, granted);
	}
	return 0;
}
