#!/usr/bin/env bash
# /proc/net/homa_rpcs: a client RPC waiting for a server that never
# answers shows on both hosts, each side with its own id, the other's
# address and port, and its message's figures: the client's 1000-byte
# request sent, no response begun (the RPC stays "out" until one does);
# the server's request complete and waiting for buffers (its socket has
# no receive region), so not ready for recvmsg. The file starts with the
# pacer's line (its thread idle: 1000 bytes skip the pacer) and its
# column names, and the RPCs' lines go when the sockets close.
#
#   [pr1] 10.21.0.1 --veth-- [pr2] 10.21.0.2
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair pr1 pr2 10.21.0

# rpc_field NS PORT ID COLUMN: COLUMN of the line of RPC ID on PORT in NS.
rpc_field() {
	# shellcheck disable=SC2016	# awk's fields
	in_ns "$1" awk -v p="$2" -v id="$3" -v c="$4" '
		$1 == "port" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p && $2 == id { print $col[c] }' /proc/net/homa_rpcs
}

hold pr2 601
start_ready pr1 '^sent' "pending client" \
	"$HOMA_TEST" pending 10.21.0.2 601 60000
pend=$READY_OUT
p=$READY_PID
read -r _ cport cid < <(grep '^sent' "$pend")
check "the client sent its request" test -n "$cid"
sid=$((cid + 1))
# The request's one packet reaches the server at once.
for _ in $(seq 50); do
	[ "$(rpc_field pr2 601 "$sid" rx_left)" = 0 ] && break
	sleep 0.1
done
echo "# $(in_ns pr1 head -n 1 /proc/net/homa_rpcs)"
check "the file starts with the pacer's line" \
	in_ns pr1 grep -q '^pacer: queue_ns [0-9]* ' /proc/net/homa_rpcs
# 1000 bytes skip the pacer: its thread has nothing to do.
check "the pacer thread waits for work, none listed" \
	in_ns pr1 grep -q '^pacer: .* listed 0 .* thread_idle 1$' \
	/proc/net/homa_rpcs
check_eq "client: peer" "$(rpc_field pr1 "$cport" "$cid" peer)" 10.21.0.2
check_eq "client: its port" "$(rpc_field pr1 "$cport" "$cid" dport)" 601
check_eq "client: no response begun" \
	"$(rpc_field pr1 "$cport" "$cid" st)" out
check_eq "client: request length" \
	"$(rpc_field pr1 "$cport" "$cid" tx_len)" 1000
check_eq "client: request sent" "$(rpc_field pr1 "$cport" "$cid" tx_sent)" \
	1000
check_eq "client: no response yet" \
	"$(rpc_field pr1 "$cport" "$cid" rx_len)" -1
check_eq "server: peer" "$(rpc_field pr2 601 "$sid" peer)" 10.21.0.1
check_eq "server: the client's port" "$(rpc_field pr2 601 "$sid" dport)" \
	"$cport"
check_eq "server: request length" "$(rpc_field pr2 601 "$sid" rx_len)" 1000
check_eq "server: request complete" "$(rpc_field pr2 601 "$sid" rx_left)" 0
check_eq "server: receiving" "$(rpc_field pr2 601 "$sid" st)" in
check_eq "server: no bpages without a receive region" \
	"$(rpc_field pr2 601 "$sid" bpg)" 0
check_eq "server: so not ready for recvmsg" \
	"$(rpc_field pr2 601 "$sid" RC)" 00
check_eq "server: no response yet" "$(rpc_field pr2 601 "$sid" tx_len)" -1
kill -USR1 "$p" 2>/dev/null || true
check "the client RPC stayed pending" wait "$p"
grep '^# ' "$pend" || true
release
live_zero pr1 pr2
check_eq "client: no line once its socket is closed" \
	"$(rpc_field pr1 "$cport" "$cid" st)" ""
check_eq "server: no line once its socket is closed" \
	"$(rpc_field pr2 601 "$sid" st)" ""
finish
