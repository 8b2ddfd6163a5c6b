/* Dragonfly fabric (Kim, Dally, Scott and Abts, ISCA 2008): g groups of a
 * routers, all-to-all inside a group, p hosts and h global links per
 * router, over the switched-network core (networks/swnet.c: packets of at
 * most network.mtu, virtual cut-through, output FIFOs, credits).
 *
 * Graph, routing and deadlock freedom: networks/topo_dragonfly.c (SST-
 * merlin's layout and global slices; VC class = global links crossed;
 * minimal, the default, Valiant through a random intermediate group, or
 * UGAL-L: the core compares queue x hops of the minimal and Valiant first
 * hops at the source router for every packet). Parameters: network.groups,
 * network.routers-per-group, network.hosts-per-router,
 * network.global-links (g - 1 must divide a h), network.routing and the
 * core's shared rows. system.nodes must be g a p. The defaults, g = 9, a =
 * 4, p = 1, h = 2, are the largest dragonfly of 4-router groups with 2
 * global links each (g = a h + 1: one link between each pair of groups).
 * Zero load: ser + (h+1) link + h switch for one packet, h = the switches
 * of the minimal route (a Valiant message's own route is longer: the
 * formula is then its lower bound, swnet.c).
 * Saturation bound (topo_dragonfly.c): from the global (and, minimal, the
 * local) channel loads of the routing's paths. UGAL's paths are chosen by
 * the queues, and it does beat the minimal paths' bound (64 hosts, g = a =
 * p = 4, h = 3: 0.58 of B against 0.5625 at offered load 1), so its bound is
 * one no routing can pass: a message between groups crosses at least one of
 * the g a h directed global links, and uniform traffic sends a fraction
 * (N - a p) / (N - 1) of N lambda between groups:
 *   lambda <= min(1, g a h (N - 1) / (N (N - a p)))   (0.984 for that case). 
 * Failures (network.failed-links, networks/topo_fail.c): a message starts
 * with the first record whose path avoids the failed links: its own,
 * another slice (another global link between the groups), and with
 * valiant or ugal another intermediate (non-minimal; minimal routing keeps
 * minimal paths, its two classes not covering a Valiant route). Pairs left
 * without one are an error before the run naming them. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"
#include "network.h"
#include "swnet.h"
#include "topo.h"

typedef struct df_params {
    swnet_params sw;            /* the core's shared rows */
    uint32_t groups;            /* g */
    uint32_t routers_per_group; /* a */
    uint32_t hosts_per_router;  /* p */
    uint32_t global_links;      /* h, per router */
} df_params;

static const param_row df_rows[] = {
    SWNET_ROWS(df_params, sw, topo_dragonfly_routings),
    {.path = "network.groups", .type = "integer", .unit = "", .def = "9", .help = "dragonfly: groups (>= 2)",
     .kind = PARAM_U32, .off = offsetof(df_params, groups), .min = 2, .max = TOPO_MAX_HOSTS, .example = "9"},
    {.path = "network.routers-per-group", .type = "integer", .unit = "", .def = "4",
     .help = "dragonfly: routers in a group, all linked to each other (>= 1)", .kind = PARAM_U32,
     .off = offsetof(df_params, routers_per_group), .min = 1, .max = TOPO_MAX_HOSTS, .example = "4"},
    {.path = "network.hosts-per-router", .type = "integer", .unit = "", .def = "1",
     .help = "dragonfly: hosts on each router (>= 1)", .kind = PARAM_U32,
     .off = offsetof(df_params, hosts_per_router), .min = 1, .max = TOPO_MAX_HOSTS, .example = "1"},
    {.path = "network.global-links", .type = "integer", .unit = "", .def = "2",
     .help = "dragonfly: global links of each router (>= 1; groups - 1 must divide routers-per-group x global-links)",
     .kind = PARAM_U32, .off = offsetof(df_params, global_links), .min = 1, .max = TOPO_MAX_HOSTS, .example = "2"},
    {.path = "network.global-link-latency", .type = "time", .unit = "s", .def = "-1ps",
     .help = "dragonfly, input-queued routers: latency of the links between groups (negative: network.link-latency, "
             "which the links inside a group keep; BookSim2's dragonfly: 10 local, 100 global cycles)",
     .kind = PARAM_PS, .off = offsetof(df_params, sw.global_link_ps), .example = "99ns"},
};


static void df_topo_params(const df_params *p, topo_dragonfly_params *tp)
{
    *tp = (topo_dragonfly_params){.groups = p->groups, .routers_per_group = p->routers_per_group,
                                  .hosts_per_router = p->hosts_per_router, .global_links = p->global_links};
    tp->routing = (topo_dragonfly_routing)swnet_routing_of(&p->sw, topo_dragonfly_routing_names);
}

static int df_build(const df_params *p, topo *t, char *err, size_t errlen);

static void df_check(const net_params *core, const void *params, param_report *rep)
{
    const df_params *p = params;
    net_check_core(core, rep);
    topo_dragonfly_params tp;
    df_topo_params(p, &tp);
    char e2[512];
    uint64_t hosts = 0;
    if (topo_dragonfly_check(&tp, e2, sizeof e2) != 0)
        param_invalid(rep, p->groups < 2 ? "network.groups" : "network.global-links", "%s", e2);
    else
        hosts = (uint64_t)p->groups * p->routers_per_group * p->hosts_per_router;
    char shape[160];
    snprintf(shape, sizeof shape, "the dragonfly of %u groups of %u routers of %u hosts", p->groups,
             p->routers_per_group, p->hosts_per_router);
    int r = topo_routing_of(topo_dragonfly_routing_names, p->sw.routing);
    if (r >= 0) /* a pause priority per (class, VC): the global-hop classes keep pauses acyclic (swnet.c) */
        swnet_pfc_classes(core, &p->sw, topo_dragonfly_classes((topo_dragonfly_routing)r), NULL, shape, rep);
    if (r >= 0)
        swnet_ci_classes(&p->sw, topo_dragonfly_classes((topo_dragonfly_routing)r), shape, rep);
    swnet_check(core, &p->sw, topo_dragonfly_routing_names, hosts, shape, rep);
    if (p->sw.global_link_ps >= 0 && p->sw.router != SWNET_IQ)
        param_invalid(rep, "network.global-link-latency", "the output-queued router's links all take "
                                                          "network.link-latency; set network.router=\"input-queued\"");
    /* a credit over a link between groups, as iqr_check's over the others (which it says itself when they
     * are at 0 too): at 0 it would be used in the flit time that freed it (with sw-alloc-delay,
     * credit-delay and global-link-latency 0 a run once went on for ever: check_iqrouter test_refusals) */
    int64_t ds = p->sw.sw_alloc_delay_ps + p->sw.credit_delay_ps;
    int64_t hl = p->sw.host_link_ps >= 0 ? p->sw.host_link_ps : core->link_latency_ps;
    if (p->sw.router == SWNET_IQ && p->sw.global_link_ps >= 0 && ds + p->sw.global_link_ps <= 0 &&
        ds + core->link_latency_ps > 0 && ds + hl > 0)
        param_invalid(rep, "network.global-link-latency",
                      "sw-alloc-delay + credit-delay + global-link-latency is 0: a credit over a link between "
                      "groups would be used in the flit time that freed it; give one of them a positive time");
    SWNET_CHECK_FAILURES(df, core, p, rep);
}

static int df_build(const df_params *p, topo *t, char *err, size_t errlen)
{
    topo_dragonfly_params tp;
    df_topo_params(p, &tp);
    return topo_dragonfly_init(t, &tp, err, errlen);
}

SWNET_BUILT_OPS(df, df_params)

static int df_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    const df_params *p = params;
    param_first first;
    df_check(net_core(n), p, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    topo t;
    if (df_build(p, &t, err, errlen) != 0)
        return -1;
    swnet_params sw = p->sw;
    sw.group_routers = p->routers_per_group; /* the input-queued router tells global links apart by it */
    if (swnet_init(state, n, &t, &sw, err, errlen) != 0)
        return -1;
    topo_dragonfly_params tp;
    df_topo_params(p, &tp);
    if (tp.routing == TOPO_DF_VALIANT) { /* zero load: the minimal route (a lower bound) */
        tp.routing = TOPO_DF_MINIMAL;
        topo zl;
        TN_ASSERT(topo_dragonfly_init(&zl, &tp, err, errlen) == 0, "dragonfly: %s", err);
        swnet_set_zero_load_topo(state, &zl);
    }
    if (tp.routing == TOPO_DF_UGAL) {
        double N = (double)p->groups * p->routers_per_group * p->hosts_per_router;
        double ap = (double)p->routers_per_group * p->hosts_per_router;
        double global = (double)p->groups * p->routers_per_group * p->global_links;
        double b = global * (N - 1) / (N * (N - ap));
        ((swnet *)state)->bound = b < 1 ? b : 1;
    }
    return 0;
}

const net_ops net_dragonfly_ops = {
    .name = "dragonfly",
    .description = "dragonfly (groups of all-to-all routers joined by global links): packets, virtual "
                   "cut-through, credits; minimal, Valiant or UGAL routing",
    .params = df_rows,
    .nparams = sizeof df_rows / sizeof df_rows[0],
    .params_size = sizeof(df_params),
    .check = df_check,
    SWNET_BUILT_FIELDS(df),
    .init = df_init,
    SWNET_OPS,
};
