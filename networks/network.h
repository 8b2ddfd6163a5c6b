/* The fabric contract. A network moves messages between nodes 0..N-1 over
 * simulated time. A workload hands a message over with net_send at sim_now;
 * the fabric calls net_delivered when its last bit reaches the destination;
 * net.c counts it, measures its latency and passes it to the workload's
 * deliver callback. Fabrics are plugins: `const net_ops net_<name>_ops` in
 * networks/net_<name>.c, listed in the registry in network.c (DESIGN rule 1).
 * The framework allocates ops->state_size bytes (zeroed) for each instance. */
#ifndef TASKNET_NETWORK_H
#define TASKNET_NETWORK_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "link.h"
#include "log.h"
#include "metrics.h"
#include "params.h"
#include "phy_params.h"
#include "sim.h"
#include "stats.h"

enum net_class { NET_CONTROL = 0, NET_DATA = 1 };      /* latency class (metrics) */
/* Service classes: 0 is served first, NET_PRIO_CLASSES - 1 last, wherever a
 * queue honours classes (switch control-first/strict ports, host NICs under
 * networks/host_nic.h). Control messages are class 0, data class 1. */
enum net_prio { NET_PRIO_HIGH = 0, NET_PRIO_LOW = 1 };
#define NET_PRIO_CLASSES 8 /* service classes 0 (first) .. 7 a message may carry */
enum net_ecn { NET_ECN_NOT_ECT = 0, NET_ECN_ECT = 1, NET_ECN_CE = 3 };
#define NET_TP_CLIENT 0xFF /* net_msg.client of a transport's own segments and ACKs */

/* In-band network telemetry (INT; HPCC, networks/tp_hpcc.c): a record a
 * data segment carries, to which every switch egress it crosses writes
 * (qLen, txBytes, ts, B) as it puts the packet on the wire (Li et al.,
 * "HPCC", SIGCOMM 2019, sec. 3.2 and Fig. 4; the HPCC ns-3 code's
 * SwitchNode::SwitchNotifyDequeue: ts the time, tx_bytes the bytes the
 * port sent before this packet, qlen_bytes the bytes still waiting at the
 * port after it left, bps the port's line rate). Hop i is the i-th switch
 * of the way (hop[i] holds the latest packet of the segment there);
 * nhop counts the hops, also past NET_INT_HOPS (the ns-3 code's
 * IntHeader::maxHop = 5), and the sender ignores a record that overflowed.
 * Exact values: the ns-3 code's 8-byte encoding (qlen in 80-B units, bytes
 * in 128-B units, 24-bit ns time) is not modelled, its size is
 * (transport.int-header). A fabric writes them when net.int_on is set (a
 * transport that asks for them: tp_create) and tp_int_of(m) names a record. */
#define NET_INT_HOPS 5
typedef struct net_int_hop {
    int64_t ts_ps;
    uint64_t tx_bytes;
    uint64_t qlen_bytes;
    double bps;
    uint32_t port; /* the egress's id in its fabric (swnet: its link; the switch: its port): where routes
                      change packet by packet (adaptive, Valiant), hop i of two records may be two ports */
} net_int_hop;
typedef struct net_int {
    uint32_t nhop;
    net_int_hop hop[NET_INT_HOPS];
} net_int;

/* Switch hop i (0: the first switch) of in's segment records its egress. */
static inline void net_int_push(net_int *in, uint32_t i, int64_t ts_ps, uint64_t tx_bytes, uint64_t qlen_bytes,
                                double bps, uint32_t port)
{
    if (i < NET_INT_HOPS) {
        in->hop[i].ts_ps = ts_ps;
        in->hop[i].tx_bytes = tx_bytes;
        in->hop[i].qlen_bytes = qlen_bytes;
        in->hop[i].bps = bps;
        in->hop[i].port = port;
    }
    if (in->nhop < i + 1)
        in->nhop = i + 1;
}

typedef struct net_msg {
    /* set by the sender */
    uint32_t src, dst;    /* node ids */
    uint64_t size_bytes;  /* payload size */
    uint8_t cls;          /* enum net_class */
    uint8_t prio;         /* service class 0 (first) .. NET_PRIO_CLASSES - 1 */
    uint16_t kind;        /* workload's message type */
    uint32_t a;           /* workload payload */
    uint64_t b;           /* workload payload */
    void *p;              /* workload payload */
    /* set by net_send */
    uint64_t id;          /* sequence number of the hand-over, unique per run */
    int64_t t_submit_ps;  /* hand-over time */
    uint8_t client;       /* set by net_send: the client handle it was sent through (0: the fabric's own;
                             NET_TP_CLIENT: a transport's segment or ACK, networks/transport.h) */
    uint8_t ecn;          /* ECN codepoint (RFC 3168): NET_ECN_NOT_ECT (0, every message without a transport),
                             NET_ECN_ECT, or NET_ECN_CE once a port marked it (networks/port.h) */
    /* set by the fabric (net_send clears them): when the message's first byte left its source's NIC queue
     * for the fabric (its head entered the fabric: BookSim2's injection time), as 1 + the picoseconds since
     * t_submit_ps in 48 bits, 0 until the fabric says (every fabric does). In the padding after
     * ecn, so net_msg stays six 16-byte words. Use net_msg_set_inject / net_msg_inject_ps. */
    uint16_t inject_hi;
    uint32_t inject_lo;
    /* set by the fabric before net_delivered (net_send sets -1) */
    int64_t t_head_ps;    /* when the message's first bit reached dst (its head latency) */
    /* private to the fabric */
    int64_t t_aux_ps;     /* e.g. arrival of the head at a port */
    uint64_t aux;         /* e.g. packets outstanding */
    union {
        struct net_msg *next; /* intrusive queue link */
        void *aux_ptr;        /* or a pointer of the fabric's own (e.g. its latest packet) */
    };
} net_msg;

/* The fabric: m's first byte leaves its source for the fabric at t_ps (the
 * first call counts; a wait of 2^48 ps, 281 s, or more is kept as that). */
static inline void net_msg_set_inject(net_msg *m, int64_t t_ps)
{
    if (m->inject_hi | m->inject_lo)
        return;
    uint64_t d = (uint64_t)(t_ps - m->t_submit_ps) + 1;
    if (d >> 48)
        d = (UINT64_C(1) << 48) - 1;
    m->inject_hi = (uint16_t)(d >> 32);
    m->inject_lo = (uint32_t)d;
}

/* When m's first byte left its source for the fabric, ps; -1: not known. */
static inline int64_t net_msg_inject_ps(const net_msg *m)
{
    uint64_t d = ((uint64_t)m->inject_hi << 32) | m->inject_lo;
    return d ? m->t_submit_ps + (int64_t)d - 1 : -1;
}

/* What every fabric shares: the core network parameters (rows in
 * app/config/config_rows.c). A fabric's own parameters are rows of its own
 * (net_ops.params) in a struct of its own. */
typedef struct net_params {
    uint32_t nodes;            /* N */
    double bandwidth_bps;      /* per-node access bandwidth B */
    int64_t link_latency_ps;   /* one node<->switch (or switch<->switch) link, propagation */
    int64_t switch_latency_ps; /* electrical switch traversal */
} net_params;

/* What the physical layer says of a fabric's paths (resolve_phy), for
 * reports: the configuration's numbers, not a run's. */
typedef struct net_phy {
    double bit_error_rate;   /* per bit on a path (0 = error-free) */
    double energy_per_bit_j; /* per bit that crosses the fabric without a retry, J */
} net_phy;

/* The largest access bandwidth simulated: beyond 1 Eb/s a byte takes
 * 8e-6 ps, a unit slip rather than a network. */
#define NET_MAX_BPS 1e18

typedef struct net net;
typedef void (*net_deliver_fn)(void *owner, net_msg *m);
struct net_queue_report;
struct tp_inst;

/* The fabric contract. Every op but name, state_size, init and send may be
 * NULL/0; the comment of each says what its absence means. */
typedef struct net_ops {
    const char *name;        /* network.type value */
    const char *description; /* one line for `tasknet params` */
    size_t state_size;       /* bytes the framework allocates (zeroed) for an instance */

    /* Parameters (src/params.h): rows whose values live at row.off in a
     * struct of params_size bytes, initialised from the rows' defaults. A
     * path two fabrics declare is one parameter (same kind and flags; each
     * fabric its own default). */
    const param_row *params;
    size_t nparams;
    size_t params_size;
    /* Every rule params must meet with the core parameters, without building
     * anything, each problem reported at its path (the application places it
     * at the attribute: file:line:col). core->bandwidth_bps may be 0 when it
     * is derived later (network.zeta): skip what depends on it then. NULL:
     * nothing beyond the rows' own ranges. */
    void (*check)(const net_params *core, const void *params, param_report *rep);
    /* The drops its init lets happen, from params alone: 0 (lossless), 1
     * (finite buffers drop), NET_LOSSY_FAILURES, NET_LOSSY_HOST or NET_LOSSY_PFC (net.lossy
     * below; init sets net.lossy to the same). A workload whose transport
     * is none cannot run on a lossy fabric: validate refuses it at the
     * attribute that makes it lossy (net_lossy_refusal), before any run.
     * NULL: never lossy. */
    int (*lossy)(const void *params);
    /* 1 when the routing picks among paths packet by packet (adaptive: the
     * fat tree's anca, the torus's adaptive, the dragonfly's ugal), so one
     * transport flow's segments take several paths and may arrive out of
     * order; 0 when each flow keeps one path (oblivious routings draw from
     * the flow's salt: ECMP, random-up, Valiant, ROMM). HPCC, whose INT
     * compares a flow's records hop by hop, is refused then
     * (app/config/config_check.c). NULL: one path per flow. */
    int (*per_packet_paths)(const void *params);
    /* The physical layer: from phy (and B), work out this fabric's budget,
     * bit error rate and energy per bit into its own params (which init then
     * reads) and the summary into out; -1 + err when no path can work (a budget below the receiver's
     * sensitivity). Called once per sweep point, after check. NULL: the
     * fabric models no physical layer, and reports no energy. */
    int (*resolve_phy)(const net_params *core, void *params, const phy_params *phy, net_phy *out, char *err,
                       size_t errlen);

    /* Set up for n (core parameters: net_core(n)) and params (the fabric's
     * own, resolved; the instance keeps a copy, so they stay valid until fini).
     * Check first (e.g. with param_report_first); 0, or -1 + err (then init
     * has released what it allocated: fini is not called). */
    int (*init)(void *state, net *n, const void *params, char *err, size_t errlen);
    /* Take m over at sim_now(net_sim(n)); later set m->t_head_ps, the time
     * its first bit reached m->dst, and call net_delivered(n, m) exactly once
     * (at the time its last bit arrives). */
    void (*send)(void *state, net_msg *m);

    /* Zero-load latency, ps: hand-over to last bit at dst of a message of
     * `bytes` from src to dst alone in the fabric (the conformance suite
     * checks it; workloads use it for slowdowns and bounds). */
    int64_t (*zero_load_ps)(const void *state, uint32_t src, uint32_t dst, uint64_t bytes);
    /* Static routes (ORCS congestion metrics): the directed links of the
     * fabric are 0..link_count-1, host links included; route writes the
     * links a message from src to dst crosses, in order, into links[] (at
     * most max) and returns how many there are. NULL: no static routes. */
    uint64_t (*link_count)(const void *state);
    size_t (*route)(const void *state, uint32_t src, uint32_t dst, uint64_t *links, size_t max);
    /* Optional (the switched fabrics, swnet.c): the routes of n pairs at
     * once, each exactly route's: pair i is ends[i] = src << 32 | dst, its
     * links go to links[i * stride ..] and their number to len[i]. Only for
     * a route that is a function of the pair (one that draws must be asked
     * pair after pair, in order). Returns 0, or (writing nothing) the stride
     * the longest route needs when stride is smaller. */
    size_t (*route_many)(const void *state, size_t n, const uint64_t *ends, uint32_t *links, uint32_t *len,
                         size_t stride);
    /* What the static routes depend on besides the parameters (a digest:
     * the links a count of network.failed-links drew from this instance's
     * stream). A fabric whose routes depend on its stream must have it;
     * NULL: the routes are a function of the parameters. */
    uint64_t (*routes_key)(const void *state);

    /* The fabric's own metrics (src/metrics.h), filled by fill_metrics into
     * m[nmetrics] (NAN on entry: what it leaves is "not measured"). */
    const metric_def *metrics;
    size_t nmetrics;
    void (*fill_metrics)(void *state, double *m);
    void (*fini)(void *state); /* may be NULL */

    /* Estimates for the checks before a run, from the parameters alone (B
     * may be 0: not known yet). Each may be NULL: the core's default then.
     * fixed_latency_ps: what a lone message spends besides its serialisation
     *   (default: 2 link + switch latency, the star of the core parameters);
     * mem_bytes: memory an instance holds besides the messages it is handed
     *   (default: NET_MEM_PER_NODE_B per node);
     * uniform_bound: the accepted throughput per node, a fraction of B,
     *   above which uniform random traffic overloads some link (the
     *   saturation_bound an instance reports; default 1: the star of the
     *   core parameters, and fabrics that do not derive theirs). A workload
     *   offering more sees its messages queue at their sources, which its
     *   memory estimate counts (wl_resolve.fabric_bound). */
    int64_t (*fixed_latency_ps)(const net_params *core, const void *params);
    double (*mem_bytes)(const net_params *core, const void *params);
    double (*uniform_bound)(const net_params *core, const void *params);

    /* Finite buffers and ECN (networks/port.h, issue 22). NULL: the fabric
     * never drops nor marks. queue_report fills the drops, marks and queue
     * lengths of its outputs into r (core metrics drops, ecn_marks,
     * queue_max_bytes, queue_mean_bytes) and returns 1, or 0 when this
     * instance has no buffers configured (the metrics stay NAN); the mean
     * is over [0, t_end_ps] (the last delivery to an application). A
     * fabric with retries of its own sets has_retx and retx either way. */
    int (*queue_report)(void *state, int64_t t_end_ps, struct net_queue_report *r);
    /* topology (optional): the graph and routes of an instance (networks/topo.h),
     * for tasknet export-topology; NULL for fabrics without one */
    const struct topo *(*topology)(const void *state);
} net_ops;

/* What a buffered fabric reports of its output queues. */
typedef struct net_queue_report {
    uint64_t drops;      /* packets dropped (drop-tail, RED) */
    uint64_t marks;      /* packets marked CE */
    double queue_max;    /* largest bytes waiting at an output, any time */
    double queue_mean;   /* the busiest output's time-weighted mean bytes waiting over [0, t_end] */
    double queue_now;    /* the largest bytes waiting at an output now (tests sample it) */
    int pfc;             /* 1: priority flow control on (the next three apply) */
    uint64_t pause_frames; /* pause frames sent */
    double paused_s;     /* time host classes spent paused, summed over hosts and classes */
    double ingress_max;  /* the largest bytes of one ingress port and class held (PFC headroom use) */
    int has_retx;        /* a fabric that retransmits by itself (SPINet) reports its retries here, */
    uint64_t retx;       /* with or without buffers: the core metric retransmissions without a transport */
} net_queue_report;

/* Memory per node the core assumes of a fabric without a mem_bytes op. */
#define NET_MEM_PER_NODE_B 256.0

/* Counters and latency samples every fabric gets from net.c. */
typedef struct net_counters {
    uint64_t sent, delivered;             /* messages */
    uint64_t bytes_sent, bytes_delivered; /* payload bytes */
    stats_sample latency_s[2];            /* per enum net_class, seconds (their samples are all messages') */
    stats_mean head_s[2];                 /* head latency (first bit at dst) per enum net_class, seconds */
    uint64_t head_untold;                 /* delivered without t_head_ps (the metric is then NAN) */
    /* All messages' latency and head latency, seconds: read them with
     * net_latency_all / net_head_all. While only one class has added, the
     * series of all messages is that class's, and its count, mean and
     * extremes are the class's bit for bit (the same Welford steps on the
     * same values in the same order: stats.h), so these are kept only from
     * the first addition of the second class on (copied from the first
     * class's then): one accumulation fewer per message for each. */
    stats_mean latency_both_s, head_both_s;
    uint8_t latency_cls, head_cls;        /* classes that have added (bit c): 3 when *_both_s are kept */
} net_counters;

/* All messages' latency (count, mean, extremes), seconds */
static inline stats_mean net_latency_all(const net_counters *c)
{
    if (c->latency_cls == 1u << NET_CONTROL || c->latency_cls == 1u << NET_DATA) {
        const stats_acc *a = &c->latency_s[c->latency_cls >> 1].acc;
        return (stats_mean){a->n, a->mean, a->min, a->max};
    }
    return c->latency_both_s;
}
/* All messages' head latency, seconds */
static inline stats_mean net_head_all(const net_counters *c)
{
    if (c->head_cls == 1u << NET_CONTROL || c->head_cls == 1u << NET_DATA)
        return c->head_s[c->head_cls >> 1];
    return c->head_both_s;
}

/* A fabric instance (net_create), or a client's handle on one (net_attach).
 * Several workloads share one fabric through client handles: each sends
 * through its own, in its own node numbering (its ranks 0..n-1, mapped to
 * the fabric's nodes), with its own counters and deliveries; the fabric
 * sees nodes and calls net_delivered on its own handle, which hands each
 * message back to the client that sent it. With one workload the workload
 * uses the fabric's handle itself (no mapping). */
#define NET_MAX_CLIENTS 32
struct net {
    const net_ops *ops;
    void *state;
    void *own;               /* the fabric's own params (a copy, params_size bytes) */
    sim *sim;
    gsl_rng *rng;            /* the fabric's own stream */
    net_params params;       /* core parameters (a client's: nodes = its ranks) */
    net_deliver_fn deliver;  /* workload callback */
    void *owner;
    net_counters c;          /* this handle's traffic (the fabric's: all of it) */
    uint64_t next_id;        /* the fabric's: message ids */
    struct net *root;        /* the fabric's handle (itself for the fabric's) */
    uint8_t client;          /* index in root->clients (0: the fabric's own handle) */
    uint32_t *rank_node;     /* client: its rank r runs on node rank_node[r] */
    int32_t *node_rank;      /* client: node -> rank, -1 if none (N entries) */
    int prio;                /* client: the class its messages get, -1 = the sender's */
    struct net *clients[NET_MAX_CLIENTS]; /* the fabric's: [1..nclients] */
    unsigned nclients;
    struct tp_inst *tp;           /* the fabric's: its host transport (networks/transport.h), NULL: none;
                                     a client's own (net_set_client_transport) when tp_set */
    uint8_t tp_set;               /* client: its messages use tp (its workload named a transport), not the fabric's */
    uint8_t int_on;               /* the fabric's: a transport wants INT records (NET_INT_HOPS; tp_create) */
    int lossy;               /* the fabric's: set by a fabric's init when its buffers may drop packets (1),
                                NET_LOSSY_FAILURES when only links failing during the run lose them, or
                                NET_LOSSY_HOST when only the hosts' queues (network.host-buffer) drop,
                                NET_LOSSY_PFC when only PFC's exhausted headroom can (a pfc-headroom given) */
    int64_t t_first_ps, t_last_ps; /* the fabric's: first hand-over to a transport, its last delivery (goodput) */
    char *fault;             /* the fabric's: why the run cannot go on (net_fault), NULL: nothing wrong */
};

#define NET_LOSSY_FAILURES 2
#define NET_LOSSY_HOST 3
#define NET_LOSSY_PFC 4 /* flow-control pfc with a pfc-headroom given: it may be below a pause's round trip */

/* Why a workload whose transport is none (who: "workload NAME" or "the
 * workload") cannot run on fabric, lossy in the way kind says (net.lossy):
 * the attribute to name in *attr, the reason into buf. The one message for
 * validate (app/config/config_check.c) and the run (app/run/run.c). */
void net_lossy_refusal(int kind, const char *fabric, const char *who, const char **attr, char *buf, size_t n);

/* The registry (networks/network.c): every fabric, NULL-terminated, and
 * the one a configuration gets when it names none. */
extern const net_ops *const net_registry[];
extern const net_ops *const net_default;
const net_ops *net_find(const char *name);
size_t net_count(void);                      /* entries of net_registry */
size_t net_index(const net_ops *ops);        /* position in net_registry */
/* 0 if name is a registered fabric, else -1 + "unknown network type 'x' (expected one of: ...)". */
int net_name_ok(const char *name, char *err, size_t errlen);

/* The estimates of a fabric (its op, or the core's default). */
int64_t net_fixed_latency_ps(const net_ops *ops, const net_params *core, const void *params);
double net_mem_bytes(const net_ops *ops, const net_params *core, const void *params);
double net_uniform_bound(const net_ops *ops, const net_params *core, const void *params);

/* Checks every fabric shares, for its check op: N >= 2, 0 < bandwidth
 * finite (when given), link and switch latencies in range. */
void net_check_core(const net_params *p, param_report *rep);

/* A fabric's own params with every row's default (caller frees with
 * net_params_free). */
void *net_params_new(const net_ops *ops);
void net_params_free(const net_ops *ops, void *params);

/* Create an instance of fabric ops with core parameters p and its own
 * params (NULL: its defaults), checked and phy-resolved by the caller (or
 * resolved here when phy is given: resolve_phy runs on the instance's copy).
 * rng is borrowed (owned by the caller). NULL + err on failure. */
net *net_create(const net_ops *ops, const net_params *p, const void *params, const phy_params *phy, sim *s,
                gsl_rng *rng, net_deliver_fn deliver, void *owner, char *err, size_t errlen);
void net_destroy(net *n);
/* A client handle on fabric root for a workload of `ranks` ranks, rank r on
 * node rank_node[r] (distinct nodes; NULL: rank r on node r), its messages
 * in class prio (-1: as sent), deliveries to deliver(owner, m) with m's
 * ids in its ranks. Freed with the fabric (net_destroy of the root). NULL
 * + err when NET_MAX_CLIENTS are attached or the mapping is invalid. */
net *net_attach(net *root, uint32_t ranks, const uint32_t *rank_node, int prio, net_deliver_fn deliver, void *owner,
                char *err, size_t errlen);
/* The fabric found during the run that it cannot go on (a deadlock: the
 * input-queued router's watchdog, iqrouter.c): keep the message (the first
 * one; printf format) in root->fault and stop the engine (sim_stop). The
 * run then ends with that message as its run error (app/run/run.c run_one),
 * as any run error: the other runs of a sweep go on. */
void net_fault(net *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand m over (at sim_now) through handle n: its src and dst are n's ranks. */
void net_send(net *n, net_msg *m);
/* The fabric's zero-load time and static route for n's ranks (the fabric's
 * ops with the ranks mapped to nodes). */
int64_t net_zero_load_ps(const net *n, uint32_t src, uint32_t dst, uint64_t bytes);
size_t net_route(const net *n, uint32_t src, uint32_t dst, uint64_t *links, size_t max);
/* A digest of what fabric root's static routes depend on: its type, core
 * and own parameters (each row as written, and the contents of the files
 * they name) and its routes_key. Two instances with the same digest route
 * every pair alike (the pattern workload pools a process's evaluations by
 * it). */
uint64_t net_routes_digest(const net *root);
/* route_many for n's ranks (ends[i] = src rank << 32 | dst rank): 0, the
 * stride needed, or SIZE_MAX when the fabric has no route_many op. */
size_t net_route_many(const net *n, size_t count, const uint64_t *ends, uint32_t *links, uint32_t *len,
                      size_t stride);
/* Called by fabrics when the last bit of m reached m->dst, at sim_now. */
void net_delivered(net *n, net_msg *m);
/* Called by a fabric with finite buffers when it dropped m (only a
 * transport's segment or ACK can be dropped: see net->lossy). */
void net_dropped(net *n, net_msg *m);
/* A transport hands its workload's message m over to the application: the
 * counting and client delivery net_delivered does for a fabric's message. */
void net_app_delivered(net *n, net_msg *m);
/* Put transport t (networks/transport.h; NULL: none) under every message
 * handed to fabric root from now on. */
void net_set_transport(net *root, struct tp_inst *t);
struct tp_counters;
/* A workload's own transport (workload.transport): client c's messages go
 * through t (NULL: none, straight to the fabric) instead of the fabric's.
 * t is made with tp_create on the fabric's handle; the fabric frees it. */
void net_set_client_transport(net *c, struct tp_inst *t);
/* The counters of every transport on the fabric, summed (0 if none). */
int net_transport_counters(const net *root, struct tp_counters *out);
static inline sim *net_sim(const net *n) { return n->sim; }
static inline const net_params *net_core(const net *n) { return &n->params; }
/* The core metrics net.c measures (messages, bytes, latencies) into
 * core[METRIC_CORE_COUNT], and the fabric's own into own[ops->nmetrics]. */
void net_metrics(net *n, double *core, double *own);

/* Serialisation time of `bytes` at `bps`, in ps, rounded up (exact
 * multiples are not: 40 B at 40 Gb/s is 8000 ps). Aborts if bps <= 0 or the
 * time does not fit in int64_t. */
int64_t net_serialization_ps(uint64_t bytes, double bps);

/* The same computation with the rate's constants precomputed, for fabrics
 * that serialise every message at one rate (phy/link.h: exact for an
 * integer rate, no division by a gcd per call). */
typedef phy_rate net_rate;
static inline void net_rate_init(net_rate *r, double bps) { phy_rate_init(r, bps, 8); } /* aborts if bps is not > 0 and finite */
static inline int64_t net_rate_ps(const net_rate *r, uint64_t bytes) { return phy_rate_ps(r, bytes); } /* = net_serialization_ps(bytes, r->bps) */

/* Free-list pool of messages: no malloc once warmed up. */
typedef struct net_msg_pool {
    net_msg *free;   /* free list */
    void **chunks;   /* allocated chunks */
    size_t nchunks;
    uint64_t live;   /* messages handed out and not returned */
} net_msg_pool;

void net_msg_pool_init(net_msg_pool *p);
void net_msg_pool_free(net_msg_pool *p);
void net_msg_pool_grow(net_msg_pool *p); /* net_msg_alloc's slow path: a chunk more on the free list */

/* A zeroed message. Inline, as net_msg_release: a workload takes and
 * returns one per message (uniform-random on the input-queued 8x8 torus:
 * 36 instructions a message in the two calls, callgrind). */
static inline net_msg *net_msg_alloc(net_msg_pool *p)
{
    if (__builtin_expect(!p->free, 0))
        net_msg_pool_grow(p);
    net_msg *m = p->free;
    p->free = m->next;
    /* Six 16-byte stores, not memset (nor a compound literal), which the
     * compiler makes a rep stos for 96 bytes: its start-up was most of
     * net_msg_alloc, 3% of fig9's cycles (perf). */
    typedef uint64_t msg_words __attribute__((vector_size(16), may_alias, aligned(8)));
    _Static_assert(sizeof(net_msg) == 6 * sizeof(msg_words), "net_msg is six 16-byte words");
    msg_words *w = (msg_words *)(void *)m, z = {0, 0};
    w[0] = z;
    w[1] = z;
    w[2] = z;
    w[3] = z;
    w[4] = z;
    w[5] = z;
    p->live++;
    return m;
}

static inline void net_msg_release(net_msg_pool *p, net_msg *m)
{
    TN_ASSERT(m && p->live > 0, "message released to a pool with %llu live messages",
              (unsigned long long)p->live);
    m->next = p->free;
    p->free = m;
    p->live--;
}

#endif
