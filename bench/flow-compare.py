#!/usr/bin/env python3
"""Compare flow completion times of the same flow list in tasknet and in a
peer simulator, flow by flow and per size bucket (issue 22: web search
against ns-3).

  bench/flow-compare.py --tasknet TRACE.json --peer PEER.txt [--list FLOWS.csv]
                        [--buckets 1e5,1e6,1e7] [--top N]
                        [--peer-counters PEER.err] [--tasknet-runs runs.csv]
                        [--tasknet TRACE2.json --peer PEER2.txt ... (pooled)]

TRACE.json is `tasknet run CONFIG --trace TRACE.json` of a dc-flows run with
workload.flow-list=FLOWS.csv: its flow spans (cat "flow", "b" at the flow's
start, "e" at its delivery, args.bytes, tid = the source) give each flow's
FCT. PEER.txt has one line per finished flow,
    id src dst bytes start_s handshake_s fct_s
(fct_s -1: not finished; lines that do not start with a number are skipped),
as the user's own peer program writes it (bench/websearch-ns3.sh calls it).
Flows are matched on (src, start to the picosecond, bytes).

--list FLOWS.csv: compare only the longest prefix of the list (by start
time) whose flows the peer all finished, so a peer run stopped early (ns-3
takes minutes per hundred flows) still compares like with like: a run is
deterministic, so a flow finished before the stop has the FCT a full run
gives it, and no flow of the prefix is left out for being slow.

Prints a markdown table: bucket, flows, peer mean and p99, tasknet mean and
p99, their differences in %, both medians, and the p99's top flows: the
number of largest FCTs of the bucket the p99 rests on (it interpolates
between the k-th largest and the one above it; k = flows - floor(0.99
(flows - 1)), e.g. 2 of 67 flows: a p99 set by one or two flows is one or
two flows' story, pool flow lists to say more). Quantiles interpolate
linearly between order statistics (as tasknet's summary).

Runs pool: --tasknet, --peer, --list, --peer-counters and --tasknet-runs
may each be given once per run (the same number of times, in the same
order; e.g. the same scenario over flow lists of different seeds): the
flows of all runs are pooled per bucket (a flow is matched within its own
run) and tasknet's run totals summed. A PEER.txt given for several runs
(tasknet's runs of one scenario perturbed, e.g. bench/websearch-ns3.sh
--perturb) counts once on the peer side: the peer's columns are its own
run's, tasknet's are pooled over the perturbed runs. --top N lists the
N flows whose FCTs differ most. Exit status 0; a flow missing on one side
is counted and named on stderr.

--peer-counters PEER.err: the peer's per-flow transport counters, lines
    F id rtos recoveries retransmissions drops marks [ack_drops ...]
(id as in PEER.txt; a later line of the same id replaces an earlier one;
other lines are skipped): summed per bucket over the compared flows, with
the flows that had a timeout. --tasknet-runs runs.csv (the same run's, or
a run of the same configuration: a run is deterministic) adds tasknet's
totals over the run (drops, ecn_marks, retransmissions, timeouts, fast
retransmits when the transport reports them): tasknet has no per-flow
counters, so its side of that table is the whole run."""
import argparse
import json
import math
import sys


def quantile(v, p):
    v = sorted(v)
    if not v:
        return float('nan')
    x = p * (len(v) - 1)
    i = int(math.floor(x))
    f = x - i
    return v[i] if i + 1 >= len(v) else v[i] + f * (v[i + 1] - v[i])


def read_peer(path, ids=None):
    d = {}
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            a = line.split()
            if len(a) < 7 or not a[0].isdigit():
                continue
            try:
                src, size, start, fct = int(a[1]), int(a[3]), float(a[4]), float(a[6])
            except ValueError:
                sys.exit(f"{path}:{ln}: expected id src dst bytes start_s handshake_s fct_s")
            d[(src, round(start * 1e12), size)] = fct
            if ids is not None:
                ids[int(a[0])] = (src, round(start * 1e12), size)
    return d


def read_tasknet(path):
    with open(path) as f:
        ev = json.load(f)
    ev = ev['traceEvents'] if isinstance(ev, dict) else ev
    begin, d = {}, {}
    for e in ev:
        if e.get('cat') != 'flow':
            continue
        k = (e['tid'], e['id'])
        if e['ph'] == 'b':
            begin[k] = (round(e['ts'] * 1e6), e['args']['bytes'])
        elif e['ph'] == 'e' and k in begin:
            t0, size = begin.pop(k)
            d[(e['tid'], t0, size)] = (round(e['ts'] * 1e6) - t0) * 1e-12
    if not d:
        sys.exit(f"{path}: no flow spans (a dc-flows run with --trace?)")
    return d


def read_peer_counters(path, ids):
    """id -> [rtos, recoveries, retransmissions, drops, marks, ack_drops]"""
    c = {}
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            a = line.split()
            if len(a) < 7 or a[0] != 'F' or not a[1].isdigit():
                continue
            try:
                v = [int(x) for x in a[2:7]] + [int(a[7]) if len(a) > 7 and a[7].isdigit() else 0]
            except ValueError:
                sys.exit(f"{path}:{ln}: expected F id rtos recoveries retransmissions drops marks [ack_drops]")
            if int(a[1]) in ids:
                c[ids[int(a[1])]] = v
    return c


def find(d, k):
    """The start times of both sides are the list's, rounded to the ps by
    each: allow one ps either way."""
    for kk in (k, (k[0], k[1] + 1, k[2]), (k[0], k[1] - 1, k[2])):
        if kk in d:
            return kk
    return None


def fmt(x):
    return f"{x * 1e3:.3f} ms" if x >= 1e-3 else f"{x * 1e6:.1f} us"


def prefix(peer, path):
    """The longest prefix of the flow list (by start) that the peer finished;
    the peer's flows outside it dropped. Returns (peer, note)."""
    flows = []
    with open(path) as f:
        for line in f:
            x = line.strip().split(',')
            if len(x) >= 4 and (x[0][:1].isdigit() or x[0][:1] == '.'):
                flows.append((round(float(x[0]) * 1e12), int(x[1]), int(x[3])))
    flows.sort()
    n = 0
    while n < len(flows) and (k := find(peer, (flows[n][1], flows[n][0], flows[n][2]))) and peer[k] >= 0:
        n += 1
    if n < len(flows):
        cut = flows[n][0]
        return {k: v for k, v in peer.items() if k[1] < cut}, \
            f"the first {n} of {len(flows)} flows: starts before {cut * 1e-12:.6f} s"
    return peer, f"all {n} flows"


def p99_rank(n):
    """How many of the largest of n values the p99 rests on: it interpolates
    between the order statistics i and i + 1 (0-based, i = floor(0.99 (n -
    1))), i.e. between the (n - i)-th largest value and the one above it, so
    it is set by the n - i largest (1: the maximum alone)."""
    return n - int(math.floor(0.99 * (n - 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--tasknet', required=True, action='append')
    ap.add_argument('--peer', required=True, action='append')
    ap.add_argument('--list', action='append')
    ap.add_argument('--buckets', default='1e5,1e6,1e7', help='bucket edges, bytes (default: 100 kB, 1 MB, 10 MB)')
    ap.add_argument('--top', type=int, default=0)
    ap.add_argument('--title', default='')
    ap.add_argument('--peer-counters', action='append')
    ap.add_argument('--tasknet-runs', action='append')
    a = ap.parse_args()
    nrun = len(a.tasknet)
    for opt in ('peer', 'list', 'peer_counters', 'tasknet_runs'):
        v = getattr(a, opt)
        if v is not None and len(v) != nrun:
            ap.error(f"--{opt.replace('_', '-')} given {len(v)} times, --tasknet {nrun} times: give one per run")
    pairs, missing, notes, idmaps = [], 0, [], []
    for r in range(nrun):
        ids = {}
        peer, tn = read_peer(a.peer[r], ids), read_tasknet(a.tasknet[r])
        idmaps.append(ids)
        if a.list:
            peer, note = prefix(peer, a.list[r])
            notes.append(note)
        for k, v in peer.items():
            if v < 0:
                continue
            kk = find(tn, k)
            if kk is None:
                missing += 1
                print(f"flow-compare: {a.peer[r]}: peer flow src {k[0]} start {k[1] * 1e-12:.12f} s {k[2]} B "
                      f"not in the tasknet trace {a.tasknet[r]}", file=sys.stderr)
                continue
            pairs.append(((r,) + k, v, tn[kk]))
    # the peer's sample: each distinct peer output once (its first run)
    peer_runs = {r for r in range(nrun) if a.peer[r] not in a.peer[:r]}
    note = ''
    if notes:
        note = f" ({notes[0]})" if nrun == 1 else " (pooled over " + str(nrun) + " runs: " + "; ".join(notes) + ")"
    elif nrun > 1:
        note = f" (pooled over {nrun} runs)"
    edges = [0.0] + [float(x) for x in a.buckets.split(',')] + [math.inf]

    def name(lo, hi):
        h = lambda b: f"{b / 1e6:g} MB" if b >= 1e6 else f"{b / 1e3:g} kB"
        return f"< {h(hi)}" if lo == 0 else (f">= {h(lo)}" if hi == math.inf else f"{h(lo)} - {h(hi)}")

    print(f"### {a.title}{note}: {len(pairs)} flows matched" + (f", {missing} missing in tasknet" if missing else ''))
    print("| bucket | flows | peer mean | peer p99 | tasknet mean | tasknet p99 | mean diff | p99 diff | peer p50 "
          "| tasknet p50 | p99's top flows |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = [(edges[i], edges[i + 1], name(edges[i], edges[i + 1])) for i in range(len(edges) - 1)]
    rows.append((0, math.inf, 'all'))
    for lo, hi, label in rows:
        sel = [(k[0], p, t) for k, p, t in pairs if lo <= k[3] < hi]
        if not sel:
            continue
        x, y = [p for r, p, _ in sel if r in peer_runs], [t for _, _, t in sel]
        mx, my, px, py = sum(x) / len(x), sum(y) / len(y), quantile(x, .99), quantile(y, .99)
        print(f"| {label} | {len(x)} | {fmt(mx)} | {fmt(px)} | {fmt(my)} | {fmt(py)} | {100 * (my / mx - 1):+.1f} % "
              f"| {100 * (py / px - 1):+.1f} % | {fmt(quantile(x, .5))} | {fmt(quantile(y, .5))} | {p99_rank(len(x))} |")
    if a.peer_counters:
        pc = {}
        for r in range(nrun):
            for k, v in read_peer_counters(a.peer_counters[r], idmaps[r]).items():
                pc[(r,) + k] = v
        print()
        print("| bucket | flows | peer flows with a timeout | peer timeouts | peer recoveries | peer retransmissions "
              "| peer drops | peer marks | peer ACK drops |")
        print("|---|---|---|---|---|---|---|---|---|")
        for lo, hi, label in rows:
            sel = [pc[k] for k, _, _ in pairs if lo <= k[3] < hi and k in pc and k[0] in peer_runs]
            if sel:
                s = [sum(c[j] for c in sel) for j in range(6)]
                print(f"| {label} | {len(sel)} | {sum(1 for c in sel if c[0])} | " + " | ".join(str(x) for x in s) + " |")
    if a.tasknet_runs:
        import csv
        tot = {}
        for path in a.tasknet_runs:
            with open(path) as f:
                r = next(csv.DictReader(f))
            for k in ('drops', 'ecn_marks', 'retransmissions', 'timeouts', 'fast_retransmits'):
                if k in r:
                    tot[k] = tot.get(k, 0) + int(float(r[k]))
        print()
        print("tasknet, whole run" + ("s (summed)" if nrun > 1 else "") + ": "
              + ", ".join(f"{k} {v}" for k, v in tot.items()))
    if a.top:
        print()
        print("| src | start_s | bytes | peer FCT | tasknet FCT |")
        print("|---|---|---|---|---|")
        for k, p, t in sorted(pairs, key=lambda r: -abs(r[2] - r[1]))[:a.top]:
            print(f"| {k[1]} | {k[2] * 1e-12:.6f} | {k[3]} | {fmt(p)} | {fmt(t)} |")


if __name__ == '__main__':
    main()
