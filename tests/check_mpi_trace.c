/* The mpi-trace workload (workloads/wl_mpi_trace.c) on traces written with
 * the OTF2 writer API the way Score-P writes MPI events (jobs/mpitrace.h's
 * writer: Enter/Leave of the call's region around MpiSend, MpiRecv,
 * MpiIsend, MpiIsendComplete, MpiIrecvRequest, MpiIrecv,
 * MpiCollectiveBegin/End; COMM_LOCATIONS and COMM_GROUP groups, the world
 * communicator). Every time is derived by hand beside its assertion. The
 * §4 star: B = 10 Gb/s, link 20 ns, switch 200 ns: m bytes alone take
 * T(m) = 0.8 m + 240 ns; the clock is 1 tick = 1 ns. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "mpitrace.h"
#include "network.h"
#include "workload.h"

#define NSEC 1e-9

static char tmpdir[256];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tasknet-mpi-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static mtw *open_trace(const char *name, uint32_t ranks)
{
    char err[256];
    mtw *w = mtw_open(tmpdir, name, ranks, 1000000000ull, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    return w;
}

static void close_trace(mtw *w)
{
    char err[256];
    ck_assert_msg(mtw_close(w, err, sizeof err) == 0, "%s", err);
}

/* A call of rank r from t0 to t1 holding nothing (Init, Finalize). */
static void call(mtw *w, uint32_t r, uint64_t t0, uint64_t t1, enum mtw_call c)
{
    mtw_enter(w, r, t0, c);
    mtw_leave(w, r, t1, c);
}

static th_run *replay(const char *name, uint32_t N, const char *const *extra)
{
    static char file[512];
    snprintf(file, sizeof file, "workload.file=%s/%s.otf2", tmpdir, name);
    const char *sets[16] = {file};
    size_t k = 1;
    for (size_t i = 0; extra && extra[i] && k < 15; i++)
        sets[k++] = extra[i];
    sets[k] = NULL;
    th_run *h = calloc(1, sizeof *h);
    net_params core = th_star(N, 10e9);
    void *wp = th_wl_params(th_wl_ops("mpi-trace"), sets);
    ck_assert_msg(th_run_open(h, "electrical-switch", &core, NULL, "mpi-trace", wp, 1, 0) == 0, "%s", h->err);
    th_run_go(h);
    ck_assert_msg(th_run_finish(h) == 0, "%s", h->err);
    return h;
}

static void done(th_run *h)
{
    th_run_close(h);
    free(h);
}

#define ck_near(x, want) ck_assert_msg(fabs((x) - (want)) <= 1e-9 * fabs(want) + 1e-15, "%.17g, expected %.17g", (double)(x), (double)(want))

/* One message of S bytes, 0 -> 1 (tag 7), MPI_Send against MPI_Recv; the
 * receiver computes `late` ns after MPI_Init before its receive. */
static void one_message(const char *name, uint64_t S, uint64_t late)
{
    mtw *w = open_trace(name, 2);
    call(w, 0, 0, 0, MTW_INIT);
    mtw_enter(w, 0, 0, MTW_SEND);
    mtw_send(w, 0, 0, 1, 7, S);
    mtw_leave(w, 0, 5, MTW_SEND);
    call(w, 0, 5, 5, MTW_FINALIZE);
    call(w, 1, 0, 0, MTW_INIT);
    mtw_enter(w, 1, late, MTW_RECV);
    mtw_recv(w, 1, late + 50, 0, 7, S);
    mtw_leave(w, 1, late + 50, MTW_RECV);
    call(w, 1, late + 50, late + 50, MTW_FINALIZE);
    close_trace(w);
}

/* Eager (1000 B < 64 kB): the data leaves at 0 and arrives at T(1000) =
 * 1040 ns; the send completes at once, so rank 0 spends 0 in MPI and rank
 * 1 1040 ns. Rendezvous (100 kB >= 64 kB, control messages of 64 B, T(64)
 * = 291.2 ns): RTS at 291.2, CTS back at 582.4, data T(1e5) = 80240 ns
 * later: 80822.4 ns, both ranks in MPI all along. With the receive posted
 * at 10 us: eager: the data waits unexpected since 1040 ns, the receive
 * completes at 10 us (MPI time 0 on both ranks: rank 1 computes 10 us);
 * rendezvous: the RTS waits, the CTS leaves at 10 us: 10000 + 291.2 +
 * 80240 = 90531.2 ns; rank 0 in MPI all along, rank 1 80531.2 ns. An
 * eager-limit of exactly the size goes by rendezvous. */
START_TEST(test_eager_rendezvous)
{
    one_message("eager", 1000, 0);
    th_run *h = replay("eager", 2, NULL);
    ck_near(th_metric(h, "replay_time_s"), 1040 * NSEC);
    ck_assert_double_eq(th_metric(h, "eager_messages"), 1);
    ck_assert_double_eq(th_metric(h, "rendezvous_messages"), 0);
    ck_assert_double_eq(th_metric(h, "control_messages"), 0);
    ck_near(th_metric(h, "mpi_time_mean_s"), 520 * NSEC);
    ck_near(th_metric(h, "mpi_time_max_s"), 1040 * NSEC);
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 1);
    done(h);

    one_message("rdv", 100000, 0);
    h = replay("rdv", 2, NULL);
    ck_near(th_metric(h, "replay_time_s"), 80822.4 * NSEC);
    ck_assert_double_eq(th_metric(h, "rendezvous_messages"), 1);
    ck_assert_double_eq(th_metric(h, "control_messages"), 2);
    ck_assert_double_eq(th_metric(h, "p2p_bytes"), 100000);
    ck_near(th_metric(h, "mpi_share_mean"), 1.0);
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 3);
    done(h);

    one_message("eager_late", 1000, 10000);
    h = replay("eager_late", 2, NULL);
    ck_near(th_metric(h, "replay_time_s"), 10000 * NSEC);
    ck_near(th_metric(h, "compute_time_s"), 10000 * NSEC);
    ck_near(th_metric(h, "trace_compute_time_s"), 10000 * NSEC);
    ck_near(th_metric(h, "mpi_time_max_s"), 0.0);
    done(h);

    one_message("rdv_late", 100000, 10000);
    h = replay("rdv_late", 2, NULL);
    ck_near(th_metric(h, "replay_time_s"), 90531.2 * NSEC);
    ck_near(th_metric(h, "mpi_time_mean_s"), (90531.2 + 80531.2) / 2 * NSEC);
    done(h);

    const char *lim[] = {"workload.eager-limit=1000B", NULL};
    h = replay("eager", 2, lim);
    ck_assert_double_eq(th_metric(h, "rendezvous_messages"), 1);
    /* RTS and CTS (291.2 each) then the data (1040): 1622.4 ns */
    ck_near(th_metric(h, "replay_time_s"), 1622.4 * NSEC);
    done(h);

    /* compute-scale 0.5: the receiver posts at 5 us: eager completes there */
    const char *half[] = {"workload.compute-scale=0.5", NULL};
    h = replay("eager_late", 2, half);
    ck_near(th_metric(h, "replay_time_s"), 5000 * NSEC);
    ck_near(th_metric(h, "compute_time_s"), 5000 * NSEC);
    done(h);
}
END_TEST

/* One collective on n ranks, all entering at 0: a Bcast of S bytes from
 * rank 0, or an Allreduce of S bytes. */
static void one_coll(const char *name, uint32_t n, enum mtw_call c, uint64_t S)
{
    mtw *w = open_trace(name, n);
    for (uint32_t r = 0; r < n; r++) {
        call(w, r, 0, 0, MTW_INIT);
        mtw_enter(w, r, 0, c);
        mtw_coll_begin(w, r, 0);
        if (c == MTW_BCAST)
            mtw_coll_end(w, r, 90, c, 0, r == 0 ? S : 0, r == 0 ? 0 : S);
        else
            mtw_coll_end(w, r, 90, c, 0, S, S);
        mtw_leave(w, r, 90, c);
        call(w, r, 90, 90, MTW_FINALIZE);
    }
    close_trace(w);
}

/* A collective's messages follow the point-to-point protocol.
 * Bcast of 100 kB (>= 64 kB) on 2 ranks, binomial: rank 0 sends an RTS
 * (T(64) = 291.2 ns), rank 1, already at its receive, returns the CTS
 * (582.4), the data takes T(1e5) = 80240: 80822.4 ns, as the point-to-point
 * rendezvous above; rank 0 waits for its send's data too (both ranks 80822.4
 * in MPI); 3 messages delivered, 2 of them control. The same bcast of 1000
 * B (< 64 kB) is eager: the data arrives at T(1000) = 1040 ns, rank 0 is
 * through at 0 (MPI time mean 520 ns), 1 message, no control.
 * Allreduce of 100 kB on 2 ranks, recursive doubling: both RTS leave at 0
 * and arrive at 291.2, both CTS at 582.4 (each on its own link: the
 * switch's links are full duplex), both data 80240 later: 80822.4 ns,
 * 2 x 3 messages. With eager-limit 1 MB the same allreduce is eager:
 * both data at T(1e5) = 80240 ns. */
START_TEST(test_collective_rendezvous)
{
    const char *bin[] = {"workload.bcast=binomial", NULL};
    one_coll("bc_rdv", 2, MTW_BCAST, 100000);
    th_run *h = replay("bc_rdv", 2, bin);
    ck_near(th_metric(h, "replay_time_s"), 80822.4 * NSEC);
    ck_assert_double_eq(th_metric(h, "collective_messages"), 1);
    ck_assert_double_eq(th_metric(h, "collective_bytes"), 100000);
    ck_assert_double_eq(th_metric(h, "control_messages"), 2);
    ck_assert_double_eq(th_metric(h, "p2p_messages"), 0);
    ck_assert_double_eq(th_metric(h, "rendezvous_messages"), 0); /* point-to-point only */
    ck_near(th_metric(h, "mpi_time_mean_s"), 80822.4 * NSEC);
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 3);
    done(h);

    one_coll("bc_eager", 2, MTW_BCAST, 1000);
    h = replay("bc_eager", 2, bin);
    ck_near(th_metric(h, "replay_time_s"), 1040 * NSEC);
    ck_near(th_metric(h, "mpi_time_mean_s"), 520 * NSEC);
    ck_assert_double_eq(th_metric(h, "collective_messages"), 1);
    ck_assert_double_eq(th_metric(h, "control_messages"), 0);
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 1);
    done(h);

    /* an eager-limit of exactly the size goes by rendezvous, as point-to-point:
     * RTS and CTS (291.2 each) then the data (1040): 1622.4 ns */
    const char *lim[] = {"workload.bcast=binomial", "workload.eager-limit=1000B", NULL};
    h = replay("bc_eager", 2, lim);
    ck_near(th_metric(h, "replay_time_s"), 1622.4 * NSEC);
    ck_assert_double_eq(th_metric(h, "control_messages"), 2);
    done(h);

    const char *rd[] = {"workload.allreduce=recursive-doubling", NULL};
    one_coll("ar_rdv", 2, MTW_ALLREDUCE, 100000);
    h = replay("ar_rdv", 2, rd);
    ck_near(th_metric(h, "replay_time_s"), 80822.4 * NSEC);
    ck_assert_double_eq(th_metric(h, "collective_messages"), 2);
    ck_assert_double_eq(th_metric(h, "collective_bytes"), 200000);
    ck_assert_double_eq(th_metric(h, "control_messages"), 4);
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 6);
    done(h);

    const char *rd_eager[] = {"workload.allreduce=recursive-doubling", "workload.eager-limit=1MB", NULL};
    h = replay("ar_rdv", 2, rd_eager);
    ck_near(th_metric(h, "replay_time_s"), 80240 * NSEC);
    ck_assert_double_eq(th_metric(h, "control_messages"), 0);
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 2);
    done(h);

    /* Bcast of 1000 B on 3 ranks, pipeline (one segment: 0 -> 1 -> 2) with
     * eager-limit 1000 B: hop 0 -> 1 by rendezvous, 291.2 + 291.2 + 1040 =
     * 1622.4 ns; rank 1 then sends on the same way: rank 2's data at 3244.8
     * ns, and rank 1 ends there too (it waits for its send's data), rank 0
     * at 1622.4: MPI time mean (1622.4 + 2 x 3244.8) / 3 = 2704 ns. Eager
     * (the default 64 kB): 1040 per hop, rank 1 through at 2080 when it
     * sends, rank 0 at 0: replay 2080 ns, MPI mean (0 + 1040 + 2080) / 3. */
    one_coll("pipe", 3, MTW_BCAST, 1000);
    const char *pipe_rdv[] = {"workload.bcast=pipeline", "workload.eager-limit=1000B", NULL};
    h = replay("pipe", 3, pipe_rdv);
    ck_near(th_metric(h, "replay_time_s"), 3244.8 * NSEC);
    ck_near(th_metric(h, "mpi_time_mean_s"), 2704 * NSEC);
    ck_near(th_metric(h, "mpi_time_max_s"), 3244.8 * NSEC);
    ck_assert_double_eq(th_metric(h, "collective_messages"), 2);
    ck_assert_double_eq(th_metric(h, "control_messages"), 4);
    done(h);
    const char *pipe_eager[] = {"workload.bcast=pipeline", NULL};
    h = replay("pipe", 3, pipe_eager);
    ck_near(th_metric(h, "replay_time_s"), 2080 * NSEC);
    ck_near(th_metric(h, "mpi_time_mean_s"), 1040 * NSEC);
    ck_assert_double_eq(th_metric(h, "control_messages"), 0);
    done(h);
}
END_TEST

/* A program as Score-P records it, on 4 ranks: Init; 2 us of work; a ring
 * exchange by Isend/Irecv + Waitall (8000 B, to r+1, from r-1, tag 1);
 * MPI_Sendrecv with the partner r ^ 1 (200 kB: rendezvous both ways);
 * Allreduce of 8 B, Bcast of 4000 B from rank 2, Barrier; Finalize. Every
 * message matched (finish would fail otherwise), the sends and bytes as
 * written, the computation as in the trace. Times: the ring step T(8000)
 * = 6640 ns after 2 us; then the Sendrecv pairs: both RTS (T(64) =
 * 291.2), both CTS, both data (T(200000) = 160240): 8640 + 3 parts =
 * 8640 + 291.2 + 291.2 + 160240 = 169462.4 ns at every rank; the
 * allreduce of 8 B (recursive doubling, < 10000 B: 2 rounds of T(8) =
 * 246.4), the bcast of 4000 B from 2 (scatter-allgather by Open MPI's
 * rule, 2048 <= 4000 < 370728) and the barrier (recursive doubling, 2
 * rounds of 240) follow. */
START_TEST(test_scorep_program)
{
    mtw *w = open_trace("prog", 4);
    uint64_t req = 100;
    for (uint32_t r = 0; r < 4; r++) {
        uint64_t t = 0;
        call(w, r, t, t, MTW_INIT);
        t += 2000; /* computation */
        mtw_enter(w, r, t, MTW_ISEND);
        mtw_isend(w, r, t, (r + 1) % 4, 1, 8000, req);
        mtw_leave(w, r, t, MTW_ISEND);
        mtw_enter(w, r, t, MTW_IRECV);
        mtw_irecv_request(w, r, t, req + 1);
        mtw_leave(w, r, t, MTW_IRECV);
        mtw_enter(w, r, t, MTW_WAITALL);
        mtw_isend_complete(w, r, t + 10, req);
        mtw_irecv(w, r, t + 6000, (r + 3) % 4, 1, 8000, req + 1);
        mtw_leave(w, r, t + 6000, MTW_WAITALL);
        t += 6000;
        mtw_enter(w, r, t, MTW_SENDRECV);
        mtw_send(w, r, t, r ^ 1, 2, 200000);
        mtw_recv(w, r, t + 100000, r ^ 1, 2, 200000);
        mtw_leave(w, r, t + 100000, MTW_SENDRECV);
        t += 100000;
        mtw_enter(w, r, t, MTW_ALLREDUCE);
        mtw_coll_begin(w, r, t);
        mtw_coll_end(w, r, t + 500, MTW_ALLREDUCE, 0, 8, 8);
        mtw_leave(w, r, t + 500, MTW_ALLREDUCE);
        t += 1500; /* 1 us of work */
        mtw_enter(w, r, t, MTW_BCAST);
        mtw_coll_begin(w, r, t);
        mtw_coll_end(w, r, t + 700, MTW_BCAST, 2, r == 2 ? 12000 : 0, r == 2 ? 0 : 4000);
        mtw_leave(w, r, t + 700, MTW_BCAST);
        t += 700;
        mtw_enter(w, r, t, MTW_BARRIER);
        mtw_coll_begin(w, r, t);
        mtw_coll_end(w, r, t + 300, MTW_BARRIER, 0, 0, 0);
        mtw_leave(w, r, t + 300, MTW_BARRIER);
        t += 300;
        call(w, r, t, t, MTW_FINALIZE);
        req += 2;
    }
    close_trace(w);

    th_run *h = replay("prog", 4, NULL);
    ck_assert_double_eq(th_metric(h, "ranks"), 4);
    ck_assert_double_eq(th_metric(h, "p2p_messages"), 8); /* 4 ring + 4 sendrecv */
    ck_assert_double_eq(th_metric(h, "p2p_bytes"), 4 * 8000 + 4 * 200000);
    ck_assert_double_eq(th_metric(h, "rendezvous_messages"), 4);
    ck_assert_double_eq(th_metric(h, "control_messages"), 8);
    ck_assert_double_eq(th_metric(h, "collectives"), 3);
    /* allreduce 8 (recursive doubling), bcast scatter-allgather 3 + 12 (4000 B
     * in 4 blocks of 1000: the scatter carries 2000 + 1000 + 1000, the ring
     * 12 x 1000), barrier 8 */
    ck_assert_double_eq(th_metric(h, "collective_messages"), 8 + 15 + 8);
    ck_assert_double_eq(th_metric(h, "collective_bytes"), 8 * 8 + 4000 + 12000 + 0);
    /* 4 ranks x (2 us + 1 us) of computation, replayed as traced */
    ck_near(th_metric(h, "compute_time_s"), 12000 * NSEC);
    ck_near(th_metric(h, "trace_compute_time_s"), 12000 * NSEC);
    /* per rank: Isend, Irecv, 2 waits, Sendrecv's isend + irecv + 2 waits, 3 collectives */
    ck_assert_double_eq(th_metric(h, "mpi_events"), 4 * 11);
    double t = th_metric(h, "replay_time_s");
    ck_assert_msg(t > 169462.4 * NSEC + 1000 * NSEC && t < 200000 * NSEC, "replay %g s", t);
    done(h);

    /* algorithms chosen per operation: a linear bcast: 3 messages of 4000 B */
    const char *lin[] = {"workload.bcast=linear", "workload.allreduce=halving-doubling", NULL};
    h = replay("prog", 4, lin);
    ck_assert_double_eq(th_metric(h, "collective_messages"), 16 + 3 + 8); /* rabenseifner on 4: 16 */
    done(h);

    /* eager-limit 0: every message by rendezvous (the barrier's 0 B ones too):
     * still every message matched (finish checks it), the same 31
     * collective messages, each with an RTS and a CTS, and the 8
     * point-to-point ones; slower than the run above with 64 kB */
    const char *all[] = {"workload.eager-limit=0B", NULL};
    h = replay("prog", 4, all);
    ck_assert_double_eq(th_metric(h, "collective_messages"), 8 + 15 + 8);
    ck_assert_double_eq(th_metric(h, "collective_bytes"), 8 * 8 + 4000 + 12000 + 0);
    ck_assert_double_eq(th_metric(h, "rendezvous_messages"), 8);
    ck_assert_double_eq(th_metric(h, "control_messages"), 2 * 8 + 2 * 31);
    ck_assert_double_eq(th_net_metric(h->n, "messages_delivered"), 3 * (8 + 31));
    ck_assert_msg(th_metric(h, "replay_time_s") > t, "replay %g s", th_metric(h, "replay_time_s"));
    done(h);
}
END_TEST

START_TEST(test_errors)
{
    char err[512];
    mt_trace t;
    ck_assert_int_eq(mt_load("/nonexistent/traces.otf2", &t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/nonexistent/traces.otf2"), "%s", err);
    /* a bcast algorithm the module does not have for bcast */
    one_message("e", 10, 0);
    char file[512];
    snprintf(file, sizeof file, "workload.file=%s/e.otf2", tmpdir);
    const char *sets[] = {file, "workload.bcast=ring", NULL};
    void *wp = th_wl_params(th_wl_ops("mpi-trace"), sets);
    param_first first;
    net_params core = th_star(2, 10e9);
    th_wl_ops("mpi-trace")->check(&core, wp, param_report_first(&first, err, sizeof err));
    ck_assert_msg(first.rep.n == 1 && strstr(err, "bcast has no algorithm 'ring'"), "%s", err);
    wl_params_free(th_wl_ops("mpi-trace"), wp);
    /* more ranks than nodes */
    mtw *w = open_trace("big", 3);
    for (uint32_t r = 0; r < 3; r++)
        call(w, r, 0, 0, MTW_INIT);
    close_trace(w);
    snprintf(file, sizeof file, "workload.file=%s/big.otf2", tmpdir);
    const char *s2[] = {file, NULL};
    wp = th_wl_params(th_wl_ops("mpi-trace"), s2);
    th_run h;
    memset(&h, 0, sizeof h);
    ck_assert_int_ne(th_run_open(&h, "electrical-switch", &core, NULL, "mpi-trace", wp, 1, 0), 0);
    ck_assert_msg(strstr(h.err, "3 ranks"), "%s", h.err);
    th_run_close(&h); /* a failed open still holds its simulator, fabric and params */
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mpi_trace");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_eager_rendezvous);
    tcase_add_test(tc, test_collective_rendezvous);
    tcase_add_test(tc, test_scorep_program);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
