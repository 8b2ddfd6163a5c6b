#!/bin/sh
# The pattern workload's congestion files (congestion_runs.csv,
# congestion_hist.csv, congestion_links.csv, congestion_links_P.dot) are
# the same whether the result files' pass evaluates every mapping itself
# (-j 2: the runs are made in worker processes) or takes the evaluations
# the runs made in its own process (-j 1: wl_pattern.c's pool), and
# whether the folder is made in one go or grown (2 replicas, then 5: the
# pool holds only replicas 2-4, the others are evaluated again). Fabrics:
# the 8-port three-tier fat tree with 3 failed links drawn per replica (so
# each replica's run routes around other links than the files' fabric,
# which draws replica 0's: their routes differ, the pool must not be taken
# for them) under both routings, and configs/data/fabric.dot read as a
# graph with up-down and shortest routing, also with 2 failed links drawn
# per replica (the graph draws its own). bruck, timing="off", and
# recdbl with timed levels.
set -u
top_srcdir=${top_srcdir:-..}
top_builddir=${top_builddir:-..}
bin=$top_builddir/tasknet
src=$(cd "$top_srcdir" && pwd) # a network.file is read relative to its configuration
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
one() { # name nodes network-attributes routings pattern timing
    name=$1
    cat >"$tmp/$name.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<tasknet version="1">
  <system nodes="$2"/>
  <network $3 bandwidth="40Gb/s" switch-latency="100ns" link-latency="20ns"/>
  <workload type="pattern" pattern="$5" message-size="4kB" timing="$6"/>
  <run replicas="5" seed="3"/>
  <sweep><axis param="network.routing" values="$4"/></sweep>
</tasknet>
XML
    for how in j1 j2 grown; do
        case $how in
        j1) "$bin" run "$tmp/$name.xml" -q -j 1 --out "$tmp/$name-$how" >/dev/null 2>&1 ;;
        j2) "$bin" run "$tmp/$name.xml" -q -j 2 --out "$tmp/$name-$how" >/dev/null 2>&1 ;;
        grown) "$bin" run "$tmp/$name.xml" -q -j 1 --replicas 2 --out "$tmp/$name-$how" >/dev/null 2>&1 &&
            "$bin" run "$tmp/$name.xml" -q -j 1 --out "$tmp/$name-$how" >/dev/null 2>&1 ;;
        esac || { echo "FAIL $name: tasknet run ($how) exited non-zero"; fail=1; return; }
    done
    for f in congestion_runs.csv congestion_hist.csv congestion_links.csv congestion_links_0.dot \
             congestion_links_1.dot runs.csv; do
        for how in j2 grown; do
            if ! cmp -s "$tmp/$name-j1/$f" "$tmp/$name-$how/$f"; then
                echo "FAIL $name: $f differs between -j 1 and $how"
                fail=1
            fi
        done
    done
    [ "$(wc -l <"$tmp/$name-j1/congestion_runs.csv")" -eq 11 ] ||
        { echo "FAIL $name: congestion_runs.csv lacks rows"; fail=1; }
    [ $fail -eq 0 ] && echo "ok $name"
}
one ft3-failed 128 'type="fat-tree" ports="8" failed-links="3"' "d-mod-k random-up" bruck off
one graph 16 "type=\"graph\" file=\"$src/configs/data/fabric.dot\"" "up-down shortest" bruck off
one graph-failed 16 "type=\"graph\" file=\"$src/configs/data/fabric.dot\" failed-links=\"2\"" "up-down shortest" bruck off
one graph-timed 16 "type=\"graph\" file=\"$src/configs/data/fabric.dot\"" "up-down shortest" recdbl on
exit $fail
