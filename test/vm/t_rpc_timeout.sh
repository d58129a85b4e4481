#!/usr/bin/env bash
# A server whose namespace is deleted in the middle of an RPC: the client
# gets ETIMEDOUT (with the RPC's id), not a hang. The server's link goes
# down first, as when a host dies: a socket closed while the host still
# answers would give ENOTCONN instead (ICMP port unreachable).
#
#   [to1] veth1 10.3.0.1 ---- veth2 10.3.0.2 [to2: deleted mid-RPC]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair to1 to2 10.3.0
# A server that never answers: it has no buffer pool and never reads
# (started and bound before the request: a request to an unbound port would
# be refused at once with ENOTCONN).
hold to2 70
out=$(mktemp)
in_ns to1 "$HOMA_TEST" expect_timeout 10.3.0.2 70 > "$out" 2>&1 &
client=$!
for _ in $(seq 50); do
	grep -q sent "$out" && break
	sleep 0.1
done
sleep 0.5
ip -n to2 link set veth2 down
# shellcheck disable=SC2046	# one pid per word
kill $(ip netns pids to2) 2>/dev/null || true
ip netns del to2
check "client saw ETIMEDOUT" wait "$client"
sed 's/^/# /' "$out"
check "timeout counted" test "$(metric to1 rpc_timeouts)" -ge 1
check_eq "client RPC freed" "$(metric to1 rpcs_live)" 0
finish
