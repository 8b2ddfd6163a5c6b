/* The compute nodes' execution model (MODEL.md section 4; paper 3.3).
 *
 * execute(T) on node M: compute t_i(T); with m children, none -> aggregate;
 * one -> run it locally; more -> ask the scheduler for m-1 nodes, block for
 * the grant, delegate pending children (taken from the END of the child
 * list) to the granted nodes, then alternate "run one pending child
 * locally" and "wait for every working delegate, re-delegating or
 * releasing each as its result comes in"; compute t_a(T); report to the
 * scheduler (root), to the delegating node (delegated) or return to the
 * parent running on the same node (local).
 *
 * Nested local execution is an explicit per-node stack of frames from a
 * pool, driven by events: nothing recurses across events and nothing is
 * allocated once the pool and the frames' buffers have grown. */
#ifndef TASKNET_EXEC_MODEL_H
#define TASKNET_EXEC_MODEL_H

#include <stdint.h>

#include "scheduler.h"

typedef struct exec_frame exec_frame;

/* Per compute node. */
typedef struct exec_node {
    exec_frame *top;          /* task running now (top of the local stack), NULL when free */
    int64_t compute_ps;       /* time spent in compute phases (t_i and t_a) */
    uint64_t tasks;           /* tasks executed (init + aggregation done) */
    uint64_t delegations_in;  /* tasks received by delegation */
    uint64_t roots;           /* root tasks received */
    uint32_t depth_max;       /* deepest local stack seen */
} exec_node;

typedef struct exec {
    sched_port *port;         /* borrowed */
    uint32_t nodes;           /* N; node 0 (the scheduler) has no stack */
    exec_node *node;          /* [nodes] */
    exec_frame *free_frames;  /* frame pool */
    exec_frame **all_frames;  /* every frame ever allocated (to free them) */
    uint32_t nall, all_cap;   /* frames allocated, capacity of all_frames */
    uint32_t live_frames;     /* frames in use */
} exec;

void exec_init(exec *e, sched_port *port, uint32_t nodes);
void exec_fini(exec *e);

/* A message addressed to a compute node (ASSIGN, GRANT, DELEGATE, RESULT);
 * releases m. */
void exec_deliver(exec *e, net_msg *m);

/* The arrival index of the job a task-tree message belongs to (traces). */
uint64_t exec_msg_job_seq(const net_msg *m);

#endif
