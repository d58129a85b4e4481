#!/usr/bin/env bash
# Peers are freed when idle: after an RPC between two hosts, each host has
# one peer; with peer_idle_secs at 1, both are freed within a few seconds
# of the last packet, and a new RPC makes them again.
#
#   [gc1] veth1 10.9.0.1 fd09::1 ---- veth2 10.9.0.2 fd09::2 [gc2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair gc1 gc2 10.9.0 fd09
homa_set peer_idle_secs=1 gc1 gc2
serve gc2 4 40
serve gc2 6 41
check "IPv4 echo" in_ns gc1 "$HOMA_TEST" client 10.9.0.2 40 5 1000 1
check "IPv6 echo" in_ns gc1 "$HOMA_TEST" client fd09::2 41 5 1000 1
check_eq "client has two peers (IPv4, IPv6)" "$(metric gc1 peers_live)" 2
check_eq "server has two peers" "$(metric gc2 peers_live)" 2
check "client's idle peers freed" settled gc1 peers_live 0
check "server's idle peers freed" settled gc2 peers_live 0
check "frees counted" test "$(metric gc1 peers_freed)" -ge 2
check "echo after the peer was freed" in_ns gc1 "$HOMA_TEST" client \
	10.9.0.2 40 5 1000 1
check_eq "peer made again" "$(metric gc1 peers_live)" 1
live_zero gc1 gc2
finish
