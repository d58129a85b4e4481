# SPDX-License-Identifier: GPL-2.0+
"""The rttwin mode: h0 fetches fixed-size responses (40 KB-500 KB) from two
Homa servers, alone and against a TCP flow into h0: Homa with its
RTT-adaptive window on and off (homa, homa-nortt)."""

import os
import subprocess
import time

from ..common import CP_NODE_TCP_PORT, PROTOCOLS, log
from ..experiment import (loaded_rtts, run_clients, start_clients,
                          start_servers, stop_servers, wait_clients)
from ..parse import (cpu_busy, drops_between, metrics_delta,
                     parse_homa_peers, qdisc_sent)
from ..stats import percentile, sum_summaries
from ..table import Table, cell, fmt_num, fmt_size
from ..testbed import homa_sysctls

NAME = 'rttwin'
DEFAULTS = {'seconds': 15, 'client_max': 2, 'protocols': 'homa,homa-nortt'}
TABLE = Table(-5, -5, -12, 5, 4, 6, 5, 7, 7, 6, 5, 7, 7, 7, 7, 6, 4)


def finish(cfg, error):
    if cfg.mbps <= 0:
        error('%s mode needs a link rate (--mbps > 0)' % cfg.mode)
    if cfg.hosts < 4:
        error('rttwin mode needs 4 hosts (h0 receives, h1 and h2 '
              'send, h3 the TCP cross traffic)')
    if any(PROTOCOLS[p][0] != 'homa' for p in cfg.protocols):
        error('rttwin mode: --protocols takes Homa variants only '
              '(TCP is the cross traffic)')
    if not cfg.sizes or any(not 1 <= x <= 1000000 for x in cfg.sizes):
        error('--sizes: 1..1000000 bytes each')


def results_tag(cfg):
    return cfg.mode


def records(runner, cfg, outdir):
    return run_rttwin(runner, cfg, outdir)


# RTT-adaptive window mode: the two Homa senders (h1, h2) of h0's
# responses, the TCP cross-traffic host, its message size and how many
# seconds it starts before the Homa clients, the size of h0's requests.
RTTWIN_SENDERS = (1, 2)
RTTWIN_TCP_HOST = 3
RTTWIN_TCP_BYTES = 500000
RTTWIN_TCP_LEAD = 3
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
    try:
        rec = run_rttwin_one(runner, proto, size, False, cfg, outdir,
                             'warmup', min(cfg.seconds, RTTWIN_WARMUP))
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        log('warmup: FAILED: %s' % e)
        rec = {'protocol': proto, 'size': size, 'cross': False,
               'tag': 'warmup', 'failed': str(e)}
    rec['warmup'] = True
    yield rec
    for size in cfg.sizes:
        for cross in (False, True):
            for proto in cfg.protocols:
                tag = rttwin_tag(proto, size, cross)
                try:
                    rec = run_rttwin_one(runner, proto, size, cross, cfg,
                                         outdir)
                except (RuntimeError, OSError,
                        subprocess.SubprocessError) as e:
                    log('%s: FAILED: %s' % (tag, e))
                    rec = {'protocol': proto, 'size': size, 'cross': cross,
                           'tag': tag, 'failed': str(e)}
                yield rec


def rttwin_start_tcp(runner, cfg, outdir, tag, phase, seconds, common):
    """Start the cross traffic of an rttwin run (h3 -> the TCP server on
    h0, RTTWIN_TCP_BYTES one-way messages, closed loop) and let it run
    RTTWIN_TCP_LEAD seconds; its start_clients handle."""
    log('%s: TCP h%d -> h0, %d B messages, %ds ahead' % (
        tag, RTTWIN_TCP_HOST, RTTWIN_TCP_BYTES, RTTWIN_TCP_LEAD))
    # Runs until stopped (its own end is only a bound).
    tcp = start_clients(runner, 'tcp', phase, [(
        RTTWIN_TCP_HOST, [runner.addr(0)],
        ['--workload', str(RTTWIN_TCP_BYTES), '--one-way',
         '--seconds', str(seconds + RTTWIN_TCP_LEAD + 120),
         '--seed', str(RTTWIN_TCP_HOST)] + common,
        '%s-tcp-h%d.rtt' % (tag, RTTWIN_TCP_HOST))], outdir, cfg,
        measured=False)
    time.sleep(RTTWIN_TCP_LEAD)
    return tcp


def rttwin_save(rec, outdir, tag, peers, before, after):
    """Keep what an rttwin run saw: h0's /proc/net/homa_peers (PEERS) and
    the switch's queues (BEFORE and AFTER: (time, tc -s text)) in files
    starting with TAG; p0's drops and bytes sent in REC."""
    (t_sw0, sw0), (t_sw1, sw1) = before, after
    if peers is not None:
        rec['peers_file'] = '%s-peers-h0.txt' % tag
        with open(os.path.join(outdir, rec['peers_file']), 'w') as f:
            f.write(peers)
    for name, text in (('before', sw0), ('after', sw1)):
        if text is not None:
            with open(os.path.join(outdir, '%s-qdisc-%s.txt'
                                   % (tag, name)), 'w') as f:
                f.write(text)
    if sw0 is not None and sw1 is not None:
        rec['switch_drops'] = {'p0': drops_between(sw0, sw1, 'p0')}
        a, b = qdisc_sent(sw0, 'p0'), qdisc_sent(sw1, 'p0')
        if a is not None and b is not None and b >= a:
            rec['p0_sent_bytes'] = b - a
            rec['p0_seconds'] = t_sw1 - t_sw0


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
    sends RTTWIN_TCP_BYTES messages (one-way, closed loop) to a TCP server
    on h0 over the same downlink: it starts RTTWIN_TCP_LEAD seconds before
    the Homa clients and is stopped after they end, and what h0's TCP
    sockets received in between (ss) is its share. The run lasts SECONDS
    (default cfg.seconds); its files start with TAG (default rttwin_tag)."""
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
            rec['tcp_bytes'] = RTTWIN_TCP_BYTES
            tcp = rttwin_start_tcp(runner, cfg, outdir, tag, phase,
                                   seconds, common)
        log('%s: h0 fetches %d B responses from h1, h2 (%d outstanding '
            'each) for %ds' % (tag, size, cfg.client_max, seconds))
        jobs = rttwin_jobs(runner, tag, size, seconds, common)
        tcp_ports = [CP_NODE_TCP_PORT + k for k in range(cfg.server_ports)]
        m0 = runner.homa_metrics()
        t_sw0, sw0 = time.time(), runner.switch_qdisc()
        rx0 = runner.tcp_bytes_received(0, tcp_ports) if cross else None
        t_rx0 = time.time()
        stat0 = runner.cpu_stat()
        rec['loaded'] = run_clients(runner, proto, phase, jobs, outdir, cfg,
                                    seconds + 120)
        stat1 = runner.cpu_stat()
        rx1 = runner.tcp_bytes_received(0, tcp_ports) if cross else None
        t_rx1 = time.time()
        sw1, t_sw1 = runner.switch_qdisc(), time.time()
        m1 = runner.homa_metrics()
        peers = runner.homa_peers(0)
        if rx0 is not None and rx1 is not None and rx1 >= rx0:
            rec['tcp_rx_bytes'] = rx1 - rx0
            rec['tcp_rx_seconds'] = t_rx1 - t_rx0
        rec['homa_metrics'] = {str(i): metrics_delta(m0.get(i, {}), m)
                               for i, m in m1.items()}
        rec['cpu_busy'] = [cpu_busy(a, b) for a, b in zip(stat0, stat1)]
        rttwin_save(rec, outdir, tag, peers, (t_sw0, sw0), (t_sw1, sw1))
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
           'tcp_rpcs': None, 'tcp_errors': None, 'tcp_mbps': None,
           'tcp_mbps_from': None,
           'switch_drops_to_h0': (rec.get('switch_drops') or {}).get('p0'),
           'p0_mbps': None, 'p0_share': None,
           'resends_sent': None, 'rpc_timeouts': None,
           'window': None, 'rtt_min_us': None, 'rtt_samples': None,
           'homa_sysctls': rec.get('homa_sysctls'),
           'cpu_busy': [b for b in rec.get('cpu_busy', []) if b is not None],
           'clients': sums}
    rttwin_row_tcp(row, rec)
    if rec.get('p0_seconds'):
        row['p0_mbps'] = rec['p0_sent_bytes'] * 8 / 1e6 / rec['p0_seconds']
        row['p0_share'] = row['p0_mbps'] / mbps if mbps else None
    hm = rec.get('homa_metrics')
    if hm is not None:
        for k in ('resends_sent', 'rpc_timeouts'):
            row[k] = sum(m.get(k, 0) for m in hm.values())
        others = [m for h, m in hm.items() if h != '0']
        row['metrics'] = {
            'h0': hm.get('0', {}),
            'others': {k: sum(m.get(k, 0) for m in others)
                       for k in sorted({k for m in others for k in m})}}
    if peers is not None:
        rttwin_row_window(row, rec, peers)
    return row


def rttwin_row_tcp(row, rec):
    """The TCP cross traffic's figures of an rttwin run in ROW: what h0's
    TCP sockets received while the Homa clients ran or, without that
    count, the TCP client's own messages over its whole run."""
    tsums = [r['summary'] for r in rec.get('tcp', []) if r['summary']]
    if tsums:
        ttot = sum_summaries(tsums)
        row['tcp_rpcs'], row['tcp_errors'] = ttot['rpcs'], ttot['errors']
        row['tcp_mbps'] = ttot['rpcs'] * rec.get(
            'tcp_bytes', RTTWIN_TCP_BYTES) * 8 / 1e6 / max(
                ttot['seconds'], 1e-9)
        row['tcp_mbps_from'] = 'client'
        row['tcp_clients'] = tsums
    if rec.get('tcp_rx_seconds'):
        row['tcp_mbps'] = rec['tcp_rx_bytes'] * 8 / 1e6 / rec[
            'tcp_rx_seconds']
        row['tcp_mbps_from'] = 'h0'


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
               cfg['client_max'], RTTWIN_REQUEST_BYTES, RTTWIN_TCP_HOST,
               RTTWIN_TCP_BYTES, cfg['client_max'],
               '%g Mbit/s' % cfg['mbps'] if cfg['mbps'] else 'unshaped',
               cfg['seconds']),
           TABLE.line('size', 'cross', 'config', 'msgs', 'err', 'Mbit/s',
                      'link', 'P50 ms', 'P99 ms', 'TCP', 'p0', 'sw drop',
                      'resends', 'timeout', 'window', 'rttmin', 'CPU')]
    settings = {}
    for r in rows:
        if 'failed' in r:
            out.append('%s failed: %s' % (TABLE.line(
                fmt_size(r['size']), 'tcp' if r['cross'] else 'off',
                r['config']), r['failed']))
            continue
        out.append(rttwin_line(r))
        if r.get('homa_sysctls') is not None:
            settings.setdefault(r['config'], r['homa_sysctls'])
    out.append(RTTWIN_LEGEND)
    for name, kv in settings.items():
        out.append('%s: net.homa %s' % (name, ' '.join(kv) or
                                        '(the hosts\' settings)'))
    return out


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
