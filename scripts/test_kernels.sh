#!/usr/bin/env bash
# Build homa.ko from scratch (W=1, sparse where the kernel accepts Debian's)
# and run the whole VM suite on every kernel scripts/kernels.sh lists, one
# after the other; print the time of each part and a closing line
# "test-kernels: N passed, N failed" summing the VM suites (a failed build
# counts as one failure). Each kernel's build log and VM console stay in
# build/<version>.log and build/<version>.vm.log.
# Usage: scripts/test_kernels.sh [VER...]   (make test-kernels; default: all)
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
KERNELS="$TOP/scripts/kernels.sh"
passed=0
failed=0
summary=()

if [ $# -gt 0 ]; then
	kernels=("$@")
else
	mapfile -t kernels < <("$KERNELS" list)
fi
start=$(date +%s)
for k in "${kernels[@]}"; do
	k=$("$KERNELS" resolve "$k") || { failed=$((failed + 1)); continue; }
	echo "=== $k ==="
	t0=$(date +%s)
	"$KERNELS" make "$k" -s clean > /dev/null
	if ! "$KERNELS" make "$k" -j2 W=1 C=1 modules > "$TOP/build/$k.log" 2>&1 ||
	   grep -E 'warning:|error:' "$TOP/build/$k.log"; then
		echo "test-kernels: build for $k failed (build/$k.log)"
		failed=$((failed + 1))
		summary+=("$k: build FAILED")
		continue
	fi
	t1=$(date +%s)
	out=$(mktemp)
	# What make vmtest does, without building again without W=1.
	{ "$KERNELS" install "$k" && KVER=$k "$TOP/test/vm/run.sh"; } 2>&1 |
		tee "$out"
	line=$(grep -E '^vmtest: [0-9]+ passed, [0-9]+ failed' "$out" |
		tail -n 1)
	rm -f "$out"
	# Keep each kernel's console: the next run overwrites vm.log.
	cp -f "$TOP/test/vm/build/vm.log" "$TOP/build/$k.vm.log" 2>/dev/null
	t2=$(date +%s)
	p=$(echo "$line" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p')
	f=$(echo "$line" | sed -nE 's/.*passed, ([0-9]+) failed.*/\1/p')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	summary+=("$k: build $((t1 - t0)) s, VM suite $((t2 - t1)) s (with any wait for the VM lock): ${p:-0} passed, ${f:-1} failed")
done
echo "=== summary ==="
printf '%s\n' "${summary[@]}"
echo "test-kernels: took $(($(date +%s) - start)) s"
echo "test-kernels: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
