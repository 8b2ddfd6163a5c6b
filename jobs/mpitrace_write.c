/* Writing OTF2 MPI traces as Score-P does (mpitrace.h). */
#include "mpitrace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* TASKNET_OTF2 comes from configure (DEFS) */

#ifdef TASKNET_OTF2
#include <otf2/otf2.h>

static const char *const call_names[MTW_NCALLS] = {
    "MPI_Init",      "MPI_Finalize",   "MPI_Send",      "MPI_Recv",       "MPI_Isend",      "MPI_Irecv",
    "MPI_Wait",      "MPI_Waitall",    "MPI_Sendrecv",  "MPI_Barrier",    "MPI_Bcast",      "MPI_Reduce",
    "MPI_Allreduce", "MPI_Gather",     "MPI_Gatherv",   "MPI_Scatter",    "MPI_Scatterv",   "MPI_Allgather",
    "MPI_Allgatherv", "MPI_Alltoall",  "MPI_Alltoallv", "MPI_Reduce_scatter",
};

int mtw_coll_op(enum mtw_call c)
{
    switch (c) {
    case MTW_BARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
    case MTW_BCAST: return OTF2_COLLECTIVE_OP_BCAST;
    case MTW_REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
    case MTW_ALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case MTW_GATHER: return OTF2_COLLECTIVE_OP_GATHER;
    case MTW_GATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
    case MTW_SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
    case MTW_SCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
    case MTW_ALLGATHER: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case MTW_ALLGATHERV: return OTF2_COLLECTIVE_OP_ALLGATHERV;
    case MTW_ALLTOALL: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case MTW_ALLTOALLV: return OTF2_COLLECTIVE_OP_ALLTOALLV;
    case MTW_REDUCE_SCATTER: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    default: return -1;
    }
}

struct mtw {
    OTF2_Archive *a;
    uint32_t n;
    uint64_t res;
    OTF2_EvtWriter **ew; /* [n] */
    uint64_t t_min, t_max;
    uint32_t comm;       /* communicator of the records that follow */
    uint32_t ncomms;     /* communicators besides MPI_COMM_WORLD (refs 1..) */
    uint32_t *csize;     /* [ncomms] */
    uint64_t **cmem;     /* [ncomms][csize] world ranks */
};

uint32_t mtw_comm(mtw *w, uint32_t n, const uint32_t *members)
{
    w->csize = tn_xrealloc(w->csize, (w->ncomms + 1) * sizeof *w->csize);
    w->cmem = tn_xrealloc(w->cmem, (w->ncomms + 1) * sizeof *w->cmem);
    w->csize[w->ncomms] = n;
    w->cmem[w->ncomms] = tn_xmalloc((n ? n : 1) * sizeof **w->cmem);
    for (uint32_t i = 0; i < n; i++) {
        TN_ASSERT(members[i] < w->n, "member %u of %u ranks", members[i], w->n);
        w->cmem[w->ncomms][i] = members[i];
    }
    return ++w->ncomms;
}

void mtw_set_comm(mtw *w, uint32_t comm)
{
    TN_ASSERT(comm <= w->ncomms, "communicator %u of %u", comm, w->ncomms);
    w->comm = comm;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)u, (void)ft, (void)loc, (void)cd, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
    (void)u, (void)ft, (void)loc;
    return 0;
}

static OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};

mtw *mtw_open(const char *dir, const char *name, uint32_t ranks, uint64_t ticks_per_s, char *err, size_t errlen)
{
    /* the smallest chunks OTF2 allows: a reader allocates and clears one
     * chunk of each size per location (at 64 ranks, OTF2's defaults of 1 and
     * 4 MiB cleared 320 MiB per read: a quarter of a 64-rank replay's time,
     * perf) */
    OTF2_Archive *a = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) {
        tn_error(err, errlen, "cannot create the OTF2 archive %s/%s", dir, name);
        return NULL;
    }
    OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    mtw *w = tn_xcalloc(1, sizeof *w);
    w->a = a;
    w->n = ranks;
    w->res = ticks_per_s;
    w->t_min = UINT64_MAX;
    w->ew = tn_xcalloc(ranks ? ranks : 1, sizeof *w->ew);
    for (uint32_t r = 0; r < ranks; r++)
        w->ew[r] = OTF2_Archive_GetEvtWriter(a, r);
    return w;
}

static OTF2_EvtWriter *ew(mtw *w, uint32_t rank, uint64_t t)
{
    TN_ASSERT(rank < w->n, "rank %u of %u", rank, w->n);
    if (t < w->t_min)
        w->t_min = t;
    if (t > w->t_max)
        w->t_max = t;
    return w->ew[rank];
}

void mtw_enter(mtw *w, uint32_t rank, uint64_t t, enum mtw_call c) { OTF2_EvtWriter_Enter(ew(w, rank, t), NULL, t, c); }
void mtw_leave(mtw *w, uint32_t rank, uint64_t t, enum mtw_call c) { OTF2_EvtWriter_Leave(ew(w, rank, t), NULL, t, c); }

void mtw_send(mtw *w, uint32_t rank, uint64_t t, uint32_t dst, uint32_t tag, uint64_t bytes)
{
    OTF2_EvtWriter_MpiSend(ew(w, rank, t), NULL, t, dst, w->comm, tag, bytes);
}

void mtw_recv(mtw *w, uint32_t rank, uint64_t t, uint32_t src, uint32_t tag, uint64_t bytes)
{
    OTF2_EvtWriter_MpiRecv(ew(w, rank, t), NULL, t, src, w->comm, tag, bytes);
}

void mtw_isend(mtw *w, uint32_t rank, uint64_t t, uint32_t dst, uint32_t tag, uint64_t bytes, uint64_t req)
{
    OTF2_EvtWriter_MpiIsend(ew(w, rank, t), NULL, t, dst, w->comm, tag, bytes, req);
}

void mtw_isend_complete(mtw *w, uint32_t rank, uint64_t t, uint64_t req)
{
    OTF2_EvtWriter_MpiIsendComplete(ew(w, rank, t), NULL, t, req);
}

void mtw_irecv_request(mtw *w, uint32_t rank, uint64_t t, uint64_t req)
{
    OTF2_EvtWriter_MpiIrecvRequest(ew(w, rank, t), NULL, t, req);
}

void mtw_irecv(mtw *w, uint32_t rank, uint64_t t, uint32_t src, uint32_t tag, uint64_t bytes, uint64_t req)
{
    OTF2_EvtWriter_MpiIrecv(ew(w, rank, t), NULL, t, src, w->comm, tag, bytes, req);
}

void mtw_coll_begin(mtw *w, uint32_t rank, uint64_t t) { OTF2_EvtWriter_MpiCollectiveBegin(ew(w, rank, t), NULL, t); }

void mtw_coll_end(mtw *w, uint32_t rank, uint64_t t, enum mtw_call c, uint32_t root, uint64_t sent, uint64_t recvd)
{
    OTF2_EvtWriter_MpiCollectiveEnd(ew(w, rank, t), NULL, t, (OTF2_CollectiveOp)mtw_coll_op(c), w->comm, root, sent, recvd);
}

int mtw_close(mtw *w, char *err, size_t errlen)
{
    uint64_t *nev = tn_xcalloc(w->n ? w->n : 1, sizeof *nev);
    for (uint32_t r = 0; r < w->n; r++) {
        OTF2_EvtWriter_GetNumberOfEvents(w->ew[r], &nev[r]);
        OTF2_Archive_CloseEvtWriter(w->a, w->ew[r]);
    }
    OTF2_Archive_CloseEvtFiles(w->a);
    OTF2_Archive_OpenDefFiles(w->a);
    for (uint32_t r = 0; r < w->n; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->a, r);
        OTF2_Archive_CloseDefWriter(w->a, dw);
    }
    OTF2_Archive_CloseDefFiles(w->a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w->a);
    uint64_t t0 = w->t_min == UINT64_MAX ? 0 : w->t_min;
    OTF2_GlobalDefWriter_WriteClockProperties(g, w->res, t0, w->t_max >= t0 ? w->t_max - t0 + 1 : 0,
                                              OTF2_UNDEFINED_TIMESTAMP);
    /* strings: 0 "", 1 "MPI", 2 "node", 3 "machine", 4 "MPI_COMM_WORLD", 5.. the calls, then ranks */
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(g, s++, "");
    OTF2_GlobalDefWriter_WriteString(g, s++, "MPI");
    OTF2_GlobalDefWriter_WriteString(g, s++, "node");
    OTF2_GlobalDefWriter_WriteString(g, s++, "machine");
    OTF2_GlobalDefWriter_WriteString(g, s++, "MPI_COMM_WORLD");
    uint32_t call0 = s;
    for (int c = 0; c < MTW_NCALLS; c++)
        OTF2_GlobalDefWriter_WriteString(g, s++, call_names[c]);
    uint32_t rank0 = s;
    for (uint32_t r = 0; r < w->n; r++) {
        char nm[32];
        snprintf(nm, sizeof nm, "MPI Rank %u", r);
        OTF2_GlobalDefWriter_WriteString(g, s++, nm);
    }
    for (int c = 0; c < MTW_NCALLS; c++) {
        OTF2_RegionRole role = mtw_coll_op((enum mtw_call)c) >= 0 ? OTF2_REGION_ROLE_COLL_ALL2ALL
                               : (c == MTW_INIT || c == MTW_FINALIZE) ? OTF2_REGION_ROLE_FUNCTION
                                                                      : OTF2_REGION_ROLE_POINT2POINT;
        if (c == MTW_BARRIER)
            role = OTF2_REGION_ROLE_BARRIER;
        OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)c, call0 + (uint32_t)c, call0 + (uint32_t)c, 0, role,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 3, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t *members = tn_xmalloc((w->n ? w->n : 1) * sizeof *members);
    for (uint32_t r = 0; r < w->n; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, r, rank0 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, r, rank0 + r, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r);
        members[r] = r;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    w->n, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, w->n,
                                    members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 4, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    /* the other communicators as Score-P defines them: communicator c
     * (named "MPI Comm c") over group c + 1, a COMM_GROUP whose member i
     * is the world rank of the communicator's rank i (the parent is not
     * recorded) */
    for (uint32_t c = 0; c < w->ncomms; c++) {
        char nm[32];
        snprintf(nm, sizeof nm, "MPI Comm %u", c + 1);
        OTF2_GlobalDefWriter_WriteString(g, s, nm);
        OTF2_GlobalDefWriter_WriteGroup(g, c + 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, w->csize[c], w->cmem[c]);
        OTF2_GlobalDefWriter_WriteComm(g, c + 1, s++, c + 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        free(w->cmem[c]);
    }
    free(w->cmem);
    free(w->csize);
    free(members);
    free(nev);
    OTF2_ErrorCode ec = OTF2_Archive_Close(w->a);
    free(w->ew);
    free(w);
    if (ec != OTF2_SUCCESS)
        return tn_error(err, errlen, "closing the OTF2 archive: %s", OTF2_Error_GetDescription(ec));
    return 0;
}

#endif /* TASKNET_OTF2 */
