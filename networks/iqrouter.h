/* The input-queued virtual-channel router (network.router = "input-queued"),
 * a router model of the switched core (swnet.h) beside its output-queued
 * default: per-input-port VC buffers of flits, route computation, VC
 * allocation, switch allocation (separable input-first round robin or
 * iSLIP), a crossbar moving one flit per input and per output per flit
 * time, BookSim2's pipeline delays, credits per flit, wormhole or virtual
 * cut-through switching. The model, its sources and its events are in
 * iqrouter.c's head; HACKING.md "Router models" says how to add one.
 *
 * swnet_init hands an instance over to iqr_init when p->router says so;
 * every swnet op then forwards to the iqr_* function of the same name. */
#ifndef TASKNET_IQROUTER_H
#define TASKNET_IQROUTER_H

#include <stddef.h>
#include <stdint.h>

#include "swnet.h"

/* Set up the router model on swnet st (its topology, NIC, rates and
 * counters set by swnet_init). 0, or -1 + err. */
int iqr_init(swnet *st, const swnet_params *p, char *err, size_t errlen);
void iqr_send(swnet *st, net_msg *m);
/* A lone message of `bytes` over h switches (iqrouter.c's head derives it):
 * exact for one packet, a lower bound for more. */
int64_t iqr_zero_load_h_ps(const swnet *st, uint32_t h, uint64_t bytes);
/* What a lone message spends besides its bytes at B, from the parameters
 * alone (net_ops.fixed_latency_ps under this router; the core's default,
 * 2 link + switch-latency, is the output-queued router's): the zero load
 * above over one switch without bytes (h = 1, F = 0), the core's star
 * convention of two host links and a switch,
 *   T + 2 host-link + routing + vc-alloc + sw-alloc + st + switch-latency
 * (with speedup the four delays' sum rounded up to a flit time). */
int64_t iqr_fixed_latency_ps(const net_params *core, const swnet_params *p);
/* 1 when some link's latency differs from network.link-latency (the
 * dragonfly's global-link-latency, a graph's edge latencies; host links
 * from host-link-latency); then a route's zero load adds
 * iqr_route_extra_ps over its links (topo_route's link ids). */
int iqr_link_latency_varies(const swnet *st);
int64_t iqr_route_extra_ps(const swnet *st, const uint64_t *links, size_t n);
/* A lone message over route links[0..L) (topo_route's link ids), with the
 * links' own latencies and rates (iqrouter.c's head "Links of their own
 * rate" derives it): exact for one packet whose times are all on the flit
 * time's grid, a lower bound otherwise. */
int64_t iqr_zero_load_route_ps(const swnet *st, const uint64_t *links, size_t L, uint64_t bytes);
void iqr_fill_metrics(const swnet *st, double *m);
/* network.fail-at: the topology's failed links have just gone down (swnet.c
 * ev_fail activated them): lose what is on or committed to them, route
 * again the heads not yet committed (iqrouter.c's head). */
void iqr_fail(swnet *st, int64_t now);
void iqr_fini(swnet *st);
/* Memory init allocates for these parameters on topology t. */
double iqr_mem_bytes(const swnet_params *p, const topo *t);
/* The shared rules of the router rows (swnet_check calls it). */
void iqr_check(const net_params *core, const swnet_params *p, param_report *rep);

/* The energy of the bits delivered so far (swnet's energy_j, summed from
 * integer counts: the same in any order of the packets' arrivals). */
double iqr_energy_j(const swnet *st);
/* Counters of the router model (tests). */
typedef struct iqr_stats {
    uint64_t flits;        /* flits that crossed a crossbar */
    uint64_t ticks;        /* router tick events */
    uint64_t va_lost;      /* VC allocation requests that lost */
    uint64_t sa_lost;      /* switch allocation requests that lost */
    uint64_t credit_waits; /* times an input VC with a flit at its front was found short of credit for it at a
                              tick (vc_due), so that it waits for a credit's return */
    uint64_t rechosen;     /* torus adaptive: VC allocation requests whose candidate had no free
                              output VC, so the choice was made again (iqrouter.c route) */
    uint64_t link_waits;   /* switch allocation requests held back for a link of its own rate still sending */
} iqr_stats;
void iqr_get_stats(const swnet *st, iqr_stats *out);
/* Resources not back at their idle values (tests; meaningful once the run
 * has drained): switch and host output VCs whose credits plus the credits
 * on their way differ from the buffer depth, switch output VCs still owned,
 * input VCs holding flits or not idle, packets alive. 0 when every credit,
 * VC and packet came back. */
uint64_t iqr_leaks(const swnet *st);
/* Tests: run the general router tick from now on, not its lean copy
 * (iqrouter.c "The tick's copies"), which must decide the same. */
void iqr_no_lean(swnet *st);
/* Tests: no express switch allocation (sa_express, express_clear) from now
 * on, so the general tick at every step (the lean copy needs the express:
 * off too), which must decide the same. */
void iqr_no_express(swnet *st);

#endif
