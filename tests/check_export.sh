#!/bin/sh
# Export then import (issue 21): `tasknet export-topology` of a parametric
# fabric, read back as <network type="graph" file=...>, gives the same
# results for the same seed: every column of runs.csv identical except
# config_hash (a fingerprint of the configuration's text, which names
# another network) and row_fnv1a64 (a checksum of the row, config_hash
# included). Fabrics: the 4-ary 2-tree (d-mod-k: destination tables), the
# 8x8 torus (dimension order; ties at 4 hops drawn per message: the file's
# lmc=3 paths) and the dragonfly of 9 groups of 4 routers, 1 host and 2
# global links each, minimal routing (the class counts global links: the
# file's vcstep=1 on them), and configs/examples/topologies.xml's dragonfly
# (4 groups of 4 routers, 4 hosts and 3 global links each, minimal: 4 global
# links per pair of groups, a message from x on slice x mod 4: the file's
# hosts carry path=k), and the single electrical switch under
# router="input-queued" (its one-switch topology; switch-latency 100 ns,
# given: the input-queued router adds it to st-delay on the switch and on
# the graph alike, iqrouter.c's "Switch latency"). Workload: uniform random
# at 0.6, 2 replicas.
set -u
top_srcdir=${top_srcdir:-..}
top_builddir=${top_builddir:-..}
bin=$top_builddir/tasknet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
one() { # name nodes network-attributes [rate-and-latency-attributes]
    name=$1
    common=${4:-'bandwidth="100Gb/s" switch-latency="100ns" link-latency="20ns"'}
    cat >"$tmp/$name.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<tasknet version="1">
  <system nodes="$2"/>
  <network $3 $common/>
  <workload type="uniform-random" message-size="4.096kB" offered-load="0.6" duration="20us"/>
  <run replicas="2" seed="7"/>
</tasknet>
XML
    if ! "$bin" export-topology "$tmp/$name.xml" >"$tmp/$name.dot" 2>"$tmp/$name.err" || [ -s "$tmp/$name.err" ]; then
        echo "FAIL $name: export-topology:"
        cat "$tmp/$name.err"
        fail=1
        return
    fi
    sed "s|<network $3|<network type=\"graph\" file=\"$name.dot\"|" "$tmp/$name.xml" >"$tmp/$name-graph.xml"
    for c in "$name" "$name-graph"; do
        if ! "$bin" run "$tmp/$c.xml" -q -j 1 --out "$tmp/out-$c" >"$tmp/$c.log" 2>&1; then
            echo "FAIL $c: tasknet run exited non-zero:"
            cat "$tmp/$c.log"
            fail=1
            return
        fi
    done
    # every column of the parametric fabric's runs.csv, by name, in the graph's (the graph may have more:
    # the switch has no hops_mean or lost_packets)
    if ! awk -F, -v name="$name" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i != "config_hash" && $i != "row_fnv1a64") { nc++; col[nc] = $i; at1[nc] = i }
                  next }
        FNR == 1 { for (i = 1; i <= NF; i++) at[$i] = i
                   for (k = 1; k <= nc; k++) if (!(col[k] in at)) { print "FAIL " name ": the graph has no column " col[k]; bad = 1 }
                   next }
        { row = ""; for (k = 1; k <= nc; k++) row = row "," $(NR == FNR ? at1[k] : at[col[k]]) }
        NR == FNR { want[FNR] = row; n = FNR; next }
        { if (want[FNR] != row) { print "FAIL " name ": row " FNR - 1 " differs:\n  " want[FNR] "\n  " row; bad = 1 }
          m = FNR }
        END { if (m != n || n < 3) { print "FAIL " name ": " n - 1 " and " m - 1 " rows"; bad = 1 } exit bad }
    ' "$tmp/out-$name/runs.csv" "$tmp/out-$name-graph/runs.csv"; then
        fail=1
    else
        echo "PASS $name: $(($(wc -l <"$tmp/out-$name/runs.csv") - 1)) runs identical"
    fi
}
one fattree 16 'type="fat-tree" arity="4" levels="2"'
one torus8x8 64 'type="torus" dims="8 8"'
one dragonfly 36 'type="dragonfly" groups="9" routers-per-group="4" hosts-per-router="1" global-links="2" routing="minimal"'
one dragonfly4 64 'type="dragonfly" groups="4" routers-per-group="4" hosts-per-router="4" global-links="3" routing="minimal"'
one switchiq 16 'type="electrical-switch"' 'router="input-queued" flow-control="credit" mtu="256B" flit-size="16B"
    host-link-latency="10ns" bandwidth="100Gb/s" switch-latency="100ns" link-latency="20ns"'
grep -q "path=1]" "$tmp/dragonfly4.dot" || { echo "FAIL dragonfly4: the file's hosts have no path"; fail=1; }
grep -q "lmc=3;" "$tmp/torus8x8.dot" || { echo "FAIL torus8x8: the file has no lmc=3"; fail=1; }
grep -q "vcstep=1" "$tmp/dragonfly.dot" || { echo "FAIL dragonfly: the file has no vcstep=1"; fail=1; }
exit $fail
