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
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "energy.h"
#include "log.h"
#include "metrics.h"
#include "network.h"

typedef enum sw_switching { SW_CUT_THROUGH = 0, SW_STORE_AND_FORWARD = 1 } sw_switching;

/* The switch's own parameters (rows below). */
typedef struct sw_params {
    int switching;           /* enum sw_switching */
    int control_first;       /* 1: FIFOs serve NET_PRIO_HIGH first (no preemption) */
    /* resolved from the physical layer (resolve_phy) */
    int phy_resolved;        /* 1 once energy_per_bit_j holds the phy's value */
    double energy_per_bit_j; /* SerDes and switch core per bit crossing the switch, J */
} sw_params;

static const char *const sw_switching_names[] = {"cut-through", "store-and-forward", NULL};
static const char *const sw_priority_names[] = {"fifo", "control-first", NULL};

static const param_row sw_rows[] = {
    {.path = "network.switching", .type = "choice", .unit = "", .def = "cut-through",
     .help = "electrical switch: cut-through | store-and-forward", .kind = PARAM_CHOICE,
     .off = offsetof(sw_params, switching), .choices = sw_switching_names, .example = "cut-through"},
    {.path = "network.priority", .type = "choice", .unit = "", .def = "fifo",
     .help = "electrical switch: fifo | control-first (FIFOs serve control messages first)",
     .kind = PARAM_CHOICE, .off = offsetof(sw_params, control_first), .choices = sw_priority_names,
     .example = "fifo"},
};

#define SW_METRICS(X) X(energy_per_bit_j, "network energy per delivered bit")
enum { SW_METRICS(METRIC_ENUM) SW_NMETRICS };
static const metric_def sw_metrics_def[] = {SW_METRICS(METRIC_DEF)};

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
    double energy_per_bit_j; /* J per bit crossing the switch (NAN = not modelled) */
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
    m->t_head_ps = now_ps + st->link_ps; /* its first bit reaches dst a link after the port starts it */
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

static void sw_check(const net_params *core, const void *params, param_report *rep)
{
    const sw_params *p = params;
    net_check_core(core, rep);
    if (p->switching != SW_CUT_THROUGH && p->switching != SW_STORE_AND_FORWARD)
        param_invalid(rep, "network.switching", "unknown switching mode %d", p->switching);
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
    out->bit_error_rate = 0;
    out->energy_per_bit_j = p->energy_per_bit_j;
    return 0;
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
    net_rate_init(&st->rate, core->bandwidth_bps);
    st->link_ps = core->link_latency_ps;
    st->head_ps = core->link_latency_ps + core->switch_latency_ps;
    st->store_and_forward = p->switching == SW_STORE_AND_FORWARD;
    st->control_first = p->control_first != 0;
    st->energy_per_bit_j = p->phy_resolved ? p->energy_per_bit_j : NAN;
    st->src_free_ps = tn_xcalloc(core->nodes, sizeof *st->src_free_ps);
    st->port_free_ps = tn_xcalloc(core->nodes, sizeof *st->port_free_ps);
    if (st->control_first)
        st->cf = tn_xcalloc(core->nodes, sizeof *st->cf);
    return 0;
}

static void sw_fill_metrics(void *state, double *m)
{
    const sw_state *st = state;
    m[M_energy_per_bit_j] = st->energy_per_bit_j;
}

/* Cut-through: ser + 2 link + sw; store-and-forward waits for the last bit
 * at the switch: 2 ser + 2 link + sw. */
static int64_t sw_zero_load_ps(const void *state, uint32_t src, uint32_t dst, uint64_t bytes)
{
    (void)src;
    (void)dst;
    const sw_state *st = state;
    int64_t ser = net_rate_ps(&st->rate, bytes);
    return (st->store_and_forward ? 2 : 1) * ser + st->link_ps + st->head_ps;
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

/* Two times per node, and the control-first queues. */
static double sw_mem_bytes(const net_params *core, const void *params)
{
    const sw_params *p = params;
    double per_node = 2 * sizeof(int64_t) + (p->control_first ? sizeof(sw_cf_node) : 0);
    return sizeof(sw_state) + per_node * (double)core->nodes;
}

const net_ops net_switch_ops = {
    .name = "electrical-switch",
    .description = "single electrical switch (star): FIFO sources and output ports, "
                   "cut-through or store-and-forward, optional control-first priority",
    .state_size = sizeof(sw_state),
    .params = sw_rows,
    .nparams = sizeof sw_rows / sizeof sw_rows[0],
    .params_size = sizeof(sw_params),
    .check = sw_check,
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
};
