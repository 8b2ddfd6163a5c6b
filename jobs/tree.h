/* Job trees. Vertex 0 is the root; a vertex's children keep their insertion
 * order (delegation and local execution take them from the END). Storage is
 * struct-of-arrays, reused across jobs (tree_reserve grows, never shrinks),
 * so generating a job allocates nothing once warmed up. */
#ifndef TASKNET_TREE_H
#define TASKNET_TREE_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "dist.h"
#include "task.h"

#define TREE_NONE UINT32_MAX
#define TREE_MAX_LEVELS 32

typedef enum tree_gen { TREE_DETERMINISTIC = 0, TREE_PREFERENTIAL = 1 } tree_gen;

typedef struct tree_spec {
    tree_gen gen;
    uint32_t z[TREE_MAX_LEVELS]; /* deterministic: children per vertex of level i-1 (all >= 1) */
    uint32_t zlen;               /* deterministic: levels below the root */
    dist vertices;               /* preferential: n (unit-less; sampled, rounded, >= 1) */
    double shape;                /* preferential: s in w(u) = (2 deg u)^s */
} tree_spec;

typedef struct tree {
    uint32_t n;           /* vertices */
    uint32_t cap;         /* allocated vertices */
    uint32_t *parent;     /* parent[v]; TREE_NONE for the root */
    uint32_t *child_off;  /* children of v: child[child_off[v] .. child_off[v+1]), n+1 entries */
    uint32_t *child;      /* n-1 entries, insertion order per parent */
    uint32_t *level;      /* root = 1, so max level = depth D */
    /* task values (tree_sample_tasks) */
    int64_t *t_init_ps;
    int64_t *t_agg_ps;
    uint64_t *send_bytes;
    uint64_t *result_bytes;
    /* generator scratch (preferential attachment) */
    double *scratch;
    uint32_t scratch_cap;
    double *pa_w;      /* attachment weight (2k)^s of degree k, k < pa_wn, for s = pa_s */
    uint32_t pa_wn;    /* weights computed (0: none) */
    uint32_t pa_wcap;  /* allocated */
    double pa_s;       /* shape the weights are for */
    uint32_t pa_wint;  /* weights 0 .. pa_wint-1 are integers >= 0 */
    uint32_t *pa_isum; /* integer Fenwick sums, then CSR cursors: pa_isum_cap entries */
    uint32_t pa_isum_cap;
    uint16_t *pa_ends; /* s = 1: every vertex once per unit of degree, in vertex order */
    uint32_t pa_ends_cap;
} tree;

typedef struct tree_shape {
    uint32_t n;          /* vertices */
    uint32_t leaves;     /* L: vertices without children */
    uint32_t delegating; /* d: vertices with at least 2 children */
    uint32_t depth;      /* D: vertices on the longest root-to-leaf path */
} tree_shape;

void tree_init(tree *t);
void tree_destroy(tree *t);
void tree_reserve(tree *t, uint32_t n);

/* Deterministic generator: every vertex of level i-1 has z[i-1] children.
 * Vertices in breadth-first order. */
void tree_gen_deterministic(tree *t, const uint32_t *z, uint32_t zlen);
/* Preferential attachment (n, s): add n-1 vertices, each to an existing u
 * drawn with probability proportional to (2 deg u)^s. */
void tree_gen_preferential(tree *t, uint32_t n, double s, gsl_rng *r);
/* The same draws through the general floating-point search only (what
 * tree_gen_preferential does when the weights are not small integers);
 * for tests, which check both give the same trees. */
void tree_gen_preferential_float(tree *t, uint32_t n, double s, gsl_rng *r);
/* Dispatch on spec->gen (samples n for preferential). */
void tree_generate(tree *t, const tree_spec *spec, gsl_rng *r);
/* Sample the four task values of every vertex (in vertex order: t_i, t_a, s_s, s_r). */
void tree_sample_tasks(tree *t, const task_spec *ts, gsl_rng *r);

static inline uint32_t tree_nchildren(const tree *t, uint32_t v) { return t->child_off[v + 1] - t->child_off[v]; }
static inline uint32_t tree_child(const tree *t, uint32_t v, uint32_t i) { return t->child[t->child_off[v] + i]; }

/* Asks the cache for what executing t reads (children and task values),
 * into L2, a line at a time: a job's tree was last read a run ago and
 * comes from far away, and its tasks read it scattered over the job's life,
 * each read a miss the task's event waits on. */
static inline void tree_prefetch(const tree *t)
{
    const char *const lo[] = {(const char *)t->t_init_ps, (const char *)t->t_agg_ps,
                              (const char *)t->send_bytes, (const char *)t->result_bytes,
                              (const char *)t->child_off, (const char *)t->child};
    const size_t len[] = {t->n * sizeof *t->t_init_ps, t->n * sizeof *t->t_agg_ps,
                          t->n * sizeof *t->send_bytes, t->n * sizeof *t->result_bytes,
                          (t->n + 1) * sizeof *t->child_off, (t->n ? t->n - 1 : 0) * sizeof *t->child};
    for (size_t a = 0; a < sizeof lo / sizeof lo[0]; a++)
        for (size_t off = 0; off < len[a]; off += 64)
            __builtin_prefetch(lo[a] + off, 0, 2);
}

void tree_shape_of(const tree *t, tree_shape *out);
/* Closed forms for z: n = 1 + sum_k prod_{m<=k} z_m, L = prod z, d = number of
 * vertices with >= 2 children, D = zlen + 1. */
void tree_shape_closed_form(const uint32_t *z, uint32_t zlen, tree_shape *out);

void tree_spec_copy(tree_spec *dst, const tree_spec *src);
void tree_spec_free(tree_spec *s);

#endif
