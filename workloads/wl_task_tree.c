#include "wl_task_tree.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec_model.h"
#include "joblist.h"
#include "log.h"
#include "metrics.h"
#include "rng.h"
#include "scheduler.h"
#include "stats.h"
#include "trace.h"
#include "units.h"

/* Sums of picosecond times over every job or node of a run: a run of
 * 2^63 ps of simulated time can sum to far more than 2^63 (20 jobs of 4e6 s
 * each), so they add up in 128 bits, exactly; converted to double only at
 * the end (the same double as an int64_t sum wherever that one fits). */
#ifdef __SIZEOF_INT128__
typedef __int128 tt_sum;
#else
typedef long double tt_sum;
#endif

/* ---------------------------------------------------------- parameters */

static const char *const tt_generator_names[] = {"deterministic", "preferential", NULL};
_Static_assert(sizeof(tree_gen) == sizeof(int), "enum tree_gen is not int-sized");
_Static_assert(TREE_DETERMINISTIC == 0 && TREE_PREFERENTIAL == 1, "tt_generator_names order");

/* Largest tree accepted: vertex ids are 32-bit, and a job of more vertices
 * would not fit in memory anyway (the same cap as drawn counts). */
#define TT_MAX_TREE_VERTICES PARAM_MAX_COUNT

#define TT_ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_
#define TT(field) offsetof(tasktree_params, field)

static const param_row tt_rows[] = {
    {TT_ROW("workload.jobs", "integer", "", "1500", "task-tree: job arrivals (>= 1)"),
     .kind = PARAM_U64, .off = TT(jobs), .min = 1, .max = UINT64_MAX, .example = "1500"},
    {TT_ROW("workload.arrival-rate", "frequency", "1/s", "", "task-tree: Poisson job arrival rate beta (> 0); or workload.load"),
     .kind = PARAM_REAL, .dim = UNIT_FREQ, .off = TT(arrival_rate_per_s),
     .flags = PARAM_POS | PARAM_UNSET0 | PARAM_REQUIRED, .alt = "workload.load", .example = "5000/s"},
    {TT_ROW("workload.load", "number", "",
            "", "task-tree: target computing load rho_x: beta = rho_x (N-1) / F_x (> 0); or workload.arrival-rate"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = TT(load), .flags = PARAM_POS | PARAM_UNSET0,
     .alt = "workload.arrival-rate", .example = "0.5"},
    {TT_ROW("workload.control-size", "size", "B", "40B", "task-tree: control message size eps (> 0)"),
     .kind = PARAM_REAL, .dim = UNIT_SIZE, .off = TT(control_size_bytes), .flags = PARAM_POS, .example = "40B"},
    {TT_ROW("workload.tree.generator", "choice", "", "deterministic",
            "deterministic (needs z) | preferential (needs vertices)"),
     .kind = PARAM_CHOICE, .off = TT(tree.gen), .choices = tt_generator_names, .example = "deterministic"},
    {TT_ROW("workload.tree.z", "list", "", "", "deterministic: children per vertex of each level, e.g. \"4 3\" (each >= 1)"),
     .kind = PARAM_U32_LIST, .off = TT(tree.z), .count_off = TT(tree.zlen), .min = 1, .max = TREE_MAX_LEVELS,
     .example = "4 3", .note = "every level needs at least one child", .when = "workload.tree.generator=deterministic"},
    {TT_ROW("workload.tree.vertices", "distribution(number)", "", "", "preferential: vertices n per tree (values >= 1)"),
     .kind = PARAM_DIST, .dim = UNIT_NONE, .off = TT(tree.vertices), .flags = PARAM_MIN1,
     .example = "uniform-int(25,175)", .note = "a tree has at least its root",
     .when = "workload.tree.generator=preferential"},
    {TT_ROW("workload.tree.shape", "number", "", "1", "preferential: shape s in w(u) = (2 deg u)^s"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = TT(tree.shape), .example = "1",
     .when = "workload.tree.generator=preferential"},
    {TT_ROW("workload.task.init-time", "distribution(time)", "s", "", "initialisation time t_i of a task"),
     .kind = PARAM_DIST, .dim = UNIT_TIME, .off = TT(task.init_time), .flags = PARAM_NONNEG | PARAM_REQUIRED,
     .example = "10us"},
    {TT_ROW("workload.task.aggregation-time", "distribution(time)", "s", "", "aggregation time t_a of a task"),
     .kind = PARAM_DIST, .dim = UNIT_TIME, .off = TT(task.aggregation_time), .flags = PARAM_NONNEG | PARAM_REQUIRED,
     .example = "10us"},
    {TT_ROW("workload.task.send-size", "distribution(size)", "B", "", "bytes s_s sent to start a delegated task"),
     .kind = PARAM_DIST, .dim = UNIT_SIZE, .off = TT(task.send_size), .flags = PARAM_NONNEG | PARAM_REQUIRED,
     .example = "20kB"},
    {TT_ROW("workload.task.result-size", "distribution(size)", "B", "", "bytes s_r of a delegated task's result"),
     .kind = PARAM_DIST, .dim = UNIT_SIZE, .off = TT(task.result_size), .flags = PARAM_NONNEG | PARAM_REQUIRED,
     .example = "40kB"},
    {TT_ROW("network.zeta", "number", "", "", "task-tree: bandwidth over-provisioning, B = zeta F (> 0); or network.bandwidth"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = TT(zeta), .flags = PARAM_POS | PARAM_UNSET0,
     .alt = "network.bandwidth", .example = "1"},
    {TT_ROW("run.mc-samples", "integer", "", "10000", "task-tree: Monte Carlo trees for the footprint of stochastic trees (>= 1)"),
     .kind = PARAM_U64, .off = TT(mc_samples), .min = 1, .max = UINT64_MAX, .example = "10000"},
};

#define TT_NROWS (sizeof tt_rows / sizeof tt_rows[0])

#define TT_METRICS(X)                                                                           \
    X(jobs_completed, "jobs whose job-complete reached the scheduler")                         \
    X(job_time_mean_s, "mean job time, arrival to job-complete reception")                     \
    X(job_time_p99_s, "99th percentile of job time")                                           \
    X(queue_time_mean_s, "mean time a job waits in the scheduler FIFO")                        \
    X(service_time_mean_s, "mean time from root assignment to job-complete reception")         \
    X(speedup, "sum of job work / sum of job service time")                                    \
    X(speedup_incl_queue, "sum of job work / sum of job time (queueing included)")             \
    X(node_utilization, "compute-phase time / ((N-1) * span): measured rho_x")                 \
    X(sync_overhead, "1 - compute time / allocated time of compute nodes")                     \
    X(energy_per_job_j, "network energy per completed job")                                    \
    X(beta_per_s, "job arrival rate used by the run")                                          \
    X(rho_x, "analytic offered computing load beta F_x / (N-1)")                               \
    X(rho_c, "analytic communication load bound beta F_c / (B N)")                             \
    X(zeta, "analytic asymmetry rho_x / rho_c")                                                \
    X(F_bps, "analytic balanced bandwidth F_c / F_x")                                          \
    X(speedup_bound, "analytic speedup bound n / D")
enum { TT_METRICS(METRIC_ENUM) TT_NMETRICS };
static const metric_def tt_metrics_def[] = {TT_METRICS(METRIC_DEF)};

static void tt_check(const net_params *core, const void *params, param_report *rep)
{
    const tasktree_params *p = params;
    (void)core;
    if (p->tree.gen == TREE_DETERMINISTIC && p->tree.zlen == 0)
        param_missing(rep, "workload.tree.z", "generator deterministic, the default, needs it");
    if (p->tree.gen == TREE_PREFERENTIAL && !p->tree.vertices.text)
        param_missing(rep, "workload.tree.vertices", "generator preferential needs it");
    /* a message is whole bytes: 0.4B was sent as 0 bytes (llround) while
     * the footprint counted 0.4, and 0B is refused; refused the same way */
    if (p->control_size_bytes > 0 && p->control_size_bytes != floor(p->control_size_bytes))
        param_invalid(rep, "workload.control-size", "%.6gB is not a whole number of bytes (a message carries whole "
                      "bytes; e.g. %.0fB)", p->control_size_bytes, ceil(p->control_size_bytes));
    if (p->tree.zlen) {
        double vertices = 1, level = 1;
        for (uint32_t i = 0; i < p->tree.zlen; i++) {
            level *= p->tree.z[i];
            vertices += level;
        }
        if (vertices > TT_MAX_TREE_VERTICES)
            param_invalid(rep, "workload.tree.z", "z gives trees of %.6g vertices (at most %.0f)", vertices,
                          TT_MAX_TREE_VERTICES);
    }
}

/* The jobs of one (seed, replica, stream) kept for the runs of a process
 * (jobs/joblist.h): every point of a sweep draws the same jobs for replica
 * r, so fig9's 15 points drew each replica's 1,500 trees 15 times. */
typedef struct tt_jobs {
    char *key;      /* the rows that define a job (tree and task), seed, replica, stream name */
    joblist *list;
    uint64_t used;  /* the cache's tick when a run last took it: the least recent goes first */
    unsigned pins;  /* runs holding it now (never evicted then) */
} tt_jobs;

/* The job lists a process keeps, bytes: the least recently used list goes
 * when more would be held (after a run, and before a new list is drawn, by
 * what that run will draw), and one list stops growing there (a run then
 * draws the rest of its jobs itself). fig9 holds its 5 replicas' lists
 * (7 MB each), fig10 its 10 (2 shapes). */
#define TT_JOBS_CACHE_BYTES ((size_t)128 << 20)
/* A kept job: its tree header and per vertex 4 task values of 8 bytes and
 * 2 child entries of 4 (jobs/joblist.c). */
#define TT_JOB_HEAD_BYTES 176.0
#define TT_JOB_VERTEX_BYTES 40.0

/* What a task-tree workload keeps in a process (wl_resolve.cache and
 * wl_env.cache): footprints already computed, keyed by everything a
 * footprint depends on (the tree and task parameters, eps, the Monte Carlo
 * sample count and seed, as written), so the points of a sweep over N or B
 * share one Monte Carlo instead of redoing it (most of a fig9 sweep once);
 * and job lists. */
typedef struct tt_cache {
    char **key;
    footprint *fp;
    size_t n, cap;
    tt_jobs **jobs;
    size_t njobs, jobs_cap;
    uint64_t tick;
} tt_cache;

static void tt_free_cache(void *cache)
{
    tt_cache *fc = cache;
    if (!fc)
        return;
    for (size_t i = 0; i < fc->n; i++)
        free(fc->key[i]);
    free(fc->key);
    free(fc->fp);
    for (size_t i = 0; i < fc->njobs; i++) {
        TN_ASSERT(fc->jobs[i]->pins == 0, "a job list freed while %u runs hold it", fc->jobs[i]->pins);
        free(fc->jobs[i]->key);
        joblist_free(fc->jobs[i]->list);
        free(fc->jobs[i]);
    }
    free(fc->jobs);
    free(fc);
}

static int tt_in_footprint(const param_row *r)
{
    return strncmp(r->path, "workload.tree.", 14) == 0 || strncmp(r->path, "workload.task.", 14) == 0 ||
           strcmp(r->path, "workload.control-size") == 0 || strcmp(r->path, "run.mc-samples") == 0;
}

static int tt_in_job(const param_row *r)
{
    return strncmp(r->path, "workload.tree.", 14) == 0 || strncmp(r->path, "workload.task.", 14) == 0;
}

/* The rows `in` selects, as written, one a line, then `tail`. */
static char *tt_key(const tasktree_params *p, int (*in)(const param_row *), const char *tail)
{
    size_t len = 0, cap = 256;
    char *key = tn_xmalloc(cap);
    key[0] = '\0';
    for (size_t i = 0; i <= TT_NROWS; i++) {
        char *v;
        if (i < TT_NROWS) {
            if (!in(&tt_rows[i]))
                continue;
            v = param_format(p, &tt_rows[i], NULL);
        } else {
            v = tn_xstrdup(tail);
        }
        size_t l = strlen(v);
        if (len + l + 2 > cap) {
            cap = 2 * (len + l + 2);
            key = tn_xrealloc(key, cap);
        }
        memcpy(key + len, v, l);
        len += l;
        key[len++] = '\n';
        key[len] = '\0';
        free(v);
    }
    return key;
}

static char *tt_footprint_key(const tasktree_params *p, uint64_t seed)
{
    char seedbuf[32];
    snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)seed);
    return tt_key(p, tt_in_footprint, seedbuf);
}

static size_t tt_jobs_bytes(const tt_cache *fc)
{
    size_t b = 0;
    for (size_t i = 0; i < fc->njobs; i++)
        b += joblist_bytes(fc->jobs[i]->list);
    return b;
}

/* Drop the least recently used lists no run holds until the others and
 * `more` bytes fit in TT_JOBS_CACHE_BYTES. */
static void tt_jobs_trim(tt_cache *fc, size_t more)
{
    size_t held = tt_jobs_bytes(fc);
    while (held + more > TT_JOBS_CACHE_BYTES) {
        size_t lru = SIZE_MAX;
        for (size_t i = 0; i < fc->njobs; i++)
            if (fc->jobs[i]->pins == 0 && (lru == SIZE_MAX || fc->jobs[i]->used < fc->jobs[lru]->used))
                lru = i;
        if (lru == SIZE_MAX)
            return;
        tt_jobs *e = fc->jobs[lru];
        held -= joblist_bytes(e->list);
        free(e->key);
        joblist_free(e->list);
        free(e);
        fc->jobs[lru] = fc->jobs[--fc->njobs];
    }
}

/* Bytes a list of the run's jobs takes (at most the cache's size). */
static double tt_list_bytes(const tasktree_params *p)
{
    double b = (double)p->jobs * (TT_JOB_HEAD_BYTES + p->fp.n * TT_JOB_VERTEX_BYTES);
    return b < (double)TT_JOBS_CACHE_BYTES ? b : (double)TT_JOBS_CACHE_BYTES;
}

/* The list of this run's jobs, pinned: the one in the process's cache if
 * an earlier run of the same (seed, replica, stream) and job rows drew it,
 * else a new one on the run's "jobs" stream. */
static tt_jobs *tt_jobs_take(void **cache, const tasktree_params *p, const wl_env *env)
{
    tt_cache *fc = *cache;
    if (!fc)
        *cache = fc = tn_xcalloc(1, sizeof *fc);
    char tail[256];
    snprintf(tail, sizeof tail, "seed %llu replica %llu stream %s%sjobs", (unsigned long long)env->seed,
             (unsigned long long)env->replica, env->name ? env->name : "", env->name && env->name[0] ? "." : "");
    char *key = tt_key(p, tt_in_job, tail);
    tt_jobs *e = NULL;
    for (size_t i = 0; i < fc->njobs && !e; i++)
        if (strcmp(fc->jobs[i]->key, key) == 0)
            e = fc->jobs[i];
    if (e) {
        free(key);
    } else {
        tt_jobs_trim(fc, (size_t)tt_list_bytes(p));
        e = tn_xcalloc(1, sizeof *e);
        e->key = key;
        e->list = joblist_new(&p->tree, &p->task, wl_stream(env, "jobs"), TT_JOBS_CACHE_BYTES);
        if (fc->njobs == fc->jobs_cap) {
            fc->jobs_cap = fc->jobs_cap ? 2 * fc->jobs_cap : 8;
            fc->jobs = tn_xrealloc(fc->jobs, fc->jobs_cap * sizeof *fc->jobs);
        }
        fc->jobs[fc->njobs++] = e;
    }
    e->pins++;
    e->used = ++fc->tick;
    return e;
}

static void tt_footprint(tasktree_params *p, wl_resolve *rc)
{
    tt_cache *fc = rc->cache ? *rc->cache : NULL;
    if (rc->cache && !fc)
        *rc->cache = fc = tn_xcalloc(1, sizeof *fc);
    char *key = fc ? tt_footprint_key(p, rc->seed) : NULL;
    if (fc)
        for (size_t i = 0; i < fc->n; i++)
            if (strcmp(fc->key[i], key) == 0) {
                p->fp = fc->fp[i];
                free(key);
                return;
            }
    footprint_compute(&p->tree, &p->task, p->control_size_bytes, p->mc_samples, rc->seed, &p->fp);
    if (!fc)
        return;
    if (fc->n == fc->cap) {
        fc->cap = fc->cap ? 2 * fc->cap : 8;
        fc->key = tn_xrealloc(fc->key, fc->cap * sizeof *fc->key);
        fc->fp = tn_xrealloc(fc->fp, fc->cap * sizeof *fc->fp);
    }
    fc->key[fc->n] = key;
    fc->fp[fc->n++] = p->fp;
}

/* The footprint, then what depends on it: B = zeta F (network.zeta), beta =
 * rho_x (N-1) / F_x (workload.load); then the run must fit in the clock:
 * its biggest message at B, the span of the arrivals and a mean job each
 * within WL_HORIZON_S. */
static double tt_messages_per_job(const footprint *fp)
{
    double m = 3 * (fp->leaves - 1) + 2 + 2 * fp->delegating;
    return m > 2 ? m : 2;
}

static int tt_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    tasktree_params *p = params;
    tt_footprint(p, rc);
    if (p->zeta > 0) {
        if (!(p->fp.F_bps > 0))
            return tn_error(err, errlen, "network.zeta needs a workload with a non-zero footprint F");
        rc->net->bandwidth_bps = p->zeta * p->fp.F_bps;
        if (!(rc->net->bandwidth_bps <= NET_MAX_BPS))
            return tn_error(err, errlen, "network bandwidth %g b/s (zeta F) is outside (0, %g b/s]",
                            rc->net->bandwidth_bps, NET_MAX_BPS);
    }
    if (p->load > 0) {
        if (!(p->fp.F_x_s > 0))
            return tn_error(err, errlen, "workload.load needs a workload with a non-zero footprint F_x");
        p->arrival_rate_per_s = footprint_beta_for_load(&p->fp, rc->nodes, p->load);
    }
    double B = rc->net->bandwidth_bps;
    if (!(B > 0) || !isfinite(B))
        return 0; /* the core refuses it, naming zeta F */
    const struct {
        const char *path;
        double max;
    } sizes[] = {
        {"workload.task.send-size", dist_practical_max(&p->task.send_size)},
        {"workload.task.result-size", dist_practical_max(&p->task.result_size)},
        {"workload.control-size", p->control_size_bytes},
    };
    double biggest = 0;
    const char *which = "";
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].max > biggest) {
            biggest = sizes[i].max;
            which = sizes[i].path;
        }
    char a[64], b[64];
    if (8 * biggest / B > WL_HORIZON_S) {
        units_format(biggest, UNIT_SIZE, a, sizeof a);
        units_format(B, UNIT_RATE, b, sizeof b);
        return tn_error(err, errlen, "%s can draw %s, which takes %.3g s at B = %s: more than the %g s "
                        "a run can span; raise network.bandwidth or lower the size", which, a, 8 * biggest / B,
                        b, WL_HORIZON_S);
    }
    double span = p->arrival_rate_per_s > 0 ? (double)p->jobs / p->arrival_rate_per_s : 0;
    if (span > WL_HORIZON_S)
        return tn_error(err, errlen, "%llu jobs arriving at %g/s span %.3g s: more than the %g s a run "
                        "can span; raise the arrival rate (or load) or run fewer jobs",
                        (unsigned long long)p->jobs, p->arrival_rate_per_s, span, WL_HORIZON_S);
    /* A job, alone: its work, all its bytes and every message's fixed
     * latency one after the other (an upper bound without contention). The
     * run ends about a job after the last arrival, or, when N-1 nodes
     * cannot keep up, after jobs x job / (N-1). */
    double msgs = tt_messages_per_job(&p->fp), fixed_s = (double)rc->msg_fixed_ps * 1e-12;
    double job = p->fp.F_x_s + 8 * p->fp.F_c_bytes / B + msgs * fixed_s;
    if (job > WL_HORIZON_S)
        return tn_error(err, errlen, "a mean job computes for %.3g s, transmits for %.3g s and its %.0f messages "
                        "wait %.3g s for the fabric: %.3g s, more than the %g s a run can span", p->fp.F_x_s,
                        8 * p->fp.F_c_bytes / B, msgs, msgs * fixed_s, job, WL_HORIZON_S);
    double busy = (double)p->jobs * job / (rc->nodes > 1 ? rc->nodes - 1 : 1);
    double horizon = (span > busy ? span : busy) + job;
    if (horizon > WL_HORIZON_S)
        return tn_error(err, errlen, "%llu jobs of up to %.3g s each (work %.3g s, transmission %.3g s, %.0f "
                        "messages of %.3g s fixed latency) end after about %.3g s: more than the %g s a run can "
                        "span; run fewer jobs, or lower the latencies or the work",
                        (unsigned long long)p->jobs, job, p->fp.F_x_s, 8 * p->fp.F_c_bytes / B, msgs, fixed_s,
                        horizon, WL_HORIZON_S);
    return 0;
}


static void tt_analyze(const void *params, const wl_resolve *rc, wl_analysis *out)
{
    const tasktree_params *p = params;
    const footprint *fp = &p->fp;
    load_bounds lb;
    footprint_bounds(fp, rc->nodes, p->arrival_rate_per_s, rc->net->bandwidth_bps, &lb);
    const struct {
        const char *k;
        double v;
    } kv[] = {
        {"n", fp->n},           {"leaves", fp->leaves},
        {"delegating", fp->delegating}, {"depth", fp->depth},
        {"F_x_s", fp->F_x_s},   {"F_c_bytes", fp->F_c_bytes},
        {"F_bps", fp->F_bps},   {"beta_per_s", lb.beta_per_s},
        {"rho_x", lb.rho_x},    {"rho_c", lb.rho_c},
        {"zeta", lb.zeta},      {"speedup_bound", fp->speedup_bound},
        {"mc_samples", (double)fp->samples},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        wl_analysis_add(out, kv[i].k, kv[i].v);
    size_t o = 0, cap = sizeof out->text;
    const char *how = fp->samples ? "Monte Carlo" : "exact";
    o += (size_t)snprintf(out->text + o, cap - o, "  tree      n=%.6g  leaves L=%.6g  delegating d=%.6g  depth D=%.6g  (%s",
                          fp->n, fp->leaves, fp->delegating, fp->depth, how);
    if (fp->samples && o < cap)
        o += (size_t)snprintf(out->text + o, cap - o, ", %llu trees", (unsigned long long)fp->samples);
    if (o < cap)
        o += (size_t)snprintf(out->text + o, cap - o, ")\n");
    if (o < cap)
        o += (size_t)snprintf(out->text + o, cap - o,
                              "  footprint F_x=%.6g us  F_c=%.6g kB  F=%.6g Gb/s  speedup bound n/D=%.6g\n",
                              fp->F_x_s * 1e6, fp->F_c_bytes / 1e3, fp->F_bps / 1e9, fp->speedup_bound);
    if (o < cap)
        o += (size_t)snprintf(out->text + o, cap - o, "  jobs      beta=%.6g /s\n", lb.beta_per_s);
    if (o < cap)
        snprintf(out->text + o, cap - o, "  loads     rho_x=%.6g  rho_c=%.6g  zeta=%.6g\n", lb.rho_x, lb.rho_c,
                 lb.zeta);
}

/* Records are preallocated up to this many jobs; beyond, they grow by
 * doubling (rarely: O(log jobs) reallocations in a run). */
#define RECORDS_PREALLOC_MAX (1u << 22)

typedef struct tasktree {
    const tasktree_params *p;     /* borrowed for the run */
    uint32_t nodes;               /* N */
    double bandwidth_bps;         /* B (analytic bounds) */
    sched_port port;              /* fabric side: sim, net, message pool */
    sched sch;                    /* scheduler node */
    exec ex;                      /* compute nodes */
    gsl_rng *rng_arrivals;        /* inter-arrival times */
    gsl_rng *rng_jobs;            /* tree shapes and task values, one job per arrival, when the run
                                     draws them itself (NULL while a job list serves them) */
    void **cache;                 /* env->cache (NULL: none) */
    tt_jobs *jobs;                /* the process's list of this run's jobs, pinned (NULL: none) */
    gsl_rng *rng_sched;           /* the scheduler's choices */
    uint64_t jobs_total;          /* arrivals to generate */
    uint64_t jobs_arrived;        /* arrivals so far */
    uint64_t jobs_done;           /* job-complete messages received */
    int64_t *given_arrival_ps;    /* explicit schedule (tests), NULL for Poisson */
    double mean_gap_s;            /* Poisson: 1 / beta */
    tasktree_job_record *rec;     /* per arrival */
    uint64_t rec_cap;             /* records allocated */
    sched_job *free_jobs;         /* job pool (trees kept for reuse) */
    sched_job **all_jobs;         /* every job ever allocated */
    uint64_t njobs_alloc, all_cap; /* jobs allocated, capacity of all_jobs */
    int up;                       /* init succeeded: fini has something to free */
    int stopped;                  /* stop(): no more job arrivals (a background workload) */
} tasktree;

static sched_job *job_get(tasktree *w)
{
    sched_job *j = w->free_jobs;
    if (j) {
        w->free_jobs = j->next;
        j->next = NULL;
        return j;
    }
    j = tn_xcalloc(1, sizeof *j);
    tree_init(&j->own);
    if (w->njobs_alloc == w->all_cap) {
        w->all_cap = w->all_cap ? 2 * w->all_cap : 16;
        w->all_jobs = tn_xrealloc(w->all_jobs, w->all_cap * sizeof *w->all_jobs);
    }
    w->all_jobs[w->njobs_alloc++] = j;
    return j;
}

static void job_put(tasktree *w, sched_job *j)
{
    j->next = w->free_jobs;
    w->free_jobs = j;
}

static void arrival(sim *s, void *ctx, uint64_t arg);

static void schedule_next_arrival(tasktree *w)
{
    if (w->jobs_arrived >= w->jobs_total || w->stopped)
        return;
    sim *s = w->port.sim;
    if (w->given_arrival_ps) {
        sim_schedule_at(s, w->given_arrival_ps[w->jobs_arrived], arrival, w, 0);
        return;
    }
    /* Rounded to the picosecond: the error is far below any latency. A draw
     * past the clock's reach goes just past 2^62 ps, where run_one stops the
     * run with a message instead of the clock wrapping. */
    int64_t gap_ps = units_s_to_ps(gsl_ran_exponential(w->rng_arrivals, w->mean_gap_s));
    int64_t limit = (INT64_C(1) << 62) + 1;
    if (gap_ps > limit - sim_now(s))
        gap_ps = sim_now(s) < limit ? limit - sim_now(s) : 0;
    sim_schedule(s, gap_ps, arrival, w, 0);
}

static void arrival(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    tasktree *w = ctx;
    if (w->stopped) /* drawn before stop(): it does not arrive */
        return;
    const tasktree_params *p = w->p;
    sched_job *j = job_get(w);
    /* The i-th draw from the jobs' own stream, in arrival order: the same
     * seed gives the same jobs whatever the fabric does. A job list draws
     * it once for every run of the process; past the list's end the run
     * draws the rest from the stream where the list stopped. */
    int64_t work_ps = 0;
    j->t = NULL;
    if (!w->rng_jobs) {
        j->t = joblist_get(w->jobs->list, w->jobs_arrived, &work_ps);
        if (!j->t)
            w->rng_jobs = joblist_stream(w->jobs->list);
    }
    if (!j->t) {
        work_ps = joblist_draw(&j->own, &p->tree, &p->task, w->rng_jobs);
        j->t = &j->own;
    }
    j->seq = w->jobs_arrived++;
    j->arrival_ps = sim_now(s);
    j->work_ps = work_ps;

    if (j->seq >= w->rec_cap) {
        w->rec_cap = w->rec_cap ? 2 * w->rec_cap : 1024;
        w->rec = tn_xrealloc(w->rec, w->rec_cap * sizeof *w->rec);
    }
    tasktree_job_record *r = &w->rec[j->seq];
    r->arrival_ps = j->arrival_ps;
    r->assigned_ps = -1;
    r->completed_ps = -1;
    r->work_ps = work_ps;
    r->root_node = 0;
    r->tasks = j->t->n;

    sched_job_arrival(&w->sch, j);
    if (j->assigned_ps >= 0) {
        r->assigned_ps = j->assigned_ps;
        r->root_node = j->root_node;
    }
    schedule_next_arrival(w);
}

static void job_done(tasktree *w, sched_job *j)
{
    tasktree_job_record *r = &w->rec[j->seq];
    TN_ASSERT(r->completed_ps < 0, "job %llu completed twice", (unsigned long long)j->seq);
    /* A queued job got its node later than its arrival: record it now. */
    r->assigned_ps = j->assigned_ps;
    r->root_node = j->root_node;
    r->completed_ps = sim_now(w->port.sim);
    w->jobs_done++;
    job_put(w, j);
}

static void tt_deliver(void *state, net_msg *m)
{
    tasktree *w = state;
    if (w->port.trace)
        trace_message(w->port.trace, m->src, m->dst, sched_kind_name(m->kind), m->size_bytes,
                      exec_msg_job_seq(m), m->t_submit_ps, sim_now(w->port.sim));
    if (m->dst == 0) {
        sched_job *j = sched_deliver(&w->sch, m);
        if (j)
            job_done(w, j);
    } else {
        exec_deliver(&w->ex, m);
    }
}

static int setup(tasktree *w, const wl_env *env, const int64_t *given, uint64_t ngiven, char *err,
                 size_t errlen)
{
    const tasktree_params *p = env->params;
    memset(w, 0, sizeof *w);
    if (env->nodes < 2)
        return tn_error(err, errlen,
                        "task-tree needs at least 2 nodes (the scheduler and one compute node), "
                        "got %u",
                        env->nodes);
    if (env->net && env->net->params.nodes != 0 && env->net->params.nodes != env->nodes)
        return tn_error(err, errlen, "the network has %u nodes and the workload %u",
                        env->net->params.nodes, env->nodes);
    if (!(p->control_size_bytes >= 0) || p->control_size_bytes > 1e15)
        return tn_error(err, errlen, "control message size %g B is not a valid size",
                        p->control_size_bytes);
    if (given) {
        for (uint64_t i = 0; i < ngiven; i++)
            if (given[i] < 0 || (i > 0 && given[i] < given[i - 1]))
                return tn_error(err, errlen,
                                "explicit arrival %llu at %lld ps is negative or out of order",
                                (unsigned long long)i, (long long)given[i]);
        w->jobs_total = ngiven;
    } else {
        w->jobs_total = p->jobs;
        if (p->jobs > 0 && !(p->arrival_rate_per_s > 0 && isfinite(p->arrival_rate_per_s)))
            return tn_error(err, errlen, "task-tree arrival rate must be positive (got %g /s)",
                            p->arrival_rate_per_s);
        w->mean_gap_s = p->jobs > 0 ? 1.0 / p->arrival_rate_per_s : 0.0;
    }

    w->p = p;
    w->nodes = env->nodes;
    w->bandwidth_bps = env->bandwidth_bps;
    w->port.sim = env->sim;
    w->port.net = env->net;
    w->port.eps_bytes = (uint64_t)llround(p->control_size_bytes);
    w->port.trace = env->trace;
    net_msg_pool_init(&w->port.pool);
    w->rng_arrivals = wl_stream(env, "arrivals");
    w->cache = env->cache;
    if (env->cache)
        w->jobs = tt_jobs_take(env->cache, p, env);
    else
        w->rng_jobs = wl_stream(env, "jobs");
    w->rng_sched = wl_stream(env, "scheduler");
    sched_init(&w->sch, &w->port, w->rng_sched, env->nodes);
    exec_init(&w->ex, &w->port, env->nodes);
    if (given) {
        w->given_arrival_ps = tn_xmalloc((ngiven ? ngiven : 1) * sizeof *given);
        memcpy(w->given_arrival_ps, given, ngiven * sizeof *given);
    }
    w->rec_cap = w->jobs_total < RECORDS_PREALLOC_MAX ? w->jobs_total : RECORDS_PREALLOC_MAX;
    if (w->rec_cap)
        w->rec = tn_xmalloc(w->rec_cap * sizeof *w->rec);
    w->up = 1;
    schedule_next_arrival(w);
    return 0;
}

static int tt_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    return setup(state, env, NULL, 0, err, errlen);
}

int tasktree_init_arrivals(void *state, const wl_env *env, const int64_t *arrival_ps, uint64_t n,
                           char *err, size_t errlen)
{
    if (n > 0 && !arrival_ps)
        return tn_error(err, errlen, "explicit arrivals: no schedule given");
    static const int64_t none = 0;
    return setup(state, env, arrival_ps ? arrival_ps : &none, n, err, errlen);
}

/* Every job arrived and completed, every message delivered and released. */
static int tt_finished(const void *state)
{
    const tasktree *w = state;
    return (w->jobs_arrived == w->jobs_total || w->stopped) && w->jobs_done == w->jobs_arrived &&
           w->port.pool.live == 0;
}

/* A background task-tree workload: no job arrives after this (those in
 * progress complete). */
static void tt_stop(void *state) { ((tasktree *)state)->stopped = 1; }

static void tt_fini(void *state)
{
    tasktree *w = state;
    if (!w->up)
        return;
    exec_fini(&w->ex);
    sched_fini(&w->sch);
    for (uint64_t i = 0; i < w->njobs_alloc; i++) {
        tree_destroy(&w->all_jobs[i]->own);
        free(w->all_jobs[i]);
    }
    if (w->jobs) {
        w->jobs->pins--;
        tt_jobs_trim(*w->cache, 0);
    }
    free(w->all_jobs);
    free(w->rec);
    free(w->given_arrival_ps);
    net_msg_pool_free(&w->port.pool);
    gsl_rng_free(w->rng_arrivals);
    if (w->rng_jobs)
        gsl_rng_free(w->rng_jobs);
    gsl_rng_free(w->rng_sched);
    w->up = 0;
}

int tasktree_check_invariants(const void *state, char *err, size_t errlen)
{
    const tasktree *w = state;
    if (!w->stopped && w->jobs_arrived != w->jobs_total)
        return tn_error(err, errlen, "%llu of %llu jobs arrived",
                        (unsigned long long)w->jobs_arrived, (unsigned long long)w->jobs_total);
    for (uint64_t i = 0; i < w->jobs_arrived; i++)
        if (w->rec[i].completed_ps < 0)
            return tn_error(err, errlen, "job %llu (arrived at %lld ps) never completed",
                            (unsigned long long)i, (long long)w->rec[i].arrival_ps);
    if (w->sch.fifo_len != 0)
        return tn_error(err, errlen, "%llu jobs still wait in the scheduler's FIFO",
                        (unsigned long long)w->sch.fifo_len);
    if (w->sch.nidle != w->nodes - 1)
        return tn_error(err, errlen, "%u of %u compute nodes are still allocated",
                        w->nodes - 1 - w->sch.nidle, w->nodes - 1);
    if (w->ex.live_frames != 0)
        return tn_error(err, errlen, "%u task frames are still live", w->ex.live_frames);
    if (w->port.pool.live != 0)
        return tn_error(err, errlen, "%llu messages are still live",
                        (unsigned long long)w->port.pool.live);
    uint64_t sent = 0;
    for (unsigned k = 0; k < SCHED_KIND_COUNT; k++)
        sent += w->port.sent_by_kind[k];
    const net_counters *c = &w->port.net->c;
    if (c->sent != sent || c->delivered != sent)
        return tn_error(err, errlen,
                        "the workload sent %llu messages, the fabric took %llu and delivered %llu",
                        (unsigned long long)sent, (unsigned long long)c->sent,
                        (unsigned long long)c->delivered);
    if (c->bytes_sent != c->bytes_delivered)
        return tn_error(err, errlen, "%llu bytes sent but %llu delivered",
                        (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_delivered);
    tt_sum compute = 0, work = 0;
    for (uint32_t k = 1; k < w->nodes; k++) {
        const exec_node *n = &w->ex.node[k];
        if (n->top)
            return tn_error(err, errlen, "node %u still runs a task", k);
        if (n->compute_ps > w->sch.alloc_total_ps[k])
            return tn_error(err, errlen, "node %u computed %lld ps but was allocated %lld ps", k,
                            (long long)n->compute_ps, (long long)w->sch.alloc_total_ps[k]);
        compute += n->compute_ps;
    }
    for (uint64_t i = 0; i < w->jobs_arrived; i++)
        work += w->rec[i].work_ps;
    if (compute != work)
        return tn_error(err, errlen, "nodes computed %.17g ps for %.17g ps of work", (double)compute,
                        (double)work);
    return 0;
}

static int tt_finish(void *state, const wl_run_view *v, double *m, wl_span *sp, char *err, size_t errlen)
{
    tasktree *w = state;
    if (tasktree_check_invariants(w, err, errlen) != 0)
        return -1;
    stats_sample job_time;
    stats_sample_init(&job_time);
    tt_sum work = 0, service = 0, total = 0, queue = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint64_t i = 0; i < w->jobs_arrived; i++) {
        const tasktree_job_record *r = &w->rec[i];
        work += r->work_ps;
        service += r->completed_ps - r->assigned_ps;
        queue += r->assigned_ps - r->arrival_ps;
        total += r->completed_ps - r->arrival_ps;
        stats_sample_add(&job_time, units_ps_to_s(r->completed_ps - r->arrival_ps));
        if (r->arrival_ps < first)
            first = r->arrival_ps;
        if (r->completed_ps > last)
            last = r->completed_ps;
    }
    tt_sum compute = 0, allocated = 0;
    for (uint32_t k = 1; k < w->nodes; k++) {
        compute += w->ex.node[k].compute_ps;
        allocated += w->sch.alloc_total_ps[k];
    }
    double n = (double)w->jobs_arrived;
    m[M_jobs_completed] = (double)w->jobs_done;
    if (w->jobs_arrived > 0) {
        int64_t span = last - first;
        /* as units_ps_to_s of an int64_t sum: (double)ps * 1e-12 */
        m[M_job_time_mean_s] = (double)total * 1e-12 / n;
        m[M_job_time_p99_s] = stats_sample_quantile(&job_time, 0.99);
        m[M_queue_time_mean_s] = (double)queue * 1e-12 / n;
        m[M_service_time_mean_s] = (double)service * 1e-12 / n;
        m[M_speedup] = service > 0 ? (double)work / (double)service : 0.0;
        m[M_speedup_incl_queue] = total > 0 ? (double)work / (double)total : 0.0;
        sp->first_ps = first;
        sp->last_ps = last;
        m[M_node_utilization] =
            span > 0 ? (double)compute / ((double)(w->nodes - 1) * (double)span) : 0.0;
        m[M_sync_overhead] = allocated > 0 ? 1.0 - (double)compute / (double)allocated : 0.0;
    }
    stats_sample_free(&job_time);
    if (m[M_jobs_completed] > 0)
        /* its own bytes (another workload may share the fabric) */
        m[M_energy_per_job_j] = wl_run_metric(v, "energy_per_bit_j") * 8.0 *
                                (double)w->port.net->c.bytes_delivered / m[M_jobs_completed];
    const tasktree_params *p = w->p;
    m[M_beta_per_s] = p->arrival_rate_per_s;
    if (p->fp.F_x_s > 0) {
        load_bounds lb;
        footprint_bounds(&p->fp, w->nodes, p->arrival_rate_per_s, w->bandwidth_bps, &lb);
        m[M_rho_x] = lb.rho_x;
        m[M_rho_c] = lb.rho_c;
        m[M_zeta] = lb.zeta;
        m[M_F_bps] = p->fp.F_bps;
        m[M_speedup_bound] = p->fp.speedup_bound;
    }
    return 0;
}

/* The run as resolve sees it. A job sends 2 + 2d control messages (the
 * root assignment and job-complete; per delegating vertex a request and a
 * grant) and 3 per subtask delegated (its data, its result and a release),
 * L - 1 of them when nodes are always free; busy nodes refuse delegations,
 * which the estimate takes as a fraction rho_x of them (measured on the
 * quick start's trees: 74 estimated for 52 sent a job at rho_x = 0.81, 182
 * for 153 at 0.26, 222 for 231 at 0.05). A job's tree lives from its arrival
 * to its completion, so when arrivals outpace the N-1 compute nodes
 * (rho_x > 1) the queued jobs' trees pile up: a fraction 1 - 1/rho_x of
 * them at the end. */
static void tt_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const tasktree_params *p = params;
    const footprint *fp = &p->fp;
    double N = rc->nodes, jobs = (double)p->jobs;
    double msgs = tt_messages_per_job(fp);
    double rho = N > 1 && p->arrival_rate_per_s > 0 ? p->arrival_rate_per_s * fp->F_x_s / (N - 1) : 0;
    double delegated = rho < 1 ? 1 - rho : 0, control = 2 + 2 * fp->delegating;
    out->messages = jobs * (control + (msgs - control) * delegated);
    double live = N + (rho > 1 ? jobs * (1 - 1 / rho) : 0);
    if (live > jobs)
        live = jobs;
    /* a vertex: parent, children, level (4 x 4 B) and four task values (4 x 8 B), and its frame */
    double per_job = sizeof(sched_job) + fp->n * (16 + 32 + 24) + msgs * sizeof(net_msg) / 4;
    double per_node = 5 * sizeof(int64_t) + sizeof(exec_node);
    /* records of every job (growing by doubling) and the job-time sample of
     * finish; and the list of the run's jobs in the process's cache, which
     * the run holds whole (a sweep's runs have one) */
    out->mem_bytes = sizeof(tasktree) + N * per_node + live * per_job +
                     jobs * (1.5 * sizeof(tasktree_job_record) + sizeof(double)) + tt_list_bytes(p);
    double B = rc->net->bandwidth_bps > 0 ? rc->net->bandwidth_bps : 0;
    double job = fp->F_x_s + (B > 0 ? 8 * fp->F_c_bytes / B : 0) + msgs * (double)rc->msg_fixed_ps * 1e-12;
    double span = p->arrival_rate_per_s > 0 ? jobs / p->arrival_rate_per_s : 0;
    double busy = N > 1 ? jobs * fp->F_x_s / (N - 1) : 0;
    out->horizon_s = (span > busy ? span : busy) + job;
}

/* Jobs completed of the run's jobs. */
static double tt_progress(const void *state)
{
    const tasktree *w = state;
    return w->jobs_total ? (double)w->jobs_done / (double)w->jobs_total : NAN;
}

uint64_t tasktree_jobs_arrived(const void *state)
{
    return ((const tasktree *)state)->jobs_arrived;
}

const tasktree_job_record *tasktree_job(const void *state, uint64_t i)
{
    const tasktree *w = state;
    TN_ASSERT(i < w->jobs_arrived, "job %llu of %llu", (unsigned long long)i,
              (unsigned long long)w->jobs_arrived);
    return &w->rec[i];
}

void tasktree_node(const void *state, uint32_t node, tasktree_node_stats *out)
{
    const tasktree *w = state;
    TN_ASSERT(node < w->nodes, "node %u of %u", node, w->nodes);
    const exec_node *n = &w->ex.node[node];
    out->compute_ps = n->compute_ps;
    out->allocated_ps = w->sch.alloc_total_ps[node];
    out->allocations = w->sch.allocations[node];
    out->tasks = n->tasks;
    out->roots = n->roots;
    out->delegations_in = n->delegations_in;
    out->depth_max = n->depth_max;
    out->allocated = node > 0 && sched_is_allocated(&w->sch, node);
}

uint64_t tasktree_sent_by_kind(const void *state, unsigned kind)
{
    const tasktree *w = state;
    return kind < SCHED_KIND_COUNT ? w->port.sent_by_kind[kind] : 0;
}

void tasktree_sched_counts(const void *state, uint64_t *requested, uint64_t *granted,
                           uint64_t *fifo_max)
{
    const tasktree *w = state;
    *requested = w->sch.nodes_requested;
    *granted = w->sch.nodes_granted;
    *fifo_max = w->sch.fifo_max;
}

static const wl_column tt_table[] = {
    {"jobs_completed", "jobs"},
    {"job_time_mean_s", "job_time_s"},
    {"speedup", "speedup"},
    {"node_utilization", "node_util"},
    {"network_utilization", "net_util"},
    {"sync_overhead", "sync_ovh"},
    {"msg_latency_mean_s", "latency_s"},
    {NULL, NULL},
};

const wl_ops wl_task_tree_ops = {
    .name = "task-tree",
    .description = "jobs as task trees, a scheduler node and delegating compute nodes (Rumley et al. 2013, sec. 3.3)",
    .state_size = sizeof(tasktree),
    .params = tt_rows,
    .nparams = TT_NROWS,
    .params_size = sizeof(tasktree_params),
    .check = tt_check,
    .resolve = tt_resolve,
    .free_cache = tt_free_cache,
    .analyze = tt_analyze,
    .init = tt_init,
    .deliver = tt_deliver,
    .finish = tt_finish,
    .fini = tt_fini,
    .finished = tt_finished,
    .stop = tt_stop,
    .estimate = tt_estimate,
    .progress = tt_progress,
    .metrics = tt_metrics_def,
    .nmetrics = TT_NMETRICS,
    .table = tt_table,
    .plot_y = "speedup",
};
