#!/usr/bin/env bash
# Malformed packets from the network are dropped and counted by reason,
# over IPv4 and IPv6, without any kernel complaint (run.sh checks the log).
# A packet sent to the link's broadcast address draws no answer: a RESEND
# for an unknown RPC would otherwise bring an RPC_UNKNOWN from every host.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add bad1
check "inject IPv4" in_ns bad1 "$HOMA_TEST" inject4
check "inject IPv6" in_ns bad1 "$HOMA_TEST" inject6
check_eq "drop_short" "$(metric bad1 drop_short)" 56
check_eq "drop_malformed" "$(metric bad1 drop_malformed)" 20
check_eq "drop_unknown_type" "$(metric bad1 drop_unknown_type)" 10
check_eq "drop_no_socket" "$(metric bad1 drop_no_socket)" 14
check_eq "GRANTs counted" "$(metric bad1 pkts_rx_grant)" 14

link_pair bc1 bc2 10.9.0
hold bc2 90
check "broadcast RESEND sent" in_ns bc1 "$HOMA_TEST" bcast 10.9.0.255 90
sleep 0.2
check_eq "broadcast dropped" "$(metric bc2 drop_not_host)" 1
check_eq "no RPC_UNKNOWN to a broadcast" \
	"$(metric bc2 pkts_tx_rpc_unknown)" 0
release
finish
