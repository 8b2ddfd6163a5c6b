/* The vef workload (workloads/wl_vef.c): seed 000's extended VEF traces.
 * A trace and the dc-flows configuration its records map to give the same
 * numbers for a seed (every metric, bit for bit, and the fabric's counts);
 * the mapped values worked by hand from the seed's listings; more classes
 * than a configuration's four; every rejected trace with its file and line
 * (tests/fixtures/vef/bad_*.vef). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "network.h"
#include "workload.h"


static const char *top(void)
{
    const char *t = getenv("top_srcdir");
    return t ? t : ".";
}

/* "workload.file=<top>/<rel>" in buf. */
static const char *file_set(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "workload.file=%s/%s", top(), rel);
    return buf;
}

/* Run workload `wl` with `sets` on the switch of N nodes; metrics into m (n of them), fabric counts too. */
static void run(const char *wl, const char *const *sets, uint32_t N, uint64_t seed, double *m, size_t n,
                uint64_t counts[3])
{
    th_run h = {0};
    net_params core = th_star(N, B10);
    ck_assert_msg(th_run_all(&h, "electrical-switch", &core, NULL, wl, sets, seed, 0, NULL) == 0, "%s: %s", wl,
                  h.err);
    ck_assert_uint_eq(h.w->nmetrics >= n, 1);
    memcpy(m, h.m, n * sizeof *m);
    counts[0] = h.n->c.sent;
    counts[1] = h.n->c.delivered;
    counts[2] = h.n->c.bytes_delivered;
    th_run_close(&h);
}

/* The trace and its configuration: the same metrics, bit for bit. */
static void same(const char *trace, const char *const *xml, uint32_t N)
{
    const wl_ops *dcf = th_wl_ops("dc-flows"), *vef = th_wl_ops("vef");
    size_t n = dcf->nmetrics;
    for (size_t k = 0; k < n; k++) /* vef's table starts with dc-flows' */
        ck_assert_str_eq(vef->metrics[k].name, dcf->metrics[k].name);
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    uint64_t ca[3], cb[3];
    char f[1024];
    const char *sets[] = {file_set(f, sizeof f, trace), NULL};
    for (uint64_t seed = 1; seed <= 2; seed++) {
        run("vef", sets, N, seed, a, n, ca);
        run("dc-flows", xml, N, seed, b, n, cb);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(memcmp(&a[k], &b[k], sizeof a[k]) == 0 || (isnan(a[k]) && isnan(b[k])),
                          "%s seed %llu: %s = %.17g from the trace, %.17g from the configuration", trace,
                          (unsigned long long)seed, dcf->metrics[k].name, a[k], b[k]);
        ck_assert_uint_eq(ca[0], cb[0]);
        ck_assert_uint_eq(ca[1], cb[1]);
        ck_assert_uint_eq(ca[2], cb[2]);
        ck_assert_uint_gt(ca[0], 0);
    }
    free(a);
    free(b);
}

START_TEST(test_dcnw_as_dc_flows)
{
    /* "load 0.5 gauss GOOGLE": keywords in any order and case; #Msgs 3000 */
    const char *xml[] = {"workload.sizes=google-allrpc", "workload.load-rate=0.5Gb/s", "workload.flows=3000",
                         "workload.destinations=gaussian", NULL};
    same("tests/fixtures/vef/dcnw.vef", xml, 16);
}
END_TEST

START_TEST(test_cdcnw_as_dc_flows)
{
    char sizes[1024];
    snprintf(sizes, sizeof sizes, "workload.sizes=empirical(%s/tests/fixtures/vef/sizes.csv)", top());
    const char *xml[] = {sizes, "workload.load-rate=2Gb/s", "workload.flows=2000", "workload.destinations=poisson",
                         NULL};
    same("tests/fixtures/vef/cdcnw.vef", xml, 16);
}
END_TEST

START_TEST(test_flows_as_dc_flows)
{
    /* 3000 flows over TIME 2e6 cycles of 1 ns by 16 tasks: 3000 / (2 ms x 16) = 93750 flows/s per task;
     * the class lines in the file are 1 then 0, their fields in any order */
    const char *xml[] = {"workload.flow-rate=93750/s",
                         "workload.flows=3000",
                         "workload.class0.share=0.8",
                         "workload.class0.size=uniform(1kB,10kB)",
                         "workload.class1.share=0.2",
                         "workload.class1.size=uniform(10kB,100kB)",
                         "workload.class1.destinations=gaussian",
                         NULL};
    same("tests/fixtures/vef/flows.vef", xml, 16);
}
END_TEST

/* A trace's tasks are the first ranks: 16 tasks on 32 nodes run as on 16
 * (the other nodes idle; on one switch a node's traffic never meets them). */
START_TEST(test_tasks_below_nodes)
{
    const wl_ops *vef = th_wl_ops("vef");
    size_t n = vef->nmetrics;
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    uint64_t ca[3], cb[3];
    char f[1024];
    const char *sets[] = {file_set(f, sizeof f, "tests/fixtures/vef/dcnw.vef"), NULL};
    run("vef", sets, 16, 5, a, n, ca);
    run("vef", sets, 32, 5, b, n, cb);
    for (size_t k = 0; k < n; k++)
        ck_assert_msg(memcmp(&a[k], &b[k], sizeof a[k]) == 0 || (isnan(a[k]) && isnan(b[k])), "%s: %.17g, %.17g",
                      vef->metrics[k].name, a[k], b[k]);
    ck_assert_uint_eq(ca[2], cb[2]);
    free(a);
    free(b);
}
END_TEST

/* `tasknet analyze` of a trace: its mapped numbers. */
static double analysed(const char *trace, uint32_t N, const char *key)
{
    const wl_ops *vef = th_wl_ops("vef");
    char f[1024];
    const char *sets[] = {file_set(f, sizeof f, trace), NULL};
    void *wp = th_wl_params(vef, sets);
    net_params core = th_star(N, B10);
    wl_resolve rc = {.nodes = N, .net = &core, .seed = 1};
    char err[1024];
    ck_assert_msg(vef->resolve(wp, &rc, err, sizeof err) == 0, "%s", err);
    wl_analysis a = {0};
    vef->analyze(wp, &rc, &a);
    wl_params_free(vef, wp);
    for (size_t i = 0; i < a.n; i++)
        if (strcmp(a.kv[i].key, key) == 0)
            return a.kv[i].value;
    ck_abort_msg("%s: no %s", trace, key);
    return NAN;
}

START_TEST(test_listings_by_hand)
{
    /* listing 6: 2e6 flows over 2e8 cycles of 1 ns by 128 tasks: 2e6 / (0.2 s x 128) = 78125 /s per task;
     * E[size] = 0.8 x 5.5 kB + 0.2 x 5.5 MB = 4,400 + 1,100,000 = 1,104,400 B */
    ck_assert_double_eq(analysed("configs/vef/listing6.vef", 128, "flows_per_s_per_node"), 78125);
    ck_assert_double_eq_tol(analysed("configs/vef/listing6.vef", 128, "mean_flow_bytes"), 1104400, 1e-6);
    ck_assert_double_eq(analysed("configs/vef/listing6.vef", 128, "flows_expected"), 2e6);
    /* listing 3: LOAD 0.5 Gb/s per task at B = 10 Gb/s: offered load 0.05 of B; #Msgs 2e6 */
    ck_assert_double_eq_tol(analysed("configs/vef/listing3.vef", 128, "offered_load"), 0.05, 1e-12);
    ck_assert_double_eq(analysed("configs/vef/listing3.vef", 128, "flows_expected"), 2e6);
    ck_assert_double_eq(analysed("configs/vef/listing3.vef", 128, "vef_tasks"), 128);
    /* the example: E = 0.4 x 5.5 + 0.2 x 15 + 0.2 x 2 + 0.1 x 0.55 + 0.1 x 75 kB = 13.155 kB; 400 flows over
     * 2e6 cycles of 1 ns by 8 tasks: 25,000 /s per task */
    char ex[1024];
    snprintf(ex, sizeof ex, "configs/data/vef-example.vef");
    ck_assert_double_eq_tol(analysed(ex, 8, "mean_flow_bytes"), 13155, 1e-6);
    ck_assert_double_eq(analysed(ex, 8, "flows_per_s_per_node"), 25000);
}
END_TEST

/* Five classes (a configuration holds four): the fifth's flows are generated
 * and delivered (the first four's counts leave room for them: 10 % of 400,
 * binomial sd 6), and only the first four have metrics of their own. */
START_TEST(test_five_classes)
{
    const wl_ops *vef = th_wl_ops("vef");
    size_t n = vef->nmetrics;
    double *m = calloc(n, sizeof *m);
    uint64_t c[3];
    char f[1024];
    const char *sets[] = {file_set(f, sizeof f, "configs/data/vef-example.vef"), NULL};
    run("vef", sets, 8, 3, m, n, c);
    double four = 0, gen = NAN;
    for (size_t k = 0; k < n; k++) {
        if (!strcmp(vef->metrics[k].name, "flows_class0") || !strcmp(vef->metrics[k].name, "flows_class1") ||
            !strcmp(vef->metrics[k].name, "flows_class2") || !strcmp(vef->metrics[k].name, "flows_class3"))
            four += m[k];
        if (!strcmp(vef->metrics[k].name, "flows_generated"))
            gen = m[k];
    }
    ck_assert_double_eq(gen, 400);
    ck_assert_uint_eq(c[1], 400);
    ck_assert_msg(four > 400 - 40 - 5 * 6 && four < 400 - 40 + 5 * 6, "first four classes: %g flows", four);
    free(m);
}
END_TEST

/* HOROVOD as training: the same numbers as the configuration it maps to
 * (workers 4, 2 iterations, negotiation vef with the DEFAULT's values, a
 * fusion per layer, the layers of horovod-layers.csv: 100 kB, 0.5 ms of
 * backward compute each), bit for bit. */
START_TEST(test_horovod_as_training)
{
    const wl_ops *tr = th_wl_ops("training"), *vef = th_wl_ops("vef");
    size_t base = 0;
    while (strcmp(vef->metrics[base].name, tr->metrics[0].name) != 0)
        base++;
    size_t n = tr->nmetrics;
    double *a = calloc(base + n, sizeof *a), *b = calloc(n, sizeof *b);
    uint64_t ca[3], cb[3];
    char f[1024], lf[1100];
    snprintf(lf, sizeof lf, "workload.layers-file=%s/tests/fixtures/vef/horovod-layers.csv", top());
    double iter_on[3] = {0};
    /* overlap on (the default), then off on both sides: serial is never faster */
    for (int off = 0; off < 2; off++) {
    const char *ov = off ? "workload.overlap=off" : "workload.overlap=on";
    const char *sets[] = {file_set(f, sizeof f, "tests/fixtures/vef/horovod.vef"), ov, NULL};
    const char *xml[] = {"workload.workers=4",         "workload.iterations=2",       "workload.negotiation=vef",
                         "workload.fusion-buffer=0B",  lf,                            "workload.vef.loop=0.2ms",
                         "workload.vef.gatherv-size=60B", "workload.vef.gatherv-total=120B",
                         "workload.vef.gatherv-prob=0.5", "workload.vef.bcast-size=1000B", ov, NULL};
    size_t it = 1; /* iteration_time_mean_s */
    ck_assert_str_eq(tr->metrics[it].name, "iteration_time_mean_s");
    for (uint64_t seed = 1; seed <= 2; seed++) {
        run("vef", sets, 8, seed, a, base + n, ca);
        run("training", xml, 8, seed, b, n, cb);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(memcmp(&a[base + k], &b[k], sizeof b[k]) == 0 || (isnan(a[base + k]) && isnan(b[k])),
                          "seed %llu: %s = %.17g from the trace, %.17g from the configuration",
                          (unsigned long long)seed, tr->metrics[k].name, a[base + k], b[k]);
        ck_assert_uint_eq(ca[0], cb[0]);
        ck_assert_uint_eq(ca[2], cb[2]);
        ck_assert_double_eq(a[base], 2); /* iterations_completed */
        ck_assert_msg(isnan(a[0]), "flows_generated %g for a HOROVOD trace", a[0]);
        if (!off)
            iter_on[seed] = b[it];
        else
            ck_assert_msg(b[it] >= iter_on[seed], "seed %llu: serial iteration %.17g < overlapped %.17g",
                          (unsigned long long)seed, b[it], iter_on[seed]);
    }
    }
    free(a);
    free(b);
    /* overlap is HOROVOD's: a flow trace refuses it */
    th_run h = {0};
    net_params core = th_star(8, B10);
    const char *dcnw[] = {file_set(f, sizeof f, "configs/vef/listing3.vef"), "workload.overlap=off", NULL};
    ck_assert_int_ne(th_run_all(&h, "electrical-switch", &core, NULL, "vef", dcnw, 1, 0, NULL), 0);
    ck_assert_msg(strstr(h.err, "overlap=\"off\" is for HOROVOD traces (this one is DCNW)") != NULL, "%s", h.err);
    th_run_close(&h);
}
END_TEST

/* Per-layer overrides by hand: 2 layers, one batch, GATV_PROB 1 and 60 B of
 * 60 needed: one round per layer. Messages: per layer a round of 4 (W-1)
 * = 12 (gather, gatherv, two broadcasts per rank) and a ring allreduce of
 * 2 (W-1) W = 24: 72. Bytes: per round 3 x (4 + 60) up and 3 x 4 down plus
 * the broadcasts, 3 x 1000 (layer 0) and 3 x 2000 (layer 1, overridden);
 * the rings carry 2 (W-1) x S: 6 x 100 kB and 6 x 300 kB (overridden).
 *   = 2 x (192 + 12) + 3000 + 6000 + 600,000 + 1,800,000 = 2,409,408 B. */
START_TEST(test_horovod_overrides)
{
    const wl_ops *vef = th_wl_ops("vef");
    double *m = calloc(vef->nmetrics, sizeof *m);
    uint64_t c[3];
    char f[1024];
    const char *sets[] = {file_set(f, sizeof f, "tests/fixtures/vef/horovod_override.vef"), NULL};
    run("vef", sets, 4, 1, m, vef->nmetrics, c);
    ck_assert_uint_eq(c[0], 72);
    ck_assert_uint_eq(c[2], 2409408);
    for (size_t k = 0; k < vef->nmetrics; k++)
        if (!strcmp(vef->metrics[k].name, "negotiation_rounds"))
            ck_assert_double_eq(m[k], 2);
    free(m);
}
END_TEST

/* Each rejected trace: its file and line and what was expected. */
static const struct {
    const char *file;
    int line;
    const char *says;
} bad[] = {
    {"bad_header.vef", 1, "expected the header 'VEF3 #Task #Msgs"},
    {"bad_tasks.vef", 1, "#Task is 1"},
    {"bad_ext.vef", 2, "unknown extended model 'FOO'"},
    {"bad_model.vef", 3, "unknown DCNW model 'YAHOO'"},
    {"bad_load.vef", 3, "LOAD takes the Gb/s each task generates"},
    {"bad_extra.vef", 4, "unexpected record after the DCNW record"},
    {"bad_cdcnw.vef", 3, "cannot read the size distribution file"},
    {"bad_time.vef", 3, "TIME takes the generation time in cycles"},
    {"bad_class_id.vef", 5, "a class line starts with its id, an integer in [0, 1] (got '2')"},
    {"bad_class_missing.vef", 4, "class 0 needs MAX, MIN and PERC (missing PERC)"},
    {"bad_perc.vef", 3, "the classes' PERC sum to 90, not 100"},
    {"bad_minmax.vef", 6, "class 0: MIN 10 KB is above MAX 1 KB"},
    {"bad_few_classes.vef", 3, "CLASSES 3, and 2 class lines follow"},
    {"bad_class_twice.vef", 5, "class 0 given twice (first at line 4)"},
    {"bad_class_word.vef", 4, "class 0: unexpected 'SIZE'"},
    {"bad_hv_default.vef", 4, "DEFAULT needs every field (missing GATV_TOTAL_BYTES)"},
    {"bad_hv_layer.vef", 5, "a layer record starts with its id, an integer in [0, 1] (got '2')"},
    {"bad_hv_prob.vef", 4, "GATV_PROB takes a probability in [0, 1] (got '1.5')"},
    {"bad_hv_head.vef", 3, "HOROVOD needs BATCHES b and LAYERS l (missing BATCHES)"},
};

START_TEST(test_bad_traces)
{
    const wl_ops *vef = th_wl_ops("vef");
    char f[1024], rel[256], err[2048], want[512];
    snprintf(rel, sizeof rel, "tests/fixtures/vef/%s", bad[_i].file);
    const char *sets[] = {file_set(f, sizeof f, rel), NULL};
    void *wp = th_wl_params(vef, sets);
    net_params core = th_star(16, B10);
    param_first first;
    vef->check(&core, wp, param_report_first(&first, err, sizeof err));
    ck_assert_msg(first.rep.n > 0, "%s accepted", bad[_i].file);
    snprintf(want, sizeof want, "%s:%d: ", bad[_i].file, bad[_i].line);
    ck_assert_msg(strstr(err, want) != NULL, "%s: '%s' does not say %s", bad[_i].file, err, want);
    ck_assert_msg(strstr(err, bad[_i].says) != NULL, "%s: '%s' does not say '%s'", bad[_i].file, err, bad[_i].says);
    ck_assert_msg(strncmp(err, "workload.file", 13) == 0, "%s: %s", bad[_i].file, err);
    wl_params_free(vef, wp);
}
END_TEST

/* More tasks than the workload's nodes: at the trace's header. */
START_TEST(test_tasks_above_nodes)
{
    const wl_ops *vef = th_wl_ops("vef");
    char f[1024], err[2048];
    const char *sets[] = {file_set(f, sizeof f, "tests/fixtures/vef/dcnw.vef"), NULL};
    void *wp = th_wl_params(vef, sets);
    net_params core = th_star(8, B10);
    param_first first;
    vef->check(&core, wp, param_report_first(&first, err, sizeof err));
    ck_assert_msg(strstr(err, "dcnw.vef:1: 16 tasks need 16 nodes (the workload has 8)") != NULL, "%s", err);
    wl_params_free(vef, wp);
}
END_TEST

static Suite *vef_suite(void)
{
    Suite *s = suite_create("vef");
    TCase *t = tcase_create("vef");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_dcnw_as_dc_flows);
    tcase_add_test(t, test_cdcnw_as_dc_flows);
    tcase_add_test(t, test_flows_as_dc_flows);
    tcase_add_test(t, test_tasks_below_nodes);
    tcase_add_test(t, test_listings_by_hand);
    tcase_add_test(t, test_five_classes);
    tcase_add_test(t, test_horovod_as_training);
    tcase_add_test(t, test_horovod_overrides);
    tcase_add_loop_test(t, test_bad_traces, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(t, test_tasks_above_nodes);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(vef_suite)
