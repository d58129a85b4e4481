#!/usr/bin/env bash
# A forged-request flood: one host sends 20000 DATA packets, each a new
# RPC id, message length 1 MB, 1 byte of payload (homa_attack flood), to a
# bound server while a legitimate client runs 100 B echo RPCs, one at a
# time, from one process for the whole run (homa_test timeline: RPCs
# completed per 100 ms of wall-clock time). With the caps on server RPCs
# not yet delivered (net.homa.peer_rpc_limit, net.homa.sock_rpc_limit;
# drops counted in drop_rpc_limit), rpcs_live on the server stays at most
# the cap plus the legitimate client's RPCs, and every legitimate RPC
# completes with the right bytes.
#
# The same flood is first sent with an IP protocol number nobody handles
# (253): the server's IP layer drops it. That control measures what the
# flood costs on this test bed without Homa (the attacker, the client and
# the server share the VM's two CPUs). The legitimate rate before, during
# and after each flood, the server's slab memory and its live RPCs are
# printed, not asserted (DESIGN.md: no test asserts a timing). Without
# the caps: SKIP.
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
# The legitimate client's run: 3 s before the flood, the flood (about 4 s
# here), then 7 s after it.
TIMELINE_MS=20000

if [ ! -e /proc/sys/net/homa/peer_rpc_limit ] ||
   [ ! -e /proc/sys/net/homa/sock_rpc_limit ]; then
	echo "# SKIP caps not in this module"
	exit 4
fi

now_ms() {
	date +%s%3N
}

slab_kb() {
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}

# rate FILE FROM TO: ops/s of the slots of a timeline FILE that lie wholly
# in [FROM, TO) ms; "n/a" if none does.
rate() {
	awk -v from="$2" -v to="$3" '
		$1 == "slot" && $2 >= from && $2 + 100 <= to { n += $3; ms += 100 }
		END { if (ms) printf "%d", n * 1000 / ms; else printf "n/a" }' "$1"
}

# pct A B: A as a percentage of B.
pct() {
	case "$1$2" in
	*n/a*) echo "n/a" ;;
	*) echo "$(($1 * 100 / ($2 + 1)))%" ;;
	esac
}

# counters NS: the Homa metrics of NS that tell where time goes in a
# flood (retransmission, drops, waits), and the VM's backlog drops (all
# namespaces share them), as "name value" lines.
counters() {
	local d=0 drop rest
	# shellcheck disable=SC2016	# $1 and $2 are awk's fields
	in_ns "$1" awk '$1 ~ /resend|drop|busy|timeout|stall|wait/ && $2 != 0 {
		print $1, $2 }' /proc/net/homa_metrics
	while read -r _ drop rest; do
		d=$((d + 16#$drop))
	done < /proc/net/softnet_stat
	echo "softnet_dropped $d"
}

# delta BEFORE AFTER: "name +N" for each counter that changed.
delta() {
	awk 'NR == FNR { b[$1] = $2; next }
		$2 != b[$1] { printf " %s +%d", $1, $2 - b[$1] }' "$1" "$2"
}

# flood LABEL [PROTO]: the legitimate client's timeline around one flood;
# prints its rates; sets MAX_LIVE and MAX_SLAB.
flood() {
	local tl samples sampler perf_pid='' t0 t1 tl_pid before during just after
	tl=$(mktemp /tmp/flood.XXXXXX)
	samples=$tl.live
	: > "$samples"
	: > "$samples.slab"
	ip netns exec fcli "$HOMA_TEST" timeline 10.8.0.1 40 $TIMELINE_MS \
		100 > "$tl" 2>&1 &
	tl_pid=$!
	(
		while :; do
			metric fsrv rpcs_live >> "$samples"
			slab_kb >> "$samples.slab"
			sleep 0.1
		done
	) &
	sampler=$!
	sleep 3
	counters fcli > "$tl.c0"
	counters fsrv > "$tl.s0"
	t0=$(now_ms)
	if [ -n "${FLOOD_PERF:-}" ] && [ -z "${2:-}" ]; then
		# perf records the whole VM while the attacker runs (its
		# start-up counts in "during" here: x_flood_perf's rates are
		# not the test's figures).
		perf record -q -a -g -e cpu-clock -F 999 -o /tmp/flood.perf \
			-- ip netns exec fatk "$ATTACK" flood 10.8.0.1 40 \
			"$FLOOD" > "$tl.atk" 2> /dev/null
		perf_pid=1
	else
		in_ns fatk "$ATTACK" flood 10.8.0.1 40 "$FLOOD" ${2:+"$2"} \
			> "$tl.atk"
	fi
	t1=$(now_ms)
	counters fcli > "$tl.c1"
	counters fsrv > "$tl.s1"
	if [ -n "$perf_pid" ]; then
		perf report -i /tmp/flood.perf --no-children --sort sym \
			--stdio -g none 2>/dev/null |
			awk '!/^#/ && NF && n++ < 40 { print "# perf: " $0 }'
		perf report -i /tmp/flood.perf --children --sort sym \
			--stdio -g none 2>/dev/null |
			awk '!/^#/ && /homa/ && n++ < 30 {
				print "# perf children: " $0 }'
	fi
	if ! wait "$tl_pid"; then
		echo "# FAIL: legitimate client ($1): $(grep -v '^slot' "$tl")"
		FAILED=1
	fi
	kill "$sampler"
	wait "$sampler" 2>/dev/null || true
	before=$(rate "$tl" $((t0 - 2500)) "$t0")
	during=$(rate "$tl" "$t0" "$t1")
	just=$(rate "$tl" "$t1" $((t1 + 2000)))
	after=$(rate "$tl" $((t1 + 5000)) $((t1 + 7000)))
	echo "# $1: $(cat "$tl.atk") in $((t1 - t0)) ms; legitimate 100 B" \
		"ops/s: before $before, during $during, 0-2 s after $just," \
		"5-7 s after $after ($(pct "$during" "$before")," \
		"$(pct "$just" "$before"), $(pct "$after" "$before") of before)"
	echo "# during it, client:$(delta "$tl.c0" "$tl.c1")"
	echo "# during it, server:$(delta "$tl.s0" "$tl.s1")"
	MAX_LIVE=$(sort -n "$samples" | tail -n 1)
	MAX_SLAB=$(sort -n "$samples.slab" | tail -n 1)
	rm -f "$tl" "$tl.atk" "$tl".[cs][01] "$samples" "$samples.slab"
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
if ! out=$(ip netns exec fcli "$HOMA_TEST" client 10.8.0.1 40 20 100 1 2>&1)
then
	echo "# FAIL: legitimate client (warm-up): $out"
	FAILED=1
fi

flood "control flood (IP protocol 253, dropped by IP)" 253
slab0=$(slab_kb)
flood "Homa flood"
echo "# server: rpcs_live at most $MAX_LIVE (cap $cap), now" \
	"$(metric fsrv rpcs_live); drop_rpc_limit" \
	"$(metric fsrv drop_rpc_limit); slab $slab0 kB before, at most" \
	"$MAX_SLAB kB, $(slab_kb) kB now"
check "server rpcs_live within the cap: $MAX_LIVE <= $cap + $LEGIT_RPCS" \
	test "$MAX_LIVE" -le $((cap + LEGIT_RPCS))
if [ "$cap" -lt "$FLOOD" ]; then
	timed check "flood RPCs beyond the cap counted" \
		test "$(metric fsrv drop_rpc_limit)" -gt 0
fi
live_zero fcli fatk fsrv
finish
