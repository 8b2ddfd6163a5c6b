/* Task programs (jobs/taskprog.c) and their executor (scheduler/prog_exec.c):
 * the builder's layout, the lower bound, and the §0 execution rules on the
 * ideal fabric and the switch, every expected time derived by hand beside
 * its assertion. The §4 star: B = 10 Gb/s, link 20 ns, switch 200 ns: on
 * `ideal` every message of S bytes arrives ser(S) + 240 ns after its
 * hand-over (ser(1000 B) = 800 ns: 1040 ns; ser(2000 B) = 1600 ns:
 * 1840 ns); L0 of the bound = 240 ns. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "mapping.h"
#include "prog_exec.h"
#include "rng.h"
#include "taskprog.h"

#define FIXED_PS (240 * NS) /* 2 link + switch */
#define XH_KIND 0x4b50u     /* net_msg.kind of the tests' programs */

/* A program run by the executor over a fabric of the shared harness, every
 * delivery logged (h->h->log) before the executor sees it. */
typedef struct xh {
    th_net *h;
    pexec *x;
    int rc;        /* pexec_finish */
    char err[512];
} xh;

static net_params xh_star(uint32_t nodes) { return th_star(nodes, B10); }

/* Run prog on `fabric` with tasks on nodes map (NULL: identity) until the
 * event queue empties; h->rc is pexec_finish's status (h->err its message). */
static void xh_run(xh *h, const char *fabric, const net_params *np, const tp_prog *prog, const uint32_t *map,
                   uint64_t seed)
{
    memset(h, 0, sizeof *h);
    h->x = pexec_create(prog, map, np->nodes, XH_KIND, h->err, sizeof h->err);
    ck_assert_msg(h->x != NULL, "pexec_create: %s", h->err);
    h->h = th_net_to(fabric, np, NULL, NULL, seed, pexec_deliver, h->x);
    pexec_start(h->x, h->h->s, h->h->n);
    th_net_go(h->h);
    ck_assert_uint_eq(sim_pending(h->h->s), 0);
    h->rc = pexec_finish(h->x, h->err, sizeof h->err);
}

static void xh_close(xh *h)
{
    pexec_destroy(h->x);
    th_net_free(h->h);
    memset(h, 0, sizeof *h);
}

static int64_t xh_dlv_ps(const xh *h, uint32_t src, uint32_t dst, uint32_t tag)
{
    return th_log_at(&h->h->log, src, dst, tag);
}

static void xh_assert_once(const xh *h, uint64_t count) { th_log_once(&h->h->log, count); }

/* ---- builder ---- */

/* Ops emitted in any task order come out grouped by task, each task's in
 * emission order; counts and tags follow. */
START_TEST(test_builder_layout)
{
    tp_builder b;
    tp_builder_init(&b, 3, 1);
    tp_send_op(&b, 2, 0, 10, 4); /* task 2: send */
    tp_recv_op(&b, 0, 2, 4);     /* task 0: recv */
    tp_compute_op(&b, 2, 7);     /* task 2: compute */
    tp_send_op(&b, 0, 1, 20, 0); /* task 0: send */
    tp_recv_op(&b, 1, 0, 0);     /* task 1: recv */
    tp_prog p;
    tp_build(&b, &p);
    ck_assert_uint_eq(p.tasks, 3);
    ck_assert_uint_eq(p.start[0], 0);
    ck_assert_uint_eq(p.start[1], 2); /* task 0: recv, send */
    ck_assert_uint_eq(p.start[2], 3); /* task 1: recv */
    ck_assert_uint_eq(p.start[3], 5); /* task 2: send, compute */
    ck_assert_uint_eq(tp_op_kind(&p.ops[0]), TP_RECV);
    ck_assert_uint_eq(tp_op_peer(&p.ops[0]), 2);
    ck_assert_uint_eq(tp_op_kind(&p.ops[1]), TP_SEND);
    ck_assert_uint_eq(p.ops[1].arg, 20);
    ck_assert_uint_eq(tp_op_kind(&p.ops[3]), TP_SEND);
    ck_assert_uint_eq(tp_op_peer(&p.ops[3]), 0);
    ck_assert_uint_eq(p.ops[3].tag, 4);
    ck_assert_uint_eq(tp_op_kind(&p.ops[4]), TP_COMPUTE);
    ck_assert_uint_eq(p.ops[4].arg, 7);
    ck_assert_uint_eq(p.messages, 2);
    ck_assert_uint_eq(p.recvs, 2);
    ck_assert_uint_eq(p.tags, 5); /* largest tag 4 */
    ck_assert_uint_eq(tp_group_bytes(&p, 0), 30);
    tp_prog_free(&p);
}
END_TEST

/* Lower bound (§0): max over tasks of max(bytes out, bytes in) at B + L0.
 * Task 0 sends 1000 + 1000 B, task 3 receives 1000 + 2000 B:
 * max = 3000 B -> 2400 ns + 240 = 2640 ns. Phases chain: two phases of one
 * 1000 B message each, the second after the first: 2 x 1040 = 2080 ns; a
 * third at start, alone: 1040, so the bound of the group stays 2080. */
START_TEST(test_lower_bound)
{
    tp_builder b;
    tp_builder_init(&b, 4, 1);
    tp_send_op(&b, 0, 1, 1000, 0);
    tp_send_op(&b, 0, 3, 1000, 0);
    tp_send_op(&b, 2, 3, 2000, 0);
    tp_prog p;
    tp_build(&b, &p);
    ck_assert_int_eq(tp_lower_bound_ps(&p, 0, B10, FIXED_PS), 2640 * NS);
    tp_prog_free(&p);

    tp_builder_init(&b, 4, 2);
    tp_set_group(&b, 3, 1);
    uint32_t k0 = tp_phase_begin(&b, 0, TP_AT_START);
    tp_phase_send(&b, 0, 1, 1000, 0);
    tp_phase_begin(&b, 0, k0);
    tp_phase_send(&b, 1, 2, 1000, 1);
    tp_phase_begin(&b, 1, TP_AT_START);
    tp_phase_send(&b, 3, 0, 1000, 0);
    tp_build(&b, &p);
    ck_assert_int_eq(tp_lower_bound_ps(&p, 0, B10, FIXED_PS), 2080 * NS);
    ck_assert_int_eq(tp_lower_bound_ps(&p, 1, B10, FIXED_PS), 1040 * NS);
    tp_prog_free(&p);
}
END_TEST

/* ---- mappings ---- */

/* A random injection: distinct nodes, all < N, same stream same map, and
 * (chi-square-free sanity) every node is used by task 0 over 400 draws. */
START_TEST(test_mapping)
{
    uint32_t map[8], inv[12], again[8];
    map_identity(map, 8);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_uint_eq(map[i], i);
    int hit[12] = {0};
    gsl_rng *r = rng_stream_new(5, 0, "pattern-mapping");
    for (int k = 0; k < 400; k++) {
        map_random(map, 8, 12, r, NULL);
        map_invert(map, 8, 12, inv); /* aborts unless an injection */
        for (uint32_t i = 0; i < 8; i++)
            ck_assert_uint_eq(inv[map[i]], i);
        hit[map[0]]++;
    }
    for (int n = 0; n < 12; n++)
        ck_assert_int_gt(hit[n], 0);
    gsl_rng_free(r);
    gsl_rng *r1 = rng_stream_new(9, 3, "pattern-mapping");
    gsl_rng *r2 = rng_stream_new(9, 3, "pattern-mapping");
    map_random(map, 8, 12, r1, NULL);
    uint32_t scratch[12];
    map_random(again, 8, 12, r2, scratch);
    ck_assert_mem_eq(map, again, sizeof map);
    gsl_rng_free(r1);
    gsl_rng_free(r2);
}
END_TEST

/* ---- executor ---- */

/* Unexpected messages (§0): task 0 sends tag 0 (1000 B) then tag 1
 * (2000 B) to task 1 at t = 0; task 1 waits for tag 1 first. On ideal tag 0
 * arrives at 1040 ns and waits in the table; tag 1 arrives at 1600 + 240 =
 * 1840 ns, task 1 takes it, then finds tag 0 already there: done at 1840.
 * Task 0 only sends: done at 0. */
START_TEST(test_unexpected_table)
{
    tp_builder b;
    tp_builder_init(&b, 2, 1);
    tp_send_op(&b, 0, 1, 1000, 0);
    tp_send_op(&b, 0, 1, 2000, 1);
    tp_recv_op(&b, 1, 0, 1);
    tp_recv_op(&b, 1, 0, 0);
    tp_prog p;
    tp_build(&b, &p);
    net_params np = xh_star(2);
    xh h;
    xh_run(&h, "ideal", &np, &p, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 1, 0), 1040 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 1, 1), 1840 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 0), 0);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 1), 1840 * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 1840 * NS);
    xh_assert_once(&h, 2);
    pexec_counts c;
    pexec_get_counts(h.x, &c);
    ck_assert_uint_eq(c.sent, 2);
    ck_assert_uint_eq(c.delivered, 2);
    ck_assert_uint_eq(c.bytes_delivered, 3000);
    ck_assert_uint_eq(c.tasks_done, 2);
    xh_close(&h);
    tp_prog_free(&p);
}
END_TEST

/* Compute phases and causality: task 0 computes 300 ns, sends 1000 B to
 * task 1 (ideal: delivered 300 + 1040 = 1340 ns); task 1 receives, computes
 * 500 ns (until 1840), replies; task 0 receives at 1840 + 1040 = 2880 ns.
 * compute total 800 ns. A zero compute costs nothing and no event. */
START_TEST(test_compute_pingpong)
{
    tp_builder b;
    tp_builder_init(&b, 2, 1);
    tp_compute_op(&b, 0, 300 * NS);
    tp_send_op(&b, 0, 1, 1000, 0);
    tp_compute_op(&b, 0, 0);
    tp_recv_op(&b, 0, 1, 0);
    tp_recv_op(&b, 1, 0, 0);
    tp_compute_op(&b, 1, 500 * NS);
    tp_send_op(&b, 1, 0, 1000, 0);
    tp_prog p;
    tp_build(&b, &p);
    net_params np = xh_star(4);
    uint32_t map[2] = {3, 1}; /* any injection: the ideal fabric does not care */
    xh h;
    xh_run(&h, "ideal", &np, &p, map, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(xh_dlv_ps(&h, 3, 1, 0), 1340 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 1, 3, 0), 2880 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 1), 1840 * NS);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 0), 2880 * NS);
    pexec_counts c;
    pexec_get_counts(h.x, &c);
    ck_assert_int_eq(c.compute_ps, 800 * NS);
    xh_close(&h);
    tp_prog_free(&p);
}
END_TEST

/* The §0 diagnosis, verbatim: task 5 waits for (src 2, tag 3), which no
 * one sends; task 4 also waits (for 1, tag 0). */
START_TEST(test_blocked_diagnosis)
{
    tp_builder b;
    tp_builder_init(&b, 6, 1);
    tp_recv_op(&b, 5, 2, 3);
    tp_recv_op(&b, 4, 1, 0);
    tp_prog p;
    tp_build(&b, &p);
    net_params np = xh_star(6);
    xh h;
    xh_run(&h, "ideal", &np, &p, NULL, 1);
    ck_assert_int_eq(h.rc, -1);
    ck_assert_str_eq(h.err, "task 4 blocked on recv(src=1, tag=0) (and 1 more task not finished)");
    ck_assert_int_eq(pexec_done_ps(h.x), -1);
    ck_assert_int_eq(pexec_task_done_ps(h.x, 3), 0);
    xh_close(&h);
    tp_prog_free(&p);

    tp_builder_init(&b, 6, 1);
    tp_recv_op(&b, 5, 2, 3);
    tp_build(&b, &p);
    xh_run(&h, "ideal", &np, &p, NULL, 1);
    ck_assert_int_eq(h.rc, -1);
    ck_assert_str_eq(h.err, "task 5 blocked on recv(src=2, tag=3)");
    xh_close(&h);
    tp_prog_free(&p);
}
END_TEST

/* Exactly once, the other way round: a second message of a (src, tag)
 * with one recv stays in the table; a message no recv takes is refused. */
START_TEST(test_unreceived_and_foreign)
{
    tp_builder b;
    tp_builder_init(&b, 2, 1);
    tp_send_op(&b, 0, 1, 1000, 0);
    tp_send_op(&b, 0, 1, 1000, 0);
    tp_recv_op(&b, 1, 0, 0);
    tp_prog p;
    tp_build(&b, &p);
    net_params np = xh_star(2);
    xh h;
    xh_run(&h, "ideal", &np, &p, NULL, 1);
    ck_assert_int_eq(h.rc, -1);
    ck_assert_str_eq(h.err, "task 1 finished with 1 message from task 0 (tag 0) never received");
    xh_close(&h);
    tp_prog_free(&p);

    tp_builder_init(&b, 2, 1);
    tp_send_op(&b, 0, 1, 1000, 7);
    tp_build(&b, &p);
    xh_run(&h, "ideal", &np, &p, NULL, 1);
    ck_assert_int_eq(h.rc, -1);
    ck_assert_msg(strstr(h.err, "1 deliveries refused") != NULL, "%s", h.err);
    xh_close(&h);
    tp_prog_free(&p);
}
END_TEST

/* A bad mapping is an error, not an abort. */
START_TEST(test_bad_mapping)
{
    tp_builder b;
    tp_builder_init(&b, 3, 1);
    tp_prog p;
    tp_build(&b, &p);
    char err[256];
    uint32_t twice[3] = {0, 2, 2};
    ck_assert_ptr_null(pexec_create(&p, twice, 4, XH_KIND, err, sizeof err));
    ck_assert_str_eq(err, "task 2 mapped to node 2: node already taken");
    uint32_t far[3] = {0, 1, 4};
    ck_assert_ptr_null(pexec_create(&p, far, 4, XH_KIND, err, sizeof err));
    ck_assert_str_eq(err, "task 2 mapped to node 4: no such node");
    ck_assert_ptr_null(pexec_create(&p, NULL, 2, XH_KIND, err, sizeof err));
    ck_assert_str_eq(err, "3 tasks do not fit on 2 nodes");
    tp_prog_free(&p);
}
END_TEST

/* Phases (B1 barrier): phase 0 = {0->1, 2->3} at t = 0; phase 1 = {1->2}
 * after phase 0; phase 2 = {3->0} after phase 1. Switch, 1000 B: phase 0
 * delivers both at 1040 (distinct sources and ports); phase 1 is handed over
 * at 1040 and delivered at 2080; phase 2 at 2080 -> 3120. Spans per tag
 * (tag = phase): 1040 each. A phase without messages (phase 3, after 2) is
 * complete at its release, so phase 4 (after 3) goes at once too: 3->1 at
 * 3120 -> 4160. */
START_TEST(test_phases)
{
    tp_builder b;
    tp_builder_init(&b, 4, 1);
    uint32_t k = tp_phase_begin(&b, 0, TP_AT_START);
    tp_phase_send(&b, 0, 1, 1000, 0);
    tp_phase_send(&b, 2, 3, 1000, 0);
    tp_recv_op(&b, 1, 0, 0);
    tp_recv_op(&b, 3, 2, 0);
    k = tp_phase_begin(&b, 0, k);
    tp_phase_send(&b, 1, 2, 1000, 1);
    tp_recv_op(&b, 2, 1, 1);
    k = tp_phase_begin(&b, 0, k);
    tp_phase_send(&b, 3, 0, 1000, 2);
    tp_recv_op(&b, 0, 3, 2);
    k = tp_phase_begin(&b, 0, k); /* empty */
    tp_phase_begin(&b, 0, k);
    tp_phase_send(&b, 3, 1, 1000, 3);
    tp_recv_op(&b, 1, 3, 3);
    tp_prog p;
    tp_build(&b, &p);
    net_params np = xh_star(4);
    xh h;
    xh_run(&h, "electrical-switch", &np, &p, NULL, 1);
    ck_assert_msg(h.rc == 0, "%s", h.err);
    ck_assert_int_eq(xh_dlv_ps(&h, 0, 1, 0), 1040 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 2, 3, 0), 1040 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 1, 2, 1), 2080 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 3, 0, 2), 3120 * NS);
    ck_assert_int_eq(xh_dlv_ps(&h, 3, 1, 3), 4160 * NS);
    ck_assert_int_eq(pexec_done_ps(h.x), 4160 * NS);
    pexec_spans sp;
    pexec_tag_spans(h.x, 0, &sp);
    ck_assert_uint_eq(sp.tags, 4);
    ck_assert_double_eq(sp.mean_ps, 1040.0 * NS);
    ck_assert_int_eq(sp.max_ps, 1040 * NS);
    int64_t a, z;
    ck_assert_uint_eq(pexec_tag_span(h.x, 0, 1, &a, &z), 1);
    ck_assert_int_eq(a, 1040 * NS);
    ck_assert_int_eq(z, 2080 * NS);
    /* Bound: the chain 1040 + 1040 + 1040 + 0 + 1040: the run meets it. L0
     * from the fabric: the switch's zero-load latency of 0 bytes, 240 ns. */
    ck_assert_int_eq(pexec_fixed_ps(h.x, h.h->n), FIXED_PS);
    ck_assert_int_eq(tp_lower_bound_ps(&p, 0, B10, FIXED_PS), 4160 * NS);
    xh_close(&h);
    tp_prog_free(&p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prog_exec");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_builder_layout);
    tcase_add_test(tc, test_lower_bound);
    tcase_add_test(tc, test_mapping);
    tcase_add_test(tc, test_unexpected_table);
    tcase_add_test(tc, test_compute_pingpong);
    tcase_add_test(tc, test_blocked_diagnosis);
    tcase_add_test(tc, test_unreceived_and_foreign);
    tcase_add_test(tc, test_bad_mapping);
    tcase_add_test(tc, test_phases);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(suite)
