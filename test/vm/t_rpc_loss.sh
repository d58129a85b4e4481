#!/usr/bin/env bash
# Echo RPCs survive packet loss: netem drops 1%, 5% and 20% of the packets
# in both directions; every RPC completes with its bytes intact (while
# sendmsg reuses the pages of freed packets), and the receivers' RESEND
# counters show that loss was repaired, by copies sent at the highest
# scheduled level. Then packets are
# also duplicated and reordered: the server must still execute each request
# at most once (homa_test's server reports any request id it sees twice).
#
#   [loss1] veth1 10.2.0.1 --netem-- veth2 10.2.0.2 [loss2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

modprobe sch_netem 2>/dev/null || true
link_pair loss1 loss2 10.2.0
# At 20% loss each way, eight probes in a row fail about once in 3500
# silences; the peer must also be silent for timeout_ticks before an RPC
# ends, which 1000 ms (as the test has always run) makes unlikely.
homa_set timeout_ticks=1000 loss1 loss2
# Pinned cutoffs: levels 7 and 6 unscheduled, 5 the highest scheduled.
# At most two messages come into a host at once here, so its GRANTs use
# levels 0 and 1, and a DATA packet at level 5 is a copy sent again.
homa_set unsched_cutoffs="0 0 0 0 0 0 1000000 100" loss1 loss2
serve loss2 4 50
server_out=$SERVE_OUT
# Resolve the neighbours before the loss starts: a lost ARP exchange takes
# a second to retry, longer than Homa's default timeout (see the note in
# homa.7 BUGS).
check "one RPC before the loss" in_ns loss1 "$HOMA_TEST" client \
	10.2.0.2 50 1 100 1

for pct in 1 5 20; do
	for ns in loss1 loss2; do
		dev=veth1
		[ "$ns" = loss2 ] && dev=veth2
		tc -n "$ns" qdisc replace dev "$dev" root netem loss "$pct%"
	done
	before=$(( $(metric loss1 resends_sent) + $(metric loss2 resends_sent) ))
	check "$pct% loss: 100 small RPCs" in_ns loss1 "$HOMA_TEST" client \
		10.2.0.2 50 100 100 10
	check "$pct% loss: 10 RPCs up to 1 MB" in_ns loss1 "$HOMA_TEST" \
		client 10.2.0.2 50 10 0 2
	after=$(( $(metric loss1 resends_sent) + $(metric loss2 resends_sent) ))
	echo "# $pct% loss: $((after - before)) RESENDs sent"
	check "$pct% loss: RESENDs sent" test "$after" -gt "$before"
done
# Copies go at the highest scheduled level (the RESENDs ask for it), not
# at the level of the message's GRANTs, where they would queue behind
# every better ranked message.
copies=$(( $(metric loss1 data_resent) + $(metric loss2 data_resent) ))
top=$(( $(metric loss1 data_tx_prio5) + $(metric loss2 data_tx_prio5) ))
echo "# packets sent again: $copies; packets sent at level 5: $top"
check "copies sent at the highest scheduled level" test "$top" -gt 0
check "only copies at that level" test "$top" -le "$copies"
# 64 KB stored packets (max_gso_size, link_mbps 25000) were cut, at
# grants and around the segments RESENDs asked for, and the bytes above
# arrived intact.
check "stored packets cut under loss" \
	test "$(( $(metric loss1 data_splits) + $(metric loss2 data_splits) ))" -gt 0
# Retransmissions share the stored packets' pages: the bytes above were
# checked while freed packets' pages were being reused.
check "payload pages reused under loss (client)" \
	test "$(metric loss1 tx_pages_reused)" -gt 0
check "payload pages reused under loss (server)" \
	test "$(metric loss2 tx_pages_reused)" -gt 0
tc -n loss1 qdisc replace dev veth1 root netem loss 5% duplicate 20% \
	delay 1ms reorder 70%
tc -n loss2 qdisc replace dev veth2 root netem loss 5% duplicate 20% \
	delay 1ms reorder 70%
check "duplicates and reordering: 200 RPCs of 20000 B" in_ns loss1 \
	"$HOMA_TEST" client 10.2.0.2 50 200 20000 8
echo "# late request copies dropped: $(metric loss2 requests_deduped)"
check_eq "no request executed twice" \
	"$(grep -c 'duplicate request' "$server_out" || true)" 0
check_eq "client RPCs all freed" "$(metric loss1 rpcs_live)" 0
live_zero loss1 loss2
finish
