#!/usr/bin/env bash
# Pool exhaustion: a server whose receive region holds 5 bpages (320 KiB)
# gets 40 requests of 100-300 KB, 8 at a time. Messages wait for buffer
# space in SRPT order and all complete; nothing is lost.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add pool1
serve pool1 4 80 5
check "40 large RPCs through a 5-bpage pool" in_ns pool1 "$HOMA_TEST" \
	client 127.0.0.1 80 40 250000 8
check "the pool stalled (the test exercised waiting)" \
	test "$(metric pool1 pool_stalls)" -gt 0
live_zero pool1
finish
