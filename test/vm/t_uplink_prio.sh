#!/usr/bin/env bash
# Echo RPCs, one at a time, across a host uplink that serves priorities
# strictly (util/testbed --uplink prio3: Homa's control packets pass the
# data queued in the sender's own host), at 16 Mbit/s, with link_mbps
# wrong (25000, the default: the pacer does not hold data back, so it
# waits in the uplink); 1 MB per uplink band, 128 KB per switch band.
# NEED_ACKs and RESENDs pass that queue: a receiver that asks for what
# has not arrived yet used to make the sender queue copies behind the
# originals, more than 100 per RPC (issue 13). A sender whose host still
# holds copies of the message now answers BUSY instead (resend_in_host).
# Each size (30 KB, 100 KB, 1 MB) must complete, every byte checked, with
# at most RESENT_MAX packets retransmitted per RPC (a bound on work, not
# on time). Prints per size the RTT and what each RPC cost: RESENDs (all;
# timed by the data delay; by the GRANT-timed round trip; by
# resend_ticks; the rest answer NEED_ACKs), RESENDs
# answered BUSY because the data was in the host, retransmitted packets,
# BUSYs, NEED_ACKs. UPLINK_FULL=1 (test/vm/run.sh x_uplink_prio.sh) adds
# 100 B and 10 KB, and the same with link_mbps right (16) for comparison.
#
#   [h0] client --- uplink prio3 16 Mbit/s --- br0 [sw] --- [h1] server
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2317	# called by the trap
testbed_cleanup() {
	"$TOP/util/testbed" --down > /dev/null 2>&1 || true
	cleanup
}
trap testbed_cleanup EXIT

# sum NAME: NAME summed over h0 and h1.
sum() {
	echo $(($(metric h0 "$1") + $(metric h1 "$1")))
}

RESENT_MAX=10

# run LINK_MBPS: the echoes with net.homa.link_mbps LINK_MBPS.
run() {
	local mbps=$1 size count r0 d0 b0 n0 t0 k0 h0 out resent
	shift
	"$TOP/util/testbed" --hosts 2 --mbps 16 --uplink prio3 --quiet \
		--host-buffer 1048576 \
		--homa link_mbps="$mbps" "$@"
	NAMESPACES+=(h0 h1 sw)
	serve h1 4 80
	for size in $SIZES; do
		count=$((size >= 1000000 ? 2 : 10))
		r0=$(sum resends_sent)
		d0=$(sum data_resent)
		b0=$(sum pkts_tx_busy)
		n0=$(sum pkts_tx_need_ack)
		t0=$(sum resends_rtt_timed)
		y0=$(sum resends_delay_timed)
		k0=$(sum resends_tick)
		h0=$(sum resend_in_host)
		if ! out=$(in_ns h0 timeout 120 "$HOMA_TEST" client 10.0.0.2 \
			80 "$count" "$size" 1 2>&1); then
			echo "# FAIL: $size B echoes: $out"
			FAILED=1
			continue
		fi
		resent=$(( ($(sum data_resent) - d0) / count ))
		echo "# link_mbps $mbps, $size B x $count: $(echo "$out" |
			grep -o 'p50.*'); per RPC: RESENDs" \
			"$(( ($(sum resends_sent) - r0) / count )) (data delay" \
			"$(( ($(sum resends_delay_timed) - y0) / count )), RTT" \
			"$(( ($(sum resends_rtt_timed) - t0) / count )), tick" \
			"$(( ($(sum resends_tick) - k0) / count ))), in host" \
			"$(( ($(sum resend_in_host) - h0) / count )), packets" \
			"resent $(( ($(sum data_resent) - d0) / count )), BUSY" \
			"$(( ($(sum pkts_tx_busy) - b0) / count )), NEED_ACK" \
			"$(( ($(sum pkts_tx_need_ack) - n0) / count ))"
		# A debug kernel is slow enough that copies that left this
		# host still wait in the receiver: its RESENDs are answered.
		timed check "link_mbps $mbps, $size B: $resent resent per RPC" \
			test "$resent" -le "$RESENT_MAX"
	done
	stop_all h1
}

SIZES="30000 100000 1000000"
[ "${UPLINK_FULL:-0}" = 1 ] && SIZES="100 10000 $SIZES"
run 25000
[ "${UPLINK_FULL:-0}" = 1 ] && run 16
finish
