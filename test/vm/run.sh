#!/usr/bin/env bash
# Boot Debian's kernel under virtme-ng (software emulation), run the VM
# tests against the freshly built homa.ko, and judge the result: every test
# must print "ok" and the kernel log must hold no splat.
# Usage: test/vm/run.sh [TEST...]   (KVER selects the kernel, default the
# one the module was built for, VM_KERNEL an image; see scripts/vm.sh)
# Debug-kernel lane (scripts/vmtest_debug.sh): VM_KERNEL=<image> boots that
# image instead of /boot/vmlinuz-$KVER; VM_TIMEOUT=<s> (default 1500).
set -euo pipefail

VM_DIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$VM_DIR/../.." && pwd)
BUILD="$VM_DIR/build"
VM="$TOP/scripts/vm.sh"

kernel=$("$VM" --kernel)
if [ ! -f "$kernel" ]; then
	echo "vmtest: no kernel image $kernel (run scripts/setup.sh)" >&2
	exit 1
fi

mkdir -p "$BUILD"
gcc -Wall -Wextra -Werror -O2 -I"$TOP" -o "$BUILD/homa_test" \
	"$VM_DIR/homa_test.c"
gcc -Wall -Wextra -Werror -O2 -I"$TOP" -o "$BUILD/homa_attack" \
	"$VM_DIR/homa_attack.c"
make --no-print-directory -s -C "$TOP/util"

log="$BUILD/vm.log"
# boot ARGS...: run the tests in a VM; sets boot_status (vm.sh's exit
# status: 124 when the timeout stopped it) and boot_secs.
boot() {
	local start=$SECONDS
	boot_status=0
	"$VM" --timeout "${VM_TIMEOUT:-1500}" --log "$log" -- \
		"$VM_DIR/inside.sh" "$@" 2>&1 || boot_status=$?
	boot_secs=$((SECONDS - start))
}
boot "$@"
# A VM that never reached the tests (the emulator or virtme-ng failed to
# start; in CI, twice, the first 7.3 boot with an empty console) is
# booted once more; its console is kept. A VM that ran tests is never
# run again.
if ! grep -q '^KTAP version' "$log"; then
	cp -f "$log" "$log.boot-failed"
	echo "vmtest: the VM did not reach the tests ($(wc -c < "$log") bytes" \
		"of console, kept in $log.boot-failed; vm.sh exited with" \
		"status $boot_status after $boot_secs s); booting once more"
	tail -n 20 "$log"
	boot "$@"
fi
echo "# vm.sh exited with status $boot_status after $boot_secs s"

# Print the KTAP part; keep the kernel log in the file.
sed -n '/^KTAP version/,/^=== kernel log ===/p' "$log" | sed '$d'
passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -c '^not ok ' "$log" || true)
planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n 1)
if [ -z "$planned" ]; then
	echo "vmtest: the VM printed no test plan; see $log"
	tail -n 20 "$log"
	failed=$((failed + 1))
elif [ $((passed + failed)) -ne "$planned" ]; then
	echo "vmtest: $((planned - passed - failed)) test(s) did not report"
	failed=$((failed + planned - passed - failed))
fi
splats=$(sed -n '/^=== kernel log ===/,/^=== end ===/p' "$log" |
	"$VM" --splats)
if [ -n "$splats" ]; then
	echo "vmtest: kernel splat in the log ($log):"
	printf '%s\n' "$splats" | head -n 20
	failed=$((failed + 1))
fi
echo "vmtest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
