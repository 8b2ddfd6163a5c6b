#!/bin/sh
# The input-queued router's speed: packets per CPU second on BookSim2's
# 8x8 torus (64 nodes) and a 32x32 torus (1,024 nodes), DOR, 2 VCs, 1-flit
# packets, 8-flit buffers, bernoulli uniform traffic at 0.1 flits per cycle
# on the 8x8 and 0.05 on the 32x32 (below its saturation: BookSim2 reports
# no rates for an unstable run), 20,000 cycles (README "Router models" gives
# the unit mapping), and the same work on a BookSim2 binary if one is given
# (built by the user from its own sources, outside this repository; this
# script only writes its configuration). tasknet runs REPLICAS (default 5)
# replicas of that work, seeds 1.., so that its user time is not a few
# hundredths of a second; packets/s counts them all. The machine's other
# load moves user time by tens of percent: repeat and compare medians
# (callgrind's instruction counts are the deterministic figure).
# Usage: bench/iqrouter.sh [TASKNET] [BOOKSIM]
# Prints: fabric, tool, packets, user CPU s, packets/s.
set -eu
tn=${1:-./tasknet}
bs=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=${REPLICAS:-5}
for k in 8 32; do
    N=$((k * k))
    L=0.1
    [ "$k" = 32 ] && L=0.05
    cat > "$tmp/tn.xml" <<XML
<tasknet version="1">
  <system nodes="$N"/>
  <network type="torus" dims="$k $k" bandwidth="8Gb/s" link-latency="1ns" switch-latency="0ns" routing="dor"
           router="input-queued" flit-size="1B" switching="wormhole" host-link-latency="0ns"
           mtu="1B" vc-buffer="8B" vcs="1"/>
  <workload type="uniform-random" message-size="1B" offered-load="$L" duration="20us" injection="bernoulli"
            self-traffic="on"/>
  <run replicas="$R" seed="1"/>
</tasknet>
XML
    /usr/bin/time -f "%U" -o "$tmp/t" "$tn" run "$tmp/tn.xml" -o "$tmp/out$k" -q -j 1 >/dev/null
    pk=$(awk -F, 'NR==1 {for (i = 1; i <= NF; i++) if ($i == "messages_delivered") c = i} NR>1 {s += $c} END {print s}' "$tmp/out$k/runs.csv")
    u=$(tail -1 "$tmp/t")
    echo "torus ${k}x$k tasknet $pk $u $(echo "$pk / $u" | bc -l | cut -d. -f1)"
    if [ -n "$bs" ]; then
        cat > "$tmp/bs.cfg" <<CFG
topology = torus; k = $k; n = 2; routing_function = dim_order; traffic = uniform; num_vcs = 2;
vc_buf_size = 8; packet_size = 1; injection_rate = $L; seed = 1; sim_type = latency;
warmup_periods = 0; sample_period = 1000; max_samples = 20; stopping_thres = 0.0; acc_stopping_thres = 0.0;
CFG
        /usr/bin/time -f "%U" -o "$tmp/t" "$bs" "$tmp/bs.cfg" >"$tmp/bs.log" 2>&1 || true # BookSim2 exits 255 at the end
        cyc=$(grep "Time taken is" "$tmp/bs.log" | tail -1 | awk '{print $4}')
        rate=$(grep "Injected packet rate average = .*samples" "$tmp/bs.log" | tail -1 | awk '{print $6}')
        pk=$(echo "$rate * $N * $cyc" | bc -l | cut -d. -f1)
        u=$(tail -1 "$tmp/t")
        echo "torus ${k}x$k booksim2 $pk $u $(echo "$pk / $u" | bc -l | cut -d. -f1)"
    fi
done
