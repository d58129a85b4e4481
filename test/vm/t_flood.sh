#!/usr/bin/env bash
# A forged-request flood: one host sends 20000 DATA packets, each a new
# RPC id, message length 1 MB, 1 byte of payload (homa_attack flood), to a
# bound server while a legitimate client runs 100 B echo RPCs, one at a
# time, to the same server. With the caps on server RPCs not yet delivered
# (net.homa.peer_rpc_limit, net.homa.sock_rpc_limit; drops counted in
# drop_rpc_limit), rpcs_live on the server stays at most the cap plus the
# legitimate client's RPCs, and every legitimate RPC completes. The
# legitimate client's rate before, during and after the flood, the
# server's slab memory and its live RPCs are printed, not asserted
# (DESIGN.md: no test asserts a timing). Without the caps: SKIP.
#
#   [fsrv] 10.8.0.1 --+
#   [fcli] 10.8.0.2 --+-- br0 [fsw]
#   [fatk] 10.8.0.3 --+
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ATTACK="$VM_DIR/build/homa_attack"
FLOOD=20000
# Server RPCs the legitimate client may hold: one outstanding, plus a few
# whose response waits for the client's ack.
LEGIT_RPCS=10

if [ ! -e /proc/sys/net/homa/peer_rpc_limit ] ||
   [ ! -e /proc/sys/net/homa/sock_rpc_limit ]; then
	echo "# SKIP caps not in this module"
	exit 4
fi

# rate NAME COUNT: COUNT 100 B echo RPCs from fcli, one at a time; sets
# RATE (ops/s) and, unless NAME is empty, prints "NAME: R ops/s; p50 X
# p99 Y". A failed run is a test failure.
rate() {
	local t0 t1 out
	t0=$(date +%s%N)
	if ! out=$(timeout 60 ip netns exec fcli "$HOMA_TEST" client \
		10.8.0.1 40 "$2" 100 1 2>&1); then
		echo "# FAIL: legitimate client (${1:-during the flood}): $out"
		FAILED=1
	fi
	t1=$(date +%s%N)
	RATE=$(( $2 * 1000000000 / (t1 - t0 + 1) ))
	if [ -n "$1" ]; then
		echo "# $1: $RATE ops/s; $(echo "$out" | grep -o 'p50.*')"
	fi
}

slab_kb() {
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}

bridge_hosts fsw 10.8.0 fd08 fsrv fcli fatk
if [ -e /proc/sys/net/homa/stall_ms ]; then
	homa_set stall_ms=500 fsrv fcli fatk
fi
peer_cap=$(in_ns fsrv sysctl -n net.homa.peer_rpc_limit)
sock_cap=$(in_ns fsrv sysctl -n net.homa.sock_rpc_limit)
cap=$((peer_cap < sock_cap ? peer_cap : sock_cap))
echo "# caps: peer_rpc_limit $peer_cap, sock_rpc_limit $sock_cap"
serve fsrv 4 40
rate "" 20
slab0=$(slab_kb)
rate "before the flood" 300
before=$RATE

# Sample the server's rpcs_live while the flood and the client run.
samples=$(mktemp /tmp/flood.XXXXXX)
(
	while :; do
		metric fsrv rpcs_live >> "$samples"
		slab_kb >> "$samples.slab"
		sleep 0.1
	done
) &
sampler=$!
t0=$(date +%s%N)
in_ns fatk "$ATTACK" flood 10.8.0.1 40 "$FLOOD" > "$samples.atk" &
attacker=$!
during_rpcs=0
while kill -0 "$attacker" 2>/dev/null; do
	rate "" 20
	during_rpcs=$((during_rpcs + 20))
done
wait "$attacker"
t1=$(date +%s%N)
during=$(( during_rpcs * 1000000000 / (t1 - t0 + 1) ))
echo "# flood: $(cat "$samples.atk") in $(( (t1 - t0) / 1000000 )) ms;" \
	"meanwhile $during_rpcs legitimate RPCs, $during ops/s"
rate "right after the flood" 300
just_after=$RATE
sleep 5
rate "5 s after the flood" 300
after=$RATE
kill "$sampler"
wait "$sampler" 2>/dev/null || true
max_live=$(sort -n "$samples" | tail -n 1)
max_slab=$(sort -n "$samples.slab" | tail -n 1)
echo "# legitimate 100 B rate: before $before, during $during, right" \
	"after $just_after, 5 s after $after ops/s (" \
	"$((during * 100 / (before + 1)))%," \
	"$((just_after * 100 / (before + 1)))%," \
	"$((after * 100 / (before + 1)))% of before)"
echo "# server: rpcs_live at most $max_live (cap $cap), now" \
	"$(metric fsrv rpcs_live); drop_rpc_limit" \
	"$(metric fsrv drop_rpc_limit); slab $slab0 kB before, at most" \
	"$max_slab kB, $(slab_kb) kB now"
check "server rpcs_live within the cap: $max_live <= $cap + $LEGIT_RPCS" \
	test "$max_live" -le $((cap + LEGIT_RPCS))
if [ "$cap" -lt "$FLOOD" ]; then
	timed check "flood RPCs beyond the cap counted" \
		test "$(metric fsrv drop_rpc_limit)" -gt 0
fi
rm -f "$samples" "$samples.slab" "$samples.atk"
live_zero fcli fatk fsrv
finish
