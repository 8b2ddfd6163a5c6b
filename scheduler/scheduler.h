/* The scheduler node (MODEL.md section 3; paper 3.3) and what it shares with
 * the compute nodes: the task-tree message kinds, the job record and the
 * port through which both hand messages to the fabric.
 *
 * Node 0 keeps an allocated/idle flag per compute node (1..N-1) and a FIFO
 * of waiting jobs. Handling a message takes no simulated time. Random
 * choices are uniform over the idle set, drawn from the scheduler's own
 * stream, and the idle set is an array with O(1) removal whose order
 * depends only on past choices, so a run is reproducible. */
#ifndef TASKNET_SCHEDULER_H
#define TASKNET_SCHEDULER_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "network.h"
#include "tree.h"

struct trace;

/* Message kinds (net_msg.kind) and what each carries in a/b/p. Control
 * messages are eps bytes; data messages carry the task's sizes. b is the
 * job's arrival index on control messages (traces). */
enum sched_msg_kind {
    SCHED_ASSIGN = 1, /* sched -> node: root task; p = job (control, low) */
    SCHED_ALLOC_REQ,  /* node -> sched: a = nodes wanted, p = uint32_t[a] grant buffer (control, high) */
    SCHED_GRANT,      /* sched -> node: a = k granted, p = the request's buffer holding the ids (control, high) */
    SCHED_RELEASE,    /* node -> sched: a = released node (control, high) */
    SCHED_JOB_DONE,   /* root node -> sched: p = job (control, low) */
    SCHED_DELEGATE,   /* node -> delegate: a = vertex, b = round tag, p = delegating frame (data s_s, low) */
    SCHED_RESULT,     /* delegate -> node: a = vertex, b = round tag, p = delegating frame (data s_r, high) */
    SCHED_KIND_COUNT
};

/* Name of a message kind for traces ("assign", "grant", ...). */
const char *sched_kind_name(unsigned kind);

/* One job in flight (pooled). Its tree is read-only while it runs: a job
 * list's (jobs/joblist.h, shared by the runs of a process) or own. */
typedef struct sched_job {
    const tree *t;          /* shape and task values */
    tree own;               /* storage of a job the run drew itself (reused by the next such job) */
    uint64_t seq;           /* arrival index, 0-based */
    int64_t arrival_ps;     /* arrival at the scheduler */
    int64_t assigned_ps;    /* root assignment sent (-1 while queued) */
    int64_t work_ps;        /* sum over its tasks of t_i + t_a */
    uint32_t root_node;     /* node running the root task (0 while queued) */
    struct sched_job *next; /* scheduler FIFO / free-list link */
} sched_job;

/* The fabric side shared by the scheduler and the compute nodes. */
typedef struct sched_port {
    sim *sim;                                /* engine */
    net *net;                                /* fabric */
    net_msg_pool pool;                       /* every task-tree message comes from here */
    uint64_t eps_bytes;                      /* control message size */
    struct trace *trace;                     /* optional timeline, may be NULL */
    uint64_t sent_by_kind[SCHED_KIND_COUNT]; /* messages handed over, per kind */
} sched_port;

/* Hand a new message from the pool to the fabric at sim_now. */
void sched_send(sched_port *pt, uint32_t src, uint32_t dst, uint64_t size_bytes, uint8_t cls,
                uint8_t prio, uint16_t kind, uint32_t a, uint64_t b, void *p);

typedef struct sched {
    sched_port *port;          /* borrowed */
    gsl_rng *rng;              /* borrowed: the "scheduler" stream */
    uint32_t nodes;            /* N, including node 0 */
    uint32_t *idle;            /* idle compute node ids, [0, nidle) */
    uint32_t *idle_pos;        /* position of node in idle[], UINT32_MAX when allocated */
    uint32_t nidle;            /* idle compute nodes */
    int64_t *alloc_since_ps;   /* per node: when its current allocation began */
    int64_t *alloc_total_ps;   /* per node: allocated time accumulated so far */
    uint64_t *allocations;     /* per node: times it was allocated */
    sched_job *fifo_head;      /* waiting jobs, oldest first */
    sched_job *fifo_tail;      /* newest waiting job */
    uint64_t fifo_len;         /* jobs waiting */
    uint64_t fifo_max;         /* longest the FIFO has been */
    uint64_t nodes_granted;    /* nodes handed out by grants */
    uint64_t nodes_requested;  /* nodes asked for by allocation requests */
} sched;

void sched_init(sched *s, sched_port *port, gsl_rng *rng, uint32_t nodes);
void sched_fini(sched *s);

/* A job arrives at sim_now: assign it to a random idle node or queue it. */
void sched_job_arrival(sched *s, sched_job *j);
/* A message addressed to node 0 (ALLOC_REQ, RELEASE, JOB_DONE); releases m.
 * Returns the job when m completed one (its completion time is sim_now),
 * else NULL. */
sched_job *sched_deliver(sched *s, net_msg *m);

static inline int sched_is_allocated(const sched *s, uint32_t node)
{
    return s->idle_pos[node] == UINT32_MAX;
}

#endif
