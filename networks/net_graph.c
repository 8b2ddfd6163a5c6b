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
 * Failures (the row is the core's, SWNET_ROWS; the parametric fabrics
 * apply it in networks/topo_fail.c, the graph in topo_graph.c):
 * network.failed-links names links between switches that are
 * down (A-B: every link between A and B), or a count k drawn per replica
 * (k distinct links between switches, uniformly, from a copy of the
 * fabric's stream: replica r of every point fails the same links). The
 * computed routings are computed without them; routes read from the file
 * stay, a message taking its next intact lmc path when its own crosses one
 * (a pair with none is an error naming it; topo_graph.c). A fabric the
 * failures cut in two is an error before the run. With a count, the checks
 * and the saturation bound before the runs see the fabric whole (which
 * links fail is known per run); each run's build reports what its draw
 * cuts. network.fail-at (a failure during the run): the fabric is built
 * twice, before (every link up) and after (the failures; its routing as a
 * run failed from the start), one topology switching from the first to the
 * second at the failure (topo_fail_init_pair); the swnet core loses the
 * packets on and queued for the failed links and routes every later hop
 * with the second. Under credit flow control the dependencies while the
 * packets routed before drain must be acyclic
 * (topo_graph_transition_cycle): refused before the run otherwise (named
 * links in the check, a drawn count at the run's build).
 *
 * Deadlock: the computed routings use one virtual channel, routing="file"
 * the file's classes (vcN lists, vcstep links, vcs); with credit flow
 * control (the default) a cycle in the channel dependency graph over
 * (link, class) (Dally and Seitz, IEEE Trans. Computers 1987: acyclic iff
 * deadlock-free) is refused before the run, naming the cycle's links;
 * up-down never has one.
 * With network.flow-control="infinite" nothing can block and any routing
 * runs. network.flow-control="pfc" pauses each (class, VC) pair of a link
 * on a priority of its own (swnet.c), so it is taken when the dependency
 * graph over (link, VC) is acyclic (up-down always; shortest and ecmp when
 * the graph allows; a file's classes, e.g. an exported torus's dateline
 * classes) and classes x VCs <= 8.
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
    SWNET_ROWS(gr_params, sw, topo_graph_routings),
    {.path = "network.file", .type = "file", .unit = "",
     .def = "fabric.dot",
     .help = "graph: the DOT file of switches, hosts (names starting with H, or kind=host), links and routes (edge "
             "comments: destination hosts, * for all)",
     .kind = PARAM_FILE, .off = offsetof(gr_params, file), .example = "fabric.dot"},
};


/* draw: 1 with seed for the links a count fails (a run's); 0: a count fails none (checks, estimates) */
static int gr_build_with(const net_params *core, const gr_params *p, const char *failed, int draw, uint64_t seed,
                         topo *t, char *err, size_t errlen)
{
    if (!p->file.path[0])
        return tn_error(err, errlen, "graph: network.file is not given");
    topo_graph_params tp = {
        .path = p->file.path,
        .routing = (topo_graph_routing)swnet_routing_of(&p->sw, topo_graph_routing_names),
        .bandwidth_bps = core ? core->bandwidth_bps : 0,
        .link_ps = core ? core->link_latency_ps : 0,
        .failed_links = failed,
        .fail_draw = draw,
        .fail_seed = seed,
    };
    return topo_graph_init(t, &tp, err, errlen);
}

static int gr_build_fail(const net_params *core, const gr_params *p, int draw, uint64_t seed, topo *t, char *err,
                         size_t errlen)
{
    return gr_build_with(core, p, p->sw.failed_links, draw, seed, t, err, errlen);
}

/* network.fail-at: the fabric before its failures (every link up) and
 * after (its routing recomputed without them), one topology routing with
 * the first until the failure (topo_fail_init_pair); *cycle (allocated, or
 * NULL): a channel dependency cycle of the routes while the packets routed
 * before the failure drain (topo_graph_transition_cycle). */
static int gr_build_pair(const net_params *core, const gr_params *p, int draw, uint64_t seed, topo *t,
                         char **cycle, char *err, size_t errlen)
{
    topo before, after;
    *cycle = NULL;
    if (gr_build_fail(core, p, draw, seed, &after, err, errlen) != 0)
        return -1;
    if (gr_build_with(core, p, "", 0, 0, &before, err, errlen) != 0) {
        topo_free(&after);
        return -1;
    }
    *cycle = topo_graph_transition_cycle(&before, &after);
    topo_fail_init_pair(t, &before, &after, topo_graph_link_failed);
    return 0;
}

static int gr_build(const net_params *core, const gr_params *p, topo *t, char *err, size_t errlen)
{
    return gr_build_fail(core, p, 0, 0, t, err, errlen);
}

/* A credit reaches its sender sw-alloc-delay + credit-delay + the link's
 * latency after the flit left (iqrouter.c head, "Credits"); at 0 it would be
 * usable in the flit time that freed it, and such runs go on for ever.
 * iqr_check refuses the fabric's link-latency and host-link-latency at 0
 * with both delays 0, the dragonfly its global-link-latency (net_dragonfly.c);
 * a DOT edge's own latency="0" (topo_graph.c's edge attributes) is checked
 * here, when iqr_check has not refused the run already. */
static void gr_check_zero_links(const net_params *core, const gr_params *p, const topo *t, param_report *rep)
{
    int64_t ds = p->sw.sw_alloc_delay_ps + p->sw.credit_delay_ps;
    int64_t hl = p->sw.host_link_ps >= 0 ? p->sw.host_link_ps : core->link_latency_ps;
    if (p->sw.router != SWNET_IQ || !t->ops->link_attr || ds > 0 || core->link_latency_ps <= 0 || hl <= 0)
        return;
    uint64_t n = 0, first = 0;
    for (uint64_t l = 0; l < t->links; l++) {
        double bps;
        int64_t ps;
        if (t->ops->link_attr(t, l, &bps, &ps) && ps == 0 && !n++)
            first = l;
    }
    if (!n)
        return;
    const char *a, *b;
    if (first < t->hosts) {
        uint32_t sw, port;
        t->ops->attach(t, (uint32_t)first, &sw, &port);
        a = topo_graph_host_name(t, (uint32_t)first);
        b = topo_graph_switch_name(t, sw);
    } else {
        uint64_t x = first - t->hosts;
        uint32_t sw = t->ops->locate(t, x);
        topo_end e = t->ops->peer(t, sw, (uint32_t)(x - t->ops->port_base(t, sw)));
        a = topo_graph_switch_name(t, sw);
        b = e.kind == TOPO_HOST ? topo_graph_host_name(t, e.id) : topo_graph_switch_name(t, e.id);
    }
    param_invalid(rep, "network.file",
                  "%s: %llu directed link%s of latency 0 (the first %s -> %s); with sw-alloc-delay and "
                  "credit-delay 0 the input-queued router would use a credit over such a link in the flit time "
                  "that freed it: give sw-alloc-delay or credit-delay a positive time, or those edges a positive "
                  "latency",
                  p->file.text, (unsigned long long)n, n == 1 ? "" : "s", a, b);
}

static void gr_check(const net_params *core, const void *params, param_report *rep)
{
    const gr_params *p = params;
    net_check_core(core, rep);
    uint64_t hosts = 0;
    char shape[PARAM_PATH_MAX + 32];
    snprintf(shape, sizeof shape, "the graph of %s", p->file.text[0] ? p->file.text : "network.file");
    int routing_ok = topo_routing_of(topo_graph_routing_names, p->sw.routing) >= 0;
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
            /* PFC pauses a (class, VC) pair on its own priority (swnet.c):
             * deadlock-free when the dependency graph over (link, VC) is
             * acyclic, the build's check */
            if (p->sw.flow_control == SWNET_PFC && cyc)
                param_invalid(rep, "network.flow-control",
                              "pfc can deadlock on %s's routing: its channel dependency graph has the cycle %s "
                              "(choose routing=\"up-down\")",
                              p->file.text, cyc);
            else
                swnet_pfc_classes(core, &p->sw, t.vcs, NULL, shape, rep);
            swnet_ci_classes(&p->sw, t.vcs, shape, rep); /* a graph with vcs = N > 1 (review6) */
            uint32_t k;
            if (p->sw.fail_at_ps >= 0 && p->sw.flow_control == SWNET_CREDIT &&
                !topo_graph_failed_count(p->sw.failed_links, &k)) {
                topo before;
                if (gr_build_with(core, p, "", 0, 0, &before, e2, sizeof e2) == 0) {
                    char *tc = topo_graph_transition_cycle(&before, &t);
                    if (tc)
                        param_invalid(rep, "network.fail-at",
                                      "while the packets routed before the failure of %s drain, %s's routes before "
                                      "and after it can deadlock under credit flow control: their channel "
                                      "dependency graph has the cycle %s (choose routing=\"up-down\" with a root "
                                      "whose breadth-first levels the failures do not change, or "
                                      "network.flow-control=\"infinite\")",
                                      topo_graph_failed(&t), p->file.text, tc);
                    free(tc);
                    topo_free(&before);
                }
            }
            swnet_check_degraded(&p->sw, &t, rep);
            gr_check_zero_links(core, p, &t, rep);
            topo_free(&t);
        }
    }
    swnet_check(core, &p->sw, topo_graph_routing_names, hosts, shape, rep);
}

static int gr_resolve_phy(const net_params *core, void *params, const phy_params *phy, net_phy *out, char *err,
                          size_t errlen)
{
    gr_params *p = params;
    topo t;
    if (gr_build(core, p, &t, err, errlen) != 0)
        return -1;
    if (swnet_populate(core, &p->sw, &t, err, errlen) != 0)
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
    double graph_bytes = topo_graph_mem_bytes(&t); /* the graph's own (before a partly populated wrapper) */
    topo before;
    if (p->sw.fail_at_ps >= 0 && gr_build_with(core, p, "", 0, 0, &before, err, sizeof err) == 0) {
        /* network.fail-at: the fabric before its failures too (gr_build_pair) */
        graph_bytes += topo_graph_mem_bytes(&before);
        topo_free(&before);
    }
    if (swnet_populate(core, &p->sw, &t, err, sizeof err) != 0)
        return 0;
    double bytes = swnet_mem_bytes(core, &p->sw, &t) + graph_bytes;
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

static int64_t gr_fixed_latency_ps(const net_params *core, const void *params)
{
    return swnet_fixed_latency_ps(core, &((const gr_params *)params)->sw);
}

static int gr_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    const gr_params *p = params;
    param_first first;
    gr_check(net_core(n), p, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    /* a count of failed links is drawn per replica from a copy of the
     * fabric's stream (the stream itself is left as without failures) */
    uint64_t seed = 0;
    uint32_t k;
    int draw = topo_graph_failed_count(p->sw.failed_links, &k) && k > 0;
    if (draw) {
        gsl_rng *c = gsl_rng_clone(n->rng);
        seed = (uint64_t)gsl_rng_get(c) << 32 ^ (uint64_t)gsl_rng_get(c);
        gsl_rng_free(c);
    }
    topo t;
    char *tcyc = NULL;
    if (p->sw.fail_at_ps >= 0 ? gr_build_pair(net_core(n), p, draw, seed, &t, &tcyc, err, errlen) != 0
                              : gr_build_fail(net_core(n), p, draw, seed, &t, err, errlen) != 0)
        return -1;
    if (tcyc && draw && p->sw.flow_control == SWNET_CREDIT) {
        tn_error(err, errlen,
                 "network.failed-links=%u, network.fail-at: while the packets routed before this run's failures (%s) "
                 "drain, %s's routes before and after them can deadlock under credit flow control: their channel "
                 "dependency graph has the cycle %s (choose routing=\"up-down\", or network.flow-control=\"infinite\")",
                 k, topo_failed_names(&t), p->file.text, tcyc);
        free(tcyc);
        topo_free(&t);
        return -1;
    }
    free(tcyc); /* named links: the fabric's check refused a cycle */
    /* the checks saw the whole fabric: the routes around this run's drawn
     * links may close a channel dependency cycle */
    const char *cyc = draw ? topo_graph_cycle(topo_fail_after(&t) ? topo_fail_after(&t) : &t) : NULL;
    if (cyc && p->sw.flow_control == SWNET_CREDIT) {
        tn_error(err, errlen,
                 "network.failed-links=%u: with this run's failed links (%s) %s's routing can deadlock under credit "
                 "flow control: its channel dependency graph has the cycle %s (choose routing=\"up-down\", or "
                 "network.flow-control=\"infinite\")",
                 k, topo_failed_names(&t), p->file.text, cyc);
        topo_free(&t);
        return -1;
    }
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
    .fixed_latency_ps = gr_fixed_latency_ps,
    .init = gr_init,
    SWNET_OPS,
};
