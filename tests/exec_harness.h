/* Test helper shared by check_kernels.c, check_patterns.c and
 * check_prog_exec.c: one engine + one fabric (net_create, as
 * check_uniform.c does) + the task-program executor, every delivery seen by
 * the test first. The one place that builds a fabric by hand for these
 * tests: the shared harness of issue 9 replaces it.
 *
 * Common numbers (specs/kernels-patterns.md §4): B = 10 Gb/s, link 20 ns,
 * switch 200 ns, S = 1 kB: ser = 8000 b / 10 Gb/s = 800 ns, L0 = 2 link +
 * switch = 240 ns, zero-load latency 1040 ns. */
#ifndef TASKNET_TESTS_EXEC_HARNESS_H
#define TASKNET_TESTS_EXEC_HARNESS_H

#include <check.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "network.h"
#include "prog_exec.h"
#include "rng.h"
#include "sim.h"
#include "taskprog.h"

#define NS 1000                 /* ps per ns */
#define B10 10e9                /* bit/s */
#define LINK_PS (20 * NS)
#define SW_PS (200 * NS)
#define SER_PS (800 * NS)       /* 1000 B at 10 Gb/s */
#define FIXED_PS (240 * NS)     /* 2 link + switch */
#define L0_PS (SER_PS + FIXED_PS) /* 1040 ns */
#define XH_KIND 0x4b50u         /* net_msg.kind of the tests' programs */

typedef struct xh_dlv {
    uint32_t src, dst, tag; /* nodes and tag */
    uint64_t id;            /* the fabric's message id */
    int64_t t_ps;           /* delivery time */
    int64_t submit_ps;      /* hand-over time */
} xh_dlv;

typedef struct xh {
    sim *s;
    gsl_rng *net_rng;
    net *n;
    pexec *x;
    xh_dlv *d;     /* deliveries in order */
    size_t nd, cap;
    uint32_t *seen; /* [cap_ids] deliveries per message id */
    size_t cap_ids;
    int rc;        /* pexec_finish */
    char err[512];
} xh;

static void xh_deliver(void *owner, net_msg *m)
{
    xh *h = owner;
    if (h->nd == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 256;
        h->d = realloc(h->d, h->cap * sizeof *h->d);
        ck_assert_ptr_nonnull(h->d);
    }
    h->d[h->nd++] = (xh_dlv){m->src, m->dst, m->a, m->id, sim_now(h->s), m->t_submit_ps};
    if (m->id >= h->cap_ids) {
        size_t nc = 2 * m->id + 16;
        h->seen = realloc(h->seen, nc * sizeof *h->seen);
        ck_assert_ptr_nonnull(h->seen);
        memset(h->seen + h->cap_ids, 0, (nc - h->cap_ids) * sizeof *h->seen);
        h->cap_ids = nc;
    }
    h->seen[m->id]++;
    pexec_deliver(h->x, m);
}

/* The star of §4: N nodes, B = 10 Gb/s, link 20 ns, switch 200 ns, cut-through. */
static inline net_params xh_star(uint32_t nodes)
{
    net_params np;
    memset(&np, 0, sizeof np);
    np.nodes = nodes;
    np.bandwidth_bps = B10;
    np.link_latency_ps = LINK_PS;
    np.switch_latency_ps = SW_PS;
    return np;
}

/* SPINet as check_uniform.c configures it: 4 m links, t_sw = t_r = 1 ns,
 * 1 kB packets, fast NACK. */
static inline net_params xh_spinet(uint32_t nodes)
{
    net_params np = xh_star(nodes);
    np.switching_time_ps = 1000;
    np.reaction_time_ps = 1000;
    np.link_length_m = 4.0;
    np.packet_size_bits = 8000;
    np.recovery = NET_FAST_NACK;
    np.slot_ps = 100000;
    return np;
}

/* Run prog on `fabric` with tasks on nodes map (NULL: identity) until the
 * event queue empties; h->rc is pexec_finish's status (h->err its message).
 * Query h->x afterwards; release with xh_close. */
static inline void xh_run(xh *h, const char *fabric, const net_params *np, const tp_prog *prog,
                          const uint32_t *map, uint64_t seed)
{
    memset(h, 0, sizeof *h);
    h->s = sim_create();
    h->net_rng = rng_stream_new(seed, 0, "network");
    h->x = pexec_create(prog, map, np->nodes, XH_KIND, h->err, sizeof h->err);
    ck_assert_msg(h->x != NULL, "pexec_create: %s", h->err);
    h->n = net_create(fabric, np, h->s, h->net_rng, xh_deliver, h, h->err, sizeof h->err);
    ck_assert_msg(h->n != NULL, "%s: %s", fabric, h->err);
    pexec_start(h->x, h->s, h->n);
    sim_run(h->s, SIM_TIME_MAX);
    ck_assert_uint_eq(sim_pending(h->s), 0);
    h->rc = pexec_finish(h->x, h->err, sizeof h->err);
}

static inline void xh_close(xh *h)
{
    pexec_destroy(h->x);
    net_destroy(h->n);
    gsl_rng_free(h->net_rng);
    sim_destroy(h->s);
    free(h->d);
    free(h->seen);
    memset(h, 0, sizeof *h);
}

/* Delivery time of the message src -> dst (nodes) with tag, ps; fails the
 * test unless exactly one such delivery happened. */
static inline int64_t xh_dlv_ps(const xh *h, uint32_t src, uint32_t dst, uint32_t tag)
{
    int64_t t = -1;
    int n = 0;
    for (size_t i = 0; i < h->nd; i++)
        if (h->d[i].src == src && h->d[i].dst == dst && h->d[i].tag == tag) {
            t = h->d[i].t_ps;
            n++;
        }
    ck_assert_msg(n == 1, "%d deliveries %u -> %u tag %u", n, src, dst, tag);
    return t;
}

/* Every message id delivered exactly once, ids 0..count-1. */
static inline void xh_assert_once(const xh *h, uint64_t count)
{
    ck_assert_uint_eq(h->nd, count);
    for (uint64_t i = 0; i < count; i++)
        ck_assert_msg(i < h->cap_ids && h->seen[i] == 1, "message %llu delivered %u times",
                      (unsigned long long)i, i < h->cap_ids ? h->seen[i] : 0);
}

/* Order-sensitive digest of the delivery log (same seed, same run). */
static inline uint64_t xh_digest(const xh *h)
{
    uint64_t x = 1469598103934665603ULL;
    for (size_t i = 0; i < h->nd; i++) {
        const xh_dlv *d = &h->d[i];
        uint64_t v[4] = {d->src, d->dst, d->tag, (uint64_t)d->t_ps};
        for (int k = 0; k < 4; k++) {
            x ^= v[k];
            x *= 1099511628211ULL;
        }
    }
    return x;
}

#endif
