# SPDX-License-Identifier: GPL-2.0+
"""Booting the VM for a run: scripts/vm.sh (the project's one launcher,
which waits for the VM lock) runs the driver again inside, with the
results directory writable."""

import os
import re
import subprocess
import sys

from .common import CP_NODE, DRIVER, TOP, VM_SH, log


def vm_env(clock, env):
    """The environment for scripts/vm.sh: ENV with VM_CLOCK set to CLOCK
    ('tsc' or 'hpet'; vm.sh turns it into the kernel's command line, see
    util/README-bench.md, "The VM's clock") and Python's output
    unbuffered. ENV's VM_APPEND passes through as it is."""
    return dict(env, PYTHONUNBUFFERED='1', VM_CLOCK=clock)


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
    env = vm_env(clock, os.environ)
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
