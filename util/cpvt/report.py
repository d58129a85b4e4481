# SPDX-License-Identifier: GPL-2.0+
"""The analysis of a results directory: the mode's table and plots from
raw.json and the clients' files, the kernel splats of the run, written to
summary.json and printed."""

import glob
import json
import os
import subprocess

from . import flame
from .common import VM_SH
from .modes import MODES
from .profile import per_mb_line, uplink_line


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
    report['clocksource'] = raw.get('clocksource')
    splats = []
    dm = os.path.join(outdir, 'dmesg.txt')
    if os.path.exists(dm):
        splats = kernel_splats(dm)
    report['kernel_splats'] = splats[:50]
    extra = watched(outdir, report)
    with open(os.path.join(outdir, 'summary.json'), 'w') as f:
        json.dump(report, f, indent=1, default=str)
    print()
    for line in report['table'] + extra:
        print(line)
    if report['clocksource']:
        print('clocksource: %s' % report['clocksource'])
    if splats:
        print('KERNEL LOG: %d splat line(s) in %s, first: %s'
              % (len(splats), dm, splats[0]))
    print('results: %s (summary.json%s)' % (
        outdir, ''.join(', ' + os.path.basename(p) for p in
                        report['plots'] + report['flame_graphs'])))
    return report


def top_entries(path, n=8):
    """The first N entries of the --no-children section of a
    <tag>-perf-report.txt."""
    with open(path) as f:
        text = f.read()
    sect = text.split('--no-children', 1)[-1].splitlines()[1:]
    return [x for x in sect if x.strip()][:n]


def watched(outdir, report):
    """What profile.py left in OUTDIR: the per-MB figures of each phase
    (report['per_mb']) and, with --profile, a flame graph SVG per folded
    profile (drawn here, report['flame_graphs']) and its top entries; the
    lines to print."""
    lines, report['per_mb'], report['flame_graphs'] = [], {}, []
    for path in sorted(glob.glob(os.path.join(outdir, '*-counters.json'))):
        with open(path) as f:
            c = json.load(f)
        report['per_mb'][c['tag']] = c['per_mb']
        lines.append(per_mb_line(c['tag'], c['per_mb'], c['goodput_bytes']))
        if c.get('uplinks'):
            lines.append('    ' + uplink_line(c['uplinks']))
    for path in sorted(glob.glob(os.path.join(outdir, '*.folded'))):
        tag = os.path.basename(path)[:-len('.folded')]
        with open(path) as f:
            counts = flame.parse_folded(f.read())
        out = os.path.join(outdir, tag + '-flame.svg')
        with open(out, 'w') as f:
            f.write(flame.svg(counts, 'perf record -a -g: %s (%s)' % (
                tag, os.path.basename(outdir))))
        report['flame_graphs'].append(out)
        rep = os.path.join(outdir, tag + '-perf-report.txt')
        if os.path.exists(rep):
            lines += ['profile %s, top entries (self):' % tag] + \
                top_entries(rep)
    return lines
