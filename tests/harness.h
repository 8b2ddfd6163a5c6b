/* The one test harness: fabrics and workloads taken from the registries and
 * set up through their parameter rows, as the application does, without a
 * configuration file. Every check program links it (tests/libharness.a).
 *
 *   th_net    a fabric alone: the test hands messages over at given times,
 *             deliveries are recorded (time, count per message);
 *   th_run    a workload over a fabric, driven to the end;
 *   th_params a plugin's own params from its defaults and "path=value"
 *             settings (parsed by its rows, units and ranges checked). */
#ifndef TASKNET_TESTS_HARNESS_H
#define TASKNET_TESTS_HARNESS_H

#include <check.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "network.h"
#include "params.h"
#include "sim.h"
#include "workload.h"

/* ---- a check program ---- */

/* Run every test of s (Check's usual report) and return the program's
 * exit status: EXIT_SUCCESS when none failed. */
int th_main(Suite *s);
/* The main() of a check program whose tests suite_fn() makes. */
#define TH_MAIN(suite_fn) \
    int main(void) { return th_main(suite_fn()); }
/* Whether Check runs each test in a child process (CK_FORK, the default):
 * only then may a test expect an abort (in-process it would kill the runner). */
int th_forks(void);

/* Constants of the tests: 10 Gb/s, the access bandwidth most tests give
 * their fabrics; picoseconds per nanosecond (64-bit: 2.3e6 ns overflow
 * an int). */
#define B10 10e9
#define NS 1000LL
/* |a - b| <= tol, with both printed exactly when not. */
#define CLOSE(a, b, tol)                                                                                     \
    ck_assert_msg(fabs((a) - (b)) <= (tol), "%.17g != %.17g (tol %g)", (double)(a), (double)(b), (double)(tol))

/* The paper's star: link 20 ns, switch 200 ns. */
#define TH_LINK_PS 20000
#define TH_SW_PS 200000

net_params th_star(uint32_t nodes, double bandwidth_bps);

/* Set "path=value" in a params struct of `rows`; aborts the test on error. */
void th_set(const param_row *rows, size_t n, void *block, const char *assign);
/* A plugin's params: defaults, then the NULL-terminated settings (sets may be NULL). */
void *th_net_params(const net_ops *ops, const char *const *sets);
void *th_wl_params(const wl_ops *ops, const char *const *sets);
/* A workload's params that its check accepts: its defaults, the example of
 * every required row (of an exclusive pair, its own), then the example of
 * every row the check (on core) still says is missing; fails the test if
 * the check names a row without an example. */
void *th_wl_example_params(const wl_ops *ops, const net_params *core);
/* Settings that give fabric `ops` exactly N hosts with its other defaults
 * (NULL-terminated, static until the next call; {NULL} when its defaults
 * accept N): the first of a few usual shapes whose rows it has and that its
 * check accepts (a ring of N/4 x 4, a k-ary 2-tree, N/4 hosts on 4 leaves,
 * 4 groups of 2 routers). Fails the test if none does. */
const char *const *th_net_shape(const net_ops *ops, uint32_t N);
/* Whether ops's defaults take N hosts. */
int th_net_takes(const net_ops *ops, uint32_t N, const char *const *sets);
/* A registered plugin by name (aborts the test if unknown). */
const net_ops *th_net_ops(const char *name);
const wl_ops *th_wl_ops(const char *name);

/* ---- a delivery log (any fabric, any workload) ---- */

/* One delivery as the fabric handed it over (the message itself untouched). */
typedef struct th_dlv {
    uint32_t src, dst;  /* nodes */
    uint32_t a;         /* the message's workload payload `a` (e.g. a tag) */
    uint64_t id;        /* the fabric's message id (net_send order) */
    int64_t t_ps;       /* delivery time */
    int64_t submit_ps;  /* hand-over time */
} th_dlv;

/* Deliveries in order, and how often each message id was delivered.
 * Zero-initialise (th_log l = {0}); th_log_free releases it. */
typedef struct th_log {
    th_dlv *d;
    size_t n, cap;
    uint32_t *seen;    /* [nseen] deliveries per message id */
    size_t nseen;
} th_log;

void th_log_add(th_log *l, const net_msg *m, int64_t now_ps);
void th_log_free(th_log *l);
/* Time of the one delivery src -> dst with payload a, ps; fails the test
 * unless exactly one such delivery was logged. */
int64_t th_log_at(const th_log *l, uint32_t src, uint32_t dst, uint32_t a);
/* count deliveries, and ids 0..count-1 each delivered exactly once. */
void th_log_once(const th_log *l, uint64_t count);
/* Order-sensitive digest of (src, dst, a, time) of every delivery: same
 * seed, same log. */
uint64_t th_log_digest(const th_log *l);

/* ---- a fabric alone ---- */

typedef struct th_net {
    sim *s;
    net *n;
    gsl_rng *rng;       /* the fabric's stream (mt19937 seeded with th_net_new's seed) */
    net_msg_pool pool;
    int release;        /* 1: deliveries go back to the pool */
    size_t nrec, cap;   /* deliveries recorded, room */
    uint64_t *id;       /* [cap] id of the k-th delivery */
    int64_t *t_ps;      /* [cap] its time */
    uint64_t bytes;     /* bytes delivered */
    net_deliver_fn to;  /* th_net_to: deliveries go there (logged in `log`, not recorded above) */
    void *to_owner;
    th_log log;         /* th_net_to's deliveries */
} th_net;

/* Fabric `name` with core parameters and its own settings (NULL: defaults);
 * phy non-NULL: its physical layer resolved from it. Aborts the test on
 * failure. The fabric's stream is a mt19937 seeded with `seed`. */
th_net *th_net_new(const char *name, const net_params *core, const char *const *sets, const phy_params *phy,
                   uint64_t seed, size_t cap);
/* The same, returning NULL and the error instead of aborting. */
th_net *th_net_try(const char *name, const net_params *core, const char *const *sets, const phy_params *phy,
                   uint64_t seed, size_t cap, char *err, size_t errlen);
/* Lanes of the engine taken before the next fabric th_net_try makes
 * (then 0 again): EVQ_MAX_LANES leaves the fabric none, so it schedules
 * every event through the heap (a model's path without lanes). */
extern unsigned th_lanes_taken;
/* A fabric whose deliveries go to deliver(owner, m), logged in h->log
 * first and otherwise untouched (for tests that drive a fabric with their
 * own machinery, e.g. the task-program executor). Aborts the test on
 * failure. */
th_net *th_net_to(const char *name, const net_params *core, const char *const *sets, const phy_params *phy,
                  uint64_t seed, net_deliver_fn deliver, void *owner);
void th_net_free(th_net *h);
/* A message handed over at t_ps (an engine event: equal times keep the
 * order of these calls). Its delivery count goes to m->a, its delivery
 * time to m->b. */
net_msg *th_at(th_net *h, int64_t t_ps, uint32_t src, uint32_t dst, uint64_t bytes, uint8_t prio, uint8_t cls);
static inline net_msg *th_at_low(th_net *h, int64_t t_ps, uint32_t src, uint32_t dst, uint64_t bytes)
{
    return th_at(h, t_ps, src, dst, bytes, NET_PRIO_LOW, NET_DATA);
}
uint64_t th_net_go(th_net *h); /* run to the end; events */

/* Delivered exactly once, at t_ps. */
#define ck_delivered_at(m, t)                                                                    \
    do {                                                                                         \
        ck_assert_uint_eq((m)->a, 1);                                                            \
        ck_assert_int_eq((int64_t)(m)->b, (t));                                                  \
    } while (0)

/* ---- a workload over a fabric ---- */

/* Zero-initialise a th_run (th_run h = {0}); before open, the caller may
 * set trace (a timeline), phy (the fabric's physical layer is resolved
 * from it), log (a delivery log), tap (called with each delivery before
 * the workload sees it) and cache (the workload's cache slot, as run_one
 * hands it over; the caller frees it with the workload's free_cache). */
typedef struct th_run {
    struct trace *trace;     /* optional, set by the caller */
    const phy_params *phy;   /* optional */
    void (*tap)(void *ctx, const net_msg *m); /* optional */
    void *tap_ctx;
    th_log *log;             /* optional: every delivery logged (before tap) */
    void **cache;            /* optional: the workload's per-process cache (wl_env.cache) */
    sim *s;
    net *n;
    gsl_rng *net_rng;
    const wl_ops *w;
    void *ws;          /* workload state */
    void *wp;          /* workload params (owned) */
    int up;            /* init succeeded */
    double *m;         /* [w->nmetrics] after th_run_finish */
    double span_s;
    char err[1024];
} th_run;

/* Fabric `fabric` (core, settings) and workload `workload` with params wp
 * (taken over: freed at close), resolved (its resolve op, e.g. a footprint)
 * and initialised for (seed, replica); the fabric's stream is the one
 * run_one gives it, rng_stream_new(seed, replica, "network"). Returns the first failing step's
 * status (0: ready); h->err says why. A failure still needs th_run_close. */
int th_run_open(th_run *h, const char *fabric, const net_params *core, const char *const *net_sets,
                const char *workload, void *wp, uint64_t seed, uint64_t replica);
/* As th_run_open, with the workload initialised by `init` instead of its
 * ops' init (tests that drive a workload through a special entry point). */
int th_run_open_with(th_run *h, const char *fabric, const net_params *core, const char *const *net_sets,
                     const char *workload, void *wp, uint64_t seed, uint64_t replica,
                     int (*init)(void *state, const wl_env *env, const void *arg, char *err, size_t errlen),
                     const void *arg);
uint64_t th_run_go(th_run *h);  /* simulate to the end: events */
int th_run_finish(th_run *h);   /* the workload's finish into h->m, h->span_s; 0 or -1 (h->err) */
/* All of it at once: workload `workload` with its own settings wl_sets
 * ("path=value", NULL-terminated; NULL: defaults) over fabric `fabric`,
 * every delivery logged into *log (may be NULL), opened, simulated and
 * finished. 0, or -1 at the first failing step (h->err says why). The
 * caller zero-initialises h and closes it whatever the result. */
int th_run_all(th_run *h, const char *fabric, const net_params *core, const char *const *net_sets,
               const char *workload, const char *const *wl_sets, uint64_t seed, uint64_t replica, th_log *log);
void th_run_close(th_run *h);

/* A metric of h's workload by name, after th_run_finish (NAN if unknown). */
double th_metric(const th_run *h, const char *name);
/* A core or fabric metric of a fabric instance by name, measured now (NAN if unknown). */
double th_net_metric(net *n, const char *name);
/* The same for h's fabric, failing the test when the fabric has no such
 * metric (a metric it has may still be NAN: not measured). */
double th_net_metric_of(th_net *h, const char *name);

#endif
