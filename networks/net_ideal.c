/* The ideal fabric: every message arrives after its serialisation at B plus
 * the fixed latency of the star (2 links + switch), however many others are
 * in flight. No contention, no queueing: the lower bound of the electrical
 * switch (its zero-load latency for every message) and a test aid.
 * One event per message (its delivery). */
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

static int ideal_init(void *state, net *n, const net_params *p, char *err, size_t errlen)
{
    ideal_state *st = state;
    if (net_check_params("ideal", p, err, errlen) != 0)
        return -1;
    st->n = n;
    net_rate_init(&st->rate, p->bandwidth_bps);
    st->fixed_ps = 2 * p->link_latency_ps + p->switch_latency_ps;
    return 0;
}

static void ideal_send(void *state, net_msg *m)
{
    ideal_state *st = state;
    int64_t d_ps = net_rate_ps(&st->rate, m->size_bytes) + st->fixed_ps;
    sim_schedule(net_sim(st->n), d_ps, ideal_deliver, st, (uint64_t)(uintptr_t)m);
}

const net_ops net_ideal_ops = {
    .name = "ideal",
    .description = "contention-free: serialisation + 2 link + switch latency for every message",
    .state_size = sizeof(ideal_state),
    .init = ideal_init,
    .send = ideal_send,
    .metrics = NULL,
    .fini = NULL,
};
