/* The host transport (networks/transport.[ch], tp_tcp.c, tp_dctcp.c) over
 * the electrical switch's finite, ECN-marking output buffers
 * (networks/port.[ch]), with numbers worked by hand.
 *
 * The star of these tests: B = 10 Gb/s (1 B = 800 ps), links 10 us, no
 * switch latency, cut-through, mss 1460 B + 40 B header: a data segment is
 * 1500 B, ser 1 200 000 ps; an ACK is 40 B, ser 32 000 ps. A segment whose
 * first bit leaves its host at t reaches the receiver (last bit) at
 * t + 10 us + 1.2 us + 10 us = t + 21.2 us (switch.c head: head at the port
 * link + sw after t, port busy ser, a link to dst); its ACK, sent at once
 * (delayed-ack 1), reaches the sender 10 us + 0.032 us + 10 us later: one
 * round trip RTT = 41.232 us from the segment's first bit, 41 232 000 ps.
 * Pipe: C x RTT = 41.232 / 1.2 = 34.36 segments, so the window that fills
 * it is W* = 35 segments. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "harness.h"
#include "iqrouter.h"
#include "network.h"
#include "swnet.h"
#include "transport.h"

#define MSS 1460
#define SER 1200000          /* ps: a 1500-B segment at 10 Gb/s */
#define RTT 41232000         /* ps: see the head */
#define ONE_WAY 21200000     /* ps: first bit out to last bit in, a data segment */

#define REQUIRE(cond, ...)                                                                                         \
    do {                                                                                                           \
        if (!(cond))                                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                                             \
    } while (0)

static net_params star(uint32_t nodes)
{
    net_params p = th_star(nodes, 10e9);
    p.link_latency_ps = 10000000;
    p.switch_latency_ps = 0;
    return p;
}

static tp_params tparams(const char *type)
{
    tp_params p = {0};
    for (int i = 0; tp_names[i]; i++)
        if (strcmp(tp_names[i], type) == 0)
            p.type = i;
    p.init_cwnd = 10;
    p.min_rto_ps = 10000000000;  /* 10 ms */
    p.init_rto_ps = 1000000000000; /* 1 s */
    p.delayed_ack = 1;
    p.delack_timeout_ps = 200000000000;
    p.mss_bytes = MSS;
    p.header_bytes = 40;
    p.g = 1.0 / 16;
    p.dcqcn_g = 1.0 / 256;
    p.alpha_interval_ps = 1000000;
    p.decrease_interval_ps = 4000000;
    p.increase_timer_ps = 300000000;
    p.fast_recovery = 1;
    p.min_rate_bps = 1e9;
    p.cnp_interval_ps = 50000000;
    return p;
}

static tp_inst *attach(th_net *h, const tp_params *p)
{
    tp_inst *t = tp_create(h->n, p);
    ck_assert_ptr_nonnull(t);
    net_set_transport(h->n, t);
    return t;
}

/* ---- a probe recording the sender's window after every ACK ---- */

#define MAXREC 100000
typedef struct rec {
    size_t n;
    int64_t t[MAXREC];
    uint64_t cwnd[MAXREC], ssthresh[MAXREC];
    int ev[MAXREC];
    sim *s;
} rec;

static void probe(void *ctx, const tp_flow *f, int ev)
{
    rec *r = ctx;
    if (r->n < MAXREC) {
        r->t[r->n] = sim_now(r->s);
        r->cwnd[r->n] = f->cwnd;
        r->ssthresh[r->n] = f->ssthresh;
        r->ev[r->n] = ev;
        r->n++;
    }
}

/* Slow start: 10 segments in the first round trip, each ACK adds a segment
 * (ns-3's NewReno; RFC 5681 3.1), so the window doubles every RTT: 10 ->
 * 20 -> 40. It first covers the pipe (35 segments) on the 25th ACK, the
 * 15th of the second round. Times: round 1's segments k = 0..9 leave at k
 * SER and are acked at RTT + k SER; each ACK lets 2 segments go, faster
 * than the uplink drains them, so round 2's segments 10 + j leave back to
 * back from the first ACK: at RTT + j SER, acked at 2 RTT + j SER. The 25th
 * ACK is segment 24's (j = 14): 2 x 41.232 + 14 x 1.2 = 99.264 us. The
 * 10th ACK (end of round 1) finds 20 segments: RTT + 9 SER = 52.032 us. */
START_TEST(test_slow_start)
{
    net_params core = star(2);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    tp_params tp = tparams("tcp");
    tp_inst *t = attach(h, &tp);
    static rec r;
    memset(&r, 0, sizeof r);
    r.s = h->s;
    tp_set_probe(t, probe, &r);
    net_msg *m = th_at_low(h, 0, 0, 1, 200 * MSS);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    ck_assert_uint_ge(r.n, 25);
    ck_assert_uint_eq(r.cwnd[9], 20 * MSS);
    ck_assert_int_eq(r.t[9], RTT + 9 * SER);
    size_t k = 0;
    while (k < r.n && r.cwnd[k] < 35 * MSS)
        k++;
    ck_assert_uint_eq(k, 24); /* the 25th ACK */
    ck_assert_int_eq(r.t[k], 2 * RTT + 14 * SER);
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_eq(c.retransmissions, 0);
    ck_assert_uint_eq(c.timeouts, 0);
    th_net_free(h);
}
END_TEST

/* One drop, recovered by fast retransmit: segment 30 is lost on its first
 * transmission. Segments 0..29 are acked in slow start (cwnd 10 + 30 = 40
 * segments once ack 30 arrives, with una = 30 and segments up to 69 sent:
 * max = 70). Segments 31, 32, 33 bring three duplicate ACKs (no new data
 * sent meanwhile): FlightSize = 70 - 30 = 40 segments, so ssthresh = 40 x
 * 1460 / 2 = 20 segments (RFC 5681 eq. 4), cwnd = ssthresh + 3 = 23
 * segments, and after the full ACK cwnd = ssthresh = 20 segments: the
 * window halved (40 -> 20). One retransmission, no timeout. */
START_TEST(test_fast_retransmit)
{
    net_params core = star(2);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    tp_params tp = tparams("tcp");
    tp_inst *t = attach(h, &tp);
    static rec r;
    memset(&r, 0, sizeof r);
    r.s = h->s;
    tp_set_probe(t, probe, &r);
    uint32_t lost = 30;
    tp_set_loss(t, &lost, 1);
    net_msg *m = th_at_low(h, 0, 0, 1, 200 * MSS);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    size_t k = 0;
    while (k < r.n && r.ev[k] != TP_EV_FAST_RETRANSMIT)
        k++;
    ck_assert_uint_lt(k, r.n);
    ck_assert_uint_eq(r.cwnd[k - 1], 40 * MSS); /* the window when the loss was found */
    ck_assert_uint_eq(r.ssthresh[k], 20 * MSS);
    ck_assert_uint_eq(r.cwnd[k], 23 * MSS);
    /* the full ACK ends recovery at ssthresh */
    size_t j = k + 1;
    while (j < r.n && r.cwnd[j] != 20 * MSS)
        j++;
    ck_assert_uint_lt(j, r.n);
    ck_assert_uint_eq(r.ssthresh[j], 20 * MSS);
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_eq(c.fast_retransmits, 1);
    ck_assert_uint_eq(c.retransmissions, 1);
    ck_assert_uint_eq(c.timeouts, 0);
    th_net_free(h);
}
END_TEST

/* A tail drop: the last of 20 segments is lost, so no duplicate ACK comes
 * and only the timer recovers it. Segments 0..9 leave at k SER, 10..19 at
 * RTT + (k - 10) SER (as in slow start above); the last new ACK, segment
 * 18's, arrives at RTT + 8 SER + RTT = 92.064 us. The RTT samples (41.232
 * us) put SRTT + 4 RTTVAR far below min-rto = 10 ms, so the timer, restarted
 * by that ACK, fires at 92.064 us + 10 ms; the retransmission reaches the
 * receiver one way later and the message is delivered then:
 * 2 RTT + 8 SER + 10 ms + ONE_WAY = 10 113.264 us. */
START_TEST(test_tail_drop_rto)
{
    net_params core = star(2);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    tp_params tp = tparams("tcp");
    tp_inst *t = attach(h, &tp);
    uint32_t lost = 19;
    tp_set_loss(t, &lost, 1);
    net_msg *m = th_at_low(h, 0, 0, 1, 20 * MSS);
    th_net_go(h);
    ck_delivered_at(m, 2 * (int64_t)RTT + 8 * (int64_t)SER + tp.min_rto_ps + ONE_WAY);
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_eq(c.timeouts, 1);
    ck_assert_uint_eq(c.retransmissions, 1);
    ck_assert_uint_eq(c.fast_retransmits, 0);
    th_net_free(h);
}
END_TEST

/* Drop-tail at a real buffer: 8 senders of 1 MB to one receiver through
 * 300 kB: the port drops (drops counted by the fabric equal the segments
 * lost), every flow completes, every byte is delivered once, and the queue
 * never holds more than the buffer. */
static void sample_queue(sim *s, void *ctx, uint64_t arg);
typedef struct qs {
    th_net *h;
    int64_t from, to, every;
    double qmin, qmax, sum;
    uint64_t n;
} qs;

static void sample_queue(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    qs *q = ctx;
    net_queue_report r = {0};
    q->h->n->ops->queue_report(q->h->n->state, sim_now(s), &r);
    if (r.queue_now < q->qmin)
        q->qmin = r.queue_now;
    if (r.queue_now > q->qmax)
        q->qmax = r.queue_now;
    q->sum += r.queue_now;
    q->n++;
    if (sim_now(s) + q->every <= q->to)
        sim_schedule_at(s, sim_now(s) + q->every, sample_queue, q, 0);
}

START_TEST(test_incast_drop_tail)
{
    net_params core = star(9);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=300kB", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 16);
    tp_params tp = tparams("tcp");
    tp_inst *t = attach(h, &tp);
    net_msg *m[8];
    for (uint32_t i = 0; i < 8; i++)
        m[i] = th_at_low(h, 0, i + 1, 0, 1000000);
    th_net_go(h);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(m[i]->a, 1);
    ck_assert_uint_eq(h->bytes, 8000000);
    net_queue_report r = {0};
    ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_gt(r.drops, 0);
    ck_assert_uint_eq(r.drops, c.dropped);
    ck_assert_uint_ge(c.retransmissions, r.drops); /* every lost segment was sent again */
    ck_assert(r.queue_max <= 300000);
    ck_assert_uint_eq(c.flows_live, 0);
    th_net_free(h);
}
END_TEST

/* DCTCP with N = 2 long flows to one receiver, K = 20 packets (30 kB at
 * 1500 B; K > C x RTT / 7 = 34.4 / 7 = 4.9, so the link stays busy).
 * Alizadeh et al. (SIGCOMM 2010, sec. 3.3): the queue saw-tooths between
 * Q_max = K + N = 22 packets and Q_max - A, A = (1/2) sqrt(2 N (C RTT + K))
 * = (1/2) sqrt(4 x (34.36 + 20)) = 7.37, so Q_min = 14.63 packets. Sampled
 * every 1 us over 20..60 ms (slow start long gone): max and min within two
 * packets of them, and the receiver's link busy (goodput >= 95% of B). */
START_TEST(test_dctcp_queue)
{
    net_params core = star(3);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", "network.ecn-threshold=30kB", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    tp_params tp = tparams("dctcp");
    tp_inst *t = attach(h, &tp);
    (void)t;
    /* 2 x 50 MB: 80 ms at 10 Gb/s shared */
    net_msg *a = th_at_low(h, 0, 0, 2, 50000000);
    net_msg *b = th_at_low(h, 0, 1, 2, 50000000);
    static qs q;
    memset(&q, 0, sizeof q);
    q.h = h;
    q.from = 20000000000;
    q.to = 60000000000;
    q.every = 1000000;
    q.qmin = 1e300;
    sim_schedule_at(h->s, q.from, sample_queue, &q, 0);
    th_net_go(h);
    ck_assert_uint_eq(a->a, 1);
    ck_assert_uint_eq(b->a, 1);
    double pk = 1500.0;
    double K = 20, N = 2, crtt = (double)RTT / SER;
    double qmax = K + N, qmin = qmax - 0.5 * sqrt(2 * N * (crtt + K));
    ck_assert_msg(fabs(q.qmax / pk - qmax) <= 2, "queue max %.2f packets, Q_max %.2f", q.qmax / pk, qmax);
    ck_assert_msg(fabs(q.qmin / pk - qmin) <= 2, "queue min %.2f packets, Q_min %.2f", q.qmin / pk, qmin);
    /* both done by 100 MB / B + a few RTT: full throughput */
    int64_t last = (int64_t)(a->b > b->b ? a->b : b->b);
    ck_assert_msg(last <= (int64_t)(100e6 * 8 / 10e9 / 0.95 * 1e12), "last delivery at %lld ps", (long long)last);
    th_net_free(h);
}
END_TEST

/* PFC: hosts 0 and 1 send 1 MB each to host 2 at once, no transport (PFC
 * makes the switch lossless by itself), pfc-xoff 60 kB, pfc-xon 30 kB.
 * The port toward host 2 drains at B while both feed it at B, so each
 * sender's bytes held at the switch grow until they pass xoff; the pause
 * reaches the sender a link (10 us) later, when up to 10 us x B = 12.5 kB
 * more are on the wire toward the switch, plus the packet it had started
 * (1.5 kB), plus 10 us x B already in flight: headroom = 2 x 12.5 kB + 1.5
 * kB, so a sender's bytes never exceed 60 + 26.5 = 86.5 kB (without the
 * pause they would reach about 500 kB: half of its megabyte queues). No
 * packet is lost, and since xon (30 kB) covers the 25 kB of a pause's round
 * trip the bottleneck never idles: the last byte arrives exactly when it
 * does without flow control (2 MB behind one port either way). */
START_TEST(test_pfc_pause)
{
    net_params core = star(3);
    int64_t last[2];
    for (int pfc = 0; pfc < 2; pfc++) {
        const char *sets_pfc[] = {"network.mtu=1500B", "network.flow-control=pfc", "network.pfc-xoff=60kB",
                                  "network.pfc-xon=30kB", NULL};
        const char *sets_inf[] = {"network.mtu=1500B", NULL};
        th_net *h = th_net_new("electrical-switch", &core, pfc ? sets_pfc : sets_inf, NULL, 1, 4);
        net_msg *a = th_at_low(h, 0, 0, 2, 1000000);
        net_msg *b = th_at_low(h, 0, 1, 2, 1000000);
        th_net_go(h);
        ck_assert_uint_eq(a->a, 1);
        ck_assert_uint_eq(b->a, 1);
        ck_assert_uint_eq(h->bytes, 2000000);
        last[pfc] = (int64_t)(a->b > b->b ? a->b : b->b);
        if (pfc) {
            net_queue_report r = {0};
            ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
            ck_assert_int_eq(r.pfc, 1);
            ck_assert_uint_eq(r.drops, 0);
            ck_assert_uint_ge(r.pause_frames, 2);
            ck_assert(r.paused_s > 0);
            ck_assert_msg(r.ingress_max <= 60000 + 2 * 12500 + 1500, "ingress max %g B", r.ingress_max);
            ck_assert_msg(r.ingress_max > 60000, "ingress max %g B", r.ingress_max);
        }
        th_net_free(h);
    }
    ck_assert_int_eq(last[1], last[0]);
}
END_TEST

/* DCQCN's reaction point on one CNP, by hand (HPCC ns-3 defaults: g =
 * 1/256, alpha every 1 us, decrease check every 4 us, increase timer 300
 * us, F = 1, AI 2 Mb/s at 10 Gb/s): a flow at line rate R0 = 10 Gb/s gets a
 * CNP at t0 = 100 us. alpha = 1, then decays with no further CNP at t0 + 1,
 * 2, 3, 4 us: (255/256)^4; the decrease check at t0 + 4 us + 1 ns cuts
 * R1 = R0 (1 - (255/256)^4 / 2) = 5.07767 Gb/s ((255/256)^4 = 0.984466) (target stays R0: stage 0).
 * The increase timer, started then, fires 300 us later: fast recovery R2 =
 * (R1 + R0) / 2; 300 us later (stage = F) additive increase, the target
 * capped at R0: R3 = (R2 + R0) / 2; then hyper increase R4 = (R3 + R0) / 2. */
static tp_flow *dq_flow;
static void dq_probe(void *ctx, const tp_flow *f, int ev)
{
    (void)ctx;
    (void)ev;
    dq_flow = (tp_flow *)f;
}
static double dq_rate[5];
static void dq_sample(sim *s, void *ctx, uint64_t k)
{
    (void)s;
    (void)ctx;
    dq_rate[k] = dq_flow->rate_bps;
}
static void dq_cnp(sim *s, void *ctx, uint64_t k)
{
    (void)s;
    (void)ctx;
    (void)k;
    tp_flow_cnp(dq_flow);
}

START_TEST(test_dcqcn_one_cnp)
{
    net_params core = star(2);
    const char *sets[] = {"network.mtu=1500B", "network.flow-control=pfc", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    tp_params tp = tparams("dcqcn");
    tp_inst *t = attach(h, &tp);
    dq_flow = NULL;
    tp_set_probe(t, dq_probe, NULL);
    net_msg *m = th_at_low(h, 0, 0, 1, 20000000);
    int64_t t0 = 100000000, dec = t0 + 4000000 + 1000;
    sim_schedule_at(h->s, t0 - 1, dq_sample, NULL, 0);
    sim_schedule_at(h->s, t0, dq_cnp, NULL, 0);
    sim_schedule_at(h->s, dec + 1, dq_sample, NULL, 1);
    for (int k = 1; k <= 3; k++)
        sim_schedule_at(h->s, dec + k * 300000000 + 1, dq_sample, NULL, (uint64_t)k + 1);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    double R0 = 10e9, a4 = pow(255.0 / 256.0, 4);
    double R1 = R0 * (1 - a4 / 2), R2 = (R1 + R0) / 2, R3 = (R2 + R0) / 2, R4 = (R3 + R0) / 2;
    ck_assert_double_eq_tol(dq_rate[0], R0, 1);
    ck_assert_double_eq_tol(dq_rate[1], R1, 1);
    ck_assert_double_eq_tol(R1, 5.07767e9, 1e5);
    ck_assert_double_eq_tol(dq_rate[2], R2, 1);
    ck_assert_double_eq_tol(dq_rate[3], R3, 1);
    ck_assert_double_eq_tol(dq_rate[4], R4, 1);
    th_net_free(h);
}
END_TEST

/* Invariants on random mixes, every transport: every message completes,
 * exactly once, bytes conserved, no flow record left; with drop-tail
 * buffers of 30 kB (drops) and with ECN marking. */
START_TEST(test_random_mixes)
{
    /* the third: dctcp variant="ns-3", whose flows may wait for the RTO with a window below one segment */
    const char *types[] = {"tcp", "dctcp", "dctcp"};
    const char *bufs[][5] = {{"network.mtu=1500B", "network.buffer=30kB", NULL, NULL},
                             {"network.mtu=1500B", "network.buffer=100kB", "network.ecn-threshold=20kB", NULL},
                             {"network.mtu=1500B", "network.buffer=200kB", "network.buffer-policy=dynamic",
                              "network.ecn-threshold=30kB"}};
    for (int ti = 0; ti < 3; ti++)
        for (int bi = 0; bi < 3; bi++) {
            net_params core = star(8);
            core.link_latency_ps = 1000000;
            th_net *h = th_net_new("electrical-switch", &core, bufs[bi], NULL, 7, 512);
            tp_params tp = tparams(types[ti]);
            tp.variant = ti == 2 ? TP_VARIANT_NS3 : TP_VARIANT_RFC;
            tp.delayed_ack = 2;
            tp.min_rto_ps = 1000000000; /* 1 ms */
            tp_inst *t = attach(h, &tp);
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 11 + (unsigned long)(ti * 3 + bi));
            net_msg *ms[300];
            uint64_t total = 0;
            for (int i = 0; i < 300; i++) {
                uint32_t s = (uint32_t)gsl_rng_uniform_int(g, 8), d = (uint32_t)gsl_rng_uniform_int(g, 7);
                if (d >= s)
                    d++;
                uint64_t bytes = 1 + gsl_rng_uniform_int(g, 200000);
                total += bytes;
                ms[i] = th_at_low(h, (int64_t)gsl_rng_uniform_int(g, 2000) * 1000000, s, d, bytes);
            }
            th_net_go(h);
            for (int i = 0; i < 300; i++)
                REQUIRE(ms[i]->a == 1, "%s, buffers %d: message %d delivered %llu times", types[ti], bi, i,
                        (unsigned long long)ms[i]->a);
            REQUIRE(h->bytes == total, "%s: %llu bytes of %llu delivered", types[ti], (unsigned long long)h->bytes,
                    (unsigned long long)total);
            tp_counters c;
            tp_get_counters(t, &c);
            REQUIRE(c.flows_live == 0, "%s: %llu flow records left", types[ti], (unsigned long long)c.flows_live);
            gsl_rng_free(g);
            th_net_free(h);
        }
}
END_TEST

/* hops_mean on an output-queued fabric that drops: a leaf-spine whose 4
 * hosts all sit on one leaf, so every route crosses exactly 1 switch and
 * hops_mean is 1 by hand, whatever is lost. 300-B packets (a 1500-B segment
 * is 5 packets), 6-kB drop-tail ports, 4 senders of 100 kB each to one
 * receiver: segments lose some of their packets. Before (review5), the
 * packets of a lost segment that arrived counted in the hops' sum but not
 * in its denominator (delivered messages): 1.0217 here. */
START_TEST(test_hops_mean_with_drops)
{
    const char *sets[] = {"network.leaves=1", "network.spines=1", "network.hosts-per-leaf=4", "network.mtu=300B",
                          "network.flow-control=infinite", "network.buffer=6kB", NULL};
    net_params core = star(4);
    core.link_latency_ps = 1000000;
    th_net *h = th_net_new("leaf-spine", &core, sets, NULL, 5, 512);
    tp_params tp = tparams("tcp");
    tp.min_rto_ps = 1000000000; /* 1 ms */
    tp_inst *t = attach(h, &tp);
    for (uint32_t s = 1; s < 4; s++)
        th_at_low(h, 0, s, 0, 100000);
    th_at_low(h, 0, 0, 1, 100000);
    th_net_go(h);
    tp_counters c;
    tp_get_counters(t, &c);
    double met[SWNET_NMETRICS];
    h->n->ops->fill_metrics(h->n->state, met);
    REQUIRE(c.dropped > 0 && h->bytes == 400000, "%llu segments dropped, %llu bytes", (unsigned long long)c.dropped,
            (unsigned long long)h->bytes);
    REQUIRE(fabs(met[M_hops_mean] - 1) < 1e-9, "hops_mean %.17g, every route crosses 1 switch", met[M_hops_mean]);
    th_net_free(h);
}
END_TEST

/* The same invariants on the switched topologies' buffered outputs
 * (flow-control infinite): a 2-ary 3-tree (8 hosts) and a 2 x 4 leaf-spine
 * with 20-kB drop-tail ports (drops on the way up and down), tcp and dctcp
 * (marking at 6 kB). */
START_TEST(test_random_mixes_topologies)
{
    const char *types[] = {"tcp", "dctcp"};
    const char *fabrics[][8] = {
        {"fat-tree", "network.arity=2", "network.levels=3", "network.mtu=1500B", "network.flow-control=infinite",
         "network.buffer=20kB", "network.ecn-threshold=6kB", NULL},
        {"leaf-spine", "network.leaves=2", "network.spines=2", "network.hosts-per-leaf=4", "network.mtu=1500B",
         "network.flow-control=infinite", "network.buffer=20kB", NULL}};
    for (int ti = 0; ti < 2; ti++)
        for (int fi = 0; fi < 2; fi++) {
            net_params core = star(8);
            core.link_latency_ps = 1000000;
            th_net *h = th_net_new(fabrics[fi][0], &core, fabrics[fi] + 1, NULL, 5, 512);
            tp_params tp = tparams(types[ti]);
            tp.min_rto_ps = 1000000000; /* 1 ms */
            tp_inst *t = attach(h, &tp);
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 3 + (unsigned long)(ti * 2 + fi));
            net_msg *ms[200];
            uint64_t total = 0;
            for (int i = 0; i < 200; i++) {
                uint32_t s = (uint32_t)gsl_rng_uniform_int(g, 8), d = (uint32_t)gsl_rng_uniform_int(g, 7);
                if (d >= s)
                    d++;
                uint64_t bytes = 1 + gsl_rng_uniform_int(g, 100000);
                total += bytes;
                ms[i] = th_at_low(h, (int64_t)gsl_rng_uniform_int(g, 1000) * 1000000, s, d, bytes);
            }
            th_net_go(h);
            for (int i = 0; i < 200; i++)
                REQUIRE(ms[i]->a == 1, "%s on %s: message %d delivered %llu times", types[ti], fabrics[fi][0], i,
                        (unsigned long long)ms[i]->a);
            REQUIRE(h->bytes == total, "%s on %s: bytes", types[ti], fabrics[fi][0]);
            net_queue_report r = {0};
            ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
            tp_counters c;
            tp_get_counters(t, &c);
            REQUIRE(r.drops > 0 && r.drops == c.dropped, "%s on %s: %llu drops, %llu seen by the transport",
                    types[ti], fabrics[fi][0], (unsigned long long)r.drops, (unsigned long long)c.dropped);
            REQUIRE(r.queue_max <= 20000, "%s on %s: %g bytes queued", types[ti], fabrics[fi][0], r.queue_max);
            REQUIRE(c.flows_live == 0, "flow records left");
            gsl_rng_free(g);
            th_net_free(h);
        }
}
END_TEST

/* network.fail-at: a link fails under a tcp flow, which recovers.
 * 4-ary 2-tree (leaves S0..S3, tops S4..S7), d-mod-k: H0 -> H8 climbs by
 * up port 8 mod 4 = 0, S0 -> S4 -> S2. S0-S4 fails at 200 us, while the
 * 2 MB flow (1.6 ms of segments at 10 Gb/s) is under way: the segments on
 * S0 -> S4 and queued for it, and the ACKs on S4 -> S0, are lost; later
 * segments climb by port 5 (S5, the next up port that reaches S2). The
 * flow completes, every byte delivered once, after retransmissions; the
 * fabric counts the packets it lost (lost_packets) and the transport saw
 * as many segments and ACKs dropped (one packet each: mss 1460 < mtu).
 * Under credit flow control (credits of the lost packets given back) and
 * with unbounded buffers; on a 4x4 torus (DOR and adaptive; S0-S1 fails
 * under H0 -> H1's flow, which then goes the long way round) the same
 * holds. A failure after the flow has ended loses nothing. */
START_TEST(test_fail_at_tcp_recovers)
{
    static const struct {
        const char *type, *sets[6];
        uint32_t src, dst;
    } cases[] = {
        {"fat-tree", {"network.arity=4", "network.levels=2", "network.failed-links=S0-S4", "network.fail-at=200us",
                      NULL}, 0, 8},
        {"fat-tree", {"network.arity=4", "network.levels=2", "network.failed-links=S0-S4", "network.fail-at=200us",
                      "network.flow-control=infinite", NULL}, 0, 8},
        {"torus", {"network.dims=4 4", "network.failed-links=S0-S1", "network.fail-at=200us", NULL}, 0, 1},
        {"torus", {"network.dims=4 4", "network.failed-links=S0-S1", "network.fail-at=200us",
                   "network.routing=adaptive", NULL}, 0, 1},
        {"fat-tree", {"network.arity=4", "network.levels=2", "network.failed-links=S0-S4", "network.fail-at=10ms",
                      NULL}, 0, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        net_params core = star(16);
        core.link_latency_ps = 1000000; /* 1 us */
        th_net *h = th_net_new(cases[i].type, &core, cases[i].sets, NULL, 5, 64);
        tp_params tp = tparams("tcp");
        tp.min_rto_ps = 1000000000; /* 1 ms */
        tp_inst *t = attach(h, &tp);
        net_msg *m = th_at_low(h, 0, cases[i].src, cases[i].dst, 2000000);
        th_net_go(h);
        REQUIRE(m->a == 1, "case %zu: delivered %llu times", i, (unsigned long long)m->a);
        REQUIRE(h->bytes == 2000000, "case %zu: %llu bytes", i, (unsigned long long)h->bytes);
        tp_counters c;
        tp_get_counters(t, &c);
        double met[SWNET_NMETRICS];
        for (int k = 0; k < SWNET_NMETRICS; k++)
            met[k] = -1;
        h->n->ops->fill_metrics(h->n->state, met);
        if (i == 4) {
            REQUIRE(met[M_lost_packets] == 0 && c.retransmissions == 0 && c.dropped == 0,
                    "case %zu: lost %g, retransmissions %llu", i, met[M_lost_packets],
                    (unsigned long long)c.retransmissions);
        } else {
            REQUIRE(met[M_lost_packets] > 0 && c.retransmissions > 0, "case %zu: lost %g, retransmissions %llu", i,
                    met[M_lost_packets], (unsigned long long)c.retransmissions);
            REQUIRE((double)c.dropped == met[M_lost_packets], "case %zu: the transport saw %llu dropped, lost %g", i,
                    (unsigned long long)c.dropped, met[M_lost_packets]);
        }
        REQUIRE(c.flows_live == 0, "case %zu: flow records left", i);
        REQUIRE(swnet_credit_leaks(h->n->state) == 0, "case %zu: credit pools not full at the end", i);
        th_net_free(h);
    }
}
END_TEST

/* network.fail-at on the graph fabric, by hand. A ring of four switches
 * A, B, C, D (links A-B, B-C, C-D, D-A); H1 and H3 on A, H2 on B (hosts
 * 0, 1, 2 in file order). B = 10 Gb/s, L = 1 us, no switch latency, one
 * 1460-B message (a 1500-B segment, 1.2 us) from H1 and one from H3 to
 * H2 at 0; tcp with its first RTO and its floor at 1 ms (no RTT sample
 * yet when the segments are lost).
 *   Before the failure A -> B is every routing's route (one hop; up-down
 *   with the root A: down). Both heads reach A at L = 1 us: one segment
 *   takes A -> B at 1 us (its tail due at B at 1 + 1.2 + 1 = 3.2 us), the
 *   other waits in A's output queue until 2.2 us.
 *   A-B fails at 1.5 us: the first segment is on the link with its tail
 *   not across (lost when its hop event comes at B, at 2 us), the second
 *   is queued for the dead link (lost at 1.5 us): lost_packets = 2, the
 *   transport sees 2 dropped, nothing arrives, no ACK.
 *   The routing is recomputed without A-B: A -> D -> C -> B (shortest,
 *   ecmp: the one path of 3 hops; up-down from A: the levels become A 0,
 *   D 1, C 2, B 3, every hop down). Each sender's RTO fires at 1 ms
 *   (timer armed at 0): both retransmissions leave at 1 ms, heads at A at
 *   1 ms + 1 us, one takes A -> D at once and arrives (last bit) at
 *   1 ms + 5 L + 1.2 us = 1,006.2 us, the other waits a segment time at A
 *   and arrives at 1,007.4 us. Retransmissions 2, every byte delivered
 *   once, every credit back. The ACKs go B -> C -> D -> A. */
static const char RING4[] = "digraph g {\n  root=\"A\";\n  H1 -> A; A -> H1;\n  H3 -> A; A -> H3;\n  H2 -> B; B -> H2;\n"
                            "  A -> B; B -> A;\n  B -> C; C -> B;\n  C -> D; D -> C;\n  D -> A; A -> D;\n}\n";

START_TEST(test_fail_at_graph)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/tasknet-check-transport-%ld.dot", (long)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(RING4, f);
    fclose(f);
    char file[200];
    snprintf(file, sizeof file, "network.file=%s", path);
    static const char *const routings[] = {"network.routing=shortest", "network.routing=ecmp",
                                           "network.routing=up-down"};
    for (int r = 0; r < 3; r++) {
        net_params core = th_star(3, 10e9);
        core.link_latency_ps = 1000000; /* 1 us */
        core.switch_latency_ps = 0;
        const char *sets[] = {file, routings[r], "network.failed-links=A-B", "network.fail-at=1500ns", NULL};
        th_net *h = th_net_new("graph", &core, sets, NULL, 5, 64);
        tp_params tp = tparams("tcp");
        tp.min_rto_ps = 1000000000;  /* 1 ms */
        tp.init_rto_ps = 1000000000; /* 1 ms */
        tp_inst *t = attach(h, &tp);
        net_msg *m1 = th_at_low(h, 0, 0, 2, MSS);
        net_msg *m3 = th_at_low(h, 0, 1, 2, MSS);
        th_net_go(h);
        tp_counters c;
        tp_get_counters(t, &c);
        double met[SWNET_NMETRICS];
        h->n->ops->fill_metrics(h->n->state, met);
        REQUIRE(met[M_lost_packets] == 2 && c.dropped == 2 && c.retransmissions == 2,
                "%s: lost %g, dropped %llu, retransmissions %llu", routings[r], met[M_lost_packets],
                (unsigned long long)c.dropped, (unsigned long long)c.retransmissions);
        ck_assert_uint_eq(m1->a, 1);
        ck_assert_uint_eq(m3->a, 1);
        int64_t first = 1006200000, second = 1007400000;
        int64_t a = (int64_t)m1->b, b = (int64_t)m3->b;
        REQUIRE((a == first && b == second) || (a == second && b == first), "%s: delivered at %lld and %lld ps",
                routings[r], (long long)a, (long long)b);
        REQUIRE(c.flows_live == 0 && h->bytes == 2 * MSS, "%s: %llu bytes", routings[r],
                (unsigned long long)h->bytes);
        REQUIRE(swnet_credit_leaks(h->n->state) == 0, "%s: credit pools not full at the end", routings[r]);
        th_net_free(h);
    }
    unlink(path);
}
END_TEST

/* network.fail-at on the input-queued router, by hand: test_fail_at_graph's
 * ring (H1, H3 on A, H2 on B; 10 Gb/s, L = 1 us, host links L too), the
 * router with 125-byte flits (T = 100 ns, so L = 10 T: every time below is
 * on the tick grid), every pipeline delay and credit-delay 0 (D = 0: a
 * head leaves at the tick it is whole), one VC, 12-flit VC buffers (1500
 * B: a segment is one packet of F = 12 flits); A-B fails at 1.55 us.
 *   Both hosts send flits k = 0..11 at 100 k ns, whole at A at 1,100 + 100
 *   k. At 1,100 both heads ask for A -> B's one output VC; one wins (call
 *   it the first) and sends flit k on A -> B at 1,100 + 100 k (whole at B
 *   100 + 1,000 later, from 2,200 on); the other asks again every tick.
 *   At 1,550: the first packet holds A -> B's output VC with flits 0..4 on
 *   the link (none whole at B yet) and 5..11 at A or on H -> A: it is lost
 *   whole (lost_packets 1, its 12 credits back). The other, routed but
 *   not yet holding an output VC, is routed again: A -> D -> C -> B (as in
 *   test_fail_at_graph, for shortest, ecmp and up-down), wins A -> D's VC
 *   at 1,600 and sends flit k at 1,600 + 100 k; each hop adds T + L =
 *   1,100 ns (D = 0, no contention): whole at D at 2,700, C 3,800, B 4,900,
 *   H2 6,000 + 100 k: delivered at 7,100 ns, nothing lost, no retransmission.
 *   The first's RTO fires at 1 ms (timer armed at 0): its segment leaves
 *   H at 1 ms, flits at A from 1 ms + 1,100 ns, A -> D at once, then
 *   + 1,100 per hop: the tail whole at H2 at 1 ms + 5 x 1,100 + 11 x 100 =
 *   1,006.6 us. So: lost 1, dropped 1, retransmissions 1, deliveries at
 *   7.1 us and 1,006.6 us, and every credit, output VC and input VC back
 *   at the end (iqr_leaks 0). The same under wormhole switching (one
 *   credit per flit: nothing above waited for more).
 * A-B failing at 2.65 us instead cuts a packet whose head went further:
 *   the first's tail is granted at A at 2,200 (flits on A -> B at 1,100 +
 *   100 k), so its output VC is free from then and the other wins it at
 *   2,300 (VC allocation comes before switch allocation in a tick) but
 *   sends nothing: cut-through needs 12 credits, wormhole 1, and B gives
 *   them back only from 3,200 (B forwards flit k to H2 as it is whole,
 *   2,200 + 100 k; its credit is back at A 1,000 later). At 2,650 the first
 *   has flits 0..4 through B (sent on B -> H2) and 5..11 on A -> B: lost
 *   whole (B's VC and its output VC toward H2 freed; H2 got its first 5
 *   flits, never its tail); the other holds A -> B's output VC: lost too.
 *   lost 2, dropped 2, retransmissions 2. Both RTOs fire at 1 ms: one
 *   packet goes A -> D at once and its tail is whole at H2 at 1,006.6 us
 *   as above; the other wins A -> D's VC at 1 ms + 2,300 ns and waits for
 *   credit there (D forwards flit k of the first at 1 ms + 2,200 + 100 k,
 *   back at A 1,000 later): cut-through all 12, at 1 ms + 4,300, so its
 *   tail is whole at H2 at 1 ms + 4,300 + 4 x 1,100 + 1,100 = 1,009.8 us;
 *   wormhole the first, at 1 ms + 3,200, its flits then one per flit
 *   time as the credits come: 1,008.7 us. */
START_TEST(test_fail_at_iq_ring)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/tasknet-check-transport-iq-%ld.dot", (long)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(RING4, f);
    fclose(f);
    char file[200];
    snprintf(file, sizeof file, "network.file=%s", path);
    static const char *const routings[] = {"network.routing=shortest", "network.routing=ecmp",
                                           "network.routing=up-down"};
    for (int r = 0; r < 12; r++) {
        net_params core = th_star(3, 10e9);
        core.link_latency_ps = 1000000; /* 1 us */
        core.switch_latency_ps = 0;
        int late = r >= 6, wh = r % 6 >= 3; /* fail-at 2.65 us; wormhole */
        const char *sets[] = {file,
                              routings[r % 3],
                              "network.failed-links=A-B",
                              late ? "network.fail-at=2650ns" : "network.fail-at=1550ns",
                              "network.router=input-queued",
                              "network.flit-size=125B",
                              "network.vc-buffer=1500B",
                              "network.mtu=1500B",
                              "network.routing-delay=0ns",
                              "network.vc-alloc-delay=0ns",
                              "network.sw-alloc-delay=0ns",
                              "network.st-delay=0ns",
                              "network.credit-delay=0ns",
                              wh ? "network.switching=wormhole" : "network.switching=cut-through",
                              NULL};
        th_net *h = th_net_new("graph", &core, sets, NULL, 5, 64);
        tp_params tp = tparams("tcp");
        tp.min_rto_ps = 1000000000;  /* 1 ms */
        tp.init_rto_ps = 1000000000; /* 1 ms */
        tp_inst *t = attach(h, &tp);
        net_msg *m1 = th_at_low(h, 0, 0, 2, MSS);
        net_msg *m3 = th_at_low(h, 0, 1, 2, MSS);
        th_net_go(h);
        tp_counters c;
        tp_get_counters(t, &c);
        double met[SWNET_NMETRICS];
        h->n->ops->fill_metrics(h->n->state, met);
        double lost = late ? 2 : 1;
        REQUIRE(met[M_lost_packets] == lost && c.dropped == lost && c.retransmissions == lost,
                "%s %d: lost %g, dropped %llu, retransmissions %llu", routings[r % 3], r, met[M_lost_packets],
                (unsigned long long)c.dropped, (unsigned long long)c.retransmissions);
        ck_assert_uint_eq(m1->a, 1);
        ck_assert_uint_eq(m3->a, 1);
        int64_t first = late ? 1006600000 : 7100000;
        int64_t second = !late ? 1006600000 : wh ? 1008700000 : 1009800000;
        int64_t a = (int64_t)m1->b, b = (int64_t)m3->b;
        REQUIRE((a == first && b == second) || (a == second && b == first), "%s %d: delivered at %lld and %lld ps",
                routings[r % 3], r, (long long)a, (long long)b);
        REQUIRE(c.flows_live == 0 && h->bytes == 2 * MSS, "%s: %llu bytes", routings[r % 3],
                (unsigned long long)h->bytes);
        REQUIRE(iqr_leaks((const swnet *)h->n->state) == 0, "%s %d: %llu credits, VCs or packets not back",
                routings[r % 3], r, (unsigned long long)iqr_leaks((const swnet *)h->n->state));
        th_net_free(h);
    }
    unlink(path);
}
END_TEST

/* network.fail-at on the input-queued router, invariants: a 2 MB tcp flow
 * whose route crosses the failing link, beside 40 random 20 kB messages
 * (tcp segments of 24 flits each, so wormhole packets are cut mid-way), on the
 * 4-ary 2-tree (S0-S4, H0 -> H8's d-mod-k uplink), the 4x4 torus (S0-S1
 * under H0 -> H1; DOR records are fixed at the source, so packets routed
 * toward the dead link are lost at their VC allocation; adaptive keeps the
 * escape) and the graph (fabric.dot, up-down, recomputed), cut-through and
 * wormhole with 2 VCs (8-flit buffers under wormhole, 32 under cut-through)
 * at 200 us: every message delivered exactly once, every byte once,
 * something lost, lost_packets equal to the transport's dropped count,
 * and at the end every credit, output VC, input VC and packet back
 * (iqr_leaks 0: nothing held for ever by a cut packet). */
START_TEST(test_fail_at_iq_invariants)
{
    static const struct {
        const char *type, *sets[4];
        uint32_t src, dst, N;
    } cases[] = {
        {"fat-tree", {"network.arity=4", "network.levels=2", "network.failed-links=S0-S4", NULL}, 0, 8, 16},
        {"torus", {"network.dims=4 4", "network.failed-links=S0-S1", NULL}, 0, 1, 16},
        {"torus", {"network.dims=4 4", "network.failed-links=S0-S1", "network.routing=adaptive"}, 0, 1, 16},
        {"graph", {"network.routing=up-down", "network.failed-links=L1-S1 L1-S2", NULL}, 0, 8, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int wh = 0; wh < 2; wh++) {
            net_params core = star(cases[i].N);
            core.link_latency_ps = 1000000; /* 1 us */
            const char *sets[16];
            int n = 0;
            for (int k = 0; k < 4 && cases[i].sets[k]; k++)
                sets[n++] = cases[i].sets[k];
            sets[n++] = "network.fail-at=200us";
            sets[n++] = "network.router=input-queued";
            sets[n++] = "network.flit-size=64B";
            sets[n++] = "network.mtu=2KiB"; /* a 1500-B segment is one packet of 24 flits */
            sets[n++] = "network.vcs=2";
            sets[n++] = wh ? "network.switching=wormhole" : "network.switching=cut-through";
            sets[n++] = wh ? "network.vc-buffer=512B" : "network.vc-buffer=2KiB";
            sets[n] = NULL;
            th_net *h = th_net_new(cases[i].type, &core, sets, NULL, 5, 128);
            tp_params tp = tparams("tcp");
            tp.min_rto_ps = 1000000000; /* 1 ms */
            tp_inst *t = attach(h, &tp);
            net_msg *m = th_at_low(h, 0, cases[i].src, cases[i].dst, 2000000);
            net_msg *r[40];
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 7 + i);
            for (int k = 0; k < 40; k++) {
                uint32_t a = (uint32_t)gsl_rng_uniform_int(g, cases[i].N), b;
                do
                    b = (uint32_t)gsl_rng_uniform_int(g, cases[i].N);
                while (b == a);
                r[k] = th_at_low(h, (int64_t)gsl_rng_uniform_int(g, 400) * 1000000, a, b, 20000);
            }
            gsl_rng_free(g);
            th_net_go(h);
            REQUIRE(m->a == 1, "case %zu/%d: delivered %llu times", i, wh, (unsigned long long)m->a);
            for (int k = 0; k < 40; k++)
                REQUIRE(r[k]->a == 1, "case %zu/%d: message %d delivered %llu times", i, wh, k,
                        (unsigned long long)r[k]->a);
            REQUIRE(h->bytes == 2000000 + 40 * 20000, "case %zu/%d: %llu bytes", i, wh,
                    (unsigned long long)h->bytes);
            tp_counters c;
            tp_get_counters(t, &c);
            double met[SWNET_NMETRICS];
            h->n->ops->fill_metrics(h->n->state, met);
            REQUIRE(met[M_lost_packets] > 0 && c.retransmissions > 0, "case %zu/%d: lost %g, retransmissions %llu", i,
                    wh, met[M_lost_packets], (unsigned long long)c.retransmissions);
            REQUIRE((double)c.dropped == met[M_lost_packets], "case %zu/%d: the transport saw %llu dropped, lost %g",
                    i, wh, (unsigned long long)c.dropped, met[M_lost_packets]);
            REQUIRE(c.flows_live == 0, "case %zu/%d: flow records left", i, wh);
            REQUIRE(iqr_leaks((const swnet *)h->n->state) == 0, "case %zu/%d: %llu credits, VCs or packets not back",
                    i, wh, (unsigned long long)iqr_leaks((const swnet *)h->n->state));
            th_net_free(h);
        }
}
END_TEST

/* network.fail-at on a partly populated fabric (network.placement): the
 * same switches, links between them and routes as the full fabric, the
 * absent hosts' ports gone (topo_sub.c's head), so a run is the full
 * fabric's run with those hosts idle. Derived, not measured: every message
 * delivered at the same picosecond, the same packets lost, dropped and sent
 * again as on the full fabric with the same messages between the same
 * base hosts. Fat tree 4-ary 2-tree (S0-S4 fails under H0 -> H8's 2 MB
 * flow at 200 us, test_fail_at_tcp_recovers) and 4x4 torus dor (S0-S1
 * under H0 -> H2, DOR through S1); output-queued with credits and with
 * unbounded buffers, input-queued cut-through; placement spread with 8
 * nodes (node i on base host 2i) and first with 15 (node i on host i).
 * Before, fail-at was refused on a partly populated fabric: the failure
 * layer sat under the placement wrapper, where swnet.c did not see it. */
START_TEST(test_fail_at_populated)
{
    static const struct {
        const char *type, *sets[4];
        uint32_t msg[4][2]; /* base hosts, all even: present under both placements */
    } fab[] = {
        {"fat-tree", {"network.arity=4", "network.levels=2", "network.failed-links=S0-S4", NULL},
         {{0, 8}, {4, 12}, {6, 0}, {10, 2}}},
        {"torus", {"network.dims=4 4", "network.failed-links=S0-S1", NULL}, {{0, 2}, {4, 12}, {6, 0}, {10, 2}}},
    };
    static const char *const router[][5] = {
        {"network.flow-control=credit", NULL},
        {"network.flow-control=infinite", NULL},
        {"network.router=input-queued", "network.flit-size=64B", "network.mtu=2KiB", "network.vc-buffer=2KiB", NULL},
    };
    static const struct {
        const char *placement;
        uint32_t n, stride; /* node i on base host i x stride */
    } pop[] = {{"network.placement=full", 16, 1}, {"network.placement=spread", 8, 2}, {"network.placement=first", 15, 1}};
    for (size_t f = 0; f < sizeof fab / sizeof *fab; f++)
        for (size_t r = 0; r < sizeof router / sizeof *router; r++) {
            int64_t at[3][4];
            double lost[3];
            unsigned long long rtx[3];
            for (size_t q = 0; q < 3; q++) {
                net_params core = star(pop[q].n);
                core.link_latency_ps = 1000000; /* 1 us */
                const char *sets[16];
                int n = 0;
                for (int k = 0; k < 4 && fab[f].sets[k]; k++)
                    sets[n++] = fab[f].sets[k];
                for (int k = 0; router[r][k]; k++)
                    sets[n++] = router[r][k];
                sets[n++] = "network.fail-at=200us";
                sets[n++] = pop[q].placement;
                sets[n] = NULL;
                th_net *h = th_net_new(fab[f].type, &core, sets, NULL, 5, 64);
                tp_params tp = tparams("tcp");
                tp.min_rto_ps = 1000000000; /* 1 ms */
                tp_inst *t = attach(h, &tp);
                net_msg *m[4];
                for (int k = 0; k < 4; k++)
                    m[k] = th_at_low(h, k * 50000000, fab[f].msg[k][0] / pop[q].stride,
                                     fab[f].msg[k][1] / pop[q].stride, k ? 300000 : 2000000);
                th_net_go(h);
                for (int k = 0; k < 4; k++) {
                    REQUIRE(m[k]->a == 1, "%s %zu %s: message %d delivered %llu times", fab[f].type, r,
                            pop[q].placement, k, (unsigned long long)m[k]->a);
                    at[q][k] = (int64_t)m[k]->b;
                }
                tp_counters c;
                tp_get_counters(t, &c);
                double met[SWNET_NMETRICS];
                h->n->ops->fill_metrics(h->n->state, met);
                lost[q] = met[M_lost_packets];
                rtx[q] = c.retransmissions;
                REQUIRE(lost[q] > 0 && (double)c.dropped == lost[q], "%s %zu %s: lost %g, dropped %llu", fab[f].type,
                        r, pop[q].placement, lost[q], (unsigned long long)c.dropped);
                REQUIRE(c.flows_live == 0, "%s %zu %s: flow records left", fab[f].type, r, pop[q].placement);
                if (r == 2)
                    REQUIRE(iqr_leaks((const swnet *)h->n->state) == 0, "%s %s: credits, VCs or packets not back",
                            fab[f].type, pop[q].placement);
                else
                    REQUIRE(swnet_credit_leaks(h->n->state) == 0, "%s %zu %s: credit pools not full at the end",
                            fab[f].type, r, pop[q].placement);
                th_net_free(h);
            }
            for (size_t q = 1; q < 3; q++) {
                REQUIRE(lost[q] == lost[0] && rtx[q] == rtx[0], "%s %zu %s: lost %g / %llu retransmissions, full %g / %llu",
                        fab[f].type, r, pop[q].placement, lost[q], rtx[q], lost[0], rtx[0]);
                for (int k = 0; k < 4; k++)
                    REQUIRE(at[q][k] == at[0][k], "%s %zu %s: message %d at %lld ps, full fabric %lld", fab[f].type, r,
                            pop[q].placement, k, (long long)at[q][k], (long long)at[0][k]);
            }
        }
}
END_TEST

/* A packet lost when a link fails mid-run gives its buffer's credit back
 * to the pool it took it from: with per-class VCs (host-scheduling=priority,
 * vc-map per-class, credit flow control) that is its class's pool. Checked
 * by the invariant "every credit of every live link is back at the end"
 * (swnet_credit_leaks), for class-1 and class-0 flows and a mix, and
 * under vc-map=shared. Class-1 flow with per-class pools before the fix
 * (packet_lost_at gave the credit to pool p->in_vc, class 0's): 4 lost,
 * 2 pools off at the end (class 0's one packet over, class 1's one under). */
START_TEST(test_fail_at_class_credits)
{
    static const char *const maps[] = {"network.vc-map=per-class", "network.vc-map=shared"};
    for (int mi = 0; mi < 2; mi++)
        for (int prio = 0; prio < 3; prio++) {
            net_params core = star(16);
            core.link_latency_ps = 1000000; /* 1 us */
            const char *sets[] = {"network.arity=4",        "network.levels=2",       "network.failed-links=S0-S4",
                                  "network.fail-at=200us",  "network.host-scheduling=priority", "network.vc-buffer=8KiB",
                                  maps[mi],                 NULL};
            th_net *h = th_net_new("fat-tree", &core, sets, NULL, 5, 64);
            tp_params tp = tparams("tcp");
            tp.min_rto_ps = 1000000000; /* 1 ms */
            tp_inst *t = attach(h, &tp);
            /* prio 2: a class-0 and a class-1 flow at once */
            net_msg *m0 = th_at(h, 0, 0, 8, 2000000, (uint8_t)(prio == 2 ? 0 : prio), NET_DATA);
            net_msg *m1 = prio == 2 ? th_at(h, 0, 1, 9, 2000000, 1, NET_DATA) : NULL;
            th_net_go(h);
            REQUIRE(m0->a == 1 && (!m1 || m1->a == 1), "%s prio %d: delivered %llu times", maps[mi], prio,
                    (unsigned long long)m0->a);
            tp_counters c;
            tp_get_counters(t, &c);
            double met[SWNET_NMETRICS];
            h->n->ops->fill_metrics(h->n->state, met);
            REQUIRE(met[M_lost_packets] > 0, "%s prio %d: nothing lost", maps[mi], prio);
            REQUIRE((double)c.dropped == met[M_lost_packets] && c.flows_live == 0, "%s prio %d: dropped %llu",
                    maps[mi], prio, (unsigned long long)c.dropped);
            REQUIRE(swnet_credit_leaks(h->n->state) == 0, "%s prio %d: %llu credit pools not full at the end",
                    maps[mi], prio, (unsigned long long)swnet_credit_leaks(h->n->state));
            th_net_free(h);
        }
}
END_TEST

/* Under PFC nothing is lost, whatever the transport: random mixes of tcp,
 * dctcp and dcqcn (marking at 20 kB) over a switch with pfc-xoff 30 kB
 * complete exactly once with no drop and no retransmission. */
START_TEST(test_random_mixes_pfc)
{
    const char *types[] = {"tcp", "dctcp", "dcqcn"};
    for (int ti = 0; ti < 3; ti++) {
        net_params core = star(8);
        core.link_latency_ps = 1000000;
        const char *sets[] = {"network.mtu=1500B", "network.flow-control=pfc", "network.pfc-xoff=30kB",
                              "network.pfc-xon=15kB", "network.ecn-threshold=20kB", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 9, 512);
        tp_params tp = tparams(types[ti]);
        tp.delayed_ack = 2;
        tp_inst *t = attach(h, &tp);
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(g, 21 + (unsigned long)ti);
        net_msg *ms[200];
        uint64_t total = 0;
        for (int i = 0; i < 200; i++) {
            uint32_t s = (uint32_t)gsl_rng_uniform_int(g, 8), d = (uint32_t)gsl_rng_uniform_int(g, 7);
            if (d >= s)
                d++;
            uint64_t bytes = 1 + gsl_rng_uniform_int(g, 200000);
            total += bytes;
            ms[i] = th_at_low(h, (int64_t)gsl_rng_uniform_int(g, 500) * 1000000, s, d, bytes);
        }
        th_net_go(h);
        for (int i = 0; i < 200; i++)
            REQUIRE(ms[i]->a == 1, "%s under pfc: message %d delivered %llu times", types[ti], i,
                    (unsigned long long)ms[i]->a);
        REQUIRE(h->bytes == total, "%s under pfc: bytes", types[ti]);
        net_queue_report r = {0};
        h->n->ops->queue_report(h->n->state, sim_now(h->s), &r);
        tp_counters c;
        tp_get_counters(t, &c);
        REQUIRE(r.drops == 0 && c.dropped == 0 && c.retransmissions == 0, "%s under pfc: %llu drops, %llu "
                "retransmissions, %llu timeouts, %llu fast", types[ti], (unsigned long long)r.drops,
                (unsigned long long)c.retransmissions, (unsigned long long)c.timeouts,
                (unsigned long long)c.fast_retransmits);
        REQUIRE(r.pause_frames > 0, "%s under pfc: no pause", types[ti]);
        REQUIRE(c.flows_live == 0, "flow records left");
        gsl_rng_free(g);
        th_net_free(h);
    }
}
END_TEST

/* DCTCP after a timeout: the timeout ends CWR (RFC 3168 sec. 6.1.2; ns-3
 * leaves CWR for its Loss state), so the window grows again in slow start.
 * A flow cut by an ECE at nxt = 976 (CWR until una passes 976) times out
 * at una = 695: transport.c sets cwnd = 1 mss, nxt = una, ssthresh =
 * Flight / 2 (here 100 mss). The ACK of the retransmitted segment (una 696,
 * no ECE) then adds one mss (slow start, 1 < 100): cwnd = 2 mss, and the
 * next, 3 mss. (Before this rule the flow stayed in CWR with cwnd = 1 mss
 * until una passed 976: one segment per delayed-ACK timeout, a 1.57-MB
 * web-search flow took 28.8 s.) */
START_TEST(test_dctcp_timeout_ends_cwr)
{
    extern const tp_cc_ops tp_dctcp_ops;
    net_params core = star(2);
    th_net *h = th_net_new("electrical-switch", &core, NULL, NULL, 1, 4);
    tp_params tp = tparams("dctcp");
    tp_flow f;
    memset(&f, 0, sizeof f);
    f.t = attach(h, &tp);
    f.mss = MSS;
    f.nseg = 1079;
    tp_dctcp_ops.init(&f);
    f.win_end = 5000; /* no observation window ends here: alpha stays */
    f.una = 695;
    f.nxt = f.max = 976;
    f.in_cwr = 1;
    f.cwr_end = 976;
    /* the timeout, as transport.c's ev_rto does it */
    f.ssthresh = 100 * MSS;
    f.cwnd = MSS;
    f.nxt = f.una;
    ck_assert_ptr_nonnull(tp_dctcp_ops.on_timeout);
    tp_dctcp_ops.on_timeout(&f);
    f.una = f.nxt = 696;
    tp_dctcp_ops.on_ack(&f, MSS, 0);
    ck_assert_uint_eq(f.cwnd, 2 * MSS);
    f.una = f.nxt = 697;
    tp_dctcp_ops.on_ack(&f, MSS, 0);
    ck_assert_uint_eq(f.cwnd, 3 * MSS);
    /* an ECE now cuts at once (a new CWR), by alpha / 2 = 1/2 (alpha 1 at start): 1.5 mss, floor 2 mss */
    f.una = f.nxt = 698;
    tp_dctcp_ops.on_ack(&f, MSS, 1);
    ck_assert_uint_eq(f.cwnd, 2 * MSS);
    ck_assert_int_eq(f.in_cwr, 1);
    th_net_free(h);
}
END_TEST

/* transport.growth: with delayed ACKs of 2, every ACK of round 1 covers 2
 * segments. "reno" adds one mss per ACK: 10 + 5 = 15 segments after the
 * 5 ACKs of the first 10; "linux" one per segment acked: 10 + 10 = 20
 * (the window doubles per round trip, as Linux and ns-3's TcpLinuxReno).
 * Congestion avoidance, "linux": at cwnd = ssthresh = 10 mss, 10 segments
 * acked (5 ACKs of 2: cwnd_cnt 2, 4, .., 10 >= w = 10) add one mss: 11. */
START_TEST(test_growth_linux)
{
    for (int g = 0; g < 2; g++) {
        net_params core = star(2);
        const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("tcp");
        tp.delayed_ack = 2;
        tp.growth = g ? TP_GROWTH_LINUX : TP_GROWTH_RENO;
        tp_inst *t = attach(h, &tp);
        static rec r;
        memset(&r, 0, sizeof r);
        r.s = h->s;
        tp_set_probe(t, probe, &r);
        net_msg *m = th_at_low(h, 0, 0, 1, 200 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        ck_assert_uint_ge(r.n, 5);
        ck_assert_uint_eq(r.cwnd[4], (g ? 20 : 15) * MSS);
        th_net_free(h);
    }
    net_params core = star(2);
    th_net *h = th_net_new("electrical-switch", &core, NULL, NULL, 1, 4);
    tp_params tp = tparams("tcp");
    tp.growth = TP_GROWTH_LINUX;
    tp_flow f;
    memset(&f, 0, sizeof f);
    f.t = attach(h, &tp);
    f.mss = MSS;
    f.cwnd = f.ssthresh = 10 * MSS;
    for (int k = 0; k < 4; k++) {
        tp_grow(&f, 2 * MSS);
        ck_assert_uint_eq(f.cwnd, 10 * MSS);
    }
    tp_grow(&f, 2 * MSS);
    ck_assert_uint_eq(f.cwnd, 11 * MSS);
    ck_assert_uint_eq(f.cwnd_cnt, 0);
    /* an ssthresh of half a flight, not whole segments (2.5 MSS): slow start
     * takes cwnd to the 2 whole segments under it, then congestion
     * avoidance grows one segment per window (Linux keeps both in
     * segments). By hand, one segment acked per ACK from 1 MSS: 2 MSS after
     * the first ACK (slow start capped at 2), then +1 MSS every w ACKs with w
     * the window in segments: 3 MSS after 1 + 2 ACKs, 4 after 1 + 2 + 3, 5
     * after 1 + 2 + 3 + 4 = 10 ACKs. (Compared in bytes, it stayed at 2 MSS
     * for ever.) */
    tp_inst *ti = f.t; /* the same transport: a second attach would replace (and leak) it */
    memset(&f, 0, sizeof f);
    f.t = ti;
    f.mss = MSS;
    f.cwnd = MSS;
    f.ssthresh = 5 * MSS / 2;
    for (int k = 0; k < 10; k++)
        tp_grow(&f, MSS);
    ck_assert_uint_eq(f.cwnd, 5 * MSS);
    th_net_free(h);
}
END_TEST

/* Two losses in a row at the end of a message (segments 53 and 54 of 60;
 * delayed ACKs of 2): the out-of-order 55..59 are acked at once, at least
 * three of them duplicate ACKs (the first may carry the ACK of 52 still
 * held back), and 53 is fast-retransmitted; every segment has been sent by
 * then, so only retransmissions reach the receiver after it. 53's arrival
 * fills part of the gap (54 still missing, 55..59 held): the receiver acks
 * it at once (RFC 5681 sec. 4.2: a segment that fills all or part of a gap;
 * ns-3 too), the partial ACK (54) retransmits 54 an RTT later and the
 * message is complete a few RTTs (~41 us each) after the losses: before
 * 1 ms, one fast retransmit, two retransmissions, no timeout. Were that ACK
 * held back for the delayed-ACK timeout (200 ms), the 10-ms RTO would fire
 * first (the message then completes at 10.238 ms, one timeout). */
START_TEST(test_partial_gap_acked_at_once)
{
    net_params core = star(2);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    tp_params tp = tparams("tcp");
    tp.delayed_ack = 2;
    tp_inst *t = attach(h, &tp);
    uint32_t lost[] = {53, 54};
    tp_set_loss(t, lost, 2);
    net_msg *m = th_at_low(h, 0, 0, 1, 60 * MSS);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    ck_assert_int_lt((int64_t)m->b, 1000000000); /* delivered before 1 ms */
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_eq(c.timeouts, 0);
    ck_assert_uint_eq(c.fast_retransmits, 1);
    ck_assert_uint_eq(c.retransmissions, 2);
    th_net_free(h);
}
END_TEST

/* A workload may release or reuse its message once delivered (dc-flows
 * puts it back in its pool at once), and net_app_delivered renumbers a
 * client's src and dst: what the transport sends for a flow after its
 * delivery must not read the message. Here the sender times out before any
 * ACK can come (initial-rto = min-rto = 30 us < RTT 41.232 us): a message
 * of 3 segments (0 -> 1) is delivered when its last segment arrives, at
 * 2 SER + ONE_WAY = 23.6 us; the test's workload then overwrites its src
 * and dst with a node that does not exist, as a reuse would with another
 * flow's. The timeout at 30 us retransmits segment 0 after that delivery,
 * and the receiver acks the duplicate: both must go between nodes 0 and 1
 * (the flow's own copies), and the run ends with the message delivered
 * once at 23.6 us, at least one timeout and one duplicate, and no flow
 * left. (Before the fix the retransmission was sent to node 4294967295.) */
static struct {
    int n;
    int64_t t;
} reuse_log;
static void reuse_deliver(void *owner, net_msg *m)
{
    th_net *h = owner;
    reuse_log.n++;
    reuse_log.t = sim_now(h->s);
    m->src = m->dst = UINT32_MAX; /* what a reuse could leave there */
}

START_TEST(test_after_delivery_no_message)
{
    net_params core = star(2);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
    static th_net *h;
    memset(&reuse_log, 0, sizeof reuse_log);
    h = th_net_to("electrical-switch", &core, sets, NULL, 1, reuse_deliver, NULL);
    h->to_owner = h;
    tp_params tp = tparams("tcp");
    tp.min_rto_ps = tp.init_rto_ps = 30000000; /* 30 us */
    tp_inst *t = attach(h, &tp);
    th_at_low(h, 0, 0, 1, 3 * MSS);
    th_net_go(h);
    ck_assert_int_eq(reuse_log.n, 1);
    ck_assert_int_eq(reuse_log.t, 2 * SER + ONE_WAY);
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_ge(c.timeouts, 1);
    ck_assert_uint_ge(c.retransmissions, 1);
    ck_assert_uint_ge(c.duplicates, 1);
    ck_assert_uint_eq(c.flows_live, 0);
    th_net_free(h);
}
END_TEST

/* PFC across switches on a leaf-spine (2 leaves of 2 hosts, 1 spine; links
 * 10 us, 10 Gb/s, 1500-B packets; xoff 60 kB, xon 30 kB; a 100-kB buffer
 * that PFC must never enforce). Hosts 0, 1 (leaf 0) and 3 (leaf 1) send
 * 1 MB each to host 2 (leaf 1): leaf 1's port to host 2 gets 20 Gb/s from
 * its spine link and host 3's link, so both ingress counts pass xoff and
 * leaf 1 pauses the spine's output (link 11: spine 0's port 1, topology
 * head N + L (H + S) + s L + port = 4 + 6 + 0 + 1) and host 3; the paused
 * spine's queue from leaf 0 then passes xoff and pauses leaf 0's uplink
 * (link 6: N + 0 (H + S) + port H + 0), which pauses hosts 0 and 1.
 * By hand:
 *  - a paused port sends nothing until the resume: a packet its sender
 *    starts at s reaches leaf 1 at s + 10 us, so the bytes leaf 1 counts for
 *    link 11 never grow from (pause effective) + 10 us until the resume
 *    takes effect (sampled every 100 ns: from the first sample that sees
 *    the pause + 10 us to the first that sees it lifted);
 *  - headroom: after the count passes xoff, at most what is on the link
 *    (10 us x B = 12.5 kB), what the sender starts while the pause travels
 *    (12.5 kB) and one packet arrive: max <= 60 + 25 + 1.5 = 86.5 kB;
 *  - no packet is lost (no drop although 100 kB would drop: a sender's
 *    bytes wait upstream instead), every byte is delivered once;
 *  - xon (30 kB) covers a resume's round trip (2 x 10 us x B = 25 kB), and
 *    a resumed switch port holds the queue it was paused with, so the
 *    bottleneck never idles once host 3's first packet reaches it at 10 us:
 *    the last bit of the 3 MB arrives at 10 us + 3e6 x 0.8 ns + 10 us =
 *    2 420 us, as with unbounded buffers and no flow control. */
typedef struct pfc_watch {
    swnet *st;
    uint32_t link;      /* the watched link (its sender's pauses) */
    int paused_seen;    /* the last sample saw it paused */
    int64_t t_seen;     /* when that pause was first seen */
    uint64_t last;      /* the count at the previous sample */
    unsigned intervals; /* pauses seen that lasted beyond 10 us */
    unsigned grew;      /* samples where the count grew inside a pause */
    int64_t end_ps;
} pfc_watch;

static void pfc_sample(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    pfc_watch *w = ctx;
    int64_t now = sim_now(s);
    int paused = w->st->paused[w->link] & 1;
    uint64_t cnt = w->st->ingress[(size_t)w->link * w->st->nclass];
    if (paused && !w->paused_seen)
        w->t_seen = now;
    if (paused && w->paused_seen && now >= w->t_seen + 10000000) {
        if (cnt > w->last)
            w->grew++;
        if (now - 100000 < w->t_seen + 10000000)
            w->intervals++;
    }
    w->paused_seen = paused;
    w->last = cnt;
    if (now + 100000 <= w->end_ps)
        sim_schedule_at(s, now + 100000, pfc_sample, w, 0);
}

START_TEST(test_pfc_leaf_spine)
{
    int64_t last[2];
    for (int pfc = 0; pfc < 2; pfc++) {
        net_params core = star(4);
        const char *sets_pfc[] = {"network.leaves=2", "network.spines=1", "network.hosts-per-leaf=2",
                                  "network.mtu=1500B", "network.flow-control=pfc", "network.pfc-xoff=60kB",
                                  "network.pfc-xon=30kB", "network.buffer=100kB", NULL};
        const char *sets_inf[] = {"network.leaves=2", "network.spines=1", "network.hosts-per-leaf=2",
                                  "network.mtu=1500B", "network.flow-control=infinite", NULL};
        th_net *h = th_net_new("leaf-spine", &core, pfc ? sets_pfc : sets_inf, NULL, 1, 8);
        net_msg *m[3] = {th_at_low(h, 0, 0, 2, 1000000), th_at_low(h, 0, 1, 2, 1000000),
                         th_at_low(h, 0, 3, 2, 1000000)};
        static pfc_watch w[2];
        if (pfc) {
            for (int k = 0; k < 2; k++) {
                memset(&w[k], 0, sizeof w[k]);
                w[k].st = h->n->state;
                w[k].link = k ? 6 : 11;
                w[k].end_ps = 2500000000;
                sim_schedule_at(h->s, 0, pfc_sample, &w[k], 0);
            }
        }
        th_net_go(h);
        int64_t end = 0;
        for (int i = 0; i < 3; i++) {
            ck_assert_uint_eq(m[i]->a, 1);
            if ((int64_t)m[i]->b > end)
                end = (int64_t)m[i]->b;
        }
        ck_assert_uint_eq(h->bytes, 3000000);
        last[pfc] = end;
        if (pfc) {
            net_queue_report r = {0};
            ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
            ck_assert_int_eq(r.pfc, 1);
            ck_assert_uint_eq(r.drops, 0);
            ck_assert_msg(r.queue_max > 100000, "queue max %g B: the 100-kB buffer was never passed",
                          r.queue_max);
            ck_assert_uint_ge(r.pause_frames, 4); /* host 3, the spine, leaf 0's uplink, hosts 0 and 1 */
            ck_assert_msg(r.ingress_max <= 60000 + 2 * 12500 + 1500, "ingress max %g B", r.ingress_max);
            ck_assert_msg(r.ingress_max > 60000, "ingress max %g B", r.ingress_max);
            for (int k = 0; k < 2; k++) {
                ck_assert_msg(w[k].intervals >= 1, "link %u: no pause of its sender seen", w[k].link);
                ck_assert_msg(w[k].grew == 0, "link %u: %u samples grew while its sender was paused", w[k].link,
                              w[k].grew);
            }
        }
        /* at the end every ingress count is back to 0, nothing paused */
        ck_assert_uint_eq(swnet_credit_leaks(h->n->state), 0);
        th_net_free(h);
    }
    ck_assert_int_eq(last[0], 2420000000);
    ck_assert_int_eq(last[1], last[0]);
}
END_TEST

/* Incast on a leaf-spine with tcp over drop-tail ports: 7 hosts (both
 * leaves) send 500 kB each to host 7 through 60-kB output buffers (2 x 2
 * leaf-spine, 4 hosts per leaf, ECMP): the port to host 7 drops (the
 * fabric's drops equal the segments the transport lost), TCP recovers every
 * loss, every byte is delivered once and no flow record is left. Every
 * transmission past a segment's first either replaces a lost one or
 * arrives as a duplicate (no ACK is lost: the ports toward the senders never
 * fill), so duplicates = retransmissions - drops. */
START_TEST(test_incast_leaf_spine)
{
    net_params core = star(8);
    const char *sets[] = {"network.leaves=2", "network.spines=2", "network.hosts-per-leaf=4", "network.mtu=1500B",
                          "network.flow-control=infinite", "network.buffer=60kB", NULL};
    th_net *h = th_net_new("leaf-spine", &core, sets, NULL, 1, 16);
    tp_params tp = tparams("tcp");
    tp_inst *t = attach(h, &tp);
    net_msg *m[7];
    for (uint32_t i = 0; i < 7; i++)
        m[i] = th_at_low(h, 0, i, 7, 500000);
    th_net_go(h);
    for (int i = 0; i < 7; i++)
        ck_assert_uint_eq(m[i]->a, 1);
    ck_assert_uint_eq(h->bytes, 3500000);
    net_queue_report r = {0};
    ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_gt(r.drops, 0);
    ck_assert_uint_eq(r.drops, c.dropped);
    ck_assert_uint_le(r.queue_max, 60000);
    ck_assert_uint_eq(c.flows_live, 0);
    ck_assert_uint_eq(c.duplicates, c.retransmissions - c.dropped);
    th_net_free(h);
}
END_TEST

/* One path per flow: ECMP hashes a connection, so a tcp flow's segments
 * (each a message of the fabric) and its ACKs follow one spine and arrive in
 * order. Hosts 0-3 (leaf 0) send 1 MB each to hosts 4-7 (leaf 1) over 2
 * spines with unbounded buffers: nothing can be lost, so any retransmission
 * would be spurious (reordering seen as loss). Hashing each segment apart
 * sprays a flow over both spines, whose queues differ: here 1314 spurious
 * retransmissions before flows were hashed whole. */
START_TEST(test_ecmp_per_flow)
{
    net_params core = star(8);
    const char *sets[] = {"network.leaves=2", "network.spines=2", "network.hosts-per-leaf=4", "network.mtu=1500B",
                          "network.flow-control=infinite", NULL};
    th_net *h = th_net_new("leaf-spine", &core, sets, NULL, 1, 16);
    tp_params tp = tparams("tcp");
    tp_inst *t = attach(h, &tp);
    net_msg *m[4];
    for (uint32_t i = 0; i < 4; i++)
        m[i] = th_at_low(h, (int64_t)i * 1000000, i, 4 + (i + 1) % 4, 1000000);
    th_net_go(h);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(m[i]->a, 1);
    tp_counters c;
    tp_get_counters(t, &c);
    ck_assert_uint_eq(c.retransmissions, 0);
    ck_assert_uint_eq(c.fast_retransmits, 0);
    ck_assert_uint_eq(c.duplicates, 0);
    th_net_free(h);
}
END_TEST

/* A workload naming its own transport (workload.transport; net_set_client
 * transport): on a switch with ECN marking (K 30 kB, unbounded buffers) and
 * no run-wide transport, workload A (inherit: none) sends 300 kB 0 -> 2 at
 * t = 0 and workload B (dctcp) 300 kB 1 -> 2 at 1 ms, after A is done. By
 * the definition of the layer each must arrive exactly when it does on a
 * fabric where the whole run has its transport: A as with no transport at
 * all, B as with dctcp for everything; and only B's message is cut into
 * segments (300000 / 1460 -> 206) and acked. */
typedef struct wl_rec {
    sim *s;
    int64_t t;
    unsigned n;
} wl_rec;

static net *wl_b;
static void wl_send_b(sim *s, void *ctx, uint64_t arg)
{
    (void)s, (void)arg;
    net_send(wl_b, ctx);
}

static void wl_deliver(void *owner, net_msg *m)
{
    (void)m;
    wl_rec *r = owner;
    r->t = sim_now(r->s);
    r->n++;
}

START_TEST(test_workload_transport)
{
    const char *sets[] = {"network.mtu=1500B", "network.ecn-threshold=30kB", NULL};
    int64_t ref[2]; /* A with no transport, B with dctcp run-wide */
    for (int k = 0; k < 2; k++) {
        net_params core = star(3);
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("dctcp");
        if (k)
            attach(h, &tp);
        net_msg *m = th_at_low(h, k ? 1000000000 : 0, k ? 1 : 0, 2, 300000);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        ref[k] = (int64_t)m->b;
        th_net_free(h);
    }
    net_params core = star(3);
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    char err[256] = "";
    wl_rec ra = {h->s, 0, 0}, rb = {h->s, 0, 0};
    static const uint32_t map[] = {0, 1, 2};
    net *a = net_attach(h->n, 3, map, NET_PRIO_LOW, wl_deliver, &ra, err, sizeof err);
    net *b = net_attach(h->n, 3, map, NET_PRIO_LOW, wl_deliver, &rb, err, sizeof err);
    ck_assert_msg(a && b, "%s", err);
    tp_params tp = tparams("dctcp");
    tp_inst *tb = tp_create(h->n, &tp);
    net_set_client_transport(b, tb);
    net_msg ma, mb;
    memset(&ma, 0, sizeof ma);
    memset(&mb, 0, sizeof mb);
    ma.src = 0, ma.dst = 2, ma.size_bytes = 300000, ma.cls = NET_DATA, ma.prio = NET_PRIO_LOW;
    mb = ma;
    mb.src = 1;
    net_send(a, &ma);
    wl_b = b;
    sim_schedule_at(h->s, 1000000000, wl_send_b, &mb, 0);
    th_net_go(h);
    ck_assert_uint_eq(ra.n, 1);
    ck_assert_uint_eq(rb.n, 1);
    ck_assert_int_eq(ra.t, ref[0]);
    ck_assert_int_eq(rb.t, ref[1]);
    tp_counters c;
    tp_get_counters(tb, &c);
    ck_assert_uint_eq(c.segments, 206);
    ck_assert_uint_gt(c.acks, 0);
    ck_assert_uint_eq(c.flows_live, 0);
    tp_counters all;
    ck_assert_int_eq(net_transport_counters(h->n, &all), 1);
    ck_assert_uint_eq(all.segments, 206);
    ck_assert_uint_eq(all.delivered_bytes, 300000); /* goodput counts B's bytes only: A's never met a transport */
    th_net_free(h);
}
END_TEST

/* Quick ACKs at connection start (transport.quick-ack): init-cwnd 1 and
 * delayed-ack 2, a message of 4 full segments. Without quick ACKs the
 * receiver holds the ACK of the lone first segment for delayed-ack-timeout
 * (200 ms): the sender can send nothing meanwhile (the pathology behind the
 * SPINet tail of random configuration 429). With quick-ack 16 every
 * segment is acked at once: segment 0 leaves at 0 and is acked at RTT
 * (cwnd 2); segments 1, 2 leave at RTT and RTT + SER; the ACK of 1 at 2 RTT
 * (cwnd 3, one outstanding) lets segment 3 go, which completes the message
 * one way later: 2 RTT + ONE_WAY = 103.664 us. */
START_TEST(test_quick_ack)
{
    int64_t t[2];
    for (int q = 0; q < 2; q++) {
        net_params core = star(2);
        const char *sets[] = {"network.mtu=1500B", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("tcp");
        tp.init_cwnd = 1;
        tp.delayed_ack = 2;
        tp.quick_ack = q ? 16 : 0;
        attach(h, &tp);
        net_msg *m = th_at_low(h, 0, 0, 1, 4 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        t[q] = (int64_t)m->b;
        th_net_free(h);
    }
    ck_assert_int_eq(t[1], 2 * (int64_t)RTT + ONE_WAY);
    ck_assert_int_ge(t[0], 200000000000); /* the delayed-ACK timer */
}
END_TEST

/* network.host-buffer: a drop-tail queue at the sending host's NIC (ns-3's
 * host pfifo_fast of 1000 packets). 15 kB holds 10 segments of 1500 B
 * waiting; a packet on the wire no longer counts. init-cwnd 20 hands 20
 * segments to the NIC at t = 0: segment 0 goes on the wire at once, 1..10
 * wait (15 000 B, full), 11..19 find it full: 9 drops, counted by the
 * fabric and by the transport. Recovery by hand: segment k leaves at
 * k SER and is acked at RTT + k SER (delayed-ack 1); the last ACK (of 10)
 * restarts the timer at RTT + 10 SER with RTO = max(min-rto 10 ms, SRTT +
 * 4 RTTVAR = 3 x 41 us) = 10 ms; at T0 = RTT + 10 SER + 10 ms the timeout
 * sends 11 with cwnd 1 (ssthresh = 9 x 1460 / 2 = 6570 B). Ack 11 at T0 +
 * RTT (cwnd 2: 12, 13 at T0 + RTT, + SER), ack 12 at T0 + 2 RTT (cwnd 3:
 * 14, 15), ack 13 (cwnd 4: 16, 17), ack 14 at T0 + 3 RTT (cwnd 5: 18, and
 * 19 one SER later): the message is whole when 19 arrives, at T0 + 3 RTT +
 * SER + ONE_WAY. Without the host buffer nothing is lost and the message
 * arrives at 19 SER + ONE_WAY. network.host-buffer-packets="10" (ns-3
 * counts packets) holds the same 10 segments: the same by hand (b = 2). */
START_TEST(test_host_buffer)
{
    int64_t at[3];
    for (int bb = 0; bb < 3; bb++) {
        int b = bb > 0;
        net_params core = star(2);
        const char *sets[] = {"network.mtu=1500B",
                              bb == 2 ? "network.host-buffer-packets=10"
                              : b     ? "network.host-buffer=15kB"
                                      : "network.host-buffer=0B",
                              NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        ck_assert_int_eq(h->n->lossy, b ? NET_LOSSY_HOST : 0); /* only the hosts' queues drop */
        tp_params tp = tparams("tcp");
        tp.init_cwnd = 20;
        tp_inst *t = attach(h, &tp);
        net_msg *m = th_at_low(h, 0, 0, 1, 20 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        ck_assert_uint_eq(h->bytes, 20 * MSS);
        at[bb] = (int64_t)m->b;
        tp_counters c;
        tp_get_counters(t, &c);
        net_queue_report r = {0};
        int rep = h->n->ops->queue_report(h->n->state, sim_now(h->s), &r);
        ck_assert_int_eq(rep, b);
        ck_assert_uint_eq(r.drops, b ? 9 : 0);
        ck_assert_uint_eq(c.dropped, b ? 9 : 0);
        ck_assert_uint_eq(c.timeouts, b ? 1 : 0);
        ck_assert_uint_eq(c.retransmissions, b ? 9 : 0);
        ck_assert_uint_eq(c.flows_live, 0);
        th_net_free(h);
    }
    ck_assert_int_eq(at[0], 19 * (int64_t)SER + ONE_WAY);
    int64_t t0 = RTT + 10 * (int64_t)SER + 10000000000;
    ck_assert_int_eq(at[1], t0 + 3 * (int64_t)RTT + SER + ONE_WAY);
    ck_assert_int_eq(at[2], at[1]);
}
END_TEST

/* network.buffer-packets at the switch's output ports (ns-3's pfifo_fast
 * counts packets over its bands, an ACK as one). (a) Where every packet
 * waiting is a 1500-B segment, 10 packets are 15 kB: a 2-to-1 incast of 20
 * segments each (init-cwnd 20) runs the same with buffer=15kB as with
 * buffer-packets=10 (same drops, same delivery times), and drops. (b) A
 * limit of 1 packet: hosts 1, 2, 3 each send one segment to host 0, at 0,
 * SER / 4 and SER / 2. Host 1's goes on the wire of port 0 when its head
 * arrives (10 us) and holds it until 10 us + SER; host 2's head arrives at
 * 10 us + SER / 4: the port is busy, nothing waits, it waits; host 3's at
 * 10 us + SER / 2 finds 1 packet waiting: dropped (1 drop; a 15-kB byte
 * limit keeps all three: 0 drops). */
START_TEST(test_buffer_packets)
{
    int64_t at[2][2];
    uint64_t drops[2];
    for (int k = 0; k < 2; k++) {
        net_params core = star(3);
        const char *sets[] = {"network.mtu=1500B", k ? "network.buffer-packets=10" : "network.buffer=15kB", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        ck_assert_int_eq(h->n->lossy, 1);
        tp_params tp = tparams("tcp");
        tp.init_cwnd = 20;
        tp_inst *t = attach(h, &tp);
        net_msg *a = th_at_low(h, 0, 1, 0, 20 * MSS), *b = th_at_low(h, 0, 2, 0, 20 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(a->a, 1);
        ck_assert_uint_eq(b->a, 1);
        at[k][0] = (int64_t)a->b;
        at[k][1] = (int64_t)b->b;
        tp_counters c;
        tp_get_counters(t, &c);
        drops[k] = c.dropped;
        th_net_free(h);
    }
    ck_assert_uint_gt(drops[0], 0);
    ck_assert_uint_eq(drops[1], drops[0]);
    ck_assert_int_eq(at[1][0], at[0][0]);
    ck_assert_int_eq(at[1][1], at[0][1]);
    for (int k = 0; k < 2; k++) {
        net_params core = star(4);
        const char *sets[] = {"network.mtu=1500B", k ? "network.buffer-packets=1" : "network.buffer=15kB", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("tcp");
        tp_inst *t = attach(h, &tp);
        th_at_low(h, 0, 1, 0, MSS);
        th_at_low(h, SER / 4, 2, 0, MSS);
        th_at_low(h, SER / 2, 3, 0, MSS);
        th_net_go(h);
        tp_counters c;
        tp_get_counters(t, &c);
        ck_assert_uint_eq(c.dropped, k ? 1 : 0);
        ck_assert_uint_eq(c.timeouts, k ? 1 : 0);
        ck_assert_uint_eq(h->bytes, 3 * MSS);
        th_net_free(h);
    }
}
END_TEST

/* transport.ack-class: the class a receiver's ACKs travel in (ns-3: a
 * receiving socket without an IP ToS sends them at priority 0, pfifo_fast's
 * band 1). Host 1 hands 50 segments of flow A (class 2, to host 0) to its
 * NIC at t = 0 (init-cwnd 50): its uplink is busy until 50 SER = 60 us.
 * Flow B, one segment of class 0 from host 0 to host 1, arrives whole at
 * ONE_WAY = 21.2 us and is acked at once (its last segment). With ACKs in
 * their flow's class (0) or in class 1, the ACK goes before A's class-2
 * segments: it leaves when the segment on the wire ends, at 18 SER =
 * 21.6 us, and reaches host 0 one ACK way later (10 us + 32 ns + 10 us =
 * RTT - ONE_WAY): 41.632 us. In class 3 it waits behind all of A: it
 * leaves at 60 us and arrives at 80.032 us. */
static int64_t ack_b_at;
static void ack_b_probe(void *ctx, const tp_flow *f, int ev)
{
    if (ev == TP_EV_ACK && f->src == 0 && ack_b_at < 0) /* f->msg is NULL once delivered */
        ack_b_at = sim_now((sim *)ctx);
}

START_TEST(test_ack_class)
{
    const int cls[3] = {0, 2, 4}; /* data, class 1, class 3 */
    int64_t at[3];
    for (int k = 0; k < 3; k++) {
        net_params core = star(2);
        const char *sets[] = {"network.mtu=1500B", "network.host-scheduling=priority", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("tcp");
        tp.init_cwnd = 50;
        tp.ack_class = cls[k];
        tp_inst *t = attach(h, &tp);
        ack_b_at = -1;
        tp_set_probe(t, ack_b_probe, h->s);
        net_msg *a = th_at(h, 0, 1, 0, 50 * MSS, 2, NET_DATA);
        net_msg *b = th_at(h, 0, 0, 1, MSS, 0, NET_DATA);
        th_net_go(h);
        ck_assert_uint_eq(a->a, 1);
        ck_assert_uint_eq(b->a, 1);
        ck_delivered_at(b, ONE_WAY);
        at[k] = ack_b_at;
        th_net_free(h);
    }
    ck_assert_int_eq(at[0], 18 * (int64_t)SER + (RTT - ONE_WAY));
    ck_assert_int_eq(at[1], at[0]);
    ck_assert_int_eq(at[2], 50 * (int64_t)SER + (RTT - ONE_WAY));
}
END_TEST

/* PFC on the torus and the dragonfly: a pause priority per (class, VC).
 * Hu et al. (HotNets 2016): a pause stops a priority on a link whatever
 * the packets' VCs, so with one priority per class the routes' ring and
 * group cycles become cycles of paused links that never resume. With a
 * priority per (class, VC) a packet that entered a switch in VC x and waits
 * at an output for VC y holds a pause on (in link, x) that depends on (out
 * link, y) alone: the routing's channel dependencies, which its classes
 * keep acyclic (topo_torus.c, topo_dragonfly.c heads), so every pause is
 * resumed (swnet.c head, Output buffers).
 * Both fabrics: 10 Gb/s, links 100 ns, no switch latency, 1500-B packets,
 * xoff 3 kB, xon 1.5 kB (a (link, priority) holding 2 packets pauses).
 * Default headroom: (2 x 100 ns) x 10 Gb/s = 250 B + one packet: no
 * (link, priority) ever holds more than 3 kB + 1750 B = 4750 B, i.e. 3
 * packets (4500 B). The shared-priority runs (swnet_pfc_shared, the test
 * aid mapping every VC of a class to one priority, as on a tree) show the
 * deadlock: messages left undelivered, packets stuck, and a cycle of paused
 * (link, priority) pairs each holding packets that wait at the next
 * (swnet_pfc_wait_cycle); no drop either way (PFC is lossless). */
typedef struct pfc_run {
    int msgs, done;
    uint64_t live, cycle, leaks, drops, pauses;
    double ingress_max;
} pfc_run;

static pfc_run pfc_fabric_run(const char *fabric, uint32_t hosts, const char *const *sets, int shared,
                              int (*pick)(uint32_t a, uint32_t b))
{
    net_params core = th_star(hosts, 10e9);
    core.link_latency_ps = 100000;
    core.switch_latency_ps = 0;
    th_net *h = th_net_new(fabric, &core, sets, NULL, 1, (size_t)hosts * hosts);
    swnet *st = h->n->state;
    if (shared)
        swnet_pfc_shared(st);
    net_msg **m = calloc((size_t)hosts * hosts, sizeof *m);
    pfc_run r = {0};
    for (uint32_t a = 0; a < hosts; a++)
        for (uint32_t b = 0; b < hosts; b++)
            if (a != b && pick(a, b))
                m[r.msgs++] = th_at_low(h, 0, a, b, 30000);
    th_net_go(h);
    for (int i = 0; i < r.msgs; i++) {
        ck_assert_uint_le(m[i]->a, 1); /* never twice */
        r.done += (int)m[i]->a;
    }
    if (r.done == r.msgs)
        ck_assert_uint_eq(h->bytes, (uint64_t)r.msgs * 30000);
    net_queue_report q = {0};
    ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &q), 1);
    r.live = st->st.live_packets;
    r.cycle = swnet_pfc_wait_cycle(st);
    r.leaks = swnet_credit_leaks(st);
    r.drops = q.drops;
    r.pauses = q.pause_frames;
    r.ingress_max = q.ingress_max;
    free(m);
    th_net_free(h);
    return r;
}

/* the per-VC run completes, the shared one deadlocks */
static void pfc_expect(const char *what, pfc_run v, pfc_run s)
{
    ck_assert_msg(v.done == v.msgs, "%s, a priority per VC: %d of %d messages delivered", what, v.done, v.msgs);
    ck_assert_uint_eq(v.drops, 0);
    ck_assert_uint_gt(v.pauses, 0);
    ck_assert_uint_eq(v.leaks, 0); /* every pause resumed, every ingress count back to 0, no packet left */
    ck_assert_msg(v.ingress_max > 3000 && v.ingress_max <= 4750, "%s: ingress max %g B", what, v.ingress_max);
    ck_assert_msg(s.done < s.msgs, "%s, one priority per class: every message delivered", what);
    ck_assert_uint_gt(s.live, 0);
    ck_assert_msg(s.cycle >= 2, "%s, one priority per class: no cycle of paused links", what);
    ck_assert_uint_eq(s.drops, 0);
}

/* 4 x 4 torus. dor: every host sends to the host two hops along its ring
 * (the antipode: DOR breaks the tie by the message's salt), so every ring
 * link carries transit traffic (shared: 12 of 16 delivered, a cycle of the
 * 4 paused links of a ring); valiant and romm (4 classes: dateline x
 * phase): all-to-all (shared: 5 and 60 of 240). */
static int torus_antipode(uint32_t a, uint32_t b) { return b / 4 == a / 4 && b % 4 == (a % 4 + 2) % 4; }
static int all_pairs(uint32_t a, uint32_t b)
{
    (void)a;
    (void)b;
    return 1;
}

START_TEST(test_pfc_torus)
{
    const char *rt[] = {"network.routing=dor", "network.routing=valiant", "network.routing=romm"};
    for (int i = 0; i < 3; i++) {
        const char *sets[] = {"network.dims=4 4", "network.mtu=1500B", "network.flow-control=pfc",
                              "network.pfc-xoff=3kB", "network.pfc-xon=1.5kB", rt[i], NULL};
        pfc_run v = pfc_fabric_run("torus", 16, sets, 0, i ? all_pairs : torus_antipode);
        pfc_run s = pfc_fabric_run("torus", 16, sets, 1, i ? all_pairs : torus_antipode);
        ck_assert_int_eq(v.msgs, i ? 240 : 16);
        pfc_expect(rt[i], v, s);
    }
}
END_TEST

/* Dragonfly of 9 groups of 2 routers (2 hosts, 4 global links each: one
 * link between every pair of groups), all-to-all 30 kB, with each routing
 * (minimal: 2 classes; valiant and ugal: 3). */
START_TEST(test_pfc_dragonfly)
{
    const char *rt[] = {"network.routing=minimal", "network.routing=valiant", "network.routing=ugal"};
    for (int i = 0; i < 3; i++) {
        const char *sets[] = {"network.groups=9", "network.routers-per-group=2", "network.hosts-per-router=2",
                              "network.global-links=4", "network.mtu=1500B", "network.flow-control=pfc",
                              "network.pfc-xoff=3kB", "network.pfc-xon=1.5kB", rt[i], NULL};
        pfc_run v = pfc_fabric_run("dragonfly", 36, sets, 0, all_pairs);
        pfc_run s = pfc_fabric_run("dragonfly", 36, sets, 1, all_pairs);
        ck_assert_int_eq(v.msgs, 36 * 35);
        pfc_expect(rt[i], v, s);
    }
}
END_TEST

/* PFC headroom (network.pfc-headroom), by hand, on the switch and on a
 * leaf-spine (2 leaves of 2 hosts, 1 spine): B = 10 Gb/s, links 10 us, no
 * switch latency, xoff 15 kB, xon 7.5 kB, tcp with mss 1 MB (mtu 1 MB +
 * 40 B): a message is one segment is one packet. Host 1 sends 1 MB to host
 * 2 at 0: its one packet reaches the port toward host 2 (the switch's; on
 * the leaf-spine leaf 0's uplink) at 10 us, finds it idle and holds it for
 * 1 000 040 x 0.8 ns = 800.032 us. Host 0 hands 40 messages of 1460 B
 * (segments of 1500 B) to its NIC at 1 us: segment k starts at 1 + 1.2 k
 * us and waits at that port from 11 + 1.2 k us, so host 0's ingress count
 * is 1500 (k + 1) B. It passes xoff with k = 10 (16.5 kB) at 23 us; the
 * pause stops host 0 a link later, at 33 us, after it started segments 0
 * .. 26 (26: 32.2 us; 27 would start at 33.4 us). With the default
 * headroom ((2 x 10 us) x B = 25 kB + mtu: the round trip) all 27 wait:
 * ingress max 27 x 1500 = 40.5 kB, no drop. With pfc-headroom 12 kB a
 * (host, class) holds at most 15 + 12 = 27 kB = 18 segments: segments 18
 * .. 26 find the headroom exhausted, 9 drops, each its flow's only
 * segment, so 9 timeouts and 9 retransmissions recover them; the fabric
 * says it is lossy (a transport must recover). With a switch latency of
 * 5 us (default headroom) everything moves 5 us later but host 0's start:
 * segment k waits from 16 + 1.2 k us, passes xoff (k = 10) at 28 us, the
 * pause stops host 0 at 38 us after segments 0 .. 30: 31 x 1500 = 46.5 kB
 * held, xoff + 25 kB + 6.5 kB: the round trip includes the switch's 5 us
 * (6.25 kB at B), which a headroom of 2 link x B + one packet (41.5 kB
 * with 1500-B packets) would not hold. Every byte is delivered once in
 * every case. */
static uint64_t pfc_held;
static void pfc_hold_sample(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    (void)arg;
    const swnet *st = ctx;
    pfc_held = st->ingress[0]; /* host 0's uplink, class 0 (VC 0) */
}

START_TEST(test_pfc_headroom)
{
    for (int fab = 0; fab < 2; fab++)
        for (int small = 0; small < 3; small++) {
            net_params core = star(fab ? 4 : 3);
            if (small == 2) { /* the default headroom again, with a switch latency of 5 us */
                core.switch_latency_ps = 5000000;
            }
            const char *sets[] = {"network.mtu=1000040B", "network.flow-control=pfc", "network.pfc-xoff=15kB",
                                  "network.pfc-xon=7.5kB", small == 1 ? "network.pfc-headroom=12kB" : "network.mtu=1000040B",
                                  "network.leaves=2", "network.spines=1", "network.hosts-per-leaf=2", NULL};
            if (!fab)
                sets[5] = NULL;
            th_net *h = th_net_new(fab ? "leaf-spine" : "electrical-switch", &core, sets, NULL, 1, 64);
            ck_assert_int_eq(h->n->lossy, small == 1 ? NET_LOSSY_PFC : 0);
            tp_params tp = tparams("tcp");
            tp.mss_bytes = 1000000;
            tp_inst *t = attach(h, &tp);
            pfc_held = 0;
            if (fab)
                sim_schedule_at(h->s, 500000000, pfc_hold_sample, h->n->state, 0);
            net_msg *big = th_at_low(h, 0, 1, 2, 1000000);
            net_msg *m[40];
            for (int i = 0; i < 40; i++)
                m[i] = th_at_low(h, 1000000, 0, 2, 1460);
            th_net_go(h);
            ck_assert_uint_eq(big->a, 1);
            for (int i = 0; i < 40; i++)
                ck_assert_uint_eq(m[i]->a, 1);
            ck_assert_uint_eq(h->bytes, 1000000 + 40 * 1460);
            net_queue_report r = {0};
            ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
            tp_counters c;
            tp_get_counters(t, &c);
            uint64_t drops = small == 1 ? 9 : 0;
            ck_assert_uint_eq(r.drops, drops);
            ck_assert_uint_eq(c.dropped, drops);
            ck_assert_uint_eq(c.timeouts, drops);
            ck_assert_uint_eq(c.retransmissions, drops);
            ck_assert_uint_eq(c.flows_live, 0);
            /* the switch counts waiting packets only; the switched core counts
             * every packet joining an output (the 1-MB one too, for the instant
             * before it leaves), so there host 0's count is sampled at 500 us */
            uint64_t held = fab ? pfc_held : (uint64_t)r.ingress_max;
            uint64_t want = small == 0 ? 40500 : small == 1 ? 27000 : 46500;
            ck_assert_msg(held == want, "%s, case %d: host 0 held %llu B", fab ? "leaf-spine" : "switch", small,
                          (unsigned long long)held);
            if (fab)
                ck_assert_uint_eq(swnet_credit_leaks(h->n->state), 0);
            th_net_free(h);
        }
}
END_TEST

/* ---- limited transmit (RFC 3042) ---- */

typedef struct lt_rec {
    tp_inst *t;
    int64_t fr_at;      /* when the fast retransmit went (-1: none) */
    uint64_t fr_segs;   /* segments sent by then, the retransmission included */
    uint64_t fr_ssthresh;
} lt_rec;

static void lt_probe(void *ctx, const tp_flow *f, int ev)
{
    lt_rec *r = ctx;
    if (ev != TP_EV_FAST_RETRANSMIT || r->fr_at >= 0)
        return;
    tp_counters c;
    tp_get_counters(r->t, &c);
    r->fr_at = sim_now(tp_flow_sim(f));
    r->fr_segs = c.segments;
    r->fr_ssthresh = f->ssthresh;
}

/* A single drop in a window of W = 3 segments (init-cwnd 3, a message of 5
 * segments, segment 0 lost on its first transmission, delayed-ack 1).
 * Segments 1 and 2 leave at 0 and SER (0 never reached the NIC) and bring
 * two duplicate ACKs, at RTT and RTT + SER.
 *   Without limited transmit nothing more may go (3 outstanding = cwnd):
 *   two duplicate ACKs are too few for a fast retransmit, and the timer
 *   (armed at 0 with initial-rto, no RTT sample yet) fires at 1 s; segment
 *   0 again at 1 s, acked (3 held: ack 3) at 1 s + RTT, where slow start
 *   (cwnd 1 -> 2) sends 3 and 4 back to back: the last reaches the receiver
 *   at 1 s + RTT + SER + ONE_WAY.
 *   With it, each duplicate ACK sends one new segment: 3 at RTT, 4 at RTT +
 *   SER (FlightSize 4, then 5 segments <= cwnd + 2 = 5). 3's duplicate ACK,
 *   the third, comes at 2 RTT: fast retransmit of 0 at 2 RTT, which
 *   completes the message at 2 RTT + ONE_WAY. Segments sent between the
 *   drop and the fast retransmit: 1, 2, 3, 4 (W - 1 + 2); with the lost one
 *   and the retransmission 6 segments by then. ssthresh leaves the two new
 *   segments out of FlightSize (RFC 5681 sec. 3.2 step 2): max(3 / 2, 2) =
 *   2 mss (with them: 5 / 2 = 2.5 mss).
 * And in a window of W = 10 (init-cwnd 10, 14 segments, 0 lost): again
 * exactly 2 new segments before the fast retransmit: W + 2 + 1 = 13 sent by
 * then (11 without). */
START_TEST(test_limited_transmit)
{
    for (int lt = 0; lt < 2; lt++)
        for (int w = 3; w <= 10; w += 7) {
            net_params core = star(2);
            const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
            th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
            tp_params tp = tparams("tcp");
            tp.init_cwnd = (uint32_t)w;
            tp.limited_transmit = lt;
            tp_inst *t = attach(h, &tp);
            static lt_rec r;
            r.t = t;
            r.fr_at = -1;
            tp_set_probe(t, lt_probe, &r);
            uint32_t lost = 0;
            tp_set_loss(t, &lost, 1);
            net_msg *m = th_at_low(h, 0, 0, 1, (uint64_t)(w + 2 + (w > 3 ? 2 : 0)) * MSS);
            th_net_go(h);
            tp_counters c;
            tp_get_counters(t, &c);
            ck_assert_uint_eq(c.limited_transmits, lt ? 2 : 0);
            if (w == 3 && !lt) {
                ck_delivered_at(m, tp.init_rto_ps + RTT + SER + ONE_WAY);
                ck_assert_uint_eq(c.timeouts, 1);
                ck_assert_uint_eq(c.fast_retransmits, 0);
            } else if (w == 3) {
                ck_delivered_at(m, 2 * (int64_t)RTT + ONE_WAY);
                ck_assert_int_eq(r.fr_at, 2 * (int64_t)RTT);
                ck_assert_uint_eq(r.fr_segs, 6);
                ck_assert_uint_eq(r.fr_ssthresh, 2 * MSS);
                ck_assert_uint_eq(c.timeouts, 0);
                ck_assert_uint_eq(c.retransmissions, 1);
            } else {
                ck_assert_uint_eq(m->a, 1);
                ck_assert_uint_eq(r.fr_segs, lt ? 13 : 11);
                ck_assert_uint_eq(c.timeouts, 0);
            }
            th_net_free(h);
        }
}
END_TEST

/* network.buffer under PFC: each of a port's pause priorities may hold
 * xoff + headroom, so priorities x (xoff + headroom) must fit in the
 * buffer, or the configuration is refused. One class, xoff 15 kB: the
 * default headroom on the switch (links 10 us, 1500-B packets) is 25 kB +
 * 1.5 kB, so 41.5 kB fit in 41.5 kB and not in 41 kB; with pfc-headroom
 * 16 kB, 31 kB fit in 31 kB and not in 30 kB; with 8 classes (priority
 * strict) 8 x 31 = 248 kB. A shared buffer (dynamic) is refused. */
START_TEST(test_pfc_buffer_check)
{
    net_params core = star(3);
    struct {
        const char *hr, *buf, *extra;
        int ok;
    } cases[] = {{"network.mtu=1500B", "network.buffer=41.5kB", NULL, 1},
                 {"network.mtu=1500B", "network.buffer=41kB", NULL, 0},
                 {"network.pfc-headroom=16kB", "network.buffer=31kB", NULL, 1},
                 {"network.pfc-headroom=16kB", "network.buffer=30kB", NULL, 0},
                 {"network.pfc-headroom=16kB", "network.buffer=248kB", "network.priority=strict", 1},
                 {"network.pfc-headroom=16kB", "network.buffer=247kB", "network.priority=strict", 0},
                 {"network.pfc-headroom=16kB", "network.buffer=1MB", "network.buffer-policy=dynamic", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int fab = 0; fab < 2; fab++) {
            const char *sets[] = {"network.mtu=1500B", "network.flow-control=pfc", "network.pfc-xoff=15kB",
                                  "network.pfc-xon=7.5kB", cases[i].hr, cases[i].buf,
                                  cases[i].extra ? cases[i].extra : "network.mtu=1500B",
                                  "network.leaves=2", "network.spines=1", "network.hosts-per-leaf=2", NULL};
            if (!fab)
                sets[7] = NULL;
            char err[1024] = "";
            core = star(fab ? 4 : 3);
            th_net *h = th_net_try(fab ? "leaf-spine" : "electrical-switch", &core, sets, NULL, 1, 4, err, sizeof err);
            ck_assert_msg((h != NULL) == cases[i].ok, "case %zu (%s): %s", i, fab ? "leaf-spine" : "switch", err);
            if (!cases[i].ok)
                ck_assert_msg(strstr(err, "network.buffer") != NULL, "case %zu: %s", i, err);
            th_net_free(h);
        }
    }
}
END_TEST

/* ---- SACK (RFC 2018, RFC 6675) ---- */

/* The scoreboard by hand (mss 1000 B): una 0, max 10; blocks [2,4), [5,6),
 * [7,8) SACK segments 2, 3, 5, 7. IsLost needs 3 SACKed above: the third
 * highest SACKed is 3, so 0 and 1 are lost, 4, 6, 8, 9 are not. Outside
 * recovery (HighRxt = HighACK) pipe = the not-lost unSACKed 4, 6, 8, 9 =
 * 4000 B; in recovery after 0 was retransmitted (high_rxt 1) 0 counts too:
 * 5000 B. NextSeg: rule 1 gives 1 (lost, above HighRxt); once 1 went
 * (high_rxt 2) nothing lost is left: rule 2 gives new data (10) if the
 * receive window allows (rwnd 20), else rule 3 the first unSACKed above
 * HighRxt below the highest SACKed: 4, then 6, then none (8 is above 7, the
 * highest SACKed). A short last segment (nseg 10, 300 B) counts its bytes:
 * 3 x 1000 + 300 = 3300 B outside recovery. Across the bitmap's wrap (bit s
 * % 4096): una 4090, max 4110, [4094,4101) and [4105,4107) SACK 9; the
 * third highest is 4100, so 4092 is lost and 4101 is not; pipe = 4101..4104
 * and 4107..4109 = 7 segments. */
START_TEST(test_sack_scoreboard)
{
    static tp_flow f;
    memset(&f, 0, sizeof f);
    f.mss = 1000;
    f.nseg = 20;
    f.last_payload = 1000;
    f.una = 0;
    f.max = 10;
    ck_assert_uint_eq(tp_sb_mark(&f, 2, 4), 2);
    ck_assert_uint_eq(tp_sb_mark(&f, 5, 6), 1);
    ck_assert_uint_eq(tp_sb_mark(&f, 7, 8), 1);
    ck_assert_uint_eq(tp_sb_mark(&f, 2, 4), 0); /* reported again: nothing new */
    ck_assert_uint_eq(tp_sb_mark(&f, 12, 14), 0); /* beyond max: ignored */
    ck_assert_uint_eq(f.sacked_n, 4);
    ck_assert_uint_eq(tp_sb_count(&f, 0, 10), 4);
    ck_assert_uint_eq(tp_sb_count(&f, 3, 6), 2);
    ck_assert(tp_sb_is_lost(&f, 0));
    ck_assert(tp_sb_is_lost(&f, 1));
    ck_assert(!tp_sb_is_lost(&f, 4));
    ck_assert(!tp_sb_is_lost(&f, 6));
    ck_assert(!tp_sb_is_lost(&f, 9));
    ck_assert_uint_eq(tp_sb_pipe(&f), 4000);
    f.in_fr = 1;
    f.high_rxt = 1;
    ck_assert_uint_eq(tp_sb_pipe(&f), 5000);
    ck_assert_uint_eq(tp_sb_next_seg(&f, 20), 1);
    f.high_rxt = 2;
    ck_assert_uint_eq(tp_sb_pipe(&f), 6000);
    ck_assert_uint_eq(tp_sb_next_seg(&f, 20), 10);
    ck_assert_uint_eq(tp_sb_next_seg(&f, 10), 4);
    f.high_rxt = 5;
    ck_assert_uint_eq(tp_sb_next_seg(&f, 10), 6);
    f.high_rxt = 7;
    ck_assert_uint_eq(tp_sb_next_seg(&f, 10), UINT32_MAX);
    f.in_fr = 0;
    f.nseg = 10;
    f.last_payload = 300;
    ck_assert_uint_eq(tp_sb_pipe(&f), 3300);
    ck_assert_uint_eq(tp_sb_next_seg(&f, 20), 0); /* outside recovery HighRxt is HighACK (una - 1): 0, lost */

    memset(&f, 0, sizeof f);
    f.mss = 1000;
    f.nseg = 5000;
    f.last_payload = 1000;
    f.una = 4090;
    f.max = 4110;
    ck_assert_uint_eq(tp_sb_mark(&f, 4094, 4101), 7);
    ck_assert_uint_eq(tp_sb_mark(&f, 4105, 4107), 2);
    ck_assert_uint_eq(tp_sb_count(&f, 4090, 4110), 9);
    ck_assert_uint_eq(tp_sb_count(&f, 4096, 4100), 4);
    ck_assert(tp_sb_is_lost(&f, 4092));
    ck_assert(!tp_sb_is_lost(&f, 4101));
    ck_assert_uint_eq(tp_sb_pipe(&f), 7000);
}
END_TEST

/* The scoreboard against RFC 6675's definitions read literally, one
 * segment at a time (an independent reimplementation: no bitmap, no
 * search for the third highest SACKed), on 20,000 random scoreboards
 * (mss 1000 B, a short last segment, una anywhere up to 10,000 so the
 * bitmap wraps, up to 5 blocks, in or out of recovery, HighRxt anywhere
 * in [una, max]): IsLost(s) (sec. 4: more than (DupThresh - 1) mss bytes
 * SACKed above s, or DupThresh discontiguous SACKed runs above it),
 * SetPipe (sec. 4: every unSACKed segment in [una, max) counts its bytes
 * once if not IsLost and once more if at or below HighRxt, in recovery)
 * and NextSeg (sec. 4 rules 1-3: the first unSACKed segment above HighRxt
 * below the highest SACKed that IsLost; else new data if the receive
 * window rwnd allows; else the first unSACKed above HighRxt below the
 * highest SACKed) agree with tp_sb_is_lost, tp_sb_pipe and
 * tp_sb_next_seg. (review5: the same comparison on 600,000 scoreboards
 * found no difference.) */
static unsigned char ref_sacked[16384];
static int ref_is_lost(const tp_flow *f, uint32_t s)
{
    uint64_t bytes = 0;
    int runs = 0, in = 0;
    for (uint32_t k = s + 1; k < f->max; k++) {
        if (ref_sacked[k]) {
            bytes += k + 1 == f->nseg ? f->last_payload : f->mss;
            runs += !in;
            in = 1;
        } else
            in = 0;
    }
    return bytes > 2 * (uint64_t)f->mss || runs >= 3;
}

START_TEST(test_sack_scoreboard_reference)
{
    static tp_flow f;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 6675);
    for (int it = 0; it < 20000; it++) {
        memset(&f, 0, sizeof f);
        memset(ref_sacked, 0, sizeof ref_sacked);
        uint32_t base = gsl_rng_uniform_int(g, 3) ? 0 : (uint32_t)gsl_rng_uniform_int(g, 10000);
        f.mss = 1000;
        f.nseg = base + 1 + (uint32_t)gsl_rng_uniform_int(g, 200);
        f.last_payload = 1 + (uint32_t)gsl_rng_uniform_int(g, 1000);
        f.una = base + (uint32_t)gsl_rng_uniform_int(g, f.nseg - base);
        f.max = f.una + 1 + (uint32_t)gsl_rng_uniform_int(g, f.nseg - f.una);
        f.in_fr = (int)gsl_rng_uniform_int(g, 2);
        f.high_rxt = f.una + (uint32_t)gsl_rng_uniform_int(g, f.max - f.una + 1);
        for (int b = (int)gsl_rng_uniform_int(g, 6); b > 0; b--) {
            uint32_t a = f.una + (uint32_t)gsl_rng_uniform_int(g, f.max - f.una + 1);
            uint32_t e = a + (uint32_t)gsl_rng_uniform_int(g, 8);
            if (e > f.max)
                e = f.max;
            tp_sb_mark(&f, a, e);
            for (uint32_t k = a; k < e; k++)
                ref_sacked[k] = 1;
        }
        uint32_t rwnd = 1 + (uint32_t)gsl_rng_uniform_int(g, 300);
        uint64_t pipe = 0;
        uint32_t hi = 0, rule1 = UINT32_MAX, rule3 = UINT32_MAX;
        int any = 0;
        for (uint32_t s = f.una; s < f.max; s++) {
            if (ref_sacked[s]) {
                hi = s;
                any = 1;
                continue;
            }
            uint64_t b = s + 1 == f.nseg ? f.last_payload : f.mss;
            int lost = ref_is_lost(&f, s);
            REQUIRE(tp_sb_is_lost(&f, s) == lost, "it %d: IsLost(%u) %d", it, s, lost);
            pipe += (lost ? 0 : b) + (f.in_fr && s < f.high_rxt ? b : 0);
        }
        uint32_t from = f.in_fr && f.high_rxt > f.una ? f.high_rxt : f.una;
        for (uint32_t s = from; any && s < hi; s++)
            if (!ref_sacked[s]) {
                if (rule3 == UINT32_MAX)
                    rule3 = s;
                if (rule1 == UINT32_MAX && ref_is_lost(&f, s))
                    rule1 = s;
            }
        uint32_t next = rule1 != UINT32_MAX ? rule1 : f.max < f.nseg && f.max - f.una < rwnd ? f.max : rule3;
        REQUIRE(tp_sb_pipe(&f) == pipe, "it %d: pipe %llu, RFC 6675 %llu", it, (unsigned long long)tp_sb_pipe(&f),
                (unsigned long long)pipe);
        REQUIRE(tp_sb_next_seg(&f, rwnd) == next, "it %d: NextSeg %u, RFC 6675 %u", it, tp_sb_next_seg(&f, rwnd),
                next);
    }
    gsl_rng_free(g);
}
END_TEST

/* Two drops in one window: a message of 10 segments, init-cwnd 10, 2 and 5
 * lost on their first transmission, delayed-ack 1. What reached the NIC
 * leaves back to back: 0, 1, 3, 4, 6, 7, 8, 9 at 0, SER, ..., 7 SER. A
 * plain ACK returns RTT after its segment's first bit; one with n SACK
 * blocks is 4 + 8 n bytes longer (44 + 8 n B), 800 ps a byte more on its
 * last link.
 *   NewReno (sack off): 3, 4, 6 bring the third duplicate ACK at 4 SER +
 *   RTT: 2 again, received at 4 SER + RTT + ONE_WAY (3, 4 held: ack 5, at
 *   once), a partial ACK at 4 SER + 2 RTT sends 5, which completes the
 *   message at 4 SER + 2 RTT + ONE_WAY = 108.464 us: one RTT per hole.
 *   SACK: 3 and 4 SACKed (1 block each), 6's ACK ([6,7), [3,5): 2 blocks)
 *   is the third duplicate: recovery, ssthresh = cwnd = 8 / 2 = 4 mss, 2
 *   again (HighRxt 2); pipe = 5 mss (5, 7, 8, 9 not lost, 2 retransmitted).
 *   7's ACK: pipe 4 (5, 8, 9, and 2), nothing sent. 8's ACK (2 blocks, at 6
 *   SER + ONE_WAY + 20 us + 60 B x 800 ps): SACKed 3, 4, 6, 7, 8, the third
 *   highest is 6, so 5 IsLost; pipe = 9 and 2 = 2 mss, cwnd - pipe = 2 mss:
 *   NextSeg rule 1 gives 5, sent then and received ONE_WAY later, with
 *   every other segment held: delivered at 6 SER + 2 ONE_WAY + 20 us + 48 ns
 *   = 69.648 us, one recovery, two retransmissions, no timeout. */
START_TEST(test_sack_two_drops)
{
    int64_t at[2];
    for (int sack = 0; sack < 2; sack++) {
        net_params core = star(2);
        const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("tcp");
        tp.sack = sack;
        tp_inst *t = attach(h, &tp);
        uint32_t lost[] = {2, 5};
        tp_set_loss(t, lost, 2);
        net_msg *m = th_at_low(h, 0, 0, 1, 10 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        at[sack] = (int64_t)m->b;
        tp_counters c;
        tp_get_counters(t, &c);
        ck_assert_uint_eq(c.fast_retransmits, 1);
        ck_assert_uint_eq(c.retransmissions, 2);
        ck_assert_uint_eq(c.timeouts, 0);
        /* the ACKs of 3, 4 carry 1 block, of 6..9 2, of 2's retransmission 1 ([6,10)) */
        ck_assert_uint_eq(c.sack_blocks, sack ? 1 + 1 + 4 * 2 + 1 : 0);
        th_net_free(h);
    }
    ck_assert_int_eq(at[0], 4 * (int64_t)SER + 2 * (int64_t)RTT + ONE_WAY);
    ck_assert_int_eq(at[1], 6 * (int64_t)SER + 2 * (int64_t)ONE_WAY + 20000000 + 60 * 800);
}
END_TEST

/* Invariants with sack and limited transmit on, tcp and dctcp, on random
 * mixes with heavy loss: every message completes exactly once, bytes
 * conserved, no flow record left; drop-tail buffers of 6 kB (4 packets)
 * and 30 kB; SACK recovers (fast retransmits happen) and drops happen. */
/* transport.handshake (ns-3 TcpSocketBase, basic-sim's timers; RFC 6298
 * sec. 2 for the sample). A SYN and a SYN-ACK are 40 B (header): one way
 * 10 us + 40 B x 0.8 ns + 10 us = 20.032 us, so the handshake's round trip
 * is 40.064 us; the one data segment (1460 B) then reaches the receiver
 * ONE_WAY = 21.2 us after it leaves at 40.064 us:
 *   (a) no loss: delivered at 40.064 + 21.2 = 61.264 us; 1 SYN.
 *   (b) the data segment lost, min-rto 100 us: the SYN's round trip is the
 *       first sample, SRTT 40.064, RTTVAR 20.032, RTO = max(100, 40.064 + 4
 *       x 20.032) = 120.192 us, so the timer armed at 40.064 fires at
 *       160.256 and the retransmission arrives at 181.456 us. Without the
 *       handshake the timer is initial-rto (1 s): 1 s + 21.2 us.
 *   (c) the first SYN lost, initial-rto 500 us: sent again at 500 us (the
 *       connection timer, initial-rto x 2^0), SYN-ACK back at 540.064,
 *       delivered at 561.264 us; 2 SYNs, 1 timeout.
 *   (d) (c) and the data segment lost: no sample from a SYN sent twice
 *       (Karn), so the data's RTO is initial-rto: 540.064 + 500 + 21.2 =
 *       1061.264 us; 2 timeouts.
 *   (e) the first two SYNs lost: the second waits 2 x 500 us (backoff):
 *       SYNs at 0, 500 and 1500 us, delivered at 1561.264 us.
 *   (f) completion="close" (basic-sim's FCT ends at the sender's close): the
 *       message is complete when the ACK of its last byte, sent at once (the
 *       FIN's), is back: (a) + 20.032 us = 81.296 us; without the handshake
 *       ONE_WAY + 20.032 us = RTT = 41.232 us. */
START_TEST(test_handshake)
{
    const int64_t ACK1 = 20032000, HS = 2 * ACK1; /* ps */
    struct {
        int hs, syn_lost, data_lost, close;
        int64_t min_rto, init_rto, at;
        uint64_t syns, timeouts;
    } cs[] = {
        {1, 0, 0, 0, 100000000, 1000000000000, HS + ONE_WAY, 1, 0},
        {1, 0, 1, 0, 100000000, 1000000000000, HS + 3 * HS + ONE_WAY, 1, 1},
        {0, 0, 1, 0, 100000000, 1000000000000, 1000000000000 + ONE_WAY, 0, 1},
        {1, 1, 0, 0, 100000000, 500000000, 500000000 + HS + ONE_WAY, 2, 1},
        {1, 1, 1, 0, 100000000, 500000000, 500000000 + HS + 500000000 + ONE_WAY, 2, 2},
        {1, 2, 0, 0, 100000000, 500000000, 1500000000 + HS + ONE_WAY, 3, 2},
        {1, 0, 0, 1, 100000000, 1000000000000, HS + ONE_WAY + ACK1, 1, 0},
        {0, 0, 0, 1, 100000000, 1000000000000, RTT, 0, 0},
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        net_params core = star(2);
        const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("tcp");
        tp.handshake = cs[k].hs;
        tp.completion = cs[k].close;
        tp.min_rto_ps = cs[k].min_rto;
        tp.init_rto_ps = cs[k].init_rto;
        tp_inst *t = attach(h, &tp);
        uint32_t lost = 0;
        if (cs[k].data_lost)
            tp_set_loss(t, &lost, 1);
        tp_set_syn_loss(t, (uint32_t)cs[k].syn_lost);
        net_msg *m = th_at_low(h, 0, 0, 1, MSS);
        th_net_go(h);
        ck_delivered_at(m, cs[k].at);
        tp_counters c;
        tp_get_counters(t, &c);
        ck_assert_uint_eq(c.syns, cs[k].syns);
        ck_assert_uint_eq(c.timeouts, cs[k].timeouts);
        ck_assert_uint_eq(c.syn_timeouts, cs[k].hs ? (uint64_t)cs[k].syn_lost : 0);
        ck_assert_uint_eq(c.flows_live, 0);
        th_net_free(h);
    }
}
END_TEST

/* transport.connection="persistent": one byte stream per (source,
 * destination, class, priority); window, ssthresh and RTT state carry over
 * from message to message (ns-3's sockets: no restart after idle).
 *   (a) state carried over: A = 20 segments at 0, B = 20 segments at 1 ms
 *       (A long done). Every ACK of A's slow start adds a segment (delayed
 *       ACK 1): cwnd 10 + 20 = 30 when B comes, so B's 20 segments leave
 *       back to back: B delivered at 1 ms + 19 SER + ONE_WAY = 1044.0 us.
 *       A connection per message starts B at 10 segments: segments 10 + j
 *       leave at RTT + j SER after the first ACK (test_slow_start), the last
 *       (j = 9) at 1 ms + RTT + 9 SER: delivered at 1 ms + RTT + 9 SER +
 *       ONE_WAY = 1073.232 us.
 *   (b) messages queue in the stream: A = 20 segments and B = 100 B, both
 *       at 0. B is segment 20 of the stream: round 1 sends 0..9, each of its
 *       10 ACKs (at RTT + k SER) lets 2 go, back to back from RTT, so
 *       segment 10 + j leaves at RTT + j SER; B (j = 10) at RTT + 10 SER,
 *       140 B on the wire (ser 112 ns): delivered at RTT + 10 SER + 20 us +
 *       112 ns = 73.344 us. A connection of its own sends B behind A's 10
 *       first segments at the NIC: 10 SER + 20.112 us = 32.112 us. */
START_TEST(test_persistent)
{
    for (int c = 0; c < 2; c++)
        for (int pers = 0; pers < 2; pers++) {
            net_params core = star(2);
            const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
            th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
            tp_params tp = tparams("tcp");
            tp.persistent = pers;
            tp_inst *t = attach(h, &tp);
            net_msg *a = th_at_low(h, 0, 0, 1, 20 * MSS);
            net_msg *b = th_at_low(h, c == 0 ? 1000000000 : 0, 0, 1, c == 0 ? 20 * MSS : 100);
            th_net_go(h);
            ck_assert_uint_eq(a->a, 1);
            if (c == 0)
                ck_delivered_at(b, pers ? 1000000000 + 19 * (int64_t)SER + ONE_WAY
                                        : 1000000000 + (int64_t)RTT + 9 * (int64_t)SER + ONE_WAY);
            else
                ck_delivered_at(b, pers ? (int64_t)RTT + 10 * (int64_t)SER + 20000000 + 112000
                                        : 10 * (int64_t)SER + 20000000 + 112000);
            tp_counters k;
            tp_get_counters(t, &k);
            ck_assert_uint_eq(k.delivered_bytes, 20 * MSS + (c == 0 ? 20 * MSS : 100));
            ck_assert_uint_eq(k.flows_live, pers ? 1 : 0); /* the connection stays open */
            ck_assert_uint_eq(k.retransmissions, 0);
            th_net_free(h);
        }
}
END_TEST

/* Quick ACKs on a persistent connection count the stream's segments, not a
 * message's: ns-3 sets m_delAckCount = DelAckCount once, when the
 * connection is established (TcpSocketBase::ProcessSynSent and
 * ProcessSynRcvd, "Always respond to first data packet"), so only the first
 * data segment of a long-lived socket is acked at once (the thesis'
 * Horovod sockets, configs/paper/thesis-coexistence-basicsim.xml).
 * init-cwnd 1, delayed-ack 2 (timeout 200 ms); A = 1 segment at 0 (stream
 * segment 0), B = 3 segments at 1 ms (stream segments 1, 2, 3).
 *   quick-ack 1: A's segment is acked at once, at RTT (cwnd 2). B's
 *     segments 1, 2 leave at 1 ms and 1 ms + SER; segment 1 is the
 *     stream's second, so its ACK waits; segment 2 makes two pending and is
 *     acked at once, back at 1 ms + SER + RTT (cwnd 3, nothing out):
 *     segment 3 leaves then and B is whole at 1 ms + SER + RTT + ONE_WAY.
 *     (Counted per message, B's first segment would be acked at once and B
 *     whole SER earlier: the quick-ack 2 case.)
 *   quick-ack 2: segment 1 is acked at once too, back at 1 ms + RTT (una 2,
 *     cwnd 3, segment 2 out): segment 3 leaves then, B whole at 1 ms + RTT
 *     + ONE_WAY.
 *   quick-ack 0: A's lone segment waits for the 200-ms delayed-ACK timer
 *     and B, behind it in the window of 1, cannot leave before. */
START_TEST(test_quick_ack_persistent)
{
    const int64_t t0 = 1000000000; /* 1 ms */
    for (int q = 0; q < 3; q++) {
        net_params core = star(2);
        const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
        th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
        tp_params tp = tparams("tcp");
        tp.persistent = 1;
        tp.init_cwnd = 1;
        tp.delayed_ack = 2;
        tp.quick_ack = (uint32_t)q;
        attach(h, &tp);
        net_msg *a = th_at_low(h, 0, 0, 1, MSS);
        net_msg *b = th_at_low(h, t0, 0, 1, 3 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(a->a, 1);
        ck_assert_uint_eq(b->a, 1);
        if (q == 1)
            ck_delivered_at(b, t0 + (int64_t)SER + (int64_t)RTT + ONE_WAY);
        else if (q == 2)
            ck_delivered_at(b, t0 + (int64_t)RTT + ONE_WAY);
        else
            ck_assert_int_ge((int64_t)b->b, 200000000000); /* the delayed-ACK timer */
        th_net_free(h);
    }
}
END_TEST

/* Invariants on random mixes with persistent connections (tcp and dctcp,
 * SACK and handshake off and on, 6-kB drop-tail ports: many drops): every
 * message delivered exactly once, bytes conserved, the messages of one
 * (source, destination) pair delivered in the order they were handed over,
 * one connection record per pair used. */
START_TEST(test_persistent_random_mixes)
{
    const char *types[] = {"tcp", "dctcp"};
    for (int ti = 0; ti < 2; ti++)
        for (int v = 0; v < 2; v++) {
            net_params core = star(8);
            core.link_latency_ps = 1000000;
            const char *sets[] = {"network.mtu=1500B", "network.buffer=6kB", NULL};
            th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 7, 512);
            tp_params tp = tparams(types[ti]);
            tp.delayed_ack = 2;
            tp.min_rto_ps = 1000000000; /* 1 ms */
            tp.persistent = 1;
            tp.sack = v;
            tp.limited_transmit = v;
            tp.handshake = (ti + v) % 2;
            tp_inst *t = attach(h, &tp);
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 77 + (unsigned long)(ti * 2 + v));
            net_msg *ms[300];
            int64_t at[300];
            uint32_t src[300], dst[300];
            uint64_t total = 0;
            int used[8][8] = {{0}};
            uint64_t pairs = 0;
            for (int i = 0; i < 300; i++) {
                uint32_t s = (uint32_t)gsl_rng_uniform_int(g, 8), d = (uint32_t)gsl_rng_uniform_int(g, 7);
                if (d >= s)
                    d++;
                uint64_t bytes = 1 + gsl_rng_uniform_int(g, 100000);
                total += bytes;
                at[i] = (int64_t)gsl_rng_uniform_int(g, 2000) * 1000000;
                src[i] = s;
                dst[i] = d;
                pairs += !used[s][d];
                used[s][d] = 1;
                ms[i] = th_at_low(h, at[i], s, d, bytes);
            }
            th_net_go(h);
            for (int i = 0; i < 300; i++) {
                REQUIRE(ms[i]->a == 1, "%s v%d: message %d delivered %llu times", types[ti], v, i,
                        (unsigned long long)ms[i]->a);
                for (int j = 0; j < 300; j++)
                    REQUIRE(!(src[j] == src[i] && dst[j] == dst[i] && at[j] < at[i] && ms[j]->b > ms[i]->b),
                            "%s v%d: message %d (handed over at %lld) delivered after %d (at %lld)", types[ti], v, j,
                            (long long)at[j], i, (long long)at[i]);
            }
            REQUIRE(h->bytes == total, "%s v%d: %llu bytes of %llu delivered", types[ti], v,
                    (unsigned long long)h->bytes, (unsigned long long)total);
            tp_counters c;
            tp_get_counters(t, &c);
            REQUIRE(c.flows_live == pairs, "%s v%d: %llu connection records for %llu pairs", types[ti], v,
                    (unsigned long long)c.flows_live, (unsigned long long)pairs);
            REQUIRE(c.dropped > 100 && c.timeouts > 0, "%s v%d: %llu drops, %llu timeouts", types[ti], v,
                    (unsigned long long)c.dropped, (unsigned long long)c.timeouts);
            REQUIRE(tp.handshake ? c.syns >= pairs : c.syns == 0, "%s v%d: %llu SYNs for %llu pairs", types[ti], v,
                    (unsigned long long)c.syns, (unsigned long long)pairs);
            gsl_rng_free(g);
            th_net_free(h);
        }
}
END_TEST

START_TEST(test_sack_random_mixes)
{
    const char *types[] = {"tcp", "dctcp"};
    const char *bufs[][4] = {{"network.mtu=1500B", "network.buffer=6kB", NULL, NULL},
                             {"network.mtu=1500B", "network.buffer=30kB", "network.ecn-threshold=9kB", NULL}};
    for (int ti = 0; ti < 2; ti++)
        for (int bi = 0; bi < 2; bi++) {
            net_params core = star(8);
            core.link_latency_ps = 1000000;
            th_net *h = th_net_new("electrical-switch", &core, bufs[bi], NULL, 7, 512);
            tp_params tp = tparams(types[ti]);
            tp.delayed_ack = 2;
            tp.min_rto_ps = 1000000000; /* 1 ms */
            tp.sack = 1;
            tp.limited_transmit = 1;
            tp.handshake = (ti + bi) % 2; /* SYNs and SYN-ACKs through the same small buffers in two of the four */
            tp_inst *t = attach(h, &tp);
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 31 + (unsigned long)(ti * 2 + bi));
            net_msg *ms[300];
            uint64_t total = 0;
            for (int i = 0; i < 300; i++) {
                uint32_t s = (uint32_t)gsl_rng_uniform_int(g, 8), d = (uint32_t)gsl_rng_uniform_int(g, 7);
                if (d >= s)
                    d++;
                uint64_t bytes = 1 + gsl_rng_uniform_int(g, 200000);
                total += bytes;
                ms[i] = th_at_low(h, (int64_t)gsl_rng_uniform_int(g, 2000) * 1000000, s, d, bytes);
            }
            th_net_go(h);
            for (int i = 0; i < 300; i++)
                REQUIRE(ms[i]->a == 1, "%s, buffers %d: message %d delivered %llu times", types[ti], bi, i,
                        (unsigned long long)ms[i]->a);
            REQUIRE(h->bytes == total, "%s: %llu bytes of %llu delivered", types[ti], (unsigned long long)h->bytes,
                    (unsigned long long)total);
            tp_counters c;
            tp_get_counters(t, &c);
            REQUIRE(c.flows_live == 0, "%s: %llu flow records left", types[ti], (unsigned long long)c.flows_live);
            REQUIRE(tp.handshake ? c.syns >= 300 : c.syns == 0, "%s, buffers %d: %llu SYNs", types[ti], bi,
                    (unsigned long long)c.syns);
            REQUIRE(c.dropped > 100 && c.fast_retransmits > 10 && c.sack_blocks > 100,
                    "%s, buffers %d: %llu drops, %llu recoveries, %llu SACK blocks", types[ti], bi,
                    (unsigned long long)c.dropped, (unsigned long long)c.fast_retransmits,
                    (unsigned long long)c.sack_blocks);
            gsl_rng_free(g);
            th_net_free(h);
        }
}
END_TEST

/* ---- dctcp variant="ns-3" (tp_dctcp.c's head: ns-3 3.37's TcpDctcp) ----
 * Each test runs one scenario with variant rfc and ns-3 and checks both
 * values, worked by hand (the star of this file's head; no ECN threshold
 * at the port, so the only CE marks are tp_set_mark's). */

/* a probe keeping what these tests read: the sender's state after every
 * event of the first NREC */
#define NREC 64
typedef struct nrec {
    size_t n;
    int64_t t[NREC];
    uint32_t una[NREC];
    uint64_t cwnd[NREC], ssthresh[NREC];
    double alpha[NREC];
    int ev[NREC];
} nrec;

static void nprobe(void *ctx, const tp_flow *f, int ev)
{
    nrec *r = ctx;
    if (r->n < NREC) {
        r->t[r->n] = sim_now(tp_flow_sim(f));
        r->una[r->n] = f->una;
        r->cwnd[r->n] = f->cwnd;
        r->ssthresh[r->n] = f->ssthresh;
        r->alpha[r->n] = f->alpha;
        r->ev[r->n] = ev;
        r->n++;
    }
}

static size_t nrec_find(const nrec *r, int ev)
{
    size_t k = 0;
    while (k < r->n && r->ev[k] != ev)
        k++;
    ck_assert_uint_lt(k, r->n);
    return k;
}

/* dctcp with variant v (0 rfc, 1 ns-3) on a 2-host star with a 10-MB buffer */
static th_net *ns3_net(int v, tp_params *tp, tp_inst **t, nrec *r)
{
    net_params core = star(2);
    const char *sets[] = {"network.mtu=1500B", "network.buffer=10MB", NULL};
    th_net *h = th_net_new("electrical-switch", &core, sets, NULL, 1, 4);
    tp->variant = v ? TP_VARIANT_NS3 : TP_VARIANT_RFC;
    *t = attach(h, tp);
    memset(r, 0, sizeof *r);
    tp_set_probe(*t, nprobe, r);
    return h;
}

/* (a) ssthresh on a loss. test_fast_retransmit's flow (200 segments,
 * segment 30 lost, delayed-ack 1, init-cwnd 10, Reno growth) as dctcp, no
 * marks. alpha starts at 1, and an observation window ends at the first ACK
 * with una > its end (dctcp_init: end 0): at ACK 1 (alpha = 15/16, M = 0;
 * end = nxt = 10) and at ACK 11 (alpha = (15/16)^2 = 225/256; end = nxt =
 * 10 + 2 x 10 = 30: each of ACKs 1..10 let 2 segments go). una stops at
 * 30, so alpha = 225/256 = 0.87890625 at the fast retransmit, with cwnd =
 * 40 mss = 58 400 B (test_fast_retransmit) and FlightSize 40 segments.
 *   rfc: ssthresh = max(40 / 2, 2) mss = 29 200 B, cwnd = 23 mss = 33 580 B.
 *   ns-3: ssthresh = (1 - 225/512) x 58 400 = 32 735.9375 -> 32 735 B,
 *   cwnd = 32 735 + 3 x 1460 = 37 115 B.
 * On a timeout: test_tail_drop_rto's flow (20 segments, the last lost):
 * windows end at ACK 1 and ACK 11 again (end = nxt = 20 then: all sent), so
 * alpha = 225/256 when the timer fires, with cwnd = (10 + 19) mss = 42 340
 * B after the 19 ACKs of slow start and 1 segment in flight.
 *   rfc: ssthresh = max(1 / 2, 2) mss = 2 920 B.
 *   ns-3: ssthresh = (1 - 225/512) x 42 340 = 23 733.55 -> 23 733 B. */
START_TEST(test_dctcp_ns3_loss_ssthresh)
{
    for (int v = 0; v < 2; v++) {
        static nrec r;
        tp_params tp = tparams("dctcp");
        tp_inst *t;
        th_net *h = ns3_net(v, &tp, &t, &r);
        uint32_t lost = 30;
        tp_set_loss(t, &lost, 1);
        net_msg *m = th_at_low(h, 0, 0, 1, 200 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        size_t k = nrec_find(&r, TP_EV_FAST_RETRANSMIT);
        ck_assert_double_eq(r.alpha[k], 225.0 / 256);
        ck_assert_uint_eq(r.cwnd[k - 1], 40 * MSS);
        ck_assert_uint_eq(r.ssthresh[k], v ? 32735 : 20 * MSS);
        ck_assert_uint_eq(r.cwnd[k], v ? 32735 + 3 * MSS : 23 * MSS);
        th_net_free(h);

        tp = tparams("dctcp");
        h = ns3_net(v, &tp, &t, &r);
        lost = 19;
        tp_set_loss(t, &lost, 1);
        m = th_at_low(h, 0, 0, 1, 20 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        k = nrec_find(&r, TP_EV_TIMEOUT);
        ck_assert_double_eq(r.alpha[k], 225.0 / 256);
        ck_assert_uint_eq(r.cwnd[k - 1], 29 * MSS);
        ck_assert_uint_eq(r.ssthresh[k], v ? 23733 : 2 * MSS);
        ck_assert_uint_eq(r.cwnd[k], MSS);
        th_net_free(h);
    }
}
END_TEST

/* (b) A loss in CWR. 15 segments, init-cwnd 10, delayed-ack 1; segment 0
 * leaves CE-marked, segment 10 is lost. ACK 1 (segment 0's, at RTT, with
 * ECE) ends the first window with M = 1: alpha = 1, and cuts: cwnd =
 * ssthresh = 10 x (1 - 1/2) = 5 mss, CWR until una passes nxt = 10. With 9
 * outstanding nothing goes until ACK 6 (RTT + 5 SER); ACKs 6..10 then send
 * one segment each, 10..14 at RTT + 5..9 SER (cwnd does not grow in CWR).
 * 10 is lost; 11..14 bring four duplicate ACKs of 10 at 2 RTT + 6..9 SER,
 * while una = 10 is not past 10: still in CWR.
 *   rfc: the third (2 RTT + 8 SER) fast-retransmits 10, which completes the
 *   message (11..14 held) at 2 RTT + 8 SER + ONE_WAY; one fast retransmit,
 *   no timeout.
 *   ns-3: no fast retransmit; the timer, restarted by ACK 10 at RTT + 9 SER
 *   with RTO = max(min-rto 10 ms, SRTT + 4 RTTVAR = 3 x 41.232 us) = 10 ms,
 *   fires at RTT + 9 SER + 10 ms and sends 10 again: delivered at RTT + 9
 *   SER + 10 ms + ONE_WAY; one timeout, no fast retransmit.
 * With limited transmit on and 17 segments: rfc sends 15 and 16 on the
 * first two duplicate ACKs (FlightSize 6, then 7 segments <= cwnd + 2 = 7
 * mss); ns-3 sends none in CWR. */
START_TEST(test_dctcp_ns3_no_fast_retransmit_in_cwr)
{
    for (int v = 0; v < 2; v++)
        for (int lt = 0; lt < 2; lt++) {
            static nrec r;
            tp_params tp = tparams("dctcp");
            tp.limited_transmit = lt;
            tp_inst *t;
            th_net *h = ns3_net(v, &tp, &t, &r);
            uint32_t mark = 0, lost = 10;
            tp_set_mark(t, &mark, 1);
            tp_set_loss(t, &lost, 1);
            net_msg *m = th_at_low(h, 0, 0, 1, (lt ? 17 : 15) * MSS);
            th_net_go(h);
            ck_assert_uint_eq(m->a, 1);
            ck_assert_int_eq(r.t[0], RTT);
            ck_assert_uint_eq(r.cwnd[0], 5 * MSS);
            ck_assert_double_eq(r.alpha[0], 1.0);
            tp_counters c;
            tp_get_counters(t, &c);
            ck_assert_uint_eq(c.limited_transmits, lt && !v ? 2 : 0);
            ck_assert_uint_eq(c.fast_retransmits, v ? 0 : 1);
            ck_assert_uint_eq(c.timeouts, v ? 1 : 0);
            if (!lt) {
                if (v)
                    ck_delivered_at(m, RTT + 9 * (int64_t)SER + tp.min_rto_ps + ONE_WAY);
                else
                    ck_delivered_at(m, 2 * (int64_t)RTT + 8 * (int64_t)SER + ONE_WAY);
            }
            th_net_free(h);
        }
}
END_TEST

/* (c) The ECN cut below 2 segments. init-cwnd 1, delayed-ack 1, 3
 * segments, segment 0 CE-marked. Its ACK (at RTT, ECE) ends the first
 * window with M = 1: alpha = 1, and the cut is 1460 x (1 - 1/2) = 730 B.
 *   rfc: floored to 2 mss = 2 920 B: segments 1 and 2 go at RTT and RTT +
 *   SER; delivered at RTT + SER + ONE_WAY, no timeout.
 *   ns-3: cwnd = 730 B < 1 mss, and segment 1 is not the last: nothing goes.
 *   The timer, restarted by that ACK (RTO 10 ms as in (b)), fires at RTT +
 *   10 ms: ssthresh = (1 - 1/2) x 730 = 365 B, cwnd = 1 mss, segment 1
 *   again... for the first time, acked at 2 RTT + 10 ms; cwnd >= ssthresh:
 *   congestion avoidance, + mss^2 / cwnd = 1 mss: 2 mss, and segment 2
 *   goes: delivered at 2 RTT + 10 ms + ONE_WAY, one timeout.
 * The last segment is the exception: of 1460 + 700 B, the 700-B segment 1
 * fits in 730 B and goes at once (RTT; its 740 B take 10 us + 0.592 us +
 * 10 us = 20 592 000 ps to arrive), as in rfc; of 1460 + 800 B it does
 * not: the timer sends it at RTT + 10 ms (840 B: 20 672 000 ps). */
START_TEST(test_dctcp_ns3_no_floor)
{
    for (int v = 0; v < 2; v++) {
        static nrec r;
        tp_params tp = tparams("dctcp");
        tp.init_cwnd = 1;
        tp_inst *t;
        th_net *h = ns3_net(v, &tp, &t, &r);
        uint32_t mark = 0;
        tp_set_mark(t, &mark, 1);
        net_msg *m = th_at_low(h, 0, 0, 1, 3 * MSS);
        th_net_go(h);
        ck_assert_int_eq(r.ev[0], TP_EV_ACK);
        ck_assert_int_eq(r.t[0], RTT);
        ck_assert_uint_eq(r.cwnd[0], v ? 730 : 2 * MSS);
        ck_assert_uint_eq(r.ssthresh[0], v ? 730 : 2 * MSS);
        tp_counters c;
        tp_get_counters(t, &c);
        ck_assert_uint_eq(c.timeouts, v ? 1 : 0);
        if (v) {
            ck_assert_int_eq(r.ev[1], TP_EV_TIMEOUT);
            ck_assert_int_eq(r.t[1], RTT + tp.min_rto_ps);
            ck_assert_uint_eq(r.ssthresh[1], 365);
            ck_assert_uint_eq(r.cwnd[2], 2 * MSS);
            ck_delivered_at(m, 2 * (int64_t)RTT + tp.min_rto_ps + ONE_WAY);
        } else {
            ck_delivered_at(m, RTT + (int64_t)SER + ONE_WAY);
        }
        th_net_free(h);
        for (int tail = 700; tail <= 800; tail += 100) {
            tp = tparams("dctcp");
            tp.init_cwnd = 1;
            h = ns3_net(v, &tp, &t, &r);
            tp_set_mark(t, &mark, 1);
            m = th_at_low(h, 0, 0, 1, MSS + (uint64_t)tail);
            th_net_go(h);
            int64_t one_way = 20000000 + (int64_t)(tail + 40) * 800;
            if (v && tail == 800)
                ck_delivered_at(m, RTT + tp.min_rto_ps + one_way);
            else
                ck_delivered_at(m, RTT + one_way);
            th_net_free(h);
        }
    }
}
END_TEST

/* (e) The ACK on a change of CE. delayed-ack 2, init-cwnd 10, 40
 * segments, limited transmit on, segment 3 CE-marked; segment k arrives at
 * ONE_WAY + k SER, an ACK sent then arrives at RTT + k SER. The receiver:
 * 1 completes a pair: ACK 2. 2 is held. 3 has CE, a change with 2 held:
 * an ACK at once with the old ECE (0), the state flips, 3 is held. 4 has no
 * CE, a change with 3 held: an ACK at once with ECE, 4 is held. 5 completes
 * the pair: ACK 6.
 *   rfc (RFC 8257 sec. 3.2): the CE-change ACKs acknowledge all received:
 *   3 and 4. The sender sees new data acked up to 2, 3, 4, 6 at RTT + 1, 3,
 *   4, 5 SER; no duplicate ACK, no limited transmit.
 *   ns-3: they acknowledge rcv_nxt - 1: 2 (a duplicate of ACK 2) and 3. The
 *   sender sees 2, 3, 6 at RTT + 1, 4, 5 SER, and the duplicate at RTT + 3
 *   SER sends one segment by limited transmit (13: after ACK 2 cwnd = 11
 *   mss, nxt = 13, and 12 segments outstanding <= 11 + 2). */
/* (a) A timeout during fast recovery. test_dctcp_ns3_loss_ssthresh's flow
 * (200 segments, delayed-ack 1, init-cwnd 10, no marks) with the 16
 * segments 30, 32, .., 60 lost and min-rto 60 us. The third duplicate ACK
 * of 30 starts fast recovery as there: alpha = 225/256, cwnd 40 mss, so
 * 30..69 are out (recover = 70); ns-3: ssthresh = 32 735 B. NewReno's
 * partial ACKs (una 32, 34, 36, a round trip apart) resend one hole each,
 * and the timer, restarted at the first one only (RFC 6582's impatient
 * variant, ns-3's m_isFirstPartialAck), fires while una = 36 < 70: in
 * recovery. No observation window ends in recovery (dctcp's on_ack is not
 * called there), so alpha is still 225/256.
 *   ns-3: TcpSocketBase::ReTxTimeout (state CA_RECOVERY, not CA_LOSS) takes
 *   TcpDctcp::GetSsThresh = (1 - alpha/2) m_cWnd, and in fast recovery
 *   m_cWnd is ssthresh: TcpClassicRecovery::EnterRecovery sets m_cWnd =
 *   m_ssThresh and keeps the inflation in m_cWndInfl (DoRecovery adds to
 *   that only). So ssthresh = (1 - 225/512) x 32 735 = 18 349.49 -> 18 349
 *   B, not (1 - alpha/2) x the inflated window (ssthresh + 3 mss + a
 *   segment per duplicate ACK). */
START_TEST(test_dctcp_ns3_rto_in_recovery)
{
    static nrec r;
    tp_params tp = tparams("dctcp");
    tp.min_rto_ps = 60000000;
    tp_inst *t;
    th_net *h = ns3_net(1, &tp, &t, &r);
    uint32_t lost[16];
    for (int i = 0; i < 16; i++)
        lost[i] = 30 + 2 * (uint32_t)i;
    tp_set_loss(t, lost, 16);
    net_msg *m = th_at_low(h, 0, 0, 1, 200 * MSS);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    size_t k = nrec_find(&r, TP_EV_FAST_RETRANSMIT);
    ck_assert_uint_eq(r.cwnd[k - 1], 40 * MSS);
    ck_assert_uint_eq(r.ssthresh[k], 32735);
    size_t j = nrec_find(&r, TP_EV_TIMEOUT);
    ck_assert_uint_gt(j, k + 1);
    for (size_t i = k + 1; i < j; i++) { /* partial ACKs only: still in recovery at the timeout */
        ck_assert_int_eq(r.ev[i], TP_EV_ACK);
        ck_assert_uint_eq(r.una[i], 32 + 2 * (i - k - 1));
    }
    ck_assert_uint_eq(r.una[j], 36);
    ck_assert_double_eq(r.alpha[j], 225.0 / 256);
    ck_assert_uint_eq(r.ssthresh[j], 18349);
    ck_assert_uint_eq(r.cwnd[j], MSS);
    th_net_free(h);
}
END_TEST

START_TEST(test_dctcp_ns3_ce_change_ack)
{
    for (int v = 0; v < 2; v++) {
        static nrec r;
        tp_params tp = tparams("dctcp");
        tp.delayed_ack = 2;
        tp.limited_transmit = 1;
        tp_inst *t;
        th_net *h = ns3_net(v, &tp, &t, &r);
        uint32_t mark = 3;
        tp_set_mark(t, &mark, 1);
        net_msg *m = th_at_low(h, 0, 0, 1, 40 * MSS);
        th_net_go(h);
        ck_assert_uint_eq(m->a, 1);
        const uint32_t una_rfc[] = {2, 3, 4, 6}, una_ns3[] = {2, 3, 6};
        const int64_t at_rfc[] = {1, 3, 4, 5}, at_ns3[] = {1, 4, 5};
        size_t n = v ? 3 : 4;
        ck_assert_uint_ge(r.n, n);
        for (size_t k = 0; k < n; k++) {
            ck_assert_int_eq(r.ev[k], TP_EV_ACK);
            ck_assert_uint_eq(r.una[k], v ? una_ns3[k] : una_rfc[k]);
            ck_assert_int_eq(r.t[k], RTT + (v ? at_ns3[k] : at_rfc[k]) * (int64_t)SER);
        }
        tp_counters c;
        tp_get_counters(t, &c);
        ck_assert_uint_eq(c.limited_transmits, v ? 1 : 0);
        ck_assert_uint_eq(c.retransmissions, 0);
        th_net_free(h);
    }
}
END_TEST

/* (a) on a timeout repeated in ns-3's CA_LOSS (ReTxTimeout: ssthresh is
 * recomputed only if the state is not CA_LOSS or the head was not sent again
 * since), driving variant ns-3's ops as transport.c's ev_rto does: ssthresh,
 * then cwnd = 1 mss, recover = max, nxt = una, on_timeout. cwnd 10 mss =
 * 14 600 B, alpha 1/2, una 5, max 10:
 *   the first timeout: (1 - 1/4) x 14 600 = 10 950 B;
 *   again with segment 5 sent since (nxt 6 > una): kept, 10 950 B;
 *   again with nothing sent since (nxt = una: the head not retransmitted):
 *   (1 - 1/4) x 1460 = 1 095 B;
 *   an ACK of 10 (= recover) ends the loss recovery: the next timeout, with
 *   cwnd 4 mss = 5 840 B and 12 sent since, recomputes: 4 380 B. */
START_TEST(test_dctcp_ns3_repeated_timeout)
{
    net_params core = star(2);
    th_net *h = th_net_new("electrical-switch", &core, NULL, NULL, 1, 4);
    tp_params tp = tparams("dctcp");
    tp.variant = TP_VARIANT_NS3;
    tp_flow f;
    memset(&f, 0, sizeof f);
    f.t = attach(h, &tp);
    f.mss = MSS;
    f.nseg = 100;
    tp_dctcp_ns3_ops.init(&f);
    f.win_end = 5000; /* no observation window ends here: alpha stays */
    f.alpha = 0.5;
    f.cwnd = 10 * MSS;
    f.una = 5;
    f.nxt = f.max = 10;
    uint64_t want[3] = {10950, 10950, 1095};
    uint32_t nxt_at[3] = {10, 6, 5};
    for (int k = 0; k < 3; k++) {
        f.nxt = nxt_at[k];
        f.ssthresh = tp_dctcp_ns3_ops.ssthresh(&f);
        ck_assert_uint_eq(f.ssthresh, want[k]);
        f.cwnd = MSS;
        f.recover = f.max;
        f.nxt = f.una;
        tp_dctcp_ns3_ops.on_timeout(&f);
        ck_assert_int_eq(f.in_loss, 1);
    }
    f.una = 10;
    f.nxt = f.max = 12;
    tp_dctcp_ns3_ops.on_ack(&f, 5 * MSS, 0);
    ck_assert_int_eq(f.in_loss, 0);
    f.cwnd = 4 * MSS;
    ck_assert_uint_eq(tp_dctcp_ns3_ops.ssthresh(&f), 4380);
    th_net_free(h);
}
END_TEST

static Suite *transport_suite(void)
{
    Suite *s = suite_create("transport");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_slow_start);
    tcase_add_test(t, test_fast_retransmit);
    tcase_add_test(t, test_tail_drop_rto);
    tcase_add_test(t, test_incast_drop_tail);
    tcase_add_test(t, test_dctcp_queue);
    tcase_add_test(t, test_random_mixes);
    tcase_add_test(t, test_random_mixes_topologies);
    tcase_add_test(t, test_fail_at_tcp_recovers);
    tcase_add_test(t, test_fail_at_class_credits);
    tcase_add_test(t, test_fail_at_graph);
    tcase_add_test(t, test_fail_at_iq_ring);
    tcase_add_test(t, test_fail_at_iq_invariants);
    tcase_add_test(t, test_fail_at_populated);
    tcase_add_test(t, test_hops_mean_with_drops);
    tcase_add_test(t, test_pfc_pause);
    tcase_add_test(t, test_dcqcn_one_cnp);
    tcase_add_test(t, test_dctcp_timeout_ends_cwr);
    tcase_add_test(t, test_growth_linux);
    tcase_add_test(t, test_partial_gap_acked_at_once);
    tcase_add_test(t, test_random_mixes_pfc);
    tcase_add_test(t, test_pfc_leaf_spine);
    tcase_add_test(t, test_incast_leaf_spine);
    tcase_add_test(t, test_ecmp_per_flow);
    tcase_add_test(t, test_workload_transport);
    tcase_add_test(t, test_quick_ack);
    tcase_add_test(t, test_after_delivery_no_message);
    tcase_add_test(t, test_host_buffer);
    tcase_add_test(t, test_ack_class);
    tcase_add_test(t, test_pfc_torus);
    tcase_add_test(t, test_pfc_dragonfly);
    tcase_add_test(t, test_pfc_headroom);
    tcase_add_test(t, test_pfc_buffer_check);
    tcase_add_test(t, test_limited_transmit);
    tcase_add_test(t, test_sack_scoreboard);
    tcase_add_test(t, test_sack_scoreboard_reference);
    tcase_add_test(t, test_sack_two_drops);
    tcase_add_test(t, test_sack_random_mixes);
    tcase_add_test(t, test_handshake);
    tcase_add_test(t, test_persistent);
    tcase_add_test(t, test_quick_ack_persistent);
    tcase_add_test(t, test_persistent_random_mixes);
    tcase_add_test(t, test_buffer_packets);
    tcase_add_test(t, test_dctcp_ns3_loss_ssthresh);
    tcase_add_test(t, test_dctcp_ns3_no_fast_retransmit_in_cwr);
    tcase_add_test(t, test_dctcp_ns3_no_floor);
    tcase_add_test(t, test_dctcp_ns3_ce_change_ack);
    tcase_add_test(t, test_dctcp_ns3_repeated_timeout);
    tcase_add_test(t, test_dctcp_ns3_rto_in_recovery);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(transport_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
