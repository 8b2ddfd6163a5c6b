/* Test helper shared by check_kernels.c, check_patterns.c and
 * check_prog_exec.c: a fabric of the shared harness (th_net_to) driven by
 * the task-program executor, every delivery logged first (th_log).
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

#include "harness.h"
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

typedef struct xh {
    th_net *h;     /* the fabric (th_net_to: deliveries logged in h->log, then the executor) */
    pexec *x;
    int rc;        /* pexec_finish */
    char err[512];
} xh;

/* The star of §4: N nodes, B = 10 Gb/s, link 20 ns, switch 200 ns, cut-through. */
static inline net_params xh_star(uint32_t nodes) { return th_star(nodes, B10); }

/* SPINet as check_uniform.c configures it: no extra stage, 4 m links,
 * t_sw = t_r = 1 ns, 1 kB packets, fast NACK. */
static const char *const xh_spinet_sets[] = {
    "network.extra-stages=0",     "network.switching-time=1ns", "network.reaction-time=1ns",
    "network.link-length=4m",     "network.packet-size=1000B",  "network.protocol=fast-nack",
    "network.slot=100ns",         NULL,
};

/* Run prog on `fabric` with tasks on nodes map (NULL: identity) until the
 * event queue empties; h->rc is pexec_finish's status (h->err its message).
 * Query h->x afterwards; release with xh_close. */
static inline void xh_run(xh *h, const char *fabric, const net_params *np, const tp_prog *prog,
                          const uint32_t *map, uint64_t seed)
{
    memset(h, 0, sizeof *h);
    h->x = pexec_create(prog, map, np->nodes, XH_KIND, h->err, sizeof h->err);
    ck_assert_msg(h->x != NULL, "pexec_create: %s", h->err);
    h->h = th_net_to(fabric, np, strcmp(fabric, "spinet") == 0 ? xh_spinet_sets : NULL, NULL, seed,
                     pexec_deliver, h->x);
    pexec_start(h->x, h->h->s, h->h->n);
    th_net_go(h->h);
    ck_assert_uint_eq(sim_pending(h->h->s), 0);
    h->rc = pexec_finish(h->x, h->err, sizeof h->err);
}

static inline void xh_close(xh *h)
{
    pexec_destroy(h->x);
    th_net_free(h->h);
    memset(h, 0, sizeof *h);
}

static inline int64_t xh_dlv_ps(const xh *h, uint32_t src, uint32_t dst, uint32_t tag)
{
    return th_log_at(&h->h->log, src, dst, tag);
}

static inline void xh_assert_once(const xh *h, uint64_t count) { th_log_once(&h->h->log, count); }
static inline uint64_t xh_digest(const xh *h) { return th_log_digest(&h->h->log); }

#endif
