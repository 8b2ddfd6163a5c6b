/* SPINet fabric: wiring and routes by enumeration, timings derived by hand
 * from the timing model at the top of networks/net_spinet.c, invariants and
 * reproducibility under random load.
 *
 * Parameters of the hand-derived cases (base_params):
 *   B = 160 Gb/s, packet = 4096 b  -> P = 4096 / 160e9 s = 25600 ps
 *   link 1 m at 5 ns/m             -> t_link = 5000 ps
 *   t_sw = 1000 ps, t_r = 1000 ps, N = 8 -> S = 3 (+ extra)
 *   F = 2 t_link + S t_sw = 13000 ps (S = 3)
 *   zero-load latency of one packet = F + P = 38600 ps
 *   hold (fast NACK) H = max(2*5000 + 2*3*1000 + 1000, 25600 + 3*1000)
 *                      = max(17000, 28600) = 28600 ps
 *   fast NACK of a drop at stage s returns after 2 (5000 + s*1000) + 1000:
 *     s = 1: 13000 ps, s = 3: 17000 ps
 * Wiring for N = 8 (E = 4 elements, shifts 1 then 2): from element a the
 * element b of the last stage is reached with b = a + x1 + 2 x2 (mod 4),
 * x_s the output taken at stage s; node k is on element k/2, port k%2. */
#include <check.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "network.h"
#include "sim.h"
#include "harness.h"
#include "net_spinet.h"
#include "params.h"
#include "spinet_topology.h"


/* ---------------------------------------------------------------- harness */

/* A SPINet instance's parameters as a test sets them: the core's and the
 * fabric's own (networks/net_spinet.h; the physical layer's results set by
 * hand where a test needs them). */
typedef struct sp_params {
    net_params core;
    spn_params own;
} sp_params;

typedef struct harness {
    net *n;              /* the fabric, made by net_create */
    sim *s;              /* engine */
    gsl_rng *rng;        /* the fabric's stream */
    net_msg *msgs;       /* [cap] messages, index in m->a */
    int *deliveries;     /* [cap] times each message was delivered */
    int64_t *t_deliv_ps; /* [cap] delivery time */
    size_t cap;          /* messages available */
} harness;

static void on_deliver(void *owner, net_msg *m)
{
    harness *h = owner;
    ck_assert_uint_lt(m->a, h->cap);
    h->deliveries[m->a]++;
    h->t_deliv_ps[m->a] = sim_now(h->s);
}

static sp_params base_params(uint32_t nodes, uint32_t extra, spn_recovery rec)
{
    sp_params p;
    memset(&p, 0, sizeof p);
    p.core.nodes = nodes;
    p.core.bandwidth_bps = 160e9;
    p.own.extra_stages = extra;
    p.own.switching_time_ps = 1000;
    p.own.reaction_time_ps = 1000;
    p.own.link_length_m = 1.0;
    p.own.packet_bytes = 512;
    p.own.recovery = rec;
    p.own.slot_ps = 100000;
    return p;
}

/* The fabric's check (what `tasknet validate` runs): 0, or -1 with the first problem. */
static int chk(const sp_params *p, char *err, size_t errlen)
{
    param_first first;
    net_spinet_ops.check(&p->core, &p->own, param_report_first(&first, err, errlen));
    return first.rep.n ? -1 : 0;
}

/* rng: NULL -> mt19937 seeded with `seed`; otherwise borrowed and freed by h_close. */
static int h_open(harness *h, const sp_params *p, gsl_rng *rng, unsigned long seed, size_t cap, char *err,
                  size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->s = sim_create();
    h->rng = rng ? rng : gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        gsl_rng_set(h->rng, seed);
    h->cap = cap;
    h->msgs = calloc(cap, sizeof *h->msgs);
    h->deliveries = calloc(cap, sizeof *h->deliveries);
    h->t_deliv_ps = calloc(cap, sizeof *h->t_deliv_ps);
    h->n = net_create(&net_spinet_ops, &p->core, &p->own, NULL, h->s, h->rng, on_deliver, h, err, errlen);
    return h->n ? 0 : -1;
}

static void h_close(harness *h)
{
    if (h->n)
        net_destroy(h->n);
    free(h->msgs);
    free(h->deliveries);
    free(h->t_deliv_ps);
    gsl_rng_free(h->rng);
    sim_destroy(h->s);
}

/* A metric of the fabric's own list, by name (after the run). */
static double spn_metric(net *n, const char *name)
{
    double core[METRIC_CORE_COUNT], own[16];
    ck_assert_uint_le(net_spinet_ops.nmetrics, 16);
    net_metrics(n, core, own);
    for (size_t i = 0; i < net_spinet_ops.nmetrics; i++)
        if (strcmp(net_spinet_ops.metrics[i].name, name) == 0)
            return own[i];
    for (size_t i = 0; i < METRIC_CORE_COUNT; i++)
        if (strcmp(metric_core[i].name, name) == 0)
            return core[i];
    ck_abort_msg("no metric %s", name);
    return NAN;
}

static void h_send(harness *h, uint32_t idx, uint32_t src, uint32_t dst, uint64_t bytes)
{
    ck_assert_uint_lt(idx, h->cap);
    net_msg *m = &h->msgs[idx];
    memset(m, 0, sizeof *m);
    m->src = src;
    m->dst = dst;
    m->size_bytes = bytes;
    m->cls = NET_DATA;
    m->a = idx;
    net_send(h->n, m);
}

static int64_t h_latency(const harness *h, uint32_t idx)
{
    return h->t_deliv_ps[idx] - h->msgs[idx].t_submit_ps;
}

static spinet_stats h_stats(const harness *h)
{
    spinet_stats st;
    spinet_get_stats(h->n->state, &st);
    return st;
}

/* Index of a metric in the fabric's own list. */
static size_t spn_index(const char *name)
{
    for (size_t i = 0; i < net_spinet_ops.nmetrics; i++)
        if (strcmp(net_spinet_ops.metrics[i].name, name) == 0)
            return i;
    ck_abort_msg("spinet has no metric %s", name);
    return 0;
}
#define M(name) spn_index(#name)

/* Its packet retransmissions: the core metric retransmissions, reported
 * through queue_report (no buffers: it returns 0, the retries set). */
static double h_retx(harness *h)
{
    net_queue_report r = {0};
    ck_assert_int_eq(net_spinet_ops.queue_report(h->n->state, 0, &r), 0);
    ck_assert_int_eq(r.has_retx, 1);
    return (double)r.retx;
}

/* The fabric's own metrics (m has room for 16). */
static void h_metrics(harness *h, double *m)
{
    ck_assert_uint_le(net_spinet_ops.nmetrics, 16);
    metric_unset(m, net_spinet_ops.nmetrics);
    net_spinet_ops.fill_metrics(h->n->state, m);
}

#define OPEN(h, p) \
    do { \
        char err_[256]; \
        ck_assert_msg(h_open((h), (p), NULL, 1, 64, err_, sizeof err_) == 0, "%s", err_); \
    } while (0)

/* ---------------------------------------------------------------- topology */

static void enum_paths(const spinet_topo *t, uint32_t s, uint32_t elem, uint32_t *per_dst)
{
    for (unsigned o = 0; o < 2; o++) {
        if (s + 1 == t->stages)
            per_dst[2 * elem + o]++;
        else
            enum_paths(t, s + 1, spinet_topo_next(t, s, elem, o), per_dst);
    }
}

/* Every pair has exactly 2^extra paths, found by enumerating every output
 * sequence from every source element through the wiring alone. */
START_TEST(test_paths_per_pair)
{
    static const uint32_t sizes[] = {2, 4, 8, 16, 32, 64, 128};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        for (uint32_t e = 0; e <= 3; e++) {
            spinet_topo t;
            char err[256];
            ck_assert_msg(spinet_topo_init(&t, sizes[k], e, err, sizeof err) == 0, "%s", err);
            uint32_t N = sizes[k];
            ck_assert_uint_eq(t.stages, (uint32_t)log2(N) + e);
            uint32_t *cnt = calloc(N, sizeof *cnt);
            for (uint32_t src = 0; src < N; src++) {
                memset(cnt, 0, N * sizeof *cnt);
                enum_paths(&t, 0, src / 2, cnt);
                for (uint32_t d = 0; d < N; d++)
                    ck_assert_msg(cnt[d] == (1u << e), "N=%u e=%u %u->%u: %u paths, want %u", N,
                                  e, src, d, cnt[d], 1u << e);
            }
            free(cnt);
            spinet_topo_free(&t);
        }
    }
}
END_TEST

/* Each element of a stage > 0 receives exactly one link on each input
 * (output o feeds input o): the stages are permutations, nothing is shared. */
START_TEST(test_wiring_inputs)
{
    for (uint32_t N = 2; N <= 256; N *= 2) {
        for (uint32_t e = 0; e <= 3; e++) {
            spinet_topo t;
            char err[256];
            ck_assert(spinet_topo_init(&t, N, e, err, sizeof err) == 0);
            uint32_t E = N / 2;
            uint32_t *in = calloc(2 * E, sizeof *in);
            for (uint32_t s = 0; s + 1 < t.stages; s++) {
                memset(in, 0, 2 * E * sizeof *in);
                for (uint32_t j = 0; j < E; j++)
                    for (unsigned o = 0; o < 2; o++)
                        in[2 * spinet_topo_next(&t, s, j, o) + o]++;
                for (uint32_t j = 0; j < 2 * E; j++)
                    ck_assert_uint_eq(in[j], 1);
            }
            free(in);
            spinet_topo_free(&t);
        }
    }
}
END_TEST

/* The shifts of MODEL.md: normal transition t: 2^t; extra transition t:
 * 2^((t - n + 1) mod log2(N/2)). N = 64 (n = 6, log2 E = 5), e = 2:
 * 1 2 4 8 16, then t = 5: 2^0 = 1, t = 6: 2^1 = 2.
 * N = 8 (n = 3, log2 E = 2), e = 3: 1 2, then 2^0, 2^1, 2^(2 mod 2) = 1 2 1.
 * N = 2: one element, both outputs feed it (shift 0). */
START_TEST(test_wiring_shifts)
{
    spinet_topo t;
    char err[256];
    ck_assert(spinet_topo_init(&t, 64, 2, err, sizeof err) == 0);
    static const uint32_t want64[] = {1, 2, 4, 8, 16, 1, 2};
    ck_assert_uint_eq(t.stages, 8);
    for (uint32_t i = 0; i < 7; i++)
        ck_assert_uint_eq(t.shift[i], want64[i]);
    ck_assert_uint_eq(spinet_topo_next(&t, 4, 20, 1), (20 + 16) % 32);
    ck_assert_uint_eq(spinet_topo_next(&t, 4, 20, 0), 20);
    spinet_topo_free(&t);

    ck_assert(spinet_topo_init(&t, 8, 3, err, sizeof err) == 0);
    static const uint32_t want8[] = {1, 2, 1, 2, 1};
    for (uint32_t i = 0; i < 5; i++)
        ck_assert_uint_eq(t.shift[i], want8[i]);
    spinet_topo_free(&t);

    ck_assert(spinet_topo_init(&t, 2, 2, err, sizeof err) == 0);
    ck_assert_uint_eq(t.shift[0], 0);
    ck_assert_uint_eq(t.shift[1], 0);
    spinet_topo_free(&t);
}
END_TEST

/* The routing table built by BFS says output o of (s, j) leads to d exactly
 * when an enumerated path through that output ends at d; every pair
 * reachable (the entry at stage 0 is never empty). */
START_TEST(test_routes_match_enumeration)
{
    for (uint32_t N = 2; N <= 64; N *= 2) {
        for (uint32_t e = 0; e <= 2; e++) {
            spinet_topo t;
            char err[256];
            ck_assert(spinet_topo_init(&t, N, e, err, sizeof err) == 0);
            uint32_t *cnt = calloc(N, sizeof *cnt);
            for (uint32_t s = 0; s < t.stages; s++) {
                for (uint32_t j = 0; j < N / 2; j++) {
                    unsigned want[64] = {0};
                    for (unsigned o = 0; o < 2; o++) {
                        memset(cnt, 0, N * sizeof *cnt);
                        if (s + 1 == t.stages)
                            cnt[2 * j + o] = 1;
                        else
                            enum_paths(&t, s + 1, spinet_topo_next(&t, s, j, o), cnt);
                        for (uint32_t d = 0; d < N; d++)
                            if (cnt[d])
                                want[d] |= 1u << o;
                    }
                    for (uint32_t d = 0; d < N; d++) {
                        ck_assert_msg(spinet_topo_route(&t, s, j, d) == want[d],
                                      "N=%u e=%u stage %u elem %u dst %u: %u want %u", N, e, s, j,
                                      d, spinet_topo_route(&t, s, j, d), want[d]);
                        if (s == 0)
                            ck_assert_uint_ne(want[d], 0);
                    }
                }
            }
            /* without extra stages the path is unique: no entry offers both */
            if (e == 0)
                for (uint32_t s = 0; s < t.stages; s++)
                    for (uint32_t j = 0; j < N / 2; j++)
                        for (uint32_t d = 0; d < N; d++)
                            ck_assert_uint_ne(spinet_topo_route(&t, s, j, d), 3);
            free(cnt);
            spinet_topo_free(&t);
        }
    }
}
END_TEST

/* Today's tables (before the translation-invariant slice): LWSim's backward
 * BFS from every destination, one entry per (stage, element, destination).
 * The graph is layered, so the frontier at distance k is a set of elements
 * of stage S-1-k, swept stage by stage. full[(s E + j) N + d] = outputs. */
static uint8_t *bfs_tables(const spinet_topo *t)
{
    uint32_t N = t->nodes, E = t->elems, S = t->stages;
    uint8_t *full = calloc((size_t)S * E * N, 1);
    uint8_t *reach = malloc(E), *reach_next = malloc(E);
    for (uint32_t d = 0; d < N; d++) {
        memset(reach, 0, E);
        full[((size_t)(S - 1) * E + d / 2) * N + d] = (uint8_t)(1u << (d & 1));
        reach[d / 2] = 1;
        for (uint32_t s = S - 1; s-- > 0;) {
            memset(reach_next, 0, E);
            for (uint32_t j = 0; j < E; j++) {
                unsigned bits = 0;
                for (unsigned o = 0; o < 2; o++)
                    if (reach[spinet_topo_next(t, s, j, o)])
                        bits |= 1u << o;
                if (bits) {
                    full[((size_t)s * E + j) * N + d] = (uint8_t)bits;
                    reach_next[j] = 1;
                }
            }
            uint8_t *tmp = reach;
            reach = reach_next;
            reach_next = tmp;
        }
    }
    free(reach);
    free(reach_next);
    return full;
}

/* One slice serves every destination: the lookups through the slice equal
 * the per-destination BFS tables entry by entry, for 4 to 1024 nodes and 0
 * to 3 extra stages (the wiring is invariant under j -> j + c mod E). */
START_TEST(test_routes_translation_invariant)
{
    for (uint32_t N = 4; N <= 1024; N *= 2) {
        for (uint32_t e = 0; e <= 3; e++) {
            spinet_topo t;
            char err[256];
            ck_assert_msg(spinet_topo_init(&t, N, e, err, sizeof err) == 0, "%s", err);
            uint8_t *full = bfs_tables(&t);
            uint32_t E = N / 2;
            for (uint32_t s = 0; s < t.stages; s++)
                for (uint32_t j = 0; j < E; j++)
                    for (uint32_t d = 0; d < N; d++)
                        if (spinet_topo_route(&t, s, j, d) != full[((size_t)s * E + j) * N + d])
                            ck_abort_msg("N=%u e=%u stage %u elem %u dst %u: slice %u, BFS %u", N, e,
                                         s, j, d, spinet_topo_route(&t, s, j, d),
                                         full[((size_t)s * E + j) * N + d]);
            free(full);
            spinet_topo_free(&t);
        }
    }
}
END_TEST

/* Static paths, in the layout of the fabric's route op (uplink k, downlink
 * N + k, output o of element j of stage s: 2N + (s E + j) 2 + o). N = 8, no
 * extra stage (E = 4, shifts 1 then 2; element b of the last stage is
 * a + x1 + 2 x2 mod 4 from element a, x_s the output taken at stage s).
 * Node 1 -> node 6: element 0 -> element 3: 3 = 0 + 1 + 2, so output 1 at
 * stages 0 and 1; links: uplink 1; stage 0 element 0 output 1:
 * 16 + (0 + 0) 2 + 1 = 17; stage 1 element 1 output 1: 16 + (4 + 1) 2 + 1 =
 * 27; downlink 8 + 6 = 14. Four links, three elements.
 * With one extra stage (shift 1 again) 1 -> 6 has two paths, 0 + 1 + 2 + 0
 * and 0 + 0 + 2 + 1; the first path takes output 0 at the first branch:
 * stage 0 element 0 output 0: 16; stage 1 element 0 output 1: 16 + 8 + 1 =
 * 25; stage 2 element 2 output 1: 16 + (8 + 2) 2 + 1 = 37; downlink 14.
 * Every path of every pair starts at its uplink, ends at its downlink, and
 * crosses from each stage to the next on links whose ids decode to the
 * element the previous link fed; it equals the fabric's route op. */
START_TEST(test_static_path)
{
    spinet_topo t;
    char err[256];
    uint64_t l[64], r[64];
    ck_assert(spinet_topo_init(&t, 8, 0, err, sizeof err) == 0);
    ck_assert_uint_eq(spinet_topo_links(&t), 32);
    ck_assert_uint_eq(spinet_topo_path(&t, 1, 6, l, 64), 4);
    ck_assert_uint_eq(l[0], 1);
    ck_assert_uint_eq(l[1], 17);
    ck_assert_uint_eq(l[2], 27);
    ck_assert_uint_eq(l[3], 14);
    ck_assert_uint_eq(spinet_topo_path(&t, 1, 6, l, 3), 4); /* too small: the count only */
    spinet_topo_free(&t);

    ck_assert(spinet_topo_init(&t, 8, 1, err, sizeof err) == 0);
    ck_assert_uint_eq(spinet_topo_path(&t, 1, 6, l, 64), 5);
    ck_assert_uint_eq(l[0], 1);
    ck_assert_uint_eq(l[1], 16);
    ck_assert_uint_eq(l[2], 25);
    ck_assert_uint_eq(l[3], 37);
    ck_assert_uint_eq(l[4], 14);
    spinet_topo_free(&t);

    for (uint32_t N = 2; N <= 64; N *= 2) {
        for (uint32_t e = 0; e <= 2; e++) {
            ck_assert(spinet_topo_init(&t, N, e, err, sizeof err) == 0);
            harness h;
            sp_params p = base_params(N, e, SPN_FAST_NACK);
            ck_assert_msg(h_open(&h, &p, NULL, 1, 1, err, sizeof err) == 0, "%s", err);
            ck_assert_uint_eq(net_spinet_ops.link_count(h.n->state), spinet_topo_links(&t));
            uint32_t E = N / 2, S = t.stages;
            for (uint32_t a = 0; a < N; a++) {
                for (uint32_t b = 0; b < N; b++) {
                    int ok = spinet_topo_path(&t, a, b, l, 64) == S + 1 && l[0] == a &&
                             l[S] == N + b &&
                             net_spinet_ops.route(h.n->state, a, b, r, 64) == S + 1 &&
                             memcmp(l, r, (S + 1) * sizeof *l) == 0;
                    uint32_t elem = a / 2;
                    for (uint32_t s = 0; ok && s + 1 < S; s++) {
                        uint64_t x = l[s + 1] - 2 * (uint64_t)N;
                        ok = l[s + 1] >= 2 * (uint64_t)N && x < (uint64_t)(S - 1) * N &&
                             x / 2 / E == s && x / 2 % E == elem;
                        elem = spinet_topo_next(&t, s, elem, x & 1);
                    }
                    if (!ok || elem != b / 2)
                        ck_abort_msg("N=%u e=%u: path %u -> %u", N, e, a, b);
                }
            }
            h_close(&h);
            spinet_topo_free(&t);
        }
    }
}
END_TEST

/* The slice at 65,536 nodes: (S-1) E = 15 x 32768 bytes; 2^20 nodes accepted,
 * 2^21 refused by size. */
START_TEST(test_large_fabric)
{
    spinet_topo t;
    char err[256];
    ck_assert_msg(spinet_topo_init(&t, 65536, 0, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.stages, 16);
    /* node 0 -> node 65535: element 0 -> 32767 = all ones: output 1 at every
     * normal stage; at the last stage output 1 of element 32767 */
    for (uint32_t s = 0; s + 1 < 16; s++) {
        uint32_t elem = s ? (1u << s) - 1 : 0;
        ck_assert_uint_eq(spinet_topo_route(&t, s, elem, 65535), 2);
    }
    ck_assert_uint_eq(spinet_topo_route(&t, 15, 32767, 65535), 2);
    ck_assert_uint_eq(spinet_topo_route(&t, 15, 32767, 65534), 1);
    ck_assert_uint_eq(spinet_topo_route(&t, 15, 32766, 65535), 0);
    spinet_topo_free(&t);
    ck_assert_int_eq(spinet_topo_check(UINT32_C(1) << 20, 3, err, sizeof err), 0);
    ck_assert_int_eq(spinet_topo_check(UINT32_C(1) << 21, 0, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "sized for"));
}
END_TEST

/* ---------------------------------------------------------------- init */

START_TEST(test_rejects)
{
    static const uint32_t bad_n[] = {0, 1, 3, 6, 12, 100};
    harness h;
    char err[256];
    for (size_t i = 0; i < sizeof bad_n / sizeof *bad_n; i++) {
        sp_params p = base_params(bad_n[i], 0, SPN_FAST_NACK);
        ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
        /* fewer than 2 nodes is no network at all (the framework says so first) */
        ck_assert_msg(strstr(err, bad_n[i] < 2 ? "at least 2 nodes" : "power of two"), "%s", err);
        h_close(&h);
    }
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    p.own.packet_bytes = 0;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "packet-size"));
    h_close(&h);

    p = base_params(8, 0, SPN_FAST_NACK);
    p.core.bandwidth_bps = 0;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bandwidth"));
    h_close(&h);
    p.core.bandwidth_bps = -40e9;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
    h_close(&h);

    p = base_params(8, 0, SPN_SLOTTED);
    p.own.slot_ps = 0;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "slot"));
    h_close(&h);

    /* ACK round trip of a full packet: 2F + P + t_r = 26000 + 25600 + 1000 = 52600 ps */
    p = base_params(8, 0, SPN_ACK);
    p.own.ack_timeout_ps = 52599;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "52600"));
    h_close(&h);
    p.own.ack_timeout_ps = 52600;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), 0);
    h_close(&h);

    p = base_params(8, 0, SPN_FAST_NACK);
    p.own.bit_error_rate = 1.0;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
    h_close(&h);
    p = base_params(8, 0, SPN_FAST_NACK);
    p.own.switching_time_ps = -1;
    ck_assert_int_eq(h_open(&h, &p, NULL, 1, 1, err, sizeof err), -1);
    h_close(&h);
}
END_TEST

/* The checks `tasknet validate` runs (net_ops.check), each at its bound. */
START_TEST(test_check_bounds)
{
    char err[512];
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    ck_assert_int_eq(chk(&p, err, sizeof err), 0);

    /* nothing to wait for between a drop and its retry: refused, except with
     * the ACK protocol (whose timeout is at least a packet time) */
    static const spn_recovery recs[] = {SPN_FAST_NACK, SPN_NACK, SPN_SLOTTED, SPN_ACK};
    for (size_t i = 0; i < 4; i++) {
        p = base_params(8, 0, recs[i]);
        p.own.link_length_m = 0;
        p.own.switching_time_ps = 0;
        p.own.reaction_time_ps = 0;
        int rc = chk(&p, err, sizeof err);
        ck_assert_int_eq(rc, recs[i] == SPN_ACK ? 0 : -1);
        if (rc)
            ck_assert_ptr_nonnull(strstr(err, "retried for ever"));
        p.own.reaction_time_ps = 1; /* 1 ps is enough for time to move on */
        ck_assert_int_eq(chk(&p, err, sizeof err), 0);
    }

    /* 4096-bit packets arrive intact with (1 - BER)^4096: at 1e-3 that is
     * exp(4096 ln 0.999) = 0.0166 >= 1% (accepted); at 1.2e-3, 0.0073 */
    p = base_params(8, 0, SPN_FAST_NACK);
    p.own.bit_error_rate = 1e-3;
    ck_assert_int_eq(chk(&p, err, sizeof err), 0);
    p.own.bit_error_rate = 1.2e-3;
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "arrives intact with probability 0.0073"));

    /* times up to 1 hour, fibre up to 1000 km */
    p = base_params(8, 0, SPN_FAST_NACK);
    p.own.switching_time_ps = INT64_C(3600000000000000);
    ck_assert_int_eq(chk(&p, err, sizeof err), 0);
    p.own.switching_time_ps++;
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "switching-time: must be between 0 and 1 hour"));
    p = base_params(8, 0, SPN_FAST_NACK);
    p.own.link_length_m = 1e6;
    ck_assert_int_eq(chk(&p, err, sizeof err), 0);
    p.own.link_length_m = 1.000001e6;
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "link-length"));
    p = base_params(100, 0, SPN_FAST_NACK);
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "nodes=100 must be a power of two (e.g. 64 or 128)"));
    p = base_params(8, 33, SPN_FAST_NACK);
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "extra-stages=33"));
    /* ACK round trip of a full packet, 2F + P + t_r = 52600 ps (test_rejects):
     * a shorter timeout is refused by check, not first at run time */
    p = base_params(8, 0, SPN_ACK);
    p.own.ack_timeout_ps = 52599;
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "52600"));
    p.own.ack_timeout_ps = 52600;
    ck_assert_int_eq(chk(&p, err, sizeof err), 0);
    /* a packet whose time would not fit: refused before any sum is formed */
    p = base_params(8, 0, SPN_ACK);
    p.core.bandwidth_bps = 1e3;
    p.own.packet_bytes = UINT64_C(1000000000000);
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than 1 hour"));
    /* routing tables of 2^31 nodes and 32 stages: 2^66 entries, refused (the
     * size is not wrapped around 64 bits) */
    p = base_params(UINT32_C(2147483648), 1, SPN_FAST_NACK);
    ck_assert_int_eq(chk(&p, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "routing table"));
    /* (priority=control-first on SPINet: the switch's parameter, refused by
     * the configuration as not applying to spinet; tests/check_config.c) */
}
END_TEST

/* Through the registry: net_create finds "spinet", passes its errors on,
 * and a created fabric carries a packet in F + P (N = 16, S = 4:
 * 10000 + 4000 + 25600 = 39600 ps). */
START_TEST(test_registry)
{
    ck_assert_ptr_eq(net_find("spinet"), &net_spinet_ops);
    /* the same parameters as base_params, set through the fabric's rows */
    static const char *const sets[] = {"network.link-length=1m", "network.packet-size=512B",
                                       "network.switching-time=1ns", "network.reaction-time=1ns", NULL};
    char err[256];
    net_params core = th_star(12, 160e9);
    ck_assert_ptr_null(th_net_try("spinet", &core, sets, NULL, 1, 4, err, sizeof err));
    ck_assert_msg(strstr(err, "spinet: system.nodes: ") && strstr(err, "power of two"), "%s", err);
    core = th_star(16, 160e9);
    th_net *h = th_net_new("spinet", &core, sets, NULL, 1, 4);
    net_msg *m = th_at_low(h, 0, 3, 12, 512);
    th_net_go(h);
    ck_delivered_at(m, 39600);
    ck_assert_double_eq(spn_metric(h->n, "messages_delivered"), 1);
    ck_assert_double_eq(spn_metric(h->n, "tries_per_packet_mean"), 1);
    ck_assert_double_eq(spn_metric(h->n, "packets_dropped"), 0);
    /* no physical layer resolved: energy is not modelled, not 0 */
    ck_assert(isnan(spn_metric(h->n, "energy_per_bit_j")));
    /* the fabric's own zero-load formula says the same: F + P */
    ck_assert_int_eq(net_spinet_ops.zero_load_ps(h->n->state, 3, 12, 512), 39600);
    th_net_free(h);
}
END_TEST

/* ---------------------------------------------------------------- zero load */

/* One packet alone, every pair, one after the other: F + P with
 * F = 2 t_link + S t_sw: N = 8: 10000 + 3000 + 25600 = 38600 ps;
 * N = 64 (S = 6 + e): 10000 + (6 + e) 1000 + 25600 = 41600, 42600, 43600 ps. */
START_TEST(test_zero_load_every_pair)
{
    static const struct {
        uint32_t n, e;
        int64_t want_ps;
    } cases[] = {{8, 0, 38600}, {8, 1, 39600}, {64, 0, 41600}, {64, 1, 42600}, {64, 2, 43600}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        harness h;
        char err[256];
        sp_params p = base_params(cases[c].n, cases[c].e, SPN_FAST_NACK);
        ck_assert(h_open(&h, &p, NULL, 7, 1, err, sizeof err) == 0);
        for (uint32_t s = 0; s < p.core.nodes; s++) {
            for (uint32_t d = 0; d < p.core.nodes; d++) {
                h.deliveries[0] = 0;
                h_send(&h, 0, s, d, 512);
                sim_run(h.s, SIM_TIME_MAX);
                ck_assert_int_eq(h.deliveries[0], 1);
                ck_assert_int_eq(h_latency(&h, 0), cases[c].want_ps);
            }
        }
        spinet_stats st = h_stats(&h);
        ck_assert_uint_eq(st.dropped, 0);
        ck_assert_uint_eq(st.tries, (uint64_t)p.core.nodes * p.core.nodes);
        h_close(&h);
    }
}
END_TEST

/* A 1280-byte message = 10240 b = 4096 + 4096 + 2048: packets start at 0,
 * H = 28600 and 2H = 57200; the last one has P = 2048 b / 160 Gb/s = 12800 ps
 * and arrives at 57200 + 13000 + 12800 = 83000 ps. A 0-byte message is one
 * 0-bit packet: F = 13000 ps. */
START_TEST(test_zero_load_message)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    OPEN(&h, &p);
    h_send(&h, 0, 3, 6, 1280);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.deliveries[0], 1);
    ck_assert_int_eq(h_latency(&h, 0), 83000);
    h_send(&h, 1, 6, 3, 0);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.deliveries[1], 1);
    ck_assert_int_eq(h_latency(&h, 1), 13000);
    spinet_stats st = h_stats(&h);
    ck_assert_uint_eq(st.packets, 4);
    ck_assert_uint_eq(st.packets_delivered, 4);
    ck_assert_uint_eq(sim_pending(h.s), 0);
    h_close(&h);
}
END_TEST

/* Wavelength striping: 81 B = 648 b over B = 160 Gb/s. Serial (W = 1):
 * P = 648 b / 160 Gb/s = 4050 ps. W = 8 lanes of 20 Gb/s (50 ps a slot):
 * 648 / 8 = 81 slots = 4050 ps, the same. W = 16 lanes of 10 Gb/s (100 ps):
 * ceil(648 / 16) = 41 slots = 4100 ps, the last slot partly empty. With
 * F = 2 x 5000 + 3 x 1000 = 13000 ps on 8 ports: 17050, 17050, 17100 ps. */
START_TEST(test_zero_load_striped)
{
    static const struct {
        uint32_t w;
        int64_t want_ps;
    } cases[] = {{0, 17050}, {1, 17050}, {8, 17050}, {16, 17100}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        harness h;
        sp_params p = base_params(8, 0, SPN_FAST_NACK);
        p.own.wavelengths = cases[c].w;
        OPEN(&h, &p);
        h_send(&h, 0, 2, 7, 81);
        sim_run(h.s, SIM_TIME_MAX);
        ck_assert_int_eq(h.deliveries[0], 1);
        ck_assert_int_eq(h_latency(&h, 0), cases[c].want_ps);
        h_close(&h);
    }
}
END_TEST

/* ---------------------------------------------------------------- contention */

/* Fast NACK, collision at stage 1. Sources 0 and 1 share element 0 of
 * stage 1 and both go to node 5, so both need the same output there.
 * A = 2 packets from 0 (handed over first, wins), B = 1 packet from 1, at 0.
 *   A1: t0 = 0, stage outputs locked [6000, 31600) [7000, 32600) [8000, 33600),
 *       arrives 38600, source 0 free at H = 28600.
 *   B:  decides at 6000 < 31600: drop at s = 1, NACK at 13000;
 *       retry 13000: decides 19000 < 31600: drop, NACK at 26000;
 *       retry 26000: 32000 >= 31600, 33000 >= 32600, 34000 >= 33600: through,
 *       locks [32000, 57600) ...; arrives 26000 + 38600 = 64600.
 *   A2: t0 = 28600: 34600 < 57600 drop, NACK 41600; 47600 < 57600 drop, NACK
 *       54600; 60600 >= 57600 (and 61600, 62600 past B's 58600, 59600): arrives
 *       54600 + 38600 = 93200 -> message A delivered once, at 93200.
 * Drops 4, retransmissions 4, tries 1 + 3 + 3 over 3 packets = 7/3.
 * Energy at 1 pJ/b: each dropped try is cut when its NACK arrives, after
 * 13000 ps = 2080 b at 160 Gb/s: 3*4096 + 4*2080 = 20608 b emitted for
 * 12288 b delivered -> 20608/12288 pJ/b. */
START_TEST(test_collision_stage1_fast_nack)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    p.own.energy_per_bit_j = 1e-12;
    p.own.phy_resolved = 1; /* as resolve_phy would */
    OPEN(&h, &p);
    h_send(&h, 0, 0, 5, 1024);
    h_send(&h, 1, 1, 5, 512);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.deliveries[0], 1);
    ck_assert_int_eq(h.deliveries[1], 1);
    ck_assert_int_eq(h.t_deliv_ps[1], 64600);
    ck_assert_int_eq(h.t_deliv_ps[0], 93200);
    double m[16];
    h_metrics(&h, m);
    ck_assert_double_eq(m[M(packets_dropped)], 4);
    ck_assert_double_eq(h_retx(&h), 4);
    ck_assert_double_eq_tol(m[M(tries_per_packet_mean)], 7.0 / 3.0, 1e-12);
    ck_assert_double_eq(m[M(phy_losses)], 0);
    ck_assert_double_eq_tol(m[M(energy_per_bit_j)], 20608e-12 / 12288.0, 1e-24);
    h_close(&h);

    /* With the drop energies split out (edge 0.25 pJ/b, 0.1 pJ/b per stage):
     * the 4 tries dropped at stage 1 crossed no SOA before the drop, so their
     * 4 x 2080 b cost 0.25 pJ/b each: 12288 x 1 + 8320 x 0.25 = 14368 pJ */
    p.own.energy_edge_per_bit_j = 0.25e-12;
    p.own.energy_stage_per_bit_j = 0.1e-12;
    OPEN(&h, &p);
    h_send(&h, 0, 0, 5, 1024);
    h_send(&h, 1, 1, 5, 512);
    sim_run(h.s, SIM_TIME_MAX);
    h_metrics(&h, m);
    ck_assert_double_eq(m[M(packets_dropped)], 4);
    ck_assert_double_eq_tol(m[M(energy_per_bit_j)], 14368e-12 / 12288.0, 1e-24);
    h_close(&h);
}
END_TEST

/* Fast NACK, collision at the last stage only, watched at the picosecond.
 * Source 4 -> node 4: element 2, b - a = 0: outputs 0, 0, 0.
 * Source 0 -> node 4: element 0, b - a = 2: x1 = 0, x2 = 1: stage 1 el 0 out 0,
 * stage 2 el 0 out 1 -> stage 3 el 2 (input 1) out 0: meets source 4's packet
 * only at stage 3. Source 4 first (wins): stage 3 out 0 locked [8000, 33600).
 * Source 0: stages 1, 2 locked from 6000 and 7000, stage 3 decides at 8000:
 * drop; NACK at 2 (5000 + 3000) + 1000 = 17000. Its truncated tail frees
 * stage 1 at 6000 + 17000 = 23000 and stage 2 at 24000 (instead of 31600,
 * 32600). Retry at 17000: stage 1 decides at 23000 (free exactly then),
 * 24000, stage 3 at 25000 < 33600: drop, NACK at 17000 + 17000 = 34000.
 * Retry at 34000: 42000 >= 33600: arrives 34000 + 38600 = 72600.
 * Energy (1 pJ/b delivered; a dropped bit 0.25 pJ + 0.1 pJ per stage crossed
 * before the drop): each drop at stage 3 sent 17000 ps x 160 Gb/s = 2720 b
 * through 2 SOAs: 2 x 2720 x 0.45 = 2448 pJ, plus 2 x 4096 delivered:
 * 10640 pJ for 8192 b. */
START_TEST(test_collision_last_stage_nack_time)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    p.own.energy_per_bit_j = 1e-12;
    p.own.phy_resolved = 1; /* as resolve_phy would */
    p.own.energy_edge_per_bit_j = 0.25e-12;
    p.own.energy_stage_per_bit_j = 0.1e-12;
    OPEN(&h, &p);
    h_send(&h, 0, 4, 4, 512);
    h_send(&h, 1, 0, 4, 512);
    sim_run(h.s, 16999);
    spinet_stats st = h_stats(&h);
    ck_assert_uint_eq(st.dropped, 1);
    ck_assert_uint_eq(st.retransmissions, 0);
    sim_run(h.s, 17000);
    st = h_stats(&h);
    ck_assert_uint_eq(st.retransmissions, 1);
    ck_assert_uint_eq(st.dropped, 2); /* the retry got to stage 3: freed upstream */
    sim_run(h.s, 33999);
    st = h_stats(&h);
    ck_assert_uint_eq(st.retransmissions, 1);
    sim_run(h.s, 34000);
    st = h_stats(&h);
    ck_assert_uint_eq(st.retransmissions, 2);
    ck_assert_uint_eq(st.dropped, 2);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.t_deliv_ps[0], 38600);
    ck_assert_int_eq(h.t_deliv_ps[1], 72600);
    ck_assert_int_eq(h.deliveries[1], 1);
    double m[16];
    h_metrics(&h, m);
    ck_assert_double_eq_tol(m[M(energy_per_bit_j)], 10640e-12 / 8192.0, 1e-24);
    h_close(&h);
}
END_TEST

/* One drop only: 128 B packets, P = 1024 b / 160 Gb/s = 6400 ps, shorter than
 * the NACK's round trip. Same pair as above (meet at stage 3 only).
 * Source 4 -> 4 locks stage 3 out 0 over [8000, 14400), arrives 13000 + 6400
 * = 19400. Source 0 -> 4 is dropped at stage 3 (8000), NACK at 17000; the
 * retry decides at 17000 + 8000 = 25000 >= 14400: arrives 17000 + 19400
 * = 36400 ps. The hold is max(17000, 6400 + 3000) = 17000: nothing else. */
START_TEST(test_collision_one_drop)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    OPEN(&h, &p);
    h_send(&h, 0, 4, 4, 128);
    h_send(&h, 1, 0, 4, 128);
    sim_run(h.s, 16999);
    ck_assert_uint_eq(h_stats(&h).retransmissions, 0);
    sim_run(h.s, 17000);
    ck_assert_uint_eq(h_stats(&h).retransmissions, 1);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.t_deliv_ps[0], 19400);
    ck_assert_int_eq(h.t_deliv_ps[1], 36400);
    double m[16];
    h_metrics(&h, m);
    ck_assert_double_eq(m[M(packets_dropped)], 1);
    ck_assert_double_eq(h_retx(&h), 1);
    ck_assert_double_eq(m[M(tries_per_packet_mean)], 1.5);
    h_close(&h);
}
END_TEST

/* Sources 0 -> 2 and 1 -> 6 at 0. Without extra stages both need output 1
 * of stage-1 element 0 (b - a = 1: x1 = 1, x2 = 0; b - a = 3: x1 = 1, x2 = 1):
 * the second is dropped twice as in test_collision_stage1_fast_nack
 * (NACKs at 13000, 26000) and arrives at 26000 + 38600 = 64600 (its later
 * stages use other outputs: stage 2 el 1 out 1 vs out 0, then elements 3, 1).
 * With one extra stage (shifts 1 2 1, S = 4) both outputs of stage 1 lead
 * to every node; whichever the rng picks, the second packet takes the
 * other output; their paths never meet again (A: x = (0,0,1) or (1,0,0),
 * B: (1,1,0) or (0,1,1)), so both arrive at 2*5000 + 4000 + 25600 = 39600
 * for any seed. */
START_TEST(test_extra_stage_avoids_block)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    OPEN(&h, &p);
    h_send(&h, 0, 0, 2, 512);
    h_send(&h, 1, 1, 6, 512);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.t_deliv_ps[0], 38600);
    ck_assert_int_eq(h.t_deliv_ps[1], 64600);
    ck_assert_uint_eq(h_stats(&h).dropped, 2);
    h_close(&h);

    for (unsigned long seed = 1; seed <= 20; seed++) {
        char err[256];
        p = base_params(8, 1, SPN_FAST_NACK);
        ck_assert(h_open(&h, &p, NULL, seed, 4, err, sizeof err) == 0);
        h_send(&h, 0, 0, 2, 512);
        h_send(&h, 1, 1, 6, 512);
        sim_run(h.s, SIM_TIME_MAX);
        ck_assert_int_eq(h.t_deliv_ps[0], 39600);
        ck_assert_int_eq(h.t_deliv_ps[1], 39600);
        ck_assert_uint_eq(h_stats(&h).dropped, 0);
        h_close(&h);
    }
}
END_TEST

/* NACK at the end of the transmission. H = 2*5000 + 2*3000 + 1000 + 25600 = 42600.
 * A = 2 packets 0 -> 5, B = 1 packet 1 -> 5, at 0 (as in the stage-1 case).
 *   A1 arrives 38600, locks stage 1 out until 31600; source 0 free at 42600.
 *   B dropped at stage 1 (6000): NACK at 13000 + 25600 = 38600; retry at
 *     38600: 44600 >= 31600: arrives 38600 + 38600 = 77200, locks stage 1
 *     [44600, 70200), stage 2 [45600, 71200), stage 3 [46600, 72200).
 *   A2 at 42600: 48600 < 70200: drop, NACK at 42600 + 38600 = 81200; retry:
 *     87200, 88200, 89200 all free: arrives 81200 + 38600 = 119800.
 * Energy: a dropped packet is sent whole: 5 tries of 4096 b for 3 delivered. */
START_TEST(test_collision_nack_end)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_NACK);
    p.own.energy_per_bit_j = 1e-12;
    p.own.phy_resolved = 1; /* as resolve_phy would */
    OPEN(&h, &p);
    h_send(&h, 0, 0, 5, 1024);
    h_send(&h, 1, 1, 5, 512);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.t_deliv_ps[1], 77200);
    ck_assert_int_eq(h.t_deliv_ps[0], 119800);
    ck_assert_int_eq(h.deliveries[0], 1);
    ck_assert_int_eq(h.deliveries[1], 1);
    double m[16];
    h_metrics(&h, m);
    ck_assert_double_eq(m[M(packets_dropped)], 2);
    ck_assert_double_eq(h_retx(&h), 2);
    ck_assert_double_eq_tol(m[M(tries_per_packet_mean)], 5.0 / 3.0, 1e-12);
    ck_assert_double_eq_tol(m[M(energy_per_bit_j)], 5.0 / 3.0 * 1e-12, 1e-24);
    h_close(&h);
}
END_TEST

/* ACK with the derived timeout T = 2F + P + t_r = 52600.
 *   A1 (0 -> 5) at 0: arrives 38600, ACK back at 38600 + 1000 + 13000 = 52600:
 *     source 0 free, A2 starts at 52600 (locks stage 1 [58600, 84200)).
 *   B (1 -> 5) at 0: dropped at stage 1, no answer: timeout at 52600; its
 *     event was scheduled after A1's ACK so A2 goes first; B decides at
 *     58600 < 84200: dropped again, timeout at 105200; retry: 111200 free:
 *     arrives 105200 + 38600 = 143800.
 *   A2 arrives 52600 + 38600 = 91200. */
START_TEST(test_collision_ack)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_ACK);
    OPEN(&h, &p);
    h_send(&h, 0, 0, 5, 1024);
    h_send(&h, 1, 1, 5, 512);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.t_deliv_ps[0], 91200);
    ck_assert_int_eq(h.t_deliv_ps[1], 143800);
    double m[16];
    h_metrics(&h, m);
    ck_assert_double_eq(m[M(packets_dropped)], 2);
    ck_assert_double_eq(h_retx(&h), 2);
    ck_assert_double_eq_tol(m[M(tries_per_packet_mean)], 5.0 / 3.0, 1e-12);
    h_close(&h);

    /* explicit timeout of 60000 ps: B retries at 60000: stage 1 decides at
     * 66000 < 84200 (A2): dropped; at 120000: 126000 free: arrives 158600 */
    char err[256];
    p.own.ack_timeout_ps = 60000;
    ck_assert(h_open(&h, &p, NULL, 1, 4, err, sizeof err) == 0);
    h_send(&h, 0, 0, 5, 1024);
    h_send(&h, 1, 1, 5, 512);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.t_deliv_ps[0], 91200);
    ck_assert_int_eq(h.t_deliv_ps[1], 158600);
    h_close(&h);
}
END_TEST

typedef struct late_send {
    harness *h;
    uint32_t idx, src, dst;
    uint64_t bytes;
} late_send;

static void ev_late_send(sim *s, void *ctx, uint64_t arg)
{
    late_send *ls = ctx;
    h_send(ls->h, ls->idx, ls->src, ls->dst, ls->bytes);
}

/* Slotted, slot 100000 ps. A (0 -> 5) and B (1 -> 5) at 0, a boundary:
 * B dropped at stage 1, NACK at 13000, retry on the next boundary 100000:
 * arrives 138600. C (2 -> 7) handed over at 30000 waits for 100000 too:
 * element 1 -> 3 (x1 = 0, x2 = 1) shares nothing with B (element 0 -> 2),
 * arrives 138600: latency 108600. */
START_TEST(test_slotted)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_SLOTTED);
    OPEN(&h, &p);
    h_send(&h, 0, 0, 5, 512);
    h_send(&h, 1, 1, 5, 512);
    late_send ls = {&h, 2, 2, 7, 512};
    sim_schedule_at(h.s, 30000, ev_late_send, &ls, 0);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.t_deliv_ps[0], 38600);
    ck_assert_int_eq(h.t_deliv_ps[1], 138600);
    ck_assert_int_eq(h.t_deliv_ps[2], 138600);
    ck_assert_int_eq(h_latency(&h, 2), 108600);
    ck_assert_uint_eq(h_stats(&h).dropped, 1);
    h_close(&h);
}
END_TEST

/* ---------------------------------------------------------------- bit errors */

/* A scripted rng: gsl_rng_uniform returns the values in order. */
typedef struct script_state {
    double v[8]; /* values to return */
    size_t i;    /* next one */
} script_state;

static void script_set(void *state, unsigned long seed) { (void)state; (void)seed; }
static double script_double(void *state)
{
    script_state *s = state;
    ck_assert_uint_lt(s->i, 8);
    return s->v[s->i++];
}
static unsigned long script_get(void *state) { return (unsigned long)(script_double(state) * 4294967295.0); }
static const gsl_rng_type script_type = {"script", 0xffffffffUL, 0, sizeof(script_state),
                                         script_set, script_get, script_double};

/* BER 1e-4, 4096 b: loss probability 1 - (1 - 1e-4)^4096 = 0.336: the draws
 * 0.1 (lost) then 0.9 (intact). One packet 0 -> 5 at 0.
 * fast NACK: arrives corrupted at 38600; the receiver's NACK reaches the
 *   source at 38600 + 1000 + 13000 = 52600 (source idle since 28600):
 *   retransmitted at once, arrives 52600 + 38600 = 91200.
 * ACK: no ACK, timeout at 52600, retry arrives 91200 as well.
 * Energy at 1 pJ/b: 2 x 4096 b emitted for 4096 delivered: 2 pJ/b. */
START_TEST(test_phy_loss)
{
    static const spn_recovery recs[] = {SPN_FAST_NACK, SPN_ACK};
    for (size_t r = 0; r < 2; r++) {
        harness h;
        char err[256];
        sp_params p = base_params(8, 0, recs[r]);
        p.own.bit_error_rate = 1e-4;
        p.own.energy_per_bit_j = 1e-12;
        p.own.phy_resolved = 1; /* as resolve_phy would */
        gsl_rng *rng = gsl_rng_alloc(&script_type);
        script_state *ss = rng->state;
        ss->v[0] = 0.1;
        ss->v[1] = 0.9;
        ck_assert(h_open(&h, &p, rng, 0, 4, err, sizeof err) == 0);
        h_send(&h, 0, 0, 5, 512);
        sim_run(h.s, SIM_TIME_MAX);
        ck_assert_int_eq(h.deliveries[0], 1);
        ck_assert_int_eq(h.t_deliv_ps[0], 91200);
        ck_assert_uint_eq(ss->i, 2);
        double m[16];
        h_metrics(&h, m);
        ck_assert_double_eq(m[M(phy_losses)], 1);
        ck_assert_double_eq(m[M(packets_dropped)], 0);
        ck_assert_double_eq(h_retx(&h), 1);
        ck_assert_double_eq(m[M(tries_per_packet_mean)], 2);
        ck_assert_double_eq_tol(m[M(energy_per_bit_j)], 2e-12, 1e-24);
        h_close(&h);
    }
}
END_TEST

/* ---------------------------------------------------------------- edge FIFO */

/* Edge FIFO of 1024 B = 8192 b; source 0 hands over four 512 B messages at 0.
 * m1 goes straight to the transmitter (FIFO 0 b), m2 and m3 fill it (8192 b),
 * m4 does not fit: it waits in host memory until m2's packet leaves the FIFO
 * at H = 28600: wait 28600 ps. Timing is that of an unbounded FIFO:
 * arrivals at 38600 + k 28600 = 38600, 67200, 95800, 124400. */
START_TEST(test_edge_fifo_full)
{
    static const int64_t want[] = {38600, 67200, 95800, 124400};
    for (int bounded = 0; bounded < 2; bounded++) {
        harness h;
        sp_params p = base_params(8, 0, SPN_FAST_NACK);
        p.own.buffer_bytes = bounded ? 1024 : 0;
        OPEN(&h, &p);
        for (uint32_t i = 0; i < 4; i++)
            h_send(&h, i, 0, 5, 512);
        sim_run(h.s, SIM_TIME_MAX);
        for (uint32_t i = 0; i < 4; i++) {
            ck_assert_int_eq(h.deliveries[i], 1);
            ck_assert_int_eq(h.t_deliv_ps[i], want[i]);
        }
        spinet_stats st = h_stats(&h);
        ck_assert_uint_eq(st.edge_full_msgs, bounded ? 1 : 0);
        ck_assert_int_eq(st.edge_wait_ps, bounded ? 28600 : 0);
        h_close(&h);
    }
    /* A 2048 B message (4 packets) is larger than the FIFO: counted; its last
     * bit enters when 8192 b have left, i.e. when packet 2 starts at 28600. */
    harness h;
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    p.own.buffer_bytes = 1024;
    OPEN(&h, &p);
    h_send(&h, 0, 2, 3, 2048);
    sim_run(h.s, SIM_TIME_MAX);
    spinet_stats st = h_stats(&h);
    ck_assert_uint_eq(st.edge_full_msgs, 1);
    ck_assert_int_eq(st.edge_wait_ps, 28600);
    ck_assert_int_eq(h.t_deliv_ps[0], 3 * 28600 + 38600);
    h_close(&h);

    /* 1536 B (3 packets) into an idle source with a 1024 B FIFO: the first
     * packet (512 B) is cut at the hand-over, so 1024 B remain and fit: the
     * message never waits and is not counted */
    OPEN(&h, &p);
    h_send(&h, 0, 2, 3, 1536);
    sim_run(h.s, SIM_TIME_MAX);
    st = h_stats(&h);
    ck_assert_uint_eq(st.edge_full_msgs, 0);
    ck_assert_int_eq(st.edge_wait_ps, 0);
    ck_assert_int_eq(h.deliveries[0], 1);
    h_close(&h);
}
END_TEST

/* Two 0-byte messages (0-bit packets) from 0 and 1 to 7 at once: the first
 * holds the last-stage output for 1 ps, so the second is dropped there
 * (not both delivered through one port at one instant) and retried. */
START_TEST(test_zero_bit_packets_collide)
{
    harness h;
    sp_params p = base_params(8, 0, SPN_FAST_NACK);
    OPEN(&h, &p);
    h_send(&h, 0, 0, 7, 0);
    h_send(&h, 1, 1, 7, 0);
    sim_run(h.s, SIM_TIME_MAX);
    ck_assert_int_eq(h.deliveries[0], 1);
    ck_assert_int_eq(h.deliveries[1], 1);
    ck_assert_int_eq(h_latency(&h, 0), 13000);
    ck_assert_int_gt(h_latency(&h, 1), 13000);
    spinet_stats st = h_stats(&h);
    ck_assert_uint_ge(st.dropped, 1);
    h_close(&h);
}
END_TEST

/* ---------------------------------------------------------------- random load */

typedef struct load_gen {
    harness *h;
    gsl_rng *r;          /* the test's own stream */
    uint32_t next, total; /* messages handed over, to hand over */
    double mean_gap_ps;  /* exponential inter-arrival (all sources) */
} load_gen;

static void ev_gen(sim *s, void *ctx, uint64_t arg)
{
    load_gen *g = ctx;
    uint32_t N = net_core(g->h->n)->nodes;
    uint32_t src = (uint32_t)gsl_rng_uniform_int(g->r, N);
    uint32_t dst = (uint32_t)gsl_rng_uniform_int(g->r, N - 1);
    if (dst >= src)
        dst++;
    uint64_t bytes = 40 + gsl_rng_uniform_int(g->r, 1500); /* 1 to 3 packets */
    h_send(g->h, g->next, src, dst, bytes);
    if (++g->next < g->total) {
        double gap = -g->mean_gap_ps * log(1.0 - gsl_rng_uniform(g->r));
        sim_schedule(s, (int64_t)gap, ev_gen, g, 0);
    }
}

typedef struct load_result {
    spinet_stats st;
    int64_t t_end_ps;
    uint64_t events;
    double sum_lat_ps;
} load_result;

/* Invariants under random load:
 * - every message delivered exactly once, bytes conserved;
 * - no packet lost without being counted: each try ends in exactly one of
 *   delivered / dropped / corrupted, so tries = delivered + dropped + phy;
 * - packets cut = ceil(bits / 4096) per message, all delivered;
 *   retransmissions = tries - packets;
 * - a message never beats its zero-load latency (packets spaced by the hold
 *   time, or the ACK round trip, then F + P of the last packet);
 * - no event left behind. */
static load_result run_load(uint32_t N, uint32_t extra, spn_recovery rec, double ber,
                            unsigned long seed, uint32_t nmsg, double load)
{
    harness h;
    char err[256];
    sp_params p = base_params(N, extra, rec);
    p.own.bit_error_rate = ber;
    p.own.buffer_bytes = 4096;
    ck_assert_msg(h_open(&h, &p, NULL, seed, nmsg, err, sizeof err) == 0, "%s", err);
    load_gen g = {&h, gsl_rng_alloc(gsl_rng_mt19937), 0, nmsg, 0};
    gsl_rng_set(g.r, seed * 7919 + 1);
    /* mean message 790 B = 6320 b; load = N * 6320 / (gap * B) */
    g.mean_gap_ps = 6320.0 * 1e12 / (p.core.bandwidth_bps * load * N);
    sim_schedule(h.s, 0, ev_gen, &g, 0);
    uint64_t ev = sim_run(h.s, SIM_TIME_MAX);
    ck_assert_uint_eq(sim_pending(h.s), 0);

    int64_t S = (int64_t)(log2(N) + extra);
    int64_t F = 10000 + S * 1000;
    int64_t rtt = 10000 + 2 * S * 1000 + 1000;
    int64_t gap_full = rec == SPN_ACK ? 2 * F + 25600 + 1000
                       : rec == SPN_NACK ? rtt + 25600
                                         : (rtt > 25600 + S * 1000 ? rtt : 25600 + S * 1000);
    uint64_t packets = 0;
    load_result res;
    memset(&res, 0, sizeof res);
    for (uint32_t i = 0; i < nmsg; i++) {
        ck_assert_int_eq(h.deliveries[i], 1);
        uint64_t bits = h.msgs[i].size_bytes * 8;
        uint64_t k = (bits + 4095) / 4096;
        packets += k;
        uint64_t last = bits - (k - 1) * 4096;
        int64_t zero = (int64_t)(k - 1) * gap_full + F + (int64_t)ceil(last * 1e12 / 160e9 - 1e-6);
        ck_assert_int_ge(h_latency(&h, i), zero);
        res.sum_lat_ps += (double)h_latency(&h, i);
    }
    res.st = h_stats(&h);
    ck_assert_uint_eq(res.st.packets, packets);
    ck_assert_uint_eq(res.st.packets_delivered, packets);
    ck_assert_uint_eq(res.st.tries, res.st.packets_delivered + res.st.dropped + res.st.phy_losses);
    ck_assert_uint_eq(res.st.retransmissions, res.st.tries - packets);
    ck_assert_uint_eq(res.st.tries_delivered, res.st.tries);
    if (ber == 0)
        ck_assert_uint_eq(res.st.phy_losses, 0);
    res.t_end_ps = sim_now(h.s);
    res.events = ev;
    gsl_rng_free(g.r);
    h_close(&h);
    return res;
}

START_TEST(test_random_load_invariants)
{
    static const spn_recovery recs[] = {SPN_FAST_NACK, SPN_NACK, SPN_ACK, SPN_SLOTTED};
    for (size_t r = 0; r < 4; r++)
        for (uint32_t e = 0; e <= 2; e++) {
            load_result a = run_load(64, e, recs[r], 2e-5, 11 + e, 3000, 0.3);
            ck_assert_uint_gt(a.st.dropped, 0); /* the load does contend */
            ck_assert_uint_gt(a.st.phy_losses, 0);
        }
    /* small fabric, heavy load */
    load_result b = run_load(4, 1, SPN_FAST_NACK, 0, 5, 2000, 0.9);
    ck_assert_uint_gt(b.st.dropped, 0);
}
END_TEST

/* The same seed gives the same run, to the picosecond; another seed does not. */
START_TEST(test_same_seed_same_run)
{
    load_result a = run_load(64, 2, SPN_FAST_NACK, 1e-5, 3, 2000, 0.4);
    load_result b = run_load(64, 2, SPN_FAST_NACK, 1e-5, 3, 2000, 0.4);
    load_result c = run_load(64, 2, SPN_FAST_NACK, 1e-5, 4, 2000, 0.4);
    ck_assert_int_eq(a.t_end_ps, b.t_end_ps);
    ck_assert_uint_eq(a.events, b.events);
    ck_assert_double_eq(a.sum_lat_ps, b.sum_lat_ps);
    ck_assert(memcmp(&a.st, &b.st, sizeof a.st) == 0);
    ck_assert(a.sum_lat_ps != c.sum_lat_ps);
}
END_TEST

/* ---------------------------------------------------------------- reference */

/* An independent, naive model of the same timing rules with one event per
 * stage decision, written from the physical description in the header
 * comment of net_spinet.c: it checks the fabric's shortcut (every decision
 * of a try taken in its start event) and its truncation of dropped packets,
 * message by message, to the picosecond. Only the engine and the topology
 * are shared. Ties: source i only ever acts at times = i (mod 200 ps)
 * (arrivals so chosen; every delay is a multiple of 200 ps: sizes are
 * multiples of 4 B, P = 50 ps per byte), so two sources never decide at the
 * same instant and no tie-break can differ. Where both outputs lead, both
 * models try output 0 first (the fabric's rng is a constant 0). BER = 0, so
 * at most one try per source is in flight. */
#define REF_MAX_STAGES 16

typedef struct ref_src {
    uint32_t *pk_msg;  /* [npk] message of each of this source's packets, in order */
    uint64_t *pk_bits; /* [npk] their bits */
    size_t npk;        /* packets of this source */
    size_t arrived;    /* packets handed over so far */
    size_t next;       /* next packet never tried */
    size_t cur;        /* packet of the try in flight */
    int busy;          /* the source holds its path */
    int64_t t0_ps;     /* start of the try in flight */
    uint32_t stage;    /* stage deciding next (0-based) */
    uint32_t elem;     /* element at that stage */
    unsigned in;       /* input port there */
    size_t out[REF_MAX_STAGES];   /* outputs locked by the try, per stage */
    int64_t h_ps[REF_MAX_STAGES]; /* their decision times */
    uint64_t try_id;   /* owner tag of the locks */
} ref_src;

typedef struct ref_model {
    sim *s;               /* engine */
    spinet_topo t;        /* wiring, routes */
    sp_params p;          /* parameters */
    int64_t link_ps;      /* t_link */
    int64_t *busy_ps;     /* [S E 2] output busy until */
    uint64_t *owner;      /* [S E 2] try that locked it */
    ref_src *src;         /* [N] */
    const uint32_t *dst;  /* [messages] destination */
    uint32_t *left;       /* [messages] packets not yet delivered */
    int64_t *t_deliv_ps;  /* [messages] delivery time */
    uint64_t tries;       /* tries started */
    uint64_t drops;       /* tries dropped */
} ref_model;

static int64_t ref_payload(uint64_t bits) { return (int64_t)(bits * 25 / 4); } /* 6.25 ps/b at 160 Gb/s */

static void ref_decide(sim *s, void *ctx, uint64_t arg);

static void ref_begin(ref_model *r, uint32_t i)
{
    ref_src *q = &r->src[i];
    q->busy = 1;
    q->t0_ps = sim_now(r->s);
    q->stage = 0;
    q->elem = i / 2;
    q->in = i % 2;
    q->try_id = ++r->tries;
    sim_schedule(r->s, r->link_ps + r->p.own.switching_time_ps, ref_decide, r, i);
}

static void ref_next(ref_model *r, uint32_t i)
{
    ref_src *q = &r->src[i];
    if (!q->busy && q->next < q->arrived) {
        q->cur = q->next++;
        ref_begin(r, i);
    }
}

static void ref_release(sim *s, void *ctx, uint64_t i)
{
    ref_model *r = ctx;
    r->src[i].busy = 0;
    ref_next(r, (uint32_t)i);
}

static void ref_retry(sim *s, void *ctx, uint64_t i) { ref_begin(ctx, (uint32_t)i); }

static void ref_deliver(sim *s, void *ctx, uint64_t msg)
{
    ref_model *r = ctx;
    if (--r->left[msg] == 0)
        r->t_deliv_ps[msg] = sim_now(s);
}

static void ref_decide(sim *s, void *ctx, uint64_t arg)
{
    ref_model *r = ctx;
    uint32_t i = (uint32_t)arg;
    ref_src *q = &r->src[i];
    int64_t h = sim_now(s), t0 = q->t0_ps;
    uint32_t msg = q->pk_msg[q->cur];
    int64_t P = ref_payload(q->pk_bits[q->cur]);
    int64_t sw = r->p.own.switching_time_ps, react = r->p.own.reaction_time_ps;
    int64_t S = r->t.stages;
    unsigned route = spinet_topo_route(&r->t, q->stage, q->elem, r->dst[msg]);
    size_t base = ((size_t)q->stage * r->t.elems + q->elem) * 2;
    unsigned o = route == 2 ? 1 : 0;
    if (route == 3 && r->busy_ps[base] > h)
        o = 1;
    if (r->busy_ps[base + o] > h) {
        r->drops++;
        int64_t elapsed = h - t0; /* the NACK retraces the header's way */
        int64_t t_ans;
        if (r->p.own.recovery == SPN_ACK) {
            t_ans = t0 + 2 * (2 * r->link_ps + S * sw) + ref_payload(4096) + react;
        } else if (r->p.own.recovery == SPN_NACK) {
            t_ans = h + elapsed + react + P;
        } else {
            t_ans = h + elapsed + react;
            /* the source stops at t_ans: the tail passes stage u t_ans - t0 after its head */
            for (uint32_t u = 0; u < q->stage; u++)
                if (r->owner[q->out[u]] == q->try_id && r->busy_ps[q->out[u]] > q->h_ps[u] + (t_ans - t0))
                    r->busy_ps[q->out[u]] = q->h_ps[u] + (t_ans - t0);
        }
        sim_schedule_at(s, t_ans, ref_retry, r, i);
        return;
    }
    r->busy_ps[base + o] = h + P;
    r->owner[base + o] = q->try_id;
    q->out[q->stage] = base + o;
    q->h_ps[q->stage] = h;
    if ((int64_t)q->stage + 1 < S) {
        q->elem = spinet_topo_next(&r->t, q->stage, q->elem, o);
        q->in = o;
        q->stage++;
        sim_schedule(s, sw, ref_decide, r, i);
        return;
    }
    int64_t t_last = h + r->link_ps + P;
    sim_schedule_at(s, t_last, ref_deliver, r, msg);
    int64_t rtt = 2 * r->link_ps + 2 * S * sw + react, t_free;
    if (r->p.own.recovery == SPN_ACK)
        t_free = t_last + react + (2 * r->link_ps + S * sw);
    else if (r->p.own.recovery == SPN_NACK)
        t_free = t0 + rtt + P;
    else
        t_free = t0 + (rtt > P + S * sw ? rtt : P + S * sw);
    sim_schedule_at(s, t_free, ref_release, r, i);
}

static void ref_arrive(sim *s, void *ctx, uint64_t i)
{
    ref_model *r = ctx;
    ref_src *q = &r->src[i];
    q->arrived++;
    /* the packets of one message arrive together: count them all */
    while (q->arrived < q->npk && q->pk_msg[q->arrived] == q->pk_msg[q->arrived - 1])
        q->arrived++;
    ref_next(r, (uint32_t)i);
}

/* A constant-zero rng for the fabric: where both outputs lead, output 0 first. */
static void zero_set(void *state, unsigned long seed) { (void)state; (void)seed; }
static unsigned long zero_get(void *state) { (void)state; return 0; }
static double zero_double(void *state) { (void)state; return 0.0; }
static const gsl_rng_type zero_type = {"zero", 0xffffffffUL, 0, sizeof(int), zero_set, zero_get,
                                       zero_double};

typedef struct cmp_load {
    harness *h;           /* the fabric */
    const int64_t *t_ps;  /* [M] arrival times (sorted) */
    const uint32_t *src, *dst; /* [M] */
    const uint64_t *bytes; /* [M] */
    uint32_t next;        /* next arrival */
    uint32_t total;       /* M */
} cmp_load;

static void ev_cmp_send(sim *s, void *ctx, uint64_t arg)
{
    cmp_load *c = ctx;
    uint32_t k = c->next++;
    h_send(c->h, k, c->src[k], c->dst[k], c->bytes[k]);
    if (c->next < c->total)
        sim_schedule_at(s, c->t_ps[c->next], ev_cmp_send, c, 0);
}

static void compare_with_reference(uint32_t N, uint32_t extra, spn_recovery rec, double load,
                                   unsigned long seed, uint32_t M)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, seed);
    int64_t *t = calloc(M, sizeof *t);
    uint32_t *src = calloc(M, sizeof *src), *dst = calloc(M, sizeof *dst);
    uint64_t *bytes = calloc(M, sizeof *bytes);
    /* mean message ~ 772 B = 6176 b; load = N 6176 b / (gap B) */
    double gap_ps = 6176.0 * 1e12 / (160e9 * load * N);
    double now = 0;
    for (uint32_t k = 0; k < M; k++) {
        now += -gap_ps * log(1.0 - gsl_rng_uniform(g));
        src[k] = (uint32_t)gsl_rng_uniform_int(g, N);
        dst[k] = (uint32_t)gsl_rng_uniform_int(g, N);
        bytes[k] = 4 * (1 + gsl_rng_uniform_int(g, 385)); /* 4 B .. 1540 B, 1 to 3 packets */
        int64_t base = (int64_t)now / 200 * 200;
        t[k] = base + src[k];
        if (k && t[k] < t[k - 1]) /* keep arrivals sorted; same residue */
            t[k] += ((t[k - 1] - t[k]) / 200 + 1) * 200;
    }
    /* the fabric */
    harness h;
    char err[256];
    sp_params p = base_params(N, extra, rec);
    ck_assert(h_open(&h, &p, gsl_rng_alloc(&zero_type), 0, M, err, sizeof err) == 0);
    cmp_load c = {&h, t, src, dst, bytes, 0, M};
    sim_schedule_at(h.s, t[0], ev_cmp_send, &c, 0);
    sim_run(h.s, SIM_TIME_MAX);

    /* the reference */
    ref_model r;
    memset(&r, 0, sizeof r);
    r.s = sim_create();
    r.p = p;
    r.link_ps = 5000;
    ck_assert(spinet_topo_init(&r.t, N, extra, err, sizeof err) == 0);
    ck_assert_uint_le(r.t.stages, REF_MAX_STAGES);
    size_t nout = (size_t)r.t.stages * r.t.elems * 2;
    r.busy_ps = calloc(nout, sizeof *r.busy_ps);
    r.owner = calloc(nout, sizeof *r.owner);
    r.src = calloc(N, sizeof *r.src);
    r.dst = dst;
    r.left = calloc(M, sizeof *r.left);
    r.t_deliv_ps = calloc(M, sizeof *r.t_deliv_ps);
    for (uint32_t k = 0; k < M; k++) {
        uint64_t bits = bytes[k] * 8;
        r.left[k] = (uint32_t)((bits + 4095) / 4096);
        r.src[src[k]].npk += r.left[k];
    }
    for (uint32_t i = 0; i < N; i++) {
        r.src[i].pk_msg = calloc(r.src[i].npk + 1, sizeof *r.src[i].pk_msg);
        r.src[i].pk_bits = calloc(r.src[i].npk + 1, sizeof *r.src[i].pk_bits);
        r.src[i].npk = 0;
    }
    for (uint32_t k = 0; k < M; k++) {
        ref_src *q = &r.src[src[k]];
        uint64_t bits = bytes[k] * 8;
        for (uint64_t b = 0; b < bits; b += 4096) {
            q->pk_msg[q->npk] = k;
            q->pk_bits[q->npk++] = bits - b < 4096 ? bits - b : 4096;
        }
        sim_schedule_at(r.s, t[k], ref_arrive, &r, src[k]);
    }
    sim_run(r.s, SIM_TIME_MAX);

    spinet_stats st = h_stats(&h);
    ck_assert_uint_gt(r.drops, M / 10); /* contention is exercised */
    ck_assert_uint_eq(st.tries, r.tries);
    ck_assert_uint_eq(st.dropped, r.drops);
    for (uint32_t k = 0; k < M; k++) {
        ck_assert_int_eq(h.deliveries[k], 1);
        ck_assert_msg(h.t_deliv_ps[k] == r.t_deliv_ps[k],
                      "N=%u e=%u rec=%d message %u (%u -> %u, %llu B, at %lld): fabric %lld, "
                      "reference %lld",
                      N, extra, (int)rec, k, src[k], dst[k], (unsigned long long)bytes[k],
                      (long long)t[k], (long long)h.t_deliv_ps[k], (long long)r.t_deliv_ps[k]);
    }
    for (uint32_t i = 0; i < N; i++) {
        free(r.src[i].pk_msg);
        free(r.src[i].pk_bits);
    }
    free(r.busy_ps);
    free(r.owner);
    free(r.src);
    free(r.left);
    free(r.t_deliv_ps);
    spinet_topo_free(&r.t);
    sim_destroy(r.s);
    h_close(&h);
    free(t);
    free(src);
    free(dst);
    free(bytes);
    gsl_rng_free(g);
}

START_TEST(test_matches_stage_by_stage_reference)
{
    static const spn_recovery recs[] = {SPN_FAST_NACK, SPN_NACK, SPN_ACK};
    for (size_t k = 0; k < 3; k++)
        for (uint32_t e = 0; e <= 2; e++) {
            compare_with_reference(64, e, recs[k], 0.2, 100 + e, 3000);
            compare_with_reference(16, e, recs[k], 0.5, 200 + e, 2000);
        }
}
END_TEST

static Suite *spinet_suite(void)
{
    Suite *s = suite_create("spinet");
    TCase *tc = tcase_create("topology");
    tcase_add_test(tc, test_paths_per_pair);
    tcase_add_test(tc, test_wiring_inputs);
    tcase_add_test(tc, test_wiring_shifts);
    tcase_add_test(tc, test_routes_match_enumeration);
    tcase_add_test(tc, test_routes_translation_invariant);
    tcase_add_test(tc, test_static_path);
    tcase_add_test(tc, test_large_fabric);
    suite_add_tcase(s, tc);
    tc = tcase_create("timing");
    tcase_add_test(tc, test_rejects);
    tcase_add_test(tc, test_check_bounds);
    tcase_add_test(tc, test_zero_bit_packets_collide);
    tcase_add_test(tc, test_registry);
    tcase_add_test(tc, test_zero_load_every_pair);
    tcase_add_test(tc, test_zero_load_message);
    tcase_add_test(tc, test_zero_load_striped);
    tcase_add_test(tc, test_collision_stage1_fast_nack);
    tcase_add_test(tc, test_collision_last_stage_nack_time);
    tcase_add_test(tc, test_collision_one_drop);
    tcase_add_test(tc, test_extra_stage_avoids_block);
    tcase_add_test(tc, test_collision_nack_end);
    tcase_add_test(tc, test_collision_ack);
    tcase_add_test(tc, test_slotted);
    tcase_add_test(tc, test_phy_loss);
    tcase_add_test(tc, test_edge_fifo_full);
    suite_add_tcase(s, tc);
    tc = tcase_create("load");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_random_load_invariants);
    tcase_add_test(tc, test_same_seed_same_run);
    tcase_add_test(tc, test_matches_stage_by_stage_reference);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(spinet_suite)
