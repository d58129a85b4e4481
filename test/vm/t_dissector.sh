#!/usr/bin/env bash
# The Wireshark dissector util/homa.lua decodes real traffic. tcpdump on
# ws1's veth captures both directions while four scenarios run:
#  A. a 200000-byte request to a sink (DATA, GRANTs, the CUTOFFS that
#     answers a stale cutoff version, then NEED_ACK and ACK);
#  B. a request while the sink is stopped (the client's RESENDs, BUSY);
#  C. a request whose DATA ws2 drops on arrival (RESEND, RPC_UNKNOWN,
#     then the restart);
#  D. 20 RPCs 8 at a time with incast_threshold 2 (the DATA incast flag).
# tshark -X lua_script:util/homa.lua -T fields then must show every type,
# as many control packets of each type as each side's pkts_tx_* metric
# says it sent (between a reading before the capture stops and one after:
# a server may still be asking a closed client for its ack), and the ports, ids, lengths, offsets, grant offsets and
# priorities, cutoffs and acks that the senders used.
#
#   [ws1] veth1 10.21.0.1 ---- veth2 10.21.0.2 [ws2] (sink 90, echo 91)
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

if ! command -v tshark > /dev/null || ! command -v tcpdump > /dev/null; then
	echo "# tshark or tcpdump missing (scripts/setup.sh installs them)"
	exit 4
fi
LUA="$TOP/util/homa.lua"
CUTOFFS="0 0 0 0 1000000 12345 2345 123"
dir=$(mktemp -d /tmp/dissector.XXXXXX)

link_pair ws1 ws2 10.21.0
in_ns ws2 sysctl -q -w net.homa.unsched_cutoffs="$CUTOFFS"
version=$(in_ns ws2 sysctl -n net.homa.cutoff_version)
homa_set incast_threshold=2 ws1
# B and C keep a request waiting on purpose: no timeout meanwhile.
homa_set timeout_ticks=10000 ws1 ws2

# Not through in_ns: $! must be tcpdump itself (ip execs it). Immediate
# mode: otherwise the kernel hands packets over in blocks, a block once
# full or a second old, and the packets of the last second could still be
# in the kernel when tcpdump stops; the counts below would miss them.
# Headers only (-s): the dissector needs no more.
ip netns exec ws1 tcpdump -i veth1 -U --immediate-mode -n -Z root -s 512 \
	-w "$dir/cap.pcap" \
	ip proto 146 2> "$dir/tcpdump.err" &
tcpdump_pid=$!
for _ in $(seq 100); do
	grep -q 'listening on' "$dir/tcpdump.err" && break
	sleep 0.1
done
check "tcpdump listening" grep -q 'listening on' "$dir/tcpdump.err"

# lost NS DEV: packets from NS counted as sent that never reached the
# wire: no route, refused by the IP layer or a qdisc (Homa's counters),
# or dropped by the veth DEV (its TX drops, which include the peer's).
lost() {
	local dropped
	dropped=$(ip -n "$1" -s link show dev "$2" |
		awk '/TX:/ { getline; print $4; exit }')
	echo $(($(metric "$1" tx_no_route) + $(metric "$1" tx_stack_drops) +
		dropped))
}
declare -A LOST0
LOST0[ws1]=$(lost ws1 veth1)
LOST0[ws2]=$(lost ws2 veth2)

ip netns exec ws2 "$HOMA_TEST" sink 90 > "$dir/sink" 2>&1 &
sink_pid=$!
for _ in $(seq 100); do
	grep -q '^serving' "$dir/sink" && break
	sleep 0.1
done
serve ws2 4 91

# send SIZE NAME: one request from ws1 to the sink, whose socket stays
# open 300 ms more (to ack); its output goes to $dir/NAME.
send() {
	in_ns ws1 "$HOMA_TEST" send 10.21.0.2 90 "$1" 300 > "$dir/$2" 2>&1
}

# ids NAME: the RPC id and client port of that send, into ID[NAME] and
# PORT[NAME].
declare -A ID PORT SENT SENT_HI
ids() {
	echo "# $1: $(cat "$dir/$1")"
	ID[$1]=$(sed -n 's/^done.* id \([0-9]*\) .*/\1/p' "$dir/$1")
	PORT[$1]=$(sed -n 's/^done.* port \([0-9]*\)$/\1/p' "$dir/$1")
}

# A.
check "A: 200000-byte request" send 200000 A
ids A
# B.
busy=$(metric ws2 pkts_tx_busy)
kill -STOP "$sink_pid"
send 100 B &
b_pid=$!
check "B: BUSY sent" rises ws2 pkts_tx_busy "$busy"
kill -CONT "$sink_pid"
check "B: request answered after the stop" wait "$b_pid"
ids B
# C.
tc -n ws2 qdisc add dev veth2 ingress
tc -n ws2 filter add dev veth2 parent ffff: protocol ip prio 1 u32 \
	match ip protocol 146 0xff match u8 0x10 0xff at 31 action drop
unknown=$(metric ws2 pkts_tx_rpc_unknown)
send 100 C &
c_pid=$!
check "C: RPC_UNKNOWN sent" rises ws2 pkts_tx_rpc_unknown "$unknown"
tc -n ws2 qdisc del dev veth2 ingress
check "C: request answered after the drops" wait "$c_pid"
ids C
# D.
check "incast: 20 RPCs, 8 at a time" in_ns ws1 "$HOMA_TEST" client \
	10.21.0.2 91 20 5000 8

sleep 0.5
for t in data grant resend rpc_unknown busy cutoffs need_ack ack; do
	for ns in ws1 ws2; do
		SENT[$ns.$t]=$(metric "$ns" "pkts_tx_$t")
	done
done
marked=$(metric ws1 incast_marked)
sleep 0.3
kill -INT "$tcpdump_pid"
wait "$tcpdump_pid" || true
drops=$(sed -n 's/^\([0-9]*\) packets* dropped by kernel$/\1/p' \
	"$dir/tcpdump.err")
echo "# tcpdump: $(grep -E 'packets? (captured|received|dropped)' \
	"$dir/tcpdump.err" | tr '\n' ' ')"
check_eq "tcpdump lost no packet" "${drops:-?}" 0
for t in data grant resend rpc_unknown busy cutoffs need_ack ack; do
	for ns in ws1 ws2; do
		SENT_HI[$ns.$t]=$(metric "$ns" "pkts_tx_$t")
	done
done
kill "$sink_pid" 2>/dev/null || true
l1=$(($(lost ws1 veth1) - LOST0[ws1]))
l2=$(($(lost ws2 veth2) - LOST0[ws2]))
echo "# packets lost on the way out: $l1 from ws1, $l2 from ws2"

tshark -X "lua_script:$LUA" -r "$dir/cap.pcap" -T fields -E separator=/t \
	-E occurrence=a -E aggregator=, -e frame.number -e ip.src \
	-e ip.dsfield.dscp -e homa.type -e homa.sport -e homa.dport \
	-e homa.sender_id -e homa.data.message_length -e homa.data.offset \
	-e homa.data.length -e homa.data.flags.incast \
	-e homa.data.cutoff_version -e homa.grant.offset \
	-e homa.grant.priority -e homa.resend.offset -e homa.resend.length \
	-e homa.cutoffs.unsched -e homa.cutoffs.version \
	-e homa.ack.client_id -e homa.ack.server_port \
	-e homa.data.ack.client_id -e homa.data.ack.server_port \
	-e homa.data.retransmit \
	> "$dir/fields" 2> "$dir/tshark.err"
check "tshark decoded the capture" test -s "$dir/fields"
echo "# $(wc -l < "$dir/fields") packets captured"

# col N [AWK_CONDITION]: column N of the packets that match.
col() {
	awk -F'\t' "${2:-1} { print \$$1 }" "$dir/fields"
}

src1="\$2 == \"10.21.0.1\""
src2="\$2 == \"10.21.0.2\""
declare -A code=([data]=0x10 [grant]=0x11 [resend]=0x12 [rpc_unknown]=0x13
	[busy]=0x14 [cutoffs]=0x15 [need_ack]=0x17 [ack]=0x18)
for t in data grant resend rpc_unknown busy cutoffs need_ack ack; do
	n1=$(col 1 "$src1 && \$4 == \"${code[$t]}\"" | wc -l)
	n2=$(col 1 "$src2 && \$4 == \"${code[$t]}\"" | wc -l)
	s1=${SENT[ws1.$t]}
	s2=${SENT[ws2.$t]}
	h1=${SENT_HI[ws1.$t]}
	h2=${SENT_HI[ws2.$t]}
	echo "# $t: captured $n1 from ws1 (sent $s1-$h1), $n2 from ws2" \
		"(sent $s2-$h2)"
	check "$t present" test $((n1 + n2)) -gt 0
	if [ "$t" = data ]; then
		# A large packet may leave as several segments.
		check "data: at least one per packet sent" \
			test $((n1 + n2)) -ge $((s1 + s2))
	else
		# Every one sent is captured, but for those lost on the
		# way out (any type: the counts do not say which).
		check "$t packets from ws1: $s1 - $l1 <= $n1 <= $h1" \
			test $((s1 - l1)) -le "$n1" -a "$n1" -le "$h1"
		check "$t packets from ws2: $s2 - $l2 <= $n2 <= $h2" \
			test $((s2 - l2)) -le "$n2" -a "$n2" -le "$h2"
	fi
done

# A: the request's DATA, the response and the grants.
a=${ID[A]}
check "A: id and port known" test -n "$a" -a -n "${PORT[A]}"
check_eq "A: request ports" "$(col 5 "\$7 == \"$a\"" | sort -u |
	tr '\n' ' ')" "${PORT[A]} "
check_eq "A: request dport" "$(col 6 "\$7 == \"$a\"" | sort -u)" 90
check_eq "A: request lengths" "$(col 8 "\$4 == \"0x10\" && \$7 == \"$a\"" |
	sort -u)" 200000
# The first transmissions (retransmit 0) follow each other from offset 0
# to the end; retransmissions (retransmit 1) only repeat bytes sent.
check_eq "A: request offsets, lengths and retransmit flags" "$(awk -F'\t' \
	"\$4 == \"0x10\" && \$7 == \"$a\" {
		if (\$23 == 0 && \$9 == e) e += \$10
		else if (\$23 != 1 || \$9 + \$10 > e) print \$1 }
	END { print e }" "$dir/fields" | tr '\n' ' ')" "200000 "
check_eq "A: request offsets start at 0" "$(col 9 \
	"\$4 == \"0x10\" && \$7 == \"$a\"" | sort -n | head -n 1)" 0
check_eq "A: response from the server's id" "$(col 8 \
	"\$4 == \"0x10\" && \$7 == \"$((a + 1))\"" | sort -u)" 1
check_eq "A: response ports" "$(col 5 "\$7 == \"$((a + 1))\"" | sort -u)" 90
check_eq "A: response dport" "$(col 6 "\$7 == \"$((a + 1))\"" | sort -u)" \
	"${PORT[A]}"
grants=$(col 13 "\$4 == \"0x11\" && \$7 == \"$((a + 1))\"")
check "A: grants" test -n "$grants"
check_eq "A: grant offsets increase" "$(echo "$grants" | sort -n -c 2>&1 &&
	echo sorted)" sorted
check_eq "A: last grant offset" "$(echo "$grants" | tail -n 1)" 200000
gprio=$(col 14 "\$4 == \"0x11\" && \$7 == \"$((a + 1))\"" | sort -u)
# The TOS priority of the request's scheduled DATA: the bytes beyond
# those sent before the first GRANT.
first=$(col 1 "\$4 == \"0x11\" && \$7 == \"$((a + 1))\"" | head -n 1)
unsched=$(awk -F'\t' "\$4 == \"0x10\" && \$7 == \"$a\" && \$1 < $first &&
	\$9 + \$10 > u { u = \$9 + \$10 } END { print u }" "$dir/fields")
echo "# A: $unsched bytes sent before the first GRANT"
dprio=$(awk -F'\t' "\$4 == \"0x10\" && \$7 == \"$a\" && \$9 >= $unsched {
	print int(\$3 / 8) }" "$dir/fields" | sort -u)
echo "# A: grant priorities $(echo "$gprio" | tr '\n' ' ')," \
	"scheduled DATA TOS priorities $(echo "$dprio" | tr '\n' ' ')"
check_eq "A: scheduled DATA goes at the granted priorities" "$dprio" "$gprio"
for p in $gprio; do
	check "A: ws1 counted DATA at level $p" \
		test "$(metric ws1 "data_tx_prio$p")" -gt 0
done

# CUTOFFS: ws2's values and version, then used by ws1.
check_eq "CUTOFFS values" "$(col 17 "$src2 && \$4 == \"0x15\"" | sort -u)" \
	"$(echo "$CUTOFFS" | tr ' ' ',')"
check_eq "CUTOFFS version" "$(col 18 "$src2 && \$4 == \"0x15\"" |
	sort -u)" "$version"
check_eq "CUTOFFS to the client's port" "$(col 6 \
	"$src2 && \$4 == \"0x15\"" | sort -u)" "${PORT[A]}"
check_eq "later requests carry the new version" "$(col 12 \
	"\$4 == \"0x10\" && \$7 == \"${ID[C]}\"" | sort -u)" "$version"

# B: RESENDs from the client, BUSY from the server.
check "B: id known" test -n "${ID[B]}"
check "B: client RESENDs" test -n "$(col 1 \
	"\$4 == \"0x12\" && \$7 == \"${ID[B]}\" && \$5 == \"${PORT[B]}\"")"
check_eq "B: RESEND asks from offset 0" "$(col 15 \
	"\$4 == \"0x12\" && \$7 == \"${ID[B]}\"" | sort -u | head -n 1)" 0
check "B: BUSY from the server's id to the client's port" test -n \
	"$(col 1 "\$4 == \"0x14\" && \$7 == \"$((ID[B] + 1))\" && \$6 == \"${PORT[B]}\"")"
# C: RPC_UNKNOWN for a RESEND the server could not place.
check "C: id known" test -n "${ID[C]}"
check "C: client RESENDs" test -n "$(col 1 \
	"\$4 == \"0x12\" && \$7 == \"${ID[C]}\" && \$5 == \"${PORT[C]}\"")"
check "C: RPC_UNKNOWN from the server's id" test -n "$(col 1 \
	"\$4 == \"0x13\" && \$7 == \"$((ID[C] + 1))\" && \$5 == 90 && \$6 == \"${PORT[C]}\"")"
# NEED_ACK and acks: each ack, in an ACK or piggybacked on DATA, names a
# request that ws1 sent (its id, to that server port).
check "NEED_ACK from server ids" test -n "$(col 1 \
	"\$4 == \"0x17\" && (\$5 == 90 || \$5 == 91) && \$7 % 2 == 1")"
# shellcheck disable=SC2016	# awk's fields
bad_acks=$(awk -F'\t' '
	NR == FNR { if ($2 == "10.21.0.1" && $4 == "0x10") sent[$7 ":" $6] = 1
		next }
	$4 == "0x18" { n = split($19, id, ","); split($20, port, ",")
		for (i = 1; i <= n; i++) if (!((id[i] ":" port[i]) in sent))
			print $1 }
	$4 == "0x10" && $21 != "" && $21 != "0" {
		if (!(($21 ":" $22) in sent)) print $1 }' \
	"$dir/fields" "$dir/fields" | sort -u | tr '\n' ' ')
check_eq "each ack names a request ws1 sent" "$bad_acks" ""
check "some DATA carries an ack" test -n "$(col 1 \
	"\$4 == \"0x10\" && \$21 != \"\" && \$21 != \"0\"")"
# D: incast flags.
inc=$(col 7 "\$4 == \"0x10\" && \$11 == \"1\"" | sort -u | wc -l)
echo "# D: $inc requests with the incast flag, $marked marked"
check "D: incast flag seen" test "$inc" -gt 0
check_eq "D: requests flagged = incast_marked" "$inc" "$marked"
check_eq "D: only to the echo server" "$(col 6 \
	"\$4 == \"0x10\" && \$11 == \"1\"" | sort -u)" 91

if [ "$FAILED" != 0 ]; then
	# Not through head: grep's SIGPIPE would end the script here.
	grep -v '^[0-9]*.10.21.0.1.[0-9]*.0x10' "$dir/fields" |
		sed -n '1,60s/^/# /p'
	sed 's/^/# tshark: /' "$dir/tshark.err" | grep -v 'Running as' || true
fi
rm -rf "$dir"
live_zero ws1 ws2
finish
