/* The output port shared by the electrical switch (net_switch.c) and the
 * switched core under every multi-switch topology (swnet.c), and by any
 * router model that keeps per-class / per-VC packet queues (issue 22; the
 * router helper's input-queued routers build on it).
 *
 * What it owns, each the one copy of a rule that used to live in each
 * fabric:
 *   - port_fifo: an intrusive FIFO of records linked through a pointer at a
 *     fixed byte offset of the record (the caller's `next`: swnet_pkt.next,
 *     nic_pkt.next, net_msg.next), so one FIFO type queues packets or
 *     messages without a wrapper; the offset is a constant at every call
 *     site, so the inline functions compile to the plain list code.
 *   - port_bands: strict priority bands, NET_PRIO_CLASSES FIFOs and the
 *     mask of the non-empty ones; the head of the lowest non-empty band is
 *     served first, FIFO within a band, never preempting the record on the
 *     wire (the switch's control-first / strict ports and sources, the
 *     thesis' three pfifo_fast bands with band = class).
 *   - port_out: the transmitter and the byte accounting of one output:
 *     busy until, busy time (utilisation), the bytes and records waiting
 *     and the bytes of the record on the wire (adaptive / UGAL load).
 * Which record a port sends next across several FIFOs of one band (oldest
 * head across VCs, credit) stays with the fabric: it is the fabric's
 * arbitration, not the queue's.
 *
 * Hot path: everything here is inline and allocates nothing. */
#ifndef TASKNET_PORT_H
#define TASKNET_PORT_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "network.h"
#include "params.h"

/* ---- intrusive FIFOs ---- */

typedef struct port_fifo {
    void *head, *tail; /* head NULL when empty */
} port_fifo;

/* The link of record e: a pointer at byte offset off. */
static inline void **port_link_(void *e, size_t off) { return (void **)((char *)e + off); }

static inline int port_fifo_empty(const port_fifo *f) { return f->head == NULL; }

/* e joins the tail of f (its link at offset off). */
static inline void port_fifo_push(port_fifo *f, void *e, size_t off)
{
    *port_link_(e, off) = NULL;
    if (f->tail)
        *port_link_(f->tail, off) = e;
    else
        f->head = e;
    f->tail = e;
}

/* The head of f, removed (its link cleared); f must not be empty. */
static inline void *port_fifo_pop(port_fifo *f, size_t off)
{
    void *e = f->head;
    void **l = port_link_(e, off);
    f->head = *l;
    if (!f->head)
        f->tail = NULL;
    *l = NULL;
    return e;
}

/* ---- strict priority bands ---- */

typedef struct port_bands {
    port_fifo q[NET_PRIO_CLASSES];
    uint32_t mask; /* bit b set iff q[b] is not empty */
} port_bands;

static inline int port_bands_empty(const port_bands *b) { return b->mask == 0; }

static inline void port_bands_push(port_bands *b, unsigned band, void *e, size_t off)
{
    port_fifo_push(&b->q[band], e, off);
    b->mask |= 1u << band;
}

/* The lowest non-empty band (b not empty). */
static inline unsigned port_bands_first(const port_bands *b) { return (unsigned)__builtin_ctz(b->mask); }

/* The head of the lowest non-empty band, removed; NULL when all are empty. */
static inline void *port_bands_pop(port_bands *b, size_t off)
{
    if (!b->mask)
        return NULL;
    unsigned k = port_bands_first(b);
    port_fifo *f = &b->q[k];
    void *e = port_fifo_pop(f, off);
    if (!f->head)
        b->mask &= ~(1u << k);
    return e;
}

/* ---- the transmitter and its accounting ---- */

typedef struct port_out {
    int64_t busy_until_ps; /* the record on the wire ends */
    int64_t busy_ps;       /* transmission time so far (utilisation), ps */
    uint64_t qbytes;       /* bytes waiting in its queues */
    uint32_t wire_bytes;   /* bytes of the record it sent last */
    uint32_t nqueued;      /* records waiting */
} port_out;

static inline void port_enqueued(port_out *o, uint64_t bytes)
{
    o->nqueued++;
    o->qbytes += bytes;
}

static inline void port_dequeued(port_out *o, uint64_t bytes)
{
    o->nqueued--;
    o->qbytes -= bytes;
}

/* o puts a record of `bytes` taking ser ps on the wire at now: busy until
 * now + ser, its busy time and the bytes on the wire kept. A fabric that
 * reads neither (the single switch) sets busy_until_ps alone. */
static inline void port_transmit(port_out *o, int64_t now, int64_t ser, uint32_t bytes)
{
    o->busy_until_ps = now + ser;
    o->wire_bytes = bytes;
    o->busy_ps += ser;
}

/* Bytes waiting and on the wire at now (adaptive routing's load). */
static inline uint64_t port_load(const port_out *o, int64_t now)
{
    return o->qbytes + (o->busy_until_ps > now ? o->wire_bytes : 0);
}

/* ---- finite buffers, drop-tail and ECN (issue 22) ----
 *
 * Opt-in by the fabric's parameters (the rows below; defaults: unbounded,
 * no marking, so nothing changes). A record joining a queue of an output
 * is first admitted (port_admit), against the bytes waiting there (the
 * record on the wire excluded: ns-3's queue discs hold what waits, the
 * device holds what is sent):
 *   - drop-tail, static: per output port, it is dropped if the bytes
 *     waiting plus its own would exceed network.buffer;
 *   - drop-tail, dynamic (buffer-policy="dynamic"): network.buffer is the
 *     switch's shared memory B; a port may hold up to alpha (B - Q) bytes,
 *     Q the switch's bytes waiting at all its ports (Choudhury and Hahne,
 *     IEEE/ACM ToN 1998, the dynamic threshold of shared-memory switches),
 *     and never more than B - Q;
 *   - ECN, threshold: an ECN-capable record is marked CE if the bytes
 *     waiting when it arrives are at least network.ecn-threshold (K):
 *     DCTCP's marking on the instantaneous queue (Alizadeh et al., SIGCOMM
 *     2010, sec. 3.1; RFC 8257 sec. 3.1); ns-3's RedQueueDisc with MinTh =
 *     MaxTh = K and QW = 1 does the same;
 *   - ECN, red (ecn="red"): Floyd and Jacobson (1993): avg <- (1 - w) avg +
 *     w q at each arrival (w = network.red-weight, q the bytes waiting);
 *     below red-min nothing, at or above red-max every arrival is marked
 *     (ECN-capable) or dropped (not), between them with probability p_a =
 *     p_b / (1 - count p_b), p_b = red-max-probability (avg - min) / (max -
 *     min), count the arrivals since the last mark or drop (the gentle
 *     spacing of RED's paper). Not ECN-capable records are dropped where an
 *     ECN-capable one would be marked (RED's early drop).
 * A fabric keeps a port_stats per output to report the queue: its largest
 * waiting bytes and its time-weighted mean (port_stats_change at every
 * change of qbytes). */

enum port_policy { PORT_STATIC = 0, PORT_DYNAMIC = 1 };
enum port_ecn { PORT_ECN_THRESHOLD = 0, PORT_ECN_RED = 1 };
extern const char *const port_policy_names[]; /* "static", "dynamic" */
extern const char *const port_ecn_names[];    /* "threshold", "red" */

/* The buffer parameters, embedded in a fabric's params struct. */
typedef struct port_cfg {
    uint64_t buffer_bytes;        /* network.buffer: per port (static) or per switch (dynamic); 0 = unbounded */
    int policy;                   /* enum port_policy (network.buffer-policy) */
    double alpha;                 /* network.buffer-alpha: dynamic threshold factor */
    int ecn;                      /* enum port_ecn (network.ecn) */
    uint64_t ecn_threshold_bytes; /* network.ecn-threshold: K; 0 = no threshold marking */
    uint64_t red_min_bytes, red_max_bytes; /* network.red-min, network.red-max */
    double red_pmax;              /* network.red-max-probability */
    double red_weight;            /* network.red-weight: w of the average */
} port_cfg;

/* 1 when the configuration asks for anything of this section. */
static inline int port_cfg_on(const port_cfg *c)
{
    return c->buffer_bytes > 0 || c->ecn_threshold_bytes > 0 || c->ecn == PORT_ECN_RED;
}

#define PORT_ROW_(path_, type_, unit_, def_, help_) \
    .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_

/* The rows, for a params struct T whose port_cfg is member m (one parameter
 * for every fabric that declares them). */
#define PORT_ROWS(T, m)                                                                                        \
    {PORT_ROW_("network.buffer", "size", "B", "0B",                                                            \
               "output buffers: bytes waiting per output port (buffer-policy static) or per switch (dynamic), " \
               "drop-tail; 0 = unbounded (no drops)"),                                                          \
     .kind = PARAM_BYTES, .off = offsetof(T, m.buffer_bytes), .flags = PARAM_NONNEG, .example = "300kB"},     \
    {PORT_ROW_("network.buffer-policy", "choice", "", "static",                                                \
               "output buffers: static (network.buffer per port) | dynamic (shared per switch, a port takes up " \
               "to buffer-alpha x the free memory: Choudhury-Hahne)"),                                         \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.policy), .choices = port_policy_names, .example = "dynamic"},   \
    {PORT_ROW_("network.buffer-alpha", "number", "", "1", "output buffers: the dynamic threshold's alpha (> 0)"), \
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(T, m.alpha), .flags = PARAM_POS, .example = "0.5"}, \
    {PORT_ROW_("network.ecn", "choice", "", "threshold",                                                       \
               "ECN marking at output ports: threshold (CE when the bytes waiting are >= ecn-threshold, if > 0) " \
               "| red (RED on the average queue: red-min, red-max, red-max-probability, red-weight)"),         \
     .kind = PARAM_CHOICE, .off = offsetof(T, m.ecn), .choices = port_ecn_names, .example = "red"},            \
    {PORT_ROW_("network.ecn-threshold", "size", "B", "0B",                                                     \
               "ECN: mark ECN-capable packets arriving at a port with this many bytes waiting (DCTCP's K; 0 = off)"), \
     .kind = PARAM_BYTES, .off = offsetof(T, m.ecn_threshold_bytes), .flags = PARAM_NONNEG, .example = "97.5kB"}, \
    {PORT_ROW_("network.red-min", "size", "B", "30kB", "ECN red: average queue where marking starts"),         \
     .kind = PARAM_BYTES, .off = offsetof(T, m.red_min_bytes), .flags = PARAM_NONNEG, .example = "30kB"},     \
    {PORT_ROW_("network.red-max", "size", "B", "90kB", "ECN red: average queue from which every packet is marked"), \
     .kind = PARAM_BYTES, .off = offsetof(T, m.red_max_bytes), .flags = PARAM_POS, .example = "90kB"},        \
    {PORT_ROW_("network.red-max-probability", "number", "", "0.1", "ECN red: marking probability at red-max"), \
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(T, m.red_pmax), .flags = PARAM_POS, .example = "0.1"}, \
    {PORT_ROW_("network.red-weight", "number", "", "0.002", "ECN red: weight of a sample in the average queue"), \
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(T, m.red_weight), .flags = PARAM_POS,              \
     .example = "0.002"}

/* Checks of the rows' values (a fabric's check op calls it); mtu: the
 * largest record a port queues (0: unknown). */
void port_cfg_check(const port_cfg *c, uint64_t mtu, param_report *rep);

/* What a port does with an arriving record. */
enum port_verdict { PORT_ENQUEUE = 0, PORT_MARK = 1, PORT_DROP = 2 };

/* RED state of one output. */
typedef struct port_red {
    double avg;     /* average bytes waiting */
    uint32_t count; /* arrivals since the last mark or drop (-1 below min: 0) */
} port_red;

/* The verdict for a record of `bytes` (ect: ECN-capable) arriving at an
 * output with `qbytes` waiting, `shared` the switch's bytes waiting at all
 * its ports (dynamic policy), red its RED state (ecn red), rng the fabric's
 * stream (RED's draws). */
int port_admit(const port_cfg *c, uint64_t qbytes, uint64_t shared, uint64_t bytes, int ect, port_red *red,
               gsl_rng *rng);

/* Queue statistics of one output: the largest bytes waiting and their
 * integral over time. */
typedef struct port_stats {
    int64_t t_ps;     /* last change */
    double area;      /* sum of qbytes x duration, byte ps */
    uint64_t max;     /* largest qbytes */
} port_stats;

/* qbytes of the output is about to change at now (call before changing it). */
static inline void port_stats_change(port_stats *s, uint64_t qbytes, int64_t now)
{
    s->area += (double)qbytes * (double)(now - s->t_ps);
    s->t_ps = now;
}

/* After the change: the new qbytes. */
static inline void port_stats_max(port_stats *s, uint64_t qbytes)
{
    if (qbytes > s->max)
        s->max = qbytes;
}

/* The counters a buffered fabric reports (the core metrics drops, ecn_marks,
 * queue_max_bytes, queue_mean_bytes): over its outputs. */
typedef struct port_report {
    uint64_t drops, marks;
    uint64_t queue_max;   /* largest bytes waiting at any output, any time */
    double queue_mean;    /* the busiest output's time-weighted mean bytes waiting over [0, now] */
    uint64_t queue_now;   /* the largest bytes waiting at an output now */
} port_report;

/* Fold one output's stats (qbytes waiting since its last change) into r,
 * its mean taken over [0, now]. */
void port_report_fold(port_report *r, const port_stats *s, uint64_t qbytes, int64_t now);

#endif
