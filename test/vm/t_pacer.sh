#!/usr/bin/env bash
# The pacer: with a slow link_mbps on the client, large requests are held
# back by the pacer (pacer_throttled and pacer_bytes rise) and the NIC
# queue estimate never grows past max_nic_queue_ns plus the pacer
# thread's lead plus one packet's time;
# with pacer_enable=0 nothing is throttled and the estimate grows past
# that bound. The pacer threads use no CPU time while idle. With
# pacer_rx_help, received packets take pacer steps too, within the bound.
#
#   [pace1] veth1 10.11.0.1 ---- veth2 10.11.0.2 [pace2]
#   link_mbps 100                 default link_mbps
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

MBPS=100
link_pair pace1 pace2 10.11.0
in_ns pace1 sysctl -q -w net.homa.link_mbps=$MBPS
serve pace2 4 60

# The bound: the queue may reach max_nic_queue_ns plus the pacer thread's
# lead (at most pacer_lead_max_ns and one packet's time) before one more
# packet (at most max_gso_size bytes of data, plus a generous 1000 bytes
# of per-segment headers and framing) joins it.
qmax=$(in_ns pace1 sysctl -n net.homa.max_nic_queue_ns)
gso=$(in_ns pace1 sysctl -n net.homa.max_gso_size)
lead=$(in_ns pace1 sysctl -n net.homa.pacer_lead_max_ns)
lead_max=$lead
pkt_ns=$(((gso + 1000) * 8000 / MBPS))
[ "$lead" -le "$pkt_ns" ] || lead=$pkt_ns
bound=$((qmax + lead + pkt_ns))

check "paced: 6 RPCs of 300000 B" in_ns pace1 "$HOMA_TEST" client \
	10.11.0.2 60 6 300000 1
throttled=$(metric pace1 pacer_throttled)
qseen=$(metric pace1 nic_queue_max_ns)
echo "# paced: throttled $throttled, pacer_bytes $(metric pace1 pacer_bytes)," \
	"wakeups $(metric pace1 pacer_wakeups), queue max $qseen ns" \
	"(bound $bound), link idle while the thread slept" \
	"$(metric pace1 pacer_late_ns) ns"
sleeps=$(metric pace1 pacer_sleeps)
echo "# paced: $sleeps timed sleeps, $(metric pace1 pacer_oversleep_ns) ns" \
	"late in all"
timed check "messages throttled" test "$throttled" -ge 6
timed check "pacer thread sent bytes" test "$(metric pace1 pacer_bytes)" -gt 0
timed check "pacer thread woke" test "$(metric pace1 pacer_wakeups)" -gt 0
timed check "pacer thread slept while the queue drained" test "$sleeps" -gt 0
check "queue estimate seen" test "$qseen" -gt 0
check "queue estimate within max_nic_queue_ns + lead + one packet" \
	test "$qseen" -le "$bound"
check "mixed sizes paced" in_ns pace1 "$HOMA_TEST" client 10.11.0.2 60 \
	20 0 4
check "queue bound holds with 4 RPCs in flight" \
	test "$(metric pace1 nic_queue_max_ns)" -le "$bound"

# Idle pacer threads sleep: their CPU time does not move while nothing is
# sent (a busy loop would take a whole CPU).
cpu_ticks() {
	local pid sum=0 f
	for pid in $(pgrep '^homa_pacer'); do
		read -ra f < "/proc/$pid/stat"
		sum=$((sum + f[13] + f[14]))
	done
	echo "$sum"
}
check "pacer threads exist" test -n "$(pgrep '^homa_pacer')"
c0=$(cpu_ticks)
sleep 2
c1=$(cpu_ticks)
echo "# idle pacer threads: $((c1 - c0)) clock ticks in 2 s"
check "idle pacer threads use (almost) no CPU" test $((c1 - c0)) -le 20

# pacer_rx_help: packets the client receives (among them the GRANTs for
# its throttled requests) take pacer steps when the queue estimate has
# drained before the thread woke; off (the default), they never do. The
# lead is off here: it would keep the queue from draining while the thread
# sleeps; and pace2 sends short requests to pace1 meanwhile, so packets
# arrive at any moment of the queue's draining (the GRANTs of the paced
# requests come right after the packets they answer, as the link is in
# truth much faster than link_mbps).
check_eq "no steps from received packets with pacer_rx_help 0" \
	"$(metric pace1 pacer_rx_helps)" 0
in_ns pace1 sysctl -q -w net.homa.pacer_rx_help=1
in_ns pace1 sysctl -q -w net.homa.pacer_lead_max_ns=0
serve pace1 2 61
# Not through in_ns: $! must be homa_test itself.
ip netns exec pace2 "$HOMA_TEST" client 10.11.0.1 61 1000000 100 1 \
	> /dev/null 2>&1 &
bg=$!
check "helped: 6 RPCs of 300000 B" in_ns pace1 "$HOMA_TEST" client \
	10.11.0.2 60 6 300000 1
kill "$bg" 2>/dev/null || true
wait "$bg" 2>/dev/null || true
echo "# helped: $(metric pace1 pacer_rx_helps) steps from received" \
	"packets, queue max $(metric pace1 nic_queue_max_ns) ns (bound $bound)"
timed check "received packets stepped the pacer" \
	test "$(metric pace1 pacer_rx_helps)" -gt 0
check "queue bound holds with the help" \
	test "$(metric pace1 nic_queue_max_ns)" -le "$bound"
in_ns pace1 sysctl -q -w net.homa.pacer_rx_help=0
in_ns pace1 sysctl -q -w net.homa.pacer_lead_max_ns="$lead_max"

in_ns pace1 sysctl -q -w net.homa.pacer_enable=0
before=$(metric pace1 pacer_throttled)
check "unpaced: 6 RPCs of 300000 B" in_ns pace1 "$HOMA_TEST" client \
	10.11.0.2 60 6 300000 1
check_eq "nothing throttled with pacer_enable=0" \
	"$(metric pace1 pacer_throttled)" "$before"
echo "# unpaced: queue max $(metric pace1 nic_queue_max_ns) ns"
timed check "without the pacer the queue estimate passes the bound" \
	test "$(metric pace1 nic_queue_max_ns)" -gt "$bound"
live_zero pace1 pace2
finish
