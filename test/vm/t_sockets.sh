#!/usr/bin/env bash
# IPv4 and IPv6 Homa sockets open with distinct client ports and close;
# the namespace's socket gauge returns to zero.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add sock1
check "homa_test sockets" in_ns sock1 "$HOMA_TEST" sockets
check_eq "sockets_opened" "$(metric sock1 sockets_opened)" 100
check_eq "sockets_live after close" "$(metric sock1 sockets_live)" 0
finish
