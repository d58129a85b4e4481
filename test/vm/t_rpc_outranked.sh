#!/usr/bin/env bash
# A message whose granted bytes are all lost while data at a higher
# priority keeps arriving is not left to stall: the silence of a message
# still to be granted more counts no time while it is outranked
# (resend_outranked), but that wait ends once the RPC has gone half of
# stall_ms without progress, and its RESEND brings the bytes back before
# stall_ms ends it. Without the bound the server asked for nothing and
# ended the request after stall_ms (the incast bed, session 28).
# A tc filter on the client's veth drops every DATA packet sent for the
# first time at level 0 (the scheduled bytes of its requests: one message
# at a time takes its GRANTs at level 0); copies pass. homa_attack
# stream sends the server new bytes of other requests at IP priority 7,
# 2000 packets a second, so the server's timer finds the requests'
# missing bytes outranked at every tick.
#
#   [or1] veth1 10.16.0.1 --drop filter-- veth2 10.16.0.2 [or2]
#   (stream at TOS 0xe0)                  (netem delay 5ms)
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ATTACK="$VM_DIR/build/homa_attack"
for m in sch_prio cls_u32 act_gact sch_netem; do
	modprobe "$m" 2>/dev/null || true
done
link_pair or1 or2 10.16.0
# Levels 7 and 6 unscheduled, 5 the highest scheduled.
homa_set unsched_cutoffs="0 0 0 0 0 0 1000000 100" or1 or2
homa_set stall_ms=2000 or1 or2
# Windows of 10000 bytes: a request of 70000 (40000 unscheduled) is
# still to be granted more at its first two silences.
homa_set rtt_adaptive=0 or2
homa_set window=10000 or2
# Stored packets of 8544 bytes, cut at the grant: none runs far past it.
homa_set max_gso_size=10000 or1
homa_set grant_overshoot_ns=0 or1
tc -n or2 qdisc replace dev veth2 root netem delay 5ms
serve or2 4 72
check "unfiltered: 2 RPCs of 70000 B" in_ns or1 "$HOMA_TEST" client \
	10.16.0.2 72 2 70000 1

# Offsets in the IPv4 packet: the TOS at 1 and the DATA header's
# retransmit flag at 20 + 48.
drop_data or1 1 match ip tos 0x00 0xe0 match u8 0 0xff at 68
dropped() {
	tc -n or1 -s filter show dev veth1 parent 1: prio 1 |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

ip netns exec or1 "$ATTACK" stream 10.16.0.2 72 0xe0 60 2000 \
	> /tmp/stream.out 2>&1 &
stream=$!
sleep 1
outranked0=$(metric or2 probe_outranked)
stalled0=$(metric or2 probe_outrank_stalled)
check "scheduled bytes dropped, the server outranked: 2 RPCs of 70000 B" \
	in_ns or1 timeout 60 "$HOMA_TEST" client 10.16.0.2 72 2 70000 1
kill "$stream" 2>/dev/null || true
wait "$stream" 2>/dev/null || true
fresh=$(dropped)
outranked=$(( $(metric or2 probe_outranked) - outranked0 ))
stalled=$(( $(metric or2 probe_outrank_stalled) - stalled0 ))
echo "# first transmissions dropped: ${fresh:-0}; outranked ticks:" \
	"$outranked; outranked waits ended at half of stall_ms: $stalled"
check "scheduled bytes dropped" test "${fresh:-0}" -ge 2
# Both depend on the stream keeping up with every tick: on a slow
# kernel a tick without it counts silence, and the RESEND may go first.
timed check "the requests' silence was outranked" test "$outranked" -ge 100
timed check "outranked waits ended at half of stall_ms" test "$stalled" -ge 1
check_eq "no server RPC stalled" "$(metric or2 rpc_stall_timeouts)" 0
check_eq "no server RPC timed out" "$(metric or2 rpc_timeouts)" 0

stop_all or2
live_zero or1 or2
finish
