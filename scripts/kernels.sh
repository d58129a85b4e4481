#!/usr/bin/env bash
# The kernels homa.ko is built and tested for, and how to reach each one.
# Bookworm's own kernels (6.1, 6.12) have their headers in /usr/src; the
# newest Debian kernel (trixie-backports) needs trixie's compiler, so its
# headers live in a trixie chroot (scripts/setup.sh makes it) and it is
# built there. Each kernel builds in its own directory, build/<version>/.
# Usage: scripts/kernels.sh list          every kernel we can build for
#        scripts/kernels.sh default       the one `make` builds for
#        scripts/kernels.sh resolve VER   a full version from 6.12, newest...
#        scripts/kernels.sh make VER ARG... make ARG... for that kernel
#        scripts/kernels.sh install VER   build/VER/homa.ko to ./homa.ko
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CHROOT=${HOMA_CHROOT:-/var/lib/homa-kernels/trixie}

# headers ROOT: the versions whose amd64 headers are under ROOT/usr/src.
headers() {
	local d
	for d in "$1"/usr/src/linux-headers-*-amd64; do
		[ -f "$d/Makefile" ] && basename "$d" | sed 's/^linux-headers-//'
	done
	return 0
}

list() {
	{ headers ""; headers "$CHROOT"; } | sort -uV
}

# default: the running kernel if it has a build tree, else the one Debian's
# linux-headers-amd64 stands for, else the newest.
default() {
	local v

	if [ -d "/lib/modules/$(uname -r)/build" ]; then
		uname -r
		return
	fi
	v=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
	if [ -n "$v" ] && list | grep -qxF "$v"; then
		echo "$v"
		return
	fi
	list | tail -n 1
}

# resolve VER: VER itself if installed; "newest" or "default"; else the
# newest installed version that starts with VER followed by "." or "-".
resolve() {
	local v

	case $1 in
	default) default ;;
	newest) list | tail -n 1 ;;
	*)
		v=$(list | grep -xF "$1" ||
			list | grep -E "^$(printf '%s' "$1" |
				sed 's/[.+]/\\&/g')[.-]" | tail -n 1 || true)
		if [ -z "$v" ]; then
			echo "kernels.sh: no headers for kernel '$1';" \
				"installed: $(list | tr '\n' ' ')" >&2
			exit 1
		fi
		echo "$v"
		;;
	esac
}

# farm DIR: DIR holds a link to each source of the module (and nothing
# stale), so that every kernel keeps its own objects.
farm() {
	local f

	mkdir -p "$1"
	for f in "$1"/*; do
		[ -L "$f" ] && [ ! -e "$f" ] && rm -f "$f"
	done
	for f in "$TOP"/Kbuild "$TOP"/homa*.[ch]; do
		case $f in *.mod.c) continue ;; esac
		ln -sfn "../../$(basename "$f")" "$1/$(basename "$f")"
	done
}

# kmake VER ARG...: make ARG... for kernel VER in build/VER, on the host if
# its headers are there, else in the chroot (TOP mounted at the same path).
kmake() {
	local v=$1 dir="$TOP/build/$1" q

	shift
	farm "$dir"
	if [ -f "/usr/src/linux-headers-$v/Makefile" ]; then
		make -C "/usr/src/linux-headers-$v" M="$dir" "$@"
		return
	fi
	q=$(printf ' %q' "$@")
	mkdir -p "$CHROOT$TOP"
	unshare -m sh -c "mount --bind '$TOP' '$CHROOT$TOP' &&
		mount -t proc proc '$CHROOT/proc' &&
		chroot '$CHROOT' make -C '/usr/src/linux-headers-$v' M='$dir' $q"
}

case ${1:-} in
list) list ;;
default) default ;;
resolve) resolve "$2" ;;
make) v=$(resolve "$2"); shift 2; kmake "$v" "$@" ;;
install) v=$(resolve "$2"); cp "$TOP/build/$v/homa.ko" "$TOP/homa.ko" ;;
*) sed -n '7,11p' "$0" >&2; exit 2 ;;
esac
