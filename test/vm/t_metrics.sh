#!/usr/bin/env bash
# /proc/net/homa_metrics exists in every namespace and counts only that
# namespace's events.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add met1
ns_add met2
for ns in met1 met2; do
	check "metrics file in $ns" in_ns "$ns" test -r /proc/net/homa_metrics
	check_eq "$ns starts with no sockets" "$(metric $ns sockets_opened)" 0
done
check "sockets in met1" in_ns met1 "$HOMA_TEST" sockets
check_eq "met1 counted its sockets" "$(metric met1 sockets_opened)" 100
check_eq "met2 saw none" "$(metric met2 sockets_opened)" 0
lines=$(in_ns met1 wc -l < /proc/net/homa_metrics)
check "metrics file has lines" test "$lines" -ge 10
finish
