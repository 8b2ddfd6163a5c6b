#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "report.h"
#include "run.h"
#include "plot.h"
#include "rng.h"
#include "sim.h"
#include "swnet.h"
#include "topo.h"
#include "stats.h"
#include "sweep.h"
#include "workload.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "dev"
#endif

static const char usage_intro[] =
    "tasknet " PACKAGE_VERSION " - application-level simulation of HPC and datacenter interconnects\n"
    "\n"
    "A configuration puts one or more workloads (the traffic and its dependencies) on one\n"
    "fabric (the network); every run reports the workloads' own metrics (speedup, flow\n"
    "completion times, iteration times, congestion) and the fabric's (latencies,\n"
    "utilisation, throughput) next to the analytic bounds where the model has them.\n";

static const char usage_main[] =
    "Usage: tasknet COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  run CONFIG.xml       simulate every sweep point x replica; CSV/JSON results\n"
    "  analyze CONFIG.xml   analytic footprints and bounds (n, L, d, D, F_x, F_c, F, rho_x, rho_c)\n"
    "  validate CONFIG.xml  check a configuration, report every error, simulate nothing\n"
    "  merge OUT DIR...     combine result folders of one sweep's shards\n"
    "  export-topology CONFIG.xml  the fabric with its routes as a DOT file (network type graph)\n"
    "  import-ib IBNETDISCOVER FDBS  an InfiniBand installation (ibnetdiscover, forwarding\n"
    "                       tables) as a DOT file for network type graph\n"
    "  plot DIR             figures with gnuplot (metric vs parameter, metric vs metric,\n"
    "                       timelines); writes the editable .gp script beside the image\n"
    "  params               every configuration parameter: path, type, unit, default, meaning\n"
    "  metrics              every metric a run reports, with its unit\n"
    "  help COMMAND         details and examples for one command\n"
    "\n"
    "Options: --help, --version\n"
    "\n"
    "Examples:\n"
    "  tasknet analyze configs/paper/fig6.xml\n"
    "  tasknet run configs/examples/quickstart.xml --out out/quick\n"
    "  tasknet run configs/paper/fig9.xml --set run.replicas=1 --set system.nodes=100 --json\n"
    "\n"
    "Parameters are named by their path in the XML (network.bandwidth is the bandwidth\n"
    "attribute of <network>); --set PATH=VALUE overrides any of them, units included\n"
    "(--set network.bandwidth=10Gb/s). Values without a unit are rejected.\n";

static const char usage_run[] =
    "Usage: tasknet run CONFIG.xml [--set PATH=VALUE]... [--replicas R] [--seed S]\n"
    "                   [--out DIR] [--json] [-q] [-j N] [--runs LIST] [--shard K/N]\n"
    "                   [--list-runs] [--progress] [-v] [--trace FILE.json]\n"
    "\n"
    "Simulates every point of the configuration's <sweep> times every replica. Replica r\n"
    "of every point uses the random streams of (seed, r), so all points see the same jobs\n"
    "(common random numbers) and a run is reproducible from its seed and parameters.\n"
    "CONFIG.xml may be - (standard input).\n"
    "\n"
    "Sweeps: the points are the cartesian product of the <axis> elements, the first\n"
    "varying slowest. An axis with with=\"PARAM\" varies together with the earlier axis\n"
    "of PARAM instead (value k with value k, as many values): it adds no points; its\n"
    "value - leaves the parameter unset at that point (a fabric's parameter where another\n"
    "fabric runs: values=\"- 4 -\" beside network.type values=\"torus fat-tree leaf-spine\"). Values\n"
    "holding spaces are written as <value> children instead of values=\"...\":\n"
    "    <sweep>\n"
    "      <axis param=\"network.type\" values=\"electrical-switch spinet spinet\"/>\n"
    "      <axis param=\"network.extra-stages\" with=\"network.type\" values=\"0 0 1\"/>\n"
    "      <axis param=\"workload.tree.z\"><value>4 3</value><value>2 2 2</value></axis>\n"
    "    </sweep>                                           (3 x 2 = 6 points)\n"
    "\n"
    "Options (short forms, as configuration headers use them, in parentheses):\n"
    "  --set PATH=VALUE  (-s) override a parameter (see `tasknet params`); repeatable\n"
    "  --replicas R      (-r) replicas per point (overrides run.replicas)\n"
    "  --seed S          (-S) base seed (overrides run.seed)\n"
    "  --out DIR         (-o) write DIR/runs.csv (one row per run, flushed as each run\n"
    "                    ends), DIR/summary.csv (per point: mean and CI of every\n"
    "                    metric at run.confidence), DIR/config.xml (the configuration\n"
    "                    after --set),\n"
    "                    DIR/timing.csv (wall time and events/s of each run) and\n"
    "                    DIR/latency/run-ID.csv (each run's latency histogram)\n"
    "  --json            print the summary as JSON on stdout\n"
    "  -q, --quiet       no progress or table on stderr/stdout\n"
    "  -j, --jobs N      (-J) run N worker processes; results do not depend on N\n"
    "  --runs LIST       (-R) run only these run ids, e.g. 3,5-9 (ids: --list-runs)\n"
    "  --shard K/N       (-H) run only the ids with id % N == K-1 (in a Slurm array,\n"
    "                    SLURM_ARRAY_TASK_ID, _COUNT, _MIN and _STEP choose it)\n"
    "  --list-runs, --dry-run  (-L) print the run table (id, point, replica, seed, done,\n"
    "                    swept values) and run nothing\n"
    "  --progress        (-P) progress on stderr even when it is not a terminal: runs\n"
    "                    done, and every second inside a run its simulated time,\n"
    "                    events/s and ETA\n"
    "  -v, --verbose     one line per finished run with its events/s\n"
    "  --trace FILE.json (-T) timeline of the single selected run (Chrome trace events,\n"
    "                    opens in Perfetto / chrome://tracing); select it with --runs ID.\n"
    "                    Every workload writes its compute phases and waits per rank\n"
    "                    (training: each layer's forward and backward), its messages\n"
    "                    with flow arrows, and its spans across ranks (training: each\n"
    "                    fusion's allreduce; dc-flows: each flow)\n"
    "  --trace-nodes LIST   only these nodes' tracks and their messages: 0-15,32\n"
    "  --trace-window A:B   only what overlaps [A, B): 1ms:2ms, 5ms: or :100us\n"
    "  --trace-jobs LIST    only these jobs (task trees): 0-3"
    " (a 1,024-node run stays readable)\n"
    "\n"
    "Nothing is lost: each finished run is appended to DIR/runs.csv at once. Running the\n"
    "same command again with the same --out skips the runs already there and runs the\n"
    "rest. Each kept row is checked: it must be the run its id says (point, replica,\n"
    "seed, swept values), of this configuration (a fingerprint of every parameter and of\n"
    "the files values read), with the latency histogram its checksum names (a damaged\n"
    "one is redone). A different configuration in an existing DIR is refused. More\n"
    "replicas (--replicas 5 on a folder of 2) or more axis values run only the new runs,\n"
    "keep the others (renamed to the ids of the sweep as it is now: point x replicas +\n"
    "replica) and end as the sweep run at once. One process writes a DIR at a time.\n"
    "Ctrl-C or SIGTERM stops at once (exit status 130 or 143) and leaves valid files:\n"
    "only the runs in progress are dropped, and rerunning redoes them.\n"
    "Before running, every point is resolved and a run's memory estimated (see `tasknet\n"
    "analyze`); what would not fit in the memory this process may use (x -j) is refused\n"
    "(TASKNET_MEMORY=SIZE sets that memory), as is a run too long for the clock.\n"
    "Shards of a sweep run anywhere (--shard, Slurm arrays) and are combined with\n"
    "`tasknet merge OUT DIR...`. Built with MPI (./configure --with-mpi),\n"
    "`mpirun -np P tasknet run ...` has rank 0 hand out runs to the other ranks and\n"
    "write DIR alone; results are those of -j 1.\n"
    "\n"
    "Without --json, a table of the main metrics per point is printed.\n"
    "Example: tasknet run configs/paper/fig6.xml -s network.bandwidth=10Gb/s -o out/fig6\n";

static const char usage_analyze[] =
    "Usage: tasknet analyze CONFIG.xml [--set PATH=VALUE]... [--json] [--samples K]\n"
    "\n"
    "Prints, per sweep point, what is known before a run: each workload's own analysis\n"
    "where it has one (task-tree: below; dag: work, critical path and parallelism; dc-flows\n"
    "and vef: mean flow size, arrival rate and offered load; training: layers, model size,\n"
    "compute and ring times), the system (N, B, workloads over fabric), the fabric's\n"
    "uniform-random saturation bound where it has one, the physical layer (BER, energy per\n"
    "bit) and a run's estimated memory, messages and simulated time (run refuses a run\n"
    "that would not fit in memory).\n"
    "Task trees: the job generator's footprints and the system's loads:\n"
    "n (vertices), L (leaves), d (delegating vertices), D (depth), F_x = n (t_i + t_a),\n"
    "F_c = (L-1)(s_s + s_r + eps) + eps (2 + 2d), F = F_c / F_x, beta, rho_x = beta F_x/(N-1),\n"
    "rho_c = beta F_c / (B N), zeta = rho_x / rho_c and the speedup bound n / D.\n"
    "Exact for deterministic trees with constant task values; otherwise a Monte Carlo of\n"
    "the generator with K trees (run.mc-samples, default 10000), reported as mc_samples.\n"
    "With --json: one JSON object per point (an array when there is a sweep); times and\n"
    "sizes in SI base units (s, B, b/s).\n";

static const char usage_export[] =
    "Usage: tasknet export-topology CONFIG.xml [--set PATH=VALUE]... > fabric.dot\n"
    "\n"
    "Writes the switched fabric of the configuration's first sweep point (torus, fat-tree,\n"
    "leaf-spine, dragonfly, graph, and electrical-switch with network.router=\"input-queued\")\n"
    "as a DOT file in ORCS's format: hosts, switches, links\n"
    "with their ports (tport, hport), and on every edge the destination hosts routed over it\n"
    "(comment, and vc1..vc7 for higher virtual channel classes). <network type=\"graph\"\n"
    "file=\"fabric.dot\"/> reads it back with the same ids and, when the routing is\n"
    "destination-based (d-mod-k, dimension order on odd rings, ...), the same routes: results\n"
    "are then identical. Otherwise a warning on standard error counts the choices that\n"
    "depended on the source or the message; the file keeps the first.\n";

static const char usage_import_ib[] =
    "Usage: tasknet import-ib IBNETDISCOVER FDBS > fabric.dot\n"
    "\n"
    "Writes an InfiniBand installation as the graph fabric's DOT file (ORCS's format, as its\n"
    "get_network_graph script): IBNETDISCOVER is the output of `ibnetdiscover` (switches,\n"
    "channel adapters, links and LIDs), FDBS the switches' forwarding tables, either\n"
    "ibdiagnet's ibdiagnet2.fdbs (`ibdiagnet -r`; also OpenSM's osm.fdbs) or a linear\n"
    "forwarding table dump (OpenSM's opensm-lfts.dump, `dump_lfts.sh`, `ibroute`). Every\n"
    "connected channel adapter port is a host (\"H-<GUID>\", \"-P<port>\" added when the\n"
    "adapter has several), every switch \"S-<GUID>\"; each edge's comment lists the hosts\n"
    "whose LID the switch's table sends over it. <network type=\"graph\" file=\"fabric.dot\"/>\n"
    "then simulates the installation's real routes; an edited copy (a link removed, a route\n"
    "changed) is checked again when read: unreachable pairs and routing loops are errors.\n"
    "Errors name the file and line. A warning counts the (switch, host) pairs without an\n"
    "entry. Examples: configs/data/ib-2switch.ibnetdiscover and .fdbs,\n"
    "configs/data/ib-fattree.ibnetdiscover and .lfts (configs/examples/infiniband.xml).\n";

static const char usage_validate[] =
    "Usage: tasknet validate CONFIG.xml [--set PATH=VALUE]...\n"
    "\n"
    "Checks the file against the schema and every value (units, ranges, distributions,\n"
    "sweep axes); prints every error as file:line:col: error: ..., exit status 1 if any.\n"
    "A value a sweep axis sends that a point refuses is reported at that axis, with\n"
    "the value and the point (also when only resolving the point or its memory estimate\n"
    "refuses it). --set values apply before the checks (as run's do), so\n"
    "they may complete or correct the file: a value they replace is not checked (a\n"
    "template may name a placeholder file), a relative path in them is from the\n"
    "configuration's folder as the file's are, and an error they cause names them.\n"
    "CONFIG.xml may be - for standard input (so may that of run and analyze).\n";

static const char usage_merge[] =
    "Usage: tasknet merge OUT DIR...\n"
    "\n"
    "Combines the result folders of shards of one sweep (each written by\n"
    "`tasknet run ... --out DIR`) into OUT/runs.csv, OUT/summary.csv, OUT/config.xml and\n"
    "OUT/latency/ (each run's latency histogram).\n"
    "Refuses folders of different configurations and runs present twice with\n"
    "different results.\n"
    "Example: tasknet run configs/paper/fig9.xml --shard 1/2 --out a\n"
    "         tasknet run configs/paper/fig9.xml --shard 2/2 --out b\n"
    "         tasknet merge all a b\n";

static const char usage_plot[] =
    "Usage: tasknet plot DIR [--x PARAM] [--y METRIC] [--series PARAM] [options]\n"
    "       tasknet plot DIR --xy METRIC_X,METRIC_Y [--series PARAM] [options]\n"
    "       tasknet plot DIR --latency [--class control|data|all] [options]\n"
    "       tasknet plot DIR --counts FILE [options]\n"
    "       tasknet plot --timeline TRACE.json [options]\n"
    "\n"
    "Draws a figure with gnuplot (Debian: gnuplot-nox) from a result folder written by\n"
    "`tasknet run --out DIR`, and writes the gnuplot script (data inline) beside the\n"
    "image so it can be edited and re-run with `gnuplot FILE.gp`. Options also take one\n"
    "dash (-series, -logx), so a command fits in an XML comment.\n"
    "\n"
    "  --x PARAM        swept parameter on the x axis (default: the first axis); one whose\n"
    "                   values are names (network.type, a policy, a pattern) is drawn as\n"
    "                   categories: each series' point beside the others', CI bars, no lines\n"
    "  --y METRIC       metric on the y axis, mean with CI bars (default: the\n"
    "                   metric the workload names as its own)\n"
    "  --series PARAM   one curve per value of this parameter (default: the other axes);\n"
    "                   swept parameters not on x, in --series or in --where split the\n"
    "                   curves too, so no curve runs through several of their values\n"
    "  --where P=V      only the points where swept parameter P has value V (as in\n"
    "                   summary.csv); repeatable\n"
    "  --xy MX,MY       metric against metric, one point per sweep point (paper Fig. 10)\n"
    "  --change P=BASE  the metric as its change in % from the point where swept parameter\n"
    "                   P is BASE and the others are the same (no CI bars); with --heatmap,\n"
    "                   the thesis' Fig. 5.19 operating map\n"
    "  --timeline FILE  per-node timeline of a trace from `tasknet run --trace` (Fig. 7),\n"
    "                   a group of lanes per workload, named\n"
    "  --latency        message latency distribution of every point, log-log (Fig. 11):\n"
    "                   the fraction of messages slower than x, from DIR/latency/\n"
    "  --class C        with --latency: control, data or all messages (default: all)\n"
    "  --counts FILE    a count file a workload wrote in DIR (rows point,x,count), drawn\n"
    "                   as the fraction per x of every point: a histogram pooled over\n"
    "                   each point's replicas (README names the workloads' files)\n"
    "  --heatmap        the metric as colours over --x and one --series parameter (an\n"
    "                   operating map); with --counts, one row per point (many series)\n"
    "  --panels         with --counts: small multiples, a small panel per point on shared\n"
    "                   axes (ORCS's histogram over 30 patterns); with --series PARAM, a\n"
    "                   panel per value of the other swept parameters, PARAM's values as\n"
    "                   side-by-side bars in each\n"
    "  --bars           categorical x: bars with CI bars instead of points\n"
    "  --lines          numeric x with two values: join them (default: points only, no\n"
    "                   line through values nobody measured)\n"
    "  --logx, --logy   logarithmic axes (--logy with --heatmap: logarithmic colours)\n"
    "  --out FILE       image path; its extension picks the format: .png, .svg or .pdf\n"
    "                   (default: a .png in DIR, named after the axes); the script is\n"
    "                   FILE.gp beside it and runs from that folder\n"
    "  --title TEXT     figure title (default: none; a paper's figure has a caption)\n"
    "  --xlabel TEXT, --ylabel TEXT  axis labels (default: the quantity and its unit with\n"
    "                   the SI prefix that suits the data, e.g. 'mean job time (ms)')\n"
    "\n"
    "Examples:\n"
    "  tasknet plot out/fig9 --x system.nodes --y speedup --series network.bandwidth\n"
    "  tasknet plot out/fig10 --xy network_utilization,speedup --logx --logy\n"
    "  tasknet plot out/fig11 --latency --class data\n"

    "  tasknet plot --timeline out/fig7-n4.json --out fig7a.png\n";

static const char usage_params[] =
    "Usage: tasknet params [--rng]\n"
    "\n"
    "Lists every parameter: its path (as used by --set and sweep axes), type, unit,\n"
    "default and a one-line description; those every configuration has first, then\n"
    "those of each fabric and each workload.\n"
    "  --rng   print the RELAX NG schema of configuration files instead (made from\n"
    "          the same parameters; configs/tasknet.rng is a copy)\n";

static int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Usage errors exit with status 2 and point at the command's help. */
static int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tasknet%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'tasknet help%s%s'.\n", cmd ? " " : "", cmd ? cmd : "");
    return 2;
}

/* Options shared by the commands that read a configuration. */
struct opts {
    const char *config;
    const char **sets;
    size_t nsets;
    const char *replicas; /* --replicas: run.replicas (NULL = from config) */
    const char *seed;     /* --seed: run.seed */
    const char *out;
    int json;
    int quiet;
    const char *samples;  /* --samples: run.mc-samples */
    unsigned jobs;      /* -j: worker processes */
    const char *runs;   /* --runs */
    unsigned shard_k, shard_n; /* --shard K/N or SLURM_ARRAY_TASK_ID */
    int list_only;      /* --list-runs, --dry-run */
    int progress;       /* --progress */
    int verbose;        /* -v */
    const char *trace;  /* --trace FILE.json */
    const char *trace_nodes, *trace_window, *trace_jobs; /* --trace-nodes, --trace-window, --trace-jobs */
};

static void print_errors(const cfg_errors *e)
{
    for (size_t i = 0; i < e->n; i++)
        fprintf(stderr, "%s\n", e->msg[i]);
    if (e->n > 1)
        fprintf(stderr, "%zu errors\n", e->n);
}

/* What the command line changed in the configuration: --set and the
 * shorthands, each as written ("--set network.type=spinet", "--replicas 3")
 * with the parameter it sets. */
typedef struct cli_set {
    char label[320];
    char path[128];
} cli_set;

static size_t cli_sets(const struct opts *o, cli_set *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < o->nsets && n < max; i++, n++) {
        const char *eq = strchr(o->sets[i], '=');
        size_t len = eq ? (size_t)(eq - o->sets[i]) : strlen(o->sets[i]);
        snprintf(out[n].label, sizeof out[n].label, "--set %s", o->sets[i]);
        snprintf(out[n].path, sizeof out[n].path, "%.*s", (int)(len < 127 ? len : 127), o->sets[i]);
    }
    const struct {
        const char *opt, *path, *value;
    } sh[] = {{"--replicas", "run.replicas", o->replicas},
              {"--seed", "run.seed", o->seed},
              {"--samples", "run.mc-samples", o->samples}};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0] && n < max; i++)
        if (sh[i].value) {
            snprintf(out[n].label, sizeof out[n].label, "%s %s", sh[i].opt, sh[i].value);
            snprintf(out[n].path, sizeof out[n].path, "%s", sh[i].path);
            n++;
        }
    return n;
}

/* Where a problem of the configuration comes from: the file, or the file
 * as the command line changed it ("fig9.xml (with --set a=b)"). */
static void blame_prefix(const struct opts *o, const cfg *c, char *buf, size_t len)
{
    cli_set sets[64];
    size_t n = cli_sets(o, sets, 64);
    size_t l = (size_t)snprintf(buf, len, "%s", c->file[0] ? c->file : o->config);
    for (size_t i = 0; i < n && l < len; i++)
        l += (size_t)snprintf(buf + l, len - l, "%s%s", i ? ", " : " (with ", sets[i].label);
    if (n && l < len)
        snprintf(buf + l, len - l, ")");
}

/* The command line's values (--set and the shorthands) as the loader takes
 * them: v[i] points into path[i] and label[i]. */
typedef struct cli_values {
    cfg_cli_value *v;
    char (*path)[128];
    char (*label)[320];
    size_t n;
} cli_values;

static void cli_values_make(const struct opts *o, cli_values *cv)
{
    size_t n = o->nsets + 3;
    cv->v = tn_xcalloc(n, sizeof *cv->v);
    cv->path = tn_xcalloc(n, sizeof *cv->path);
    cv->label = tn_xcalloc(n, sizeof *cv->label);
    n = 0;
    for (size_t i = 0; i < o->nsets; i++, n++) {
        const char *eq = strchr(o->sets[i], '=');
        snprintf(cv->label[n], sizeof cv->label[n], "--set %s", o->sets[i]);
        cv->v[n].label = cv->label[n];
        if (!eq)
            continue; /* path NULL: "expected PATH=VALUE" */
        size_t len = (size_t)(eq - o->sets[i]);
        if (len >= sizeof cv->path[n])
            len = sizeof cv->path[n] - 1;
        memcpy(cv->path[n], o->sets[i], len);
        cv->path[n][len] = '\0';
        cv->v[n].path = cv->path[n];
        cv->v[n].value = eq + 1;
    }
    /* the shorthands are parameters too: checked by the same rules */
    const struct {
        const char *opt, *path, *value;
    } sh[] = {{"--replicas", "run.replicas", o->replicas},
              {"--seed", "run.seed", o->seed},
              {"--samples", "run.mc-samples", o->samples}};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
        if (sh[i].value) {
            snprintf(cv->label[n], sizeof cv->label[n], "%s %s", sh[i].opt, sh[i].value);
            cv->v[n] = (cfg_cli_value){.path = sh[i].path, .value = sh[i].value, .label = cv->label[n]};
            n++;
        }
    cv->n = n;
}

static void cli_values_free(cli_values *cv)
{
    free(cv->v);
    free(cv->path);
    free(cv->label);
}

/* Load, apply --set and the shorthands, check: the command line's values
 * before the checks (cfg_load_with), so they can complete or correct the
 * file, and a problem one of them causes names the option. Prints every
 * error. 0 or -1. */
static int load_config(const struct opts *o, cfg *c)
{
    cfg_errors errs;
    cfg_errors_init(&errs);
    cli_values cv;
    cli_values_make(o, &cv);
    int rc = cfg_load_with(c, o->config, cv.v, cv.n, &errs);
    cli_values_free(&cv);
    print_errors(&errs);
    cfg_errors_free(&errs);
    return rc;
}

/* Which command-line value a point's refusal found past the checks
 * (resolving it, its memory estimate) comes from: the first value whose
 * removal alone lifts that refusal (memory: the estimate fits, before and
 * after resolving, as validate tests it; else: the point resolves), the
 * file loaded with the other values. Only when the point is the same point without it (the same
 * axes: a value over a swept path drops the axis) and the file so loaded
 * passes the checks; never for standard input (it cannot be read again).
 * Each such configuration is loaded once, at the first refusal that asks. */
typedef struct cli_blame {
    const struct opts *o;
    const cfg *c;   /* as loaded with every value */
    cli_values cv;
    cfg *alt;       /* [cv.n] without value i */
    signed char *state; /* [cv.n] 0 not loaded yet, 1 loaded, -1 not comparable */
} cli_blame;

static void cli_blame_init(cli_blame *b, const struct opts *o, const cfg *c)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->c = c;
    cli_values_make(o, &b->cv);
    b->alt = tn_xcalloc(b->cv.n ? b->cv.n : 1, sizeof *b->alt);
    b->state = tn_xcalloc(b->cv.n ? b->cv.n : 1, 1);
}

static void cli_blame_free(cli_blame *b)
{
    for (size_t i = 0; i < b->cv.n; i++)
        if (b->state[i] == 1)
            cfg_free(&b->alt[i]);
    free(b->alt);
    free(b->state);
    cli_values_free(&b->cv);
}

/* the label of the value to blame for point p's refusal ("--set
 * workload.jobs=1e10"), or NULL; memory: the refusal is the memory
 * estimate's, else resolving's */
static const char *cli_culprit(void *ctx, size_t p, int memory)
{
    cli_blame *b = ctx;
    if (strcmp(b->o->config, "-") == 0 || b->cv.n == 0)
        return NULL;
    for (size_t i = 0; i < b->cv.n; i++) {
        if (!b->cv.v[i].path)
            continue;
        if (b->state[i] == 0) {
            cfg_cli_value *rest = tn_xcalloc(b->cv.n, sizeof *rest);
            size_t m = 0;
            for (size_t j = 0; j < b->cv.n; j++)
                if (j != i)
                    rest[m++] = b->cv.v[j];
            cfg_errors errs;
            cfg_errors_init(&errs);
            int ok = cfg_load_with(&b->alt[i], b->o->config, rest, m, &errs) == 0;
            cfg_errors_free(&errs);
            free(rest);
            if (ok && b->alt[i].naxes == b->c->naxes && cfg_points(&b->alt[i]) == cfg_points(b->c))
                b->state[i] = 1;
            else {
                cfg_free(&b->alt[i]);
                b->state[i] = -1;
            }
        }
        if (b->state[i] != 1)
            continue;
        cfg pc;
        char err[1024];
        int ok = 0;
        if (cfg_point(&b->alt[i], p, &pc, err, sizeof err) == 0) {
            run_cache rc = {0};
            if (memory) /* the estimate does not refuse it (before and after resolving, as validate) */
                ok = run_check_memory(&pc, 1, 0, err, sizeof err) == 0 &&
                     (run_resolve(&pc, &rc, NULL, err, sizeof err) != 0 || run_check_memory(&pc, 1, 0, err, sizeof err) == 0);
            else
                ok = run_resolve(&pc, &rc, NULL, err, sizeof err) == 0;
            run_cache_free(&rc);
            cfg_free(&pc);
        }
        if (ok)
            return b->cv.label[i];
    }
    return NULL;
}

/* A Slurm environment variable as a non-negative integer: 1 when set and
 * valid, 0 when unset, -1 when set to something else. */
static int slurm_var(const char *name, unsigned long long *v)
{
    const char *s = getenv(name);
    if (!s)
        return 0;
    char *end;
    errno = 0;
    *v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
    return isdigit((unsigned char)s[0]) && !*end && !errno ? 1 : -1;
}

/* The shard of this task of a Slurm job array: task ids MIN, MIN+STEP, ...
 * (COUNT of them) are shards 1..COUNT. Variables that do not describe such
 * an array (a task id outside it, a missing count) are refused: running the
 * whole sweep in every task would silently do the work COUNT times. */
static int slurm_shard(unsigned *k, unsigned *n, char *err, size_t errlen)
{
    unsigned long long id = 0, count = 0, min = 0, step = 1;
    int hid = slurm_var("SLURM_ARRAY_TASK_ID", &id), hcount = slurm_var("SLURM_ARRAY_TASK_COUNT", &count);
    int hmin = slurm_var("SLURM_ARRAY_TASK_MIN", &min), hstep = slurm_var("SLURM_ARRAY_TASK_STEP", &step);
    const char *bad = hid < 0 ? "SLURM_ARRAY_TASK_ID" : hcount < 0 ? "SLURM_ARRAY_TASK_COUNT"
                    : hmin < 0 ? "SLURM_ARRAY_TASK_MIN" : hstep < 0 ? "SLURM_ARRAY_TASK_STEP" : NULL;
    if (bad)
        return tn_error(err, errlen, "%s='%s' is not a task number; choose the part with --shard K/N or --runs",
                        bad, getenv(bad));
    if (hcount == 0)
        return tn_error(err, errlen, "SLURM_ARRAY_TASK_ID=%llu is set but SLURM_ARRAY_TASK_COUNT is not, so the "
                        "shard of this task is unknown; choose it with --shard K/N (or run all with --shard 1/1)", id);
    if (step == 0)
        step = 1;
    unsigned long long t = id >= min ? (id - min) / step : 0;
    if (count < 1 || count > UINT32_MAX || id < min || (id - min) % step != 0 || t >= count)
        return tn_error(err, errlen, "SLURM_ARRAY_TASK_ID=%llu is not a task of an array of "
                        "SLURM_ARRAY_TASK_COUNT=%llu tasks numbered from SLURM_ARRAY_TASK_MIN=%llu by %llu "
                        "(the variables disagree), so the shard of this task is unknown; choose it with "
                        "--shard K/N", id, count, min, step);
    *k = (unsigned)t + 1;
    *n = (unsigned)count;
    return 0;
}

static int parse_opts(const char *cmd, int argc, char **argv, struct opts *o, int allow_run,
                      int allow_analyze)
{
    static const struct option longopts[] = {
        {"set", required_argument, NULL, 's'},   {"replicas", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 'S'},  {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'Z'},        {"quiet", no_argument, NULL, 'q'},
        {"samples", required_argument, NULL, 'k'}, {"help", no_argument, NULL, 'h'},
        {"jobs", required_argument, NULL, 'J'},  {"runs", required_argument, NULL, 'R'},
        {"shard", required_argument, NULL, 'H'}, {"list-runs", no_argument, NULL, 'L'},
        {"dry-run", no_argument, NULL, 'L'},     {"progress", no_argument, NULL, 'P'},
        {"verbose", no_argument, NULL, 'v'},     {"trace", required_argument, NULL, 'T'},
        {"trace-nodes", required_argument, NULL, 1}, {"trace-window", required_argument, NULL, 2},
        {"trace-jobs", required_argument, NULL, 3},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->sets = tn_xcalloc((size_t)argc + 1, sizeof *o->sets);
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":s:r:S:o:j:qk:hJ:R:H:LPvT:", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (ch) {
        case 's':
            o->sets[o->nsets++] = optarg;
            break;
        case 'r':
            if (!allow_run)
                return usage_error(cmd, "option --replicas does not apply here");
            o->replicas = optarg;
            break;
        case 'S':
            if (!allow_run)
                return usage_error(cmd, "option --seed does not apply here");
            o->seed = optarg;
            break;
        case 'o':
            if (!allow_run)
                return usage_error(cmd, "option --out does not apply here");
            if (!*optarg)
                return usage_error(cmd, "--out needs a folder, not an empty string");
            o->out = optarg;
            break;
        case 'Z':
            if (!allow_run && !allow_analyze)
                return usage_error(cmd, "option --json does not apply here");
            o->json = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'k':
            if (!allow_analyze)
                return usage_error(cmd, "option --samples does not apply here");
            o->samples = optarg;
            break;
        case 1:
        case 2:
        case 3:
            if (!allow_run)
                return usage_error(cmd, "option '%s' applies to 'tasknet run' only", argv[optind - 1]);
            if (ch == 1)
                o->trace_nodes = optarg;
            else if (ch == 2)
                o->trace_window = optarg;
            else
                o->trace_jobs = optarg;
            break;
        case 'h':
            return -1;
        case 'j':
        case 'J':
        case 'R':
        case 'H':
        case 'L':
        case 'P':
        case 'v':
        case 'T':
            if (!allow_run)
                return usage_error(cmd, "option '%s' applies to 'tasknet run' only", argv[optind - 1]);
            if (ch == 'j' || ch == 'J') {
                long j = strtol(optarg, &end, 10);
                if (!*optarg || *end || j < 1 || j > 1024)
                    return usage_error(cmd, "-j needs a number of processes (1-1024), not '%s'", optarg);
                o->jobs = (unsigned)j;
            } else if (ch == 'R') {
                o->runs = optarg;
            } else if (ch == 'H') {
                char *slash = NULL;
                errno = 0;
                unsigned long k = isdigit((unsigned char)optarg[0]) ? strtoul(optarg, &slash, 10) : 0;
                unsigned long n = slash && *slash == '/' && isdigit((unsigned char)slash[1])
                                      ? strtoul(slash + 1, &end, 10) : 0;
                if (errno || !end || *end || n < 1 || n > UINT32_MAX || k < 1 || k > n)
                    return usage_error(cmd, "--shard needs K/N with 1 <= K <= N < 2^32, not '%s'", optarg);
                o->shard_k = (unsigned)k;
                o->shard_n = (unsigned)n;
            } else if (ch == 'L') {
                o->list_only = 1;
            } else if (ch == 'P') {
                o->progress = 1;
            } else if (ch == 'v') {
                o->verbose = 1;
            } else {
                o->trace = optarg;
            }
            break;
        case ':':
            return usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default:
            return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    /* a Slurm job array spreads a sweep: task i of an array of n runs shard i+1/n */
    if (allow_run && !o->shard_n && !o->runs && getenv("SLURM_ARRAY_TASK_ID")) {
        char err[512];
        if (slurm_shard(&o->shard_k, &o->shard_n, err, sizeof err) != 0)
            return usage_error(cmd, "%s", err);
    }
    if (optind >= argc)
        return usage_error(cmd, "missing CONFIG.xml");
    if (optind + 1 < argc)
        return usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    o->config = argv[optind];
    return 0;
}

/* validate's refusals of a point found past the checks (resolving it, its
 * memory estimate), reported as the checks report theirs: at the sweep axis
 * that sent the refused value (run_refusal_axis), once per axis, value and
 * reason; else at the file (blame). */
typedef struct point_refusals {
    const cfg *c;
    const char *blame, *tag; /* the file, with the options; the options alone: " (with --set ...)" or "" */
    signed char *memo;       /* which points are accepted (run_point_accepted) */
    run_cache *rc;
    cli_blame *cb;           /* the command-line value a refusal comes from (cli_culprit) */
    char **seen;             /* "axis\nvalue\nreason" reported at an axis */
    size_t nseen;
} point_refusals;

static void point_refused(point_refusals *pr, size_t p, const char *where, const char *err, int memory)
{
    const cfg *c = pr->c;
    char at[CFG_PATH_MAX + 64], what[1024];
    long a = run_refusal_axis(c, p, err, pr->memo, pr->rc);
    if (!run_refusal_where(c, p, a, at, sizeof at, what, sizeof what)) {
        const char *opt = cli_culprit(pr->cb, p, memory);
        if (opt)
            fprintf(stderr, "error: %s: sweep point %zu%s: %s\n", opt, p, where, err); /* (as the loader's) */
        else
            fprintf(stderr, "%s: error: sweep point %zu%s: %s\n", pr->blame, p, where, err);
        return;
    }
    char *key = tn_xmalloc(strlen(err) + 1100);
    snprintf(key, strlen(err) + 1100, "%ld\n%.1000s\n%s", a, cfg_point_value(c, p, (size_t)a), err);
    for (size_t i = 0; i < pr->nseen; i++)
        if (strcmp(pr->seen[i], key) == 0) {
            free(key);
            return;
        }
    pr->seen = tn_xrealloc(pr->seen, (pr->nseen + 1) * sizeof *pr->seen);
    pr->seen[pr->nseen++] = key;
    fprintf(stderr, "%s%s: error: %s: %s\n", at, pr->tag, what, err);
}

/* validate: whether one run of point p (resolved or not) fits in memory;
 * if not, says so at the axis sweeping system.nodes, else at the axis that
 * sent the value refused, else at the command-line value it comes from,
 * else at the attribute that sizes it (N) when the file has it. */
static int validate_memory(point_refusals *pr, const cfg *pc, size_t p, const char *where)
{
    char err[1024], at[CFG_PATH_MAX + 64], what[64];
    if (run_check_memory(pc, 1, 0, err, sizeof err) == 0)
        return 1;
    int w = run_memory_where(pc, at, sizeof at, what, sizeof what);
    if (w == 2 || (w == 1 && run_refusal_axis(pr->c, p, err, pr->memo, pr->rc) < 0 && !cli_culprit(pr->cb, p, 1)))
        fprintf(stderr, "%s: error: %s, sweep point %zu%s: %s\n", at, what, p, where, err);
    else
        point_refused(pr, p, where, err, 1);
    return 0;
}

static int cmd_validate(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("validate", argc, argv, &o, 0, 0);
    if (rc) {
        free(o.sets);
        if (rc < 0)
            fputs(usage_validate, stdout);
        return rc < 0 ? 0 : rc;
    }
    cfg c;
    rc = load_config(&o, &c);
    run_cache fpc = {0};
    char blame[CFG_PATH_MAX + 4096];
    blame_prefix(&o, &c, blame, sizeof blame);
    if (rc == 0) {
        size_t np = cfg_points(&c);
        char how[128], need_text[32], avail_text[32];
        double table = sweep_table_bytes(&c), avail = run_memory_available(how, sizeof how);
        if (table > avail) {
            run_format_bytes(table, need_text, sizeof need_text);
            run_format_bytes(avail, avail_text, sizeof avail_text);
            fprintf(stderr, "%s: error: the run table of %zu points x %u replicas needs about %s of memory, more than "
                    "the %s this process may use (%s)\n", blame, np, c.replicas, need_text, avail_text, how);
            rc = -1;
            np = 0;
        }
        size_t nwarn = 0;
        cli_blame cb;
        cli_blame_init(&cb, &o, &c);
        point_refusals pr = {.c = &c, .blame = blame, .tag = blame + strlen(c.file[0] ? c.file : o.config),
                             .memo = tn_xcalloc(np ? np : 1, 1), .rc = &fpc, .cb = &cb};
        for (size_t p = 0; p < np; p++) {
            cfg pc;
            char err[1024], where[512] = "";
            /* name the point by its swept values */
            for (size_t a = 0, l = 0; a < c.naxes && l < sizeof where; a++)
                l += (size_t)snprintf(where + l, sizeof where - l, "%s%s=%s", a ? " " : " (", c.axes[a].param,
                                      cfg_point_value(&c, p, a));
            if (c.naxes && strlen(where) + 1 < sizeof where)
                strcat(where, ")");
            /* the estimate first (resolving may build what it sizes), and
             * again once resolved, as `run` checks it: a workload's estimate
             * may need what resolving reads (a task tree's shape) */
            if (cfg_point(&c, p, &pc, err, sizeof err) != 0) {
                fprintf(stderr, "%s: error: sweep point %zu%s: %s\n", blame, p, where, err);
                pr.memo[p] = -1;
                rc = -1;
                continue;
            }
            /* this point's own verdict (rc holds the earlier points' too) */
            int accepted = 0;
            if (!validate_memory(&pr, &pc, p, where)) {
            } else if (run_resolve(&pc, &fpc, NULL, err, sizeof err) != 0) {
                point_refused(&pr, p, where, err, 0);
            } else if (!validate_memory(&pr, &pc, p, where)) {
            } else {
                accepted = 1;
                if (cfg_point_warning(&pc, err, sizeof err) && nwarn++ == 0)
                    fprintf(stderr, "%s: warning: sweep point %zu%s: %s\n", blame, p, where, err);
            }
            if (!accepted)
                rc = -1;
            pr.memo[p] = accepted ? 1 : -1;
            cfg_free(&pc);
        }
        for (size_t i = 0; i < pr.nseen; i++)
            free(pr.seen[i]);
        free(pr.seen);
        free(pr.memo);
        cli_blame_free(&cb);
        if (nwarn > 1)
            fprintf(stderr, "%s: warning: the same at %zu more sweep point%s\n", blame, nwarn - 1,
                    nwarn == 2 ? "" : "s");
        if (rc == 0 && !o.quiet)
            printf("%s: valid (%zu point%s x %u replica%s)\n", blame, np, np == 1 ? "" : "s",
                   c.replicas, c.replicas == 1 ? "" : "s");
    }
    run_cache_free(&fpc);
    cfg_free(&c);
    free(o.sets);
    return rc ? 1 : 0;
}

static void export_deliver(void *owner, net_msg *m)
{
    (void)owner;
    (void)m;
}

static int cmd_export_topology(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("export-topology", argc, argv, &o, 0, 0);
    if (rc) {
        free(o.sets);
        if (rc < 0)
            fputs(usage_export, stdout);
        return rc < 0 ? 0 : rc;
    }
    cfg c, pc;
    char err[1024];
    if (load_config(&o, &c) != 0) {
        cfg_free(&c);
        free(o.sets);
        return 1;
    }
    rc = 1;
    size_t npts = cfg_points(&c);
    if (npts > 1) {
        /* one fabric is exported: the sweep's first point's; say which */
        char where[600] = "";
        for (size_t a = 0, l = 0; a < c.naxes && l < sizeof where; a++)
            l += (size_t)snprintf(where + l, sizeof where - l, "%s%s=%s", a ? " " : "", c.axes[a].param,
                                  cfg_point_value(&c, 0, a));
        fprintf(stderr, "tasknet export-topology: warning: %s sweeps %zu points; this is the first, sweep point 0 "
                        "(%s); for another, give each swept parameter with --set PATH=VALUE\n",
                c.file[0] ? c.file : o.config, npts, where);
    }
    if (cfg_point(&c, 0, &pc, err, sizeof err) != 0) {
        fprintf(stderr, "tasknet export-topology: error: %s\n", err);
    } else {
        const net_ops *nops = cfg_net(&pc);
        if (!nops || !nops->topology) {
            fprintf(stderr, "tasknet export-topology: error: network type %s has no switched topology to export "
                            "(torus, fat-tree, leaf-spine, dragonfly, graph and electrical-switch with "
                            "router=\"input-queued\" have)\n",
                    pc.net_type);
        } else {
            sim *s = sim_create();
            gsl_rng *rng = rng_stream_new(pc.seed, 0, "network");
            net_params np = pc.net;
            np.nodes = pc.nodes;
            net *n = net_create(nops, &np, cfg_net_params(&pc), NULL, s, rng, export_deliver, NULL, err, sizeof err);
            if (!n) {
                fprintf(stderr, "tasknet export-topology: error: %s\n", err);
            } else if (!nops->topology(n->state)) { /* the electrical switch under output-queued */
                fprintf(stderr, "tasknet export-topology: error: this %s has no switched topology to export; "
                                "network.router=\"input-queued\" builds one (one switch, host j on port j)\n",
                        nops->name);
                net_destroy(n);
            } else {
                char title[CFG_PATH_MAX + 256];
                snprintf(title, sizeof title, "%s: network type %s, %u nodes", o.config, nops->name, pc.nodes);
                uint64_t conflicts = 0;
                /* network.degraded-links: the degraded links' rates written as their bandwidth */
                double *rate = nops->topology == swnet_topo ? swnet_link_rates(n->state) : NULL;
                int xrc = topo_export_dot_rates(nops->topology(n->state), rate, stdout, title, &conflicts, err,
                                                sizeof err);
                free(rate);
                if (xrc != 0) {
                    fprintf(stderr, "tasknet export-topology: error: %s\n", err);
                } else {
                    rc = 0;
                    if (conflicts)
                        fprintf(stderr,
                                "tasknet export-topology: warning: %s's routing is not destination-based: %llu "
                                "(switch, destination) choices depended on the source or the message; the file "
                                "keeps the first source's, so the re-imported fabric routes differently\n",
                                nops->name, (unsigned long long)conflicts);
                }
                net_destroy(n);
            }
            gsl_rng_free(rng);
            sim_destroy(s);
        }
        cfg_free(&pc);
    }
    cfg_free(&c);
    free(o.sets);
    return rc;
}

static int cmd_import_ib(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage_import_ib, stdout);
        return 0;
    }
    if (argc != 3)
        return usage_error("import-ib", "expected IBNETDISCOVER and FDBS (two files), got %d argument%s", argc - 1,
                           argc == 2 ? "" : "s");
    char err[1024];
    ib_import_stats st;
    if (topo_import_ib(argv[1], argv[2], stdout, &st, err, sizeof err) != 0) {
        fprintf(stderr, "tasknet import-ib: error: %s\n", err);
        return 1;
    }
    if (st.missing)
        fprintf(stderr,
                "tasknet import-ib: warning: %llu (switch, host) pairs have no forwarding entry; a route that "
                "reaches one is reported as unreachable when the fabric is read\n",
                (unsigned long long)st.missing);
    if (st.lmc_hosts)
        fprintf(stderr,
                "tasknet import-ib: note: %u host%s LMC > 0 (2^LMC LIDs, each routed by the tables): the file's "
                "lmc paths carry them, a message taking path v toward LID base + (v mod 2^LMC) from its salt\n",
                st.lmc_hosts, st.lmc_hosts == 1 ? " has" : "s have");
    return 0;
}

static int cmd_analyze(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("analyze", argc, argv, &o, 0, 1);
    if (rc) {
        free(o.sets);
        if (rc < 0)
            fputs(usage_analyze, stdout);
        return rc < 0 ? 0 : rc;
    }
    cfg c;
    if (load_config(&o, &c) != 0) {
        cfg_free(&c);
        free(o.sets);
        return 1;
    }
    size_t np = cfg_points(&c);
    int array = o.json && c.naxes > 0;
    if (array)
        fputs("[\n", stdout);
    run_cache fpc = {0};
    for (size_t p = 0; p < np; p++) {
        cfg pc;
        char err[512];
        run_info info;
        if (cfg_point(&c, p, &pc, err, sizeof err) != 0 || run_resolve(&pc, &fpc, &info, err, sizeof err) != 0) {
            char blame[CFG_PATH_MAX + 4096];
            blame_prefix(&o, &c, blame, sizeof blame);
            fprintf(stderr, "%s: error: sweep point %zu: %s\n", blame, p, err);
            cfg_free(&pc);
            rc = 1;
            break;
        }
        wl_analysis a;
        run_analyze(&pc, &a);
        if (o.json) {
            report_analyze_json(stdout, &c, p, &pc, &info, &a);
            fputs(array && p + 1 < np ? ",\n" : "\n", stdout);
        } else {
            report_analyze_text(stdout, &c, p, &pc, &info, &a);
        }
        cfg_free(&pc);
    }
    if (array)
        fputs("]\n", stdout);
    run_cache_free(&fpc);
    cfg_free(&c);
    free(o.sets);
    return rc;
}

/* ---- what a sweep says, on the terminal ---- */

typedef struct run_ui {
    const char *cmd;  /* "run", "merge" */
    int progress;     /* a progress line on stderr */
    int verbose;      /* one line per run */
    int line_open;    /* the progress line is on screen */
    int tty;          /* stderr is a terminal: progress rewrites one line, else a line each */
    uint64_t done, todo; /* runs, as last reported */
} run_ui;

static void clear_progress(run_ui *u)
{
    if (u->line_open) {
        fputs("\r\033[K", stderr);
        u->line_open = 0;
    }
}

static void ui_note(void *ctx, sweep_note_kind kind, const char *text)
{
    run_ui *u = ctx;
    clear_progress(u);
    static const char *const what[] = {"error: ", "warning: ", "", ""};
    if (kind == SWEEP_DETAIL)
        fprintf(stderr, "%s\n", text);
    else
        fprintf(stderr, "tasknet %s: %s%s\n", u->cmd, what[kind], text);
}

static void ui_progress(void *ctx, uint64_t done, uint64_t todo, double el)
{
    run_ui *u = ctx;
    if (!u->progress)
        return;
    u->done = done;
    u->todo = todo;
    double rate = el > 0 ? (double)done / el : 0;
    double eta = rate > 0 ? (double)(todo - done) / rate : 0;
    fprintf(stderr, "\r\033[K[%llu/%llu runs] %.2f runs/s, %.1f s elapsed, ETA %.1f s", (unsigned long long)done,
            (unsigned long long)todo, rate, el, eta);
    fflush(stderr);
    u->line_open = 1;
}

/* Inside a long run: how far it got in simulated time, how fast, and when
 * it should end (from the fraction of its work done). */
static void ui_run_progress(void *ctx, uint64_t id, const run_progress *p)
{
    run_ui *u = ctx;
    if (!u->progress)
        return;
    char eta[64] = "ETA unknown";
    /* a run still going at 100% has outlived its estimate (a workload
     * draining its last messages, a horizon passed): "ETA 0.0 s" for
     * seconds would be false, so it says so */
    if (p->fraction >= 1)
        snprintf(eta, sizeof eta, "past its estimate, ETA unknown");
    else if (p->fraction > 0) /* rounded down: 100% only once the estimate is reached */
        snprintf(eta, sizeof eta, "%.0f%%, ETA %.1f s", floor(100 * p->fraction),
                 p->wall_s * (1 - p->fraction) / p->fraction);
    fprintf(stderr, "\r\033[K[%llu/%llu runs] run %llu: %.6g s simulated, %.4g events/s, %s",
            (unsigned long long)u->done, (unsigned long long)u->todo, (unsigned long long)id, p->sim_s,
            p->wall_s > 0 ? p->events / p->wall_s : 0.0, eta);
    if (!u->tty)
        fputc('\n', stderr);
    fflush(stderr);
    u->line_open = u->tty;
}

static void ui_run_done(void *ctx, uint64_t id, size_t point, uint64_t replica, double events, double wall)
{
    run_ui *u = ctx;
    if (!u->verbose)
        return;
    clear_progress(u);
    fprintf(stderr, "run %llu (point %zu replica %llu): %.0f events in %.3f s, %.4g events/s\n",
            (unsigned long long)id, point, (unsigned long long)replica, events, wall, wall > 0 ? events / wall : 0.0);
}

/* The terminal table: per point, the workload's own columns. */
static void print_table(const cfg *c, const sweep_outcome *r)
{
    const run_layout *l = &r->layout;
    long col[16];
    const char *head[16];
    size_t ncol = 0;
    for (size_t k = 0; l->table && l->table[k].metric && ncol < 16; k++) {
        col[ncol] = run_layout_find(l, l->table[k].metric);
        head[ncol] = l->table[k].header;
        if (col[ncol] >= 0)
            ncol++;
    }
    printf("%-6s", "point");
    for (size_t a = 0; a < c->naxes; a++)
        printf(" %-18s", c->axes[a].param);
    printf(" %4s", "reps");
    for (size_t j = 0; j < ncol; j++)
        printf(" %12s", head[j]);
    putchar('\n');
    for (size_t p = 0; p < r->npoints; p++) {
        const report_point *rp = &r->pts[p];
        if (!rp->runs)
            continue;
        printf("%-6zu", p);
        for (size_t a = 0; a < c->naxes; a++)
            printf(" %-18s", cfg_point_value(c, p, a));
        printf(" %4llu", (unsigned long long)rp->runs);
        for (size_t j = 0; j < ncol; j++) {
            if (rp->m[col[j]].n)
                printf(" %12.6g", stats_acc_mean(&rp->m[col[j]]));
            else
                printf(" %12s", "-");
        }
        putchar('\n');
    }
}

/* --list-runs: id, point, replica, seed, done and the swept values. */
static void list_runs(const cfg *c, const sweep_outcome *r)
{
    printf("run,point,replica,seed,done");
    for (size_t a = 0; a < c->naxes; a++) {
        putchar(',');
        report_csv_field(stdout, c->axes[a].param);
    }
    putchar('\n');
    for (uint64_t id = 0; id < r->nruns; id++) {
        if (!r->selected[id] && !r->done[id])
            continue;
        size_t p = run_point(c, id);
        printf("%llu,%zu,%llu,%llu,%s", (unsigned long long)id, p, (unsigned long long)run_replica(c, id),
               (unsigned long long)c->seed, r->done[id] ? "yes" : "no");
        for (size_t a = 0; a < c->naxes; a++) {
            putchar(',');
            report_csv_field(stdout, cfg_point_value(c, p, a));
        }
        putchar('\n');
    }
}

static int cmd_run(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("run", argc, argv, &o, 1, 0);
    if (rc) {
        free(o.sets);
        if (rc < 0)
            fputs(usage_run, stdout);
        return rc < 0 ? 0 : rc;
    }
    cfg c;
    if (load_config(&o, &c) != 0) {
        cfg_free(&c);
        free(o.sets);
        return 1;
    }
    sweep_opts so = {
        .out = o.out,
        .jobs = o.jobs,
        .runs = o.runs,
        .shard_k = o.shard_k,
        .shard_n = o.shard_n,
        .quiet = o.quiet,
        .list_only = o.list_only,
        .trace = o.trace,
        .trace_nodes = o.trace_nodes,
        .trace_window = o.trace_window,
        .trace_jobs = o.trace_jobs,
        .config = o.config,
    };
    /* a point refused by a value of the command line names it (as validate) */
    cli_blame cb;
    cli_blame_init(&cb, &o, &c);
    char with[CFG_PATH_MAX + 4096];
    blame_prefix(&o, &c, with, sizeof with);
    so.culprit = cli_culprit;
    so.culprit_ctx = &cb;
    so.with = cb.cv.n ? with : NULL;
    run_ui u = {
        .cmd = "run",
        .progress = !o.quiet && !o.list_only && (o.progress || isatty(STDERR_FILENO)),
        .verbose = o.verbose && !o.quiet,
        .tty = isatty(STDERR_FILENO),
    };
    /* inside each run too, every second */
    so.run_progress_every_s = u.progress ? 1.0 : 0;
    sweep_ui ui = {.ctx = &u,
                   .note = ui_note,
                   .progress = ui_progress,
                   .run_done = ui_run_done,
                   .run_progress = ui_run_progress};
    sweep_outcome r;
    sweep_execute(&c, &so, &ui, &r);
    clear_progress(&u);
    rc = r.status;
    if (r.have_results) {
        if (o.list_only)
            list_runs(&c, &r);
        else if (o.json)
            report_summary_json(stdout, &c, &r.layout, r.pts, r.npoints);
        else if (!o.quiet)
            print_table(&c, &r);
        if (o.list_only) {
            /* nothing ran */
        } else if (r.interrupted) {
            fprintf(stderr, "tasknet run: interrupted after %llu of %llu runs; %s\n", (unsigned long long)r.ndone,
                    (unsigned long long)r.ntodo,
                    o.out ? "run the same command again to finish the sweep" : "nothing was saved (no --out)");
        } else if (r.gave_up) {
            fprintf(stderr, "tasknet run: stopped after %llu of %llu runs%s\n", (unsigned long long)r.ndone,
                    (unsigned long long)r.ntodo, o.out ? " (those are kept)" : "");
        } else if (!o.quiet) {
            fprintf(stderr, "%llu run%s in %.2f s wall (%s), %.4g events/s, peak memory %ld MiB\n",
                    (unsigned long long)r.ndone, r.ndone == 1 ? "" : "s", r.wall_s, r.procs,
                    r.wall_s > 0 ? r.events / r.wall_s : 0.0, r.peak_rss_mib);
        }
    }
    sweep_outcome_free(&r);
    cli_blame_free(&cb);
    cfg_free(&c);
    free(o.sets);
    return rc;
}

static void plot_note_print(void *ctx, int kind, const char *text)
{
    (void)ctx;
    switch (kind) {
    case PLOT_NOTE_WROTE: printf("%s\n", text); break;
    case PLOT_NOTE_ERROR: fprintf(stderr, "tasknet plot: error: %s\n", text); break;
    case PLOT_NOTE_WARNING: fprintf(stderr, "tasknet plot: warning: %s\n", text); break;
    default: fprintf(stderr, "tasknet plot: %s\n", text); break;
    }
}

static int cmd_plot(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"x", required_argument, NULL, 'x'},      {"y", required_argument, NULL, 'y'},
        {"series", required_argument, NULL, 's'}, {"xy", required_argument, NULL, 'X'},
        {"timeline", required_argument, NULL, 't'}, {"logx", no_argument, NULL, 'l'},
        {"logy", no_argument, NULL, 'L'},         {"out", required_argument, NULL, 'o'},
        {"title", required_argument, NULL, 'T'},  {"help", no_argument, NULL, 'h'},
        {"latency", no_argument, NULL, 'D'},      {"class", required_argument, NULL, 'C'},
        {"counts", required_argument, NULL, 'K'}, {"where", required_argument, NULL, 'W'},
        {"xlabel", required_argument, NULL, 1},   {"ylabel", required_argument, NULL, 2},
        {"heatmap", no_argument, NULL, 3},        {"bars", no_argument, NULL, 4},
        {"lines", no_argument, NULL, 5},          {"panels", no_argument, NULL, 6},
        {"change", required_argument, NULL, 7},
        {NULL, 0, NULL, 0},
    };
    plot_opts po = {.kind = PLOT_METRIC_VS_PARAM, .note = plot_note_print};
    static char xy[256];
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long_only(argc, argv, ":x:y:s:X:t:lLo:T:hDC:K:W:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'x': po.x = optarg; break;
        case 'y': po.y = optarg; break;
        case 's': po.series = optarg; break;
        case 'W':
            if (po.nwhere == PLOT_MAX_WHERE)
                return usage_error("plot", "at most %d --where options", PLOT_MAX_WHERE);
            po.where[po.nwhere++] = optarg;
            break;
        case 'X': {
            snprintf(xy, sizeof xy, "%s", optarg);
            char *comma = strchr(xy, ',');
            if (!comma || !comma[1] || comma == xy)
                return usage_error("plot", "--xy needs METRIC_X,METRIC_Y, not '%s'", optarg);
            *comma = '\0';
            po.kind = PLOT_METRIC_VS_METRIC;
            po.x = xy;
            po.y = comma + 1;
            break;
        }
        case 't': po.kind = PLOT_TIMELINE; po.input = optarg; break;
        case 'l': po.logx = 1; break;
        case 'L': po.logy = 1; break;
        case 'o': po.out = optarg; break;
        case 'T': po.title = optarg; break;
        case 1: po.xlabel = optarg; break;
        case 2: po.ylabel = optarg; break;
        case 3: po.heatmap = 1; break;
        case 4: po.bars = 1; break;
        case 5: po.lines = 1; break;
        case 6: po.panels = 1; break;
        case 7: po.change = optarg; break;
        case 'D': po.kind = PLOT_LATENCY; break;
        case 'C': po.cls = optarg; break;
        case 'K': po.kind = PLOT_COUNTS; po.counts = optarg; break;
        case 'h': fputs(usage_plot, stdout); return 0;
        case ':': return usage_error("plot", "option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("plot", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (po.kind != PLOT_TIMELINE) {
        if (optind >= argc)
            return usage_error("plot", "missing the result folder DIR");
        po.input = argv[optind++];
    }
    if (optind < argc)
        return usage_error("plot", "unexpected argument '%s'", argv[optind]);
    if (!*po.input || (po.out && !*po.out))
        return usage_error("plot", "an empty string is not a path");
    return plot_make(&po);
}

static int cmd_merge(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage_merge, stdout);
        return 0;
    }
    if (argc < 3)
        return usage_error("merge", "needs OUT and at least one result folder");
    for (int i = 1; i < argc; i++)
        if (!*argv[i])
            return usage_error("merge", "argument %d is an empty string, not a folder", i);
    run_ui u = {.cmd = "merge"};
    sweep_ui ui = {.ctx = &u, .note = ui_note};
    return sweep_merge(argv[1], argv + 2, (size_t)argc - 2, &ui);
}

static void print_rows(cfg_owner owner, const char *plugin)
{
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        if (p->owner != owner || (plugin && (!p->plugin || strcmp(p->plugin, plugin) != 0)))
            continue;
        const param_row *r = p->row;
        const char *def = r->def && r->def[0] ? r->def : (r->flags & PARAM_REQUIRED) ? "(required)" : "(none)";
        if (strcmp(r->path, "network.type") == 0)
            def = net_default->name;
        else if (strcmp(r->path, "workload.type") == 0)
            def = wl_default->name;
        else if (r->kind == PARAM_NAME && !(r->def && r->def[0]))
            def = "(none)";
        printf("  %-34s %-22s %-5s %-22s %s\n", r->path, r->type, r->unit && r->unit[0] ? r->unit : "-", def,
               r->help);
    }
}

static int cmd_params(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--rng") == 0 || strcmp(argv[1], "-rng") == 0)) {
        char *rng = cfg_schema_rng();
        fputs(rng, stdout);
        free(rng);
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage_params, stdout);
        return 0;
    }
    if (argc >= 2)
        return usage_error("params", "unknown argument '%s'", argv[1]);
    printf("  %-34s %-22s %-5s %-22s %s\n", "PATH", "TYPE", "UNIT", "DEFAULT", "DESCRIPTION");
    printf("Every configuration:\n");
    print_rows(CFG_OWN_CORE, NULL);
    printf("\nEvery workload (each <workload> element; with several, workload.<name>.<attr>):\n");
    print_rows(CFG_OWN_WLI, NULL);
    printf("\nThe physical layer (fabrics that model optics or energy):\n");
    print_rows(CFG_OWN_PHY, NULL);
    for (size_t i = 0; net_registry[i]; i++) {
        printf("\nnetwork.type=\"%s\": %s\n", net_registry[i]->name, net_registry[i]->description);
        if (net_registry[i]->nparams)
            print_rows(CFG_OWN_NET, net_registry[i]->name);
        else
            printf("  (no parameters of its own)\n");
    }
    for (size_t i = 0; wl_registry[i]; i++) {
        printf("\nworkload.type=\"%s\": %s\n", wl_registry[i]->name, wl_registry[i]->description);
        if (wl_registry[i]->nparams)
            print_rows(CFG_OWN_WL, wl_registry[i]->name);
        else
            printf("  (no parameters of its own)\n");
    }
    printf("\nA path several fabrics or workloads list is one parameter.\n"
           "\nRandom variables (type distribution(...)): each number with the variable's unit\n"
           "  20kB                      a constant\n"
           "  uniform(a,b)              continuous uniform on [a, b]            uniform(2us,100us)\n"
           "  uniform-int(a,b)          integer uniform on {a, ..., b}          uniform-int(25,175)\n"
           "  exponential(mean)         exponential with that mean              exponential(50us)\n"
           "  normal(mu,sigma)          normal; draws below 0 are taken as 0    normal(50us,10us)\n"
           "  lognormal(median,sigma)   median e^mu with the unit, sigma of ln X without one\n"
           "                                                                    lognormal(20kB,0.5)\n"
           "  empirical(file.csv[,step|linear])  a CDF table, lines value,cumulative_fraction\n"
           "                            (values in s or B; # comments and a header line allowed):\n"
           "                            the first value whose fraction reaches the draw (step, the\n"
           "                            default) or linear interpolation; a relative path is from\n"
           "                            the configuration's folder; the file's contents are part of\n"
           "                            the results' fingerprint\n");
    return 0;
}

static void print_metrics(const metric_def *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        printf("  %-28s %s", m[i].name, m[i].desc);
        if (m[i].when) /* a column only in sweeps with a point where it holds (metric_def.when) */
            printf(" (with %s)", m[i].when);
        printf("\n");
    }
}

static const char usage_metrics[] = "Usage: tasknet metrics\n\nLists every metric of runs.csv and summary.csv.\n";
static const char usage_help[] = "Usage: tasknet help [COMMAND]\n\nWithout COMMAND, what tasknet is and its commands; with "
                                 "one, the same as\n`tasknet COMMAND --help`: details and examples for that command.\n";

static int cmd_metrics(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage_metrics, stdout);
        return 0;
    }
    if (argc >= 2)
        return usage_error("metrics", "unknown argument '%s'", argv[1]);
    printf("Every run:\n");
    print_metrics(metric_core, METRIC_CORE_COUNT);
    for (size_t i = 0; net_registry[i]; i++)
        if (net_registry[i]->nmetrics) {
            printf("\nnetwork.type=\"%s\":\n", net_registry[i]->name);
            print_metrics(net_registry[i]->metrics, net_registry[i]->nmetrics);
        }
    for (size_t i = 0; wl_registry[i]; i++)
        if (wl_registry[i]->nmetrics) {
            printf("\nworkload.type=\"%s\":\n", wl_registry[i]->name);
            print_metrics(wl_registry[i]->metrics, wl_registry[i]->nmetrics);
        }
    printf("\nA metric that does not apply to a run is an empty cell in runs.csv and summary.csv\n"
           "(null in JSON), never 0. msg_latency_* run from a message's hand-over to its last bit\n"
           "at the destination, msg_head_latency_* to its first bit (the paper's latency).\n"
           "On the ideal fabric (no contention: a node receives and sends several messages at\n"
           "once) network_utilization and throughput can exceed 1; rho_x, rho_c and zeta are\n"
           "offered loads and exceed 1 on any fabric when the offer does.\n");
    return 0;
}

/* The top-level help: what tasknet is, every workload and fabric (from
 * their registries, so a new one is listed without editing this), then the
 * commands. */
static void print_usage_main(FILE *f)
{
    fputs(usage_intro, f);
    fputs("\nWorkloads (workload.type; `tasknet params` lists each one's parameters):\n", f);
    for (size_t i = 0; wl_registry[i]; i++)
        fprintf(f, "  %-17s %s\n", wl_registry[i]->name, wl_registry[i]->description);
    fputs("\nFabrics (network.type):\n", f);
    for (size_t i = 0; net_registry[i]; i++)
        fprintf(f, "  %-17s %s\n", net_registry[i]->name, net_registry[i]->description);
    fputc('\n', f);
    fputs(usage_main, f);
}

static int cmd_help(const char *what)
{
    if (!what)
        print_usage_main(stdout);
    else if (strcmp(what, "run") == 0)
        fputs(usage_run, stdout);
    else if (strcmp(what, "analyze") == 0)
        fputs(usage_analyze, stdout);
    else if (strcmp(what, "validate") == 0)
        fputs(usage_validate, stdout);
    else if (strcmp(what, "export-topology") == 0)
        fputs(usage_export, stdout);
    else if (strcmp(what, "import-ib") == 0)
        fputs(usage_import_ib, stdout);
    else if (strcmp(what, "params") == 0)
        fputs(usage_params, stdout);
    else if (strcmp(what, "merge") == 0)
        fputs(usage_merge, stdout);
    else if (strcmp(what, "plot") == 0)
        fputs(usage_plot, stdout);
    else if (strcmp(what, "metrics") == 0)
        fputs(usage_metrics, stdout);
    else if (strcmp(what, "help") == 0 || strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0)
        fputs(usage_help, stdout);
    else
        return usage_error(NULL, "no help for '%s'", what);
    return 0;
}

/* What a command wrote on standard output must have reached it: a full
 * disk, a closed pipe or /dev/full is an error (exit status 1 when the
 * command had succeeded), never a silent success. */
static int close_stdout(int rc)
{
    int bad = ferror(stdout);
    errno = 0;
    if (fflush(stdout) != 0)
        bad = 1;
    if (bad) {
        /* errno tells why only when this flush failed, not an earlier write */
        if (errno)
            fprintf(stderr, "tasknet: error writing standard output: %s\n", strerror(errno));
        else
            fprintf(stderr, "tasknet: error writing standard output (output lost)\n");
        return rc ? rc : 1;
    }
    return rc;
}

static int dispatch(int argc, char **argv);

int cli_main(int argc, char **argv)
{
    cfg_point_fits = run_point_fits; /* the checks ask before building per-node maps */
    return close_stdout(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        print_usage_main(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return cmd_help(NULL);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("tasknet %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "help") == 0)
        return cmd_help(argc > 2 ? argv[2] : NULL);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "analyze") == 0)
        return cmd_analyze(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "export-topology") == 0)
        return cmd_export_topology(argc - 1, argv + 1);
    if (strcmp(cmd, "import-ib") == 0)
        return cmd_import_ib(argc - 1, argv + 1);
    if (strcmp(cmd, "params") == 0)
        return cmd_params(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0)
        return cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "metrics") == 0)
        return cmd_metrics(argc - 1, argv + 1);
    return usage_error(NULL, "unknown command '%s'", cmd);
}
