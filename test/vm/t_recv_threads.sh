#!/usr/bin/env bash
# Several threads waiting in recvmsg for any request on one server socket
# (homa_test tserver, 8 threads): every request is answered exactly once,
# one at a time, 16 at a time with random sizes and 64 at a time with
# small ones (a wakeup lost would leave a request unanswered and the
# client waiting). And a request wakes one waiting thread, not all of
# them, and nothing else wakes one: 40 requests sent one at a time to the
# idle server make its threads sleep again at most 60 times in all (one
# thread takes each request and sleeps again once it has answered: 40
# measured). Waking every waiter for every event cost 433; waking one
# also when the previous RPC ended (the client's ack arrives with the next
# request) and when each sent packet was freed (transmit space) cost 120.
#
#   [th1] veth1 10.7.0.1 fd07::1 ---- veth2 10.7.0.2 fd07::2 [th2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair th1 th2 10.7.0 fd07

start_ready th2 '^serving' "threaded server" "$HOMA_TEST" tserver 4 50 8
server=$READY_PID
server_out=$READY_OUT
start_ready th2 '^serving' "threaded IPv6 server" "$HOMA_TEST" tserver 6 51 8

# The times the server's threads went to sleep (voluntary context
# switches, summed over its threads).
sleeps() {
	cat /proc/"$server"/task/*/status |
		awk '/^voluntary_ctxt_switches/ { s += $2 } END { print s }'
}

check "8 threads, one request at a time" in_ns th1 "$HOMA_TEST" client \
	10.7.0.2 50 200 100 1
check "8 threads, 16 at a time, random sizes" in_ns th1 "$HOMA_TEST" \
	client 10.7.0.2 50 100 0 16
check "8 threads, 64 at a time" in_ns th1 "$HOMA_TEST" client \
	10.7.0.2 50 2000 100 64
check "8 threads over IPv6, 16 at a time" in_ns th1 "$HOMA_TEST" client \
	fd07::2 51 1000 1000 16
sleep 0.5
before=$(sleeps)
check "40 requests to the idle server" in_ns th1 "$HOMA_TEST" client \
	10.7.0.2 50 40 100 1
sleep 0.5
after=$(sleeps)
echo "# 8 waiting threads went to sleep $((after - before)) times for 40 requests"
if [ $((after - before)) -gt 60 ]; then
	echo "# FAIL: more than 1.5 sleeps per request: waiters woken for nothing"
	FAILED=1
fi
if grep -q "duplicate request" "$server_out"; then
	echo "# FAIL: a request executed twice: $(grep -m1 duplicate "$server_out")"
	FAILED=1
fi
check_eq "client RPCs all freed" "$(metric th1 rpcs_live)" 0
live_zero th1 th2
finish
