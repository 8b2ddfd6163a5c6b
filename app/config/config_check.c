/* Cross-parameter checks: the rules of every configuration (required
 * parameters, exclusions), each plugin's own check (its param_report placed
 * here), and the sweep-wide one (a parameter given that no point uses).
 * While loading, each problem is placed at the attribute it is about. */
#include "config_impl.h"

#include <libxml/tree.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "log.h"
#include "placement.h"

static void ec_emit(ectx *ec, char *msg)
{
    ec->n++;
    if (ec->mode == EC_FIRST) {
        if (ec->n == 1)
            tn_error(ec->buf, ec->buflen, "%s", msg);
        free(msg);
        return;
    }
    char *line = ec->file && ec->file[0] ? cfg_format("%s: error: %s", ec->file, msg) : cfg_format("error: %s", msg);
    free(msg);
    for (size_t i = ec->first; i < ec->errs->n; i++)
        if (strcmp(ec->errs->msg[i], line) == 0) {
            free(line);
            return;
        }
    cfg_errors_push(ec->errs, line);
}

/* A path as messages name it: a workload's parameter qualified when there
 * are several workloads (caller frees). */
static char *msg_path(const cfg *c, const char *path, size_t k)
{
    long r = crow_find(path);
    if (r >= 0 && crow_is_wl((size_t)r) && strncmp(path, "workload.", 9) == 0 &&
        (c->nwl > 1 || c->wl[k].name[0]))
        return cfg_format("workload.%s.%s", c->wl[k].name, path + 9);
    return tn_xstrdup(path);
}

/* The row of an unqualified path that applies to workload k of c, or -1. */
static long row_at(const cfg *c, const char *path, size_t k)
{
    long first = crow_find(path);
    if (first < 0)
        return -1;
    for (size_t i = (size_t)first; i < crow_count(); i++)
        if (crow_canon(i) == (size_t)first && crow_selected(c, i, k))
            return (long)i;
    return first;
}

/* The workload a row's value is held by when reported for workload k. */
static size_t home_of(const cfg *c, size_t row, size_t k)
{
    if (!crow_is_wl(row))
        return 0;
    return strncmp(crow_at(row)->row->path, "workload.", 9) == 0 ? k : crow_wl_home(c, row);
}

/* The alternative of row r that workload k can use instead (its owner selected), or -1. */
static long usable_alt(const cfg *c, const param_row *r, size_t k)
{
    if (!r->alt)
        return -1;
    long a = row_at(c, r->alt, k);
    return a >= 0 && crow_selected(c, (size_t)a, home_of(c, (size_t)a, k)) ? a : -1;
}

/* The loader's node of element e for workload k. */
xmlNodePtr ld_node(const loader *ld, int e, size_t k)
{
    return ld->el[celem_in_workload(e) ? k : 0][e];
}

/* A required parameter (or one of a pair) of workload k is missing. */
static void x_missing(const cfg *c, ectx *ec, size_t k, const char *path, const char *reason)
{
    long ri = row_at(c, path, k);
    char *mp = msg_path(c, path, k);
    if (ri < 0) {
        ec_emit(ec, cfg_format("missing %s (%s)", mp, reason));
        free(mp);
        return;
    }
    const param_row *r = crow_at((size_t)ri)->row;
    long ai = usable_alt(c, r, k);
    const param_row *alt = ai >= 0 ? crow_at((size_t)ai)->row : NULL;
    const char *ex = r->example ? r->example : "...";
    if (ec->mode != EC_LOAD) {
        char *ap = alt ? msg_path(c, alt->path, k) : NULL;
        if (alt)
            ec_emit(ec, cfg_format("missing %s or %s (%s; e.g. %s=%s)", mp, ap, reason, mp, ex));
        else
            ec_emit(ec, cfg_format("missing %s (%s; e.g. %s=%s)", mp, reason, mp, ex));
        free(ap);
        free(mp);
        return;
    }
    free(mp);
    loader *ld = ec->ld;
    size_t kr = home_of(c, (size_t)ri, k), ka = ai >= 0 ? home_of(c, (size_t)ai, k) : 0;
    if (ld->failed[kr][crow_canon((size_t)ri)] || (ai >= 0 && ld->failed[ka][crow_canon((size_t)ai)]))
        return; /* its value was rejected: already reported */
    ec->n++;
    int e = crow_elem((size_t)ri);
    if (ld_node(ld, e, kr)) {
        if (alt)
            ld_err_at_attr(ld, ld_node(ld, e, kr), NULL, NULL, "missing attribute %s or %s (%s; e.g. %s=\"%s\")",
                           param_attr(r), param_attr(alt), reason, param_attr(r), ex);
        else
            ld_err_at_attr(ld, ld_node(ld, e, kr), NULL, NULL, "missing attribute %s (%s; e.g. %s=\"%s\")",
                           param_attr(r), reason, param_attr(r), ex);
        return;
    }
    /* The element itself is absent: report the outermost absent one, once. */
    while (celem_at((size_t)e)->parent >= 0 && !ld_node(ld, celem_at((size_t)e)->parent, kr))
        e = celem_at((size_t)e)->parent;
    int parent = celem_at((size_t)e)->parent;
    if (parent < 0 || !ld_node(ld, parent, kr))
        return; /* no root: reported by the walk */
    char *hint = celem_hint(e);
    ld_err_at_elem(ld, ld_node(ld, parent, kr), "<%s>: missing <%s> element (%s)", celem_at((size_t)parent)->name,
                   celem_at((size_t)e)->name, hint);
    free(hint);
}

/* The axis that sent this point its value of canonical row `canon` (of
 * workload k), or -1: not a point, not swept, or a with-axis's "-" here. */
static long sweeping_axis(const cfg *c, size_t canon, size_t k)
{
    if (!c->point)
        return -1;
    for (size_t a = 0; a < c->naxes; a++) {
        long ra;
        size_t ka;
        char err[512];
        if (crow_resolve(c, c->axes[a].param, &ra, &ka, err, sizeof err) != 0 || ra < 0 ||
            crow_canon((size_t)ra) != canon || (crow_is_wl(canon) && ka != k))
            continue;
        if (c->axes[a].with[0] && strcmp(cfg_point_value(c, 0, a), CFG_AXIS_UNSET) == 0)
            return -1; /* not set at this point: the configuration's own value */
        return (long)a;
    }
    return -1;
}

/* A problem of row ri (workload kr's value) whose value is not the file's
 * attribute, reported where it comes from: a sweep
 * axis (at its param attribute, with the value and the point: the first
 * point of each value and problem only), or the command line (cfg_load_with:
 * "error: LABEL: ...", no place in the file). 1 when reported so (or once
 * already), 0 for the file's own value. */
/* The problem (body) at axis a, with the value and the point: the first
 * point of each value and problem only. */
static void at_axis(const cfg *c, ectx *ec, size_t a, const char *body)
{
    loader *ld = ec->ld;
    char point[512] = "";
    for (size_t b = 0, l = 0; b < c->naxes && l < sizeof point; b++)
        l += (size_t)snprintf(point + l, sizeof point - l, "%s%s=%s", b ? " " : "", c->axes[b].param,
                              cfg_point_value(c, 0, b));
    char *tag = ld_tag_text("axis", "param", c->axes[a].param);
    char *head = cfg_format("%s: value '%s' at sweep point ", tag, cfg_point_value(c, 0, a));
    char *tail = cfg_format(": %s", body);
    size_t hl = strlen(head), tl = strlen(tail);
    /* the same value refused for the same reason at another point: once */
    for (size_t i = 0; i < ld->ne; i++) {
        const char *m = ld->e[i].msg;
        size_t ml = strlen(m);
        if (ld->e[i].line == (long)c->axes[a].line && ld->e[i].col == (long)c->axes[a].col && ml >= hl + tl &&
            strncmp(m, head, hl) == 0 && strcmp(m + ml - tl, tail) == 0) {
            free(tag), free(head), free(tail);
            return;
        }
    }
    ec->n++;
    ld_add_err(ld, c->axes[a].line, c->axes[a].col, a < CFG_MAX_AXES ? ld->axis_node[a] : NULL,
               cfg_format("%s%zu (%s)%s", head, c->point - 1, point, tail));
    free(tag), free(head), free(tail);
}

/* The problem (body) at command-line value i: "error: LABEL: ..." (once). */
static void at_cli(ectx *ec, size_t i, const char *body)
{
    loader *ld = ec->ld;
    char *line = cfg_format("error: %s: %s", ld->cli[i].label, body);
    for (size_t j = 0; j < ld->cli_errs.n; j++)
        if (strcmp(ld->cli_errs.msg[j], line) == 0) {
            free(line);
            return;
        }
    ec->n++;
    cfg_errors_push(&ld->cli_errs, line);
}

static int swept_or_cli(const cfg *c, ectx *ec, size_t ri, size_t kr, const char *body)
{
    loader *ld = ec->ld;
    size_t canon = crow_canon(ri);
    long a = sweeping_axis(c, canon, kr);
    if (a >= 0 && c->axes[a].line) {
        at_axis(c, ec, (size_t)a, body);
        return 1;
    }
    uint16_t s = ld->cli_row[kr][canon];
    if (s && a < 0) {
        at_cli(ec, s - 1, body);
        return 1;
    }
    return 0;
}

/* A parameter's value (of workload k) is wrong in combination with others. */
static void x_invalid(const cfg *c, ectx *ec, size_t k, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void x_invalid(const cfg *c, ectx *ec, size_t k, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = cfg_vformat(fmt, ap);
    va_end(ap);
    long ri = row_at(c, path, k);
    if (ec->mode != EC_LOAD || ri < 0) {
        char *mp = msg_path(c, path, k);
        if (ec->mode == EC_LOAD && ec->ld->el[0][CE_ROOT]) {
            ec->n++;
            ld_err_at_elem(ec->ld, ec->ld->el[0][CE_ROOT], "%s: %s", mp, body);
        } else {
            ec_emit(ec, cfg_format("%s: %s", mp, body));
        }
        free(mp);
        free(body);
        return;
    }
    loader *ld = ec->ld;
    size_t kr = home_of(c, (size_t)ri, k);
    if (ld->failed[kr][crow_canon((size_t)ri)]) {
        free(body);
        return;
    }
    if (swept_or_cli(c, ec, (size_t)ri, kr, body)) {
        free(body);
        return;
    }
    int e = crow_elem((size_t)ri);
    xmlNodePtr n = ld_node(ld, e, kr);
    const char *attr = param_attr(crow_at((size_t)ri)->row);
    char *v = n ? ld_prop_of(n, attr) : NULL;
    if (!v) {
        /* the row keeps its default: the value refused is another's, one
         * a sweep axis set at this point or the command line set when the
         * message names its parameter ("16384 B cannot hold one packet of
         * network.mtu = ...", reported for network.vc-buffer, with
         * network.mtu swept): there */
        for (size_t a = 0; c->point && a < c->naxes; a++)
            if (c->axes[a].line && strcmp(cfg_point_value(c, 0, a), CFG_AXIS_UNSET) != 0 &&
                cfg_names_path(body, c->axes[a].param)) {
                at_axis(c, ec, a, body);
                free(body);
                return;
            }
        for (size_t i = 0; i < ld->ncli; i++)
            if (ld->cli[i].path && cfg_names_path(body, ld->cli[i].path)) {
                at_cli(ec, i, body);
                free(body);
                return;
            }
    }
    ec->n++;
    if (v) {
        ld_err_at_attr(ld, n, attr, v, "%s", body);
        free(v);
    } else if (n) {
        ld_err_at_elem(ld, n, "<%s>: %s", celem_at((size_t)e)->name, body);
    } else if (ld->el[0][CE_ROOT]) {
        char *mp = msg_path(c, path, k);
        ld_err_at_elem(ld, ld->el[0][CE_ROOT], "%s: %s", mp, body);
        free(mp);
    }
    free(body);
}

/* A plugin's param_report, placed by x_invalid / x_missing for workload k. */
typedef struct report_ctx {
    const cfg *c;
    ectx *ec;
    size_t k;
} report_ctx;

static void rep_invalid(void *ctx, const char *path, const char *msg)
{
    report_ctx *r = ctx;
    x_invalid(r->c, r->ec, r->k, path, "%s", msg);
}

/* A value of path's scope (workload k's rows for a workload's path, the
 * rest's otherwise) was rejected by the loader. */
static int scope_rejected(const loader *ld, const char *path, size_t k)
{
    int wl = strncmp(path, "workload.", 9) == 0;
    for (size_t i = 0; i < crow_count(); i++)
        if (crow_canon(i) == i && crow_is_wl(i) == wl && ld->failed[wl ? k : 0][i])
            return 1;
    return 0;
}

/* A plugin's own requirements depend on its other values ("duration,
 * required without a flow-list"): with one of them rejected (a flow list
 * that cannot be read), the plugin sees it as not given and would ask for
 * what the rejected value makes unnecessary. The loader reports only the
 * rejection then; the rows' own required values are still reported
 * (cfg_row_rules). */
static void rep_missing(void *ctx, const char *path, const char *why)
{
    report_ctx *r = ctx;
    if (r->ec->mode == EC_LOAD && scope_rejected(r->ec->ld, path, r->k))
        return;
    x_missing(r->c, r->ec, r->k, path, why);
}

/* The rows' own rules for what workload k (or, k = SIZE_MAX, the rest)
 * selects: required parameters and exclusive pairs. */
static void row_rules(const cfg *c, ectx *ec, size_t k)
{
    for (size_t i = 0; i < crow_count(); i++) {
        int wl = crow_is_wl(i) && strncmp(crow_at(i)->row->path, "workload.", 9) == 0;
        size_t kk = k == SIZE_MAX ? (crow_is_wl(i) ? crow_wl_home(c, i) : 0) : k;
        if ((k == SIZE_MAX) == wl || !crow_selected(c, i, kk))
            continue;
        if (k == SIZE_MAX && crow_is_wl(i) && kk != crow_wl_home(c, i))
            continue;
        const param_row *r = crow_at(i)->row;
        const void *blk = crow_block(c, i, kk);
        long ai = usable_alt(c, r, kk);
        int alt_set = ai >= 0 && param_is_set(crow_block(c, (size_t)ai, home_of(c, (size_t)ai, kk)),
                                              crow_at((size_t)ai)->row);
        if (param_is_set(blk, r)) {
            /* both of an exclusive pair: report it once, at the later row */
            if (alt_set && (size_t)ai < i)
                x_invalid(c, ec, kk, r->path, "give either %s or %s, not both", r->alt, r->path);
        } else if ((r->flags & PARAM_REQUIRED) && !alt_set && !(ai >= 0 && (size_t)ai < i)) {
            x_missing(c, ec, kk, r->path, r->help);
        }
    }
}

/* The workloads' own attributes: names, nodes, classes, roles. */
int (*cfg_point_fits)(const cfg *c);

static void workload_rules(const cfg *c, ectx *ec, const net_params *core)
{
    /* the node checks below hold 5 B per node: a point that does not fit is
     * refused by its estimate (validate, run), not checked here */
    int per_node = c->nodes >= 2 && (!cfg_point_fits || cfg_point_fits(c));
    unsigned char *taken = tn_xcalloc(per_node ? c->nodes : 1, 1);
    uint32_t *map = tn_xmalloc((per_node ? c->nodes : 1) * sizeof *map);
    int foreground = 0;
    long silent = -1; /* a foreground workload that cannot tell when it has finished */
    for (size_t k = 0; k < c->nwl; k++) {
        const cfg_workload *w = &c->wl[k];
        const wl_ops *ops = cfg_wl_at(c, k);
        if (c->nwl > 1 && !w->name[0])
            x_missing(c, ec, k, "workload.name", "several workloads share this configuration: each needs a name");
        for (size_t j = 0; j < k; j++)
            if (w->name[0] && strcmp(c->wl[j].name, w->name) == 0)
                x_invalid(c, ec, k, "workload.name", "'%s' names two workloads", w->name);
        int sub = -1;
        for (size_t e = 0; e < celem_count() && w->name[0]; e++)
            if (celem_at(e)->parent == celem_workload() && strcmp(celem_at(e)->name, w->name) == 0)
                sub = (int)e;
        if (sub >= 0)
            x_invalid(c, ec, k, "workload.name", "'%s' is the name of an element of <workload>; choose another",
                      w->name);
        if (per_node) {
            char err[512];
            uint32_t n = 0;
            int random = strncmp(w->nodes, "random(", 7) == 0;
            /* random(n) is drawn per run: here only its count is checked */
            gsl_rng *g = random ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
            if (wl_nodes_place(w->nodes, c->nodes, cfg_wl_exclusive(c, k), taken, g, map, &n, err, sizeof err) != 0)
                x_invalid(c, ec, k, "workload.nodes", "%s", err);
            else if (n < 2 && ops && strcmp(w->nodes, "all") != 0)
                x_invalid(c, ec, k, "workload.nodes", "'%s' gives %u node; a workload needs at least 2", w->nodes, n);
            if (g)
                gsl_rng_free(g);
        }
        if (w->role == 1 && ops && !ops->stop)
            x_invalid(c, ec, k, "workload.role", "a %s workload cannot be stopped, so it cannot be a background one",
                      ops->name);
        /* measure="window": what arrives while the foreground runs (app/run/run.c) */
        if (w->measure == 1 && w->role != 1)
            x_invalid(c, ec, k, "workload.measure",
                      "\"window\" is the foreground's window, and this is a foreground workload: it applies to a "
                      "role=\"background\" one (to count the flows a run with a foreground counted, run this one "
                      "alone with warmup and duration set to that run's window_start_s and window_end_s)");
        else if (w->measure == 1 && ops && !ops->measures_window)
            x_invalid(c, ec, k, "workload.measure", "a %s workload measures all it does: \"window\" applies to "
                      "dc-flows", ops->name);
        if (w->role == 0) {
            foreground = 1;
            if (ops && !ops->finished && silent < 0)
                silent = (long)k;
        }
    }
    if (c->nwl > 1 || c->wl[0].role == 1) {
        int background = 0;
        for (size_t k = 0; k < c->nwl; k++)
            background |= c->wl[k].role == 1;
        if (background && !foreground)
            x_invalid(c, ec, c->nwl - 1, "workload.role", "every workload is a background one: the run would never "
                      "stop them; make one a foreground workload");
        else if (background && silent >= 0)
            /* the background stops once every foreground workload has
             * finished (app/run/run.c): one that cannot tell holds it forever */
            x_invalid(c, ec, (size_t)silent, "workload.type", "a %s workload cannot tell when it has finished, so "
                      "the background ones would never stop; run it without a background workload",
                      c->wl[silent].type);
    }
    /* a fabric that can lose packets (net_ops.lossy: finite buffers, host
     * queues, links failing during the run): every workload needs a
     * transport to send them again. The run refuses it too (app/run/run.c);
     * here the message is placed at the attribute that makes it lossy. */
    const net_ops *nops = cfg_net(c);
    int lossy = nops && nops->lossy ? nops->lossy(cfg_net_params(c)) : 0;
    for (size_t k = 0; lossy && k < c->nwl; k++) {
        int type = c->wl[k].transport > 0 ? c->wl[k].transport - 1 : c->tp.type;
        if (type != 0)
            continue;
        char who[PARAM_NAME_MAX + 16], why[768];
        const char *attr;
        snprintf(who, sizeof who, c->wl[k].name[0] ? "workload %s" : "the workload", c->wl[k].name);
        net_lossy_refusal(lossy, nops->name, who, &attr, why, sizeof why);
        x_invalid(c, ec, 0, attr, "%s", why);
        break;
    }
    /* a transport's full segment must cross a link within the retransmission
     * timeout's 60 s ceiling (transport.h TP_MAX_RTO_PS): its ACK cannot
     * come back before the segment has left the sender at
     * network.bandwidth, so otherwise every segment is sent again (go-back-N
     * from the timeout) and again every 60 s while its first copy is on the
     * wire, no sample (Karn) ever lowers the timeout, and the copies queue up
     * faster than the link drains them: the run does not end (random-configs
     * seed 4 configuration 51, dctcp at 1 b/s, reached 2^62 ps) */
    for (size_t k = 0; core->bandwidth_bps > 0 && k <= c->nwl; k++) {
        int type = k < c->nwl ? (c->wl[k].transport > 0 ? c->wl[k].transport - 1 : c->tp.type) : c->tp.type;
        if (type <= 0 || (size_t)type >= tp_count())
            continue;
        uint64_t seg = c->tp.mss_bytes + c->tp.header_bytes + (tp_registry[type]->telemetry ? c->tp.int_bytes : 0);
        double t_s = (double)seg * 8 / core->bandwidth_bps;
        if (t_s * 1e12 > (double)TP_MAX_RTO_PS) {
            x_invalid(c, ec, 0, "network.bandwidth",
                      "a %s segment of %llu B (transport.mss %llu B + headers) takes %.3g s to leave its host at "
                      "network.bandwidth = %g b/s, more than the %g s the retransmission timeout can reach (RFC "
                      "6298): every segment would be sent again before its ACK could come back, and the run would "
                      "not end; raise network.bandwidth to at least %.3g b/s or lower transport.mss",
                      tp_registry[type]->name, (unsigned long long)seg, (unsigned long long)c->tp.mss_bytes, t_s,
                      core->bandwidth_bps, (double)TP_MAX_RTO_PS / 1e12, (double)seg * 8 / ((double)TP_MAX_RTO_PS / 1e12));
            break;
        }
    }
    /* workload.connection="persistent" needs a window-based transport (as transport.connection) */
    for (size_t k = 0; k < c->nwl; k++) {
        int type = c->wl[k].transport > 0 ? c->wl[k].transport - 1 : c->tp.type;
        if (c->wl[k].connection == 2 && type > 0 && (size_t)type < tp_count() && tp_registry[type]->rate_based)
            x_invalid(c, ec, k, "workload.connection", "persistent applies to the window-based transports (tcp, "
                      "dctcp), not %s", tp_registry[type]->name);
    }
    /* hpcc (networks/tp_hpcc.c) reads INT written by output-queued switch
     * ports and assumes a lossless fabric: flow-control pfc, not the
     * input-queued router (its ports write no INT); and one path per flow:
     * not a routing that picks a path packet by packet (net_ops.per_packet_paths) */
    for (size_t k = 0; nops && k <= c->nwl; k++) {
        int type = k < c->nwl ? (c->wl[k].transport > 0 ? c->wl[k].transport - 1 : c->tp.type) : c->tp.type;
        if (type <= 0 || (size_t)type >= tp_count() || !tp_registry[type]->telemetry)
            continue;
        const char *fc = NULL, *router = NULL;
        char *fcv = NULL, *rv = NULL;
        for (size_t i = 0; i < nops->nparams; i++) {
            if (strcmp(nops->params[i].path, "network.flow-control") == 0)
                fc = fcv = param_format(cfg_net_params(c), &nops->params[i], NULL);
            else if (strcmp(nops->params[i].path, "network.router") == 0)
                router = rv = param_format(cfg_net_params(c), &nops->params[i], NULL);
        }
        if (!fc || strcmp(fc, "pfc") != 0)
            x_invalid(c, ec, 0, fc ? "network.flow-control" : "network.type",
                      "transport %s needs a lossless fabric with INT at its switch ports: network.flow-control=\"pfc\" "
                      "(%s %s)", tp_registry[type]->name, nops->name,
                      fc ? "has another flow control" : "has no flow-control parameter");
        else if (router && strcmp(router, "input-queued") == 0)
            x_invalid(c, ec, 0, "network.router", "transport %s reads INT that output-queued ports write: the "
                      "input-queued router writes none", tp_registry[type]->name);
        else if (nops->per_packet_paths && nops->per_packet_paths(cfg_net_params(c))) {
            char *routing = NULL;
            for (size_t i = 0; i < nops->nparams; i++)
                if (strcmp(nops->params[i].path, "network.routing") == 0)
                    routing = param_format(cfg_net_params(c), &nops->params[i], NULL);
            x_invalid(c, ec, 0, "network.routing",
                      "transport %s needs one path per flow: routing=%s picks a path packet by packet (adaptive), "
                      "so a flow's segments arrive out of order and hop i of two of its INT records can be two "
                      "ports (HPCC compares each hop with the same hop of the record before; the authors' ns-3 code "
                      "hashes a flow onto one path, ECMP, and answers a gap with go-back-N, as RoCE NICs do). Use a "
                      "routing with one path per flow (%s)",
                      tp_registry[type]->name, routing ? routing : "?",
                      strcmp(nops->name, "fat-tree") == 0    ? "d-mod-k or random-up"
                      : strcmp(nops->name, "dragonfly") == 0 ? "minimal or valiant"
                      : strcmp(nops->name, "torus") == 0     ? "dor, valiant or romm"
                                                             : "an oblivious one");
            free(routing);
        }
        free(fcv);
        free(rv);
        break;
    }
    (void)core;
    free(taken);
    free(map);
}

void cfg_cross_check(const cfg *c, ectx *ec)
{
    const net_ops *nops = cfg_net(c);
    if (!nops) {
        char err[512];
        net_name_ok(c->net_type, err, sizeof err);
        x_invalid(c, ec, 0, "network.type", "%s", err);
    }
    for (size_t k = 0; k < c->nwl; k++)
        if (!cfg_wl_at(c, k)) {
            char err[512];
            wl_name_ok(c->wl[k].type, err, sizeof err);
            x_invalid(c, ec, k, "workload.type", "%s", err);
        }
    row_rules(c, ec, SIZE_MAX);
    for (size_t k = 0; k < c->nwl; k++)
        row_rules(c, ec, k);
    /* a value of a path several owners declare that this point's owner
     * does not take (crow_set kept it for the others): network.routing's
     * choices are each topology's own */
    for (size_t i = 0; i < crow_count(); i++) {
        size_t nk = crow_is_wl(i) ? c->nwl : 1;
        for (size_t k = 0; k < nk; k++) {
            char why[1024];
            if (crow_selected(c, i, k) && crow_rejected_why(c, i, k, why, sizeof why) == 0)
                x_invalid(c, ec, k, crow_at(i)->row->path, "the %s does not take %s", crow_owner_name(i), why);
        }
    }
    net_params core = c->net;
    core.nodes = c->nodes;
    report_ctx rc = {c, ec, 0};
    param_report rep = {.invalid = rep_invalid, .missing = rep_missing, .ctx = &rc};
    phy_params_check(&c->phy, &rep);
    tp_check(&c->tp, &rep);
    /* a fabric's rules involve N: without a valid N they would only echo its error */
    if (nops && nops->check && c->nodes >= 2)
        nops->check(&core, cfg_net_params(c), &rep);
    for (size_t k = 0; k < c->nwl; k++) {
        const wl_ops *w = cfg_wl_at(c, k);
        rc.k = k;
        if (w && w->check)
            w->check(&core, cfg_wl_params_at(c, k), &rep);
    }
    workload_rules(c, ec, &core);
    if (!(c->confidence > 0 && c->confidence < 1))
        x_invalid(c, ec, 0, "run.confidence", "the confidence level must be between 0 and 1 (e.g. 0.99), not %g",
                  c->confidence);
    if (c->replicas < 1)
        x_invalid(c, ec, 0, "run.replicas", "must be at least 1");
}

/* Why canonical row i of workload k, given or swept, changes nothing at
 * any point of the sweep (caller frees), or NULL when it applies
 * somewhere: its owner (a fabric, a workload type) is never used, or it is
 * used but the row's `when` (a tree generator) never holds. */
static char *not_applied(const cfg *c, size_t i, size_t k)
{
    int used = 0, holds = 0;
    char seen[512] = "";
    long cond = -1;
    for (size_t j = i; j < crow_count(); j++)
        if (crow_canon(j) == i && crow_used(c, j, k)) {
            used = 1;
            if (crow_when_holds(c, j, k, seen, sizeof seen))
                holds = 1;
            else
                cond = (long)j;
        }
    if (used && (holds || cond < 0))
        return NULL;
    const char *every = c->naxes ? " at every point of the sweep" : "";
    if (used) {
        /* used by its owner, but only where another of its parameters
         * has a value it never has here */
        const char *when = crow_at((size_t)cond)->row->when, *eq = strchr(when, '=');
        char wpath[PARAM_NAME_MAX + 64];
        snprintf(wpath, sizeof wpath, "%.*s", (int)(eq - when), when);
        char *wp = msg_path(c, wpath, k);
        char *m = cfg_format("applies where %s is %s, and it is %s%s", wp, eq + 1, seen, every);
        free(wp);
        return m;
    }
    /* the owners that would use it */
    const char *owners[64];
    size_t n = 0;
    for (size_t j = i; j < crow_count() && n < 64; j++)
        if (crow_canon(j) == i)
            owners[n++] = crow_owner_name(j);
    char *list = cfg_join(owners, n);
    const cfg_param_info *p = crow_at(i);
    char *tp = p->owner == CFG_OWN_NET ? tn_xstrdup("network.type") : msg_path(c, "workload.type", k);
    /* the types the sweep does use: an axis's values, else the one given */
    char types[512];
    int ta = cfg_axis_of(c, tp);
    if (ta < 0 && p->owner != CFG_OWN_NET && c->nwl == 1)
        ta = cfg_axis_of(c, "workload.type");
    if (ta >= 0 && !c->point) {
        size_t l = 0;
        types[0] = '\0';
        for (size_t v = 0; v < c->axes[ta].nvalues && l < sizeof types; v++)
            l += (size_t)snprintf(types + l, sizeof types - l, "%s%s",
                                  v ? (v + 1 == c->axes[ta].nvalues ? " or " : ", ") : "", c->axes[ta].values[v]);
    } else {
        snprintf(types, sizeof types, "%s", p->owner == CFG_OWN_NET ? c->net_type : c->wl[k].type);
    }
    char *m = cfg_format("applies to %s, and %s is %s%s", list, tp, types, every);
    free(tp);
    free(list);
    return m;
}

void cfg_sweep_check(const cfg *c, ectx *ec)
{
    for (size_t i = 0; i < crow_count(); i++) {
        if (crow_canon(i) != i)
            continue;
        size_t nk = crow_is_wl(i) ? c->nwl : 1;
        for (size_t k = 0; k < nk; k++) {
            if (!*crow_given(c, i, k))
                continue;
            char *why = not_applied(c, i, k);
            if (why)
                x_invalid(c, ec, k, crow_at(i)->row->path, "%s", why);
            free(why);
        }
    }
    /* a swept parameter that changes nothing is refused as a given one is */
    for (size_t a = 0; a < c->naxes; a++) {
        long row;
        size_t k;
        char err[512];
        if (crow_resolve(c, c->axes[a].param, &row, &k, err, sizeof err) != 0 || row < 0)
            continue;
        size_t i = crow_canon((size_t)row);
        if (*crow_given(c, i, k))
            continue; /* reported above */
        char *why = not_applied(c, i, k);
        if (!why)
            continue;
        if (ec->mode == EC_LOAD && ec->ld->axis_node[a]) {
            ec->n++;
            ld_err_at_attr(ec->ld, ec->ld->axis_node[a], "param", c->axes[a].param, "axis %s: %s", c->axes[a].param,
                           why);
        } else {
            ec_emit(ec, cfg_format("axis %s: %s", c->axes[a].param, why));
        }
        free(why);
    }
}

void cfg_check_points(const cfg *c, ectx *ec)
{
    if (!c->point)
        cfg_sweep_check(c, ec);
    if (c->point || c->naxes == 0) {
        cfg_cross_check(c, ec);
        return;
    }
    size_t np = cfg_points(c);
    for (size_t p = 0; p < np; p++) {
        cfg pc;
        char err[1024];
        if (cfg_build_point(c, p, &pc, err, sizeof err) != 0) {
            if (ec->mode == EC_LOAD)
                continue; /* the axis value was reported where it is written */
            ec_emit(ec, cfg_format("sweep point %zu: %s", p, err));
            continue;
        }
        cfg_cross_check(&pc, ec);
        cfg_free(&pc);
    }
}

int cfg_point_warning(const cfg *c, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    int uses = c->tp.type != 0, telemetry = 0;
    for (size_t k = 0; k <= c->nwl; k++) {
        /* workload.transport: type + 1, 1 = none; k = nwl: the <transport> */
        int type = k < c->nwl ? (c->wl[k].transport > 0 ? c->wl[k].transport - 1 : c->tp.type) : c->tp.type;
        uses |= type > 0;
        /* an INT transport's segments carry transport.int-header too (transport.c's seg_extra) */
        if (type > 0 && (size_t)type < tp_count() && tp_registry[type]->telemetry)
            telemetry = 1;
    }
    long row;
    size_t k;
    char err[512];
    if (!uses || crow_resolve(c, "network.mtu", &row, &k, err, sizeof err) != 0 || row < 0)
        return 0;
    const param_row *r = crow_at((size_t)row)->row;
    if (r->kind != PARAM_BYTES)
        return 0;
    uint64_t mtu;
    memcpy(&mtu, (const char *)crow_block(c, (size_t)row, k) + r->off, sizeof mtu);
    uint64_t extra = c->tp.header_bytes + (telemetry ? c->tp.int_bytes : 0), seg = c->tp.mss_bytes + extra;
    if (mtu == 0 || seg <= mtu)
        return 0;
    char intb[64] = "";
    if (telemetry)
        snprintf(intb, sizeof intb, " + transport.int-header %llu B", (unsigned long long)c->tp.int_bytes);
    snprintf(buf, len,
             "a transport segment is %llu B (transport.mss %llu B + transport.header %llu B%s), more than "
             "network.mtu %llu B: the host NIC sends each full segment as %llu packets, which the switch ports "
             "queue, mark and drop one by one (set mtu to at least %llu B, or mss to at most %llu B)",
             (unsigned long long)seg, (unsigned long long)c->tp.mss_bytes, (unsigned long long)c->tp.header_bytes,
             intb, (unsigned long long)mtu, (unsigned long long)((seg + mtu - 1) / mtu), (unsigned long long)seg,
             (unsigned long long)(mtu > extra ? mtu - extra : 0));
    return 1;
}

int cfg_check(const cfg *c, cfg_errors *errs)
{
    ectx ec = {.mode = EC_LIST, .errs = errs, .first = errs->n, .file = c->file};
    cfg_check_points(c, &ec);
    return ec.n ? -1 : 0;
}

/* A point of a sweep, built (config_axes.c) and cross-checked. */
int cfg_point(const cfg *base, size_t i, cfg *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (base->point) {
        if (i != 0)
            return tn_error(err, errlen, "a sweep point has one point (asked for %zu)", i);
        cfg_copy(out, base);
        return 0;
    }
    size_t np = cfg_points(base);
    if (i >= np)
        return tn_error(err, errlen, "sweep point %zu out of range (%zu points)", i, np);
    if (cfg_build_point(base, i, out, err, errlen) != 0)
        return -1;
    ectx ec = {.mode = EC_FIRST, .buf = err, .buflen = errlen};
    cfg_cross_check(out, &ec);
    if (ec.n) {
        cfg_free(out);
        return -1;
    }
    return 0;
}
