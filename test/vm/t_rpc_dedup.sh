#!/usr/bin/env bash
# Stale packets. At-most-once: a copy of a request that arrives after its RPC ended (the
# server answered and the client acknowledged) is not executed again.
# homa_test replay plays the client through a raw socket: the request, the
# ACK, then the same request packet again. The server reports a request id
# it sees twice. With dedup_ms at 0 the server has no memory of executed
# requests and does run the copy: that shows the test can see the fault.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add dd1
# The replay's raw socket binds no Homa port: a NEED_ACK to it would get
# ICMP port unreachable, which frees the server RPC before the ACK comes.
homa_set request_ack_ticks=10000 dd1
serve dd1 4 40
out=$SERVE_OUT
check "request, ACK, late copy" in_ns dd1 "$HOMA_TEST" replay 40 1000
sleep 0.3
check_eq "late copy dropped" "$(metric dd1 requests_deduped)" 1
check_eq "request executed once" \
	"$(grep -c 'duplicate request id 1001' "$out" || true)" 0
timed check "executed request remembered" test "$(metric dd1 dedup_live)" -ge 1
check_eq "server RPC ended by the ACK" "$(metric dd1 rpcs_acked)" 1

in_ns dd1 sysctl -q -w net.homa.dedup_ms=0
check "again with dedup_ms=0" in_ns dd1 "$HOMA_TEST" replay 40 2000
sleep 0.3
check_eq "without memory the copy runs again" \
	"$(grep -c 'duplicate request id 2001' "$out" || true)" 1
check_eq "nothing dropped as a copy" "$(metric dd1 requests_deduped)" 1

check "remembered requests expire (2 s)" settled dd1 dedup_live 0

# A stale RPC_UNKNOWN (answering an earlier RESEND) reaching a client whose
# response is complete must not restart the RPC: recvmsg gets the response.
check "RPC_UNKNOWN after the whole response is ignored" in_ns dd1 \
	"$HOMA_TEST" unknown_ready 41
live_zero dd1
finish
