/* The conformance suite over the registries: every fabric of net_registry
 * and every workload of wl_registry is held to the contracts of
 * networks/network.h and workloads/workload.h, so a new plugin is covered
 * by adding nothing here.
 *
 * Fabrics: parameter rows well formed; the smallest N its check accepts
 * among a few usual sizes is used; exactly-once delivery and byte
 * conservation under random load; never faster than its own zero-load
 * formula, and exactly that formula for a message alone; same seed, same
 * deliveries; static routes start on the source's own link and end on the
 * destination's; its physical layer resolves from the defaults (energy
 * reported), or it reports no energy at all.
 * Workloads: parameter rows well formed; with its defaults and the example
 * value of every parameter it says is missing, it completes on every
 * fabric and on a fake fabric that delivers in random order after random
 * delays, with messages sent = delivered and bytes conserved, and the same
 * metrics for the same seed. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

/* mallinfo2 (glibc 2.33), not under AddressSanitizer's allocator */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#if __GLIBC_PREREQ(2, 33)
#define HAVE_MALLINFO2 1
#endif
#endif

#include "harness.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "params.h"
#include "phy_params.h"
#include "workload.h"

#define B_BPS 10e9

/* The first usual N a fabric's check accepts with its defaults. */
static uint32_t fabric_nodes(const net_ops *ops)
{
    static const uint32_t cand[] = {16, 8, 32, 64, 27, 36, 128, 256};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
        if (th_net_takes(ops, cand[i], NULL))
            return cand[i];
    ck_abort_msg("%s accepts none of the usual node counts with its defaults", ops->name);
    return 0;
}

/* ------------------------------------------------------------- rows */

static void check_rows(const char *who, const param_row *rows, size_t n, size_t size, const char *prefix)
{
    for (size_t i = 0; i < n; i++) {
        const param_row *r = &rows[i];
        ck_assert_msg(r->path && r->type && r->unit && r->help && r->help[0], "%s row %zu incomplete", who, i);
        ck_assert_msg(strchr(r->path, '.') != NULL, "%s: %s has no element", who, r->path);
        (void)prefix;
        ck_assert_msg(r->off < size || (r->kind == PARAM_NAME && size == 0), "%s: %s lies outside its params",
                      who, r->path);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(rows[j].path, r->path) != 0, "%s declares %s twice", who, r->path);
        param_value v;
        char err[512];
        if (r->def && r->def[0]) {
            ck_assert_msg(param_parse(r, r->def, ".", &v, err, sizeof err) == 0, "%s: %s default: %s", who, r->path,
                          err);
            param_value_free(&v);
        }
        if (r->example) {
            ck_assert_msg(param_parse(r, r->example, ".", &v, err, sizeof err) == 0, "%s: %s example '%s': %s", who,
                          r->path, r->example, err);
            param_value_free(&v);
        }
        ck_assert_msg(!(r->flags & PARAM_REQUIRED) || r->example, "%s: required %s has no example", who, r->path);
    }
}

static void check_metric_names(const char *who, const metric_def *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(m[i].name && m[i].desc && m[i].desc[0], "%s metric %zu incomplete", who, i);
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(m[j].name, m[i].name) != 0, "%s declares metric %s twice", who, m[i].name);
        for (size_t k = 0; k < METRIC_CORE_COUNT; k++)
            ck_assert_msg(strcmp(metric_core[k].name, m[i].name) != 0, "%s redefines core metric %s", who, m[i].name);
    }
}

START_TEST(test_fabric_declarations)
{
    const net_ops *ops = net_registry[_i];
    ck_assert_ptr_nonnull(ops->name);
    ck_assert_ptr_nonnull(ops->description);
    ck_assert_ptr_nonnull(ops->init);
    ck_assert_ptr_nonnull(ops->send);
    ck_assert_msg(ops->zero_load_ps != NULL, "%s has no zero_load_ps", ops->name);
    ck_assert_msg((ops->route == NULL) == (ops->link_count == NULL), "%s: route and link_count go together", ops->name);
    ck_assert_msg(ops->nparams == 0 || ops->params_size > 0, "%s: rows without a params struct", ops->name);
    check_rows(ops->name, ops->params, ops->nparams, ops->params_size, "network.");
    check_metric_names(ops->name, ops->metrics, ops->nmetrics);
    ck_assert_ptr_eq(net_find(ops->name), ops);
    ck_assert_uint_eq(net_index(ops), (size_t)_i);
}
END_TEST

START_TEST(test_workload_declarations)
{
    const wl_ops *ops = wl_registry[_i];
    ck_assert_ptr_nonnull(ops->name);
    ck_assert_ptr_nonnull(ops->description);
    ck_assert_ptr_nonnull(ops->init);
    ck_assert_ptr_nonnull(ops->deliver);
    ck_assert_ptr_nonnull(ops->finish);
    /* the memory check before a run counts its messages' latency samples
     * and its own records: every shipped workload says what they are
     * (run_workload holds the count to what a run sends) */
    ck_assert_msg(ops->estimate != NULL, "%s gives no estimate of a run", ops->name);
    check_rows(ops->name, ops->params, ops->nparams, ops->params_size, NULL);
    check_metric_names(ops->name, ops->metrics, ops->nmetrics);
    /* its table names metrics a run has */
    for (size_t k = 0; ops->table && ops->table[k].metric; k++) {
        int found = 0;
        for (size_t i = 0; i < ops->nmetrics; i++)
            found |= strcmp(ops->metrics[i].name, ops->table[k].metric) == 0;
        for (size_t i = 0; i < METRIC_CORE_COUNT; i++)
            found |= strcmp(metric_core[i].name, ops->table[k].metric) == 0;
        ck_assert_msg(found, "%s's table shows %s, which no run has", ops->name, ops->table[k].metric);
    }
    ck_assert_ptr_eq(wl_find(ops->name), ops);
}
END_TEST

/* ------------------------------------------------------------- fabrics */

/* A message alone takes exactly the fabric's own zero-load time, for sizes
 * from empty to many packets and for near and far pairs. */
START_TEST(test_fabric_zero_load)
{
    const net_ops *ops = net_registry[_i];
    uint32_t N = fabric_nodes(ops);
    static const uint64_t sizes[] = {0, 1, 40, 1000, 5000, 100000};
    const uint32_t pairs[][2] = {{0, N - 1}, {1, 2}, {N - 1, 0}, {N / 2, 3}};
    net_params core = th_star(N, B_BPS);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t k = 0; k < 4; k++) {
            th_net *h = th_net_new(ops->name, &core, NULL, NULL, 1, 2);
            net_msg *m = th_at_low(h, 1000000, pairs[k][0], pairs[k][1], sizes[s]);
            th_net_go(h);
            int64_t want = ops->zero_load_ps(h->n->state, pairs[k][0], pairs[k][1], sizes[s]);
            ck_assert_msg(want > 0, "%s: zero-load time %lld ps", ops->name, (long long)want);
            ck_assert_msg(m->a == 1 && (int64_t)m->b - 1000000 == want,
                          "%s: %llu B from %u to %u: delivered %llu times after %lld ps, its formula says %lld ps",
                          ops->name, (unsigned long long)sizes[s], pairs[k][0], pairs[k][1], (unsigned long long)m->a,
                          (long long)((int64_t)m->b - 1000000), (long long)want);
            th_net_free(h);
        }
}
END_TEST

enum { LOAD_MSGS = 3000 };

/* Random load near saturation: sizes 0..20 kB, random pairs, hand-overs
 * over 3000 x 8 kB x 8 / (N B) so each node offers about its B, with ties.
 * Returns the deliveries' times in delivery order (caller frees). */
static int64_t *random_load(const net_ops *ops, uint32_t N, uint64_t seed, uint64_t fabric_seed, int64_t *latest)
{
    net_params core = th_star(N, B_BPS);
    th_net *h = th_net_new(ops->name, &core, NULL, NULL, fabric_seed, LOAD_MSGS);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, seed);
    int64_t window = (int64_t)(LOAD_MSGS * 8e3 * 8 / (N * B_BPS) * 1e12);
    net_msg **ms = malloc(LOAD_MSGS * sizeof *ms);
    int64_t *t0 = malloc(LOAD_MSGS * sizeof *t0);
    uint64_t bytes = 0;
    for (size_t i = 0; i < LOAD_MSGS; i++) {
        t0[i] = i % 9 == 1 ? t0[i - 1] : (int64_t)gsl_rng_uniform_int(g, (unsigned long)window);
        uint32_t src = (uint32_t)gsl_rng_uniform_int(g, N);
        uint32_t dst = (uint32_t)((src + 1 + gsl_rng_uniform_int(g, N - 1)) % N);
        uint64_t size = gsl_rng_uniform(g) < 0.3 ? gsl_rng_uniform_int(g, 100) : gsl_rng_uniform_int(g, 20001);
        bytes += size;
        ms[i] = th_at(h, t0[i], src, dst, size, (uint8_t)gsl_rng_uniform_int(g, 2), (uint8_t)gsl_rng_uniform_int(g, 2));
    }
    th_net_go(h);
    /* exactly once, never faster than alone, bytes and counters conserved */
    ck_assert_uint_eq(h->nrec, LOAD_MSGS);
    for (size_t i = 0; i < LOAD_MSGS; i++) {
        ck_assert_msg(ms[i]->a == 1, "%s: message %zu delivered %llu times", ops->name, i,
                      (unsigned long long)ms[i]->a);
        int64_t alone = ops->zero_load_ps(h->n->state, ms[i]->src, ms[i]->dst, ms[i]->size_bytes);
        ck_assert_msg((int64_t)ms[i]->b - t0[i] >= alone, "%s: message %zu took %lld ps, less than alone (%lld)",
                      ops->name, i, (long long)((int64_t)ms[i]->b - t0[i]), (long long)alone);
    }
    char *seen = calloc(LOAD_MSGS, 1);
    for (size_t k = 0; k < h->nrec; k++) {
        ck_assert_uint_lt(h->id[k], LOAD_MSGS);
        ck_assert(!seen[h->id[k]]);
        seen[h->id[k]] = 1;
        if (k)
            ck_assert_int_ge(h->t_ps[k], h->t_ps[k - 1]);
    }
    free(seen);
    ck_assert_uint_eq(h->bytes, bytes);
    ck_assert_uint_eq(h->n->c.sent, LOAD_MSGS);
    ck_assert_uint_eq(h->n->c.delivered, LOAD_MSGS);
    ck_assert_uint_eq(h->n->c.bytes_sent, bytes);
    ck_assert_uint_eq(h->n->c.bytes_delivered, bytes);
    /* the fabric's metrics: declared names only, numbers or not measured */
    double core_m[METRIC_CORE_COUNT], own[64];
    ck_assert_uint_le(ops->nmetrics, 64);
    net_metrics(h->n, core_m, own);
    ck_assert_double_eq(core_m[M_messages_delivered], LOAD_MSGS);
    ck_assert_double_eq(core_m[M_bytes_delivered], (double)bytes);
    int64_t *times = malloc(LOAD_MSGS * sizeof *times);
    memcpy(times, h->t_ps, LOAD_MSGS * sizeof *times);
    *latest = h->t_ps[h->nrec - 1];
    free(ms);
    free(t0);
    gsl_rng_free(g);
    th_net_free(h);
    return times;
}

START_TEST(test_fabric_random_load)
{
    const net_ops *ops = net_registry[_i];
    uint32_t N = fabric_nodes(ops);
    int64_t last_a, last_b;
    int64_t *a = random_load(ops, N, 5, 1, &last_a);
    /* same seeds, same deliveries */
    int64_t *b = random_load(ops, N, 5, 1, &last_b);
    ck_assert_msg(memcmp(a, b, LOAD_MSGS * sizeof *a) == 0, "%s: the same seed gave other deliveries", ops->name);
    free(a);
    free(b);
}
END_TEST

/* Static routes: links in range, the source's own link first and the
 * destination's own link last (host links included), the same every call. */
START_TEST(test_fabric_routes)
{
    const net_ops *ops = net_registry[_i];
    if (!ops->route)
        return;
    uint32_t N = fabric_nodes(ops);
    net_params core = th_star(N, B_BPS);
    th_net *h = th_net_new(ops->name, &core, NULL, NULL, 1, 1);
    uint64_t L = ops->link_count(h->n->state);
    ck_assert_uint_gt(L, 0);
    uint64_t first[256], last[256], links[256], again[256];
    ck_assert_uint_le(N, 256);
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < N; b++) {
            if (a == b)
                continue;
            size_t n = ops->route(h->n->state, a, b, links, 256);
            ck_assert_msg(n >= 2 && n <= 256, "%s: route %u -> %u has %zu links", ops->name, a, b, n);
            for (size_t k = 0; k < n; k++)
                ck_assert_msg(links[k] < L, "%s: route %u -> %u uses link %llu of %llu", ops->name, a, b,
                              (unsigned long long)links[k], (unsigned long long)L);
            size_t n2 = ops->route(h->n->state, a, b, again, 256);
            ck_assert(n2 == n && memcmp(links, again, n * sizeof *links) == 0);
            if (b == (a == 0 ? 1 : 0))
                first[a] = links[0];
            ck_assert_msg(links[0] == first[a], "%s: %u leaves on different links", ops->name, a);
            if (a == (b == 0 ? 1 : 0))
                last[b] = links[n - 1];
            ck_assert_msg(links[n - 1] == last[b], "%s: %u is reached on different links", ops->name, b);
        }
    /* host links are each node's own */
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < a; b++) {
            ck_assert(first[a] != first[b]);
            ck_assert(last[a] != last[b]);
        }
    th_net_free(h);
}
END_TEST

/* The memory a fabric declares before a run (net_ops.mem_bytes through
 * net_mem_bytes: what the run's budget refuses a run on) grows no faster
 * than N log N, covers what its init allocates and is not far above it.
 * Growth: from 4,096 to 65,536 nodes, at most 16 times the nodes, 16/12
 * times log N and 1.5 for rounding (a table of 2 MiB and more rounds up to
 * 2 MiB); SPINet's once counted a routing table per destination (8.8 GB
 * at 65,536 ports, which hold 45 MB). Allocation: at 4,096 nodes in the usual
 * shape, mallinfo2's bytes in use grow, over th_net_new, by at most the
 * estimate plus MEM_SLACK_B and by at least a third of it less that slack
 * (the estimate adds a packet record per node in flight, which init does
 * not allocate). The slack: the engine, the stream and the harness, and
 * the 2 MiB alignment of one table of tn_xalloc_big (mapped, never
 * touched), the most any fabric makes at this size. Not under
 * AddressSanitizer, whose allocator mallinfo2 does not see. */
#define MEM_SLACK_B (512.0 * 1024 + 2.0 * 1024 * 1024)
static double fabric_estimate(const net_ops *ops, uint32_t N)
{
    net_params core = th_star(N, B_BPS);
    void *params = th_net_params(ops, th_net_shape(ops, N));
    double est = net_mem_bytes(ops, &core, params);
    net_params_free(ops, params);
    return est;
}

START_TEST(test_fabric_memory)
{
    const net_ops *ops = net_registry[_i];
    const uint32_t N = 4096;
    double est = fabric_estimate(ops, N);
    double big = fabric_estimate(ops, 16 * N);
    ck_assert_msg(big <= est * 16 * 16 / 12 * 1.5 + MEM_SLACK_B,
                  "%s: the estimate grows from %.0f B at %u nodes to %.0f B at %u", ops->name, est, N, big, 16 * N);
#ifdef HAVE_MALLINFO2
    const char *const *sets = th_net_shape(ops, N);
    net_params core = th_star(N, B_BPS);
    struct mallinfo2 before = mallinfo2();
    th_net *h = th_net_new(ops->name, &core, sets, NULL, 1, 1);
    struct mallinfo2 after = mallinfo2();
    double used = ((double)after.uordblks + (double)after.hblkhd) - ((double)before.uordblks + (double)before.hblkhd);
    ck_assert_msg(used <= est + MEM_SLACK_B && est <= 3 * used + MEM_SLACK_B,
                  "%s at %u nodes: init allocated %.0f B, its estimate says %.0f B", ops->name, N, used, est);
    th_net_free(h);
#endif
}
END_TEST

/* The saturation bound a fabric gives before a run (net_uniform_bound,
 * for the workloads' estimates) is the one its instance reports
 * (saturation_bound), in several shapes; 1 for a fabric that reports
 * none. */
START_TEST(test_fabric_bound)
{
    const net_ops *ops = net_registry[_i];
    static const uint32_t sizes[] = {16, 64, 256};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t N = sizes[i];
        if (!th_net_takes(ops, N, th_net_shape(ops, N)))
            continue;
        const char *const *sets = th_net_shape(ops, N);
        net_params core = th_star(N, B_BPS);
        void *params = th_net_params(ops, sets);
        double before = net_uniform_bound(ops, &core, params);
        net_params_free(ops, params);
        th_net *h = th_net_new(ops->name, &core, sets, NULL, 1, 1);
        double reported = th_net_metric(h->n, "saturation_bound");
        ck_assert_msg(before > 0 && before <= 1, "%s at %u nodes: bound %g", ops->name, N, before);
        ck_assert_msg(isnan(reported) ? before == 1 : before == reported,
                      "%s at %u nodes: %g before the run, %g reported by it", ops->name, N, before, reported);
        th_net_free(h);
    }
}
END_TEST

/* The physical layer resolves from its defaults and energy is reported; a
 * fabric without one reports no energy (an empty cell), never 0. */
START_TEST(test_fabric_phy)
{
    const net_ops *ops = net_registry[_i];
    uint32_t N = fabric_nodes(ops);
    net_params core = th_star(N, B_BPS);
    phy_params phy;
    phy_params_defaults(&phy);
    th_net *h = th_net_new(ops->name, &core, NULL, ops->resolve_phy ? &phy : NULL, 1, 4);
    net_msg *m = th_at_low(h, 0, 0, N - 1, 1000);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    double core_m[METRIC_CORE_COUNT], own[64];
    net_metrics(h->n, core_m, own);
    long e = -1;
    for (size_t i = 0; i < ops->nmetrics; i++)
        if (strcmp(ops->metrics[i].name, "energy_per_bit_j") == 0)
            e = (long)i;
    if (ops->resolve_phy) {
        ck_assert_msg(e >= 0, "%s resolves a physical layer but reports no energy_per_bit_j", ops->name);
        ck_assert_msg(own[e] > 0 && isfinite(own[e]), "%s: energy per bit %g", ops->name, own[e]);
    } else if (e >= 0) {
        ck_assert_msg(isnan(own[e]), "%s has no physical layer but reports energy %g", ops->name, own[e]);
    }
    th_net_free(h);
}
END_TEST

/* ------------------------------------------------------------- workloads */

/* A fabric that is none of the registered ones: every message arrives after
 * a random delay of up to 20 us drawn from the fabric's stream, so messages
 * overtake each other and arrive out of hand-over order. */
typedef struct fake_state {
    net *n;
} fake_state;

static void fake_deliver(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    fake_state *st = ctx;
    net_delivered(st->n, (net_msg *)(uintptr_t)arg);
}

static int fake_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    (void)params;
    (void)err;
    (void)errlen;
    ((fake_state *)state)->n = n;
    return 0;
}

static void fake_send(void *state, net_msg *m)
{
    fake_state *st = state;
    int64_t d = 1 + (int64_t)gsl_rng_uniform_int(st->n->rng, 20000000);
    sim_schedule(net_sim(st->n), d, fake_deliver, st, (uint64_t)(uintptr_t)m);
}

static int64_t fake_zero_load(const void *state, uint32_t src, uint32_t dst, uint64_t bytes)
{
    (void)state;
    (void)src;
    (void)dst;
    (void)bytes;
    return 1;
}

static const net_ops fake_ops = {
    .name = "fake-random-delay",
    .description = "test fabric: random delays, random order",
    .state_size = sizeof(fake_state),
    .init = fake_init,
    .send = fake_send,
    .zero_load_ps = fake_zero_load,
};

/* Run workload w on fabric f (NULL: the fake one); metrics into m. */
static void run_workload(const wl_ops *w, const net_ops *f, uint64_t seed, double *m, double *span)
{
    uint32_t N = f ? fabric_nodes(f) : 16;
    net_params core = th_star(N, B_BPS);
    void *wp = th_wl_example_params(w, &core);
    sim *s = sim_create();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    char err[1024] = "";
    if (w->resolve) {
        wl_resolve wr = {.nodes = N, .net = &core, .seed = seed};
        ck_assert_msg(w->resolve(wp, &wr, err, sizeof err) == 0, "%s resolve: %s", w->name, err);
    }
    void *ws = calloc(1, w->state_size ? w->state_size : 1);
    net *n = net_create(f ? f : &fake_ops, &core, NULL, NULL, s, rng, (net_deliver_fn)w->deliver, ws, err,
                        sizeof err);
    ck_assert_msg(n != NULL, "%s over %s: %s", w->name, f ? f->name : fake_ops.name, err);
    wl_env env = {.sim = s, .net = n, .nodes = N, .bandwidth_bps = core.bandwidth_bps, .seed = seed,
                  .replica = 0, .params = wp};
    ck_assert_msg(w->init(ws, &env, err, sizeof err) == 0, "%s init over %s: %s", w->name,
                  f ? f->name : fake_ops.name, err);
    sim_run(s, SIM_TIME_MAX);
    metric_unset(m, w->nmetrics);
    wl_span sp = {-1, -1};
    ck_assert_msg(w->finish(ws, NULL, m, &sp, err, sizeof err) == 0, "%s over %s: %s", w->name,
                  f ? f->name : fake_ops.name, err);
    ck_assert_uint_gt(n->c.sent, 0);
    ck_assert_uint_eq(n->c.delivered, n->c.sent);
    /* what it expects of a run before it runs (the memory check counts the
     * latency samples of these messages): within a factor of 2 of what it
     * sent, and some memory */
    if (w->estimate) {
        wl_estimate we = {0};
        wl_resolve wr = {.nodes = N, .net = &core, .seed = seed};
        w->estimate(wp, &wr, &we);
        double sent = (double)n->c.sent;
        ck_assert_msg(we.messages >= sent / 2 && we.messages <= 2 * sent && we.mem_bytes > 0,
                      "%s over %s: %.0f messages sent, its estimate says %g messages and %g B", w->name,
                      f ? f->name : fake_ops.name, sent, we.messages, we.mem_bytes);
    }
    ck_assert_uint_eq(n->c.bytes_delivered, n->c.bytes_sent);
    ck_assert_msg(sp.first_ps >= 0 && sp.last_ps >= sp.first_ps, "%s over %s: span [%lld, %lld] ps", w->name,
                  f ? f->name : fake_ops.name, (long long)sp.first_ps, (long long)sp.last_ps);
    *span = units_ps_to_s(sp.last_ps - sp.first_ps);
    ck_assert_msg(*span > 0, "%s over %s: span %g s", w->name, f ? f->name : fake_ops.name, *span);
    if (w->fini)
        w->fini(ws);
    free(ws);
    net_destroy(n);
    gsl_rng_free(rng);
    sim_destroy(s);
    wl_params_free(w, wp);
}

START_TEST(test_workload_on_every_fabric)
{
    const wl_ops *w = wl_registry[_i];
    double *m = calloc(w->nmetrics + 1, sizeof *m), *m2 = calloc(w->nmetrics + 1, sizeof *m2), span, span2;
    for (size_t f = 0; net_registry[f]; f++) {
        run_workload(w, net_registry[f], 3, m, &span);
        /* same seed, same metrics (NAN where not measured) */
        run_workload(w, net_registry[f], 3, m2, &span2);
        for (size_t k = 0; k < w->nmetrics; k++)
            ck_assert_msg(m[k] == m2[k] || (isnan(m[k]) && isnan(m2[k])), "%s over %s: %s %g then %g", w->name,
                          net_registry[f]->name, w->metrics[k].name, m[k], m2[k]);
        ck_assert_double_eq(span, span2);
    }
    run_workload(w, NULL, 3, m, &span);
    free(m);
    free(m2);
}
END_TEST

static Suite *conformance_suite(void)
{
    Suite *s = suite_create("conformance");
    TCase *t = tcase_create("fabrics");
    tcase_set_timeout(t, 300);
    int nf = (int)net_count(), nw = (int)wl_count();
    tcase_add_loop_test(t, test_fabric_declarations, 0, nf);
    tcase_add_loop_test(t, test_fabric_zero_load, 0, nf);
    tcase_add_loop_test(t, test_fabric_random_load, 0, nf);
    tcase_add_loop_test(t, test_fabric_routes, 0, nf);
    tcase_add_loop_test(t, test_fabric_phy, 0, nf);
    tcase_add_loop_test(t, test_fabric_memory, 0, nf);
    tcase_add_loop_test(t, test_fabric_bound, 0, nf);
    suite_add_tcase(s, t);
    t = tcase_create("workloads");
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, test_workload_declarations, 0, nw);
    tcase_add_loop_test(t, test_workload_on_every_fabric, 0, nw);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(conformance_suite)
