#!/bin/sh
# bench/iqr-diff.sh [BUILDDIR] [FIRST_SEED] [SEEDS] [CONFIGS] [MESSAGES]
#
# The input-queued router's differential check at length: check_iqrouter's
# test_express_matches_general (its case "diff") on CONFIGS random
# configurations of MESSAGES messages for each of SEEDS seeds from
# FIRST_SEED (defaults 1, 8, 500, 600: 4,000 configurations, about 2.5
# minutes on one core). Each configuration runs three ways, as configured
# (the tick's lean copy where it is chosen, the express switch allocation),
# with the general tick (iqr_no_lean) and with the general tick at every
# step (iqr_no_express); every message must be delivered at the same
# picosecond all three ways. A configuration whose fabric is stuck past
# the time limit (a deadlock; 0 of 1,000 since dragonflies with
# global-link-latency, sw-alloc-delay and credit-delay all 0 are refused)
# counts as "stuck" and must be stuck the same way (IQR_DIFF_VERBOSE=1
# prints every configuration and which are stuck). make check runs 80 configurations of 300 messages (seed 1).
# A failure names the seed and configuration; IQR_DIFF_FIRST=K
# IQR_DIFF_CONFIGS=K+1 IQR_DIFF_VERBOSE=1 runs it alone.
set -e
b=${1:-.}
first=${2:-1}
seeds=${3:-8}
configs=${4:-500}
msgs=${5:-600}
prog="$b/tests/check_iqrouter"
[ -x "$prog" ] || make -C "$b" tests/check_iqrouter >/dev/null
s=$first
rc=0
while [ "$s" -lt $((first + seeds)) ]; do
    out=$(CK_RUN_CASE=diff IQR_DIFF_SEED=$s IQR_DIFF_CONFIGS=$configs IQR_DIFF_MESSAGES=$msgs "$prog" 2>&1) || rc=1
    printf '%s\n' "$out" | grep -v '^Running suite' || true
    s=$((s + 1))
done
exit $rc
