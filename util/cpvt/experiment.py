# SPDX-License-Identifier: GPL-2.0+
"""What every mode does on the hosts: cp_node servers and clients, the
condensed progress of the clients, snapshots of the VM's queues and
processes; and reading the clients' samples back."""

import os
import subprocess
import threading
import time

from . import profile
from .common import PROTOCOLS, log
from .parse import parse_status, parse_summary, read_rtts
from .runner import NetnsRunner
from .stats import median


class Progress:
    """Condenses the status lines of all clients of one phase into one line
    every few seconds."""

    def __init__(self, label, nclients, every, verbose):
        self.label, self.n, self.every = label, nclients, every
        self.verbose = verbose
        self.last = {}
        self.warnings = {}
        self.lock = threading.Lock()

    def line(self, host, text, key=None):
        """A line of the client on HOST; KEY tells clients on one host
        apart (default: the host)."""
        key = host if key is None else key
        if self.verbose:
            log('  [%s h%d] %s' % (self.label, host, text))
        st = parse_status(text)
        if st is None:
            if self.verbose or text.startswith('unloaded:'):
                return
            if text.startswith('cp_node:'):
                # Warnings: the first few of each client, then a count.
                with self.lock:
                    k = self.warnings[key] = self.warnings.get(key, 0) + 1
                if k > 3:
                    return
                if k == 3:
                    text += ' (more warnings: see the log)'
            elif text.startswith('summary:') and self.warnings.get(key):
                text += ' [%d warnings]' % self.warnings[key]
            log('  [%s h%d] %s' % (self.label, host, text))
            return
        with self.lock:
            self.last[key] = st
            t = st.get('t', 0)
            if key != min(self.last) or t % self.every or self.verbose:
                return
            vals = list(self.last.values())
        log('  [%s] t=%ds kops=%.2f gbps_out=%.4f gbps_in=%.4f '
            'p50_us=%d p99_us<=%d outstanding=%d (%d clients)' % (
                self.label, t, sum(v.get('kops', 0) for v in vals),
                sum(v.get('gbps_out', 0) for v in vals),
                sum(v.get('gbps_in', 0) for v in vals),
                median([v.get('p50_us', 0) for v in vals]),
                max(v.get('p99_us', 0) for v in vals),
                sum(v.get('outstanding', 0) for v in vals), len(vals)))


def client_args(runner, proto, servers, cfg, extra):
    return [runner.cp_node, 'client', '--protocol', PROTOCOLS[proto][0],
            '--servers', ','.join(servers),
            '--server-ports', str(cfg.server_ports)] + extra


def run_clients(runner, proto, phase, jobs, outdir, cfg, timeout):
    """Start one client per job of JOBS (start_clients), wait for all,
    fetch their outputs; their summaries and samples."""
    return wait_clients(runner, start_clients(runner, proto, phase, jobs,
                                              outdir, cfg), outdir, timeout)


class Clients(list):
    """The handles of start_clients, and the watch of their phase."""
    watch = None


def start_clients(runner, proto, phase, jobs, outdir, cfg, measured=True):
    """Start one client per (host, servers, extra args, output name[,
    protocol]) in JOBS (the protocol is PROTO unless the job names its
    own: clients of several protocols may run at the same time); the
    handles for wait_clients. A MEASURED phase (not a background flow) is
    watched (profile.py): counters per MB, --profile."""
    progs = {}
    procs = Clients()
    if measured:
        procs.watch = profile.begin(runner, cfg, outdir, proto, phase)
    for j, job in enumerate(jobs):
        host, servers, extra, name = job[:4]
        jproto = job[4] if len(job) > 4 else proto
        label = '%s %s' % (jproto, phase)
        if jproto not in progs:
            # One condensed progress line per protocol.
            progs[jproto] = Progress(label, 0, cfg.progress_every,
                                     cfg.verbose)
        prog = progs[jproto]
        prog.n += 1
        remote = runner.remote_path(host, name, outdir)
        argv = client_args(runner, jproto, servers, cfg,
                           extra + ['--output', remote])
        logpath = os.path.join(outdir, name + '.log')
        procs.append((host, name, remote, jproto, label, runner.start(
            host, argv, logpath,
            on_line=lambda t, h=host, pr=prog, k=j: pr.line(h, t, k))))
    return procs


def wait_clients(runner, procs, outdir, timeout, stop=False):
    """Wait for the clients started by start_clients (after TIMEOUT
    seconds, or at once with STOP, they get SIGTERM: cp_node then ends its
    run early and prints its summary), fetch their outputs; their
    summaries and samples."""
    deadline = time.time() + timeout
    results = []
    for host, name, remote, jproto, label, p in procs:
        if stop:
            rc = p.stop(max(1, deadline - time.time()))
        else:
            rc = p.wait(max(1, deadline - time.time()))
        if rc is None:
            log('  [%s] h%d: client still running after %ds: stopping it'
                % (label, host, timeout))
            rc = p.stop()
        local = os.path.join(outdir, name)
        try:
            runner.fetch(host, remote, local)
        except (OSError, subprocess.CalledProcessError) as e:
            log('  [%s] h%d: cannot fetch %s: %s' % (label, host, remote, e))
        summ = p.find('summary:')
        if summ is None:
            log('  [%s] h%d: no summary (exit %s); last lines: %s' % (
                label, host, rc, ' | '.join(p.lines[-3:])))
        results.append({'host': host, 'rc': rc, 'file': name,
                        'protocol': jproto,
                        'summary': parse_summary(summ) if summ else None,
                        'unloaded': [line for line in p.lines
                                     if line.startswith('unloaded:')]})
    if getattr(procs, 'watch', None) is not None:
        procs.watch.finish(results)
    return results


def start_servers(runner, proto, hosts, cfg, outdir, tag=None):
    """cp_node servers of PROTO on HOSTS, once ready; their logs are
    <TAG or PROTO>-server-h<i>.log."""
    servers = []
    for i in hosts:
        argv = [runner.cp_node, 'server', '--protocol', PROTOCOLS[proto][0],
                '--ports', str(cfg.server_ports)]
        logpath = os.path.join(outdir, '%s-server-h%d.log' % (tag or proto,
                                                              i))
        servers.append(runner.start(i, argv, logpath))
    deadline = time.time() + 30
    for s in servers:
        while s.find('server: ready') is None:
            if s.popen.poll() is not None or time.time() > deadline:
                stop_servers(servers)
                raise RuntimeError('server on h%d did not start: %s' % (
                    s.host, ' | '.join(s.lines[-3:])))
            time.sleep(0.1)
    return servers


def stop_servers(servers):
    for s in servers:
        s.stop()


def snapshot(runner, tag, outdir):
    """In the VM: the switch's queue statistics (drops, ECN marks) and the
    processes that used the most CPU, for reading after the run."""
    if not isinstance(runner, NetnsRunner):
        return
    cmds = [('qdisc', ['tc', '-s', '-n', 'sw', 'qdisc', 'show']),
            ('ps', ['ps', '-eo', 'pid,pcpu,time,comm', '--sort=-time'])]
    # Homa's counters of every host (cumulative over the VM's life) and
    # its peers' RTT figures and congestion state at the run's end.
    for i, _ in enumerate(runner.hosts):
        for name, proc in (('metrics', 'homa_metrics'),
                           ('peers', 'homa_peers')):
            cmds.append(('%s-h%d' % (name, i),
                         ['ip', 'netns', 'exec', 'h%d' % i,
                          'cat', '/proc/net/' + proc]))
    for name, argv in cmds:
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, text=True)
        except OSError:
            continue
        with open(os.path.join(outdir, '%s-%s.txt' % (tag, name)), 'w') as f:
            f.write(p.stdout)


def save_qdisc_texts(outdir, tag, before, after):
    """Keep two `tc -s qdisc show` texts (None: not kept) of a run in
    OUTDIR as TAG-qdisc-before.txt and TAG-qdisc-after.txt."""
    for name, text in (('before', before), ('after', after)):
        if text is not None:
            with open(os.path.join(outdir, '%s-qdisc-%s.txt'
                                   % (tag, name)), 'w') as f:
                f.write(text)


def per_client_gbps(cfg):
    """Open-loop request rate per client (Gbps) that loads each host link
    to cfg.load of its rate: with echo RPCs a link carries requests and
    responses, so requests get half."""
    g = cfg.load * cfg.mbps / 1000.0
    return g if cfg.one_way else g / 2.0


def load_samples(outdir, names):
    out = []
    for name in names:
        out += read_rtts(os.path.join(outdir, name))
    return out


def per_protocol(runner, cfg, outdir, run_one):
    """RUN_ONE(runner, proto, cfg, outdir) for each of cfg.protocols,
    yielding its record; a protocol that fails gets a record with the
    reason and the others still run."""
    for proto in cfg.protocols:
        try:
            rec = run_one(runner, proto, cfg, outdir)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            log('%s: FAILED: %s' % (proto, e))
            rec = {'protocol': proto, 'failed': str(e)}
        yield rec


def loaded_rtts(outdir, rec):
    """The sorted RTTs (ns) of the loaded clients of a record."""
    return sorted(r for _, r in load_samples(
        outdir, [r['file'] for r in rec['loaded']]))
