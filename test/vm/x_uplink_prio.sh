#!/usr/bin/env bash
# t_uplink_prio.sh in full: also 100 B and 10 KB echoes, and the same
# with link_mbps right (16) for comparison. Not in the default suite
# (test/vm/run.sh x_uplink_prio.sh).
UPLINK_FULL=1 exec "$(dirname "$0")/t_uplink_prio.sh" "$@"
