/* The task-tree workload (MODEL.md sections 2-5): Poisson job arrivals at
 * the scheduler (node 0), the scheduler node and the compute nodes'
 * execution model, over any fabric. */
#ifndef TASKNET_TASKTREE_H
#define TASKNET_TASKTREE_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

extern const wl_ops wl_task_tree_ops; /* workload.type = "task-tree" */

/* ---- Test and diagnostic access (the run code does not use these). ---- */

/* Init with an explicit arrival schedule instead of the Poisson process:
 * n jobs arriving at the given absolute times (non-decreasing, >= 0);
 * env->p->jobs and arrival_rate_per_s are ignored. Everything else (trees
 * from the "jobs" stream, the scheduler's choices) is as in init. */
int tasktree_init_arrivals(void *state, const wl_env *env, const int64_t *arrival_ps, uint64_t n,
                           char *err, size_t errlen);

typedef struct tasktree_job_record {
    int64_t arrival_ps;   /* arrival at the scheduler */
    int64_t assigned_ps;  /* root assignment sent; -1 while queued */
    int64_t completed_ps; /* job-complete received; -1 while running */
    int64_t work_ps;      /* sum over its tasks of t_i + t_a */
    uint32_t root_node;   /* node that ran the root task; 0 while queued */
    uint32_t tasks;       /* vertices of its tree */
} tasktree_job_record;

typedef struct tasktree_node_stats {
    int64_t compute_ps;      /* time in compute phases */
    int64_t allocated_ps;    /* allocated time seen by the scheduler (closed allocations) */
    uint64_t allocations;    /* times the scheduler allocated it */
    uint64_t tasks;          /* tasks executed */
    uint64_t roots;          /* root tasks received */
    uint64_t delegations_in; /* tasks received by delegation */
    uint32_t depth_max;      /* deepest local execution stack */
    int allocated;           /* 1 while allocated */
} tasktree_node_stats;

uint64_t tasktree_jobs_arrived(const void *state);
/* Record of the i-th arrival (i < tasktree_jobs_arrived). */
const tasktree_job_record *tasktree_job(const void *state, uint64_t i);
void tasktree_node(const void *state, uint32_t node, tasktree_node_stats *out);
/* Messages handed over, per enum sched_msg_kind (scheduler/scheduler.h). */
uint64_t tasktree_sent_by_kind(const void *state, unsigned kind);
/* Nodes asked for by allocation requests / handed out by grants; longest FIFO. */
void tasktree_sched_counts(const void *state, uint64_t *requested, uint64_t *granted,
                           uint64_t *fifo_max);
/* End-of-run invariants: every job arrived and completed, no node allocated,
 * no frame or message live, sent == delivered (count and bytes) on the
 * fabric, allocated >= compute time on every node, compute == work.
 * 0, or -1 + err naming the first that fails. */
int tasktree_check_invariants(const void *state, char *err, size_t errlen);

#endif
