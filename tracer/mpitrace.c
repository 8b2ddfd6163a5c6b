/* libtasknet-mpitrace.so: a PMPI tracer writing OTF2 (issue 20 item 3).
 *
 *   mpirun -np 4 -x LD_PRELOAD=/path/libtasknet-mpitrace.so \
 *          -x TASKNET_MPITRACE=out/traces.otf2 ./app
 *
 * Intercepts, through the MPI profiling interface (PMPI), MPI_Init(_thread),
 * MPI_Finalize, MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Wait,
 * MPI_Waitall, MPI_Sendrecv, MPI_Barrier, MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v),
 * MPI_Alltoall(v) and MPI_Reduce_scatter on MPI_COMM_WORLD, and records
 * them as Score-P does (jobs/mpitrace.h's writer: Enter/Leave of the call's
 * region around MpiSend, MpiRecv, MpiIsend, MpiIsendComplete,
 * MpiIrecvRequest, MpiIrecv, MpiCollectiveBegin/End). Times: CLOCK_REALTIME
 * in ns, relative to rank 0's MPI_Init (broadcast then). Sizes: count x
 * the datatype's size; a receive's from its status; collectives as
 * jobs/mpitrace.h reads them (bcast: received; reduce, allreduce, gather,
 * allgather: sent; scatter, reduce-scatter: received; alltoall(v): all sent).
 * Each rank keeps its records in memory; at MPI_Finalize every rank writes
 * them to <archive>.rank<r>.tmp, and after a barrier rank 0 writes the OTF2
 * archive with OTF2's writer API and removes the temporary files.
 * Communicators other than MPI_COMM_WORLD are not traced (a call on one is
 * passed through unrecorded, and the tracer says so at the end). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "mpitrace.h"

enum { R_ENTER = 1, R_LEAVE, R_SEND, R_RECV, R_ISEND, R_ISEND_DONE, R_IRECV_REQ, R_IRECV, R_COLL_BEGIN, R_COLL_END };

typedef struct rec {
    uint8_t type;
    uint8_t call;   /* enum mtw_call */
    uint32_t peer;  /* dst / src / root */
    uint32_t tag;
    uint64_t t;     /* ns */
    uint64_t bytes; /* sent */
    uint64_t b2;    /* received / request id */
} rec;

static rec *recs;
static size_t nrec, caprec;
static int me = -1, nprocs;
static uint64_t t0;
static uint64_t other_comm_calls;
static uint64_t next_req = 1;

typedef struct open_req {
    MPI_Request h;
    uint64_t id;
    int recv;
    int tsize;
} open_req;
static open_req *reqs;
static size_t nreq, capreq;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - t0;
}

static void put(rec r)
{
    if (nrec == caprec) {
        caprec = caprec ? 2 * caprec : 4096;
        recs = realloc(recs, caprec * sizeof *recs);
        if (!recs) {
            fprintf(stderr, "tasknet-mpitrace: out of memory\n");
            abort();
        }
    }
    recs[nrec++] = r;
}

static void enter(enum mtw_call c) { put((rec){.type = R_ENTER, .call = (uint8_t)c, .t = now_ns()}); }
static void leave(enum mtw_call c) { put((rec){.type = R_LEAVE, .call = (uint8_t)c, .t = now_ns()}); }

static uint64_t tsize(MPI_Datatype d)
{
    int s = 0;
    PMPI_Type_size(d, &s);
    return (uint64_t)s;
}

static int world(MPI_Comm c)
{
    int r = 0;
    if (c == MPI_COMM_WORLD)
        return 1;
    PMPI_Comm_compare(c, MPI_COMM_WORLD, &r);
    if (r == MPI_IDENT || r == MPI_CONGRUENT)
        return 1;
    other_comm_calls++;
    return 0;
}

static void req_add(MPI_Request h, uint64_t id, int recv, int ts)
{
    if (nreq == capreq) {
        capreq = capreq ? 2 * capreq : 64;
        reqs = realloc(reqs, capreq * sizeof *reqs);
    }
    reqs[nreq++] = (open_req){h, id, recv, ts};
}

static int req_find(MPI_Request h)
{
    for (size_t i = nreq; i-- > 0;)
        if (memcmp(&reqs[i].h, &h, sizeof h) == 0)
            return (int)i;
    return -1;
}

/* A request completed with status st: its completion record. */
static void req_done(int i, MPI_Status *st, uint64_t t)
{
    open_req q = reqs[i];
    reqs[i] = reqs[--nreq];
    if (!q.recv) {
        put((rec){.type = R_ISEND_DONE, .t = t, .b2 = q.id});
        return;
    }
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    put((rec){.type = R_IRECV, .t = t, .peer = (uint32_t)st->MPI_SOURCE, .tag = (uint32_t)st->MPI_TAG,
              .bytes = (uint64_t)n, .b2 = q.id});
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    uint64_t base = now_ns();
    PMPI_Bcast(&base, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    t0 = base;
    put((rec){.type = R_ENTER, .call = MTW_INIT, .t = 0});
    leave(MTW_INIT);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    uint64_t base = now_ns();
    PMPI_Bcast(&base, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    t0 = base;
    put((rec){.type = R_ENTER, .call = MTW_INIT, .t = 0});
    leave(MTW_INIT);
    return rc;
}

static void archive_name(char *dir, size_t dl, char *name, size_t nl)
{
    const char *p = getenv("TASKNET_MPITRACE");
    if (!p || !*p)
        p = "traces.otf2";
    const char *slash = strrchr(p, '/');
    if (slash)
        snprintf(dir, dl, "%.*s", (int)(slash - p), p);
    else
        snprintf(dir, dl, ".");
    const char *b = slash ? slash + 1 : p;
    size_t l = strlen(b);
    if (l > 5 && strcmp(b + l - 5, ".otf2") == 0)
        l -= 5;
    snprintf(name, nl, "%.*s", (int)l, b);
}

/* mkdir -p dir (the archive's folder need not exist beforehand); 0 or -1 */
static int make_dirs(const char *dir)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int MPI_Finalize(void)
{
    enter(MTW_FINALIZE);
    leave(MTW_FINALIZE);
    char dir[1024], name[256], tmp[1400];
    archive_name(dir, sizeof dir, name, sizeof name);
    if (make_dirs(dir) != 0)
        fprintf(stderr, "tasknet-mpitrace: rank %d cannot create the folder %s: %s\n", me, dir, strerror(errno));
    snprintf(tmp, sizeof tmp, "%s/%s.rank%d.tmp", dir, name, me);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(recs, sizeof *recs, nrec, f) != nrec || fclose(f) != 0)
        fprintf(stderr, "tasknet-mpitrace: rank %d cannot write %s\n", me, tmp);
    if (other_comm_calls)
        fprintf(stderr, "tasknet-mpitrace: rank %d: %llu calls on communicators other than MPI_COMM_WORLD not traced\n",
                me, (unsigned long long)other_comm_calls);
    PMPI_Barrier(MPI_COMM_WORLD);
    int ok = 1;
    if (me == 0) {
        char err[512];
        mtw *w = mtw_open(dir, name, (uint32_t)nprocs, 1000000000ull, err, sizeof err);
        if (!w) {
            fprintf(stderr, "tasknet-mpitrace: %s\n", err);
            ok = 0;
        }
        for (int r = 0; r < nprocs && w; r++) {
            snprintf(tmp, sizeof tmp, "%s/%s.rank%d.tmp", dir, name, r);
            FILE *g = fopen(tmp, "rb");
            if (!g) {
                fprintf(stderr, "tasknet-mpitrace: cannot read %s\n", tmp);
                ok = 0;
                continue;
            }
            rec x;
            while (fread(&x, sizeof x, 1, g) == 1) {
                uint32_t R = (uint32_t)r;
                switch (x.type) {
                case R_ENTER: mtw_enter(w, R, x.t, (enum mtw_call)x.call); break;
                case R_LEAVE: mtw_leave(w, R, x.t, (enum mtw_call)x.call); break;
                case R_SEND: mtw_send(w, R, x.t, x.peer, x.tag, x.bytes); break;
                case R_RECV: mtw_recv(w, R, x.t, x.peer, x.tag, x.bytes); break;
                case R_ISEND: mtw_isend(w, R, x.t, x.peer, x.tag, x.bytes, x.b2); break;
                case R_ISEND_DONE: mtw_isend_complete(w, R, x.t, x.b2); break;
                case R_IRECV_REQ: mtw_irecv_request(w, R, x.t, x.b2); break;
                case R_IRECV: mtw_irecv(w, R, x.t, x.peer, x.tag, x.bytes, x.b2); break;
                case R_COLL_BEGIN: mtw_coll_begin(w, R, x.t); break;
                case R_COLL_END: mtw_coll_end(w, R, x.t, (enum mtw_call)x.call, x.peer, x.bytes, x.b2); break;
                default: break;
                }
            }
            fclose(g);
            remove(tmp);
        }
        if (w && mtw_close(w, err, sizeof err) != 0) {
            fprintf(stderr, "tasknet-mpitrace: %s\n", err);
            ok = 0;
        }
        if (ok)
            fprintf(stderr, "tasknet-mpitrace: wrote %s/%s.otf2 (%d ranks)\n", dir, name, nprocs);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    free(recs);
    free(reqs);
    return PMPI_Finalize();
}

/* ---- point to point ---- */

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (!world(comm))
        return PMPI_Send(buf, count, dt, dest, tag, comm);
    enter(MTW_SEND);
    put((rec){.type = R_SEND, .t = now_ns(), .peer = (uint32_t)dest, .tag = (uint32_t)tag,
              .bytes = (uint64_t)count * tsize(dt)});
    int rc = PMPI_Send(buf, count, dt, dest, tag, comm);
    leave(MTW_SEND);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    if (!world(comm))
        return PMPI_Recv(buf, count, dt, src, tag, comm, st);
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE)
        st = &own;
    enter(MTW_RECV);
    int rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    put((rec){.type = R_RECV, .t = now_ns(), .peer = (uint32_t)st->MPI_SOURCE, .tag = (uint32_t)st->MPI_TAG,
              .bytes = (uint64_t)n});
    leave(MTW_RECV);
    return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (!world(comm))
        return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
    enter(MTW_ISEND);
    int rc = PMPI_Isend(buf, count, dt, dest, tag, comm, req);
    uint64_t id = next_req++;
    put((rec){.type = R_ISEND, .t = now_ns(), .peer = (uint32_t)dest, .tag = (uint32_t)tag,
              .bytes = (uint64_t)count * tsize(dt), .b2 = id});
    req_add(*req, id, 0, 0);
    leave(MTW_ISEND);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (!world(comm))
        return PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    enter(MTW_IRECV);
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    uint64_t id = next_req++;
    put((rec){.type = R_IRECV_REQ, .t = now_ns(), .b2 = id});
    req_add(*req, id, 1, (int)tsize(dt));
    leave(MTW_IRECV);
    return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    MPI_Request h = *req;
    int i = req_find(h);
    if (i < 0)
        return PMPI_Wait(req, st);
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE)
        st = &own;
    enter(MTW_WAIT);
    int rc = PMPI_Wait(req, st);
    req_done(i, st, now_ns());
    leave(MTW_WAIT);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqv[], MPI_Status stv[])
{
    MPI_Request *h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
    MPI_Status *own = malloc((size_t)(n > 0 ? n : 1) * sizeof *own);
    memcpy(h, reqv, (size_t)n * sizeof *h);
    MPI_Status *st = stv == MPI_STATUSES_IGNORE ? own : stv;
    enter(MTW_WAITALL);
    int rc = PMPI_Waitall(n, reqv, st);
    uint64_t t = now_ns();
    for (int k = 0; k < n; k++) {
        int i = req_find(h[k]);
        if (i >= 0)
            req_done(i, &st[k], t);
    }
    leave(MTW_WAITALL);
    free(h);
    free(own);
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rdt, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
    if (!world(comm))
        return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st);
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE)
        st = &own;
    enter(MTW_SENDRECV);
    put((rec){.type = R_SEND, .t = now_ns(), .peer = (uint32_t)dest, .tag = (uint32_t)stag,
              .bytes = (uint64_t)scount * tsize(sdt)});
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st);
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    put((rec){.type = R_RECV, .t = now_ns(), .peer = (uint32_t)st->MPI_SOURCE, .tag = (uint32_t)st->MPI_TAG,
              .bytes = (uint64_t)n});
    leave(MTW_SENDRECV);
    return rc;
}

/* ---- collectives ---- */

#define COLL(kall, root, sent, recvd, body)                                                                   \
    do {                                                                                                      \
        if (!world(comm))                                                                                     \
            return body;                                                                                      \
        enter(kall);                                                                                          \
        put((rec){.type = R_COLL_BEGIN, .t = now_ns()});                                                      \
        int rc_ = body;                                                                                       \
        put((rec){.type = R_COLL_END, .call = (uint8_t)(kall), .t = now_ns(), .peer = (uint32_t)(root),      \
                  .bytes = (uint64_t)(sent), .b2 = (uint64_t)(recvd)});                                       \
        leave(kall);                                                                                          \
        return rc_;                                                                                           \
    } while (0)

static uint64_t sum_counts(const int *c, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += (uint64_t)c[i];
    return s;
}

int MPI_Barrier(MPI_Comm comm) { COLL(MTW_BARRIER, 0, 0, 0, PMPI_Barrier(comm)); }

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    uint64_t b = (uint64_t)count * tsize(dt);
    COLL(MTW_BCAST, root, me == root ? b : 0, me == root ? 0 : b, PMPI_Bcast(buf, count, dt, root, comm));
}

int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    uint64_t b = (uint64_t)count * tsize(dt);
    COLL(MTW_REDUCE, root, b, me == root ? b : 0, PMPI_Reduce(s, r, count, dt, op, root, comm));
}

int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    uint64_t b = (uint64_t)count * tsize(dt);
    COLL(MTW_ALLREDUCE, 0, b, b, PMPI_Allreduce(s, r, count, dt, op, comm));
}

int MPI_Gather(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLL(MTW_GATHER, root, (uint64_t)sc * tsize(sdt), me == root ? (uint64_t)rc * tsize(rdt) * (uint64_t)nprocs : 0,
         PMPI_Gather(s, sc, sdt, r, rc, rdt, root, comm));
}

int MPI_Gatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int *rcs, const int *displs, MPI_Datatype rdt,
                int root, MPI_Comm comm)
{
    COLL(MTW_GATHERV, root, (uint64_t)sc * tsize(sdt), me == root ? sum_counts(rcs, nprocs) * tsize(rdt) : 0,
         PMPI_Gatherv(s, sc, sdt, r, rcs, displs, rdt, root, comm));
}

int MPI_Scatter(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLL(MTW_SCATTER, root, me == root ? (uint64_t)sc * tsize(sdt) * (uint64_t)nprocs : 0, (uint64_t)rc * tsize(rdt),
         PMPI_Scatter(s, sc, sdt, r, rc, rdt, root, comm));
}

int MPI_Scatterv(const void *s, const int *scs, const int *displs, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt,
                 int root, MPI_Comm comm)
{
    COLL(MTW_SCATTERV, root, me == root ? sum_counts(scs, nprocs) * tsize(sdt) : 0, (uint64_t)rc * tsize(rdt),
         PMPI_Scatterv(s, scs, displs, sdt, r, rc, rdt, root, comm));
}

int MPI_Allgather(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, MPI_Comm comm)
{
    COLL(MTW_ALLGATHER, 0, (uint64_t)sc * tsize(sdt), (uint64_t)rc * tsize(rdt) * (uint64_t)nprocs,
         PMPI_Allgather(s, sc, sdt, r, rc, rdt, comm));
}

int MPI_Allgatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int *rcs, const int *displs,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    COLL(MTW_ALLGATHERV, 0, (uint64_t)sc * tsize(sdt), sum_counts(rcs, nprocs) * tsize(rdt),
         PMPI_Allgatherv(s, sc, sdt, r, rcs, displs, rdt, comm));
}

int MPI_Alltoall(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, MPI_Comm comm)
{
    COLL(MTW_ALLTOALL, 0, (uint64_t)sc * tsize(sdt) * (uint64_t)nprocs, (uint64_t)rc * tsize(rdt) * (uint64_t)nprocs,
         PMPI_Alltoall(s, sc, sdt, r, rc, rdt, comm));
}

int MPI_Alltoallv(const void *s, const int *scs, const int *sd, MPI_Datatype sdt, void *r, const int *rcs,
                  const int *rd, MPI_Datatype rdt, MPI_Comm comm)
{
    COLL(MTW_ALLTOALLV, 0, sum_counts(scs, nprocs) * tsize(sdt), sum_counts(rcs, nprocs) * tsize(rdt),
         PMPI_Alltoallv(s, scs, sd, sdt, r, rcs, rd, rdt, comm));
}

int MPI_Reduce_scatter(const void *s, void *r, const int *rcs, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    COLL(MTW_REDUCE_SCATTER, 0, sum_counts(rcs, nprocs) * tsize(dt), (uint64_t)rcs[me] * tsize(dt),
         PMPI_Reduce_scatter(s, r, rcs, dt, op, comm));
}
