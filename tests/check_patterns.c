/* ORCS patterns: the generators (jobs/patterns.c) with the checks of
 * specs/kernels-patterns.md §4 and the definitions of §2 on small cases
 * worked by hand, ptrnvsptrn (B2), and the pattern workload
 * (workloads/wl_pattern.c) through the shared harness: the timed cases K7,
 * K8, K10 on the switch (ser 800 ns, head at the port t0 + 220, delivery
 * start + 820, zero load 1040 ns, bound L0 = 240 ns), their static metrics
 * from the run, K9 with timing off on SPINet, and invariants on random
 * patterns. The log's `a` is the message's tag, the merged level. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dist.h"
#include "harness.h"
#include "mapping.h"
#include "patterns.h"
#include "congestion.h"
#include "rng.h"
#include "units.h"


static void gen(pat_kind k, uint32_t C, uint32_t arg, uint64_t seed, pat_levels *out)
{
    char err[256];
    gsl_rng *r = rng_stream_new(seed, 0, "pattern-rand");
    int rc = pat_generate(k, C, arg, r, out, err, sizeof err);
    ck_assert_msg(rc == 0, "%s C=%u: %s", pat_names[k], C, err);
    gsl_rng_free(r);
}

/* Assert level l of lv is exactly the pairs "s>d s>d ..." in that order. */
static void assert_level(const pat_levels *lv, uint32_t l, const char *want)
{
    char got[1024] = "";
    size_t used = 0;
    for (uint64_t i = lv->start[l]; i < lv->start[l + 1]; i++)
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%u>%u", used ? " " : "",
                                 lv->pairs[i].src, lv->pairs[i].dst);
    ck_assert_msg(strcmp(got, want) == 0, "level %u: got \"%s\", want \"%s\"", l, got, want);
}

/* ---- generator checks of §4 ---- */

/* bruck C = 16: d = 1, 2, 4, 8 < 16: 4 levels x 16 pairs = 64 flows (P2's
 * count); level 3 pairs i -> (i+8) mod 16. */
START_TEST(test_bruck16)
{
    pat_levels lv;
    gen(PAT_BRUCK, 16, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 4);
    ck_assert_uint_eq(pat_npairs(&lv), 64);
    for (uint32_t l = 0; l < 4; l++)
        ck_assert_uint_eq(pat_level_size(&lv, l), 16);
    ck_assert_uint_eq(lv.pairs[lv.start[3] + 9].src, 9);
    ck_assert_uint_eq(lv.pairs[lv.start[3] + 9].dst, 1);
    pat_levels_free(&lv);
    /* C = 5: d = 1, 2, 4: ceil(log2 5) = 3 levels. */
    gen(PAT_BRUCK, 5, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 3);
    assert_level(&lv, 2, "0>4 1>0 2>1 3>2 4>3");
    pat_levels_free(&lv);
}
END_TEST

/* recdbl C = 6: P = 4: {0<->1, 2<->3}, {0<->2, 1<->3}, extra {0->4, 1->5}. */
START_TEST(test_recdbl6)
{
    pat_levels lv;
    gen(PAT_RECDBL, 6, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 3);
    assert_level(&lv, 0, "0>1 1>0 2>3 3>2");
    assert_level(&lv, 1, "0>2 2>0 1>3 3>1");
    assert_level(&lv, 2, "0>4 1>5");
    pat_levels_free(&lv);
    /* C = 8 = P: log2 8 = 3 levels, no extra. */
    gen(PAT_RECDBL, 8, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 3);
    assert_level(&lv, 2, "0>4 4>0 1>5 5>1 2>6 6>2 3>7 7>3");
    pat_levels_free(&lv);
}
END_TEST

/* tree C = 5: {0->1}, {0->2, 1->3}, {0->4}. C = 8: K7's levels. */
START_TEST(test_tree)
{
    pat_levels lv;
    gen(PAT_TREE, 5, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 3);
    assert_level(&lv, 0, "0>1");
    assert_level(&lv, 1, "0>2 1>3");
    assert_level(&lv, 2, "0>4");
    pat_levels_free(&lv);
    gen(PAT_TREE, 8, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 3);
    assert_level(&lv, 2, "0>4 1>5 2>6 3>7");
    pat_levels_free(&lv);
}
END_TEST

/* ring C = 4: 4 levels of one pair, the last closing the ring. */
START_TEST(test_ring)
{
    pat_levels lv;
    gen(PAT_RING, 4, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 4);
    assert_level(&lv, 0, "0>1");
    assert_level(&lv, 3, "3>0");
    pat_levels_free(&lv);
}
END_TEST

/* neighbor-2d C = 5: X = 3, Y = 2; cells row 0: 0 1 2, row 1: 3 4 (5 empty).
 *   0 (0,0): W wraps to 2, E 1, N and S both (0,1) = 3 -> 0>1 0>2 0>3
 *   1 (1,0): W 0, E 2, N = S = 4                        -> 1>0 1>2 1>4
 *   2 (2,0): W 1, E wraps to 0, N/S (2,1) empty, step on to (2,0) = itself
 *            (removed)                                   -> 2>0 2>1
 *   3 (0,1): W (2,1) empty -> (1,1) = 4, E 4, N = S = 0  -> 3>0 3>4
 *   4 (1,1): W 3, E (2,1) empty -> (0,1) = 3, N = S = 1  -> 4>1 4>3
 * 12 pairs, symmetric, sorted by (src, dst). */
START_TEST(test_neighbor2d)
{
    pat_levels lv;
    gen(PAT_NEIGHBOR_2D, 5, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 1);
    assert_level(&lv, 0, "0>1 0>2 0>3 1>0 1>2 1>4 2>0 2>1 3>0 3>4 4>1 4>3");
    pat_levels_free(&lv);
    /* C = 16: X = Y = 4, a full torus: 4 distinct neighbours each. */
    gen(PAT_NEIGHBOR_2D, 16, 0, 1, &lv);
    ck_assert_uint_eq(pat_npairs(&lv), 64);
    pat_levels_free(&lv);
}
END_TEST

/* neighbor-1d: ring neighbours, C = 5: 2 each (10); C = 2: W = E (1 each).
 * neighbor-3d C = 8: X = 2, a 2x2x2 cube where -1 and +1 coincide: 3
 * neighbours each, rank 0 -> 1, 2, 4 (24 pairs). C = 9: X = 3 (27 cells,
 * only the z = 0 plane is full; z steps come back to the rank itself): a
 * 3x3 torus, 4 each (36). */
START_TEST(test_neighbor_1d_3d)
{
    pat_levels lv;
    gen(PAT_NEIGHBOR_1D, 5, 0, 1, &lv);
    ck_assert_uint_eq(pat_npairs(&lv), 10);
    ck_assert_uint_eq(lv.pairs[0].dst, 1);
    ck_assert_uint_eq(lv.pairs[1].dst, 4);
    pat_levels_free(&lv);
    gen(PAT_NEIGHBOR_1D, 2, 0, 1, &lv);
    assert_level(&lv, 0, "0>1 1>0");
    pat_levels_free(&lv);
    gen(PAT_NEIGHBOR_3D, 8, 0, 1, &lv);
    ck_assert_uint_eq(pat_npairs(&lv), 24);
    ck_assert_uint_eq(lv.pairs[0].dst, 1);
    ck_assert_uint_eq(lv.pairs[1].dst, 2);
    ck_assert_uint_eq(lv.pairs[2].dst, 4);
    pat_levels_free(&lv);
    gen(PAT_NEIGHBOR_3D, 9, 0, 1, &lv);
    ck_assert_uint_eq(pat_npairs(&lv), 36);
    pat_levels_free(&lv);
}
END_TEST

/* neighbor, k = 2, C = 5 (greedy): 0 takes 1, 2; 1 has slot {0}, takes 2
 * (2 now full: {0, 1}); 3 takes 4, then finds no j > 4; 4 has {3}. Pairs
 * per rank in slot order: 0>1 0>2 1>0 1>2 2>0 2>1 3>4 4>3.
 * k = 10 on C = 4 becomes 3: the complete graph, 2's slots in fill order
 * {0 (filled by 0), 1 (by 1), 3 (its own pick)}. */
START_TEST(test_neighbor_k)
{
    pat_levels lv;
    gen(PAT_NEIGHBOR, 5, 2, 1, &lv);
    assert_level(&lv, 0, "0>1 0>2 1>0 1>2 2>0 2>1 3>4 4>3");
    pat_levels_free(&lv);
    gen(PAT_NEIGHBOR, 4, 10, 1, &lv);
    assert_level(&lv, 0, "0>1 0>2 0>3 1>0 1>2 1>3 2>0 2>1 2>3 3>0 3>1 3>2");
    pat_levels_free(&lv);
}
END_TEST

/* bisect C = 7 (rank 6 idle), bisect_fb_sym C = 4, gather / scatter C = 4,
 * null: no level. */
START_TEST(test_simple_one_level)
{
    pat_levels lv;
    gen(PAT_BISECT, 7, 0, 1, &lv);
    assert_level(&lv, 0, "0>1 2>3 4>5");
    pat_levels_free(&lv);
    gen(PAT_BISECT_FB_SYM, 4, 0, 1, &lv);
    assert_level(&lv, 0, "0>1 1>0 2>3 3>2");
    pat_levels_free(&lv);
    gen(PAT_GATHER, 4, 0, 1, &lv);
    assert_level(&lv, 0, "1>0 2>0 3>0");
    pat_levels_free(&lv);
    gen(PAT_SCATTER, 4, 0, 1, &lv);
    assert_level(&lv, 0, "0>1 0>2 0>3");
    pat_levels_free(&lv);
    gen(PAT_NULL, 4, 0, 1, &lv);
    ck_assert_uint_eq(lv.nlevels, 0);
    ck_assert_uint_eq(pat_npairs(&lv), 0);
    pat_levels_free(&lv);
}
END_TEST

/* rand: a permutation without fixed points, for C = 2..40 and 30 seeds
 * each (C = 2 can only be 0>1 1>0); the same seed, the same pattern. */
START_TEST(test_rand)
{
    for (uint32_t C = 2; C <= 40; C++)
        for (uint64_t seed = 1; seed <= 30; seed++) {
            pat_levels lv, again;
            gen(PAT_RAND, C, 0, seed, &lv);
            gen(PAT_RAND, C, 0, seed, &again);
            ck_assert_uint_eq(lv.nlevels, 1);
            ck_assert_uint_eq(pat_npairs(&lv), C);
            ck_assert_mem_eq(lv.pairs, again.pairs, C * sizeof *lv.pairs);
            int in[40] = {0}, out[40] = {0};
            for (uint32_t i = 0; i < C; i++) {
                ck_assert_uint_ne(lv.pairs[i].src, lv.pairs[i].dst);
                out[lv.pairs[i].src]++;
                in[lv.pairs[i].dst]++;
            }
            for (uint32_t r = 0; r < C; r++)
                ck_assert(in[r] == 1 && out[r] == 1);
            if (C == 2)
                assert_level(&lv, 0, "0>1 1>0");
            pat_levels_free(&lv);
            pat_levels_free(&again);
        }
}
END_TEST

/* receivers C = 8, r = 3: senders 3..7 in a random order, the i-th to
 * i mod 3: receivers 0 and 1 get 2 messages, receiver 2 one. r must be
 * between 1 and floor(C/2) = 4. */
START_TEST(test_receivers)
{
    pat_levels lv;
    gen(PAT_RECEIVERS, 8, 3, 7, &lv);
    ck_assert_uint_eq(pat_npairs(&lv), 5);
    int got[8] = {0}, sent[8] = {0};
    for (uint64_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(lv.pairs[i].dst, i % 3);
        ck_assert_uint_ge(lv.pairs[i].src, 3);
        got[lv.pairs[i].dst]++;
        sent[lv.pairs[i].src]++;
    }
    ck_assert(got[0] == 2 && got[1] == 2 && got[2] == 1);
    for (int s = 3; s < 8; s++)
        ck_assert_int_eq(sent[s], 1);
    pat_levels_free(&lv);
    char err[256];
    gsl_rng *r = rng_stream_new(1, 0, "pattern-rand");
    ck_assert_int_eq(pat_generate(PAT_RECEIVERS, 8, 5, r, &lv, err, sizeof err), -1);
    ck_assert_str_eq(err, "receivers: r = 5 must be between 1 and floor(C/2) = 4");
    ck_assert_int_eq(pat_generate(PAT_TREE, 1, 0, r, &lv, err, sizeof err), -1);
    ck_assert_str_eq(err, "tree: needs at least 2 ranks (got 1)");
    ck_assert_int_eq(pat_generate(PAT_NEIGHBOR, 8, 0, r, &lv, err, sizeof err), -1);
    ck_assert_int_eq(pat_generate(PAT_PTRNVSPTRN, 8, 0, r, &lv, err, sizeof err), -1);
    ck_assert_int_eq(pat_generate(PAT_RAND, 8, 0, NULL, &lv, err, sizeof err), -1);
    gsl_rng_free(r);
    ck_assert_int_eq(pat_find("neighbor-2d"), PAT_NEIGHBOR_2D);
    ck_assert_int_eq(pat_find("ptrnvsptrn"), PAT_PTRNVSPTRN);
    ck_assert_int_eq(pat_find("2neighbor"), -1);
    ck_assert_int_eq(pat_timing_find("dependency"), PAT_DEPENDENCY);
}
END_TEST

/* ---- ptrnvsptrn (B2) ---- */

/* fg tree on z = 8 (3 levels), bg bisect on 4 ranks (1 level, ranks 8..11):
 * the background repeats {8>9, 10>11} in each of the 3 merged levels.
 * fg tree on 4 (2 levels), bg ring on 4 (4 levels, ranks 4..7): only the
 * first two background levels run (stops with the foreground).
 * K10: fg gather on 4, bg scatter on 4 (root 4): merged level 0 =
 * {1>0, 2>0, 3>0, 4>5, 4>6, 4>7}. */
START_TEST(test_compose)
{
    pat_levels fg, bg;
    pat_set s;
    gen(PAT_TREE, 8, 0, 1, &fg);
    gen(PAT_BISECT, 4, 0, 1, &bg);
    pat_compose(&fg, &bg, &s);
    ck_assert_uint_eq(s.ranks, 12);
    ck_assert_uint_eq(pat_set_levels(&s), 3);
    ck_assert_uint_eq(s.group[1].nlevels, 3);
    for (uint32_t l = 0; l < 3; l++)
        assert_level(&s.group[1], l, "8>9 10>11");
    assert_level(&s.group[0], 2, "0>4 1>5 2>6 3>7");
    ck_assert_uint_eq(pat_set_pairs(&s), 7 + 6);
    pat_set_free(&s);
    pat_levels_free(&fg);
    pat_levels_free(&bg);

    gen(PAT_TREE, 4, 0, 1, &fg);
    gen(PAT_RING, 4, 0, 1, &bg);
    pat_compose(&fg, &bg, &s);
    ck_assert_uint_eq(s.group[1].nlevels, 2);
    assert_level(&s.group[1], 0, "4>5");
    assert_level(&s.group[1], 1, "5>6");
    pat_set_free(&s);
    pat_levels_free(&fg);
    pat_levels_free(&bg);

    gen(PAT_GATHER, 4, 0, 1, &fg);
    gen(PAT_SCATTER, 4, 0, 1, &bg);
    pat_compose(&fg, &bg, &s);
    ck_assert_uint_eq(s.first[1], 4);
    assert_level(&s.group[0], 0, "1>0 2>0 3>0");
    assert_level(&s.group[1], 0, "4>5 4>6 4>7");
    pat_set_free(&s);
    pat_levels_free(&fg);
    pat_levels_free(&bg);

    /* A null background: the set has the foreground only. */
    gen(PAT_GATHER, 4, 0, 1, &fg);
    gen(PAT_NULL, 4, 0, 1, &bg);
    pat_compose(&fg, &bg, &s);
    ck_assert_uint_eq(s.group[1].nlevels, 0);
    ck_assert_uint_eq(pat_set_pairs(&s), 3);
    pat_set_free(&s);
    pat_levels_free(&fg);
    pat_levels_free(&bg);
}
END_TEST

static void single(pat_kind k, uint32_t C, pat_set *s)
{
    pat_levels lv;
    gen(k, C, 0, 1, &lv);
    pat_single(&lv, s);
}

/* Sizes are drawn in merged order whatever the timing: the three programs
 * of one set carry the same multiset of (src, dst, tag, size). */
START_TEST(test_sizes_common)
{
    pat_set s;
    single(PAT_BRUCK, 6, &s);
    dist size;
    char err[256];
    ck_assert(dist_parse("uniform(1B,5kB)", UNIT_SIZE, ".", &size, err, sizeof err) == 0);
    uint64_t sum[PAT_TIMING_COUNT], wsum[PAT_TIMING_COUNT];
    for (int t = 0; t < PAT_TIMING_COUNT; t++) {
        gsl_rng *r = rng_stream_new(3, 0, "pattern-sizes");
        tp_prog p;
        ck_assert(pat_program(&s, (pat_timing)t, &size, r, &p, err, sizeof err) == 0);
        ck_assert_uint_eq(p.messages, 18);
        ck_assert_uint_eq(p.recvs, 18);
        sum[t] = wsum[t] = 0;
        for (uint32_t k = 0; k < p.tasks; k++)
            for (uint64_t i = p.start[k]; i < p.start[k + 1]; i++)
                if (tp_op_kind(&p.ops[i]) == TP_SEND) {
                    sum[t] += p.ops[i].arg;
                    wsum[t] += p.ops[i].arg * (1 + k + 7 * tp_op_peer(&p.ops[i]) +
                                               31 * p.ops[i].tag);
                }
        for (uint64_t i = 0; i < p.npsend; i++) {
            const tp_phase_msg *sd = &p.psend[i];
            sum[t] += sd->size_bytes;
            wsum[t] += sd->size_bytes * (1 + sd->src + 7 * sd->dst + 31 * sd->tag);
        }
        tp_prog_free(&p);
        gsl_rng_free(r);
    }
    ck_assert_uint_eq(sum[0], sum[1]);
    ck_assert_uint_eq(sum[0], sum[2]);
    ck_assert_uint_eq(wsum[0], wsum[1]);
    ck_assert_uint_eq(wsum[0], wsum[2]);
    dist_free(&size);
    pat_set_free(&s);
}
END_TEST

/* ---- the pattern workload, timed, on the switch ---- */

/* SPINet as check_uniform.c configures it: no extra stage, 4 m links,
 * t_sw = t_r = 1 ns, 1 kB packets, fast NACK. */
static const char *const spinet_sets[] = {
    "network.extra-stages=0",     "network.switching-time=1ns", "network.reaction-time=1ns",
    "network.link-length=4m",     "network.packet-size=1000B",  "network.protocol=fast-nack",
    "network.slot=100ns",         NULL,
};

typedef struct pr {
    th_run h;
    th_log log;
    uint64_t events;
} pr;

/* A pattern run on `fabric` with N nodes (B = 10 Gb/s), 1 kB messages and
 * the identity mapping unless sets say otherwise; fails the test if the
 * run fails. */
static void pr_run(pr *r, const char *fabric, uint32_t nodes, const char *const *sets, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    const char *all[32];
    size_t n = 0;
    all[n++] = "workload.message-size=1kB";
    all[n++] = "workload.mapping=identity";
    for (size_t i = 0; sets && sets[i]; i++) {
        ck_assert_uint_lt(n, 31);
        all[n++] = sets[i];
    }
    all[n] = NULL;
    net_params np = th_star(nodes, B10);
    r->h.log = &r->log;
    void *wp = th_wl_params(th_wl_ops("pattern"), all);
    int rc = th_run_open(&r->h, fabric, &np, strcmp(fabric, "spinet") == 0 ? spinet_sets : NULL, "pattern", wp,
                         seed, 0);
    ck_assert_msg(rc == 0, "%s: %s", fabric, r->h.err);
    r->events = th_run_go(&r->h);
    ck_assert_msg(th_run_finish(&r->h) == 0, "%s: %s", fabric, r->h.err);
}

static void pr_close(pr *r)
{
    th_run_close(&r->h);
    th_log_free(&r->log);
}

static int64_t at(const pr *r, uint32_t src, uint32_t dst, uint32_t tag) { return th_log_at(&r->log, src, dst, tag); }
static double metric(const pr *r, const char *name) { return th_metric(&r->h, name); }
#define ASSERT_PS(r, name, ps) ck_assert_double_eq(metric(r, name), units_ps_to_s(ps))
#define ASSERT_STATIC(r, sum, bw, mx, mean, dep)                             \
    do {                                                                   \
        ck_assert_double_eq(metric(r, "sum_max_cong"), (sum));             \
        ck_assert_double_eq_tol(metric(r, "bw_fraction"), (bw), 1e-15);    \
        ck_assert_double_eq(metric(r, "cong_max"), (mx));                  \
        ck_assert_double_eq_tol(metric(r, "cong_mean"), (mean), 1e-15);    \
        ck_assert_double_eq(metric(r, "dep_max_delay"), (dep));            \
    } while (0)

/* K7: tree, C = 8. Every level has distinct sources and destinations.
 *   barrier: each level lasts 1040 ns -> 3120; level times 1040 each.
 *   dependency: rank 0 hands over ->1, ->2, ->4 at 0 (t0 0/800/1600:
 *     1040/1840/2640); rank 1 receives at 1040, sends ->3 (2080) and ->5
 *     (t0 1840: 2880); rank 2 receives at 1840, sends ->6 (2880); rank 3
 *     receives at 2080, sends ->7 (3120). kernel_time 3120.
 *   free: all 7 at 0: rank 0 t0 0/800/1600, rank 1 0/800, ranks 2, 3 at 0:
 *     last delivery 0->4 at 2640.
 * Bounds (B3): barrier 3 x 1040 = 3120 (met); the endpoint bound of the
 * other two is rank 0's 3 messages: 2400 + 240 = 2640 (free meets it).
 * Static (whatever the timing): every c_f = 1: sum_max_cong 3, bw 1,
 * cong max = mean = 1, dep_max_delay 3 (0->1, 1->3, 3->7). levels 3. */
START_TEST(test_k7_tree_timed)
{
    static const char *const bar[] = {"workload.pattern=tree", "workload.levels=barrier", NULL};
    pr r;
    pr_run(&r, "electrical-switch", 8, bar, 1);
    th_log_once(&r.log, 7);
    ck_assert_int_eq(at(&r, 0, 1, 0), 1040 * NS);
    ck_assert_int_eq(at(&r, 0, 2, 1), 2080 * NS);
    ck_assert_int_eq(at(&r, 1, 3, 1), 2080 * NS);
    ck_assert_int_eq(at(&r, 3, 7, 2), 3120 * NS);
    ASSERT_PS(&r, "kernel_time_s", 3120 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 3120 * NS);
    ASSERT_PS(&r, "level_time_mean_s", 1040 * NS);
    ASSERT_PS(&r, "level_time_max_s", 1040 * NS);
    ck_assert_double_eq(metric(&r, "levels"), 3);
    ck_assert(isnan(metric(&r, "background_time_s")));
    ASSERT_STATIC(&r, 3, 1.0, 1, 1.0, 3);
    pr_close(&r);

    static const char *const dep[] = {"workload.pattern=tree", "workload.levels=dependency", NULL};
    pr_run(&r, "electrical-switch", 8, dep, 1);
    ck_assert_int_eq(at(&r, 0, 1, 0), 1040 * NS);
    ck_assert_int_eq(at(&r, 0, 2, 1), 1840 * NS);
    ck_assert_int_eq(at(&r, 0, 4, 2), 2640 * NS);
    ck_assert_int_eq(at(&r, 1, 3, 1), 2080 * NS);
    ck_assert_int_eq(at(&r, 1, 5, 2), 2880 * NS);
    ck_assert_int_eq(at(&r, 2, 6, 2), 2880 * NS);
    ck_assert_int_eq(at(&r, 3, 7, 2), 3120 * NS);
    ASSERT_PS(&r, "kernel_time_s", 3120 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2640 * NS);
    ASSERT_STATIC(&r, 3, 1.0, 1, 1.0, 3);
    pr_close(&r);

    static const char *const fr[] = {"workload.pattern=tree", "workload.levels=free", NULL};
    pr_run(&r, "electrical-switch", 8, fr, 1);
    ck_assert_int_eq(at(&r, 1, 3, 1), 1040 * NS);
    ck_assert_int_eq(at(&r, 1, 5, 2), 1840 * NS);
    ck_assert_int_eq(at(&r, 3, 7, 2), 1040 * NS);
    ck_assert_int_eq(at(&r, 0, 4, 2), 2640 * NS);
    ASSERT_PS(&r, "kernel_time_s", 2640 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2640 * NS);
    ck_assert_double_eq(metric(&r, "kernel_slowdown"), 1.0);
    pr_close(&r);
}
END_TEST

/* K8: gather / scatter, C = 8. gather: 7 heads reach port 0 at 220, served
 * back to back, last start 220 + 6 x 800 = 5020, delivered 5840 ns.
 * scatter: the root's t0 = 0..4800, last delivery 5840 ns. Both = 7 x 800
 * + 240 = c x ser + 240, and equal to the bound. Static: the 7 flows share
 * down(0) (gather) or up(0) (scatter): c_f = 7 each, sum_max_cong 7,
 * bw_fraction 1/7, dep_max_delay 7. */
START_TEST(test_k8_gather_scatter)
{
    static const char *const ks[] = {"workload.pattern=gather", "workload.pattern=scatter"};
    for (int i = 0; i < 2; i++) {
        const char *sets[] = {ks[i], NULL};
        pr r;
        pr_run(&r, "electrical-switch", 8, sets, 1);
        ASSERT_PS(&r, "kernel_time_s", 5840 * NS);
        ASSERT_PS(&r, "kernel_time_lb_s", 5840 * NS);
        ASSERT_STATIC(&r, 7, 1.0 / 7, 7, 7.0, 7);
        if (i == 0) {
            ck_assert_int_eq(at(&r, 1, 0, 0), 1040 * NS);
            ck_assert_int_eq(at(&r, 7, 0, 0), 5840 * NS);
        } else {
            ck_assert_int_eq(at(&r, 0, 7, 0), 5840 * NS);
        }
        pr_close(&r);
    }
}
END_TEST

/* K10: ptrnvsptrn, C = 8, z = 4, fg gather (0-3) + bg scatter (4-7, root
 * 4), barrier. No shared port: fg 3 messages into port 0 (220-1020-1820-
 * 2620, last delivered 2640); bg root 4 t0 0/800/1600 to distinct ports
 * (last 2640). kernel_time (fg) 2640 ns, background_time 2640 ns. Static:
 * fg c = 3 (down(0)), bg c = 3 (up(4)), no shared link: sum_max_cong 3,
 * bw 1/3, dep_max_delay 3, with the scatter or with no background: the
 * switch is immune to this noise (§4 K10). */
START_TEST(test_k10)
{
    static const char *const noisy[] = {"workload.pattern=ptrnvsptrn", "workload.foreground.pattern=gather",
                                        "workload.foreground.tasks=4", "workload.background.pattern=scatter", NULL};
    pr r;
    pr_run(&r, "electrical-switch", 8, noisy, 1);
    ASSERT_PS(&r, "kernel_time_s", 2640 * NS);
    ASSERT_PS(&r, "background_time_s", 2640 * NS);
    ck_assert_int_eq(at(&r, 4, 7, 0), 2640 * NS);
    ASSERT_STATIC(&r, 3, 1.0 / 3, 3, 3.0, 3);
    th_log_once(&r.log, 6);
    pr_close(&r);
    static const char *const quiet[] = {"workload.pattern=ptrnvsptrn", "workload.foreground.pattern=gather",
                                        "workload.foreground.tasks=4", NULL};
    pr_run(&r, "electrical-switch", 8, quiet, 1);
    ASSERT_PS(&r, "kernel_time_s", 2640 * NS);
    ASSERT_STATIC(&r, 3, 1.0 / 3, 3, 3.0, 3);
    ck_assert_double_eq(metric(&r, "background_time_s"), 0); /* no background message: done at t = 0 */
    th_log_once(&r.log, 3);
    pr_close(&r);
}
END_TEST

/* The barrier is per sub-pattern (B2). fg tree on 4 ranks (levels {0>1},
 * {0>2, 1>3}), bg gather on 4 (ranks 4..7 -> 4), repeated in both merged
 * levels. fg: level 0 delivered at 1040, level 1 released then: 2080.
 * bg: each gather level is 3 x 800 + 240 = 2640 long: 2640, then 5280.
 * So kernel_time (fg) = 2080 ns, not slowed by the background's longer
 * levels (a global barrier would give 2640 + 1040 = 3680); background_time
 * 5280 ns. fg level spans 1040 and 1040; the bound of the fg's chain
 * 2 x 1040 = 2080. */
START_TEST(test_barrier_per_subpattern)
{
    static const char *const sets[] = {"workload.pattern=ptrnvsptrn", "workload.foreground.pattern=tree",
                                       "workload.foreground.tasks=4", "workload.background.pattern=gather", NULL};
    pr r;
    pr_run(&r, "electrical-switch", 8, sets, 1);
    ASSERT_PS(&r, "kernel_time_s", 2080 * NS);
    ASSERT_PS(&r, "background_time_s", 5280 * NS);
    ASSERT_PS(&r, "level_time_mean_s", 1040 * NS);
    ASSERT_PS(&r, "kernel_time_lb_s", 2080 * NS);
    ck_assert_int_eq(at(&r, 7, 4, 0), 2640 * NS);
    ck_assert_int_eq(at(&r, 7, 4, 1), 5280 * NS);
    ck_assert_double_eq(metric(&r, "levels"), 2);
    th_log_once(&r.log, 3 + 6);
    pr_close(&r);
}
END_TEST

/* ORCS's null pattern ("no communication happens", seed 001: the baseline
 * of ptrnvsptrn): pattern="null" is a pattern given (it was read as the
 * row's unset value: "missing attribute pattern"). Alone it sends
 * nothing: no delivery, 0 levels, kernel_time 0; statically no flow, so
 * sum_max_cong, cong_max and dep_max_delay are 0 and bw_fraction 1 (no flow
 * is slowed: the empty histogram's convention). As ptrnvsptrn's background
 * it is the default: the foreground tree on 4 of 8 ranks runs as alone
 * (test_barrier_per_subpattern's foreground: 2 levels of 1040 ns = 2080). */
START_TEST(test_null_pattern)
{
    static const char *const none[] = {"workload.pattern=null", NULL};
    pr r;
    pr_run(&r, "electrical-switch", 8, none, 1);
    ck_assert_uint_eq(r.log.n, 0);
    ck_assert_double_eq(metric(&r, "levels"), 0);
    ck_assert_double_eq(metric(&r, "kernel_time_s"), 0);
    ck_assert_double_eq(metric(&r, "sum_max_cong"), 0);
    ck_assert_double_eq(metric(&r, "cong_max"), 0);
    ck_assert_double_eq(metric(&r, "dep_max_delay"), 0);
    ck_assert_double_eq(metric(&r, "bw_fraction"), 1);
    pr_close(&r);
    static const char *const base[] = {"workload.pattern=ptrnvsptrn", "workload.foreground.pattern=tree",
                                       "workload.foreground.tasks=4", "workload.background.pattern=null", NULL};
    pr_run(&r, "electrical-switch", 8, base, 1);
    ASSERT_PS(&r, "kernel_time_s", 2080 * NS);
    ck_assert_double_eq(metric(&r, "levels"), 2);
    th_log_once(&r.log, 3);
    pr_close(&r);
}
END_TEST

/* K9 with timing off on SPINet, N = C = 4, identity (the hand derivation
 * is in check_congestion.c): bruck (3, 0.75, cong_max 2, mean 1.5, 3),
 * bisect_fb_sym (2, 0.5, 2, 2, 2). Nothing is simulated: no event, no
 * delivery, no time metric; levels from the pattern. On the switch the
 * same (§4 K9): bruck (2, 1, 1, 1, 2), bisect_fb_sym (1, 1, 1, 1, 1). */
START_TEST(test_k9_timing_off)
{
    static const char *const bruck[] = {"workload.pattern=bruck", "workload.timing=off", NULL};
    static const char *const fb[] = {"workload.pattern=bisect_fb_sym", "workload.timing=off", NULL};
    pr r;
    pr_run(&r, "spinet", 4, bruck, 1);
    ck_assert_uint_eq(r.events, 0);
    ck_assert_uint_eq(r.log.n, 0);
    ASSERT_STATIC(&r, 3, 0.75, 2, 1.5, 3);
    ck_assert_double_eq(metric(&r, "levels"), 2);
    ck_assert(isnan(metric(&r, "kernel_time_s")));
    ck_assert(isnan(metric(&r, "kernel_time_lb_s")));
    pr_close(&r);
    pr_run(&r, "spinet", 4, fb, 1);
    ASSERT_STATIC(&r, 2, 0.5, 2, 2.0, 2);
    pr_close(&r);
    pr_run(&r, "electrical-switch", 4, bruck, 1);
    ASSERT_STATIC(&r, 2, 1.0, 1, 1.0, 2);
    pr_close(&r);
    pr_run(&r, "electrical-switch", 4, fb, 1);
    ASSERT_STATIC(&r, 1, 1.0, 1, 1.0, 1);
    pr_close(&r);
    /* timing on gives the same static metrics beside the times */
    static const char *const timed[] = {"workload.pattern=bruck", NULL};
    pr_run(&r, "spinet", 4, timed, 1);
    ASSERT_STATIC(&r, 3, 0.75, 2, 1.5, 3);
    ck_assert(metric(&r, "kernel_time_s") > 0);
    pr_close(&r);
}
END_TEST

/* The mapping is drawn per run from "pattern-mapping" (default random):
 * bisect_fb_sym on SPINet N = 8 through the workload gives the static
 * metrics of jobs/congestion.c under map_random of the same stream; and
 * a replica's draw is its own (replica 0 and 1 differ somewhere over a few
 * seeds). */
START_TEST(test_mapping_per_run)
{
    static const char *const sets[] = {"workload.pattern=bisect_fb_sym", "workload.timing=off",
                                       "workload.mapping=random", NULL};
    int differ = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        double bw[2];
        for (uint64_t rep = 0; rep < 2; rep++) {
            th_run h = {0};
            net_params np = th_star(8, B10);
            const char *all[] = {sets[0], sets[1], sets[2], "workload.message-size=1kB", NULL};
            ck_assert_msg(th_run_all(&h, "spinet", &np, spinet_sets, "pattern", all, seed, rep, NULL) == 0, "%s",
                          h.err);
            bw[rep] = th_metric(&h, "bw_fraction");
            /* by hand: the pairs (2i, 2i+1), (2i+1, 2i) mapped by the run's draw */
            uint32_t map[8];
            gsl_rng *mr = rng_stream_new(seed, rep, "pattern-mapping");
            map_random(map, 8, 8, mr, NULL);
            gsl_rng_free(mr);
            pat_levels lv;
            pat_set s;
            char err[256];
            ck_assert(pat_generate(PAT_BISECT_FB_SYM, 8, 0, NULL, &lv, err, sizeof err) == 0);
            pat_single(&lv, &s);
            cong_result want;
            ck_assert(cong_eval(&s, map, h.n->ops->link_count(h.n->state), h.n->ops->route, h.n->state, NULL,
                                &want, err, sizeof err) == 0);
            ck_assert_double_eq(bw[rep], want.bw_fraction);
            ck_assert_double_eq(th_metric(&h, "sum_max_cong"), want.sum_max_cong);
            pat_set_free(&s);
            th_run_close(&h);
        }
        differ |= bw[0] != bw[1];
    }
    ck_assert(differ);
}
END_TEST

/* ---- invariants on random patterns, through the workload ---- */

/* Every generator, C in 2..16 on N = 16 nodes, random mapping, every
 * timing, sizes uniform(100B, 3kB), sometimes as a ptrnvsptrn foreground
 * under a random background: the run finishes (every task done, no recv
 * left waiting, every message exactly once: the executor's checks), the
 * log holds each message id once, on ideal, switch and SPINet; the same
 * seed gives the same log and metrics; on the switch the foreground's
 * completion is never below its bound. */
START_TEST(test_random_invariants)
{
    static const char *const fabrics[] = {"ideal", "electrical-switch", "spinet"};
    gsl_rng *meta = rng_stream_new(77, 0, "test-meta");
    for (int trial = 0; trial < 80; trial++) {
        uint32_t C = 2 + (uint32_t)gsl_rng_uniform_int(meta, 15);
        pat_kind k = (pat_kind)(1 + gsl_rng_uniform_int(meta, PAT_PTRNVSPTRN - 1));
        uint32_t arg = 1 + (uint32_t)gsl_rng_uniform_int(meta, C / 2);
        pat_timing tm = (pat_timing)gsl_rng_uniform_int(meta, PAT_TIMING_COUNT);
        int noise = C >= 6 && gsl_rng_uniform_int(meta, 2);
        uint32_t z = noise ? 2 + (uint32_t)gsl_rng_uniform_int(meta, C - 3) : C;
        pat_kind kb = (pat_kind)(1 + gsl_rng_uniform_int(meta, PAT_PTRNVSPTRN - 1));
        uint32_t fa = arg > z / 2 ? (z / 2 ? z / 2 : 1) : arg, cb = C - z, ba = cb / 2 ? cb / 2 : 1;
        char s_pat[64], s_c[64], s_z[64], s_fa[64], s_fr[64], s_bp[64], s_ba[64], s_br[64], s_tm[64];
        const char *sets[16];
        size_t n = 0;
        snprintf(s_c, sizeof s_c, "workload.tasks=%u", C);
        snprintf(s_tm, sizeof s_tm, "workload.levels=%s", pat_timing_names[tm]);
        sets[n++] = s_c;
        sets[n++] = s_tm;
        sets[n++] = "workload.mapping=random";
        sets[n++] = "workload.message-size=uniform(100B,3kB)";
        if (!noise) {
            snprintf(s_pat, sizeof s_pat, "workload.pattern=%s", pat_names[k]);
            snprintf(s_fa, sizeof s_fa, "workload.neighbors=%u", fa);
            snprintf(s_fr, sizeof s_fr, "workload.receivers=%u", fa);
            sets[n++] = s_pat;
        } else {
            sets[n++] = "workload.pattern=ptrnvsptrn";
            snprintf(s_pat, sizeof s_pat, "workload.foreground.pattern=%s", pat_names[k]);
            snprintf(s_z, sizeof s_z, "workload.foreground.tasks=%u", z);
            snprintf(s_fa, sizeof s_fa, "workload.foreground.neighbors=%u", fa);
            snprintf(s_fr, sizeof s_fr, "workload.foreground.receivers=%u", fa);
            snprintf(s_bp, sizeof s_bp, "workload.background.pattern=%s", cb >= 2 ? pat_names[kb] : "null");
            snprintf(s_ba, sizeof s_ba, "workload.background.neighbors=%u", ba);
            snprintf(s_br, sizeof s_br, "workload.background.receivers=%u", ba);
            sets[n++] = s_pat;
            sets[n++] = s_z;
            sets[n++] = s_bp;
            sets[n++] = s_ba;
            sets[n++] = s_br;
        }
        sets[n++] = s_fa;
        sets[n++] = s_fr;
        sets[n] = NULL;
        uint64_t seed = 500 + (uint64_t)trial;
        for (int f = 0; f < 3; f++) {
            uint64_t digest[2];
            double t[2];
            for (int rep = 0; rep < 2; rep++) {
                th_run h = {0};
                th_log log = {0};
                net_params np = th_star(16, B10);
                ck_assert_msg(th_run_all(&h, fabrics[f], &np, f == 2 ? spinet_sets : NULL, "pattern", sets, seed, 0,
                                         &log) == 0,
                              "trial %d %s %s C=%u: %s", trial, fabrics[f], pat_names[k], C, h.err);
                th_log_once(&log, log.n); /* ids 0..n-1, each once */
                ck_assert_double_eq(th_net_metric(h.n, "messages_sent"), (double)log.n);
                t[rep] = th_metric(&h, "kernel_time_s");
                if (f == 1)
                    ck_assert_msg(t[rep] >= th_metric(&h, "kernel_time_lb_s"), "trial %d %s %s: below the bound",
                                  trial, pat_names[k], pat_timing_names[tm]);
                digest[rep] = th_log_digest(&log);
                th_log_free(&log);
                th_run_close(&h);
            }
            ck_assert_double_eq(t[0], t[1]);
            ck_assert_uint_eq(digest[0], digest[1]);
        }
    }
    gsl_rng_free(meta);
}
END_TEST

/* pat_count against what pat_generate makes, every generator, 2 to 80
 * ranks and the arguments it takes: levels exact; pairs and the largest
 * level exact but for the neighbor generators, which it bounds from above
 * (at most twice what they make from 32 ranks on; below, the small grids
 * make many self pairs and duplicates); and a composition within its
 * bound. */
START_TEST(test_count)
{
    for (int k = PAT_RAND; k < PAT_PTRNVSPTRN; k++)
        for (uint32_t C = 2; C <= 80; C++)
            for (uint32_t arg = 1; arg <= (pat_takes_arg((pat_kind)k) ? C : 1); arg++) {
                if (k == PAT_RECEIVERS && arg > C / 2)
                    break;
                pat_levels lv;
                gen((pat_kind)k, C, arg, 7, &lv);
                pat_count_t c = pat_count((pat_kind)k, C, arg);
                uint64_t maxl = 0;
                for (uint32_t l = 0; l < lv.nlevels; l++)
                    maxl = pat_level_size(&lv, l) > maxl ? pat_level_size(&lv, l) : maxl;
                int bound = k == PAT_NEIGHBOR_1D || k == PAT_NEIGHBOR_2D || k == PAT_NEIGHBOR_3D || k == PAT_NEIGHBOR;
                ck_assert_msg(c.levels == lv.nlevels, "%s C=%u arg=%u: %u levels counted, %u made", pat_names[k], C,
                              arg, c.levels, lv.nlevels);
                if (bound)
                    ck_assert_msg(c.pairs >= pat_npairs(&lv) && c.max_level >= maxl &&
                                      (C < 32 || c.pairs <= 2 * pat_npairs(&lv)),
                                  "%s C=%u arg=%u: %llu pairs counted, %llu made", pat_names[k], C, arg,
                                  (unsigned long long)c.pairs, (unsigned long long)pat_npairs(&lv));
                else
                    ck_assert_msg(c.pairs == pat_npairs(&lv) && c.max_level == maxl,
                                  "%s C=%u arg=%u: %llu pairs (largest level %llu) counted, %llu (%llu) made",
                                  pat_names[k], C, arg, (unsigned long long)c.pairs,
                                  (unsigned long long)c.max_level, (unsigned long long)pat_npairs(&lv),
                                  (unsigned long long)maxl);
                pat_levels_free(&lv);
            }
    /* a tree foreground of 8 ranks (3 levels) over a ring background of 5
     * (5 levels of one pair): 7 + 3 pairs; bruck of 4 (2 levels) over the
     * same ring: 8 + 2 */
    static const int fgk[] = {PAT_TREE, PAT_BRUCK, PAT_RING};
    static const uint32_t fgc[] = {8, 4, 3};
    for (int i = 0; i < 3; i++) {
        pat_levels fg, bg;
        gen((pat_kind)fgk[i], fgc[i], 1, 1, &fg);
        gen(PAT_RING, 5, 1, 1, &bg);
        pat_set set;
        pat_compose(&fg, &bg, &set);
        pat_count_t c = pat_count_compose(pat_count((pat_kind)fgk[i], fgc[i], 1), pat_count(PAT_RING, 5, 1));
        ck_assert_uint_ge(c.pairs, pat_set_pairs(&set));
        ck_assert_uint_eq(c.levels, pat_set_levels(&set));
        pat_set_free(&set);
        pat_levels_free(&fg);
        pat_levels_free(&bg);
    }
    ck_assert_uint_eq(pat_count_compose(pat_count(PAT_TREE, 8, 1), pat_count(PAT_RING, 5, 1)).pairs, 10);
    ck_assert_uint_eq(pat_count_compose(pat_count(PAT_BRUCK, 4, 1), pat_count(PAT_RING, 5, 1)).pairs, 10);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("patterns");
    TCase *tg = tcase_create("generators");
    tcase_add_test(tg, test_bruck16);
    tcase_add_test(tg, test_recdbl6);
    tcase_add_test(tg, test_tree);
    tcase_add_test(tg, test_ring);
    tcase_add_test(tg, test_neighbor2d);
    tcase_add_test(tg, test_neighbor_1d_3d);
    tcase_add_test(tg, test_neighbor_k);
    tcase_add_test(tg, test_simple_one_level);
    tcase_add_test(tg, test_rand);
    tcase_add_test(tg, test_receivers);
    tcase_add_test(tg, test_compose);
    suite_add_tcase(s, tg);
    TCase *tt = tcase_create("timed");
    tcase_add_test(tt, test_k7_tree_timed);
    tcase_add_test(tt, test_k8_gather_scatter);
    tcase_add_test(tt, test_k10);
    tcase_add_test(tt, test_barrier_per_subpattern);
    tcase_add_test(tt, test_null_pattern);
    tcase_add_test(tt, test_k9_timing_off);
    tcase_add_test(tt, test_mapping_per_run);
    tcase_add_test(tt, test_sizes_common);
    tcase_add_test(tt, test_random_invariants);
    tcase_add_test(tt, test_count);
    suite_add_tcase(s, tt);
    return s;
}

TH_MAIN(suite)
