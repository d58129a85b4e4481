#!/usr/bin/env bash
# TCP and Homa share one shaped downlink (util/testbed, 16 Mbit/s, 8
# strict-priority switch bands): a backlogged TCP flow h2 -> h0 (cp_node,
# 500000 B one-way messages) and, once it runs, a closed-loop Homa client
# h1 -> h0 (cp_node, 100000 B one-way messages: granted, so h0 measures
# the data delay). h0's congestion detection must see its Homa peer
# congested while both run: rtt_congested in h0's /proc/net/homa_metrics
# rises, or the `congested` column of its /proc/net/homa_peers shows 1
# in one of the readings taken during the run. Both protocols must move
# data (RPCs completed, none failed; bytes counted on h0). Prints what
# each moved and the congestion counters; no timing is asserted (the
# congestion check is wrapped in `timed`). Then the same again with
# homa.7's settings for sharing (sched_ip_priority=0 on the sender,
# rtt_congestion_react=1 on h0): both must still move data, and h0 must
# cut the congested peer's grant share. And with rtt_congestion_react=5
# (cut only for a queue of h0's own granted bytes), h0 must find the
# queue TCP keeps not its own and grow the share (grant_scale_foreign).
#
#   [h1] Homa --\
#                br0 [sw] -- 16 Mbit/s, 8 bands --> [h0] servers
#   [h2] TCP ---/
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

if [ ! -x "$CP_NODE" ]; then
	echo "# cp_node not built: run make -C util before the VM tests"
	exit 1
fi

# shellcheck disable=SC2317	# called by the trap
testbed_cleanup() {
	"$TOP/util/testbed" --down > /dev/null 2>&1 || true
	cleanup
}
trap testbed_cleanup EXIT

# Seconds of TCP alone before Homa starts, and of the Homa client.
TCP_LEAD=2
HOMA_SECONDS=8

"$TOP/util/testbed" --hosts 3 --mbps 16 --quiet
NAMESPACES+=(h0 h1 h2 sw)

# congested_peers: how many of h0's peers are congested now.
congested_peers() {
	# shellcheck disable=SC2016	# awk's fields
	in_ns h0 awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["congested"] == 1 { n++ } END { print n + 0 }' \
		/proc/net/homa_peers
}

# tcp_rx: bytes h0's TCP server sockets (port 5000) received so far (0
# before the connection is there: grep finding nothing is not an error).
tcp_rx() {
	in_ns h0 ss -tinH 'sport = :5000' |
		{ grep -o 'bytes_received:[0-9]*' || true; } | cut -d: -f2 |
		awk '{ s += $1 } END { print s + 0 }'
}

cp_serve h0 --protocol homa
cp_serve h0 --protocol tcp

# share_run LABEL: TCP alone for TCP_LEAD s, then Homa beside it for
# HOMA_SECONDS s; checks that both moved data and that h0 saw its Homa
# peer congested.
share_run() {
	local label=$1 cong0 uncong0 rx0 tcp_log tcp_pid tcp0 tcp1 homa_log
	local homa_pid seen homa_rc tcp_rc homa_rpcs tcp_rpcs cong

	cong0=$(metric h0 rtt_congested)
	uncong0=$(metric h0 rtt_uncongested)
	rx0=$(metric h0 pkts_rx_data)
	tcp_log=$(mktemp /tmp/share_tcp.XXXXXX)
	ip netns exec h2 "$CP_NODE" client --protocol tcp --servers 10.0.0.1 \
		--workload 500000 --one-way --client-max 2 \
		--seconds $((TCP_LEAD + HOMA_SECONDS + 20)) > "$tcp_log" 2>&1 &
	tcp_pid=$!
	sleep "$TCP_LEAD"
	tcp0=$(tcp_rx)

	homa_log=$(mktemp /tmp/share_homa.XXXXXX)
	ip netns exec h1 "$CP_NODE" client --protocol homa \
		--servers 10.0.0.1 --workload 100000 --one-way --client-max 4 \
		--seconds "$HOMA_SECONDS" > "$homa_log" 2>&1 &
	homa_pid=$!
	# h0's view of its peers while both run.
	seen=0
	while kill -0 "$homa_pid" 2>/dev/null; do
		[ "$(congested_peers)" -gt 0 ] && seen=1
		sleep 0.5
	done
	homa_rc=0
	wait "$homa_pid" || homa_rc=$?
	tcp1=$(tcp_rx)
	# cp_node ends its run early on SIGTERM, with its summary.
	kill -TERM "$tcp_pid" 2>/dev/null || true
	tcp_rc=0
	wait "$tcp_pid" || tcp_rc=$?

	grep '^summary:' "$homa_log" | sed "s/^/# $label homa: /"
	grep '^summary:' "$tcp_log" | sed "s/^/# $label tcp: /"
	homa_rpcs=$(summary_field "$homa_log" rpcs)
	tcp_rpcs=$(summary_field "$tcp_log" rpcs)
	check_eq "$label: homa client exit status" "$homa_rc" 0
	check_eq "$label: tcp client exit status" "$tcp_rc" 0
	check "$label: homa moved data: rpcs > 0 (got '$homa_rpcs')" \
		test "${homa_rpcs:-0}" -gt 0
	check_eq "$label: homa: no failed RPC" \
		"$(summary_field "$homa_log" errors)" 0
	check "$label: tcp moved data: rpcs > 0 (got '$tcp_rpcs')" \
		test "${tcp_rpcs:-0}" -gt 0
	check_eq "$label: tcp: no failed RPC" \
		"$(summary_field "$tcp_log" errors)" 0
	check "$label: h0 received Homa DATA" \
		test "$(metric h0 pkts_rx_data)" -gt "$rx0"
	echo "# $label: h0 TCP bytes received while Homa ran: $((tcp1 - tcp0))"
	check "$label: h0 received TCP bytes while Homa ran" \
		test "$tcp1" -gt "$tcp0"

	cong=$(($(metric h0 rtt_congested) - cong0))
	echo "# $label: h0: rtt_congested +$cong, rtt_uncongested" \
		"+$(($(metric h0 rtt_uncongested) - uncong0)), congested peer" \
		"seen $seen, rx_delay_samples $(metric h0 rx_delay_samples)"
	in_ns h0 cat /proc/net/homa_peers | sed 's/^/# /'
	timed check "$label: h0 saw congestion while TCP ran (+$cong, $seen)" \
		test "$cong" -gt 0 -o "$seen" = 1
	rm -f "$tcp_log" "$homa_log"
}

share_run defaults

# What homa.7 gives for sharing a link with TCP: h1's scheduled bytes at
# TCP's IP priority, h0 cutting the grants (window and overcommitment)
# of a congested peer. The share must be cut at least once.
homa_set sched_ip_priority=0 h1
homa_set rtt_congestion_react=1 h0
cuts0=$(metric h0 grant_scale_cuts)
share_run homa-share
echo "# homa-share: h0 grant_scale_cuts +$(($(metric h0 grant_scale_cuts) -
	cuts0)), grant_scale_grows $(metric h0 grant_scale_grows)"
timed check "homa-share: h0 cut its congested peer's share" \
	test "$(metric h0 grant_scale_cuts)" -gt "$cuts0"

# The same with the third bit of rtt_congestion_react: h0 cuts only for
# a queue its own granted bytes account for. TCP keeps the shared band
# full, so h0 must find the queue not its own and grow the share.
homa_set rtt_congestion_react=5 h0
foreign0=$(metric h0 grant_scale_foreign)
share_run homa-share-fair
echo "# homa-share-fair: h0 grant_scale_foreign" \
	"+$(($(metric h0 grant_scale_foreign) - foreign0))"
timed check "homa-share-fair: h0 grew a share for a queue not its own" \
	test "$(metric h0 grant_scale_foreign)" -gt "$foreign0"
stop_all h0
finish
