#!/usr/bin/env bash
# bind(): server ports below 0x8000 only, EADDRINUSE within a namespace,
# while the same port stays free in another namespace. As for TCP and UDP,
# a port below 1024 needs CAP_NET_BIND_SERVICE (EACCES without it).
#
#   [bind1] port 500 held      [bind2] port 500 free
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add bind1
ns_add bind2
check "bind rules" in_ns bind1 "$HOMA_TEST" bind

hold bind1 500
check "port 500 free in another namespace" \
	in_ns bind2 "$HOMA_TEST" try_bind 500
if in_ns bind1 "$HOMA_TEST" try_bind 500 > /dev/null; then
	echo "# FAIL: port 500 bound twice in one namespace"
	FAILED=1
fi
release
check "port 500 free again after close" in_ns bind1 "$HOMA_TEST" try_bind 500
check_eq "bind errors counted" "$(metric bind1 bind_errors)" 16

nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
check "port 80 refused without CAP_NET_BIND_SERVICE (EACCES)" \
	in_ns bind2 "${nobody[@]}" "$HOMA_TEST" try_bind 80 13
check "port 2000 needs no privilege" \
	in_ns bind2 "${nobody[@]}" "$HOMA_TEST" try_bind 2000
check "port 80 for root" in_ns bind2 "$HOMA_TEST" try_bind 80
finish
