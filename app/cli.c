#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "footprint.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "report.h"
#include "run.h"
#include "plot.h"
#include "sweep.h"
#include "workload.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "dev"
#endif

static const char usage_main[] =
    "tasknet " PACKAGE_VERSION " - application-level simulation of HPC interconnects\n"
    "\n"
    "Jobs arrive as random trees of tasks; compute nodes ask a scheduler for idle nodes and\n"
    "delegate subtasks over the simulated fabric, so the trees' dependencies drive the traffic.\n"
    "tasknet reports speedup, node and network utilisation, synchronisation overhead and\n"
    "message latencies next to the analytic bounds (Rumley et al., JA3 2013).\n"
    "\n"
    "Usage: tasknet COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  run CONFIG.xml       simulate every sweep point x replica; CSV/JSON results\n"
    "  analyze CONFIG.xml   analytic footprints and bounds (n, L, d, D, F_x, F_c, F, rho_x, rho_c)\n"
    "  validate CONFIG.xml  check a configuration, report every error, simulate nothing\n"
    "  merge OUT DIR...     combine result folders of one sweep's shards\n"
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
    "Simulates every point of the configuration's <sweep> (the cartesian product of its\n"
    "axes, first axis slowest) times every replica. Replica r of every point uses the\n"
    "random streams of (seed, r), so all points see the same jobs (common random numbers)\n"
    "and a run is reproducible from its seed and parameters.\n"
    "\n"
    "  --set PATH=VALUE  override a parameter (see `tasknet params`); repeatable\n"
    "  --replicas R      replicas per point (overrides run.replicas)\n"
    "  --seed S          base seed (overrides run.seed)\n"
    "  --out DIR         write DIR/runs.csv (one row per run, flushed as each run ends),\n"
    "                    DIR/summary.csv (per point: mean and 95% CI of every metric)\n"
    "                    DIR/config.xml (the configuration after --set) and\n"
    "                    DIR/timing.csv (wall time and events/s of each run)\n"
    "  --json            print the summary as JSON on stdout\n"
    "  -q, --quiet       no progress or table on stderr/stdout\n"
    "  -j, --jobs N      run N worker processes; results do not depend on N\n"
    "  --runs LIST       run only these run ids, e.g. 3,5-9 (ids: --list-runs)\n"
    "  --shard K/N       run only the ids with id % N == K-1 (Slurm: SLURM_ARRAY_TASK_ID\n"
    "                    and SLURM_ARRAY_TASK_COUNT select the shard when set)\n"
    "  --list-runs, --dry-run  print the run table (id, point, replica, seed, done,\n"
    "                    swept values) and run nothing\n"
    "  --progress        progress on stderr even when it is not a terminal\n"
    "  -v, --verbose     one line per finished run with its events/s\n"
    "  --trace FILE.json timeline of the single selected run (Chrome trace events,\n"
    "                    opens in Perfetto / chrome://tracing); select it with --runs ID\n"
    "\n"
    "Nothing is lost: each finished run is appended to DIR/runs.csv at once. Running the\n"
    "same command again with the same --out skips the runs already there (matched by\n"
    "run id and a fingerprint of the configuration) and runs the rest; a different\n"
    "configuration in an existing DIR is refused. Ctrl-C stops at once and leaves valid\n"
    "files: only the runs in progress are dropped, and rerunning redoes them.\n"
    "Shards of a sweep run anywhere (--shard, Slurm arrays) and are combined with\n"
    "`tasknet merge OUT DIR...`. Built with MPI (./configure --with-mpi),\n"
    "`mpirun -np P tasknet run ...` has rank 0 hand out runs to the other ranks and\n"
    "write DIR alone; results are those of -j 1.\n"
    "\n"
    "Without --json, a table of the main metrics per point is printed.\n"
    "Example: tasknet run configs/paper/fig6.xml --set network.bandwidth=10Gb/s --out out/fig6\n";

static const char usage_analyze[] =
    "Usage: tasknet analyze CONFIG.xml [--set PATH=VALUE]... [--json] [--samples K]\n"
    "\n"
    "Prints, per sweep point, the job generator's footprints and the system's loads:\n"
    "n (vertices), L (leaves), d (delegating vertices), D (depth), F_x = n (t_i + t_a),\n"
    "F_c = (L-1)(s_s + s_r + eps) + eps (2 + 2d), F = F_c / F_x, beta, rho_x = beta F_x/(N-1),\n"
    "rho_c = beta F_c / (B N), zeta = rho_x / rho_c and the speedup bound n / D.\n"
    "Exact for deterministic trees with constant task values; otherwise a Monte Carlo of\n"
    "the generator with K trees (run.mc-samples, default 10000), reported as mc_samples.\n"
    "With --json: one JSON object per point (an array when there is a sweep); times and\n"
    "sizes in SI base units (s, B, b/s).\n";

static const char usage_validate[] =
    "Usage: tasknet validate CONFIG.xml [--set PATH=VALUE]...\n"
    "\n"
    "Checks the file against the schema and every value (units, ranges, distributions,\n"
    "sweep axes); prints every error as file:line:col: error: ..., exit status 1 if any.\n";

static const char usage_merge[] =
    "Usage: tasknet merge OUT DIR...\n"
    "\n"
    "Combines the result folders of shards of one sweep (each written by\n"
    "`tasknet run ... --out DIR`) into OUT/runs.csv, OUT/summary.csv and OUT/config.xml.\n"
    "Refuses folders of different configurations and runs present twice with\n"
    "different results.\n"
    "Example: tasknet run fig9.xml --shard 1/2 --out a; tasknet run fig9.xml --shard 2/2\n"
    "         --out b; tasknet merge all a b\n";

static const char usage_plot[] =
    "Usage: tasknet plot DIR [--x PARAM] [--y METRIC] [--series PARAM] [options]\n"
    "       tasknet plot DIR --xy METRIC_X,METRIC_Y [--series PARAM] [options]\n"
    "       tasknet plot DIR --latency [--class control|data|all] [options]\n"
    "       tasknet plot --timeline TRACE.json [options]\n"
    "\n"
    "Draws a figure with gnuplot (Debian: gnuplot-nox) from a result folder written by\n"
    "`tasknet run --out DIR`, and writes the gnuplot script (data inline) beside the\n"
    "image so it can be edited and re-run with `gnuplot FILE.gp`. Options also take one\n"
    "dash (-series, -logx), so a command fits in an XML comment.\n"
    "\n"
    "  --x PARAM        swept parameter on the x axis (default: the first axis)\n"
    "  --y METRIC       metric on the y axis, mean with 95% CI bars (default: speedup)\n"
    "  --series PARAM   one curve per value of this parameter (default: the other axis)\n"
    "  --xy MX,MY       metric against metric, one point per sweep point (paper Fig. 10)\n"
    "  --timeline FILE  per-node timeline of a trace from `tasknet run --trace` (Fig. 7)\n"
    "  --latency        message latency distribution of every point, log-log (Fig. 11):\n"
    "                   the fraction of messages slower than x, from DIR/latency/\n"
    "  --class C        with --latency: control, data or all messages (default: all)\n"
    "  --logx, --logy   logarithmic axes\n"
    "  --out FILE       image path, .png or .svg (default: in DIR, named after the axes)\n"
    "  --title TEXT     figure title\n"
    "\n"
    "Examples:\n"
    "  tasknet plot out/fig9 --x system.nodes --y speedup --series network.bandwidth\n"
    "  tasknet plot out/fig10 --xy network_utilization,speedup --logx --logy\n"
    "  tasknet plot out/fig11 --latency --class data\n"
    "  tasknet plot --timeline out/fig7-n4.json --out fig7a.png\n";

static const char usage_params[] =
    "Usage: tasknet params\n"
    "\n"
    "Lists every parameter: its path (as used by --set and sweep axes), type, unit,\n"
    "default and a one-line description.\n";

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
};

static void print_errors(const cfg_errors *e)
{
    for (size_t i = 0; i < e->n; i++)
        fprintf(stderr, "%s\n", e->msg[i]);
    if (e->n > 1)
        fprintf(stderr, "%zu errors\n", e->n);
}

/* Load, apply --set, check. Prints every error. 0 or -1. */
static int load_config(const struct opts *o, cfg *c)
{
    cfg_errors errs;
    cfg_errors_init(&errs);
    cfg_defaults(c);
    int rc = cfg_load(c, o->config, &errs);
    if (rc == 0) {
        for (size_t i = 0; i < o->nsets; i++) {
            const char *eq = strchr(o->sets[i], '=');
            char err[512];
            if (!eq) {
                cfg_errors_add(&errs, "error: --set %s: expected PATH=VALUE", o->sets[i]);
                continue;
            }
            char path[128];
            size_t len = (size_t)(eq - o->sets[i]);
            if (len >= sizeof path)
                len = sizeof path - 1;
            memcpy(path, o->sets[i], len);
            path[len] = '\0';
            if (cfg_set(c, path, eq + 1, err, sizeof err) != 0)
                cfg_errors_add(&errs, "error: --set %s: %s", o->sets[i], err);
            else
                cfg_drop_axis(c, path);
        }
        /* the shorthands are parameters too: checked by the same rules */
        const struct {
            const char *opt, *path, *value;
        } sh[] = {{"--replicas", "run.replicas", o->replicas},
                  {"--seed", "run.seed", o->seed},
                  {"--samples", "run.mc-samples", o->samples}};
        for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
            char err[512];
            if (sh[i].value && cfg_set(c, sh[i].path, sh[i].value, err, sizeof err) != 0)
                cfg_errors_add(&errs, "error: %s %s: %s", sh[i].opt, sh[i].value, err);
        }
        if (errs.n == 0)
            cfg_check(c, &errs);
        rc = errs.n ? -1 : 0;
    }
    print_errors(&errs);
    cfg_errors_free(&errs);
    return rc;
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
    const char *task = getenv("SLURM_ARRAY_TASK_ID"), *count = getenv("SLURM_ARRAY_TASK_COUNT");
    const char *minid = getenv("SLURM_ARRAY_TASK_MIN");
    if (allow_run && !o->shard_n && !o->runs && task && count) {
        long t = strtol(task, NULL, 10) - (minid ? strtol(minid, NULL, 10) : 0);
        long n = strtol(count, NULL, 10);
        if (n >= 1 && t >= 0 && t < n) {
            o->shard_k = (unsigned)t + 1;
            o->shard_n = (unsigned)n;
        }
    }
    if (optind >= argc)
        return usage_error(cmd, "missing CONFIG.xml");
    if (optind + 1 < argc)
        return usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    o->config = argv[optind];
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
    run_fp_cache fpc = {0};
    if (rc == 0) {
        size_t np = cfg_points(&c);
        for (size_t p = 0; p < np; p++) {
            cfg pc;
            char err[1024], where[512] = "";
            /* name the point by its swept values */
            for (size_t a = 0, l = 0; a < c.naxes && l < sizeof where; a++)
                l += (size_t)snprintf(where + l, sizeof where - l, "%s%s=%s", a ? " " : " (", c.axes[a].param,
                                      cfg_point_value(&c, p, a));
            if (c.naxes && strlen(where) + 1 < sizeof where)
                strcat(where, ")");
            if (cfg_point(&c, p, &pc, err, sizeof err) != 0) {
                fprintf(stderr, "%s: error: sweep point %zu%s: %s\n", o.config, p, where, err);
                rc = -1;
                continue;
            }
            footprint fp;
            load_bounds lb;
            if (run_resolve_cached(&pc, &fpc, &fp, &lb, err, sizeof err) != 0) {
                fprintf(stderr, "%s: error: sweep point %zu%s: %s\n", o.config, p, where, err);
                rc = -1;
            }
            cfg_free(&pc);
        }
        if (rc == 0 && !o.quiet)
            printf("%s: valid (%zu point%s x %u replica%s)\n", o.config, np, np == 1 ? "" : "s",
                   c.replicas, c.replicas == 1 ? "" : "s");
    }
    run_fp_cache_free(&fpc);
    cfg_free(&c);
    free(o.sets);
    return rc ? 1 : 0;
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
    run_fp_cache fpc = {0};
    for (size_t p = 0; p < np; p++) {
        cfg pc;
        char err[512];
        footprint fp;
        load_bounds lb;
        if (cfg_point(&c, p, &pc, err, sizeof err) != 0 ||
            run_resolve_cached(&pc, &fpc, &fp, &lb, err, sizeof err) != 0) {
            fprintf(stderr, "%s: error: sweep point %zu: %s\n", o.config, p, err);
            cfg_free(&pc);
            rc = 1;
            break;
        }
        if (o.json) {
            report_analyze_json(stdout, &c, p, &pc, &fp, &lb);
            fputs(array && p + 1 < np ? ",\n" : "\n", stdout);
        } else {
            report_analyze_text(stdout, &c, p, &pc, &fp, &lb);
        }
        cfg_free(&pc);
    }
    if (array)
        fputs("]\n", stdout);
    run_fp_cache_free(&fpc);
    cfg_free(&c);
    free(o.sets);
    return rc;
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
        .json = o.json,
        .quiet = o.quiet,
        .progress = !o.quiet && (o.progress || isatty(STDERR_FILENO)),
        .verbose = o.verbose && !o.quiet,
        .list_only = o.list_only,
        .trace = o.trace,
        .config = o.config,
    };
    rc = sweep_execute(&c, &so);
    cfg_free(&c);
    free(o.sets);
    return rc;
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
        {NULL, 0, NULL, 0},
    };
    plot_opts po = {.kind = PLOT_METRIC_VS_PARAM};
    static char xy[256];
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long_only(argc, argv, ":x:y:s:X:t:lLo:T:hDC:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'x': po.x = optarg; break;
        case 'y': po.y = optarg; break;
        case 's': po.series = optarg; break;
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
        case 'D': po.kind = PLOT_LATENCY; break;
        case 'C': po.cls = optarg; break;
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
    return sweep_merge(argv[1], argv + 2, (size_t)argc - 2);
}

static int cmd_params(void)
{
    printf("%-34s %-22s %-5s %-22s %s\n", "PATH", "TYPE", "UNIT", "DEFAULT", "DESCRIPTION");
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        printf("%-34s %-22s %-5s %-22s %s\n", p->path, p->type, p->unit[0] ? p->unit : "-",
               p->def[0] ? p->def : "(required)", p->description);
    }
    printf("\nnetwork.type: ");
    for (size_t i = 0; net_registry[i]; i++)
        printf("%s%s", i ? ", " : "", net_registry[i]->name);
    printf("\nworkload.type: ");
    for (size_t i = 0; wl_registry[i]; i++)
        printf("%s%s", i ? ", " : "", wl_registry[i]->name);
    printf("\n");
    return 0;
}

static int cmd_metrics(void)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        printf("%-28s %s\n", metric_names[i], metric_descriptions[i]);
    return 0;
}

static int cmd_help(const char *what)
{
    if (!what)
        fputs(usage_main, stdout);
    else if (strcmp(what, "run") == 0)
        fputs(usage_run, stdout);
    else if (strcmp(what, "analyze") == 0)
        fputs(usage_analyze, stdout);
    else if (strcmp(what, "validate") == 0)
        fputs(usage_validate, stdout);
    else if (strcmp(what, "params") == 0)
        fputs(usage_params, stdout);
    else if (strcmp(what, "merge") == 0)
        fputs(usage_merge, stdout);
    else if (strcmp(what, "plot") == 0)
        fputs(usage_plot, stdout);
    else if (strcmp(what, "metrics") == 0)
        fputs("Usage: tasknet metrics\n\nLists every metric of runs.csv and summary.csv.\n", stdout);
    else
        return usage_error(NULL, "no help for '%s'", what);
    return 0;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
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
    if (strcmp(cmd, "params") == 0)
        return cmd_params();
    if (strcmp(cmd, "merge") == 0)
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0)
        return cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "metrics") == 0)
        return cmd_metrics();
    return usage_error(NULL, "unknown command '%s'", cmd);
}
