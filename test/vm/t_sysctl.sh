#!/usr/bin/env bash
# net.homa.* is per namespace: a write in one namespace is invisible in
# another, a new namespace starts from the defaults, and every bad write is
# refused with EINVAL and changes nothing.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add sys1
ns_add sys2
get() { in_ns "$1" sysctl -n "net.homa.$2" | tr -s '\t ' ' '; }
set_ok() { check "write $2=$3 in $1" in_ns "$1" sysctl -q -w "net.homa.$2=$3"; }
# set_bad NS NAME VALUE: the write must fail and leave the value as it was.
set_bad() {
	local before err
	before=$(get "$1" "$2")
	if err=$(in_ns "$1" sh -c "/bin/echo '$3' > /proc/sys/net/homa/$2" 2>&1); then
		echo "# FAIL: write '$3' to $2 was accepted"
		FAILED=1
	elif ! printf '%s' "$err" | grep -q 'Invalid argument'; then
		echo "# FAIL: write '$3' to $2: '$err', want EINVAL"
		FAILED=1
	fi
	check_eq "$2 unchanged by '$3'" "$(get "$1" "$2")" "$before"
}

check_eq "default unsched_bytes" "$(get sys1 unsched_bytes)" 40000
check_eq "default cutoffs" "$(get sys1 unsched_cutoffs)" \
	"0 0 0 0 1000000 15000 2800 200"
set_ok sys1 unsched_bytes 30000
check_eq "rtt_bytes is unsched_bytes" "$(get sys1 rtt_bytes)" 30000
set_ok sys1 rtt_bytes 20000
check_eq "unsched_bytes via rtt_bytes" "$(get sys1 unsched_bytes)" 20000
check_eq "other namespace untouched" "$(get sys2 unsched_bytes)" 40000
check_eq "init namespace untouched" "$(sysctl -n net.homa.unsched_bytes)" 40000
set_ok sys2 link_mbps 16
check_eq "link_mbps in sys2" "$(get sys2 link_mbps)" 16
check_eq "link_mbps in sys1" "$(get sys1 link_mbps)" 25000

set_bad sys1 unsched_bytes 0
set_bad sys1 unsched_bytes 1000001
set_bad sys1 unsched_bytes abc
set_bad sys1 max_overcommit 0
set_bad sys1 num_priorities 9
set_bad sys1 grant_fifo_fraction 501
set_bad sys1 priority_map "0 1 2 3 4 5 6 8"
set_bad sys1 unsched_cutoffs "0 0 0 0 1000000 15000 2800 3000"
set_bad sys1 unsched_cutoffs "0 0 0 0 999999 15000 2800 200"
set_bad sys1 unsched_cutoffs "0 0 0 0 0 0 0 -1"
check_eq "rejects counted" "$(metric sys1 sysctl_rejects)" 10

version=$(get sys1 cutoff_version)
set_ok sys1 unsched_cutoffs "0 0 0 0 0 1000000 10000 100"
check_eq "cutoffs written" "$(get sys1 unsched_cutoffs)" \
	"0 0 0 0 0 1000000 10000 100"
check_eq "cutoff_version bumped" "$(get sys1 cutoff_version)" $((version + 1))
check_eq "cutoff_version of sys2" "$(get sys2 cutoff_version)" 1
if in_ns sys1 sh -c 'echo 7 > /proc/sys/net/homa/cutoff_version' 2>/dev/null; then
	echo "# FAIL: cutoff_version is writable"
	FAILED=1
fi

ip netns del sys1
ns_add sys1
check_eq "recreated namespace has defaults" "$(get sys1 unsched_bytes)" 40000
finish
