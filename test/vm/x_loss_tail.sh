#!/usr/bin/env bash
# An experiment, not in the default suite (test/vm/run.sh x_loss_tail.sh):
# 100 KB echo RPCs, two outstanding, through netem (10 ms each way, 5%
# loss each way), three rounds of 200 RPCs under each rtt_resend rule in
# turn (2, the default, then 1). Prints each round's P50 / P99 RTT and
# what the repair cost on both hosts; asserts nothing beyond the RPCs
# completing.
#
#   [rtt1] veth1 10.12.0.1 --netem 10 ms, 5% loss-- veth2 10.12.0.2 [rtt2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

netem_rtt_pair
# Measure both peers on a clean path first.
check "clean path: 10 RPCs" in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 62 \
	10 100000 1
tc -n rtt1 qdisc replace dev veth1 root netem delay 10ms loss 5%
tc -n rtt2 qdisc replace dev veth2 root netem delay 10ms loss 5%

METRICS=(resends_sent resends_delay_timed resends_rtt_timed resends_tick
	 data_resent pkts_tx_busy pkts_tx_need_ack rpc_timeouts)

for round in 1 2 3; do
	for mode in 2 1; do
		homa_set rtt_resend="$mode" rtt1 rtt2
		before=$(metric_snap rtt1 rtt2)
		out=$(in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 62 200 100000 \
			2) || { echo "# FAIL: $out"; FAILED=1; continue; }
		line=$(metric_moves "$before" "$(metric_snap rtt1 rtt2)")
		echo "# round $round, rtt_resend=$mode: $out"
		echo "#  $line"
	done
done
finish
