# SPDX-License-Identifier: GPL-2.0+
"""util/cp_vs_tcp's main(): boot the VM and run there (default), run on the
hosts of a hosts file, or only analyze a results directory; and what runs
inside the VM."""

import json
import os
import subprocess
import time

from . import testbed
from .common import log
from .modes import MODES
from .options import parse_args
from .report import analyze
from .runner import HostsRunner, NetnsRunner, parse_hosts_file
from .vm import boot_vm


def write_raw(raw, outdir):
    with open(os.path.join(outdir, 'raw.json'), 'w') as f:
        json.dump(raw, f, indent=1)


def run_experiments(runner, cfg, outdir):
    """Everything that runs on the hosts (the mode's records); writes
    raw.json in OUTDIR after each run."""
    raw = {'config': vars(cfg).copy(),
           'hosts': [h.addr for h in runner.hosts],
           'protocols': [], 'started': time.strftime('%Y-%m-%d %H:%M:%S')}
    raw['config'].pop('func', None)
    raw['clocksource'] = runner.clocksource()
    dmesg0 = runner.dmesg()
    for rec in MODES[cfg.mode].records(runner, cfg, outdir):
        raw['protocols'].append(rec)
        write_raw(raw, outdir)
    if not isinstance(runner, NetnsRunner):
        runner.restore()
    dmesg1 = runner.dmesg()
    if dmesg1:
        new = dmesg1[len(dmesg0):] if dmesg1.startswith(dmesg0) else dmesg1
        with open(os.path.join(outdir, 'dmesg.txt'), 'w') as f:
            f.write(new)
    raw['finished'] = time.strftime('%Y-%m-%d %H:%M:%S')
    write_raw(raw, outdir)
    return raw


def results_dir(cfg):
    tag = MODES[cfg.mode].results_tag(cfg)
    d = os.path.join(cfg.results, '%s-%s' % (time.strftime('%Y%m%d-%H%M%S'),
                                             tag))
    os.makedirs(d, exist_ok=True)
    return d


def inside(cfg):
    """In the VM: build the test bed, run everything, tear down."""
    outdir = cfg.inside
    subprocess.run(['dmesg', '-n', '1'], check=False)
    if not testbed.build(cfg, outdir):
        return 1
    try:
        run_experiments(NetnsRunner(cfg.hosts, cfg), cfg, outdir)
    finally:
        testbed.teardown()
    log('inside: done')
    return 0


def run_hosts_file(cfg):
    """The experiments on the hosts of cfg.hosts_file, then the
    analysis."""
    with open(cfg.hosts_file) as f:
        hosts = parse_hosts_file(f.read())
    outdir = results_dir(cfg)
    log('cp_vs_tcp: %d hosts from %s; results in %s' % (
        len(hosts), cfg.hosts_file, outdir))
    if any(h.kind == 'ssh' for h in hosts) and 'dctcp' in cfg.protocols:
        log('cp_vs_tcp: note: DCTCP needs ECN marking in the real '
            'switches; this driver only sets the hosts\' sysctls')
    runner = HostsRunner(hosts, cfg.cp_node, cfg.ssh_opt)
    cfg.hosts = len(hosts)
    run_experiments(runner, cfg, outdir)
    analyze(outdir)
    return 0


def main(argv):
    cfg = parse_args(argv)
    if cfg.analyze:
        analyze(cfg.analyze)
        return 0
    if cfg.inside:
        return inside(cfg)
    if cfg.hosts_file:
        return run_hosts_file(cfg)
    outdir = results_dir(cfg)
    # The same options again inside the VM.
    rc = boot_vm(outdir, argv, cfg.clock or 'tsc')
    if not os.path.exists(os.path.join(outdir, 'raw.json')):
        log('cp_vs_tcp: the VM wrote no results (see %s/vm.log)' % outdir)
        return 1
    analyze(outdir)
    return 1 if rc else 0
