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

int spinet_topo_check(uint32_t nodes, uint32_t extra, char *err, size_t errlen)
{
    if (nodes < 2 || (nodes & (nodes - 1)) != 0)
        return nodes < 2 ? tn_error(err, errlen, "spinet: nodes=%u must be a power of two >= 2", nodes)
                         : tn_error(err, errlen, "spinet: nodes=%u must be a power of two (e.g. %llu or %llu)",
                                    nodes, 1ull << log2_u32(nodes), 2ull << log2_u32(nodes));
    if (extra > 32)
        return tn_error(err, errlen, "spinet: extra-stages=%u is more than 32", extra);
    size_t stages = log2_u32(nodes) + extra;
    /* (S-1) E one-byte entries; in double, like the bound it is compared with */
    double bytes = (double)(stages - 1) * (double)(nodes / 2);
    if (bytes > (double)SPINET_TOPO_MAX_TABLE_BYTES)
        return tn_error(err, errlen,
                        "spinet: routing table for nodes=%u and %zu stages needs %.4g bytes "
                        "(more than %zu)",
                        nodes, stages, bytes, SPINET_TOPO_MAX_TABLE_BYTES);
    if (nodes > SPINET_TOPO_MAX_NODES)
        return tn_error(err, errlen, "spinet: nodes=%u is more than the %u a fabric is sized for",
                        nodes, SPINET_TOPO_MAX_NODES);
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

    uint32_t log2_e = t->log2_n - 1;
    t->shift = tn_xcalloc(t->stages, sizeof *t->shift); /* S-1 used; S >= 1 */
    for (uint32_t tr = 0; tr + 1 < t->stages; tr++) {
        if (tr + 1 < t->log2_n)
            t->shift[tr] = 1u << tr;
        else
            t->shift[tr] = log2_e ? 1u << ((tr - (t->log2_n - 1)) % log2_e) : 0;
    }

    /* Backward search from element 0 of the last stage (destination 0; by
     * translation every other). The graph is layered, so the search frontier
     * at distance k is a set of elements of stage S-1-k: reach[] flags the
     * elements of stage s+1 that lead to element 0 of the last stage. */
    uint32_t E = t->elems;
    t->route = tn_xcalloc((size_t)(t->stages - 1) * E + 1, 1); /* + 1: S = 1 has no entry */
    uint8_t *reach = tn_xcalloc(E, 1);
    uint8_t *reach_here = tn_xcalloc(E, 1);
    reach[0] = 1;
    for (uint32_t s = t->stages - 1; s-- > 0;) {
        uint8_t *row = t->route + (size_t)s * E;
        for (uint32_t j = 0; j < E; j++) {
            unsigned bits = 0;
            for (unsigned o = 0; o < 2; o++)
                if (reach[spinet_topo_next(t, s, j, o)])
                    bits |= 1u << o;
            row[j] = (uint8_t)bits;
            reach_here[j] = bits != 0;
        }
        uint8_t *tmp = reach;
        reach = reach_here;
        reach_here = tmp;
    }
    free(reach);
    free(reach_here);
    return 0;
}

void spinet_topo_free(spinet_topo *t)
{
    free(t->shift);
    free(t->route);
    memset(t, 0, sizeof *t);
}

size_t spinet_topo_path(const spinet_topo *t, uint32_t src, uint32_t dst, uint64_t *links, size_t max)
{
    uint64_t N = t->nodes;
    uint32_t E = t->elems, S = t->stages;
    TN_ASSERT(src < N && dst < N, "path %u -> %u outside 0..%llu", src, dst, (unsigned long long)N - 1);
    size_t need = (size_t)S + 1;
    if (max < need)
        return need;
    links[0] = src;
    uint32_t elem = src >> 1;
    for (uint32_t s = 0; s + 1 < S; s++) {
        unsigned r = spinet_topo_route(t, s, elem, dst);
        TN_ASSERT(r != 0, "no route from stage %u element %u to node %u", s, elem, dst);
        unsigned o = (r & 1u) ? 0u : 1u; /* the first path: output 0 where both lead there */
        links[s + 1] = 2 * N + ((uint64_t)s * E + elem) * 2 + o;
        elem = spinet_topo_next(t, s, elem, o);
    }
    TN_ASSERT(elem == dst >> 1, "path %u -> %u ends on element %u", src, dst, elem);
    links[S] = N + dst;
    return need;
}
