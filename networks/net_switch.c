/* The electrical single switch (MODEL.md section 6), message level.
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
 * Control-first: each FIFO serves NET_PRIO_HIGH first, FIFO within a class,
 * never preempting the message on the wire. Whether a message starts next
 * depends on what arrives before its predecessor ends, so each node has
 * two-class queues at its source and at its output port, and a "free" event
 * is scheduled when a transmitter ends with messages waiting: 2 events per
 * message, plus one per message that had to wait at its source and one per
 * message that had to wait at its port. */
#include <stdint.h>
#include <stdlib.h>

#include "log.h"
#include "metrics.h"
#include "network.h"

typedef struct sw_fifo {
    net_msg *head, *tail; /* linked through net_msg.next; head NULL when empty */
} sw_fifo;

/* Control-first queues of one node: its source and the output port toward it. */
typedef struct sw_cf_node {
    sw_fifo src_q[2];  /* waiting at the source, per enum net_prio */
    sw_fifo port_q[2]; /* waiting at the output port, per enum net_prio */
    uint8_t src_wake;  /* a "source free" event is pending (flag; set iff src_q not empty) */
    uint8_t port_wake; /* a "port free" event is pending (flag; set iff port_q not empty) */
} sw_cf_node;

typedef struct sw_state {
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
    double energy_per_bit_j; /* J per bit crossing the switch (0 = not modelled) */
} sw_state;

static inline uint64_t msg_arg(net_msg *m) { return (uint64_t)(uintptr_t)m; }
static inline net_msg *arg_msg(uint64_t a) { return (net_msg *)(uintptr_t)a; }

static inline int64_t max_ps(int64_t a, int64_t b) { return a > b ? a : b; }

static void fifo_push(sw_fifo *q, net_msg *m)
{
    m->next = NULL;
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
}

/* Head of the high class if any, else of the low class; NULL if both empty. */
static net_msg *fifo_pop2(sw_fifo q[2])
{
    sw_fifo *f = q[NET_PRIO_HIGH].head ? &q[NET_PRIO_HIGH] : &q[NET_PRIO_LOW];
    net_msg *m = f->head;
    if (m) {
        f->head = m->next;
        if (!f->head)
            f->tail = NULL;
        m->next = NULL;
    }
    return m;
}

static inline int fifo2_empty(const sw_fifo q[2])
{
    return !q[NET_PRIO_HIGH].head && !q[NET_PRIO_LOW].head;
}

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
    st->port_free_ps[m->dst] = end_ps;
    sim_schedule_at(s, end_ps + st->link_ps, ev_deliver, st, msg_arg(m));
}

static void ev_port_free(sim *s, void *ctx, uint64_t node)
{
    sw_state *st = ctx;
    sw_cf_node *c = &st->cf[node];
    net_msg *m = fifo_pop2(c->port_q);
    TN_ASSERT(m, "port %llu freed with an empty queue", (unsigned long long)node);
    port_start(st, s, m, sim_now(s));
    if (fifo2_empty(c->port_q))
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
    fifo_push(&c->port_q[m->prio], m);
    if (!c->port_wake) {
        c->port_wake = 1;
        sim_schedule_at(s, st->port_free_ps[m->dst], ev_port_free, st, m->dst);
    }
}

/* m's first bit leaves its source at t0_ps (ser is in t_aux_ps). */
static void source_start(sw_state *st, sim *s, net_msg *m, int64_t t0_ps)
{
    st->src_free_ps[m->src] = t0_ps + m->t_aux_ps;
    int64_t ta_ps = t0_ps + st->head_ps + (st->store_and_forward ? m->t_aux_ps : 0);
    sim_schedule_at(s, ta_ps, ev_port_arrival, st, msg_arg(m));
}

static void ev_source_free(sim *s, void *ctx, uint64_t node)
{
    sw_state *st = ctx;
    sw_cf_node *c = &st->cf[node];
    net_msg *m = fifo_pop2(c->src_q);
    TN_ASSERT(m, "source %llu freed with an empty queue", (unsigned long long)node);
    source_start(st, s, m, sim_now(s));
    if (fifo2_empty(c->src_q))
        c->src_wake = 0;
    else
        sim_schedule_at(s, st->src_free_ps[node], ev_source_free, st, node);
}

/* ---- ops ---- */

static void sw_send(void *state, net_msg *m)
{
    sw_state *st = state;
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
    fifo_push(&c->src_q[m->prio], m);
    if (!c->src_wake) {
        c->src_wake = 1;
        sim_schedule_at(s, st->src_free_ps[m->src], ev_source_free, st, m->src);
    }
}

static void sw_fini(void *state)
{
    sw_state *st = state;
    free(st->src_free_ps);
    free(st->port_free_ps);
    free(st->cf);
    st->src_free_ps = st->port_free_ps = NULL;
    st->cf = NULL;
}

static int sw_init(void *state, net *n, const net_params *p, char *err, size_t errlen)
{
    sw_state *st = state;
    if (net_check_params("electrical-switch", p, err, errlen) != 0)
        return -1;
    if (p->switching != NET_CUT_THROUGH && p->switching != NET_STORE_AND_FORWARD)
        return tn_error(err, errlen, "electrical-switch: unknown switching mode %d",
                        (int)p->switching);
    st->n = n;
    st->nodes = p->nodes;
    net_rate_init(&st->rate, p->bandwidth_bps);
    st->link_ps = p->link_latency_ps;
    st->head_ps = p->link_latency_ps + p->switch_latency_ps;
    st->store_and_forward = p->switching == NET_STORE_AND_FORWARD;
    st->control_first = p->control_first != 0;
    st->energy_per_bit_j = p->energy_per_bit_j;
    st->src_free_ps = tn_xcalloc(p->nodes, sizeof *st->src_free_ps);
    st->port_free_ps = tn_xcalloc(p->nodes, sizeof *st->port_free_ps);
    if (st->control_first)
        st->cf = tn_xcalloc(p->nodes, sizeof *st->cf);
    return 0;
}

static void sw_metrics(void *state, double *m)
{
    const sw_state *st = state;
    /* Every bit crosses the switch once: no loss, no retransmission. */
    if (st->n->c.bytes_delivered > 0)
        m[M_energy_per_bit_j] = st->energy_per_bit_j;
}

const net_ops net_switch_ops = {
    .name = "electrical-switch",
    .description = "single electrical switch (star): FIFO sources and output ports, "
                   "cut-through or store-and-forward, optional control-first priority",
    .state_size = sizeof(sw_state),
    .init = sw_init,
    .send = sw_send,
    .metrics = sw_metrics,
    .fini = sw_fini,
};
