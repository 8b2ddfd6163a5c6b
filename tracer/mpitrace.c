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
 * Communicators: MPI_COMM_WORLD and those made by MPI_Comm_dup and
 * MPI_Comm_split (of any traced or untraced communicator) are traced. At
 * its creation a communicator's members are learnt as world ranks
 * (MPI_Comm_group + MPI_Group_translate_ranks against world's group) and it
 * is named by (world rank of its rank 0, that rank's count of communicators
 * it leads), which its rank 0 broadcasts on the new communicator (one
 * untraced PMPI_Bcast of 4 bytes per creation); MPI_Comm_free forgets the
 * handle. Rank 0 writes each one as an OTF2 communicator over a group of
 * world ranks (refs 1, 2, ... in the order of their names), and a record's
 * ranks (destination, source, root) are the communicator's, as MPI gives
 * them. The creating and freeing calls are not recorded (their time is
 * computation in a replay). Communicators made otherwise (MPI_Comm_create,
 * MPI_Cart_create, intercommunicators...) are not traced unless congruent
 * with MPI_COMM_WORLD (then traced as it): a call on one is passed through
 * unrecorded, and the tracer says so at the end. */
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
    uint32_t peer;  /* dst / src / root (the communicator's rank) */
    uint32_t tag;
    uint32_t comm;  /* this rank's communicator index (0: MPI_COMM_WORLD) */
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
    uint32_t comm;
} open_req;

/* This rank's traced communicators: index 0 is MPI_COMM_WORLD; index i
 * >= 1 the i-th made by MPI_Comm_dup / MPI_Comm_split here (kept after
 * MPI_Comm_free, as records name it; the handle is cleared). */
typedef struct tcomm {
    MPI_Comm h;
    int live;
    uint32_t leader, seq; /* its name: world rank of its rank 0, that rank's count */
    uint32_t size;
    uint32_t *members;    /* [size] world ranks */
} tcomm;
static tcomm *comms;
static uint32_t ncomms, capcomms;
static uint32_t nled; /* communicators this rank leads */
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

/* The communicator index of c (0: world), or -1 (not traced: counted). */
static int comm_index(MPI_Comm c)
{
    int r = 0;
    if (c == MPI_COMM_WORLD)
        return 0;
    for (uint32_t i = ncomms; i-- > 1;)
        if (comms[i].live && comms[i].h == c)
            return (int)i;
    PMPI_Comm_compare(c, MPI_COMM_WORLD, &r);
    if (r == MPI_IDENT || r == MPI_CONGRUENT)
        return 0;
    other_comm_calls++;
    return -1;
}

/* this rank's rank in, and the size of, communicator index ci */
static int comm_rank(int ci, MPI_Comm c)
{
    int r = me;
    if (ci > 0)
        PMPI_Comm_rank(c, &r);
    return r;
}

static int comm_size(int ci, MPI_Comm c)
{
    int n = nprocs;
    if (ci > 0)
        PMPI_Comm_size(c, &n);
    return n;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "tasknet-mpitrace: out of memory\n");
        abort();
    }
    return p;
}

/* A communicator just made (collectively over its members): learn its
 * members as world ranks and its name. */
static void comm_new(MPI_Comm c)
{
    if (c == MPI_COMM_NULL)
        return;
    /* an intercommunicator (a dup or split of one) is not traced: its
     * members are two groups, and the root-0 Bcast below would wait on the
     * other group; calls on it are counted as untraced like any other */
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
        return;
    int n = 0, r = 0;
    PMPI_Comm_size(c, &n);
    PMPI_Comm_rank(c, &r);
    MPI_Group g, wg;
    PMPI_Comm_group(c, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *in = xrealloc(NULL, (size_t)n * sizeof *in), *out = xrealloc(NULL, (size_t)n * sizeof *out);
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Group_translate_ranks(g, n, in, wg, out);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    uint32_t seq = r == 0 ? nled++ : 0;
    PMPI_Bcast(&seq, 1, MPI_UINT32_T, 0, c);
    if (ncomms == capcomms) {
        capcomms = capcomms ? 2 * capcomms : 8;
        comms = xrealloc(comms, capcomms * sizeof *comms);
    }
    if (ncomms == 0)
        comms[ncomms++] = (tcomm){.h = MPI_COMM_WORLD, .live = 1};
    tcomm *t = &comms[ncomms++];
    *t = (tcomm){.h = c, .live = 1, .leader = (uint32_t)out[0], .seq = seq, .size = (uint32_t)n,
                 .members = xrealloc(NULL, (size_t)n * sizeof *t->members)};
    for (int i = 0; i < n; i++)
        t->members[i] = (uint32_t)out[i];
    free(in);
    free(out);
}

int MPI_Comm_dup(MPI_Comm c, MPI_Comm *nc)
{
    int rc = PMPI_Comm_dup(c, nc);
    if (rc == MPI_SUCCESS)
        comm_new(*nc);
    return rc;
}

int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *nc)
{
    int rc = PMPI_Comm_split(c, color, key, nc);
    if (rc == MPI_SUCCESS)
        comm_new(*nc);
    return rc;
}

int MPI_Comm_free(MPI_Comm *c)
{
    for (uint32_t i = ncomms; i-- > 1;)
        if (comms[i].live && comms[i].h == *c) {
            comms[i].live = 0;
            break;
        }
    return PMPI_Comm_free(c);
}

static void req_add(MPI_Request h, uint64_t id, int recv, int ts, uint32_t comm)
{
    if (nreq == capreq) {
        capreq = capreq ? 2 * capreq : 64;
        reqs = realloc(reqs, capreq * sizeof *reqs);
    }
    reqs[nreq++] = (open_req){h, id, recv, ts, comm};
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
              .comm = q.comm, .bytes = (uint64_t)n, .b2 = q.id});
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
    /* its communicators 1..: leader, seq, size, members */
    snprintf(tmp, sizeof tmp, "%s/%s.rank%d.comms.tmp", dir, name, me);
    f = fopen(tmp, "wb");
    int cok = f != NULL;
    for (uint32_t i = 1; i < ncomms && cok; i++) {
        uint32_t hd[3] = {comms[i].leader, comms[i].seq, comms[i].size};
        cok = fwrite(hd, sizeof hd, 1, f) == 1 && fwrite(comms[i].members, sizeof(uint32_t), comms[i].size, f) == comms[i].size;
    }
    if (!f || fclose(f) != 0 || !cok)
        fprintf(stderr, "tasknet-mpitrace: rank %d cannot write %s\n", me, tmp);
    if (other_comm_calls)
        fprintf(stderr, "tasknet-mpitrace: rank %d: %llu calls on communicators other than MPI_COMM_WORLD not traced\n",
                me, (unsigned long long)other_comm_calls);
    PMPI_Barrier(MPI_COMM_WORLD);
    int ok = 1;
    if (me == 0) {
        char err[512];
        uint32_t **defs = NULL, *dsize = NULL; /* [names] members of each, from its rank 0 */
        mtw *w = mtw_open(dir, name, (uint32_t)nprocs, 1000000000ull, err, sizeof err);
        if (!w) {
            fprintf(stderr, "tasknet-mpitrace: %s\n", err);
            ok = 0;
        }
        /* every rank's communicators: map[r][i] = the OTF2 ref of rank r's
         * communicator i (0: world; others 1.. in the order of their names) */
        uint32_t **map = calloc((size_t)nprocs, sizeof *map), *nmap = calloc((size_t)nprocs, sizeof *nmap);
        uint64_t *names = NULL; /* leader << 32 | seq */
        size_t nnames = 0;
        for (int pass = 0; pass < 2 && w; pass++) {
            for (int r = 0; r < nprocs; r++) {
                snprintf(tmp, sizeof tmp, "%s/%s.rank%d.comms.tmp", dir, name, r);
                FILE *g = fopen(tmp, "rb");
                if (!g) {
                    fprintf(stderr, "tasknet-mpitrace: cannot read %s\n", tmp);
                    ok = 0;
                    continue;
                }
                uint32_t hd[3];
                while (fread(hd, sizeof hd, 1, g) == 1) {
                    uint32_t *m = xrealloc(NULL, (hd[2] ? hd[2] : 1) * sizeof *m);
                    if (fread(m, sizeof *m, hd[2], g) != hd[2]) {
                        free(m);
                        break;
                    }
                    uint64_t key = (uint64_t)hd[0] << 32 | hd[1];
                    size_t k = 0;
                    while (k < nnames && names[k] != key)
                        k++;
                    if (pass == 0 && k == nnames) {
                        names = xrealloc(names, (nnames + 1) * sizeof *names);
                        names[nnames++] = key;
                    } else if (pass == 1) {
                        map[r] = xrealloc(map[r], (nmap[r] + 2) * sizeof **map);
                        map[r][0] = 0;
                        map[r][++nmap[r]] = (uint32_t)k + 1;
                        if (m[0] == hd[0] && hd[0] == (uint32_t)r) /* its rank 0 defines it */
                            defs[k] = m, m = NULL, dsize[k] = hd[2];
                    }
                    free(m);
                }
                fclose(g);
                if (pass == 1)
                    remove(tmp);
            }
            if (pass == 0) {
                for (size_t a = 1; a < nnames; a++) /* in the order of their names */
                    for (size_t b = a; b > 0 && names[b - 1] > names[b]; b--) {
                        uint64_t x = names[b];
                        names[b] = names[b - 1];
                        names[b - 1] = x;
                    }
                defs = calloc(nnames ? nnames : 1, sizeof *defs);
                dsize = calloc(nnames ? nnames : 1, sizeof *dsize);
            }
        }
        for (size_t k = 0; k < nnames && w; k++) {
            if (!defs[k]) {
                fprintf(stderr, "tasknet-mpitrace: communicator %zu has no definition from its rank 0\n", k + 1);
                ok = 0;
                continue;
            }
            mtw_comm(w, dsize[k], defs[k]);
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
                if (x.type >= R_SEND && x.type != R_ISEND_DONE && x.type != R_COLL_BEGIN)
                    mtw_set_comm(w, x.comm == 0 ? 0 : x.comm <= nmap[r] ? map[r][x.comm] : 0);
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
        for (int r = 0; r < nprocs; r++)
            free(map[r]);
        for (size_t k = 0; k < nnames; k++)
            free(defs ? defs[k] : NULL);
        free(map);
        free(nmap);
        free(names);
        free(defs);
        free(dsize);
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
    for (uint32_t i = 1; i < ncomms; i++)
        free(comms[i].members);
    free(comms);
    return PMPI_Finalize();
}

/* ---- point to point ---- */

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    int ci = comm_index(comm);
    if (ci < 0)
        return PMPI_Send(buf, count, dt, dest, tag, comm);
    enter(MTW_SEND);
    put((rec){.type = R_SEND, .t = now_ns(), .peer = (uint32_t)dest, .tag = (uint32_t)tag, .comm = (uint32_t)ci,
              .bytes = (uint64_t)count * tsize(dt)});
    int rc = PMPI_Send(buf, count, dt, dest, tag, comm);
    leave(MTW_SEND);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    int ci = comm_index(comm);
    if (ci < 0)
        return PMPI_Recv(buf, count, dt, src, tag, comm, st);
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE)
        st = &own;
    enter(MTW_RECV);
    int rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    put((rec){.type = R_RECV, .t = now_ns(), .peer = (uint32_t)st->MPI_SOURCE, .tag = (uint32_t)st->MPI_TAG, .comm = (uint32_t)ci,
              .bytes = (uint64_t)n});
    leave(MTW_RECV);
    return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    int ci = comm_index(comm);
    if (ci < 0)
        return PMPI_Isend(buf, count, dt, dest, tag, comm, req);
    enter(MTW_ISEND);
    int rc = PMPI_Isend(buf, count, dt, dest, tag, comm, req);
    uint64_t id = next_req++;
    put((rec){.type = R_ISEND, .t = now_ns(), .peer = (uint32_t)dest, .tag = (uint32_t)tag, .comm = (uint32_t)ci,
              .bytes = (uint64_t)count * tsize(dt), .b2 = id});
    req_add(*req, id, 0, 0, (uint32_t)ci);
    leave(MTW_ISEND);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    int ci = comm_index(comm);
    if (ci < 0)
        return PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    enter(MTW_IRECV);
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    uint64_t id = next_req++;
    put((rec){.type = R_IRECV_REQ, .t = now_ns(), .comm = (uint32_t)ci, .b2 = id});
    req_add(*req, id, 1, (int)tsize(dt), (uint32_t)ci);
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
    int ci = comm_index(comm);
    if (ci < 0)
        return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st);
    MPI_Status own;
    if (st == MPI_STATUS_IGNORE)
        st = &own;
    enter(MTW_SENDRECV);
    put((rec){.type = R_SEND, .t = now_ns(), .peer = (uint32_t)dest, .tag = (uint32_t)stag, .comm = (uint32_t)ci,
              .bytes = (uint64_t)scount * tsize(sdt)});
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, comm, st);
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    put((rec){.type = R_RECV, .t = now_ns(), .peer = (uint32_t)st->MPI_SOURCE, .tag = (uint32_t)st->MPI_TAG, .comm = (uint32_t)ci,
              .bytes = (uint64_t)n});
    leave(MTW_SENDRECV);
    return rc;
}

/* ---- collectives ---- */

#define COLL(kall, root, sent, recvd, body)                                                                   \
    do {                                                                                                      \
        if (ci < 0)                                                                                           \
            return body;                                                                                      \
        enter(kall);                                                                                          \
        put((rec){.type = R_COLL_BEGIN, .t = now_ns()});                                                      \
        int rc_ = body;                                                                                       \
        put((rec){.type = R_COLL_END, .call = (uint8_t)(kall), .t = now_ns(), .peer = (uint32_t)(root),      \
                  .comm = (uint32_t)ci, .bytes = (uint64_t)(sent), .b2 = (uint64_t)(recvd)});                 \
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

int MPI_Barrier(MPI_Comm comm)
{
    int ci = comm_index(comm);
    COLL(MTW_BARRIER, 0, 0, 0, PMPI_Barrier(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    uint64_t b = (uint64_t)count * tsize(dt);
    COLL(MTW_BCAST, root, cr == root ? b : 0, cr == root ? 0 : b, PMPI_Bcast(buf, count, dt, root, comm));
}

int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    uint64_t b = (uint64_t)count * tsize(dt);
    COLL(MTW_REDUCE, root, b, cr == root ? b : 0, PMPI_Reduce(s, r, count, dt, op, root, comm));
}

int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    uint64_t b = (uint64_t)count * tsize(dt);
    COLL(MTW_ALLREDUCE, 0, b, b, PMPI_Allreduce(s, r, count, dt, op, comm));
}

int MPI_Gather(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_GATHER, root, (uint64_t)sc * tsize(sdt), cr == root ? (uint64_t)rc * tsize(rdt) * (uint64_t)cn : 0,
         PMPI_Gather(s, sc, sdt, r, rc, rdt, root, comm));
}

int MPI_Gatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int *rcs, const int *displs, MPI_Datatype rdt,
                int root, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_GATHERV, root, (uint64_t)sc * tsize(sdt), cr == root ? sum_counts(rcs, cn) * tsize(rdt) : 0,
         PMPI_Gatherv(s, sc, sdt, r, rcs, displs, rdt, root, comm));
}

int MPI_Scatter(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_SCATTER, root, cr == root ? (uint64_t)sc * tsize(sdt) * (uint64_t)cn : 0, (uint64_t)rc * tsize(rdt),
         PMPI_Scatter(s, sc, sdt, r, rc, rdt, root, comm));
}

int MPI_Scatterv(const void *s, const int *scs, const int *displs, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt,
                 int root, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_SCATTERV, root, cr == root ? sum_counts(scs, cn) * tsize(sdt) : 0, (uint64_t)rc * tsize(rdt),
         PMPI_Scatterv(s, scs, displs, sdt, r, rc, rdt, root, comm));
}

int MPI_Allgather(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_ALLGATHER, 0, (uint64_t)sc * tsize(sdt), (uint64_t)rc * tsize(rdt) * (uint64_t)cn,
         PMPI_Allgather(s, sc, sdt, r, rc, rdt, comm));
}

int MPI_Allgatherv(const void *s, int sc, MPI_Datatype sdt, void *r, const int *rcs, const int *displs,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_ALLGATHERV, 0, (uint64_t)sc * tsize(sdt), sum_counts(rcs, cn) * tsize(rdt),
         PMPI_Allgatherv(s, sc, sdt, r, rcs, displs, rdt, comm));
}

int MPI_Alltoall(const void *s, int sc, MPI_Datatype sdt, void *r, int rc, MPI_Datatype rdt, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_ALLTOALL, 0, (uint64_t)sc * tsize(sdt) * (uint64_t)cn, (uint64_t)rc * tsize(rdt) * (uint64_t)cn,
         PMPI_Alltoall(s, sc, sdt, r, rc, rdt, comm));
}

int MPI_Alltoallv(const void *s, const int *scs, const int *sd, MPI_Datatype sdt, void *r, const int *rcs,
                  const int *rd, MPI_Datatype rdt, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_ALLTOALLV, 0, sum_counts(scs, cn) * tsize(sdt), sum_counts(rcs, cn) * tsize(rdt),
         PMPI_Alltoallv(s, scs, sd, sdt, r, rcs, rd, rdt, comm));
}

int MPI_Reduce_scatter(const void *s, void *r, const int *rcs, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int ci = comm_index(comm), cr = comm_rank(ci, comm), cn = comm_size(ci, comm);
    (void)cr, (void)cn;
    COLL(MTW_REDUCE_SCATTER, 0, sum_counts(rcs, cn) * tsize(dt), (uint64_t)rcs[cr] * tsize(dt),
         PMPI_Reduce_scatter(s, r, rcs, dt, op, comm));
}
