# SPDX-License-Identifier: GPL-2.0+
"""The analysis of a results directory: the mode's table and plots from
raw.json and the clients' files, the kernel splats of the run, written to
summary.json and printed."""

import json
import os
import subprocess

from .common import VM_SH
from .modes import MODES


def kernel_splats(path):
    """The kernel-splat lines of the kernel log PATH (the pattern of
    scripts/vm.sh, shared by every VM run)."""
    out = subprocess.run([VM_SH, '--splats', path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    return [line.rstrip() for line in out.splitlines()]


def link_mbps_note(cfg):
    """The line under every mode's table when --link-mbps set Homa's
    link_mbps apart from the link rate, else None."""
    if not cfg.get('link_mbps'):
        return None
    return ('net.homa.link_mbps=%d on every host (--link-mbps; the links '
            'run at %s)' % (cfg['link_mbps'], '%g Mbit/s' % cfg['mbps']
                            if cfg.get('mbps') else 'full speed'))


def analyze(outdir):
    """Analyze OUTDIR (raw.json and the files it names): print the table,
    write summary.json; the report."""
    with open(os.path.join(outdir, 'raw.json')) as f:
        raw = json.load(f)
    report = MODES[raw['config']['mode']].analyze(raw, outdir)
    note = link_mbps_note(raw['config'])
    if note:
        report['table'].append(note)
    splats = []
    dm = os.path.join(outdir, 'dmesg.txt')
    if os.path.exists(dm):
        splats = kernel_splats(dm)
    report['kernel_splats'] = splats[:50]
    with open(os.path.join(outdir, 'summary.json'), 'w') as f:
        json.dump(report, f, indent=1, default=str)
    print()
    for line in report['table']:
        print(line)
    if splats:
        print('KERNEL LOG: %d splat line(s) in %s, first: %s'
              % (len(splats), dm, splats[0]))
    print('results: %s (summary.json%s)' % (
        outdir, ''.join(', ' + os.path.basename(p) for p in report['plots'])))
    return report
