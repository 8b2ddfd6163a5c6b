#include "footprint.h"

#include <math.h>
#include <string.h>

#include "rng.h"

/* The generator draws max(1, round(X)) vertices (tree_generate). That is X
 * itself when every draw of X is an integer >= 1: a constant, or
 * uniform-int(a,b) with a >= 1. Then the mean is exact: 1, with *n set;
 * otherwise 0 and the Monte Carlo mean of the drawn trees is used. */
static int vertices_mean_exact(const dist *d, double *n)
{
    if (d->kind == DIST_CONST) {
        double r = (double)llround(d->a);
        *n = r < 1 ? 1 : r;
        return 1;
    }
    if (d->kind == DIST_UNIFORM_INT && d->a >= 1) {
        *n = dist_mean(d);
        return 1;
    }
    return 0;
}

void footprint_compute(const tree_spec *ts, const task_spec *task, double eps_bytes,
                       uint64_t samples, uint64_t seed, footprint *out)
{
    memset(out, 0, sizeof *out);
    if (ts->gen == TREE_DETERMINISTIC) {
        tree_shape s;
        tree_shape_closed_form(ts->z, ts->zlen, &s);
        out->n = s.n;
        out->leaves = s.leaves;
        out->delegating = s.delegating;
        out->depth = s.depth;
    } else {
        /* Monte Carlo over the generator: mean n, L, d, D of sampled trees;
         * n exact where the vertex distribution allows (vertices_mean_exact) */
        if (samples == 0)
            samples = 1;
        gsl_rng *r = rng_stream_new(seed, 0, "footprint");
        tree t;
        tree_init(&t);
        double sn = 0, sl = 0, sd = 0, sD = 0;
        for (uint64_t i = 0; i < samples; i++) {
            tree_generate(&t, ts, r);
            tree_shape s;
            tree_shape_of(&t, &s);
            sn += s.n;
            sl += s.leaves;
            sd += s.delegating;
            sD += s.depth;
        }
        tree_destroy(&t);
        gsl_rng_free(r);
        if (!vertices_mean_exact(&ts->vertices, &out->n))
            out->n = sn / (double)samples;
        out->leaves = sl / (double)samples;
        out->delegating = sd / (double)samples;
        out->depth = sD / (double)samples;
        out->samples = samples;
    }
    double ti = dist_mean(&task->init_time), ta = dist_mean(&task->aggregation_time);
    double ss = dist_mean(&task->send_size), sr = dist_mean(&task->result_size);
    out->F_x_s = out->n * (ti + ta);
    /* paper 3.4: L-1 delegations, each s_s + s_r and one release, plus
     * 2 control messages per delegating vertex and 2 for the root */
    out->F_c_bytes = (out->leaves - 1) * (ss + sr + eps_bytes) + eps_bytes * (2 + 2 * out->delegating);
    out->F_bps = out->F_x_s > 0 ? 8.0 * out->F_c_bytes / out->F_x_s : 0;
    out->speedup_bound = out->depth > 0 ? out->n / out->depth : 0;
}

void footprint_bounds(const footprint *f, uint32_t nodes, double beta_per_s, double bandwidth_bps,
                      load_bounds *out)
{
    out->beta_per_s = beta_per_s;
    out->rho_x = nodes > 1 ? beta_per_s * f->F_x_s / (double)(nodes - 1) : 0;
    out->rho_c = bandwidth_bps > 0 ? 8.0 * beta_per_s * f->F_c_bytes / (bandwidth_bps * nodes) : 0;
    out->zeta = out->rho_c > 0 ? out->rho_x / out->rho_c : 0;
}

double footprint_beta_for_load(const footprint *f, uint32_t nodes, double rho_x)
{
    return f->F_x_s > 0 ? rho_x * (double)(nodes - 1) / f->F_x_s : 0;
}
