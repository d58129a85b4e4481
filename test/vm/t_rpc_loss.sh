#!/usr/bin/env bash
# Echo RPCs survive packet loss: netem drops 1%, 5% and 20% of the packets
# in both directions; every RPC completes with its bytes intact, and the
# receivers' RESEND counters show that loss was repaired.
#
#   [loss1] veth1 10.2.0.1 --netem-- veth2 10.2.0.2 [loss2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

modprobe sch_netem 2>/dev/null || true
ns_add loss1
ns_add loss2
ip link add veth1 netns loss1 type veth peer name veth2 netns loss2
ip -n loss1 addr add 10.2.0.1/24 dev veth1
ip -n loss2 addr add 10.2.0.2/24 dev veth2
ip -n loss1 link set veth1 up
ip -n loss2 link set veth2 up
in_ns loss2 "$HOMA_TEST" server 4 50 > /tmp/loss_server.out 2>&1 &
sleep 1

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
check_eq "client RPCs all freed" "$(metric loss1 rpcs_live)" 0
finish
