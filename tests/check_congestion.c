/* ORCS congestion metrics on static routes (jobs/congestion.c,
 * specs/kernels-patterns.md §3): ORCS's printed numbers P1 and P2, the
 * static parts of K7-K10, and the accumulators, every value derived by hand.
 *
 * Routes are the fabrics' own `route` ops (networks/network.h), taken from
 * instances built by the shared harness:
 *   switch: up(a) = a, down(b) = N + b: route(a, b) = [up(a), down(b)], so
 *           c_f = max(flows sent by a, flows received by b) in the level;
 *   ideal:  the star it stands for, the same links as the switch (its route
 *           op; §3.2 proposed no links, see route_empty for that rule);
 *   SPINet: N = 2^n nodes, E = N/2 elements, S stages; links in(k) = k,
 *           ej(d) = N + d, out(s, j, o) = 2N + 2 (s E + j) + o
 *           (net_spinet.c); from element k/2 of stage 0 the message takes,
 *           at stage s, the output o whose bit is set in
 *           spinet_topo_route(s, j, dst) (output 0 when both are), then
 *           ej(dst). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "congestion.h"
#include "harness.h"
#include "mapping.h"
#include "patterns.h"
#include "rng.h"

/* A fabric of N nodes for its routes (B = 10 Gb/s, the paper's star). */
typedef struct fab {
    th_net *h;
    cong_route_fn route;
    const void *ctx;
    uint64_t nlinks;
} fab;

static fab fab_new(const char *name, uint32_t N)
{
    net_params np = th_star(N, 10e9);
    fab f;
    f.h = th_net_new(name, &np, NULL, NULL, 1, 0);
    f.route = f.h->n->ops->route;
    f.ctx = f.h->n->state;
    ck_assert_ptr_nonnull(f.route);
    f.nlinks = f.h->n->ops->link_count(f.ctx);
    return f;
}

/* No shared resource: c_f = 1 by definition (§3.1). */
static size_t route_empty(const void *ctx, uint32_t a, uint32_t b, uint64_t *links, size_t max)
{
    (void)ctx, (void)a, (void)b, (void)links, (void)max;
    return 0;
}

static pat_set single(pat_kind k, uint32_t C, uint32_t arg)
{
    pat_levels lv;
    pat_set s;
    char err[256];
    gsl_rng *r = rng_stream_new(1, 0, "pattern-rand");
    ck_assert_msg(pat_generate(k, C, arg, r, &lv, err, sizeof err) == 0, "%s", err);
    gsl_rng_free(r);
    pat_single(&lv, &s);
    return s;
}

static cong_result eval_ok(const pat_set *s, const uint32_t *map, const fab *f, cong_acc *acc)
{
    cong_result r;
    char err[256];
    int rc = cong_eval(s, map, f->nlinks, f->route, f->ctx, acc, &r, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    return r;
}

#define ASSERT_CONG(r, sum, bw, dep, mx, mean)                   \
    do {                                                         \
        ck_assert_double_eq((r).sum_max_cong, (sum));            \
        ck_assert_double_eq_tol((r).bw_fraction, (bw), 1e-15);   \
        ck_assert_double_eq((r).dep_max_delay, (dep));           \
        ck_assert_double_eq((r).cong_max, (mx));                 \
        ck_assert_double_eq_tol((r).cong_mean, (mean), 1e-15);   \
    } while (0)

/* ---- P1, P2: ORCS's printed histograms ---- */

/* P1 (bisect on the ORCS page): "weight 1: 4 of the 8 connections, weight 2:
 * 4 of the 8, BW: 0.750000": (4/1 + 4/2) / 8 = 6/8 = 0.75 exactly. */
START_TEST(test_p1)
{
    const uint64_t h[] = {0, 4, 4};
    ck_assert_double_eq(cong_bw_fraction_hist(h, 3), 0.75);
    const uint64_t empty[] = {0};
    ck_assert_double_eq(cong_bw_fraction_hist(empty, 1), 1.0);
}
END_TEST

/* P2 (bruck, 16 nodes, one run): "weight 1: 14 of the 64 connections,
 * weight 2: 44, weight 3: 6, BW: 0.593750": 64 flows = bruck's 4 levels x
 * 16, and (14 + 44/2 + 6/3) / 64 = 38/64 = 0.59375 exactly. */
START_TEST(test_p2)
{
    pat_set s = single(PAT_BRUCK, 16, 0);
    ck_assert_uint_eq(pat_set_levels(&s), 4);
    ck_assert_uint_eq(pat_set_pairs(&s), 64);
    const uint64_t h[] = {0, 14, 44, 6};
    ck_assert_uint_eq(h[1] + h[2] + h[3], pat_set_pairs(&s));
    ck_assert_double_eq(cong_bw_fraction_hist(h, 4), 0.59375);
    pat_set_free(&s);
}
END_TEST

/* ---- K7, K8: the switch ---- */

/* K7 tree C = 8, identity: every level has distinct sources and
 * destinations, so every c_f = 1: sum_max_cong = 3 levels, bw 1, cong
 * max = mean = 1, dep_max_delay = 3 (the chain 0->1, 1->3, 3->7). The same
 * on the ideal fabric's star and with routes of no link at all. */
START_TEST(test_k7_static)
{
    pat_set s = single(PAT_TREE, 8, 0);
    uint32_t map[8];
    map_identity(map, 8);
    fab sw = fab_new("electrical-switch", 8), id = fab_new("ideal", 8);
    ck_assert_uint_eq(sw.nlinks, 16);
    cong_result r = eval_ok(&s, map, &sw, NULL);
    ASSERT_CONG(r, 3, 1.0, 3, 1, 1.0);
    ck_assert_uint_eq(r.flows, 7);
    ck_assert_uint_eq(r.levels, 3);
    r = eval_ok(&s, map, &id, NULL);
    ASSERT_CONG(r, 3, 1.0, 3, 1, 1.0);
    fab none = {.route = route_empty, .nlinks = 0};
    r = eval_ok(&s, map, &none, NULL);
    ASSERT_CONG(r, 3, 1.0, 3, 1, 1.0);
    /* gather on links of nobody: no sharing, every c_f = 1 */
    pat_set g = single(PAT_GATHER, 8, 0);
    r = eval_ok(&g, map, &none, NULL);
    ASSERT_CONG(r, 1, 1.0, 1, 1, 1.0);
    pat_set_free(&g);
    th_net_free(sw.h);
    th_net_free(id.h);
    pat_set_free(&s);
}
END_TEST

/* K8 gather / scatter C = 8: the 7 flows share down(0) (gather) or up(0)
 * (scatter): c_f = 7 each, sum_max_cong 7, bw_fraction 1/7, dep_max_delay 7
 * (one level: every finish = 0 + 7); pooled histogram {7: 7}. Link loads
 * (gather): up(i) = 1 for i = 1..7, down(0) = 7: scaled 1/7 and 1. */
START_TEST(test_k8_static)
{
    static const pat_kind ks[] = {PAT_GATHER, PAT_SCATTER};
    for (int i = 0; i < 2; i++) {
        pat_set s = single(ks[i], 8, 0);
        uint32_t map[8], N = 8;
        map_identity(map, 8);
        fab sw = fab_new("electrical-switch", N);
        cong_acc acc;
        cong_acc_init(&acc, 2 * N);
        cong_result r = eval_ok(&s, map, &sw, &acc);
        ASSERT_CONG(r, 7, 1.0 / 7, 7, 7, 7.0);
        ck_assert_uint_eq(acc.hist_len, 8);
        ck_assert_uint_eq(acc.hist[7], 7);
        ck_assert_double_eq_tol(cong_acc_bw_fraction(&acc), 1.0 / 7, 1e-15);
        if (ks[i] == PAT_GATHER) {
            ck_assert_uint_eq(acc.link_load[N + 0], 7);
            ck_assert_uint_eq(acc.link_load[3], 1);
            ck_assert_double_eq(cong_acc_link_scaled(&acc, N + 0), 1.0);
            ck_assert_double_eq_tol(cong_acc_link_scaled(&acc, 3), 1.0 / 7, 1e-15);
            ck_assert_double_eq(cong_acc_link_scaled(&acc, 0), 0.0);
            ck_assert_uint_eq(cong_acc_link_max(&acc), 7);
        }
        th_net_free(sw.h);
        cong_acc_free(&acc);
        pat_set_free(&s);
    }
}
END_TEST

/* ring C = 8: one flow per level, c = 1, so dep_max_delay = sum_max_cong
 * = 8 (§3.1: "for ring it equals sum_max_cong"). */
START_TEST(test_ring_static)
{
    pat_set s = single(PAT_RING, 8, 0);
    uint32_t map[8];
    map_identity(map, 8);
    fab sw = fab_new("electrical-switch", 8);
    cong_result r = eval_ok(&s, map, &sw, NULL);
    ASSERT_CONG(r, 8, 1.0, 8, 1, 1.0);
    th_net_free(sw.h);
    pat_set_free(&s);
}
END_TEST

/* On the switch the metrics depend only on degrees, so not on the mapping
 * (§3.2). receivers C = 16, r = 3: 13 senders (out-degree 1) onto
 * receivers of in-degree 5, 4, 4: c_f = 5 for 5 flows and 4 for 8:
 * sum_max_cong 5, bw (5/5 + 8/4) / 13 = 3/13, cong_max 5, mean
 * (25 + 32) / 13 = 57/13, dep_max_delay 5. Same under 20 random mappings
 * onto 32 nodes. */
START_TEST(test_switch_mapping_invariance)
{
    pat_set s = single(PAT_RECEIVERS, 16, 3);
    uint32_t N = 32, map[16];
    fab sw = fab_new("electrical-switch", N);
    gsl_rng *r = rng_stream_new(4, 0, "pattern-mapping");
    for (int k = 0; k < 21; k++) {
        if (k == 0)
            map_identity(map, 16);
        else
            map_random(map, 16, N, r, NULL);
        cong_result c = eval_ok(&s, map, &sw, NULL);
        ASSERT_CONG(c, 5, 3.0 / 13, 5, 5, 57.0 / 13);
    }
    th_net_free(sw.h);
    gsl_rng_free(r);
    pat_set_free(&s);
}
END_TEST

/* ---- K9: SPINet, N = C = 4, extra 0, identity ----
 *
 * n = 2, E = 2, S = 2, one transition with shift 1: element j's output 0
 * feeds element j, output 1 element (j+1) mod 2. From node k (element k/2)
 * to node d, delta = (d/2 - k/2) mod 2 and the output at stage 0 is delta.
 * Links (net_spinet.c): in(k) = k (0..3), ej(d) = 4 + d (4..7),
 * out(0, j, o) = 8 + 2j + o (8..11): 12 links.
 *
 * bruck, C = 4: level 0 = 0>1 1>2 2>3 3>0, level 1 = 0>2 1>3 2>0 3>1.
 *   level 0: 0>1 out(0,0,0); 1>2 out(0,0,1); 2>3 out(0,1,0); 3>0 out(0,1,1):
 *            all links distinct, c = 1 each;
 *   level 1: 0>2 and 1>3 both out(0,0,1); 2>0 and 3>1 both out(0,1,1):
 *            load 2, c = 2 each.
 *   sum_max_cong = 1 + 2 = 3; bw = (4 x 1 + 4 x 1/2) / 8 = 0.75; cong_max 2,
 *   mean 12/8 = 1.5; dep_max_delay: level-0 finishes 1, every rank ready
 *   at 1, level-1 finishes 1 + 2 = 3: 3.
 *   Link loads summed over the levels: in(k) 2, ej(d) 2, out(0,0,0) 1,
 *   out(0,0,1) 1 + 2 = 3, out(0,1,0) 1, out(0,1,1) 3: scaled in = 2/3.
 * bisect_fb_sym, C = 4: 0>1 1>0 2>3 3>2. 0>1 and 1>0 both stay on element
 *   0 (delta 0): out(0,0,0) load 2; 2>3 and 3>2 share out(0,1,0): every
 *   c = 2: sum_max_cong 2, bw 0.5, cong_max = mean = 2, dep_max_delay 2.
 * On the switch (§4 K9): bruck (2, 1.0, 2), bisect_fb_sym (1, 1.0, 1). */
START_TEST(test_k9_spinet)
{
    uint32_t map[4], N = 4;
    map_identity(map, 4);
    fab sp = fab_new("spinet", N), sw = fab_new("electrical-switch", N);
    ck_assert_uint_eq(sp.nlinks, 12);

    pat_set s = single(PAT_BRUCK, 4, 0);
    cong_acc acc;
    cong_acc_init(&acc, sp.nlinks);
    cong_result r = eval_ok(&s, map, &sp, &acc);
    ASSERT_CONG(r, 3, 0.75, 3, 2, 1.5);
    static const uint64_t load[12] = {2, 2, 2, 2, 2, 2, 2, 2, 1, 3, 1, 3};
    for (uint32_t e = 0; e < 12; e++)
        ck_assert_uint_eq(acc.link_load[e], load[e]);
    ck_assert_double_eq_tol(cong_acc_link_scaled(&acc, 0), 2.0 / 3, 1e-15);
    ck_assert_double_eq(cong_acc_link_scaled(&acc, 9), 1.0);
    /* A second run adds up: loads double, the pooled histogram is
     * {1: 8, 2: 8} (P1's shape), its BW still 0.75. */
    r = eval_ok(&s, map, &sp, &acc);
    ck_assert_uint_eq(acc.runs, 2);
    ck_assert_uint_eq(acc.link_load[9], 6);
    ck_assert_uint_eq(acc.hist[1], 8);
    ck_assert_uint_eq(acc.hist[2], 8);
    ck_assert_double_eq(cong_acc_bw_fraction(&acc), 0.75);
    cong_acc_free(&acc);
    r = eval_ok(&s, map, &sw, NULL);
    ASSERT_CONG(r, 2, 1.0, 2, 1, 1.0);
    pat_set_free(&s);

    s = single(PAT_BISECT_FB_SYM, 4, 0);
    r = eval_ok(&s, map, &sp, NULL);
    ASSERT_CONG(r, 2, 0.5, 2, 2, 2.0);
    r = eval_ok(&s, map, &sw, NULL);
    ASSERT_CONG(r, 1, 1.0, 1, 1, 1.0);
    pat_set_free(&s);
    th_net_free(sp.h);
    th_net_free(sw.h);
}
END_TEST

/* The fabric's route agrees with the closed form of §3.2 for extra = 0:
 * the element at stage s is (k/2 + (delta mod 2^s)) mod E and the output
 * taken there is bit s of delta, delta = (d/2 - k/2) mod E; N = 4 .. 64;
 * the route starts at in(k) and ends at ej(d). */
START_TEST(test_spinet_closed_form)
{
    for (uint32_t N = 4; N <= 64; N *= 2) {
        fab sp = fab_new("spinet", N);
        uint32_t E = N / 2, S = 0;
        while ((1u << S) < N)
            S++;
        ck_assert_uint_eq(sp.nlinks, 2 * N + 2 * (S - 1) * E);
        uint64_t links[16];
        for (uint32_t k = 0; k < N; k++)
            for (uint32_t d = 0; d < N; d++) {
                if (k == d)
                    continue;
                size_t n = sp.route(sp.ctx, k, d, links, 16);
                ck_assert_uint_eq(n, S + 1);
                ck_assert_uint_eq(links[0], k);
                ck_assert_uint_eq(links[S], N + d);
                uint32_t delta = (d / 2 + E - k / 2) % E;
                for (uint32_t s = 0; s + 1 < S; s++) {
                    uint32_t j = (k / 2 + (delta & ((1u << s) - 1))) % E;
                    uint32_t o = (delta >> s) & 1u;
                    ck_assert_uint_eq(links[1 + s], 2 * N + 2 * (s * E + j) + o);
                }
            }
        th_net_free(sp.h);
    }
}
END_TEST

/* ---- K10 and noise ---- */

/* K10, switch, C = 8, z = 4, identity: fg gather (ranks 0-3), bg scatter
 * (4-7, root 4). Merged level 0: fg flows share down(0) (c = 3), bg flows
 * up(4) (c = 3); no link shared between them: dep_max_delay (fg) = 3 with
 * the scatter or with a null background. sum_max_cong 3, bw 1/3 (6 flows at
 * c = 3); with null: 3 flows, same scalars. */
START_TEST(test_k10_static)
{
    char err[256];
    for (int noise = 0; noise < 2; noise++) {
        pat_levels fg, bg;
        ck_assert(pat_generate(PAT_GATHER, 4, 0, NULL, &fg, err, sizeof err) == 0);
        ck_assert(pat_generate(noise ? PAT_SCATTER : PAT_NULL, 4, 0, NULL, &bg, err,
                               sizeof err) == 0);
        pat_set s;
        pat_compose(&fg, &bg, &s);
        uint32_t map[8];
        map_identity(map, 8);
        fab sw = fab_new("electrical-switch", 8);
        cong_result r = eval_ok(&s, map, &sw, NULL);
        th_net_free(sw.h);
        ASSERT_CONG(r, 3, 1.0 / 3, 3, 3, 3.0);
        ck_assert_uint_eq(r.flows, noise ? 6 : 3);
        pat_set_free(&s);
        pat_levels_free(&fg);
        pat_levels_free(&bg);
    }
}
END_TEST

/* Noise on a blocking fabric: SPINet N = 4, fg scatter on ranks {0, 1}
 * mapped to nodes {0, 2}, bg scatter on ranks {2, 3} mapped to nodes
 * {1, 3}. Flows 0->2 and 1->3 both leave element 0 by output 1
 * (out(0,0,1), as in K9's bruck level 1): c = 2 each, fg dep_max_delay 2;
 * with a null background the foreground flow is alone: 1. On the switch
 * the same mapping gives 1 either way (distinct up and down links). */
START_TEST(test_noise_spinet)
{
    char err[256];
    uint32_t map[4] = {0, 2, 1, 3};
    fab sp = fab_new("spinet", 4), sw = fab_new("electrical-switch", 4);
    for (int noise = 0; noise < 2; noise++) {
        pat_levels fg, bg;
        ck_assert(pat_generate(PAT_SCATTER, 2, 0, NULL, &fg, err, sizeof err) == 0);
        ck_assert(pat_generate(noise ? PAT_SCATTER : PAT_NULL, 2, 0, NULL, &bg, err,
                               sizeof err) == 0);
        pat_set s;
        pat_compose(&fg, &bg, &s);
        cong_result r = eval_ok(&s, map, &sp, NULL);
        ck_assert_double_eq(r.dep_max_delay, noise ? 2 : 1);
        ck_assert_double_eq(r.sum_max_cong, noise ? 2 : 1);
        r = eval_ok(&s, map, &sw, NULL);
        ck_assert_double_eq(r.dep_max_delay, 1);
        pat_set_free(&s);
        pat_levels_free(&fg);
        pat_levels_free(&bg);
    }
    th_net_free(sp.h);
    th_net_free(sw.h);
}
END_TEST

/* ---- route errors (§8: rejected, not reported and ignored) ---- */

static size_t route_loop(const void *ctx, uint32_t a, uint32_t b, uint64_t *links, size_t max)
{
    (void)ctx, (void)b;
    if (max >= 3) {
        links[0] = a;
        links[1] = 9;
        links[2] = a;
    }
    return 3;
}

static size_t route_far(const void *ctx, uint32_t a, uint32_t b, uint64_t *links, size_t max)
{
    (void)ctx, (void)a, (void)b;
    if (max >= 1)
        links[0] = 99;
    return 1;
}

/* Every route is the same 40 links 0..39: more than the first buffer of a
 * 3-flow level holds (4 per flow), so cong_eval grows it and asks again. */
static size_t route_long(const void *ctx, uint32_t a, uint32_t b, uint64_t *links, size_t max)
{
    (void)ctx, (void)a, (void)b;
    if (max >= 40)
        for (uint64_t k = 0; k < 40; k++)
            links[k] = k;
    return 40;
}

START_TEST(test_route_errors)
{
    pat_set s = single(PAT_SCATTER, 4, 0);
    uint32_t map[4];
    map_identity(map, 4);
    cong_result r;
    cong_acc acc;
    cong_acc_init(&acc, 16);
    char err[256];
    ck_assert_int_eq(cong_eval(&s, map, 16, route_loop, NULL, &acc, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "route from node 0 to node 1 uses link 0 twice (routing loop)");
    ck_assert_int_eq(cong_eval(&s, map, 16, route_far, NULL, &acc, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "route from node 0 to node 1 uses link 99 of 16");
    ck_assert_uint_eq(acc.runs, 0);
    ck_assert_uint_eq(acc.hist_len, 0);
    for (uint32_t e = 0; e < 16; e++)
        ck_assert_uint_eq(acc.link_load[e], 0);
    cong_acc_free(&acc);
    /* scatter's 3 flows all cross links 0..39: load 3 everywhere, c = 3 */
    cong_acc_init(&acc, 40);
    ck_assert_int_eq(cong_eval(&s, map, 40, route_long, NULL, &acc, &r, err, sizeof err), 0);
    ASSERT_CONG(r, 3, 1.0 / 3, 3, 3, 3.0);
    ck_assert_uint_eq(acc.link_load[39], 3);
    cong_acc_free(&acc);
    pat_set_free(&s);
}
END_TEST

/* route_many's shape (cong_eval_ws): scatter on 4 ranks, identity map,
 * flows 0 -> 1, 0 -> 2, 0 -> 3 in that order. ctx selects the routes:
 *   "loop+far": flow 0 [0, 1, 0] (a loop), flow 2 [5, 99] (99 >= 16);
 *   "loop": flow 0 [0, 1, 0], the others [2, 3];
 *   "far-long": flow 1 a route of 12 links, the last 99 (the exact check
 *   of routes over 8 links), the others [2, 3];
 *   "far": flow 1 [4, 99] (the vector check of short routes), the others
 *   [2, 3];
 *   "ok": every flow [f, 8 + f]. */
static size_t many_bad(const void *ctx, size_t n, const uint64_t *ends, uint32_t *links, uint32_t *len,
                       size_t stride)
{
    const char *how = ctx;
    (void)ends;
    if (stride < 12)
        return 12;
    for (size_t f = 0; f < n; f++) {
        uint32_t *r = links + f * stride;
        if (!strcmp(how, "ok")) {
            r[0] = (uint32_t)f;
            r[1] = 8 + (uint32_t)f;
            len[f] = 2;
        } else if (f == 0 && strncmp(how, "loop", 4) == 0) {
            r[0] = 0, r[1] = 1, r[2] = 0;
            len[f] = 3;
        } else if ((f == 2 && !strcmp(how, "loop+far")) || (f == 1 && !strcmp(how, "far"))) {
            r[0] = 5, r[1] = 99;
            len[f] = 2;
        } else if (f == 1 && !strcmp(how, "far-long")) {
            for (uint32_t j = 0; j < 11; j++)
                r[j] = 4 + j;
            r[11] = 99;
            len[f] = 12;
        } else {
            r[0] = 2, r[1] = 3;
            len[f] = 2;
        }
    }
    return 0;
}

/* The checks of route_many's links, made while counting (route_check):
 * the same messages as a per-pair route op's, a link outside the fabric in
 * any flow reported before a loop in an earlier one (as when every route's
 * range was checked before the counting), and acc untouched; then a good
 * evaluation on the same scratch (the loads were put back to 0): scatter's
 * 3 flows on disjoint links, c_f = 1 each. */
START_TEST(test_route_many_errors)
{
    pat_set s = single(PAT_SCATTER, 4, 0);
    uint32_t map[4];
    map_identity(map, 4);
    cong_result r;
    cong_acc acc;
    cong_acc_init(&acc, 16);
    cong_ws w;
    memset(&w, 0, sizeof w);
    char err[256];
    ck_assert_int_eq(cong_eval_ws(&w, &s, map, 16, NULL, many_bad, "loop+far", &acc, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "route from node 0 to node 3 uses link 99 of 16");
    ck_assert_int_eq(cong_eval_ws(&w, &s, map, 16, NULL, many_bad, "loop", &acc, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "route from node 0 to node 1 uses link 0 twice (routing loop)");
    ck_assert_int_eq(cong_eval_ws(&w, &s, map, 16, NULL, many_bad, "far-long", &acc, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "route from node 0 to node 2 uses link 99 of 16");
    ck_assert_int_eq(cong_eval_ws(&w, &s, map, 16, NULL, many_bad, "far", &acc, &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "route from node 0 to node 2 uses link 99 of 16");
    ck_assert_uint_eq(acc.runs, 0);
    for (uint32_t e = 0; e < 16; e++)
        ck_assert_uint_eq(acc.link_load[e], 0);
    ck_assert_int_eq(cong_eval_ws(&w, &s, map, 16, NULL, many_bad, "ok", &acc, &r, err, sizeof err), 0);
    ASSERT_CONG(r, 1, 1.0, 1, 1, 1.0);
    for (uint32_t e = 0; e < 16; e++)
        ck_assert_uint_eq(acc.link_load[e], e < 3 || (e >= 8 && e < 11) ? 1 : 0);
    cong_ws_free(&w);
    cong_acc_free(&acc);
    pat_set_free(&s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("congestion");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_p1);
    tcase_add_test(tc, test_p2);
    tcase_add_test(tc, test_k7_static);
    tcase_add_test(tc, test_k8_static);
    tcase_add_test(tc, test_ring_static);
    tcase_add_test(tc, test_switch_mapping_invariance);
    tcase_add_test(tc, test_k9_spinet);
    tcase_add_test(tc, test_spinet_closed_form);
    tcase_add_test(tc, test_k10_static);
    tcase_add_test(tc, test_noise_spinet);
    tcase_add_test(tc, test_route_errors);
    tcase_add_test(tc, test_route_many_errors);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(suite)
