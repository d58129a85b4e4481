# SPDX-License-Identifier: GPL-2.0+
"""The incast mode: one client on h0 keeps many RPCs outstanding to servers
on every other host, small requests and large responses, so that the
responses converge on h0's downlink: Homa with incast control on and off
(homa, homa-noincast), TCP for reference."""

import os

from ..common import PROTOCOLS, log
from ..experiment import (loaded_rtts, per_protocol, run_clients,
                          save_qdisc_texts, snapshot, start_servers,
                          stop_servers)
from ..parse import (band_drops_between, cpu_busy, drops_between,
                     metrics_delta)
from ..stats import percentile, sum_summaries
from ..table import Table, cell
from ..testbed import homa_sysctls

NAME = 'incast'
# The warm-up: RPCs that end in the first seconds are not counted. A
# closed loop of 64 outstanding 100 KB responses holds about 6 MB under
# way (3 s of a 16 Mbit/s link); counted from a cold start, the bytes of
# the responses still under way when the count ends are lost to it (they
# are not, once the count starts with as many under way as it ends with).
DEFAULTS = {'seconds': 20, 'hosts': 8, 'client_max': 64, 'warmup': 5,
            'protocols': 'homa,homa-noincast,tcp'}
TABLE = Table(-14, 6, 6, 8, 5, 8, 8, 7, 7, 7, 7, 7, 7, 7, 7)


def finish(cfg, error):
    if cfg.hosts < 2:
        error('incast mode needs a client and at least one server')
    # Shorter Homa requests carry no cp_node header: they are echoed.
    if cfg.request_bytes < 8:
        error('incast mode: --request-bytes must be at least 8')


def results_tag(cfg):
    return cfg.mode


def records(runner, cfg, outdir):
    return per_protocol(runner, cfg, outdir, run_incast)


# Homa metrics shown by the incast table (all are kept in summary.json).
INCAST_METRICS = ('incast_marked', 'incast_responses', 'resends_sent',
                  'data_resent', 'rpc_timeouts')


def run_incast(runner, proto, cfg, outdir):
    """One client on h0 keeping cfg.client_max RPCs outstanding, spread at
    random over servers on every other host: small requests, large
    responses, all converging on h0's downlink."""
    n = runner.n()
    rec = {'protocol': proto, 'servers': list(range(1, n))}
    runner.prepare(proto, cfg)
    if PROTOCOLS[proto][0] == 'homa':
        rec['homa_sysctls'] = homa_sysctls(
            cfg, proto, getattr(runner, 'homa_defaults', None))
    servers = start_servers(runner, proto, range(1, n), cfg, outdir)
    try:
        log('%s: incast, h0 -> h1..h%d, %d outstanding, %d B requests, '
            '%d B responses, for %ds after a %ds warm-up' % (
                proto, n - 1, cfg.client_max, cfg.request_bytes,
                cfg.response_bytes, cfg.seconds, cfg.warmup))
        homa = PROTOCOLS[proto][0] == 'homa'
        m0 = runner.homa_metrics() if homa else {}
        sw0 = runner.switch_qdisc()
        up0 = [runner.uplink_qdisc(i) for i in range(n)]
        stat0 = runner.cpu_stat()
        rec['loaded'] = run_clients(
            runner, proto, 'incast',
            [(0, [runner.addr(j) for j in range(1, n)],
              ['--workload', str(cfg.request_bytes), '--response-bytes',
               str(cfg.response_bytes), '--gbps', '0', '--seconds',
               str(cfg.seconds), '--warmup', str(cfg.warmup),
               '--ports', str(cfg.client_ports),
               '--client-max', str(cfg.client_max), '--seed', '1'],
              '%s-incast.rtt' % proto)],
            outdir, cfg, cfg.seconds + cfg.warmup + 120)
        stat1 = runner.cpu_stat()
        sw1 = runner.switch_qdisc()
        up1 = [runner.uplink_qdisc(i) for i in range(n)]
        if homa:
            m1 = runner.homa_metrics()
            rec['homa_metrics'] = {str(i): metrics_delta(m0.get(i, {}), m)
                                   for i, m in m1.items()}
        rec['cpu_busy'] = [cpu_busy(a, b) for a, b in zip(stat0, stat1)]
        save_qdisc_texts(outdir, proto + '-incast', sw0, sw1)
        if sw0 is not None and sw1 is not None:
            rec['switch_drops'] = {
                'p%d' % i: drops_between(sw0, sw1, 'p%d' % i)
                for i in range(n)}
        if any(t is not None for t in up0 + up1):
            rec['uplink_drops'] = {
                'h%d' % i: drops_between(a, b, 'eth0')
                for i, (a, b) in enumerate(zip(up0, up1))}
        snapshot(runner, proto + '-incast', outdir)
    finally:
        stop_servers(servers)
    return rec


def incast_row(rec, cfg, rtts, bands=None):
    """One configuration of an incast run: its figures from the client's
    summary, its sorted RTTs (ns), the switch and uplink drops, the drops
    per band toward h0 (BANDS, {band: drops}) and the Homa metric deltas
    (client = host 0, servers = the others)."""
    sums = [r['summary'] for r in rec.get('loaded', []) if r['summary']]
    tot = sum_summaries(sums)
    # Every counted RPC brought exactly response_bytes (a wrong length is
    # an error); exact, unlike the summary's rounded gbps_in.
    goodput = tot['rpcs'] * cfg['response_bytes'] * 8 / 1e6 / max(
        tot['seconds'], 1e-9)
    row = {'config': rec['protocol'], 'rpcs': tot['rpcs'],
           'errors': tot['errors'], 'seconds': tot['seconds'],
           'goodput_mbps': goodput,
           'link_share': goodput / cfg['mbps'] if cfg.get('mbps') else None,
           'request_mbps': tot['gbps_out'] * 1000.0,
           'p50_ms': percentile(rtts, 50) / 1e6 if rtts else None,
           'p99_ms': percentile(rtts, 99) / 1e6 if rtts else None,
           'switch_drops_to_client': (rec.get('switch_drops') or {}).get('p0'),
           'switch_drops_by_band': bands or None,
           'band0_drops': (bands or {}).get(0),
           'server_uplink_drops': None,
           'homa_sysctls': rec.get('homa_sysctls'),
           'cpu_busy': [b for b in rec.get('cpu_busy', []) if b is not None],
           'clients': sums}
    up = rec.get('uplink_drops') or {}
    vals = [v for k, v in up.items() if k != 'h0' and v is not None]
    if vals:
        row['server_uplink_drops'] = sum(vals)
    hm = rec.get('homa_metrics')
    if hm is not None:
        client = hm.get('0', {})
        servers = [m for h, m in hm.items() if h != '0']
        row['metrics'] = {
            'client': client,
            'servers': {k: sum(m.get(k, 0) for m in servers)
                        for k in sorted({k for m in servers for k in m})}}
        allm = {k: client.get(k, 0) + row['metrics']['servers'].get(k, 0)
                for k in INCAST_METRICS}
        row['incast_marked'] = client.get('incast_marked', 0)
        row['incast_responses'] = row['metrics']['servers'].get(
            'incast_responses', 0)
        for k in ('resends_sent', 'data_resent', 'rpc_timeouts'):
            row[k] = allm[k]
    return row


# The legend printed under the incast table.
INCAST_LEGEND = (
    '(Mbit/s: goodput, response bytes received by h0, and its '
    'share of h0\'s link; sw drop: packets the switch dropped '
    'toward h0, b0 drop: of which in band 0 (IP priority 7: '
    'Homa\'s unscheduled DATA and control packets); up drop: '
    'packets dropped in the servers\' NIC '
    'queues; marked (h0) / inc rsp (servers): incast_marked / '
    'incast_responses; resends, resent, timeout: resends_sent, '
    'data_resent, rpc_timeouts over all hosts)')


def incast_line(r):
    """The table's line of one configuration."""
    return TABLE.line(
        r['config'], '%d' % r['rpcs'], '%d' % r['errors'],
        '%.2f' % r['goodput_mbps'],
        cell(None if r['link_share'] is None else 100 * r['link_share'],
             '%.0f%%'),
        cell(r['p50_ms'], '%.1f'), cell(r['p99_ms'], '%.1f'),
        cell(r['switch_drops_to_client']), cell(r['band0_drops']),
        cell(r['server_uplink_drops']), cell(r.get('incast_marked')),
        cell(r.get('incast_responses')), cell(r.get('resends_sent')),
        cell(r.get('data_resent')), cell(r.get('rpc_timeouts')))


def incast_note(r):
    """The line under the table about one configuration: its CPU busy
    share and net.homa settings, or None."""
    note = []
    if r['cpu_busy']:
        note.append('machine CPU %s busy' % ', '.join(
            '%.0f%%' % (100 * b) for b in r['cpu_busy']))
    if r.get('homa_sysctls'):
        note.append('net.homa %s' % ' '.join(r['homa_sysctls']))
    return '%s: %s' % (r['config'], '; '.join(note)) if note else None


def incast_table(rows, cfg, nhosts):
    """The printed incast table (a list of lines)."""
    out = ['Incast: h0 keeps %d RPCs outstanding to %d servers (h1..h%d), '
           '%d B requests, %d B responses, links %s, %ds%s' % (
               cfg['client_max'], nhosts - 1, nhosts - 1,
               cfg['request_bytes'], cfg['response_bytes'],
               '%g Mbit/s' % cfg['mbps'] if cfg['mbps'] else 'unshaped',
               cfg['seconds'],
               ' counted after a %ds warm-up' % cfg['warmup']
               if cfg.get('warmup') else ''),
           TABLE.line('config', 'RPCs', 'errors', 'Mbit/s', 'link',
                      'P50 ms', 'P99 ms', 'sw drop', 'b0 drop', 'up drop',
                      'marked', 'inc rsp', 'resends', 'resent', 'timeout')]
    notes = []
    for r in rows:
        if 'failed' in r:
            out.append('%s failed: %s' % (TABLE.line(r['config']),
                                          r['failed']))
            continue
        out.append(incast_line(r))
        note = incast_note(r)
        if note:
            notes.append(note)
    out.append(INCAST_LEGEND)
    return out + notes


def incast_band_drops(outdir, proto):
    """{band: drops} toward h0 (switch port p0) over PROTO's incast run,
    from the switch's queue statistics saved before and after it (runs
    that saved no -after file: the snapshot taken just after the client
    ended); {} without them."""
    texts = []
    for names in (['before'], ['after', None]):
        for name in names:
            path = os.path.join(outdir, '%s-incast-qdisc%s.txt' % (
                proto, '-' + name if name else ''))
            if os.path.exists(path):
                with open(path) as f:
                    texts.append(f.read())
                break
    if len(texts) != 2:
        return {}
    return band_drops_between(texts[0], texts[1], 'p0')


def analyze_incast(raw, outdir):
    cfg = raw['config']
    report = {'mode': 'incast', 'config': cfg, 'configs': {}}
    rows = []
    for rec in raw['protocols']:
        if 'failed' in rec:
            rows.append({'config': rec['protocol'], 'failed': rec['failed']})
            continue
        row = incast_row(rec, cfg, loaded_rtts(outdir, rec),
                         incast_band_drops(outdir, rec['protocol']))
        rows.append(row)
        report['configs'][rec['protocol']] = row
    report['table'] = incast_table(rows, cfg, len(raw['hosts']))
    return report


def analyze(raw, outdir):
    report = analyze_incast(raw, outdir)
    report['plots'] = []
    return report
