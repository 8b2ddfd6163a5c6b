#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_statistics_double.h>

#include "log.h"

void stats_acc_init(stats_acc *a)
{
    a->n = 0;
    a->mean = a->m2 = a->sum = 0;
    a->min = a->max = 0;
}

double stats_acc_mean(const stats_acc *a) { return a->n ? a->mean : 0.0; }

double stats_acc_variance(const stats_acc *a)
{
    return a->n < 2 ? 0.0 : a->m2 / (double)(a->n - 1);
}

double stats_acc_stddev(const stats_acc *a) { return sqrt(stats_acc_variance(a)); }

double stats_acc_ci(const stats_acc *a, double level)
{
    if (a->n < 2)
        return 0.0;
    double t = gsl_cdf_tdist_Pinv((1.0 + level) / 2.0, (double)(a->n - 1));
    return t * stats_acc_stddev(a) / sqrt((double)a->n);
}

double stats_acc_ci95(const stats_acc *a) { return stats_acc_ci(a, 0.95); }

void stats_acc_merge(stats_acc *into, const stats_acc *other)
{
    if (other->n == 0)
        return;
    if (into->n == 0) {
        *into = *other;
        return;
    }
    /* Chan et al.'s pairwise update of (n, mean, m2). */
    double na = (double)into->n, nb = (double)other->n, n = na + nb;
    double d = other->mean - into->mean;
    into->mean += d * nb / n;
    into->m2 += other->m2 + d * d * na * nb / n;
    into->n += other->n;
    into->sum += other->sum;
    if (other->min < into->min)
        into->min = other->min;
    if (other->max > into->max)
        into->max = other->max;
}

void stats_sample_init(stats_sample *s)
{
    s->x = NULL;
    s->n = s->cap = 0;
    s->sorted = 1;
    s->rcum = NULL;
    s->rbase = 0;
    s->rshift = 0;
    s->rvalid = 0;
    stats_acc_init(&s->acc);
}

void stats_sample_free(stats_sample *s)
{
    free(s->x);
    free(s->rcum);
    stats_sample_init(s);
}

void stats_sample_clear(stats_sample *s)
{
    s->n = 0;
    s->sorted = 1;
    s->rvalid = 0;
    stats_acc_init(&s->acc);
}

void stats_sample_grow(stats_sample *s)
{
    s->cap = s->cap ? 2 * s->cap : 64;
    s->x = tn_xrealloc(s->x, s->cap * sizeof *s->x);
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void dswap(double *x, size_t i, size_t j)
{
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
}

/* Puts the k-th smallest of x[lo..hi) at x[k], nothing larger before it and
 * nothing smaller after it (lo <= k < hi). Quickselect with a median-of-3
 * pivot and a three-way partition (latencies repeat a lot: equal keys end
 * the search instead of being swapped back and forth); after 2 log2(n) + 8
 * rounds the rest is sorted, so adversarial input costs O(n log n). */
static void select_kth(double *x, size_t lo, size_t hi, size_t k)
{
    unsigned budget = 8;
    for (size_t m = hi - lo; m > 1; m >>= 1)
        budget += 2;
    while (hi - lo > 16) {
        if (budget-- == 0) {
            qsort(x + lo, hi - lo, sizeof *x, dbl_cmp);
            return;
        }
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid] < x[lo])
            dswap(x, mid, lo);
        if (x[hi - 1] < x[mid]) {
            dswap(x, hi - 1, mid);
            if (x[mid] < x[lo])
                dswap(x, mid, lo);
        }
        double p = x[mid];
        /* [lo, lt) < p, [lt, i) == p, (gt, hi) > p; [i, gt] unread */
        size_t lt = lo, i = lo, gt = hi - 1;
        while (i <= gt) {
            double v = x[i];
            if (v < p) {
                x[i++] = x[lt];
                x[lt++] = v;
            } else if (v > p) {
                x[i] = x[gt];
                x[gt--] = v;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k > gt)
            lo = gt + 1;
        else
            return; /* x[k] == p, partitioned */
    }
    /* Insertion sort of the last few. */
    for (size_t i = lo + 1; i < hi; i++) {
        double v = x[i];
        size_t j = i;
        for (; j > lo && v < x[j - 1]; j--)
            x[j] = x[j - 1];
        x[j] = v;
    }
}

/* A double's bits as an unsigned key in the double's order: a positive
 * number gets its sign bit set, a negative one all its bits flipped (the
 * larger its magnitude, the smaller the key). Equal doubles have equal
 * keys, except -0 < +0: both are the same order statistic's value. */
static inline uint64_t dkey(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b ^ ((uint64_t)((int64_t)b >> 63) | (UINT64_C(1) << 63));
}

/* A radix index over the samples of one or more stats_samples taken as
 * one multiset: the samples' order-preserving keys minus base, shifted
 * right by shift, fall into STATS_RADIX_BUCKETS buckets of equal
 * power-of-two widths spanning the smallest key to the largest; rcum[b]
 * samples lie in the buckets before b. Latencies spread over a few
 * binades, so a bucket holds about a thousandth of them. */
typedef struct radix_index {
    const stats_sample *const *part; /* [np], none empty */
    size_t np;
    size_t n;       /* samples of all the parts */
    uint32_t *rcum; /* [STATS_RADIX_BUCKETS + 1] */
    uint64_t base;
    unsigned shift;
} radix_index;

static inline size_t bucket_of(const radix_index *r, double x)
{
    return (size_t)((dkey(x) - r->base) >> r->shift);
}

/* Counts the samples per bucket. The range is first taken from the parts'
 * moments' extremes, which saves a pass over the samples (a quarter of the
 * quantiles' instructions in fig9). They may miss a key (a NaN, or a -0
 * and a +0, the same double to them): then a sample falls outside the
 * buckets, the counting pass sees it, and the range is scanned. Any range
 * holding every key gives the same order statistics. */
static void radix_build(radix_index *r)
{
    TN_ASSERT(r->n < UINT32_MAX, "%zu samples for a quantile", r->n);
    uint64_t lo = UINT64_MAX, hi = 0;
    int scan = 0;
    for (size_t p = 0; p < r->np; p++) {
        const stats_sample *s = r->part[p];
        uint64_t a = dkey(s->acc.min), b = dkey(s->acc.max);
        scan |= s->acc.n != s->n;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    scan |= lo > hi;
    uint32_t *cnt = r->rcum + 1;
    for (;;) {
        if (scan) {
            lo = UINT64_MAX;
            hi = 0;
            for (size_t p = 0; p < r->np; p++)
                for (size_t i = 0; i < r->part[p]->n; i++) {
                    uint64_t k = dkey(r->part[p]->x[i]);
                    lo = k < lo ? k : lo;
                    hi = k > hi ? k : hi;
                }
        }
        unsigned shift = 0;
        while (((hi - lo) >> shift) >= STATS_RADIX_BUCKETS)
            shift++;
        r->base = lo;
        r->shift = shift;
        memset(r->rcum, 0, (STATS_RADIX_BUCKETS + 1) * sizeof *r->rcum);
        size_t out = 0;
        for (size_t p = 0; p < r->np; p++) {
            const double *x = r->part[p]->x;
            for (size_t i = 0, n = r->part[p]->n; i < n; i++) {
                uint64_t k = dkey(x[i]);
                size_t b = (size_t)((k - lo) >> shift);
                if (k >= lo && b < STATS_RADIX_BUCKETS)
                    cnt[b]++;
                else
                    out++;
            }
        }
        if (out == 0)
            break;
        TN_ASSERT(!scan, "%zu samples outside the scanned range", out);
        scan = 1;
    }
    /* cnt[b] = rcum[b + 1] becomes the count of buckets 0..b */
    for (size_t b = 1; b < STATS_RADIX_BUCKETS; b++)
        cnt[b] += cnt[b - 1];
}

/* The bucket holding the k-th smallest: rcum[b] <= k < rcum[b + 1]. */
static size_t radix_bucket(const radix_index *r, size_t k)
{
    size_t lo = 0, hi = STATS_RADIX_BUCKETS; /* the answer is in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->rcum[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static double min_of(const double *x, size_t n)
{
    double m = x[0];
    for (size_t i = 1; i < n; i++)
        if (x[i] < m)
            m = x[i];
    return m;
}

/* Where quantile q of n samples lies: order statistics lhs and lhs + 1
 * (when lhs + 1 < n), weights 1 - delta and delta, as
 * gsl_stats_quantile_from_sorted_data. */
static double quantile_index(size_t n, double q, size_t *lhs)
{
    /* GSL reads past the data for q outside [0,1]. */
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    double index = q * (double)(n - 1);
    *lhs = (size_t)index;
    return index - (double)*lhs;
}

#define QUANTILES_PER_PASS 4

/* out[i], the quantile q[i] of r's samples (r built), for i < k <=
 * QUANTILES_PER_PASS. The same interpolation between order statistics lhs
 * and lhs+1 as gsl_stats_quantile_from_sorted_data. An order statistic is
 * one value whatever finds it, so this equals the sort (a quarter of a
 * fig9 sweep once) and the gsl_stats_select (a tenth, run afresh for p50
 * and p99, with a mispredicted branch per sample) it replaces. The buckets
 * every quantile needs (its own, and the next one holding samples when
 * lhs + 1 lies there) are gathered in one pass over the samples: a pass
 * per quantile was a third of the time of p50 and p99 together. */
static void radix_quantiles(const radix_index *r, size_t k, const double *q, double *out)
{
    size_t need[2 * QUANTILES_PER_PASS], nneed = 0;
    for (size_t i = 0; i < k; i++) {
        size_t lhs;
        (void)quantile_index(r->n, q[i], &lhs);
        size_t b[2] = {radix_bucket(r, lhs), lhs + 1 < r->n ? radix_bucket(r, lhs + 1) : SIZE_MAX};
        for (int j = 0; j < 2; j++) {
            if (b[j] == SIZE_MAX)
                continue;
            size_t t = 0;
            while (t < nneed && need[t] != b[j])
                t++;
            if (t == nneed)
                need[nneed++] = b[j];
        }
    }
    /* bucket need[t]'s samples at g + off[t], in the order read */
    size_t off[2 * QUANTILES_PER_PASS + 1], fill[2 * QUANTILES_PER_PASS];
    off[0] = 0;
    for (size_t t = 0; t < nneed; t++) {
        off[t + 1] = off[t] + (r->rcum[need[t] + 1] - r->rcum[need[t]]);
        fill[t] = off[t];
    }
    double *g = tn_xmalloc((off[nneed] ? off[nneed] : 1) * sizeof *g);
    uint8_t slot[STATS_RADIX_BUCKETS] = {0}; /* 1 + t for bucket need[t], 0 for the others */
    for (size_t t = 0; t < nneed; t++)
        slot[need[t]] = (uint8_t)(t + 1);
    for (size_t p = 0; p < r->np; p++) {
        const double *x = r->part[p]->x;
        for (size_t i = 0, n = r->part[p]->n; i < n; i++) {
            unsigned t = slot[bucket_of(r, x[i])];
            if (t)
                g[fill[t - 1]++] = x[i];
        }
    }
    for (size_t t = 0; t < nneed; t++)
        TN_ASSERT(fill[t] == off[t + 1], "bucket %zu holds %zu samples, counted %zu", need[t], fill[t] - off[t],
                  off[t + 1] - off[t]);
    for (size_t i = 0; i < k; i++) {
        size_t lhs;
        double delta = quantile_index(r->n, q[i], &lhs);
        size_t b = radix_bucket(r, lhs), t = 0;
        while (need[t] != b)
            t++;
        size_t base = r->rcum[b], m = r->rcum[b + 1] - base;
        double *gb = g + off[t];
        select_kth(gb, 0, m, lhs - base);
        double lo = gb[lhs - base], hi;
        if (lhs == r->n - 1) {
            out[i] = lo;
            continue;
        }
        if (lhs + 1 < base + m) {
            /* after the selection the rest of the bucket is no smaller */
            hi = min_of(gb + (lhs - base) + 1, m - (lhs - base) - 1);
        } else {
            /* the smallest of the next bucket that holds any */
            size_t b2 = radix_bucket(r, lhs + 1), t2 = 0;
            while (need[t2] != b2)
                t2++;
            hi = min_of(g + off[t2], off[t2 + 1] - off[t2]);
        }
        out[i] = (1 - delta) * lo + delta * hi;
    }
    free(g);
}

void stats_sample_quantiles(stats_sample *s, size_t k, const double *q, double *out)
{
    for (size_t i = 0; i < k; i++)
        TN_ASSERT(!isnan(q[i]), "quantile of NaN order");
    if (s->n == 0) {
        for (size_t i = 0; i < k; i++)
            out[i] = 0.0;
        return;
    }
    if (s->sorted) {
        for (size_t i = 0; i < k; i++)
            out[i] = gsl_stats_quantile_from_sorted_data(s->x, 1, s->n, q[i] < 0 ? 0 : q[i] > 1 ? 1 : q[i]);
        return;
    }
    /* the index is kept in s until the next add */
    const stats_sample *part[1] = {s};
    radix_index r = {.part = part, .np = 1, .n = s->n};
    if (!s->rcum)
        s->rcum = tn_xmalloc((STATS_RADIX_BUCKETS + 1) * sizeof *s->rcum);
    r.rcum = s->rcum;
    if (!s->rvalid) {
        radix_build(&r);
        s->rbase = r.base;
        s->rshift = r.shift;
        s->rvalid = 1;
    }
    r.base = s->rbase;
    r.shift = s->rshift;
    for (size_t i = 0; i < k; i += QUANTILES_PER_PASS)
        radix_quantiles(&r, k - i < QUANTILES_PER_PASS ? k - i : QUANTILES_PER_PASS, q + i, out + i);
}

double stats_sample_quantile(stats_sample *s, double q)
{
    double v;
    stats_sample_quantiles(s, 1, &q, &v);
    return v;
}

void stats_samples_quantiles(stats_sample *const *parts, size_t np, size_t k, const double *q, double *out)
{
    for (size_t i = 0; i < k; i++)
        TN_ASSERT(!isnan(q[i]), "quantile of NaN order");
    enum { MAXP = 8 };
    TN_ASSERT(np <= MAXP, "quantiles of %zu samples together", np);
    const stats_sample *part[MAXP];
    size_t nonempty = 0, n = 0, last = 0;
    for (size_t p = 0; p < np; p++)
        if (parts[p]->n) {
            part[nonempty++] = parts[p];
            n += parts[p]->n;
            last = p;
        }
    if (nonempty == 0) {
        for (size_t i = 0; i < k; i++)
            out[i] = 0.0;
        return;
    }
    if (nonempty == 1) {
        /* one sample holds them all (and keeps its index) */
        stats_sample_quantiles(parts[last], k, q, out);
        return;
    }
    radix_index r = {.part = part, .np = nonempty, .n = n};
    r.rcum = tn_xmalloc((STATS_RADIX_BUCKETS + 1) * sizeof *r.rcum);
    radix_build(&r);
    for (size_t i = 0; i < k; i += QUANTILES_PER_PASS)
        radix_quantiles(&r, k - i < QUANTILES_PER_PASS ? k - i : QUANTILES_PER_PASS, q + i, out + i);
    free(r.rcum);
}

void stats_loghist_init(stats_loghist *hg, double lo, double hi, unsigned per_decade)
{
    TN_ASSERT(lo > 0 && hi > lo && per_decade >= 1, "log histogram [%g, %g) with %u bins per decade", lo, hi,
              per_decade);
    size_t n = (size_t)ceil(log10(hi / lo) * per_decade - 1e-9);
    double *range = tn_xmalloc((n + 1) * sizeof *range);
    for (size_t i = 0; i <= n; i++)
        range[i] = lo * pow(10.0, (double)i / per_decade);
    range[n] = hi;
    hg->h = gsl_histogram_alloc(n);
    TN_ASSERT(hg->h, "out of memory for a histogram of %zu bins", n);
    gsl_histogram_set_ranges(hg->h, range, n + 1);
    free(range);
    hg->under = hg->over = 0;
    /* Cells: the widest power-of-two slice of the bit patterns such that
     * every cell is thinner than half the thinnest bin (a cell may straddle
     * a power of two, where the ulp doubles), so it holds at most one edge;
     * 2^20 cells at most (a finer histogram takes a few more steps to
     * settle, still exactly). The default 1 ns .. 10 s at 20 per decade
     * takes 1088 cells. */
    const double *r = hg->h->range;
    double thinnest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        TN_ASSERT(r[i + 1] > r[i], "log histogram edges %zu and %zu not increasing", i, i + 1);
        double rel = (r[i + 1] - r[i]) / r[i + 1]; /* relative width, seen from its top */
        if (rel < thinnest)
            thinnest = rel;
    }
    memcpy(&hg->lo_bits, &r[0], sizeof hg->lo_bits);
    uint64_t hi_bits;
    memcpy(&hi_bits, &r[n], sizeof hi_bits);
    /* a cell of 2^shift ulps spans a relative width of at most 2^(shift-52) */
    unsigned shift = 52;
    while (shift > 0 && ldexp(1.0, (int)shift - 52) >= thinnest / 2)
        shift--;
    while (((hi_bits - hg->lo_bits) >> shift) >= (1u << 20))
        shift++;
    hg->shift = shift;
    hg->ncells = (size_t)((hi_bits - hg->lo_bits) >> shift) + 1;
    hg->cell_bin = tn_xmalloc(hg->ncells * sizeof *hg->cell_bin);
    size_t b = 0;
    for (size_t c = 0; c < hg->ncells; c++) {
        uint64_t first_bits = hg->lo_bits + ((uint64_t)c << shift);
        double first;
        memcpy(&first, &first_bits, sizeof first);
        while (b + 1 < n && first >= r[b + 1])
            b++;
        hg->cell_bin[c] = (uint32_t)b;
    }
}

void stats_loghist_free(stats_loghist *hg)
{
    if (hg->h)
        gsl_histogram_free(hg->h);
    hg->h = NULL;
    free(hg->cell_bin);
    hg->cell_bin = NULL;
}

void stats_loghist_add(stats_loghist *hg, double x)
{
    const double *r = hg->h->range;
    size_t n = hg->h->n;
    if (x < r[0]) {
        hg->under++;
        return;
    }
    if (!(x < r[n])) { /* at or above hi, or NaN */
        hg->over++;
        return;
    }
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    size_t b = hg->cell_bin[(bits - hg->lo_bits) >> hg->shift];
    /* x is at or after its cell's first value, so never below bin b; a cell
     * holds at most one edge, so this runs once at most (more only for a
     * histogram too fine for 2^20 cells) */
    while (x >= r[b + 1])
        b++;
    hg->h->bin[b] += 1;
}
size_t stats_loghist_bins(const stats_loghist *hg) { return hg->h->n + 2; }

uint64_t stats_loghist_bin(const stats_loghist *hg, size_t i, double *lo, double *hi)
{
    size_t n = hg->h->n;
    TN_ASSERT(i < n + 2, "bin %zu of %zu", i, n + 2);
    if (i == 0) {
        *lo = 0;
        *hi = hg->h->range[0];
        return hg->under;
    }
    if (i == n + 1) {
        *lo = hg->h->range[n];
        *hi = INFINITY;
        return hg->over;
    }
    gsl_histogram_get_range(hg->h, i - 1, lo, hi);
    return (uint64_t)gsl_histogram_get(hg->h, i - 1);
}
