/* The dc-flows workload (workloads/wl_dc_flows.c): a lone flow's FCT is its
 * zero-load time on every fabric, the Poisson generator's counts and the
 * published distributions' shape, FLOWS classes, the destination laws, the
 * same traffic on every fabric, and the host NIC's policies seen through
 * flow completion times. Expected values by hand beside each assertion. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "network.h"
#include "workload.h"


static th_run *open_run(const char *fabric, uint32_t N, const char *const *net_sets, const char *const *wl_sets,
                        uint64_t seed)
{
    th_run *h = calloc(1, sizeof *h);
    net_params core = th_star(N, B10);
    void *wp = th_wl_params(th_wl_ops("dc-flows"), wl_sets);
    ck_assert_msg(th_run_open(h, fabric, &core, net_sets, "dc-flows", wp, seed, 0) == 0, "%s", h->err);
    return h;
}

static void finish(th_run *h)
{
    th_run_go(h);
    ck_assert_msg(th_run_finish(h) == 0, "%s", h->err);
}

/* The settings that give fabric f 16 hosts (th_net_shape) followed by
 * `more` (NULL-terminated), in *out (room for 16). */
static const char *const *shaped(const net_ops *f, const char *const *more, const char **out)
{
    const char *const *sh = th_net_shape(f, 16);
    size_t k = 0;
    for (size_t i = 0; sh[i] && k < 15; i++)
        out[k++] = sh[i];
    for (size_t i = 0; more && more[i] && k < 15; i++)
        out[k++] = more[i];
    out[k] = NULL;
    return out;
}

static int switched(const char *name)
{
    return strcmp(name, "torus") == 0 || strcmp(name, "fat-tree") == 0 || strcmp(name, "leaf-spine") == 0 ||
           strcmp(name, "dragonfly") == 0;
}

static void close_run(th_run *h)
{
    th_run_close(h);
    free(h);
}

/* One flow in the whole run (flows=1): whichever node draws the first
 * arrival sends it, alone in the fabric, so its FCT is the fabric's own
 * zero-load time for it and its slowdown exactly 1, on every fabric and
 * every host setting (the switched topologies shaped to 16 hosts, srpt at
 * their hosts and ports too). On the switch at 10 Gb/s a 15 000-B flow takes
 * 15 000 x 800 ps + 240 ns = 12.24 us (in 10 packets of 1500 B the same:
 * 10 x 1.2 us + 240 ns). */
START_TEST(test_lone_flow_every_fabric)
{
    static const char *const sizes[] = {"workload.sizes=15000B", "workload.sizes=websearch",
                                        "workload.sizes=google-allrpc"};
    static const char *const v0[] = {NULL};
    static const char *const v1[] = {"network.host-scheduling=srpt", "network.mtu=1500B", NULL};
    static const char *const v2[] = {"network.host-scheduling=round-robin", "network.mtu=4kB",
                                     "network.host-link=shared", NULL};
    static const char *const *const variants[] = {v0, v1, v2};
    for (size_t f = 0; net_registry[f]; f++)
        for (size_t s = 0; s < 3; s++)
            for (size_t v = 0; v < 3; v++) {
                const char *name = net_registry[f]->name;
                /* each variant on the fabrics that have its rows */
                if (v == 1 && strcmp(name, "electrical-switch") != 0 && !switched(name))
                    continue;
                if (v == 2 && strcmp(name, "ideal") != 0)
                    continue;
                const char *wl[] = {sizes[s], "workload.load=0.3", "workload.flows=1", NULL};
                const char *sets[16];
                const char *const *ns = v == 0 || switched(name) ? shaped(net_registry[f], variants[v], sets)
                                                                 : variants[v];
                th_run *h = open_run(name, 16, ns, wl, 1 + s);
                finish(h);
                ck_assert_double_eq(th_metric(h, "flows_generated"), 1);
                ck_assert_double_eq(th_metric(h, "flows_measured"), 1);
                ck_assert_msg(th_metric(h, "fct_slowdown_mean") == 1, "%s variant %zu %s: slowdown %.17g", name, v,
                              sizes[s], th_metric(h, "fct_slowdown_mean"));
                if (s == 0 && (strcmp(name, "ideal") == 0 || strcmp(name, "electrical-switch") == 0))
                    ck_assert_double_eq_tol(th_metric(h, "fct_mean_s"), 12.24e-6, 1e-18);
                close_run(h);
            }
}
END_TEST

/* Seed 002 Table 5.5's set-up on the ideal fabric: 8 nodes, 23 flows/s
 * each, web search sizes, 12 s with 2 s of warm-up and of cool-down: the
 * measured flows are Poisson with mean 8 x 23 x 8 = 1472 (sd 38.4): within
 * 4 sd. Small flows (< 100 kB) are a fraction F(100 kB) = 0.53 + 0.07 x
 * 20/120 = 0.541667 of them (linear between (80 kB, 0.53) and (200 kB,
 * 0.6)), large (>= 10 MB) 1 - 0.97 = 0.03: binomial, within 4 sd. Offered
 * load: 23 x 1 711 550 B x 8 / 10 Gb/s = 0.0314925 (the file's linear mean,
 * computed from its points by hand: sum of (x_i + x_{i+1})/2 (c_{i+1} - c_i)).
 * On the ideal fabric every flow is alone: every slowdown is 1. */
START_TEST(test_poisson_counts)
{
    const char *wl[] = {"workload.sizes=websearch", "workload.flow-rate=23/s", "workload.duration=12s",
                        "workload.warmup=2s", "workload.cooldown=2s", NULL};
    th_run *h = open_run("ideal", 8, NULL, wl, 5);
    finish(h);
    double n = th_metric(h, "flows_measured");
    ck_assert_msg(fabs(n - 1472) < 4 * sqrt(1472), "measured %g flows", n);
    double ps = 0.541667, pl = 0.03;
    ck_assert_msg(fabs(th_metric(h, "flows_small") / n - ps) < 4 * sqrt(ps * (1 - ps) / n), "small %g of %g",
                  th_metric(h, "flows_small"), n);
    ck_assert_msg(fabs(th_metric(h, "flows_large") / n - pl) < 4 * sqrt(pl * (1 - pl) / n), "large %g of %g",
                  th_metric(h, "flows_large"), n);
    ck_assert_double_eq(th_metric(h, "flows_small") + th_metric(h, "flows_medium") + th_metric(h, "flows_large"), n);
    ck_assert_double_eq_tol(th_metric(h, "offered_load"), 23 * 1711550.0 * 8 / 1e10, 1e-9);
    ck_assert_double_eq(th_metric(h, "fct_slowdown_mean"), 1);
    ck_assert_double_eq(th_metric(h, "fct_slowdown_p99"), 1);
    /* every generated flow arrived before 12 s; the measured ones in [2, 10) */
    ck_assert_double_ge(th_metric(h, "flows_generated"), n);
    ck_assert_double_ge(th_metric(h, "execution_time_s"), 10);
    close_run(h);
}
END_TEST

/* The three ways to give the load are one: at B = 10 Gb/s and E[size] =
 * 2927.7 B (google-allrpc), load 0.5 = load-rate 5 Gb/s = flow-rate
 * 0.5 x 1e10 / (8 x E) flows/s: the same gaps, the same run. */
START_TEST(test_load_forms)
{
    const char *a[] = {"workload.sizes=google-allrpc", "workload.load=0.5", "workload.duration=200us", NULL};
    const char *b[] = {"workload.sizes=google-allrpc", "workload.load-rate=5Gb/s", "workload.duration=200us", NULL};
    th_run *ha = open_run("electrical-switch", 16, NULL, a, 3);
    th_run *hb = open_run("electrical-switch", 16, NULL, b, 3);
    finish(ha);
    finish(hb);
    ck_assert_double_eq(th_metric(ha, "flows_generated"), th_metric(hb, "flows_generated"));
    ck_assert_double_eq(th_metric(ha, "fct_mean_s"), th_metric(hb, "fct_mean_s"));
    ck_assert_double_eq_tol(th_metric(ha, "offered_load"), 0.5, 1e-12);
    ck_assert_double_eq_tol(th_metric(hb, "offered_load"), 0.5, 1e-12);
    close_run(ha);
    close_run(hb);
}
END_TEST

/* Seed 000's FLOWS example: 80 % of the flows in uniform(1kB,10kB), 20 % in
 * uniform(1MB,10MB) with Gaussian destinations. Class 0 flows are all small
 * (< 100 kB) and class 1 all medium (1..10 MB < 10 MB): the counts match
 * exactly; the class-0 share is binomial around 0.8. */
START_TEST(test_flows_classes)
{
    const char *wl[] = {"workload.load=0.4",
                        "workload.duration=2ms",
                        "workload.class0.share=0.8",
                        "workload.class0.size=uniform(1kB,10kB)",
                        "workload.class1.share=0.2",
                        "workload.class1.size=uniform(1MB,10MB)",
                        "workload.class1.destinations=gaussian",
                        NULL};
    th_run *h = open_run("electrical-switch", 16, NULL, wl, 2);
    finish(h);
    double n = th_metric(h, "flows_measured");
    ck_assert_double_eq(th_metric(h, "flows_class0"), th_metric(h, "flows_small"));
    ck_assert_double_eq(th_metric(h, "flows_class1"), th_metric(h, "flows_medium"));
    ck_assert_double_eq(th_metric(h, "flows_large"), 0);
    ck_assert_msg(fabs(th_metric(h, "flows_class0") / n - 0.8) < 4 * sqrt(0.16 / n), "class 0: %g of %g",
                  th_metric(h, "flows_class0"), n);
    ck_assert(isnan(th_metric(h, "flows_class2")));
    /* E[size] = 0.8 x 5.5 kB + 0.2 x 5.5 MB = 1 104 400 B sets the rate */
    ck_assert_double_eq_tol(th_metric(h, "offered_load"), 0.4, 1e-12);
    close_run(h);
}
END_TEST

/* Class priorities with strict queues: the small class at priority 0 over a
 * class of big flows at priority 2 completes faster than when all share
 * one class (same seed: the same flows). */
START_TEST(test_class_priority)
{
    double small_fct[2];
    for (int pr = 0; pr < 2; pr++) {
        const char *wl[] = {"workload.load=0.6",
                            "workload.duration=5ms",
                            "workload.class0.share=0.9",
                            "workload.class0.size=uniform(1kB,10kB)",
                            "workload.class1.share=0.1",
                            "workload.class1.size=uniform(1MB,2MB)",
                            pr ? "workload.class0.priority=0" : "workload.class0.priority=inherit",
                            pr ? "workload.class1.priority=2" : "workload.class1.priority=inherit",
                            NULL};
        const char *nsets[] = {"network.host-scheduling=priority", "network.mtu=1500B", NULL};
        th_run *h = open_run("electrical-switch", 16, nsets, wl, 4);
        finish(h);
        small_fct[pr] = th_metric(h, "fct_class0_mean_s");
        close_run(h);
    }
    ck_assert_msg(small_fct[1] < 0.5 * small_fct[0], "small flows: %g s with priority, %g s without", small_fct[1],
                  small_fct[0]);
}
END_TEST

/* ---- destinations ---- */

typedef struct dst_tally {
    uint64_t n, to_self;
    double sum, sum2;
    uint32_t N;
} dst_tally;

static void tally(void *ctx, const net_msg *m)
{
    dst_tally *t = ctx;
    t->n++;
    t->to_self += m->src == m->dst;
    t->sum += m->dst;
    t->sum2 += (double)m->dst * m->dst;
}

/* 128 nodes (seed 000's 128 tasks): gaussian destinations around mu = 64
 * with sigma = 16, redrawn when outside 0..127 (4 sd away: 6e-5 of the
 * draws) or equal to the source: their mean is 64 and their sd 16 within
 * sampling error (4 sd / sqrt(n) for the mean); poisson(64): mean 64,
 * variance 64; uniform: mean 63.5, never the source. */
START_TEST(test_destinations)
{
    static const struct {
        const char *mode;
        double mean, sd;
    } cases[] = {{"gaussian", 64, 16}, {"poisson", 64, 8}, {"uniform", 63.5, 36.95}};
    for (size_t k = 0; k < 3; k++) {
        char d[64];
        snprintf(d, sizeof d, "workload.destinations=%s", cases[k].mode);
        const char *wl[] = {"workload.sizes=1kB", "workload.load=0.1", "workload.flows=20000", d, NULL};
        th_run h = {0};
        dst_tally t = {0};
        h.tap = tally;
        h.tap_ctx = &t;
        net_params core = th_star(128, B10);
        ck_assert_int_eq(th_run_open(&h, "ideal", &core, NULL, "dc-flows", th_wl_params(th_wl_ops("dc-flows"), wl), 9, 0), 0);
        th_run_go(&h);
        ck_assert_int_eq(th_run_finish(&h), 0);
        ck_assert_uint_eq(t.n, 20000);
        ck_assert_uint_eq(t.to_self, 0);
        double mean = t.sum / t.n, sd = sqrt(t.sum2 / t.n - mean * mean);
        ck_assert_msg(fabs(mean - cases[k].mean) < 4 * cases[k].sd / sqrt((double)t.n), "%s: mean %g", cases[k].mode,
                      mean);
        ck_assert_msg(fabs(sd - cases[k].sd) < 0.05 * cases[k].sd, "%s: sd %g", cases[k].mode, sd);
        th_run_close(&h);
    }
}
END_TEST

/* The same seed offers the same flows to every fabric: the same count of
 * flows and the same bytes, whatever the fabric does with them. */
START_TEST(test_same_traffic_every_fabric)
{
    double gen = -1, bytes = -1;
    for (size_t f = 0; net_registry[f]; f++) {
        const char *wl[] = {"workload.sizes=fb-webserver", "workload.load=0.5", "workload.duration=2ms", NULL};
        th_run *h = open_run(net_registry[f]->name, 16, th_net_shape(net_registry[f], 16), wl, 11);
        finish(h);
        double g = th_metric(h, "flows_generated"), b = th_net_metric(h->n, "bytes_delivered");
        if (gen < 0) {
            gen = g;
            bytes = b;
        }
        ck_assert_double_eq(g, gen);
        ck_assert_double_eq(b, bytes);
        close_run(h);
    }
    ck_assert_double_gt(gen, 100);
}
END_TEST

/* Web search at 50 % load on the switch, 16 nodes, 1500-B packets: SRPT
 * serves the small flows ahead of the big ones they would wait behind, so
 * their mean slowdown falls well below FIFO's; round-robin lies between
 * (the same flows each time). */
START_TEST(test_policies_on_websearch)
{
    double slow[3];
    static const char *const pol[] = {"network.host-scheduling=fifo", "network.host-scheduling=round-robin",
                                      "network.host-scheduling=srpt"};
    for (int k = 0; k < 3; k++) {
        const char *nsets[] = {pol[k], "network.mtu=1500B", NULL};
        const char *wl[] = {"workload.sizes=websearch", "workload.load=0.5", "workload.duration=20ms", NULL};
        th_run *h = open_run("electrical-switch", 16, nsets, wl, 6);
        finish(h);
        slow[k] = th_metric(h, "fct_slowdown_small_mean");
        close_run(h);
    }
    ck_assert_msg(slow[2] < slow[1] && slow[1] < slow[0], "small-flow slowdown fifo %g rr %g srpt %g", slow[0], slow[1],
                  slow[2]);
}
END_TEST

/* The same on the 4-ary 2-tree (16 hosts, 1500-B packets, credits: srpt
 * serves by remaining size at the hosts, the ports are FIFOs, swnet.c's
 * head says why), 100 ms (about 600 flows): the small flows' slowdown
 * falls from fifo (about 1000: small flows wait behind megabytes at their
 * host) to round-robin (about 5) to srpt (about 2.6). */
START_TEST(test_policies_on_fat_tree)
{
    double slow[3];
    static const char *const pol[] = {"network.host-scheduling=fifo", "network.host-scheduling=round-robin",
                                      "network.host-scheduling=srpt"};
    for (int k = 0; k < 3; k++) {
        const char *nsets[] = {pol[k], "network.mtu=1500B", "network.arity=4", "network.levels=2", NULL};
        const char *wl[] = {"workload.sizes=websearch", "workload.load=0.5", "workload.duration=100ms", NULL};
        th_run *h = open_run("fat-tree", 16, nsets, wl, 6);
        finish(h);
        slow[k] = th_metric(h, "fct_slowdown_small_mean");
        close_run(h);
    }
    ck_assert_msg(slow[2] < slow[1] && slow[1] < slow[0], "small-flow slowdown fifo %g rr %g srpt %g", slow[0], slow[1],
                  slow[2]);
}
END_TEST

/* Configuration rules: the shares of the classes sum to 1; sizes or
 * classes, not both; one way to give the load; the window fits. */
START_TEST(test_checks)
{
    static const struct {
        const char *sets[6];
        const char *path;
    } bad[] = {
        {{"workload.load=0.5", "workload.duration=1ms", "workload.class0.share=0.5",
          "workload.class0.size=1kB", NULL},
         "workload.class0.share"},
        {{"workload.sizes=1kB", "workload.load=0.5", "workload.duration=1ms", "workload.class0.share=1",
          "workload.class0.size=1kB", NULL},
         "workload.sizes"},
        {{"workload.sizes=1kB", "workload.duration=1ms", NULL}, "missing workload.load"},
        {{"workload.sizes=1kB", "workload.load=0.5", "workload.flow-rate=5/s", "workload.duration=1ms", NULL},
         "workload.flow-rate"},
        {{"workload.sizes=1kB", "workload.load=0.5", "workload.duration=1ms", "workload.warmup=1ms", NULL},
         "workload.warmup"},
        {{"workload.load=0.5", "workload.duration=1ms", NULL}, "missing workload.sizes"},
    };
    const wl_ops *ops = th_wl_ops("dc-flows");
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        void *p = th_wl_params(ops, bad[k].sets);
        char err[512];
        param_first first;
        net_params core = th_star(8, B10);
        ops->check(&core, p, param_report_first(&first, err, sizeof err));
        ck_assert_msg(first.rep.n > 0 && strstr(err, bad[k].path) != NULL, "case %zu: '%s'", k, err);
        wl_params_free(ops, p);
    }
    /* a published name keeps its name as its text; an unknown one is a distribution error */
    void *p = th_wl_params(ops, (const char *const[]){"workload.sizes=websearch", NULL});
    char *t = param_format(p, &ops->params[0], NULL);
    ck_assert_str_eq(t, "websearch");
    free(t);
    wl_params_free(ops, p);
    param_value v;
    char err[512];
    ck_assert_int_ne(param_parse(&ops->params[0], "websarch", ".", &v, err, sizeof err), 0);
}
END_TEST

/* A flow list (workload.flow-list) into a file of its own; returns its path (static). */
static const char *write_list(const char *text)
{
    static char path[64];
    strcpy(path, "/tmp/tn-flowlist-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* The flows of a list arrive at their times, in time order whatever the
 * file's order, between the ranks and of the sizes written. On the switch at
 * 10 Gb/s (th_star: 240 ns of links and switch) with whole messages, flows
 * apart in time are each alone: 15 000 B take 15 000 x 800 ps + 240 ns =
 * 12.24 us, 1 500 B 1.2 us + 240 ns = 1.44 us, slowdown exactly 1; the
 * mean FCT (12.24 + 1.44 + 12.24) / 3 = 8.64 us; the last (at 200 us)
 * delivers at 212.24 us. Two flows at the same time from different sources
 * to one destination share its link: the second (in file order) waits for the
 * first, 2 x 12 us + 240 ns. workload.flows=2 keeps the first two in time,
 * workload.duration=150us those before 150 us. offered_load = 8 bytes /
 * (N B T), T the last arrival: 8 x 31 500 / (4 x 1e10 x 200e-6) = 0.0315. */
START_TEST(test_flow_list)
{
    char set[128];
    const char *path = write_list("# start_s in seconds\n"
                                  "bytes,src,dst,start_s\n"
                                  "15000,1,0,0.0002\n"
                                  "15000,0,1,0.000010\n"
                                  "\n"
                                  "1500,2,3,100e-6\n");
    snprintf(set, sizeof set, "workload.flow-list=%s", path);
    const char *wl[] = {set, NULL};
    th_run *h = open_run("electrical-switch", 4, NULL, wl, 1);
    finish(h);
    ck_assert_double_eq(th_metric(h, "flows_measured"), 3);
    ck_assert_double_eq(th_metric(h, "fct_slowdown_mean"), 1);
    ck_assert_double_eq_tol(th_metric(h, "fct_mean_s"), 8.64e-6, 1e-15);
    ck_assert_double_eq_tol(th_metric(h, "execution_time_s"), 212.24e-6, 1e-15);
    ck_assert_double_eq_tol(th_metric(h, "offered_load"), 0.0315, 1e-12);
    ck_assert_double_eq(th_metric(h, "flows_small"), 3);
    close_run(h);

    const char *wl2[] = {set, "workload.flows=2", NULL};
    h = open_run("electrical-switch", 4, NULL, wl2, 1);
    finish(h);
    ck_assert_double_eq(th_metric(h, "flows_generated"), 2);
    ck_assert_double_eq_tol(th_metric(h, "execution_time_s"), 101.44e-6, 1e-15);
    close_run(h);
    const char *wl3[] = {set, "workload.duration=150us", NULL};
    h = open_run("electrical-switch", 4, NULL, wl3, 1);
    finish(h);
    ck_assert_double_eq(th_metric(h, "flows_generated"), 2);
    close_run(h);
    unlink(path);

    path = write_list("start_s,src,dst,bytes\n0.00001,0,2,15000\n0.00001,1,2,15000\n");
    snprintf(set, sizeof set, "workload.flow-list=%s", path);
    h = open_run("electrical-switch", 4, NULL, wl, 1);
    finish(h);
    ck_assert_double_eq_tol(th_metric(h, "fct_mean_s"), (12.24e-6 + 24.24e-6) / 2, 1e-15);
    close_run(h);
    unlink(path);
}
END_TEST

/* A bad flow list is refused at its line, saying what was expected. */
START_TEST(test_flow_list_errors)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"start_s,src,dst\n0,0,1\n", ":1: the header names no bytes column"},
        {"start_s,src,dst,bytes\n0,0,1,100\n0,0,4,100\n", ":3: rank 4, and the workload has ranks 0..3"},
        {"start_s,src,dst,bytes\n0,2,2,100\n", ":2: a flow from rank 2 to itself"},
        {"start_s,src,dst,bytes\n0,0,1,1.5\n", ":2: bytes '1.5': expected an integer >= 1"},
        {"start_s,src,dst,bytes\n0,0,1,0\n", ":2: bytes '0': expected an integer >= 1"},
        {"start_s,src,dst,bytes\n-1,0,1,10\n", ":2: start -1 s is outside"},
        {"start_s,src,dst,bytes\n1ms,0,1,10\n", ":2: start_s '1ms' is not a number"},
        {"start_s,src,dst,bytes\n0,0\n", ":2: 2 fields, expected a dst in field 3"},
        {"start_s,src,dst,bytes\n# none\n", "no flows after the header"},
    };
    const wl_ops *ops = th_wl_ops("dc-flows");
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char set[128];
        const char *path = write_list(bad[k].text);
        snprintf(set, sizeof set, "workload.flow-list=%s", path);
        void *p = th_wl_params(ops, (const char *const[]){set, NULL});
        char err[1024];
        param_first first;
        net_params core = th_star(4, B10);
        ops->check(&core, p, param_report_first(&first, err, sizeof err));
        ck_assert_msg(first.rep.n > 0 && strstr(err, bad[k].want) != NULL && strstr(err, path) != NULL, "case %zu: '%s'",
                      k, err);
        wl_params_free(ops, p);
        unlink(path);
    }
    /* a list gives arrivals and sizes: no load, no sizes */
    const char *path = write_list("start_s,src,dst,bytes\n0,0,1,10\n");
    char set[128];
    snprintf(set, sizeof set, "workload.flow-list=%s", path);
    static const char *const other[][2] = {{"workload.load=0.5", "workload.load"}, {"workload.sizes=1kB", "workload.sizes"}};
    for (size_t k = 0; k < 2; k++) {
        void *p = th_wl_params(ops, (const char *const[]){set, other[k][0], NULL});
        char err[1024];
        param_first first;
        net_params core = th_star(4, B10);
        ops->check(&core, p, param_report_first(&first, err, sizeof err));
        ck_assert_msg(first.rep.n > 0 && strstr(err, other[k][1]) != NULL, "'%s'", err);
        wl_params_free(ops, p);
    }
    unlink(path);
}
END_TEST

static Suite *dc_flows_suite(void)
{
    Suite *s = suite_create("dc_flows");
    TCase *t = tcase_create("dc_flows");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_lone_flow_every_fabric);
    tcase_add_test(t, test_poisson_counts);
    tcase_add_test(t, test_load_forms);
    tcase_add_test(t, test_flows_classes);
    tcase_add_test(t, test_class_priority);
    tcase_add_test(t, test_destinations);
    tcase_add_test(t, test_same_traffic_every_fabric);
    tcase_add_test(t, test_policies_on_websearch);
    tcase_add_test(t, test_policies_on_fat_tree);
    tcase_add_test(t, test_checks);
    tcase_add_test(t, test_flow_list);
    tcase_add_test(t, test_flow_list_errors);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(dc_flows_suite)
