#!/usr/bin/env bash
# A receiver closes its socket while it is granting: three 1 MB requests
# from gc1 (over an 8 Mbit/s link, so grants are still flowing) to a sink
# in gc2 that is killed once it has granted. Its RPCs leave the grant list
# as they end; a GRANT decided just before may still leave. Nothing may
# crash or leak (run.sh checks the kernel log): every live-object counter
# returns to zero, and a new sink then serves a new request.
#
#   [gc1] veth1 10.13.0.1 (tbf 8 Mbit/s) ---- veth2 10.13.0.2 [gc2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

# start_sink: a sink on port 80 of gc2; waits until it is bound.
start_sink() {
	start_ready gc2 '^serving' sink "$HOMA_TEST" sink 80
}

link_pair gc1 gc2 10.13.0
tc -n gc1 qdisc add dev veth1 root tbf rate 8mbit burst 4542 limit 262144
start_sink
for _ in 1 2 3; do
	in_ns gc1 "$HOMA_TEST" send 10.13.0.2 80 1000000 > /dev/null 2>&1 &
done
for _ in $(seq 100); do
	[ "$(metric gc2 grant_decisions)" -gt 2 ] && break
	sleep 0.05
done
check "the sink granted" test "$(metric gc2 grant_decisions)" -gt 2
stop_all gc2
check_eq "receiver's RPCs ended" "$(metric gc2 rpcs_live)" 0
stop_all gc1
live_zero gc1 gc2

start_sink
check "a new sink serves" in_ns gc1 "$HOMA_TEST" send 10.13.0.2 80 300000
live_zero gc1 gc2
finish
