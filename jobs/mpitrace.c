/* MPI traces: the operation lists and the OTF2 reader (mpitrace.h). */
#include "mpitrace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* TASKNET_OTF2 comes from configure (DEFS) */

/* ---- the lists ---- */

void mt_init(mt_trace *t, uint32_t ranks)
{
    memset(t, 0, sizeof *t);
    t->ranks = ranks;
    t->start = tn_xcalloc((size_t)ranks + 1, sizeof *t->start);
    t->compute_ps = tn_xcalloc(ranks ? ranks : 1, sizeof *t->compute_ps);
    t->ncomms = 1;
    t->comms = tn_xcalloc(1, sizeof *t->comms);
    t->comms[0].size = ranks;
    t->comms[0].members = tn_xmalloc((ranks ? ranks : 1) * sizeof(uint32_t));
    for (uint32_t r = 0; r < ranks; r++)
        t->comms[0].members[r] = r;
}

void mt_push(mt_trace *t, uint32_t rank, mt_op op)
{
    TN_ASSERT(rank < t->ranks && rank >= t->push_rank, "mt_push: rank %u after rank %u (of %u)", rank, t->push_rank,
              t->ranks);
    t->push_rank = rank;
    if (t->nops == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->ops = tn_xrealloc(t->ops, t->cap * sizeof *t->ops);
    }
    t->ops[t->nops++] = op;
    t->start[rank + 1] = t->nops; /* mt_seal fills the ranks between */
    if (op.kind == MT_COMPUTE)
        t->compute_ps[rank] += (int64_t)op.arg;
}

void mt_seal(mt_trace *t)
{
    t->start[0] = 0;
    for (uint32_t r = 1; r <= t->ranks; r++)
        if (t->start[r] < t->start[r - 1])
            t->start[r] = t->start[r - 1];
}

void mt_free(mt_trace *t)
{
    free(t->start);
    free(t->ops);
    for (uint32_t c = 0; c < t->ncomms; c++)
        free(t->comms[c].members);
    free(t->comms);
    for (uint64_t k = 0; k < t->ncolls; k++) {
        free(t->colls[k].sizes);
        free(t->colls[k].counts);
    }
    free(t->colls);
    free(t->compute_ps);
    memset(t, 0, sizeof *t);
}

#ifndef TASKNET_OTF2

int mt_load(const char *path, mt_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    return tn_error(err, errlen,
                    "%s: tasknet was built without OTF2, so it cannot read MPI traces: install "
                    "libotf2-trace-dev (Debian) and rebuild (./configure --with-otf2)",
                    path);
}

#else /* TASKNET_OTF2 */

#include <otf2/otf2.h>

/* ---- reading ---- */

#define MT_NONE UINT32_MAX

typedef struct mt_req { /* an open request of the location being read */
    uint64_t id;
    uint64_t op; /* index in t->ops */
} mt_req;

typedef struct mt_group {
    uint64_t id;
    uint8_t type;
    uint32_t n;
    uint64_t *members;
} mt_group;

typedef struct mt_rd {
    mt_trace *t;
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    uint64_t resolution;
    /* definitions */
    char **strings;
    uint64_t nstrings;
    uint8_t *region_mpi; /* [nregions] */
    uint64_t nregions;
    uint64_t *locations;
    uint64_t nlocations;
    mt_group *groups;
    uint64_t ngroups;
    uint64_t *comm_ref;   /* [ncomm] OTF2 comm ref of each index */
    uint64_t *comm_group; /* [ncomm] its group ref */
    uint64_t ncommdefs;
    uint32_t *comm_index; /* by OTF2 comm ref -> index (dense, refs are small) */
    uint64_t ncomm_index;
    /* the location being read */
    uint32_t rank;
    int depth;            /* inside MPI calls */
    int64_t first_ps, last_leave_ps;
    int have_first;
    uint64_t call_first;  /* first op of the current MPI call */
    mt_req *reqs;
    uint64_t nreqs, req_cap;
    uint64_t *coll_seen;  /* [ncomms] collectives of this rank per comm */
    uint64_t **inst;      /* [ncomms] instance index per k */
    uint64_t *ninst, *inst_cap;
    int64_t t_min, t_max;
} mt_rd;

static int64_t ticks_ps(const mt_rd *rd, uint64_t ticks)
{
    return (int64_t)((__uint128_t)ticks * 1000000000000ull / (rd->resolution ? rd->resolution : 1));
}

static OTF2_CallbackCode rd_fail(mt_rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static OTF2_CallbackCode rd_fail(mt_rd *rd, const char *fmt, ...)
{
    if (!rd->failed) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        tn_error(rd->err, rd->errlen, "%s: %s", rd->path, msg);
        rd->failed = 1;
    }
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    (void)off, (void)len, (void)rt;
    ((mt_rd *)u)->resolution = res;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    mt_rd *rd = u;
    if (self >= rd->nstrings) {
        uint64_t n = self + 1 > 2 * rd->nstrings ? self + 1 : 2 * rd->nstrings;
        rd->strings = tn_xrealloc(rd->strings, n * sizeof *rd->strings);
        memset(rd->strings + rd->nstrings, 0, (n - rd->nstrings) * sizeof *rd->strings);
        rd->nstrings = n;
    }
    free(rd->strings[self]);
    rd->strings[self] = strdup(s ? s : "");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                                    OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm par,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t b, uint32_t e)
{
    (void)canon, (void)desc, (void)role, (void)flags, (void)file, (void)b, (void)e;
    mt_rd *rd = u;
    if (self >= rd->nregions) {
        uint64_t n = self + 1 > 2 * rd->nregions ? self + 1 : 2 * rd->nregions;
        rd->region_mpi = tn_xrealloc(rd->region_mpi, n);
        memset(rd->region_mpi + rd->nregions, 0, n - rd->nregions);
        rd->nregions = n;
    }
    const char *s = name < rd->nstrings ? rd->strings[name] : NULL;
    rd->region_mpi[self] = par == OTF2_PARADIGM_MPI || (s && strncmp(s, "MPI_", 4) == 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nev, OTF2_LocationGroupRef grp)
{
    (void)name, (void)type, (void)nev, (void)grp;
    mt_rd *rd = u;
    rd->locations = tn_xrealloc(rd->locations, (rd->nlocations + 1) * sizeof *rd->locations);
    rd->locations[rd->nlocations++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm par, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name, (void)par, (void)flags;
    mt_rd *rd = u;
    rd->groups = tn_xrealloc(rd->groups, (rd->ngroups + 1) * sizeof *rd->groups);
    mt_group *g = &rd->groups[rd->ngroups++];
    g->id = self;
    g->type = (uint8_t)type;
    g->n = n;
    g->members = tn_xmalloc((n ? n : 1) * sizeof *g->members);
    if (n)
        memcpy(g->members, members, n * sizeof *members);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)name, (void)parent, (void)flags;
    mt_rd *rd = u;
    rd->comm_ref = tn_xrealloc(rd->comm_ref, (rd->ncommdefs + 1) * sizeof *rd->comm_ref);
    rd->comm_group = tn_xrealloc(rd->comm_group, (rd->ncommdefs + 1) * sizeof *rd->comm_group);
    rd->comm_ref[rd->ncommdefs] = self;
    rd->comm_group[rd->ncommdefs++] = group;
    return OTF2_CALLBACK_SUCCESS;
}

static const mt_group *find_group(const mt_rd *rd, uint64_t id)
{
    for (uint64_t i = 0; i < rd->ngroups; i++)
        if (rd->groups[i].id == id)
            return &rd->groups[i];
    return NULL;
}

/* ---- events of one location (rank rd->rank) ---- */

static void push(mt_rd *rd, mt_op op) { mt_push(rd->t, rd->rank, op); }

static void note_time(mt_rd *rd, OTF2_TimeStamp time)
{
    int64_t ps = ticks_ps(rd, time);
    if (!rd->have_first) {
        rd->have_first = 1;
        rd->first_ps = rd->last_leave_ps = ps;
    }
    if (ps < rd->t_min)
        rd->t_min = ps;
    if (ps > rd->t_max)
        rd->t_max = ps;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    note_time(rd, time);
    if (region >= rd->nregions || !rd->region_mpi[region])
        return OTF2_CALLBACK_SUCCESS;
    if (rd->depth++ == 0) {
        int64_t ps = ticks_ps(rd, time), gap = ps - rd->last_leave_ps;
        if (gap > 0)
            push(rd, (mt_op){.kind = MT_COMPUTE, .arg = (uint64_t)gap});
        rd->call_first = rd->t->nops;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    note_time(rd, time);
    if (region >= rd->nregions || !rd->region_mpi[region] || rd->depth == 0)
        return OTF2_CALLBACK_SUCCESS;
    if (--rd->depth == 0) {
        rd->last_leave_ps = ticks_ps(rd, time);
        /* a call with several blocking point-to-point operations (Sendrecv):
         * post them all, then wait for each */
        mt_trace *t = rd->t;
        uint64_t nb = 0, end = t->nops;
        for (uint64_t k = rd->call_first; k < end; k++)
            nb += t->ops[k].kind == MT_SEND || t->ops[k].kind == MT_RECV;
        if (nb >= 2)
            for (uint64_t k = rd->call_first; k < end; k++)
                if (t->ops[k].kind == MT_SEND || t->ops[k].kind == MT_RECV) {
                    t->ops[k].kind = t->ops[k].kind == MT_SEND ? MT_ISEND : MT_IRECV;
                    push(rd, (mt_op){.kind = MT_WAIT, .arg = k});
                }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static int comm_of(mt_rd *rd, OTF2_CommRef c, uint32_t *out)
{
    if (c >= rd->ncomm_index || rd->comm_index[c] == MT_NONE)
        return rd_fail(rd, "unknown communicator %llu on rank %llu", (unsigned long long)(c), (unsigned long long)(rd->rank)), -1;
    *out = rd->comm_index[c];
    return 0;
}

static int world_of(mt_rd *rd, uint32_t comm, uint32_t r, uint32_t *out)
{
    const mt_comm *c = &rd->t->comms[comm];
    if (r >= c->size)
        return rd_fail(rd, "rank %llu of a communicator of %llu ranks", (unsigned long long)(r), (unsigned long long)(c->size)), -1;
    *out = c->members[r];
    return 0;
}

static void req_open(mt_rd *rd, uint64_t id, uint64_t op)
{
    if (rd->nreqs == rd->req_cap) {
        rd->req_cap = rd->req_cap ? 2 * rd->req_cap : 64;
        rd->reqs = tn_xrealloc(rd->reqs, rd->req_cap * sizeof *rd->reqs);
    }
    rd->reqs[rd->nreqs++] = (mt_req){id, op};
}

/* The op of open request id (removed), or UINT64_MAX. Requests are few at a
 * time, so a list scanned from its end does. */
static uint64_t req_close(mt_rd *rd, uint64_t id)
{
    for (uint64_t i = rd->nreqs; i-- > 0;)
        if (rd->reqs[i].id == id) {
            uint64_t op = rd->reqs[i].op;
            rd->reqs[i] = rd->reqs[--rd->nreqs];
            return op;
        }
    return UINT64_MAX;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    uint32_t c, w;
    note_time(rd, time);
    rd->t->mpi_events++;
    if (comm_of(rd, comm, &c) || world_of(rd, c, receiver, &w))
        return OTF2_CALLBACK_INTERRUPT;
    push(rd, (mt_op){.kind = MT_SEND, .peer = w, .tag = tag, .comm = c, .bytes = len});
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    uint32_t c, w;
    note_time(rd, time);
    rd->t->mpi_events++;
    if (comm_of(rd, comm, &c) || world_of(rd, c, receiver, &w))
        return OTF2_CALLBACK_INTERRUPT;
    req_open(rd, req, rd->t->nops);
    push(rd, (mt_op){.kind = MT_ISEND, .peer = w, .tag = tag, .comm = c, .bytes = len});
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                           OTF2_AttributeList *al, uint64_t req)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    note_time(rd, time);
    rd->t->mpi_events++;
    uint64_t op = req_close(rd, req);
    if (op == UINT64_MAX)
        return rd_fail(rd, "rank %llu completes request %llu it never started", (unsigned long long)(rd->rank), (unsigned long long)(req));
    push(rd, (mt_op){.kind = MT_WAIT, .arg = op});
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                          OTF2_AttributeList *al, uint64_t req)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    note_time(rd, time);
    rd->t->mpi_events++;
    req_open(rd, req, rd->t->nops);
    push(rd, (mt_op){.kind = MT_IRECV});
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    uint32_t c, w;
    note_time(rd, time);
    rd->t->mpi_events++;
    if (comm_of(rd, comm, &c) || world_of(rd, c, sender, &w))
        return OTF2_CALLBACK_INTERRUPT;
    uint64_t op = req_close(rd, req);
    if (op == UINT64_MAX)
        return rd_fail(rd, "rank %llu completes receive request %llu it never posted", (unsigned long long)(rd->rank), (unsigned long long)(req));
    rd->t->ops[op] = (mt_op){.kind = MT_IRECV, .peer = w, .tag = tag, .comm = c, .bytes = len};
    push(rd, (mt_op){.kind = MT_WAIT, .arg = op});
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                 OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    uint32_t c, w;
    note_time(rd, time);
    rd->t->mpi_events++;
    if (comm_of(rd, comm, &c) || world_of(rd, c, sender, &w))
        return OTF2_CALLBACK_INTERRUPT;
    push(rd, (mt_op){.kind = MT_RECV, .peer = w, .tag = tag, .comm = c, .bytes = len});
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                      OTF2_AttributeList *al, uint64_t req)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    note_time(rd, time);
    uint64_t op = req_close(rd, req);
    if (op != UINT64_MAX)
        rd->t->ops[op].kind = MT_NOP;
    return OTF2_CALLBACK_SUCCESS;
}

static const coll_op otf2_coll[] = {
    [OTF2_COLLECTIVE_OP_BARRIER] = COLL_BARRIER,       [OTF2_COLLECTIVE_OP_BCAST] = COLL_BCAST,
    [OTF2_COLLECTIVE_OP_GATHER] = COLL_GATHER,         [OTF2_COLLECTIVE_OP_GATHERV] = COLL_GATHER,
    [OTF2_COLLECTIVE_OP_SCATTER] = COLL_SCATTER,       [OTF2_COLLECTIVE_OP_SCATTERV] = COLL_SCATTER,
    [OTF2_COLLECTIVE_OP_ALLGATHER] = COLL_ALLGATHER,   [OTF2_COLLECTIVE_OP_ALLGATHERV] = COLL_ALLGATHER,
    [OTF2_COLLECTIVE_OP_ALLTOALL] = COLL_ALLTOALL,     [OTF2_COLLECTIVE_OP_ALLTOALLV] = COLL_ALLTOALL,
    [OTF2_COLLECTIVE_OP_ALLTOALLW] = COLL_NOPS,        [OTF2_COLLECTIVE_OP_ALLREDUCE] = COLL_ALLREDUCE,
    [OTF2_COLLECTIVE_OP_REDUCE] = COLL_REDUCE,         [OTF2_COLLECTIVE_OP_REDUCE_SCATTER] = COLL_REDUCE_SCATTER,
    [OTF2_COLLECTIVE_OP_SCAN] = COLL_NOPS,             [OTF2_COLLECTIVE_OP_EXSCAN] = COLL_NOPS,
    [OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK] = COLL_REDUCE_SCATTER,
};

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                     OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                     uint64_t sent, uint64_t recvd)
{
    (void)loc, (void)pos, (void)al;
    mt_rd *rd = u;
    mt_trace *t = rd->t;
    uint32_t c;
    note_time(rd, time);
    t->mpi_events++;
    if (comm_of(rd, comm, &c))
        return OTF2_CALLBACK_INTERRUPT;
    if ((unsigned)op >= sizeof otf2_coll / sizeof otf2_coll[0] || otf2_coll[op] == COLL_NOPS ||
        (op != OTF2_COLLECTIVE_OP_BARRIER && otf2_coll[op] == COLL_BARRIER))
        return rd_fail(rd, "rank %llu: collective operation %llu (scan, exscan, alltoallw or one-sided) is not replayed", (unsigned long long)(rd->rank), (unsigned long long)(op));
    const mt_comm *cm = &t->comms[c];
    uint32_t me = MT_NONE;
    if (rd->rank < cm->size && cm->members[rd->rank] == rd->rank) /* the world, and the like */
        me = rd->rank;
    else
        for (uint32_t i = 0; i < cm->size; i++)
            if (cm->members[i] == rd->rank)
                me = i;
    if (me == MT_NONE)
        return rd_fail(rd, "rank %llu in a collective of communicator %llu it is not a member of", (unsigned long long)(rd->rank), (unsigned long long)(c));
    uint64_t k = rd->coll_seen[c]++;
    if (k >= rd->ninst[c]) { /* a new instance */
        if (rd->ninst[c] == rd->inst_cap[c]) {
            rd->inst_cap[c] = rd->inst_cap[c] ? 2 * rd->inst_cap[c] : 16;
            rd->inst[c] = tn_xrealloc(rd->inst[c], rd->inst_cap[c] * sizeof **rd->inst);
        }
        if ((t->ncolls & (t->ncolls - 1)) == 0) /* room by doubling: at 0, 1, 2, 4, ... */
            t->colls = tn_xrealloc(t->colls, (t->ncolls ? 2 * t->ncolls : 1) * sizeof *t->colls);
        mt_coll *x = &t->colls[t->ncolls];
        memset(x, 0, sizeof *x);
        x->spec.op = otf2_coll[op];
        x->spec.ranks = cm->size;
        x->spec.root = root;
        x->comm = c;
        x->sizes = tn_xcalloc(2 * (size_t)cm->size, sizeof *x->sizes);
        rd->inst[c][rd->ninst[c]++] = t->ncolls++;
    }
    uint64_t id = rd->inst[c][k];
    mt_coll *x = &t->colls[id];
    if (x->spec.op != otf2_coll[op])
        return rd_fail(rd, "rank %llu's collective %llu on its communicator differs from the other members'", (unsigned long long)(rd->rank), (unsigned long long)(k + 1));
    x->sizes[2 * me] = sent;
    x->sizes[2 * me + 1] = recvd;
    x->arrived++;
    /* v variants need counts; remember the kind in the counts' presence */
    if (op == OTF2_COLLECTIVE_OP_GATHERV || op == OTF2_COLLECTIVE_OP_SCATTERV || op == OTF2_COLLECTIVE_OP_ALLGATHERV ||
        op == OTF2_COLLECTIVE_OP_ALLTOALLV || op == OTF2_COLLECTIVE_OP_REDUCE_SCATTER)
        x->spec.segment = 1; /* marker, cleared in finish_colls */
    push(rd, (mt_op){.kind = MT_COLL, .comm = c, .arg = id});
    return OTF2_CALLBACK_SUCCESS;
}

/* Sizes of every instance from its members' records (mpitrace.h). */
static int finish_colls(mt_rd *rd)
{
    mt_trace *t = rd->t;
    for (uint64_t id = 0; id < t->ncolls; id++) {
        mt_coll *x = &t->colls[id];
        uint32_t n = x->spec.ranks;
        int v = x->spec.segment != 0;
        x->spec.segment = 0;
        if (x->arrived != n)
            return rd_fail(rd, "a collective on communicator %llu has %llu of its members", (unsigned long long)(x->comm), (unsigned long long)(x->arrived)), -1;
        uint64_t msent = 0, mrecv = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (x->sizes[2 * i] > msent)
                msent = x->sizes[2 * i];
            if (x->sizes[2 * i + 1] > mrecv)
                mrecv = x->sizes[2 * i + 1];
        }
        switch (x->spec.op) {
        case COLL_BARRIER: x->spec.bytes = 0; break;
        case COLL_BCAST: x->spec.bytes = mrecv; break;
        case COLL_REDUCE:
        case COLL_ALLREDUCE: x->spec.bytes = msent; break;
        case COLL_ALLTOALL:
            if (!v) {
                x->spec.bytes = n ? msent / n : 0;
            } else {
                x->counts = tn_xcalloc((size_t)n * n, sizeof *x->counts);
                for (uint32_t i = 0; i < n; i++)
                    for (uint32_t j = 0; j < n; j++)
                        if (i != j)
                            x->counts[(size_t)i * n + j] = x->sizes[2 * i] / (n > 1 ? n - 1 : 1);
                x->spec.counts = x->counts;
            }
            break;
        default: { /* gather, allgather: sent; scatter, reduce-scatter: received */
            int by_recv = x->spec.op == COLL_SCATTER || x->spec.op == COLL_REDUCE_SCATTER;
            x->counts = tn_xcalloc(n ? n : 1, sizeof *x->counts);
            for (uint32_t i = 0; i < n; i++)
                x->counts[i] = x->sizes[2 * i + (by_recv ? 1 : 0)];
            x->spec.counts = x->counts;
            if (!v) { /* uniform: one block size */
                x->spec.bytes = x->counts[x->spec.op == COLL_SCATTER || x->spec.op == COLL_GATHER
                                              ? (x->spec.root + 1) % (n ? n : 1)
                                              : 0];
                x->spec.counts = NULL;
            }
            break;
        }
        }
        if (x->spec.root >= n)
            x->spec.root = 0;
    }
    return 0;
}

int mt_load(const char *path, mt_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (access(path, R_OK) != 0)
        return tn_error(err, errlen, "cannot read '%s'", path);
    OTF2_Reader *r = OTF2_Reader_Open(path);
    if (!r)
        return tn_error(err, errlen, "%s: not an OTF2 archive (its anchor file, e.g. traces.otf2)", path);
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    mt_rd rd = {.t = t, .path = path, .err = err, .errlen = errlen, .t_min = INT64_MAX, .t_max = INT64_MIN};
    int rc = 0;

    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
    if (!gdr) {
        OTF2_Reader_Close(r);
        return tn_error(err, errlen, "%s: no global definitions (not an OTF2 archive?)", path);
    }
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, gcb, &rd);
    uint64_t nread = 0;
    OTF2_ErrorCode ec = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &nread);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(r, gdr);
    if (ec != OTF2_SUCCESS) {
        rc = tn_error(err, errlen, "%s: reading its definitions: %s", path, OTF2_Error_GetDescription(ec));
        goto out;
    }

    /* ranks: the world's locations */
    const mt_group *world = NULL;
    for (uint64_t i = 0; i < rd.ngroups; i++)
        if (rd.groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
            world = &rd.groups[i];
    uint64_t nranks = world ? world->n : rd.nlocations;
    if (nranks == 0) {
        rc = tn_error(err, errlen, "%s: no MPI ranks (no locations)", path);
        goto out;
    }
    uint64_t *rank_loc = tn_xmalloc(nranks * sizeof *rank_loc);
    if (world) {
        memcpy(rank_loc, world->members, nranks * sizeof *rank_loc);
    } else {
        memcpy(rank_loc, rd.locations, nranks * sizeof *rank_loc);
        for (uint64_t i = 1; i < nranks; i++) /* id order */
            for (uint64_t j = i; j > 0 && rank_loc[j - 1] > rank_loc[j]; j--) {
                uint64_t x = rank_loc[j];
                rank_loc[j] = rank_loc[j - 1];
                rank_loc[j - 1] = x;
            }
    }
    mt_init(t, (uint32_t)nranks);

    /* communicators: index 0 is kept for a world without a Comm record */
    uint64_t maxref = 0;
    for (uint64_t i = 0; i < rd.ncommdefs; i++)
        maxref = rd.comm_ref[i] > maxref ? rd.comm_ref[i] : maxref;
    rd.ncomm_index = rd.ncommdefs ? maxref + 1 : 0;
    rd.comm_index = tn_xmalloc((rd.ncomm_index ? rd.ncomm_index : 1) * sizeof *rd.comm_index);
    for (uint64_t i = 0; i < rd.ncomm_index; i++)
        rd.comm_index[i] = MT_NONE;
    for (uint64_t i = 0; i < rd.ncommdefs; i++) {
        const mt_group *g = find_group(&rd, rd.comm_group[i]);
        if (!g) {
            free(rank_loc);
            rc = tn_error(err, errlen, "%s: communicator %llu names group %llu, which is not defined", path,
                          (unsigned long long)rd.comm_ref[i], (unsigned long long)rd.comm_group[i]);
            goto out;
        }
        t->comms = tn_xrealloc(t->comms, (t->ncomms + 1) * sizeof *t->comms);
        mt_comm *c = &t->comms[t->ncomms];
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            c->size = 1;
            c->members = tn_xcalloc(1, sizeof *c->members); /* filled per rank: see world_of */
        } else {
            c->size = g->n;
            c->members = tn_xmalloc((g->n ? g->n : 1) * sizeof *c->members);
            for (uint32_t k = 0; k < g->n; k++) {
                if (g->members[k] >= nranks) {
                    free(rank_loc);
                    rc = tn_error(err, errlen, "%s: communicator %llu has rank %llu of %llu", path,
                                  (unsigned long long)rd.comm_ref[i], (unsigned long long)g->members[k],
                                  (unsigned long long)nranks);
                    goto out;
                }
                c->members[k] = (uint32_t)g->members[k];
            }
        }
        rd.comm_index[rd.comm_ref[i]] = t->ncomms++;
    }
    rd.coll_seen = tn_xcalloc(t->ncomms, sizeof *rd.coll_seen);
    rd.inst = tn_xcalloc(t->ncomms, sizeof *rd.inst);
    rd.ninst = tn_xcalloc(t->ncomms, sizeof *rd.ninst);
    rd.inst_cap = tn_xcalloc(t->ncomms, sizeof *rd.inst_cap);

    for (uint64_t i = 0; i < nranks; i++)
        OTF2_Reader_SelectLocation(r, rank_loc[i]);
    int have_defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    for (uint64_t i = 0; i < nranks; i++) {
        if (have_defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, rank_loc[i]);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
                OTF2_Reader_CloseDefReader(r, dr);
            }
        }
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(r);

    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(ecb, ev_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, ev_coll_end);
    for (uint64_t i = 0; i < nranks && !rd.failed; i++) {
        rd.rank = (uint32_t)i;
        rd.depth = 0;
        rd.have_first = 0;
        rd.nreqs = 0;
        memset(rd.coll_seen, 0, t->ncomms * sizeof *rd.coll_seen);
        /* a COMM_SELF communicator holds the rank reading it */
        for (uint32_t c = 1; c < t->ncomms; c++)
            if (t->comms[c].size == 1)
                t->comms[c].members[0] = (uint32_t)i;
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, rank_loc[i]);
        if (!er) {
            rc = tn_error(err, errlen, "%s: no events of rank %llu (location %llu)", path, (unsigned long long)i,
                          (unsigned long long)rank_loc[i]);
            break;
        }
        OTF2_Reader_RegisterEvtCallbacks(r, er, ecb, &rd);
        uint64_t n = 0;
        ec = OTF2_Reader_ReadAllLocalEvents(r, er, &n);
        OTF2_Reader_CloseEvtReader(r, er);
        if (rd.failed) {
            rc = -1;
            break;
        }
        if (ec != OTF2_SUCCESS) {
            rc = tn_error(err, errlen, "%s: reading rank %llu's events: %s", path, (unsigned long long)i,
                          OTF2_Error_GetDescription(ec));
            break;
        }
        if (rd.nreqs > 0) {
            rc = tn_error(err, errlen, "%s: rank %llu ends with %llu requests never completed", path,
                          (unsigned long long)i, (unsigned long long)rd.nreqs);
            break;
        }
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_CloseEvtFiles(r);
    free(rank_loc);
    if (rc == 0 && finish_colls(&rd) != 0)
        rc = -1;
    if (rc == 0) {
        mt_seal(t);
        t->span_ps = rd.t_max > rd.t_min ? rd.t_max - rd.t_min : 0;
    }
out:
    OTF2_Reader_Close(r);
    for (uint64_t i = 0; i < rd.nstrings; i++)
        free(rd.strings[i]);
    free(rd.strings);
    free(rd.region_mpi);
    free(rd.locations);
    for (uint64_t i = 0; i < rd.ngroups; i++)
        free(rd.groups[i].members);
    free(rd.groups);
    free(rd.comm_ref);
    free(rd.comm_group);
    free(rd.comm_index);
    free(rd.reqs);
    for (uint32_t c = 0; rd.inst && c < t->ncomms; c++)
        free(rd.inst[c]);
    free(rd.inst);
    free(rd.ninst);
    free(rd.inst_cap);
    free(rd.coll_seen);
    if (rc != 0)
        mt_free(t);
    return rc;
}

#endif /* TASKNET_OTF2 */
