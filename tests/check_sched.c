/* The task-tree workload: scheduler node and execution model (MODEL.md
 * sections 3-5, paper 3.3). Every expected time is derived by hand in the
 * comment above its assertion, on the contention-free "ideal" fabric and on
 * the electrical switch (whose zero-load latency is the same:
 * size*8/B + 2 link + switch, and whose cases here are free of contention
 * unless said otherwise). */
#include <check.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "harness.h"
#include "metrics.h"
#include "network.h"
#include "rng.h"
#include "scheduler.h"
#include "sim.h"
#include "wl_task_tree.h"
#include "trace.h"
#include "tree.h"
#include "workload.h"

#define US 1000000LL /* ps per microsecond */
#define LINK_PS TH_LINK_PS /* 20 ns */
#define SWITCH_PS TH_SW_PS /* 200 ns */

static const char *const fabrics[] = {"ideal", "electrical-switch"};

/* ---- harness: the shared run harness (tests/harness.h), plus a shadow of
 * the allocation protocol that sees every delivery first ---- */

/* Independent shadow of the allocation protocol, updated from the messages
 * as they are delivered: a node may be assigned or granted only while idle,
 * receives delegations only from the node it was granted to, and is
 * released only by that node. */
typedef struct shadow {
    uint32_t nodes;
    int *allocated;   /* per node */
    uint32_t *owner;  /* per node: granted to (0 = the scheduler, for roots) */
    uint64_t violations;
    char first[160];  /* first violation */
} shadow;

typedef struct harness {
    th_run r;        /* fabric + task-tree workload (r.ws: the workload's state) */
    shadow sh;
    uint64_t events; /* events of the run (th_run_go) */
} harness;

static void violation(shadow *sh, const char *what, uint32_t node)
{
    if (sh->violations++ == 0)
        snprintf(sh->first, sizeof sh->first, "%s (node %u)", what, node);
}

static void shadow_see(shadow *sh, const net_msg *m)
{
    switch (m->kind) {
    case SCHED_ASSIGN:
        if (sh->allocated[m->dst])
            violation(sh, "root assigned to an allocated node", m->dst);
        sh->allocated[m->dst] = 1;
        sh->owner[m->dst] = 0;
        break;
    case SCHED_GRANT: {
        const uint32_t *ids = m->p;
        for (uint32_t i = 0; i < m->a; i++) {
            if (ids[i] == 0 || ids[i] >= sh->nodes || ids[i] == m->dst)
                violation(sh, "granted a bad id", ids[i]);
            else if (sh->allocated[ids[i]])
                violation(sh, "granted an allocated node", ids[i]);
            else {
                sh->allocated[ids[i]] = 1;
                sh->owner[ids[i]] = m->dst;
            }
        }
        break;
    }
    case SCHED_DELEGATE:
        if (!sh->allocated[m->dst] || sh->owner[m->dst] != m->src)
            violation(sh, "delegation to a node the sender does not hold", m->dst);
        break;
    case SCHED_RELEASE:
        if (m->a >= sh->nodes || !sh->allocated[m->a] || sh->owner[m->a] != m->src)
            violation(sh, "release by a node that does not hold it", m->a);
        else
            sh->allocated[m->a] = 0;
        break;
    case SCHED_JOB_DONE:
        if (!sh->allocated[m->src] || sh->owner[m->src] != 0)
            violation(sh, "job-complete from a node not holding a root", m->src);
        sh->allocated[m->src] = 0;
        break;
    default:
        break;
    }
}

/* The fabric's deliveries pass through the shadow before the workload sees them. */
static void h_tap(void *ctx, const net_msg *m)
{
    harness *h = ctx;
    shadow_see(&h->sh, (net_msg *)m);
}

/* The electrical switch's own settings; the ideal fabric has none (it
 * ignored control-first and store-and-forward before they became the
 * switch's rows, and still has no such parameter). */
typedef struct fabric_sets {
    const char *v[3]; /* NULL-terminated */
} fabric_sets;

static fabric_sets sets_for(const char *fabric, int control_first, int store_forward)
{
    fabric_sets s = {{NULL, NULL, NULL}};
    size_t k = 0;
    if (strcmp(fabric, "electrical-switch") == 0) {
        if (control_first)
            s.v[k++] = "network.priority=control-first";
        if (store_forward)
            s.v[k++] = "network.switching=store-and-forward";
    }
    return s;
}

/* Explicit arrivals, through th_run_open_with. */
typedef struct schedule {
    const int64_t *t_ps;
    uint64_t n;
} schedule;

static int init_arrivals(void *state, const wl_env *env, const void *arg, char *err, size_t errlen)
{
    const schedule *a = arg;
    return tasktree_init_arrivals(state, env, a->t_ps, a->n, err, errlen);
}

/* Set up (taking p over: freed by h_end); explicit arrivals when given
 * (n > 0), else Poisson from p. Cut-through, one FIFO class unless `sets`
 * say otherwise. */
static void h_start_full(harness *h, const char *fabric, const char *const *sets, const net_params *np,
                         tasktree_params *p, uint64_t seed, const int64_t *arr, uint64_t n, trace *tr,
                         void **cache)
{
    memset(h, 0, sizeof *h);
    h->r.trace = tr;
    h->r.cache = cache;
    h->r.tap = h_tap;
    h->r.tap_ctx = h;
    h->sh.nodes = np->nodes;
    h->sh.allocated = calloc(np->nodes, sizeof *h->sh.allocated);
    h->sh.owner = calloc(np->nodes, sizeof *h->sh.owner);
    ck_assert(h->sh.allocated && h->sh.owner);
    const schedule a = {arr, n};
    int rc = n > 0 ? th_run_open_with(&h->r, fabric, np, sets, "task-tree", p, seed, 0, init_arrivals, &a)
                   : th_run_open(&h->r, fabric, np, sets, "task-tree", p, seed, 0);
    ck_assert_msg(rc == 0, "%s: open: %s", fabric, h->r.err);
}

static void h_start_traced(harness *h, const char *fabric, const char *const *sets, const net_params *np,
                           tasktree_params *p, uint64_t seed, const int64_t *arr, uint64_t n, trace *tr)
{
    h_start_full(h, fabric, sets, np, p, seed, arr, n, tr, NULL);
}

static void h_start(harness *h, const char *fabric, const char *const *sets, const net_params *np,
                    tasktree_params *p, uint64_t seed, const int64_t *arr, uint64_t n)
{
    h_start_full(h, fabric, sets, np, p, seed, arr, n, NULL, NULL);
}

/* Run to the end and finish (asserting success). */
static void h_run(harness *h)
{
    h->events = th_run_go(&h->r);
    int rc = th_run_finish(&h->r);
    ck_assert_msg(rc == 0, "finish: %s", h->r.err);
    ck_assert_msg(h->sh.violations == 0, "%llu protocol violations, first: %s",
                  (unsigned long long)h->sh.violations, h->sh.first);
    ck_assert_int_eq(sim_pending(h->r.s), 0);
}

static void h_end(harness *h)
{
    th_run_close(&h->r); /* frees the params too */
    free(h->sh.allocated);
    free(h->sh.owner);
}

/* A workload metric by name (NAN if it has none of that name). */
#define MET(h, name) th_metric(&(h).r, name)

/* Deterministic tree z with constant task values: the workload's params
 * (defaults from its rows: mc-samples, shape...) with these set by hand. */
static tasktree_params *params_det(const uint32_t *z, uint32_t zlen, double ti_s, double ta_s, double ss_bytes,
                                   double sr_bytes, double eps_bytes, uint64_t jobs, double rate_per_s)
{
    tasktree_params *p = th_wl_params(&wl_task_tree_ops, NULL);
    p->jobs = jobs;
    p->arrival_rate_per_s = rate_per_s;
    p->control_size_bytes = eps_bytes;
    p->tree.gen = TREE_DETERMINISTIC;
    for (uint32_t i = 0; i < zlen; i++)
        p->tree.z[i] = z[i];
    p->tree.zlen = zlen;
    dist_free(&p->tree.vertices);
    dist_const(&p->tree.vertices, UNIT_NONE, 1);
    dist_free(&p->task.init_time);
    dist_const(&p->task.init_time, UNIT_TIME, ti_s);
    dist_free(&p->task.aggregation_time);
    dist_const(&p->task.aggregation_time, UNIT_TIME, ta_s);
    dist_free(&p->task.send_size);
    dist_const(&p->task.send_size, UNIT_SIZE, ss_bytes);
    dist_free(&p->task.result_size);
    dist_const(&p->task.result_size, UNIT_SIZE, sr_bytes);
    return p;
}

/* "workload.task.init-time=uniform(1us,20us)": through the workload's row. */
static void set(tasktree_params *p, const char *assign)
{
    th_set(wl_task_tree_ops.params, wl_task_tree_ops.nparams, p, assign);
}

/* One-way latency of a message alone in the star: size*8/B + 2 link + switch. */
static int64_t one_way_ps(uint64_t bytes, double bps)
{
    return net_serialization_ps(bytes, bps) + 2 * LINK_PS + SWITCH_PS;
}

#define ASSERT_PS(actual, expected) \
    ck_assert_msg((long long)(actual) == (long long)(expected), "%s = %lld ps, expected %lld ps", \
                  #actual, (long long)(actual), (long long)(expected))
#define ASSERT_REL(actual, expected) \
    ck_assert_msg(fabs((actual) - (expected)) <= 1e-12 * fabs(expected), \
                  "%s = %.17g, expected %.17g", #actual, (double)(actual), (double)(expected))

static uint64_t sent(const harness *h, unsigned kind) { return tasktree_sent_by_kind(h->r.ws, kind); }

/* ---- 1. z=[4,3] on N=2: every grant is empty ---- */

/* MODEL.md 4 worked example: t_i = t_a = 10 us, s_s = 20 kB, s_r = 40 kB,
 * eps = 40 B. With N=2 the single compute node runs all 17 tasks in turn:
 * F_x = 17 * 20 us = 340 us of compute. Control exchanges, each one-way:
 * the root assignment and the job-complete (1 round trip), and one
 * request/grant pair per delegating vertex (d = 5: the root and the four
 * level-1 vertices), so 2 + 2*5 = 12 one-way control latencies.
 * At 10 Gb/s: 40 B = 32 ns + 2*20 ns links + 200 ns switch = 272 ns,
 * job time = 340 us + 12 * 272 ns = 343.264 us.
 * At 40 Gb/s: 8 ns + 240 ns = 248 ns (MODEL.md 6), 340 + 12*0.248 = 342.976 us.
 * No two messages are ever in flight together, so the switch sees no
 * contention, with or without control-first. */
START_TEST(test_single_node_z43)
{
    static const double bw[] = {10e9, 40e9};
    static const int64_t expect_ps[] = {343264 * NS, 342976 * NS};
    uint32_t z[] = {4, 3};
    for (int f = 0; f < 2; f++)
        for (int b = 0; b < 2; b++)
            for (int cf = 0; cf < 2; cf++) {
                tasktree_params *p = params_det(z, 2, 10e-6, 10e-6, 20e3, 40e3, 40, 1, 1000.0);
                net_params np = th_star(2, bw[b]);
                fabric_sets fs = sets_for(fabrics[f], cf, 0);
                harness h;
                h_start(&h, fabrics[f], fs.v, &np, p, 7, NULL, 0);
                h_run(&h);
                ck_assert_int_eq(tasktree_jobs_arrived(h.r.ws), 1);
                const tasktree_job_record *r = tasktree_job(h.r.ws, 0);
                ck_assert_int_gt(r->arrival_ps, 0); /* one exponential gap after 0 */
                ASSERT_PS(r->assigned_ps, r->arrival_ps);
                ASSERT_PS(r->completed_ps - r->arrival_ps, expect_ps[b]);
                ASSERT_PS(r->work_ps, 340 * US);
                ck_assert_int_eq(r->root_node, 1);
                ck_assert_int_eq(r->tasks, 17);
                /* 2 + 2d = 12 control messages of 40 B, no data at all. */
                ck_assert_int_eq(sent(&h, SCHED_ASSIGN), 1);
                ck_assert_int_eq(sent(&h, SCHED_ALLOC_REQ), 5);
                ck_assert_int_eq(sent(&h, SCHED_GRANT), 5);
                ck_assert_int_eq(sent(&h, SCHED_RELEASE), 0);
                ck_assert_int_eq(sent(&h, SCHED_JOB_DONE), 1);
                ck_assert_int_eq(sent(&h, SCHED_DELEGATE), 0);
                ck_assert_int_eq(sent(&h, SCHED_RESULT), 0);
                ck_assert_int_eq(h.r.n->c.delivered, 12);
                ck_assert_int_eq(h.r.n->c.bytes_delivered, 480);
                uint64_t req, gr, fifo;
                tasktree_sched_counts(h.r.ws, &req, &gr, &fifo);
                ck_assert_int_eq(req, 3 + 4 * 2); /* m-1 per delegating vertex */
                ck_assert_int_eq(gr, 0);
                /* Node 1 computes 340 us and is allocated from the assignment
                 * to the job-complete reception: the whole job time. */
                tasktree_node_stats ns;
                tasktree_node(h.r.ws, 1, &ns);
                ASSERT_PS(ns.compute_ps, 340 * US);
                ASSERT_PS(ns.allocated_ps, expect_ps[b]);
                ck_assert_int_eq(ns.tasks, 17);
                /* root -> level-1 child -> leaf: three frames deep */
                ck_assert_int_eq(ns.depth_max, 3);
                double T = (double)expect_ps[b] * 1e-12;
                ASSERT_REL(MET(h, "jobs_completed"), 1.0);
                ASSERT_REL(MET(h, "job_time_mean_s"), T);
                ASSERT_REL(MET(h, "job_time_p99_s"), T);
                ASSERT_REL(MET(h, "service_time_mean_s"), T);
                ck_assert(MET(h, "queue_time_mean_s") == 0.0);
                ASSERT_REL(h.r.span_s, T);
                /* work / service = 340 / 343.264 (10 Gb/s) */
                ASSERT_REL(MET(h, "speedup"), 340e-6 / T);
                ASSERT_REL(MET(h, "speedup_incl_queue"), 340e-6 / T);
                /* one compute node: 340 us busy out of the span */
                ASSERT_REL(MET(h, "node_utilization"), 340e-6 / T);
                ASSERT_REL(MET(h, "sync_overhead"), 1.0 - 340e-6 / T);
                h_end(&h);
            }
}
END_TEST

/* ---- 2. one delegation and one release ---- */

/* z=[2] on N=3 at B = 8 Gb/s (1 B = 1 ns), t_i = 10 us, t_a = 4 us,
 * s_s = 1000 B, s_r = 2000 B, eps = 40 B. One-way latencies:
 * control c = 40 + 40 + 200 = 280 ns, delegation 1000 + 240 = 1240 ns,
 * result 2000 + 240 = 2240 ns. Arrival at A; root on node R, the other
 * compute node G:
 *   A         assignment sent to R (allocated)     arrives A+0.28
 *   A+10.28   R ends t_i(root), asks for 1 node     arrives A+10.56: G allocated
 *   A+10.84   grant [G] reaches R; R delegates the LAST child (vertex 2)
 *             to G (arrives A+12.08) and runs vertex 1 itself: 14 us
 *   A+12.08   G: t_i + t_a = 14 us -> A+26.08, result arrives A+28.32
 *   A+24.84   R done with vertex 1, waits
 *   A+28.32   result from G: no child pending -> release G (reaches the
 *             scheduler at A+28.60); R aggregates 4 us -> A+32.32
 *   A+32.60   job-complete received: job time 32.60 us.
 * Work 3 * 14 = 42 us; R computes 28 us, allocated A..A+32.60; G computes
 * 14 us, allocated A+10.56..A+28.60 = 18.04 us.
 * Messages: 5 control (200 B) + 1000 + 2000 = 3200 B
 *   = F_c = (L-1)(s_s+s_r+eps) + eps(2+2d) with L=2, d=1. */
START_TEST(test_one_delegation)
{
    uint32_t z[] = {2};
    for (int f = 0; f < 2; f++)
        for (int cf = 0; cf < 2; cf++)
            for (uint64_t seed = 1; seed <= 4; seed++) {
                tasktree_params *p = params_det(z, 1, 10e-6, 4e-6, 1000, 2000, 40, 1, 1e4);
                net_params np = th_star(3, 8e9);
                fabric_sets fs = sets_for(fabrics[f], cf, 0);
                harness h;
                h_start(&h, fabrics[f], fs.v, &np, p, seed, NULL, 0);
                h_run(&h);
                const tasktree_job_record *r = tasktree_job(h.r.ws, 0);
                ASSERT_PS(r->completed_ps - r->arrival_ps, 32600 * NS);
                ASSERT_PS(r->work_ps, 42 * US);
                uint32_t R = r->root_node, G = 3 - R;
                ck_assert(R == 1 || R == 2);
                tasktree_node_stats sr, sg;
                tasktree_node(h.r.ws, R, &sr);
                tasktree_node(h.r.ws, G, &sg);
                /* the granted node is the other one and got the delegation */
                ck_assert_int_eq(sr.roots, 1);
                ck_assert_int_eq(sr.delegations_in, 0);
                ck_assert_int_eq(sg.roots, 0);
                ck_assert_int_eq(sg.delegations_in, 1);
                ck_assert_int_eq(sr.tasks, 2);
                ck_assert_int_eq(sg.tasks, 1);
                ASSERT_PS(sr.compute_ps, 28 * US);
                ASSERT_PS(sg.compute_ps, 14 * US);
                ASSERT_PS(sr.allocated_ps, 32600 * NS);
                ASSERT_PS(sg.allocated_ps, 18040 * NS);
                ck_assert_int_eq(sent(&h, SCHED_ASSIGN), 1);
                ck_assert_int_eq(sent(&h, SCHED_ALLOC_REQ), 1);
                ck_assert_int_eq(sent(&h, SCHED_GRANT), 1);
                ck_assert_int_eq(sent(&h, SCHED_RELEASE), 1);
                ck_assert_int_eq(sent(&h, SCHED_JOB_DONE), 1);
                ck_assert_int_eq(sent(&h, SCHED_DELEGATE), 1);
                ck_assert_int_eq(sent(&h, SCHED_RESULT), 1);
                ck_assert_int_eq(h.r.n->c.delivered, 7);
                ck_assert_int_eq(h.r.n->c.bytes_delivered, 3200);
                ASSERT_REL(MET(h, "job_time_mean_s"), 32.6e-6);
                ASSERT_REL(MET(h, "speedup"), 42.0 / 32.6);
                /* 42 us of compute over 2 nodes * 32.6 us */
                ASSERT_REL(MET(h, "node_utilization"), 42.0 / (2 * 32.6));
                /* allocated 32.6 + 18.04 = 50.64 us */
                ASSERT_REL(MET(h, "sync_overhead"), 1.0 - 42.0 / 50.64);
                h_end(&h);
            }
}
END_TEST

/* Draw the job the workload will draw: same seed, same "jobs" stream, one
 * job per arrival (common random numbers). */
static void draw_job(tree *t, const tasktree_params *p, uint64_t seed)
{
    gsl_rng *r = rng_stream_new(seed, 0, "jobs");
    tree_generate(t, &p->tree, r);
    tree_sample_tasks(t, &p->task, r);
    gsl_rng_free(r);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* z=[3] on N=3 with random t_i, t_a per task: the root asks for 2 nodes,
 * gets 1 (G), delegates the LAST child v3 and runs v2, then v1:
 *   g  = 3c + ti0                 grant reaches R (c: control one-way)
 *   x1 = g + s + w3 + r           v3's result reaches R (w = t_i + t_a)
 *   e1 = g + w2                   R done with v2
 *   t1 = max(e1, x1)              the wait ends: with one child (v1)
 *                                 pending, G is released
 *   done = t1 + w1 + ta0 + c      v1 locally, aggregation, job-complete.
 * A reply that arrives while R computes waits for the wait to begin. */
START_TEST(test_children_from_end_k1)
{
    uint32_t z[] = {3};
    for (int f = 0; f < 2; f++)
        for (uint64_t seed = 11; seed <= 18; seed++) {
            tasktree_params *p = params_det(z, 1, 0, 0, 1000, 2000, 40, 1, 1e4);
            set(p, "workload.task.init-time=uniform(1us,20us)");
            set(p, "workload.task.aggregation-time=uniform(1us,20us)");
            tree t;
            tree_init(&t);
            draw_job(&t, p, seed);
            ck_assert_int_eq(t.n, 4);
            uint32_t v1 = tree_child(&t, 0, 0), v2 = tree_child(&t, 0, 1),
                     v3 = tree_child(&t, 0, 2);
            int64_t w1 = t.t_init_ps[v1] + t.t_agg_ps[v1];
            int64_t w2 = t.t_init_ps[v2] + t.t_agg_ps[v2];
            int64_t w3 = t.t_init_ps[v3] + t.t_agg_ps[v3];
            int64_t c = one_way_ps(40, 8e9), s = one_way_ps(1000, 8e9),
                    r = one_way_ps(2000, 8e9);
            ASSERT_PS(c, 280 * NS);
            int64_t g = 3 * c + t.t_init_ps[0];
            int64_t x1 = g + s + w3 + r, e1 = g + w2, t1 = max64(e1, x1);
            int64_t done = t1 + w1 + t.t_agg_ps[0] + c;

            net_params np = th_star(3, 8e9);
            harness h;
            h_start(&h, fabrics[f], NULL, &np, p, seed, NULL, 0);
            h_run(&h);
            const tasktree_job_record *rec = tasktree_job(h.r.ws, 0);
            ASSERT_PS(rec->completed_ps - rec->arrival_ps, done);
            ck_assert_int_eq(sent(&h, SCHED_DELEGATE), 1);
            ck_assert_int_eq(sent(&h, SCHED_RELEASE), 1);
            tasktree_node_stats sg;
            tasktree_node(h.r.ws, 3 - rec->root_node, &sg);
            /* G computed v3 only */
            ASSERT_PS(sg.compute_ps, w3);
            h_end(&h);
            tree_destroy(&t);
        }
}
END_TEST

/* z=[4] on N=3 with random task times: one delegate G, re-delegated once.
 *   g  = 3c + ti0;  v4 -> G;  R runs v3
 *   x1 = g + s + w4 + r,  e1 = g + w3,  t1 = max(e1, x1):
 *        two children pending (> 1): v2 -> G at t1; R runs v1
 *   x2 = t1 + s + w2 + r,  e2 = t1 + w1,  t2 = max(e2, x2):
 *        nothing pending: release G at t2
 *   done = t2 + ta0 + c. */
START_TEST(test_redelegation)
{
    uint32_t z[] = {4};
    for (int f = 0; f < 2; f++)
        for (int cf = 0; cf < 2; cf++)
            for (uint64_t seed = 21; seed <= 28; seed++) {
                tasktree_params *p = params_det(z, 1, 0, 0, 1000, 2000, 40, 1, 1e4);
                set(p, "workload.task.init-time=uniform(1us,20us)");
                set(p, "workload.task.aggregation-time=uniform(1us,20us)");
                tree t;
                tree_init(&t);
                draw_job(&t, p, seed);
                int64_t w[5];
                for (uint32_t i = 0; i < 4; i++) {
                    uint32_t v = tree_child(&t, 0, i);
                    w[i + 1] = t.t_init_ps[v] + t.t_agg_ps[v];
                }
                int64_t c = one_way_ps(40, 8e9), s = one_way_ps(1000, 8e9),
                        r = one_way_ps(2000, 8e9);
                int64_t g = 3 * c + t.t_init_ps[0];
                int64_t x1 = g + s + w[4] + r, e1 = g + w[3], t1 = max64(e1, x1);
                int64_t x2 = t1 + s + w[2] + r, e2 = t1 + w[1], t2 = max64(e2, x2);
                int64_t done = t2 + t.t_agg_ps[0] + c;

                net_params np = th_star(3, 8e9);
                fabric_sets fs = sets_for(fabrics[f], cf, 0);
                harness h;
                h_start(&h, fabrics[f], fs.v, &np, p, seed, NULL, 0);
                h_run(&h);
                const tasktree_job_record *rec = tasktree_job(h.r.ws, 0);
                ASSERT_PS(rec->completed_ps - rec->arrival_ps, done);
                ck_assert_int_eq(sent(&h, SCHED_DELEGATE), 2);
                ck_assert_int_eq(sent(&h, SCHED_RESULT), 2);
                ck_assert_int_eq(sent(&h, SCHED_RELEASE), 1);
                tasktree_node_stats sg;
                tasktree_node(h.r.ws, 3 - rec->root_node, &sg);
                ck_assert_int_eq(sg.delegations_in, 2);
                ASSERT_PS(sg.compute_ps, w[4] + w[2]);
                h_end(&h);
                tree_destroy(&t);
            }
}
END_TEST

/* ---- 3. jobs waiting in the scheduler's FIFO ---- */

/* N=2, z=[2], t_i = 10 us, t_a = 4 us, B = 8 Gb/s, eps = 40 B (c = 280 ns);
 * arrivals at 0, 1 and 2 us. One job alone on the node:
 *   assignment c, t_i 10, request + empty grant 2c, two children 2*14,
 *   t_a 4, job-complete c: 42 us + 4c = 43.12 us of service.
 * Job 0: assigned at 0, completes at 43.12 us.
 * Job 1: queued (the node is allocated; its request at 10.56 us gets an
 *   empty grant), assigned when job 0's job-complete arrives, 43.12 us:
 *   queue 42.12 us, completes 86.24 us, job time 85.24 us.
 * Job 2: assigned at 86.24 us (queue 84.24), completes 129.36 us
 *   (job time 127.36 us). The FIFO held 2 jobs at most.
 * Means: queue (0 + 42.12 + 84.24)/3 = 42.12 us, service 43.12 us,
 * job time (43.12 + 85.24 + 127.36)/3 = 85.24 us; p99 interpolates
 * between the 2nd and 3rd order statistics at 0.99*2 = 1.98:
 * 85.24 + 0.98 * 42.12 = 126.5176 us. Span 0..129.36 us; the node
 * computes 3 * 42 = 126 us. */
START_TEST(test_fifo)
{
    uint32_t z[] = {2};
    const int64_t arrivals[] = {0, 1 * US, 2 * US};
    for (int f = 0; f < 2; f++) {
        tasktree_params *p = params_det(z, 1, 10e-6, 4e-6, 1000, 2000, 40, 0, 0);
        net_params np = th_star(2, 8e9);
        harness h;
        h_start(&h, fabrics[f], NULL, &np, p, 3, arrivals, 3);
        h_run(&h);
        static const int64_t assigned[] = {0, 43120 * NS, 86240 * NS};
        static const int64_t completed[] = {43120 * NS, 86240 * NS, 129360 * NS};
        for (int i = 0; i < 3; i++) {
            const tasktree_job_record *r = tasktree_job(h.r.ws, (uint64_t)i);
            ASSERT_PS(r->arrival_ps, arrivals[i]);
            ASSERT_PS(r->assigned_ps, assigned[i]);
            ASSERT_PS(r->completed_ps, completed[i]);
        }
        uint64_t req, gr, fifo;
        tasktree_sched_counts(h.r.ws, &req, &gr, &fifo);
        ck_assert_int_eq(fifo, 2);
        ck_assert_int_eq(gr, 0);
        ASSERT_REL(MET(h, "jobs_completed"), 3.0);
        ASSERT_REL(MET(h, "queue_time_mean_s"), 42.12e-6);
        ASSERT_REL(MET(h, "service_time_mean_s"), 43.12e-6);
        ASSERT_REL(MET(h, "job_time_mean_s"), 85.24e-6);
        ASSERT_REL(MET(h, "job_time_p99_s"), 126.5176e-6);
        ASSERT_REL(h.r.span_s, 129.36e-6);
        ASSERT_REL(MET(h, "node_utilization"), 126.0 / 129.36);
        ASSERT_REL(MET(h, "speedup"), 126.0 / 129.36);
        ASSERT_REL(MET(h, "speedup_incl_queue"), 126.0 / (43.12 + 85.24 + 127.36));
        /* allocated without a break from 0 to 129.36 us */
        ASSERT_REL(MET(h, "sync_overhead"), 1.0 - 126.0 / 129.36);
        h_end(&h);
    }
}
END_TEST

/* ---- 4. z=[4,3] on N=4 and N=13 ---- */

/* Paper 4.1 / Fig. 7. On the ideal fabric every message takes its one-way
 * latency: c (40 B), s (20 kB), r (40 kB); t = 10 us.
 *
 * N=13: 12 compute nodes are exactly enough for every delegation (root,
 * 3 level-1 delegates, 4 x 2 leaf delegates). A level-1 task starting at
 * x: t_i, request/grant 2c, its two delegated leaves return at
 * x + t + 2c + s + 2t + r (after its local leaf, done at x + 3t + 2c), then
 * t_a: 4t + 2c + s + r. The root: c + t + 2c, then its three delegated
 * level-1 children return s + (4t+2c+s+r) + r after the grant (after its
 * local one), then t_a and job-complete c:
 *   T13 = 6c + 6t + 2(s + r).
 * N=4: 3 compute nodes. The root is granted 2 (k=2 < 3): v4, v3 delegated,
 * v2 local; each of these three finds no idle node (empty grant) and runs
 * its 3 leaves itself: 8t + 2c. The delegates' results arrive at
 * x1 = 3c + t + s + 8t + 2c + r; one child (v1) is pending so both are
 * released; v1 then runs locally, and its request (sent t later) finds
 * the two released nodes idle: it delegates 2 leaves, runs one: 4t + 2c +
 * s + r; root t_a and job-complete c:
 *   T4 = x1 + 5t + 3c + s + r = 8c + 14t + 2s + 2r.
 * 1 Gb/s: c = 320+240 = 560 ns, s = 160000+240 = 160240 ns,
 *   r = 320000+240 = 320240 ns: T13 = 1024.32 us, T4 = 1105.44 us.
 * 100 Gb/s: c = 3.2+240 = 243.2 ns, s = 1600+240 = 1840 ns,
 *   r = 3200+240 = 3440 ns: T13 = 72.0192 us, T4 = 152.5056 us.
 * Messages, N=13 (paper 3.4): 2(L-1) = 22 data, (L-1) + 2d + 2 = 23
 * control, F_c = 11 * 60040 + 40 * 12 = 660920 B.
 * N=4: control 1 + 5 requests + 5 grants + 4 releases + 1 = 16, data 4 + 4,
 * bytes 16 * 40 + 4 * 60000 = 240640. The counts hold on the switch too
 * (contention delays, but does not change who is idle when asked).
 * N=13 beats N=4 on the ideal fabric at both rates and on the switch at
 * 100 Gb/s, not on the switch at 1 Gb/s (derived after this test). */
START_TEST(test_z43_n4_n13)
{
    uint32_t z[] = {4, 3};
    static const double bw[] = {1e9, 100e9};
    static const int64_t t13[] = {1024320 * NS, 72019200}; /* ps */
    static const int64_t t4[] = {1105440 * NS, 152505600};
    for (int b = 0; b < 2; b++) {
        int64_t got[2][2]; /* [fabric][N=4, N=13] */
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < 2; k++) {
                uint32_t N = k == 0 ? 4 : 13;
                tasktree_params *p = params_det(z, 2, 10e-6, 10e-6, 20e3, 40e3, 40, 1, 1e3);
                net_params np = th_star(N, bw[b]);
                harness h;
                h_start(&h, fabrics[f], NULL, &np, p, 5, NULL, 0);
                h_run(&h);
                const tasktree_job_record *r = tasktree_job(h.r.ws, 0);
                got[f][k] = r->completed_ps - r->arrival_ps;
                uint64_t control = sent(&h, SCHED_ASSIGN) + sent(&h, SCHED_ALLOC_REQ) +
                                   sent(&h, SCHED_GRANT) + sent(&h, SCHED_RELEASE) +
                                   sent(&h, SCHED_JOB_DONE);
                uint64_t data = sent(&h, SCHED_DELEGATE) + sent(&h, SCHED_RESULT);
                if (N == 13) {
                    ck_assert_int_eq(data, 22);
                    ck_assert_int_eq(control, 23);
                    ck_assert_int_eq(sent(&h, SCHED_RELEASE), 11);
                    ck_assert_int_eq(h.r.n->c.bytes_delivered, 660920);
                } else {
                    ck_assert_int_eq(data, 8);
                    ck_assert_int_eq(control, 16);
                    ck_assert_int_eq(sent(&h, SCHED_RELEASE), 4);
                    ck_assert_int_eq(h.r.n->c.bytes_delivered, 240640);
                }
                ck_assert_int_eq(h.r.n->c.delivered, data + control);
                h_end(&h);
            }
        ASSERT_PS(got[0][0], t4[b]);
        ASSERT_PS(got[0][1], t13[b]);
        /* Contention only delays: the switch is never faster than ideal. */
        ck_assert_int_ge(got[1][0], t4[b]);
        ck_assert_int_ge(got[1][1], t13[b]);
        if (b == 0) {
            /* 1 Gb/s on the switch: derived in the comment after this test. */
            ASSERT_PS(got[1][0], 1745760 * NS);
            ASSERT_PS(got[1][1], 2283840 * NS);
        } else {
            /* 100 Gb/s: the full delegation pays off (paper Fig. 6a/7). */
            ck_assert_int_lt(got[1][1], got[1][0]);
        }
    }
}
END_TEST

/* The switch at 1 Gb/s (cut-through, one FIFO class, link 20 ns, switch
 * 200 ns), z=[4,3] as above, times in us from the arrival. A control
 * message takes 0.32 on a wire (0.56 one way alone), 20 kB 160, 40 kB 320.
 * A message whose first bit leaves its source at t0 starts on the output
 * port at max(t0 + 0.22, port free) and arrives 0.02 after its last bit
 * left the port; each source sends one message after another.
 *
 * N=4 (R root, G1 G2 granted, H1 H2 = the same two nodes later):
 *  11.68  grant [G1,G2] reaches R (0.56 + 10 + 2*0.56); R sends v4->G1
 *         (wire 11.68..171.68, arrives 171.92), v3->G2 (171.68..331.68,
 *         arrives 331.92), runs v2.
 *  21.68  v2's request queues behind them on R's wire: leaves 331.68,
 *         reaches the scheduler 332.24 (no idle node), empty grant sent.
 *  G1: 171.92 + 10 + 1.12 (empty grant) + 60 + 10 = 253.04 result sent,
 *         on R's port 253.26..573.26, arrives 573.28.
 *  The grant (head at R's port 332.46) waits for it: 573.26..573.58,
 *         arrives 573.60. v2 runs its 3 leaves and aggregates: 643.60.
 *  G2 (160 later): result head 413.26, after the grant: 573.58..893.58,
 *         arrives 893.60.
 *  643.60 round 1 begins with G1's deferred reply: one child (v1) pending,
 *         release G1. 893.60 G2's reply: release G2; v1 starts.
 *  903.60 v1's request, 904.16 granted [H1,H2] (both idle again), grant at
 *         904.72; c3->H1 wire 904.72..1064.72 (arrives 1064.96), c2->H2
 *         1064.72..1224.72 (arrives 1224.96); c1 locally till 924.72.
 *  H1 result 1084.96, port 1085.18..1405.18, arrives 1405.20; H2 result
 *         1244.96, port after it 1405.18..1725.18, arrives 1725.20.
 *  v1 aggregates till 1735.20, root till 1745.20, job-complete 1745.76.
 *
 * N=13 (R root; X_a X_b X_c get v4 v3 v2; v1 local on R):
 *  R's wire: v4 11.68..171.68, v3 ..331.68, v2 ..491.68 (arrive 171.92,
 *         331.92, 491.92). v1's request waits for them: leaves 491.68,
 *         granted 492.24, grant at R 492.80; v1's leaves leave R at
 *         492.80 and 652.80 (arrive 653.04, 813.04); local leaf till 512.80.
 *  X_a: 171.92 + 10 + 1.12 = 183.04 delegates its leaves (wire ..343.04,
 *         ..503.04; arrive 343.28, 503.28), local leaf; results 363.28 and
 *         523.28 queue on X_a's port: arrive 683.52 and 1003.52; t_a:
 *         result sent 1013.52. X_b, X_c: the same 160 and 320 later
 *         (1173.52, 1333.52): nothing they use is shared before R's port.
 *  R's port, FIFO by head arrival: v1's leaves' results (heads 673.26,
 *         833.26) 673.26..993.26, ..1313.26; then X_a's (head 1013.74)
 *         ..1633.26, X_b's ..1953.26, X_c's ..2273.26 (arrive +0.02).
 *  v1: replies 993.28, 1313.28 (released), t_a till 1323.28. Root: the
 *         three replies 1633.28, 1953.28, 2273.28, all released; t_a till
 *         2283.28; job-complete 2283.84.
 * At 1 Gb/s the fan-in of 40 kB results on one port dominates: N=13 is
 * slower than N=4 (the paper's low-B "counter-productive" regime). */

/* ---- 5. invariants over random configurations ---- */

typedef struct rnd_cfg {
    const char *fabric;
    uint32_t nodes;
    double bps;
    int control_first;
    int store_forward;
    double shape;
    double load; /* offered computing load rho_x */
    uint64_t jobs;
} rnd_cfg;

static tasktree_params *params_random(const rnd_cfg *c)
{
    tasktree_params *p = params_det(NULL, 0, 0, 0, 0, 0, 40, c->jobs, 1);
    p->tree.gen = TREE_PREFERENTIAL;
    p->tree.shape = c->shape;
    set(p, "workload.tree.vertices=uniform-int(1,14)");
    set(p, "workload.task.init-time=uniform(1us,20us)");
    set(p, "workload.task.aggregation-time=exponential(5us)");
    set(p, "workload.task.send-size=uniform(100B,20kB)");
    set(p, "workload.task.result-size=uniform(100B,40kB)");
    /* beta = rho_x (N-1) / F_x with F_x = E[n] (E[t_i] + E[t_a]) = 7.5 * 15.5 us */
    p->arrival_rate_per_s = c->load * (c->nodes - 1) / (7.5 * 15.5e-6);
    return p;
}

/* What the random configurations exercised, summed over runs. */
typedef struct coverage {
    uint64_t queued;      /* runs where jobs waited in the FIFO */
    uint64_t short_grant; /* runs where a grant gave fewer nodes than asked */
    uint64_t redelegated; /* runs with more delegations than granted nodes */
    uint64_t full;        /* runs where every request was fully granted */
} coverage;

#define RUN_VEC 64 /* room for what run_random measures */

/* cache: the workload's cache slot (NULL: none) */
static void run_random_cached(const rnd_cfg *c, uint64_t seed, double *m_out, coverage *cov, void **cache)
{
    tasktree_params *p = params_random(c);
    net_params np = th_star(c->nodes, c->bps);
    fabric_sets fs = sets_for(c->fabric, c->control_first, c->store_forward);
    harness h;
    h_start_full(&h, c->fabric, fs.v, &np, p, seed, NULL, 0, NULL, cache);
    h_run(&h);
    char err[256];
    ck_assert_msg(tasktree_check_invariants(h.r.ws, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(tasktree_jobs_arrived(h.r.ws), c->jobs);
    ASSERT_REL(MET(h, "jobs_completed"), (double)c->jobs);
    /* every message delivered once, bytes conserved */
    ck_assert_int_eq(h.r.n->c.sent, h.r.n->c.delivered);
    ck_assert_int_eq(h.r.n->c.bytes_sent, h.r.n->c.bytes_delivered);
    /* protocol bookkeeping: one grant per request, one result per
     * delegation, one release per granted node, one job-complete per
     * assignment, one assignment per job */
    ck_assert_int_eq(sent(&h, SCHED_GRANT), sent(&h, SCHED_ALLOC_REQ));
    ck_assert_int_eq(sent(&h, SCHED_RESULT), sent(&h, SCHED_DELEGATE));
    ck_assert_int_eq(sent(&h, SCHED_ASSIGN), c->jobs);
    ck_assert_int_eq(sent(&h, SCHED_JOB_DONE), c->jobs);
    uint64_t req, gr, fifo;
    tasktree_sched_counts(h.r.ws, &req, &gr, &fifo);
    ck_assert_int_le(gr, req);
    ck_assert_int_eq(sent(&h, SCHED_RELEASE), gr);
    ck_assert_int_ge(sent(&h, SCHED_DELEGATE), gr); /* each granted node gets >= 1 */
    cov->queued += fifo > 0;
    cov->short_grant += gr < req;
    cov->redelegated += sent(&h, SCHED_DELEGATE) > gr;
    cov->full += gr == req && req > 0;
    int64_t work = 0, compute = 0;
    for (uint64_t i = 0; i < c->jobs; i++) {
        const tasktree_job_record *r = tasktree_job(h.r.ws, i);
        ck_assert_int_ge(r->assigned_ps, r->arrival_ps);
        /* at least assignment + job-complete, each at least the fixed latency */
        ck_assert_int_ge(r->completed_ps - r->assigned_ps, r->work_ps / c->nodes);
        ck_assert_int_gt(r->completed_ps - r->assigned_ps, 2 * (2 * LINK_PS + SWITCH_PS));
        if (i > 0)
            ck_assert_int_ge(r->arrival_ps, tasktree_job(h.r.ws, i - 1)->arrival_ps);
        work += r->work_ps;
    }
    for (uint32_t k = 1; k < c->nodes; k++) {
        tasktree_node_stats ns;
        tasktree_node(h.r.ws, k, &ns);
        ck_assert_int_ge(ns.allocated_ps, ns.compute_ps);
        ck_assert_int_eq(ns.allocated, 0);
        compute += ns.compute_ps;
    }
    ck_assert_int_eq(compute, work);
    ck_assert(MET(h, "node_utilization") > 0 && MET(h, "node_utilization") <= 1.0);
    ck_assert(MET(h, "sync_overhead") >= 0 && MET(h, "sync_overhead") < 1.0);
    /* what the run measured: the workload's metrics (NAN where it leaves
     * one unmeasured, e.g. energy without a physical layer: the same bits
     * in both runs), its span, the events, and the fabric's counts */
    size_t k = 0;
    for (size_t i = 0; i < h.r.w->nmetrics; i++)
        m_out[k++] = h.r.m[i];
    m_out[k++] = h.r.span_s;
    m_out[k++] = (double)h.events;
    m_out[k++] = (double)h.r.n->c.delivered;
    m_out[k++] = (double)h.r.n->c.bytes_delivered;
    ck_assert_uint_le(k, RUN_VEC);
    while (k < RUN_VEC)
        m_out[k++] = 0;
    h_end(&h);
}

static void run_random(const rnd_cfg *c, uint64_t seed, double *m_out, coverage *cov)
{
    run_random_cached(c, seed, m_out, cov, NULL);
}

START_TEST(test_random_invariants)
{
    gsl_rng *r = rng_stream_new(2024, 0, "check_sched");
    static const double bws[] = {1e9, 10e9, 100e9};
    static const double shapes[] = {0.5, 1.0, 2.0};
    static const double loads[] = {0.05, 0.3, 0.8, 1.5, 4.0};
    coverage cov = {0};
    for (int i = 0; i < 30; i++) {
        rnd_cfg c = {
            .fabric = fabrics[i % 2],
            .nodes = 2 + (uint32_t)gsl_rng_uniform_int(r, 39),
            .bps = bws[gsl_rng_uniform_int(r, 3)],
            .control_first = (int)gsl_rng_uniform_int(r, 2),
            .store_forward = (int)gsl_rng_uniform_int(r, 2),
            .shape = shapes[gsl_rng_uniform_int(r, 3)],
            .load = loads[i % 5],
            .jobs = 20 + gsl_rng_uniform_int(r, 40),
        };
        uint64_t seed = 100 + (uint64_t)i;
        double m1[RUN_VEC], m2[RUN_VEC];
        run_random(&c, seed, m1, &cov);
        run_random(&c, seed, m2, &cov);
        /* same seed, same configuration: bit-identical metrics */
        ck_assert_msg(memcmp(m1, m2, sizeof m1) == 0, "config %d is not reproducible", i);
    }
    gsl_rng_free(r);
    /* the configurations reach every regime of the scheduler */
    ck_assert_uint_gt(cov.queued, 0);
    ck_assert_uint_gt(cov.short_grant, 0);
    ck_assert_uint_gt(cov.redelegated, 0);
    ck_assert_uint_gt(cov.full, 0);
}
END_TEST

/* The same seed gives the same jobs on every fabric: the arrival times and
 * the work of each job do not depend on the network. */
START_TEST(test_common_random_numbers)
{
    rnd_cfg c = {.nodes = 9, .bps = 10e9, .shape = 1.0, .load = 0.7, .jobs = 40};
    int64_t arr[2][40], work[2][40];
    for (int f = 0; f < 2; f++) {
        c.fabric = fabrics[f];
        tasktree_params *p = params_random(&c);
        net_params np = th_star(c.nodes, f == 0 ? 10e9 : 1e9);
        harness h;
        h_start(&h, c.fabric, NULL, &np, p, 77, NULL, 0);
        h_run(&h);
        for (int i = 0; i < 40; i++) {
            arr[f][i] = tasktree_job(h.r.ws, (uint64_t)i)->arrival_ps;
            work[f][i] = tasktree_job(h.r.ws, (uint64_t)i)->work_ps;
        }
        h_end(&h);
    }
    for (int i = 0; i < 40; i++) {
        ASSERT_PS(arr[1][i], arr[0][i]);
        ASSERT_PS(work[1][i], work[0][i]);
    }
}
END_TEST

/* The jobs of a (seed, replica) drawn once per process (wl_env.cache):
 * runs with the cache measure exactly what runs without it do, whatever
 * the order of the runs: a later run asking for more jobs than the list
 * holds draws them onto it (the rest of the same stream), a run asking
 * for fewer takes a prefix, another load or fabric reuses the list, and
 * another seed or replica has its own. */
START_TEST(test_job_cache)
{
    static const rnd_cfg cfgs[] = {
        {.fabric = "electrical-switch", .nodes = 12, .bps = 10e9, .shape = 1.0, .load = 0.5, .jobs = 30},
        {.fabric = "electrical-switch", .nodes = 12, .bps = 10e9, .shape = 1.0, .load = 0.5, .jobs = 70},
        {.fabric = "electrical-switch", .nodes = 7, .bps = 1e9, .shape = 1.0, .load = 1.5, .jobs = 20},
        {.fabric = "ideal", .nodes = 16, .bps = 40e9, .shape = 1.0, .load = 0.3, .jobs = 70},
        {.fabric = "electrical-switch", .nodes = 12, .bps = 10e9, .shape = 2.0, .load = 0.5, .jobs = 40},
    };
    static const uint64_t seeds[] = {5, 6};
    void *cache = NULL;
    coverage cov = {0};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
            for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
                double plain[RUN_VEC], cached[RUN_VEC];
                run_random(&cfgs[i], seeds[k], plain, &cov);
                run_random_cached(&cfgs[i], seeds[k], cached, &cov, &cache);
                ck_assert_msg(memcmp(plain, cached, sizeof plain) == 0, "pass %d config %zu seed %llu: the cached "
                              "run differs", pass, i, (unsigned long long)seeds[k]);
            }
    ck_assert_ptr_nonnull(cache);
    wl_task_tree_ops.free_cache(cache);
}
END_TEST

/* Fig9-like jobs (preferential s=1, n uniform-int(25,175)) at a load
 * that saturates 30 nodes: deep local stacks, long FIFOs, every regime at
 * once; the invariants and the exact bookkeeping must still hold. */
START_TEST(test_large_trees)
{
    for (int f = 0; f < 2; f++) {
        rnd_cfg c = {.fabric = fabrics[f], .nodes = 30, .bps = 10e9, .control_first = f,
                     .shape = 1.0, .load = 0.9, .jobs = 60};
        tasktree_params *p = params_random(&c);
        set(p, "workload.tree.vertices=uniform-int(25,175)");
        set(p, "workload.task.init-time=uniform(2us,100us)");
        set(p, "workload.task.aggregation-time=uniform(2us,100us)");
        set(p, "workload.task.send-size=uniform(2kB,128kB)");
        set(p, "workload.task.result-size=uniform(2kB,128kB)");
        p->arrival_rate_per_s = 5000;
        net_params np = th_star(c.nodes, c.bps);
        fabric_sets fs = sets_for(c.fabric, c.control_first, 0);
        harness h;
        h_start(&h, c.fabric, fs.v, &np, p, 99, NULL, 0);
        h_run(&h);
        char err[256];
        ck_assert_msg(tasktree_check_invariants(h.r.ws, err, sizeof err) == 0, "%s", err);
        ASSERT_REL(MET(h, "jobs_completed"), 60.0);
        uint64_t req, gr, fifo;
        tasktree_sched_counts(h.r.ws, &req, &gr, &fifo);
        ck_assert_int_eq(sent(&h, SCHED_RELEASE), gr);
        ck_assert_int_eq(sent(&h, SCHED_RESULT), sent(&h, SCHED_DELEGATE));
        h_end(&h);
    }
}
END_TEST

/* The timeline of test_one_delegation: 3 tasks -> 6 compute slices (init
 * and aggregation each), 7 messages, and two waits: R's grant (10.28 ->
 * 10.84 us) and R's wait for G's result (24.84 -> 28.32 us). */
START_TEST(test_trace_counts)
{
    uint32_t z[] = {2};
    tasktree_params *p = params_det(z, 1, 10e-6, 4e-6, 1000, 2000, 40, 0, 0);
    net_params np = th_star(3, 8e9);
    char err[256];
    const char *path = "check_sched_trace.json";
    trace *tr = trace_open(path, 3, NULL, err, sizeof err);
    ck_assert_msg(tr != NULL, "%s", err);
    const int64_t arrivals[] = {0};
    harness h;
    h_start_traced(&h, "electrical-switch", NULL, &np, p, 1, arrivals, 1, tr);
    h_run(&h);
    ck_assert_int_eq(trace_slices(tr, "compute"), 6);
    ck_assert_int_eq(trace_slices(tr, "wait"), 2);
    ck_assert_int_eq(trace_messages(tr), 7);
    ck_assert_int_eq(trace_close(tr, err, sizeof err), 0);
    remove(path);
    h_end(&h);
}
END_TEST

/* Misconfigurations are reported, not aborted on. */
START_TEST(test_bad_params)
{
    uint32_t z[] = {2};
    tasktree_params *p = params_det(z, 1, 10e-6, 10e-6, 1000, 1000, 40, 5, 0); /* rate 0 */
    net_params np = th_star(3, 10e9);
    /* init itself, on a fabric alone (th_run_open would resolve first) */
    th_net *fab = th_net_new("ideal", &np, NULL, NULL, 1, 0);
    char err[256];
    void *w = calloc(1, wl_task_tree_ops.state_size);
    wl_env env = {.sim = fab->s, .net = fab->n, .nodes = 3, .bandwidth_bps = 10e9, .seed = 1, .params = p};
    ck_assert_int_eq(wl_task_tree_ops.init(w, &env, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "arrival rate"));
    wl_task_tree_ops.fini(w); /* harmless after a failed init */
    env.nodes = 1;
    p->arrival_rate_per_s = 100;
    ck_assert_int_eq(wl_task_tree_ops.init(w, &env, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "at least 2 nodes"));
    ck_assert_int_eq(sim_pending(fab->s), 0); /* nothing scheduled */
    free(w);
    th_net_free(fab);
    /* and the whole set-up refuses the rate 0 already in the workload's
     * resolve (5 jobs at 0/s would span for ever) */
    p->arrival_rate_per_s = 0;
    th_run r = {0};
    ck_assert_int_eq(th_run_open(&r, "ideal", &np, NULL, "task-tree", p, 1, 0), -1);
    ck_assert_msg(strstr(r.err, "arrival rate") != NULL, "%s", r.err);
    th_run_close(&r); /* frees p */
}
END_TEST

/* finish refuses a run that did not complete its jobs. */
START_TEST(test_finish_detects_incomplete)
{
    uint32_t z[] = {2};
    tasktree_params *p = params_det(z, 1, 10e-6, 4e-6, 1000, 2000, 40, 0, 0);
    net_params np = th_star(3, 8e9);
    const int64_t arrivals[] = {0};
    harness h;
    h_start(&h, "ideal", NULL, &np, p, 1, arrivals, 1);
    /* stop half-way: the job (32.60 us, see test_one_delegation) runs */
    sim_run(h.r.s, 20 * US);
    ck_assert_int_eq(th_run_finish(&h.r), -1);
    ck_assert_msg(strstr(h.r.err, "never completed") != NULL, "%s", h.r.err);
    /* finish the run so everything is returned to its pool */
    sim_run(h.r.s, SIM_TIME_MAX);
    ck_assert_msg(th_run_finish(&h.r) == 0, "%s", h.r.err);
    h_end(&h);
}
END_TEST

static Suite *sched_suite(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_single_node_z43);
    tcase_add_test(tc, test_one_delegation);
    tcase_add_test(tc, test_children_from_end_k1);
    tcase_add_test(tc, test_redelegation);
    tcase_add_test(tc, test_fifo);
    tcase_add_test(tc, test_z43_n4_n13);
    tcase_add_test(tc, test_random_invariants);
    tcase_add_test(tc, test_common_random_numbers);
    tcase_add_test(tc, test_job_cache);
    tcase_add_test(tc, test_large_trees);
    tcase_add_test(tc, test_trace_counts);
    tcase_add_test(tc, test_bad_params);
    tcase_add_test(tc, test_finish_detects_incomplete);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(sched_suite)
