#!/usr/bin/env bash
# modprobe loads the homa.ko that DKMS built when homa-dkms was installed
# in a clean chroot (scripts/test_dkms.sh leaves it in .tools/dkms-root):
# by name, and through socket(), whose module request runs modprobe; the
# README's hello.c, built against the homa.h the package installed, makes
# its RPC with that module. The tree's own homa.ko is loaded again at the
# end for the tests that follow.
# Skipped when there is no such chroot (run scripts/test_dkms.sh first).
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

root="$TOP/.tools/dkms-root"
ko="/lib/modules/$(uname -r)/updates/dkms/homa.ko"
if [ ! -f "$root$ko" ]; then
	echo "# no DKMS build for $(uname -r) in $root (scripts/test_dkms.sh)"
	exit 4
fi

# Run by the EXIT trap.
# shellcheck disable=SC2317
reload() {
	if grep -q '^homa ' /proc/modules; then
		rmmod homa
	fi
	insmod "$TOP/homa.ko"
}
trap 'cleanup; reload' EXIT

check "rmmod the tree's homa" rmmod homa
# modprobe -d looks only in the chroot's module tree: what it loads is
# the DKMS build.
check_eq "modprobe resolves homa to the DKMS build" \
	"$(modprobe -d "$root" -n -v homa | awk '{ print $2 }')" "$root$ko"
check "modprobe homa (DKMS build)" modprobe -d "$root" homa
check "homa loaded" grep -q '^homa ' /proc/modules
ns_add dk1
check "a Homa socket binds" in_ns dk1 "$HOMA_TEST" bind
# The README's first RPC, which scripts/test_dkms.sh built against the
# homa.h the package installed.
check_eq "README hello.c: one RPC" \
	"$(in_ns dk1 "$root/tmp/hello" 2>&1 | tr '\n' ' ')" \
	'server got "hello" client got "world" '
check "rmmod" rmmod homa

# socket() asks the kernel's modprobe helper for the module's alias: a
# helper that runs modprobe in the chroot's module tree.
helper=$(mktemp /tmp/modprobe.XXXXXX)
cat > "$helper" <<HELPER
#!/bin/sh
exec /sbin/modprobe -d $root "\$@"
HELPER
chmod +x "$helper"
old=$(cat /proc/sys/kernel/modprobe)
echo "$helper" > /proc/sys/kernel/modprobe
check "socket() loads homa through modprobe" python3 -c \
	'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 146)'
echo "$old" > /proc/sys/kernel/modprobe
check "homa loaded by socket()" grep -q '^homa ' /proc/modules
finish
