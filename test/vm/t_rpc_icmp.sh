#!/usr/bin/env bash
# ICMP errors fail RPCs: a request to an address on the link where no host
# answers ARP makes the kernel return ICMP host unreachable, and the client
# RPC fails with EHOSTUNREACH (long before any timeout, which is raised
# out of the way here). A request to a port where no server socket is bound
# is answered with ICMP port unreachable: the client fails with ENOTCONN.
# A client that closes its socket as soon as its response is in leaves no
# ack behind: the server's NEED_ACK finds no socket, ICMP port unreachable
# answers it too, and the server frees its RPC (rpcs_acked_closed), not
# asking again and again until its timeout (raised out of the way). A
# client that closes its socket while sending a request: the port
# unreachables answering the server's GRANTs end the request. A socket
# shut down (its port still held) is answered as one closed. A forged
# port unreachable for a NEED_ACK to an unknown address adds no peer. A
# client whose answer is lost (or not sent: the kernel limits ICMP errors)
# learns at one of its RESENDs.
#
#   [icmp1] veth1 10.7.0.1 fd07::1 ---- veth2 10.7.0.2 fd07::2 [icmp2]
#   10.7.0.99: nobody
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair icmp1 icmp2 10.7.0 fd07
in_ns icmp1 sysctl -q -w net.homa.timeout_ticks=100000 \
	net.ipv4.neigh.veth1.mcast_solicit=1 \
	net.ipv4.neigh.veth1.retrans_time_ms=100
check "EHOSTUNREACH for a host that is not there" \
	in_ns icmp1 "$HOMA_TEST" expect_unreach 10.7.0.99 100
check "ICMP failure counted" test "$(metric icmp1 rpc_icmp_failures)" -ge 1
check_eq "client RPC freed" "$(metric icmp1 rpcs_live)" 0

check "ENOTCONN for a port with no socket (IPv4)" \
	in_ns icmp1 "$HOMA_TEST" expect_noport 10.7.0.2 300
check "ENOTCONN for a port with no socket (IPv6)" \
	in_ns icmp1 "$HOMA_TEST" expect_noport fd07::2 300
hold icmp2 301 noserver
check "ENOTCONN for a socket that is not a server" \
	in_ns icmp1 "$HOMA_TEST" expect_noport 10.7.0.2 301
release
# A server socket shut down keeps its port until closed but takes no more
# work: a request gets the same answer as for no socket (unanswered, it
# waited for its timeout; bounded here so that a missing answer fails).
hold icmp2 302 shutdown
check "ENOTCONN for a server socket shut down" \
	in_ns icmp1 timeout 20 "$HOMA_TEST" expect_noport 10.7.0.2 302
release
# Every DATA packet of a request to a port with no socket draws ICMP port
# unreachable, and the kernel limits the ICMP errors one host sends
# another (6 at once, then one a second): a request can go unanswered, as
# it can when the answer is lost. The client's RESENDs for its response
# get the same answer. Here every ICMP error of icmp2 is dropped until
# the request has come and been answered.
in_ns icmp2 tc qdisc add dev veth2 root handle 1: prio
in_ns icmp2 tc filter add dev veth2 parent 1: protocol ip prio 1 u32 \
	match ip protocol 1 0xff action drop
nosock=$(metric icmp2 drop_no_socket)
resends=$(metric icmp2 pkts_rx_resend)
in_ns icmp1 timeout 20 "$HOMA_TEST" expect_noport 10.7.0.2 303 &
lost_pid=$!
check "request to a port with no socket arrived" \
	rises icmp2 drop_no_socket "$nosock"
in_ns icmp2 tc qdisc del dev veth2 root
check "ENOTCONN once the answer to the request was lost" wait "$lost_pid"
check "the client asked for its response meanwhile" \
	test "$(metric icmp2 pkts_rx_resend)" -gt "$resends"
check "requests counted as dropped" \
	test "$(metric icmp2 drop_no_socket)" -ge 4
check "request to a non-server counted" \
	test "$(metric icmp2 drop_no_rpc)" -ge 1

# The NEED_ACK waits 500 ms: by then the client has exited (had its
# socket still been open, it would have answered with an ACK).
in_ns icmp2 sysctl -q -w net.homa.timeout_ticks=100000 \
	net.homa.request_ack_ticks=500
start_ready icmp2 '^serving' "IPv4 sink" "$HOMA_TEST" sink 310
start_ready icmp2 '^serving' "IPv6 sink" "$HOMA_TEST" sink 311 6
check "request answered (IPv4), socket closed at once" \
	in_ns icmp1 "$HOMA_TEST" send 10.7.0.2 310 100 0
check "request answered (IPv6), socket closed at once" \
	in_ns icmp1 "$HOMA_TEST" send fd07::2 311 100 0
check "both server RPCs freed by the port unreachables" \
	wait_metric icmp2 rpcs_acked_closed 2 20
check_eq "no client ack freed them" "$(metric icmp2 rpcs_acked)" 0
check_eq "no timeout freed them" "$(metric icmp2 rpc_timeouts)" 0
check_eq "no RPC left in the client" "$(metric icmp1 rpcs_live)" 0
check_eq "no RPC left in the server" "$(metric icmp2 rpcs_live)" 0

# A client that closes its socket while its request is still being sent
# leaves the request unfinished at the server, which grants to it and asks
# for the rest: ICMP port unreachable answers those GRANTs and RESENDs,
# and the server ends the request (rpcs_ended_closed). Without the answer
# it stayed until stall_ms (raised out of the way here, as the timeout is:
# on a busy client host, which is never silent, stall_ms was the limit),
# granted to and holding receive buffers that live messages needed.
# A link of 8 Mbit/s out of icmp1 (a 1 MB request takes a second on it):
# unshaped, the whole request got through before the client's exit closed
# its socket.
in_ns icmp2 sysctl -q -w net.homa.stall_ms=600000
in_ns icmp1 tc qdisc add dev veth1 root tbf rate 8mbit burst 4542 \
	latency 200ms
check "1 MB request sent and its socket closed at once (IPv4)" \
	in_ns icmp1 "$HOMA_TEST" abandon 10.7.0.2 310 1000000
check "1 MB request sent and its socket closed at once (IPv6)" \
	in_ns icmp1 "$HOMA_TEST" abandon fd07::2 311 1000000
check "both unfinished requests ended by the port unreachables" \
	wait_metric icmp2 rpcs_ended_closed 2 20
check_eq "no RPC left in the server after the abandoned requests" \
	"$(metric icmp2 rpcs_live)" 0
check_eq "no stall ended them" "$(metric icmp2 rpc_stall_timeouts)" 0
check_eq "no timeout ended them" "$(metric icmp2 rpc_timeouts)" 0
# The same for a socket shut down rather than closed: its port is still
# bound (the process holds it) while the GRANTs find it shut.
ended=$(metric icmp2 rpcs_ended_closed)
start_ready icmp1 '^sent' "1 MB request from a socket then shut down" \
	"$HOMA_TEST" abandon 10.7.0.2 310 1000000 shutdown
check "unfinished request of a socket shut down ended" \
	wait_metric icmp2 rpcs_ended_closed $((ended + 1)) 20
check "its socket still open then" kill -0 "$READY_PID"
kill "$READY_PID" 2>/dev/null || true
wait "$READY_PID" 2>/dev/null || true
check_eq "no RPC left in the server after the shut-down request" \
	"$(metric icmp2 rpcs_live)" 0
in_ns icmp1 tc qdisc del dev veth1 root

# Anyone can forge an ICMP error: one that quotes a NEED_ACK from the
# IPv4 sink's port to an address this host never talked to must not make
# the server add that address to its peer table.
peers=$(metric icmp2 peers_live)
errors=$(metric icmp2 icmp_errors)
check "forged port unreachable sent" in_ns icmp1 python3 -c '
import socket, struct
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff
src, dst = socket.inet_aton("10.7.0.2"), socket.inet_aton("10.7.0.77")
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 48, 1, 0, 64, 146, 0, src, dst)
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
# homa_common_hdr: sport, dport, sequence, 3 unused, type NEED_ACK, doff,
# flags, window, checksum, urgent, sender_id (a server id: odd).
homa = struct.pack("!HHI3sBBBHHHQ", 310, 40000, 0, bytes(3), 0x17,
                   0x70, 0, 0, 0, 0, 1001)
msg = struct.pack("!BBHI", 3, 3, 0, 0) + ip + homa
msg = msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.sendto(msg, ("10.7.0.2", 0))
'
check "forged error seen" wait_metric icmp2 icmp_errors $((errors + 1)) 10
check_eq "no peer made for the forged address" \
	"$(metric icmp2 peers_live)" "$peers"
finish
