#!/usr/bin/env bash
# An experiment, not in the default suite (test/vm/run.sh
# x_repeat_load.sh): the default benchmark's loaded phase run again and
# again in one boot. The default bed (util/testbed, 4 hosts, 16 Mbit/s,
# cubic), one cp_node server per host kept for every round, and each round
# the four clients of cp_vs_tcp's loaded phase (W4 one-way, 80% of a link
# each, 200 outstanding at most), 5 s apart. Per round it prints the
# share of the offered bytes the clients saw completed, what the hosts'
# counters moved by, and, at the round's end, each host's largest RESEND
# backoff toward a peer and its largest data-delay srtt. With SNAP=N
# (run by hand inside the VM, or edit the default below) it also prints,
# every N seconds of a round, a line with, per host, read through the
# server's /proc/PID/net with bash builtins (no process per read, as
# session 21's reproducer read them): the host's uplink kbit/s since the
# last line, its live RPCs, GRANTs received, BUSYs sent, and its largest
# RESEND backoff and data-delay srtt toward a peer. Off by default: under
# emulation those reads cost the hosts CPU and, in one boot with SNAP=5,
# about 10 points of the carried load (util/README-bench.md).
# Asserts nothing beyond the bed being built and the servers starting.
# 8 rounds of about 120-140 s each keep it under inside.sh's 1400 s per
# experiment (ROUNDS and SECONDS_PER_ROUND change them when the script is
# run by hand inside the VM; run.sh passes no environment in).
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-8}
SECONDS_PER_ROUND=${SECONDS_PER_ROUND:-60}
WARMUP=20
SNAP=${SNAP:-0}
HOSTS=(h0 h1 h2 h3)
ADDRS=(10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4)
METRICS=(resends_sent resends_spurious data_resent grant_overflow
	 pool_stalls rpc_timeouts rpc_stall_timeouts pkts_tx_busy)

# shellcheck disable=SC2317	# called by the trap
testbed_cleanup() {
	"$TOP/util/testbed" --down > /dev/null 2>&1 || true
	cleanup
}
trap testbed_cleanup EXIT

check "build the default bed" "$TOP/util/testbed" --hosts 4 --mbps 16 \
	--cc cubic --quiet
declare -A SERVER_PID
for h in "${HOSTS[@]}"; do
	check "cp_node server on $h" cp_serve "$h" --protocol homa --ports 1
	SERVER_PID[$h]=$READY_PID
done

# peers: per host, the largest resend_backoff and rx_srtt_ns (ms) of its
# peers (columns 7 and 15 of /proc/net/homa_peers).
peers() {
	local h
	for h in "${HOSTS[@]}"; do
		# shellcheck disable=SC2016	# awk's fields
		in_ns "$h" awk 'NR > 1 { if ($7 > b) b = $7; if ($15 > s) s = $15 }
			END { printf "%s:b%d/%dms ", h, b, s / 1e6 }' \
			h="$h" /proc/net/homa_peers
	done
}

# host_snap H: SNAP_OUT="TX_BYTES LIVE GRANTS_RX BUSY_TX BACKOFF SRTT_MS"
# of host H now, read with builtins only (no fork) from its server's
# /proc/PID/net.
host_snap() {
	local dir=/proc/${SERVER_PID[$1]}/net name val tx=0 live=0 gr=0 busy=0
	local -a f
	local b=0 srtt=0
	while read -r name _ _ _ _ _ _ _ _ val _; do
		[ "$name" = eth0: ] && tx=$val
	done < "$dir/dev"
	while read -r name val _; do
		case $name in
		rpcs_live) live=$val ;;
		pkts_rx_grant) gr=$val ;;
		pkts_tx_busy) busy=$val ;;
		esac
	done < "$dir/homa_metrics"
	while read -r -a f; do
		[ "${f[0]}" = addr ] && continue
		[ "${f[6]}" -gt "$b" ] && b=${f[6]}
		[ "${f[14]}" -gt "$srtt" ] && srtt=${f[14]}
	done < "$dir/homa_peers"
	SNAP_OUT="$tx $live $gr $busy $b $((srtt / 1000000))"
}

# snap_round PIDS...: while all the clients PIDS run, every SNAP
# seconds print a line of every host's figures (see the header).
snap_round() {
	local h start=$SECONDS last=$SECONDS dt line
	local -A prev
	local -a now old
	for h in "${HOSTS[@]}"; do
		host_snap "$h"
		prev[$h]=$SNAP_OUT
	done
	while kill -0 "$@" 2>/dev/null; do
		sleep "$SNAP"
		dt=$((SECONDS - last > 0 ? SECONDS - last : 1))
		last=$SECONDS
		line="#   t=$((SECONDS - start))"
		for h in "${HOSTS[@]}"; do
			host_snap "$h"
			read -r -a now <<< "$SNAP_OUT"
			read -r -a old <<< "${prev[$h]}"
			prev[$h]="${now[*]}"
			line+=" $h:$(( (now[0] - old[0]) * 8 / dt / 1000 ))k"
			line+="/l${now[1]}/g$((now[2] - old[2]))"
			line+="/B$((now[3] - old[3]))/b${now[4]}/${now[5]}ms"
		done
		echo "$line"
	done
}

out=/tmp/x_repeat_load
mkdir -p "$out"
for ((r = 1; r <= ROUNDS; r++)); do
	before=$(metric_snap "${HOSTS[@]}")
	live=0
	for h in "${HOSTS[@]}"; do
		live=$((live + $(metric "$h" rpcs_live)))
	done
	pids=()
	for i in "${!HOSTS[@]}"; do
		others=()
		for j in "${!ADDRS[@]}"; do
			[ "$j" -ne "$i" ] && others+=("${ADDRS[$j]}")
		done
		servers=$(IFS=,; echo "${others[*]}")
		in_ns "${HOSTS[$i]}" "$CP_NODE" client --protocol homa \
			--servers "$servers" --server-ports 1 --workload w4 \
			--one-way --gbps 0.0128 --seconds "$SECONDS_PER_ROUND" \
			--warmup "$WARMUP" --ports 1 --client-max 200 \
			--seed $((1000 + i)) > "$out/r$r-h$i.log" 2>&1 &
		pids+=($!)
	done
	[ "$SNAP" -gt 0 ] && snap_round "${pids[@]}"
	wait "${pids[@]}"
	after=$(metric_snap "${HOSTS[@]}")
	offered=0
	done_b=0
	for i in "${!HOSTS[@]}"; do
		o=$(summary_field "$out/r$r-h$i.log" bytes_offered)
		d=$(summary_field "$out/r$r-h$i.log" bytes_done)
		offered=$((offered + ${o:-0}))
		done_b=$((done_b + ${d:-0}))
	done
	line=$(metric_moves "$before" "$after")
	if [ "$offered" -gt 0 ]; then
		pct=$(echo "scale=1; 100 * $done_b / $offered" | bc)
	else
		pct="?"
	fi
	echo "# round $r: carried $pct% of $offered B offered; rpcs_live at start $live"
	echo "#  $line"
	echo "#   $(peers)"
	sleep 5
done
finish
