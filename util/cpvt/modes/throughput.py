# SPDX-License-Identifier: GPL-2.0+
"""The throughput mode: one client streaming 500 KB messages (4
outstanding) to one server on an unshaped link; goodput per protocol."""

from ..experiment import per_protocol
from ..plots import plot_stream
from ..table import Table
from . import stream

NAME = 'throughput'
DEFAULTS = dict(stream.DEFAULTS, seconds=20, client_max=4,
                message_bytes=500000)
HEAD = Table(-6, 10, 10, 8, 8, 10, 9)
ROW = Table(-6, 11, 10, 8, 8, 9, 9)


def finish(cfg, error):
    pass


def results_tag(cfg):
    return cfg.mode


def records(runner, cfg, outdir):
    return per_protocol(runner, cfg, outdir, stream.run_mode)


def row(p, f):
    cpu = f.get('cpu_s_per_gb')
    return ROW.line(p, '%.4f Gbps' % f['goodput_gbps'],
                    '%.2f' % f['msgs_per_s'], '%.1f' % f['p50_ms'],
                    '%.1f' % f['p99_ms'], '%.2f' % f['client_cpu_cores'],
                    '%.2f' % cpu if cpu is not None else '-')


def analyze(raw, outdir):
    cfg = raw['config']
    heading = ['Throughput: one client, %d B messages, %d outstanding, '
               'link %s' % (cfg['message_bytes'], cfg['client_max'],
                            stream.link(cfg)),
               HEAD.line('proto', 'goodput', 'msgs/s', 'P50 ms', 'P99 ms',
                         'client CPU', 'CPU s/GB')]
    report = stream.analyze_stream(raw, outdir, heading, row)
    report['plots'] = plot_stream(report, outdir, 'goodput_gbps',
                                  'goodput (Gbps)')
    return report
