/* The packet-level switched-network core shared by the multi-switch fabrics
 * (net_torus.c, net_fattree.c, net_leafspine.c, net_dragonfly.c): each of
 * them builds its graph and routing (networks/topo.h) and hands it to this
 * core, which moves packets over it. The model, its sources and the events
 * it costs are in the head of swnet.c; HACKING.md has the summary.
 *
 * A fabric plugin over the core:
 *   - its params struct starts with (or holds) a swnet_params, whose rows
 *     SWNET_ROWS(type, member) declares (the shared parameters: every
 *     topology declares them with the same kind and default, so they are one
 *     parameter each; network.mtu, network.host-scheduling (the host NIC's
 *     rows, host_nic.h) and network.priority are also the single switch's,
 *     network.mtu with its own default there: 0, whole messages, which a
 *     switched fabric refuses), followed by its own rows;
 *   - check: net_check_core, its own rows, then swnet_check (the shared rows,
 *     the routing the topology accepts and system.nodes against its hosts);
 *   - resolve_phy: builds its topology and calls swnet_resolve_phy;
 *   - init: builds its topology and hands it over to swnet_init;
 *   - every other op is the core's (send, zero_load_ps, link_count, route,
 *     metrics, fill_metrics, fini): SWNET_OPS fills them in. */
#ifndef TASKNET_SWNET_H
#define TASKNET_SWNET_H

#include <stddef.h>
#include <stdint.h>

#include "host_nic.h"
#include "network.h"
#include "port.h"
#include "topo.h"
#include "transport.h"

/* network.flow-control */
typedef enum swnet_flow { SWNET_CREDIT = 0, SWNET_INFINITE = 1, SWNET_PFC = 2 } swnet_flow;
extern const char *const swnet_flow_names[]; /* "credit", "infinite", "pfc" */

/* network.routing: the topologies declare their routings (topo.h,
 * topo_<name>_routing_names, _help, _params and topo_<name>_routings); each
 * fabric's row (SWNET_ROWS' third argument R) takes R's choices, "default"
 * then the topology's names, and R's help. */

/* network.router: the switches' model (output-queued: this file's core;
 * input-queued: iqrouter.h) */
typedef enum swnet_router { SWNET_OQ = 0, SWNET_IQ = 1 } swnet_router;
extern const char *const swnet_router_names[]; /* "output-queued", "input-queued" */
/* network.switching (input-queued routers) */
typedef enum swnet_switching { SWNET_CUT_THROUGH = 0, SWNET_SAF = 1, SWNET_WORMHOLE = 2 } swnet_switching;
/* "cut-through", "store-and-forward" (the single switch's), "wormhole": one
 * list with the electrical switch's row of the same path */
extern const char *const swnet_switching_names[];
/* network.allocator (input-queued routers) */
typedef enum swnet_alloc { SWNET_ISLIP = 0, SWNET_INPUT_FIRST = 1 } swnet_alloc;
extern const char *const swnet_alloc_names[]; /* "islip", "separable-input-first" */

/* network.priority, the electrical switch's names and default (NET_PORTS_*, host_nic.h). */
extern const char *const swnet_priority_names[]; /* "fifo", "control-first", "strict", "default" */
/* network.vc-map: priority classes on VCs of their own (credit pools and
 * buffers) or sharing the deadlock classes' VCs */
typedef enum swnet_vcmap { SWNET_VC_PER_CLASS = 0, SWNET_VC_SHARED = 1 } swnet_vcmap;
extern const char *const swnet_vcmap_names[]; /* "per-class", "shared" */

/* network.congestion-isolation (output-queued router, credits): off, or
 * isolating the packets toward congested destinations in a VC of their own
 * (swnet.c's head, "Congestion isolation") */
typedef enum swnet_ci { SWNET_CI_OFF = 0, SWNET_CI_DEST = 1 } swnet_ci;
extern const char *const swnet_ci_names[]; /* "off", "destination" */

/* network.failed-links: its text's largest size */
#define SWNET_FAILED_MAX 1024
/* network.failed-links' syntax: a count, or names A-B separated by spaces or commas. */
int swnet_failed_ok(const char *text, char *err, size_t errlen);
/* network.degraded-links' syntax: A-B:factor entries (0 < factor <= 1) separated by spaces or commas. */
int swnet_degraded_ok(const char *text, char *err, size_t errlen);

/* The shared parameters (rows: SWNET_ROWS) and what resolve_phy derives. */
typedef struct swnet_params {
    nic_params nic;           /* the hosts' NICs: network.host-scheduling, network.mtu (largest packet payload, > 0) */
    int flow_control;         /* enum swnet_flow */
    uint64_t vc_buffer_bytes; /* credit: input buffer of each port and virtual channel, bytes */
    int control_first;        /* network.priority: NET_PORTS_* (host_nic.h): fifo, control-first = strict (lowest
                                 class first, no preemption), default (strict with host-scheduling priority) */
    int vc_map;               /* network.vc-map: enum swnet_vcmap */
    int ci;                   /* network.congestion-isolation: enum swnet_ci */
    uint64_t ci_threshold_bytes; /* network.ci-threshold: a destination is congested from this many bytes of a
                                    class waiting at its switch port (0: vc-buffer) */
    int64_t ci_delay_ps;      /* network.ci-delay: switches and NICs learn a change this much later (< 0: the
                                 notice's way back over the longest route) */
    int routing;              /* index into the fabric's row's choices (0: "default"); topo_routing_of
                                 turns it into the topology's own routing */
    port_cfg buf;             /* output buffers, drop-tail, ECN (flow-control infinite or pfc): networks/port.h */
    uint64_t pfc_xoff, pfc_xon; /* pfc: thresholds per switch ingress link and pause priority, bytes */
    uint64_t pfc_headroom;    /* pfc: bytes a (link, priority) may hold above pfc_xoff, 0: the pause's round
                                 trip (swnet_pfc_headroom) */
    /* the router model (input-queued only but vcs, which both read) */
    int router;               /* enum swnet_router */
    int switching;            /* enum swnet_switching */
    uint64_t flit_bytes;      /* flit size, bytes */
    uint32_t vcs;             /* virtual channels per deadlock class */
    int allocator;            /* enum swnet_alloc: VC and switch allocators */
    uint32_t alloc_iters;     /* allocator iterations */
    int64_t routing_delay_ps, vc_alloc_delay_ps, sw_alloc_delay_ps, st_delay_ps, credit_delay_ps;
    int64_t host_link_ps;     /* host <-> switch links' latency, < 0: network.link-latency */
    int64_t switch_latency_ps; /* input-queued routers: added to st-delay at every switch (the switched fabrics'
                                  network.switch-latency row, 0 when not given; the single switch: the core's) */
    int placement;            /* enum topo_placement: full, or where N < hosts nodes sit (topo_sub.c) */
    char degraded_links[SWNET_FAILED_MAX]; /* network.degraded-links: "" none, or "A-B:0.5 C-D:0.25" */
    char failed_links[SWNET_FAILED_MAX]; /* network.failed-links: "" none, a count, or names A-B (topo_fail.c,
                                            topo_graph.c) */
    int64_t fail_at_ps;       /* network.fail-at: the failed links fail at this time of the run (< 0: down from the
                                 start) */
    /* resolved from the physical layer (swnet_resolve_phy) */
    int phy_resolved;              /* 1 once the two energies below hold the phy's values */
    double serdes_link_j_per_bit;  /* the SerDes at both ends of one link, J per bit */
    double core_j_per_bit;         /* one crossing of a switch core, J per bit */
    /* input-queued routers (iqrouter.c): */
    uint32_t speedup;              /* network.speedup: internal steps per flit time (BookSim2's internal_speedup) */
    int64_t global_link_ps;        /* dragonfly network.global-link-latency, < 0: network.link-latency */
    uint32_t group_routers;        /* dragonfly: routers per group (switch s is in group s / it); 0: no groups */
} swnet_params;

/* Pause priorities of a link (IEEE 802.1Qbb's 3-bit priority). */
#define SWNET_PFC_PRIOS 8

/* Largest MTU: packet sizes are kept in 32 bits. */
#define SWNET_MAX_MTU_BYTES (UINT64_C(1) << 30)

#define SWNET_ROW_(path_, type_, unit_, def_, help_) \
    .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_

/* Rows the single electrical switch (net_switch.c) shares with the switched
   fabrics for its input-queued router, one macro each (SWNET_ROWS holds them
   all, in its order). */
#define SWNET_ROW_VC_BUFFER(T, m) \
    {SWNET_ROW_("network.vc-buffer", "size", "B", "16.384kB",                                                     \
                "switched fabrics, input-queued switch: input buffer per port and virtual channel (credit "   \
                "flow control; >= mtu)"),                                                                       \
     .kind = PARAM_BYTES, .off = offsetof(T, m.vc_buffer_bytes), .flags = PARAM_POS, .example = "16KiB"}

#define SWNET_ROW_VC_MAP(T, m) \
    {SWNET_ROW_("network.vc-map", "choice", "", "per-class",                                                   \
                "switched fabrics, credit flow control: per-class (each priority class in use has VCs, credits " \
                "and buffers of its own: a class never waits for a credit another holds) | shared (the classes " \
                "share the deadlock classes' VCs)"),                                                             \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.vc_map), .choices = swnet_vcmap_names, .example = "shared",     \
     .when = "network.flow-control=credit"}

#define SWNET_ROW_ROUTER(T, m) \
    {SWNET_ROW_("network.router", "choice", "", "output-queued",                                               \
                "switched fabrics and the electrical switch: output-queued (packets join output FIFOs, no "    \
                "allocators) | input-queued (BookSim2's VC router: input VC buffers of flits, VC and switch "   \
                "allocation, crossbar)"),                                                                       \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.router), .choices = swnet_router_names,                        \
     .example = "input-queued"}

/* flit-size, vcs, allocator, allocator-iterations and the pipeline delays */
#define SWNET_ROWS_IQ(T, m) \
    {SWNET_ROW_("network.flit-size", "size", "B", "16B",                                                       \
                "input-queued routers: flit size; a flit time is flit-size / bandwidth (BookSim2's cycle)"),    \
     .kind = PARAM_BYTES, .off = offsetof(T, m.flit_bytes), .flags = PARAM_POS, .example = "1B"},               \
    {SWNET_ROW_("network.vcs", "integer", "", "1",                                                             \
                "input-queued routers: virtual channels per deadlock class of the routing (BookSim2's "        \
                "num_vcs / the classes; output-queued: 1 only)"),                                               \
     .kind = PARAM_U32, .off = offsetof(T, m.vcs), .min = 1, .max = 64, .example = "4"},                        \
    {SWNET_ROW_("network.allocator", "choice", "", "islip",                                                    \
                "input-queued routers: VC and switch allocators: islip | separable-input-first (round-robin " \
                "arbiters)"),                                                                                   \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.allocator), .choices = swnet_alloc_names,                      \
     .example = "separable-input-first"},                                                                       \
    {SWNET_ROW_("network.allocator-iterations", "integer", "", "1",                                            \
                "input-queued routers: iterations of the allocators (BookSim2's alloc_iters)"),                 \
     .kind = PARAM_U32, .off = offsetof(T, m.alloc_iters), .min = 1, .max = 16, .example = "2"},                \
    {SWNET_ROW_("network.routing-delay", "time", "s", "1ns",                                                   \
                "input-queued routers: route computation of a head flit (BookSim2's routing_delay)"),          \
     .kind = PARAM_PS, .off = offsetof(T, m.routing_delay_ps), .flags = PARAM_NONNEG, .example = "0ns"},        \
    {SWNET_ROW_("network.vc-alloc-delay", "time", "s", "1ns",                                                  \
                "input-queued routers: VC allocation, waited again after a lost one (vc_alloc_delay)"),        \
     .kind = PARAM_PS, .off = offsetof(T, m.vc_alloc_delay_ps), .flags = PARAM_NONNEG, .example = "1ns"},       \
    {SWNET_ROW_("network.sw-alloc-delay", "time", "s", "1ns",                                                  \
                "input-queued routers: switch allocation, waited again after a lost one (sw_alloc_delay)"),    \
     .kind = PARAM_PS, .off = offsetof(T, m.sw_alloc_delay_ps), .flags = PARAM_NONNEG, .example = "1ns"},       \
    {SWNET_ROW_("network.st-delay", "time", "s", "1ns",                                                        \
                "input-queued routers: crossbar traversal (BookSim2's st_prepare_delay + st_final_delay)"),    \
     .kind = PARAM_PS, .off = offsetof(T, m.st_delay_ps), .flags = PARAM_NONNEG, .example = "1ns"},             \
    {SWNET_ROW_("network.credit-delay", "time", "s", "0s",                                                    \
                "input-queued routers: a credit's processing before its link (BookSim2's credit_delay)"),      \
     .kind = PARAM_PS, .off = offsetof(T, m.credit_delay_ps), .flags = PARAM_NONNEG, .example = "2ns"}

#define SWNET_ROW_HOST_LINK(T, m)                                                                             \
    {SWNET_ROW_("network.host-link-latency", "time", "s", "-1ps",                                              \
                "input-queued routers: latency of the host <-> switch links (negative: network.link-latency)"), \
     .kind = PARAM_PS, .off = offsetof(T, m.host_link_ps), .example = "0ns"}

/* network.switch-latency, the switched fabrics' copy of the core's row (one
 * path, one parameter: a value given reaches both; not given, each owner
 * keeps its own default). Its rule (iqrouter.c's head, "Switch latency"):
 * the output-queued router reads the core's (200 ns by default), the
 * input-queued router this one, added to st-delay at every switch; 0 when
 * not given, as BookSim2's routers have no such term. Its `when` says so to
 * the configuration layer: where the router is input-queued this row, not
 * the core's, is the value cfg_get reads (the core's still applies
 * everywhere, so the condition refuses nothing). */
#define SWNET_ROW_SWITCH_LATENCY(T, m)                                                                        \
    {SWNET_ROW_("network.switch-latency", "time", "s", "0s",                                                    \
                "switched fabrics' input-queued router: added to st-delay at every switch; 0 when not given " \
                "(BookSim2's routers have no such term; the output-queued router keeps the core's 200ns)"),    \
     .kind = PARAM_PS, .off = offsetof(T, m.switch_latency_ps), .flags = PARAM_NONNEG, .example = "200ns",        \
     .when = "network.router=input-queued"}

#define SWNET_ROW_SPEEDUP(T, m) \
    {SWNET_ROW_("network.speedup", "integer", "", "1",                                                         \
                "input-queued routers: allocation and crossbar steps per flit time, output buffers draining "  \
                "at link rate, credits back one per input port per flit time (BookSim2's internal_speedup)"),  \
     .kind = PARAM_U32, .off = offsetof(T, m.speedup), .min = 1, .max = 16, .example = "2"}

/* network.pfc-headroom (the switch declares it too) */
#define SWNET_ROW_PFC_HEADROOM(T, f)                                                                          \
    {SWNET_ROW_("network.pfc-headroom", "size", "B", "0B",                                                     \
                "PFC: bytes one ingress link and priority may hold above pfc-xoff (what arrives while the "    \
                "pause travels); one more is dropped and counted. 0: the pause's round trip, (link there + "   \
                "switch + link back) x B + mtu per link, which never drops (one given needs a transport). "     \
                "With network.buffer, priorities x "                                                            \
                "(pfc-xoff + headroom) must fit in it"),                                                        \
     .kind = PARAM_BYTES, .off = offsetof(T, f), .flags = PARAM_NONNEG, .example = "30kB"}

/* The shared rows, for a params struct `T` whose swnet_params is member `m`. */
#define SWNET_ROWS(T, m, R)                                                                                   \
    {SWNET_ROW_("network.mtu", "size", "B", "4.096kB",                                                             \
                "switched fabrics: largest packet payload; messages are cut into packets (> 0)"),             \
     .kind = PARAM_BYTES, .off = offsetof(T, m.nic.mtu_bytes), .flags = PARAM_NONNEG, .example = "4KiB"},        \
    NIC_ROW_SCHEDULING(T, m.nic),                                                                              \
    {SWNET_ROW_("network.flow-control", "choice", "", "credit",                                                \
                "switched fabrics: credit (lossless, finite buffers) | infinite (unbounded buffers) | pfc "     \
                "(priority flow control: pause frames per class, and per VC on tori and dragonflies)"),         \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.flow_control), .choices = swnet_flow_names,                     \
     .example = "credit"},                                                                                      \
    {SWNET_ROW_("network.pfc-xoff", "size", "B", "40kB",                                                       \
                "PFC: bytes of one switch ingress link and pause priority (class; on tori and dragonflies "    \
                "class and VC) waiting in the switch above which it sends a pause frame upstream"),            \
     .kind = PARAM_BYTES, .off = offsetof(T, m.pfc_xoff), .flags = PARAM_POS, .example = "40kB"},              \
    {SWNET_ROW_("network.pfc-xon", "size", "B", "20kB",                                                        \
                "PFC: bytes at or below which a paused ingress link and priority is resumed (< pfc-xoff)"),   \
     .kind = PARAM_BYTES, .off = offsetof(T, m.pfc_xon), .flags = PARAM_NONNEG, .example = "20kB"},            \
    SWNET_ROW_PFC_HEADROOM(T, m.pfc_headroom),                                                                            \
    SWNET_ROW_VC_BUFFER(T, m),                                                                                 \
    {SWNET_ROW_("network.priority", "choice", "", "default",                                                   \
                "switched fabrics: fifo | control-first or strict (sources and output ports serve the lowest "  \
                "class first) | default (strict with host-scheduling=priority, else fifo)"),                     \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.control_first), .choices = swnet_priority_names,               \
     .example = "strict"},                                                                                      \
    SWNET_ROW_VC_MAP(T, m),                                                                                    \
    {SWNET_ROW_("network.congestion-isolation", "choice", "", "off",                                          \
                "switched fabrics, credit flow control, output-queued, one deadlock class (fat-tree, "        \
                "leaf-spine, graph): off | destination (IEEE 802.1Qcz congestion isolation, RECN: a destination "      \
                "whose switch port has ci-threshold bytes of a class waiting is congested; that class's "      \
                "packets toward it take an isolation VC of their own on every link, with its own credits, "    \
                "and the NICs send another message while that VC is out of credit)"),                         \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.ci), .choices = swnet_ci_names, .example = "destination",       \
     .when = "network.flow-control=credit"},                                                                    \
    {SWNET_ROW_("network.ci-threshold", "size", "B", "0B",                                                     \
                "congestion isolation: bytes of one class waiting at a destination's switch port from which "  \
                "the destination is congested (free again when that queue is empty and no isolated packet "  \
                "toward it is left); 0: network.vc-buffer"),    \
     .kind = PARAM_BYTES, .off = offsetof(T, m.ci_threshold_bytes), .flags = PARAM_NONNEG, .example = "32kB",    \
     .when = "network.congestion-isolation=destination"},                                                       \
    {SWNET_ROW_("network.ci-delay", "time", "s", "-1ps",                                                       \
                "congestion isolation: the switches and NICs learn that a destination became congested or "    \
                "free this much after its port (802.1Qcz's message travelling back hop by hop); negative: "     \
                "its way back over the longest route, every link but the last and every switch but the "        \
                "destination's (leaf-spine: 3 link-latency + 2 switch-latency)"),                             \
     .kind = PARAM_PS, .off = offsetof(T, m.ci_delay_ps), .example = "2us",                                     \
     .when = "network.congestion-isolation=destination"},                                                       \
    {SWNET_ROW_("network.routing", "choice", "", "default", (R).row_help),                                     \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.routing), .choices = (R).choices,                               \
     .example = "default"},                                                                                     \
    PORT_ROWS(T, m.buf),                                                                                   \
    {SWNET_ROW_("network.placement", "choice", "", "full",                                                     \
                "switched fabrics: full (system.nodes = the fabric's hosts) | first (N below the host count: "  \
                "nodes on hosts 0..N-1) | spread (node i on host floor(i H / N)); partly populated fabrics"),    \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.placement), .choices = topo_placement_names,                  \
     .example = "first"},                                                                                       \
    {SWNET_ROW_("network.failed-links", "text", "", "",                                                        \
                "switched fabrics: links between switches that are down: a number k (k links drawn per "       \
                "replica, uniformly) or names A-B as export-topology writes them (S3-S17; a graph's own "      \
                "names; every link between A and B). fat-tree and leaf-spine climb by another up port, "      \
                "torus another minimal or the long way round, dragonfly another global link (valiant/ugal: "  \
                "another intermediate), graph's computed routings avoid them, graph file routes take the "     \
                "next intact lmc path; pairs left without a route are an error before the run"),               \
     .kind = PARAM_TEXT, .off = offsetof(T, m.failed_links), .max = SWNET_FAILED_MAX,                          \
     .name_ok = swnet_failed_ok, .example = "S0-S4 S2-S5"},                                                     \
    {SWNET_ROW_("network.degraded-links", "text", "", "",                                                      \
                "switched fabrics: links running at a fraction of their bandwidth: A-B:factor entries "       \
                "(0 < factor <= 1; A-B named as for failed-links, host links too; both directions of every "   \
                "link between A and B). Routing does not change (a degraded link is not a failed one); "     \
                "both routers (input-queued: a flit takes flit time / factor on it, sent back to back)"),       \
     .kind = PARAM_TEXT, .off = offsetof(T, m.degraded_links), .max = SWNET_FAILED_MAX,                        \
     .name_ok = swnet_degraded_ok, .example = "S0-S4:0.5 S2-S5:0.25"},                                        \
    {SWNET_ROW_("network.fail-at", "time", "s", "-1ps",                                                        \
                "switched fabrics: the failed links fail at this time of the run (negative: down from the "     \
                "start); packets on or queued for them then are lost (lost_packets) and a transport must "    \
                "recover them; fat-tree, leaf-spine, torus, dragonfly and graph (its routing recomputed then), "\
                "both routers (input-queued: a packet with a flit on, or an output VC of, a failed link is lost "\
                "whole and frees its VCs)"),                                                                    \
     .kind = PARAM_PS, .off = offsetof(T, m.fail_at_ps), .example = "50us"},                                     \
    SWNET_ROW_ROUTER(T, m),                                                                                    \
    {SWNET_ROW_("network.switching", "choice", "", "cut-through",                                              \
                "input-queued routers: cut-through (a head leaves only when the next buffer holds its whole "  \
                "packet) | wormhole (credit per flit)"),                                                        \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.switching), .choices = swnet_switching_names,                  \
     .example = "wormhole"},                                                                                    \
    SWNET_ROWS_IQ(T, m),                                                                                       \
    SWNET_ROW_HOST_LINK(T, m),                                                                                 \
    SWNET_ROW_SPEEDUP(T, m),                                                                                   \
    SWNET_ROW_SWITCH_LATENCY(T, m)

/* The shared rules: mtu, vc-buffer (>= mtu with credits, so a packet always
 * fits), the routing one of `routings` (the topology's names table, topo.h)
 * and system.nodes equal to the topology's `hosts` (0: unknown, its own
 * check failed). Reported at their paths. */
void swnet_check(const net_params *core, const swnet_params *p, const char *const *routings, uint64_t hosts,
                 const char *shape, param_report *rep);
/* The topology's routing (index in its names table `routings`) that p
 * names; 0, its first, when it names none of them (swnet_check reports it). */
static inline int swnet_routing_of(const swnet_params *p, const char *const *routings)
{
    int r = topo_routing_of(routings, p->routing);
    return r < 0 ? 0 : r;
}

/* Energy per bit of the electrical links and switch cores (phy/energy.h,
 * SerDes in lanes as the single switch's): into p; the summary for a path
 * of the mean number of switches from host 0 to every other host of t. */
int swnet_resolve_phy(const net_params *core, swnet_params *p, const phy_params *phy, const topo *t,
                      net_phy *out, char *err, size_t errlen);

/* Counters of an instance (tests, tools). */
typedef struct swnet_stats {
    uint64_t packets;         /* packets cut from messages */
    uint64_t packet_hops;     /* switch crossings of delivered packets */
    uint64_t credit_stalls;   /* times a port had packets but no credit for any of them */
    uint64_t wakes;           /* port wake-up events run */
    uint64_t valiant_packets; /* UGAL: packets that took the Valiant path */
    uint64_t adaptive_escape; /* torus adaptive: packets that took the DOR escape */
    uint64_t live_packets;    /* packets in the fabric now */
} swnet_stats;

/* The core's state (a fabric's state_size is sizeof(swnet)); its fields
 * are the core's own (swnet.c). */
struct swnet_port;
struct swnet_credit;
struct swnet_pkt;
struct swnet_tok;
struct iqr;
typedef struct swnet {
    net *n;                       /* framework handle */
    topo t;                       /* graph and routing, owned */
    topo zl;                      /* zero-load routes when they differ from t's (zl.ops NULL: t), owned */
    int placement;                /* enum topo_placement (swnet_set_zero_load_topo populates zl as t) */
    uint64_t routes_key;          /* net_ops.routes_key: what a count of failed links drew (0: none) */
    uint32_t hosts;               /* N */
    uint32_t links;               /* directed links, host links included */
    net_rate rate;                /* B on every link */
    int64_t link_ps;              /* one link, propagation, ps */
    int64_t sw_ps;                /* one switch traversal (routing and crossbar), ps */
    uint64_t mtu;                 /* largest packet payload, bytes */
    int64_t cap_bytes;            /* input buffer per port and VC, bytes (credit flow control) */
    int credit;                   /* 1: credit flow control, 0: unbounded buffers */
    unsigned vcs;                 /* virtual channels per port: the topology's classes */
    unsigned nclass;              /* service classes at the ports: 1, or NET_PRIO_CLASSES (strict ports, or
                                     per-class VCs) */
    unsigned nq;                  /* packet queues per output port: nclass x vcs */
    int strict;                   /* 1: output ports serve the lowest class first (network.priority) */
    int pcv;                      /* 1: per-class VCs (network.vc-map per-class, credits, classes at the hosts):
                                     credit pools per (class, VC) */
    unsigned npool;               /* credit pools per link: nq with pcv, else vcs */
    unsigned pool_cstride;        /* pool of (class, VC) = class x this + VC: vcs with pcv, else 0 */
    unsigned pick_ncl, pick_nv;   /* a FIFO port's pick: classes in order (strict: nclass, else 1) x queues
                                     by age in each (strict: vcs, else all nq) */
    int srpt;                     /* 1: output ports serve the message with the fewest bytes left (host-scheduling
                                     srpt and flow-control infinite) */
    uint8_t class_of_prio[NET_PRIO_CLASSES]; /* message priority -> service class */
    int ci;                       /* 1: congestion isolation (network.congestion-isolation destination) */
    unsigned ci_vc;               /* its VC: the topology's VCs + 0 (the last of vcs) */
    int64_t ci_thr;               /* bytes of a class waiting at a destination's port that make it congested */
    int64_t *ci_q;                /* [hosts x NET_PRIO_CLASSES] bytes waiting (not started) at the port toward
                                     each host, per class */
    uint8_t *ci_iso;              /* [hosts x NET_PRIO_CLASSES] bit 0: (destination, class) isolated at its
                                     port; bit 1: before its last change (ci_seen) */
    int64_t *ci_t;                /* [hosts x NET_PRIO_CLASSES] its last change */
    int64_t *ci_n;                /* [hosts x NET_PRIO_CLASSES] packets toward it in an isolation buffer or
                                     bound for one (the destination is freed only with none left) */
    int64_t ci_delay;             /* the others learn a change this much after the port (network.ci-delay) */
    uint64_t ci_isolations;       /* (destination, class) pairs that became congested, over the run */
    int lookahead;                /* 1: a packet's output at a switch is found as it leaves for it (oblivious
                                     routings: every choice is the record's) */
    uint64_t salt_key;            /* drawn from the fabric's stream: message salts */
    uint64_t *int_tx;             /* [links] bytes each port sent (INT: a transport asked for it, lk_ready), else NULL */
    unsigned char *lk;            /* [links] blocks of `stride` bytes: the output side of a link (port,
                                     its FIFOs per class and VC, the credits of the buffer it enters);
                                     allocated at init, written (zeroed, credits full) at the first
                                     message or failure (lk_ready, lk_live): a fabric built for its
                                     routes alone (pattern timing="off") never touches it */
    int lk_live;                  /* lk is written */
    size_t stride;                /* bytes of one link's block */
    host_nic nic;                 /* the hosts: messages waiting at their source, the next packet's choice */
    struct swnet_pkt *pkt_free;   /* packet free list */
    struct swnet_tok *tok_free;   /* credit token free list */
    void **chunks;                /* pool chunks (freed at fini) */
    size_t nchunks;
    struct swnet_pkt **pchunks;   /* the packet chunks among them, by id / POOL_CHUNK (a lane event's packet) */
    uint32_t npchunks;
    int arrive_lane;              /* engine lane of the hop event (delay link + switch), -1: none left */
    uint64_t seq;                 /* queue-join order (oldest first across VCs) */
    double bound;                 /* topology's uniform-random bound, fraction of B */
    int energy_modelled;          /* 1 when the phy resolved the energies */
    double serdes_link_j;         /* J/bit, both ends of one link */
    double core_j;                /* J/bit, one switch core */
    double energy_zero_j;         /* J/bit of the summary path (no bit delivered yet) */
    double energy_j;              /* energy of delivered packets, J */
    double bits_delivered;        /* payload bits of delivered packets */
    double hops_acc;              /* sum over delivered packets of hops / packets of its message */
    double lost_share;            /* output-queued: sum over arrived packets of lost messages of 1 / packets of
                                     the message (hops_mean's denominator beside msgs_delivered; 0 without drops) */
    uint64_t msgs_delivered;      /* messages delivered */
    int64_t t_first_ps, t_last_ps; /* first hand-over, last delivery (-1: none yet) */
    swnet_stats st;               /* counters */
    int buffered;                 /* 1: finite buffers / ECN at switch outputs (flow-control infinite) */
    port_cfg buf;                 /* their configuration */
    struct swnet_bq *bq;          /* [links] buffered: queue statistics and RED state per output */
    uint64_t *qsw;                /* [switches] buffered: bytes waiting at each switch's outputs */
    uint64_t drops, marks;        /* buffered */
    uint8_t pick_mode;            /* switch_pick: 0 FIFOs, 1 srpt heaps, 2 FIFOs under PFC */
    int pfc;                      /* 1: flow-control pfc (buffered; drops only past the headroom) */
    uint64_t pfc_xoff, pfc_xon;   /* its thresholds */
    unsigned pvcs;                /* pfc: priorities per class: vcs (a priority per (class, VC)), or 1 (every
                                     VC of a class shares one: swnet_pfc_shared, a test aid) */
    unsigned nprio;               /* pfc: pause priorities per link, nclass x pvcs (<= 8, IEEE 802.1Qbb) */
    uint64_t *pfc_lim;            /* [links] pfc: xoff + headroom of link l's ingress (per priority) */
    uint64_t *ingress;            /* [links x nprio] pfc: bytes that entered by link l in priority q, still
                                     waiting (q = class x pvcs + VC of the buffer it entered) */
    uint8_t *xoff_sent;           /* [links x nprio] pfc: a pause is in force (sent, no resume since) */
    int64_t *paused_at;           /* [links x nprio] pfc: when it took effect */
    uint8_t *paused;              /* [links] pfc: priorities the sender of link l must not start (bit q) */
    uint64_t pause_frames;        /* pfc: pause frames sent */
    int64_t paused_ps;            /* pfc: time (link, priority) pairs spent paused, summed */
    uint64_t ingress_max;         /* pfc: the largest bytes of one ingress link and priority held */
    struct iqr *iq;               /* the input-queued router model (iqrouter.c), NULL: output-queued */
    /* links of their own rate or latency (topo_ops.link_attr), else NULL:
     * every link at `rate` and `link_ps` (the hot path then reads none) */
    int lown;                     /* 1: lrate or llat */
    int port_slow;                /* 1: lown or int_tx (port_start's one test for either) */
    net_rate *lrate;              /* [links] each link's rate, NULL: all at `rate` */
    int64_t *llat;                /* [links] each link's latency, NULL: all at link_ps */
    int64_t *lback;               /* [links] with llat: the latency of its reverse link (its credits' way back) */
    uint64_t rate_waits;          /* packets that waited at a switch for their tail from a slower link */
    uint64_t *zl_links;           /* [max_route_links] with lrate or llat: scratch of zero_load_ps */
    int64_t fail_at_ps;           /* network.fail-at: when t's failed links fail (-1: none during the run) */
    int failed;                   /* 1: fail_at_ps is past (t's routing avoids them, packets on them are lost) */
    uint64_t lost_packets;        /* packets lost on or at links that failed during the run */
} swnet;

/* Set up the core on topology t (taken over: released by swnet_fini, also
 * on failure) with the shared params p. 0, or -1 + err. */
/* t as the run sees it: with network.placement first or spread and
 * system.nodes below t's hosts, the partly populated fabric (topo_sub.c;
 * t is replaced). 0, or -1 + err. */
int swnet_populate(const net_params *core, const swnet_params *p, topo *t, char *err, size_t errlen);
/* network.failed-links against t, built by the fabric's check (taken
 * over and freed): names that are not links of t, a count above its links,
 * pairs the named failures leave without a route, a fabric whose routing
 * cannot avoid failures; reported at network.failed-links. */
void swnet_check_failures(const net_params *core, const swnet_params *p, topo *t, param_report *rep);
/* network.degraded-links against t (names that are not links of t), reported there; t is left as it is. */
void swnet_check_degraded(const swnet_params *p, const topo *t, param_report *rep);
/* In a fabric's check, after its own rows: builds its topology with
 * PFX##_build (declared before the check) when failed links are given. */
#define SWNET_CHECK_FAILURES(PFX, core, p, rep)                                                              \
    do {                                                                                                      \
        topo t_;                                                                                              \
        char e_[256];                                                                                         \
        if (((p)->sw.failed_links[0] || (p)->sw.degraded_links[0]) && PFX##_build(p, &t_, e_, sizeof e_) == 0) { \
            swnet_check_degraded(&(p)->sw, &t_, rep);                                                         \
            swnet_check_failures(core, &(p)->sw, &t_, rep);                                                   \
        }                                                                                                     \
    } while (0)
/* Are N nodes a size t's host count allows under p's placement? */
int swnet_nodes_fit(const swnet_params *p, uint64_t nodes, uint64_t hosts);

/* flow-control pfc on a fabric of `vcs` deadlock classes (tori,
 * dragonflies): each (service class, VC) pair is a pause priority of its
 * own; refused, naming the fabric by shape, when they exceed IEEE
 * 802.1Qbb's 8 priorities or when why_not (a routing PFC cannot keep
 * deadlock-free) is given. */
/* network.congestion-isolation on a fabric whose routing needs vcs deadlock
 * classes: refused when vcs > 1 (swnet.c's head, "Congestion isolation"). */
void swnet_ci_classes(const swnet_params *p, unsigned vcs, const char *shape, param_report *rep);
void swnet_pfc_classes(const net_params *core, const swnet_params *p, unsigned vcs, const char *why_not,
                       const char *shape, param_report *rep);
/* The bytes a pause's round trip lets in above pfc-xoff over a link of
 * latency there and back (ps), switch traversal sw_ps, at bps, packets of
 * mtu bytes: the default network.pfc-headroom (swnet.c head: Output
 * buffers). */
uint64_t swnet_pfc_headroom(int64_t there_ps, int64_t back_ps, int64_t sw_ps, double bps, uint64_t mtu);
/* network.buffer under pfc: prios x (xoff + headroom) must fit in it
 * (per port, static policy; automatic: headroom is the default); reported
 * at network.buffer (or buffer-policy). */
void swnet_pfc_buffer_check(const port_cfg *buf, unsigned prios, uint64_t xoff, uint64_t headroom, int automatic,
                            param_report *rep);
/* Test aid (before any message): every VC of a class shares one pause
 * priority, as on a tree; on a torus this can deadlock (swnet.c head). */
void swnet_pfc_shared(void *state);
/* Test aid (pfc): the length of a cycle of paused (link, priority) pairs,
 * each holding packets that wait at the next one's paused output (a PFC
 * deadlock), 0 if none. */
uint64_t swnet_pfc_wait_cycle(const void *state);

/* The drops a run on p can have, from p alone (net_ops.lossy): 1 when the
 * output-queued router's buffers drop (drop-tail or RED under flow-control
 * infinite), NET_LOSSY_PFC under pfc with a pfc-headroom given (it may be
 * below the pause's round trip), else NET_LOSSY_FAILURES when links fail
 * during the run (fail-at), else 0. swnet_init sets net.lossy to the same. swnet_lossy_op
 * is the op of every fabric over the core, whose params begin with their
 * swnet_params (`sw`, the first member of each). */
int swnet_lossy(const swnet_params *p);
int swnet_lossy_op(const void *params);
int swnet_init(void *state, net *n, topo *t, const swnet_params *p, char *err, size_t errlen);

/* Zero-load times on the routes of topology zl instead (taken over): the
 * dragonfly's minimal routes under Valiant routing, whose own routes depend
 * on each message's intermediate group (zero_load_ps is then their lower
 * bound). */
void swnet_set_zero_load_topo(void *state, topo *zl);

void swnet_send(void *state, net_msg *m);
/* splitmix64's finalizer (Steele, Lea and Flood, OOPSLA 2014) */
static inline uint64_t swnet_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The id a message's route is hashed on: its own, or for a transport's
 * segment or ACK its flow's (the workload message's): ECMP hashes a
 * connection's 5-tuple, so one flow's segments take one path and arrive in
 * order (per-segment hashing sprayed them over the spines: duplicate ACKs
 * and spurious fast retransmits without a single loss). */
static inline uint64_t swnet_flow_key(const net_msg *m)
{
    return m->client == NET_TP_CLIENT ? ((const tp_flow *)m->p)->msg_id : m->id;
}

/* The salt of message m's routing choices (a hash of its id with the
 * fabric's key): the same for both router models. Inline: the input-queued
 * host calls it for every packet. */
static inline __attribute__((always_inline)) uint64_t swnet_salt(const swnet *st, const net_msg *m)
{
    return swnet_mix64(st->salt_key ^ swnet_flow_key(m));
}

int64_t swnet_zero_load_ps(const void *state, uint32_t src, uint32_t dst, uint64_t bytes);
uint64_t swnet_link_count(const void *state);
size_t swnet_route(const void *state, uint32_t src, uint32_t dst, uint64_t *links, size_t max);
size_t swnet_route_many(const void *state, size_t n, const uint64_t *ends, uint32_t *links, uint32_t *len,
                        size_t stride);
uint64_t swnet_routes_key(const void *state);
void swnet_fill_metrics(void *state, double *m);
int swnet_queue_report(void *state, int64_t t_end_ps, net_queue_report *r);
uint64_t swnet_credit_leaks(const void *state); /* test aid: 0 when every credit (pfc: ingress count) came back */
void swnet_fini(void *state);

/* The zero-load time of a message of `bytes` crossing h switches, with the
 * core's packetisation and credits (the formula is derived in swnet.c's
 * head): exposed for the tests. */
int64_t swnet_zero_load_h_ps(const void *state, uint32_t h, uint64_t bytes);

/* The topology under the core (tests, tools). */
const topo *swnet_topo(const void *state);
/* export-topology: the rate (bit/s) of each directed link whose rate
 * network.degraded-links changed (0 for the others), [links] allocated;
 * NULL when none did. */
double *swnet_link_rates(const void *state);
/* The single electrical switch's core (net_switch.c) under
 * network.router="input-queued", NULL under output-queued (tests). */
swnet *net_switch_swnet(void *state);

void swnet_get_stats(const void *state, swnet_stats *out);

#define SWNET_METRICS(X)                                                                                      \
    X(hops_mean, "switches crossed per message, mean (its packets' mean; a lost message's arrived packets count for their share)")                                   \
    X(link_utilization_mean, "busy time of a directed link (host links included) / span, mean over links")   \
    X(link_utilization_max, "busy time of a directed link / span, the busiest link")                        \
    X(saturation_bound, "analytic uniform-random saturation throughput per node, a fraction of B")           \
    X(energy_per_bit_j, "network energy per delivered bit (SerDes of every link and core of every switch)")      \
    X(lost_packets, "packets lost to links that failed during the run (network.fail-at): on them, queued for "   \
                    "them, or routed toward them")
enum { SWNET_METRICS(METRIC_ENUM) SWNET_NMETRICS };
extern const metric_def swnet_metrics_def[SWNET_NMETRICS];

/* Memory an instance on topology t holds besides the messages it is
 * handed (net_ops.mem_bytes): the link blocks (swnet_init's layout), the
 * host NICs, and a packet record per host in flight. */
double swnet_mem_bytes(const net_params *core, const swnet_params *p, const topo *t);

/* What a lone message spends besides its bytes at B, from the parameters
 * (net_ops.fixed_latency_ps: the workloads' horizons and task-tree and DAG
 * critical paths, run.c's msg_fixed_ps), in the core's star convention of
 * two host links and one switch: under the output-queued router the
 * core's 2 link + switch-latency (the core's row, 200 ns by default);
 * under the input-queued router its pipeline over that switch
 * (iqr_fixed_latency_ps: T + 2 host link + the four delays + the fabric's
 * switch-latency, 0 when not given). */
int64_t swnet_fixed_latency_ps(const net_params *core, const swnet_params *p);

/* A topology file's ops that need its topology, PFX##_resolve_phy,
 * PFX##_mem_bytes, PFX##_uniform_bound and PFX##_per_packet_paths (the
 * topology's `adaptive`: SWNET_BUILT_FIELDS(PFX) names
 * them in its net_ops): each builds the topology with the file's own
 * `static int PFX##_build(const T *p, topo *t, char *err, size_t errlen)`
 * (T: its params type, whose swnet_params is member `sw`), asks the core
 * or the topology, and frees it; and PFX##_fixed_latency_ps, which needs
 * no topology (swnet_fixed_latency_ps). */
#define SWNET_BUILT_OPS(PFX, T)                                                                               \
    static int PFX##_resolve_phy(const net_params *core, void *params, const phy_params *phy, net_phy *out,   \
                                 char *err, size_t errlen)                                                    \
    {                                                                                                         \
        T *p = params;                                                                                        \
        topo t;                                                                                               \
        if (PFX##_build(p, &t, err, errlen) != 0)                                                             \
            return -1;                                                                                        \
        if (swnet_populate(core, &p->sw, &t, err, errlen) != 0)                                               \
            return -1;                                                                                        \
        int rc = swnet_resolve_phy(core, &p->sw, phy, &t, out, err, errlen);                                  \
        topo_free(&t);                                                                                        \
        return rc;                                                                                            \
    }                                                                                                         \
    static double PFX##_mem_bytes(const net_params *core, const void *params)                                 \
    {                                                                                                         \
        const T *p = params;                                                                                  \
        topo t;                                                                                               \
        char err[256];                                                                                        \
        if (PFX##_build(p, &t, err, sizeof err) != 0 || swnet_populate(core, &p->sw, &t, err, sizeof err) != 0) \
            return 0; /* the checks report it */                                                              \
        double bytes = swnet_mem_bytes(core, &p->sw, &t);                                                     \
        topo_free(&t);                                                                                        \
        return bytes;                                                                                         \
    }                                                                                                         \
    static double PFX##_uniform_bound(const net_params *core, const void *params)                             \
    {                                                                                                         \
        (void)core;                                                                                           \
        topo t;                                                                                               \
        char err[256];                                                                                        \
        if (PFX##_build(params, &t, err, sizeof err) != 0)                                                    \
            return 1; /* the checks report it */                                                              \
        double bound = t.ops->uniform_bound(&t);                                                              \
        topo_free(&t);                                                                                        \
        return bound;                                                                                         \
    }                                                                                                         \
    static int64_t PFX##_fixed_latency_ps(const net_params *core, const void *params)                        \
    {                                                                                                         \
        return swnet_fixed_latency_ps(core, &((const T *)params)->sw);                                        \
    }                                                                                                         \
    static int PFX##_per_packet_paths(const void *params)                                                     \
    {                                                                                                         \
        topo t;                                                                                               \
        char err[256];                                                                                        \
        if (PFX##_build(params, &t, err, sizeof err) != 0)                                                    \
            return 0; /* the checks report it */                                                              \
        int adaptive = t.adaptive;                                                                            \
        topo_free(&t);                                                                                        \
        return adaptive;                                                                                      \
    }
#define SWNET_BUILT_FIELDS(PFX)                                                                               \
    .resolve_phy = PFX##_resolve_phy, .mem_bytes = PFX##_mem_bytes, .uniform_bound = PFX##_uniform_bound,     \
    .fixed_latency_ps = PFX##_fixed_latency_ps, .per_packet_paths = PFX##_per_packet_paths

/* The ops every fabric over the core shares. */
#define SWNET_OPS                                                                                             \
    .state_size = sizeof(swnet), .send = swnet_send, .zero_load_ps = swnet_zero_load_ps,            \
    .link_count = swnet_link_count, .route = swnet_route, .route_many = swnet_route_many, .routes_key = swnet_routes_key, .metrics = swnet_metrics_def,                      \
    .nmetrics = SWNET_NMETRICS, .fill_metrics = swnet_fill_metrics, .fini = swnet_fini, .topology = swnet_topo, \
    .queue_report = swnet_queue_report, .lossy = swnet_lossy_op

#endif
