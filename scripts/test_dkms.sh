#!/usr/bin/env bash
# The Debian package homa-dkms in a clean Debian bookworm chroot: make deb;
# unpack a fresh minimal system that has dkms and the headers of the VM's
# kernel (made once with debootstrap from the host's apt mirror and kept
# in /var/cache/homa as a tar file);
# install the package there and check that DKMS built and installed
# homa.ko for that kernel, where modprobe finds it, and installed homa.h
# and the manual pages, and build the README's hello.c against that
# homa.h. Then play a kernel installed later: drop the
# kernel's build (dkms unbuild) and run the hook a kernel package runs
# (/etc/kernel/postinst.d/dkms), which must build it again. The chroot
# stays in .tools/dkms-root for the VM test t_dkms.sh, which loads the
# module from it with modprobe (make clean deletes that module: Kbuild's
# clean removes every *.ko below the tree).
# Usage: scripts/test_dkms.sh   (make test; KVER= names the kernel,
# default the one homa.ko was built for). Prints "dkms: N passed, N failed".
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# The host's own Debian mirrors, from its apt sources (deb822 or one-line).
host_uris() {
	{
		grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources || true
		grep -hs '^deb ' /etc/apt/sources.list \
			/etc/apt/sources.list.d/*.list || true
	} | awk '{ print $2 }' | sort -u
}
MIRROR=$(host_uris | grep -v security | head -n 1)
SECURITY=$(host_uris | grep security | head -n 1)
kver=${KVER:-$(modinfo -F vermagic "$TOP/homa.ko" 2>/dev/null | cut -d' ' -f1)}
# The base system is kept outside the tree, so a fresh clone on the same
# machine (CI) does not make it again.
cache=${HOMA_CACHE:-/var/cache/homa}
mkdir -p "$cache"
base="$cache/dkms-base-$kver.tar"
root="$TOP/.tools/dkms-root"
log=$(mktemp)
passed=0
failed=0
mounted=()

cleanup() {
	local m
	for m in "${mounted[@]}"; do
		umount -l "$m" 2>/dev/null || true
	done
	rm -f "$log"
}
trap cleanup EXIT

# check DESCRIPTION CMD...: run a command, count it, show its output if
# it failed.
check() {
	local what=$1
	shift
	if "$@" > "$log" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "dkms: FAIL $what"
		sed 's/^/    /' "$log" | tail -n 30
	fi
}

in_root() {
	chroot "$root" "$@"
}

# mount_proc DIR: /proc in a chroot, for dpkg and DKMS.
mount_proc() {
	mount -t proc proc "$1/proc"
	mounted+=("$1/proc")
}

# make_base: a minimal bookworm with dkms and linux-headers-$kver, as a
# tar file (first run only: a few minutes and about 100 MB of downloads).
make_base() {
	local tmp="$TOP/.tools/dkms-base.tmp"

	echo "dkms: making the base chroot for $kver with debootstrap"
	rm -rf "$tmp"
	debootstrap --variant=minbase bookworm "$tmp" "$MIRROR" > "$log" 2>&1 ||
		return 1
	cat > "$tmp/etc/apt/sources.list" <<-SOURCES
	deb $MIRROR bookworm main
	deb $MIRROR bookworm-updates main
	deb $SECURITY bookworm-security main
	SOURCES
	mount_proc "$tmp"
	chroot "$tmp" apt-get update -q >> "$log" 2>&1 &&
		DEBIAN_FRONTEND=noninteractive chroot "$tmp" apt-get install \
			-y -q --no-install-recommends dkms kmod \
			"linux-headers-$kver" >> "$log" 2>&1 &&
		chroot "$tmp" apt-get clean >> "$log" 2>&1
	local rc=$?
	umount "$tmp/proc"
	[ "$rc" -eq 0 ] || return 1
	tar -C "$tmp" -cf "$base.part" . && mv "$base.part" "$base" &&
		rm -rf "$tmp"
}

start=$(date +%s)
if [ -z "$kver" ]; then
	echo "dkms: no homa.ko to take the kernel version from (run make)"
	echo "dkms: 0 passed, 1 failed"
	exit 1
fi
if [ ! -f "$base" ] && ! make_base; then
	sed 's/^/    /' "$log" | tail -n 30
	echo "dkms: could not make the base chroot"
	echo "dkms: 0 passed, 1 failed"
	exit 1
fi
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$base"
mount_proc "$root"
deb=$("$TOP/scripts/make_deb.sh" "$root/tmp" | tail -n 1)
name=$(basename "$deb")
version=$(dpkg-deb -f "$deb" Version)
ko="/lib/modules/$kver/updates/dkms/homa.ko"
echo "dkms: $name into a bookworm chroot with the headers of $kver"

# installed: the state after dpkg -i.
installed() {
	check "dkms status: installed for $kver" \
		sh -c "chroot '$root' dkms status -m homa -v '$version' -k '$kver' | grep -q ': installed'"
	check "homa.ko in /lib/modules/$kver/updates/dkms" test -f "$root$ko"
	check "homa.ko is built for $kver" sh -c \
		"chroot '$root' modinfo -F vermagic '$ko' | grep -q '^$kver '"
	check "modprobe finds homa for $kver" sh -c \
		"chroot '$root' modprobe -n -v -S '$kver' homa | grep -q 'insmod $ko'"
}

t0=$(date +%s)
check "dpkg -i $name" in_root dpkg -i "/tmp/$name"
echo "dkms: install with the build took $(($(date +%s) - t0)) s"
installed
check "/usr/include/homa.h is the tree's" cmp "$root/usr/include/homa.h" \
	"$TOP/homa.h"
check "homa(7) installed" test -f "$root/usr/share/man/man7/homa.7.gz"
check "sendmsg_homa(2) installed" \
	test -f "$root/usr/share/man/man2/sendmsg_homa.2.gz"
# The README's first RPC, built against the installed header; t_dkms.sh
# runs it in the VM.
awk '/^<!-- hello.c:/ { on = 1; next } on && /^```c/ { copy = 1; next }
	copy && /^```/ { exit } copy' "$TOP/README.md" > "$root/tmp/hello.c"
check "README hello.c builds against the installed homa.h" gcc -Wall \
	-I"$root/usr/include" -o "$root/tmp/hello" "$root/tmp/hello.c"
check "sources in /usr/src/homa-$version" \
	test -f "$root/usr/src/homa-$version/dkms.conf"

# A kernel installed later: its package's hook rebuilds the module.
check "drop the build for $kver" in_root dkms unbuild -m homa -v "$version" \
	-k "$kver"
check "module gone for $kver" test ! -e "$root$ko"
t0=$(date +%s)
check "kernel hook /etc/kernel/postinst.d/dkms $kver" \
	in_root /etc/kernel/postinst.d/dkms "$kver"
echo "dkms: the kernel hook's build took $(($(date +%s) - t0)) s"
installed
echo "dkms: took $(($(date +%s) - start)) s"
echo "dkms: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
