/* The workload contract. A workload drives a fabric: it hands messages over
 * (net_send) and reacts to deliveries, until it has nothing more to do (the
 * event queue empties). Workloads are plugins: `const wl_ops wl_<name>_ops`
 * in workloads/wl_<name>.c, listed in the registry in workloads/workload.c
 * (DESIGN rule 1). A plugin owns everything about itself: its parameter
 * rows, checks, derived values, analytic model and metrics. It never prints
 * and never exits. */
#ifndef TASKNET_WORKLOAD_H
#define TASKNET_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "metrics.h"
#include "network.h"
#include "params.h"

struct trace;

/* Simulated time is counted in integer picoseconds up to 2^63 ps = 106
 * days. A workload's resolve refuses a point whose run could not fit: its
 * largest message at B, the span of its arrivals, a mean job... each
 * within WL_HORIZON_S (11.6 days), so sums of them cannot overflow. */
#define WL_HORIZON_S 1e6

/* What a workload instance sees of its run. Several workloads may share
 * one fabric: each then has its own handle on it (net: its ranks 0..nodes-1
 * mapped to some of the fabric's nodes, its own counters), its own name and
 * its own random streams (wl_stream). */
typedef struct wl_env {
    sim *sim;
    net *net;            /* send through it, in ranks 0..nodes-1 */
    uint32_t nodes;      /* the workload's ranks */
    double bandwidth_bps;
    uint64_t seed;       /* base seed of the run */
    uint64_t replica;    /* replica index */
    const void *params;  /* the workload's own params (resolved), valid for the run */
    struct trace *trace; /* optional timeline recorder, may be NULL */
    const char *name;    /* the workload's name in the configuration, "" when it is alone and unnamed */
    int measure_window;  /* workload.measure="window": measure only what arrives in the foreground's
                            window, which finish gets in wl_run_view (ops->measures_window) */
    void **cache;        /* the workload's per-process cache, the slot wl_resolve.cache points at (NULL at
                            first; freed with free_cache), kept between the runs of a process: what runs of
                            one (seed, replica) share (task-tree: its jobs). NULL: no cache (tests) */
} wl_env;

/* The workload's random stream `purpose`: rng_stream_new(seed, replica,
 * purpose) for a workload alone and unnamed (so its numbers are the same as
 * ever), and "<name>.<purpose>" for a named one, so that a workload's
 * traffic does not depend on what else shares the fabric. */
gsl_rng *wl_stream(const wl_env *env, const char *purpose);

/* What resolve sees and may change: one sweep point. */
typedef struct wl_resolve {
    uint32_t nodes;   /* N */
    net_params *net;  /* core network parameters: a workload may derive B here */
    uint64_t seed;    /* run.seed */
    void **cache;     /* the workload's own per-process cache (NULL at first; freed with free_cache) */
    int64_t msg_fixed_ps; /* the fabric's latency of a message besides its serialisation, ps
                             (net_fixed_latency_ps; 0 when not known), for horizon checks */
    double fabric_bound;  /* the fabric's uniform-random saturation throughput per node, a fraction
                             of B (net_uniform_bound), for estimates; 0: not known (take 1) */
    int measure_window;   /* workload.measure="window" (wl_env.measure_window), for estimates */
} wl_resolve;

/* What a workload expects of one run of a resolved point: for the checks
 * before it runs (memory, horizon) and the progress shown during it.
 * Estimates, not bounds: the expected peak, on the generous side. */
typedef struct wl_estimate {
    double messages;  /* messages it hands to the fabric in the run */
    double mem_bytes; /* memory its instance holds at its peak, bytes: per-node state, records,
                         jobs and messages alive at once (messages waiting in a fabric included) */
    double horizon_s; /* simulated time until the run ends, s (0: not known) */
} wl_estimate;

/* Memory per node the core assumes of a workload without an estimate op. */
#define WL_MEM_PER_NODE_B 256.0

/* What `tasknet analyze` shows of a point: numbers for JSON (SI units),
 * and lines of text for people, both made by the plugin. */
#define WL_ANALYSIS_MAX 32
typedef struct wl_analysis {
    size_t n;
    struct {
        const char *key; /* "F_x_s" */
        double value;
    } kv[WL_ANALYSIS_MAX];
    char text[2048]; /* "  tree      n=17 ...\n" lines */
} wl_analysis;
void wl_analysis_add(wl_analysis *a, const char *key, double value);

/* What finish sees of the rest of the run: the core's and the fabric's
 * metrics, already measured (NAN if absent or not measured). The run
 * wiring fills it with the run's columns; a NULL view, as tests pass, has
 * none. */
typedef struct wl_run_view {
    const metric_def *col; /* [n] the run's metric columns */
    const double *m;       /* [n] their values so far */
    size_t n;
    /* The foreground's window, for a background workload's finish (the
     * foreground ones finish first): [fg_first_ps, fg_end_ps), from the
     * earliest first activity of the foreground workloads to the latest
     * last one (wl_span; the background was stopped then); -1 and -1 when
     * no foreground workload did anything, or without several workloads. */
    int64_t fg_first_ps, fg_end_ps;
} wl_run_view;
/* The value of the run's metric called name, or NAN. */
double wl_run_metric(const wl_run_view *v, const char *name);

/* What a workload's write_files op sees of a sweep: one point that uses
 * the workload, resolved as its runs were, and the replicas of it that are
 * done (in this session or an earlier one). A run is reproducible from
 * (point, seed, replica), so the op may rebuild what it needs of a run. */
typedef struct wl_point_runs {
    size_t point;              /* index of the point in the sweep (runs.csv `point`) */
    const void *params;        /* the workload's own params at the point (resolved) */
    const net_ops *net;        /* the point's fabric */
    const void *net_params;    /* the fabric's own params at the point */
    const net_params *core;    /* N, B, latencies */
    uint64_t seed;             /* run.seed */
    const uint64_t *replicas;  /* done replicas, increasing */
    size_t nreplicas;
} wl_point_runs;

/* A column of the terminal table `tasknet run` prints. */
typedef struct wl_column {
    const char *metric; /* a metric of the run (the workload's or the core's) */
    const char *header; /* short header */
} wl_column;

/* A workload's activity in a run (finish): the simulated times of its first
 * activity (first message generated, first job arrival, time 0 for a task
 * program) and its last (last delivery or job end), in ps; -1 for none. */
typedef struct wl_span {
    int64_t first_ps, last_ps;
} wl_span;

typedef struct wl_ops {
    const char *name;        /* workload.type value */
    const char *description; /* one line for `tasknet params` */
    size_t state_size;       /* bytes the framework allocates (zeroed) for an instance */

    /* Parameters (src/params.h): rows whose values live in a struct of
     * params_size bytes, initialised from the rows' defaults. The struct may
     * hold derived values besides (set by resolve); it owns memory only
     * through its PARAM_DIST rows. */
    const param_row *params;
    size_t nparams;
    size_t params_size;
    /* Rules across parameters (with the core's: N, B; B may be 0 when it
     * is derived by resolve), each problem at its path. May be NULL. */
    void (*check)(const net_params *core, const void *params, param_report *rep);
    /* Derived values of one sweep point, into params (and rc->net): 0, or
     * -1 + err (e.g. a horizon the run cannot simulate). May be NULL. */
    int (*resolve)(void *params, wl_resolve *rc, char *err, size_t errlen);
    void (*free_cache)(void *cache); /* may be NULL */
    /* `tasknet analyze` of a resolved point. May be NULL: no analytic model. */
    void (*analyze)(const void *params, const wl_resolve *rc, wl_analysis *out);

    int (*init)(void *state, const wl_env *env, char *err, size_t errlen);
    /* Deliveries from the fabric; the workload owns and releases m. */
    void (*deliver)(void *state, net_msg *m);
    /* After the run: fill the workload's metrics into m[nmetrics] (NAN on
     * entry) and *span (its first activity and its last, absolute
     * simulated times; left at -1 when it did nothing: the core's span_s,
     * from the earliest first to the latest last over the workloads, and
     * network_utilization); 0, or -1 + err if an invariant failed. */
    int (*finish)(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen);
    void (*fini)(void *state);
    /* Several workloads on one fabric: 1 once this one has nothing more to
     * send and everything it sent was delivered (a foreground workload's end;
     * may be NULL: then it never ends the background's traffic), and stop
     * generating new traffic (a background workload, role="background", once
     * every foreground one has finished; may be NULL: it cannot be one). */
    int (*finished)(const void *state);
    void (*stop)(void *state);
    int shares_nodes; /* 1: its nodes may also run another workload (traffic sources); 0: exclusive */
    int measures_window; /* 1: it honours wl_env.measure_window (workload.measure="window") */

    /* Files of its own in a result folder (optional): called by the
     * application in the process that writes the folder, once the runs of a
     * sweep are recorded (end of `tasknet run --out`, resume, merge), with
     * every point of the sweep that uses this workload (npts may be 0).
     * Writes dir/<its files>.csv (a point column first, so `tasknet plot
     * DIR --counts FILE` can draw a file of point,x,count rows); 0, or -1 +
     * err. NULL: no files. */
    int (*write_files)(const char *dir, const wl_point_runs *pts, size_t npts, char *err, size_t errlen);
    /* What this process's runs keep for write_files (optional, NULL: none;
     * the pattern workload's pooled evaluations): a -j worker forgets what
     * the fork copied (pool_reset), saves its own when its runs are done
     * (pool_save), and the process that writes the folder adds each to its
     * own (pool_load), so write_files need not redo the workers' work. A
     * pool is a cache: write_files must give the same files without it.
     * 0, or -1 (save: a write error; load: a file it cannot read, whose
     * points read so far stay added). Through wl_pools_* below. */
    void (*pool_reset)(void);
    int (*pool_save)(FILE *f);
    int (*pool_load)(FILE *f);
    /* Estimate a run of a resolved point into out (zeroed on entry). Every
     * shipped workload has one (the conformance suite requires it and holds
     * its message count to what a run sends); NULL (a test's plugin): the
     * core assumes WL_MEM_PER_NODE_B per node and knows no message count or
     * horizon. */
    void (*estimate)(const void *params, const wl_resolve *rc, wl_estimate *out);
    /* The fraction of the run's work done, in [0, 1], read between events
     * for --progress. May be NULL: the core uses simulated time over the
     * estimated horizon. */
    double (*progress)(const void *state);

    const metric_def *metrics; /* the workload's own metrics */
    size_t nmetrics;
    const wl_column *table;    /* the terminal table's columns, NULL-metric terminated */
    const char *plot_y;        /* the metric `tasknet plot` draws by default */
} wl_ops;

/* The registry (workloads/workload.c), NULL-terminated, and the default. */
extern const wl_ops *const wl_registry[];
extern const wl_ops *const wl_default;
const wl_ops *wl_find(const char *name);
size_t wl_count(void);
size_t wl_index(const wl_ops *ops);
/* Every workload's pool (wl_ops.pool_*): forget; save into file path
 * (written as path.tmp, then renamed); add the pools saved in path. 0 or
 * -1 (a pool may be left partly added: a cache, see pool_load). */
void wl_pools_reset(void);
int wl_pools_save(const char *path);
int wl_pools_load(const char *path);
/* 0 if name is a registered workload, else -1 + "unknown workload type ...". */
int wl_name_ok(const char *name, char *err, size_t errlen);

/* A workload's own params with every row's default; free with wl_params_free. */
void *wl_params_new(const wl_ops *ops);
void wl_params_free(const wl_ops *ops, void *params);

/* A message from the workload's pool (zeroed) handed to the fabric: bytes
 * from src to dst in class cls at the data priority NET_PRIO_LOW (the
 * configuration's <workload priority=> applies on top), tagged with the
 * workload's kind and its a, b (what its deliver reads back). The send of
 * the program-shaped workloads (mpi-trace, training). */
static inline void wl_send(net *n, net_msg_pool *pool, uint32_t src, uint32_t dst, uint64_t bytes, uint8_t cls,
                           uint16_t kind, uint32_t a, uint64_t b)
{
    net_msg *m = net_msg_alloc(pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = bytes;
    m->cls = cls;
    m->prio = NET_PRIO_LOW;
    m->kind = kind;
    m->a = a;
    m->b = b;
    net_send(n, m);
}

#endif
