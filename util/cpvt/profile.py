# SPDX-License-Identifier: GPL-2.0+
"""What the driver watches during each measured phase (every phase but an
unloaded baseline): the counters of every host (Homa's, TCP's, the NIC's)
before and after, as packets, GRANTs and skbs per MB of goodput
(<tag>-counters.json); with --profile also `perf record -a -g` of the
whole VM (<tag>-perf.data), its top entries (<tag>-perf-report.txt) and
its folded stacks (<tag>.folded), from which the analysis draws
<tag>-flame.svg. TAG is "<protocol>-<phase>"."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

from . import flame
from .common import log
from .parse import metrics_delta, parse_homa_metrics
from .runner import NetnsRunner

# Phases not measured: the unloaded baselines.
BASELINE_PHASES = ('baseline', 'unloaded')
PERF = 'perf'
# One perf record at a time (phases may nest: a background flow).
_active = []


def tag_of(proto, phase):
    return re.sub(r'[^A-Za-z0-9_.-]+', '_', '%s-%s' % (proto, phase))


def parse_snmp(text):
    """{"Proto.Name": value} of a /proc/net/snmp text (pairs of lines:
    "Tcp: names..." then "Tcp: values...")."""
    out, names = {}, {}
    for line in (text or '').splitlines():
        head, _, rest = line.partition(':')
        f = rest.split()
        if head in names:
            for k, v in zip(names.pop(head), f):
                if re.match(r'^-?\d+$', v):
                    out['%s.%s' % (head, k)] = int(v)
        elif f and not re.match(r'^-?\d+$', f[0]):
            names[head] = f
    return out


def parse_netdev(text):
    """{device: (rx_packets, tx_packets, tx_bytes)} of a /proc/net/dev
    text."""
    out = {}
    for line in (text or '').splitlines():
        name, sep, rest = line.partition(':')
        f = rest.split()
        if sep and len(f) >= 10 and f[1].isdigit():
            out[name.strip()] = (int(f[1]), int(f[9]), int(f[8]))
    return out


_SEP = '=== cpvt ==='
COUNTERS_CMD = ('cat /proc/net/homa_metrics 2>/dev/null; echo "%s"; '
                'cat /proc/net/snmp; echo "%s"; cat /proc/net/dev'
                % (_SEP, _SEP))


def counters(runner):
    """{host: {name: value}} of every host: Homa's metrics ("homa.X"),
    /proc/net/snmp ("Tcp.X", ...) and eth0's packets ("dev.rx_packets",
    "dev.tx_packets": skbs, a GSO packet counts once) and bytes sent
    ("dev.tx_bytes": with the MAC and IP headers of every skb, as the
    bed's token buckets count them)."""
    out = {}
    for i in range(runner.n()):
        try:
            rc, text = runner.run(i, ['sh', '-c', COUNTERS_CMD])
        except (OSError, subprocess.SubprocessError):
            continue
        parts = (text.split(_SEP) + ['', '', ''])[:3]
        c = {'homa.' + k: v for k, v in
             parse_homa_metrics(parts[0]).items()}
        c.update(parse_snmp(parts[1]))
        dev = parse_netdev(parts[2]).get('eth0')
        if dev:
            c['dev.rx_packets'], c['dev.tx_packets'], \
                c['dev.tx_bytes'] = dev
        out[i] = c
    return out


# The figures per MB of goodput: name -> (description, counters summed
# over all hosts).
PER_MB = (
    ('homa_pkts_tx', 'Homa packets sent (all types)',
     ('homa.pkts_tx_data', 'homa.pkts_tx_grant', 'homa.pkts_tx_resend',
      'homa.pkts_tx_rpc_unknown', 'homa.pkts_tx_busy',
      'homa.pkts_tx_need_ack', 'homa.pkts_tx_ack', 'homa.pkts_tx_cutoffs')),
    ('homa_pkts_rx', 'Homa packets received (all types)',
     ('homa.pkts_rx_data', 'homa.pkts_rx_grant', 'homa.pkts_rx_resend',
      'homa.pkts_rx_rpc_unknown', 'homa.pkts_rx_busy',
      'homa.pkts_rx_cutoffs', 'homa.pkts_rx_need_ack', 'homa.pkts_rx_ack')),
    ('homa_data_tx', 'Homa DATA skbs sent', ('homa.pkts_tx_data',)),
    ('homa_data_rx', 'Homa DATA skbs received', ('homa.pkts_rx_data',)),
    ('homa_grants_tx', 'Homa GRANTs sent', ('homa.pkts_tx_grant',)),
    ('homa_gso_segmented', 'Homa skbs segmented in software',
     ('homa.gso_segmented',)),
    ('tcp_segs_out', 'TCP segments sent (OutSegs)', ('Tcp.OutSegs',)),
    ('tcp_segs_in', 'TCP segments received (InSegs)', ('Tcp.InSegs',)),
    ('tcp_retrans', 'TCP segments retransmitted', ('Tcp.RetransSegs',)),
    ('dev_skbs_tx', 'skbs sent by the hosts\' eth0', ('dev.tx_packets',)),
    ('dev_skbs_rx', 'skbs received by the hosts\' eth0',
     ('dev.rx_packets',)),
)


def goodput_bytes(results):
    """Payload bytes the clients of RESULTS (wait_clients) moved."""
    total = 0.0
    for r in results:
        s = r.get('summary') or {}
        if 'bytes_out' in s:
            total += s['bytes_out'] + s.get('bytes_in', 0)
        else:
            total += (s.get('gbps_out', 0) + s.get('gbps_in', 0)) * \
                s.get('seconds', 0) * 1e9 / 8
    return total


def per_mb(before, after, nbytes):
    """{figure: per MB of goodput} (PER_MB) between two counters()
    snapshots, and the summed deltas {counter: change}."""
    sums = {}
    for i, c1 in after.items():
        for k, v in metrics_delta(before.get(i, {}), c1).items():
            sums[k] = sums.get(k, 0) + v
    mb = nbytes / 1e6
    figs = {}
    for name, _, keys in PER_MB:
        if any(k in sums for k in keys) and mb > 0:
            figs[name] = sum(sums.get(k, 0) for k in keys) / mb
    return figs, sums


def uplinks(before, after, seconds, mbps):
    """{'seconds', 'mbps', 'busy': [(host, fraction)]}: the share of each
    host's uplink (MBPS) its eth0's bytes sent between two counters()
    snapshots SECONDS apart filled; None without a rate or a time."""
    if not mbps or seconds <= 0:
        return None
    busy = []
    for i in sorted(after):
        b0 = before.get(i, {}).get('dev.tx_bytes')
        b1 = after[i].get('dev.tx_bytes')
        if b0 is not None and b1 is not None:
            busy.append((i, (b1 - b0) * 8 / (seconds * mbps * 1e6)))
    if not busy:
        return None
    return {'seconds': seconds, 'mbps': mbps, 'busy': busy}


def uplink_line(up):
    """The line of uplinks()'s figures, or '' without them."""
    if not up:
        return ''
    return ('uplinks busy (eth0 bytes sent, headers included, over the '
            "phase's %.1f s at %g Mbit/s): %s" % (
                up['seconds'], up['mbps'], ', '.join(
                    'h%d %.1f%%' % (i, 100 * f) for i, f in up['busy'])))


def per_mb_line(tag, figs, nbytes):
    """One line of the figures of a phase."""
    short = [('homa_pkts_tx', 'homa pkts tx'), ('homa_pkts_rx', 'rx'),
             ('homa_data_tx', 'DATA skbs tx'), ('homa_grants_tx', 'GRANTs'),
             ('homa_gso_segmented', 'sw-segmented'),
             ('tcp_segs_out', 'tcp segs out'), ('tcp_segs_in', 'in'),
             ('dev_skbs_tx', 'eth0 skbs tx'), ('dev_skbs_rx', 'rx')]
    homa = tag.startswith('homa')
    parts = ['%s %.1f' % (label, figs[k]) for k, label in short
             if k in figs and (k.startswith('dev') or
                               k.startswith('homa') == homa)]
    return 'per MB (%s, %.1f MB goodput): %s' % (tag, nbytes / 1e6,
                                                 ', '.join(parts))


class Watch:
    """The watch of one measured phase: counters before, and the profile
    under way (with --profile, in the VM)."""

    def __init__(self, runner, cfg, outdir, proto, phase):
        self.runner, self.cfg, self.outdir = runner, cfg, outdir
        self.tag = tag_of(proto, phase)
        self.before = counters(runner)
        self.t0 = time.monotonic()
        self.perf = None
        if getattr(cfg, 'profile', False) and not _active and \
                isinstance(runner, NetnsRunner):
            self.perf = start_perf(outdir, self.tag, cfg.profile_freq)
            if self.perf is not None:
                _active.append(self)
        self.rpcs = None
        every = getattr(cfg, 'rpcs_every', 0)
        if every and proto.startswith('homa'):
            self.rpcs = RpcsDump(runner, outdir, self.tag, every)

    def finish(self, results):
        """After the phase: the counters' figures (logged and written)
        and the profile's reports."""
        if self.rpcs is not None:
            self.rpcs.stop()
        if self.perf is not None:
            stop_perf(self.perf)
            _active.remove(self)
            perf_reports(self.outdir, self.tag)
        nbytes = goodput_bytes(results)
        after = counters(self.runner)
        up = uplinks(self.before, after, time.monotonic() - self.t0,
                     getattr(self.cfg, 'mbps', None))
        figs, sums = per_mb(self.before, after, nbytes)
        with open(os.path.join(self.outdir, self.tag + '-counters.json'),
                  'w') as f:
            json.dump({'tag': self.tag, 'goodput_bytes': nbytes,
                       'per_mb': figs, 'deltas': sums, 'uplinks': up}, f,
                      indent=1, sort_keys=True)
        log('  ' + per_mb_line(self.tag, figs, nbytes))
        if up:
            log('    ' + uplink_line(up))


# A host's RPCs, and its pacer thread's state and kernel stack (the
# thread is homa_pacer/<the namespace's inode number>).
RPCS_CMD = ('cat /proc/net/homa_rpcs; '
            'n=$(readlink /proc/self/ns/net | tr -dc 0-9); '
            'for f in $(awk -v c="(homa_pacer/$n)" \'$2 == c '
            '{ print FILENAME }\' /proc/[0-9]*/stat 2>/dev/null); do '
            'echo "pacer thread (state utime stime): '
            '$(cut -d" " -f3,14,15 "$f")"; '
            'cat "${f%/stat}/stack" 2>/dev/null; done')


class RpcsDump:
    """Every EVERY seconds until stop(), each host's /proc/net/homa_rpcs
    (one line per live RPC) appended to OUTDIR/TAG-rpcs-h<i>.txt after a
    line "=== t=<seconds since the start>"."""

    def __init__(self, runner, outdir, tag, every):
        self.runner, self.every = runner, every
        self.paths = [os.path.join(outdir, '%s-rpcs-h%d.txt' % (tag, i))
                      for i in range(runner.n())]
        self.done = threading.Event()
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.done.wait(self.every):
            t = time.monotonic() - self.t0
            for i, path in enumerate(self.paths):
                try:
                    _, text = self.runner.run(i, ['sh', '-c', RPCS_CMD],
                                              timeout=30)
                except (OSError, subprocess.SubprocessError):
                    continue
                with open(path, 'a') as f:
                    f.write('=== t=%.1f\n%s' % (t, text))

    def stop(self):
        self.done.set()
        self.thread.join()


def begin(runner, cfg, outdir, proto, phase):
    """The Watch of a phase, or None for a baseline."""
    if phase in BASELINE_PHASES:
        return None
    return Watch(runner, cfg, outdir, proto, phase)


def perf_env():
    """Kernel addresses visible to perf (the VM is ours alone)."""
    for k, v in (('kernel.kptr_restrict', '0'),
                 ('kernel.perf_event_paranoid', '-1')):
        subprocess.run(['sysctl', '-qw', '%s=%s' % (k, v)], check=False)


# perf's workload: says it runs (perf starts it once its events are set
# up), then waits until a line comes through the fifo.
WORKLOAD = 'touch "$1"; read -r _ < "$2"'


def start_perf(outdir, tag, freq, ready_timeout=300):
    """`perf record -a -g` into OUTDIR/TAG-perf.data, in the background,
    once it samples. In the VM perf record takes seconds to set up (with
    no workload it samples only from then on), and stopped by SIGINT or
    SIGTERM it kept a handful of samples; so it runs a workload that tells
    when it starts and ends when told (stop_perf)."""
    perf_env()
    data = os.path.join(outdir, tag + '-perf.data')
    tmp = tempfile.mkdtemp(prefix='cpvt-perf.')
    ready, fifo = os.path.join(tmp, 'ready'), os.path.join(tmp, 'stop')
    os.mkfifo(fifo)
    logf = open(os.path.join(outdir, tag + '-perf.log'), 'w')
    t0 = time.time()
    try:
        p = subprocess.Popen([PERF, 'record', '-N', '-a', '-g', '-F',
                              str(freq), '-o', data, '--', 'sh', '-c',
                              WORKLOAD, 'sh', ready, fifo],
                             stdout=logf, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
    except OSError as e:
        log('  profile: cannot run %s: %s (scripts/setup.sh installs '
            'linux-perf)' % (PERF, e))
        logf.close()
        return None
    while not os.path.exists(ready) and p.poll() is None and \
            time.time() - t0 < ready_timeout:
        time.sleep(0.1)
    log('  profile: perf record -a -g -F %s -> %s (sampling after %.1f s)'
        % (freq, data, time.time() - t0))
    return p, logf, fifo


def stop_perf(perf):
    """End perf's workload (a line through its fifo) and so perf."""
    p, logf, fifo = perf
    t0 = time.time()
    while p.poll() is None and time.time() - t0 < 30:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            # No reader yet (ENXIO): the workload is about to open it.
            time.sleep(0.1)
            continue
        os.write(fd, b'stop\n')
        os.close(fd)
        break
    try:
        p.wait(120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    logf.close()
    shutil.rmtree(os.path.dirname(fifo), ignore_errors=True)


REPORT_ARGS = ['--stdio', '--sort', 'sym', '-g', 'none',
               '--percent-limit', '0.5']


def perf_reports(outdir, tag, top=40):
    """TAG-perf-report.txt (the top entries with and without children)
    and TAG.folded (the stacks for the flame graph) of TAG-perf.data; in
    the VM, where /proc/kallsyms is the profiled kernel's."""
    data = os.path.join(outdir, tag + '-perf.data')
    if not os.path.exists(data):
        return
    out = []
    for mode in ('--children', '--no-children'):
        r = subprocess.run([PERF, 'report', '-i', data, mode] + REPORT_ARGS,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        lines = [x for x in r.stdout.splitlines()
                 if x.strip() and not x.startswith('#')]
        out += ['== perf report %s (top %d, %s) ==' % (mode, top, tag)] + \
            lines[:top] + ['']
    with open(os.path.join(outdir, tag + '-perf-report.txt'), 'w') as f:
        f.write('\n'.join(out))
    with open('/proc/kallsyms') as k:
        mods = flame.module_symbols(k.read())
    p = subprocess.Popen([PERF, 'script', '-i', data], text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    counts = flame.fold(p.stdout, mods)
    p.wait()
    with open(os.path.join(outdir, tag + '.folded'), 'w') as f:
        f.write(flame.folded_text(counts))
    log('  profile: %d samples; %s-perf-report.txt, %s.folded' % (
        sum(counts.values()), tag, tag))
