#!/usr/bin/env bash
# Shared helpers of the VM tests, sourced by each test/vm/t_*.sh. A test
# runs inside the VM as root, with homa.ko loaded, and exits 0 (pass),
# 1 (fail) or 4 (skip); lines it prints starting with "# " are KTAP
# diagnostics.
# shellcheck disable=SC2034	# variables here are used by the tests

set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$VM_DIR/../.." && pwd)
HOMA_TEST="$VM_DIR/build/homa_test"
NAMESPACES=()
FAILED=0

cleanup() {
	local ns
	for ns in "${NAMESPACES[@]}"; do
		# shellcheck disable=SC2046	# one pid per word
		kill $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
}
trap cleanup EXIT

# ns_add NAME: create a namespace that is deleted when the test exits.
ns_add() {
	ip netns add "$1"
	NAMESPACES+=("$1")
	ip -n "$1" link set lo up
}

# link_pair NS1 NS2 NET4 [NET6]: create two namespaces joined by a veth
# pair, veth1 in NS1 with NET4.1 (and NET6::1), veth2 in NS2 with NET4.2
# (and NET6::2); NET4 is the first three octets, e.g. 10.1.0. The veths
# start with GRO and TSO off, so that no test depends on offloads
# (t_rpc_offload switches them on).
link_pair() {
	ns_add "$1"
	ns_add "$2"
	ip link add veth1 netns "$1" type veth peer name veth2 netns "$2"
	ip -n "$1" addr add "$3.1/24" dev veth1
	ip -n "$2" addr add "$3.2/24" dev veth2
	if [ $# -ge 4 ]; then
		ip -n "$1" addr add "$4::1/64" dev veth1 nodad
		ip -n "$2" addr add "$4::2/64" dev veth2 nodad
	fi
	ip netns exec "$1" ethtool -K veth1 gro off tso off > /dev/null
	ip netns exec "$2" ethtool -K veth2 gro off tso off > /dev/null
	ip -n "$1" link set veth1 up
	ip -n "$2" link set veth2 up
}

# start_ready NS PATTERN WHAT CMD...: start CMD in namespace NS in the
# background, its output in the file READY_OUT, and wait (up to 10 s)
# until a line of it matches PATTERN (grep); READY_PID is CMD's pid.
# Records a failure naming WHAT if it never does.
start_ready() {
	local ns=$1 pattern=$2 what=$3
	shift 3
	READY_OUT=$(mktemp /tmp/ready.XXXXXX)
	# Not through in_ns: $! must be CMD itself (ip execs it).
	ip netns exec "$ns" "$@" > "$READY_OUT" 2>&1 &
	READY_PID=$!
	for _ in $(seq 100); do
		grep -q "$pattern" "$READY_OUT" && return 0
		sleep 0.1
	done
	echo "# FAIL: $what did not start: $(cat "$READY_OUT")"
	FAILED=1
}

# serve NS ARGS...: start "homa_test server ARGS" in NS in the background
# and wait until it is bound (a request sent earlier would be dropped).
# SERVE_OUT names the file that receives the server's output.
serve() {
	local ns=$1
	shift
	start_ready "$ns" '^serving' "server $* in $ns" "$HOMA_TEST" server "$@"
	SERVE_OUT=$READY_OUT
}

# CP_NODE: the benchmark client and server (make -C util builds it).
CP_NODE="$TOP/util/build/cp_node"

# cp_serve NS ARGS...: start "cp_node server ARGS" in NS in the background
# and wait until it is ready; its pid is READY_PID.
cp_serve() {
	local ns=$1
	shift
	start_ready "$ns" '^server: ready' "cp_node server $* in $ns" \
		"$CP_NODE" server "$@"
}

# summary_field LOG NAME: the value of NAME= in the cp_node summary line
# of LOG.
summary_field() {
	sed -n "s/^summary: .*\\b$2=\\([0-9.]*\\).*/\\1/p" "$1"
}

# in_ns NAME CMD...: run a command inside a namespace.
in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# homa_set NAME=VALUE NS...: set net.homa.NAME in each namespace.
homa_set() {
	local kv=$1 ns
	shift
	for ns in "$@"; do
		in_ns "$ns" sysctl -q -w "net.homa.$kv"
	done
}

# netem_rtt_pair: namespaces rtt1 (10.12.0.1) and rtt2 (10.12.0.2) joined
# by a veth pair whose two ends each delay by 10 ms (netem), with
# timeout_ticks 2000 (loss added later would otherwise make timeouts
# likely at 20 ms RTTs) and a homa_test server on rtt2 port 62.
netem_rtt_pair() {
	modprobe sch_netem 2>/dev/null || true
	link_pair rtt1 rtt2 10.12.0 fd12
	homa_set timeout_ticks=2000 rtt1 rtt2
	tc -n rtt1 qdisc replace dev veth1 root netem delay 10ms
	tc -n rtt2 qdisc replace dev veth2 root netem delay 10ms
	serve rtt2 4 62
}

# metric NS NAME: the value of one Homa metric in a namespace.
metric() {
	# shellcheck disable=SC2016	# $1 and $2 are awk's fields
	in_ns "$1" awk -v m="$2" '$1 == m { print $2 }' /proc/net/homa_metrics
}

# metric_snap NS...: each metric named in the array METRICS, summed over
# the namespaces, on one line (for metric_moves).
metric_snap() {
	local m ns sum
	for m in "${METRICS[@]}"; do
		sum=0
		for ns in "$@"; do
			sum=$((sum + $(metric "$ns" "$m")))
		done
		echo -n "$sum "
	done
}

# metric_moves BEFORE AFTER: NAME=change for each of METRICS between two
# lines of metric_snap.
metric_moves() {
	# Names of their own: shellcheck follows lib.sh into every test.
	local -a moves_before moves_after
	local i line=""
	read -r -a moves_before <<< "$1"
	read -r -a moves_after <<< "$2"
	for i in "${!METRICS[@]}"; do
		line+=" ${METRICS[$i]}=$((moves_after[i] - moves_before[i]))"
	done
	echo "$line"
}

# check DESCRIPTION CMD...: run a command; record a failure if it fails.
check() {
	local what=$1
	shift
	if ! "$@"; then
		echo "# FAIL: $what"
		FAILED=1
	fi
}

# check_eq DESCRIPTION GOT WANT: record a failure unless GOT == WANT.
check_eq() {
	if [ "$2" != "$3" ]; then
		echo "# FAIL: $1: got '$2', want '$3'"
		FAILED=1
	fi
}

# timed CHECK ARGS...: run a check (check, check_eq) whose outcome depends
# on how fast the host runs: an order of completions, a rate, a time
# bound. On the debug kernel (uname -r ends in -homa-debug; KASAN, lockdep
# and kmemleak make it 10-30 times slower) its failure is printed but not
# judged: that lane is for kernel reports, and the Debian kernels judge
# the timing.
timed() {
	local before=$FAILED
	"$@"
	if [ "$FAILED" != "$before" ] && [[ $(uname -r) == *-homa-debug ]]; then
		echo "# (timing on the debug kernel: not judged)"
		FAILED=$before
	fi
}

# hold NS PORT [noserver|shutdown]: bind PORT in NS from a background
# process (with noserver: then switch SO_HOMA_SERVER off; with shutdown:
# then shut the socket down, keeping the port); sets HOLD_PID.
hold() {
	local out
	out=$(mktemp /tmp/hold.XXXXXX)
	# Not through in_ns: $! must be homa_test itself (ip execs it).
	ip netns exec "$1" "$HOMA_TEST" hold "${@:2}" > "$out" 2>&1 &
	HOLD_PID=$!
	for _ in $(seq 100); do
		grep -q "^bound $2" "$out" && return 0
		kill -0 "$HOLD_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# FAIL: could not hold port $2 in $1: $(cat "$out")"
	FAILED=1
}

# release: end the process started by hold, closing its socket.
release() {
	kill "$HOLD_PID" 2>/dev/null || true
	wait "$HOLD_PID" 2>/dev/null || true
}

# stop_all NS: kill every process in NS (closing their sockets) and wait.
stop_all() {
	local pids
	pids=$(ip netns pids "$1" 2>/dev/null)
	# shellcheck disable=SC2086	# one pid per word
	[ -z "$pids" ] || kill $pids 2>/dev/null || true
	for _ in $(seq 50); do
		[ -z "$(ip netns pids "$1" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
}

# settled NS NAME WANT: true once metric NAME in NS equals WANT (waits up
# to 10 s: the timer frees what ended RPCs left a few packets at a time).
settled() {
	for _ in $(seq 100); do
		[ "$(metric "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	echo "# $1 $2 is $(metric "$1" "$2"), want $3"
	return 1
}

# live_zero NS...: after the namespaces' processes are gone, every
# live-object counter (sockets, RPCs, packets held) must return to zero.
live_zero() {
	local ns m
	for ns in "$@"; do
		stop_all "$ns"
		for m in sockets_live rpcs_live skbs_live; do
			check "$ns: $m back to 0" settled "$ns" "$m" 0
		done
	done
}

# bridge_hosts SW NET4 NET6 NS...: hosts on one switch: namespace number
# i (from 1) gets NET4.i/24 and NET6::i/64 on a veth (GRO and TSO off) to
# bridge br0 in namespace SW.
bridge_hosts() {
	local sw=$1 net4=$2 net6=$3 ns i=0
	shift 3
	ns_add "$sw"
	ip -n "$sw" link add br0 type bridge
	ip -n "$sw" link set br0 up
	for ns in "$@"; do
		i=$((i + 1))
		ns_add "$ns"
		ip link add veth0 netns "$ns" type veth peer name "p$i" \
			netns "$sw"
		ip -n "$ns" addr add "$net4.$i/24" dev veth0
		ip -n "$ns" addr add "$net6::$i/64" dev veth0 nodad
		ip netns exec "$ns" ethtool -K veth0 gro off tso off > /dev/null
		ip -n "$ns" link set veth0 up
		ip -n "$sw" link set "p$i" master br0 up
	done
}

# wait_metric NS NAME WANT SECS: true once metric NAME in NS equals WANT,
# waiting up to SECS seconds.
wait_metric() {
	local i
	for ((i = 0; i < $4 * 10; i++)); do
		[ "$(metric "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	echo "# $1 $2 is $(metric "$1" "$2") after $4 s, want $3"
	return 1
}

# rises NS METRIC FROM: wait (up to 20 s) until METRIC in NS is above
# FROM. The RESEND timer follows the measured RTT, long when the VM is
# busy.
rises() {
	for _ in $(seq 200); do
		[ "$(metric "$1" "$2")" -gt "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# drop_data NS PRIO MATCH...: on NS's veth1 (a prio qdisc, handle 1:,
# added with the first filter), a u32 filter of tc priority PRIO that
# drops the Homa DATA packets (type 0x10 at 20 + 11 of an IPv4 packet)
# that also fit the u32 MATCH arguments ("match ..." clauses).
drop_data() {
	local ns=$1 prio=$2
	shift 2
	tc -n "$ns" qdisc show dev veth1 | grep -q 'qdisc prio 1:' ||
		tc -n "$ns" qdisc add dev veth1 root handle 1: prio
	tc -n "$ns" filter add dev veth1 parent 1: protocol ip prio "$prio" \
		u32 match ip protocol 146 0xff match u8 0x10 0xff at 31 \
		"$@" action drop
}

# finish: exit with the test's verdict.
finish() {
	exit "$FAILED"
}
