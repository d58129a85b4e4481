#!/usr/bin/env bash
# A server whose namespace is deleted in the middle of an RPC: the client
# gets ETIMEDOUT (with the RPC's id), not a hang.
#
#   [to1] veth1 10.3.0.1 ---- veth2 10.3.0.2 [to2: deleted mid-RPC]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair to1 to2 10.3.0
# A server that never answers: it has no buffer pool and never reads.
in_ns to2 python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 146)
s.bind(("0.0.0.0", 70))
time.sleep(60)' &
sleep 1
out=$(mktemp)
in_ns to1 "$HOMA_TEST" expect_timeout 10.3.0.2 70 > "$out" 2>&1 &
client=$!
for _ in $(seq 50); do
	grep -q sent "$out" && break
	sleep 0.1
done
sleep 0.5
# shellcheck disable=SC2046	# one pid per word
kill $(ip netns pids to2) 2>/dev/null || true
ip netns del to2
check "client saw ETIMEDOUT" wait "$client"
sed 's/^/# /' "$out"
check "timeout counted" test "$(metric to1 rpc_timeouts)" -ge 1
check_eq "client RPC freed" "$(metric to1 rpcs_live)" 0
finish
