/* One run: resolve a point (workload, fabric, physical layer), lay its
 * metrics out, wire a fabric and a workload over an engine, measure. */
#include "run.h"
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "network.h"
#include "placement.h"
#include "rng.h"
#include "sim.h"
#include "stats.h"
#include "workload.h"

/* ---------------------------------------------------------------- layout */

/* Add a plugin's metrics (shared names share a column) and its map; a
 * metric whose `when` (metric_def.when) no point of base's sweep meets gets
 * no column (map NO_COLUMN: scatter drops it). */
#define NO_COLUMN ((size_t)-1)
static size_t *add_metrics_when(run_layout *l, size_t *cap, const metric_def *m, size_t nm, const cfg *base,
                                const char *plugin)
{
    size_t *map = tn_xcalloc(nm ? nm : 1, sizeof *map);
    for (size_t k = 0; k < nm; k++) {
        if (m[k].when && base && !cfg_net_when_somewhere(base, plugin, m[k].when)) {
            map[k] = NO_COLUMN;
            continue;
        }
        long c = metric_find(l->col, l->n, m[k].name);
        if (c < 0) {
            if (l->n == *cap) {
                *cap = *cap ? 2 * *cap : 64;
                l->col = tn_xrealloc(l->col, *cap * sizeof *l->col);
            }
            l->col[l->n] = m[k];
            c = (long)l->n++;
        }
        map[k] = (size_t)c;
    }
    return map;
}

static size_t *add_metrics(run_layout *l, size_t *cap, const metric_def *m, size_t nm)
{
    return add_metrics_when(l, cap, m, nm, NULL, NULL);
}

/* "<name>.<metric>" (caller frees). */
static char *cfg_format_metric(const char *name, const char *metric)
{
    char *s = tn_xmalloc(strlen(name) + strlen(metric) + 2);
    sprintf(s, "%s.%s", name, metric);
    return s;
}

/* A name the layout owns. */
static const char *own_name(run_layout *l, char *name)
{
    l->names = tn_xrealloc(l->names, (l->nnames + 1) * sizeof *l->names);
    l->names[l->nnames++] = name;
    return name;
}

/* A workload's metric columns carry its name exactly when its parameters
 * do (workload.<name>.<attr>): a named workload's columns are
 * "<name>.<metric>" whether it is alone or shares the fabric (several
 * workloads are all named); a workload alone and unnamed has the bare
 * names (issue 23: the same columns for one workload and several). */
static int wl_prefixed(const cfg *base, size_t k) { return base->nwl > 1 || base->wl[k].name[0]; }

/* Workload k's metrics as columns: its own names, "<name>.<metric>" when
 * it is named. */
static size_t *add_wl_metrics(run_layout *l, size_t *cap, const cfg *base, size_t k, const wl_ops *w)
{
    if (!wl_prefixed(base, k))
        return add_metrics(l, cap, w->metrics, w->nmetrics);
    metric_def *m = tn_xcalloc(w->nmetrics + 1, sizeof *m);
    for (size_t i = 0; i < w->nmetrics; i++) {
        char *nm = tn_xmalloc(strlen(base->wl[k].name) + strlen(w->metrics[i].name) + 2);
        sprintf(nm, "%s.%s", base->wl[k].name, w->metrics[i].name);
        m[i].name = own_name(l, nm);
        m[i].desc = w->metrics[i].desc;
    }
    size_t *map = add_metrics(l, cap, m, w->nmetrics);
    free(m);
    return map;
}

/* The terminal table: each workload's columns (prefixed when named). */
static void layout_table(run_layout *l, const cfg *base)
{
    size_t n = 0, cap = 8;
    l->table = tn_xcalloc(cap, sizeof *l->table);
    for (size_t k = 0; k < base->nwl; k++) {
        const wl_ops *w = cfg_wl_at(base, k);
        for (size_t t = 0; w && w->table && w->table[t].metric; t++) {
            const char *metric = w->table[t].metric, *header = w->table[t].header;
            int core = 0;
            for (size_t i = 0; i < METRIC_CORE_COUNT; i++)
                core |= strcmp(metric_core[i].name, metric) == 0;
            if (wl_prefixed(base, k) && !core) {
                char *mn = tn_xmalloc(strlen(base->wl[k].name) + strlen(metric) + 2);
                char *hn = tn_xmalloc(strlen(base->wl[k].name) + strlen(header) + 2);
                sprintf(mn, "%s.%s", base->wl[k].name, metric);
                sprintf(hn, "%s.%s", base->wl[k].name, header);
                metric = own_name(l, mn);
                header = own_name(l, hn);
            }
            int dup = 0;
            for (size_t j = 0; j < n; j++)
                dup |= strcmp(l->table[j].metric, metric) == 0;
            if (dup)
                continue;
            if (n + 2 > cap) {
                cap *= 2;
                l->table = tn_xrealloc(l->table, cap * sizeof *l->table);
            }
            l->table[n].metric = metric;
            l->table[n].header = header;
            n++;
        }
    }
    l->table[n].metric = NULL;
    l->table[n].header = NULL;
}

void run_layout_init(run_layout *l, const cfg *base)
{
    memset(l, 0, sizeof *l);
    size_t cap = 0, nn = net_count(), nw = wl_count();
    l->nwl = base->nwl;
    l->net_map = tn_xcalloc(nn ? nn : 1, sizeof *l->net_map);
    l->wl_map = tn_xcalloc(base->nwl * (nw ? nw : 1), sizeof *l->wl_map);
    const wl_ops *used[64];
    size_t nused = cfg_used_wls(base, used, 64);
    for (size_t k = 0; k < base->nwl; k++)
        for (size_t i = 0; i < nused && i < 64; i++) {
            /* with several workloads, each its own type's columns only */
            if (base->nwl > 1 && strcmp(base->wl[k].type, used[i]->name) != 0)
                continue;
            l->wl_map[k * nw + wl_index(used[i])] = add_wl_metrics(l, &cap, base, k, used[i]);
        }
    size_t *core = add_metrics(l, &cap, metric_core, METRIC_CORE_COUNT);
    l->core0 = core[0];
    for (size_t k = 0; k < METRIC_CORE_COUNT; k++)
        TN_ASSERT(core[k] == l->core0 + k, "core metric %s shares a column with a workload's", metric_core[k].name);
    free(core);
    const net_ops *nets[64];
    size_t nnet = cfg_used_nets(base, nets, 64);
    for (size_t i = 0; i < nnet && i < 64; i++)
        l->net_map[net_index(nets[i])] =
            add_metrics_when(l, &cap, nets[i]->metrics, nets[i]->nmetrics, base, nets[i]->name);
    layout_table(l, base);
    const wl_ops *w = cfg_wl(base);
    if (w && w->plot_y)
        l->plot_y = wl_prefixed(base, 0) ? own_name(l, cfg_format_metric(base->wl[0].name, w->plot_y)) : w->plot_y;
}

void run_layout_free(run_layout *l)
{
    if (l->net_map)
        for (size_t i = 0; i < net_count(); i++)
            free(l->net_map[i]);
    if (l->wl_map)
        for (size_t i = 0; i < l->nwl * wl_count(); i++)
            free(l->wl_map[i]);
    for (size_t i = 0; i < l->nnames; i++)
        free(l->names[i]);
    free(l->names);
    free(l->net_map);
    free(l->wl_map);
    free(l->col);
    free(l->table);
    memset(l, 0, sizeof *l);
}

long run_layout_find(const run_layout *l, const char *name) { return metric_find(l->col, l->n, name); }

/* -------------------------------------------------------------- resolve */

void run_cache_free(run_cache *rc)
{
    if (!rc->wl)
        return;
    for (size_t i = 0; wl_registry[i]; i++)
        if (rc->wl[i] && wl_registry[i]->free_cache)
            wl_registry[i]->free_cache(rc->wl[i]);
    free(rc->wl);
    rc->wl = NULL;
}

int run_resolve(cfg *c, run_cache *rc, run_info *info, char *err, size_t errlen)
{
    run_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    const net_ops *nops = cfg_net(c);
    if (!nops)
        return tn_error(err, errlen, "unknown network type '%s'", c->net_type);
    c->net.nodes = c->nodes;
    if (rc && !rc->wl)
        rc->wl = tn_xcalloc(wl_count() ? wl_count() : 1, sizeof *rc->wl);
    for (size_t k = 0; k < c->nwl; k++) {
        const wl_ops *wops = cfg_wl_at(c, k);
        if (!wops)
            return tn_error(err, errlen, "unknown workload type '%s'", c->wl[k].type);
        /* its ranks: a count only (random(n) draws per run) */
        uint32_t nranks = c->nodes;
        char e2[512];
        if (run_wl_nodes(c, k, NULL, NULL, NULL, &nranks, e2, sizeof e2) != 0)
            return tn_error(err, errlen, "%s", e2);
        wl_resolve wr = {
            .nodes = nranks,
            .net = &c->net,
            .seed = c->seed,
            .cache = rc ? &rc->wl[wl_index(wops)] : NULL,
            .msg_fixed_ps = net_fixed_latency_ps(nops, &c->net, cfg_net_params(c)),
        };
        if (wops->resolve && wops->resolve(cfg_wl_params_at(c, k), &wr, err, errlen) != 0)
            return -1;
    }
    if (!(c->net.bandwidth_bps > 0) || !(c->net.bandwidth_bps <= NET_MAX_BPS))
        return tn_error(err, errlen, "network bandwidth %g b/s is outside (0, %g b/s]", c->net.bandwidth_bps,
                        NET_MAX_BPS);
    /* the fabric's own checks before the phy (a wrong N is not a power
     * budget problem); its resolve_phy checks what depends on the BER */
    if (nops->check) {
        param_first first;
        nops->check(&c->net, cfg_net_params(c), param_report_first(&first, err, errlen));
        if (first.rep.n)
            return -1;
    }
    if (nops->resolve_phy) {
        if (nops->resolve_phy(&c->net, cfg_net_params(c), &c->phy, &info->phy, err, errlen) != 0)
            return -1;
        info->has_phy = 1;
    }
    return 0;
}

void run_analyze(const cfg *c, wl_analysis *out)
{
    memset(out, 0, sizeof *out);
    const wl_ops *w = cfg_wl(c);
    if (!w || !w->analyze)
        return;
    net_params core = c->net;
    core.nodes = c->nodes;
    const net_ops *nops = cfg_net(c);
    /* the fixed latency as run_resolve hands it (a DAG's critical path adds it per edge) */
    wl_resolve wr = {.nodes = c->nodes, .net = &core, .seed = c->seed,
                     .msg_fixed_ps = nops ? net_fixed_latency_ps(nops, &core, cfg_net_params(c)) : 0};
    w->analyze(cfg_wl_params(c), &wr, out);
}

/* ------------------------------------------------------------------ run */

/* The workloads of a run: each its state and, with several, its handle on
 * the fabric; deliveries reach each through this trampoline, so neither
 * fabric nor workload needs to know the other's type. */
struct run_wl {
    const wl_ops *w;
    void *ws;
    int up;             /* init succeeded */
    int background;     /* role background: stopped when the foreground has finished */
    struct run_state *rs;
};

struct run_state {
    struct run_wl wl[CFG_MAX_WORKLOADS];
    size_t nwl;
    int bg_pending;     /* background workloads not yet stopped */
};

/* Once every foreground workload has finished, stop the background ones. */
int run_wl_nodes(const cfg *c, size_t k, unsigned char *taken, gsl_rng *rng, uint32_t *map, uint32_t *n,
                 char *err, size_t errlen)
{
    return wl_nodes_place(c->wl[k].nodes, c->nodes, cfg_wl_exclusive(c, k), taken, rng, map, n, err, errlen);
}

static void check_foreground(struct run_state *rs)
{
    for (size_t k = 0; k < rs->nwl; k++)
        if (!rs->wl[k].background && !(rs->wl[k].w->finished && rs->wl[k].w->finished(rs->wl[k].ws)))
            return;
    for (size_t k = 0; k < rs->nwl; k++)
        if (rs->wl[k].background)
            rs->wl[k].w->stop(rs->wl[k].ws);
    rs->bg_pending = 0;
}

static void run_deliver(void *owner, net_msg *m)
{
    struct run_wl *rw = owner;
    rw->w->deliver(rw->ws, m);
    if (rw->rs->bg_pending && !rw->background)
        check_foreground(rw->rs);
}

static double wall_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The fabric's latency samples as a histogram file, written to a
 * temporary name and renamed so a reader never sees half of it. */
static int write_latency_hist(net *n, const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return tn_error(err, errlen, "%s: path too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return tn_error(err, errlen, "%s: %s", tmp, strerror(errno));
    fputs("class,bin_lo_s,bin_hi_s,count\n", f);
    static const char *const names[] = {"control", "data", "all"};
    /* Every message is of one class, so "all" counts the sum of the two
     * classes' bins (binning every latency again was half of this
     * function, 1.3% of fig9's cycles, perf). */
    _Static_assert(NET_CONTROL == 0 && NET_DATA == 1, "two latency classes, 0 and 1");
    stats_loghist hg[2];
    for (int k = 0; k < 2; k++) {
        const stats_sample *x = &n->c.latency_s[k];
        stats_loghist_init(&hg[k], RUN_HIST_LO_S, RUN_HIST_HI_S, RUN_HIST_PER_DECADE);
        for (size_t i = 0; i < x->n; i++)
            stats_loghist_add(&hg[k], x->x[i]);
    }
    TN_ASSERT(net_latency_all(&n->c).n == n->c.latency_s[0].n + n->c.latency_s[1].n,
              "%llu latencies, %zu control and %zu data", (unsigned long long)net_latency_all(&n->c).n,
              n->c.latency_s[0].n, n->c.latency_s[1].n);
    for (int k = 0; k < 3; k++) {
        for (size_t b = 0; b < stats_loghist_bins(&hg[0]); b++) {
            double lo, hi;
            uint64_t cnt = k < 2 ? stats_loghist_bin(&hg[k], b, &lo, &hi)
                                 : stats_loghist_bin(&hg[0], b, &lo, &hi) + stats_loghist_bin(&hg[1], b, &lo, &hi);
            if (cnt)
                fprintf(f, "%s,%.17g,%.17g,%llu\n", names[k], lo, hi, (unsigned long long)cnt);
        }
    }
    stats_loghist_free(&hg[0]);
    stats_loghist_free(&hg[1]);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return tn_error(err, errlen, "%s: %s", path, strerror(e));
    }
    return 0;
}

/* The run in progress in this process, for run_abort from a signal handler. */
static sim *volatile run_live;
static volatile sig_atomic_t run_abort_requested;

void run_abort(void)
{
    run_abort_requested = 1;
    sim *s = run_live;
    if (s)
        sim_stop(s);
}

void run_abort_clear(void) { run_abort_requested = 0; }

/* --progress inside a run: an interval timer's SIGALRM stops the engine
 * between two events (sim_stop is async-signal-safe), run_one reports and
 * runs on. The run is the same: sim_run resumes where it stopped. Off, no
 * timer runs and the engine loop is untouched. */
static volatile sig_atomic_t run_progress_due;

static void on_progress_alarm(int sig)
{
    (void)sig;
    run_progress_due = 1;
    sim *s = run_live;
    if (s)
        sim_stop(s);
}

/* Events beyond this time are not run: 2^62 ps (53 days) leaves a margin
 * of the same again under the clock's 2^63 ps for every time a model adds
 * to now (each bounded far below it), so the clock never wraps; a run that
 * gets there fails with a message instead (resolve refuses what is
 * expected to, this catches what was not). */
#define RUN_TIME_LIMIT_PS (INT64_C(1) << 62)

static void scatter(double *m, const size_t *map, const double *own, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (map[k] != NO_COLUMN)
            m[map[k]] = own[k];
}

int run_one(const cfg *c, const run_layout *l, uint64_t replica, run_cache *rcache, double *m, const run_outputs *o,
            char *err, size_t errlen)
{
    struct trace *tr = o ? o->trace : NULL;
    metric_unset(m, l->n);
    const net_ops *nops = cfg_net(c);
    if (!nops)
        return tn_error(err, errlen, "unknown network type '%s'", c->net_type);
    for (size_t k = 0; k < c->nwl; k++)
        if (!cfg_wl_at(c, k))
            return tn_error(err, errlen, "unknown workload type '%s'", c->wl[k].type);
    const size_t *net_map = l->net_map[net_index(nops)];
    TN_ASSERT(net_map && l->nwl == c->nwl, "the layout has no columns for %s", nops->name);
    double *core = m + l->core0;

    if (rcache && !rcache->wl)
        rcache->wl = tn_xcalloc(wl_count() ? wl_count() : 1, sizeof *rcache->wl);

    double t0 = wall_now_s();
    int rc = -1;
    sim *s = sim_create();
    gsl_rng *net_rng = rng_stream_new(c->seed, replica, "network");
    struct run_state rs = {.nwl = c->nwl};
    size_t maxm = nops->nmetrics;
    for (size_t k = 0; k < c->nwl; k++) {
        rs.wl[k].w = cfg_wl_at(c, k);
        rs.wl[k].ws = tn_xcalloc(1, rs.wl[k].w->state_size ? rs.wl[k].w->state_size : 1);
        rs.wl[k].background = c->wl[k].role == 1;
        rs.wl[k].rs = &rs;
        rs.bg_pending |= rs.wl[k].background;
        if (rs.wl[k].w->nmetrics > maxm)
            maxm = rs.wl[k].w->nmetrics;
    }
    double *own = tn_xcalloc(1 + maxm, sizeof *own);
    uint32_t *map = tn_xmalloc((c->nodes ? c->nodes : 1) * sizeof *map);
    unsigned char *taken = tn_xcalloc(c->nodes ? c->nodes : 1, 1);
    net_params np = c->net;
    np.nodes = c->nodes;
    /* a workload alone on all the nodes, with its own classes, sends
     * through the fabric's handle itself (no mapping at all) */
    int alone = c->nwl == 1 && strcmp(c->wl[0].nodes, "all") == 0 && cfg_wl_priority(c, 0) < 0;
    /* a foreground workload alone on the fabric's handle takes its
     * deliveries itself (run_deliver's check of the foreground has nothing
     * to do: no background); else through run_deliver */
    int direct = alone && !rs.wl[0].background;
    net *n = direct ? net_create(nops, &np, cfg_net_params(c), NULL, s, net_rng, rs.wl[0].w->deliver, rs.wl[0].ws,
                                 err, errlen)
                    : net_create(nops, &np, cfg_net_params(c), NULL, s, net_rng, run_deliver, &rs.wl[0], err, errlen);
    if (!n)
        goto out;
    /* the run's transport; a workload alone on the fabric's handle that
     * names its own (workload.transport) makes it the fabric's */
    tp_params run_tp = c->tp;
    if (alone && c->wl[0].transport > 0)
        run_tp.type = c->wl[0].transport - 1;
    if (alone && c->wl[0].ack_class > 0)
        run_tp.ack_class = c->wl[0].ack_class - 1;
    if (alone && c->wl[0].connection > 0)
        run_tp.persistent = c->wl[0].connection - 1;
    net_set_transport(n, tp_create(n, &run_tp));
    for (size_t k = 0; k < c->nwl; k++) {
        int type = c->wl[k].transport > 0 ? c->wl[k].transport - 1 : c->tp.type;
        if (n->lossy && type == 0) {
            char who[PARAM_NAME_MAX + 16];
            snprintf(who, sizeof who, c->wl[k].name[0] ? "workload %s" : "the workload", c->wl[k].name);
            const char *attr;
            char why[768];
            net_lossy_refusal(n->lossy, nops->name, who, &attr, why, sizeof why);
            tn_error(err, errlen, "%s: %s", attr, why);
            goto out;
        }
    }

    for (size_t k = 0; k < c->nwl; k++) {
        net *h = n;
        uint32_t nranks = c->nodes;
        if (!alone) {
            char stream[PARAM_NAME_MAX + 8];
            snprintf(stream, sizeof stream, "map.%s", c->wl[k].name);
            gsl_rng *g = rng_stream_new(c->seed, replica, stream);
            int bad = run_wl_nodes(c, k, taken, g, map, &nranks, err, errlen);
            gsl_rng_free(g);
            if (bad)
                goto out;
            h = net_attach(n, nranks, map, cfg_wl_priority(c, k), run_deliver, &rs.wl[k], err, errlen);
            if (!h)
                goto out;
            /* a transport instance of its own when it names another type
             * or another ACK class than the run's (workload.ack-class) */
            int wtype = c->wl[k].transport > 0 ? c->wl[k].transport - 1 : c->tp.type;
            int wack = c->wl[k].ack_class > 0 ? c->wl[k].ack_class - 1 : c->tp.ack_class;
            int wpers = c->wl[k].connection > 0 ? c->wl[k].connection - 1 : c->tp.persistent;
            if (wtype != c->tp.type || (wtype != 0 && (wack != c->tp.ack_class || wpers != c->tp.persistent))) {
                tp_params wtp = c->tp;
                wtp.type = wtype;
                wtp.ack_class = wack;
                wtp.persistent = wpers;
                net_set_client_transport(h, tp_create(n, &wtp));
            }
        }
        wl_env env = {
            .sim = s,
            .net = h,
            .nodes = nranks,
            .bandwidth_bps = np.bandwidth_bps,
            .seed = c->seed,
            .replica = replica,
            .params = cfg_wl_params_at(c, k),
            /* each workload on its own processes of the trace (the first on 0-2) */
            .trace = trace_workload(tr, (unsigned)k, c->nwl > 1 ? c->wl[k].name : "", nranks),
            /* a named workload's streams are "<name>.<purpose>" alone or
             * beside others: it draws the same traffic either way */
            .name = c->wl[k].name,
            .measure_window = c->wl[k].measure == 1,
            .cache = rcache ? &rcache->wl[wl_index(rs.wl[k].w)] : NULL,
        };
        if (rs.wl[k].w->init(rs.wl[k].ws, &env, err, errlen) != 0)
            goto out;
        rs.wl[k].up = 1;
    }
    /* a foreground workload may have nothing to send at all (a duration
     * shorter than its first gap): finished before any delivery, it must
     * stop the background now, or the background runs its whole course */
    if (rs.bg_pending)
        check_foreground(&rs);

    int timed = o && o->progress && o->progress_every_s > 0;
    struct sigaction alarm_old;
    double horizon_s = 0;
    if (timed) {
        run_estimate e;
        run_estimate_point(c, &e);
        horizon_s = e.horizon_s;
        struct sigaction sa = {.sa_handler = on_progress_alarm};
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, &alarm_old);
        double every = o->progress_every_s;
        struct itimerval it = {.it_interval = {(time_t)every, (suseconds_t)(fmod(every, 1.0) * 1e6)}};
        it.it_value = it.it_interval;
        run_progress_due = 0;
        setitimer(ITIMER_REAL, &it, NULL);
    }
    double events = 0;
    run_live = s;
    while (!run_abort_requested) {
        events += (double)sim_run(s, RUN_TIME_LIMIT_PS);
        if (!run_progress_due || n->fault)
            break;
        run_progress_due = 0;
        if (run_abort_requested)
            break;
        /* the least advanced workload's fraction (the run ends with the last) */
        double f = NAN;
        for (size_t k = 0; k < c->nwl; k++) {
            double fk = rs.wl[k].w->progress ? rs.wl[k].w->progress(rs.wl[k].ws) : NAN;
            if (!isnan(fk) && (isnan(f) || fk < f))
                f = fk;
        }
        if (isnan(f) && horizon_s > 0)
            f = units_ps_to_s(sim_now(s)) / horizon_s;
        run_progress rp = {.sim_s = units_ps_to_s(sim_now(s)),
                           .events = events,
                           .wall_s = wall_now_s() - t0,
                           .fraction = isnan(f) ? f : f < 0 ? 0 : f > 1 ? 1 : f};
        o->progress(o->progress_ctx, &rp);
    }
    run_live = NULL;
    if (timed) {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
        sigaction(SIGALRM, &alarm_old, NULL);
        run_progress_due = 0;
    }
    core[M_events] = events;
    if (run_abort_requested) {
        tn_error(err, errlen, "interrupted");
        goto out;
    }
    if (n->fault) { /* the fabric cannot go on (net_fault: a deadlock) */
        tn_error(err, errlen, "%s", n->fault);
        goto out;
    }
    if (sim_pending(s) > 0) {
        tn_error(err, errlen, "the run reached %.3g s of simulated time (2^62 ps) with events still to come, "
                 "the longest tasknet simulates; fewer jobs or messages, or shorter times, would end sooner",
                 units_ps_to_s(sim_now(s)));
        goto out;
    }
    /* the fabric's and the core's first: the workloads' may use them */
    net_metrics(n, core, own);
    scatter(m, net_map, own, nops->nmetrics);
    core[M_bandwidth_bps] = np.bandwidth_bps;
    wl_run_view view = {.col = l->col, .m = m, .n = l->n, .fg_first_ps = -1, .fg_end_ps = -1};
    /* The run's span: from the earliest first activity of any workload to
     * the latest last one (one workload: its own span). Several workloads
     * start at different times, so the longest single span would be too
     * short and network_utilization could pass 1. The foreground workloads
     * finish first (in order), then the background ones (in order), which
     * see the foreground's window: its span. */
    int64_t first_ps = INT64_MAX, last_ps = -1, fg_first = INT64_MAX, fg_last = -1;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < c->nwl; k++) {
            if (rs.wl[k].background != pass)
                continue;
            if (pass == 1 && fg_last >= 0) {
                view.fg_first_ps = fg_first;
                view.fg_end_ps = fg_last;
            }
            const wl_ops *w = rs.wl[k].w;
            const size_t *wl_map = l->wl_map[k * wl_count() + wl_index(w)];
            TN_ASSERT(wl_map, "the layout has no columns for workload %zu (%s)", k, w->name);
            wl_span sp = {-1, -1};
            metric_unset(own, w->nmetrics);
            if (w->finish(rs.wl[k].ws, &view, own, &sp, err, errlen) != 0)
                goto out;
            scatter(m, wl_map, own, w->nmetrics);
            if (sp.first_ps >= 0 && sp.last_ps >= sp.first_ps) {
                if (sp.first_ps < first_ps)
                    first_ps = sp.first_ps;
                if (sp.last_ps > last_ps)
                    last_ps = sp.last_ps;
                if (pass == 0 && sp.first_ps < fg_first)
                    fg_first = sp.first_ps;
                if (pass == 0 && sp.last_ps > fg_last)
                    fg_last = sp.last_ps;
            }
        }
    double span_s = last_ps >= 0 ? units_ps_to_s(last_ps - first_ps) : 0.0;
    core[M_span_s] = span_s;
    core[M_network_utilization] =
        span_s > 0 ? 8.0 * core[M_bytes_delivered] / (np.bandwidth_bps * (double)c->nodes * span_s) : 0.0;
    if (o && o->latency_csv && write_latency_hist(n, o->latency_csv, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    for (size_t k = 0; k < c->nwl; k++) {
        if (rs.wl[k].up && rs.wl[k].w->fini)
            rs.wl[k].w->fini(rs.wl[k].ws);
        free(rs.wl[k].ws);
    }
    free(own);
    free(map);
    free(taken);
    if (n)
        net_destroy(n);
    gsl_rng_free(net_rng);
    sim_destroy(s);
    core[M_wall_s] = wall_now_s() - t0;
    return rc;
}
