#!/usr/bin/env bash
# The user API over loopback: every invalid argument gives its errno and
# leaves nothing behind; private and shared RPCs, abort, poll, and
# shutdown waking a blocked recvmsg with ESHUTDOWN.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add api1
check "homa_test api" in_ns api1 "$HOMA_TEST" api
check_eq "no RPC left behind" "$(metric api1 rpcs_live)" 0
check_eq "no socket left behind" "$(metric api1 sockets_live)" 0
live_zero api1
finish
