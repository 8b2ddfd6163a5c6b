#!/bin/sh
# tasknet's side of the input-queued router's comparison with BookSim2 (issue 24's Done-when):
# five fabrics, uniform traffic, loads from 0.05 to past saturation, 3 replicas each, measured as
# BookSim2 measures (warm-up, a measurement window, then a drain). It writes OUT/NAME/ (tasknet run
# folders) and prints per load: mean packet latency over the window in cycles (window_latency_s in
# ns: 1 cycle = 1 ns), the accepted rate (flits per cycle per node) and the share of replicas that
# hit the drain limit (saturated).
#
#   bench/booksim-compare.sh [--tasknet ./tasknet] [--out DIR] [--latency-mode] [--loads "L..."] [NAME...]
#   NAMEs: t2vc1f t8vc1f t2vc4f ft4vc df (default: these; df takes ~15 min of one core), and tval (8x8 torus,
#   Valiant) and ftanca (4-ary 3-tree, anca), only when named
#   --latency-mode: measure as BookSim2's sim_type = latency instead of the fixed window
#   (sample-period 1us = its 1000 cycles, latency-threshold 500ns = its latency_thres; a run over
#   it is `saturated`, BookSim2's "unstable"): the saturation load compares one to one.
#   --loads: these offered loads instead of each configuration's own.
#
# BookSim2's side is not run here (nothing of it is shipped): build it from its public source
# (github.com/booksim/booksim2, commit 28f43299 was used; its own Makefile, needs flex and bison)
# and run `booksim FILE` on each configuration below, with `injection_rate = R; seed = S;` added
# for R the loads below and S = 1, 2, 3; read "Packet latency average ... (1 samples)" and
# "Accepted flit rate average ... (1 samples)" at the end of its output, or "unstable".
#
#   t2vc1f, t8vc1f, t2vc4f (8x8 torus; BookSim2 defaults: iSLIP, 1 iteration, routing, VC-alloc,
#   SW-alloc and crossbar delays 1 cycle, credit_delay 0, channels 2 cycles (use_noc_latency),
#   injection and ejection channels 1 cycle, sample_period 1000, warmup_periods 3):
#       topology = torus; k = 8; n = 2; routing_function = dim_order; traffic = uniform;
#       sim_type = latency; vc_buf_size = 8;
#       num_vcs = 2; packet_size = 1;                                 (t2vc1f)
#       num_vcs = 8; packet_size = 1;                                 (t8vc1f)
#       num_vcs = 2; packet_size = 4; injection_rate_uses_flits = 1;  (t2vc4f)
#   ft4vc (4-ary 3-tree; every channel 1 cycle, fattree.cpp):
#       topology = fattree; k = 4; n = 3; routing_function = nca; traffic = uniform;
#       sim_type = latency; vc_buf_size = 8; num_vcs = 4; packet_size = 1;
#   tval (8x8 torus, valiant; 4 VCs = tasknet's 4 classes x vcs 1; 28f43299's valiant_torus leaves ring_part
#   uninitialised and aborts: initialise it to f->ph % 2 in routefunc.cpp's valiant_torus to run it):
#       topology = torus; k = 8; n = 2; routing_function = valiant; traffic = uniform;
#       sim_type = latency; vc_buf_size = 8; num_vcs = 4; packet_size = 1;
#   ftanca (4-ary 3-tree, adaptive up ports):
#       topology = fattree; k = 4; n = 3; routing_function = anca; traffic = uniform;
#       sim_type = latency; vc_buf_size = 8; num_vcs = 4; packet_size = 1;
#   df: src/examples/dragonflyconfig as shipped (dragonflynew, k = 4: 1,056 nodes, 33 groups of 8
#   routers of 4 hosts, 4 global links each; min routing, 2 VCs, vc_buf_size 256, 10-flit packets,
#   injection_rate_uses_flits = 1, separable_input_first allocators, 1 iteration, routing_delay
#   0, vc_alloc_delay 1, sw_alloc_delay 1, st_final_delay 1, credit_delay 2, internal_speedup 2.0;
#   dragonfly.cpp's DRAGON_LATENCY: local channels 10 cycles, global 100, host channels 1) except
#   `sample_period = 1000;` (10000 in the file: a period took ~2.5 minutes at 1,056 nodes).
#
# The mapping (README "Router models"): 1 cycle = 1 ns, 1 flit = 1 B (bandwidth 8Gb/s, flit-size
# 1B); a BookSim2 channel of L cycles between routers is link-latency (L-1) ns (BookSim2 counts
# 1 + L cycles on a channel, tasknet's router pipeline already holds the first); its host channels
# of 1 cycle are host-link-latency just above T - T/speedup (1ps; 501ps at speedup 2): the
# injected flit is then seen by the router a flit time after it is whole, as BookSim2 reads it,
# and the ejection adds that 1 ps (0.5 ns at speedup 2); credit_delay c is credit-delay (c+1) ns;
# a 1-cycle stage at internal speedup S is 1/S ns (one internal step); num_vcs is vcs x
# the routing's deadlock classes (torus DOR 2, fat tree 1, dragonfly minimal 2); the torus's
# dateline="ring" is BookSim2's dim_order_torus class rule.
set -eu
TN=./tasknet
OUT=out/booksim-compare
WINDOW='duration="13us" warmup="3us" measure-period="10us" injection="bernoulli" self-traffic="on"'
LOADS=
while [ $# -gt 0 ]; do
    case "$1" in
    --tasknet) TN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --latency-mode) WINDOW='sample-period="1us" latency-threshold="500ns" injection="bernoulli" self-traffic="on"'; shift ;;
    --loads) LOADS=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d'; exit 0 ;;
    *) break ;;
    esac
done
NAMES=${*:-t2vc1f t8vc1f t2vc4f ft4vc df}
mkdir -p "$OUT"

COMMON='bandwidth="8Gb/s" switch-latency="0ns" router="input-queued" flit-size="1B" switching="wormhole"'
TORUS='type="torus" dims="8 8" routing="dor" dateline="ring" link-latency="1ns" host-link-latency="1ps" credit-delay="1ns" vc-buffer="8B"'

run() { # NAME NODES NETWORK-ATTRS MESSAGE-BYTES LOADS
    name=$1; nodes=$2; netw=$3; bytes=$4; loads=${LOADS:-$5}
    cat > "$OUT/$name.xml" <<EOF
<tasknet version="1">
<system nodes="$nodes"/>
<network $COMMON $netw mtu="${bytes}B"/>
<workload type="uniform-random" message-size="${bytes}B" offered-load="0.1" $WINDOW/>
<run replicas="3" seed="1"/>
<sweep><axis param="workload.offered-load" values="$loads"/></sweep>
</tasknet>
EOF
    "$TN" run "$OUT/$name.xml" -o "$OUT/$name" -q > /dev/null
    python3 - "$OUT/$name/summary.csv" "$name" <<'EOF'
import csv, sys
print(sys.argv[2])
print("  load  latency(cycles)  accepted  saturated")
for r in csv.DictReader(open(sys.argv[1])):
    lat, acc = r["window_latency_s_mean"], r["accepted_mean"]
    # a load that saturates in every replica of the latency mode has no latency and no accepted rate
    print("  %-5s %12s %12s %8s" % (r["workload.offered-load"], "%.2f" % (float(lat) * 1e9) if lat else "-",
                                    "%.4f" % float(acc) if acc else "-", r["saturated_mean"]))
EOF
}

for n in $NAMES; do
    case $n in
    t2vc1f) run t2vc1f 64 "$TORUS vcs=\"1\"" 1 "0.05 0.1 0.15 0.2 0.22 0.24 0.26 0.27 0.28 0.3" ;;
    t8vc1f) run t8vc1f 64 "$TORUS vcs=\"4\"" 1 "0.1 0.2 0.3 0.4 0.45 0.5 0.55 0.6 0.65 0.7 0.75" ;;
    t2vc4f) run t2vc4f 64 "$TORUS vcs=\"1\"" 4 "0.05 0.1 0.15 0.2 0.25 0.3 0.35 0.4 0.45" ;;
    ft4vc) run ft4vc 64 'type="fat-tree" arity="4" levels="3" routing="random-up" link-latency="0ns" host-link-latency="1ps" credit-delay="1ns" vc-buffer="8B" vcs="4"' 1 \
        "0.1 0.2 0.3 0.4 0.5 0.55 0.6 0.65 0.7 0.75 0.8" ;;
    tval) run tval 64 "$(echo "$TORUS" | sed 's/routing="dor"/routing="valiant"/') vcs=\"1\"" 1 \
        "0.05 0.1 0.15 0.2 0.22 0.24 0.26 0.28" ;;
    ftanca) run ftanca 64 'type="fat-tree" arity="4" levels="3" routing="anca" link-latency="0ns" host-link-latency="1ps" credit-delay="1ns" vc-buffer="8B" vcs="4"' 1 \
        "0.1 0.2 0.3 0.4 0.5 0.6 0.65 0.7 0.75 0.8" ;;
    df) run df 1056 'type="dragonfly" groups="33" routers-per-group="8" hosts-per-router="4" global-links="4" routing="minimal" link-latency="9ns" global-link-latency="99ns" host-link-latency="501ps" routing-delay="0ns" vc-alloc-delay="0.5ns" sw-alloc-delay="0.5ns" st-delay="0.5ns" credit-delay="3ns" speedup="2" allocator="separable-input-first" allocator-iterations="1" vc-buffer="256B" vcs="1"' 10 \
        "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9" ;;
    *) echo "unknown configuration $n" >&2; exit 2 ;;
    esac
done
