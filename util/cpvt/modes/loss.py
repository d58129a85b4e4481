# SPDX-License-Identifier: GPL-2.0+
"""The loss mode: 1 MB messages through 10% loss in every switch band;
completed and failed messages, P50/P99 and goodput per protocol."""

from ..experiment import per_protocol
from ..plots import plot_stream
from ..table import Table
from . import stream

NAME = 'loss'
DEFAULTS = dict(stream.DEFAULTS, seconds=30, client_max=2,
                message_bytes=1000000, loss_pct=10.0)
HEAD = Table(-6, 9, 7, 11, 8, 8, 9)
ROW = Table(-6, 9, 7, 11, 8, 8, 4)


def finish(cfg, error):
    pass


def results_tag(cfg):
    return cfg.mode


def records(runner, cfg, outdir):
    return per_protocol(runner, cfg, outdir, stream.run_mode)


def row(p, f):
    return ROW.line(p, '%d' % f['rpcs'], '%d' % f['errors'],
                    '%.1f%%' % (100 * f['completion']), '%.1f' % f['p50_ms'],
                    '%.1f' % f['p99_ms'], '%.4f Gbps' % f['goodput_gbps'])


def analyze(raw, outdir):
    cfg = raw['config']
    heading = ['Loss: %d B messages through %g%% loss per downlink, '
               '%d outstanding, %ds, link %s' % (
                   cfg['message_bytes'], cfg['loss_pct'],
                   cfg['client_max'], cfg['seconds'], stream.link(cfg)),
               HEAD.line('proto', 'completed', 'failed', 'completion',
                         'P50 ms', 'P99 ms', 'goodput')]
    report = stream.analyze_stream(raw, outdir, heading, row)
    report['plots'] = plot_stream(report, outdir, 'completion',
                                  'completed fraction')
    return report
