#!/usr/bin/env bash
# Unscheduled cutoffs. First automatic: cut2 receives 5000-byte requests
# and, within a few 100 ms computations, replaces its default cutoffs
# (cutoffs_computed, cutoff_version). Then by hand: a write to cut2's
# unsched_cutoffs pins them (auto_cutoffs goes to 0) under a new version;
# the next request from cut1 carries the old version, cut2 answers with a
# CUTOFFS packet, and cut1's following requests use the new level: 5000
# bytes at level 6, seen both in cut1's data_tx_prio6 and in the IP TOS
# on the wire (a prio qdisc on cut1's veth1 sorts packets by TOS). Last,
# sched_ip_priority: scheduled packets leave cut1 at the IP priority it
# names instead of their level's, unscheduled ones as before.
#
#   [cut1] veth1 10.12.0.1 ---- veth2 10.12.0.2 [cut2] (server, port 80)
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

get() {
	in_ns "$1" sysctl -n "net.homa.$2" | tr -s ' \t' ' '
}

# tos_pkts PRIO: packets cut1 sent with IP priority PRIO in the TOS.
tos_pkts() {
	tc -n cut1 -s class show dev veth1 classid "1:$((8 - $1))" |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p'
}

link_pair cut1 cut2 10.12.0
# Band 7 - p for IP priority p, as the test bed's switch does.
tc -n cut1 qdisc add dev veth1 root handle 1: prio bands 8 \
	priomap 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7
for p in 0 1 2 3 4 5 6 7; do
	tc -n cut1 filter add dev veth1 parent 1: protocol ip prio 1 u32 \
		match ip tos $((p << 5)) 0xe0 flowid "1:$((8 - p))"
done
serve cut2 4 80

check_eq "auto_cutoffs default" "$(get cut2 auto_cutoffs)" 1
check "5000-byte requests" in_ns cut1 "$HOMA_TEST" client 10.12.0.2 80 10 \
	5000 1
for _ in $(seq 50); do
	[ "$(metric cut2 cutoffs_computed)" -gt 0 ] && break
	sleep 0.1
done
check "cutoffs computed" test "$(metric cut2 cutoffs_computed)" -gt 0
check "computed cutoffs changed the version" \
	test "$(get cut2 cutoff_version)" -gt 1
check "CUTOFFS sent for the first request" \
	test "$(metric cut2 pkts_tx_cutoffs)" -gt 0
check "CUTOFFS received" test "$(metric cut1 pkts_rx_cutoffs)" -gt 0

version=$(get cut2 cutoff_version)
in_ns cut2 sysctl -q -w net.homa.unsched_cutoffs="0 0 0 0 0 0 1000000 100"
check_eq "cutoffs pinned" "$(get cut2 auto_cutoffs)" 0
check_eq "version bumped" "$(get cut2 cutoff_version)" $((version + 1))
sent=$(metric cut2 pkts_tx_cutoffs)
updated=$(metric cut1 cutoffs_updated)
prio6=$(metric cut1 data_tx_prio6)
tos6=$(tos_pkts 6)
check "requests after the write" in_ns cut1 "$HOMA_TEST" client \
	10.12.0.2 80 4 5000 1
check "a CUTOFFS packet for the stale version" \
	test "$(metric cut2 pkts_tx_cutoffs)" -gt "$sent"
check "the sender took the new cutoffs" \
	test "$(metric cut1 cutoffs_updated)" -gt "$updated"
check "5000-byte requests now at level 6" \
	test "$(metric cut1 data_tx_prio6)" -gt "$prio6"
check "TOS of level 6 on the wire" test "$(tos_pkts 6)" -gt "$tos6"
sleep 0.3
check_eq "pinned cutoffs stay" "$(get cut2 unsched_cutoffs)" \
	"0 0 0 0 0 0 1000000 100"

# sched_ip_priority. With the pinned cutoffs 200 KB requests send 40 KB
# unscheduled at level 6 and the rest at the levels cut2 grants (level 0
# in this test, two requests at a time). cut1 maps level 0 to IP priority
# 3: by default its scheduled packets carry 3; with sched_ip_priority 0
# they carry 0, and the unscheduled ones still 6.
homa_set "priority_map=3 1 2 3 4 5 6 7" cut1
check_eq "sched_ip_priority default" "$(get cut1 sched_ip_priority)" -1
ip3=$(tos_pkts 3)
check "200 KB requests" in_ns cut1 "$HOMA_TEST" client 10.12.0.2 80 4 \
	200000 2
check "scheduled packets at level 0's IP priority by default" \
	test "$(tos_pkts 3)" -gt "$ip3"
homa_set sched_ip_priority=0 cut1
ip3=$(tos_pkts 3)
ip0=$(tos_pkts 0)
ip6=$(tos_pkts 6)
check "200 KB requests with sched_ip_priority 0" in_ns cut1 "$HOMA_TEST" \
	client 10.12.0.2 80 4 200000 2
check_eq "no packet at level 0's IP priority" "$(tos_pkts 3)" "$ip3"
check "scheduled packets at IP priority 0" test "$(tos_pkts 0)" -gt "$ip0"
check "unscheduled packets still at 6" test "$(tos_pkts 6)" -gt "$ip6"
homa_set sched_ip_priority=-1 cut1
homa_set "priority_map=0 1 2 3 4 5 6 7" cut1
live_zero cut1 cut2
finish
