/* The single electrical switch with the input-queued router
 * (network.type = "electrical-switch", network.router = "input-queued";
 * net_switch.c's head has the mapping, iqrouter.c's the model): zero-load
 * latency of one packet through the one-switch pipeline worked by hand (in
 * BookSim2's units and in those of Andujar et al.'s Hiperion switch), a
 * head-of-line blocking case worked by hand, every message delivered once
 * and every credit, VC and packet back under random load with priority
 * classes, every workload of the registry on it in both switchings, and
 * its refusals.
 *
 * Model rules used below (iqrouter.c's head): a flit a host sends at tick w
 * (its flit time T on the grid) is whole at the switch at w + T + link; a
 * head at the front of an idle VC is routed routing-delay after the tick
 * at or after it was whole (oblivious routing: no tick of its own); a VC
 * allocation requested at x is known at x + vc-alloc-delay, a refusal too
 * (then it asks again); a switch allocation requested at y is known at
 * y + sw-alloc-delay, when the flit leaves its input buffer, and it goes on
 * the link st-delay + switch-latency later (net_switch.c's mapping), whole
 * at the host T + link after that; an input VC's later flits are granted
 * one per flit time; VC allocation comes before switch allocation within a
 * tick; the next head behind a tail granted at z is routed at z + T +
 * routing-delay; an input VC holds one packet at a time. Hosts sink every
 * flit (no credit toward a host). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "harness.h"
#include "iqrouter.h"
#include "network.h"
#include "params.h"
#include "swnet.h"
#include "topo.h"
#include "workload.h"

#define SW "electrical-switch"

/* B = 8 Gb/s, 1-byte flits: T = 1 ns (BookSim2's cycle) */
static net_params core8(uint32_t N, int64_t link_ps, int64_t switch_ps)
{
    net_params c = th_star(N, 8e9);
    c.link_latency_ps = link_ps;
    c.switch_latency_ps = switch_ps;
    return c;
}

static swnet *core_of(th_net *h)
{
    swnet *q = net_switch_swnet(h->n->state);
    ck_assert_ptr_nonnull(q);
    return q;
}

/* Zero load, BookSim2's units: N = 4, T = 1 ns, link-latency 2 ns,
 * switch-latency 10 ns, routing = vc-alloc = sw-alloc = st = 1 ns, a 4-byte
 * message = one packet of F = 4 flits (mtu 4 B), handed over at 5 ns.
 * Host 0 sends flit k at 5 + k; it is whole at the switch at 5 + k + 1 + 2
 * = 8 + k. The head is routed at 8 + 1 = 9, asks for the output VC at 9,
 * has it at 10, asks for the switch at 10 and has it at 11 (it leaves its
 * buffer), goes on the link at 11 + st 1 + switch-latency 10 = 22 and is
 * whole at host 1 at 22 + 1 + 2 = 25. Flits 1..3 (whole at 9..11) are
 * granted at 11, 12, 13; the tail leaves at 14, is on the link at 25,
 * whole at 28: 23 ns after the hand-over. The formula: 2 (T + link) + D +
 * (F - 1) T = 2 (1 + 2) + (1 + 1 + 1 + 1 + 10) + 3 = 23.
 * The output-queued switch (messages whole): ser + 2 link + switch-latency
 * = 4 + 4 + 10 = 18 ns: the input-queued one adds its four pipeline delays
 * (4 ns) and one flit time (the router reads whole flits). */
START_TEST(test_zero_load_booksim_units)
{
    const char *iq[] = {"network.router=input-queued", "network.flow-control=credit", "network.flit-size=1B",
                        "network.mtu=4B", "network.vc-buffer=8B", NULL};
    for (int k = 0; k < 2; k++) {
        net_params core = core8(4, 2 * NS, 10 * NS);
        th_net *h = th_net_new(SW, &core, k ? iq : NULL, NULL, 1, 4);
        net_msg *m = th_at_low(h, 5 * NS, 0, 1, 4);
        th_net_go(h);
        int64_t want = k ? 23 * NS : 18 * NS;
        ck_delivered_at(m, 5 * NS + want);
        ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 1, 4), want);
        if (k)
            ck_assert_uint_eq(iqr_leaks(core_of(h)), 0);
        th_net_free(h);
    }
}
END_TEST

/* Zero load in the units of Andujar et al.'s Hiperion switch: B = 10 Gb/s
 * and 16-byte flits, T = 128 b / 10 Gb/s = 12.8 ns; link-latency 20 ns, switch-latency 200 ns
 * (configs/paper/vef-dcnw.xml's), every pipeline delay one flit time
 * (12.8 ns), a 128-byte packet of F = 8 flits (the seed's packet size),
 * handed over at 0. Flit k leaves host 0 at 12.8 k and is whole at the
 * switch at 32.8 + 12.8 k, between ticks: the head waits for the tick at
 * 38.4, is routed at 51.2, has its VC at 64.0 and the switch at 76.8 (it
 * leaves the buffer); flit k is granted at 64.0 + 12.8 k (whole by then),
 * so the tail at 153.6, leaves at 166.4, is on the link at 166.4 + 12.8 +
 * 200 = 379.2 and whole at host 1 at 379.2 + 12.8 + 20 = 412.0 ns. The
 * zero-load formula does not wait for ticks: 2 (12.8 + 20) + (4 x 12.8 +
 * 200) + 7 x 12.8 = 406.4 ns, 5.6 ns below (the head's wait for the tick at
 * 38.4): a lower bound, as iqrouter.c says off the grid. The output-queued
 * switch with the same 128-byte packets: ser + 2 link + switch-latency =
 * 102.4 + 40 + 200 = 342.4 ns. */
START_TEST(test_zero_load_hiperion_units)
{
    const char *iq[] = {"network.router=input-queued", "network.flow-control=credit", "network.flit-size=16B",
                        "network.mtu=128B", "network.vc-buffer=16384B", "network.routing-delay=12.8ns",
                        "network.vc-alloc-delay=12.8ns", "network.sw-alloc-delay=12.8ns", "network.st-delay=12.8ns",
                        "network.allocator=separable-input-first", NULL};
    const char *oq[] = {"network.mtu=128B", NULL};
    for (int k = 0; k < 2; k++) {
        net_params core = th_star(8, 10e9);
        core.link_latency_ps = 20 * NS;
        core.switch_latency_ps = 200 * NS;
        th_net *h = th_net_new(SW, &core, k ? iq : oq, NULL, 1, 4);
        net_msg *m = th_at_low(h, 0, 0, 1, 128);
        th_net_go(h);
        ck_delivered_at(m, k ? 412000 : 342400);
        ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 1, 128), k ? 406400 : 342400);
        th_net_free(h);
    }
}
END_TEST

/* Head-of-line blocking. N = 4, T = 1 ns, link-latency 0, switch-latency
 * 0, every pipeline delay 1 ns, credit-delay 0, one VC of 64 flits, 1-byte
 * flits, mtu 8 B. Input B (host 1) sends an 8-byte packet to output X
 * (host 2) at 5 ns; input A (host 0) sends an 8-byte packet m1 to X at 6 ns
 * and behind it a 1-byte packet m2 to Y (host 3), which nothing else uses.
 *   B: flit k whole at the switch at 6 + k; routed at 7, X's output VC at 8
 *     (A does not ask before 8); flit k granted at 8 + k, the tail at 15
 *     (X's output VC free after that tick's switch allocation), leaves at
 *     16, on the link at 17, whole at host 2 at 18.
 *   m1: flit k whole at 7 + k; routed at 8; asks for X's only output VC at
 *     8, 9, .., 15 and loses each time (B holds it; at 15 VC allocation
 *     comes before B's tail is granted): 8 lost allocations; wins at 16,
 *     has it at 17; flit k granted at 17 + k, the tail at 24: whole at host
 *     2 at 24 + 1 + 1 + 1 = 27.
 *   m2: sent by host 0 after m1's last flit, at 14, whole at 15, behind
 *     m1's tail in the same input VC: routed at 24 + 1 + 1 = 26, has Y's
 *     output VC at 27, the switch at 28, on the link at 29, whole at host 3
 *     at 30. Y was idle the whole time.
 *   Without B: m1 has X's VC at 9, its tail is granted at 16 (whole at 19);
 *     m2 is routed at 18 and whole at host 3 at 22. So m2 waits 8 ns behind
 *     its head, m1's 8 lost allocations: head-of-line blocking.
 *   The output-queued switch (messages whole, FIFO output ports): B from 5
 *     to 13 at X; m1 waits at X's port until 13, delivered at 21; m2 leaves
 *     host 0 at 14 (after m1's 8 ns) and reaches Y at 15 (it never waits
 *     for m1's output).
 * Both allocators and both switchings give these times: no two requests
 * ever meet at one output or one input in a tick, and hosts sink every
 * flit, so no credit toward X or Y is needed (the 64-flit buffers take
 * every packet whole). */
START_TEST(test_head_of_line_blocking)
{
    static const char *const alloc[] = {"network.allocator=islip", "network.allocator=separable-input-first"};
    static const char *const sw[] = {"network.switching=cut-through", "network.switching=wormhole"};
    for (int a = 0; a < 2; a++)
        for (int s = 0; s < 2; s++)
            for (int withb = 0; withb < 2; withb++) {
                const char *sets[] = {"network.router=input-queued", "network.flow-control=credit",
                                      "network.flit-size=1B", "network.mtu=8B", "network.vc-buffer=64B",
                                      alloc[a], sw[s], NULL};
                net_params core = core8(4, 0, 0);
                th_net *h = th_net_new(SW, &core, sets, NULL, 1, 8);
                net_msg *b = withb ? th_at_low(h, 5 * NS, 1, 2, 8) : NULL;
                net_msg *m1 = th_at_low(h, 6 * NS, 0, 2, 8);
                net_msg *m2 = th_at_low(h, 6 * NS, 0, 3, 1);
                th_net_go(h);
                iqr_stats st;
                iqr_get_stats(core_of(h), &st);
                if (withb) {
                    ck_delivered_at(b, 18 * NS);
                    ck_delivered_at(m1, 27 * NS);
                    ck_delivered_at(m2, 30 * NS);
                    ck_assert_uint_eq(st.va_lost, 8);
                } else {
                    ck_delivered_at(m1, 19 * NS);
                    ck_delivered_at(m2, 22 * NS);
                    ck_assert_uint_eq(st.va_lost, 0);
                }
                ck_assert_uint_eq(st.sa_lost, 0);
                ck_assert_uint_eq(iqr_leaks(core_of(h)), 0);
                th_net_free(h);
            }
    net_params core = core8(4, 0, 0);
    th_net *h = th_net_new(SW, &core, NULL, NULL, 1, 8);
    net_msg *b = th_at_low(h, 5 * NS, 1, 2, 8);
    net_msg *m1 = th_at_low(h, 6 * NS, 0, 2, 8);
    net_msg *m2 = th_at_low(h, 6 * NS, 0, 3, 1);
    th_net_go(h);
    ck_delivered_at(b, 13 * NS);
    ck_delivered_at(m1, 21 * NS);
    ck_delivered_at(m2, 15 * NS);
    th_net_free(h);
}
END_TEST

/* Random load past saturation with three priority classes, every rule
 * (per-class VCs with strict allocators, shared VCs, per-class with fifo
 * allocators), both switchings, 4-byte flits, buffers of 2 packets
 * (cut-through) or half a packet (wormhole): every message is delivered
 * exactly once, and once drained every credit, VC and packet is back. */
START_TEST(test_random_load_drains)
{
    static const char *const rules[][2] = {{"network.vc-map=per-class", "network.priority=strict"},
                                           {"network.vc-map=shared", "network.priority=strict"},
                                           {"network.vc-map=per-class", "network.priority=fifo"}};
    enum { N = 8, M = 800 };
    for (unsigned r = 0; r < 3; r++)
        for (int wh = 0; wh < 2; wh++) {
            const char *sets[] = {"network.router=input-queued", "network.flow-control=credit",
                                  "network.flit-size=4B", "network.mtu=16B",
                                  wh ? "network.vc-buffer=8B" : "network.vc-buffer=32B",
                                  wh ? "network.switching=wormhole" : "network.switching=cut-through",
                                  "network.host-scheduling=priority", rules[r][0], rules[r][1], "network.vcs=2",
                                  NULL};
            net_params core = core8(N, 1 * NS, 3 * NS);
            th_net *h = th_net_new(SW, &core, sets, NULL, 1, M);
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 5 + r);
            static net_msg *m[M];
            for (unsigned k = 0; k < M; k++) {
                uint32_t src = (uint32_t)gsl_rng_uniform_int(g, N);
                uint32_t dst = (uint32_t)gsl_rng_uniform_int(g, N - 1);
                dst += dst >= src;
                m[k] = th_at(h, (int64_t)gsl_rng_uniform_int(g, 1000) * NS, src, dst, gsl_rng_uniform_int(g, 80),
                             (uint8_t)gsl_rng_uniform_int(g, 3), NET_DATA);
            }
            gsl_rng_free(g);
            th_net_go(h);
            for (unsigned k = 0; k < M; k++)
                if (m[k]->a != 1)
                    ck_abort_msg("rule %u wh %d: message %u delivered %llu times", r, wh, k,
                                 (unsigned long long)m[k]->a);
            ck_assert_uint_eq(h->n->c.delivered, M);
            ck_assert_uint_eq(h->n->c.bytes_delivered, h->n->c.bytes_sent);
            iqr_stats st;
            iqr_get_stats(core_of(h), &st);
            ck_assert_uint_gt(st.va_lost + st.sa_lost, 0); /* they did contend */
            ck_assert_uint_eq(iqr_leaks(core_of(h)), 0);
            th_net_free(h);
        }
}
END_TEST

/* Every workload of the registry (dc-flows, training, kernels, patterns,
 * uniform-random, task trees, DAGs, traces) with its defaults on a 16-node
 * input-queued switch at 10 Gb/s, the seed's 16-byte flits and 128-byte
 * packets, in both switchings: it completes, every message it sent is
 * delivered with its bytes, and every credit, VC and packet is back. */
START_TEST(test_every_workload)
{
    const wl_ops *w = wl_registry[_i];
    for (int wh = 0; wh < 2; wh++) {
        const char *sets[] = {"network.router=input-queued", "network.flow-control=credit", "network.mtu=128B",
                              wh ? "network.switching=wormhole" : "network.switching=cut-through", NULL};
        net_params core = th_star(16, 10e9);
        th_run r = {0};
        void *wp = th_wl_example_params(w, &core);
        ck_assert_msg(th_run_open(&r, SW, &core, sets, w->name, wp, 3, 0) == 0, "%s: %s", w->name, r.err);
        th_run_go(&r);
        ck_assert_msg(th_run_finish(&r) == 0, "%s: %s", w->name, r.err);
        ck_assert_uint_gt(r.n->c.sent, 0);
        ck_assert_uint_eq(r.n->c.delivered, r.n->c.sent);
        ck_assert_uint_eq(r.n->c.bytes_delivered, r.n->c.bytes_sent);
        ck_assert_uint_eq(iqr_leaks(net_switch_swnet(r.n->state)), 0);
        th_run_close(&r);
    }
}
END_TEST

/* What the input-queued switch refuses, each at its parameter. */
START_TEST(test_refusals)
{
    static const struct {
        const char *sets[5];
        const char *want;
    } c[] = {
        {{"network.router=input-queued", "network.flow-control=credit", NULL}, "network.mtu"},
        {{"network.router=input-queued", "network.mtu=128B", NULL}, "network.flow-control=\"credit\""},
        {{"network.router=input-queued", "network.mtu=128B", "network.flow-control=credit",
          "network.switching=store-and-forward", NULL}, "store-and-forward is the output-queued switch's"},
        {{"network.router=input-queued", "network.mtu=128B", "network.flow-control=pfc", NULL},
         "network.flow-control"},
        {{"network.vcs=2", NULL}, "network.vcs"},
        {{"network.switching=wormhole", NULL}, "network.switching"},
        {{"network.flow-control=credit", NULL}, "is the input-queued router's"},
        {{"network.router=input-queued", "network.mtu=128B", "network.flow-control=credit",
          "network.host-buffer=1MB", NULL}, "network.host-buffer"},
    };
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
        char err[1024] = "";
        net_params core = core8(4, 0, 0);
        th_net *h = th_net_try(SW, &core, c[i].sets, NULL, 1, 4, err, sizeof err);
        ck_assert_msg(h == NULL, "case %u accepted", i);
        ck_assert_msg(strstr(err, c[i].want) != NULL, "case %u: %s", i, err);
    }
    /* and the output-queued switch keeps its own store-and-forward */
    const char *saf[] = {"network.switching=store-and-forward", NULL};
    char err[1024] = "";
    net_params core = core8(4, 0, 0);
    th_net *h = th_net_try(SW, &core, saf, NULL, 1, 4, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    th_net_free(h);
}
END_TEST

/* network.host-link-latency and the switched core's metrics on the
 * input-queued switch. The case of test_zero_load_booksim_units (N = 4,
 * T = 1 ns, link-latency 2 ns, switch-latency 10 ns, stages 1 ns, one
 * 4-flit packet 0 -> 1 handed over at 5 ns) with host-link-latency 5 ns:
 * every link of the star is a host link, so each takes 5 ns and
 * link-latency's 2 ns none. Flit k is whole at the switch at 5 + k + 1 + 5
 * = 11 + k, 3 ns later than with 2 ns links, and the tail's last link is 3
 * ns longer: 23 + 3 + 3 = 29 ns (the formula: 2 (T + 5) + (1 + 1 + 1 + 1 +
 * 10) + 3 T = 12 + 14 + 3 = 29), delivered at 34 ns.
 * Utilisation (swnet.h's link_utilization_*: a link's busy time / span,
 * span from the first hand-over, 5 ns, to the last delivery, 34 ns: 29 ns):
 * 8 directed links (4 host uplinks, 4 outputs); host 0's uplink and the
 * output toward host 1 each carry 4 flits of T = 1 ns: mean (4 + 4) / (8 x
 * 29) = 1/29, max 4/29. saturation_bound: uniform random traffic loads
 * every uplink and every output with the offered rate (each output
 * receives 1/N of every host's N sends), so 1.
 * Under output-queued, host-link-latency is refused with its reason (all
 * its links take link-latency), as on the switched fabrics. */
START_TEST(test_host_link_and_metrics)
{
    const char *iq[] = {"network.router=input-queued", "network.flow-control=credit", "network.flit-size=1B",
                        "network.mtu=4B", "network.vc-buffer=8B", "network.host-link-latency=5ns", NULL};
    net_params core = core8(4, 2 * NS, 10 * NS);
    th_net *h = th_net_new(SW, &core, iq, NULL, 1, 4);
    net_msg *m = th_at_low(h, 5 * NS, 0, 1, 4);
    th_net_go(h);
    ck_delivered_at(m, 5 * NS + 29 * NS);
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 1, 4), 29 * NS);
    CLOSE(th_net_metric_of(h, "link_utilization_mean"), 1.0 / 29, 1e-15);
    CLOSE(th_net_metric_of(h, "link_utilization_max"), 4.0 / 29, 1e-15);
    CLOSE(th_net_metric_of(h, "saturation_bound"), 1.0, 0);
    /* export-topology's topology: one switch, host j on port j */
    const topo *t = h->n->ops->topology(h->n->state);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->switches, 1);
    ck_assert_uint_eq(t->hosts, 4);
    th_net_free(h);
    /* the output-queued switch: no topology object, no such metrics (NAN), host-link-latency refused */
    net_params c2 = core8(4, 2 * NS, 10 * NS);
    th_net *o = th_net_new(SW, &c2, NULL, NULL, 1, 4);
    ck_assert_ptr_null(o->n->ops->topology(o->n->state));
    th_at_low(o, 5 * NS, 0, 1, 4);
    th_net_go(o);
    ck_assert(isnan(th_net_metric_of(o, "link_utilization_mean")));
    th_net_free(o);
    const char *oq[] = {"network.host-link-latency=5ns", NULL};
    char err[1024] = "";
    ck_assert_ptr_null(th_net_try(SW, &c2, oq, NULL, 1, 4, err, sizeof err));
    ck_assert_msg(strstr(err, "network.host-link-latency") != NULL, "%s", err);
}
END_TEST

static Suite *switch_iq_suite(void)
{
    Suite *s = suite_create("switch_iq");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_zero_load_booksim_units);
    tcase_add_test(t, test_zero_load_hiperion_units);
    tcase_add_test(t, test_head_of_line_blocking);
    tcase_add_test(t, test_random_load_drains);
    tcase_add_test(t, test_refusals);
    tcase_add_test(t, test_host_link_and_metrics);
    tcase_add_loop_test(t, test_every_workload, 0, (int)wl_count());
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(switch_iq_suite)
