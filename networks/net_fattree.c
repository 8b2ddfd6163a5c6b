/* Fat-tree fabric: the k-ary n-tree (Petrini and Vanneschi), k^n hosts, n
 * levels of k^(n-1) switches, over the switched-network core
 * (networks/swnet.c: packets of at most network.mtu, virtual cut-through,
 * output FIFOs, credits).
 *
 * Graph, routing and deadlock freedom: networks/topo_fattree.c (up*-down*
 * with one VC; d-mod-k as InfiniBand OpenSM's ftree routing computes it on
 * a complete tree, the default, or random-up: an up port drawn per level
 * from the message's salt). Parameters: network.arity (k), network.levels
 * (n), network.routing (d-mod-k or random-up) and the core's shared rows.
 * system.nodes must be k^n.
 * Zero load: h = 2 L + 1 switches for hosts whose nearest common ancestor
 * is at level L: ser + (h+1) link + h switch for one packet.
 * Saturation bound: 1 (full bisection, topo_fattree.c). */
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
} ft_params;

static const param_row ft_rows[] = {
    SWNET_ROWS(ft_params, sw),
    {.path = "network.arity", .type = "integer", .unit = "", .def = "4",
     .help = "fat-tree: k of the k-ary n-tree, hosts per leaf switch (>= 2)", .kind = PARAM_U32,
     .off = offsetof(ft_params, arity), .min = 2, .max = TOPO_MAX_HOSTS, .example = "4"},
    {.path = "network.levels", .type = "integer", .unit = "", .def = "3",
     .help = "fat-tree: n of the k-ary n-tree, switch levels (>= 1; k^n hosts)", .kind = PARAM_U32,
     .off = offsetof(ft_params, levels), .min = 1, .max = 26, .example = "3"},
};

static const swnet_routing ft_routings[] = {SWNET_RT_DMODK, SWNET_RT_RANDOM_UP};
#define FT_NROUTINGS (sizeof ft_routings / sizeof ft_routings[0])

static void ft_topo_params(const ft_params *p, topo_fattree_params *tp)
{
    *tp = (topo_fattree_params){.arity = p->arity, .levels = p->levels};
    tp->routing = (topo_fattree_routing)swnet_routing_index(&p->sw, ft_routings, FT_NROUTINGS);
}

static void ft_check(const net_params *core, const void *params, param_report *rep)
{
    const ft_params *p = params;
    net_check_core(core, rep);
    topo_fattree_params tp;
    ft_topo_params(p, &tp);
    char e2[512];
    uint64_t hosts = 0;
    if (topo_fattree_check(&tp, e2, sizeof e2) != 0) {
        param_invalid(rep, p->arity < 2 ? "network.arity" : "network.levels", "%s", e2);
    } else {
        hosts = 1;
        for (uint32_t l = 0; l < p->levels; l++)
            hosts *= p->arity;
    }
    char shape[96];
    snprintf(shape, sizeof shape, "the %u-ary %u-tree", p->arity, p->levels);
    swnet_check(core, &p->sw, ft_routings, FT_NROUTINGS, hosts, shape, rep);
}

static int ft_build(const ft_params *p, topo *t, char *err, size_t errlen)
{
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
    .description = "k-ary n-tree of switches: packets, virtual cut-through, credits; d-mod-k or random-up routing",
    .params = ft_rows,
    .nparams = sizeof ft_rows / sizeof ft_rows[0],
    .params_size = sizeof(ft_params),
    .check = ft_check,
    SWNET_BUILT_FIELDS(ft),
    .init = ft_init,
    SWNET_OPS,
};
