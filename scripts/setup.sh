#!/usr/bin/env bash
# Install everything this project needs on a fresh Debian bookworm machine.
# Idempotent: a second run checks what is there and returns in seconds.
# Usage: scripts/setup.sh   (as root; prints what it installs)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tools="$top/.tools"
stamp="$tools/setup.stamp"
version=8	# bump when the chroot or the tools change (apt_pkgs: below)
# The newest Debian kernel (trixie-backports) wants trixie's gcc-14: it and
# its headers live in this trixie chroot; scripts/kernels.sh builds there.
chroot_dir=/var/lib/homa-kernels/trixie
chroot_pkgs=(linux-image-amd64 linux-headers-amd64 make binutils dwarves
	sparse initramfs-tools)

apt_pkgs=(
	linux-headers-amd64 linux-image-amd64 linux-source
	linux-headers-6.12-amd64 linux-image-6.12-amd64 dwarves
	qemu-system-x86 iproute2 ethtool kmod busybox-static
	sparse shellcheck libgtest-dev cmake g++ make bc
	python3-venv python3-pip python3-matplotlib python3-numpy
	mandoc groff-base xz-utils codespell universal-ctags
	tshark tcpdump debootstrap clang libclang-rt-14-dev
	linux-perf
)

# link_kernels: the chroot's kernels boot in the VM like the host's: their
# image in /boot and their modules in /lib/modules (without build/ and
# source/, so that nothing on the host tries to build against them).
link_kernels() {
	local img v f

	for img in "$chroot_dir"/boot/vmlinuz-*; do
		[ -f "$img" ] || continue
		v=${img##*/vmlinuz-}
		ln -sfn "$img" "/boot/vmlinuz-$v"
		mkdir -p "/lib/modules/$v"
		for f in "$chroot_dir/usr/lib/modules/$v"/*; do
			case ${f##*/} in build | source) continue ;; esac
			ln -sfn "$f" "/lib/modules/$v/${f##*/}"
		done
	done
}

# kernels_ready: the chroot has a kernel and it is linked.
kernels_ready() {
	local img

	for img in "$chroot_dir"/boot/vmlinuz-*; do
		[ -e "/boot/${img##*/}" ] && return 0
	done
	return 1
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ] &&
   [ -x "$tools/venv/bin/vng" ] && [ -f "$tools/scripts/checkpatch.pl" ] &&
   kernels_ready; then
	# Every package of apt_pkgs installed: a package added to the list
	# (never installed here, so dpkg-query prints no line for it) makes
	# the count short and the full setup run again.
	installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
		"${apt_pkgs[@]}" 2>/dev/null | grep -c '^ii ' || true)
	if [ "$installed" -ge "${#apt_pkgs[@]}" ]; then
		exit 0
	fi
fi

if [ "$(id -u)" != 0 ]; then
	echo "setup.sh: needs root to install packages" >&2
	exit 1
fi

echo "setup: installing Debian packages"
export DEBIAN_FRONTEND=noninteractive
# tshark's package asks whether non-root users may capture: no.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	debconf-set-selections
apt-get update -q
apt-get install -y -q --no-install-recommends "${apt_pkgs[@]}"

mkdir -p "$tools"
# One virtme-ng for every run: a new release changes how the VMs boot (and
# the debug lane's kernel, whose cache key includes its version).
vng_version=1.42
if [ "$("$tools/venv/bin/vng" --version 2>/dev/null)" != \
	"virtme-ng $vng_version" ]; then
	echo "setup: installing virtme-ng $vng_version into $tools/venv"
	[ -x "$tools/venv/bin/pip" ] || python3 -m venv "$tools/venv"
	"$tools/venv/bin/pip" install -q "virtme-ng==$vng_version"
fi

if [ ! -f "$tools/scripts/checkpatch.pl" ]; then
	echo "setup: extracting checkpatch.pl and kernel-doc from linux-source"
	tarball=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' |
		sort -V | tail -n 1)
	dir=$(basename "$tarball" .tar.xz)
	tar -xJf "$tarball" -C "$tools" --strip-components=1 \
		"$dir/scripts/checkpatch.pl" "$dir/scripts/spelling.txt" \
		"$dir/scripts/const_structs.checkpatch" "$dir/scripts/kernel-doc"
fi

# The host's own Debian mirror, from its apt sources (deb822 or one-line).
mirror=$({
	grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources || true
	grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
		true
} | awk '{ print $2 }' | grep -v security | head -n 1) || true
if [ ! -x "$chroot_dir/usr/bin/apt-get" ]; then
	echo "setup: making a trixie chroot in $chroot_dir (about 2 min)"
	mkdir -p "$chroot_dir"
	debootstrap --variant=minbase trixie "$chroot_dir" \
		"$mirror" > "$tools/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$tools/debootstrap.log"; exit 1; }
fi
printf '%s\n' "Types: deb" "URIs: $mirror" \
	"Suites: trixie-backports" "Components: main" \
	"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" \
	> "$chroot_dir/etc/apt/sources.list.d/backports.sources"
echo "setup: installing the newest Debian kernel into $chroot_dir"
unshare -m sh -c "mount -t proc proc '$chroot_dir/proc' &&
	chroot '$chroot_dir' apt-get update -q &&
	chroot '$chroot_dir' apt-get install -y -q --no-install-recommends \
		-t trixie-backports ${chroot_pkgs[*]}" > "$tools/chroot.log" 2>&1 ||
	{ tail -n 20 "$tools/chroot.log"; exit 1; }
link_kernels

echo "$version" > "$stamp"
echo "setup: done"
