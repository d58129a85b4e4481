# SPDX-License-Identifier: GPL-2.0+
"""What the throughput and loss modes share: one client on h0 sending
fixed-size one-way messages to h1, closed loop, and the figures of its
run."""

from ..experiment import (loaded_rtts, run_clients, snapshot,
                          start_servers, stop_servers)
from ..common import log
from ..parse import cpu_busy, cpu_cores
from ..stats import percentile, sum_summaries

DEFAULTS = {'hosts': 2, 'mbps': 0}


def run_stream(runner, proto, cfg, outdir, phase, size, extra_args):
    """One client on h0 sending SIZE-byte messages to h1, closed loop."""
    rec = {'protocol': proto}
    runner.prepare(proto, cfg)
    servers = start_servers(runner, proto, [1], cfg, outdir)
    try:
        log('%s: %s, %d B messages h0 -> h1 for %ds' % (
            proto, phase, size, cfg.seconds))
        stat0 = runner.cpu_stat()
        rec['loaded'] = run_clients(
            runner, proto, phase,
            [(0, [runner.addr(1)], ['--workload', str(size), '--one-way',
                                    '--gbps', '0', '--seconds',
                                    str(cfg.seconds), '--seed', '1'] +
              extra_args, '%s-%s.rtt' % (proto, phase))],
            outdir, cfg, cfg.seconds + 120)
        stat1 = runner.cpu_stat()
        rec['cpu_busy'] = [cpu_busy(a, b) for a, b in zip(stat0, stat1)]
        rec['cpu_cores'] = [cpu_cores(b) for b in stat1]
        snapshot(runner, proto + '-' + phase, outdir)
    finally:
        stop_servers(servers)
    return rec


def run_mode(runner, proto, cfg, outdir):
    """The run of PROTO in the throughput or loss mode (cfg.mode)."""
    return run_stream(runner, proto, cfg, outdir, cfg.mode,
                      cfg.message_bytes,
                      ['--client-max', str(cfg.client_max)])


def link(cfg):
    return '%g Mbit/s' % cfg['mbps'] if cfg['mbps'] else 'unshaped'


def cpu_per_gb(rec, gbps):
    """CPU seconds the machines (every core: clients, servers, softirqs,
    threads) spent per GB (10^9 bytes) of goodput, or None."""
    pairs = list(zip(rec.get('cpu_busy') or [], rec.get('cpu_cores') or []))
    if not pairs or any(b is None or n is None for b, n in pairs) or \
            gbps <= 0:
        return None
    return sum(b * n for b, n in pairs) * 8 / gbps


def figures(rec, outdir):
    """The figures of one protocol's run (summary.json), or None when its
    client printed no summary."""
    sums = [r['summary'] for r in rec['loaded'] if r['summary']]
    if not sums:
        return None
    tot = sum_summaries(sums)
    rtts = loaded_rtts(outdir, rec)
    p50 = percentile(rtts, 50) / 1e6 if rtts else float('nan')
    p99 = percentile(rtts, 99) / 1e6 if rtts else float('nan')
    secs = max(tot['seconds'], 1e-9)
    cpu = (tot['cpu_user_s'] + tot['cpu_sys_s']) / secs
    done, failed = tot['rpcs'], tot['errors']
    comp = done / float(done + failed) if done + failed else float('nan')
    return {'goodput_gbps': tot['gbps_out'], 'rpcs': done,
            'cpu_s_per_gb': cpu_per_gb(rec, tot['gbps_out']),
            'errors': failed, 'completion': comp,
            'msgs_per_s': done / secs, 'p50_ms': p50, 'p99_ms': p99,
            'client_cpu_cores': cpu, 'summary': sums,
            'machine_cpu_busy': rec.get('cpu_busy')}


def analyze_stream(raw, outdir, heading, row):
    """The report of a throughput or loss run: HEADING (lines) then, per
    protocol, ROW(protocol, figures)."""
    cfg = raw['config']
    report = {'mode': cfg['mode'], 'config': cfg, 'protocols': {}}
    out = list(heading)
    for rec in raw['protocols']:
        p = rec['protocol']
        if 'failed' in rec:
            out.append('%-6s failed: %s' % (p, rec['failed']))
            continue
        f = figures(rec, outdir)
        if f is None:
            out.append('%-6s no summary from the client' % p)
            continue
        report['protocols'][p] = f
        out.append(row(p, f))
    report['table'] = out
    return report
