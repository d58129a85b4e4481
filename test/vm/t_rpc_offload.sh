#!/usr/bin/env bash
# The same echo RPCs with the veth offloads (GRO, GSO, TSO) switched on:
# Homa must work, byte for byte, whatever the device does.
#
#   [off1] veth1 10.4.0.1 fd04::1 ---- veth2 10.4.0.2 fd04::2 [off2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair off1 off2 10.4.0 fd04
in_ns off1 ethtool -K veth1 gro on gso on tso on > /dev/null
in_ns off2 ethtool -K veth2 gro on gso on tso on > /dev/null
check "GRO is on" sh -c "ip netns exec off2 ethtool -k veth2 |
	grep -q 'generic-receive-offload: on'"

serve off2 4 40
serve off2 6 41
for size in 1 1425 100000 1000000; do
	check "IPv4 echo $size B, offloads on" in_ns off1 "$HOMA_TEST" \
		client 10.4.0.2 40 10 "$size" 1
	check "IPv6 echo $size B, offloads on" in_ns off1 "$HOMA_TEST" \
		client fd04::2 41 10 "$size" 1
done
check "IPv4 random sizes, offloads on" in_ns off1 "$HOMA_TEST" client \
	10.4.0.2 40 30 0 4
finish
