/* Failed links on the parametric fabrics (network.failed-links; contract in
 * topo.h). The graph fabric handles its own (topo_graph.c: its computed
 * routings are recomputed without them); this wrapper serves the
 * topologies whose routing has interchangeable ports (topo_ops.port_group:
 * the k-ary n-tree, the three-tier fat tree and leaf-spine) and those
 * whose routing record, fixed at the source, has alternatives
 * (topo_ops.hdr_alt: the torus and the dragonfly; the rule below).
 *
 * Which links. A link between two switches is named A-B with the names
 * export-topology writes (S<id>; topo_node_find): every link between A and
 * B, both directions, fails. A count k draws k distinct links between
 * switches uniformly from a seed (a partial Fisher-Yates shuffle with
 * topo_pick over the links in the order of their lower directed link id,
 * as topo_graph.c draws them, so a fabric and its export fail the same
 * links for the same seed). A host's link cannot fail (it would cut the
 * host off).
 *
 * Routing around them (the rule). The routing is the topology's own
 * (d-mod-k, random-up, ecmp): at each switch the packet takes the port the
 * routing chooses when that port is usable; otherwise the next usable port
 * of the same group (port_group: the up ports), cyclically in port order
 * from the routing's choice. A port is usable when its link is up and the
 * switch it enters can still deliver to the destination's leaf switch
 * (`reach`, below). So on a fat tree or a leaf-spine:
 *   - a failed up-link: the packet climbs by the next up port whose link is
 *     up and whose upper switch still reaches the destination;
 *   - a failed down-link (spine or upper switch -> the destination's side):
 *     down paths are unique in a tree, so the packet avoids it by the up
 *     choice below it: an up port leading to a switch whose down path to
 *     the destination is broken is not usable (another spine, another
 *     aggregation or core switch is taken);
 *   - a pair for which no up choice at any level reaches the destination
 *     is unreachable: reported before the run, naming the pairs.
 * Routes stay up*-down* (only the up choice changes), so the channel
 * dependency graph stays acyclic with one class (topo_fattree.c's proof
 * does not depend on which up port is taken). hops_left and virtual channel
 * classes are the routing's own.
 *
 * reach. A bit per (switch s, leaf e) (a leaf: a switch with hosts): 1 when
 * a packet at s for a host of e has a usable continuation. The routing's
 * candidates and groups at s depend on the destination only through its
 * leaf on these topologies (down ports are chosen by the destination's
 * leaf and upper digits; the up group is all up ports), so one host per
 * leaf stands for all, and a depth-first search per leaf (up*-down* routes
 * have no cycle) fills the bits: work O(leaves x switches x radix),
 * memory S x leaves bits (refused above 2^28 bits, 32 MB). Host links never
 * fail, so a packet that reaches its leaf is delivered.
 *
 * The torus and the dragonfly (hdr_alt). Their routing record (the
 * torus's offsets per dimension; the dragonfly's slice, mode and
 * intermediate) is fixed at the source, so the choice is made there: a
 * message starts with the first record, in hdr_alt's order (the salt's
 * own; on a torus the other minimal ones that ties allow, then dimensions
 * crossed the long way round; on a dragonfly the other slices, i.e.
 * another global link between the groups, and with valiant or ugal the
 * other intermediates), whose escape route (DOR's one hop at every switch;
 * adaptive routing's escape, DOR in descending dimension order; the
 * dragonfly's one path, or at a UGAL source either of its two) crosses no
 * failed link; UGAL's candidates are offered only when their path is
 * intact. Adaptive hops
 * are offered only over working links toward switches from which the
 * escape route of the updated record is intact, so Duato's escape stays
 * available at every switch a packet reaches: the escape subnetwork and its
 * classes are the torus's own (topo_torus.c proves them acyclic for every
 * such record; the dragonfly's classes count global hops whatever the
 * slice or intermediate; check_topo builds the graphs of every record).
 * Minimal dragonfly routing keeps minimal records (its two classes do not
 * cover a Valiant route). A pair is unreachable when
 * no record's escape route avoids the failures, e.g. on a DOR torus a
 * switch whose two links of a dimension are both down can neither start
 * nor end an x leg there. The check enumerates every ordered pair,
 * destination by destination, remembering the result of every (switch,
 * record) state its walks pass (a route's continuation depends on its
 * state only), so most pairs cost one lookup: 0.5 s for a 32 x 32 torus,
 * 6.7 s for 64 x 64 (4,096 hosts) on the documented machine; refused
 * above 2^26 pairs (8,192 hosts: export-topology and the graph fabric).
 * It runs in the fabric's check (its result kept per process for the
 * other checks of the same fabric and failures) and in the build of a run
 * that draws a count, not in the builds for estimates.
 *
 * network.fail-at: the wrapper is built with its failures but inactive
 * (topo_fail_activate(t, 0): routing as its base) until swnet.c's
 * failure event activates it; from then on `next` may offer no candidate
 * to a packet already in the fabric whose route can no longer avoid the
 * failures (the core loses it).
 *
 * Not modelled here: the uniform-random saturation bound stays the intact
 * fabric's (an upper bound of the failed one's). */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

#define TF_REACH_MAX_BITS (UINT64_C(1) << 28)

typedef struct tfail {
    topo_ops ops;         /* the template's, named as the base */
    topo base;
    uint64_t *dead;       /* [links / 64 + 1] directed links that are down */
    uint32_t *leaf_of_sw; /* [S] leaf index of a switch with hosts, UINT32_MAX otherwise */
    uint32_t nleaf;
    uint32_t *leaf_sw;    /* [nleaf] its switch */
    uint32_t *leaf_host;  /* [nleaf] its first host */
    uint32_t *leaf_n;     /* [nleaf] its hosts */
    uint64_t *reach;      /* [S x nleaf bits] (trees) */
    int escape;           /* 1: the torus's rule (hdr_alt; escape walks), 0: the trees' (port_group; reach) */
    int active;           /* 0: routes as the base (network.fail-at not reached yet) */
    char *names;          /* "S0-S4 S2-S5" */
} tfail;

static const tfail *TF(const topo *t) { return t->priv; }

static inline int bit(const uint64_t *v, uint64_t i) { return (int)(v[i >> 6] >> (i & 63)) & 1; }
static inline void set_bit(uint64_t *v, uint64_t i) { v[i >> 6] |= UINT64_C(1) << (i & 63); }

static inline int dead_port(const tfail *f, uint32_t sw, uint32_t port)
{
    const topo *b = &f->base;
    return bit(f->dead, b->hosts + b->ops->port_base(b, sw) + port);
}

/* links of their own rate and latency: the base's (the same link ids) */
static int f_link_attr(const topo *t, uint64_t link, double *bps, int64_t *ps)
{
    return TF(t)->base.ops->link_attr(&TF(t)->base, link, bps, ps);
}
static uint32_t f_radix(const topo *t, uint32_t sw) { return TF(t)->base.ops->radix(&TF(t)->base, sw); }
static uint64_t f_port_base(const topo *t, uint32_t sw) { return TF(t)->base.ops->port_base(&TF(t)->base, sw); }
static uint32_t f_locate(const topo *t, uint64_t x) { return TF(t)->base.ops->locate(&TF(t)->base, x); }
static void f_attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    TF(t)->base.ops->attach(&TF(t)->base, host, sw, port);
}
static topo_end f_peer(const topo *t, uint32_t sw, uint32_t port) { return TF(t)->base.ops->peer(&TF(t)->base, sw, port); }
/* The torus's rule: does the escape route (the oblivious hop, or the
 * adaptive routing's escape, at every switch) from sw with record h reach
 * its destination over working links (any link when all)? Its links from
 * sw on, host link included; 0 when it meets a failed link. */
static uint32_t walk_all(const tfail *f, uint32_t sw, const topo_hdr *h0, int all)
{
    const topo *b = &f->base;
    topo_hdr h = *h0;
    for (uint32_t hop = 1; hop <= b->switches + 1; hop++) {
        topo_hop c[TOPO_MAX_CAND];
        unsigned n = b->ops->next(b, sw, &h, c);
        if (n == 2 && c[0].kind == TOPO_HOP_MINIMAL) {
            /* the dragonfly's UGAL at the source: either path will do (all: the longer) */
            uint32_t best = 0;
            for (unsigned i = 0; i < 2; i++) {
                if (!all && dead_port(f, sw, c[i].port))
                    continue;
                topo_end pe = b->ops->peer(b, sw, c[i].port);
                uint32_t len = hop;
                if (pe.kind == TOPO_SWITCH) {
                    topo_hdr hh = h;
                    b->ops->take(b, sw, &c[i], &hh);
                    uint32_t rest = walk_all(f, pe.id, &hh, all);
                    len = rest ? hop + rest : 0;
                }
                if (len > best)
                    best = len;
                if (best && !all)
                    break;
            }
            return best;
        }
        const topo_hop *e = &c[n - 1]; /* the escape is the last candidate; an oblivious hop the only one */
        if (!all && dead_port(f, sw, e->port))
            return 0;
        topo_end pe = b->ops->peer(b, sw, e->port);
        if (pe.kind == TOPO_HOST)
            return hop;
        b->ops->take(b, sw, e, &h);
        sw = pe.id;
    }
    TN_ASSERT(0, "%s: the escape route toward %u crosses more than %u switches", b->ops->name, h0->dst,
              b->switches);
    return 0;
}

static int walk(const tfail *f, uint32_t sw, const topo_hdr *h0) { return walk_all(f, sw, h0, 0) > 0; }

/* The torus's rule: the first record (the salt's own, then the other
 * minimal ones, hdr_alt) whose escape route is intact; 0 when none is. */
static int start(const tfail *f, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    const topo *b = &f->base;
    uint32_t sw, port;
    b->ops->attach(b, src, &sw, &port);
    for (uint32_t i = 0; b->ops->hdr_alt(b, src, dst, salt, i, h); i++)
        if (walk(f, sw, h))
            return 1;
    b->ops->hdr_init(b, src, dst, salt, h);
    return 0;
}

static void f_hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    const tfail *f = TF(t);
    if (f->active && f->escape && src != dst)
        start(f, src, dst, salt, h);
    else
        f->base.ops->hdr_init(&f->base, src, dst, salt, h);
}
static void f_take(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *h)
{
    TF(t)->base.ops->take(&TF(t)->base, sw, c, h);
}
static double f_uniform_bound(const topo *t) { return TF(t)->base.ops->uniform_bound(&TF(t)->base); }
/* the base's choice among the candidates f_next left (the failed ones filtered out) */
static unsigned f_choose(const topo *t, uint32_t sw, const topo_hdr *h, const topo_hop *c, unsigned n,
                         const topo_probe *pr)
{
    return TF(t)->base.ops->choose(&TF(t)->base, sw, h, c, n, pr);
}
static uint32_t f_port_group(const topo *t, uint32_t sw, uint32_t port, uint32_t *first)
{
    return TF(t)->base.ops->port_group(&TF(t)->base, sw, port, first);
}


/* Is port p of sw usable toward leaf e? mark: the search's state (NULL at
 * run time: the reach bits are final). */
static int dfs(tfail *f, uint32_t sw, uint32_t e, uint8_t *mark);

static int usable(tfail *f, uint32_t sw, uint32_t p, uint32_t e, uint8_t *mark)
{
    const topo *b = &f->base;
    if (dead_port(f, sw, p))
        return 0;
    topo_end pe = b->ops->peer(b, sw, p);
    if (pe.kind == TOPO_HOST)
        return 1;
    if (!mark)
        return bit(f->reach, (uint64_t)pe.id * f->nleaf + e);
    return dfs(f, pe.id, e, mark);
}

/* The usable port of candidate c's group (c's own first, then cyclically
 * on): into *x; 0 when none. */
static int pick(tfail *f, uint32_t sw, const topo_hop *c, uint32_t e, uint8_t *mark, topo_hop *x)
{
    const topo *b = &f->base;
    uint32_t first = c->port, g = b->ops->port_group(b, sw, c->port, &first);
    for (uint32_t r = 0; r < g; r++) {
        uint32_t p = first + (c->port - first + r) % g;
        if (usable(f, sw, p, e, mark)) {
            *x = *c;
            x->port = p;
            return 1;
        }
    }
    return 0;
}

/* mark: 0 unknown, 1 reaches, 2 does not, 3 on the search's path */
static int dfs(tfail *f, uint32_t sw, uint32_t e, uint8_t *mark)
{
    if (mark[sw])
        return mark[sw] == 1;
    mark[sw] = 3;
    const topo *b = &f->base;
    topo_hdr h;
    b->ops->hdr_init(b, f->leaf_host[e], f->leaf_host[e], 0, &h);
    topo_hop c[TOPO_MAX_CAND], x;
    unsigned n = b->ops->next(b, sw, &h, c);
    int ok = 0;
    for (unsigned i = 0; i < n && !ok; i++)
        ok = pick(f, sw, &c[i], e, mark, &x);
    mark[sw] = ok ? 1 : 2;
    if (ok)
        set_bit(f->reach, (uint64_t)sw * f->nleaf + e);
    return ok;
}

static unsigned f_next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    tfail *f = t->priv;
    const topo *b = &f->base;
    if (!f->active)
        return b->ops->next(b, sw, h, out);
    topo_hop c[TOPO_MAX_CAND];
    unsigned n = b->ops->next(b, sw, h, c);
    if (f->escape) {
        /* adaptive hops whose link works and after which the escape route
         * is intact; the escape (or the oblivious hop) itself, intact since
         * the record was chosen (start) and kept so by every adaptive hop */
        unsigned m = 0;
        for (unsigned i = 0; i < n; i++) {
            if (c[i].kind == TOPO_HOP_ADAPTIVE || c[i].kind == TOPO_HOP_MINIMAL || c[i].kind == TOPO_HOP_VALIANT) {
                if (dead_port(f, sw, c[i].port))
                    continue;
                topo_end pe = b->ops->peer(b, sw, c[i].port);
                topo_hdr hh = *h;
                b->ops->take(b, sw, &c[i], &hh);
                if (pe.kind == TOPO_SWITCH && !walk(f, pe.id, &hh))
                    continue;
            } else if (dead_port(f, sw, c[i].port)) {
                return 0; /* the escape (or the one hop) crosses a link that failed during the run */
            }
            out[m++] = c[i];
        }
        return m;
    }
    uint32_t dsw, dport;
    b->ops->attach(b, h->dst, &dsw, &dport);
    uint32_t e = f->leaf_of_sw[dsw];
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        m += (unsigned)pick(f, sw, &c[i], e, NULL, &out[m]);
    return m; /* 0: this switch can no longer reach it (a failure during the run) */
}

static void f_fini(topo *t)
{
    tfail *f = t->priv;
    if (!f)
        return;
    topo_free(&f->base);
    free(f->dead);
    free(f->leaf_of_sw);
    free(f->leaf_sw);
    free(f->leaf_host);
    free(f->leaf_n);
    free(f->reach);
    free(f->names);
    free(f);
}

static const topo_ops fail_ops_tmpl = {
    .radix = f_radix,
    .port_base = f_port_base,
    .locate = f_locate,
    .attach = f_attach,
    .peer = f_peer,
    .hdr_init = f_hdr_init,
    .next = f_next,
    .take = f_take,
    .uniform_bound = f_uniform_bound,
    .fini = f_fini,
    .port_group = f_port_group,
};

static void add_name(tfail *f, const topo *b, uint32_t a, uint32_t c)
{
    char na[64], nb[64];
    topo_node_name(b, 0, a, na, sizeof na);
    topo_node_name(b, 0, c, nb, sizeof nb);
    size_t old = f->names ? strlen(f->names) : 0, n = old + strlen(na) + strlen(nb) + 3;
    f->names = tn_xrealloc(f->names, n);
    snprintf(f->names + old, n - old, "%s%s-%s", old ? " " : "", na, nb);
}

/* Fail the link leaving (sw, p) and its reverse. */
static void kill(tfail *f, uint32_t sw, uint32_t p)
{
    const topo *b = &f->base;
    topo_end pe = b->ops->peer(b, sw, p);
    set_bit(f->dead, topo_link_out(b, sw, p));
    set_bit(f->dead, topo_link_out(b, pe.id, pe.port));
}

static int apply(tfail *f, const char *spec, int draw, uint64_t seed, char *err, size_t errlen)
{
    const topo *b = &f->base;
    uint32_t k;
    if (topo_graph_failed_count(spec, &k)) {
        /* the links between switches, by their lower directed link id */
        uint64_t L = 0, P = (uint64_t)b->links - b->hosts;
        uint64_t *cand = tn_xmalloc((P + 1) * sizeof *cand);
        for (uint32_t s = 0; s < b->switches; s++)
            for (uint32_t p = 0, r = b->ops->radix(b, s); p < r; p++) {
                topo_end pe = b->ops->peer(b, s, p);
                if (pe.kind == TOPO_SWITCH && topo_link_out(b, s, p) < topo_link_out(b, pe.id, pe.port))
                    cand[L++] = topo_link_out(b, s, p);
            }
        if (k > L) {
            free(cand);
            return tn_error(err, errlen, "network.failed-links=%u: the %s has only %llu links between switches", k,
                            b->ops->name, (unsigned long long)L);
        }
        if (draw) {
            for (uint32_t i = 0; i < k; i++) {
                uint64_t j = i + topo_pick(seed, i, (uint32_t)(L - i));
                uint64_t tmp = cand[i];
                cand[i] = cand[j];
                cand[j] = tmp;
            }
            /* named in link order */
            for (uint64_t i = 0; i < k; i++)
                for (uint64_t j = i + 1; j < k; j++)
                    if (cand[j] < cand[i]) {
                        uint64_t tmp = cand[i];
                        cand[i] = cand[j];
                        cand[j] = tmp;
                    }
            for (uint32_t i = 0; i < k; i++) {
                topo_end from, to;
                topo_link_ends(b, cand[i], &from, &to);
                kill(f, from.id, from.port);
                add_name(f, b, from.id, to.id);
            }
        }
        free(cand);
        return 0;
    }
    size_t len;
    for (const char *p = spec, *t; (t = tn_list_next(&p, &len));) {
        uint32_t a, c;
        int ha, hc;
        if (topo_link_name_split(b, t, len, &a, &ha, &c, &hc) != 0)
            return tn_error(err, errlen,
                            "network.failed-links: \"%.*s\" is not A-B with A and B two nodes of the %s (nodes are "
                            "named as export-topology writes them: S0..S%u for switches, H0..H%u for hosts)",
                            (int)len, t, b->ops->name, b->switches - 1, b->hosts - 1);
        if (ha || hc)
            return tn_error(err, errlen,
                            "network.failed-links: \"%.*s\" is a host's link (failing it cuts the host off): failed "
                            "links are between switches",
                            (int)len, t);
        int any = 0;
        for (uint32_t q = 0, r = b->ops->radix(b, a); q < r; q++) {
            topo_end pe = b->ops->peer(b, a, q);
            if (pe.kind == TOPO_SWITCH && pe.id == c) {
                any |= !dead_port(f, a, q);
                kill(f, a, q);
            }
        }
        if (!any)
            return tn_error(err, errlen, "network.failed-links: \"%.*s\": S%u and S%u are not linked in the %s%s",
                            (int)len, t, a, c, b->ops->name, a == c ? "" : " (or the link is named twice)");
        add_name(f, b, a, c);
    }
    return 0;
}

/* The pairs without a route: an error naming their number and the first
 * three (0 when there are none). */
static int unreachable(const tfail *f, char *err, size_t errlen)
{
    uint64_t pairs = 0;
    char ex[160] = "";
    size_t used = 0;
    unsigned shown = 0;
    for (uint32_t a = 0; a < f->nleaf; a++)
        for (uint32_t e = 0; e < f->nleaf; e++) {
            if (a == e || bit(f->reach, (uint64_t)f->leaf_sw[a] * f->nleaf + e))
                continue;
            pairs += (uint64_t)f->leaf_n[a] * f->leaf_n[e];
            if (shown < 3) {
                int w = snprintf(ex + used, sizeof ex - used, "%sH%u->H%u", shown ? ", " : "", f->leaf_host[a],
                                 f->leaf_host[e]);
                if (w > 0 && (size_t)w < sizeof ex - used)
                    used += (size_t)w;
                shown++;
            }
        }
    if (!pairs)
        return 0;
    return tn_error(err, errlen,
                    "network.failed-links (%s): %llu pairs of hosts have no route on the %s around the failed "
                    "links: %s%s (every up port toward them is down or leads to a switch whose way down is cut)",
                    f->names, (unsigned long long)pairs, f->base.ops->name, ex, pairs > shown ? ", ..." : "");
}

/* The check's memo, per destination: the result of the escape route
 * from a (switch, record) state, found by earlier walks toward the same
 * destination (a route's continuation is a function of its state). The
 * record is compared whole but for its salt, and its source where the
 * topology's ports do not depend on it (the torus; the dragonfly's slice
 * does). Entries of an older destination are stale (gen). */
typedef struct memo_ent {
    topo_hdr h;
    uint32_t sw, gen;
    uint8_t ok;
} memo_ent;
typedef struct memo {
    memo_ent *e;
    uint32_t mask, gen, n;
    int src_free;
} memo;

static uint64_t memo_hash(const topo_hdr *h, uint32_t sw)
{
    uint64_t w[sizeof *h / 8], x = sw * 0x9e3779b97f4a7c15u;
    _Static_assert(sizeof *h % 8 == 0, "the record hashes in words");
    memcpy(w, h, sizeof w);
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        x = (x ^ w[i]) * 0xff51afd7ed558ccdu;
    return x ^ (x >> 32);
}

static void memo_key(const memo *m, const topo_hdr *h, topo_hdr *k)
{
    *k = *h;
    k->salt = 0;
    if (m->src_free)
        k->src = 0;
}

/* 1: found (*ok), 0: not there; its slot in *slot (UINT32_MAX: table full) */
static int memo_find(const memo *m, uint32_t sw, const topo_hdr *k, int *ok, uint32_t *slot)
{
    uint32_t i = (uint32_t)memo_hash(k, sw) & m->mask;
    for (uint32_t probe = 0; probe <= m->mask; probe++, i = (i + 1) & m->mask) {
        const memo_ent *e = &m->e[i];
        if (e->gen != m->gen) {
            *slot = i;
            return 0;
        }
        if (e->sw == sw && memcmp(&e->h, k, sizeof *k) == 0) {
            *ok = e->ok;
            return 1;
        }
    }
    *slot = UINT32_MAX;
    return 0;
}

static void memo_put(memo *m, uint32_t sw, const topo_hdr *k, int ok)
{
    int had;
    uint32_t slot;
    if (2 * (m->n + 1) > m->mask + 1 || memo_find(m, sw, k, &had, &slot) || slot == UINT32_MAX)
        return; /* half full: stop remembering (still exact, only slower) */
    m->e[slot] = (memo_ent){.h = *k, .sw = sw, .gen = m->gen, .ok = (uint8_t)ok};
    m->n++;
}

/* walk() with the memo: the states it passes get its result */
static int walk_memo(const tfail *f, uint32_t sw, const topo_hdr *h0, memo *m)
{
    const topo *b = &f->base;
    topo_hdr h = *h0;
    enum { MAXS = 64 };
    topo_hdr seen[MAXS];
    uint32_t seen_sw[MAXS], ns = 0;
    int ok = 0;
    for (uint32_t hop = 1; hop <= b->switches + 1; hop++) {
        topo_hdr k;
        memo_key(m, &h, &k);
        int r;
        uint32_t slot;
        if (memo_find(m, sw, &k, &r, &slot)) {
            ok = r;
            goto done;
        }
        if (ns < MAXS) {
            seen[ns] = k;
            seen_sw[ns++] = sw;
        }
        topo_hop c[TOPO_MAX_CAND];
        unsigned n = b->ops->next(b, sw, &h, c);
        if (n == 2 && c[0].kind == TOPO_HOP_MINIMAL) { /* UGAL at the source: either path */
            for (unsigned i = 0; i < 2 && !ok; i++) {
                if (dead_port(f, sw, c[i].port))
                    continue;
                topo_end pe = b->ops->peer(b, sw, c[i].port);
                if (pe.kind == TOPO_HOST) {
                    ok = 1;
                    break;
                }
                topo_hdr hh = h;
                b->ops->take(b, sw, &c[i], &hh);
                ok = walk_memo(f, pe.id, &hh, m);
            }
            goto done;
        }
        const topo_hop *e = &c[n - 1];
        if (dead_port(f, sw, e->port))
            goto done;
        topo_end pe = b->ops->peer(b, sw, e->port);
        if (pe.kind == TOPO_HOST) {
            ok = 1;
            goto done;
        }
        b->ops->take(b, sw, e, &h);
        sw = pe.id;
    }
    TN_ASSERT(0, "%s: the escape route toward %u crosses more than %u switches", b->ops->name, h0->dst,
              b->switches);
done:
    for (uint32_t i = 0; i < ns; i++)
        memo_put(m, seen_sw[i], &seen[i], ok);
    return ok;
}

/* The torus's and dragonfly's rule: every ordered pair of hosts must have
 * a record whose escape route is intact; an error naming the pairs that
 * do not (their number and the first three, by source then destination).
 * Destination by destination with the memo: about N^2 memo lookups and
 * S x records walks per destination (64 x 64 torus: 6.7 s for a whole
 * run's checks on the documented machine; without the memo and the cache
 * 54 s), refused above 2^26 pairs. */
#define TF_PAIRS_MAX (UINT64_C(1) << 26)

/* A run checks its fabric several times (the configuration's check, the
 * run's build): the last result is kept per process, keyed by the
 * fabric's structure (every port's peer, its routing, the records of a
 * few pairs) and its failed links. */
static struct {
    uint64_t key;
    int valid;
    uint64_t pairs, first[3];
} pcache;

static uint64_t structure_key(const tfail *f)
{
    const topo *b = &f->base;
    uint64_t x = 0x243f6a8885a308d3u ^ ((uint64_t)b->hosts << 32) ^ b->switches;
    for (const char *c = b->ops->name; *c; c++)
        x = (x ^ (unsigned char)*c) * 0x100000001b3u;
    x = (x ^ ((uint64_t)b->routing << 16 ^ (uint64_t)b->vcs << 8 ^ b->max_route_links)) * 0xff51afd7ed558ccdu;
    for (uint32_t s = 0; s < b->switches; s++)
        for (uint32_t p = 0, r = b->ops->radix(b, s); p < r; p++) {
            topo_end e = b->ops->peer(b, s, p);
            x = (x ^ ((uint64_t)e.kind << 62 ^ (uint64_t)e.id << 24 ^ e.port)) * 0xff51afd7ed558ccdu;
            x ^= x >> 31;
            if (bit(f->dead, topo_link_out(b, s, p)))
                x = (x ^ 0xd1b54a32d192ed03u) * 0xff51afd7ed558ccdu;
        }
    /* the records of a few pairs (their number shows e.g. the dateline partition's lack of long ways) */
    uint32_t probe[4][2] = {{0, b->hosts - 1}, {0, b->hosts / 2}, {b->hosts - 1, 0}, {b->hosts / 3, b->hosts / 2}};
    for (int j = 0; j < 4; j++) {
        topo_hdr h;
        for (uint32_t i = 0; i < 64 && b->ops->hdr_alt(b, probe[j][0], probe[j][1], 0, i, &h); i++) {
            const unsigned char *q = (const unsigned char *)&h;
            for (size_t k = 0; k < sizeof h; k++)
                x = (x ^ q[k]) * 0x100000001b3u;
        }
    }
    return x;
}

static int escape_unreachable(const tfail *f, char *err, size_t errlen)
{
    const topo *b = &f->base;
    uint64_t N = b->hosts;
    if (N * N > TF_PAIRS_MAX)
        return tn_error(err, errlen,
                        "network.failed-links: the %s's %u hosts are too many for the pair-by-pair check of failures "
                        "(%u^2 pairs > 2^26; 8,192 hosts at most): export it with `tasknet export-topology` and fail "
                        "the links on the graph fabric",
                        b->ops->name, b->hosts, b->hosts);
    uint64_t key = structure_key(f), pairs = 0, first[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    if (pcache.valid && pcache.key == key) {
        pairs = pcache.pairs;
        memcpy(first, pcache.first, sizeof first);
        goto report;
    }
    memo m = {.src_free = strcmp(b->ops->name, "torus") == 0};
    uint32_t cap = 1024;
    while (cap < 8u * b->switches && cap < (1u << 24))
        cap <<= 1;
    m.e = tn_xcalloc(cap, sizeof *m.e);
    m.mask = cap - 1;
    for (uint32_t c = 0; c < b->hosts; c++) {
        m.gen++;
        m.n = 0;
        for (uint32_t a = 0; a < b->hosts; a++) {
            if (a == c)
                continue;
            topo_hdr h;
            uint32_t sw, port;
            b->ops->attach(b, a, &sw, &port);
            int ok = 0;
            for (uint32_t i = 0; !ok && b->ops->hdr_alt(b, a, c, 0, i, &h); i++)
                ok = walk_memo(f, sw, &h, &m);
            if (ok)
                continue;
            pairs++;
            uint64_t pk = (uint64_t)a * N + c; /* keep the three first by source, then destination */
            for (int j = 0; j < 3; j++)
                if (pk < first[j]) {
                    uint64_t t = first[j];
                    first[j] = pk;
                    pk = t;
                }
        }
    }
    free(m.e);
    pcache.key = key;
    pcache.pairs = pairs;
    memcpy(pcache.first, first, sizeof first);
    pcache.valid = 1;
report:;
    char ex[160] = "";
    size_t used = 0;
    unsigned shown = 0;
    for (int j = 0; j < 3 && first[j] != UINT64_MAX; j++) {
        int w = snprintf(ex + used, sizeof ex - used, "%sH%llu->H%llu", shown ? ", " : "",
                         (unsigned long long)(first[j] / N), (unsigned long long)(first[j] % N));
        if (w > 0 && (size_t)w < sizeof ex - used)
            used += (size_t)w;
        shown++;
    }
    if (!pairs)
        return 0;
    return tn_error(err, errlen,
                    "network.failed-links (%s): %llu pairs of hosts have no route on the %s around the failed "
                    "links: %s%s (every route the routing may give them crosses one: on a torus the dimension-order "
                    "route, adaptive routing's escape, tied or the long way round; on a dragonfly each global link "
                    "between the groups and, with valiant or ugal, each intermediate)",
                    f->names, (unsigned long long)pairs, b->ops->name, ex, pairs > shown ? ", ..." : "");
}

int topo_fail_init(topo *t, topo *base, const char *spec, int draw, uint64_t seed, int check_pairs, char *err,
                   size_t errlen)
{
    if (!base->ops->port_group && !base->ops->hdr_alt)
        return tn_error(err, errlen,
                        "network.failed-links: not supported on the %s with this routing yet (the routing has no "
                        "alternative to a failed link here); export it with `tasknet export-topology` and fail the "
                        "links on the graph fabric (network.type=\"graph\", routing=\"up-down\" or \"shortest\")",
                        base->ops->name);
    tfail *f = tn_xcalloc(1, sizeof *f);
    f->base = *base;
    const topo *b = &f->base;
    uint32_t S = b->switches;
    f->dead = tn_xcalloc((size_t)b->links / 64 + 1, sizeof *f->dead);
    f->escape = !b->ops->port_group;
    int rc = apply(f, spec, draw, seed, err, errlen);
    uint32_t longest = b->max_route_links;
    if (rc == 0 && f->escape) {
        if (f->names && check_pairs)
            rc = escape_unreachable(f, err, errlen);
        /* records beyond the minimal ones are longer: the longest any
         * pair may take (from host 0: the torus looks the same from every
         * switch) */
        for (uint32_t c = 1; rc == 0 && c < b->hosts; c++) {
            topo_hdr h;
            uint32_t sw, port;
            b->ops->attach(b, 0, &sw, &port);
            for (uint32_t i = 0; b->ops->hdr_alt(b, 0, c, 0, i, &h); i++) {
                uint32_t len = walk_all(f, sw, &h, 1) + 1;
                if (len > longest)
                    longest = len;
            }
        }
    } else if (rc == 0) {
        f->leaf_of_sw = tn_xmalloc((size_t)S * sizeof *f->leaf_of_sw);
        for (uint32_t s = 0; s < S; s++)
            f->leaf_of_sw[s] = UINT32_MAX;
        f->leaf_sw = tn_xmalloc((size_t)S * sizeof *f->leaf_sw);
        f->leaf_host = tn_xmalloc((size_t)S * sizeof *f->leaf_host);
        f->leaf_n = tn_xcalloc(S, sizeof *f->leaf_n);
        for (uint32_t h = 0; h < b->hosts; h++) {
            uint32_t sw, port;
            b->ops->attach(b, h, &sw, &port);
            if (f->leaf_of_sw[sw] == UINT32_MAX) {
                f->leaf_of_sw[sw] = f->nleaf;
                f->leaf_sw[f->nleaf] = sw;
                f->leaf_host[f->nleaf++] = h;
            }
            f->leaf_n[f->leaf_of_sw[sw]]++;
        }
        uint64_t bits = (uint64_t)S * f->nleaf;
        if (bits > TF_REACH_MAX_BITS) {
            rc = tn_error(err, errlen,
                          "network.failed-links: the %s's table of %u switches x %u leaf switches (%.0f MB) is above "
                          "the %llu MB failures on a parametric fabric may use",
                          b->ops->name, S, f->nleaf, (double)bits / 8e6,
                          (unsigned long long)(TF_REACH_MAX_BITS / 8 / 1000000));
        } else {
            f->reach = tn_xcalloc((size_t)(bits / 64 + 1), sizeof *f->reach);
            uint8_t *mark = tn_xmalloc(S);
            for (uint32_t e = 0; e < f->nleaf; e++) {
                memset(mark, 0, S);
                for (uint32_t s = 0; s < S; s++)
                    dfs(f, s, e, mark);
            }
            free(mark);
            if (f->names)
                rc = unreachable(f, err, errlen);
        }
    }
    if (rc != 0) {
        f->base = (topo){0}; /* not taken */
        f_fini(&(topo){.priv = f});
        return -1;
    }
    memset(base, 0, sizeof *base);
    f->active = 1;
    f->ops = fail_ops_tmpl;
    f->ops.name = b->ops->name;
    f->ops.link_attr = b->ops->link_attr ? f_link_attr : NULL;
    f->ops.choose = b->ops->choose ? f_choose : NULL;
    memset(t, 0, sizeof *t);
    t->ops = &f->ops;
    t->priv = f;
    t->hosts = b->hosts;
    t->switches = b->switches;
    t->max_radix = b->max_radix;
    t->links = b->links;
    t->max_route_links = longest;
    t->vcs = b->vcs;
    t->routing = b->routing;
    t->adaptive = b->adaptive;
    return 0;
}

/* ---- network.fail-at on the graph fabric: two routings, one switch ----
 * The graph recomputes its routing without the failed links
 * (topo_graph.c). For a failure during the run the fabric is built twice
 * from the same file: `before` with every link up, `after` with the
 * failures (its tables those a run failed from the start would use); this
 * wrapper routes with `before` until topo_fail_activate(t, 1), then with
 * `after`: from the failure on, every hop (also of a packet already in
 * the fabric) is decided by `after` from the switch it is at and its
 * header (the computed routings keep only up-down's phase there; a packet
 * that went down and whose switch has no down-only route any more under
 * the new tables is offered nothing: lost). The two share ids (one file),
 * so links, ports and names are `before`'s. */
typedef struct tpair {
    topo_ops ops;
    topo before, after;
    uint64_t *dead; /* [links / 64 + 1] after's failed directed links */
    int active;
} tpair;

static const tpair *TP(const topo *t) { return t->priv; }
static const topo *tp_cur(const topo *t) { return TP(t)->active ? &TP(t)->after : &TP(t)->before; }

static uint32_t p_radix(const topo *t, uint32_t sw) { return TP(t)->before.ops->radix(&TP(t)->before, sw); }
static uint64_t p_port_base(const topo *t, uint32_t sw) { return TP(t)->before.ops->port_base(&TP(t)->before, sw); }
static uint32_t p_locate(const topo *t, uint64_t x) { return TP(t)->before.ops->locate(&TP(t)->before, x); }
static void p_attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    TP(t)->before.ops->attach(&TP(t)->before, host, sw, port);
}
static topo_end p_peer(const topo *t, uint32_t sw, uint32_t port)
{
    return TP(t)->before.ops->peer(&TP(t)->before, sw, port);
}
static void p_hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    const topo *c = tp_cur(t);
    c->ops->hdr_init(c, src, dst, salt, h);
}
static unsigned p_next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    const topo *c = tp_cur(t);
    return c->ops->next(c, sw, h, out);
}
static void p_take(const topo *t, uint32_t sw, const topo_hop *hop, topo_hdr *h)
{
    const topo *c = tp_cur(t);
    c->ops->take(c, sw, hop, h);
}
/* the intact fabric's bound (an upper bound of the failed one's) */
static double p_uniform_bound(const topo *t) { return TP(t)->before.ops->uniform_bound(&TP(t)->before); }
static int p_link_attr(const topo *t, uint64_t link, double *bps, int64_t *ps)
{
    return TP(t)->before.ops->link_attr(&TP(t)->before, link, bps, ps);
}
static void p_fini(topo *t)
{
    tpair *f = t->priv;
    if (!f)
        return;
    topo_free(&f->before);
    topo_free(&f->after);
    free(f->dead);
    free(f);
}

static const topo_ops pair_ops_tmpl = {
    .radix = p_radix,
    .port_base = p_port_base,
    .locate = p_locate,
    .attach = p_attach,
    .peer = p_peer,
    .hdr_init = p_hdr_init,
    .next = p_next,
    .take = p_take,
    .uniform_bound = p_uniform_bound,
    .fini = p_fini,
};

void topo_fail_init_pair(topo *t, topo *before, topo *after, int (*dead)(const topo *after, uint64_t link))
{
    tpair *f = tn_xcalloc(1, sizeof *f);
    f->before = *before;
    f->after = *after;
    memset(before, 0, sizeof *before);
    memset(after, 0, sizeof *after);
    const topo *b = &f->before, *a = &f->after;
    TN_ASSERT(a->links == b->links && a->switches == b->switches && a->hosts == b->hosts,
              "%s: the fabric before and after its failures differ", b->ops->name);
    f->dead = tn_xcalloc((size_t)b->links / 64 + 1, sizeof *f->dead);
    for (uint64_t l = 0; l < b->links; l++)
        if (dead(a, l))
            set_bit(f->dead, l);
    f->ops = pair_ops_tmpl;
    f->ops.name = b->ops->name;
    f->ops.link_attr = b->ops->link_attr ? p_link_attr : NULL;
    memset(t, 0, sizeof *t);
    t->ops = &f->ops;
    t->priv = f;
    t->hosts = b->hosts;
    t->switches = b->switches;
    t->max_radix = b->max_radix;
    t->links = b->links;
    t->max_route_links = a->max_route_links > b->max_route_links ? a->max_route_links : b->max_route_links;
    t->vcs = a->vcs > b->vcs ? a->vcs : b->vcs;
    t->routing = b->routing;
    TN_ASSERT(!b->adaptive && !b->ops->choose, "%s: a routing with choices has no before/after pair", b->ops->name);
}

static int is_pair(const topo *t) { return t->ops && t->ops->next == p_next; }

const topo *topo_fail_before(const topo *t) { return is_pair(t) ? &TP(t)->before : NULL; }
const topo *topo_fail_after(const topo *t) { return is_pair(t) ? &TP(t)->after : NULL; }

static int fail_here(const topo *t) { return t->ops && (t->ops->next == f_next || is_pair(t)); }

const char *topo_failed_names(const topo *t)
{
    if (topo_is_graph(t))
        return topo_graph_failed(topo_fail_after(t) ? topo_fail_after(t) : t);
    if (fail_here(t))
        return TF(t)->names;
    return NULL;
}

/* The failing topology t stands for, and *link (when not NULL) as its id
 * there: t itself, or the base under a partly populated wrapper (swnet.c
 * populates after failing: topo_sub over topo_fail). */
static topo *fail_layer(const topo *t, uint32_t *link)
{
    const topo *b = topo_sub_base(t, NULL);
    if (b && fail_here(b)) {
        if (link)
            *link = (uint32_t)topo_sub_link_base(t, *link);
        return (topo *)b;
    }
    return (topo *)t;
}

int topo_is_fail(const topo *t) { return fail_here(fail_layer(t, NULL)); }

void topo_fail_activate(topo *t, int on)
{
    t = fail_layer(t, NULL);
    TN_ASSERT(fail_here(t), "%s: not a topology with failed links", t->ops->name);
    if (is_pair(t))
        ((tpair *)t->priv)->active = on;
    else
        ((tfail *)t->priv)->active = on;
}

int topo_fail_dead(const topo *t, uint32_t link)
{
    t = fail_layer(t, &link);
    if (is_pair(t))
        return bit(TP(t)->dead, link);
    return fail_here(t) && bit(TF(t)->dead, link);
}

/* the trees (port groups) and the graph's computed routings decide each hop
 * from the switch; the torus's, the dragonfly's records are fixed */
int topo_fail_reroutes(const topo *t)
{
    t = fail_layer(t, NULL);
    return is_pair(t) || (fail_here(t) && !TF(t)->escape);
}

