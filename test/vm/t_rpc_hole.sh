#!/usr/bin/env bash
# A hole in a request is asked for, whatever else the client sends.
# A tc filter on the client's veth drops the first transmission of the
# DATA packet that starts at byte 17088 of every message, and lets its
# retransmissions through, so every request of 50000 bytes reaches the
# server with a hole. The filter sees packets as Homa stores them (GSO
# packets, cut into segments after the qdisc): with max_gso_size 10000
# each holds 6 segments of 1424 bytes, so the third starts at 17088.
#   1. With the defaults (rtt_resend 2), once the server has measured the
#      client, the hole is asked for after resend_ticks, not after the
#      retransmission timeout: resends_gap_timed rises.
#   2. The server waits 300 ms of silence before it asks, and the
#      client asks for its response every 5-160 ms (resend_ticks and
#      resend_interval 5; each BUSY doubles the interval, up to 32
#      times). The client's RESENDs must not count as the server
#      hearing from its peer: if they did, the server would never be
#      silent for 300 ms and no request would complete.
#
#   [hl1] veth1 10.14.0.1 --drop filter-- veth2 10.14.0.2 [hl2]
#                                           (netem delay 10ms)
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

for m in sch_prio cls_u32 act_gact sch_netem; do
	modprobe "$m" 2>/dev/null || true
done
link_pair hl1 hl2 10.14.0
homa_set max_gso_size=10000 hl1 hl2
# The server's packets take 10 ms, so that its retransmission timeout
# (at least the round trip) is longer than resend_ticks (5 ms).
tc -n hl2 qdisc replace dev veth2 root netem delay 10ms
serve hl2 4 70
check "unfiltered: 10 RPCs of 50000 B" in_ns hl1 "$HOMA_TEST" client \
	10.14.0.2 70 10 50000 1

# Offsets in the IPv4 packet (header of 20 bytes): the Homa type at
# 20 + 11, the DATA header's retransmit flag at 20 + 48 and the offset of
# its first segment at 20 + 52.
drop_data hl1 1 match u8 0 0xff at 68 match u32 17088 0xffffffff at 72
# filtered: packets the filter dropped so far.
filtered() {
	tc -n hl1 -s filter show dev veth1 parent 1: |
		awk '/Sent/ && /pkt/ { print $4; exit }'
}

gap0=$(metric hl2 resends_gap_timed)
res0=$(metric hl2 resends_sent)
rto0=$(( $(metric hl2 resends_delay_timed) + $(metric hl2 resends_rtt_timed) ))
check "holes, defaults: 20 RPCs of 50000 B" in_ns hl1 timeout 60 \
	"$HOMA_TEST" client 10.14.0.2 70 20 50000 1
dropped=$(filtered)
echo "# holes, defaults: $dropped packets dropped by the filter," \
	"$(( $(metric hl2 resends_sent) - res0 )) RESENDs," \
	"$(( $(metric hl2 resends_gap_timed) - gap0 )) timed by the hole," \
	"$(( $(metric hl2 resends_delay_timed) + \
		$(metric hl2 resends_rtt_timed) - rto0 )) by the timeout"
check "holes, defaults: the filter dropped packets" \
	test "${dropped:-0}" -ge 20
check "holes, defaults: RESENDs timed by the hole" \
	test "$(metric hl2 resends_gap_timed)" -gt "$gap0"

homa_set rtt_resend=0 hl1 hl2
homa_set resend_ticks=300 hl2
homa_set resend_interval=300 hl2
homa_set resend_ticks=5 hl1
homa_set resend_interval=5 hl1
probes0=$(metric hl1 resends_sent)
res0=$(metric hl2 resends_sent)
check "holes, a client that asks often: 5 RPCs of 50000 B" in_ns hl1 \
	timeout 30 "$HOMA_TEST" client 10.14.0.2 70 5 50000 1
echo "# a client that asks often: its RESENDs" \
	"$(( $(metric hl1 resends_sent) - probes0 )), the server's" \
	"$(( $(metric hl2 resends_sent) - res0 ))"
check "a client that asks often: the server asked" \
	test "$(metric hl2 resends_sent)" -gt "$res0"
check "a client that asks often: the client asked too" \
	test "$(metric hl1 resends_sent)" -gt "$probes0"

stop_all hl2
live_zero hl1 hl2
finish
