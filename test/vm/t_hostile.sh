#!/usr/bin/env bash
# Hostile input: while legitimate echo RPCs run between a client and a
# server (IPv4 and IPv6), a third host sends, through a raw socket from its
# own address, every packet type cut at every length, every header field
# at its boundary values, and over 100000 random mutations of valid
# packets, aimed at the server's ports and at the client's ports with
# plausible RPC ids (homa_attack crafted). Afterwards: no kernel splat
# (run.sh checks the log), every legitimate RPC completed with its bytes
# intact (homa_test client checks them), a new client still gets through,
# and rpcs_live and skbs_live of the server and the client are back to
# their baseline once the attacker has stopped and the timeouts have run.
#
# Two limits make it pass: stall_ms ends a message that receives nothing,
# also while it waits for this host's grants or buffers (forged one-packet
# requests did before); and peer_pool_pct keeps the attacker's incomplete
# messages from taking the server's whole buffer region (the legitimate
# clients' requests waited for buffers and timed out).
#
#   [hsrv] 10.7.0.1 fd07::1 --+
#   [hcli] 10.7.0.2 fd07::2 --+-- br0 [hsw]
#   [hatk] 10.7.0.3 fd07::3 --+
#
# A legitimate client run that takes over a minute counts as failed.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ATTACK="$VM_DIR/build/homa_attack"
# Random mutations per target; the four targets add up to 110000.
MUT_SRV4=60000
MUT_CLI4=40000
MUT_V6=5000
# Highest RPC id / 2 the attacker guesses: above what the clients reach.
IDMAX=4000
# Ports the client's sockets get: each homa_test client run is a new
# socket, numbered up from 32768 (HOMA_MIN_DEFAULT_PORT) in its namespace.
CLIENT_PORTS=32768-32895

# legit NAME ADDR PORT COUNT SIZE WINDOW: run "homa_test client" from hcli
# again and again until $WORK/stop exists; counts runs in $WORK/NAME.runs
# and failures (with their output) in $WORK/fail.
legit() {
	local name=$1 runs=0 rc
	shift
	while [ ! -e "$WORK/stop" ]; do
		rc=0
		timeout 60 ip netns exec hcli "$HOMA_TEST" client "$@" \
			> "$WORK/$name.out" 2>&1 || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "$name run $runs: exit $rc$([ "$rc" = 124 ] &&
				echo " (timed out)") $(tail -n 3 "$WORK/$name.out")" \
				>> "$WORK/fail"
		fi
		runs=$((runs + 1))
	done
	echo "$runs" > "$WORK/$name.runs"
}

# attack ARGS...: one homa_attack crafted run from hatk; adds what it sent.
attack() {
	local out n
	out=$(in_ns hatk "$ATTACK" crafted "$@")
	n=$(echo "$out" | awk '/^sent/ { print $2 }')
	echo "# attack $1 port $2: $out"
	check "attacker sent to $1 port $2" test -n "$n"
	SENT=$((SENT + ${n:-0}))
}

# ip_in NS: IPv4 plus IPv6 packets NS has received so far.
ip_in() {
	# shellcheck disable=SC2016	# $1, $2, $4 are awk's
	in_ns "$1" awk '$1 == "Ip:" && $2 ~ /^[0-9]/ { n += $4 }
		$1 == "Ip6InReceives" { n += $2 } END { print n }' \
		/proc/net/snmp /proc/net/snmp6
}

WORK=$(mktemp -d /tmp/hostile.XXXXXX)
bridge_hosts hsw 10.7.0 fd07 hsrv hcli hatk
if [ -e /proc/sys/net/homa/stall_ms ]; then
	homa_set stall_ms=500 hsrv hcli hatk
fi
serve hsrv 4 40
serve hsrv 6 41
check "echo before the attack (IPv4)" in_ns hcli "$HOMA_TEST" client \
	10.7.0.1 40 10 1000 1
check "echo before the attack (IPv6)" in_ns hcli "$HOMA_TEST" client \
	fd07::1 41 10 1000 1
# The echoes' server RPCs live until their acks come: let them go first,
# so that the baseline is the quiet state the attack must return to.
for ns in hsrv hcli; do
	check "$ns quiet before the attack" wait_metric "$ns" rpcs_live 0 20
done
declare -A base
for ns in hsrv hcli; do
	for m in rpcs_live skbs_live; do
		base[$ns.$m]=$(metric "$ns" "$m")
	done
done
echo "# baseline: server rpcs ${base[hsrv.rpcs_live]} skbs" \
	"${base[hsrv.skbs_live]}, client rpcs ${base[hcli.rpcs_live]} skbs" \
	"${base[hcli.skbs_live]}"

in0=$(( $(ip_in hsrv) + $(ip_in hcli) ))
start=$(date +%s)
legit v4 10.7.0.1 40 40 20000 4 &
pid4=$!
legit v6 fd07::1 41 200 100 8 &
pid6=$!
SENT=0
attack 10.7.0.1 40-41 32768 0 "$IDMAX" "$MUT_SRV4" 1
attack 10.7.0.2 "$CLIENT_PORTS" 40 1 "$IDMAX" "$MUT_CLI4" 2
attack fd07::1 40-41 32768 0 "$IDMAX" "$MUT_V6" 3
attack fd07::2 "$CLIENT_PORTS" 41 1 "$IDMAX" "$MUT_V6" 4
echo "# crafted packets sent: $SENT in $(($(date +%s) - start)) s;" \
	"server and client received $(( $(ip_in hsrv) + $(ip_in hcli) - in0 ))" \
	"IP packets in that time (attack and legitimate)"
check "at least 100000 crafted packets" test "$SENT" -ge 100000
touch "$WORK/stop"
wait "$pid4" "$pid6"
rpcs=$(( $(cat "$WORK/v4.runs") * 40 + $(cat "$WORK/v6.runs") * 200 ))
echo "# legitimate RPCs during the attack: $rpcs" \
	"($(cat "$WORK/v4.runs") + $(cat "$WORK/v6.runs") client runs)"
if [ -s "$WORK/fail" ]; then
	echo "# FAIL: legitimate RPCs failed during the attack:"
	head -n 20 "$WORK/fail" | sed 's/^/#   /'
	FAILED=1
fi
check "echo after the attack (IPv4)" timeout 60 ip netns exec hcli \
	"$HOMA_TEST" client 10.7.0.1 40 20 20000 4
check "echo after the attack (IPv6)" timeout 60 ip netns exec hcli \
	"$HOMA_TEST" client fd07::1 41 100 100 8
echo "# server drops: short $(metric hsrv drop_short), malformed" \
	"$(metric hsrv drop_malformed), unknown type" \
	"$(metric hsrv drop_unknown_type), no socket" \
	"$(metric hsrv drop_no_socket), no rpc $(metric hsrv drop_no_rpc)," \
	"rpcs_live $(metric hsrv rpcs_live)"
echo "# server limits: pool_peer_waits $(metric hsrv pool_peer_waits)," \
	"rpc_stall_timeouts $(metric hsrv rpc_stall_timeouts)," \
	"drop_rpc_limit $(metric hsrv drop_rpc_limit)"
echo "# client drops: short $(metric hcli drop_short), malformed" \
	"$(metric hcli drop_malformed), no rpc $(metric hcli drop_no_rpc)," \
	"rpcs_live $(metric hcli rpcs_live)"
for ns in hsrv hcli; do
	for m in rpcs_live skbs_live; do
		check "$ns $m back to baseline" wait_metric "$ns" "$m" \
			"${base[$ns.$m]}" 20
	done
done
echo "# settled $(($(date +%s) - start)) s after the attack began"
rm -rf "$WORK"
live_zero hcli hatk hsrv
finish
