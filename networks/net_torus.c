/* Torus and twisted torus fabric: k_0 x ... x k_{n-1} switches, one host
 * each, over the switched-network core (networks/swnet.c: packets of at most
 * network.mtu, virtual cut-through, output FIFOs per VC, credits).
 *
 * Graph, routing and deadlock freedom: networks/topo_torus.c (dimension
 * order with dateline VCs, or minimal adaptive over a DOR escape, Duato;
 * valiant: DOR to a random switch and on, romm: the same with the
 * intermediate in the minimal quadrant, both on 4 classes;
 * the twisted torus of Camara et al. as INSEE builds it, seed 003's 8x4
 * with twist 4). Parameters: network.dims (the ring sizes, dimension 0
 * first, "8 4"), network.twist (shift of dimension 0 across a wrap-around
 * link of dimension 1; 0 = plain torus), network.routing (dor, the default,
 * adaptive, valiant or romm) and the core's shared rows. Zero load under
 * valiant: the minimal route's (a lower bound, as the dragonfly's Valiant).
 * valiant and romm refuse network.failed-links (no alternative records). system.nodes must be the product
 * of the sizes.
 * Zero load: ser + (h+1) link + h switch for one packet, h = 1 + the
 * minimal hop count (swnet.c gives the packetised formula).
 * Saturation bound (topo_torus.c): 8 (N-1) / (N k_max) of B per node for
 * an even largest ring; the twisted plane by enumeration.
 * Failures (network.failed-links, networks/topo_fail.c): a message starts
 * with the first routing record whose dimension-order route (adaptive: its
 * escape) avoids the failed links: the salt's own, the other minimal ones
 * (ties at k/2), then dimensions crossed the long way round; adaptive hops
 * are taken only toward switches whose escape route is intact. Pairs left
 * without such a record are an error before the run naming them (the
 * check walks every pair: up to 8,192 hosts, topo_fail.c). The
 * saturation bound stays the intact torus's. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"
#include "network.h"
#include "swnet.h"
#include "topo.h"

typedef struct tor_params {
    swnet_params sw;                /* the core's shared rows */
    uint32_t dims[PARAM_LIST_MAX];  /* ring sizes, dimension 0 first */
    uint32_t ndims;                 /* entries of dims */
    uint32_t twist;                 /* shift of dimension 0 across a wrap of dimension 1 */
    int dateline;                   /* 0 hop, 1 ring (topo_torus_params.dateline_ring), 2 auto: ring for the
                                       input-queued router's DOR on a plain torus without failed links, hop
                                       otherwise */
} tor_params;

static const param_row tor_rows[] = {
    SWNET_ROWS(tor_params, sw, topo_torus_routings),
    {.path = "network.dims", .type = "list", .unit = "", .def = "8 4",
     .help = "torus: ring sizes, dimension 0 first (each >= 2; one host per switch)", .kind = PARAM_U32_LIST,
     .off = offsetof(tor_params, dims), .count_off = offsetof(tor_params, ndims), .min = 2, .max = TOPO_MAX_DIMS,
     .example = "8 4", .note = "a ring needs at least 2 switches"},
    {.path = "network.twist", .type = "integer", .unit = "", .def = "0",
     .help = "torus: shift of dimension 0 across a wrap-around link of dimension 1 (twisted torus; 0 = plain)",
     .kind = PARAM_U32, .off = offsetof(tor_params, twist), .min = 0, .max = TOPO_MAX_HOSTS, .example = "4"},
    /* a routing parameter: the torus's routing table declares it (topo_torus_routing_params: dor, valiant,
     * romm read it), its choices and help (topo_torus.c) */
    {.path = "network.dateline", .type = "choice", .unit = "", .def = "auto", .help = topo_torus_dateline_help,
     .kind = PARAM_CHOICE, .off = offsetof(tor_params, dateline), .choices = topo_torus_dateline_names,
     .example = "ring"},
};


static void tor_topo_params(const tor_params *p, topo_torus_params *tp)
{
    *tp = (topo_torus_params){.ndims = p->ndims, .twist = p->twist, .dateline_ring = (uint8_t)(p->dateline == 1)};
    for (uint32_t d = 0; d < p->ndims && d < TOPO_MAX_DIMS; d++)
        tp->dims[d] = p->dims[d];
    tp->routing = (topo_torus_routing)swnet_routing_of(&p->sw, topo_torus_routing_names);
    /* auto: the input-queued router follows BookSim2 (its 8x8 torus's latency and saturation agree with
     * BookSim2's within 1 % with ring, saturates ~15 % early with hop: README "Router models"); the
     * output-queued router keeps hop, its results unchanged */
    if (p->dateline == 2)
        tp->dateline_ring = (uint8_t)(p->sw.router == SWNET_IQ && tp->routing != TOPO_TORUS_ADAPTIVE && p->twist == 0 &&
                                      p->sw.failed_links[0] == '\0'); /* ring keeps routes minimal: failures
                                                                         may need the long way round */
}

static void tor_shape(const tor_params *p, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "the %s", p->twist ? "twisted " : "");
    for (uint32_t d = 0; d < p->ndims && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%u", d ? "x" : "", p->dims[d]);
    if (o < len)
        snprintf(buf + o, len - o, " torus");
}

static int tor_build(const tor_params *p, topo *t, char *err, size_t errlen);

static void tor_check(const net_params *core, const void *params, param_report *rep)
{
    const tor_params *p = params;
    net_check_core(core, rep);
    uint64_t hosts = 0;
    char e2[512];
    if (p->ndims < 1 || p->ndims > TOPO_MAX_DIMS) {
        param_invalid(rep, "network.dims", "has %u sizes; 1 to %d are supported", p->ndims, TOPO_MAX_DIMS);
    } else {
        topo_torus_params tp;
        tor_topo_params(p, &tp);
        topo_torus_routing routing = tp.routing;
        tp.routing = TOPO_TORUS_DOR;
        tp.twist = 0;
        tp.dateline_ring = 0;
        int bad = topo_torus_check(&tp, e2, sizeof e2) != 0;
        if (bad) {
            param_invalid(rep, "network.dims", "%s", e2);
        } else if (p->twist) {
            tp.twist = p->twist;
            bad = topo_torus_check(&tp, e2, sizeof e2) != 0;
            if (bad)
                param_invalid(rep, "network.twist", "%s", e2);
        }
        if (!bad && p->dateline == 1) {
            tp.dateline_ring = 1;
            tp.routing = routing;
            if (topo_torus_check(&tp, e2, sizeof e2) != 0)
                param_invalid(rep, "network.dateline", "%s", e2);
        }
        if (!bad) {
            hosts = 1;
            for (uint32_t d = 0; d < p->ndims; d++)
                hosts *= p->dims[d];
        }
    }
    char shape[128];
    tor_shape(p, shape, sizeof shape);
    int r = topo_routing_of(topo_torus_routing_names, p->sw.routing);
    if (r >= 0) /* a pause priority per (class, VC): the dateline and phase classes keep pauses acyclic (swnet.c) */
        swnet_pfc_classes(core, &p->sw, topo_torus_classes((topo_torus_routing)r),
                          r == TOPO_TORUS_ADAPTIVE
                              ? "minimal adaptive routing (Duato) needs a packet waiting on an adaptive channel to "
                                "be able to take the escape; a pause holds it in its output's adaptive FIFO, so the "
                                "adaptive channels can close a cycle of paused links (PFC deadlock). Use dor, valiant "
                                "or romm with pfc"
                              : NULL,
                          shape, rep);
    if (r >= 0)
        swnet_ci_classes(&p->sw, topo_torus_classes((topo_torus_routing)r), shape, rep);
    swnet_check(core, &p->sw, topo_torus_routing_names, hosts, shape, rep);
    if ((r == TOPO_TORUS_VALIANT || r == TOPO_TORUS_ROMM) && p->sw.failed_links[0])
        param_invalid(rep, "network.failed-links",
                      "routing=%s on a torus does not route around failed links (its two dimension-order phases "
                      "would each need an intact record; use dor or adaptive)",
                      topo_torus_routing_names[r]);
    else
        SWNET_CHECK_FAILURES(tor, core, p, rep);
}

static int tor_build(const tor_params *p, topo *t, char *err, size_t errlen)
{
    topo_torus_params tp;
    tor_topo_params(p, &tp);
    return topo_torus_init(t, &tp, err, errlen);
}

SWNET_BUILT_OPS(tor, tor_params)

static int tor_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    const tor_params *p = params;
    param_first first;
    tor_check(net_core(n), p, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    topo t;
    if (tor_build(p, &t, err, errlen) != 0)
        return -1;
    if (swnet_init(state, n, &t, &p->sw, err, errlen) != 0)
        return -1;
    topo_torus_params tp;
    tor_topo_params(p, &tp);
    if (tp.routing == TOPO_TORUS_VALIANT) { /* zero load: the minimal route (a lower bound), as the dragonfly's */
        tp.routing = TOPO_TORUS_DOR;
        topo zl;
        TN_ASSERT(topo_torus_init(&zl, &tp, err, errlen) == 0, "torus: %s", err);
        swnet_set_zero_load_topo(state, &zl);
    }
    return 0;
}

const net_ops net_torus_ops = {
    .name = "torus",
    .description = "torus or twisted torus of switches (one host each): packets, virtual cut-through, "
                   "credits; dimension-order, minimal adaptive, Valiant or ROMM routing",
    .params = tor_rows,
    .nparams = sizeof tor_rows / sizeof tor_rows[0],
    .params_size = sizeof(tor_params),
    .check = tor_check,
    SWNET_BUILT_FIELDS(tor),
    .init = tor_init,
    SWNET_OPS,
};
