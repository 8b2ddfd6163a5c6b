/* Loading a configuration file. Checks in three layers, reporting every
 * problem:
 *  1. the XML parser (well-formedness), with its own line:col;
 *  2. a walk of the document against the composed rows (unknown elements
 *     and attributes, units, ranges, distributions, sweep axes), then the
 *     cross-checks of every sweep point (required parameters, exclusions,
 *     each plugin's own check);
 *  3. the closed RELAX NG schema (config_schema.c, made from the same rows).
 *     It is authoritative, but its messages are poor, so its errors on
 *     elements the walk already reported are dropped and the others are
 *     reworded.
 * Positions in the file and the errors placed at them: config_where.c. */
#include "config_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "infile.h"
#include "log.h"


static size_t elem_attrs(int e, const char ***out)
{
    size_t n = 0, cap = crow_count() + 4;
    const char **names = tn_xmalloc(cap * sizeof *names);
    if (e == CE_ROOT) {
        names[n++] = "version";
        names[n++] = "base";
    }
    if (e == celem_axis()) {
        names[n++] = "param";
        names[n++] = "values";
        names[n++] = "with";
    }
    for (size_t i = 0; i < crow_count(); i++)
        if (crow_canon(i) == i && crow_elem(i) == e)
            names[n++] = param_attr(crow_at(i)->row);
    *out = names;
    return n;
}

static void unknown_attr(loader *ld, xmlNodePtr n, int e, xmlAttrPtr a)
{
    const char **names;
    size_t k = elem_attrs(e, &names);
    const char *name = (const char *)a->name;
    char *v = ld_prop(a);
    char *list = cfg_join(names, k);
    const char *near = cfg_closest(name, names, k);
    char qname[128];
    if (a->ns && a->ns->prefix)
        snprintf(qname, sizeof qname, "%s:%s", (const char *)a->ns->prefix, name);
    else
        snprintf(qname, sizeof qname, "%s", name);
    if (k == 0)
        ld_err_at_attr(ld, n, qname, v, "unknown attribute (<%s> takes none)", celem_at((size_t)e)->name);
    else if (near && !a->ns)
        ld_err_at_attr(ld, n, qname, v, "unknown attribute (did you mean %s? expected one of: %s)", near, list);
    else
        ld_err_at_attr(ld, n, qname, v, "unknown attribute (expected one of: %s)", list);
    ld->structural = 1;
    free(list);
    free(names);
    free(v);
}

/* The row of attribute `name` of element e, or -1. */
static long attr_row(int e, const char *name)
{
    for (size_t i = 0; i < crow_count(); i++)
        if (crow_canon(i) == i && crow_elem(i) == e && strcmp(param_attr(crow_at(i)->row), name) == 0)
            return (long)i;
    return -1;
}

static void param_attrs(loader *ld, xmlNodePtr n, int e)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next) {
        long ri = a->ns ? -1 : attr_row(e, (const char *)a->name);
        if (ri < 0) {
            unknown_attr(ld, n, e, a);
            continue;
        }
        const param_row *r = crow_at((size_t)ri)->row;
        /* a workload's element: the workload being walked; a workload type's
         * parameter elsewhere (network.zeta): the workload of that type */
        size_t k = celem_in_workload(e) ? ld->cur : crow_is_wl((size_t)ri) ? crow_wl_home(ld->c, (size_t)ri) : 0;
        char *v = ld_prop(a);
        long ai = r->alt ? crow_find(r->alt) : -1;
        if (ai >= 0 && crow_elem((size_t)ai) == e && xmlHasProp(n, (const xmlChar *)param_attr(crow_at((size_t)ai)->row)) &&
            ai < ri) {
            ld_err_at_attr(ld, n, param_attr(r), v, "give either %s or %s, not both",
                           param_attr(crow_at((size_t)ai)->row), param_attr(r));
            ld->failed[k][ri] = ld->failed[k][ai] = 1;
            free(v);
            continue;
        }
        char err[1024];
        if (crow_set(ld->c, (size_t)ri, k, v, err, sizeof err) != 0) {
            ld->failed[k][ri] = 1;
            /* reported after the walk, unless the command line or an axis replaces it (ld_release) */
            if (ld->nheld == ld->capheld) {
                ld->capheld = ld->capheld ? 2 * ld->capheld : 8;
                ld->held = tn_xrealloc(ld->held, ld->capheld * sizeof *ld->held);
            }
            ld->held[ld->nheld++] = (struct ld_held){n, param_attr(r), tn_xstrdup(v), tn_xstrdup(err), k, (size_t)ri};
        } else {
            long line, col;
            ld_attr_loc(ld, n, param_attr(r), &line, &col);
            crow_set_pos(ld->c, (size_t)ri, k, line, col);
        }
        free(v);
    }
}

/* Path names canonical row ri of workload k. */
static int names_row(const cfg *c, const char *path, size_t ri, size_t k)
{
    long r;
    size_t rk;
    char err[1024];
    return path && crow_resolve(c, path, &r, &rk, err, sizeof err) == 0 && r >= 0 && crow_canon((size_t)r) == ri &&
           (!crow_is_wl(ri) || rk == k);
}

/* The file's values that the walk rejected (param_attrs held them): one
 * that no run uses is not the file's problem, and is dropped: the command
 * line gives it again (`--set workload.file=run7.vef` over a template's
 * placeholder that does not exist, `--set network.bandwidth=10Gb/s` over a
 * wrong one; the option's value is checked in its place), or an axis sends
 * every point a value of its own (an axis with a "-" value leaves some
 * point the file's). The others are reported where they are. */
static void ld_release(loader *ld)
{
    for (size_t h = 0; h < ld->nheld; h++) {
        struct ld_held *x = &ld->held[h];
        int replaced = 0;
        for (size_t i = 0; i < ld->ncli && !replaced; i++)
            replaced = names_row(ld->c, ld->cli[i].path, x->ri, x->k);
        for (size_t a = 0; a < ld->c->naxes && !replaced; a++) {
            const cfg_axis *ax = &ld->c->axes[a];
            int unset = 0;
            for (size_t v = 0; v < ax->nvalues; v++)
                unset |= strcmp(ax->values[v], CFG_AXIS_UNSET) == 0;
            replaced = !unset && ax->nvalues > 0 && names_row(ld->c, ax->param, x->ri, x->k);
        }
        if (replaced)
            ld->failed[x->k][x->ri] = 0;
        else
            ld_err_at_attr(ld, x->node, x->attr, x->value, "%s", x->err);
        free(x->value);
        free(x->err);
    }
    free(ld->held);
    ld->held = NULL;
    ld->nheld = ld->capheld = 0;
}

static char *trimmed_content(xmlNodePtr n)
{
    xmlChar *s = xmlNodeGetContent(n);
    char *t = tn_xstrdup_trim(s ? (const char *)s : "");
    xmlFree(s);
    return t;
}

static void add_value(char ***vals, size_t *n, size_t *cap, char *v)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *vals = tn_xrealloc(*vals, *cap * sizeof **vals);
    }
    (*vals)[(*n)++] = v;
}

static void walk_children(loader *ld, xmlNodePtr n, int e);
static void walk_elem(loader *ld, xmlNodePtr n, int e);

static void walk_axis(loader *ld, xmlNodePtr n)
{
    char *param = NULL, *values = NULL, *with = NULL;
    for (xmlAttrPtr a = n->properties; a; a = a->next) {
        if (!a->ns && strcmp((const char *)a->name, "param") == 0) {
            param = ld_prop(a);
        } else if (!a->ns && strcmp((const char *)a->name, "with") == 0) {
            with = ld_prop(a);
        } else if (!a->ns && strcmp((const char *)a->name, "values") == 0) {
            values = ld_prop(a);
        } else {
            unknown_attr(ld, n, celem_axis(), a);
        }
    }
    /* the values, with the node and attribute to report each at */
    char **vals = NULL;
    xmlNodePtr *vnode = NULL;
    size_t nv = 0, cap = 0, nchild = 0;
    for (xmlNodePtr k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && !k->ns && strcmp((const char *)k->name, "value") == 0)
            nchild++;
    vnode = tn_xmalloc((nchild + 1) * sizeof *vnode);
    if (values) {
        const char *p = values;
        for (;;) {
            while (tn_is_space(*p))
                p++;
            if (!*p)
                break;
            size_t l = 0;
            while (p[l] && !tn_is_space(p[l]))
                l++;
            char *v = tn_xmalloc(l + 1);
            memcpy(v, p, l);
            v[l] = '\0';
            add_value(&vals, &nv, &cap, v);
            p += l;
        }
    }
    size_t nvattr = nv, iv = 0;
    for (xmlNodePtr k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE)
            continue;
        if (k->ns || strcmp((const char *)k->name, "value") != 0)
            continue; /* reported by walk_children */
        for (xmlAttrPtr a = k->properties; a; a = a->next)
            unknown_attr(ld, k, celem_value(), a);
        for (xmlNodePtr g = k->children; g; g = g->next)
            if (g->type == XML_ELEMENT_NODE) {
                ld_err_at_elem(ld, g, "unknown element <%s> in <value> (it holds text only)", (const char *)g->name);
                ld->structural = 1;
            }
        vnode[iv++] = k;
        add_value(&vals, &nv, &cap, trimmed_content(k));
    }
    walk_children(ld, n, celem_axis());

    const param_row *r = NULL;
    long ri = -1;
    size_t rk = 0;
    char rerr[4096];
    int bad = 0;
    if (!param) {
        ld_err_at_attr(ld, n, NULL, NULL, "missing attribute param (the parameter to sweep, e.g. param=\"system.nodes\")");
        bad = 1;
    } else if (crow_resolve(ld->c, param, &ri, &rk, rerr, sizeof rerr) != 0) {
        ld_err_at_attr(ld, n, "param", param, "%s", rerr);
        bad = 1;
    } else if ((r = crow_at((size_t)ri)->row), strcmp(r->path, "run.replicas") == 0 || strcmp(r->path, "run.seed") == 0) {
        /* every point has the same replicas, and its own streams from
         * (seed, point, replica): neither varies from point to point */
        ld_err_at_attr(ld, n, "param", param,
                    "%s cannot be swept: it applies to the whole sweep (set it in <run> or with "
                    "--%s; every point already draws its own random streams)",
                    r->path, strcmp(r->path, "run.seed") == 0 ? "seed" : "replicas");
        r = NULL;
        bad = 1;
    }
    if (values && nchild) {
        ld_err_at_attr(ld, n, "values", values, "give either values=\"...\" or <value> children, not both");
        bad = 1;
    } else if (nv == 0) {
        if (values)
            ld_err_at_attr(ld, n, "values", values, "no values (whitespace-separated, e.g. values=\"1 2 4\")");
        else
            ld_err_at_attr(ld, n, NULL, NULL,
                        "no values (give values=\"1 2 4\", or <value> children for values "
                        "holding spaces)");
        bad = 1;
    }
    if (r) {
        for (size_t a = 0; a < ld->c->naxes; a++)
            if (strcmp(ld->c->axes[a].param, param) == 0) {
                long line, col;
                ld_elem_loc(ld, ld->axis_node[a], &line, &col);
                ld_err_at_attr(ld, n, "param", param, "%s is already swept by the axis at line %ld",
                            param, line);
                bad = 1;
                break;
            }
    }
    if (r && !bad) {
        for (size_t i = 0; i < nv; i++) {
            char err[1024];
            /* "-" in an axis varying with another: the parameter is not set at
             * that point (a fabric's parameter where another fabric runs) */
            if (with && strcmp(vals[i], CFG_AXIS_UNSET) == 0)
                continue;
            /* a value some owner of the path takes (network.routing: each
             * topology its own choices); each point's owner is checked
             * with the point (cfg_cross_check) */
            if (crow_parse_any(ld->c, crow_canon((size_t)ri), rk, vals[i], err, sizeof err) != 0) {
                char *tag = ld_tag_text("axis", "param", param);
                long line, col;
                if (i < nvattr)
                    ld_attr_loc(ld, n, "values", &line, &col);
                else
                    ld_elem_loc(ld, vnode[i - nvattr], &line, &col);
                ld_add_err(ld, line, col, n, cfg_format("%s: value '%s': %s", tag, vals[i], err));
                free(tag);
                bad = 1;
            }
        }
    }
    int lead = -1;
    if (with && !bad) {
        lead = cfg_axis_of(ld->c, with);
        int lead_failed = 0;
        for (size_t a = 0; a < ld->nfailed_axes; a++)
            lead_failed |= strcmp(ld->failed_axes[a], with) == 0;
        if (lead < 0 && lead_failed) {
            bad = 1; /* its axis was reported already */
        } else if (lead < 0) {
            ld_err_at_attr(ld, n, "with", with,
                        "no earlier axis sweeps '%s' (with=\"PARAM\" names the param of an axis above "
                        "this one, whose values this axis follows one by one)", with);
            bad = 1;
        } else {
            lead = (int)cfg_axis_lead(ld->c, (size_t)lead);
            if (ld->c->axes[lead].nvalues != nv) {
                ld_err_at_attr(ld, n, "with", with,
                            "this axis has %zu values and the axis of %s has %zu: axes that vary "
                            "together need as many values", nv, ld->c->axes[lead].param,
                            ld->c->axes[lead].nvalues);
                bad = 1;
            }
        }
    }
    if (!bad && ld->c->naxes == CFG_MAX_AXES) {
        ld_err_at_attr(ld, n, NULL, NULL, "too many axes (at most %d)", CFG_MAX_AXES);
        bad = 1;
    }
    if (!bad) {
        double points = (double)cfg_points(ld->c) * (lead >= 0 ? 1.0 : (double)nv);
        if (points > CFG_MAX_POINTS) {
            ld_err_at_attr(ld, n, NULL, NULL, "the sweep would have %.6g points (at most %.0f)", points,
                        CFG_MAX_POINTS);
            bad = 1;
        }
    }
    if (bad) {
        ld->axis_failed = 1;
        if (param) {
            ld->failed_axes = tn_xrealloc(ld->failed_axes, (ld->nfailed_axes + 1) * sizeof *ld->failed_axes);
            ld->failed_axes[ld->nfailed_axes++] = tn_xstrdup(param);
        }
        for (size_t i = 0; i < nv; i++)
            free(vals[i]);
        free(vals);
    } else {
        cfg_axis *ax = &ld->c->axes[ld->c->naxes];
        ld->axis_node[ld->c->naxes] = n;
        ld->c->naxes++;
        long line, col;
        ld_attr_loc(ld, n, "param", &line, &col);
        ax->line = line > 0 ? (uint32_t)line : 0;
        ax->col = col > 0 ? (uint32_t)col : 0;
        snprintf(ax->param, sizeof ax->param, "%s", param);
        ax->values = vals;
        ax->nvalues = nv;
        ax->with[0] = '\0';
        if (lead >= 0)
            snprintf(ax->with, sizeof ax->with, "%s", ld->c->axes[lead].param);
    }
    free(vnode);
    free(param);
    free(with);
    free(values);
}

static void walk_elem(loader *ld, xmlNodePtr n, int e)
{
    if (e == celem_workload()) {
        /* each <workload> is a workload of its own, in document order */
        if (ld->nwl_seen > 0) {
            char err[256];
            long k = cfg_add_workload(ld->c, "", err, sizeof err);
            if (k < 0) {
                ld_err_at_elem(ld, n, "%s", err);
                ld->structural = 1;
                return;
            }
        }
        ld->cur = ld->nwl_seen++;
    }
    size_t k = celem_in_workload(e) ? ld->cur : 0;
    if (ld->el[k][e] == NULL)
        ld->el[k][e] = n;
    if (e == celem_axis()) {
        walk_axis(ld, n);
        return;
    }
    if (e == CE_ROOT) {
        int version = 0;
        for (xmlAttrPtr a = n->properties; a; a = a->next) {
            if (!a->ns && strcmp((const char *)a->name, "version") == 0) {
                char *v = ld_prop(a);
                char *t = tn_xstrdup_trim(v);
                if (strcmp(t, "1") != 0)
                    ld_err_at_attr(ld, n, "version", v, "unsupported version (this tasknet reads version 1)");
                version = 1;
                free(t);
                free(v);
            } else if (!a->ns && strcmp((const char *)a->name, "base") == 0) {
                /* the folder relative paths are from, in place of the file's
                 * (cfg_write_xml writes it beside axis values written as given) */
                char *v = ld_prop(a);
                if (v[0] != '/')
                    ld_err_at_attr(ld, n, "base", v, "expected an absolute folder (relative paths in the file are "
                                   "from it instead of the file's folder)");
                else if (strlen(v) >= sizeof ld->c->basedir)
                    ld_err_at_attr(ld, n, "base", v, "longer than %zu characters", sizeof ld->c->basedir - 1);
                else
                    snprintf(ld->c->basedir, sizeof ld->c->basedir, "%s", v);
                free(v);
            } else {
                unknown_attr(ld, n, e, a);
            }
        }
        if (!version)
            ld_err_at_elem(ld, n, "<tasknet>: missing attribute version=\"1\"");
    } else if (celem_at((size_t)e)->prefix[0]) {
        param_attrs(ld, n, e);
    } else {
        for (xmlAttrPtr a = n->properties; a; a = a->next)
            unknown_attr(ld, n, e, a);
    }
    walk_children(ld, n, e);
}

/* The root's children in three passes: the workloads first (their names
 * and types decide where the other elements' workload parameters and the
 * sweep's axes go), then the others, then the sweep; below the root, one
 * pass. Reports are sorted by position in the file afterwards. */
static void walk_children(loader *ld, xmlNodePtr n, int e)
{
    xmlNodePtr seen[CFG_MAX_ELEMS] = {0};
    const char *ename = celem_at((size_t)e)->name;
    int passes = e == CE_ROOT ? 3 : 1;
    for (int pass = 0; pass < passes; pass++)
    for (xmlNodePtr k = n->children; k; k = k->next) {
        if (e == CE_ROOT && k->type == XML_ELEMENT_NODE && !k->ns) {
            int kw = celem_find_child(CE_ROOT, (const char *)k->name);
            int want = kw == celem_workload() ? 0 : kw == celem_sweep() ? 2 : 1;
            if (want != pass)
                continue;
        } else if (e == CE_ROOT ? pass != 1 : pass != 0) {
            continue; /* text, entities and foreign elements: once, in the middle pass */
        }
        if (k->type == XML_ENTITY_REF_NODE) {
            /* its elements would be invisible to both the walk and the schema */
            ld_err_at_elem(ld, n, "<%s>: entity reference &%s; in element content (write its content out)", ename,
                           (const char *)k->name);
            ld->structural = 1;
            continue;
        }
        if (k->type != XML_ELEMENT_NODE)
            continue; /* text is the schema's business */
        int ke = k->ns ? -1 : celem_find_child(e, (const char *)k->name);
        if (e == celem_axis() && ke == celem_value())
            continue; /* read by walk_axis */
        if (ke < 0) {
            const char *names[CFG_MAX_ELEMS];
            size_t m = 0;
            for (size_t i = 0; i < celem_count(); i++)
                if (celem_at(i)->parent == e)
                    names[m++] = celem_at(i)->name;
            char *list = cfg_join(names, m);
            const char *near = cfg_closest((const char *)k->name, names, m);
            if (m == 0)
                ld_err_at_elem(ld, k, "unknown element <%s> in <%s> (<%s> takes no elements)", (const char *)k->name,
                               ename, ename);
            else if (near)
                ld_err_at_elem(ld, k, "unknown element <%s> in <%s> (did you mean <%s>? expected one of: %s)",
                               (const char *)k->name, ename, near, list);
            else
                ld_err_at_elem(ld, k, "unknown element <%s> in <%s> (expected one of: %s)", (const char *)k->name,
                               ename, list);
            free(list);
            ld->structural = 1;
            continue;
        }
        if (!celem_at((size_t)ke)->many && seen[ke]) {
            long line, col;
            ld_elem_loc(ld, seen[ke], &line, &col);
            ld_err_at_elem(ld, k, "<%s> given twice in <%s> (first at line %ld)", celem_at((size_t)ke)->name, ename,
                           line);
            ld->structural = 1;
            continue;
        }
        seen[ke] = k;
        walk_elem(ld, k, ke);
    }
}

/* Entities expand without bound in libxml2 2.9 when flat: one 100 kB
 * entity referenced 3,000 times in an attribute is 300 MB of text, parsed
 * for hours (nested expansion, "billion laughs", is caught; this is not).
 * Every reference is looked up through getEntity, so the expansion is
 * counted there and the parse stopped past a bound no configuration comes
 * near (an entity is a short value such as a rate, written once). */
#define LD_MAX_EXPANSION (1024 * 1024)
typedef struct ent_budget {
    xmlEntityPtr (*get)(void *ctx, const xmlChar *name);
    size_t expanded, refs;
    int over;
} ent_budget;

static xmlEntityPtr ld_get_entity(void *ctx, const xmlChar *name)
{
    xmlParserCtxtPtr p = ctx;
    ent_budget *b = p->_private;
    xmlEntityPtr e = b->get(ctx, name);
    if (!e || b->over)
        return b->over ? NULL : e;
    b->refs++;
    b->expanded += e->length > 0 ? (size_t)e->length : 0;
    if (b->expanded > LD_MAX_EXPANSION) {
        b->over = 1;
        xmlStopParser(p);
        return NULL;
    }
    return e;
}

static void xml_silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}


/* "-" is standard input (`tasknet validate -`). A configuration is a few
 * kB: a file or standard input holding more than TN_STDIN_MAX is refused
 * once that much is read, and a device, pipe or folder named as the file
 * is refused before reading (/dev/zero was read at 450 MB/s without end).
 * 0, or an errno value with *why set. */
static int read_file(const char *path, char **text, size_t *len, char *why, size_t whylen)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : tn_open_input(path, "rb", why, whylen);
    if (!f) {
        int e = errno ? errno : EIO;
        if (e != EINVAL) /* the message names the file already */
            snprintf(why, whylen, "cannot read: %s", strerror(e));
        return e;
    }
    int e = tn_read_all(f, TN_STDIN_MAX, text, len);
    if (!is_stdin)
        fclose(f);
    if (e == EFBIG)
        snprintf(why, whylen, "%s holds more than %zu MB: a configuration is a few kB",
                 is_stdin ? "standard input" : "the file", TN_STDIN_MAX / (1024 * 1024));
    else if (e)
        snprintf(why, whylen, "cannot read: %s", strerror(e));
    return e;
}

static int cmp_lerr(const void *pa, const void *pb)
{
    const lerr *a = pa, *b = pb;
    /* unlocated errors last */
    long la = a->line ? a->line : LONG_MAX, lb = b->line ? b->line : LONG_MAX;
    if (la != lb)
        return la < lb ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The name messages use for a configuration file: standard input is "<stdin>". */
static const char *display_name(const char *path) { return strcmp(path, "-") == 0 ? "<stdin>" : path; }

static void set_paths(cfg *c, const char *path)
{
    snprintf(c->file, sizeof c->file, "%s", display_name(path));
    if (strcmp(path, "-") == 0) {
        snprintf(c->basedir, sizeof c->basedir, "."); /* relative files: from the working folder */
        return;
    }
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(c->basedir, sizeof c->basedir, ".");
    else if (slash == path)
        snprintf(c->basedir, sizeof c->basedir, "/");
    else
        snprintf(c->basedir, sizeof c->basedir, "%.*s", (int)(slash - path), path);
}

/* Two reports of one problem: the same text, or an axis's refusal of the
 * same value for the same reason at another point (an option that drops an
 * axis renumbers the points: "value 'v' at sweep point N (...): why"). */
static int same_problem(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    static const char at[] = " at sweep point ";
    const char *pa = strstr(a, at), *pb = strstr(b, at);
    if (!pa || !pb || pa - a != pb - b || strncmp(a, b, (size_t)(pa - a)) != 0)
        return 0;
    const char *ta = strstr(pa, "): "), *tb = strstr(pb, "): ");
    return ta && tb && strcmp(ta, tb) == 0;
}

/* The checks of every sweep point (config_check.c), placing each problem. */
static void ld_checks(loader *ld)
{
    ectx ec = {.mode = EC_LOAD, .ld = ld};
    if (ld->axis_failed) {
        /* the swept values are unusable: check what does not depend on them */
        size_t naxes = ld->c->naxes;
        ld->c->naxes = 0;
        cfg_sweep_check(ld->c, &ec);
        cfg_cross_check(ld->c, &ec);
        ld->c->naxes = naxes;
    } else {
        cfg_check_points(ld->c, &ec);
    }
}

/* Apply the command line's values to the walked configuration (before any
 * check), remember which row each set, and drop the axes over them, the
 * loader's axis nodes following their axes. 1, or 0 when one was refused
 * (in ld->cli_errs). */
static int ld_apply_cli(loader *ld)
{
    int ok = 1;
    for (size_t i = 0; i < ld->ncli; i++) {
        const cfg_cli_value *v = &ld->cli[i];
        char err[1024];
        if (!v->path) {
            cfg_errors_add(&ld->cli_errs, "error: %s: expected PATH=VALUE", v->label);
            ok = 0;
            continue;
        }
        if (cfg_set(ld->c, v->path, v->value ? v->value : "", err, sizeof err) != 0) {
            cfg_errors_add(&ld->cli_errs, "error: %s: %s", v->label, err);
            ok = 0;
            continue;
        }
        long r;
        size_t k;
        if (crow_resolve(ld->c, v->path, &r, &k, err, sizeof err) == 0 && r >= 0) {
            size_t canon = crow_canon((size_t)r);
            if (i + 1 < UINT16_MAX)
                ld->cli_row[crow_is_wl(canon) ? k : 0][canon] = (uint16_t)(i + 1);
        }
        struct {
            uint32_t line, col;
            xmlNodePtr node;
        } before[CFG_MAX_AXES];
        size_t nb = ld->c->naxes;
        for (size_t a = 0; a < nb; a++)
            before[a].line = ld->c->axes[a].line, before[a].col = ld->c->axes[a].col, before[a].node = ld->axis_node[a];
        if (cfg_drop_axis(ld->c, v->path))
            for (size_t a = 0; a < ld->c->naxes; a++) {
                ld->axis_node[a] = NULL;
                for (size_t b = 0; b < nb; b++)
                    if (before[b].line == ld->c->axes[a].line && before[b].col == ld->c->axes[a].col)
                        ld->axis_node[a] = before[b].node;
            }
    }
    return ok;
}

int cfg_load(cfg *c, const char *file, cfg_errors *errs) { return cfg_load_with(c, file, NULL, 0, errs); }

int cfg_load_with(cfg *c, const char *file, const cfg_cli_value *cli, size_t ncli, cfg_errors *errs)
{
    cfg_defaults(c);
    set_paths(c, file);
    const char *path = display_name(file);
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.file = path;
    ld.c = c;
    ld.cli = cli;
    ld.ncli = ncli;
    cfg_errors_init(&ld.cli_errs);
    char why[1024];
    if (read_file(file, &ld.text, &ld.len, why, sizeof why) != 0) {
        cfg_errors_add(errs, "%s: error: %s", path, why);
        cfg_errors_free(&ld.cli_errs);
        return -1;
    }
    ld_scan_text(&ld);

    xmlInitParser();
    /* libxml2 prints to stderr unless told otherwise; models never print. */
    xmlStructuredErrorFunc old_serror = xmlStructuredError;
    void *old_sctx = xmlStructuredErrorContext;
    xmlGenericErrorFunc old_gerror = xmlGenericError;
    void *old_gctx = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(&ld, ld_on_xml_error);
    xmlSetGenericErrorFunc(NULL, xml_silent);

    xmlParserCtxtPtr pctx = xmlNewParserCtxt();
    if (pctx) {
        if (ld.len > (size_t)INT32_MAX)
            ld_add_err(&ld, 0, 0, NULL, tn_xstrdup("file too large"));
        else {
            ent_budget eb = {pctx->sax->getEntity, 0, 0, 0};
            pctx->_private = &eb;
            pctx->sax->getEntity = ld_get_entity;
            ld.doc = xmlCtxtReadMemory(pctx, ld.text, (int)ld.len, path, NULL,
                                       XML_PARSE_NONET | XML_PARSE_NOWARNING);
            if (eb.over) {
                if (ld.doc)
                    xmlFreeDoc(ld.doc);
                ld.doc = NULL;
                for (size_t i = 0; i < ld.ne; i++) /* what the stopped parse said is not the cause */
                    free(ld.e[i].msg);
                ld.ne = 0;
                ld_add_err(&ld, pctx->input ? pctx->input->line : 0, 0, NULL,
                           cfg_format("entity references expand to more than %d bytes (%zu references so far): "
                                      "a configuration needs no more; write the values out",
                                      LD_MAX_EXPANSION, eb.refs));
            }
        }
        xmlFreeParserCtxt(pctx);
    } else {
        ld_add_err(&ld, 0, 0, NULL, tn_xstrdup("internal error: cannot create an XML parser"));
    }
    if (ld.doc && ld.ne == 0) {
        xmlNodePtr root = xmlDocGetRootElement(ld.doc);
        size_t k = 0;
        ld_index_elements(ld.doc->children, &k);
        ld.tags_ok = k == ld.ntags;
        if (!root) {
            ld_add_err(&ld, 1, 1, NULL, tn_xstrdup("not an XML document: no root element"));
        } else if (root->ns && strcmp((const char *)root->name, "tasknet") == 0) {
            ld_err_at_elem(&ld, root, "<tasknet> is in namespace '%s': tasknet files use no namespace (remove xmlns)",
                        root->ns->href ? (const char *)root->ns->href : "");
        } else if (root->ns || strcmp((const char *)root->name, "tasknet") != 0) {
            ld_err_at_elem(&ld, root, "root element is <%s>, expected <tasknet version=\"1\">", (const char *)root->name);
        } else {
            walk_elem(&ld, root, CE_ROOT);
            ld_release(&ld);
            /* The command line's values go in before the checks: they may
             * complete or correct what the file says. What the checks find
             * then that the file alone does not have, they caused: the
             * file's checks run first (their problems kept aside), and the
             * report names the options beside the new ones. */
            size_t ne0 = ld.ne, nflag0 = ld.nflag, sup0 = ld.suppressed, nalone = 0;
            lerr *alone = NULL;
            if (ncli && !ld.structural) {
                ld_checks(&ld);
                nalone = ld.ne - ne0;
                alone = tn_xmalloc((nalone ? nalone : 1) * sizeof *alone);
                if (nalone) /* ld.e is NULL while nothing was reported */
                    memcpy(alone, ld.e + ne0, nalone * sizeof *alone);
                ld.ne = ne0, ld.nflag = nflag0, ld.suppressed = sup0;
            }
            int cli_ok = ld_apply_cli(&ld);
            if (!ld.structural && cli_ok) {
                ld_checks(&ld);
                for (size_t i = ne0; ncli && i < ld.ne; i++) {
                    ld.e[i].cli = 1;
                    for (size_t j = 0; j < nalone && ld.e[i].cli; j++)
                        if (alone[j].line == ld.e[i].line && alone[j].col == ld.e[i].col &&
                            same_problem(alone[j].msg, ld.e[i].msg))
                            ld.e[i].cli = 0;
                }
            }
            for (size_t j = 0; j < nalone; j++)
                free(alone[j].msg);
            free(alone);
            ld_schema_check(&ld);
        }
    } else if (ld.ne == 0) {
        ld_add_err(&ld, 0, 0, NULL, tn_xstrdup("malformed XML"));
    }
    if (ld.doc)
        xmlFreeDoc(ld.doc);
    xmlSetStructuredErrorFunc(old_sctx, old_serror);
    xmlSetGenericErrorFunc(old_gctx, old_gerror);

    if (ld.ne)
        qsort(ld.e, ld.ne, sizeof *ld.e, cmp_lerr);
    /* "(with --set a=b, --seed 3)" after the place of a problem the command line's values cause */
    char with[1024] = "";
    for (size_t i = 0, l = 0; i < ncli && l < sizeof with; i++)
        l += (size_t)snprintf(with + l, sizeof with - l, "%s%s", i ? ", " : " (with ", cli[i].label);
    if (ncli && strlen(with) + 1 < sizeof with)
        strcat(with, ")");
    for (size_t i = 0; i < ld.ne; i++) {
        const char *w = ld.e[i].cli ? with : "";
        if (ld.e[i].line > 0 && ld.e[i].col > 0)
            cfg_errors_add(errs, "%s:%ld:%ld%s: error: %s", path, ld.e[i].line, ld.e[i].col, w, ld.e[i].msg);
        else if (ld.e[i].line > 0)
            cfg_errors_add(errs, "%s:%ld%s: error: %s", path, ld.e[i].line, w, ld.e[i].msg);
        else
            cfg_errors_add(errs, "%s%s: error: %s", path, w, ld.e[i].msg);
        free(ld.e[i].msg);
    }
    if (ld.suppressed)
        cfg_errors_add(errs, "%s: error: %zu more errors not shown (fix the first %d and run again)", path,
                       ld.suppressed, LD_MAX_ERRORS);
    for (size_t i = 0; i < ld.cli_errs.n; i++)
        cfg_errors_add(errs, "%s", ld.cli_errs.msg[i]);
    int rc = ld.ne || ld.cli_errs.n ? -1 : 0;
    cfg_errors_free(&ld.cli_errs);
    for (size_t i = 0; i < ld.ns; i++)
        free(ld.s[i].msg);
    free(ld.s);
    free(ld.e);
    free(ld.flagged);
    for (size_t a = 0; a < ld.nfailed_axes; a++)
        free(ld.failed_axes[a]);
    free(ld.failed_axes);
    free(ld.lines);
    free(ld.tags);
    free(ld.text);
    return rc;
}
