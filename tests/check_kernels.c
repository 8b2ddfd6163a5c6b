/* Navaridas micro-kernels: the generators (jobs/kernels.c) and the kernel
 * workload (workloads/wl_kernel.c) run through the shared harness on the
 * fabrics of specs/kernels-patterns.md §4: the hand cases K1-K6, a compute
 * case, the draw order, the checks, and invariants on random kernels.
 *
 * Setting of §4: electrical switch, cut-through, FIFO, link 20 ns, switch
 * 200 ns, B = 10 Gb/s, S = 1000 B, identity mapping:
 *   ser = 800 ns; a message whose first bit leaves its source at t0 has its
 *   head at the output port at ta = t0 + 220 ns, starts there at
 *   start = max(ta, port free) (FIFO by head arrival, ties by event
 *   insertion order) and is delivered at start + 800 + 20 ns;
 *   t0 = max(hand-over, previous t0 of that source + 800).
 *   Zero load: 1040 ns. kernel_time_lb = max endpoint bytes 8/B + 240 ns
 *   (240 ns: the switch's zero-load latency of a 0-byte message).
 * Tasks start in id order, so at t = 0 task 0's hand-overs are inserted
 * first, then task 1's, ... (§0). The log's `a` is the message's tag. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dist.h"
#include "harness.h"
#include "kernels.h"
#include "mapping.h"
#include "rng.h"
#include "units.h"


/* SPINet as check_uniform.c configures it: no extra stage, 4 m links,
 * t_sw = t_r = 1 ns, 1 kB packets, fast NACK. */
static const char *const spinet_sets[] = {
    "network.extra-stages=0",     "network.switching-time=1ns", "network.reaction-time=1ns",
    "network.link-length=4m",     "network.packet-size=1000B",  "network.protocol=fast-nack",
    "network.slot=100ns",         NULL,
};

/* A kernel run on `fabric` with N nodes (B = 10 Gb/s, the §4 star),
 * message-size 1kB unless sets say otherwise, seed, replica 0; every
 * delivery in r->log. Fails the test if the run fails. */
typedef struct kr {
    th_run h;
    th_log log;
} kr;

static void kr_run(kr *r, const char *fabric, uint32_t nodes, const char *const *sets, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    const char *all[32];
    size_t n = 0;
    all[n++] = "workload.message-size=1kB";
    for (size_t i = 0; sets && sets[i]; i++) {
        ck_assert_uint_lt(n, 31);
        all[n++] = sets[i];
    }
    all[n] = NULL;
    net_params np = th_star(nodes, B10);
    int rc = th_run_all(&r->h, fabric, &np, strcmp(fabric, "spinet") == 0 ? spinet_sets : NULL, "kernel", all, seed,
                        0, &r->log);
    ck_assert_msg(rc == 0, "%s: %s", fabric, r->h.err);
}

static void kr_close(kr *r)
{
    th_run_close(&r->h);
    th_log_free(&r->log);
}

static int64_t at(const kr *r, uint32_t src, uint32_t dst, uint32_t tag) { return th_log_at(&r->log, src, dst, tag); }
static double metric(const kr *r, const char *name) { return th_metric(&r->h, name); }
#define ASSERT_PS(r, name, ps) ck_assert_double_eq(metric(r, name), units_ps_to_s(ps))

static kern_params kp(kern_kind k, uint32_t tasks)
{
    kern_params p;
    memset(&p, 0, sizeof p);
    p.kernel = k;
    p.tasks = tasks;
    p.iterations = 1;
    p.total_messages = 1;
    p.wave = 1;
    return p;
}

/* ---- K1: one-to-all, T = 4, root 0 ---- */

/* Root hands over ->1, ->2, ->3 at t = 0: t0 = 0, 800, 1600; the ports are
 * distinct: deliveries 1040, 1840, 2640 ns. kernel_time = 2640 ns =
 * (T-1) S 8/B + 240 = the bound: slowdown 1; throughput 3 kB 8 / (4 B
 * 2640 ns) = 24000 / 105600 = 0.22727. On `ideal` every message arrives
 * at 1040 ns (no source serialisation): kernel_time 1040 ns, below the
 * bound (2640), slowdown 1040/2640 = 0.394, as §4 K1 says. */
START_TEST(test_k1_one_to_all)
{
    static const char *const o2a[] = {"workload.kernel=one-to-all", NULL};
    kr r;
    kr_run(&r, "electrical-switch", 4, o2a, 1);
    ck_assert_int_eq(at(&r, 0, 1, 0), 1040 * NS);
    ck_assert_int_eq(at(&r, 0, 2, 0), 1840 * NS);
    ck_assert_int_eq(at(&r, 0, 3, 0), 2640 * NS);
    ASSERT_PS(&r, "kernel_time_s", 2640 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2640 * NS);
    ck_assert_double_eq(metric(&r, "kernel_slowdown"), 1.0);
    ck_assert_double_eq_tol(metric(&r, "kernel_throughput"), 24000.0 / 105600.0, 1e-15);
    ck_assert(isnan(metric(&r, "waves"))); /* not a wave kernel */
    th_log_once(&r.log, 3);
    kr_close(&r);

    kr_run(&r, "ideal", 4, o2a, 1);
    ASSERT_PS(&r, "kernel_time_s", 1040 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2640 * NS);
    ck_assert_double_eq_tol(metric(&r, "kernel_slowdown"), 1040.0 / 2640.0, 1e-15);
    kr_close(&r);

    /* The general formula at T = 8 and root 5 (sends to 6, 7, 0, ..., 4):
     * 7 x 800 + 240 = 5840 ns, bound equal. */
    static const char *const root5[] = {"workload.kernel=one-to-all", "workload.root=5", NULL};
    kr_run(&r, "electrical-switch", 8, root5, 1);
    ck_assert_int_eq(at(&r, 5, 6, 0), 1040 * NS);
    ck_assert_int_eq(at(&r, 5, 4, 0), 5840 * NS);
    ASSERT_PS(&r, "kernel_time_s", 5840 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 5840 * NS);
    kr_close(&r);
}
END_TEST

/* Iterations: O2A, T = 4, 2 iterations: the root never waits, so its six
 * messages leave back to back, t0 = 0, 800, ..., 4000; the last (->3, tag 1)
 * arrives at 4000 + 1040 = 5040 ns = 6 x 800 + 240, the bound. */
START_TEST(test_o2a_iterations)
{
    static const char *const sets[] = {"workload.kernel=one-to-all", "workload.iterations=2", NULL};
    kr r;
    kr_run(&r, "electrical-switch", 4, sets, 1);
    th_log_once(&r.log, 6);
    ck_assert_int_eq(at(&r, 0, 1, 1), 3440 * NS); /* t0 2400 */
    ck_assert_int_eq(at(&r, 0, 3, 1), 5040 * NS);
    ASSERT_PS(&r, "kernel_time_s", 5040 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 5040 * NS);
    kr_close(&r);
}
END_TEST

/* ---- K2: all-to-one, T = 4, root 0 ---- */

/* Tasks 1, 2, 3 hand over at t = 0 (t0 = 0); their heads reach port 0 at
 * 220 in order 1, 2, 3 (start order): the port serves 220-1020, 1020-1820,
 * 1820-2620: deliveries 1040, 1840, 2640 ns; kernel_time 2640 = K1 =
 * the bound (root 0 receives 3 kB). */
START_TEST(test_k2_all_to_one)
{
    static const char *const sets[] = {"workload.kernel=all-to-one", NULL};
    kr r;
    kr_run(&r, "electrical-switch", 4, sets, 1);
    ck_assert_int_eq(at(&r, 1, 0, 0), 1040 * NS);
    ck_assert_int_eq(at(&r, 2, 0, 0), 1840 * NS);
    ck_assert_int_eq(at(&r, 3, 0, 0), 2640 * NS);
    ASSERT_PS(&r, "kernel_time_s", 2640 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2640 * NS);
    kr_close(&r);
}
END_TEST

/* ---- K3: all-to-all shifted, T = 4 ---- */

/* Task t sends to t+1, t+2, t+3 at t0 = 0, 800, 1600. In round u every port
 * p gets exactly one head (from p-u) at (u-1) 800 + 220, the instant its
 * previous message ends: no wait. Deliveries 1040 (u = 1), 1840 (u = 2),
 * 2640 (u = 3), four each; kernel_time 2640 = bound: slowdown 1;
 * throughput 12 kB 8 / (4 B 2640 ns) = 96000 / 105600. */
START_TEST(test_k3_all_to_all_shifted)
{
    static const char *const sets[] = {"workload.kernel=all-to-all", NULL};
    kr r;
    kr_run(&r, "electrical-switch", 4, sets, 1);
    th_log_once(&r.log, 12);
    for (uint32_t t = 0; t < 4; t++)
        for (uint32_t u = 1; u < 4; u++)
            ck_assert_int_eq(at(&r, t, (t + u) % 4, 0), (int64_t)(240 + 800 * u) * NS);
    ASSERT_PS(&r, "kernel_time_s", 2640 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2640 * NS);
    ck_assert_double_eq(metric(&r, "kernel_slowdown"), 1.0);
    ck_assert_double_eq_tol(metric(&r, "kernel_throughput"), 96000.0 / 105600.0, 1e-15);
    kr_close(&r);
}
END_TEST

/* ---- K4: all-to-all linear (INRFlow order), T = 4 — derived here ----
 *
 * Task t sends to 0..3 skipping t, at t0 = 0, 800, 1600:
 *   task 0: ->1, ->2, ->3     task 1: ->0, ->2, ->3
 *   task 2: ->0, ->1, ->3     task 3: ->0, ->1, ->2
 * Heads reach the ports at ta = t0 + 220. Insertion order at t = 0 is
 * task 0's three, then task 1's, ..., so equal-time heads are served in
 * source order.
 *   ta =  220: 0->1, 1->0, 2->0, 3->0
 *   ta = 1020: 0->2, 1->2, 2->1, 3->1
 *   ta = 1820: 0->3, 1->3, 2->3, 3->2
 * Port 0: 1->0 220-1020 (dlv 1040), 2->0 1020-1820 (1840), 3->0 1820-2620 (2640)
 * Port 1: 0->1 220-1020 (1040), 2->1 1020-1820 (1840), 3->1 1820-2620 (2640)
 * Port 2: 0->2 1020-1820 (1840), 1->2 1820-2620 (2640), 3->2 2620-3420 (3440)
 * Port 3: 0->3 1820-2620 (2640), 1->3 2620-3420 (3440), 2->3 3420-4220 (4240)
 * Round 1 sends three of four messages to port 0 and round 3 three to
 * port 3, so ports 2 and 3 start late and queue: kernel_time = 4240 ns,
 * slower than K3's 2640 (slowdown 4240 / 2640 = 1.606), the paper's point
 * about the shifted order. Tasks finish at 2640, 2640, 3440, 4240 (their
 * last receptions). */
START_TEST(test_k4_all_to_all_linear)
{
    static const char *const sets[] = {"workload.kernel=all-to-all", "workload.order=linear", NULL};
    kr r;
    kr_run(&r, "electrical-switch", 4, sets, 1);
    static const struct {
        uint32_t s, d;
        int64_t ns;
    } want[] = {
        {1, 0, 1040}, {2, 0, 1840}, {3, 0, 2640}, {0, 1, 1040}, {2, 1, 1840}, {3, 1, 2640},
        {0, 2, 1840}, {1, 2, 2640}, {3, 2, 3440}, {0, 3, 2640}, {1, 3, 3440}, {2, 3, 4240},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_int_eq(at(&r, want[i].s, want[i].d, 0), want[i].ns * NS);
    ASSERT_PS(&r, "kernel_time_s", 4240 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2640 * NS);
    ck_assert_double_eq_tol(metric(&r, "kernel_slowdown"), 4240.0 / 2640.0, 1e-15);
    kr_close(&r);
}
END_TEST

/* ---- K5: GUPS on ideal ---- */

/* W = M: every message is handed over at t = 0 and arrives at
 * 800 + 240 = 1040 ns, for any T >= 2, M and seed: kernel_time 1040 ns,
 * M messages delivered, one wave whose span is 1040 ns. The wave row is
 * ignored (GUPS forces W = M). */
START_TEST(test_k5_gups_ideal)
{
    static const uint32_t Ts[] = {2, 5, 16};
    static const char *const Ms[] = {"1", "37", "1000"};
    static const uint64_t Mn[] = {1, 37, 1000};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                char m[64];
                snprintf(m, sizeof m, "workload.total-messages=%s", Ms[b]);
                const char *sets[] = {"workload.kernel=gups", m, "workload.wave=1", NULL};
                kr r;
                kr_run(&r, "ideal", Ts[a], sets, seed);
                ASSERT_PS(&r, "kernel_time_s", 1040 * NS);
                th_log_once(&r.log, Mn[b]);
                ck_assert_double_eq(metric(&r, "waves"), 1);
                ASSERT_PS(&r, "wave_time_mean_s", 1040 * NS);
                kr_close(&r);
            }
}
END_TEST

/* ---- K6: sync-random, T = 2, W = 1, compute 0, ideal ---- */

/* Every message is 0->1 or 1->0; s_m = sender of message m. Task s_m hands
 * message m over as soon as it has received its own wave-(m-1) message,
 * i.e. at once if s_m = s_{m-1} (it sent m-1, received nothing), else when
 * m-1 arrives. So kernel_time = 1040 ns x (1 + #{m >= 1: s_m != s_{m-1}}),
 * the sequence re-drawn here from the run's "kernel-pairs" stream (seed,
 * replica 0) with the same rule (kern_draw_pair). A barrier would give
 * M x 1040 instead. Every wave holds one message, delivered 1040 ns after
 * its hand-over: wave_time_mean = 1040 ns, waves = M. */
START_TEST(test_k6_sync_random_two_tasks)
{
    static const uint64_t Ms[] = {1, 2, 10, 100};
    for (size_t a = 0; a < 4; a++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            char m[64];
            snprintf(m, sizeof m, "workload.total-messages=%llu", (unsigned long long)Ms[a]);
            const char *sets[] = {"workload.kernel=sync-random", m, "workload.wave=1", NULL};
            gsl_rng *rr = rng_stream_new(seed, 0, "kernel-pairs");
            uint32_t prev = UINT32_MAX, s, d;
            uint64_t switches = 0;
            for (uint64_t k = 0; k < Ms[a]; k++) {
                kern_draw_pair(rr, 2, &s, &d);
                ck_assert_uint_eq(s + d, 1);
                if (k > 0 && s != prev)
                    switches++;
                prev = s;
            }
            gsl_rng_free(rr);
            kr r;
            kr_run(&r, "ideal", 2, sets, seed);
            ASSERT_PS(&r, "kernel_time_s", (int64_t)(1 + switches) * 1040 * NS);
            th_log_once(&r.log, Ms[a]);
            ck_assert_double_eq(metric(&r, "waves"), (double)Ms[a]);
            ASSERT_PS(&r, "wave_time_mean_s", 1040 * NS);
            kr_close(&r);
        }
}
END_TEST

/* SR with compute, T = 2, M = 2, W = 1, compute 500 ns, ideal. Each wave
 * appends compute(500 ns) to both tasks.
 *   same sender (say 0->1, 0->1): task 0 sends at 0, computes to 500,
 *     sends at 500, computes to 1000. Task 1 receives at 1040, computes to
 *     1540, receives the second (500 + 1040 = 1540) at once, computes to
 *     2040: kernel_time 2040 ns.
 *   different senders (0->1, 1->0): task 1 receives at 1040, computes to
 *     1540, sends at 1540, computes to 2040; task 0 computed 0-500, then
 *     waits for 1->0, delivered 1540 + 1040 = 2580, computes to 3080:
 *     kernel_time 3080 ns.
 * Seeds 1.. until both cases have been seen. */
START_TEST(test_sr_compute)
{
    static const char *const sets[] = {"workload.kernel=sync-random", "workload.total-messages=2", "workload.wave=1",
                                       "workload.compute-time=500ns", NULL};
    int seen_same = 0, seen_diff = 0;
    for (uint64_t seed = 1; seed < 200 && !(seen_same && seen_diff); seed++) {
        gsl_rng *rr = rng_stream_new(seed, 0, "kernel-pairs");
        uint32_t s0, s1, d;
        kern_draw_pair(rr, 2, &s0, &d);
        kern_draw_pair(rr, 2, &s1, &d);
        gsl_rng_free(rr);
        kr r;
        kr_run(&r, "ideal", 2, sets, seed);
        ASSERT_PS(&r, "kernel_time_s", (s0 == s1 ? 2040 : 3080) * NS);
        seen_same |= s0 == s1;
        seen_diff |= s0 != s1;
        kr_close(&r);
    }
    ck_assert(seen_same && seen_diff);
}
END_TEST

/* P3 (§5): O2A in the paper's shape, T = 32, S = 10 kB, on the switch:
 * 31 x 10000 x 8 / 10 Gb/s + 240 ns = 248 us + 240 ns = 248.240 us, the
 * bound: slowdown 1.000. On SPINet (no extra stage, 5 stages, 20 ns of
 * fibre each way, 1 kB packets) the root's 310 packets leave one after the
 * other, so it stays within packetisation of the bound. */
START_TEST(test_p3_o2a)
{
    static const char *const sets[] = {"workload.kernel=one-to-all", "workload.message-size=10kB", NULL};
    kr r;
    kr_run(&r, "electrical-switch", 32, sets, 1);
    ASSERT_PS(&r, "kernel_time_s", 248240 * NS);
    ck_assert_double_eq(metric(&r, "kernel_slowdown"), 1.0);
    kr_close(&r);
    kr_run(&r, "spinet", 32, sets, 1);
    ck_assert_double_ge(metric(&r, "kernel_slowdown"), 1.0);
    ck_assert_double_le(metric(&r, "kernel_slowdown"), 1.05);
    kr_close(&r);
}
END_TEST

/* ---- checks ---- */

START_TEST(test_kern_check)
{
    char err[256];
    kern_params p = kp(KERN_SYNC_RANDOM, 8);
    p.total_messages = 100;
    p.wave = 200;
    ck_assert_int_eq(kern_check(&p, err, sizeof err), -1);
    ck_assert_str_eq(err, "sync-random: wave (200) must be between 1 and total-messages (100)");
    p = kp(KERN_ONE_TO_ALL, 1);
    ck_assert_int_eq(kern_check(&p, err, sizeof err), -1);
    ck_assert_str_eq(err, "one-to-all: needs at least 2 tasks (got 1)");
    p = kp(KERN_ALL_TO_ONE, 4);
    p.root = 4;
    ck_assert_int_eq(kern_check(&p, err, sizeof err), -1);
    ck_assert_str_eq(err, "all-to-one: root (4) must be a task, 0..3");
    p = kp(KERN_ALL_TO_ALL, 4);
    p.iterations = 0;
    ck_assert_int_eq(kern_check(&p, err, sizeof err), -1);
    p = kp(KERN_ALL_TO_ALL, 100000);
    p.iterations = 1000;
    ck_assert_int_eq(kern_check(&p, err, sizeof err), -1); /* 1e13 messages */
    ck_assert_int_eq(kern_find("gups"), KERN_GUPS);
    ck_assert_int_eq(kern_find("all-to-all"), KERN_ALL_TO_ALL);
    ck_assert_int_eq(kern_find("bogus"), -1);
    ck_assert_int_eq(kern_order_find("linear"), KERN_LINEAR);
    /* Message counts: (T-1) it, T(T-1) it, M. */
    p = kp(KERN_ALL_TO_ALL, 5);
    p.iterations = 3;
    ck_assert_uint_eq(kern_messages(&p), 60);
    p = kp(KERN_SYNC_RANDOM, 5);
    p.total_messages = 10;
    p.wave = 3;
    ck_assert_uint_eq(kern_waves(&p), 4); /* 3 + 3 + 3 + 1 */
}
END_TEST

/* ---- draw order (kernels.h) ---- */

/* Sizes: one draw per message in generation order (iteration, then
 * destination for O2A): the root's 2 x 4 sends carry draws 0..7 of
 * "kernel-sizes", rounded to bytes. SR: message m's pair is the m-th
 * kern_draw_pair of "kernel-pairs" and lands, in order, in its sender's
 * list; compute: draw w T + t of "kernel-compute" is task t's compute op of
 * wave w (T = 3, M = 4, W = 2: two waves). */
START_TEST(test_draw_order)
{
    char err[256];
    dist size, comp;
    ck_assert(dist_parse("uniform(1B,5kB)", UNIT_SIZE, ".", &size, err, sizeof err) == 0);
    ck_assert(dist_parse("uniform(1us,2us)", UNIT_TIME, ".", &comp, err, sizeof err) == 0);

    kern_params p = kp(KERN_ONE_TO_ALL, 5);
    p.iterations = 2;
    gsl_rng *sizes = rng_stream_new(8, 0, "kernel-sizes");
    tp_prog prog;
    ck_assert(kern_build(&p, &size, sizes, NULL, NULL, NULL, &prog, err, sizeof err) == 0);
    gsl_rng_free(sizes);
    sizes = rng_stream_new(8, 0, "kernel-sizes");
    ck_assert_uint_eq(prog.start[1] - prog.start[0], 8);
    for (uint64_t i = prog.start[0]; i < prog.start[1]; i++) {
        double x = dist_sample(&size, sizes);
        ck_assert_uint_eq(prog.ops[i].arg, (uint64_t)llround(x));
        ck_assert_uint_eq(tp_op_peer(&prog.ops[i]), 1 + (i - prog.start[0]) % 4);
        ck_assert_uint_eq(prog.ops[i].tag, (i - prog.start[0]) / 4);
    }
    gsl_rng_free(sizes);
    tp_prog_free(&prog);

    p = kp(KERN_SYNC_RANDOM, 3);
    p.total_messages = 4;
    p.wave = 2;
    gsl_rng *pairs = rng_stream_new(8, 0, "kernel-pairs");
    gsl_rng *crng = rng_stream_new(8, 0, "kernel-compute");
    ck_assert(kern_build(&p, &size, NULL, &comp, crng, pairs, &prog, err, sizeof err) == -1);
    ck_assert_str_eq(err, "sync-random: a random message-size needs a stream");
    dist_free(&size);
    dist_const(&size, UNIT_SIZE, 1000);
    ck_assert(kern_build(&p, &size, NULL, &comp, crng, pairs, &prog, err, sizeof err) == 0);
    gsl_rng_free(pairs);
    gsl_rng_free(crng);
    pairs = rng_stream_new(8, 0, "kernel-pairs");
    crng = rng_stream_new(8, 0, "kernel-compute");
    uint64_t next_send[3], next_comp[3];
    for (uint32_t t = 0; t < 3; t++)
        next_send[t] = next_comp[t] = prog.start[t];
    for (uint32_t w = 0; w < 2; w++) {
        for (uint32_t m = 0; m < 2; m++) {
            uint32_t s, d;
            kern_draw_pair(pairs, 3, &s, &d);
            while (tp_op_kind(&prog.ops[next_send[s]]) != TP_SEND)
                next_send[s]++;
            ck_assert_uint_eq(tp_op_peer(&prog.ops[next_send[s]]), d);
            ck_assert_uint_eq(prog.ops[next_send[s]].tag, w);
            next_send[s]++;
        }
        for (uint32_t t = 0; t < 3; t++) {
            int64_t want = units_s_to_ps(dist_sample(&comp, crng));
            while (tp_op_kind(&prog.ops[next_comp[t]]) != TP_COMPUTE)
                next_comp[t]++;
            ck_assert_uint_eq(prog.ops[next_comp[t]].arg, (uint64_t)want);
            next_comp[t]++;
        }
    }
    gsl_rng_free(pairs);
    gsl_rng_free(crng);
    tp_prog_free(&prog);
    dist_free(&size);
    dist_free(&comp);
}
END_TEST

/* ---- invariants on random kernels, through the workload ---- */

/* Random kernel, T in 2..16 on N = 16 nodes, random mapping, sizes
 * uniform(100B, 3kB) on "kernel-sizes", SR compute exponential(300ns):
 *   the run finishes (every task done, no recv left waiting, every message
 *   delivered exactly once: the executor's checks) and the log has each
 *   message id exactly once, on ideal, switch and SPINet;
 *   the same seed gives the same delivery log (times included) and the
 *   same metrics;
 *   on the switch kernel_time >= kernel_time_lb (a serialising fabric). */
START_TEST(test_random_invariants)
{
    static const char *const fabrics[] = {"ideal", "electrical-switch", "spinet"};
    gsl_rng *meta = rng_stream_new(2024, 0, "test-meta");
    for (int trial = 0; trial < 60; trial++) {
        kern_params p;
        memset(&p, 0, sizeof p);
        p.kernel = (kern_kind)gsl_rng_uniform_int(meta, KERN_COUNT);
        p.tasks = 2 + (uint32_t)gsl_rng_uniform_int(meta, 15);
        p.root = (uint32_t)gsl_rng_uniform_int(meta, p.tasks);
        p.order = (kern_order)gsl_rng_uniform_int(meta, 2);
        p.iterations = 1 + (uint32_t)gsl_rng_uniform_int(meta, 3);
        p.total_messages = 1 + gsl_rng_uniform_int(meta, 300);
        p.wave = 1 + gsl_rng_uniform_int(meta, p.total_messages);
        char k[64], t[64], root[64], ord[64], it[64], tm[64], w[64];
        snprintf(k, sizeof k, "workload.kernel=%s", kern_names[p.kernel]);
        snprintf(t, sizeof t, "workload.tasks=%u", p.tasks);
        snprintf(root, sizeof root, "workload.root=%u", p.root);
        snprintf(ord, sizeof ord, "workload.order=%s", kern_order_names[p.order]);
        snprintf(it, sizeof it, "workload.iterations=%u", p.iterations);
        snprintf(tm, sizeof tm, "workload.total-messages=%llu", (unsigned long long)p.total_messages);
        snprintf(w, sizeof w, "workload.wave=%llu", (unsigned long long)p.wave);
        const char *sets[] = {k, t, root, ord, it, tm, w, "workload.mapping=random",
                              "workload.message-size=uniform(100B,3kB)", "workload.compute-time=exponential(300ns)",
                              NULL};
        uint64_t seed = 100 + (uint64_t)trial;
        for (int f = 0; f < 3; f++) {
            uint64_t digest[2];
            double time_s[2];
            for (int rep = 0; rep < 2; rep++) {
                kr r;
                kr_run(&r, fabrics[f], 16, sets, seed);
                th_log_once(&r.log, kern_messages(&p));
                time_s[rep] = metric(&r, "kernel_time_s");
                digest[rep] = th_log_digest(&r.log);
                if (f == 1)
                    ck_assert_msg(time_s[rep] >= metric(&r, "kernel_time_lb_s"),
                                  "trial %d %s: %g s below the bound %g s", trial, kern_names[p.kernel], time_s[rep],
                                  metric(&r, "kernel_time_lb_s"));
                kr_close(&r);
            }
            ck_assert_double_eq(time_s[0], time_s[1]);
            ck_assert_uint_eq(digest[0], digest[1]);
        }
    }
    gsl_rng_free(meta);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("hand");
    tcase_add_test(tc, test_k1_one_to_all);
    tcase_add_test(tc, test_o2a_iterations);
    tcase_add_test(tc, test_k2_all_to_one);
    tcase_add_test(tc, test_k3_all_to_all_shifted);
    tcase_add_test(tc, test_k4_all_to_all_linear);
    tcase_add_test(tc, test_k5_gups_ideal);
    tcase_add_test(tc, test_k6_sync_random_two_tasks);
    tcase_add_test(tc, test_sr_compute);
    tcase_add_test(tc, test_p3_o2a);
    tcase_add_test(tc, test_kern_check);
    tcase_add_test(tc, test_draw_order);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("random");
    tcase_add_test(tr, test_random_invariants);
    suite_add_tcase(s, tr);
    return s;
}

TH_MAIN(suite)
