/* Preferential attachment (MODEL.md section 2): each new vertex attaches to
 * an existing u with probability proportional to w(u) = (2 deg u)^s.
 * Weights live in a Fenwick tree so a draw and an update cost O(log n);
 * with s = 0 every existing vertex weighs 1 (uniform attachment). */
#include <math.h>

#include "log.h"
#include "tree.h"

/* scratch: the Fenwick sums, n+1 entries (1-based) */
static void ensure_scratch(tree *t, uint32_t n)
{
    uint32_t need = n + 1;
    if (t->scratch_cap < need) {
        t->scratch = tn_xrealloc(t->scratch, need * sizeof *t->scratch);
        t->scratch_cap = need;
    }
}

static void fen_add(double *fen, uint32_t n, uint32_t i, double delta)
{
    for (uint32_t k = i + 1; k <= n; k += k & (~k + 1))
        fen[k] += delta;
}

/* The smallest index i with prefix(i) > target, for target in [0, total). */
static uint32_t fen_find(const double *fen, uint32_t n, double target)
{
    uint32_t pos = 0, step = 1;
    while (step * 2 <= n)
        step *= 2;
    for (; step; step /= 2) {
        if (pos + step <= n && fen[pos + step] <= target) {
            pos += step;
            target -= fen[pos];
        }
    }
    return pos; /* 0-based index */
}

void tree_gen_preferential(tree *t, uint32_t n, double s, gsl_rng *r)
{
    TN_ASSERT(n >= 1, "n=%u", n);
    tree_reserve(t, n);
    ensure_scratch(t, n);
    double *fen = t->scratch; /* n+1 entries */
    /* Weights of degrees 0..n, kept across trees of the same shape s (a
     * pow per degree per tree was a tenth of a fig9 sweep). Degree 0 is only
     * ever the lone root's, and vertex 1 takes the root without a draw:
     * weigh it 0 so (2*0)^s = inf for s < 0 stays out of the sums (it made
     * every vertex attach to the root). */
    if (t->pa_wn == 0 || t->pa_s != s)
        t->pa_wn = 0;
    if (t->pa_wn < n + 1) {
        if (t->pa_wcap < n + 1) {
            t->pa_wcap = n + 1 > 2 * t->pa_wcap ? n + 1 : 2 * t->pa_wcap;
            t->pa_w = tn_xrealloc(t->pa_w, t->pa_wcap * sizeof *t->pa_w);
        }
        for (uint32_t k = t->pa_wn; k <= n; k++)
            t->pa_w[k] = k == 0 ? 0.0 : s == 0 ? 1.0 : pow(2.0 * k, s);
        t->pa_wn = n + 1;
        t->pa_s = s;
    }
    const double *wdeg = t->pa_w; /* weight of degree k, k = 0..n */
    for (uint32_t k = 0; k <= n; k++)
        fen[k] = 0;
    /* degrees are kept in child_off (rebuilt as CSR at the end) */
    uint32_t *deg = t->child_off;
    t->n = n;
    t->parent[0] = TREE_NONE;
    t->level[0] = 1;
    deg[0] = 0;
    double total = 0;
    fen_add(fen, n, 0, wdeg[0]);
    total += wdeg[0];
    for (uint32_t v = 1; v < n; v++) {
        uint32_t u;
        if (v == 1) {
            u = 0; /* the root alone has degree 0: the first vertex must attach to it */
        } else {
            double target = gsl_rng_uniform(r) * total;
            u = fen_find(fen, v, target);
            if (u >= v) /* rounding at the very top of the range */
                u = v - 1;
        }
        t->parent[v] = u;
        t->level[v] = t->level[u] + 1;
        deg[v] = 1;
        double wu = wdeg[deg[u] + 1] - wdeg[deg[u]];
        deg[u]++;
        fen_add(fen, n, u, wu);
        fen_add(fen, n, v, wdeg[1]);
        total += wu + wdeg[1];
    }
    /* CSR children in insertion order (vertex order = attachment order) */
    uint32_t *cnt = t->child_off;
    for (uint32_t v = 0; v <= n; v++)
        cnt[v] = 0;
    for (uint32_t v = 1; v < n; v++)
        cnt[t->parent[v] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        cnt[v + 1] += cnt[v];
    /* fill using level[] as no scratch: use fen as a cursor array */
    for (uint32_t v = 0; v < n; v++)
        fen[v] = cnt[v];
    for (uint32_t v = 1; v < n; v++) {
        uint32_t p = t->parent[v];
        t->child[(uint32_t)fen[p]] = v;
        fen[p] += 1;
    }
}
