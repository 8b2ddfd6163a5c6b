#include "tree.h"

#include <math.h>
#include <string.h>

#include "log.h"
#include "units.h"

void tree_init(tree *t) { memset(t, 0, sizeof *t); }

void tree_destroy(tree *t)
{
    free(t->parent);
    free(t->child_off);
    free(t->child);
    free(t->level);
    free(t->t_init_ps);
    free(t->t_agg_ps);
    free(t->send_bytes);
    free(t->result_bytes);
    free(t->scratch);
    free(t->pa_w);
    free(t->pa_isum);
    free(t->pa_ends);
    memset(t, 0, sizeof *t);
}

void tree_reserve(tree *t, uint32_t n)
{
    if (n <= t->cap)
        return;
    uint32_t cap = t->cap ? t->cap : 64;
    while (cap < n)
        cap *= 2;
    t->parent = tn_xrealloc(t->parent, cap * sizeof *t->parent);
    t->child_off = tn_xrealloc(t->child_off, ((size_t)cap + 1) * sizeof *t->child_off);
    t->child = tn_xrealloc(t->child, cap * sizeof *t->child);
    t->level = tn_xrealloc(t->level, cap * sizeof *t->level);
    t->t_init_ps = tn_xrealloc(t->t_init_ps, cap * sizeof *t->t_init_ps);
    t->t_agg_ps = tn_xrealloc(t->t_agg_ps, cap * sizeof *t->t_agg_ps);
    t->send_bytes = tn_xrealloc(t->send_bytes, cap * sizeof *t->send_bytes);
    t->result_bytes = tn_xrealloc(t->result_bytes, cap * sizeof *t->result_bytes);
    t->cap = cap;
}

void tree_generate(tree *t, const tree_spec *spec, gsl_rng *r)
{
    if (spec->gen == TREE_DETERMINISTIC) {
        tree_gen_deterministic(t, spec->z, spec->zlen);
        return;
    }
    double x = dist_sample(&spec->vertices, r);
    /* the configuration bounds the draws far below this (1e8, one draw in
     * 10^20 beyond); a draw past 32 bits would be a bug, not a tree */
    TN_ASSERT(x < 4294967295.0, "a tree of %g vertices drawn from %s", x,
              spec->vertices.text ? spec->vertices.text : "(vertices)");
    double n = (double)llround(x);
    tree_gen_preferential(t, n < 1 ? 1u : (uint32_t)n, spec->shape, r);
}

static uint64_t size_sample(const dist *d, gsl_rng *r)
{
    double v = dist_sample(d, r);
    return v <= 0 ? 0 : (uint64_t)llround(v);
}

static int64_t time_sample(const dist *d, gsl_rng *r)
{
    int64_t ps = units_s_to_ps(dist_sample(d, r));
    return ps < 0 ? 0 : ps;
}

void tree_sample_tasks(tree *t, const task_spec *ts, gsl_rng *r)
{
    for (uint32_t v = 0; v < t->n; v++) {
        t->t_init_ps[v] = time_sample(&ts->init_time, r);
        t->t_agg_ps[v] = time_sample(&ts->aggregation_time, r);
        t->send_bytes[v] = size_sample(&ts->send_size, r);
        t->result_bytes[v] = size_sample(&ts->result_size, r);
    }
}

void tree_shape_of(const tree *t, tree_shape *out)
{
    memset(out, 0, sizeof *out);
    out->n = t->n;
    for (uint32_t v = 0; v < t->n; v++) {
        uint32_t m = tree_nchildren(t, v);
        out->leaves += m == 0;
        out->delegating += m >= 2;
        if (t->level[v] > out->depth)
            out->depth = t->level[v];
    }
}

void tree_shape_closed_form(const uint32_t *z, uint32_t zlen, tree_shape *out)
{
    /* level sizes: 1, z1, z1 z2, ...; a vertex of level i-1 has z_i children */
    uint64_t width = 1, n = 1, d = 0;
    for (uint32_t i = 0; i < zlen; i++) {
        if (z[i] >= 2)
            d += width;
        width *= z[i];
        n += width;
    }
    out->n = (uint32_t)n;
    out->leaves = (uint32_t)width;
    out->delegating = (uint32_t)d;
    out->depth = zlen + 1;
}

void tree_spec_copy(tree_spec *dst, const tree_spec *src)
{
    *dst = *src;
    dist_copy(&dst->vertices, &src->vertices);
}

void tree_spec_free(tree_spec *s) { dist_free(&s->vertices); }
