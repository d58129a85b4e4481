# SPDX-License-Identifier: GPL-2.0+
"""The share mode: Homa and backlogged TCP flows into one host (h0), on
the same downlink. Per workload (W4, W5, fixed sizes) an unloaded
baseline, then per Homa variant (the reaction to congestion off and on)
Homa alone and beside 1-4 TCP flows: each protocol's goodput and share of
the link, Homa's short-message slowdowns, the switch's drops per band and
the congestion state changes; a plot of the shares over time."""

import os

from ..common import log
from ..cross import (TCP_BYTES, TCP_HOST, Sampler, check_options,
                     guarded, p0_figures, readings_after, readings_before,
                     record_readings, runs_table, save_peers,
                     save_tcp_info, save_tcp_samples, start_tcp,
                     tcp_figures, tcp_info_sampler)
from ..experiment import (load_samples, run_clients, start_servers,
                          stop_servers, wait_clients)
from ..plots import plot_shares
from ..stats import make_baseline, percentile, slowdowns, sum_summaries
from ..table import Table, cell, fmt_num
from ..testbed import homa_sysctls

NAME = 'share'
DEFAULTS = {'seconds': 12, 'client_max': 4, 'unloaded': 2,
            'protocols': 'homa,homa-react',
            'workloads': 'w4,w5,100000,1000000', 'tcp_flows': '1'}

# The Homa senders (one closed-loop client each, one-way messages to a
# Homa server on h0); outstanding messages per TCP connection; seconds of
# the warm-up run (at most --seconds); how often h0's received bytes per
# protocol are read for the plot.
SENDERS = (1, 2)
TCP_CLIENT_MAX = 2
WARMUP = 5
SAMPLE_EVERY = 1.0
# How often `ss -tin` of h3 and h0 is read during a run with TCP.
SS_EVERY = 2.0
# The congestion metrics of the table (differences over the run).
CONGESTION = ('rtt_congested', 'rtt_uncongested', 'grant_scale_cuts',
              'grant_scale_grows')


def finish(cfg, error):
    check_options(cfg, error, 'h0 receives, h1 and h2 send Homa, h3 TCP')
    if not cfg.tcp_flows or any(not 1 <= n <= 4 for n in cfg.tcp_flows):
        error('--tcp-flows: 1..4 flows each')
    if not cfg.workloads:
        error('--workloads: at least one')
    for w in cfg.workloads:
        if w.isdigit() and not 1 <= int(w) <= 1000000:
            error('--workloads: sizes 1..1000000 bytes')


def results_tag(cfg):
    return cfg.mode


def records(runner, cfg, outdir):
    return run_share(runner, cfg, outdir)


def share_tag(proto, workload, flows):
    """The file name prefix of one run."""
    return '%s-%s-%s' % (proto, workload,
                         '%dtcp' % flows if flows else 'alone')


def run_share(runner, cfg, outdir):
    """A warm-up run (the first Homa run of a boot fares worse), then per
    workload a baseline and, per count of TCP flows (none first) and Homa
    variant, one run. Yields the records as they end."""
    runner.count_rx(0)
    proto, wl = cfg.protocols[0], cfg.workloads[0]
    rec = guarded('warmup', lambda: run_share_one(
        runner, proto, wl, 0, cfg, outdir, 'warmup',
        min(cfg.seconds, WARMUP)),
        {'kind': 'warmup', 'protocol': proto, 'workload': wl, 'flows': 0})
    rec['kind'] = 'warmup'
    yield rec
    for wl in cfg.workloads:
        yield guarded('%s baseline' % wl, lambda: run_baseline(
            runner, proto, wl, cfg, outdir),
            {'kind': 'baseline', 'protocol': proto, 'workload': wl})
        for flows in [0] + cfg.tcp_flows:
            for p in cfg.protocols:
                yield guarded(share_tag(p, wl, flows), lambda: run_share_one(
                    runner, p, wl, flows, cfg, outdir),
                    {'kind': 'run', 'protocol': p, 'workload': wl,
                     'flows': flows})


def run_baseline(runner, proto, wl, cfg, outdir):
    """The unloaded RTTs of workload WL: cfg.unloaded one-way messages of
    each representative size, one at a time, h1 -> h0 (Homa variant
    PROTO)."""
    rec = {'kind': 'baseline', 'protocol': proto, 'workload': wl}
    runner.prepare(proto, cfg)
    servers = start_servers(runner, proto, [0], cfg, outdir,
                            'baseline-%s' % wl)
    try:
        log('%s: unloaded baseline of %s (%d per size, h1 -> h0)' % (
            proto, wl, cfg.unloaded))
        rec['baseline'] = run_clients(
            runner, proto, 'baseline %s' % wl,
            [(SENDERS[0], [runner.addr(0)],
              ['--workload', wl, '--one-way', '--unloaded',
               str(cfg.unloaded), '--seed', '1'],
              'baseline-%s.rtt' % wl)], outdir, cfg, cfg.baseline_timeout)
    finally:
        stop_servers(servers)
    return rec


def homa_jobs(runner, cfg, tag, wl, seconds):
    """The Homa clients of a run: one per sender, closed loop,
    cfg.client_max one-way messages of workload WL outstanding."""
    return [(i, [runner.addr(0)],
             ['--workload', wl, '--one-way', '--gbps', '0',
              '--ports', str(cfg.client_ports),
              '--client-max', str(cfg.client_max),
              '--seconds', str(seconds), '--seed', str(i)],
             '%s-h%d.rtt' % (tag, i)) for i in SENDERS]


def run_share_one(runner, proto, wl, flows, cfg, outdir, tag=None,
                  seconds=None):
    """Homa variant PROTO: h1 and h2 send workload WL to h0 for SECONDS
    (default cfg.seconds); with FLOWS, that many TCP connections from h3
    into h0 start TCP_LEAD seconds before and stop after. h0's received
    bytes per protocol are read every SAMPLE_EVERY seconds from the TCP
    start to the end (rx_samples; the Homa clients' start and end in
    homa_t0, homa_t1 on the same clock). With FLOWS, `ss -tin` of h3 and
    h0 every SS_EVERY seconds over the same span (TAG-ss-during.txt)."""
    tag = tag or share_tag(proto, wl, flows)
    seconds = seconds or cfg.seconds
    rec = {'kind': 'run', 'protocol': proto, 'workload': wl,
           'flows': flows, 'tag': tag}
    runner.prepare(proto, cfg)
    rec['homa_sysctls'] = homa_sysctls(
        cfg, proto, getattr(runner, 'homa_defaults', None))
    servers = start_servers(runner, proto, [0], cfg, outdir, tag)
    phase = 'share %s%s' % (wl, ' +%d tcp' % flows if flows else '')
    tcp = ss = None
    sampler = Sampler(lambda: runner.rx_bytes(0), SAMPLE_EVERY).start()
    try:
        if flows:
            servers += start_servers(runner, 'tcp', [0], cfg, outdir,
                                     tag + '-tcp')
            rec['tcp_bytes'] = TCP_BYTES
            tcp = start_tcp(runner, cfg, outdir, tag, phase, seconds,
                            ['--gbps', '0', '--ports', str(flows),
                             '--client-max', str(TCP_CLIENT_MAX)])
            ss = tcp_info_sampler(runner, [TCP_HOST, 0], SS_EVERY).start()
        log('%s: h1, h2 send %s to h0 (%d outstanding each) for %ds' % (
            tag, wl, cfg.client_max, seconds))
        before = readings_before(runner, cfg, flows)
        rec['homa_t0'] = sampler.elapsed()
        rec['loaded'] = run_clients(
            runner, proto, phase, homa_jobs(runner, cfg, tag, wl, seconds),
            outdir, cfg, seconds + 120)
        rec['homa_t1'] = sampler.elapsed()
        after = readings_after(runner, cfg, flows)
        save_peers(runner, rec, outdir, tag)
        if flows:
            save_tcp_info(runner, rec, outdir, tag, [0, TCP_HOST])
        record_readings(rec, outdir, tag, before, after)
    finally:
        if tcp is not None:
            rec['tcp'] = wait_clients(runner, tcp, outdir, 30, stop=True)
        rec['rx_samples'] = sampler.stop()
        if ss is not None:
            save_tcp_samples(rec, outdir, tag, ss.stop())
        stop_servers(servers)
    return rec


def window_rates(samples, t0, t1):
    """{protocol: Mbit/s} between the first sample at or after T0 and the
    last at or before T1 of SAMPLES ([(t, {protocol: bytes})]), or None
    with fewer than two."""
    inside = [s for s in samples if t0 <= s[0] <= t1]
    if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
        return None
    (ta, a), (tb, b) = inside[0], inside[-1]
    return {k: (b[k] - a.get(k, 0)) * 8 / 1e6 / (tb - ta) for k in b}


def share_series(samples, mbps):
    """The shares of the link over time: [(t, {protocol: share})], one
    per interval between successive SAMPLES, at its end."""
    out = []
    for (ta, a), (tb, b) in zip(samples, samples[1:]):
        if tb <= ta:
            continue
        out.append((tb, {k: (b[k] - a.get(k, 0)) * 8 / 1e6 / (tb - ta) /
                         mbps for k in b}))
    return out


def short_half(slow):
    """The slowdowns of the shortest half of the messages: those no
    longer than the median size (all of them with one size)."""
    if not slow:
        return []
    cut = sorted(s for s, _, _ in slow)[(len(slow) - 1) // 2]
    return sorted(x[1] for x in slow if x[0] <= cut)


def band_cell(bands):
    """Drops per band as "band:drops" for the bands that dropped, '0'
    when none did, '-' without figures."""
    if bands is None:
        return '-'
    hit = ['%s:%d' % (b, d) for b, d in sorted(bands.items(),
                                               key=lambda x: int(x[0]))
           if d]
    return ','.join(hit) or '0'


def homa_figures(rec, outdir, base, mbps):
    """Homa's part of a row: messages, goodput (the bytes of the messages
    counted, over the longest client's run) and share, the short-message
    slowdowns against BASE (make_baseline; None without one)."""
    sums = [r['summary'] for r in rec.get('loaded', []) if r['summary']]
    tot = sum_summaries(sums)
    samples = load_samples(outdir, [r['file'] for r in rec.get('loaded',
                                                                 [])])
    goodput = sum(s for s, _ in samples) * 8 / 1e6 / max(tot['seconds'],
                                                          1e-9)
    short = short_half(slowdowns(samples, base)) if base else []
    return {'rpcs': tot['rpcs'], 'errors': tot['errors'],
            'seconds': tot['seconds'], 'homa_mbps': goodput,
            'homa_share': goodput / mbps,
            'short_n': len(short),
            'short_p50': percentile(short, 50) if short else None,
            'short_p99': percentile(short, 99) if short else None,
            'clients': sums}


def share_row(rec, cfg, outdir, base):
    """One run of the share mode (a record of run_share_one) as a row."""
    mbps = cfg['mbps']
    row = {'workload': rec['workload'], 'flows': rec['flows'],
           'config': rec['protocol'],
           'homa_sysctls': rec.get('homa_sysctls'),
           'cpu_busy': [b for b in rec.get('cpu_busy', []) if b is not None]}
    row.update(homa_figures(rec, outdir, base, mbps))
    row.update(tcp_figures(rec))
    row['tcp_share'] = (None if row['tcp_mbps'] is None or not rec['flows']
                        else row['tcp_mbps'] / mbps)
    row['p0_mbps'], row['p0_share'] = p0_figures(rec, mbps)
    row['switch_drops_to_h0'] = (rec.get('switch_drops') or {}).get('p0')
    row['band_drops'] = rec.get('switch_band_drops')
    hm = rec.get('homa_metrics') or {}
    row['congestion'] = {k: sum(m.get(k, 0) for m in hm.values())
                         for k in CONGESTION} if hm else None
    row['congestion_h0'] = {k: hm.get('0', {}).get(k, 0)
                            for k in CONGESTION} if hm else None
    samples = [(t, v) for t, v in rec.get('rx_samples', [])]
    wire = window_rates(samples, rec.get('homa_t0', 0),
                        rec.get('homa_t1', 0))
    row['wire_mbps'] = wire
    row['wire_share'] = ({k: v / mbps for k, v in wire.items()}
                         if wire else None)
    row['series'] = share_series(samples, mbps)
    row['homa_t0'], row['homa_t1'] = rec.get('homa_t0'), rec.get('homa_t1')
    return row


TABLE = Table(-7, 3, -10, 5, 3, 6, 4, 6, 4, 4, 5, 6, 6, 5, -18, 5, 5, 5,
              5)


def pct(x):
    return cell(None if x is None else 100 * x, '%.0f%%')


def share_line(r):
    """The table's line of one run."""
    c = r['congestion'] or {}
    wire = r['wire_share']
    return TABLE.line(
        r['workload'], '%d' % r['flows'], r['config'], '%d' % r['rpcs'],
        '%d' % r['errors'], '%.2f' % r['homa_mbps'], pct(r['homa_share']),
        cell(r['tcp_mbps'], '%.2f') +
        ('*' if r['tcp_mbps_from'] == 'client' else ''),
        pct(r['tcp_share']), pct(r['p0_share']),
        '-' if wire is None else '%.0f/%.0f' % (
            100 * wire.get('homa', 0), 100 * wire.get('tcp', 0)),
        fmt_num(r['short_p50']), fmt_num(r['short_p99']),
        fmt_num(r.get('short_p99_vs_alone')), band_cell(r['band_drops']),
        *[cell(c.get(k)) if c else '-' for k in CONGESTION])


# The legend printed under the share table.
LEGEND = (
    '(tcp: TCP flows into h0 beside Homa (0: Homa alone); msgs, err: '
    'Homa messages h1 and h2 sent to h0 in the run, failed; Homa, %: '
    'Homa goodput (bytes of the messages counted x 8 / seconds) and its '
    'share of the link; TCP, %: what h0\'s TCP sockets received while '
    'the Homa clients ran, over that time (*: without that count, the '
    'TCP client\'s messages over its own run); link: bytes the switch '
    'sent toward h0 (all traffic, headers included) as a share of the '
    'link; wire H/T: Homa\'s and TCP\'s IP bytes into h0 between the '
    'first and the last once-a-second reading inside the Homa clients\' '
    'run, % of the link; sd P50, sd P99: slowdown (RTT over the '
    'unloaded RTT of the size) of the shortest half of Homa\'s messages '
    '(sizes up to the median); x alone: that P99 over the P99 of the '
    'same configuration without TCP; drops: the switch\'s drops toward '
    'h0 per band, band:drops (band 7 - IP priority; TCP is in band 7); '
    'cong+, cong-, cuts, grows: rtt_congested, rtt_uncongested, '
    'grant_scale_cuts, grant_scale_grows over all hosts (differences of '
    '/proc/net/homa_metrics over the run))')


def share_table(rows, cfg):
    """The printed share table (a list of lines)."""
    out = ['Share of h0\'s downlink: h1 and h2 send Homa messages to h0 '
           '(closed loop, %d outstanding each, one-way), h%d sends TCP to '
           'h0 (%d B messages, %d outstanding per flow); links %g Mbit/s%s, '
           '%ds per run' % (
               cfg['client_max'], TCP_HOST, TCP_BYTES, TCP_CLIENT_MAX,
               cfg['mbps'], ', net.homa.link_mbps %d' % cfg['link_mbps']
               if cfg.get('link_mbps') else '', cfg['seconds']),
           TABLE.line('wkload', 'tcp', 'config', 'msgs', 'err', 'Homa',
                      '%', 'TCP', '%', 'link', 'wire', 'sd', 'sd', 'x',
                      'drops', 'cong', 'cong', 'cuts', 'grows'),
           TABLE.line('', '', '', '', '', 'Mbit/s', '', 'Mbit/s', '', '',
                      'H/T', 'P50', 'P99', 'alone', 'by band', '+', '-')]
    return out + runs_table(
        rows, lambda r: TABLE.line(r['workload'], '%d' % r.get('flows', 0),
                                   r['config']), share_line, LEGEND)


def compare_alone(rows):
    """Each run beside TCP gets short_p99_vs_alone: its short-message P99
    slowdown over that of the same workload and configuration alone."""
    alone = {(r['workload'], r['config']): r['short_p99'] for r in rows
             if 'failed' not in r and not r['flows']}
    for r in rows:
        if 'failed' in r or not r['flows']:
            continue
        a = alone.get((r['workload'], r['config']))
        if a and r['short_p99'] is not None:
            r['short_p99_vs_alone'] = r['short_p99'] / a


def read_baselines(raw, outdir):
    """{workload: make_baseline of its unloaded run}, and the lines that
    say which baselines failed or are empty."""
    base, notes = {}, []
    for rec in raw['protocols']:
        if rec.get('kind') != 'baseline':
            continue
        wl = rec['workload']
        if 'failed' in rec:
            notes.append('%s baseline failed: %s' % (wl, rec['failed']))
            continue
        samples = load_samples(outdir, [r['file'] for r in rec['baseline']])
        if samples:
            base[wl] = make_baseline(samples)
        else:
            notes.append('%s baseline: no samples (no slowdowns)' % wl)
    return base, notes


def analyze_share(raw, outdir):
    cfg = raw['config']
    base, notes = read_baselines(raw, outdir)
    rows, report = [], {'mode': 'share', 'config': cfg, 'warmup': []}
    for rec in raw['protocols']:
        kind = rec.get('kind')
        if kind == 'baseline':
            continue
        if 'failed' in rec:
            row = {'workload': rec['workload'], 'flows': rec['flows'],
                   'config': rec['protocol'], 'failed': rec['failed']}
        else:
            row = share_row(rec, cfg, outdir, base.get(rec['workload']))
        (report['warmup'] if kind == 'warmup' else rows).append(row)
    compare_alone(rows)
    report['rows'] = rows
    report['baselines'] = {wl: [{'bytes': s, 'rtt_us': r / 1e3}
                                for s, r in b] for wl, b in base.items()}
    report['table'] = share_table(rows, cfg) + notes
    for r in report['warmup']:
        report['table'].append(
            'warm-up run (not in the table): %s, %s: %s' % (
                r['config'], r['workload'], r['failed'] if 'failed' in r
                else '%d msgs, %.2f Mbit/s, sd P99 %s' % (
                    r['rpcs'], r['homa_mbps'], fmt_num(r['short_p99']))))
    return report


def analyze(raw, outdir):
    report = analyze_share(raw, outdir)
    report['plots'] = plot_shares(
        [r for r in report['rows'] if 'failed' not in r], outdir)
    return report
