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
 * Events: all the stage decisions of a try are made in the event that starts
 * it. This is exact, not an approximation: every header reaches stage s at
 * t0 + (fixed offset of s), so headers meet any element in the order of their
 * t0, i.e. in the order the engine starts the tries (equal t0: FIFO order of
 * the engine, which is also the order of stage-by-stage events); and a drop
 * only shortens upstream locks to end after h_s, so a later try that would
 * have looked at them before the drop was known sees the same verdict. One
 * event per try that fails (the NACK or timeout, which starts the next try),
 * one or two per packet delivered (delivery; release of the source, only
 * when another packet waits for it). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "network.h"
#include "spinet_topology.h"

#define SPN_POOL_CHUNK 256   /* packet records allocated at once */
#define SPN_TIME_MAX_PS INT64_C(3600000000000000) /* 1 hour: bounds every time parameter */
#define SPN_LINK_MAX_M 1e6                        /* 1000 km of fibre: 5 ms */
#define SPN_INTACT_MIN 0.01                       /* least probability a full packet arrives intact */

typedef struct spn_pkt {
    net_msg *msg;         /* message this packet belongs to */
    struct spn_pkt *next; /* retransmission queue or free-list link */
    uint64_t bits;        /* payload, bits */
    int64_t payload_ps;   /* P: ceil(bits / W) slots at B / W, ps, rounded up */
    uint32_t tries;       /* transmissions started (count) */
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
    net_recovery recovery;    /* protocol */
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
    double ber;               /* per-bit error probability */
    double log1m_ber;         /* log(1 - BER), for the packet loss probability */
    double energy_per_bit_j;  /* J per emitted bit that reaches the receiver (0 = not modelled) */
    double drop_edge_j;       /* J per emitted bit of a dropped try: laser and TX SerDes... */
    double drop_stage_j;      /* ...plus this per stage crossed before the drop */
    int64_t *busy_until_ps;   /* [(stage * E + elem) * 2 + out]: output locked until, ps */
    uint8_t *cross;           /* [stage * E + elem]: last state, 1 = cross, 0 = bar */
    uint32_t *path;           /* [S] scratch: output index taken at each stage by the try */
    spn_src *src;             /* [N] sources */
    spn_pkt *pkt_free;        /* free packet records */
    void **chunks;            /* packet record chunks (freed at fini) */
    size_t nchunks;           /* chunks allocated */
    spinet_stats st;          /* counters */
} spn_state;

/* ---- packet records: a free list grown by chunks, no malloc once warm ---- */

static spn_pkt *pkt_alloc(spn_state *st)
{
    if (!st->pkt_free) {
        spn_pkt *c = tn_xcalloc(SPN_POOL_CHUNK, sizeof *c);
        st->chunks = tn_xrealloc(st->chunks, (st->nchunks + 1) * sizeof *st->chunks);
        st->chunks[st->nchunks++] = c;
        for (size_t i = 0; i < SPN_POOL_CHUNK; i++) {
            c[i].next = st->pkt_free;
            st->pkt_free = &c[i];
        }
    }
    spn_pkt *p = st->pkt_free;
    st->pkt_free = p->next;
    memset(p, 0, sizeof *p);
    return p;
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
    if (st->recovery == NET_NACK)
        return rtt + p_ps;
    int64_t tx = p_ps + S * st->sw_ps;
    return rtt > tx ? rtt : tx;
}

static uint64_t packets_of(const spn_state *st, uint64_t bits)
{
    return bits ? bits / st->packet_bits + (bits % st->packet_bits != 0) : 1;
}

/* ---- events ---- */

static void src_kick(spn_state *st, uint32_t s);

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
static void ev_retry(sim *sm, void *ctx, uint64_t arg)
{
    spn_state *st = ctx;
    spn_pkt *p = (spn_pkt *)(uintptr_t)arg;
    spn_src *sp = &st->src[p->msg->src];
    TN_ASSERT(sp->state == SRC_BUSY, "NACK/timeout for source %u in state %d", p->msg->src,
              sp->state);
    p->next = sp->rtx_head;
    sp->rtx_head = p;
    if (!sp->rtx_tail)
        sp->rtx_tail = p;
    sp->state = SRC_IDLE;
    src_kick(st, p->msg->src);
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

/* Evaluate the whole path of a try starting now (see the header comment for
 * why this equals stage-by-stage decisions). Returns the 1-based stage that
 * dropped it, 0 if it reached the destination. */
static uint32_t traverse(spn_state *st, uint32_t src, uint32_t dst, int64_t t0, int64_t p_ps)
{
    const spinet_topo *t = &st->topo;
    uint32_t E = t->elems, S = t->stages;
    uint32_t elem = src >> 1;
    unsigned in = src & 1;
    for (uint32_t s = 0; s < S; s++) {
        int64_t h = t0 + st->link_ps + (int64_t)(s + 1) * st->sw_ps;
        unsigned r = spinet_topo_route(t, s, elem, dst);
        TN_ASSERT(r != 0, "no route from stage %u element %u to node %u", s, elem, dst);
        size_t base = ((size_t)s * E + elem) * 2;
        unsigned o;
        if (r == 3) {
            o = (unsigned)gsl_rng_uniform_int(st->n->rng, 2);
            if (st->busy_until_ps[base + o] > h)
                o ^= 1u;
        } else {
            o = r >> 1;
        }
        if (st->busy_until_ps[base + o] > h) {
            /* the truncated tail frees the upstream outputs early (fast NACK) */
            if (st->recovery == NET_FAST_NACK || st->recovery == NET_SLOTTED) {
                int64_t cut = 2 * (st->link_ps + (int64_t)(s + 1) * st->sw_ps) + st->react_ps;
                for (uint32_t u = 0; u < s; u++) {
                    int64_t end = t0 + st->link_ps + (int64_t)(u + 1) * st->sw_ps + cut;
                    if (st->busy_until_ps[st->path[u]] > end)
                        st->busy_until_ps[st->path[u]] = end;
                }
            }
            return s + 1;
        }
        /* 2x2 element, exclusive inputs and outputs: a packet crossing it
         * already (other output busy) fixed the same bar/cross state, so the
         * state lock never refuses on its own. */
        unsigned cross = in != o;
        TN_ASSERT(st->busy_until_ps[base + (o ^ 1u)] <= h || st->cross[s * E + elem] == cross,
                  "stage %u element %u: state conflict", s, elem);
        st->cross[s * E + elem] = (uint8_t)cross;
        /* even a 0-bit packet (a 0-byte message) holds the output for 1 ps,
         * so two headers never share it at one instant */
        st->busy_until_ps[base + o] = h + (p_ps > 0 ? p_ps : 1);
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
    if (sp->rtx_head || sp->head) {
        sim_schedule_at(net_sim(st->n), t_free, ev_release, st, s);
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
    p->tries++;
    st->st.tries++;
    if (p->tries > 1)
        st->st.retransmissions++;

    int64_t P = p->payload_ps;
    uint64_t parg = (uint64_t)(uintptr_t)p;
    double emitted = (double)p->bits;
    uint32_t drop = traverse(st, s, p->msg->dst, t0, P);
    if (drop) {
        st->st.dropped++;
        int64_t back = 2 * (st->link_ps + (int64_t)drop * st->sw_ps) + st->react_ps;
        int64_t t_ans;
        switch (st->recovery) {
        case NET_NACK:
            t_ans = t0 + back + P;
            break;
        case NET_ACK:
            t_ans = t0 + st->ack_timeout_ps;
            break;
        default: /* fast NACK, slotted: the source stops when the NACK arrives */
            t_ans = t0 + back;
            {
                /* whole lane slots that left before the NACK stopped the source */
                double sent = floor((double)back * st->lane.bps / 1e12) * st->wavelengths;
                if (sent < emitted)
                    emitted = sent;
            }
            break;
        }
        sim_schedule_at(sm, t_ans, ev_retry, st, parg);
    } else {
        int64_t t_last = t0 + st->fwd_ps + P;
        int corrupted = 0;
        if (st->ber > 0) {
            double loss = -expm1((double)p->bits * st->log1m_ber);
            corrupted = gsl_rng_uniform(st->n->rng) < loss;
        }
        if (corrupted) {
            st->st.phy_losses++;
            if (st->recovery == NET_ACK) {
                sim_schedule_at(sm, t0 + st->ack_timeout_ps, ev_retry, st, parg);
            } else {
                sim_schedule_at(sm, t_last + st->react_ps + st->fwd_ps, ev_late_nack, st, parg);
                src_hold(st, s, t0 + hold_ps(st, P));
            }
        } else {
            sim_schedule_at(sm, t_last, ev_deliver, st, parg);
            int64_t t_free = st->recovery == NET_ACK ? t_last + st->react_ps + st->fwd_ps
                                                     : t0 + hold_ps(st, P);
            src_hold(st, s, t_free);
        }
    }
    st->st.bits_emitted += emitted;
    if (drop && (st->drop_edge_j > 0 || st->drop_stage_j > 0))
        st->st.energy_j += emitted * (st->drop_edge_j + (double)(drop - 1) * st->drop_stage_j);
    else
        st->st.energy_j += emitted * st->energy_per_bit_j;
}

/* Cut the next packet of the head message; its bits leave the edge FIFO. */
static spn_pkt *cut_packet(spn_state *st, spn_src *sp)
{
    net_msg *m = sp->head;
    uint64_t total = m->size_bytes * 8;
    uint64_t npk = packets_of(st, total);
    uint64_t done = sp->head_cut * st->packet_bits;
    spn_pkt *p = pkt_alloc(st);
    p->msg = m;
    p->bits = total ? (total - done < st->packet_bits ? total - done : st->packet_bits) : 0;
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
    if (++sp->head_cut == npk) {
        sp->head = m->next;
        if (!sp->head)
            sp->tail = NULL;
        sp->head_cut = 0;
    }
    return p;
}

static void src_kick(spn_state *st, uint32_t s)
{
    spn_src *sp = &st->src[s];
    if (!sp->rtx_head && !sp->head)
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
    if (st->recovery == NET_SLOTTED) {
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
        p = cut_packet(st, sp);
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

/* The ACK round trip of a full packet, 2F + P + t_r: the shortest safe
 * ack-timeout (p already checked for the topology). */
static int64_t ack_round_trip_ps(const net_params *p)
{
    unsigned W = p->wavelengths ? p->wavelengths : 1;
    int64_t S = (int64_t)__builtin_ctz(p->nodes) + (int64_t)p->extra_stages;
    int64_t fwd = 2 * phy_propagation_ps(p->link_length_m) + S * p->switching_time_ps;
    return 2 * fwd + phy_serialization_ps(p->packet_size_bits, W, p->bandwidth_bps / W) + p->reaction_time_ps;
}

/* Every parameter the fabric needs, checked without building anything:
 * `tasknet validate` calls it through net_ops.check, and init before it
 * allocates. */
static int spinet_check(const net_params *p, char *err, size_t errlen)
{
    if (spinet_topo_check(p->nodes, p->extra_stages, err, errlen) != 0)
        return -1;
    if (!(p->bandwidth_bps > 0) || isinf(p->bandwidth_bps))
        return tn_error(err, errlen, "spinet: bandwidth must be positive and finite (got %g b/s)",
                        p->bandwidth_bps);
    if (p->packet_size_bits == 0)
        return tn_error(err, errlen, "spinet: packet-size must be at least 1 bit");
    const struct {
        const char *name;
        int64_t ps;
    } times[] = {{"switching-time", p->switching_time_ps}, {"reaction-time", p->reaction_time_ps},
                 {"slot", p->slot_ps}, {"ack-timeout", p->ack_timeout_ps}};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (times[i].ps < 0 || times[i].ps > SPN_TIME_MAX_PS)
            return tn_error(err, errlen, "spinet: %s must be between 0 and 1 hour (got %.6g s)", times[i].name,
                            (double)times[i].ps * 1e-12);
    if (!(p->link_length_m >= 0) || !(p->link_length_m <= SPN_LINK_MAX_M))
        return tn_error(err, errlen, "spinet: link-length must be between 0 and %g km (got %g m)",
                        SPN_LINK_MAX_M / 1e3, p->link_length_m);
    if (p->recovery != NET_FAST_NACK && p->recovery != NET_NACK && p->recovery != NET_ACK &&
        p->recovery != NET_SLOTTED)
        return tn_error(err, errlen, "spinet: unknown recovery protocol %d", (int)p->recovery);
    if (p->recovery == NET_SLOTTED && p->slot_ps <= 0)
        return tn_error(err, errlen, "spinet: slotted recovery needs a slot > 0");
    if (!(p->bit_error_rate >= 0 && p->bit_error_rate < 1))
        return tn_error(err, errlen, "spinet: bit error rate %g is outside [0, 1)",
                        p->bit_error_rate);
    const struct {
        const char *name;
        double j;
    } energies[] = {{"energy per bit", p->energy_per_bit_j},
                    {"energy per bit of a dropped try's edge", p->energy_edge_per_bit_j},
                    {"energy per bit and stage of a dropped try", p->energy_stage_per_bit_j}};
    for (size_t i = 0; i < sizeof energies / sizeof energies[0]; i++)
        if (!(energies[i].j >= 0) || isinf(energies[i].j))
            return tn_error(err, errlen, "spinet: %s must be finite and >= 0 (got %g J)", energies[i].name,
                            energies[i].j);
    /* a full packet's time must fit (the ACK round trip adds it up) */
    if ((double)p->packet_size_bits * 1e12 / p->bandwidth_bps > (double)SPN_TIME_MAX_PS)
        return tn_error(err, errlen, "spinet: a packet of %llu bits takes %.3g s at %g b/s, more than 1 hour; "
                        "smaller packets or a higher bandwidth are needed",
                        (unsigned long long)p->packet_size_bits, (double)p->packet_size_bits / p->bandwidth_bps,
                        p->bandwidth_bps);
    if (p->control_first)
        return tn_error(err, errlen, "spinet: priority=control-first applies to the electrical switch; "
                        "SPINet's edge FIFOs send in order");
    if (p->recovery == NET_ACK && p->ack_timeout_ps > 0 && p->ack_timeout_ps < ack_round_trip_ps(p))
        return tn_error(err, errlen,
                        "spinet: ack-timeout %lld ps is shorter than the ACK round trip of a full "
                        "packet (%lld ps): delivered packets would be sent again",
                        (long long)p->ack_timeout_ps, (long long)ack_round_trip_ps(p));
    /* A NACK from stage 1 returns after 2 (t_link + t_sw) + t_r: were that 0,
     * a dropped packet would be retried at the same instant for ever. */
    int64_t back_min = 2 * (phy_propagation_ps(p->link_length_m) + p->switching_time_ps) + p->reaction_time_ps;
    if (back_min == 0 && p->recovery != NET_ACK)
        return tn_error(err, errlen,
                        "spinet: link-length, switching-time and reaction-time are all 0, so a NACK "
                        "would return in the instant its packet left and a contended packet would be "
                        "retried for ever at one time; give one of them a positive value");
    /* A full packet arrives intact with probability (1 - BER)^bits; below 1%
     * the retransmissions (100 tries a packet on average) would not end. */
    double intact = exp((double)p->packet_size_bits * log1p(-p->bit_error_rate));
    if (intact < SPN_INTACT_MIN)
        return tn_error(err, errlen,
                        "spinet: at a path bit error rate of %.3g a packet of %llu bits arrives intact "
                        "with probability %.3g, so it would need about %.3g tries; a lower BER "
                        "(more launch power or fewer stages) or smaller packets are needed",
                        p->bit_error_rate, (unsigned long long)p->packet_size_bits, intact,
                        intact > 0 ? 1 / intact : INFINITY);
    return 0;
}

static int spinet_init(void *state, net *n, const net_params *p, char *err, size_t errlen)
{
    spn_state *st = state;
    memset(st, 0, sizeof *st);
    st->n = n;
    if (spinet_check(p, err, errlen) != 0)
        return -1;
    if (spinet_topo_init(&st->topo, p->nodes, p->extra_stages, err, errlen) != 0)
        return -1;

    st->recovery = p->recovery;
    st->bandwidth_bps = p->bandwidth_bps;
    st->wavelengths = p->wavelengths ? p->wavelengths : 1;
    phy_rate_init(&st->lane, p->bandwidth_bps / st->wavelengths, 1);
    st->packet_bits = p->packet_size_bits;
    st->buffer_bits = p->buffer_bytes * 8;
    st->link_ps = phy_propagation_ps(p->link_length_m);
    st->sw_ps = p->switching_time_ps;
    st->react_ps = p->reaction_time_ps;
    st->slot_ps = p->slot_ps;
    st->fwd_ps = 2 * st->link_ps + (int64_t)st->topo.stages * st->sw_ps;
    st->ber = p->bit_error_rate;
    st->log1m_ber = log1p(-p->bit_error_rate);
    st->energy_per_bit_j = p->energy_per_bit_j;
    st->drop_edge_j = p->energy_edge_per_bit_j;
    st->drop_stage_j = p->energy_stage_per_bit_j;
    st->ack_timeout_ps = p->ack_timeout_ps > 0 ? p->ack_timeout_ps : ack_round_trip_ps(p);

    size_t ne = (size_t)st->topo.stages * st->topo.elems;
    st->busy_until_ps = tn_xcalloc(ne * 2, sizeof *st->busy_until_ps);
    st->cross = tn_xcalloc(ne, 1);
    st->path = tn_xcalloc(st->topo.stages, sizeof *st->path);
    st->src = tn_xcalloc(p->nodes, sizeof *st->src);
    return 0;
}

static void spinet_metrics(void *state, double *m)
{
    const spn_state *st = state;
    m[M_packets_dropped] = (double)st->st.dropped;
    m[M_retransmissions] = (double)st->st.retransmissions;
    m[M_tries_per_packet_mean] = st->st.packets_delivered
                                     ? (double)st->st.tries_delivered /
                                           (double)st->st.packets_delivered
                                     : 0.0;
    m[M_phy_losses] = (double)st->st.phy_losses;
    m[M_edge_fifo_full] = (double)st->st.edge_full_msgs;
    m[M_edge_fifo_wait_mean_s] = st->st.edge_full_msgs ? (double)st->st.edge_wait_ps * 1e-12 /
                                                             (double)st->st.edge_full_msgs
                                                       : 0.0;
    m[M_energy_per_bit_j] = st->energy_per_bit_j > 0 && st->st.bits_delivered > 0
                                ? st->st.energy_j / st->st.bits_delivered
                                : 0.0;
}

static void spinet_fini(void *state)
{
    spn_state *st = state;
    for (size_t i = 0; i < st->nchunks; i++)
        free(st->chunks[i]);
    free(st->chunks);
    free(st->busy_until_ps);
    free(st->cross);
    free(st->path);
    free(st->src);
    spinet_topo_free(&st->topo);
    memset(st, 0, sizeof *st);
}

void spinet_get_stats(const void *state, spinet_stats *out)
{
    *out = ((const spn_state *)state)->st;
}

const net_ops net_spinet_ops = {
    .name = "spinet",
    .description = "SPINet-style bufferless multistage optical fabric: 2x2 elements, drops, "
                   "NACK/ACK/slotted recovery",
    .state_size = sizeof(spn_state),
    .check = spinet_check,
    .init = spinet_init,
    .send = spinet_send,
    .metrics = spinet_metrics,
    .fini = spinet_fini,
};
