/* The input-queued router (networks/iqrouter.c, network.router =
 * "input-queued"): zero-load latency of each pipeline by hand, a 2-input
 * contention case of the VC and of the switch allocator worked by hand,
 * wormhole blocking across two routers worked flit by flit, every message
 * delivered at saturation on every topology (credits, deadlock freedom),
 * every credit back once a run past saturation has drained.
 *
 * Units throughout (BookSim2's): B = 8 Gb/s and 1-byte flits, so a flit
 * time T = 8 b / 8 Gb/s = 1 ns; links 1 ns, host links 0 ns (unless a test
 * says otherwise); every message is handed over at 5 ns (on the 1 ns grid)
 * and its latency is its delivery time minus 5 ns.
 * Model rules used below (iqrouter.c's head): a flit sent at tick w is whole
 * at the far end at w + T + link (host links: + T + host-link); a head whole
 * at a finishes route computation at a + routing-delay, a VC allocation
 * requested at x is known at x + vc-alloc-delay (a refusal too, then it asks
 * again), a switch allocation requested at y is known at y + sw-alloc-delay
 * and the flit leaves the buffer then, goes on the link st-delay later; its
 * credit reaches the sender credit-delay + link after it left; VC
 * allocation is done before switch allocation within a tick. */
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "event_queue.h"
#include "harness.h"
#include "iqrouter.h"
#include "network.h"
#include "swnet.h"
#include "topo.h"

#define T0 (5 * NS)

static net_params core_bs(uint32_t N)
{
    net_params c = th_star(N, 8e9);
    c.link_latency_ps = 1 * NS;
    c.switch_latency_ps = 0;
    return c;
}

/* latency of one message a -> b of `bytes` alone on `name` */
static int64_t alone(const char *name, uint32_t N, const char *const *sets, uint32_t a, uint32_t b, uint64_t bytes)
{
    net_params core = core_bs(N);
    th_net *h = th_net_new(name, &core, sets, NULL, 1, 4);
    net_msg *m = th_at_low(h, T0, a, b, bytes);
    th_net_go(h);
    ck_assert_uint_eq(m->a, 1);
    int64_t t = (int64_t)m->b - T0;
    /* the model's own zero-load formula agrees with the run */
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, a, b, bytes), t);
    th_net_free(h);
    return t;
}

/* Zero load, 4x4 torus, host 0 -> host 1: h = 2 switches (one link in
 * dimension 0), a 4-byte message of one packet = F = 4 flits (mtu 4 B).
 * Head: whole at switch 0 at T + 0 = 1; leaves it D = rd + va + sa + st
 * later and is whole at switch 1 T + link = 2 after that; leaves switch 1 D
 * later and is whole at the host T + 0 = 1 after; the tail F - 1 = 3 flit
 * times behind (a buffer of 8 flits covers the credit round trip):
 *   1 + D + 2 + D + 1 + 3 = 7 + 2 D. */
START_TEST(test_zero_load_pipelines)
{
    const char *s1111[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                           "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=4 4", NULL};
    /* BookSim2's defaults: 1 ns each, D = 4: 7 + 8 = 15 ns */
    ck_assert_int_eq(alone("torus", 16, s1111, 0, 1, 4), 15 * NS);
    /* routing-delay 0 (BookSim2's lookahead routing), D = 3: 7 + 6 = 13 ns */
    const char *s0111[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                           "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=4 4",
                           "network.routing-delay=0ns", NULL};
    ck_assert_int_eq(alone("torus", 16, s0111, 0, 1, 4), 13 * NS);
    /* rd 2, va 3, sa 1, st 2: D = 8: 7 + 16 = 23 ns */
    const char *s2312[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                           "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=4 4",
                           "network.routing-delay=2ns", "network.vc-alloc-delay=3ns", "network.st-delay=2ns", NULL};
    ck_assert_int_eq(alone("torus", 16, s2312, 0, 1, 4), 23 * NS);
    /* host links of 1 ns (the default: link-latency) add 1 at each end, and
     * wormhole changes nothing alone: 15 + 2 = 17 ns */
    const char *swh[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                         "network.vc-buffer=8B", "network.switching=wormhole", "network.dims=4 4", NULL};
    ck_assert_int_eq(alone("torus", 16, swh, 0, 1, 4), 17 * NS);
    /* 16-byte flits at 8 Gb/s: T = 16 ns, a 64-byte packet is F = 4 flits;
     * delays of 1 ns wait for the next 16 ns tick. Sent at 16 ns (times
     * relative to it): flit 0 whole at switch 0 at T + 0 = 16, routed at 17
     * -> tick 32, VC at 33 -> tick 48: granted, leaves at 49, on the link at
     * 50, whole at switch 1 at 50 + 16 + 1 = 67 -> tick 80, routed -> tick
     * 96, VC -> tick 112: granted, flits 1..3 at 128, 144, 160 (each whole
     * there by then: sw0 granted them at 64, 80, 96); the tail on the link
     * at 162, whole at the host at 162 + 16 + 0 = 178 ns; the formula (ticks
     * not waited for) is a lower bound: 2 (16) + 17 + 2 (4) + 3 (16) = 105. */
    const char *s16[] = {"network.router=input-queued", "network.flit-size=16B", "network.mtu=64B",
                         "network.vc-buffer=128B", "network.host-link-latency=0ns", "network.dims=4 4", NULL};
    net_params core = core_bs(16);
    th_net *h = th_net_new("torus", &core, s16, NULL, 1, 4);
    net_msg *m = th_at_low(h, 16 * NS, 0, 1, 64);
    th_net_go(h);
    ck_delivered_at(m, 16 * NS + 178 * NS);
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 1, 64), 105 * NS);
    th_net_free(h);
}
END_TEST

/* network.switch-latency under the input-queued router (iqrouter.c's head,
 * "Switch latency"): it joins st-delay at every switch. 8x8 torus, host 0
 * (switch (0,0)) -> host 36 (switch (4,4), 36 = 4 + 8 x 4): dor crosses 4
 * links in each dimension, so h = 9 switches and 8 links between them; a
 * 4-byte message of one packet, F = 4 flits of 1 B, T = 1 ns, links 1 ns,
 * host links 0, D = rd + va + sa + st = 4 ns (BookSim2's defaults). The
 * zero load (2 (T + hlink) + (h - 1)(T + link) + h D + (F - 1) T):
 *   2 (1 + 0) + 8 (1 + 1) + 9 x 4 + 3 = 57 ns.
 * switch-latency 100 ns (a multiple of T, so the formula is exact): D = 104,
 * 57 + 9 x 100 = 957 ns, i.e. exactly h x switch-latency more. Not given
 * (the torus's row, 0) it is 57 ns whatever the core's value, the
 * output-queued router's (200 ns by default): core_bs's 0 and 200 ns alike. */
START_TEST(test_switch_latency)
{
    const char *s0[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                        "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=8 8",
                        "network.routing=dor", NULL};
    const char *s100[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                          "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=8 8",
                          "network.routing=dor", "network.switch-latency=100ns", NULL};
    ck_assert_int_eq(alone("torus", 64, s0, 0, 36, 4), 57 * NS);
    ck_assert_int_eq(alone("torus", 64, s100, 0, 36, 4), 957 * NS);
    /* the core's 200 ns (its default) is not the input-queued router's */
    net_params core = core_bs(64);
    core.switch_latency_ps = 200 * NS;
    th_net *h = th_net_new("torus", &core, s0, NULL, 1, 4);
    net_msg *m = th_at_low(h, T0, 0, 36, 4);
    th_net_go(h);
    ck_delivered_at(m, T0 + 57 * NS);
    th_net_free(h);
    /* the same on a 4-port 2-level fat tree, host 0 -> host 15 (another
     * leaf: up to a spine and down, h = 3 switches, 2 links between them):
     * 2 (1 + 0) + 2 (1 + 1) + 3 x 4 + 3 = 21 ns; 21 + 3 x 100 = 321 ns */
    const char *f0[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                        "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.arity=4",
                        "network.levels=2", NULL};
    const char *f100[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                          "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.arity=4",
                          "network.levels=2", "network.switch-latency=100ns", NULL};
    ck_assert_int_eq(alone("fat-tree", 16, f0, 0, 15, 4), 21 * NS);
    ck_assert_int_eq(alone("fat-tree", 16, f100, 0, 15, 4), 321 * NS);
}
END_TEST

/* A switch-latency far above the flit time (iqrouter.c's step_skip): the
 * 8x8 torus message above with switch-latency 1 ms and 1 s, 57 ns + 9 x
 * switch-latency (the formula is exact for multiples of T). While its flits
 * wait out a switch's latency nothing is due, and the fabric stepped every
 * flit time through the wait all the same: 9 x 1 ms / 1 ns = 9e6 engine
 * events for the 1 ms run, 9e9 for the 1 s run (hours). Now the steps jump
 * to the next one due after W = 4096 steps (the wheel's largest) in a row
 * found nothing due: about 9 x 4096 + the ~100 steps the flits act at, so
 * at most 9 x (4096 + 100) events whatever the latency. */
START_TEST(test_switch_latency_long)
{
    const char *s1ms[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                          "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=8 8",
                          "network.routing=dor", "network.switch-latency=1ms", NULL};
    const char *s1s[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                         "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=8 8",
                         "network.routing=dor", "network.switch-latency=1s", NULL};
    const char *const *sets[] = {s1ms, s1s};
    const int64_t sl[] = {1000000 * NS, 1000000000 * NS};
    for (int i = 0; i < 2; i++) {
        net_params core = core_bs(64);
        th_net *h = th_net_new("torus", &core, sets[i], NULL, 1, 4);
        net_msg *m = th_at_low(h, T0, 0, 36, 4);
        th_net_go(h);
        ck_delivered_at(m, T0 + 57 * NS + 9 * sl[i]);
        ck_assert_uint_le(sim_events_executed(h->s), 9 * (4096 + 100));
        th_net_free(h);
    }
}
END_TEST

/* The fixed per-message latency (net_ops.fixed_latency_ps: what a lone
 * message spends besides its bytes at B, in the core's star convention of
 * two host links and one switch; the workloads' horizons and task-tree and
 * DAG critical paths read it, run.c's msg_fixed_ps). Under the input-queued
 * router it is the zero load above over one switch without bytes (h = 1,
 * F = 0; iqrouter.h iqr_fixed_latency_ps):
 *   2 (T + hlink) + D - T = T + 2 hlink + D,  D = rd + va + sa + st + switch-latency.
 * Units as above (T = 1 ns, links 1 ns) with the core's switch-latency at
 * 200 ns, which the output-queued router reads and the switched fabrics'
 * input-queued router does not (their row: 0 when not given):
 *  - every switched fabric, the router's defaults (16-byte flits: T = 16
 *    ns; delays of 1 ns; host links = link-latency 1 ns): 16 + 2 x 1 + (1 +
 *    1 + 1 + 1 + 0) = 22 ns (before: 2 x 1 + 200 = 202 ns, the core's 2 link
 *    + switch-latency, which stays the output-queued router's);
 *  - 1-byte flits, switch-latency 100 ns given, host links 0, rd 0: 1 + 0 +
 *    (3 + 100) = 104 ns;
 *  - 16-byte flits (T = 16 ns), speedup 2, host links 0: D = 4 rounded up
 *    to a flit time (speedup: the output buffer sends at flit-time edges)
 *    = 16: 16 + 0 + 16 = 32 ns;
 *  - 1-byte flits, the rest the router's defaults: 1 + 2 + 4 = 7 ns, and
 *    on the single switch under this router, which hands over the core's
 *    200 ns (net_switch.c): 1 + 2 + 4 + 200 = 207 ns.
 * And against a run: a 1-byte message (one flit, its byte at B = T = 1 ns)
 * between two hosts of one switch is delivered fixed + 1 ns after it is
 * handed over (the leaf-spine's hosts 0 and 1 share leaf 0: 8 ns; the single
 * switch: 208 ns). */
static const char *iq_dot(const char *st);

/* The lean tick's wider express switch allocation (iqrouter.c
 * express_clear) must not free an output VC before the tail that holds it
 * leaves. One switch of 3 hosts (a 1-level 3-ary fat tree), T = 1 ns (1-B
 * flits at 8 Gb/s), host links 10 ns, rd 1, va 4, sa 1, st 1 ns (D = 7),
 * one VC, wormhole, 8-flit buffers; express = va = 4 ns (< T + host link).
 * Alone, a flit leaving a host at s is whole at the switch at s + 11, routed
 * (rd) at + 1, granted its output VC (va) 4 later and crosses at that
 * switch allocation step g, whole at its host at g + sa + st + T + 10 =
 * g + 13 (zero load 2 (T + 10) + D = 29 ns).
 *   Host 2 sends B (3 B, 3 flits, to host 0) at 0, then C (1 B, to host
 *   1): flits out at 0, 1, 2 and 3, whole at the switch at 11..14. B's
 *   head: VA at 12, switch allocation at 16, its body and tail at 17 and 18
 *   (a flit per T). C is then the front of the same input VC: routed at 18
 *   + T + rd = 20.
 *   Host 0 sends A (1 B, to host 1) at 5: whole at 16, VA at 17, switch
 *   allocation at 21 (delivered 21 + 13 = 34), holding host 1's output VC
 *   until then.
 *   C asks for that VC at 20 < 21: lost; it asks again va later, at 24, and
 *   wins (A's tail left at 21): switch allocation at 28, delivered at 28 +
 *   13 = 41. (The lean tick once decided A's switch allocation at 17 with
 *   its effects at once, although B's VC, active on other ports, held C
 *   behind its tail: host 1's output VC was free for C at 20, and C came at
 *   24 + 13 = 37.) B: head 16 + 13 = 29, tail 2 later: 31. */
START_TEST(test_express_tail_behind)
{
    const char *sets[] = {"network.router=input-queued", "network.arity=3", "network.levels=1",
                          "network.flit-size=1B", "network.mtu=4B", "network.vc-buffer=8B",
                          "network.host-link-latency=10ns", "network.vc-alloc-delay=4ns",
                          "network.switching=wormhole", NULL};
    net_params core = core_bs(3);
    th_net *h = th_net_new("fat-tree", &core, sets, NULL, 1, 4);
    net_msg *b = th_at_low(h, 0, 2, 0, 3);
    net_msg *c = th_at_low(h, 0, 2, 1, 1);
    net_msg *a = th_at_low(h, 5 * NS, 0, 1, 1);
    th_net_go(h);
    ck_delivered_at(b, 31 * NS);
    ck_delivered_at(a, 34 * NS);
    ck_delivered_at(c, 41 * NS);
    th_net_free(h);
}
END_TEST

/* The lean tick (iqrouter.c "The tick's copies") against the general one
 * (iqr_no_lean) on random traffic: every message at the same time to the
 * picosecond. The first configuration is random input-queued
 * configuration 14 of review8's seed 8 (a 4x2x6 torus, dor, cut-through, 4
 * VCs, 8-B flits of 32-B packets at 100 Gb/s: its lean copy once moved
 * (express_clear's express woke a host waiting for the credit early); the
 * second a 1-level 3-ary fat tree, wormhole, va 2 ns (the tail-behind case
 * of test_express_tail_behind). The third to fifth are BookSim2's torus as
 * the bench runs it (1-B flits at 8 Gb/s, T = 1 ns, 2 VCs: the lean V = 2
 * copies, 8-flit buffers, link 1 ns, host links 0) with wormhole packets of
 * up to 4 flits near saturation: rd = va = 1 ns (iSLIP), where
 * express_clear lets an idle VC's head, a head behind a tail and a routed
 * head asking for other output VCs of c's port by (x_idle, x_behind); va 2
 * ns (input-first), where only a head behind a tail is let by; va 3 ns,
 * neither. (Letting a routed head for c's output VC by moves the third;
 * letting an idle VC's head or a head behind a tail by always moves the
 * second, the latter test_express_tail_behind too.) */
START_TEST(test_lean_matches_general)
{
    const struct {
        const char *name;
        uint32_t N;
        double bps;
        int64_t link;
        const char *sets[12];
        uint64_t maxb;
        int64_t span; /* messages handed over in [0, span) */
    } f[] = {
        {"torus", 48, 100e9, 10 * NS,
         {"network.router=input-queued", "network.dims=4 2 6", "network.flit-size=8B", "network.mtu=32B",
          "network.vc-buffer=32B", "network.vcs=4", "network.switching=cut-through", NULL},
         300, 3000000},
        {"fat-tree", 3, 100e9, 100 * NS,
         {"network.router=input-queued", "network.arity=3", "network.levels=1", "network.flit-size=8B",
          "network.mtu=32B", "network.vc-buffer=128B", "network.switching=wormhole", "network.routing-delay=0ns",
          "network.vc-alloc-delay=2ns", "network.host-link-latency=5ns", "network.switch-latency=3ns", NULL},
         16, 3000000},
        {"torus", 16, 8e9, 1 * NS,
         {"network.router=input-queued", "network.dims=4 4", "network.routing=dor", "network.flit-size=1B",
          "network.mtu=4B", "network.vc-buffer=8B", "network.vcs=1", "network.switching=wormhole",
          "network.host-link-latency=0ns", NULL},
         6, 600000},
        {"torus", 16, 8e9, 1 * NS,
         {"network.router=input-queued", "network.dims=4 4", "network.routing=dor", "network.flit-size=1B",
          "network.mtu=4B", "network.vc-buffer=8B", "network.vcs=1", "network.switching=wormhole",
          "network.host-link-latency=0ns", "network.vc-alloc-delay=2ns",
          "network.allocator=separable-input-first", NULL},
         6, 600000},
        {"torus", 16, 8e9, 1 * NS,
         {"network.router=input-queued", "network.dims=4 4", "network.routing=dor", "network.flit-size=1B",
          "network.mtu=4B", "network.vc-buffer=8B", "network.vcs=1", "network.switching=wormhole",
          "network.host-link-latency=0ns", "network.vc-alloc-delay=3ns", NULL},
         6, 600000},
    };
    enum { M = 1500 };
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++) {
        int64_t t[2][M];
        for (int general = 0; general < 2; general++) {
            net_params core = th_star(f[i].N, f[i].bps);
            core.link_latency_ps = f[i].link;
            core.switch_latency_ps = 0;
            th_net *h = th_net_new(f[i].name, &core, f[i].sets, NULL, 1, M);
            if (general)
                iqr_no_lean(h->n->state);
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 1 + i);
            net_msg *m[M];
            for (unsigned k = 0; k < M; k++) {
                uint32_t src = (uint32_t)gsl_rng_uniform_int(g, f[i].N);
                uint32_t dst = (uint32_t)gsl_rng_uniform_int(g, f[i].N - 1);
                dst += dst >= src;
                m[k] = th_at_low(h, (int64_t)gsl_rng_uniform_int(g, (unsigned long)f[i].span), src, dst,
                                 1 + gsl_rng_uniform_int(g, f[i].maxb));
            }
            gsl_rng_free(g);
            th_net_go(h);
            for (unsigned k = 0; k < M; k++) {
                ck_assert_uint_eq(m[k]->a, 1);
                t[general][k] = (int64_t)m[k]->b;
            }
            th_net_free(h);
        }
        for (unsigned k = 0; k < M; k++)
            if (t[0][k] != t[1][k])
                ck_abort_msg("%s: message %u delivered at %lld ps by the lean tick, %lld by the general one",
                             f[i].name, k, (long long)t[0][k], (long long)t[1][k]);
    }
}
END_TEST

START_TEST(test_fixed_latency)
{
    net_params core = core_bs(16);
    core.switch_latency_ps = 200 * NS;
    const char *fabrics[] = {"torus", "fat-tree", "leaf-spine", "dragonfly", "graph"};
    const char *dims[] = {"network.dims=4 4", "network.levels=2", "network.leaves=4", "network.groups=4", NULL};
    const char *other[] = {"network.routing=dor", "network.arity=4", "network.hosts-per-leaf=4",
                           "network.hosts-per-router=2", NULL};
    for (size_t i = 0; i < sizeof fabrics / sizeof fabrics[0]; i++) {
        const net_ops *ops = net_find(fabrics[i]);
        ck_assert_ptr_nonnull(ops);
        char file[200];
        snprintf(file, sizeof file, "network.file=%s", iq_dot("latency=\"1ns\""));
        const char *shape0 = i == 4 ? file : dims[i], *shape1 = i == 4 ? "network.routing=shortest" : other[i];
        const char *oq[] = {shape0, shape1, NULL};
        const char *iq[] = {shape0, shape1, "network.router=input-queued", NULL};
        const char *iq100[] = {shape0, shape1, "network.router=input-queued", "network.flit-size=1B",
                               "network.switch-latency=100ns",
                               "network.host-link-latency=0ns", "network.routing-delay=0ns", NULL};
        const char *iq16[] = {shape0, shape1, "network.router=input-queued", "network.flit-size=16B",
                              "network.speedup=2", "network.host-link-latency=0ns", NULL};
        const struct {
            const char *const *sets;
            int64_t want;
        } c[] = {{oq, 202 * NS}, {iq, 22 * NS}, {iq100, 104 * NS}, {iq16, 32 * NS}};
        for (size_t j = 0; j < sizeof c / sizeof c[0]; j++) {
            void *p = th_net_params(ops, c[j].sets);
            ck_assert_msg(net_fixed_latency_ps(ops, &core, p) == c[j].want, "%s case %zu: %lld ps, want %lld",
                          fabrics[i], j, (long long)net_fixed_latency_ps(ops, &core, p), (long long)c[j].want);
            free(p);
        }
    }
    /* the leaf-spine's run: hosts 0 and 1 on leaf 0, 1 byte: 7 + 1 = 8 ns */
    const char *ls[] = {"network.leaves=4", "network.hosts-per-leaf=4", "network.router=input-queued",
                        "network.flit-size=1B", "network.mtu=4B", "network.vc-buffer=8B", NULL};
    void *p = th_net_params(net_find("leaf-spine"), ls);
    ck_assert_int_eq(net_fixed_latency_ps(net_find("leaf-spine"), &core, p), 7 * NS);
    free(p);
    th_net *h = th_net_new("leaf-spine", &core, ls, NULL, 1, 4);
    net_msg *m = th_at_low(h, T0, 0, 1, 1);
    th_net_go(h);
    ck_delivered_at(m, T0 + 8 * NS);
    th_net_free(h);
    /* the single switch: the core's 200 ns joins st-delay: 207 ns; its run 208 ns */
    const char *sw[] = {"network.router=input-queued", "network.flow-control=credit", "network.flit-size=1B",
                        "network.mtu=4B", "network.vc-buffer=8B", NULL};
    p = th_net_params(net_find("electrical-switch"), sw);
    ck_assert_int_eq(net_fixed_latency_ps(net_find("electrical-switch"), &core, p), 207 * NS);
    free(p);
    h = th_net_new("electrical-switch", &core, sw, NULL, 1, 4);
    m = th_at_low(h, T0, 0, 1, 1);
    th_net_go(h);
    ck_delivered_at(m, T0 + 208 * NS);
    th_net_free(h);
    /* the output-queued switch: the core's 2 link + switch-latency, 202 ns */
    p = th_net_params(net_find("electrical-switch"), NULL);
    ck_assert_int_eq(net_fixed_latency_ps(net_find("electrical-switch"), &core, p), 202 * NS);
    free(p);
}
END_TEST

/* Two inputs, one output: a 1-level 4-ary fat tree is one switch with host
 * p on port p (one deadlock class). Hosts 0 and 1 each send a 1-byte
 * message (one flit) to host 2 at 5 ns; rd = va = sa = st = 1 ns, host
 * links 0 ns. Both heads are whole at the switch at 5 + T = 6 (relative: 1),
 * routed at 2, and request VC allocation at 2 (times relative to 5 ns).
 *  one VC: one output VC at port 2; islip's output pointer starts at input
 *    0, so host 0 wins (known at 3), requests the switch at 3, leaves the
 *    buffer at 4, is on the link at 5 and whole at host 2 at 6. Host 1 lost
 *    at 2, asks again at 3: the VC is still held (VC allocation comes before
 *    switch allocation in a tick, and host 0's tail is granted at 3), loses,
 *    asks at 4 and wins (known at 5), switch at 5, on the link at 7, whole
 *    at 8.
 *  two VCs, one iteration: islip's two output VCs both have their pointer
 *    at input VC 0 (host 0's), so both grant host 0, which accepts VC 0;
 *    host 1 gets nothing (iSLIP's synchronised pointers, McKeown 1999), asks
 *    again at 3 and wins VC 1 (VC 0 is still held at 3), known at 4, switch
 *    at 4: leaves at 5, on the link at 6, whole at 7 (host 0 used the output
 *    at 3: no switch conflict). One VC allocation lost.
 *  two VCs, two iterations: the second iteration matches host 1 with VC 1
 *    at 2: both request the switch at 3 for the same output; islip grants
 *    input 0 (host 0: whole at 6 as above); host 1 lost at 3, asks at 4,
 *    wins: leaves at 5, link at 6, whole at 7. One switch allocation lost.
 *  separable input-first, two iterations: both inputs pick VC 0 (their
 *    pointers at 0), VC 0's arbiter takes input 0; the second iteration
 *    gives host 1 VC 1: then as islip with two iterations. */
START_TEST(test_contention_two_inputs)
{
    const char *v1[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=1B",
                        "network.vc-buffer=4B", "network.host-link-latency=0ns", "network.arity=4",
                        "network.levels=1", NULL};
    const char *v2[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=1B",
                        "network.vc-buffer=4B", "network.host-link-latency=0ns", "network.arity=4",
                        "network.levels=1", "network.vcs=2", NULL};
    const char *v2s[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=1B",
                         "network.vc-buffer=4B", "network.host-link-latency=0ns", "network.arity=4",
                         "network.levels=1", "network.vcs=2", "network.allocator=separable-input-first",
                         "network.allocator-iterations=2", NULL};
    const char *v2i[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=1B",
                         "network.vc-buffer=4B", "network.host-link-latency=0ns", "network.arity=4",
                         "network.levels=1", "network.vcs=2", "network.allocator-iterations=2", NULL};
    const char *const *sets[] = {v1, v2, v2i, v2s};
    const int64_t want1[] = {8, 7, 7, 7};
    const uint64_t va_lost[] = {2, 1, 0, 0}, sa_lost[] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++) {
        net_params core = core_bs(4);
        th_net *h = th_net_new("fat-tree", &core, sets[i], NULL, 1, 4);
        net_msg *a = th_at_low(h, T0, 0, 2, 1);
        net_msg *b = th_at_low(h, T0, 1, 2, 1);
        th_net_go(h);
        ck_delivered_at(a, T0 + 6 * NS);
        ck_delivered_at(b, T0 + want1[i] * NS);
        iqr_stats s;
        iqr_get_stats(h->n->state, &s);
        ck_assert_uint_eq(s.va_lost, va_lost[i]);
        ck_assert_uint_eq(s.sa_lost, sa_lost[i]);
        th_net_free(h);
    }
}
END_TEST

/* Wormhole blocking across two routers. 2-ary 2-tree (hosts 0, 1 on leaf A,
 * 2, 3 on leaf C, d-mod-k: 0 -> 2 goes A -> top B -> C), one VC, buffers of
 * 2 flits, wormhole, 1-byte flits, rd = va = sa = st = 1 ns, links 1 ns,
 * host links 0. Times relative to 5 ns.
 * Y: host 3 -> host 2, 32 flits, through C alone. Its flits 0, 1 are whole
 *   at C at 1, 2; the head routed at 2, VC at 3, granted at 3; from then
 *   flit k (whole at k + 3, its credit back at the host as flit k - 2
 *   leaves) is granted at k + 3: the tail (k = 31) at 34, on the link at 36,
 *   whole at host 2 at 37.
 * X: host 0 -> host 2, 4 flits. Alone: the host sends flits 0, 1 at 0, 1
 *   (two credits), A grants them at 3, 4 (whole at 1, routed at 2, VC at
 *   3), their credits are back at the host at 4, 5 (host link 0), B grants
 *   flit 0 at 9 (whole at 3 + 2 + 2 = 7, routed 8, VC 9) and flit 1 at 10,
 *   their credits back at A at 11, 12, so A grants flits 2, 3 at 11, 12
 *   (whole at B at 15, 16); C: flit 0 whole at 13, routed 14, VC 15,
 *   granted 15, flit 1 at 16, credits at B at 17, 18, so B grants flits 2, 3
 *   at 17, 18 (whole at C at 21, 22), C at 21, 22: the tail on the link at
 *   24, whole at host 2 at 25 (the buffers of 2 flits do not cover the
 *   credit round trip: the formula's 21 is a lower bound).
 *   With Y: at A flits 0, 1 granted at 3, 4 (whole at B at 7, 8); flits 2, 3
 *   wait for B's credits: B grants flit 0 at 9 (leaves its buffer at 10, the
 *   credit at A at 11) and flit 1 at 10, so A grants flits 2, 3 at 11, 12
 *   (whole at B at 15, 16). At C flits 0, 1 are whole at 13, 14; the head is
 *   routed at 14 and loses VC allocation at 14 .. 34 (Y holds the one output
 *   VC to host 2 until its tail is granted at 34), wins at 35 (known at 36);
 *   meanwhile flits 2, 3 wait in B, which has no credit: X spans B and C,
 *   blocked. C grants flits 0, 1 at 36, 37 (credits back at B at 38, 39); B
 *   grants flits 2, 3 at 38, 39 (whole at C at 42, 43); C grants them at 42,
 *   43: the tail on the link at 45, whole at host 2 at 46. */
START_TEST(test_wormhole_blocking)
{
    const char *s[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=32B",
                       "network.vc-buffer=2B", "network.switching=wormhole", "network.host-link-latency=0ns",
                       "network.arity=2", "network.levels=2", "network.routing=d-mod-k", NULL};
    net_params core = core_bs(4);
    /* the routes the derivation assumes */
    th_net *h0 = th_net_new("fat-tree", &core, s, NULL, 1, 4);
    uint64_t links[8];
    ck_assert_uint_eq(h0->n->ops->route(h0->n->state, 0, 2, links, 8), 4); /* 3 switches */
    ck_assert_uint_eq(h0->n->ops->route(h0->n->state, 3, 2, links, 8), 2); /* 1 switch */
    net_msg *x0 = th_at_low(h0, T0, 0, 2, 4);
    th_net_go(h0);
    ck_delivered_at(x0, T0 + 25 * NS);
    ck_assert_int_eq(h0->n->ops->zero_load_ps(h0->n->state, 0, 2, 4), 21 * NS);
    th_net_free(h0);

    th_net *h = th_net_new("fat-tree", &core, s, NULL, 1, 4);
    net_msg *y = th_at_low(h, T0, 3, 2, 32);
    net_msg *x = th_at_low(h, T0, 0, 2, 4);
    th_net_go(h);
    ck_delivered_at(y, T0 + 37 * NS);
    ck_delivered_at(x, T0 + 46 * NS);
    iqr_stats st;
    iqr_get_stats(h->n->state, &st);
    ck_assert_uint_eq(st.va_lost, 21); /* X's head at C, 14 .. 34 */
    th_net_free(h);
}
END_TEST

/* Saturation on every topology, with every routing its file declares
 * (topo.h: topo_<name>_routing_names, "default" included), both
 * switchings: every message arrives (the run's own exactly-once
 * accounting) with buffers of 2 flits. The graph's routings need a file:
 * check_graph. */
START_TEST(test_saturation_all)
{
    static const struct {
        const char *name;
        uint32_t N;
        const char *shape[5];
        const char *const *routings;
    } f[] = {
        {"torus", 16, {"network.dims=4 4", NULL}, topo_torus_routing_names},
        {"fat-tree", 16, {"network.arity=4", "network.levels=2", NULL}, topo_fattree_routing_names},
        {"leaf-spine", 16, {"network.leaves=4", "network.spines=2", "network.hosts-per-leaf=4", NULL},
         topo_leafspine_routing_names},
        {"dragonfly", 36,
         {"network.groups=3", "network.routers-per-group=3", "network.hosts-per-router=4", "network.global-links=2",
          NULL},
         topo_dragonfly_routing_names},
    };
    unsigned runs = 0;
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++)
        for (int r = -1; r < 0 || f[i].routings[r]; r++)
            for (int wh = 0; wh < 2; wh++) {
                const char *sets[16];
                char routing[64];
                unsigned n = 0;
                sets[n++] = "network.router=input-queued";
                sets[n++] = "network.flit-size=4B";
                sets[n++] = "network.mtu=16B";
                sets[n++] = wh ? "network.vc-buffer=8B" : "network.vc-buffer=16B";
                sets[n++] = wh ? "network.switching=wormhole" : "network.switching=cut-through";
                sets[n++] = "network.vcs=2";
                snprintf(routing, sizeof routing, "network.routing=%s", r < 0 ? "default" : f[i].routings[r]);
                sets[n++] = routing;
                for (unsigned k = 0; k < 5 && f[i].shape[k]; k++)
                    sets[n++] = f[i].shape[k];
                sets[n] = NULL;
                net_params core = core_bs(f[i].N);
                th_run run = {0};
                const char *wl[] = {"workload.offered-load=1.5", "workload.message-size=40B", "workload.messages=200",
                                    NULL};
                ck_assert_msg(th_run_all(&run, f[i].name, &core, sets, "uniform-random", wl, 7, 0, NULL) == 0,
                              "%s %s: %s", f[i].name, routing, run.err);
                th_run_close(&run);
                runs++;
            }
    ck_assert_uint_eq(runs, 2 * (5 + 4 + 3 + 4)); /* default and the 4 + 3 + 2 + 3 routings, two switchings */
}
END_TEST

/* Priority classes through one credit-limited input port (network.vc-map).
 * One switch (1-level 4-ary fat tree, hosts 0..3), cut-through, 1-byte
 * flits, packets of 4 flits (mtu 4 B), VC buffers of 8 flits (2 packets),
 * host-scheduling priority (strict allocators by network.priority's
 * default), links and host links 1 ns, delays 1 ns.
 *   C (host 1 -> 2) and D (host 3 -> 2): class 0, 400 B each at 5 ns: the
 *   output toward 2 moves one flit per ns and C and D offer two, so it is
 *   busy until 805 ns at least.
 *   B (host 0 -> 2): class 1, 40 B (10 packets) at 5 ns: its packets wait
 *   at the switch's input port 0 for the output toward 2.
 *   H (host 0 -> 3): class 0, 4 B at 105 ns; the output toward 3 idles.
 *   per-class: H's class has its own injection VC with its 8 credits, and
 *     at input port 0 H's request (class 0) is matched before B's: H
 *     meets nothing, so it takes the zero-load time of the pipeline,
 *     2 (T + host link) + D + (F - 1) T = 4 + 4 + 3 = 11 ns (iqrouter.c's
 *     head, h = 1, D = routing + vc-alloc + sw-alloc + st = 4 ns): at 116 ns.
 *   shared: one VC per port, and one output VC toward host 2: C's and D's
 *     heads wait for it in VC allocation each time it is released and win
 *     it (class 0 first), so B's head in host 0's VC gets it only after C
 *     and D, and H, behind B's packets in that VC (B holds all 8 credits),
 *     arrives after C and D. With network.priority=fifo (round-robin
 *     allocation, no class order) B's head wins the VC in turn and H
 *     arrives long before C and D end (142 ns): the strict rule is what
 *     holds B, and H behind it, back. (Per-class, B has an output VC of its own
 *     toward 2 and takes the switch-allocation gaps between C's and D's
 *     packets: it arrives at 212 ns, C and D at 1006 and 1011.) */
START_TEST(test_priority_classes_vcs)
{
    for (int k = 0; k < 3; k++) {
        int shared = k > 0, rr = k == 2;
        const char *sets[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                              "network.vc-buffer=8B", "network.arity=4", "network.levels=1",
                              "network.host-scheduling=priority",
                              shared ? "network.vc-map=shared" : "network.vc-map=per-class",
                              rr ? "network.priority=fifo" : "network.priority=default", NULL};
        net_params core = core_bs(4);
        th_net *h = th_net_new("fat-tree", &core, sets, NULL, 1, 8);
        net_msg *c = th_at(h, T0, 1, 2, 400, 0, NET_DATA);
        net_msg *d = th_at(h, T0, 3, 2, 400, 0, NET_DATA);
        net_msg *b = th_at(h, T0, 0, 2, 40, 1, NET_DATA);
        net_msg *hi = th_at(h, 105 * NS, 0, 3, 4, 0, NET_DATA);
        th_net_go(h);
        int64_t cd = (int64_t)(c->b > d->b ? c->b : d->b);
        ck_assert_uint_eq(c->a, 1);
        ck_assert_uint_eq(d->a, 1);
        ck_assert_uint_eq(b->a, 1);
        ck_assert_int_ge(cd, 805 * NS);
        if (rr) { /* round-robin allocation: B wins the VC in turn, H follows */
            ck_assert_uint_eq(hi->a, 1);
            ck_assert_int_lt((int64_t)hi->b, cd);
        } else if (shared) {
            ck_assert_uint_eq(hi->a, 1);
            ck_assert_int_gt((int64_t)hi->b, cd);
            ck_assert_int_gt((int64_t)b->b, cd);
        } else {
            ck_delivered_at(hi, 116 * NS);
        }
        ck_assert_uint_eq(iqr_leaks(h->n->state), 0);
        th_net_free(h);
    }
}
END_TEST

/* Mixed classes under load on every switched topology, both mappings and
 * both port rules: 600 messages of 1..64 B in classes 0..2 between random
 * hosts, handed over in the first 2 us (far above saturation for a moment):
 * every message arrives exactly once and every credit, VC and packet comes
 * back (iqr_leaks). The adaptive torus too (its deadlock under these sizes,
 * fixed since, has a test of its own: test_adaptive_torus_escape). */
START_TEST(test_priority_classes_mix)
{
    static const struct {
        const char *name;
        uint32_t N;
        const char *shape[4];
    } f[] = {
        {"torus", 16, {"network.dims=4 4", NULL}},
        {"torus", 16, {"network.dims=4 4", "network.routing=adaptive", NULL}},
        {"fat-tree", 16, {"network.arity=4", "network.levels=2", "network.routing=random-up", NULL}},
        {"leaf-spine", 16, {"network.leaves=4", "network.spines=2", "network.hosts-per-leaf=4", NULL}},
        {"dragonfly", 36, {"network.groups=3", "network.routers-per-group=3", "network.hosts-per-router=4",
                           "network.global-links=2"}},
    };
    static const char *const rules[][2] = {{"network.vc-map=per-class", "network.priority=strict"},
                                           {"network.vc-map=shared", "network.priority=strict"},
                                           {"network.vc-map=per-class", "network.priority=fifo"}};
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++)
        for (unsigned r = 0; r < 3; r++)
            for (int wh = 0; wh < 2; wh++) {
                const char *sets[16];
                unsigned n = 0;
                sets[n++] = "network.router=input-queued";
                sets[n++] = "network.flit-size=4B";
                sets[n++] = "network.mtu=16B";
                sets[n++] = wh ? "network.vc-buffer=8B" : "network.vc-buffer=16B";
                sets[n++] = wh ? "network.switching=wormhole" : "network.switching=cut-through";
                sets[n++] = "network.host-scheduling=priority";
                sets[n++] = rules[r][0];
                sets[n++] = rules[r][1];
                for (unsigned k = 0; k < 4 && f[i].shape[k]; k++)
                    sets[n++] = f[i].shape[k];
                sets[n] = NULL;
                net_params core = core_bs(f[i].N);
                th_net *h = th_net_new(f[i].name, &core, sets, NULL, 1, 600);
                gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
                gsl_rng_set(g, 11 + i);
                net_msg *m[600];
                for (unsigned k = 0; k < 600; k++) {
                    uint32_t src = (uint32_t)gsl_rng_uniform_int(g, f[i].N);
                    uint32_t dst = (uint32_t)gsl_rng_uniform_int(g, f[i].N - 1);
                    dst += dst >= src;
                    m[k] = th_at(h, (int64_t)gsl_rng_uniform_int(g, 2000) * NS, src, dst,
                                 1 + gsl_rng_uniform_int(g, 64), (uint8_t)gsl_rng_uniform_int(g, 3), NET_DATA);
                }
                gsl_rng_free(g);
                th_net_go(h);
                for (unsigned k = 0; k < 600; k++)
                    if (m[k]->a != 1)
                        ck_abort_msg("%s rule %u wh %d: message %u delivered %llu times", f[i].name, r, wh, k,
                                     (unsigned long long)m[k]->a);
                ck_assert_uint_eq(iqr_leaks(h->n->state), 0);
                th_net_free(h);
            }
}
END_TEST

/* Torus minimal adaptive under Duato's protocol (issue 24, i24prio's
 * finding): 4x4 torus, routing adaptive, 4-byte flits, packets of at most
 * 16 B (4 flits), VC buffers of 16 B (one packet; 8 B under wormhole), one
 * VC per class; 600 messages of 1..64 B between random hosts handed over in
 * the first 2 us (far past saturation for a moment), 60 seeds, all in one
 * class (default host scheduling) and in classes 0..2 on shared VCs with
 * strict allocators, cut-through and wormhole. Invariants, not timings:
 * every message arrives exactly once, the fabric drains before 1 ms (the
 * last message of any seed arrives by 4.2 us; a deadlock ends the run with
 * messages missing, or ticks the routers for ever up to the cap) and every
 * credit, VC and packet comes back (iqr_leaks = 0). Before the fix a head
 * routed to an adaptive VC kept asking for that VC and never for the
 * escape: 9 of the 60 seeds stuck for good under cut-through, with one
 * class and with three (wormhole with these sizes did not); with the
 * choice made again but adaptive VCs granted without room downstream, 1 of
 * i24prio's 60 seeds (host-scheduling priority, shared VCs, fifo) still
 * stopped, every router idle: a cycle of packets each holding an adaptive
 * VC and waiting for the credit of the next (iqrouter.c adaptive_need).
 * The escape was taken and choices were made again (both counters > 0),
 * so the path is exercised. */
START_TEST(test_adaptive_torus_escape)
{
    uint64_t escapes = 0, rechosen = 0;
    for (int classes = 0; classes < 2; classes++)
        for (int wh = 0; wh < 2; wh++)
            for (unsigned seed = 0; seed < 60; seed++) {
                const char *sets[16];
                unsigned n = 0;
                sets[n++] = "network.router=input-queued";
                sets[n++] = "network.flit-size=4B";
                sets[n++] = "network.mtu=16B";
                sets[n++] = wh ? "network.vc-buffer=8B" : "network.vc-buffer=16B";
                sets[n++] = wh ? "network.switching=wormhole" : "network.switching=cut-through";
                sets[n++] = "network.dims=4 4";
                sets[n++] = "network.routing=adaptive";
                if (classes) {
                    sets[n++] = "network.host-scheduling=priority";
                    sets[n++] = "network.vc-map=shared";
                    sets[n++] = "network.priority=strict";
                }
                sets[n] = NULL;
                net_params core = core_bs(16);
                th_net *h = th_net_new("torus", &core, sets, NULL, 1, 600);
                gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
                gsl_rng_set(g, 12 + 100 * seed);
                net_msg *m[600];
                for (unsigned k = 0; k < 600; k++) {
                    uint32_t src = (uint32_t)gsl_rng_uniform_int(g, 16);
                    uint32_t dst = (uint32_t)gsl_rng_uniform_int(g, 15);
                    dst += dst >= src;
                    m[k] = th_at(h, (int64_t)gsl_rng_uniform_int(g, 2000) * NS, src, dst,
                                 1 + gsl_rng_uniform_int(g, 64),
                                 (uint8_t)(classes ? gsl_rng_uniform_int(g, 3) : 0), NET_DATA);
                }
                gsl_rng_free(g);
                sim_run(h->s, 1000000 * NS);
                for (unsigned k = 0; k < 600; k++)
                    if (m[k]->a != 1)
                        ck_abort_msg("classes %d wh %d seed %u: message %u delivered %llu times", classes, wh, seed,
                                     k, (unsigned long long)m[k]->a);
                ck_assert_msg(sim_pending(h->s) == 0, "classes %d wh %d seed %u: still running at 1 ms", classes,
                              wh, seed);
                ck_assert_uint_eq(iqr_leaks(h->n->state), 0);
                iqr_stats qs;
                iqr_get_stats(h->n->state, &qs);
                swnet_stats ss;
                swnet_get_stats(h->n->state, &ss);
                escapes += ss.adaptive_escape;
                rechosen += qs.rechosen;
                th_net_free(h);
            }
    ck_assert_uint_gt(escapes, 0);
    ck_assert_uint_gt(rechosen, 0);
}
END_TEST

/* Every credit, VC and packet comes back (an invariant, issue 24's
 * starvation past saturation): the configuration of the BookSim2 tornado
 * comparison (8x8 torus, DOR, wormhole, 1-byte flits and packets, 8-flit
 * VC buffers, 2 dateline classes x 4 VCs) driven past its saturation (about
 * 0.26 flits per node and flit time): every host sends 300 one-byte
 * messages to its tornado partner (each coordinate + 3 mod 8), one every
 * 3 ns (0.33). Afterwards every message has arrived exactly once and,
 * the fabric drained, every output VC's credits plus those on their way
 * equal the buffer depth (8), no output VC is owned, every input VC is
 * empty and idle, no packet is alive (iqr_leaks = 0). The buffers did run
 * out of credit on the way (credit_waits > 0), so the credit path was
 * exercised (the last message arrives at about 3.25 us, 2.3 us after the
 * last was sent). Dropping one credit in credit_back (the first toward a
 * switch after 5000 flits) still delivers every message but makes
 * iqr_leaks 1: only this invariant sees it. */
START_TEST(test_drained_credits_back)
{
    const char *s[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=1B",
                       "network.vc-buffer=8B", "network.vcs=4", "network.switching=wormhole",
                       "network.host-link-latency=0ns", "network.dims=8 8", "network.routing=dor", NULL};
    enum { K = 8, M = 300 };
    net_params core = core_bs(K * K);
    th_net *h = th_net_new("torus", &core, s, NULL, 1, (size_t)K * K * M);
    static net_msg *m[K * K][M];
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t src = 0; src < K * K; src++) {
            uint32_t x = src % K, y = src / K;
            uint32_t dst = (x + 3) % K + K * ((y + 3) % K);
            m[src][i] = th_at_low(h, T0 + (int64_t)i * 3 * NS, src, dst, 1);
        }
    th_net_go(h);
    for (uint32_t src = 0; src < K * K; src++)
        for (uint32_t i = 0; i < M; i++)
            ck_assert_uint_eq(m[src][i]->a, 1);
    iqr_stats st;
    iqr_get_stats(h->n->state, &st);
    ck_assert_uint_gt(st.credit_waits, 0);
    ck_assert_uint_eq(iqr_leaks(h->n->state), 0);
    th_net_free(h);
}
END_TEST

/* network.speedup and the dragonfly's global-link-latency (BookSim2's
 * examples/dragonflyconfig: internal_speedup 2, routing_delay 0, the other
 * stages 1 cycle each = one internal step). Speedup S: the router steps every
 * Tr = T / S; each output's buffer sends one flit per flit time, at
 * flit-time edges (BookSim2's _SendFlits once per cycle), so a flit crossing
 * the crossbar at c goes on the link at the first edge >= c not taken.
 * Dragonfly g = 3, a = 2, p = 1, h = 1 (n = 1): host x on switch x, group
 * x / 2; the slot of group 0 toward group 1 is on its router 0 (switch 0),
 * group 1's toward group 0 on its router 0 (switch 2). So 0 -> 2 is sw0
 * -global- sw2, and 0 -> 3 is sw0 -global- sw2 -local- sw3. T = 1 ns, links
 * 9 ns, global 99 ns, host links 0; rd = 0, va = sa = st = 0.5 ns (Tr),
 * speedup 2; 4-byte messages = F = 4 flits. Times relative to 5 ns.
 * 0 -> 2: the head is whole at sw0 at 1; VC at 1 (known 1.5), switch at 1.5,
 *   leaves at 2, crossbar done 2.5: on the link at the edge 3, whole at sw2
 *   at 3 + 1 + 99 = 103. Flit k (k >= 1) is whole at sw0 at k + 1 and
 *   crosses at k + 1.5: the edges k + 2 are free except k = 1's 3, taken by
 *   the head: flits on the link at 3, 4, 5, 6 (the output buffer holds flit
 *   1 half a flit time). At sw2 the same, 102 later: on the link to host 2
 *   at 105..108, the tail whole there at 108 + 1 + 0 = 109 ns.
 * 0 -> 3: the head leaves sw2 at 105 for sw3 (local): whole at 105 + 1 + 9 =
 *   115, on the link to host 3 at 117, whole 118; the tail 3 later: 121 ns.
 * Formula (iqrouter.c's head with D = 1.5 rounded up to the flit time, 2):
 *   2 (T + 0) + (h - 1)(T + 9) + 2 h + (F - 1) + (99 - 9) per global link:
 *   h = 2: 2 + 10 + 4 + 3 + 90 = 109; h = 3: 2 + 20 + 6 + 3 + 90 = 121.
 * Without global-link-latency every link is 9 ns: 0 -> 3 takes 121 - 90 = 31.
 * Output buffer: two 1-flit messages from hosts 0 and 1 to host 2 on the
 *   one-switch fat tree (1-level, 4-ary), 2 VCs, islip one iteration,
 *   speedup 2, va = sa = st = 0.5, rd = 0: both heads are whole at 1; the
 *   output VCs both grant host 0's input (iSLIP's synchronised pointers,
 *   test_contention_two_inputs), which takes VC 0; host 1 asks again at 1.5
 *   and gets VC 1 (known 2). Host 0: switch at 1.5, leaves 2, crossbar done
 *   2.5, link at 3, whole at host 2 at 4. Host 1: switch at 2, leaves 2.5,
 *   done 3, but the edge 3 is taken: the output buffer holds it to 4,
 *   whole at 5 (two flits never share a flit time on one link). */
START_TEST(test_speedup_global_links)
{
    const char *df[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                        "network.vc-buffer=256B", "network.host-link-latency=0ns", "network.groups=3",
                        "network.routers-per-group=2", "network.hosts-per-router=1", "network.global-links=1",
                        "network.routing-delay=0ns", "network.vc-alloc-delay=0.5ns", "network.sw-alloc-delay=0.5ns",
                        "network.st-delay=0.5ns", "network.credit-delay=3ns", "network.speedup=2",
                        "network.global-link-latency=99ns", NULL};
    net_params core = core_bs(6);
    core.link_latency_ps = 9 * NS;
    int64_t got[3];
    for (int i = 0; i < 3; i++) {
        const char **sets = (const char **)df;
        const char *local[32];
        if (i == 2) { /* every link 9 ns */
            int k = 0;
            for (; df[k]; k++)
                local[k] = df[k];
            local[k - 1] = NULL;
            sets = local;
        }
        th_net *h = th_net_new("dragonfly", &core, sets, NULL, 1, 4);
        net_msg *m = th_at_low(h, T0, 0, i == 0 ? 2 : 3, 4);
        th_net_go(h);
        got[i] = (int64_t)m->b - T0;
        /* the zero-load formula, global links included, agrees with the run */
        ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, i == 0 ? 2 : 3, 4), got[i]);
        th_net_free(h);
    }
    ck_assert_int_eq(got[0], 109 * NS);
    ck_assert_int_eq(got[1], 121 * NS);
    ck_assert_int_eq(got[2], 31 * NS);
    const char *ft[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=1B",
                        "network.vc-buffer=4B", "network.host-link-latency=0ns", "network.arity=4",
                        "network.levels=1", "network.vcs=2", "network.routing-delay=0ns",
                        "network.vc-alloc-delay=0.5ns", "network.sw-alloc-delay=0.5ns", "network.st-delay=0.5ns",
                        "network.speedup=2", NULL};
    net_params c4 = core_bs(4);
    th_net *h = th_net_new("fat-tree", &c4, ft, NULL, 1, 4);
    net_msg *a = th_at_low(h, T0, 0, 2, 1);
    net_msg *b = th_at_low(h, T0, 1, 2, 1);
    th_net_go(h);
    ck_delivered_at(a, T0 + 4 * NS);
    ck_delivered_at(b, T0 + 5 * NS);
    th_net_free(h);
    /* refusals: speedup under the output-queued router, a flit time it does not divide, global links there */
    char err[512];
    const char *oq[] = {"network.speedup=2", "network.dims=4 4", NULL};
    ck_assert_ptr_null(th_net_try("torus", &c4, oq, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "network.speedup"));
    const char *odd[] = {"network.router=input-queued", "network.flit-size=1B", "network.speedup=3",
                         "network.mtu=1B", "network.vc-buffer=4B", "network.dims=4 4", NULL};
    net_params c16 = core_bs(16);
    ck_assert_ptr_null(th_net_try("torus", &c16, odd, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "divisible by the speedup"));
    const char *gq[] = {"network.global-link-latency=99ns", "network.groups=3", "network.routers-per-group=2",
                        "network.hosts-per-router=1", "network.global-links=1", NULL};
    ck_assert_ptr_null(th_net_try("dragonfly", &core, gq, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "network.global-link-latency"));
}
END_TEST

/* Credits at speedup 2 (iqrouter.c's head, "Internal speedup": at most one
 * credit per input port per flit time, at flit-time edges; BookSim2's
 * _SendCredits sends the front Credit of each input's queue once a cycle).
 * One switch (1-level 4-ary fat tree), one VC, cut-through, 2-flit VC
 * buffers, 2-byte packets, T = 1 ns, speedup 2 (steps 0.5 ns), rd = va =
 * sa = st = 0.5 ns, credit-delay 1 ns, host links 0. Host 0 sends 4 bytes
 * to host 2 at 5 ns (times relative to it): packets P and Q of 2 flits;
 * cut-through: the host sends a packet only with credit for both its flits.
 *   P0, P1 leave the host at 0, 1 and are whole at the switch at 1, 2. P0:
 *   routed at 1.5, VC granted at 2 (requested 1.5), switch allocation
 *   requested at 2, leaves its buffer at 2.5, crossbar done 3, on the link
 *   at the edge 3, whole at host 2 at 4. P1: at the front, requests at 2.5
 *   (one step after P0's), leaves at 3, crossbar done 3.5, link at the edge
 *   4, whole at host 2 at 5.
 *   Credits: both flits left input port 0 within the cycle ending at 3.
 *   P0's credit is sent at the edge 3, P1's at the next edge not taken by
 *   that port's credits: 4; at host 0 (+ credit-delay 1) at 4 and 5. Q
 *   leaves at 5 (the first host tick with both credits): Q0 whole at 6,
 *   routed 6.5, VC 7, leaves 7.5, link at 8, at host 2 at 9; Q1 whole at 7,
 *   requests 7.5, leaves 8, link at 9, at host 2 at 10: the message is
 *   delivered at 10 ns.
 *   Without the limit (a credit per flit at leave + credit-delay) the
 *   credits are at the host at 3.5 and 4, Q leaves at 4 and the message is
 *   delivered at 9; with credits at edges but two per edge, at 4 and 4:
 *   also 9. With two VCs Q takes the second VC at 2 and the limit does not
 *   bind (P on VC 0, Q on VC 1: Q0 whole at 3, routed 3.5, VC 4 (P holds
 *   the output VC toward host 2 until its tail is granted at 2.5; VC 1 of
 *   the output is free: granted 4), leaves 4.5, link 5, at host 2 at 6; Q1
 *   whole at 4, leaves 5, crossbar 5.5, link 6, at host 2 at 7). */
START_TEST(test_speedup_credit_per_cycle)
{
    for (int vcs = 1; vcs <= 2; vcs++) {
        const char *s[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=2B",
                           "network.vc-buffer=2B", "network.host-link-latency=0ns", "network.arity=4",
                           "network.levels=1", vcs == 1 ? "network.vcs=1" : "network.vcs=2",
                           "network.routing-delay=0.5ns", "network.vc-alloc-delay=0.5ns",
                           "network.sw-alloc-delay=0.5ns", "network.st-delay=0.5ns", "network.speedup=2",
                           "network.credit-delay=1ns", "network.switching=cut-through", NULL};
        net_params core = core_bs(4);
        th_net *h = th_net_new("fat-tree", &core, s, NULL, 1, 4);
        net_msg *m = th_at_low(h, T0, 0, 2, 4);
        th_net_go(h);
        ck_delivered_at(m, T0 + (vcs == 1 ? 10 : 7) * NS);
        ck_assert_uint_eq(iqr_leaks(h->n->state), 0);
        th_net_free(h);
    }
}
END_TEST

/* ---- links of their own rate (iqrouter.c's head "Links of their own rate") ----
 * A graph fabric H0 - S - T - H1 (and H2 on S, H3 on T; host i is Hi) written to a
 * temporary file; `st` is the attribute of the edges S -> T and T -> S. */
static const char *iq_dot(const char *st)
{
    static char path[128];
    snprintf(path, sizeof path, "/tmp/tasknet-check-iq-%ld.dot", (long)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "digraph g {\n  H0 -> S; S -> H0; H1 -> T; T -> H1;\n  H2 -> S; S -> H2; H3 -> T; T -> H3;\n"
            "  S -> T [%s]; T -> S [%s];\n}\n",
            st, st);
    fclose(f);
    return path;
}

/* A lone packet across a half-rate link, by hand. B = 8 Gb/s, 1-byte
 * flits: T = 1 ns; links 1 ns, host links 0; rd = va = sa = st = 1 ns
 * (D = 4, a body flit's E = sa + st = 2); S -> T at 4 Gb/s: its flit time
 * T_l = 2 ns. A 4-byte packet (F = 4) from H0 (host 0) to H1 (host 1) at
 * 0 (times relative to T0): the host sends flits 0..3 at 0, 1, 2, 3, whole
 * at S at 1, 2, 3, 4. S: the head is routed at 2, wins its VC at 3 and
 * requests the switch then: leaves at 4, first bit on S -> T at 5, the link
 * busy to 7 (lnext = 7), whole at T at 5 + 2 + 1 = 8. Flit 1 asks at 4:
 * its first bit would be ready at 6, and the link is not free before the
 * next tick's 7 (lnext 7 < 4 + 1 + 1 + 1 fails): held; at 5 it goes, on
 * the link at 7, whole at T at 10; flits 2 and 3 likewise at 9 and 11,
 * whole at T at 12 and 14. T: the head (whole at 8) asks the switch at 10,
 * first bit on T -> H1 at 12, whole at H1 at 13; flit 1 (whole at 10) asks
 * at 11 (the tick after the head's grant), on the wire at 13; flit 2 at 12
 * -> 14, flit 3 at 14 -> 16, whole at H1 at 17 ns. Without the slow link:
 * 2 (T + 0) + (T + 1) + 2 D + (F - 1) T = 15 ns (iqrouter.c's head). The
 * zero-load formula (max over stages, iqr_zero_load_route_ps) gives the
 * same 17: m = 1 (the slow link), (1 + 0 + 4) + 3 x 2 + (2 + 1 + 2) + (1 +
 * 0) = 17 (m = 0: 12, m = 2: 16). */
START_TEST(test_link_rate_lone)
{
    char file[200];
    const char *sets[] = {file, "network.routing=shortest", "network.router=input-queued", "network.flit-size=1B",
                          "network.mtu=4B", "network.vc-buffer=8B", "network.host-link-latency=0ns", NULL, NULL};
    /* the graph's own bandwidth attribute */
    snprintf(file, sizeof file, "network.file=%s", iq_dot("bandwidth=\"4Gb/s\""));
    ck_assert_int_eq(alone("graph", 4, sets, 0, 1, 4), 17 * NS);
    /* the same link degraded to 0.5 of the fabric's 8 Gb/s */
    snprintf(file, sizeof file, "network.file=%s", iq_dot("latency=\"1ns\""));
    ck_assert_int_eq(alone("graph", 4, sets, 0, 1, 4), 15 * NS);
    sets[7] = "network.degraded-links=S-T:0.5";
    ck_assert_int_eq(alone("graph", 4, sets, 0, 1, 4), 17 * NS);
    /* on a parametric fabric: the 4x4 torus's host 0 -> 1 (S0 -> S1, one
     * hop) with S0-S1 at 0.5: test_zero_load_pipelines' 15 ns, plus the
     * same 2 ns (the stages are those above) */
    const char *tor[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=4B",
                         "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=4 4",
                         "network.degraded-links=S0-S1:0.5", NULL};
    ck_assert_int_eq(alone("torus", 16, tor, 0, 1, 4), 17 * NS);
    /* H0's own uplink at 0.5 instead (stage 0 slow; S -> T at full rate):
     * the host sends flits at 0, 2, 4, 6 (lnext: one every 2 ns), whole at
     * S at 2, 4, 6, 8. S: the head leaves on the wire at 2 + D = 6, flits
     * 1..3 ask at 5 (the tick after the head's), 6, 8: on the wire at 7, 8,
     * 10, whole at T at 8, 9, 10, 12. T: the head asks at 10, on the wire at
     * 12; flits 1..3 ask at 11, 12, 13, on the wire at 13, 14, 15, the tail
     * whole at H1 at 16 ns. The formula: m = 2 (the last link), (2 + 0 + 4)
     * + (1 + 1 + 4) + 3 x 1 + (1 + 0) = 16 (m = 0: 15, m = 1: 14). */
    sets[7] = "network.degraded-links=H0-S:0.5";
    ck_assert_int_eq(alone("graph", 4, sets, 0, 1, 4), 16 * NS);
    unlink(file + strlen("network.file="));
}
END_TEST

/* Two flows share a degraded link: H0 -> H1 and H2 -> H3, both over S -> T, 16 packets of 4 flits each (64 bytes),
 * handed over at T0; network.vcs = 2 so the two packets on the link
 * interleave flit by flit (one output VC each). The link's rule: it
 * starts a flit T_l after the one before (and a tick may hand it one only
 * if it starts before the next tick). Both flows keep it busy from its
 * first flit (the head as in test_link_rate_lone, on the link at 5 ns) to
 * its 128th: the two hosts inject 2 flits per ns, S's inputs each hold 8
 * flits, and a packet's head (routed and given a VC while the other flow's
 * flits go) is never the only flit ready. So the k-th flit (k from 0)
 * starts at 5 + k T_l, the last at 5 + 127 T_l, whole at T T_l + 1 later,
 * read at T's next tick, on T -> H at once (a body flit: E = 2), whole at
 * its host 1 ns later (T + host link 0):
 *   f = 0.5 (T_l = 2 ns):   5 + 254 = 259, + 2 + 1 = 262, + 2 + 1 = 265 ns;
 *   f = 0.4 (T_l = 2.5 ns): 5 + 317.5 = 322.5, + 2.5 + 1 = 326 (a tick),
 *                           + 3 = 329 ns.
 * Each flow gets half the link: both flows' last messages are delivered
 * within one packet's time on the link (4 T_l) of each other, and the link
 * sent 0.4 flit per ns (f = 0.4): not the 1/3 a link that waited for
 * whole ticks (ceil(T_l / T) = 3) would give. */
START_TEST(test_link_rate_shared)
{
    static const char *const fs[] = {"network.degraded-links=S-T:0.5", "network.degraded-links=S-T:0.4"};
    static const int64_t want[] = {265 * NS, 329 * NS};
    static const int64_t Tl[] = {2 * NS, 2500};
    for (int k = 0; k < 2; k++) {
        net_params core = core_bs(4);
        char file[200];
        snprintf(file, sizeof file, "network.file=%s", iq_dot("latency=\"1ns\""));
        const char *sets[] = {file,          "network.routing=shortest",       "network.router=input-queued",
                              "network.flit-size=1B", "network.mtu=4B",        "network.vc-buffer=8B",
                              "network.vcs=2", "network.host-link-latency=0ns", fs[k],
                              NULL};
        th_net *h = th_net_new("graph", &core, sets, NULL, 1, 64);
        net_msg *a[16], *b[16];
        for (int i = 0; i < 16; i++) {
            a[i] = th_at_low(h, T0, 0, 1, 4);
            b[i] = th_at_low(h, T0, 2, 3, 4);
        }
        th_net_go(h);
        int64_t la = 0, lb = 0;
        for (int i = 0; i < 16; i++) {
            ck_assert_uint_eq(a[i]->a, 1);
            ck_assert_uint_eq(b[i]->a, 1);
            if ((int64_t)a[i]->b > la)
                la = (int64_t)a[i]->b;
            if ((int64_t)b[i]->b > lb)
                lb = (int64_t)b[i]->b;
        }
        int64_t last = la > lb ? la : lb, first = la > lb ? lb : la;
        ck_assert_int_eq(last - T0, want[k]);
        ck_assert_int_le(last - first, 4 * Tl[k]);
        ck_assert_uint_eq(iqr_leaks((const swnet *)h->n->state), 0);
        th_net_free(h);
        unlink(file + strlen("network.file="));
    }
}
END_TEST

/* The output-queued and the input-queued router agree on what a degraded
 * link adds to a lone packet when the input-queued head pays nothing a
 * body flit does not (routing-delay = vc-alloc-delay = 0, so D = E): its
 * flits then cross every router as one pipeline whose slowest stage is the
 * degraded link, and it pays that link's extra flit time once per flit,
 * F (T / f - T); the output-queued router streams the packet at its
 * slowest link's rate (swnet.c's head), paying b 8 / (f B) - b 8 / B more
 * there. With b = F flits of f bytes both are b 8 / B (1 / f - 1): for 4
 * bytes at 8 Gb/s, f = 0.5: 4 ns; f = 0.25: 12 ns. (With rd + va > 0 the
 * input-queued router adds less: the body catches up with a head that is
 * being routed at the next switch, test_link_rate_lone's 2 ns.) */
START_TEST(test_link_rate_oq_agrees)
{
    static const char *const fs[] = {NULL, "network.degraded-links=S-T:0.5", "network.degraded-links=S-T:0.25"};
    int64_t oq[3], iq[3];
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 2; r++) {
            char file[200];
            snprintf(file, sizeof file, "network.file=%s", iq_dot("latency=\"1ns\""));
            const char *sets[] = {file, "network.routing=shortest", "network.mtu=4B", fs[k], NULL, NULL, NULL,
                                  NULL, NULL, NULL, NULL};
            int n = fs[k] ? 4 : 3;
            if (r) {
                sets[n++] = "network.router=input-queued";
                sets[n++] = "network.flit-size=1B";
                sets[n++] = "network.vc-buffer=8B";
                sets[n++] = "network.routing-delay=0ns";
                sets[n++] = "network.vc-alloc-delay=0ns";
            }
            (r ? iq : oq)[k] = alone("graph", 4, sets, 0, 1, 4);
            unlink(file + strlen("network.file="));
        }
    ck_assert_int_eq(oq[1] - oq[0], 4 * NS);
    ck_assert_int_eq(iq[1] - iq[0], 4 * NS);
    ck_assert_int_eq(oq[2] - oq[0], 12 * NS);
    ck_assert_int_eq(iq[2] - iq[0], 12 * NS);
}
END_TEST

/* Refusals with reasons. */
START_TEST(test_refusals)
{
    net_params core = core_bs(16);
    char err[512];
    const char *inf[] = {"network.router=input-queued", "network.flow-control=infinite", "network.dims=4 4", NULL};
    ck_assert_ptr_null(th_net_try("torus", &core, inf, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "credit flow control"));
    const char *ct[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=16B",
                        "network.vc-buffer=8B", "network.dims=4 4", NULL};
    ck_assert_ptr_null(th_net_try("torus", &core, ct, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "cut-through needs a whole packet"));
    const char *oq[] = {"network.vcs=2", "network.dims=4 4", NULL};
    ck_assert_ptr_null(th_net_try("torus", &core, oq, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "network.vcs"));
    /* every delay a credit takes at 0 (the review's 4x4 torus): a credit would be used in the flit time that
     * freed it and an output could send two flits in one flit time; one positive delay is enough */
    net_params z = core;
    z.link_latency_ps = 0;
    const char *zero[] = {"network.router=input-queued", "network.sw-alloc-delay=0ns", "network.credit-delay=0ns",
                          "network.host-link-latency=0ns", "network.dims=4 4", NULL};
    ck_assert_ptr_null(th_net_try("torus", &z, zero, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "in the flit time that freed it"));
    const char *one[] = {"network.router=input-queued", "network.sw-alloc-delay=0ns", "network.credit-delay=1ns",
                         "network.host-link-latency=0ns", "network.dims=4 4", NULL};
    th_net *ok = th_net_try("torus", &z, one, NULL, 1, 4, err, sizeof err);
    ck_assert_msg(ok != NULL, "%s", err);
    th_net_free(ok);
    /* the dragonfly's links between groups are links too: global-link-latency 0 with both delays 0 (links
     * inside groups 1 ns) is refused (it once ran for ever: bench/iqr-diff.sh seed 2 configuration 286);
     * at 1 ns it runs */
    net_params d = core_bs(8);
    const char *gl0[] = {"network.router=input-queued", "network.sw-alloc-delay=0ns", "network.credit-delay=0ns",
                         "network.global-link-latency=0ns", "network.groups=2", "network.routers-per-group=2",
                         "network.hosts-per-router=2", "network.global-links=1", NULL};
    ck_assert_ptr_null(th_net_try("dragonfly", &d, gl0, NULL, 1, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "in the flit time that freed it"));
    const char *gl1[] = {"network.router=input-queued", "network.sw-alloc-delay=0ns", "network.credit-delay=0ns",
                         "network.global-link-latency=1ns", "network.groups=2", "network.routers-per-group=2",
                         "network.hosts-per-router=2", "network.global-links=1", NULL};
    ok = th_net_try("dragonfly", &d, gl1, NULL, 1, 4, err, sizeof err);
    ck_assert_msg(ok != NULL, "%s", err);
    th_net_free(ok);
}
END_TEST

/* A message handed to a host with no packet on its uplink leaves at the
 * host's first flit time from then at which an injection VC has credit for
 * it (iqrouter.c's head, "Sources"), whatever tick the host has pending
 * later. One switch of 4 hosts (a 1-level 4-ary fat tree), 1-B flits at 8
 * Gb/s (T = 1 ns), host links 0, rd = va = sa = st = 1 ns (D = 4 ns),
 * credit-delay 20 ns, wormhole, 1-flit VC buffers; zero load 2 T + D = 6 ns.
 *   stale: 2 VCs (injection into either). W2 (host 2 -> 1, 4 B: 4 flits)
 *   at 0 and W3 (host 3 -> 1, 4 B) at 1 take host 1's two output VCs at 2
 *   and 3 (VC allocation of heads whole at 1 and 2, routed 1 later) and
 *   hold them until their tails cross: a flit granted at g leaves at g + 1,
 *   its credit is at its host at g + 21, which sends the next flit then,
 *   whole at g + 22 and granted at once (a body flit): W2's flits at 3, 25,
 *   47, 69, W3's at 4, 26, 48, 70.
 *   Host 0: X (1 B -> 2) at 0 on VC 0 (granted at 3, its credit back at
 *   24); Y (1 B -> 1) at 5 on VC 1 (the round robin's next), whole at 6, it
 *   asks for an output VC from 7 on and loses until 70 (W2's tail crosses
 *   in the switch allocation after 69's VC allocation): granted at 70, it
 *   crosses at 71, its credit back at 92. Z (1 B -> 2) at 6: neither VC has
 *   a credit, X's is on its way (24), Y's not yet: the host waits on VC 1
 *   (iq_ovc.waiting) and ticks at 24, sends Z on VC 0 then (credit back at
 *   48), and has nothing left: its flag on VC 1 is stale. Y's grant at 71
 *   wakes the host for 92.
 *   P (1 B, host 0 -> 3) at 80: the host is idle, VC 1 has no credit (92),
 *   VC 0 has: P leaves at 80 and arrives at 86 (not at 92 + 6 = 98, the
 *   stale tick's). The same P at 70.5 leaves at 71 and arrives at 77: the
 *   general tick grants Y's switch allocation at 71, so the host is idle
 *   with no tick pending at 70.5; the express switch allocation decides
 *   it at 70 (the switch has nothing else to do by 71), and its credit,
 *   sent then, woke the host for 92 at 70 already (P came at 98 then, under
 *   the express alone: sa_express, not only express_clear).
 *   per-class: host-scheduling priority, one VC per class (vc-map
 *   per-class). Host 0: A (class 0, 2 B -> 2: 2 one-flit packets, mtu 1 B)
 *   at 0: its first packet at 0 (granted at 3, credit back at 24); the
 *   second finds no credit (not yet on its way): the host waits on class
 *   0's VC, woken by the grant at 3 for 24. B (class 1, 1 B -> 3) at 10:
 *   class 1's VC has its credit ("a class out of credit blocks no other"):
 *   B leaves at 10 and arrives at 16 (not at 24 + 6, the pending tick's);
 *   A's second packet leaves at 24 and arrives at 30. */
START_TEST(test_host_tick_pending)
{
    const char *stale[] = {"network.router=input-queued", "network.arity=4", "network.levels=1",
                           "network.flit-size=1B", "network.mtu=4B", "network.vc-buffer=1B",
                           "network.switching=wormhole", "network.host-link-latency=0ns", "network.vcs=2",
                           "network.routing-delay=1ns", "network.vc-alloc-delay=1ns", "network.sw-alloc-delay=1ns",
                           "network.st-delay=1ns", "network.credit-delay=20ns", NULL};
    const char *cls[] = {"network.router=input-queued", "network.arity=4", "network.levels=1",
                         "network.flit-size=1B", "network.mtu=1B", "network.vc-buffer=1B",
                         "network.switching=wormhole", "network.host-link-latency=0ns", "network.vcs=1",
                         "network.host-scheduling=priority", "network.vc-map=per-class",
                         "network.routing-delay=1ns", "network.vc-alloc-delay=1ns", "network.sw-alloc-delay=1ns",
                         "network.st-delay=1ns", "network.credit-delay=20ns", NULL};
    for (int general = 0; general < 3; general++) {
        net_params core = core_bs(4);
        th_net *h;
        for (int late = 0; late < 2; late++) {
            h = th_net_new("fat-tree", &core, stale, NULL, 1, 8);
            if (general == 1)
                iqr_no_lean(h->n->state);
            if (general == 2)
                iqr_no_express(h->n->state);
            net_msg *w2 = th_at_low(h, 0, 2, 1, 4);
            net_msg *w3 = th_at_low(h, 1 * NS, 3, 1, 4);
            net_msg *x = th_at_low(h, 0, 0, 2, 1);
            net_msg *y = th_at_low(h, 5 * NS, 0, 1, 1);
            net_msg *z = th_at_low(h, 6 * NS, 0, 2, 1);
            net_msg *p = th_at_low(h, late ? 80 * NS : 70 * NS + 500, 0, 3, 1);
            th_net_go(h);
            ck_delivered_at(x, 6 * NS);
            ck_delivered_at(w2, 72 * NS); /* its tail granted at 69: 69 + sa + st + T */
            ck_delivered_at(w3, 73 * NS);
            ck_delivered_at(y, 74 * NS);
            ck_delivered_at(z, 30 * NS);
            ck_delivered_at(p, late ? 86 * NS : 77 * NS);
            th_net_free(h);
        }

        h = th_net_new("fat-tree", &core, cls, NULL, 1, 8);
        if (general == 1)
            iqr_no_lean(h->n->state);
        if (general == 2)
            iqr_no_express(h->n->state);
        net_msg *a = th_at(h, 0, 0, 2, 2, 0, NET_DATA);
        net_msg *b = th_at(h, 10 * NS, 0, 3, 1, 1, NET_DATA);
        th_net_go(h);
        ck_delivered_at(b, 16 * NS);
        ck_delivered_at(a, 30 * NS);
        th_net_free(h);
    }
}
END_TEST

/* Same-time deliveries go into the engine as one event (ev_step,
 * ev_deliver_lane) that counts as one event per delivery
 * (sim_count_events, runs.csv's events): the same traffic with every
 * delivery an event of its own through the heap (the fabric given no lane,
 * th_lanes_taken) delivers every message at the same picosecond in the same
 * order and counts the same events. Random 1-3 packet messages on a 4x4
 * torus, handed over on the flit grid: many deliveries share a time. */
START_TEST(test_delivery_batch_events)
{
    const char *sets[] = {"network.router=input-queued", "network.flit-size=1B", "network.mtu=1B",
                          "network.vc-buffer=8B", "network.host-link-latency=0ns", "network.dims=4 4", NULL};
    enum { M = 400 };
    static uint64_t id[2][M];
    static int64_t t[2][M];
    uint64_t events[2];
    for (int heap = 0; heap < 2; heap++) {
        net_params core = core_bs(16);
        th_lanes_taken = heap ? EVQ_MAX_LANES : 0;
        th_net *h = th_net_new("torus", &core, sets, NULL, 1, M);
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(g, 7);
        for (int i = 0; i < M; i++) {
            uint32_t a = (uint32_t)gsl_rng_uniform_int(g, 16);
            uint32_t b = (a + 1 + (uint32_t)gsl_rng_uniform_int(g, 15)) % 16;
            int64_t at = (int64_t)gsl_rng_uniform_int(g, 100) * NS;
            th_at_low(h, at, a, b, 1 + gsl_rng_uniform_int(g, 3));
        }
        gsl_rng_free(g);
        events[heap] = th_net_go(h);
        ck_assert_uint_eq(h->nrec, M);
        memcpy(id[heap], h->id, sizeof id[heap]);
        memcpy(t[heap], h->t_ps, sizeof t[heap]);
        th_net_free(h);
    }
    unsigned shared = 0; /* deliveries at the time of the one before */
    for (int i = 0; i < M; i++) {
        ck_assert_uint_eq(id[0][i], id[1][i]);
        ck_assert_int_eq(t[0][i], t[1][i]);
        shared += i > 0 && t[0][i] == t[0][i - 1];
    }
    ck_assert_uint_ge(shared, M / 4); /* (the batches this test is about) */
    ck_assert_uint_eq(events[0], events[1]);
}
END_TEST

/* ---- the lean tick and the express switch allocation against the general tick ----
 * Random input-queued configurations (iqr_diff_cfg): every switched
 * topology and one switch (a 1-level fat tree of 2-8 hosts: the
 * electrical-switch's input-queued router is the same core), each topology's routings, 1-8 VCs,
 * wormhole and cut-through, flits of 1-64 B and packets of 1-24 flits,
 * buffers from a flit to 4 packets, pipeline delays 0-5 ns (on the flit
 * grid or not), host and fabric links of 0-100 ns, speedup 1 or 2, both
 * allocators, the host schedulings with priority classes (per-class and
 * shared VCs, strict or not); random traffic (iqr_diff_traffic): messages
 * of 1 B to 3 packets, uniform, permutation, hotspot, neighbour,
 * complement and all-to-one destinations, handed over at loads from 5 %
 * of the hosts' bandwidth to 3 x past it, at any picosecond or on the flit
 * grid. Each runs three ways: as configured (the lean copy where it is
 * chosen, the express), the general tick with the express (iqr_no_lean),
 * and the general tick at every step (iqr_no_express). The express and the
 * lean copy must make exactly the general tick's decisions: every message
 * delivered once, at the same picosecond all three ways. */
typedef struct {
    const char *name;
    uint32_t N;
    double bps;
    int64_t link, swlat;   /* the core's link-latency, switch-latency */
    uint64_t mtu;
    int classes;           /* messages carry priority classes 0..2 */
    char s[24][64];
    const char *sets[25];
} iqr_diff_cfg;

static void diff_set(iqr_diff_cfg *c, unsigned *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void diff_set(iqr_diff_cfg *c, unsigned *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->s[*n], sizeof c->s[*n], fmt, ap);
    va_end(ap);
    c->sets[*n] = c->s[*n];
    (*n)++;
    c->sets[*n] = NULL;
}

#define PICK(g, a) ((a)[gsl_rng_uniform_int((g), sizeof(a) / sizeof((a)[0]))])

static void iqr_diff_cfg_draw(gsl_rng *g, iqr_diff_cfg *c)
{
    unsigned n = 0;
    memset(c, 0, sizeof *c);
    diff_set(c, &n, "network.router=input-queued");
    switch (gsl_rng_uniform_int(g, 5)) {
    case 0: {
        static const char *const dims[] = {"2 2", "3 3", "4 4", "4 2", "2 3 2", "4 2 2", "6", "3 4"};
        static const uint32_t hosts[] = {4, 9, 16, 8, 12, 16, 6, 12};
        unsigned k = (unsigned)gsl_rng_uniform_int(g, 8);
        c->name = "torus";
        c->N = hosts[k];
        diff_set(c, &n, "network.dims=%s", dims[k]);
        diff_set(c, &n, "network.routing=%s", PICK(g, ((const char *[]){"dor", "dor", "adaptive", "valiant", "romm"})));
        break;
    }
    case 1: {
        static const uint32_t ar[] = {2, 3, 4, 2, 3, 2, 4};
        static const uint32_t lv[] = {1, 1, 1, 2, 2, 3, 2};
        unsigned k = (unsigned)gsl_rng_uniform_int(g, 7);
        c->name = "fat-tree";
        c->N = 1;
        for (uint32_t i = 0; i < lv[k]; i++)
            c->N *= ar[k];
        diff_set(c, &n, "network.arity=%u", ar[k]);
        diff_set(c, &n, "network.levels=%u", lv[k]);
        diff_set(c, &n, "network.routing=%s", PICK(g, ((const char *[]){"d-mod-k", "random-up", "anca"})));
        break;
    }
    case 2: {
        uint32_t L = 2 + (uint32_t)gsl_rng_uniform_int(g, 3), S = 1 + (uint32_t)gsl_rng_uniform_int(g, 3),
                 H = 1 + (uint32_t)gsl_rng_uniform_int(g, 4);
        c->name = "leaf-spine";
        c->N = L * H;
        diff_set(c, &n, "network.leaves=%u", L);
        diff_set(c, &n, "network.spines=%u", S);
        diff_set(c, &n, "network.hosts-per-leaf=%u", H);
        diff_set(c, &n, "network.routing=%s", PICK(g, ((const char *[]){"ecmp", "d-mod-k"})));
        break;
    }
    case 3: {
        static const uint32_t G[] = {3, 3, 2, 5, 4}, R[] = {2, 3, 2, 2, 3}, H[] = {1, 2, 2, 1, 1}, GL[] = {1, 2, 1, 2, 1};
        unsigned k = (unsigned)gsl_rng_uniform_int(g, 5);
        c->name = "dragonfly";
        c->N = G[k] * R[k] * H[k];
        diff_set(c, &n, "network.groups=%u", G[k]);
        diff_set(c, &n, "network.routers-per-group=%u", R[k]);
        diff_set(c, &n, "network.hosts-per-router=%u", H[k]);
        diff_set(c, &n, "network.global-links=%u", GL[k]);
        diff_set(c, &n, "network.routing=%s", PICK(g, ((const char *[]){"minimal", "valiant", "ugal"})));
        if (gsl_rng_uniform(g) < 0.5)
            diff_set(c, &n, "network.global-link-latency=%uns", PICK(g, ((const unsigned[]){0, 3, 20})));
        break;
    }
    default: /* one switch (the electrical-switch's input-queued router is this core on this topology) */
        c->name = "fat-tree";
        c->N = 2 + (uint32_t)gsl_rng_uniform_int(g, 7);
        diff_set(c, &n, "network.arity=%u", c->N);
        diff_set(c, &n, "network.levels=1");
        break;
    }
    c->bps = PICK(g, ((const double[]){8e9, 8e9, 10e9, 100e9}));
    c->link = PICK(g, ((const int64_t[]){0, 1 * NS, 1 * NS, 5 * NS, 10 * NS, 100 * NS}));
    uint64_t flit = PICK(g, ((const uint64_t[]){1, 1, 4, 8, 16, 64}));
    uint64_t F = 1 + gsl_rng_uniform_int(g, 24);
    c->mtu = F * flit - (F > 1 && gsl_rng_uniform(g) < 0.3 ? gsl_rng_uniform_int(g, flit) : 0);
    int wormhole = gsl_rng_uniform(g) < 0.5;
    diff_set(c, &n, "network.flit-size=%lluB", (unsigned long long)flit);
    diff_set(c, &n, "network.mtu=%lluB", (unsigned long long)c->mtu);
    diff_set(c, &n, "network.switching=%s", wormhole ? "wormhole" : "cut-through");
    uint64_t depth = wormhole && gsl_rng_uniform(g) < 0.5 ? 1 + gsl_rng_uniform_int(g, 2 * F)
                                                          : F * PICK(g, ((const uint64_t[]){1, 2, 4}));
    diff_set(c, &n, "network.vc-buffer=%lluB", (unsigned long long)(depth * flit));
    diff_set(c, &n, "network.vcs=%u", 1 + (unsigned)gsl_rng_uniform_int(g, 8));
    if (gsl_rng_uniform(g) < 0.5)
        diff_set(c, &n, "network.allocator=%s", PICK(g, ((const char *[]){"islip", "separable-input-first"})));
    diff_set(c, &n, "network.allocator-iterations=%u", 1 + (unsigned)gsl_rng_uniform_int(g, 2));
    /* pipeline delays: whole flit times at 8 Gb/s and 1-B flits, any ps otherwise */
    static const char *const dl[] = {"0ns", "0ns", "1ns", "1ns", "2ns", "5ns", "0.5ns", "1.3ns", "3ns"};
    diff_set(c, &n, "network.routing-delay=%s", PICK(g, dl));
    diff_set(c, &n, "network.vc-alloc-delay=%s", PICK(g, ((const char *[]){"1ns", "1ns", "2ns", "3ns", "0.5ns", "0ns"})));
    diff_set(c, &n, "network.sw-alloc-delay=%s", PICK(g, ((const char *[]){"1ns", "1ns", "2ns", "0ns", "0.5ns"})));
    diff_set(c, &n, "network.st-delay=%s", PICK(g, dl));
    diff_set(c, &n, "network.credit-delay=%s", PICK(g, dl));
    diff_set(c, &n, "network.host-link-latency=%s", PICK(g, ((const char *[]){"0ns", "1ns", "5ns", "10ns", "10ns", "0.7ns"})));
    c->swlat = gsl_rng_uniform(g) < 0.2 ? PICK(g, ((const int64_t[]){2 * NS, 30 * NS})) : 0;
    if (gsl_rng_uniform(g) < 0.15)
        diff_set(c, &n, "network.speedup=2");
    switch (gsl_rng_uniform_int(g, 5)) {
    case 0:
        diff_set(c, &n, "network.host-scheduling=round-robin");
        break;
    case 1:
    case 2:
        c->classes = 1;
        diff_set(c, &n, "network.host-scheduling=priority");
        diff_set(c, &n, "network.vc-map=%s", PICK(g, ((const char *[]){"per-class", "shared"})));
        diff_set(c, &n, "network.priority=%s", PICK(g, ((const char *[]){"default", "fifo", "strict"})));
        break;
    default:
        break; /* fifo */
    }
}

/* M messages on c's hosts: destinations by one of six patterns, sizes of 1 B
 * to 3 packets, at a load of 5 % to 300 % of the hosts' bandwidth */
typedef struct {
    uint32_t src, dst;
    uint64_t bytes;
    int64_t t;
    uint8_t prio;
} iqr_diff_msg;

static void iqr_diff_traffic(gsl_rng *g, const iqr_diff_cfg *c, iqr_diff_msg *m, unsigned M)
{
    uint32_t N = c->N, perm[64];
    for (uint32_t i = 0; i < N; i++)
        perm[i] = i;
    for (uint32_t i = N - 1; i > 0; i--) {
        uint32_t j = (uint32_t)gsl_rng_uniform_int(g, i + 1), x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    unsigned pattern = (unsigned)gsl_rng_uniform_int(g, 6);
    uint64_t maxb = c->mtu * (1 + gsl_rng_uniform_int(g, 3));
    double load = PICK(g, ((const double[]){0.05, 0.3, 0.6, 0.9, 1.2, 3.0}));
    int grid = gsl_rng_uniform(g) < 0.3;
    uint64_t total = 0;
    for (unsigned k = 0; k < M; k++) {
        uint32_t s = (uint32_t)gsl_rng_uniform_int(g, N), d;
        switch (pattern) {
        case 0: d = (uint32_t)gsl_rng_uniform_int(g, N - 1); d += d >= s; break;
        case 1: d = perm[s]; break;
        case 2: d = gsl_rng_uniform(g) < 0.5 ? 0 : (uint32_t)gsl_rng_uniform_int(g, N); break;
        case 3: d = (s + 1) % N; break;
        case 4: d = N - 1 - s; break;
        default: d = 0; break;
        }
        if (d == s)
            d = (s + 1) % N;
        m[k] = (iqr_diff_msg){.src = s, .dst = d, .bytes = 1 + gsl_rng_uniform_int(g, maxb),
                              .prio = c->classes ? (uint8_t)gsl_rng_uniform_int(g, 3) : NET_PRIO_LOW};
        total += m[k].bytes;
    }
    /* the window that offers `load` of the hosts' bandwidth */
    double span = (double)total * 8 / c->bps / N / load * 1e12 + 1;
    int64_t T = (int64_t)(8e12 / c->bps); /* 1 B's time: 1-B flits' grid at 8 Gb/s */
    for (unsigned k = 0; k < M; k++) {
        int64_t t = (int64_t)(gsl_rng_uniform(g) * span);
        m[k].t = grid ? t / T * T : t;
    }
}

/* Configuration k of seed `seed` three ways; 0 when refused (not counted),
 * 1 when all agree; a difference fails the test with the configuration. */
static int iqr_diff_one(uint64_t seed, unsigned k, unsigned M, unsigned *stuck)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, (unsigned long)(seed * 100003 + k));
    iqr_diff_cfg c;
    iqr_diff_cfg_draw(g, &c);
    iqr_diff_msg *msg = malloc(M * sizeof *msg);
    iqr_diff_traffic(g, &c, msg, M);
    gsl_rng_free(g);
    if (getenv("IQR_DIFF_VERBOSE")) {
        printf("seed %llu config %u: %s, %u hosts, %g b/s, link %lld ps, switch %lld ps:", (unsigned long long)seed,
               k, c.name, c.N, c.bps, (long long)c.link, (long long)c.swlat);
        for (unsigned j = 0; c.sets[j]; j++)
            printf(" %s", c.sets[j]);
        printf("\n");
        fflush(stdout);
    }
    int64_t *t[3], end = 0;
    double bytes = 0;
    for (unsigned i = 0; i < M; i++) {
        end = msg[i].t > end ? msg[i].t : end;
        bytes += (double)msg[i].bytes;
    }
    /* past the last delivery of every run that is not stuck: the traffic
     * through one host link 200 times over after the last hand-over
     * (all-to-one at a 1-flit buffer's pace over 100-ns links; a stuck run
     * steps to it: about 200 steps a flit) */
    end += (int64_t)(200 * bytes * 8 / c.bps * 1e12) + 200000 * NS;
    int ok = 1;
    for (int mode = 0; mode < 3 && ok; mode++) {
        net_params core = th_star(c.N, c.bps);
        core.link_latency_ps = c.link;
        core.switch_latency_ps = c.swlat;
        char err[1024];
        th_net *h = th_net_try(c.name, &core, c.sets, NULL, 1 + k, M, err, sizeof err);
        if (!h) { /* refused (the same all three ways) */
            ck_assert_int_eq(mode, 0);
            ok = 0;
            break;
        }
        if (mode == 1)
            iqr_no_lean(h->n->state);
        if (mode == 2)
            iqr_no_express(h->n->state);
        net_msg **m = malloc(M * sizeof *m);
        for (unsigned i = 0; i < M; i++)
            m[i] = th_at(h, msg[i].t, msg[i].src, msg[i].dst, msg[i].bytes, msg[i].prio, NET_DATA);
        /* up to a time limit: a configuration whose fabric is stuck past it
         * (a deadlock: counted in *stuck) must be stuck the same all three ways */
        sim_run(h->s, end);
        t[mode] = malloc(M * sizeof *t[mode]);
        unsigned lost = 0;
        for (unsigned i = 0; i < M; i++) {
            ck_assert_msg(m[i]->a <= 1, "seed %llu config %u: message %u delivered %u times",
                          (unsigned long long)seed, k, i, (unsigned)m[i]->a);
            t[mode][i] = m[i]->a ? (int64_t)m[i]->b : -1;
            lost += !m[i]->a;
        }
        if (!lost)
            ck_assert_uint_eq(iqr_leaks(h->n->state), 0);
        else if (mode == 0) {
            (*stuck)++;
            if (getenv("IQR_DIFF_VERBOSE"))
                printf("  stuck: %u of %u messages not delivered\n", lost, M);
        }
        free(m);
        th_net_free(h);
    }
    if (ok)
        for (unsigned i = 0; i < M; i++)
            if (t[0][i] != t[2][i] || t[1][i] != t[2][i]) {
                char desc[2048] = "";
                for (unsigned j = 0; c.sets[j]; j++)
                    snprintf(desc + strlen(desc), sizeof desc - strlen(desc), " %s", c.sets[j]);
                ck_abort_msg("seed %llu config %u (%s, %u hosts, %g b/s, link %lld ps:%s): message %u (%u -> %u, "
                             "%llu B at %lld ps) delivered at %lld ps as configured, %lld without the lean copy, "
                             "%lld without the express",
                             (unsigned long long)seed, k, c.name, c.N, c.bps, (long long)c.link, desc, i, msg[i].src,
                             msg[i].dst, (unsigned long long)msg[i].bytes, (long long)msg[i].t, (long long)t[0][i],
                             (long long)t[1][i], (long long)t[2][i]);
            }
    if (ok)
        for (int mode = 0; mode < 3; mode++)
            free(t[mode]);
    free(msg);
    return ok;
}

static unsigned env_or(const char *name, unsigned def)
{
    const char *v = getenv(name);
    return v && *v ? (unsigned)strtoul(v, NULL, 10) : def;
}

/* IQR_DIFF_SEED, IQR_DIFF_CONFIGS, IQR_DIFF_MESSAGES (IQR_DIFF_FIRST,
 * IQR_DIFF_VERBOSE): a longer sweep (bench/iqr-diff.sh); by default 80
 * configurations of 300 messages, of which the fabrics accept most (at
 * least half), and four that once differed */
START_TEST(test_express_matches_general)
{
    unsigned seed = env_or("IQR_DIFF_SEED", 1), n = env_or("IQR_DIFF_CONFIGS", 80),
             M = env_or("IQR_DIFF_MESSAGES", 300), run = 0, stuck = 0, k0 = env_or("IQR_DIFF_FIRST", 0);
    for (unsigned k = k0; k < n; k++)
        run += (unsigned)iqr_diff_one(seed, k, M, &stuck);
    ck_assert_uint_ge(2 * run, n - k0);
    /* configurations of 600 messages where the express (sa_express, not
     * only express_clear's wider one) once differed (a host woken early by
     * the credit it sends: iqr_send, credit_back) */
    static const unsigned once[][2] = {{1, 418}, {3, 190}, {4, 165}, {5, 289}};
    if (!getenv("IQR_DIFF_CONFIGS"))
        for (unsigned i = 0; i < sizeof once / sizeof once[0]; i++)
            ck_assert_int_eq(iqr_diff_one(once[i][0], once[i][1], 600, &stuck), 1);
    if (getenv("IQR_DIFF_CONFIGS"))
        printf("seed %u: %u of %u configurations run three ways (%u stuck), every delivery the same\n", seed, run,
               n - k0, stuck);
}
END_TEST

/* The no-progress watchdog (iqrouter.c "Watchdog") on a genuine routing
 * deadlock. A ring of five switches A..E with a host each (check_graph.c's
 * RING5): shortest routing sends every host's messages to the host two
 * switches on clockwise (Ha -> Hc over A -> B -> C, ...), so its channel
 * dependencies AB -> BC -> CD -> DE -> EA -> AB close a cycle; the graph
 * refuses that routing under credit flow control (net_graph.c), so the
 * fabric is built with up-down on the same file and its topology then
 * swapped for the shortest one (the same nodes, ports and links; the route
 * table fills on first use). One VC, wormhole, 2-flit buffers, 16-flit
 * packets: every host's first packet takes its first output VC and fills
 * the 2-flit buffer ahead, whose owner waits for the next one: no flit
 * moves again and nothing is delivered. The bound by hand (1-byte flits at
 * 8 Gb/s: T = 1 ns; V = 1, depth 2; links and host links 1 ns; rd = va =
 * sa = st = 1 ns, credit-delay 0, switch-latency 0): the loop is
 *   2 V depth Tmax + 2 Lmax + rd + va + sa + st + cd + 4 T
 *   = 4 + 2 + 4 + 0 + 4 = 14 ns, the bound 64 x 14 = 896 ns;
 * the fabric looks every 896 / 4 = 224 ns, so the run stops at most 896 +
 * 224 ns after the last move, which comes before 5 + 2 x 16 + 2 x 16 ns
 * (every packet left its host and crossed its first switch by then). */
START_TEST(test_deadlock_watchdog)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/tasknet-check-iq-ring-%ld.dot", (long)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "graph ring {\n  Ha -- A; Hb -- B; Hc -- C; Hd -- D; He -- E;\n"
               "  A -- B; B -- C; C -- D; D -- E; E -- A;\n}\n");
    fclose(f);
    char file[200];
    snprintf(file, sizeof file, "network.file=%s", path);
    net_params core = core_bs(5);
    const char *sets[] = {file, "network.routing=up-down", "network.router=input-queued", "network.flit-size=1B",
                          "network.mtu=16B", "network.vc-buffer=2B", "network.vcs=1", "network.switching=wormhole",
                          "network.credit-delay=0ns", NULL};
    th_net *h = th_net_new("graph", &core, sets, NULL, 1, 64);
    swnet *st = h->n->state;
    topo t2;
    char err[1024];
    topo_graph_params gp = {.path = path, .routing = TOPO_GRAPH_SHORTEST};
    ck_assert_msg(topo_graph_init(&t2, &gp, err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_nonnull(topo_graph_cycle(&t2)); /* the routing can deadlock */
    ck_assert_uint_eq(t2.links, st->t.links);
    topo_free(&st->t);
    st->t = t2;
    net_msg *m[5][4];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 5; i++)
            m[i][k] = th_at_low(h, T0, (uint32_t)i, (uint32_t)(i + 2) % 5, 64);
    uint64_t ev = th_net_go(h);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 5; i++)
            ck_assert_uint_eq(m[i][k]->a, 0);
    ck_assert_uint_eq(st->st.live_packets, 5);
    /* stopped, and soon: by the bound after the last move */
    ck_assert_int_le(sim_now(h->s), T0 + 64 * NS + 896 * NS + 224 * NS);
    ck_assert_uint_lt(ev, 2000);
    const char *fault = h->n->fault;
    ck_assert_ptr_nonnull(fault);
    ck_assert_msg(strstr(fault, "deadlocked") && strstr(fault, "with 5 packets in the fabric") &&
                      strstr(fault, "within 896 ns"),
                  "%s", fault);
    /* the stuck packets: A's first packet Ha -> Hc holds A's output to B and waits for a credit; He's packet
     * (through E) waits at A for that output VC */
    ck_assert_msg(strstr(fault, "switch A input port 0 VC 0: a packet Ha -> Hc") &&
                      strstr(fault, "waits for a credit that is not on its way") &&
                      strstr(fault, "a packet He -> Hb") && strstr(fault, "held by input port 0 VC 0"),
                  "%s", fault);
    th_net_free(h);
    unlink(path);
}
END_TEST

static Suite *iqr_suite(void)
{
    Suite *s = suite_create("iqrouter");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_zero_load_pipelines);
    tcase_add_test(t, test_switch_latency);
    tcase_add_test(t, test_switch_latency_long);
    tcase_add_test(t, test_fixed_latency);
    tcase_add_test(t, test_contention_two_inputs);
    tcase_add_test(t, test_wormhole_blocking);
    tcase_add_test(t, test_saturation_all);
    tcase_add_test(t, test_priority_classes_vcs);
    tcase_add_test(t, test_priority_classes_mix);
    tcase_add_test(t, test_adaptive_torus_escape);
    tcase_add_test(t, test_drained_credits_back);
    tcase_add_test(t, test_refusals);
    tcase_add_test(t, test_speedup_global_links);
    tcase_add_test(t, test_speedup_credit_per_cycle);
    tcase_add_test(t, test_link_rate_lone);
    tcase_add_test(t, test_link_rate_shared);
    tcase_add_test(t, test_link_rate_oq_agrees);
    tcase_add_test(t, test_express_tail_behind);
    tcase_add_test(t, test_lean_matches_general);
    tcase_add_test(t, test_host_tick_pending);
    tcase_add_test(t, test_delivery_batch_events);
    tcase_add_test(t, test_deadlock_watchdog);
    suite_add_tcase(s, t);
    /* a case of its own: bench/iqr-diff.sh runs it alone (CK_RUN_CASE=diff) on more configurations */
    TCase *d = tcase_create("diff");
    tcase_set_timeout(d, 600);
    tcase_add_test(d, test_express_matches_general);
    suite_add_tcase(s, d);
    return s;
}

TH_MAIN(iqr_suite)
