/* Task-to-node mappings (specs/kernels-patterns.md §0 "Tasks"): task i runs
 * on node map[i]. Pure functions; the random one draws from a stream the
 * caller owns (the workloads use "pattern-mapping", drawn once per run, as
 * ORCS re-maps every run). */
#ifndef TASKNET_MAPPING_H
#define TASKNET_MAPPING_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* map[i] = i for i < tasks. */
void map_identity(uint32_t *map, uint32_t tasks);

/* A uniformly random injection of `tasks` tasks into `nodes` nodes
 * (tasks <= nodes): a Fisher-Yates shuffle of 0..nodes-1 stopped after
 * `tasks` steps; step i swaps position i with i + gsl_rng_uniform_int(r,
 * nodes - i), so exactly `tasks` draws, in task order. Every injection is
 * equally likely. `scratch` holds nodes entries (the shuffled array); it may
 * be NULL, then the function allocates it. */
void map_random(uint32_t *map, uint32_t tasks, uint32_t nodes, gsl_rng *r, uint32_t *scratch);

/* Inverse of an injection: node_task[n] = task on node n, or UINT32_MAX. */
void map_invert(const uint32_t *map, uint32_t tasks, uint32_t nodes, uint32_t *node_task);

#endif
