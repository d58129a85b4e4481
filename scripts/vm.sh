#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0+
# The project's one VM launcher: boot a kernel under virtme-ng (software
# emulation, --disable-kvm; 2 CPUs, 2 GB) with the host's file system
# read-only and run a command in it. test/vm/run.sh, scripts/demo.sh,
# scripts/rtt_compare.sh and util/cp_vs_tcp boot through it.
#
# Usage: scripts/vm.sh [--rwdir DIR]... [--timeout S] [--log FILE]
#                      -- CMD [ARG...]
#        scripts/vm.sh --kernel        print the kernel image it would boot
#        scripts/vm.sh --splats [FILE] print the kernel-splat lines of FILE
#                                      (default: standard input)
#
#   --rwdir DIR   DIR is writable from inside the VM (repeatable)
#   --timeout S   stop the VM after S seconds (exit status 124)
#   --log FILE    the VM's console goes to FILE instead of standard output
#
# Environment:
#   KVER          the kernel version to boot (default: the one homa.ko was
#                 built for): /boot/vmlinuz-$KVER
#   VM_KERNEL     a kernel image to boot instead (e.g. a debug kernel)
#   VM_MEMORY     the VM's memory (default 2G)
#   VM_APPEND     extra kernel command-line options (words)
#   VM_CLOCK      the guest's clock: hpet (default; what the guest picks
#                 under emulation) or tsc (adds "clocksource=tsc
#                 tsc=reliable", the clock real hosts read;
#                 util/README-bench.md, "The VM's clock")
#   HOMA_VM_LOCK  the lock that keeps one VM at a time on this machine
#                 (default /tmp/homa-vm.lock); a second launcher waits
#
# Its own messages ("waiting for the VM lock", "booting ...") go to
# standard error. Exit status: the command's as vng reports it, 124 on
# timeout, 1 when the kernel image is missing, 2 for a bad VM_CLOCK.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# What counts as a kernel splat in a kernel log (extended regex), for
# every VM run: the tests and the benchmark.
SPLAT='BUG:|WARNING:|RIP:|Call Trace:|refcount_t:|soft lockup|kmemleak: [0-9]+ new'

# kernel_image: the image to boot, from VM_KERNEL or KVER.
kernel_image() {
	local kver
	if [ -n "${VM_KERNEL:-}" ]; then
		echo "$VM_KERNEL"
		return
	fi
	kver=${KVER:-$(modinfo -F vermagic "$TOP/homa.ko" | cut -d' ' -f1)}
	echo "/boot/vmlinuz-$kver"
}

case ${1:-} in
--kernel)
	kernel_image
	exit 0
	;;
--splats)
	grep -E "$SPLAT" "${2:--}" || true
	exit 0
	;;
esac

vng_args=()
timeout=0
log=
while [ $# -gt 0 ]; do
	case $1 in
	--rwdir) vng_args+=(--rwdir "$2"); shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "vm.sh: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "vm.sh: no command to run (vm.sh [options] -- CMD...)" >&2
	exit 2
fi

kernel=$(kernel_image)
if [ ! -f "$kernel" ]; then
	echo "vm: no kernel image $kernel (run scripts/setup.sh)" >&2
	exit 1
fi
export PATH="$TOP/.tools/venv/bin:$PATH"

case ${VM_CLOCK:-hpet} in
hpet) clock_opts= ;;
tsc) clock_opts="clocksource=tsc tsc=reliable" ;;
*) echo "vm: VM_CLOCK is hpet or tsc, not $VM_CLOCK" >&2; exit 2 ;;
esac

# One VM at a time on this machine (2 CPUs): wait for the others.
exec 9> "${HOMA_VM_LOCK:-/tmp/homa-vm.lock}"
if ! flock -n 9; then
	echo "vm: waiting for the VM lock" >&2
	flock 9
fi
echo "vm: booting $kernel under emulation (about 30 s)" >&2
for opt in $clock_opts ${VM_APPEND:-}; do
	vng_args+=(--append "$opt")
done
cmd=(vng --run "$kernel" --disable-kvm --memory "${VM_MEMORY:-2G}"
	--cpus 2 "${vng_args[@]}" -- "$@")
if [ "$timeout" != 0 ]; then
	cmd=(timeout "$timeout" "${cmd[@]}")
fi
if [ -n "$log" ]; then
	"${cmd[@]}" > "$log" 2>&1
else
	"${cmd[@]}" 2>&1
fi
