/* The switched fabrics (networks/swnet.c over networks/topo*.c: torus,
 * fat-tree, leaf-spine, dragonfly): zero-load times by hand for every
 * topology (multi-hop pairs), the packetised formula with and without
 * credit stalls, contention and back-pressure cases event by event, service
 * classes, metrics by hand, events per packet and hop, saturation runs that
 * must deliver every message (credits, deadlock freedom), and accepted
 * throughput against offered load and the analytic bound.
 *
 * Parameters throughout unless a test says otherwise: B = 40 Gb/s, link 20
 * ns, switch 200 ns (the harness's star), so a 1000 B packet takes ser =
 * 8000 b / 40 Gb/s = 200 ns and one packet over h switches
 *   zl(h) = 200 + (h + 1) 20 + h 200 ns = 220 + 220 h ns. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "metrics.h"
#include "network.h"
#include "phy_params.h"
#include "swnet.h"
#include "topo.h"

#define B_BPS 40e9

/* Check records a checkpoint per ck_assert; loops use this instead. */
#define REQUIRE_MSG(cond, ...)                                                                                     \
    do {                                                                                                           \
        if (!(cond))                                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                                             \
    } while (0)

static int64_t zl(uint32_t h) { return (220 + 220 * (int64_t)h) * NS; }

/* A lone message of `bytes` from a to b on fabric `name` (settings sets,
 * N nodes): its latency, checked against the fabric's zero_load_ps. */
static int64_t lone(const char *name, uint32_t N, const char *const *sets, uint32_t a, uint32_t b, uint64_t bytes)
{
    net_params core = th_star(N, B_BPS);
    th_net *h = th_net_new(name, &core, sets, NULL, 1, 4);
    net_msg *m = th_at_low(h, 5 * NS, a, b, bytes);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    int64_t t = (int64_t)m->b - 5 * NS;
    int64_t want = h->n->ops->zero_load_ps(h->n->state, a, b, bytes);
    ck_assert_msg(t == want, "%s %u -> %u, %llu B: %lld ps alone, zero_load_ps says %lld", name, a, b,
                  (unsigned long long)bytes, (long long)t, (long long)want);
    th_net_free(h);
    return t;
}

/* The number of switches of the static route a -> b. */
static uint32_t route_h(const char *name, uint32_t N, const char *const *sets, uint32_t a, uint32_t b)
{
    net_params core = th_star(N, B_BPS);
    th_net *h = th_net_new(name, &core, sets, NULL, 1, 1);
    uint64_t l[64];
    size_t n = h->n->ops->route(h->n->state, a, b, l, 64);
    th_net_free(h);
    return (uint32_t)n - 1;
}

/* ------------------------------------------------------------- zero load */

/* Torus 8x4 (the default): host v = x + 8 y. 0 -> 19 = (3, 2): 3 X hops and
 * 2 Y hops (the tie 2 = 4/2 either way), h = 5 + 1 = 6 switches: zl(6) =
 * 1540 ns. 0 -> 20 = (4, 2): 4 + 2 hops, h = 7: 1760 ns; on the twisted
 * torus (twist 4) the wrap of Y crossed going - from (0, 0) lands on (4, 3),
 * one hop more reaches (4, 2): h = 3, 880 ns. 0 -> 1: h = 2, 660 ns. */
START_TEST(test_zero_load_torus)
{
    ck_assert_int_eq(lone("torus", 32, NULL, 0, 19, 1000), zl(6));
    ck_assert_int_eq(zl(6), 1540 * NS);
    ck_assert_int_eq(lone("torus", 32, NULL, 0, 20, 1000), 1760 * NS);
    const char *tw[] = {"network.twist=4", NULL};
    ck_assert_int_eq(lone("torus", 32, tw, 0, 20, 1000), 880 * NS);
    ck_assert_uint_eq(route_h("torus", 32, tw, 0, 20), 3);
    ck_assert_int_eq(lone("torus", 32, NULL, 0, 1, 1000), 660 * NS);
    /* adaptive routing takes the first (minimal) candidate at zero load */
    const char *ad[] = {"network.routing=adaptive", NULL};
    ck_assert_int_eq(lone("torus", 32, ad, 0, 19, 1000), 1540 * NS);
    /* a 3-D torus 4x4x4: 0 -> 42 = (2, 2, 2): 6 hops, h = 7 */
    const char *d3[] = {"network.dims=4 4 4", NULL};
    ck_assert_int_eq(lone("torus", 64, d3, 0, 42, 1000), zl(7));
}
END_TEST

/* 4-ary 3-tree (the default, 64 hosts): 0 -> 1 share a leaf (h = 1, 440
 * ns); 0 -> 5 meet at level 1 (up, up... no: leaf, level 1, leaf: h = 3,
 * 880 ns); 0 -> 63 meet at the top (h = 5, 1320 ns); random-up climbs as
 * high, through other switches. */
START_TEST(test_zero_load_fattree)
{
    ck_assert_int_eq(lone("fat-tree", 64, NULL, 0, 1, 1000), 440 * NS);
    ck_assert_int_eq(lone("fat-tree", 64, NULL, 0, 5, 1000), 880 * NS);
    ck_assert_int_eq(lone("fat-tree", 64, NULL, 0, 63, 1000), 1320 * NS);
    const char *ru[] = {"network.routing=random-up", NULL};
    ck_assert_int_eq(lone("fat-tree", 64, ru, 63, 0, 1000), 1320 * NS);
    const char *k2[] = {"network.arity=2", "network.levels=4", NULL};
    ck_assert_int_eq(lone("fat-tree", 16, k2, 0, 15, 1000), zl(7));
}
END_TEST

/* Leaf-spine 4 leaves x 4 hosts, 4 spines (the defaults): 0 -> 3 on one
 * leaf, h = 1: 440 ns; 0 -> 15 leaf, spine, leaf: h = 3, 880 ns. */
START_TEST(test_zero_load_leafspine)
{
    ck_assert_int_eq(lone("leaf-spine", 16, NULL, 0, 3, 1000), 440 * NS);
    ck_assert_int_eq(lone("leaf-spine", 16, NULL, 0, 15, 1000), 880 * NS);
    const char *dk[] = {"network.routing=d-mod-k", "network.spines=2", NULL};
    ck_assert_int_eq(lone("leaf-spine", 16, dk, 15, 0, 1000), 880 * NS);
}
END_TEST

/* Dragonfly of 9 groups of 4 routers, 1 host and 2 global links each (the
 * defaults: n = 4 x 2 / 8 = 1 link between two groups, slice 0). Host x
 * sits on router x. 0 -> 35 (group 8, router 3): group 0's slot toward
 * group 8 is 0 x 8 + 7 = 7, on router 7 / 2 = 3: a local hop 0 -> 3, the
 * global link into group 8's slot 0 x 8 + 0 = 0 on its router 0, a local
 * hop to router 3: 4 switches, zl(4) = 1100 ns. 0 -> 3: one local hop, h =
 * 2: 660 ns. 0 -> 4 (group 1, router 0): slot 0 is on router 0 and lands on
 * group 1's slot 0, router 0: h = 2. */
START_TEST(test_zero_load_dragonfly)
{
    ck_assert_int_eq(lone("dragonfly", 36, NULL, 0, 35, 1000), 1100 * NS);
    ck_assert_uint_eq(route_h("dragonfly", 36, NULL, 0, 35), 4);
    ck_assert_int_eq(lone("dragonfly", 36, NULL, 0, 3, 1000), 660 * NS);
    ck_assert_int_eq(lone("dragonfly", 36, NULL, 0, 4, 1000), 660 * NS);
    const char *ug[] = {"network.routing=ugal", NULL};
    ck_assert_int_eq(lone("dragonfly", 36, ug, 0, 35, 1000), 1100 * NS); /* alone, minimal wins */
    /* Valiant: through a random third group, so zero_load_ps is the
     * minimal route's time, a lower bound; each message takes zl(h) of its
     * own route: 0 -> 35 through group G crosses 4 to 6 switches (a local
     * hop before each global one and after the last, unless the slot is on
     * the router already) */
    net_params core = th_star(36, B_BPS);
    const char *va[] = {"network.routing=valiant", NULL};
    th_net *h = th_net_new("dragonfly", &core, va, NULL, 1, 64);
    net_msg *m[32];
    for (int i = 0; i < 32; i++)
        m[i] = th_at_low(h, (int64_t)i * 100000 * NS, 0, 35, 1000); /* 100 us apart: each alone */
    th_net_go(h);
    int longer = 0;
    for (int i = 0; i < 32; i++) {
        int64_t t = (int64_t)m[i]->b - (int64_t)i * 100000 * NS;
        ck_assert_int_eq(m[i]->a, 1);
        ck_assert_msg(t == zl(4) || t == zl(5) || t == zl(6), "Valiant message %d took %lld ps", i, (long long)t);
        longer += t > zl(4);
    }
    ck_assert_int_gt(longer, 0);
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 35, 1000), zl(4));
    th_net_free(h);
}
END_TEST

/* Packets. 10000 B on the torus 0 -> 19 (h = 6) with mtu 4096 B: packets
 * of 4096, 4096 and 1808 B; P = 32768 b / 40 Gb/s = 819.2 ns, the last
 * 361.6 ns. The 16384 B buffers hold n = 4 packets; a credit comes back R =
 * 2 link + switch = 240 ns after its packet left, far less than n P: no
 * stall. (K-1) P + ser(last) + 7 link + 6 switch = 1638.4 + 361.6 + 140 +
 * 1200 = 3340 ns. */
START_TEST(test_zero_load_packets)
{
    ck_assert_int_eq(lone("torus", 32, NULL, 0, 19, 10000), 3340 * NS);
    /* 4096 B exactly: one packet, 819.2 + 140 + 1200 */
    ck_assert_int_eq(lone("torus", 32, NULL, 0, 19, 4096), 2159200);
    /* 0 B: one empty packet, 140 + 1200 */
    ck_assert_int_eq(lone("torus", 32, NULL, 0, 19, 0), 1340 * NS);
}
END_TEST

/* Credit stalls alone. One leaf of 4 hosts (leaves = spines = 1), mtu =
 * vc-buffer = 1000 B, 3000 B from 0 to 1 (h = 1): three packets of P = 200
 * ns, R = 240 ns > P, n = 1.
 *   p0 leaves host 0 at 0, its head crosses the leaf by 220 and leaves it
 *   at once: its credit is back at host 0 at 240; p1 leaves at 240 (not 200),
 *   p2 at 480; p2's last bit: 480 + 20 + 200 + 200 + 20 = 920 ns.
 * Formula: A(1) = max(P, R) = 240, A(2) = A(1) + R = 480 (n' = floor((1000 -
 * 1000) / 1000) = 0: the last packet waits for p1's credit). With buffers
 * of 2000 B (n = 2, n' = 1) p2 needs p0's credit, back at 240 < 400: no
 * stall, 400 + 440 = 840 ns, as with unbounded buffers. */
START_TEST(test_zero_load_credit_stall)
{
    const char *one[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.vc-buffer=1kB", NULL};
    ck_assert_int_eq(lone("leaf-spine", 4, one, 0, 1, 3000), 920 * NS);
    const char *two[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.vc-buffer=2kB", NULL};
    ck_assert_int_eq(lone("leaf-spine", 4, two, 0, 1, 3000), 840 * NS);
    const char *inf[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.flow-control=infinite",
                         NULL};
    ck_assert_int_eq(lone("leaf-spine", 4, inf, 0, 1, 3000), 840 * NS);
    /* a last packet of 500 B fits beside one full packet in 1500 B: 2500 B
     * with n = 1, n' = floor((1500 - 500) / 1000) = 1: A(1) = max(200, 240)
     * = 240, A(2) = max(240 + 200, A(0) + 240) = 440; last bit 440 + 220 +
     * 20 + 100 = 780 ns */
    const char *frac[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.vc-buffer=1.5kB", NULL};
    ck_assert_int_eq(lone("leaf-spine", 4, frac, 0, 1, 2500), 780 * NS);
    /* over several switches the same stall repeats at every hop: the
     * torus 0 -> 19 (h = 6) with those buffers: 480 + 6 x 220 + 20 + 200 */
    const char *tor[] = {"network.mtu=1kB", "network.vc-buffer=1kB", NULL};
    ck_assert_int_eq(lone("torus", 32, tor, 0, 19, 3000), (480 + 1320 + 220) * NS);
}
END_TEST

/* Events: a lone message of K packets over h switches costs one event per
 * packet and switch, K - 1 wake-ups of its source (each next packet), one
 * delivery, plus the test's hand-over: 10000 B on the torus 0 -> 19: 3 x 6
 * + 2 + 1 + 1 = 22. */
START_TEST(test_events_per_hop)
{
    net_params core = th_star(32, B_BPS);
    th_net *h = th_net_new("torus", &core, NULL, NULL, 1, 2);
    th_at_low(h, 0, 0, 19, 10000);
    ck_assert_uint_eq(th_net_go(h), 22);
    swnet_stats s;
    swnet_get_stats(h->n->state, &s);
    ck_assert_uint_eq(s.packets, 3);
    ck_assert_uint_eq(s.packet_hops, 18);
    ck_assert_uint_eq(s.live_packets, 0);
    th_net_free(h);
}
END_TEST

/* ------------------------------------------------------------- contention */

/* One leaf of 4 hosts, mtu = 1000 B. At 0: a = 3000 B 0 -> 2, b = 3000 B
 * 1 -> 2, c = 1000 B 0 -> 3 (behind a at host 0).
 * Unbounded buffers: host 0 sends a0 a1 a2 c over [0, 800], host 1 b0 b1
 * b2 over [0, 600]; the port toward 2 gets a_i and b_i at 220 + 200 i and
 * serves them in arrival order, 200 ns each from 220: a0 b0 a1 b1 a2 b2,
 * so a's last bit at 1220 + 20 = 1240, b's at 1440; c reaches the leaf at
 * 820 and host 3 at 1040.
 * Credits, vc-buffer = 1000 B: a packet leaves a host only when the one
 * before it has left the leaf (credit back a link later). a0 [220, 420]
 * toward 2, credit at host 0 at 240: a1 leaves then, at the leaf at 460; b0
 * [420, 620], credit at 440: b1 leaves, at the leaf at 660; a1 [620, 820]:
 * a2 leaves host 0 at 640, at the leaf at 860; b1 [820, 1020]: b2 leaves at
 * 840; a2 [1020, 1220]: a at 1240; its credit lets c leave host 0 at 1040,
 * at host 3 at 1040 + 440 = 1480 (back-pressure: 440 ns later than
 * unbounded); b2 [1220, 1420]: b at 1440. */
START_TEST(test_contention_backpressure)
{
    net_params core = th_star(4, B_BPS);
    const char *inf[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.flow-control=infinite",
                         NULL};
    th_net *h = th_net_new("leaf-spine", &core, inf, NULL, 1, 8);
    net_msg *a = th_at_low(h, 0, 0, 2, 3000), *b = th_at_low(h, 0, 1, 2, 3000), *c = th_at_low(h, 0, 0, 3, 1000);
    th_net_go(h);
    ck_delivered_at(a, 1240 * NS);
    ck_delivered_at(b, 1440 * NS);
    ck_delivered_at(c, 1040 * NS);
    th_net_free(h);

    const char *cr[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.vc-buffer=1kB", NULL};
    h = th_net_new("leaf-spine", &core, cr, NULL, 1, 8);
    a = th_at_low(h, 0, 0, 2, 3000);
    b = th_at_low(h, 0, 1, 2, 3000);
    c = th_at_low(h, 0, 0, 3, 1000);
    th_net_go(h);
    ck_delivered_at(a, 1240 * NS);
    ck_delivered_at(b, 1440 * NS);
    ck_delivered_at(c, 1480 * NS);
    swnet_stats s;
    swnet_get_stats(h->n->state, &s);
    ck_assert_uint_gt(s.credit_stalls, 0);
    th_net_free(h);
}
END_TEST

/* Two packets meet at an output: 0 -> 2 and 1 -> 2 at 0, 1000 B, one leaf.
 * Both join the FIFO toward 2 at 220, 0's first (handed over first): 0's
 * [220, 420] arrives at 440, 1's [420, 620] at 640.
 * On the torus 8x4 (DOR, X first): 0 -> 2 crosses switches 0, 1, 2 and 8 ->
 * 2 switches 8, 9, 10, 2: they share only host 2's downlink, which 0's
 * leaves at 860, before 8's joins it at 4 x 220 = 880: both as alone,
 * zl(3) and zl(4). 0 -> 2 and 1 -> 3 (handed over at 230 ns) share switch
 * 1's X+ output: 0's joins it at 440 and holds it [440, 640]; 1's joins at
 * 230 + 220 = 450 and waits until 640, then switch 2's X+ at 860 [860,
 * 1060], host 3's downlink at 1080 [1080, 1280]: its last bit at 1300 ns,
 * 1070 after its hand-over instead of zl(3) = 880 (the 190 ns it waited). */
START_TEST(test_contention_meet)
{
    net_params core = th_star(4, B_BPS);
    const char *one[] = {"network.leaves=1", "network.spines=1", NULL};
    th_net *h = th_net_new("leaf-spine", &core, one, NULL, 1, 4);
    net_msg *a = th_at_low(h, 0, 0, 2, 1000), *b = th_at_low(h, 0, 1, 2, 1000);
    th_net_go(h);
    ck_delivered_at(a, 440 * NS);
    ck_delivered_at(b, 640 * NS);
    th_net_free(h);

    net_params c32 = th_star(32, B_BPS);
    h = th_net_new("torus", &c32, NULL, NULL, 1, 4);
    a = th_at_low(h, 0, 0, 2, 1000);
    b = th_at_low(h, 0, 8, 2, 1000);
    th_net_go(h);
    ck_delivered_at(a, zl(3));
    ck_delivered_at(b, zl(4));
    th_net_free(h);

    h = th_net_new("torus", &c32, NULL, NULL, 1, 4);
    a = th_at_low(h, 0, 0, 2, 1000);
    b = th_at_low(h, 230 * NS, 1, 3, 1000);
    th_net_go(h);
    ck_delivered_at(a, zl(3));
    ck_delivered_at(b, 1300 * NS);
    th_net_free(h);
}
END_TEST

/* Fat tree anca (BookSim2's fattree_anca): the less occupied of two up
 * ports. 2-ary 2-tree (hosts 0, 1 on leaf 0; 2, 3 on leaf 1; leaf up ports
 * 2 + j to level-1 switch 2 + j), flow-control infinite, 1 kB packets, the
 * fabric's salt key chosen so that A (0 -> 2, 10 kB at 0) draws up port j
 * twice (one candidate) and B (1 -> 3, 1 kB at 500 ns) draws j first and
 * the other port second. A's packet k starts on the leaf's up link j at
 * 220 + 200 k ns (swnet.c's pipeline: link 20 + switch 200 after it
 * left its host at 200 k), so the link is busy [220, 2220].
 *   anca: B is at the leaf at 500 + 220 = 720 ns, when up link j carries
 *     A's packet 2 (bytes on the wire) and the other none: it takes the
 *     other, shares no link with A and arrives as alone, 500 + zl(3) =
 *     1380 ns.
 *   random-up (same salts): B takes j, waits behind A's packet 2 until 820
 *     ([820, 1020] up), then the down link of switch 2 + j to leaf 1 free
 *     at 1040 ([1040, 1240]; A's packet 2 held it [840, 1040]) and host 3's
 *     downlink [1260, 1460]: its last bit at 1480 ns. */
static net_msg *anca_b(const char *routing, int router_iq, int64_t *alone_ps)
{
    /* input-queued: check_iqrouter's fabric (1-byte flits at 8 Gb/s: T = 1 ns, links 1 ns, no switch
     * latency), A 2000 B in packets of 32 B, B 32 B at 100 ns */
    net_params core = router_iq ? th_star(4, 8e9) : th_star(4, B_BPS);
    if (router_iq) {
        core.link_latency_ps = 1 * NS;
        core.switch_latency_ps = 0;
    }
    const char *oq[] = {"network.arity=2", "network.levels=2", routing, "network.mtu=1kB",
                        "network.flow-control=infinite", NULL};
    const char *iq[] = {"network.arity=2", "network.levels=2", routing, "network.mtu=32B",
                        "network.router=input-queued", "network.flit-size=1B", "network.vc-buffer=64B", NULL};
    static th_net *h;
    if (h)
        th_net_free(h);
    h = th_net_new("fat-tree", &core, router_iq ? iq : oq, NULL, 1, 4);
    net_msg *a = th_at_low(h, 0, 0, 2, router_iq ? 2000 : 10000);
    net_msg *b = th_at_low(h, (router_iq ? 100 : 500) * NS, 1, 3, router_iq ? 32 : 1000);
    swnet *st = h->n->state;
    a->id = h->n->next_id; /* the ids the fabric will give them as they are sent */
    b->id = a->id + 1;
    uint64_t key = 0;
    for (;; key++) {
        st->salt_key = key;
        uint64_t sa = swnet_salt(st, a), sb = swnet_salt(st, b);
        uint32_t j = topo_pick(sa, 0, 2);
        if (topo_pick(sa, 64, 2) == j && topo_pick(sb, 0, 2) == j && topo_pick(sb, 64, 2) != j)
            break;
    }
    th_net_go(h);
    ck_assert_uint_eq(a->a, 1);
    *alone_ps = h->n->ops->zero_load_ps(h->n->state, 1, 3, b->size_bytes);
    return b;
}

START_TEST(test_anca_least_occupied)
{
    int64_t alone;
    net_msg *b = anca_b("network.routing=anca", 0, &alone);
    ck_assert_int_eq(alone, zl(3));
    ck_delivered_at(b, 1380 * NS);
    b = anca_b("network.routing=random-up", 0, &alone);
    ck_delivered_at(b, 1480 * NS);
    /* input-queued: B's head is routed at the leaf while A's flits stream
     * through up port j, so j's next buffer holds some of them (credits
     * not back yet) and the other none: B takes the other, meets no input
     * or output A uses and arrives at its zero-load time (iqrouter.c's
     * formula, check_iqrouter checks it against lone runs); random-up sends
     * B behind A through j */
    b = anca_b("network.routing=anca", 1, &alone);
    ck_delivered_at(b, 100 * NS + alone);
    b = anca_b("network.routing=random-up", 1, &alone);
    ck_assert_uint_eq(b->a, 1);
    ck_assert_int_gt((int64_t)b->b, 100 * NS + alone);
}
END_TEST

/* Service classes (network.priority = control-first), one leaf, 1000 B:
 * hosts 0 and 1 send low-priority messages to 3 and host 2 a high-priority
 * one, all at 0. All three reach the FIFOs toward 3 at 220; 0's starts at
 * once [220, 420]; at 420 the high class goes first [420, 620] -> 640 ns,
 * then 1's [620, 820] -> 840. fifo: 0, 1, 2 at 440, 640, 840.
 * At a source: host 0 sends 3000 B (3 packets of 1000 B) low to 1 and then
 * 40 B high to 2 (8 ns): the high message goes after the packet on the
 * wire, [200, 208]; its head crosses the leaf by 420, its last bit reaches
 * host 2 at 420 + 8 + 20 = 448 ns; the low packets leave at 0, 208 and 408:
 * the last bit at 408 + 20 + 200 + 200 + 20 = 848 ns. fifo: high after the
 * three, leaving at 600: 600 + 248 = 848 ns; low at 400 + 440 = 840. */
START_TEST(test_priority_classes)
{
    net_params core = th_star(4, B_BPS);
    const char *cf[] = {"network.leaves=1", "network.spines=1", "network.priority=control-first",
                        "network.mtu=1kB", NULL};
    const char *ff[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", NULL};
    for (int mode = 0; mode < 2; mode++) {
        th_net *h = th_net_new("leaf-spine", &core, mode ? cf : ff, NULL, 1, 4);
        net_msg *m0 = th_at(h, 0, 0, 3, 1000, NET_PRIO_LOW, NET_DATA);
        net_msg *m1 = th_at(h, 0, 1, 3, 1000, NET_PRIO_LOW, NET_DATA);
        net_msg *m2 = th_at(h, 0, 2, 3, 1000, NET_PRIO_HIGH, NET_CONTROL);
        th_net_go(h);
        ck_delivered_at(m0, 440 * NS);
        ck_delivered_at(m1, (mode ? 840 : 640) * NS);
        ck_delivered_at(m2, (mode ? 640 : 840) * NS);
        th_net_free(h);

        h = th_net_new("leaf-spine", &core, mode ? cf : ff, NULL, 1, 4);
        net_msg *lo = th_at(h, 0, 0, 1, 3000, NET_PRIO_LOW, NET_DATA);
        net_msg *hi = th_at(h, 0, 0, 2, 40, NET_PRIO_HIGH, NET_CONTROL);
        th_net_go(h);
        ck_delivered_at(hi, (mode ? 448 : 848) * NS);
        ck_delivered_at(lo, (mode ? 848 : 840) * NS);
        th_net_free(h);
    }
}
END_TEST

/* ------------------------------------------------------------- metrics */

static double own_metric(th_net *h, const char *name)
{
    double core[METRIC_CORE_COUNT], own[SWNET_NMETRICS + 1];
    net_metrics(h->n, core, own);
    for (size_t i = 0; i < h->n->ops->nmetrics; i++)
        if (strcmp(h->n->ops->metrics[i].name, name) == 0)
            return own[i];
    ck_abort_msg("no metric %s", name);
    return NAN;
}

/* One leaf of 4 hosts: 10 directed links (4 uplinks, the leaf's 4 host
 * ports and 1 spine port, the spine's port). A lone 1000 B 0 -> 3 from 0
 * to 440 ns keeps host 0's uplink and host 3's downlink busy 200 ns each:
 * utilisation mean 400 / (10 x 440) = 1/11, max 200 / 440 = 5/11; 1 switch.
 * Energy: the single switch's path (2 links and a core) per bit: the
 * electrical-switch's energy; over h switches (h+1) SerDes pairs and h
 * cores: with e1 = 2 s + c the star's, e(h) = (h+1) (e1 - c) / 2 + h c. */
START_TEST(test_metrics)
{
    phy_params phy;
    phy_params_defaults(&phy);
    net_params core = th_star(4, B_BPS);
    const char *one[] = {"network.leaves=1", "network.spines=1", NULL};
    th_net *h = th_net_new("leaf-spine", &core, one, &phy, 1, 4);
    th_at_low(h, 0, 0, 3, 1000);
    th_net_go(h);
    ck_assert_double_eq_tol(own_metric(h, "link_utilization_mean"), 1.0 / 11, 1e-12);
    ck_assert_double_eq_tol(own_metric(h, "link_utilization_max"), 5.0 / 11, 1e-12);
    ck_assert_double_eq(own_metric(h, "hops_mean"), 1);
    ck_assert_double_eq(own_metric(h, "saturation_bound"), 1);
    double e_ls = own_metric(h, "energy_per_bit_j");
    th_net_free(h);

    h = th_net_new("electrical-switch", &core, NULL, &phy, 1, 4);
    th_at_low(h, 0, 0, 3, 1000);
    th_net_go(h);
    double e1 = own_metric(h, "energy_per_bit_j");
    th_net_free(h);
    ck_assert_double_eq_tol(e_ls, e1, 1e-25);

    /* the torus: 3 packets over 6 switches; the 8x4 bound 8 (N-1) / (N k) =
     * 8 x 31 / (32 x 8) = 31/32 */
    net_params c32 = th_star(32, B_BPS);
    h = th_net_new("torus", &c32, NULL, &phy, 1, 4);
    th_at_low(h, 0, 0, 19, 10000);
    th_net_go(h);
    double c = phy.energy.switch_core_j_per_bit;
    ck_assert_double_eq_tol(own_metric(h, "energy_per_bit_j"), 7 * (e1 - c) / 2 + 6 * c, 1e-24);
    ck_assert_double_eq(own_metric(h, "hops_mean"), 6);
    ck_assert_double_eq(own_metric(h, "saturation_bound"), 31.0 / 32);
    th_net_free(h);

    /* leaf-spine 4 x 4 hosts, 2 spines, ECMP: S (N-1) / (H (N-H)) = 2 x 15 /
     * (4 x 12) = 0.625 */
    net_params c16 = th_star(16, B_BPS);
    const char *ls2[] = {"network.spines=2", NULL};
    h = th_net_new("leaf-spine", &c16, ls2, NULL, 1, 4);
    ck_assert_double_eq_tol(own_metric(h, "saturation_bound"), 0.625, 1e-15);
    /* nothing measured without traffic */
    ck_assert(isnan(own_metric(h, "hops_mean")));
    ck_assert(isnan(own_metric(h, "link_utilization_mean")));
    ck_assert(isnan(own_metric(h, "energy_per_bit_j"))); /* no physical layer resolved */
    th_net_free(h);

    /* UGAL's bound is the global links' (net_dragonfly.c): 4 groups of 4
     * routers, 4 hosts and 3 global links each, N = 64: g a h (N-1) / (N (N
     * - a p)) = 48 x 63 / (64 x 48) = 63/64; minimal routing's own is lower */
    net_params c64 = th_star(64, B_BPS);
    const char *ug[] = {"network.groups=4", "network.routers-per-group=4", "network.hosts-per-router=4",
                        "network.global-links=3", "network.routing=ugal", NULL};
    h = th_net_new("dragonfly", &c64, ug, NULL, 1, 4);
    ck_assert_double_eq_tol(own_metric(h, "saturation_bound"), 63.0 / 64, 1e-15);
    th_net_free(h);
}
END_TEST

/* ------------------------------------------------------------- checks */

static void expect_refused(const char *name, uint32_t N, const char *const *sets, const char *want)
{
    net_params core = th_star(N, B_BPS);
    char err[1024] = "";
    th_net *h = th_net_try(name, &core, sets, NULL, 1, 1, err, sizeof err);
    ck_assert_msg(h == NULL, "%s accepted", name);
    ck_assert_msg(strstr(err, want) != NULL, "%s: '%s' lacks '%s'", name, err, want);
}

/* fabric's network.routing row refuses value with message want */
static void expect_routing_refused(const char *name, const char *value, const char *want)
{
    const net_ops *ops = net_find(name);
    ck_assert_ptr_nonnull(ops);
    const param_row *row = NULL;
    for (size_t k = 0; k < ops->nparams; k++)
        if (strcmp(ops->params[k].path, "network.routing") == 0)
            row = &ops->params[k];
    ck_assert_ptr_nonnull(row);
    param_value v;
    char err[512] = "";
    ck_assert_int_eq(param_parse(row, value, ".", &v, err, sizeof err), -1);
    ck_assert_msg(strstr(err, want) != NULL, "%s: '%s' lacks '%s'", name, err, want);
}

START_TEST(test_checks)
{
    expect_refused("torus", 16, NULL, "system.nodes: N = 16, but the 8x4 torus has 32 hosts");
    const char *tw[] = {"network.twist=8", NULL};
    expect_refused("torus", 32, tw, "network.twist: torus: twist=8 must be less than the first size 8");
    /* a routing another fabric has: each fabric's row refuses it with its own choices (topo.h; the
     * configuration's file:line error: check_config test_routing_per_fabric) */
    expect_routing_refused("torus", "ugal", "unknown value (expected one of: default, dor, adaptive, valiant, romm)");
    expect_routing_refused("fat-tree", "ugal", "unknown value (expected one of: default, d-mod-k, random-up, anca)");
    expect_routing_refused("leaf-spine", "ugal", "unknown value (expected one of: default, ecmp, d-mod-k)");
    expect_routing_refused("dragonfly", "dor", "unknown value (expected one of: default, minimal, valiant, ugal)");
    expect_routing_refused("graph", "dor", "unknown value (expected one of: default, file, shortest, up-down, ecmp)");
    const char *vf[] = {"network.routing=valiant", "network.failed-links=1", NULL};
    expect_refused("torus", 32, vf, "network.failed-links: routing=valiant on a torus does not route around failed links");
    const char *buf[] = {"network.vc-buffer=1kB", NULL};
    expect_refused("fat-tree", 64, buf, "network.vc-buffer: 1000 B cannot hold one packet of network.mtu = 4096 B");
    const char *df[] = {"network.global-links=3", NULL};
    expect_refused("dragonfly", 36, df, "network.global-links: dragonfly: the 12 global links of a group");
    expect_refused("fat-tree", 16, NULL, "but the 4-ary 3-tree has 64 hosts");
    /* whole messages are the other fabrics' mtu, not a switched one's */
    const char *m0[] = {"network.mtu=0B", NULL};
    expect_refused("leaf-spine", 16, m0, "network.mtu: 0 (whole messages) cannot be used on a switched fabric: "
                                         "virtual cut-through reserves a whole packet in a vc-buffer");
    /* congestion isolation: one deadlock class only (its VC would close the torus's dateline cycles) */
    const char *ci[] = {"network.congestion-isolation=destination", NULL};
    expect_refused("torus", 32, ci, "network.congestion-isolation: the 8x4 torus routes with 2 deadlock classes");
    expect_refused("dragonfly", 36, ci, "network.congestion-isolation: the dragonfly of");
    const char *ci_pfc[] = {"network.congestion-isolation=destination", "network.flow-control=pfc", NULL};
    expect_refused("leaf-spine", 16, ci_pfc, "network.congestion-isolation: isolates within credit flow control");
    /* infinite buffers need no room for a packet */
    const char *inf[] = {"network.vc-buffer=1kB", "network.flow-control=infinite", NULL};
    net_params core = th_star(64, B_BPS);
    th_net_free(th_net_new("fat-tree", &core, inf, NULL, 1, 1));
}
END_TEST

/* ------------------------------------------------------------- under load */

typedef struct load_case {
    const char *fabric;
    uint32_t nodes;
    const char *sets[8];
} load_case;

/* uniform-random over `c` at `load` for `duration`: every message delivered
 * once (the workload's exactly-once check and the fabric's counters), and
 * its accepted throughput and the fabric's bound returned. */
static void run_uniform(const load_case *c, double load, const char *size, const char *duration, double *thr,
                        double *bound, swnet_stats *s)
{
    const wl_ops *w = th_wl_ops("uniform-random");
    void *p = th_wl_params(w, NULL);
    char buf[128];
    snprintf(buf, sizeof buf, "workload.message-size=%s", size);
    th_set(w->params, w->nparams, p, buf);
    snprintf(buf, sizeof buf, "workload.offered-load=%.17g", load);
    th_set(w->params, w->nparams, p, buf);
    snprintf(buf, sizeof buf, "workload.duration=%s", duration);
    th_set(w->params, w->nparams, p, buf);
    net_params core = th_star(c->nodes, B_BPS);
    th_run r = {0};
    ck_assert_msg(th_run_open(&r, c->fabric, &core, c->sets, "uniform-random", p, 7, 0) == 0, "%s: %s", c->fabric,
                  r.err);
    th_run_go(&r);
    ck_assert_msg(th_run_finish(&r) == 0, "%s at load %g: %s", c->fabric, load, r.err);
    ck_assert_uint_gt(r.n->c.sent, 1000);
    ck_assert_uint_eq(r.n->c.delivered, r.n->c.sent);
    ck_assert_uint_eq(r.n->c.bytes_delivered, r.n->c.bytes_sent);
    *thr = th_metric(&r, "throughput");
    *bound = th_net_metric(r.n, "saturation_bound");
    swnet_get_stats(r.n->state, s);
    ck_assert_uint_eq(s->live_packets, 0);
    th_run_close(&r);
}

/* Saturation for a long time (offered load 1, 1 ms, messages of 1 B to 12
 * kB cut into packets of 1 kB, buffers of one packet per VC: every credit
 * and every VC class is exercised): every message arrives. A routing
 * without its deadlock-avoidance classes would lock up here (check_topo
 * shows their channel dependency graphs cyclic). */
static const load_case saturate[] = {
    {"torus", 8, {"network.dims=8", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"torus", 16, {"network.dims=4 4", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"torus", 32, {"network.twist=4", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"torus", 16, {"network.dims=4 4", "network.routing=adaptive", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"fat-tree", 64, {"network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"fat-tree", 64, {"network.routing=random-up", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"fat-tree", 64, {"network.routing=anca", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"torus", 16, {"network.dims=4 4", "network.routing=valiant", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"torus", 32, {"network.twist=4", "network.routing=valiant", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"torus", 16, {"network.dims=4 4", "network.routing=romm", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"leaf-spine", 16, {"network.spines=2", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"leaf-spine", 16, {"network.routing=d-mod-k", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"dragonfly", 36, {"network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"dragonfly", 20,
     {"network.groups=5", "network.routers-per-group=2", "network.hosts-per-router=2", "network.global-links=2",
      "network.routing=valiant", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
    {"dragonfly", 20,
     {"network.groups=5", "network.routers-per-group=2", "network.hosts-per-router=2", "network.global-links=2",
      "network.routing=ugal", "network.mtu=1kB", "network.vc-buffer=1kB", NULL}},
};

START_TEST(test_saturation_delivers)
{
    const load_case *c = &saturate[_i];
    double thr, bound;
    swnet_stats s;
    run_uniform(c, 1.0, "uniform(1B,12kB)", "1ms", &thr, &bound, &s);
    ck_assert_msg(thr <= bound, "%s: throughput %g above the bound %g", c->fabric, thr, bound);
    ck_assert_uint_gt(s.credit_stalls, 0); /* saturated: senders did wait for credit */
    for (size_t k = 0; c->sets[k]; k++) {
        if (strcmp(c->sets[k], "network.routing=adaptive") == 0)
            ck_assert_uint_gt(s.adaptive_escape, 0); /* some packets found no room on an adaptive VC */
        if (strcmp(c->sets[k], "network.routing=ugal") == 0)
            ck_assert_uint_gt(s.valiant_packets, 0); /* some packets found the minimal queue longer */
    }
}
END_TEST

/* Accepted against offered load, one case per topology (defaults but the
 * bound-lowering parameters; 4 kB messages, one packet each; 300 us):
 *   below saturation (offered 0.3, under every bound and every saturation
 *   point measured) the throughput is the offered load within 3% (about
 *   2300 messages per run at 16 nodes: a relative deviation of 2%);
 *   above the bound (offered 1.2 x the bound, at most 1.2) it never
 *   exceeds the bound. Bounds by hand: torus 8x4 31/32 (topo_torus.c);
 *   fat tree 1; leaf-spine 4 x 4, 2 spines, ECMP 0.625 (test_metrics);
 *   dragonfly g = 5, a = 2, p = 2, h = 2 (n = 1, N = 20): a local link r1
 *   -> r2 carries r1's p^2 = 4 messages to r2's hosts, those of r1's 2
 *   hosts to the 2 groups whose slots r2 holds (8 hosts each... 2 groups x 4
 *   hosts x 2 sources = 16) and those arriving over r1's 2 global links for
 *   r2's 2 hosts (2 x 4 sources x 2 = 16): 36 / (N - 1) = 36/19 of lambda;
 *   a global link 4 x 4 / 19: bound 19/36. */
static const load_case tracks[] = {
    {"torus", 32, {NULL}},
    {"fat-tree", 64, {NULL}},
    {"leaf-spine", 16, {"network.spines=2", NULL}},
    {"dragonfly", 20,
     {"network.groups=5", "network.routers-per-group=2", "network.hosts-per-router=2", "network.global-links=2",
      NULL}},
};
static const double tracks_bound[] = {31.0 / 32, 1.0, 0.625, 19.0 / 36};

START_TEST(test_throughput_tracks_load)
{
    const load_case *c = &tracks[_i];
    double thr, bound;
    swnet_stats s;
    run_uniform(c, 0.3, "4kB", "300us", &thr, &bound, &s);
    ck_assert_double_eq_tol(bound, tracks_bound[_i], 1e-12);
    ck_assert_msg(fabs(thr - 0.3) < 0.03 * 0.3, "%s: offered 0.3, accepted %g", c->fabric, thr);
    double over = bound * 1.2 < 1.2 ? bound * 1.2 : 1.2;
    run_uniform(c, over, "4kB", "300us", &thr, &bound, &s);
    ck_assert_msg(thr <= bound, "%s: offered %g, accepted %g above the bound %g", c->fabric, over, thr, bound);
    ck_assert_msg(thr > 0.3, "%s: offered %g, accepted only %g", c->fabric, over, thr);
}
END_TEST

static Suite *swnet_suite(void)
{
    Suite *s = suite_create("swnet");
    TCase *t = tcase_create("zero-load");
    tcase_add_test(t, test_zero_load_torus);
    tcase_add_test(t, test_zero_load_fattree);
    tcase_add_test(t, test_zero_load_leafspine);
    tcase_add_test(t, test_zero_load_dragonfly);
    tcase_add_test(t, test_zero_load_packets);
    tcase_add_test(t, test_zero_load_credit_stall);
    tcase_add_test(t, test_events_per_hop);
    suite_add_tcase(s, t);
    t = tcase_create("contention");
    tcase_add_test(t, test_contention_backpressure);
    tcase_add_test(t, test_contention_meet);
    tcase_add_test(t, test_anca_least_occupied);
    tcase_add_test(t, test_priority_classes);
    tcase_add_test(t, test_metrics);
    tcase_add_test(t, test_checks);
    suite_add_tcase(s, t);
    t = tcase_create("load");
    tcase_set_timeout(t, 600);
    tcase_add_loop_test(t, test_saturation_delivers, 0, (int)(sizeof saturate / sizeof saturate[0]));
    tcase_add_loop_test(t, test_throughput_tracks_load, 0, (int)(sizeof tracks / sizeof tracks[0]));
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(swnet_suite)
