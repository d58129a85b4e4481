#!/usr/bin/env bash
# Install everything this project needs on a fresh Debian bookworm machine.
# Idempotent: a second run checks what is there and returns in seconds.
# Usage: scripts/setup.sh   (as root; prints what it installs)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tools="$top/.tools"
stamp="$tools/setup.stamp"
version=5	# bump when the list below changes

apt_pkgs=(
	linux-headers-amd64 linux-image-amd64 linux-source
	qemu-system-x86 iproute2 ethtool kmod busybox-static
	sparse shellcheck libgtest-dev cmake g++ make bc
	python3-venv python3-pip python3-matplotlib
	mandoc groff-base xz-utils codespell
	clang libclang-rt-14-dev
)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ] &&
   [ -x "$tools/venv/bin/vng" ] && [ -f "$tools/scripts/checkpatch.pl" ]; then
	missing=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
		"${apt_pkgs[@]}" 2>/dev/null | grep -vc '^ii ' || true)
	if [ "$missing" = "0" ]; then
		exit 0
	fi
fi

if [ "$(id -u)" != 0 ]; then
	echo "setup.sh: needs root to install packages" >&2
	exit 1
fi

echo "setup: installing Debian packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${apt_pkgs[@]}"

mkdir -p "$tools"
if [ ! -x "$tools/venv/bin/vng" ]; then
	echo "setup: installing virtme-ng into $tools/venv"
	python3 -m venv "$tools/venv"
	"$tools/venv/bin/pip" install -q virtme-ng
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

echo "$version" > "$stamp"
echo "setup: done"
