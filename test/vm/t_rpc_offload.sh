#!/usr/bin/env bash
# The same echo RPCs with the veth offloads (GRO, GSO, TSO) switched on:
# Homa must work, byte for byte, whatever the device does.
#
#   [off1] veth1 10.4.0.1 fd04::1 ---- veth2 10.4.0.2 fd04::2 [off2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add off1
ns_add off2
ip link add veth1 netns off1 type veth peer name veth2 netns off2
ip -n off1 addr add 10.4.0.1/24 dev veth1
ip -n off2 addr add 10.4.0.2/24 dev veth2
ip -n off1 addr add fd04::1/64 dev veth1 nodad
ip -n off2 addr add fd04::2/64 dev veth2 nodad
for ns in off1 off2; do
	dev=veth1
	[ "$ns" = off2 ] && dev=veth2
	ip -n "$ns" link set "$dev" up
	in_ns "$ns" ethtool -K "$dev" gro on gso on tso on > /dev/null
done
check "GRO is on" sh -c "ip netns exec off2 ethtool -k veth2 |
	grep -q 'generic-receive-offload: on'"

in_ns off2 "$HOMA_TEST" server 4 40 > /tmp/off_server4.out 2>&1 &
in_ns off2 "$HOMA_TEST" server 6 41 > /tmp/off_server6.out 2>&1 &
sleep 1
for size in 1 1425 100000 1000000; do
	check "IPv4 echo $size B, offloads on" in_ns off1 "$HOMA_TEST" \
		client 10.4.0.2 40 10 "$size" 1
	check "IPv6 echo $size B, offloads on" in_ns off1 "$HOMA_TEST" \
		client fd04::2 41 10 "$size" 1
done
check "IPv4 random sizes, offloads on" in_ns off1 "$HOMA_TEST" client \
	10.4.0.2 40 30 0 4
finish
