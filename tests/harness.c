/* The one test harness (see harness.h). */
#include "harness.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "rng.h"

net_params th_star(uint32_t nodes, double bandwidth_bps)
{
    net_params p;
    memset(&p, 0, sizeof p);
    p.nodes = nodes;
    p.bandwidth_bps = bandwidth_bps;
    p.link_latency_ps = TH_LINK_PS;
    p.switch_latency_ps = TH_SW_PS;
    return p;
}

int th_main(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int th_forks(void)
{
    SRunner *sr = srunner_create(NULL);
    int forks = srunner_fork_status(sr) != CK_NOFORK;
    srunner_free(sr);
    return forks;
}

void th_set(const param_row *rows, size_t n, void *block, const char *assign)
{
    const char *eq = strchr(assign, '=');
    ck_assert_msg(eq != NULL, "setting '%s' is not path=value", assign);
    size_t plen = (size_t)(eq - assign);
    for (size_t i = 0; i < n; i++)
        if (strlen(rows[i].path) == plen && strncmp(rows[i].path, assign, plen) == 0) {
            param_value v;
            char err[512];
            ck_assert_msg(param_parse(&rows[i], eq + 1, ".", &v, err, sizeof err) == 0, "%s: %s", assign, err);
            param_store(block, &rows[i], &v);
            return;
        }
    ck_abort_msg("no parameter %.*s here", (int)plen, assign);
}

static int has_row(const net_ops *ops, const char *assign)
{
    size_t plen = strcspn(assign, "=");
    for (size_t i = 0; i < ops->nparams; i++)
        if (strlen(ops->params[i].path) == plen && strncmp(ops->params[i].path, assign, plen) == 0)
            return 1;
    return 0;
}

int th_net_takes(const net_ops *ops, uint32_t N, const char *const *sets)
{
    for (size_t i = 0; sets && sets[i]; i++)
        if (!has_row(ops, sets[i]))
            return 0;
    void *p = th_net_params(ops, sets);
    net_params core = th_star(N, 10e9);
    char err[512];
    param_first first;
    if (ops->check)
        ops->check(&core, p, param_report_first(&first, err, sizeof err));
    else
        first.rep.n = 0;
    net_params_free(ops, p);
    return first.rep.n == 0;
}

const char *const *th_net_shape(const net_ops *ops, uint32_t N)
{
    static char txt[4][128];
    static const char *sets[5];
    unsigned k = 1;
    while ((k + 1) * (k + 1) <= N)
        k++;
    /* path=value, the value NULL standing for the shape's one number */
    static const struct {
        const char *path, *value;
    } cand[][5] = {
        {{NULL, NULL}},
        {{"network.dims", NULL}, {NULL, NULL}}, /* N/4 4 */
        {{"network.arity", NULL}, {"network.levels", "2"}, {NULL, NULL}},
        {{"network.hosts-per-leaf", NULL}, {"network.leaves", "4"}, {NULL, NULL}},
        {{"network.hosts-per-router", NULL},
         {"network.groups", "4"},
         {"network.routers-per-group", "2"},
         {"network.global-links", "3"},
         {NULL, NULL}},
    };
    const unsigned arg[] = {0, N / 4, k, N / 4, N / 8};
    for (size_t r = 0; r < ops->nparams; r++)
        if (strcmp(ops->params[r].path, "network.file") == 0) {
            /* a DOT fabric (the graph): L = min(4, N) leaves with the hosts
             * dealt round-robin, each leaf linked to two spines; up-down */
            static char path[64];
            snprintf(path, sizeof path, "/tmp/tasknet-th-graph-%ld-%u.dot", (long)getpid(), N);
            FILE *f = fopen(path, "w");
            ck_assert_ptr_nonnull(f);
            unsigned L = N < 4 ? N : 4;
            fprintf(f, "graph g {\n");
            for (unsigned h = 0; h < N; h++)
                fprintf(f, "  H%u -- L%u;\n", h, h % L);
            for (unsigned l = 0; l < L; l++)
                fprintf(f, "  L%u -- T0;\n  L%u -- T1;\n", l, l);
            fprintf(f, "}\n");
            fclose(f);
            snprintf(txt[0], sizeof txt[0], "network.file=%s", path);
            sets[0] = txt[0];
            sets[1] = "network.routing=up-down";
            sets[2] = NULL;
            if (th_net_takes(ops, N, sets))
                return sets;
        }
    for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
        size_t i = 0;
        for (; cand[c][i].path; i++) {
            if (cand[c][i].value)
                snprintf(txt[i], sizeof txt[i], "%s=%s", cand[c][i].path, cand[c][i].value);
            else
                snprintf(txt[i], sizeof txt[i], "%s=%u%s", cand[c][i].path, arg[c], c == 1 ? " 4" : "");
            sets[i] = txt[i];
        }
        sets[i] = NULL;
        if (th_net_takes(ops, N, sets))
            return sets;
    }
    ck_abort_msg("%s takes %u hosts in none of the usual shapes", ops->name, N);
    return NULL;
}

const net_ops *th_net_ops(const char *name)
{
    const net_ops *ops = net_find(name);
    ck_assert_msg(ops != NULL, "no fabric %s", name);
    return ops;
}

const wl_ops *th_wl_ops(const char *name)
{
    const wl_ops *ops = wl_find(name);
    ck_assert_msg(ops != NULL, "no workload %s", name);
    return ops;
}

void *th_net_params(const net_ops *ops, const char *const *sets)
{
    void *p = net_params_new(ops);
    for (size_t i = 0; sets && sets[i]; i++)
        th_set(ops->params, ops->nparams, p, sets[i]);
    return p;
}

void *th_wl_params(const wl_ops *ops, const char *const *sets)
{
    void *p = wl_params_new(ops);
    for (size_t i = 0; sets && sets[i]; i++)
        th_set(ops->params, ops->nparams, p, sets[i]);
    return p;
}

void *th_wl_example_params(const wl_ops *ops, const net_params *core)
{
    void *p = wl_params_new(ops);
    for (size_t i = 0; i < ops->nparams; i++)
        if ((ops->params[i].flags & PARAM_REQUIRED) && !param_is_set(p, &ops->params[i]) && !ops->params[i].alt) {
            char set[256];
            snprintf(set, sizeof set, "%s=%s", ops->params[i].path, ops->params[i].example);
            th_set(ops->params, ops->nparams, p, set);
        }
    /* a required row of an exclusive pair: its own example (not the alternative's) */
    for (size_t i = 0; i < ops->nparams; i++)
        if ((ops->params[i].flags & PARAM_REQUIRED) && ops->params[i].alt && !param_is_set(p, &ops->params[i])) {
            int alt_set = 0;
            for (size_t k = 0; k < ops->nparams; k++)
                if (strcmp(ops->params[k].path, ops->params[i].alt) == 0)
                    alt_set = param_is_set(p, &ops->params[k]);
            if (!alt_set) {
                char set[256];
                snprintf(set, sizeof set, "%s=%s", ops->params[i].path, ops->params[i].example);
                th_set(ops->params, ops->nparams, p, set);
            }
        }
    for (int round = 0; round < 8 && ops->check; round++) {
        char err[512];
        param_first first;
        ops->check(core, p, param_report_first(&first, err, sizeof err));
        if (!first.rep.n)
            break;
        ck_assert_msg(strncmp(err, "missing ", 8) == 0, "%s with its examples: %s", ops->name, err);
        char path[128];
        sscanf(err + 8, "%127s", path);
        int done = 0;
        for (size_t i = 0; i < ops->nparams && !done; i++)
            if (strcmp(ops->params[i].path, path) == 0 && ops->params[i].example) {
                char set[256];
                snprintf(set, sizeof set, "%s=%s", path, ops->params[i].example);
                th_set(ops->params, ops->nparams, p, set);
                done = 1;
            }
        ck_assert_msg(done, "%s says %s is missing and has no example for it", ops->name, path);
    }
    return p;
}

/* ---- a delivery log ---- */

void th_log_add(th_log *l, const net_msg *m, int64_t now_ps)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->d = realloc(l->d, l->cap * sizeof *l->d);
        ck_assert_ptr_nonnull(l->d);
    }
    l->d[l->n++] = (th_dlv){m->src, m->dst, m->a, m->id, now_ps, m->t_submit_ps};
    if (m->id >= l->nseen) {
        size_t nc = 2 * (size_t)m->id + 16;
        l->seen = realloc(l->seen, nc * sizeof *l->seen);
        ck_assert_ptr_nonnull(l->seen);
        memset(l->seen + l->nseen, 0, (nc - l->nseen) * sizeof *l->seen);
        l->nseen = nc;
    }
    l->seen[m->id]++;
}

void th_log_free(th_log *l)
{
    free(l->d);
    free(l->seen);
    memset(l, 0, sizeof *l);
}

int64_t th_log_at(const th_log *l, uint32_t src, uint32_t dst, uint32_t a)
{
    int64_t t = -1;
    int n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->d[i].src == src && l->d[i].dst == dst && l->d[i].a == a) {
            t = l->d[i].t_ps;
            n++;
        }
    ck_assert_msg(n == 1, "%d deliveries %u -> %u (a = %u)", n, src, dst, a);
    return t;
}

void th_log_once(const th_log *l, uint64_t count)
{
    ck_assert_uint_eq(l->n, count);
    for (uint64_t i = 0; i < count; i++)
        ck_assert_msg(i < l->nseen && l->seen[i] == 1, "message %llu delivered %u times", (unsigned long long)i,
                      i < l->nseen ? l->seen[i] : 0);
}

uint64_t th_log_digest(const th_log *l)
{
    uint64_t x = 1469598103934665603ULL; /* FNV-1a over the fields */
    for (size_t i = 0; i < l->n; i++) {
        const th_dlv *d = &l->d[i];
        uint64_t v[4] = {d->src, d->dst, d->a, (uint64_t)d->t_ps};
        for (int k = 0; k < 4; k++) {
            x ^= v[k];
            x *= 1099511628211ULL;
        }
    }
    return x;
}

/* ---- a fabric alone ---- */

static void on_deliver(void *owner, net_msg *m)
{
    th_net *h = owner;
    if (h->to) {
        th_log_add(&h->log, m, sim_now(h->s));
        h->to(h->to_owner, m);
        return;
    }
    ck_assert_uint_lt(h->nrec, h->cap);
    h->id[h->nrec] = m->id;
    h->t_ps[h->nrec] = sim_now(h->s);
    h->nrec++;
    h->bytes += m->size_bytes;
    m->a++;
    m->b = (uint64_t)sim_now(h->s);
    if (h->release)
        net_msg_release(&h->pool, m);
}

unsigned th_lanes_taken;

static void no_event(sim *s, void *ctx, uint64_t arg)
{
    (void)s, (void)ctx, (void)arg;
    ck_abort_msg("an event in a lane taken by th_lanes_taken");
}

th_net *th_net_try(const char *name, const net_params *core, const char *const *sets, const phy_params *phy,
                   uint64_t seed, size_t cap, char *err, size_t errlen)
{
    const net_ops *ops = th_net_ops(name);
    th_net *h = calloc(1, sizeof *h);
    h->s = sim_create();
    for (unsigned k = 0; k < th_lanes_taken; k++)
        ck_assert_int_eq(sim_lane(h->s, (int64_t)k, no_event, NULL), (int)k);
    th_lanes_taken = 0;
    h->rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(h->rng, seed);
    void *params = th_net_params(ops, sets);
    h->n = net_create(ops, core, params, phy, h->s, h->rng, on_deliver, h, err, errlen);
    net_params_free(ops, params);
    if (!h->n) {
        gsl_rng_free(h->rng);
        sim_destroy(h->s);
        free(h);
        return NULL;
    }
    net_msg_pool_init(&h->pool);
    h->cap = cap;
    h->id = calloc(cap ? cap : 1, sizeof *h->id);
    h->t_ps = calloc(cap ? cap : 1, sizeof *h->t_ps);
    return h;
}

th_net *th_net_new(const char *name, const net_params *core, const char *const *sets, const phy_params *phy,
                   uint64_t seed, size_t cap)
{
    char err[1024] = "";
    th_net *h = th_net_try(name, core, sets, phy, seed, cap, err, sizeof err);
    ck_assert_msg(h != NULL, "net_create(%s): %s", name, err);
    return h;
}

th_net *th_net_to(const char *name, const net_params *core, const char *const *sets, const phy_params *phy,
                  uint64_t seed, net_deliver_fn deliver, void *owner)
{
    th_net *h = th_net_new(name, core, sets, phy, seed, 0);
    h->to = deliver;
    h->to_owner = owner;
    return h;
}

void th_net_free(th_net *h)
{
    if (!h)
        return;
    th_log_free(&h->log);
    net_destroy(h->n);
    sim_destroy(h->s);
    gsl_rng_free(h->rng);
    net_msg_pool_free(&h->pool);
    free(h->id);
    free(h->t_ps);
    free(h);
}

static void ev_send(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    th_net *h = ctx;
    net_send(h->n, (net_msg *)(uintptr_t)arg);
}

net_msg *th_at(th_net *h, int64_t t_ps, uint32_t src, uint32_t dst, uint64_t bytes, uint8_t prio, uint8_t cls)
{
    net_msg *m = net_msg_alloc(&h->pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = bytes;
    m->prio = prio;
    m->cls = cls;
    sim_schedule_at(h->s, t_ps, ev_send, h, (uint64_t)(uintptr_t)m);
    return m;
}

uint64_t th_net_go(th_net *h) { return sim_run(h->s, SIM_TIME_MAX); }

/* ---- a workload over a fabric ---- */

static void run_deliver(void *owner, net_msg *m)
{
    th_run *h = owner;
    if (h->log)
        th_log_add(h->log, m, sim_now(h->s));
    if (h->tap)
        h->tap(h->tap_ctx, m);
    h->w->deliver(h->ws, m);
}

static int open_common(th_run *h, const char *fabric, const net_params *core, const char *const *net_sets,
                       const char *workload, void *wp, uint64_t seed, uint64_t replica,
                       int (*init)(void *, const wl_env *, const void *, char *, size_t), const void *arg)
{
    h->w = th_wl_ops(workload);
    h->wp = wp;
    h->s = sim_create();
    h->net_rng = rng_stream_new(seed, replica, "network");
    h->ws = calloc(1, h->w->state_size ? h->w->state_size : 1);
    net_params np = *core;
    if (h->w->resolve) {
        wl_resolve wr = {.nodes = np.nodes, .net = &np, .seed = seed, .cache = h->cache};
        if (h->w->resolve(h->wp, &wr, h->err, sizeof h->err) != 0)
            return -1;
    }
    const net_ops *ops = th_net_ops(fabric);
    void *params = th_net_params(ops, net_sets);
    h->n = net_create(ops, &np, params, h->phy, h->s, h->net_rng, run_deliver, h, h->err, sizeof h->err);
    net_params_free(ops, params);
    if (!h->n)
        return -1;
    wl_env env = {
        .sim = h->s,
        .net = h->n,
        .nodes = np.nodes,
        .bandwidth_bps = np.bandwidth_bps,
        .seed = seed,
        .replica = replica,
        .params = h->wp,
        .trace = h->trace,
        .cache = h->cache,
    };
    int rc = init ? init(h->ws, &env, arg, h->err, sizeof h->err) : h->w->init(h->ws, &env, h->err, sizeof h->err);
    h->up = rc == 0;
    return rc;
}

int th_run_open(th_run *h, const char *fabric, const net_params *core, const char *const *net_sets,
                const char *workload, void *wp, uint64_t seed, uint64_t replica)
{
    return open_common(h, fabric, core, net_sets, workload, wp, seed, replica, NULL, NULL);
}

int th_run_open_with(th_run *h, const char *fabric, const net_params *core, const char *const *net_sets,
                     const char *workload, void *wp, uint64_t seed, uint64_t replica,
                     int (*init)(void *state, const wl_env *env, const void *arg, char *err, size_t errlen),
                     const void *arg)
{
    return open_common(h, fabric, core, net_sets, workload, wp, seed, replica, init, arg);
}

uint64_t th_run_go(th_run *h) { return sim_run(h->s, SIM_TIME_MAX); }

int th_run_all(th_run *h, const char *fabric, const net_params *core, const char *const *net_sets,
               const char *workload, const char *const *wl_sets, uint64_t seed, uint64_t replica, th_log *log)
{
    h->log = log;
    void *wp = th_wl_params(th_wl_ops(workload), wl_sets);
    if (th_run_open(h, fabric, core, net_sets, workload, wp, seed, replica) != 0)
        return -1;
    th_run_go(h);
    return th_run_finish(h);
}

int th_run_finish(th_run *h)
{
    free(h->m);
    h->m = calloc(h->w->nmetrics + 1, sizeof *h->m);
    metric_unset(h->m, h->w->nmetrics);
    wl_span sp = {-1, -1};
    int rc = h->w->finish(h->ws, NULL, h->m, &sp, h->err, sizeof h->err);
    h->span_s = sp.first_ps >= 0 && sp.last_ps >= sp.first_ps ? units_ps_to_s(sp.last_ps - sp.first_ps) : 0.0;
    return rc;
}

double th_metric(const th_run *h, const char *name)
{
    for (size_t i = 0; h->m && i < h->w->nmetrics; i++)
        if (strcmp(h->w->metrics[i].name, name) == 0)
            return h->m[i];
    return NAN;
}

void th_run_close(th_run *h)
{
    if (h->up && h->w->fini)
        h->w->fini(h->ws);
    free(h->ws);
    if (h->n)
        net_destroy(h->n);
    if (h->w && h->wp)
        wl_params_free(h->w, h->wp);
    gsl_rng_free(h->net_rng);
    if (h->s)
        sim_destroy(h->s);
    free(h->m);
    memset(h, 0, sizeof *h);
}

/* 1 and *v when core or fabric metric `name` exists (its value may be NAN:
 * not measured), else 0. */
static int net_metric_find(net *n, const char *name, double *v)
{
    double core[METRIC_CORE_COUNT], *own = calloc(n->ops->nmetrics + 1, sizeof *own);
    ck_assert_ptr_nonnull(own);
    net_metrics(n, core, own);
    int found = 0;
    *v = NAN;
    for (size_t i = 0; i < METRIC_CORE_COUNT; i++)
        if (strcmp(metric_core[i].name, name) == 0) {
            *v = core[i];
            found = 1;
        }
    for (size_t i = 0; i < n->ops->nmetrics; i++)
        if (strcmp(n->ops->metrics[i].name, name) == 0) {
            *v = own[i];
            found = 1;
        }
    free(own);
    return found;
}

double th_net_metric(net *n, const char *name)
{
    double v;
    net_metric_find(n, name, &v);
    return v;
}

double th_net_metric_of(th_net *h, const char *name)
{
    double v;
    ck_assert_msg(net_metric_find(h->n, name, &v), "fabric %s has no metric %s", h->n->ops->name, name);
    return v;
}
