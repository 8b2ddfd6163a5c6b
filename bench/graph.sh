#!/bin/sh
# The graph fabric at ORCS's scale: a 21,296-host fabric read from a DOT
# file (Al-Fares's three-tier tree with k = 44: 968 edge, 968 aggregation and
# 484 core switches, written here as an undirected graph, routing=up-down)
# against the same tree built parametrically (network.ports=44), each
# running R random mappings of bruck (pattern workload, timing="off": ORCS's
# static congestion metrics only). Prints wall time and peak memory of each.
#   sh bench/graph.sh BUILD_DIR [R]      (R = 100 by default)
# This session (2-core machine, others busy), R = 4: graph 9.2 s wall and
# 53 MiB, parametric 2.1 s and 35 MiB (tasknet's own "runs in" line, R =
# 10: graph 6.2 s, parametric 1.6 s). The graph's first build walks every
# destination's routes (about 3 s here; later builds of the same file share
# it) and its routes are table look-ups per hop: about 0.3 s a mapping
# against the parametric tree's 0.15 s, so 1,000 mappings take minutes,
# not seconds. The graph's memory: 12 B per
# port, the names, and the up-down distance tables, 2 x S x S_h x 2 B (here
# 2,420 x 968 x 4 B = 9.4 MB); routing="file" holds S x N x 2 B instead.
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
