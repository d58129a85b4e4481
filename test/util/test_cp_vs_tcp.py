# SPDX-License-Identifier: GPL-2.0+
"""Tests of the pure parts of util/cp_vs_tcp, the package util/cpvt (no
VM, no Homa): parsing cp_node's output, slowdowns against an interpolated
baseline, the table by tenths, the hosts file, and the shared experiment
code driven through a fake runner whose "cp_node" is a small script.

Run from the repository root: python3 -m unittest discover -s test/util
(or test/util/run.sh, which ends with "pyunit: N passed, N failed")."""

import contextlib
import io
import json
import math
import os
import sys
import tempfile
import textwrap
import time
import unittest
import unittest.mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'util'))

from cpvt import (cli, cross, experiment, options,  # noqa: E402
                  parse, stats, table, testbed, vm)
from cpvt.modes import incast, latency, rttwin, stream  # noqa: E402
from cpvt.report import analyze  # noqa: E402
from cpvt.runner import HostsRunner, parse_hosts_file  # noqa: E402


class ParseTest(unittest.TestCase):
    def test_status(self):
        st = parse.parse_status('status: t=3 kops=1.25 gbps_out=0.012 '
                              'gbps_in=0.000 p50_us=812 p99_us=40211 '
                              'outstanding=7 warmup_rpcs=120')
        self.assertEqual(st['t'], 3)
        self.assertIsInstance(st['t'], int)
        self.assertAlmostEqual(st['kops'], 1.25)
        self.assertAlmostEqual(st['gbps_out'], 0.012)
        self.assertEqual(st['p99_us'], 40211)
        self.assertEqual(st['outstanding'], 7)
        self.assertEqual(st['warmup_rpcs'], 120)

    def test_status_rejects_other_lines(self):
        self.assertIsNone(parse.parse_status('summary: rpcs=1'))
        self.assertIsNone(parse.parse_status('server: ready protocol=homa'))
        self.assertIsNone(parse.parse_summary('status: t=1'))

    def test_summary(self):
        s = parse.parse_summary(
            'summary: rpcs=1234 errors=2 seconds=30.0 kops=0.04 '
            'gbps_out=0.051 gbps_in=0.002 offered_gbps=0.0128 p50_us=900 '
            'p99_us=123456 cpu_user_s=1.50 cpu_sys_s=3.25\n')
        self.assertEqual(s['rpcs'], 1234)
        self.assertEqual(s['errors'], 2)
        self.assertAlmostEqual(s['seconds'], 30.0)
        self.assertAlmostEqual(s['offered_gbps'], 0.0128)
        self.assertAlmostEqual(s['cpu_user_s'] + s['cpu_sys_s'], 4.75)

    def test_negative_and_text_values(self):
        s = parse.parse_kv_line('status: t=-1 proto=homa junk', 'status:')
        self.assertEqual(s, {'t': -1, 'proto': 'homa'})

    def test_rtts(self):
        text = '# request_length_bytes rtt_ns\n100 5000\n\n2000 7\nbad x\n'
        self.assertEqual(parse.parse_rtts(text), [(100, 5000), (2000, 7)])


QDISC_ALL = textwrap.dedent('''\
    qdisc noqueue 0: dev lo root refcnt 2 
     Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) 
     backlog 0b 0p requeues 0
    qdisc tbf 1: dev p0 root refcnt 3 rate 16Mbit burst 4540b lat 63.3ms 
     Sent 34303975 bytes 168090 pkt (dropped 1025, overlimits 115131 requeues 0) 
     backlog 0b 0p requeues 0
    qdisc bfifo 15: dev p0 parent 10:5 limit 128Kb
     Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) 
     backlog 0b 0p requeues 0
    qdisc prio 10: dev p0 parent 1:1 bands 8 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
     Sent 34303975 bytes 168090 pkt (dropped 1025, overlimits 0 requeues 0) 
     backlog 0b 0p requeues 0
    qdisc bfifo 18: dev p0 parent 10:8 limit 128Kb
     Sent 13318218 bytes 8890 pkt (dropped 1000, overlimits 0 requeues 0) 
     backlog 0b 0p requeues 0
    qdisc bfifo 11: dev p0 parent 10:1 limit 128Kb
     Sent 20985757 bytes 159200 pkt (dropped 25, overlimits 0 requeues 0) 
     backlog 0b 0p requeues 0
    qdisc tbf 1: dev p1 root refcnt 3 rate 16Mbit burst 4540b lat 63.3ms 
     Sent 72898981 bytes 181647 pkt (dropped 5311, overlimits 291148 requeues 0) 
     backlog 0b 0p requeues 0
    ''')


class IncastParseTest(unittest.TestCase):
    def test_homa_metrics(self):
        m = parse.parse_homa_metrics(
            'pkts_rx_data                             1234  DATA packets '
            'received\nincast_marked                               7  '
            'requests sent marked for incast control\n\ngarbage line\n'
            'Bad 3 x\n')
        self.assertEqual(m, {'pkts_rx_data': 1234, 'incast_marked': 7})
        self.assertEqual(parse.parse_homa_metrics(None), {})

    def test_metrics_delta(self):
        d = parse.metrics_delta({'a': 5, 'b': 2, 'gone': 9},
                              {'a': 12, 'b': 2, 'new': 4})
        self.assertEqual(d, {'a': 7, 'b': 0, 'new': 4})

    def test_qdisc_stats(self):
        qs = parse.parse_qdisc_stats(QDISC_ALL)
        self.assertEqual(len(qs), 7)
        tbf = qs[1]
        self.assertEqual((tbf['kind'], tbf['handle'], tbf['dev'],
                          tbf['parent']), ('tbf', '1:', 'p0', None))
        self.assertEqual((tbf['sent_bytes'], tbf['sent_pkts'],
                          tbf['dropped'], tbf['overlimits']),
                         (34303975, 168090, 1025, 115131))
        self.assertEqual(qs[2]['parent'], '10:5')

    def test_qdisc_drops_root_and_leaves(self):
        root, leaves = parse.qdisc_drops(QDISC_ALL, 'p0')
        self.assertEqual(root, 1025)
        # The prio qdisc (10:) is not a leaf although it dropped.
        self.assertEqual(leaves, {'18:': 1000, '11:': 25})
        self.assertEqual(parse.qdisc_drops(QDISC_ALL, 'p1'), (5311, {}))
        self.assertEqual(parse.qdisc_drops(QDISC_ALL, 'p7'), (None, {}))

    def test_qdisc_drops_one_device_text(self):
        # `tc -s qdisc show dev eth0` names no device.
        text = ('qdisc tbf 1: root refcnt 2 rate 16Mbit burst 4542b\n'
                ' Sent 10 bytes 1 pkt (dropped 3, overlimits 0 '
                'requeues 0)\n')
        self.assertEqual(parse.qdisc_drops(text, 'eth0'), (3, {}))

    def test_band_drops(self):
        # Leaves under prio 10: by their parent 10:M -> band M-1; the
        # tbf root and the prio qdisc itself are not bands.
        self.assertEqual(parse.band_drops(QDISC_ALL, 'p0'),
                         {4: 0, 7: 1000, 0: 25})
        self.assertEqual(parse.band_drops(QDISC_ALL, 'p1'), {})
        text = ('qdisc prio 20: root bands 16\n'
                ' Sent 1 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)\n'
                'qdisc bfifo 30: parent 20:c limit 1Kb\n'
                ' Sent 1 bytes 1 pkt (dropped 9, overlimits 0 requeues 0)\n')
        self.assertEqual(parse.band_drops(text, 'eth0'), {11: 9})

    def test_band_drops_between(self):
        before = QDISC_ALL.replace('dropped 1000,', 'dropped 400,')
        self.assertEqual(parse.band_drops_between(before, QDISC_ALL, 'p0'),
                         {4: 0, 7: 600, 0: 0})
        self.assertEqual(parse.band_drops_between(QDISC_ALL, before, 'p0'),
                         {4: 0, 7: 400, 0: 0})
        self.assertEqual(parse.band_drops_between('', QDISC_ALL, 'p0'), {})

    def test_drops_between(self):
        before = QDISC_ALL.replace('dropped 1025,', 'dropped 1000,', 1)
        self.assertEqual(parse.drops_between(before, QDISC_ALL, 'p0'), 25)
        # A qdisc rebuilt in between restarts from 0.
        self.assertEqual(parse.drops_between(QDISC_ALL, before, 'p0'), 1000)
        self.assertIsNone(parse.drops_between(None, QDISC_ALL, 'p0'))
        self.assertIsNone(parse.drops_between(QDISC_ALL, QDISC_ALL, 'p9'))


class HomaSysctlTest(unittest.TestCase):
    def test_variant_and_defaults(self):
        cfg = options.parse_args(['--mode', 'incast'])
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa-noincast',
                                          {'incast_threshold': '32'}),
                         ['incast_threshold=0'])
        # Back to the value before the variant for plain Homa.
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa',
                                          {'incast_threshold': '32'}),
                         ['incast_threshold=32'])
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa'), [])

    def test_user_settings(self):
        cfg = options.parse_args(['--mode', 'incast', '--homa-sysctl',
                              'incast_threshold=8', '--homa-sysctl',
                              'unsched_bytes=20000'])
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa',
                                          {'incast_threshold': '32'}),
                         ['incast_threshold=8', 'unsched_bytes=20000'])
        # The variant's own setting comes last, so it wins.
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa-noincast',
                                          {'incast_threshold': '32'}),
                         ['incast_threshold=8', 'unsched_bytes=20000',
                          'incast_threshold=0'])
        a = testbed.testbed_args(cfg, 'homa-noincast')
        self.assertEqual(a[-2:], ['--homa', 'incast_threshold=0'])

    def test_ad_hoc_variant(self):
        cfg = options.parse_args(['--mode', 'throughput', '--protocols',
                                  'homa:pacer_enable=0:max_gso_size=20000'])
        name = cfg.protocols[0]
        self.assertEqual(testbed.homa_sysctls(cfg, name),
                         ['max_gso_size=20000', 'pacer_enable=0'])
        # Plain Homa of the same run gets the old values back.
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa',
                                              {'pacer_enable': '1'}),
                         ['pacer_enable=1'])
        assert_rejected(self, ['--mode', 'throughput', '--protocols'],
                        [['homa:'], ['homa:pacer_enable'], ['homa:=1'],
                         ['homa:a=1/b']])

    def test_hosts_runner_sets_and_restores(self):
        class Rec(HostsRunner):
            def __init__(self, hosts):
                super().__init__(hosts, '/x/cp_node')
                self.cmds = []

            def run(self, i, argv, timeout=120):
                self.cmds.append((i, argv))
                if argv[:2] == ['sysctl', '-n']:
                    return 0, '32\n'
                return 0, ''
        r = Rec(parse_hosts_file('a\nb\n'))
        cfg = options.parse_args(['--mode', 'incast'])
        r.prepare('homa', cfg)
        self.assertEqual(r.cmds, [])
        r.prepare('homa-noincast', cfg)
        writes = [(i, a) for i, a in r.cmds if a[:2] == ['sysctl', '-qw']]
        self.assertEqual(writes, [
            (0, ['sysctl', '-qw', 'net.homa.incast_threshold=0']),
            (1, ['sysctl', '-qw', 'net.homa.incast_threshold=0'])])
        r.cmds = []
        r.prepare('tcp', cfg)
        self.assertEqual(r.cmds, [
            (0, ['sysctl', '-qw', 'net.homa.incast_threshold=32']),
            (1, ['sysctl', '-qw', 'net.homa.incast_threshold=32'])])
        r.cmds = []
        r.prepare('homa-noincast', cfg)
        r.restore()
        self.assertEqual(r.cmds[-1], (1, ['sysctl', '-qw',
                                          'net.homa.incast_threshold=32']))


class IncastTableTest(unittest.TestCase):
    CFG = {'client_max': 64, 'request_bytes': 100, 'response_bytes': 100000,
           'mbps': 16, 'seconds': 20}

    def rec(self, proto, metrics=True):
        rec = {'protocol': proto,
               'loaded': [{'file': 'x', 'summary': {
                   'rpcs': 380, 'errors': 2, 'seconds': 20.0,
                   'gbps_out': 0.0000152, 'gbps_in': 0.015,
                   'cpu_user_s': 0.1, 'cpu_sys_s': 0.2}}],
               'switch_drops': {'p0': 40, 'p1': 0},
               'uplink_drops': {'h0': 5, 'h1': 1, 'h2': None, 'h3': 2},
               'cpu_busy': [0.5, None]}
        if metrics:
            rec['homa_metrics'] = {
                '0': {'incast_marked': 350, 'resends_sent': 10,
                      'data_resent': 1, 'rpc_timeouts': 2,
                      'incast_responses': 0},
                '1': {'incast_responses': 100, 'resends_sent': 1,
                      'data_resent': 20},
                '2': {'incast_responses': 240, 'rpc_timeouts': 1}}
            rec['homa_sysctls'] = ['incast_threshold=0']
        return rec

    def test_row(self):
        rtts = sorted(range(1, 101))
        r = incast.incast_row(self.rec('homa'), self.CFG,
                           [x * 1000000 for x in rtts], {0: 4, 7: 36})
        self.assertEqual((r['rpcs'], r['errors']), (380, 2))
        self.assertAlmostEqual(r['goodput_mbps'], 15.2)
        self.assertAlmostEqual(r['link_share'], 0.95)
        self.assertEqual((r['p50_ms'], r['p99_ms']), (50, 99))
        self.assertEqual(r['switch_drops_to_client'], 40)
        self.assertEqual(r['band0_drops'], 4)
        self.assertEqual(r['switch_drops_by_band'], {0: 4, 7: 36})
        self.assertEqual(r['server_uplink_drops'], 3)   # h0 is the client
        self.assertEqual(r['incast_marked'], 350)       # the client's only
        self.assertEqual(r['incast_responses'], 340)    # the servers'
        self.assertEqual(r['resends_sent'], 11)         # every host's
        self.assertEqual(r['data_resent'], 21)
        self.assertEqual(r['rpc_timeouts'], 3)
        self.assertEqual(r['cpu_busy'], [0.5])

    def test_row_tcp_without_switch(self):
        rec = self.rec('tcp', metrics=False)
        del rec['switch_drops'], rec['uplink_drops']
        r = incast.incast_row(rec, dict(self.CFG, mbps=0), [])
        self.assertIsNone(r['switch_drops_to_client'])
        self.assertIsNone(r['band0_drops'])
        self.assertIsNone(r['server_uplink_drops'])
        self.assertIsNone(r['link_share'])
        self.assertIsNone(r['p50_ms'])
        self.assertNotIn('incast_marked', r)

    def test_table(self):
        rows = [incast.incast_row(self.rec('homa'), self.CFG, [2000000],
                               {0: 4, 7: 36}),
                incast.incast_row(self.rec('tcp', metrics=False), self.CFG,
                               []),
                {'config': 'homa-noincast', 'failed': 'boom'}]
        t = incast.incast_table(rows, self.CFG, 8)
        self.assertIn('7 servers (h1..h7)', t[0])
        self.assertIn('100000 B responses', t[0])
        homa = t[2].split()
        self.assertEqual(homa[:8], ['homa', '380', '2', '15.20', '95%',
                                    '2.0', '2.0', '40'])
        self.assertEqual(homa[8:], ['4', '3', '350', '340', '11', '21',
                                    '3'])
        tcp = t[3].split()
        self.assertEqual(tcp[0], 'tcp')
        self.assertEqual(tcp[5:7], ['-', '-'])
        self.assertEqual(tcp[-5:], ['-'] * 5)
        self.assertEqual(tcp[8], '-')     # no band drops given
        self.assertEqual(t[4], 'homa-noincast  failed: boom')
        self.assertIn('homa: machine CPU 50% busy; net.homa '
                      'incast_threshold=0', t)
        self.assertIn('tcp: machine CPU 50% busy', t)


class BaselineTest(unittest.TestCase):
    def test_median_per_size(self):
        b = stats.make_baseline([(100, 30), (100, 10), (100, 20),
                               (10, 4), (10, 6)])
        self.assertEqual(b, [(10, 5.0), (100, 20)])

    def test_exact_and_interpolated(self):
        b = [(100, 1000), (1100, 3000)]
        self.assertEqual(stats.baseline_rtt(b, 100), 1000)
        self.assertAlmostEqual(stats.baseline_rtt(b, 600), 2000)
        self.assertAlmostEqual(stats.baseline_rtt(b, 350), 1500)

    def test_below_smallest(self):
        b = [(100, 1000), (1100, 3000)]
        self.assertEqual(stats.baseline_rtt(b, 1), 1000)

    def test_above_largest_extends_last_segment(self):
        b = [(100, 1000), (1100, 3000)]
        self.assertAlmostEqual(stats.baseline_rtt(b, 2100), 5000)
        # A falling last segment never goes below the largest's RTT.
        self.assertEqual(stats.baseline_rtt([(1, 10), (2, 5)], 100), 5)
        self.assertEqual(stats.baseline_rtt([(7, 70)], 1000), 70)

    def test_empty(self):
        with self.assertRaises(ValueError):
            stats.baseline_rtt([], 10)

    def test_slowdowns_sorted_by_size(self):
        b = [(100, 1000), (300, 3000)]
        s = stats.slowdowns([(300, 6000), (100, 1000), (200, 4000)], b)
        self.assertEqual([x[0] for x in s], [100, 200, 300])
        self.assertAlmostEqual(s[0][1], 1.0)
        self.assertAlmostEqual(s[1][1], 2.0)   # baseline 2000 at 200 B
        self.assertAlmostEqual(s[2][1], 2.0)
        self.assertEqual(s[1][2], 4000)


class DecileTest(unittest.TestCase):
    def test_percentile_nearest_rank(self):
        v = list(range(1, 101))
        self.assertEqual(stats.percentile(v, 50), 50)
        self.assertEqual(stats.percentile(v, 99), 99)
        self.assertEqual(stats.percentile(v, 100), 100)
        self.assertEqual(stats.percentile([5], 99), 5)
        self.assertTrue(math.isnan(stats.percentile([], 50)))

    def test_split_even(self):
        self.assertEqual(stats.split_even(100, 10), list(range(0, 101, 10)))
        b = stats.split_even(25, 10)
        self.assertEqual(b[0], 0)
        self.assertEqual(b[-1], 25)
        sizes = [b[i + 1] - b[i] for i in range(10)]
        self.assertEqual(sum(sizes), 25)
        self.assertLessEqual(max(sizes) - min(sizes), 1)

    def test_deciles_by_count(self):
        # 100 messages, sizes 1..100; slowdown = size within each tenth
        # except one outlier in the last tenth.
        slow = [(s, float(s), s * 10) for s in range(1, 101)]
        slow[-1] = (100, 1000.0, 1000)
        rows = stats.deciles(slow)
        self.assertEqual(len(rows), 10)
        self.assertEqual([r['n'] for r in rows], [10] * 10)
        self.assertEqual((rows[0]['lo'], rows[0]['hi']), (1, 10))
        self.assertEqual((rows[9]['lo'], rows[9]['hi']), (91, 100))
        self.assertEqual(rows[0]['p50'], 5.0)
        self.assertEqual(rows[0]['p99'], 10.0)
        self.assertEqual(rows[9]['p99'], 1000.0)

    def test_deciles_few_messages(self):
        rows = stats.deciles([(1, 1.0, 1)] * 3)
        self.assertEqual(sum(r['n'] for r in rows), 3)
        self.assertEqual([r['n'] for r in rows].count(0), 7)

    def test_table(self):
        a = [(s, 1.0 + s / 100.0, 0) for s in range(1, 201)]
        b = [(s, 2.0, 0) for s in range(1, 201)]
        t = latency.decile_table([('homa', a), ('tcp', b)])
        lines = t.splitlines()
        self.assertIn('homa slowdown', lines[0])
        self.assertIn('tcp slowdown', lines[0])
        self.assertEqual(len(lines), 12)
        first = lines[2].split()
        self.assertEqual(first[0], '1')
        self.assertEqual(first[1], '1-20')   # pooled: 400 sizes, 40 each
        self.assertEqual(first[2:], ['1.1', '1.2', '2.0', '2.0'])
        self.assertEqual(lines[-1].split()[1], '181-200')

    def test_fmt_size(self):
        self.assertEqual(table.fmt_size(999), '999')
        self.assertEqual(table.fmt_size(1500), '1.5K')
        self.assertEqual(table.fmt_size(64000), '64K')
        self.assertEqual(table.fmt_size(10000000), '10M')


class HostsFileTest(unittest.TestCase):
    def test_parse(self):
        hosts = parse_hosts_file(textwrap.dedent('''\
            # comment
            node1.example.com
            alice@node2 10.1.0.2   # data plane
            local 127.0.0.1
            netns:h3 10.0.0.4
            '''))
        self.assertEqual([(h.name, h.addr, h.kind) for h in hosts], [
            ('node1.example.com', 'node1.example.com', 'ssh'),
            ('alice@node2', '10.1.0.2', 'ssh'),
            ('local', '127.0.0.1', 'local'),
            ('netns:h3', '10.0.0.4', 'netns')])

    def test_errors(self):
        for bad in ('a\n', 'a b c\nx\n', 'local\nb\n', 'netns: 1.2.3.4\nb\n'):
            with self.assertRaises(ValueError, msg=bad):
                parse_hosts_file(bad)

    def test_wrap(self):
        hosts = parse_hosts_file('u@n1 10.1.0.1\nlocal 1.2.3.4\n'
                                     'netns:h2 10.0.0.3\n')
        r = HostsRunner(hosts, '/x/cp_node', ['-p', '2222'])
        ssh = r.wrap(0, ['cp_node', 'server', 'a b'])
        self.assertEqual(ssh[0], 'ssh')
        self.assertIn('-p', ssh)
        self.assertEqual(ssh[-2], 'u@n1')
        self.assertEqual(ssh[-1], "cp_node server 'a b'")
        self.assertEqual(r.wrap(1, ['true']), ['true'])
        self.assertEqual(r.wrap(2, ['true']),
                         ['ip', 'netns', 'exec', 'h2', 'true'])
        self.assertTrue(r.remote_path(0, 'x.rtt', '/out').startswith('/tmp/'))
        self.assertEqual(r.remote_path(1, 'x.rtt', '/out'), '/out/x.rtt')


def assert_rejected(test, first, cases):
    """Every argument list of CASES, after the arguments FIRST, makes
    options.parse_args exit (with its message on stderr)."""
    for args in cases:
        with contextlib.redirect_stderr(io.StringIO()), \
                test.assertRaises(SystemExit, msg=args):
            options.parse_args(first + args)


def peers_line(*f):
    """A line of /proc/net/homa_peers, as the module formats it."""
    return ('%-39s %8s %12s %12s %12s %12s %14s %10s %12s %12s %9s %11s'
            ' %12s %8s\n' % f)


PEERS = (peers_line('addr', 'samples', 'rtt_min_ns', 'srtt_ns', 'rttvar_ns',
                    'sched_window', 'resend_backoff', 'rx_samples',
                    'rx_rtt_min_ns', 'rx_recent_ns', 'congested',
                    'grant_scale', 'tx_congested', 'tx_scale') +
         peers_line('10.0.0.2', 40, 500000, 900000, 100000, 3000, 0, 12,
                    700000, 800000, 0, 1024, 0, 1024) +
         peers_line('10.0.0.3', 10, 400000, 800000, 50000, 2400, 3, 30,
                    500000, 6000000, 1, 256, 1, 512) +
         peers_line('10.0.0.4', 5, 2000000, 2000000, 0, 12000, 0, 0, 0, 0,
                    0, 1024, 0, 1024) +
         peers_line('fd00::5', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1024, 0, 1024))


class OutDirTest(unittest.TestCase):
    """A test with a results directory of its own (self.out), deleted
    after it, and write(name, text) to put a file there."""

    HOSTS = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4']

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix='cp_vs_tcp_test.')
        self.addCleanup(self._tmp.cleanup)
        self.out = self._tmp.name

    def write(self, name, text):
        with open(os.path.join(self.out, name), 'w') as f:
            f.write(text)


class RttwinTest(OutDirTest):
    """The RTT-adaptive window mode's analysis, from a synthetic raw.json
    and synthetic cp_node output files."""

    CFG = {'mode': 'rttwin', 'mbps': 16, 'seconds': 15, 'client_max': 2}

    def rtt_file(self, name, size, ms_values):
        self.write(name, '# request_length_bytes rtt_ns\n' + ''.join(
            '%d %d\n' % (size, ms * 1000000) for ms in ms_values))

    @staticmethod
    def client(name, rpcs, seconds=15.0, errors=0, proto='homa'):
        return {'host': 0, 'rc': 0, 'file': name, 'protocol': proto,
                'summary': {'rpcs': rpcs, 'errors': errors,
                            'seconds': seconds, 'gbps_out': 0.00001,
                            'gbps_in': 0.013, 'cpu_user_s': 0.1,
                            'cpu_sys_s': 0.2}}

    def raw(self):
        # homa, 100 KB, alone: h1 RTTs 1..100 ms, h2 101..200 ms.
        self.rtt_file('a-h1.rtt', 100000, range(1, 101))
        self.rtt_file('a-h2.rtt', 100000, range(101, 201))
        self.write('a-peers-h0.txt', PEERS)
        alone = {'protocol': 'homa', 'size': 100000, 'cross': False,
                 'tag': 'a', 'senders': self.HOSTS[1:3],
                 'loaded': [self.client('a-h1.rtt', 150),
                            self.client('a-h2.rtt', 100, errors=2)],
                 'switch_drops': {'p0': 12},
                 'p0_sent_bytes': 30000000, 'p0_seconds': 16.0,
                 'homa_metrics': {'0': {'resends_sent': 3,
                                        'rpc_timeouts': 1},
                                  '1': {'resends_sent': 4},
                                  '2': {'rpc_timeouts': 2}, '3': {}},
                 'cpu_busy': [0.5], 'peers_file': 'a-peers-h0.txt',
                 'homa_sysctls': ['rtt_adaptive=1']}
        # homa-nortt, 40 KB, with TCP: the senders have no RTT sample.
        self.rtt_file('b-h1.rtt', 40000, [7, 5])
        self.rtt_file('b-h2.rtt', 40000, [3])
        self.rtt_file('b-tcp-h3.rtt', 500000, [900])
        self.write('b-peers-h0.txt', PEERS.replace(' 40 ', '  0 ').replace(
            ' 10 ', '  0 '))
        cross = {'protocol': 'homa-nortt', 'size': 40000, 'cross': True,
                 'tag': 'b', 'senders': self.HOSTS[1:3], 'tcp_bytes': 500000,
                 'loaded': [self.client('b-h1.rtt', 40),
                            self.client('b-h2.rtt', 35, seconds=14.9)],
                 'tcp': [self.client('b-tcp-h3.rtt', 30, seconds=20.0,
                                     proto='tcp')],
                 'tcp_rx_bytes': 16500000, 'tcp_rx_seconds': 16.5,
                 'switch_drops': {'p0': None},
                 'homa_metrics': {'0': {'resends_sent': 1}},
                 'cpu_busy': [None], 'peers_file': 'b-peers-h0.txt',
                 'homa_sysctls': ['rtt_adaptive=0']}
        failed = {'protocol': 'homa', 'size': 40000, 'cross': True,
                  'tag': 'c', 'failed': 'server on h1 did not start'}
        return {'config': self.CFG, 'hosts': self.HOSTS,
                'protocols': [alone, cross, failed]}

    def test_parse_homa_peers(self):
        p = parse.parse_homa_peers(PEERS)
        self.assertEqual(sorted(p), ['10.0.0.2', '10.0.0.3', '10.0.0.4',
                                     'fd00::5'])
        self.assertEqual(p['10.0.0.3'], {
            'samples': 10, 'rtt_min_ns': 400000, 'srtt_ns': 800000,
            'rttvar_ns': 50000, 'sched_window': 2400, 'resend_backoff': 3,
            'rx_samples': 30, 'rx_rtt_min_ns': 500000,
            'rx_recent_ns': 6000000, 'congested': 1, 'grant_scale': 256,
            'tx_congested': 1, 'tx_scale': 512})
        self.assertEqual(parse.parse_homa_peers(None), {})
        self.assertEqual(parse.parse_homa_peers(
            '10.0.0.2 x 1 2 3 4 5 6 7 8 9 10 11 12\n'), {})
        # Without a header, a line a column short is not misread.
        self.assertEqual(parse.parse_homa_peers(
            '10.0.0.2 1 2 3 4 5 6 7 8 9 10 11 12\n'), {})
        # An older module's header names fewer columns: read by name.
        old = parse.parse_homa_peers('addr samples rtt_min_ns\n'
                                     '10.0.0.9 7 300\n')
        self.assertEqual(old, {'10.0.0.9': {'samples': 7,
                                            'rtt_min_ns': 300}})

    def test_analyze(self):
        report = rttwin.analyze_rttwin(self.raw(), self.out)
        alone, cross, failed = report['rows']
        # 250 responses of 100 KB in 15 s: 13.33 Mbit/s of 16.
        self.assertEqual((alone['rpcs'], alone['errors']), (250, 2))
        self.assertAlmostEqual(alone['goodput_mbps'], 250 * 0.8 / 15)
        self.assertAlmostEqual(alone['link_share'], 250 * 0.8 / 15 / 16)
        # Both clients' RTTs, nearest rank: 1..200 ms.
        self.assertEqual((alone['p50_ms'], alone['p99_ms']), (100, 198))
        self.assertIsNone(alone['tcp_mbps'])
        self.assertEqual(alone['switch_drops_to_h0'], 12)
        self.assertAlmostEqual(alone['p0_mbps'], 15.0)
        self.assertAlmostEqual(alone['p0_share'], 15.0 / 16)
        self.assertEqual(alone['resends_sent'], 7)     # all hosts
        self.assertEqual(alone['rpc_timeouts'], 3)
        # The senders' (not h3's) largest window, and its rtt_min.
        self.assertEqual(alone['window'], 3000)
        self.assertAlmostEqual(alone['rtt_min_us'], 500)
        self.assertEqual(alone['rtt_samples'], 50)
        self.assertEqual(alone['cpu_busy'], [0.5])
        self.assertEqual(alone['metrics']['h0'], {'resends_sent': 3,
                                                  'rpc_timeouts': 1})
        self.assertEqual(alone['metrics']['others'],
                         {'resends_sent': 4, 'rpc_timeouts': 2})

        # 75 responses of 40 KB over the longer client's 15 s.
        self.assertAlmostEqual(cross['goodput_mbps'], 75 * 0.32 / 15)
        self.assertEqual((cross['p50_ms'], cross['p99_ms']), (5, 7))
        # TCP: what h0 received while Homa ran, 16.5 MB in 16.5 s, not
        # the client's 30 messages of 500 KB in its 20 s (6 Mbit/s).
        self.assertAlmostEqual(cross['tcp_mbps'], 8.0)
        self.assertEqual(cross['tcp_mbps_from'], 'h0')
        self.assertEqual(cross['tcp_rpcs'], 30)
        self.assertIsNone(cross['p0_mbps'])
        self.assertIsNone(cross['switch_drops_to_h0'])
        self.assertEqual(cross['rpc_timeouts'], 0)
        self.assertIsNone(cross['window'])          # no RTT sample
        self.assertIsNone(cross['rtt_min_us'])
        self.assertEqual(cross['rtt_samples'], 0)
        self.assertEqual(failed['failed'], 'server on h1 did not start')

        t = report['table']
        self.assertTrue(t[0].startswith('RTT-adaptive window:'))
        self.assertEqual(t[2].split(), [
            '100K', 'off', 'homa', '250', '2', '13.33', '83%', '100.0',
            '198.0', '-', '94%', '12', '7', '3', '3000', '500', '50%'])
        self.assertEqual(t[3].split(), [
            '40K', 'tcp', 'homa-nortt', '75', '0', '1.60', '10%', '5.0',
            '7.0', '8.00', '-', '-', '1', '0', '-', '-', '-'])
        self.assertEqual(t[4].split()[:4], ['40K', 'tcp', 'homa',
                                            'failed:'])
        self.assertIn('homa: net.homa rtt_adaptive=1', t)
        self.assertIn('homa-nortt: net.homa rtt_adaptive=0', t)

    def test_tcp_from_the_client_without_h0_count(self):
        rec = self.raw()['protocols'][1]
        del rec['tcp_rx_bytes'], rec['tcp_rx_seconds']
        row = rttwin.rttwin_row(rec, self.CFG, [])
        self.assertAlmostEqual(row['tcp_mbps'], 6.0)
        self.assertEqual(row['tcp_mbps_from'], 'client')
        self.assertIn(' 6.00* ', rttwin.rttwin_table([row], self.CFG)[2])

    def test_parse_ss(self):
        text = ('ESTAB 0 0 10.0.0.1:5000 10.0.0.4:41000\n'
                '\t cubic wscale:7,7 rto:204 bytes_sent:10 '
                'bytes_acked:11 bytes_received:123456 segs_out:3\n'
                'ESTAB 0 0 10.0.0.1:5000 10.0.0.4:41002\n'
                '\t cubic bytes_received:44 segs_out:3\n')
        self.assertEqual(parse.parse_ss_bytes_received(text), 123500)
        self.assertEqual(parse.parse_ss_bytes_received(''), 0)

    def test_analyze_writes_summary(self):
        self.write('raw.json', json.dumps(self.raw()))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            analyze(self.out)
        self.assertIn('RTT-adaptive window:', printed.getvalue())
        with open(os.path.join(self.out, 'summary.json')) as f:
            summ = json.load(f)
        self.assertEqual(summ['mode'], 'rttwin')
        self.assertEqual([r['config'] for r in summ['rows']],
                         ['homa', 'homa-nortt', 'homa'])
        self.assertAlmostEqual(summ['rows'][1]['tcp_mbps'], 8.0)

    def test_args(self):
        cfg = options.parse_args(['--mode', 'rttwin'])
        self.assertEqual((cfg.hosts, cfg.mbps, cfg.seconds, cfg.client_max,
                          cfg.sizes, cfg.protocols),
                         (4, 16, 15, 2, [40000, 100000, 200000, 500000],
                          ['homa', 'homa-nortt']))
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa-nortt',
                                          {'rtt_adaptive': '1'}),
                         ['rtt_adaptive=0'])
        self.assertEqual(testbed.homa_sysctls(cfg, 'homa',
                                          {'rtt_adaptive': '1'}),
                         ['rtt_adaptive=1'])
        assert_rejected(self, ['--mode', 'rttwin'], (
            ['--hosts', '3'], ['--protocols', 'homa,tcp'], ['--sizes', '0'],
            ['--sizes', '2000000'], ['--sizes', '40K'], ['--mbps', '0']))


class MiscTest(unittest.TestCase):
    def test_cpu_busy(self):
        a = 'cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 2 3\n'
        b = 'cpu  200 0 200 1400 0 0 0 0 0 0\n'
        self.assertAlmostEqual(parse.cpu_busy(a, b), 0.25)
        self.assertIsNone(parse.cpu_busy('', b))

    def test_cpu_cores_and_per_gb(self):
        stat = 'cpu  1 2 3\ncpu0 1 2 3\ncpu1 4 5 6\ncpufreq 1\nintr 5\n'
        self.assertEqual(parse.cpu_cores(stat), 2)
        self.assertIsNone(parse.cpu_cores(''))
        # Half of 2 cores for 1 Gbit/s (0.125 GB/s): 8 s per GB.
        self.assertAlmostEqual(stream.cpu_per_gb(
            {'cpu_busy': [0.5], 'cpu_cores': [2]}, 1.0), 8.0)
        # Two machines add up; anything unknown gives no figure.
        self.assertAlmostEqual(stream.cpu_per_gb(
            {'cpu_busy': [0.5, 0.25], 'cpu_cores': [2, 4]}, 2.0), 8.0)
        self.assertIsNone(stream.cpu_per_gb({'cpu_busy': [None],
                                             'cpu_cores': [2]}, 1.0))
        self.assertIsNone(stream.cpu_per_gb({}, 1.0))
        self.assertIsNone(stream.cpu_per_gb(
            {'cpu_busy': [0.5], 'cpu_cores': [2]}, 0.0))

    def test_progress_two_clients_on_one_host(self):
        prog = experiment.Progress('homa x', 2, 5, False)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            for k in (0, 1):
                prog.line(0, 'status: t=5 kops=0.01 gbps_out=0.001 '
                          'gbps_in=0.004 p50_us=10 p99_us=20 outstanding=2',
                          k)
        lines = printed.getvalue().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertIn('gbps_in=0.0040', lines[0])
        self.assertIn('(1 clients)', lines[0])
        with contextlib.redirect_stdout(printed):
            prog.line(0, 'status: t=10 kops=0.01 gbps_out=0.001 '
                      'gbps_in=0.004 p50_us=10 p99_us=20 outstanding=2', 1)
            prog.line(0, 'status: t=10 kops=0.01 gbps_out=0.001 '
                      'gbps_in=0.004 p50_us=10 p99_us=20 outstanding=2', 0)
        last = printed.getvalue().splitlines()[-1]
        self.assertIn('gbps_in=0.0080', last)
        self.assertIn('outstanding=4 (2 clients)', last)

    def test_sum_summaries_exact_rates(self):
        # Four clients that each printed 0.012 (rounded from 0.0124): the
        # sum is 0.0496 from the byte counts, not 0.048.
        one = {'rpcs': 10, 'errors': 0, 'seconds': 60.0,
               'gbps_out': 0.006, 'gbps_in': 0.006,
               'bytes_out': 46500000, 'bytes_in': 46500000,
               'bytes_offered': 97500000, 'bytes_done': 90000000}
        tot = stats.sum_summaries([one] * 4)
        self.assertAlmostEqual(tot['completed_gbps'], 4 * 0.012)
        self.assertAlmostEqual(tot['gbps_out'], 4 * 0.0062)
        self.assertAlmostEqual(tot['gbps_in'], 4 * 0.0062)
        self.assertAlmostEqual(tot['generated_gbps'], 4 * 0.013)
        self.assertEqual(tot['rpcs'], 40)
        # Without byte counts (an older cp_node), the printed rates.
        old = {'seconds': 60.0, 'gbps_out': 0.006, 'gbps_in': 0.005}
        tot = stats.sum_summaries([old, old])
        self.assertAlmostEqual(tot['gbps_out'], 0.012)
        self.assertAlmostEqual(tot['gbps_in'], 0.010)
        # One client without the generated load: no total.
        self.assertIsNone(stats.sum_summaries([one, old])['generated_gbps'])
        self.assertIsNone(stats.sum_summaries([one, old])['completed_gbps'])

    def test_gbps_per_client(self):
        cfg = options.parse_args(['--mbps', '20', '--load', '0.5'])
        self.assertAlmostEqual(experiment.per_client_gbps(cfg), 0.01)
        cfg = options.parse_args(['--mbps', '20', '--load', '0.5', '--two-way'])
        self.assertAlmostEqual(experiment.per_client_gbps(cfg), 0.005)

    def test_mode_defaults(self):
        cfg = options.parse_args([])
        self.assertEqual((cfg.mode, cfg.workload, cfg.load, cfg.hosts,
                          cfg.mbps), ('latency', 'w4', 0.8, 4, 16))
        self.assertEqual(cfg.protocols, ['homa', 'tcp', 'dctcp'])
        self.assertEqual((cfg.seconds, cfg.warmup), (60, 20))
        cfg = options.parse_args(['--mode', 'loss'])
        self.assertEqual((cfg.message_bytes, cfg.loss_pct, cfg.protocols),
                         (1000000, 10.0, ['homa', 'tcp']))
        cfg = options.parse_args(['--mode', 'throughput'])
        self.assertEqual((cfg.message_bytes, cfg.warmup), (500000, 0))
        cfg = options.parse_args(['--mode', 'incast'])
        self.assertEqual((cfg.hosts, cfg.mbps, cfg.seconds, cfg.client_max,
                          cfg.request_bytes, cfg.response_bytes),
                         (8, 16, 20, 64, 100, 100000))
        self.assertEqual(cfg.protocols, ['homa', 'homa-noincast', 'tcp'])
        self.assertEqual(cfg.warmup, 5)
        cfg = options.parse_args(['--mode', 'incast', '--warmup', '0'])
        self.assertEqual(cfg.warmup, 0)

    def test_protocol_twice(self):
        for arg in ('homa,tcp,homa', 'homa:window=0,homa:window=0'):
            with contextlib.redirect_stderr(io.StringIO()) as err, \
                    self.assertRaises(SystemExit, msg=arg):
                options.parse_args(['--protocols', arg])
            self.assertIn('twice', err.getvalue())
        cfg = options.parse_args(['--protocols', 'homa,homa:window=0'])
        self.assertEqual(cfg.protocols, ['homa', 'homa:window=0'])

    def test_bad_warmup(self):
        with contextlib.redirect_stderr(io.StringIO()), \
                self.assertRaises(SystemExit):
            options.parse_args(['--warmup', '-1'])

    def test_incast_bad_sizes(self):
        for args in (['--request-bytes', '4'], ['--response-bytes', '0'],
                     ['--response-bytes', '1000001'], ['--hosts', '1']):
            with contextlib.redirect_stderr(io.StringIO()), \
                    self.assertRaises(SystemExit, msg=args):
                options.parse_args(['--mode', 'incast'] + args)


FAKE_CP_NODE = r'''#!PYTHON
# A stand-in for cp_node: the same command line and output lines.
import signal, sys, time
a = sys.argv[1:]
if a[0] == 'client':
    # cp_node ends its run early on SIGTERM, with its summary; this one
    # never takes long.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
def opt(name, default=None):
    return a[a.index(name) + 1] if name in a else default
if a[0] == 'server':
    print('server: ready protocol=%s ports=1..1' % opt('--protocol'),
          flush=True)
    signal.sigwait([signal.SIGTERM])
    print('server: exiting on signal 15', flush=True)
    sys.exit(0)
proto = opt('--protocol')
slow = 1 if proto == 'homa' else 3
sizes = [100, 1000, 10000, 100000]
lines = []
if '--unloaded' in a:
    for s in sizes:
        for _ in range(int(opt('--unloaded'))):
            lines.append((s, 1000 + s))
else:
    for k in range(200):
        s = sizes[k % 4] + k
        lines.append((s, (1000 + s) * (slow if k % 10 else 10 * slow)))
    print('status: t=1 kops=0.20 gbps_out=0.010 gbps_in=0.000 p50_us=2 '
          'p99_us=9 outstanding=3', flush=True)
with open(opt('--output'), 'w') as f:
    f.write('# request_length_bytes rtt_ns\n')
    for s, r in lines:
        f.write('%d %d\n' % (s, r))
# A loaded run: of 2.5 MB generated, 1.5, 2 and 2.5 MB in completed RPCs
# on the hosts of seeds 1000, 1001 and 1002 (6 of 7.5 MB in all).
done = 2000000 + (int(opt('--seed', '1001')) - 1001) * 500000
counts = (' bytes_out=1250000 bytes_in=0 bytes_offered=2500000 '
          'bytes_done=%d' % done if '--gbps' in a else '')
print('summary: rpcs=%d errors=0 seconds=1.0 kops=0.20 gbps_out=0.010 '
      'gbps_in=0.000 offered_gbps=%s p50_us=2 p99_us=9 cpu_user_s=0.10 '
      'cpu_sys_s=0.30%s' % (len(lines), opt('--gbps', '0'), counts),
      flush=True)
'''


class RpcsDumpTest(unittest.TestCase):
    """--rpcs-every: each host's /proc/net/homa_rpcs is appended to its
    file after a time line, round after round, until stop()."""

    class Runner:
        def __init__(self):
            self.calls = []

        def n(self):
            return 2

        def run(self, i, argv, timeout=120):
            self.calls.append((i, argv))
            if i == 1 and len(self.calls) == 2:
                raise OSError('host 1 unreachable once')
            return 0, 'rpcs of h%d call %d\n' % (i, len(self.calls))

    def test_rounds(self):
        from cpvt import profile
        runner = self.Runner()
        with tempfile.TemporaryDirectory() as d:
            dump = profile.RpcsDump(runner, d, 'homa-loaded', 0.05)
            deadline = time.monotonic() + 10
            while len(runner.calls) < 6 and time.monotonic() < deadline:
                time.sleep(0.01)
            dump.stop()
            n = len(runner.calls)
            time.sleep(0.15)
            self.assertEqual(len(runner.calls), n, 'stopped')
            self.assertGreaterEqual(n, 6)
            self.assertEqual(runner.calls[0],
                             (0, ['sh', '-c', profile.RPCS_CMD]))
            with open(os.path.join(d, 'homa-loaded-rpcs-h0.txt')) as f:
                h0 = f.read().splitlines()
            with open(os.path.join(d, 'homa-loaded-rpcs-h1.txt')) as f:
                h1 = f.read().splitlines()
        rounds = (n + 1) // 2
        self.assertEqual(len(h0), 2 * rounds)
        self.assertRegex(h0[0], r'^=== t=\d+\.\d$')
        self.assertEqual(h0[1], 'rpcs of h0 call 1')
        self.assertEqual(h0[3], 'rpcs of h0 call 3')
        # The failed reading left no lines: h1's first is from round 2.
        self.assertEqual(h1[1], 'rpcs of h1 call 4')
        self.assertEqual(len(h1), 2 * (n // 2 - 1))


class FakeRunner(HostsRunner):
    """Local hosts; congestion-control changes are recorded, not made.
    Homa metrics and the switch's queues count up by a fixed step per
    reading."""

    def __init__(self, hosts, cp_node):
        super().__init__(hosts, cp_node)
        self.prepared = []
        self.readings = 0
        self.started = []

    def start(self, i, argv, logpath, on_line=None):
        self.started.append((i, argv))
        return super().start(i, argv, logpath, on_line)

    def homa_peers(self, i):
        return PEERS if i == 0 else None

    def tcp_bytes_received(self, i, ports):
        self.readings += 1
        return 1000000 * self.readings

    def prepare(self, proto, cfg):
        self.prepared.append(proto)

    def restore(self, i=None):
        pass

    def homa_metrics(self):
        self.readings += 1
        k = self.readings
        return {i: {'incast_marked': 100 * k if i == 0 else 0,
                    'incast_responses': 0 if i == 0 else 10 * k,
                    'resends_sent': k} for i in range(self.n())}

    def switch_qdisc(self):
        self.readings += 1
        return QDISC_ALL.replace(
            'dropped 1025,', 'dropped %d,' % (7 * self.readings), 1).replace(
            'dropped 25,', 'dropped %d,' % (3 * self.readings), 1)


class ClockTest(unittest.TestCase):
    """--clock: the VM's kernel command line, and the clocksource a run
    records."""

    def test_vm_env(self):
        env = vm.vm_env('tsc', {})
        self.assertEqual(env['VM_CLOCK'], 'tsc')
        self.assertEqual(env['PYTHONUNBUFFERED'], '1')
        self.assertNotIn('VM_APPEND', env)
        env = vm.vm_env('hpet', {'VM_APPEND': 'quiet', 'VM_CLOCK': 'tsc'})
        self.assertEqual(env['VM_CLOCK'], 'hpet')
        self.assertEqual(env['VM_APPEND'], 'quiet')

    def test_options(self):
        self.assertIsNone(options.parse_args([]).clock)
        self.assertEqual(options.parse_args(['--clock', 'hpet']).clock,
                         'hpet')
        for args in (['--clock', 'kvm'],
                     ['--clock', 'tsc', '--hosts-file', 'x']):
            with contextlib.redirect_stderr(io.StringIO()), \
                    self.assertRaises(SystemExit, msg=args):
                options.parse_args(args)

    def test_recorded(self):
        hosts = parse_hosts_file('local 10.0.0.1\nlocal 10.0.0.2\n')
        runner = HostsRunner(hosts, '/bin/true')
        with unittest.mock.patch.object(
                HostsRunner, 'run', return_value=(0, 'hpet\n')) as run:
            self.assertEqual(runner.clocksource(), 'hpet')
        self.assertEqual(run.call_args[0][1],
                         ['cat', HostsRunner.CLOCKSOURCE])
        for result in ((1, 'cat: no such file\n'), (0, '')):
            with unittest.mock.patch.object(HostsRunner, 'run',
                                            return_value=result):
                self.assertIsNone(runner.clocksource())


class ExperimentTest(unittest.TestCase):
    """The experiment code shared by the VM and ssh paths, end to end."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix='cp_vs_tcp_test.')
        self.addCleanup(self._tmp.cleanup)

    def fake_cp_node(self):
        fake = os.path.join(self._tmp.name, 'cp_node')
        with open(fake, 'w') as f:
            f.write(FAKE_CP_NODE.replace('PYTHON', sys.executable))
        os.chmod(fake, 0o755)
        return fake

    def run_mode(self, args, nhosts=3):
        tmp = self._tmp.name
        fake = self.fake_cp_node()
        hosts = parse_hosts_file(''.join(
            'local 10.0.0.%d\n' % (i + 1) for i in range(nhosts)))
        cfg = options.parse_args(args + ['--results', tmp, '--progress-every',
                                     '1'])
        cfg.hosts = len(hosts)
        runner = FakeRunner(hosts, fake)
        out = os.path.join(tmp, 'out')
        os.makedirs(out)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            cli.run_experiments(runner, cfg, out)
            report = analyze(out)
        self.assertIn('summary: rpcs=', printed.getvalue())
        self.printed = printed.getvalue()
        with open(os.path.join(out, 'summary.json')) as f:
            self.assertEqual(json.load(f)['mode'], report['mode'])
        return runner, report, out

    def test_latency(self):
        runner, report, out = self.run_mode(['--seconds', '1',
                                             '--unloaded', '2',
                                             '--warmup', '3'])
        self.assertEqual(runner.prepared, ['homa', 'tcp', 'dctcp'])
        # The loaded clients (not the baseline's) get the warm-up.
        warm = [a[a.index('--warmup') + 1] if '--warmup' in a else None
                for _, a in runner.started if '--gbps' in a]
        self.assertEqual(warm, ['3'] * 9)
        self.assertFalse(any('--warmup' in a for _, a in runner.started
                             if '--unloaded' in a))
        self.assertIn('1s counted after a 3s warm-up', report['table'][1])
        # This machine's clocksource, read as on a host of the bed.
        with open(HostsRunner.CLOCKSOURCE) as f:
            clock = f.read().strip()
        self.assertEqual(report['clocksource'], clock)
        self.assertIn('\nclocksource: %s\n' % clock, self.printed)
        self.assertEqual(sorted(report['protocols']),
                         ['dctcp', 'homa', 'tcp'])
        homa = report['protocols']['homa']
        tcp = report['protocols']['tcp']
        self.assertEqual(homa['rpcs'], 3 * 200)
        # The fake's slowdowns: 1 (homa) or 3 (tcp), 10x for 1 in 10.
        self.assertAlmostEqual(homa['p50_slowdown'], 1.0, places=2)
        self.assertAlmostEqual(tcp['p50_slowdown'], 3.0, places=2)
        self.assertAlmostEqual(tcp['p99_slowdown'], 30.0, places=2)
        self.assertEqual(len(homa['deciles']), 10)
        self.assertAlmostEqual(homa['client_cpu_cores'], 3 * 0.4)
        # 3 hosts x 16 Mbit/s x 0.8.
        self.assertAlmostEqual(homa['offered_link_gbps'], 0.0384)
        # Carried: the completed RPCs' bytes, not the requests sent.
        self.assertAlmostEqual(homa['carried_fraction'], 0.8)
        self.assertAlmostEqual(homa['completed_link_gbps'], 0.048)
        self.assertTrue(any('RPCs completed 0.0480 Gbps, 80.0% of the '
                            '0.0600 Gbps generated' in l
                            for l in report['table']))
        # Per host: 2.5 MB in 1 s is 125% of a 16 Mbit/s link; completed
        # 1.5, 2 and 2.5 MB of it.
        self.assertEqual([h['host'] for h in homa['hosts']],
                         ['h0', 'h1', 'h2'])
        for h, want in zip(homa['hosts'], (0.6, 0.8, 1.0)):
            self.assertAlmostEqual(h['generated_link_fraction'], 1.25)
            self.assertAlmostEqual(h['carried_fraction'], want)
        self.assertTrue(any('h0 125.0% -> 60.0%, h1 125.0% -> 80.0%, '
                            'h2 125.0% -> 100.0%' in l
                            for l in report['table']))
        self.assertTrue(any('tenth' in l for l in report['table']))
        self.assertTrue(os.path.exists(os.path.join(out,
                                                    'homa-load-h2.rtt')))
        self.assertTrue(os.path.exists(os.path.join(out,
                                                    'tcp-server-h0.log')))

    def test_calibrate(self):
        runner, report, _ = self.run_mode(['--mode', 'calibrate', '--rates',
                                           '8,16', '--seconds', '1'])
        self.assertEqual(runner.prepared, ['homa', 'tcp', 'homa', 'tcp'])
        pts = [(p['mbps'], p['protocol']) for p in report['points']]
        self.assertEqual(pts, [(8, 'homa'), (8, 'tcp'), (16, 'homa'),
                               (16, 'tcp')])
        # 3 hosts x 0.8 x 16 Mbit/s offered; the fake reports 10 Mbit/s
        # per client.
        self.assertAlmostEqual(report['points'][2]['offered_mbps'], 38.4)
        self.assertAlmostEqual(report['points'][2]['achieved_mbps'], 30.0)

    def test_incast(self):
        runner, report, out = self.run_mode(['--mode', 'incast',
                                             '--seconds', '1',
                                             '--warmup', '2'])
        self.assertEqual(runner.prepared, ['homa', 'homa-noincast', 'tcp'])
        # Every configuration's client counts after the warm-up.
        warm = [a[a.index('--warmup') + 1] if '--warmup' in a else None
                for _, a in runner.started if '--client-max' in a]
        self.assertEqual(warm, ['2'] * 3)
        self.assertIn('1s counted after a 2s warm-up', report['table'][0])
        self.assertEqual(list(report['configs']),
                         ['homa', 'homa-noincast', 'tcp'])
        homa = report['configs']['homa']
        self.assertEqual(homa['rpcs'], 200)
        # Readings: metrics (1), switch (2), switch (3), metrics (4).
        self.assertEqual(homa['switch_drops_to_client'], 7)
        self.assertEqual(homa['band0_drops'], 3)
        self.assertTrue(os.path.exists(os.path.join(
            out, 'tcp-incast-qdisc-after.txt')))
        self.assertEqual(homa['incast_marked'], 300)
        self.assertEqual(homa['incast_responses'], 2 * 30)
        self.assertEqual(homa['resends_sent'], 3 * 3)
        self.assertNotIn('incast_marked', report['configs']['tcp'])
        self.assertTrue(report['table'][0].startswith('Incast:'))
        self.assertTrue(os.path.exists(os.path.join(
            out, 'homa-noincast-incast.rtt')))
        # The client on h0; servers on the other hosts only.
        self.assertFalse(os.path.exists(os.path.join(
            out, 'homa-server-h0.log')))
        self.assertTrue(os.path.exists(os.path.join(
            out, 'tcp-server-h2.log')))
        self.assertEqual(report['configs']['homa-noincast']['rpcs'], 200)

    def test_clients_of_two_protocols(self):
        # A job may name its own protocol: Homa and TCP in one call.
        runner = FakeRunner(parse_hosts_file(
            'local 10.0.0.1\nlocal 10.0.0.2\n'), self.fake_cp_node())
        out = self._tmp.name
        cfg = options.parse_args(['--progress-every', '1'])
        with contextlib.redirect_stdout(io.StringIO()):
            res = experiment.run_clients(runner, 'homa', 'mixed', [
                (0, ['10.0.0.2'], [], 'm-homa.rtt'),
                (1, ['10.0.0.1'], [], 'm-tcp.rtt', 'tcp')], out, cfg, 60)
        self.assertEqual([r['protocol'] for r in res], ['homa', 'tcp'])
        self.assertEqual([a[a.index('--protocol') + 1]
                          for _, a in runner.started], ['homa', 'tcp'])
        self.assertEqual(res[1]['summary']['rpcs'], 200)

    @unittest.mock.patch.object(cross, 'TCP_LEAD', 0)
    def test_rttwin(self):
        runner, report, out = self.run_mode(
            ['--mode', 'rttwin', '--sizes', '40000,500000', '--seconds',
             '1'], nhosts=4)
        # A warm-up run of the first configuration first.
        self.assertEqual(runner.prepared, ['homa'] + ['homa', 'homa-nortt']
                         * 4)
        self.assertEqual(len(report['warmup']), 1)
        self.assertEqual(report['warmup'][0]['rpcs'], 400)
        self.assertTrue(report['table'][-1].startswith(
            'warm-up run (not in the table): homa, 40K, 1 s: 400 msgs'))
        self.assertTrue(os.path.exists(os.path.join(out, 'warmup-h1.rtt')))
        rows = [(r['size'], r['cross'], r['config']) for r in report['rows']]
        self.assertEqual(rows, [
            (40000, False, 'homa'), (40000, False, 'homa-nortt'),
            (40000, True, 'homa'), (40000, True, 'homa-nortt'),
            (500000, False, 'homa'), (500000, False, 'homa-nortt'),
            (500000, True, 'homa'), (500000, True, 'homa-nortt')])
        # Homa servers on h1 and h2 only, a TCP server on h0 with cross
        # traffic; clients: two Homa ones on h0, TCP on h3.
        servers = [(i, a[a.index('--protocol') + 1])
                   for i, a in runner.started if a[1] == 'server'][2:]
        self.assertEqual(servers[:5], [(1, 'homa'), (2, 'homa'),
                                       (1, 'homa'), (2, 'homa'),
                                       (1, 'homa')])
        self.assertEqual(servers[5:8], [(2, 'homa'), (0, 'tcp'),
                                        (1, 'homa')])
        clients = [(i, a[a.index('--protocol') + 1],
                    a[a.index('--servers') + 1])
                   for i, a in runner.started if a[1] == 'client'][2:]
        # TCP first, ahead of the Homa clients.
        self.assertEqual(clients[4:7], [(3, 'tcp', '10.0.0.1'),
                                        (0, 'homa', '10.0.0.2'),
                                        (0, 'homa', '10.0.0.3')])
        tcp_argv = [a for i, a in runner.started if i == 3][0]
        self.assertIn('--one-way', tcp_argv)
        self.assertEqual(tcp_argv[tcp_argv.index('--workload') + 1],
                         '500000')
        homa_argv = [a for i, a in runner.started
                     if a[1] == 'client' and i == 0][-1]
        self.assertEqual(homa_argv[homa_argv.index('--response-bytes') + 1],
                         '500000')
        first, cross = report['rows'][0], report['rows'][2]
        # The fake client: 200 RPCs in 1 s.
        self.assertEqual(first['rpcs'], 400)
        self.assertAlmostEqual(first['goodput_mbps'], 400 * 0.32)
        self.assertIsNone(first['tcp_mbps'])
        # Readings: metrics (1), switch (2), ss (3), ss (4), switch (5):
        # 1 MB received by h0 in a short time.
        self.assertEqual(cross['tcp_mbps_from'], 'h0')
        self.assertGreater(cross['tcp_mbps'], 0)
        self.assertEqual(cross['tcp_rpcs'], 200)
        self.assertEqual(cross['switch_drops_to_h0'], 3 * 7)
        self.assertEqual(first['window'], 3000)
        # Readings: metrics (1), switch (2), switch (3), metrics (4): 3
        # resends per host, 4 hosts.
        self.assertEqual(first['resends_sent'], 12)
        self.assertEqual(first['switch_drops_to_h0'], 7)
        for name in ('homa-40000-alone-h1.rtt', 'homa-40000-tcp-tcp-h3.rtt',
                     'homa-nortt-500000-tcp-peers-h0.txt',
                     'homa-40000-tcp-tcp-server-h0.log',
                     'homa-40000-alone-server-h2.log',
                     'homa-40000-alone-qdisc-after.txt'):
            self.assertTrue(os.path.exists(os.path.join(out, name)), name)
        self.assertFalse(os.path.exists(os.path.join(
            out, 'homa-40000-alone-tcp-h3.rtt')))

    def test_loss(self):
        _, report, _ = self.run_mode(['--mode', 'loss', '--seconds', '1'])
        self.assertEqual(sorted(report['protocols']), ['homa', 'tcp'])
        self.assertEqual(report['protocols']['tcp']['completion'], 1.0)
        self.assertTrue(report['table'][0].startswith('Loss:'))


if __name__ == '__main__':
    unittest.main()
