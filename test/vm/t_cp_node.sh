#!/usr/bin/env bash
# The cp_node benchmark (util/build/cp_node, built with "make -C util")
# between two hosts: a server per protocol in cpn2, short clients in cpn1
# over Homa and TCP (workload w1 and a fixed 100000-byte workload, closed
# and open loop, a warm-up, one-way replies, IPv6, the unloaded mode, a
# full transmit memory). Each client's summary line must show RPCs and no
# errors, and its output file must hold one line per RPC.
#
#   [cpn1] veth1 10.9.0.1 fd09::1 ---- veth2 10.9.0.2 fd09::2 [cpn2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

if [ ! -x "$CP_NODE" ]; then
	echo "# cp_node not built: run make -C util before the VM tests"
	exit 1
fi

link_pair cpn1 cpn2 10.9.0 fd09

SERVER_PIDS=()

# cp_server ARGS...: start "cp_node server ARGS" in cpn2; wait until ready.
cp_server() {
	cp_serve cpn2 "$@"
	SERVER_PIDS+=("$READY_PID")
}

# cp_client DESCRIPTION ARGS...: run "cp_node client ARGS" in cpn1 and
# check its summary and output file.
cp_client() {
	local what=$1 log out rpcs errors lines bad
	shift
	log=$(mktemp /tmp/cp_client.XXXXXX)
	out=$(mktemp /tmp/cp_rtts.XXXXXX)
	if ! in_ns cpn1 timeout 120 "$CP_NODE" client --output "$out" "$@" \
		> "$log" 2>&1; then
		echo "# FAIL: $what: cp_node client failed:"
		sed 's/^/#   /' "$log"
		FAILED=1
		return
	fi
	grep '^summary:' "$log" | sed "s/^/# $what: /"
	rpcs=$(summary_field "$log" rpcs)
	errors=$(summary_field "$log" errors)
	check "$what: summary line present" test -n "$rpcs"
	check "$what: rpcs > 0 (got '$rpcs')" test "${rpcs:-0}" -gt 0
	check_eq "$what: errors" "$errors" 0
	lines=$(grep -cv '^#' "$out" || true)
	check_eq "$what: lines in the output file" "$lines" "$rpcs"
	bad=$(grep -v '^#' "$out" | grep -cvE '^[0-9]+ [0-9]+$' || true)
	check_eq "$what: malformed output lines" "$bad" 0
	LAST_LOG=$log
	LAST_OUT=$out
}

cp_server --protocol homa --ports 2
cp_server --protocol tcp --ports 2
cp_server --protocol homa --first-port 4100 --ipv6

cp_client "homa w1" --protocol homa --servers 10.9.0.2 --server-ports 2 \
	--ports 2 --workload w1 --seconds 2 --client-max 4
check "homa w1: a status line" grep -q '^status: t=1 kops=' "$LAST_LOG"
cp_client "homa 100000 B" --protocol homa --servers 10.9.0.2 \
	--server-ports 2 --workload 100000 --seconds 2 --client-max 2
sizes=$(grep -v '^#' "$LAST_OUT" | cut -d' ' -f1 | sort -u)
check_eq "homa 100000 B: request lengths" "$sizes" 100000
check_eq "homa 100000 B: bytes_done, request and echo of each RPC" \
	"$(summary_field "$LAST_LOG" bytes_done)" \
	$(($(summary_field "$LAST_LOG" rpcs) * 200000))
cp_client "homa w1 open loop" --protocol homa --servers 10.9.0.2 \
	--workload w1 --gbps 0.001 --seconds 2 --seed 1
check_eq "homa open loop: offered load" \
	"$(summary_field "$LAST_LOG" offered_gbps)" 0.001
# A warm-up of 1.5 s: load from the start, counted only after it.
cp_client "homa warm-up" --protocol homa --servers 10.9.0.2 \
	--workload 100000 --warmup 1.5 --seconds 1 --client-max 2
check_eq "homa warm-up: second 1 counted nothing" \
	"$(sed -n 's/^status: t=1 kops=\([0-9.]*\) .*/\1/p' "$LAST_LOG")" 0.00
# Load ran while nothing was counted: RPCs completed in the warm-up.
# (Not the status line's outstanding count: an instant's sample, which is
# 0 whenever the closed loop's two RPCs complete together.)
check "homa warm-up: RPCs completed in second 1" test "$(sed -n \
	's/^status: t=1 .* warmup_rpcs=\([0-9]*\)$/\1/p' "$LAST_LOG")" -gt 0
check_eq "homa warm-up: the counted seconds" \
	"$(summary_field "$LAST_LOG" seconds)" 1.0
check "homa warm-up: RPCs counted after it" \
	test "$(summary_field "$LAST_LOG" rpcs)" -gt 0
cp_client "homa one-way" --protocol homa --servers 10.9.0.2 \
	--workload 100000 --one-way --seconds 2 --client-max 2
cp_client "homa IPv6 w1" --protocol homa --ipv6 --servers fd09::2 \
	--first-port 4100 --workload w1 --seconds 2
cp_client "homa unloaded" --protocol homa --servers 10.9.0.2 \
	--workload starve --unloaded 1
check_eq "homa unloaded: one line per size" \
	"$(grep -c '^unloaded: length=' "$LAST_LOG")" 10
# Transmit memory at its minimum: sendmsg says EAGAIN, cp_node waits for
# POLLOUT and loses nothing.
in_ns cpn1 sysctl -q -w net.homa.wmem_max=10000
cp_client "homa w1, wmem_max 10000" --protocol homa --servers 10.9.0.2 \
	--workload w1 --seconds 2 --client-max 200
in_ns cpn1 sysctl -q -w net.homa.wmem_max=100000000
cp_client "tcp w1" --protocol tcp --servers 10.9.0.2 --server-ports 2 \
	--ports 2 --workload w1 --seconds 2 --client-max 4
cp_client "tcp 100000 B" --protocol tcp --servers 10.9.0.2 \
	--server-ports 2 --workload 100000 --seconds 2 --client-max 2
cp_client "tcp one-way" --protocol tcp --servers 10.9.0.2 \
	--workload 100000 --one-way --seconds 2 --client-max 2

check "a bad option is rejected" \
	bash -c "! '$CP_NODE' client --protocol homa --servers x --ports 0 \
		2> /dev/null"
for pid in "${SERVER_PIDS[@]}"; do
	kill -TERM "$pid"
	check "server $pid exits 0 on SIGTERM" wait "$pid"
done
check_eq "client RPCs all freed" "$(metric cpn1 rpcs_live)" 0
finish
