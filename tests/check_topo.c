/* Topologies (networks/topo*.c): routes derived by hand for chosen pairs
 * (the exact link sequence, the VC classes and h), the zero-load latency
 * b/B + (h+1) link + h switch evaluated by hand, route invariants over all
 * pairs of small instances, the channel dependency graph of each deadlock
 * scheme built and checked acyclic, and the uniform-random bounds by hand
 * (and, where the routing is deterministic, against the channel loads of
 * every route summed one by one).
 *
 * Zero-load parameters used throughout (chosen so every term shows):
 *   B = 40 Gb/s, message 1000 B: b/B = 8000 b / 40e9 b/s = 200 ns = 200000 ps
 *   link = 25 ns = 25000 ps, switch = 150 ns = 150000 ps
 *   so h switches cost 200000 + (h + 1) 25000 + h 150000 ps. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>

#include "link.h"
#include "spinet_topology.h"
#include "topo.h"
#include "harness.h"
#include "network.h"
#include "params.h"

/* Check records a checkpoint (a write) per ck_assert; the loops over every
 * pair use this instead, which costs nothing when it holds. */
#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg("failed: %s", #cond);                                                     \
    } while (0)
#define REQUIRE_MSG(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)

#define SER_PS 200000
#define LINK_PS 25000
#define SW_PS 150000

static int64_t zero_load(uint32_t h)
{
    phy_rate r;
    phy_rate_init(&r, 40e9, 8);
    ck_assert_int_eq(phy_rate_ps(&r, 1000), SER_PS);
    return topo_zero_load_ps(phy_rate_ps(&r, 1000), LINK_PS, SW_PS, h);
}

/* Route a -> b with salt and compare with the expected links and classes. */
static void expect_route(const topo *t, uint32_t a, uint32_t b, uint64_t salt, const uint32_t *want,
                         const uint8_t *want_vc, uint32_t n)
{
    uint64_t l[64];
    uint8_t v[64];
    uint32_t got = (uint32_t)topo_route(t, a, b, salt, l, v, 64);
    ck_assert_msg(got == n, "%s %u -> %u: %u links, want %u", t->ops->name, a, b, got, n);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_msg(l[i] == want[i], "%s %u -> %u: link %u is %llu, want %u", t->ops->name, a, b,
                      i, (unsigned long long)l[i], want[i]);
        if (want_vc)
            ck_assert_msg(v[i] == want_vc[i], "%s %u -> %u: link %u class %u, want %u",
                          t->ops->name, a, b, i, v[i], want_vc[i]);
    }
}

static topo make_torus(uint32_t k0, uint32_t k1, uint32_t twist, topo_torus_routing r)
{
    topo t;
    char err[256];
    topo_torus_params p = {.ndims = 2, .dims = {k0, k1}, .twist = twist, .routing = r};
    ck_assert_msg(topo_torus_init(&t, &p, err, sizeof err) == 0, "%s", err);
    return t;
}

static topo make_fattree(uint32_t k, uint32_t n, topo_fattree_routing r)
{
    topo t;
    char err[256];
    topo_fattree_params p = {.arity = k, .levels = n, .routing = r};
    ck_assert_msg(topo_fattree_init(&t, &p, err, sizeof err) == 0, "%s", err);
    return t;
}

static topo make_leafspine(uint32_t L, uint32_t S, uint32_t H, topo_leafspine_routing r)
{
    topo t;
    char err[256];
    topo_leafspine_params p = {.leaves = L, .spines = S, .hosts_per_leaf = H, .routing = r};
    ck_assert_msg(topo_leafspine_init(&t, &p, err, sizeof err) == 0, "%s", err);
    return t;
}

static topo make_dragonfly(uint32_t g, uint32_t a, uint32_t p, uint32_t h, topo_dragonfly_routing r)
{
    topo t;
    char err[256];
    topo_dragonfly_params q = {.groups = g, .routers_per_group = a, .hosts_per_router = p,
                               .global_links = h, .routing = r};
    ck_assert_msg(topo_dragonfly_init(&t, &q, err, sizeof err) == 0, "%s", err);
    return t;
}

/* ---------------------------------------------------------------- torus */

/* 8x4 torus, DOR. Host v = (x, y) = (v mod 8, v / 8); radix 2n + 1 = 5, so
 * the output of port q of switch s is link 32 + 5 s + q (ports: 0 host,
 * 1 X+, 2 X-, 3 Y+, 4 Y-).
 * 0 (0,0) -> 11 (3,1): offsets (3, 1), X first: switches 0, 1, 2, 3, 11.
 *   links 0 (uplink), 32+0+1 = 33, 32+5+1 = 38, 32+10+1 = 43 (X+),
 *   32+15+3 = 50 (Y+ of switch 3), 32+55+0 = 87 (downlink of 11). No hop
 *   crosses a wrap: class 0. h = 5.
 * 6 (6,0) -> 1 (1,0): -5 = +3 mod 8: 6 -> 7 -> 0 -> 1 through the wrap
 *   7 -> 0. Classes (dateline): at 6, 6 + 3 >= 8: 1; at 7 (the wrap link),
 *   7 + 2 >= 8: 1; at 0, 0 + 1 < 8: 0. links 6, 32+30+1 = 63, 32+35+1 =
 *   68, 33, 32+5+0 = 37. h = 4.
 * Zero load of 0 -> 11: 200000 + 6 x 25000 + 5 x 150000 = 1100000 ps. */
/* topo_div against the hardware's / and %: every divisor that matters
 * (1, powers, odd, near 2^32), each with edge and random numerators. */
START_TEST(test_fast_division)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    uint32_t ds[64] = {1, 2, 3, 4, 5, 7, 16, 17, 64, 1000, 65535, 65536, 65537, 1u << 31, (1u << 31) + 1,
                       UINT32_MAX - 1, UINT32_MAX};
    for (unsigned i = 17; i < 64; i++)
        ds[i] = (uint32_t)gsl_rng_get(r) >> (gsl_rng_uniform_int(r, 32));
    for (unsigned i = 0; i < 64; i++) {
        uint32_t d = ds[i] ? ds[i] : 1;
        topo_div v = topo_div_make(d);
        uint32_t ns[] = {0, 1, d - 1, d, d + 1, 2 * d - 1, UINT32_MAX, UINT32_MAX - 1, UINT32_MAX / d * d,
                         UINT32_MAX / d * d - 1};
        for (unsigned j = 0; j < sizeof ns / sizeof *ns + 20000; j++) {
            uint32_t n = j < sizeof ns / sizeof *ns ? ns[j] : (uint32_t)gsl_rng_get(r) >> gsl_rng_uniform_int(r, 32);
            ck_assert_uint_eq(topo_div_q(v, n), n / d);
            ck_assert_uint_eq(topo_div_r(v, n), n % d);
        }
    }
    gsl_rng_free(r);
}
END_TEST

START_TEST(test_torus_routes)
{
    topo t = make_torus(8, 4, 0, TOPO_TORUS_DOR);
    ck_assert_uint_eq(t.hosts, 32);
    ck_assert_uint_eq(t.links, 32 + 32 * 5);
    ck_assert_uint_eq(t.vcs, 2);
    static const uint32_t r1[] = {0, 33, 38, 43, 50, 87};
    static const uint8_t v1[] = {0, 0, 0, 0, 0, 0};
    expect_route(&t, 0, 11, 0, r1, v1, 6);
    static const uint32_t r2[] = {6, 63, 68, 33, 37};
    static const uint8_t v2[] = {0, 1, 1, 0, 0};
    expect_route(&t, 6, 1, 0, r2, v2, 5);
    uint64_t l[64];
    ck_assert_int_eq(zero_load(topo_route(&t, 0, 11, 0, l, NULL, 64) - 1), 1100000);
    /* a buffer too small for the route: nothing past max written, the count returned */
    uint64_t two[2] = {UINT64_MAX, UINT64_MAX};
    ck_assert_uint_eq(topo_route(&t, 0, 11, 0, two, NULL, 1), 6);
    ck_assert_uint_eq(two[0], 0);
    ck_assert_uint_eq(two[1], UINT64_MAX);
    /* a message to itself: up and down at its own switch, h = 1 */
    static const uint32_t r3[] = {5, 32 + 25};
    expect_route(&t, 5, 5, 0, r3, NULL, 2);
    topo_free(&t);
}
END_TEST

/* Twisted 8x4, twist 4 (seed 003): the Y wrap moves X by 4, (x, 3) ->
 * (x + 4, 0) going + and (x, 0) -> (x - 4, 3) going -.
 * 0 (0,0) -> 28 (4,3): dx0 = 4, dy0 = 3. mesh: (+-4, 3), 7 hops; wrap: dy
 *   = 3 - 4 = -1 crossed going -, so dx = 4 - (-4) = 8 = 0 mod 8: (0, -1),
 *   one hop: the Y- link of switch 0 (port 4, link 32 + 4 = 36) lands on
 *   (0 - 4, 3) = (4, 3). Class 1 (0 - 1 < 0: the wrap). h = 2; the plain
 *   torus needs (+-4, -1): h = 6.
 * 9 (1,1) -> 30 (6,3): dx0 = 5, dy0 = 2. mesh (-3, 2): 5 hops; wrap: dy =
 *   -2, dx = 5 + 4 = 9 = 1: (1, -2), 3 hops. X+ from switch 9 (link 32 +
 *   45 + 1 = 78, class 0) to 10 (2,1); Y- (link 32 + 50 + 4 = 86) to 2
 *   (2,0), class 1 (1 - 2 < 0); Y- across the wrap (link 32 + 10 + 4 = 46)
 *   to (2 - 4, 3) = (6, 3) = 30, class 1; downlink 32 + 150 = 182. h = 4.
 * Zero load: 0 -> 28: 200000 + 3 x 25000 + 2 x 150000 = 575000 ps;
 *   9 -> 30: 200000 + 5 x 25000 + 4 x 150000 = 925000 ps. */
START_TEST(test_twisted_routes)
{
    topo t = make_torus(8, 4, 4, TOPO_TORUS_DOR);
    static const uint32_t r1[] = {0, 36, 32 + 28 * 5};
    static const uint8_t v1[] = {0, 1, 0};
    expect_route(&t, 0, 28, 0, r1, v1, 3);
    static const uint32_t r2[] = {9, 78, 86, 46, 182};
    static const uint8_t v2[] = {0, 0, 1, 1, 0};
    expect_route(&t, 9, 30, 0, r2, v2, 5);
    uint64_t l[64];
    ck_assert_int_eq(zero_load(topo_route(&t, 0, 28, 0, l, NULL, 64) - 1), 575000);
    ck_assert_int_eq(zero_load(topo_route(&t, 9, 30, 0, l, NULL, 64) - 1), 925000);
    /* the wrap link's far end: switch 0 port 4 enters switch 28 on its Y+ port 3 */
    topo_end e = t.ops->peer(&t, 0, 4);
    ck_assert_uint_eq(e.id, 28);
    ck_assert_uint_eq(e.port, 3);
    topo_free(&t);

    topo p = make_torus(8, 4, 0, TOPO_TORUS_DOR);
    for (uint64_t salt = 0; salt < 8; salt++)
        ck_assert_uint_eq(topo_route(&p, 0, 28, salt, l, NULL, 64), 7);
    topo_free(&p);
}
END_TEST

/* Minimal adaptive at 0 (0,0) -> 11 (3,1) on the 8x4 torus: adaptive X+
 * (port 1) and Y+ (port 3) on class 2, lowest dimension first, then the
 * escape: DOR in descending order, Y+ (port 3) on its dateline class 0.
 * The static route follows the first candidates: the DOR path, class 2. */
START_TEST(test_torus_adaptive_candidates)
{
    topo t = make_torus(8, 4, 0, TOPO_TORUS_ADAPTIVE);
    ck_assert_uint_eq(t.vcs, 3);
    topo_hdr h;
    t.ops->hdr_init(&t, 0, 11, 0, &h);
    topo_hop c[TOPO_MAX_CAND];
    ck_assert_uint_eq(t.ops->next(&t, 0, &h, c), 3);
    ck_assert_uint_eq(c[0].port, 1);
    ck_assert_uint_eq(c[0].vc, 2);
    ck_assert_uint_eq(c[0].kind, TOPO_HOP_ADAPTIVE);
    ck_assert_uint_eq(c[0].hops_left, 4);
    ck_assert_uint_eq(c[1].port, 3);
    ck_assert_uint_eq(c[1].vc, 2);
    ck_assert_uint_eq(c[2].port, 3);
    ck_assert_uint_eq(c[2].vc, 0);
    ck_assert_uint_eq(c[2].kind, TOPO_HOP_ESCAPE);
    static const uint32_t r1[] = {0, 33, 38, 43, 50, 87};
    static const uint8_t v1[] = {0, 2, 2, 2, 2, 0};
    expect_route(&t, 0, 11, 0, r1, v1, 6);
    topo_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- fat tree */

/* 2-ary 3-tree: 8 hosts, 3 levels of 4 switches (ids 0-3, 4-7, 8-11);
 * levels 0, 1 have 4 ports (link N + 4 s + port), the top 2 (link
 * N + 32 + 2 (s - 8) + port). 0 -> 5 (binary 000 -> 101): they first share
 * the level-2 subtree, L = 2. d-mod-k up ports are the digits of 5: b_0 = 1
 * at level 0, b_1 = 0 at level 1.
 *   switch 0 (level 0, p = 0): up port 2 + 1 = 3 -> level 1 (0, q = 1) =
 *     switch 4 + 1 = 5: link 8 + 0 + 3 = 11
 *   switch 5: up port 2 + 0 = 2 -> level 2 (0, q = 1) = switch 9: link
 *     8 + 20 + 2 = 30
 *   switch 9 (top): down port b_2 = 1 -> level 1 (p = 1, q = 1) = index 3,
 *     switch 7: link 8 + 32 + 2 + 1 = 43
 *   switch 7: down port b_1 = 0 -> level 0 switch 2: link 8 + 28 + 0 = 36
 *   switch 2: down port b_0 = 1 -> host 5: link 8 + 8 + 1 = 17
 * h = 2L + 1 = 5; zero load 200000 + 6 x 25000 + 5 x 150000 = 1100000 ps.
 * Every source's route to 5 climbs by the same digits (destination-based):
 * 1 -> 5 also leaves switch 0 by port 3 (link 11). */
START_TEST(test_fattree_routes)
{
    topo t = make_fattree(2, 3, TOPO_FT_DMODK);
    ck_assert_uint_eq(t.hosts, 8);
    ck_assert_uint_eq(t.switches, 12);
    ck_assert_uint_eq(t.links, 2 * 3 * 8);
    static const uint32_t r1[] = {0, 11, 30, 43, 36, 17};
    expect_route(&t, 0, 5, 0, r1, NULL, 6);
    uint64_t l[64];
    ck_assert_int_eq(zero_load(topo_route(&t, 0, 5, 0, l, NULL, 64) - 1), 1100000);
    static const uint32_t r2[] = {1, 11, 30, 43, 36, 17};
    expect_route(&t, 1, 5, 0, r2, NULL, 6);
    /* same leaf: 4 -> 5, h = 1: uplink 4, link 8 + 8 + 1 */
    static const uint32_t r3[] = {4, 17};
    expect_route(&t, 4, 5, 0, r3, NULL, 2);
    topo_free(&t);

    /* random-up: the up ports follow the salt; the down path is forced, so
     * every route to 5 ends with the down links from its top switch */
    t = make_fattree(2, 3, TOPO_FT_RANDOM_UP);
    int seen[4] = {0, 0, 0, 0}; /* top switch reached (8..11) */
    for (uint64_t salt = 0; salt < 64; salt++) {
        ck_assert_uint_eq(topo_route(&t, 0, 5, salt, l, NULL, 64), 6);
        topo_end from, to;
        topo_link_ends(&t, l[3], &from, &to);
        ck_assert_uint_ge(from.id, 8);
        seen[from.id - 8] = 1;
        ck_assert_uint_eq(l[5], 17);
    }
    ck_assert(seen[0] && seen[1] && seen[2] && seen[3]);
    topo_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- leaf-spine */

/* 4 leaves of 3 hosts, 2 spines: leaves 0-3 (5 ports: link 12 + 5 l +
 * port), spines 4-5 (4 ports: link 12 + 20 + 4 (s - 4) + port).
 * 1 -> 10 (leaf 0 -> leaf 3), d-mod-k: spine (10 mod 3) mod 2 = 1:
 *   uplink 1; leaf 0 port 3 + 1 = 4: 12 + 4 = 16; spine switch 5 port 3:
 *   12 + 20 + 4 + 3 = 39; leaf 3 port 10 mod 3 = 1: 12 + 15 + 1 = 28.
 * h = 3; zero load 200000 + 4 x 25000 + 3 x 150000 = 750000 ps. */
START_TEST(test_leafspine_routes)
{
    topo t = make_leafspine(4, 2, 3, TOPO_LS_DMODK);
    ck_assert_uint_eq(t.hosts, 12);
    ck_assert_uint_eq(t.links, 24 + 16);
    static const uint32_t r1[] = {1, 16, 39, 28};
    expect_route(&t, 1, 10, 0, r1, NULL, 4);
    uint64_t l[64];
    ck_assert_int_eq(zero_load(topo_route(&t, 1, 10, 0, l, NULL, 64) - 1), 750000);
    topo_free(&t);

    /* ecmp: the spine is topo_pick(salt, 0, 2); over 10000 salts each
     * spine carries half the messages within 2% */
    t = make_leafspine(4, 2, 3, TOPO_LS_ECMP);
    unsigned via[2] = {0, 0};
    for (uint64_t salt = 0; salt < 10000; salt++) {
        ck_assert_uint_eq(topo_route(&t, 1, 10, salt, l, NULL, 64), 4);
        ck_assert(l[1] == 15 || l[1] == 16);
        ck_assert_uint_eq(l[1] - 15, topo_pick(salt, 0, 2));
        via[l[1] - 15]++;
    }
    ck_assert_uint_gt(via[0], 4800);
    ck_assert_uint_gt(via[1], 4800);
    topo_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- dragonfly */

/* g = 5 groups of a = 4 routers, p = 2 hosts and h = 1 global link each:
 * a h = 4 = g - 1, n = 1 link per pair of groups. Radix 2 + 3 + 1 = 6
 * (link 40 + 6 sw + port): ports 0-1 hosts, 2-4 the other routers, 5 the
 * global link. Router r of group G holds slot r, toward group r (r < G) or
 * r + 1.
 * 1 (group 0, router 0) -> 37 (group 4, router 2, port 1), minimal: slot
 *   (0 -> 4) = 3 is on router 3; local 0 -> 3 (port 2 + 3 - 1 = 4: link
 *   44, class 0); global from switch 3 (port 5: link 40 + 18 + 5 = 63,
 *   class 0) to slot (4 -> 0) = 0, router 0 of group 4 = switch 16; local
 *   16 -> 18 (port 2 + 2 - 1 = 3: link 40 + 96 + 3 = 139, class 1);
 *   downlink 40 + 108 + 1 = 149. h = 4: zero load 200000 + 5 x 25000 +
 *   4 x 150000 = 925000 ps.
 * Valiant through group 2: slot (0 -> 2) = 1 on router 1: local 0 -> 1
 *   (port 2: link 42, class 0); global (link 40 + 6 + 5 = 51, class 0) to
 *   slot (2 -> 0) = 0, switch 8; slot (2 -> 4) = 3 on router 3: local
 *   (port 4: link 40 + 48 + 4 = 92, class 1); global (link 40 + 66 + 5 =
 *   111, class 1) to slot (4 -> 2) = 2: router 2 of group 4 = switch 18,
 *   the destination's; downlink 149. h = 5. */
START_TEST(test_dragonfly_routes)
{
    topo t = make_dragonfly(5, 4, 2, 1, TOPO_DF_MINIMAL);
    ck_assert_uint_eq(t.hosts, 40);
    ck_assert_uint_eq(t.switches, 20);
    ck_assert_uint_eq(t.links, 40 + 120);
    ck_assert_uint_eq(t.vcs, 2);
    static const uint32_t r1[] = {1, 44, 63, 139, 149};
    static const uint8_t v1[] = {0, 0, 0, 1, 0};
    expect_route(&t, 1, 37, 0, r1, v1, 5);
    uint64_t l[64];
    ck_assert_int_eq(zero_load(topo_route(&t, 1, 37, 0, l, NULL, 64) - 1), 925000);
    topo_free(&t);

    t = make_dragonfly(5, 4, 2, 1, TOPO_DF_VALIANT);
    ck_assert_uint_eq(t.vcs, 3);
    static const uint32_t r2[] = {1, 42, 51, 92, 111, 149};
    static const uint8_t v2[] = {0, 0, 0, 1, 1, 0};
    int mids[5] = {0, 0, 0, 0, 0};
    for (uint64_t salt = 0; salt < 64; salt++) {
        topo_hdr h;
        t.ops->hdr_init(&t, 1, 37, salt, &h);
        ck_assert(h.mid >= 1 && h.mid <= 3); /* neither group 0 nor group 4 */
        mids[h.mid]++;
        if (h.mid == 2)
            expect_route(&t, 1, 37, salt, r2, v2, 6);
    }
    ck_assert(mids[1] && mids[2] && mids[3]);
    topo_free(&t);

    /* UGAL at the source router: the minimal first hop (local to router 3,
     * 3 hops to go) and the Valiant one (through group 2: local to router
     * 1, 4 hops to go); taking the Valiant one commits the packet to it */
    t = make_dragonfly(5, 4, 2, 1, TOPO_DF_UGAL);
    for (uint64_t salt = 0; salt < 64; salt++) {
        topo_hdr h;
        t.ops->hdr_init(&t, 1, 37, salt, &h);
        if (h.mid != 2)
            continue;
        topo_hop c[TOPO_MAX_CAND];
        ck_assert_uint_eq(t.ops->next(&t, 0, &h, c), 2);
        ck_assert_uint_eq(c[0].kind, TOPO_HOP_MINIMAL);
        ck_assert_uint_eq(c[0].port, 4);
        ck_assert_uint_eq(c[0].hops_left, 3);
        ck_assert_uint_eq(c[1].kind, TOPO_HOP_VALIANT);
        ck_assert_uint_eq(c[1].port, 2);
        ck_assert_uint_eq(c[1].hops_left, 4);
        /* queue 3 x 3 hops > 2 x 4: Valiant; 2 x 3 <= 2 x 4: minimal */
        ck_assert_int_eq(topo_ugal_minimal(3, 3, 2, 4), 0);
        ck_assert_int_eq(topo_ugal_minimal(2, 3, 2, 4), 1);
        t.ops->take(&t, 0, &c[1], &h);
        ck_assert_uint_eq(t.ops->next(&t, 1, &h, c), 1);
        ck_assert_uint_eq(c[0].port, 5); /* router 1's global link to group 2 */
        /* the static route takes the minimal candidate */
        expect_route(&t, 1, 37, salt, r1, v1, 5);
        break;
    }
    topo_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- invariants */

/* The port graph: every port's output is one link whose ends decode back,
 * switch-to-switch links come in full-duplex pairs, every host has one
 * uplink and one downlink, and the ids cover [0, links) once each. */
static void check_graph(const topo *t)
{
    uint8_t *seen = calloc(t->links, 1);
    for (uint32_t h = 0; h < t->hosts; h++) {
        topo_end from, to;
        topo_link_ends(t, topo_link_up(t, h), &from, &to);
        REQUIRE(from.kind == TOPO_HOST);
        REQUIRE(from.id == h);
        REQUIRE(to.kind == TOPO_SWITCH);
        seen[h]++;
        topo_end back = t->ops->peer(t, to.id, to.port);
        REQUIRE(back.kind == TOPO_HOST);
        REQUIRE(back.id == h);
        REQUIRE(topo_link_down(t, h) == topo_link_out(t, to.id, to.port));
    }
    uint32_t maxr = 0;
    for (uint32_t s = 0; s < t->switches; s++) {
        uint32_t R = t->ops->radix(t, s);
        if (R > maxr)
            maxr = R;
        for (uint32_t q = 0; q < R; q++) {
            uint32_t id = topo_link_out(t, s, q);
            REQUIRE(id < t->links);
            seen[id]++;
            topo_end from, to;
            topo_link_ends(t, id, &from, &to);
            REQUIRE(from.kind == TOPO_SWITCH);
            REQUIRE(from.id == s);
            REQUIRE(from.port == q);
            if (to.kind == TOPO_SWITCH) {
                REQUIRE(to.id < t->switches);
                topo_end back = t->ops->peer(t, to.id, to.port);
                REQUIRE_MSG(back.kind == TOPO_SWITCH && back.id == s && back.port == q,
                            "%s: switch %u port %u -> %u:%u does not come back", t->ops->name, s,
                            q, to.id, to.port);
            }
        }
    }
    REQUIRE(maxr == t->max_radix);
    for (uint32_t i = 0; i < t->links; i++)
        REQUIRE_MSG(seen[i] == 1, "%s: link %u seen %u times", t->ops->name, i, seen[i]);
    free(seen);
}

/* Switch-to-switch distances by breadth-first search from switch s. */
static void bfs(const topo *t, uint32_t s, uint32_t *hops)
{
    uint32_t *queue = malloc(t->switches * sizeof *queue);
    for (uint32_t i = 0; i < t->switches; i++)
        hops[i] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    hops[s] = 0;
    queue[tail++] = s;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t q = 0; q < t->ops->radix(t, u); q++) {
            topo_end e = t->ops->peer(t, u, q);
            if (e.kind == TOPO_SWITCH && hops[e.id] == UINT32_MAX) {
                hops[e.id] = hops[u] + 1;
                queue[tail++] = e.id;
            }
        }
    }
    free(queue);
}

enum shape { SHAPE_SHORTEST, SHAPE_UPDOWN, SHAPE_DRAGONFLY };

/* Every pair, several salts: the route starts at a's uplink, ends at b's
 * downlink, its links connect, its classes are in range, and its length is
 * what the routing promises (shortest path; up then down through the tree
 * levels; at most one global link for minimal dragonfly routes). */
static void check_routes(const topo *t, enum shape shape, unsigned salts, uint32_t level_size)
{
    uint32_t *hops = malloc(t->switches * sizeof *hops);
    uint64_t *l = malloc(t->max_route_links * sizeof *l);
    uint8_t *v = malloc(t->max_route_links);
    for (uint32_t a = 0; a < t->hosts; a++) {
        uint32_t sa, pa;
        t->ops->attach(t, a, &sa, &pa);
        if (shape == SHAPE_SHORTEST)
            bfs(t, sa, hops);
        for (uint32_t b = 0; b < t->hosts; b++) {
            uint32_t sb, pb;
            t->ops->attach(t, b, &sb, &pb);
            for (uint64_t salt = 0; salt < salts; salt++) {
                uint32_t n = (uint32_t)topo_route(t, a, b, salt * 0x9e3779b97f4a7c15u, l, v, t->max_route_links);
                REQUIRE(n >= 2);
                REQUIRE(l[0] == topo_link_up(t, a));
                REQUIRE(l[n - 1] == topo_link_down(t, b));
                int up = 1;
                for (uint32_t i = 0; i + 1 < n; i++) {
                    topo_end f0, t0, f1, t1;
                    topo_link_ends(t, l[i], &f0, &t0);
                    topo_link_ends(t, l[i + 1], &f1, &t1);
                    REQUIRE(t0.kind == TOPO_SWITCH);
                    REQUIRE(f1.kind == TOPO_SWITCH);
                    REQUIRE(t0.id == f1.id);
                    REQUIRE(v[i + 1] < t->vcs);
                    if (shape == SHAPE_UPDOWN && i > 0) {
                        /* levels: switch id / level_size; up until the first down */
                        int going_up = t0.id / level_size > f0.id / level_size;
                        REQUIRE_MSG(up || !going_up, "%s %u -> %u climbs after descending",
                                    t->ops->name, a, b);
                        if (!going_up)
                            up = 0;
                    }
                }
                if (shape == SHAPE_SHORTEST)
                    REQUIRE_MSG(n - 2 == hops[sb], "%s %u -> %u: %u hops, shortest %u",
                                t->ops->name, a, b, n - 2, hops[sb]);
            }
        }
    }
    free(hops);
    free(l);
    free(v);
}

START_TEST(test_invariants_torus)
{
    static const uint32_t dims[][3] = {{8, 4, 0}, {8, 4, 4}, {4, 4, 0}, {5, 3, 0}, {6, 4, 2},
                                       {2, 2, 0}, {3, 2, 1}, {16, 8, 8}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        for (int r = 0; r < 4; r++) { /* dor, adaptive, valiant (its own check: test_torus_valiant_romm), romm */
            topo t = make_torus(dims[i][0], dims[i][1], dims[i][2], (topo_torus_routing)r);
            check_graph(&t);
            if (r != TOPO_TORUS_VALIANT)
                check_routes(&t, SHAPE_SHORTEST, dims[i][0] * dims[i][1] > 64 ? 2 : 8, 0);
            topo_free(&t);
        }
    }
    /* three dimensions, 4 x 3 x 2 */
    topo t;
    char err[256];
    topo_torus_params p = {.ndims = 3, .dims = {4, 3, 2}, .routing = TOPO_TORUS_DOR};
    ck_assert(topo_torus_init(&t, &p, err, sizeof err) == 0);
    check_graph(&t);
    check_routes(&t, SHAPE_SHORTEST, 8, 0);
    topo_free(&t);
}
END_TEST

START_TEST(test_invariants_trees)
{
    static const uint32_t ft[][2] = {{2, 1}, {2, 3}, {3, 2}, {4, 3}, {2, 4}};
    for (size_t i = 0; i < sizeof ft / sizeof *ft; i++) {
        for (int r = 0; r < 2; r++) {
            topo t = make_fattree(ft[i][0], ft[i][1], (topo_fattree_routing)r);
            check_graph(&t);
            uint32_t per_level = t.switches / ft[i][1];
            check_routes(&t, SHAPE_SHORTEST, r ? 4 : 1, per_level);
            check_routes(&t, SHAPE_UPDOWN, r ? 4 : 1, per_level);
            topo_free(&t);
        }
    }
    static const uint32_t ls[][3] = {{4, 2, 3}, {1, 2, 4}, {3, 4, 2}, {5, 3, 7}};
    for (size_t i = 0; i < sizeof ls / sizeof *ls; i++) {
        for (int r = 0; r < 2; r++) {
            topo t = make_leafspine(ls[i][0], ls[i][1], ls[i][2], (topo_leafspine_routing)r);
            check_graph(&t);
            check_routes(&t, SHAPE_SHORTEST, 4, ls[i][0]);
            check_routes(&t, SHAPE_UPDOWN, 4, ls[i][0]);
            topo_free(&t);
        }
    }
}
END_TEST

/* Dragonfly: global hops per route (0 inside a group; minimal 1, Valiant
 * 2 between groups, Valiant with g = 2 is minimal), at most one local hop
 * per group visited, classes = global links crossed. */
static void check_dragonfly(uint32_t g, uint32_t a, uint32_t p, uint32_t h)
{
    for (int r = 0; r < 3; r++) {
        topo t = make_dragonfly(g, a, p, h, (topo_dragonfly_routing)r);
        check_graph(&t);
        check_routes(&t, SHAPE_DRAGONFLY, 8, 0);
        uint32_t first_global = p + a - 1;
        uint64_t l[16];
        uint8_t v[16];
        for (uint32_t x = 0; x < t.hosts; x++) {
            for (uint32_t y = 0; y < t.hosts; y++) {
                for (uint64_t salt = 0; salt < 8; salt++) {
                    uint32_t n = (uint32_t)topo_route(&t, x, y, salt, l, v, 16);
                    int same = x / (a * p) == y / (a * p);
                    uint32_t globals = 0, locals_here = 0, locals = 0;
                    for (uint32_t i = 1; i + 1 < n; i++) {
                        topo_end f, to;
                        topo_link_ends(&t, l[i], &f, &to);
                        if (f.port >= first_global) {
                            REQUIRE(v[i] == globals);
                            globals++;
                            locals_here = 0;
                        } else {
                            /* one local hop per group, two for a Valiant
                             * route inside a group (class 0, then 1) */
                            locals_here++;
                            locals++;
                            REQUIRE(locals_here <= (same ? 2u : 1u));
                            REQUIRE(v[i] == (same ? locals - 1 : globals));
                        }
                    }
                    uint32_t want = same ? 0 : (r == TOPO_DF_VALIANT && g > 2 ? 2 : 1);
                    REQUIRE_MSG(globals == want, "dragonfly %u -> %u routing %d: %u globals",
                                x, y, r, globals);
                    REQUIRE(n - 2 <= (want == 2 ? 5u : 3u));
                }
            }
        }
        topo_free(&t);
    }
}

START_TEST(test_invariants_dragonfly)
{
    check_dragonfly(5, 4, 2, 1); /* n = 1 */
    check_dragonfly(3, 2, 2, 2); /* n = 2 parallel links per pair */
    check_dragonfly(2, 3, 1, 2); /* g = 2: n = 6, Valiant falls back */
    check_dragonfly(9, 4, 2, 2); /* balanced: a = 2p = 2h, g = ah + 1 */
}
END_TEST

/* ---------------------------------------------------------------- deadlock */

/* Channel dependency graph over channels (link, class): bitmap adjacency. */
typedef struct cdg {
    uint32_t n;     /* channels */
    uint8_t vcs;    /* classes */
    uint8_t *adj;   /* n x n bits */
} cdg;

static cdg cdg_new(const topo *t, uint8_t vcs)
{
    cdg g = {.n = t->links * vcs, .vcs = vcs};
    ck_assert_uint_le(g.n, 8192);
    g.adj = calloc(((size_t)g.n * g.n + 7) / 8, 1);
    return g;
}

static void cdg_edge(cdg *g, uint32_t from, uint32_t to)
{
    size_t i = (size_t)from * g->n + to;
    g->adj[i / 8] |= (uint8_t)(1u << (i % 8));
}

static int cdg_has(const cdg *g, uint32_t from, uint32_t to)
{
    size_t i = (size_t)from * g->n + to;
    return (g->adj[i / 8] >> (i % 8)) & 1;
}

/* Kahn: acyclic iff every channel can be removed in topological order. */
static int cdg_acyclic(const cdg *g)
{
    uint32_t *indeg = calloc(g->n, sizeof *indeg), *q = malloc(g->n * sizeof *q);
    for (uint32_t u = 0; u < g->n; u++)
        for (uint32_t w = 0; w < g->n; w++)
            indeg[w] += (uint32_t)cdg_has(g, u, w);
    uint32_t head = 0, tail = 0;
    for (uint32_t u = 0; u < g->n; u++)
        if (!indeg[u])
            q[tail++] = u;
    while (head < tail) {
        uint32_t u = q[head++];
        for (uint32_t w = 0; w < g->n; w++)
            if (cdg_has(g, u, w) && --indeg[w] == 0)
                q[tail++] = w;
    }
    free(indeg);
    free(q);
    return tail == g->n;
}

/* The dependencies of every route (all pairs, `salts` salts): consecutive
 * channels; classes folded to 0 when `fold` (the negative control). */
static void cdg_routes(cdg *g, const topo *t, unsigned salts, int fold)
{
    uint64_t l[64];
    uint8_t v[64];
    for (uint32_t a = 0; a < t->hosts; a++)
        for (uint32_t b = 0; b < t->hosts; b++)
            for (uint64_t s = 0; s < salts; s++) {
                uint32_t n = (uint32_t)topo_route(t, a, b, s * 0x9e3779b97f4a7c15u, l, v, 64);
                for (uint32_t i = 0; i + 1 < n; i++)
                    cdg_edge(g, l[i] * g->vcs + (fold ? 0 : v[i]),
                             l[i + 1] * g->vcs + (fold ? 0 : v[i + 1]));
            }
}

/* network.dateline="ring" (BookSim2's dim_order_torus partition): the class
 * of a dimension's whole traversal. On a ring of 8, by hand (v[0] is the
 * host link, v[1..] the switch hops):
 *   6 -> 1, + 3 hops over the wrap 7 -> 0: per hop (default) 1, 1, 0 (the
 *     hops still to go cross the wrap: 6 + 3 = 9 >= 8, 7 + 2 = 9 >= 8,
 *     0 + 1 = 1 < 8); per ring 1, 1, 1 (6 > 1 going +);
 *   1 -> 6, - 3 hops over the wrap 0 -> 7: per hop 1, 1, 0 (1 - 3 < 0,
 *     0 - 2 < 0, 7 - 1 >= 0); per ring 1, 1, 1 (1 < 6 going -);
 *   1 -> 3, + 2 hops, no wrap: 0, 0 both ways.
 * The graph of all routes with the per-ring classes is acyclic (the
 * argument in topo_torus.c's head) on rings and tori, odd and even; it is
 * refused with adaptive routing and on a twisted torus. */
START_TEST(test_dateline_ring)
{
    static const struct {
        uint32_t a, b;
        uint8_t hop[3], ring[3];
        uint32_t n;
    } r[] = {{6, 1, {1, 1, 0}, {1, 1, 1}, 3}, {1, 6, {1, 1, 0}, {1, 1, 1}, 3}, {1, 3, {0, 0}, {0, 0}, 2}};
    for (int ring = 0; ring < 2; ring++) {
        topo t;
        char err[256];
        topo_torus_params p = {.ndims = 1, .dims = {8}, .routing = TOPO_TORUS_DOR, .dateline_ring = (uint8_t)ring};
        ck_assert_msg(topo_torus_init(&t, &p, err, sizeof err) == 0, "%s", err);
        for (size_t i = 0; i < sizeof r / sizeof *r; i++) {
            uint64_t l[64];
            uint8_t v[64];
            uint32_t n = (uint32_t)topo_route(&t, r[i].a, r[i].b, 0, l, v, 64);
            ck_assert_uint_eq(n, r[i].n + 2);
            for (uint32_t h = 0; h < r[i].n; h++)
                ck_assert_msg(v[1 + h] == (ring ? r[i].ring[h] : r[i].hop[h]), "%u -> %u hop %u: class %u (%s)",
                              r[i].a, r[i].b, h, v[1 + h], ring ? "ring" : "hop");
        }
        topo_free(&t);
    }
    static const uint32_t dims[][2] = {{8, 8}, {5, 5}, {4, 3}, {6, 7}, {2, 9}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        topo t;
        char err[256];
        topo_torus_params p = {.ndims = 2, .dims = {dims[i][0], dims[i][1]}, .routing = TOPO_TORUS_DOR,
                               .dateline_ring = 1};
        ck_assert_msg(topo_torus_init(&t, &p, err, sizeof err) == 0, "%s", err);
        cdg g = cdg_new(&t, t.vcs);
        cdg_routes(&g, &t, 16, 0);
        ck_assert_msg(cdg_acyclic(&g), "torus %ux%u, dateline ring: cycle", dims[i][0], dims[i][1]);
        free(g.adj);
        topo_free(&t);
    }
    char err[256];
    topo_torus_params p = {.ndims = 2, .dims = {8, 8}, .routing = TOPO_TORUS_ADAPTIVE, .dateline_ring = 1};
    ck_assert_int_ne(topo_torus_check(&p, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "adaptive"));
    p = (topo_torus_params){.ndims = 2, .dims = {8, 4}, .twist = 4, .routing = TOPO_TORUS_DOR, .dateline_ring = 1};
    ck_assert_int_ne(topo_torus_check(&p, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "twisted"));
    p = (topo_torus_params){.ndims = 2, .dims = {8, 4}, .twist = 4, .routing = TOPO_TORUS_VALIANT, .dateline_ring = 1};
    ck_assert_int_ne(topo_torus_check(&p, err, sizeof err), 0);
    p = (topo_torus_params){.ndims = 2, .dims = {8, 8}, .routing = TOPO_TORUS_ROMM, .dateline_ring = 1};
    ck_assert_int_eq(topo_torus_check(&p, err, sizeof err), 0);
}
END_TEST

/* Route words (topo.h rec_word; the torus's dor without a twist): the word
 * of every pair equals the one read off hdr_init's record, for salts that
 * decide every tie both ways: bit 2d is the sign of the record's offset in
 * d (1: -), bit 2d + 1 under dateline="ring" the traversal's class, 1 when
 * it crosses the wrap link: going + from coordinate s to e that is e < s
 * (k-1 -> 0 lies between), going - it is e > s. By hand on the 8x8 torus:
 * 1 -> 6 (x 1 -> 6, y 0): (6 - 1) mod 8 = 5 > 4, so - 3 hops, word bit 0;
 * going - from 1 to 6 wraps 0 -> 7: ring class 1, bit 1: word 3 (ring), 1
 * (hop). 0 -> 4: x's offset 4 = 8/2 is a tie, decided by the salt: over
 * salts 0..63 both + (word 0) and - occur (word 1; 3 under ring: going -
 * from 0 to 4 crosses 0 -> 7). */
START_TEST(test_torus_route_words)
{
    static const uint32_t dims[][3] = {{8, 8, 0}, {5, 6, 0}, {6, 3, 2}, {4, 4, 4}, {2, 3, 0}, {7, 0, 0}, {4, 0, 0},
                                       {2, 2, 2}, {9, 4, 0}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
        for (int ring = 0; ring < 2; ring++) {
            topo t;
            char err[256];
            topo_torus_params p = {.routing = TOPO_TORUS_DOR, .dateline_ring = (uint8_t)ring};
            for (uint32_t d = 0; d < 3 && dims[i][d]; d++)
                p.dims[p.ndims++] = dims[i][d];
            ck_assert_msg(topo_torus_init(&t, &p, err, sizeof err) == 0, "%s", err);
            ck_assert_ptr_nonnull(t.ops->rec_word);
            for (uint32_t a = 0; a < t.hosts; a++)
                for (uint32_t b = 0; b < t.hosts; b++)
                    for (uint64_t salt = 0; salt < 64; salt++) {
                        uint64_t sl = salt * UINT64_C(0x9e3779b97f4a7c15);
                        topo_hdr h;
                        t.ops->hdr_init(&t, a, b, sl, &h);
                        uint32_t want = 0, stride = 1;
                        for (uint32_t d = 0; d < p.ndims; d++) {
                            uint32_t s = a / stride % p.dims[d], e = b / stride % p.dims[d];
                            stride *= p.dims[d];
                            if (!h.off[d])
                                continue;
                            want |= (uint32_t)(h.off[d] < 0) << (2 * d);
                            if (ring)
                                want |= (uint32_t)(h.off[d] > 0 ? e < s : e > s) << (2 * d + 1);
                        }
                        uint32_t got = t.ops->rec_word(&t, a, b, sl);
                        REQUIRE_MSG(got == want, "torus %u %u %u ring %d: %u -> %u salt %llu: word %u, record's %u",
                                    dims[i][0], dims[i][1], dims[i][2], ring, a, b, (unsigned long long)sl, got,
                                    want);
                    }
            if (p.ndims == 2 && p.dims[0] == 8 && p.dims[1] == 8) {
                ck_assert_uint_eq(t.ops->rec_word(&t, 1, 6, 0), ring ? 3u : 1u);
                unsigned seen = 0;
                for (uint64_t salt = 0; salt < 64; salt++)
                    seen |= 1u << t.ops->rec_word(&t, 0, 4, salt * UINT64_C(0x9e3779b97f4a7c15));
                ck_assert_uint_eq(seen, ring ? (1u << 0 | 1u << 3) : (1u << 0 | 1u << 1));
            }
            topo_free(&t);
        }
}
END_TEST

/* Oblivious routings: the graph of all routes is acyclic with the
 * topology's classes. For the torus, folding the dateline classes into one
 * makes it cyclic (the rings close): the check sees cycles when they exist. */
START_TEST(test_deadlock_oblivious)
{
    static const uint32_t dims[][3] = {{8, 4, 0}, {8, 4, 4}, {5, 5, 0}, {4, 3, 0}, {6, 4, 3}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        topo t = make_torus(dims[i][0], dims[i][1], dims[i][2], TOPO_TORUS_DOR);
        cdg g = cdg_new(&t, t.vcs);
        cdg_routes(&g, &t, 16, 0);
        ck_assert_msg(cdg_acyclic(&g), "torus %ux%u twist %u: cycle", dims[i][0], dims[i][1],
                      dims[i][2]);
        free(g.adj);
        g = cdg_new(&t, 1);
        cdg_routes(&g, &t, 16, 1);
        ck_assert_msg(!cdg_acyclic(&g), "torus %ux%u twist %u: one class should close the rings",
                      dims[i][0], dims[i][1], dims[i][2]);
        free(g.adj);
        topo_free(&t);
    }
    for (int r = 0; r < 2; r++) {
        topo t = make_fattree(3, 3, (topo_fattree_routing)r);
        cdg g = cdg_new(&t, t.vcs);
        cdg_routes(&g, &t, r ? 16 : 1, 0);
        ck_assert(cdg_acyclic(&g));
        free(g.adj);
        topo_free(&t);
        t = make_leafspine(4, 3, 3, (topo_leafspine_routing)r);
        g = cdg_new(&t, t.vcs);
        cdg_routes(&g, &t, 16, 0);
        ck_assert(cdg_acyclic(&g));
        free(g.adj);
        topo_free(&t);
    }
    for (int r = 0; r < 3; r++) {
        static const uint32_t df[][4] = {{5, 4, 2, 1}, {3, 2, 2, 2}, {9, 4, 1, 2}};
        for (size_t i = 0; i < 3; i++) {
            topo t = make_dragonfly(df[i][0], df[i][1], df[i][2], df[i][3],
                                    (topo_dragonfly_routing)r);
            cdg g = cdg_new(&t, t.vcs);
            cdg_routes(&g, &t, 32, 0);
            ck_assert_msg(cdg_acyclic(&g), "dragonfly %zu routing %d: cycle", i, r);
            free(g.adj);
            topo_free(&t);
        }
    }
}
END_TEST

/* UGAL: a packet may take either candidate at its source, so the graph of
 * both kinds of routes together must be acyclic. */
static void walk_both(cdg *g, const topo *t, uint32_t sw, topo_hdr h, uint32_t prev)
{
    topo_hop c[TOPO_MAX_CAND];
    unsigned nc = t->ops->next(t, sw, &h, c);
    for (unsigned i = 0; i < nc; i++) {
        topo_hdr h2 = h;
        t->ops->take(t, sw, &c[i], &h2);
        uint32_t ch = topo_link_out(t, sw, c[i].port) * g->vcs + c[i].vc;
        cdg_edge(g, prev, ch);
        topo_end e = t->ops->peer(t, sw, c[i].port);
        if (e.kind == TOPO_SWITCH)
            walk_both(g, t, e.id, h2, ch);
    }
}

START_TEST(test_deadlock_ugal)
{
    topo t = make_dragonfly(5, 4, 2, 1, TOPO_DF_UGAL);
    cdg g = cdg_new(&t, t.vcs);
    for (uint32_t a = 0; a < t.hosts; a++)
        for (uint32_t b = 0; b < t.hosts; b++)
            for (uint64_t s = 0; s < 16; s++) {
                topo_hdr h;
                t.ops->hdr_init(&t, a, b, s * 0x9e3779b97f4a7c15u, &h);
                uint32_t sw, port;
                t.ops->attach(&t, a, &sw, &port);
                walk_both(&g, &t, sw, h, topo_link_up(&t, a) * g.vcs);
            }
    ck_assert(cdg_acyclic(&g));
    free(g.adj);
    topo_free(&t);
}
END_TEST

/* Minimal adaptive torus (Duato): the escape channels' extended dependency
 * graph, i.e. escape channel e1 -> escape channel e2 whenever a packet can
 * take e2 after e1 with only adaptive hops between, over every adaptive
 * path of every pair, is acyclic. (The adaptive class alone has cycles,
 * which Duato's protocol allows.) */
static void walk_adaptive(cdg *g, const topo *t, uint32_t sw, topo_hdr h, int64_t last_escape,
                          int64_t prev, cdg *all)
{
    topo_hop c[TOPO_MAX_CAND];
    unsigned nc = t->ops->next(t, sw, &h, c);
    for (unsigned i = 0; i < nc; i++) {
        topo_hdr h2 = h;
        t->ops->take(t, sw, &c[i], &h2);
        uint32_t ch = topo_link_out(t, sw, c[i].port) * g->vcs + c[i].vc;
        if (prev >= 0)
            cdg_edge(all, (uint32_t)prev, ch);
        int64_t esc = last_escape;
        if (c[i].kind == TOPO_HOP_ESCAPE) {
            if (last_escape >= 0)
                cdg_edge(g, (uint32_t)last_escape, ch);
            esc = ch;
        }
        topo_end e = t->ops->peer(t, sw, c[i].port);
        if (e.kind == TOPO_SWITCH)
            walk_adaptive(g, t, e.id, h2, esc, ch, all);
    }
}

START_TEST(test_deadlock_adaptive)
{
    static const uint32_t dims[][3] = {{8, 4, 0}, {8, 4, 4}, {5, 4, 0}, {6, 4, 3}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        topo t = make_torus(dims[i][0], dims[i][1], dims[i][2], TOPO_TORUS_ADAPTIVE);
        cdg g = cdg_new(&t, t.vcs), all = cdg_new(&t, t.vcs);
        for (uint32_t a = 0; a < t.hosts; a++)
            for (uint32_t b = 0; b < t.hosts; b++)
                for (uint64_t s = 0; s < 4; s++) {
                    topo_hdr h;
                    t.ops->hdr_init(&t, a, b, s * 0x9e3779b97f4a7c15u, &h);
                    walk_adaptive(&g, &t, a, h, -1, -1, &all);
                }
        ck_assert_msg(cdg_acyclic(&g), "adaptive torus %ux%u twist %u: escape cycle", dims[i][0],
                      dims[i][1], dims[i][2]);
        ck_assert_msg(!cdg_acyclic(&all), "adaptive torus %ux%u: the adaptive class has cycles",
                      dims[i][0], dims[i][1]);
        free(g.adj);
        free(all.adj);
        topo_free(&t);
    }
}
END_TEST

/* Failed links on a torus (topo_fail.c) start a message with another of
 * the records hdr_alt lists: the other minimal ones (ties) or a dimension
 * crossed the long way round. Whichever records the failures select, the
 * classes stay deadlock-free: the graph of the routes of every pair under
 * every record is acyclic for DOR, and the escape graph (Duato) of every
 * adaptive path of every record is acyclic (the head of topo_torus.c:
 * a traversal crosses its wrap at most once, |o| < k). The twisted torus
 * has no long-way records in dimensions 0 and 1 (only the plane's ties). */
START_TEST(test_deadlock_records)
{
    static const uint32_t dims[][3] = {{8, 4, 0}, {5, 4, 0}, {4, 4, 0}, {8, 4, 4}, {3, 3, 0}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
        for (int r = 0; r < 2; r++) {
            topo t = make_torus(dims[i][0], dims[i][1], dims[i][2], r ? TOPO_TORUS_ADAPTIVE : TOPO_TORUS_DOR);
            cdg g = cdg_new(&t, t.vcs), all = cdg_new(&t, t.vcs);
            uint32_t longest = 0, records = 0;
            for (uint32_t a = 0; a < t.hosts; a++)
                for (uint32_t b = 0; b < t.hosts; b++) {
                    topo_hdr h;
                    for (uint32_t k = 0; t.ops->hdr_alt(&t, a, b, 0, k, &h); k++) {
                        records++;
                        uint32_t len = 0;
                        for (int d = 0; d < 2; d++)
                            len += (uint32_t)(h.off[d] < 0 ? -h.off[d] : h.off[d]);
                        if (len > longest)
                            longest = len;
                        if (r) {
                            walk_adaptive(&g, &t, a, h, -1, -1, &all);
                            continue;
                        }
                        /* DOR: the one hop at every switch */
                        uint32_t sw = a;
                        int64_t prev = -1;
                        for (;;) {
                            topo_hop c[TOPO_MAX_CAND];
                            t.ops->next(&t, sw, &h, c);
                            uint32_t ch = topo_link_out(&t, sw, c[0].port) * g.vcs + c[0].vc;
                            if (prev >= 0)
                                cdg_edge(&g, (uint32_t)prev, ch);
                            prev = ch;
                            t.ops->take(&t, sw, &c[0], &h);
                            topo_end e = t.ops->peer(&t, sw, c[0].port);
                            if (e.kind == TOPO_HOST) {
                                ck_assert_uint_eq(e.id, b);
                                break;
                            }
                            sw = e.id;
                        }
                    }
                }
            ck_assert_msg(cdg_acyclic(&g), "torus %ux%u twist %u %s: a cycle over the failure records", dims[i][0],
                          dims[i][1], dims[i][2], r ? "adaptive" : "dor");
            /* with the long way: up to k0 - 1 + k1 - 1 hops (twisted: minimal only) */
            if (dims[i][2])
                ck_assert_uint_le(longest, t.max_route_links - 2);
            else
                ck_assert_uint_eq(longest, dims[i][0] + dims[i][1] - 2);
            ck_assert_uint_gt(records, t.hosts * t.hosts);
            free(g.adj);
            free(all.adj);
            topo_free(&t);
        }
    /* the dragonfly's records (another slice: another global link; with
     * Valiant and UGAL another intermediate): every route of every record,
     * both UGAL candidates, acyclic in the routing's classes */
    static const uint32_t df[][4] = {{5, 4, 1, 2}, {5, 4, 2, 1}, {3, 2, 2, 2}};
    for (size_t i = 0; i < sizeof df / sizeof *df; i++)
        for (int r = 0; r < 3; r++) {
            topo t = make_dragonfly(df[i][0], df[i][1], df[i][2], df[i][3], (topo_dragonfly_routing)r);
            cdg g = cdg_new(&t, t.vcs);
            uint32_t records = 0;
            for (uint32_t a = 0; a < t.hosts; a++)
                for (uint32_t b = 0; b < t.hosts; b++) {
                    topo_hdr h;
                    uint32_t sw, port;
                    t.ops->attach(&t, a, &sw, &port);
                    for (uint32_t k = 0; t.ops->hdr_alt(&t, a, b, 0, k, &h); k++) {
                        records++;
                        walk_both(&g, &t, sw, h, topo_link_up(&t, a) * g.vcs);
                    }
                }
            ck_assert_msg(cdg_acyclic(&g), "dragonfly %zu routing %d: a cycle over the failure records", i, r);
            /* g = 5, a = 4, h = 2: n = 2 slices, so at least twice the records between groups */
            if (i == 0)
                ck_assert_uint_ge(records, 2 * (t.hosts * t.hosts - 5 * 4 * 4));
            free(g.adj);
            topo_free(&t);
        }
}
END_TEST

/* Torus valiant and romm (topo_torus.c): two dimension-order phases, the
 * first to an intermediate switch, classes dateline + 2 x phase (4).
 * 4x4 torus, switch v = x + 4 y, ports 1 X+, 2 X-, 3 Y+, 4 Y-; link of
 * (v, port) = 16 + 5 v + port, host v's uplink v, its downlink 16 + 5 v.
 * 0 = (0,0) -> 10 = (2,2):
 *   valiant, salt 1: mid = topo_pick(1, 64, 16) = 11 = (3,2). Phase 0,
 *     (0,0) -> (3,2): dx = 3 = -1 mod 4, dy = 2 a tie (k/2) drawn -2. X-
 *     from 0: link 18, class 1 (0 - 1 < 0: across the wrap) to (3,0) = 3;
 *     Y- from 3: link 35, class 1 (0 - 2 < 0) to (3,3) = 15; Y- from 15:
 *     link 95, class 0 (3 - 1 >= 0) to (3,2) = 11, the intermediate.
 *     Phase 1, (3,2) -> (2,2): X- from 11: link 73, class 0 + 2 (3 - 1 >= 0)
 *     to 10; down link 66. 4 switch hops where the minimal route has 4 too
 *     (by chance), its classes 0,1,1,0,2,0.
 *     dateline="ring" (BookSim2's valiant_torus: the class of a phase's
 *     traversal of a dimension, from the phase's start to its end):
 *     phase 0 X from 0 to 3 going - : 0 < 3, class 1; Y from 0 to 2 going -:
 *     0 < 2, class 1 for both hops; phase 1 X from 3 to 2 going -: 3 > 2,
 *     class 0 + 2. Classes 0,1,1,1,2,0.
 *   romm, salt 2: the minimal displacement (ties: dx = 2 and dy = 2 both
 *     drawn -) is (-2, -2); the shares topo_pick(2, 80, 3) = 2 and
 *     topo_pick(2, 81, 3) = 1 make phase 0 (-2, -1): mid (2,3) = 14. X- from
 *     0: link 18, class 1 (0 - 2 < 0); X- from 3: link 33, class 0 (3 - 1 >=
 *     0) to 2; Y- from 2: link 30, class 1 (0 - 1 < 0) to (2,3) = 14. Phase
 *     1, (2,3) -> (2,2): Y- from 14: link 90, class 0 + 2; down link 66.
 *     4 hops, minimal.
 * Over every pair and many salts: valiant's route length is the distance
 * to mid plus the distance from mid (breadth-first search), romm's the
 * minimal one (test_invariants_torus); the channel dependency graph of all
 * routes is acyclic in the 4 classes (hop and ring datelines, plain and
 * twisted tori) and cyclic when the phases share classes (a phase-1 hop
 * of dimension 0 after a phase-0 hop of dimension 1 closes the dimension
 * order), so the phase classes are needed. */
START_TEST(test_torus_valiant_romm)
{
    topo t = make_torus(4, 4, 0, TOPO_TORUS_VALIANT);
    ck_assert_uint_eq(t.vcs, 4);
    ck_assert_uint_eq(t.max_route_links, 2 * 4 + 2);
    ck_assert_uint_eq(topo_pick(1, 64, 16), 11);
    static const uint32_t rv[] = {0, 18, 35, 95, 73, 66};
    static const uint8_t vv[] = {0, 1, 1, 0, 2, 0};
    expect_route(&t, 0, 10, 1, rv, vv, 6);
    topo_free(&t);
    {
        topo_torus_params p = {.ndims = 2, .dims = {4, 4}, .routing = TOPO_TORUS_VALIANT, .dateline_ring = 1};
        char err[256];
        ck_assert_msg(topo_torus_init(&t, &p, err, sizeof err) == 0, "%s", err);
        static const uint8_t vr[] = {0, 1, 1, 1, 2, 0};
        expect_route(&t, 0, 10, 1, rv, vr, 6);
        topo_free(&t);
    }
    t = make_torus(4, 4, 0, TOPO_TORUS_ROMM);
    ck_assert_uint_eq(t.vcs, 4);
    ck_assert_uint_eq(t.max_route_links, 4 + 2);
    ck_assert_uint_eq(topo_pick(2, 80, 3), 2);
    ck_assert_uint_eq(topo_pick(2, 81, 3), 1);
    static const uint32_t rr[] = {0, 18, 33, 30, 90, 66};
    static const uint8_t vr2[] = {0, 1, 0, 1, 2, 0};
    expect_route(&t, 0, 10, 2, rr, vr2, 6);
    topo_free(&t);

    /* valiant: length = d(a, mid) + d(mid, b) */
    static const uint32_t vd[][3] = {{4, 4, 0}, {5, 3, 0}, {8, 4, 4}};
    for (size_t i = 0; i < sizeof vd / sizeof *vd; i++) {
        t = make_torus(vd[i][0], vd[i][1], vd[i][2], TOPO_TORUS_VALIANT);
        check_graph(&t);
        uint32_t N = t.hosts, *dd = malloc((size_t)N * N * sizeof *dd);
        for (uint32_t a = 0; a < N; a++)
            bfs(&t, a, dd + (size_t)a * N);
        uint64_t l[64];
        for (uint32_t a = 0; a < N; a++)
            for (uint32_t b = 0; b < N; b++)
                for (uint64_t s = 0; s < 8; s++) {
                    uint64_t salt = s * 0x9e3779b97f4a7c15u;
                    topo_hdr h;
                    t.ops->hdr_init(&t, a, b, salt, &h);
                    uint32_t n = (uint32_t)topo_route(&t, a, b, salt, l, NULL, 64);
                    REQUIRE(h.mid < N);
                    REQUIRE(l[n - 1] == topo_link_down(&t, b));
                    REQUIRE_MSG(n - 2 == dd[(size_t)a * N + h.mid] + dd[(size_t)h.mid * N + b],
                                "valiant %u -> %u via %u: %u hops", a, b, h.mid, n - 2);
                }
        free(dd);
        topo_free(&t);
    }

    /* deadlock freedom: every route of every pair, 64 salts (most intermediates) */
    static const uint32_t dims[][4] = {{4, 4, 0, 0}, {5, 4, 0, 0}, {3, 3, 0, 0}, {8, 4, 4, 0},
                                       {6, 4, 3, 0}, {4, 4, 0, 1}, {5, 4, 0, 1}, {6, 3, 0, 1}};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
        for (int r = TOPO_TORUS_VALIANT; r <= TOPO_TORUS_ROMM; r++) {
            topo_torus_params p = {.ndims = 2, .dims = {dims[i][0], dims[i][1]}, .twist = dims[i][2],
                                   .routing = (topo_torus_routing)r, .dateline_ring = (uint8_t)dims[i][3]};
            char err[256];
            ck_assert_msg(topo_torus_init(&t, &p, err, sizeof err) == 0, "%s", err);
            cdg g = cdg_new(&t, t.vcs), f = cdg_new(&t, 2);
            uint64_t l[64];
            uint8_t v[64];
            for (uint32_t a = 0; a < t.hosts; a++)
                for (uint32_t b = 0; b < t.hosts; b++)
                    for (uint64_t s = 0; s < 64; s++) {
                        uint32_t n = (uint32_t)topo_route(&t, a, b, s * 0x9e3779b97f4a7c15u, l, v, 64);
                        for (uint32_t k = 0; k + 1 < n; k++) {
                            cdg_edge(&g, l[k] * g.vcs + v[k], l[k + 1] * g.vcs + v[k + 1]);
                            cdg_edge(&f, l[k] * f.vcs + v[k] % 2, l[k + 1] * f.vcs + v[k + 1] % 2);
                        }
                    }
            ck_assert_msg(cdg_acyclic(&g), "torus %ux%u twist %u ring %u %s: cycle", dims[i][0], dims[i][1],
                          dims[i][2], dims[i][3], topo_torus_routing_names[r]);
            ck_assert_msg(!cdg_acyclic(&f), "torus %ux%u %s: one class per dateline side should close a cycle",
                          dims[i][0], dims[i][1], topo_torus_routing_names[r]);
            free(g.adj);
            free(f.adj);
            topo_free(&t);
        }
}
END_TEST

/* Fat tree anca (topo_fattree.c, BookSim2's fattree_anca): a switch below
 * the nearest common ancestor offers two up ports, random-up's draw
 * topo_pick(salt, l, k) first and topo_pick(salt, 64 + l, k) second, or
 * one when they coincide. 4-ary 3-tree, host 0 -> 63 at leaf switch 0:
 * salt 2 draws 2 and topo_pick(2, 64, 4) = 0: up ports k + 2 = 6 then
 * 4 (TOPO_HOP_LEAST); salt 1 draws 2 and 2: port 6 alone. Every route
 * either choice can build is up*-down*: the graph of all of them (both
 * candidates at every switch) is acyclic with one class, and the static
 * route (first candidates) is random-up's. The three-tier tree the same
 * (its draws 0, 1 and 2, 3). */
START_TEST(test_fattree_anca)
{
    topo t = make_fattree(4, 3, TOPO_FT_ANCA), ru = make_fattree(4, 3, TOPO_FT_RANDOM_UP);
    ck_assert_uint_eq(topo_pick(2, 0, 4), 2);
    ck_assert_uint_eq(topo_pick(2, 64, 4), 0);
    ck_assert_uint_eq(topo_pick(1, 0, 4), 2);
    ck_assert_uint_eq(topo_pick(1, 64, 4), 2);
    topo_hdr h;
    topo_hop c[TOPO_MAX_CAND];
    t.ops->hdr_init(&t, 0, 63, 2, &h);
    ck_assert_uint_eq(t.ops->next(&t, 0, &h, c), 2);
    ck_assert_uint_eq(c[0].port, 6);
    ck_assert_uint_eq(c[1].port, 4);
    ck_assert_uint_eq(c[0].kind, TOPO_HOP_LEAST);
    ck_assert_uint_eq(c[1].kind, TOPO_HOP_LEAST);
    t.ops->hdr_init(&t, 0, 63, 1, &h);
    ck_assert_uint_eq(t.ops->next(&t, 0, &h, c), 1);
    ck_assert_uint_eq(c[0].port, 6);
    topo_fattree3_params p3 = {.ports = 8, .oversubscription = 1, .routing = TOPO_FT_ANCA};
    topo t3, r3;
    char err[256];
    ck_assert_msg(topo_fattree3_init(&t3, &p3, err, sizeof err) == 0, "%s", err);
    p3.routing = TOPO_FT_RANDOM_UP;
    ck_assert_msg(topo_fattree3_init(&r3, &p3, err, sizeof err) == 0, "%s", err);
    const topo *ts[2] = {&t, &t3}, *rs[2] = {&ru, &r3};
    for (int i = 0; i < 2; i++) {
        const topo *a = ts[i];
        cdg g = cdg_new(a, a->vcs);
        uint64_t l1[64], l2[64];
        unsigned two = 0;
        for (uint32_t x = 0; x < a->hosts; x++)
            for (uint32_t y = 0; y < a->hosts; y++)
                for (uint64_t s = 0; s < 8; s++) {
                    uint64_t salt = s * 0x9e3779b97f4a7c15u;
                    a->ops->hdr_init(a, x, y, salt, &h);
                    uint32_t sw, port;
                    a->ops->attach(a, x, &sw, &port);
                    two += a->ops->next(a, sw, &h, c) == 2;
                    walk_both(&g, a, sw, h, topo_link_up(a, x) * g.vcs);
                    uint32_t n1 = (uint32_t)topo_route(a, x, y, salt, l1, NULL, 64);
                    uint32_t n2 = (uint32_t)topo_route(rs[i], x, y, salt, l2, NULL, 64);
                    REQUIRE(n1 == n2 && memcmp(l1, l2, n1 * sizeof *l1) == 0);
                }
        ck_assert(cdg_acyclic(&g));
        ck_assert_uint_gt(two, 0);
        free(g.adj);
    }
    topo_free(&t);
    topo_free(&ru);
    topo_free(&t3);
    topo_free(&r3);
}
END_TEST

/* ---------------------------------------------------------------- bounds */

/* Largest channel load per unit of offered load, summed route by route:
 * each of the N (N - 1) ordered pairs sends 1 / (N - 1). Exact for
 * deterministic routings. */
static double max_load(const topo *t)
{
    double *load = calloc(t->links, sizeof *load);
    uint64_t l[64];
    for (uint32_t a = 0; a < t->hosts; a++)
        for (uint32_t b = 0; b < t->hosts; b++) {
            if (a == b)
                continue;
            uint32_t n = (uint32_t)topo_route(t, a, b, 0, l, NULL, 64);
            for (uint32_t i = 0; i < n; i++)
                load[l[i]] += 1.0 / (t->hosts - 1);
        }
    double m = 0;
    for (uint32_t i = 0; i < t->links; i++)
        if (load[i] > m)
            m = load[i];
    free(load);
    return m;
}

START_TEST(test_bounds)
{
    /* torus, even k: E = k/8 per direction, load E N / (N - 1):
     * 8x8: 1 x 64/63, bound 63/64; 16x16: 2 x 256/255, bound 255/512;
     * 8x4: X has E = 1, bound 31/32 */
    topo t = make_torus(8, 8, 0, TOPO_TORUS_DOR);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 63.0 / 64, 1e-12);
    topo_free(&t);
    t = make_torus(16, 16, 0, TOPO_TORUS_ADAPTIVE);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 255.0 / 512, 1e-12);
    topo_free(&t);
    t = make_torus(8, 4, 0, TOPO_TORUS_DOR);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 31.0 / 32, 1e-12);
    topo_free(&t);
    /* valiant: each phase is uniform over all 64 switches (the intermediate
     * is): 2 x E = 2 per + link of the 8x8, bound 1/2; 4x4: 2 x 1/2 = 1,
     * bound 1. romm routes minimally with translation-invariant choices:
     * DOR's E, bound 63/64 on the 8x8 */
    t = make_torus(8, 8, 0, TOPO_TORUS_VALIANT);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 0.5, 1e-12);
    topo_free(&t);
    t = make_torus(4, 4, 0, TOPO_TORUS_VALIANT);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 1.0, 1e-12);
    topo_free(&t);
    t = make_torus(8, 8, 0, TOPO_TORUS_ROMM);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 63.0 / 64, 1e-12);
    topo_free(&t);
    /* odd k = 9: E = (81 - 1)/72 = 10/9, load 10/9 x 27/26 = 15/13: bound
     * 13/15. No ties with odd rings, so DOR is deterministic and the loads
     * summed route by route give the same maximum. 9 x 3 */
    t = make_torus(9, 3, 0, TOPO_TORUS_DOR);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 13.0 / 15, 1e-12);
    ck_assert_double_eq_tol(max_load(&t), 15.0 / 13, 1e-12);
    topo_free(&t);
    /* 5 x 5: E = 24/40 = 0.6, load 0.6 x 25/24 = 0.625 < 1: bound 1 */
    t = make_torus(5, 5, 0, TOPO_TORUS_DOR);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 1.0, 1e-12);
    ck_assert_double_eq_tol(max_load(&t), 1.0, 1e-12); /* the host links */
    topo_free(&t);
    /* twisted 8x4, twist 4: E_X+ = 22/32 (topo_torus.c head), load 22/31:
     * bound 1. Twisted 16x8, twist 8: lattice spanned by (8, 8), (8, -8);
     * the diamond |x| + |y| <= 7 holds the points alone in their class; the
     * ring at distance d has 4d points and sum |x| = 2 d^2 over it, so
     * sum over x > 0 of x = d^2 and the diamond gives 1 + 4 + ... + 49 =
     * 140; on the ring |x| + |y| = 8 the 28 non-axis points pair up, those
     * with x > 0 sum to 2 (7 + ... + 1) = 56, each taken with 1/2: 28; the
     * axis class (8, 0) is reached by 8 X hops, + with 1/2: 4.
     * E_X+ = 172/128, load 172/127: bound 127/172 (Y+: 168/128). The plain
     * 16x8 torus: E_X = 16/8 = 2, load 2 x 128/127: bound 127/256. */
    t = make_torus(8, 4, 4, TOPO_TORUS_DOR);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 1.0, 1e-12);
    topo_free(&t);
    t = make_torus(16, 8, 8, TOPO_TORUS_DOR);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 127.0 / 172, 1e-12);
    topo_free(&t);
    t = make_torus(16, 8, 0, TOPO_TORUS_DOR);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 127.0 / 256, 1e-12);
    topo_free(&t);

    /* fat tree: 1; d-mod-k routes summed: the host links carry 1, the up
     * links of level l (N - k^(l+1)) / (N - 1) < 1 */
    t = make_fattree(4, 3, TOPO_FT_DMODK);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 1.0, 1e-12);
    ck_assert_double_eq_tol(max_load(&t), 1.0, 1e-12);
    topo_free(&t);

    /* leaf-spine L = 4, S = 2, H = 4 (N = 16): ecmp H (N - H) / (S (N - 1))
     * = 48/30: bound 0.625; d-mod-k H (L - 1) ceil(H/S) / (N - 1) = 24/15:
     * 0.625. H = 3 (N = 12): d-mod-k 3 x 3 x 2 / 11 = 18/11: bound 11/18,
     * which the routes summed confirm; ecmp 27/22: bound 22/27. */
    t = make_leafspine(4, 2, 4, TOPO_LS_ECMP);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 0.625, 1e-12);
    topo_free(&t);
    t = make_leafspine(4, 2, 4, TOPO_LS_DMODK);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 0.625, 1e-12);
    ck_assert_double_eq_tol(max_load(&t), 1.6, 1e-12);
    topo_free(&t);
    t = make_leafspine(4, 2, 3, TOPO_LS_DMODK);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 11.0 / 18, 1e-12);
    ck_assert_double_eq_tol(max_load(&t), 18.0 / 11, 1e-12);
    topo_free(&t);
    t = make_leafspine(4, 2, 3, TOPO_LS_ECMP);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 22.0 / 27, 1e-12);
    topo_free(&t);

    /* dragonfly g = 5, a = 4, p = 2, h = 1 (N = 40, a p = 8, n = 1):
     * minimal global 8 x 8 / 39 = 64/39 (local links: (4 + 16 + 16)/39):
     * bound 39/64, confirmed by summing the routes; Valiant twice the
     * global load, [8 x 24 + 8 (40 - 16)] / (39 x 3) = 128/39: 39/128. */
    t = make_dragonfly(5, 4, 2, 1, TOPO_DF_MINIMAL);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 39.0 / 64, 1e-12);
    ck_assert_double_eq_tol(max_load(&t), 64.0 / 39, 1e-12);
    topo_free(&t);
    t = make_dragonfly(5, 4, 2, 1, TOPO_DF_VALIANT);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 39.0 / 128, 1e-12);
    topo_free(&t);
    /* balanced g = 9, a = 4, p = 2, h = 2 (N = 72): global 64/71, local
     * (4 + 32 + 32)/71 = 68/71 = (N - p^2)/(N - 1): bound 1 */
    t = make_dragonfly(9, 4, 2, 2, TOPO_DF_UGAL);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 1.0, 1e-12);
    topo_free(&t);
    t = make_dragonfly(9, 4, 2, 2, TOPO_DF_MINIMAL);
    ck_assert_double_eq_tol(max_load(&t), 1.0, 1e-12);
    topo_free(&t);
    /* g = 3, a = 2, p = 2, h = 2: n = 2 links per pair, slice = host mod 2.
     * Router 0 of a group holds both groups' slice-0 slots, router 1 the
     * slice-1 slots. Local link 0 -> 1: intra 2 x 2 = 4, the slice-1 host of
     * router 0 to 2 groups x 4 hosts = 8, arrivals on router 0's two slots
     * (2 slice-0 sources each) for router 1's 2 hosts = 8: 20/11 (global:
     * 2 x 4 / 11): bound 11/20, and the routes summed agree. */
    t = make_dragonfly(3, 2, 2, 2, TOPO_DF_MINIMAL);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 11.0 / 20, 1e-12);
    ck_assert_double_eq_tol(max_load(&t), 20.0 / 11, 1e-12);
    topo_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- checks, scale */

START_TEST(test_checks)
{
    char err[256];
    topo_torus_params tp = {.ndims = 2, .dims = {8, 1}};
    ck_assert_int_eq(topo_torus_check(&tp, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "at least 2"));
    tp = (topo_torus_params){.ndims = 1, .dims = {8}, .twist = 2};
    ck_assert_int_eq(topo_torus_check(&tp, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "2 dimensions"));
    tp = (topo_torus_params){.ndims = 2, .dims = {8, 4}, .twist = 8};
    ck_assert_int_eq(topo_torus_check(&tp, err, sizeof err), -1);
    tp = (topo_torus_params){.ndims = 2, .dims = {16, 4}, .twist = 4};
    ck_assert_int_eq(topo_torus_check(&tp, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "twice"));
    tp = (topo_torus_params){.ndims = 2, .dims = {8192, 16384}};
    ck_assert_int_eq(topo_torus_check(&tp, err, sizeof err), -1);
    topo_fattree_params fp = {.arity = 1, .levels = 3};
    ck_assert_int_eq(topo_fattree_check(&fp, err, sizeof err), -1);
    fp = (topo_fattree_params){.arity = 2, .levels = 27};
    ck_assert_int_eq(topo_fattree_check(&fp, err, sizeof err), -1);
    topo_leafspine_params lp = {.leaves = 4, .spines = 0, .hosts_per_leaf = 3};
    ck_assert_int_eq(topo_leafspine_check(&lp, err, sizeof err), -1);
    topo_dragonfly_params dp = {.groups = 4, .routers_per_group = 4, .hosts_per_router = 2,
                                .global_links = 1};
    ck_assert_int_eq(topo_dragonfly_check(&dp, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "divide evenly among the 3 other groups"));
    dp.groups = 5;
    ck_assert_int_eq(topo_dragonfly_check(&dp, err, sizeof err), 0);
    topo t;
    dp.groups = 1;
    ck_assert_int_eq(topo_dragonfly_init(&t, &dp, err, sizeof err), -1);
    ck_assert_ptr_null(t.priv);
    /* names index the routing enums */
    ck_assert_str_eq(topo_torus_routing_names[TOPO_TORUS_ADAPTIVE], "adaptive");
    ck_assert_str_eq(topo_fattree_routing_names[TOPO_FT_DMODK], "d-mod-k");
    ck_assert_str_eq(topo_leafspine_routing_names[TOPO_LS_ECMP], "ecmp");
    ck_assert_str_eq(topo_dragonfly_routing_names[TOPO_DF_UGAL], "ugal");
    /* each fabric's network.routing choices (topo.c, before main):
     * "default" (its first), then its own names; choice c is routing c - 1 */
    const topo_routings *R[] = {&topo_torus_routings, &topo_fattree_routings, &topo_leafspine_routings,
                                &topo_dragonfly_routings, &topo_graph_routings};
    const char *const *tables[] = {topo_torus_routing_names, topo_fattree_routing_names,
                                   topo_leafspine_routing_names, topo_dragonfly_routing_names,
                                   topo_graph_routing_names};
    const int count[] = {4, 3, 2, 3, 4};
    for (size_t ti = 0; ti < 5; ti++) {
        ck_assert_ptr_eq(R[ti]->names, tables[ti]);
        ck_assert_str_eq(R[ti]->choices[0], "default");
        ck_assert_int_eq(topo_routing_of(tables[ti], 0), 0);
        int r = 0;
        for (; tables[ti][r]; r++) {
            ck_assert_ptr_eq(R[ti]->choices[r + 1], tables[ti][r]);
            ck_assert_int_eq(topo_routing_of(tables[ti], r + 1), r);
            ck_assert_ptr_nonnull(R[ti]->help[r]);
            /* the row's help names it with its help: "| dor (dimension order, ...)" */
            char want[256];
            snprintf(want, sizeof want, "| %s (%s", tables[ti][r], R[ti]->help[r]);
            ck_assert_msg(strstr(R[ti]->row_help, want), "%s: '%s' lacks '%s'", R[ti]->topology, R[ti]->row_help,
                          want);
        }
        ck_assert_int_eq(r, count[ti]);
        ck_assert_ptr_null(R[ti]->choices[r + 1]);
        ck_assert_int_eq(topo_routing_of(tables[ti], r + 1), -1);
    }
    /* ugal is the dragonfly's alone: not among the torus's choices */
    for (int c = 0; topo_torus_routings.choices[c]; c++)
        ck_assert_str_ne(topo_torus_routings.choices[c], "ugal");
    ck_assert_str_eq(topo_dragonfly_routings.choices[1 + TOPO_DF_UGAL], "ugal");
    /* topo_pick: in range, a pure function of its arguments */
    for (uint64_t s = 0; s < 1000; s++) {
        ck_assert_uint_lt(topo_pick(s, 3, 7), 7);
        ck_assert_uint_eq(topo_pick(s, 3, 7), topo_pick(s, 3, 7));
        ck_assert_uint_eq(topo_pick(s, 0, 1), 0);
    }
}
END_TEST

/* 65,536 hosts and more, with nothing per pair: the parameters are all a
 * topology keeps. A route across each is checked by its ends and length. */
START_TEST(test_scale)
{
    topo ts[4];
    ts[0] = make_torus(256, 256, 0, TOPO_TORUS_DOR);
    ts[1] = make_fattree(16, 4, TOPO_FT_DMODK);
    ts[2] = make_leafspine(256, 16, 256, TOPO_LS_ECMP);
    ts[3] = make_dragonfly(257, 16, 16, 16, TOPO_DF_UGAL);
    /* links: torus 128 + 128 hops + 2 host links; fat tree 0 -> 32768
     * differ in the top digit, L = 3, 2L + 1 = 7 switches, 8 links;
     * leaf-spine 3 switches, 4 links; dragonfly minimal (the static route
     * of UGAL) at most 5 */
    static const uint32_t want[] = {258, 8, 4, 0};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_ge(ts[i].hosts, 65536);
        uint64_t *l = malloc(ts[i].max_route_links * sizeof *l);
        uint32_t far = ts[i].hosts / 2 + (i == 0 ? 128 : 0); /* torus: (128, 128) */
        uint32_t n = (uint32_t)topo_route(&ts[i], 0, far, 1, l, NULL, ts[i].max_route_links);
        if (want[i])
            ck_assert_uint_eq(n, want[i]);
        else
            ck_assert_uint_le(n, 5);
        ck_assert_uint_eq(l[n - 1], topo_link_down(&ts[i], far));
        double b = ts[i].ops->uniform_bound(&ts[i]);
        ck_assert(b > 0 && b <= 1);
        free(l);
        topo_free(&ts[i]);
    }
}
END_TEST

/* The routing tables' parameters (topo.h, topo_<name>_routing_params):
 * every path a routing declares is a row of its fabric (the fabric that
 * builds the topology), and network.routing's help names it beside that
 * routing ("reads network.dateline"), as `tasknet params` and --help show;
 * the torus's dateline row takes its choices and help from topo_torus.c. */
START_TEST(test_routing_params_rows)
{
    static const struct {
        const char *fabric;
        const char *const *names, *const *params;
    } tab[] = {
        {"torus", topo_torus_routing_names, topo_torus_routing_params},
        {"fat-tree", topo_fattree_routing_names, topo_fattree_routing_params},
        {"leaf-spine", topo_leafspine_routing_names, topo_leafspine_routing_params},
        {"dragonfly", topo_dragonfly_routing_names, topo_dragonfly_routing_params},
        {"graph", topo_graph_routing_names, topo_graph_routing_params},
    };
    unsigned named = 0;
    for (size_t t = 0; t < sizeof tab / sizeof tab[0]; t++) {
        const net_ops *ops = net_find(tab[t].fabric);
        ck_assert_ptr_nonnull(ops);
        for (size_t i = 0; tab[t].names[i]; i++) {
            const char *par = tab[t].params[i];
            ck_assert_msg(par != NULL, "%s %s: no parameters entry", tab[t].fabric, tab[t].names[i]);
            char one[128];
            for (const char *s = par; *s;) {
                size_t n = strcspn(s, " ");
                ck_assert_uint_lt(n, sizeof one);
                memcpy(one, s, n);
                one[n] = '\0';
                const param_row *row = NULL;
                for (size_t k = 0; k < ops->nparams; k++)
                    if (strcmp(ops->params[k].path, one) == 0)
                        row = &ops->params[k];
                ck_assert_msg(row != NULL, "%s routing %s reads %s, not a row of the fabric", tab[t].fabric,
                              tab[t].names[i], one);
                named++;
                s += n;
                s += strspn(s, " ");
            }
        }
    }
    ck_assert_uint_eq(named, 3); /* the torus's dor, valiant and romm read network.dateline */
    ck_assert_ptr_nonnull(
        strstr(topo_torus_routings.row_help, "dor (dimension order, 2 dateline classes; reads network.dateline)"));
    ck_assert_ptr_nonnull(
        strstr(topo_torus_routings.row_help, "adaptive (minimal adaptive over a dor escape, Duato: 3 classes) |"));
    /* each fabric's network.routing row is its topology's own: its choices and help */
    const topo_routings *R[] = {&topo_torus_routings, &topo_fattree_routings, &topo_leafspine_routings,
                                &topo_dragonfly_routings, &topo_graph_routings};
    for (size_t t = 0; t < sizeof tab / sizeof tab[0]; t++) {
        const net_ops *ops = net_find(tab[t].fabric);
        int rows = 0;
        for (size_t k = 0; k < ops->nparams; k++)
            if (strcmp(ops->params[k].path, "network.routing") == 0) {
                ck_assert_ptr_eq(ops->params[k].choices, R[t]->choices);
                ck_assert_ptr_eq(ops->params[k].help, R[t]->row_help);
                rows++;
            }
        ck_assert_int_eq(rows, 1);
        ck_assert_ptr_eq(R[t]->names, tab[t].names);
    }
    const net_ops *tor = net_find("torus");
    for (size_t k = 0; k < tor->nparams; k++)
        if (strcmp(tor->params[k].path, "network.dateline") == 0) {
            ck_assert_ptr_eq(tor->params[k].help, topo_torus_dateline_help);
            ck_assert_ptr_eq(tor->params[k].choices, topo_torus_dateline_names);
        }
}
END_TEST

static Suite *topo_suite(void)
{
    Suite *s = suite_create("topo");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fast_division);
    tcase_add_test(tc, test_routing_params_rows);
    tcase_add_test(tc, test_torus_routes);
    tcase_add_test(tc, test_twisted_routes);
    tcase_add_test(tc, test_torus_adaptive_candidates);
    tcase_add_test(tc, test_fattree_routes);
    tcase_add_test(tc, test_leafspine_routes);
    tcase_add_test(tc, test_dragonfly_routes);
    tcase_add_test(tc, test_invariants_torus);
    tcase_add_test(tc, test_invariants_trees);
    tcase_add_test(tc, test_invariants_dragonfly);
    tcase_add_test(tc, test_deadlock_oblivious);
    tcase_add_test(tc, test_dateline_ring);
    tcase_add_test(tc, test_torus_route_words);
    tcase_add_test(tc, test_deadlock_ugal);
    tcase_add_test(tc, test_deadlock_adaptive);
    tcase_add_test(tc, test_deadlock_records);
    tcase_add_test(tc, test_torus_valiant_romm);
    tcase_add_test(tc, test_fattree_anca);
    tcase_add_test(tc, test_bounds);
    tcase_add_test(tc, test_checks);
    tcase_add_test(tc, test_scale);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(topo_suite)
