/* The uniform-random workload (workloads/wl_uniform_random.c): every node
 * sends Poisson traffic of offered load rho to uniformly random other nodes.
 *
 * Common numbers: B = 10 Gb/s, link = 20 ns, switch = 200 ns, constant
 * messages of 1000 B unless a test says otherwise.
 *   ser(1000 B) = 8000 bit / 10e9 b/s = 800 ns = 800 000 ps (exact: integer rate)
 *   zero-load latency, star (MODEL.md 6) = ser + 2 link + switch
 *                                        = 800 + 40 + 200 ns = 1040 ns
 *   rate per node lambda = rho B / (8 E[size]) = rho * 1e10 / 8000 /s
 *                        = rho * 1.25e6 /s  (rho = 0.5: 625 000 /s, one per 1.6 us)
 *
 * Two ways in: run_one (app/run/run.h) for the metrics of a whole run, and the
 * shared run harness (tests/harness.h) with every delivery passing through
 * the test first (per-message and per-pair counts, the latency of every
 * message). The workload's parameters are private to it: they are set by
 * path, through its rows ("workload.offered-load=0.5"). */
#include <check.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "harness.h"
#include "metrics.h"
#include "network.h"
#include "params.h"
#include "run.h"
#include "sim.h"
#include "workload.h"

#define LINK_PS TH_LINK_PS /* 20 ns */
#define SW_PS TH_SW_PS     /* 200 ns */
#define SIZE 1000.0
#define SER_PS 800000               /* 1000 B at 10 Gb/s */
#define L0_PS (SER_PS + 2 * LINK_PS + SW_PS) /* 1 040 000 ps */

/* ---- run_one: a configuration built in code ---- */

static void cset(cfg *c, const char *path, const char *value)
{
    char err[512];
    ck_assert_msg(cfg_set(c, path, value, err, sizeof err) == 0, "%s=%s: %s", path, value, err);
}

/* A uniform-random configuration: N nodes on `fabric` at B = 10 Gb/s with the
 * default latencies (link 20 ns, switch 200 ns; SPINet: 4 m, 1 ns, 1 kB
 * packets, fast NACK), constant 1000 B messages, `messages` per node or
 * generation for `duration_ps`. c must own nothing (cfg_free it after). */
static void ur_cfg(cfg *c, const char *fabric, uint32_t nodes, double load, uint64_t messages,
                   int64_t duration_ps, uint64_t seed)
{
    char buf[64];
    cfg_defaults(c);
    snprintf(buf, sizeof buf, "%u", nodes);
    cset(c, "system.nodes", buf);
    cset(c, "network.type", fabric);
    cset(c, "network.bandwidth", "10Gb/s");
    cset(c, "workload.type", "uniform-random");
    cset(c, "workload.message-size", "1000B");
    snprintf(buf, sizeof buf, "%.17g", load);
    cset(c, "workload.offered-load", buf);
    if (messages > 0) {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)messages);
        cset(c, "workload.messages", buf);
    }
    if (duration_ps > 0) {
        snprintf(buf, sizeof buf, "%lldps", (long long)duration_ps);
        cset(c, "workload.duration", buf);
    }
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
    cset(c, "run.seed", buf);
}

/* The metrics of one run (replica 0), in the layout of its configuration. */
typedef struct ur_result {
    run_layout l;
    double *m; /* [l.n] */
} ur_result;

static void ur_run(cfg *c, ur_result *r)
{
    char err[512];
    ck_assert_msg(run_resolve(c, NULL, NULL, err, sizeof err) == 0, "resolve: %s", err);
    run_layout_init(&r->l, c);
    r->m = calloc(r->l.n ? r->l.n : 1, sizeof *r->m);
    ck_assert_ptr_nonnull(r->m);
    int rc = run_one(c, &r->l, 0, NULL, r->m, NULL, err, sizeof err);
    ck_assert_msg(rc == 0, "run_one: %s", err);
}

static void ur_result_free(ur_result *r)
{
    free(r->m);
    run_layout_free(&r->l);
}

/* A metric of the run by name (the test fails if the layout lacks it). */
static double R(const ur_result *r, const char *name)
{
    long k = run_layout_find(&r->l, name);
    ck_assert_msg(k >= 0, "no metric %s in the run's layout", name);
    return r->m[k];
}

/* ---- the shared run harness, with every delivery seen by the test ---- */

typedef struct harness {
    th_run r;            /* fabric + uniform-random (r.ws: the workload's state) */
    uint32_t nodes;
    uint64_t cap;        /* room in seen[] (message ids) */
    uint32_t *seen;      /* [cap] deliveries per message id */
    uint64_t *pair;      /* [N*N] deliveries src -> dst */
    uint64_t self;       /* deliveries with src == dst */
    int64_t lat_min_ps, lat_max_ps;
    /* per message id: source, size, hand-over and delivery times */
    uint32_t *src, *dst;
    uint64_t *size;
    int64_t *t_sub_ps, *t_dlv_ps;
    uint64_t stop_after; /* > 0: sim_stop after this many deliveries */
    uint64_t ndlv;       /* deliveries seen */
    int dup_first;       /* 1: hand the first delivery to the workload twice */
    double core[METRIC_CORE_COUNT]; /* the core's metrics (net_metrics) after h_run */
    double *own;         /* the fabric's own metrics after h_run */
} harness;

static void h_deliver(void *owner, net_msg *m)
{
    harness *h = owner;
    sim *s = h->r.s;
    ck_assert_uint_lt(m->id, h->cap);
    h->seen[m->id]++;
    h->src[m->id] = m->src;
    h->dst[m->id] = m->dst;
    h->size[m->id] = m->size_bytes;
    h->t_sub_ps[m->id] = m->t_submit_ps;
    h->t_dlv_ps[m->id] = sim_now(s);
    ck_assert_uint_lt(m->src, h->nodes);
    ck_assert_uint_lt(m->dst, h->nodes);
    if (m->src == m->dst)
        h->self++;
    h->pair[(size_t)m->src * h->nodes + m->dst]++;
    ck_assert_uint_eq(m->cls, NET_DATA);
    ck_assert_uint_eq(m->prio, NET_PRIO_LOW);
    int64_t lat = sim_now(s) - m->t_submit_ps;
    if (lat < h->lat_min_ps)
        h->lat_min_ps = lat;
    if (lat > h->lat_max_ps)
        h->lat_max_ps = lat;
    h->r.w->deliver(h->r.ws, m); /* the workload releases m */
    if (h->dup_first && h->ndlv == 0)
        h->r.w->deliver(h->r.ws, m); /* a faulty fabric: the same message again */
    if (++h->ndlv == h->stop_after)
        sim_stop(s);
}

/* Fabric (core np, its own settings `sets`) and uniform-random with params
 * p (taken over), resolved and initialised; returns th_run_open's status
 * (h->r.err says why). h_close it either way. */
static int h_open(harness *h, const char *fabric, const net_params *np, const char *const *sets, void *p,
                  uint64_t seed, uint64_t cap)
{
    memset(h, 0, sizeof *h);
    h->nodes = np->nodes;
    h->cap = cap;
    h->seen = calloc(cap, sizeof *h->seen);
    h->pair = calloc((size_t)np->nodes * np->nodes, sizeof *h->pair);
    h->src = calloc(cap, sizeof *h->src);
    h->dst = calloc(cap, sizeof *h->dst);
    h->size = calloc(cap, sizeof *h->size);
    h->t_sub_ps = calloc(cap, sizeof *h->t_sub_ps);
    h->t_dlv_ps = calloc(cap, sizeof *h->t_dlv_ps);
    h->lat_min_ps = INT64_MAX;
    h->lat_max_ps = INT64_MIN;
    ck_assert(h->seen && h->pair && h->src && h->dst && h->size && h->t_sub_ps && h->t_dlv_ps);
    int rc = th_run_open(&h->r, fabric, np, sets, "uniform-random", p, seed, 0);
    /* nothing is delivered before the run: every delivery through the test */
    if (h->r.n) {
        h->r.n->deliver = h_deliver;
        h->r.n->owner = h;
    }
    return rc;
}

/* Run until until_ps and finish; returns finish's status. The core's and
 * the fabric's metrics are measured either way. */
static int h_run(harness *h, int64_t until_ps)
{
    sim_run(h->r.s, until_ps);
    int rc = th_run_finish(&h->r);
    free(h->own);
    h->own = calloc(h->r.n->ops->nmetrics + 1, sizeof *h->own);
    net_metrics(h->r.n, h->core, h->own);
    return rc;
}

static void h_close(harness *h)
{
    th_run_close(&h->r); /* fini only if init succeeded; frees the params */
    free(h->seen);
    free(h->pair);
    free(h->src);
    free(h->dst);
    free(h->size);
    free(h->t_sub_ps);
    free(h->t_dlv_ps);
    free(h->own);
}

/* A workload metric by name (NAN if it has none of that name). */
#define MET(h, name) th_metric(&(h).r, name)

/* A metric of the fabric by name (the test fails if it has none). */
static double fab_metric(const harness *h, const char *name)
{
    const net_ops *ops = h->r.n->ops;
    for (size_t i = 0; i < ops->nmetrics; i++)
        if (strcmp(ops->metrics[i].name, name) == 0)
            return h->own[i];
    ck_abort_msg("fabric %s has no metric %s", ops->name, name);
    return NAN;
}

static net_params star(uint32_t nodes) { return th_star(nodes, B10); }

/* uniform-random's params through its rows: constant messages of
 * size_bytes, offered load, and messages per node or a duration (0: not
 * given). */
static void *wl_uniform(double size_bytes, double load, uint64_t messages, int64_t duration_ps)
{
    const wl_ops *w = th_wl_ops("uniform-random");
    void *p = th_wl_params(w, NULL);
    char buf[96];
    snprintf(buf, sizeof buf, "workload.message-size=%.17gB", size_bytes);
    th_set(w->params, w->nparams, p, buf);
    snprintf(buf, sizeof buf, "workload.offered-load=%.17g", load);
    th_set(w->params, w->nparams, p, buf);
    if (messages > 0) {
        snprintf(buf, sizeof buf, "workload.messages=%llu", (unsigned long long)messages);
        th_set(w->params, w->nparams, p, buf);
    }
    if (duration_ps > 0) {
        snprintf(buf, sizeof buf, "workload.duration=%lldps", (long long)duration_ps);
        th_set(w->params, w->nparams, p, buf);
    }
    return p;
}

#define ASSERT_REL(actual, expected, tol)                                                      \
    ck_assert_msg(fabs((actual) - (expected)) <= (tol) * fabs(expected),                        \
                  "%s = %.17g, expected %.17g (relative tolerance %g)", #actual, (double)(actual), \
                  (double)(expected), (double)(tol))

/* ---- 1. ideal fabric: exactly once, bytes, the exact latency ---- */

/* N = 8, 200 messages of 1000 B per node: 1600 messages, 1.6 MB, each
 * delivered once (seen[id] == 1 for ids 0..1599, the fabric numbers them in
 * hand-over order). The ideal fabric has no contention, so every latency is
 * ser + 2 link + switch = 1040 ns at any load: min = max = mean = p50. */
START_TEST(test_ideal_exact)
{
    static const double loads[] = {0.05, 0.5, 0.95};
    for (size_t k = 0; k < sizeof loads / sizeof loads[0]; k++) {
        net_params np = star(8);
        void *p = wl_uniform(SIZE, loads[k], 200, 0);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 11, 1600) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        for (uint64_t i = 0; i < 1600; i++)
            ck_assert_msg(h.seen[i] == 1, "message %llu delivered %u times",
                          (unsigned long long)i, h.seen[i]);
        ck_assert_uint_eq(h.self, 0);
        ck_assert_double_eq(h.core[M_messages_sent], 1600);
        ck_assert_double_eq(h.core[M_messages_delivered], 1600);
        ck_assert_double_eq(h.core[M_bytes_delivered], 1600 * SIZE);
        ck_assert_double_eq(MET(h, "offered_load"), loads[k]);
        ck_assert_int_eq(h.lat_min_ps, L0_PS);
        ck_assert_int_eq(h.lat_max_ps, L0_PS);
        ASSERT_REL(h.core[M_msg_latency_mean_s], 1040e-9, 1e-12);
        ASSERT_REL(h.core[M_msg_latency_p50_s], 1040e-9, 1e-12);
        ASSERT_REL(h.core[M_msg_latency_max_s], 1040e-9, 1e-12);
        ASSERT_REL(h.core[M_msg_latency_data_mean_s], 1040e-9, 1e-12);
        /* no control message at all: the control-class latency is not
         * measured, NAN (it was 0 when "not applicable" was written 0) */
        ck_assert(isnan(h.core[M_msg_latency_control_mean_s]));
        ck_assert_int_eq(sim_pending(h.r.s), 0);
        h_close(&h);
    }
}
END_TEST

/* ---- 2. the throughput window, recomputed from every delivery ---- */

/* throughput = 8 * (bytes delivered at t <= T_end) / (N B T_end), with
 * T_end = duration, or (messages mode) the instant the first node generated
 * its last message = min over nodes of (max hand-over time of its messages).
 * The harness sees every message's hand-over and delivery, so it recomputes
 * both the window and the sum independently of the workload's bookkeeping.
 * span = last delivery - first hand-over. */
static void check_window(harness *h, uint64_t total, int64_t t_end_ps)
{
    double bytes = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint64_t i = 0; i < total; i++) {
        if (h->t_dlv_ps[i] <= t_end_ps)
            bytes += (double)h->size[i];
        if (h->t_sub_ps[i] < first)
            first = h->t_sub_ps[i];
        if (h->t_dlv_ps[i] > last)
            last = h->t_dlv_ps[i];
    }
    double expect = 8.0 * bytes / ((double)h->nodes * B10 * (double)t_end_ps * 1e-12);
    ASSERT_REL(MET(*h, "throughput"), expect, 1e-12);
    ASSERT_REL(h->r.span_s, (double)(last - first) * 1e-12, 1e-12);
}

START_TEST(test_window_exact)
{
    /* messages mode: N = 8, 300 messages per node at rho = 0.5 */
    {
        net_params np = star(8);
        void *p = wl_uniform(SIZE, 0.5, 300, 0);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 5, 2400) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        int64_t t_end = INT64_MAX;
        for (uint32_t k = 0; k < 8; k++) {
            int64_t last_gen = INT64_MIN;
            for (uint64_t i = 0; i < 2400; i++)
                if (h.src[i] == k && h.t_sub_ps[i] > last_gen)
                    last_gen = h.t_sub_ps[i];
            if (last_gen < t_end)
                t_end = last_gen;
        }
        check_window(&h, 2400, t_end);
        /* at rho = 0.5 the window holds ~0.5 of N B T_end; loosely: */
        ck_assert(MET(h, "throughput") > 0.4 && MET(h, "throughput") < 0.6);
        h_close(&h);
    }
    /* duration mode: D = 200 us, lambda = 625 000 /s: 125 per node expected */
    {
        const int64_t D = 200000000;
        net_params np = star(8);
        void *p = wl_uniform(SIZE, 0.5, 0, D);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 5, 4000) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        uint64_t total = (uint64_t)h.core[M_messages_sent];
        ck_assert_uint_gt(total, 0);
        for (uint64_t i = 0; i < total; i++) {
            ck_assert_uint_eq(h.seen[i], 1);
            ck_assert_int_lt(h.t_sub_ps[i], D); /* generation is [0, D) */
        }
        check_window(&h, total, D);
        h_close(&h);
    }
}
END_TEST

/* ---- 3. electrical switch, low load: the zero-load latency ---- */

/* N = 16, rho = 0.05, 2000 messages per node (32 000). Zero load
 * (MODEL.md 6): L0 = ser + 2 link + switch = 1040 ns, and no message is
 * faster. A message waits only if its source is busy (probability rho = 0.05:
 * the source FIFO is an M/D/1 queue, Poisson arrivals, service S = 800 ns) or
 * its output port is (about rho again), so more than half the messages wait
 * nowhere and the median is exactly L0.
 * Mean: the source queue's M/D/1 mean wait is W = rho S / (2 (1 - rho))
 * = 0.05 * 800 / 1.9 = 21.05 ns, exactly; the port adds a wait between 0 and
 * about W (its arrivals, 15 thinned source outputs spaced >= S apart, are
 * smoother than Poisson, and the M/D/1 value is the Poisson case). So
 * L0 + W <= mean <= L0 + 2W = 1082.1 ns, each side widened by 3 ns for the
 * sampling error (the wait's standard deviation is ~130 ns over 32 000
 * messages: 0.7 ns on the mean). Measured: 1080.9 ns (the port adds 19.8 ns).
 * messages_sent is exactly N * messages. */
START_TEST(test_switch_low_load)
{
    cfg c;
    ur_cfg(&c, "electrical-switch", 16, 0.05, 2000, 0, 1);
    ur_result r;
    ur_run(&c, &r);
    const double L0 = 1040e-9, W = 0.05 * 800e-9 / (2 * 0.95);
    ck_assert_double_eq(R(&r, "messages_sent"), 32000);
    ck_assert_double_eq(R(&r, "messages_delivered"), 32000);
    ck_assert_double_eq(R(&r, "bytes_delivered"), 32000 * SIZE);
    ASSERT_REL(R(&r, "msg_latency_p50_s"), L0, 1e-12);
    ck_assert_msg(R(&r, "msg_latency_mean_s") >= L0 + W - 3e-9 &&
                      R(&r, "msg_latency_mean_s") <= L0 + 2 * W + 3e-9,
                  "mean latency %.6g ns outside [%.6g, %.6g] ns", R(&r, "msg_latency_mean_s") * 1e9,
                  (L0 + W - 3e-9) * 1e9, (L0 + 2 * W + 3e-9) * 1e9);
    ck_assert_double_eq(R(&r, "offered_load"), 0.05);
    /* the window holds ~1900 messages per node (the first node to finish is
     * ~1.8 sigma early): throughput 0.05 within a few percent */
    ASSERT_REL(R(&r, "throughput"), 0.05, 0.05);
    /* no job: jobs_completed does not apply to uniform-random. It was 0;
     * now the run's layout has no such column (or, in a sweep that also
     * runs task-tree, the cell is NAN) */
    long jobs = run_layout_find(&r.l, "jobs_completed");
    ck_assert(jobs < 0 || isnan(r.m[jobs]));
    ur_result_free(&r);
    cfg_free(&c);
}
END_TEST

/* ---- 4. electrical switch, rho = 0.5: throughput and the Poisson count ---- */

/* N = 16, D = 2 ms, lambda = 625 000 /s per node. The count of generated
 * messages is Poisson with mean N lambda D = 16 * 625 000 * 0.002 = 20 000
 * (sd 141): within 4 sd = 566.
 * throughput = 8000 (X - F) / (N B D), N B D = 16 * 1e10 * 0.002 = 3.2e8 bit,
 * X the count, F the messages in flight at D. E = 8000 * 20 000 / 3.2e8 = 0.5;
 * the Poisson sd of 8000 X / 3.2e8 is 8000 * 141 / 3.2e8 = 0.0035, so the
 * tolerance 0.015 is 4.2 sd. F is about N lambda * mean latency = 1e7/s *
 * ~2 us = 20 messages = 0.0005 of throughput: the generated load
 * 8000 X / 3.2e8 exceeds the throughput by 0 to 0.0025 (F <= 100). */
START_TEST(test_switch_half_load)
{
    cfg c;
    ur_cfg(&c, "electrical-switch", 16, 0.5, 0, 2000000000, 1);
    ur_result r;
    ur_run(&c, &r);
    double X = R(&r, "messages_sent");
    ck_assert_msg(fabs(X - 20000) <= 4 * sqrt(20000), "%g messages, expected 20000 +- 566", X);
    ck_assert_double_eq(R(&r, "messages_delivered"), X);
    ck_assert_double_eq(R(&r, "bytes_delivered"), X * SIZE);
    ck_assert_msg(fabs(R(&r, "throughput") - 0.5) <= 0.015, "throughput %g", R(&r, "throughput"));
    double gen = 8000 * X / 3.2e8;
    ck_assert_msg(gen - R(&r, "throughput") >= 0 && gen - R(&r, "throughput") <= 0.0025,
                  "generated %g, accepted %g", gen, R(&r, "throughput"));
    /* every latency is at least L0 */
    ck_assert(R(&r, "msg_latency_p50_s") >= 1040e-9 * (1 - 1e-12));
    ur_result_free(&r);
    cfg_free(&c);
}
END_TEST

/* ---- 5. destinations: never the source, uniform over the others ---- */

/* N = 8, 4000 messages per node on the ideal fabric: each of the 7 other
 * nodes expects 4000/7 = 571.4 messages from a source (binomial, sd
 * sqrt(4000 * 1/7 * 6/7) = 22.1). Pearson's chi-square over the 8 rows has
 * 8 * 6 = 48 degrees of freedom; it must stay below the 1e-6 upper
 * quantile (a fixed seed: the test is deterministic, the bound says the
 * draw is not suspicious). Every cell within 6 sd (133) as well. */
START_TEST(test_destinations)
{
    const uint32_t N = 8;
    const uint64_t M = 4000;
    net_params np = star(N);
    void *p = wl_uniform(100, 0.5, M, 0);
    harness h;
    ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 3, N * M) == 0, "init: %s", h.r.err);
    ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
    ck_assert_uint_eq(h.self, 0);
    double e = (double)M / (N - 1), chi2 = 0;
    for (uint32_t i = 0; i < N; i++) {
        ck_assert_uint_eq(h.pair[i * N + i], 0);
        uint64_t row = 0;
        for (uint32_t j = 0; j < N; j++) {
            row += h.pair[i * N + j];
            if (j == i)
                continue;
            double d = (double)h.pair[i * N + j] - e;
            chi2 += d * d / e;
            ck_assert_msg(fabs(d) <= 6 * sqrt(M * (1.0 / 7) * (6.0 / 7)),
                          "%u -> %u: %llu messages", i, j, (unsigned long long)h.pair[i * N + j]);
        }
        ck_assert_uint_eq(row, M);
    }
    double bound = gsl_cdf_chisq_Qinv(1e-6, 48);
    ck_assert_msg(chi2 < bound, "chi2 = %g >= %g", chi2, bound);
    h_close(&h);
}
END_TEST

/* ---- 6. the Poisson rate, with a non-constant size ---- */

/* Sizes uniform(200 B, 1800 B): mean 1000 B, so lambda is the same 625 000 /s
 * at rho = 0.5 (the rate uses the mean size). Duration mode, N = 16, D = 2 ms:
 * X ~ Poisson(20 000), within 4 sd = 566; per node Poisson(1250), within
 * 5 sd = 177. Mean size over X: sd 1600/sqrt(12) = 461.9 B per message,
 * 3.3 B on the mean of 20 000: within 15 B of 1000 B.
 * Messages mode, N = 8, 2000 per node: a node's last message comes at the
 * sum of 2000 exponential gaps, Gamma(2000, 1/lambda), mean 2000 / 625 000 =
 * 3.2 ms; the mean over 8 nodes has sd sqrt(2000) / lambda / sqrt(8) =
 * 25.3 us: within 4 sd = 101 us. */
START_TEST(test_rate)
{
    {
        net_params np = star(16);
        void *p = wl_uniform(SIZE, 0.5, 0, 2000000000);
        const wl_ops *w = th_wl_ops("uniform-random");
        th_set(w->params, w->nparams, p, "workload.message-size=uniform(200B,1800B)");
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 9, 40000) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        double X = h.core[M_messages_sent];
        ck_assert_msg(fabs(X - 20000) <= 4 * sqrt(20000), "%g messages", X);
        uint64_t per[16] = {0};
        for (uint64_t i = 0; i < (uint64_t)X; i++)
            per[h.src[i]]++;
        for (int k = 0; k < 16; k++)
            ck_assert_msg(fabs((double)per[k] - 1250) <= 5 * sqrt(1250), "node %d: %llu", k,
                          (unsigned long long)per[k]);
        double mean_size = h.core[M_bytes_delivered] / X;
        ck_assert_msg(fabs(mean_size - 1000) <= 15, "mean size %g B", mean_size);
        h_close(&h);
    }
    {
        net_params np = star(8);
        void *p = wl_uniform(SIZE, 0.5, 2000, 0);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 9, 16000) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        double sum = 0;
        for (uint32_t k = 0; k < 8; k++) {
            int64_t last = 0;
            for (uint64_t i = 0; i < 16000; i++)
                if (h.src[i] == k && h.t_sub_ps[i] > last)
                    last = h.t_sub_ps[i];
            sum += (double)last * 1e-12;
        }
        ck_assert_msg(fabs(sum / 8 - 3.2e-3) <= 4 * sqrt(2000) / 625000 / sqrt(8),
                      "mean last generation %g s", sum / 8);
        h_close(&h);
    }
}
END_TEST

/* ---- 7. seeds: reproducible, and common to every fabric ---- */

/* The same seed gives identical metrics (all but wall time); another seed,
 * other traffic (a different count in duration mode, other latencies). */
START_TEST(test_seeds)
{
    ur_result r1, r2, r3;
    cfg c;
    ur_cfg(&c, "electrical-switch", 8, 0.3, 0, 500000000, 42);
    ur_run(&c, &r1);
    ur_run(&c, &r2);
    cset(&c, "run.seed", "43");
    ur_run(&c, &r3);
    ck_assert_uint_eq(r1.l.n, r2.l.n);
    /* equal, or both not measured (NAN: a metric that does not apply) */
    for (size_t i = 0; i < r1.l.n; i++)
        if (metric_is_deterministic(r1.l.col[i].name))
            ck_assert_msg(r1.m[i] == r2.m[i] || (isnan(r1.m[i]) && isnan(r2.m[i])), "%s: %.17g then %.17g",
                          r1.l.col[i].name, r1.m[i], r2.m[i]);
    ck_assert(R(&r1, "messages_sent") > 0);
    ck_assert(R(&r1, "messages_sent") != R(&r3, "messages_sent"));
    ck_assert(R(&r1, "msg_latency_mean_s") != R(&r3, "msg_latency_mean_s"));
    ck_assert(R(&r1, "throughput") != R(&r3, "throughput"));
    ur_result_free(&r1);
    ur_result_free(&r2);
    ur_result_free(&r3);
    cfg_free(&c);
}
END_TEST

/* SPINet's own settings: no extra stage, 1 ns switching and reaction,
 * 4 m of fibre (20 ns), 1 kB packets (8000 bits), fast NACK. */
static const char *const spinet_sets[] = {
    "network.extra-stages=0",     "network.switching-time=1ns", "network.reaction-time=1ns",
    "network.link-length=4m",     "network.packet-size=1000B",  "network.protocol=fast-nack",
    "network.slot=100ns",         NULL,
};

/* Order-independent fingerprint of the traffic offered: every message's
 * hand-over number, source, destination, size and hand-over time. */
static uint64_t traffic_print(const harness *h, uint64_t total)
{
    uint64_t f = 0;
    for (uint64_t i = 0; i < total; i++) {
        uint64_t x = i * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)h->src[i] << 48) ^
                     ((uint64_t)h->dst[i] << 32) ^ (h->size[i] << 8) ^ (uint64_t)h->t_sub_ps[i];
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 29;
        f += x;
    }
    return f;
}

/* Same seed on the ideal fabric, the switch and SPINet (N = 16, rho = 0.5,
 * 100 us): the same messages, at the same times, to the same nodes. */
START_TEST(test_common_traffic)
{
    static const char *const fabrics[] = {"ideal", "electrical-switch", "spinet"};
    uint64_t print[3], count[3];
    for (int k = 0; k < 3; k++) {
        net_params np = star(16);
        void *p = wl_uniform(SIZE, 0.5, 0, 100000000);
        harness h;
        ck_assert_msg(h_open(&h, fabrics[k], &np, k == 2 ? spinet_sets : NULL, p, 77, 4000) == 0, "init: %s",
                      h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "%s: finish: %s", fabrics[k], h.r.err);
        count[k] = (uint64_t)h.core[M_messages_sent];
        print[k] = traffic_print(&h, count[k]);
        h_close(&h);
    }
    ck_assert_uint_gt(count[0], 0);
    for (int k = 1; k < 3; k++) {
        ck_assert_uint_eq(count[k], count[0]);
        ck_assert_uint_eq(print[k], print[0]);
    }
}
END_TEST

/* ---- 8. SPINet, N = 16 ---- */

/* Zero load (MODEL.md 7, networks/net_spinet.c): a 1000 B message is one
 * packet of 8000 bits (packet size 1 kB); S = log2 16 = 4 stages; t_link =
 * 4 m * 5 ns/m = 20 ns; header at the destination after F = 2 t_link + S t_sw
 * = 40 + 4 = 44 ns, last bit P = 8000 / 10e9 = 800 ns later: 844 ns. No
 * message is faster, and among thousands at rho = 0.3 some meet no one.
 * At rho = 0.3 and 0.7 every message is delivered exactly once, bytes are
 * conserved, and contention does drop packets (retransmitted). */
START_TEST(test_spinet)
{
    static const double loads[] = {0.3, 0.7};
    for (int k = 0; k < 2; k++) {
        net_params np = star(16);
        void *p = wl_uniform(SIZE, loads[k], 200, 0);
        harness h;
        ck_assert_msg(h_open(&h, "spinet", &np, spinet_sets, p, 21, 3200) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        for (uint64_t i = 0; i < 3200; i++)
            ck_assert_msg(h.seen[i] == 1, "message %llu delivered %u times",
                          (unsigned long long)i, h.seen[i]);
        ck_assert_uint_eq(h.self, 0);
        ck_assert_double_eq(h.core[M_messages_sent], 3200);
        ck_assert_double_eq(h.core[M_messages_delivered], 3200);
        ck_assert_double_eq(h.core[M_bytes_delivered], 3200 * SIZE);
        ck_assert_int_eq(h.lat_min_ps, 844000);
        ck_assert_msg(fab_metric(&h, "packets_dropped") > 0, "rho %g: no drop", loads[k]);
        ck_assert_int_eq(sim_pending(h.r.s), 0);
        h_close(&h);
    }
    /* and through run_one with the configuration defaults (4 m, 1 ns, 1 kB) */
    cfg c;
    ur_cfg(&c, "spinet", 16, 0.5, 300, 0, 8);
    ur_result r;
    ur_run(&c, &r);
    ck_assert_double_eq(R(&r, "messages_sent"), 4800);
    ck_assert_double_eq(R(&r, "messages_delivered"), 4800);
    ck_assert_double_eq(R(&r, "bytes_delivered"), 4800 * SIZE);
    ck_assert(R(&r, "msg_latency_p50_s") >= 844e-9 * (1 - 1e-12));
    ur_result_free(&r);
    cfg_free(&c);
}
END_TEST

/* ---- 9. bad parameters ---- */

/* Store a value into the workload's params without its row's parse (which
 * refuses it): what init must still refuse on its own. */
static void store_raw(const wl_ops *w, void *p, const char *path, param_value v)
{
    for (size_t i = 0; i < w->nparams; i++)
        if (strcmp(w->params[i].path, path) == 0) {
            param_store(p, &w->params[i], &v);
            return;
        }
    ck_abort_msg("no parameter %s", path);
}

/* The rows refuse text as the configuration would give it. */
static void assert_row_refuses(const wl_ops *w, const char *assign)
{
    const char *eq = strchr(assign, '=');
    size_t plen = (size_t)(eq - assign);
    for (size_t i = 0; i < w->nparams; i++)
        if (strlen(w->params[i].path) == plen && strncmp(w->params[i].path, assign, plen) == 0) {
            param_value v;
            char err[256];
            ck_assert_msg(param_parse(&w->params[i], eq + 1, ".", &v, err, sizeof err) == -1,
                          "%s is accepted", assign);
            return;
        }
    ck_abort_msg("no parameter %.*s", (int)plen, assign);
}

/* Each is reported by the set-up (the workload's resolve or init), never
 * aborted on, and nothing is scheduled. A negative duration and a load of 0
 * or below no longer get past the rows (asserted); stored behind their
 * backs, the workload still refuses them. */
/* The estimate counts the messages that queue at their sources once the
 * load passes the fabric's saturation throughput u (wl_resolve's
 * fabric_bound), not B: N = 100, 10 messages of 1 kB per node at half of B,
 * 1000 in all. With u = 1 (or unknown) none queue: 4N = 400 alive; with
 * u = 0.25 the overload is x = 2 and 1000 (1 - 1/2) = 500 more are alive
 * at the end of generation, which drains in x = 2 times as long. */
START_TEST(test_estimate_bound)
{
    const wl_ops *w = th_wl_ops("uniform-random");
    void *p = wl_uniform(1000, 0.5, 10, 0);
    net_params core = star(100);
    wl_estimate e1 = {0}, e0 = {0}, eq = {0};
    wl_resolve rc = {.nodes = 100, .net = &core, .seed = 1, .fabric_bound = 1};
    w->estimate(p, &rc, &e1);
    rc.fabric_bound = 0;
    w->estimate(p, &rc, &e0);
    rc.fabric_bound = 0.25;
    w->estimate(p, &rc, &eq);
    ck_assert_double_eq(e1.messages, 1000);
    ck_assert_double_eq(eq.messages, 1000);
    ck_assert_double_eq(e0.mem_bytes, e1.mem_bytes);
    ck_assert_double_eq(eq.mem_bytes - e1.mem_bytes, 500.0 * sizeof(net_msg));
    /* generation: 10 messages of 8 kb at 5 Gb/s per node, 16 us */
    ASSERT_REL(e1.horizon_s, 16e-6, 1e-12);
    ASSERT_REL(eq.horizon_s, 32e-6, 1e-12);
    wl_params_free(w, p);
}
END_TEST

/* ---- BookSim2's injection: bernoulli slots and self-traffic ---- */

/* Slots of one byte's time at B = 10 Gb/s: 8 / 1e10 s = 800 ps. 1-byte
 * messages at offered load 1: q = 1 / 1 = 1, a message in every slot, so
 * node i's k-th message (k = 1..50) is handed over at exactly k 800 ps.
 * At load 0.25: q = 0.25, geometric gaps of mean 1 / q = 4 slots and
 * variance (1 - q) / q^2 = 12 slots^2; a node's 4000th message comes at
 * the sum of 4000 gaps: mean 16 000 slots, sd sqrt(4000 x 12) = 219 slots;
 * the mean over 4 nodes within 5 sd / 2 = 548 slots. self-traffic on, N =
 * 4: each destination 1/4, the source included: 16 000 messages, of which
 * to themselves Binomial(16 000, 1/4): 4000 within 6 sd = 329. */
START_TEST(test_bernoulli_self)
{
    {
        net_params np = star(4);
        void *p = wl_uniform(1, 1.0, 50, 0);
        th_set(th_wl_ops("uniform-random")->params, th_wl_ops("uniform-random")->nparams, p,
               "workload.injection=bernoulli");
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 3, 200) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        int64_t count[51] = {0};
        for (uint64_t i = 0; i < 200; i++) {
            ck_assert_int_eq(h.t_sub_ps[i] % 800, 0);
            int64_t k = h.t_sub_ps[i] / 800;
            ck_assert(k >= 1 && k <= 50);
            count[k]++;
        }
        for (int k = 1; k <= 50; k++)
            ck_assert_int_eq(count[k], 4); /* every node in every slot */
        ck_assert_uint_eq(h.self, 0);
        h_close(&h);
    }
    {
        net_params np = star(4);
        void *p = wl_uniform(1, 0.25, 4000, 0);
        const wl_ops *w = th_wl_ops("uniform-random");
        th_set(w->params, w->nparams, p, "workload.injection=bernoulli");
        th_set(w->params, w->nparams, p, "workload.self-traffic=on");
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 5, 16000) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        int64_t last[4] = {0};
        for (uint64_t i = 0; i < 16000; i++) {
            ck_assert_int_eq(h.t_sub_ps[i] % 800, 0);
            if (h.t_sub_ps[i] > last[h.src[i]])
                last[h.src[i]] = h.t_sub_ps[i];
        }
        double mean = (double)(last[0] + last[1] + last[2] + last[3]) / 4 / 800;
        ck_assert_msg(fabs(mean - 16000) <= 548, "mean last slot %g", mean);
        ck_assert_msg(llabs((long long)h.self - 4000) <= 329, "%llu to themselves", (unsigned long long)h.self);
        h_close(&h);
    }
}
END_TEST

START_TEST(test_bad_params)
{
    static const struct {
        uint64_t messages;
        int64_t duration_ps;
        double load;
        int no_size;
        const char *row_refuses; /* the same value as text: the row refuses it */
        const char *expect;
    } cases[] = {
        {0, 0, 0.5, 0, NULL, "a duration or a message count"},
        {10, 1000000, 0.5, 0, NULL, "not both"},
        {0, -5, 0.5, 0, "workload.duration=-5ps", "negative duration"},
        /* (resolve reports it: 10 messages at a load of 0 would span for ever) */
        {10, 0, 0, 0, "workload.offered-load=0", "offered load"},
        {10, 0, -1, 0, "workload.offered-load=-1", "offered load"},
        {10, 0, 0.5, 1, NULL, "message size"},
    };
    const wl_ops *w = th_wl_ops("uniform-random");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        net_params np = star(4);
        void *p = wl_uniform(SIZE, cases[k].load > 0 ? cases[k].load : 0.5, cases[k].messages,
                             cases[k].duration_ps > 0 ? cases[k].duration_ps : 0);
        if (cases[k].row_refuses)
            assert_row_refuses(w, cases[k].row_refuses);
        if (cases[k].duration_ps < 0)
            store_raw(w, p, "workload.duration", (param_value){.ps = cases[k].duration_ps});
        if (!(cases[k].load > 0))
            store_raw(w, p, "workload.offered-load", (param_value){.d = cases[k].load});
        if (cases[k].no_size)
            store_raw(w, p, "workload.message-size", (param_value){.u = 0}); /* frees it: unset */
        harness h;
        ck_assert_int_eq(h_open(&h, "ideal", &np, NULL, p, 1, 16), -1);
        ck_assert_msg(strstr(h.r.err, cases[k].expect) != NULL, "case %zu: '%s' lacks '%s'", k,
                      h.r.err, cases[k].expect);
        ck_assert_int_eq(sim_pending(h.r.s), 0); /* nothing scheduled */
        h_close(&h);
    }
}
END_TEST

/* ---- 10. finish sees a broken run ---- */

/* 10 B messages (ser 8 ns) at rho = 0.95 on the ideal fabric: each node has
 * about rho (8 + 240) / 8 = 29 messages in flight at any time, so a run
 * stopped after 100 deliveries has undelivered messages (and, with a count,
 * nodes that did not generate all theirs). A fabric that hands the same
 * message over twice is caught by the marker the workload clears. */
START_TEST(test_finish_detects)
{
    {
        net_params np = star(8);
        void *p = wl_uniform(10, 0.95, 1000, 0);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 1, 8000) == 0, "init: %s", h.r.err);
        h.stop_after = 100;
        ck_assert_int_eq(h_run(&h, SIM_TIME_MAX), -1);
        ck_assert_msg(strstr(h.r.err, "generated") != NULL, "%s", h.r.err);
        h_close(&h);
    }
    {
        net_params np = star(8);
        void *p = wl_uniform(10, 0.95, 0, 50000000);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 1, 100000) == 0, "init: %s", h.r.err);
        h.stop_after = 100;
        ck_assert_int_eq(h_run(&h, SIM_TIME_MAX), -1);
        ck_assert_msg(strstr(h.r.err, "exactly once") != NULL, "%s", h.r.err);
        h_close(&h);
    }
    {
        net_params np = star(4);
        void *p = wl_uniform(SIZE, 0.1, 10, 0);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 1, 40) == 0, "init: %s", h.r.err);
        h.dup_first = 1;
        ck_assert_int_eq(h_run(&h, SIM_TIME_MAX), -1);
        ck_assert_msg(strstr(h.r.err, "already delivered") != NULL, "%s", h.r.err);
        h_close(&h);
    }
}
END_TEST

/* ---- 11. BookSim2's traffic patterns (workload.traffic) ---- */

/* uniform-random's params with the pattern settings `sets` (NULL-ended
 * "path=value"), 1-byte messages at load 0.5, `messages` per node. */
static void *wl_traffic(uint64_t messages, const char *const *sets)
{
    const wl_ops *w = th_wl_ops("uniform-random");
    void *p = wl_uniform(1, 0.5, messages, 0);
    for (size_t i = 0; sets && sets[i]; i++)
        th_set(w->params, w->nparams, p, sets[i]);
    return p;
}

/* Run `pattern` on N nodes of the ideal fabric, M messages per node, with
 * self-traffic on; every message of source s must go to expect[s]. */
static void check_perm(uint32_t N, const char *const *sets, const uint32_t *expect)
{
    const uint64_t M = 5;
    net_params np = star(N);
    harness h;
    ck_assert_msg(h_open(&h, "ideal", &np, NULL, wl_traffic(M, sets), 7, N * M) == 0, "init: %s", h.r.err);
    ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
    for (uint32_t s = 0; s < N; s++)
        ck_assert_msg(h.pair[(size_t)s * N + expect[s]] == M, "%s: source %u sent %llu of %llu to %u", sets[0], s,
                      (unsigned long long)h.pair[(size_t)s * N + expect[s]], (unsigned long long)M, expect[s]);
    h_close(&h);
}

/* Destinations worked by hand from BookSim2's definitions (the workload's
 * file head):
 *   bitcomp, N = 16 (4 bits): ~s & 15 = 15 - s.
 *   transpose, N = 16 = 2^(2*2): the low and high 2-bit halves swap, s = 4 r + c
 *     -> 4 c + r: 1 = (0,1) -> 4, 6 = (1,2) -> 9, 11 = (2,3) -> 14, 0, 5, 10, 15 fixed.
 *   bitrev, N = 8: 001 -> 100 (1 -> 4), 011 -> 110 (3 -> 6), 110 -> 011 (6 -> 3).
 *   shuffle, N = 8, rotate left: 001 -> 010, 100 -> 001 (4 -> 1), 101 -> 011 (5 -> 3).
 *   tornado, k = 8, n = 2 (the 8x8 torus): each digit + (9/2 - 1) = + 3 mod 8:
 *     0 = (0,0) -> (3,3) = 27; 13 = (5,1) -> (0,4) = 32; 63 = (7,7) -> (2,2) = 18;
 *     7 = (7,0) -> (2,3) = 26.
 *   tornado, k = 5, n = 1: + (6/2 - 1) = + 2 mod 5: 0 1 2 3 4 -> 2 3 4 0 1.
 *   tornado, k = 4, n = 3 (the 4-ary 3-tree's 64 hosts): + (5/2 - 1) = + 1 per digit:
 *     0 -> (1,1,1) = 21; 63 = (3,3,3) -> 0; 6 = (2,1,0) -> (3,2,1) = 3 + 8 + 16 = 27.
 *   neighbor, k = 8, n = 2: each digit + 1 mod 8: 0 -> 9; 7 = (7,0) -> (0,1) = 8; 63 -> 0. */
START_TEST(test_traffic_patterns)
{
    uint32_t e[64];
    for (uint32_t s = 0; s < 16; s++)
        e[s] = 15 - s;
    check_perm(16, (const char *const[]){"workload.traffic=bitcomp", "workload.self-traffic=on", NULL}, e);
    {
        static const uint32_t t16[16] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
        ck_assert_uint_eq(t16[1], 4);
        ck_assert_uint_eq(t16[6], 9);
        ck_assert_uint_eq(t16[11], 14);
        check_perm(16, (const char *const[]){"workload.traffic=transpose", "workload.self-traffic=on", NULL}, t16);
    }
    {
        static const uint32_t r8[8] = {0, 4, 2, 6, 1, 5, 3, 7};
        check_perm(8, (const char *const[]){"workload.traffic=bitrev", "workload.self-traffic=on", NULL}, r8);
        static const uint32_t sh8[8] = {0, 2, 4, 6, 1, 3, 5, 7};
        check_perm(8, (const char *const[]){"workload.traffic=shuffle", "workload.self-traffic=on", NULL}, sh8);
    }
    /* tornado on 64 = 8^2: the four worked values, and every source by its digits */
    for (uint32_t s = 0; s < 64; s++)
        e[s] = (s % 8 + 3) % 8 + 8 * ((s / 8 + 3) % 8);
    ck_assert_uint_eq(e[0], 27);
    ck_assert_uint_eq(e[13], 32);
    ck_assert_uint_eq(e[63], 18);
    ck_assert_uint_eq(e[7], 26);
    check_perm(64, (const char *const[]){"workload.traffic=tornado", "workload.traffic-radix=8", NULL}, e);
    check_perm(64, (const char *const[]){"workload.traffic=tornado", "workload.traffic-radix=8",
                                         "workload.traffic-digits=2", NULL}, e);
    {
        static const uint32_t t5[5] = {2, 3, 4, 0, 1};
        check_perm(5, (const char *const[]){"workload.traffic=tornado", "workload.traffic-radix=5", NULL}, t5);
    }
    for (uint32_t s = 0; s < 64; s++)
        e[s] = (s % 4 + 1) % 4 + 4 * ((s / 4 % 4 + 1) % 4) + 16 * ((s / 16 + 1) % 4);
    ck_assert_uint_eq(e[0], 21);
    ck_assert_uint_eq(e[63], 0);
    ck_assert_uint_eq(e[6], 27);
    check_perm(64, (const char *const[]){"workload.traffic=tornado", "workload.traffic-radix=4", NULL}, e);
    for (uint32_t s = 0; s < 64; s++)
        e[s] = (s % 8 + 1) % 8 + 8 * ((s / 8 + 1) % 8);
    ck_assert_uint_eq(e[0], 9);
    ck_assert_uint_eq(e[7], 8);
    ck_assert_uint_eq(e[63], 0);
    check_perm(64, (const char *const[]){"workload.traffic=neighbor", "workload.traffic-radix=8", NULL}, e);
}
END_TEST

/* self-traffic = off: a source the pattern sends to itself is idle. transpose
 * on 16 fixes s = 4 r + c with r = c: 0, 5, 10, 15; the 12 others send their
 * M each to their transpose, and finish's exactly-once check holds. */
START_TEST(test_traffic_self_off)
{
    const uint32_t N = 16;
    const uint64_t M = 5;
    net_params np = star(N);
    harness h;
    ck_assert_msg(h_open(&h, "ideal", &np, NULL, wl_traffic(M, (const char *const[]){"workload.traffic=transpose",
                                                                                      NULL}), 7, N * M) == 0,
                  "init: %s", h.r.err);
    ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
    ck_assert_uint_eq(h.self, 0);
    ck_assert_double_eq(h.core[M_messages_delivered], 12 * M);
    for (uint32_t s = 0; s < N; s++) {
        uint32_t d = 4 * (s % 4) + s / 4;
        ck_assert_uint_eq(h.pair[(size_t)s * N + d], d == s ? 0 : M);
    }
    h_close(&h);
}
END_TEST

/* randperm: one permutation per run: each source sends all its M messages to
 * one destination, and each node receives from exactly one source (column
 * sums M). The same seed draws the same permutation; another seed another
 * (two equal draws of 16! permutations: 1 in 2e13). */
START_TEST(test_traffic_randperm)
{
    const uint32_t N = 16;
    const uint64_t M = 3;
    uint32_t perm[3][16];
    static const uint64_t seeds[3] = {5, 5, 6};
    for (int r = 0; r < 3; r++) {
        net_params np = star(N);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL,
                             wl_traffic(M, (const char *const[]){"workload.traffic=randperm",
                                                                 "workload.self-traffic=on", NULL}),
                             seeds[r], N * M) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        uint64_t col[16] = {0};
        for (uint32_t s = 0; s < N; s++) {
            int found = 0;
            for (uint32_t d = 0; d < N; d++) {
                col[d] += h.pair[(size_t)s * N + d];
                if (h.pair[(size_t)s * N + d] == M) {
                    perm[r][s] = d;
                    found++;
                } else {
                    ck_assert_uint_eq(h.pair[(size_t)s * N + d], 0);
                }
            }
            ck_assert_int_eq(found, 1);
        }
        for (uint32_t d = 0; d < N; d++)
            ck_assert_uint_eq(col[d], M);
        h_close(&h);
    }
    ck_assert(memcmp(perm[0], perm[1], sizeof perm[0]) == 0);
    ck_assert(memcmp(perm[0], perm[2], sizeof perm[0]) != 0);
}
END_TEST

/* hotspot "2 5", shares "3 1", N = 8, M = 4000 per source: with self-traffic
 * on every source sends 3/4 to node 2 and 1/4 to node 5 (binomial sd
 * sqrt(4000 * 3/4 * 1/4) = 27.4: within 5 sd = 137 of 3000); nothing else.
 * Off: source 2 sends only to 5 and 5 only to 2 (the other hotspot, its
 * share renormalised to 1). One hotspot "3" with self-traffic off: node 3
 * is idle and every other node sends all its M to 3. */
START_TEST(test_traffic_hotspot)
{
    const uint32_t N = 8;
    const uint64_t M = 4000;
    for (int self = 1; self >= 0; self--) {
        net_params np = star(N);
        harness h;
        const char *const on[] = {"workload.traffic=hotspot", "workload.hotspot-nodes=2 5",
                                  "workload.hotspot-shares=3 1", "workload.self-traffic=on", NULL};
        const char *const off[] = {"workload.traffic=hotspot", "workload.hotspot-nodes=2 5",
                                   "workload.hotspot-shares=3 1", NULL};
        ck_assert_msg(h_open(&h, "ideal", &np, NULL, wl_traffic(M, self ? on : off), 3, N * M) == 0, "init: %s",
                      h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        for (uint32_t s = 0; s < N; s++) {
            uint64_t to2 = h.pair[s * N + 2], to5 = h.pair[s * N + 5];
            ck_assert_uint_eq(to2 + to5, M);
            if (!self && s == 2) {
                ck_assert_uint_eq(to5, M);
            } else if (!self && s == 5) {
                ck_assert_uint_eq(to2, M);
            } else {
                ck_assert_msg(llabs((long long)to2 - 3000) <= 137, "source %u: %llu to node 2", s,
                              (unsigned long long)to2);
            }
        }
        h_close(&h);
    }
    {
        net_params np = star(N);
        harness h;
        ck_assert_msg(h_open(&h, "ideal", &np, NULL,
                             wl_traffic(10, (const char *const[]){"workload.traffic=hotspot",
                                                                  "workload.hotspot-nodes=3", NULL}),
                             3, N * 10) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        for (uint32_t s = 0; s < N; s++)
            ck_assert_uint_eq(h.pair[s * N + 3], s == 3 ? 0 : 10);
        ck_assert_double_eq(h.core[M_messages_delivered], 70);
        h_close(&h);
    }
}
END_TEST

/* Sizes a pattern cannot take are refused at set-up, with the reason. */
START_TEST(test_traffic_refused)
{
    static const struct {
        uint32_t nodes;
        const char *set[3];
        const char *expect;
    } cases[] = {
        {12, {"workload.traffic=bitcomp"}, "power of two of nodes, and there are 12"},
        {12, {"workload.traffic=shuffle"}, "power of two"},
        {8, {"workload.traffic=transpose"}, "even power of two of nodes (4, 16, 64, ...), and there are 8 = 2^3"},
        {48, {"workload.traffic=tornado", "workload.traffic-radix=8"}, "8^2 > 48 nodes"},
        {64, {"workload.traffic=neighbor", "workload.traffic-radix=8", "workload.traffic-digits=3"}, "8^3 > 64"},
        {64, {"workload.traffic=tornado"}, "needs workload.traffic-radix"},
        {64, {"workload.traffic-radix=8"}, "applies to the patterns tornado and neighbor, and the pattern is uniform"},
        {8, {"workload.traffic=hotspot"}, "needs workload.hotspot-nodes"},
        {8, {"workload.traffic=hotspot", "workload.hotspot-nodes=1 9"}, "hotspot node 9: the nodes are 0..7"},
        {8, {"workload.traffic=hotspot", "workload.hotspot-nodes=1 1"}, "listed twice"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        net_params np = star(cases[k].nodes);
        const char *sets[4] = {cases[k].set[0], cases[k].set[1], cases[k].set[2], NULL};
        harness h;
        ck_assert_int_eq(h_open(&h, "ideal", &np, NULL, wl_traffic(5, sets), 1, 16), -1);
        ck_assert_msg(strstr(h.r.err, cases[k].expect) != NULL, "case %zu: '%s' lacks '%s'", k, h.r.err,
                      cases[k].expect);
        ck_assert_int_eq(sim_pending(h.r.s), 0);
        h_close(&h);
    }
}
END_TEST

/* ---- 12. on-off injection (BookSim2's on_off) ---- */

/* 1-byte messages at offered-load 0.1 on B = 10 Gb/s: q = 0.1 messages per
 * slot of 800 ps. burst-alpha 0.01, burst-beta 0.04: the chain is on
 * alpha / (alpha + beta) = 0.2 of the slots, r1 = q (alpha + beta) / alpha =
 * 0.1 * 0.05 / 0.01 = 0.5 per on slot, long-run rate r1 * 0.2 = 0.1 = q.
 * N = 4 for D = 5e5 slots (400 us): 2e5 messages expected. Their variance:
 * per slot r1 (1 - r1) pi + r1^2 pi (1 - pi) (1 + lambda) / (1 - lambda) with
 * pi = 0.2, lambda = 1 - alpha - beta = 0.95 (the two-state chain's
 * autocorrelation): 0.05 + 0.25 * 0.16 * 39 = 1.61, so 2e6 slots give sd
 * sqrt(3.22e6) = 1794: within 5 sd = 8971 of 2e5 (the start from a fair
 * coin instead of pi adds (0.5 - 0.2) / (alpha + beta) * r1 = 3 messages
 * per node). Bursts: a message at slot t is followed by one at t + 1 with
 * probability (1 - beta) r1 = 0.96 * 0.5 = 0.48 (Bernoulli: q = 0.1); over
 * ~2e5 messages within 0.01 (binomial sd 0.0011). Every hand-over is at a
 * whole slot. */
START_TEST(test_onoff)
{
    const uint32_t N = 4;
    const uint64_t cap = 220000;
    net_params np = star(N);
    const wl_ops *w = th_wl_ops("uniform-random");
    void *p = wl_uniform(1, 0.1, 0, 400000000);
    th_set(w->params, w->nparams, p, "workload.injection=on-off");
    th_set(w->params, w->nparams, p, "workload.burst-alpha=0.01");
    th_set(w->params, w->nparams, p, "workload.burst-beta=0.04");
    harness h;
    ck_assert_msg(h_open(&h, "ideal", &np, NULL, p, 9, cap) == 0, "init: %s", h.r.err);
    ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
    uint64_t total = (uint64_t)h.core[M_messages_delivered];
    ck_assert_msg(llabs((long long)total - 200000) <= 8971, "%llu messages", (unsigned long long)total);
    int64_t last[4];
    for (uint32_t i = 0; i < N; i++)
        last[i] = -1;
    uint64_t next = 0, pairs = 0;
    for (uint64_t id = 0; id < total; id++) { /* ids in hand-over order */
        ck_assert_int_eq(h.t_sub_ps[id] % 800, 0);
        uint32_t s = h.src[id];
        if (last[s] >= 0) {
            pairs++;
            next += h.t_sub_ps[id] - last[s] == 800;
        }
        last[s] = h.t_sub_ps[id];
    }
    double f = (double)next / (double)pairs;
    ck_assert_msg(fabs(f - 0.48) <= 0.01, "P(next slot | message) = %g", f);
    h_close(&h);
}
END_TEST

START_TEST(test_onoff_refused)
{
    static const struct {
        double load;
        const char *set[3];
        const char *expect;
    } cases[] = {
        {0.5, {"workload.burst-alpha=0.01", "workload.burst-beta=0.04"}, "needs 2.5 messages per on slot"},
        {0.1, {"workload.burst-beta=0.04"}, "needs workload.burst-alpha and workload.burst-beta"},
        {0.1, {"workload.burst-alpha=0.5", "workload.burst-beta=1.5"}, "in (0, 1]"},
    };
    const wl_ops *w = th_wl_ops("uniform-random");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        net_params np = star(4);
        void *p = wl_uniform(1, cases[k].load, 10, 0);
        th_set(w->params, w->nparams, p, "workload.injection=on-off");
        for (int i = 0; i < 3 && cases[k].set[i]; i++)
            th_set(w->params, w->nparams, p, cases[k].set[i]);
        harness h;
        ck_assert_int_eq(h_open(&h, "ideal", &np, NULL, p, 1, 16), -1);
        ck_assert_msg(strstr(h.r.err, cases[k].expect) != NULL, "case %zu: '%s' lacks '%s'", k, h.r.err,
                      cases[k].expect);
        h_close(&h);
    }
    {
        net_params np = star(4);
        void *p = wl_uniform(1, 0.1, 10, 0);
        th_set(w->params, w->nparams, p, "workload.injection=bernoulli");
        th_set(w->params, w->nparams, p, "workload.burst-alpha=0.5");
        harness h;
        ck_assert_int_eq(h_open(&h, "ideal", &np, NULL, p, 1, 16), -1);
        ck_assert_msg(strstr(h.r.err, "apply to injection on-off, and it is bernoulli") != NULL, "%s", h.r.err);
        h_close(&h);
    }
}
END_TEST

/* ---- 13. warm-up, measurement window and drain (BookSim2's) ---- */

/* A 4x4 torus (output-queued, DOR), neighbor traffic (each digit + 1: every
 * link carries one flow, so the fabric never queues), 2-byte messages at
 * offered-load 2 with bernoulli injection: q = 2 / 2 = 1, a message at every
 * 800 ps slot, j = 1, 2, ... at j 800 ps, each taking 1600 ps on the host
 * link: message j starts at 800 + (j - 1) 1600, after a source wait of
 * (j - 1) 800 ps, and crosses in the same time L0 (zero load, 0 -> 5: one X
 * and one Y hop: 4 links of 20 ns, 3 switches of 200 ns and the 1.6 ns of
 * serialisation, 681.6 ns). Duration 2000 slots (1.6 us), warmup 1000 slots
 * (800 ns), measure 40 slots (32 ns): measured j = 1000 .. 1039 (800 000 <=
 * j 800 < 832 000), 40 per node, 640 in all; mean wait 800 * (999 + 1038) / 2
 * = 814 800 ps; network latency L0 for every one; window latency L0 +
 * 814 800 ps. Accepted: from 0.8 + 681.6 = 682.4 ns < 800 ns on, every node
 * receives a 2-byte message every 1600 ps, 20 of them in any 32 ns window: 8 * 40 B /
 * (10 Gb/s * 32 ns) = 1 for each node (min = max = mean = 1). The drain:
 * message 1039 starts at 800 + 1038 * 1600 = 1 661 600 ps, past the
 * duration, so the sources generate on until it is delivered (t_d = 1661.6 +
 * 681.6 ns = 2.3432 us, past 1.6 us and before 2 x 1.6 us: not saturated),
 * every node's last arrival being the
 * last slot before t_d (or at it: same-time order). With a duration of 1100
 * slots (880 ns) the drain reaches 2 x 880 ns = 1 760 000 ps before t_d: the
 * sources stop there, the last arrival being slot 2199 (2200 x 800 = 2 x D is
 * not generated), saturated = 1, and the measured messages, ahead of the
 * later ones in their source queues, keep every figure above. */
static void measure_run(int64_t duration_ps, int saturated)
{
    const uint32_t N = 16;
    const uint64_t cap = 60000;
    net_params np = star(N);
    const wl_ops *w = th_wl_ops("uniform-random");
    void *p = wl_uniform(2, 2.0, 0, duration_ps);
    static const char *const sets[] = {"workload.injection=bernoulli", "workload.traffic=neighbor",
                                       "workload.traffic-radix=4", "workload.warmup=800000ps",
                                       "workload.measure-period=32000ps"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        th_set(w->params, w->nparams, p, sets[i]);
    static const char *const tor[] = {"network.dims=4 4", "network.routing=dor", NULL};
    harness h;
    ck_assert_msg(h_open(&h, "torus", &np, tor, p, 3, cap) == 0, "init: %s", h.r.err);
    ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
    uint64_t total = (uint64_t)h.core[M_messages_delivered];
    ck_assert_uint_lt(total, cap);
    /* L0: node 0's first message (no wait), as the fabric's own zero load says */
    int64_t L0 = -1, t_d = -1;
    for (uint64_t id = 0; id < total; id++) {
        if (h.src[id] == 0 && h.t_sub_ps[id] == 800)
            L0 = h.t_dlv_ps[id] - 800;
        if (h.t_sub_ps[id] >= 800000 && h.t_sub_ps[id] < 832000 && h.t_dlv_ps[id] > t_d)
            t_d = h.t_dlv_ps[id];
    }
    ck_assert_int_eq(L0, h.r.n->ops->zero_load_ps(h.r.n->state, 0, 5, 2));
    ck_assert_double_eq(MET(h, "measured"), 640);
    ASSERT_REL(MET(h, "source_queueing_s"), 814800e-12, 1e-12);
    ASSERT_REL(MET(h, "network_latency_s"), (double)L0 * 1e-12, 1e-12);
    ASSERT_REL(MET(h, "window_latency_s"), (double)(L0 + 814800) * 1e-12, 1e-12);
    ASSERT_REL(MET(h, "accepted"), 1.0, 1e-12);
    ASSERT_REL(MET(h, "accepted_min"), 1.0, 1e-12);
    ASSERT_REL(MET(h, "accepted_max"), 1.0, 1e-12);
    /* the drain: message 1039 is delivered at 1 661 600 + L0, and generation ran to then */
    ck_assert_int_eq(t_d, 1661600 + L0);
    ck_assert_uint_eq(total % N, 0);
    uint64_t per = total / N; /* arrivals at 800 .. per 800 */
    ck_assert_double_eq(MET(h, "saturated"), saturated);
    if (saturated)
        ck_assert_uint_eq(per, 2199);
    else
        ck_assert_msg(per * 800 <= (uint64_t)t_d && (per + 1) * 800 >= (uint64_t)t_d, "%llu per node, t_d %lld",
                      (unsigned long long)per, (long long)t_d);
    h_close(&h);
}

START_TEST(test_measure_window)
{
    measure_run(1600000, 0);
    measure_run(880000, 1);
}
END_TEST

/* Without warmup and measure-period the window is the throughput's: every message
 * of duration mode is measured; every latency is the 1040 ns of
 * test_ideal_exact, all of it in the fabric (the ideal fabric has no
 * source queue: a message leaves when it is handed over, network latency
 * 1040 ns, source queueing 0), and accepted is the throughput's window
 * [0, D]. */
START_TEST(test_measure_default)
{
    net_params np = star(8);
    harness h;
    ck_assert_msg(h_open(&h, "ideal", &np, NULL, wl_uniform(SIZE, 0.5, 0, 200000000), 11, 4000) == 0, "init: %s",
                  h.r.err);
    ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
    ck_assert_double_eq(MET(h, "measured"), h.core[M_messages_delivered]);
    ASSERT_REL(MET(h, "window_latency_s"), 1040e-9, 1e-12);
    ASSERT_REL(MET(h, "network_latency_s"), 1040e-9, 1e-12);
    ck_assert_double_eq(MET(h, "source_queueing_s"), 0);
    ASSERT_REL(MET(h, "accepted"), MET(h, "throughput"), 1e-12);
    ck_assert(isnan(MET(h, "saturated"))); /* no measure-period: no drain to judge */
    h_close(&h);
    static const struct {
        uint64_t messages;
        int64_t duration_ps;
        const char *set[2];
        const char *expect;
    } cases[] = {
        {10, 0, {"workload.measure-period=1us"}, "workload.measure-period needs workload.duration"},
        {0, 1000000, {"workload.warmup=600ns", "workload.measure-period=500ns"}, "leaves no measurement window"},
        {0, 1000000, {"workload.warmup=1us"}, "leaves no measurement window"},
    };
    const wl_ops *w = th_wl_ops("uniform-random");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        void *p = wl_uniform(SIZE, 0.5, cases[k].messages, cases[k].duration_ps);
        for (int i = 0; i < 2 && cases[k].set[i]; i++)
            th_set(w->params, w->nparams, p, cases[k].set[i]);
        net_params np4 = star(4);
        ck_assert_int_eq(h_open(&h, "ideal", &np4, NULL, p, 1, 16), -1);
        ck_assert_msg(strstr(h.r.err, cases[k].expect) != NULL, "case %zu: '%s' lacks '%s'", k, h.r.err,
                      cases[k].expect);
        h_close(&h);
    }
}
END_TEST

/* BookSim2's latency mode (workload.sample-period; src/trafficmanager.cpp's
 * _SingleSim, the file head). A 4x4 torus whose links take 0.1 ns and
 * switches nothing, neighbor traffic (no link shared), 1-byte messages at
 * offered-load 1 with bernoulli injection: q = 1, message j = 1, 2, ... of
 * every node generated at j 800 ps, 800 ps on the host link (no wait) and
 * delivered L = 4 x 100 + 800 = 1200 ps later, at (j + 1.5) 800 ps. Sample
 * period S = 64 000 ps (80 slots); equal times fire in scheduling order, and
 * the sample at k S is scheduled a period before the arrival at k S, so it
 * comes first. Per node:
 *   period 1 (0, S]: deliveries j = 1..78 (j + 1.5 <= 80), latency 1200,
 *     accepted 78 x 8 / (10 Gb/s x 64 ns) = 0.975; changes 1 and 1;
 *   period 2: since the clear at 0: j = 1..158, accepted 158 / 160 = 0.9875;
 *     warmup-periods 3 not reached; 2 periods done, even: clear at 2S;
 *   period 3: j = 159..238, 80 in 64 ns: 1.0; 3 periods: warm, clear at 3S;
 *     messages generated from 3S = 192 000 ps (j >= 240) are measured;
 *   periods 4, 5, 6: latency 1200 and accepted 1.0 each (80 deliveries in
 *     each period): changes 0, converged 1, 2, 3: the measurement ends at
 *     6S = 384 000 ps: measured j = 240..479 (j = 480 comes after the
 *     sample), 240 x 16 = 3840; the drain ends with j = 479's delivery at
 *     384 400 ps and the sources stop at their next arrival (j = 481), so
 *     each generated 480 (7680 in all).
 * window latency 1200 ps; accepted over [3S, 6S) by delivery time: j =
 * 239..478, 240 x 8 / (10 Gb/s x 192 ns) = 1 on every node; throughput over
 * [0, 6S]: j = 1..478, 478 x 8 / 3840 = 0.9958333...; samples 6.
 * latency-threshold 1100 ps: at the end of period 1 the mean over the 78
 * delivered (1200) and the one in flight (j = 79, 800 ps old) is 1194.9 >
 * 1100: aborted after 1 period, saturated, no latency; 1300 ps: no abort.
 * warmup-periods 0, warmup-threshold 0, max-samples 3: the accepted rate
 * changes by 1, 0.0127, 0.0125 in periods 1-3, never 0: not warm within 3
 * periods: saturated, samples 3, nothing measured. */
static void sample_run(const char *const *extra, harness *h)
{
    net_params np = star(16);
    np.link_latency_ps = 100;
    np.switch_latency_ps = 0;
    const wl_ops *w = th_wl_ops("uniform-random");
    void *p = wl_uniform(1, 1.0, 0, 0);
    static const char *const sets[] = {"workload.injection=bernoulli", "workload.traffic=neighbor",
                                       "workload.traffic-radix=4", "workload.sample-period=64000ps"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        th_set(w->params, w->nparams, p, sets[i]);
    for (size_t i = 0; extra && extra[i]; i++)
        th_set(w->params, w->nparams, p, extra[i]);
    static const char *const tor[] = {"network.dims=4 4", "network.routing=dor", NULL};
    ck_assert_msg(h_open(h, "torus", &np, tor, p, 3, 20000) == 0, "init: %s", h->r.err);
    ck_assert_msg(h_run(h, SIM_TIME_MAX) == 0, "finish: %s", h->r.err);
    ck_assert_int_eq(h->r.n->ops->zero_load_ps(h->r.n->state, 0, 5, 1), 1200);
}

START_TEST(test_sample_mode)
{
    harness h;
    sample_run(NULL, &h);
    ck_assert_double_eq(MET(h, "samples"), 6);
    ck_assert_double_eq(MET(h, "saturated"), 0);
    ck_assert_double_eq(MET(h, "measured"), 3840);
    ck_assert_double_eq(h.core[M_messages_delivered], 7680);
    ASSERT_REL(MET(h, "window_latency_s"), 1200e-12, 1e-12);
    ASSERT_REL(MET(h, "network_latency_s"), 1200e-12, 1e-12);
    ASSERT_REL(MET(h, "accepted"), 1.0, 1e-12);
    ASSERT_REL(MET(h, "accepted_min"), 1.0, 1e-12);
    ASSERT_REL(MET(h, "accepted_max"), 1.0, 1e-12);
    ASSERT_REL(MET(h, "throughput"), 478.0 / 480.0, 1e-12);
    h_close(&h);

    sample_run((const char *const[]){"workload.latency-threshold=1100ps", NULL}, &h);
    ck_assert_double_eq(MET(h, "samples"), 1);
    ck_assert_double_eq(MET(h, "saturated"), 1);
    ck_assert(isnan(MET(h, "window_latency_s")));
    ck_assert(isnan(MET(h, "accepted")));
    h_close(&h);
    sample_run((const char *const[]){"workload.latency-threshold=1300ps", NULL}, &h);
    ck_assert_double_eq(MET(h, "samples"), 6);
    ck_assert_double_eq(MET(h, "saturated"), 0);
    ASSERT_REL(MET(h, "window_latency_s"), 1200e-12, 1e-12);
    h_close(&h);

    sample_run((const char *const[]){"workload.warmup-periods=0", "workload.warmup-threshold=0",
                                     "workload.max-samples=3", NULL}, &h);
    ck_assert_double_eq(MET(h, "samples"), 3);
    ck_assert_double_eq(MET(h, "saturated"), 1);
    ck_assert_double_eq(MET(h, "measured"), 0);
    h_close(&h);
    /* with max-samples 4 the 4th period's rate over periods 3-4 (160 in
     * 128 ns, 1.0) equals period 3's: warm at 4, then 3 converging: 7 */
    sample_run((const char *const[]){"workload.warmup-periods=0", "workload.warmup-threshold=0", NULL}, &h);
    ck_assert_double_eq(MET(h, "samples"), 7);
    ck_assert_double_eq(MET(h, "saturated"), 0);
    ASSERT_REL(MET(h, "window_latency_s"), 1200e-12, 1e-12);
    h_close(&h);

    /* refusals */
    static const struct {
        const char *set;
        const char *expect;
    } bad[] = {
        {"workload.duration=1us", "workload.duration does not apply"},
        {"workload.measure-period=1us", "workload.measure-period does not apply"},
        {"workload.warmup=1us", "workload.warmup does not apply"},
    };
    const wl_ops *w = th_wl_ops("uniform-random");
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        void *p = wl_uniform(SIZE, 0.5, 0, 0);
        th_set(w->params, w->nparams, p, "workload.sample-period=1us");
        th_set(w->params, w->nparams, p, bad[k].set);
        net_params np4 = star(4);
        ck_assert_int_eq(h_open(&h, "ideal", &np4, NULL, p, 1, 16), -1);
        ck_assert_msg(strstr(h.r.err, bad[k].expect) != NULL, "case %zu: '%s' lacks '%s'", k, h.r.err,
                      bad[k].expect);
        h_close(&h);
    }
    void *p = wl_uniform(SIZE, 0.5, 0, 1000000);
    th_set(w->params, w->nparams, p, "workload.latency-threshold=1us");
    net_params np4 = star(4);
    ck_assert_int_eq(h_open(&h, "ideal", &np4, NULL, p, 1, 16), -1);
    ck_assert_msg(strstr(h.r.err, "applies to workload.sample-period") != NULL, "%s", h.r.err);
    h_close(&h);
}
END_TEST

/* Network latency and source queueing on the single electrical switch
 * (its source FIFO, and the host NIC with network.mtu): 2 nodes, each
 * sending to the other (no output shared), 2-byte messages at offered-load 2
 * with bernoulli injection: q = 1, message j = 1..10 generated at j 800 ps,
 * 1600 ps on the host link, so it starts at 800 + (j - 1) 1600 after a
 * wait of (j - 1) 800 ps: mean 800 x 4.5 = 3600 ps; its network latency is
 * the switch's zero load for 2 bytes, the same for every message. */
START_TEST(test_network_latency_switch)
{
    for (int nic = 0; nic < 2; nic++) {
        net_params np = star(2);
        const wl_ops *w = th_wl_ops("uniform-random");
        void *p = wl_uniform(2, 2.0, 10, 0);
        th_set(w->params, w->nparams, p, "workload.injection=bernoulli");
        static const char *const mtu[] = {"network.mtu=1kB", NULL};
        harness h;
        ck_assert_msg(h_open(&h, "electrical-switch", &np, nic ? mtu : NULL, p, 5, 64) == 0, "init: %s", h.r.err);
        ck_assert_msg(h_run(&h, SIM_TIME_MAX) == 0, "finish: %s", h.r.err);
        int64_t L0 = h.r.n->ops->zero_load_ps(h.r.n->state, 0, 1, 2);
        ck_assert_double_eq(MET(h, "measured"), 20);
        ASSERT_REL(MET(h, "source_queueing_s"), 3600e-12, 1e-12);
        ASSERT_REL(MET(h, "network_latency_s"), (double)L0 * 1e-12, 1e-12);
        ASSERT_REL(MET(h, "window_latency_s"), (double)(L0 + 3600) * 1e-12, 1e-12);
        h_close(&h);
    }
}
END_TEST

/* ---- main ---- */

static Suite *uniform_suite(void)
{
    Suite *s = suite_create("uniform");
    TCase *tc = tcase_create("uniform");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_ideal_exact);
    tcase_add_test(tc, test_window_exact);
    tcase_add_test(tc, test_switch_low_load);
    tcase_add_test(tc, test_switch_half_load);
    tcase_add_test(tc, test_destinations);
    tcase_add_test(tc, test_bernoulli_self);
    tcase_add_test(tc, test_rate);
    tcase_add_test(tc, test_seeds);
    tcase_add_test(tc, test_common_traffic);
    tcase_add_test(tc, test_spinet);
    tcase_add_test(tc, test_bad_params);
    tcase_add_test(tc, test_estimate_bound);
    tcase_add_test(tc, test_finish_detects);
    tcase_add_test(tc, test_traffic_patterns);
    tcase_add_test(tc, test_traffic_self_off);
    tcase_add_test(tc, test_traffic_randperm);
    tcase_add_test(tc, test_traffic_hotspot);
    tcase_add_test(tc, test_traffic_refused);
    tcase_add_test(tc, test_onoff);
    tcase_add_test(tc, test_onoff_refused);
    tcase_add_test(tc, test_measure_window);
    tcase_add_test(tc, test_measure_default);
    tcase_add_test(tc, test_sample_mode);
    tcase_add_test(tc, test_network_latency_switch);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(uniform_suite)
