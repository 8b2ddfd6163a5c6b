/* The jobs one random stream yields, drawn once and shared. A task-tree job
 * is a tree and its task values, drawn in arrival order from one stream
 * (the "jobs" stream of a (seed, replica)): every run of that replica draws
 * the same sequence whatever its arrival rate, fabric or N (common random
 * numbers), so the points of a sweep would each draw it again. A job list
 * draws job i once, on first demand, and keeps it read-only for every run
 * that asks; a list serves runs of any job count (the jobs of a shorter
 * run are a prefix of a longer one's).
 *
 * A kept tree holds the children (child_off, child) and the task values of
 * its vertices, what executing it reads; parent, level and the generator's
 * scratch are NULL. Its storage lives in the list's chunks, so a kept
 * tree never moves while the list lives. */
#ifndef TASKNET_JOBLIST_H
#define TASKNET_JOBLIST_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "task.h"
#include "tree.h"

/* Draw one job into t (its storage reused): the tree, then the task values
 * of every vertex, as every run has always drawn them. Returns its work,
 * the sum over its vertices of t_i + t_a, ps. */
int64_t joblist_draw(tree *t, const tree_spec *ts, const task_spec *ks, gsl_rng *r);

typedef struct joblist joblist;

/* A list drawing from rng (taken: freed with the list) with copies of the
 * specs. It stops growing past max_bytes of storage (0: no limit). */
joblist *joblist_new(const tree_spec *ts, const task_spec *ks, gsl_rng *rng, size_t max_bytes);
void joblist_free(joblist *l);

/* Job i, drawing jobs joblist_count(l) .. i first; *work_ps its work. NULL
 * when drawing them would take the list past its max_bytes: the list then
 * stops at joblist_count(l) jobs, and a run draws job joblist_count(l) and
 * the later ones itself from joblist_stream(l) (a copy of the stream where
 * the list stops). */
const tree *joblist_get(joblist *l, uint64_t i, int64_t *work_ps);
uint64_t joblist_count(const joblist *l);
/* Storage held, bytes (its chunks and index). */
size_t joblist_bytes(const joblist *l);
/* A new stream (free with gsl_rng_free) in the state the list's stream has
 * now: what draws job joblist_count(l) and on. */
gsl_rng *joblist_stream(const joblist *l);

#endif
