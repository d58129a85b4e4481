# SPDX-License-Identifier: GPL-2.0+
"""The emulated datacenter in the VM (util/testbed): its options for a run
of a protocol (link rate, congestion control, ECN, loss, net.homa
settings), building it and tearing it down."""

import os
import shlex
import subprocess

from .common import TESTBED, VARIANT_SYSCTLS, log


def homa_sysctls(cfg, proto=None, defaults=None):
    """The net.homa settings (NAME=VALUE) for a run of PROTO: the user's
    --link-mbps and --homa-sysctl, then the variant's own
    (VARIANT_SYSCTLS, which win); the names in DEFAULTS that PROTO's
    variant does not set and the user did not give go back to their
    DEFAULTS values first. (util/testbed sets link_mbps to the link rate
    before these.)"""
    user = list(cfg.homa_sysctl or [])
    if getattr(cfg, 'link_mbps', None):
        user.insert(0, 'link_mbps=%d' % cfg.link_mbps)
    given = {kv.split('=', 1)[0] for kv in user}
    own = VARIANT_SYSCTLS.get(proto, {})
    out = ['%s=%s' % (k, v) for k, v in sorted((defaults or {}).items())
           if k not in own and k not in given]
    return out + user + ['%s=%s' % kv for kv in sorted(own.items())]


def testbed_args(cfg, proto=None, defaults=None):
    a = ['--mbps', str(cfg.mbps)]
    if cfg.loss_pct:
        a += ['--loss', str(cfg.loss_pct)]
    if proto == 'dctcp':
        a += ['--cc', 'dctcp', '--ecn', str(cfg.ecn_bytes)]
    else:
        a += ['--cc', 'cubic']
    for kv in homa_sysctls(cfg, proto, defaults):
        a += ['--homa', kv]
    for opt in cfg.testbed_opt or []:
        a += shlex.split(opt)
    return a


def build(cfg, outdir):
    """Build the test bed of cfg.hosts hosts; its topology is printed and
    kept in OUTDIR/testbed.txt. Whether it was built."""
    log('inside: building the test bed (%d hosts, %g Mbit/s)'
        % (cfg.hosts, cfg.mbps))
    tb = subprocess.run([TESTBED, '--hosts', str(cfg.hosts)] +
                        testbed_args(cfg), stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    print(tb.stdout, end='', flush=True)
    with open(os.path.join(outdir, 'testbed.txt'), 'w') as f:
        f.write(tb.stdout)
    if tb.returncode != 0:
        log('inside: test bed failed')
        return False
    return True


def teardown():
    subprocess.run([TESTBED, '--down'], check=False)
