/* MPI traces as per-rank operation lists (issue 20 item 2): what the
 * mpi-trace workload replays. Read from OTF2 (Score-P's format) with OTF2's
 * reader API when tasknet is built with it (TASKNET_OTF2); without it
 * mt_load says so, naming libotf2-trace-dev.
 *
 * From the trace (mt_load):
 *   - Ranks: the locations of the MPI_COMM_WORLD location group
 *     (OTF2_GROUP_TYPE_COMM_LOCATIONS, member i = rank i); without one,
 *     every location in id order.
 *   - Communicators: each OTF2 Comm's group (OTF2_GROUP_TYPE_COMM_GROUP,
 *     members are world ranks; COMM_SELF: the rank itself); a rank number
 *     in an event (receiver, sender, root) is the communicator's.
 *   - MPI calls: the regions of paradigm MPI (or named MPI_*). Time
 *     outside them, from a rank's first event (or the previous MPI call's
 *     Leave) to the next MPI call's Enter, is computation (MT_COMPUTE, ps:
 *     ticks x 1e12 / the clock's resolution).
 *   - MpiSend -> MT_SEND, MpiRecv -> MT_RECV (blocking), MpiIsend ->
 *     MT_ISEND, MpiIrecvRequest -> MT_IRECV (its source, tag and size from
 *     the MpiIrecv that completes it), MpiIsendComplete and MpiIrecv ->
 *     MT_WAIT for that request (where the program completed it: Wait,
 *     Waitall, Test...), MpiRequestCancelled -> the request is dropped.
 *     An MPI call holding two or more blocking point-to-point events
 *     (MPI_Sendrecv) posts them all, then waits for each (so two ranks'
 *     Sendrecv of rendezvous size cannot deadlock, as in MPI).
 *   - MpiCollectiveEnd(op, comm, root, sent, received) -> MT_COLL: the k-th
 *     collective of a communicator is the same instance at every member.
 *     Its sizes (collectives.h's bytes / counts) from every member's record:
 *     barrier 0; bcast the largest received; reduce and allreduce the
 *     largest sent; gather(v) counts = each member's sent; scatter(v)
 *     counts = received; allgather(v) counts = sent; alltoall sent / n a
 *     pair; alltoallv member i sends sent_i / (n - 1) to each other (OTF2
 *     keeps only totals); reduce-scatter(-block) counts = received. Scan,
 *     exscan and alltoallw are not replayed (an error names them), nor
 *     one-sided operations.
 * Everything is sized at load; nothing is allocated by the replay. */
#ifndef TASKNET_MPITRACE_H
#define TASKNET_MPITRACE_H

#include <stddef.h>
#include <stdint.h>

#include "collectives.h"

enum mt_kind { MT_COMPUTE = 0, MT_SEND, MT_ISEND, MT_RECV, MT_IRECV, MT_WAIT, MT_COLL, MT_NOP };

typedef struct mt_op {
    uint8_t kind;   /* enum mt_kind */
    uint32_t peer;  /* SEND/ISEND: destination, RECV/IRECV: source (world ranks) */
    uint32_t tag;   /* point-to-point tag */
    uint32_t comm;  /* communicator index */
    uint64_t bytes; /* point-to-point payload */
    uint64_t arg;   /* COMPUTE: ps; WAIT: index (in ops) of the request's op; COLL: instance */
} mt_op;

typedef struct mt_comm {
    uint32_t size;
    uint32_t *members; /* [size] world ranks */
} mt_comm;

typedef struct mt_coll {
    coll_spec spec;    /* op, ranks, root, bytes / counts (alg: the replay's) */
    uint32_t comm;     /* communicator index */
    uint32_t arrived;  /* members whose record was read (load) */
    uint64_t *sizes;   /* [2 size] sent, received per member (load) */
    uint64_t *counts;  /* spec.counts: [size] or [size * size] or NULL */
} mt_coll;

typedef struct mt_trace {
    uint32_t ranks;
    uint64_t *start;      /* [ranks + 1] rank r's ops are ops[start[r] .. start[r+1]) */
    mt_op *ops;
    uint64_t nops;
    mt_comm *comms;
    uint32_t ncomms;
    mt_coll *colls;
    uint64_t ncolls;
    int64_t *compute_ps;  /* [ranks] the trace's computation per rank */
    int64_t span_ps;      /* the trace's first event to its last */
    uint64_t mpi_events;  /* MPI event records read */
    uint64_t cap;         /* room in ops (building) */
    uint32_t push_rank;   /* rank of the last mt_push (building) */
} mt_trace;

/* Read an OTF2 archive (its anchor file, e.g. traces.otf2). 0, or -1 +
 * err ("traces.otf2: rank 3's 2nd collective on comm 1 is bcast, rank 0's
 * allreduce"; "tasknet was built without OTF2 ..."). */
int mt_load(const char *path, mt_trace *t, char *err, size_t errlen);
void mt_free(mt_trace *t);

/* An empty trace of n ranks with a world communicator (comm 0), and
 * appending to it, for tests and generators; mt_seal finishes it. */
void mt_init(mt_trace *t, uint32_t ranks);
void mt_push(mt_trace *t, uint32_t rank, mt_op op); /* ranks in order: all of rank 0's ops, then rank 1's ... */
void mt_seal(mt_trace *t);

#endif

/* ---- writing (TASKNET_OTF2 only) ----
 * An OTF2 archive of n ranks written the way Score-P writes MPI events
 * (one process writes every rank's events, serially): each rank one
 * location (CPU thread, id = rank) in a process location group; strings,
 * one region per MPI call (paradigm MPI, names "MPI_Send", ...), a
 * COMM_LOCATIONS group of the n locations, a COMM_GROUP of ranks 0..n-1
 * and its communicator 0 (MPI_COMM_WORLD), other communicators (mtw_comm:
 * a COMM_GROUP of world ranks each), and the clock's resolution.
 * Events: Enter/Leave of the call's region around its MPI record(s). Used
 * by the tests and by the tracer (tests/mpi/, libtasknet-mpitrace.so). */
typedef struct mtw mtw;
/* the MPI calls the writer has regions for */
enum mtw_call {
    MTW_INIT = 0, MTW_FINALIZE, MTW_SEND, MTW_RECV, MTW_ISEND, MTW_IRECV, MTW_WAIT, MTW_WAITALL,
    MTW_SENDRECV, MTW_BARRIER, MTW_BCAST, MTW_REDUCE, MTW_ALLREDUCE, MTW_GATHER, MTW_GATHERV,
    MTW_SCATTER, MTW_SCATTERV, MTW_ALLGATHER, MTW_ALLGATHERV, MTW_ALLTOALL, MTW_ALLTOALLV,
    MTW_REDUCE_SCATTER, MTW_NCALLS
};
/* OTF2's collective operation of each collective call (enum OTF2_CollectiveOp), -1 for others */
int mtw_coll_op(enum mtw_call c);
mtw *mtw_open(const char *dir, const char *name, uint32_t ranks, uint64_t ticks_per_s, char *err, size_t errlen);
void mtw_enter(mtw *w, uint32_t rank, uint64_t t, enum mtw_call c);
void mtw_leave(mtw *w, uint32_t rank, uint64_t t, enum mtw_call c);
void mtw_send(mtw *w, uint32_t rank, uint64_t t, uint32_t dst, uint32_t tag, uint64_t bytes);
void mtw_recv(mtw *w, uint32_t rank, uint64_t t, uint32_t src, uint32_t tag, uint64_t bytes);
void mtw_isend(mtw *w, uint32_t rank, uint64_t t, uint32_t dst, uint32_t tag, uint64_t bytes, uint64_t req);
void mtw_isend_complete(mtw *w, uint32_t rank, uint64_t t, uint64_t req);
void mtw_irecv_request(mtw *w, uint32_t rank, uint64_t t, uint64_t req);
void mtw_irecv(mtw *w, uint32_t rank, uint64_t t, uint32_t src, uint32_t tag, uint64_t bytes, uint64_t req);
void mtw_coll_begin(mtw *w, uint32_t rank, uint64_t t);
void mtw_coll_end(mtw *w, uint32_t rank, uint64_t t, enum mtw_call c, uint32_t root, uint64_t sent, uint64_t recvd);
/* A communicator other than MPI_COMM_WORLD: member i (its rank i) is world
 * rank members[i]; returns its ref (1, 2, ...). Records refer to the
 * communicator set last by mtw_set_comm (0, MPI_COMM_WORLD, until then);
 * their ranks (destination, source, root) are the communicator's. */
uint32_t mtw_comm(mtw *w, uint32_t n, const uint32_t *members);
void mtw_set_comm(mtw *w, uint32_t comm);
/* Write the definitions and close: 0, or -1 + err. */
int mtw_close(mtw *w, char *err, size_t errlen);
