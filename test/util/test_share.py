# SPDX-License-Identifier: GPL-2.0+
"""Unit tests of util/cp_vs_tcp's share mode (util/cpvt/modes/share.py),
what it shares with the rttwin mode (util/cpvt/cross.py), the parser of
`tc -s filter show` and the --link-mbps option: synthetic inputs, a fake
runner and a fake cp_node (test_cp_vs_tcp.py); no VM and no Homa."""

import contextlib
import io
import json
import os
import sys
import tempfile
import time
import unittest
import unittest.mock

import test_cp_vs_tcp as base  # noqa: E402 (sys.path set up there)

from cpvt import cross, options, parse, report, testbed  # noqa: E402
from cpvt.modes import share  # noqa: E402



def filter_block(pref, ht, proto, nbytes, pkts):
    """One filter of `tc -s filter show dev eth0 ingress` (iproute2 6.1)
    as NetnsRunner.count_rx adds them: u32 on the IPv4 protocol PROTO,
    a gact action that counted NBYTES bytes in PKTS packets."""
    head = 'filter protocol ip pref %d u32 chain 0' % pref
    return '\n'.join([
        head, '%s fh %x: ht divisor 1' % (head, ht),
        '%s fh %x::800 order 2048 key ht %x bkt 0 not_in_hw  (rule hit '
        '%d success %d)' % (head, ht, ht, pkts, pkts),
        '  match 00%02x0000/00ff0000 at 8 (success %d )' % (proto, pkts),
        '\taction order 1: gact action pass',
        '\t random type none pass val 0',
        '\t index %d ref 1 bind 1 installed 12 sec used 0 sec' % pref,
        '\tAction statistics:',
        '\tSent %d bytes %d pkt (dropped 0, overlimits 0 requeues 0)' % (
            nbytes, pkts),
        '\tbacklog 0b 0p requeues 0', ''])


# h0's two counting filters: Homa (pref 1), TCP (pref 2).
FILTERS = (filter_block(1, 0x800, 146, 1500000, 1000) + '\n' +
           filter_block(2, 0x801, 6, 30000, 20))


class FilterParseTest(unittest.TestCase):
    def test_bytes_per_pref(self):
        self.assertEqual(parse.parse_filter_bytes(FILTERS),
                         {1: 1500000, 2: 30000})
        self.assertEqual(parse.parse_filter_bytes(''), {})
        self.assertEqual(parse.parse_filter_bytes(None), {})
        # A Sent line before any filter is nobody's.
        self.assertEqual(parse.parse_filter_bytes(
            ' Sent 5 bytes 1 pkt\n'), {})


class LinkMbpsTest(unittest.TestCase):
    def test_sets_homa_link_mbps_in_every_mode(self):
        for mode in ('latency', 'throughput', 'loss', 'calibrate',
                     'incast', 'rttwin', 'share'):
            cfg = options.parse_args(['--mode', mode, '--link-mbps',
                                      '25000'])
            a = testbed.testbed_args(cfg, cfg.protocols[0])
            self.assertIn('link_mbps=25000', a, mode)
            # After the rate util/testbed sets it from, before the
            # user's other settings.
            self.assertLess(a.index('--mbps'), a.index('link_mbps=25000'))

    def test_with_other_settings_and_variants(self):
        cfg = options.parse_args(['--mode', 'share', '--link-mbps', '16',
                                  '--homa-sysctl', 'window=0'])
        self.assertEqual(testbed.homa_sysctls(
            cfg, 'homa-react', {'rtt_congestion_react': '0'}),
            ['link_mbps=16', 'window=0', 'rtt_congestion_react=1'])
        self.assertEqual(testbed.homa_sysctls(
            cfg, 'homa', {'rtt_congestion_react': '0'}),
            ['rtt_congestion_react=0', 'link_mbps=16', 'window=0'])
        # homa-share sets both of its settings; the runs of other
        # variants put both back.
        share_defaults = {'rtt_congestion_react': '0',
                          'sched_ip_priority': '-1'}
        self.assertEqual(testbed.homa_sysctls(
            cfg, 'homa-share', share_defaults),
            ['link_mbps=16', 'window=0', 'rtt_congestion_react=5',
             'sched_ip_priority=0'])
        self.assertEqual(testbed.homa_sysctls(
            cfg, 'homa', share_defaults),
            ['rtt_congestion_react=0', 'sched_ip_priority=-1',
             'link_mbps=16', 'window=0'])
        cfg = options.parse_args([])
        self.assertNotIn('link_mbps', ' '.join(testbed.testbed_args(cfg)))

    def test_errors(self):
        base.assert_rejected(self, [], (
            ['--link-mbps', '0'], ['--link-mbps', 'x'],
            ['--link-mbps', '16', '--homa-sysctl', 'link_mbps=16']))

    def test_note_under_the_table(self):
        self.assertIsNone(report.link_mbps_note({'mbps': 16}))
        self.assertEqual(
            report.link_mbps_note({'mbps': 16, 'link_mbps': 25000}),
            'net.homa.link_mbps=25000 on every host (--link-mbps; the '
            'links run at 16 Mbit/s)')


class ShareOptionsTest(unittest.TestCase):
    def test_defaults(self):
        cfg = options.parse_args(['--mode', 'share'])
        self.assertEqual(
            (cfg.hosts, cfg.mbps, cfg.seconds, cfg.client_max,
             cfg.unloaded, cfg.protocols, cfg.workloads, cfg.tcp_flows),
            (4, 16, 12, 4, 2, ['homa', 'homa-react'],
             ['w4', 'w5', '100000', '1000000'], [1]))
        # Other modes keep their baseline count.
        self.assertEqual(options.parse_args([]).unloaded, 5)
        self.assertIsNone(options.parse_args([]).workloads)

    def test_overrides(self):
        cfg = options.parse_args(['--mode', 'share', '--workloads',
                                  'w4,50000', '--tcp-flows', '1,4',
                                  '--unloaded', '3', '--seconds', '20'])
        self.assertEqual((cfg.workloads, cfg.tcp_flows, cfg.unloaded,
                          cfg.seconds), (['w4', '50000'], [1, 4], 3, 20))

    def test_errors(self):
        base.assert_rejected(self, ['--mode', 'share'], (
            ['--hosts', '3'], ['--protocols', 'homa,tcp'],
            ['--tcp-flows', '0'], ['--tcp-flows', '5'],
            ['--tcp-flows', 'x'], ['--workloads', ','],
            ['--workloads', '2000000'], ['--mbps', '0']))


class ShareHelpersTest(unittest.TestCase):
    def test_window_rates(self):
        s = [(0.0, {'homa': 0, 'tcp': 0}),
             (1.0, {'homa': 1000000, 'tcp': 0}),
             (2.0, {'homa': 2000000, 'tcp': 500000}),
             (3.0, {'homa': 2500000, 'tcp': 1500000})]
        # From the sample at 1 s to the one at 3 s.
        r = share.window_rates(s, 0.5, 3.0)
        self.assertAlmostEqual(r['homa'], 1.5 * 8 / 2)
        self.assertAlmostEqual(r['tcp'], 1.5 * 8 / 2)
        self.assertIsNone(share.window_rates(s, 0.5, 1.5))
        self.assertIsNone(share.window_rates([], 0, 10))

    def test_share_series(self):
        s = [(0.0, {'homa': 0, 'tcp': 0}),
             (1.0, {'homa': 1000000, 'tcp': 1000000}),
             (1.0, {'homa': 1000000, 'tcp': 1000000}),
             (3.0, {'homa': 1000000, 'tcp': 5000000})]
        self.assertEqual(share.share_series(s, 16), [
            (1.0, {'homa': 0.5, 'tcp': 0.5}),
            (3.0, {'homa': 0.0, 'tcp': 1.0})])

    def test_short_half(self):
        # (size, slowdown, rtt): sizes 1..4, twice each.
        slow = [(s, 10 * s + k, 0) for s in (1, 2, 3, 4) for k in (0, 1)]
        self.assertEqual(share.short_half(slow), [10, 11, 20, 21])
        # One size: all of them, whatever their order.
        self.assertEqual(share.short_half([(5, 3, 0), (5, 1, 0),
                                           (5, 2, 0)]), [1, 2, 3])
        self.assertEqual(share.short_half([]), [])

    def test_band_cell(self):
        self.assertEqual(share.band_cell({'7': 12, '0': 0, '10': 1,
                                          '2': 3}), '2:3,7:12,10:1')
        self.assertEqual(share.band_cell({'7': 0}), '0')
        self.assertEqual(share.band_cell(None), '-')

    def test_sampler(self):
        n = []
        s = cross.Sampler(lambda: n.append(1) or (len(n) if len(n) != 2
                                                   else None), 0.01)
        s.start()
        time.sleep(0.1)
        samples = s.stop()
        self.assertGreater(len(samples), 2)
        # The second reading was None: left out.
        self.assertEqual([v for _, v in samples[:2]], [1, 3])
        self.assertTrue(all(a[0] <= b[0] for a, b in zip(samples,
                                                         samples[1:])))
        self.assertGreaterEqual(s.elapsed(), samples[-1][0])

    def test_guarded(self):
        def fails():
            raise RuntimeError('server on h0 did not start')
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(cross.guarded('t', fails, {'a': 1}), {
                'a': 1, 'failed': 'server on h0 did not start'})
        self.assertEqual(cross.guarded('t', lambda: {'b': 2}, {}),
                         {'b': 2})

    def test_tcp_figures(self):
        self.assertEqual(cross.tcp_figures({}), {
            'tcp_rpcs': None, 'tcp_errors': None, 'tcp_mbps': None,
            'tcp_mbps_from': None})
        f = cross.tcp_figures({'tcp_rx_bytes': 2000000,
                               'tcp_rx_seconds': 2.0})
        self.assertEqual((f['tcp_mbps'], f['tcp_mbps_from']), (8.0, 'h0'))

    def test_tcp_samples(self):
        texts = {3: 'a\n', 0: None}
        runner = unittest.mock.Mock(tcp_info=lambda i: texts[i])
        read = cross.tcp_info_sampler(runner, [3, 0], 1).fn
        # A host without ss is left out; no host at all: no reading.
        self.assertEqual(read(), '--- h3\na\n')
        texts[3] = None
        self.assertIsNone(read())
        rec = {}
        with contextlib.ExitStack() as stack:
            d = stack.enter_context(tempfile.TemporaryDirectory())
            cross.save_tcp_samples(rec, d, 't', [])
            self.assertEqual((rec, os.listdir(d)), ({}, []))
            cross.save_tcp_samples(rec, d, 't', [(0.04, 'x\n'),
                                                 (2.0, 'y\n')])
            self.assertEqual(rec, {'ss_files': ['t-ss-during.txt']})
            with open(os.path.join(d, 't-ss-during.txt')) as f:
                self.assertEqual(f.read(), '=== 0.0 s\nx\n=== 2.0 s\ny\n')


class ShareAnalyzeTest(base.OutDirTest):
    """The share mode's rows and table from a synthetic raw.json and
    cp_node output files."""

    CFG = {'mode': 'share', 'mbps': 16, 'seconds': 10, 'client_max': 4}

    def rtt_file(self, name, pairs):
        self.write(name, '# request_length_bytes rtt_ns\n' + ''.join(
            '%d %d\n' % p for p in pairs))

    @staticmethod
    def client(name, rpcs, seconds=10.0, errors=0, proto='homa'):
        return {'host': 1, 'rc': 0, 'file': name, 'protocol': proto,
                'summary': {'rpcs': rpcs, 'errors': errors,
                            'seconds': seconds}}

    def raw(self):
        # Unloaded: 1000 B take 1 ms, 100000 B 10 ms.
        self.rtt_file('base.rtt', [(1000, 1000000), (100000, 10000000)])
        # Alone: 1000 B messages at 2 ms (slowdown 2), 100000 B ones.
        self.rtt_file('a-h1.rtt', [(1000, 2000000)] * 50 +
                      [(100000, 30000000)] * 50)
        self.rtt_file('a-h2.rtt', [])
        # Beside TCP: the short ones at 1..100 ms (slowdowns 1..100).
        self.rtt_file('t-h1.rtt', [(1000, k * 1000000)
                                   for k in range(1, 101)] +
                      [(100000, 50000000)] * 100)
        samples = [(0.0, {'homa': 0, 'tcp': 0}),
                   (3.0, {'homa': 0, 'tcp': 6000000}),
                   (4.0, {'homa': 1000000, 'tcp': 7000000}),
                   (14.0, {'homa': 11000000, 'tcp': 17000000})]
        hm = {'0': {'rtt_congested': 5, 'rtt_uncongested': 4,
                    'grant_scale_cuts': 3, 'grant_scale_grows': 2},
              '1': {'rtt_congested': 1}}
        return {'config': self.CFG, 'hosts': self.HOSTS,
                'protocols': [
                    {'kind': 'warmup', 'protocol': 'homa',
                     'workload': 'w4', 'flows': 0,
                     'failed': 'server on h0 did not start'},
                    {'kind': 'baseline', 'protocol': 'homa',
                     'workload': 'w4',
                     'baseline': [self.client('base.rtt', 2)]},
                    {'kind': 'run', 'protocol': 'homa', 'workload': 'w4',
                     'flows': 0, 'loaded': [self.client('a-h1.rtt', 100),
                                            self.client('a-h2.rtt', 0)],
                     'homa_sysctls': ['link_mbps=25000']},
                    {'kind': 'run', 'protocol': 'homa', 'workload': 'w4',
                     'flows': 2, 'loaded': [self.client('t-h1.rtt', 200,
                                                        errors=1)],
                     'tcp_bytes': 500000, 'tcp_rx_bytes': 10000000,
                     'tcp_rx_seconds': 10.0,
                     'switch_drops': {'p0': 7},
                     'switch_band_drops': {'7': 6, '0': 1, '1': 0},
                     'p0_sent_bytes': 19000000, 'p0_seconds': 10.0,
                     'homa_metrics': hm, 'rx_samples': samples,
                     'homa_t0': 3.5, 'homa_t1': 14.0,
                     'homa_sysctls': ['link_mbps=25000'],
                     'cpu_busy': [0.4]},
                    {'kind': 'run', 'protocol': 'homa-react',
                     'workload': 'w5', 'flows': 1,
                     'failed': 'server on h0 did not start'}]}

    def test_rows(self):
        rep = share.analyze_share(self.raw(), self.out)
        alone, cross_, failed = rep['rows']
        # 50 x 1000 + 50 x 100000 B in 10 s.
        self.assertAlmostEqual(alone['homa_mbps'], 5050000 * 8 / 1e7)
        self.assertAlmostEqual(alone['homa_share'], 5.05 * 0.8 / 16)
        self.assertEqual((alone['rpcs'], alone['errors']), (100, 0))
        # The short half: the 1000 B messages, all at slowdown 2.
        self.assertEqual((alone['short_n'], alone['short_p50'],
                          alone['short_p99']), (50, 2.0, 2.0))
        self.assertIsNone(alone['tcp_mbps'])
        self.assertIsNone(alone['tcp_share'])
        self.assertIsNone(alone['wire_share'])
        self.assertNotIn('short_p99_vs_alone', alone)

        self.assertAlmostEqual(cross_['short_p50'], 50.0)
        self.assertAlmostEqual(cross_['short_p99'], 99.0)
        self.assertAlmostEqual(cross_['short_p99_vs_alone'], 99.0 / 2)
        self.assertAlmostEqual(cross_['tcp_mbps'], 8.0)
        self.assertAlmostEqual(cross_['tcp_share'], 0.5)
        self.assertAlmostEqual(cross_['p0_share'], 15.2 / 16)
        # Wire: from the sample at 4 s to the one at 14 s.
        self.assertAlmostEqual(cross_['wire_mbps']['homa'], 8.0)
        self.assertAlmostEqual(cross_['wire_share']['tcp'], 0.5)
        self.assertEqual(len(cross_['series']), 3)
        self.assertEqual(cross_['congestion'], {
            'rtt_congested': 6, 'rtt_uncongested': 4,
            'grant_scale_cuts': 3, 'grant_scale_grows': 2})
        self.assertEqual(cross_['congestion_h0']['rtt_congested'], 5)
        self.assertEqual(failed['failed'], 'server on h0 did not start')
        self.assertEqual(rep['baselines']['w4'][0],
                         {'bytes': 1000, 'rtt_us': 1000.0})

    def test_table(self):
        t = share.analyze_share(self.raw(), self.out)['table']
        self.assertTrue(t[0].startswith('Share of h0\'s downlink:'))
        self.assertEqual(t[3].split(), [
            'w4', '0', 'homa', '100', '0', '4.04', '25%', '-', '-', '-',
            '-', '2.0', '2.0', '-', '-', '-', '-', '-', '-'])
        self.assertEqual(t[4].split(), [
            'w4', '2', 'homa', '200', '1', '8.08', '50%', '8.00', '50%',
            '95%', '50/50', '50.0', '99.0', '49.5', '0:1,7:6', '6', '4',
            '3', '2'])
        self.assertEqual(t[5].split()[:4], ['w5', '1', 'homa-react',
                                            'failed:'])
        self.assertIn('homa: net.homa link_mbps=25000', t)
        self.assertIn('warm-up run (not in the table): homa, w4: server '
                      'on h0 did not start', t)

    def test_missing_baseline(self):
        raw = self.raw()
        raw['protocols'][1] = {'kind': 'baseline', 'protocol': 'homa',
                               'workload': 'w4', 'failed': 'timeout'}
        rep = share.analyze_share(raw, self.out)
        self.assertIsNone(rep['rows'][0]['short_p99'])
        self.assertIn('w4 baseline failed: timeout', rep['table'])

    def test_plot(self):
        rep = share.analyze(self.raw(), self.out)
        self.assertEqual([os.path.basename(p) for p in rep['plots']],
                         ['shares.png'])
        self.assertTrue(os.path.exists(os.path.join(self.out,
                                                    'shares.png')))


class ShareRunner(base.FakeRunner):
    """The fake runner, with h0's received bytes per protocol counting up
    by a fixed step per reading."""

    def __init__(self, hosts, cp_node):
        super().__init__(hosts, cp_node)
        self.rx = 0
        self.counting = []

    def count_rx(self, i):
        self.counting.append(i)

    def rx_bytes(self, i):
        self.rx += 1
        return {'homa': 100000 * self.rx, 'tcp': 50000 * self.rx}

    def tcp_info(self, i):
        return 'ss -tin of h%d\n' % i


class ShareExperimentTest(base.ExperimentTest):
    """The share mode end to end through the fake runner."""

    @unittest.mock.patch.object(cross, 'TCP_LEAD', 0)
    @unittest.mock.patch.object(share, 'SAMPLE_EVERY', 0.01)
    @unittest.mock.patch.object(share, 'SS_EVERY', 0.01)
    def test_share(self):
        with unittest.mock.patch.object(base, 'FakeRunner', ShareRunner):
            runner, rep, out = self.run_mode(
                ['--mode', 'share', '--seconds', '1', '--workloads',
                 'w4,100000', '--tcp-flows', '1,3'], nhosts=4)
        self.assertEqual(runner.counting, [0])
        # Warm-up, then per workload: baseline, alone, 1 TCP, 3 TCP.
        self.assertEqual(runner.prepared, ['homa'] + (
            ['homa'] + ['homa', 'homa-react'] * 3) * 2)
        rows = [(r['workload'], r['flows'], r['config'])
                for r in rep['rows']]
        self.assertEqual(rows[:6], [
            ('w4', 0, 'homa'), ('w4', 0, 'homa-react'), ('w4', 1, 'homa'),
            ('w4', 1, 'homa-react'), ('w4', 3, 'homa'),
            ('w4', 3, 'homa-react')])
        self.assertEqual(len(rows), 12)
        clients = [(i, a[a.index('--protocol') + 1], a)
                   for i, a in runner.started if a[1] == 'client']
        # The baseline: h1 -> h0, unloaded, one-way.
        i, proto, argv = clients[2]
        self.assertEqual((i, proto), (1, 'homa'))
        self.assertIn('--unloaded', argv)
        self.assertIn('--one-way', argv)
        # 3 TCP flows: 3 connections from h3 to h0.
        tcp = [a for i, p, a in clients if p == 'tcp']
        self.assertEqual([a[a.index('--ports') + 1] for a in tcp],
                         ['1', '1', '3', '3'] * 2)
        self.assertTrue(all(a[a.index('--servers') + 1] == '10.0.0.1'
                            for a in tcp))
        homa = [a for i, p, a in clients if p == 'homa' and
                '--unloaded' not in a]
        self.assertEqual(homa[0][homa[0].index('--client-max') + 1], '4')
        r = rep['rows'][2]
        self.assertIsNotNone(r['short_p99'])
        self.assertGreater(r['tcp_mbps'], 0)
        self.assertIsNotNone(r['wire_share'])
        self.assertTrue(r['series'])
        self.assertEqual(os.path.basename(rep['plots'][0]), 'shares.png')
        with open(os.path.join(out, 'raw.json')) as f:
            raw = json.load(f)
        self.assertEqual([p['kind'] for p in raw['protocols']][:3],
                         ['warmup', 'baseline', 'run'])
        for name in ('homa-w4-1tcp-h1.rtt', 'homa-react-100000-3tcp-tcp-h3'
                     '.rtt', 'baseline-w4.rtt', 'warmup-h2.rtt'):
            self.assertTrue(os.path.exists(os.path.join(out, name)), name)
        # The TCP flows' windows as a run with TCP ends, from both ends.
        runs = [p for p in raw['protocols'] if p['kind'] == 'run']
        self.assertEqual(runs[2]['ss_files'], ['homa-w4-1tcp-ss-h0.txt',
                                               'homa-w4-1tcp-ss-h3.txt',
                                               'homa-w4-1tcp-ss-during.txt'])
        with open(os.path.join(out, 'homa-w4-1tcp-ss-h3.txt')) as f:
            self.assertEqual(f.read(), 'ss -tin of h3\n')
        # ... and while it lasts: h3 (the sender) first, then h0.
        with open(os.path.join(out, 'homa-w4-1tcp-ss-during.txt')) as f:
            during = f.read().split('=== ')[1:]
        self.assertGreaterEqual(len(during), 2)
        for reading in during:
            head, body = reading.split('\n', 1)
            self.assertRegex(head, r'^\d+\.\d s$')
            self.assertEqual(body, '--- h3\nss -tin of h3\n'
                             '--- h0\nss -tin of h0\n')
        self.assertNotIn('ss_files', runs[0])
        self.assertFalse(os.path.exists(os.path.join(
            out, 'homa-w4-alone-ss-h0.txt')))


if __name__ == '__main__':
    sys.exit(unittest.main())
