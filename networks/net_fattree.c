/* Fat-tree fabric: the k-ary n-tree (Petrini and Vanneschi), k^n hosts, n
 * levels of k^(n-1) switches, over the switched-network core
 * (networks/swnet.c: packets of at most network.mtu, virtual cut-through,
 * output FIFOs, credits).
 *
 * Graph, routing and deadlock freedom: networks/topo_fattree.c (up*-down*
 * with one VC; d-mod-k as InfiniBand OpenSM's ftree routing computes it on
 * a complete tree, the default, or random-up: an up port drawn per level
 * from the message's salt, or anca: the less occupied of two up ports drawn
 * per level, BookSim2's fattree_anca). Parameters: network.arity (k),
 * network.levels (n), network.routing (d-mod-k, random-up or anca) and the
 * core's shared rows.
 * system.nodes must be k^n.
 * network.ports = k (> 0) builds the three-tier k-port fat tree of
 * Al-Fares et al. instead (networks/topo_fattree3.c: k pods, k^3/4 hosts,
 * network.oversubscription o : 1 at the edge). A system.nodes no tree has
 * is refused with the nearest k-ary n-trees and three-tier trees.
 * Zero load: h = 2 L + 1 switches for hosts whose nearest common ancestor
 * is at level L: ser + (h+1) link + h switch for one packet.
 * Saturation bound: 1 (full bisection, topo_fattree.c).
 * Failures (network.failed-links, networks/topo_fail.c; both trees): a
 * switch whose chosen up port's link is down, or leads to a switch that
 * can no longer reach the destination (down paths are unique), climbs by
 * the next up port (in port order) that can; routes stay up*-down*
 * (deadlock-free with one class). Pairs no up choice joins are an error
 * before the run. The saturation bound stays the intact tree's. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"
#include "network.h"
#include "swnet.h"
#include "topo.h"

typedef struct ft_params {
    swnet_params sw; /* the core's shared rows */
    uint32_t arity;  /* k: hosts per leaf switch, up and down ports of a switch */
    uint32_t levels; /* n: switch levels */
    uint32_t ports;  /* > 0: the three-tier k-port tree of Al-Fares et al. instead (k = ports) */
    uint32_t oversubscription; /* three-tier: hosts : uplinks of an edge switch */
} ft_params;

static const param_row ft_rows[] = {
    SWNET_ROWS(ft_params, sw, topo_fattree_routings),
    {.path = "network.arity", .type = "integer", .unit = "", .def = "4",
     .help = "fat-tree: k of the k-ary n-tree, hosts per leaf switch (>= 2)", .kind = PARAM_U32,
     .off = offsetof(ft_params, arity), .min = 2, .max = TOPO_MAX_HOSTS, .example = "4"},
    {.path = "network.levels", .type = "integer", .unit = "", .def = "3",
     .help = "fat-tree: n of the k-ary n-tree, switch levels (>= 1; k^n hosts)", .kind = PARAM_U32,
     .off = offsetof(ft_params, levels), .min = 1, .max = 26, .example = "3"},
    {.path = "network.ports", .type = "integer", .unit = "", .def = "",
     .help = "fat-tree: k of the three-tier k-port fat tree of Al-Fares et al. (even; k pods, k^3/4 hosts; "
             "replaces arity and levels)",
     .kind = PARAM_U32, .off = offsetof(ft_params, ports), .flags = PARAM_UNSET0, .min = 4, .max = 1024,
     .example = "16"},
    {.path = "network.oversubscription", .type = "integer", .unit = "", .def = "1",
     .help = "fat-tree (three-tier): hosts per edge switch : its uplinks, o : 1 (o + 1 divides ports; 1: full "
             "bisection)",
     .kind = PARAM_U32, .off = offsetof(ft_params, oversubscription), .min = 1, .max = 1023, .example = "1"},
};


static void ft_topo_params(const ft_params *p, topo_fattree_params *tp)
{
    *tp = (topo_fattree_params){.arity = p->arity, .levels = p->levels};
    tp->routing = (topo_fattree_routing)swnet_routing_of(&p->sw, topo_fattree_routing_names);
}

/* The fat trees nearest N hosts: k-ary n-trees (n = 2..5) and three-tier
 * trees (o = 1), the closest below and above of each kind, into buf. */
static void nearest_sizes(uint64_t N, char *buf, size_t len)
{
    struct {
        uint64_t hosts;
        char what[48];
    } c[16];
    size_t nc = 0;
    for (uint32_t n = 2; n <= 5; n++) {
        uint64_t below = 0, above = 0;
        uint32_t kb = 0, ka = 0;
        for (uint32_t k = 2; k <= 4096; k++) {
            uint64_t h = 1;
            for (uint32_t l = 0; l < n && h <= TOPO_MAX_HOSTS; l++)
                h *= k;
            if (h > TOPO_MAX_HOSTS)
                break;
            if (h <= N)
                below = h, kb = k;
            if (h >= N) {
                above = h, ka = k;
                break;
            }
        }
        if (below) {
            c[nc].hosts = below;
            snprintf(c[nc++].what, sizeof c[0].what, "arity=%u levels=%u", kb, n);
        }
        if (above && above != below) {
            c[nc].hosts = above;
            snprintf(c[nc++].what, sizeof c[0].what, "arity=%u levels=%u", ka, n);
        }
    }
    uint64_t b3 = 0, a3 = 0;
    uint32_t kb3 = 0, ka3 = 0;
    for (uint32_t k = 4; k <= 1024; k += 2) {
        uint64_t h = topo_fattree3_hosts(k, 1);
        if (h <= N)
            b3 = h, kb3 = k;
        if (h >= N) {
            a3 = h, ka3 = k;
            break;
        }
    }
    if (b3) {
        c[nc].hosts = b3;
        snprintf(c[nc++].what, sizeof c[0].what, "ports=%u", kb3);
    }
    if (a3 && a3 != b3) {
        c[nc].hosts = a3;
        snprintf(c[nc++].what, sizeof c[0].what, "ports=%u", ka3);
    }
    /* the four nearest, nearest first */
    size_t used = 0;
    buf[0] = '\0';
    for (int pick = 0; pick < 4 && nc; pick++) {
        size_t best = 0;
        for (size_t i = 1; i < nc; i++) {
            uint64_t di = c[i].hosts > N ? c[i].hosts - N : N - c[i].hosts;
            uint64_t db = c[best].hosts > N ? c[best].hosts - N : N - c[best].hosts;
            if (di < db)
                best = i;
        }
        int w = snprintf(buf + used, len - used, "%s%s (%llu hosts)", pick ? ", " : "", c[best].what,
                         (unsigned long long)c[best].hosts);
        if (w > 0 && (size_t)w < len - used)
            used += (size_t)w;
        c[best] = c[--nc];
    }
}

static int ft_build(const ft_params *p, topo *t, char *err, size_t errlen);

static void ft_check(const net_params *core, const void *params, param_report *rep)
{
    const ft_params *p = params;
    net_check_core(core, rep);
    char e2[512], shape[96];
    uint64_t hosts = 0;
    if (p->ports) {
        topo_fattree3_params tp = {.ports = p->ports, .oversubscription = p->oversubscription};
        tp.routing = (topo_fattree_routing)swnet_routing_of(&p->sw, topo_fattree_routing_names);
        if (topo_fattree3_check(&tp, e2, sizeof e2) != 0)
            param_invalid(rep, tp.oversubscription > 1 ? "network.oversubscription" : "network.ports", "%s", e2);
        else
            hosts = topo_fattree3_hosts(p->ports, p->oversubscription);
        snprintf(shape, sizeof shape, "the three-tier %u-port fat tree%s", p->ports,
                 p->oversubscription > 1 ? " (oversubscribed)" : "");
    } else {
        topo_fattree_params tp;
        ft_topo_params(p, &tp);
        if (topo_fattree_check(&tp, e2, sizeof e2) != 0) {
            param_invalid(rep, p->arity < 2 ? "network.arity" : "network.levels", "%s", e2);
        } else {
            hosts = 1;
            for (uint32_t l = 0; l < p->levels; l++)
                hosts *= p->arity;
        }
        snprintf(shape, sizeof shape, "the %u-ary %u-tree", p->arity, p->levels);
    }
    if (hosts && !swnet_nodes_fit(&p->sw, core->nodes, hosts)) {
        char near[400];
        nearest_sizes(core->nodes, near, sizeof near);
        param_invalid(rep, "system.nodes", "N = %u, but %s has %llu hosts; fat trees near %u hosts: %s", core->nodes,
                      shape, (unsigned long long)hosts, core->nodes, near);
        hosts = 0; /* reported */
    }
    swnet_check(core, &p->sw, topo_fattree_routing_names, hosts, shape, rep);
    SWNET_CHECK_FAILURES(ft, core, p, rep);
}

static int ft_build(const ft_params *p, topo *t, char *err, size_t errlen)
{
    if (p->ports) {
        topo_fattree3_params t3 = {.ports = p->ports, .oversubscription = p->oversubscription};
        t3.routing = (topo_fattree_routing)swnet_routing_of(&p->sw, topo_fattree_routing_names);
        return topo_fattree3_init(t, &t3, err, errlen);
    }
    topo_fattree_params tp;
    ft_topo_params(p, &tp);
    return topo_fattree_init(t, &tp, err, errlen);
}

SWNET_BUILT_OPS(ft, ft_params)

static int ft_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    const ft_params *p = params;
    param_first first;
    ft_check(net_core(n), p, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    topo t;
    if (ft_build(p, &t, err, errlen) != 0)
        return -1;
    return swnet_init(state, n, &t, &p->sw, err, errlen);
}

const net_ops net_fattree_ops = {
    .name = "fat-tree",
    .description = "k-ary n-tree of switches: packets, virtual cut-through, credits; d-mod-k, random-up or anca routing",
    .params = ft_rows,
    .nparams = sizeof ft_rows / sizeof ft_rows[0],
    .params_size = sizeof(ft_params),
    .check = ft_check,
    SWNET_BUILT_FIELDS(ft),
    .init = ft_init,
    SWNET_OPS,
};
