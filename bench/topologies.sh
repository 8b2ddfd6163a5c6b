#!/bin/sh
# Switched fabrics, one table row per run:
#  1. uniform random on each topology (and the single switch and SPINet for
#     reference) at 64 and 4,096 nodes: messages/s (simulated messages per
#     CPU second), peak memory, and beside it the memory tasknet estimated
#     for the run before running it (`tasknet analyze`: what -j and
#     TASKNET_MEMORY are checked against);
#  2. scaling: the single switch (the engine and the workload alone), SPINet
#     (at the bench's 10% load, and at 1%, where its tries per packet stay
#     near 1 at every size) and the 4-ary and 16-ary n-trees from 256 to
#     65,536 ports. Each size
#     runs twice, with M and 2M messages in all (M = 2^19, spread over the
#     nodes), and the row gives the marginal CPU time per message, (T(2M) -
#     T(M)) / M: set-up (tables, link blocks) and the first and last
#     messages' transients cancel, so sizes compare at equal work. Beside it
#     the work a message makes (hops: switches crossed; tries: SPINet's
#     transmissions per packet, each crossing up to log2 N stages), the time
#     per hop or per try, and the growth of each from the smallest size
#     against log2 N's: a message crosses log N stages or 2 log_k N - 1
#     switches, so with no per-message work growing with N, time per
#     message grows as its hops (or tries x stages) do, times what the
#     memory hierarchy adds once a fabric's state leaves the caches. Peak
#     memory is that of the 2M run (under 1 GB at 65,536).
#  With --instructions, only part 2, counting instructions (valgrind's
#  callgrind) instead of CPU time, M = 2^16, three sizes: deterministic,
#  the same on any machine, and blind to the caches, so it shows the work
#  per message apart from the memory hierarchy (about 10 minutes).
#  With --large, only part 2, from 16,384 to 262,144 ports (M = 2^21; the
#  16-ary tree has no size between 65,536 and 1,048,576): the growth within
#  one level of the memory hierarchy and across the next (about 7 minutes,
#  1 GB at most).
#  step_gr and step_lg: the growth of the time per message and of log2 N
#  from the size before.
#   bench/topologies.sh BUILDDIR [--quick | --instructions | --large]
# Rates are per CPU second of the whole process (GNU time's user + system,
# set-up included: wall times on shared machines are noisy; wall_s is the
# simulation's own); peak memory is GNU time's.
set -eu
builddir=${1:?usage: topologies.sh BUILDDIR [--quick | --instructions | --large]}
quick=${2:-}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tasknet="$builddir/tasknet"
cfg="$srcdir/bench/uniform.xml"
[ -x "$tasknet" ] || { echo "topologies.sh: $tasknet not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gnutime=""
[ -x /usr/bin/time ] && gnutime=/usr/bin/time
runs=0

# run NAME NODES MESSAGES_PER_NODE SET...: one run, one table row
run() {
    name=$1 nodes=$2 msgs=$3
    shift 3
    runs=$((runs + 1))
    out="$tmp/run$runs"
    if [ -n "$gnutime" ]; then
        "$gnutime" -f "%M %U %S" -o "$tmp/rss" "$tasknet" run "$cfg" --set system.nodes="$nodes" \
            --set workload.messages="$msgs" "$@" --out "$out" -q -j 1
        rss=$(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/rss")
        cpu=$(awk '{ printf "%.3f", $2 + $3 }' "$tmp/rss")
    else
        "$tasknet" run "$cfg" --set system.nodes="$nodes" --set workload.messages="$msgs" "$@" --out "$out" -q -j 1
        rss=NA
        cpu=""
    fi
    # the memory tasknet estimates for the run before running it (what -j and
    # TASKNET_MEMORY are checked against), beside the peak it reached
    est=$("$tasknet" analyze "$cfg" --json --set system.nodes="$nodes" --set workload.messages="$msgs" "$@" |
        sed -n 's/.*"run_memory_bytes":\([0-9.e+]*\).*/\1/p' | awk '{ printf "%.1f", $1 / 1048576 }')
    awk -F, -v name="$name" -v nodes="$nodes" -v rss="$rss" -v cpu="$cpu" -v est="${est:-NA}" '
        FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        FILENAME ~ /runs.csv$/ { msgs = $col["messages_delivered"]; hops = ("hops_mean" in col) ? $col["hops_mean"] : ""
                                 tries = ("tries_per_packet_mean" in col) ? $col["tries_per_packet_mean"] : ""; next }
        { wall = $col["wall_s"]; ev = $col["events"] }
        END { t = cpu != "" && cpu > 0 ? cpu : wall
              printf "%-18s %7d %9d %8.3f %8.3f %11.4g %9.3f %8.3g %7s %7s %8s %7s\n", name, nodes, msgs, wall, t,
              msgs / t, t / msgs * 1e6, ev / t, hops == "" ? "-" : sprintf("%.2f", hops),
              tries == "" ? "-" : sprintf("%.3f", tries), rss, est }' \
        "$out/runs.csv" "$out/timing.csv"
}

header() {
    printf "%-18s %7s %9s %8s %8s %11s %9s %8s %7s %7s %8s %7s\n" fabric nodes messages wall_s cpu_s msgs_per_s \
        us_per_msg events_s hops tries peak_MiB est_MiB
}

counting="" large=""
if [ "$quick" = "--quick" ]; then
    m64=20 m4k=2 sizes="256 4096" sizes16="256 4096" total=65536
elif [ "$quick" = "--instructions" ]; then
    command -v valgrind >/dev/null || { echo "topologies.sh: --instructions needs valgrind" >&2; exit 1; }
    counting=1 sizes="256 4096 65536" sizes16="256 4096 65536" total=65536
elif [ "$quick" = "--large" ]; then
    large=1 sizes="16384 65536 262144" sizes16="" total=2097152
else
    m64=200 m4k=20 sizes="256 1024 4096 16384 65536" sizes16="256 4096 65536" total=524288
fi

# SPINet's optics at 100 Gb/s over 8 wavelengths need SOAs that make up
# each stage's loss (8 dB for 7.95 dB) to close 12 or 16 stages
spinet="--set network.type=spinet --set network.phy.soa-gain=8dB"

if [ -z "$counting" ] && [ -z "$large" ]; then
    echo "== switched fabrics: uniform random at 64 and 4096 nodes (10% load, 1kB messages)"
    header
    run electrical-switch 64 $m64
    run spinet 64 $m64 $spinet
    run torus-4x4x4 64 $m64 --set network.type=torus --set "network.dims=4 4 4"
    run fat-tree-4ary3 64 $m64 --set network.type=fat-tree --set network.arity=4 --set network.levels=3
    run leaf-spine-8x8 64 $m64 --set network.type=leaf-spine --set network.leaves=8 --set network.hosts-per-leaf=8 \
        --set network.spines=8
    run dragonfly-4.4.4.3 64 $m64 --set network.type=dragonfly --set network.groups=4 --set network.routers-per-group=4 \
        --set network.hosts-per-router=4 --set network.global-links=3
    run electrical-switch 4096 $m4k
    run spinet 4096 $m4k $spinet
    run torus-16x16x16 4096 $m4k --set network.type=torus --set "network.dims=16 16 16"
    run fat-tree-16ary3 4096 $m4k --set network.type=fat-tree --set network.arity=16 --set network.levels=3
    run leaf-spine-64x64 4096 $m4k --set network.type=leaf-spine --set network.leaves=64 --set network.hosts-per-leaf=64 \
        --set network.spines=64
    run dragonfly-16.16.16 4096 $m4k --set network.type=dragonfly --set network.groups=16 \
        --set network.routers-per-group=16 --set network.hosts-per-router=16 --set network.global-links=15
fi

# one_run NODES MESSAGES_PER_NODE SET...: "cpu_s peak_MiB work" of one run
# (work: hops_mean, or tries_per_packet_mean on SPINet, or -)
one_run() {
    nodes=$1 msgs=$2
    shift 2
    runs=$((runs + 1))
    out="$tmp/run$runs"
    if [ -n "$counting" ]; then
        # instructions in millions where the CPU time goes, in the same columns
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$tasknet" run "$cfg" --set system.nodes="$nodes" \
            --set workload.messages="$msgs" "$@" --out "$out" -q -j 1 2>"$tmp/vg"
        awk '/Collected :/ { printf "0 %.6f 0\n", $4 / 1e6 }' "$tmp/vg" >"$tmp/rss"
    else
        "$gnutime" -f "%M %U %S" -o "$tmp/rss" "$tasknet" run "$cfg" --set system.nodes="$nodes" \
            --set workload.messages="$msgs" "$@" --out "$out" -q -j 1
    fi
    work=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { if ("tries_per_packet_mean" in col) print $col["tries_per_packet_mean"];
          else if ("hops_mean" in col) print $col["hops_mean"]; else print "-" }' "$out/runs.csv")
    awk -v w="$work" '{ printf "%.3f %.1f %s\n", $2 + $3, $1 / 1024, w }' "$tmp/rss"
    rm -rf "$out"
}

# scale NAME NODES SET...: the marginal row of one size (see the head)
scale() {
    name=$1 nodes=$2
    shift 2
    per=$((total / nodes))
    [ "$per" -ge 1 ] || per=1
    r1=$(one_run "$nodes" "$per" "$@")
    r2=$(one_run "$nodes" $((2 * per)) "$@")
    echo "$name $nodes $((per * nodes)) $r1 $r2" >>"$tmp/scale"
    # the last row, with its growth from the first row of the same fabric
    awk '{ name = $1; n = $2; m = $3; t = ($7 - $4) / m * 1e6; w = $9; mem = $8; lg = log(n) / log(2)
           if (!(name in t0)) { t0[name] = t; w0[name] = w; l0[name] = lg; tp = t; lp = lg }
           else { tp = tl[name]; lp = ll[name] }
           tl[name] = t; ll[name] = lg }
         END { unit = w == "-" ? "-" : sprintf("%.3f", t / w)
               printf "%-16s %7d %9d %10.3f %7s %9s %8.2f %8s %7.2f %7.2f %7.2f %8.1f\n", name, n, m, t,
                      w == "-" ? "-" : sprintf("%.2f", w), unit,
                      t / t0[name], w == "-" ? "-" : sprintf("%.2f", w / w0[name]), lg / l0[name],
                      t / tp, lg / lp, mem }' "$tmp/scale"
}

if [ -n "$counting" ]; then
    echo "== scaling: marginal instructions per message (callgrind), $total messages more; us_per_msg and"
    echo "   us_per_work read as instructions per message and per unit of work; peak_MiB not measured"
else
    echo "== scaling: marginal CPU time per message, $total messages more (see the head; work: hops, or SPINet's"
    echo "   tries per packet; growth from the smallest size of each fabric)"
fi
if [ -z "$gnutime" ] && [ -z "$counting" ]; then
    echo "GNU time (/usr/bin/time) is needed for the scaling part"
    exit 0
fi
printf "%-16s %7s %9s %10s %7s %9s %8s %8s %7s %7s %7s %8s\n" fabric nodes messages us_per_msg work us_per_work \
    growth work_gr log2N_gr step_gr step_lg peak_MiB
: >"$tmp/scale"
for n in $sizes; do
    scale electrical-switch "$n"
done
for n in $sizes; do
    scale spinet "$n" $spinet
done
# at 1% load SPINet's tries per packet stay near 1 at every size: its work
# per message is then the stages a try crosses, log2 N
for n in $sizes; do
    scale spinet-1% "$n" $spinet --set workload.offered-load=0.01
done
for n in $sizes; do
    levels=$(awk -v n="$n" 'BEGIN { l = 0; while (n > 1) { n /= 4; l++ }; print l }')
    scale fat-tree-4ary "$n" --set network.type=fat-tree --set network.arity=4 --set network.levels="$levels"
done
for n in $sizes16; do
    levels=$(awk -v n="$n" 'BEGIN { l = 0; while (n > 1) { n /= 16; l++ }; print l }')
    scale fat-tree-16ary "$n" --set network.type=fat-tree --set network.arity=16 --set network.levels="$levels"
done
# the verdict, per fabric from its smallest to its largest size: the growth
# of what the rows count per message (instructions with --instructions, CPU
# time otherwise) against log2 N's, and beside it the growth of its work
# (hops or tries): a k-ary n-tree's mean hops, about 2 log_k N - 1.7, are
# O(log N) but grow faster than log N itself (6.37 -> 14.33 for the 4-ary
# tree from 256 to 65,536 ports, 2.25x), so a cost per message that grows
# as the hops do is said so, with the growth per hop
echo "== growth per message from the smallest size to the largest, against log2 N's"
awk '{ t = ($7 - $4) / $3; lg = log($2) / log(2)
       if (!($1 in t0)) { order[++n] = $1; t0[$1] = t; n0[$1] = $2; l0[$1] = lg; w0[$1] = $9 }
       t1[$1] = t; n1[$1] = $2; l1[$1] = lg; w1[$1] = $9 }
     END { for (i = 1; i <= n; i++) { f = order[i]; g = t1[f] / t0[f]; l = l1[f] / l0[f]
             work = w0[f] != "-" && w0[f] > 0; wg = work ? w1[f] / w0[f] : 0
             v = g <= l ? "no faster than log N" : \
                 work && g / wg <= l ? sprintf("as its work, x%.2f per unit of work", g / wg) : "faster than log N"
             printf "%-16s %7d -> %7d: x%.2f, log2 N x%.2f%s: %s\n", f, n0[f], n1[f], g, l,
                    work ? sprintf(", work x%.2f", wg) : "", v } }' "$tmp/scale"
