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
# recdbl with timed levels. With -j 2 the workers hand their pools to the
# main process (out/.pool-PID, app/sweep/sweep_fork.c): the files' pass
# takes exactly as many mappings from pools as with -j 1 (the trace
# TASKNET_POOL_TRACE prints), all of them without drawn failures, and the
# pool files are gone afterwards.
set -u
top_srcdir=${top_srcdir:-..}
top_builddir=${top_builddir:-..}
bin=$top_builddir/tasknet
src=$(cd "$top_srcdir" && pwd) # a network.file is read relative to its configuration
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
one() { # name nodes network-attributes routings pattern timing pooled(all|some)
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
        j1) TASKNET_POOL_TRACE=1 "$bin" run "$tmp/$name.xml" -q -j 1 --out "$tmp/$name-$how" >/dev/null \
                2>"$tmp/$name-$how.trace" ;;
        j2) TASKNET_POOL_TRACE=1 "$bin" run "$tmp/$name.xml" -q -j 2 --out "$tmp/$name-$how" >/dev/null \
                2>"$tmp/$name-$how.trace" ;;
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
    # the pools: two points (the routings), as many mappings from pools
    # with -j 2 as with -j 1, every one without drawn failures
    grep 'from the runs' "$tmp/$name-j1.trace" >"$tmp/$name-j1.pool"
    grep 'from the runs' "$tmp/$name-j2.trace" >"$tmp/$name-j2.pool"
    [ "$(wc -l <"$tmp/$name-j1.pool")" -eq 2 ] && cmp -s "$tmp/$name-j1.pool" "$tmp/$name-j2.pool" ||
        { echo "FAIL $name: -j 2 takes other mappings from pools than -j 1:"; cat "$tmp/$name-j1.pool" \
              "$tmp/$name-j2.pool"; fail=1; }
    if [ "$7" = all ] && grep -qv ': 5 of 5 mappings' "$tmp/$name-j2.pool"; then
        echo "FAIL $name: -j 2 evaluates mappings its workers pooled:"; cat "$tmp/$name-j2.pool"; fail=1
    fi
    ! ls -a "$tmp/$name-j2" | grep -q pool || { echo "FAIL $name: pool files left in the folder"; fail=1; }
    [ $fail -eq 0 ] && echo "ok $name"
}
one ft3-failed 128 'type="fat-tree" ports="8" failed-links="3"' "d-mod-k random-up" bruck off some
one ft3 128 'type="fat-tree" ports="8"' "d-mod-k random-up" bruck off all
one graph 16 "type=\"graph\" file=\"$src/configs/data/fabric.dot\"" "up-down shortest" bruck off all
one graph-failed 16 "type=\"graph\" file=\"$src/configs/data/fabric.dot\" failed-links=\"2\"" "up-down shortest" bruck off some
one graph-timed 16 "type=\"graph\" file=\"$src/configs/data/fabric.dot\"" "up-down shortest" recdbl on all
exit $fail
