#!/usr/bin/env bash
# Transmit memory: with net.homa.wmem_max at its minimum (10000 bytes) and
# a server that never answers, sendmsg(MSG_DONTWAIT) fails with EAGAIN
# once the socket's unacknowledged requests fill it, POLLOUT clears, and
# both come back when the requests are aborted.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add wm1
in_ns wm1 sysctl -q -w net.homa.wmem_max=10000
in_ns wm1 python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 146)
s.bind(("0.0.0.0", 90))
time.sleep(30)' &
sleep 1
check "wmem" in_ns wm1 "$HOMA_TEST" wmem 127.0.0.1 90
live_zero wm1
finish
