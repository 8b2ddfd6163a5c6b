/* Navaridas micro-kernels (jobs/kernels.c) run through the executor
 * (scheduler/prog_exec.c): the hand cases K1-K6 of
 * specs/kernels-patterns.md §4 on the fabrics they name, a compute case,
 * and invariants on random kernels.
 *
 * Setting of §4 (exec_harness.h): electrical switch, cut-through, FIFO,
 * link 20 ns, switch 200 ns, B = 10 Gb/s, S = 1000 B, identity mapping:
 *   ser = 800 ns; a message whose first bit leaves its source at t0 has its
 *   head at the output port at ta = t0 + 220 ns, starts there at
 *   start = max(ta, port free) (FIFO by head arrival, ties by event
 *   insertion order) and is delivered at start + 800 + 20 ns;
 *   t0 = max(hand-over, previous t0 of that source + 800).
 *   Zero load: 1040 ns. kernel_time_lb = max endpoint bytes 8/B + 240 ns.
 * Tasks start in id order, so at t = 0 task 0's hand-overs are inserted
 * first, then task 1's, ... (§0). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dist.h"
#include "exec_harness.h"
#include "kernels.h"
#include "mapping.h"
#include "units.h"

/* Build kernel p with constant 1000 B messages (and constant compute). */
static void build(const kern_params *p, double compute_s, uint64_t seed, tp_prog *out)
{
    dist size, comp;
    dist_const(&size, UNIT_SIZE, 1000);
    dist_const(&comp, UNIT_TIME, compute_s);
    gsl_rng *pairs = rng_stream_new(seed, 0, "kernel-pairs");
    char err[256];
    int rc = kern_build(p, &size, NULL, &comp, NULL, pairs, out, err, sizeof err);
    ck_assert_msg(rc == 0, "kern_build: %s", err);
    gsl_rng_free(pairs);
    dist_free(&size);
    dist_free(&comp);
}

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
 * (T-1) S 8/B + 240 = the bound: slowdown 1. On `ideal` every message
 * arrives at 1040 ns (no source serialisation): kernel_time 1040 ns, below
 * the bound (2640), as §4 K1 says. */
START_TEST(test_k1_one_to_all)
{
    kern_params p = kp(KERN_ONE_TO_ALL, 4);
    tp_prog prog;
    build(&p, 0, 1, &prog);
    net_params np = xh_star(4);
    xh h;
    xh_run(&h, "electrical-switch", &np, &prog, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 1, 0), 1040 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 2, 0), 1840 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 3, 0), 2640 * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 2640 * NS);
    ck_assert_int_eq(tp_lower_bound_ps(&prog, 0, B10, FIXED_PS), 2640 * NS);
    xh_assert_once(&h, 3);
    xh_close(&h);

    xh_run(&h, "ideal", &np, &prog, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(pexec_done_ps(h.x), 1040 * NS);
    xh_close(&h);
    tp_prog_free(&prog);

    /* The general formula at T = 8 and root 5 (sends to 6, 7, 0, ..., 4):
     * 7 x 800 + 240 = 5840 ns, bound equal. */
    p = kp(KERN_ONE_TO_ALL, 8);
    p.root = 5;
    build(&p, 0, 1, &prog);
    np = xh_star(8);
    xh_run(&h, "electrical-switch", &np, &prog, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(xh_dlv_ps(&h, 5, 6, 0), 1040 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 5, 4, 0), 5840 * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 5840 * NS);
    ck_assert_int_eq(tp_lower_bound_ps(&prog, 0, B10, FIXED_PS), 5840 * NS);
    xh_close(&h);
    tp_prog_free(&prog);
}
END_TEST

/* Iterations: O2A, T = 4, 2 iterations: the root never waits, so its six
 * messages leave back to back, t0 = 0, 800, ..., 4000; the last (->3, tag 1)
 * arrives at 4000 + 1040 = 5040 ns = 6 x 800 + 240, the bound. */
START_TEST(test_o2a_iterations)
{
    kern_params p = kp(KERN_ONE_TO_ALL, 4);
    p.iterations = 2;
    tp_prog prog;
    build(&p, 0, 1, &prog);
    ck_assert_uint_eq(prog.messages, kern_messages(&p));
    ck_assert_uint_eq(prog.messages, 6);
    net_params np = xh_star(4);
    xh h;
    xh_run(&h, "electrical-switch", &np, &prog, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 1, 1), 3440 * NS); /* t0 2400 */
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 3, 1), 5040 * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 5040 * NS);
    ck_assert_int_eq(tp_lower_bound_ps(&prog, 0, B10, FIXED_PS), 5040 * NS);
    xh_close(&h);
    tp_prog_free(&prog);
}
END_TEST

/* ---- K2: all-to-one, T = 4, root 0 ---- */

/* Tasks 1, 2, 3 hand over at t = 0 (t0 = 0); their heads reach port 0 at
 * 220 in order 1, 2, 3 (start order): the port serves 220-1020, 1020-1820,
 * 1820-2620: deliveries 1040, 1840, 2640 ns; kernel_time 2640 = K1. */
START_TEST(test_k2_all_to_one)
{
    kern_params p = kp(KERN_ALL_TO_ONE, 4);
    tp_prog prog;
    build(&p, 0, 1, &prog);
    net_params np = xh_star(4);
    xh h;
    xh_run(&h, "electrical-switch", &np, &prog, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(xh_dlv_ps(&h, 1, 0, 0), 1040 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 2, 0, 0), 1840 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 3, 0, 0), 2640 * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 2640 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 0), 2640 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 1), 0); /* senders never wait */
    ck_assert_int_eq(tp_lower_bound_ps(&prog, 0, B10, FIXED_PS), 2640 * NS);
    xh_close(&h);
    tp_prog_free(&prog);
}
END_TEST

/* ---- K3: all-to-all shifted, T = 4 ---- */

/* Task t sends to t+1, t+2, t+3 at t0 = 0, 800, 1600. In round u every port
 * p gets exactly one head (from p-u) at (u-1) 800 + 220, the instant its
 * previous message ends: no wait. Deliveries 1040 (u = 1), 1840 (u = 2),
 * 2640 (u = 3), four each; kernel_time 2640 = bound: slowdown 1. */
START_TEST(test_k3_all_to_all_shifted)
{
    kern_params p = kp(KERN_ALL_TO_ALL, 4);
    tp_prog prog;
    build(&p, 0, 1, &prog);
    ck_assert_uint_eq(prog.messages, 12);
    net_params np = xh_star(4);
    xh h;
    xh_run(&h, "electrical-switch", &np, &prog, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    for (uint32_t t = 0; t < 4; t++)
        for (uint32_t u = 1; u < 4; u++)
            ck_assert_int_eq(xh_dlv_ps(&h, t, (t + u) % 4, 0), (int64_t)(240 + 800 * u) * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 2640 * NS);
    ck_assert_int_eq(tp_lower_bound_ps(&prog, 0, B10, FIXED_PS), 2640 * NS);
    xh_assert_once(&h, 12);
    xh_close(&h);
    tp_prog_free(&prog);
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
 * about the shifted order. Tasks finish at 2640, 2640, 3440, 4240. */
START_TEST(test_k4_all_to_all_linear)
{
    kern_params p = kp(KERN_ALL_TO_ALL, 4);
    p.order = KERN_LINEAR;
    tp_prog prog;
    build(&p, 0, 1, &prog);
    net_params np = xh_star(4);
    xh h;
    xh_run(&h, "electrical-switch", &np, &prog, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    static const struct {
        uint32_t s, d;
        int64_t ns;
    } want[] = {
        {1, 0, 1040}, {2, 0, 1840}, {3, 0, 2640}, {0, 1, 1040}, {2, 1, 1840}, {3, 1, 2640},
        {0, 2, 1840}, {1, 2, 2640}, {3, 2, 3440}, {0, 3, 2640}, {1, 3, 3440}, {2, 3, 4240},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_int_eq(xh_dlv_ps(&h, want[i].s, want[i].d, 0), want[i].ns * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 0), 2640 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 1), 2640 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 2), 3440 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 3), 4240 * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 4240 * NS);
    ck_assert_int_gt(pexec_done_ps(h.x), 2640 * NS); /* slower than K3 */
    ck_assert_int_eq(tp_lower_bound_ps(&prog, 0, B10, FIXED_PS), 2640 * NS);
    xh_close(&h);
    tp_prog_free(&prog);
}
END_TEST

/* ---- K5: GUPS on ideal ---- */

/* W = M: every message is handed over at t = 0 and arrives at
 * 800 + 240 = 1040 ns, for any T >= 2, M and seed: kernel_time 1040 ns,
 * M messages delivered, one wave whose span is 1040 ns. */
START_TEST(test_k5_gups_ideal)
{
    static const uint32_t Ts[] = {2, 5, 16};
    static const uint64_t Ms[] = {1, 37, 1000};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                kern_params p = kp(KERN_GUPS, Ts[a]);
                p.total_messages = Ms[b];
                p.wave = 1; /* ignored: GUPS forces W = M */
                ck_assert_uint_eq(kern_waves(&p), 1);
                tp_prog prog;
                build(&p, 0, seed, &prog);
                net_params np = xh_star(Ts[a]);
                xh h;
                xh_run(&h, "ideal", &np, &prog, NULL, seed);
                ck_assert_msg(h.rc == 0, "%s", h.err);
                ck_assert_int_eq(pexec_done_ps(h.x), 1040 * NS);
                xh_assert_once(&h, Ms[b]);
                pexec_spans sp;
                pexec_tag_spans(h.x, 0, &sp);
                ck_assert_uint_eq(sp.tags, 1);
                ck_assert_double_eq(sp.mean_ps, 1040.0 * NS);
                xh_close(&h);
                tp_prog_free(&prog);
            }
}
END_TEST

/* ---- K6: sync-random, T = 2, W = 1, compute 0, ideal ---- */

/* Every message is 0->1 or 1->0; s_m = sender of message m. Task s_m hands
 * message m over as soon as it has received its own wave-(m-1) message,
 * i.e. at once if s_m = s_{m-1} (it sent m-1, received nothing), else when
 * m-1 arrives. So kernel_time = 1040 ns x (1 + #{m >= 1: s_m != s_{m-1}}),
 * the sequence re-drawn here from "kernel-pairs" with the same rule
 * (kern_draw_pair). A barrier would give M x 1040 instead. Every wave holds
 * one message, delivered 1040 ns after its hand-over: wave_time_mean =
 * 1040 ns. */
START_TEST(test_k6_sync_random_two_tasks)
{
    static const uint64_t Ms[] = {1, 2, 10, 100};
    for (size_t a = 0; a < 4; a++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            kern_params p = kp(KERN_SYNC_RANDOM, 2);
            p.total_messages = Ms[a];
            p.wave = 1;
            ck_assert_uint_eq(kern_waves(&p), Ms[a]);
            tp_prog prog;
            build(&p, 0, seed, &prog);
            gsl_rng *r = rng_stream_new(seed, 0, "kernel-pairs");
            uint32_t prev = UINT32_MAX, s, d;
            uint64_t switches = 0;
            for (uint64_t m = 0; m < Ms[a]; m++) {
                kern_draw_pair(r, 2, &s, &d);
                ck_assert_uint_eq(s + d, 1);
                if (m > 0 && s != prev)
                    switches++;
                prev = s;
            }
            gsl_rng_free(r);
            net_params np = xh_star(2);
            xh h;
            xh_run(&h, "ideal", &np, &prog, NULL, seed);
            ck_assert_msg(h.rc == 0, "%s", h.err);
            ck_assert_int_eq(pexec_done_ps(h.x), (int64_t)(1 + switches) * 1040 * NS);
            xh_assert_once(&h, Ms[a]);
            pexec_spans sp;
            pexec_tag_spans(h.x, 0, &sp);
            ck_assert_uint_eq(sp.tags, Ms[a]);
            ck_assert_double_eq(sp.mean_ps, 1040.0 * NS);
            xh_close(&h);
            tp_prog_free(&prog);
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
 * Seeds 1.. until both cases have been seen. Compute time: 4 x 500 ns. */
START_TEST(test_sr_compute)
{
    int seen_same = 0, seen_diff = 0;
    for (uint64_t seed = 1; seed < 200 && !(seen_same && seen_diff); seed++) {
        kern_params p = kp(KERN_SYNC_RANDOM, 2);
        p.total_messages = 2;
        p.wave = 1;
        tp_prog prog;
        build(&p, 500e-9, seed, &prog);
        gsl_rng *r = rng_stream_new(seed, 0, "kernel-pairs");
        uint32_t s0, s1, d;
        kern_draw_pair(r, 2, &s0, &d);
        kern_draw_pair(r, 2, &s1, &d);
        gsl_rng_free(r);
        net_params np = xh_star(2);
        xh h;
        xh_run(&h, "ideal", &np, &prog, NULL, seed);
        ck_assert_msg(h.rc == 0, "%s", h.err);
        ck_assert_int_eq(pexec_done_ps(h.x), (s0 == s1 ? 2040 : 3080) * NS);
        pexec_counts c;
        pexec_get_counts(h.x, &c);
        ck_assert_int_eq(c.compute_ps, 4 * 500 * NS);
        seen_same |= s0 == s1;
        seen_diff |= s0 != s1;
        xh_close(&h);
        tp_prog_free(&prog);
    }
    ck_assert(seen_same && seen_diff);
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

/* ---- invariants on random kernels ---- */

/* Random kernel, T in 2..16 on N = 16 nodes, random mapping, sizes
 * uniform(100B, 3kB) on "kernel-sizes", SR compute exponential(300ns):
 *   every task finishes, every message is delivered exactly once (ids) and
 *   received (finish), on ideal, switch and SPINet;
 *   the same seed gives the same delivery log (times included);
 *   on the switch kernel_time >= kernel_time_lb (a serialising fabric). */
START_TEST(test_random_invariants)
{
    static const char *const fabrics[] = {"ideal", "electrical-switch", "spinet"};
    char err[256];
    dist size, comp;
    ck_assert_msg(dist_parse("uniform(100B,3kB)", UNIT_SIZE, ".", &size, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_msg(dist_parse("exponential(300ns)", UNIT_TIME, ".", &comp, err, sizeof err) == 0,
                  "%s", err);
    gsl_rng *meta = rng_stream_new(2024, 0, "test-meta");
    for (int trial = 0; trial < 60; trial++) {
        kern_params p = kp((kern_kind)gsl_rng_uniform_int(meta, KERN_COUNT),
                           2 + (uint32_t)gsl_rng_uniform_int(meta, 15));
        p.root = (uint32_t)gsl_rng_uniform_int(meta, p.tasks);
        p.order = (kern_order)gsl_rng_uniform_int(meta, 2);
        p.iterations = 1 + (uint32_t)gsl_rng_uniform_int(meta, 3);
        p.total_messages = 1 + gsl_rng_uniform_int(meta, 300);
        p.wave = 1 + gsl_rng_uniform_int(meta, p.total_messages);
        uint64_t seed = 100 + (uint64_t)trial;
        for (int f = 0; f < 3; f++) {
            uint64_t digest[2];
            int64_t done[2];
            for (int rep = 0; rep < 2; rep++) {
                gsl_rng *pairs = rng_stream_new(seed, 0, "kernel-pairs");
                gsl_rng *sizes = rng_stream_new(seed, 0, "kernel-sizes");
                gsl_rng *crng = rng_stream_new(seed, 0, "kernel-compute");
                gsl_rng *mrng = rng_stream_new(seed, 0, "pattern-mapping");
                tp_prog prog;
                ck_assert_msg(kern_build(&p, &size, sizes, &comp, crng, pairs, &prog, err,
                                         sizeof err) == 0,
                              "%s", err);
                ck_assert_uint_eq(prog.messages, kern_messages(&p));
                uint32_t map[16];
                map_random(map, p.tasks, 16, mrng, NULL);
                net_params np = f == 2 ? xh_star(16) : xh_star(16);
                xh h;
                xh_run(&h, fabrics[f], &np, &prog, map, seed);
                ck_assert_msg(h.rc == 0, "trial %d %s %s: %s", trial, fabrics[f],
                              kern_names[p.kernel], h.err);
                xh_assert_once(&h, prog.messages);
                pexec_counts c;
                pexec_get_counts(h.x, &c);
                ck_assert_uint_eq(c.tasks_done, p.tasks);
                ck_assert_uint_eq(c.delivered, prog.messages);
                done[rep] = pexec_done_ps(h.x);
                digest[rep] = xh_digest(&h);
                if (f == 1)
                    ck_assert_msg(done[rep] >= tp_lower_bound_ps(&prog, 0, B10, FIXED_PS),
                                  "trial %d %s: %lld ps below the bound %lld ps", trial,
                                  kern_names[p.kernel], (long long)done[rep],
                                  (long long)tp_lower_bound_ps(&prog, 0, B10, FIXED_PS));
                xh_close(&h);
                tp_prog_free(&prog);
                gsl_rng_free(pairs);
                gsl_rng_free(sizes);
                gsl_rng_free(crng);
                gsl_rng_free(mrng);
            }
            ck_assert_int_eq(done[0], done[1]);
            ck_assert_uint_eq(digest[0], digest[1]);
        }
    }
    gsl_rng_free(meta);
    dist_free(&size);
    dist_free(&comp);
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
    tcase_add_test(tc, test_kern_check);
    tcase_add_test(tc, test_draw_order);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("random");
    tcase_add_test(tr, test_random_invariants);
    suite_add_tcase(s, tr);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
