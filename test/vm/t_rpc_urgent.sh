#!/usr/bin/env bash
# A live peer is not given up for dead when every copy at the highest
# scheduled level is dropped (as where that band of a switch overflows in
# a drop storm): after three probes in a row go unanswered, the receiver
# asks for one segment at the top level, which gets through (after one
# unanswered probe in each later silence of the RPC).
# Two tc filters on the client's veth drop every DATA packet sent for
# the first time at level 0 (the scheduled bytes of its requests: one
# message at a time takes its GRANTs at level 0) and every DATA packet
# at level 5, the highest scheduled level of the pinned cutoffs, where
# the server's RESENDs ask for copies of them. Copies of unscheduled
# bytes keep their own level (6 here). Without the top-level RESENDs no
# request completed: the server asked at level 5 for ever.
#
#   [ur1] veth1 10.15.0.1 --drop filters-- veth2 10.15.0.2 [ur2]
#                                           (netem delay 10ms)
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

for m in sch_prio cls_u32 act_gact sch_netem; do
	modprobe "$m" 2>/dev/null || true
done
link_pair ur1 ur2 10.15.0
# Stored packets of 6 segments (8544 bytes): a request's last one or two
# lie past its unscheduled bytes, with its first byte (a packet that
# starts below them goes at the unscheduled level whole).
homa_set max_gso_size=10000 ur1 ur2
# Levels 7 and 6 unscheduled, 5 the highest scheduled.
homa_set unsched_cutoffs="0 0 0 0 0 0 1000000 100" ur1 ur2
tc -n ur2 qdisc replace dev veth2 root netem delay 10ms
serve ur2 4 71
check "unfiltered: 3 RPCs of 50000 B" in_ns ur1 "$HOMA_TEST" client \
	10.15.0.2 71 3 50000 1

# Offsets in the IPv4 packet (header of 20 bytes): the TOS at 1 (level
# L is IP priority L with the default priority_map: TOS L << 5), the
# Homa type at 20 + 11 and the DATA header's retransmit flag at 20 + 48.
drop_data ur1 1 match ip tos 0x00 0xe0 match u8 0 0xff at 68
drop_data ur1 2 match ip tos 0xa0 0xe0
# dropped PRIO: packets the filter of that tc priority dropped so far
# (GSO packets count once).
dropped() {
	tc -n ur1 -s filter show dev veth1 parent 1: prio "$1" |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

urgent0=$(metric ur2 resends_urgent)
top0=$(metric ur1 data_tx_prio7)
check "scheduled bytes and level-5 copies dropped: 3 RPCs of 50000 B" \
	in_ns ur1 timeout 60 "$HOMA_TEST" client 10.15.0.2 71 3 50000 1
fresh=$(dropped 1)
copies=$(dropped 2)
urgent=$(( $(metric ur2 resends_urgent) - urgent0 ))
top=$(( $(metric ur1 data_tx_prio7) - top0 ))
echo "# first transmissions dropped: ${fresh:-0}; copies dropped at level 5:" \
	"${copies:-0}; top-level RESENDs: $urgent; client's DATA at level 7: $top"
check "scheduled bytes dropped" test "${fresh:-0}" -ge 3
check "copies at level 5 dropped" test "${copies:-0}" -ge 3
check "the server asked at the top level" test "$urgent" -ge 3
check "the client sent copies at the top level" test "$top" -ge 3
check_eq "no server RPC timed out" "$(metric ur2 rpc_timeouts)" 0
check_eq "no server RPC stalled" "$(metric ur2 rpc_stall_timeouts)" 0

stop_all ur2
live_zero ur1 ur2
finish
