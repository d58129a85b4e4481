#!/usr/bin/env bash
# Every packet and every reply reaches the right RPC.
# Replies: two clients in two namespaces each send their first request
# (both get id 2; in the second round both 4) to one server, which answers them in arrival order and
# then in the other order; each client must get its own bytes back. A reply
# that names the id with a wrong port or address fails with EINVAL.
# Forged packets: a client RPC waits for a server that never answers; a
# third host sends it a response, a GRANT, a RESEND, a BUSY, an RPC_UNKNOWN
# and a NEED_ACK claiming the server's port, and the server's own host
# sends the same from another port. The client drops all twelve
# (drop_wrong_source), retransmits nothing and its RPC stays pending.
#
#   [rm_s] 10.7.3.1   [rm_a] 10.7.3.2   [rm_b] 10.7.3.3   [rm_x] 10.7.3.4
#   all on one bridge in [rm_sw]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add rm_sw
ip -n rm_sw link add br0 type bridge
ip -n rm_sw link set br0 up
i=1
for h in rm_s rm_a rm_b rm_x; do
	ns_add "$h"
	ip link add eth0 netns "$h" type veth peer name "p$i" netns rm_sw
	ip -n rm_sw link set "p$i" master br0 up
	ip -n "$h" addr add "10.7.3.$i/24" dev eth0
	ip -n "$h" link set eth0 up
	i=$((i + 1))
done

for order in fwd rev; do
	out=$(mktemp /tmp/swap.XXXXXX)
	in_ns rm_s "$HOMA_TEST" swap_server 500 "$order" > "$out" 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		grep -q '^serving' "$out" && break
		sleep 0.1
	done
	in_ns rm_a "$HOMA_TEST" tagged 10.7.3.1 500 A > "$out.a" 2>&1 &
	a=$!
	sleep 0.3
	in_ns rm_b "$HOMA_TEST" tagged 10.7.3.1 500 B > "$out.b" 2>&1 &
	b=$!
	check "$order: client A got its own response" wait "$a"
	check "$order: client B got its own response" wait "$b"
	check "$order: server's checks" wait "$srv"
	sed 's/^# FAIL/# FAIL '"$order"'/' "$out" "$out.a" "$out.b" |
		grep '^# ' || true
	# Without colliding ids the test could not see a swap: each
	# namespace numbers its RPCs from 2, so both rounds collide.
	ida=$(sed -n 's/^id //p' "$out.a")
	idb=$(sed -n 's/^id //p' "$out.b")
	check_eq "$order: both clients used one id" "$ida" "$idb"
	check_eq "$order: the server saw that id twice" \
		"$(sed -n 's/^ids //p' "$out")" "$ida $idb"
done

hold rm_s 501
start_ready rm_a '^sent' "pending client" \
	"$HOMA_TEST" pending 10.7.3.1 501 60000
pend=$READY_OUT
p=$READY_PID
read -r _ cport cid < <(grep '^sent' "$pend")
resent=$(metric rm_a data_resent)
in_ns rm_x "$HOMA_TEST" forge 10.7.3.2 "$cport" 501 "$cid"
in_ns rm_s "$HOMA_TEST" forge 10.7.3.2 "$cport" 502 "$cid"
sleep 0.5
# (It may have ended already: wait then reports how.)
kill -USR1 "$p" 2>/dev/null || true
check "the client RPC is still pending" wait "$p"
grep '^# ' "$pend" || true
check_eq "forged packets dropped" "$(metric rm_a drop_wrong_source)" 12
check_eq "nothing retransmitted for them" "$(metric rm_a data_resent)" \
	"$resent"
release
live_zero rm_s rm_a rm_b rm_x
finish
