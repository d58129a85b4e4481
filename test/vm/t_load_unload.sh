#!/usr/bin/env bash
# homa.ko loads and unloads 20 times in a row; its metrics file comes and
# goes with it; the module carries the aliases that let socket() load it,
# and socket() does load it on demand.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

for i in $(seq 20); do
	check "rmmod #$i" rmmod homa
	check "metrics file gone after rmmod #$i" test ! -e /proc/net/homa_metrics
	check "insmod #$i" insmod "$TOP/homa.ko"
	check "metrics file back after insmod #$i" test -e /proc/net/homa_metrics
done

aliases=$(modinfo -F alias "$TOP/homa.ko" | sort | tr '\n' ' ')
check_eq "module aliases" "$aliases" \
	"net-pf-10-proto-146-type-2 net-pf-2-proto-146-type-2 "

# Autoload: socket() asks the kernel's modprobe helper for the alias; point
# the helper at a script that loads our freshly built module.
helper=$(mktemp /tmp/modprobe.XXXXXX)
cat > "$helper" <<HELPER
#!/bin/sh
echo "\$*" >> $helper.log
case "\$*" in *net-pf-*-proto-146-type-2*) exec insmod $TOP/homa.ko ;; esac
exit 1
HELPER
chmod +x "$helper"
old=$(cat /proc/sys/kernel/modprobe)
rmmod homa
echo "$helper" > /proc/sys/kernel/modprobe
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 146)' ||
	{ echo "# FAIL: socket() did not autoload homa"; FAILED=1; }
echo "$old" > /proc/sys/kernel/modprobe
check "homa loaded by socket()" grep -q '^homa ' /proc/modules
check "helper asked for the IPv4 alias" \
	grep -q 'net-pf-2-proto-146-type-2' "$helper.log"
grep -q '^homa ' /proc/modules || insmod "$TOP/homa.ko"
finish
