/* Replays of the traces tests/check_mpi_tracer.sh made with the tracer
 * (libtasknet-mpitrace.so) of tests/mpi/'s programs, 4 ranks each, in
 * $TASKNET_MPI_TRACES: <name>.otf2 and <name>.out (what each rank printed:
 * "tasknet-mpi rank=R sent_messages=N sent_bytes=B").
 *   - the trace's point-to-point sends and bytes per rank are what the
 *     program counted and printed;
 *   - the replay on the switch matches every message (finish fails
 *     otherwise), sends the same messages and bytes, and replays the
 *     trace's computation (compute-scale 1: equal);
 *   - with compute-scale 0, the ping-pong's and the ring's times by hand
 *     (§4 star: T(1000 B) = 1040 ns): ping-pong 10 round trips = 20 x 1040
 *     = 20800 ns, then the barrier (recursive doubling over 4: ranks 2, 3
 *     wait in it since 480 ns; rank 1 enters at its last send, 19760, rank
 *     0 at its last receive, 20800; 0 -> 1 arrives at 21040, 1 -> 3 at
 *     21280): 21280 ns; ring: 10 steps in which every rank sends 1000 B to
 *     its neighbour, each port fed once: 10 x 1040 = 10400 ns. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mpitrace.h"
#include "workload.h"

static const char *dir(void)
{
    const char *d = getenv("TASKNET_MPI_TRACES");
    ck_assert_msg(d != NULL, "run through tests/check_mpi_tracer.sh (TASKNET_MPI_TRACES unset)");
    return d;
}

/* What rank r printed. */
static void printed(const char *name, uint32_t ranks, long *msgs, long *bytes)
{
    char path[600], line[256];
    snprintf(path, sizeof path, "%s/%s.out", dir(), name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    uint32_t seen = 0;
    while (fgets(line, sizeof line, f)) {
        int r;
        long m, b;
        if (sscanf(line, "tasknet-mpi rank=%d sent_messages=%ld sent_bytes=%ld", &r, &m, &b) == 3 && r >= 0 &&
            (uint32_t)r < ranks) {
            msgs[r] = m;
            bytes[r] = b;
            seen++;
        }
    }
    fclose(f);
    ck_assert_uint_eq(seen, ranks);
}

static th_run *replay(const char *name, const char *scale)
{
    char file[700], sc[64];
    snprintf(file, sizeof file, "workload.file=%s/%s.otf2", dir(), name);
    snprintf(sc, sizeof sc, "workload.compute-scale=%s", scale);
    const char *sets[] = {file, sc, NULL};
    th_run *h = calloc(1, sizeof *h);
    net_params core = th_star(4, 10e9);
    void *wp = th_wl_params(th_wl_ops("mpi-trace"), sets);
    ck_assert_msg(th_run_open(h, "electrical-switch", &core, NULL, "mpi-trace", wp, 1, 0) == 0, "%s", h->err);
    th_run_go(h);
    ck_assert_msg(th_run_finish(h) == 0, "%s: %s", name, h->err);
    return h;
}

static void done(th_run *h)
{
    th_run_close(h);
    free(h);
}

static void check_program(const char *name, double hand_ns)
{
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/%s.otf2", dir(), name);
    mt_trace t;
    ck_assert_msg(mt_load(path, &t, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.ranks, 4);
    long pm[4], pb[4], tm = 0, tb = 0;
    printed(name, 4, pm, pb);
    double tcomp = 0;
    for (uint32_t r = 0; r < 4; r++) {
        long m = 0, b = 0;
        for (uint64_t k = t.start[r]; k < t.start[r + 1]; k++)
            if (t.ops[k].kind == MT_SEND || t.ops[k].kind == MT_ISEND) {
                m++;
                b += (long)t.ops[k].bytes;
            }
        ck_assert_msg(m == pm[r] && b == pb[r], "%s rank %u: the trace sends %ld messages, %ld B; the program %ld, %ld",
                      name, r, m, b, pm[r], pb[r]);
        tm += m;
        tb += b;
        tcomp += (double)t.compute_ps[r] * 1e-12;
    }
    mt_free(&t);

    th_run *h = replay(name, "1");
    ck_assert_double_eq(th_metric(h, "p2p_messages"), (double)tm);
    ck_assert_double_eq(th_metric(h, "p2p_bytes"), (double)tb);
    ck_assert_msg(fabs(th_metric(h, "compute_time_s") - tcomp) <= 1e-12 * tcomp + 4e-12,
                  "%s: computation replayed %.12g s, traced %.12g s", name, th_metric(h, "compute_time_s"), tcomp);
    ck_assert_msg(fabs(th_metric(h, "trace_compute_time_s") - tcomp) <= 1e-12 * tcomp + 4e-12, "%s", name);
    done(h);
    if (hand_ns > 0) {
        h = replay(name, "0");
        ck_assert_msg(fabs(th_metric(h, "replay_time_s") - hand_ns * 1e-9) < 1e-15, "%s: replay %.12g s, by hand %.12g",
                      name, th_metric(h, "replay_time_s"), hand_ns * 1e-9);
        done(h);
    }
}

START_TEST(test_pingpong) { check_program("pingpong", 21280); }
END_TEST

START_TEST(test_ring) { check_program("ring", 10400); }
END_TEST

/* CG: 25 iterations, 2 allreduces each and one before: 51 collectives; the
 * halo messages as printed (rank 0 and 3 one neighbour, 1 and 2 two). */
START_TEST(test_cg)
{
    check_program("cg", 0);
    th_run *h = replay("cg", "1");
    ck_assert_double_eq(th_metric(h, "collectives"), 51);
    done(h);
}
END_TEST

/* Communicators (tests/mpi/comms.c, 10 iterations of 1000 B): world split
 * by parity into {0, 2} and {1, 3} and duplicated. The trace defines
 * those three besides world (the reader's comms: its kept index 0, world,
 * and the three, members as world ranks in the order of their ranks);
 * the ring inside a half sends to the half's other member, i.e. world
 * rank 0 <-> 2 and 1 <-> 3 (half ranks translated); every rank joins 30
 * collectives (10 allreduces and 10 reduces in its half, 10 bcasts on the
 * dup with root 1 of the dup = world rank 1), as it printed; a half's
 * reduce has root 1, the half's member 1 (world 2 or 3), which alone
 * records receiving its 8 bytes (sizes by the communicator's rank, not the
 * world's); the replay matches every message (finish) and counts 10 x (2
 * allreduce + 2 reduce instances, one per half, + 1 bcast) = 50. */
START_TEST(test_comms)
{
    check_program("comms", 0);
    char path[600], err[512], line[256];
    snprintf(path, sizeof path, "%s/comms.otf2", dir());
    mt_trace t;
    ck_assert_msg(mt_load(path, &t, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.ncomms, 5);
    int even = -1, odd = -1, dup = -1, world = -1;
    for (uint32_t c = 1; c < t.ncomms; c++) {
        const mt_comm *m = &t.comms[c];
        if (m->size == 2 && m->members[0] == 0 && m->members[1] == 2)
            even = (int)c;
        else if (m->size == 2 && m->members[0] == 1 && m->members[1] == 3)
            odd = (int)c;
        else if (m->size == 4 && m->members[0] == 0 && m->members[1] == 1 && m->members[2] == 2 && m->members[3] == 3)
            world < 0 ? (world = (int)c) : (dup = (int)c);
    }
    ck_assert_msg(even > 0 && odd > 0 && dup > 0 && world > 0, "comms: even %d odd %d world %d dup %d", even, odd,
                  world, dup);
    long pc[4] = {-1, -1, -1, -1};
    snprintf(path, sizeof path, "%s/comms.out", dir());
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    while (fgets(line, sizeof line, f)) {
        int r;
        long m, b, c;
        if (sscanf(line, "tasknet-mpi rank=%d sent_messages=%ld sent_bytes=%ld collectives=%ld", &r, &m, &b, &c) == 4 &&
            r >= 0 && r < 4)
            pc[r] = c;
    }
    fclose(f);
    for (uint32_t r = 0; r < 4; r++) {
        long colls = 0;
        uint32_t half = r % 2 ? (uint32_t)odd : (uint32_t)even;
        for (uint64_t k = t.start[r]; k < t.start[r + 1]; k++) {
            const mt_op *o = &t.ops[k];
            if (o->kind == MT_ISEND || o->kind == MT_IRECV) {
                ck_assert_uint_eq(o->comm, half);
                ck_assert_uint_eq(o->peer, (r + 2) % 4);
            } else if (o->kind == MT_COLL) {
                colls++;
                const mt_coll *x = &t.colls[o->arg];
                ck_assert_uint_eq(x->comm, o->comm);
                ck_assert(o->comm == half || o->comm == (uint32_t)dup);
                if (o->comm == (uint32_t)dup)
                    ck_assert_uint_eq(x->spec.root, 1);
                if (x->spec.op == COLL_REDUCE) {
                    ck_assert_uint_eq(x->spec.root, 1);
                    ck_assert_uint_eq(x->sizes[1], 0); /* member 0 received nothing */
                    ck_assert_uint_eq(x->sizes[3], 8); /* the root, member 1 */
                }
            }
        }
        ck_assert_msg(colls == pc[r], "comms rank %u: %ld collectives traced, %ld printed", r, colls, pc[r]);
    }
    mt_free(&t);
    th_run *h = replay("comms", "1");
    ck_assert_double_eq(th_metric(h, "collectives"), 50);
    done(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mpi_tracer");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pingpong);
    tcase_add_test(tc, test_ring);
    tcase_add_test(tc, test_cg);
    tcase_add_test(tc, test_comms);
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
