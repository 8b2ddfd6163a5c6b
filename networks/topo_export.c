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
 * Routes: the route of every ordered pair (a, b), a != b, with salt 0
 * (topo_route's first candidate at each switch) fixes at each switch it
 * crosses the port and virtual channel class toward b (the same route with
 * two other salts must agree: a choice a message's salt makes is a
 * conflict); the comment of an
 * edge lists the destinations leaving on it in class 0 and vc1 .. vc7
 * those in the higher classes. The file is destination-based, as an
 * InfiniBand forwarding table: a routing that sends one destination out of
 * one switch by different ports or classes depending on the source or the
 * message (the dragonfly's per-source global slices when a h / (g - 1) >
 * 1, its class rising after a global hop, a torus's ties at k/2 drawn per
 * message, random-up, ECMP, Valiant) keeps the first source's choice, and
 * the number of such conflicts is reported as a warning: the re-imported
 * fabric then routes differently from the parametric one. Work O(N^2 x
 * route length), memory S x N x 2 bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

#define EX_NONE UINT16_MAX

/* A link's own rate and latency (topo_ops.link_attr), as edge attributes:
 * written only for links that have them (the others run at the fabric's
 * network.bandwidth and link-latency when read back). */
static void put_link_attr(const topo *t, uint64_t link, FILE *out)
{
    double bps;
    int64_t ps;
    if (!t->ops->link_attr || !t->ops->link_attr(t, link, &bps, &ps))
        return;
    if (bps > 0)
        fprintf(out, ", bandwidth=\"%.17gb/s\"", bps);
    if (ps >= 0)
        fprintf(out, ", latency=\"%lldps\"", (long long)ps);
}

static void node_name(const topo *t, int host, uint32_t id, char *buf, size_t len)
{
    if (topo_is_graph(t))
        snprintf(buf, len, "%s", host ? topo_graph_host_name(t, id) : topo_graph_switch_name(t, id));
    else
        snprintf(buf, len, "%c%u", host ? 'H' : 'S', id);
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

int topo_export_dot(const topo *t, FILE *out, const char *title, uint64_t *conflicts, char *err, size_t errlen)
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
    size_t cells = (size_t)N * S;
    uint16_t *tab = tn_xmalloc(cells * sizeof *tab + 2);
    for (size_t i = 0; i < cells; i++)
        tab[i] = EX_NONE;
    uint64_t nconf = 0;
    /* salt 0 writes the table; two more salts (every bit flipped, and a
     * golden-ratio mix) find the choices a message's salt makes */
    static const uint64_t salts[] = {0, UINT64_MAX, UINT64_C(0x9e3779b97f4a7c15)};
    for (uint32_t b = 0; b < N; b++)
        for (uint32_t a = 0; a < N; a++)
            for (unsigned si = 0; si < 3; si++) {
            if (a == b)
                continue;
            topo_hdr h;
            t->ops->hdr_init(t, a, b, salts[si], &h);
            uint32_t sw, in;
            t->ops->attach(t, a, &sw, &in);
            for (uint32_t hop = 0; hop <= t->max_route_links; hop++) {
                topo_hop c[TOPO_MAX_CAND];
                unsigned nc = t->ops->next(t, sw, &h, c);
                TN_ASSERT(nc >= 1, "%s: switch %u offers no hop toward %u", t->ops->name, sw, b);
                t->ops->take(t, sw, &c[0], &h);
                uint16_t e = (uint16_t)(c[0].port | (unsigned)c[0].vc << 12);
                uint16_t *cell = &tab[(size_t)sw * N + b];
                if (*cell == EX_NONE)
                    *cell = e;
                else if (*cell != e)
                    nconf++;
                topo_end pe = t->ops->peer(t, sw, c[0].port);
                if (pe.kind == TOPO_HOST)
                    break;
                sw = pe.id;
            }
        }
    char na[256], nb[256];
    fprintf(out, "// %s\n", title);
    fprintf(out, "// %u hosts, %u switches, %u virtual channel classes; written by tasknet export-topology:\n", N, S,
            t->vcs);
    fprintf(out, "// read with <network type=\"graph\" file=\"...\"/> (routing=\"file\", the default).\n");
    fprintf(out, "digraph fabric {\n");
    for (uint32_t h = 0; h < N; h++) {
        node_name(t, 1, h, na, sizeof na);
        fputs("  ", out);
        put_quoted(out, na);
        fputs(" [kind=host];\n", out);
    }
    for (uint32_t s = 0; s < S; s++) {
        node_name(t, 0, s, na, sizeof na);
        fputs("  ", out);
        put_quoted(out, na);
        fputs(" [kind=switch];\n", out);
    }
    for (uint32_t h = 0; h < N; h++) {
        uint32_t sw, port;
        t->ops->attach(t, h, &sw, &port);
        node_name(t, 1, h, na, sizeof na);
        node_name(t, 0, sw, nb, sizeof nb);
        fputs("  ", out);
        put_quoted(out, na);
        fputs(" -> ", out);
        put_quoted(out, nb);
        fprintf(out, " [hport=%u, comment=\"*\"", port);
        put_link_attr(t, topo_link_up(t, h), out);
        fputs("];\n", out);
    }
    /* per switch: destinations grouped by (port, class) with a counting sort */
    uint32_t maxr = t->max_radix ? t->max_radix : 1;
    size_t nkeys = (size_t)maxr * 8;
    uint32_t *cnt = tn_xcalloc(nkeys + 1, sizeof *cnt);
    uint32_t *order = tn_xmalloc(((size_t)N + 1) * sizeof *order);
    for (uint32_t s = 0; s < S; s++) {
        uint32_t r = t->ops->radix(t, s);
        memset(cnt, 0, (nkeys + 1) * sizeof *cnt);
        for (uint32_t d = 0; d < N; d++) {
            uint16_t e = tab[(size_t)s * N + d];
            if (e != EX_NONE)
                cnt[(size_t)(e & 0xFFF) * 8 + (e >> 12) + 1]++;
        }
        for (size_t k = 0; k < nkeys; k++)
            cnt[k + 1] += cnt[k];
        for (uint32_t d = 0; d < N; d++) {
            uint16_t e = tab[(size_t)s * N + d];
            if (e != EX_NONE)
                order[cnt[(size_t)(e & 0xFFF) * 8 + (e >> 12)]++] = d;
        }
        /* cnt[k] is now the end of key k's run; its start is cnt[k - 1] (0 for k = 0) */
        node_name(t, 0, s, na, sizeof na);
        for (uint32_t p = 0; p < r; p++) {
            topo_end pe = t->ops->peer(t, s, p);
            node_name(t, pe.kind == TOPO_HOST, pe.id, nb, sizeof nb);
            fputs("  ", out);
            put_quoted(out, na);
            fputs(" -> ", out);
            put_quoted(out, nb);
            if (pe.kind == TOPO_HOST)
                fprintf(out, " [tport=%u", p);
            else
                fprintf(out, " [tport=%u, hport=%u", p, pe.port);
            for (unsigned v = 0; v < 8; v++) {
                size_t k = (size_t)p * 8 + v;
                size_t from = k ? cnt[k - 1] : 0, to = cnt[k];
                if (from == to && v > 0)
                    continue;
                fprintf(out, v ? ", vc%u=\"" : ", comment=\"", v);
                for (size_t i = from; i < to; i++) {
                    node_name(t, 1, order[i], nb, sizeof nb);
                    for (const char *c = nb; *c; c++) {
                        if (*c == '"' || *c == '\\')
                            fputc('\\', out);
                        fputc(*c, out);
                    }
                    if (i + 1 < to)
                        fputc(',', out);
                }
                fputc('"', out);
            }
            put_link_attr(t, topo_link_out(t, s, p), out);
            fputs("];\n", out);
        }
    }
    fputs("}\n", out);
    free(cnt);
    free(order);
    free(tab);
    if (conflicts)
        *conflicts = nconf;
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
        node_name(t, from.kind == TOPO_HOST, from.id, na, sizeof na);
        node_name(t, to.kind == TOPO_HOST, to.id, nb, sizeof nb);
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
