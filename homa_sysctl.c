// SPDX-License-Identifier: GPL-2.0+
/*
 * The net.homa.* sysctls of each namespace. The table is
 * built from homa_params[] (homa_config.c) for every namespace, pointing at
 * that namespace's struct homa_config. A write is parsed into a copy of
 * the whole configuration, checked with homa_config_check(), and applied
 * only if it passes: a bad write returns -EINVAL and changes nothing.
 */

#include <linux/slab.h>
#include <linux/sysctl.h>

#include "homa_impl.h"

/* Copy a parameter from @from to the live @to, marking each store. */
static bool homa_sysctl_commit(struct homa_config *to,
			       struct homa_config *from,
			       const struct homa_param *p)
{
	int *dst = homa_config_value(to, p);
	int *src = homa_config_value(from, p);
	bool changed = false;
	u32 i;

	for (i = 0; i < p->count; i++) {
		if (dst[i] != src[i])
			changed = true;
		/* Pairs with READ_ONCE() of config fields elsewhere. */
		WRITE_ONCE(dst[i], src[i]);
	}
	return changed;
}

static int homa_sysctl_write(HOMA_CTL_TABLE *table, void *buffer,
			     size_t *lenp, loff_t *ppos)
{
	const struct homa_param *p = table->extra1;
	struct homa_net *hnet = table->extra2;
	struct homa_config *cand;
	struct ctl_table tmp;
	int err;

	lockdep_assert_held(&hnet->config_lock);
	cand = kmemdup(&hnet->config, sizeof(*cand), GFP_KERNEL);
	if (!cand)
		return -ENOMEM;
	tmp = *table;
	tmp.data = homa_config_value(cand, p);
	err = proc_dointvec(&tmp, 1, buffer, lenp, ppos);
	if (!err)
		err = homa_config_check(cand);
	if (err) {
		homa_metric_inc(hnet, HOMA_M_sysctl_rejects);
	} else if (homa_sysctl_commit(&hnet->config, cand, p) &&
		   p->offset == offsetof(struct homa_config, unsched_cutoffs)) {
		int v = hnet->config.cutoff_version % 0xffff + 1;

		WRITE_ONCE(hnet->config.cutoff_version, v);
	}
	/* Cutoffs written by hand stay: no more automatic ones. */
	if (!err && p->offset == offsetof(struct homa_config, unsched_cutoffs))
		WRITE_ONCE(hnet->config.auto_cutoffs, 0);
	kfree(cand);
	return err;
}

static int homa_sysctl_handler(HOMA_CTL_TABLE *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	struct homa_net *hnet = table->extra2;
	int err;

	mutex_lock(&hnet->config_lock);
	if (write)
		err = homa_sysctl_write(table, buffer, lenp, ppos);
	else
		err = proc_dointvec(table, 0, buffer, lenp, ppos);
	mutex_unlock(&hnet->config_lock);
	return err;
}

/**
 * homa_sysctl_net_init() - Register net.homa.* for a new namespace.
 * @hnet: the namespace's Homa host; its config holds the defaults.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_sysctl_net_init(struct homa_net *hnet)
{
	struct ctl_table *table;
	u32 i;

	mutex_init(&hnet->config_lock);
	/* One spare, zeroed entry ends the table for older kernels. */
	table = kcalloc(homa_num_params + 1, sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < homa_num_params; i++) {
		const struct homa_param *p = &homa_params[i];

		table[i].procname = p->name;
		table[i].data = homa_config_value(&hnet->config, p);
		table[i].maxlen = p->count * sizeof(int);
		table[i].mode = p->flags & HOMA_PARAM_READ_ONLY ? 0444 : 0644;
		table[i].proc_handler = homa_sysctl_handler;
		table[i].extra1 = (void *)p;
		table[i].extra2 = hnet;
	}
	hnet->sysctl_header =
		homa_register_net_sysctl(hnet->net, "net/homa", table,
					 homa_num_params);
	if (!hnet->sysctl_header) {
		kfree(table);
		return -ENOMEM;
	}
	hnet->sysctl_table = table;
	return 0;
}

/**
 * homa_sysctl_net_exit() - Unregister a namespace's net.homa.* entries.
 * @hnet: the Homa host of the namespace going away.
 */
void homa_sysctl_net_exit(struct homa_net *hnet)
{
	unregister_net_sysctl_table(hnet->sysctl_header);
	kfree(hnet->sysctl_table);
	hnet->sysctl_table = NULL;
}
