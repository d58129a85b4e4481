#!/usr/bin/env bash
# Socket options and ioctls: SO_HOMA_SERVER, bad levels, names and lengths;
# HOMAIOCINFO and HOMAIOCABORT argument checks.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add opt1
check "sockopt" in_ns opt1 "$HOMA_TEST" sockopt
check "ioctl" in_ns opt1 "$HOMA_TEST" ioctl
check "HOMAIOCINFO per-RPC entries" in_ns opt1 "$HOMA_TEST" info
finish
