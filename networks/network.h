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
#include "sim.h"
#include "stats.h"

enum net_class { NET_CONTROL = 0, NET_DATA = 1 };      /* latency class (metrics) */
enum net_prio { NET_PRIO_HIGH = 0, NET_PRIO_LOW = 1 }; /* service class (control-first) */

typedef struct net_msg {
    /* set by the sender */
    uint32_t src, dst;    /* node ids */
    uint64_t size_bytes;  /* payload size */
    uint8_t cls;          /* enum net_class */
    uint8_t prio;         /* enum net_prio */
    uint16_t kind;        /* workload's message type */
    uint32_t a;           /* workload payload */
    uint64_t b;           /* workload payload */
    void *p;              /* workload payload */
    /* set by net_send */
    uint64_t id;          /* sequence number of the hand-over, unique per run */
    int64_t t_submit_ps;  /* hand-over time */
    /* private to the fabric */
    int64_t t_aux_ps;     /* e.g. arrival of the head at a port */
    uint64_t aux;         /* e.g. packets outstanding */
    struct net_msg *next; /* intrusive queue link */
} net_msg;

typedef enum net_switching { NET_CUT_THROUGH = 0, NET_STORE_AND_FORWARD = 1 } net_switching;
typedef enum net_recovery { NET_FAST_NACK = 0, NET_NACK, NET_ACK, NET_SLOTTED } net_recovery;

/* Plain parameters of every fabric (the config fills them; a fabric reads its own). */
typedef struct net_params {
    uint32_t nodes;             /* N */
    double bandwidth_bps;       /* per-node access bandwidth B */
    int64_t link_latency_ps;    /* one node<->switch link, propagation */
    int64_t switch_latency_ps;  /* electrical switch traversal */
    net_switching switching;    /* electrical switch: cut-through or store-and-forward */
    int control_first;          /* 1: FIFOs serve NET_PRIO_HIGH first (no preemption) */
    /* SPINet-style optical fabric */
    uint32_t extra_stages;      /* stages beyond log2(N) */
    int64_t switching_time_ps;  /* t_sw per stage */
    int64_t reaction_time_ps;   /* NACK/ACK generation */
    double link_length_m;       /* fibre length node<->fabric, 5 ns/m */
    uint64_t packet_size_bits;  /* maximum packet payload */
    uint32_t wavelengths;       /* lanes a packet is striped over, each at B / W (0 or 1: serial) */
    net_recovery recovery;      /* contention recovery protocol */
    int64_t slot_ps;            /* slotted protocol slot length */
    int64_t ack_timeout_ps;     /* ACK protocol timeout (0 = derived) */
    uint64_t buffer_bytes;      /* edge FIFO capacity (0 = unbounded) */
    /* resolved from the physical layer (phy/) by the run code */
    double bit_error_rate;      /* per-bit error probability on a fabric path (0 = error-free) */
    double energy_per_bit_j;    /* fabric energy per transmitted bit (0 = not modelled) */
    /* SPINet: what a bit of a dropped try costs, which never reaches the
     * receiver: the transmitting edge (laser, TX SerDes) and the gate SOA of
     * each stage it crossed before the drop (both 0: energy_per_bit_j) */
    double energy_edge_per_bit_j;
    double energy_stage_per_bit_j;
} net_params;

typedef struct net net;
typedef void (*net_deliver_fn)(void *owner, net_msg *m);

typedef struct net_ops {
    const char *name;        /* network.type value */
    const char *description; /* one line for --help / params */
    size_t state_size;       /* bytes the framework allocates for an instance */
    /* Validate p without building anything (tasknet validate calls it for every
     * point); may be NULL when init's checks are all there is. 0 or -1 + err. */
    int (*check)(const net_params *p, char *err, size_t errlen);
    /* Validate p and set up; n is the instance's framework handle. 0 or -1 + err
     * (on -1, init has released what it allocated: fini is not called). */
    int (*init)(void *state, net *n, const net_params *p, char *err, size_t errlen);
    /* Take m over at sim_now(net_sim(n)); later call net_delivered(n, m) exactly once. */
    void (*send)(void *state, net_msg *m);
    /* Add fabric-specific metrics (packets_dropped, energy...) to m[METRIC_COUNT]; may be NULL. */
    void (*metrics)(void *state, double *m);
    void (*fini)(void *state); /* may be NULL */
} net_ops;

/* Counters and latency samples every fabric gets from net.c. */
typedef struct net_counters {
    uint64_t sent, delivered;             /* messages */
    uint64_t bytes_sent, bytes_delivered; /* payload bytes */
    stats_sample latency_s[2];            /* per enum net_class, seconds */
    stats_sample latency_all_s;           /* all messages, seconds */
} net_counters;

struct net {
    const net_ops *ops;
    void *state;
    sim *sim;
    gsl_rng *rng;            /* the fabric's own stream */
    net_params params;
    net_deliver_fn deliver;  /* workload callback */
    void *owner;
    net_counters c;
    uint64_t next_id;
};

extern const net_ops *const net_registry[]; /* NULL-terminated */
/* The fabrics (networks/net_<name>.c), listed in net_registry. */
extern const net_ops net_ideal_ops;  /* "ideal": serialisation + fixed latency, no contention */
extern const net_ops net_switch_ops; /* "electrical-switch": MODEL.md section 6 */
extern const net_ops net_spinet_ops; /* "spinet": MODEL.md section 7 */
const net_ops *net_find(const char *name);

/* Checks every fabric shares, for its init: N >= 2, 0 < bandwidth finite,
 * link and switch latencies >= 0. 0, or -1 + err naming `fabric`. */
int net_check_params(const char *fabric, const net_params *p, char *err, size_t errlen);

/* Create an instance of fabric `type`. rng is borrowed (owned by the caller). */
net *net_create(const char *type, const net_params *p, sim *s, gsl_rng *rng,
                net_deliver_fn deliver, void *owner, char *err, size_t errlen);
void net_destroy(net *n);
void net_send(net *n, net_msg *m);
/* Called by fabrics when the last bit of m reached m->dst, at sim_now. */
void net_delivered(net *n, net_msg *m);
static inline sim *net_sim(const net *n) { return n->sim; }
/* Fill the generic network metrics (latencies, bytes) and the fabric's. */
void net_metrics(net *n, double *m);

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
net_msg *net_msg_alloc(net_msg_pool *p); /* zeroed */
void net_msg_release(net_msg_pool *p, net_msg *m);

#endif
