# SPDX-License-Identifier: GPL-2.0+
"""Booting the VM for a run: scripts/vm.sh (the project's one launcher,
which waits for the VM lock) runs the driver again inside, with the
results directory writable."""

import os
import re
import subprocess
import sys

from .common import CP_NODE, DRIVER, TOP, VM_SH, log


# The kernel command line that makes the VM's kernel use the TSC: under
# emulation it otherwise finds the TSCs unsynchronized and reads the
# emulated HPET (util/README-bench.md, "The VM's clock").
TSC_APPEND = 'clocksource=tsc tsc=reliable'


def vm_append(clock, env):
    """VM_APPEND for scripts/vm.sh: the words CLOCK ('tsc' or 'hpet')
    needs, then those already in ENV's VM_APPEND."""
    words = TSC_APPEND.split() if clock == 'tsc' else []
    return ' '.join(words + env.get('VM_APPEND', '').split())


def boot_vm(outdir, argv, clock='tsc'):
    """Run `util/cp_vs_tcp --inside OUTDIR ARGV` in the VM, its kernel
    reading clock CLOCK; its console is kept in OUTDIR/vm.log and printed
    without the kernel's messages. The VM's exit status."""
    kmod = os.path.join(TOP, 'homa.ko')
    if not os.path.exists(kmod):
        sys.exit('cp_vs_tcp: %s is missing (make)' % kmod)
    if not os.access(CP_NODE, os.X_OK):
        sys.exit('cp_vs_tcp: %s is missing (make -C util)' % CP_NODE)
    inner = [sys.executable, DRIVER, '--inside', outdir] + argv
    log('cp_vs_tcp: raw data in %s' % outdir)
    cmd = [VM_SH, '--rwdir', outdir, '--'] + inner
    env = dict(os.environ, PYTHONUNBUFFERED='1')
    env['VM_APPEND'] = vm_append(clock, os.environ)
    with open(os.path.join(outdir, 'vm.log'), 'w') as vlog:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env,
                             stdin=subprocess.DEVNULL)
        for line in p.stdout:
            vlog.write(line)
            # The VM's console: skip kernel messages.
            if not re.match(r'^\[\s*\d+\.\d+\]', line):
                print(line, end='', flush=True)
        rc = p.wait()
    if rc != 0:
        log('cp_vs_tcp: the VM exited with %d (see %s/vm.log)'
            % (rc, outdir))
    return rc
