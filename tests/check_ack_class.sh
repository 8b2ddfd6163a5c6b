#!/bin/sh
# workload.ack-class (issue 22): the class a workload's ACKs travel in, over
# the run's transport.ack-class. Two dc-flows workloads (classes 0 and 2) on
# a strict-priority switch with 300-kB buffers, tcp: naming every
# workload's ACK class is the same as naming it for the run, so
#   run ack-class 1, both workloads "data"  ==  run ack-class data (default)
#   run default, both workloads "1"          ==  run ack-class 1
#   run ack-class 1, both workloads "inherit" == run ack-class 1
# (every column of runs.csv but config_hash and row_fnv1a64), while
# run ack-class 1 differs from the default (ACKs in class 1 move results).
set -u
top_builddir=${top_builddir:-..}
bin=$top_builddir/tasknet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mk() { # name run-ack workload-ack
    cat >"$tmp/$1.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<tasknet version="1">
  <system nodes="4"/>
  <network type="electrical-switch" bandwidth="10Gb/s" link-latency="10us" switch-latency="0s"
           priority="strict" host-scheduling="priority" mtu="1500B" buffer="300kB"/>
  <transport type="tcp" min-rto="10ms" $2/>
  <workload name="a" type="dc-flows" nodes="0-3" priority="0" sizes="websearch" flow-rate="200/s"
            destinations="uniform" duration="0.1s" $3/>
  <workload name="b" type="dc-flows" nodes="0-3" priority="2" sizes="websearch" flow-rate="200/s"
            destinations="uniform" duration="0.1s" $3/>
  <run replicas="1" seed="3"/>
</tasknet>
XML
    if ! "$bin" run "$tmp/$1.xml" -q -j 1 --out "$tmp/out-$1" >"$tmp/$1.log" 2>&1; then
        echo "FAIL $1: tasknet run exited non-zero:"
        cat "$tmp/$1.log"
        fail=1
    fi
}
rows() { # runs.csv without the two hash columns
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "config_hash" || $i == "row_fnv1a64") skip[i] = 1 }
             { row = ""; for (i = 1; i <= NF; i++) if (!(i in skip)) row = row "," $i; print row }' "$tmp/out-$1/runs.csv"
}
same() { # want name-a name-b
    rows "$2" >"$tmp/$2.rows"
    rows "$3" >"$tmp/$3.rows"
    if cmp -s "$tmp/$2.rows" "$tmp/$3.rows"; then r=same; else r=different; fi
    if [ "$r" = "$1" ]; then echo "PASS $2 vs $3: $r"; else echo "FAIL $2 vs $3: $r, expected $1"; fail=1; fi
}
mk data '' ''
mk one 'ack-class="1"' ''
mk one_wl_data 'ack-class="1"' 'ack-class="data"'
mk data_wl_one '' 'ack-class="1"'
mk one_wl_inherit 'ack-class="1"' 'ack-class="inherit"'
same different data one
same same data one_wl_data
same same one data_wl_one
same same one one_wl_inherit
exit $fail
