#!/usr/bin/env bash
# t_flood.sh with a profile of the whole VM (perf, cpu-clock) while the
# Homa flood runs: the hottest symbols, and the Homa functions with their
# callees' time. Not in the default suite (test/vm/run.sh x_flood_perf.sh).
FLOOD_PERF=1
export FLOOD_PERF
# shellcheck source=test/vm/t_flood.sh
source "$(dirname "$0")/t_flood.sh"
