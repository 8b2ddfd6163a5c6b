/* The functions every topology shares: link ids, static routes, the salt's
 * choices (contract in topo.h). */
#include "topo.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

void topo_free(topo *t)
{
    if (t->ops && t->ops->fini)
        t->ops->fini(t);
    memset(t, 0, sizeof *t);
}

uint32_t topo_link_out(const topo *t, uint32_t sw, uint32_t port)
{
    TN_ASSERT(sw < t->switches && port < t->ops->radix(t, sw), "%s: switch %u port %u out of range",
              t->ops->name, sw, port);
    return t->hosts + (uint32_t)t->ops->port_base(t, sw) + port;
}

uint32_t topo_link_down(const topo *t, uint32_t host)
{
    TN_ASSERT(host < t->hosts, "%s: host %u of %u", t->ops->name, host, t->hosts);
    uint32_t sw, port;
    t->ops->attach(t, host, &sw, &port);
    return topo_link_out(t, sw, port);
}

void topo_link_ends(const topo *t, uint64_t link, topo_end *from, topo_end *to)
{
    TN_ASSERT(link < t->links, "%s: link %llu of %u", t->ops->name, (unsigned long long)link, t->links);
    if (link < t->hosts) {
        uint32_t sw, port;
        t->ops->attach(t, (uint32_t)link, &sw, &port);
        *from = (topo_end){.kind = TOPO_HOST, .id = (uint32_t)link, .port = 0};
        *to = (topo_end){.kind = TOPO_SWITCH, .id = sw, .port = port};
        return;
    }
    uint64_t x = link - t->hosts;
    uint32_t sw = t->ops->locate(t, x);
    uint32_t port = (uint32_t)(x - t->ops->port_base(t, sw));
    *from = (topo_end){.kind = TOPO_SWITCH, .id = sw, .port = port};
    *to = t->ops->peer(t, sw, port);
}

size_t topo_route(const topo *t, uint32_t a, uint32_t b, uint64_t salt, uint64_t *links, uint8_t *vcs,
                  size_t max)
{
    TN_ASSERT(a < t->hosts && b < t->hosts, "%s: route %u -> %u of %u hosts", t->ops->name, a, b,
              t->hosts);
    topo_hdr h;
    t->ops->hdr_init(t, a, b, salt, &h);
    uint32_t sw, in;
    t->ops->attach(t, a, &sw, &in);
    size_t n = 0;
    if (n < max) {
        links[n] = topo_link_up(t, a);
        if (vcs)
            vcs[n] = 0;
    }
    n++;
    for (;;) {
        topo_hop c[TOPO_MAX_CAND];
        unsigned nc = t->ops->next(t, sw, &h, c);
        TN_ASSERT(nc >= 1, "%s: switch %u offers no hop toward %u", t->ops->name, sw, b);
        t->ops->take(t, sw, &c[0], &h);
        if (n < max) {
            links[n] = topo_link_out(t, sw, c[0].port);
            if (vcs)
                vcs[n] = c[0].vc;
        }
        n++;
        TN_ASSERT(n <= t->max_route_links, "%s: route %u -> %u longer than %u links", t->ops->name, a,
                  b, t->max_route_links);
        topo_end e = t->ops->peer(t, sw, c[0].port);
        if (e.kind == TOPO_HOST) {
            TN_ASSERT(e.id == b, "%s: route %u -> %u delivered to %u", t->ops->name, a, b, e.id);
            return n;
        }
        sw = e.id;
    }
}

void topo_route_many(const topo *t, size_t n, const uint64_t *ends, const uint64_t *salts, uint32_t *links,
                     uint32_t *len, size_t stride)
{
    TN_ASSERT(stride >= t->max_route_links, "%s: route stride %zu below the longest route, %u links", t->ops->name,
              stride, t->max_route_links);
    if (t->ops->route_many)
        t->ops->route_many(t, n, ends, salts, links, len, stride);
    else
        topo_route_each(t, n, ends, salts, links, len, stride);
}

void topo_route_each(const topo *t, size_t n, const uint64_t *ends, const uint64_t *salts, uint32_t *links,
                     uint32_t *len, size_t stride)
{
    uint64_t buf[64], *lk = buf;
    if (t->max_route_links > 64)
        lk = tn_xmalloc(t->max_route_links * sizeof *lk);
    for (size_t i = 0; i < n; i++) {
        size_t L = topo_route(t, (uint32_t)(ends[i] >> 32), (uint32_t)ends[i], salts[i], lk, NULL,
                              t->max_route_links);
        for (size_t j = 0; j < L; j++)
            links[i * stride + j] = (uint32_t)lk[j];
        len[i] = (uint32_t)L;
    }
    if (lk != buf)
        free(lk);
}

/* splitmix64's finalizer (Steele, Lea and Flood, OOPSLA 2014) */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint32_t topo_pick(uint64_t salt, uint32_t i, uint32_t n)
{
    TN_ASSERT(n >= 1, "topo_pick among 0 choices");
    uint64_t x = mix64(salt + ((uint64_t)i + 1) * UINT64_C(0x9e3779b97f4a7c15));
    /* multiply-shift on the high 32 bits: bias below n / 2^32 */
    return (uint32_t)(((x >> 32) * (uint64_t)n) >> 32);
}

/* ---- node and link names (export-topology's) ---- */

void topo_node_name(const topo *t, int host, uint32_t id, char *buf, size_t len)
{
    if (topo_is_graph(t))
        snprintf(buf, len, "%s", host ? topo_graph_host_name(t, id) : topo_graph_switch_name(t, id));
    else
        snprintf(buf, len, "%c%u", host ? 'H' : 'S', id);
}

uint32_t topo_node_find(const topo *t, const char *name, size_t len, int *host)
{
    if (topo_is_graph(t)) {
        for (uint32_t i = 0; i < t->switches; i++) {
            const char *s = topo_graph_switch_name(t, i);
            if (strlen(s) == len && strncmp(s, name, len) == 0) {
                *host = 0;
                return i;
            }
        }
        for (uint32_t i = 0; i < t->hosts; i++) {
            const char *s = topo_graph_host_name(t, i);
            if (strlen(s) == len && strncmp(s, name, len) == 0) {
                *host = 1;
                return i;
            }
        }
        return UINT32_MAX;
    }
    /* H<id> or S<id>: a decimal without sign or leading zeros */
    if (len < 2 || (name[0] != 'H' && name[0] != 'S') || (name[1] == '0' && len > 2))
        return UINT32_MAX;
    uint64_t v = 0;
    for (size_t i = 1; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return UINT32_MAX;
        v = v * 10 + (uint64_t)(name[i] - '0');
        if (v > UINT32_MAX)
            return UINT32_MAX;
    }
    *host = name[0] == 'H';
    if (v >= (*host ? t->hosts : t->switches))
        return UINT32_MAX;
    return (uint32_t)v;
}

int topo_link_name_split(const topo *t, const char *name, size_t len, uint32_t *a, int *ha, uint32_t *b, int *hb)
{
    for (size_t i = 1; i + 1 < len; i++) {
        if (name[i] != '-')
            continue;
        *a = topo_node_find(t, name, i, ha);
        if (*a == UINT32_MAX)
            continue;
        *b = topo_node_find(t, name + i + 1, len - i - 1, hb);
        if (*b != UINT32_MAX)
            return 0;
    }
    return -1;
}

/* ---- network.routing (topo.h) ---- */

static topo_routings *const routing_tables[] = {&topo_torus_routings, &topo_fattree_routings,
                                                &topo_leafspine_routings, &topo_dragonfly_routings,
                                                &topo_graph_routings};

/* Before main: each fabric's network.routing row points at its table's
 * choices and help (their contents depend only on the tables, so every run
 * sees the same). */
__attribute__((constructor)) static void routing_choices_init(void)
{
    for (size_t t = 0; t < sizeof routing_tables / sizeof routing_tables[0]; t++) {
        topo_routings *R = routing_tables[t];
        size_t n = 0, o = (size_t)snprintf(R->row_help, sizeof R->row_help, "%s: default (its first, %s)",
                                           R->topology, R->names[0]);
        R->choices[0] = "default";
        for (size_t i = 0; R->names[i]; i++) {
            TN_ASSERT(i < TOPO_ROUTINGS_MAX, "%s: more than %d routings", R->topology, TOPO_ROUTINGS_MAX);
            TN_ASSERT(strcmp(R->names[i], "default") != 0, "%s: a routing named default", R->topology);
            R->choices[++n] = R->names[i];
            /* the routing's own parameters, named in its help: "(dimension order, ...; reads network.dateline)" */
            const char *par = R->params[i];
            TN_ASSERT(par && R->help[i], "%s: routing %s has no entry in its help or parameters table", R->topology,
                      R->names[i]);
            if (o < sizeof R->row_help)
                o += (size_t)snprintf(R->row_help + o, sizeof R->row_help - o, " | %s (%s%s%s)", R->names[i],
                                      R->help[i], *par ? "; reads " : "", par);
        }
        TN_ASSERT(o < sizeof R->row_help, "%s: network.routing's help is longer than %zu", R->topology,
                  sizeof R->row_help);
        R->choices[n + 1] = NULL;
    }
}

int topo_routing_of(const char *const *names, int choice)
{
    if (choice == 0)
        return 0;
    for (int i = 0; names[i]; i++)
        if (i == choice - 1)
            return i;
    return -1;
}

void topo_routing_list(const char *const *names, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; names[i] && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", names[i]);
}
