/* Preferential attachment (MODEL.md section 2): each new vertex attaches to
 * an existing u with probability proportional to w(u) = (2 deg u)^s.
 * Weights live in a Fenwick tree so a draw and an update cost O(log n);
 * with s = 0 every existing vertex weighs 1 (uniform attachment).
 *
 * A draw takes target = U * total (U uniform in [0,1)) and attaches to the
 * smallest u whose prefix sum of weights exceeds target. When every weight
 * is a small integer (s = 0, 1, 2 ... the paper uses s = 1), the prefix
 * sums are exact in double and so is the Fenwick descent (target - an
 * integer below it is representable), so the answer is the exact one:
 * the smallest u with prefix(u) > floor(target) in integers. That case
 * runs on 32-bit sums without branches in the descent (its comparisons
 * are coin flips); other shapes keep the floating-point search, whose
 * rounding the integer one could not reproduce. Both give the same tree
 * for the same draws (tests/check_tree.c compares them). */
#include <math.h>
#include <string.h>

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

static void ensure_isum(tree *t, uint32_t need)
{
    if (t->pa_isum_cap < need) {
        t->pa_isum = tn_xrealloc(t->pa_isum, need * sizeof *t->pa_isum);
        t->pa_isum_cap = need;
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

/* Weights of degrees 0..n, kept across trees of the same shape s (a pow
 * per degree per tree was a tenth of a fig9 sweep). Degree 0 is only ever
 * the lone root's, and vertex 1 takes the root without a draw: weigh it 0
 * so (2*0)^s = inf for s < 0 stays out of the sums (it made every vertex
 * attach to the root). */
static const double *pa_weights(tree *t, uint32_t n, double s)
{
    if (t->pa_wn == 0 || t->pa_s != s)
        t->pa_wn = t->pa_wint = 0;
    if (t->pa_wn < n + 1) {
        if (t->pa_wcap < n + 1) {
            t->pa_wcap = n + 1 > 2 * t->pa_wcap ? n + 1 : 2 * t->pa_wcap;
            t->pa_w = tn_xrealloc(t->pa_w, t->pa_wcap * sizeof *t->pa_w);
        }
        for (uint32_t k = t->pa_wn; k <= n; k++) {
            double w = k == 0 ? 0.0 : s == 0 ? 1.0 : pow(2.0 * k, s);
            t->pa_w[k] = w;
            if (t->pa_wint == k && w >= 0 && w == floor(w))
                t->pa_wint = k + 1;
        }
        t->pa_wn = n + 1;
        t->pa_s = s;
    }
    return t->pa_w;
}

/* Attachments with the floating-point Fenwick tree; degrees in deg. */
static void attach_float(tree *t, uint32_t n, const double *wdeg, uint32_t *deg, gsl_rng *r)
{
    ensure_scratch(t, n);
    double *fen = t->scratch; /* n+1 entries */
    for (uint32_t k = 0; k <= n; k++)
        fen[k] = 0;
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
}

/* Whether every weight a tree of n vertices can meet is an integer and
 * every sum of them fits 31 bits (so also 2^53: exact in double). A degree
 * is at most n - 1, and integer weights (2k)^s have s >= 0, so they grow
 * with k and the total is at most n w(n - 1). */
static int weights_integral(const tree *t, uint32_t n)
{
    return t->pa_wint >= n && t->pa_w[n - 1] * (double)n < 2147483648.0;
}

/* Attachments with 32-bit Fenwick sums: exact for integer weights (see
 * the head comment). The descent runs over P = 2^m >= n + 1 entries so it
 * needs no bounds check; the entries past n hold UINT32_MAX, which no
 * target reaches, so it never steps there. */
static void attach_int(tree *t, uint32_t n, const double *wdeg, uint32_t *deg, gsl_rng *r)
{
    uint32_t p = 1;
    while (p <= n)
        p *= 2;
    ensure_isum(t, p);
    uint32_t *fen = t->pa_isum; /* 1-based, fen[1 .. n], then the sentinels */
    for (uint32_t k = 0; k <= n; k++)
        fen[k] = 0;
    for (uint32_t k = n + 1; k < p; k++)
        fen[k] = UINT32_MAX;
    /* wdeg[0] = 0: the root weighs nothing until vertex 1 attaches */
    uint32_t w1 = (uint32_t)wdeg[1];
    double total = 0;
    for (uint32_t v = 1; v < n; v++) {
        uint32_t u = 0; /* vertex 1 takes the root without a draw */
        if (v > 1) {
            /* the same double as the float path, then its floor */
            uint32_t target = (uint32_t)(gsl_rng_uniform(r) * total);
            uint32_t pos = 0;
            for (uint32_t step = p / 2; step; step /= 2) {
                uint32_t f = fen[pos + step];
                uint32_t take = -(uint32_t)(f <= target); /* all ones or zero: no branch */
                pos += step & take;
                target -= f & take;
            }
            /* pos is the largest index with prefix(pos) <= target, so
             * u = pos (0-based); past the last vertex only when U * total
             * rounded up to total */
            u = pos < v ? pos : v - 1;
        }
        t->parent[v] = u;
        t->level[v] = t->level[u] + 1;
        deg[v] = 1;
        uint32_t wu = (uint32_t)wdeg[deg[u] + 1] - (uint32_t)wdeg[deg[u]];
        deg[u]++;
        for (uint32_t k = u + 1; k <= n; k += k & (~k + 1))
            fen[k] += wu;
        for (uint32_t k = v + 1; k <= n; k += k & (~k + 1))
            fen[k] += w1;
        total += (double)wu + (double)w1;
    }
}

/* s = 1 (the paper's shape): w = 2 deg, so prefix(u) = 2 C(u) with C(u)
 * the degrees summed up to u, and the smallest u with 2 C(u) > target is
 * the one with C(u-1) <= r < C(u), r = floor(target / 2) (C is an
 * integer; target / 2 is exact). With every vertex listed once per unit of
 * degree in vertex order, that is simply ends[r]: a draw is one load, with
 * no chain of dependent loads as in a tree descent (which was most of the
 * generator's time). Attaching v to u inserts one more u anywhere in u's
 * run (at r, say) and appends v; the insertion moves the tail, O(n) bytes,
 * so this serves trees up to PA_ENDS_MAX vertices. */
#define PA_ENDS_MAX 1024

static void attach_s1(tree *t, uint32_t n, gsl_rng *r)
{
    if (t->pa_ends_cap < 2 * n) {
        t->pa_ends = tn_xrealloc(t->pa_ends, 2 * (size_t)n * sizeof *t->pa_ends);
        t->pa_ends_cap = 2 * n;
    }
    uint16_t *ends = t->pa_ends;
    uint32_t len = 0; /* the sum of degrees: total = 2 len */
    for (uint32_t v = 1; v < n; v++) {
        uint32_t u = 0; /* vertex 1 takes the root without a draw */
        if (v > 1) {
            /* target as the float path computes it: U * total, total = 2 len */
            double target = gsl_rng_uniform(r) * (double)(2 * len);
            uint32_t rank = (uint32_t)(target / 2);
            if (rank < len) {
                u = ends[rank];
                memmove(ends + rank + 1, ends + rank, (len - rank) * sizeof *ends);
            } else { /* U * total rounded up to total: the last vertex, as the clamp */
                u = v - 1;
                rank = len; /* its run ends the list */
                ends[rank] = (uint16_t)u;
            }
            len++;
        } else {
            ends[len++] = 0;
        }
        ends[len++] = (uint16_t)v;
        t->parent[v] = u;
        t->level[v] = t->level[u] + 1;
    }
}

static void generate(tree *t, uint32_t n, double s, gsl_rng *r, int allow_int)
{
    TN_ASSERT(n >= 1, "n=%u", n);
    tree_reserve(t, n);
    const double *wdeg = pa_weights(t, n, s); /* weight of degree k, k = 0..n */
    /* degrees are kept in child_off (rebuilt as CSR at the end) */
    uint32_t *deg = t->child_off;
    t->n = n;
    t->parent[0] = TREE_NONE;
    t->level[0] = 1;
    deg[0] = 0;
    if (allow_int && s == 1 && n <= PA_ENDS_MAX)
        attach_s1(t, n, r);
    else if (allow_int && weights_integral(t, n))
        attach_int(t, n, wdeg, deg, r);
    else
        attach_float(t, n, wdeg, deg, r);
    /* CSR children in insertion order (vertex order = attachment order) */
    uint32_t *cnt = t->child_off;
    for (uint32_t v = 0; v <= n; v++)
        cnt[v] = 0;
    for (uint32_t v = 1; v < n; v++)
        cnt[t->parent[v] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        cnt[v + 1] += cnt[v];
    ensure_isum(t, n);
    uint32_t *cursor = t->pa_isum;
    for (uint32_t v = 0; v < n; v++)
        cursor[v] = cnt[v];
    for (uint32_t v = 1; v < n; v++)
        t->child[cursor[t->parent[v]]++] = v;
}

void tree_gen_preferential(tree *t, uint32_t n, double s, gsl_rng *r) { generate(t, n, s, r, 1); }

void tree_gen_preferential_float(tree *t, uint32_t n, double s, gsl_rng *r) { generate(t, n, s, r, 0); }
