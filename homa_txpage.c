// SPDX-License-Identifier: GPL-2.0+
/*
 * The host's cache of payload pages for outgoing messages. sendmsg copies
 * message bytes into page fragments (homa_outgoing.c), and a kernel built
 * with init_on_alloc (Debian's default) zeroes every page it hands out
 * before the copy overwrites it: in a profile of bulk transfer, a third of
 * the sending thread's time. When Homa frees a stored DATA packet and is
 * the last holder of one of its pages, the page comes here instead of
 * going back to the allocator, and the next message is copied into it.
 *
 * A page is taken only when nothing else can still read it: the packet
 * has no clone alive (a transmission still in a queue, or kept by a
 * receiver on this host) and the packet's reference is the page's only
 * one (no copy of the packet, no software GSO segment, no sender's page
 * fragment cursor holds it). Only the bytes a message writes into a page
 * are ever sent from it.
 *
 * A cache that sendmsg has not drawn from for HOMA_TXPAGES_IDLE_MS, or
 * that holds more than tx_page_cache_kb (the setting was lowered), gives
 * pages back to the allocator from the host's tick, a few per tick.
 */

#include "homa_impl.h"

/* A cache not drawn from for this long goes back to the allocator (ms). */
#define HOMA_TXPAGES_IDLE_MS 1000

/* Most pages one tick gives back: a tick's work stays short. */
#define HOMA_TXPAGES_RELEASE_BATCH 16

/**
 * homa_txpages_init() - Set up an empty page cache.
 * @tp: the cache (in struct homa_net).
 */
void homa_txpages_init(struct homa_txpages *tp)
{
	spin_lock_init(&tp->lock);
	WRITE_ONCE(tp->count, 0);
	tp->bytes = 0;
	tp->used_jiffies = jiffies;
}

/* Take the top page off a cache that is not empty; its lock is held. */
static struct page *__homa_txpages_pop(struct homa_txpages *tp)
{
	struct page *page = tp->pages[tp->count - 1];

	lockdep_assert_held(&tp->lock);
	WRITE_ONCE(tp->count, tp->count - 1);
	tp->bytes -= page_size(page);
	return page;
}

/* Give @page, taken off the cache, back to the allocator. */
static void homa_txpages_free(struct homa_net *hnet, struct page *page)
{
	homa_metric_add(hnet, HOMA_M_tx_page_cache_bytes,
			-(s64)page_size(page));
	put_page(page);
}

/**
 * homa_txpages_exit() - Give every cached page back to the allocator.
 * @hnet: the namespace, going away: no socket is left to use the cache.
 */
void homa_txpages_exit(struct homa_net *hnet)
{
	struct homa_txpages *tp = &hnet->txpages;

	spin_lock_bh(&tp->lock);
	while (tp->count > 0)
		homa_txpages_free(hnet, __homa_txpages_pop(tp));
	spin_unlock_bh(&tp->lock);
}

/* Cache @page (one reference, now the cache's) if there is room. */
static bool homa_txpages_put(struct homa_net *hnet, struct page *page)
{
	struct homa_txpages *tp = &hnet->txpages;
	u32 size = page_size(page);
	u64 limit = (u64)homa_cfg(hnet, tx_page_cache_kb) * 1024;
	bool kept = false;

	spin_lock_bh(&tp->lock);
	if (tp->count < HOMA_TXPAGES_MAX && tp->bytes + size <= limit) {
		/* An empty cache starts its idle time with its first page. */
		if (tp->count == 0)
			tp->used_jiffies = jiffies;
		tp->pages[tp->count] = page;
		WRITE_ONCE(tp->count, tp->count + 1);
		tp->bytes += size;
		kept = true;
	}
	spin_unlock_bh(&tp->lock);
	if (kept) {
		homa_metric_inc(hnet, HOMA_M_tx_pages_kept);
		homa_metric_add(hnet, HOMA_M_tx_page_cache_bytes, size);
	}
	return kept;
}

/**
 * homa_txpages_keep() - Before a stored DATA packet is freed, take the
 * pages of its fragments that nothing else holds into the cache.
 * @hnet: the namespace whose socket stored the packet.
 * @skb: the packet, which its caller frees next; only packets that
 *	homa_msgout_fill() made (homa_skb_cb.tx_pages) are looked at.
 */
void homa_txpages_keep(struct homa_net *hnet, struct sk_buff *skb)
{
	struct skb_shared_info *shinfo;
	int i;

	if (!homa_skb_cb(skb)->tx_pages || skb_cloned(skb) ||
	    !homa_cfg(hnet, tx_page_cache_kb))
		return;
	shinfo = skb_shinfo(skb);
	for (i = 0; i < shinfo->nr_frags; i++) {
		struct page *page = skb_frag_page(&shinfo->frags[i]);

		page = compound_head(page);

		/* The packet's own reference is the only one. */
		if (page_ref_count(page) != 1 || page_is_pfmemalloc(page))
			continue;
		get_page(page);
		if (!homa_txpages_put(hnet, page))
			put_page(page);
	}
}

/**
 * homa_txpages_refill() - Give a page fragment cursor a cached page when
 * it has no room left, instead of a newly allocated (and zeroed) one.
 * @hnet: the namespace of the sending socket.
 * @pfrag: the cursor (sk_page_frag()); its old page, if any, loses the
 *	cursor's reference.
 * @min: the fewest bytes the cursor must have room for.
 *
 * The cursor is left alone if its page still has room or is free to
 * restart, or if the cache is empty: skb_page_frag_refill(), called next,
 * then does what it would have done.
 */
void homa_txpages_refill(struct homa_net *hnet, struct page_frag *pfrag,
			 u32 min)
{
	struct homa_txpages *tp = &hnet->txpages;
	struct page *page = NULL;

	/* skb_page_frag_refill() restarts a page that only it holds. */
	if (pfrag->page && (pfrag->offset + min <= pfrag->size ||
			    page_ref_count(pfrag->page) == 1))
		return;
	if (!READ_ONCE(tp->count))
		return;
	spin_lock_bh(&tp->lock);
	if (tp->count > 0) {
		page = __homa_txpages_pop(tp);
		tp->used_jiffies = jiffies;
	}
	spin_unlock_bh(&tp->lock);
	if (!page)
		return;
	homa_metric_inc(hnet, HOMA_M_tx_pages_reused);
	homa_metric_add(hnet, HOMA_M_tx_page_cache_bytes,
			-(s64)page_size(page));
	if (pfrag->page)
		put_page(pfrag->page);
	pfrag->page = page;
	pfrag->offset = 0;
	pfrag->size = page_size(page);
}

/**
 * homa_txpages_tick() - Give pages back to the allocator, a few per call,
 * while the cache holds more than tx_page_cache_kb or sendmsg has not
 * taken a page from it for HOMA_TXPAGES_IDLE_MS.
 * @hnet: the namespace; called from its tick (homa_timer.c).
 */
void homa_txpages_tick(struct homa_net *hnet)
{
	struct page *pages[HOMA_TXPAGES_RELEASE_BATCH];
	struct homa_txpages *tp = &hnet->txpages;
	u64 limit;
	bool idle;
	int i, n = 0;

	if (!READ_ONCE(tp->count))
		return;
	limit = (u64)homa_cfg(hnet, tx_page_cache_kb) * 1024;
	spin_lock_bh(&tp->lock);
	idle = time_after(jiffies, tp->used_jiffies +
			  msecs_to_jiffies(HOMA_TXPAGES_IDLE_MS));
	while (tp->count > 0 && n < HOMA_TXPAGES_RELEASE_BATCH &&
	       (idle || tp->bytes > limit))
		pages[n++] = __homa_txpages_pop(tp);
	spin_unlock_bh(&tp->lock);
	for (i = 0; i < n; i++)
		homa_txpages_free(hnet, pages[i]);
	if (n)
		homa_metric_add(hnet, HOMA_M_tx_pages_released, n);
}
