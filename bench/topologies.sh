#!/bin/sh
# Switched fabrics, one table row per run:
#  1. uniform random on each topology (and the single switch and SPINet for
#     reference) at 64 and 4,096 nodes: messages/s (simulated messages per
#     wall second) and peak memory;
#  2. SPINet and the fat tree (4-ary and 16-ary n-trees) from 256 to 65,536 ports with
#     as many messages per node: wall time per message against log2 N (it
#     must grow no faster: a message crosses log N stages or 2 log4 N - 1
#     switches) and peak memory (under 1 GB at 65,536).
#   bench/topologies.sh BUILDDIR [--quick]
# Rates are per CPU second of the whole process (GNU time's user + system,
# set-up included: wall times on shared machines are noisy; wall_s is the
# simulation's own); peak memory is GNU time's.
set -eu
builddir=${1:?usage: topologies.sh BUILDDIR [--quick]}
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
    awk -F, -v name="$name" -v nodes="$nodes" -v rss="$rss" -v cpu="$cpu" '
        FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        FILENAME ~ /runs.csv$/ { msgs = $col["messages_delivered"]; hops = ("hops_mean" in col) ? $col["hops_mean"] : ""
                                 tries = ("tries_per_packet_mean" in col) ? $col["tries_per_packet_mean"] : ""; next }
        { wall = $col["wall_s"]; ev = $col["events"] }
        END { t = cpu != "" && cpu > 0 ? cpu : wall
              printf "%-18s %7d %9d %8.3f %8.3f %11.4g %9.3f %8.3g %7s %7s %6s\n", name, nodes, msgs, wall, t,
              msgs / t, t / msgs * 1e6, ev / t, hops == "" ? "-" : sprintf("%.2f", hops),
              tries == "" ? "-" : sprintf("%.3f", tries), rss }' \
        "$out/runs.csv" "$out/timing.csv"
}

header() {
    printf "%-18s %7s %9s %8s %8s %11s %9s %8s %7s %7s %6s\n" fabric nodes messages wall_s cpu_s msgs_per_s \
        us_per_msg events_s hops tries peak_MiB
}

if [ "$quick" = "--quick" ]; then
    m64=20 m4k=2 sizes="256 4096" sizes16="256 4096"
else
    m64=200 m4k=20 sizes="256 1024 4096 16384 65536" sizes16="256 4096 65536"
fi

# SPINet's optics at 100 Gb/s over 8 wavelengths need SOAs that make up
# each stage's loss (8 dB for 7.95 dB) to close 12 or 16 stages
spinet="--set network.type=spinet --set network.phy.soa-gain=8dB"

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

echo "== scaling: SPINet and k-ary n-trees, 16 messages per node (hops: switches a message crosses;"
echo "   tries: SPINet's transmissions per packet; the single switch is the engine and workload alone)"
header
for n in $sizes; do # the engine and the workload alone: 3 events per message
    run electrical-switch "$n" 16
done
for n in $sizes; do
    run spinet "$n" 16 $spinet
done
for n in $sizes; do
    levels=$(awk -v n="$n" 'BEGIN { l = 0; while (n > 1) { n /= 4; l++ }; print l }')
    run fat-tree-4ary "$n" 16 --set network.type=fat-tree --set network.arity=4 --set network.levels="$levels"
done
for n in $sizes16; do
    levels=$(awk -v n="$n" 'BEGIN { l = 0; while (n > 1) { n /= 16; l++ }; print l }')
    run fat-tree-16ary "$n" 16 --set network.type=fat-tree --set network.arity=16 --set network.levels="$levels"
done
