# SPDX-License-Identifier: GPL-2.0+
"""The calibrate mode: loaded runs at several link rates (--rates): where
does the CPU, rather than the links, start to limit the achieved load?
(How R was chosen.)"""

import subprocess

from ..common import log
from ..experiment import (loaded_rtts, per_client_gbps, run_clients,
                          snapshot, start_servers, stop_servers)
from ..parse import cpu_busy
from ..stats import percentile, sum_summaries
from ..table import Table, fmt_num

NAME = 'calibrate'
DEFAULTS = {'seconds': 20, 'client_max': 200}
HEAD = Table(7, -6, 9, 9, 8, 8, 9, 9, 7)
ROW = Table(7, -6, 9, 9, 8, 7, 9, 9, 7)


def finish(cfg, error):
    cfg.mbps = cfg.rates[0]
    if cfg.mbps <= 0:
        error('%s mode needs a link rate (--mbps > 0)' % cfg.mode)


def results_tag(cfg):
    return cfg.mode


def jobs(runner, cfg, tag, gbps):
    """Every host a client sending to all the others at GBPS."""
    out = []
    for i in range(runner.n()):
        others = [runner.addr(j) for j in range(runner.n()) if j != i]
        extra = ['--workload', cfg.workload, '--gbps', '%.6f' % gbps,
                 '--seconds', str(cfg.seconds),
                 '--client-max', str(cfg.client_max),
                 '--seed', str(1000 + i)]
        if cfg.one_way:
            extra.append('--one-way')
        out.append((i, others, extra, '%s-h%d.rtt' % (tag, i)))
    return out


def run_point(runner, proto, mbps, cfg, outdir):
    """One loaded run of PROTO at MBPS (cfg.mbps)."""
    tag = '%s-%gmbit' % (proto, mbps)
    rec = {'protocol': proto, 'mbps': mbps}
    try:
        runner.prepare(proto, cfg)
        servers = start_servers(runner, proto, range(runner.n()), cfg,
                                outdir)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        log('%s: FAILED: %s' % (tag, e))
        rec['failed'] = str(e)
        return rec
    try:
        gbps = per_client_gbps(cfg)
        log('%s: %d clients at %.4f Gbps each for %ds' % (
            tag, runner.n(), gbps, cfg.seconds))
        stat0 = runner.cpu_stat()
        rec['loaded'] = run_clients(runner, proto, 'calibrate %g' % mbps,
                                    jobs(runner, cfg, tag, gbps), outdir,
                                    cfg, cfg.seconds + 120)
        rec['cpu_busy'] = [cpu_busy(a, b) for a, b in
                           zip(stat0, runner.cpu_stat())]
        snapshot(runner, tag, outdir)
    finally:
        stop_servers(servers)
    return rec


def records(runner, cfg, outdir):
    """A loaded run per rate of cfg.rates and protocol."""
    for mbps in cfg.rates:
        cfg.mbps = mbps
        for proto in cfg.protocols:
            yield run_point(runner, proto, mbps, cfg, outdir)


def point(rec, cfg, n, outdir):
    """The summary.json entry of one run and its row."""
    p, mbps = rec['protocol'], rec['mbps']
    sums = [r['summary'] for r in rec['loaded'] if r['summary']]
    tot = sum_summaries(sums)
    offered = cfg['load'] * mbps * n
    achieved = (tot['gbps_out'] + tot['gbps_in']) * 1000
    rtts = loaded_rtts(outdir, rec)
    busy = [b for b in rec.get('cpu_busy', []) if b is not None]
    pt = {'mbps': mbps, 'protocol': p, 'offered_mbps': offered,
          'achieved_mbps': achieved, 'cpu_busy': busy[0] if busy
          else None, 'rpcs': tot['rpcs'], 'errors': tot['errors'],
          'p50_ms': percentile(rtts, 50) / 1e6 if rtts else None,
          'p99_ms': percentile(rtts, 99) / 1e6 if rtts else None}
    row = ROW.line('%g' % mbps, p, '%.1f' % offered, '%.1f' % achieved,
                   '%.0f%%' % (100 * achieved / offered),
                   '%.0f%%' % (100 * pt['cpu_busy']) if busy else '-',
                   fmt_num(pt['p50_ms']), fmt_num(pt['p99_ms']),
                   '%d' % tot['errors'])
    return pt, row


def analyze(raw, outdir):
    cfg = raw['config']
    n = len(raw['hosts'])
    out = ['Calibration: %d hosts, workload %s, each host offered %.0f%% of '
           'its link, %ds per point' % (n, cfg['workload'],
                                        100 * cfg['load'], cfg['seconds']),
           HEAD.line('R Mbps', 'proto', 'offered', 'achieved', 'ach/off',
                     'CPU busy', 'P50 ms', 'P99 ms', 'errors')]
    report = {'mode': 'calibrate', 'config': cfg, 'points': []}
    for rec in raw['protocols']:
        if 'failed' in rec:
            out.append('%7g %-6s failed: %s' % (rec['mbps'], rec['protocol'],
                                                rec['failed']))
            continue
        pt, row = point(rec, cfg, n, outdir)
        report['points'].append(pt)
        out.append(row)
    out.append('(offered and achieved: Mbit/s of message data over all '
               'hosts; CPU busy: the whole machine)')
    report['table'] = out
    report['plots'] = []
    return report
