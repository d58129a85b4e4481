# SPDX-License-Identifier: GPL-2.0+
"""TCP beside Homa into one host (h0): what the rttwin and share modes
share. Backlogged TCP flows from another host into a TCP server on h0,
started a few seconds ahead of the Homa clients; the readings taken just
before and just after the Homa clients run (Homa metrics, the switch's
queues, what h0's TCP sockets received, /proc/stat) and what they come
to; a run that fails becoming a record that says why."""

import os
import subprocess
import threading
import time

from .common import CP_NODE_TCP_PORT, PROTOCOLS, log
from .experiment import save_qdisc_texts, start_clients
from .parse import (band_drops_between, cpu_busy, drops_between,
                    metrics_delta, qdisc_sent)
from .stats import sum_summaries

# The TCP flows' host, their message size (one-way, closed loop) and how
# many seconds they start before the Homa clients.
TCP_HOST = 3
TCP_BYTES = 500000
TCP_LEAD = 3


def check_options(cfg, error, roles):
    """The options a mode with TCP beside Homa into h0 needs: a link
    rate, 4 hosts (ROLES says what they do), Homa variants only in
    --protocols (TCP runs beside each); ERROR(message) exits."""
    if cfg.mbps <= 0:
        error('%s mode needs a link rate (--mbps > 0)' % cfg.mode)
    if cfg.hosts < 4:
        error('%s mode needs 4 hosts (%s)' % (cfg.mode, roles))
    if any(PROTOCOLS[p][0] != 'homa' for p in cfg.protocols):
        error('%s mode: --protocols takes Homa variants only (TCP is the '
              'cross traffic)' % cfg.mode)


def runs_table(rows, key, line, legend):
    """The lines of a table of runs under its heading: per row LINE(row)
    or, for a failed run, KEY(row) (its first cells) and the reason; then
    LEGEND and each configuration's net.homa settings."""
    out, settings = [], {}
    for r in rows:
        if 'failed' in r:
            out.append('%s failed: %s' % (key(r), r['failed']))
            continue
        out.append(line(r))
        if r.get('homa_sysctls') is not None:
            settings.setdefault(r['config'], r['homa_sysctls'])
    out.append(legend)
    for name, kv in settings.items():
        out.append('%s: net.homa %s' % (name, ' '.join(kv) or
                                        '(the hosts\' settings)'))
    return out


def guarded(tag, run, failed):
    """RUN() or, when it fails as a run can (the servers do not start, a
    command fails), FAILED (a dict) with the reason under 'failed'."""
    try:
        return run()
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        log('%s: FAILED: %s' % (tag, e))
        return dict(failed, failed=str(e))


def start_tcp(runner, cfg, outdir, tag, phase, seconds, extra,
              lead=None):
    """Start the TCP traffic of a run (host TCP_HOST -> the TCP server on
    h0, TCP_BYTES one-way messages, closed loop, cp_node options EXTRA,
    e.g. --ports N for N connections) and let it run LEAD (default
    TCP_LEAD) seconds; its start_clients handle. It runs until stopped
    (its own end, SECONDS and more, is only a bound)."""
    lead = TCP_LEAD if lead is None else lead
    log('%s: TCP h%d -> h0, %d B messages, %ds ahead' % (
        tag, TCP_HOST, TCP_BYTES, lead))
    tcp = start_clients(runner, 'tcp', phase, [(
        TCP_HOST, [runner.addr(0)],
        ['--workload', str(TCP_BYTES), '--one-way',
         '--seconds', str(seconds + lead + 120),
         '--seed', str(TCP_HOST)] + extra,
        '%s-tcp-h%d.rtt' % (tag, TCP_HOST))], outdir, cfg,
        measured=False)
    time.sleep(lead)
    return tcp


def tcp_ports(cfg):
    """The local ports of h0's TCP server sockets."""
    return [CP_NODE_TCP_PORT + k for k in range(cfg.server_ports)]


def readings_before(runner, cfg, tcp):
    """What is read just before the Homa clients start (in this order:
    Homa metrics, the switch's queues, h0's TCP bytes received if TCP
    runs, /proc/stat), each with its time."""
    r = {'metrics': runner.homa_metrics()}
    r['t_sw'], r['sw'] = time.time(), runner.switch_qdisc()
    r['rx'] = runner.tcp_bytes_received(0, tcp_ports(cfg)) if tcp else None
    r['t_rx'] = time.time()
    r['stat'] = runner.cpu_stat()
    return r


def readings_after(runner, cfg, tcp):
    """The same readings just after the Homa clients end, in the reverse
    order."""
    r = {'stat': runner.cpu_stat()}
    r['rx'] = runner.tcp_bytes_received(0, tcp_ports(cfg)) if tcp else None
    r['t_rx'] = time.time()
    r['sw'], r['t_sw'] = runner.switch_qdisc(), time.time()
    r['metrics'] = runner.homa_metrics()
    return r


def save_peers(runner, rec, outdir, tag):
    """Keep h0's /proc/net/homa_peers (its RTT estimates and scheduled
    windows, per sender) after a run in OUTDIR as TAG-peers-h0.txt, named
    in REC['peers_file']; nothing when it cannot be read."""
    peers = runner.homa_peers(0)
    if peers is None:
        return
    rec['peers_file'] = '%s-peers-h0.txt' % tag
    with open(os.path.join(outdir, rec['peers_file']), 'w') as f:
        f.write(peers)


def save_tcp_info(runner, rec, outdir, tag, hosts):
    """Keep `ss -tin` of each host in HOSTS (the TCP flows' windows as a
    run ends) in OUTDIR as TAG-ss-hN.txt, named in REC['ss_files']."""
    for i in hosts:
        text = runner.tcp_info(i)
        if text is None:
            continue
        name = '%s-ss-h%d.txt' % (tag, i)
        rec.setdefault('ss_files', []).append(name)
        with open(os.path.join(outdir, name), 'w') as f:
            f.write(text)


def tcp_info_sampler(runner, hosts, every):
    """A Sampler of `ss -tin` of each host in HOSTS (one text per
    reading, the hosts' in turn under a line naming each), every EVERY
    seconds: the TCP flows' windows while a run lasts."""
    def read():
        texts = [(i, runner.tcp_info(i)) for i in hosts]
        if all(t is None for _, t in texts):
            return None
        return ''.join('--- h%d\n%s' % (i, t) for i, t in texts
                       if t is not None)
    return Sampler(read, every)


def save_tcp_samples(rec, outdir, tag, samples):
    """Keep the readings of a tcp_info_sampler() in OUTDIR as
    TAG-ss-during.txt (each under a line "=== T s", T the seconds since
    the sampler started), named in REC['ss_files']; nothing without
    readings."""
    if not samples:
        return
    name = '%s-ss-during.txt' % tag
    rec.setdefault('ss_files', []).append(name)
    with open(os.path.join(outdir, name), 'w') as f:
        for t, text in samples:
            f.write('=== %.1f s\n%s' % (t, text))


def record_readings(rec, outdir, tag, before, after):
    """What the readings of a run come to, in REC: h0's TCP bytes received
    and over how long, the Homa metric deltas per host, the CPUs' busy
    shares, the switch's drops toward h0 (all bands, and per band) and its
    bytes sent toward h0 and over how long; the switch's queues are kept
    in files TAG-qdisc-before.txt and -after.txt."""
    rx0, rx1 = before['rx'], after['rx']
    if rx0 is not None and rx1 is not None and rx1 >= rx0:
        rec['tcp_rx_bytes'] = rx1 - rx0
        rec['tcp_rx_seconds'] = after['t_rx'] - before['t_rx']
    m0 = before['metrics']
    rec['homa_metrics'] = {str(i): metrics_delta(m0.get(i, {}), m)
                           for i, m in after['metrics'].items()}
    rec['cpu_busy'] = [cpu_busy(a, b) for a, b in zip(before['stat'],
                                                      after['stat'])]
    sw0, sw1 = before['sw'], after['sw']
    save_qdisc_texts(outdir, tag, sw0, sw1)
    if sw0 is not None and sw1 is not None:
        rec['switch_drops'] = {'p0': drops_between(sw0, sw1, 'p0')}
        rec['switch_band_drops'] = {
            str(b): d for b, d in band_drops_between(sw0, sw1, 'p0').items()}
        a, b = qdisc_sent(sw0, 'p0'), qdisc_sent(sw1, 'p0')
        if a is not None and b is not None and b >= a:
            rec['p0_sent_bytes'] = b - a
            rec['p0_seconds'] = after['t_sw'] - before['t_sw']


def tcp_figures(rec, default_bytes=TCP_BYTES):
    """The TCP traffic's figures of a run: what h0's TCP sockets received
    while the Homa clients ran or, without that count, the TCP client's
    own messages over its whole run: {tcp_rpcs, tcp_errors, tcp_mbps,
    tcp_mbps_from ('h0', 'client' or None), tcp_clients}."""
    out = {'tcp_rpcs': None, 'tcp_errors': None, 'tcp_mbps': None,
           'tcp_mbps_from': None}
    tsums = [r['summary'] for r in rec.get('tcp', []) if r['summary']]
    if tsums:
        ttot = sum_summaries(tsums)
        out['tcp_rpcs'], out['tcp_errors'] = ttot['rpcs'], ttot['errors']
        out['tcp_mbps'] = ttot['rpcs'] * rec.get(
            'tcp_bytes', default_bytes) * 8 / 1e6 / max(
                ttot['seconds'], 1e-9)
        out['tcp_mbps_from'] = 'client'
        out['tcp_clients'] = tsums
    if rec.get('tcp_rx_seconds'):
        out['tcp_mbps'] = rec['tcp_rx_bytes'] * 8 / 1e6 / rec[
            'tcp_rx_seconds']
        out['tcp_mbps_from'] = 'h0'
    return out


def p0_figures(rec, mbps):
    """(Mbit/s the switch sent toward h0 over the run, as a share of the
    link rate MBPS), or Nones without the switch's readings."""
    if not rec.get('p0_seconds'):
        return None, None
    m = rec['p0_sent_bytes'] * 8 / 1e6 / rec['p0_seconds']
    return m, (m / mbps if mbps else None)


def metrics_summed(hm, keys):
    """KEYS of the per-host metric deltas HM summed over the hosts."""
    return {k: sum(m.get(k, 0) for m in hm.values()) for k in keys}


class Sampler:
    """Reads FN() every EVERY seconds in a thread, from start() to
    stop(): [(seconds since start, FN's value)], the readings that were
    not None."""

    def __init__(self, fn, every=1.0):
        self.fn, self.every = fn, every
        self.samples = []
        self.t0 = None
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while True:
            v = self.fn()
            if v is not None:
                self.samples.append((self.elapsed(), v))
            if self._stop.wait(self.every):
                return

    def elapsed(self):
        """Seconds since start(), on the samples' clock."""
        return round(time.time() - self.t0, 3)

    def start(self):
        self.t0 = time.time()
        self._t.start()
        return self

    def stop(self):
        self._stop.set()
        self._t.join(30)
        return self.samples
