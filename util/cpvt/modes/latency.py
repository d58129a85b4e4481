# SPDX-License-Identifier: GPL-2.0+
"""The latency mode (the default): per protocol an unloaded baseline, then
every host loading the network with a workload; slowdown per tenth of the
messages sorted by size."""

import time

from ..experiment import (per_client_gbps, per_protocol, run_clients,
                          start_servers, stop_servers, snapshot,
                          load_samples)
from ..parse import cpu_busy
from ..plots import plot_latency
from ..stats import (deciles, exact_rates, make_baseline, percentile,
                     slowdowns, split_even, sum_summaries)
from ..table import Table, fmt_num, fmt_size
from ..common import log

NAME = 'latency'
DEFAULTS = {'seconds': 60, 'client_max': 200, 'warmup': 20,
            'protocols': 'homa,tcp,dctcp'}


def finish(cfg, error):
    if cfg.mbps <= 0:
        error('%s mode needs a link rate (--mbps > 0)' % cfg.mode)


def results_tag(cfg):
    return cfg.workload


def records(runner, cfg, outdir):
    return per_protocol(runner, cfg, outdir, run_protocol)


def run_baseline(runner, proto, cfg, outdir, rec, common):
    """The unloaded baseline: cfg.unloaded RPCs of each representative
    size, one at a time, h0 -> h1."""
    log('%s: unloaded baseline (%d RPCs per size, h0 -> h1)'
        % (proto, cfg.unloaded))
    t0 = time.time()
    stat0 = runner.cpu_stat()
    rec['baseline'] = run_clients(
        runner, proto, 'baseline',
        [(0, [runner.addr(1)], common + ['--unloaded', str(cfg.unloaded),
                                         '--seed', '1'],
          '%s-baseline.rtt' % proto)],
        outdir, cfg, cfg.baseline_timeout)
    rec['baseline_seconds'] = time.time() - t0
    rec['baseline_cpu_busy'] = [cpu_busy(a, b) for a, b in
                                zip(stat0, runner.cpu_stat())]


def run_loaded(runner, proto, cfg, outdir, rec, common):
    """The loaded run: every host a client sending to all the others."""
    n = runner.n()
    gbps = per_client_gbps(cfg)
    log('%s: loaded, %d clients at %.4f Gbps each for %ds after a %ds '
        'warm-up' % (proto, n, gbps, cfg.seconds, cfg.warmup))
    jobs = []
    for i in range(n):
        others = [runner.addr(j) for j in range(n) if j != i]
        jobs.append((i, others, common + [
            '--gbps', '%.6f' % gbps, '--seconds', str(cfg.seconds),
            '--warmup', str(cfg.warmup),
            '--ports', str(cfg.client_ports),
            '--client-max', str(cfg.client_max),
            '--seed', str(1000 + i)], '%s-load-h%d.rtt' % (proto, i)))
    stat0 = runner.cpu_stat()
    t0 = time.time()
    rec['loaded'] = run_clients(runner, proto, 'loaded', jobs, outdir,
                                cfg, cfg.seconds + cfg.warmup + 120)
    rec['loaded_wall'] = time.time() - t0
    stat1 = runner.cpu_stat()
    rec['cpu_busy'] = [cpu_busy(a, b) for a, b in zip(stat0, stat1)]


def run_protocol(runner, proto, cfg, outdir):
    """Baseline and loaded run of one protocol."""
    rec = {'protocol': proto}
    runner.prepare(proto, cfg)
    servers = start_servers(runner, proto, range(runner.n()), cfg, outdir)
    try:
        common = ['--workload', cfg.workload]
        if cfg.one_way:
            common.append('--one-way')
        run_baseline(runner, proto, cfg, outdir, rec, common)
        run_loaded(runner, proto, cfg, outdir, rec, common)
        snapshot(runner, proto, outdir)
    finally:
        stop_servers(servers)
    return rec


def decile_table(per_proto, parts=10):
    """The text table: per tenth of the messages (sorted by size), the size
    range and each protocol's P50 and P99 slowdown. PER_PROTO is an ordered
    list of (name, slowdown list)."""
    pooled = sorted(s for _, slow in per_proto for s, _, _ in slow)
    bounds = split_even(len(pooled), parts)
    rows = {name: deciles(slow, parts) for name, slow in per_proto}
    names = [name for name, _ in per_proto]
    head = Table(-6, -15, *[15] * len(names))
    body = Table(-6, -15, *[7] * (2 * len(names)))
    lines = [head.line('tenth', 'size (B)',
                       *[name + ' slowdown' for name in names]),
             body.line('', '', *['P50', 'P99'] * len(names))]
    for i in range(parts):
        if bounds[i] < bounds[i + 1]:
            rng = '%s-%s' % (fmt_size(pooled[bounds[i]]),
                             fmt_size(pooled[bounds[i + 1] - 1]))
        else:
            rng = '-'
        cells = []
        for name in names:
            r = rows[name][i]
            cells += [fmt_num(r['p50']), fmt_num(r['p99'])]
        lines.append(body.line(str(i + 1), rng, *cells))
    return '\n'.join(lines)


def host_shares(rec, mbps):
    """Per loaded client (one per host), the load it generated as a
    fraction of its host's link, and the fraction of that its completed
    RPCs carried: a host whose random arrivals came to more than its link
    in the counted window falls behind under any protocol. Clients that
    did not count both are left out."""
    out = []
    for r in rec['loaded']:
        s = exact_rates(r['summary']) if r.get('summary') else {}
        gen, done = s.get('generated_gbps'), s.get('completed_gbps')
        if gen is None or done is None:
            continue
        out.append({'host': 'h%d' % r['host'],
                    'generated_link_fraction': gen / (mbps / 1000.0),
                    'carried_fraction': done / gen if gen else None})
    return out


def host_shares_line(shares):
    """The per-host line under a protocol's line, or '' if none."""
    if not shares:
        return ''
    return ('       per host, generated (of its link) -> completed (of '
            'that): ' + ', '.join(
                '%s %.1f%% -> %s' % (
                    h['host'], 100 * h['generated_link_fraction'],
                    '%.1f%%' % (100 * h['carried_fraction'])
                    if h['carried_fraction'] is not None else '-')
                for h in shares))


def protocol_report(rec, cfg, nhosts, base, slow):
    """The summary.json entry of one protocol and its line under the
    table."""
    p = rec['protocol']
    sums = [r['summary'] for r in rec['loaded'] if r['summary']]
    tot = sum_summaries(sums)
    link_gbps = cfg['mbps'] / 1000.0 * nhosts
    achieved = tot['gbps_out'] + tot['gbps_in']
    offered = cfg['load'] * link_gbps
    # What the clients' random arrivals came to in this run, when they
    # counted it (close for every protocol but not the same: one random
    # stream per client also picks each RPC's server as it is sent).
    generated = tot.get('generated_gbps') or None
    # The carried load: request plus response bytes of the RPCs completed
    # (older cp_nodes: requests sent plus responses received).
    completed = tot.get('completed_gbps')
    carried = completed if completed is not None else achieved
    wall = max(tot['seconds'], 1e-9)
    cpu_client = (tot['cpu_user_s'] + tot['cpu_sys_s']) / wall
    busy = [b for b in rec.get('cpu_busy', []) if b is not None]
    sd = sorted(x[1] for x in slow)
    entry = {
        'rpcs': tot['rpcs'], 'errors': tot['errors'],
        'offered_link_gbps': offered,
        'achieved_link_gbps': achieved,
        'generated_link_gbps': generated,
        'completed_link_gbps': completed,
        'carried_fraction': carried / generated if generated else None,
        'request_gbps': tot['gbps_out'],
        'cp_node_offered_gbps': tot['offered_gbps'],
        'client_cpu_cores': cpu_client,
        'machine_cpu_busy': busy,
        'p50_slowdown': percentile(sd, 50),
        'p99_slowdown': percentile(sd, 99),
        'baseline': [{'bytes': s, 'rtt_us': r / 1e3} for s, r in base],
        'baseline_seconds': rec.get('baseline_seconds'),
        'deciles': deciles(slow),
        'clients': sums,
        'hosts': host_shares(rec, cfg['mbps']),
    }
    line = ('%-6s offered %.4f Gbps, achieved %.4f Gbps (%.1f%% of %d x %g '
            'Mbit/s links%s); %d RPCs, %d errors; clients used %.2f CPUs%s' % (
                p, offered, achieved, 100 * achieved / link_gbps, nhosts,
                cfg['mbps'],
                ('; %s %.4f Gbps, %.1f%% of the %.4f Gbps generated' % (
                    'RPCs completed' if completed is not None else
                    'carried', carried, 100 * carried / generated,
                    generated))
                if generated else '',
                tot['rpcs'], tot['errors'], cpu_client,
                ('; machine CPU %s busy' % ', '.join(
                    '%.0f%%' % (100 * b) for b in busy)) if busy else ''))
    per_host = host_shares_line(entry['hosts'])
    if per_host:
        line += '\n' + per_host
    return entry, line


def analyze_latency(raw, outdir):
    """The report and [(protocol, slowdowns)] of a latency run."""
    cfg = raw['config']
    per_proto, report = [], {'mode': 'latency', 'config': cfg,
                             'protocols': {}}
    lines = []
    for rec in raw['protocols']:
        p = rec['protocol']
        if 'failed' in rec:
            lines.append('%-6s failed: %s' % (p, rec['failed']))
            continue
        base_samples = load_samples(outdir, [r['file'] for r in
                                             rec['baseline']])
        load_samples_ = load_samples(outdir, [r['file'] for r in
                                              rec['loaded']])
        if not base_samples or not load_samples_:
            lines.append('%-6s no data (baseline %d RPCs, loaded %d RPCs)'
                         % (p, len(base_samples), len(load_samples_)))
            continue
        base = make_baseline(base_samples)
        slow = slowdowns(load_samples_, base)
        per_proto.append((p, slow))
        report['protocols'][p], line = protocol_report(
            rec, cfg, len(raw['hosts']), base, slow)
        lines.append(line)
    report['table'] = table_lines(raw, per_proto, lines, report)
    return report, per_proto


def table_lines(raw, per_proto, lines, report):
    """The printed table: a heading, the tenths, a line per protocol."""
    cfg = raw['config']
    out = ['Slowdown (RTT / unloaded RTT of the same size) per tenth of '
           'the messages sorted by size',
           'workload %s, load %.0f%% of %g Mbit/s, %d hosts, %ds%s, %s' % (
               cfg['workload'], 100 * cfg['load'], cfg['mbps'],
               len(raw['hosts']), cfg['seconds'],
               (' counted after a %ds warm-up' % cfg['warmup'])
               if cfg.get('warmup') else '',
               'one-way messages' if cfg['one_way'] else 'echo RPCs')]
    if per_proto:
        out.append(decile_table(per_proto))
    out += lines
    if any(v['errors'] for v in report['protocols'].values()):
        out.append('(failed RPCs are counted as errors above and are not '
                   'in the slowdowns)')
    return out


def analyze(raw, outdir):
    report, per_proto = analyze_latency(raw, outdir)
    report['plots'] = plot_latency(per_proto, outdir)
    return report
