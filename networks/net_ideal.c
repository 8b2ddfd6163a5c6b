/* The ideal fabric: every message arrives after its serialisation at B plus
 * the fixed latency of the star (2 links + switch), however many others are
 * in flight. No contention, no queueing: the lower bound of the electrical
 * switch (its zero-load latency for every message) and a test aid.
 * One event per message (its delivery). No physical layer (no energy), no
 * parameters of its own. */
#include <stdint.h>

#include "log.h"
#include "network.h"

typedef struct ideal_state {
    net *n;           /* framework handle */
    net_rate rate;    /* B, bit/s */
    int64_t fixed_ps; /* 2 link + switch latency, ps */
} ideal_state;

static void ideal_deliver(sim *s, void *ctx, uint64_t arg)
{
    ideal_state *st = ctx;
    net_delivered(st->n, (net_msg *)(uintptr_t)arg);
}

static void ideal_check(const net_params *core, const void *params, param_report *rep)
{
    (void)params;
    net_check_core(core, rep);
}

static int ideal_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    ideal_state *st = state;
    param_first first;
    ideal_check(net_core(n), params, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    st->n = n;
    net_rate_init(&st->rate, net_core(n)->bandwidth_bps);
    st->fixed_ps = 2 * net_core(n)->link_latency_ps + net_core(n)->switch_latency_ps;
    return 0;
}

static void ideal_send(void *state, net_msg *m)
{
    ideal_state *st = state;
    int64_t d_ps = net_rate_ps(&st->rate, m->size_bytes) + st->fixed_ps;
    /* the first bit crosses the star at once: 2 link + switch; the last, ser later */
    m->t_head_ps = sim_now(net_sim(st->n)) + st->fixed_ps;
    sim_schedule(net_sim(st->n), d_ps, ideal_deliver, st, (uint64_t)(uintptr_t)m);
}

static int64_t ideal_zero_load_ps(const void *state, uint32_t src, uint32_t dst, uint64_t bytes)
{
    (void)src;
    (void)dst;
    const ideal_state *st = state;
    return net_rate_ps(&st->rate, bytes) + st->fixed_ps;
}

/* The star the latency stands for: node i's uplink is link i, the downlink
 * toward node i is link N + i. */
static uint64_t ideal_link_count(const void *state)
{
    return 2 * (uint64_t)net_core(((const ideal_state *)state)->n)->nodes;
}

static size_t ideal_route(const void *state, uint32_t src, uint32_t dst, uint64_t *links, size_t max)
{
    uint64_t nodes = net_core(((const ideal_state *)state)->n)->nodes;
    if (max >= 2) {
        links[0] = src;
        links[1] = nodes + dst;
    }
    return 2;
}

/* One pending delivery per message, in the engine: nothing per node. */
static double ideal_mem_bytes(const net_params *core, const void *params)
{
    (void)core;
    (void)params;
    return sizeof(ideal_state);
}

const net_ops net_ideal_ops = {
    .name = "ideal",
    .description = "contention-free: serialisation + 2 link + switch latency for every message",
    .state_size = sizeof(ideal_state),
    .check = ideal_check,
    .init = ideal_init,
    .send = ideal_send,
    .zero_load_ps = ideal_zero_load_ps,
    .link_count = ideal_link_count,
    .route = ideal_route,
    .mem_bytes = ideal_mem_bytes,
};
