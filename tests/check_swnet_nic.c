/* The host NIC on the switched topologies (networks/swnet.c over
 * networks/host_nic.c): which packet a host sends next under each
 * network.host-scheduling, classes at sources and output ports, pFabric's
 * srpt at output ports, zero load under every policy on every topology, and
 * the invariants of random mixes under every policy on every topology.
 *
 * Numbers by hand, B = 40 Gb/s (1 B = 200 ps), links 20 ns, switches 200 ns
 * (the harness's star), network.mtu = 1000 B: a full packet takes P = 200
 * ns on a link. A packet whose first bit leaves its host at s crosses h
 * switches and its last bit reaches its destination, alone, at
 *   s + ser + (h + 1) 20 + h 200 ns:  s + 440 ns (h = 1), s + 880 ns (h = 3)
 * for a 1000-B packet (swnet.c's head). The default buffers (16.384 kB per
 * VC) hold 16 packets, far more than the credit round trip of 240 ns needs:
 * no credit stalls in the hand cases. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "harness.h"
#include "host_nic.h"
#include "network.h"
#include "swnet.h"

#define B_BPS 40e9

/* Check records a checkpoint per ck_assert; loops use this instead. */
#define REQUIRE(cond, ...)                                                                                         \
    do {                                                                                                           \
        if (!(cond))                                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                                             \
    } while (0)

static const char *const policies[] = {"fifo", "round-robin", "priority", "srpt"};

/* A fabric of N hosts with `sets` plus network.host-scheduling=policy. */
static th_net *fab(const char *name, uint32_t N, const char *policy, const char *const *sets, size_t cap)
{
    const char *all[16];
    char pol[64];
    size_t k = 0;
    snprintf(pol, sizeof pol, "network.host-scheduling=%s", policy);
    all[k++] = pol;
    for (size_t i = 0; sets && sets[i] && k < 15; i++)
        all[k++] = sets[i];
    all[k] = NULL;
    net_params core = th_star(N, B_BPS);
    return th_net_new(name, &core, all, NULL, 1, cap);
}

/* ------------------------------------------------------------- sources */

/* The 4-ary 2-tree (16 hosts; hosts 0..3 on leaf 0): from host 0, C =
 * 1000 B to 3 (h = 1), then A = 3000 B (3 packets) to 5 (h = 3: leaf, top,
 * leaf) and B = 1000 B to 1 (h = 1), all handed over at 0 in that order.
 * C is cut at once (the uplink idles) and leaves over [0, 200]: C at 440
 * ns every time. At 200 the NIC chooses between A and B; every packet has
 * its own output all the way (no queueing in the tree), so a message's time
 * is its last packet's start s + 440 or s + 880:
 *   fifo: A0 A1 A2 at 200, 400, 600, B0 at 800: A 1480, B 1240;
 *   round-robin: A0 200, B0 400, A1 600, A2 800: B 840, A 1680;
 *   srpt: B (1000 B left) before A (3000): B0 200, A 400..800: B 640, A 1680;
 *   priority, one class for all: round-robin's times; B in class 0 and A, C
 *     in class 1: srpt's; A and C in class 0, B in class 1: fifo's. */
START_TEST(test_two_messages_one_host)
{
    static const char *const ft[] = {"network.arity=4", "network.levels=2", "network.mtu=1kB", NULL};
    static const struct {
        const char *policy;
        uint8_t pa, pb; /* classes of A (and C), B */
        int64_t a_ns, b_ns;
    } cases[] = {
        {"fifo", 1, 1, 1480, 1240},     {"round-robin", 1, 1, 1680, 840}, {"srpt", 1, 1, 1680, 640},
        {"priority", 1, 1, 1680, 840},  {"priority", 1, 0, 1680, 640},    {"priority", 0, 1, 1480, 1240},
        {"fifo", 1, 0, 1480, 1240},     /* fifo ignores classes without network.priority */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        th_net *h = fab("fat-tree", 16, cases[k].policy, ft, 4);
        net_msg *c = th_at(h, 0, 0, 3, 1000, cases[k].pa, NET_DATA);
        net_msg *a = th_at(h, 0, 0, 5, 3000, cases[k].pa, NET_DATA);
        net_msg *b = th_at(h, 0, 0, 1, 1000, cases[k].pb, NET_DATA);
        th_net_go(h);
        ck_delivered_at(c, 440 * NS);
        ck_assert_msg((int64_t)a->b == cases[k].a_ns * NS && (int64_t)b->b == cases[k].b_ns * NS,
                      "%s (A class %u, B class %u): A at %lld, B at %lld ps; expected %lld, %lld ns", cases[k].policy,
                      cases[k].pa, cases[k].pb, (long long)a->b, (long long)b->b, (long long)cases[k].a_ns,
                      (long long)cases[k].b_ns);
        swnet_stats s;
        swnet_get_stats(h->n->state, &s);
        ck_assert_uint_eq(s.packets, 5);
        ck_assert_uint_eq(s.credit_stalls, 0);
        ck_assert_uint_eq(s.live_packets, 0);
        th_net_free(h);
    }
    /* network.priority=strict turns classes on under fifo too: B (class 0)
     * goes first, as with priority */
    const char *st[] = {"network.arity=4", "network.levels=2", "network.mtu=1kB", "network.priority=strict", NULL};
    th_net *h = fab("fat-tree", 16, "fifo", st, 4);
    th_at(h, 0, 0, 3, 1000, 1, NET_DATA);
    net_msg *a = th_at(h, 0, 0, 5, 3000, 1, NET_DATA);
    net_msg *b = th_at(h, 0, 0, 1, 1000, 0, NET_DATA);
    th_net_go(h);
    ck_delivered_at(b, 640 * NS);
    ck_delivered_at(a, 1680 * NS);
    th_net_free(h);
}
END_TEST

/* The NIC picks first, credits decide when: one leaf (4 hosts), mtu =
 * vc-buffer = 1000 B, so host 0 may send a packet only once the one before
 * left the leaf (its credit is back 240 ns after it left the host, R = 2
 * link + switch). Host 0: C = 1000 B to 3 at 0, then A = 2000 B to 1 and B =
 * 500 B to 2. srpt picks B (500 left) at every cut while it waits; B waits
 * for C's credit at 240 (not 200), leaves over [240, 340] and is at host 2
 * at 240 + 100 + 40 + 200 = 580 ns; A0 waits for B's credit, back at 480,
 * A1 for A0's at 720: A at 720 + 440 = 1160 ns. fifo: A0 at 240, A1 at
 * 480, B0 at 720 (a 500-B packet fits only once A1's credit is back): A at
 * 920, B at 720 + 340 = 1060 ns. */
START_TEST(test_credit_waits_for_the_choice)
{
    const char *one[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.vc-buffer=1kB", NULL};
    for (int srpt = 0; srpt < 2; srpt++) {
        th_net *h = fab("leaf-spine", 4, srpt ? "srpt" : "fifo", one, 4);
        net_msg *c = th_at_low(h, 0, 0, 3, 1000);
        net_msg *a = th_at_low(h, 0, 0, 1, 2000);
        net_msg *b = th_at_low(h, 0, 0, 2, 500);
        th_net_go(h);
        ck_delivered_at(c, 440 * NS);
        ck_delivered_at(a, (srpt ? 1160 : 920) * NS);
        ck_delivered_at(b, (srpt ? 580 : 1060) * NS);
        swnet_stats s;
        swnet_get_stats(h->n->state, &s);
        ck_assert_uint_gt(s.credit_stalls, 0);
        th_net_free(h);
    }
}
END_TEST

/* Priority classes and credits (network.vc-map): one leaf (hosts 0..3),
 * B = 8 Gb/s (1 B = 1 ns), links 100 ns, switch 0, mtu 1000 B (P = 1 us),
 * vc-buffer 2000 B (2 packets), host-scheduling priority (strict ports by
 * network.priority's default). Times in us.
 *   C (host 1 -> 2) and D (host 3 -> 2), class 0, 10 packets each at 0:
 *   both reach the port toward 2 from 0.1 on and there is always one of
 *   them queued when it frees (two sources for one port), so it sends
 *   class 0 back to back over [0.1, 20.1].
 *   B (host 0 -> 2), class 1, 3 packets at 0.2: B0 leaves host 0 over
 *   [0.2, 1.2], B1 over [1.2, 2.2]; both wait at the port toward 2 (class
 *   0 first) and fill host 0's buffer at the leaf (2 x 1000 B).
 *   H (host 0 -> 3), class 0, 1000 B at 5: the port toward 3 idles.
 *   shared (today's): H needs 1000 B of the one pool the classes share,
 *     held by B0 and B1 until the port toward 2 takes B0 at 20.1; its
 *     credit is back at host 0 at 20.2, H leaves then, joins the port
 *     toward 3 at 20.3 and its last bit is at host 3 at 20.3 + 1 + 0.1 =
 *     21.4 us (16.4 us for a zero-load 1.2).
 *   per-class (the default): H's class has its own 2000 B: it leaves at 5,
 *     crosses at 5.1, at host 3 at 5.1 + 1 + 0.1 = 6.2 us: the zero-load
 *     time ser + 2 link = 1.2 us.
 *   B either way: B0 [20.1, 21.1], B1 [21.1, 22.1] at the port toward 2;
 *   B2 leaves host 0 once a credit of class 1 is back (20.2 per-class, or
 *   21.2 shared: H took B0's) and waits for B1: [22.1, 23.1], at host 2 at
 *   23.2 us. C and D end at 20.1 + 0.1 = 20.2 us at the latest. */
START_TEST(test_class_vcs_credit_blocking)
{
    for (int shared = 0; shared < 2; shared++) {
        const char *sets[] = {"network.host-scheduling=priority", "network.leaves=1", "network.spines=1",
                              "network.mtu=1kB", "network.vc-buffer=2kB",
                              shared ? "network.vc-map=shared" : "network.vc-map=per-class", NULL};
        net_params core = th_star(4, 8e9);
        core.link_latency_ps = 100 * NS;
        core.switch_latency_ps = 0;
        th_net *h = th_net_new("leaf-spine", &core, sets, NULL, 1, 8);
        net_msg *c = th_at(h, 0, 1, 2, 10000, 0, NET_DATA);
        net_msg *d = th_at(h, 0, 3, 2, 10000, 0, NET_DATA);
        net_msg *b = th_at(h, 200 * NS, 0, 2, 3000, 1, NET_DATA);
        net_msg *hi = th_at(h, 5000 * NS, 0, 3, 1000, 0, NET_DATA);
        th_net_go(h);
        ck_delivered_at(hi, (shared ? 21400 : 6200) * NS);
        ck_delivered_at(b, 23200 * NS);
        ck_assert_int_le((int64_t)(c->b > d->b ? c->b : d->b), 20200 * NS);
        th_net_free(h);
    }
}
END_TEST

/* Congestion isolation (network.congestion-isolation = destination): a
 * starved destination no longer blocks an unrelated flow of its class. One
 * leaf (hosts 0..3), B = 8 Gb/s (1 B = 1 ns), links 100 ns, switch 0, mtu
 * 1000 B (P = 1 us), vc-buffer 3000 B (3 packets), strict ports, classes at
 * the hosts (host-scheduling priority, and fifo with network.priority
 * strict: the same times). Times in us.
 *   C (host 1 -> 2) and D (host 3 -> 2), class 0, 10 packets each at 0:
 *   the port toward 2 sends class 0 back to back over [0.1, 20.1] (two
 *   sources for one port, always one queued), so class 1 starves there.
 *   B (host 0 -> 2), class 1, 3 packets at 0.2: B0 leaves host 0 over
 *   [0.2, 1.2] and joins the port toward 2 at 0.3, B1 [1.2, 2.2] at 1.3, B2
 *   [2.2, 3.2] at 2.3.
 *   V (host 0 -> 3), class 1, 1000 B at 5: the victim (the port toward 3
 *   idles).
 *   off (per-class VCs): B0..B2 hold host 0's class-1 buffer at the leaf
 *     (3 x 1000 B) until the port toward 2 takes B0 at 20.1; its credit is
 *     at host 0 at 20.2, V leaves then, joins the port toward 3 at 20.3 and
 *     is at host 3 at 20.3 + 1 + 0.1 = 21.4 us.
 *   destination, ci-threshold 1 B: B1 joins the port toward 2 with B0's
 *     1000 B of class 1 waiting there (>= 1 B): destination 2 is isolated in
 *     class 1 at 1.3, known to the others ci-delay later (by default the
 *     notice's way back over the longest route, host -> leaf -> host: one
 *     link, 0.1; given 0.8 us, at 2.1). B2, cut at 2.2, takes class 1's
 *     isolation VC (3000 B of its own): host 0's class-1 VC 0 keeps 1000 B
 *     free (B0 and B1 were
 *     cut before 1.3 and stay in it, as 802.1Qcz leaves queued packets where
 *     they are). V to 3 (not isolated) fits it at 5: it leaves over [5, 6],
 *     crosses at 5.1 and is at host 3 at 5.1 + 1 + 0.1 = 6.2 us, its
 *     zero-load time (ser + 2 link = 1.2 us).
 *   ci-delay 1 us: host 0 learns it at 2.3, after B2 was cut into VC 0 at
 *     2.2: V waits as with off, 21.4 us.
 *   B either way: B0 [20.1, 21.1], B1 [21.1, 22.1], B2 [22.1, 23.1] (class
 *   1's heads by age across its VCs: joined at 0.3, 1.3, 2.3), at host 2 at
 *   23.2 us; the class-1 queue toward 2 is empty at 22.1, destination 2 free
 *   again. C and D end by 20.1 + 0.1 = 20.2 us. */
START_TEST(test_ci_victim_passes)
{
    static const struct {
        const char *ci, *delay;
        int64_t v_ns;
    } cases[] = {
        {"network.congestion-isolation=off", "network.ci-delay=-1ps", 21400},
        {"network.congestion-isolation=destination", "network.ci-delay=-1ps", 6200},
        {"network.congestion-isolation=destination", "network.ci-delay=0.8us", 6200},
        {"network.congestion-isolation=destination", "network.ci-delay=1us", 21400},
    };
    for (int k = 0; k < 8; k++) {
        int c4 = k % 4, fifo = k / 4, ci = c4 > 0;
        const char *sets[] = {fifo ? "network.host-scheduling=fifo" : "network.host-scheduling=priority",
                              "network.priority=strict", "network.leaves=1", "network.spines=1", "network.mtu=1kB",
                              "network.vc-buffer=3kB", cases[c4].ci, "network.ci-threshold=1B", cases[c4].delay,
                              NULL};
        net_params core = th_star(4, 8e9);
        core.link_latency_ps = 100 * NS;
        core.switch_latency_ps = 0;
        th_net *h = th_net_new("leaf-spine", &core, sets, NULL, 1, 8);
        net_msg *c = th_at(h, 0, 1, 2, 10000, 0, NET_DATA);
        net_msg *d = th_at(h, 0, 3, 2, 10000, 0, NET_DATA);
        net_msg *b = th_at(h, 200 * NS, 0, 2, 3000, 1, NET_DATA);
        net_msg *v = th_at(h, 5000 * NS, 0, 3, 1000, 1, NET_DATA);
        th_net_go(h);
        REQUIRE((int64_t)v->b == cases[c4].v_ns * NS, "%s %s fifo %d: V at %lld ps", cases[c4].ci, cases[c4].delay,
                fifo, (long long)v->b);
        ck_delivered_at(b, 23200 * NS);
        ck_assert_int_le((int64_t)(c->b > d->b ? c->b : d->b), 20200 * NS);
        const swnet *st = h->n->state;
        /* (2, class 0) at 1.1 (C1 joins behind D0, which waits behind C0 on the wire) and (2, class 1) at 1.3 */
        ck_assert_uint_eq(st->ci_isolations, ci ? 2 : 0);
        if (ci)
            ck_assert_int_eq(st->ci_delay, c4 == 1 ? 100 * NS : c4 == 2 ? 800 * NS : 1000 * NS);
        ck_assert_uint_eq(swnet_credit_leaks(st), 0);
        for (uint32_t i = 0; ci && i < 4 * NET_PRIO_CLASSES; i++)
            REQUIRE(st->ci_q[i] == 0 && (st->ci_iso[i] & 1u) == 0, "ci: host %u class %u: %lld B counted, isolated %u",
                    i / NET_PRIO_CLASSES, i % NET_PRIO_CLASSES, (long long)st->ci_q[i], st->ci_iso[i]);
        th_net_free(h);
    }
}
END_TEST

/* ------------------------------------------------------------- output ports */

/* pFabric ports (host-scheduling srpt, flow-control infinite: the
 * switch's unbounded buffers) on one leaf: Big = 30 000 B (30
 * packets) from host 0 to 2 at 0, Small = 2000 B (2 packets) from host 1 to
 * 2 at 1050 ns. Big_k joins the port toward 2 at 220 + 200 k and the port
 * runs back to back from 220: Big_5 holds it over [1220, 1420]. S0 leaves
 * host 1 at 1050 and joins at 1270; at 1420 it has 2000 B left against
 * Big_6's 24 000: S0 [1420, 1620]; S1 joins at 1470 and at 1620 (1000 B
 * left) passes Big_6 and Big_7: [1620, 1820], Small at 1840 ns. FIFO ports
 * (the other policies, one class): S0 joined before Big_6 and goes at 1420,
 * S1 after Big_6 and Big_7's... after Big_6 (joined 1420 < 1470): S1 [1820,
 * 2020], Small at 2040 ns. Big's 30 and Small's 2 packets leave the port back
 * to back from 220: Big's last at 220 + 32 x 200 = 6620, at 6640 ns either
 * way. The same with classes (priority NIC, or fifo and network.priority =
 * strict): Small in class 0 and Big in class 1 gives srpt's times; with one
 * class round-robin gives FIFO's. With credits (16.384 kB buffers: no
 * stall here) srpt stays at the hosts and the ports are FIFOs: 2040 ns. */
START_TEST(test_srpt_port_small_passes)
{
    const char *one[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.flow-control=infinite",
                         NULL};
    const char *cls[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", "network.flow-control=infinite",
                         "network.priority=strict", NULL};
    const char *cr[] = {"network.leaves=1", "network.spines=1", "network.mtu=1kB", NULL};
    static const struct {
        const char *policy;
        int sets; /* 0: one, 1: cls, 2: cr */
        uint8_t big_prio;
        int64_t small_ns;
    } cases[] = {
        {"srpt", 0, 0, 1840},     {"fifo", 0, 0, 2040}, {"round-robin", 0, 0, 2040}, {"priority", 0, 0, 2040},
        {"priority", 0, 1, 1840}, {"fifo", 1, 1, 1840}, {"srpt", 1, 1, 1840},        {"srpt", 2, 0, 2040},
        {"priority", 2, 1, 1840},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *const *sets = cases[k].sets == 0 ? one : cases[k].sets == 1 ? cls : cr;
        th_net *h = fab("leaf-spine", 4, cases[k].policy, sets, 4);
        net_msg *big = th_at(h, 0, 0, 2, 30000, cases[k].big_prio, NET_DATA);
        net_msg *small = th_at(h, 1050 * NS, 1, 2, 2000, 0, NET_DATA);
        th_net_go(h);
        REQUIRE((int64_t)small->b == cases[k].small_ns * NS, "%s (sets %d, Big class %u): Small at %lld ps",
                cases[k].policy, cases[k].sets, cases[k].big_prio, (long long)small->b);
        ck_delivered_at(big, 6640 * NS);
        th_net_free(h);
    }
}
END_TEST

/* A backlog served by remaining size (srpt ports: flow-control infinite):
 * one leaf of 8 hosts, mtu 4 kB (every
 * message one packet), hosts 1..7 send 4000, 3000, 1000, 2500, 500, 3500
 * and 1500 B to host 0, all at 0 in that order. All heads join the port
 * toward 0 at 220; the first (4000 B, 800 ns) finds it free: [220, 1020].
 * srpt: then by size, each ser = bytes x 200 ps, delivered 20 ns after it
 * ends: 500 [1020, 1120] at 1140, 1000 at 1340, 1500 at 1640, 2500 at 2140,
 * 3000 at 2740, 3500 at 3440 ns. FIFO: in joining order, 3000 [1020, 1620]
 * at 1640, 1000 at 1840, 2500 at 2340, 500 at 2440, 3500 at 3140, 1500 at
 * 3440 ns, which srpt with credits gives too (its ports are FIFOs). */
START_TEST(test_srpt_port_backlog)
{
    const char *inf[] = {"network.leaves=1", "network.spines=1", "network.hosts-per-leaf=8",
                         "network.flow-control=infinite", NULL};
    const char *cr[] = {"network.leaves=1", "network.spines=1", "network.hosts-per-leaf=8", NULL};
    static const uint64_t size[8] = {0, 4000, 3000, 1000, 2500, 500, 3500, 1500};
    static const int64_t srpt_ns[8] = {0, 1040, 2740, 1340, 2140, 1140, 3440, 1640};
    static const int64_t fifo_ns[8] = {0, 1040, 1640, 1840, 2340, 2440, 3140, 3440};
    for (int k = 0; k < 4; k++) {
        int srpt = k & 1, credit = k >> 1;
        th_net *h = fab("leaf-spine", 8, srpt ? "srpt" : "fifo", credit ? cr : inf, 8);
        net_msg *m[8];
        for (uint32_t i = 1; i < 8; i++)
            m[i] = th_at_low(h, 0, i, 0, size[i]);
        th_net_go(h);
        for (uint32_t i = 1; i < 8; i++)
            REQUIRE((int64_t)m[i]->b == (srpt && !credit ? srpt_ns : fifo_ns)[i] * NS && m[i]->a == 1,
                    "%s (credit %d): %llu B from %u at %lld ps", srpt ? "srpt" : "fifo", credit,
                    (unsigned long long)size[i], i, (long long)m[i]->b);
        th_net_free(h);
    }
}
END_TEST

/* ------------------------------------------------------------- zero load */

static const char *const topologies[] = {"torus", "fat-tree", "leaf-spine", "dragonfly"};

/* A message alone takes exactly zero_load_ps under every policy, with and
 * without classes, on every topology, from empty to many packets (credit
 * stalls included: buffers of one packet). */
START_TEST(test_zero_load_every_policy)
{
    static const uint64_t sizes[] = {0, 1, 1000, 4096, 10000, 100000};
    static const char *const extra[][3] = {
        {NULL},
        {"network.priority=strict", NULL},
        {"network.mtu=1kB", "network.vc-buffer=1kB", NULL},
        {"network.flow-control=infinite", NULL},
    };
    const char *tp = topologies[_i];
    const net_ops *ops = th_net_ops(tp);
    const uint32_t N = 16;
    const char *const *shape = th_net_shape(ops, N);
    const char *sh[8];
    size_t ns = 0;
    for (; shape[ns] && ns < 7; ns++)
        sh[ns] = shape[ns];
    for (size_t p = 0; p < 4; p++)
        for (size_t e = 0; e < 4; e++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                const char *sets[12];
                size_t k = 0;
                for (size_t i = 0; i < ns; i++)
                    sets[k++] = sh[i];
                for (size_t i = 0; extra[e][i]; i++)
                    sets[k++] = extra[e][i];
                sets[k] = NULL;
                th_net *h = fab(tp, N, policies[p], sets, 2);
                net_msg *m = th_at(h, 1000 * NS, 1, N - 2, sizes[s], 3, NET_DATA);
                th_net_go(h);
                int64_t want = net_zero_load_ps(h->n, 1, N - 2, sizes[s]);
                REQUIRE(m->a == 1 && (int64_t)m->b - 1000 * NS == want, "%s %s (%zu) %llu B: %lld ps, alone %lld",
                        tp, policies[p], e, (unsigned long long)sizes[s], (long long)((int64_t)m->b - 1000 * NS),
                        (long long)want);
                th_net_free(h);
            }
}
END_TEST

/* ------------------------------------------------------------- random mixes */

enum { MIX = 1500 };

/* Random pairs, sizes 0..30 kB (a fifth of them 0..2 B), classes 0..7, near
 * saturation: every message delivered exactly once, bytes conserved, none
 * faster than alone, no packet left in the fabric or the NICs, every NIC
 * empty; returns the sum of the times (the same seed must give the same). */
static int64_t mix(const char *tp, const char *policy, const char *const *extra, uint64_t seed)
{
    const uint32_t N = 16;
    const char *const *shape = th_net_shape(th_net_ops(tp), N);
    const char *sets[16];
    size_t k = 0;
    for (size_t i = 0; shape[i] && k < 8; i++)
        sets[k++] = shape[i];
    for (size_t i = 0; extra && extra[i] && k < 15; i++)
        sets[k++] = extra[i];
    sets[k] = NULL;
    th_net *h = fab(tp, N, policy, sets, MIX);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, seed);
    int64_t window = (int64_t)(MIX * 15e3 * 8 / (N * B_BPS) * 1e12);
    net_msg **ms = malloc(MIX * sizeof *ms);
    int64_t *t0 = malloc(MIX * sizeof *t0);
    uint64_t bytes = 0;
    for (size_t i = 0; i < MIX; i++) {
        t0[i] = (int64_t)gsl_rng_uniform_int(g, (unsigned long)window);
        uint32_t src = (uint32_t)gsl_rng_uniform_int(g, N);
        uint32_t dst = (uint32_t)((src + 1 + gsl_rng_uniform_int(g, N - 1)) % N);
        uint64_t size = gsl_rng_uniform(g) < 0.2 ? gsl_rng_uniform_int(g, 3) : gsl_rng_uniform_int(g, 30001);
        bytes += size;
        ms[i] = th_at(h, t0[i], src, dst, size, (uint8_t)gsl_rng_uniform_int(g, NET_PRIO_CLASSES), NET_DATA);
    }
    th_net_go(h);
    ck_assert_uint_eq(h->nrec, MIX);
    int64_t sum = 0;
    for (size_t i = 0; i < MIX; i++) {
        REQUIRE(ms[i]->a == 1, "%s %s: message %zu delivered %llu times", tp, policy, i,
                (unsigned long long)ms[i]->a);
        int64_t took = (int64_t)ms[i]->b - t0[i];
        REQUIRE(took >= net_zero_load_ps(h->n, ms[i]->src, ms[i]->dst, ms[i]->size_bytes),
                "%s %s: message %zu faster than alone", tp, policy, i);
        sum += took;
    }
    ck_assert_uint_eq(h->bytes, bytes);
    ck_assert_uint_eq(h->n->c.bytes_delivered, bytes);
    swnet_stats s;
    swnet_get_stats(h->n->state, &s);
    ck_assert_uint_eq(s.live_packets, 0);
    const swnet *st = h->n->state;
    ck_assert_uint_eq(st->nic.live_pkts, 0);
    ck_assert_uint_eq(st->nic.packets, s.packets);
    for (uint32_t i = 0; i < N; i++)
        REQUIRE(st->nic.node[i].active == 0 && st->nic.node[i].mask == 0, "%s %s: NIC %u not empty", tp, policy, i);
    free(ms);
    free(t0);
    gsl_rng_free(g);
    th_net_free(h);
    return sum;
}

/* Every policy on every topology: the defaults, classes (strict) with small
 * buffers (a packet per VC: credits everywhere), unbounded buffers (srpt
 * ports) with and without classes, and each topology's other routings
 * (torus adaptive, dragonfly UGAL and Valiant, fat-tree random-up). */
START_TEST(test_random_mixes)
{
    const char *tp = topologies[_i];
    static const char *const small[] = {"network.mtu=1kB", "network.vc-buffer=1kB", "network.priority=strict", NULL};
    static const char *const small_shared[] = {"network.mtu=1kB", "network.vc-buffer=1kB", "network.priority=strict",
                                               "network.vc-map=shared", NULL};
    static const char *const small_fifo[] = {"network.mtu=1kB", "network.vc-buffer=1kB", "network.priority=fifo",
                                             NULL};
    static const char *const inf[] = {"network.flow-control=infinite", NULL};
    static const char *const inf_cls[] = {"network.flow-control=infinite", "network.priority=strict",
                                          "network.mtu=1kB", NULL};
    const char *alt[4][4] = {{NULL}};
    size_t nalt = 0;
    if (strcmp(tp, "torus") == 0) {
        alt[nalt][0] = "network.routing=adaptive";
        alt[nalt++][1] = "network.mtu=1kB";
        alt[nalt][0] = "network.routing=adaptive"; /* srpt ports over paths that may reorder */
        alt[nalt][1] = "network.mtu=1kB";
        alt[nalt++][2] = "network.flow-control=infinite";
    } else if (strcmp(tp, "dragonfly") == 0) {
        alt[nalt++][0] = "network.routing=ugal";
        alt[nalt++][0] = "network.routing=valiant";
        alt[nalt][0] = "network.routing=ugal";
        alt[nalt++][1] = "network.flow-control=infinite";
    } else if (strcmp(tp, "fat-tree") == 0) {
        alt[nalt++][0] = "network.routing=random-up";
    }
    for (size_t p = 0; p < 4; p++) {
        int64_t a = mix(tp, policies[p], NULL, 7);
        ck_assert_int_eq(a, mix(tp, policies[p], NULL, 7));
        mix(tp, policies[p], small, 8);
        mix(tp, policies[p], small_shared, 8);
        mix(tp, policies[p], small_fifo, 8);
        mix(tp, policies[p], inf, 10);
        mix(tp, policies[p], inf_cls, 11);
        for (size_t r = 0; r < nalt; r++)
            mix(tp, policies[p], alt[r], 9);
        /* congestion isolation (trees: one deadlock class; not srpt): every message once, NICs empty */
        static const char *const ci[] = {"network.mtu=1kB", "network.vc-buffer=1kB", "network.priority=strict",
                                         "network.congestion-isolation=destination", "network.ci-threshold=1B",
                                         NULL};
        static const char *const ci_one[] = {"network.mtu=1kB", "network.vc-buffer=2kB",
                                             "network.congestion-isolation=destination", NULL};
        if ((strcmp(tp, "fat-tree") == 0 || strcmp(tp, "leaf-spine") == 0) && strcmp(policies[p], "srpt") != 0) {
            mix(tp, policies[p], ci, 12);
            mix(tp, policies[p], ci_one, 13);
        }
    }
}
END_TEST

static Suite *swnet_nic_suite(void)
{
    Suite *s = suite_create("swnet_nic");
    TCase *t = tcase_create("hand");
    tcase_add_test(t, test_two_messages_one_host);
    tcase_add_test(t, test_credit_waits_for_the_choice);
    tcase_add_test(t, test_class_vcs_credit_blocking);
    tcase_add_test(t, test_ci_victim_passes);
    tcase_add_test(t, test_srpt_port_small_passes);
    tcase_add_test(t, test_srpt_port_backlog);
    suite_add_tcase(s, t);
    t = tcase_create("load");
    tcase_set_timeout(t, 600);
    tcase_add_loop_test(t, test_zero_load_every_policy, 0, 4);
    tcase_add_loop_test(t, test_random_mixes, 0, 4);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(swnet_nic_suite)
