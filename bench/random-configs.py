#!/usr/bin/env python3
"""Random configurations, every invariant: the slow check of tasknet.

    bench/random-configs.py [--tasknet ./tasknet] [--count 500] [--seed 1] [--keep DIR] [-v] [--only I]

Draws --count configurations over the whole parameter space the shipped
plugins accept, small enough to run in a fraction of a second each:

  fabrics    ideal (host-link unlimited or shared: host NIC scheduling, mtu),
             electrical-switch (switching, priority classes, host NIC),
             spinet (protocols, packets, buffers, wavelengths, host NIC),
             torus (dims, twist, dor | adaptive), fat-tree (arity, levels,
             d-mod-k | random-up), leaf-spine (leaves, spines, hosts per
             leaf, ecmp | d-mod-k), dragonfly (groups, routers, hosts,
             global links with (groups - 1) | routers x global-links;
             minimal | valiant | ugal), with the switched core's mtu,
             flow-control, vc-buffer and priority, and now and then the
             input-queued router (flit size, VCs, switching, allocator,
             pipeline delays, host-link latency);
  transports tcp, dctcp (ECN threshold) and dcqcn (PFC, RED) with finite
             static or dynamic buffers, on the switch, SPINet and the
             switched topologies (with infinite flow control; dcqcn's PFC
             on tori and dragonflies too, a pause priority per VC); tcp and
             dctcp with SACK and limited transmit; on the fat tree and a
             leaf-spine of 2 spines or more, a link failing from the start
             or during the run (fail-at: packets lost, resent by the
             transport); a host link degraded (both routers). These come
             from a stream of their own (recovery_options) and take nothing
             from the configuration's; so do hpcc (over PFC, in place of
             some dcqcn) and congestion isolation on fat trees and
             leaf-spines under credits (session6_options), and dctcp's
             variant="ns-3" (variant_options);
  workloads  task-tree, uniform-random, kernel (the five micro-kernels),
             pattern (every ORCS pattern, ptrnvsptrn, timed or static),
             dc-flows (named published sizes, any distribution or classes;
             load, load-rate or flow-rate; duration or flows; destinations,
             buckets, warm-up and cool-down), training (ring allreduce,
             fusion, layer files, queue, barrier, stop-time, negotiation);
             alone: vef (a DCNW, CDCNW or FLOWS trace written with
             keywords in any order) and dag (a random task graph in DOT,
             some tasks placed);
  mixes      two or three named <workload>s on one fabric: nodes (ranges,
             contiguous, interleaved, random, all), priority classes,
             role="background", exclusive;
  sweeps     bandwidth, nodes, zipped fabrics of one N with their routings,
             routings, host scheduling, flow control, workload parameters,
             tree shapes with <value> children; replicas;

and checks for each:

  refusal    validate and run agree: a configuration is refused by both
             (status 1, a message, no crash) or by neither; a value set on
             the command line that is refused is named by its --set option
             or by file:line;
  table      runs.csv holds points x replicas rows, each the run its id says;
  metrics    per run: messages delivered = sent (a transport delivers
             each message once whatever it dropped and resent; no drop
             under PFC or with unbounded buffers); 0 <= p50 <= p99 <= max of
             every latency; head latency <= last-bit latency (mean and max);
             utilisations and sync overhead in [0, 1] (network utilisation and
             throughput only below the ideal fabric); task-tree: every job
             completed, job time = queue + service time; switched topologies:
             hops within the topology's diameter under its routing, link
             utilisation mean <= max <= 1;
  workloads  (each workload's columns, <name>.<metric> in mixes) kernel and
             pattern: slowdown = time / bound, throughput from the bytes,
             the bound holds where every host link serialises at B, wave and
             level times within the kernel's; the messages and bytes each
             kernel sends; pattern congestion metrics consistent; dc-flows:
             buckets and classes add up to the flows measured, FCTs within
             the last delivery, slowdown >= 1, every flow of a count
             generated; training: every iteration and allreduce completed,
             messages and bytes of the rings (and negotiation rounds),
             exposed communication = iteration - compute, link utilisation
             and R from their formulas; uniform-random: messages of a count;
             together: messages sent and bytes delivered = the workloads'
             own when each is known; a background workload stops once every
             foreground one has finished;
  fabrics    the same seed sends the same traffic on every fabric of a
             zipped fabric sweep (messages and bytes of each replica);
  histograms each run's latency/run-ID.csv matches its checksum in runs.csv
             and counts its delivered messages (class all);
  resume     the same command again runs nothing and leaves the files as
             they were;
  -j 2       gives byte-identical runs.csv, summary.csv and histograms;
  replicas   R - 1 replicas, then R, end byte-identical to R at once.

About 15% of the configurations get a value at or past a limit on the
command line (--set), which must be refused with a message, or run and hold
every invariant.

Exits 1 at the first configuration that breaks one (kept in --keep DIR, or
printed), 0 when all hold. Needs Python 3 and nothing else.
"""
import argparse
import csv
import io
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

FNV_OFF, FNV_PRIME = 1469598103934665603, 1099511628211


def fnv(data):
    h = FNV_OFF
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


class Broken(Exception):
    pass


# ------------------------------------------------------------- distributions

def empirical(r, workdir, span):
    name = f"e{r.randrange(10**9)}.csv"
    lo, hi = span
    pts = sorted(r.uniform(lo, hi) for _ in range(r.randrange(1, 5))) + [hi]
    cum = sorted(r.random() for _ in range(len(pts) - 1)) + [1.0]
    with open(os.path.join(workdir, name), "w") as f:
        f.write("# drawn by random-configs.py\nvalue,cdf\n")
        for v, c in zip(pts, cum):
            f.write(f"{v!r},{c!r}\n")
    return f"empirical({name}{r.choice(['', ',linear', ',step'])})"


def dist_time(r, workdir, scale=1):
    lo = r.choice([1, 2, 5, 10, 20]) * scale
    hi = lo * r.choice([1, 2, 5, 10])
    return r.choice([
        f"{lo}us",
        f"uniform({lo}us,{hi}us)",
        f"exponential({lo}us)",
        f"normal({hi}us,{lo}us)",
        f"lognormal({lo}us,0.5)",
        empirical(r, workdir, [lo * 1e-6, hi * 1e-6]),
    ])


def dist_size(r, workdir, min1=False, lo_min=1, hi_max=None):
    """A size distribution: (text, its constant value or None, about its mean)."""
    los = [x for x in (1, 40, 100, 1000, 2000) if x >= lo_min and (hi_max is None or x <= hi_max)] or [lo_min]
    lo = r.choice(los)
    hi = lo * r.choice([1, 2, 10, 50])
    if hi_max is not None:
        hi = max(lo, min(hi, hi_max))
    forms = [
        (f"{lo}B", lo, lo),
        (f"uniform({lo}B,{hi}B)", None, (lo + hi) / 2),
        (f"exponential({hi}B)", None, hi),
        (f"lognormal({lo}B,0.3)", None, lo * 1.05),
        (f"uniform-int({lo}B,{hi}B)", None, (lo + hi) / 2),
        (empirical(r, workdir, [lo, hi]), None, (lo + hi) / 2),
    ]
    if not min1:
        forms.append((f"normal({hi}B,{lo}B)", None, hi))
    return r.choice(forms)


def fmt_time(s):
    """A time with a unit, exactly as tasknet reads it back (ns resolution)."""
    ns = max(1, int(round(s * 1e9)))
    return f"{ns}ns"


# ------------------------------------------------------------- fabrics

SWNET = ("torus", "fat-tree", "leaf-spine", "dragonfly")
FABRICS = ("ideal", "electrical-switch", "spinet") + SWNET
ROUTINGS = {"torus": ["dor", "adaptive", "valiant", "romm"], "fat-tree": ["d-mod-k", "random-up", "anca"],
            "leaf-spine": ["ecmp", "d-mod-k"], "dragonfly": ["minimal", "valiant", "ugal"]}


def torus_diameter(dims, twist):
    """Largest minimal hop count between two switches of the (twisted) torus:
    a wrap-around link of dimension 1 shifts dimension 0 by the twist."""
    n = 1
    for k in dims:
        n *= k

    def coords(i):
        c = []
        for k in dims:
            c.append(i % k)
            i //= k
        return c

    def index(c):
        i, m = 0, 1
        for x, k in zip(c, dims):
            i += x * m
            m *= k
        return i

    def nbrs(i):
        c = coords(i)
        for d, k in enumerate(dims):
            for s in (1, -1):
                e = list(c)
                e[d] = (c[d] + s) % k
                if d == 1 and twist and ((s == 1 and c[1] == k - 1) or (s == -1 and c[1] == 0)):
                    e[0] = (e[0] + s * twist) % dims[0]
                yield index(e)

    best = 0
    for src in range(n):
        dist = {src: 0}
        q = [src]
        for u in q:
            for v in nbrs(u):
                if v not in dist:
                    dist[v] = dist[u] + 1
                    q.append(v)
        best = max(best, max(dist.values()))
    return best


def shape_torus(r, maxn):
    while True:
        nd = r.choice([1, 2, 2, 3])
        dims = [r.randrange(2, 7) for _ in range(nd)]
        n = 1
        for k in dims:
            n *= k
        if 2 <= n <= maxn:
            break
    twist = 0
    if nd >= 2 and dims[0] > 2 and dims[0] <= 2 * dims[1] and r.random() < 0.35:
        twist = r.randrange(1, dims[0])
    return {"dims": " ".join(map(str, dims)), "twist": str(twist)} if twist else {"dims": " ".join(map(str, dims))}, n


def torus_hops(attrs, routing):
    dims = [int(x) for x in attrs.get("dims", "8 4").split()]
    twist = int(attrs.get("twist", "0"))
    if routing == "valiant":  # minimal to a random switch, then on: up to twice the diameter
        return 1, 1 + 2 * torus_diameter(dims, twist)
    return 1, 1 + torus_diameter(dims, twist)


def shape_fattree(r, maxn):
    opts = [(k, l) for k in range(2, 7) for l in range(1, 5) if 2 <= k ** l <= maxn]
    k, l = r.choice(opts)
    return {"arity": str(k), "levels": str(l)}, k ** l


def fattree_hops(attrs, routing):
    return 1, 2 * int(attrs.get("levels", "3")) - 1


def shape_leafspine(r, maxn):
    while True:
        lv, sp, h = r.randrange(1, 7), r.randrange(1, 5), r.randrange(1, 9)
        if 2 <= lv * h <= maxn:
            return {"leaves": str(lv), "spines": str(sp), "hosts-per-leaf": str(h)}, lv * h


def leafspine_hops(attrs, routing):
    return 1, 1 if int(attrs.get("leaves", "4")) == 1 else 3


def dragonfly_shapes(maxn):
    return [(g, a, h, gl) for g in range(2, 8) for a in range(1, 5) for h in range(1, 4) for gl in range(1, 5)
            if (a * gl) % (g - 1) == 0 and 2 <= g * a * h <= maxn]


def shape_dragonfly(r, maxn):
    g, a, h, gl = r.choice(dragonfly_shapes(maxn))
    return {"groups": str(g), "routers-per-group": str(a), "hosts-per-router": str(h),
            "global-links": str(gl)}, g * a * h


def dragonfly_hops(attrs, routing):
    a = int(attrs.get("routers-per-group", "4"))
    if routing in ("valiant", "ugal"):
        return 1, 6 if a > 1 else 3
    return 1, 4 if a > 1 else 2


SHAPES = {"torus": (shape_torus, torus_hops), "fat-tree": (shape_fattree, fattree_hops),
          "leaf-spine": (shape_leafspine, leafspine_hops), "dragonfly": (shape_dragonfly, dragonfly_hops)}


def swnet_options(r, net):
    """The switched core's rows; returns the packet payload in bytes."""
    mtu = 4096
    if r.random() < 0.6:
        mtu = r.choice([256, 512, 1000, 1500, 4096, 9000])
        net["mtu"] = f"{mtu}B"
    if r.random() < 0.4:
        net["flow-control"] = r.choice(["credit", "infinite"])
    if r.random() < 0.5:
        net["vc-buffer"] = f"{mtu * r.choice([1, 2, 4, 8])}B"
    elif "mtu" in net and mtu > 16384:
        net["vc-buffer"] = f"{mtu}B"
    if r.random() < 0.4:
        net["priority"] = r.choice(["fifo", "control-first", "strict", "default"])
    if r.random() < 0.2:
        net["vc-map"] = r.choice(["per-class", "shared"])
    if r.random() < 0.25:
        mtu = iq_options(r, net, mtu)
    return mtu


def iq_options(r, net, mtu):
    """BookSim2-style input-queued routers: packets of at most 24 flits, so
    a run stays at a few hundred thousand flit events; returns the payload
    the budget is drawn for (a quarter of the packet: flits cost events)."""
    net["router"] = "input-queued"
    # its VC buffers are the model: credits only (infinite refused, seen
    # now and then); priority classes are on VC groups of their own
    if r.random() < 0.95:
        net.pop("flow-control", None)
    flit = r.choice([64, 128, 256])
    net["flit-size"] = f"{flit}B"
    mtu = min(mtu, 24 * flit, 1500)
    net["mtu"] = f"{mtu}B"
    if "vc-buffer" in net:
        net["vc-buffer"] = f"{mtu * r.choice([1, 2, 4])}B"
    if r.random() < 0.5:
        net["switching"] = r.choice(["cut-through", "wormhole"])
    if r.random() < 0.5:
        net["vcs"] = str(r.choice([1, 2, 4]))
    if r.random() < 0.5:
        net["allocator"] = r.choice(["islip", "separable-input-first"])
        net["allocator-iterations"] = str(r.choice([1, 2]))
    if r.random() < 0.5:
        for k in ("routing-delay", "vc-alloc-delay", "st-delay", "credit-delay"):
            net[k] = f"{r.choice([0, 1, 5])}ns"
        # a credit usable in the flit time that freed it is refused: keep a
        # positive switch-allocation delay, now and then a zero one
        net["sw-alloc-delay"] = f"{r.choice([1, 2, 0] if r.random() < 0.9 else [0])}ns"
    if r.random() < 0.3:
        net["host-link-latency"] = f"{r.choice([0, 1, 10])}ns"
    return max(flit, mtu // 4)


def transport_options(r, net, info, kind):
    """A host transport (tcp, dctcp, dcqcn) with finite, marking or lossless
    buffers where the fabric has them; returns its attributes or {}."""
    if kind not in ("electrical-switch", "spinet") + SWNET or r.random() > 0.2:
        return {}
    types = ["tcp", "dctcp"] + (["dcqcn"] if kind in ("electrical-switch",) + SWNET else [])
    tr = {"type": r.choice(types)}
    if r.random() < 0.5:
        tr["init-cwnd"] = str(r.choice([1, 2, 10]))
    if r.random() < 0.5:
        tr["min-rto"] = r.choice(["200us", "1ms", "200ms"])
        tr["initial-rto"] = r.choice(["1ms", "10ms"])
    if r.random() < 0.5:
        tr["delayed-ack"] = str(r.choice([1, 2]))
        tr["delayed-ack-timeout"] = r.choice(["10us", "1ms"])
    mss = 1460
    if r.random() < 0.4:
        mss = r.choice([536, 1000, 1460])
        tr["mss"] = f"{mss}B"
    if tr["type"] == "dctcp" and r.random() < 0.5:
        tr["g"] = str(r.choice([0.0625, 0.5]))
    buffered = kind == "electrical-switch" or (kind in SWNET and net.get("flow-control") == "infinite")
    if tr["type"] == "dcqcn":
        net["flow-control"] = "pfc"
        net["ecn"] = "red"
        net["red-weight"] = "1"
        net["red-min"], net["red-max"] = r.choice([("5kB", "200kB"), ("30kB", "90kB")])
        if r.random() < 0.5:
            net["pfc-xoff"], net["pfc-xon"] = r.choice([("20kB", "10kB"), ("40kB", "20kB"), ("100kB", "50kB")])
        if kind in ("torus", "dragonfly") and r.random() < 0.9:
            # a pause priority per (class, VC): one class (8 x 2 VCs > 8
            # priorities) and no torus adaptive routing, else refused (kept
            # now and then to see the refusals)
            if net.get("routing") == "adaptive":
                net["routing"] = r.choice(["dor", "valiant", "romm"])
            if net.get("priority", "default") != "fifo":
                net["priority"] = "fifo"
            if net.get("host-scheduling") == "priority":
                net["host-scheduling"] = "fifo"
        info["lossless"] = True
    elif buffered:
        if r.random() < 0.7:
            net["buffer"] = r.choice(["20kB", "100kB", "300kB"])
            if r.random() < 0.3:
                net["buffer-policy"] = "dynamic"
                net["buffer-alpha"] = str(r.choice([0.5, 1, 8]))
        if tr["type"] == "dctcp":
            net["ecn-threshold"] = r.choice(["5kB", "30kB", "97.5kB"])
        elif r.random() < 0.3:
            net["ecn"] = "red"
    info["pkt"] = min(info["pkt"] or mss, mss)
    info["transport"] = tr["type"]
    return tr


def nic_options(r, net, fabric):
    """The host NIC of ideal (shared host links), the switch and SPINet;
    returns the packet payload in bytes (None: whole messages)."""
    pkt = None
    if fabric == "ideal":
        if r.random() < 0.4:
            net["host-link"] = "shared"
            if r.random() < 0.7:
                net["host-scheduling"] = r.choice(["fifo", "round-robin", "priority", "srpt"])
            if r.random() < 0.6:
                pkt = r.choice([0, 256, 1000, 1500])
                net["mtu"] = f"{pkt}B"
                pkt = pkt or None
        elif r.random() < 0.1:
            net["host-link"] = "unlimited"
    elif fabric == "electrical-switch":
        if r.random() < 0.5:
            net["host-scheduling"] = r.choice(["fifo", "round-robin", "priority", "srpt"])
        if r.random() < 0.5:
            pkt = r.choice([0, 256, 1500, 4000])
            net["mtu"] = f"{pkt}B"
            pkt = pkt or None
    elif fabric == "spinet":
        if r.random() < 0.4:
            net["host-scheduling"] = r.choice(["fifo", "round-robin", "priority", "srpt"])
    return pkt


def fabric(r, kind=None, maxn=64):
    """One fabric: its <network> attributes, <phy> attributes, N and what the
    checks need (packet size, hop bounds)."""
    kind = kind or r.choice(FABRICS)
    net = {"type": kind}
    phy = {}
    info = {"fabric": kind, "pkt": None}
    if kind in ("ideal", "electrical-switch"):
        n = r.randrange(2, maxn + 1) if r.random() < 0.7 else r.randrange(2, 17)
        net["bandwidth"] = f"{r.choice([1, 5, 10, 40, 160])}Gb/s"
        if kind == "electrical-switch":
            if r.random() < 0.7:
                net["switching"] = r.choice(["cut-through", "store-and-forward"])
            if r.random() < 0.7:
                net["priority"] = r.choice(["fifo", "control-first", "strict"])
        info["pkt"] = nic_options(r, net, kind)
    elif kind == "spinet":
        n = 2 ** r.randrange(1, 7)
        # a packet is dropped and retried every NACK round trip while the
        # output it needs is held: long packets at a low B retry thousands
        # of times (right, and slow): keep packets short against B
        net["bandwidth"] = f"{r.choice([40, 160])}Gb/s"
        net["extra-stages"] = str(r.randrange(0, 3))
        net["protocol"] = r.choice(["fast-nack", "nack", "ack", "slotted"])
        ps = r.choice([256, 1000, 4000])
        net["packet-size"] = f"{ps}B"
        net["link-length"] = r.choice(["0m", "1m", "4m"])
        net["buffer"] = r.choice(["0B", "10kB", "1MB"])
        if r.random() < 0.3:
            phy["wavelengths"] = str(r.choice([1, 4, 16]))
        nic_options(r, net, kind)
        # a bounded edge FIFO only under fifo host scheduling (refused
        # otherwise: kept now and then to see the refusal)
        if net.get("host-scheduling", "fifo") != "fifo" and net["buffer"] != "0B" and r.random() < 0.9:
            net["buffer"] = "0B"
        info["pkt"] = ps
    else:
        shape, hops = SHAPES[kind]
        attrs, n = shape(r, maxn)
        net.update(attrs)
        net["bandwidth"] = f"{r.choice([10, 40, 100])}Gb/s"
        if r.random() < 0.6:
            net["routing"] = r.choice(["default"] + ROUTINGS[kind])
        info["pkt"] = swnet_options(r, net)
    if r.random() < 0.5:
        net["link-latency"] = f"{r.choice([0, 5, 20, 100])}ns"
        net["switch-latency"] = f"{r.choice([0, 50, 200, 1000])}ns"
    info["tr"] = transport_options(r, net, info, kind)
    info["n"] = n
    recovery_options(net, info, kind, n)
    session6_options(net, info, kind, n)
    variant_options(info, kind, n)
    return net, phy, n, info


def variant_options(info, kind, n):
    """dctcp's transport.variant="ns-3" (ns-3 3.37's TcpDctcp: flows may
    wait for the RTO with a window below one segment), drawn from a stream
    of its own after every other choice (so every other configuration is
    as before): on three in ten dctcp transports without SACK, which the
    variant refuses."""
    tr = info["tr"]
    if tr.get("type") != "dctcp" or tr.get("sack") == "on":
        return
    key = repr(("variant", sorted(tr.items()), kind, n)).encode()
    if random.Random(zlib.crc32(key)).random() < 0.3:
        tr["variant"] = "ns-3"


def recovery_options(net, info, kind, n):
    """Loss recovery and failures, drawn from a stream of their own (the
    configuration so far seeds it; nothing is taken from r): a tcp or
    dctcp transport now and then where none was drawn on the fat tree and
    the leaf-spine; tcp and dctcp with SACK and limited transmit; links failing
    from the start or during the run (network.fail-at: a transport recovers
    the lost packets) on the fat tree and on a leaf-spine of 2 spines or
    more (one link drawn per replica: another up port remains, so no pair
    is cut); a host link degraded (both routers; an unknown name is refused
    by validate and run alike)."""
    tr = info["tr"]
    if kind not in SWNET and not tr:
        return
    key = repr((sorted(net.items()), sorted(tr.items()), kind, n)).encode()
    q = random.Random(zlib.crc32(key))
    if not tr and kind in ("fat-tree", "leaf-spine") and q.random() < 0.3:
        # a transport of their own for failures (transport_options draws one for a fifth of the fabrics)
        tr["type"] = q.choice(["tcp", "dctcp"])
        tr["min-rto"] = q.choice(["200us", "1ms"])
        tr["initial-rto"] = "1ms"
        info["pkt"] = min(info["pkt"] or 1460, 1460)
        info["transport"] = tr["type"]
    if tr.get("type") in ("tcp", "dctcp"):
        if q.random() < 0.4:
            tr["sack"] = "on"
        if q.random() < 0.4:
            tr["limited-transmit"] = "on"
        spines = int(net.get("spines", "0"))
        if (kind == "fat-tree" or (kind == "leaf-spine" and spines >= 2)) and q.random() < 0.4:
            net["failed-links"] = "1"
            if q.random() < 0.7:
                net["fail-at"] = q.choice(["0ns", "2us", "20us", "200us"])
    if kind in SWNET and q.random() < 0.15:
        net["degraded-links"] = f"H0-S0:{q.choice([0.25, 0.5, 0.9])}"


def session6_options(net, info, kind, n):
    """HPCC and congestion isolation, drawn from a stream of their own (the
    configuration so far seeds it; nothing is taken from r, so the
    configurations that draw neither are those of before): transport hpcc
    (INT, over PFC) in place of two in five dcqcn transports and now and
    then on a switch or a switched topology without a transport (its eta,
    maxStage, W_AI, T and INT header drawn too; the input-queued router,
    which hpcc refuses, kept one time in ten to see the refusal); and
    network.congestion-isolation="destination" on fat trees and leaf-spines
    under credits (ci-threshold, ci-delay drawn now and then), now and then
    where it is refused (tori, dragonflies, infinite flow control)."""
    tr = info["tr"]
    key = repr(("session6", sorted(net.items()), sorted(tr.items()), kind, n)).encode()
    q = random.Random(zlib.crc32(key))
    iq = net.get("router") == "input-queued"
    hpcc = False
    if tr.get("type") == "dcqcn" and q.random() < 0.4:
        hpcc = True
    elif not tr and kind in ("electrical-switch",) + SWNET and q.random() < 0.08 and (not iq or q.random() < 0.1):
        hpcc = True
        net["flow-control"] = "pfc"
        net.pop("buffer", None)
        if kind in ("torus", "dragonfly"):
            # a pause priority per (class, VC), as for dcqcn (transport_options)
            if net.get("routing") == "adaptive":
                net["routing"] = q.choice(["dor", "valiant", "romm"])
            if net.get("priority", "default") != "fifo":
                net["priority"] = "fifo"
        if q.random() < 0.5:
            net["pfc-xoff"], net["pfc-xon"] = q.choice([("20kB", "10kB"), ("40kB", "20kB"), ("100kB", "50kB")])
    if hpcc:
        tr["type"] = "hpcc"
        for k in ("g",):
            tr.pop(k, None)
        if q.random() < 0.3:
            tr["eta"] = str(q.choice([0.8, 0.95, 1]))
        if q.random() < 0.3:
            tr["max-stage"] = str(q.choice([0, 1, 5]))
        if q.random() < 0.2:
            tr["w-ai"] = q.choice(["1B", "100B", "2kB"])
        if q.random() < 0.2:
            tr["base-rtt"] = q.choice(["1us", "10us", "100us"])
        if q.random() < 0.2:
            tr["int-header"] = q.choice(["0B", "42B", "100B"])
        info["lossless"] = True
        info["pkt"] = min(info["pkt"] or 1460, int(tr.get("mss", "1460B")[:-1]))
        info["transport"] = "hpcc"
    if kind in SWNET and not net.get("fail-at"):
        ok = (kind in ("fat-tree", "leaf-spine") and net.get("flow-control", "credit") == "credit" and not iq
              and net.get("host-scheduling") != "srpt")
        if (ok and q.random() < 0.3) or q.random() < 0.03:
            net["congestion-isolation"] = "destination"
            if q.random() < 0.3:
                net["ci-threshold"] = q.choice(["0B", "1B", "1500B", "20kB"])
            if q.random() < 0.3:
                net["ci-delay"] = q.choice(["0ns", "100ns", "2us"])


def hop_bounds(kind, net, routing):
    if kind not in SWNET:
        return None
    if routing in (None, "default"):
        routing = ROUTINGS[kind][0]
    return SHAPES[kind][1](net, routing)


def bps(text):
    m = re.fullmatch(r"([0-9.e+-]+)([kMGT]?)b/s", text)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]


# ------------------------------------------------------------- workloads

def num(row, k):
    v = row.get(k, "")
    return None if v in ("", None) else float(v)


def close(a, b, rel=1e-9, abs_=1e-15):
    return a is not None and b is not None and abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


def need(cond, what):
    if not cond:
        raise Broken(what)


class Workload:
    """One <workload>: its XML and what the checks derive from it.

    check(row, pfx, ctx) checks the workload's own columns (pfx "" alone,
    "name." in a mix) and returns the messages and bytes it must have sent
    (None where they are not derivable). ctx: fabric, B (bit/s), n (its
    ranks), exact (no --set changed the configuration), background."""

    def __init__(self, type_, attrs, inner="", est_bytes=0.0, est_s=0.0, check=None, stoppable=False,
                 exclusive=True, open_loop=True):
        self.type, self.attrs, self.inner = type_, attrs, inner
        self.est_bytes, self.est_s = est_bytes, est_s
        self.check = check or (lambda row, pfx, ctx: (None, None))
        self.stoppable, self.exclusive, self.open_loop = stoppable, exclusive, open_loop
        self.name = ""
        self.background = False

    def xml(self):
        a = dict(self.attrs)
        head = {}
        if self.name:
            head["name"] = self.name
        head["type"] = self.type
        head.update({k: a.pop(k) for k in ("nodes", "priority", "role", "exclusive") if k in a})
        head.update(a)
        attrs = " ".join(f'{k}="{v}"' for k, v in head.items())
        return f"  <workload {attrs}>{self.inner}</workload>\n"


SERIALISING = ("electrical-switch", "spinet") + SWNET  # every host link at B, both ways


def wl_task_tree(r, d, n, env):
    a = {}
    inner_tree_det = r.random() < 0.5
    small = env["pkt"] is not None
    jobs = r.randrange(1, 16 if small or env["mix"] else 40)
    a["jobs"] = str(jobs)
    zeta = env["zeta_ok"] and r.random() < 0.2
    if env["bg"]:
        jobs = 1000
        a["jobs"] = str(jobs)
        a["arrival-rate"] = "20000/s"
    elif r.random() < 0.5 or env["mix"]:
        rate = r.choice([500, 5000, 50000]) if not env["mix"] else r.choice([20000, 100000])
        a["arrival-rate"] = f"{rate}/s"
    else:
        a["load"] = str(r.choice([0.1, 0.5, 0.9, 1.5]))
    if inner_tree_det:
        z = " ".join(str(r.randrange(1, 4)) for _ in range(r.randrange(1, 4)))
        tree = f'<tree generator="deterministic" z="{z}"/>'
        verts = 1
        for k in reversed([int(x) for x in z.split()]):
            verts = 1 + k * verts
    else:
        v = r.choice(["1", "uniform-int(2,30)", "exponential(10)", "uniform-int(25,75)",
                      empirical(r, d, [1, 20])])
        tree = f'<tree generator="preferential" vertices="{v}" shape="{r.choice([0, 1, 2])}"/>'
        verts = 75
    hi = None if not small else 20 * env["pkt"]
    ss, _, sm = dist_size(r, d, hi_max=hi)
    rs, _, rm = dist_size(r, d, hi_max=hi)
    task = (f'<task init-time="{dist_time(r, d)}" aggregation-time="{dist_time(r, d)}" '
            f'send-size="{ss}" result-size="{rs}"/>')
    if r.random() < 0.3:
        a["control-size"] = r.choice(["40B", "1B", "100B"])
    w = Workload("task-tree", a, f"\n    {tree}\n    {task}\n  ", est_bytes=jobs * verts * (sm + rm),
                 stoppable=True, open_loop=False)
    w.zeta = zeta
    w.est_s = jobs / 20000 + 1e-3 if env["mix"] and not env["bg"] else 1.0

    def check(row, pfx, ctx):
        jobs_done = num(row, pfx + "jobs_completed")
        jt = num(row, pfx + "job_time_mean_s")
        if jobs_done is not None and jt is not None:
            q, sv = num(row, pfx + "queue_time_mean_s"), num(row, pfx + "service_time_mean_s")
            need(jt >= 0 and q >= 0 and sv >= 0 and abs(jt - q - sv) <= 1e-9 * max(jt, 1e-9),
                 f"{pfx}job time {jt} != queue {q} + service {sv}")
            need(num(row, pfx + "speedup") > 0, f"{pfx}speedup {num(row, pfx + 'speedup')}")
        if ctx["exact"] and not ctx["background"]:
            need(jobs_done == jobs, f"{pfx}jobs_completed {jobs_done}, {jobs} jobs")
        for k in ("node_utilization", "sync_overhead"):
            v = num(row, pfx + k)
            if v is not None:
                need(-1e-12 <= v <= 1 + 1e-9, f"{pfx}{k} = {v}")
        return None, None
    w.check = check
    return w


def wl_uniform(r, d, n, env):
    a = {}
    hi = None if env["pkt"] is None else 40 * env["pkt"]
    size, const, mean = dist_size(r, d, min1=True, lo_min=100, hi_max=hi)
    a["message-size"] = size
    load = r.choice([0.05, 0.2, 0.5, 0.9, 1.5])
    a["offered-load"] = str(load)
    B = env["B"]
    per_node_rate = load * B / (8 * mean)  # messages/s
    budget = env["budget"]
    if env["bg"]:
        a["duration"] = "50ms"
        a["offered-load"] = str(r.choice([0.01, 0.05]))
        K = None
    elif r.random() < 0.5:
        D = r.choice([2e-6, 5e-6, 20e-6])
        D = min(D, max(1e-7, budget * 8 / (load * B * n)))
        K = None
        if r.random() < 0.25:  # BookSim2's latency mode: up to 2 max-samples periods (warm-up + run, drain)
            ms = r.choice([3, 6, 10])
            a["sample-period"] = fmt_time(D / (2 * ms))
            a["max-samples"] = str(ms)
            a["warmup-periods"] = str(r.choice([0, 1, 3]))
            if r.random() < 0.5:
                a["latency-threshold"] = r.choice(["1us", "10us", "1ms"])
        else:
            a["duration"] = fmt_time(D)
    else:
        K = max(1, min(r.randrange(1, 30), int(budget / (n * mean))))
        a["messages"] = str(K)
    sampled = int(a["max-samples"]) if "sample-period" in a else 0
    est_s = (K / per_node_rate if K else 0.05 if env["bg"] else
             float(a["sample-period"][:-2]) * 1e-9 * 2 * sampled if sampled else float(a["duration"][:-2]) * 1e-9)
    # sampled (BookSim2's latency mode): generation stops when latency and
    # accepted rate converge, which depends on the fabric, so a fabric sweep
    # need not send the same traffic on each (seed 5 configurations 23, 32)
    w = Workload("uniform-random", a, est_bytes=min(budget, n * (K or 30) * mean), est_s=est_s, stoppable=True,
                 exclusive=False, open_loop=not sampled)

    def check(row, pfx, ctx):
        thr = num(row, pfx + "throughput")
        if ctx["fabric"] != "ideal" and thr is not None:
            need(-1e-12 <= thr <= 1 + 1e-9, f"{pfx}throughput = {thr} on {ctx['fabric']}")
        if sampled:
            smp, sat, lat = num(row, pfx + "samples"), num(row, pfx + "saturated"), num(row, pfx + "window_latency_s")
            need(smp is not None and 1 <= smp <= sampled, f"{pfx}samples = {smp}, max-samples {sampled}")
            need(sat in (0, 1), f"{pfx}saturated = {sat}")
            if sat == 0 and num(row, pfx + "measured") == 0:
                # max-samples ran out while running with no message generated
                # in it (a low load or short periods): BookSim2 drains and
                # reports no latency either, without calling it unstable
                need(lat is None and smp == sampled, f"{pfx}nothing measured, latency {lat}, samples {smp}")
            elif sat == 0:
                need(lat is not None and lat > 0 and num(row, pfx + "measured") > 0,
                     f"{pfx}converged with latency {lat}, {num(row, pfx + 'measured')} measured")
            else:
                need(lat is None, f"{pfx}saturated but a latency {lat}")
        if ctx["exact"] and not ctx["background"] and K:
            msgs = ctx["n"] * K
            return msgs, msgs * const if const else None
        return None, None
    w.check = check
    return w


KERNELS = ["one-to-all", "all-to-one", "all-to-all", "sync-random", "gups"]


def kernel_bound_holds(fabric):
    return fabric in SERIALISING


def wl_kernel(r, d, n, env):
    a = {}
    kind = r.choice(KERNELS)
    if r.random() < 0.8:
        a["kernel"] = kind
    elif kind != "all-to-all":
        kind = "all-to-all"  # the default
    hi = None if env["pkt"] is None else 8 * env["pkt"]
    size, const, mean = dist_size(r, d, min1=True, hi_max=min(hi or 4000, 4000))
    a["message-size"] = size
    T = None
    if r.random() < 0.5 or (kind == "all-to-all" and n > 24):
        T = r.randrange(2, min(n, 24 if kind == "all-to-all" else n) + 1)
        a["tasks"] = str(T)
    iters = 1
    M = W = None
    if kind in ("one-to-all", "all-to-one", "all-to-all"):
        if r.random() < 0.5:
            iters = r.randrange(1, 4)
            a["iterations"] = str(iters)
        if kind != "all-to-all" and r.random() < 0.5:
            a["root"] = str(r.randrange(0, T or n))
        if kind == "all-to-all" and r.random() < 0.5:
            a["order"] = r.choice(["shifted", "linear"])
    else:
        M = r.randrange(1, 300)
        a["total-messages"] = str(M)
        if kind == "sync-random":
            W = r.randrange(1, M + 1) if r.random() < 0.8 else M
            a["wave"] = str(W)
            if r.random() < 0.4:
                a["compute-time"] = r.choice(["0s", "1us", dist_time(r, d)])
    if r.random() < 0.4:
        a["mapping"] = r.choice(["identity", "random"])

    def count(t):
        if kind in ("one-to-all", "all-to-one"):
            return (t - 1) * iters
        if kind == "all-to-all":
            return t * (t - 1) * iters
        return M

    tt = T or n
    w = Workload("kernel", a, est_bytes=count(tt) * mean, est_s=count(tt) * (mean * 8 / env["B"] + 5e-6))

    def check(row, pfx, ctx):
        t = T or ctx["n"]
        kt, lb = num(row, pfx + "kernel_time_s"), num(row, pfx + "kernel_time_lb_s")
        sd, thr = num(row, pfx + "kernel_slowdown"), num(row, pfx + "kernel_throughput")
        need(kt is not None and kt >= 0 and lb is not None and lb >= 0, f"{pfx}kernel_time {kt}, bound {lb}")
        if lb > 0:
            need(close(sd, kt / lb), f"{pfx}kernel_slowdown {sd}, time / bound {kt / lb}")
        if kernel_bound_holds(ctx["fabric"]):
            need(kt >= lb * (1 - 1e-9), f"{pfx}kernel_time {kt} below its bound {lb} on {ctx['fabric']}")
        msgs = count(t)
        byts = msgs * const if const else None
        if kind in ("sync-random", "gups") and ctx["exact"]:
            waves = num(row, pfx + "waves")
            need(waves == (math.ceil(M / W) if kind == "sync-random" else 1), f"{pfx}waves {waves}")
            wt = num(row, pfx + "wave_time_mean_s")
            need(wt is not None and 0 <= wt <= kt * (1 + 1e-9), f"{pfx}wave_time_mean {wt} > kernel_time {kt}")
        if not ctx["exact"]:
            return None, None
        b = byts if byts is not None else (num(row, "bytes_delivered") if ctx["alone"] else None)
        if b is not None and kt > 0:
            need(close(thr, 8 * b / (t * ctx["B"] * kt), rel=1e-6), f"{pfx}kernel_throughput {thr}, "
                 f"8 x {b} B / ({t} x {ctx['B']} x {kt})")
        return msgs, byts
    w.check = check
    return w


PATTERNS = ["rand", "bisect", "bisect_fb_sym", "tree", "bruck", "recdbl", "gather", "scatter", "ring",
            "neighbor-1d", "neighbor-2d", "neighbor-3d", "neighbor", "receivers"]


def wl_pattern(r, d, n, env):
    a = {}
    inner = ""
    vs = r.random() < 0.15 and n >= 4
    pat = "ptrnvsptrn" if vs else r.choice(PATTERNS)
    a["pattern"] = pat
    hi = None if env["pkt"] is None else 8 * env["pkt"]
    size, const, mean = dist_size(r, d, min1=True, hi_max=min(hi or 4000, 4000))
    a["message-size"] = size
    C = n
    if r.random() < 0.4:
        C = r.randrange(4 if vs else 2, n + 1)
        a["tasks"] = str(C)
    if pat == "neighbor" or r.random() < 0.1:
        a["neighbors"] = str(r.randrange(1, C + 2))
    if pat == "receivers" or r.random() < 0.1:
        a["receivers"] = str(r.randrange(1, C // 2 + 1))
    if r.random() < 0.6:
        a["levels"] = r.choice(["barrier", "dependency", "free"])
    timing = "on"
    if r.random() < 0.15 and not env["mix"]:
        timing = "off"
        a["timing"] = timing
    if r.random() < 0.4:
        a["mapping"] = r.choice(["identity", "random"])
    if vs:
        z = r.randrange(2, C - 1)
        fg = r.choice(PATTERNS)
        fa = {"pattern": fg, "tasks": str(z)}
        if fg == "neighbor":
            fa["neighbors"] = str(r.randrange(1, z + 1))
        if fg == "receivers":
            fa["receivers"] = str(r.randrange(1, z // 2 + 1))
        inner = "\n    <foreground " + " ".join(f'{k}="{v}"' for k, v in fa.items()) + "/>"
        if r.random() < 0.7:
            bg = r.choice(PATTERNS)
            ba = {"pattern": bg}
            if bg == "neighbor":
                ba["neighbors"] = str(r.randrange(1, C - z + 1))
            if bg == "receivers":
                ba["receivers"] = str(r.randrange(1, (C - z) // 2 + 1))
            inner += "\n    <background " + " ".join(f'{k}="{v}"' for k, v in ba.items()) + "/>"
        inner += "\n  "
    pairs = C * max(1, math.ceil(math.log2(C))) * 2
    w = Workload("pattern", a, inner, est_bytes=pairs * mean, est_s=pairs * (mean * 8 / env["B"] + 5e-6),
                 open_loop=not vs)

    def check(row, pfx, ctx):
        g = lambda k: num(row, pfx + k)
        cmax, cmean, bwf, smc = g("cong_max"), g("cong_mean"), g("bw_fraction"), g("sum_max_cong")
        if cmax is not None:
            need(1 - 1e-12 <= cmean <= cmax * (1 + 1e-12), f"{pfx}cong_mean {cmean}, cong_max {cmax}")
            need(1 / cmax * (1 - 1e-12) <= bwf <= 1 + 1e-12, f"{pfx}bw_fraction {bwf}, cong_max {cmax}")
            need(smc >= cmax * (1 - 1e-12), f"{pfx}sum_max_cong {smc} < cong_max {cmax}")
        kt, lb, sd = g("kernel_time_s"), g("kernel_time_lb_s"), g("kernel_slowdown")
        if not ctx["exact"] and kt is None:
            return None, None
        if timing == "off":
            need(kt is None, f"{pfx}kernel_time {kt} without timing")
            return (0, 0) if ctx["exact"] else (None, None)
        need(kt is not None and kt >= 0 and lb is not None and lb >= 0, f"{pfx}kernel_time {kt}, bound {lb}")
        if lb > 0:
            need(close(sd, kt / lb), f"{pfx}kernel_slowdown {sd}, time / bound {kt / lb}")
        if kernel_bound_holds(ctx["fabric"]):
            need(kt >= lb * (1 - 1e-9), f"{pfx}kernel_time {kt} below its bound {lb} on {ctx['fabric']}")
        lm, lx = g("level_time_mean_s"), g("level_time_max_s")
        if lx is not None:
            need(0 <= lm <= lx * (1 + 1e-12) and lx <= kt * (1 + 1e-12) + 1e-15,
                 f"{pfx}level times mean {lm} max {lx}, kernel_time {kt}")
        bt = g("background_time_s")
        if bt is not None:
            need(bt >= 0, f"{pfx}background_time {bt}")
        if ctx["alone"] and not vs and ctx["exact"] and kt > 0:
            b = num(row, "bytes_delivered")
            thr = g("kernel_throughput")
            tasks = int(a["tasks"]) if "tasks" in a else ctx["n"]
            need(close(thr, 8 * b / (tasks * ctx["B"] * kt), rel=1e-6),
                 f"{pfx}kernel_throughput {thr}, 8 x {b} B / ({tasks} x {ctx['B']} x {kt})")
        return None, None
    w.check = check
    return w


# name, mean bytes, largest bytes
DC_NAMED = [("fb-keyvalue", 189, 1e5), ("google-searchrpc", 442, 3.5e6), ("google-allrpc", 2928, 1.5e7),
            ("fb-webserver", 62874, 1e6), ("alistorage", 67050, 2e6), ("fb-hadoop", 127797, 1e7),
            ("fb-cachefollower", 692976, 3.8e6), ("websearch", 2434900, 3e7),
            ("dctcp-websearch", 2564690, 2.94e7), ("datamining", 23199799, 1e9)]
CLASS_SHARES = [["0.5", "0.5"], ["0.25", "0.75"], ["0.2", "0.3", "0.5"], ["0.1", "0.2", "0.3", "0.4"],
                ["1"], ["0.125", "0.125", "0.25", "0.5"]]


def wl_dc_flows(r, d, n, env):
    a = {}
    inner = ""
    pkt, budget, B = env["pkt"], env["budget"], env["B"]
    const = None
    nclasses = 0
    form = r.random()
    if form < 0.4:
        ok = [x for x in DC_NAMED if (pkt is None or x[2] / pkt <= 40000) and x[1] * 2 <= budget]
        name, mean, _ = r.choice(ok or DC_NAMED[:1])
        a["sizes"] = name
    elif form < 0.75:
        hi = None if pkt is None else 40 * pkt
        text, const, mean = dist_size(r, d, min1=True, hi_max=hi)
        a["sizes"] = text
    else:
        shares = r.choice(CLASS_SHARES)
        nclasses = len(shares)
        mean = 0
        for k, s in enumerate(shares):
            hi = None if pkt is None else 20 * pkt
            text, c, m = dist_size(r, d, min1=True, hi_max=hi)
            mean += float(s) * m
            ca = {"share": s, "size": text}
            if r.random() < 0.4:
                ca["destinations"] = r.choice(["inherit", "uniform", "gaussian", "poisson"])
            if r.random() < 0.4:
                ca["priority"] = r.choice(["inherit"] + [str(i) for i in range(8)])
            inner += f"\n    <class{k} " + " ".join(f'{k2}="{v}"' for k2, v in ca.items()) + "/>"
        inner += "\n  "
    flows_target = max(1, min(r.randrange(1, 200), int(budget / max(mean, 1))))
    rate_form = r.random()
    load = r.choice([0.05, 0.2, 0.5, 0.9])
    if rate_form < 0.5:
        a["load"] = str(load)
        lam = load * B / (8 * mean)
    elif rate_form < 0.75:
        lr = load * B
        a["load-rate"] = f"{lr / 1e6:g}Mb/s"
        lam = lr / (8 * mean)
    else:
        fr = r.choice([1e3, 1e4, 1e5, 1e6])
        a["flow-rate"] = f"{fr:g}/s"
        lam = fr
    F = None
    D = None
    if env["bg"]:
        a["duration"] = "50ms"
        lam = min(lam, 2000.0)
        a.pop("load", None), a.pop("load-rate", None)
        a["flow-rate"] = f"{lam:g}/s"
    elif r.random() < 0.5:
        F = flows_target
        a["flows"] = str(F)
    else:
        D = flows_target / (n * lam)
        D = max(D, 1e-9)
        a["duration"] = fmt_time(D)
        D = int(round(D * 1e9)) * 1e-9
        if D > 2e-9 and r.random() < 0.3:
            a["warmup"] = fmt_time(D * r.choice([0, 0.1, 0.3]))
            a["cooldown"] = fmt_time(D * r.choice([0, 0.1, 0.3]))
    if r.random() < 0.4:
        a["destinations"] = r.choice(["uniform", "gaussian", "poisson"])
        if r.random() < 0.5:
            a["destination-mean"] = str(r.choice([0, 0.1, 0.5, 0.9, 1]))
        if r.random() < 0.5:
            a["destination-sigma"] = str(r.choice([0.01, 0.125, 1, 5]))
    if r.random() < 0.2:
        a["small-max"] = r.choice(["1kB", "10kB", "100kB"])
        a["large-min"] = r.choice(["100kB", "1MB", "10MB"])
    est = (F or flows_target)
    w = Workload("dc-flows", a, inner, est_bytes=est * mean, est_s=(F or flows_target) / (n * lam) + 1e-4,
                 stoppable=True, exclusive=False)
    windowed = "warmup" in a

    def check(row, pfx, ctx):
        g = lambda k: num(row, pfx + k)
        gen, meas = g("flows_generated"), g("flows_measured")
        need(gen is not None and meas is not None and 0 <= meas <= gen, f"{pfx}flows measured {meas}, generated {gen}")
        if not windowed and ctx["exact"]:
            need(meas == gen, f"{pfx}{meas} of {gen} flows measured without a window")
        buckets = sum(g(f"flows_{b}") or 0 for b in ("small", "medium", "large"))
        need(buckets == meas, f"{pfx}small + medium + large = {buckets}, {meas} measured")
        classes = sum(g(f"flows_class{k}") or 0 for k in range(4))
        need(classes == meas, f"{pfx}classes add up to {classes}, {meas} measured")
        if nclasses and ctx["exact"]:
            need(all(g(f"flows_class{k}") is None for k in range(nclasses, 4)), f"{pfx}flows in unused classes")
        ex = g("execution_time_s")
        for b in ("", "small_", "medium_", "large_") + tuple(f"class{k}_" for k in range(4)):
            cnt = g(f"flows_{b[:-1]}") if b else meas
            p50, p99, mu = g(f"fct_{b}p50_s"), g(f"fct_{b}p99_s"), g(f"fct_{b}mean_s")
            s50, s99, smu = g(f"fct_slowdown_{b}p50"), g(f"fct_slowdown_{b}p99"), g(f"fct_slowdown_{b}mean")
            if not cnt:
                need(p50 is None and s50 is None, f"{pfx}fct {b}p50 {p50} without flows")
                continue
            need(0 < p50 <= p99 * (1 + 1e-12) and p99 <= ex * (1 + 1e-12), f"{pfx}fct {b}p50 {p50} p99 {p99}, "
                 f"last delivery {ex}")
            need(0 < mu <= ex * (1 + 1e-12), f"{pfx}fct {b}mean {mu}, last delivery {ex}")
            # slowdown's ideal is the message alone without a transport: a
            # transport's segments, shorter than the fabric's packet, pipeline
            # through store-and-forward hops and may beat it (README)
            lo = 0 if ctx["segmented"] else 1 - 1e-9
            need(lo <= s50 <= s99 * (1 + 1e-12) and smu >= lo,
                 f"{pfx}fct slowdown {b}p50 {s50} p99 {s99} mean {smu}: a flow faster than alone on {ctx['fabric']}")
        thr = g("throughput")
        if thr is not None and ctx["fabric"] != "ideal":
            need(-1e-12 <= thr <= 1 + 1e-9, f"{pfx}throughput = {thr} on {ctx['fabric']}")
        if ctx["exact"] and F and not ctx["background"]:
            need(gen == F, f"{pfx}{gen} flows generated, flows = {F}")
        return gen, gen * const if const else None
    w.check = check
    return w


def layers_file(r, d, cap):
    """A layers CSV: (its name, the compute time of its rows, or None without times)."""
    name = f"layers{r.randrange(10**9)}.csv"
    L = r.randrange(1, 12)
    timed = r.random() < 0.5
    total = 0.0
    with open(os.path.join(d, name), "w") as f:
        f.write("# drawn by random-configs.py\n")
        f.write("size_bytes,forward_s,backward_s\n" if timed else "size_bytes\n")
        for _ in range(L):
            s = min(r.choice([0, 1, 100, 4000, 50000, 300000]), int(cap / L))
            if timed:
                fw, bw = r.choice([0, 1e-6, 5e-6]), r.choice([0, 2e-6, 1e-5])
                total += fw + bw
                f.write(f"{s},{fw!r},{bw!r}\n")
            else:
                f.write(f"{s}\n")
    return name, total if timed else None


def wl_training(r, d, n, env):
    a = {}
    Wk = r.randrange(2, min(n, 8) + 1)
    if Wk != 2 or r.random() < 0.5:
        a["workers"] = str(Wk)
    iters = 1
    if r.random() < 0.7:
        iters = r.randrange(1, 4)
        a["iterations"] = str(iters)
    budget = env["budget"]
    M = None
    file_ = False
    file_tc = None
    if r.random() < 0.2:
        file_ = True
        lf, file_tc = layers_file(r, d, budget / (2 * Wk * iters))
        if r.random() < 0.3:
            lf, file_tc = "resnet50-layers.csv", None
        a["layers-file"] = lf
        if r.random() < 0.5 or a["layers-file"] == "resnet50-layers.csv":
            M = r.choice([1000, 100000, 1000000])
            a["model-size"] = f"{M}B"
    else:
        if r.random() < 0.1:
            M = r.choice([1, 3, 7])  # fewer bytes than workers or layers
        else:
            M = r.choice([1000, 10000, 100000, 1000000])
            M = int(max(16, min(M, budget / (2 * max(Wk - 1, 1) * iters))))
        a["model-size"] = f"{M}B"
        if r.random() < 0.7:
            a["layers"] = str(r.randrange(1, 30))
        if r.random() < 0.5:
            a["layer-sizes"] = r.choice(["resnet50", "uniform"])
    Tc = r.choice([0.0, 1e-6, 1e-5, 1e-4])
    if Tc or r.random() < 0.5:
        a["compute-time"] = fmt_time(Tc) if Tc else "0s"
    if file_tc is not None:
        Tc = file_tc  # a file's own times are the compute (compute-time is not used)
    if r.random() < 0.3:
        a["backward-ratio"] = str(r.choice([0.5, 1, 2, 3]))
    if r.random() < 0.3:
        a["time-ratio"] = str(r.choice([0.2, 0.5, 1, 2]))
    if r.random() < 0.7:
        a["fusion-buffer"] = r.choice(["0B", "100B", "1kB", "64kB", "1MB"])
    stop = False
    if r.random() < 0.1 and Tc > 0:
        stop = True
        a["stop-time"] = fmt_time(Tc * r.choice([0.5, 1.5, 2.5]))
    if r.random() < 0.4:
        a["queue"] = r.choice(["fifo", "priority"])
    if r.random() < 0.4:
        a["barrier"] = r.choice(["on", "off"])
    inner = ""
    vef = r.random() < 0.15
    if vef:
        a["negotiation"] = "vef"
        va = {"loop": r.choice(["1us", "exponential(2us)", "0s"]), "gatherv-prob": str(r.choice([0.3, 0.7, 1])),
              "gatherv-total": r.choice(["60B", "120B"]), "gatherv-size": "60B"}
        if r.random() < 0.5:
            va["bcast-size"] = r.choice(["1B", "1kB"])
        inner = "\n    <vef " + " ".join(f'{k}="{v}"' for k, v in va.items()) + "/>\n  "
    mb = M or 102228128
    w = Workload("training", a, inner, est_bytes=2 * mb * iters,
                 est_s=iters * (Tc + 2 * mb * 8 / env["B"] + 1e-4))
    exact_m = M is not None and not file_

    def check(row, pfx, ctx):
        g = lambda k: num(row, pfx + k)
        ic, fus, ar = g("iterations_completed"), g("fusions"), g("allreduces")
        need(ic is not None and fus is not None and ar == fus * ic, f"{pfx}allreduces {ar}, {fus} fusions x {ic} iterations")
        if ctx["exact"] and not stop:
            need(ic == iters, f"{pfx}{ic} of {iters} iterations")
        if stop:
            need(ic <= iters, f"{pfx}{ic} iterations, at most {iters}")
        if not ic:
            return (0, 0) if ctx["exact"] else (None, None)
        mean, first, mx = g("iteration_time_mean_s"), g("iteration_time_first_s"), g("iteration_time_max_s")
        need(0 <= mean <= mx * (1 + 1e-12) and first <= mx * (1 + 1e-12), f"{pfx}iteration times mean {mean} "
             f"first {first} max {mx}")
        lu = g("link_utilization")
        need(lu is None or -1e-12 <= lu <= 1 + 1e-9, f"{pfx}link_utilization {lu}")
        if not ctx["exact"]:
            return None, None
        # layer times are rounded to the picosecond one by one: a few ps off Tc
        need(mean >= Tc - 1e-10, f"{pfx}iteration {mean} s shorter than its compute {Tc} s")
        need(close(g("exposed_comm_mean_s"), mean - Tc, abs_=1e-10),
             f"{pfx}exposed_comm {g('exposed_comm_mean_s')}, iteration - compute {mean - Tc}")
        B, W = ctx["B"], Wk
        msgs = ar * 2 * (W - 1) * W
        rounds = g("negotiation_rounds")
        if vef:
            need(rounds is not None and rounds >= fus * ic, f"{pfx}{rounds} negotiation rounds for {fus * ic} fusions")
            msgs += rounds * 4 * (W - 1)
        else:
            need(rounds is None, f"{pfx}negotiation_rounds {rounds} without negotiation")
        byts = None
        if exact_m:
            R = g("compute_to_network_ratio")
            need(R is not None and abs(R * 16 * (1 - 1 / W) * M / B - Tc) <= 1e-10,
                 f"{pfx}R {R}, Tc B / (16 (1 - 1/W) M) = {Tc * B / (16 * (1 - 1 / W) * M)}")
            if mean > 0:
                need(close(lu, 16 * (W - 1) * M / (W * B * mean), rel=1e-6), f"{pfx}link_utilization {lu}, "
                     f"16 (W-1) M / (W B iteration) = {16 * (W - 1) * M / (W * B * mean)}")
            if not vef:
                byts = 2 * (W - 1) * M * ic
        return msgs, byts
    w.check = check
    return w


VEF_MODELS = ["GOOGLE", "WEBSEARCH", "MEMCACHED", "HADOOP", "W1", "W3", "W5", "google-allrpc"]


def wl_vef(r, d, n, env):
    """An extended VEF trace (DCNW, CDCNW or FLOWS; keywords in any order and
    case): flows = #Msgs, the dc-flows model's checks."""
    tasks = r.randrange(2, n + 1) if n > 2 else 2
    pkt, B = env["pkt"], env["B"]
    msgs = r.randrange(1, 120 if pkt is None else 40)
    name = f"t{r.randrange(10**9)}.vef"
    dest = r.choice(["", " UNIFORM", " GAUSS", " POISSON"])
    load = r.choice(["", " LOAD 0.5", " load 2", " LOAD 0.05"])
    form = r.random()
    nclasses = 0
    if form < 0.4 and pkt is None:
        body = f"EXT DCNW\n{r.choice(VEF_MODELS)}{dest}{load}\n"
    elif form < 0.6:
        cdf = empirical(r, d, [100, 20000 if pkt is None else 20 * pkt])
        body = f"EXT CDCNW\n{cdf[len('empirical('):].split(',')[0].rstrip(')')}{dest}{load}\n"
    else:
        nclasses = r.randrange(1, 7)
        hi_kb = 50 if pkt is None else max(1, 20 * pkt // 1000)
        t = r.choice([1000, 100000, 10000000])
        body = f"EXT FLOWS\nCLASSES {nclasses} TIME {t}{dest}\n"
        percs = [1] * nclasses
        for _ in range(100 - nclasses):
            percs[r.randrange(nclasses)] += 1
        ids = list(range(nclasses))
        r.shuffle(ids)
        for k in ids:
            mn = r.randrange(1, hi_kb + 1)
            mx = r.randrange(mn, hi_kb + 1)
            fields = [f"MAX {mx}", f"MIN {mn}", f"PERC {percs[k]}"]
            r.shuffle(fields)
            body += f"{k} {' '.join(fields)}{r.choice(['', '', ' gauss'])}\n"
    with open(os.path.join(d, name), "w") as f:
        f.write(f"# drawn by random-configs.py\nVEF3 {tasks} {msgs} 0 0 0 0 {r.choice([1000, 1, 10000])}\n{body}")
    w = Workload("vef", {"file": name}, est_bytes=msgs * 20000, est_s=1e-3, exclusive=False)

    def check(row, pfx, ctx):
        g = lambda k: num(row, pfx + k)
        gen, meas = g("flows_generated"), g("flows_measured")
        need(gen == msgs and meas == msgs, f"{pfx}{gen} flows generated, {meas} measured, the trace has {msgs}")
        buckets = sum(g(f"flows_{b}") or 0 for b in ("small", "medium", "large"))
        need(buckets == meas, f"{pfx}small + medium + large = {buckets}, {meas} measured")
        ex = g("execution_time_s")
        mu, smu = g("fct_mean_s"), g("fct_slowdown_mean")
        need(0 < mu <= ex * (1 + 1e-12) and (ctx["segmented"] or smu >= 1 - 1e-9),
             f"{pfx}fct mean {mu} slowdown {smu}, last {ex}")
        return (msgs if ctx["exact"] else None), None
    w.check = check
    return w


def wl_dag(r, d, n, env):
    """A random task graph in DOT (a DAG: edges go from lower to higher
    index), some tasks placed, jobs arriving or back to back: every job
    completes, job time = queue + service."""
    name = f"g{r.randrange(10**9)}.dot"
    k = r.randrange(1, 12)
    hi = 20000 if env["pkt"] is None else 10 * env["pkt"]
    lines = [f"// drawn by random-configs.py\ndigraph g{r.randrange(100)} {{"]
    for i in range(k):
        at = f'compute="{r.choice([0, 1, 10, 100])}us"'
        if r.random() < 0.2:
            at += f' "node"="{r.randrange(1, n)}"'
        lines.append(f"  t{i} [{at}];")
    edges = 0
    for j in range(1, k):
        for i in r.sample(range(j), r.randrange(0, min(j, 3) + 1)):
            lines.append(f'  t{i} -> t{j} [size="{r.randrange(0, hi)}B"];')
            edges += 1
    lines.append("}\n")
    with open(os.path.join(d, name), "w") as f:
        f.write("\n".join(lines))
    jobs = r.randrange(1, 20)
    a = {"file": name, "jobs": str(jobs)}
    a["arrival-rate"] = f"{r.choice([1000, 10000, 100000])}/s"
    w = Workload("dag", a, est_bytes=jobs * edges * hi / 2, est_s=1e-3, stoppable=True, open_loop=False)

    def check(row, pfx, ctx):
        done, jt = num(row, pfx + "jobs_completed"), num(row, pfx + "job_time_mean_s")
        if ctx["exact"]:
            need(done == jobs, f"{pfx}jobs_completed {done}, {jobs} jobs")
        q, sv = num(row, pfx + "queue_time_mean_s"), num(row, pfx + "service_time_mean_s")
        need(jt is not None and jt >= 0 and abs(jt - q - sv) <= 1e-9 * max(jt, 1e-9),
             f"{pfx}job time {jt} != queue {q} + service {sv}")
        return None, None
    w.check = check
    return w


FILE_WORKLOADS = {"vef": wl_vef, "dag": wl_dag}


WORKLOADS = {"task-tree": wl_task_tree, "uniform-random": wl_uniform, "kernel": wl_kernel,
             "pattern": wl_pattern, "dc-flows": wl_dc_flows, "training": wl_training}


# ------------------------------------------------------------- configurations

WL_NAMES = ["a", "b", "c", "jobs", "noise", "train", "bg", "k1", "flows", "pat", "w-2", "x_y"]


class Config:
    """A configuration and what its checks need."""

    def __init__(self):
        self.nodes = 0
        self.net, self.phy, self.tr = {}, {}, {}
        self.wls = []
        self.run = {}
        self.axes = []
        self.shapes = {}           # fabric -> its <network> attributes (hop bounds)
        self.nodes_swept = False
        self.fabric_sweep = False  # the same traffic on every fabric of the sweep

    def xml(self):
        attrs = lambda d: " ".join(f'{k}="{v}"' for k, v in d.items())
        phy_el = f"<phy {attrs(self.phy)}/>" if self.phy else ""
        sweep = "\n  <sweep>\n    " + "\n    ".join(self.axes) + "\n  </sweep>" if self.axes else ""
        return (f'<tasknet version="1">\n  <system nodes="{self.nodes}"/>\n'
                f'  <network {attrs(self.net)}>{phy_el}</network>\n'
                + (f'  <transport {attrs(self.tr)}/>\n' if self.tr else "")
                + "".join(w.xml() for w in self.wls) +
                f'  <run {attrs(self.run)}/>{sweep}\n</tasknet>\n')


def budget_of(pkt):
    """Bytes a run may move: about 4000 packets where messages are cut, else
    plenty (a message is an event or two whatever its size)."""
    return 4000.0 * pkt if pkt else 2e8


def env_of(info, B, mix=False, bg=False, zeta_ok=False):
    return {"pkt": info["pkt"], "budget": budget_of(info["pkt"]), "B": B, "mix": mix, "bg": bg,
            "zeta_ok": zeta_ok, "fabric": info["fabric"]}


def single(r, d, c, info):
    N = c.nodes
    B = bps(c.net["bandwidth"])
    t = r.choice(list(WORKLOADS))
    if r.random() < 0.15:
        t = r.choice(list(FILE_WORKLOADS))
    zeta_ok = info["fabric"] in ("ideal", "electrical-switch")
    w = dict(WORKLOADS, **FILE_WORKLOADS)[t](r, d, N, env_of(info, B, zeta_ok=zeta_ok))
    if t == "task-tree" and w.zeta:
        c.net.pop("bandwidth")
        c.net["zeta"] = str(r.choice([0.5, 1, 4]))
    if r.random() < 0.1:
        # alone but through the mapping: named, some nodes, a class
        w.name = r.choice(WL_NAMES)
        if r.random() < 0.5:
            w.attrs["priority"] = r.choice(["high", "low", "3"])
    c.wls.append(w)
    c.run["replicas"] = str(r.randrange(1, 4))
    c.run["seed"] = str(r.randrange(0, 2 ** 32))
    if t == "task-tree":
        c.run["mc-samples"] = str(r.choice([50, 200]))
    # one sweep, or none
    pfx = f"workload.{w.name}." if w.name else "workload."
    kind = r.random()
    fab = info["fabric"]
    if kind < 0.15 and "zeta" not in c.net:
        vals = ["40Gb/s", "160Gb/s"] if fab == "spinet" else ["1Gb/s", "5Gb/s", "10Gb/s", "40Gb/s"]
        if fab in SWNET:
            vals = ["10Gb/s", "40Gb/s", "100Gb/s"]
        vals = r.sample(vals, r.randrange(1, len(vals)))
        # the budget was drawn at the configuration's B: keep it the largest
        if c.net["bandwidth"] not in vals:
            vals.append(c.net["bandwidth"])
        c.axes.append(f'<axis param="network.bandwidth" values="{" ".join(vals)}"/>')
    elif kind < 0.25 and fab in ("ideal", "electrical-switch") and not w.name and t not in ("training", "vef", "dag"):
        hi = N if t in ("kernel", "pattern") else 60
        need_n = int(w.attrs.get("tasks", "2"))
        vals = sorted(set(r.randrange(max(2, need_n), max(hi, need_n) + 1) for _ in range(r.randrange(1, 4))))
        if t in ("kernel", "pattern") and "tasks" not in w.attrs:
            vals = [v for v in vals if v <= N] or [N]
        if t == "pattern" and w.attrs.get("pattern") == "ptrnvsptrn":
            vals = [N]
        c.axes.append(f'<axis param="system.nodes" values="{" ".join(map(str, vals))}"/>')
        c.nodes_swept = True
    elif kind < 0.35 and fab in SWNET:
        vals = r.sample(["default"] + ROUTINGS[fab], r.randrange(1, len(ROUTINGS[fab]) + 2))
        c.net.pop("routing", None)
        c.axes.append(f'<axis param="network.routing" values="{" ".join(vals)}"/>')
    elif kind < 0.42 and fab in SWNET:
        c.net.pop("flow-control", None)
        c.axes.append('<axis param="network.flow-control" values="credit infinite"/>')
    elif kind < 0.5 and (fab == "electrical-switch" or c.net.get("host-link") == "shared" or fab == "spinet"):
        c.net.pop("host-scheduling", None)
        vals = r.sample(["fifo", "round-robin", "priority", "srpt"], r.randrange(2, 5))
        c.axes.append(f'<axis param="network.host-scheduling" values="{" ".join(vals)}"/>')
    elif kind < 0.6:
        choices = {"uniform-random": ("offered-load", [["0.1", r.choice(["0.5", "1.2"])]]),
                   "dc-flows": ("destinations", [["uniform", "gaussian", "poisson"]]),
                   "training": (r.choice(["queue", "barrier"]), None),
                   "kernel": ("mapping", [["identity", "random"]]),
                   "pattern": ("levels", [["barrier", "dependency", "free"]])}
        if t in choices:
            attr, vals = choices[t]
            if vals is None:
                vals = [["fifo", "priority"]] if attr == "queue" else [["on", "off"]]
            if t == "uniform-random" and "messages" in w.attrs:
                pass
            else:
                w.attrs.pop(attr, None)
                c.axes.append(f'<axis param="{pfx}{attr}" values="{" ".join(vals[0])}"/>')
        elif t == "task-tree":
            c.axes.append(f'<axis param="{pfx}tree.generator" values="deterministic"/>')
            c.axes.append(f'<axis param="{pfx}tree.z"><value>2 2</value><value> 3 </value></axis>')
            w.inner = w.inner.replace('generator="preferential"', 'generator="deterministic" z="2"')
            w.inner = re.sub(r' vertices="[^"]*" shape="[^"]*"', "", w.inner)


def node_block(r, o, s, N, form=None):
    """Nodes o .. o+s-1 written one of the ways tasknet reads."""
    form = form or r.choice(["range", "range", "contiguous", "list"])
    if form == "contiguous":
        return f"contiguous({o},{s})"
    if form == "list" and s >= 3:
        return f"{o},{o + 1}-{o + s - 1}"
    return f"{o}-{o + s - 1}"


def mix(r, d, c, info):
    N = c.nodes
    B = bps(c.net["bandwidth"])
    k = r.choice([2, 2, 3])
    types = [r.choice(list(WORKLOADS)) for _ in range(k)]
    names = r.sample(WL_NAMES, k)
    exclusive = [t in ("task-tree", "kernel", "pattern", "training") for t in types]
    # at most one background, among the workloads that can stop
    bg = -1
    stoppable = [i for i, t in enumerate(types) if t in ("task-tree", "uniform-random", "dc-flows")]
    if stoppable and r.random() < 0.4:
        bg = r.choice(stoppable)
        if bg >= 0 and all(i == bg for i in range(k)):
            bg = -1
        # a kernel or pattern cannot tell when it has finished: a background
        # beside one is refused (kept now and then to see the refusal)
        if bg >= 0 and any(t in ("kernel", "pattern") for t in types) and r.random() < 0.9:
            bg = -1
    # exclusive workloads on disjoint blocks of nodes
    ex = [i for i in range(k) if exclusive[i]]
    free = N
    cursor = 0
    nodes = [None] * k
    counts = [N] * k
    order = list(range(k))
    for j, i in enumerate(ex):
        left = len(ex) - j - 1
        avail = free - 2 * left
        if avail < 2:
            exclusive[i] = False
            types[i] = r.choice(["uniform-random", "dc-flows"])
            continue
        s = r.randrange(2, avail + 1)
        if r.random() < 0.15 and j == len(ex) - 1:
            nodes[i] = f"random({s})"
        else:
            nodes[i] = node_block(r, cursor, s, N)
            cursor += s
        counts[i] = s
        free -= s
    for i in range(k):
        if nodes[i] is None:
            f = r.random()
            if f < 0.5:
                nodes[i] = "all"
            elif f < 0.7:
                s = r.randrange(2, N + 1)
                nodes[i] = f"random({s})"
                counts[i] = s
            elif f < 0.85 and N >= 4:
                step = r.randrange(1, max(2, N // 2))
                s = r.randrange(2, (N - 1) // step + 2)
                nodes[i] = f"interleaved(0,{step},{s})"
                counts[i] = s
            else:
                o = r.randrange(0, N - 1)
                s = r.randrange(2, N - o + 1)
                nodes[i] = node_block(r, o, s, N)
                counts[i] = s
    for i in range(k):
        w = WORKLOADS[types[i]](r, d, counts[i], env_of(info, B, mix=True, bg=(i == bg)))
        w.name = names[i]
        w.background = i == bg
        if nodes[i] != "all" or r.random() < 0.3:
            w.attrs["nodes"] = nodes[i]
        if r.random() < 0.3:
            w.attrs["priority"] = r.choice(["0", "1", "5", "7", "high", "low"])
        if i == bg:
            w.attrs["role"] = "background"
        elif r.random() < 0.05:
            w.attrs["role"] = "foreground"
        if r.random() < 0.1:
            w.attrs["exclusive"] = "no" if exclusive[i] else r.choice(["auto", "no"])
        w.n = counts[i]
        c.wls.append(w)
    c.run["replicas"] = str(r.randrange(1, 3))
    c.run["seed"] = str(r.randrange(0, 2 ** 32))
    if "task-tree" in types:
        c.run["mc-samples"] = "50"
    if r.random() < 0.2:
        w = r.choice(c.wls)
        if w.type == "dc-flows" and "load" in w.attrs and not w.background:
            c.axes.append(f'<axis param="workload.{w.name}.load" values="{w.attrs.pop("load")} 0.1"/>')
        elif w.type == "training":
            w.attrs.pop("queue", None)
            c.axes.append(f'<axis param="workload.{w.name}.queue" values="fifo priority"/>')
        elif w.type in ("kernel", "pattern"):
            w.attrs.pop("priority", None)
            c.axes.append(f'<axis param="workload.{w.name}.priority" values="0 7"/>')


def fabric_sweep(r, d, c):
    """One N, several fabrics zipped with their routings: the same traffic on each."""
    N = r.choice([4, 8, 16, 32])
    cands = {"ideal": {}, "electrical-switch": {}, "spinet": {"packet-size": r.choice(["1kB", "4kB"])}}
    tor = [dims for dims in ([N], [2, N // 2], [4, N // 4], [2, 2, N // 4]) if all(x >= 2 for x in dims)]
    cands["torus"] = {"dims": " ".join(map(str, r.choice(tor)))}
    ft = [(k, l) for k in range(2, N + 1) for l in range(1, 6) if k ** l == N]
    k_, l_ = r.choice(ft)
    cands["fat-tree"] = {"arity": str(k_), "levels": str(l_)}
    ls = [(lv, N // lv) for lv in range(1, N + 1) if N % lv == 0 and N // lv >= 1]
    lv, h = r.choice(ls)
    cands["leaf-spine"] = {"leaves": str(lv), "hosts-per-leaf": str(h), "spines": str(r.randrange(1, 5))}
    df = [s for s in dragonfly_shapes(N) if s[0] * s[1] * s[2] == N]
    if df:
        g, a, hh, gl = r.choice(df)
        cands["dragonfly"] = {"groups": str(g), "routers-per-group": str(a), "hosts-per-router": str(hh),
                              "global-links": str(gl)}
    fabs = r.sample(sorted(cands), r.randrange(2, min(5, len(cands)) + 1))
    types, routings = [], []
    for f in fabs:
        for rt in ([None] if f not in SWNET else r.sample(["default"] + ROUTINGS[f], r.randrange(1, 3))):
            types.append(f)
            routings.append(rt or "default")
    c.nodes = N
    c.net = {"type": types[0], "bandwidth": r.choice(["10Gb/s", "40Gb/s"])}
    for f in fabs:
        c.net.update(cands[f])
        c.shapes[f] = cands[f]
    if "spinet" in fabs:
        c.net["protocol"] = r.choice(["fast-nack", "nack", "ack", "slotted"])
    c.axes.append(f'<axis param="network.type" values="{" ".join(types)}"/>')
    if any(f in SWNET for f in fabs):
        c.axes.append(f'<axis param="network.routing" with="network.type" values="{" ".join(routings)}"/>')
    c.fabric_sweep = True
    pkt = 1000 if "spinet" in fabs else (4096 if any(f in SWNET for f in fabs) else None)
    info = {"fabric": "mixed", "pkt": pkt}
    B = bps(c.net["bandwidth"])
    t = r.choice(["uniform-random", "kernel", "pattern", "dc-flows", "training"])
    w = WORKLOADS[t](r, d, N, env_of(info, B))
    if t == "pattern" and w.attrs.get("pattern") == "ptrnvsptrn":
        w.attrs["pattern"] = "bruck"
        w.inner = ""
        w.open_loop = True
    c.wls.append(w)
    c.run["replicas"] = str(r.randrange(1, 3))
    c.run["seed"] = str(r.randrange(0, 2 ** 32))


def config(r, d):
    c = Config()
    kind = r.random()
    if kind < 0.12:
        fabric_sweep(r, d, c)
        return c
    net, phy, n, info = fabric(r)
    c.nodes, c.net, c.phy, c.tr = n, net, phy, info["tr"]
    c.shapes[info["fabric"]] = dict(net)
    if kind < 0.4 and n >= 2:
        mix(r, d, c, info)
    else:
        single(r, d, c, info)
    return c


# ------------------------------------------------------------- checks

def tn(binary, *args, cwd=None, env=None):
    p = subprocess.run([binary, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    return p.returncode, p.stdout + p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_run(row, out, c, pt, exact):
    rid = row["run"]
    eps = 1e-12
    fab = pt.get("network.type", c.net["type"])
    try:
        sent, dlv = num(row, "messages_sent"), num(row, "messages_delivered")
        need(sent == dlv, f"{dlv} of {sent} messages delivered")
        for pre in ("msg_latency", "msg_latency_control", "msg_latency_data"):
            v = [num(row, f"{pre}_{s}") for s in ("p50_s", "p99_s", "max_s")]
            if v[0] is not None:
                need(0 <= v[0] <= v[1] + eps and v[1] <= v[2] + eps, f"{pre}: p50 {v[0]} p99 {v[1]} max {v[2]}")
        for cls in ("", "_control", "_data"):
            h, t = num(row, f"msg_head_latency{cls}_mean_s"), num(row, f"msg_latency{cls}_mean_s")
            if t is not None:
                need(h is not None and 0 <= h <= t * (1 + 1e-12) + eps, f"head latency{cls} {h} > last-bit {t}")
        hm, tm = num(row, "msg_head_latency_max_s"), num(row, "msg_latency_max_s")
        if tm is not None:
            need(hm is not None and hm <= tm * (1 + 1e-12) + eps, f"head max {hm} > last-bit max {tm}")
        if fab != "ideal":
            v = num(row, "network_utilization")
            # span_s is the window from the first workload's first activity
            # to the last one's end, so this holds for mixes too
            if v is not None:
                need(-eps <= v <= 1 + 1e-9, f"network_utilization = {v} on {fab}")
        # lossless fabrics lose nothing; a transport delivers every message
        # once (above), whatever it dropped and resent
        if c.tr and exact:
            drops = num(row, "drops")
            if c.net.get("flow-control") == "pfc":
                need(drops == 0, f"{drops} packets dropped under PFC")
            if c.net.get("buffer", "0B") == "0B" and fab != "spinet" and c.net.get("flow-control") != "pfc":
                need(not drops, f"{drops} packets dropped by unbounded buffers")
            rt = num(row, "retransmissions")
            need(rt is None or rt >= 0, f"retransmissions {rt}")
        # the switched topologies' own metrics
        if fab in SWNET and dlv:
            routing = pt.get("network.routing", c.net.get("routing"))
            lo, hi = hop_bounds(fab, c.shapes[fab], routing)
            hops = num(row, "hops_mean")
            need(hops is not None and lo - 1e-9 <= hops <= hi + 1e-9,
                 f"hops_mean {hops} outside [{lo}, {hi}] on {fab} ({routing or 'default'} routing)")
            lm, lx = num(row, "link_utilization_mean"), num(row, "link_utilization_max")
            need(0 <= lm <= lx * (1 + 1e-12) + eps and lx <= 1 + 1e-9, f"link utilisation mean {lm} max {lx}")
            sb = num(row, "saturation_bound")
            need(sb is not None and sb > 0, f"saturation_bound {sb}")
        # the workloads' own columns, and what they sent together
        B = num(row, "bandwidth_bps")
        N = int(pt.get("system.nodes", c.nodes))
        msgs, byts = 0, 0
        for w in c.wls:
            # a named workload's columns carry its name, alone or in a mix
            pfx = f"{w.name}." if w.name else ""
            n = N if len(c.wls) == 1 and "nodes" not in w.attrs else w.n if hasattr(w, "n") else N
            ctx = {"fabric": fab, "B": B, "n": n, "exact": exact, "background": w.background,
                   "alone": len(c.wls) == 1,
                   "segmented": bool(c.tr) and fab != "ideal" and not (
                       fab == "electrical-switch" and c.net.get("switching", "cut-through") == "cut-through")}
            m, b = w.check(row, pfx, ctx)
            msgs = None if m is None or msgs is None else msgs + m
            byts = None if b is None or byts is None else byts + b
        if exact and msgs is not None:
            need(sent == msgs, f"{sent} messages sent, the workloads' own add up to {msgs}")
        if exact and byts is not None:
            need(num(row, "bytes_delivered") == byts,
                 f"{num(row, 'bytes_delivered')} bytes delivered, the workloads' own add up to {byts}")
        # a background workload stops once every foreground one has finished
        # (not under a transport: flows in flight when the background stops
        # finish under its timers, an RTO or more later; seed 1 configuration
        # 429, dctcp over SPINet, ran 0.25 s on: left open in the notes)
        if exact and any(w.background for w in c.wls) and not c.tr:
            fg = [w for w in c.wls if not w.background]
            if all(w.est_s < 2e-3 for w in fg):
                bg = next(w for w in c.wls if w.background)
                if bg.type == "task-tree":
                    # no job arrives after the stop; those that did complete
                    # (a queue of them can take long on few nodes)
                    rate = float(bg.attrs["arrival-rate"].split("/")[0])
                    done = num(row, f"{bg.name}.jobs_completed")
                    need(done <= rate * 10e-3 + 20, f"{done} background jobs completed: the background ran on "
                         f"after the foreground ({', '.join(w.name for w in fg)}) finished")
                else:
                    span = num(row, "span_s")
                    need(span < 25e-3, f"span {span} s: the background ran on after the foreground "
                         f"({', '.join(w.name for w in fg)}) finished")
        # the histogram: its checksum, and all its messages
        hist = read(os.path.join(out, "latency", f"run-{rid}.csv"))
        need(f"{fnv(hist):016x}" == row["latency_csv_fnv1a64"], "histogram does not match its checksum")
        total = sum(int(line.split(",")[3]) for line in hist.decode().splitlines()[1:] if line.startswith("all,"))
        need(total == dlv, f"histogram counts {total} messages, {dlv} delivered")
    except Broken as e:
        raise Broken(f"run {rid} ({fab}): {e}")


def check_same_traffic(got, table):
    """A zipped fabric sweep: each replica sends the same messages and bytes on every fabric."""
    seen = {}
    for row, t in zip(got, table):
        key = t["replica"]
        val = (row["messages_sent"], row["bytes_delivered"])
        if key in seen and seen[key][1] != val:
            raise Broken(f"replica {key}: {val[0]} messages of {val[1]} B on {t.get('network.type')} "
                         f"({t.get('network.routing', '')}), {seen[key][1][0]} of {seen[key][1][1]} B on "
                         f"{seen[key][0]}: the same seed must send the same traffic on every fabric")
        seen.setdefault(key, (f"{t.get('network.type')} ({t.get('network.routing', '')})", val))


def same_files(a, b, what):
    for name in ("runs.csv", "summary.csv"):
        if read(os.path.join(a, name)) != read(os.path.join(b, name)):
            raise Broken(f"{what}: {name} differs")
    la, lb = sorted(os.listdir(os.path.join(a, "latency"))), sorted(os.listdir(os.path.join(b, "latency")))
    la = [x for x in la if x.startswith("run-")]
    lb = [x for x in lb if x.startswith("run-")]
    if la != lb or any(read(os.path.join(a, "latency", x)) != read(os.path.join(b, "latency", x)) for x in la):
        raise Broken(f"{what}: latency histograms differ")
    # a workload's own files (pattern: congestion_*.csv)
    fa = sorted(x for x in os.listdir(a) if x.startswith("congestion_"))
    fb = sorted(x for x in os.listdir(b) if x.startswith("congestion_"))
    if fa != fb or any(read(os.path.join(a, x)) != read(os.path.join(b, x)) for x in fa):
        raise Broken(f"{what}: congestion files differ")


# Values at or past the limits, set on the command line of some
# configurations: each must be refused with a message by validate and run
# alike, or run (and then hold every invariant). {w} is a workload's prefix
# (workload. or workload.NAME.).
PERTURB_NET = [
    "network.switch-latency=1e5s",      # a horizon past the clock
    "system.nodes=3",                   # not a power of two (SPINet), not the topology's
    "system.nodes=100000000",
    "run.replicas=1000000000",          # the run table
    "network.bandwidth=1b/s",           # messages longer than a run
    "network.packet-size=0B",           # out of range
    "network.link-latency=-1ns",
    "run.seed=18446744073709551615",    # the largest seed: fine
    "network.dims=1", "network.dims=0 4", "network.dims=65536 65536", "network.dims=2 2 2 2 2 2 2 2 2 2",
    "network.twist=7", "network.twist=4294967295",
    "network.arity=1", "network.levels=0", "network.levels=64", "network.arity=4294967295",
    "network.leaves=0", "network.spines=0", "network.hosts-per-leaf=0", "network.spines=4294967295",
    "network.leaves=4294967295",
    "network.groups=1", "network.global-links=0", "network.routers-per-group=0", "network.global-links=5",
    "network.hosts-per-router=4294967295", "network.groups=4294967295",
    "network.mtu=0B", "network.mtu=2GB", "network.mtu=128B", "network.mtu=1e30B",
    "network.vc-buffer=1B", "network.vc-buffer=1TB", "network.vc-buffer=0B",
    "network.flow-control=lossy", "network.routing=ugal", "network.routing=adaptive", "network.routing=random-up",
    "network.priority=strict", "network.priority=control-first",
    "network.host-scheduling=lifo", "network.host-scheduling=srpt", "network.host-link=shared",
    "network.host-link=none",
]
PERTURB_WL = [
    "{w}jobs=100000000", "{w}offered-load=3e8", "{w}tree.vertices=uniform-int(0,3)",
    "{w}tasks=1", "{w}tasks=100000", "{w}root=99", "{w}wave=0", "{w}total-messages=0",
    "{w}total-messages=1e15", "{w}iterations=0", "{w}iterations=4294967295",
    "{w}receivers=1000", "{w}neighbors=0", "{w}neighbors=4294967295", "{w}foreground.tasks=1",
    "{w}pattern=ptrnvsptrn", "{w}timing=off",
    "{w}sizes=nosuch", "{w}sizes=empirical(/dev/null)", "{w}load=0", "{w}flow-rate=1e30/s", "{w}duration=1e6s",
    "{w}flows=0", "{w}class0.share=1.5", "{w}destination-mean=2", "{w}warmup=1e3s", "{w}small-max=1TB",
    "{w}load-rate=1e30b/s",
    "{w}workers=1", "{w}workers=100000", "{w}model-size=0B", "{w}model-size=1e18B", "{w}fusion-buffer=-1B",
    "{w}time-ratio=0", "{w}vef.gatherv-prob=2", "{w}layers=0", "{w}layers=1000000", "{w}stop-time=-1s",
    "{w}compute-time=uniform(1s,2s)", "{w}layers-file=nosuch.csv", "{w}backward-ratio=1e308",
    "{w}message-size=0B", "{w}message-size=1e30B", "{w}priority=9", "{w}nodes=0-1000", "{w}nodes=random(0)",
    "{w}nodes=interleaved(0,0,3)", "{w}role=background", "{w}exclusive=yes", "{w}name=tree",
]


def perturbation(r, c):
    if r.random() < 0.4:
        return r.choice(PERTURB_NET)
    w = r.choice(c.wls)
    pfx = f"workload.{w.name}." if w.name else "workload."
    return r.choice(PERTURB_WL).replace("{w}", pfx)


def refusal_named(text, sets):
    """A refusal says where: the file (its line for what is written in it), or the --set option."""
    return "cfg.xml" in text or (sets and "--set" in text)


def one(binary, r, work, idx, stats):
    d = os.path.join(work, f"c{idx}")
    os.makedirs(d)
    c = config(r, d)
    xml = c.xml()
    sets = []
    if r.random() < 0.15:
        p = perturbation(r, c)
        xml = xml.replace("<tasknet version=\"1\">", f"<tasknet version=\"1\">\n  <!-- set {p} -->", 1)
        sets = ["--set", p]
    cfg = os.path.join(d, "cfg.xml")
    with open(cfg, "w") as f:
        f.write(xml)
    vst, vout = tn(binary, "validate", cfg, *sets)
    if vst not in (0, 1) or "internal error" in vout or "Sanitizer" in vout:
        raise Broken(f"validate: status {vst}\n{vout}")
    out = os.path.join(d, "out")
    st, text = tn(binary, "run", cfg, *sets, "-q", "--out", out)
    if st not in (0, 1) or "internal error" in text or "Sanitizer" in text:
        raise Broken(f"run: status {st}\n{text}")
    if (vst == 0) != (st == 0):
        raise Broken(f"validate says {vst}, run says {st}:\n{vout}\n{text}")
    if st != 0:
        if "error" not in text:
            raise Broken(f"refused without a message:\n{text}")
        if not refusal_named(vout, sets):
            raise Broken(f"refused without saying where (the file or the --set option):\n{vout}\n{text}")
        stats["refused"] += 1
        stats["last_refusal"] = " ".join(text.split())[:300]
        return
    stats["ran"] += 1
    exact = not sets
    if sets:  # the rest checks the runs of the configuration as it ran
        cfg = os.path.join(out, "config.xml")
        with open(cfg) as f:
            xml = f.read()
        if not c.fabric_sweep:
            attrs = dict(re.findall(r'(\S+)="([^"]*)"', xml.split("<network ")[1].split(">")[0]))
            c.shapes = {attrs["type"]: attrs}
            c.net = dict(c.net, type=attrs["type"], routing=attrs.get("routing", "default"))
    lst, listing = tn(binary, "run", cfg, "--list-runs")
    table = list(csv.DictReader(io.StringIO(listing)))
    got = rows(os.path.join(out, "runs.csv"))
    if len(got) != len(table):
        raise Broken(f"runs.csv has {len(got)} rows, the run table {len(table)}")
    for row, t in zip(got, table):
        for k in ("run", "point", "replica", "seed"):
            if row[k] != t[k]:
                raise Broken(f"row {row['run']}: {k} {row[k]}, the table says {t[k]}")
        pt = {k: v for k, v in t.items() if k not in ("run", "point", "replica", "seed", "done")}
        if not c.fabric_sweep and "network.type" not in pt:
            pt["network.type"] = xml.split('<network type="')[1].split('"')[0]
        check_run(row, out, c, pt, exact)
        stats["runs"] += 1
    if c.fabric_sweep and exact and all(w.open_loop for w in c.wls):
        check_same_traffic(got, table)
    before = {n: read(os.path.join(out, n)) for n in ("runs.csv", "summary.csv")}
    st, text = tn(binary, "run", cfg, "--out", out)
    if st != 0 or "\n0 runs in " not in "\n" + text:
        raise Broken(f"resume ran again (status {st}):\n{text}")
    for n, b in before.items():
        if read(os.path.join(out, n)) != b:
            raise Broken(f"resume changed {n}")
    out2 = os.path.join(d, "j2")
    st, text = tn(binary, "run", cfg, "-q", "-j", "2", "--out", out2)
    if st != 0:
        raise Broken(f"-j 2: status {st}\n{text}")
    same_files(out, out2, "-j 2")
    reps = int(xml.split('replicas="')[1].split('"')[0])
    if reps >= 2:
        out3 = os.path.join(d, "grow")
        st, text = tn(binary, "run", cfg, "-q", "--replicas", str(reps - 1), "--out", out3)
        st2, text2 = tn(binary, "run", cfg, "-q", "--out", out3)
        if st or st2:
            raise Broken(f"adding a replica: status {st}, {st2}\n{text}{text2}")
        same_files(out, out3, "adding a replica")
        stats["grown"] += 1
    for w in c.wls:
        stats["types"][w.type] = stats["types"].get(w.type, 0) + 1
    for f in (c.shapes if c.fabric_sweep else [c.net["type"]]):
        stats["fabrics"][f] = stats["fabrics"].get(f, 0) + 1
    if len(c.wls) > 1:
        stats["mixes"] += 1
    extra = [k for k in ("sack", "limited-transmit") if c.tr and c.tr.get(k) == "on"]
    extra += ["variant ns-3"] if c.tr and c.tr.get("variant") == "ns-3" else []
    extra += [k for k in ("failed-links", "fail-at", "degraded-links", "congestion-isolation") if k in c.net]
    for k in ([f"transport {c.tr['type']}"] if c.tr else []) + (["input-queued"] if c.net.get("router") else []) + extra:
        stats["models"][k] = stats["models"].get(k, 0) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasknet", default="./tasknet")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1, help="seed of the configurations drawn (default 1)")
    ap.add_argument("--keep", help="keep the failing configuration's folder here")
    ap.add_argument("--keep-going", action="store_true", help="report every failing configuration, not the first")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per configuration")
    ap.add_argument("--only", type=int, metavar="I",
                    help="run configuration I of --seed only (kept in --keep DIR even when it holds)")
    a = ap.parse_args()
    binary = os.path.abspath(a.tasknet)
    r = random.Random(a.seed)
    stats = {"ran": 0, "refused": 0, "runs": 0, "grown": 0, "last_refusal": "", "types": {}, "fabrics": {},
             "models": {}, "mixes": 0}
    work = tempfile.mkdtemp(prefix="tasknet-random-")
    t_start = time.time()
    failed = 0
    try:
        for i in ([a.only] if a.only is not None else range(a.count)):
            # every configuration draws from its own generator: --seed S
            # configuration i is the same whatever came before it
            ri = random.Random(f"{a.seed}:{i}")
            try:
                t0 = time.time()
                before = dict(stats)
                one(binary, ri, work, i, stats)
                if a.verbose:
                    what = "refused" if stats["refused"] > before["refused"] else f"{stats['runs'] - before['runs']} runs"
                    print(f"{i}: {what} in {time.time() - t0:.2f} s" +
                          (f": {stats['last_refusal']}" if what == "refused" else ""), flush=True)
            except (Broken, subprocess.TimeoutExpired) as e:
                d = os.path.join(work, f"c{i}")
                print(f"configuration {i} (seed {a.seed}) breaks an invariant: {e}", file=sys.stderr)
                print(open(os.path.join(d, "cfg.xml")).read(), file=sys.stderr)
                if a.keep:
                    shutil.copytree(d, os.path.join(a.keep, f"s{a.seed}-c{i}"), dirs_exist_ok=True)
                failed += 1
                if not a.keep_going:
                    return 1
            finally:
                if a.only is not None and a.keep and not failed:
                    shutil.copytree(os.path.join(work, f"c{i}"), os.path.join(a.keep, f"s{a.seed}-c{i}"),
                                    dirs_exist_ok=True)
                shutil.rmtree(os.path.join(work, f"c{i}"), ignore_errors=True)
            if (i + 1) % 50 == 0:
                print(f"{i + 1} configurations: {stats['ran']} ran ({stats['runs']} runs), "
                      f"{stats['refused']} refused, {time.time() - t_start:.0f} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        print(f"{failed} of {1 if a.only is not None else a.count} configurations break an invariant")
        return 1
    cover = lambda d: ", ".join(f"{k} {v}" for k, v in sorted(d.items()))
    print(f"{1 if a.only is not None else a.count} random configurations hold every invariant: {stats['ran']} ran ({stats['runs']} runs, "
          f"{stats['grown']} grown by a replica, {stats['mixes']} with several workloads), {stats['refused']} "
          f"refused with a message, in {time.time() - t_start:.0f} s\n  fabrics: {cover(stats['fabrics'])}\n"
          f"  workloads: {cover(stats['types'])}\n  models: {cover(stats['models'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
