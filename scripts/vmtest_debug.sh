#!/usr/bin/env bash
# The debug-kernel lane (make vmtest-debug): build Debian's linux-source-6.1
# with KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, KMEMLEAK and KFENCE
# (test/vm/debug.config), once, cached outside the tree; build homa.ko
# against it in a copy of the sources (the tree's own homa.ko is left
# alone); run the whole VM suite on it. Any kernel report fails the run.
# Usage: scripts/vmtest_debug.sh [--build-only | TEST...]   (as root)
#   --build-only      build (or reuse) the kernel and homa.ko, boot nothing
#                     (to build the kernel ahead, e.g. at idle priority)
#   HOMA_DEBUG_CACHE  where kernels are kept (/var/cache/homa-debug-kernel)
#   HOMA_DEBUG_JOBS   make -j for the kernel (2: the machine is shared)
#   HOMA_DEBUG_VM_TIMEOUT  seconds the VM may run (7200: the whole suite
#                     took over an hour on this kernel on 2026-11-26)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
frag="$top/test/vm/debug.config"
cache=${HOMA_DEBUG_CACHE:-/var/cache/homa-debug-kernel}
jobs=${HOMA_DEBUG_JOBS:-2}
vm_timeout=${HOMA_DEBUG_VM_TIMEOUT:-7200}
copy="$top/test/vm/build/debug/tree"
rev=1	# bump when the way the kernel is configured below changes

log() { echo "vmtest-debug: $*"; }

# Kernel build dependencies (scripts/setup.sh has the rest).
pkgs=(linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev
	cpio xz-utils rsync)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
"$top/scripts/setup.sh"
export PATH="$top/.tools/venv/bin:$PATH"

# The cache key: everything the kernel's configuration and build depend on.
key=$({
	echo "rev $rev"
	dpkg-query -W -f='${Package} ${Version}\n' linux-source-6.1
	gcc --version | head -n 1
	vng --version
	grep -E '^(# )?CONFIG_' "$frag"
} | sha256sum | cut -c1-16)
kdir="$cache/$key"
image="$kdir/arch/x86/boot/bzImage"

# build_kernel: extract, configure (x86_64_defconfig + virtme-ng's options
# + debug.config, which wins), check every requested option, build.
build_kernel() {
	local tarball line start
	# Only the current kernel is kept (each is several GB).
	find "$cache" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	mkdir -p "$kdir"
	tarball=/usr/src/linux-source-6.1.tar.xz
	log "extracting $tarball into $kdir"
	tar -xJf "$tarball" -C "$kdir" --strip-components=1
	cd "$kdir"
	# What "vng --kconfig --config debug.config" runs, without the
	# user's ~/.config/virtme-ng/kernel.config.
	virtme-configkernel --defconfig --custom "$frag" > config.log 2>&1
	cat "$frag" >> .config
	make olddefconfig >> config.log 2>&1
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" .config ;;
		"# CONFIG_"*" is not set")
			! grep -q "^${line:2:-11}=" .config ;;
		*) continue ;;
		esac || { log "config: '$line' did not hold"; return 1; }
	done < "$frag"
	log "building the kernel (make -j$jobs; 1130 s with 2 jobs on 2026-11-29)"
	start=$(date +%s)
	if ! make -j"$jobs" > build.log 2>&1; then
		tail -n 30 build.log
		log "kernel build failed; see $kdir/build.log"
		return 1
	fi
	echo "$(($(date +%s) - start))" > .homa-build-secs
	touch .homa-built
	log "kernel built in $(cat .homa-build-secs) s"
}

# The lock is held until the end: no other run replaces the kernel in use.
mkdir -p "$cache"
exec 8> "$cache/.lock"
flock 8
if [ -f "$kdir/.homa-built" ]; then
	log "reusing the kernel in $kdir (built in" \
		"$(cat "$kdir/.homa-build-secs") s)"
else
	(build_kernel)
fi

# homa.ko against that kernel, built in a copy of the sources so that the
# tree's own homa.ko (for Debian's kernel) stays as it is.
log "building homa.ko against $kdir in $copy"
mkdir -p "$copy"
rsync -a --delete --exclude=/.git --exclude=/.tools --exclude=/results \
	--exclude=/test/vm/build --exclude=/test/unit/build \
	--exclude='/*.o' --exclude='/*.ko' --exclude='/*.mod' --exclude='/*.mod.c' \
	--exclude='/.*.cmd' --exclude=/Module.symvers --exclude=/modules.order \
	"$top/" "$copy/"
ln -sfn "$top/.tools" "$copy/.tools"
start=$(date +%s)
make --no-print-directory -s -C "$kdir" M="$copy" -j"$jobs" modules
log "homa.ko built in $(($(date +%s) - start)) s"
if [ "${1:-}" = --build-only ]; then
	log "kernel image: $image"
	exit 0
fi

# The suite, on the debug kernel. run.sh fails on any "not ok" and on any
# report in the kernel log; inside.sh scans for leaks after each test.
start=$(date +%s)
rc=0
VM_KERNEL="$image" VM_TIMEOUT=$vm_timeout "$copy/test/vm/run.sh" "$@" || rc=$?
log "suite took $(($(date +%s) - start)) s (log: $copy/test/vm/build/vm.log)"
exit "$rc"
