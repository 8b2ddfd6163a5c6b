/* The electrical single switch (MODEL.md section 6), message level, or
 * packet level with a host NIC (networks/host_nic.h).
 *
 * A star: node -> link -> switch -> link -> node, bandwidth B on every port.
 * With ser = size*8/B (net_rate_ps), link and sw the latencies:
 *   source: one transmitter per node, FIFO; a message's first bit leaves at
 *     t0 = max(hand-over, end of the previous message of that source).
 *   head at the output port: ta = t0 + link + sw (cut-through), or
 *     ta = t0 + ser + link + sw (store-and-forward: the whole message must
 *     have reached the switch).
 *   output port toward dst: FIFO in the order heads arrive there (ta, then
 *     the engine's order for equal times); start = max(ta, port free);
 *     the port is busy until start + ser; the last bit reaches dst at
 *     start + ser + link.
 * Zero load: ser + 2 link + sw (40 B at 40 Gb/s: 8 + 40 + 200 = 248 ns).
 * Cut-through needs no check that the tail has reached the switch: input
 * and output run at the same B and start >= t0 + link + sw.
 *
 * The port order is the order of head arrival, not of hand-over: a message
 * from an idle source may overtake one queued behind a long message at a
 * busy source. So the head arrival is an event.
 *
 * One class (default): the source FIFO is known at hand-over (t0 is fixed
 * then) and the port is a pure FIFO in event order, so two events per
 * message: head arrival at the port, delivery.
 * Control-first (or its other name, strict): each FIFO serves the lowest
 * class first (net_msg.prio, 0 .. NET_PRIO_CLASSES - 1; the historical
 * control-first used classes 0 and 1), FIFO within a class, never
 * preempting the message on the wire. Whether a message starts next
 * depends on what arrives before its predecessor ends, so each node has
 * class queues at its source and at its output port, and a "free" event
 * is scheduled when a transmitter ends with messages waiting: 2 events per
 * message, plus one per message that had to wait at its source and one per
 * message that had to wait at its port.
 *
 * Host NIC (issue 12): with network.host-scheduling other than fifo or a
 * network.mtu > 0, the source is the shared host NIC (host_nic.c: packets
 * of mtu bytes, served fifo, round-robin, by priority or srpt) and the unit
 * that crosses the switch is the packet: each packet's head reaches the
 * output port link + sw after its first bit left the host (+ its own ser,
 * store-and-forward), the port serves packets as above (FIFO in head
 * arrival order, or by class), and the message is delivered when its last
 * packet's last bit reaches dst (a message's packets share a path and a
 * class, so they arrive in order). Classes are honoured at the NICs when
 * network.priority is control-first/strict or host-scheduling is priority,
 * and at the output ports as network.priority says: strict (control-first)
 * yes, fifo no (the hosts may still serve by class), default as
 * host-scheduling (yes with priority: the historical rule, which ignored an
 * explicit fifo there). With host-scheduling srpt the output ports
 * schedule by remaining size as pFabric's switches do (Alizadeh et al.,
 * SIGCOMM 2013, sec. 4.2): every packet carries its message's bytes left
 * when it was cut, itself included; a free port sends the earliest queued
 * packet of the message with the fewest bytes left to cross the port, i.e.
 * whose earliest queued packet has the smallest stamp (lowest class first
 * when classes are on; ties to the message that queued first), so a
 * message's packets never overtake each other. pFabric ranks a flow by its
 * latest packet's stamp, which is the same thing in its buffers of a few
 * packets; here buffers are unbounded and flows are not paced, so a big
 * flow can queue megabytes at a port, and by its latest stamp its last
 * packet would lift the whole backlog above every small flow. Ports are
 * never preempted and never drop (pFabric's drops and retransmissions are
 * not modelled). Events per packet: its start at the host
 * (when it waited), head arrival, port free (when it waited); delivery per
 * message. With fifo and mtu 0 (the defaults) the message-level model above
 * runs unchanged, so every historical result stays.
 * Host queue (network.host-buffer, opt-in): a message handed to its host's
 * NIC while the bytes waiting there (all classes, the packet on the wire
 * not counted) plus its own exceed the limit is dropped whole, at once,
 * and counted in `drops`: ns-3's queue disc at the hosts (pfifo_fast: 1000
 * packets over its bands), where TCP's segments that do not fit are lost
 * (no back-pressure from the queue disc to the socket). With a transport
 * a message is one segment (mss + header <= mtu), so this is drop-tail.
 * Limits in packets (network.buffer-packets at the output ports,
 * network.host-buffer-packets at the hosts; opt-in, beside or instead of
 * the byte limits): a packet (a message at a host) arriving where that
 * many already wait is dropped: ns-3's PfifoFastQueueDisc::DoEnqueue drops
 * when GetCurrentSize() >= GetMaxSize(), its size the packets waiting over
 * all three bands (1000 by default), so a 52-B ACK takes a place as a
 * 1432-B segment does. At a host a message counts one (a transport's
 * segment is one packet when mss + header <= mtu, as in the thesis).
 * Zero load, K packets: nic_ser (sum of the packets' ser) + 2 link + sw;
 * store-and-forward adds the largest packet's ser (a two-stage pipeline of
 * equal rates: sum + max), 2 ser for one packet.
 *
 * Input-queued router (network.router = "input-queued", issue 24; the
 * Hiperion switch of Andujar et al., extended VEF traces, sec. 4, is one: input-queued, 16-byte flits, 16 KB input
 * buffers of one VC, credits, virtual cut-through, round-robin VC and
 * switch allocators, hence head-of-line blocking): the switched core
 * (swnet.c) with its input-queued router (iqrouter.c, whose head has the
 * model and its sources) on the one-switch topology, the 1-level N-ary fat
 * tree (topo_fattree.c: one switch, host j on port j, links numbered as
 * sw_route numbers them). Nothing of the model above runs then: every op
 * hands over to the core (sw_state.iq). The switch's own parameters map so:
 *   network.bandwidth: every link's rate; a flit time T = flit-size 8 / B
 *     is the router's clock;
 *   network.link-latency: every link, each way (all are host links), or
 *     network.host-link-latency when given (>= 0), the switched fabrics'
 *     row: the same links;
 *   network.switch-latency: added to st-delay, the crossbar traversal, a
 *     pure delay between a flit's switch allocation and its first bit on
 *     the output link: the rule of every fabric under the input-queued
 *     router (iqrouter.c's head, "Switch latency"); the switch has no row
 *     of its own for it, so its default is the core's 200 ns, the
 *     output-queued switch's (hiperion-iq.xml gives 200 ns explicitly,
 *     relying on no default), where the switched fabrics' is 0. Why there: the router's other stages (route
 *     computation, VC and switch allocation) hold the input VC of the
 *     packet passing them, so a latency of hundreds of ns there would cap
 *     an input at one packet per that time, where the output-queued
 *     switch's switch-latency is a pure delay that occupies nothing, as
 *     st-delay is. A lone packet of F flits then takes (iqrouter.c's zero
 *     load with h = 1; exact when every time is a multiple of T, else a
 *     lower bound)
 *       2 (T + link) + routing + vc-alloc + sw-alloc + st + switch-latency + (F - 1) T,
 *     against the output-queued switch's F T + 2 link + switch-latency (F
 *     full flits): the four pipeline delays and one T more (the router
 *     reads whole flits);
 *   network.mtu: the packet size, required (0, whole messages, is the
 *     output-queued switch's); network.flow-control must be credit (its
 *     default here, infinite, has no input buffers); network.switching
 *     cut-through or wormhole; network.host-scheduling, network.priority and
 *     network.vc-map as on the switched fabrics (iqrouter.c);
 *   the router's rows as on the switched fabrics: vc-buffer, vcs, allocator,
 *     allocator-iterations, routing-delay, vc-alloc-delay, sw-alloc-delay,
 *     st-delay, credit-delay, speedup. Finite output buffers, ECN and pfc
 *     are the output-queued switch's.
 *   Metrics: the core's link_utilization_mean/max and saturation_bound
 *     (swnet.h), columns only when some point is input-queued
 *     (metric_def.when); export-topology writes the one-switch topology.
 * The output-queued switch pays one pointer test per message for it. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "host_nic.h"
#include "iqrouter.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "port.h"
#include "swnet.h"
#include "topo.h"
#include "transport.h"
#include "units.h"

typedef enum sw_switching { SW_CUT_THROUGH = 0, SW_STORE_AND_FORWARD = 1 } sw_switching;

/* The switch's own parameters (rows below). */
typedef struct sw_params {
    int switching;           /* enum sw_switching */
    int control_first;       /* network.priority: NET_PORTS_* (host_nic.h): fifo, control-first = strict (FIFOs
                                serve low classes first), default (strict with host-scheduling priority) */
    nic_params nic;          /* host NIC: network.host-scheduling, network.mtu */
    port_cfg buf;            /* output buffers, drop-tail, ECN (networks/port.h): network.buffer, ... */
    int flow_control;        /* network.flow-control: swnet_flow (infinite, the default, or pfc) */
    uint64_t pfc_xoff, pfc_xon; /* PFC thresholds per ingress port and class, bytes */
    uint64_t pfc_headroom;   /* PFC: bytes above pfc_xoff an ingress port and class may hold (0: the round trip) */
    uint64_t host_buffer;    /* network.host-buffer: bytes waiting at a host NIC, drop-tail (0 = unbounded) */
    uint32_t buffer_packets; /* network.buffer-packets: packets waiting per output port, drop-tail (0 = no limit) */
    uint32_t host_buffer_packets; /* network.host-buffer-packets: messages waiting at a host NIC (0 = no limit) */
    /* resolved from the physical layer (resolve_phy) */
    int phy_resolved;        /* 1 once energy_per_bit_j holds the phy's value */
    double energy_per_bit_j; /* SerDes and switch core per bit crossing the switch, J */
    /* network.router and the input-queued router's rows (swnet.h: router, vc-buffer, vc-map, flit-size,
       vcs, allocator, allocator-iterations, the pipeline delays, speedup); its other fields are filled
       from the rows above by sw_iq_params */
    swnet_params iq;
} sw_params;

/* one list with the switched fabrics' network.switching (one parameter):
 * wormhole is the input-queued router's (swnet.h) */
static const char *const sw_switching_names[] = {"cut-through", "store-and-forward", "wormhole", NULL};
static const char *const sw_priority_names[] = NET_PORTS_NAMES;

static const param_row sw_rows[] = {
    {.path = "network.switching", .type = "choice", .unit = "", .def = "cut-through",
     .help = "electrical switch: cut-through | store-and-forward; input-queued routers: cut-through | wormhole", .kind = PARAM_CHOICE,
     .off = offsetof(sw_params, switching), .choices = sw_switching_names, .example = "cut-through"},
    {.path = "network.priority", .type = "choice", .unit = "", .def = "default",
     .help = "electrical switch: fifo | control-first (FIFOs serve control messages first) | strict (the same "
             "for all 8 classes: lowest net_msg.prio first) | default (strict with host-scheduling=priority, "
             "else fifo)",
     .kind = PARAM_CHOICE, .off = offsetof(sw_params, control_first), .choices = sw_priority_names,
     .example = "fifo"},
    NIC_ROW_SCHEDULING(sw_params, nic),
    NIC_ROW_MTU(sw_params, nic),
    PORT_ROWS(sw_params, buf),
    {.path = "network.flow-control", .type = "choice", .unit = "", .def = "infinite",
     .help = "electrical switch: infinite (no flow control: buffers drop when finite) | pfc (priority flow control: "
             "a pause frame per ingress port and class above pfc-xoff, resume below pfc-xon; drops only past "
             "pfc-headroom) | credit "
             "(router=input-queued, which needs it: its input buffers)",
     .kind = PARAM_CHOICE, .off = offsetof(sw_params, flow_control), .choices = swnet_flow_names, .example = "pfc"},
    {.path = "network.pfc-xoff", .type = "size", .unit = "B", .def = "40kB",
     .help = "PFC: bytes of one ingress port and class waiting in the switch above which it sends a pause frame",
     .kind = PARAM_BYTES, .off = offsetof(sw_params, pfc_xoff), .flags = PARAM_POS, .example = "40kB"},
    {.path = "network.pfc-xon", .type = "size", .unit = "B", .def = "20kB",
     .help = "PFC: bytes at or below which a paused ingress port and class is resumed (< pfc-xoff)",
     .kind = PARAM_BYTES, .off = offsetof(sw_params, pfc_xon), .flags = PARAM_NONNEG, .example = "20kB"},
    SWNET_ROW_PFC_HEADROOM(sw_params, pfc_headroom),
    {.path = "network.host-buffer", .type = "size", .unit = "B", .def = "0B",
     .help = "electrical switch: bytes waiting at a host NIC (all classes), drop-tail: a segment that does not fit "
             "is dropped (ns-3's host queue disc, pfifo_fast: 1000 packets); 0 = unbounded (no drop at the host)",
     .kind = PARAM_BYTES, .off = offsetof(sw_params, host_buffer), .flags = PARAM_NONNEG, .example = "1.5MB",
     .note = "needs a transport: a dropped message is recovered only by one"},
    {.path = "network.buffer-packets", .type = "integer", .unit = "", .def = "0",
     .help = "electrical switch: packets waiting per output port (all classes), drop-tail: an ACK takes a place as "
             "a full segment does (ns-3's PfifoFastQueueDisc: 1000 packets over its bands); 0 = no packet limit",
     .kind = PARAM_U32, .off = offsetof(sw_params, buffer_packets), .min = 0, .max = 1u << 30, .example = "1000",
     .note = "needs a transport: a dropped message is recovered only by one"},
    {.path = "network.host-buffer-packets", .type = "integer", .unit = "", .def = "0",
     .help = "electrical switch: messages (a transport's segments: packets) waiting at a host NIC, drop-tail (ns-3's "
             "host queue disc, pfifo_fast: 1000 packets); 0 = no limit",
     .kind = PARAM_U32, .off = offsetof(sw_params, host_buffer_packets), .min = 0, .max = 1u << 30,
     .example = "1000", .note = "needs a transport: a dropped message is recovered only by one"},
    SWNET_ROW_ROUTER(sw_params, iq),
    SWNET_ROW_VC_BUFFER(sw_params, iq),
    SWNET_ROW_VC_MAP(sw_params, iq),
    SWNET_ROWS_IQ(sw_params, iq),
    SWNET_ROW_HOST_LINK(sw_params, iq),
    SWNET_ROW_SPEEDUP(sw_params, iq),
};

/* The switch's metrics; those of the switched core (swnet.h, the same names
 * and meanings as on the other fabrics) only with router=input-queued, the
 * only model that measures them here: a column only in sweeps with an
 * input-queued point (metric_def.when), so the output-queued switch's files
 * stay as they were. */
#define SW_IQ_ONLY "network.router=input-queued"
#define SW_METRICS(X)                                                                                          \
    X(energy_per_bit_j, "network energy per delivered bit", NULL)                                             \
    X(link_utilization_mean, "busy time of a directed link (host links included) / span, mean over links",    \
      SW_IQ_ONLY)                                                                                              \
    X(link_utilization_max, "busy time of a directed link / span, the busiest link", SW_IQ_ONLY)              \
    X(saturation_bound, "analytic uniform-random saturation throughput per node, a fraction of B", SW_IQ_ONLY)
#define SW_METRIC_ENUM(name, desc, when) SW_M_##name,
#define SW_METRIC_DEF(name, desc, when) {#name, desc, when},
enum { SW_METRICS(SW_METRIC_ENUM) SW_NMETRICS };
static const metric_def sw_metrics_def[] = {SW_METRICS(SW_METRIC_DEF)};

/* Control-first queues of one node: its source and the output port toward it. */
typedef struct sw_cf_node {
    port_bands src_q;  /* waiting at the source (net_msg, linked through next) */
    port_bands port_q; /* waiting at the output port */
    uint8_t src_wake;  /* a "source free" event is pending (flag; set iff src_q not empty) */
    uint8_t port_wake; /* a "port free" event is pending (flag; set iff port_q not empty) */
} sw_cf_node;

/* A message's packets waiting at an output port (srpt ports). */
typedef struct sw_srec {
    net_msg *msg;
    nic_pkt *head, *tail;  /* its queued packets, arrival order */
    uint64_t key;          /* the earliest queued packet's stamp: bytes left to cross the port */
    uint64_t seq;          /* when the message first queued here (ties) */
    uint32_t idx;          /* position in the port's heap */
    uint8_t prio;          /* class (used when classes are on) */
    struct sw_srec *next;  /* free list */
} sw_srec;

/* An srpt output port: a heap of the messages with packets waiting. */
typedef struct sw_srpt_port {
    sw_srec **heap;
    uint32_t n, cap;
    uint8_t wake;          /* a "port free" event is pending (flag; set iff n) */
} sw_srpt_port;

/* A buffered output port (network.buffer / ECN): its bytes waiting, queue
 * statistics and RED state. */
typedef struct sw_bport {
    port_out o;
    port_stats stats;
    port_red red;
} sw_bport;

/* Packet queues of one output port (host NIC mode, classes on). */
typedef struct sw_pkt_port {
    port_bands b;   /* nic_pkt, linked through next, band = class */
    uint8_t wake;   /* a "port free" event is pending (flag; set iff b not empty) */
} sw_pkt_port;

typedef struct sw_state {
    struct swnet *iq;      /* network.router = input-queued: the switched core on the one-switch topology
                              (sw_iq_init), which every op hands over to; NULL: output-queued (the rest) */
    net *n;                /* framework handle */
    uint32_t nodes;        /* N */
    net_rate rate;         /* B on every port, bit/s */
    int64_t link_ps;       /* one link, propagation, ps */
    int64_t head_ps;       /* t0 -> head at the output port, without ser: link + switch, ps */
    int store_and_forward; /* 1: ta also waits for the message's ser (flag) */
    int control_first;     /* 1: two-class queues (flag) */
    int64_t *src_free_ps;  /* [N] the source's transmitter is busy until, ps */
    int64_t *port_free_ps; /* [N] the output port toward node i is busy until, ps */
    sw_cf_node *cf;        /* [N] control-first queues, NULL otherwise */
    int nic_on;            /* 1: packets through the host NIC (flag) */
    int classes;           /* NIC mode: the NICs serve classes (flag) */
    int port_classes;      /* NIC mode: the output ports serve classes (flag): network.priority */
    host_nic nic;          /* NIC mode: the hosts */
    sw_pkt_port *pport;    /* [N] NIC mode with classes: packets waiting at each output port */
    sw_srpt_port *sport;   /* [N] NIC mode with srpt: pFabric ports */
    sw_srec *srec_free;    /* free records */
    void **srec_chunks;    /* record chunks (freed at fini) */
    size_t nsrec_chunks;
    uint64_t srec_seq;     /* records made */
    double energy_per_bit_j; /* J per bit crossing the switch (NAN = not modelled) */
    int buffered;          /* 1: finite buffers or ECN at the output ports (packet queues always explicit) */
    port_cfg buf;          /* their configuration */
    sw_bport *bport;       /* [N] buffered mode: each output's accounting */
    uint64_t qtotal;       /* buffered mode: bytes waiting at all outputs (the shared memory) */
    uint64_t drops, marks; /* buffered mode (drops: at output ports and host NICs) */
    uint64_t host_buf;     /* network.host-buffer (0: unbounded) */
    uint32_t buf_pkts, host_buf_pkts; /* network.buffer-packets, network.host-buffer-packets (0: no limit) */
    sim_cb arrival;        /* NIC mode: the event of a packet's head at its output port */
    int pfc;               /* 1: priority flow control (buffered mode; drops only past the headroom) */
    uint64_t xoff, xon;    /* PFC thresholds */
    uint64_t pfc_lim;      /* PFC: xoff + headroom, the most an ingress port and class may hold */
    unsigned ncls;         /* PFC: classes per ingress port (the NIC's queue classes) */
    uint64_t *ingress;     /* [N x ncls] PFC: bytes from host i, class c, waiting in the switch */
    uint8_t *xoff_sent;    /* [N x ncls] PFC: a pause is in force (sent, no resume since) */
    int64_t *paused_at;    /* [N x ncls] PFC: when the host's class was paused */
    uint64_t pause_frames; /* PFC: pause frames sent */
    int64_t paused_ps;     /* PFC: time host classes spent paused, summed */
    uint64_t ingress_max;  /* PFC: the largest ingress occupancy seen */
    uint64_t *int_tx;      /* [N] INT (a transport asked for it, network.h): bytes each output port sent */
} sw_state;

static inline uint64_t msg_arg(net_msg *m) { return (uint64_t)(uintptr_t)m; }
static inline net_msg *arg_msg(uint64_t a) { return (net_msg *)(uintptr_t)a; }

static inline int64_t max_ps(int64_t a, int64_t b) { return a > b ? a : b; }

#define MSG_LINK offsetof(net_msg, next)
#define PKT_LINK offsetof(nic_pkt, next)

static inline void classq_push(port_bands *c, net_msg *m) { port_bands_push(c, m->prio, m, MSG_LINK); }
/* Head of the lowest non-empty class; NULL if all are empty. */
static inline net_msg *classq_pop(port_bands *c) { return port_bands_pop(c, MSG_LINK); }

/* ---- events ---- */

static void ev_deliver(sim *s, void *ctx, uint64_t arg)
{
    sw_state *st = ctx;
    net_delivered(st->n, arg_msg(arg));
}

/* The output port toward m->dst puts m's first bit on the wire now. */
static void port_start(sw_state *st, sim *s, net_msg *m, int64_t now_ps)
{
    int64_t end_ps = now_ps + m->t_aux_ps;
    m->t_head_ps = now_ps + st->link_ps; /* its first bit reaches dst a link after the port starts it */
    st->port_free_ps[m->dst] = end_ps;
    sim_schedule_at(s, end_ps + st->link_ps, ev_deliver, st, msg_arg(m));
}

static void ev_port_free(sim *s, void *ctx, uint64_t node)
{
    sw_state *st = ctx;
    sw_cf_node *c = &st->cf[node];
    net_msg *m = classq_pop(&c->port_q);
    TN_ASSERT(m, "port %llu freed with an empty queue", (unsigned long long)node);
    port_start(st, s, m, sim_now(s));
    if (port_bands_empty(&c->port_q))
        c->port_wake = 0;
    else
        sim_schedule_at(s, st->port_free_ps[node], ev_port_free, st, node);
}

static void ev_port_arrival(sim *s, void *ctx, uint64_t arg)
{
    sw_state *st = ctx;
    net_msg *m = arg_msg(arg);
    int64_t now = sim_now(s);
    if (!st->control_first) {
        port_start(st, s, m, max_ps(now, st->port_free_ps[m->dst]));
        return;
    }
    sw_cf_node *c = &st->cf[m->dst];
    /* No wake pending means nothing waits: start at once if the port is free. */
    if (!c->port_wake && now >= st->port_free_ps[m->dst]) {
        port_start(st, s, m, now);
        return;
    }
    classq_push(&c->port_q, m);
    if (!c->port_wake) {
        c->port_wake = 1;
        sim_schedule_at(s, st->port_free_ps[m->dst], ev_port_free, st, m->dst);
    }
}

/* m's first bit leaves its source at t0_ps (ser is in t_aux_ps). */
static void source_start(sw_state *st, sim *s, net_msg *m, int64_t t0_ps)
{
    net_msg_set_inject(m, t0_ps); /* its first bit leaves the host at t0 */
    st->src_free_ps[m->src] = t0_ps + m->t_aux_ps;
    int64_t ta_ps = t0_ps + st->head_ps + (st->store_and_forward ? m->t_aux_ps : 0);
    sim_schedule_at(s, ta_ps, ev_port_arrival, st, msg_arg(m));
}

static void ev_source_free(sim *s, void *ctx, uint64_t node)
{
    sw_state *st = ctx;
    sw_cf_node *c = &st->cf[node];
    net_msg *m = classq_pop(&c->src_q);
    TN_ASSERT(m, "source %llu freed with an empty queue", (unsigned long long)node);
    source_start(st, s, m, sim_now(s));
    if (port_bands_empty(&c->src_q))
        c->src_wake = 0;
    else
        sim_schedule_at(s, st->src_free_ps[node], ev_source_free, st, node);
}

/* ---- host NIC mode: packets ---- */

/* The output port toward p's destination puts p's first bit on the wire now;
 * the message is delivered with its last packet. */
static void pkt_port_start(sw_state *st, sim *s, nic_pkt *p, int64_t now_ps)
{
    int64_t end_ps = now_ps + p->ser_ps;
    net_msg *m = p->msg;
    if (__builtin_expect(st->int_tx != NULL, 0)) {
        /* INT (network.h): the port toward dst, the switch's one hop: the
         * bytes still waiting there (buffered mode, which PFC implies:
         * config_check refuses hpcc without it) and those it sent before p */
        net_int *in = tp_int_of(m);
        if (in)
            net_int_push(in, 0, now_ps, st->int_tx[m->dst], st->bport ? st->bport[m->dst].o.qbytes : 0,
                         st->rate.bps, m->dst);
        st->int_tx[m->dst] += p->bytes;
    }
    st->port_free_ps[m->dst] = end_ps;
    if (m->t_head_ps < 0) /* its first packet's first bit reaches dst a link after the port starts it */
        m->t_head_ps = now_ps + st->link_ps;
    if (p->last)
        sim_schedule_at(s, end_ps + st->link_ps, ev_deliver, st, msg_arg(m));
    nic_pkt_free(&st->nic, p);
}

static inline void pfc_sub(sw_state *st, const nic_pkt *p, int64_t now);

static void ev_pkt_port_free(sim *s, void *ctx, uint64_t node)
{
    sw_state *st = ctx;
    sw_pkt_port *q = &st->pport[node];
    TN_ASSERT(!port_bands_empty(&q->b), "port %llu freed with no packet waiting", (unsigned long long)node);
    nic_pkt *p = port_bands_pop(&q->b, PKT_LINK);
    if (st->buffered) {
        sw_bport *b = &st->bport[node];
        port_stats_change(&b->stats, b->o.qbytes, sim_now(s));
        port_dequeued(&b->o, p->bytes);
        st->qtotal -= p->bytes;
        if (st->pfc)
            pfc_sub(st, p, sim_now(s));
    }
    pkt_port_start(st, s, p, sim_now(s));
    if (!port_bands_empty(&q->b))
        sim_schedule_at(s, st->port_free_ps[node], ev_pkt_port_free, st, node);
    else
        q->wake = 0;
}

/* ---- srpt ports (pFabric) ---- */

#define SW_SREC_CHUNK 256

static int srec_before(const sw_state *st, const sw_srec *a, const sw_srec *b)
{
    if (st->port_classes && a->prio != b->prio)
        return a->prio < b->prio;
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static void srec_place(sw_srpt_port *q, sw_srec *r, uint32_t i)
{
    q->heap[i] = r;
    r->idx = i;
}

static void srec_up(const sw_state *st, sw_srpt_port *q, sw_srec *r)
{
    uint32_t i = r->idx;
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (!srec_before(st, r, q->heap[up]))
            break;
        srec_place(q, q->heap[up], i);
        i = up;
    }
    srec_place(q, r, i);
}

static void srec_pop_root(const sw_state *st, sw_srpt_port *q)
{
    sw_srec *last = q->heap[--q->n];
    if (!q->n)
        return;
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && srec_before(st, q->heap[c + 1], q->heap[c]))
            c++;
        if (!srec_before(st, q->heap[c], last))
            break;
        srec_place(q, q->heap[c], i);
        i = c;
    }
    srec_place(q, last, i);
}

static sw_srec *srec_alloc(sw_state *st)
{
    if (!st->srec_free) {
        sw_srec *c = tn_xcalloc(SW_SREC_CHUNK, sizeof *c);
        st->srec_chunks = tn_xrealloc(st->srec_chunks, (st->nsrec_chunks + 1) * sizeof *st->srec_chunks);
        st->srec_chunks[st->nsrec_chunks++] = c;
        for (size_t i = SW_SREC_CHUNK; i-- > 0;) {
            c[i].next = st->srec_free;
            st->srec_free = &c[i];
        }
    }
    sw_srec *r = st->srec_free;
    st->srec_free = r->next;
    memset(r, 0, sizeof *r);
    return r;
}

/* p joins its message's packets at port q (the message's record lives in
 * msg->aux while it has packets here). */
static void srpt_enqueue(sw_state *st, sw_srpt_port *q, nic_pkt *p)
{
    net_msg *m = p->msg;
    sw_srec *r = (sw_srec *)(uintptr_t)m->aux;
    p->next = NULL;
    if (!r) {
        r = srec_alloc(st);
        r->msg = m;
        r->prio = p->prio;
        r->seq = st->srec_seq++;
        r->head = r->tail = p;
        r->key = p->left_bytes;
        m->aux = (uint64_t)(uintptr_t)r;
        if (q->n == q->cap) {
            q->cap = q->cap ? 2 * q->cap : 8;
            q->heap = tn_xrealloc(q->heap, q->cap * sizeof *q->heap);
        }
        r->idx = q->n++;
        srec_up(st, q, r);
        return;
    }
    r->tail->next = p;
    r->tail = p; /* the key stays its head's */
}

/* The earliest packet of the message with the fewest bytes left here. */
static nic_pkt *srpt_dequeue(sw_state *st, sw_srpt_port *q)
{
    sw_srec *r = q->heap[0];
    nic_pkt *p = r->head;
    r->head = p->next;
    p->next = NULL;
    if (!r->head) {
        srec_pop_root(st, q);
        r->msg->aux = 0;
        r->next = st->srec_free;
        st->srec_free = r;
    } else {
        r->key = r->head->left_bytes; /* smaller: the root stays the root */
    }
    return p;
}

static void ev_srpt_port_free(sim *s, void *ctx, uint64_t node)
{
    sw_state *st = ctx;
    sw_srpt_port *q = &st->sport[node];
    TN_ASSERT(q->n, "port %llu freed with no packet waiting", (unsigned long long)node);
    pkt_port_start(st, s, srpt_dequeue(st, q), sim_now(s));
    if (q->n)
        sim_schedule_at(s, st->port_free_ps[node], ev_srpt_port_free, st, node);
    else
        q->wake = 0;
}

/* PFC (IEEE 802.1Qbb; the switch-MMU accounting of the HPCC ns-3 code with
 * static thresholds): the bytes of each (ingress host, class) waiting at
 * the switch's outputs are counted; when they rise above pfc-xoff the
 * switch sends a pause frame for that class back to the host, when they
 * fall to pfc-xon a resume; each takes effect at the host's NIC one link
 * latency later (the frame's own 64 B are not modelled). Meanwhile at most
 * what the host starts in the pause's round trip arrives: the packet that
 * crossed xoff started at a, reached its output at a + link + sw (+ its
 * ser when storing and forwarding), the pause stops the host at that + link,
 * and the host starts no more than B x that span + one packet, so the
 * default headroom (network.pfc-headroom 0) is (2 link + sw) x B + mtu (+
 * mtu storing and forwarding; swnet_pfc_headroom): never a drop. A smaller
 * headroom given drops a packet that would take its (host, class) past
 * xoff + headroom (pfc_fits; a headroom given makes the fabric lossy,
 * sw_lossy: a transport must recover). The output buffer is no limit under PFC (lossless queues:
 * ingress accounting, as a switch MMU's); a network.buffer given must hold
 * every class's xoff + headroom (swnet_pfc_buffer_check). */
static void ev_pfc(sim *s, void *ctx, uint64_t arg)
{
    sw_state *st = ctx;
    uint64_t idx = arg >> 1;
    int on = (int)(arg & 1);
    uint32_t host = (uint32_t)(idx / st->ncls);
    unsigned c = (unsigned)(idx % st->ncls);
    if (on)
        st->paused_at[idx] = sim_now(s);
    else
        st->paused_ps += sim_now(s) - st->paused_at[idx];
    nic_pause(&st->nic, host, c, on);
}

static void pfc_pause(sw_state *st, size_t idx, int64_t now)
{
    st->xoff_sent[idx] = 1;
    st->pause_frames++;
    sim_schedule_at(net_sim(st->n), now + st->link_ps, ev_pfc, st, ((uint64_t)idx << 1) | 1);
}

/* May p wait at its output? Not past its (host, class)'s xoff + headroom
 * (the pause went up already, or goes now). */
static int pfc_fits(sw_state *st, const nic_pkt *p, int64_t now)
{
    size_t idx = (size_t)p->msg->src * st->ncls + nic_queue_class(&st->nic, p->prio);
    if (st->ingress[idx] + p->bytes <= st->pfc_lim)
        return 1;
    if (!st->xoff_sent[idx] && st->ingress[idx] + p->bytes > st->xoff)
        pfc_pause(st, idx, now);
    return 0;
}

static inline void pfc_add(sw_state *st, const nic_pkt *p, int64_t now)
{
    size_t idx = (size_t)p->msg->src * st->ncls + nic_queue_class(&st->nic, p->prio);
    st->ingress[idx] += p->bytes;
    if (st->ingress[idx] > st->ingress_max)
        st->ingress_max = st->ingress[idx];
    if (!st->xoff_sent[idx] && st->ingress[idx] > st->xoff)
        pfc_pause(st, idx, now);
}

static inline void pfc_sub(sw_state *st, const nic_pkt *p, int64_t now)
{
    size_t idx = (size_t)p->msg->src * st->ncls + nic_queue_class(&st->nic, p->prio);
    st->ingress[idx] -= p->bytes;
    if (st->xoff_sent[idx] && st->ingress[idx] <= st->xon) {
        st->xoff_sent[idx] = 0;
        sim_schedule_at(net_sim(st->n), now + st->link_ps, ev_pfc, st, (uint64_t)idx << 1);
    }
}

static void ev_buffered_arrival(sim *s, void *ctx, uint64_t arg);

/* Buffered mode: p arrives at the output toward dst, which admits it
 * (port_admit: drop-tail, ECN) and queues it by class (one band without
 * classes). A message whose packet was dropped is dropped whole: its later
 * packets are discarded as they arrive (they share the port), and the
 * fabric reports it with its last (net_dropped). msg->aux flags it. */
static void buffered_arrival(sw_state *st, sim *s, nic_pkt *p, uint32_t dst, int64_t now)
{
    net_msg *m = p->msg;
    sw_pkt_port *q = &st->pport[dst];
    sw_bport *b = &st->bport[dst];
    int v = PORT_DROP;
    if (!m->aux) {
        if (st->pfc && (q->wake || now < st->port_free_ps[dst]) && !pfc_fits(st, p, now)) {
            v = PORT_DROP; /* it would wait past its ingress headroom (pfc-headroom below the round trip) */
        } else if (st->buf_pkts && b->o.nqueued >= st->buf_pkts) {
            v = PORT_DROP; /* network.buffer-packets (head comment) */
        } else {
            v = port_admit(&st->buf, b->o.qbytes, st->qtotal, p->bytes, m->ecn != NET_ECN_NOT_ECT, &b->red,
                           st->n->rng);
            if (v == PORT_DROP && st->pfc)
                v = PORT_ENQUEUE; /* lossless: accounted at ingress (pfc_fits), no output limit */
        }
        if (v == PORT_DROP)
            st->drops++;
    }
    if (v == PORT_DROP) {
        int last = p->last;
        nic_pkt_free(&st->nic, p);
        m->aux = 1;
        if (last)
            net_dropped(st->n, m);
        return;
    }
    if (v == PORT_MARK && m->ecn != NET_ECN_CE) {
        m->ecn = NET_ECN_CE;
        st->marks++;
    }
    if (!q->wake && now >= st->port_free_ps[dst]) {
        pkt_port_start(st, s, p, now);
        return;
    }
    port_stats_change(&b->stats, b->o.qbytes, now);
    port_enqueued(&b->o, p->bytes);
    port_stats_max(&b->stats, b->o.qbytes);
    st->qtotal += p->bytes;
    if (st->pfc)
        pfc_add(st, p, now);
    port_bands_push(&q->b, st->port_classes ? p->prio : 0, p, PKT_LINK);
    if (!q->wake) {
        q->wake = 1;
        sim_schedule_at(s, st->port_free_ps[dst], ev_pkt_port_free, st, dst);
    }
}

static void ev_buffered_arrival(sim *s, void *ctx, uint64_t arg)
{
    sw_state *st = ctx;
    nic_pkt *p = (nic_pkt *)(uintptr_t)arg;
    buffered_arrival(st, s, p, p->msg->dst, sim_now(s));
}

static void ev_pkt_port_arrival(sim *s, void *ctx, uint64_t arg)
{
    sw_state *st = ctx;
    nic_pkt *p = (nic_pkt *)(uintptr_t)arg;
    uint32_t dst = p->msg->dst;
    int64_t now = sim_now(s);
    if (st->sport) {
        sw_srpt_port *q = &st->sport[dst];
        if (!q->wake && now >= st->port_free_ps[dst]) {
            pkt_port_start(st, s, p, now);
            return;
        }
        srpt_enqueue(st, q, p);
        if (!q->wake) {
            q->wake = 1;
            sim_schedule_at(s, st->port_free_ps[dst], ev_srpt_port_free, st, dst);
        }
        return;
    }
    if (!st->port_classes) {
        pkt_port_start(st, s, p, max_ps(now, st->port_free_ps[dst]));
        return;
    }
    sw_pkt_port *q = &st->pport[dst];
    if (!q->wake && now >= st->port_free_ps[dst]) {
        pkt_port_start(st, s, p, now);
        return;
    }
    port_bands_push(&q->b, p->prio, p, PKT_LINK);
    if (!q->wake) {
        q->wake = 1;
        sim_schedule_at(s, st->port_free_ps[dst], ev_pkt_port_free, st, dst);
    }
}

/* The NIC put p's first bit on the uplink now. */
static void pkt_start(void *ctx, nic_pkt *p)
{
    sw_state *st = ctx;
    sim *s = net_sim(st->n);
    int64_t ta_ps = sim_now(s) + st->head_ps + (st->store_and_forward ? p->ser_ps : 0);
    sim_schedule_at(s, ta_ps, st->arrival, st, (uint64_t)(uintptr_t)p);
}

/* ---- ops ---- */

static void sw_send(void *state, net_msg *m)
{
    sw_state *st = state;
    if (st->iq) {
        swnet_send(st->iq, m);
        return;
    }
    if (st->nic_on) {
        if (__builtin_expect(st->n->int_on && !st->int_tx, 0))
            st->int_tx = tn_xcalloc(st->nodes, sizeof *st->int_tx);
        m->aux = 0; /* srpt ports: no record yet */
        if ((st->host_buf && nic_queued_bytes(&st->nic, m->src) + m->size_bytes > st->host_buf) ||
            (st->host_buf_pkts && nic_queued_msgs(&st->nic, m->src) >= st->host_buf_pkts)) {
            st->drops++; /* the host's queue is full: drop-tail (a message is admitted whole) */
            net_dropped(st->n, m);
            return;
        }
        nic_send(&st->nic, m);
        return;
    }
    sim *s = net_sim(st->n);
    int64_t now = sim_now(s);
    m->t_aux_ps = net_rate_ps(&st->rate, m->size_bytes); /* ser, read at every hop */
    if (!st->control_first) {
        source_start(st, s, m, max_ps(now, st->src_free_ps[m->src]));
        return;
    }
    sw_cf_node *c = &st->cf[m->src];
    if (!c->src_wake && now >= st->src_free_ps[m->src]) {
        source_start(st, s, m, now);
        return;
    }
    classq_push(&c->src_q, m);
    if (!c->src_wake) {
        c->src_wake = 1;
        sim_schedule_at(s, st->src_free_ps[m->src], ev_source_free, st, m->src);
    }
}

static void sw_fini(void *state)
{
    sw_state *st = state;
    if (st->iq) {
        swnet_fini(st->iq);
        free(st->iq);
        st->iq = NULL;
        return;
    }
    free(st->src_free_ps);
    free(st->port_free_ps);
    free(st->cf);
    free(st->pport);
    free(st->int_tx);
    st->int_tx = NULL;
    free(st->bport);
    st->bport = NULL;
    free(st->ingress);
    free(st->xoff_sent);
    free(st->paused_at);
    st->ingress = NULL;
    st->xoff_sent = NULL;
    st->paused_at = NULL;
    if (st->sport)
        for (uint32_t i = 0; i < st->nodes; i++)
            free(st->sport[i].heap);
    free(st->sport);
    for (size_t i = 0; i < st->nsrec_chunks; i++)
        free(st->srec_chunks[i]);
    free(st->srec_chunks);
    st->sport = NULL;
    st->srec_chunks = NULL;
    st->nsrec_chunks = 0;
    if (st->nic_on)
        nic_fini(&st->nic);
    st->src_free_ps = st->port_free_ps = NULL;
    st->cf = NULL;
    st->pport = NULL;
}

/* The input-queued switch's parameters for the switched core: the
 * router's rows as given, the NIC, priority, switching and flow control
 * from the switch's own rows, one switch and no failures; the core's
 * network.switch-latency (200 ns when not given) is the router's switch
 * latency, which joins st-delay (the head comment's mapping). */
static void sw_iq_params(const net_params *core, const sw_params *p, swnet_params *q)
{
    *q = p->iq;
    q->nic = p->nic;
    q->flow_control = p->flow_control;
    q->control_first = p->control_first;
    q->switching = p->switching;
    q->routing = 0; /* "default": the fat tree's first, d-mod-k, the only route on one switch */
    q->buf = p->buf;
    q->pfc_xoff = p->pfc_xoff;
    q->pfc_xon = p->pfc_xon;
    q->pfc_headroom = p->pfc_headroom;
    q->placement = TOPO_PLACE_FULL;
    q->failed_links[0] = '\0';
    q->degraded_links[0] = '\0';
    q->fail_at_ps = -1;
    q->host_link_ps = p->iq.host_link_ps; /* every link is a host link: host-link-latency, else link-latency */
    q->global_link_ps = -1;
    q->group_routers = 0;
    q->switch_latency_ps = core->switch_latency_ps; /* joins st-delay in iqr_init (iqrouter.c, "Switch latency") */
}

/* The one-switch topology: the 1-level N-ary fat tree (topo_fattree.c), one
 * switch whose port j is host j's; links as sw_route numbers them (host
 * uplinks 0..N-1, the output toward host j N + j). 0, or -1 + err. */
static int sw_star(uint32_t nodes, topo *t, char *err, size_t errlen)
{
    topo_fattree_params fp = {.arity = nodes, .levels = 1, .routing = TOPO_FT_DMODK};
    return topo_fattree_init(t, &fp, err, errlen);
}

/* PFC's default headroom on the switch: a pause's round trip, (2 link +
 * sw) x B + mtu, + mtu storing and forwarding (ev_pfc's comment);
 * UINT64_MAX with whole messages (mtu 0): no bound. */
static uint64_t sw_pfc_round_trip(const net_params *core, const sw_params *p)
{
    uint64_t mtu = p->nic.mtu_bytes;
    if (!mtu)
        return UINT64_MAX;
    return swnet_pfc_headroom(core->link_latency_ps, core->link_latency_ps, core->switch_latency_ps,
                              core->bandwidth_bps, mtu) +
           (p->switching == SW_STORE_AND_FORWARD ? mtu : 0);
}

/* The input-queued switch's rules (router="input-queued"). */
static void sw_iq_check(const net_params *core, const sw_params *p, param_report *rep)
{
    if (core->nodes < 2)
        param_invalid(rep, "system.nodes", "the input-queued switch needs at least 2 nodes (got %u)", core->nodes);
    if (p->nic.mtu_bytes == 0)
        param_invalid(rep, "network.mtu", "0 (whole messages) is the output-queued switch's: the input-queued "
                                          "router moves packets of flits; give the packet size (Andujar et "
                                          "al.'s Hiperion switch: 8 flits of 16 B, mtu=\"128B\")");
    else if (p->nic.mtu_bytes > SWNET_MAX_MTU_BYTES)
        param_invalid(rep, "network.mtu", "must be between 1B and 1GiB (got %llu B)",
                      (unsigned long long)p->nic.mtu_bytes);
    if (p->flow_control != SWNET_CREDIT)
        param_invalid(rep, "network.flow-control", "the input-queued router's input buffers are credit flow "
                                                   "controlled: set network.flow-control=\"credit\" (the "
                                                   "output-queued switch's infinite and pfc have no input buffers)");
    if (port_cfg_on(&p->buf))
        param_invalid(rep, "network.buffer", "finite output buffers and ECN are the output-queued switch's "
                                             "(network.router=\"output-queued\")");
    if (p->buffer_packets || p->host_buffer_packets)
        param_invalid(rep, p->buffer_packets ? "network.buffer-packets" : "network.host-buffer-packets",
                      "packet limits are the output-queued switch's (network.router=\"output-queued\")");
    if (p->host_buffer)
        param_invalid(rep, "network.host-buffer", "the host queue's drops are the output-queued switch's "
                                                  "(network.router=\"output-queued\"); the input-queued router's "
                                                  "hosts wait for credits");
    if (p->switching == SW_STORE_AND_FORWARD)
        param_invalid(rep, "network.switching", "store-and-forward is the output-queued switch's; the input-queued "
                                                "router is cut-through (virtual cut-through, as Andujar et al.'s "
                                                "Hiperion switch) or wormhole");
    swnet_params q;
    sw_iq_params(core, p, &q);
    q.flow_control = SWNET_CREDIT; /* said above, in the switch's words */
    if (q.switching == SWNET_SAF)
        q.switching = SWNET_CUT_THROUGH;
    iqr_check(core, &q, rep);
}

static void sw_check(const net_params *core, const void *params, param_report *rep)
{
    const sw_params *p = params;
    net_check_core(core, rep);
    if (p->switching != SW_CUT_THROUGH && p->switching != SW_STORE_AND_FORWARD && p->switching != 2)
        param_invalid(rep, "network.switching", "unknown switching mode %d", p->switching);
    nic_check(&p->nic, rep);
    if (p->iq.router == SWNET_IQ) {
        sw_iq_check(core, p, rep);
        return;
    }
    if (p->iq.router != SWNET_OQ)
        param_invalid(rep, "network.router", "unknown router model %d", p->iq.router);
    /* the output-queued switch: no wormhole, one VC, no speedup (the rows the
     * input-queued router reads; iqr_check words them) */
    swnet_params q;
    sw_iq_params(core, p, &q);
    if (q.switching == SWNET_SAF)
        q.switching = SWNET_CUT_THROUGH; /* the output-queued switch's own */
    iqr_check(core, &q, rep);
    port_cfg_check(&p->buf, p->nic.mtu_bytes, rep);
    if (port_cfg_on(&p->buf) && p->nic.policy == NIC_SRPT)
        param_invalid(rep, "network.buffer", "finite buffers and ECN are not modelled with pFabric's srpt ports "
                                             "(network.host-scheduling = srpt): use fifo, round-robin or priority");
    if (p->flow_control == SWNET_CREDIT)
        param_invalid(rep, "network.flow-control", "credit flow control is the input-queued router's "
                                                   "(network.router=\"input-queued\"): the output-queued switch's "
                                                   "ports have no input buffers; infinite or pfc");
    if (p->flow_control == SWNET_PFC && p->nic.policy == NIC_SRPT)
        param_invalid(rep, "network.flow-control", "pfc is not modelled with srpt ports");
    if ((p->buffer_packets || p->host_buffer_packets) && p->flow_control == SWNET_PFC)
        param_invalid(rep, p->buffer_packets ? "network.buffer-packets" : "network.host-buffer-packets",
                      "PFC is lossless: packet limits (drop-tail) do not apply under flow-control=\"pfc\"");
    if (p->buffer_packets && p->buf.policy == PORT_DYNAMIC)
        param_invalid(rep, "network.buffer-packets", "a limit per port in packets is static; buffer-policy "
                      "\"dynamic\" shares bytes: leave buffer-packets 0");
    if (p->host_buffer && p->flow_control == SWNET_PFC)
        param_invalid(rep, "network.host-buffer", "a host NIC under PFC is paused, never drops: leave host-buffer 0");
    if (p->host_buffer && p->nic.mtu_bytes && p->host_buffer < p->nic.mtu_bytes)
        param_invalid(rep, "network.host-buffer", "%llu B holds no packet of network.mtu %llu B",
                      (unsigned long long)p->host_buffer, (unsigned long long)p->nic.mtu_bytes);
    if (p->flow_control == SWNET_PFC && p->pfc_xon >= p->pfc_xoff)
        param_invalid(rep, "network.pfc-xon", "pfc-xon (%llu B) must be below pfc-xoff (%llu B)",
                      (unsigned long long)p->pfc_xon, (unsigned long long)p->pfc_xoff);
    if (p->flow_control == SWNET_PFC && p->iq.router != SWNET_IQ && p->buf.buffer_bytes) {
        uint64_t rt = sw_pfc_round_trip(core, p);
        if (!p->pfc_headroom && rt == UINT64_MAX)
            param_invalid(rep, "network.buffer", "under pfc a buffer must hold each class's pfc-xoff + headroom, and "
                                                 "with network.mtu 0 (whole messages) the default headroom is a "
                                                 "whole message: give network.mtu or network.pfc-headroom");
        else
            swnet_pfc_buffer_check(&p->buf, nic_classes_on(&p->nic, nic_ports_strict(&p->nic, p->control_first))
                                                ? NET_PRIO_CLASSES
                                                : 1,
                                   p->pfc_xoff, p->pfc_headroom ? p->pfc_headroom : rt, !p->pfc_headroom, rep);
    }
}

/* Every bit crosses the switch once, SerDes in lanes (phy/energy.h): no
 * loss, no retransmission, so the energy per delivered bit is the path's. */
static int sw_resolve_phy(const net_params *core, void *params, const phy_params *phy, net_phy *out, char *err,
                          size_t errlen)
{
    sw_params *p = params;
    char e2[512];
    if (phy_energy_check(&phy->energy, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "network.phy: %s", e2);
    double lane = phy->energy.electrical_lane_bps;
    if (!(lane > 0) || lane > core->bandwidth_bps)
        lane = core->bandwidth_bps;
    p->energy_per_bit_j = phy_energy_electrical_j_per_bit(&phy->energy, lane, NULL);
    p->phy_resolved = 1;
    if (p->iq.router == SWNET_IQ) { /* the core's energies per link and switch (the same path: 2 links, 1 core) */
        topo t;
        net_phy o2;
        if (sw_star(core->nodes, &t, err, errlen) != 0)
            return -1;
        int rc = swnet_resolve_phy(core, &p->iq, phy, &t, &o2, err, errlen);
        topo_free(&t);
        if (rc != 0)
            return -1;
    }
    out->bit_error_rate = 0;
    out->energy_per_bit_j = p->energy_per_bit_j;
    return 0;
}

/* 1: packets through host NICs; 0: the historical message-level model
 * (unless the NIC is asked for: a policy or an MTU). */
static int sw_nic_on(const sw_params *p)
{
    return p->nic.policy != NIC_FIFO || p->nic.mtu_bytes > 0 || port_cfg_on(&p->buf) ||
           p->flow_control == SWNET_PFC || p->host_buffer > 0 || p->buffer_packets > 0 || p->host_buffer_packets > 0;
}

/* The drops a run on p can have (net_ops.lossy): the output-queued
 * switch's drop-tail or RED buffers (1), else only the hosts' queues
 * (NET_LOSSY_HOST); under PFC only with a pfc-headroom given
 * (NET_LOSSY_PFC: it may be below the round trip, which the attributes
 * alone do not tell; the default, the round trip, never drops); never on
 * the input-queued switch (sw_iq_check refuses buffers there). */
static int sw_lossy(const void *params)
{
    const sw_params *p = params;
    if (p->iq.router == SWNET_IQ)
        return 0;
    if (p->flow_control == SWNET_PFC)
        return p->pfc_headroom ? NET_LOSSY_PFC : 0;
    if (p->buf.buffer_bytes > 0 || p->buf.ecn == PORT_ECN_RED || p->buffer_packets > 0)
        return 1;
    return p->host_buffer > 0 || p->host_buffer_packets > 0 ? NET_LOSSY_HOST : 0;
}

static int sw_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    sw_state *st = state;
    const sw_params *p = params;
    const net_params *core = net_core(n);
    param_first first;
    sw_check(core, params, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    st->n = n;
    st->nodes = core->nodes;
    if (p->iq.router == SWNET_IQ) {
        swnet_params q;
        sw_iq_params(core, p, &q);
        topo t;
        if (sw_star(core->nodes, &t, err, errlen) != 0)
            return -1;
        st->iq = tn_xcalloc(1, sizeof *st->iq);
        if (swnet_init(st->iq, n, &t, &q, err, errlen) != 0) { /* swnet_init released t and its own */
            free(st->iq);
            st->iq = NULL;
            return -1;
        }
        return 0;
    }
    net_rate_init(&st->rate, core->bandwidth_bps);
    st->link_ps = core->link_latency_ps;
    st->head_ps = core->link_latency_ps + core->switch_latency_ps;
    st->store_and_forward = p->switching == SW_STORE_AND_FORWARD;
    st->control_first = nic_ports_strict(&p->nic, p->control_first);
    st->nic_on = sw_nic_on(p);
    st->classes = nic_classes_on(&p->nic, st->control_first);
    st->port_classes = st->control_first;
    st->energy_per_bit_j = p->phy_resolved ? p->energy_per_bit_j : NAN;
    st->src_free_ps = tn_xcalloc(core->nodes, sizeof *st->src_free_ps);
    st->port_free_ps = tn_xcalloc(core->nodes, sizeof *st->port_free_ps);
    if (st->nic_on) {
        st->control_first = 0;
        nic_init(&st->nic, core->nodes, &p->nic, st->classes);
        nic_link(&st->nic, net_sim(n), core->bandwidth_bps, pkt_start, st);
        st->arrival = ev_pkt_port_arrival;
        st->pfc = p->flow_control == SWNET_PFC;
        st->buffered = port_cfg_on(&p->buf) || st->pfc || p->host_buffer > 0 || p->buffer_packets > 0 ||
                       p->host_buffer_packets > 0;
        if (st->buffered) {
            st->buf = p->buf;
            st->host_buf = p->host_buffer;
            st->buf_pkts = p->buffer_packets;
            st->host_buf_pkts = p->host_buffer_packets;
            st->pport = tn_xcalloc(core->nodes, sizeof *st->pport);
            st->bport = tn_xcalloc(core->nodes, sizeof *st->bport);
            n->lossy = sw_lossy(p);
            st->arrival = ev_buffered_arrival;
            if (st->pfc) {
                st->xoff = p->pfc_xoff;
                st->xon = p->pfc_xon;
                uint64_t rt = sw_pfc_round_trip(core, p);
                st->pfc_lim = rt == UINT64_MAX ? UINT64_MAX : p->pfc_xoff + (p->pfc_headroom ? p->pfc_headroom : rt);
                if (p->pfc_headroom)
                    n->lossy = NET_LOSSY_PFC; /* sw_lossy: a packet may find its headroom exhausted */
                st->ncls = st->nic.ncls;
                st->ingress = tn_xcalloc((size_t)core->nodes * st->ncls, sizeof *st->ingress);
                st->xoff_sent = tn_xcalloc((size_t)core->nodes * st->ncls, 1);
                st->paused_at = tn_xcalloc((size_t)core->nodes * st->ncls, sizeof *st->paused_at);
            }
        } else if (p->nic.policy == NIC_SRPT) {
            st->sport = tn_xcalloc(core->nodes, sizeof *st->sport);
        } else if (st->port_classes) {
            st->pport = tn_xcalloc(core->nodes, sizeof *st->pport);
        }
    } else if (st->control_first) {
        st->cf = tn_xcalloc(core->nodes, sizeof *st->cf);
    }
    return 0;
}

static void sw_fill_metrics(void *state, double *m)
{
    const sw_state *st = state;
    if (st->iq) { /* the core's own metrics (swnet.h): the energy of the packets it delivered */
        double all[SWNET_NMETRICS];
        for (size_t i = 0; i < SWNET_NMETRICS; i++)
            all[i] = NAN;
        swnet_fill_metrics(st->iq, all);
        m[SW_M_energy_per_bit_j] = all[M_energy_per_bit_j];
        m[SW_M_link_utilization_mean] = all[M_link_utilization_mean];
        m[SW_M_link_utilization_max] = all[M_link_utilization_max];
        m[SW_M_saturation_bound] = all[M_saturation_bound];
        return;
    }
    m[SW_M_energy_per_bit_j] = st->energy_per_bit_j;
}

/* Cut-through: ser + 2 link + sw; store-and-forward waits for the last bit
 * at the switch: 2 ser + 2 link + sw. In packets (NIC mode): the packets'
 * ser summed, plus the largest packet's with store-and-forward (for one
 * packet, ser and 2 ser: the same formulas). */
static int64_t sw_zero_load_ps(const void *state, uint32_t src, uint32_t dst, uint64_t bytes)
{
    const sw_state *st = state;
    if (st->iq)
        return swnet_zero_load_ps(st->iq, src, dst, bytes);
    uint64_t mtu = st->nic_on ? st->nic.mtu_bytes : 0;
    int64_t ser = nic_ser_ps(&st->rate, bytes, mtu);
    if (st->store_and_forward)
        ser += nic_max_packet_ser_ps(&st->rate, bytes, mtu);
    return ser + st->link_ps + st->head_ps;
}

/* Node i's uplink is link i, the output port toward node i is link N + i. */
static uint64_t sw_link_count(const void *state) { return 2 * (uint64_t)((const sw_state *)state)->nodes; }

static size_t sw_route(const void *state, uint32_t src, uint32_t dst, uint64_t *links, size_t max)
{
    const sw_state *st = state;
    if (max >= 2) {
        links[0] = src;
        links[1] = (uint64_t)st->nodes + dst;
    }
    return 2;
}

/* A lone message besides its bytes at B: the core's 2 link + switch
 * latency (net_ops.fixed_latency_ps's default), or under the input-queued
 * router its pipeline over the switch (iqr_fixed_latency_ps, with the
 * parameters sw_iq_params hands it). */
static int64_t sw_fixed_latency_ps(const net_params *core, const void *params)
{
    const sw_params *p = params;
    if (p->iq.router != SWNET_IQ)
        return 2 * core->link_latency_ps + core->switch_latency_ps;
    swnet_params q;
    sw_iq_params(core, p, &q);
    return iqr_fixed_latency_ps(core, &q);
}

/* Two times per node, and the control-first queues, or (NIC mode, as
 * sw_init) the host NICs and the output ports' queues. */
static double sw_mem_bytes(const net_params *core, const void *params)
{
    const sw_params *p = params;
    if (p->iq.router == SWNET_IQ) {
        swnet_params q;
        sw_iq_params(core, p, &q);
        topo t;
        char err[256];
        if (core->nodes < 2 || sw_star(core->nodes, &t, err, sizeof err) != 0)
            return sizeof(sw_state); /* the checks report it */
        double bytes = sizeof(sw_state) + swnet_mem_bytes(core, &q, &t);
        topo_free(&t);
        return bytes;
    }
    double N = core->nodes, bytes = sizeof(sw_state) + 2 * sizeof(int64_t) * N;
    int strict = nic_ports_strict(&p->nic, p->control_first);
    int classes = nic_classes_on(&p->nic, strict);
    if (sw_nic_on(p)) {
        bytes += nic_mem_bytes(core->nodes, &p->nic, classes);
        if (port_cfg_on(&p->buf) || p->host_buffer > 0 || p->buffer_packets > 0 || p->host_buffer_packets > 0)
            bytes += (sizeof(sw_pkt_port) + sizeof(sw_bport)) * N;
        else if (p->nic.policy == NIC_SRPT)
            bytes += sizeof(sw_srpt_port) * N;
        else if (strict)
            bytes += sizeof(sw_pkt_port) * N;
    } else if (strict) {
        bytes += sizeof(sw_cf_node) * N;
    }
    return bytes;
}

static int sw_queue_report(void *state, int64_t t_end_ps, net_queue_report *r)
{
    const sw_state *st = state;
    if (st->iq)
        return swnet_queue_report(st->iq, t_end_ps, r);
    if (!st->buffered)
        return 0;
    port_report pr = {0};
    int64_t now = t_end_ps;
    for (uint32_t i = 0; i < st->nodes; i++)
        port_report_fold(&pr, &st->bport[i].stats, st->bport[i].o.qbytes, now);
    r->drops = st->drops;
    r->marks = st->marks;
    r->queue_max = (double)pr.queue_max;
    r->queue_mean = pr.queue_mean;
    r->queue_now = (double)pr.queue_now;
    if (st->pfc) {
        r->pfc = 1;
        r->pause_frames = st->pause_frames;
        int64_t paused = st->paused_ps;
        for (size_t i = 0; i < (size_t)st->nodes * st->ncls; i++)
            if (st->nic.node[i / st->ncls].paused & (1u << (i % st->ncls)))
                paused += t_end_ps - st->paused_at[i]; /* still paused at the end */
        r->paused_s = units_ps_to_s(paused);
        r->ingress_max = (double)st->ingress_max;
    }
    return 1;
}

swnet *net_switch_swnet(void *state) { return ((sw_state *)state)->iq; }

/* export-topology: the one-switch topology under router=input-queued (the
 * core's), none under output-queued (the message-level star has no
 * topology object; the CLI says so) */
static const topo *sw_topology(const void *state)
{
    const sw_state *st = state;
    return st->iq ? swnet_topo(st->iq) : NULL;
}

const net_ops net_switch_ops = {
    .name = "electrical-switch",
    .description = "single electrical switch (star): FIFO sources and output ports, "
                   "cut-through or store-and-forward, optional strict priority classes, host NICs; "
                   "or router=input-queued (flits, VC buffers, allocators, credits)",
    .state_size = sizeof(sw_state),
    .params = sw_rows,
    .nparams = sizeof sw_rows / sizeof sw_rows[0],
    .params_size = sizeof(sw_params),
    .check = sw_check,
    .lossy = sw_lossy,
    .resolve_phy = sw_resolve_phy,
    .init = sw_init,
    .send = sw_send,
    .zero_load_ps = sw_zero_load_ps,
    .link_count = sw_link_count,
    .route = sw_route,
    .metrics = sw_metrics_def,
    .nmetrics = SW_NMETRICS,
    .fill_metrics = sw_fill_metrics,
    .fini = sw_fini,
    .mem_bytes = sw_mem_bytes,
    .fixed_latency_ps = sw_fixed_latency_ps,
    .queue_report = sw_queue_report,
    .topology = sw_topology,
};
