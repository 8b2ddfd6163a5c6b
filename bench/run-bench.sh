#!/bin/sh
# Benchmarks: events/s, wall time and peak RSS as `key: value` lines.
#   bench/run-bench.sh BUILDDIR [--quick]
# BUILDDIR holds bench/bench_engine (`make bench/bench_engine`) and, for the
# paper configurations, the tasknet program. Timings on shared machines are
# noisy: compare instruction counts (valgrind --tool=callgrind) for small
# differences.
set -eu

builddir=${1:?usage: run-bench.sh BUILDDIR [--quick]}
quick=${2:-}
engine="$builddir/bench/bench_engine"

if [ ! -x "$engine" ]; then
    echo "run-bench.sh: $engine not built (run 'make bench/bench_engine' in $builddir)" >&2
    exit 1
fi

# ---------------------------------------------------------------------------
# Event engine: the hold model at several queue sizes. 10^6 pending with
# 2 x 10^7 events is the reference figure; smaller queues show the in-cache
# cost per event.
# ---------------------------------------------------------------------------
if [ "$quick" = "--quick" ]; then
    sizes="1000 100000"
    events=2000000
else
    sizes="1000 100000 1000000"
    events=20000000
fi
for pending in $sizes; do
    echo "== engine hold pending=$pending events=$events"
    "$engine" --pending "$pending" --events "$events"
done

# ---------------------------------------------------------------------------
# Paper configurations (to be added by the lead): run tasknet on
# configs/paper/*.xml and report events/s, wall time and peak RSS per config.
# --- BEGIN paper configs ---
# --- END paper configs ---
