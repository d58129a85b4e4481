# SPDX-License-Identifier: GPL-2.0+
"""The rttwin mode: h0 fetches fixed-size responses (40 KB-500 KB) from two
Homa servers, alone and against a TCP flow into h0: Homa with its
RTT-adaptive window on and off (homa, homa-nortt)."""

import os

from ..common import log
from ..cross import (TCP_BYTES, TCP_HOST, check_options, guarded,
                     metrics_summed, p0_figures, readings_after,
                     readings_before, record_readings, runs_table,
                     save_peers, start_tcp, tcp_figures)
from ..experiment import (loaded_rtts, run_clients, start_servers,
                          stop_servers, wait_clients)
from ..parse import parse_homa_peers
from ..stats import percentile, sum_summaries
from ..table import Table, cell, fmt_num, fmt_size
from ..testbed import homa_sysctls

NAME = 'rttwin'
DEFAULTS = {'seconds': 15, 'client_max': 2, 'protocols': 'homa,homa-nortt'}
TABLE = Table(-5, -5, -12, 5, 4, 6, 5, 7, 7, 6, 5, 7, 7, 7, 7, 6, 4)


def finish(cfg, error):
    check_options(cfg, error, 'h0 receives, h1 and h2 send, h3 the TCP '
                  'cross traffic')
    if not cfg.sizes or any(not 1 <= x <= 1000000 for x in cfg.sizes):
        error('--sizes: 1..1000000 bytes each')


def results_tag(cfg):
    return cfg.mode


def records(runner, cfg, outdir):
    return run_rttwin(runner, cfg, outdir)


# RTT-adaptive window mode: the two Homa senders (h1, h2) of h0's
# responses, the size of h0's requests. The TCP cross traffic: cross.py.
RTTWIN_SENDERS = (1, 2)
RTTWIN_REQUEST_BYTES = 100
# Seconds of the warm-up run (at most --seconds).
RTTWIN_WARMUP = 5


def rttwin_tag(proto, size, cross):
    """The file name prefix of one rttwin run."""
    return '%s-%d-%s' % (proto, size, 'tcp' if cross else 'alone')


def run_rttwin(runner, cfg, outdir):
    """The RTT-adaptive window comparison: a warm-up run, then per size of
    cfg.sizes, without and with TCP cross traffic, per Homa variant of
    cfg.protocols, one run (run_rttwin_one). Yields the runs' records as
    they end."""
    # The first Homa run of a boot fares worse than the same run later
    # (more drops and resends): a run of the first configuration that the
    # table leaves out.
    proto, size = cfg.protocols[0], cfg.sizes[0]
    rec = guarded('warmup', lambda: run_rttwin_one(
        runner, proto, size, False, cfg, outdir, 'warmup',
        min(cfg.seconds, RTTWIN_WARMUP)),
        {'protocol': proto, 'size': size, 'cross': False, 'tag': 'warmup'})
    rec['warmup'] = True
    yield rec
    for size in cfg.sizes:
        for cross in (False, True):
            for proto in cfg.protocols:
                tag = rttwin_tag(proto, size, cross)
                yield guarded(tag, lambda: run_rttwin_one(
                    runner, proto, size, cross, cfg, outdir),
                    {'protocol': proto, 'size': size, 'cross': cross,
                     'tag': tag})


def rttwin_jobs(runner, tag, size, seconds, common):
    """The Homa clients of an rttwin run: one on h0 per sender, fetching
    SIZE-byte responses for SECONDS."""
    return [(0, [runner.addr(i)],
             ['--workload', str(RTTWIN_REQUEST_BYTES),
              '--response-bytes', str(size), '--seed', str(i),
              '--seconds', str(seconds)] + common,
             '%s-h%d.rtt' % (tag, i)) for i in RTTWIN_SENDERS]


def run_rttwin_one(runner, proto, size, cross, cfg, outdir, tag=None,
                   seconds=None):
    """h0 fetches SIZE-byte responses from Homa servers on h1 and h2 (one
    closed-loop client per server, cfg.client_max outstanding each, 100 B
    requests): h0 receives and grants the large messages and, as their
    client, measures its RTT to the senders (a host that only receives
    requests never does, so the window would not adapt). With CROSS, h3
    sends TCP_BYTES messages (one-way, closed loop) to a TCP server on h0
    over the same downlink: it starts TCP_LEAD seconds before the Homa
    clients and is stopped after they end, and what h0's TCP sockets
    received in between (ss) is its share. The run lasts SECONDS (default
    cfg.seconds); its files start with TAG (default rttwin_tag)."""
    tag = tag or rttwin_tag(proto, size, cross)
    seconds = seconds or cfg.seconds
    rec = {'protocol': proto, 'size': size, 'cross': cross, 'tag': tag,
           'senders': [runner.addr(i) for i in RTTWIN_SENDERS]}
    runner.prepare(proto, cfg)
    rec['homa_sysctls'] = homa_sysctls(
        cfg, proto, getattr(runner, 'homa_defaults', None))
    servers = start_servers(runner, proto, RTTWIN_SENDERS, cfg, outdir, tag)
    phase = 'rttwin %s%s' % (fmt_size(size), ' +tcp' if cross else '')
    tcp = None
    try:
        common = ['--gbps', '0', '--ports', str(cfg.client_ports),
                  '--client-max', str(cfg.client_max)]
        if cross:
            servers += start_servers(runner, 'tcp', [0], cfg, outdir,
                                     tag + '-tcp')
            rec['tcp_bytes'] = TCP_BYTES
            tcp = start_tcp(runner, cfg, outdir, tag, phase, seconds,
                            common)
        log('%s: h0 fetches %d B responses from h1, h2 (%d outstanding '
            'each) for %ds' % (tag, size, cfg.client_max, seconds))
        jobs = rttwin_jobs(runner, tag, size, seconds, common)
        before = readings_before(runner, cfg, cross)
        rec['loaded'] = run_clients(runner, proto, phase, jobs, outdir, cfg,
                                    seconds + 120)
        after = readings_after(runner, cfg, cross)
        save_peers(runner, rec, outdir, tag)
        record_readings(rec, outdir, tag, before, after)
    finally:
        if tcp is not None:
            rec['tcp'] = wait_clients(runner, tcp, outdir, 30, stop=True)
        stop_servers(servers)
    return rec


def rttwin_row(rec, cfg, rtts, peers=None):
    """One run of the rttwin mode: Homa's figures from its clients'
    summaries and sorted RTTs (RTTS, ns), the TCP cross traffic's (what
    h0's TCP sockets received while the Homa clients ran; without that
    count, the TCP client's own messages over its whole run), the
    switch's drops and bytes sent toward h0, the Homa metric deltas and
    h0's RTT estimate of the senders (PEERS, parse_homa_peers of its
    /proc/net/homa_peers)."""
    size = rec['size']
    mbps = cfg.get('mbps')
    sums = [r['summary'] for r in rec.get('loaded', []) if r['summary']]
    tot = sum_summaries(sums)
    # Every counted RPC brought exactly SIZE bytes to h0 (a wrong length
    # is an error): exact, unlike the summaries' rounded gbps_in.
    goodput = tot['rpcs'] * size * 8 / 1e6 / max(tot['seconds'], 1e-9)
    row = {'size': size, 'cross': bool(rec.get('cross')),
           'config': rec['protocol'], 'rpcs': tot['rpcs'],
           'errors': tot['errors'], 'seconds': tot['seconds'],
           'goodput_mbps': goodput,
           'link_share': goodput / mbps if mbps else None,
           'p50_ms': percentile(rtts, 50) / 1e6 if rtts else None,
           'p99_ms': percentile(rtts, 99) / 1e6 if rtts else None,
           'switch_drops_to_h0': (rec.get('switch_drops') or {}).get('p0'),
           'p0_mbps': None, 'p0_share': None,
           'resends_sent': None, 'rpc_timeouts': None,
           'window': None, 'rtt_min_us': None, 'rtt_samples': None,
           'homa_sysctls': rec.get('homa_sysctls'),
           'cpu_busy': [b for b in rec.get('cpu_busy', []) if b is not None],
           'clients': sums}
    row.update(tcp_figures(rec))
    row['p0_mbps'], row['p0_share'] = p0_figures(rec, mbps)
    hm = rec.get('homa_metrics')
    if hm is not None:
        row.update(metrics_summed(hm, ('resends_sent', 'rpc_timeouts')))
        others = [m for h, m in hm.items() if h != '0']
        row['metrics'] = {
            'h0': hm.get('0', {}),
            'others': {k: sum(m.get(k, 0) for m in others)
                       for k in sorted({k for m in others for k in m})}}
    if peers is not None:
        rttwin_row_window(row, rec, peers)
    return row


def rttwin_row_window(row, rec, peers):
    """h0's RTT estimate of an rttwin run's senders in ROW, from PEERS
    (parse_homa_peers of its /proc/net/homa_peers)."""
    known = [peers[a] for a in rec.get('senders', []) if a in peers]
    row['rtt_samples'] = sum(p['samples'] for p in known)
    measured = [p for p in known if p['samples'] > 0]
    if measured:
        # The grant code uses the largest window of the senders it
        # grants to; that sender's rtt_min.
        top = max(measured, key=lambda p: p['sched_window'])
        row['window'] = top['sched_window']
        row['rtt_min_us'] = top['rtt_min_ns'] / 1e3


# The legend printed under the rttwin table.
RTTWIN_LEGEND = (
    '(msgs, err: responses h0 received, failed RPCs; Mbit/s, '
    'link: Homa goodput into h0, msgs x size x 8 / seconds, and '
    'its share of h0\'s link; P50/P99: RTT of the RPCs (100 B '
    'request, then the response); TCP: Mbit/s h0\'s TCP '
    'sockets received from just before the Homa clients '
    'started to just after they ended (*: without that count, '
    'the TCP client\'s messages over its own run); p0: bytes '
    'the switch sent toward h0 (all traffic, headers '
    'included) over the same time, as a share of the link; sw '
    'drop: packets the switch dropped toward h0; resends, '
    'timeout: resends_sent, rpc_timeouts over all hosts; '
    'window, rttmin: h0\'s sched_window (B) and rtt_min (us) '
    'of the senders at the end of the run from '
    '/proc/net/homa_peers, 3 x rtt_min x link_mbps, used only '
    'with rtt_adaptive=1, \'-\' without an RTT sample; CPU: '
    'the machine\'s busy share)')


def rttwin_line(r):
    """The table's line of one run."""
    return TABLE.line(
        fmt_size(r['size']), 'tcp' if r['cross'] else 'off', r['config'],
        '%d' % r['rpcs'], '%d' % r['errors'], '%.2f' % r['goodput_mbps'],
        cell(None if r['link_share'] is None else 100 * r['link_share'],
             '%.0f%%'),
        cell(r['p50_ms'], '%.1f'), cell(r['p99_ms'], '%.1f'),
        cell(r['tcp_mbps'], '%.2f') +
        ('*' if r['tcp_mbps_from'] == 'client' else ''),
        cell(None if r['p0_share'] is None else 100 * r['p0_share'],
             '%.0f%%'),
        cell(r['switch_drops_to_h0']),
        cell(r['resends_sent']), cell(r['rpc_timeouts']),
        cell(r['window']), cell(r['rtt_min_us'], '%.0f'),
        cell(r['cpu_busy'][0] * 100 if r['cpu_busy'] else None, '%.0f%%'))


def rttwin_table(rows, cfg):
    """The printed rttwin table (a list of lines)."""
    out = ['RTT-adaptive window: h0 fetches fixed-size responses from h1 '
           'and h2 (Homa, %d outstanding each, %d B requests); cross '
           'traffic: TCP h%d -> h0, %d B messages, %d outstanding; links '
           '%s, %ds per run' % (
               cfg['client_max'], RTTWIN_REQUEST_BYTES, TCP_HOST,
               TCP_BYTES, cfg['client_max'],
               '%g Mbit/s' % cfg['mbps'] if cfg['mbps'] else 'unshaped',
               cfg['seconds']),
           TABLE.line('size', 'cross', 'config', 'msgs', 'err', 'Mbit/s',
                      'link', 'P50 ms', 'P99 ms', 'TCP', 'p0', 'sw drop',
                      'resends', 'timeout', 'window', 'rttmin', 'CPU')]
    return out + runs_table(
        rows, lambda r: TABLE.line(fmt_size(r['size']),
                                   'tcp' if r['cross'] else 'off',
                                   r['config']), rttwin_line, RTTWIN_LEGEND)


def analyze_rttwin(raw, outdir):
    cfg = raw['config']
    report = {'mode': 'rttwin', 'config': cfg, 'rows': []}
    rows, warmups = [], []
    for rec in raw['protocols']:
        if rec.get('warmup'):
            warmups.append(rec)
            continue
        if 'failed' in rec:
            rows.append({'size': rec['size'], 'cross': rec['cross'],
                         'config': rec['protocol'],
                         'failed': rec['failed']})
            continue
        rtts = loaded_rtts(outdir, rec)
        peers = None
        if rec.get('peers_file'):
            try:
                with open(os.path.join(outdir, rec['peers_file'])) as f:
                    peers = parse_homa_peers(f.read())
            except OSError:
                pass
        rows.append(rttwin_row(rec, cfg, rtts, peers))
    report['rows'] = rows
    report['table'] = rttwin_table(rows, cfg)
    report['warmup'] = []
    for rec in warmups:
        if 'failed' in rec:
            report['table'].append('warm-up run (not in the table): '
                                   'failed: %s' % rec['failed'])
            continue
        r = rttwin_row(rec, cfg, loaded_rtts(outdir, rec))
        report['warmup'].append(r)
        report['table'].append(
            'warm-up run (not in the table): %s, %s, %.0f s: %d msgs, '
            '%d err, %.2f Mbit/s, P50 %s ms, P99 %s ms, sw drop %s, '
            'resends %s, timeout %s' % (
                r['config'], fmt_size(r['size']), r['seconds'], r['rpcs'],
                r['errors'], r['goodput_mbps'], fmt_num(r['p50_ms']),
                fmt_num(r['p99_ms']), r['switch_drops_to_h0'],
                r['resends_sent'], r['rpc_timeouts']))
    return report


def analyze(raw, outdir):
    report = analyze_rttwin(raw, outdir)
    report['plots'] = []
    return report
