/* One run: a configuration point and a replica, wired together (fabric,
 * workload, engine, streams) and measured into the metrics of a layout. */
#ifndef TASKNET_RUN_H
#define TASKNET_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "metrics.h"
#include "workload.h"

/* The metrics of every run of a sweep, in one order: the workload's (of
 * every workload type the sweep uses), the core's, the fabrics' (of every
 * fabric type it uses); a name two plugins declare is one column. A run
 * fills the columns that apply to it and leaves the others NAN. */
typedef struct run_layout {
    size_t n;          /* columns */
    metric_def *col;   /* [n] */
    size_t core0;      /* column of core metric 0 (the core's are contiguous) */
    size_t **net_map;  /* [net_count()]: column of each metric of that fabric (NULL: unused) */
    size_t **wl_map;   /* [nwl * wl_count()]: column of each metric of workload k of that type
                          (index k * wl_count() + type; NULL: unused) */
    size_t nwl;        /* workloads of the configuration */
    wl_column *table;  /* columns of the terminal table, {NULL} terminated (owned) */
    const char *plot_y; /* the first workload's default metric to plot */
    char **names;      /* metric names made for several workloads ("<name>.<metric>"), owned */
    size_t nnames;
} run_layout;

void run_layout_init(run_layout *l, const cfg *base);
void run_layout_free(run_layout *l);
/* Column of a metric by name, or -1. */
long run_layout_find(const run_layout *l, const char *name);
/* Index of a core metric. */
static inline size_t run_core(const run_layout *l, metric_id id) { return l->core0 + (size_t)id; }

/* What a process keeps between the points it resolves and the runs it
 * simulates (each workload's cache, e.g. analytic footprints, the jobs of a
 * replica); zero-initialised = empty. */
typedef struct run_cache {
    void **wl; /* [wl_count()] */
} run_cache;
void run_cache_free(run_cache *rc);

/* What run_resolve worked out besides the parameters, for reports. */
typedef struct run_info {
    int has_phy;  /* the fabric models a physical layer */
    net_phy phy;  /* its summary */
} run_info;

/* Resolve a point in place: each workload's derived values (B from
 * network.zeta, beta from workload.load, horizons), B's range, the fabric's
 * checks and physical layer. rc (may be NULL) caches across points; info
 * may be NULL. 0 or -1 + err. */
int run_resolve(cfg *c, run_cache *rc, run_info *info, char *err, size_t errlen);
/* The workload's analytic model of a resolved point (out->n = 0 and an
 * empty text when it has none). */
void run_analyze(const cfg *c, wl_analysis *out);

/* The latency histogram of a run: log bins from RUN_HIST_LO_S to
 * RUN_HIST_HI_S, RUN_HIST_PER_DECADE per decade, plus the two open ends. */
#define RUN_HIST_LO_S 1e-9
#define RUN_HIST_HI_S 10.0
#define RUN_HIST_PER_DECADE 20

/* Where a run stands, for --progress (run_outputs.progress). */
typedef struct run_progress {
    double sim_s;    /* simulated time reached, s */
    double events;   /* events executed so far */
    double wall_s;   /* wall-clock seconds since the run started */
    double fraction; /* of the run's work done, in [0, 1] (the workload's progress op, else
                        simulated time over the estimated horizon); NAN when not known */
} run_progress;

/* What a run writes besides its metrics (each optional). */
typedef struct run_outputs {
    struct trace *trace;     /* timeline recorder */
    const char *latency_csv; /* message latency histogram: rows class,bin_lo_s,bin_hi_s,count
                                (class control, data or all; non-empty bins), written atomically */
    /* called every progress_every_s of wall time inside the run (a timer
     * stops the engine between two events; nothing is done while off) */
    void (*progress)(void *ctx, const run_progress *p);
    void *progress_ctx;
    double progress_every_s; /* 0 = no progress */
} run_outputs;

/* A run of c's sweep is named by its id: point x replicas + replica, the
 * `run` of runs.csv and the ID of latency/run-ID.csv (replicas: run.replicas). */
static inline uint64_t run_id(const cfg *c, size_t point, uint64_t replica)
{
    return (uint64_t)point * c->replicas + replica;
}
static inline size_t run_point(const cfg *c, uint64_t id) { return (size_t)(id / c->replicas); }
static inline uint64_t run_replica(const cfg *c, uint64_t id) { return id % c->replicas; }

/* The workloads' own files in result folder dir (wl_ops.write_files), for
 * the runs of base's sweep with done[run_id] set. app/run/run_files.c.
 * 0, or -1 + err. */
int run_write_files(const cfg *base, const char *dir, const unsigned char *done, char *err, size_t errlen);

/* ---- before a run: what it will take (app/run/run_budget.c) ---- */

/* One run of a resolved point, as estimated from its parameters. */
typedef struct run_estimate {
    double mem_bytes;  /* peak memory: fabric + workload + the core's latency samples */
    double net_bytes, wl_bytes, samples_bytes; /* its parts */
    double messages;   /* messages the workload sends (0: not known) */
    double horizon_s;  /* simulated time the run lasts (0: not known) */
    size_t nwl;        /* each workload's own share (analyze prints them) */
    struct {
        uint32_t ranks;
        double mem_bytes, messages, horizon_s;
    } wl[CFG_MAX_WORKLOADS];
} run_estimate;
void run_estimate_point(const cfg *c, run_estimate *out);

/* The memory this process may use, bytes: the machine's physical memory,
 * lowered by a cgroup limit (containers, Slurm) and by RLIMIT_AS/DATA;
 * TASKNET_MEMORY (a size: "8GB") overrides them. `how` says where it came
 * from. */
double run_memory_available(char *how, size_t howlen);
/* 0, or -1 with the estimate and the memory in err when `copies` runs of
 * the resolved point c at once, with `extra` bytes besides, would not fit. */
int run_check_memory(const cfg *c, unsigned copies, double extra_bytes, char *err, size_t errlen);
/* cfg_point_fits for the program and the harnesses: one copy of the point
 * fits (run_check_memory). */
int run_point_fits(const cfg *c);
/* Where a memory refusal of point c points: *at = "FILE:LINE:COL" of
 * system.nodes' attribute, *what = "system.nodes=\"N\"", or of the axis
 * sweeping it, *what = "axis system.nodes" (every part of the estimate grows
 * with N); 1 for the attribute, 2 for the axis. Or 0 and "" when N was not
 * written in the file (the default, or --set, which the caller names
 * instead). */
int run_memory_where(const cfg *c, char *at, size_t atlen, char *what, size_t whatlen);
/* Whether point q of sweep c is accepted as validate accepts it: it
 * builds and passes the checks, resolves, and one run fits in memory.
 * memo (NULL, or cfg_points(c) entries: 0 not known yet, 1 accepted, -1
 * refused) keeps the answers; rc caches across points as run_resolve's. */
int run_point_accepted(const cfg *c, size_t q, signed char *memo, run_cache *rc);
/* The sweep axis that sent point p the value refused at run time (a point
 * refused by resolving it or by its memory estimate, which the checks do
 * not see), or -1: the first axis set at p whose parameter the refusal
 * `why` names; else the first whose other values alone make the point
 * accepted (run_point_accepted; memo and rc as there). -1 when no axis
 * does: the refusal is the configuration's own. */
long run_refusal_axis(const cfg *c, size_t p, const char *why, signed char *memo, run_cache *rc);
/* Where to report a refusal of point p that axis a sent: *at = "FILE:LINE:COL"
 * of the axis' param attribute, *what = "<axis param=\"P\">: value 'V' at
 * sweep point p (P=V Q=W)" (as the checks report a value an axis sent); 1.
 * 0 when a < 0 or the axis is not in a file. */
int run_refusal_where(const cfg *c, size_t p, long a, char *at, size_t atlen, char *what, size_t whatlen);
/* "1.23 GB": bytes with 3 digits, for messages. */
void run_format_bytes(double bytes, char *buf, size_t len);

/* Stop the run in progress in this process, and any run started after, at
 * once (async-signal-safe: sweep's SIGINT/SIGTERM handler calls it): it
 * returns -1 with "interrupted" and nothing recorded. run_abort_clear
 * re-arms runs. */
void run_abort(void);
void run_abort_clear(void);

/* Workload k of c's ranks on the fabric's nodes (its `nodes` attribute,
 * workloads/placement.h): n ranks, rank r on node map[r] (map has room for
 * c->nodes), given the nodes the earlier exclusive workloads hold (taken[]
 * of c->nodes, updated; NULL: none); random(n) draws from rng (may be NULL
 * when the form draws nothing); map NULL (and taken NULL): the count only,
 * nothing allocated per node. 0, or -1 + err. */
int run_wl_nodes(const cfg *c, size_t k, unsigned char *taken, gsl_rng *rng, uint32_t *map, uint32_t *n,
                 char *err, size_t errlen);

/* Simulate replica `replica` of the resolved point c into m[l->n]
 * (columns that do not apply: NAN; wall time in the core's wall_s).
 * rc (may be NULL): the process's cache, handed to each workload as
 * wl_env.cache (results do not depend on it). o may be NULL. 0, or -1 + err. */
int run_one(const cfg *c, const run_layout *l, uint64_t replica, run_cache *rc, double *m, const run_outputs *o,
            char *err, size_t errlen);

#endif
