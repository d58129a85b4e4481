# SPDX-License-Identifier: GPL-2.0+
"""Tests of util/cpvt/flame.py (folding `perf script` output, the SVG
flame graph) and of the parts of util/cpvt/profile.py that need no VM:
the counters' parsers, the figures per MB, and what the analysis makes of
a profiled run's files.

Run from the repository root: test/util/run.sh."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
import unittest.mock
import xml.etree.ElementTree as ET

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, 'util'))

from cpvt import flame, profile, report  # noqa: E402

SVGNS = '{http://www.w3.org/2000/svg}'

# `perf script` output: three samples (one with a module frame that perf
# calls [kernel.kallsyms], one whose symbol is unknown), a comm with a
# space.
SCRIPT = '''\
cp_node   412 [001]    55.153312:    2004008 cpu-clock:ppp:
\tffffffffb7a592eb copy_user_enhanced_fast_string+0xb ([kernel.kallsyms])
\tffffffffc08333b1 homa_msgout_fill+0xc1 ([kernel.kallsyms])
\tffffffffc0838c98 homa_sendmsg+0x538 ([kernel.kallsyms])
\tffffffffb7000100 entry_SYSCALL_64_after_hwframe+0x64 ([kernel.kallsyms])
\t    7f00000010b0 __libc_sendmsg+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)

cp_node   412 [001]    55.155312:    2004008 cpu-clock:ppp:
\tffffffffc08333b1 homa_msgout_fill+0xc1 ([kernel.kallsyms])
\tffffffffc0838c98 homa_sendmsg+0x538 ([kernel.kallsyms])
\tffffffffb7000100 entry_SYSCALL_64_after_hwframe+0x64 ([kernel.kallsyms])
\t    7f00000010b0 __libc_sendmsg+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)

kworker/0:1 my   77 [000]    55.157312:    2004008 cpu-clock:ppp:
\t          12fcf1 [unknown] (/usr/bin/perf)
\t               0 [unknown] ([unknown])

swapper     0 [000]    55.159312:    2004008 cpu-clock:ppp:
\tffffffffb7a592eb native_safe_halt+0xb ([kernel.kallsyms])
\tffffffffb70fbb86 do_idle+0x206 ([kernel.kallsyms])
'''

KALLSYMS = '''\
ffffffffb7a592e0 T native_safe_halt
ffffffffc08332f0 t homa_msgout_fill\t[homa]
ffffffffc0838760 T homa_sendmsg\t[homa]
'''


class FoldTest(unittest.TestCase):
    def test_module_symbols(self):
        self.assertEqual(flame.module_symbols(KALLSYMS),
                         {'homa_msgout_fill': 'homa',
                          'homa_sendmsg': 'homa'})

    def test_fold(self):
        mods = flame.module_symbols(KALLSYMS)
        c = flame.fold(io.StringIO(SCRIPT), mods)
        self.assertEqual(c, {
            'cp_node;__libc_sendmsg;entry_SYSCALL_64_after_hwframe [k];'
            'homa_sendmsg [homa];homa_msgout_fill [homa];'
            'copy_user_enhanced_fast_string [k]': 1,
            'cp_node;__libc_sendmsg;entry_SYSCALL_64_after_hwframe [k];'
            'homa_sendmsg [homa];homa_msgout_fill [homa]': 1,
            'kworker/0:1 my;[unknown];[perf]': 1,
            'swapper;do_idle [k];native_safe_halt [k]': 1})

    def test_fold_without_module_symbols(self):
        c = flame.fold(SCRIPT.splitlines(True))
        self.assertIn('cp_node;__libc_sendmsg;'
                      'entry_SYSCALL_64_after_hwframe [k];homa_sendmsg [k];'
                      'homa_msgout_fill [k]', c)

    def test_frame_names(self):
        self.assertEqual(flame.frame_name('foo+0x1f', '[kernel.kallsyms]'),
                         'foo [k]')
        self.assertEqual(flame.frame_name('bar', '[homa]'), 'bar [homa]')
        self.assertEqual(flame.frame_name('[unknown]', '/usr/bin/cp_node'),
                         '[cp_node]')
        self.assertEqual(flame.frame_name('baz', '[vdso]'), 'baz')
        self.assertEqual(flame.frame_name('a;b', '/x'), 'a;b')
        self.assertEqual(flame._clean('a;b'), 'a:b')

    def test_folded_round_trip(self):
        c = {'a;b;c': 3, 'a;b': 2, 'x y;z': 1}
        text = flame.folded_text(c)
        self.assertEqual(text, 'a;b 2\na;b;c 3\nx y;z 1\n')
        self.assertEqual(flame.parse_folded(text + 'junk\n\n'), c)

    def test_tree(self):
        root = flame.tree({'a;b;c': 3, 'a;b': 2, 'a;d': 1, 'e': 4})
        self.assertEqual(root.count, 10)
        self.assertEqual(root.children['a'].count, 6)
        self.assertEqual(root.children['a'].children['b'].count, 5)
        self.assertEqual(root.children['a'].children['b'].children['c']
                         .count, 3)


def rects(svg_text):
    """(x, y, width, samples, title) of every frame of an SVG text."""
    doc = ET.fromstring(svg_text)
    out = []
    for g in doc.iter(SVGNS + 'g'):
        r = g.find(SVGNS + 'rect')
        out.append((float(r.get('x')), float(r.get('y')),
                    float(r.get('width')), int(r.get('data-samples')),
                    g.find(SVGNS + 'title').text))
    return out


class SvgTest(unittest.TestCase):
    COUNTS = {'cp_node;a;b;c': 30, 'cp_node;a;b': 20, 'cp_node;a;d <x>': 10,
              'swapper;idle': 40}

    def test_parses_and_widths_add_up(self):
        text = flame.svg(self.COUNTS, 'T & <t>', width=1000, min_width=0)
        rs = rects(text)
        # One rect per node of the tree: all, cp_node, a, b, c, d, swapper,
        # idle.
        self.assertEqual(len(rs), 8)
        scale = (1000 - 20) / 100.0
        for x, y, w, n, title in rs:
            self.assertAlmostEqual(w, n * scale, places=1)
        root = max(rs, key=lambda r: r[1])
        self.assertAlmostEqual(root[2], 980, places=1)
        self.assertEqual(root[3], 100)
        # Each level's widths add up to its parent's (or less: samples in
        # the parent itself).
        by_y = {}
        for x, y, w, n, _ in rs:
            by_y.setdefault(y, []).append((x, w, n))
        ys = sorted(by_y, reverse=True)
        for parent_y, child_y in zip(ys, ys[1:]):
            self.assertLessEqual(sum(w for _, w, _ in by_y[child_y]),
                                 sum(w for _, w, _ in by_y[parent_y]) + 1e-6)
        # Children lie within their parent: cp_node's callees in [x, x+w].
        cp = [r for r in rs if r[4].startswith('cp_node ')][0]
        a = [r for r in rs if r[4].startswith('a ')][0]
        self.assertGreaterEqual(a[0], cp[0] - 1e-6)
        self.assertLessEqual(a[0] + a[2], cp[0] + cp[2] + 1e-6)

    def test_tooltips(self):
        titles = [r[4] for r in rects(flame.svg(self.COUNTS, min_width=0))]
        self.assertIn('a (60 samples, 60.00%)', titles)
        self.assertIn('d <x> (10 samples, 10.00%)', titles)
        self.assertIn('all (100 samples, 100.00%)', titles)

    def test_narrow_frames_left_out(self):
        counts = {'a': 100000, 'b;c': 1}
        self.assertEqual(len(rects(flame.svg(counts, min_width=0))), 4)
        self.assertEqual(len(rects(flame.svg(counts, min_width=0.1))), 2)

    def test_empty(self):
        doc = ET.fromstring(flame.svg({}))
        self.assertEqual(doc.tag, SVGNS + 'svg')

    def test_command(self):
        with tempfile.TemporaryDirectory() as d:
            ks = os.path.join(d, 'kallsyms')
            with open(ks, 'w') as f:
                f.write(KALLSYMS)
            out = io.StringIO()
            with contextlib.redirect_stdout(out), \
                    unittest.mock.patch('sys.stdin', io.StringIO(SCRIPT)):
                flame.main(['fold', '--kallsyms', ks])
            self.assertIn('homa_sendmsg [homa]', out.getvalue())
            svg = io.StringIO()
            with contextlib.redirect_stdout(svg), \
                    unittest.mock.patch('sys.stdin',
                                        io.StringIO(out.getvalue())):
                flame.main(['svg', '--title', 'x'])
            self.assertEqual(len(rects(svg.getvalue())), 13)


SNMP = '''\
Ip: Forwarding DefaultTTL InReceives
Ip: 1 64 1000
Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens InSegs OutSegs RetransSegs
Tcp: 1 200 120000 -1 5 %d %d 2
Udp: InDatagrams
Udp: 7
'''

NETDEV = '''\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    \
packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0 \
      0    0    0    0     0       0          0
  eth0: 5000000     %d    0    0    0     0          0         0 9000000 \
    %d    0    0    0     0       0          0
'''


class CountersTest(unittest.TestCase):
    def test_parse_snmp(self):
        s = profile.parse_snmp(SNMP % (10, 20))
        self.assertEqual(s['Tcp.InSegs'], 10)
        self.assertEqual(s['Tcp.OutSegs'], 20)
        self.assertEqual(s['Tcp.MaxConn'], -1)
        self.assertEqual(s['Udp.InDatagrams'], 7)
        self.assertEqual(s['Ip.InReceives'], 1000)

    def test_parse_netdev(self):
        self.assertEqual(profile.parse_netdev(NETDEV % (3, 4)),
                         {'lo': (0, 0, 0), 'eth0': (3, 4, 9000000)})

    def test_uplinks(self):
        # h0 sent 1 MB in 2 s of a 8 Mbit/s link (half of it), h1 all of
        # it; h2 has no eth0 figure and is left out.
        before = {0: {'dev.tx_bytes': 500}, 1: {'dev.tx_bytes': 0},
                  2: {}}
        after = {0: {'dev.tx_bytes': 500 + 1000000},
                 1: {'dev.tx_bytes': 2000000}, 2: {}}
        up = profile.uplinks(before, after, 2.0, 8)
        self.assertEqual([i for i, _ in up['busy']], [0, 1])
        self.assertAlmostEqual(up['busy'][0][1], 0.5)
        self.assertAlmostEqual(up['busy'][1][1], 1.0)
        self.assertEqual(profile.uplink_line(up),
                         'uplinks busy (eth0 bytes sent, headers included, '
                         "over the phase's 2.0 s at 8 Mbit/s): h0 50.0%, "
                         'h1 100.0%')
        self.assertIsNone(profile.uplinks(before, after, 2.0, None))
        self.assertIsNone(profile.uplinks(before, after, 0, 8))
        self.assertIsNone(profile.uplinks({2: {}}, {2: {}}, 2.0, 8))
        self.assertEqual(profile.uplink_line(None), '')

    def test_per_mb(self):
        before = {0: {'homa.pkts_tx_data': 10, 'homa.pkts_tx_grant': 1,
                      'Tcp.OutSegs': 5},
                  1: {'homa.pkts_rx_data': 10, 'homa.pkts_tx_grant': 0}}
        after = {0: {'homa.pkts_tx_data': 110, 'homa.pkts_tx_grant': 1,
                     'Tcp.OutSegs': 5, 'dev.tx_packets': 120},
                 1: {'homa.pkts_rx_data': 110, 'homa.pkts_tx_grant': 50}}
        figs, sums = profile.per_mb(before, after, 2e6)
        self.assertEqual(sums['homa.pkts_tx_grant'], 50)
        self.assertAlmostEqual(figs['homa_data_tx'], 50)
        self.assertAlmostEqual(figs['homa_data_rx'], 50)
        self.assertAlmostEqual(figs['homa_grants_tx'], 25)
        self.assertAlmostEqual(figs['homa_pkts_tx'], 75)
        self.assertAlmostEqual(figs['tcp_segs_out'], 0)
        self.assertAlmostEqual(figs['dev_skbs_tx'], 60)
        self.assertNotIn('tcp_segs_in', figs)
        self.assertEqual(profile.per_mb(before, after, 0)[0], {})
        line = profile.per_mb_line('homa-throughput', figs, 2e6)
        self.assertTrue(line.startswith(
            'per MB (homa-throughput, 2.0 MB goodput): homa pkts tx 75.0, '))
        self.assertIn('GRANTs 25.0', line)
        self.assertNotIn('tcp', line)
        self.assertIn('tcp segs out 0.0',
                      profile.per_mb_line('tcp-throughput', figs, 2e6))

    def test_goodput_bytes(self):
        self.assertEqual(profile.goodput_bytes([
            {'summary': {'bytes_out': 1000, 'bytes_in': 10}},
            {'summary': {'gbps_out': 0.008, 'seconds': 2.0}},
            {'summary': None}]), 1010 + 2e6)

    def test_tags(self):
        self.assertEqual(profile.tag_of('homa', 'calibrate 16'),
                         'homa-calibrate_16')
        self.assertIsNone(profile.begin(None, None, None, 'homa',
                                        'baseline'))


# A stand-in for perf: runs the workload after "--" a moment later (as
# perf does once set up), then says how it ended.
FAKE_PERF = """#!/bin/sh
while [ "$1" != "--" ]; do shift; done
shift
sleep 0.3
"$@"
echo "workload ended: $?"
"""


class PerfStopTest(unittest.TestCase):
    """start_perf waits for the workload; stop_perf ends it by the fifo."""

    def test_start_stop(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, 'perf')
            with open(fake, 'w') as f:
                f.write(FAKE_PERF)
            os.chmod(fake, 0o755)
            with unittest.mock.patch.object(profile, 'PERF', fake), \
                    unittest.mock.patch.object(profile, 'perf_env',
                                               lambda: None), \
                    contextlib.redirect_stdout(io.StringIO()) as out:
                perf = profile.start_perf(d, 'homa-x', 99)
                # Sampling: the workload runs and waits.
                self.assertIsNone(perf[0].poll())
                self.assertIn('sampling after', out.getvalue())
                profile.stop_perf(perf)
            self.assertEqual(perf[0].returncode, 0)
            self.assertFalse(os.path.exists(perf[2]))
            with open(os.path.join(d, 'homa-x-perf.log')) as f:
                self.assertEqual(f.read(), 'workload ended: 0\n')


class WatchedTest(unittest.TestCase):
    """What the analysis makes of a profiled run's files."""

    def test_watched(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'homa-throughput.folded'), 'w') as f:
                f.write(flame.folded_text(flame.fold(io.StringIO(SCRIPT))))
            with open(os.path.join(d, 'homa-throughput-perf-report.txt'),
                      'w') as f:
                f.write('== perf report --children ==\n  9%  x\n\n'
                        '== perf report --no-children (top) ==\n'
                        '  50.00%  [k] native_safe_halt\n'
                        '  25.00%  [k] homa_msgout_fill\n')
            with open(os.path.join(d, 'homa-throughput-counters.json'),
                      'w') as f:
                json.dump({'tag': 'homa-throughput', 'goodput_bytes': 1e6,
                           'per_mb': {'homa_grants_tx': 3.0}}, f)
            rep = {}
            lines = report.watched(d, rep)
            svg = os.path.join(d, 'homa-throughput-flame.svg')
            self.assertEqual(rep['flame_graphs'], [svg])
            self.assertEqual(rep['per_mb'],
                             {'homa-throughput': {'homa_grants_tx': 3.0}})
            self.assertEqual(lines[0], 'per MB (homa-throughput, 1.0 MB '
                             'goodput): GRANTs 3.0')
            self.assertEqual(lines[2:], ['  50.00%  [k] native_safe_halt',
                                         '  25.00%  [k] homa_msgout_fill'])
            with open(svg) as f:
                self.assertEqual(len(rects(f.read())), 13)


if __name__ == '__main__':
    unittest.main()
