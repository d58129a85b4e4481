#!/usr/bin/env bash
# Busy polling (poll_usecs): a blocking recvmsg spins up to poll_usecs for
# a ready RPC before it sleeps. Echo RPCs must arrive byte for byte with
# the spin off and on (one at a time, several at once, 1 MB, a server
# whose threads share one socket); poll_hits must rise only while the
# spin is on; a signal must end a recvmsg that spins, with EINTR, and
# that spin counts as a miss.
#
#   [pl1] veth1 10.27.0.1 fd27::1 ---- veth2 10.27.0.2 fd27::2 [pl2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair pl1 pl2 10.27.0 fd27
serve pl2 4 60
start_ready pl2 '^serving' "threaded server" "$HOMA_TEST" tserver 6 61 4

# hits / misses: poll_hits or poll_misses of both hosts together.
hits() {
	echo $(($(metric pl1 poll_hits) + $(metric pl2 poll_hits)))
}
misses() {
	echo $(($(metric pl1 poll_misses) + $(metric pl2 poll_misses)))
}

# echoes WHAT: the echo RPCs every setting must carry.
echoes() {
	check "$1: 200 echoes of 100 B, one at a time" in_ns pl1 \
		"$HOMA_TEST" client 10.27.0.2 60 200 100 1
	check "$1: 40 echoes of random sizes, 8 at once" in_ns pl1 \
		"$HOMA_TEST" client 10.27.0.2 60 40 0 8
	check "$1: 2 echoes of 1 MB" in_ns pl1 "$HOMA_TEST" client \
		10.27.0.2 60 2 1000000 1
	check "$1: IPv6, 4 server threads, 40 echoes, 8 at once" in_ns pl1 \
		"$HOMA_TEST" client fd27::2 61 40 1000 8
}

homa_set poll_usecs=0 pl1 pl2
before=$(hits)
echoes "poll_usecs 0"
check_eq "poll_usecs 0: no spin found an RPC" $(($(hits) - before)) 0

# 20 ms: far longer than a round trip here, even on the debug kernel.
homa_set poll_usecs=20000 pl1 pl2
before=$(hits)
echoes "poll_usecs 20000"
got=$(($(hits) - before))
timed check "poll_usecs 20000: spins found RPCs ($got)" test "$got" -gt 0

# A spin of 1 s, and a signal after 0.2 s.
homa_set poll_usecs=1000000 pl1
before=$(misses)
check "poll_usecs 1000000: a signal ends recvmsg with EINTR" in_ns pl1 \
	"$HOMA_TEST" recv_intr 200
got=$(($(misses) - before))
check "poll_usecs 1000000: the interrupted spin is a miss ($got)" \
	test "$got" -ge 1

homa_set poll_usecs=0 pl1 pl2
live_zero pl1 pl2
finish
