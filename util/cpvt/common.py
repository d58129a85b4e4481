# SPDX-License-Identifier: GPL-2.0+
"""What every part of the driver shares: paths, protocols, Homa variants."""

import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CP_NODE = os.path.join(TOP, 'util', 'build', 'cp_node')
TESTBED = os.path.join(TOP, 'util', 'testbed')
# The VM launcher; it also knows what a kernel splat looks like.
VM_SH = os.path.join(TOP, 'scripts', 'vm.sh')
# The entry point (run again inside the VM).
DRIVER = os.path.join(TOP, 'util', 'cp_vs_tcp')

# Protocol name -> (cp_node --protocol, TCP congestion control).
PROTOCOLS = {'homa': ('homa', None), 'tcp': ('tcp', 'cubic'),
             'dctcp': ('tcp', 'dctcp'), 'homa-noincast': ('homa', None),
             'homa-off': ('homa', None), 'homa-nortt': ('homa', None),
             'homa-react': ('homa', None), 'homa-react-all': ('homa', None),
             'homa-gso64': ('homa', None), 'homa-share': ('homa', None)}

# Homa variants: net.homa settings of their runs (NAME -> VALUE). The
# settings a variant changes go back to their previous values for the
# other protocols of the same run.
VARIANT_SYSCTLS = {
    'homa-noincast': {'incast_threshold': '0'},
    'homa-nortt': {'rtt_adaptive': '0'},
    # A receiver cuts the grant window of congested peers (issue 13).
    'homa-react': {'rtt_congestion_react': '1'},
    # ... and a sender the unscheduled bytes toward peers whose GRANTs
    # say its data arrives congested.
    'homa-react-all': {'rtt_congestion_react': '3'},
    # What homa.7 gives for sharing a link with TCP: scheduled bytes at
    # TCP's IP priority, and the receiver's reaction to their queue.
    'homa-share': {'sched_ip_priority': '0', 'rtt_congestion_react': '5'},
    # Stored packets (and so GSO packets) of up to 64 KB (issue 12).
    'homa-gso64': {'max_gso_size': '65536'},
    # Every adaptive feature off (SRPT grants stay): the "features off"
    # column of a latency run.
    'homa-off': {'pacer_enable': '0', 'rtt_adaptive': '0',
                 'unsched_adaptive': '0', 'rtt_resend': '0',
                 'auto_cutoffs': '0', 'incast_threshold': '0'},
}



def add_variant(name):
    """Register an ad-hoc Homa variant named 'homa:NAME=VALUE[:...]',
    whose runs set those net.homa values; ValueError if NAME is
    malformed."""
    settings = {}
    for kv in name.split(':')[1:]:
        key, sep, value = kv.partition('=')
        if not sep or not key or not value or '/' in kv:
            raise ValueError('a variant is homa:NAME=VALUE[:NAME=VALUE...]')
        settings[key] = value
    if not settings:
        raise ValueError('a variant is homa:NAME=VALUE[:NAME=VALUE...]')
    PROTOCOLS[name] = ('homa', None)
    VARIANT_SYSCTLS[name] = settings


# cp_node's first TCP server port.
CP_NODE_TCP_PORT = 5000


def log(msg):
    print(msg, flush=True)
