#!/usr/bin/env bash
# Static checks of the whole tree, as netdev reviewers run them: a W=1 build
# with sparse, kernel-doc (well-formed, and present on every non-static
# function), checkpatch --strict, shellcheck, and the length of the tools'
# functions (none over 60 lines in util/). Each check of each file counts
# once in the closing line "check: N passed, N failed".
# Usage: scripts/check.sh
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
TOOLS="$TOP/.tools/scripts"
CODESPELL=/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
passed=0
failed=0

# result NAME STATUS OUTPUT_FILE: count a check and show output on failure.
result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "check: FAIL $1"
		sed 's/^/    /' "$3" | head -n 40
	fi
}

cd "$TOP"
ksrc=(homa*.c homa*.h)
ksrc=("${ksrc[@]/homa.mod.c/}")
mapfile -t ksrc < <(printf '%s\n' "${ksrc[@]}" | grep -v '^$')
csrc=("${ksrc[@]}" test/vm/homa_test.c test/vm/homa_attack.c test/fuzz/*.c)
# Not the copies of the tree that build directories hold (the debug
# lane's test/vm/build/debug/tree).
mapfile -t scripts < <(find scripts test .ci util -name build -prune -o \
	-type f \( -name '*.sh' -o -path .ci/run -o -path util/testbed \) \
	-print 2>/dev/null | sort)

# 1. Build from scratch with W=1 and sparse for every kernel installed
# (scripts/kernels.sh): no warning of any kind. Debian's sparse (0.6.4)
# cannot parse the __typeof_unqual__ that newer kernels (7.3) require of a
# checker, and their Makefile then skips it: those get W=1 only, said here.
for k in $("$TOP/scripts/kernels.sh" list); do
	"$TOP/scripts/kernels.sh" make "$k" -s clean > /dev/null
	status=0
	t0=$(date +%s)
	"$TOP/scripts/kernels.sh" make "$k" -j2 W=1 C=1 modules \
		> "$LOG/build" 2>&1 || status=1
	echo "check: built for $k in $(($(date +%s) - t0)) s"
	if grep -E 'warning:|error:' "$LOG/build" > "$LOG/build.w"; then
		status=1
	fi
	if grep -q 'C=1 specified, but sparse is not available' "$LOG/build"
	then
		echo "check: note: sparse too old for $k: W=1 only"
	elif ! grep -q ' CHECK ' "$LOG/build"; then
		echo "sparse did not run" >> "$LOG/build.w"
		status=1
	fi
	cat "$LOG/build" >> "$LOG/build.w"
	result "make W=1 C=1 ($k)" "$status" "$LOG/build.w"
done

# 2. kernel-doc: comments well formed; every non-static function has one.
for f in "${ksrc[@]}"; do
	status=0
	"$TOOLS/kernel-doc" -none "$f" > "$LOG/kdoc" 2>&1 || status=1
	[ -s "$LOG/kdoc" ] && status=1
	if [[ $f == *.c ]]; then
		python3 scripts/kdoc_coverage.py "$f" >> "$LOG/kdoc" || status=1
	fi
	result "kernel-doc $f" "$status" "$LOG/kdoc"
done

# 3. checkpatch --strict. Some files get a documented exemption:
# homa_compat.h exists to test kernel versions, and homa_types.h defines
# __packed for user space; the fuzz targets must be named
# LLVMFuzzerTestOneInput.
for f in "${csrc[@]}"; do
	ignore=""
	case $f in
	homa_compat.h) ignore="LINUX_VERSION_CODE,CONSTANT_COMPARISON" ;;
	homa_types.h) ignore="PREFER_DEFINED_ATTRIBUTE_MACRO" ;;
	test/fuzz/*) ignore="CAMELCASE" ;;	# libFuzzer's entry point
	esac
	status=0
	"$TOOLS/checkpatch.pl" --strict --no-tree --quiet --codespell \
		--codespellfile "$CODESPELL" \
		--max-line-length=80 ${ignore:+--ignore "$ignore"} -f "$f" \
		> "$LOG/cp" 2>&1 || status=1
	result "checkpatch $f" "$status" "$LOG/cp"
done

# 4. shellcheck on every script.
for f in "${scripts[@]}"; do
	status=0
	shellcheck -x "$f" > "$LOG/sc" 2>&1 || status=1
	result "shellcheck $f" "$status" "$LOG/sc"
done

# 5. Source compatibility: a program using every name of the reference
# implementation's homa.h builds against ours as C and as C++ with warnings
# as errors (its static assertions check values, types and layout) and runs.
for lang in c c++; do
	status=0
	case $lang in
	c) cc=(gcc -std=gnu11) ;;
	c++) cc=(g++ -x c++ -std=gnu++17) ;;
	esac
	{ "${cc[@]}" -Wall -Wextra -Werror -I"$TOP" -o "$LOG/names" \
		test/api/reference_names.c && "$LOG/names"; } \
		> "$LOG/api" 2>&1 || status=1
	result "reference API names ($lang)" "$status" "$LOG/api"
done

# 6. The README's first RPC (hello.c) builds against homa.h as it stands.
status=0
awk '/^<!-- hello.c:/ { on = 1; next } on && /^```c/ { copy = 1; next }
	copy && /^```/ { exit } copy' README.md > "$LOG/hello.c"
{ [ -s "$LOG/hello.c" ] && gcc -Wall -Wextra -Werror -I"$TOP" \
	-o "$LOG/hello" "$LOG/hello.c"; } > "$LOG/api" 2>&1 || status=1
result "README hello.c" "$status" "$LOG/api"

# 7. No function of the tools (util/: C++ and Python) over 60 lines.
status=0
python3 scripts/longest_functions.py --top 3 --max 60 util > "$LOG/len" \
	2>&1 || status=1
result "function length util/" "$status" "$LOG/len"

echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
