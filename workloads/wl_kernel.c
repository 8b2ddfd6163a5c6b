/* The kernel workload: Navaridas & Miguel-Alonso's communication
 * micro-kernels (seed 003; specs/kernels-patterns.md §0 and §1) over any
 * fabric.
 *
 * Model. T tasks (workload.tasks, default N; no scheduler node, §9.1), task
 * i on node map(i): identity by default, or a uniformly random injection of
 * the tasks into the nodes (workload.mapping="random", §0; Fisher-Yates on
 * "pattern-mapping", drawn once per run). Every task runs a program of
 * sends, receives and compute phases generated at init (jobs/kernels.c):
 *   one-to-all  (A1) the root sends to r+1, r+2, ... (mod T), tag k;
 *   all-to-one  (A2) every other task, in id order, sends to the root;
 *   all-to-all  (A3) task t sends to t+1, ..., t+T-1 (order="shifted") or
 *                    0..T-1 skipping t ("linear", INRFlow), then receives;
 *   sync-random (A4) M messages of random (src, dst) in waves of W, each
 *                    task's wave w+1 after its own receptions of wave w
 *                    (and a compute phase): point-to-point, not a barrier;
 *   gups        (A4) sync-random with W = M.
 * O2A, A2O and A2A repeat `iterations` times (tag = iteration; SR: tag =
 * wave). The program runs on scheduler/prog_exec.c (§0): sends never block
 * and leave in program order at one instant (the fabric serialises them),
 * a recv matches source and tag (earlier deliveries wait in a table), tasks
 * start at t = 0 in id order.
 *
 * Streams (§7; never the fabric's, so a seed gives the same traffic on
 * every fabric): "kernel-pairs" (SR/GUPS pairs: src then dst, both drawn
 * again while equal), "kernel-sizes" (one size per message in generation
 * order, rounded to the byte), "kernel-compute" (SR: one draw per task per
 * wave), "pattern-mapping" (random mapping).
 *
 * Metrics (§0, A5), one value per run:
 *   kernel_time_s     the last task's completion from t = 0 (the paper's
 *                     "time needed to deliver all the traffic");
 *   kernel_time_lb_s  max over tasks of max(bytes out, bytes in) 8/B + L0,
 *                     L0 = the least zero-load latency of a 0-byte message
 *                     between the nodes of any message of the program (the
 *                     fabric's own zero_load_ps: 2 link + switch on the
 *                     switch and ideal, the fixed latency of a packet on
 *                     SPINet). A bound on fabrics that serialise each
 *                     source and each destination at B (the switch); the
 *                     ideal fabric can beat it (§4 K1);
 *   kernel_slowdown   kernel_time / kernel_time_lb;
 *   kernel_throughput 8 bytes delivered / (T B kernel_time);
 *   waves, wave_time_mean_s (SR/GUPS) the waves and the mean over waves of
 *                     the first hand-over to the last delivery of the wave.
 * Deviations and choices: workload.message-size is shared with
 * uniform-random, so it is required (no 1kB default, §1 table); kernel
 * defaults to all-to-all (the spec gives none) so that a config that names
 * only the type runs the paper's headline case.
 *
 * Exactly once (§7): the executor marks each message by its sequence number
 * and refuses a second delivery, a foreign message or one no recv takes;
 * finish checks that every task finished, no recv is left waiting, every
 * message was sent and delivered once, and the pool is empty.
 * No malloc in event callbacks: programs, tables and the pool are sized at
 * init (the pool grows by chunks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "log.h"
#include "mapping.h"
#include "metrics.h"
#include "network.h"
#include "prog_exec.h"
#include "rng.h"
#include "taskprog.h"
#include "units.h"
#include "workload.h"

#define WK_KIND 0x4b4eu /* net_msg.kind of the kernel workload's messages ("KN") */

/* Mapping choices, shared with the pattern workload: index 0 is "not given"
 * (each workload's own default). */
static const char *const wk_mapping_names[] = {"default", "identity", "random", NULL};
enum { WK_MAP_DEFAULT = 0, WK_MAP_IDENTITY = 1, WK_MAP_RANDOM = 2 };

typedef struct wk_params {
    int kernel;              /* kern_kind */
    uint32_t tasks;          /* T (0: N) */
    dist message_size;       /* bytes */
    uint32_t root;           /* O2A/A2O root task */
    int order;               /* kern_order */
    uint32_t iterations;     /* O2A/A2O/A2A repeats */
    uint64_t total_messages; /* SR/GUPS: M */
    uint64_t wave;           /* SR: W */
    dist compute_time;       /* SR: compute phase per task per wave, s */
    int mapping;             /* WK_MAP_* */
} wk_params;

_Static_assert(sizeof(kern_kind) == sizeof(int) && sizeof(kern_order) == sizeof(int),
               "kernel enums are not int-sized");

#define WK(f) offsetof(wk_params, f)
#define WK_ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_

static const param_row wk_rows[] = {
    {WK_ROW("workload.kernel", "choice", "", "all-to-all",
            "kernel: one-to-all | all-to-one | all-to-all | sync-random | gups"),
     .kind = PARAM_CHOICE, .off = WK(kernel), .choices = kern_names, .example = "all-to-all"},
    {WK_ROW("workload.tasks", "integer", "", "", "kernel, pattern: tasks T (2 .. N; default N)"),
     .kind = PARAM_U32, .off = WK(tasks), .flags = PARAM_UNSET0, .min = 2, .max = TP_TASKS_MAX, .example = "32",
     .note = "a kernel needs a sender and a receiver"},
    {WK_ROW("workload.message-size", "distribution(size)", "B", "",
            "kernel, pattern, uniform-random: bytes of each message (values >= 1)"),
     .kind = PARAM_DIST, .dim = UNIT_SIZE, .off = WK(message_size), .flags = PARAM_MIN1 | PARAM_REQUIRED,
     .example = "1kB", .note = "a message carries at least one byte"},
    {WK_ROW("workload.root", "integer", "", "0", "kernel one-to-all, all-to-one: root task (< T)"),
     .kind = PARAM_U32, .off = WK(root), .min = 0, .max = UINT32_MAX, .example = "0"},
    {WK_ROW("workload.order", "choice", "", "shifted",
            "kernel all-to-all: destination order, shifted (t+1, t+2, ..., the paper) | linear (0..T-1, INRFlow)"),
     .kind = PARAM_CHOICE, .off = WK(order), .choices = kern_order_names, .example = "shifted"},
    {WK_ROW("workload.iterations", "integer", "", "1", "kernel one-to-all, all-to-one, all-to-all: repeats (>= 1)"),
     .kind = PARAM_U32, .off = WK(iterations), .min = 1, .max = UINT32_MAX, .example = "1"},
    {WK_ROW("workload.total-messages", "integer", "", "10000", "kernel sync-random, gups: messages M (>= 1)"),
     .kind = PARAM_U64, .off = WK(total_messages), .min = 1, .max = UINT64_MAX, .example = "10000"},
    {WK_ROW("workload.wave", "integer", "", "100",
            "kernel sync-random: messages per wave W (1 .. total-messages; gups: W = M)"),
     .kind = PARAM_U64, .off = WK(wave), .min = 1, .max = UINT64_MAX, .example = "100"},
    {WK_ROW("workload.compute-time", "distribution(time)", "s", "0s",
            "kernel sync-random: compute phase of every task after each wave (>= 0)"),
     .kind = PARAM_DIST, .dim = UNIT_TIME, .off = WK(compute_time), .flags = PARAM_NONNEG, .example = "1us"},
    {WK_ROW("workload.mapping", "choice", "", "",
            "kernel, pattern: task-to-node mapping, identity | random (default: identity for kernel, random for "
            "pattern)"),
     .kind = PARAM_CHOICE, .off = WK(mapping), .choices = wk_mapping_names, .flags = PARAM_UNSET0,
     .example = "random"},
};

#define WK_METRICS(X)                                                                                        \
    X(kernel_time_s, "kernel/pattern: completion of the last task (foreground), from t = 0")              \
    X(kernel_time_lb_s, "kernel/pattern: injection/consumption bound, max endpoint bytes 8/B + fixed latency") \
    X(kernel_slowdown, "kernel/pattern: kernel_time / kernel_time_lb (>= 1 on the switch)")                \
    X(kernel_throughput, "kernel/pattern: bits delivered / (tasks B kernel_time), a fraction of B")        \
    X(waves, "kernel sync-random/gups: waves")                                                             \
    X(wave_time_mean_s, "kernel sync-random/gups: mean over waves of first hand-over to last delivery")
enum { WK_METRICS(METRIC_ENUM) WK_NMETRICS };
static const metric_def wk_metrics_def[] = {WK_METRICS(METRIC_DEF)};

typedef struct wk {
    const wk_params *p;
    sim *s;
    net *n;
    uint32_t nodes, tasks;
    double bandwidth_bps;
    kern_params kp;
    tp_prog prog;
    uint32_t *map;      /* [tasks] node of each task */
    pexec *x;
    int64_t fixed_ps;   /* L0 of the bound */
    int up;
} wk;

static kern_params wk_kern(const wk_params *p, uint32_t tasks)
{
    kern_params k = {
        .kernel = (kern_kind)p->kernel,
        .tasks = tasks,
        .root = p->root,
        .order = (kern_order)p->order,
        .iterations = p->iterations,
        .total_messages = p->total_messages,
        .wave = p->wave,
    };
    return k;
}

static void wk_check(const net_params *core, const void *params, param_report *rep)
{
    const wk_params *p = params;
    uint32_t T = p->tasks ? p->tasks : core->nodes;
    if (p->tasks && core->nodes >= 2 && p->tasks > core->nodes)
        param_invalid(rep, "workload.tasks", "more tasks than system nodes (%u)", core->nodes);
    int rooted = p->kernel == KERN_ONE_TO_ALL || p->kernel == KERN_ALL_TO_ONE;
    if (rooted && T >= 2 && p->root >= T)
        param_invalid(rep, "workload.root", "root (%u) must be a task, 0..%u", p->root, T - 1);
    if (p->kernel == KERN_SYNC_RANDOM && p->wave > p->total_messages)
        param_invalid(rep, "workload.wave", "wave (%llu) is larger than total-messages (%llu)",
                      (unsigned long long)p->wave, (unsigned long long)p->total_messages);
    if (rep->n || T < 2 || T > TP_TASKS_MAX)
        return;
    kern_params k = wk_kern(p, T);
    char err[256];
    if (kern_check(&k, err, sizeof err) != 0)
        param_invalid(rep, "workload.kernel", "%s", err);
}

/* The run must fit in the clock: every message of the program one after the
 * other at B, plus the compute phases, within WL_HORIZON_S. */
static int wk_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    const wk_params *p = params;
    double B = rc->net->bandwidth_bps;
    if (!(B > 0) || !p->message_size.text)
        return 0; /* the core or the rows refuse it */
    uint32_t T = p->tasks ? p->tasks : rc->nodes;
    kern_params k = wk_kern(p, T);
    double msgs = (double)kern_messages(&k), biggest = dist_practical_max(&p->message_size);
    double span = msgs * 8 * biggest / B;
    if (p->kernel == KERN_SYNC_RANDOM && p->compute_time.text)
        span += (double)kern_waves(&k) * dist_practical_max(&p->compute_time);
    if (span > WL_HORIZON_S)
        return tn_error(err, errlen, "the %s kernel's %.0f messages of up to %g B (and its compute phases) span "
                        "up to %.3g s at B: more than the %g s a run can span", kern_names[p->kernel], msgs,
                        biggest, span, WL_HORIZON_S);
    return 0;
}

/* Messages: the kernel's own count (kern_messages); memory: its program
 * and executor (pexec_mem_bytes; tags: a bucket per iteration or wave) and
 * the task map. */
static void wk_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const wk_params *p = params;
    uint32_t T = p->tasks ? p->tasks : rc->nodes;
    if (T < 2)
        return;
    kern_params k = wk_kern(p, T);
    double msgs = (double)kern_messages(&k);
    double tags = p->kernel == KERN_SYNC_RANDOM || p->kernel == KERN_GUPS ? (double)kern_waves(&k) : p->iterations;
    out->messages = msgs;
    out->mem_bytes = sizeof(wk) + pexec_mem_bytes(msgs, T, tags + 1) + (double)T * sizeof(uint32_t);
}

static int wk_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    wk *w = state;
    const wk_params *p = env->params;
    memset(w, 0, sizeof *w);
    if (!env->sim || !env->net)
        return tn_error(err, errlen, "kernel: needs an engine and a network");
    uint32_t T = p->tasks ? p->tasks : env->nodes;
    if (T > env->nodes)
        return tn_error(err, errlen, "kernel: %u tasks on %u nodes", T, env->nodes);
    if (!(env->bandwidth_bps > 0))
        return tn_error(err, errlen, "kernel: bandwidth must be positive");
    w->kp = wk_kern(p, T);
    gsl_rng *pairs = rng_stream_new(env->seed, env->replica, "kernel-pairs");
    gsl_rng *sizes = rng_stream_new(env->seed, env->replica, "kernel-sizes");
    gsl_rng *comp = rng_stream_new(env->seed, env->replica, "kernel-compute");
    int rc = kern_build(&w->kp, &p->message_size, sizes, p->compute_time.text ? &p->compute_time : NULL, comp,
                        pairs, &w->prog, err, errlen);
    gsl_rng_free(pairs);
    gsl_rng_free(sizes);
    gsl_rng_free(comp);
    if (rc != 0)
        return -1;
    w->map = tn_xmalloc((size_t)T * sizeof *w->map);
    if (p->mapping == WK_MAP_RANDOM) {
        gsl_rng *mr = rng_stream_new(env->seed, env->replica, "pattern-mapping");
        map_random(w->map, T, env->nodes, mr, NULL);
        gsl_rng_free(mr);
    } else {
        map_identity(w->map, T);
    }
    w->x = pexec_create(&w->prog, w->map, env->nodes, WK_KIND, err, errlen);
    if (!w->x) {
        tp_prog_free(&w->prog);
        free(w->map);
        return -1;
    }
    w->p = p;
    w->s = env->sim;
    w->n = env->net;
    w->nodes = env->nodes;
    w->tasks = T;
    w->bandwidth_bps = env->bandwidth_bps;
    w->fixed_ps = pexec_fixed_ps(w->x, env->net);
    w->up = 1;
    pexec_set_trace(w->x, env->trace);
    pexec_start(w->x, env->sim, env->net);
    return 0;
}

static void wk_deliver(void *state, net_msg *m) { pexec_deliver(((wk *)state)->x, m); }

static int wk_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    (void)v;
    wk *w = state;
    if (pexec_finish(w->x, err, errlen) != 0)
        return -1;
    pexec_counts c;
    pexec_get_counts(w->x, &c);
    int64_t done = pexec_group_done_ps(w->x, 0);
    int64_t lb = tp_lower_bound_ps(&w->prog, 0, w->bandwidth_bps, w->fixed_ps);
    double t_s = units_ps_to_s(done);
    m[M_kernel_time_s] = t_s;
    m[M_kernel_time_lb_s] = units_ps_to_s(lb);
    m[M_kernel_slowdown] = lb > 0 ? (double)done / (double)lb : NAN;
    m[M_kernel_throughput] =
        done > 0 ? 8.0 * (double)c.bytes_delivered / ((double)w->tasks * w->bandwidth_bps * t_s) : NAN;
    if (w->kp.kernel == KERN_SYNC_RANDOM || w->kp.kernel == KERN_GUPS) {
        pexec_spans sp;
        pexec_tag_spans(w->x, 0, &sp);
        m[M_waves] = (double)kern_waves(&w->kp);
        m[M_wave_time_mean_s] = units_ps_to_s((int64_t)llround(sp.mean_ps));
    }
    span->first_ps = 0;
    span->last_ps = done;
    return 0;
}

static void wk_fini(void *state)
{
    wk *w = state;
    if (!w->up)
        return;
    pexec_destroy(w->x);
    tp_prog_free(&w->prog);
    free(w->map);
    w->up = 0;
}

static const wl_column wk_table[] = {
    {"kernel_time_s", "time_s"},
    {"kernel_slowdown", "slowdown"},
    {"kernel_throughput", "throughput"},
    {"wave_time_mean_s", "wave_s"},
    {NULL, NULL},
};

const wl_ops wl_kernel_ops = {
    .name = "kernel",
    .description = "Navaridas communication micro-kernels: one-to-all, all-to-one, all-to-all, synchronised "
                   "random waves, GUPS, as task programs with point-to-point causality (Navaridas and Miguel-Alonso 2009)",
    .state_size = sizeof(wk),
    .params = wk_rows,
    .nparams = sizeof wk_rows / sizeof wk_rows[0],
    .params_size = sizeof(wk_params),
    .check = wk_check,
    .resolve = wk_resolve,
    .estimate = wk_estimate,
    .init = wk_init,
    .deliver = wk_deliver,
    .finish = wk_finish,
    .fini = wk_fini,
    .metrics = wk_metrics_def,
    .nmetrics = WK_NMETRICS,
    .table = wk_table,
    .plot_y = "kernel_time_s",
};
