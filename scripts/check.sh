#!/usr/bin/env bash
# Static checks of the whole tree, as netdev reviewers run them: a W=1 build
# with sparse, kernel-doc (well-formed, and present on every non-static
# function), checkpatch --strict, and shellcheck. Each check of each file
# counts once in the closing line "check: N passed, N failed".
# Usage: scripts/check.sh
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
TOOLS="$TOP/.tools/scripts"
KDIR=${KDIR:-$(make -s -C "$TOP" --no-print-directory print-kdir)}
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
mapfile -t scripts < <(find scripts test .ci util -type f \
	\( -name '*.sh' -o -path .ci/run -o -path util/testbed \) \
	2>/dev/null | sort)

# 1. Build from scratch with W=1 and sparse: no warning of any kind.
make -s -C "$KDIR" M="$TOP" clean > /dev/null
make -C "$KDIR" M="$TOP" W=1 C=1 modules > "$LOG/build" 2>&1
status=$?
if grep -E 'warning:|error:' "$LOG/build" > "$LOG/build.w"; then status=1; fi
if ! grep -q ' CHECK ' "$LOG/build"; then
	echo "sparse did not run" >> "$LOG/build.w"
	status=1
fi
cat "$LOG/build" >> "$LOG/build.w"
result "make W=1 C=1" "$status" "$LOG/build.w"

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

echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
