/* dc-flows and training sharing a fabric (issue 12's invariants on random
 * mixes): every flow and every allreduce completes and bytes are conserved
 * whatever the host policy, classes and sizes; a workload's results are
 * unchanged by the other's parameters and random draws when they share no
 * node and no queue; a background dc-flows stops when the training ends.
 * The base configuration is tests/fixtures/good/train_and_flows.xml:
 * training on nodes 0-3, web-server flows on nodes 4-7. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "config.h"
#include "run.h"
#include "harness.h"

static void load(cfg *c)
{
    const char *s = getenv("top_srcdir");
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/fixtures/good/train_and_flows.xml", s && *s ? s : "..");
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_msg(cfg_load(c, p, &e) == 0, "%s", e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
}

static void set(cfg *c, const char *path, const char *v)
{
    char err[512];
    ck_assert_msg(cfg_set(c, path, v, err, sizeof err) == 0, "%s=%s: %s", path, v, err);
}

static void run(const cfg *c, run_layout *l, double **m)
{
    cfg pc;
    char err[1024];
    ck_assert_msg(cfg_point(c, 0, &pc, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(run_resolve(&pc, NULL, NULL, err, sizeof err) == 0, "%s", err);
    run_layout_init(l, c);
    *m = calloc(l->n, sizeof **m);
    ck_assert_msg(run_one(&pc, l, 0, NULL, *m, NULL, err, sizeof err) == 0, "%s", err);
    cfg_free(&pc);
}

static double metric(const run_layout *l, const double *m, const char *name)
{
    long k = run_layout_find(l, name);
    ck_assert_msg(k >= 0, "no column %s", name);
    return m[k];
}

/* Disjoint nodes: on the ideal fabric nothing queues, and on the switch
 * (sources and output ports per node, in whole messages or in packets)
 * the two workloads meet in no queue: the training's every metric is the
 * same whatever the flows do, and the flows' whatever the training does. */
START_TEST(test_isolation)
{
    static const char *const fabrics[] = {"ideal", "electrical-switch", "electrical-switch"};
    for (size_t f = 0; f < 3; f++)
        for (int who = 0; who < 2; who++) {
            const char *mine = who ? "bg." : "train.";
            double *ref = NULL;
            run_layout lref;
            for (int v = 0; v < 3; v++) {
                cfg c;
                load(&c);
                set(&c, "network.type", fabrics[f]);
                if (f == 2) {
                    set(&c, "network.mtu", "1500B");
                    set(&c, "network.host-scheduling", "round-robin");
                }
                if (who == 0 && v > 0) { /* the flows change */
                    set(&c, "workload.bg.load", v == 1 ? "0.6" : "0.1");
                    set(&c, "workload.bg.sizes", v == 1 ? "websearch" : "uniform(1kB,2MB)");
                    set(&c, "workload.bg.destinations", v == 1 ? "gaussian" : "poisson");
                }
                if (who == 1 && v > 0) { /* the training changes */
                    set(&c, "workload.train.queue", "priority");
                    set(&c, "workload.train.compute-time", v == 1 ? "100us" : "7ms");
                    set(&c, "workload.train.model-size", v == 1 ? "20MB" : "1MB");
                }
                run_layout l;
                double *m;
                run(&c, &l, &m);
                if (!ref) {
                    ref = m;
                    lref = l;
                } else {
                    size_t same = 0;
                    for (size_t i = 0; i < l.n; i++)
                        if (strncmp(l.col[i].name, mine, strlen(mine)) == 0) {
                            double a = metric(&lref, ref, l.col[i].name), b = m[i];
                            ck_assert_msg(a == b || (isnan(a) && isnan(b)), "%s: %s %.17g, %.17g alone", fabrics[f],
                                          l.col[i].name, b, a);
                            same++;
                        }
                    ck_assert_uint_gt(same, 5);
                    free(m);
                    run_layout_free(&l);
                }
                cfg_free(&c);
            }
            free(ref);
            run_layout_free(&lref);
        }
}
END_TEST

/* Random mixes on shared nodes: both workloads on all 8 nodes, random host
 * policy, packet size, classes (the training at the flows' class or below),
 * sizes and loads, on the switch and the ideal fabric: every run completes
 * its invariants (each workload's finish checks that every flow arrived
 * exactly once and every allreduce of every iteration completed), and the
 * fabric delivered every message and byte it took. */
START_TEST(test_random_mixes)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 42);
    static const char *const pol[] = {"fifo", "round-robin", "priority", "srpt"};
    static const char *const sizes[] = {"websearch", "fb-hadoop", "google-allrpc", "uniform(1kB,1MB)"};
    for (int k = 0; k < 16; k++) {
        cfg c;
        load(&c);
        char b[64];
        set(&c, "workload.train.nodes", "all");
        set(&c, "workload.bg.nodes", "all");
        set(&c, "workload.train.exclusive", "no");
        snprintf(b, sizeof b, "%u", 2 + (unsigned)gsl_rng_uniform_int(g, 7));
        set(&c, "workload.train.workers", b);
        int ideal = k % 4 == 3;
        set(&c, "network.type", ideal ? "ideal" : "electrical-switch");
        if (ideal)
            set(&c, "network.host-link", "shared");
        set(&c, "network.host-scheduling", pol[gsl_rng_uniform_int(g, 4)]);
        set(&c, "network.mtu", gsl_rng_uniform_int(g, 2) ? "1500B" : "64kB");
        if (!ideal && gsl_rng_uniform_int(g, 2))
            set(&c, "network.priority", "strict");
        snprintf(b, sizeof b, "%lu", gsl_rng_uniform_int(g, 3));
        set(&c, "workload.train.priority", b);
        set(&c, "workload.bg.priority", "0");
        set(&c, "workload.bg.sizes", sizes[gsl_rng_uniform_int(g, 4)]);
        snprintf(b, sizeof b, "%g", 0.05 + 0.5 * gsl_rng_uniform(g));
        set(&c, "workload.bg.load", b);
        set(&c, "workload.train.queue", gsl_rng_uniform_int(g, 2) ? "priority" : "fifo");
        set(&c, "workload.train.barrier", gsl_rng_uniform_int(g, 2) ? "off" : "on");
        run_layout l;
        double *m;
        run(&c, &l, &m);
        ck_assert_double_eq(metric(&l, m, "messages_delivered"), metric(&l, m, "messages_sent"));
        ck_assert_double_eq(metric(&l, m, "train.allreduces"),
                            metric(&l, m, "train.iterations_completed") * metric(&l, m, "train.fusions"));
        ck_assert_double_eq(metric(&l, m, "train.iterations_completed"), 3);
        ck_assert_double_gt(metric(&l, m, "bg.flows_generated"), 0);
        free(m);
        run_layout_free(&l);
        cfg_free(&c);
    }
    gsl_rng_free(g);
}
END_TEST

/* The flows as a background workload with a 1-s duration: they stop when
 * the training's 3 iterations end (a few ms), so the run spans milliseconds
 * and the flows generated are those of that time, not of a second. */
START_TEST(test_background_stops)
{
    cfg c;
    load(&c);
    set(&c, "workload.bg.role", "background");
    set(&c, "workload.bg.duration", "1s");
    run_layout l;
    double *m;
    run(&c, &l, &m);
    double span = metric(&l, m, "span_s");
    ck_assert_msg(span > 1e-3 && span < 0.1, "span %g s", span);
    /* 4 nodes x 0.3 x 10 Gb/s / (8 x 62 874 B) = 23 854 flows/s: a second's
     * worth would be 23 854 */
    ck_assert_double_lt(metric(&l, m, "bg.flows_generated"), 23854 * 0.1);
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

/* A foreground dc-flows of 4 flows and a background task-tree of 1000 jobs
 * at 2000/s (0.5 s) on the ideal fabric (tests/fixtures/good/
 * flows_then_jobs.xml). Once the 4th flow is generated the other nodes'
 * arrivals already drawn send nothing; the flows have finished with the
 * 4th delivery (0.28 ms here, fb-webserver flows of 62 874 B on average at
 * 10 Gb/s take 50 us each). The jobs stop then: those in progress complete
 * (a job takes tens of us), no other arrives, so the run spans well under
 * 10 ms, not the 0.5 s of 1000 jobs. */
START_TEST(test_background_stops_flow_count)
{
    const char *s = getenv("top_srcdir");
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/fixtures/good/flows_then_jobs.xml", s && *s ? s : "..");
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_msg(cfg_load(&c, p, &e) == 0, "%s", e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
    run_layout l;
    double *m;
    run(&c, &l, &m);
    ck_assert_double_eq(metric(&l, m, "flows.flows_generated"), 4);
    double span = metric(&l, m, "span_s");
    ck_assert_msg(span < 10e-3, "span %g s", span);
    ck_assert_double_lt(metric(&l, m, "jobs.jobs_completed"), 20);
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

static void load_path(cfg *c, const char *name)
{
    const char *s = getenv("top_srcdir");
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/fixtures/good/%s", s && *s ? s : "..", name);
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_msg(cfg_load(c, p, &e) == 0, "%s", e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
}

/* The flows of window_flows_alone.xml (the background "bg" alone, named the
 * same, so drawn from the same streams: the same flows) with warmup w and
 * duration d in ps: generation stops at the first arrival at or after d,
 * and the flows arriving in [w, d) are measured (the dc-flows model, not
 * measure="window"). Generated and measured counts into *gen, *meas. */
static void alone_counts(int64_t w_ps, int64_t d_ps, double *gen, double *meas)
{
    cfg c;
    load_path(&c, "window_flows_alone.xml");
    char v[64];
    snprintf(v, sizeof v, "%lldps", (long long)w_ps);
    set(&c, "workload.bg.warmup", v);
    snprintf(v, sizeof v, "%lldps", (long long)d_ps);
    set(&c, "workload.bg.duration", v);
    run_layout l;
    double *m;
    run(&c, &l, &m);
    *gen = metric(&l, m, "bg.flows_generated");
    *meas = metric(&l, m, "bg.flows_measured");
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}

/* measure="window" (issue 23): a background dc-flows counts the flows that
 * arrive in the foreground's window [F0, F1) (first foreground activity,
 * foreground's end), reported as bg.window_start_s and bg.window_end_s.
 * Derived independently by running the same flows alone (same name, same
 * streams) with warmup F0 and duration F1: the flows generated before F1
 * are the ones the background generated before it was stopped at F1, and
 * the ones measured in [F0, F1) the ones measure="window" counted, so the
 * runs with and without the foreground count the same flows.
 * - Under training (window_flows.xml) F0 = 0: the first iteration computes
 *   from t = 0 (wl_training: span from iter_start[0] = 0).
 * - Under task-tree jobs at 100/s (window_flows_jobs.xml) F0 is the first
 *   job's arrival, one exponential gap after 0 (5.04 ms with seed 7): the
 *   flows before it are generated and not counted, i.e. measured =
 *   generated before F1 - generated before F0 (the alone run with duration
 *   F0), fewer than generated; with measure="all" every flow counts.
 * - "window" on a foreground workload, or on a workload that does not
 *   measure a window, is refused. */
START_TEST(test_measure_window)
{
    static const char *const fixtures[] = {"window_flows.xml", "window_flows_jobs.xml"};
    for (int f = 0; f < 2; f++) {
        cfg c;
        load_path(&c, fixtures[f]);
        run_layout l;
        double *m;
        run(&c, &l, &m);
        double f0 = metric(&l, m, "bg.window_start_s"), f1 = metric(&l, m, "bg.window_end_s");
        double gen = metric(&l, m, "bg.flows_generated"), meas = metric(&l, m, "bg.flows_measured");
        int64_t f0_ps = llround(f0 * 1e12), f1_ps = llround(f1 * 1e12);
        if (f == 0)
            ck_assert_double_eq(f0, 0);
        else
            ck_assert_msg(f0 > 1e-3 && f0 < f1, "F0 %g s, F1 %g s", f0, f1);
        double agen, ameas, pgen, pmeas;
        alone_counts(f0_ps, f1_ps, &agen, &ameas);
        ck_assert_msg(agen == gen && ameas == meas, "%s: with the foreground %g generated, %g measured; alone in "
                      "[%g s, %g s) %g, %g", fixtures[f], gen, meas, f0, f1, agen, ameas);
        ck_assert_double_gt(meas, 10);
        if (f == 1) {
            alone_counts(0, f0_ps, &pgen, &pmeas); /* the flows before F0 */
            ck_assert_double_gt(pgen, 0);
            ck_assert_double_eq(meas, gen - pgen);
            /* measure="all" counts them all */
            set(&c, "workload.bg.measure", "all");
            double *m2;
            run_layout l2;
            run(&c, &l2, &m2);
            ck_assert_double_eq(metric(&l2, m2, "bg.flows_measured"), gen);
            ck_assert(isnan(metric(&l2, m2, "bg.window_start_s")));
            free(m2);
            run_layout_free(&l2);
        }
        free(m);
        run_layout_free(&l);
        cfg_free(&c);
    }
    /* refusals */
    cfg c;
    cfg_errors e;
    load_path(&c, "window_flows.xml");
    set(&c, "workload.bg.role", "foreground");
    cfg_errors_init(&e);
    ck_assert_int_ne(cfg_check(&c, &e), 0);
    ck_assert_msg(e.n && strstr(e.msg[0], "workload.bg.measure: \"window\" is the foreground's window, and this is "
                                          "a foreground workload"), "%s", e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
    cfg_free(&c);
    load_path(&c, "window_flows_jobs.xml");
    set(&c, "workload.bg.measure", "all");
    set(&c, "workload.jobs.role", "background");
    set(&c, "workload.jobs.measure", "window");
    set(&c, "workload.bg.role", "foreground");
    cfg_errors_init(&e);
    ck_assert_int_ne(cfg_check(&c, &e), 0);
    ck_assert_msg(e.n && strstr(e.msg[0], "workload.jobs.measure: a task-tree workload measures all it does"),
                  "%s", e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* --set of a parameter clears the alternative of every plugin that shares
 * its path: workload.duration (declared by uniform-random, alternative
 * workload.messages, and by dc-flows, alternative workload.flows) given to
 * a dc-flows configuration with a flow count replaces the count. */
START_TEST(test_shared_alternative)
{
    cfg c;
    load(&c);
    char buf[64];
    set(&c, "workload.bg.flows", "500");
    ck_assert_int_eq(cfg_get(&c, "workload.bg.duration", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    set(&c, "workload.bg.duration", "2ms");
    ck_assert_int_eq(cfg_get(&c, "workload.bg.flows", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    run_layout l;
    double *m;
    run(&c, &l, &m);
    ck_assert_double_gt(metric(&l, m, "bg.flows_generated"), 0);
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

static Suite *dc_mix_suite(void)
{
    Suite *s = suite_create("dc_mix");
    TCase *t = tcase_create("dc_mix");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_isolation);
    tcase_add_test(t, test_random_mixes);
    tcase_add_test(t, test_background_stops);
    tcase_add_test(t, test_background_stops_flow_count);
    tcase_add_test(t, test_shared_alternative);
    tcase_add_test(t, test_measure_window);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(dc_mix_suite)
