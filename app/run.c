#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "energy.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "optical.h"
#include "rng.h"
#include "sim.h"
#include "stats.h"
#include "workload.h"

/* Stages of the SPINet fabric for N nodes: log2(N) (rounded up; the fabric
 * itself refuses an N that is not a power of two) plus the extra stages. */
static unsigned spinet_stages(const cfg *c)
{
    unsigned s = 0;
    while ((1ull << s) < c->nodes)
        s++;
    return s + c->net.extra_stages;
}

/* The physical layer's verdict on the fabric: bit error rate of a path and
 * energy per bit. Every SPINet path crosses all S stages, so one budget is
 * the worst path's; a path below the receiver sensitivity is refused. */
static int resolve_phy(cfg *c, char *err, size_t errlen)
{
    char e2[512];
    c->net.bit_error_rate = 0;
    c->net.energy_per_bit_j = 0;
    if (phy_energy_check(&c->energy, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "network.phy: %s", e2);
    if (strcmp(c->net_type, "spinet") == 0) {
        c->optical.rate_per_wavelength_bps = c->net.bandwidth_bps / c->optical.wavelengths;
        c->net.wavelengths = c->optical.wavelengths;
        unsigned stages = spinet_stages(c);
        phy_budget b;
        if (phy_path_budget(&c->optical, stages, &b, e2, sizeof e2) != 0)
            return tn_error(err, errlen, "network.phy: %s", e2);
        if (!b.ok) {
            phy_budget_format(&b, &c->optical, e2, sizeof e2);
            return tn_error(err, errlen,
                            "network.phy: the optical path misses the receiver sensitivity at B = %g Gb/s "
                            "over %u wavelengths: %s (fewer stages, more launch power or SOA gain, or "
                            "more wavelengths would close it)",
                            c->net.bandwidth_bps / 1e9, c->optical.wavelengths, e2);
        }
        c->net.bit_error_rate = b.ber;
        phy_energy_parts parts;
        c->net.energy_per_bit_j = phy_energy_optical_j_per_bit(&c->optical, &c->energy, stages, &parts);
        /* a dropped try pays the laser, the transmitting SerDes and the SOAs it crossed */
        c->net.energy_edge_per_bit_j =
            parts.laser_j_per_bit +
            (c->energy.serdes_per_optical_path ? parts.serdes_j_per_bit / c->energy.serdes_per_optical_path : 0);
        c->net.energy_stage_per_bit_j = stages ? parts.soa_j_per_bit / stages : 0;
    } else if (strcmp(c->net_type, "electrical-switch") == 0) {
        double lane = c->energy.electrical_lane_bps;
        if (!(lane > 0) || lane > c->net.bandwidth_bps)
            lane = c->net.bandwidth_bps;
        c->net.energy_per_bit_j = phy_energy_electrical_j_per_bit(&c->energy, lane, NULL);
    }
    return 0;
}

/* The parameters a footprint depends on, as written, one per line. */
static char *footprint_key(const cfg *c)
{
    static const char *const paths[] = {
        "workload.control-size",  "workload.tree.generator",        "workload.tree.z",
        "workload.tree.vertices", "workload.tree.shape",            "workload.task.init-time",
        "workload.task.aggregation-time", "workload.task.send-size", "workload.task.result-size",
        "run.mc-samples",         "run.seed",
    };
    size_t len = 0, cap = 256;
    char *key = tn_xmalloc(cap);
    key[0] = '\0';
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char v[2048];
        cfg_get(c, paths[i], v, sizeof v);
        size_t l = strlen(v);
        if (len + l + 2 > cap) {
            cap = 2 * (len + l + 2);
            key = tn_xrealloc(key, cap);
        }
        memcpy(key + len, v, l);
        len += l;
        key[len++] = '\n';
        key[len] = '\0';
    }
    return key;
}

static void footprint_cached(const cfg *c, run_fp_cache *fc, footprint *fp)
{
    char *key = fc ? footprint_key(c) : NULL;
    if (fc)
        for (size_t i = 0; i < fc->n; i++)
            if (strcmp(fc->key[i], key) == 0) {
                *fp = fc->fp[i];
                free(key);
                return;
            }
    footprint_compute(&c->wl.tree, &c->wl.task, c->wl.control_size_bytes, c->mc_samples, c->seed, fp);
    if (!fc)
        return;
    if (fc->n == fc->cap) {
        fc->cap = fc->cap ? 2 * fc->cap : 8;
        fc->key = tn_xrealloc(fc->key, fc->cap * sizeof *fc->key);
        fc->fp = tn_xrealloc(fc->fp, fc->cap * sizeof *fc->fp);
    }
    fc->key[fc->n] = key;
    fc->fp[fc->n++] = *fp;
}

void run_fp_cache_free(run_fp_cache *fc)
{
    for (size_t i = 0; i < fc->n; i++)
        free(fc->key[i]);
    free(fc->key);
    free(fc->fp);
    memset(fc, 0, sizeof *fc);
}

/* Simulated time is counted in integer picoseconds up to 2^63 ps = 106
 * days. The configuration bounds each value (a day of time, a TB); here the
 * combinations: the largest message at B, the span of the arrivals and a
 * mean job must each stay within RUN_HORIZON_S, or the run would overflow
 * (or take forever) instead of answering. */
#define RUN_HORIZON_S 1e6 /* 11.6 days */
#define RUN_MAX_BPS 1e18  /* 1 Eb/s: a byte still takes 8e-6 ps, beyond is a unit slip */

static int check_horizon(const cfg *c, const footprint *fp, char *err, size_t errlen)
{
    double B = c->net.bandwidth_bps, biggest = 0;
    const char *which = "";
    const struct {
        const char *path;
        double max;
    } sizes[] = {
        {"workload.task.send-size", fp ? dist_practical_max(&c->wl.task.send_size) : 0},
        {"workload.task.result-size", fp ? dist_practical_max(&c->wl.task.result_size) : 0},
        {"workload.control-size", fp ? c->wl.control_size_bytes : 0},
        {"workload.message-size", fp ? 0 : dist_practical_max(&c->wl.message_size)},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].max > biggest) {
            biggest = sizes[i].max;
            which = sizes[i].path;
        }
    char a[64], b[64];
    if (8 * biggest / B > RUN_HORIZON_S) {
        units_format(biggest, UNIT_SIZE, a, sizeof a);
        units_format(B, UNIT_RATE, b, sizeof b);
        return tn_error(err, errlen, "%s can draw %s, which takes %.3g s at B = %s: more than the %g s "
                        "a run can span; raise network.bandwidth or lower the size", which, a, 8 * biggest / B,
                        b, RUN_HORIZON_S);
    }
    if (fp) {
        double span = (double)c->wl.jobs / c->wl.arrival_rate_per_s;
        if (span > RUN_HORIZON_S)
            return tn_error(err, errlen, "%llu jobs arriving at %g/s span %.3g s: more than the %g s a run "
                            "can span; raise the arrival rate (or load) or run fewer jobs",
                            (unsigned long long)c->wl.jobs, c->wl.arrival_rate_per_s, span, RUN_HORIZON_S);
        double job = fp->F_x_s + 8 * fp->F_c_bytes / B;
        if (job > RUN_HORIZON_S)
            return tn_error(err, errlen, "a mean job computes and transmits for %.3g s: more than the %g s "
                            "a run can span", job, RUN_HORIZON_S);
    } else if (c->wl.messages > 0) {
        double per_s = c->wl.offered_load * B / (8 * dist_mean(&c->wl.message_size));
        double span = (double)c->wl.messages / per_s;
        if (span > RUN_HORIZON_S)
            return tn_error(err, errlen, "%llu messages per node at an offered load of %g span %.3g s: more "
                            "than the %g s a run can span", (unsigned long long)c->wl.messages,
                            c->wl.offered_load, span, RUN_HORIZON_S);
    }
    return 0;
}

int run_resolve(cfg *c, footprint *fp, load_bounds *lb, char *err, size_t errlen)
{
    return run_resolve_cached(c, NULL, fp, lb, err, errlen);
}

int run_resolve_cached(cfg *c, run_fp_cache *fc, footprint *fp, load_bounds *lb, char *err,
                       size_t errlen)
{
    memset(fp, 0, sizeof *fp);
    memset(lb, 0, sizeof *lb);
    int task_tree = strcmp(c->wl.type, "task-tree") == 0;
    if (task_tree)
        footprint_cached(c, fc, fp);
    if (c->zeta > 0) {
        if (!task_tree || fp->F_bps <= 0)
            return tn_error(err, errlen,
                            "network.zeta needs a task-tree workload with a non-zero footprint F");
        c->net.bandwidth_bps = c->zeta * fp->F_bps;
    }
    if (c->load > 0) {
        if (!task_tree || fp->F_x_s <= 0)
            return tn_error(err, errlen,
                            "workload.load needs a task-tree workload with a non-zero footprint F_x");
        c->wl.arrival_rate_per_s = footprint_beta_for_load(fp, c->nodes, c->load);
    }
    if (!(c->net.bandwidth_bps > 0) || !(c->net.bandwidth_bps <= RUN_MAX_BPS))
        return tn_error(err, errlen, "network bandwidth %g b/s%s is outside (0, %g b/s]", c->net.bandwidth_bps,
                        c->zeta > 0 ? " (zeta F)" : "", RUN_MAX_BPS);
    c->net.nodes = c->nodes;
    if (check_horizon(c, task_tree ? fp : NULL, err, errlen) != 0)
        return -1;
    /* the fabric's own checks before and after the phy: the topology first
     * (a wrong N is not a power-budget problem), the phy's BER after */
    const net_ops *ops = net_find(c->net_type);
    if (ops && ops->check && ops->check(&c->net, err, errlen) != 0)
        return -1;
    if (resolve_phy(c, err, errlen) != 0)
        return -1;
    if (ops && ops->check && ops->check(&c->net, err, errlen) != 0)
        return -1;
    if (task_tree)
        footprint_bounds(fp, c->nodes, c->wl.arrival_rate_per_s, c->net.bandwidth_bps, lb);
    else
        lb->beta_per_s = c->wl.arrival_rate_per_s;
    return 0;
}

/* The fabric hands deliveries to the workload through this trampoline, so
 * neither needs to know the other's type. */
struct run_ctx {
    const wl_ops *w;
    void *ws;
};

static void run_deliver(void *owner, net_msg *m)
{
    struct run_ctx *rc = owner;
    rc->w->deliver(rc->ws, m);
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
    const stats_sample *cls[] = {&n->c.latency_s[NET_CONTROL], &n->c.latency_s[NET_DATA], &n->c.latency_all_s};
    for (int k = 0; k < 3; k++) {
        stats_loghist hg;
        stats_loghist_init(&hg, RUN_HIST_LO_S, RUN_HIST_HI_S, RUN_HIST_PER_DECADE);
        for (size_t i = 0; i < cls[k]->n; i++)
            stats_loghist_add(&hg, cls[k]->x[i]);
        for (size_t b = 0; b < stats_loghist_bins(&hg); b++) {
            double lo, hi;
            uint64_t cnt = stats_loghist_bin(&hg, b, &lo, &hi);
            if (cnt)
                fprintf(f, "%s,%.17g,%.17g,%llu\n", names[k], lo, hi, (unsigned long long)cnt);
        }
        stats_loghist_free(&hg);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return tn_error(err, errlen, "%s: %s", path, strerror(e));
    }
    return 0;
}

int run_one(const cfg *c, const footprint *fp, uint64_t replica, double *m, struct trace *tr,
            char *err, size_t errlen)
{
    run_outputs o = {.trace = tr};
    return run_one_out(c, fp, replica, m, &o, err, errlen);
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

void run_abort_clear(void)
{
    run_abort_requested = 0;
}

int run_one_out(const cfg *c, const footprint *fp, uint64_t replica, double *m, const run_outputs *o,
                char *err, size_t errlen)
{
    struct trace *tr = o ? o->trace : NULL;
    for (int i = 0; i < METRIC_COUNT; i++)
        m[i] = 0.0;
    const wl_ops *w = wl_find(c->wl.type);
    if (!w)
        return tn_error(err, errlen, "unknown workload type '%s'", c->wl.type);

    double t0 = wall_now_s();
    int rc = -1;
    sim *s = sim_create();
    gsl_rng *net_rng = rng_stream_new(c->seed, replica, "network");
    struct run_ctx ctx = {.w = w, .ws = tn_xcalloc(1, w->state_size)};
    net_params np = c->net;
    np.nodes = c->nodes;
    net *n = net_create(c->net_type, &np, s, net_rng, run_deliver, &ctx, err, errlen);
    int wl_up = 0;
    if (!n)
        goto out;

    wl_env env = {
        .sim = s,
        .net = n,
        .nodes = c->nodes,
        .bandwidth_bps = np.bandwidth_bps,
        .seed = c->seed,
        .replica = replica,
        .p = &c->wl,
        .trace = tr,
    };
    if (w->init(ctx.ws, &env, err, errlen) != 0)
        goto out;
    wl_up = 1;

    run_live = s;
    if (!run_abort_requested)
        m[M_events] = (double)sim_run(s, SIM_TIME_MAX);
    run_live = NULL;
    if (run_abort_requested) {
        tn_error(err, errlen, "interrupted");
        goto out;
    }
    if (w->finish(ctx.ws, m, err, errlen) != 0)
        goto out;
    net_metrics(n, m);
    if (o && o->latency_csv && write_latency_hist(n, o->latency_csv, err, errlen) != 0)
        goto out;

    double span_s = m[M_span_s];
    if (span_s > 0)
        m[M_network_utilization] =
            8.0 * m[M_bytes_delivered] / (np.bandwidth_bps * (double)c->nodes * span_s);
    /* fabrics that do not account energy themselves (no retransmissions) pay per delivered bit */
    if (m[M_energy_per_bit_j] == 0 && np.energy_per_bit_j > 0)
        m[M_energy_per_bit_j] = np.energy_per_bit_j;
    if (m[M_jobs_completed] > 0)
        m[M_energy_per_job_j] =
            m[M_energy_per_bit_j] * 8.0 * m[M_bytes_delivered] / m[M_jobs_completed];
    m[M_bandwidth_bps] = np.bandwidth_bps;
    m[M_beta_per_s] = c->wl.arrival_rate_per_s;
    if (fp && fp->F_x_s > 0) {
        load_bounds lb;
        footprint_bounds(fp, c->nodes, c->wl.arrival_rate_per_s, np.bandwidth_bps, &lb);
        m[M_rho_x] = lb.rho_x;
        m[M_rho_c] = lb.rho_c;
        m[M_zeta] = lb.zeta;
        m[M_F_bps] = fp->F_bps;
        m[M_speedup_bound] = fp->speedup_bound;
    }
    rc = 0;
out:
    if (wl_up && w->fini)
        w->fini(ctx.ws);
    free(ctx.ws);
    if (n)
        net_destroy(n);
    gsl_rng_free(net_rng);
    sim_destroy(s);
    m[M_wall_s] = wall_now_s() - t0;
    return rc;
}
