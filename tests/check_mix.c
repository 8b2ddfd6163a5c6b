/* Several workloads on one fabric (app/run/run.c, networks/network.c clients):
 * a workload's results do not depend on another that shares no node and no
 * queue with it, a background workload stops once the foreground has
 * finished, and the same seed gives the same runs. The configuration is
 * tests/fixtures/good/two_workloads.xml: task-tree "jobs" on nodes 0-7 and
 * uniform-random "noise" on nodes 8-15 (background, priority low). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "run.h"
#include "sweep_impl.h"
#include "harness.h"

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : "..";
}

/* tests/fixtures/good/<name> into c. */
static void load_fixture(cfg *c, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/tests/fixtures/good/%s", srcdir(), name);
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_msg(cfg_load(c, p, &e) == 0, "%s", e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
}

static void load(cfg *c) { load_fixture(c, "two_workloads.xml"); }

static void set(cfg *c, const char *path, const char *v)
{
    char err[512];
    ck_assert_msg(cfg_set(c, path, v, err, sizeof err) == 0, "%s: %s", path, err);
}

/* Point 0 of c (with its sets), replica r: metrics into *m (caller frees), layout into l. */
static void run(const cfg *c, uint64_t r, run_layout *l, double **m)
{
    cfg pc;
    char err[1024];
    ck_assert_msg(cfg_point(c, 0, &pc, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(run_resolve(&pc, NULL, NULL, err, sizeof err) == 0, "%s", err);
    run_layout_init(l, c);
    *m = calloc(l->n, sizeof **m);
    ck_assert_msg(run_one(&pc, l, r, NULL, *m, NULL, err, sizeof err) == 0, "%s", err);
    cfg_free(&pc);
}

static double metric(const run_layout *l, const double *m, const char *name)
{
    long k = run_layout_find(l, name);
    ck_assert_msg(k >= 0, "no column %s", name);
    return m[k];
}

/* On the ideal fabric nothing queues: the jobs workload's every metric is
 * the same whatever the noise does (its load, its sizes), since each draws
 * from its own streams ("jobs.arrivals", "noise.uniform-sizes", ...). On
 * the switch the two use disjoint ports (the star's output port toward a
 * node serves only that node's traffic), so the same holds. */
START_TEST(test_isolation)
{
    static const char *const fabrics[] = {"ideal", "electrical-switch"};
    for (size_t f = 0; f < 2; f++) {
        double *ref = NULL;
        run_layout lref;
        static const char *const loads[] = {"0.1", "0.6", "0.6"};
        static const char *const sizes[] = {"1kB", "1kB", "uniform(100B,8kB)"};
        for (size_t v = 0; v < 3; v++) {
            cfg c;
            load(&c);
            cfg_drop_axis(&c, "workload.noise.offered-load");
            set(&c, "network.type", fabrics[f]);
            set(&c, "workload.noise.offered-load", loads[v]);
            set(&c, "workload.noise.message-size", sizes[v]);
            run_layout l;
            double *m;
            run(&c, 0, &l, &m);
            ck_assert_double_eq(metric(&l, m, "jobs.jobs_completed"), 50);
            if (!ref) {
                ref = m;
                lref = l;
            } else {
                for (size_t i = 0; i < l.n; i++)
                    if (strncmp(l.col[i].name, "jobs.", 5) == 0) {
                        double a = metric(&lref, ref, l.col[i].name), b = m[i];
                        ck_assert_msg(a == b || (isnan(a) && isnan(b)), "%s: %s %.17g with noise %s/%s, %.17g before",
                                      fabrics[f], l.col[i].name, b, loads[v], sizes[v], a);
                    }
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

/* The noise is a background workload with a duration of 1 s; the jobs
 * (50 arrivals at 2000/s, about 25 ms) finish long before: the noise stops
 * then, so the run spans about the jobs' span, not 1 s, and the noise
 * offered 1kB messages at 0.3 x 10 Gb/s per node (375000/s per node) only
 * for that time. */
START_TEST(test_background_stops)
{
    cfg c;
    load(&c);
    cfg_drop_axis(&c, "workload.noise.offered-load");
    run_layout l;
    double *m;
    run(&c, 0, &l, &m);
    double span = metric(&l, m, "span_s");
    ck_assert_msg(span > 0.01 && span < 0.1, "span %g s", span);
    /* messages: the noise's, about 8 x 375000/s x span, and the jobs' few:
     * far fewer than the noise's 3 million of a whole second */
    double msgs = metric(&l, m, "messages_delivered");
    ck_assert_msg(msgs < 8 * 375000.0 * 0.1, "%g messages delivered", msgs);
    ck_assert_double_eq(metric(&l, m, "messages_delivered"), metric(&l, m, "messages_sent"));
    /* same seed, same run */
    run_layout l2;
    double *m2;
    run(&c, 0, &l2, &m2);
    for (size_t i = 0; i < l.n; i++)
        if (strcmp(l.col[i].name, "wall_s") != 0)
            ck_assert_msg(m[i] == m2[i] || (isnan(m[i]) && isnan(m2[i])), "%s differs", l.col[i].name);
    free(m);
    free(m2);
    run_layout_free(&l);
    run_layout_free(&l2);
    cfg_free(&c);
}
END_TEST

/* Roles swapped, the jobs arriving at 1/s: the noise (one 1kB message a
 * node) ends within microseconds, before the jobs' first arrival, drawn at
 * init (exponential, mean 1 s: before 1 ms with probability 0.1%). That
 * arrival was scheduled before the stop, but no job arrives after it: none
 * runs, and the run does not span the gap to it. */
START_TEST(test_background_pending_arrival)
{
    cfg c;
    load(&c);
    cfg_drop_axis(&c, "workload.noise.offered-load");
    set(&c, "workload.jobs.role", "background");
    set(&c, "workload.jobs.arrival-rate", "1/s");
    set(&c, "workload.noise.role", "foreground");
    set(&c, "workload.noise.messages", "1");
    run_layout l;
    double *m;
    run(&c, 0, &l, &m);
    ck_assert_double_eq(metric(&l, m, "messages_sent"), 8);
    ck_assert_double_eq(metric(&l, m, "jobs.jobs_completed"), 0);
    double span = metric(&l, m, "span_s");
    ck_assert_msg(span < 1e-3, "span %g s", span);
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

/* Roles swapped: the jobs are the background, the noise the foreground with
 * a duration of 1 ns. Its first gaps are exponential with mean 1kB x 8 /
 * (0.3 x 10 Gb/s) = 2.67 us, so every source ends at its first draw (P(gap
 * < 1 ns) = 1 - exp(-1/2667), 0.04% a node) and it sends nothing: finished
 * at t = 0, before any delivery. The jobs must stop then (none arrives
 * after), not run all 50 (about 25 ms, at 2000/s). */
START_TEST(test_background_stops_silent_foreground)
{
    cfg c;
    load(&c);
    cfg_drop_axis(&c, "workload.noise.offered-load");
    set(&c, "workload.jobs.role", "background");
    set(&c, "workload.noise.role", "foreground");
    set(&c, "workload.noise.duration", "1ns");
    run_layout l;
    double *m;
    run(&c, 0, &l, &m);
    ck_assert_double_eq(metric(&l, m, "messages_sent"), 0);
    ck_assert_double_eq(metric(&l, m, "jobs.jobs_completed"), 0);
    double span = metric(&l, m, "span_s");
    ck_assert_msg(!(span > 1e-6), "span %g s", span);
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

/* A task program's bound counts the zero-load latency between its nodes,
 * not between its ranks taken as nodes (tests/fixtures/good/
 * pattern_in_mix.xml): recdbl of 2 tasks on nodes 29, 30 of a dragonfly
 * with 2 hosts a router, 4 routers a group: routers 14 and 15, both in
 * group 3, so host -> r14 -> r15 -> host: 2 x 50 ns + 40 B x 8 / 40 Gb/s
 * (cut through, links of 0 ns) = 108 ns, the time and the bound
 * (40 B x 8 / B + L0, L0 = 100 ns). Ranks 0, 1 taken as nodes share router
 * 0: L0 = 50 ns, a bound of 58 ns. */
START_TEST(test_program_bound_in_mix)
{
    cfg c;
    load_fixture(&c, "pattern_in_mix.xml");
    run_layout l;
    double *m;
    run(&c, 0, &l, &m);
    ck_assert_double_eq_tol(metric(&l, m, "b.kernel_time_s"), 108e-9, 1e-15);
    ck_assert_double_eq_tol(metric(&l, m, "b.kernel_time_lb_s"), 108e-9, 1e-15);
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

/* A pattern's static congestion is of the routes between its nodes, not
 * between its ranks taken as nodes (pattern_in_mix.xml, recdbl of 4 tasks
 * on nodes 0, 8, 16, 24: routers 0, 4, 8, 12, one in each of groups 0-3).
 * Level 1 pairs 0-8 and 16-24, level 2 0-16 and 8-24: each level's four
 * flows join disjoint pairs of groups, each by its own global link, so
 * every c_f is 1: sum_max_cong 2, cong_mean 1, dep_max_delay 2. Ranks 0-3
 * taken as nodes are two routers of group 0: level 2's flows 0>2 and 1>3
 * share the local link r0>r1 (c_f 2): 3, 1.5, 3. */
START_TEST(test_pattern_routes_in_mix)
{
    cfg c;
    load_fixture(&c, "pattern_in_mix.xml");
    set(&c, "workload.b.nodes", "0,8,16,24");
    set(&c, "workload.b.tasks", "4");
    set(&c, "workload.c.nodes", "33-35");
    run_layout l;
    double *m;
    run(&c, 0, &l, &m);
    ck_assert_double_eq(metric(&l, m, "b.sum_max_cong"), 2);
    ck_assert_double_eq(metric(&l, m, "b.cong_mean"), 1);
    ck_assert_double_eq(metric(&l, m, "b.dep_max_delay"), 2);
    free(m);
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

/* The run's span covers every workload, from the earliest first activity
 * to the latest last one (tests/fixtures/good/span_mix.xml: a kernel from
 * 0, two uniform-random workloads from their first Poisson arrivals, on a
 * 2-host fat tree whose host links each serialise at B). The longest
 * single span was shorter than that window: network_utilization came out
 * 1.023 in replica 0. Now it is at most 1, and the span holds the kernel's
 * whole time (it starts at 0, so the window does too). */
START_TEST(test_span_of_a_mix)
{
    cfg c;
    load_fixture(&c, "span_mix.xml");
    for (uint64_t r = 0; r < 2; r++) {
        run_layout l;
        double *m;
        run(&c, r, &l, &m);
        double span = metric(&l, m, "span_s"), u = metric(&l, m, "network_utilization");
        ck_assert_msg(u > 0 && u <= 1, "replica %d: network_utilization %.17g", (int)r, u);
        ck_assert_msg(span >= metric(&l, m, "b.kernel_time_s"), "replica %d: span %g s", (int)r, span);
        free(m);
        run_layout_free(&l);
    }
    cfg_free(&c);
}
END_TEST

/* Each workload's metrics are its own columns, <name>.<metric>; the core's
 * and the fabric's keep their names. */
START_TEST(test_columns)
{
    cfg c;
    load(&c);
    run_layout l;
    run_layout_init(&l, &c);
    ck_assert_int_ge(run_layout_find(&l, "jobs.speedup"), 0);
    ck_assert_int_ge(run_layout_find(&l, "noise.throughput"), 0);
    ck_assert_int_ge(run_layout_find(&l, "msg_latency_mean_s"), 0);
    ck_assert_int_ge(run_layout_find(&l, "energy_per_bit_j"), 0);
    ck_assert_int_lt(run_layout_find(&l, "speedup"), 0);
    ck_assert_int_lt(run_layout_find(&l, "jobs.throughput"), 0); /* not the task-tree's */
    ck_assert_str_eq(l.plot_y, "jobs.speedup");
    run_layout_free(&l);
    cfg_free(&c);
}
END_TEST

/* A workload's columns carry its name exactly when its parameters do: the
 * jobs workload named alone (one_named_workload.xml, two_workloads.xml's
 * "jobs" without "noise") has the very columns it has beside noise
 * (every "jobs.*" column of the two-workload layout, and no other of its
 * own), the core's and the fabric's bare; unnamed and alone, its metrics
 * are bare (speedup). */
START_TEST(test_columns_alone)
{
    cfg two, one, bare;
    load(&two);
    load_fixture(&one, "one_named_workload.xml");
    load_fixture(&bare, "one_named_workload.xml");
    set(&bare, "workload.jobs.name", "");
    run_layout l2, l1, lb;
    run_layout_init(&l2, &two);
    run_layout_init(&l1, &one);
    run_layout_init(&lb, &bare);
    size_t own2 = 0, own1 = 0;
    for (size_t i = 0; i < l2.n; i++)
        if (strncmp(l2.col[i].name, "jobs.", 5) == 0) {
            own2++;
            ck_assert_msg(run_layout_find(&l1, l2.col[i].name) >= 0, "alone, jobs has no %s", l2.col[i].name);
            ck_assert_msg(run_layout_find(&lb, l2.col[i].name + 5) >= 0, "unnamed, no %s", l2.col[i].name + 5);
        }
    for (size_t i = 0; i < l1.n; i++)
        own1 += strncmp(l1.col[i].name, "jobs.", 5) == 0;
    ck_assert_uint_eq(own1, own2);
    ck_assert_uint_gt(own2, 10);
    ck_assert_int_lt(run_layout_find(&l1, "speedup"), 0);
    ck_assert_int_ge(run_layout_find(&l1, "msg_latency_mean_s"), 0);
    ck_assert_str_eq(l1.plot_y, "jobs.speedup");
    ck_assert_int_ge(run_layout_find(&lb, "speedup"), 0);
    ck_assert_str_eq(lb.plot_y, "speedup");
    run_layout_free(&l2);
    run_layout_free(&l1);
    run_layout_free(&lb);
    cfg_free(&two);
    cfg_free(&one);
    cfg_free(&bare);
}
END_TEST

/* A result folder's fingerprint covers every workload's own parameters:
 * points that differ only in one workload's value (the swept noise load, a
 * --set of the jobs' send size) differ, and equal points agree. */
START_TEST(test_fingerprint)
{
    cfg c;
    load(&c);
    cfg p0, p1, q0;
    char err[1024];
    ck_assert_msg(cfg_point(&c, 0, &p0, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(cfg_point(&c, 1, &p1, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(cfg_point(&c, 0, &q0, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(sweep_fingerprint(&p0), sweep_fingerprint(&q0));
    ck_assert_uint_ne(sweep_fingerprint(&p0), sweep_fingerprint(&p1)); /* noise load 0.1 vs 0.5 */
    set(&q0, "workload.jobs.task.send-size", "30kB");
    ck_assert_uint_ne(sweep_fingerprint(&p0), sweep_fingerprint(&q0));
    set(&q0, "workload.jobs.task.send-size", "20kB");
    ck_assert_uint_eq(sweep_fingerprint(&p0), sweep_fingerprint(&q0));
    cfg_free(&p0);
    cfg_free(&p1);
    cfg_free(&q0);
    cfg_free(&c);
}
END_TEST

/* What a workload's finish sees of the rest of the run (wl_run_view,
 * workloads/workload.h; the run wiring fills it with the run's columns):
 * a column by its name, NAN for a name the run has not and for no view. */
START_TEST(test_run_view)
{
    static const metric_def col[] = {{"energy_per_bit_j", "J/b", NULL}, {"bytes_delivered", "B", NULL}};
    const double m[] = {2.5e-12, 7.0};
    wl_run_view v = {.col = col, .m = m, .n = 2};
    ck_assert_double_eq(wl_run_metric(&v, "energy_per_bit_j"), 2.5e-12);
    ck_assert_double_eq(wl_run_metric(&v, "bytes_delivered"), 7.0);
    ck_assert(isnan(wl_run_metric(&v, "wall_s")));
    ck_assert(isnan(wl_run_metric(NULL, "bytes_delivered")));
}
END_TEST

static Suite *mix_suite(void)
{
    Suite *s = suite_create("mix");
    TCase *t = tcase_create("several workloads");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_columns);
    tcase_add_test(t, test_columns_alone);
    tcase_add_test(t, test_run_view);
    tcase_add_test(t, test_isolation);
    tcase_add_test(t, test_background_stops);
    tcase_add_test(t, test_background_stops_silent_foreground);
    tcase_add_test(t, test_background_pending_arrival);
    tcase_add_test(t, test_program_bound_in_mix);
    tcase_add_test(t, test_pattern_routes_in_mix);
    tcase_add_test(t, test_span_of_a_mix);
    tcase_add_test(t, test_fingerprint);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(mix_suite)
