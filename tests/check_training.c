/* The training workload (workloads/wl_training.c): ring allreduce, tensor
 * fusion, fifo vs priority transmission, the inter-iteration barrier,
 * seed 000's negotiation, the layer profiles and the metrics, each on a
 * case worked by hand beside it.
 *
 * Common numbers: B = 10 Gb/s (1 B = 800 ps), links 20 ns, switch 200 ns,
 * so a message alone takes ser + 240 ns. With 2 workers a 1-MB fusion is
 * two chunks of 500 kB: 2 steps of 400 us + 240 ns, T_AR = 800.48 us. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "harness.h"
#include "network.h"
#include "workload.h"

#define US 1e-6

static th_run *run_training(const char *fabric, uint32_t N, double bps, const char *const *net_sets,
                            const char *const *wl_sets)
{
    th_run *h = calloc(1, sizeof *h);
    net_params core = th_star(N, bps);
    void *wp = th_wl_params(th_wl_ops("training"), wl_sets);
    ck_assert_msg(th_run_open(h, fabric, &core, net_sets, "training", wp, 1, 0) == 0, "%s", h->err);
    th_run_go(h);
    ck_assert_msg(th_run_finish(h) == 0, "%s", h->err);
    return h;
}

static void done(th_run *h)
{
    th_run_close(h);
    free(h);
}

#define ck_near(x, want) ck_assert_msg(fabs((x) - (want)) <= 1e-12 * fabs(want) + 1e-15, "%.17g, expected %.17g", (double)(x), (double)(want))

/* The hand case: 4 workers, one 4-MB fusion on the switch, nothing
 * to compute: 2(W-1) = 6 steps, each worker sending a 1-MB chunk to its
 * right neighbour per step (every uplink and every output port carries one
 * message per step, so nothing queues): each step 800 us + 240 ns, the
 * allreduce 6 x 800.24 us = 4.80144 ms, which is also the iteration. The
 * same in 1500-B packets (666 x 1.2 us + 0.8 us per chunk: 800 us) and on
 * the ideal fabric. Each worker sends 6 MB: link utilisation
 * 8 x 24 MB / (4 x 10 Gb/s x 4.80144 ms) = 0.99970009... */
START_TEST(test_ring_allreduce_switch)
{
    const char *wl[] = {"workload.workers=4", "workload.layers=1", "workload.model-size=4MB",
                        "workload.layer-sizes=uniform", "workload.compute-time=0s", "workload.iterations=1", NULL};
    const char *pk[] = {"network.mtu=1500B", NULL};
    const char *pk_rr[] = {"network.mtu=1500B", "network.host-scheduling=round-robin", NULL};
    struct {
        const char *fabric;
        const char *const *sets;
    } cases[] = {{"electrical-switch", NULL}, {"electrical-switch", pk}, {"electrical-switch", pk_rr}, {"ideal", NULL}};
    for (size_t k = 0; k < 4; k++) {
        th_run *h = run_training(cases[k].fabric, 4, B10, cases[k].sets, wl);
        ck_near(th_metric(h, "allreduce_time_mean_s"), 4801.44 * US);
        ck_near(th_metric(h, "iteration_time_mean_s"), 4801.44 * US);
        ck_assert_double_eq(th_metric(h, "allreduces"), 1);
        ck_near(th_metric(h, "link_utilization"), 8 * 24e6 / (4 * B10 * 4801.44 * US));
        ck_assert_double_eq(th_net_metric(h->n, "bytes_delivered"), 24e6);
        ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 24);
        done(h);
    }
    /* 3 workers, 1000 B: chunks 334, 333, 333; each rank sends 4 steps,
     * 4000 B in all = 2 (W - 1) S */
    const char *wl3[] = {"workload.workers=3", "workload.layers=1", "workload.model-size=1000B",
                         "workload.layer-sizes=uniform", "workload.compute-time=0s", "workload.iterations=1", NULL};
    th_run *h = run_training("ideal", 3, B10, NULL, wl3);
    ck_assert_double_eq(th_net_metric(h->n, "bytes_delivered"), 4000);
    done(h);
}
END_TEST

/* allreduce= (issue 20): 4 workers, one 4-MB fusion alone on the switch
 * (T(m) = ser(m) + 240 ns, ser(1 MB) = 800 us):
 *   ring: 6 steps of 1 MB: 6 x 800.24 = 4801.44 us, 24 messages;
 *   halving-doubling: 2 MB, 1 MB, then 1 MB, 2 MB: 2 (1600.24 + 800.24) =
 *     4800.96 us, 16 messages;
 *   direct: 3 sends of 1 MB back to back per rank, each port fed by one at a
 *     time: 2400.24 per phase, 4800.48 us, 24 messages;
 *   hierarchical (groups of 2): reduce-scatter 2 MB (1600.24), ring of 2 MB
 *     over 2 groups (2 x 800.24), allgather 2 MB (1600.24): 4800.96 us, 16
 *     messages; groups of 4: one group, the ring's 4801.44 us, 24 messages;
 *   tree (halves of 2 MB, T = 1600.24, ser 1600): trees 0 -> 2 -> {1, 3} and
 *     3 -> 1 -> {2, 0}: leaves send (T), the second into the same port waits a
 *     ser, inner nodes forward (T), roots answer (T), inner nodes send two
 *     (T, then a ser later): 4 T + 2 ser = 9600.96 us, 12 messages.
 * Every algorithm moves 24 MB here (each rank sends 6 MB). */
START_TEST(test_allreduce_algorithms)
{
    struct {
        const char *alg, *group;
        double us, msgs;
    } cases[] = {{"ring", NULL, 4801.44, 24},         {"halving-doubling", NULL, 4800.96, 16},
                 {"direct", NULL, 4800.48, 24},       {"hierarchical", NULL, 4800.96, 16},
                 {"hierarchical", "4", 4801.44, 24},  {"tree", NULL, 9600.96, 12}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char alg[64], grp[64];
        snprintf(alg, sizeof alg, "workload.allreduce=%s", cases[k].alg);
        snprintf(grp, sizeof grp, "workload.allreduce-group=%s", cases[k].group ? cases[k].group : "2");
        const char *wl[] = {"workload.workers=4", "workload.layers=1", "workload.model-size=4MB",
                            "workload.layer-sizes=uniform", "workload.compute-time=0s", "workload.iterations=2",
                            alg, strcmp(cases[k].alg, "hierarchical") == 0 ? grp : NULL, NULL};
        th_run *h = run_training("electrical-switch", 4, B10, NULL, wl);
        ck_near(th_metric(h, "allreduce_time_mean_s"), cases[k].us * US);
        ck_assert_double_eq(th_metric(h, "allreduces"), 2);
        ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 2 * cases[k].msgs);
        ck_assert_double_eq(th_net_metric(h->n, "bytes_delivered"), 2 * 24e6);
        ck_near(th_metric(h, "link_utilization"), 8 * 48e6 / (4 * B10 * th_metric(h, "iteration_time_mean_s") * 2));
        done(h);
    }
}
END_TEST

/* A 3-layer model (1 MB, F = 100 us, B = 200 us per layer: compute-time
 * 900 us, forward:backward 1:2, time-ratio 1), a fusion per layer, 2
 * workers on the ideal fabric, 2 iterations.
 * Iteration 0: F 0-300; B2 300-500 (fusion 2 ready), B1 -700, B0 -900.
 *   AR2 500-1300.48. At 1300.48 AR1 (eligible 700) and AR0 (900) wait:
 *   fifo: AR1 1300.48-2100.96, AR0 -2901.44;
 *   priority: AR0 1300.48-2100.96, AR1 -2901.44.
 * Barrier on (either queue): iteration 1 starts at 2901.44; its B2 ends
 *   3401.44: AR2 -4201.92; then AR1, AR0 (fifo) or AR0, AR1 (priority)
 *   end at 5802.88: iterations 2901.44 and 2901.44 us.
 * Barrier off, fifo: F0 waits AR0 (2901.44): the same 2901.44 + 2901.44.
 * Barrier off, priority: F0 2100.96-2200.96 (AR0 done), F1 waits AR1 until
 *   2901.44 -3001.44, F2 -3101.44; B2 -3301.44: AR2 3301.44-4101.92; B1
 *   -3501.44, B0 -3701.44 queued; AR0 4101.92-4902.40, AR1 -5702.88:
 *   iterations 2100.96 and 3601.92 us, mean 2851.44 us. */
START_TEST(test_fusion_order_three_layers)
{
    static const struct {
        const char *queue, *barrier;
        double first_us, mean_us;
    } cases[] = {
        {"fifo", "on", 2901.44, 2901.44},
        {"priority", "on", 2901.44, 2901.44},
        {"fifo", "off", 2901.44, 2901.44},
        {"priority", "off", 2100.96, 2851.44},
    };
    for (size_t k = 0; k < 4; k++) {
        char q[64], b[64];
        snprintf(q, sizeof q, "workload.queue=%s", cases[k].queue);
        snprintf(b, sizeof b, "workload.barrier=%s", cases[k].barrier);
        const char *wl[] = {"workload.workers=2",       "workload.layers=3",        "workload.model-size=3MB",
                            "workload.layer-sizes=uniform", "workload.compute-time=900us", "workload.time-ratio=1",
                            "workload.fusion-buffer=1MB", "workload.iterations=2",    q,
                            b,                          NULL};
        th_run *h = run_training("ideal", 2, B10, NULL, wl);
        ck_near(th_metric(h, "iteration_time_first_s"), cases[k].first_us * US);
        ck_near(th_metric(h, "iteration_time_mean_s"), cases[k].mean_us * US);
        ck_assert_double_eq(th_metric(h, "fusions"), 3);
        ck_assert_double_eq(th_metric(h, "allreduces"), 6);
        ck_near(th_metric(h, "allreduce_time_mean_s"), 800.48 * US);
        /* waits: fifo 0, 600.48 (AR1 700 -> 1300.48), 1200.96 (AR0 900 ->
         * 2100.96); priority 0, 400.48 (AR0), 1400.96 (AR1): both average
         * 600.48 us, in both iterations */
        ck_near(th_metric(h, "allreduce_wait_mean_s"), 600.48 * US);
        ck_near(th_metric(h, "exposed_comm_mean_s"), (cases[k].mean_us - 900) * US);
        done(h);
    }
}
END_TEST

/* stop-time: the 3-layer fifo case above with 10 iterations and stop-time
 * 3 ms: iteration 1 starts at 2901.44 us (< 3 ms), iteration 2 would start
 * at 5802.88 us: the run is the 2-iteration one (2901.44 us each); with
 * stop-time 2.9 ms only iteration 0 runs. */
START_TEST(test_stop_time)
{
    static const struct {
        const char *stop;
        double iters;
    } cases[] = {{"workload.stop-time=3ms", 2}, {"workload.stop-time=2.9ms", 1}};
    for (int k = 0; k < 2; k++) {
        const char *wl[] = {"workload.workers=2",       "workload.layers=3",        "workload.model-size=3MB",
                            "workload.layer-sizes=uniform", "workload.compute-time=900us", "workload.time-ratio=1",
                            "workload.fusion-buffer=1MB", "workload.iterations=10",   cases[k].stop,
                            NULL};
        th_run *h = run_training("ideal", 2, B10, NULL, wl);
        ck_assert_double_eq(th_metric(h, "iterations_completed"), cases[k].iters);
        ck_assert_double_eq(th_metric(h, "allreduces"), 3 * cases[k].iters);
        ck_near(th_metric(h, "iteration_time_mean_s"), 2901.44 * US);
        /* the estimate before the run: an iteration lasts at least
         * max(T_c, ring at B) = max(900 us, 8 x 2 (1/2) 3 MB / 10 Gb/s =
         * 2.4 ms), so floor(stop / 2.4 ms) + 1 = 2 iterations start (3 ms:
         * the two that do; 2.9 ms: one does, the estimate is generous), of
         * 3 fusions x 2 (W - 1) W = 4 messages: 24 */
        const wl_ops *w = th_wl_ops("training");
        void *wp = th_wl_params(w, wl);
        net_params core = th_star(2, B10);
        wl_resolve rc = {.nodes = 2, .net = &core, .seed = 1};
        wl_estimate e = {0};
        w->estimate(wp, &rc, &e);
        ck_assert_double_eq(e.messages, 24);
        ck_assert_double_ge(e.messages, (double)h->n->c.sent);
        wl_params_free(w, wp);
        done(h);
    }
}
END_TEST

/* A 2-layer model (1 MB, F 100 us, B 200 us per layer), fifo and priority,
 * barrier on and off: AR1 is eligible at 400 us (B1 ends) and starts at
 * once (400-1200.48), AR0 at 600 and waits for it (1200.48-2000.96).
 * Forward of layer 0 needs AR0 whether the barrier waits for all or only
 * for layer 0's allreduce, and AR0 always finishes last (the only other
 * allreduce of the iteration started before it was eligible): iteration 1
 * starts at 2000.96 either way, and ends at 4001.92: both 2000.96 us. In
 * a 2-layer model the barrier costs nothing; the 3-layer case above shows
 * where removing it pays. Waits: 0 and 600.48: mean 300.24 us. */
START_TEST(test_barrier_two_layers)
{
    for (int k = 0; k < 4; k++) {
        const char *wl[] = {"workload.workers=2",
                            "workload.layers=2",
                            "workload.model-size=2MB",
                            "workload.layer-sizes=uniform",
                            "workload.compute-time=600us",
                            "workload.time-ratio=1",
                            "workload.fusion-buffer=1MB",
                            "workload.iterations=2",
                            k & 1 ? "workload.barrier=off" : "workload.barrier=on",
                            k & 2 ? "workload.queue=priority" : "workload.queue=fifo",
                            NULL};
        th_run *h = run_training("ideal", 2, B10, NULL, wl);
        ck_near(th_metric(h, "iteration_time_first_s"), 2000.96 * US);
        ck_near(th_metric(h, "iteration_time_mean_s"), 2000.96 * US);
        ck_near(th_metric(h, "allreduce_wait_mean_s"), 300.24 * US);
        ck_near(th_metric(h, "exposed_comm_mean_s"), 1400.96 * US);
        done(h);
    }
}
END_TEST

/* overlap off (seed 000's serial HOROVOD steps): the same 2-layer model;
 * F0 0-100, F1 100-200, B1 200-400, AR1 400-1200.48 as above, but B0 waits
 * for AR1: 1200.48-1400.48, then AR0 1400.48-2200.96; iteration 1 starts at
 * 2200.96 (both allreduces done, barrier on or off) and repeats it: 2200.96
 * us each, 200 us (B0) more than with overlap; every allreduce starts when
 * eligible (wait 0); exposed 2200.96 - 600 = 1600.96 us. */
START_TEST(test_overlap_off)
{
    for (int k = 0; k < 4; k++) {
        const char *wl[] = {"workload.workers=2",
                            "workload.layers=2",
                            "workload.model-size=2MB",
                            "workload.layer-sizes=uniform",
                            "workload.compute-time=600us",
                            "workload.time-ratio=1",
                            "workload.fusion-buffer=1MB",
                            "workload.iterations=2",
                            "workload.overlap=off",
                            k & 1 ? "workload.barrier=off" : "workload.barrier=on",
                            k & 2 ? "workload.queue=priority" : "workload.queue=fifo",
                            NULL};
        th_run *h = run_training("ideal", 2, B10, NULL, wl);
        ck_near(th_metric(h, "iteration_time_first_s"), 2200.96 * US);
        ck_near(th_metric(h, "iteration_time_mean_s"), 2200.96 * US);
        ck_near(th_metric(h, "allreduce_wait_mean_s"), 0.0);
        ck_near(th_metric(h, "exposed_comm_mean_s"), 1600.96 * US);
        ck_assert_double_eq(th_metric(h, "allreduces"), 4);
        done(h);
    }
}
END_TEST

/* dc-ddnn.md 7.3 and 7.4: 4 layers of 1 MB, F 100 us, B 200 us, 2 workers.
 * fifo, barrier on: AR3 600-1400.48, AR2 -2200.96, AR1 -3001.44, AR0
 * -3801.92; iteration 1 repeats it: 3801.92 us each; waits 0, 600.48,
 * 1200.96, 1801.44: mean 900.72 us. priority, barrier off: iterations
 * 2200.96 and 5202.88 us (the last ends 7403.84): mean 3701.92 us.
 * Tensor fusion at 2 MB (7.5): fusions {3,2}, {1,0} of 2 MB, T_AR =
 * 2 x (800 + 0.24) = 1600.48 us; {3,2} ready at 800: 800-2400.48, {1,0}
 * -4000.96: 4000.96 us per iteration. At 100 Gb/s (7.6): T_AR(1 MB) =
 * 2 x (40 + 0.24) = 80.48 us after the last backward: 1280.48 us; link
 * utilisation 8 x 16 MB / (2 x 100 Gb/s x 2560.96 us) = 0.2499062...;
 * R = 1.2 ms x 100 Gb/s / (8 x 2 x (1 - 1/2) x 4 MB) = 3.75. */
START_TEST(test_four_layers)
{
    const char *base[] = {"workload.workers=2",           "workload.layers=4",           "workload.model-size=4MB",
                          "workload.layer-sizes=uniform", "workload.compute-time=1200us", "workload.time-ratio=1",
                          "workload.iterations=2"};
    const char *wl1[] = {base[0], base[1], base[2], base[3], base[4], base[5], base[6], "workload.fusion-buffer=1MB",
                         NULL};
    th_run *h = run_training("ideal", 2, B10, NULL, wl1);
    ck_near(th_metric(h, "iteration_time_mean_s"), 3801.92 * US);
    ck_near(th_metric(h, "allreduce_wait_mean_s"), 900.72 * US);
    done(h);
    const char *wl2[] = {base[0], base[1], base[2], base[3], base[4], base[5], base[6], "workload.fusion-buffer=1MB",
                         "workload.queue=priority", "workload.barrier=off", NULL};
    h = run_training("ideal", 2, B10, NULL, wl2);
    ck_near(th_metric(h, "iteration_time_first_s"), 2200.96 * US);
    ck_near(th_metric(h, "iteration_time_mean_s"), 3701.92 * US);
    done(h);
    const char *wl3[] = {base[0], base[1], base[2], base[3], base[4], base[5], base[6], "workload.fusion-buffer=2MB",
                         NULL};
    h = run_training("ideal", 2, B10, NULL, wl3);
    ck_assert_double_eq(th_metric(h, "fusions"), 2);
    ck_near(th_metric(h, "iteration_time_mean_s"), 4000.96 * US);
    done(h);
    h = run_training("ideal", 2, 100e9, NULL, wl1);
    ck_near(th_metric(h, "iteration_time_mean_s"), 1280.48 * US);
    ck_near(th_metric(h, "link_utilization"), 8 * 16e6 / (2 * 100e9 * 2560.96 * US));
    ck_near(th_metric(h, "compute_to_network_ratio"), 3.75);
    done(h);
}
END_TEST

/* seed 000's negotiation, 2 workers, gatherv-prob 1 (every gatherv carries
 * 60 B), gatherv-total 120 B (two rounds), loop 1 us, one 1-MB layer, no
 * compute, ideal fabric. Round 1 at 0: rank 1's gather (4 B: 3.2 + 240 ns)
 * and gatherv (60 B: 48 + 240 ns) are in at 288 ns; 60 B < 120 B: the
 * master sends 4 B and 25 B (20 + 240 ns), in at 548 ns; rank 1 waits 1 us:
 * round 2 at 1548 ns, in at 1836 ns, 120 B: the master broadcasts 4 B and
 * 1000 B (800 + 240 ns), in at 2876 ns: the allreduce starts then and takes
 * 800.48 us: the iteration is 803.356 us. */
START_TEST(test_negotiation_vef)
{
    const char *wl[] = {"workload.workers=2", "workload.layers=1", "workload.model-size=1MB",
                        "workload.layer-sizes=uniform", "workload.compute-time=0s", "workload.iterations=1",
                        "workload.negotiation=vef", "workload.vef.gatherv-prob=1", "workload.vef.gatherv-total=120B",
                        "workload.vef.loop=1us", NULL};
    th_run *h = run_training("ideal", 2, B10, NULL, wl);
    ck_assert_double_eq(th_metric(h, "negotiation_rounds"), 2);
    ck_near(th_metric(h, "iteration_time_mean_s"), 803.356 * US);
    ck_near(th_metric(h, "allreduce_time_mean_s"), 800.48 * US);
    /* 2 rounds x (2 gathers + 2 broadcasts) + 4 ring steps */
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 8 + 4);
    done(h);
}
END_TEST

/* Layer profiles: ResNet-50 from its file is 102 228 128 B (25 557 032
 * fp32 parameters), so with 2 workers at 10 Gb/s and 900 ms of compute
 * R = 0.9 x 1e10 / (8 x 102 228 128) = 11.00480...; generated from it
 * (layer-sizes=resnet50) at 107 layers and that model size the fusions are
 * the same as the file's; model-size rescales a file; uniform sizes give
 * 100 MB / 100 = 1 MB a layer: 6 layers per 6.28-MB fusion, 17 fusions. */
START_TEST(test_profiles)
{
    const char *f[] = {"workload.layers-file=resnet50-layers.csv", "workload.compute-time=900ms", NULL};
    th_run *h = run_training("ideal", 2, B10, NULL, f);
    /* 214 layer times each rounded to the picosecond: T_c within 1e-9 */
    ck_assert_double_eq_tol(th_metric(h, "compute_to_network_ratio"), 0.9 * 1e10 / (8 * 102228128.0), 1e-8);
    double fus = th_metric(h, "fusions");
    done(h);
    const char *g[] = {"workload.layers=107", "workload.model-size=102228128B", NULL};
    h = run_training("ideal", 2, B10, NULL, g);
    ck_assert_double_eq(th_metric(h, "fusions"), fus);
    done(h);
    const char *s[] = {"workload.layers-file=resnet50-layers.csv", "workload.model-size=50MB",
                       "workload.compute-time=900ms", NULL};
    h = run_training("ideal", 2, B10, NULL, s);
    ck_assert_double_eq_tol(th_metric(h, "compute_to_network_ratio"), 0.9 * 1e10 / (8 * 50e6), 1e-8);
    done(h);
    const char *u[] = {"workload.layer-sizes=uniform", NULL};
    h = run_training("ideal", 2, B10, NULL, u);
    ck_assert_double_eq(th_metric(h, "fusions"), 17);
    done(h);
    /* a file relative to the configuration's folder, then the data directory */
    const wl_ops *ops = th_wl_ops("training");
    const param_row *row = NULL;
    for (size_t i = 0; i < ops->nparams; i++)
        if (strcmp(ops->params[i].path, "workload.layers-file") == 0)
            row = &ops->params[i];
    ck_assert_ptr_nonnull(row);
    char base[1024], err[1024];
    const char *top = getenv("top_srcdir");
    snprintf(base, sizeof base, "%s/configs", top ? top : ".");
    param_value v;
    ck_assert_msg(param_parse(row, "data/resnet50-layers.csv", base, &v, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(v.file.path[0] == '/' && strstr(v.file.path, "/configs/data/resnet50-layers.csv"), "%s", v.file.path);
    ck_assert_int_eq(param_parse(row, "resnet50-layers.csv", "/nonexistent", &v, err, sizeof err), 0);
    ck_assert_int_ne(param_parse(row, "no-such-layers.csv", base, &v, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "no-such-layers.csv") != NULL, "%s", err);
}
END_TEST

/* Random set-ups on every fabric and host policy: every allreduce of every
 * iteration completes (finish checks the counts) and no message is lost or
 * unexpected. */
START_TEST(test_random_setups)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 12);
    static const char *const pol[] = {"fifo", "round-robin", "priority", "srpt"};
    for (int k = 0; k < 24; k++) {
        char w[64], l[64], m[64], fb[64], it[64], q[64], b[64], hs[64];
        unsigned W = 2 + (unsigned)gsl_rng_uniform_int(g, 7);
        snprintf(w, sizeof w, "workload.workers=%u", W);
        snprintf(l, sizeof l, "workload.layers=%lu", 1 + gsl_rng_uniform_int(g, 40));
        snprintf(m, sizeof m, "workload.model-size=%luB", 1 + gsl_rng_uniform_int(g, 3000000));
        snprintf(fb, sizeof fb, "workload.fusion-buffer=%luB", gsl_rng_uniform_int(g, 500000));
        snprintf(it, sizeof it, "workload.iterations=%lu", 1 + gsl_rng_uniform_int(g, 3));
        snprintf(q, sizeof q, "workload.queue=%s", gsl_rng_uniform_int(g, 2) ? "priority" : "fifo");
        snprintf(b, sizeof b, "workload.barrier=%s", gsl_rng_uniform_int(g, 2) ? "off" : "on");
        snprintf(hs, sizeof hs, "network.host-scheduling=%s", pol[gsl_rng_uniform_int(g, 4)]);
        const char *wl[] = {w, l, m, fb, it, q, b, "workload.compute-time=1ms", NULL};
        const char *fabric = k % 3 == 0 ? "spinet" : k % 3 == 1 ? "electrical-switch" : "ideal";
        const char *sw[] = {hs, "network.mtu=1500B", NULL};
        const char *sp[] = {hs, NULL};
        th_run *h = run_training(fabric, 8, B10, k % 3 == 0 ? sp : k % 3 == 1 ? sw : NULL, wl);
        ck_assert_double_eq(th_metric(h, "allreduces"), th_metric(h, "iterations_completed") * th_metric(h, "fusions"));
        ck_assert_double_ge(th_metric(h, "iteration_time_mean_s"), 1e-3 - 1e-12);
        ck_assert_uint_eq(h->n->c.delivered, h->n->c.sent);
        done(h);
    }
    gsl_rng_free(g);
}
END_TEST

/* Checks: workers fit the nodes; layers come from the file or the count. */
START_TEST(test_checks)
{
    const wl_ops *ops = th_wl_ops("training");
    const char *a[] = {"workload.workers=9", NULL};
    const char *b[] = {"workload.layers-file=resnet50-layers.csv", "workload.layers=10", NULL};
    const char *const *cases[] = {a, b};
    const char *paths[] = {"workload.workers", "workload.layers"};
    for (int k = 0; k < 2; k++) {
        void *p = th_wl_params(ops, cases[k]);
        char err[512];
        param_first first;
        net_params core = th_star(8, B10);
        ops->check(&core, p, param_report_first(&first, err, sizeof err));
        ck_assert_msg(first.rep.n > 0 && strstr(err, paths[k]) != NULL, "%s", err);
        wl_params_free(ops, p);
    }
}
END_TEST

static Suite *training_suite(void)
{
    Suite *s = suite_create("training");
    TCase *t = tcase_create("training");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_ring_allreduce_switch);
    tcase_add_test(t, test_allreduce_algorithms);
    tcase_add_test(t, test_fusion_order_three_layers);
    tcase_add_test(t, test_stop_time);
    tcase_add_test(t, test_barrier_two_layers);
    tcase_add_test(t, test_overlap_off);
    tcase_add_test(t, test_four_layers);
    tcase_add_test(t, test_negotiation_vef);
    tcase_add_test(t, test_profiles);
    tcase_add_test(t, test_random_setups);
    tcase_add_test(t, test_checks);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(training_suite)
