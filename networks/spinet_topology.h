/* SPINet fabric: the wiring of the multistage network of bufferless 2x2
 * elements, its routing table, its static paths, and the fabric's counters
 * (read by tests and by the metrics op of net_spinet.c).
 *
 * Layout: N = 2^n nodes, E = N/2 elements per stage, S = n + extra stages,
 * stages 0..S-1. Node k enters stage 0 element k/2 on input k%2 and leaves
 * stage S-1 element k/2 from output k%2.
 * Wiring (LWSim's, shifts on a ring of E elements): transition t (stage t ->
 * stage t+1, t = 0..S-2) has a shift d_t; element j's output 0 feeds element
 * j (input 0) and its output 1 feeds element (j + d_t) mod E (input 1).
 *   normal transitions t = 0..n-2:      d_t = 2^t
 *   extra transitions  t = n-1..S-2:    d_t = 2^((t - n + 1) mod log2(E))
 *   (N = 2: log2(E) = 0, d_t = 0: both outputs feed the one element)
 * The normal shifts 1, 2, ..., E/2 write every offset mod E exactly once in
 * binary, so without extra stages each (source element, destination) pair has
 * one path; an extra transition adds an independent 0-or-d_t term, which
 * doubles the paths of every pair (checked by enumeration in check_spinet).
 * The first extra shift is 1, then 2, 4, ... so extra paths differ in many
 * elements, not only in one link.
 *
 * Routing: route(s, j, d) has bit o set when output o of element j at stage s
 * leads to node d (LWSim builds it by a breadth-first search from every
 * destination). The wiring is translation-invariant: j -> j + c (mod E) maps
 * every link of every transition onto a link of the same transition and the
 * same output index, since both outputs of j feed j and j + d_t. So output o
 * of (s, j) reaches the last-stage element d/2 exactly when output o of
 * (s, j - d/2) reaches element 0: route(s, j, d) = R[s][(j - d/2) mod E] for
 * s < S-1, with R the table of destination 0 (one backward search, O(S E)
 * time and (S-1) E bytes), and at the last stage route = 1 << (d % 2) on
 * element d/2, 0 elsewhere. check_spinet compares it with the full per-
 * destination BFS tables for 4 to 1024 nodes and 0 to 3 extra stages.
 * Memory: 65,536 nodes, S = 16: 15 x 32768 B = 480 KiB (the full table of
 * S x E x N 2-bit entries was 8 GiB; 8,192 nodes took 104 MiB).
 *
 * Static paths (for congestion metrics), in the link layout of
 * net_spinet.c's route op: directed link ids, host links included, all in
 * [0, (S+1) N):
 *   uplink of node k (node -> stage 0, element k/2, input k%2):  k
 *   downlink (stage S-1, element k/2, output k%2 -> node k):     N + k
 *   output o of element j of stage s < S-1 (its hop to s+1):     2N + (s E + j) 2 + o
 * spinet_topo_path: the uplink, the S-1 inter-stage links of the first path
 * (output 0 wherever both outputs lead to the destination) and the downlink:
 * S + 1 links crossing S elements. */
#ifndef TASKNET_SPINET_TOPOLOGY_H
#define TASKNET_SPINET_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

typedef struct spinet_topo {
    uint32_t nodes;    /* N, a power of two >= 2 */
    uint32_t elems;    /* E = N/2 elements per stage */
    uint32_t log2_n;   /* n = log2(N): normal stages */
    uint32_t extra;    /* extra stages */
    uint32_t stages;   /* S = n + extra */
    uint32_t *shift;   /* [S-1] d_t: element offset reached by output 1 of transition t */
    uint8_t *route;    /* [(S-1) E] R[s][r]: outputs of (s, r) leading to element 0 of stage S-1 */
} spinet_topo;

/* Largest routing table accepted (bytes), so a typo in `nodes` fails cleanly. */
#define SPINET_TOPO_MAX_TABLE_BYTES ((size_t)1 << 28)
/* Largest fabric accepted (nodes): at 2^20 a fabric's per-element state
 * (net_spinet.c keeps 18 B per element) is 20 x 2^19 x 18 B = 189 MB. */
#define SPINET_TOPO_MAX_NODES (UINT32_C(1) << 20)

/* 0, or -1 with the reason: nodes not a power of two >= 2, extra > 32,
 * routing table beyond SPINET_TOPO_MAX_TABLE_BYTES, or nodes beyond
 * SPINET_TOPO_MAX_NODES. Nothing is allocated. */
int spinet_topo_check(uint32_t nodes, uint32_t extra, char *err, size_t errlen);
/* Build wiring and routing table: 0, or -1 with the reason of
 * spinet_topo_check (nothing is then allocated). */
int spinet_topo_init(spinet_topo *t, uint32_t nodes, uint32_t extra, char *err, size_t errlen);
void spinet_topo_free(spinet_topo *t);

/* Element of stage + 1 fed by output `out` (0/1) of element `elem` of `stage` (< S-1). */
static inline uint32_t spinet_topo_next(const spinet_topo *t, uint32_t stage, uint32_t elem,
                                        unsigned out)
{
    return out ? (elem + t->shift[stage]) & (t->elems - 1) : elem;
}

/* Outputs of (stage, elem) that lead to node dst: bit 0 = output 0, bit 1 = output 1. */
static inline unsigned spinet_topo_route(const spinet_topo *t, uint32_t stage, uint32_t elem,
                                         uint32_t dst)
{
    uint32_t rel = (elem - (dst >> 1)) & (t->elems - 1);
    if (stage + 1 == t->stages)
        return rel == 0 ? 1u << (dst & 1) : 0u;
    return t->route[(size_t)stage * t->elems + rel];
}

/* Directed links of the fabric, host links included: (S + 1) N. */
static inline uint64_t spinet_topo_links(const spinet_topo *t)
{
    return ((uint64_t)t->stages + 1) * t->nodes;
}

/* The static path from node src to node dst (both < N): writes its S + 1
 * link ids (layout above) to links[] if they fit in max, and returns S + 1,
 * the number of links (net_ops.route's contract); the elements crossed are S. */
size_t spinet_topo_path(const spinet_topo *t, uint32_t src, uint32_t dst, uint64_t *links, size_t max);

/* Counters of one SPINet instance (the standard ones also go to the metrics). */
typedef struct spinet_stats {
    uint64_t packets;          /* packets cut from messages */
    uint64_t packets_delivered; /* packets received intact (each once) */
    uint64_t tries;            /* transmissions started, retransmissions included */
    uint64_t tries_delivered;  /* sum of the tries of delivered packets */
    uint64_t retransmissions;  /* tries beyond the first */
    uint64_t dropped;          /* tries refused by a busy output (contention) */
    uint64_t phy_losses;       /* tries that arrived corrupted (bit errors) */
    uint64_t edge_full_msgs;   /* messages that found their edge FIFO full and waited in host memory */
    int64_t edge_wait_ps;      /* total time those messages waited until their last bit entered the FIFO */
    double bits_emitted;       /* bits put on the fabric, every try, truncated by fast NACKs */
    double bits_delivered;     /* payload bits of delivered packets */
    double energy_j;           /* bits_emitted * energy_per_bit_j */
} spinet_stats;

/* Copy the counters of a SPINet instance (state given to net_spinet_ops.init). */
void spinet_get_stats(const void *state, spinet_stats *out);

#endif
