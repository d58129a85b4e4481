#!/usr/bin/env bash
# The main job, for now: build homa.ko, boot Debian's kernel in a VM, load
# Homa, open Homa sockets in two hosts (network namespaces joined by a veth
# pair) and print what the module reports. (The Homa-vs-TCP benchmark will
# take this place.)
# Usage: scripts/demo.sh   (make demo)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--inside" ]; then
	insmod "$TOP/homa.ko"
	mkdir -p /run/netns
	ip netns add host1
	ip netns add host2
	ip link add veth1 netns host1 type veth peer name veth2 netns host2
	ip -n host1 addr add 10.0.0.1/24 dev veth1
	ip -n host2 addr add 10.0.0.2/24 dev veth2
	ip -n host1 link set veth1 up
	ip -n host2 link set veth2 up
	echo "homa.ko loaded: $(grep '^homa ' /proc/modules)"
	# shellcheck disable=SC2016	# awk and python code in single quotes
	for h in host1 host2; do
		ip netns exec "$h" python3 -c '
import socket
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 146)
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, 146)
s4.bind(("0.0.0.0", 99))
print("  IPv4 Homa socket bound to port", s4.getsockname()[1],
      "; IPv6 Homa socket on client port", s6.getsockname()[1])'
		echo "$h: net.homa.unsched_bytes=$(ip netns exec "$h" \
			sysctl -n net.homa.unsched_bytes)," \
			"sockets_opened=$(ip netns exec "$h" awk \
			'$1 == "sockets_opened" { print $2 }' \
			/proc/net/homa_metrics)"
	done
	exit 0
fi

"$TOP/scripts/vm.sh" -- "$TOP/scripts/demo.sh" --inside 2>&1 |
	grep -v '^\[' || true
