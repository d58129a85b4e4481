#!/usr/bin/env bash
# rmmod is refused while a Homa socket is open (in any namespace) and
# succeeds once it is closed.
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

ns_add busy1
hold busy1 100
if rmmod homa 2>/dev/null; then
	echo "# FAIL: rmmod succeeded with a socket open"
	FAILED=1
	insmod "$TOP/homa.ko"
fi
release
check "rmmod after close" rmmod homa
check "insmod again" insmod "$TOP/homa.ko"
finish
