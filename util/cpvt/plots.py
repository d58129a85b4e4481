# SPDX-License-Identifier: GPL-2.0+
"""The PNGs of a run (matplotlib, without a display): slowdown against
message size and the RTT CDF of the short messages (latency mode), a bar
per protocol (throughput and loss modes), the shares of a link over time
(share mode)."""

import os

from .common import log
from .stats import percentile, split_even
from .table import fmt_size

COLORS = {'homa': 'tab:blue', 'tcp': 'tab:red', 'dctcp': 'tab:green'}


def pyplot():
    """matplotlib.pyplot drawing into files, or None (with a message) when
    matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        log('plots: matplotlib is missing (python3-matplotlib); no PNGs')
        return None
    return plt


def save(plt, fig, outdir, name):
    """Write FIG as OUTDIR/NAME; its path."""
    fig.tight_layout()
    path = os.path.join(outdir, name)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def slowdown_curve(slow):
    """x (% of the messages, middle of each group) and P50 and P99
    slowdown of up to 100 groups of the size-sorted messages."""
    n = len(slow)
    groups = max(1, min(100, n // 20))
    b = split_even(n, groups)
    xs, p50, p99 = [], [], []
    for i in range(groups):
        g = sorted(x[1] for x in slow[b[i]:b[i + 1]])
        if not g:
            continue
        xs.append(100.0 * (b[i] + b[i + 1]) / 2.0 / n)
        p50.append(percentile(g, 50))
        p99.append(percentile(g, 99))
    return xs, p50, p99


def plot_slowdown(plt, per_proto, pooled, outdir):
    """slowdown.png: P99 (solid) and P50 (dashed) slowdown against the
    position in the size-sorted messages (ticks: the size there)."""
    fig, ax = plt.subplots(figsize=(8, 5))
    ticks = [pooled[min(len(pooled) - 1, (len(pooled) * k) // 10)]
             for k in range(11)] if pooled else None
    for name, slow in per_proto:
        xs, p50, p99 = slowdown_curve(slow)
        c = COLORS.get(name)
        ax.plot(xs, p99, '-', color=c, label='%s P99' % name)
        ax.plot(xs, p50, '--', color=c, label='%s P50' % name)
    if ticks:
        ax.set_xticks([10 * k for k in range(11)])
        ax.set_xticklabels([fmt_size(s) for s in ticks], rotation=45)
    ax.set_yscale('log')
    ax.set_xlim(0, 100)
    ax.set_xlabel('message size (B), x linear in the count of messages')
    ax.set_ylabel('slowdown')
    ax.grid(True, which='both', alpha=0.3)
    ax.legend()
    return save(plt, fig, outdir, 'slowdown.png')


def plot_rtt_cdf(plt, per_proto, pooled, outdir):
    """rtt_cdf_short.png: the RTT CDF of the smallest half of all
    messages."""
    cut = pooled[(len(pooled) - 1) // 2]
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, slow in per_proto:
        r = sorted(x[2] / 1e3 for x in slow if x[0] <= cut)
        if not r:
            continue
        ys = [(k + 1) / float(len(r)) for k in range(len(r))]
        ax.plot(r, ys, color=COLORS.get(name), label=name)
    ax.set_xscale('log')
    ax.set_xlabel('RTT (us), messages of at most %s B' % fmt_size(cut))
    ax.set_ylabel('fraction of messages')
    ax.grid(True, which='both', alpha=0.3)
    ax.legend()
    return save(plt, fig, outdir, 'rtt_cdf_short.png')


def plot_latency(per_proto, outdir):
    """The latency mode's PNGs from [(protocol, slowdowns)]; their paths."""
    plt = pyplot()
    if plt is None:
        return []
    pooled = sorted(s for _, slow in per_proto for s, _, _ in slow)
    files = [plot_slowdown(plt, per_proto, pooled, outdir)]
    if pooled:
        files.append(plot_rtt_cdf(plt, per_proto, pooled, outdir))
    return files


def plot_stream(report, outdir, key, label):
    """A bar per protocol of report['protocols'][p][KEY] (e.g. goodput in
    the throughput mode, the completed fraction in the loss mode), the y
    axis called LABEL; <mode>.png."""
    plt = pyplot()
    if plt is None:
        return []
    names = list(report['protocols'])
    if not names:
        return []
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.bar(names, [report['protocols'][n][key] for n in names])
    ax.set_ylabel(label)
    return [save(plt, fig, outdir, '%s.png' % report['mode'])]


def plot_share_run(ax, r):
    """One run of the share mode on AX: each protocol's share of the link
    per sampling interval, their sum, the Homa clients' start and end."""
    ts = [t for t, _ in r['series']]
    for proto in ('homa', 'tcp'):
        ax.plot(ts, [100 * v.get(proto, 0) for _, v in r['series']],
                color=COLORS.get(proto), label=proto)
    ax.plot(ts, [100 * sum(v.values()) for _, v in r['series']], ':',
            color='grey', label='sum')
    for t in (r.get('homa_t0'), r.get('homa_t1')):
        if t is not None:
            ax.axvline(t, color='black', lw=0.5, ls='--')
    ax.set_title('%s, %s, %s' % (r['workload'], r['config'], '%d TCP' %
                                 r['flows'] if r['flows'] else 'alone'),
                 fontsize=8)
    ax.set_ylim(0, 110)
    ax.tick_params(labelsize=7)
    ax.grid(True, alpha=0.3)


def plot_shares(rows, outdir):
    """shares.png: per run of the share mode (rows: workloads, columns:
    configurations) the shares of h0's link over time (IP bytes into h0
    per protocol); [] without samples."""
    rows = [r for r in rows if r.get('series')]
    plt = pyplot() if rows else None
    if plt is None:
        return []
    wls = list(dict.fromkeys(r['workload'] for r in rows))
    cols = list(dict.fromkeys((r['flows'], r['config']) for r in rows))
    fig, axes = plt.subplots(len(wls), len(cols), squeeze=False,
                             figsize=(3.2 * len(cols), 2.4 * len(wls)))
    for ax in axes.flat:
        ax.set_visible(False)
    for r in rows:
        ax = axes[wls.index(r['workload'])][cols.index((r['flows'],
                                                        r['config']))]
        ax.set_visible(True)
        plot_share_run(ax, r)
    for ax in axes[-1]:
        ax.set_xlabel('s', fontsize=7)
    for ax in axes[:, 0]:
        ax.set_ylabel('% of the link', fontsize=7)
    axes.flat[0].legend(fontsize=7)
    return [save(plt, fig, outdir, 'shares.png')]
