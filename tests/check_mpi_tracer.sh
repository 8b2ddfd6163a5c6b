#!/bin/sh
# The MPI tracer (libtasknet-mpitrace.so, issue 20 item 3) on the programs of
# tests/mpi/ (ping-pong, ring, conjugate gradient, communicators made by
# MPI_Comm_split and MPI_Comm_dup), each run with
# mpirun -np 4 --oversubscribe under LD_PRELOAD; otf2-print must read each
# trace; then tests/check_mpi_tracer replays them (every message matched,
# sends, bytes and computation per rank as the programs and the traces say,
# ping-pong and ring times by hand). Then the ping-pong traced into a folder
# that does not exist yet (the tracer makes it) and the ring replayed as two
# workloads of one switch on disjoint nodes (0-3, 4-7), compute-scale 0:
# each trace replays as it does alone (the ports of one workload carry
# nothing of the other's), 21280 and 10400 ns by hand as in
# tests/check_mpi_tracer.c. Skipped (77) with the reason when MPI, OTF2 or
# otf2-print is missing.
set -u
top=${abs_top_builddir:-$(pwd)}
srcdir=${srcdir:-.}
lib="$top/libtasknet-mpitrace.so"
command -v mpicc >/dev/null 2>&1 || { echo "SKIP: no mpicc (install openmpi-bin libopenmpi-dev)"; exit 77; }
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
[ -f "$lib" ] || { echo "SKIP: $lib was not built (configure found no MPI or no OTF2)"; exit 77; }
[ -x "$top/tests/check_mpi_tracer" ] || { echo "SKIP: tests/check_mpi_tracer was not built (no OTF2)"; exit 77; }
command -v otf2-print >/dev/null 2>&1 || { echo "SKIP: no otf2-print (install otf2-tools)"; exit 77; }
# mpirun refuses root unless told (Open MPI)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# a quiet, local run: no network interfaces probed, shared memory only
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { # name args...
    name=$1
    shift
    mpicc -O2 -o "$tmp/$name.bin" "$srcdir/tests/mpi/$name.c" -lm || { echo "FAIL: mpicc $name.c"; fail=1; return; }
    timeout 300 mpirun -np 4 --oversubscribe -x LD_PRELOAD="$lib" -x TASKNET_MPITRACE="$tmp/$name.otf2" \
        "$tmp/$name.bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || {
        echo "FAIL: mpirun $name"; cat "$tmp/$name.err"; fail=1; return; }
    grep -q "wrote $tmp/$name.otf2" "$tmp/$name.err" || { echo "FAIL: $name: the tracer wrote no archive"; cat "$tmp/$name.err"; fail=1; }
    otf2-print "$tmp/$name.otf2" >"$tmp/$name.print" 2>&1 || { echo "FAIL: otf2-print $name.otf2"; tail "$tmp/$name.print"; fail=1; }
    echo "$name: $(grep -c '^MPI_' "$tmp/$name.print") MPI records, otf2-print reads it"
}
run pingpong 10 1000
run ring 10 1000
run cg 64 16 25
run comms 10 1000
grep -q "MPI_ISEND .*Communicator: \"MPI Comm" "$tmp/comms.print" || { echo "FAIL: comms: otf2-print shows no send on a communicator other than MPI_COMM_WORLD"; fail=1; }
[ "$fail" -eq 0 ] || exit 1
TASKNET_MPI_TRACES="$tmp" "$top/tests/check_mpi_tracer" || exit 1
timeout 300 mpirun -np 4 --oversubscribe -x LD_PRELOAD="$lib" -x TASKNET_MPITRACE="$tmp/new/sub/pp.otf2" \
    "$tmp/pingpong.bin" 10 1000 >"$tmp/pp.out" 2>"$tmp/pp.err" || { echo "FAIL: mpirun pingpong into new/sub"; cat "$tmp/pp.err"; exit 1; }
grep -q "wrote $tmp/new/sub/pp.otf2" "$tmp/pp.err" || { echo "FAIL: the tracer did not make new/sub"; cat "$tmp/pp.err"; exit 1; }
cat >"$tmp/two.xml" <<XML
<tasknet version="1">
  <system nodes="8"/>
  <network type="electrical-switch" bandwidth="10Gb/s" link-latency="20ns" switch-latency="200ns"/>
  <workload name="pp" type="mpi-trace" file="new/sub/pp.otf2" nodes="0-3" compute-scale="0"/>
  <workload name="ring" type="mpi-trace" file="ring.otf2" nodes="4-7" compute-scale="0"/>
</tasknet>
XML
"$top/tasknet" run "$tmp/two.xml" -o "$tmp/two" >"$tmp/two.txt" 2>&1 || { echo "FAIL: tasknet run two.xml"; cat "$tmp/two.txt"; exit 1; }
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR == 2 { printf "%.1f %.1f", $c["pp.replay_time_s_mean"] * 1e9, $c["ring.replay_time_s_mean"] * 1e9 }' "$tmp/two/summary.csv")
[ "$got" = "21280.0 10400.0" ] || { echo "FAIL: two traces on one switch replay in $got ns, alone 21280.0 10400.0"; exit 1; }
echo "two traces on one switch: $got ns, as alone"
