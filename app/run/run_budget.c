/* What a run will take, before it runs: memory (the fabric's, the
 * workload's and the core's latency samples, each estimated by its owner
 * from the parameters) against the memory this process may use. A run that
 * would not fit is refused with the estimate, instead of growing until the
 * machine or the kernel stops it. */
#include "run.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "log.h"
#include "network.h"
#include "units.h"
#include "workload.h"

/* The core keeps every delivered message's latency twice (its class and
 * all) as doubles in arrays that grow by doubling: 16 B a message, 24 on
 * average over the growth. */
#define RUN_SAMPLE_BYTES_PER_MSG 24.0
/* The engine, the program and the libraries: a floor under every run. */
#define RUN_BASE_BYTES (16.0 * 1024 * 1024)

void run_estimate_point(const cfg *c, run_estimate *out)
{
    memset(out, 0, sizeof *out);
    const net_ops *nops = cfg_net(c);
    net_params core = c->net;
    core.nodes = c->nodes;
    int64_t fixed_ps = 0;
    double bound = 0;
    if (nops) {
        out->net_bytes = net_mem_bytes(nops, &core, cfg_net_params(c));
        fixed_ps = net_fixed_latency_ps(nops, &core, cfg_net_params(c));
        bound = net_uniform_bound(nops, &core, cfg_net_params(c));
    }
    /* every workload on the fabric: memory and messages add up, the run
     * lasts as long as the longest */
    for (size_t k = 0; k < c->nwl; k++) {
        const wl_ops *wops = cfg_wl_at(c, k);
        uint32_t nranks = c->nodes;
        char err[256];
        /* a count only: nothing per node before the estimate says it fits */
        if (run_wl_nodes(c, k, NULL, NULL, NULL, &nranks, err, sizeof err) != 0)
            nranks = c->nodes;
        wl_estimate we = {0};
        if (wops && wops->estimate) {
            wl_resolve wr = {.nodes = nranks,
                             .net = &core,
                             .seed = c->seed,
                             .msg_fixed_ps = fixed_ps,
                             .fabric_bound = bound,
                             .measure_window = c->wl[k].measure == 1};
            wops->estimate(cfg_wl_params_at(c, k), &wr, &we);
        } else {
            we.mem_bytes = WL_MEM_PER_NODE_B * (double)nranks;
        }
        if (k < CFG_MAX_WORKLOADS) {
            out->wl[k].ranks = nranks;
            out->wl[k].mem_bytes = we.mem_bytes;
            out->wl[k].messages = we.messages;
            out->wl[k].horizon_s = we.horizon_s;
            out->nwl = k + 1;
        }
        out->wl_bytes += we.mem_bytes;
        out->messages += we.messages;
        if (we.horizon_s > out->horizon_s)
            out->horizon_s = we.horizon_s;
    }
    out->samples_bytes = RUN_SAMPLE_BYTES_PER_MSG * out->messages;
    out->mem_bytes = RUN_BASE_BYTES + out->net_bytes + out->wl_bytes + out->samples_bytes;
}

/* A number of bytes from a file holding one (cgroup limits), or 0. */
static double file_bytes(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char buf[64] = "";
    char *ok = fgets(buf, sizeof buf, f);
    fclose(f);
    if (!ok)
        return 0;
    char *end;
    double v = strtod(buf, &end);
    return end != buf && v > 0 ? v : 0; /* "max" (no limit) reads as 0 */
}

double run_memory_available(char *how, size_t howlen)
{
    const char *env = getenv("TASKNET_MEMORY");
    if (env && *env) {
        double v;
        char err[128];
        if (units_parse(env, UNIT_SIZE, &v, err, sizeof err) == 0 && v > 0) {
            snprintf(how, howlen, "TASKNET_MEMORY=%s", env);
            return v;
        }
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double mem = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    snprintf(how, howlen, "the machine's memory");
    const struct {
        const char *path, *what;
    } cg[] = {{"/sys/fs/cgroup/memory.max", "the cgroup's memory.max"},
              {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "the cgroup's memory limit"}};
    for (size_t i = 0; i < sizeof cg / sizeof cg[0]; i++) {
        double v = file_bytes(cg[i].path);
        if (v > 0 && v < mem) {
            mem = v;
            snprintf(how, howlen, "%s", cg[i].what);
        }
    }
    const struct {
        int res;
        const char *what;
    } lim[] = {{RLIMIT_AS, "the address-space limit (ulimit -v)"}, {RLIMIT_DATA, "the data limit (ulimit -d)"}};
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        struct rlimit rl;
        if (getrlimit(lim[i].res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (double)rl.rlim_cur < mem) {
            mem = (double)rl.rlim_cur;
            snprintf(how, howlen, "%s", lim[i].what);
        }
    }
    return mem;
}

void run_format_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    size_t u = 0;
    while (b >= 1000 && u + 1 < sizeof unit / sizeof unit[0]) {
        b /= 1000;
        u++;
    }
    snprintf(buf, len, "%.3g %s", b, unit[u]);
}

int run_check_memory(const cfg *c, unsigned copies, double extra_bytes, char *err, size_t errlen)
{
    char how[128];
    double avail = run_memory_available(how, sizeof how);
    run_estimate e;
    run_estimate_point(c, &e);
    double need = (double)(copies ? copies : 1) * e.mem_bytes + extra_bytes;
    if (need <= avail)
        return 0;
    char a[64], b[64], n[64], w[64], sm[64];
    run_format_bytes(need, a, sizeof a);
    run_format_bytes(avail, b, sizeof b);
    run_format_bytes(e.net_bytes, n, sizeof n);
    run_format_bytes(e.wl_bytes, w, sizeof w);
    run_format_bytes(e.samples_bytes, sm, sizeof sm);
    char each[256] = "";
    if (copies > 1 && (double)1 * e.mem_bytes + extra_bytes <= avail)
        snprintf(each, sizeof each, " (%u runs at once: fewer worker processes, -j %u, would fit)", copies,
                 (unsigned)((avail - extra_bytes) / e.mem_bytes) > 0 ? (unsigned)((avail - extra_bytes) / e.mem_bytes)
                                                                       : 1);
    else if (copies > 1)
        snprintf(each, sizeof each, " (%u runs at once)", copies);
    return tn_error(err, errlen,
                    "a run needs about %s of memory%s (fabric %s, workload %s, latencies of %.3g messages %s), "
                    "more than the %s this process may use (%s); fewer nodes, jobs or messages would fit "
                    "(TASKNET_MEMORY=SIZE sets the memory to assume)",
                    a, each, n, w, e.messages, sm, b, how);
}

int run_memory_where(const cfg *c, char *at, size_t atlen, char *what, size_t whatlen)
{
    int w = cfg_where(c, "system.nodes", at, atlen);
    if (w == 1)
        snprintf(what, whatlen, "system.nodes=\"%u\"", c->nodes);
    else if (w == 2)
        snprintf(what, whatlen, "axis system.nodes");
    else if (whatlen)
        what[0] = '\0';
    return w;
}

int run_point_accepted(const cfg *c, size_t q, signed char *memo, run_cache *rc)
{
    if (memo && memo[q])
        return memo[q] > 0;
    cfg pc;
    char err[1024];
    int ok = 0;
    /* validate's order: the estimate, resolving, the estimate again */
    if (cfg_point(c, q, &pc, err, sizeof err) == 0) {
        ok = run_check_memory(&pc, 1, 0, err, sizeof err) == 0 && run_resolve(&pc, rc, NULL, err, sizeof err) == 0 &&
             run_check_memory(&pc, 1, 0, err, sizeof err) == 0;
        cfg_free(&pc);
    }
    if (memo)
        memo[q] = ok ? 1 : -1;
    return ok;
}

long run_refusal_axis(const cfg *c, size_t p, const char *why, signed char *memo, run_cache *rc)
{
    if (c->point || !c->naxes)
        return -1;
    for (size_t a = 0; a < c->naxes; a++)
        if (!(c->axes[a].with[0] && strcmp(cfg_point_value(c, p, a), CFG_AXIS_UNSET) == 0) &&
            cfg_names_path(why, c->axes[a].param))
            return (long)a;
    /* the lead axes (an axis varying with another moves with it) */
    for (size_t a = 0; a < c->naxes; a++) {
        if (c->axes[a].with[0])
            continue;
        for (size_t v = 0; v < c->axes[a].nvalues; v++) {
            size_t q = cfg_point_moved(c, p, a, v);
            if (q != p && run_point_accepted(c, q, memo, rc))
                return (long)a;
        }
    }
    return -1;
}

int run_refusal_where(const cfg *c, size_t p, long a, char *at, size_t atlen, char *what, size_t whatlen)
{
    if (atlen)
        at[0] = '\0';
    if (whatlen)
        what[0] = '\0';
    if (a < 0 || (size_t)a >= c->naxes || !c->axes[a].line || !c->file[0])
        return 0;
    snprintf(at, atlen, "%s:%u:%u", c->file, c->axes[a].line, c->axes[a].col);
    size_t l = (size_t)snprintf(what, whatlen, "<axis param=\"%s\">: value '%s' at sweep point %zu (", c->axes[a].param,
                                cfg_point_value(c, p, (size_t)a), p);
    for (size_t b = 0; b < c->naxes && l < whatlen; b++)
        l += (size_t)snprintf(what + l, whatlen - l, "%s%s=%s", b ? " " : "", c->axes[b].param,
                              cfg_point_value(c, p, b));
    if (l < whatlen)
        snprintf(what + l, whatlen - l, ")");
    return 1;
}

int run_point_fits(const cfg *c)
{
    char err[1024];
    return run_check_memory(c, 1, 0, err, sizeof err) == 0;
}
