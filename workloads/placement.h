/* Which fabric nodes a workload's ranks are on (a workload's `nodes`
 * attribute). workloads/placement.c. */
#ifndef TASKNET_PLACEMENT_H
#define TASKNET_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/* The form of spec alone (no N): 0, or -1 + err. */
int wl_nodes_valid(const char *spec, char *err, size_t errlen);
/* spec over N nodes: n ranks, rank r on node map[r] (map has room for N),
 * given the nodes the earlier exclusive workloads hold (taken[] of N,
 * updated when exclusive; NULL: none checked); random(n) draws from rng
 * (may be NULL when the form draws nothing). map NULL (and taken NULL):
 * the count only, allocating nothing proportional to N (a list is kept as
 * its ranges). 0, or -1 + err. */
int wl_nodes_place(const char *spec, uint32_t N, int exclusive, unsigned char *taken, gsl_rng *rng,
                   uint32_t *map, uint32_t *n, char *err, size_t errlen);

#endif
