#!/usr/bin/env bash
# The same echo RPCs with the veth offloads (GRO, GSO, TSO) switched on:
# Homa must work, byte for byte, whatever the device does. With TSO on, a
# large DATA packet crosses the veth whole (the receiver sees fewer packets
# than MTU segments); with TSO off, Homa's software segmentation cuts it.
# Message bytes beyond a few hundred sit in page fragments of the stored
# packets: echoes across the linear/fragment boundary, over stored
# packets of 1000 B to 64 KB (max_gso_size), cut where a small grant
# window ends, and with scatter-gather off
# (the stack must copy the fragments into one buffer) arrive intact, with
# the pages of freed packets reused for later messages and given back
# to the allocator once the cache is idle.
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

# Stored packet sizes, TSO back on; sizes around the 512-byte boundary
# between linear payloads and page fragments, then random ones.
in_ns off1 ethtool -K veth1 tso on > /dev/null
in_ns off2 ethtool -K veth2 tso on > /dev/null
for gso in 1000 20000 65536; do
	homa_set max_gso_size="$gso" off1 off2
	for size in 512 513 4097 300000; do
		check "max_gso_size $gso: IPv4 echo $size B" in_ns off1 \
			"$HOMA_TEST" client 10.4.0.2 40 4 "$size" 1
	done
	check "max_gso_size $gso: IPv6 random sizes" in_ns off1 \
		"$HOMA_TEST" client fd04::2 41 20 0 4
done

# A small fixed grant window over 64 KB stored packets. With the default
# grant_overshoot_ns a 64 KB packet is 21 us at link_mbps (25 Gbit/s) and
# goes whole past the grant; with 0 a packet that reaches past the
# granted offset is cut at a segment boundary (data_splits), with TSO on
# and off (Homa's segmentation of a cut packet); every echo arrives byte
# for byte.
for kv in max_gso_size=65536 window=3000 rtt_adaptive=0 unsched_bytes=5000; do
	homa_set "$kv" off1 off2
done
cuts1=$(metric off1 data_splits)
check "window 3000, overshoot allowed: IPv4 echo 300000 B" in_ns off1 \
	"$HOMA_TEST" client 10.4.0.2 40 3 300000 1
check_eq "a fast link's packets go whole past the grant" \
	"$(metric off1 data_splits)" "$cuts1"
homa_set grant_overshoot_ns=0 off1 off2
for tso in on off; do
	in_ns off1 ethtool -K veth1 tso "$tso" > /dev/null
	in_ns off2 ethtool -K veth2 tso "$tso" > /dev/null
	cuts1=$(metric off1 data_splits)
	cuts2=$(metric off2 data_splits)
	for size in 4097 300000 1000000; do
		check "window 3000, TSO $tso: IPv4 echo $size B" in_ns off1 \
			"$HOMA_TEST" client 10.4.0.2 40 3 "$size" 1
	done
	check "window 3000, TSO $tso: IPv6 random sizes" in_ns off1 \
		"$HOMA_TEST" client fd04::2 41 20 0 4
	check "TSO $tso: the client cut packets at the grant" \
		test "$(metric off1 data_splits)" -gt "$cuts1"
	check "TSO $tso: the server cut packets at the grant" \
		test "$(metric off2 data_splits)" -gt "$cuts2"
done
in_ns off1 ethtool -K veth1 tso on > /dev/null
in_ns off2 ethtool -K veth2 tso on > /dev/null
for kv in window=0 rtt_adaptive=1 unsched_bytes=40000 max_gso_size=10000 \
	grant_overshoot_ns=25000; do
	homa_set "$kv" off1 off2
done

# No scatter-gather: fragments are copied into one buffer on the way out.
in_ns off1 ethtool -K veth1 sg off > /dev/null
in_ns off2 ethtool -K veth2 sg off > /dev/null
check "scatter-gather is off" sh -c "ip netns exec off1 ethtool -k veth1 |
	grep -q '^scatter-gather: off'"
for size in 513 100000 1000000; do
	check "IPv4 echo $size B, scatter-gather off" in_ns off1 \
		"$HOMA_TEST" client 10.4.0.2 40 5 "$size" 1
done
check "IPv6 random sizes, scatter-gather off" in_ns off1 "$HOMA_TEST" \
	client fd04::2 41 20 0 4

# Every echo above was checked byte for byte while sendmsg took pages
# that freed packets left (homa_txpage.c); with the cache off, none.
for ns in off1 off2; do
	check "$ns reused payload pages ($(metric "$ns" tx_pages_reused))" \
		test "$(metric "$ns" tx_pages_reused)" -gt 0
done
homa_set tx_page_cache_kb=0 off1 off2
kept=$(metric off1 tx_pages_kept)
check "IPv4 echo 300000 B, page cache off" in_ns off1 "$HOMA_TEST" \
	client 10.4.0.2 40 10 300000 2
check_eq "no page kept with the cache off" "$(metric off1 tx_pages_kept)" \
	"$kept"

# The tick gives back the pages of a cache that sendmsg has not drawn
# from for a second: every page kept is then reused or given back.
homa_set tx_page_cache_kb=2048 off1 off2
kept=$(metric off1 tx_pages_kept)
released=$(metric off1 tx_pages_released)
check "IPv4 echo 300000 B, page cache on again" in_ns off1 "$HOMA_TEST" \
	client 10.4.0.2 40 10 300000 2
check "off1 kept pages again" test "$(metric off1 tx_pages_kept)" -gt "$kept"
for ns in off1 off2; do
	check "$ns: the idle cache is empty within 3 s" wait_metric "$ns" \
		tx_page_cache_bytes 0 3
	check_eq "$ns: pages kept = reused + given back" \
		"$(metric "$ns" tx_pages_kept)" \
		"$(($(metric "$ns" tx_pages_reused) + \
		    $(metric "$ns" tx_pages_released)))"
done
check "off1 gave pages back" test "$(metric off1 tx_pages_released)" -gt \
	"$released"
live_zero off1 off2
finish
