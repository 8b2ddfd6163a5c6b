/* Torus and twisted torus: k_0 x ... x k_{n-1} switches, one host per switch
 * (contract in topo.h).
 *
 * Graph. Switch (and host) v has coordinates c_d = (v / (k_0 ... k_{d-1})) mod
 * k_d, dimension 0 fastest. Ports: 0 the host, 1 + 2d the + direction of
 * dimension d, 2 + 2d the - direction (radix 2n + 1). The + link of c_d =
 * k_d - 1 wraps to c_d = 0 (and the - link of 0 to k_d - 1). With k_d = 2 the
 * + and - ports reach the same neighbour over two links, as in BookSim.
 * Twist t (seed 003: "an 8x4 mesh ... twisted torus 8x4 with twist 4",
 * "twisting wrap-around Y links"; Camara et al., IPDPS 2007): a wrap-around
 * link of dimension 1 also moves dimension 0, by +t going + and by -t going
 * - (INSEE's dtt_neighbor with skew sk_yx = t): (x, k_1 - 1) -> (x + t, 0).
 * In the plane the torus is Z^n modulo the lattice spanned by k_d e_d for
 * d != 1 and by k_1 e_1 - t e_0; a route is a lattice displacement, walked
 * one hop at a time; the wrap links are ordinary hops of it.
 * Links: host uplinks [0, N), then N + v (2n + 1) + port.
 *
 * Routing record: the signed hops still to go per dimension, off[d], fixed at
 * the source (as INSEE's routing record rr, and as BlueGene and Cray routers
 * carry them); each hop decrements |off[d]| of its dimension. The source
 * picks a minimal displacement:
 *   every dimension d >= 2 (and 0, 1 when t = 0): the offset of least |.|
 *     modulo k_d; when it is exactly k_d / 2 both directions are minimal and
 *     a bit of the salt picks one (BookSim's dor_next_torus draws it at
 *     random, RandomInt(1)).
 *   dimensions 0, 1 of a twisted torus, as INSEE's dtt_rr: with dy0 = y_b -
 *     y_a and dx0 = x_b - x_a, the candidates are (mesh) (min_k0(dx0), dy0)
 *     and, if dy0 != 0, (wrap) (min_k0(dx0 - s t), dy0 - sign(dy0) k_1) with
 *     s = -sign(dy0) the direction the wrap link is crossed in; the one of
 *     least |dx| + |dy| is taken, a salt bit breaking a tie (INSEE: rand() %
 *     num). With k_0 <= 2 k_1 (checked) this is a shortest path: a route
 *     crossing the wrap twice has |dy| >= k_1 + 1 while (mesh) or (wrap) has
 *     |dy| <= k_1 / 2 and |dx| <= k_0 / 2 <= k_1; check_topo compares every
 *     route length with a breadth-first search. Every candidate has |dy| <=
 *     k_1 - 1, so a route crosses at most one wrap link per dimension.
 * dor: the lowest dimension with off[d] != 0 (BookSim's dim_order_torus).
 * adaptive (minimal adaptive, Duato's protocol, as INSEE's adaptive bubble
 *   router pairs an adaptive channel with a DOR escape): every dimension with
 *   off[d] != 0 in its productive direction on class 2, lowest dimension
 *   first, then the escape: the highest such dimension (DOR in descending
 *   order) on its dateline class.
 * valiant (Valiant and Brebner 1981; BookSim2's valiant_torus): the source
 *   draws an intermediate switch uniformly among all (topo_pick(salt, 64,
 *   N), the source and destination included, as BookSim2's RandomInt(gNodes
 *   - 1)); phase 0 is the DOR route to it (the minimal displacement, ties
 *   from the salt as above), phase 1 at the intermediate the DOR route on to
 *   the destination (its ties from salt bits 40..). Class = dateline class +
 *   2 x phase (4 classes; BookSim2 splits its VCs the same way, by ring
 *   partition and then by phase).
 * romm (Nesson and Johnsson's ROMM, "randomized, oblivious, multi-phase,
 *   minimal"; BookSim2 has it for the mesh only, romm_mesh with
 *   rand_min_intr_mesh): the intermediate lies in the minimal quadrant: of
 *   the source's minimal displacement o (ties drawn as above), phase 0
 *   takes the share m_d = sign(o_d) topo_pick(salt, 80 + d, |o_d| + 1) of
 *   each dimension (uniform in 0..|o_d|, as BookSim2 draws src + RandomInt(
 *   dist)), phase 1 the minimal displacement from there to the destination
 *   (o - m but for a tie at k_d / 2, another minimal one): the route stays
 *   minimal. On the torus the phases need classes of their own as
 *   Valiant's do (a phase-1 hop of dimension 0 may follow a phase-0 hop of
 *   dimension 1, against the dimension order): the same 4 classes. The
 *   mesh's romm needs only the phase split (no wrap links); the torus adds
 *   the dateline split inside each phase.
 *
 * Deadlock freedom. Dateline classes (Dally and Towles, PPIN section 14.2;
 * BookSim's deterministic partition "cur > dest" for the + direction): a hop
 * of dimension d uses class 1 while the hops still to go in d, this one
 * included, cross the wrap link (going +: c_d + off[d] >= k_d; going -:
 * c_d + off[d] < 0), class 0 otherwise: a packet drops to class 0 once
 * past the wrap. (BookSim2 is not the same here: routefunc.cpp's
 * dor_next_torus fixes the partition when the packet turns into the
 * dimension and keeps it for the whole ring, past the wrap too;
 * network.dateline="ring" gives that partition: the class of a dimension's
 * whole traversal, 1 when it crosses the wrap. Both are
 * acyclic, but the traffic they put on each class differs: tornado on the
 * 8x8 input-queued torus, 1-flit packets, 4 VCs per class (notes i24starve)
 * has 78.7 ns mean latency at 0.25 here against 72.4 ns with BookSim's
 * partition and 74.2 ns in BookSim2; past saturation (0.28) 0.07-0.09
 * accepted per node and ns here against 0.12-0.15 with BookSim's partition
 * and in BookSim2.) The class read from the position at every hop is what
 * the adaptive escape needs. Order the
 * + links of a ring by c_d, the wrap (c_d = k_d - 1) last: a class-1 hop
 * is followed in d by a class-1 hop one position further or, after the
 * wrap, by a class-0 hop; a class-0 hop by a class-0 hop further on, never
 * the wrap. So inside one class positions only grow: no cycle within a
 * ring; DOR adds dependencies from lower to higher dimensions only, so the
 * channel dependency graph is acyclic (2 classes). The - direction mirrors
 * it. Twisted Y rings pass several wrap links, but a route crosses at most
 * one, and the class depends on c_1 only: the same order by c_1 holds.
 * valiant, romm: each phase is a DOR route with minimal displacements (a
 * traversal crosses its wrap at most once), on classes 0, 1 (phase 0) or
 * 2, 3 (phase 1): within each pair the DOR argument above holds, and a
 * packet moves from phase 0's classes to phase 1's only, never back, so
 * ordering every phase-0 channel before every phase-1 channel keeps the
 * graph acyclic (4 classes). With dateline="ring" a phase's traversal of
 * a dimension has the class of the ring from the phase's start to its end
 * (BookSim2's valiant_torus restarts the partition at the intermediate).
 * check_topo builds these graphs (hop and ring, plain and twisted tori) and
 * shows them cyclic when the two phases share classes.
 * Adaptive: the escape subnetwork (classes 0, 1) is DOR in descending
 * dimension order; its extended dependency graph (Duato: escape hops that
 * follow one another with adaptive hops between) stays acyclic because an
 * escape hop of dimension d is offered only when every higher dimension is
 * done, so between two escape hops of d only hops of dimensions <= d occur,
 * which keep c_d + off[d] (or move past the wrap, to class 0); and a wrap of
 * dimension 1 that moves c_0 only happens before any escape hop of
 * dimension 0. check_topo builds both graphs on small tori and twisted tori.
 * dateline="ring" (DOR, plain torus only): a class-0 traversal never uses
 * the wrap link, so within class 0 positions only grow. A class-1 traversal
 * going + is minimal (at most floor(k_d / 2) hops) and crosses the wrap,
 * so it starts at c_d >= ceil(k_d / 2) and ends at c_d < floor(k_d / 2):
 * numbering the + links of the ring from position ceil(k_d / 2) on, round
 * the wrap, its links' numbers only grow. No cycle within a class; the -
 * direction mirrors it. check_topo builds this graph too.
 *
 * Uniform-random bound. A message to a uniformly random host (self
 * included) has its offset in dimension d uniform over Z_{k_d},
 * independently of the other dimensions. With ties split evenly, the
 * expected hops in the + direction of d are
 *   even k: (1 + 2 + ... + (k/2 - 1) + (k/2)/2) / k = k / 8
 *   odd k:  (1 + ... + (k-1)/2) / k = (k^2 - 1) / (8 k)
 * and as many in the - direction. Each switch owns one + link of d, and the
 * torus is vertex-transitive, so every + link of d carries lambda E_d when
 * each host injects lambda (a fraction of B). Destinations among the N - 1
 * others (the uniform-random workload) raise the mean by N / (N - 1):
 *   bound = min(1, (N - 1) / (N max_d E_d)) = min(1, 8 (N - 1) / (N k_max))
 *   for even k_max (Dally and Towles' 8/k, times (N-1)/N); the 1 is the
 *   host link. A twisted torus is vertex-transitive too (translations of
 *   the plane map the lattice onto itself), so every X+ link carries the
 *   same load: E_X+ etc. are summed over the k_0 k_1 destinations of the
 *   plane with the routing's probabilities (mesh/wrap tie 1/2, x tie 1/2).
 *   8x4 with twist 4 by hand: the lattice is {(x, y): 4 | y, x = y mod 8},
 *   spanned by (4, 4) and (4, -4), so distances are L1 norms in a diamond:
 *   the 25 points with |x| + |y| <= 3 are alone in their class; on the
 *   ring |x| + |y| = 4 the four axis points are one class and the twelve
 *   others pair up (e.g. (3, 1) ~ (-1, -3)). X+ hops: the diamond gives
 *   sum over x > 0 of x = 14; each pair is taken either way with 1/2:
 *   (3+3+2+2+1+1)/2 = 6; (4, 0) is reached by 4 X hops (the mesh and wrap
 *   candidates coincide), + or - with 1/2: 2. E_X+ = 22/32; Y+: 14 + 6 + 0
 *   = 20/32. Load 22/31 < 1: bound 1 (the plain 8x4 torus: E = 8/8 = 1 in
 *   X, bound 31/32).
 *   valiant: each phase's displacement is uniform over the whole torus
 *   (the intermediate is uniform, independent of source and destination),
 *   so each phase loads a + link of d with E_d: bound min(1, 1 / (2 max E))
 *   (8x8: 1/2, Dally and Towles' half of capacity). romm: minimal routes
 *   and translation-invariant choices: every + link of d still carries E_d
 *   N / (N - 1), DOR's bound. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

const char *const topo_torus_routing_names[] = {"dor", "adaptive", "valiant", "romm", NULL};
const char *const topo_torus_routing_help[] = {
    "dimension order, 2 dateline classes", "minimal adaptive over a dor escape, Duato: 3 classes",
    "dor to a random switch, then on: 4 classes, half the uniform throughput",
    "dor to a random switch of the minimal quadrant, then on: 4 classes, minimal", NULL};
const char *const topo_torus_routing_params[] = {"network.dateline", "", "network.dateline", "network.dateline", NULL};
/* network.routing's row for the torus (topo.h; topo.c fills choices and help before main) */
topo_routings topo_torus_routings = {.topology = "torus", .names = topo_torus_routing_names, .help = topo_torus_routing_help,
                                  .params = topo_torus_routing_params};
const char *const topo_torus_dateline_names[] = {"hop", "ring", "auto", NULL};
const char topo_torus_dateline_help[] =
    "torus, dor, valiant, romm: the dateline classes: hop (class 1 while the hops still to go cross the "
    "wrap link, class 0 past it) | ring (BookSim2's dim_order_torus: one class for a dimension's whole "
    "traversal, 1 when it crosses the wrap) | auto (ring for the input-queued router's dor, valiant and "
    "romm on a plain torus without failed links, hop otherwise)";

unsigned topo_torus_classes(topo_torus_routing r)
{
    return r == TOPO_TORUS_DOR ? 2 : r == TOPO_TORUS_ADAPTIVE ? 3 : 4;
}

#define VC_ADAPTIVE 2
#define VC_PHASE 2       /* valiant, romm: phase 1 hops use classes 2, 3 (phase 0: 0, 1) */
#define TIE_PHASE1 40    /* valiant, romm: the tie bits of the second phase's record */
#define PICK_MID 64      /* valiant: the intermediate, topo_pick(salt, PICK_MID, N) */
#define PICK_QUADRANT 80 /* romm: dimension d's share, topo_pick(salt, PICK_QUADRANT + d, |off_d| + 1) */

typedef struct torus {
    uint32_t n;                     /* dimensions */
    uint32_t k[TOPO_MAX_DIMS];      /* ring sizes */
    uint32_t stride[TOPO_MAX_DIMS]; /* k_0 ... k_{d-1} */
    uint32_t twist;                 /* shift of dimension 0 across a wrap of dimension 1 */
    uint8_t dateline_ring;          /* DOR classes per ring traversal (BookSim2) instead of per hop */
    topo_div dstride[TOPO_MAX_DIMS], dk[TOPO_MAX_DIMS]; /* divisions by them (topo_div) */
    topo_torus_routing routing;
    uint16_t *cc; /* [switches n] every switch's coordinates (route words, when dst_routed and small), NULL */
    uint8_t *wt;  /* rec_word's table (rec_word's comment), NULL */
    uint32_t wt_at[TOPO_MAX_DIMS]; /* dimension d's k_d x k_d part starts at wt[wt_at[d]] */
} torus;

static const torus *T(const topo *t) { return t->priv; }

static uint32_t coord(const torus *q, uint32_t v, uint32_t d)
{
    return topo_div_r(q->dk[d], topo_div_q(q->dstride[d], v));
}

static uint32_t radix(const topo *t, uint32_t sw)
{
    (void)sw;
    return 2 * T(t)->n + 1;
}

static uint64_t port_base(const topo *t, uint32_t sw) { return (uint64_t)sw * (2 * T(t)->n + 1); }

static uint32_t locate(const topo *t, uint64_t x) { return (uint32_t)(x / (2 * T(t)->n + 1)); }

static void attach(const topo *t, uint32_t host, uint32_t *sw, uint32_t *port)
{
    TN_ASSERT(host < t->hosts, "torus: host %u of %u", host, t->hosts);
    *sw = host;
    *port = 0;
}

/* Neighbour of v one hop in dimension d, direction dir (+1 or -1). */
static uint32_t neighbour(const torus *q, uint32_t v, uint32_t d, int dir)
{
    uint32_t c = coord(q, v, d), k = q->k[d];
    uint32_t nc = dir > 0 ? (c + 1 == k ? 0 : c + 1) : (c == 0 ? k - 1 : c - 1);
    uint32_t w = v - c * q->stride[d] + nc * q->stride[d];
    int wrapped = dir > 0 ? c + 1 == k : c == 0;
    if (d == 1 && q->twist && wrapped) {
        uint32_t x = coord(q, w, 0), k0 = q->k[0];
        uint32_t nx = dir > 0 ? (x + q->twist) % k0 : (x + k0 - q->twist) % k0;
        w = w - x + nx;
    }
    return w;
}

static topo_end peer(const topo *t, uint32_t sw, uint32_t port)
{
    const torus *q = T(t);
    TN_ASSERT(sw < t->switches && port < 2 * q->n + 1, "torus: switch %u port %u", sw, port);
    if (port == 0)
        return (topo_end){.kind = TOPO_HOST, .id = sw, .port = 0};
    uint32_t d = (port - 1) / 2;
    int plus = (port - 1) % 2 == 0;
    /* the link enters on the port of the opposite direction, whose output returns */
    return (topo_end){.kind = TOPO_SWITCH,
                      .id = neighbour(q, sw, d, plus ? 1 : -1),
                      .port = plus ? port + 1 : port - 1};
}

/* Offset of least |.| congruent to diff modulo k; the tie k/2 goes - when bit. */
static inline int32_t ring_min(int64_t diff, uint32_t k, unsigned bit)
{
    /* diff mod k in 0..k-1; a difference of two coordinates (-k < diff < k, the usual case) without a division */
    int64_t r = diff >= 0 && diff < (int64_t)k   ? diff
                : diff < 0 && diff > -(int64_t)k ? diff + (int64_t)k
                                                 : ((diff % (int64_t)k) + (int64_t)k) % (int64_t)k;
    int64_t back = r - (int64_t)k;
    if (r < -back)
        return (int32_t)r;
    if (r > -back)
        return (int32_t)back;
    return (int32_t)(bit ? back : r);
}

static int32_t iabs32(int32_t x) { return x < 0 ? -x : x; }

/* Tie j of a record: the salt's bit j, flipped when bit j of flip is set
 * (hdr_alt's other minimal records; 0 for the routing's own). tb: the
 * first bit (0; TIE_PHASE1 for the second phase of valiant and romm). */
static unsigned tie_at(uint64_t salt, uint32_t flip, unsigned tb, unsigned j)
{
    return topo_pick(salt, tb + j, 2) ^ ((flip >> j) & 1u);
}
#define tie(salt, flip, j) tie_at(salt, flip, tb, j)
/* ring_min with the tie's bit j of the salt drawn only when it decides (topo_pick is pure) */
static inline int32_t ring_min_tie(int64_t diff, uint32_t k, uint64_t salt, uint32_t flip, unsigned tb, unsigned j)
{
    int64_t r = diff >= 0 && diff < (int64_t)k ? diff : diff < 0 && diff > -(int64_t)k ? diff + (int64_t)k : -1;
    if (r >= 0 && 2 * r != (int64_t)k)
        return (int32_t)(2 * r < (int64_t)k ? r : r - (int64_t)k);
    return ring_min(diff, k, tie(salt, flip, j));
}

/* The (dx, dy) of the twisted plane (dimensions 0, 1) as INSEE's dtt_rr picks it. */
static void plane_offsets(const torus *q, int64_t dx0, int64_t dy0, uint64_t salt, uint32_t flip, unsigned tb,
                          int32_t *dx, int32_t *dy)
{
    int32_t ax = ring_min_tie(dx0, q->k[0], salt, flip, tb, 0);
    int32_t ay = (int32_t)dy0;
    *dx = ax;
    *dy = ay;
    if (dy0 == 0)
        return;
    int s = dy0 > 0 ? -1 : 1; /* direction the wrap link is crossed in */
    int32_t by = (int32_t)(dy0 + s * (int64_t)q->k[1]);
    int32_t bx = ring_min_tie(dx0 - s * (int64_t)q->twist, q->k[0], salt, flip, tb, 1);
    int32_t la = iabs32(ax) + iabs32(ay), lb = iabs32(bx) + iabs32(by);
    if (lb < la || (lb == la && tie(salt, flip, 2))) {
        *dx = bx;
        *dy = by;
    }
}

/* The minimal displacement a -> b (ties from the salt's bits tb.., flipped by flip) into off[]. */
static void offsets(const torus *q, uint32_t a, uint32_t b, uint64_t salt, uint32_t flip, unsigned tb, int32_t *off)
{
    uint32_t d0 = 0;
    if (q->n >= 2) {
        plane_offsets(q, (int64_t)coord(q, b, 0) - coord(q, a, 0), (int64_t)coord(q, b, 1) - coord(q, a, 1), salt,
                      flip, tb, &off[0], &off[1]);
        d0 = 2;
    }
    for (uint32_t d = d0; d < q->n; d++)
        off[d] = ring_min_tie((int64_t)coord(q, b, d) - coord(q, a, d), q->k[d], salt, flip, tb, 3 + d);
}

static void hdr_flip(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t flip, topo_hdr *h)
{
    const torus *q = T(t);
    TN_ASSERT(src < t->hosts && dst < t->hosts, "torus: %u -> %u of %u hosts", src, dst, t->hosts);
    memset(h, 0, sizeof *h);
    h->src = src;
    h->dst = dst;
    h->salt = salt;
    offsets(q, src, dst, salt, flip, 0, h->off);
}

/* The switch off[] leads to from v (walked hop by hop: a twisted wrap moves dimension 0 too). */
static uint32_t walk_to(const torus *q, uint32_t v, const int32_t *off)
{
    for (uint32_t d = 0; d < q->n; d++)
        for (int32_t i = 0; i < iabs32(off[d]); i++)
            v = neighbour(q, v, d, off[d] > 0 ? 1 : -1);
    return v;
}

/* valiant, romm: phase 0 heads from the source to h->mid with off[] its
 * displacement (valiant: mid drawn uniformly among all switches, the
 * source and destination included, as BookSim2's valiant_torus draws
 * RandomInt(gNodes - 1); romm: for every dimension a share of the minimal
 * displacement o_d drawn uniformly in 0..|o_d| with o_d's sign, as
 * BookSim2's rand_min_intr_mesh draws the intermediate in the minimal
 * quadrant); at mid (all offsets 0 in phase 0) phase 1 takes the minimal
 * displacement mid -> dst (its own ties, TIE_PHASE1). */
static void hdr_init(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, topo_hdr *h)
{
    const torus *q = T(t);
    hdr_flip(t, src, dst, salt, 0, h);
    if (q->routing == TOPO_TORUS_VALIANT) {
        h->mid = topo_pick(salt, PICK_MID, t->hosts);
        offsets(q, src, h->mid, salt, 0, 0, h->off);
    } else if (q->routing == TOPO_TORUS_ROMM) {
        for (uint32_t d = 0; d < q->n; d++) {
            int32_t m = (int32_t)topo_pick(salt, PICK_QUADRANT + d, (uint32_t)iabs32(h->off[d]) + 1);
            h->off[d] = h->off[d] < 0 ? -m : m;
        }
        h->mid = walk_to(q, src, h->off);
    }
}

/* valiant, romm at the intermediate: the second phase's record */
static void phase1(const torus *q, uint32_t sw, topo_hdr *h)
{
    TN_ASSERT(sw == h->mid, "torus: phase 0 of %u -> %u ends at %u, not at %u", h->src, h->dst, sw, h->mid);
    h->phase = 1;
    offsets(q, sw, h->dst, h->salt, 0, TIE_PHASE1, h->off);
}

/* The other records of src -> dst (topo_fail.c), i = 0 the salt's own:
 *   the minimal ones: every combination of the ties that can arise (the
 *     three of the plane, dimensions 0 and 1, when n >= 2; for each other
 *     dimension d the direction when its offset is exactly k_d / 2), in
 *     the low bits of i;
 *   then the long way round: a dimension whose offset o is not 0 nor a tie
 *     may be crossed the other way, o - k_d sign(o) hops (each dimension a
 *     bit of i above the ties; not dimensions 0 and 1 of a twisted torus,
 *     nor under dateline="ring", whose proof needs minimal traversals).
 * Why the long way keeps the per-hop dateline classes deadlock-free: the
 * proof in the head needs only that a traversal of dimension d crosses its
 * wrap link at most once, true of any |o| < k_d; the classes are read from
 * the position at every hop as before. Routes are then at most
 * sum (k_d - 1) switch-to-switch links (topo_fail.c's max_route_links). */
static int hdr_alt(const topo *t, uint32_t src, uint32_t dst, uint64_t salt, uint32_t i, topo_hdr *h)
{
    const torus *q = T(t);
    unsigned pos[3 + TOPO_MAX_DIMS], m = 0, nl = 0;
    uint32_t dl[TOPO_MAX_DIMS];
    uint32_t d0 = 0;
    if (q->n >= 2) {
        pos[m++] = 0, pos[m++] = 1, pos[m++] = 2;
        d0 = 2;
    }
    for (uint32_t d = 0; d < q->n; d++) {
        int64_t diff = (int64_t)coord(q, dst, d) - coord(q, src, d), k = q->k[d];
        int64_t r = ((diff % k) + k) % k;
        int tied = k % 2 == 0 && r == k / 2;
        if (d >= d0 && tied)
            pos[m++] = 3 + d;
        if (r != 0 && !tied && !q->dateline_ring && (d >= 2 || !q->twist))
            dl[nl++] = d;
    }
    if (m + nl > 20) /* at most 2^20 records (a 17-dimensional torus's) */
        nl = m > 20 ? 0 : 20 - m, m = m > 20 ? 20 : m;
    if (i >> (m + nl))
        return 0;
    uint32_t flip = 0;
    for (unsigned b = 0; b < m; b++)
        flip |= ((i >> b) & 1u) << pos[b];
    hdr_flip(t, src, dst, salt, flip, h);
    for (unsigned b = 0; b < nl; b++)
        if ((i >> (m + b)) & 1u) {
            uint32_t d = dl[b];
            h->off[d] = h->off[d] > 0 ? h->off[d] - (int32_t)q->k[d] : h->off[d] + (int32_t)q->k[d];
        }
    return 1;
}

/* Dateline class of a hop of dimension d from v with off hops to go (off != 0). */
static uint8_t dateline_vc(const torus *q, uint32_t v, uint32_t d, int32_t off)
{
    int64_t end = (int64_t)coord(q, v, d) + off;
    return (uint8_t)(end >= (int64_t)q->k[d] || end < 0);
}

/* The class of a whole traversal of dimension d (network.dateline="ring",
 * BookSim2's dor_next_torus): 1 when the minimal route from the source's to
 * the destination's coordinate in d crosses the wrap link (going +: the
 * source's coordinate is above the destination's; going -: below), for
 * every hop of the ring, before and after the wrap. Under DOR a packet
 * enters dimension d at the source's coordinate in d (lower dimensions
 * change only their own coordinates; no twist). */
static uint8_t ring_vc(const torus *q, const topo_hdr *h, uint32_t d, int32_t off)
{
    uint32_t a = h->src, b = h->dst; /* valiant, romm: the phase's ends */
    if (q->routing >= TOPO_TORUS_VALIANT) {
        if (h->phase)
            a = h->mid;
        else
            b = h->mid;
    }
    uint32_t s = coord(q, a, d), e = coord(q, b, d);
    return (uint8_t)(off > 0 ? s > e : s < e);
}

static unsigned next(const topo *t, uint32_t sw, const topo_hdr *h, topo_hop *out)
{
    const torus *q = T(t);
    topo_hdr h1;
again:;
    uint32_t left = 0;
    int lo = -1, hi = -1;
    for (uint32_t d = 0; d < q->n; d++) {
        if (h->off[d]) {
            left += (uint32_t)iabs32(h->off[d]);
            if (lo < 0)
                lo = (int)d;
            hi = (int)d;
        }
    }
    if (lo < 0) {
        if (q->routing >= TOPO_TORUS_VALIANT && !h->phase) { /* at the intermediate: phase 1 */
            h1 = *h;
            phase1(q, sw, &h1);
            h = &h1;
            goto again;
        }
        TN_ASSERT(sw == h->dst, "torus: packet for %u has no hop left at %u", h->dst, sw);
        out[0] = (topo_hop){.port = 0, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 0};
        return 1;
    }
    uint16_t hl = (uint16_t)(left > UINT16_MAX ? UINT16_MAX : left);
    if (q->routing != TOPO_TORUS_ADAPTIVE) { /* dor; valiant and romm: dor within a phase */
        int32_t o = h->off[lo];
        out[0] = (topo_hop){.port = (uint32_t)(1 + 2 * lo + (o < 0)),
                            .vc = (uint8_t)((q->dateline_ring ? ring_vc(q, h, (uint32_t)lo, o)
                                                              : dateline_vc(q, sw, (uint32_t)lo, o)) +
                                            VC_PHASE * h->phase),
                            .kind = TOPO_HOP_ONLY,
                            .hops_left = hl};
        return 1;
    }
    unsigned n = 0;
    for (uint32_t d = 0; d < q->n; d++)
        if (h->off[d])
            out[n++] = (topo_hop){.port = 1 + 2 * d + (h->off[d] < 0),
                                  .vc = VC_ADAPTIVE,
                                  .kind = TOPO_HOP_ADAPTIVE,
                                  .hops_left = hl};
    int32_t o = h->off[hi];
    out[n++] = (topo_hop){.port = (uint32_t)(1 + 2 * hi + (o < 0)),
                          .vc = dateline_vc(q, sw, (uint32_t)hi, o),
                          .kind = TOPO_HOP_ESCAPE,
                          .hops_left = hl};
    return n;
}

/* The route table's contract (topo.h next_dst): dor on a plain torus
 * (no twist) with per-hop datelines decides every hop from (sw, dst) but
 * one: a packet's remaining offsets at a switch of its route are the
 * minimal displacement sw -> dst in every dimension (those not yet
 * travelled still hold the source's coordinate, as sw does; the one being
 * travelled has fewer than k/2 hops left once it has moved, and a
 * displacement below k/2 is the unique minimal one), except a dimension
 * whose displacement is exactly k/2 (even k): the salt's tie then decides
 * its direction, so a hop that starts such a dimension depends on the
 * record (0). Per-hop datelines: the class is dateline_vc's, a function
 * of the position and the offset. dateline="ring" (ring_vc: 1 for the whole
 * traversal of a dimension that crosses its wrap link): going + from x
 * with r hops left to e, the traversal crosses the wrap if the rest does
 * (x > e: class 1), else if it did before x, i.e. it started at s = x - m
 * < 0 after m <= k/2 - r hops; when x >= k/2 - r it cannot have (class 0),
 * otherwise the source decides (0: ask the record); going -, mirrored
 * (x < e: 1; k - 1 - x >= k/2 - r: 0). hops_left sums |offsets| (a tie
 * counts k/2 either way). Valiant and romm depend on the intermediate,
 * adaptive offers several, a twisted wrap moves dimension 0: not such
 * routings. */
static int dst_routed(const topo *t)
{
    const torus *q = T(t);
    return q->routing == TOPO_TORUS_DOR && !q->twist;
}

static int next_dst(const topo *t, uint32_t sw, uint32_t dst, topo_hop *out)
{
    const torus *q = T(t);
    uint32_t left = 0;
    int lo = -1, tie = 0;
    int32_t olo = 0;
    uint32_t xlo = 0, elo = 0, klo = 0;
    for (uint32_t d = 0; d < q->n; d++) {
        uint32_t k = q->k[d], a = coord(q, sw, d), b = coord(q, dst, d);
        uint32_t r = b >= a ? b - a : b + k - a; /* + hops, 0 .. k-1 */
        if (!r)
            continue;
        int32_t o = r < k - r ? (int32_t)r : -(int32_t)(k - r);
        left += r < k - r ? r : k - r;
        if (lo < 0) {
            lo = (int)d;
            olo = o;
            tie = r == k - r;
            xlo = a, elo = b, klo = k;
        }
    }
    if (lo < 0) {
        out[0] = (topo_hop){.port = 0, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 0};
        return 1;
    }
    if (tie)
        return 0;
    uint8_t vc;
    if (q->dateline_ring) {
        uint32_t r = (uint32_t)(olo < 0 ? -olo : olo), half = klo / 2; /* r < k/2 here: no tie */
        if (olo > 0 ? xlo > elo : xlo < elo)
            vc = 1; /* the rest crosses the wrap */
        else if ((olo > 0 ? xlo : klo - 1 - xlo) >= half - r)
            vc = 0; /* it cannot have crossed it before */
        else
            return 0; /* the source decides */
    } else
        vc = dateline_vc(q, sw, (uint32_t)lo, olo);
    out[0] = (topo_hop){.port = (uint32_t)(1 + 2 * lo + (olo < 0)),
                        .vc = vc,
                        .kind = TOPO_HOP_ONLY,
                        .hops_left = (uint16_t)(left > UINT16_MAX ? UINT16_MAX : left)};
    return 1;
}

/* Route words (topo.h rec_word/next_word): dor on a plain torus, as
 * next_dst above, with the two choices of the record that the destination
 * does not decide kept in a word fixed at the source: bit 2d the direction
 * of dimension d (1: -; its offset's sign at the source, a tie's drawn
 * from the salt), bit 2d + 1 its class under dateline="ring" (ring_vc at
 * the source: the traversal crosses the wrap link; the same for every hop
 * of it). At a switch sw of the route, the dimensions before the one being
 * travelled are done (sw's coordinate is dst's) and the later ones still
 * hold the source's coordinate, so the record's offset of dimension d,
 * after whatever takes brought the packet to sw, is the displacement sw ->
 * dst in d taken in the word's direction: (b - a) mod k going +, (a - b)
 * mod k going - (0 when a = b: the record's offset is then 0 too, as a
 * minimal traversal never comes back to its start). next's hop follows:
 * the lowest dimension with an offset, its port, its class (the word's
 * bit under dateline="ring", dateline_vc of the offset per hop), hops_left
 * the sum of the |offsets|; none left: the host port. */
static inline uint32_t wcoord(const torus *q, uint32_t v, uint32_t d)
{
    return q->cc ? q->cc[(size_t)v * q->n + d] : coord(q, v, d);
}

/* rec_word's two bits of dimension d for source coordinate a and
 * destination coordinate b, with WT_TIE where a tie leaves the direction to
 * the salt (then the bits of going +). Without a twist, offsets (hdr_init's
 * record, dor) gives dimension d the least |o| congruent to b - a modulo
 * k_d, and at a tie (2 ((b - a) mod k_d) = k_d) the salt's bit decides:
 * ring_min_tie's bit (3 + d, and 0 or 1 for dimension 0 of a plane) gives
 * - when set; in the plane (dimensions 0, 1), |ax| = |bx| without a twist,
 * so y's offset is the lesser of |dy| and |dy -+ k_1| (dy = b - a, not
 * reduced), a tie (2 |dy| = k_1) taking dy on bit 2 clear and dy -+ k_1 on
 * bit 2 set, and x's tie then reads bit 1 when y took dy -+ k_1 (o_y's
 * sign is not dy's), bit 0 otherwise. The word
 * of a traversal going - differs from going + in its direction bit and,
 * under dateline="ring", in its class (a != b: exactly one way crosses the
 * wrap link): WT_FLIP(q). test_torus_route_words compares every pair's word
 * with hdr_init's record for 64 salts. */
#define WT_TIE 4u
#define WT_FLIP(q) ((q)->dateline_ring ? 3u : 1u)
static uint8_t wt_bits(const torus *q, uint32_t d, uint32_t a, uint32_t b)
{
    uint32_t k = q->k[d], r = b >= a ? b - a : b + k - a;
    if (r == 0)
        return 0;
    int32_t o = 2 * r <= k ? (int32_t)r : (int32_t)r - (int32_t)k; /* a tie: + */
    uint8_t w = (uint8_t)(o < 0);
    if (q->dateline_ring)
        w |= (uint8_t)((o > 0 ? a > b : a < b) << 1);
    return (uint8_t)(w | (2 * r == k ? WT_TIE : 0));
}

/* the table: with the coordinates' (cc), up to 2^20 entries */
static void wt_make(torus *q)
{
    uint64_t size = 0;
    for (uint32_t d = 0; d < q->n; d++) {
        q->wt_at[d] = (uint32_t)size;
        size += (uint64_t)q->k[d] * q->k[d];
    }
    if (!q->cc || size > (UINT64_C(1) << 20))
        return;
    q->wt = tn_xmalloc((size_t)size);
    for (uint32_t d = 0; d < q->n; d++)
        for (uint32_t a = 0; a < q->k[d]; a++)
            for (uint32_t b = 0; b < q->k[d]; b++)
                q->wt[q->wt_at[d] + (size_t)a * q->k[d] + b] = wt_bits(q, d, a, b);
}

/* dimension d's entry, its tie decided by the salt's bit j */
static inline uint32_t wt_word(const torus *q, uint32_t e, uint64_t salt, unsigned j)
{
    if (__builtin_expect(e & WT_TIE, 0) && topo_pick(salt, j, 2))
        e ^= WT_FLIP(q);
    return e & 3u;
}

static uint32_t rec_word(const topo *t, uint32_t src, uint32_t dst, uint64_t salt)
{
    const torus *q = T(t);
    if (q->wt) {
        const uint16_t *a = &q->cc[(size_t)src * q->n], *b = &q->cc[(size_t)dst * q->n];
        uint32_t w = 0, d0 = 0;
        if (q->n >= 2) {
            /* y: a tie takes dy's sign, or dy -+ k_1 on bit 2 */
            uint32_t wy = q->wt[q->wt_at[1] + (size_t)a[1] * q->k[1] + b[1]];
            if (__builtin_expect(wy & WT_TIE, 0) && (topo_pick(salt, 2, 2) ^ (b[1] < a[1])))
                wy ^= WT_FLIP(q);
            wy &= 3u;
            /* y took dy -+ k_1 when its direction is not dy's sign */
            unsigned wrap = a[1] != b[1] && (wy & 1u) != (b[1] < a[1]);
            w = wt_word(q, q->wt[(size_t)a[0] * q->k[0] + b[0]], salt, wrap) | wy << 2;
            d0 = 2;
        }
        for (uint32_t d = d0; d < q->n; d++)
            w |= wt_word(q, q->wt[q->wt_at[d] + (size_t)a[d] * q->k[d] + b[d]], salt, 3 + d) << (2 * d);
        return w;
    }
    int32_t off[TOPO_MAX_DIMS];
    offsets(q, src, dst, salt, 0, 0, off); /* hdr_init's (dor) */
    uint32_t w = 0;
    for (uint32_t d = 0; d < q->n; d++) {
        int32_t o = off[d];
        if (!o)
            continue;
        w |= (uint32_t)(o < 0) << (2 * d);
        if (q->dateline_ring) { /* ring_vc */
            uint32_t s = wcoord(q, src, d), e = wcoord(q, dst, d);
            w |= (uint32_t)(o > 0 ? s > e : s < e) << (2 * d + 1);
        }
    }
    return w;
}

static void next_word(const topo *t, uint32_t sw, uint32_t dst, uint32_t w, topo_hop *out)
{
    const torus *q = T(t);
    uint32_t left = 0, alo = 0;
    int lo = -1;
    int32_t olo = 0;
    if (q->n == 2 && q->cc) { /* the plane with the table: the loop below, unrolled */
        const uint16_t *A = &q->cc[(size_t)sw * 2], *B = &q->cc[(size_t)dst * 2];
        uint32_t a0 = A[0], b0 = B[0], a1 = A[1], b1 = B[1], k0 = q->k[0], k1 = q->k[1];
        int32_t o0 = a0 == b0 ? 0 : w & 1u ? -(int32_t)(a0 > b0 ? a0 - b0 : a0 + k0 - b0)
                                           : (int32_t)(b0 > a0 ? b0 - a0 : b0 + k0 - a0);
        int32_t o1 = a1 == b1 ? 0 : (w >> 2) & 1u ? -(int32_t)(a1 > b1 ? a1 - b1 : a1 + k1 - b1)
                                                  : (int32_t)(b1 > a1 ? b1 - a1 : b1 + k1 - a1);
        left = (uint32_t)iabs32(o0) + (uint32_t)iabs32(o1);
        if (o0) {
            lo = 0;
            olo = o0;
            alo = a0;
        } else if (o1) {
            lo = 1;
            olo = o1;
            alo = a1;
        }
    } else {
    /* the coordinates from the table (wcoord's) when there is one, tested once */
    const uint16_t *A = q->cc ? &q->cc[(size_t)sw * q->n] : NULL, *B = q->cc ? &q->cc[(size_t)dst * q->n] : NULL;
    for (uint32_t d = 0; d < q->n; d++) {
        uint32_t k = q->k[d], a = A ? A[d] : coord(q, sw, d), b = B ? B[d] : coord(q, dst, d);
        if (a == b)
            continue;
        int32_t o = (w >> (2 * d)) & 1u ? -(int32_t)(a > b ? a - b : a + k - b) : (int32_t)(b > a ? b - a : b + k - a);
        left += (uint32_t)iabs32(o);
        if (lo < 0) {
            lo = (int)d;
            olo = o;
            alo = a;
        }
    }
    }
    if (lo < 0) {
        out[0] = (topo_hop){.port = 0, .vc = 0, .kind = TOPO_HOP_ONLY, .hops_left = 0};
        return;
    }
    int64_t end = (int64_t)alo + olo; /* dateline_vc(q, sw, lo, olo), sw's coordinate at hand */
    out[0] = (topo_hop){.port = (uint32_t)(1 + 2 * lo + (olo < 0)),
                        .vc = q->dateline_ring ? (uint8_t)((w >> (2 * lo + 1)) & 1u)
                                               : (uint8_t)(end >= (int64_t)q->k[lo] || end < 0),
                        .kind = TOPO_HOP_ONLY,
                        .hops_left = (uint16_t)(left > UINT16_MAX ? UINT16_MAX : left)};
}

/* adaptive: the adaptive candidate the router finds the most room on (the
 * output-queued core: room for the packet in the next buffer now, the
 * least loaded; the input-queued router: a free output VC, the most
 * credits), else the escape, which waits (Duato) */
static unsigned choose(const topo *t, uint32_t sw, const topo_hdr *h, const topo_hop *c, unsigned n,
                       const topo_probe *pr)
{
    (void)t, (void)h;
    TN_ASSERT(c[n - 1].kind == TOPO_HOP_ESCAPE, "torus: %u candidates at switch %u without an escape", n, sw);
    return topo_choose_room_or_last(c, n, pr);
}

static void take(const topo *t, uint32_t sw, const topo_hop *c, topo_hdr *h)
{
    if (c->port == 0)
        return;
    uint32_t d = (c->port - 1) / 2;
    TN_ASSERT(d < T(t)->n, "torus: port %u", c->port);
    if (!h->off[d] && T(t)->routing >= TOPO_TORUS_VALIANT && !h->phase) /* leaving the intermediate */
        phase1(T(t), sw, h);
    if ((c->port - 1) % 2 == 0) {
        TN_ASSERT(h->off[d] > 0, "torus: + hop in dimension %u with %d to go", d, h->off[d]);
        h->off[d]--;
    } else {
        TN_ASSERT(h->off[d] < 0, "torus: - hop in dimension %u with %d to go", d, h->off[d]);
        h->off[d]++;
    }
}

/* Expected + hops of one ring of k under a uniform offset, ties split. */
static double ring_plus_hops(uint32_t k)
{
    return k % 2 == 0 ? k / 8.0 : ((double)k * k - 1) / (8.0 * k);
}

static double uniform_bound(const topo *t)
{
    const torus *q = T(t);
    double worst = 0;
    uint32_t d0 = 0;
    if (q->n >= 2) {
        /* the plane of dimensions 0 and 1, enumerated with the routing's
         * probabilities (closed form k/8 when t = 0) */
        double e[4] = {0, 0, 0, 0}; /* X+, X-, Y+, Y- hops summed over destinations */
        uint32_t k0 = q->k[0], k1 = q->k[1];
        for (uint32_t y = 0; y < k1; y++) {
            for (uint32_t x = 0; x < k0; x++) {
                /* every outcome of the three salt bits has probability 1/8 */
                for (unsigned b = 0; b < 8; b++) {
                    int32_t dx, dy;
                    int32_t ax = ring_min(x, k0, b & 1);
                    dx = ax;
                    dy = (int32_t)y;
                    if (y != 0) {
                        int32_t by = (int32_t)y - (int32_t)k1; /* s = -1 */
                        int32_t bx = ring_min((int64_t)x + q->twist, k0, (b >> 1) & 1);
                        int32_t la = iabs32(ax) + (int32_t)y, lb = iabs32(bx) + iabs32(by);
                        if (lb < la || (lb == la && (b >> 2))) {
                            dx = bx;
                            dy = by;
                        }
                    }
                    e[dx > 0 ? 0 : 1] += iabs32(dx) / 8.0;
                    e[dy > 0 ? 2 : 3] += iabs32(dy) / 8.0;
                }
            }
        }
        for (int i = 0; i < 4; i++)
            if (e[i] / ((double)k0 * k1) > worst)
                worst = e[i] / ((double)k0 * k1);
        d0 = 2;
    }
    for (uint32_t d = d0; d < q->n; d++)
        if (ring_plus_hops(q->k[d]) > worst)
            worst = ring_plus_hops(q->k[d]);
    double N = t->hosts;
    /* valiant: each phase's displacement is uniform over the whole torus (the
     * intermediate is uniform and independent of the source and of the
     * destination), so each phase puts worst on a link, without the N / (N-1) */
    double load = q->routing == TOPO_TORUS_VALIANT ? 2 * worst : worst * N / (N - 1);
    return load > 1 ? 1 / load : 1;
}

static void fini(topo *t)
{
    free(((torus *)t->priv)->cc);
    free(((torus *)t->priv)->wt);
    free(t->priv);
}

/* valiant and romm: no hdr_alt. Their record carries an intermediate and a
 * phase, which hdr_alt's records (the other minimal displacements src ->
 * dst) lack: a failed link's detour would start them without an
 * intermediate (phase 0 would end at the destination, not at mid). Without
 * hdr_alt, topo_fail_init refuses network.failed-links for them. */
#define TORUS_OPS(alt)                                                                                                \
    {                                                                                                                  \
        .name = "torus", .radix = radix, .port_base = port_base, .locate = locate, .attach = attach, .peer = peer,     \
        .hdr_init = hdr_init, .next = next, .take = take, .choose = choose, .uniform_bound = uniform_bound,            \
        .fini = fini, .hdr_alt = alt, .dst_routed = dst_routed, .next_dst = next_dst,                                  \
        .rec_word = rec_word, .next_word = next_word,                                                                  \
    }
static const topo_ops torus_ops = TORUS_OPS(hdr_alt);
static const topo_ops torus_phased_ops = TORUS_OPS(NULL);

int topo_torus_check(const topo_torus_params *p, char *err, size_t errlen)
{
    if (p->ndims < 1 || p->ndims > TOPO_MAX_DIMS)
        return tn_error(err, errlen, "torus: dims has %u sizes; 1 to %d are supported", p->ndims,
                        TOPO_MAX_DIMS);
    uint64_t n = 1;
    for (uint32_t d = 0; d < p->ndims; d++) {
        if (p->dims[d] < 2)
            return tn_error(err, errlen, "torus: dimension %u has size %u; each needs at least 2",
                            d, p->dims[d]);
        n *= p->dims[d];
        if (n > TOPO_MAX_HOSTS)
            return tn_error(err, errlen, "torus: more than %u hosts", TOPO_MAX_HOSTS);
    }
    if (n < 2)
        return tn_error(err, errlen, "torus: needs at least 2 hosts");
    if (p->twist) {
        if (p->ndims < 2)
            return tn_error(err, errlen, "torus: twist=%u needs at least 2 dimensions", p->twist);
        if (p->twist >= p->dims[0])
            return tn_error(err, errlen, "torus: twist=%u must be less than the first size %u",
                            p->twist, p->dims[0]);
        if (p->dims[0] > 2 * (uint64_t)p->dims[1])
            return tn_error(err, errlen,
                            "torus: twist needs the first size (%u) at most twice the second (%u) "
                            "for its routes to be shortest paths",
                            p->dims[0], p->dims[1]);
    }
    if ((unsigned)p->routing > TOPO_TORUS_ROMM)
        return tn_error(err, errlen, "torus: unknown routing %d", (int)p->routing);
    if (p->dateline_ring && (p->routing == TOPO_TORUS_ADAPTIVE || p->twist))
        return tn_error(err, errlen, "torus: dateline=ring (classes per ring, as BookSim2) is dimension-order "
                                     "routing's (dor, valiant, romm) on a plain torus (%s)",
                        p->twist ? "a twisted wrap shifts dimension 0" : "adaptive routing's escape is per hop");
    return 0;
}

int topo_torus_init(topo *t, const topo_torus_params *p, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (topo_torus_check(p, err, errlen) != 0)
        return -1;
    torus *q = tn_xcalloc(1, sizeof *q);
    q->n = p->ndims;
    q->twist = p->twist;
    q->routing = p->routing;
    q->dateline_ring = p->dateline_ring;
    uint32_t stride = 1, hops = 0;
    for (uint32_t d = 0; d < q->n; d++) {
        q->k[d] = p->dims[d];
        q->stride[d] = stride;
        q->dk[d] = topo_div_make(p->dims[d]);
        q->dstride[d] = topo_div_make(stride);
        stride *= p->dims[d];
        hops += p->dims[d] / 2;
    }
    t->ops = p->routing >= TOPO_TORUS_VALIANT ? &torus_phased_ops : &torus_ops;
    t->priv = q;
    t->hosts = stride;
    t->switches = stride;
    t->max_radix = 2 * q->n + 1;
    t->links = stride + stride * (2 * q->n + 1);
    t->max_route_links = (p->routing == TOPO_TORUS_VALIANT ? 2 * hops : hops) + 2;
    t->vcs = topo_torus_classes(p->routing);
    t->routing = (uint8_t)p->routing;
    t->adaptive = p->routing == TOPO_TORUS_ADAPTIVE;
    /* route words' coordinates (next_word reads four a hop): up to 2^20 of them (2 MB) */
    int small = (uint64_t)stride * q->n <= (UINT64_C(1) << 20);
    for (uint32_t d = 0; d < q->n; d++)
        small = small && q->k[d] <= UINT16_MAX;
    if (dst_routed(t) && small) {
        q->cc = tn_xmalloc((size_t)stride * q->n * sizeof *q->cc);
        for (uint32_t v = 0; v < stride; v++)
            for (uint32_t d = 0; d < q->n; d++)
                q->cc[(size_t)v * q->n + d] = (uint16_t)coord(q, v, d);
        wt_make(q);
    }
    return 0;
}
