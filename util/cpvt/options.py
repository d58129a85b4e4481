# SPDX-License-Identifier: GPL-2.0+
"""The command line of util/cp_vs_tcp: the options, the defaults of each
mode (modes.MODES[...].DEFAULTS over DEFAULTS) and their checks."""

import argparse
import os

from .common import CP_NODE, PROTOCOLS, TOP, add_variant
from .modes import MODES

# Defaults that depend on the mode (None in the parser): these, unless the
# mode's DEFAULTS say otherwise.
DEFAULTS = {'hosts': 4, 'mbps': 16, 'protocols': 'homa,tcp',
            'message_bytes': 500000, 'loss_pct': 0, 'unloaded': 5,
            'warmup': 0}


def add_run_options(ap):
    """What runs: the mode, the workload and load, the protocols."""
    ap.add_argument('--mode', choices=tuple(MODES), default='latency')
    ap.add_argument('--rates', default='8,12,16,24,32',
                    help='calibrate mode: link rates to try, Mbit/s')
    ap.add_argument('--workload', default='w4',
                    help='cp_node workload (latency mode; default w4)')
    ap.add_argument('--load', type=float, default=0.8,
                    help='fraction of each host link offered (default 0.8)')
    ap.add_argument('--seconds', type=int, default=None,
                    help='length of each loaded run (default 60 latency, '
                    '20 throughput, 30 loss, 20 incast, 15 rttwin, 12 '
                    'share)')
    ap.add_argument('--warmup', type=int, default=None,
                    help='latency and incast modes: seconds of load before '
                    'the counted --seconds, so that the count starts in '
                    'steady state (default 20 latency, 5 incast)')
    ap.add_argument('--hosts', type=int, default=None,
                    help='test-bed hosts (default 4; 2 for throughput/loss, '
                    '8 for incast: h0 the client, the rest servers; rttwin '
                    'needs 4)')
    ap.add_argument('--mbps', type=float, default=None,
                    help='link rate R, Mbit/s (default 16 latency; 0 = '
                    'unshaped for throughput and loss)')
    ap.add_argument('--protocols', default=None,
                    help='comma list of homa,tcp,dctcp,homa-noincast (Homa '
                    'with incast_threshold=0),homa-nortt (Homa with '
                    'rtt_adaptive=0),homa-react (Homa with '
                    'rtt_congestion_react=1),homa-react-all (=3),'
                    'homa-share (sched_ip_priority=0 and '
                    'rtt_congestion_react=5, for sharing with TCP),'
                    'homa-gso64 (max_gso_size=65536),homa-off (Homa with pacer, '
                    'RTT windows and resends, adaptive unscheduled bytes, '
                    'auto cutoffs and incast control off), or '
                    'homa:NAME=VALUE[:NAME=VALUE...] (Homa with those '
                    'net.homa settings) (default '
                    'homa,tcp,dctcp; '
                    'homa,tcp for throughput and loss; '
                    'homa,homa-noincast,tcp for incast; homa,homa-nortt '
                    'for rttwin, which takes Homa variants only)')
    ap.add_argument('--sizes', default='40000,100000,200000,500000',
                    help='rttwin mode: message sizes, bytes (default '
                    '40000,100000,200000,500000)')
    ap.add_argument('--workloads', default=None,
                    help='share mode: comma list of cp_node workloads '
                    '(w1..w5 or a size in bytes; default '
                    'w4,w5,100000,1000000)')
    ap.add_argument('--tcp-flows', default=None,
                    help='share mode: comma list of TCP flow counts '
                    '(1..4) to run beside Homa (default 1)')
    ap.add_argument('--unloaded', type=int, default=None,
                    help='baseline RPCs per representative size (default 5; '
                    '2 share)')
    ap.add_argument('--two-way', dest='one_way', action='store_false',
                    help='echo responses as long as the requests (default: '
                    'one-way messages with tiny responses)')


def add_client_options(ap):
    """cp_node's clients and messages, the network's settings."""
    ap.add_argument('--client-ports', type=int, default=1)
    ap.add_argument('--server-ports', type=int, default=1)
    ap.add_argument('--client-max', type=int, default=None,
                    help='outstanding RPCs per client port (default 200 '
                    'latency, 4 throughput, 2 loss, 64 incast, 2 rttwin)')
    ap.add_argument('--message-bytes', type=int, default=None,
                    help='message size of throughput/loss modes (default '
                    '500000 / 1000000)')
    ap.add_argument('--request-bytes', type=int, default=100,
                    help='incast mode: request size (default 100)')
    ap.add_argument('--response-bytes', type=int, default=100000,
                    help='incast mode: response size (default 100000)')
    ap.add_argument('--loss-pct', type=float, default=None,
                    help='netem loss in each downlink band (loss mode: '
                    'default 10)')
    ap.add_argument('--ecn-bytes', type=int, default=15000,
                    help='DCTCP marking threshold per band (default 15000)')
    ap.add_argument('--homa-sysctl', action='append', metavar='NAME=VALUE',
                    help='net.homa.NAME for every host (repeatable)')
    ap.add_argument('--link-mbps', type=int, default=None, metavar='N',
                    help='net.homa.link_mbps of every host (default: the '
                    'link rate, --mbps, as util/testbed sets it); e.g. '
                    '25000, the module\'s default, for a wrong one')
    ap.add_argument('--testbed-opt', action='append', metavar='"OPT VAL"',
                    help='extra util/testbed option, e.g. "--host-buffer '
                    '262144" (repeatable)')
    ap.add_argument('--baseline-timeout', type=int, default=600)
    ap.add_argument('--progress-every', type=int, default=5)
    ap.add_argument('--verbose', action='store_true',
                    help='print every cp_node status line')
    ap.add_argument('--profile', action='store_true',
                    help='perf record -a -g in the VM during each measured '
                    'run: per protocol a report and a flame graph (see '
                    '"Profiling" in util/README-bench.md)')
    ap.add_argument('--rpcs-every', type=float, default=0, metavar='S',
                    help='during each measured Homa run, keep every '
                    'host\'s /proc/net/homa_rpcs every S seconds in '
                    '<protocol>-<phase>-rpcs-h<i>.txt (default 0: not)')
    ap.add_argument('--profile-freq', type=int, default=499,
                    help='--profile: samples per second per CPU (default '
                    '499)')


def add_where_options(ap):
    """Where it runs and where the results go."""
    ap.add_argument('--clock', choices=('tsc', 'hpet'), default=None,
                    help='the VM kernel\'s clocksource (default tsc, '
                    'booted with "clocksource=tsc tsc=reliable"; hpet: '
                    'what the kernel picks alone under emulation, where '
                    'every clock read is an emulated device access)')
    ap.add_argument('--results', default=os.path.join(TOP, 'results'))
    ap.add_argument('--hosts-file', help='run on these hosts over ssh '
                    'instead of the VM')
    ap.add_argument('--cp-node', default=CP_NODE,
                    help='cp_node path on the hosts (hosts-file mode)')
    ap.add_argument('--ssh-opt', action='append', default=[],
                    help='extra ssh/scp option (repeatable)')
    ap.add_argument('--analyze', metavar='DIR',
                    help='only analyze an existing results directory')
    ap.add_argument('--inside', metavar='DIR', help=argparse.SUPPRESS)


def parser():
    ap = argparse.ArgumentParser(
        description='Homa vs TCP vs DCTCP on the emulated datacenter '
        '(util/README-bench.md).')
    add_run_options(ap)
    add_client_options(ap)
    add_where_options(ap)
    return ap


def apply_defaults(cfg):
    """The mode's defaults for the options not given."""
    defaults = dict(DEFAULTS, **MODES[cfg.mode].DEFAULTS)
    for name, value in defaults.items():
        if getattr(cfg, name) is None:
            setattr(cfg, name, value)


def convert(cfg, error):
    """The comma lists as lists; the protocols known."""
    cfg.protocols = [p for p in cfg.protocols.split(',') if p]
    for p in cfg.protocols:
        if cfg.protocols.count(p) > 1:
            # Each configuration's files are named after it: a second
            # run of one would overwrite the first's.
            error('--protocols: %s twice' % p)
        if p.startswith('homa:'):
            try:
                add_variant(p)
            except ValueError as e:
                error('%s: %s' % (p, e))
        if p not in PROTOCOLS:
            error('unknown protocol %s' % p)
    cfg.rates = [float(r) for r in cfg.rates.split(',') if r]
    try:
        cfg.sizes = [int(x) for x in cfg.sizes.split(',') if x]
    except ValueError:
        error('--sizes: a comma list of byte counts')
    if cfg.workloads is not None:
        cfg.workloads = [w for w in cfg.workloads.split(',') if w]
    if cfg.tcp_flows is not None:
        try:
            cfg.tcp_flows = [int(x) for x in cfg.tcp_flows.split(',') if x]
        except ValueError:
            error('--tcp-flows: a comma list of counts')
    if cfg.link_mbps is not None:
        if cfg.link_mbps < 1:
            error('--link-mbps: at least 1')
        if any(kv.split('=', 1)[0] == 'link_mbps'
               for kv in cfg.homa_sysctl or []):
            error('--link-mbps and --homa-sysctl link_mbps=: give one')


def parse_args(argv):
    """The options of ARGV (an argparse.Namespace, whose attributes
    raw.json keeps as its 'config'); exits with a message when they are
    bad."""
    ap = parser()
    cfg = ap.parse_args(argv)
    apply_defaults(cfg)
    convert(cfg, ap.error)
    if not 1 <= cfg.request_bytes <= 1000000 or \
            not 1 <= cfg.response_bytes <= 1000000:
        ap.error('--request-bytes and --response-bytes: 1..1000000')
    if cfg.clock and cfg.hosts_file:
        ap.error('--clock chooses the VM\'s clocksource: not with '
                 '--hosts-file')
    if cfg.profile and cfg.hosts_file:
        ap.error('--profile runs perf in the VM: not with --hosts-file')
    if cfg.rpcs_every < 0:
        ap.error('--rpcs-every: 0 (off) or more seconds')
    if not 1 <= cfg.profile_freq <= 10000:
        ap.error('--profile-freq: 1..10000')
    if cfg.warmup < 0:
        ap.error('--warmup: 0 or more seconds')
    MODES[cfg.mode].finish(cfg, ap.error)
    return cfg
