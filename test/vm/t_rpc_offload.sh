#!/usr/bin/env bash
# The same echo RPCs with the veth offloads (GRO, GSO, TSO) switched on:
# Homa must work, byte for byte, whatever the device does. With TSO on, a
# large DATA packet crosses the veth whole (the receiver sees fewer packets
# than MTU segments); with TSO off, Homa's software segmentation cuts it.
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

# TSO on: 10 messages of 100000 B each way are at least 710 MTU segments.
before=$(metric off2 pkts_rx_data)
check "IPv4 echo 100000 B, TSO on" in_ns off1 "$HOMA_TEST" \
	client 10.4.0.2 40 10 100000 1
rx=$(($(metric off2 pkts_rx_data) - before))
check "large packets arrive whole with TSO on ($rx DATA packets)" \
	test "$rx" -lt 700
check_eq "no software segmentation with TSO on" \
	"$(metric off1 gso_segmented)" 0

# TSO off on both ends: the stack calls Homa's segmentation.
in_ns off1 ethtool -K veth1 tso off > /dev/null
in_ns off2 ethtool -K veth2 tso off > /dev/null
before=$(metric off2 pkts_rx_data)
for size in 1425 100000 1000000; do
	check "IPv4 echo $size B, TSO off" in_ns off1 "$HOMA_TEST" \
		client 10.4.0.2 40 10 "$size" 1
	check "IPv6 echo $size B, TSO off" in_ns off1 "$HOMA_TEST" \
		client fd04::2 41 10 "$size" 1
done
rx=$(($(metric off2 pkts_rx_data) - before))
check "segments arrive MTU-sized with TSO off ($rx DATA packets)" \
	test "$rx" -gt 14000
check "software segmentation used with TSO off" \
	test "$(metric off1 gso_segmented)" -gt 0
live_zero off1 off2
finish
