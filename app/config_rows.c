/* The composed parameter table: the core's rows (below), the physical
 * layer's (phy/phy_params.c) and every registered plugin's, each with the
 * owner whose params struct holds its value; the XML elements their paths
 * imply; defaults, copies, set and get of a configuration's values.
 *
 * The table and the elements are computed once from constant data (the
 * registries) and never change afterwards. */
#include "config_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* ------------------------------------------------------------ core rows */

#define ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_

static const param_row core_rows[] = {
    {ROW("system.nodes", "integer", "", "", "nodes N (>= 2)"), .kind = PARAM_U32, .off = offsetof(cfg, nodes),
     .flags = PARAM_UNSET0 | PARAM_REQUIRED, .min = 2, .max = UINT32_MAX, .example = "100",
     .note = "a network connects at least 2 nodes"},
    {ROW("network.type", "string", "", NULL, "fabric (one of the network types listed below)"),
     .kind = PARAM_NAME, .off = offsetof(cfg, net_type), .name_ok = net_name_ok},
    {ROW("network.bandwidth", "rate", "b/s", "", "access bandwidth B of every node (> 0)"), .kind = PARAM_REAL,
     .dim = UNIT_RATE, .off = offsetof(cfg, net.bandwidth_bps), .flags = PARAM_POS | PARAM_UNSET0 | PARAM_REQUIRED,
     .alt = "network.zeta", .example = "40Gb/s"},
    {ROW("network.switch-latency", "time", "s", "200ns", "electrical switch traversal (>= 0)"), .kind = PARAM_PS,
     .off = offsetof(cfg, net.switch_latency_ps), .flags = PARAM_NONNEG, .example = "200ns"},
    {ROW("network.link-latency", "time", "s", "20ns", "propagation on one electrical link (>= 0)"),
     .kind = PARAM_PS, .off = offsetof(cfg, net.link_latency_ps), .flags = PARAM_NONNEG, .example = "20ns"},
    {ROW("workload.type", "string", "", NULL, "workload (one of the workload types listed below)"),
     .kind = PARAM_NAME, .off = offsetof(cfg, wl_type), .name_ok = wl_name_ok},
    {ROW("run.replicas", "integer", "", "1", "independent replicas of every sweep point (>= 1)"), .kind = PARAM_U32,
     .off = offsetof(cfg, replicas), .min = 1, .max = UINT32_MAX, .example = "5"},
    {ROW("run.seed", "integer", "", "1", "base seed of the random streams (0 .. 2^64-1)"), .kind = PARAM_U64,
     .off = offsetof(cfg, seed), .min = 0, .max = UINT64_MAX, .example = "1"},
};

/* --------------------------------------------------------- the table */

typedef struct crow {
    cfg_param_info info;
    size_t canon; /* first row of the same path */
    int elem;     /* element of its attribute */
} crow;

typedef struct ctable {
    int built;
    crow row[CFG_MAX_ROWS];
    size_t nrows;
    celem elem[CFG_MAX_ELEMS];
    size_t nelems;
    int sweep, axis, value; /* structural elements */
} ctable;

static ctable table;

/* The element of a path prefix, created (with its ancestors) if new. */
static int elem_of_prefix(const char *prefix, size_t len)
{
    if (len == 0)
        return CE_ROOT;
    for (size_t e = 0; e < table.nelems; e++)
        if (strlen(table.elem[e].prefix) == len && strncmp(table.elem[e].prefix, prefix, len) == 0)
            return (int)e;
    size_t cut = len;
    while (cut > 0 && prefix[cut - 1] != '.')
        cut--;
    int parent = elem_of_prefix(prefix, cut ? cut - 1 : 0);
    TN_ASSERT(table.nelems < CFG_MAX_ELEMS, "more than %d configuration elements", CFG_MAX_ELEMS);
    TN_ASSERT(len < sizeof table.elem[0].prefix && len - cut < sizeof table.elem[0].name,
              "parameter path prefix '%.*s' too long", (int)len, prefix);
    celem *ce = &table.elem[table.nelems];
    memcpy(ce->prefix, prefix, len);
    ce->prefix[len] = '\0';
    memcpy(ce->name, prefix + cut, len - cut);
    ce->name[len - cut] = '\0';
    ce->parent = parent;
    ce->many = 0;
    return (int)table.nelems++;
}

static int add_struct_elem(const char *name, int parent, int many)
{
    TN_ASSERT(table.nelems < CFG_MAX_ELEMS, "more than %d configuration elements", CFG_MAX_ELEMS);
    celem *ce = &table.elem[table.nelems];
    snprintf(ce->name, sizeof ce->name, "%s", name);
    ce->prefix[0] = '\0';
    ce->parent = parent;
    ce->many = many;
    return (int)table.nelems++;
}

static void add_rows(const param_row *rows, size_t n, cfg_owner owner, const char *plugin)
{
    for (size_t i = 0; i < n; i++) {
        TN_ASSERT(table.nrows < CFG_MAX_ROWS, "more than %d parameters", CFG_MAX_ROWS);
        crow *r = &table.row[table.nrows];
        r->info.row = &rows[i];
        r->info.owner = owner;
        r->info.plugin = plugin;
        r->canon = table.nrows;
        for (size_t k = 0; k < table.nrows; k++)
            if (strcmp(table.row[k].info.row->path, rows[i].path) == 0) {
                const param_row *a = table.row[k].info.row;
                /* one path, one parameter: the same text means the same value */
                TN_ASSERT(a->kind == rows[i].kind && a->dim == rows[i].dim && a->flags == rows[i].flags &&
                              strcmp(a->def ? a->def : "", rows[i].def ? rows[i].def : "") == 0,
                          "parameter %s is declared twice with different kinds or defaults (%s)", rows[i].path,
                          plugin ? plugin : "core");
                r->canon = k;
                break;
            }
        const char *dot = strrchr(rows[i].path, '.');
        TN_ASSERT(dot, "parameter path '%s' has no element", rows[i].path);
        r->elem = elem_of_prefix(rows[i].path, (size_t)(dot - rows[i].path));
        table.nrows++;
    }
}

static void build(void)
{
    if (table.built)
        return;
    snprintf(table.elem[0].name, sizeof table.elem[0].name, "tasknet");
    table.elem[0].prefix[0] = '\0';
    table.elem[0].parent = -1;
    table.nelems = 1;
    add_rows(core_rows, sizeof core_rows / sizeof core_rows[0], CFG_OWN_CORE, NULL);
    add_rows(phy_param_rows, phy_param_nrows, CFG_OWN_PHY, NULL);
    for (size_t i = 0; net_registry[i]; i++)
        add_rows(net_registry[i]->params, net_registry[i]->nparams, CFG_OWN_NET, net_registry[i]->name);
    for (size_t i = 0; wl_registry[i]; i++)
        add_rows(wl_registry[i]->params, wl_registry[i]->nparams, CFG_OWN_WL, wl_registry[i]->name);
    table.sweep = add_struct_elem("sweep", CE_ROOT, 0);
    table.axis = add_struct_elem("axis", table.sweep, 1);
    table.value = add_struct_elem("value", table.axis, 1);
    table.built = 1;
}

size_t crow_count(void)
{
    build();
    return table.nrows;
}

const cfg_param_info *crow_at(size_t i)
{
    build();
    return i < table.nrows ? &table.row[i].info : NULL;
}

size_t crow_canon(size_t i)
{
    build();
    return table.row[i].canon;
}

int crow_elem(size_t i)
{
    build();
    return table.row[i].elem;
}

long crow_find(const char *path)
{
    build();
    for (size_t i = 0; i < table.nrows; i++)
        if (strcmp(table.row[i].info.row->path, path) == 0)
            return (long)i;
    return -1;
}

size_t cfg_param_count(void) { return crow_count(); }
const cfg_param_info *cfg_param_at(size_t i) { return crow_at(i); }

size_t celem_count(void)
{
    build();
    return table.nelems;
}

const celem *celem_at(size_t i)
{
    build();
    return i < table.nelems ? &table.elem[i] : NULL;
}

int celem_find_child(int parent, const char *name)
{
    build();
    for (size_t e = 0; e < table.nelems; e++)
        if (table.elem[e].parent == parent && strcmp(table.elem[e].name, name) == 0)
            return (int)e;
    return -1;
}

int celem_sweep(void)
{
    build();
    return table.sweep;
}

int celem_axis(void)
{
    build();
    return table.axis;
}

int celem_value(void)
{
    build();
    return table.value;
}

/* ------------------------------------------------------------ owners */

void *crow_block(const cfg *c, size_t i)
{
    const cfg_param_info *p = crow_at(i);
    switch (p->owner) {
    case CFG_OWN_CORE: return (void *)c;
    case CFG_OWN_PHY: return (void *)&c->phy;
    case CFG_OWN_NET: return c->net_block[net_index(net_find(p->plugin))];
    case CFG_OWN_WL: return c->wl_block[wl_index(wl_find(p->plugin))];
    }
    TN_ASSERT(0, "row %zu has no owner", i);
    return NULL;
}

int crow_selected(const cfg *c, size_t i)
{
    const cfg_param_info *p = crow_at(i);
    switch (p->owner) {
    case CFG_OWN_NET: return strcmp(p->plugin, c->net_type) == 0;
    case CFG_OWN_WL: return strcmp(p->plugin, c->wl_type) == 0;
    default: return 1;
    }
}

/* Does some point of c select plugin `name` for the parameter `type_path`? */
static int used_somewhere(const cfg *c, const char *type_path, const char *base, const char *name)
{
    if (strcmp(base, name) == 0 && cfg_axis_of(c, type_path) < 0)
        return 1;
    int a = cfg_axis_of(c, type_path);
    if (a < 0 || c->point)
        return strcmp(base, name) == 0;
    for (size_t v = 0; v < c->axes[a].nvalues; v++)
        if (strcmp(c->axes[a].values[v], name) == 0)
            return 1;
    return 0;
}

int crow_used(const cfg *c, size_t i)
{
    const cfg_param_info *p = crow_at(i);
    switch (p->owner) {
    case CFG_OWN_NET: return used_somewhere(c, "network.type", c->net_type, p->plugin);
    case CFG_OWN_WL: return used_somewhere(c, "workload.type", c->wl_type, p->plugin);
    default: return 1;
    }
}

long crow_for(const cfg *c, const char *path)
{
    long first = crow_find(path);
    if (first < 0)
        return -1;
    for (size_t i = (size_t)first; i < crow_count(); i++)
        if (crow_canon(i) == (size_t)first && crow_selected(c, i))
            return (long)i;
    return first;
}

int cfg_param_applies(const cfg *c, size_t i) { return crow_selected(c, i); }

const char *crow_owner_name(size_t i)
{
    const cfg_param_info *p = crow_at(i);
    return p->plugin ? p->plugin : p->owner == CFG_OWN_PHY ? "the physical layer" : "the core";
}

size_t cfg_used_nets(const cfg *c, const net_ops **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; net_registry[i]; i++)
        if (used_somewhere(c, "network.type", c->net_type, net_registry[i]->name)) {
            if (n < max)
                out[n] = net_registry[i];
            n++;
        }
    return n;
}

size_t cfg_used_wls(const cfg *c, const wl_ops **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; wl_registry[i]; i++)
        if (used_somewhere(c, "workload.type", c->wl_type, wl_registry[i]->name)) {
            if (n < max)
                out[n] = wl_registry[i];
            n++;
        }
    return n;
}

const net_ops *cfg_net(const cfg *c) { return net_find(c->net_type); }
const wl_ops *cfg_wl(const cfg *c) { return wl_find(c->wl_type); }

void *cfg_net_params(const cfg *c)
{
    const net_ops *ops = cfg_net(c);
    return ops && c->net_block ? c->net_block[net_index(ops)] : NULL;
}

void *cfg_wl_params(const cfg *c)
{
    const wl_ops *ops = cfg_wl(c);
    return ops && c->wl_block ? c->wl_block[wl_index(ops)] : NULL;
}

/* ------------------------------------------------ defaults and copies */

void cfg_defaults(cfg *c)
{
    build();
    memset(c, 0, sizeof *c);
    phy_params_defaults(&c->phy);
    param_block_defaults(c, core_rows, sizeof core_rows / sizeof core_rows[0]);
    snprintf(c->net_type, sizeof c->net_type, "%s", net_default->name);
    snprintf(c->wl_type, sizeof c->wl_type, "%s", wl_default->name);
    size_t nn = net_count(), nw = wl_count();
    c->net_block = tn_xcalloc(nn ? nn : 1, sizeof *c->net_block);
    for (size_t i = 0; i < nn; i++)
        c->net_block[i] = net_params_new(net_registry[i]);
    c->wl_block = tn_xcalloc(nw ? nw : 1, sizeof *c->wl_block);
    for (size_t i = 0; i < nw; i++)
        c->wl_block[i] = wl_params_new(wl_registry[i]);
    c->given = tn_xcalloc(CFG_MAX_ROWS, 1);
    c->net.nodes = c->nodes;
}

void cfg_free(cfg *c)
{
    if (!c)
        return;
    if (c->net_block)
        for (size_t i = 0; net_registry[i]; i++)
            net_params_free(net_registry[i], c->net_block[i]);
    if (c->wl_block)
        for (size_t i = 0; wl_registry[i]; i++)
            wl_params_free(wl_registry[i], c->wl_block[i]);
    free(c->net_block);
    free(c->wl_block);
    free(c->given);
    cfg_axes_free(c);
    memset(c, 0, sizeof *c);
}

void cfg_copy(cfg *dst, const cfg *src)
{
    *dst = *src;
    size_t nn = net_count(), nw = wl_count();
    dst->net_block = tn_xcalloc(nn ? nn : 1, sizeof *dst->net_block);
    for (size_t i = 0; i < nn; i++) {
        const net_ops *o = net_registry[i];
        dst->net_block[i] = tn_xcalloc(1, o->params_size ? o->params_size : 1);
        param_block_copy(dst->net_block[i], src->net_block[i], o->params_size, o->params, o->nparams);
    }
    dst->wl_block = tn_xcalloc(nw ? nw : 1, sizeof *dst->wl_block);
    for (size_t i = 0; i < nw; i++) {
        const wl_ops *o = wl_registry[i];
        dst->wl_block[i] = tn_xcalloc(1, o->params_size ? o->params_size : 1);
        param_block_copy(dst->wl_block[i], src->wl_block[i], o->params_size, o->params, o->nparams);
    }
    dst->given = tn_xmalloc(CFG_MAX_ROWS);
    memcpy(dst->given, src->given, CFG_MAX_ROWS);
    for (size_t a = 0; a < src->naxes; a++) {
        dst->axes[a].values = tn_xmalloc((src->axes[a].nvalues ? src->axes[a].nvalues : 1) * sizeof(char *));
        for (size_t v = 0; v < src->axes[a].nvalues; v++)
            dst->axes[a].values[v] = tn_xstrdup(src->axes[a].values[v]);
    }
}

/* ------------------------------------------------------------ set, get */

int crow_set(cfg *c, size_t canon, const char *value, char *err, size_t errlen)
{
    size_t n = crow_count();
    /* parse for every owner first, so a failure changes nothing */
    param_value *vals = tn_xcalloc(n, sizeof *vals);
    int rc = 0;
    for (size_t i = canon; i < n && rc == 0; i++)
        if (crow_canon(i) == canon && param_parse(crow_at(i)->row, value, c->basedir, &vals[i], err, errlen) != 0)
            rc = -1;
    for (size_t i = canon; i < n; i++) {
        if (crow_canon(i) != canon)
            continue;
        if (rc == 0)
            param_store(crow_block(c, i), crow_at(i)->row, &vals[i]);
        param_value_free(&vals[i]);
    }
    free(vals);
    if (rc != 0)
        return -1;
    c->given[canon] = 1;
    const char *alt = crow_at(canon)->row->alt;
    long a = alt ? crow_find(alt) : -1;
    if (a >= 0) {
        for (size_t i = (size_t)a; i < n; i++)
            if (crow_canon(i) == (size_t)a)
                param_clear(crow_block(c, i), crow_at(i)->row);
        c->given[a] = 0;
    }
    c->net.nodes = c->nodes;
    return 0;
}

int cfg_set(cfg *c, const char *path, const char *value, char *err, size_t errlen)
{
    long r = crow_find(path);
    if (r < 0)
        return cfg_unknown_param(path, err, errlen);
    return crow_set(c, (size_t)r, value ? value : "", err, errlen);
}

int cfg_get(const cfg *c, const char *path, char *buf, size_t len)
{
    long r = crow_for(c, path);
    if (r < 0) {
        if (len)
            buf[0] = '\0';
        return -1;
    }
    char *s = param_format(crow_block(c, (size_t)r), crow_at((size_t)r)->row, NULL);
    int n = snprintf(buf, len, "%s", s);
    free(s);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

uint64_t cfg_input_digest(const cfg *c, const char *path)
{
    long r = crow_for(c, path);
    return r < 0 ? 0 : param_digest(crow_block(c, (size_t)r), crow_at((size_t)r)->row);
}

/* ------------------------------------------------------------- hints */

char *celem_hint(int e)
{
    const celem *ce = celem_at((size_t)e);
    if (e == CE_ROOT)
        return tn_xstrdup("<tasknet version=\"1\">");
    if (e == celem_axis())
        return tn_xstrdup("<axis param=\"...\" values=\"...\"/>");
    if (e == celem_value())
        return tn_xstrdup("<value>...</value>");
    if (!ce->prefix[0])
        return cfg_format("<%s>", ce->name);
    /* its required attributes, or else its first, with their examples */
    size_t len = 0, cap = 256;
    char *s = tn_xmalloc(cap);
    len = (size_t)snprintf(s, cap, "e.g. <%s", ce->name);
    int any = 0;
    for (int pass = 0; pass < 2 && !any; pass++)
        for (size_t i = 0; i < crow_count(); i++) {
            const param_row *r = crow_at(i)->row;
            if (crow_canon(i) != i || crow_elem(i) != e || !r->example)
                continue;
            if (pass == 0 && !(r->flags & PARAM_REQUIRED))
                continue;
            char *a = cfg_format(" %s=\"%s\"", param_attr(r), r->example);
            size_t l = strlen(a);
            if (len + l + 4 > cap) {
                cap = 2 * (len + l + 4);
                s = tn_xrealloc(s, cap);
            }
            memcpy(s + len, a, l + 1);
            len += l;
            free(a);
            any = 1;
            if (pass == 1)
                break;
        }
    if (len + 4 > cap)
        s = tn_xrealloc(s, len + 4);
    memcpy(s + len, "/>", 3);
    return s;
}

/* ----------------------------------------------------------- helpers */

char *cfg_vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *s = tn_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *cfg_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cfg_vformat(fmt, ap);
    va_end(ap);
    return s;
}

void cfg_errors_init(cfg_errors *e)
{
    e->msg = NULL;
    e->n = e->cap = 0;
}

void cfg_errors_free(cfg_errors *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->msg[i]);
    free(e->msg);
    cfg_errors_init(e);
}

void cfg_errors_push(cfg_errors *e, char *msg)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 8;
        e->msg = tn_xrealloc(e->msg, e->cap * sizeof *e->msg);
    }
    e->msg[e->n++] = msg;
}

void cfg_errors_add(cfg_errors *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_errors_push(e, cfg_vformat(fmt, ap));
    va_end(ap);
}

/* Edit distance, for "did you mean"; long words are never close. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t m = del < ins ? del : ins;
            cur[j] = m < sub ? m : sub;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

const char *cfg_closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bestd = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    size_t len = strlen(word), limit = len < 6 ? 2 : len / 3;
    return best && bestd <= limit ? best : NULL;
}

char *cfg_join(const char *const *items, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(items[i]) + 2;
    char *s = tn_xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, items[i]);
    }
    return s;
}

int cfg_unknown_param(const char *path, char *err, size_t errlen)
{
    size_t n = crow_count(), k = 0;
    const char **paths = tn_xmalloc(n * sizeof *paths);
    for (size_t i = 0; i < n; i++)
        if (crow_canon(i) == i)
            paths[k++] = crow_at(i)->row->path;
    const char *near = cfg_closest(path, paths, k);
    if (near) {
        tn_error(err, errlen, "unknown parameter '%s' (did you mean %s?)", path, near);
    } else {
        char *all = cfg_join(paths, k);
        tn_error(err, errlen, "unknown parameter '%s' (parameters: %s)", path, all);
        free(all);
    }
    free(paths);
    return -1;
}
