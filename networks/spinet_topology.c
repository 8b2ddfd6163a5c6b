#include "spinet_topology.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

static uint32_t log2_u32(uint32_t x)
{
    uint32_t l = 0;
    while (x > 1) {
        x >>= 1;
        l++;
    }
    return l;
}

static void route_set(spinet_topo *t, uint32_t stage, uint32_t elem, uint32_t dst, unsigned bits)
{
    size_t i = ((size_t)stage * t->elems + elem) * t->nodes + dst;
    t->route[i >> 2] = (uint8_t)(t->route[i >> 2] | (bits << ((i & 3) * 2)));
}

/* Backward BFS from `dst`. The graph is layered (every edge goes from stage s
 * to s+1), so the BFS frontier at distance k is exactly a set of elements of
 * stage S-1-k: we sweep it stage by stage. reach[] flags the elements of the
 * stage after the one being labelled that lead to dst. */
static void bfs_from(spinet_topo *t, uint32_t dst, uint8_t *reach, uint8_t *reach_next)
{
    uint32_t last = t->stages - 1;
    memset(reach, 0, t->elems);
    route_set(t, last, dst >> 1, dst, 1u << (dst & 1));
    reach[dst >> 1] = 1;
    for (uint32_t s = last; s-- > 0;) {
        memset(reach_next, 0, t->elems);
        for (uint32_t j = 0; j < t->elems; j++) {
            unsigned bits = 0;
            for (unsigned o = 0; o < 2; o++)
                if (reach[spinet_topo_next(t, s, j, o)])
                    bits |= 1u << o;
            if (bits) {
                route_set(t, s, j, dst, bits);
                reach_next[j] = 1;
            }
        }
        uint8_t *tmp = reach;
        reach = reach_next;
        reach_next = tmp;
    }
}

int spinet_topo_check(uint32_t nodes, uint32_t extra, char *err, size_t errlen)
{
    if (nodes < 2 || (nodes & (nodes - 1)) != 0)
        return nodes < 2 ? tn_error(err, errlen, "spinet: nodes=%u must be a power of two >= 2", nodes)
                         : tn_error(err, errlen, "spinet: nodes=%u must be a power of two (e.g. %llu or %llu)",
                                    nodes, 1ull << log2_u32(nodes), 2ull << log2_u32(nodes));
    if (extra > 32)
        return tn_error(err, errlen, "spinet: extra-stages=%u is more than 32", extra);
    size_t stages = log2_u32(nodes) + extra;
    /* in double: stages x N/2 x N reaches 2^66 for N = 2^31 */
    double bytes = ((double)stages * (double)(nodes / 2) * (double)nodes + 3) / 4;
    if (bytes > (double)SPINET_TOPO_MAX_TABLE_BYTES)
        return tn_error(err, errlen,
                        "spinet: routing table for nodes=%u and %zu stages needs %.4g bytes "
                        "(more than %zu)",
                        nodes, stages, bytes, SPINET_TOPO_MAX_TABLE_BYTES);
    return 0;
}

int spinet_topo_init(spinet_topo *t, uint32_t nodes, uint32_t extra, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (spinet_topo_check(nodes, extra, err, errlen) != 0)
        return -1;
    t->nodes = nodes;
    t->elems = nodes / 2;
    t->log2_n = log2_u32(nodes);
    t->extra = extra;
    t->stages = t->log2_n + extra;
    size_t bytes = ((size_t)t->stages * t->elems * t->nodes + 3) / 4;

    uint32_t log2_e = t->log2_n - 1;
    t->shift = tn_xcalloc(t->stages, sizeof *t->shift); /* S-1 used; S >= 1 */
    for (uint32_t tr = 0; tr + 1 < t->stages; tr++) {
        if (tr + 1 < t->log2_n)
            t->shift[tr] = 1u << tr;
        else
            t->shift[tr] = log2_e ? 1u << ((tr - (t->log2_n - 1)) % log2_e) : 0;
    }

    t->route = tn_xcalloc(bytes, 1);
    uint8_t *reach = tn_xmalloc(t->elems);
    uint8_t *reach_next = tn_xmalloc(t->elems);
    for (uint32_t d = 0; d < nodes; d++)
        bfs_from(t, d, reach, reach_next);
    free(reach);
    free(reach_next);
    return 0;
}

void spinet_topo_free(spinet_topo *t)
{
    free(t->shift);
    free(t->route);
    memset(t, 0, sizeof *t);
}
