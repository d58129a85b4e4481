#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0+
# Run the Python unit tests of util/ (test/util/test_*.py) and end with
# "pyunit: N passed, N failed". The C++ tests of cp_node in this directory
# (*.cc) are built and run by `make -C util test`.
# Usage: test/util/run.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# The interpreter of util/cp_vs_tcp (#!/usr/bin/python3), for which
# scripts/setup.sh installs numpy and matplotlib; another python3 first on
# PATH may have neither.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
out=$(cd "$top" && "$py" -m unittest discover -s test/util -v 2>&1)
printf '%s\n' "$out"
ran=$(printf '%s\n' "$out" | sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p')
failed=$(printf '%s\n' "$out" | grep -cE ' \.\.\. (FAIL|ERROR)$' || true)
skipped=$(printf '%s\n' "$out" | grep -cE ' \.\.\. skipped' || true)
if [ -z "$ran" ]; then
	# The runner itself broke (e.g. a test file does not import).
	ran=0
	[ "$failed" -gt 0 ] || failed=1
fi
passed=$((ran - failed - skipped))
[ "$passed" -ge 0 ] || passed=0
echo "pyunit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
