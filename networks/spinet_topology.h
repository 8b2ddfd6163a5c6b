/* SPINet fabric: the wiring of the multistage network of bufferless 2x2
 * elements, its routing tables, and the fabric's counters (read by tests and
 * by the metrics op of net_spinet.c).
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
 * Routing: route(s, j, d) has bit o set when output o of element j at stage s
 * leads to node d; built by a backward breadth-first search from every
 * destination (the graph is layered, so BFS visits it stage by stage). */
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
    uint8_t *route;    /* packed 2 bits per (stage, element, destination), 4 per byte */
} spinet_topo;

/* Largest routing table accepted (bytes), so a typo in `nodes` fails cleanly. */
#define SPINET_TOPO_MAX_TABLE_BYTES ((size_t)1 << 28)

/* Build wiring and routing tables. 0, or -1 with a message (N not a power of
 * two or < 2, table too large). */
/* 0, or -1 with the reason: nodes not a power of two >= 2, extra > 32, or
 * routing tables beyond SPINET_TOPO_MAX_TABLE_BYTES. Nothing is allocated. */
int spinet_topo_check(uint32_t nodes, uint32_t extra, char *err, size_t errlen);
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
    size_t i = ((size_t)stage * t->elems + elem) * t->nodes + dst;
    return (t->route[i >> 2] >> ((i & 3) * 2)) & 3u;
}

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
