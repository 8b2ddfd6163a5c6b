/* The task-tree workload (MODEL.md sections 2-5): Poisson job arrivals at
 * the scheduler (node 0), the scheduler node and the compute nodes'
 * execution model, over any fabric. */
#ifndef TASKNET_TASKTREE_H
#define TASKNET_TASKTREE_H

#include "workload.h"

extern const wl_ops wl_task_tree_ops; /* workload.type = "task-tree" */

#endif
