/* SPINet-style multistage optical fabric (MODEL.md section 7).
 *
 * Timing model (every time an integer number of picoseconds):
 *   t_link = link_length_m * 5 ns/m   one way, node <-> fabric (phy_propagation_ps)
 *   t_sw   = switching_time           decision time of one element
 *   t_r    = reaction_time            generation of a NACK or an ACK
 *   P      = ceil(bits / W) W / B      payload time of a packet of `bits` striped
 *                                     over W wavelengths at B / W each, whole ps up
 *   S      = log2(N) + extra_stages
 * A try of a packet starts at t0 at the source. Its header reaches stage 1
 * at t0 + t_link and the element of stage s (1-based) decides at
 *   h_s = t0 + t_link + s t_sw
 * (stages are adjacent: no propagation inside the fabric). The element needs
 * one output (or either, where both lead to the destination: one picked at
 * random with n->rng, the other tried if the first is busy). Accepted iff the
 * output is free at h_s; it is then locked over [h_s, h_s + P) and the
 * element's bar/cross state with it. Refused: the packet is dropped at s.
 * Otherwise the header reaches the destination at t0 + F, F = 2 t_link + S t_sw,
 * and the last bit at t_last = t0 + F + P. A packet of b bits arriving there
 * is corrupted with probability 1 - (1 - BER)^b (drawn from n->rng).
 * An answer (NACK/ACK) returns along the path set up, taking the time the
 * header took to reach the point that answers:
 *   fast-nack (default): a drop at s returns at t_n = t0 + 2 (t_link + s t_sw) + t_r;
 *     the source stops sending (its truncated tail frees stage r's output at
 *     h_r + min(P, t_n - t0)) and retransmits at t_n, before anything else.
 *     The source holds its path for H = max(2 t_link + 2 S t_sw + t_r, P + S t_sw)
 *     (MODEL.md's formula plus t_r, so a NACK from the last stage can return
 *     while the path is held) unless a NACK frees it earlier.
 *   nack: the drop is reported at the end of the transmission, P later:
 *     t_n = t0 + 2 (t_link + s t_sw) + t_r + P; the whole packet is sent.
 *     H = 2 t_link + 2 S t_sw + t_r + P (the latest NACK).
 *   ack: the destination acknowledges an intact packet: the ACK reaches the
 *     source at t0 + 2F + P + t_r, and frees it. Without an ACK (drop or
 *     corruption) the source retransmits at t0 + T, T = ack_timeout (0: the
 *     ACK time of a full packet, 2F + P_max + t_r; a shorter T is rejected,
 *     since it would retransmit packets that were delivered).
 *   slotted: fast-nack, but every try starts on a multiple of `slot`.
 * Corrupted packets (fast-nack, nack, slotted): the receiver NACKs when the
 * last bit arrives; the NACK reaches the source at t_last + t_r + F, after the
 * path was released; the packet is queued to be retransmitted as soon as the
 * transmitter is free, before new packets.
 * A message is cut into packets of at most packet_size bits (a 0-byte message
 * is one 0-bit packet) sent in order; it is delivered when all its packets
 * have arrived intact (each counted once), at the last such arrival.
 *
 * Edge FIFO (buffer_bytes, 0 = unbounded): holds the bits handed over and not
 * yet cut into packets; a packet's bits leave it when its first try starts
 * (the transmitter keeps its copy for retransmissions). A hand-over can never
 * be refused, so when the bits do not fit, the excess waits in host memory
 * (a blocking send) and enters the FIFO, in order, as packets leave it. The
 * order of transmission is the same either way, so the capacity does not
 * change timing: what it measures is counted, in edge_full_msgs (messages
 * whose bits did not all fit at hand-over) and edge_wait_ps (the time until
 * their last bit entered the FIFO).
 *
 * Host NIC (issue 12): with network.host-scheduling other than fifo, the
 * edge FIFO is the shared host NIC of networks/host_nic.h: the next packet
 * (network.packet-size, which plays the NIC's MTU) is cut from the message
 * the NIC picks: round-robin, by class (priority: lowest net_msg.prio first,
 * round-robin within a class) or srpt; retransmissions still go first. The
 * edge FIFO's capacity (network.buffer) is counted in hand-over order only,
 * so it needs fifo. With fifo (default) the edge FIFO is as above.
 *
 * Events: all the stage decisions of a try are made in the event that starts
 * it. This is exact, not an approximation: every header reaches stage s at
 * t0 + (fixed offset of s), so headers meet any element in the order of their
 * t0, i.e. in the order the engine starts the tries (equal t0: FIFO order of
 * the engine, which is also the order of stage-by-stage events); and a drop
 * only shortens upstream locks to end after h_s, so a later try that would
 * have looked at them before the drop was known sees the same verdict. One
 * event per try that fails (the NACK or timeout, which starts the next try),
 * one or two per packet delivered (delivery; release of the source, only
 * when another packet waits for it). The NACKs (one delay per drop stage),
 * and the deliveries and releases of full packets (fwd + P and hold(P)),
 * come a fixed delay after the try: they go through engine lanes (sim.h),
 * the heap's order at less cost. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "optical.h"
#include "net_spinet.h"
#include "spinet_topology.h"

static const char *const spn_protocol_names[] = {"fast-nack", "nack", "ack", "slotted", NULL};

#define SPN_ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_

static const param_row spn_rows[] = {
    {SPN_ROW("network.extra-stages", "integer", "", "0", "SPINet: stages beyond log2(N) (0 to 32)"),
     .kind = PARAM_U32, .off = offsetof(spn_params, extra_stages), .min = 0, .max = 32, .example = "1"},
    {SPN_ROW("network.switching-time", "time", "s", "1ns", "SPINet: decision time of one switching element (>= 0)"),
     .kind = PARAM_PS, .off = offsetof(spn_params, switching_time_ps), .flags = PARAM_NONNEG, .example = "1ns"},
    {SPN_ROW("network.reaction-time", "time", "s", "1ns", "SPINet: time to generate a NACK or an ACK (>= 0)"),
     .kind = PARAM_PS, .off = offsetof(spn_params, reaction_time_ps), .flags = PARAM_NONNEG, .example = "1ns"},
    {SPN_ROW("network.protocol", "choice", "", "fast-nack", "SPINet contention recovery: fast-nack | nack | ack | slotted"),
     .kind = PARAM_CHOICE, .off = offsetof(spn_params, recovery), .choices = spn_protocol_names,
     .example = "fast-nack"},
    {SPN_ROW("network.slot", "time", "s", "100ns", "SPINet: slot length of the slotted protocol (> 0)"),
     .kind = PARAM_PS, .off = offsetof(spn_params, slot_ps), .flags = PARAM_POS, .example = "100ns"},
    {SPN_ROW("network.buffer", "size", "B", "0B", "SPINet: edge FIFO capacity per node (0 = unbounded)"),
     .kind = PARAM_BYTES, .off = offsetof(spn_params, buffer_bytes), .flags = PARAM_NONNEG, .example = "1MB"},
    {SPN_ROW("network.link-length", "length", "m", "4m", "SPINet: fibre between a node and the fabric, 5 ns/m (>= 0)"),
     .kind = PARAM_REAL, .dim = UNIT_LENGTH, .off = offsetof(spn_params, link_length_m), .flags = PARAM_NONNEG,
     .example = "4m"},
    {SPN_ROW("network.packet-size", "size", "B", "1kB", "SPINet: largest packet payload; messages are cut into packets (> 0)"),
     .kind = PARAM_BYTES, .off = offsetof(spn_params, packet_bytes), .flags = PARAM_POS, .example = "1kB"},
    {SPN_ROW("network.ack-timeout", "time", "s", "0s", "SPINet ack protocol: retransmission timeout (0 = the shortest safe one)"),
     .kind = PARAM_PS, .off = offsetof(spn_params, ack_timeout_ps), .flags = PARAM_NONNEG, .example = "200ns"},
    NIC_ROW_SCHEDULING(spn_params, nic),
};

#define SPN_METRICS(X)                                                                          \
    X(packets_dropped, "packets dropped by contention in the fabric")                          \
    X(tries_per_packet_mean, "mean transmissions per delivered packet")                        \
    X(phy_losses, "packets lost to bit errors (physical layer)")                               \
    X(edge_fifo_full, "messages that did not fit their source's edge FIFO and waited in host memory") \
    X(edge_fifo_wait_mean_s, "mean time such a message waited until its last bit entered the FIFO") \
    X(energy_per_bit_j, "network energy per delivered bit (every try's emitted bits)")
/* its own enumerators (SPM_*); its packet retransmissions are the core
 * metric `retransmissions` (spinet_queue_report), unless a transport runs
 * over it (then that column is the transport's segments sent again) */
#define SPN_METRIC_ENUM(name, desc) SPM_##name,
enum { SPN_METRICS(SPN_METRIC_ENUM) SPN_NMETRICS };
static const metric_def spn_metrics_def[] = {SPN_METRICS(METRIC_DEF)};

#define SPN_POOL_CHUNK 256   /* packet records allocated at once */
#ifndef SPN_LOOKAHEAD
#define SPN_LOOKAHEAD 4      /* a NACK lane's events fetched ahead (per stage of pf_retry) */
#endif
#define SPN_TIME_MAX_PS INT64_C(3600000000000000) /* 1 hour: bounds every time parameter */
#define SPN_LOCK_TIME_MAX_PS (INT64_C(1) << 62)   /* 53 days: a lock word holds a time << 1 */
#define SPN_LINK_MAX_M 1e6                        /* 1000 km of fibre: 5 ms */
#define SPN_INTACT_MIN 0.01                       /* least probability a full packet arrives intact */

typedef struct spn_pkt {
    net_msg *msg;         /* message this packet belongs to */
    struct spn_pkt *next; /* retransmission queue or free-list link */
    uint64_t bits;        /* payload, bits */
    int64_t payload_ps;   /* P: ceil(bits / W) slots at B / W, ps, rounded up */
    uint32_t tries;       /* transmissions started (count) */
    uint32_t src, dst;    /* msg's nodes, copied: a retry then reads no message (a cache miss
                           * at 65,536 ports, where a NACK comes back after thousands of events) */
    uint32_t id;          /* chunk * SPN_POOL_CHUNK + index: the 32-bit argument of a lane event */
} spn_pkt;

enum spn_src_state {
    SRC_IDLE = 0,  /* transmitter free */
    SRC_SLOT_WAIT, /* slotted: a start is scheduled on the next boundary */
    SRC_BUSY,      /* a try holds the path; an event (release, NACK, timeout) ends it */
    SRC_HELD       /* a try holds the path until free_at_ps; no event: nothing waited */
};

typedef struct spn_src {
    net_msg *head, *tail; /* messages with packets not yet cut, hand-over order */
    net_msg *host_first;  /* first message with bits still in host memory, NULL if none */
    uint64_t head_cut;    /* packets of head already cut (count) */
    uint64_t in_bits;     /* bits handed over since the start (cumulative, bits) */
    uint64_t out_bits;    /* bits that left the edge FIFO (cumulative, bits) */
    spn_pkt *rtx_head;    /* packets to retransmit, served before new ones */
    spn_pkt *rtx_tail;    /* last of them */
    int64_t free_at_ps;   /* SRC_HELD: end of the hold, ps */
    uint8_t state;        /* enum spn_src_state */
} spn_src;

typedef struct spn_state {
    net *n;                   /* framework handle (sim, rng, delivery) */
    spinet_topo topo;         /* wiring and routes */
    int recovery;             /* enum spn_recovery */
    double bandwidth_bps;     /* B, per node, the packet's aggregate rate */
    unsigned wavelengths;     /* W, lanes a packet is striped over */
    phy_rate lane;            /* one lane: bits at B / W */
    uint64_t packet_bits;     /* maximum packet payload, bits */
    uint64_t buffer_bits;     /* edge FIFO capacity, bits (0 = unbounded) */
    int64_t link_ps;          /* t_link, one way, ps */
    int64_t sw_ps;            /* t_sw, ps */
    int64_t react_ps;         /* t_r, ps */
    int64_t slot_ps;          /* slot length (slotted), ps */
    int64_t ack_timeout_ps;   /* T (ack), ps */
    int64_t fwd_ps;           /* F = 2 t_link + S t_sw: header source -> destination, ps */
    int64_t t0_max_ps;        /* latest try start whose locks fit a lock word, ps */
    double ber;               /* per-bit error probability */
    double log1m_ber;         /* log(1 - BER), for the packet loss probability */
    uint64_t loss_bits;       /* the packet size whose loss probability is loss (all packets of a
                               * message but its last have one size: expm1 per try was 3.8% of fig11) */
    double loss;              /* 1 - (1 - BER)^loss_bits; loss_bits UINT64_MAX: none yet */
    double energy_per_bit_j;  /* J per emitted bit that reaches the receiver */
    int energy_modelled;      /* 1 when the phy resolved the energies */
    double drop_edge_j;       /* J per emitted bit of a dropped try: laser and TX SerDes... */
    double drop_stage_j;      /* ...plus this per stage crossed before the drop */
    /* [(stage * E + elem) * 2 + out]: the output's lock, (until_ps << 1) |
     * the input it was taken from (lock_word); 0: never locked */
    uint64_t *lock;
    /* Per drop stage d = 1..S ([0] unused), what start_try needs after a
     * drop, computed once at init with the very expressions it used per try
     * (same doubles): at saturation nine tries in ten drop (spinet-load:
     * 9.6 M drops for 1.06 M deliveries), and the floor and the products
     * were 3% of its instructions. */
    int64_t *drop_back_ps;    /* 2 (t_link + d t_sw) + t_r: the NACK's round trip, ps */
    double *drop_sent_bits;   /* fast NACK, slotted: bits sent before the NACK stops the source */
    double *drop_j_per_bit;   /* energy per emitted bit of a try dropped at d, J; [0]: of one
                               * that arrived, energy_per_bit_j (also every d when the drop
                               * energies are not modelled) */
    int *drop_lane;           /* fast NACK, slotted: the engine lane of delay drop_back_ps[d], -1 if none */
    /* Full packets (payload full_ps) are delivered fwd_ps + full_ps after
     * their try starts and, outside ack, release their source hold_ps(full)
     * after it: fixed delays, so lanes (-1: none left; then the heap). */
    int64_t full_ps;          /* P of a packet of packet_bits */
    int deliver_lane;         /* delay fwd_ps + full_ps, argument the packet's id */
    int release_lane;         /* delay release_ps, argument the source */
    int64_t release_ps;       /* hold_ps(full_ps) */
    unsigned long rng_off;    /* n->rng's type min: rng_bit */
    unsigned long rng_scale;  /* (max - min) / 2: rng_bit */
    uint32_t *path;           /* [S] scratch: output index taken at each stage by the try */
    spn_src *src;             /* [N] sources */
    spn_pkt *pkt_free;        /* free packet records */
    void **chunks;            /* packet record chunks (freed at fini) */
    size_t nchunks;           /* chunks allocated */
    spinet_stats st;          /* counters */
    int nic_on;               /* 1: the host NIC picks the next packet (host-scheduling not fifo) */
    host_nic nic;             /* nic_on: the sources' messages */
} spn_state;

/* ---- packet records: a free list grown by chunks, no malloc once warm ---- */

static spn_pkt *pkt_alloc(spn_state *st)
{
    if (!st->pkt_free) {
        TN_ASSERT(st->nchunks < UINT32_MAX / SPN_POOL_CHUNK, "SPINet: more than 2^32 packets in flight");
        spn_pkt *c = tn_xcalloc(SPN_POOL_CHUNK, sizeof *c);
        st->chunks = tn_xrealloc(st->chunks, (st->nchunks + 1) * sizeof *st->chunks);
        st->chunks[st->nchunks++] = c;
        for (size_t i = 0; i < SPN_POOL_CHUNK; i++) {
            c[i].id = (uint32_t)((st->nchunks - 1) * SPN_POOL_CHUNK + i);
            c[i].next = st->pkt_free;
            st->pkt_free = &c[i];
        }
    }
    spn_pkt *p = st->pkt_free;
    st->pkt_free = p->next;
    uint32_t id = p->id;
    memset(p, 0, sizeof *p);
    p->id = id;
    return p;
}

/* The packet of a lane event's argument. */
static inline spn_pkt *pkt_of_id(const spn_state *st, uint32_t id)
{
    return (spn_pkt *)st->chunks[id / SPN_POOL_CHUNK] + id % SPN_POOL_CHUNK;
}

static void pkt_release(spn_state *st, spn_pkt *p)
{
    p->next = st->pkt_free;
    st->pkt_free = p;
}

/* ---- timing helpers ---- */

static int64_t payload_ps(const spn_state *st, uint64_t bits)
{
    return phy_striped_ps(&st->lane, bits, st->wavelengths);
}

/* Time the source holds its path after a try that reached the destination. */
static int64_t hold_ps(const spn_state *st, int64_t p_ps)
{
    int64_t S = st->topo.stages;
    int64_t rtt = 2 * st->link_ps + 2 * S * st->sw_ps + st->react_ps;
    if (st->recovery == SPN_NACK)
        return rtt + p_ps;
    int64_t tx = p_ps + S * st->sw_ps;
    return rtt > tx ? rtt : tx;
}

static uint64_t packets_of(const spn_state *st, uint64_t bits)
{
    return bits ? bits / st->packet_bits + (bits % st->packet_bits != 0) : 1;
}

/* Source s has packets not yet cut. */
static inline int src_has_new(const spn_state *st, uint32_t s)
{
    return st->nic_on ? nic_pending(&st->nic, s) : st->src[s].head != NULL;
}

/* ---- events ---- */

static void src_kick(spn_state *st, uint32_t s);
static void start_try(spn_state *st, uint32_t s, spn_pkt *p);
static void ev_retry_lane(sim *sm, void *ctx, uint64_t arg);

static void ev_deliver(sim *sm, void *ctx, uint64_t arg)
{
    spn_state *st = ctx;
    spn_pkt *p = (spn_pkt *)(uintptr_t)arg;
    net_msg *m = p->msg;
    st->st.packets_delivered++;
    st->st.tries_delivered += p->tries;
    st->st.bits_delivered += (double)p->bits;
    pkt_release(st, p);
    TN_ASSERT(m->aux > 0, "message %llu delivered twice", (unsigned long long)m->id);
    if (--m->aux == 0)
        net_delivered(st->n, m);
}

static void ev_deliver_lane(sim *sm, void *ctx, uint64_t arg)
{
    ev_deliver(sm, ctx, (uint64_t)(uintptr_t)pkt_of_id(ctx, (uint32_t)arg));
}

static void ev_release(sim *sm, void *ctx, uint64_t arg)
{
    spn_state *st = ctx;
    spn_src *sp = &st->src[arg];
    TN_ASSERT(sp->state == SRC_BUSY, "source %llu released while in state %d",
              (unsigned long long)arg, sp->state);
    sp->state = SRC_IDLE;
    src_kick(st, (uint32_t)arg);
}

/* NACK of a drop (the source still holds the path) or ACK timeout:
 * retransmit at once, ahead of everything else. */
static void retry(spn_state *st, spn_pkt *p)
{
    uint32_t src = p->src;
    spn_src *sp = &st->src[src];
    TN_ASSERT(sp->state == SRC_BUSY, "NACK/timeout for source %u in state %d", src, sp->state);
    if (st->recovery != SPN_SLOTTED) {
        /* what src_kick would do: the packet at the head of the
         * retransmissions goes at once (the 9 tries in 10 that drop at
         * saturation come here) */
        sp->state = SRC_IDLE;
        p->next = NULL;
        start_try(st, src, p);
        return;
    }
    p->next = sp->rtx_head;
    sp->rtx_head = p;
    if (!sp->rtx_tail)
        sp->rtx_tail = p;
    sp->state = SRC_IDLE;
    src_kick(st, src);
}

static void ev_retry(sim *sm, void *ctx, uint64_t arg)
{
    retry(ctx, (spn_pkt *)(uintptr_t)arg);
}

/* The same from a NACK lane (sim_lane), whose argument is the packet's id. */
static void ev_retry_lane(sim *sm, void *ctx, uint64_t arg)
{
    retry(ctx, pkt_of_id(ctx, (uint32_t)arg));
}

/* Lookahead of a NACK lane (sim_lane_prefetch, two stages): the packet of
 * a retry that comes soon (stage 0), then its source and the lock words of
 * its first elements (stage 1), out of the caches at scale. */
static void pf_retry(void *ctx, uint32_t id, unsigned stage)
{
    const spn_state *st = ctx;
    const spn_pkt *p = pkt_of_id(st, id);
    if (stage == 0) {
        __builtin_prefetch(p);
        return;
    }
    __builtin_prefetch(&st->src[p->src], 1);
    __builtin_prefetch(&st->lock[(size_t)(p->src >> 1) * 2], 1);
}

/* NACK of a corrupted packet from the receiver, after the path was released. */
static void ev_late_nack(sim *sm, void *ctx, uint64_t arg)
{
    spn_state *st = ctx;
    spn_pkt *p = (spn_pkt *)(uintptr_t)arg;
    spn_src *sp = &st->src[p->msg->src];
    p->next = NULL;
    if (sp->rtx_tail)
        sp->rtx_tail->next = p;
    else
        sp->rtx_head = p;
    sp->rtx_tail = p;
    src_kick(st, p->msg->src);
}

static void ev_slot(sim *sm, void *ctx, uint64_t arg)
{
    spn_state *st = ctx;
    spn_src *sp = &st->src[arg];
    TN_ASSERT(sp->state == SRC_SLOT_WAIT, "slot start for source %llu in state %d",
              (unsigned long long)arg, sp->state);
    sp->state = SRC_IDLE;
    src_kick(st, (uint32_t)arg);
}

/* ---- the fabric ---- */

/* gsl_rng_uniform_int(n->rng, 2), the same draws and the same value
 * (GSL: k = (get - min) / scale, scale = (max - min) / 2, redrawn while
 * k >= 2), with the division turned into comparisons (k >= 2 iff
 * v >= 2 scale; k = 1 iff v >= scale) and no call into the library's
 * wrapper: one draw per try on fabrics with extra stages. */
static inline unsigned rng_bit(const spn_state *st)
{
    const gsl_rng *r = st->n->rng;
    unsigned long v;
    do
        v = r->type->get(r->state) - st->rng_off;
    while (v >= 2 * st->rng_scale);
    return v >= st->rng_scale;
}

/* An output's lock word: the end of its lock and the input its packet came
 * in on, (until_ps << 1) | input, so that the element's state (bar or
 * cross) is known from the words of its two outputs and needs no store of
 * its own. The output is busy at h iff until_ps > h, i.e. iff the word is
 * above lock_word(h, 1); times stay below SPN_LOCK_TIME_MAX_PS. */
static inline uint64_t lock_word(int64_t until_ps, unsigned input)
{
    return (uint64_t)until_ps << 1 | input;
}

/* Evaluate the whole path of a try starting now (see the header comment for
 * why this equals stage-by-stage decisions). Returns the 1-based stage that
 * dropped it, 0 if it reached the destination. */
static uint32_t traverse(spn_state *st, uint32_t src, uint32_t dst, int64_t t0, int64_t p_ps)
{
    const spinet_topo *t = &st->topo;
    uint32_t E = t->elems, S = t->stages, mask = E - 1, dhalf = dst >> 1;
    uint32_t elem = src >> 1;
    unsigned in = src & 1;
    uint64_t *lock = st->lock;
    /* even a 0-bit packet (a 0-byte message) holds the output for 1 ps,
     * so two headers never share it at one instant */
    int64_t hold = p_ps > 0 ? p_ps : 1;
    int64_t h = t0 + st->link_ps; /* h_s = t0 + t_link + (s + 1) t_sw, summed stage by stage */
    TN_ASSERT(t0 <= st->t0_max_ps, "SPINet: a try at %lld ps, beyond the %lld ps its lock words hold",
              (long long)t0, (long long)st->t0_max_ps);
    for (uint32_t s = 0; s < S; s++) {
        h += st->sw_ps;
        uint64_t free_at_h = lock_word(h, 1); /* a word above it is busy at h */
        /* spinet_topo_route, its stage test hoisted */
        uint32_t rel = (elem - dhalf) & mask;
        unsigned r = s + 1 < S ? t->route[(size_t)s * E + rel] : rel == 0 ? 1u << (dst & 1) : 0u;
        /* every element a route leads to has a route on (check_spinet: the
         * table against a search per destination, 4 to 1024 nodes) */
        TN_CHECK(r != 0, "no route from stage %u element %u to node %u", s, elem, dst);
        size_t base = ((size_t)s * E + elem) * 2;
        unsigned o;
        if (r == 3) {
            o = rng_bit(st);
            if (lock[base + o] > free_at_h)
                o ^= 1u;
        } else {
            o = r >> 1;
        }
        if (lock[base + o] > free_at_h) {
            /* the truncated tail frees the upstream outputs early (fast NACK) */
            if (st->recovery == SPN_FAST_NACK || st->recovery == SPN_SLOTTED) {
                int64_t cut = 2 * (h - t0) + st->react_ps;
                int64_t end = t0 + st->link_ps + cut;
                for (uint32_t u = 0; u < s; u++) {
                    end += st->sw_ps; /* t0 + t_link + (u + 1) t_sw + cut */
                    uint64_t w = lock[st->path[u]];
                    if (w > lock_word(end, 1))
                        lock[st->path[u]] = lock_word(end, w & 1u);
                }
            }
            return s + 1;
        }
        /* 2x2 element, exclusive inputs and outputs: a packet crossing it
         * already (the other output busy) came in on the other input, so it
         * set the same bar/cross state and the state lock never refuses on
         * its own (TN_CHECK: the inputs are exclusive because the outputs
         * feeding them are). */
        TN_CHECK(!(lock[base + (o ^ 1u)] > free_at_h && (unsigned)(lock[base + (o ^ 1u)] & 1u) == in),
                 "stage %u element %u: state conflict", s, elem);
        lock[base + o] = lock_word(h + hold, in);
        st->path[s] = (uint32_t)(base + o);
        if (s + 1 < S) {
            elem = spinet_topo_next(t, s, elem, o);
            in = o;
        }
    }
    return 0;
}

/* The source holds its path until t_free. The release event is only needed
 * if something waits; otherwise the next hand-over schedules it (saves one
 * event per packet at low load, same start times). */
static void src_hold(spn_state *st, uint32_t s, int64_t t_free)
{
    spn_src *sp = &st->src[s];
    sp->free_at_ps = t_free;
    if (sp->rtx_head || src_has_new(st, s)) {
        sim *sm = net_sim(st->n);
        if (st->release_lane >= 0 && t_free - sim_now(sm) == st->release_ps)
            sim_schedule_lane(sm, st->release_lane, s);
        else
            sim_schedule_at(sm, t_free, ev_release, st, s);
    } else {
        sp->state = SRC_HELD;
    }
}

static void start_try(spn_state *st, uint32_t s, spn_pkt *p)
{
    sim *sm = net_sim(st->n);
    int64_t t0 = sim_now(sm);
    spn_src *sp = &st->src[s];
    sp->state = SRC_BUSY;
    net_msg_set_inject(p->msg, t0); /* the first try of its first packet: its head enters the fabric */
    p->tries++;
    st->st.tries++;
    if (p->tries > 1)
        st->st.retransmissions++;

    int64_t P = p->payload_ps;
    uint64_t parg = (uint64_t)(uintptr_t)p;
    double emitted = (double)p->bits;
    uint32_t drop = traverse(st, s, p->dst, t0, P);
    if (drop) {
        st->st.dropped++;
        int64_t back = st->drop_back_ps[drop];
        int64_t t_ans;
        switch (st->recovery) {
        case SPN_NACK:
            t_ans = t0 + back + P;
            break;
        case SPN_ACK:
            t_ans = t0 + st->ack_timeout_ps;
            break;
        default: /* fast NACK, slotted: the source stops when the NACK arrives */
            t_ans = t0 + back;
            {
                /* whole lane slots that left before the NACK stopped the source */
                double sent = st->drop_sent_bits[drop];
                if (sent < emitted)
                    emitted = sent;
            }
            break;
        }
        if (st->drop_lane[drop] >= 0 && t_ans == t0 + back)
            sim_schedule_lane(sm, st->drop_lane[drop], p->id);
        else
            sim_schedule_at(sm, t_ans, ev_retry, st, parg);
    } else {
        int64_t t_last = t0 + st->fwd_ps + P;
        /* the first try of the message to reach dst (tries start in time
         * order) brings its first bit, the header, at t0 + F; a corrupted
         * one too: its bits arrived, the receiver discards them */
        if (p->msg->t_head_ps < 0)
            p->msg->t_head_ps = t0 + st->fwd_ps;
        int corrupted = 0;
        if (st->ber > 0) {
            if (p->bits != st->loss_bits) {
                st->loss_bits = p->bits;
                st->loss = -expm1((double)p->bits * st->log1m_ber);
            }
            double loss = st->loss;
            corrupted = gsl_rng_uniform(st->n->rng) < loss;
        }
        if (corrupted) {
            st->st.phy_losses++;
            if (st->recovery == SPN_ACK) {
                sim_schedule_at(sm, t0 + st->ack_timeout_ps, ev_retry, st, parg);
            } else {
                sim_schedule_at(sm, t_last + st->react_ps + st->fwd_ps, ev_late_nack, st, parg);
                src_hold(st, s, t0 + hold_ps(st, P));
            }
        } else {
            if (st->deliver_lane >= 0 && P == st->full_ps)
                sim_schedule_lane(sm, st->deliver_lane, p->id);
            else
                sim_schedule_at(sm, t_last, ev_deliver, st, parg);
            int64_t t_free = st->recovery == SPN_ACK ? t_last + st->react_ps + st->fwd_ps
                                                     : t0 + hold_ps(st, P);
            src_hold(st, s, t_free);
        }
    }
    st->st.bits_emitted += emitted;
    st->st.energy_j += emitted * st->drop_j_per_bit[drop];
}

/* Cut the next packet of the head message; its bits leave the edge FIFO. */
static spn_pkt *cut_packet(spn_state *st, spn_src *sp)
{
    net_msg *m = sp->head;
    uint64_t total = m->size_bytes * 8;
    uint64_t done = sp->head_cut * st->packet_bits;
    /* the last of packets_of(total) packets (cut while done < total, or the
     * one 0-bit packet): no division per packet */
    int last = total - done <= st->packet_bits;
    spn_pkt *p = pkt_alloc(st);
    p->msg = m;
    p->src = m->src;
    p->dst = m->dst;
    p->bits = last ? total - done : st->packet_bits;
    p->payload_ps = payload_ps(st, p->bits);

    sp->out_bits += p->bits;
    if (st->buffer_bits) {
        int64_t now = sim_now(net_sim(st->n));
        /* t_aux_ps holds the message's end offset in the source's bit stream */
        while (sp->host_first &&
               (uint64_t)sp->host_first->t_aux_ps <= sp->out_bits + st->buffer_bits) {
            st->st.edge_wait_ps += now - sp->host_first->t_submit_ps;
            sp->host_first = sp->host_first->next;
        }
    }
    sp->head_cut++;
    if (last) {
        sp->head = m->next;
        if (!sp->head)
            sp->tail = NULL;
        sp->head_cut = 0;
    }
    return p;
}

/* The next packet the host NIC picks (nic_on). */
static spn_pkt *nic_cut(spn_state *st, uint32_t s)
{
    nic_pkt *np = nic_pop(&st->nic, s, st->packet_bits / 8);
    spn_pkt *p = pkt_alloc(st);
    p->msg = np->msg;
    p->src = np->msg->src;
    p->dst = np->msg->dst;
    p->bits = 8 * np->bytes;
    p->payload_ps = payload_ps(st, p->bits);
    nic_pkt_free(&st->nic, np);
    return p;
}

static void src_kick(spn_state *st, uint32_t s)
{
    spn_src *sp = &st->src[s];
    if (!sp->rtx_head && !src_has_new(st, s))
        return;
    if (sp->state == SRC_HELD) {
        if (sim_now(net_sim(st->n)) < sp->free_at_ps) {
            sp->state = SRC_BUSY;
            sim_schedule_at(net_sim(st->n), sp->free_at_ps, ev_release, st, s);
            return;
        }
        sp->state = SRC_IDLE;
    }
    if (sp->state != SRC_IDLE)
        return;
    if (st->recovery == SPN_SLOTTED) {
        int64_t now = sim_now(net_sim(st->n));
        int64_t b = (now + st->slot_ps - 1) / st->slot_ps * st->slot_ps;
        if (b > now) {
            sp->state = SRC_SLOT_WAIT;
            sim_schedule_at(net_sim(st->n), b, ev_slot, st, s);
            return;
        }
    }
    spn_pkt *p;
    if (sp->rtx_head) {
        p = sp->rtx_head;
        sp->rtx_head = p->next;
        if (!sp->rtx_head)
            sp->rtx_tail = NULL;
        p->next = NULL;
    } else {
        p = st->nic_on ? nic_cut(st, s) : cut_packet(st, sp);
    }
    start_try(st, s, p);
}

static void spinet_send(void *state, net_msg *m)
{
    spn_state *st = state;
    TN_ASSERT(m->src < st->topo.nodes && m->dst < st->topo.nodes,
              "message %u -> %u outside 0..%u", m->src, m->dst, st->topo.nodes - 1);
    spn_src *sp = &st->src[m->src];
    uint64_t total = m->size_bytes * 8;
    uint64_t npk = packets_of(st, total);
    m->aux = npk;
    m->next = NULL;
    st->st.packets += npk;
    if (st->nic_on) {
        nic_push(&st->nic, m);
        src_kick(st, m->src);
        return;
    }
    sp->in_bits += total;
    m->t_aux_ps = (int64_t)sp->in_bits;
    if (sp->tail)
        sp->tail->next = m;
    else
        sp->head = m;
    sp->tail = m;
    if (st->buffer_bits && !sp->host_first && sp->in_bits - sp->out_bits > st->buffer_bits)
        sp->host_first = m;
    src_kick(st, m->src);
    /* messages leave host memory in order: if any still waits once an idle
     * source has cut its first packet, this one (the last) waits too */
    if (st->buffer_bits && sp->host_first)
        st->st.edge_full_msgs++;
}

static int64_t spn_stages(const net_params *core, const spn_params *p)
{
    return (int64_t)__builtin_ctz(core->nodes) + (int64_t)p->extra_stages;
}

/* The ACK round trip of a full packet, 2F + P + t_r: the shortest safe
 * ack-timeout (topology and bandwidth already checked). */
static int64_t ack_round_trip_ps(const net_params *core, const spn_params *p)
{
    unsigned W = p->wavelengths ? p->wavelengths : 1;
    int64_t fwd = 2 * phy_propagation_ps(p->link_length_m) + spn_stages(core, p) * p->switching_time_ps;
    return 2 * fwd + phy_serialization_ps(8 * p->packet_bytes, W, core->bandwidth_bps / W) + p->reaction_time_ps;
}

/* Every parameter the fabric needs, checked without building anything,
 * each problem at its path (core->bandwidth_bps 0: not known yet). */
static void spinet_check(const net_params *core, const void *params, param_report *rep)
{
    const spn_params *p = params;
    char e2[512];
    net_check_core(core, rep);
    int topo_ok = spinet_topo_check(core->nodes, p->extra_stages, e2, sizeof e2) == 0;
    if (!topo_ok)
        param_invalid(rep, core->nodes >= 2 && !(core->nodes & (core->nodes - 1)) ? "network.extra-stages"
                                                                                   : "system.nodes",
                      "%s", e2);
    int B_ok = core->bandwidth_bps > 0 && isfinite(core->bandwidth_bps);
    const struct {
        const char *path;
        int64_t ps;
    } times[] = {{"network.switching-time", p->switching_time_ps}, {"network.reaction-time", p->reaction_time_ps},
                 {"network.slot", p->slot_ps}, {"network.ack-timeout", p->ack_timeout_ps}};
    int times_ok = 1;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (times[i].ps < 0 || times[i].ps > SPN_TIME_MAX_PS) {
            param_invalid(rep, times[i].path, "must be between 0 and 1 hour (got %.6g s)",
                          (double)times[i].ps * 1e-12);
            times_ok = 0;
        }
    if (!(p->link_length_m >= 0) || !(p->link_length_m <= SPN_LINK_MAX_M)) {
        param_invalid(rep, "network.link-length", "must be between 0 and %g km (got %g m)", SPN_LINK_MAX_M / 1e3,
                      p->link_length_m);
        times_ok = 0;
    }
    if (p->packet_bytes == 0)
        param_invalid(rep, "network.packet-size", "must be at least 1 byte");
    if (p->recovery < SPN_FAST_NACK || p->recovery > SPN_SLOTTED)
        param_invalid(rep, "network.protocol", "unknown recovery protocol %d", p->recovery);
    if (p->recovery == SPN_SLOTTED && p->slot_ps <= 0)
        param_invalid(rep, "network.slot", "slotted recovery needs a slot > 0");
    nic_check(&p->nic, rep);
    if (p->nic.policy != NIC_FIFO && p->buffer_bytes > 0)
        param_invalid(rep, "network.buffer",
                      "the edge FIFO's capacity is counted in hand-over order, which only "
                      "network.host-scheduling=\"fifo\" keeps; give 0B (unbounded) with another policy");
    /* a full packet's time must fit (the ACK round trip adds it up) */
    int packet_ok = 1;
    if (B_ok && (double)p->packet_bytes * 8e12 / core->bandwidth_bps > (double)SPN_TIME_MAX_PS) {
        param_invalid(rep, "network.packet-size",
                      "a packet of %llu bits takes %.3g s at %g b/s, more than 1 hour; smaller packets or a higher "
                      "network.bandwidth are needed",
                      (unsigned long long)(8 * p->packet_bytes), (double)p->packet_bytes * 8 / core->bandwidth_bps,
                      core->bandwidth_bps);
        packet_ok = 0;
    }
    if (topo_ok && B_ok && times_ok && packet_ok && p->packet_bytes && p->recovery == SPN_ACK &&
        p->ack_timeout_ps > 0 && p->ack_timeout_ps < ack_round_trip_ps(core, p))
        param_invalid(rep, "network.ack-timeout",
                      "%lld ps is shorter than the ACK round trip of a full packet (%lld ps): delivered packets "
                      "would be sent again",
                      (long long)p->ack_timeout_ps, (long long)ack_round_trip_ps(core, p));
    /* A NACK from stage 1 returns after 2 (t_link + t_sw) + t_r: were that 0,
     * a dropped packet would be retried at the same instant for ever. */
    if (times_ok && p->recovery != SPN_ACK &&
        2 * (phy_propagation_ps(p->link_length_m) + p->switching_time_ps) + p->reaction_time_ps == 0)
        param_invalid(rep, "network.reaction-time",
                      "link-length, switching-time and reaction-time are all 0, so a NACK would return in the "
                      "instant its packet left and a contended packet would be retried for ever at one time; "
                      "give one of them a positive value");
    if (!(p->bit_error_rate >= 0 && p->bit_error_rate < 1))
        param_invalid(rep, "network.phy.ber-target", "the path bit error rate %g is outside [0, 1)",
                      p->bit_error_rate);
    /* A full packet arrives intact with probability (1 - BER)^bits; below 1%
     * the retransmissions (100 tries a packet on average) would not end. */
    double intact = exp((double)p->packet_bytes * 8 * log1p(-p->bit_error_rate));
    if (p->bit_error_rate > 0 && p->bit_error_rate < 1 && intact < SPN_INTACT_MIN)
        param_invalid(rep, "network.packet-size",
                      "at a path bit error rate of %.3g a packet of %llu bits arrives intact with probability "
                      "%.3g, so it would need about %.3g tries; a lower BER (more launch power or fewer stages) "
                      "or smaller packets are needed",
                      p->bit_error_rate, (unsigned long long)(8 * p->packet_bytes), intact,
                      intact > 0 ? 1 / intact : INFINITY);
}

/* The physical layer's verdict on the fabric: every path crosses all S
 * stages, so one budget is the worst path's; a path below the receiver
 * sensitivity is refused. Energy: per delivered bit, and for the bits of a
 * dropped try the laser, the transmitting SerDes and the SOAs it crossed. */
static int spinet_resolve_phy(const net_params *core, void *params, const phy_params *phy, net_phy *out, char *err,
                              size_t errlen)
{
    spn_params *p = params;
    char e2[512];
    if (phy_energy_check(&phy->energy, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "network.phy: %s", e2);
    phy_optical o;
    phy_params_optical(phy, core->bandwidth_bps, &o);
    unsigned stages = 0;
    while ((1ull << stages) < core->nodes)
        stages++;
    stages += p->extra_stages;
    phy_budget b;
    if (phy_path_budget(&o, stages, &b, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "network.phy: %s", e2);
    if (!b.ok) {
        phy_budget_format(&b, &o, e2, sizeof e2);
        return tn_error(err, errlen,
                        "network.phy: the optical path misses the receiver sensitivity at B = %g Gb/s over %u "
                        "wavelengths: %s (%s)",
                        core->bandwidth_bps / 1e9, o.wavelengths, e2,
                        isinf(b.ase_penalty_db)
                            ? "fewer stages, a higher network.phy.osnr-per-soa, or more wavelengths, each at a lower "
                              "rate, would close it"
                            : "fewer stages, more launch power or SOA gain, or more wavelengths would close it");
    }
    p->wavelengths = o.wavelengths;
    p->bit_error_rate = b.ber;
    phy_energy_parts parts;
    p->energy_per_bit_j = phy_energy_optical_j_per_bit(&o, &phy->energy, stages, &parts);
    p->energy_edge_per_bit_j =
        parts.laser_j_per_bit +
        (phy->energy.serdes_per_optical_path ? parts.serdes_j_per_bit / phy->energy.serdes_per_optical_path : 0);
    p->energy_stage_per_bit_j = stages ? parts.soa_j_per_bit / stages : 0;
    p->phy_resolved = 1;
    out->bit_error_rate = p->bit_error_rate;
    out->energy_per_bit_j = p->energy_per_bit_j;
    /* the BER decides whether packets can get through */
    param_first first;
    spinet_check(core, p, param_report_first(&first, err, errlen));
    return first.rep.n ? -1 : 0;
}

static int spinet_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    spn_state *st = state;
    const spn_params *p = params;
    const net_params *core = net_core(n);
    memset(st, 0, sizeof *st);
    st->n = n;
    param_first first;
    spinet_check(core, p, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    if (spinet_topo_init(&st->topo, core->nodes, p->extra_stages, err, errlen) != 0)
        return -1;

    st->recovery = p->recovery;
    st->bandwidth_bps = core->bandwidth_bps;
    st->wavelengths = p->wavelengths ? p->wavelengths : 1;
    phy_rate_init(&st->lane, core->bandwidth_bps / st->wavelengths, 1);
    st->packet_bits = 8 * p->packet_bytes;
    st->buffer_bits = p->buffer_bytes * 8;
    st->link_ps = phy_propagation_ps(p->link_length_m);
    st->sw_ps = p->switching_time_ps;
    st->react_ps = p->reaction_time_ps;
    st->slot_ps = p->slot_ps;
    st->fwd_ps = 2 * st->link_ps + (int64_t)st->topo.stages * st->sw_ps;
    /* a try's lock words hold at most t0 + 3 (t_link + S t_sw) + t_r + P
     * (a fast NACK's truncated end; a lock is shorter) */
    st->t0_max_ps = SPN_LOCK_TIME_MAX_PS - 3 * st->fwd_ps - st->react_ps - payload_ps(st, st->packet_bits) - 1;
    st->ber = p->bit_error_rate;
    st->log1m_ber = log1p(-p->bit_error_rate);
    st->loss_bits = UINT64_MAX;
    st->energy_modelled = p->phy_resolved;
    st->energy_per_bit_j = p->energy_per_bit_j;
    st->drop_edge_j = p->energy_edge_per_bit_j;
    st->drop_stage_j = p->energy_stage_per_bit_j;
    st->ack_timeout_ps = p->ack_timeout_ps > 0 ? p->ack_timeout_ps : ack_round_trip_ps(core, p);

    size_t ne = (size_t)st->topo.stages * st->topo.elems;
    st->lock = tn_xalloc_big(ne * 2 * sizeof *st->lock);
    st->path = tn_xcalloc(st->topo.stages, sizeof *st->path);
    uint32_t S = st->topo.stages;
    st->drop_back_ps = tn_xcalloc((size_t)S + 1, sizeof *st->drop_back_ps);
    st->drop_sent_bits = tn_xcalloc((size_t)S + 1, sizeof *st->drop_sent_bits);
    st->drop_j_per_bit = tn_xcalloc((size_t)S + 1, sizeof *st->drop_j_per_bit);
    st->drop_j_per_bit[0] = st->energy_per_bit_j;
    st->drop_lane = tn_xcalloc((size_t)S + 1, sizeof *st->drop_lane);
    for (uint32_t d = 1; d <= S; d++) {
        int64_t back = 2 * (st->link_ps + (int64_t)d * st->sw_ps) + st->react_ps;
        st->drop_back_ps[d] = back;
        st->drop_sent_bits[d] = floor((double)back * st->lane.bps / 1e12) * st->wavelengths;
        st->drop_j_per_bit[d] = st->drop_edge_j > 0 || st->drop_stage_j > 0
                                    ? st->drop_edge_j + (double)(d - 1) * st->drop_stage_j
                                    : st->energy_per_bit_j;
        /* the NACK of a drop at d is scheduled at now + back: a lane each
         * (sim.h; the same order of events, a cheaper queue) */
        st->drop_lane[d] = st->recovery == SPN_FAST_NACK || st->recovery == SPN_SLOTTED
                               ? sim_lane(net_sim(n), back, ev_retry_lane, st)
                               : -1;
        if (st->drop_lane[d] >= 0 &&
            ne * 2 * sizeof *st->lock + (size_t)core->nodes * sizeof *st->src >= SIM_LOOKAHEAD_MIN_BYTES)
            sim_lane_prefetch(net_sim(n), st->drop_lane[d], pf_retry, SPN_LOOKAHEAD, 2);
    }
    st->full_ps = payload_ps(st, st->packet_bits);
    st->deliver_lane = sim_lane(net_sim(n), st->fwd_ps + st->full_ps, ev_deliver_lane, st);
    st->release_ps = hold_ps(st, st->full_ps);
    st->release_lane = st->recovery != SPN_ACK ? sim_lane(net_sim(n), st->release_ps, ev_release, st) : -1;
    if (n->rng) {
        st->rng_off = n->rng->type->min;
        st->rng_scale = (n->rng->type->max - st->rng_off) / 2;
    }
    st->src = tn_xalloc_big((size_t)core->nodes * sizeof *st->src);
    st->nic_on = p->nic.policy != NIC_FIFO;
    if (st->nic_on)
        nic_init(&st->nic, core->nodes, &p->nic, 0);
    return 0;
}

/* A message alone, handed over on a slot boundary: packets k = 0..K-1 of
 * P_k each leave back to back, packet k+1 when the source's hold of packet k
 * ends (hold_ps; ack: when its ACK is back, 2F + P_k + t_r; slotted: on the
 * next boundary after that); the last arrives F + P_last after it left. */
static int64_t spinet_zero_load_ps(const void *state, uint32_t src, uint32_t dst, uint64_t bytes)
{
    (void)src;
    (void)dst;
    const spn_state *st = state;
    uint64_t bits = 8 * bytes, K = packets_of(st, bits);
    uint64_t last_bits = bits ? bits - (K - 1) * st->packet_bits : 0;
    int64_t P_full = payload_ps(st, st->packet_bits), P_last = payload_ps(st, last_bits);
    int64_t gap = st->recovery == SPN_ACK ? 2 * st->fwd_ps + P_full + st->react_ps : hold_ps(st, P_full);
    if (st->recovery == SPN_SLOTTED)
        gap = (gap + st->slot_ps - 1) / st->slot_ps * st->slot_ps;
    return (int64_t)(K - 1) * gap + st->fwd_ps + P_last;
}

/* Links: node i's uplink into stage 1 is link i, the link out of the last
 * stage to node i is link N + i, and output o of element e of stage s is
 * link 2N + (s E + e) 2 + o (its hop to stage s + 1). A message follows the
 * first output that leads to dst at every stage (output 0 where both do):
 * spinet_topo_path (spinet_topology.h) computes it. */
static uint64_t spinet_link_count(const void *state) { return spinet_topo_links(&((const spn_state *)state)->topo); }

static size_t spinet_route(const void *state, uint32_t src, uint32_t dst, uint64_t *links, size_t max)
{
    return spinet_topo_path(&((const spn_state *)state)->topo, src, dst, links, max);
}

static void spinet_fill_metrics(void *state, double *m)
{
    const spn_state *st = state;
    m[SPM_packets_dropped] = (double)st->st.dropped;
    m[SPM_tries_per_packet_mean] = st->st.packets_delivered
                                     ? (double)st->st.tries_delivered / (double)st->st.packets_delivered
                                     : 0.0;
    m[SPM_phy_losses] = (double)st->st.phy_losses;
    m[SPM_edge_fifo_full] = (double)st->st.edge_full_msgs;
    m[SPM_edge_fifo_wait_mean_s] =
        st->st.edge_full_msgs ? (double)st->st.edge_wait_ps * 1e-12 / (double)st->st.edge_full_msgs : 0.0;
    if (st->energy_modelled)
        m[SPM_energy_per_bit_j] = st->st.bits_delivered > 0 ? st->st.energy_j / st->st.bits_delivered
                                                          : st->energy_per_bit_j;
}

static void spinet_fini(void *state)
{
    spn_state *st = state;
    for (size_t i = 0; i < st->nchunks; i++)
        free(st->chunks[i]);
    free(st->chunks);
    free(st->lock);
    free(st->path);
    free(st->drop_back_ps);
    free(st->drop_sent_bits);
    free(st->drop_j_per_bit);
    free(st->drop_lane);
    free(st->src);
    if (st->nic_on)
        nic_fini(&st->nic);
    spinet_topo_free(&st->topo);
    memset(st, 0, sizeof *st);
}

/* A message's header reaches its destination F = 2 t_link + S t_sw after
 * it leaves (its payload follows): the least time besides serialisation. */
static int64_t spinet_fixed_latency_ps(const net_params *core, const void *params)
{
    const spn_params *p = params;
    if (core->nodes < 2 || (core->nodes & (core->nodes - 1)))
        return 0;
    return 2 * phy_propagation_ps(p->link_length_m) + spn_stages(core, p) * p->switching_time_ps;
}

/* What spinet_init allocates: per stage and element two lock words (the
 * element's state is theirs); the routing table's one slice, a byte per
 * element of stages 1..S-1 (spinet_topo.h: the same seen from every
 * element, so O(N log N), not a table per destination), and a shift per
 * stage; per node a source and the host NICs if on; a packet record per
 * source in flight. */
static double spinet_mem_bytes(const net_params *core, const void *params)
{
    const spn_params *p = params;
    double N = core->nodes, E = N / 2, S = (double)spn_stages(core, p);
    if (core->nodes < 2 || (core->nodes & (core->nodes - 1)))
        return 0;
    return sizeof(spn_state) + (double)tn_xalloc_big_bytes((size_t)(S * E) * 2 * sizeof(uint64_t)) + (S - 1) * E +
           S * 2 * sizeof(uint32_t) + (double)tn_xalloc_big_bytes((size_t)N * sizeof(spn_src)) +
           N * sizeof(spn_pkt) +
           (p->nic.policy != NIC_FIFO ? nic_mem_bytes(core->nodes, &p->nic, 0) : 0);
}

void spinet_get_stats(const void *state, spinet_stats *out)
{
    *out = ((const spn_state *)state)->st;
}

/* No buffers of its own (0), but its retries are the core retransmissions. */
static int spinet_queue_report(void *state, int64_t t_end_ps, net_queue_report *r)
{
    (void)t_end_ps;
    const spn_state *st = state;
    r->has_retx = 1;
    r->retx = st->st.retransmissions;
    return 0;
}

const net_ops net_spinet_ops = {
    .name = "spinet",
    .description = "SPINet-style bufferless multistage optical fabric: 2x2 elements, drops, "
                   "NACK/ACK/slotted recovery",
    .state_size = sizeof(spn_state),
    .params = spn_rows,
    .nparams = sizeof spn_rows / sizeof spn_rows[0],
    .params_size = sizeof(spn_params),
    .check = spinet_check,
    .resolve_phy = spinet_resolve_phy,
    .init = spinet_init,
    .send = spinet_send,
    .zero_load_ps = spinet_zero_load_ps,
    .link_count = spinet_link_count,
    .route = spinet_route,
    .metrics = spn_metrics_def,
    .nmetrics = SPN_NMETRICS,
    .fill_metrics = spinet_fill_metrics,
    .fini = spinet_fini,
    .queue_report = spinet_queue_report,
    .fixed_latency_ps = spinet_fixed_latency_ps,
    .mem_bytes = spinet_mem_bytes,
};
