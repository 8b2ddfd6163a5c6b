/* Export any topology (topo.h) as the graph fabric's DOT file (ORCS's
 * format, read back by topo_graph.c): contract in topo.h.
 *
 * Nodes: hosts first, in id order, then switches (a graph keeps its names;
 * the others are H<id> and S<id>), each with kind=host|switch, so the
 * import numbers them as here. Edges: each host's uplink (hport = its
 * switch port, comment "*"), then every switch port in order (tport, and
 * hport for a switch peer), so ports and link ids are the same on import;
 * a link with a rate or latency of its own (topo_ops.link_attr: a graph's
 * edge attributes) gets bandwidth="<b/s>" and latency="<ps>ps", the others
 * none (they run at the fabric's network.bandwidth and link-latency).
 *
 * Routes. The route of every ordered pair (a, b), a != b, under several
 * salts fixes at each switch it crosses the port and virtual channel class
 * toward b; the comment of an edge lists the destinations leaving on it in
 * class 0 and vc1 .. vc7 those in the higher classes. Three rules of the
 * graph fabric (topo_graph.c) let a destination table follow routings that
 * are not purely destination-based, each found from the routes themselves:
 *   paths   a message's random choices (a torus's tie between the two
 *           directions of a ring of even size at k/2 hops, drawn from the
 *           message's salt) are topo_pick(salt, i, 2) bits. With graph
 *           attribute lmc = B the graph gives each destination 2^B routes
 *           and a message takes route v, bit i of v being topo_pick(salt,
 *           i, 2): the same choices. Export tries B = 0, 1, ... (up to 8,
 *           and while the table stays below 2^25 cells): the routes of every
 *           pair under salts sharing their first B bits (and differing in
 *           the others) must agree, and each (switch, destination, path)
 *           have one port and class over all sources; the first B that
 *           holds is written (entries "NAME@v" where paths differ).
 *   vcstep  a class that counts links of some kind crossed so far (the
 *           dragonfly's: one more after each global link) depends on the
 *           source; a link after which every route's next hop is k >= 1
 *           classes higher (and never less) gets vcstep = k, and the table
 *           holds the class minus the steps crossed before.
 *   vcs     the topology's class count, written as the graph attribute.
 *   path    routes that depend on the source but not on the salt (the
 *           dragonfly's per-source global slices when a h / (g - 1) > 1):
 *           the sources are grouped, in order, each into the first path
 *           whose table its routes agree with (a new path when none does),
 *           and each host carries its path (host attribute path = k).
 * What neither removes (random-up's and ECMP's picks among more than two
 * ports, Valiant's intermediate among g - 2 groups, UGAL's and adaptive
 * routing's choices by queue occupancy) keeps the first source's choice,
 * and the number of such conflicts (B = 0) is reported as a warning: the
 * re-imported fabric then routes differently.
 * Work O(N^2 x 2^B x route length), memory 2^B S N x 2 bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

#define EX_NONE UINT16_MAX
#define EX_MAX_LMC 8
#define EX_SALTS 3          /* salts tried per path */
#define EX_MAX_CELLS (UINT64_C(1) << 25)
#define EX_MAX_HOPS 4096

/* A link's own rate and latency (topo_ops.link_attr), as edge attributes:
 * written only for links that have them (the others run at the fabric's
 * network.bandwidth and link-latency when read back). */
/* rate: the fabric's rates of its links where they differ from the
 * topology's own (network.degraded-links; topo_export_dot_rates), or NULL */
static void put_link_attr(const topo *t, const double *rate, uint64_t link, FILE *out)
{
    double bps = 0;
    int64_t ps = -1;
    if (t->ops->link_attr)
        t->ops->link_attr(t, link, &bps, &ps);
    if (rate && rate[link] > 0)
        bps = rate[link];
    if (bps > 0)
        fprintf(out, ", bandwidth=\"%.17gb/s\"", bps);
    if (ps >= 0)
        fprintf(out, ", latency=\"%lldps\"", (long long)ps);
}

/* DOT quoting: names are written in double quotes, escaping " and \. */
static void put_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* The first 8 binary choices of a salt, bit i = topo_pick(salt, i, 2). */
static uint32_t salt_bits(uint64_t salt)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < EX_MAX_LMC; i++)
        v |= topo_pick(salt, i, 2) << i;
    return v;
}

typedef struct ex_hop {
    uint32_t sw, port;
    uint8_t vc;
    uint8_t eject; /* the hop into the destination host (class 0 always) */
} ex_hop;

static int same_route(const ex_hop *x, size_t nx, const ex_hop *y, size_t ny)
{
    if (nx != ny)
        return 0;
    for (size_t i = 0; i < nx; i++)
        if (x[i].sw != y[i].sw || x[i].port != y[i].port || x[i].vc != y[i].vc)
            return 0;
    return 1;
}

/* The route a -> b under salt (first candidate at every switch): hops. */
static size_t ex_route(const topo *t, uint32_t a, uint32_t b, uint64_t salt, ex_hop *hop)
{
    topo_hdr h;
    t->ops->hdr_init(t, a, b, salt, &h);
    uint32_t sw, in;
    t->ops->attach(t, a, &sw, &in);
    size_t n = 0;
    for (uint32_t k = 0; k <= t->max_route_links && n < EX_MAX_HOPS; k++) {
        topo_hop c[TOPO_MAX_CAND];
        unsigned nc = t->ops->next(t, sw, &h, c);
        TN_ASSERT(nc >= 1, "%s: switch %u offers no hop toward %u", t->ops->name, sw, b);
        t->ops->take(t, sw, &c[0], &h);
        topo_end pe = t->ops->peer(t, sw, c[0].port);
        hop[n++] = (ex_hop){.sw = sw, .port = c[0].port, .vc = c[0].vc, .eject = pe.kind == TOPO_HOST};
        if (pe.kind == TOPO_HOST)
            break;
        sw = pe.id;
    }
    return n;
}

/* Salts by their first 8 binary choices: EX_SALTS (at least) of each value. */
static void salts_by_bits(uint64_t *salts /* [256 * EX_SALTS] */)
{
    unsigned have[1u << EX_MAX_LMC] = {0};
    unsigned left = (1u << EX_MAX_LMC) * EX_SALTS;
    for (uint64_t x = 0; left; x++) {
        uint64_t salt = x * UINT64_C(0x9e3779b97f4a7c15) ^ (x << 17);
        uint32_t v = salt_bits(salt);
        if (have[v] < EX_SALTS) {
            salts[v * EX_SALTS + have[v]++] = salt;
            left--;
        }
    }
}

/* The salts standing for path v of 2^B: of the 8-bit values whose low B
 * bits are v, up to EX_SALTS values spread over the high bits, one salt
 * each (B = 8: the value's EX_SALTS salts). */
static unsigned path_salts(const uint64_t *all, unsigned B, uint32_t v, uint64_t *out)
{
    unsigned n = 0;
    uint32_t hi = 1u << (EX_MAX_LMC - B);
    for (unsigned j = 0; j < EX_SALTS; j++) {
        uint32_t h = hi > 1 ? (uint32_t)(((uint64_t)j * (hi - 1)) / (EX_SALTS - 1)) : 0;
        uint32_t full = v | h << B;
        out[n++] = all[full * EX_SALTS + (hi > 1 ? 0 : j)];
    }
    return n;
}

typedef struct ex_table {
    unsigned B;
    uint16_t *tab;     /* [2^B S N] port | class << 12 */
    uint8_t *step;     /* [switch ports] vcstep */
    uint64_t conflicts; /* (switch, destination, path) choices that differed between sources */
    uint64_t salt_dep; /* pairs whose route differed among salts of one path */
} ex_table;

static uint64_t ex_port_index(const topo *t, uint32_t sw, uint32_t port) { return t->ops->port_base(t, sw) + port; }

/* The table for 2^B paths (and the vcsteps it needs). */
static void ex_fill(const topo *t, const uint64_t *all, unsigned B, ex_table *x, ex_hop *r0, ex_hop *r1)
{
    uint32_t N = t->hosts, S = t->switches;
    uint32_t P = 1u << B;
    uint64_t nports = t->ops->port_base(t, S - 1) + t->ops->radix(t, S - 1);
    size_t cells = (size_t)P * S * N;
    x->B = B;
    x->tab = tn_xmalloc(cells * sizeof *x->tab + 2);
    for (size_t i = 0; i < cells; i++)
        x->tab[i] = EX_NONE;
    x->step = tn_xcalloc(nports + 1, 1);
    x->conflicts = 0;
    x->salt_dep = 0;
    int16_t *minstep = tn_xmalloc((nports + 1) * sizeof *minstep);
    for (uint64_t i = 0; i <= nports; i++)
        minstep[i] = INT16_MAX;
    uint64_t salts[EX_SALTS];
    /* pass 1: the class rise after each link, and the routes' dependence on salts */
    for (uint32_t v = 0; v < P; v++) {
        unsigned ns = path_salts(all, B, v, salts);
        for (uint32_t b = 0; b < N; b++)
            for (uint32_t a = 0; a < N; a++) {
                if (a == b)
                    continue;
                size_t n0 = 0;
                for (unsigned si = 0; si < ns; si++) {
                    size_t n = ex_route(t, a, b, salts[si], si ? r1 : r0);
                    const ex_hop *r = si ? r1 : r0;
                    if (si == 0)
                        n0 = n;
                    else if (!same_route(r0, n0, r1, n)) {
                        x->salt_dep++;
                        continue;
                    }
                    if (si)
                        continue;
                    for (size_t i = 0; i + 1 < n && !r[i + 1].eject; i++) {
                        uint64_t li = ex_port_index(t, r[i].sw, r[i].port);
                        int d = (int)r[i + 1].vc - (int)r[i].vc;
                        if (d < minstep[li])
                            minstep[li] = (int16_t)d;
                    }
                }
            }
    }
    for (uint64_t i = 0; i < nports; i++)
        x->step[i] = minstep[i] != INT16_MAX && minstep[i] > 0 ? (uint8_t)(minstep[i] > 7 ? 7 : minstep[i]) : 0;
    free(minstep);
    /* pass 2: the table of each path, classes less the steps crossed */
    for (uint32_t v = 0; v < P; v++) {
        path_salts(all, B, v, salts);
        for (uint32_t b = 0; b < N; b++)
            for (uint32_t a = 0; a < N; a++) {
                if (a == b)
                    continue;
                size_t n = ex_route(t, a, b, salts[0], r0);
                int rise = 0;
                for (size_t i = 0; i < n; i++) {
                    int base = r0[i].eject ? 0 : (int)r0[i].vc - rise;
                    uint16_t e = (uint16_t)(r0[i].port | (unsigned)(base < 0 ? 0 : base) << 12);
                    if (base < 0 || base > 7)
                        x->conflicts++;
                    uint16_t *cell = &x->tab[((size_t)v * S + r0[i].sw) * N + b];
                    if (*cell == EX_NONE)
                        *cell = e;
                    else if (*cell != e)
                        x->conflicts++;
                    rise += x->step[ex_port_index(t, r0[i].sw, r0[i].port)];
                }
            }
    }
}

/* Sources grouped into paths (host attribute path), for routes that depend
 * on the source but not on the salt (x0: B = 0, its vcsteps): each source,
 * in order, joins the first path whose table its routes agree with, or
 * opens one (at most 2^EX_MAX_LMC, and EX_MAX_CELLS cells). 0 with x (B,
 * tab, step) and *hp (the path of each host), or -1. */
static int ex_group(const topo *t, ex_table *x0, ex_table *x, uint16_t **hp_out, ex_hop *r0)
{
    uint32_t N = t->hosts, S = t->switches;
    size_t cells = (size_t)S * N;
    uint16_t *tabs[1u << EX_MAX_LMC];
    unsigned K = 0;
    uint16_t *hp = tn_xmalloc((size_t)N * sizeof *hp);
    size_t cap = (size_t)N * (t->max_route_links + 2);
    uint64_t *cx = tn_xmalloc(cap * sizeof *cx);
    uint16_t *ce = tn_xmalloc(cap * sizeof *ce);
    int rc = 0;
    for (uint32_t a = 0; a < N && rc == 0; a++) {
        size_t ne = 0;
        for (uint32_t b = 0; b < N; b++) {
            if (a == b)
                continue;
            size_t n = ex_route(t, a, b, 0, r0);
            int rise = 0;
            for (size_t i = 0; i < n && ne < cap; i++) {
                int base = r0[i].eject ? 0 : (int)r0[i].vc - rise;
                if (base < 0 || base > 7)
                    rc = -1;
                cx[ne] = (uint64_t)r0[i].sw * N + b;
                ce[ne++] = (uint16_t)(r0[i].port | (unsigned)(base < 0 ? 0 : base) << 12);
                rise += x0->step[ex_port_index(t, r0[i].sw, r0[i].port)];
            }
        }
        unsigned k = 0;
        for (; k < K; k++) {
            size_t i = 0;
            while (i < ne && (tabs[k][cx[i]] == EX_NONE || tabs[k][cx[i]] == ce[i]))
                i++;
            if (i == ne)
                break;
        }
        if (k == K) {
            if (K == (1u << EX_MAX_LMC) || (K + 1) * cells > EX_MAX_CELLS) {
                rc = -1;
                break;
            }
            tabs[K] = tn_xmalloc(cells * sizeof **tabs + 2);
            for (size_t i = 0; i < cells; i++)
                tabs[K][i] = EX_NONE;
            K++;
        }
        for (size_t i = 0; i < ne; i++) {
            if (tabs[k][cx[i]] != EX_NONE && tabs[k][cx[i]] != ce[i])
                rc = -1; /* the source's own routes disagree */
            tabs[k][cx[i]] = ce[i];
        }
        hp[a] = (uint16_t)k;
    }
    free(cx);
    free(ce);
    unsigned B = 0;
    while ((1u << B) < K)
        B++;
    if (rc == 0) {
        x->B = B;
        x->tab = tn_xmalloc(cells * ((size_t)1 << B) * sizeof *x->tab + 2);
        for (size_t i = 0; i < cells * ((size_t)1 << B); i++)
            x->tab[i] = EX_NONE;
        for (unsigned k = 0; k < K; k++)
            memcpy(x->tab + k * cells, tabs[k], cells * sizeof *x->tab);
        x->step = x0->step;
        x0->step = NULL;
        x->conflicts = 0;
        x->salt_dep = 0;
        *hp_out = hp;
    } else {
        free(hp);
    }
    for (unsigned k = 0; k < K; k++)
        free(tabs[k]);
    return rc;
}

static void ex_free(ex_table *x)
{
    free(x->tab);
    free(x->step);
    x->tab = NULL;
    x->step = NULL;
}

int topo_export_dot(const topo *t, FILE *out, const char *title, uint64_t *conflicts, char *err, size_t errlen)
{
    return topo_export_dot_rates(t, NULL, out, title, conflicts, err, errlen);
}

int topo_export_dot_rates(const topo *t, const double *rate, FILE *out, const char *title, uint64_t *conflicts,
                          char *err, size_t errlen)
{
    uint32_t N = t->hosts, S = t->switches;
    if ((uint64_t)N * S > (UINT64_C(1) << 34))
        return tn_error(err, errlen, "%s: a table of %u switches x %u hosts is too large to export", t->ops->name, S,
                        N);
    for (uint32_t s = 0; s < S; s++)
        if (t->ops->radix(t, s) > 4095)
            return tn_error(err, errlen, "%s: switch %u has %u ports, more than the file format's 4095",
                            t->ops->name, s, t->ops->radix(t, s));
    if (t->vcs > 8)
        return tn_error(err, errlen, "%s: %u virtual channel classes, more than the file format's 8", t->ops->name,
                        t->vcs);
    uint64_t *all = tn_xmalloc(sizeof *all * (1u << EX_MAX_LMC) * EX_SALTS);
    salts_by_bits(all);
    ex_hop *r0 = tn_xmalloc(sizeof *r0 * EX_MAX_HOPS), *r1 = tn_xmalloc(sizeof *r1 * EX_MAX_HOPS);
    ex_table best = {0};
    ex_fill(t, all, 0, &best, r0, r1);
    /* more paths while the routes depend on the salt and the table is not exact */
    for (unsigned B = 1; B <= EX_MAX_LMC && best.salt_dep; B++) {
        if (((uint64_t)S * N) << B > EX_MAX_CELLS)
            break;
        ex_table x = {0};
        ex_fill(t, all, B, &x, r0, r1);
        if (x.conflicts == 0 && x.salt_dep == 0) {
            ex_free(&best);
            best = x;
            break;
        }
        int more = x.salt_dep > 0; /* the routes depend on a later choice too */
        ex_free(&x);
        if (!more)
            break;
    }
    /* routes that depend on the source only: a path per group of sources */
    uint16_t *hp = NULL;
    if (best.B == 0 && best.conflicts && !best.salt_dep) {
        ex_table x = {0};
        if (ex_group(t, &best, &x, &hp, r0) == 0) {
            ex_free(&best);
            best = x;
        }
    }
    free(all);
    free(r0);
    free(r1);
    uint32_t P = 1u << best.B;
    const uint16_t *tab = best.tab;
    char na[256], nb[256];
    fprintf(out, "// %s\n", title);
    fprintf(out, "// %u hosts, %u switches, %u virtual channel classes; written by tasknet export-topology:\n", N, S,
            t->vcs);
    fprintf(out, "// read with <network type=\"graph\" file=\"...\"/> (routing=\"file\", the default).\n");
    fprintf(out, "digraph fabric {\n");
    fprintf(out, "  vcs=%u;\n", t->vcs ? t->vcs : 1);
    if (best.B && !hp)
        fprintf(out, "  // lmc: a message takes path v of 2^lmc, bit i of v its salt's i-th binary choice\n"
                     "  lmc=%u;\n", best.B);
    else if (best.B)
        fprintf(out, "  // lmc: 2^lmc paths; a host's messages take its path\n  lmc=%u;\n", best.B);
    for (uint32_t h = 0; h < N; h++) {
        topo_node_name(t, 1, h, na, sizeof na);
        fputs("  ", out);
        put_quoted(out, na);
        if (hp)
            fprintf(out, " [kind=host, path=%u];\n", hp[h]);
        else
            fputs(" [kind=host];\n", out);
    }
    for (uint32_t s = 0; s < S; s++) {
        topo_node_name(t, 0, s, na, sizeof na);
        fputs("  ", out);
        put_quoted(out, na);
        fputs(" [kind=switch];\n", out);
    }
    for (uint32_t h = 0; h < N; h++) {
        uint32_t sw, port;
        t->ops->attach(t, h, &sw, &port);
        topo_node_name(t, 1, h, na, sizeof na);
        topo_node_name(t, 0, sw, nb, sizeof nb);
        fputs("  ", out);
        put_quoted(out, na);
        fputs(" -> ", out);
        put_quoted(out, nb);
        fprintf(out, " [hport=%u, comment=\"*\"", port);
        put_link_attr(t, rate, topo_link_up(t, h), out);
        fputs("];\n", out);
    }
    /* per switch: entries (destination, path or every path) grouped by
     * (port, class) with a counting sort; an entry's path is P when every
     * path agrees (written bare), else v (written NAME@v) */
    uint32_t maxr = t->max_radix ? t->max_radix : 1;
    size_t nkeys = (size_t)maxr * 8;
    size_t *cnt = tn_xcalloc(nkeys + 1, sizeof *cnt);
    uint64_t *order = tn_xmalloc(((size_t)N * P + 1) * sizeof *order);
    for (uint32_t s = 0; s < S; s++) {
        uint32_t r = t->ops->radix(t, s);
        memset(cnt, 0, (nkeys + 1) * sizeof *cnt);
        for (int pass = 0; pass < 2; pass++) {
            for (uint32_t d = 0; d < N; d++) {
                /* a path without an entry here never comes here: it agrees with any */
                uint16_t e0 = EX_NONE;
                int same = 1;
                for (uint32_t v = 0; v < P && same; v++) {
                    uint16_t e = tab[((size_t)v * S + s) * N + d];
                    if (e0 == EX_NONE)
                        e0 = e;
                    else if (e != EX_NONE && e != e0)
                        same = 0;
                }
                for (uint32_t v = 0; v < (same ? 1 : P); v++) {
                    uint16_t e = same ? e0 : tab[((size_t)v * S + s) * N + d];
                    if (e == EX_NONE)
                        continue;
                    size_t k = (size_t)(e & 0xFFF) * 8 + (e >> 12);
                    if (pass == 0)
                        cnt[k + 1]++;
                    else
                        order[cnt[k]++] = (uint64_t)d * (P + 1) + (same ? P : v);
                }
            }
            if (pass == 0)
                for (size_t k = 0; k < nkeys; k++)
                    cnt[k + 1] += cnt[k];
        }
        /* cnt[k] is now the end of key k's run; its start is cnt[k - 1] (0 for k = 0) */
        topo_node_name(t, 0, s, na, sizeof na);
        for (uint32_t p = 0; p < r; p++) {
            topo_end pe = t->ops->peer(t, s, p);
            topo_node_name(t, pe.kind == TOPO_HOST, pe.id, nb, sizeof nb);
            fputs("  ", out);
            put_quoted(out, na);
            fputs(" -> ", out);
            put_quoted(out, nb);
            if (pe.kind == TOPO_HOST)
                fprintf(out, " [tport=%u", p);
            else
                fprintf(out, " [tport=%u, hport=%u", p, pe.port);
            uint8_t st = best.step[ex_port_index(t, s, p)];
            if (st && pe.kind != TOPO_HOST)
                fprintf(out, ", vcstep=%u", st);
            for (unsigned v = 0; v < 8; v++) {
                size_t k = (size_t)p * 8 + v;
                size_t from = k ? cnt[k - 1] : 0, to = cnt[k];
                if (from == to && v > 0)
                    continue;
                fprintf(out, v ? ", vc%u=\"" : ", comment=\"", v);
                for (size_t i = from; i < to; i++) {
                    uint32_t d = (uint32_t)(order[i] / (P + 1)), path = (uint32_t)(order[i] % (P + 1));
                    topo_node_name(t, 1, d, nb, sizeof nb);
                    for (const char *c = nb; *c; c++) {
                        if (*c == '"' || *c == '\\')
                            fputc('\\', out);
                        fputc(*c, out);
                    }
                    if (path < P)
                        fprintf(out, "@%u", path);
                    if (i + 1 < to)
                        fputc(',', out);
                }
                fputc('"', out);
            }
            put_link_attr(t, rate, topo_link_out(t, s, p), out);
            fputs("];\n", out);
        }
    }
    fputs("}\n", out);
    free(cnt);
    free(order);
    free(hp);
    if (conflicts)
        *conflicts = best.conflicts + best.salt_dep;
    ex_free(&best);
    return ferror(out) ? tn_error(err, errlen, "write error") : 0;
}

int topo_write_congestion_dot(const topo *t, FILE *out, const char *title, const uint64_t *load)
{
    uint64_t mx = 0;
    for (uint64_t l = 0; l < t->links; l++)
        if (load[l] > mx)
            mx = load[l];
    char na[256], nb[256];
    fprintf(out, "// %s\n", title);
    fprintf(out, "// ORCS's get_cable_cong: per directed link, the load summed over levels and runs (load),\n"
                 "// scaled by the largest (cong, 0..1), coloured from green (0) to red (1).\n");
    fprintf(out, "digraph congestion {\n");
    for (uint64_t l = 0; l < t->links; l++) {
        topo_end from, to;
        topo_link_ends(t, l, &from, &to);
        topo_node_name(t, from.kind == TOPO_HOST, from.id, na, sizeof na);
        topo_node_name(t, to.kind == TOPO_HOST, to.id, nb, sizeof nb);
        double x = mx ? (double)load[l] / (double)mx : 0.0;
        unsigned red = (unsigned)(255.0 * x + 0.5), green = 255u - red;
        fputs("  ", out);
        put_quoted(out, na);
        fputs(" -> ", out);
        put_quoted(out, nb);
        fprintf(out, " [link=%llu, load=%llu, cong=\"%.6f\", color=\"#%02x%02x00\"];\n", (unsigned long long)l,
                (unsigned long long)load[l], x, red, green);
    }
    fputs("}\n", out);
    return ferror(out) ? -1 : 0;
}
