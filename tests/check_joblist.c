/* Job lists (jobs/joblist.h): job i of a list is the i-th job drawn from
 * its stream, bit for bit, in whatever order the jobs are asked for; a
 * kept job never moves; a list that stops at its size limit hands over
 * the stream where it stopped, so the next draws are the ones the list
 * would have made. Every expectation comes from drawing the same jobs
 * again from a twin stream (the same seed) with joblist_draw, which is
 * the draw every run made before lists existed (tree, then task values,
 * vertex by vertex). */
#include <check.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "joblist.h"
#include "rng.h"
#include "task.h"
#include "tree.h"
#include "harness.h"

static void parse(dist *d, const char *text, unit_kind u)
{
    char err[256];
    ck_assert_msg(dist_parse(text, u, NULL, d, err, sizeof err) == 0, "%s: %s", text, err);
}

/* fig9's jobs: preferential trees of uniform-int(25,175) vertices, s = 1;
 * times uniform(2us,100us), sizes uniform(2kB,128kB). */
static void fig9_specs(tree_spec *ts, task_spec *ks)
{
    memset(ts, 0, sizeof *ts);
    memset(ks, 0, sizeof *ks);
    ts->gen = TREE_PREFERENTIAL;
    ts->shape = 1;
    parse(&ts->vertices, "uniform-int(25,175)", UNIT_NONE);
    parse(&ks->init_time, "uniform(2us,100us)", UNIT_TIME);
    parse(&ks->aggregation_time, "uniform(2us,100us)", UNIT_TIME);
    parse(&ks->send_size, "uniform(2kB,128kB)", UNIT_SIZE);
    parse(&ks->result_size, "uniform(2kB,128kB)", UNIT_SIZE);
}

/* A kept tree holds what the drawn one holds: children and task values. */
static void assert_same_job(const tree *kept, int64_t kept_work, const tree *drawn, int64_t drawn_work)
{
    uint32_t n = drawn->n;
    ck_assert_uint_eq(kept->n, n);
    ck_assert_int_eq(kept_work, drawn_work);
    ck_assert(memcmp(kept->child_off, drawn->child_off, ((size_t)n + 1) * sizeof(uint32_t)) == 0);
    if (n > 1)
        ck_assert(memcmp(kept->child, drawn->child, ((size_t)n - 1) * sizeof(uint32_t)) == 0);
    ck_assert(memcmp(kept->t_init_ps, drawn->t_init_ps, n * sizeof(int64_t)) == 0);
    ck_assert(memcmp(kept->t_agg_ps, drawn->t_agg_ps, n * sizeof(int64_t)) == 0);
    ck_assert(memcmp(kept->send_bytes, drawn->send_bytes, n * sizeof(uint64_t)) == 0);
    ck_assert(memcmp(kept->result_bytes, drawn->result_bytes, n * sizeof(uint64_t)) == 0);
}

START_TEST(test_same_draws_any_order)
{
    tree_spec ts;
    task_spec ks;
    fig9_specs(&ts, &ks);
    joblist *l = joblist_new(&ts, &ks, rng_stream_new(7, 3, "jobs"), 0);
    enum { JOBS = 400 };
    /* job 150 first: jobs 0..150 are drawn, in order, on the way */
    int64_t w150;
    const tree *t150 = joblist_get(l, 150, &w150);
    ck_assert_uint_eq(joblist_count(l), 151);
    int64_t w0;
    const tree *t0 = joblist_get(l, 0, &w0);
    ck_assert_uint_eq(joblist_count(l), 151);
    gsl_rng *twin = rng_stream_new(7, 3, "jobs");
    tree d;
    tree_init(&d);
    for (uint64_t i = 0; i < JOBS; i++) {
        int64_t dw = joblist_draw(&d, &ts, &ks, twin), kw;
        const tree *k = joblist_get(l, i, &kw);
        assert_same_job(k, kw, &d, dw);
        /* work = sum over the vertices of t_i + t_a */
        int64_t sum = 0;
        for (uint32_t v = 0; v < d.n; v++)
            sum += d.t_init_ps[v] + d.t_agg_ps[v];
        ck_assert_int_eq(kw, sum);
    }
    /* kept jobs did not move while the list grew */
    int64_t w;
    ck_assert_ptr_eq(joblist_get(l, 0, &w), t0);
    ck_assert_int_eq(w, w0);
    ck_assert_ptr_eq(joblist_get(l, 150, &w), t150);
    ck_assert_int_eq(w, w150);
    ck_assert_uint_eq(joblist_count(l), JOBS);
    /* about 100 vertices of 40 bytes a job, plus its header */
    ck_assert_uint_ge(joblist_bytes(l), JOBS * 100 * 40 / 2);
    ck_assert_uint_le(joblist_bytes(l), JOBS * (175 * 40 + 256) + (512 << 10));
    tree_destroy(&d);
    gsl_rng_free(twin);
    joblist_free(l);
    tree_spec_free(&ts);
    task_spec_free(&ks);
}
END_TEST

START_TEST(test_limit_hands_over_the_stream)
{
    /* A list of at most 600 kB: it stops once its storage reaches that
     * (chunks of 256 kB), after at least one job; the stream it hands over
     * draws exactly the jobs that come next. */
    tree_spec ts;
    task_spec ks;
    fig9_specs(&ts, &ks);
    const size_t max = 600 << 10;
    joblist *l = joblist_new(&ts, &ks, rng_stream_new(11, 0, "jobs"), max);
    int64_t w;
    uint64_t i = 0;
    while (joblist_get(l, i, &w))
        i++;
    uint64_t n = joblist_count(l);
    ck_assert_uint_eq(n, i);
    ck_assert_uint_ge(n, 1);
    ck_assert_uint_ge(joblist_bytes(l), max);
    ck_assert_uint_le(joblist_bytes(l), max + (256 << 10) + 175 * 40 + 256 + (64 << 10));
    /* asking again changes nothing; earlier jobs are still there */
    ck_assert_ptr_null(joblist_get(l, n, &w));
    ck_assert_ptr_null(joblist_get(l, n + 10, &w));
    ck_assert_uint_eq(joblist_count(l), n);
    ck_assert_ptr_nonnull(joblist_get(l, n - 1, &w));

    gsl_rng *twin = rng_stream_new(11, 0, "jobs"), *rest = joblist_stream(l);
    tree d, e;
    tree_init(&d);
    tree_init(&e);
    for (uint64_t k = 0; k < n; k++)
        joblist_draw(&d, &ts, &ks, twin);
    for (int k = 0; k < 20; k++) {
        int64_t dw = joblist_draw(&d, &ts, &ks, twin), ew = joblist_draw(&e, &ts, &ks, rest);
        assert_same_job(&e, ew, &d, dw);
    }
    tree_destroy(&d);
    tree_destroy(&e);
    gsl_rng_free(twin);
    gsl_rng_free(rest);
    joblist_free(l);
    tree_spec_free(&ts);
    task_spec_free(&ks);
}
END_TEST

START_TEST(test_deterministic_constant)
{
    /* z = 4 3 with constant task values (fig8's jobs): 17 vertices, each
     * t_i = t_a = 10 us, so every job's work is 17 x 20 us = 340 us =
     * 3.4e8 ps; children breadth-first: the root's are 1..4, vertex 1's
     * are 5..7. Constant values draw nothing the tree does not. */
    tree_spec ts;
    task_spec ks;
    memset(&ts, 0, sizeof ts);
    memset(&ks, 0, sizeof ks);
    ts.gen = TREE_DETERMINISTIC;
    ts.z[0] = 4;
    ts.z[1] = 3;
    ts.zlen = 2;
    parse(&ks.init_time, "10us", UNIT_TIME);
    parse(&ks.aggregation_time, "10us", UNIT_TIME);
    parse(&ks.send_size, "20kB", UNIT_SIZE);
    parse(&ks.result_size, "40kB", UNIT_SIZE);
    joblist *l = joblist_new(&ts, &ks, rng_stream_new(1, 0, "jobs"), 0);
    for (uint64_t i = 0; i < 50; i++) {
        int64_t w;
        const tree *t = joblist_get(l, i, &w);
        ck_assert_uint_eq(t->n, 17);
        ck_assert_int_eq(w, INT64_C(340000000));
        ck_assert_uint_eq(tree_nchildren(t, 0), 4);
        ck_assert_uint_eq(tree_child(t, 0, 0), 1);
        ck_assert_uint_eq(tree_child(t, 0, 3), 4);
        ck_assert_uint_eq(tree_nchildren(t, 1), 3);
        ck_assert_uint_eq(tree_child(t, 1, 0), 5);
        ck_assert_uint_eq(tree_nchildren(t, 16), 0);
        ck_assert_uint_eq(t->send_bytes[16], 20000);
        ck_assert_uint_eq(t->result_bytes[0], 40000);
    }
    joblist_free(l);
    tree_spec_free(&ts);
    task_spec_free(&ks);
}
END_TEST

static Suite *joblist_suite(void)
{
    Suite *s = suite_create("joblist");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_same_draws_any_order);
    tcase_add_test(tc, test_limit_hands_over_the_stream);
    tcase_add_test(tc, test_deterministic_constant);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(joblist_suite)
