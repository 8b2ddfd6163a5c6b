/* Analytic footprints of a job generator (MODEL.md section 5; paper 3.4-3.6).
 * Exact for deterministic trees with constant task values; otherwise a
 * Monte Carlo over the generator (sample count reported). Shape means
 * (n, L, d, D) are exact for a deterministic z whatever the task values. */
#ifndef TASKNET_FOOTPRINT_H
#define TASKNET_FOOTPRINT_H

#include <stdint.h>

#include "task.h"
#include "tree.h"

typedef struct footprint {
    double n;             /* mean vertices */
    double leaves;        /* mean L */
    double delegating;    /* mean d */
    double depth;         /* mean D */
    double F_x_s;         /* n (t_i + t_a), seconds */
    double F_c_bytes;     /* (L-1)(s_s+s_r+eps) + eps(2+2d), bytes */
    double F_bps;         /* 8 F_c / F_x */
    double speedup_bound; /* n / D (means) */
    uint64_t samples;     /* Monte Carlo trees, 0 when exact */
} footprint;

/* samples: trees to draw when the tree is stochastic; seed: the Monte Carlo's own stream. */
void footprint_compute(const tree_spec *ts, const task_spec *task, double eps_bytes,
                       uint64_t samples, uint64_t seed, footprint *out);

typedef struct load_bounds {
    double beta_per_s; /* job arrival rate */
    double rho_x;      /* beta F_x / (N-1) */
    double rho_c;      /* 8 beta F_c / (B N) */
    double zeta;       /* rho_x / rho_c */
} load_bounds;

void footprint_bounds(const footprint *f, uint32_t nodes, double beta_per_s, double bandwidth_bps,
                      load_bounds *out);
/* beta giving offered computing load rho_x: rho_x (N-1) / F_x. */
double footprint_beta_for_load(const footprint *f, uint32_t nodes, double rho_x);

#endif
