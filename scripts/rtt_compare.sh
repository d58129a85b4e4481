#!/usr/bin/env bash
# A figure, not a test: round-trip time of small echo RPCs between two
# hosts (network namespaces joined by a veth pair) in the VM, Homa and TCP
# measured in the same run, one RPC at a time.
# Usage: scripts/rtt_compare.sh [COUNT [SIZE]]   (make rtt)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-1000}
size=${2:-100}

if [ "${3:-}" = "--inside" ]; then
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
	ip netns exec h2 "$t" server 4 40 > /dev/null &
	ip netns exec h2 "$t" tcp_server 5000 > /dev/null &
	sleep 1
	homa=$(ip netns exec h1 "$t" client 10.5.0.2 40 "$count" "$size" 1)
	tcp=$(ip netns exec h1 "$t" tcp_client 10.5.0.2 5000 "$count" "$size")
	printf '%-6s %8s %8s %10s %10s\n' proto rpcs bytes p50_us p99_us
	for r in "homa $homa" "tcp $tcp"; do
		# shellcheck disable=SC2086	# split the result into fields
		set -- $r
		printf '%-6s %8s %8s %10s %10s\n' "$1" "$3" "$5" "$7" "$9"
	done
	exit 0
fi

mkdir -p "$TOP/test/vm/build"
gcc -Wall -Wextra -Werror -O2 -I"$TOP" -o "$TOP/test/vm/build/homa_test" \
	"$TOP/test/vm/homa_test.c"
echo "rtt: $count echo RPCs of $size B, one at a time, Homa then TCP" \
	"($("$TOP/scripts/vm.sh" --kernel))"
"$TOP/scripts/vm.sh" -- "$TOP/scripts/rtt_compare.sh" "$count" "$size" \
	--inside 2>&1 | grep -v '^\['
