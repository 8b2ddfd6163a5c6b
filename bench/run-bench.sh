#!/bin/sh
# Benchmarks: events/s, wall time and peak RSS as `key: value` lines, and
# each paper configuration against a stored baseline so a regression shows.
#
#   bench/run-bench.sh BUILDDIR [--quick] [--runs N] [-j N]
#                      [--baseline FILE] [--write-baseline FILE] [--no-engine]
#
# BUILDDIR holds bench/bench_engine (`make bench/bench_engine`) and the
# tasknet program. `make bench` runs this with BUILDDIR = the build folder.
#
#   --quick            engine at two sizes, configurations with --replicas 1
#                      (not comparable with the baseline: no ratio printed)
#   --runs N           run each configuration N times (default 3) and keep
#                      the fastest: wall times on shared machines are noisy
#                      upwards only, so the minimum is the stable figure
#   -j N               worker processes for the configurations (default 1)
#   --baseline FILE    compare with FILE (default bench/baseline.txt)
#   --write-baseline FILE  write the figures measured now as a baseline
#   --no-engine        skip the event-engine hold model
#
# Per configuration: wall_s (whole process, fastest of N), wall_median_s,
# events (all runs of the sweep), events_per_s (events / wall_s),
# sim_events_per_s (events over the runs' own wall times in timing.csv: the
# simulation alone), peak_rss_MiB (largest of the N, from GNU time), and
# against the baseline: speed_ratio = baseline wall / wall (> 1 faster).
# A configuration slower than TN_BENCH_TOLERANCE (default 1.25) times its
# baseline prints `REGRESSION` and the script exits 2 at the end.
# Instruction counts (valgrind --tool=callgrind) are the figure to compare
# for small differences: they do not depend on the machine's load.
set -eu

usage() {
    sed -n '4,6p' "$0" | sed 's/^# *//' >&2
    exit 1
}

builddir=${1:-}
[ -n "$builddir" ] || usage
shift
srcdir=$(cd "$(dirname "$0")/.." && pwd)
quick=""
runs=3
jobs=1
baseline="$srcdir/bench/baseline.txt"
write_baseline=""
engine_on=1
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --runs) runs=${2:?--runs N}; shift ;;
    -j|--jobs) jobs=${2:?-j N}; shift ;;
    --baseline) baseline=${2:?--baseline FILE}; shift ;;
    --write-baseline) write_baseline=${2:?--write-baseline FILE}; shift ;;
    --no-engine) engine_on="" ;;
    *) usage ;;
    esac
    shift
done
tolerance=${TN_BENCH_TOLERANCE:-1.25}

engine="$builddir/bench/bench_engine"
tasknet="$builddir/tasknet"
for prog in "$tasknet" ${engine_on:+"$engine"}; do
    if [ ! -x "$prog" ]; then
        echo "run-bench.sh: $prog not built (run 'make bench' in $builddir)" >&2
        exit 1
    fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gnutime=""
[ -x /usr/bin/time ] && gnutime=/usr/bin/time

# ---------------------------------------------------------------------------
# Event engine: the hold model at several queue sizes. 128 pending is the
# size the paper's sweeps hold (fig9: about 140); 10^6 pending with
# 2 x 10^7 events is the large-queue reference figure.
# ---------------------------------------------------------------------------
if [ -n "$engine_on" ]; then
    if [ -n "$quick" ]; then
        sizes="128 100000"
        events=2000000
    else
        sizes="128 1000 100000 1000000"
        events=20000000
    fi
    for pending in $sizes; do
        echo "== engine hold pending=$pending events=$events"
        "$engine" --pending "$pending" --events "$events"
    done
fi

# ---------------------------------------------------------------------------
# Configurations: every configs/paper/*.xml and configs/examples/spinet-load.xml
# swept in full, as a user would run them (--out included).
# ---------------------------------------------------------------------------
# baseline lines: NAME WALL_S EVENTS_PER_S PEAK_RSS_MIB (# comments)
baseline_field() { # NAME COLUMN
    [ -f "$baseline" ] || return 0
    awk -v n="$1" -v c="$2" '$1 == n && $1 !~ /^#/ { print $c; exit }' "$baseline"
}

results="$tmp/results"
: >"$results"
regressions=0
for cfgfile in "$srcdir"/configs/paper/*.xml "$srcdir"/configs/examples/spinet-load.xml; do
    name=$(basename "$cfgfile" .xml)
    set -- -q -j "$jobs"
    [ -n "$quick" ] && set -- "$@" --replicas 1
    : >"$tmp/walls"
    : >"$tmp/rss"
    i=0
    while [ "$i" -lt "$runs" ]; do
        out="$tmp/out-$name"
        rm -rf "$out"
        start=$(date +%s.%N)
        if [ -n "$gnutime" ]; then
            "$gnutime" -f "%M" -o "$tmp/rss1" "$tasknet" run "$cfgfile" "$@" --out "$out"
            cat "$tmp/rss1" >>"$tmp/rss"
        else
            "$tasknet" run "$cfgfile" "$@" --out "$out"
        fi
        end=$(date +%s.%N)
        echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$tmp/walls"
        i=$((i + 1))
    done
    wall=$(sort -n "$tmp/walls" | head -1)
    median=$(sort -n "$tmp/walls" | awk '{ w[NR] = $1 } END { print (NR % 2) ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2 }')
    rss=""
    [ -s "$tmp/rss" ] && rss=$(sort -n "$tmp/rss" | tail -1 | awk '{ printf "%.1f", $1 / 1024 }')
    echo "== config $name (-j $jobs${quick:+, --replicas 1}, fastest of $runs)"
    awk -F, -v wall="$wall" -v median="$median" -v rss="$rss" 'NR > 1 { runs++; ev += $2; w += $3 }
        END {
            printf "runs: %d\nwall_s: %.3f\nwall_median_s: %.3f\nevents: %d\n", runs, wall, median, ev
            printf "events_per_s: %.4g\nsim_events_per_s: %.4g\n", (wall > 0 ? ev / wall : 0), (w > 0 ? ev / w : 0)
            if (rss != "") printf "peak_rss_MiB: %s\n", rss
        }' "$out/timing.csv" | tee "$tmp/one"
    eps=$(awk '$1 == "events_per_s:" { print $2 }' "$tmp/one")
    echo "$name $wall $eps ${rss:-0}" >>"$results"
    base_wall=$(baseline_field "$name" 2)
    if [ -n "$quick" ] || [ -z "$base_wall" ]; then
        continue
    fi
    base_eps=$(baseline_field "$name" 3)
    base_rss=$(baseline_field "$name" 4)
    awk -v w="$wall" -v bw="$base_wall" -v e="$eps" -v be="$base_eps" -v r="${rss:-0}" -v br="$base_rss" \
        -v tol="$tolerance" -v n="$name" 'BEGIN {
            printf "baseline_wall_s: %.3f\nspeed_ratio: %.2f\n", bw, bw / w
            if (be > 0) printf "events_per_s_ratio: %.2f\n", e / be
            if (br > 0 && r > 0) printf "peak_rss_ratio: %.2f\n", r / br
            if (w > bw * tol) printf "REGRESSION: %s takes %.2fx its baseline wall time\n", n, w / bw
        }' | tee "$tmp/cmp"
    grep -q '^REGRESSION' "$tmp/cmp" && regressions=$((regressions + 1))
done
# --- BEGIN task programs ---
# The kernel and pattern workloads (bench/bench_progs.c): all-to-all on 1024
# switch ports, SR10 of seed 003's Table 1, bruck's static congestion over
# random mappings at ORCS scale.
progs="$builddir/bench/bench_progs"
if [ -x "$progs" ]; then
    "$progs" ${quick:+--quick}
else
    echo "run-bench.sh: $progs not built (run 'make bench/bench_progs' in $builddir)" >&2
fi
# --- END task programs ---

# ---------------------------------------------------------------------------
# Host NIC at scale (issue 12): a 1,000-node web-search run (bench/websearch-1000.xml,
# 1500-B packets served round-robin); thesis-coexistence (training and web search
# sharing a switch) runs above with the paper configurations.
# --- BEGIN websearch-1000 ---
echo "== websearch-1000"
out="$tmp/websearch-1000"
start=$(date +%s.%N)
if [ -n "$gnutime" ]; then
    "$gnutime" -f "%M" -o "$tmp/rss" "$tasknet" run "$srcdir/bench/websearch-1000.xml" --out "$out" -q -j 1
else
    "$tasknet" run "$srcdir/bench/websearch-1000.xml" --out "$out" -q -j 1
fi
end=$(date +%s.%N)
awk -F, -v start="$start" -v end="$end" 'NR > 1 { runs++; ev += $2; w += $3 }
    END { printf "runs: %d\nwall_s: %.2f\nevents: %d\nevents_per_s: %.3g\n", runs, end - start, ev, (w > 0 ? ev / w : 0) }' \
    "$out/timing.csv"
if [ -n "$gnutime" ]; then echo "peak_rss_MiB: $(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/rss")"; fi
# --- END websearch-1000 ---

if [ -n "$write_baseline" ]; then
    {
        echo "# tasknet bench baseline (bench/run-bench.sh --write-baseline), compared by"
        echo "# bench/run-bench.sh: NAME WALL_S EVENTS_PER_S PEAK_RSS_MIB, each configuration"
        echo "# swept in full with -j $jobs and --out, fastest of $runs runs."
        echo "# measured $(date -u +%Y-%m-%d) on $(uname -m), $(nproc 2>/dev/null || echo '?') cores,"
        echo "# $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo 'unknown CPU')"
        echo "# commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)"
        cat "$results"
    } >"$write_baseline"
    echo "== baseline written to $write_baseline"
fi
if [ "$regressions" -gt 0 ]; then
    echo "run-bench.sh: $regressions configuration(s) slower than $tolerance x baseline" >&2
    exit 2
fi
