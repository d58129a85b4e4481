#!/usr/bin/env bash
# Incast control: a client with more than incast_threshold RPCs
# outstanding marks its requests, and the server answers them with at most
# incast_unsched_bytes unscheduled, so the client must grant the rest.
# With the threshold at 0 nothing is marked and a 20000-byte response
# (under unsched_bytes) needs no grant at all.
#
#   [ic1] veth1 10.5.0.1 ---- veth2 10.5.0.2 [ic2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair ic1 ic2 10.5.0
serve ic2 4 60

in_ns ic1 sysctl -q -w net.homa.incast_threshold=0
check "incast control off: 40 RPCs, 8 at a time" in_ns ic1 "$HOMA_TEST" \
	client 10.5.0.2 60 40 20000 8
check_eq "off: nothing marked" "$(metric ic1 incast_marked)" 0
check_eq "off: no short responses" "$(metric ic2 incast_responses)" 0
check_eq "off: responses need no grants" "$(metric ic1 pkts_tx_grant)" 0

in_ns ic1 sysctl -q -w net.homa.incast_threshold=4
check "incast control on: 40 RPCs, 8 at a time" in_ns ic1 "$HOMA_TEST" \
	client 10.5.0.2 60 40 20000 8
marked=$(metric ic1 incast_marked)
echo "# $marked requests marked, $(metric ic2 incast_responses) short responses"
check "on: requests marked" test "$marked" -gt 0
check "on: at most the requests beyond the threshold" test "$marked" -le 36
check_eq "on: every marked request answered short" \
	"$(metric ic2 incast_responses)" "$marked"
check "on: the client grants the responses" \
	test "$(metric ic1 pkts_tx_grant)" -gt 0
live_zero ic1 ic2
finish
