#!/usr/bin/env bash
# The pacer's limit on the DATA a host holds (pacer_held_max_kb), with
# link_mbps wrong: 25000 on 16 Mbit/s links (util/testbed, a FIFO of
# 256 KB in each host's uplink). The NIC-queue estimate then says the
# queue is always empty; the held count (copies handed to IP and not yet
# let go of) is what holds paced packets back. Echo RPCs of 100 KB,
# twelve at a time, must complete byte for byte with the uplink FIFO never
# overflowing (tx_stack_drops stays 0), the pacer waiting for room
# (pacer_held_waits rises) and the held count never read above the limit
# plus one 64 KB packet. Meanwhile the pacer learns the rate at which the
# host's DATA drains (pacer_drain_queue_us): pacer_drain_samples rises and
# pacer_drain_kbps reads about the link's 16 Mbit/s, not link_mbps.
# With the limit off (0), the same RPCs make the
# host hold more than its uplink FIFO and the FIFO drops: the limit is
# what prevents it. Prints RTTs and packets resent per RPC for both.
# While the echoes run, the server's measured arrival rate
# (rx_rate_mbps, for rtt_window_measured) is about the link's 16 Mbit/s,
# not link_mbps.
#
#   [h0] client --- uplink fifo 16 Mbit/s --- br0 [sw] --- [h1] server
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2317	# called by the trap
testbed_cleanup() {
	"$TOP/util/testbed" --down > /dev/null 2>&1 || true
	rm -f "$OUTFILE"
	cleanup
}
trap testbed_cleanup EXIT

COUNT=24
SIZE=100000
# Twelve at a time: with six, the host without a limit held 260-277 KB
# against its 256 KB FIFO, and in one run of eight nothing dropped.
CONC=12
OUTFILE=$(mktemp /tmp/pacer_held.XXXXXX)
LIMIT=128
# What one copy counts for at most (HOMA_PACE_HELD_WEIGHT_MAX units of
# 256 B), and 20% for segments made in software (each counts whole units).
PKT_KB=64

# run HELD_MAX: the echoes with pacer_held_max_kb HELD_MAX on both hosts,
# on a new bed (so every metric starts at 0); sets OUT, HELD (the most
# either host held), DROPS, WAITS and SAMPLES (both hosts), KBPS (h0's
# drain rate learned), RESENT (per RPC).
run() {
	local held_max=$1
	"$TOP/util/testbed" --hosts 2 --mbps 16 --quiet \
		--homa link_mbps=25000 --homa pacer_held_max_kb="$held_max"
	NAMESPACES+=(h0 h1 sw)
	serve h1 4 80
	in_ns h0 timeout 120 "$HOMA_TEST" client 10.0.0.2 80 "$COUNT" \
		"$SIZE" "$CONC" > "$OUTFILE" 2>&1 &
	sleep 1
	RATE=$(metric h1 rx_rate_mbps)
	if ! wait $!; then
		echo "# FAIL: pacer_held_max_kb $held_max: $(cat "$OUTFILE")"
		FAILED=1
	fi
	OUT=$(cat "$OUTFILE")
	HELD=$(($(metric h0 tx_held_max_bytes) / 1024))
	[ $(($(metric h1 tx_held_max_bytes) / 1024)) -le "$HELD" ] ||
		HELD=$(($(metric h1 tx_held_max_bytes) / 1024))
	DROPS=$(($(metric h0 tx_stack_drops) + $(metric h1 tx_stack_drops)))
	WAITS=$(($(metric h0 pacer_held_waits) + $(metric h1 pacer_held_waits)))
	SAMPLES=$(($(metric h0 pacer_drain_samples) +
		$(metric h1 pacer_drain_samples)))
	KBPS=$(metric h0 pacer_drain_kbps)
	RESENT=$((($(metric h0 data_resent) + $(metric h1 data_resent)) /
		COUNT))
	echo "# pacer_held_max_kb $held_max, $SIZE B echoes x $COUNT:" \
		"$(echo "$OUT" | grep -o 'p50.*'); most held $HELD KB," \
		"uplink drops $DROPS, pacer waits $WAITS, packets resent" \
		"per RPC $RESENT; h1's arrival rate after 1 s $RATE Mbit/s;" \
		"drain samples $SAMPLES, h0's drain rate $KBPS Kbit/s"
	stop_all h1
	"$TOP/util/testbed" --down > /dev/null 2>&1 || true
}

run "$LIMIT"
check "limit $LIMIT: every echo completed" \
	test -n "$(echo "$OUT" | grep "^rpcs $COUNT ")"
check "limit $LIMIT: the pacer waited for room" test "$WAITS" -gt 0
check "limit $LIMIT: held at most the limit plus one packet ($HELD KB)" \
	test "$HELD" -le $(((LIMIT + PKT_KB) * 12 / 10))
check_eq "limit $LIMIT: no uplink drops" "$DROPS" 0
timed check "measured arrival rate $RATE Mbit/s near the link's 16" \
	test "$RATE" -ge 8 -a "$RATE" -le 20
check "limit $LIMIT: the pacer sampled the drain rate ($SAMPLES)" \
	test "$SAMPLES" -gt 0
timed check "limit $LIMIT: h0's drain rate $KBPS Kbit/s near the link's" \
	test "$KBPS" -ge 8000 -a "$KBPS" -le 24000

run 0
check_eq "no limit: the pacer never waited for room" "$WAITS" 0
check_eq "no limit: no drain samples" "$SAMPLES" 0
check "no limit: the host held more than its 256 KB uplink ($HELD KB)" \
	test "$HELD" -gt 256
timed check "no limit: the uplink dropped ($DROPS)" test "$DROPS" -gt 0
finish
