#!/bin/sh
# Bench (not a test): replay speed of an MPI trace, in MPI events per second.
# Traces tests/mpi/cg.c at 64 ranks (mpirun -np 64 --oversubscribe under the
# tracer, ITER iterations of a NX x 16-row-per-rank grid), then replays it on
# the single switch with tasknet run and divides the operations replayed
# (the mpi_events metric: sends, receives, waits, collectives) by the run's
# wall time (trace loading included), fastest of REPS runs (a loaded
# machine slows some; each run is a new process and reads the trace anew).
# Target (issue 20): >= 1e6 events/s.
#   sh bench/mpi-replay.sh BUILDDIR [ITER] [NX] [REPS]
set -eu
build=${1:-.}
iters=${2:-200}
nx=${3:-64}
reps=${4:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
lib="$build/libtasknet-mpitrace.so"
[ -f "$lib" ] || { echo "no $lib: configure found no MPI or no OTF2"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_mpi_yield_when_idle=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/cg.bin" "$src/tests/mpi/cg.c" -lm
t0=$(date +%s.%N)
mpirun -np 64 --oversubscribe -x LD_PRELOAD="$lib" -x TASKNET_MPITRACE="$tmp/cg64.otf2" "$tmp/cg.bin" "$nx" 16 "$iters" \
    >"$tmp/cg.out" 2>"$tmp/cg.err"
t1=$(date +%s.%N)
cat >"$tmp/cg64.xml" <<XML
<tasknet version="1">
  <system nodes="64"/>
  <network type="electrical-switch" bandwidth="10Gb/s"/>
  <workload type="mpi-trace" file="cg64.otf2"/>
</tasknet>
XML
best=
i=0
while [ "$i" -lt "$reps" ]; do
    rm -rf "$tmp/out"
    t2=$(date +%s.%N)
    "$build/tasknet" run "$tmp/cg64.xml" -o "$tmp/out" >"$tmp/run.txt" 2>&1
    t3=$(date +%s.%N)
    best=$(awk -v a="$t2" -v b="$t3" -v m="$best" 'BEGIN { d = b - a; if (m == "" || d < m) m = d; printf "%.6f", m }')
    i=$((i + 1))
done
ev=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /mpi_events/) c = i } NR == 2 { print $c }' "$tmp/out/summary.csv")
[ -n "$ev" ] || ev=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /mpi_events/) c = i } NR == 2 { print $c }' "$tmp/out/runs.csv")
awk -v ev="$ev" -v a="$t0" -v b="$t1" -v d="$best" -v r="$reps" 'BEGIN {
    printf "cg at 64 ranks: traced in %.1f s; replay: %d MPI events in %.3f s wall (fastest of %d) = %.3g events/s (target 1e6)\n",
        b - a, ev, d, r, ev / d }'
