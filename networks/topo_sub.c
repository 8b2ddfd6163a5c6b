/* Partly populated fabrics (contract in topo.h): N of a topology's H
 * hosts are present (system.nodes below the host count,
 * network.placement). Node i sits on host
 *   first   i                 (the first hosts: whole leaves / routers in
 *                               host order, the last one partly filled)
 *   spread  floor(i H / N)    (evenly over the fabric)
 * of the base topology. The switches, their links and the routing are the
 * base's; a switch port that leads to an absent host does not exist here
 * (each switch's remaining ports are renumbered in order), so link ids are
 * [0, N) for the hosts' uplinks and N + port_base(s) + p as for any
 * topology. Routes are the base's (next and take translate ports), so the
 * hop counts, virtual channel classes and deadlock freedom are the base's.
 * The uniform-random bound is the whole fabric's: with fewer hosts the
 * links carry less, so it is a lower bound of the populated fabric's.
 * Memory: a port map each way (4 B a port) and the host maps (4 B a host). */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

const char *const topo_placement_names[] = {"full", "first", "spread", NULL};

typedef struct sub {
    topo_ops ops;    /* the template's, named as the base (freed with it) */
    topo base;
    uint32_t *h2b;   /* [N] base host of each host */
    uint32_t *b2h;   /* [H] host of each base host, UINT32_MAX when absent */
    uint64_t *pbase; /* [S + 1] first port index of each switch here */
    uint32_t *b2w;   /* [base ports] the port here of each base port (within its switch), UINT32_MAX when gone */
    uint32_t *w2b;   /* [ports here] the base port (within its switch) */
} sub;

static const sub *U(const topo *t) { return t->priv; }

static uint32_t radix(const topo *t, uint32_t sw) { return (uint32_t)(U(t)->pbase[sw + 1] - U(t)->pbase[sw]); }

static uint64_t port_base(const topo *t, uint32_t sw) { return U(t)->pbase[sw]; }

static uint32_t locate(const topo *t, uint64_t x)
{
    const sub *u = U(t);
    uint32_t lo = 0, hi = t->switches;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (u->pbase[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static inline uint32_t to_here(const sub *u, uint32_t sw, uint32_t bport)
{
    return u->b2w[u->base.ops->port_base(&u->base, sw) + bport];
}

static void attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    const sub *u = U(t);
    TN_ASSERT(host < t->hosts, "partly populated: host %u of %u", host, t->hosts);
    uint32_t bp;
    u->base.ops->attach(&u->base, u->h2b[host], sw, &bp);
    *port = to_here(u, *sw, bp);
}

static topo_end peer(const topo *t, uint32_t sw, uint32_t port)
{
    const sub *u = U(t);
    topo_end e = u->base.ops->peer(&u->base, sw, u->w2b[u->pbase[sw] + port]);
    if (e.kind == TOPO_HOST)
        e.id = u->b2h[e.id];
    else
        e.port = to_here(u, e.id, e.port);
    return e;
}

static void hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    const sub *u = U(t);
    TN_ASSERT(src < t->hosts && dst < t->hosts, "partly populated: %u -> %u of %u hosts", src, dst, t->hosts);
    u->base.ops->hdr_init(&u->base, u->h2b[src], u->h2b[dst], salt, h);
}

static unsigned next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    const sub *u = U(t);
    unsigned n = u->base.ops->next(&u->base, sw, h, out);
    uint64_t b = u->base.ops->port_base(&u->base, sw);
    for (unsigned i = 0; i < n; i++)
        out[i].port = u->b2w[b + out[i].port];
    return n;
}

static void take(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *h)
{
    const sub *u = U(t);
    topo_hop b = *c;
    b.port = u->w2b[u->pbase[sw] + c->port];
    u->base.ops->take(&u->base, sw, &b, h);
}

/* The base's choice over the candidates as next translated them (it hands the probe only their ports). */
static unsigned choose(const topo *t, uint32_t sw, const topo_hdr *h, const topo_hop *c, unsigned n,
                       const topo_probe *pr)
{
    const sub *u = U(t);
    return u->base.ops->choose(&u->base, sw, h, c, n, pr);
}

/* A link's own rate and latency are its base link's (link ids translated). */
static int link_attr(const topo *t, uint64_t link, double *bps, int64_t *ps)
{
    return U(t)->base.ops->link_attr(&U(t)->base, topo_sub_link_base(t, link), bps, ps);
}

static double uniform_bound(const topo *t) { return U(t)->base.ops->uniform_bound(&U(t)->base); }

static void fini(topo *t)
{
    sub *u = t->priv;
    if (!u)
        return;
    topo_free(&u->base);
    free(u->h2b);
    free(u->b2h);
    free(u->pbase);
    free(u->b2w);
    free(u->w2b);
    free(u);
}

static const topo_ops sub_ops_tmpl = {
    .radix = radix,
    .port_base = port_base,
    .locate = locate,
    .attach = attach,
    .peer = peer,
    .hdr_init = hdr_init,
    .next = next,
    .take = take,
    .uniform_bound = uniform_bound,
    .fini = fini,
};

uint32_t topo_placement_host(topo_placement how, uint32_t i, uint32_t n, uint32_t hosts)
{
    if (how == TOPO_PLACE_SPREAD)
        return (uint32_t)((uint64_t)i * hosts / n);
    return i;
}

int topo_sub_init(topo *t, topo *base, uint32_t n, topo_placement how, char *err, size_t errlen)
{
    uint32_t H = base->hosts, S = base->switches;
    if (n < 1 || n > H)
        return tn_error(err, errlen, "N = %u, but the %s has %u hosts (a partly populated fabric has 1..%u)", n,
                        base->ops->name, H, H);
    sub *u = tn_xcalloc(1, sizeof *u);
    u->base = *base;
    memset(base, 0, sizeof *base);
    const topo *b = &u->base;
    u->h2b = tn_xmalloc((size_t)n * sizeof *u->h2b);
    u->b2h = tn_xmalloc((size_t)H * sizeof *u->b2h);
    for (uint32_t h = 0; h < H; h++)
        u->b2h[h] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        u->h2b[i] = topo_placement_host(how, i, n, H);
        u->b2h[u->h2b[i]] = i;
    }
    uint64_t BP = b->ops->port_base(b, S - 1) + b->ops->radix(b, S - 1);
    u->b2w = tn_xmalloc((BP + 1) * sizeof *u->b2w);
    u->w2b = tn_xmalloc((BP + 1) * sizeof *u->w2b);
    u->pbase = tn_xmalloc(((size_t)S + 1) * sizeof *u->pbase);
    uint64_t k = 0;
    uint32_t maxr = 0;
    for (uint32_t s = 0; s < S; s++) {
        u->pbase[s] = k;
        uint32_t r = b->ops->radix(b, s);
        uint64_t bb = b->ops->port_base(b, s);
        for (uint32_t p = 0; p < r; p++) {
            topo_end e = b->ops->peer(b, s, p);
            if (e.kind == TOPO_HOST && u->b2h[e.id] == UINT32_MAX) {
                u->b2w[bb + p] = UINT32_MAX;
                continue;
            }
            u->b2w[bb + p] = (uint32_t)(k - u->pbase[s]);
            u->w2b[k++] = p;
        }
        if (k - u->pbase[s] > maxr)
            maxr = (uint32_t)(k - u->pbase[s]);
    }
    u->pbase[S] = k;
    /* the operations: the template's, named as the base */
    u->ops = sub_ops_tmpl;
    u->ops.name = b->ops->name;
    u->ops.link_attr = b->ops->link_attr ? link_attr : NULL;
    u->ops.choose = b->ops->choose ? choose : NULL;
    memset(t, 0, sizeof *t);
    t->ops = &u->ops;
    t->priv = u;
    t->hosts = n;
    t->switches = S;
    t->max_radix = maxr;
    t->links = (uint32_t)(n + k);
    t->max_route_links = b->max_route_links;
    t->vcs = b->vcs;
    t->routing = b->routing;
    t->adaptive = b->adaptive;
    return 0;
}

uint64_t topo_sub_link_base(const topo *t, uint64_t link)
{
    const sub *u = U(t);
    if (link < t->hosts)
        return u->h2b[link];
    uint64_t x = link - t->hosts;
    uint32_t sw = locate(t, x);
    return topo_link_out(&u->base, sw, u->w2b[x]);
}

const topo *topo_sub_base(const topo *t, uint32_t *host)
{
    if (!t->ops || t->ops->attach != attach)
        return NULL;
    const sub *u = U(t);
    if (host)
        *host = u->h2b[*host];
    return &u->base;
}
