/* Topologies of multi-switch fabrics: graphs and routing as pure functions.
 *
 * A topology connects N hosts (0..N-1) through switches (0..S-1). Every link
 * is full duplex and is counted as two directed links, each with an id:
 *   [0, N)                       the uplink of host h (host -> its switch): id h
 *   [N, links)                   the output of port p of switch s:
 *                                N + port_base(s) + p (dense: the ports of
 *                                switches 0..s-1 come first)
 * A switch port connects either a host (the port's output is that host's
 * downlink) or a port of another switch (the link enters the peer switch on
 * the port whose own output comes back: full duplex pairs). Everything is
 * computed arithmetically from the parameters: no per-pair table, memory
 * O(1) per topology beyond its parameters.
 *
 * Routing works on a per-packet header (topo_hdr, the routing record a real
 * router carries, as INSEE's routing_r): hdr_init sets it at the source from
 * (src, dst, salt); at each switch `next` lists the candidate output ports,
 * each with the virtual channel class it must use (the deadlock-avoidance
 * scheme of the topology); the caller picks one and calls `take` before
 * sending the packet on. `salt` is a per-message value the caller draws from
 * its own stream (or derives from the message): every random choice of a
 * routing (ties between equal minimal paths, ECMP, random up-ports, Valiant's
 * intermediate) is a function of it, so the same salt gives the same route.
 * The candidates are listed in the order a message takes at zero load (the
 * first one), so the static route (topo_route) is "always the first".
 *
 * Deadlock freedom (each file's head proves its scheme and check_topo builds
 * the channel dependency graph of small instances and checks it is acyclic):
 *   torus       dateline VCs per ring, DOR (2 classes); minimal adaptive adds
 *               an adaptive class 2 over a DOR escape (Duato), 3 classes;
 *               valiant and romm: two DOR phases, dateline + 2 x phase
 *               (4 classes)
 *   fat tree,   up*-then-down* routes: the channel dependency graph is
 *   leaf-spine  acyclic with one class (anca: either of its up ports)
 *   dragonfly   class = global links crossed so far (minimal 2, Valiant and
 *               UGAL 3)
 *
 * A packet engine uses it so (one hop = one link):
 *   at the source host: hdr_init(src, dst, salt); the first link is
 *     topo_link_up(src), entering switch attach(src);
 *   at switch sw: n = next(sw, &hdr, cand); with n > 1 the topology's
 *     choose(sw, &hdr, cand, n, &probe) picks one over the engine's probe of
 *     the outputs (minimal adaptive: the adaptive candidate with room, else
 *     the escape; UGAL: topo_ugal_minimal; anca: the least occupied; each
 *     the first at zero load); take(sw, &c, &hdr); the packet leaves on link
 *     topo_link_out(sw, c.port) in class c.vc and enters peer(sw, c.port):
 *     a switch (on its input port .port) or the destination host.
 *
 * Contract: the routing functions never allocate, never print, never exit
 * (uniform_bound may allocate scratch memory and frees it); arguments
 * outside their domain (host >= N, port >= radix, a header from another
 * topology) are caller bugs and abort through TN_ASSERT. */
#ifndef TASKNET_TOPO_H
#define TASKNET_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TOPO_MAX_DIMS 16 /* torus dimensions (2^16 hosts as a 2-ary 16-cube) */
#define TOPO_MAX_CAND (TOPO_MAX_DIMS + 2) /* candidates one switch can offer */
#define TOPO_MAX_HOSTS (UINT32_C(1) << 26) /* 67,108,864: link ids stay in 32 bits */

typedef struct topo topo;

/* What the output link of a port (or of a host) enters. */
enum topo_end_kind { TOPO_HOST = 0, TOPO_SWITCH = 1 };
typedef struct topo_end {
    uint8_t kind; /* enum topo_end_kind */
    uint32_t id;  /* host or switch id */
    uint32_t port; /* TOPO_SWITCH: the input port the link enters; TOPO_HOST: 0 */
} topo_end;

/* One candidate next hop offered by a switch. */
enum topo_hop_kind {
    TOPO_HOP_ONLY = 0,     /* the one hop of an oblivious routing (or the ejection) */
    TOPO_HOP_ADAPTIVE = 1, /* torus minimal adaptive: a productive port on the adaptive class */
    TOPO_HOP_ESCAPE = 2,   /* torus minimal adaptive: the DOR escape, always offered */
    TOPO_HOP_MINIMAL = 3,  /* UGAL at the source: the first hop of the minimal path */
    TOPO_HOP_VALIANT = 4,  /* UGAL at the source: the first hop of the Valiant path */
    TOPO_HOP_LEAST = 5     /* fat tree anca: one of several equivalent up ports (same class, each
                              deadlock-free, each may wait): the router takes the least occupied,
                              the first on a tie (BookSim2's fattree_anca) */
};
typedef struct topo_hop {
    uint32_t port;      /* output port of the current switch */
    uint8_t vc;         /* virtual channel class the hop must use (< topo.vcs; 0 into a host) */
    uint8_t kind;       /* enum topo_hop_kind */
    uint16_t hops_left; /* switch-to-switch links still to cross along this candidate's
                           path, this hop included (UGAL's H; 0: the hop ejects;
                           saturates at 65535) */
} topo_hop;

/* Routing record carried by a packet (or by all packets of a message, for
 * the oblivious routings). Set by hdr_init, updated by take only. */
typedef struct topo_hdr {
    uint32_t src, dst;   /* hosts */
    uint64_t salt;       /* per-message value every random choice derives from */
    uint32_t mid;        /* dragonfly Valiant: intermediate group (or router, within a group);
                            torus valiant, romm: the intermediate switch */
    uint8_t mode;        /* dragonfly: 0 minimal, 1 Valiant, 2 UGAL not yet decided */
    uint8_t phase;       /* dragonfly Valiant, torus valiant and romm: 0 heading to mid, 1 to dst */
    uint8_t vc;          /* dragonfly: class of the next local or global hop */
    uint8_t slice;       /* dragonfly: its global hops use slice (src + slice) mod n (0: merlin's; failed
                            links: another global link between the groups, topo_ops.hdr_alt) */
    int32_t off[TOPO_MAX_DIMS]; /* torus: signed hops still to go per dimension */
} topo_hdr;

/* What a router measures of a candidate's output for a topology's
 * `choose` (the router's own measures, its file's head says which). */
typedef struct topo_probe {
    void *ctx;
    /* occupancy of output `port` of the switch (larger: busier): the
     * output-queued core's bytes waiting and on the wire, the input-queued
     * router's flits held in the next buffer */
    uint64_t (*load)(void *ctx, uint32_t port);
    /* can the packet take (port, class vc) now without waiting: -1 no;
     * else a score, larger better (output-queued: room in the buffer, the
     * less loaded the better; input-queued: a free output VC, the most
     * credits) */
    int64_t (*room)(void *ctx, uint32_t port, uint8_t vc);
} topo_probe;

typedef struct topo_ops {
    const char *name; /* "torus", "fat-tree", "leaf-spine", "dragonfly" */
    /* ports of switch sw (its radix) */
    uint32_t (*radix)(const topo *t, uint32_t sw);
    /* ports of switches 0..sw-1: the link id offset of switch sw is N + port_base */
    uint64_t (*port_base)(const topo *t, uint32_t sw);
    /* the switch whose ports contain index x of [0, links - N) */
    uint32_t (*locate)(const topo *t, uint64_t x);
    /* the switch and port host h is attached to */
    void (*attach)(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port);
    /* what the output link of (sw, port) enters */
    topo_end (*peer)(const topo *t, uint32_t sw, uint32_t port);
    /* the routing record of a message src -> dst (src may equal dst) */
    void (*hdr_init)(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h);
    /* candidates at switch sw for a packet with record h, first = zero-load
     * choice; returns their number (1..TOPO_MAX_CAND). The switch must be on
     * the packet's route. */
    unsigned (*next)(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out);
    /* the packet leaves sw by candidate c (one `next` returned): update h */
    void (*take)(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *h);
    /* The routing's per-hop choice (SST merlin's route()): which of the n >
     * 1 candidates `next` returned the packet takes, from the router's
     * probe of their outputs. NULL when the routing never offers more than
     * one (t->adaptive is then 0). It hands the probe only the candidates'
     * own .port values, so a wrapper (topo_sub, topo_fail) forwards its
     * candidates to its base's choose unchanged. */
    unsigned (*choose)(const topo *t, uint32_t sw, const topo_hdr *h, const topo_hop *c, unsigned n,
                       const topo_probe *pr);
    /* accepted throughput per host, as a fraction of B, above which uniform
     * random traffic (each message to one of the N-1 other hosts, uniformly;
     * random routing choices uniform) overloads some link: 1 / the largest
     * channel load per unit of offered load, at most 1 (each file's head
     * derives it) */
    double (*uniform_bound)(const topo *t);
    void (*fini)(topo *t); /* frees priv */
    /* optional (NULL: every link runs at the fabric's network.bandwidth
     * and network.link-latency): directed link `link`'s own rate *bps
     * (0: the fabric's) and latency *ps (< 0: the fabric's); returns 1
     * when it has either. The graph fabric's DOT edge attributes
     * bandwidth and latency; topo_sub forwards its base's. */
    int (*link_attr)(const topo *t, uint64_t link, double *bps, int64_t *ps);
    /* Optional (the fat trees and leaf-spine; NULL elsewhere): the ports of
     * sw interchangeable with `port` for every destination under the
     * routing's deadlock-avoidance scheme (the up ports an up*-down* route
     * may climb by, all of which lead to an ancestor of the destination):
     * returns their number g, the ports being [*first, *first + g); 1 when
     * `port` has no alternative. Failed links (topo_fail.c) route around a
     * dead port through its group. */
    uint32_t (*port_group)(const topo *t, uint32_t sw, uint32_t port, uint32_t *first);
    /* Optional (the torus; NULL elsewhere): record i of the routing records
     * src -> dst may start with (the minimal displacements a tie drawn from
     * the salt could give), i = 0 the salt's own (hdr_init's); 0 when there
     * is no record i. Failed links (topo_fail.c) start a message with the
     * first record whose escape route is intact. */
    int (*hdr_alt)(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t i, topo_hdr *h);
    /* Optional (the graph and the three-tier fat tree; NULL elsewhere): a
     * kernel behind topo_route_many, giving exactly topo_route's routes
     * (the same links in the same order) for many pairs at once, so their
     * table reads can overlap (software prefetch) and the per-hop calls
     * above are spared. Same arguments as topo_route_many. */
    void (*route_many)(const topo *t, size_t n, const uint64_t *ends, const uint64_t *salts, uint32_t *links,
                       uint32_t *len, size_t stride);
    /* Optional (NULL: never): a routing that decides the hop at a switch
     * from the destination alone wherever it can, so that a router may
     * keep a table per (switch, destination) instead of calling `next`
     * (the input-queued router's route table, iqrouter.c "Route table").
     * dst_routed: 1 when the topology's present routing is such (an
     * oblivious one with one candidate per hop), 0 otherwise. next_dst:
     * when every packet for dst whose route passes switch sw is offered the
     * same single candidate there by `next`, whatever its record (source,
     * salt, hops taken), writes it to *out and returns 1; returns 0 when it
     * depends on the record there (a tie or a random choice drawn from the
     * salt, the source's position): the caller then asks `next` with the
     * packet's record. Pure (no state); `take` is still called for every
     * hop, so the record stays true for the hops that need it. */
    int (*dst_routed)(const topo *t);
    int (*next_dst)(const topo *t, uint32_t sw, uint32_t dst, topo_hop *out);
    /* Optional (NULL: never; the torus's dor without a twist): a routing
     * whose every hop follows from the switch, the destination and a word
     * fixed at the source, so that a router may keep that word instead of
     * the record and need not call `take` (iqrouter.c "Route words").
     * Offered only where dst_routed(t) is 1. rec_word: the word of the
     * record hdr_init(src, dst, salt) makes (the record itself is not
     * needed). next_word: the hop `next` offers (its one candidate, every
     * field) at switch sw on the route of every record with destination dst
     * and that word, whatever `take` did before. Pure. */
    uint32_t (*rec_word)(const topo *t, uint32_t src, uint32_t dst, uint64_t salt);
    void (*next_word)(const topo *t, uint32_t sw, uint32_t dst, uint32_t word, topo_hop *out);
} topo_ops;

struct topo {
    const topo_ops *ops;
    void *priv;               /* the topology's own parameters and derived values */
    uint32_t hosts;           /* N */
    uint32_t switches;        /* S */
    uint32_t max_radix;       /* most ports of one switch */
    uint32_t links;           /* directed links, host links included */
    uint32_t max_route_links; /* links of the longest route (host links included) */
    uint8_t vcs;              /* virtual channel classes the routing needs */
    uint8_t routing;          /* the topology's routing enum */
    uint8_t adaptive;         /* 1: the routing may offer several candidates (ops->choose reads the
                                 ports: no lookahead); 0: a hop follows from the record alone */
};

/* ---- generic functions over any topology (topo.c) ---- */

void topo_free(topo *t); /* releases what init allocated; t may be zeroed or freed */

/* Link ids (see the head). */
static inline uint32_t topo_link_up(const topo *t, uint32_t host) { (void)t; return host; }
uint32_t topo_link_out(const topo *t, uint32_t sw, uint32_t port);
uint32_t topo_link_down(const topo *t, uint32_t host); /* the link into host */
/* Both ends of a directed link: from = (host, or switch and output port),
 * to = what it enters (host, or switch and input port). */
void topo_link_ends(const topo *t, uint64_t link, topo_end *from, topo_end *to);

/* The static route of a message a -> b with salt, with net_ops.route's
 * contract: the ordered directed links it crosses, host links included (a's
 * uplink first, b's downlink last), written to links[] (and each one's VC
 * class to vcs[], which may be NULL; a host link has class 0) as far as max
 * allows; returns their number L (t->max_route_links at most). The message
 * crosses h = L - 1 switches. The route follows the first candidate at
 * every switch. A fabric without a salt of its own for static routes (ORCS
 * metrics) can pass a hash of (a, b): one fixed path per flow. */
size_t topo_route(const topo *t, uint32_t a, uint32_t b, uint64_t salt, uint64_t *links,
                  uint8_t *vcs, size_t max);

/* The static routes of n pairs, each exactly topo_route's: pair i is
 * ends[i] = a << 32 | b with salt salts[i]; its links go to links[i *
 * stride ..] and their number to len[i]; stride >= t->max_route_links. The
 * topology's route_many kernel when it has one (the graph, the three-tier
 * fat tree: measured in bench/graph.sh), else topo_route pair after pair.
 * Link ids fit 32 bits (TOPO_MAX_HOSTS). */
void topo_route_many(const topo *t, size_t n, const uint64_t *ends, const uint64_t *salts, uint32_t *links,
                     uint32_t *len, size_t stride);
/* The same, topo_route pair after pair (what a kernel falls back on). */
void topo_route_each(const topo *t, size_t n, const uint64_t *ends, const uint64_t *salts, uint32_t *links,
                     uint32_t *len, size_t stride);

/* Zero-load latency of an unsegmented message crossing h switches:
 * ser + (h + 1) link + h switch, ps (ser = b/B, the serialisation time). */
static inline int64_t topo_zero_load_ps(int64_t ser_ps, int64_t link_ps, int64_t switch_ps,
                                        uint32_t h)
{
    return ser_ps + ((int64_t)h + 1) * link_ps + (int64_t)h * switch_ps;
}

/* Division by an invariant divisor d >= 1 as multiplications (Lemire,
 * Kaser and Kurz, "Faster remainder by direct computation", Software:
 * Practice and Experience, 2019): with m = ceil(2^64 / d), n / d is the
 * high word of m n and n mod d the high word of (m n mod 2^64) d, exact for
 * every 32-bit n and d (check_topo compares them with / and %). Why: routing
 * one hop of a 4-ary 8-tree took about fifteen hardware divisions (about 26
 * cycles each), a sixth of a hop's time at 65,536 hosts. */
__extension__ typedef unsigned __int128 topo_u128;
typedef struct topo_div {
    uint64_t m; /* ceil(2^64 / d); 0 for d = 1 */
    uint32_t d;
} topo_div;

static inline topo_div topo_div_make(uint32_t d)
{
    return (topo_div){.m = d > 1 ? UINT64_MAX / d + 1 : 0, .d = d};
}
static inline uint32_t topo_div_q(topo_div v, uint32_t n)
{
    return v.d > 1 ? (uint32_t)(((topo_u128)v.m * n) >> 64) : n;
}
static inline uint32_t topo_div_r(topo_div v, uint32_t n)
{
    return v.d > 1 ? (uint32_t)(((topo_u128)(v.m * n) * v.d) >> 64) : 0;
}

/* The i-th independent uniform choice in [0, n) derived from salt (n >= 1):
 * splitmix64 of salt + (i + 1) golden-ratio increments, scaled by
 * multiply-shift. Pure: the same (salt, i, n) always gives the same value. */
uint32_t topo_pick(uint64_t salt, uint32_t i, uint32_t n);

/* UGAL-L's choice at the source router (Kim et al., ISCA 2008, section 4.2;
 * Singh's UGAL): the minimal path unless its output queue times its hops
 * exceeds the Valiant path's: q_min H_min <= q_val H_val -> 1 (minimal). */
static inline int topo_ugal_minimal(uint64_t q_min, uint32_t h_min, uint64_t q_val,
                                    uint32_t h_val)
{
    return (double)q_min * h_min <= (double)q_val * h_val;
}

/* The choices the topologies share (topo.c): of n candidates, the one
 * whose output pr->load finds least occupied, the first on a tie (fat tree
 * anca); the candidate of best pr->room among the first n - 1 (adaptive),
 * the last (the escape) when none has room (torus minimal adaptive). */
static inline unsigned topo_choose_least(const topo_hop *c, unsigned n, const topo_probe *pr)
{
    unsigned best = 0;
    uint64_t best_q = pr->load(pr->ctx, c[0].port);
    for (unsigned i = 1; i < n; i++) {
        uint64_t q = pr->load(pr->ctx, c[i].port);
        if (q < best_q) {
            best = i;
            best_q = q;
        }
    }
    return best;
}

static inline unsigned topo_choose_room_or_last(const topo_hop *c, unsigned n, const topo_probe *pr)
{
    unsigned best = n - 1;
    int64_t best_r = -1;
    for (unsigned i = 0; i + 1 < n; i++) {
        int64_t r = pr->room(pr->ctx, c[i].port, c[i].vc);
        if (r > best_r) {
            best = i;
            best_r = r;
        }
    }
    return best;
}


/* ---- network.routing: every topology declares its routings ---- */
/* Each topology's file declares its routings in three tables, index = its
 * routing enum: topo_<name>_routing_names (the values network.routing
 * takes; the first is the topology's default), topo_<name>_routing_help
 * (one line each) and topo_<name>_routing_params (the parameters that
 * routing reads besides the topology's shape, as their paths, space
 * separated, "" for none; each is a row of the fabric's file, whose help
 * and choices the topology's file gives: the torus's network.dateline),
 * and a topo_routings naming the three (topo_<name>_routings). Before
 * main topo.c makes of each the fabric's network.routing row: its choices,
 * "default" (the topology's first) then the names, and its help from the
 * help and params tables. The row is the fabric's own (SWNET_ROWS' third
 * argument), so `tasknet params` shows each fabric its routings, a value is
 * stored as an index into the fabric's own choices, and a routing another
 * fabric has is refused where this fabric runs, listing this fabric's
 * choices (app/config crow_set keeps a value some owners of a path take
 * and cfg_cross_check refuses it at a point whose owner does not).
 * check_topo: every path named is a row of its fabric. */
#define TOPO_ROUTINGS_MAX 15
typedef struct topo_routings {
    const char *topology;                        /* "torus" */
    const char *const *names, *const *help, *const *params; /* the three tables */
    const char *choices[TOPO_ROUTINGS_MAX + 2]; /* "default", the names, NULL: the row's choices */
    char row_help[1024];                         /* the row's help */
} topo_routings;
extern topo_routings topo_torus_routings, topo_fattree_routings, topo_leafspine_routings, topo_dragonfly_routings,
    topo_graph_routings;
/* The routing of table `names` that choice `choice` (an index into the
 * fabric's row's choices, topo_routings.choices) names: 0 ("default") the
 * table's first, c the table's c - 1; -1 out of range. */
int topo_routing_of(const char *const *names, int choice);
/* "dor, adaptive, valiant, romm" */
void topo_routing_list(const char *const *names, char *buf, size_t len);

/* ---- the topologies: parameters, checks (nothing allocated), init ---- */
/* init: 0, or -1 with the check's message (nothing allocated); on 0 the
 * caller releases t with topo_free. Routing names index the enums below
 * (NULL-terminated lists for the parameter rows). */

/* torus (topo_torus.c): k_0 x ... x k_{n-1}, one host per switch; with
 * twist t, the wrap-around links of dimension 1 also shift dimension 0 by t
 * (the twisted torus of Camara et al., seed 003's 8x4 with twist 4). */
typedef enum {
    TOPO_TORUS_DOR = 0,
    TOPO_TORUS_ADAPTIVE = 1,
    TOPO_TORUS_VALIANT = 2, /* DOR to a random switch, then DOR to the destination (4 classes) */
    TOPO_TORUS_ROMM = 3     /* the same with the intermediate in the minimal quadrant (4 classes) */
} topo_torus_routing;
extern const char *const topo_torus_routing_names[]; /* "dor", "adaptive", "valiant", "romm" */
extern const char *const topo_torus_routing_help[];  /* one line each, same order */
extern const char *const topo_torus_routing_params[]; /* "network.dateline" for dor, valiant, romm */
/* network.dateline, read by dor, valiant and romm (adaptive's escape keeps
 * hop): its choices "hop", "ring", "auto" and its help (net_torus.c's row) */
extern const char *const topo_torus_dateline_names[];
extern const char topo_torus_dateline_help[];
typedef struct topo_torus_params {
    uint32_t ndims;               /* n, 1..TOPO_MAX_DIMS */
    uint32_t dims[TOPO_MAX_DIMS]; /* k_d >= 2; dimension 0 varies fastest in host ids */
    uint32_t twist;               /* t < k_0 (0: plain torus; else n >= 2 and k_0 <= 2 k_1) */
    topo_torus_routing routing;
    uint8_t dateline_ring;        /* DOR's classes: 0 per hop (past the wrap: class 0), 1 per ring (BookSim2) */
} topo_torus_params;
int topo_torus_check(const topo_torus_params *p, char *err, size_t errlen);
int topo_torus_init(topo *t, const topo_torus_params *p, char *err, size_t errlen);
unsigned topo_torus_classes(topo_torus_routing r); /* its deadlock classes (VCs): dor 2, adaptive 3, else 4 */

/* fat tree (topo_fattree.c): k-ary n-tree of Petrini and Vanneschi, k^n hosts,
 * n levels of k^(n-1) switches. */
typedef enum {
    TOPO_FT_DMODK = 0,
    TOPO_FT_RANDOM_UP = 1,
    TOPO_FT_ANCA = 2 /* adaptive up: the less occupied of two up ports drawn per level (BookSim2's anca) */
} topo_fattree_routing;
extern const char *const topo_fattree_routing_names[]; /* "d-mod-k", "random-up", "anca" */
extern const char *const topo_fattree_routing_help[];  /* one line each, same order */
extern const char *const topo_fattree_routing_params[]; /* "" each: no routing parameter */
typedef struct topo_fattree_params {
    uint32_t arity;  /* k >= 2: hosts per leaf switch, up and down ports of a switch */
    uint32_t levels; /* n >= 1 (1: a single switch of k hosts) */
    topo_fattree_routing routing;
} topo_fattree_params;
int topo_fattree_check(const topo_fattree_params *p, char *err, size_t errlen);
int topo_fattree_init(topo *t, const topo_fattree_params *p, char *err, size_t errlen);

/* three-tier k-port fat tree (topo_fattree3.c) of Al-Fares et al.: k pods
 * of k/2 edge and u aggregation switches, u k/2 cores, every switch k
 * ports; edges with h = k - u hosts, oversubscription o = h / u (1: u =
 * k/2, k^3/4 hosts). Routing as the k-ary n-tree's (d-mod-k, random-up, anca). */
typedef struct topo_fattree3_params {
    uint32_t ports;            /* k, even, >= 4 */
    uint32_t oversubscription; /* o >= 1; o + 1 divides k */
    topo_fattree_routing routing;
} topo_fattree3_params;
int topo_fattree3_check(const topo_fattree3_params *p, char *err, size_t errlen);
int topo_fattree3_init(topo *t, const topo_fattree3_params *p, char *err, size_t errlen);
/* Hosts of the three-tier tree of k ports and oversubscription o (0: none can be built). */
uint64_t topo_fattree3_hosts(uint32_t k, uint32_t o);

/* leaf-spine (topo_leafspine.c): every leaf linked once to every spine. */
typedef enum { TOPO_LS_ECMP = 0, TOPO_LS_DMODK = 1 } topo_leafspine_routing;
extern const char *const topo_leafspine_routing_names[]; /* "ecmp", "d-mod-k" */
extern const char *const topo_leafspine_routing_help[];  /* one line each, same order */
extern const char *const topo_leafspine_routing_params[]; /* "" each: no routing parameter */
typedef struct topo_leafspine_params {
    uint32_t leaves;         /* L >= 1 */
    uint32_t spines;         /* S >= 1 */
    uint32_t hosts_per_leaf; /* H >= 1; oversubscription H : S */
    topo_leafspine_routing routing;
} topo_leafspine_params;
int topo_leafspine_check(const topo_leafspine_params *p, char *err, size_t errlen);
int topo_leafspine_init(topo *t, const topo_leafspine_params *p, char *err, size_t errlen);

/* dragonfly (topo_dragonfly.c): g groups of a routers, all-to-all inside a
 * group, p hosts and h global links per router; every pair of groups is
 * joined by n = a h / (g - 1) global links. */
typedef enum { TOPO_DF_MINIMAL = 0, TOPO_DF_VALIANT = 1, TOPO_DF_UGAL = 2 } topo_dragonfly_routing;
extern const char *const topo_dragonfly_routing_names[]; /* "minimal", "valiant", "ugal" */
extern const char *const topo_dragonfly_routing_help[];  /* one line each, same order */
extern const char *const topo_dragonfly_routing_params[]; /* "" each: no routing parameter */
typedef struct topo_dragonfly_params {
    uint32_t groups;            /* g >= 2 */
    uint32_t routers_per_group; /* a >= 1 */
    uint32_t hosts_per_router;  /* p >= 1 */
    uint32_t global_links;      /* h >= 1 per router; g - 1 must divide a h */
    topo_dragonfly_routing routing;
} topo_dragonfly_params;
int topo_dragonfly_check(const topo_dragonfly_params *p, char *err, size_t errlen);
int topo_dragonfly_init(topo *t, const topo_dragonfly_params *p, char *err, size_t errlen);
unsigned topo_dragonfly_classes(topo_dragonfly_routing r); /* its deadlock classes (VCs): minimal 2, else 3 */

/* graph (topo_graph.c): a fabric read from a DOT file (ORCS's format, seed
 * 001), its routes from the file (with its classes, lmc paths, vcstep and
 * host paths) or computed (one virtual channel). */
typedef enum {
    TOPO_GRAPH_FILE = 0,
    TOPO_GRAPH_SHORTEST = 1,
    TOPO_GRAPH_UPDOWN = 2,
    TOPO_GRAPH_ECMP = 3
} topo_graph_routing;
extern const char *const topo_graph_routing_names[]; /* "file", "shortest", "up-down", "ecmp" */
extern const char *const topo_graph_routing_help[];  /* one line each, same order */
extern const char *const topo_graph_routing_params[]; /* "" each: no routing parameter */
typedef struct topo_graph_params {
    const char *path;          /* the DOT file */
    topo_graph_routing routing;
    double bandwidth_bps;      /* the fabric's link rate: an edge's bandwidth must equal it (0: not checked) */
    int64_t link_ps;           /* the fabric's link latency: an edge's latency must equal it (0: not checked) */
    /* network.failed-links: NULL/"" none; a count k (k links between
     * switches drawn uniformly from fail_seed when fail_draw, else none
     * failed: only k checked); or names "A-B C-D" (every link between
     * switches A and B). Computed routings avoid them; routing="file": a
     * message takes its next intact lmc path (an error naming the pairs
     * with none). */
    const char *failed_links;
    int fail_draw;
    uint64_t fail_seed;
} topo_graph_params;
/* 1 and *count when spec is a count of failed links (network.failed-links="2"), else 0. */
int topo_graph_failed_count(const char *spec, uint32_t *count);
/* The failed links' names ("L1-S1 L2-S3"), or NULL (none, or not a graph). */
const char *topo_graph_failed(const topo *t);
/* Reads and checks the file and its routes (allocates; errors name the
 * file, line and node). */
int topo_graph_init(topo *t, const topo_graph_params *p, char *err, size_t errlen);
/* The channel dependency cycle of t's routing ("S1 -> S2, S2 -> S3, S3 ->
 * S1"), or NULL when it is acyclic (or t is not a graph). */
const char *topo_graph_cycle(const topo *t);
/* These look through a partly populated wrapper (topo_sub_init): a graph
 * with network.placement is still a graph, its hosts named as in its file. */
int topo_is_graph(const topo *t);
const char *topo_graph_host_name(const topo *t, uint32_t host);
const char *topo_graph_switch_name(const topo *t, uint32_t sw);
/* Is directed link `link` of graph t one of its failed links? */
int topo_graph_link_failed(const topo *t, uint64_t link);
/* network.fail-at on a graph: the channel dependency graph of the routes
 * while the packets routed before the failure drain (before's routes, the
 * hops after's routing gives them from wherever they are, and after's
 * own; topo_graph.c) has a cycle: its message (allocated), else NULL. */
char *topo_graph_transition_cycle(const topo *before, const topo *after);
/* Bytes t holds: links, names, routing tables, route cache (its largest). */
double topo_graph_mem_bytes(const topo *t);
/* The route cache's part of it (shortest, up-down: 4 S_h^2 L bytes, S_h
 * switches with hosts, L the longest route's links between switches; 0
 * when the graph keeps none: too large, or another routing). */
double topo_graph_route_cache_bytes(const topo *t);

/* Partly populated (topo_sub.c): n of base's hosts present, placed by
 * `how`; takes base over (base is zeroed; the result frees it). The same
 * switches, links between them and routes; ports toward absent hosts are
 * gone. 0, or -1 + err (nothing taken). */
typedef enum { TOPO_PLACE_FULL = 0, TOPO_PLACE_FIRST = 1, TOPO_PLACE_SPREAD = 2 } topo_placement;
extern const char *const topo_placement_names[]; /* "full", "first", "spread" */
int topo_sub_init(topo *t, topo *base, uint32_t n, topo_placement how, char *err, size_t errlen);
/* The base topology under a partly populated one (NULL when t is not
 * one), and *host (when not NULL) turned from t's host id into the base's. */
const topo *topo_sub_base(const topo *t, uint32_t *host);
/* The base's id of partly populated t's link `link` (t must be one). */
uint64_t topo_sub_link_base(const topo *t, uint64_t link);
/* The base host of node i of n placed by `how` on a fabric of `hosts`. */
uint32_t topo_placement_host(topo_placement how, uint32_t i, uint32_t n, uint32_t hosts);

/* Node names (the ones export-topology writes): a graph's own names, else
 * H<id> for host id and S<id> for switch id. The node called name[0..len)
 * of t: its id and *host (1: a host), or UINT32_MAX when none is. A link
 * between switches is named A-B (every link between A and B, either
 * order): topo_link_name_split finds the '-' whose two sides are nodes
 * of t. 0 with *a, *b (and *ha, *hb: hosts), or -1. */
uint32_t topo_node_find(const topo *t, const char *name, size_t len, int *host);
void topo_node_name(const topo *t, int host, uint32_t id, char *buf, size_t len);
int topo_link_name_split(const topo *t, const char *name, size_t len, uint32_t *a, int *ha, uint32_t *b, int *hb);

/* Failed links on a topology whose routing can avoid them (topo_fail.c's
 * head: the fat trees and leaf-spine, through port_group): takes base over
 * (base is zeroed; the result frees it). spec: a count k (k links between
 * switches drawn uniformly from seed when draw, else none failed: only k
 * checked, as the graph's) or names "A-B C-D" (every link between switches
 * A and B). Pairs of hosts the failures leave without a route are an
 * error naming them (on the torus and dragonfly, whose check enumerates
 * the pairs, only when check_pairs: a build for estimates skips it). 0, or
 * -1 + err (nothing taken). */
int topo_fail_init(topo *t, topo *base, const char *spec, int draw, uint64_t seed, int check_pairs, char *err,
                   size_t errlen);
/* The failed links' names ("S0-S4 S2-S5") of a topology built by
 * topo_fail_init (or a graph's, topo_graph_failed), or NULL. */
const char *topo_failed_names(const topo *t);
/* network.fail-at: a topology built by topo_fail_init routes as its base
 * (every link up) until topo_fail_activate(t, 1) (its routing then avoids
 * the failed links; `next` offers no candidate to a packet whose route can
 * no longer avoid them). Is t such a topology, is directed link l one of
 * its failed links, and does its routing decide each hop afresh from the
 * switch and the destination (the trees: a packet can be rerouted where it
 * is; the torus's record is fixed at the source)? */
/* These four look through a partly populated wrapper (topo_sub_init) over
 * such a topology (swnet.c populates after failing), its link ids
 * translated to the base's. */
int topo_is_fail(const topo *t);
void topo_fail_activate(topo *t, int on);
int topo_fail_dead(const topo *t, uint32_t link);
int topo_fail_reroutes(const topo *t);
/* network.fail-at on the graph fabric (topo_fail.c's tail): t routes with
 * `before` (every link up) until topo_fail_activate(t, 1), then with
 * `after` (the same fabric built with its failed links: its routing
 * recomputed without them); dead(after, l): is directed link l one of
 * after's failed links. Takes both over (zeroed). topo_fail_before/after:
 * t's two topologies, NULL when t is no such pair. */
void topo_fail_init_pair(topo *t, topo *before, topo *after, int (*dead)(const topo *after, uint64_t link));
const topo *topo_fail_before(const topo *t);
const topo *topo_fail_after(const topo *t);

/* Write t as a DOT file the graph topology reads back with the same host,
 * switch, port and link ids and, where the file's rules can express t's
 * routing (destination tables, lmc paths drawn from the salt's binary
 * choices, per-host paths, vcstep classes: topo_export.c's head), the same
 * routes and classes; `title` goes into a comment line. *conflicts (may be
 * NULL): the choices the file could not follow (0: the file routes exactly
 * as t). 0, or -1 + err. */
int topo_export_dot(const topo *t, FILE *out, const char *title, uint64_t *conflicts, char *err, size_t errlen);
/* The same, with rate[l] > 0 the bandwidth (bit/s) written on directed
 * link l instead of its own (network.degraded-links: swnet_link_rates);
 * rate may be NULL. */
int topo_export_dot_rates(const topo *t, const double *rate, FILE *out, const char *title, uint64_t *conflicts,
                          char *err, size_t errlen);

/* InfiniBand import (topo_ibimport.c, its head gives the formats): the
 * fabric of an ibnetdiscover topology file and its routes from a
 * forwarding table dump (ibdiagnet's fdbs, OpenSM's osm.fdbs or
 * opensm-lfts.dump, ibroute/dump_lfts.sh) written to out as the graph
 * fabric's DOT file, routing="file". 0, or -1 + "file:line: message". */
typedef struct ib_import_stats {
    uint32_t hosts, switches;
    uint64_t missing; /* (switch, host not on it) pairs without a forwarding entry */
    uint64_t ignored; /* entries for LIDs of no host (switches' own, unknown, a port's LIDs above its base) */
    uint32_t lmc_hosts; /* hosts with LMC > 0: their LIDs' routes are the file's lmc paths */
} ib_import_stats;
int topo_import_ib(const char *ibnetdiscover, const char *fdbs, FILE *out, ib_import_stats *stats, char *err,
                   size_t errlen);

/* ORCS's get_cable_cong as a DOT graph: every directed link of t (load[]
 * indexed by link id) with its load, its load scaled by the largest
 * (cong) and a colour from green (0) to red (the largest). 0, or -1 on a
 * write error. */
int topo_write_congestion_dot(const topo *t, FILE *out, const char *title, const uint64_t *load);

#endif
