# SPDX-License-Identifier: GPL-2.0+
"""Statistics of RTT samples (numpy): nearest-rank percentiles, the
unloaded baseline and its interpolation, slowdowns, groups by count."""

import numpy as np


def percentile(vals, q):
    """Nearest-rank percentile (q in 0..100): the value at rank
    ceil(q/100 n) of the sorted values (at least the first); NaN for none."""
    if len(vals) == 0:
        return float('nan')
    return np.percentile(np.asarray(vals), q, method='inverted_cdf').item()


def median(vals):
    """The median (the mean of the middle two of an even count)."""
    if len(vals) == 0:
        return float('nan')
    return np.median(np.asarray(vals)).item()


def make_baseline(samples):
    """Unloaded RTT per measured size: sorted [(size, median rtt_ns)]."""
    by = {}
    for size, rtt in samples:
        by.setdefault(size, []).append(rtt)
    return sorted((s, median(r)) for s, r in by.items())


def baseline_rtts(baseline, sizes):
    """Unloaded RTTs of SIZES (an array), linear between the measured sizes
    around each; below the smallest, that size's RTT; above the largest,
    extended along the last segment (never below the largest's RTT)."""
    if not baseline:
        raise ValueError('empty baseline')
    bs = np.array([s for s, _ in baseline], dtype=float)
    br = np.array([r for _, r in baseline], dtype=float)
    sizes = np.asarray(sizes, dtype=float)
    out = np.interp(sizes, bs, br)
    if len(baseline) > 1:
        slope = (br[-1] - br[-2]) / (bs[-1] - bs[-2])
        above = sizes > bs[-1]
        out[above] = np.maximum(br[-1], br[-1] + slope *
                                (sizes[above] - bs[-1]))
    return out


def baseline_rtt(baseline, size):
    """The unloaded RTT of one SIZE (baseline_rtts)."""
    return baseline_rtts(baseline, [size])[0].item()


def slowdowns(samples, baseline):
    """[(size, slowdown, rtt_ns)] sorted by size (stable)."""
    if not samples:
        return []
    sizes = [s for s, _ in samples]
    base = baseline_rtts(baseline, sizes)
    out = [(size, rtt / b if b > 0 else float('inf'), rtt)
           for (size, rtt), b in zip(samples, base.tolist())]
    out.sort(key=lambda x: x[0])
    return out


def split_even(n, parts):
    """Index boundaries splitting n items into PARTS groups by count."""
    return [(n * i) // parts for i in range(parts + 1)]


def deciles(slow, parts=10):
    """Per group of the size-sorted messages (by count): size range, count
    and P50/P99 slowdown."""
    b = split_even(len(slow), parts)
    rows = []
    for i in range(parts):
        grp = slow[b[i]:b[i + 1]]
        if not grp:
            rows.append({'lo': None, 'hi': None, 'n': 0,
                         'p50': float('nan'), 'p99': float('nan')})
            continue
        sd = sorted(x[1] for x in grp)
        rows.append({'lo': grp[0][0], 'hi': grp[-1][0], 'n': len(grp),
                     'p50': percentile(sd, 50), 'p99': percentile(sd, 99)})
    return rows


def exact_rates(s):
    """A cp_node summary with gbps_out and gbps_in recomputed from its byte
    counts where it has them: the printed rates are rounded to 1 Mbit/s,
    which on a 16 Mbit/s bed is a step of 2% of four hosts' load."""
    secs = s.get('seconds', 0)
    if secs <= 0 or 'bytes_out' not in s or 'bytes_in' not in s:
        return s
    s = dict(s)
    s['gbps_out'] = s['bytes_out'] * 8 / secs / 1e9
    s['gbps_in'] = s['bytes_in'] * 8 / secs / 1e9
    if 'bytes_offered' in s:
        s['generated_gbps'] = s['bytes_offered'] * 8 / secs / 1e9
    if 'bytes_done' in s:
        s['completed_gbps'] = s['bytes_done'] * 8 / secs / 1e9
    return s


def sum_summaries(sums):
    """cp_node summaries added up (the longest run's seconds); the rates
    from the byte counts (exact_rates())."""
    keys = ('rpcs', 'errors', 'gbps_out', 'gbps_in', 'offered_gbps',
            'cpu_user_s', 'cpu_sys_s', 'kops')
    sums = [exact_rates(s) for s in sums]
    out = {k: sum(s.get(k, 0) for s in sums) for k in keys}
    # The load the clients generated (request plus response bytes of the
    # requests that arrived), if every client counted it.
    # And what the network carried to the end: the request plus response
    # bytes of the RPCs completed (gbps_out counts requests when they are
    # handed over, delivered or not).
    for key in ('generated_gbps', 'completed_gbps'):
        vals = [s.get(key) for s in sums]
        out[key] = sum(vals) if vals and None not in vals else None
    out['seconds'] = max([s.get('seconds', 0) for s in sums] or [0])
    out['clients'] = len(sums)
    return out
