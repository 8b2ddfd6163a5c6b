/* The pattern workload: ORCS communication patterns (seed 001;
 * specs/kernels-patterns.md §2, B1-B3, §3) over any fabric, timed by the
 * event engine and measured by ORCS's congestion metrics on the fabric's
 * static routes.
 *
 * Model. A pattern on C ranks (workload.tasks, default N; §9.1) is a list of
 * levels of (src, dst) pairs (jobs/patterns.c, every generator of §2:
 * rand, bisect, bisect_fb_sym, tree, bruck, recdbl, gather, scatter, ring,
 * neighbor-1d/2d/3d, neighbor (workload.neighbors = k), receivers
 * (workload.receivers = r)), every message of workload.message-size.
 * pattern="ptrnvsptrn" (B2): a foreground on ranks 0..z-1 (<foreground
 * pattern tasks=z>) and a background on ranks z..C-1 (<background
 * pattern>, default null), the background's levels repeating for as long as
 * the foreground runs (Deviation, B2: ORCS runs the background's cycle out
 * and leaks its counter between runs; tasknet stops with the foreground).
 * Rank i runs on node map(i): a uniformly random injection drawn once per
 * run (mapping="random", the default, as ORCS re-maps every run; stream
 * "pattern-mapping") or the identity.
 *
 * Timing (B1, workload.levels), run on scheduler/prog_exec.c:
 *   barrier     (default) level l+1's sends are handed over, in list order,
 *               at the instant level l's last message is delivered (per
 *               sub-pattern under ptrnvsptrn);
 *   dependency  MPI program order: rank r sends its pairs of level l, then
 *               receives its pairs of level l (tag l) (Deviation from ORCS's
 *               dep_max_delay graph, B1: every earlier reception precedes a
 *               send, not only the previous level's);
 *   free        every pair handed over at t = 0.
 * workload.timing="off": no event is simulated; the fabric is created for
 * its routes only and the run gives the static metrics (§3.1: ORCS-scale
 * studies in seconds). A fabric without static routes refuses it.
 *
 * Static metrics (§3.1, jobs/congestion.c), each run, timing on or off,
 * whenever the fabric has routes (its `route` op: the switch's and the
 * ideal fabric's star, SPINet's first-output path): per level, load(e) =
 * flows crossing link e, c_f = max load on f's route;
 *   sum_max_cong  sum over levels of max c_f;  bw_fraction mean of 1/c_f;
 *   cong_max, cong_mean  max and mean c_f;
 *   dep_max_delay longest path of the dependency DAG, foreground flows,
 *                 c_f per flow (loads count the background too, B2).
 * Timed metrics (§0, B3): kernel_time_s = the foreground's completion from
 * t = 0, kernel_time_lb_s (barrier: sum over levels of the level's
 * endpoint bound; else the endpoint bound; + L0 per level, the fabric's
 * zero-load latency of a 0-byte message), kernel_slowdown,
 * kernel_throughput (foreground bytes), background_time_s (ptrnvsptrn),
 * levels, level_time_mean_s / level_time_max_s (foreground: first hand-over
 * to last delivery of each level; the level's duration under barrier).
 *
 * Files (write_files, in the result folder, rebuilt from (point, seed,
 * replica) by the static evaluation, §3.1 "across runs"):
 *   congestion_runs.csv   point,replica,seed,sum_max_cong,bw_fraction,
 *                         cong_max,cong_mean,dep_max_delay (ORCS's per-run
 *                         histograms: their distribution over mappings);
 *   congestion_hist.csv   point,weight,flows,fraction,bw_fraction_pooled:
 *                         flows with c_f = weight pooled over levels and
 *                         runs (ORCS hist_max_cong; `tasknet plot DIR
 *                         --counts congestion_hist`);
 *   congestion_links.csv  point,link,load_sum,scaled: per link, load summed
 *                         over levels and runs, and scaled by the point's
 *                         largest (ORCS get_cable_cong; links are the
 *                         fabric's ids);
 *   congestion_links_P.dot  on a switched fabric (net_ops.topology), point
 *                         P's loads on the fabric's graph as ORCS's
 *                         get_cable_cong prints it: every directed link an
 *                         edge with load, cong (scaled) and a colour from
 *                         green (0) to red (1) (topo_write_congestion_dot).
 *
 * Streams: "pattern-rand" (rand, receivers: the foreground's draws, then
 * the background's), "pattern-mapping", "pattern-sizes" (one size per pair
 * in merged order; the spec names no stream for sizes: this one is ours).
 * Not implemented: workload.routes (§6, Decision 5: a random choice among
 * SPINet's paths with extra stages): the fabrics' route op returns one
 * path (SPINet: output 0 where both lead on), so routes are always "first".
 *
 * Exactly once: as the kernel workload (the executor's sequence marks and
 * end checks). No malloc in event callbacks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "congestion.h"
#include "log.h"
#include "mapping.h"
#include "metrics.h"
#include "network.h"
#include "patterns.h"
#include "prog_exec.h"
#include "rng.h"
#include "taskprog.h"
#include "topo.h"
#include "units.h"
#include "workload.h"

#define WP_KIND 0x5054u /* net_msg.kind of the pattern workload's messages ("PT") */

/* Shared with the kernel workload (workloads/wl_kernel.c): index 0 = not
 * given, each workload's own default (random here). */
static const char *const wp_mapping_names[] = {"default", "identity", "random", NULL};
enum { WP_MAP_DEFAULT = 0, WP_MAP_IDENTITY = 1, WP_MAP_RANDOM = 2 };
static const char *const wp_timing_names[] = {"on", "off", NULL};

typedef struct wp_sub {
    int pattern;        /* pat_kind (0 = null: not given) */
    uint32_t tasks;     /* foreground: z */
    uint32_t neighbors; /* neighbor: k */
    uint32_t receivers; /* receivers: r */
} wp_sub;

typedef struct wp_params {
    int pattern;        /* index in wp_pattern_names: 0 not given, else pat_kind + 1 (wp_kind) */
    uint32_t tasks;     /* C (0: N) */
    dist message_size;  /* bytes */
    uint32_t neighbors; /* neighbor: k */
    uint32_t receivers; /* receivers: r */
    int levels;         /* pat_timing */
    int timing_off;     /* 1: static metrics only */
    int mapping;        /* WP_MAP_* */
    wp_sub fg, bg;      /* ptrnvsptrn */
} wp_params;

_Static_assert(sizeof(pat_kind) == sizeof(int) && sizeof(pat_timing) == sizeof(int), "pattern enums are not int-sized");

#define WP(f) offsetof(wp_params, f)

/* workload.pattern's choices: pat_names shifted by one, so that "null" (no
 * traffic: ORCS's null pattern, the baseline of ptrnvsptrn) is a pattern
 * given, not the row's unset 0. */
static const char *const wp_pattern_names[] = {
    "",       "null",        "rand",        "bisect",      "bisect_fb_sym", "tree",     "bruck",      "recdbl",
    "gather", "scatter",     "ring",        "neighbor-1d", "neighbor-2d",   "neighbor-3d", "neighbor", "receivers",
    "ptrnvsptrn", NULL,
};
_Static_assert(sizeof wp_pattern_names / sizeof wp_pattern_names[0] == PAT_COUNT + 2,
               "workload.pattern's choices follow pat_kind");
static inline int wp_kind(const wp_params *p) { return p->pattern - 1; }
#define WP_ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_
#define WP_PATTERNS "rand | bisect | bisect_fb_sym | tree | bruck | recdbl | gather | scatter | ring | neighbor-1d | " \
                    "neighbor-2d | neighbor-3d | neighbor | receivers"

static const param_row wp_rows[] = {
    {WP_ROW("workload.pattern", "choice", "", "",
            "pattern: ORCS pattern, " WP_PATTERNS " | ptrnvsptrn | null (no traffic: ORCS's baseline)"),
     .kind = PARAM_CHOICE, .off = WP(pattern), .choices = wp_pattern_names, .flags = PARAM_UNSET0 | PARAM_REQUIRED,
     .example = "bruck"},
    {WP_ROW("workload.tasks", "integer", "", "", "kernel, pattern: tasks T (2 .. N; default N)"),
     .kind = PARAM_U32, .off = WP(tasks), .flags = PARAM_UNSET0, .min = 2, .max = TP_TASKS_MAX, .example = "32",
     .note = "a kernel needs a sender and a receiver"},
    {WP_ROW("workload.message-size", "distribution(size)", "B", "",
            "kernel, pattern, uniform-random: bytes of each message (values >= 1)"),
     .kind = PARAM_DIST, .dim = UNIT_SIZE, .off = WP(message_size), .flags = PARAM_MIN1 | PARAM_REQUIRED,
     .example = "1kB", .note = "a message carries at least one byte"},
    {WP_ROW("workload.neighbors", "integer", "", "", "pattern neighbor: neighbours k of every rank (>= 1)"),
     .kind = PARAM_U32, .off = WP(neighbors), .flags = PARAM_UNSET0, .min = 1, .max = UINT32_MAX, .example = "4"},
    {WP_ROW("workload.receivers", "integer", "", "", "pattern receivers: receiving ranks r (1 .. floor(C/2))"),
     .kind = PARAM_U32, .off = WP(receivers), .flags = PARAM_UNSET0, .min = 1, .max = UINT32_MAX, .example = "2"},
    {WP_ROW("workload.levels", "choice", "", "barrier",
            "pattern: level timing, barrier (a level starts when the previous one is delivered) | dependency (MPI "
            "program order) | free (all at t = 0)"),
     .kind = PARAM_CHOICE, .off = WP(levels), .choices = pat_timing_names, .example = "barrier"},
    {WP_ROW("workload.timing", "choice", "", "on",
            "pattern: on (simulate) | off (static congestion metrics only, no event: ORCS-scale studies)"),
     .kind = PARAM_CHOICE, .off = WP(timing_off), .choices = wp_timing_names, .example = "off"},
    {WP_ROW("workload.mapping", "choice", "", "",
            "kernel, pattern: task-to-node mapping, identity | random (default: identity for kernel, random for "
            "pattern)"),
     .kind = PARAM_CHOICE, .off = WP(mapping), .choices = wp_mapping_names, .flags = PARAM_UNSET0,
     .example = "random"},
    {WP_ROW("workload.foreground.pattern", "choice", "", "", "pattern ptrnvsptrn: the foreground's pattern, " WP_PATTERNS),
     .kind = PARAM_CHOICE, .off = WP(fg.pattern), .choices = pat_names, .flags = PARAM_UNSET0, .example = "tree"},
    {WP_ROW("workload.foreground.tasks", "integer", "", "",
            "pattern ptrnvsptrn: the foreground's ranks z (2 .. C-1; the background has the other C - z)"),
     .kind = PARAM_U32, .off = WP(fg.tasks), .flags = PARAM_UNSET0, .min = 2, .max = TP_TASKS_MAX, .example = "48"},
    {WP_ROW("workload.foreground.neighbors", "integer", "", "", "pattern ptrnvsptrn: the foreground neighbor's k"),
     .kind = PARAM_U32, .off = WP(fg.neighbors), .flags = PARAM_UNSET0, .min = 1, .max = UINT32_MAX, .example = "4"},
    {WP_ROW("workload.foreground.receivers", "integer", "", "", "pattern ptrnvsptrn: the foreground receivers' r"),
     .kind = PARAM_U32, .off = WP(fg.receivers), .flags = PARAM_UNSET0, .min = 1, .max = UINT32_MAX, .example = "2"},
    {WP_ROW("workload.background.pattern", "choice", "", "",
            "pattern ptrnvsptrn: the background's pattern, repeated while the foreground runs (default: none)"),
     .kind = PARAM_CHOICE, .off = WP(bg.pattern), .choices = pat_names, .flags = PARAM_UNSET0, .example = "bisect"},
    {WP_ROW("workload.background.neighbors", "integer", "", "", "pattern ptrnvsptrn: the background neighbor's k"),
     .kind = PARAM_U32, .off = WP(bg.neighbors), .flags = PARAM_UNSET0, .min = 1, .max = UINT32_MAX, .example = "4"},
    {WP_ROW("workload.background.receivers", "integer", "", "", "pattern ptrnvsptrn: the background receivers' r"),
     .kind = PARAM_U32, .off = WP(bg.receivers), .flags = PARAM_UNSET0, .min = 1, .max = UINT32_MAX, .example = "2"},
};

#define WP_METRICS(X)                                                                                        \
    X(kernel_time_s, "kernel/pattern: completion of the last task (foreground), from t = 0")              \
    X(kernel_time_lb_s, "kernel/pattern: injection/consumption bound, max endpoint bytes 8/B + fixed latency") \
    X(kernel_slowdown, "kernel/pattern: kernel_time / kernel_time_lb (>= 1 on the switch)")                \
    X(kernel_throughput, "kernel/pattern: bits delivered / (tasks B kernel_time), a fraction of B")        \
    X(background_time_s, "pattern ptrnvsptrn: completion of the background, from t = 0")                   \
    X(levels, "pattern: levels (the foreground's)")                                                        \
    X(level_time_mean_s, "pattern: mean over levels of first hand-over to last delivery (foreground)")     \
    X(level_time_max_s, "pattern: longest level, first hand-over to last delivery (foreground)")           \
    X(sum_max_cong, "pattern, static routes: sum over levels of the largest flow congestion c_f (ORCS)")   \
    X(bw_fraction, "pattern, static routes: mean over flows of 1/c_f, the fraction of peak bandwidth")     \
    X(cong_max, "pattern, static routes: largest flow congestion c_f")                                     \
    X(cong_mean, "pattern, static routes: mean flow congestion c_f")                                       \
    X(dep_max_delay, "pattern, static routes: longest dependency chain of foreground flows, in c_f units")
enum { WP_METRICS(METRIC_ENUM) WP_NMETRICS };
static const metric_def wp_metrics_def[] = {WP_METRICS(METRIC_DEF)};

typedef struct wp {
    const wp_params *p;
    uint32_t ranks;     /* C */
    uint32_t fg_ranks;  /* z (C without a background) */
    double bandwidth_bps;
    pat_set set;
    uint32_t *map;      /* [C] node of each rank */
    int have_static;    /* the fabric has routes: res is valid */
    cong_result res;
    int timed;          /* a program runs */
    tp_prog prog;
    pexec *x;
    int64_t fixed_ps;
    int up;
} wp;

static uint32_t sub_arg(int pattern, uint32_t neighbors, uint32_t receivers)
{
    return pattern == PAT_NEIGHBOR ? neighbors : pattern == PAT_RECEIVERS ? receivers : 0;
}

/* The rules of one generator's argument, reported at its path. */
static void check_sub(param_report *rep, const char *prefix, int pattern, uint32_t C, uint32_t neighbors,
                      uint32_t receivers)
{
    char path[64];
    if (pattern == PAT_NEIGHBOR && neighbors == 0) {
        snprintf(path, sizeof path, "%s.neighbors", prefix);
        param_missing(rep, path, "pattern neighbor needs its k (e.g. 4)");
    }
    if (pattern == PAT_RECEIVERS) {
        snprintf(path, sizeof path, "%s.receivers", prefix);
        if (receivers == 0)
            param_missing(rep, path, "pattern receivers needs its r (e.g. 2)");
        else if (C >= 2 && receivers > C / 2)
            param_invalid(rep, path, "r = %u must be at most floor(C/2) = %u for C = %u ranks", receivers, C / 2, C);
    }
}

static void wp_check(const net_params *core, const void *params, param_report *rep)
{
    const wp_params *p = params;
    uint32_t C = p->tasks ? p->tasks : core->nodes;
    if (p->tasks && core->nodes >= 2 && p->tasks > core->nodes)
        param_invalid(rep, "workload.tasks", "more tasks than system nodes (%u)", core->nodes);
    if (wp_kind(p) != PAT_PTRNVSPTRN) {
        check_sub(rep, "workload", wp_kind(p), C, p->neighbors, p->receivers);
        return;
    }
    /* ptrnvsptrn: the foreground's and the background's own rules */
    if (p->fg.pattern == PAT_NULL)
        param_missing(rep, "workload.foreground.pattern", "pattern=\"ptrnvsptrn\" needs a foreground pattern");
    else if (p->fg.pattern == PAT_PTRNVSPTRN)
        param_invalid(rep, "workload.foreground.pattern", "ptrnvsptrn does not nest");
    if (p->bg.pattern == PAT_PTRNVSPTRN)
        param_invalid(rep, "workload.background.pattern", "ptrnvsptrn does not nest");
    uint32_t z = p->fg.tasks;
    if (z == 0) {
        param_missing(rep, "workload.foreground.tasks", "pattern=\"ptrnvsptrn\" needs the foreground's ranks z");
        return;
    }
    if (C >= 2 && z >= C) {
        param_invalid(rep, "workload.foreground.tasks", "z = %u must be below the %u tasks (the background has the "
                      "others)", z, C);
        return;
    }
    if (p->bg.pattern != PAT_NULL && C - z < 2)
        param_invalid(rep, "workload.background.pattern", "a %s background needs at least 2 ranks (it has C - z = %u)",
                      pat_names[p->bg.pattern], C - z);
    check_sub(rep, "workload.foreground", p->fg.pattern, z, p->fg.neighbors, p->fg.receivers);
    check_sub(rep, "workload.background", p->bg.pattern, C - z, p->bg.neighbors, p->bg.receivers);
}

/* Timed runs must fit in the clock: every message one after the other at B. */
static int wp_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    const wp_params *p = params;
    double B = rc->net->bandwidth_bps;
    if (!(B > 0) || !p->message_size.text || p->timing_off)
        return 0;
    double C = p->tasks ? p->tasks : rc->nodes;
    /* the largest pattern has C (C-1) pairs (neighbor, k = C-1); bruck C log2 C */
    double pairs = C * (C - 1), biggest = dist_practical_max(&p->message_size);
    if (pairs * 8 * biggest / B > WL_HORIZON_S)
        return tn_error(err, errlen, "%.0f messages of up to %g B may span %.3g s at B: more than the %g s a run "
                        "can span", pairs, biggest, pairs * 8 * biggest / B, WL_HORIZON_S);
    return 0;
}

/* Messages: one per pair of the pattern (pat_count: exact, or at most, as
 * it says; none with timing off). Memory: the pairs, the map, the static
 * evaluation's routes of its largest level (16 links each) and the
 * timed program with its executor (pexec_mem_bytes, a bucket per level). */
static void wp_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const wp_params *p = params;
    uint32_t C = p->tasks ? p->tasks : rc->nodes;
    pat_count_t c;
    if (wp_kind(p) != PAT_PTRNVSPTRN) {
        c = pat_count((pat_kind)wp_kind(p), C, sub_arg(wp_kind(p), p->neighbors, p->receivers));
    } else {
        uint32_t z = p->fg.tasks < C ? p->fg.tasks : C;
        c = pat_count_compose(pat_count((pat_kind)p->fg.pattern, z, sub_arg(p->fg.pattern, p->fg.neighbors,
                                                                                p->fg.receivers)),
                              pat_count((pat_kind)p->bg.pattern, C - z,
                                        sub_arg(p->bg.pattern, p->bg.neighbors, p->bg.receivers)));
    }
    double pairs = (double)c.pairs;
    out->messages = p->timing_off ? 0 : pairs;
    out->mem_bytes = sizeof(wp) + (double)C * (sizeof(uint32_t) + sizeof(uint64_t)) + pairs * sizeof(pat_pair) +
                     (double)c.levels * sizeof(uint64_t) + (double)c.max_level * (16 * sizeof(uint64_t) + 24) +
                     (p->timing_off ? 0 : pexec_mem_bytes(pairs, C, c.levels + 1.0));
}

/* The pattern set of one run (draws from "pattern-rand"). */
static int build_set(const wp_params *p, uint32_t C, uint64_t seed, uint64_t replica, pat_set *out, char *err,
                     size_t errlen)
{
    gsl_rng *rr = rng_stream_new(seed, replica, "pattern-rand");
    int rc = -1;
    pat_levels fg, bg;
    memset(&fg, 0, sizeof fg);
    memset(&bg, 0, sizeof bg);
    if (wp_kind(p) != PAT_PTRNVSPTRN) {
        if (pat_generate((pat_kind)wp_kind(p), C, sub_arg(wp_kind(p), p->neighbors, p->receivers), rr, &fg, err,
                         errlen) == 0) {
            pat_single(&fg, out);
            rc = 0;
        }
    } else if (pat_generate((pat_kind)p->fg.pattern, p->fg.tasks, sub_arg(p->fg.pattern, p->fg.neighbors,
                                                                        p->fg.receivers), rr, &fg, err, errlen) == 0 &&
               pat_generate((pat_kind)p->bg.pattern, C - p->fg.tasks,
                            sub_arg(p->bg.pattern, p->bg.neighbors, p->bg.receivers), rr, &bg, err, errlen) == 0) {
        pat_compose(&fg, &bg, out);
        rc = 0;
    }
    pat_levels_free(&fg);
    pat_levels_free(&bg);
    gsl_rng_free(rr);
    return rc;
}

static void build_map(const wp_params *p, uint32_t C, uint32_t nodes, uint64_t seed, uint64_t replica,
                      uint32_t *map)
{
    if (p->mapping == WP_MAP_IDENTITY) {
        map_identity(map, C);
        return;
    }
    gsl_rng *mr = rng_stream_new(seed, replica, "pattern-mapping");
    map_random(map, C, nodes, mr, NULL);
    gsl_rng_free(mr);
}

/* The fabric's routes between a handle's ranks: net_route takes a
 * workload's rank r to its node (several workloads on one fabric). */
static size_t route_ranks(const void *ctx, uint32_t src, uint32_t dst, uint64_t *links, size_t max)
{
    return net_route(ctx, src, dst, links, max);
}

static size_t route_ranks_many(const void *ctx, size_t count, const uint64_t *ends, uint32_t *links, uint32_t *len,
                               size_t stride)
{
    return net_route_many(ctx, count, ends, links, len, stride);
}

/* The evaluations' scratch memory, kept from one mapping to the next in
 * this process (a run's and the result files' evaluations run one at a
 * time): no allocation per mapping once grown (cong_ws). */
static cong_ws eval_ws;

/* The evaluations this process's runs made (wp_init), pooled per point,
 * so that the result files of the runs made here (point_files: the pooled
 * loads and histogram, a row per replica) need not evaluate them again:
 * at ORCS's scale that second evaluation was half of a mapping's time. A
 * point is known by memo_key: the fabric's routes digest (its type,
 * parameters, the files they name, what its stream drew for the routes:
 * net_routes_digest), the workload's parameters as written and the seed;
 * a run is pooled only on the fabric's own handle (the pattern alone on
 * it, as point_files evaluates). point_files uses a point's pool when
 * every replica in it is one it writes (integer sums: the order of the
 * additions does not matter) and evaluates the others; with -j N the runs
 * are made in worker processes and the files' pass evaluates them all, as
 * before. At most MEMO_POINTS points (a link's load each: 8 B a link). */
#define MEMO_POINTS 16
typedef struct memo_point {
    uint64_t key;
    cong_acc acc;       /* the pooled runs */
    uint64_t *replica;  /* [n] the replicas pooled, in the order run */
    cong_result *res;   /* [n] */
    size_t n, cap;
    int bad;            /* pools that cannot be added (a replica in two, another link count): not used */
} memo_point;
static memo_point memo[MEMO_POINTS];
static size_t nmemo;

static uint64_t memo_key(const net *root, const wp_params *p, uint64_t seed)
{
    uint64_t h = net_routes_digest(root) ^ seed * UINT64_C(0x9e3779b97f4a7c15);
    for (size_t i = 0; i < sizeof wp_rows / sizeof wp_rows[0]; i++) {
        char *v = param_format(p, &wp_rows[i], NULL);
        for (const char *c = wp_rows[i].path; *c; c++)
            h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
        for (const char *c = v; ; c++) {
            h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
            if (!*c)
                break;
        }
        free(v);
        h ^= param_digest(p, &wp_rows[i]);
        h *= UINT64_C(1099511628211);
    }
    return h;
}

static memo_point *memo_find(uint64_t key)
{
    for (size_t i = 0; i < nmemo; i++)
        if (memo[i].key == key)
            return &memo[i];
    return NULL;
}

static void memo_append(memo_point *m, uint64_t replica, const cong_result *res)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->replica = tn_xrealloc(m->replica, m->cap * sizeof *m->replica);
        m->res = tn_xrealloc(m->res, m->cap * sizeof *m->res);
    }
    m->replica[m->n] = replica;
    m->res[m->n++] = *res;
}

/* The pool between processes (wl_ops.pool_*, workloads/workload.c): a -j
 * worker pools its own runs, saves the pool when its runs are done, and
 * the process that writes the folder adds every worker's to its own
 * (app/sweep/sweep_fork.c), so point_files evaluates none of those
 * mappings again and two cores make the files' pass as fast as the runs.
 * The sums are of integers: the same whatever the order of the additions.
 * A replica found in two pools of a point, or pools of another link
 * count, make the point's pool unused (bad): the files' pass evaluates its
 * mappings itself, as without a pool. Binary, for the same executable on
 * the same machine: a magic, the points, each with its key, link count,
 * histogram length, runs, replicas, then the loads, histogram, replicas
 * and results. */
#define WP_POOL_MAGIC UINT64_C(0x31304c4f4f504e54) /* "TNPOOL01" */

static void wp_pool_reset(void)
{
    for (size_t i = 0; i < nmemo; i++) {
        cong_acc_free(&memo[i].acc);
        free(memo[i].replica);
        free(memo[i].res);
    }
    memset(memo, 0, sizeof memo);
    nmemo = 0;
}

static int wp_pool_save(FILE *f)
{
    uint64_t head[2] = {WP_POOL_MAGIC, nmemo};
    fwrite(head, sizeof head, 1, f);
    for (size_t i = 0; i < nmemo; i++) {
        const memo_point *m = &memo[i];
        uint64_t h[6] = {m->key, m->acc.nlinks, m->acc.hist_len, m->acc.runs, m->n, (uint64_t)m->bad};
        fwrite(h, sizeof h, 1, f);
        fwrite(m->acc.link_load, sizeof *m->acc.link_load, m->acc.nlinks, f);
        fwrite(m->acc.hist, sizeof *m->acc.hist, m->acc.hist_len, f);
        fwrite(m->replica, sizeof *m->replica, m->n, f);
        fwrite(m->res, sizeof *m->res, m->n, f);
    }
    return ferror(f) ? -1 : 0;
}

static int read_n(FILE *f, void *p, size_t size, uint64_t n)
{
    return n == 0 || fread(p, size, (size_t)n, f) == n ? 0 : -1;
}

static int wp_pool_load(FILE *f)
{
    uint64_t head[2];
    if (fread(head, sizeof head, 1, f) != 1 || head[0] != WP_POOL_MAGIC || head[1] > MEMO_POINTS)
        return -1;
    for (uint64_t k = 0; k < head[1]; k++) {
        uint64_t h[6];
        if (fread(h, sizeof h, 1, f) != 1 || h[1] > ((uint64_t)1 << 40) || h[2] > ((uint64_t)1 << 40) ||
            h[4] > ((uint64_t)1 << 40))
            return -1;
        uint64_t *load = tn_xmalloc((h[1] ? h[1] : 1) * sizeof *load), *hist = tn_xmalloc((h[2] ? h[2] : 1) * sizeof *hist);
        uint64_t *rep = tn_xmalloc((h[4] ? h[4] : 1) * sizeof *rep);
        cong_result *res = tn_xmalloc((h[4] ? h[4] : 1) * sizeof *res);
        int rc = read_n(f, load, sizeof *load, h[1]) || read_n(f, hist, sizeof *hist, h[2]) ||
                 read_n(f, rep, sizeof *rep, h[4]) || read_n(f, res, sizeof *res, h[4]) ? -1 : 0;
        memo_point *m = rc == 0 ? memo_find(h[0]) : NULL;
        if (rc == 0 && !m && nmemo < MEMO_POINTS) {
            m = &memo[nmemo++];
            memset(m, 0, sizeof *m);
            m->key = h[0];
            cong_acc_init(&m->acc, h[1]);
        }
        if (m && (h[5] || m->acc.nlinks != h[1]))
            m->bad = 1;
        for (uint64_t i = 0; m && !m->bad && i < h[4]; i++)
            for (size_t j = 0; j < m->n; j++)
                if (m->replica[j] == rep[i])
                    m->bad = 1; /* pooled twice: the sums would count it twice */
        if (m && !m->bad) {
            for (uint64_t e = 0; e < h[1]; e++)
                m->acc.link_load[e] += load[e];
            if (h[2] > m->acc.hist_len) {
                m->acc.hist = tn_xrealloc(m->acc.hist, h[2] * sizeof *m->acc.hist);
                memset(m->acc.hist + m->acc.hist_len, 0, (h[2] - m->acc.hist_len) * sizeof *m->acc.hist);
                m->acc.hist_len = h[2];
            }
            for (uint64_t w = 0; w < h[2]; w++)
                m->acc.hist[w] += hist[w];
            m->acc.runs += h[3];
            for (uint64_t i = 0; i < h[4]; i++)
                memo_append(m, rep[i], &res[i]);
        }
        free(load);
        free(hist);
        free(rep);
        free(res);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int eval_static(const net *n, const pat_set *s, const uint32_t *map, cong_acc *acc, cong_result *res,
                       char *err, size_t errlen)
{
    return cong_eval_ws(&eval_ws, s, map, n->ops->link_count(n->state), route_ranks,
                        n->ops->route_many ? route_ranks_many : NULL, n, acc, res, err, errlen);
}

static int wp_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    wp *w = state;
    const wp_params *p = env->params;
    memset(w, 0, sizeof *w);
    if (!env->sim || !env->net)
        return tn_error(err, errlen, "pattern: needs an engine and a network");
    uint32_t C = p->tasks ? p->tasks : env->nodes;
    if (C > env->nodes)
        return tn_error(err, errlen, "pattern: %u tasks on %u nodes", C, env->nodes);
    const net *n = env->net;
    int routes = n->ops->route && n->ops->link_count;
    if (p->timing_off && !routes)
        return tn_error(err, errlen, "pattern timing=\"off\" needs static routes, and the %s fabric has none",
                        n->ops->name);
    if (build_set(p, C, env->seed, env->replica, &w->set, err, errlen) != 0)
        return -1;
    w->map = tn_xmalloc((size_t)C * sizeof *w->map);
    build_map(p, C, env->nodes, env->seed, env->replica, w->map);
    w->p = p;
    w->ranks = C;
    w->fg_ranks = w->set.ngroups > 1 ? w->set.first[1] : C;
    w->bandwidth_bps = env->bandwidth_bps;
    w->up = 1;
    if (routes) {
        /* pooled for the result files (memo) when on the fabric's own handle */
        memo_point *m = NULL;
        if (n == n->root) {
            uint64_t key = memo_key(n, p, env->seed);
            m = memo_find(key);
            if (!m && nmemo < MEMO_POINTS) {
                m = &memo[nmemo++];
                memset(m, 0, sizeof *m);
                m->key = key;
                cong_acc_init(&m->acc, n->ops->link_count(n->state));
            }
            for (size_t i = 0; m && i < m->n; i++)
                if (m->replica[i] == env->replica)
                    m = NULL; /* pooled already (a run made again) */
            if (m && m->bad)
                m = NULL;
        }
        if (eval_static(n, &w->set, w->map, m ? &m->acc : NULL, &w->res, err, errlen) != 0)
            return -1;
        if (m)
            memo_append(m, env->replica, &w->res);
        w->have_static = 1;
    }
    if (p->timing_off)
        return 0;
    gsl_rng *sizes = rng_stream_new(env->seed, env->replica, "pattern-sizes");
    int rc = pat_program(&w->set, (pat_timing)p->levels, &p->message_size, sizes, &w->prog, err, errlen);
    gsl_rng_free(sizes);
    if (rc != 0)
        return -1;
    w->timed = 1;
    w->x = pexec_create(&w->prog, w->map, env->nodes, WP_KIND, err, errlen);
    if (!w->x)
        return -1;
    w->fixed_ps = pexec_fixed_ps(w->x, env->net);
    pexec_set_trace(w->x, env->trace);
    pexec_start(w->x, env->sim, env->net);
    return 0;
}

static void wp_deliver(void *state, net_msg *m) { pexec_deliver(((wp *)state)->x, m); }

static int wp_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    (void)v;
    wp *w = state;
    m[M_levels] = (double)pat_set_levels(&w->set);
    if (w->have_static) {
        m[M_sum_max_cong] = w->res.sum_max_cong;
        m[M_bw_fraction] = w->res.bw_fraction;
        m[M_cong_max] = w->res.cong_max;
        m[M_cong_mean] = w->res.cong_mean;
        m[M_dep_max_delay] = w->res.dep_max_delay;
    }
    if (!w->timed)
        return 0;
    if (pexec_finish(w->x, err, errlen) != 0)
        return -1;
    int64_t done = pexec_group_done_ps(w->x, 0);
    int64_t lb = tp_lower_bound_ps(&w->prog, 0, w->bandwidth_bps, w->fixed_ps);
    double t_s = units_ps_to_s(done);
    m[M_kernel_time_s] = t_s;
    m[M_kernel_time_lb_s] = units_ps_to_s(lb);
    m[M_kernel_slowdown] = lb > 0 ? (double)done / (double)lb : NAN;
    m[M_kernel_throughput] = done > 0 ? 8.0 * (double)tp_group_bytes(&w->prog, 0) /
                                            ((double)w->fg_ranks * w->bandwidth_bps * t_s)
                                      : NAN;
    if (w->set.ngroups > 1)
        m[M_background_time_s] = units_ps_to_s(pexec_group_done_ps(w->x, 1));
    pexec_spans sp;
    pexec_tag_spans(w->x, 0, &sp);
    if (sp.tags) {
        m[M_level_time_mean_s] = units_ps_to_s((int64_t)llround(sp.mean_ps));
        m[M_level_time_max_s] = units_ps_to_s(sp.max_ps);
    }
    span->first_ps = 0;
    span->last_ps = pexec_done_ps(w->x);
    return 0;
}

static void wp_fini(void *state)
{
    wp *w = state;
    if (!w->up)
        return;
    if (w->x)
        pexec_destroy(w->x);
    if (w->timed)
        tp_prog_free(&w->prog);
    pat_set_free(&w->set);
    free(w->map);
    w->up = 0;
}

/* ------------------------------------------------------------ the files */

typedef struct wp_file {
    char path[4096], tmp[4200];
    FILE *f;
} wp_file;

static int file_open(wp_file *wf, const char *dir, const char *name, const char *header, char *err, size_t errlen)
{
    snprintf(wf->path, sizeof wf->path, "%s/%s", dir, name);
    snprintf(wf->tmp, sizeof wf->tmp, "%s.tmp", wf->path);
    wf->f = fopen(wf->tmp, "w");
    if (!wf->f)
        return tn_error(err, errlen, "%s: %s", wf->tmp, strerror(errno));
    fputs(header, wf->f);
    return 0;
}

/* Close and rename into place (keep = 1), or drop. 0, or -1 + err. */
static int file_close(wp_file *wf, int keep, char *err, size_t errlen)
{
    if (!wf->f)
        return 0;
    int bad = ferror(wf->f);
    int rc = fclose(wf->f);
    wf->f = NULL;
    if (keep && (rc != 0 || bad || rename(wf->tmp, wf->path) != 0)) {
        int e = errno;
        unlink(wf->tmp);
        return tn_error(err, errlen, "%s: %s", wf->path, strerror(e ? e : EIO));
    }
    if (!keep)
        unlink(wf->tmp);
    return 0;
}

static void no_delivery(void *owner, net_msg *m)
{
    (void)owner;
    TN_ASSERT(0, "a fabric built for its routes delivered message %llu", (unsigned long long)m->id);
}

/* The static evaluation of every done replica of one point, its rows. */
static int point_files(const char *dir, const wl_point_runs *pt, FILE *runs, FILE *hist, FILE *links, char *err,
                       size_t errlen)
{
    const wp_params *p = pt->params;
    uint32_t N = pt->core->nodes, C = p->tasks ? p->tasks : N;
    sim *s = sim_create();
    gsl_rng *nr = rng_stream_new(pt->seed, 0, "network");
    net *n = net_create(pt->net, pt->core, pt->net_params, NULL, s, nr, no_delivery, NULL, err, errlen);
    int rc = -1;
    uint32_t *map = tn_xmalloc((size_t)C * sizeof *map);
    cong_acc acc;
    memset(&acc, 0, sizeof acc);
    if (!n)
        goto out;
    if (!n->ops->route || !n->ops->link_count) {
        rc = 0; /* no static routes: no rows */
        goto out;
    }
    cong_acc_init(&acc, n->ops->link_count(n->state));
    /* this process's runs of the point, pooled (memo), when they are all
     * among the replicas written here: then only the others are evaluated */
    const memo_point *m = memo_find(memo_key(n, p, pt->seed));
    if (m && m->bad)
        m = NULL;
    for (size_t i = 0; m && i < m->n; i++) {
        size_t lo = 0, hi = pt->nreplicas; /* pt->replicas increase */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (pt->replicas[mid] < m->replica[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == pt->nreplicas || pt->replicas[lo] != m->replica[i] || m->acc.nlinks != acc.nlinks)
            m = NULL;
    }
    if (m) {
        memcpy(acc.link_load, m->acc.link_load, acc.nlinks * sizeof *acc.link_load);
        acc.hist = tn_xmalloc((m->acc.hist_len ? m->acc.hist_len : 1) * sizeof *acc.hist);
        memcpy(acc.hist, m->acc.hist, m->acc.hist_len * sizeof *acc.hist);
        acc.hist_len = m->acc.hist_len;
        acc.runs = m->acc.runs;
    }
    size_t from_pool = 0;
    for (size_t k = 0; k < pt->nreplicas; k++) {
        uint64_t r = pt->replicas[k];
        cong_result res;
        const cong_result *known = NULL;
        for (size_t i = 0; m && i < m->n && !known; i++)
            if (m->replica[i] == r)
                known = &m->res[i];
        if (known) {
            res = *known;
            from_pool++;
        } else {
            pat_set set;
            if (build_set(p, C, pt->seed, r, &set, err, errlen) != 0)
                goto out;
            build_map(p, C, N, pt->seed, r, map);
            int e = eval_static(n, &set, map, &acc, &res, err, errlen);
            pat_set_free(&set);
            if (e != 0)
                goto out;
        }
        fprintf(runs, "%zu,%llu,%llu,%.17g,%.17g,%.17g,%.17g,%.17g\n", pt->point, (unsigned long long)r,
                (unsigned long long)pt->seed, res.sum_max_cong, res.bw_fraction, res.cong_max, res.cong_mean,
                res.dep_max_delay);
    }
    /* how many came from the pool, for tests/check_congestion_pool.sh */
    if (getenv("TASKNET_POOL_TRACE"))
        fprintf(stderr, "pattern point %zu: %zu of %zu mappings from the runs' pool\n", pt->point, from_pool,
                pt->nreplicas);
    uint64_t flows = 0;
    for (size_t w = 1; w < acc.hist_len; w++)
        flows += acc.hist[w];
    double pooled = cong_acc_bw_fraction(&acc);
    for (size_t w = 1; w < acc.hist_len; w++)
        if (acc.hist[w])
            fprintf(hist, "%zu,%zu,%llu,%.17g,%.17g\n", pt->point, w, (unsigned long long)acc.hist[w],
                    (double)acc.hist[w] / (double)flows, pooled);
    uint64_t mx = cong_acc_link_max(&acc);
    for (uint64_t e = 0; e < acc.nlinks; e++)
        fprintf(links, "%zu,%llu,%llu,%.17g\n", pt->point, (unsigned long long)e,
                (unsigned long long)acc.link_load[e], mx ? (double)acc.link_load[e] / (double)mx : 0.0);
    rc = 0;
    /* the same loads on the fabric's graph, coloured (switched fabrics) */
    const topo *t = n->ops->topology ? n->ops->topology(n->state) : NULL;
    if (t && t->links == acc.nlinks) {
        wp_file df;
        char name[64], title[128];
        snprintf(name, sizeof name, "congestion_links_%zu.dot", pt->point);
        snprintf(title, sizeof title, "point %zu: %s, %zu replica(s)", pt->point, pt->net->name, pt->nreplicas);
        memset(&df, 0, sizeof df);
        rc = file_open(&df, dir, name, "", err, errlen);
        if (rc == 0) {
            topo_write_congestion_dot(t, df.f, title, acc.link_load);
            rc = file_close(&df, 1, err, errlen);
        }
    }
out:
    cong_acc_free(&acc);
    free(map);
    if (n)
        net_destroy(n);
    gsl_rng_free(nr);
    sim_destroy(s);
    return rc;
}

static int wp_write_files(const char *dir, const wl_point_runs *pts, size_t npts, char *err, size_t errlen)
{
    if (npts == 0)
        return 0;
    wp_file f[3];
    memset(f, 0, sizeof f);
    int rc = file_open(&f[0], dir, "congestion_runs.csv",
                       "point,replica,seed,sum_max_cong,bw_fraction,cong_max,cong_mean,dep_max_delay\n", err, errlen);
    if (rc == 0)
        rc = file_open(&f[1], dir, "congestion_hist.csv", "point,weight,flows,fraction,bw_fraction_pooled\n", err,
                       errlen);
    if (rc == 0)
        rc = file_open(&f[2], dir, "congestion_links.csv", "point,link,load_sum,scaled\n", err, errlen);
    for (size_t i = 0; i < npts && rc == 0; i++)
        rc = point_files(dir, &pts[i], f[0].f, f[1].f, f[2].f, err, errlen);
    for (int k = 0; k < 3; k++) {
        char e2[512];
        if (file_close(&f[k], rc == 0, e2, sizeof e2) != 0 && rc == 0) {
            rc = -1;
            snprintf(err, errlen, "%s", e2);
        }
    }
    return rc;
}

static const wl_column wp_table[] = {
    {"kernel_time_s", "time_s"},
    {"kernel_slowdown", "slowdown"},
    {"sum_max_cong", "sum_max_cong"},
    {"bw_fraction", "bw_fraction"},
    {"dep_max_delay", "dep_delay"},
    {NULL, NULL},
};

const wl_ops wl_pattern_ops = {
    .name = "pattern",
    .description = "ORCS communication patterns (bruck, recdbl, tree, rand, ..., ptrnvsptrn) in levels, timed "
                   "(barrier, dependency, free) or not, with ORCS's congestion metrics on static routes (ORCS, Schneider and Hoefler); "
                   "with --out also congestion_runs.csv, congestion_hist.csv (plot --counts) and congestion_links.csv",
    .state_size = sizeof(wp),
    .params = wp_rows,
    .nparams = sizeof wp_rows / sizeof wp_rows[0],
    .params_size = sizeof(wp_params),
    .check = wp_check,
    .resolve = wp_resolve,
    .estimate = wp_estimate,
    .init = wp_init,
    .deliver = wp_deliver,
    .finish = wp_finish,
    .fini = wp_fini,
    .write_files = wp_write_files,
    .pool_reset = wp_pool_reset,
    .pool_save = wp_pool_save,
    .pool_load = wp_pool_load,
    .metrics = wp_metrics_def,
    .nmetrics = WP_NMETRICS,
    .table = wp_table,
    .plot_y = "kernel_time_s",
};
