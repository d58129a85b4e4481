#!/usr/bin/env bash
# Pool exhaustion: a server whose receive region holds 5 bpages (320 KiB)
# gets 40 requests of 100-300 KB, 8 at a time. Messages wait for buffer
# space in SRPT order and all complete; nothing is lost. A client RPC that
# fails while its response waits for buffers (region of 2 bpages, 300 KB
# response, aborted with ECANCELED) returns ECANCELED to recvmsg and leaves
# the region untouched.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add pool1
serve pool1 4 80 5
check "40 large RPCs through a 5-bpage pool" in_ns pool1 "$HOMA_TEST" \
	client 127.0.0.1 80 40 250000 8
check "an RPC failed while waiting for buffers leaves the region alone" \
	in_ns pool1 "$HOMA_TEST" stall_fail 127.0.0.1 80
check "the pool stalled (the test exercised waiting)" \
	test "$(metric pool1 pool_stalls)" -gt 0
live_zero pool1
finish
