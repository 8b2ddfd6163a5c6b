/* The ideal fabric: every message arrives after its serialisation at B plus
 * the fixed latency of the star (2 links + switch), however many others are
 * in flight. No contention, no queueing: the lower bound of the electrical
 * switch (its zero-load latency for every message) and a test aid.
 * One event per message (its delivery). No physical layer (no energy).
 *
 * network.host-link="shared" (issue 12) keeps the core contention-free but
 * gives every host one uplink at B shared by its host NIC
 * (networks/host_nic.h: packets of network.mtu served by
 * network.host-scheduling): a packet whose first bit leaves its host at t0
 * arrives whole at t0 + ser(packet) + 2 link + switch, and a message with its
 * last packet. This is the "big switch" whose only contention is at the
 * senders: a message alone takes nic_ser (its packets' ser summed) + 2 link
 * + switch. With host-link="unlimited" (default) there is no uplink at all,
 * as before, and the NIC's parameters must keep their defaults. Events:
 * one per packet that waited for its uplink, one delivery per message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "host_nic.h"
#include "log.h"
#include "network.h"

enum { IDEAL_HOST_UNLIMITED = 0, IDEAL_HOST_SHARED = 1 };
static const char *const ideal_host_names[] = {"unlimited", "shared", NULL};

typedef struct ideal_params {
    int host_link;  /* IDEAL_HOST_* */
    nic_params nic; /* used when shared */
} ideal_params;

static const param_row ideal_rows[] = {
    {.path = "network.host-link", .type = "choice", .unit = "", .def = "unlimited",
     .help = "ideal fabric: unlimited (every message alone) | shared (one uplink at B per host, its NIC shares it)",
     .kind = PARAM_CHOICE, .off = offsetof(ideal_params, host_link), .choices = ideal_host_names,
     .example = "shared"},
    NIC_ROW_SCHEDULING(ideal_params, nic),
    NIC_ROW_MTU(ideal_params, nic),
};

typedef struct ideal_state {
    net *n;           /* framework handle */
    net_rate rate;    /* B, bit/s */
    int64_t fixed_ps; /* 2 link + switch latency, ps */
    int shared;       /* 1: host uplinks through the NIC (flag) */
    host_nic nic;     /* shared: the hosts */
} ideal_state;

static void ideal_deliver(sim *s, void *ctx, uint64_t arg)
{
    ideal_state *st = ctx;
    net_delivered(st->n, (net_msg *)(uintptr_t)arg);
}

static void ideal_check(const net_params *core, const void *params, param_report *rep)
{
    const ideal_params *p = params;
    net_check_core(core, rep);
    nic_check(&p->nic, rep);
    if (p->host_link != IDEAL_HOST_SHARED) {
        if (p->nic.policy != NIC_FIFO)
            param_invalid(rep, "network.host-scheduling",
                          "the ideal fabric's hosts have no uplink to share unless network.host-link=\"shared\"");
        if (p->nic.mtu_bytes)
            param_invalid(rep, "network.mtu",
                          "the ideal fabric cuts messages only with network.host-link=\"shared\"");
    }
}

/* The NIC put p's first bit on its uplink now: p arrives whole ser + fixed later. */
static void ideal_pkt_start(void *ctx, nic_pkt *p)
{
    ideal_state *st = ctx;
    if (p->msg->t_head_ps < 0) /* its first packet's first bit crosses the star at once */
        p->msg->t_head_ps = sim_now(net_sim(st->n)) + st->fixed_ps;
    if (p->last)
        sim_schedule(net_sim(st->n), p->ser_ps + st->fixed_ps, ideal_deliver, st, (uint64_t)(uintptr_t)p->msg);
    nic_pkt_free(&st->nic, p);
}

static int ideal_init(void *state, net *n, const void *params, char *err, size_t errlen)
{
    ideal_state *st = state;
    param_first first;
    ideal_check(net_core(n), params, param_report_first(&first, err, errlen));
    if (first.rep.n)
        return -1;
    const ideal_params *p = params;
    st->n = n;
    net_rate_init(&st->rate, net_core(n)->bandwidth_bps);
    st->fixed_ps = 2 * net_core(n)->link_latency_ps + net_core(n)->switch_latency_ps;
    st->shared = p->host_link == IDEAL_HOST_SHARED;
    if (st->shared) {
        nic_init(&st->nic, net_core(n)->nodes, &p->nic, 0);
        nic_link(&st->nic, net_sim(n), net_core(n)->bandwidth_bps, ideal_pkt_start, st);
    }
    return 0;
}

static void ideal_fini(void *state)
{
    ideal_state *st = state;
    if (st->shared)
        nic_fini(&st->nic);
    st->shared = 0;
}

static void ideal_send(void *state, net_msg *m)
{
    ideal_state *st = state;
    if (st->shared) {
        nic_send(&st->nic, m);
        return;
    }
    int64_t d_ps = net_rate_ps(&st->rate, m->size_bytes) + st->fixed_ps;
    net_msg_set_inject(m, sim_now(net_sim(st->n))); /* no source queue: it leaves at once */
    /* the first bit crosses the star at once: 2 link + switch; the last, ser later */
    m->t_head_ps = sim_now(net_sim(st->n)) + st->fixed_ps;
    sim_schedule(net_sim(st->n), d_ps, ideal_deliver, st, (uint64_t)(uintptr_t)m);
}

static int64_t ideal_zero_load_ps(const void *state, uint32_t src, uint32_t dst, uint64_t bytes)
{
    (void)src;
    (void)dst;
    const ideal_state *st = state;
    return nic_ser_ps(&st->rate, bytes, st->shared ? st->nic.mtu_bytes : 0) + st->fixed_ps;
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

/* One pending delivery per message, in the engine: nothing per node but
 * the host NICs of shared uplinks. */
static double ideal_mem_bytes(const net_params *core, const void *params)
{
    const ideal_params *p = params;
    return sizeof(ideal_state) + (p->host_link == IDEAL_HOST_SHARED ? nic_mem_bytes(core->nodes, &p->nic, 0) : 0);
}

const net_ops net_ideal_ops = {
    .name = "ideal",
    .description = "contention-free: serialisation + 2 link + switch latency for every message "
                   "(optionally shared host uplinks)",
    .state_size = sizeof(ideal_state),
    .params = ideal_rows,
    .nparams = sizeof ideal_rows / sizeof ideal_rows[0],
    .params_size = sizeof(ideal_params),
    .check = ideal_check,
    .init = ideal_init,
    .send = ideal_send,
    .zero_load_ps = ideal_zero_load_ps,
    .link_count = ideal_link_count,
    .route = ideal_route,
    .fini = ideal_fini,
    .mem_bytes = ideal_mem_bytes,
};
