/* The host side of a fabric, shared by every fabric that has hosts: a
 * node's NIC cuts the messages handed to it into packets and decides, each
 * time its uplink is free, which active message sends the next packet.
 * Issue 12 item 1; the rules are in host_nic.c's head.
 *
 *   network.host-scheduling  fifo | round-robin | priority | srpt
 *   network.mtu              largest packet payload (0 = a message is one packet)
 *
 * A fabric embeds a nic_params in its own params struct and lists
 * NIC_ROW_SCHEDULING / NIC_ROW_MTU among its rows (one parameter for every
 * fabric that declares it: same kind and flags; a fabric may give its own
 * default, as the switched topologies do for network.mtu). At run time it
 * either
 *   - lets the NIC drive a serialising uplink at B (nic_link + nic_send):
 *     the NIC calls the fabric's `start` when a packet's first bit leaves
 *     the host, with its serialisation time filled in (electrical switch,
 *     ideal fabric), or
 *   - drives its own transmitter and only asks which packet goes next
 *     (nic_push, nic_pending, nic_pop: SPINet's edge FIFO; nic_peek_bytes
 *     tells the size of that packet before it is cut and nic_take cuts it
 *     into the fabric's own packet record: the switched topologies, whose
 *     uplink sends a packet only when the first switch's buffer has room
 *     for all of it).
 *
 * Priority classes: net_msg.prio, 0 (served first) .. NET_PRIO_CLASSES-1.
 * With classes on (nic_init's `classes`), every node serves its lowest
 * non-empty class first, then by its policy within the class; packets are
 * never preempted once on the wire. */
#ifndef TASKNET_HOST_NIC_H
#define TASKNET_HOST_NIC_H

#include <stddef.h>
#include <stdint.h>

#include "network.h"
#include "params.h"
#include "sim.h"

typedef enum nic_policy {
    NIC_FIFO = 0,        /* messages in hand-over order, one after another (the historical source FIFO) */
    NIC_ROUND_ROBIN = 1, /* one packet of each active message in turn */
    NIC_PRIORITY = 2,    /* strict classes, round-robin within a class */
    NIC_SRPT = 3,        /* fewest bytes left to cut first (pFabric), ties by hand-over order */
} nic_policy;

extern const char *const nic_policy_names[]; /* "fifo", "round-robin", "priority", "srpt", NULL */

/* The NIC's parameters, embedded in a fabric's params struct. */
typedef struct nic_params {
    int policy;         /* enum nic_policy (network.host-scheduling) */
    uint64_t mtu_bytes; /* network.mtu: largest packet payload, bytes (0 = whole messages) */
} nic_params;

#define NIC_HELP_SCHEDULING                                                                                     \
    "host NIC: which active message sends the next packet: fifo (one after another) | round-robin (a packet " \
    "each) | priority (lowest class first, then round-robin) | srpt (fewest bytes left first)"
#define NIC_HELP_MTU "host NIC: largest packet payload a message is cut into (0 = a message is one packet)"

/* The rows, for a fabric whose params struct `owner_` has a nic_params `field_`. */
#define NIC_ROW_SCHEDULING(owner_, field_)                                                                         \
    {.path = "network.host-scheduling", .type = "choice", .unit = "", .def = "fifo", .help = NIC_HELP_SCHEDULING, \
     .kind = PARAM_CHOICE, .off = offsetof(owner_, field_) + offsetof(nic_params, policy),                         \
     .choices = nic_policy_names, .example = "round-robin"}
#define NIC_ROW_MTU(owner_, field_)                                                                                \
    {.path = "network.mtu", .type = "size", .unit = "B", .def = "0B", .help = NIC_HELP_MTU, .kind = PARAM_BYTES, \
     .off = offsetof(owner_, field_) + offsetof(nic_params, mtu_bytes), .flags = PARAM_NONNEG, .example = "1500B",  \
     .note = "0 keeps messages whole"}

/* Checks of the rows' values (a fabric's check op calls it). */
void nic_check(const nic_params *p, param_report *rep);

/* A packet: a piece of one message, cut by its source's NIC. The fabric
 * owns it from nic_pop / its start callback until nic_pkt_free. */
typedef struct nic_pkt {
    net_msg *msg;         /* the message it belongs to */
    struct nic_pkt *next; /* free for the fabric's queues */
    uint64_t bytes;       /* payload, bytes */
    int64_t ser_ps;       /* serialisation at the uplink's rate (nic_link), ps; 0 without a link */
    int64_t t_ps;         /* free for the fabric (e.g. head arrival at a port) */
    uint64_t aux;         /* free for the fabric */
    uint64_t left_bytes;  /* its message's bytes not yet sent when it was cut, itself included (pFabric's stamp) */
    uint32_t seq;         /* index within its message, from 0 */
    uint8_t prio;         /* the message's class */
    uint8_t last;         /* 1: the last packet of its message */
} nic_pkt;

/* An active message at its source (private). */
typedef struct nic_flow {
    net_msg *msg;
    struct nic_flow *next; /* class list, or free list */
    uint64_t left_bytes;   /* not yet cut */
    uint32_t cut;          /* packets cut so far */
} nic_flow;

/* One class of one node (private): a list (fifo, round-robin) or a heap (srpt). */
typedef struct nic_queue {
    nic_flow *head, *tail; /* list order */
    nic_flow **heap;       /* srpt: binary heap on (left_bytes, msg id), grown by doubling */
    uint32_t n, cap;       /* heap entries, room */
    uint8_t rotate;        /* round-robin: the head sent the last packet; move it back before the next pick */
} nic_queue;

typedef void (*nic_start_fn)(void *ctx, nic_pkt *p);

typedef struct nic_node {
    uint32_t mask;     /* classes with active messages (bit c) */
    uint8_t wake;      /* uplink: a "free" event is pending (flag) */
    uint8_t paused;    /* classes paused by PFC (bit c: NIC queue class c; nic_pause) */
    uint8_t held;      /* paused classes with active messages: their bits are out of mask until resumed */
    uint64_t active;   /* active messages */
    int64_t free_ps;   /* uplink: busy until (nic_link) */
    uint64_t qbytes;   /* bytes of its active messages not yet cut into packets (nic_queued_bytes) */
} nic_node;

typedef struct host_nic {
    nic_policy policy;
    int classes;        /* 1: strict classes (else one class) */
    uint64_t mtu_bytes; /* 0: whole messages */
    uint32_t nodes;
    nic_node *node;     /* [nodes] */
    unsigned ncls;      /* class queues per node: NET_PRIO_CLASSES with classes, else 1 */
    nic_queue *q;       /* [nodes x ncls] class queues, node by node */
    /* pools: no malloc once warm */
    nic_flow *flow_free;
    nic_pkt *pkt_free;
    void **chunks;
    size_t nchunks;
    uint64_t live_pkts; /* packets handed out, not freed */
    /* the uplink (nic_link), NULL sim without */
    sim *s;
    net_rate rate;
    nic_start_fn start;
    void *ctx;
    uint64_t packets;   /* packets cut */
} host_nic;

/* network.priority, every fabric with switch ports (the electrical switch,
 * the switched topologies): how the ports serve the priority classes.
 * control-first and strict are one rule (the historical name and the
 * general one); default follows network.host-scheduling: strict with
 * "priority", else fifo. So an explicit fifo with host-scheduling=priority
 * keeps the ports FIFO across classes while the hosts serve by class. */
enum { NET_PORTS_FIFO = 0, NET_PORTS_CONTROL_FIRST = 1, NET_PORTS_STRICT = 2, NET_PORTS_DEFAULT = 3 };
#define NET_PORTS_NAMES {"fifo", "control-first", "strict", "default", NULL}
static inline int nic_ports_strict(const nic_params *p, int priority)
{
    return priority == NET_PORTS_CONTROL_FIRST || priority == NET_PORTS_STRICT ||
           (priority == NET_PORTS_DEFAULT && p->policy == NIC_PRIORITY);
}

/* Whether a fabric's hosts serve strict priority classes: the fabric's
 * own (network.priority, `classes`) or the NIC policy `priority`. */
static inline int nic_classes_on(const nic_params *p, int classes)
{
    return classes != 0 || p->policy == NIC_PRIORITY;
}

/* Set up n nodes' NICs: policy and MTU from p; classes 1 = strict classes at
 * this NIC (the policy `priority` turns them on by itself). */
void nic_init(host_nic *h, uint32_t nodes, const nic_params *p, int classes);
void nic_fini(host_nic *h);
/* The bytes nic_init allocates for these arguments (net_ops.mem_bytes). */
double nic_mem_bytes(uint32_t nodes, const nic_params *p, int classes);

/* PFC (IEEE 802.1Qbb) at the host: while class c of node is paused
 * (on = 1), its uplink starts no packet of that class (the packet on the
 * wire finishes); on resume (on = 0) it starts again at once if idle. c is
 * the NIC's queue class: the message's prio with classes on, else 0. */
void nic_pause(host_nic *h, uint32_t node, unsigned c, int on);
/* nic_pause's bookkeeping alone, for a fabric that drives the uplink itself
 * (swnet: no nic_link): 1 when a resume made held messages active again
 * (the fabric then looks at the uplink). */
int nic_hold(host_nic *h, uint32_t node, unsigned c, int on);
static inline unsigned nic_queue_class(const host_nic *h, uint8_t prio) { return h->classes ? prio : 0; }

/* A serialising uplink at bps per node: nic_send hands a message over at
 * sim_now; start(ctx, p) is called when p's first bit leaves the host (an
 * event of s, or nic_send itself when the uplink is idle), p->ser_ps set. */
void nic_link(host_nic *h, sim *s, double bps, nic_start_fn start, void *ctx);
void nic_send(host_nic *h, net_msg *m);

/* Without an uplink: m becomes active at its source; nic_pop cuts the next
 * packet of node's NIC (at most max_bytes, or the MTU when max_bytes is 0;
 * NULL when nothing is active). */
void nic_push(host_nic *h, net_msg *m);
static inline int nic_pending(const host_nic *h, uint32_t node) { return h->node[node].mask != 0; }
/* Bytes waiting at node's NIC: handed over, not yet cut into a packet (a
 * packet on the wire no longer counts). A fabric with a finite host queue
 * (the switch's network.host-buffer) admits a message against it. */
static inline uint64_t nic_queued_bytes(const host_nic *h, uint32_t node) { return h->node[node].qbytes; }
/* messages waiting at node's NIC (active, not yet cut in full: the packet on the wire not counted) */
static inline uint64_t nic_queued_msgs(const host_nic *h, uint32_t node) { return h->node[node].active; }
nic_pkt *nic_pop(host_nic *h, uint32_t node, uint64_t max_bytes);

/* Bytes of the packet nic_pop(h, node, 0) would cut now (the policy's and
 * the classes' choice, min(mtu, its message's bytes left)); -1 when nothing
 * is active. Changes nothing: a fabric whose transmitter needs room for a
 * packet before it cuts it (credits) asks first, then cuts that packet. */
int64_t nic_peek_bytes(const host_nic *h, uint32_t node);

/* One class only (NIC queue class c: nic_queue_class): the bytes of the
 * packet class c would cut now (-1: nothing active in c, or c paused), and
 * that cut (1, or 0 as nic_take). For a fabric whose classes have credits
 * of their own (per-class VCs, swnet.c): it serves the first class, in
 * class order, whose packet fits, so a class out of credit blocks none
 * other. */
int64_t nic_peek_class(const host_nic *h, uint32_t node, unsigned c);
struct nic_piece;
int nic_take_class(host_nic *h, uint32_t node, unsigned c, uint64_t max_bytes, struct nic_piece *out);

/* Per-destination choice within one class (congestion isolation, swnet.c:
 * a message whose destination is isolated takes another credit pool, so
 * the NIC sends the first message that can go, as an RDMA NIC's send
 * queues per QP do): the first active flow of class c, in the policy's
 * order, for which ok(ctx, its message, its next packet's bytes) holds;
 * NULL when none (or c inactive). fifo: from the oldest message on;
 * round-robin and priority: the circle from the message nic_peek_class
 * names, once round. Not for srpt (swnet refuses it). *bytes: that
 * packet's bytes. nic_take_flow cuts flow f's next packet as nic_take_class
 * would have cut its pick: round-robin sends f to the back of the circle
 * (before the next pick, as the pick's own move), fifo leaves it in place;
 * with f the policy's pick both are exactly nic_take_class. */
typedef int (*nic_flow_ok)(void *ctx, const net_msg *m, uint64_t bytes);
nic_flow *nic_find_class(const host_nic *h, uint32_t node, unsigned c, nic_flow_ok ok, void *ctx, uint64_t *bytes);
int nic_take_flow(host_nic *h, uint32_t node, unsigned c, nic_flow *f, struct nic_piece *out);

/* What nic_pop hands out, without a packet record: for a fabric that keeps
 * packets in records of its own (the switched core). */
typedef struct nic_piece {
    net_msg *msg;        /* the message it belongs to */
    uint64_t bytes;      /* payload, bytes */
    uint64_t left_bytes; /* its message's bytes not yet sent when it was cut, itself included */
    uint32_t seq;        /* index within its message, from 0 */
    uint8_t prio;        /* the message's class */
    uint8_t last;        /* 1: the last packet of its message */
} nic_piece;

/* nic_pop's choice and cut into *out: 1, or 0 when nothing is active. */
int nic_take(host_nic *h, uint32_t node, uint64_t max_bytes, nic_piece *out);
/* A message the NIC would cut whole at once, alone: its node has no active
 * message and no paused class, and it is one packet (mtu 0, or its bytes
 * <= mtu). For such a message nic_push(h, m) followed at once by
 * nic_take(h, m->src, 0, out) changes nothing but the packet count (its
 * flow record goes back to the head of the free list it came from; every
 * node and queue field returns to its value), so a fabric that would make
 * those two calls back to back may ask nic_alone, then nic_take_alone,
 * instead: the same piece, without the queues. */
static inline int nic_alone(const host_nic *h, const net_msg *m)
{
    const nic_node *nd = &h->node[m->src];
    return !nd->mask && !nd->paused && !nd->held && (!h->mtu_bytes || m->size_bytes <= h->mtu_bytes);
}
static inline void nic_take_alone(host_nic *h, net_msg *m, nic_piece *out)
{
    *out = (nic_piece){.msg = m, .bytes = m->size_bytes, .left_bytes = m->size_bytes, .seq = 0, .prio = m->prio,
                       .last = 1};
    h->packets++;
}
void nic_pkt_free(host_nic *h, nic_pkt *p);

/* Packets of a message of `bytes` cut at mtu (0: 1), and the sum of their
 * serialisation times at rate r: a lone message's time on its uplink. */
uint64_t nic_packets(uint64_t bytes, uint64_t mtu_bytes);
int64_t nic_ser_ps(const net_rate *r, uint64_t bytes, uint64_t mtu_bytes);
/* The serialisation of the largest of those packets, ps. */
int64_t nic_max_packet_ser_ps(const net_rate *r, uint64_t bytes, uint64_t mtu_bytes);

#endif
