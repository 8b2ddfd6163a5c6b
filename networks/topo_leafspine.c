/* Leaf-spine: a two-level folded Clos, every leaf linked once to every spine
 * (contract in topo.h; Alizadeh and Edsall, HOTI 2013, cited by seed 002).
 *
 * Graph. L leaves (switches 0..L-1) of H hosts each, S spines (switches
 * L..L+S-1); N = L H. Leaf l: ports 0..H-1 hosts l H + j, port H + s spine
 * s. Spine s: port l leaf l. Links: host uplinks [0, N), then
 * N + l (H + S) + port for leaves, N + L (H + S) + s L + port for spines.
 *
 * Routing: a message between two hosts of one leaf turns there (h = 1);
 * otherwise leaf -> spine -> leaf (h = 3), the spine chosen by
 *   ecmp: topo_pick(salt, 0, S): a per-message hash of the caller's value
 *     (switches hash a flow's header; here the caller draws the value from
 *     its own stream, or derives it from the message, for a per-flow path).
 *   d-mod-k: spine (b mod H) mod S, b the destination. OpenSM's ftree
 *     routing gives this on a leaf-spine: it routes the hosts in index
 *     order, each leaf's hosts through the leaf's up-ports with the fewest
 *     downward routes so far, lowest index first (osm_ucast_ftree.c; see
 *     topo_fattree.c), i.e. round robin over the H hosts of b's leaf.
 *
 * Deadlock freedom: routes go up (at most one hop) then down: up*-down*,
 * acyclic with one class (a leaf-spine is a 2-level fat tree).
 *
 * Uniform-random bound. Each host sends lambda spread over the N - 1
 * others; N - H of them are behind other leaves. The traffic leaving a leaf
 * is H lambda (N - H) / (N - 1), over S uplinks:
 *   ecmp: evenly, H (N - H) / (S (N - 1)) lambda per uplink; the downlinks
 *     mirror it. bound = min(1, S (N - 1) / (H (N - H))): the
 *     oversubscription H : S (times (N - 1)/(N - H) > 1 for the traffic that
 *     stays in its leaf).
 *   d-mod-k: the uplink to spine s carries the messages to the (L - 1) c_s
 *     remote hosts with (b mod H) mod S = s, c_s = #{j < H : j mod S = s}
 *     (ceil(H / S) for s < H mod S, else floor), from the H hosts of the
 *     leaf: H (L - 1) c_s lambda / (N - 1); the downlink from spine s to a
 *     leaf carries the same (its c_s hosts receive from the N - H remote
 *     senders). bound = min(1, (N - 1) / (H (L - 1) ceil(H / S))).
 *   With L = 1 no link but the host links is used: bound 1. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

const char *const topo_leafspine_routing_names[] = {"ecmp", "d-mod-k", NULL};
const char *const topo_leafspine_routing_help[] = {"a spine per message, hashed", "the spine by the destination", NULL};
const char *const topo_leafspine_routing_params[] = {"", "", NULL};
/* network.routing's row for the leaf-spine (topo.h; topo.c fills choices and help before main) */
topo_routings topo_leafspine_routings = {.topology = "leaf-spine", .names = topo_leafspine_routing_names, .help = topo_leafspine_routing_help,
                                  .params = topo_leafspine_routing_params};

typedef struct leafspine {
    uint32_t L, S, H;
    topo_div dH, dS; /* divisions by H and S (topo_div) */
    topo_leafspine_routing routing;
} leafspine;

static const leafspine *LS(const topo *t) { return t->priv; }

static uint32_t radix(const topo *t, uint32_t sw)
{
    const leafspine *q = LS(t);
    return sw < q->L ? q->H + q->S : q->L;
}

static uint64_t port_base(const topo *t, uint32_t sw)
{
    const leafspine *q = LS(t);
    if (sw < q->L)
        return (uint64_t)sw * (q->H + q->S);
    return (uint64_t)q->L * (q->H + q->S) + (uint64_t)(sw - q->L) * q->L;
}

static uint32_t locate(const topo *t, uint64_t x)
{
    const leafspine *q = LS(t);
    uint64_t leaf_ports = (uint64_t)q->L * (q->H + q->S);
    if (x < leaf_ports)
        return (uint32_t)(x / (q->H + q->S));
    return q->L + (uint32_t)((x - leaf_ports) / q->L);
}

static void attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    TN_ASSERT(host < t->hosts, "leaf-spine: host %u of %u", host, t->hosts);
    *sw = topo_div_q(LS(t)->dH, host);
    *port = topo_div_r(LS(t)->dH, host);
}

static topo_end peer(const topo *t, uint32_t sw, uint32_t port)
{
    const leafspine *q = LS(t);
    TN_ASSERT(sw < t->switches && port < radix(t, sw), "leaf-spine: switch %u port %u", sw, port);
    if (sw >= q->L) /* spine sw - L, port = leaf */
        return (topo_end){.kind = TOPO_SWITCH, .id = port, .port = q->H + (sw - q->L)};
    if (port < q->H)
        return (topo_end){.kind = TOPO_HOST, .id = sw * q->H + port, .port = 0};
    return (topo_end){.kind = TOPO_SWITCH, .id = q->L + (port - q->H), .port = sw};
}

static void hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    TN_ASSERT(src < t->hosts && dst < t->hosts, "leaf-spine: %u -> %u of %u hosts", src, dst,
              t->hosts);
    memset(h, 0, sizeof *h);
    h->src = src;
    h->dst = dst;
    h->salt = salt;
}

static unsigned next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    const leafspine *q = LS(t);
    uint32_t leaf = topo_div_q(q->dH, h->dst), place = h->dst - leaf * q->H; /* dst / H, dst mod H */
    if (sw >= q->L) {
        out[0] = (topo_hop){.port = leaf, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 1};
    } else if (sw == leaf) {
        out[0] = (topo_hop){.port = place, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 0};
    } else {
        uint32_t s = q->routing == TOPO_LS_ECMP ? topo_pick(h->salt, 0, q->S) : topo_div_r(q->dS, place);
        out[0] = (topo_hop){.port = q->H + s, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 2};
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

static double uniform_bound(const topo *t)
{
    const leafspine *q = LS(t);
    if (q->L == 1)
        return 1.0;
    double N = t->hosts, H = q->H, S = q->S, L = q->L;
    double load;
    if (q->routing == TOPO_LS_ECMP)
        load = H * (N - H) / (S * (N - 1));
    else
        load = H * (L - 1) * (double)((q->H + q->S - 1) / q->S) / (N - 1);
    return load > 1 ? 1 / load : 1.0;
}

static void fini(topo *t) { free(t->priv); }

/* A leaf's spine ports H..H+S-1 are one group: every spine reaches every
 * leaf (topo_fail.c). */
static uint32_t port_group(const topo *t, uint32_t sw, uint32_t port, uint32_t *first)
{
    const leafspine *q = LS(t);
    if (sw >= q->L || port < q->H) {
        *first = port;
        return 1;
    }
    *first = q->H;
    return q->S;
}

static const topo_ops leafspine_ops = {
    .name = "leaf-spine",
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
    .port_group = port_group,
};

int topo_leafspine_check(const topo_leafspine_params *p, char *err, size_t errlen)
{
    if (p->leaves < 1 || p->spines < 1 || p->hosts_per_leaf < 1)
        return tn_error(err, errlen,
                        "leaf-spine: leaves=%u, spines=%u and hosts-per-leaf=%u must all be at least 1",
                        p->leaves, p->spines, p->hosts_per_leaf);
    uint64_t n = (uint64_t)p->leaves * p->hosts_per_leaf;
    if (n < 2)
        return tn_error(err, errlen, "leaf-spine: needs at least 2 hosts");
    if (n > TOPO_MAX_HOSTS)
        return tn_error(err, errlen, "leaf-spine: more than %u hosts", TOPO_MAX_HOSTS);
    /* every link id must fit in 32 bits: 2 N + 2 L S directed links */
    if (2 * n + 2 * (uint64_t)p->leaves * p->spines > UINT32_MAX)
        return tn_error(err, errlen, "leaf-spine: %u leaves x %u spines are too many links",
                        p->leaves, p->spines);
    if (p->routing != TOPO_LS_ECMP && p->routing != TOPO_LS_DMODK)
        return tn_error(err, errlen, "leaf-spine: unknown routing %d", (int)p->routing);
    return 0;
}

int topo_leafspine_init(topo *t, const topo_leafspine_params *p, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (topo_leafspine_check(p, err, errlen) != 0)
        return -1;
    leafspine *q = tn_xcalloc(1, sizeof *q);
    q->L = p->leaves;
    q->S = p->spines;
    q->H = p->hosts_per_leaf;
    q->dH = topo_div_make(q->H);
    q->dS = topo_div_make(q->S);
    q->routing = p->routing;
    t->ops = &leafspine_ops;
    t->priv = q;
    t->hosts = q->L * q->H;
    t->switches = q->L + q->S;
    t->max_radix = q->H + q->S > q->L ? q->H + q->S : q->L;
    t->links = 2 * t->hosts + 2 * q->L * q->S;
    t->max_route_links = q->L > 1 ? 4 : 2;
    t->vcs = 1;
    t->routing = (uint8_t)p->routing;
    return 0;
}
