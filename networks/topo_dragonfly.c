/* Dragonfly (Kim, Dally, Scott and Abts, ISCA 2008), contract in topo.h;
 * the layout, slices and classes of SST-merlin's dragonfly
 * (merlin/topology/dragonfly.cc and pymerlin-topo-dragonfly.py), where the
 * paper is silent.
 *
 * Graph. g groups of a routers; router r of group G is switch G a + r;
 * host x sits on router x / p, port x mod p (group x / (a p)). Ports of a
 * router: 0..p-1 hosts; p..p+a-2 the other routers of its group (router r'
 * on port p + r' - (r' > r), merlin's port_for_router); p+a-1..p+a-2+h its
 * global links. The a h global slots of a group, slot s = r h + j on router
 * r = s / h, port p + a - 1 + j, are laid out as merlin's default
 * global_link_map in "absolute" mode: slot s leads to group D with link
 * number m = s / (g - 1), where s mod (g - 1) = D if D < G, D - 1 if D > G.
 * Slot (G, D, m) and slot (D, G, m) are the two ends of one link, so every
 * pair of groups is joined by n = a h / (g - 1) links (g - 1 must divide
 * a h: every global port is used). Links: host uplinks [0, N), then
 * N + sw (p + a - 1 + h) + port.
 *
 * Routing. A message from x uses slice m = x mod n for every global hop
 * (merlin: global_slice = src % n). To reach group D from group G it goes
 * to the router holding slot (G, D, m) (one local hop unless already
 * there), crosses the global link, and in D goes to the destination's
 * router (one local hop unless it arrived there).
 *   minimal: straight to the destination: at most local, global, local.
 *   valiant: to an intermediate group drawn uniformly (topo_pick(salt, 0,
 *     g - 2)) among the g - 2 groups other than the source's and the
 *     destination's (merlin's process_input; with g = 2, minimal), then
 *     minimally to the destination: at most local, global, local, global,
 *     local. Within one group, via an intermediate router drawn among the a
 *     - 1 others (merlin: mid != own router; it may be the destination's
 *     router, which is the minimal route).
 *   ugal: at the source router `next` offers two candidates, the minimal
 *     path's first hop (TOPO_HOP_MINIMAL) and the Valiant path's
 *     (TOPO_HOP_VALIANT, intermediate drawn as above), each with its hops
 *     to go; the caller chooses by queue occupancy (UGAL-L, Kim et al.
 *     section 4.2, topo_ugal_minimal) and `take` records the choice; the
 *     packet then follows that path. The first candidate (the static route)
 *     is minimal.
 *
 * Deadlock freedom (Kim et al. section 4.3; merlin increments the class on
 * every arrival over a global link, and on the second local hop of a
 * Valiant route inside one group): a hop's class is the number of global
 * links the packet crossed before it (plus one after the intermediate
 * router of an intra-group Valiant route). Order the channels (class,
 * local before global): a route's hops are local 0, global 0, local 1,
 * global 1, local 2 (a prefix or a subsequence of it), strictly increasing,
 * and no route takes two local hops in one class. So the channel
 * dependency graph is acyclic: 2 classes for minimal, 3 for Valiant and
 * UGAL.
 *
 * Uniform-random bound (each host sends lambda to the N - 1 others
 * uniformly). With c_G(m) the hosts of group G in slice m (ap / n each when
 * n divides p) and N = g a p:
 *   global link (G -> D, slice m), minimal: the messages from c_G(m)
 *     sources to the a p hosts of D: c_G(m) a p / (N - 1) lambda;
 *     = p (N - a p) / (h (N - 1)) lambda when n | p (the paper's global
 *     channel load: a p hosts share a h global links, a fraction (N - a
 *     p)/(N - 1) of their traffic leaving the group).
 *   global link, valiant: first hops of c_G(m) sources whose intermediate is
 *     D (destinations outside G and D, 1/(g-2) each) and second hops of the
 *     sources in slice m of the g - 2 other groups whose intermediate is G
 *     and destination in D: [c_G(m) (N - 2 a p) + a p (C(m) - c_G(m) -
 *     c_D(m))] / ((N - 1)(g - 2)) lambda, C(m) the slice's hosts overall;
 *     = 2 p (N - a p) / (h (N - 1)) lambda when n | p: twice minimal's.
 *   local link r1 -> r2 of G, minimal: the p^2 intra-group pairs, the
 *     messages of r1's hosts to the groups whose slot (in their slice) is on
 *     r2, and those arriving at r1 over its global links for r2's hosts
 *     (summed exactly over slots and slices below).
 *   bound = min(1, 1 / the largest per-lambda load): host and global links,
 *   and for minimal (and UGAL, which routes minimally on uniform traffic:
 *   its minimal paths' bound) the local links too; Valiant's local links
 *   are left out (the "global-link load").
 *   Balanced (a = 2p = 2h, g = a h + 1, n = 1): global p (N - ap)/(h(N-1))
 *   = (N - ap)/(N - 1) < 1, local (p^2 + 2 p (N - ap)/a)/(N - 1) = (N -
 *   p^2)/(N - 1) < 1: bound 1 for minimal, about 1/2 for Valiant. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

const char *const topo_dragonfly_routing_names[] = {"minimal", "valiant", "ugal", NULL};
const char *const topo_dragonfly_routing_help[] = {"minimal, 2 classes", "through a random intermediate group, 3 classes",
                                                   "UGAL-L at the source router, 3 classes", NULL};
const char *const topo_dragonfly_routing_params[] = {"", "", "", NULL};
/* network.routing's row for the dragonfly (topo.h; topo.c fills choices and help before main) */
topo_routings topo_dragonfly_routings = {.topology = "dragonfly", .names = topo_dragonfly_routing_names, .help = topo_dragonfly_routing_help,
                                  .params = topo_dragonfly_routing_params};

enum { MODE_MIN = 0, MODE_VAL = 1, MODE_UGAL = 2 };

unsigned topo_dragonfly_classes(topo_dragonfly_routing r) { return r == TOPO_DF_MINIMAL ? 2 : 3; }

typedef struct dragonfly {
    uint32_t g, a, p, h; /* groups, routers per group, hosts and global links per router */
    uint32_t n;          /* links between two groups: a h / (g - 1) */
    uint32_t radix;      /* p + a - 1 + h */
    topo_div da, dp, dh, dg1, dn, dap; /* divisions by a, p, h, g - 1, n and a p (topo_div) */
    topo_dragonfly_routing routing;
} dragonfly;

static inline uint32_t Q(topo_div v, uint32_t x) { return topo_div_q(v, x); }
static inline uint32_t R(topo_div v, uint32_t x) { return topo_div_r(v, x); }

static const dragonfly *DF(const topo *t) { return t->priv; }

static uint32_t radix(const topo *t, uint32_t sw)
{
    (void)sw;
    return DF(t)->radix;
}

static uint64_t port_base(const topo *t, uint32_t sw) { return (uint64_t)sw * DF(t)->radix; }

static uint32_t locate(const topo *t, uint64_t x) { return (uint32_t)(x / DF(t)->radix); }

static void attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    TN_ASSERT(host < t->hosts, "dragonfly: host %u of %u", host, t->hosts);
    *sw = Q(DF(t)->dp, host);
    *port = R(DF(t)->dp, host);
}

/* Global slot of group G toward group D (!= G) with link number m. */
static uint32_t slot_for(const dragonfly *q, uint32_t G, uint32_t D, uint32_t m)
{
    return m * (q->g - 1) + (D < G ? D : D - 1);
}

/* Group a slot of group G leads to. */
static uint32_t slot_group(const dragonfly *q, uint32_t G, uint32_t s)
{
    uint32_t rel = R(q->dg1, s);
    return rel < G ? rel : rel + 1;
}

static uint32_t local_port(const dragonfly *q, uint32_t r, uint32_t to)
{
    return q->p + to - (to > r);
}

static topo_end peer(const topo *t, uint32_t sw, uint32_t port)
{
    const dragonfly *q = DF(t);
    TN_ASSERT(sw < t->switches && port < q->radix, "dragonfly: switch %u port %u", sw, port);
    uint32_t G = Q(q->da, sw), r = sw - G * q->a;
    if (port < q->p)
        return (topo_end){.kind = TOPO_HOST, .id = sw * q->p + port, .port = 0};
    if (port < q->p + q->a - 1) {
        uint32_t i = port - q->p, to = i < r ? i : i + 1;
        return (topo_end){.kind = TOPO_SWITCH, .id = G * q->a + to, .port = local_port(q, to, r)};
    }
    uint32_t s = r * q->h + (port - q->p - q->a + 1);
    uint32_t D = slot_group(q, G, s), m = Q(q->dg1, s);
    uint32_t s2 = slot_for(q, D, G, m);
    return (topo_end){.kind = TOPO_SWITCH,
                      .id = D * q->a + Q(q->dh, s2),
                      .port = q->p + q->a - 1 + R(q->dh, s2)};
}

static uint32_t slice_of(const dragonfly *q, const topo_hdr *h) { return R(q->dn, h->src + h->slice); }

/* Is the packet heading to its intermediate (group, or router within a group)? */
static int to_mid(const topo_hdr *h) { return h->mode != MODE_MIN && h->phase == 0; }

static int intra(const dragonfly *q, const topo_hdr *h)
{
    return Q(q->dap, h->src) == Q(q->dap, h->dst);
}

/* Switch-to-switch hops from router (G, r) to router (D, rd) in slice m. */
static uint32_t hops_to_router(const dragonfly *q, uint32_t G, uint32_t r, uint32_t D, uint32_t rd,
                               uint32_t m)
{
    if (G == D)
        return r != rd;
    uint32_t out = slot_for(q, G, D, m), in = slot_for(q, D, G, m);
    return (r != Q(q->dh, out)) + 1 + (Q(q->dh, in) != rd);
}

/* Hops from (G, r) to the router of hop `dst`, through group `mid` first when
 * via_group (arriving on the router holding mid's slot back toward G). */
static uint32_t hops_left(const dragonfly *q, uint32_t G, uint32_t r, const topo_hdr *h, int mode, uint32_t m)
{
    uint32_t D = Q(q->dap, h->dst), rd = R(q->da, Q(q->dp, h->dst));
    if (mode == MODE_MIN || h->phase == 1)
        return hops_to_router(q, G, r, D, rd, m);
    if (intra(q, h))
        return (r != h->mid) + (h->mid != rd);
    uint32_t out = slot_for(q, G, h->mid, m), in = slot_for(q, h->mid, G, m);
    return (r != Q(q->dh, out)) + 1 + hops_to_router(q, h->mid, Q(q->dh, in), D, rd, m);
}

/* The port from (G, r) one step toward router (D, rd) in slice m (not there yet). */
static uint32_t port_toward(const dragonfly *q, uint32_t G, uint32_t r, uint32_t D, uint32_t rd,
                            uint32_t m)
{
    if (G == D)
        return local_port(q, r, rd);
    uint32_t s = slot_for(q, G, D, m);
    uint32_t sr = Q(q->dh, s); /* the router holding slot s */
    if (sr == r)
        return q->p + q->a - 1 + (s - sr * q->h);
    return local_port(q, r, sr);
}

/* The port from sw along the path of `mode` (minimal or Valiant). */
static uint32_t port_for(const dragonfly *q, uint32_t sw, const topo_hdr *h, int mode, uint32_t m)
{
    uint32_t G = Q(q->da, sw), r = sw - G * q->a;
    uint32_t dr = Q(q->dp, h->dst); /* the destination's router */
    uint32_t D = Q(q->dap, h->dst), rd = R(q->da, dr);
    if (mode != MODE_MIN && h->phase == 0) {
        if (intra(q, h))
            return local_port(q, r, h->mid);
        return port_toward(q, G, r, h->mid, 0, m); /* rd unused: G != mid */
    }
    if (sw == dr)
        return h->dst - dr * q->p;
    return port_toward(q, G, r, D, rd, m);
}

static void hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    const dragonfly *q = DF(t);
    TN_ASSERT(src < t->hosts && dst < t->hosts, "dragonfly: %u -> %u of %u hosts", src, dst,
              t->hosts);
    memset(h, 0, sizeof *h);
    h->src = src;
    h->dst = dst;
    h->salt = salt;
    h->mode = MODE_MIN;
    if (q->routing == TOPO_DF_MINIMAL)
        return;
    uint32_t Gs = Q(q->dap, src), Gd = Q(q->dap, dst);
    uint32_t rs = R(q->da, Q(q->dp, src)), rd = R(q->da, Q(q->dp, dst));
    if (Gs != Gd) {
        if (q->g <= 2)
            return; /* no third group: minimal (merlin) */
        uint32_t lo = Gs < Gd ? Gs : Gd, hi = Gs < Gd ? Gd : Gs;
        uint32_t mid = topo_pick(salt, 0, q->g - 2);
        mid += mid >= lo;
        mid += mid >= hi;
        h->mid = mid;
    } else {
        if (rs == rd)
            return; /* one router: no network hop to spread */
        uint32_t mid = topo_pick(salt, 0, q->a - 1);
        mid += mid >= rs;
        if (mid == rd)
            return; /* the intermediate is the destination's router: minimal */
        h->mid = mid;
    }
    h->mode = q->routing == TOPO_DF_VALIANT ? MODE_VAL : MODE_UGAL;
}

/* The other records of src -> dst (topo_fail.c), i = 0 hdr_init's own:
 * i = k n + j takes slice (src + j) mod n, i.e. the j-th other global link
 * between each pair of groups it crosses ("another global link"), and,
 * with Valiant or UGAL routing, the k-th intermediate after the salt's
 * (among the g - 2 other groups, or within a group the a - 1 other
 * routers: "non-minimal"); minimal routing keeps minimal paths (its two
 * classes do not cover a Valiant route). Deadlock freedom is the
 * routing's own (the head: the class counts global hops, whatever slice
 * or intermediate a route takes). Paths inside one group have no global
 * hop: one slice. */
static int hdr_alt(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t i, topo_hdr *h)
{
    const dragonfly *q = DF(t);
    uint32_t Gs = Q(q->dap, src), Gd = Q(q->dap, dst);
    uint32_t rs = R(q->da, Q(q->dp, src)), rd = R(q->da, Q(q->dp, dst));
    uint32_t ns = Gs != Gd ? (q->n < 256 ? q->n : 256) : 1, nm = 1; /* slice offsets fit the record's byte */
    if (q->routing != TOPO_DF_MINIMAL)
        nm = Gs != Gd ? (q->g > 2 ? q->g - 2 : 1) : (rs != rd ? q->a - 1 : 1);
    if ((uint64_t)i >= (uint64_t)ns * nm)
        return 0;
    hdr_init(t, src, dst, salt, h);
    uint32_t k = i / ns;
    h->slice = (uint8_t)(i - k * ns);
    if (k == 0)
        return 1;
    uint32_t mode = q->routing == TOPO_DF_VALIANT ? MODE_VAL : MODE_UGAL;
    if (Gs != Gd) {
        uint32_t lo = Gs < Gd ? Gs : Gd, hi = Gs < Gd ? Gd : Gs;
        uint32_t mid = (topo_pick(salt, 0, q->g - 2) + k) % (q->g - 2);
        mid += mid >= lo;
        mid += mid >= hi;
        h->mid = mid;
        h->mode = (uint8_t)mode;
    } else {
        uint32_t mid = (topo_pick(salt, 0, q->a - 1) + k) % (q->a - 1);
        mid += mid >= rs;
        h->mid = 0;
        h->mode = MODE_MIN;
        if (mid != rd) {
            h->mid = mid;
            h->mode = (uint8_t)mode;
        }
    }
    h->phase = 0;
    h->vc = 0;
    return 1;
}

static unsigned next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    const dragonfly *q = DF(t);
    uint32_t G = Q(q->da, sw), r = sw - G * q->a, m = slice_of(q, h); /* the slice of its global hops */
    if (h->mode == MODE_UGAL) {
        out[0] = (topo_hop){.port = port_for(q, sw, h, MODE_MIN, m), .vc = h->vc,
                            .kind = TOPO_HOP_MINIMAL,
                            .hops_left = (uint16_t)hops_left(q, G, r, h, MODE_MIN, m)};
        out[1] = (topo_hop){.port = port_for(q, sw, h, MODE_VAL, m), .vc = h->vc,
                            .kind = TOPO_HOP_VALIANT,
                            .hops_left = (uint16_t)hops_left(q, G, r, h, MODE_VAL, m)};
        return 2;
    }
    uint32_t port = port_for(q, sw, h, h->mode, m);
    out[0] = (topo_hop){.port = port, .vc = port < q->p ? 0 : h->vc, .kind = TOPO_HOP_ONLY,
                        .hops_left = (uint16_t)hops_left(q, G, r, h, h->mode, m)};
    return 1;
}

static void take(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *h)
{
    const dragonfly *q = DF(t);
    if (h->mode == MODE_UGAL) {
        TN_ASSERT(c->kind == TOPO_HOP_MINIMAL || c->kind == TOPO_HOP_VALIANT,
                  "dragonfly: UGAL needs a minimal or Valiant candidate, got kind %u", c->kind);
        h->mode = c->kind == TOPO_HOP_VALIANT ? MODE_VAL : MODE_MIN;
    }
    if (c->port < q->p)
        return; /* ejection */
    topo_end e = peer(t, sw, c->port);
    if (c->port >= q->p + q->a - 1) { /* global: the class counts global links crossed */
        h->vc++;
        if (to_mid(h) && e.id / q->a == h->mid)
            h->phase = 1;
    } else if (to_mid(h) && intra(q, h) && e.id % q->a == h->mid) {
        h->phase = 1; /* at the intra-group intermediate: the second local hop, next class */
        h->vc++;
    }
}

/* Hosts x in [lo, hi) with x mod n = m. */
static uint64_t count_mod(uint64_t lo, uint64_t hi, uint32_t m, uint32_t n)
{
    /* x = m + j n: j from ceil((lo - m) / n) to ceil((hi - m) / n) - 1 */
    uint64_t first = lo <= m ? 0 : (lo - m + n - 1) / n;
    uint64_t end = hi <= m ? 0 : (hi - m + n - 1) / n;
    return end > first ? end - first : 0;
}

static double uniform_bound(const topo *t)
{
    const dragonfly *q = DF(t);
    uint64_t ap = (uint64_t)q->a * q->p;
    double N = t->hosts, worst = 1.0; /* host links carry lambda */
    int valiant = q->routing == TOPO_DF_VALIANT && q->g > 2;
    uint64_t *C = tn_xcalloc(q->n, sizeof *C); /* hosts per slice */
    for (uint32_t m = 0; m < q->n; m++)
        C[m] = count_mod(0, t->hosts, m, q->n);
    for (uint32_t G = 0; G < q->g; G++) {
        for (uint32_t m = 0; m < q->n; m++) {
            double cg = (double)count_mod(G * ap, (G + 1) * ap, m, q->n);
            if (!valiant) {
                double load = cg * (double)ap / (N - 1);
                if (load > worst)
                    worst = load;
                continue;
            }
            for (uint32_t D = 0; D < q->g; D++) {
                if (D == G)
                    continue;
                double cd = (double)count_mod(D * ap, (D + 1) * ap, m, q->n);
                double load = (cg * (N - 2.0 * ap) + (double)ap * ((double)C[m] - cg - cd)) /
                              ((N - 1) * (q->g - 2));
                if (load > worst)
                    worst = load;
            }
        }
    }
    if (!valiant && q->a > 1) {
        /* local links r1 -> r2, exactly (head) */
        double *acc = tn_xcalloc(q->a, sizeof *acc);
        for (uint32_t G = 0; G < q->g; G++) {
            for (uint32_t r1 = 0; r1 < q->a; r1++) {
                memset(acc, 0, q->a * sizeof *acc);
                uint64_t lo = G * ap + (uint64_t)r1 * q->p;
                /* r1's hosts in slice m leave for group D through slot (G, D, m):
                 * slots m (g-1) .. m (g-1) + g - 2, on routers slot / h */
                for (uint32_t m = 0; m < q->n; m++) {
                    double c = (double)count_mod(lo, lo + q->p, m, q->n);
                    if (c == 0)
                        continue;
                    uint32_t s0 = m * (q->g - 1), s1 = s0 + q->g - 1;
                    for (uint32_t R = s0 / q->h; R * q->h < s1; R++) {
                        uint32_t a0 = R * q->h > s0 ? R * q->h : s0;
                        uint32_t a1 = (R + 1) * q->h < s1 ? (R + 1) * q->h : s1;
                        if (R != r1)
                            acc[R] += c * (a1 - a0) * (double)ap;
                    }
                }
                /* arrivals over r1's global slots, for the hosts of any other router */
                double in = 0;
                for (uint32_t s = r1 * q->h; s < (r1 + 1) * q->h; s++) {
                    uint32_t D = slot_group(q, G, s), m = s / (q->g - 1);
                    in += (double)count_mod(D * ap, (D + 1) * ap, m, q->n) * q->p;
                }
                for (uint32_t r2 = 0; r2 < q->a; r2++) {
                    if (r2 == r1)
                        continue;
                    double load = ((double)q->p * q->p + acc[r2] + in) / (N - 1);
                    if (load > worst)
                        worst = load;
                }
            }
        }
        free(acc);
    }
    free(C);
    return 1.0 / worst;
}

static void fini(topo *t) { free(t->priv); }

/* UGAL-L at the source router (Kim et al. 2008, section 4.2): the minimal
 * path unless its output's occupancy times its hops exceeds the Valiant
 * path's (topo_ugal_minimal; the output-queued core's bytes waiting and on
 * the wire, the input-queued router's flits held downstream, as BookSim2's
 * credit-count UGAL) */
static unsigned choose(const topo *t, uint32_t sw, const topo_hdr *h, const topo_hop *c, unsigned n,
                       const topo_probe *pr)
{
    (void)t, (void)h;
    TN_ASSERT(n == 2 && c[0].kind == TOPO_HOP_MINIMAL && c[1].kind == TOPO_HOP_VALIANT,
              "dragonfly: UGAL candidates at switch %u", sw);
    uint64_t qm = pr->load(pr->ctx, c[0].port), qv = pr->load(pr->ctx, c[1].port);
    return topo_ugal_minimal(qm, c[0].hops_left, qv, c[1].hops_left) ? 0 : 1;
}

static const topo_ops dragonfly_ops = {
    .name = "dragonfly",
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
    .hdr_alt = hdr_alt,
};

int topo_dragonfly_check(const topo_dragonfly_params *p, char *err, size_t errlen)
{
    if (p->groups < 2 || p->routers_per_group < 1 || p->hosts_per_router < 1 ||
        p->global_links < 1)
        return tn_error(err, errlen,
                        "dragonfly: groups=%u must be at least 2, routers-per-group=%u, "
                        "hosts-per-router=%u and global-links=%u at least 1",
                        p->groups, p->routers_per_group, p->hosts_per_router, p->global_links);
    uint64_t ah = (uint64_t)p->routers_per_group * p->global_links;
    if (ah % (p->groups - 1) != 0)
        return tn_error(err, errlen,
                        "dragonfly: the %llu global links of a group (routers-per-group x "
                        "global-links) must divide evenly among the %u other groups",
                        (unsigned long long)ah, p->groups - 1);
    uint64_t n = (uint64_t)p->groups * p->routers_per_group * p->hosts_per_router;
    if (n > TOPO_MAX_HOSTS)
        return tn_error(err, errlen, "dragonfly: more than %u hosts", TOPO_MAX_HOSTS);
    uint64_t radix = (uint64_t)p->hosts_per_router + p->routers_per_group - 1 + p->global_links;
    if (n + (uint64_t)p->groups * p->routers_per_group * radix > UINT32_MAX)
        return tn_error(err, errlen, "dragonfly: %llu routers of %llu ports are too many links",
                        (unsigned long long)p->groups * p->routers_per_group,
                        (unsigned long long)radix);
    if (p->routing != TOPO_DF_MINIMAL && p->routing != TOPO_DF_VALIANT &&
        p->routing != TOPO_DF_UGAL)
        return tn_error(err, errlen, "dragonfly: unknown routing %d", (int)p->routing);
    return 0;
}

int topo_dragonfly_init(topo *t, const topo_dragonfly_params *p, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (topo_dragonfly_check(p, err, errlen) != 0)
        return -1;
    dragonfly *q = tn_xcalloc(1, sizeof *q);
    q->g = p->groups;
    q->a = p->routers_per_group;
    q->p = p->hosts_per_router;
    q->h = p->global_links;
    q->n = q->a * q->h / (q->g - 1);
    q->da = topo_div_make(q->a);
    q->dp = topo_div_make(q->p);
    q->dh = topo_div_make(q->h);
    q->dg1 = topo_div_make(q->g - 1);
    q->dn = topo_div_make(q->n);
    q->dap = topo_div_make(q->a * q->p);
    q->radix = q->p + q->a - 1 + q->h;
    q->routing = p->routing;
    t->ops = &dragonfly_ops;
    t->priv = q;
    t->switches = q->g * q->a;
    t->hosts = t->switches * q->p;
    t->max_radix = q->radix;
    t->links = t->hosts + t->switches * q->radix;
    t->max_route_links = p->routing == TOPO_DF_MINIMAL ? 5 : 7;
    t->vcs = topo_dragonfly_classes(p->routing);
    t->routing = (uint8_t)p->routing;
    t->adaptive = p->routing == TOPO_DF_UGAL;
    return 0;
}
