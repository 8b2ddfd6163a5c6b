#!/bin/sh
# Web-search flows at 50 % load on 8 hosts of one 10 Gb/s switch (10-us
# links, 1500-B packets, 300-kB drop-tail ports, ECN at 97.5 kB for dctcp),
# TCP NewReno and DCTCP, the same flow list in tasknet and in a peer
# simulator: wall and CPU time of each, interleaved, and the speed ratio
# (issue 22's speed target: tasknet at least 50x faster than ns-3).
#
#   bench/websearch-ns3.sh TASKNET [--peer PROGRAM] [--flows N] [--rounds R]
#                          [--transports "tcp dctcp"] [--list FILE] [--out DIR]
#
# TASKNET is the tasknet program. The flow list is drawn once by
# bench/flow-list.py (web-search sizes, Poisson at load 0.5 per host,
# uniform destinations, --flows N flows, default 2000, seed 1) unless --list
# gives one. PROGRAM is your own ns-3 (or other) scenario program, built
# outside this repository; it is run as
#     PROGRAM --flows=LIST --tcp=newreno|dctcp > DIR/peer-T-R.txt
# and must build the same scenario from the same CSV (start_s,src,dst,bytes).
# Without --peer only tasknet is timed. Each round runs tasknet then the peer
# for each transport (interleaved: both see the same machine load); printed
# per run: wall_s, cpu_s (user + sys); then per transport the medians and
# the ratios peer / tasknet. CPU time is the fairer figure on a shared
# machine; the target is stated on wall time, so both are printed.
# tasknet's FCTs per size bucket are in DIR/tasknet-T-R/summary.csv.
set -eu

usage() {
    sed -n '8,9p' "$0" | sed 's/^# *//' >&2
    exit 1
}

tasknet=${1:-}
[ -n "$tasknet" ] || usage
shift
srcdir=$(cd "$(dirname "$0")/.." && pwd)
peer= flows=2000 rounds=1 transports="tcp dctcp" list= out=
while [ $# -gt 0 ]; do
    case $1 in
    --peer) peer=$2; shift 2 ;;
    --flows) flows=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --transports) transports=$2; shift 2 ;;
    --list) list=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) usage ;;
    esac
done
[ -x "$tasknet" ] || { echo "websearch-ns3: $tasknet is not a program" >&2; exit 1; }
[ -z "$peer" ] || [ -x "$peer" ] || { echo "websearch-ns3: peer $peer is not a program" >&2; exit 1; }
out=${out:-$(mktemp -d /tmp/websearch-ns3.XXXXXX)}
mkdir -p "$out"
if [ -z "$list" ]; then
    list=$out/flows.csv
    python3 "$srcdir/bench/flow-list.py" --cdf "$srcdir/configs/data/pfabric_websearch_snkas_cdf.csv" \
        --hosts 8 --load 0.5 --rate 10e9 --flows "$flows" --seed 1 > "$list"
fi
list=$(cd "$(dirname "$list")" && pwd)/$(basename "$list")

# wall_s cpu_s of one command, its output in $2
timed() {
    log=$1
    shift
    /usr/bin/time -f '%e %U %S' -o "$log.time" "$@" > "$log" 2> "$log.err" || {
        echo "websearch-ns3: failed: $* (see $log.err)" >&2
        exit 1
    }
    awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$log.time"
}

for t in $transports; do
    cat > "$out/websearch-$t.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<tasknet version="1">
  <system nodes="8"/>
  <network type="electrical-switch" bandwidth="10Gb/s" link-latency="10us" switch-latency="0s" mtu="1500B"
           buffer="300kB" ecn-threshold="97.5kB"/>
  <transport type="$t" init-cwnd="10" min-rto="1s" delayed-ack="2" delayed-ack-timeout="200ms"/>
  <workload type="dc-flows" flow-list="$list" small-max="100kB" large-min="10MB"/>
  <run replicas="1" seed="1"/>
</tasknet>
XML
done

: > "$out/times.txt"
echo "flow list: $list ($(grep -c '^[0-9.]' "$list") flows); results in $out"
r=1
while [ "$r" -le "$rounds" ]; do
    for t in $transports; do
        rm -rf "$out/tasknet-$t-$r"
        set -- $(timed "$out/tasknet-$t-$r.log" "$tasknet" run "$out/websearch-$t.xml" -o "$out/tasknet-$t-$r")
        echo "round $r $t tasknet wall_s $1 cpu_s $2"
        echo "$t tasknet $1 $2" >> "$out/times.txt"
        if [ -n "$peer" ]; then
            pt=newreno
            [ "$t" = dctcp ] && pt=dctcp
            set -- $(timed "$out/peer-$t-$r.txt" "$peer" --flows="$list" --tcp=$pt)
            echo "round $r $t peer wall_s $1 cpu_s $2"
            echo "$t peer $1 $2" >> "$out/times.txt"
        fi
    done
    r=$((r + 1))
done

median() { sort -n | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for t in $transports; do
    tw=$(awk -v t=$t '$1 == t && $2 == "tasknet" {print $3}' "$out/times.txt" | median)
    tc=$(awk -v t=$t '$1 == t && $2 == "tasknet" {print $4}' "$out/times.txt" | median)
    echo "$t tasknet median wall_s $tw cpu_s $tc"
    if [ -n "$peer" ]; then
        pw=$(awk -v t=$t '$1 == t && $2 == "peer" {print $3}' "$out/times.txt" | median)
        pc=$(awk -v t=$t '$1 == t && $2 == "peer" {print $4}' "$out/times.txt" | median)
        echo "$t peer median wall_s $pw cpu_s $pc"
        awk -v a="$pw" -v b="$tw" -v c="$pc" -v d="$tc" -v t=$t \
            'BEGIN {printf "%s speed ratio peer/tasknet: wall %.1fx, cpu %.1fx\n", t, a / b, c / d}'
    fi
done
