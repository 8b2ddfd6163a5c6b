#!/usr/bin/env python3
"""Draw a flow list for dc-flows' workload.flow-list (and for a peer
simulator fed the same flows): CSV `start_s,src,dst,bytes`, one flow a line,
sorted by start time, times exact to the picosecond.

Flows as dc-flows generates them (workloads/wl_dc_flows.c's head): every
host 0..N-1 is a Poisson source of rate lambda = load * B / (8 E[size]);
destinations uniform over the other hosts; sizes from an empirical CDF file
(size_bytes,cum_fraction rows, as configs/data/*_cdf.csv) sampled with
linear interpolation (dc-flows' "linear" empirical sampling), rounded to the
nearest byte, at least 1. Stops after --flows flows over all hosts (the
first --flows arrivals in time). Python's own generator (seeded), not
tasknet's streams: a list drawn here is not the list tasknet draws itself.

  bench/flow-list.py --cdf configs/data/pfabric_websearch_snkas_cdf.csv \
      --hosts 8 --load 0.5 --rate 10e9 --flows 2000 --seed 1 > flows.csv
"""
import argparse
import bisect
import heapq
import random
import sys


def read_cdf(path):
    pts = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#') or not (line[0].isdigit() or line[0] == '.'):
                continue
            try:
                s, c = (float(x) for x in line.replace(',', ' ').split()[:2])
            except ValueError:
                sys.exit(f"{path}:{ln}: expected size_bytes,cum_fraction")
            pts.append((s, c))
    if len(pts) < 2 or abs(pts[-1][1] - 1) > 1e-9:
        sys.exit(f"{path}: a CDF needs at least 2 points and must end at 1")
    return pts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--cdf', required=True)
    ap.add_argument('--hosts', type=int, default=8)
    ap.add_argument('--load', type=float, default=0.5, help='fraction of the link rate per host')
    ap.add_argument('--rate', type=float, default=10e9, help='link rate, bit/s')
    ap.add_argument('--flows', type=int, default=2000)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    pts = read_cdf(a.cdf)
    mean = sum((c1 - c0) * (s0 + s1) / 2 for (s0, c0), (s1, c1) in zip(pts, pts[1:]))
    lam = a.load * a.rate / (8 * mean)
    rng = random.Random(a.seed)
    cums = [c for _, c in pts]

    def size():
        u = rng.random()
        k = bisect.bisect_right(cums, u)
        if k == 0:
            return pts[0][0]
        if k >= len(pts):
            return pts[-1][0]
        (s0, c0), (s1, c1) = pts[k - 1], pts[k]
        return s0 + (u - c0) / (c1 - c0) * (s1 - s0)

    heap = [(rng.expovariate(lam), h) for h in range(a.hosts)]
    heapq.heapify(heap)
    print(f"# {a.flows} flows: {a.hosts} hosts, Poisson at load {a.load} of {a.rate:g} b/s, "
          f"E[size] {mean:.6g} B, lambda {lam:.6g}/s per host, sizes {a.cdf}, seed {a.seed}")
    print("start_s,src,dst,bytes")
    for _ in range(a.flows):
        t, h = heapq.heappop(heap)
        d = rng.randrange(a.hosts - 1)
        d = d + 1 if d >= h else d
        b = max(1, int(round(size())))
        print(f"{round(t * 1e12) / 1e12:.12f},{h},{d},{b}")
        heapq.heappush(heap, (t + rng.expovariate(lam), h))


if __name__ == '__main__':
    main()
