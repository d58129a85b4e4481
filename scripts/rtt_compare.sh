#!/usr/bin/env bash
# A figure, not a test: round-trip time of small echo RPCs between two
# hosts (network namespaces joined by a veth pair) in the VM, Homa and TCP
# measured in the same run, one RPC at a time. The emulated machine's
# timing drifts by more than the difference between the protocols, so the
# protocols alternate for ROUNDS rounds and the medians of the rounds'
# P50 and P99 are printed beside each round's figures. A first round of
# 200 RPCs each, not counted, warms both (Homa's first RPCs to a peer also
# create the peer and fault in the client's buffer region).
# Both servers do the same work per RPC: receive, copy the message out,
# send it back. Homa's is homa_test echo_server, which keeps no
# at-most-once record: the VM tests' server does, and writing a new slot of
# its 8-MB table cost about 25 us of page faults per request under
# emulation until the table was touched, counted in Homa's round trip
# only (tcp_server keeps no record).
# The VM's kernel reads the TSC, as util/cp_vs_tcp's does by default
# (util/README-bench.md, "The VM's clock"); RTT_CLOCK=hpet leaves it the
# emulated HPET.
# RTT_POLL_USECS=N adds a third row to each round, "homa-poll": Homa with
# net.homa.poll_usecs N on both hosts (recvmsg spins up to N us before it
# sleeps), set for that row only.
# Usage: [RTT_CLOCK=tsc|hpet] [RTT_POLL_USECS=N] scripts/rtt_compare.sh
#        [COUNT [SIZE [ROUNDS]]]
# (make rtt)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-1000}
size=${2:-100}
rounds=${3:-5}
poll=${RTT_POLL_USECS:-0}

# Median of the numbers on standard input, one per line.
median() {
	sort -n | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%d\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

if [ "${4:-}" = "--inside" ]; then
	poll=${5:-0}
	t="$TOP/test/vm/build/homa_test"
	insmod "$TOP/homa.ko"
	mkdir -p /run/netns
	ip netns add h1
	ip netns add h2
	ip link add veth1 netns h1 type veth peer name veth2 netns h2
	ip -n h1 addr add 10.5.0.1/24 dev veth1
	ip -n h2 addr add 10.5.0.2/24 dev veth2
	ip -n h1 link set veth1 up
	ip -n h2 link set veth2 up
	ip netns exec h2 "$t" echo_server 4 40 > /dev/null &
	ip netns exec h2 "$t" tcp_server 5000 > /dev/null &
	sleep 1
	ip netns exec h1 "$t" client 10.5.0.2 40 200 "$size" 1 > /dev/null
	ip netns exec h1 "$t" tcp_client 10.5.0.2 5000 200 "$size" > /dev/null
	echo "clocksource: $(cat \
		/sys/devices/system/clocksource/clocksource0/current_clocksource)"
	out=$(mktemp)
	printf '%-9s %6s %8s %8s %10s %10s\n' proto round rpcs bytes \
		p50_us p99_us
	for ((r = 1; r <= rounds; r++)); do
		homa=$(ip netns exec h1 "$t" client 10.5.0.2 40 "$count" \
			"$size" 1)
		tcp=$(ip netns exec h1 "$t" tcp_client 10.5.0.2 5000 \
			"$count" "$size")
		rows=("homa $homa" "tcp $tcp")
		if [ "$poll" -gt 0 ]; then
			for h in h1 h2; do
				ip netns exec $h sysctl -q -w \
					net.homa.poll_usecs="$poll"
			done
			hp=$(ip netns exec h1 "$t" client 10.5.0.2 40 \
				"$count" "$size" 1)
			for h in h1 h2; do
				ip netns exec $h sysctl -q -w net.homa.poll_usecs=0
			done
			rows+=("homa-poll $hp")
		fi
		for x in "${rows[@]}"; do
			# shellcheck disable=SC2086	# split into fields
			set -- $x
			printf '%-9s %6s %8s %8s %10s %10s\n' "$1" "$r" "$3" \
				"$5" "$7" "$9"
			echo "$1 $7 $9" >> "$out"
		done
	done
	protos=(homa tcp)
	if [ "$poll" -gt 0 ]; then
		protos+=(homa-poll)
	fi
	for p in "${protos[@]}"; do
		p50=$(awk -v p="$p" '$1 == p { print $2 }' "$out" | median)
		p99=$(awk -v p="$p" '$1 == p { print $3 }' "$out" | median)
		printf '%-9s %6s %8s %8s %10s %10s\n' "$p" median \
			$((count * rounds)) "$size" "$p50" "$p99"
	done
	rm -f "$out"
	exit 0
fi

case $poll in
'' | *[!0-9]*) echo "rtt: RTT_POLL_USECS is a number" >&2; exit 2 ;;
esac
case ${RTT_CLOCK:=tsc} in
tsc | hpet) export VM_CLOCK=$RTT_CLOCK ;;
*) echo "rtt: RTT_CLOCK is tsc or hpet" >&2; exit 2 ;;
esac

mkdir -p "$TOP/test/vm/build"
gcc -Wall -Wextra -Werror -O2 -I"$TOP" -o "$TOP/test/vm/build/homa_test" \
	"$TOP/test/vm/homa_test.c"
order="Homa then TCP"
if [ "$poll" -gt 0 ]; then
	order="$order then Homa with poll_usecs $poll"
fi
echo "rtt: $rounds rounds of $count echo RPCs of $size B, one at a time," \
	"$order in each, after 200 of each uncounted ($("$TOP/scripts/vm.sh" --kernel))"
"$TOP/scripts/vm.sh" -- "$TOP/scripts/rtt_compare.sh" "$count" "$size" \
	"$rounds" --inside "$poll" 2>&1 | grep -v '^\['
