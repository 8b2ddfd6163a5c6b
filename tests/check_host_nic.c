/* The host NIC (networks/host_nic.[ch]) alone and inside the fabrics that
 * use it: packet cutting, the four policies, 8 priority classes at the NIC
 * and at the switch's output ports, zero-load times with packets, and the
 * invariants of random mixes on every fabric under every policy.
 *
 * Numbers by hand, B = 10 Gb/s (1 B = 800 ps), links 20 ns, switch 200 ns:
 * a 1500-B packet takes 1 200 000 ps on a link, so a message of 15 000 B at
 * mtu 1500 is 10 packets, 12 us on its uplink, and reaches its destination
 * alone 12 us + 2 x 20 ns + 200 ns = 12 240 000 ps after its hand-over. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "harness.h"
#include "host_nic.h"
#include "network.h"

#define PKT 1200000 /* ps: 1500 B at 10 Gb/s */
#define FIX 240000  /* ps: 2 links + switch */

/* Check records a checkpoint per ck_assert; loops use this instead. */
#define REQUIRE(cond, ...)                                                                                         \
    do {                                                                                                           \
        if (!(cond))                                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                                             \
    } while (0)

/* ---------------------------------------------------------- the NIC alone */

static net_msg mk(uint64_t id, uint32_t src, uint64_t bytes, uint8_t prio)
{
    net_msg m;
    memset(&m, 0, sizeof m);
    m.id = id;
    m.src = src;
    m.dst = src + 1;
    m.size_bytes = bytes;
    m.prio = prio;
    return m;
}

/* The order in which nic_pop hands packets out: "A0 B0 ..." as message
 * letters and packet indexes, one call per packet until the NIC is empty. */
static void pop_order(host_nic *h, net_msg *ms, char *out, size_t len)
{
    size_t o = 0;
    nic_pkt *p;
    out[0] = '\0';
    while ((p = nic_pop(h, 0, 0)) != NULL) {
        o += (size_t)snprintf(out + o, len - o, "%s%c%u%s", o ? " " : "", (char)('A' + (p->msg - ms)), p->seq,
                              p->last ? "." : "");
        nic_pkt_free(h, p);
    }
}

START_TEST(test_nic_policies)
{
    /* A = 3000 B (2 packets of 1500), B = 1000 B (1), C = 4000 B (3: 1500,
     * 1500, 1000), handed over in that order; C is class 0, A and B class 1. */
    static const struct {
        int policy, classes;
        const char *want;
    } cases[] = {
        /* one after another, in hand-over order */
        {NIC_FIFO, 0, "A0 A1. B0. C0 C1 C2."},
        /* a packet each in turn: A, B, C, A, C, C */
        {NIC_ROUND_ROBIN, 0, "A0 B0. C0 A1. C1 C2."},
        /* C's class first, then A and B in turn */
        {NIC_PRIORITY, 0, "C0 C1 C2. A0 B0. A1."},
        /* fifo within classes: C first, then A, then B */
        {NIC_FIFO, 1, "C0 C1 C2. A0 A1. B0."},
        /* fewest bytes left: B (1000), then A (3000, then 1500 left), then C
         * (4000 > 3000 at the start, and A's 1500 after one packet) */
        {NIC_SRPT, 0, "B0. A0 A1. C0 C1 C2."},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        host_nic h;
        nic_params p = {.policy = cases[k].policy, .mtu_bytes = 1500};
        nic_init(&h, 4, &p, cases[k].classes);
        net_msg ms[3] = {mk(0, 0, 3000, 1), mk(1, 0, 1000, 1), mk(2, 0, 4000, 0)};
        for (int i = 0; i < 3; i++)
            nic_push(&h, &ms[i]);
        char got[128];
        pop_order(&h, ms, got, sizeof got);
        ck_assert_msg(strcmp(got, cases[k].want) == 0, "%s (classes %d): %s, expected %s",
                      nic_policy_names[cases[k].policy], cases[k].classes, got, cases[k].want);
        ck_assert_uint_eq(h.live_pkts, 0);
        ck_assert_uint_eq(h.node[0].active, 0);
        nic_fini(&h);
    }
}
END_TEST

/* nic_peek_bytes says what the next nic_pop cuts, under every policy, with
 * and without classes, while messages keep arriving between the cuts
 * (round-robin's rotation included); nic_take cuts the same packets as
 * nic_pop, without a record. A hand case first: round-robin, mtu 1500, A =
 * 3000 B, B = 1000 B: A0 (1500) is cut, then B's 1000 comes next (A goes
 * to the back), then A's last 1500. */
START_TEST(test_nic_peek)
{
    host_nic h;
    nic_params p = {.policy = NIC_ROUND_ROBIN, .mtu_bytes = 1500};
    nic_init(&h, 1, &p, 0);
    ck_assert_int_eq(nic_peek_bytes(&h, 0), -1);
    net_msg ab[2] = {mk(0, 0, 3000, 1), mk(1, 0, 1000, 1)};
    nic_push(&h, &ab[0]);
    nic_push(&h, &ab[1]);
    static const int64_t want[] = {1500, 1000, 1500};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(nic_peek_bytes(&h, 0), want[i]);
        nic_piece pc;
        ck_assert_int_eq(nic_take(&h, 0, 0, &pc), 1);
        ck_assert_uint_eq(pc.bytes, (uint64_t)want[i]);
        ck_assert_ptr_eq(pc.msg, &ab[i == 1]);
    }
    ck_assert_int_eq(nic_peek_bytes(&h, 0), -1);
    nic_fini(&h);

    enum { M = 400 };
    net_msg *ms = calloc(2 * M, sizeof *ms);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    for (int pol = NIC_FIFO; pol <= NIC_SRPT; pol++)
        for (int cl = 0; cl < 2; cl++) {
            host_nic a, b;
            nic_params q = {.policy = pol, .mtu_bytes = 1000};
            nic_init(&a, 1, &q, cl);
            nic_init(&b, 1, &q, cl);
            gsl_rng_set(g, (unsigned long)(10 * pol + cl + 1));
            size_t pushed = 0;
            uint64_t bytes_in = 0, bytes_out = 0;
            for (;;) {
                /* 0 to 2 new messages before each cut */
                unsigned k = pushed < M ? (unsigned)gsl_rng_uniform_int(g, 3) : 0;
                for (unsigned j = 0; j < k && pushed < M; j++, pushed++) {
                    uint64_t sz = gsl_rng_uniform_int(g, 5) == 0 ? 0 : gsl_rng_uniform_int(g, 4500);
                    uint8_t pr = (uint8_t)gsl_rng_uniform_int(g, NET_PRIO_CLASSES);
                    ms[pushed] = mk(pushed, 0, sz, pr);
                    ms[M + pushed] = ms[pushed];
                    nic_push(&a, &ms[pushed]);
                    nic_push(&b, &ms[M + pushed]);
                    bytes_in += sz;
                }
                int64_t peek = nic_peek_bytes(&a, 0);
                nic_pkt *pk = nic_pop(&a, 0, 0);
                nic_piece pc;
                int got = nic_take(&b, 0, 0, &pc);
                if (!pk) {
                    ck_assert_int_eq(peek, -1);
                    ck_assert_int_eq(got, 0);
                    if (pushed == M)
                        break;
                    continue;
                }
                REQUIRE(peek == (int64_t)pk->bytes, "%s classes %d: peek %lld, cut %llu", nic_policy_names[pol], cl,
                        (long long)peek, (unsigned long long)pk->bytes);
                REQUIRE(got && pc.msg - ms == M + (pk->msg - ms) && pc.bytes == pk->bytes && pc.seq == pk->seq &&
                            pc.last == pk->last && pc.left_bytes == pk->left_bytes && pc.prio == pk->prio,
                        "%s classes %d: nic_take differs from nic_pop", nic_policy_names[pol], cl);
                bytes_out += pk->bytes;
                nic_pkt_free(&a, pk);
            }
            ck_assert_uint_eq(bytes_out, bytes_in);
            ck_assert_uint_eq(a.live_pkts, 0);
            ck_assert_uint_eq(b.live_pkts, 0);
            ck_assert_uint_eq(a.node[0].active, 0);
            nic_fini(&a);
            nic_fini(&b);
        }
    gsl_rng_free(g);
    free(ms);
}
END_TEST

/* nic_alone / nic_take_alone: a message that is alone at its node and one
 * packet is cut whole, and push + take of it leaves the NIC as it was but
 * for the packet count. By hand (mtu 1000): 1000 B on an empty node is
 * alone, 1001 B is two packets (not), a 0-byte message is one empty packet;
 * beside an active message, or with a paused class, nothing is alone; mtu 0
 * keeps every message whole. Then random sequences under every policy,
 * with and without classes: NIC a always pushes and takes, NIC b takes
 * alone whenever nic_alone says so; the pieces and every node field agree
 * at every step. */
START_TEST(test_nic_alone)
{
    host_nic h;
    nic_params p = {.policy = NIC_FIFO, .mtu_bytes = 1000};
    nic_init(&h, 2, &p, 0);
    net_msg a = mk(0, 0, 1000, 0), b = mk(1, 0, 1001, 0), z = mk(2, 0, 0, 0), o = mk(3, 1, 10, 0);
    ck_assert_int_eq(nic_alone(&h, &a), 1);
    ck_assert_int_eq(nic_alone(&h, &b), 0);
    ck_assert_int_eq(nic_alone(&h, &z), 1);
    nic_piece pc;
    nic_take_alone(&h, &z, &pc);
    ck_assert(pc.msg == &z && pc.bytes == 0 && pc.seq == 0 && pc.last == 1);
    ck_assert_uint_eq(h.packets, 1);
    nic_push(&h, &b);
    ck_assert_int_eq(nic_alone(&h, &a), 0); /* b is active at node 0 */
    ck_assert_int_eq(nic_alone(&h, &o), 1); /* node 1 is empty */
    nic_hold(&h, 1, 0, 1);
    ck_assert_int_eq(nic_alone(&h, &o), 0); /* node 1's class is paused */
    nic_fini(&h);
    p.mtu_bytes = 0;
    nic_init(&h, 1, &p, 0);
    ck_assert_int_eq(nic_alone(&h, &b), 1);
    nic_fini(&h);

    enum { M = 400 };
    net_msg *ms = calloc(2 * M, sizeof *ms);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    for (int pol = NIC_FIFO; pol <= NIC_SRPT; pol++)
        for (int cl = 0; cl < 2; cl++) {
            host_nic x, y;
            nic_params q = {.policy = pol, .mtu_bytes = 1000};
            nic_init(&x, 1, &q, cl);
            nic_init(&y, 1, &q, cl);
            gsl_rng_set(g, (unsigned long)(10 * pol + cl + 101));
            unsigned alone = 0;
            for (size_t i = 0; i < M; i++) {
                uint64_t sz = gsl_rng_uniform_int(g, 3) == 0 ? gsl_rng_uniform_int(g, 3000) : gsl_rng_uniform_int(g, 1001);
                ms[i] = mk(i, 0, sz, (uint8_t)gsl_rng_uniform_int(g, NET_PRIO_CLASSES));
                ms[M + i] = ms[i];
                /* hand over, then cut 0 to 3 packets */
                unsigned cuts = (unsigned)gsl_rng_uniform_int(g, 4);
                nic_piece px, py;
                nic_push(&x, &ms[i]);
                int took = 0;
                if (cuts && nic_alone(&y, &ms[M + i])) {
                    nic_take_alone(&y, &ms[M + i], &py);
                    ck_assert_int_eq(nic_take(&x, 0, 0, &px), 1);
                    took = 1;
                    alone++;
                } else
                    nic_push(&y, &ms[M + i]);
                for (unsigned c = took; c < cuts; c++) {
                    int gx = nic_take(&x, 0, 0, &px), gy = nic_take(&y, 0, 0, &py);
                    REQUIRE(gx == gy, "%s classes %d: take %d and %d", nic_policy_names[pol], cl, gx, gy);
                    if (!gx)
                        break;
                    REQUIRE(py.msg - ms == M + (px.msg - ms) && px.bytes == py.bytes && px.seq == py.seq &&
                                px.last == py.last && px.left_bytes == py.left_bytes && px.prio == py.prio,
                            "%s classes %d: pieces differ", nic_policy_names[pol], cl);
                }
                if (took)
                    REQUIRE(py.msg - ms == M + (px.msg - ms) && px.bytes == py.bytes && px.seq == py.seq &&
                                px.last == py.last && px.left_bytes == py.left_bytes && px.prio == py.prio,
                            "%s classes %d: the alone piece differs", nic_policy_names[pol], cl);
                REQUIRE(x.node[0].mask == y.node[0].mask && x.node[0].active == y.node[0].active &&
                            x.node[0].qbytes == y.node[0].qbytes && x.packets == y.packets,
                        "%s classes %d: the NICs differ after message %zu", nic_policy_names[pol], cl, i);
            }
            ck_assert_uint_gt(alone, 20);
            nic_fini(&x);
            nic_fini(&y);
        }
    gsl_rng_free(g);
    free(ms);
}
END_TEST

/* SRPT ties go to the earlier hand-over; a 0-byte message is one empty
 * packet; mtu 0 keeps a message whole; 8 classes are served in order. */
START_TEST(test_nic_edges)
{
    host_nic h;
    nic_params p = {.policy = NIC_SRPT, .mtu_bytes = 1500};
    nic_init(&h, 2, &p, 0);
    net_msg ms[3] = {mk(5, 0, 2000, 1), mk(3, 0, 2000, 1), mk(9, 0, 0, 1)};
    for (int i = 0; i < 3; i++)
        nic_push(&h, &ms[i]);
    char got[128];
    pop_order(&h, ms, got, sizeof got);
    /* C (0 B) first; A and B tie at 2000 B: B has the lower id. After B0
     * (1500 B), B has 500 left < 2000: B finishes first. */
    ck_assert_str_eq(got, "C0. B0 B1. A0 A1.");
    nic_fini(&h);

    p = (nic_params){.policy = NIC_FIFO, .mtu_bytes = 0};
    nic_init(&h, 2, &p, 0);
    net_msg big = mk(0, 0, 1000000, 1);
    nic_push(&h, &big);
    nic_pkt *pk = nic_pop(&h, 0, 0);
    ck_assert_uint_eq(pk->bytes, 1000000);
    ck_assert_uint_eq(pk->last, 1);
    nic_pkt_free(&h, pk);
    nic_fini(&h);

    p = (nic_params){.policy = NIC_PRIORITY, .mtu_bytes = 100};
    nic_init(&h, 2, &p, 0);
    net_msg cl[8];
    for (int c = 0; c < 8; c++) {
        cl[c] = mk((uint64_t)c, 0, 100, (uint8_t)(7 - c)); /* handed over from class 7 down to 0 */
        nic_push(&h, &cl[c]);
    }
    for (int c = 0; c < 8; c++) {
        pk = nic_pop(&h, 0, 0);
        ck_assert_uint_eq(pk->prio, (unsigned)c);
        nic_pkt_free(&h, pk);
    }
    ck_assert_ptr_null(nic_pop(&h, 0, 0));
    nic_fini(&h);

    /* K and the time alone on the uplink */
    net_rate r;
    net_rate_init(&r, B10);
    ck_assert_uint_eq(nic_packets(15000, 1500), 10);
    ck_assert_uint_eq(nic_packets(15001, 1500), 11);
    ck_assert_uint_eq(nic_packets(0, 1500), 1);
    ck_assert_uint_eq(nic_packets(15000, 0), 1);
    ck_assert_int_eq(nic_ser_ps(&r, 15001, 1500), 10 * PKT + 800);
    ck_assert_int_eq(nic_max_packet_ser_ps(&r, 15001, 1500), PKT);
    ck_assert_int_eq(nic_max_packet_ser_ps(&r, 1000, 1500), 800000);
}
END_TEST

/* --------------------------------------------------- inside the fabrics */

static th_net *sw(uint32_t n, const char *policy, const char *mtu, const char *prio, size_t cap)
{
    net_params core = th_star(n, B10);
    char a[64], b[64], c[64];
    snprintf(a, sizeof a, "network.host-scheduling=%s", policy);
    snprintf(b, sizeof b, "network.mtu=%s", mtu);
    snprintf(c, sizeof c, "network.priority=%s", prio);
    const char *sets[] = {a, b, c, NULL};
    return th_net_new("electrical-switch", &core, sets, NULL, 1, cap);
}

/* A message alone, in packets: 15 000 B at mtu 1500 is 10 packets back to
 * back on the uplink, each cut through the switch as it arrives:
 * 10 x 1.2 us + 240 ns = 12 240 000 ps; 15 001 B adds a 1-B packet (800 ps).
 * Store-and-forward: the last packet waits for the one before it to leave
 * the port, so the largest packet's ser is paid once more: + 1 200 000. */
START_TEST(test_switch_packets_alone)
{
    static const char *const pol[] = {"fifo", "round-robin", "priority", "srpt"};
    for (int k = 0; k < 4; k++)
        for (int saf = 0; saf < 2; saf++) {
            net_params core = th_star(4, B10);
            char a[64];
            snprintf(a, sizeof a, "network.host-scheduling=%s", pol[k]);
            const char *sets[] = {a, "network.mtu=1500B", saf ? "network.switching=store-and-forward" : NULL, NULL};
            th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
            net_msg *m = th_at_low(h, 0, 0, 3, 15000);
            net_msg *m2 = th_at_low(h, 100000000, 1, 2, 15001);
            th_net_go(h);
            ck_delivered_at(m, 10 * PKT + FIX + saf * PKT);
            ck_delivered_at(m2, 100000000 + 10 * PKT + 800 + FIX + saf * PKT);
            ck_assert_int_eq(net_zero_load_ps(h->n, 0, 3, 15000), 10 * PKT + FIX + saf * PKT);
            th_net_free(h);
        }
}
END_TEST

/* Two equal flows (15 000 B = 10 packets) from node 0, A to node 2 handed
 * over just before B to node 3, both at t = 0.
 * round-robin: A0 starts at once (the uplink was idle), B0 next, then A1,
 * B1, ...: A's last packet is the 19th on the uplink (ends 19 x 1.2 us),
 * B's the 20th: A at 22.8 us + 240 ns = 23 040 000, B at 24 240 000: both
 * about twice one flow alone (12.24 us), B exactly 2 x 12 us + 240 ns.
 * fifo: A at 12 240 000, B after it at 24 240 000. */
START_TEST(test_round_robin_two_flows)
{
    for (int rr = 0; rr < 2; rr++) {
        th_net *h = sw(4, rr ? "round-robin" : "fifo", "1500B", "fifo", 4);
        net_msg *a = th_at_low(h, 0, 0, 2, 15000);
        net_msg *b = th_at_low(h, 0, 0, 3, 15000);
        th_net_go(h);
        if (rr) {
            ck_delivered_at(a, 19 * PKT + FIX);
            ck_delivered_at(b, 20 * PKT + FIX);
        } else {
            ck_delivered_at(a, 10 * PKT + FIX);
            ck_delivered_at(b, 20 * PKT + FIX);
        }
        th_net_free(h);
    }
    /* the same to one destination: the port sees the packets in the order
     * they left the uplink, back to back, so the times are the same */
    th_net *h = sw(4, "round-robin", "1500B", "fifo", 4);
    net_msg *a = th_at_low(h, 0, 0, 2, 15000);
    net_msg *b = th_at_low(h, 0, 0, 2, 15000);
    th_net_go(h);
    ck_delivered_at(a, 19 * PKT + FIX);
    ck_delivered_at(b, 20 * PKT + FIX);
    th_net_free(h);
}
END_TEST

/* A big flow A (150 000 B = 100 packets) from node 0 at t = 0, a small one
 * S (3000 B = 2 packets) from node 0 at 10 us. At 10 us A's 9th packet (A8)
 * is on the wire, 9.6 - 10.8 us.
 *   srpt: S (3000 B left) beats A (91 x 1500 left): S0 10.8-12.0, S1
 *     12.0-13.2, S delivered 13.44 us; A's 91 other packets 13.2-122.4,
 *     delivered 122.64 us: the small flow first.
 *   round-robin: S0 10.8-12.0, A9 12.0-13.2, S1 13.2-14.4: S at 14.64 us.
 *   fifo: S waits for all of A (A at 120.24 us): S 120-122.4, at 122.64 us. */
START_TEST(test_srpt_small_first)
{
    static const struct {
        const char *policy;
        int64_t s_ps, a_ps;
    } cases[] = {
        {"srpt", 13200000 + FIX, 122400000 + FIX},
        {"round-robin", 14400000 + FIX, 122400000 + FIX},
        {"fifo", 122400000 + FIX, 120000000 + FIX},
    };
    for (size_t k = 0; k < 3; k++) {
        th_net *h = sw(4, cases[k].policy, "1500B", "fifo", 4);
        net_msg *a = th_at_low(h, 0, 0, 2, 150000);
        net_msg *s = th_at_low(h, 10000000, 0, 3, 3000);
        th_net_go(h);
        ck_delivered_at(s, cases[k].s_ps);
        ck_delivered_at(a, cases[k].a_ps);
        if (k == 0)
            ck_assert_int_lt((int64_t)s->b, (int64_t)a->b);
        th_net_free(h);
    }
}
END_TEST

/* pFabric ports (host-scheduling srpt): B (45 000 B = 30 packets) from node 0
 * to 2 at t = 0, S (3000 B = 2 packets) from node 1 to 2 at 5 us. B_k
 * holds port 2 over [0.22 + 1.2k, 1.42 + 1.2k] us. S0 reaches the port at
 * 5.22 while B4 holds it until 6.22, and goes first then (its message has
 * 3000 B left to cross the port, B's 39 000 B); B5, arriving at 6.22, waits;
 * S1 arrives at 6.42 and passes B5 at 7.42: S delivered 8.62 + 0.02 =
 * 8.64 us. With round-robin hosts the port is FIFO: S0 6.22-7.42, B5
 * 7.42-8.62, S1 8.62-9.82: S at 9.84 us. B's last packet leaves the port
 * after all 32 packets, back to back from 0.22 us: 38.62 us, delivered
 * 38.64 us either way. Then a backlog: two 45 000-B flows from nodes 0 and
 * 1 to node 2 at t = 0 queue 30 packets at the port by 36 us; S from node 3
 * at 20 us (2 packets) passes that backlog: S0 waits only for the packet on
 * the wire. */
START_TEST(test_srpt_port)
{
    for (int srpt = 0; srpt < 2; srpt++) {
        th_net *h = sw(4, srpt ? "srpt" : "round-robin", "1500B", "fifo", 4);
        net_msg *b = th_at_low(h, 0, 0, 2, 45000);
        net_msg *sm = th_at_low(h, 5000000, 1, 2, 3000);
        th_net_go(h);
        ck_delivered_at(sm, srpt ? 8640000 : 9840000);
        ck_delivered_at(b, 38640000);
        th_net_free(h);
    }
    /* the backlog: B1_k, B2_k both reach port 2 at 0.22 + 1.2k us, so the
     * port runs back to back from 0.22; at 20.22 us (S0's arrival) the
     * packet on the wire ends at 20.22 + 1.2 j for some j, and S0 goes
     * right after it: S is delivered by 20.22 + 1.2 + 2 x 1.2 + 0.02 us
     * at the latest (both of its packets each behind at most one packet
     * on the wire), long before the backlog of about 16 packets drains. */
    th_net *h = sw(4, "srpt", "1500B", "fifo", 4);
    net_msg *b1 = th_at_low(h, 0, 0, 2, 45000);
    net_msg *b2 = th_at_low(h, 0, 1, 2, 45000);
    net_msg *sm = th_at_low(h, 20000000, 3, 2, 3000);
    th_net_go(h);
    ck_assert_int_le((int64_t)sm->b, 20220000 + 3 * PKT + 20000 + PKT);
    /* 62 packets through the port, back to back from 0.22 us */
    ck_assert_int_eq((int64_t)(b1->b > b2->b ? b1->b : b2->b), 220000 + 62 * (int64_t)PKT + 20000);
    th_net_free(h);
}
END_TEST

/* Classes at the NIC and at the output port. L (class 1, 15 000 B) from
 * node 0 to 2 at t = 0; H (class 0, 3000 B = 2 packets) from node 1 to 2 at
 * 2 us. L_k reaches port 2 at 0.22 + 1.2k us and holds it 1.2 us.
 *   priority (classes on): H0 reaches the port at 2.22 while L1 holds it
 *     until 2.62; at 2.62 H0 goes first (L2 arrives then too and waits),
 *     H1 (at the port 3.42) passes L2 at 3.82: H delivered 5.02 + 0.02 =
 *     5.04 us (fct 3.04 us); the port is busy back to back from 0.22 with
 *     12 packets: L's last leaves at 14.62, delivered 14.64 us.
 *   round-robin without classes: FIFO port in head-arrival order: H0
 *     2.62-3.82, L2 3.82-5.02, H1 (arrived 3.42) 5.02-6.22: H at 6.24 us,
 *     L still at 14.64 us. */
START_TEST(test_priority_at_port)
{
    for (int pr = 0; pr < 2; pr++) {
        /* network.priority's default follows host-scheduling: strict ports with priority */
        th_net *h = sw(4, pr ? "priority" : "round-robin", "1500B", "default", 4);
        net_msg *l = th_at(h, 0, 0, 2, 15000, 1, NET_DATA);
        net_msg *hi = th_at(h, 2000000, 1, 2, 3000, 0, NET_DATA);
        th_net_go(h);
        ck_delivered_at(hi, pr ? 5040000 : 6240000);
        ck_delivered_at(l, 14640000);
        th_net_free(h);
    }
    /* network.priority=strict with a fifo NIC gives the same port order */
    th_net *h = sw(4, "fifo", "1500B", "strict", 4);
    net_msg *l = th_at(h, 0, 0, 2, 15000, 1, NET_DATA);
    net_msg *hi = th_at(h, 2000000, 1, 2, 3000, 0, NET_DATA);
    th_net_go(h);
    ck_delivered_at(hi, 5040000);
    ck_delivered_at(l, 14640000);
    th_net_free(h);
    /* an explicit network.priority=fifo is honoured under host-scheduling
     * priority: the hosts serve by class (each has one message here), the
     * port in head-arrival order: the round-robin case's 6.24 us above */
    h = sw(4, "priority", "1500B", "fifo", 4);
    l = th_at(h, 0, 0, 2, 15000, 1, NET_DATA);
    hi = th_at(h, 2000000, 1, 2, 3000, 0, NET_DATA);
    th_net_go(h);
    ck_delivered_at(hi, 6240000);
    ck_delivered_at(l, 14640000);
    th_net_free(h);
}
END_TEST

/* Eight classes at a message-level port (network.priority=strict, mtu 0):
 * node 1 holds port 9 with a 10 000-B message (8 us from 0.22 us); seven
 * 1000-B messages of classes 7, 6, ..., 1 from nodes 2..8 reach it at
 * 1.22 us (handed over at 1 us, in that order). They leave by class, 1
 * first, when the port frees at 8.22 us: class c starts at
 * 8.22 + 0.8 (c - 1) us and is delivered 0.8 + 0.02 us later. */
START_TEST(test_eight_classes_at_port)
{
    net_params core = th_star(10, B10);
    const char *sets[] = {"network.priority=strict", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 8);
    net_msg *first = th_at(h, 0, 1, 9, 10000, 7, NET_DATA);
    net_msg *m[8];
    for (int c = 7; c >= 1; c--)
        m[c] = th_at(h, 1000000, (uint32_t)(9 - c), 9, 1000, (uint8_t)c, NET_DATA);
    th_net_go(h);
    ck_delivered_at(first, 8240000);
    for (int c = 1; c <= 7; c++)
        ck_delivered_at(m[c], 8220000 + 800000 * (int64_t)(c - 1) + 820000);
    th_net_free(h);
}
END_TEST

/* The ideal fabric with shared uplinks: the round-robin case above without
 * a port (the same times, since the port never delayed anything), and
 * unlimited hosts refuse NIC settings they would ignore. */
START_TEST(test_ideal_shared)
{
    net_params core = th_star(4, B10);
    const char *sets[] = {"network.host-link=shared", "network.host-scheduling=round-robin", "network.mtu=1500B",
                          NULL};
    th_net *h = th_net_new("ideal", &core, sets, NULL, 1, 4);
    net_msg *a = th_at_low(h, 0, 0, 2, 15000);
    net_msg *b = th_at_low(h, 0, 0, 2, 15000);
    net_msg *c = th_at_low(h, 0, 1, 2, 15000); /* its own uplink: alone */
    th_net_go(h);
    ck_delivered_at(a, 19 * PKT + FIX);
    ck_delivered_at(b, 20 * PKT + FIX);
    ck_delivered_at(c, 10 * PKT + FIX);
    th_net_free(h);
    char err[512];
    const char *bad[] = {"network.host-scheduling=srpt", NULL};
    ck_assert_ptr_null(th_net_try("ideal", &core, bad, NULL, 1, 1, err, sizeof err));
    ck_assert_msg(strstr(err, "network.host-scheduling") != NULL, "%s", err);
    const char *bad2[] = {"network.mtu=1500B", NULL};
    ck_assert_ptr_null(th_net_try("ideal", &core, bad2, NULL, 1, 1, err, sizeof err));
    ck_assert_msg(strstr(err, "network.mtu") != NULL, "%s", err);
}
END_TEST

/* SPINet's edge FIFO by class: two 100-kB low messages (100 packets of
 * 1 kB each) from node 0, then a 2-kB high one at 1 us. priority: H is
 * cut as soon as the current packet's hold ends, so it arrives long before
 * the first low message ends; fifo: after both. srpt too (2 kB left beats
 * the rest of L1). A buffer is refused with a policy other than fifo. */
START_TEST(test_spinet_edge_classes)
{
    net_params core = th_star(8, B10);
    for (int k = 0; k < 3; k++) {
        const char *pol = k == 0 ? "network.host-scheduling=fifo"
                          : k == 1 ? "network.host-scheduling=priority"
                                   : "network.host-scheduling=srpt";
        const char *sets[] = {pol, NULL};
        th_net *h = th_net_new("spinet", &core, sets, NULL, 1, 4);
        net_msg *l1 = th_at(h, 0, 0, 5, 100000, 1, NET_DATA);
        net_msg *l2 = th_at(h, 0, 0, 6, 100000, 1, NET_DATA);
        net_msg *hi = th_at(h, 1000000, 0, 7, 2000, 0, NET_DATA);
        th_net_go(h);
        ck_assert_uint_eq(l1->a, 1);
        ck_assert_uint_eq(l2->a, 1);
        ck_assert_uint_eq(hi->a, 1);
        if (k == 0)
            ck_assert_uint_gt(hi->b, l2->b);
        else
            ck_assert_uint_lt(hi->b, l1->b);
        th_net_free(h);
    }
    char err[512];
    const char *bad[] = {"network.host-scheduling=round-robin", "network.buffer=1MB", NULL};
    ck_assert_ptr_null(th_net_try("spinet", &core, bad, NULL, 1, 1, err, sizeof err));
    ck_assert_msg(strstr(err, "network.buffer") != NULL, "%s", err);
}
END_TEST

/* ------------------------------------------------------ random mixes */

enum { MIX = 2000 };

/* Random pairs, sizes 0..40 kB, classes 0..7, near saturation: every
 * message delivered exactly once, bytes conserved, never faster than its
 * own zero-load time, every packet returned to the NIC's pool; the same
 * seed gives the same times. */
static int64_t mix(const char *fabric, const char *const *sets, uint32_t N, uint64_t seed)
{
    net_params core = th_star(N, B10);
    th_net *h = th_net_new(fabric, &core, sets, NULL, 1, MIX);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, seed);
    int64_t window = (int64_t)(MIX * 20e3 * 8 / (N * B10) * 1e12);
    net_msg **ms = malloc(MIX * sizeof *ms);
    int64_t *t0 = malloc(MIX * sizeof *t0);
    uint64_t bytes = 0;
    for (size_t i = 0; i < MIX; i++) {
        t0[i] = (int64_t)gsl_rng_uniform_int(g, (unsigned long)window);
        uint32_t src = (uint32_t)gsl_rng_uniform_int(g, N);
        uint32_t dst = (uint32_t)((src + 1 + gsl_rng_uniform_int(g, N - 1)) % N);
        uint64_t size = gsl_rng_uniform(g) < 0.2 ? gsl_rng_uniform_int(g, 3) : gsl_rng_uniform_int(g, 40001);
        bytes += size;
        ms[i] = th_at(h, t0[i], src, dst, size, (uint8_t)gsl_rng_uniform_int(g, NET_PRIO_CLASSES), NET_DATA);
    }
    th_net_go(h);
    ck_assert_uint_eq(h->nrec, MIX);
    int64_t sum = 0;
    for (size_t i = 0; i < MIX; i++) {
        ck_assert_msg(ms[i]->a == 1, "%s: message %zu delivered %llu times", fabric, i,
                      (unsigned long long)ms[i]->a);
        int64_t took = (int64_t)ms[i]->b - t0[i];
        ck_assert_msg(took >= net_zero_load_ps(h->n, ms[i]->src, ms[i]->dst, ms[i]->size_bytes),
                      "%s: message %zu faster than alone", fabric, i);
        sum += took;
    }
    ck_assert_uint_eq(h->bytes, bytes);
    ck_assert_uint_eq(h->n->c.bytes_delivered, bytes);
    free(ms);
    free(t0);
    gsl_rng_free(g);
    th_net_free(h);
    return sum;
}

START_TEST(test_random_mixes)
{
    static const char *const pol[] = {"network.host-scheduling=fifo", "network.host-scheduling=round-robin",
                                      "network.host-scheduling=priority", "network.host-scheduling=srpt"};
    for (int k = 0; k < 4; k++) {
        const char *s1[] = {pol[k], "network.mtu=1500B", NULL};
        const char *s2[] = {pol[k], "network.mtu=4kB", "network.priority=strict",
                            "network.switching=store-and-forward", NULL};
        const char *s3[] = {pol[k], "network.mtu=1500B", "network.host-link=shared", NULL};
        const char *s4[] = {pol[k], NULL};
        ck_assert_int_eq(mix("electrical-switch", s1, 16, 7), mix("electrical-switch", s1, 16, 7));
        mix("electrical-switch", s2, 16, 8);
        ck_assert_int_eq(mix("ideal", s3, 16, 9), mix("ideal", s3, 16, 9));
        ck_assert_int_eq(mix("spinet", s4, 16, 10), mix("spinet", s4, 16, 10));
    }
}
END_TEST

static Suite *host_nic_suite(void)
{
    Suite *s = suite_create("host_nic");
    TCase *t = tcase_create("nic");
    tcase_add_test(t, test_nic_policies);
    tcase_add_test(t, test_nic_edges);
    tcase_add_test(t, test_nic_peek);
    tcase_add_test(t, test_nic_alone);
    suite_add_tcase(s, t);
    t = tcase_create("fabrics");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_switch_packets_alone);
    tcase_add_test(t, test_round_robin_two_flows);
    tcase_add_test(t, test_srpt_small_first);
    tcase_add_test(t, test_srpt_port);
    tcase_add_test(t, test_priority_at_port);
    tcase_add_test(t, test_eight_classes_at_port);
    tcase_add_test(t, test_ideal_shared);
    tcase_add_test(t, test_spinet_edge_classes);
    tcase_add_test(t, test_random_mixes);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(host_nic_suite)
