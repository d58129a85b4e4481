#!/usr/bin/env bash
# Runs inside the VM: loads homa.ko, runs every test/vm/t_*.sh (or those
# named as arguments) and prints KTAP, then the kernel log after a marker
# that run.sh scans for splats.
# Usage: inside.sh [TEST...]
set -uo pipefail

VM_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$VM_DIR/../.." && pwd)

mkdir -p /run/netns
dmesg -n 1 2>/dev/null || true
if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(cd "$VM_DIR" && ls t_*.sh)
fi

# Debug kernels with kmemleak (make vmtest-debug): leaks_found scans and
# prints the leaks found since the previous scan; those from before the
# tests (boot) are forgotten. A leak fails the test it follows.
kmemleak=/sys/kernel/debug/kmemleak
if [ -d /sys/kernel/debug ] && [ ! -e "$kmemleak" ]; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
fi
leaks_found() {
	local report
	[ -w "$kmemleak" ] || return 1
	echo scan > "$kmemleak"
	report=$(cat "$kmemleak")
	echo clear > "$kmemleak"
	[ -n "$report" ] || return 1
	printf '%s\n' "$report" | sed 's/^/# kmemleak: /'
}
leaks_found > /dev/null || true

echo "KTAP version 1"
echo "1..${#tests[@]}"
# The guest's clock, which times every figure below (scripts/vm.sh's
# VM_CLOCK).
echo "# clocksource: $(cat \
	/sys/devices/system/clocksource/clocksource0/current_clocksource \
	2>/dev/null || echo unknown)"
if ! insmod "$TOP/homa.ko"; then
	echo "# insmod homa.ko failed"
fi
n=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	name=${t%.sh}
	name=${name#t_}
	start=$(date +%s.%N)
	# Output goes to a file: a process the test leaves behind must not
	# keep the runner waiting. A test gets 600 s; an experiment (x_*,
	# never in the default suite) 1400 s, within run.sh's VM_TIMEOUT.
	limit=600
	[[ $t == x_* ]] && limit=1400
	timeout -k 5 "$limit" bash "$VM_DIR/$t" > /tmp/test.out 2>&1
	rc=$?
	out=$(cat /tmp/test.out)
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	if [ -n "$out" ]; then
		printf '%s\n' "$out" | sed 's/^/# /; s/^# # /# /'
	fi
	if leaks_found && { [ "$rc" -eq 0 ] || [ "$rc" -eq 4 ]; }; then
		rc=1
	fi
	case $rc in
	0) echo "ok $n $name # time ${secs}s" ;;
	4) echo "ok $n $name # SKIP" ;;
	*) echo "not ok $n $name # exit $rc" ;;
	esac
done
if [ -w "$kmemleak" ]; then
	sleep 6	# kmemleak reports only objects older than 5 s
	leaks_found && echo "# kmemleak: leaks after the last test"
fi
echo "=== kernel log ==="
dmesg
echo "=== end ==="
