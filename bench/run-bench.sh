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
# Paper configurations: each configs/paper/*.xml swept in full in one
# process (-j 1), as a user would run it. Wall time and peak RSS come from
# GNU time when present; events/s is the sum of events over the sum of run
# wall times in timing.csv (the simulation alone, no set-up or footprints).
# --- BEGIN paper configs ---
tasknet="$builddir/tasknet"
srcdir=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$tasknet" ]; then
    echo "run-bench.sh: $tasknet not built" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gnutime=""
[ -x /usr/bin/time ] && gnutime=/usr/bin/time
for cfgfile in "$srcdir"/configs/paper/*.xml; do
    name=$(basename "$cfgfile" .xml)
    set --
    [ "$quick" = "--quick" ] && set -- --replicas 1
    out="$tmp/$name"
    echo "== paper $name"
    start=$(date +%s.%N)
    if [ -n "$gnutime" ]; then
        "$gnutime" -f "%M" -o "$tmp/rss" "$tasknet" run "$cfgfile" "$@" --out "$out" -q -j 1
    else
        "$tasknet" run "$cfgfile" "$@" --out "$out" -q -j 1
    fi
    end=$(date +%s.%N)
    awk -F, -v start="$start" -v end="$end" 'NR > 1 { runs++; ev += $2; w += $3 }
        END { printf "runs: %d\nwall_s: %.2f\nevents: %d\nevents_per_s: %.3g\n", runs, end - start, ev, (w > 0 ? ev / w : 0) }' \
        "$out/timing.csv"
    [ -n "$gnutime" ] && echo "peak_rss_MiB: $(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/rss")"
done
# --- END paper configs ---

# --- BEGIN task programs ---
# The kernel and pattern workloads (bench/bench_progs.c): all-to-all on 1024
# switch ports, SR10 of seed 003's Table 1, bruck's static congestion over
# random mappings at ORCS scale.
progs="$builddir/bench/bench_progs"
if [ -x "$progs" ]; then
    "$progs" $quick
else
    echo "run-bench.sh: $progs not built (run 'make bench/bench_progs' in $builddir)" >&2
fi
# --- END task programs ---
