/* Head latency (issue 13, item 11): hand-over to the FIRST bit of a message
 * at its destination, the latency LWSim reports and the paper's Fig. 11
 * plots, beside tasknet's hand-over-to-last-bit latency. Every fabric sets
 * net_msg.t_head_ps; the times below are derived by hand from each fabric's
 * timing model (networks/net_*.c head comments), and a random load on
 * every registered fabric checks first bit <= last bit for every message.
 *
 * Star (ideal, electrical switch): link 20 ns, switch 200 ns, B = 40 Gb/s,
 * so 1000 B serialise in 8000 b / 40e9 = 200 000 ps. */
#include <check.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "metrics.h"
#include "network.h"

#define SER_1000_PS 200000 /* 1000 B at 40 Gb/s */

/* m was delivered once, its first bit at head_ps and its last at last_ps. */
static void ck_head(const net_msg *m, int64_t head_ps, int64_t last_ps)
{
    ck_assert_uint_eq(m->a, 1);
    ck_assert_int_eq(m->t_head_ps, head_ps);
    ck_assert_int_eq((int64_t)m->b, last_ps);
}

/* The ideal fabric: the first bit crosses 2 links and the switch at once,
 * 240 000 ps; the last one ser later; however many messages share dst. */
START_TEST(test_ideal)
{
    net_params core = th_star(8, 40e9);
    th_net *h = th_net_new("ideal", &core, NULL, NULL, 1, 8);
    net_msg *a = th_at_low(h, 0, 1, 0, 1000), *b = th_at_low(h, 0, 2, 0, 1000), *c = th_at_low(h, 1000, 3, 0, 0);
    th_net_go(h);
    ck_head(a, 240000, 440000);
    ck_head(b, 240000, 440000);
    ck_head(c, 241000, 241000); /* an empty message: first and last bit are one */
    /* core metrics: mean of 240, 240, 240 ns; max 240 ns */
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_mean_s"), 240e-9, 1e-18);
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_max_s"), 240e-9, 1e-18);
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_data_mean_s"), 240e-9, 1e-18);
    /* no control message: not measured, not 0 */
    ck_assert(isnan(th_net_metric(h->n, "msg_head_latency_control_mean_s")));
    th_net_free(h);
}
END_TEST

/* The electrical switch: the first bit reaches dst a link after the output
 * port starts the message. */
START_TEST(test_switch)
{
    net_params core = th_star(8, 40e9);
    th_net *h = th_net_new("electrical-switch", &core, NULL, NULL, 1, 8);
    /* lone: port start t0 + link + sw = 220 000, head +20 000, last +200 000 more */
    net_msg *a = th_at_low(h, 0, 1, 0, 1000);
    /* same time, other source, same dst: the port is busy until 420 000 */
    net_msg *b = th_at_low(h, 0, 2, 0, 1000);
    /* same source as a: leaves when a's last bit left, 200 000; port toward 3 free */
    net_msg *c = th_at(h, 0, 1, 3, 1000, NET_PRIO_HIGH, NET_CONTROL);
    th_net_go(h);
    ck_head(a, 240000, 440000);
    ck_head(b, 440000, 640000);
    ck_head(c, 440000, 640000);
    /* mean (240 + 440 + 440) / 3 ns; data (240 + 440) / 2, control 440 */
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_mean_s"), 1120e-9 / 3, 1e-18);
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_max_s"), 440e-9, 1e-18);
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_data_mean_s"), 340e-9, 1e-18);
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_control_mean_s"), 440e-9, 1e-18);
    th_net_free(h);

    /* store-and-forward: the port starts only when the last bit is in the
     * switch, t0 + ser + link + sw = 420 000; head 440 000, last 640 000 */
    static const char *const saf[] = {"network.switching=store-and-forward", NULL};
    h = th_net_new("electrical-switch", &core, saf, NULL, 1, 8);
    a = th_at_low(h, 0, 1, 0, 1000);
    th_net_go(h);
    ck_head(a, 440000, 640000);
    th_net_free(h);
}
END_TEST

/* SPINet, N = 8 (S = 3), 1 m links (t_link = 5 000 ps), t_sw = t_r = 1 ns,
 * 512 B packets (P = 4096 b / 160 Gb/s = 25 600 ps): the header reaches
 * dst F = 2 t_link + S t_sw = 13 000 ps after a try leaves, the last bit
 * P later. */
START_TEST(test_spinet)
{
    static const char *const sets[] = {"network.link-length=1m", "network.packet-size=512B",
                                       "network.switching-time=1ns", "network.reaction-time=1ns", NULL};
    net_params core = th_star(8, 160e9);
    th_net *h = th_net_new("spinet", &core, sets, NULL, 1, 8);
    net_msg *a = th_at_low(h, 0, 0, 7, 512);
    /* node 1 shares node 0's first element and the single path to 7: its try
     * is dropped at stage 1 (output locked until h_1 + P = 6 000 + 25 600 =
     * 31 600); fast NACKs return 2 (t_link + t_sw) + t_r = 13 000 after each
     * try: a retry at 13 000 meets the lock (h_1 = 19 000), the one at 26 000
     * passes (h_1 = 32 000, stage 2 free at 32 600 <= 33 000, stage 3 at
     * 33 600 <= 34 000): head 26 000 + F = 39 000, last + P = 64 600 */
    net_msg *b = th_at_low(h, 0, 1, 7, 512);
    th_net_go(h);
    ck_head(a, 13000, 38600);
    ck_head(b, 39000, 64600);
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_mean_s"), 26000e-12, 1e-18);
    ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_max_s"), 39000e-12, 1e-18);
    th_net_free(h);

    /* two packets: the first brings the head at F; the second leaves when the
     * source's hold ends, H = max(2 t_link + 2 S t_sw + t_r, P + S t_sw) =
     * max(17 000, 28 600), and lands at 28 600 + F + P = 67 200 */
    h = th_net_new("spinet", &core, sets, NULL, 1, 8);
    a = th_at_low(h, 0, 2, 5, 1024);
    th_net_go(h);
    ck_head(a, 13000, 67200);
    th_net_free(h);
}
END_TEST

/* Every registered fabric tells every message's first bit, between its
 * hand-over and its last bit, under a random load, with its hosts' NIC in
 * each mode it has (whole messages in order; 1500-B packets served round
 * robin); and its head latency metrics are measured (not NAN). */
START_TEST(test_every_fabric_tells)
{
    static const char *const nic[] = {"network.host-scheduling=round-robin", "network.mtu=1500B", NULL};
    for (size_t f = 0; net_registry[f]; f++)
        for (int v = 0; v < 2; v++) {
            const char *name = net_registry[f]->name;
            const char *const *shape = th_net_shape(net_registry[f], 16);
            const char *sets[8];
            size_t ns = 0;
            for (size_t i = 0; shape[i]; i++)
                sets[ns++] = shape[i];
            for (size_t i = 0; v == 1 && nic[i]; i++)
                sets[ns++] = nic[i];
            sets[ns] = NULL;
            if (v == 1 && !th_net_takes(net_registry[f], 16, sets))
                continue; /* no host NIC rows */
            net_params core = th_star(16, 10e9);
            th_net *h = th_net_new(name, &core, sets, NULL, 7, 400);
            gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
            gsl_rng_set(g, 11);
            net_msg *m[400];
            for (int i = 0; i < 400; i++) {
                uint32_t src = (uint32_t)gsl_rng_uniform_int(g, 16), dst = (uint32_t)gsl_rng_uniform_int(g, 15);
                dst += dst >= src;
                m[i] = th_at(h, (int64_t)gsl_rng_uniform_int(g, 2000000), src, dst, gsl_rng_uniform_int(g, 5000),
                             i % 2 ? NET_PRIO_LOW : NET_PRIO_HIGH, i % 2 ? NET_DATA : NET_CONTROL);
            }
            th_net_go(h);
            double sum = 0, max = 0;
            for (int i = 0; i < 400; i++) {
                ck_assert_uint_eq(m[i]->a, 1);
                ck_assert_msg(m[i]->t_head_ps >= m[i]->t_submit_ps && m[i]->t_head_ps <= (int64_t)m[i]->b,
                              "%s: message %d: first bit at %lld ps, handed over at %lld, last bit at %lld", name, i,
                              (long long)m[i]->t_head_ps, (long long)m[i]->t_submit_ps, (long long)m[i]->b);
                double d = (double)(m[i]->t_head_ps - m[i]->t_submit_ps) * 1e-12;
                sum += d;
                max = d > max ? d : max;
            }
            ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_mean_s"), sum / 400, 1e-15);
            ck_assert_double_eq_tol(th_net_metric(h->n, "msg_head_latency_max_s"), max, 1e-18);
            ck_assert_double_le(th_net_metric(h->n, "msg_head_latency_mean_s"),
                                th_net_metric(h->n, "msg_latency_mean_s"));
            gsl_rng_free(g);
            th_net_free(h);
        }
}
END_TEST

static Suite *head_suite(void)
{
    Suite *s = suite_create("head");
    TCase *tc = tcase_create("head");
    tcase_add_test(tc, test_ideal);
    tcase_add_test(tc, test_switch);
    tcase_add_test(tc, test_spinet);
    tcase_add_test(tc, test_every_fabric_tells);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(head_suite)
