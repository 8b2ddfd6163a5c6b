/* The three-tier k-port fat tree of Al-Fares, Loukissas and Vahdat ("A
 * Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008),
 * with an oversubscription factor at the edge; contract in topo.h.
 *
 * Graph. Every switch has k ports (k even). k pods; a pod has k/2 edge
 * switches and u aggregation switches; u k/2 core switches. An edge switch
 * has h = k - u hosts and u uplinks, one to each aggregation switch of its
 * pod; oversubscription o = h / u (o = 1: u = h = k/2, Al-Fares's tree,
 * k^3/4 hosts and full bisection; o = 3 with k = 16: u = 4, h = 12). An
 * aggregation switch has k/2 down ports (the pod's edges) and k/2 up
 * ports; core c = j k/2 + m links to aggregation switch j of every pod, on
 * its up port m. N = k (k/2) h hosts: host d is host i = d mod h of edge e
 * = (d / h) mod (k/2) of pod p = d / ((k/2) h).
 * Ids: edge (p, e) = p k/2 + e; aggregation (p, j) = k k/2 + p u + j; core
 * c = k k/2 + k u + c. Ports: edge 0..h-1 hosts, h + j up to aggregation j
 * (entering on its port e); aggregation 0..k/2-1 down to edge e (entering
 * on its port h + j), k/2 + m up to core j k/2 + m (entering on its port
 * p); core port p down to aggregation (p, c / (k/2)) (entering on its port
 * k/2 + c mod (k/2)). All switches have k ports: link N + k sw + port.
 *
 * Routing (up*-down*, one class; deadlock-free as the k-ary n-tree's):
 * a message climbs to the lowest level whose subtree holds the destination
 * d (the edge: eject; the pod: an aggregation switch; else a core) and
 * descends along the unique path. Up ports:
 *   d-mod-k: at the edge, aggregation j = d mod u; at the aggregation, core
 *     port m = (d / u) mod (k/2): destination-based, the two-level tables
 *     of Al-Fares section 3.3 spread by the destination's host number as
 *     d-mod-k does on the k-ary n-tree;
 *   random-up: j = topo_pick(salt, 0, u), m = topo_pick(salt, 1, k/2).
 *   anca: random-up's j and m and second draws j2 = topo_pick(salt, 2, u),
 *     m2 = topo_pick(salt, 3, k/2); when they differ both ports are offered
 *     (TOPO_HOP_LEAST, random-up's first) and the router takes the less
 *     occupied (topo_fattree.c's anca, BookSim2's fattree_anca).
 * h = 1 switch on one edge, 3 in one pod, 5 across pods.
 *
 * Uniform-random bound (each host sends to the N - 1 others uniformly),
 * d-mod-k: an edge uplink carries the h hosts' messages to the N - h hosts
 * off the edge whose d mod u is its j, a u-th of them (h is a multiple of
 * u, so every residue is equally common): h (N - h) / (u (N - 1)); an
 * aggregation uplink the (k/2) h hosts of the pod to a u k/2-th of the
 * N - (k/2) h hosts off the pod: h (N - (k/2) h) / (u (N - 1)), less; the
 * down links mirror them. bound = min(1, u (N - 1) / (h (N - h))): 1 for
 * o = 1, about 1/o above. random-up has the same means. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

typedef struct ft3 {
    uint32_t k, half, u, h; /* ports, k/2, uplinks per edge, hosts per edge */
    uint32_t nedge, nagg, ncore;
    topo_div dh, dhalf, du, dk, dpod; /* by h, k/2, u, k, hosts per pod */
    topo_fattree_routing routing;
} ft3;

static const ft3 *F3(const topo *t) { return t->priv; }

static uint32_t radix(const topo *t, uint32_t sw)
{
    (void)sw;
    return F3(t)->k;
}

static uint64_t port_base(const topo *t, uint32_t sw) { return (uint64_t)sw * F3(t)->k; }

static uint32_t locate(const topo *t, uint64_t x) { return (uint32_t)(x / F3(t)->k); }

static void attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    const ft3 *f = F3(t);
    TN_ASSERT(host < t->hosts, "fat-tree: host %u of %u", host, t->hosts);
    *sw = topo_div_q(f->dh, host); /* edges are numbered p k/2 + e = d / h */
    *port = topo_div_r(f->dh, host);
}

static topo_end peer(const topo *t, uint32_t sw, uint32_t port)
{
    const ft3 *f = F3(t);
    TN_ASSERT(sw < t->switches && port < f->k, "fat-tree: switch %u port %u", sw, port);
    if (sw < f->nedge) {
        if (port < f->h)
            return (topo_end){.kind = TOPO_HOST, .id = sw * f->h + port, .port = 0};
        uint32_t p = topo_div_q(f->dhalf, sw), e = sw - p * f->half, j = port - f->h;
        return (topo_end){.kind = TOPO_SWITCH, .id = f->nedge + p * f->u + j, .port = e};
    }
    if (sw < f->nedge + f->nagg) {
        uint32_t a = sw - f->nedge, p = topo_div_q(f->du, a), j = a - p * f->u;
        if (port < f->half)
            return (topo_end){.kind = TOPO_SWITCH, .id = p * f->half + port, .port = f->h + j};
        uint32_t m = port - f->half;
        return (topo_end){.kind = TOPO_SWITCH, .id = f->nedge + f->nagg + j * f->half + m, .port = p};
    }
    uint32_t c = sw - f->nedge - f->nagg, j = topo_div_q(f->dhalf, c), m = c - j * f->half;
    return (topo_end){.kind = TOPO_SWITCH, .id = f->nedge + port * f->u + j, .port = f->half + m};
}

static void hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *hd)
{
    TN_ASSERT(src < t->hosts && dst < t->hosts, "fat-tree: %u -> %u of %u hosts", src, dst, t->hosts);
    memset(hd, 0, sizeof *hd);
    hd->src = src;
    hd->dst = dst;
    hd->salt = salt;
}

/* anca: the second up port `port` beside out[0] (when it differs) */
static unsigned anca2(topo_hop *out, uint32_t port)
{
    if (port == out[0].port)
        return 1;
    out[0].kind = TOPO_HOP_LEAST;
    out[1] = out[0];
    out[1].port = port;
    return 2;
}

static unsigned next(const topo *t, uint32_t sw, const topo_hdr *hd, topo_hop *out)
{
    const ft3 *f = F3(t);
    uint32_t d = hd->dst, de = topo_div_q(f->dh, d), dp = topo_div_q(f->dhalf, de);
    if (sw < f->nedge) {
        if (de == sw) {
            out[0] = (topo_hop){.port = d - de * f->h, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 0};
            return 1;
        }
        uint32_t j = f->routing == TOPO_FT_DMODK ? topo_div_r(f->du, d) : topo_pick(hd->salt, 0, f->u);
        uint32_t p = topo_div_q(f->dhalf, sw);
        out[0] = (topo_hop){.port = f->h + j, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = p == dp ? 2 : 4};
        return f->routing == TOPO_FT_ANCA ? anca2(out, f->h + topo_pick(hd->salt, 2, f->u)) : 1;
    }
    if (sw < f->nedge + f->nagg) {
        uint32_t a = sw - f->nedge, p = topo_div_q(f->du, a);
        if (p == dp) {
            out[0] = (topo_hop){.port = de - dp * f->half, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 1};
            return 1;
        }
        uint32_t m = f->routing == TOPO_FT_DMODK ? topo_div_r(f->dhalf, topo_div_q(f->du, d))
                                                 : topo_pick(hd->salt, 1, f->half);
        out[0] = (topo_hop){.port = f->half + m, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 3};
        return f->routing == TOPO_FT_ANCA ? anca2(out, f->half + topo_pick(hd->salt, 3, f->half)) : 1;
    }
    out[0] = (topo_hop){.port = dp, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 2};
    return 1;
}

static void take(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *hd)
{
    (void)t, (void)sw, (void)c, (void)hd; /* the route is a function of the switch, d and the salt */
}

/* anca: the up port whose output the router finds less occupied, the first
 * (random-up's) on a tie (BookSim2's fattree_anca) */
static unsigned choose(const topo *t, uint32_t sw, const topo_hdr *h, const topo_hop *c, unsigned n,
                       const topo_probe *pr)
{
    (void)t, (void)h;
    TN_ASSERT(c[0].kind == TOPO_HOP_LEAST, "fat-tree: %u candidates at switch %u", n, sw);
    return topo_choose_least(c, n, pr);
}

/* topo_route_many's kernel: next and peer above, composed per pair (the
 * route's links are N + k sw + port; 2, 4 or 6 of them). */
static void route_many(const topo *t, size_t n, const uint64_t *ends, const uint64_t *salts, uint32_t *links,
                       uint32_t *len, size_t stride)
{
    const ft3 *f = F3(t);
    const uint32_t N = t->hosts, k = f->k, agg0 = f->nedge, core0 = f->nedge + f->nagg;
    const int dmodk = f->routing == TOPO_FT_DMODK;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = (uint32_t)(ends[i] >> 32), d = (uint32_t)ends[i];
        TN_ASSERT(a < N && d < N, "fat-tree: route %u -> %u of %u hosts", a, d, N);
        uint32_t *o = links + i * stride;
        uint32_t se = topo_div_q(f->dh, a), de = topo_div_q(f->dh, d), dp = topo_div_q(f->dhalf, de);
        uint32_t down = N + k * de + (d - de * f->h); /* the edge's port to d */
        o[0] = a;
        if (se == de) {
            o[1] = down;
            len[i] = 2;
            continue;
        }
        uint32_t j = dmodk ? topo_div_r(f->du, d) : topo_pick(salts[i], 0, f->u);
        uint32_t p = topo_div_q(f->dhalf, se);
        o[1] = N + k * se + f->h + j;
        uint32_t ag = agg0 + p * f->u + j;
        if (p == dp) {
            o[2] = N + k * ag + (de - dp * f->half);
            o[3] = down;
            len[i] = 4;
            continue;
        }
        uint32_t m = dmodk ? topo_div_r(f->dhalf, topo_div_q(f->du, d)) : topo_pick(salts[i], 1, f->half);
        o[2] = N + k * ag + f->half + m;
        o[3] = N + k * (core0 + j * f->half + m) + dp;
        o[4] = N + k * (agg0 + dp * f->u + j) + (de - dp * f->half);
        o[5] = down;
        len[i] = 6;
    }
}

static double uniform_bound(const topo *t)
{
    const ft3 *f = F3(t);
    double N = t->hosts;
    if (N - f->h <= 0)
        return 1;
    double b = (double)f->u * (N - 1) / ((double)f->h * (N - f->h));
    return b < 1 ? b : 1;
}

static void fini(topo *t) { free(t->priv); }

/* The up ports of an edge (h..h+u-1: every aggregation switch of the pod)
 * and of an aggregation switch (k/2..k-1: its cores, each linked to the
 * aggregation switch of the same index in every pod) are one group each:
 * any of them reaches an ancestor of every destination above it
 * (topo_fail.c). */
static uint32_t port_group(const topo *t, uint32_t sw, uint32_t port, uint32_t *first)
{
    const ft3 *f = F3(t);
    if (sw < f->nedge && port >= f->h) {
        *first = f->h;
        return f->u;
    }
    if (sw >= f->nedge && sw < f->nedge + f->nagg && port >= f->half) {
        *first = f->half;
        return f->half;
    }
    *first = port;
    return 1;
}

static const topo_ops ft3_ops = {
    .name = "fat-tree",
    .radix = radix,
    .port_base = port_base,
    .locate = locate,
    .attach = attach,
    .peer = peer,
    .hdr_init = hdr_init,
    .next = next,
    .take = take,
    .choose = choose,
    .uniform_bound = uniform_bound,
    .fini = fini,
    .port_group = port_group,
    .route_many = route_many,
};

uint64_t topo_fattree3_hosts(uint32_t k, uint32_t o)
{
    if (k < 4 || k % 2 || o < 1 || k % (o + 1))
        return 0;
    uint64_t u = k / (o + 1);
    if (u > k / 2)
        return 0;
    return (uint64_t)k * (k / 2) * (k - u);
}

int topo_fattree3_check(const topo_fattree3_params *p, char *err, size_t errlen)
{
    if (p->ports < 4 || p->ports % 2)
        return tn_error(err, errlen, "fat-tree: ports=%u: the three-tier tree needs an even k >= 4", p->ports);
    if (p->oversubscription < 1)
        return tn_error(err, errlen, "fat-tree: oversubscription=%u must be at least 1", p->oversubscription);
    if (p->ports % (p->oversubscription + 1))
        return tn_error(err, errlen,
                        "fat-tree: oversubscription=%u needs k = ports=%u to split into hosts and uplinks o : 1 "
                        "(o + 1 = %u must divide k)",
                        p->oversubscription, p->ports, p->oversubscription + 1);
    if (p->ports > 1024 || topo_fattree3_hosts(p->ports, p->oversubscription) > TOPO_MAX_HOSTS)
        return tn_error(err, errlen, "fat-tree: ports=%u gives too many hosts", p->ports);
    if (p->routing != TOPO_FT_DMODK && p->routing != TOPO_FT_RANDOM_UP && p->routing != TOPO_FT_ANCA)
        return tn_error(err, errlen, "fat-tree: unknown routing %d", (int)p->routing);
    return 0;
}

int topo_fattree3_init(topo *t, const topo_fattree3_params *p, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (topo_fattree3_check(p, err, errlen) != 0)
        return -1;
    ft3 *f = tn_xcalloc(1, sizeof *f);
    f->k = p->ports;
    f->half = f->k / 2;
    f->u = f->k / (p->oversubscription + 1);
    f->h = f->k - f->u;
    f->nedge = f->k * f->half;
    f->nagg = f->k * f->u;
    f->ncore = f->u * f->half;
    f->dh = topo_div_make(f->h);
    f->dhalf = topo_div_make(f->half);
    f->du = topo_div_make(f->u);
    f->dk = topo_div_make(f->k);
    f->routing = p->routing;
    t->ops = &ft3_ops;
    t->priv = f;
    t->hosts = f->nedge * f->h;
    t->switches = f->nedge + f->nagg + f->ncore;
    t->max_radix = f->k;
    t->links = t->hosts + t->switches * f->k;
    t->max_route_links = 6;
    t->vcs = 1;
    t->routing = (uint8_t)p->routing;
    t->adaptive = p->routing == TOPO_FT_ANCA;
    return 0;
}
