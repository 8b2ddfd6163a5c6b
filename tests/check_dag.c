/* The dag workload (workloads/wl_dag.c) and its reader (jobs/dag.c): a
 * task graph's job time on the ideal fabric worked by hand (the scheduler's
 * messages, the critical path), all tasks on one node when no node is idle,
 * pinned tasks where the file puts them, jobs repeating at a rate, cycles
 * refused by name, and every rejected file with its line and node
 * (tests/fixtures/dag/). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "harness.h"
#include "network.h"
#include "workload.h"

#define B10 10e9

static const char *top(void)
{
    const char *t = getenv("top_srcdir");
    return t ? t : ".";
}

static const char *fixture(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/tests/fixtures/dag/%s", top(), name);
    return buf;
}

/* One run of `file` over `fabric` with N nodes; h finished (caller closes). */
static void run(th_run *h, const char *fabric, uint32_t N, const char *file, const char *jobs, const char *rate,
                th_log *log)
{
    char f[1024], fs[1100], js[64], rs[64];
    snprintf(fs, sizeof fs, "workload.file=%s", fixture(f, sizeof f, file));
    snprintf(js, sizeof js, "workload.jobs=%s", jobs);
    snprintf(rs, sizeof rs, "workload.arrival-rate=%s", rate);
    const char *sets[] = {fs, js, rs, NULL};
    net_params core = th_star(N, B10);
    ck_assert_msg(th_run_all(h, fabric, &core, NULL, "dag", sets, 7, 0, log) == 0, "%s", h->err);
}

/* The worked example on the ideal fabric (every message alone: 8 b / B +
 * 2 link + switch = size / 1.25 GB/s + 240 ns). Control messages of 40 B:
 * 32 ns + 240 ns = 272 ns; 1 MB: 800 us + 240 ns = 800.24 us.
 *   assignment, request for 3 nodes, grant of 3:     3 x 0.272 = 0.816 us
 *   a on M (10 us), b, c, d on the granted nodes (round-robin in
 *   topological order a b c d over M g1 g2 g3);
 *   a -> c 800.24, c 30, c -> d 800.24 (longer than b's 20), d 5:
 *                                      10 + 800.24 + 30 + 800.24 + 5 = 1645.48 us
 *   d's sink message to M, M's job-complete:     2 x 0.272 = 0.544 us
 *   job time = 0.816 + 1645.48 + 0.544 = 1646.84 us. */
START_TEST(test_forkjoin_ideal)
{
    th_run h = {0};
    run(&h, "ideal", 8, "forkjoin.dot", "1", "1000/s", NULL);
    ck_assert_double_eq(th_metric(&h, "jobs_completed"), 1);
    ck_assert_double_eq_tol(th_metric(&h, "job_time_mean_s"), 1646.84e-6, 1e-15);
    ck_assert_double_eq_tol(th_metric(&h, "service_time_mean_s"), 1646.84e-6, 1e-15);
    ck_assert_double_eq(th_metric(&h, "queue_time_mean_s"), 0);
    /* the critical path alone: 10 + 800.24 + 30 + 800.24 + 5 us */
    ck_assert_double_eq_tol(th_metric(&h, "dag_critical_path_s"), 1645.48e-6, 1e-15);
    ck_assert_double_eq_tol(th_metric(&h, "dag_work_s"), 65e-6, 1e-18);
    ck_assert_double_eq(th_metric(&h, "dag_tasks"), 4);
    ck_assert_double_eq(th_metric(&h, "dag_edges"), 4);
    /* speedup = work / service = 65 / 1646.84 */
    ck_assert_double_eq_tol(th_metric(&h, "speedup"), 65 / 1646.84, 1e-12);
    /* messages: assignment, request, grant, 4 data, 1 sink, 3 releases, job-complete = 12 */
    ck_assert_uint_eq(h.n->c.sent, 12);
    ck_assert_uint_eq(h.n->c.delivered, 12);
    th_run_close(&h);
}
END_TEST

/* One compute node (N = 2): the grant is empty, every task runs on M in
 * topological order, no data message, no release:
 *   assignment, request, grant 3 x 0.272 us; a b c d 10 + 20 + 30 + 5 us;
 *   job-complete 0.272 us: 66.088 us. */
START_TEST(test_one_node)
{
    th_run h = {0};
    run(&h, "ideal", 2, "forkjoin.dot", "1", "1000/s", NULL);
    ck_assert_double_eq_tol(th_metric(&h, "job_time_mean_s"), 66.088e-6, 1e-15);
    ck_assert_uint_eq(h.n->c.sent, 4);
    /* the node computed the whole span but the control messages: 65 / 66.088 */
    ck_assert_double_eq_tol(th_metric(&h, "node_utilization"), 65 / 66.088, 1e-12);
    th_run_close(&h);
}
END_TEST

/* node="1" and node="2": x's data goes from rank 1 to rank 2 (task y = 1),
 * whichever node the scheduler made the master; no request (nothing to place). */
START_TEST(test_pinned)
{
    th_run h = {0};
    th_log log = {0};
    run(&h, "electrical-switch", 6, "pinned.dot", "1", "1000/s", &log);
    int seen = 0;
    for (size_t i = 0; i < log.n; i++)
        if (log.d[i].src == 1 && log.d[i].dst == 2 && log.d[i].a == 1)
            seen++;
    ck_assert_int_eq(seen, 1);
    /* assignment, data, [sink message unless M = 2], job-complete */
    ck_assert_uint_ge(h.n->c.sent, 3);
    ck_assert_uint_le(h.n->c.sent, 4);
    th_log_free(&log);
    th_run_close(&h);
}
END_TEST

/* 50 jobs at 100 per second on the switch: each of 1,646.84 us alone, far
 * apart (mean gap 10 ms), so they rarely meet: every job completes, the
 * mean is at least a job alone's, and the work counted is 50 x 65 us. */
START_TEST(test_jobs_repeat)
{
    th_run h = {0};
    run(&h, "ideal", 16, "forkjoin.dot", "50", "100/s", NULL);
    ck_assert_double_eq(th_metric(&h, "jobs_completed"), 50);
    ck_assert_double_eq_tol(th_metric(&h, "job_time_mean_s"), 1646.84e-6, 1e-15); /* ideal: no contention */
    ck_assert_uint_eq(h.n->c.sent, 50 * 12);
    th_run_close(&h);
}
END_TEST

/* Reading the graph: ids in the order of first mention, edges by AGSEQ,
 * a topological order, sinks, unplaced tasks. */
START_TEST(test_read)
{
    dag d;
    char f[1024], err[1024];
    ck_assert_msg(dag_read(fixture(f, sizeof f, "forkjoin.dot"), &d, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(d.tasks, 4);
    ck_assert_str_eq(d.name[0], "a");
    ck_assert_str_eq(d.name[3], "d");
    ck_assert_int_eq(d.compute_ps[2], 30000000);
    ck_assert_uint_eq(d.ebytes[0], 1000000);
    ck_assert_uint_eq(d.sinks, 1);
    ck_assert_uint_eq(d.unplaced, 4);
    ck_assert_uint_eq(d.topo[0], 0);
    ck_assert_uint_eq(d.topo[3], 3);
    ck_assert_uint_eq(d.indeg[3], 2);
    dag_free(&d);
    ck_assert_msg(dag_read(fixture(f, sizeof f, "pinned.dot"), &d, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(d.node[0], 1);
    ck_assert_uint_eq(d.node[1], 2);
    ck_assert_uint_eq(d.unplaced, 0);
    ck_assert_uint_eq(d.max_node, 2);
    dag_free(&d);
}
END_TEST

static const struct {
    const char *file;
    const char *says;
} bad[] = {
    {"cycle.dot", "cycle.dot:3: the graph has a cycle (a -> b -> c -> a): a task graph is acyclic"},
    {"self.dot", "self.dot:2: the graph has a cycle (a -> a)"},
    {"bad_unit.dot", "bad_unit.dot:4: node b: compute=\"10\": missing unit"},
    {"bad_node.dot", "bad_node.dot:3: node b: node=\"0\": a rank from 1 (rank 0 is the scheduler)"},
    {"bad_size.dot", "bad_size.dot:3: node a: edge a -> b: size=\"lots\""},
    {"bad_syntax.dot", "bad_syntax.dot:3: syntax error"},
    {"bad_undirected.dot", "bad_undirected.dot:1: a task graph is a digraph"},
    {"bad_unquoted.dot", "bad_unquoted.dot:2: syntax error in line 2 near 'node' (a task's rank is written \"node\"=\"3\", quoted"},
};

START_TEST(test_bad_files)
{
    dag d;
    char f[1024], err[1024];
    ck_assert_int_ne(dag_read(fixture(f, sizeof f, bad[_i].file), &d, err, sizeof err), 0);
    ck_assert_msg(strstr(err, bad[_i].says) != NULL, "'%s' does not say '%s'", err, bad[_i].says);
}
END_TEST

/* Through the workload's check: at workload.file, and a node beyond the ranks. */
START_TEST(test_check)
{
    const wl_ops *ops = th_wl_ops("dag");
    char f[1024], fs[1100], err[2048];
    snprintf(fs, sizeof fs, "workload.file=%s", fixture(f, sizeof f, "bad_far.dot"));
    const char *sets[] = {fs, "workload.arrival-rate=1/s", NULL};
    void *wp = th_wl_params(ops, sets);
    net_params core = th_star(16, B10);
    param_first first;
    ops->check(&core, wp, param_report_first(&first, err, sizeof err));
    ck_assert_msg(strstr(err, "workload.file") && strstr(err, "task 'a' is on node 40, and the workload has ranks 0..15") && strstr(err, "bad_far.dot:2: "),
                  "%s", err);
    wl_params_free(ops, wp);
    snprintf(fs, sizeof fs, "workload.file=%s", fixture(f, sizeof f, "cycle.dot"));
    wp = th_wl_params(ops, sets);
    ops->check(&core, wp, param_report_first(&first, err, sizeof err));
    ck_assert_msg(strstr(err, "workload.file") && strstr(err, "cycle.dot:3: the graph has a cycle"), "%s", err);
    wl_params_free(ops, wp);
}
END_TEST

/* workload.load: rate = rho_x (N-1) / work = 0.5 x 15 / 65 us. */
START_TEST(test_load)
{
    const wl_ops *ops = th_wl_ops("dag");
    char f[1024], fs[1100], err[1024];
    snprintf(fs, sizeof fs, "workload.file=%s", fixture(f, sizeof f, "forkjoin.dot"));
    const char *sets[] = {fs, "workload.load=0.5", NULL};
    void *wp = th_wl_params(ops, sets);
    net_params core = th_star(16, B10);
    wl_resolve rc = {.nodes = 16, .net = &core, .seed = 1};
    ck_assert_msg(ops->resolve(wp, &rc, err, sizeof err) == 0, "%s", err);
    double rate = 0;
    for (size_t i = 0; i < ops->nparams; i++)
        if (!strcmp(ops->params[i].path, "workload.arrival-rate"))
            memcpy(&rate, (char *)wp + ops->params[i].off, sizeof rate);
    ck_assert_double_eq_tol(rate, 0.5 * 15 / 65e-6, 1e-6);
    wl_params_free(ops, wp);
}
END_TEST

static Suite *dag_suite(void)
{
    Suite *s = suite_create("dag");
    TCase *t = tcase_create("dag");
    tcase_add_test(t, test_forkjoin_ideal);
    tcase_add_test(t, test_one_node);
    tcase_add_test(t, test_pinned);
    tcase_add_test(t, test_jobs_repeat);
    tcase_add_test(t, test_read);
    tcase_add_loop_test(t, test_bad_files, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(t, test_check);
    tcase_add_test(t, test_load);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(dag_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
