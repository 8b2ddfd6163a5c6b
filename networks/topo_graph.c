/* Graph topology: an arbitrary fabric read from a DOT file (contract in
 * topo.h), in the format of ORCS (seed 001: Schneider and Hoefler's
 * Oblivious Routing Congestion Simulator, whose get_network_graph script
 * writes it from an InfiniBand installation's ibnetdiscover and ibdiagnet
 * dumps).
 *
 * Nodes. A node is a host when its name starts with "H" (ORCS: "All nodes
 * that have a name starting with the letter H are recognized as hosts, all
 * other nodes are regarded as switches"), unless its attribute
 * kind="host" or kind="switch" says otherwise. Hosts are numbered 0..N-1
 * and switches 0..S-1 in the order the file first names them (cgraph's node
 * sequence). A host has exactly one link, to a switch.
 *
 * Links. Every link is full duplex. In a digraph (ORCS) each direction is
 * its own edge, u -> v and v -> u, and the k-th u -> v edge is paired with
 * the k-th v -> u edge (file order) unless the edges carry ports; in an
 * undirected graph each edge u -- v is one link. A switch's ports are its
 * outgoing edges in file order (undirected: its edges in file order), or
 * the edge attributes tport (port at the tail) and hport (port at the
 * head), which then every edge carries: u -> v [tport=3, hport=1] leaves u
 * by port 3 and enters v on port 1, v's port 1 leading back to u.
 * tasknet export-topology writes the ports, so an exported fabric is read
 * back with the same switch, port, host and link ids. Per-link bandwidth
 * and latency: the edge attributes bandwidth and latency (the units of
 * network.bandwidth and network.link-latency: "25Gb/s", "100ns") give
 * that direction of the link its own rate and propagation (in an
 * undirected graph, both directions); an edge without them runs at the
 * fabric's network.bandwidth and network.link-latency (the switched core,
 * swnet.c, reads them through topo_ops.link_attr).
 *
 * Routing (topo_graph_params.routing; each is destination-based, as
 * InfiniBand's linear forwarding tables, and uses one virtual channel):
 *   file      ORCS's routes: the comment of edge u -> v lists the
 *             destination hosts (names, comma-separated) routed from u over
 *             it; "*" matches every host not listed on another edge of u.
 *             A switch always delivers its own hosts on their links. Table
 *             [S x N] of ports (2 bytes each).
 *   shortest  breadth-first distances between switches; at each switch the
 *             lowest port toward a neighbour one hop nearer the destination.
 *   ecmp      the same distances; one of the ports toward a nearer
 *             neighbour drawn uniformly per hop from the message's salt
 *             (topo_pick(salt, hops left, n)): equal-cost multipath.
 *   up-down   up*-down* of Autonet (Schroeder et al., IEEE JSAC 1991):
 *             a breadth-first tree from the root switch (graph attribute
 *             root=NAME, else the first switch of the file) orders the
 *             switches by (tree level, id); a link toward a smaller one goes
 *             up. A legal route is zero or more up links then zero or more
 *             down links; the route is the shortest legal one (ties: lowest
 *             port), the header's phase recording that it went down.
 *             Distances: down[s][t] by a backward breadth-first search over
 *             down links from t; any[s][t] = min(down[s][t], 1 + min over
 *             up neighbours u of any[u][t]), computed in increasing order.
 *             Every pair is connected (up the tree to the root, down to t),
 *             and the channel dependency graph is acyclic (Autonet: up
 *             links in decreasing order, then down links in increasing
 *             order, a total order every route follows).
 * Paths and class steps (routing="file"; tasknet's extension, written by
 * export-topology, topo_export.c): graph attribute lmc = B gives each
 * destination 2^B routes (InfiniBand's LID mask control gives a port 2^LMC
 * LIDs, each with its own forwarding entries); an entry "NAME@v" of a
 * comment or vcN list routes NAME on path v only, a bare NAME every path
 * not listed with "@" on that switch. A message takes path v whose bit i
 * is topo_pick(salt, i, 2), the i-th binary choice of its salt (how the
 * parametric topologies draw their ties, so an exported torus routes as the
 * torus). Edge attribute vcstep = k: a packet that crosses the link uses
 * classes k higher on its later hops (a hop's class = its entry's class +
 * the steps crossed before; into a host, 0): the dragonfly's rule, the
 * class counting the global links crossed. Host attribute path = k: that
 * host's messages take path k, whatever their salt (routes that depend on
 * the source: the dragonfly's per-source global slices); the walk below
 * then starts it on path k only. Graph attribute vcs = N fixes
 * the class count (else 1 + the largest class a route uses). Table [2^B x
 * S x N] of 2 bytes.
 * The computed routings keep their distances per (switch, destination
 * switch with hosts): tables [S x S_h] of 2 bytes (two for up-down).
 *
 * Failed links (network.failed-links): the computed routings are computed
 * without them; routing="file" keeps the file's routes, a message whose
 * own path crosses one taking the next intact path (path_around: v + 1,
 * v + 2, ... modulo 2^lmc, as the torus's alternative records; a host with
 * a path attribute keeps its path), a pair with no intact path an error.
 * After a failure during the run (network.fail-at, net_graph.c) `next`
 * offers nothing to a packet whose way is gone: an up-down packet that
 * went down with no down-only route left, a file route onto a failed link.
 *
 * Checks at build time, by walking every destination's routes from every
 * source switch (states: switch and up-down phase): a route that reaches a
 * switch without an entry for its destination (an unreachable pair), that
 * comes back to a switch it crossed (a routing loop) or that leaves on a
 * host other than its destination is an error naming the file, line and
 * node. The same walk gives the longest route, the uniform-random bound
 * (each source's 1/(N-1) share of every destination pushed along the routes,
 * split evenly among ECMP's choices; bound = min(1, (N-1) / the largest load
 * of a link between switches), and the channel dependency graph of the
 * links between switches (Dally and Seitz: a routing with one virtual
 * channel is deadlock-free iff it is acyclic). A cycle is kept as a
 * message naming its links (topo_graph_cycle); the fabric refuses it under
 * credit flow control before the run.
 *
 * Memory, O(links + routing table): 12 B a port (gport) and 8 B a host,
 * the names, and the routing tables above: up-down 8 S S_h bytes
 * (dist, ddown and two phases of nport, 2 B each), shortest 4 S S_h,
 * ecmp 2 S S_h, file 2^lmc N S x 2 B (S switches, S_h with hosts); and
 * for shortest and up-down the route cache of static evaluations
 * (route_cached): 4 S_h^2 L bytes (L the longest route's links between
 * switches), kept only when at most twice the tables. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "dotio.h"
#include "log.h"
#include "topo.h"

const char *const topo_graph_routing_names[] = {"file", "shortest", "up-down", "ecmp", NULL};
const char *const topo_graph_routing_help[] = {"the DOT file's routes", "a shortest path per destination",
                                               "up*-down* shortest paths", "shortest paths hashed per message",
                                               NULL};
const char *const topo_graph_routing_params[] = {"", "", "", "", NULL};
/* network.routing's row for the graph (topo.h; topo.c fills choices and help before main) */
topo_routings topo_graph_routings = {.topology = "graph", .names = topo_graph_routing_names, .help = topo_graph_routing_help,
                                  .params = topo_graph_routing_params};

#define GR_NONE UINT16_MAX
#define GR_VC_SHIFT 12 /* a file table entry: port (12 bits), class (4 bits) */
#define GR_PORT_MASK ((1u << GR_VC_SHIFT) - 1)
#define GR_MAX_VC 7

typedef struct gport {
    uint32_t id;   /* peer host or switch */
    uint32_t port; /* peer switch's input port (its output back here); 0 for a host */
    uint8_t kind;  /* enum topo_end_kind */
    uint8_t up;    /* up-down: 1 when the link goes up */
    uint8_t failed; /* network.failed-links: no route uses it */
    uint8_t step;   /* routing=file: vcstep, the class rise of the hops after this link */
} gport;

typedef struct graph {
    char *path;
    uint32_t nh, ns;
    uint64_t *base;  /* [ns + 1] first port index of each switch */
    gport *pt;       /* [P] */
    uint32_t *hsw;   /* [nh] switch of each host */
    uint32_t *hport; /* [nh] its port there */
    char **hname, **sname;
    topo_graph_routing routing;
    uint16_t *nxt;   /* file: [npath * nh * ns] (destination-major) output port toward each host on each path |
                        its class << GR_VC_SHIFT */
    unsigned nvc;    /* virtual channel classes (file: 1 + the largest vcN used, or vcs=) */
    unsigned lmc;    /* file: 2^lmc paths per destination (graph attribute lmc) */
    uint32_t npath;  /* 2^lmc */
    int vcs_given;   /* the graph attribute vcs fixed nvc */
    int steps;       /* some edge has vcstep > 0 */
    uint16_t *hpath; /* file: [nh] the path a host's messages take (host attribute path), GR_NONE: drawn; or NULL */
    uint32_t *dix;   /* computed: [ns] destination index of a switch with hosts, else UINT32_MAX */
    uint32_t ndst;   /* switches with hosts */
    uint16_t *dist;  /* computed: [ns * ndst] (up-down: any) */
    uint16_t *ddown; /* up-down: [ns * ndst] down-only distance */
    uint16_t *nport; /* shortest, up-down: [phases * ndst * ns] (destination-major) the route's port (12 bits)
                        | min(15, switch links still to cross) << 12 */
    uint32_t root;
    double bound;
    char *cycle; /* the channel dependency cycle found, or NULL */
    uint32_t maxsw;
    char *failed; /* the failed links' names ("A-B C-D"), or NULL */
    uint32_t nfailed;
    uint32_t *pc;    /* shortest, up-down: the route cache of route_many, [ndst * ndst * pcl] (NULL: not yet) */
    uint32_t pcl;    /* its slots per pair: the longest route's links between switches (0: no cache) */
    double *lbw;     /* [nh + P] per directed link id: its own rate, bit/s (0: the fabric's); NULL: none has one */
    int64_t *llat;   /* [nh + P] its own latency, ps (< 0: the fabric's); allocated with lbw */
    int refs;    /* topologies sharing it, and the cache */
} graph;

static const graph *G(const topo *t) { return t->priv; }

/* A table read at random by every route (the routing tables):
 * tn_xalloc_big, in 2 MB pages where the kernel offers them, so the reads
 * of many routes do not also miss the TLB. Freed with free(). */
static void *table_alloc(size_t n) { return tn_xalloc_big(n); }

static uint32_t radix(const topo *t, uint32_t sw)
{
    const graph *g = G(t);
    return (uint32_t)(g->base[sw + 1] - g->base[sw]);
}

static uint64_t port_base(const topo *t, uint32_t sw) { return G(t)->base[sw]; }

static uint32_t locate(const topo *t, uint64_t x)
{
    const graph *g = G(t);
    uint32_t lo = 0, hi = g->ns; /* base[lo] <= x < base[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->base[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t locate_sw(const graph *g, uint64_t x)
{
    uint32_t lo = 0, hi = g->ns;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->base[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    const graph *g = G(t);
    TN_ASSERT(host < g->nh, "graph: host %u of %u", host, g->nh);
    *sw = g->hsw[host];
    *port = g->hport[host];
}

static topo_end peer(const topo *t, uint32_t sw, uint32_t port)
{
    const graph *g = G(t);
    TN_ASSERT(sw < g->ns && port < radix(t, sw), "graph: switch %u port %u", sw, port);
    const gport *p = &g->pt[g->base[sw] + port];
    return (topo_end){.kind = p->kind, .id = p->id, .port = p->port};
}

/* routing="file": the entry of switch s toward host d on path v */
static inline uint16_t fent(const graph *g, uint32_t v, uint32_t s, uint32_t d)
{
    return g->nxt[((uint64_t)v * g->nh + d) * g->ns + s];
}

/* The path of a message (graph attribute lmc = B): bit i is the message's
 * i-th uniform binary choice topo_pick(salt, i, 2), as every parametric
 * topology draws its ties, so an exported torus follows the same path. */
static uint32_t path_of(const graph *g, uint64_t salt)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < g->lmc; i++)
        v |= topo_pick(salt, i, 2) << i;
    return v;
}

static uint16_t hops_from(const graph *g, uint32_t s, uint32_t d, int ph, uint32_t v);

/* routing="file" with failed links: does path v's route from switch s to
 * host d cross none of them? */
static int path_intact(const graph *g, uint32_t s, uint32_t d, uint32_t v)
{
    uint32_t t = g->hsw[d];
    for (uint32_t h = 0; s != t && h <= g->ns; h++) {
        uint16_t e = fent(g, v, s, d);
        if (e == GR_NONE)
            return 0;
        const gport *q = &g->pt[g->base[s] + (e & GR_PORT_MASK)];
        if (q->failed)
            return 0;
        if (q->kind != TOPO_SWITCH)
            return 1;
        s = q->id;
    }
    return s == t;
}

/* routing="file" with failed links: the path a message src -> dst takes,
 * its own v (the salt's, or the host's path attribute) when intact, else
 * the first intact one of v + 1, v + 2, ... (mod 2^lmc), as the torus's
 * records (topo_fail.c): a host with a path of its own keeps it. GR_NONE
 * when none is intact (an unreachable pair). */
static uint32_t path_around(const graph *g, uint32_t src, uint32_t dst, uint32_t v)
{
    uint32_t s = g->hsw[src];
    int own = g->hpath && g->hpath[src] != GR_NONE;
    for (uint32_t i = 0; i < (own ? 1 : g->npath); i++) {
        uint32_t w = (v + i) & (g->npath - 1);
        if (path_intact(g, s, dst, w))
            return w;
    }
    return GR_NONE;
}

/* The header: mid holds the path (routing="file"), vc the classes the
 * vcstep links crossed so far add, phase up-down's, off[0] the links
 * between switches still to cross (set here, counted down by take: each
 * hop's hops_left without a walk). */
static void hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    TN_ASSERT(src < t->hosts && dst < t->hosts, "graph: %u -> %u of %u hosts", src, dst, t->hosts);
    memset(h, 0, sizeof *h);
    h->src = src;
    h->dst = dst;
    h->salt = salt;
    const graph *g = G(t);
    if (g->hpath && g->hpath[src] != GR_NONE)
        h->mid = g->hpath[src];
    else if (g->lmc)
        h->mid = path_of(g, salt);
    if (g->nfailed && g->routing == TOPO_GRAPH_FILE && g->hsw[src] != g->hsw[dst]) {
        uint32_t v = path_around(g, src, dst, h->mid);
        h->mid = v == GR_NONE ? h->mid : v; /* none: refused before the run (file_routes_avoid_failed) */
    }
    if (g->routing == TOPO_GRAPH_FILE && g->hsw[src] != g->hsw[dst])
        h->off[0] = hops_from(g, g->hsw[src], dst, 0, h->mid);
}

/* The candidate ports of switch s (not the destination's switch) toward
 * destination host d (file) or destination index x (computed) in up-down
 * phase ph: every one for ECMP (n), else the route's one. Returns their
 * number (0: no entry); ports[i], and the phase after each. Never
 * allocates: at most the switch's radix. */
static unsigned cands(const graph *g, uint32_t s, uint32_t d, uint32_t x, int ph, uint32_t v, uint32_t *ports,
                      uint8_t *phs, unsigned max)
{
    uint64_t b = g->base[s];
    uint32_t r = (uint32_t)(g->base[s + 1] - b);
    if (g->routing == TOPO_GRAPH_FILE) {
        uint16_t p = fent(g, v, s, d);
        if (p == GR_NONE)
            return 0;
        ports[0] = p & GR_PORT_MASK;
        phs[0] = 0;
        return 1;
    }
    unsigned n = 0;
    if (g->routing == TOPO_GRAPH_UPDOWN) {
        uint32_t any = g->dist[(uint64_t)s * g->ndst + x], down = g->ddown[(uint64_t)s * g->ndst + x];
        for (uint32_t p = 0; p < r && n < max; p++) {
            const gport *q = &g->pt[b + p];
            if (q->kind != TOPO_SWITCH || q->failed)
                continue;
            if (q->up) {
                if (ph == 0 && (uint32_t)g->dist[(uint64_t)q->id * g->ndst + x] + 1 == any) {
                    ports[n] = p;
                    phs[n++] = 0;
                    return n; /* first legal shortest */
                }
            } else {
                uint32_t want = ph ? down : any;
                if ((uint32_t)g->ddown[(uint64_t)q->id * g->ndst + x] + 1 == want) {
                    ports[n] = p;
                    phs[n++] = 1;
                    return n;
                }
            }
        }
        return n;
    }
    uint32_t here = g->dist[(uint64_t)s * g->ndst + x];
    for (uint32_t p = 0; p < r && n < max; p++) {
        const gport *q = &g->pt[b + p];
        if (q->kind == TOPO_SWITCH && !q->failed && (uint32_t)g->dist[(uint64_t)q->id * g->ndst + x] + 1 == here) {
            ports[n] = p;
            phs[n++] = 0;
            if (g->routing == TOPO_GRAPH_SHORTEST)
                return n;
        }
    }
    return n;
}

static uint16_t hops_from(const graph *g, uint32_t s, uint32_t d, int ph, uint32_t v)
{
    uint32_t t = g->hsw[d];
    if (g->routing == TOPO_GRAPH_FILE) {
        uint32_t h = 0;
        while (s != t && h < g->maxsw) {
            const gport *q = &g->pt[g->base[s] + (fent(g, v, s, d) & GR_PORT_MASK)];
            s = q->id;
            h++;
        }
        return (uint16_t)h;
    }
    uint32_t x = g->dix[t];
    if (g->routing == TOPO_GRAPH_UPDOWN && ph)
        return g->ddown[(uint64_t)s * g->ndst + x];
    return g->dist[(uint64_t)s * g->ndst + x];
}

/* One table read a hop: the file's entry, or the computed route's port
 * (nport); ECMP scans the ports toward a nearer switch and draws one. */
static unsigned next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    const graph *g = G(t);
    uint32_t d = h->dst;
    if (g->hsw[d] == sw) {
        out[0] = (topo_hop){.port = g->hport[d], .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 0};
        return 1;
    }
    uint16_t left;
    uint32_t p;
    uint8_t vc = 0;
    if (g->nport) {
        uint32_t x = g->dix[g->hsw[d]];
        uint16_t e = g->nport[((uint64_t)h->phase * g->ndst + x) * g->ns + sw];
        if (__builtin_expect(e == GR_NONE, 0)) {
            /* after a failure during the run (network.fail-at): a packet that
             * went down has no down-only route from here any more */
            TN_ASSERT(g->nfailed, "graph: switch %u has no route to host %u", sw, d);
            return 0;
        }
        p = e & GR_PORT_MASK;
        left = (uint16_t)(e >> GR_VC_SHIFT);
        if (left == 15) /* saturated: the distance */
            left = hops_from(g, sw, d, h->phase, 0);
        out[0] = (topo_hop){.port = p, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = left};
        return 1;
    }
    if (g->routing != TOPO_GRAPH_FILE) /* ecmp */
        left = hops_from(g, sw, d, 0, 0);
    else
        left = (uint16_t)h->off[0];
    if (g->routing == TOPO_GRAPH_FILE) {
        uint16_t e = fent(g, h->mid, sw, d);
        TN_ASSERT(e != GR_NONE, "graph: switch %u has no route to host %u", sw, d);
        p = e & GR_PORT_MASK;
        if (__builtin_expect(g->nfailed != 0, 0) && g->pt[g->base[sw] + p].failed)
            return 0; /* fixed routes (network.fail-at): a packet routed onto a link that failed is lost */
        vc = (uint8_t)((e >> GR_VC_SHIFT) + h->vc);
    } else {
        uint32_t x = g->dix[g->hsw[d]];
        uint32_t ports[64];
        uint8_t phs[64];
        unsigned n = cands(g, sw, d, x, h->phase, h->mid, ports, phs, 64);
        if (__builtin_expect(n == 0, 0)) {
            TN_ASSERT(g->nfailed, "graph: switch %u has no route to host %u", sw, d);
            return 0;
        }
        p = ports[n > 1 ? topo_pick(h->salt, left, n) : 0];
    }
    out[0] = (topo_hop){.port = p, .vc = vc, .kind = TOPO_HOP_ONLY, .hops_left = left};
    return 1;
}

static void take(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *h)
{
    const graph *g = G(t);
    const gport *q = &g->pt[g->base[sw] + c->port];
    if (q->kind != TOPO_SWITCH)
        return;
    if (h->off[0] > 0) /* routing="file": the hops still to cross */
        h->off[0]--;
    h->vc = (uint8_t)(h->vc + q->step);
    if (g->routing == TOPO_GRAPH_UPDOWN && !q->up)
        h->phase = 1;
}

/* topo_route_many's kernel for the tabled routings (file; shortest and
 * up-down with their port tables): GR_LANES routes walked in turn, one
 * stage of a hop each per turn. A hop is two dependent reads (the table
 * cell of (destination, switch), then the record of the port it names),
 * each a cache miss at ORCS's scale (a 21,296-host tree's tables are tens
 * of MB): a stage prefetches what the lane's next stage reads, so the other
 * lanes' stages run while it arrives. The links are topo_route's (next,
 * take and peer above, composed); ECMP and tables too wide for 12-bit ports
 * go pair after pair. Shortest and up-down keep the routes they walked in
 * the route cache (route_cached below). */
#define GR_LANES 24
typedef struct gr_lane {
    const uint16_t *col; /* the route's column: a cell per switch */
    uint32_t *out;       /* its links */
    size_t f;            /* its pair */
    uint64_t pidx;       /* stage 1: the port record to read */
    uint32_t sw, d, dsw, dport, x, k;
    uint8_t stage, down;
} gr_lane;

/* The lanes' walk of pairs idx[0 .. n) (NULL: pairs 0 .. n). */
static void walk_lanes(const topo *t, size_t n, const uint32_t *idx, const uint64_t *ends, const uint64_t *salts,
                       uint32_t *links, uint32_t *len, size_t stride)
{
    const graph *g = G(t);
    const int file = g->routing == TOPO_GRAPH_FILE, updown = g->routing == TOPO_GRAPH_UPDOWN;
    const uint32_t N = g->nh, maxl = t->max_route_links;
    gr_lane L[GR_LANES];
    size_t nf = 0;
    unsigned live = 0;
    for (unsigned i = 0; i < GR_LANES; i++)
        L[i].f = SIZE_MAX;
    for (;;) {
        for (unsigned i = 0; i < GR_LANES; i++) {
            gr_lane *l = &L[i];
            if (l->f == SIZE_MAX) {
                if (nf == n)
                    continue;
                /* a new pair: its uplink, its column, the first cell */
                size_t f = idx ? idx[nf] : nf;
                nf++;
                uint32_t a = (uint32_t)(ends[f] >> 32), d = (uint32_t)ends[f];
                TN_ASSERT(a < N && d < N, "graph: route %u -> %u of %u hosts", a, d, N);
                l->f = f;
                l->out = links + f * stride;
                l->out[0] = a;
                l->k = 1;
                l->sw = g->hsw[a];
                l->d = d;
                l->dsw = g->hsw[d];
                l->dport = g->hport[d];
                l->stage = 0;
                l->down = 0;
                if (file) {
                    uint32_t v = g->hpath && g->hpath[a] != GR_NONE ? g->hpath[a] : g->lmc ? path_of(g, salts[f]) : 0;
                    l->col = g->nxt + ((uint64_t)v * g->nh + d) * g->ns;
                } else {
                    l->x = g->dix[l->dsw];
                    l->col = g->nport + (uint64_t)l->x * g->ns;
                }
                __builtin_prefetch(&l->col[l->sw]);
                live++;
                continue;
            }
            if (l->stage == 0) {
                uint32_t sw = l->sw;
                if (sw == l->dsw) { /* the destination's switch delivers */
                    l->out[l->k++] = N + (uint32_t)g->base[sw] + l->dport;
                    len[l->f] = l->k;
                    l->f = SIZE_MAX;
                    live--;
                    continue;
                }
                uint16_t e = l->col[sw];
                TN_ASSERT(e != GR_NONE, "graph: switch %u has no route to host %u", sw, l->d);
                l->pidx = g->base[sw] + (e & GR_PORT_MASK);
                l->out[l->k++] = N + (uint32_t)l->pidx;
                TN_ASSERT(l->k <= maxl, "graph: route to %u longer than %u links", l->d, maxl);
                __builtin_prefetch(&g->pt[l->pidx]);
                l->stage = 1;
                continue;
            }
            const gport *q = &g->pt[l->pidx];
            if (q->kind != TOPO_SWITCH) { /* a host: the walk at build time made it the destination */
                TN_ASSERT(q->id == l->d, "graph: route to %u delivered to %u", l->d, q->id);
                len[l->f] = l->k;
                l->f = SIZE_MAX;
                live--;
                continue;
            }
            if (updown && !q->up && !l->down) { /* take: the route went down */
                l->down = 1;
                l->col = g->nport + ((uint64_t)g->ndst + l->x) * g->ns;
            }
            l->sw = q->id;
            l->stage = 0;
            __builtin_prefetch(&l->col[l->sw]);
        }
        if (!live && nf == n)
            break;
    }
}

/* The route cache (shortest, up-down). Their routes are destination-based
 * and up-down's phase follows from the links crossed, so the links of a
 * route between switches depend on its source and destination switches
 * alone: route_many keeps them per (source switch, destination switch),
 * both with hosts (dix), pcl link ids a pair, UINT32_MAX after the last
 * when fewer, 0 in the first slot while the pair was never routed (a link
 * between switches has an id >= N >= 1). A cached route is one read, where
 * a walk is two dependent table reads a hop: at ORCS's scale
 * (bench/graph.sh) routing is then bound by the counting, not by the
 * tables. Memory: 4 ndst^2 pcl bytes, kept only when that is at most twice
 * the routing tables (pcl ndst <= 4 S for up-down, 2 S for shortest: see
 * cache_plan), so the graph stays O(links + routing table); allocated at
 * the first route_many (a static evaluation) and filled as pairs are
 * asked, so a timed run never holds it. */
static void cache_plan(graph *g)
{
    g->pcl = 0;
    if (!g->nport || g->maxsw < 2)
        return;
    uint64_t slots = g->maxsw - 1, lim = (g->routing == TOPO_GRAPH_UPDOWN ? 4 : 2) * (uint64_t)g->ns;
    if (slots * g->ndst <= lim)
        g->pcl = (uint32_t)slots;
}

static double cache_bytes(const graph *g) { return (double)g->ndst * g->ndst * g->pcl * sizeof *g->pc; }

#define GR_CHUNK 64
static void route_cached(const topo *t, graph *g, size_t n, const uint64_t *ends, const uint64_t *salts,
                         uint32_t *links, uint32_t *len, size_t stride)
{
    const uint32_t N = g->nh, P = g->pcl, X = g->ndst;
    if (!g->pc)
        g->pc = table_alloc((size_t)cache_bytes(g)); /* zeroed: no pair routed yet */
    uint32_t *ent[GR_CHUNK], miss[GR_CHUNK];
    for (size_t c0 = 0; c0 < n; c0 += GR_CHUNK) {
        size_t cn = n - c0 < GR_CHUNK ? n - c0 : GR_CHUNK;
        /* the pairs' entries, asked at once (independent reads) */
        for (size_t i = 0; i < cn; i++) {
            uint32_t a = (uint32_t)(ends[c0 + i] >> 32), d = (uint32_t)ends[c0 + i];
            TN_ASSERT(a < N && d < N, "graph: route %u -> %u of %u hosts", a, d, N);
            ent[i] = g->pc + ((uint64_t)g->dix[g->hsw[a]] * X + g->dix[g->hsw[d]]) * P;
            __builtin_prefetch(ent[i]);
        }
        unsigned nm = 0;
        for (size_t i = 0; i < cn; i++) {
            const uint32_t *e = ent[i];
            size_t f = c0 + i;
            if (e[0] == 0) { /* never routed: walked below */
                miss[nm++] = (uint32_t)i;
                continue;
            }
            uint32_t a = (uint32_t)(ends[f] >> 32), d = (uint32_t)ends[f];
            uint32_t *out = links + f * stride, k = 1;
            out[0] = a;
            for (uint32_t j = 0; j < P && e[j] != UINT32_MAX; j++)
                out[k++] = e[j];
            out[k++] = N + (uint32_t)g->base[g->hsw[d]] + g->hport[d];
            len[f] = k;
        }
        if (!nm)
            continue;
        uint32_t idx[GR_CHUNK];
        for (unsigned i = 0; i < nm; i++)
            idx[i] = (uint32_t)(c0 + miss[i]);
        walk_lanes(t, nm, idx, ends, salts, links, len, stride);
        for (unsigned i = 0; i < nm; i++) {
            size_t f = idx[i];
            uint32_t k = len[f], *e = ent[miss[i]];
            const uint32_t *r = links + f * stride;
            TN_ASSERT(k >= 2 && k - 2 <= P, "graph: route of %u links, cache of %u", k, P);
            for (uint32_t j = 0; j + 2 < k; j++)
                e[j] = r[1 + j];
            if (k - 2 < P)
                e[k - 2] = UINT32_MAX;
        }
    }
}

static void route_many(const topo *t, size_t n, const uint64_t *ends, const uint64_t *salts, uint32_t *links,
                       uint32_t *len, size_t stride)
{
    graph *g = t->priv;
    if (g->routing != TOPO_GRAPH_FILE && !g->nport)
        topo_route_each(t, n, ends, salts, links, len, stride);
    else if (g->pcl)
        route_cached(t, g, n, ends, salts, links, len, stride);
    else
        walk_lanes(t, n, NULL, ends, salts, links, len, stride);
}

static double uniform_bound(const topo *t) { return G(t)->bound; }

static void graph_free(graph *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; g->hname && i < g->nh; i++)
        free(g->hname[i]);
    for (uint32_t i = 0; g->sname && i < g->ns; i++)
        free(g->sname[i]);
    free(g->hname);
    free(g->sname);
    free(g->path);
    free(g->base);
    free(g->pt);
    free(g->hsw);
    free(g->hport);
    free(g->nxt);
    free(g->dix);
    free(g->dist);
    free(g->ddown);
    free(g->nport);
    free(g->pc);
    free(g->cycle);
    free(g->failed);
    free(g->lbw);
    free(g->llat);
    free(g->hpath);
    free(g);
}

static void fini(topo *t)
{
    graph *g = t->priv;
    if (g && --g->refs <= 0)
        graph_free(g);
}

static int link_attr(const topo *t, uint64_t link, double *bps, int64_t *ps)
{
    const graph *g = G(t);
    *bps = g->lbw ? g->lbw[link] : 0;
    *ps = g->llat ? g->llat[link] : -1;
    return *bps > 0 || *ps >= 0;
}

static const topo_ops graph_ops = {
    .name = "graph",
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
    .link_attr = link_attr,
    .route_many = route_many,
};

/* ---- reading the file ---- */

typedef struct half {
    Agedge_t *e;
    uint32_t tail, head; /* node indexes (by AGSEQ) */
    uint32_t tport;      /* the tail's port (switch tail), or 0 */
    uint32_t hport;      /* explicit head port, or UINT32_MAX */
    uint32_t rev;        /* paired half */
    uint64_t seq;
    double bw;           /* edge attribute bandwidth, bit/s (0: none) */
    int64_t lat;         /* edge attribute latency, ps (-1: none) */
    uint8_t step;        /* vcstep of the tail -> head direction */
} half;

typedef struct reader {
    const char *path;
    graph *g;
    Agraph_t *ag;
    uint32_t nn;        /* nodes */
    uint32_t *of_seq;   /* node index by AGSEQ */
    Agnode_t **node;    /* [nn] by index */
    uint8_t *is_host;   /* [nn] */
    uint32_t *id;       /* [nn] host or switch id */
    half *hv;
    size_t nhv;
    int attrs;          /* 1: some edge gives bandwidth or latency */
    char *err;
    size_t errlen;
} reader;

static const char *nname(const reader *r, uint32_t i) { return agnameof(r->node[i]); }

static int cmp_half_pair(const void *a, const void *b)
{
    const half *x = a, *y = b;
    uint32_t xa = x->tail < x->head ? x->tail : x->head, xb = x->tail < x->head ? x->head : x->tail;
    uint32_t ya = y->tail < y->head ? y->tail : y->head, yb = y->tail < y->head ? y->head : y->tail;
    if (xa != ya)
        return xa < ya ? -1 : 1;
    if (xb != yb)
        return xb < yb ? -1 : 1;
    if (x->tail != y->tail)
        return x->tail < y->tail ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Nodes: kinds, ids, names. */
static int read_nodes(reader *r)
{
    graph *g = r->g;
    uint32_t nn = (uint32_t)agnnodes(r->ag);
    r->nn = nn;
    r->node = tn_xcalloc(nn ? nn : 1, sizeof *r->node);
    r->is_host = tn_xcalloc(nn ? nn : 1, 1);
    r->id = tn_xcalloc(nn ? nn : 1, sizeof *r->id);
    uint64_t maxseq = 0;
    for (Agnode_t *n = agfstnode(r->ag); n; n = agnxtnode(r->ag, n))
        if ((uint64_t)AGSEQ(n) > maxseq)
            maxseq = (uint64_t)AGSEQ(n);
    r->of_seq = tn_xcalloc(maxseq + 1, sizeof *r->of_seq);
    uint32_t i = 0;
    for (Agnode_t *n = agfstnode(r->ag); n; n = agnxtnode(r->ag, n), i++) {
        r->of_seq[AGSEQ(n)] = i;
        r->node[i] = n;
        const char *name = agnameof(n);
        const char *kind = dot_attr(n, "kind");
        int host = name[0] == 'H';
        if (kind) {
            if (strcmp(kind, "host") == 0)
                host = 1;
            else if (strcmp(kind, "switch") == 0)
                host = 0;
            else
                return dot_node_error(r->err, r->errlen, r->path, name,
                                      "kind=\"%s\": expected host or switch", kind);
        }
        r->is_host[i] = (uint8_t)host;
        r->id[i] = host ? g->nh++ : g->ns++;
    }
    if (g->nh < 1)
        return tn_error(r->err, r->errlen,
                        "%s: no host (hosts are nodes whose name starts with H, or kind=\"host\")", r->path);
    if (g->ns < 1)
        return tn_error(r->err, r->errlen, "%s: no switch (every node is a host)", r->path);
    if (g->nh > TOPO_MAX_HOSTS)
        return tn_error(r->err, r->errlen, "%s: %u hosts, at most %u", r->path, g->nh, TOPO_MAX_HOSTS);
    g->hname = tn_xcalloc(g->nh, sizeof *g->hname);
    g->sname = tn_xcalloc(g->ns, sizeof *g->sname);
    for (i = 0; i < nn; i++) {
        char **slot = r->is_host[i] ? &g->hname[r->id[i]] : &g->sname[r->id[i]];
        *slot = tn_xstrdup(nname(r, i));
    }
    return 0;
}

static int rerr(reader *r, uint32_t node, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rerr(reader *r, uint32_t node, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dot_node_error(r->err, r->errlen, r->path, nname(r, node), "%s", msg);
}

static int cmp_half_tail(const void *a, const void *b)
{
    const half *x = *(half *const *)a, *y = *(half *const *)b;
    if (x->tail != y->tail)
        return x->tail < y->tail ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Halves of links: every directed use of a link, paired with its reverse;
 * ports; the peers of every port and the hosts' attachments. */
static int read_links(reader *r, const topo_graph_params *p)
{
    graph *g = r->g;
    int directed = agisdirected(r->ag);
    size_t ne = (size_t)agnedges(r->ag);
    r->hv = tn_xcalloc(2 * ne + 1, sizeof *r->hv);
    int explicit_ports = -1; /* 1: every edge gives its switch ports, 0: none does */
    char e2[256];
    for (uint32_t i = 0; i < r->nn; i++) {
        for (Agedge_t *e = agfstout(r->ag, r->node[i]); e; e = agnxtout(r->ag, e)) {
            uint32_t a = i, b = r->of_seq[AGSEQ(aghead(e))];
            const char *bn = nname(r, b);
            if (a == b)
                return rerr(r, a, "edge to itself");
            if (r->is_host[a] && r->is_host[b])
                return rerr(r, a, "linked to host %s (a host links to a switch)", bn);
            uint32_t tp = 0, hp = 0;
            int rt = dot_attr_u32(e, "tport", 1u << 20, &tp, e2, sizeof e2);
            int rh = rt < 0 ? 0 : dot_attr_u32(e, "hport", 1u << 20, &hp, e2, sizeof e2);
            if (rt < 0 || rh < 0)
                return rerr(r, a, "edge to %s: %s", bn, e2);
            uint32_t step = 0;
            if (dot_attr_u32(e, "vcstep", GR_MAX_VC + 1, &step, e2, sizeof e2) < 0)
                return rerr(r, a, "edge to %s: %s (vcstep: the classes a packet's later hops rise by after this "
                                  "link, 0 to %d)", bn, e2, GR_MAX_VC);
            if (step && p->routing == TOPO_GRAPH_FILE)
                r->g->steps = 1;
            int ta = !r->is_host[a] && rt == 0, hb = !r->is_host[b] && rh == 0;
            int mine = ta || hb;
            if ((!r->is_host[a] && !ta && mine) || (!r->is_host[b] && !hb && mine))
                return rerr(r, a, "edge to %s gives one port: a switch end needs its port (tport at the tail, "
                                  "hport at the head)", bn);
            if (explicit_ports < 0)
                explicit_ports = mine;
            else if (explicit_ports != mine)
                return rerr(r, a, "edge to %s %s: give ports (tport, hport) on every edge or on none", bn,
                            mine ? "gives ports while earlier edges do not" : "gives no port while earlier edges do");
            /* the link's own rate and latency (units as network.bandwidth
             * and network.link-latency; the fabric's when absent) */
            double bw = 0;
            int64_t lat = -1;
            for (int k = 0; k < 2; k++) {
                double v;
                const char *attr = k ? "latency" : "bandwidth";
                int rc = dot_attr_unit(e, attr, k ? UNIT_TIME : UNIT_RATE, &v, e2, sizeof e2);
                if (rc < 0)
                    return rerr(r, a, "edge to %s: %s", bn, e2);
                if (rc > 0)
                    continue;
                if (!k && !(v > 0 && v < 1e18))
                    return rerr(r, a, "edge to %s: bandwidth=\"%s\": expected a rate above 0 (e.g. 25Gb/s)", bn,
                                dot_attr(e, attr));
                if (k && !(v >= 0 && v <= 3600.0))
                    return rerr(r, a, "edge to %s: latency=\"%s\": expected a time from 0 to 1 hour (e.g. 100ns)",
                                bn, dot_attr(e, attr));
                if (k)
                    lat = llround(v * 1e12);
                else
                    bw = v;
            }
            (void)p;
            if (bw > 0 || lat >= 0)
                r->attrs = 1;
            half h = {.e = e, .tail = a, .head = b, .tport = ta ? tp : 0, .hport = hb ? hp : UINT32_MAX,
                      .rev = UINT32_MAX, .seq = (uint64_t)AGSEQ(e), .bw = bw, .lat = lat,
                      .step = (uint8_t)step};
            r->hv[r->nhv++] = h;
            if (!directed) {
                half h2 = {.e = e, .tail = b, .head = a, .tport = hb ? hp : 0, .hport = ta ? tp : UINT32_MAX,
                           .rev = (uint32_t)r->nhv - 1, .seq = (uint64_t)AGSEQ(e), .bw = bw, .lat = lat,
                           .step = (uint8_t)step};
                r->hv[r->nhv - 1].rev = (uint32_t)r->nhv;
                r->hv[r->nhv++] = h2;
            }
        }
    }
    if (explicit_ports < 0)
        explicit_ports = 0;
    /* ports: file order of the tail's halves, or tport */
    half **byt = tn_xcalloc(r->nhv + 1, sizeof *byt);
    for (size_t i = 0; i < r->nhv; i++)
        byt[i] = &r->hv[i];
    qsort(byt, r->nhv, sizeof *byt, cmp_half_tail);
    uint32_t *rad = tn_xcalloc(g->ns, sizeof *rad);
    uint32_t *hcount = tn_xcalloc(g->nh, sizeof *hcount);
    for (size_t i = 0; i < r->nhv; i++) {
        half *h = byt[i];
        if (r->is_host[h->tail]) {
            hcount[r->id[h->tail]]++;
            continue;
        }
        uint32_t s = r->id[h->tail];
        if (!explicit_ports)
            h->tport = rad[s]++;
        else if (h->tport + 1 > rad[s])
            rad[s] = h->tport + 1;
    }
    free(byt);
    int rc = 0;
    for (uint32_t i = 0; i < r->nn && rc == 0; i++) {
        if (r->is_host[i] && hcount[r->id[i]] != 1)
            rc = rerr(r, i, "has %s: a host has exactly one link, to a switch",
                      hcount[r->id[i]] ? "several links" : "no link");
    }
    free(hcount);
    if (rc) {
        free(rad);
        return -1;
    }
    g->base = tn_xcalloc((size_t)g->ns + 1, sizeof *g->base);
    for (uint32_t s = 0; s < g->ns; s++)
        g->base[s + 1] = g->base[s] + rad[s];
    uint64_t P = g->base[g->ns];
    if ((uint64_t)g->nh + P > UINT32_MAX / 2) {
        free(rad);
        return tn_error(r->err, r->errlen, "%s: %llu ports: too many links", r->path, (unsigned long long)P);
    }
    /* the half on each switch port */
    uint32_t *onport = tn_xcalloc(P + 1, sizeof *onport);
    for (uint64_t x = 0; x < P; x++)
        onport[x] = UINT32_MAX;
    for (size_t i = 0; i < r->nhv && rc == 0; i++) {
        half *h = &r->hv[i];
        if (r->is_host[h->tail])
            continue;
        uint64_t x = g->base[r->id[h->tail]] + h->tport;
        if (onport[x] != UINT32_MAX) {
            rc = rerr(r, h->tail, "two edges leave by port %u", h->tport);
        }
        onport[x] = (uint32_t)i;
    }
    for (uint32_t s = 0; s < g->ns && rc == 0; s++)
        for (uint64_t x = g->base[s]; x < g->base[s + 1] && rc == 0; x++)
            if (onport[x] == UINT32_MAX) {
                char pn[32];
                snprintf(pn, sizeof pn, "%llu", (unsigned long long)(x - g->base[s]));
                rc = dot_node_error(r->err, r->errlen, r->path, g->sname[s],
                                    "port %s has no edge (ports are numbered from 0 without gaps)", pn);
            }
    free(rad);
    /* pairing */
    if (rc == 0 && directed && !explicit_ports) {
        half *tmp = tn_xcalloc(r->nhv + 1, sizeof *tmp);
        uint32_t *idx = tn_xcalloc(r->nhv + 1, sizeof *idx);
        /* sort indexes by unordered pair, tail, seq */
        for (size_t i = 0; i < r->nhv; i++)
            tmp[i] = r->hv[i], tmp[i].rev = (uint32_t)i; /* rev: original index */
        qsort(tmp, r->nhv, sizeof *tmp, cmp_half_pair);
        for (size_t i = 0; i < r->nhv; i++)
            idx[i] = tmp[i].rev;
        size_t i = 0;
        while (i < r->nhv && rc == 0) {
            size_t j = i;
            uint32_t lo = tmp[i].tail < tmp[i].head ? tmp[i].tail : tmp[i].head;
            uint32_t hi = tmp[i].tail < tmp[i].head ? tmp[i].head : tmp[i].tail;
            while (j < r->nhv && ((tmp[j].tail == lo && tmp[j].head == hi) || (tmp[j].tail == hi && tmp[j].head == lo)))
                j++;
            size_t nlo = 0;
            while (i + nlo < j && tmp[i + nlo].tail == lo)
                nlo++;
            if (nlo * 2 != j - i) {
                rc = rerr(r, nlo * 2 > j - i ? lo : hi,
                          "has more edges to %s than %s has back: links are full duplex, give both directions in a "
                          "digraph (or use an undirected graph)",
                          nname(r, nlo * 2 > j - i ? hi : lo), nname(r, nlo * 2 > j - i ? hi : lo));
                break;
            }
            for (size_t k = 0; k < nlo; k++) {
                r->hv[idx[i + k]].rev = idx[i + nlo + k];
                r->hv[idx[i + nlo + k]].rev = idx[i + k];
            }
            i = j;
        }
        free(tmp);
        free(idx);
    } else if (rc == 0 && directed) {
        uint32_t *hosthalf = tn_xcalloc(g->nh, sizeof *hosthalf);
        for (size_t i = 0; i < r->nhv; i++)
            if (r->is_host[r->hv[i].tail])
                hosthalf[r->id[r->hv[i].tail]] = (uint32_t)i;
        for (size_t i = 0; i < r->nhv && rc == 0; i++) {
            half *h = &r->hv[i];
            uint32_t rv = UINT32_MAX;
            if (!r->is_host[h->head]) {
                uint64_t x = g->base[r->id[h->head]] + h->hport;
                rv = h->hport < g->base[r->id[h->head] + 1] - g->base[r->id[h->head]] ? onport[x] : UINT32_MAX;
            } else {
                rv = hosthalf[r->id[h->head]];
            }
            if (rv == UINT32_MAX || r->hv[rv].head != h->tail ||
                (!r->is_host[h->tail] && r->hv[rv].hport != h->tport)) {
                rc = rerr(r, h->tail, "the edge leaving by port %u to %s has no matching edge back (its hport must "
                                      "name a port of the head whose edge comes back with this port as hport)",
                          h->tport, nname(r, h->head));
            }
            h->rev = rv;
        }
        free(hosthalf);
    }
    if (rc == 0) {
        g->pt = tn_xcalloc(P + 1, sizeof *g->pt);
        g->hsw = tn_xcalloc(g->nh, sizeof *g->hsw);
        g->hport = tn_xcalloc(g->nh, sizeof *g->hport);
        if (r->attrs) {
            size_t L = (size_t)g->nh + P;
            g->lbw = tn_xcalloc(L + 1, sizeof *g->lbw);
            g->llat = tn_xmalloc((L + 1) * sizeof *g->llat);
            for (size_t i = 0; i < L; i++)
                g->llat[i] = -1;
            for (size_t i = 0; i < r->nhv; i++) /* the hosts' uplinks: link id = host */
                if (r->is_host[r->hv[i].tail]) {
                    g->lbw[r->id[r->hv[i].tail]] = r->hv[i].bw;
                    g->llat[r->id[r->hv[i].tail]] = r->hv[i].lat;
                }
        }
        for (uint32_t s = 0; s < g->ns; s++)
            for (uint64_t x = g->base[s]; x < g->base[s + 1]; x++) {
                const half *h = &r->hv[onport[x]];
                const half *rv = &r->hv[h->rev];
                if (g->lbw) { /* the output of switch port x: link id nh + x */
                    g->lbw[g->nh + x] = h->bw;
                    g->llat[g->nh + x] = h->lat;
                }
                if (r->is_host[h->head]) {
                    g->pt[x] = (gport){.id = r->id[h->head], .port = 0, .kind = TOPO_HOST};
                    g->hsw[r->id[h->head]] = s;
                    g->hport[r->id[h->head]] = (uint32_t)(x - g->base[s]);
                } else {
                    g->pt[x] = (gport){.id = r->id[h->head], .port = rv->tport, .kind = TOPO_SWITCH,
                                       .step = g->steps ? h->step : 0};
                }
            }
    }
    free(onport);
    return rc;
}

/* ORCS's routes: the comment of every switch's outgoing edge (class 0),
 * and the lists vc1 .. vc7 (the destinations that cross the edge on that
 * virtual channel class, tasknet's extension: export-topology writes the
 * classes of the torus's datelines). With the graph attribute lmc = B
 * (InfiniBand's LID mask control: 2^B routes per destination) an entry
 * "NAME@k" routes destination NAME on path k only; a bare NAME is every
 * path's not given "@" on that switch. The graph attribute vcs fixes the
 * fabric's classes (at least those the routes use). */
static int read_routes(reader *r)
{
    graph *g = r->g;
    if (!agisdirected(r->ag))
        return tn_error(r->err, r->errlen,
                        "%s: routing=\"file\" reads each direction's routes from its own edge: the graph must be a "
                        "digraph (or choose routing=\"shortest\", \"up-down\" or \"ecmp\")",
                        r->path);
    char e2[256];
    uint32_t lmc = 0, vcs = 0;
    if (dot_attr_u32(r->ag, "lmc", 9, &lmc, e2, sizeof e2) < 0)
        return tn_error(r->err, r->errlen, "%s: graph attribute %s (lmc: 2^lmc routes per destination, 0 to 8)",
                        r->path, e2);
    int rv = dot_attr_u32(r->ag, "vcs", GR_MAX_VC + 2, &vcs, e2, sizeof e2);
    if (rv < 0 || (rv == 0 && vcs < 1))
        return tn_error(r->err, r->errlen, "%s: graph attribute %s (vcs: the virtual channel classes, 1 to %d)",
                        r->path, rv < 0 ? e2 : "vcs=0", GR_MAX_VC + 1);
    g->lmc = lmc;
    g->npath = 1u << lmc;
    if (rv == 0) {
        g->vcs_given = 1;
        g->nvc = vcs;
    }
    uint32_t P = g->npath;
    /* hosts whose messages take one path (host attribute path) */
    for (uint32_t i = 0; i < r->nn; i++) {
        if (!r->is_host[i])
            continue;
        uint32_t k;
        int rp = dot_attr_u32(r->node[i], "path", P, &k, e2, sizeof e2);
        if (rp < 0)
            return rerr(r, i, "%s (path: the route its messages take, below 2^lmc = %u)", e2, P);
        if (rp == 0) {
            if (!g->hpath) {
                g->hpath = tn_xmalloc((size_t)g->nh * sizeof *g->hpath);
                for (uint32_t h = 0; h < g->nh; h++)
                    g->hpath[h] = GR_NONE;
            }
            g->hpath[r->id[i]] = (uint16_t)k;
        }
    }
    if ((uint64_t)g->ns * g->nh * P > (UINT64_C(1) << 36))
        return tn_error(r->err, r->errlen, "%s: a routing table of %u switches x %u hosts x %u paths is too large",
                        r->path, g->ns, g->nh, P);
    size_t cells = (size_t)g->ns * g->nh;
    g->nxt = table_alloc(cells * P * sizeof *g->nxt + 2);
    for (size_t i = 0; i < cells * P; i++)
        g->nxt[i] = GR_NONE;
    /* entries without "@" (every path): into path 0's table when there is
     * one path, else a table of their own merged below */
    uint16_t *gen = g->nxt;
    if (P > 1) {
        gen = tn_xmalloc(cells * sizeof *gen + 2);
        for (size_t i = 0; i < cells; i++)
            gen[i] = GR_NONE;
    }
    uint16_t *wild = tn_xmalloc((size_t)g->ns * sizeof *wild + 2);
    for (uint32_t s = 0; s < g->ns; s++)
        wild[s] = GR_NONE;
    int rc = 0;
    int any = 0;
    unsigned maxvc = 0;
    for (uint32_t s = 0; s < g->ns && rc == 0; s++) {
        if (g->base[s + 1] - g->base[s] > GR_PORT_MASK) {
            rc = dot_node_error(r->err, r->errlen, r->path, g->sname[s],
                                "more than %u ports (routing=\"file\" keeps a port in 12 bits)", GR_PORT_MASK);
            break;
        }
    }
    for (size_t i = 0; i < r->nhv && rc == 0; i++) {
        const half *h = &r->hv[i];
        if (r->is_host[h->tail])
            continue;
        for (unsigned vc = 0; vc <= GR_MAX_VC && rc == 0; vc++) {
            char an[8];
            snprintf(an, sizeof an, "vc%u", vc);
            const char *c = dot_attr(h->e, vc ? an : "comment");
            if (!c)
                continue;
            any = 1;
            if (vc > maxvc)
                maxvc = vc;
            uint32_t s = r->id[h->tail];
            uint16_t entry = (uint16_t)(h->tport | vc << GR_VC_SHIFT);
            const char *q = c;
            while (*q && rc == 0) {
                while (*q == ',' || tn_is_space(*q))
                    q++;
                const char *e = q;
                while (*e && *e != ',')
                    e++;
                const char *f = e, *b0 = q;
                q = e;
                while (f > b0 && tn_is_space(f[-1]))
                    f--;
                if (f > b0) {
                    char nm[256];
                    size_t len = (size_t)(f - b0) < sizeof nm - 1 ? (size_t)(f - b0) : sizeof nm - 1;
                    memcpy(nm, b0, len);
                    nm[len] = '\0';
                    if (strcmp(nm, "*") == 0) {
                        if (vc)
                            rc = rerr(r, h->tail, "the edge to %s: \"*\" in vc%u (only comment takes \"*\")",
                                      nname(r, h->head), vc);
                        else if (wild[s] != GR_NONE && wild[s] != entry)
                            rc = rerr(r, h->tail, "two edges carry \"*\" (one of them to %s)",
                                      nname(r, r->hv[i].head));
                        wild[s] = entry;
                        continue;
                    }
                    Agnode_t *n = agnode(r->ag, nm, 0);
                    uint32_t path = UINT32_MAX; /* every path */
                    char *at = strrchr(nm, '@');
                    if (!n && at && at[1]) {
                        char *pe;
                        unsigned long k = strtoul(at + 1, &pe, 10);
                        if (*pe || at[1] < '0' || at[1] > '9' || k >= P) {
                            rc = rerr(r, h->tail, "the %s of the edge to %s names %s: \"@%s\" is not a path below "
                                                  "2^lmc = %u",
                                      vc ? an : "comment", nname(r, h->head), nm, at + 1, P);
                            break;
                        }
                        path = (uint32_t)k;
                        *at = '\0';
                        n = agnode(r->ag, nm, 0);
                    }
                    uint32_t ni = n ? r->of_seq[AGSEQ(n)] : UINT32_MAX;
                    if (ni == UINT32_MAX || !r->is_host[ni]) {
                        rc = rerr(r, h->tail, "the %s of the edge to %s names %s, which is not a host",
                                  vc ? an : "comment", nname(r, h->head), nm);
                    } else {
                        size_t cx = (size_t)r->id[ni] * g->ns + s; /* destination-major */
                        uint16_t *cell = path == UINT32_MAX ? &gen[cx] : &g->nxt[path * cells + cx];
                        if (*cell != GR_NONE && *cell != entry) {
                            if (path == UINT32_MAX)
                                rc = rerr(r, h->tail, "routes host %s over two edges or classes (one of them to %s)",
                                          nm, nname(r, h->head));
                            else
                                rc = rerr(r, h->tail, "routes host %s on path %u over two edges or classes (one of "
                                                      "them to %s)",
                                          nm, path, nname(r, h->head));
                        }
                        *cell = entry;
                    }
                }
            }
        }
    }
    if (rc == 0 && !any)
        rc = tn_error(r->err, r->errlen,
                      "%s: routing=\"file\" but no edge has a comment listing destination hosts (ORCS's routes); "
                      "choose routing=\"shortest\", \"up-down\" or \"ecmp\"",
                      r->path);
    if (rc == 0 && g->vcs_given && maxvc + 1 > g->nvc)
        rc = tn_error(r->err, r->errlen, "%s: vcs=%u but a route uses vc%u", r->path, g->nvc, maxvc);
    if (rc == 0) {
        if (!g->vcs_given)
            g->nvc = maxvc + 1;
        for (uint32_t v = 0; v < P; v++) {
            uint16_t *tab = g->nxt + v * cells;
            for (uint32_t s = 0; s < g->ns; s++)
                for (uint32_t d = 0; d < g->nh; d++) {
                    uint16_t *cell = &tab[(size_t)d * g->ns + s];
                    if (*cell == GR_NONE)
                        *cell = gen[(size_t)d * g->ns + s];
                    if (*cell == GR_NONE)
                        *cell = wild[s];
                }
            /* a switch delivers its own hosts */
            for (uint32_t d = 0; d < g->nh; d++)
                tab[(size_t)d * g->ns + g->hsw[d]] = (uint16_t)g->hport[d];
        }
    }
    if (gen != g->nxt)
        free(gen);
    free(wild);
    return rc;
}


/* ---- failed links (network.failed-links) ---- */

/* The index of the node called name[0..len): *host set; UINT32_MAX if none. */
static uint32_t find_node(const graph *g, const char *name, size_t len, int *host)
{
    for (uint32_t i = 0; i < g->ns; i++)
        if (strlen(g->sname[i]) == len && strncmp(g->sname[i], name, len) == 0) {
            *host = 0;
            return i;
        }
    for (uint32_t i = 0; i < g->nh; i++)
        if (strlen(g->hname[i]) == len && strncmp(g->hname[i], name, len) == 0) {
            *host = 1;
            return i;
        }
    return UINT32_MAX;
}

/* The reverse of switch port x (a switch peer): the peer's port back. */
static uint64_t rev_port(const graph *g, uint64_t x) { return g->base[g->pt[x].id] + g->pt[x].port; }

static void fail_port(graph *g, uint64_t x)
{
    g->pt[x].failed = 1;
    g->pt[rev_port(g, x)].failed = 1;
}

static void add_failed_name(graph *g, const char *a, const char *b)
{
    size_t old = g->failed ? strlen(g->failed) : 0;
    size_t n = old + strlen(a) + strlen(b) + 3;
    g->failed = tn_xrealloc(g->failed, n);
    snprintf(g->failed + old, n - old, "%s%s-%s", old ? " " : "", a, b);
    g->nfailed++;
}

int topo_graph_failed_count(const char *spec, uint32_t *count)
{
    const char *p = spec;
    while (tn_is_space(*p))
        p++;
    if (!*p)
        return 0;
    char *e;
    unsigned long k = strtoul(p, &e, 10);
    while (tn_is_space(*e))
        e++;
    if (e == p || *e || p[0] == '-' || p[0] == '+')
        return 0;
    *count = k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
    return 1;
}

/* spec: a count drawn (draw != 0) from seed among the links between
 * switches, or names "A-B" (every link between A and B, both directions). */
static int apply_failures(graph *g, const char *spec, int draw, uint64_t seed, char *err, size_t errlen)
{
    uint32_t k;
    if (!spec)
        return 0;
    if (topo_graph_failed_count(spec, &k)) {
        uint64_t P = g->base[g->ns];
        uint64_t *cand = tn_xmalloc((P + 1) * sizeof *cand);
        uint64_t L = 0;
        for (uint64_t x = 0; x < P; x++)
            if (g->pt[x].kind == TOPO_SWITCH && x < rev_port(g, x))
                cand[L++] = x;
        if (k > L) {
            free(cand);
            return tn_error(err, errlen,
                            "network.failed-links=%u: %s has only %llu links between switches", k, g->path,
                            (unsigned long long)L);
        }
        if (draw) {
            /* k distinct links, uniformly: a partial Fisher-Yates shuffle */
            for (uint32_t i = 0; i < k; i++) {
                uint64_t j = i + topo_pick(seed, i, (uint32_t)(L - i));
                uint64_t tmp = cand[i];
                cand[i] = cand[j];
                cand[j] = tmp;
            }
            /* named in link order */
            for (uint64_t x = 0, i = 0; x < P && i < k; x++) {
                int hit = 0;
                for (uint32_t m = 0; m < k; m++)
                    hit |= cand[m] == x;
                if (!hit)
                    continue;
                fail_port(g, x);
                uint32_t s = locate_sw(g, x);
                add_failed_name(g, g->sname[s], g->sname[g->pt[x].id]);
                i++;
            }
        }
        free(cand);
        return 0;
    }
    size_t len;
    for (const char *p = spec, *t; (t = tn_list_next(&p, &len));) {
        /* split at the '-' whose both sides name nodes */
        uint32_t a = UINT32_MAX, b = UINT32_MAX;
        int ha = 0, hb = 0;
        for (size_t i = 1; i + 1 < len && b == UINT32_MAX; i++) {
            if (t[i] != '-')
                continue;
            a = find_node(g, t, i, &ha);
            b = a == UINT32_MAX ? UINT32_MAX : find_node(g, t + i + 1, len - i - 1, &hb);
        }
        if (a == UINT32_MAX || b == UINT32_MAX)
            return tn_error(err, errlen,
                            "network.failed-links: \"%.*s\" is not A-B with A and B two nodes of %s (a link is named "
                            "by its ends' names joined by -, e.g. L1-S1)",
                            (int)len, t, g->path);
        if (ha || hb)
            return tn_error(err, errlen,
                            "network.failed-links: \"%.*s\" is a host's link (failing it cuts the host off): failed "
                            "links are between switches",
                            (int)len, t);
        int any = 0;
        for (uint64_t x = g->base[a]; x < g->base[a + 1]; x++)
            if (g->pt[x].kind == TOPO_SWITCH && g->pt[x].id == b) {
                if (!g->pt[x].failed)
                    any = 1;
                fail_port(g, x);
            }
        if (!any)
            return tn_error(err, errlen, "network.failed-links: \"%.*s\": %s and %s are not linked in %s%s", (int)len,
                            t, g->sname[a], g->sname[b], g->path, a == b ? "" : " (or the link is named twice)");
        add_failed_name(g, g->sname[a], g->sname[b]);
    }
    return 0;
}

/* routing="file" with failed links: a message takes its own path when
 * its route is intact, else another of the 2^lmc paths (path_around); the
 * pairs with no intact path are an error naming them (their number, and
 * the first few). */
static int file_routes_avoid_failed(const graph *g, char *err, size_t errlen)
{
    if (!g->nfailed)
        return 0;
    int used = 0;
    uint64_t cells = (uint64_t)g->ns * g->nh * g->npath;
    for (uint64_t i = 0; i < cells && !used; i++) {
        uint16_t e = g->nxt[i];
        uint32_t s = (uint32_t)(i % g->ns);
        used = e != GR_NONE && g->pt[g->base[s] + (e & GR_PORT_MASK)].failed;
    }
    if (!used)
        return 0;
    uint64_t pairs = 0;
    char ex[400] = "";
    size_t len = 0;
    for (uint32_t a = 0; a < g->nh; a++)
        for (uint32_t b = 0; b < g->nh; b++) {
            uint32_t s = g->hsw[a];
            if (s == g->hsw[b])
                continue;
            uint32_t v0 = g->hpath && g->hpath[a] != GR_NONE ? g->hpath[a] : 0;
            if (path_around(g, a, b, v0) != GR_NONE)
                continue;
            /* the first failed link of its own path (path 0 when drawn) */
            for (uint32_t h = 0; h <= g->ns; h++) {
                uint16_t e = fent(g, v0, s, b);
                if (e == GR_NONE)
                    break;
                const gport *q = &g->pt[g->base[s] + (e & GR_PORT_MASK)];
                if (q->failed) {
                    if (pairs < 3 && len < sizeof ex - 120)
                        len += (size_t)snprintf(ex + len, sizeof ex - len, "%s%s -> %s (over %s-%s)",
                                                pairs ? ", " : "", g->hname[a], g->hname[b], g->sname[s],
                                                g->sname[q->id]);
                    break;
                }
                if (q->kind != TOPO_SWITCH)
                    break;
                s = q->id;
            }
            pairs++;
        }
    if (!pairs)
        return 0;
    return tn_error(err, errlen,
                    "%s: routing=\"file\" routes %llu pair%s over the failed links (%s)%s: %s%s; routes from a file are "
                    "not recomputed (choose routing=\"shortest\", \"up-down\" or \"ecmp\", or edit the file's routes)",
                    g->path, (unsigned long long)pairs, pairs == 1 ? "" : "s", g->failed,
                    g->npath > 1 ? " on every one of their lmc paths" : "", ex, pairs > 3 ? ", ..." : "");
}

/* ---- computed routings: distances ---- */

static int compute_tables(graph *g, const char *root_name, char *err, size_t errlen)
{
    uint32_t ns = g->ns;
    g->dix = tn_xmalloc((size_t)ns * sizeof *g->dix);
    for (uint32_t s = 0; s < ns; s++)
        g->dix[s] = UINT32_MAX;
    g->ndst = 0;
    for (uint32_t h = 0; h < g->nh; h++)
        if (g->dix[g->hsw[h]] == UINT32_MAX)
            g->dix[g->hsw[h]] = g->ndst++;
    size_t cells = (size_t)ns * g->ndst;
    if ((uint64_t)ns * g->ndst > (UINT64_C(1) << 36))
        return tn_error(err, errlen, "%s: distance tables of %u x %u switches are too large", g->path, ns, g->ndst);
    g->dist = tn_xmalloc(cells * sizeof *g->dist + 2);
    uint32_t *queue = tn_xmalloc(((size_t)ns + 1) * sizeof *queue);
    uint32_t *lvl = NULL;
    int updown = g->routing == TOPO_GRAPH_UPDOWN;
    int rc = 0;
    if (updown) {
        /* the root, the BFS levels, the up bit of every switch link */
        g->root = 0;
        if (root_name) {
            g->root = UINT32_MAX;
            for (uint32_t s = 0; s < ns; s++)
                if (strcmp(g->sname[s], root_name) == 0)
                    g->root = s;
            if (g->root == UINT32_MAX) {
                free(queue);
                return tn_error(err, errlen, "%s: root=\"%s\" names no switch", g->path, root_name);
            }
        }
        lvl = tn_xmalloc((size_t)ns * sizeof *lvl);
        for (uint32_t s = 0; s < ns; s++)
            lvl[s] = UINT32_MAX;
        size_t qh = 0, qt = 0;
        lvl[g->root] = 0;
        queue[qt++] = g->root;
        while (qh < qt) {
            uint32_t s = queue[qh++];
            for (uint64_t x = g->base[s]; x < g->base[s + 1]; x++)
                if (g->pt[x].kind == TOPO_SWITCH && !g->pt[x].failed && lvl[g->pt[x].id] == UINT32_MAX) {
                    lvl[g->pt[x].id] = lvl[s] + 1;
                    queue[qt++] = g->pt[x].id;
                }
        }
        for (uint32_t s = 0; s < ns; s++)
            for (uint64_t x = g->base[s]; x < g->base[s + 1]; x++) {
                uint32_t u = g->pt[x].id;
                if (g->pt[x].kind == TOPO_SWITCH)
                    g->pt[x].up = (uint8_t)(lvl[u] < lvl[s] || (lvl[u] == lvl[s] && u < s));
            }
        g->ddown = tn_xmalloc(cells * sizeof *g->ddown + 2);
    }
    /* switches in up-down order (level, id): the root first */
    uint32_t *ord = NULL;
    if (updown) {
        ord = tn_xmalloc((size_t)ns * sizeof *ord);
        size_t k = 0;
        /* levels are a BFS order already: queue holds them by level, ids increasing within a level? not
         * necessarily; sort by (level, id) with counting by level */
        uint32_t maxl = 0;
        for (uint32_t s = 0; s < ns; s++)
            if (lvl[s] != UINT32_MAX && lvl[s] > maxl)
                maxl = lvl[s];
        for (uint32_t l = 0; l <= maxl; l++)
            for (uint32_t s = 0; s < ns; s++)
                if (lvl[s] == l)
                    ord[k++] = s;
        if (k != ns) {
            for (uint32_t s = 0; s < ns; s++)
                if (lvl[s] == UINT32_MAX) {
                    rc = dot_node_error(err, errlen, g->path, g->sname[s], "not connected to switch %s%s%s",
                                        g->sname[g->root], g->failed ? " once these links fail: " : "",
                                        g->failed ? g->failed : "");
                    break;
                }
        }
    }
    uint16_t *col = tn_xmalloc(((size_t)ns + 1) * sizeof *col);
    for (uint32_t t = 0; t < ns && rc == 0; t++) {
        uint32_t x = g->dix[t];
        if (x == UINT32_MAX)
            continue;
        /* breadth-first from t: all links (shortest, ecmp) or down links walked backward (up-down) */
        for (uint32_t s = 0; s < ns; s++)
            col[s] = GR_NONE;
        size_t qh = 0, qt = 0;
        col[t] = 0;
        queue[qt++] = t;
        while (qh < qt) {
            uint32_t u = queue[qh++];
            for (uint64_t y = g->base[u]; y < g->base[u + 1]; y++) {
                const gport *q = &g->pt[y];
                if (q->kind != TOPO_SWITCH || q->failed || col[q->id] != GR_NONE)
                    continue;
                /* the link q->id -> u goes down iff u -> q->id goes up */
                if (updown && !q->up)
                    continue;
                if (col[u] + 1 >= GR_NONE) {
                    rc = tn_error(err, errlen, "%s: a route longer than %u switches", g->path, GR_NONE - 1);
                    break;
                }
                col[q->id] = (uint16_t)(col[u] + 1);
                queue[qt++] = q->id;
            }
        }
        if (!updown) {
            for (uint32_t s = 0; s < ns && rc == 0; s++) {
                if (col[s] == GR_NONE)
                    rc = dot_node_error(err, errlen, g->path, g->sname[s], "no path to switch %s (not connected%s%s)",
                                        g->sname[t], g->failed ? " once these links fail: " : "",
                                        g->failed ? g->failed : "");
                g->dist[(size_t)s * g->ndst + x] = col[s];
            }
            continue;
        }
        for (uint32_t s = 0; s < ns; s++)
            g->ddown[(size_t)s * g->ndst + x] = col[s];
        for (uint32_t k = 0; k < ns; k++) {
            uint32_t s = ord[k];
            uint32_t best = col[s];
            for (uint64_t y = g->base[s]; y < g->base[s + 1]; y++) {
                const gport *q = &g->pt[y];
                if (q->kind == TOPO_SWITCH && q->up && !q->failed) {
                    uint32_t v = (uint32_t)g->dist[(size_t)q->id * g->ndst + x] + 1;
                    if (v < best)
                        best = v;
                }
            }
            if (best >= GR_NONE) {
                rc = tn_error(err, errlen, "%s: up-down: switch %s has no legal route to %s%s%s", g->path, g->sname[s],
                              g->sname[t], g->failed ? " once these links fail: " : "", g->failed ? g->failed : "");
                break;
            }
            g->dist[(size_t)s * g->ndst + x] = (uint16_t)best;
        }
    }
    free(col);
    free(ord);
    free(lvl);
    free(queue);
    return rc;
}

/* The port of every (phase, destination switch, switch) for the routings
 * with one candidate (shortest, up-down): the first of cands, so next reads
 * one cell instead of scanning the ports and their distances (the scan
 * took half of a 21,296-host tree's time per bruck mapping). */
static void route_tables(graph *g)
{
    for (uint32_t s = 0; s < g->ns; s++)
        if (g->base[s + 1] - g->base[s] > GR_PORT_MASK)
            return; /* ports beyond 12 bits: next scans (cands) */
    uint32_t phases = g->routing == TOPO_GRAPH_UPDOWN ? 2 : 1;
    uint64_t cells = (uint64_t)phases * g->ndst * g->ns;
    g->nport = table_alloc(cells * sizeof *g->nport + 2);
    uint32_t *rep = tn_xmalloc((size_t)g->ndst * sizeof *rep + 4);
    for (uint32_t h = 0; h < g->nh; h++)
        rep[g->dix[g->hsw[h]]] = h;
    uint32_t ports[64];
    uint8_t phs[64];
    for (uint32_t ph = 0; ph < phases; ph++)
        for (uint32_t x = 0; x < g->ndst; x++) {
            uint32_t d = rep[x];
            uint16_t *col = g->nport + ((uint64_t)ph * g->ndst + x) * g->ns;
            for (uint32_t s = 0; s < g->ns; s++) {
                unsigned n = s == g->hsw[d] ? 0 : cands(g, s, d, x, (int)ph, 0, ports, phs, 64);
                uint32_t left = n ? hops_from(g, s, d, (int)ph, 0) : 0;
                col[s] = n ? (uint16_t)(ports[0] | (left < 15 ? left : 15) << GR_VC_SHIFT) : GR_NONE;
            }
        }
    free(rep);
}

/* ---- the walk: unreachable pairs, loops, longest route, bound, channel dependencies ---- */

typedef struct walker {
    graph *g;
    uint32_t K;       /* states per switch: up-down's phase (2), routing=file's class rise so far (vcstep: 8), else 1 */
    uint32_t v;       /* routing=file: the path walked */
    unsigned V;       /* classes of the channel dependency graph */
    unsigned maxvc;   /* the largest class a hop uses */
    uint32_t *mark;   /* [K ns] epoch * 2 + done */
    uint16_t *depth;  /* [K ns] switches from the state to the destination, inclusive */
    double *cnt;      /* [K ns] pairs reaching the state */
    uint32_t *post;   /* [K ns] post-order */
    uint32_t *stk;    /* [K ns] DFS stack of states */
    uint32_t *stki;   /* [K ns] next candidate index of each stacked state */
    double *load;     /* [P] pairs over each switch port's link */
    uint64_t *boff;   /* [P + 1] bit offsets of each switch link's dependencies (over its peer's ports) */
    uint64_t *bits;   /* dependency bit sets */
    uint32_t *cp;     /* candidate buffer */
    uint8_t *cph;
    uint32_t maxr;
} walker;

static unsigned wcands(const walker *w, uint32_t st, uint32_t d, uint32_t x, uint32_t *ports, uint8_t *phs)
{
    const graph *g = w->g;
    uint32_t s = st / w->K;
    if (s == g->hsw[d])
        return 0;
    return cands(g, s, d, x, g->routing == TOPO_GRAPH_UPDOWN ? (int)(st % w->K) : 0, w->v, ports, phs, w->maxr);
}

/* The state a packet in state st reaches over switch port lx with phase ph. */
static uint32_t wnext(const walker *w, uint32_t st, uint64_t lx, uint8_t ph)
{
    const gport *q = &w->g->pt[lx];
    if (w->g->routing == TOPO_GRAPH_UPDOWN)
        return q->id * w->K + ph;
    return q->id * w->K + (st % w->K) + q->step;
}

static const char *hname_of(const graph *g, uint32_t d) { return g->hname[d]; }

/* The class of the hop leaving state st toward host d. */
static unsigned hop_vc(const walker *w, uint32_t st, uint32_t d)
{
    const graph *g = w->g;
    uint32_t s = st / w->K;
    if (g->routing != TOPO_GRAPH_FILE || s == g->hsw[d])
        return 0;
    return (unsigned)(fent(g, w->v, s, d) >> GR_VC_SHIFT) + st % w->K;
}

/* One destination: host d (file) or every host of switch t, standing for d. */
static int walk_dest(walker *w, uint32_t d, uint32_t epoch, double srcw_dst, char *err, size_t errlen)
{
    const uint16_t *hp = w->g->routing == TOPO_GRAPH_FILE ? w->g->hpath : NULL;
    graph *g = w->g;
    uint32_t t = g->hsw[d];
    uint32_t x = g->routing == TOPO_GRAPH_FILE ? 0 : g->dix[t];
    uint32_t K = w->K;
    size_t np = 0;
    uint32_t E = epoch * 2;
    char pathn[40] = "";
    if (g->npath > 1)
        snprintf(pathn, sizeof pathn, " on path %u", w->v);
    /* sources: each host's switch in phase 0 */
    for (uint32_t a = 0; a < g->nh; a++) {
        uint32_t st0 = g->hsw[a] * K;
        if (g->hsw[a] == t)
            continue;
        /* a host with a path of its own: on that path only, with its whole weight */
        double wa = srcw_dst;
        if (hp && hp[a] != GR_NONE) {
            if (hp[a] != w->v)
                continue;
            wa = srcw_dst * g->npath;
        }
        if (w->mark[st0] != E + 1 && w->mark[st0] != E) {
            w->cnt[st0] = 0;
            /* DFS from st0 */
            size_t sp = 0;
            w->stk[sp] = st0;
            w->stki[sp++] = 0;
            w->mark[st0] = E;
            while (sp) {
                uint32_t st = w->stk[sp - 1];
                unsigned nc = wcands(w, st, d, x, w->cp, w->cph);
                if ((st / K) != t && nc == 0) {
                    return dot_node_error(err, errlen, g->path, g->sname[st / K],
                                          "no route to host %s%s (a route from host %s reaches this switch)",
                                          hname_of(g, d), pathn, g->hname[a]);
                }
                if ((st / K) != t) {
                    unsigned vc = hop_vc(w, st, d);
                    if (vc >= w->V)
                        return dot_node_error(err, errlen, g->path, g->sname[st / K],
                                              "the hop toward host %s%s uses class %u, beyond the %u classes of the "
                                              "graph (vcs, vcN lists and vcstep links crossed)",
                                              hname_of(g, d), pathn, vc, w->V);
                    if (vc > w->maxvc)
                        w->maxvc = vc;
                }
                uint32_t i = w->stki[sp - 1];
                if (i < nc) {
                    w->stki[sp - 1] = i + 1;
                    uint64_t lx = g->base[st / K] + w->cp[i];
                    const gport *q = &g->pt[lx];
                    if (q->kind == TOPO_HOST)
                        return dot_node_error(err, errlen, g->path, g->sname[st / K],
                                              "routes host %s%s to host %s", hname_of(g, d), pathn, g->hname[q->id]);
                    if (g->routing == TOPO_GRAPH_FILE && (st % K) + q->step >= K)
                        return dot_node_error(err, errlen, g->path, g->sname[st / K],
                                              "the vcstep links toward host %s%s raise the class above %d",
                                              hname_of(g, d), pathn, GR_MAX_VC);
                    uint32_t nx = wnext(w, st, lx, w->cph[i]);
                    if (w->mark[nx] == E)
                        return dot_node_error(err, errlen, g->path, g->sname[st / K],
                                              "routing loop toward host %s%s (back to switch %s)", hname_of(g, d),
                                              pathn, g->sname[q->id]);
                    if (w->mark[nx] != E + 1) {
                        w->mark[nx] = E;
                        w->cnt[nx] = 0;
                        w->stk[sp] = nx;
                        w->stki[sp++] = 0;
                    }
                    continue;
                }
                /* done: depth */
                uint32_t dep = 1;
                for (unsigned k = 0; k < nc; k++) {
                    uint32_t v = 1u + w->depth[wnext(w, st, g->base[st / K] + w->cp[k], w->cph[k])];
                    if (v > dep)
                        dep = v;
                }
                w->depth[st] = (uint16_t)(dep < GR_NONE ? dep : GR_NONE - 1);
                if (dep > g->maxsw)
                    g->maxsw = dep;
                w->mark[st] = E + 1;
                w->post[np++] = st;
                sp--;
            }
        }
        w->cnt[st0] += wa;
    }
    /* reverse post-order is a topological order: push the pairs along, and record dependencies */
    for (size_t k = np; k-- > 0;) {
        uint32_t st = w->post[k];
        uint32_t s = st / K;
        unsigned nc = wcands(w, st, d, x, w->cp, w->cph);
        if (nc == 0)
            continue;
        uint32_t cp[64];
        uint8_t cph[64];
        unsigned n1 = nc < 64 ? nc : 64;
        memcpy(cp, w->cp, n1 * sizeof *cp);
        memcpy(cph, w->cph, n1);
        double share = w->cnt[st] / nc;
        unsigned V = w->V;
        for (unsigned i = 0; i < n1; i++) {
            uint64_t lx = g->base[s] + cp[i];
            const gport *q = &g->pt[lx];
            uint32_t nx = wnext(w, st, lx, cph[i]);
            w->load[lx] += share;
            w->cnt[nx] += share;
            /* dependencies of channel (lx, its class): the candidates of the next state */
            uint64_t c1 = lx * V + hop_vc(w, st, d);
            unsigned n2 = wcands(w, nx, d, x, w->cp, w->cph);
            unsigned v2 = hop_vc(w, nx, d);
            (void)q;
            for (unsigned j = 0; j < n2; j++) {
                uint64_t b = w->boff[c1] + (uint64_t)w->cp[j] * V + v2;
                w->bits[b >> 6] |= UINT64_C(1) << (b & 63);
            }
        }
    }
    return 0;
}

/* A cycle of the channel dependency graph (nodes: the switch ports whose
 * link enters a switch, times the classes), or 0. */
static int find_cycle(graph *g, walker *w)
{
    uint64_t P = g->base[g->ns];
    unsigned V = w->V;
    uint64_t C = P * V;
    uint8_t *color = tn_xcalloc(C + 1, 1);
    uint64_t *stk = tn_xmalloc((C + 1) * sizeof *stk);
    uint64_t *it = tn_xmalloc((C + 1) * sizeof *it);
    uint32_t *sw_of = tn_xmalloc((P + 1) * sizeof *sw_of);
    for (uint32_t s = 0; s < g->ns; s++)
        for (uint64_t x = g->base[s]; x < g->base[s + 1]; x++)
            sw_of[x] = s;
    int found = 0;
    for (uint64_t r0 = 0; r0 < C && !found; r0++) {
        if (color[r0] || g->pt[r0 / V].kind != TOPO_SWITCH)
            continue;
        size_t sp = 0;
        stk[sp] = r0;
        it[sp++] = 0;
        color[r0] = 1;
        while (sp && !found) {
            uint64_t ch = stk[sp - 1];
            uint32_t u = g->pt[ch / V].id;
            uint64_t ru = (g->base[u + 1] - g->base[u]) * V;
            uint64_t j = it[sp - 1];
            while (j < ru) {
                uint64_t b = w->boff[ch] + j;
                if (w->bits[b >> 6] >> (b & 63) & 1)
                    break;
                j++;
            }
            if (j >= ru) {
                color[ch] = 2;
                sp--;
                continue;
            }
            it[sp - 1] = j + 1;
            uint64_t nx = (g->base[u] + j / V) * V + j % V;
            if (color[nx] == 1) {
                /* the cycle: from nx's place on the stack to the top */
                size_t from = 0;
                while (stk[from] != nx)
                    from++;
                char buf[1024];
                size_t len = 0;
                for (size_t k = from; k < sp && len < sizeof buf - 80; k++) {
                    uint64_t y = stk[k] / V;
                    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s -> %s", k > from ? ", " : "",
                                            g->sname[sw_of[y]], g->sname[g->pt[y].id]);
                    if (V > 1)
                        len += (size_t)snprintf(buf + len, sizeof buf - len, " (class %u)", (unsigned)(stk[k] % V));
                }
                if (len >= sizeof buf - 80)
                    snprintf(buf + len, sizeof buf - len, ", ...");
                g->cycle = tn_xstrdup(buf);
                found = 1;
                break;
            }
            if (color[nx] == 0) {
                color[nx] = 1;
                stk[sp] = nx;
                it[sp++] = 0;
            }
        }
    }
    free(color);
    free(stk);
    free(it);
    free(sw_of);
    return found;
}

static int walk_all(graph *g, char *err, size_t errlen)
{
    walker w = {.g = g};
    if (g->nvc < 1)
        g->nvc = 1;
    w.K = g->routing == TOPO_GRAPH_UPDOWN ? 2 : g->steps ? GR_MAX_VC + 1 : 1;
    /* classes: the file's (vcs, or 1 + the largest vcN); with vcstep links
     * and no vcs, as many as the format has, then the ones used */
    w.V = g->steps && !g->vcs_given ? GR_MAX_VC + 1 : g->nvc;
    size_t nst = (size_t)g->ns * w.K;
    uint64_t P = g->base[g->ns];
    w.mark = tn_xcalloc(nst, sizeof *w.mark);
    w.depth = tn_xcalloc(nst, sizeof *w.depth);
    w.cnt = tn_xcalloc(nst, sizeof *w.cnt);
    w.post = tn_xcalloc(nst, sizeof *w.post);
    w.stk = tn_xcalloc(nst + 1, sizeof *w.stk);
    w.stki = tn_xcalloc(nst + 1, sizeof *w.stki);
    w.load = tn_xcalloc(P + 1, sizeof *w.load);
    unsigned V = w.V;
    w.boff = tn_xcalloc(P * V + 1, sizeof *w.boff);
    uint32_t maxr = 1;
    for (uint32_t s = 0; s < g->ns; s++) {
        uint32_t r = (uint32_t)(g->base[s + 1] - g->base[s]);
        if (r > maxr)
            maxr = r;
    }
    w.maxr = maxr < 64 ? maxr : 64;
    w.cp = tn_xcalloc(maxr + 1, sizeof *w.cp);
    w.cph = tn_xcalloc(maxr + 1, 1);
    uint64_t nb = 0;
    for (uint64_t c = 0; c < P * V; c++) {
        w.boff[c] = nb;
        uint64_t x = c / V;
        if (g->pt[x].kind == TOPO_SWITCH)
            nb += (g->base[g->pt[x].id + 1] - g->base[g->pt[x].id]) * V;
    }
    w.bits = tn_xcalloc(nb / 64 + 1, sizeof *w.bits);
    int rc = 0;
    uint32_t epoch = 1;
    g->maxsw = 1;
    if (g->routing == TOPO_GRAPH_FILE) {
        /* every path carries 1/npath of each pair (a message's path is uniform) */
        for (uint32_t v = 0; v < g->npath && rc == 0; v++) {
            w.v = v;
            for (uint32_t d = 0; d < g->nh && rc == 0; d++)
                rc = walk_dest(&w, d, epoch++, 1.0 / g->npath, err, errlen);
        }
    } else {
        /* one walk per destination switch, its hosts' pairs weighing m each source */
        uint32_t *m = tn_xcalloc(g->ns, sizeof *m);
        uint32_t *rep = tn_xmalloc((size_t)g->ns * sizeof *rep);
        for (uint32_t h = 0; h < g->nh; h++) {
            if (m[g->hsw[h]]++ == 0)
                rep[g->hsw[h]] = h;
        }
        for (uint32_t t = 0; t < g->ns && rc == 0; t++)
            if (m[t])
                rc = walk_dest(&w, rep[t], epoch++, (double)m[t], err, errlen);
        free(m);
        free(rep);
    }
    if (rc == 0) {
        double mx = 0;
        for (uint64_t x = 0; x < P; x++)
            if (g->pt[x].kind == TOPO_SWITCH && w.load[x] > mx)
                mx = w.load[x];
        /* each source sends 1/(N-1) of its rate to each other host */
        double b = mx > 0 ? (double)(g->nh - 1) / mx : 1.0;
        g->bound = b < 1 ? b : 1;
        find_cycle(g, &w);
        if (g->steps && !g->vcs_given && w.maxvc + 1 > g->nvc)
            g->nvc = w.maxvc + 1;
    }
    free(w.mark);
    free(w.depth);
    free(w.cnt);
    free(w.post);
    free(w.stk);
    free(w.stki);
    free(w.load);
    free(w.boff);
    free(w.bits);
    free(w.cp);
    free(w.cph);
    return rc;
}

/* ---- init ---- */

/* The last two graphs built, kept for the next builds of the same file
 * with the same parameters (a sweep builds a fabric for its checks, its
 * estimates and every run, and network.fail-at two in every run: before
 * its failures and after; at 20,000 hosts a build walks every
 * destination): keyed by the path, the file's size and modification time,
 * the routing, the fabric's link rate and latency, the failed links, and a
 * digest of its bytes (a file rewritten within the clock's granularity
 * keeps its size and time). The digest is taken again only while the
 * file's time is within GR_MTIME_SLACK_S of the moment the last digest of
 * it began: a file rewritten after that moment gets a later time, so a
 * time older than the slack that has not changed means bytes that have
 * not either (at 20,000 hosts a digest of the DOT file every run was 5 %
 * of a run). A new build first drops the least recently used entry, so at
 * most one kept graph and the one being built are alive beside those the
 * fabrics hold. One process, one thread (tasknet's sweeps fork). */
#define GR_MTIME_SLACK_S 2 /* the coarsest file time granularity in use (FAT: 2 s) */
#define GR_CACHED 2
typedef struct gr_cached {
    char *path;
    uint64_t digest;          /* FNV-1a 64 of the file's bytes */
    struct timespec digested; /* when the digest began (CLOCK_REALTIME) */
    struct stat st;
    topo_graph_routing routing;
    double bw;
    int64_t lps;
    char *failed;   /* network.failed-links as given ("" none) */
    int fail_draw;
    uint64_t fail_seed;
    graph *g;       /* NULL: empty */
    uint64_t used;  /* last use (gcache_clock) */
} gr_cached;
static gr_cached gcache[GR_CACHED];
static uint64_t gcache_clock;

static int same_file(const gr_cached *c, const char *path, const struct stat *st)
{
    return c->g && strcmp(c->path, path) == 0 && c->st.st_size == st->st_size &&
           c->st.st_mtim.tv_sec == st->st_mtim.tv_sec && c->st.st_mtim.tv_nsec == st->st_mtim.tv_nsec &&
           c->st.st_ino == st->st_ino && c->st.st_dev == st->st_dev;
}

static int same_params(const gr_cached *c, const topo_graph_params *p)
{
    return c->routing == p->routing && c->bw == p->bandwidth_bps && c->lps == p->link_ps &&
           strcmp(c->failed, p->failed_links ? p->failed_links : "") == 0 && c->fail_draw == p->fail_draw &&
           c->fail_seed == p->fail_seed;
}

static void cache_drop(gr_cached *c)
{
    if (c->g && --c->g->refs <= 0)
        graph_free(c->g);
    free(c->path);
    free(c->failed);
    memset(c, 0, sizeof *c);
}

static uint64_t file_digest(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint64_t h = UINT64_C(1469598103934665603);
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * UINT64_C(1099511628211);
    fclose(f);
    return h;
}

static void fill_topo(topo *t, graph *g, const topo_graph_params *p)
{
    t->ops = &graph_ops;
    t->priv = g;
    t->hosts = g->nh;
    t->switches = g->ns;
    uint32_t mr = 0;
    for (uint32_t s = 0; s < g->ns; s++)
        if (g->base[s + 1] - g->base[s] > mr)
            mr = (uint32_t)(g->base[s + 1] - g->base[s]);
    t->max_radix = mr;
    t->links = (uint32_t)(g->nh + g->base[g->ns]);
    t->max_route_links = g->maxsw + 1;
    t->vcs = (uint8_t)g->nvc;
    t->routing = (uint8_t)p->routing;
}

int topo_graph_init(topo *t, const topo_graph_params *p, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if ((unsigned)p->routing > TOPO_GRAPH_ECMP)
        return tn_error(err, errlen, "graph: unknown routing %d", (int)p->routing);
    struct stat st;
    int have_st = stat(p->path, &st) == 0;
    uint64_t digest = 0;
    struct timespec now = {0, 0};
    if (have_st) {
        const gr_cached *known = NULL; /* the latest digest of these bytes */
        for (int i = 0; i < GR_CACHED; i++)
            if (same_file(&gcache[i], p->path, &st) && (!known || gcache[i].digested.tv_sec > known->digested.tv_sec))
                known = &gcache[i];
        if (known && st.st_mtim.tv_sec + GR_MTIME_SLACK_S < known->digested.tv_sec) {
            digest = known->digest; /* unchanged since long before the last digest (above) */
            now = known->digested;
        } else {
            clock_gettime(CLOCK_REALTIME, &now);
            digest = file_digest(p->path);
        }
        for (int i = 0; i < GR_CACHED; i++) {
            gr_cached *c = &gcache[i];
            if (same_file(c, p->path, &st) && c->digest == digest && same_params(c, p)) {
                c->g->refs++;
                c->digested = now; /* the bytes were these then */
                c->used = ++gcache_clock;
                fill_topo(t, c->g, p);
                return 0;
            }
        }
        int lru = gcache[0].used <= gcache[1].used ? 0 : 1;
        cache_drop(&gcache[lru]); /* before the build: see above */
    }
    Agraph_t *ag = dot_open(p->path, err, errlen);
    if (!ag)
        return -1;
    graph *g = tn_xcalloc(1, sizeof *g);
    g->path = tn_xstrdup(p->path);
    g->routing = p->routing;
    g->npath = 1;
    reader r = {.path = p->path, .g = g, .ag = ag, .err = err, .errlen = errlen};
    int rc = read_nodes(&r);
    if (rc == 0)
        rc = read_links(&r, p);
    if (rc == 0)
        rc = apply_failures(g, p->failed_links, p->fail_draw, p->fail_seed, err, errlen);
    if (rc == 0 && p->routing == TOPO_GRAPH_FILE)
        rc = read_routes(&r);
    if (rc == 0 && p->routing == TOPO_GRAPH_FILE)
        rc = file_routes_avoid_failed(g, err, errlen);
    const char *root = rc == 0 ? dot_attr(ag, "root") : NULL;
    char *root_copy = root ? tn_xstrdup(root) : NULL;
    free(r.node);
    free(r.is_host);
    free(r.id);
    free(r.of_seq);
    free(r.hv);
    agclose(ag);
    if (rc == 0 && p->routing != TOPO_GRAPH_FILE)
        rc = compute_tables(g, root_copy, err, errlen);
    if (rc == 0 && (p->routing == TOPO_GRAPH_SHORTEST || p->routing == TOPO_GRAPH_UPDOWN))
        route_tables(g);
    free(root_copy);
    if (rc == 0)
        rc = walk_all(g, err, errlen);
    if (rc == 0)
        cache_plan(g);
    if (rc != 0) {
        graph_free(g);
        return -1;
    }
    g->refs = 1;
    if (have_st) {
        gr_cached *c = !gcache[0].g ? &gcache[0] : !gcache[1].g ? &gcache[1]
                                                   : &gcache[gcache[0].used <= gcache[1].used ? 0 : 1];
        cache_drop(c);
        c->path = tn_xstrdup(p->path);
        c->st = st;
        c->digest = digest;
        c->digested = now;
        c->routing = p->routing;
        c->bw = p->bandwidth_bps;
        c->lps = p->link_ps;
        c->failed = tn_xstrdup(p->failed_links ? p->failed_links : "");
        c->fail_draw = p->fail_draw;
        c->fail_seed = p->fail_seed;
        c->g = g;
        c->used = ++gcache_clock;
        g->refs++;
    }
    fill_topo(t, g, p);
    return 0;
}

/* t's graph, directly or under a partly populated wrapper (host: t's id
 * turned into the graph's); NULL when t is no graph. */
static const graph *find_graph(const topo *t, uint32_t *host)
{
    if (t->ops == &graph_ops)
        return t->priv;
    if (topo_fail_before(t)) /* network.fail-at: the fabric before its failures (same ids and names) */
        return find_graph(topo_fail_before(t), host);
    const topo *b = topo_sub_base(t, host);
    return b && b->ops == &graph_ops ? b->priv : NULL;
}

const char *topo_graph_cycle(const topo *t)
{
    const graph *g = find_graph(t, NULL);
    return g ? g->cycle : NULL;
}

int topo_is_graph(const topo *t) { return find_graph(t, NULL) != NULL; }

const char *topo_graph_failed(const topo *t)
{
    const graph *g = find_graph(t, NULL);
    return g ? g->failed : NULL;
}

const char *topo_graph_host_name(const topo *t, uint32_t h)
{
    const graph *g = find_graph(t, &h);
    TN_ASSERT(g && h < g->nh, "topo_graph_host_name: not a graph's host");
    return g->hname[h];
}

const char *topo_graph_switch_name(const topo *t, uint32_t s)
{
    const graph *g = find_graph(t, NULL);
    TN_ASSERT(g && s < g->ns, "topo_graph_switch_name: not a graph's switch");
    return g->sname[s];
}

double topo_graph_mem_bytes(const topo *t)
{
    const graph *g = find_graph(t, NULL);
    if (!g)
        return 0;
    double b = (double)g->base[g->ns] * sizeof(gport) + ((double)g->ns + 1) * 8 + (double)g->nh * 8;
    for (uint32_t i = 0; i < g->nh; i++)
        b += (double)strlen(g->hname[i]) + 1 + sizeof(char *);
    for (uint32_t i = 0; i < g->ns; i++)
        b += (double)strlen(g->sname[i]) + 1 + sizeof(char *);
    if (g->nxt)
        b += (double)g->ns * g->nh * g->npath * sizeof *g->nxt;
    if (g->hpath)
        b += (double)g->nh * sizeof *g->hpath;
    if (g->dist)
        b += (double)g->ns * g->ndst * sizeof *g->dist + (double)g->ns * 4;
    if (g->ddown)
        b += (double)g->ns * g->ndst * sizeof *g->ddown;
    if (g->lbw)
        b += ((double)g->nh + (double)g->base[g->ns]) * (sizeof *g->lbw + sizeof *g->llat);
    if (g->nport)
        b += (double)g->ns * g->ndst * (g->routing == TOPO_GRAPH_UPDOWN ? 2 : 1) * sizeof *g->nport;
    return b + cache_bytes(g);
}

double topo_graph_route_cache_bytes(const topo *t)
{
    const graph *g = find_graph(t, NULL);
    return g ? cache_bytes(g) : 0;
}

int topo_graph_link_failed(const topo *t, uint64_t link)
{
    const graph *g = find_graph(t, NULL);
    return g && link >= g->nh && g->pt[link - g->nh].failed;
}

/* network.fail-at: the dependencies while the packets routed before the
 * failure drain. A packet in the fabric at the failure has crossed links of
 * before's routes; from its switch on, every hop is after's (the core
 * routes each hop afresh). So per destination switch: the states (switch,
 * up-down phase) before's routes reach from the sources, their hops and
 * the dependencies between them (before's own), then from each of those
 * states and from the sources after's routes, whose first hop depends on
 * the link the packet came by under either routing. A dependency into a
 * failed link is left out: after the failure no packet waits for one (the
 * packets queued for it are lost). Computed routings use one class; with
 * routing="file" the routes are the file's before and after, a message's
 * path fixed at its source: after adds no dependency (NULL). */
typedef struct tstate {
    const graph *g[2]; /* before, after */
    uint32_t K;
    uint64_t *boff, *bits;
    uint32_t *mark[2]; /* [K ns] epoch of the state's visit under each routing */
    uint32_t *stk;
} tstate;

static void tdep(tstate *ts, const graph *a, uint64_t lx, uint32_t u, const uint32_t *cp, unsigned n)
{
    for (unsigned j = 0; j < n; j++) {
        if (a->pt[a->base[u] + cp[j]].failed)
            continue;
        uint64_t b = ts->boff[lx] + cp[j];
        ts->bits[b >> 6] |= UINT64_C(1) << (b & 63);
    }
}

/* DFS under routing r from state st0 (epoch E): every hop's dependencies on
 * the candidates of the state it reaches under after's routing (and, for
 * before's, before's own). */
static void twalk(tstate *ts, int r, uint32_t st0, uint32_t d, uint32_t x, uint32_t E)
{
    const graph *g = ts->g[r], *a = ts->g[1];
    uint32_t K = ts->K;
    if (ts->mark[r][st0] == E)
        return;
    size_t sp = 0;
    ts->stk[sp++] = st0;
    ts->mark[r][st0] = E;
    uint32_t cp[64], cp2[64];
    uint8_t ph[64], ph2[64];
    while (sp) {
        uint32_t st = ts->stk[--sp];
        uint32_t s = st / K;
        if (s == g->hsw[d])
            continue;
        unsigned n = cands(g, s, d, x, (int)(st % K), 0, cp, ph, 64);
        for (unsigned i = 0; i < n; i++) {
            uint64_t lx = g->base[s] + cp[i];
            const gport *q = &g->pt[lx];
            if (q->kind != TOPO_SWITCH)
                continue;
            uint32_t u = q->id, nx = u * K + (K > 1 ? ph[i] : 0);
            if (u != g->hsw[d]) {
                for (int k = r; k < 2; k++) { /* before: its own next hop and after's; after: its own */
                    unsigned n2 = cands(ts->g[k], u, d, x, (int)(nx % K), 0, cp2, ph2, 64);
                    tdep(ts, a, lx, u, cp2, n2);
                }
            }
            if (ts->mark[r][nx] != E) {
                ts->mark[r][nx] = E;
                ts->stk[sp++] = nx;
            }
        }
    }
}

char *topo_graph_transition_cycle(const topo *tb, const topo *ta)
{
    const graph *b = find_graph(tb, NULL), *a = find_graph(ta, NULL);
    if (!b || !a || b->routing == TOPO_GRAPH_FILE)
        return NULL;
    TN_ASSERT(a->ns == b->ns && a->nh == b->nh && a->routing == b->routing && a->ndst == b->ndst,
              "graph: the fabric before and after its failures differ");
    tstate ts = {.g = {b, a}, .K = b->routing == TOPO_GRAPH_UPDOWN ? 2 : 1};
    uint32_t K = ts.K, ns = b->ns;
    uint64_t P = b->base[ns];
    ts.boff = tn_xcalloc(P + 1, sizeof *ts.boff);
    uint64_t nb = 0;
    for (uint64_t x = 0; x < P; x++) {
        ts.boff[x] = nb;
        if (b->pt[x].kind == TOPO_SWITCH)
            nb += b->base[b->pt[x].id + 1] - b->base[b->pt[x].id];
    }
    ts.bits = tn_xcalloc(nb / 64 + 1, sizeof *ts.bits);
    ts.mark[0] = tn_xcalloc((size_t)ns * K, sizeof *ts.mark[0]);
    ts.mark[1] = tn_xcalloc((size_t)ns * K, sizeof *ts.mark[1]);
    ts.stk = tn_xmalloc(((size_t)ns * K + 1) * sizeof *ts.stk); /* a state is pushed once per walk */
    uint32_t *rep = tn_xmalloc((size_t)b->ndst * sizeof *rep + 4);
    for (uint32_t h = 0; h < b->nh; h++)
        rep[b->dix[b->hsw[h]]] = h;
    uint8_t *src = tn_xcalloc(ns, 1);
    for (uint32_t h = 0; h < b->nh; h++)
        src[b->hsw[h]] = 1;
    for (uint32_t x = 0; x < b->ndst; x++) {
        uint32_t d = rep[x], E = x + 1;
        for (uint32_t s = 0; s < ns; s++)
            if (src[s])
                twalk(&ts, 0, s * K, d, x, E);
        for (uint32_t st = 0; st < ns * K; st++)
            if (ts.mark[0][st] == E)
                twalk(&ts, 1, st, d, x, E);
    }
    /* the cycle, found and named as the build's (find_cycle writes it into its graph: lent, then restored) */
    graph *ga = (graph *)a;
    char *kept = ga->cycle;
    ga->cycle = NULL;
    walker w = {.g = ga, .V = 1, .boff = ts.boff, .bits = ts.bits};
    find_cycle(ga, &w);
    char *cyc = ga->cycle;
    ga->cycle = kept;
    free(ts.boff);
    free(ts.bits);
    free(ts.mark[0]);
    free(ts.mark[1]);
    free(ts.stk);
    free(rep);
    free(src);
    return cyc;
}
