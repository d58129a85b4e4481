#!/usr/bin/env bash
# Per-peer RTT: with netem delaying every packet by 10 ms each way, the
# RTT measured on ordinary packets (/proc/net/homa_peers) has rtt_min
# near 20 ms (a wide band: 15 to 60 ms) on both hosts, and the scheduled
# window shown follows from it (3 x rtt_min x link_mbps, with
# rtt_window_measured 0 for these checks); a host that only
# receives from a peer (over IPv6 here) takes it from the data delay
# instead. With rtt_window_measured 1 the windows are built on the rate
# the data arrived at (rx_rate_mbps), far below link_mbps's 25000 on this
# unshaped pair. Once a peer is
# measured, every RESEND to it is timed by the smaller of the timeouts
# of the delay its data takes and of the GRANT-timed round trip
# (rtt_resend 2; with 1, by the round trip alone), and with rtt_resend=0
# by resend_ticks. The data delay (GRANT to granted byte)
# is measured too; a path made fifteen times slower turns the peer
# congested and back (with hysteresis), and with rtt_congestion_react
# cuts its share of the grant window; the GRANTs say congested, and the
# sender (react bit 2) cuts the unscheduled bytes of its next messages.
# Under loss RTT-timed RESENDs repair it, timed either way.
#
#   [rtt1] veth1 10.12.0.1 --netem 10 ms-- veth2 10.12.0.2 [rtt2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

netem_rtt_pair
# The formula checks below use link_mbps; the measured rate is checked
# at the end.
in_ns rtt1 sysctl -q -w net.homa.rtt_window_measured=0
in_ns rtt2 sysctl -q -w net.homa.rtt_window_measured=0

# peer_field NS ADDR COLUMN: a column of ADDR's line in NS's homa_peers.
peer_field() {
	# shellcheck disable=SC2016	# awk's fields
	in_ns "$1" awk -v a="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == a { print $col[c] }' /proc/net/homa_peers
}

# Responses above unsched_bytes are granted, so both sides take samples.
check "10 RPCs of 100000 B" in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 62 \
	10 100000 1
check "RTT samples counted" test "$(metric rtt1 rtt_samples)" -gt 0
for side in "rtt1 10.12.0.2" "rtt2 10.12.0.1"; do
	read -r ns addr <<< "$side"
	samples=$(peer_field "$ns" "$addr" samples)
	min=$(peer_field "$ns" "$addr" rtt_min_ns)
	srtt=$(peer_field "$ns" "$addr" srtt_ns)
	window=$(peer_field "$ns" "$addr" sched_window)
	mbps=$(in_ns "$ns" sysctl -n net.homa.link_mbps)
	echo "# $ns -> $addr: samples $samples rtt_min ${min} ns srtt ${srtt} ns"
	check "$ns: peer $addr measured" test "${samples:-0}" -gt 0
	check "$ns: rtt_min in 15..60 ms" test "${min:-0}" -ge 15000000 -a \
		"${min:-0}" -le 60000000
	check "$ns: srtt at least rtt_min" test "${srtt:-0}" -ge "${min:-0}"
	check_eq "$ns: sched_window = 3 x rtt_min x link rate" "$window" \
		"$((3 * ${min:-0} * mbps / 8000))"
	# Each side grants the other's 100000 B messages: data delays too.
	rxmin=$(peer_field "$ns" "$addr" rx_rtt_min_ns)
	recent=$(peer_field "$ns" "$addr" rx_recent_ns)
	echo "# $ns -> $addr: rx_samples" \
		"$(peer_field "$ns" "$addr" rx_samples) rx_rtt_min $rxmin ns" \
		"rx_recent $recent ns"
	check "$ns: data delay at least 15 ms" test "${rxmin:-0}" -ge 15000000
	check "$ns: recent data delay at least its minimum" \
		test "${recent:-0}" -ge "${rxmin:-0}"
	rxsrtt=$(peer_field "$ns" "$addr" rx_srtt_ns)
	echo "# $ns -> $addr: rx_srtt $rxsrtt ns rx_rttvar" \
		"$(peer_field "$ns" "$addr" rx_rttvar_ns) ns"
	check "$ns: smoothed data delay at least its minimum" \
		test "${rxsrtt:-0}" -ge "${rxmin:-0}"
	check_eq "$ns: full grant share (react off)" \
		"$(peer_field "$ns" "$addr" grant_scale)" 1024
	cong=$(peer_field "$ns" "$addr" congested)
	check "$ns: congested is 0 or 1" test "${cong:--1}" -ge 0 -a \
		"${cong:--1}" -le 1
	backoff=$(peer_field "$ns" "$addr" resend_backoff)
	check "$ns: resend_backoff ($backoff) in 0..6" test "${backoff:--1}" \
		-ge 0 -a "${backoff:--1}" -le 6
done

# The window grants use: the GRANT-timed one where measured (both sides
# above, each having sent the other messages).
floor=$(in_ns rtt1 sysctl -n net.homa.rtt_window_min)
for side in "rtt1 10.12.0.2" "rtt2 10.12.0.1"; do
	read -r ns addr <<< "$side"
	sw=$(peer_field "$ns" "$addr" sched_window)
	check_eq "$ns: window from the GRANT-timed round trip" \
		"$(peer_field "$ns" "$addr" window)" \
		"$(( ${sw:-0} > floor ? ${sw:-0} : floor ))"
done

# A host that only receives from a peer times no round trip to it (it
# sends the peer nothing to GRANT or answer); its window comes from the
# data delay. rtt1's IPv6 address is a peer rtt2 has not heard from: rtt1
# sends it 3 one-way requests of 100000 B (granted), answered with 1 byte.
start_ready rtt2 '^serving' "IPv6 sink" "$HOMA_TEST" sink 63 6
for _ in 1 2 3; do
	check "one-way 100000 B over IPv6" in_ns rtt1 "$HOMA_TEST" send \
		fd12::2 63 100000 > /dev/null
done
kill "$READY_PID" 2> /dev/null
wait "$READY_PID" 2> /dev/null || true
rm -f "$READY_OUT"
mbps=$(in_ns rtt2 sysctl -n net.homa.link_mbps)
rxmin=$(peer_field rtt2 fd12::1 rx_rtt_min_ns)
rxwin=$(peer_field rtt2 fd12::1 rx_window)
echo "# rtt2 -> fd12::1 (receiver only): samples" \
	"$(peer_field rtt2 fd12::1 samples) rx_samples" \
	"$(peer_field rtt2 fd12::1 rx_samples) rx_rtt_min $rxmin ns" \
	"rx_window $rxwin window $(peer_field rtt2 fd12::1 window)"
check_eq "receiver only: no GRANT-timed sample" \
	"$(peer_field rtt2 fd12::1 samples)" 0
check "receiver only: data delay measured" \
	test "$(peer_field rtt2 fd12::1 rx_samples)" -gt 0
check_eq "receiver only: rx_window = 3 x rx_rtt_min x link rate" \
	"$rxwin" "$((3 * ${rxmin:-0} * mbps / 8000))"
check_eq "receiver only: window from the data delay" \
	"$(peer_field rtt2 fd12::1 window)" \
	"$(( ${rxwin:-0} > floor ? ${rxwin:-0} : floor ))"
check "receiver only: a window" \
	test "$(peer_field rtt2 fd12::1 window)" -gt 0

# rtt_window_measured: one RPC at a time over a 20 ms round trip moves
# at most 100 KB per 20 ms (40 Mbit/s), so the windows built on the
# measured rate imply a rate far below link_mbps (25000).
in_ns rtt1 sysctl -q -w net.homa.rtt_window_measured=1
in_ns rtt2 sysctl -q -w net.homa.rtt_window_measured=1
check "measured rate: 10 RPCs of 100000 B" in_ns rtt1 "$HOMA_TEST" client \
	10.12.0.2 62 10 100000 1
rate=$(metric rtt2 rx_rate_mbps)
min=$(peer_field rtt2 10.12.0.1 rtt_min_ns)
sw=$(peer_field rtt2 10.12.0.1 sched_window)
implied=$(( ${sw:-0} * 8000 / (3 * ${min:-1}) ))
echo "# measured: rtt2 rx_rate_mbps $rate, sched_window $sw B on rtt_min" \
	"$min ns: built on $implied Mbit/s (link_mbps" \
	"$(in_ns rtt2 sysctl -n net.homa.link_mbps))"
# The rate decays once the RPCs end: on a slow kernel the read comes late.
timed check "measured: rtt2's arrival rate measured" test "${rate:-0}" -gt 0
check "measured: window built on at most 1000 Mbit/s" \
	test "$implied" -le 1000
check "measured: window still granted" \
	test "$(peer_field rtt2 10.12.0.1 window)" -ge "$floor"
in_ns rtt1 sysctl -q -w net.homa.rtt_window_measured=0
in_ns rtt2 sysctl -q -w net.homa.rtt_window_measured=0

# Measured peer, rtt_resend 2 (the default): no RESEND is timed by
# resend_ticks.
tick0=$(metric rtt1 resends_tick)
check "10 more RPCs, RTT-timed" in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 \
	62 10 100000 2
check_eq "rtt_resend=2: no tick-timed RESENDs" "$(metric rtt1 resends_tick)" \
	"$tick0"
echo "# rtt_resend=2: RESENDs timed by the data delay" \
	"$(metric rtt1 resends_delay_timed), by the GRANT round trip" \
	"$(metric rtt1 resends_rtt_timed)"

# rtt_resend off: every RESEND is timed by resend_ticks.
in_ns rtt1 sysctl -q -w net.homa.rtt_resend=0
rtt0=$(metric rtt1 resends_rtt_timed)
dly0=$(metric rtt1 resends_delay_timed)
tick0=$(metric rtt1 resends_tick)
check "10 RPCs, tick-timed" in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 62 \
	10 100000 2
check_eq "rtt_resend=0: no RTT-timed RESENDs" \
	"$(metric rtt1 resends_rtt_timed)" "$rtt0"
check_eq "rtt_resend=0: no delay-timed RESENDs" \
	"$(metric rtt1 resends_delay_timed)" "$dly0"
echo "# rtt_resend=0: $(( $(metric rtt1 resends_tick) - tick0 ))" \
	"tick-timed RESENDs (spurious: the RTT is 4 times resend_ticks)"

# Congestion state: a path 15 times slower (a persistent queue, as netem
# delay stands for one here; 15, not 10, so that a debug kernel's slower
# processing, which raises the minimum, leaves a margin over 8) turns the peer congested once the recent
# data delay (the smallest of the last four samples) passes 8 x its
# minimum; back at the old delay, it ends. With rtt_congestion_react the
# share of the grant window the peer's messages get is cut meanwhile.
in_ns rtt1 sysctl -q -w net.homa.rtt_congestion_react=1
in_ns rtt2 sysctl -q -w net.homa.rtt_congestion_react=2
flagged0=$(metric rtt1 grants_congested)
txcuts0=$(metric rtt2 unsched_scale_cuts)
cutmsgs0=$(metric rtt2 unsched_cut_msgs)
cuts0=$(metric rtt1 grant_scale_cuts)
cong0=$(metric rtt1 rtt_congested)
uncong0=$(metric rtt1 rtt_uncongested)
tc -n rtt1 qdisc replace dev veth1 root netem delay 150ms
tc -n rtt2 qdisc replace dev veth2 root netem delay 150ms
check "slow path: 6 RPCs of 100000 B" in_ns rtt1 "$HOMA_TEST" client \
	10.12.0.2 62 6 100000 2
echo "# slow path: rx_recent $(peer_field rtt1 10.12.0.2 rx_recent_ns) ns," \
	"rx_rtt_min $(peer_field rtt1 10.12.0.2 rx_rtt_min_ns) ns," \
	"grant_scale $(peer_field rtt1 10.12.0.2 grant_scale)"
timed check_eq "slow path: rtt1 sees 10.12.0.2 congested" \
	"$(peer_field rtt1 10.12.0.2 congested)" 1
timed check "slow path: rtt_congested counted" \
	test "$(metric rtt1 rtt_congested)" -gt "$cong0"
timed check "slow path: grant share cut" \
	test "$(metric rtt1 grant_scale_cuts)" -gt "$cuts0" -a \
	"$(peer_field rtt1 10.12.0.2 grant_scale)" -lt 1024
# The server (rtt2) sends the responses: rtt1's GRANTs tell it.
echo "# slow path: rtt1 flagged $(( $(metric rtt1 grants_congested) -" \
	"flagged0 )) GRANTs; rtt2 tx_congested" \
	"$(peer_field rtt2 10.12.0.1 tx_congested) tx_scale" \
	"$(peer_field rtt2 10.12.0.1 tx_scale)"
timed check "slow path: GRANTs say congested" \
	test "$(metric rtt1 grants_congested)" -gt "$flagged0"
timed check "slow path: sender's unscheduled share cut" \
	test "$(metric rtt2 unsched_scale_cuts)" -gt "$txcuts0" -a \
	"$(peer_field rtt2 10.12.0.1 tx_scale)" -lt 1024
# The state turns on late in those RPCs: the responses of two more show
# the cut.
check "slow path: 2 more RPCs" in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 62 \
	2 100000 2
echo "# slow path: rtt2 cut the unscheduled bytes of" \
	"$(( $(metric rtt2 unsched_cut_msgs) - cutmsgs0 )) messages"
timed check "slow path: later messages sent fewer unscheduled bytes" \
	test "$(metric rtt2 unsched_cut_msgs)" -gt "$cutmsgs0"
check_eq "react bit 2 only: rtt2's grant share untouched" \
	"$(peer_field rtt2 10.12.0.1 grant_scale)" 1024
tc -n rtt1 qdisc replace dev veth1 root netem delay 10ms
tc -n rtt2 qdisc replace dev veth2 root netem delay 10ms
check "path back: 6 RPCs of 100000 B" in_ns rtt1 "$HOMA_TEST" client \
	10.12.0.2 62 6 100000 2
timed check_eq "path back: congestion over" \
	"$(peer_field rtt1 10.12.0.2 congested)" 0
timed check "path back: rtt_uncongested counted" \
	test "$(metric rtt1 rtt_uncongested)" -gt "$uncong0"
timed check_eq "path back: GRANTs no longer say congested" \
	"$(peer_field rtt2 10.12.0.1 tx_congested)" 0
in_ns rtt1 sysctl -q -w net.homa.rtt_congestion_react=0
in_ns rtt2 sysctl -q -w net.homa.rtt_congestion_react=0
check "react off: 2 RPCs" in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 62 \
	2 100000 2
check_eq "react off: sender's unscheduled share back to all" \
	"$(peer_field rtt2 10.12.0.1 tx_scale)" 1024

# Loss: RTT-timed RESENDs repair it, with each basis. The server's
# NEED_ACK (after request_ack_ticks of silence) would make the client ask
# for lost response bytes first, outside its timer: hold it off so the
# client's own RTT-timed RESENDs must do the repair.
in_ns rtt2 sysctl -q -w net.homa.request_ack_ticks=10000
tc -n rtt1 qdisc replace dev veth1 root netem delay 10ms loss 5%
tc -n rtt2 qdisc replace dev veth2 root netem delay 10ms loss 5%
# sum_metric NAME: NAME on both hosts (the server has nothing but its
# timer to find lost request packets).
sum_metric() {
	echo $(( $(metric rtt1 "$1") + $(metric rtt2 "$1") ))
}
for mode in 1 2; do
	in_ns rtt1 sysctl -q -w net.homa.rtt_resend=$mode
	in_ns rtt2 sysctl -q -w net.homa.rtt_resend=$mode
	rtt0=$(sum_metric resends_rtt_timed)
	dly0=$(sum_metric resends_delay_timed)
	# Only a loss that nothing after it reveals (a message's last
	# packets, a GRANT) waits for these timeouts; a lost packet with
	# later ones behind it leaves a hole, asked for sooner
	# (resends_gap_timed). A batch draws 0-10 such
	# losses at random (2 and 0 in one CI run of 2026-11-30), so up to
	# three batches run while none was timed.
	batch=0
	while :; do
		batch=$((batch + 1))
		check "rtt_resend=$mode, 5% loss: 20 RPCs of 100000 B" \
			in_ns rtt1 "$HOMA_TEST" client 10.12.0.2 62 20 100000 2
		rtt=$(( $(sum_metric resends_rtt_timed) - rtt0 ))
		dly=$(( $(sum_metric resends_delay_timed) - dly0 ))
		if [ $((rtt + dly)) -gt 0 ] || [ "$batch" -ge 3 ]; then
			break
		fi
	done
	echo "# rtt_resend=$mode, 5% loss: RESENDs timed by the GRANT" \
		"round trip $rtt, by the data delay $dly ($batch batches)"
	if [ "$mode" = 1 ]; then
		check "rtt_resend=1, 5% loss: GRANT-timed RESENDs sent" \
			test "$rtt" -gt 0
		check_eq "rtt_resend=1, 5% loss: none timed by the data delay" \
			"$dly" 0
	else
		check "rtt_resend=2, 5% loss: RTT-timed RESENDs sent" \
			test $((rtt + dly)) -gt 0
	fi
done
tc -n rtt1 qdisc del dev veth1 root
tc -n rtt2 qdisc del dev veth2 root
live_zero rtt1 rtt2
finish
