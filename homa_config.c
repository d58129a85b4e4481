// SPDX-License-Identifier: GPL-2.0+
/*
 * The table of Homa's per-namespace parameters (names,
 * defaults, ranges) and the checks a new configuration must pass before it
 * replaces the old one. The sysctl code in homa_plumbing.c builds its
 * tables from homa_params[], so names, ranges and documentation have one
 * source.
 */

#include "homa_config.h"

#define HOMA_INT_MAX 0x7fffffff

/* Default cutoffs: 200 B at level 7, 2800 at 6, 15000 at 5, the rest at 4. */
static const int homa_default_cutoffs[HOMA_MAX_PRIORITIES] = {
	0, 0, 0, 0, HOMA_MAX_MESSAGE_LENGTH, 15000, 2800, 200
};

static const int homa_default_priority_map[HOMA_MAX_PRIORITIES] = {
	0, 1, 2, 3, 4, 5, 6, 7
};

#define HOMA_PARAM(field, dflt, lo, hi) {				\
	.name = #field, .offset = offsetof(struct homa_config, field),	\
	.count = 1, .def = dflt, .min = lo, .max = hi }

/* The net.homa.* table; homa.7 documents every entry (a test checks). */
const struct homa_param homa_params[] = {
	HOMA_PARAM(unsched_bytes, 40000, 1, HOMA_MAX_MESSAGE_LENGTH),
	/* The paper's name for unsched_bytes; both reach one value. */
	{ .name = "rtt_bytes",
	  .offset = offsetof(struct homa_config, unsched_bytes), .count = 1,
	  .def = 40000, .min = 1, .max = HOMA_MAX_MESSAGE_LENGTH },
	HOMA_PARAM(window, 0, 0, HOMA_MAX_MESSAGE_LENGTH),
	HOMA_PARAM(max_incoming, 400000, 1, 1000000000),
	HOMA_PARAM(max_overcommit, 8, 1, 64),
	HOMA_PARAM(num_priorities, HOMA_MAX_PRIORITIES, 1, HOMA_MAX_PRIORITIES),
	{ .name = "priority_map",
	  .offset = offsetof(struct homa_config, priority_map),
	  .count = HOMA_MAX_PRIORITIES, .defs = homa_default_priority_map,
	  .min = 0, .max = HOMA_MAX_PRIORITIES - 1 },
	{ .name = "unsched_cutoffs",
	  .offset = offsetof(struct homa_config, unsched_cutoffs),
	  .count = HOMA_MAX_PRIORITIES, .defs = homa_default_cutoffs,
	  .min = 0, .max = HOMA_INT_MAX },
	{ .name = "cutoff_version",
	  .offset = offsetof(struct homa_config, cutoff_version), .count = 1,
	  .def = 1, .min = 1, .max = 0xffff, .flags = HOMA_PARAM_READ_ONLY },
	HOMA_PARAM(link_mbps, 25000, 1, 10000000),
	HOMA_PARAM(max_nic_queue_ns, 25000, 0, 1000000000),
	HOMA_PARAM(max_gso_size, 65536, 1000, 65536),
	HOMA_PARAM(grant_overshoot_ns, 25000, 0, 1000000000),
	HOMA_PARAM(grant_fifo_fraction, 50, 0, 500),
	HOMA_PARAM(grant_increment, 10000, 0, HOMA_MAX_MESSAGE_LENGTH),
	HOMA_PARAM(pacer_fifo_fraction, 50, 0, 500),
	HOMA_PARAM(resend_ticks, 5, 1, 10000),
	HOMA_PARAM(resend_interval, 5, 1, 10000),
	/* Longer than ARP's or ND's three solicitations, a second apart. */
	HOMA_PARAM(timeout_ticks, 3000, 1, 100000),
	HOMA_PARAM(request_ack_ticks, 2, 1, 10000),
	HOMA_PARAM(poll_usecs, 0, 0, 1000000),
	HOMA_PARAM(reap_limit, 10, 1, 10000),
	HOMA_PARAM(dead_buffs_limit, 5000, 1, 10000000),
	HOMA_PARAM(wmem_max, 100000000, 10000, HOMA_INT_MAX),
	HOMA_PARAM(rmem_max, 100000000, 10000, HOMA_INT_MAX),
	HOMA_PARAM(copy_batch, 32768, 0, HOMA_MAX_MESSAGE_LENGTH),
	/* HOMA_TXPAGES_MAX pages of 32 KB. */
	HOMA_PARAM(tx_page_cache_kb, 2048, 0, 8192),
	HOMA_PARAM(peer_idle_secs, 60, 1, 86400),
	HOMA_PARAM(dedup_ms, 2000, 0, 600000),
	HOMA_PARAM(peer_rpc_limit, 5000, 0, 1000000),
	HOMA_PARAM(sock_rpc_limit, 20000, 0, 1000000),
	HOMA_PARAM(peer_pool_pct, 50, 0, 100),
	HOMA_PARAM(stall_ms, 10000, 0, 3600000),
	HOMA_PARAM(max_peers, 50000, 0, 10000000),
	/*
	 * 16, not 32: a client that opens 64 RPCs at once sends the first
	 * ones unmarked, and the unscheduled bytes of their responses
	 * overflowed the switch queue (util/README-bench.md, incast).
	 */
	HOMA_PARAM(incast_threshold, 16, 0, 1000000),
	HOMA_PARAM(incast_unsched_bytes, 1000, 1, HOMA_MAX_MESSAGE_LENGTH),
	HOMA_PARAM(auto_cutoffs, 1, 0, 1),
	/* The pacer and RTT-adaptive behaviour. */
	HOMA_PARAM(pacer_enable, 1, 0, 1),
	/*
	 * 1 ms: on the 16 Mbit/s bed the lead gave back about two thirds
	 * of the link time late wake-ups cost, at some short-message
	 * latency (util/README-bench.md); it is never more than one
	 * packet's time, 21 us at 25 Gbit/s.
	 */
	HOMA_PARAM(pacer_lead_max_ns, 1000000, 0, 100000000),
	/*
	 * Off: on the 16 Mbit/s bed it carried 0.6-0.7 points more of the
	 * load and made the short messages' P99 1.3-1.8 times as long
	 * (util/README-bench.md).
	 */
	HOMA_PARAM(pacer_rx_help, 0, 0, 1),
	HOMA_PARAM(throttle_min_bytes, 1000, 0, HOMA_MAX_MESSAGE_LENGTH),
	HOMA_PARAM(pacer_held_max_kb, 128, 0, 1000000),
	/*
	 * It binds only below about 500 Mbit/s (128 KB in 2 ms), where a
	 * wrong link_mbps would otherwise leave pacer_held_max_kb queued.
	 */
	HOMA_PARAM(pacer_drain_queue_us, 2000, 0, 1000000),
	HOMA_PARAM(rtt_adaptive, 1, 0, 1),
	/*
	 * Two stored packets of a slow link (HOMA_PACE_PKT_FLOOR): a GRANT's
	 * step, half the window, is then one whole packet, not half of one.
	 */
	HOMA_PARAM(rtt_window_min, 20000, 0, HOMA_MAX_MESSAGE_LENGTH),
	HOMA_PARAM(rtt_window_measured, 1, 0, 1),
	HOMA_PARAM(unsched_adaptive, 1, 0, 1),
	HOMA_PARAM(rtt_resend, HOMA_RESEND_SMALLER, HOMA_RESEND_FIXED,
		   HOMA_RESEND_SMALLER),
	HOMA_PARAM(rtt_resend_min_us, 2000, 1, 1000000),
	HOMA_PARAM(rtt_congestion_factor, 8, 0, 1000),
	HOMA_PARAM(rtt_congestion_react, 0, 0,
		   HOMA_REACT_GRANTS | HOMA_REACT_UNSCHED | HOMA_REACT_FAIR),
	HOMA_PARAM(rtt_fair_skip_pkts, 1, 0, 64),
	HOMA_PARAM(sched_ip_priority, -1, -1, 7),
	HOMA_PARAM(resend_outranked, 1, 0, 1),
};

const u32 homa_num_params = ARRAY_SIZE(homa_params);

/**
 * homa_param_find() - Look up a parameter by its sysctl name.
 * @name: e.g. "unsched_bytes".
 *
 * Return: the parameter's descriptor, or NULL if there is none.
 */
const struct homa_param *homa_param_find(const char *name)
{
	u32 i;

	for (i = 0; i < homa_num_params; i++)
		if (strcmp(homa_params[i].name, name) == 0)
			return &homa_params[i];
	return NULL;
}

/**
 * homa_config_value() - Locate a parameter's value in a configuration.
 * @cfg: the configuration.
 * @p: one of homa_params[].
 *
 * Return: the first of the parameter's p->count ints inside @cfg.
 */
int *homa_config_value(struct homa_config *cfg, const struct homa_param *p)
{
	return (int *)((char *)cfg + p->offset);
}

/**
 * homa_config_init() - Fill a configuration with the defaults.
 * @cfg: the configuration to initialise.
 */
void homa_config_init(struct homa_config *cfg)
{
	u32 i, j;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; i < homa_num_params; i++) {
		const struct homa_param *p = &homa_params[i];
		int *v = homa_config_value(cfg, p);

		for (j = 0; j < p->count; j++)
			v[j] = p->defs ? p->defs[j] : p->def;
	}
}

/*
 * The non-zero cutoffs must grow as the level falls (higher levels carry
 * shorter messages), and some level must take the longest message.
 */
static int homa_config_check_cutoffs(const int *cutoffs)
{
	int prev = 0, largest = 0;
	int i;

	for (i = HOMA_MAX_PRIORITIES - 1; i >= 0; i--) {
		if (cutoffs[i] == 0)
			continue;
		if (cutoffs[i] <= prev)
			return -EINVAL;
		prev = cutoffs[i];
		largest = cutoffs[i];
	}
	return largest >= HOMA_MAX_MESSAGE_LENGTH ? 0 : -EINVAL;
}

/**
 * homa_config_check() - Validate a whole configuration.
 * @cfg: the candidate configuration.
 *
 * Every value must lie in its parameter's range, and the values that
 * depend on each other must agree (see homa_config_check_cutoffs()).
 *
 * Return: 0 if @cfg may be used, -EINVAL otherwise.
 */
int homa_config_check(const struct homa_config *cfg)
{
	u32 i, j;

	for (i = 0; i < homa_num_params; i++) {
		const struct homa_param *p = &homa_params[i];
		const int *v = (const int *)((const char *)cfg + p->offset);

		for (j = 0; j < p->count; j++)
			if (v[j] < p->min || v[j] > p->max)
				return -EINVAL;
	}
	return homa_config_check_cutoffs(cfg->unsched_cutoffs);
}
