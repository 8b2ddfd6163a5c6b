/* Graph fabric: any switched topology read from a DOT file (ORCS's format,
 * seed 001; tasknet export-topology and import-ib write it), over the
 * switched-network core (networks/swnet.c: packets of at most network.mtu,
 * virtual cut-through, output FIFOs, credits).
 *
 * Graph, routing and their checks: networks/topo_graph.c. Parameters:
 * network.file (the DOT file, relative to the configuration), and
 * network.routing: file (default: ORCS's per-edge destination lists),
 * shortest, up-down or ecmp; the core's shared rows; network.bandwidth,
 * network.link-latency and network.switch-latency for every link and
 * switch. system.nodes must be the file's host count.
 *
 * Deadlock: the routing uses one virtual channel; with credit flow control
 * (the default) a cycle in its channel dependency graph (Dally and Seitz,
 * IEEE Trans. Computers 1987: acyclic iff deadlock-free for one VC) is
 * refused before the run, naming the cycle's links; up-down never has one.
 * With network.flow-control="infinite" nothing can block and any routing
 * runs.
 * Zero load: ser + (h+1) link + h switch, h the switches on the route.
 * Saturation bound: the routes' own (topo_graph.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "network.h"
#include "swnet.h"
#include "topo.h"

typedef struct gr_params {
    swnet_params sw; /* the core's shared rows */
    param_file file; /* the DOT file */
} gr_params;

static const param_row gr_rows[] = {
    SWNET_ROWS(gr_params, sw),
    {.path = "network.file", .type = "file", .unit = "",
     .def = "fabric.dot",
     .help = "graph: the DOT file of switches, hosts (names starting with H, or kind=host), links and routes (edge "
             "comments: destination hosts, * for all)",
     .kind = PARAM_FILE, .off = offsetof(gr_params, file), .example = "fabric.dot"},
};

static const swnet_routing gr_routings[] = {SWNET_RT_FILE, SWNET_RT_SHORTEST, SWNET_RT_UPDOWN, SWNET_RT_ECMP};
#define GR_NROUTINGS (sizeof gr_routings / sizeof gr_routings[0])

static int gr_build(const net_params *core, const gr_params *p, topo *t, char *err, size_t errlen)
{
    if (!p->file.path[0])
        return tn_error(err, errlen, "graph: network.file is not given");
    topo_graph_params tp = {
        .path = p->file.path,
        .routing = (topo_graph_routing)swnet_routing_index(&p->sw, gr_routings, GR_NROUTINGS),
        .bandwidth_bps = core ? core->bandwidth_bps : 0,
        .link_ps = core ? core->link_latency_ps : 0,
    };
    return topo_graph_init(t, &tp, err, errlen);
}

static void gr_check(const net_params *core, const void *params, param_report *rep)
{
    const gr_params *p = params;
    net_check_core(core, rep);
    uint64_t hosts = 0;
    char shape[PARAM_PATH_MAX + 32];
    snprintf(shape, sizeof shape, "the graph of %s", p->file.text[0] ? p->file.text : "network.file");
    int routing_ok = p->sw.routing == SWNET_RT_DEFAULT;
    for (size_t i = 0; i < GR_NROUTINGS; i++)
        routing_ok = routing_ok || (int)gr_routings[i] == p->sw.routing;
    if (p->file.path[0] && routing_ok) {
        topo t;
        char e2[1024];
        if (gr_build(core, p, &t, e2, sizeof e2) != 0) {
            param_invalid(rep, "network.file", "%s", e2);
        } else {
            hosts = t.hosts;
            const char *cyc = topo_graph_cycle(&t);
            if (cyc && p->sw.flow_control == SWNET_CREDIT)
                param_invalid(rep, "network.routing",
                              "%s's routing can deadlock under credit flow control: its channel dependency graph "
                              "has the cycle %s (choose routing=\"up-down\", or network.flow-control=\"infinite\")",
                              p->file.text, cyc);
            topo_free(&t);
        }
    }
    swnet_check(core, &p->sw, gr_routings, GR_NROUTINGS, hosts, shape, rep);
}

static int gr_resolve_phy(const net_params *core, void *params, const phy_params *phy, net_phy *out, char *err,
                          size_t errlen)
{
    gr_params *p = params;
    topo t;
    if (gr_build(core, p, &t, err, errlen) != 0)
        return -1;
    int rc = swnet_resolve_phy(core, &p->sw, phy, &t, out, err, errlen);
    topo_free(&t);
    return rc;
}

static double gr_mem_bytes(const net_params *core, const void *params)
{
    const gr_params *p = params;
    topo t;
    char err[1024];
    if (gr_build(core, p, &t, err, sizeof err) != 0)
        return 0; /* the checks report it */
    double bytes = swnet_mem_bytes(core, &p->sw, &t) + topo_graph_mem_bytes(&t);
    topo_free(&t);
    return bytes;
}

static double gr_uniform_bound(const net_params *core, const void *params)
{
    topo t;
    char err[1024];
    if (gr_build(core, params, &t, err, sizeof err) != 0)
        return 1; /* the checks report it */
    double bound = t.ops->uniform_bound(&t);
    topo_free(&t);
    return bound;
}

static int gr_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    const gr_params *p = params;
    param_first first;
    gr_check(net_core(n), p, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    topo t;
    if (gr_build(net_core(n), p, &t, err, errlen) != 0)
        return -1;
    return swnet_init(state, n, &t, &p->sw, err, errlen);
}

const net_ops net_graph_ops = {
    .name = "graph",
    .description = "any switched fabric from a DOT file (ORCS's format): packets, virtual cut-through, credits; "
                   "routes from the file, shortest, up-down or ecmp",
    .params = gr_rows,
    .nparams = sizeof gr_rows / sizeof gr_rows[0],
    .params_size = sizeof(gr_params),
    .check = gr_check,
    .resolve_phy = gr_resolve_phy,
    .mem_bytes = gr_mem_bytes,
    .uniform_bound = gr_uniform_bound,
    .init = gr_init,
    SWNET_OPS,
};
