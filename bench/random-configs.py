#!/usr/bin/env python3
"""Random configurations, every invariant: the slow check of tasknet.

    bench/random-configs.py [--tasknet ./tasknet] [--count 500] [--seed 1] [--keep DIR]

Draws --count configurations over the whole parameter space the shipped
plugins accept (fabric and its options, workload and its distributions,
empirical files, sweeps with zipped axes and <value> children, replicas),
small enough to run in a fraction of a second each, and checks for each:

  refusal    validate and run agree: a configuration is refused by both
             (status 1, a message, no crash) or by neither;
  table      runs.csv holds points x replicas rows, each the run its id says;
  metrics    per run: messages delivered = sent; 0 <= p50 <= p99 <= max of
             every latency; head latency <= last-bit latency (mean and max);
             utilisations and sync overhead in [0, 1] (network utilisation and
             throughput only below the ideal fabric); task-tree: every job
             completed, job time = queue + service time;
  histograms each run's latency/run-ID.csv matches its checksum in runs.csv
             and counts its delivered messages (class all);
  resume     the same command again runs nothing and leaves the files as
             they were;
  -j 2       gives byte-identical runs.csv, summary.csv and histograms;
  replicas   R - 1 replicas, then R, end byte-identical to R at once.

Exits 1 at the first configuration that breaks one (kept in --keep DIR, or
printed), 0 when all hold. Needs Python 3 and nothing else.
"""
import argparse
import csv
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile

FNV_OFF, FNV_PRIME = 1469598103934665603, 1099511628211


def fnv(data):
    h = FNV_OFF
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


class Broken(Exception):
    pass


# ------------------------------------------------------------- generator

def dist_time(r, workdir):
    lo = r.choice([1, 2, 5, 10, 20])
    hi = lo * r.choice([1, 2, 5, 10])
    return r.choice([
        f"{lo}us",
        f"uniform({lo}us,{hi}us)",
        f"exponential({lo}us)",
        f"normal({hi}us,{lo}us)",
        f"lognormal({lo}us,0.5)",
        empirical(r, workdir, [lo * 1e-6, hi * 1e-6]),
    ])


def dist_size(r, workdir, min1=False, lo_min=1):
    lo = r.choice([x for x in (1, 40, 100, 1000, 2000) if x >= lo_min])
    hi = lo * r.choice([1, 2, 10, 50])
    forms = [
        f"{lo}B",
        f"uniform({lo}B,{hi}B)",
        f"exponential({hi}B)",
        f"lognormal({lo}B,0.3)",
        f"uniform-int({lo}B,{hi}B)",
        empirical(r, workdir, [lo, hi]),
    ]
    if not min1:
        forms.append(f"normal({hi}B,{lo}B)")
    return r.choice(forms)


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


def config(r, workdir):
    """One random configuration: (xml text, fabric types it uses)."""
    fabric = r.choice(["ideal", "electrical-switch", "spinet"])
    nodes = 2 ** r.randrange(1, 7) if fabric == "spinet" else r.randrange(2, 80)
    workload = r.choice(["task-tree", "uniform-random"])
    net = {"type": fabric}
    phy = {}
    zeta = workload == "task-tree" and fabric != "spinet" and r.random() < 0.2
    if not zeta:
        net["bandwidth"] = f"{r.choice([1, 5, 10, 40, 160])}Gb/s"
    if r.random() < 0.5:
        net["link-latency"] = f"{r.choice([0, 5, 20, 100])}ns"
        net["switch-latency"] = f"{r.choice([0, 50, 200, 1000])}ns"
    if fabric == "electrical-switch":
        net["switching"] = r.choice(["cut-through", "store-and-forward"])
        net["priority"] = r.choice(["fifo", "control-first"])
    if fabric == "spinet":
        # a packet is dropped and retried every NACK round trip while the
        # output it needs is held: long packets at a low B retry thousands
        # of times (right, and slow): keep packets short against B
        net["bandwidth"] = f"{r.choice([40, 160])}Gb/s"
        net["extra-stages"] = str(r.randrange(0, 3))
        net["protocol"] = r.choice(["fast-nack", "nack", "ack", "slotted"])
        net["packet-size"] = r.choice(["256B", "1kB", "4kB"])
        net["link-length"] = r.choice(["0m", "1m", "4m"])
        net["buffer"] = r.choice(["0B", "10kB", "1MB"])
        if r.random() < 0.3:
            phy["wavelengths"] = str(r.choice([1, 4, 16]))
    wl = {"type": workload}
    inner = ""
    if workload == "task-tree":
        wl["jobs"] = str(r.randrange(1, 40))
        if r.random() < 0.5:
            wl["arrival-rate"] = f"{r.choice([500, 5000, 50000])}/s"
        else:
            wl["load"] = str(r.choice([0.1, 0.5, 0.9, 1.5]))
        if zeta:
            net["zeta"] = str(r.choice([0.5, 1, 4]))
        if r.random() < 0.5:
            z = " ".join(str(r.randrange(1, 4)) for _ in range(r.randrange(1, 4)))
            tree = f'<tree generator="deterministic" z="{z}"/>'
        else:
            v = r.choice(["1", "uniform-int(2,30)", "exponential(10)", "uniform-int(25,75)",
                          empirical(r, workdir, [1, 20])])
            tree = f'<tree generator="preferential" vertices="{v}" shape="{r.choice([0, 1, 2])}"/>'
        task = (f'<task init-time="{dist_time(r, workdir)}" aggregation-time="{dist_time(r, workdir)}" '
                f'send-size="{dist_size(r, workdir)}" result-size="{dist_size(r, workdir)}"/>')
        inner = f"\n    {tree}\n    {task}\n  "
        if r.random() < 0.3:
            wl["control-size"] = r.choice(["40B", "1B", "100B"])
        if r.random() < 0.2:
            wl["mc-samples"] = None  # placeholder: it belongs to <run>
    else:
        wl["message-size"] = dist_size(r, workdir, min1=True, lo_min=100)
        wl["offered-load"] = str(r.choice([0.05, 0.2, 0.5, 0.9, 1.5]))
        if r.random() < 0.5:
            wl["duration"] = f"{r.choice([2, 5, 20])}us"
        else:
            wl["messages"] = str(r.randrange(1, 30))
    wl.pop("mc-samples", None)
    run = {"replicas": str(r.randrange(1, 4)), "seed": str(r.randrange(0, 2**32))}
    if workload == "task-tree":
        run["mc-samples"] = str(r.choice([50, 200]))
    axes = []
    kind = r.random()
    if kind < 0.3 and not zeta:
        axes.append(f'<axis param="network.bandwidth" values="{" ".join(r.sample(["1Gb/s", "5Gb/s", "10Gb/s", "40Gb/s"], r.randrange(1, 4)))}"/>')
    elif kind < 0.45 and fabric != "spinet":
        axes.append(f'<axis param="system.nodes" values="{" ".join(str(n) for n in r.sample(range(2, 60), r.randrange(1, 4)))}"/>')
    elif kind < 0.6 and not zeta:
        # zipped fabrics: the switch and spinet with its own values
        n = 2 ** r.randrange(1, 7)
        nodes = n
        net["type"] = "electrical-switch"
        for k in ("switching", "priority"):
            net.pop(k, None)
        for k, v in (("extra-stages", "0"), ("protocol", "fast-nack"), ("packet-size", r.choice(["256B", "1kB"])),
                     ("link-length", "4m"), ("buffer", "0B")):
            net.setdefault(k, v)
        net.pop("bandwidth", None)
        axes.append('<axis param="network.type" values="electrical-switch spinet spinet"/>')
        axes.append('<axis param="network.bandwidth" with="network.type" values="10Gb/s 40Gb/s 160Gb/s"/>')
        axes.append('<axis param="network.extra-stages" with="network.type" values="0 0 1"/>')
    elif kind < 0.7 and workload == "task-tree":
        axes.append('<axis param="workload.tree.generator" values="deterministic"/>')
        axes.append('<axis param="workload.tree.z"><value>2 2</value><value> 3 </value></axis>')
        inner = inner.replace('generator="preferential"', 'generator="deterministic" z="2"')
        inner = __import__("re").sub(r' vertices="[^"]*" shape="[^"]*"', "", inner)
    elif kind < 0.8 and workload == "uniform-random":
        axes.append(f'<axis param="workload.offered-load" values="0.1 {r.choice([0.5, 1.2])}"/>')
    attrs = lambda d: " ".join(f'{k}="{v}"' for k, v in d.items())
    phy_el = f"<phy {attrs(phy)}/>" if phy else ""
    sweep = "\n  <sweep>\n    " + "\n    ".join(axes) + "\n  </sweep>" if axes else ""
    xml = (f'<tasknet version="1">\n  <system nodes="{nodes}"/>\n'
           f'  <network {attrs(net)}>{phy_el}</network>\n'
           f'  <workload {attrs(wl)}>{inner}</workload>\n'
           f'  <run {attrs(run)}/>{sweep}\n</tasknet>\n')
    return xml


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


def num(row, k):
    v = row.get(k, "")
    return None if v in ("", None) else float(v)


def check_run(row, out, fabric_of_point):
    rid = row["run"]
    eps = 1e-12

    def need(cond, what):
        if not cond:
            raise Broken(f"run {rid}: {what}")

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
    for k in ("node_utilization", "sync_overhead"):
        v = num(row, k)
        if v is not None:
            need(-eps <= v <= 1 + 1e-9, f"{k} = {v}")
    if fabric_of_point != "ideal":
        for k in ("network_utilization", "throughput"):
            v = num(row, k)
            if v is not None:
                need(-eps <= v <= 1 + 1e-9, f"{k} = {v} on {fabric_of_point}")
    jobs = num(row, "jobs_completed")
    if jobs is not None and num(row, "job_time_mean_s") is not None:
        jt, q, sv = num(row, "job_time_mean_s"), num(row, "queue_time_mean_s"), num(row, "service_time_mean_s")
        need(jt >= 0 and q >= 0 and sv >= 0 and abs(jt - q - sv) <= 1e-9 * max(jt, 1e-9),
             f"job time {jt} != queue {q} + service {sv}")
        need(num(row, "speedup") > 0, f"speedup {num(row, 'speedup')}")
    # the histogram: its checksum, and all its messages
    hist = read(os.path.join(out, "latency", f"run-{rid}.csv"))
    need(f"{fnv(hist):016x}" == row["latency_csv_fnv1a64"], "histogram does not match its checksum")
    total = sum(int(line.split(",")[3]) for line in hist.decode().splitlines()[1:] if line.startswith("all,"))
    need(total == dlv, f"histogram counts {total} messages, {dlv} delivered")


def same_files(a, b, what):
    for name in ("runs.csv", "summary.csv"):
        if read(os.path.join(a, name)) != read(os.path.join(b, name)):
            raise Broken(f"{what}: {name} differs")
    la, lb = sorted(os.listdir(os.path.join(a, "latency"))), sorted(os.listdir(os.path.join(b, "latency")))
    la = [x for x in la if x.startswith("run-")]
    lb = [x for x in lb if x.startswith("run-")]
    if la != lb or any(read(os.path.join(a, "latency", x)) != read(os.path.join(b, "latency", x)) for x in la):
        raise Broken(f"{what}: latency histograms differ")


# Values at or past the limits, set on the command line of some
# configurations: each must be refused with a message by validate and run
# alike, or run (and then hold every invariant).
PERTURB = [
    "network.switch-latency=1e5s",      # a horizon past the clock
    "system.nodes=3",                   # not a power of two (SPINet)
    "workload.jobs=100000000",          # memory (task-tree), or not applicable
    "run.replicas=1000000000",          # the run table
    "network.bandwidth=1b/s",           # messages longer than a run
    "workload.offered-load=3e8",        # memory (uniform-random)
    "network.packet-size=0B",           # out of range
    "workload.tree.vertices=uniform-int(0,3)",
    "network.link-latency=-1ns",
    "run.seed=18446744073709551615",    # the largest seed: fine
]


def one(binary, r, work, idx, stats):
    d = os.path.join(work, f"c{idx}")
    os.makedirs(d)
    xml = config(r, d)
    if r.random() < 0.15:
        p = r.choice(PERTURB)
        xml = xml.replace("<tasknet version=\"1\">", f"<tasknet version=\"1\">\n  <!-- set {p} -->", 1)
    cfg = os.path.join(d, "cfg.xml")
    with open(cfg, "w") as f:
        f.write(xml)
    sets = []
    if "<!-- set " in xml:
        sets = ["--set", xml.split("<!-- set ")[1].split(" -->")[0]]
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
        stats["refused"] += 1
        stats["last_refusal"] = " ".join(text.split())[:300]
        return
    stats["ran"] += 1
    if sets:  # the rest checks the runs of the configuration as it ran
        with open(os.path.join(out, "config.xml")) as f:
            xml = f.read()
        cfg = os.path.join(out, "config.xml")
    lst, listing = tn(binary, "run", cfg, "--list-runs")
    table = list(csv.DictReader(io.StringIO(listing)))
    got = rows(os.path.join(out, "runs.csv"))
    if len(got) != len(table):
        raise Broken(f"runs.csv has {len(got)} rows, the run table {len(table)}")
    # the fabric of each point, from the table's swept values or the config
    base_fabric = xml.split('<network type="')[1].split('"')[0]
    for row, t in zip(got, table):
        for k in ("run", "point", "replica", "seed"):
            if row[k] != t[k]:
                raise Broken(f"row {row['run']}: {k} {row[k]}, the table says {t[k]}")
        check_run(row, out, t.get("network.type", base_fabric))
        stats["runs"] += 1
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasknet", default="./tasknet")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the failing configuration's folder here")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per configuration")
    a = ap.parse_args()
    binary = os.path.abspath(a.tasknet)
    r = random.Random(a.seed)
    stats = {"ran": 0, "refused": 0, "runs": 0, "grown": 0, "last_refusal": ""}
    work = tempfile.mkdtemp(prefix="tasknet-random-")
    try:
        for i in range(a.count):
            try:
                t0 = __import__("time").time()
                before = dict(stats)
                one(binary, r, work, i, stats)
                if a.verbose:
                    what = "refused" if stats["refused"] > before["refused"] else f"{stats['runs'] - before['runs']} runs"
                    print(f"{i}: {what} in {__import__('time').time() - t0:.2f} s" +
                          (f": {stats['last_refusal']}" if what == "refused" else ""), flush=True)
            except (Broken, subprocess.TimeoutExpired) as e:
                d = os.path.join(work, f"c{i}")
                print(f"configuration {i} (seed {a.seed}) breaks an invariant: {e}", file=sys.stderr)
                print(open(os.path.join(d, "cfg.xml")).read(), file=sys.stderr)
                if a.keep:
                    shutil.copytree(d, os.path.join(a.keep, f"c{i}"), dirs_exist_ok=True)
                return 1
            finally:
                shutil.rmtree(os.path.join(work, f"c{i}"), ignore_errors=True)
            if (i + 1) % 50 == 0:
                print(f"{i + 1} configurations: {stats['ran']} ran ({stats['runs']} runs), "
                      f"{stats['refused']} refused", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{a.count} random configurations hold every invariant: {stats['ran']} ran ({stats['runs']} runs, "
          f"{stats['grown']} grown by a replica), {stats['refused']} refused with a message")
    return 0


if __name__ == "__main__":
    sys.exit(main())
