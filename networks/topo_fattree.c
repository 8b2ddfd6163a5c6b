/* Fat tree: the k-ary n-tree (Petrini and Vanneschi, 1997), contract in topo.h.
 *
 * Graph. N = k^n hosts; n levels l = 0 (leaves) .. n-1 (top) of k^(n-1)
 * switches each. Switch i of level l (global id l k^(n-1) + i) is written
 * (p, q) with p = i / k^l, q = i mod k^l: p names the subtree of the
 * k^(l+1) hosts h with h / k^(l+1) = p that it serves, q its place among the
 * k^l switches of level l serving them. Ports 0..k-1 go down, k..2k-1 up (the
 * top level has only the k down ports).
 *   level 0, down port j:      host p k + j
 *   level l > 0, down port j:  level l-1 switch (p k + j, q mod k^(l-1)),
 *                              entering on its up port k + q / k^(l-1)
 *   level l < n-1, up port k+j: level l+1 switch (p / k, q + j k^l),
 *                              entering on its down port p mod k
 * Links: host uplinks [0, N), then N + 2k i for switch i below the top level
 * and N + 2k (n-1) k^(n-1) + k i' for top switch i': 2 n N in all.
 *
 * Routing (up*-down*): from host a the message climbs to the lowest level L
 * whose subtree holds b (a / k^(L+1) = b / k^(L+1); L = 0 on one leaf),
 * then descends along the unique path to b: at level l the down port is
 * digit l of b, (b / k^l) mod k. Up ports:
 *   d-mod-k: at level l, up port b_l = (b / k^l) mod k (Zahavi's D-mod-K).
 *     This is what OpenSM's ftree routing computes on a complete k-ary
 *     n-tree: it routes the hosts in index order, and from each host's leaf
 *     climbs through the up-port group with the fewest downward routes so
 *     far, the lowest index on a tie (osm_ucast_ftree.c,
 *     fabric_route_downgoing_by_going_up; bubble_sort_down; "picks the
 *     lowest INDEX to be deterministic"): on the leaf of b the k hosts take
 *     ports 0..k-1 in turn, so b's port is b_0; the level-1 switch (b /
 *     k^2, b_0) sees the hosts with that b_0 in the order of b_1, so b_1;
 *     and so on. Every other switch forwards b up toward that main path
 *     (fabric_route_upgoing_by_going_down), i.e. along the same digits: the
 *     route to b is fixed by b alone (destination-based, InfiniBand LFTs).
 *   random-up: at level l, up port topo_pick(salt, l, k): uniform, one draw
 *     per level from the message's salt (BookSim's fattree "nca" routing
 *     picks a random up port).
 *   anca (adaptive nearest common ancestor, BookSim2's fattree_anca in
 *     routefunc.cpp): at level l two up ports are drawn, j1 = topo_pick(salt,
 *     l, k) (random-up's) and j2 = topo_pick(salt, ANCA_PICK + l, k); when
 *     they differ both are offered (TOPO_HOP_LEAST, j1 first) and the
 *     router takes the less occupied output, j1 on a tie (BookSim2 compares
 *     the used credits of the two outputs, GetUsedCredit, and keeps the
 *     first unless the second has fewer: the "power of two choices"). Both
 *     are up ports to ancestors of this subtree, so the route stays up*-
 *     down* and minimal whichever is taken; at zero load it is random-up's.
 * h = 2L + 1 switches.
 *
 * Deadlock freedom (up*-down*, as OpenSM's ftree and updn are credit-loop
 * free): order the channels as up links by level, then down links by
 * decreasing level. A route uses up links of increasing level, then down
 * links of decreasing level, so each dependency goes forward in this
 * order: the channel dependency graph is acyclic with one class.
 *
 * Uniform-random bound. Host links carry lambda. The up link from switch
 * (p, q) of level l, port j, carries (d-mod-k) the messages from the
 * k^(l+1) hosts of subtree p to the hosts outside it whose digits 0..l are
 * those of q + j k^l: (N - k^(l+1)) / k^(l+1) of them, each receiving
 * lambda / (N - 1) from each source: load lambda (N - k^(l+1)) / (N - 1) <
 * lambda. The down links mirror it; random-up spreads the same total over
 * the k^(l+1) up links of the subtree evenly, the same mean. The tree has
 * full bisection: bound 1 (for any k, n). */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

const char *const topo_fattree_routing_names[] = {"d-mod-k", "random-up", "anca", NULL};
const char *const topo_fattree_routing_help[] = {"up port by the destination's digits, OpenSM's ftree",
                                                 "a random up port per level, BookSim2's nca",
                                                 "the less occupied of two random up ports, BookSim2's anca", NULL};
const char *const topo_fattree_routing_params[] = {"", "", "", NULL};
/* network.routing's row for the fat-tree (topo.h; topo.c fills choices and help before main) */
topo_routings topo_fattree_routings = {.topology = "fat-tree", .names = topo_fattree_routing_names, .help = topo_fattree_routing_help,
                                  .params = topo_fattree_routing_params};

typedef struct fattree {
    uint32_t k, n;                    /* arity, levels */
    uint32_t per_level;               /* k^(n-1) switches per level */
    uint32_t pow[TOPO_MAX_DIMS * 2 + 2]; /* k^0 .. k^n */
    topo_div dk, dper;                /* divisions by k and by per_level (topo_div) */
    topo_div dpow[TOPO_MAX_DIMS * 2 + 2]; /* by k^0 .. k^n */
    topo_fattree_routing routing;
} fattree;

#define ANCA_PICK 64 /* anca's second draw per level: topo_pick(salt, ANCA_PICK + l, k) */

static const fattree *F(const topo *t) { return t->priv; }

static uint32_t level_of(const fattree *f, uint32_t sw) { return topo_div_q(f->dper, sw); }

static uint32_t radix(const topo *t, uint32_t sw)
{
    const fattree *f = F(t);
    return level_of(f, sw) + 1 < f->n ? 2 * f->k : f->k;
}

static uint64_t port_base(const topo *t, uint32_t sw)
{
    const fattree *f = F(t);
    uint64_t below = (uint64_t)(f->n - 1) * f->per_level; /* switches with 2k ports */
    if (sw < below)
        return (uint64_t)sw * 2 * f->k;
    return below * 2 * f->k + (uint64_t)(sw - below) * f->k;
}

static uint32_t locate(const topo *t, uint64_t x)
{
    const fattree *f = F(t);
    uint64_t below = (uint64_t)(f->n - 1) * f->per_level;
    if (x < below * 2 * f->k)
        return (uint32_t)(x / (2 * f->k));
    return (uint32_t)(below + (x - below * 2 * f->k) / f->k);
}

static void attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    TN_ASSERT(host < t->hosts, "fat-tree: host %u of %u", host, t->hosts);
    *sw = topo_div_q(F(t)->dk, host);
    *port = topo_div_r(F(t)->dk, host);
}

static topo_end peer(const topo *t, uint32_t sw, uint32_t port)
{
    const fattree *f = F(t);
    TN_ASSERT(sw < t->switches && port < radix(t, sw), "fat-tree: switch %u port %u", sw, port);
    uint32_t k = f->k, l = level_of(f, sw), i = sw - l * f->per_level;
    uint32_t p = topo_div_q(f->dpow[l], i), q = i - p * f->pow[l];
    if (port < k) {
        if (l == 0)
            return (topo_end){.kind = TOPO_HOST, .id = p * k + port, .port = 0};
        uint32_t qh = topo_div_q(f->dpow[l - 1], q);
        uint32_t lo = (p * k + port) * f->pow[l - 1] + (q - qh * f->pow[l - 1]);
        return (topo_end){.kind = TOPO_SWITCH,
                          .id = (l - 1) * f->per_level + lo,
                          .port = k + qh};
    }
    uint32_t j = port - k, pk = topo_div_q(f->dk, p);
    uint32_t up = pk * f->pow[l + 1] + q + j * f->pow[l];
    return (topo_end){.kind = TOPO_SWITCH, .id = (l + 1) * f->per_level + up, .port = p - pk * k};
}

static void hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    TN_ASSERT(src < t->hosts && dst < t->hosts, "fat-tree: %u -> %u of %u hosts", src, dst,
              t->hosts);
    memset(h, 0, sizeof *h);
    h->src = src;
    h->dst = dst;
    h->salt = salt;
}

/* Level of the nearest common ancestor of hosts a and b, known to be at
 * least `from`. */
static uint32_t nca_level(const fattree *f, uint32_t a, uint32_t b, uint32_t from)
{
    uint32_t l = from;
    while (topo_div_q(f->dpow[l + 1], a) != topo_div_q(f->dpow[l + 1], b))
        l++;
    return l;
}

static unsigned next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    const fattree *f = F(t);
    uint32_t l = level_of(f, sw), i = sw - l * f->per_level;
    uint32_t p = topo_div_q(f->dpow[l], i), b = h->dst;
    uint32_t bl = topo_div_q(f->dpow[l], b), digit = topo_div_r(f->dk, bl); /* b / k^l, (b / k^l) mod k */
    if (p == topo_div_q(f->dk, bl)) { /* b is below (b / k^(l+1) = p): go down */
        out[0] = (topo_hop){.port = digit, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = (uint16_t)l};
        return 1;
    }
    TN_ASSERT(l + 1 < f->n, "fat-tree: top switch %u does not hold %u", sw, b);
    uint32_t k = f->k, j = f->routing == TOPO_FT_DMODK ? digit : topo_pick(h->salt, l, k);
    /* climb to the common ancestor of this subtree and b, then down to b's leaf */
    uint32_t L = nca_level(f, p * f->pow[l + 1], b, l + 1); /* b is outside subtree p of level l */
    out[0] = (topo_hop){.port = k + j, .vc = 0, .kind = TOPO_HOP_ONLY,
                        .hops_left = (uint16_t)(2 * L - l)};
    if (f->routing == TOPO_FT_ANCA) {
        uint32_t j2 = topo_pick(h->salt, ANCA_PICK + l, k);
        if (j2 != j) {
            out[0].kind = TOPO_HOP_LEAST;
            out[1] = out[0];
            out[1].port = k + j2;
            return 2;
        }
    }
    return 1;
}

static void take(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *h)
{
    (void)t;
    (void)sw;
    (void)c;
    (void)h; /* the route is a function of the switch, b and the salt */
}

/* The route table's contract (topo.h next_dst): `next` reads only the
 * switch, the destination and, for an up hop of random-up, the salt; so
 * every hop is the destination's but random-up's up hops (0: the salt
 * decides). anca offers two candidates: not such a routing. */
static int dst_routed(const topo *t) { return F(t)->routing != TOPO_FT_ANCA; }

static int next_dst(const topo *t, uint32_t sw, uint32_t dst, topo_hop *out)
{
    const fattree *f = F(t);
    uint32_t l = level_of(f, sw), i = sw - l * f->per_level;
    uint32_t p = topo_div_q(f->dpow[l], i), bl = topo_div_q(f->dpow[l], dst);
    if (p != topo_div_q(f->dk, bl) && f->routing != TOPO_FT_DMODK)
        return 0; /* up, by the salt */
    topo_hdr h;
    memset(&h, 0, sizeof h);
    h.dst = dst;
    return (int)next(t, sw, &h, out);
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

static double uniform_bound(const topo *t)
{
    (void)t;
    return 1.0; /* full bisection (head) */
}

static void fini(topo *t) { free(t->priv); }

/* The up ports k..2k-1 of a switch below the top are one group: each leads
 * to an ancestor of the switch's whole subtree, so to the nearest common
 * ancestor level of any destination outside it (topo_fail.c). */
static uint32_t port_group(const topo *t, uint32_t sw, uint32_t port, uint32_t *first)
{
    const fattree *f = F(t);
    if (port < f->k || level_of(f, sw) + 1 >= f->n) {
        *first = port;
        return 1;
    }
    *first = f->k;
    return f->k;
}

static const topo_ops fattree_ops = {
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
    .dst_routed = dst_routed,
    .next_dst = next_dst,
};

int topo_fattree_check(const topo_fattree_params *p, char *err, size_t errlen)
{
    if (p->arity < 2)
        return tn_error(err, errlen, "fat-tree: arity=%u must be at least 2", p->arity);
    if (p->levels < 1)
        return tn_error(err, errlen, "fat-tree: levels=%u must be at least 1", p->levels);
    uint64_t n = 1;
    for (uint32_t l = 0; l < p->levels; l++) {
        n *= p->arity;
        if (n > TOPO_MAX_HOSTS)
            return tn_error(err, errlen, "fat-tree: arity=%u and levels=%u give more than %u hosts",
                            p->arity, p->levels, TOPO_MAX_HOSTS);
    }
    if (p->routing != TOPO_FT_DMODK && p->routing != TOPO_FT_RANDOM_UP && p->routing != TOPO_FT_ANCA)
        return tn_error(err, errlen, "fat-tree: unknown routing %d", (int)p->routing);
    return 0;
}

int topo_fattree_init(topo *t, const topo_fattree_params *p, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (topo_fattree_check(p, err, errlen) != 0)
        return -1;
    fattree *f = tn_xcalloc(1, sizeof *f);
    f->k = p->arity;
    f->n = p->levels;
    f->routing = p->routing;
    f->pow[0] = 1;
    for (uint32_t l = 1; l <= f->n; l++)
        f->pow[l] = f->pow[l - 1] * f->k;
    f->per_level = f->pow[f->n - 1];
    f->dk = topo_div_make(f->k);
    f->dper = topo_div_make(f->per_level);
    for (uint32_t l = 0; l <= f->n; l++)
        f->dpow[l] = topo_div_make(f->pow[l]);
    t->ops = &fattree_ops;
    t->priv = f;
    t->hosts = f->pow[f->n];
    t->switches = f->n * f->per_level;
    t->max_radix = f->n > 1 ? 2 * f->k : f->k;
    t->links = 2 * f->n * t->hosts;
    t->max_route_links = 2 * (f->n - 1) + 2;
    t->vcs = 1;
    t->routing = (uint8_t)p->routing;
    t->adaptive = p->routing == TOPO_FT_ANCA;
    return 0;
}
