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

#include "log.h"

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

/* The alternative of row r that c can use instead (its owner selected), or -1. */
static long usable_alt(const cfg *c, const param_row *r)
{
    if (!r->alt)
        return -1;
    long a = crow_for(c, r->alt);
    return a >= 0 && crow_selected(c, (size_t)a) ? a : -1;
}

/* A required parameter (or one of a pair) is missing. */
static void x_missing(const cfg *c, ectx *ec, const char *path, const char *reason)
{
    long ri = crow_for(c, path);
    if (ri < 0) {
        ec_emit(ec, cfg_format("missing %s (%s)", path, reason));
        return;
    }
    const param_row *r = crow_at((size_t)ri)->row;
    long ai = usable_alt(c, r);
    const param_row *alt = ai >= 0 ? crow_at((size_t)ai)->row : NULL;
    const char *ex = r->example ? r->example : "...";
    if (ec->mode != EC_LOAD) {
        if (alt)
            ec_emit(ec, cfg_format("missing %s or %s (%s; e.g. %s=%s)", path, alt->path, reason, path, ex));
        else
            ec_emit(ec, cfg_format("missing %s (%s; e.g. %s=%s)", path, reason, path, ex));
        return;
    }
    loader *ld = ec->ld;
    if (ld->failed[crow_canon((size_t)ri)] || (ai >= 0 && ld->failed[crow_canon((size_t)ai)]))
        return; /* its value was rejected: already reported */
    ec->n++;
    int e = crow_elem((size_t)ri);
    if (ld->el[e]) {
        if (alt)
            ld_err_at_attr(ld, ld->el[e], NULL, NULL, "missing attribute %s or %s (%s; e.g. %s=\"%s\")",
                           param_attr(r), param_attr(alt), reason, param_attr(r), ex);
        else
            ld_err_at_attr(ld, ld->el[e], NULL, NULL, "missing attribute %s (%s; e.g. %s=\"%s\")", param_attr(r),
                           reason, param_attr(r), ex);
        return;
    }
    /* The element itself is absent: report the outermost absent one, once. */
    while (celem_at((size_t)e)->parent >= 0 && !ld->el[celem_at((size_t)e)->parent])
        e = celem_at((size_t)e)->parent;
    int parent = celem_at((size_t)e)->parent;
    if (parent < 0 || !ld->el[parent])
        return; /* no root: reported by the walk */
    char *hint = celem_hint(e);
    ld_err_at_elem(ld, ld->el[parent], "<%s>: missing <%s> element (%s)", celem_at((size_t)parent)->name,
                   celem_at((size_t)e)->name, hint);
    free(hint);
}

/* A parameter's value is wrong in combination with others. */
static void x_invalid(const cfg *c, ectx *ec, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void x_invalid(const cfg *c, ectx *ec, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = cfg_vformat(fmt, ap);
    va_end(ap);
    long ri = crow_for(c, path);
    if (ec->mode != EC_LOAD || ri < 0) {
        if (ec->mode == EC_LOAD && ec->ld->el[CE_ROOT]) {
            ec->n++;
            ld_err_at_elem(ec->ld, ec->ld->el[CE_ROOT], "%s: %s", path, body);
        } else {
            ec_emit(ec, cfg_format("%s: %s", path, body));
        }
        free(body);
        return;
    }
    loader *ld = ec->ld;
    if (ld->failed[crow_canon((size_t)ri)]) {
        free(body);
        return;
    }
    ec->n++;
    int e = crow_elem((size_t)ri);
    xmlNodePtr n = ld->el[e];
    const char *attr = param_attr(crow_at((size_t)ri)->row);
    char *v = n ? ld_prop_of(n, attr) : NULL;
    if (v) {
        ld_err_at_attr(ld, n, attr, v, "%s", body);
        free(v);
    } else if (n) {
        ld_err_at_elem(ld, n, "<%s>: %s", celem_at((size_t)e)->name, body);
    } else if (ld->el[CE_ROOT]) {
        ld_err_at_elem(ld, ld->el[CE_ROOT], "%s: %s", path, body);
    }
    free(body);
}

/* A plugin's param_report, placed by x_invalid / x_missing. */
typedef struct report_ctx {
    const cfg *c;
    ectx *ec;
} report_ctx;

static void rep_invalid(void *ctx, const char *path, const char *msg)
{
    report_ctx *r = ctx;
    x_invalid(r->c, r->ec, path, "%s", msg);
}

static void rep_missing(void *ctx, const char *path, const char *why)
{
    report_ctx *r = ctx;
    x_missing(r->c, r->ec, path, why);
}

void cfg_cross_check(const cfg *c, ectx *ec)
{
    report_ctx rc = {c, ec};
    param_report rep = {.invalid = rep_invalid, .missing = rep_missing, .ctx = &rc};
    const net_ops *nops = cfg_net(c);
    const wl_ops *wops = cfg_wl(c);
    if (!nops) {
        char err[512];
        net_name_ok(c->net_type, err, sizeof err);
        x_invalid(c, ec, "network.type", "%s", err);
    }
    if (!wops) {
        char err[512];
        wl_name_ok(c->wl_type, err, sizeof err);
        x_invalid(c, ec, "workload.type", "%s", err);
    }
    /* the rows' own rules, for the rows that apply at this point */
    for (size_t i = 0; i < crow_count(); i++) {
        if (!crow_selected(c, i))
            continue;
        const param_row *r = crow_at(i)->row;
        const void *blk = crow_block(c, i);
        long ai = usable_alt(c, r);
        int alt_set = ai >= 0 && param_is_set(crow_block(c, (size_t)ai), crow_at((size_t)ai)->row);
        if (param_is_set(blk, r)) {
            /* both of an exclusive pair: report it once, at the later row */
            if (alt_set && (size_t)ai < i)
                x_invalid(c, ec, r->path, "give either %s or %s, not both", r->alt, r->path);
        } else if ((r->flags & PARAM_REQUIRED) && !alt_set && !(ai >= 0 && (size_t)ai < i)) {
            x_missing(c, ec, r->path, r->help);
        }
    }
    net_params core = c->net;
    core.nodes = c->nodes;
    phy_params_check(&c->phy, &rep);
    /* a fabric's rules involve N: without a valid N they would only echo its error */
    if (nops && nops->check && c->nodes >= 2)
        nops->check(&core, cfg_net_params(c), &rep);
    if (wops && wops->check)
        wops->check(&core, cfg_wl_params(c), &rep);
    if (!(c->confidence > 0 && c->confidence < 1))
        x_invalid(c, ec, "run.confidence", "the confidence level must be between 0 and 1 (e.g. 0.99), not %g",
                  c->confidence);
    if (c->replicas < 1)
        x_invalid(c, ec, "run.replicas", "must be at least 1");
}

void cfg_sweep_check(const cfg *c, ectx *ec)
{
    for (size_t i = 0; i < crow_count(); i++) {
        if (crow_canon(i) != i || !c->given[i])
            continue;
        int used = 0;
        for (size_t k = i; k < crow_count() && !used; k++)
            used = crow_canon(k) == i && crow_used(c, k);
        if (used)
            continue;
        /* the owners that would use it */
        const char *owners[64];
        size_t n = 0;
        for (size_t k = i; k < crow_count() && n < 64; k++)
            if (crow_canon(k) == i)
                owners[n++] = crow_owner_name(k);
        char *list = cfg_join(owners, n);
        const cfg_param_info *p = crow_at(i);
        x_invalid(c, ec, p->row->path, "applies to %s, and %s is %s%s", list,
                  p->owner == CFG_OWN_NET ? "network.type" : "workload.type",
                  p->owner == CFG_OWN_NET ? c->net_type : c->wl_type,
                  c->naxes ? " at every point of the sweep" : "");
        free(list);
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

int cfg_check(const cfg *c, cfg_errors *errs)
{
    ectx ec = {.mode = EC_LIST, .errs = errs, .first = errs->n, .file = c->file};
    cfg_check_points(c, &ec);
    return ec.n ? -1 : 0;
}
