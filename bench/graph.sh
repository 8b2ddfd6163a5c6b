#!/bin/sh
# The graph fabric at ORCS's scale: a 21,296-host fabric read from a DOT
# file (Al-Fares's three-tier tree with k = 44: 968 edge, 968 aggregation and
# 484 core switches, written here as an undirected graph, routing=up-down)
# against the same tree built parametrically (network.ports=44), each
# running R random mappings of bruck (pattern workload, timing="off": ORCS's
# static congestion metrics only). Prints wall time, user CPU and peak
# memory of each, and the graph fabric's memory by the formula below.
#   sh bench/graph.sh BUILD_DIR [R]      (R = 100 by default)
# Measured 2026-11-27 (2-core VM shared with six other sessions, load
# average 14-20: user CPU times, R = 1 and R = 100, one process, -j 1):
#                      before (3287f2a)         now
#   graph              1.24 s + 0.40 s/mapping  1.19 s + 0.038 s/mapping
#   fat-tree ports=44  0.28 s + 0.105 s/mapping 0.13 s + 0.017 s/mapping
# R = 1,000 measured: graph 41.8 s user CPU (1:53 wall at load 15), 62.6
# MB peak; parametric 22.6 s (1:05 wall), 34.8 MB (were about 7 minutes
# and 100 s, extrapolated from R = 10).
# A bruck mapping is 15 levels x 21,296 flows = 319,440 routes. What
# changed (jobs/congestion.c, topo_graph.c, topo_fattree3.c, HACKING.md):
# a level's routes are asked at once (net_ops.route_many): the graph walks
# 24 routes in turn, each hop's two dependent reads (the table cell, then
# the port record) prefetched a stage ahead, its tables in huge pages;
# the three-tier tree computes each route arithmetically; the counting
# keeps its scratch between mappings (dense 2-byte loads, prefetched); and
# a mapping the run evaluated is not evaluated again for the result files
# (the process pools its runs' loads per point). Routes alone (random
# bruck levels): graph about 60-90 ns a route (1,050 before), parametric
# 10-17 ns (230-290). The results are byte-identical (runs.csv, the
# congestion files, the dot).
# -j 2 runs the mappings in two worker processes, which hand their
# evaluations to this one when done (out/.pool-PID), so the result files
# (congestion_*.csv) evaluate none again: two cores share the mappings.
# Memory of a graph fabric, O(links + routing table): 12 B a switch port
# (P ports), 8 B a host, the names, and the routing tables: up-down 8 B
# per (switch, destination switch) = 8 S S_h (distances any and down, 2 B
# each, and the port-and-hops cells of both phases), shortest 4 S S_h,
# ecmp 2 S S_h, routing="file" 2^lmc x N x S x 2 B; and for shortest and
# up-down the route cache of a static evaluation, 4 S_h^2 L (L = 4 links
# between switches on the longest route), kept when at most twice the
# tables. Here S = 2,420, S_h = 968, P = 106,480, N = 21,296: 18.7 MB of
# tables + 15.0 MB of route cache + 1.5 MB of ports
# (the script prints it); routing="file" would hold 103 MB (and an
# ORCS-format file of this tree with every route listed would be about
# 350 MB of text, so it is not generated here).
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
S, Sh, N = k * half + k * u + u * half, k * half, k * half * h
P = S * k
L = 4  # links between switches on the longest route (edge, aggregation, core, aggregation, edge)
print('graph fabric memory (routing up-down, O(links + routing table)): 12 B x %d ports + 8 B x %d hosts '
      '+ 8 B x %d switches x %d destination switches + route cache 4 B x %d^2 x %d = %.1f MB (+ names)'
      % (P, N, S, Sh, Sh, L, (12 * P + 8 * N + 8 * S * Sh + 4 * Sh * Sh * L) / 1e6))
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
    /usr/bin/time -f "%e s wall, %U s user CPU, %M KiB peak" "$B/tasknet" run "$T/b.xml" --out "$T/out" 2>&1 | tail -1 |
        sed "s|^|$net, $R bruck mappings: |"
done
