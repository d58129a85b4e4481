#!/usr/bin/env bash
# Run every suite: static checks (which build for every kernel installed),
# manual pages, unit tests (kernel decision files, cp_node, the benchmark
# driver), a short fuzzing run of the decision files (make fuzz runs it
# longer), the homa-dkms package in a chroot, VM tests on bookworm's kernel
# (6.1, with the emulated HPET as the guest's clock) and on the newest one
# (scripts/kernels.sh; make test-kernels runs them on all) with the TSC,
# so that each clock runs the suite once. Each suite ends with "<suite>: N
# passed, N failed"; this script sums them into one closing line "N
# passed, N failed" and fails if any suite failed or said nothing.
# Usage: scripts/test.sh   (make test)
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
total_pass=0
total_fail=0
start=$(date +%s)

# suite NAME CMD...: run one suite, echoing its output, and add its counts.
suite() {
	local name=$1 out line p f rc t0
	shift
	out=$(mktemp)
	echo "=== $name ==="
	t0=$(date +%s)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "$name: took $(($(date +%s) - t0)) s"
	line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "$name: no result line (exit $rc): counted as 1 failed"
		total_fail=$((total_fail + 1))
		return
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
}

"$TOP/scripts/setup.sh" || exit 1
suite check "$TOP/scripts/check.sh"
suite man "$TOP/scripts/check_man.sh"
suite unit make --no-print-directory -C "$TOP/test/unit"
suite fuzz make --no-print-directory -C "$TOP/test/fuzz" FUZZ_SECONDS=10
suite cpnode make --no-print-directory -C "$TOP/util" test
suite pyunit "$TOP/test/util/run.sh"
# The DKMS test builds for the default kernel, whatever homa.ko was last.
suite dkms env KVER="$("$TOP/scripts/kernels.sh" default)" \
	"$TOP/scripts/test_dkms.sh"
suite vmtest make --no-print-directory -C "$TOP" vmtest
newest=$("$TOP/scripts/kernels.sh" resolve newest)
if [ "$newest" != "$("$TOP/scripts/kernels.sh" default)" ]; then
	echo "=== vmtest on $newest (VM_CLOCK=tsc) ==="
	suite vmtest env VM_CLOCK=tsc \
		make --no-print-directory -C "$TOP" vmtest KVER="$newest"
fi
echo "test: took $(($(date +%s) - start)) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
