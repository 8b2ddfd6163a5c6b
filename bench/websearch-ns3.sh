#!/bin/sh
# Web-search flows at 50 % load on 8 hosts of one 10 Gb/s switch (10-us
# links, 1500-B packets, 300-kB drop-tail ports, ECN at 97.5 kB for dctcp),
# TCP NewReno and DCTCP, the same flow list in tasknet and in a peer
# simulator: wall and CPU time of each, interleaved, and the speed ratio
# (issue 22's speed target: tasknet at least 50x faster than ns-3).
#
#   bench/websearch-ns3.sh TASKNET [--peer PROGRAM] [--flows N] [--rounds R]
#                          [--transports "tcp dctcp"] [--list FILE] [--out DIR]
#                          [--min-rto T] [--delack-timeout T] [--match-ns3]
#                          [--seed S] [--perturb N] [--variant rfc|ns-3]
#
# TASKNET is the tasknet program. The flow list is drawn once by
# bench/flow-list.py (web-search sizes, Poisson at load 0.5 per host,
# uniform destinations, --flows N flows, default 2000, --seed S, default 1)
# unless --list gives one; a second flow list of the same load (--seed 2)
# tells a flow list's noise from a systematic difference (the p99 of the
# >= 10 MB bucket rests on its 2 slowest flows of ~67: bench/flow-compare.py
# pools runs of several seeds). PROGRAM is your own ns-3 (or other) scenario program, built
# outside this repository; it is run as
#     PROGRAM --flows=LIST --tcp=newreno|dctcp > DIR/peer-T-R.txt
# and must build the same scenario from the same CSV (start_s,src,dst,bytes).
# --min-rto T (default 1s, RFC 6298's) and --delack-timeout T (default
# 200ms) set both simulators' (the peer gets --minrto=S --delack=S when they
# are not the defaults); tasknet's initial-rto is set to the min-rto, as a
# connection opened before its flow starts has an RTT sample from its
# handshake, so its RTO is already max(min-rto, SRTT + 4 RTTVAR) = min-rto.
# --match-ns3 builds what ns-3's point-to-point scenario simulates, in
# tasknet's terms: PPP's 2-byte header on every frame (transport.header
# 42 B: 1502-B segments, 42-B ACKs on the wire, so network.mtu 1502 B: with
# 1500 every segment would be cut into a 1500-B and a 2-B packet that the
# switch queues, marks and drops one by one), store-and-forward (ns-3's
# PointToPointChannel hands a frame to the switch when its last bit
# arrives: a segment's round trip is 1.2 us longer than cut-through's), the
# receiver's immediate ACK of a connection's first data segment
# (transport.quick-ack 1: TcpSocketBase::ProcessSynRcvd sets m_delAckCount
# to DelAckCount, "always respond to first data packet"), the device's one-packet
# TX queue beside the 200-packet queue disc (buffer 201 x 1502 B), DCTCP's
# K = 65 packets of the queue disc (66 waiting in all: 66 x 1502 B),
# DCTCP's window growth per segment acked (growth="linux": ns-3's TcpDctcp
# is a TcpLinuxReno), and limited transmit (RFC 3042: ns-3's
# TcpSocketBase::LimitedTransmit, on by default in ns-3 3.37 and ns-3-dev);
# without it: 1500-B packets, 300 kB, 97.5 kB, reno, no limited transmit.
# The peer program is expected to turn SACK off (tasknet's transport.sack
# stays off here; ns-3's default is on).
# DCTCP's marking must be the same step in the peer: every ECN-capable
# arrival that finds K bytes or more queued is marked (tasknet's
# network.ecn-threshold; RFC 8257 sec. 3.1). ns-3's RedQueueDisc does that
# with MinTh = MaxTh = K, QW 1, UseEcn and Gentle false; with its default
# Gentle = true it marks between MaxTh and 2 MaxTh only with a probability
# rising from 1/LInterm = 0.02, and never the first arrival above MinTh, so
# the queue runs up towards 2 K (an 8-to-1 incast of 1 MB flows peaks above
# 200 packets instead of ~110, and drops).
# Per-flow FCTs: a traced tasknet run (DIR/tasknet-T-1.json, untimed) against
# the peer's round-1 output, per size bucket (bench/flow-compare.py), when
# the peer writes `id src dst bytes start_s handshake_s fct_s` lines; if its
# stderr (DIR/peer-T-1.txt.err) has per-flow counter lines `F id rtos
# recoveries retransmissions drops marks [ack_drops]`, they are summed per
# bucket beside tasknet's totals of the traced run.
# --perturb N (default 1): N traced tasknet runs instead of one, the link
# latency moved by 0, +1, -1, +2, -2, ... ns (the N-th run by
# +-ceil((N-1)/2) ns at most), compared pooled against the peer's one run.
# One flow list's p99 is chaotic: in a deterministic simulator a 1-ns move
# of every link (0.01 %) shifts which packets a full queue drops (phase
# effects) and so which flows wait an RTO; on ws2000.csv it moves a
# bucket's DCTCP p99 by up to 47 % and a bucket mean by up to 23 %. The
# pooled tasknet column is the scenario's, not one phase's; the peer has
# the same noise in its one run (its event times are whole ns: a 1502-B
# frame at 10 Gb/s takes 1,202 ns in ns-3, 1,201.6 in tasknet).
# --variant V sets dctcp's transport.variant (default rfc, RFC 8257; ns-3
# imitates ns-3 3.37's TcpDctcp: networks/tp_dctcp.c's head), for comparing
# with ns-3 as shipped; tcp runs are not affected.
# Without --peer only tasknet is timed. Each round runs tasknet then the peer
# for each transport (interleaved: both see the same machine load); printed
# per run: wall_s, cpu_s (user + sys); then per transport the medians and
# the ratios peer / tasknet. CPU time is the fairer figure on a shared
# machine; the target is stated on wall time, so both are printed.
# tasknet's FCTs per size bucket are in DIR/tasknet-T-R/summary.csv.
set -eu

usage() {
    sed -n '8,12p' "$0" | sed 's/^# *//' >&2
    exit 1
}

tasknet=${1:-}
[ -n "$tasknet" ] || usage
shift
srcdir=$(cd "$(dirname "$0")/.." && pwd)
peer= flows=2000 rounds=1 transports="tcp dctcp" list= out= minrto=1s delack=200ms match=0 seed=1 perturb=1 variant=rfc
while [ $# -gt 0 ]; do
    case $1 in
    --peer) peer=$2; shift 2 ;;
    --flows) flows=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --transports) transports=$2; shift 2 ;;
    --list) list=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --min-rto) minrto=$2; shift 2 ;;
    --delack-timeout) delack=$2; shift 2 ;;
    --match-ns3) match=1; shift ;;
    --seed) seed=$2; shift 2 ;;
    --perturb) perturb=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
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
        --hosts 8 --load 0.5 --rate 10e9 --flows "$flows" --seed "$seed" > "$list"
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

# seconds of a time for the peer's command line (tasknet reads the units itself)
secs() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.eE+-]+/, "", u)
        f = u == "s" || u == "" ? 1 : u == "ms" ? 1e-3 : u == "us" ? 1e-6 : u == "ns" ? 1e-9 : -1
        if (f < 0) { print "bad time " v > "/dev/stderr"; exit 1 }
        printf "%.9g\n", n * f }'
}
peerargs=
[ "$minrto" = 1s ] || peerargs="$peerargs --minrto=$(secs "$minrto")"
[ "$delack" = 200ms ] || peerargs="$peerargs --delack=$(secs "$delack")"
buf=300kB k=97.5kB hdr=40B lt=off mtu=1500B netx= tpx=
if [ "$match" = 1 ]; then
    buf=301902B k=99132B hdr=42B lt=on mtu=1502B
    netx=' switching="store-and-forward"'
    tpx=' quick-ack="1"'
fi
for t in $transports; do
    growth=reno vx=
    [ "$match" = 1 ] && [ "$t" = dctcp ] && growth=linux
    [ "$t" = dctcp ] && [ "$variant" != rfc ] && vx=" variant=\"$variant\""
    cat > "$out/websearch-$t.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<tasknet version="1">
  <system nodes="8"/>
  <network type="electrical-switch" bandwidth="10Gb/s" link-latency="10us" switch-latency="0s" mtu="$mtu"
           buffer="$buf" ecn-threshold="$k"$netx/>
  <transport type="$t" init-cwnd="10" min-rto="$minrto" initial-rto="$minrto" delayed-ack="2"
             delayed-ack-timeout="$delack" header="$hdr" growth="$growth" limited-transmit="$lt"$tpx$vx/>
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
            set -- $(timed "$out/peer-$t-$r.txt" "$peer" --flows="$list" --tcp=$pt $peerargs)
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
if [ -n "$peer" ]; then
    for t in $transports; do
        # the per-flow trace from a run of its own, outside the timed rounds
        "$tasknet" run "$out/websearch-$t.xml" -q -o "$out/tasknet-$t-trace" --trace "$out/tasknet-$t-1.json"
        counters=
        grep -q '^F [0-9]' "$out/peer-$t-1.txt.err" 2> /dev/null && counters="--peer-counters $out/peer-$t-1.txt.err"
        python3 "$srcdir/bench/flow-compare.py" --tasknet "$out/tasknet-$t-1.json" --peer "$out/peer-$t-1.txt" \
            --list "$list" --title "$t, tasknet vs peer" --tasknet-runs "$out/tasknet-$t-trace/runs.csv" $counters || true
        if [ "$perturb" -gt 1 ]; then
            set -- --tasknet "$out/tasknet-$t-1.json" --peer "$out/peer-$t-1.txt" --list "$list"
            i=1
            while [ "$i" -lt "$perturb" ]; do
                d=$(( (i + 1) / 2 * 1000 ))
                [ $((i % 2)) = 0 ] && d=$((-d))
                p=$out/tasknet-$t-lat$d
                sed "s|link-latency=\"10us\"|link-latency=\"$((10000000 + d))ps\"|" "$out/websearch-$t.xml" > "$p.xml"
                "$tasknet" run "$p.xml" -q -o "$p" --trace "$p.json"
                set -- "$@" --tasknet "$p.json" --peer "$out/peer-$t-1.txt" --list "$list"
                i=$((i + 1))
            done
            python3 "$srcdir/bench/flow-compare.py" "$@" \
                --title "$t, tasknet pooled over $perturb link latencies (10 us +- 0..$(( perturb / 2 )) ns) vs peer" || true
        fi
    done
fi
