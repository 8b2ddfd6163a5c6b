#!/bin/sh
# The graph fabric at ORCS's scale: a 21,296-host fabric read from a DOT
# file (Al-Fares's three-tier tree with k = 44: 968 edge, 968 aggregation and
# 484 core switches, written here as an undirected graph, routing=up-down)
# against the same tree built parametrically (network.ports=44), each
# running R random mappings of bruck (pattern workload, timing="off": ORCS's
# static congestion metrics only). Prints wall time and peak memory of each.
#   sh bench/graph.sh BUILD_DIR [R]      (R = 100 by default)
# Measured 2026-11-27 (2-core VM, load average 6-7 from other work: user
# times, R = 1 and R = 10, one process, -j 1): graph 1.24 s + 0.44 s a
# mapping, 64 MB peak; parametric 0.22 s + 0.10 s a mapping, 37 MB peak. So
# 1,000 mappings take about 7 minutes on the graph and 100 s on the
# parametric tree: neither is "seconds" at this size (bruck here is 15
# levels x 21,296 flows = 319,440 routes a mapping). The graph's route is a
# chain of table reads (a cache miss each: the port table and the switch's
# port record, per hop), the parametric's arithmetic: routes alone
# (3,000,000 random pairs, a C loop over topo_route): graph 1,050 ns a route
# (1,230-1,460 before this session's change: next scanned every port and
# its neighbour's distance), parametric 230-290 ns. Next step, not done: route a
# level's flows interleaved (a route_many op prefetching each route's next
# cell) so the misses overlap, as congestion.c already does for the loads.
# The graph's memory, O(links + routing table): 12 B per port, the names,
# and for up-down the distance tables 2 x S x S_h x 2 B and the port
# tables (port and distance in one 2-byte cell, per phase) 2 x S_h x S x 2
# B: 8 B per (switch, destination switch), here 2,420 x 968 x 8 B = 18.7
# MB; routing="file" holds 2^lmc x N x S
# x 2 B instead (here 103 MB; an ORCS-format file of this tree with every
# route listed would be about 350 MB of text, so it is not generated here).
set -e
B=${1:-.}
R=${2:-100}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 - "$T/ft44.dot" <<'PY'
import sys
k = 44; half = k // 2; u = half; h = k - u
out = ['graph fabric {']
for e in range(k * half):
    out += ['H%d -- E%d;' % (e * h + i, e) for i in range(h)]
for p in range(k):
    for e in range(half):
        out += ['E%d -- A%d;' % (p * half + e, p * u + j) for j in range(u)]
for p in range(k):
    for j in range(u):
        out += ['A%d -- C%d;' % (p * u + j, j * half + m) for m in range(half)]
out.append('}')
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
PY
for net in 'type="graph" file="ft44.dot" routing="up-down"' 'type="fat-tree" ports="44"'; do
    cat > "$T/b.xml" <<XML
<tasknet version="1">
  <system nodes="21296"/>
  <network $net bandwidth="40Gb/s" switch-latency="100ns" link-latency="20ns"/>
  <workload type="pattern" pattern="bruck" message-size="4kB" timing="off"/>
  <run replicas="$R" seed="1"/>
</tasknet>
XML
    rm -rf "$T/out"
    /usr/bin/time -f "%e s wall, %M KiB peak" "$B/tasknet" run "$T/b.xml" --out "$T/out" 2>&1 | tail -1 |
        sed "s|^|$net, $R bruck mappings: |"
done
