# SPDX-License-Identifier: GPL-2.0+
"""Where the experiments run. A runner runs a command on host i (and waits,
or in the background, its output streamed back line by line), fetches a
file from host i, and sets the hosts' congestion control and Homa variant
settings. NetnsRunner: the VM's test bed (namespaces hI); HostsRunner: the
hosts of a hosts file (ssh, or local and netns stand-ins)."""

import os
import shlex
import shutil
import subprocess
import threading

from .common import CP_NODE, PROTOCOLS, TESTBED, VARIANT_SYSCTLS, log
from .parse import (parse_filter_bytes, parse_homa_metrics,
                    parse_ss_bytes_received)
from .testbed import testbed_args


class Host:
    """One line of a hosts file: NAME [DATA-ADDRESS].

    NAME is an ssh destination ([user@]host), or "local" (commands run
    here as plain subprocesses) or "netns:NS" (commands run here inside
    network namespace NS): the last two let the experiment code be tried
    without remote machines. The data-plane address defaults to NAME
    (required for local and netns entries)."""

    def __init__(self, name, addr, kind):
        self.name, self.addr, self.kind = name, addr, kind

    def __repr__(self):
        return 'Host(%r, %r, %r)' % (self.name, self.addr, self.kind)


def parse_hosts_file(text):
    hosts = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        f = line.split()
        if len(f) > 2:
            raise ValueError('line %d: want "host [data-address]": %r'
                             % (n, raw))
        name = f[0]
        if name == 'local':
            kind = 'local'
        elif name.startswith('netns:'):
            kind = 'netns'
            if len(name) == len('netns:'):
                raise ValueError('line %d: netns: without a name' % n)
        else:
            kind = 'ssh'
        if len(f) == 2:
            addr = f[1]
        elif kind == 'ssh':
            addr = name.split('@')[-1]
        else:
            raise ValueError('line %d: %s needs a data-plane address'
                             % (n, name))
        hosts.append(Host(name, addr, kind))
    if len(hosts) < 2:
        raise ValueError('a hosts file needs at least 2 hosts')
    return hosts


class Proc:
    """A command running in the background on one host; its standard output
    is copied into a local log file and handed line by line to a callback."""

    def __init__(self, popen, logpath, on_line, stopper):
        self.popen = popen
        self.lines = []
        self._stopper = stopper
        self._log = open(logpath, 'w')
        self._on_line = on_line
        self._t = threading.Thread(target=self._pump, daemon=True)
        self._t.start()

    def _pump(self):
        for line in self.popen.stdout:
            self.lines.append(line.rstrip('\n'))
            self._log.write(line)
            self._log.flush()
            if self._on_line:
                try:
                    self._on_line(line.rstrip('\n'))
                except Exception as e:  # progress display only
                    log('progress: %s' % e)

    def wait(self, timeout=None):
        try:
            rc = self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        self._t.join(5)
        if not self._log.closed:
            self._log.close()
            self.popen.stdout.close()
        return rc

    def stop(self, timeout=10):
        if self.popen.poll() is None:
            self._stopper(self)
        rc = self.wait(timeout)
        if rc is None:
            self.popen.kill()
            rc = self.wait(5)
        return rc

    def find(self, prefix):
        for line in self.lines:
            if line.startswith(prefix):
                return line
        return None


class Runner:
    """Where the experiments run: run a command on host i (and wait, or in
    the background), fetch a file from host i. Subclasses say how."""

    def __init__(self, hosts, cp_node=CP_NODE, workdir='/tmp'):
        self.hosts = hosts
        self.cp_node = cp_node
        self.workdir = workdir
        self._seq = 0

    def n(self):
        return len(self.hosts)

    def addr(self, i):
        return self.hosts[i].addr

    def wrap(self, i, argv):
        """The local argv that runs ARGV on host i."""
        raise NotImplementedError

    def start(self, i, argv, logpath, on_line=None):
        self._seq += 1
        pidfile = '%s/cp_vs_tcp.%d.%d.pid' % (self.workdir, os.getpid(),
                                              self._seq)
        inner = 'echo $$ > %s; exec %s' % (pidfile, shlex.join(argv))
        p = subprocess.Popen(self.wrap(i, ['sh', '-c', inner]),
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             stdin=subprocess.DEVNULL)
        proc = Proc(p, logpath, on_line, self._terminate)
        proc.host, proc.pidfile = i, pidfile
        return proc

    def _terminate(self, proc):
        # The pid on the host, not the local wrapper (ssh would not pass
        # the signal on).
        self.run(proc.host, ['sh', '-c', 'kill -TERM "$(cat %s)"; rm -f %s'
                             % (proc.pidfile, proc.pidfile)])

    def run(self, i, argv, timeout=120):
        p = subprocess.run(self.wrap(i, argv), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout

    def fetch(self, i, remote, local):
        """Copy file REMOTE on host i to LOCAL."""
        if os.path.abspath(remote) != os.path.abspath(local):
            shutil.copyfile(remote, local)

    def remote_path(self, i, name, outdir):
        """Where host i writes an output file called NAME."""
        return os.path.join(outdir, name)

    CC_KEYS = ('net.ipv4.tcp_congestion_control', 'net.ipv4.tcp_ecn')

    def prepare(self, proto, cfg):
        """Congestion control (and ECN) for PROTO on every host: DCTCP is
        switched on for its run; the hosts' own settings are used (and put
        back) otherwise."""
        if not hasattr(self, 'saved'):
            self.saved = {}
        want_dctcp = PROTOCOLS[proto][1] == 'dctcp'
        for i in range(self.n()):
            if want_dctcp and i not in self.saved:
                rc, out = self.run(i, ['sysctl', '-n'] + list(self.CC_KEYS))
                vals = out.split()
                if rc == 0 and len(vals) == 2:
                    self.saved[i] = vals
                self.run(i, ['sysctl', '-qw',
                             self.CC_KEYS[0] + '=dctcp',
                             self.CC_KEYS[1] + '=1'])
            elif not want_dctcp and i in self.saved:
                self.restore(i)
        self.set_variant(proto)

    def set_variant(self, proto):
        """The net.homa settings of a Homa variant (VARIANT_SYSCTLS) on
        every host for its run; the previous values go back for the other
        protocols."""
        if not hasattr(self, 'homa_saved'):
            self.homa_saved = {}
        own = VARIANT_SYSCTLS.get(proto, {})
        for i in range(self.n()):
            if own and i not in self.homa_saved:
                vals = {}
                for name in sorted(own):
                    rc, out = self.run(i, ['sysctl', '-n',
                                           'net.homa.' + name])
                    if rc == 0 and out.strip():
                        vals[name] = out.strip()
                self.homa_saved[i] = vals
            if own:
                self.run(i, ['sysctl', '-qw'] + [
                    'net.homa.%s=%s' % kv for kv in sorted(own.items())])
            elif i in self.homa_saved:
                self.restore_variant(i)

    def restore_variant(self, i):
        vals = self.homa_saved.pop(i)
        if vals:
            self.run(i, ['sysctl', '-qw'] + [
                'net.homa.%s=%s' % kv for kv in sorted(vals.items())])

    def restore(self, i=None):
        for j in ([i] if i is not None else list(getattr(self, 'saved',
                                                         {}))):
            vals = self.saved.pop(j)
            self.run(j, ['sysctl', '-qw'] + ['%s=%s' % kv for kv in
                                             zip(self.CC_KEYS, vals)])
        if i is None:
            for j in list(getattr(self, 'homa_saved', {})):
                self.restore_variant(j)

    def homa_metrics(self):
        """{host: {metric: value}} from every host's /proc/net/homa_metrics
        (hosts without one are left out)."""
        out = {}
        for i in range(self.n()):
            rc, text = self.run(i, ['cat', '/proc/net/homa_metrics'])
            if rc == 0:
                out[i] = parse_homa_metrics(text)
        return out

    def tcp_bytes_received(self, i, ports):
        """Bytes received so far by host i's TCP connections whose local
        port is one of PORTS (ss bytes_received, summed), or None."""
        try:
            rc, text = self.run(i, ['ss', '-tinH', ' or '.join(
                'sport = :%d' % p for p in ports)])
        except (OSError, subprocess.SubprocessError):
            return None
        return parse_ss_bytes_received(text) if rc == 0 else None

    def tcp_info(self, i):
        """Host i's `ss -tin` (every TCP socket's congestion window,
        receive window and counts), or None."""
        try:
            rc, text = self.run(i, ['ss', '-tin'])
        except (OSError, subprocess.SubprocessError):
            return None
        return text if rc == 0 else None

    def homa_peers(self, i):
        """Host i's /proc/net/homa_peers (its RTT estimate and scheduled
        window per peer), or None."""
        rc, text = self.run(i, ['cat', '/proc/net/homa_peers'])
        return text if rc == 0 else None

    def switch_qdisc(self):
        """`tc -s qdisc show` of the switch, or None (no switch here)."""
        return None

    def count_rx(self, i):
        """Start counting the bytes host i receives per protocol (for
        rx_bytes); nothing where that is not possible."""

    def rx_bytes(self, i):
        """{protocol: bytes} host i received since count_rx (IP packets,
        headers included; 'homa' and 'tcp'), or None."""
        return None

    def uplink_qdisc(self, i):
        """`tc -s qdisc show` of host i's NIC, or None."""
        return None

    def cpu_stat(self):
        """/proc/stat texts of the machines involved."""
        return [self.run(i, ['cat', '/proc/stat'])[1]
                for i in range(self.n())]

    def dmesg(self):
        return ''

    CLOCKSOURCE = '/sys/devices/system/clocksource/clocksource0/' \
        'current_clocksource'

    def clocksource(self):
        """The kernel clocksource of host 0 (all of them, in the VM), or
        None if it cannot be read."""
        rc, out = self.run(0, ['cat', self.CLOCKSOURCE])
        return out.strip() if rc == 0 and out.strip() else None


class NetnsRunner(Runner):
    """The VM test bed: host i is namespace hI, all on this machine."""

    def __init__(self, nhosts, cfg):
        hosts = [Host('netns:h%d' % i, '10.0.0.%d' % (i + 1), 'netns')
                 for i in range(nhosts)]
        super().__init__(hosts)
        self.cfg = cfg

    def wrap(self, i, argv):
        return ['ip', 'netns', 'exec', 'h%d' % i] + argv

    def prepare(self, proto, cfg):
        if not hasattr(self, 'homa_defaults'):
            # Before the first run: the values the variants change.
            self.homa_defaults = {}
            for name in sorted({k for p in cfg.protocols
                                for k in VARIANT_SYSCTLS.get(p, {})}):
                rc, out = self.run(0, ['sysctl', '-n', 'net.homa.' + name])
                if rc == 0 and out.strip():
                    self.homa_defaults[name] = out.strip()
        args = [TESTBED, '--retune', '--quiet'] + testbed_args(
            cfg, proto, self.homa_defaults)
        subprocess.run(args, check=True)

    def switch_qdisc(self):
        return subprocess.run(['tc', '-s', '-n', 'sw', 'qdisc', 'show'],
                              stdout=subprocess.PIPE, text=True).stdout

    def uplink_qdisc(self, i):
        return subprocess.run(['tc', '-s', '-n', 'h%d' % i, 'qdisc', 'show',
                               'dev', 'eth0'], stdout=subprocess.PIPE,
                              text=True).stdout

    # IP protocol numbers counted by count_rx, by the preference of the
    # filter that counts each.
    RX_PREFS = {1: ('homa', 146), 2: ('tcp', 6)}

    def count_rx(self, i):
        """A clsact qdisc on hI's eth0 with, per protocol of RX_PREFS, a
        u32 filter on the IPv4 protocol whose action (gact ok) counts
        bytes; util/testbed --retune leaves it (it replaces the root
        qdisc only)."""
        tc = ['tc', '-n', 'h%d' % i]
        subprocess.run(tc + ['qdisc', 'del', 'dev', 'eth0', 'clsact'],
                       stderr=subprocess.DEVNULL, check=False)
        subprocess.run(tc + ['qdisc', 'add', 'dev', 'eth0', 'clsact'],
                       check=True)
        for pref, (_, number) in sorted(self.RX_PREFS.items()):
            subprocess.run(tc + ['filter', 'add', 'dev', 'eth0', 'ingress',
                                 'protocol', 'ip', 'pref', str(pref), 'u32',
                                 'match', 'ip', 'protocol', str(number),
                                 '0xff', 'action', 'ok'], check=True)

    def rx_bytes(self, i):
        p = subprocess.run(['tc', '-s', '-n', 'h%d' % i, 'filter', 'show',
                            'dev', 'eth0', 'ingress'],
                           stdout=subprocess.PIPE, text=True)
        counts = parse_filter_bytes(p.stdout) if p.returncode == 0 else {}
        if not counts:
            return None
        return {name: counts.get(pref, 0)
                for pref, (name, _) in self.RX_PREFS.items()}

    def cpu_stat(self):
        with open('/proc/stat') as f:
            return [f.read()]

    def dmesg(self):
        return subprocess.run(['dmesg'], stdout=subprocess.PIPE,
                              text=True).stdout


class HostsRunner(Runner):
    """Hosts from a hosts file: ssh, or local / netns stand-ins."""

    def __init__(self, hosts, cp_node, ssh_opts=()):
        super().__init__(hosts, cp_node)
        self.ssh_opts = list(ssh_opts)

    def wrap(self, i, argv):
        h = self.hosts[i]
        if h.kind == 'local':
            return argv
        if h.kind == 'netns':
            return ['ip', 'netns', 'exec', h.name[len('netns:'):]] + argv
        return ['ssh', '-o', 'BatchMode=yes'] + self.ssh_opts + [
            h.name, shlex.join(argv)]

    def fetch(self, i, remote, local):
        h = self.hosts[i]
        if h.kind == 'ssh':
            subprocess.run(['scp', '-q', '-o', 'BatchMode=yes'] +
                           self.ssh_opts + ['%s:%s' % (h.name, remote),
                                            local], check=True)
        else:
            super().fetch(i, remote, local)

    def remote_path(self, i, name, outdir):
        if self.hosts[i].kind == 'ssh':
            return '/tmp/cp_vs_tcp.%d.%s' % (os.getpid(), name)
        return os.path.join(outdir, name)

    def cpu_stat(self):
        # One /proc/stat per machine: local and netns entries share one.
        seen, out = set(), []
        for i, h in enumerate(self.hosts):
            key = h.name if h.kind == 'ssh' else 'here'
            if key not in seen:
                seen.add(key)
                out.append(self.run(i, ['cat', '/proc/stat'])[1])
        return out
