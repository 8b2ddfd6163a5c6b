#!/bin/sh
# The graph fabric at ORCS's scale: a 21,296-host fabric read from a DOT
# file (Al-Fares's three-tier tree with k = 44: 968 edge, 968 aggregation and
# 484 core switches, written here as an undirected graph, routing=up-down)
# against the same tree built parametrically (network.ports=44), each
# running R random mappings of bruck (pattern workload, timing="off": ORCS's
# static congestion metrics only). Prints wall time, CPU (user + system,
# workers included) and peak memory of each, and the graph fabric's memory
# by the formula below.
#   sh bench/graph.sh BUILD_DIR [R] [J]    (R = 1000, J = 1 by default: -j J)
# Measured 2026-11-27 on the 2-core VM shared with five other sessions
# (load average 10-13 throughout, so wall times are 2-5 times the CPU
# they took; the CPU is the figure to keep), R = 1,000, each pair run
# interleaved with main 073032a (i21speed's state):
#                          before (073032a)          now
#   graph, -j 1            43.2 s CPU (109 s wall)   17.9 s CPU (45 s wall)
#   graph, -j 2            79.3 s CPU (204 s wall)   18.5 s CPU (48 s wall)
#   fat-tree ports=44 -j 1 18.7 s CPU (64 s wall)    13.2 s CPU (74 s wall)
#   fat-tree ports=44 -j 2                           12.9 s CPU (81 s wall)
#   peak memory (graph / fat tree)  69 / 35 MB       69 / 18 MB
# Per mapping (R = 1,000 minus R = 1, CPU): graph 0.042 -> 0.017 s, fat
# tree 0.019 -> 0.013 s. callgrind, 1,024-host k = 16 tree, bruck (R = 20
# minus R = 1, instructions per mapping): graph 10.83 M -> 5.82 M, fat
# tree 8.14 M -> 5.65 M. On an idle machine -j 2 halves the wall time
# (the CPU is the same as -j 1's: the workers hand their evaluations
# over, out/.pool-PID, and the result files evaluate none again; before,
# the main process evaluated every mapping a second time), so 1,000
# graph mappings should take about 9 s there (18.5 s of CPU on two
# cores: not measured, the machine was never idle); under this load the
# two workers got no more CPU than one process did.
# A bruck mapping is 15 levels x 21,296 flows = 319,440 routes. What
# changed (jobs/congestion.c, topo_graph.c, swnet.c, wl_pattern.c,
# sweep_fork.c): the graph keeps each route it walked between two
# switches with hosts (the route cache: one read a route instead of two
# dependent table reads a hop); the counting checks route_many's links
# while counting, adds a level's loads into 4-byte totals eight links a
# step and prefetches only counters that do not fit the L2; a fabric made
# for its routes alone never touches its 16 MB of link state (it was
# zeroed every run); the DOT file is digested again only when its time is
# recent; -j workers hand their pools to the main process. Earlier
# (i21speed, 3287f2a -> 073032a): 0.40 -> 0.038 s a graph mapping and
# 0.105 -> 0.017 s a fat-tree one (route_many, the counting's scratch, the
# pool). The results are byte-identical (runs.csv, the congestion files,
# the dot, summary.csv; -j 1 and -j 2 alike).
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
R=${2:-1000}
J=${3:-1}
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
    /usr/bin/time -f "%e s wall, %U s user + %S s system CPU, %M KiB peak" "$B/tasknet" run "$T/b.xml" -q -j "$J" \
        --out "$T/out" 2>&1 | tail -1 | sed "s|^|$net, $R bruck mappings, -j $J: |"
done
