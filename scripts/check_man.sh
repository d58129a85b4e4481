#!/usr/bin/env bash
# Checks the manual pages. Each page must pass mandoc's linter at warning
# level, format under groff with every warning enabled, and render with
# man -l; and homa.7 must document exactly the sysctls of homa_params[]
# (homa_config.c) in its SYSCTLS section and the metrics of
# homa_metric_info[] (homa_metrics.c) in its METRICS section, each entry
# written as ".TP" followed by ".B name". Prints one line per failed check
# and ends with "man: N passed, N failed"; exits 1 if any check failed.
# Usage: scripts/check_man.sh [MAN_DIR [SRC_DIR]]
#   MAN_DIR holds the pages (default: man/ of this tree) and SRC_DIR the
#   sources (default: this tree); both exist so that the checks can be
#   tried on altered copies.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
MAN_DIR=${1:-$TOP/man}
SRC_DIR=${2:-$TOP}
PAGES=(homa.7 sendmsg_homa.2 recvmsg_homa.2)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

# result NAME STATUS MESSAGE: count a check; on failure print one line.
result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "man: FAIL $1: $3"
	fi
}

# first_line FILE: the first non-empty line of FILE, for a failure line.
first_line() {
	local line
	line=$(grep -m 1 -v '^[[:space:]]*$' "$1" || true)
	echo "${line:-(no output)}"
}

# check_mandoc PAGE: mandoc's linter reports nothing at warning level.
check_mandoc() {
	local status=0
	mandoc -Tlint -W warning "$1" > "$TMP/out" 2>&1 || status=1
	[ -s "$TMP/out" ] && status=1
	result "mandoc $(basename "$1")" "$status" "$(first_line "$TMP/out")"
}

# check_groff PAGE: groff with all warnings on (-ww) prints nothing.
check_groff() {
	local status=0
	if ! command -v groff > /dev/null; then
		result "groff $(basename "$1")" 1 "groff is not installed"
		return
	fi
	groff -ww -man -Tutf8 "$1" > /dev/null 2> "$TMP/out" || status=1
	[ -s "$TMP/out" ] && status=1
	result "groff $(basename "$1")" "$status" "$(first_line "$TMP/out")"
}

# check_man PAGE: man -l renders the page, with no complaint.
check_man() {
	local status=0 msg
	MANWIDTH=80 man -l "$1" > "$TMP/page" 2> "$TMP/out" || status=1
	[ -s "$TMP/out" ] && status=1
	msg=$(first_line "$TMP/out")
	if [ ! -s "$TMP/page" ]; then
		status=1
		msg="nothing rendered; $msg"
	fi
	result "man -l $(basename "$1")" "$status" "$msg"
}

# block_names FILE START ENTRY: names from ENTRY (an ERE whose first group
# is the name) in FILE between the line matching START and the next "};".
block_names() {
	sed -n "/$2/,/^};/p" "$1" 2> /dev/null |
		grep -oE "$3" | sed -E "s/$3/\\1/" | sort || true
}

# section_names PAGE SECTION: every ".B name" right after a ".TP" in the
# page's section SECTION (up to the next .SH).
section_names() {
	awk -v sec="$2" '
		/^\.SH[ \t]/ {
			s = $0
			gsub(/"/, "", s)
			in_sec = (s == ".SH " sec)
			prev = $0
			next
		}
		in_sec && prev == ".TP" && /^\.B [A-Za-z0-9_]+$/ { print $2 }
		{ prev = $0 }
	' "$1" 2> /dev/null | sort || true
}

# compare_sets NAME SRC_FILE DOC_FILE SRC_LABEL: the sorted name lists in
# SRC_FILE and DOC_FILE must hold the same names, each once in the page.
compare_sets() {
	local missing extra dups msg=""
	missing=$(sort -u "$2" | comm -23 - <(sort -u "$3") | xargs)
	extra=$(sort -u "$3" | comm -13 <(sort -u "$2") - | xargs)
	dups=$(uniq -d "$3" | xargs)
	[ -s "$2" ] || msg="no names found in $4; "
	[ -n "$missing" ] && msg+="not in homa.7: $missing; "
	[ -n "$extra" ] && msg+="not in $4: $extra; "
	[ -n "$dups" ] && msg+="documented twice: $dups; "
	result "$1" "$([ -z "$msg" ] && echo 0 || echo 1)" "${msg%; }"
}

for page in "${PAGES[@]}"; do
	check_mandoc "$MAN_DIR/$page"
	check_groff "$MAN_DIR/$page"
	check_man "$MAN_DIR/$page"
done

block_names "$SRC_DIR/homa_config.c" 'homa_params\[\] = {' \
	'HOMA_PARAM\(([A-Za-z0-9_]+),' > "$TMP/src_sysctls"
block_names "$SRC_DIR/homa_config.c" 'homa_params\[\] = {' \
	'\.name = "([A-Za-z0-9_]+)"' >> "$TMP/src_sysctls"
section_names "$MAN_DIR/homa.7" SYSCTLS > "$TMP/doc_sysctls"
compare_sets "sysctls in homa.7" "$TMP/src_sysctls" "$TMP/doc_sysctls" \
	homa_config.c

block_names "$SRC_DIR/homa_metrics.c" 'homa_metric_info\[\] = {' \
	'HOMA_METRIC\(([A-Za-z0-9_]+),' > "$TMP/src_metrics"
section_names "$MAN_DIR/homa.7" METRICS > "$TMP/doc_metrics"
compare_sets "metrics in homa.7" "$TMP/src_metrics" "$TMP/doc_metrics" \
	homa_metrics.c

echo "man: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
