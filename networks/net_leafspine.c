/* Leaf-spine fabric: a two-level folded Clos, every leaf linked once to
 * every spine, over the switched-network core (networks/swnet.c: packets of
 * at most network.mtu, virtual cut-through, output FIFOs, credits).
 *
 * Graph, routing and deadlock freedom: networks/topo_leafspine.c (up*-down*
 * with one VC; ecmp, the default: a spine per message from its salt, or
 * d-mod-k: spine (b mod H) mod S for destination b). Parameters:
 * network.leaves (L), network.spines (S), network.hosts-per-leaf (H; the
 * oversubscription is H : S), network.routing and the core's shared rows.
 * system.nodes must be L H.
 * Zero load: h = 1 between hosts of one leaf, 3 otherwise: ser + (h+1) link
 * + h switch for one packet.
 * Saturation bound (topo_leafspine.c): ecmp min(1, S (N-1) / (H (N-H)));
 * d-mod-k min(1, (N-1) / (H (L-1) ceil(H/S))).
 * Failures (network.failed-links, networks/topo_fail.c): a leaf whose
 * chosen spine's link is down, or whose spine cannot reach the destination
 * leaf, takes the next spine (in port order) that can; pairs no spine
 * joins are an error before the run. The saturation bound stays the
 * intact fabric's. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"
#include "network.h"
#include "swnet.h"
#include "topo.h"

typedef struct ls_params {
    swnet_params sw;         /* the core's shared rows */
    uint32_t leaves;         /* L */
    uint32_t spines;         /* S */
    uint32_t hosts_per_leaf; /* H */
} ls_params;

static const param_row ls_rows[] = {
    SWNET_ROWS(ls_params, sw, topo_leafspine_routings),
    {.path = "network.leaves", .type = "integer", .unit = "", .def = "4",
     .help = "leaf-spine: leaf switches (>= 1)", .kind = PARAM_U32, .off = offsetof(ls_params, leaves), .min = 1,
     .max = TOPO_MAX_HOSTS, .example = "4"},
    {.path = "network.spines", .type = "integer", .unit = "", .def = "4",
     .help = "leaf-spine: spine switches, each linked once to every leaf (>= 1)", .kind = PARAM_U32,
     .off = offsetof(ls_params, spines), .min = 1, .max = TOPO_MAX_HOSTS, .example = "4"},
    {.path = "network.hosts-per-leaf", .type = "integer", .unit = "", .def = "4",
     .help = "leaf-spine: hosts on each leaf (>= 1; oversubscription hosts-per-leaf : spines)", .kind = PARAM_U32,
     .off = offsetof(ls_params, hosts_per_leaf), .min = 1, .max = TOPO_MAX_HOSTS, .example = "4"},
};


static void ls_topo_params(const ls_params *p, topo_leafspine_params *tp)
{
    *tp = (topo_leafspine_params){.leaves = p->leaves, .spines = p->spines, .hosts_per_leaf = p->hosts_per_leaf};
    tp->routing = (topo_leafspine_routing)swnet_routing_of(&p->sw, topo_leafspine_routing_names);
}

static int ls_build(const ls_params *p, topo *t, char *err, size_t errlen);

static void ls_check(const net_params *core, const void *params, param_report *rep)
{
    const ls_params *p = params;
    net_check_core(core, rep);
    topo_leafspine_params tp;
    ls_topo_params(p, &tp);
    char e2[512];
    uint64_t hosts = 0;
    if (topo_leafspine_check(&tp, e2, sizeof e2) != 0)
        param_invalid(rep, p->spines < 1 ? "network.spines" : p->hosts_per_leaf < 1 ? "network.hosts-per-leaf"
                                                                                      : "network.leaves",
                      "%s", e2);
    else
        hosts = (uint64_t)p->leaves * p->hosts_per_leaf;
    char shape[128];
    snprintf(shape, sizeof shape, "the leaf-spine of %u leaves of %u hosts", p->leaves, p->hosts_per_leaf);
    swnet_check(core, &p->sw, topo_leafspine_routing_names, hosts, shape, rep);
    SWNET_CHECK_FAILURES(ls, core, p, rep);
}

static int ls_build(const ls_params *p, topo *t, char *err, size_t errlen)
{
    topo_leafspine_params tp;
    ls_topo_params(p, &tp);
    return topo_leafspine_init(t, &tp, err, errlen);
}

SWNET_BUILT_OPS(ls, ls_params)

static int ls_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    const ls_params *p = params;
    param_first first;
    ls_check(net_core(n), p, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    topo t;
    if (ls_build(p, &t, err, errlen) != 0)
        return -1;
    return swnet_init(state, n, &t, &p->sw, err, errlen);
}

const net_ops net_leafspine_ops = {
    .name = "leaf-spine",
    .description = "leaf-spine (two-level folded Clos): packets, virtual cut-through, credits; ECMP or d-mod-k",
    .params = ls_rows,
    .nparams = sizeof ls_rows / sizeof ls_rows[0],
    .params_size = sizeof(ls_params),
    .check = ls_check,
    SWNET_BUILT_FIELDS(ls),
    .init = ls_init,
    SWNET_OPS,
};
