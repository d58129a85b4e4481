#!/usr/bin/env bash
# Echo RPCs between two hosts joined by a veth pair, over IPv4 and IPv6:
# one at a time with sizes around the packet boundary and 1 MB, then random
# sizes 4 at a time, then 1000 outstanding at once from one client, then
# 1000 outstanding at once from four client processes to four servers;
# every response is checked byte for byte; also 100-B echoes from make
# rtt's server (echo_server). Offloads (GRO, TSO) off, the veth default.
#
#   [rpc1] veth1 10.1.0.1 fd00::1 ---- veth2 10.1.0.2 fd00::2 [rpc2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair rpc1 rpc2 10.1.0 fd00

serve rpc2 4 40
serve rpc2 6 41
serve rpc2 4 42
serve rpc2 6 43
# make rtt's server: the same echo without the at-most-once record.
start_ready rpc2 '^serving' "echo_server 4 44 in rpc2" "$HOMA_TEST" \
	echo_server 4 44
for size in 1 1399 1400 1424 1425 100000 1000000; do
	check "IPv4 echo $size B" in_ns rpc1 "$HOMA_TEST" client 10.1.0.2 40 \
		20 "$size" 1
	check "IPv6 echo $size B" in_ns rpc1 "$HOMA_TEST" client fd00::2 41 \
		20 "$size" 1
done
check "IPv4 echo 100 B, echo_server (make rtt's)" in_ns rpc1 "$HOMA_TEST" \
	client 10.1.0.2 44 200 100 1
check "IPv4 random sizes, 4 at a time" in_ns rpc1 "$HOMA_TEST" client \
	10.1.0.2 40 50 0 4
check "IPv6 random sizes, 4 at a time" in_ns rpc1 "$HOMA_TEST" client \
	fd00::2 41 50 0 4
check "IPv4 1000 concurrent RPCs" in_ns rpc1 "$HOMA_TEST" client \
	10.1.0.2 40 1000 100 1000
check "IPv6 1000 concurrent RPCs" in_ns rpc1 "$HOMA_TEST" client \
	fd00::2 41 1000 100 1000
# Four clients at once, 250 outstanding each, two per server family.
pids=()
for dest in "10.1.0.2 40" "10.1.0.2 42" "fd00::2 41" "fd00::2 43"; do
	read -r addr port <<< "$dest"
	in_ns rpc1 "$HOMA_TEST" client "$addr" "$port" 500 100 250 &
	pids+=($!)
done
for pid in "${pids[@]}"; do
	check "4 clients x 250 concurrent RPCs to 4 servers (pid $pid)" \
		wait "$pid"
done
check_eq "client RPCs all freed" "$(metric rpc1 rpcs_live)" 0
check "client packets all freed" settled rpc1 skbs_live 0
echo "# client rpc1: $(metric rpc1 resends_sent) resends," \
	"$(metric rpc1 rpc_timeouts) timeouts"
live_zero rpc1 rpc2
finish
