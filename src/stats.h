/* Statistics accumulators: running moments (Welford) and exact quantiles
 * over stored samples (by selection, or directly when the samples arrived
 * in order; GSL's quantile interpolation). */
#ifndef TASKNET_STATS_H
#define TASKNET_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_histogram.h>

typedef struct stats_acc {
    uint64_t n;      /* samples added */
    double mean;     /* running mean */
    double m2;       /* sum of squared deviations from the mean */
    double sum;      /* plain sum */
    double min, max; /* extremes (0 when n = 0) */
} stats_acc;

void stats_acc_init(stats_acc *a);
double stats_acc_mean(const stats_acc *a);     /* 0 when empty */
double stats_acc_variance(const stats_acc *a); /* sample variance (n-1), 0 when n < 2 */
double stats_acc_stddev(const stats_acc *a);
/* Half-width of the 95% confidence interval of the mean (Student t, n-1 dof); 0 when n < 2. */
double stats_acc_ci95(const stats_acc *a);
/* The same at confidence level 0 < level < 1 (t quantile (1 + level) / 2). */
double stats_acc_ci(const stats_acc *a, double level);
void stats_acc_merge(stats_acc *into, const stats_acc *other);

/* Inline: every delivered message adds twice (its class and "all"). */
static inline void stats_acc_add(stats_acc *a, double x)
{
    /* Welford: the running mean and m2 avoid the cancellation of
     * sum(x^2) - n mean^2 on large, tightly clustered samples. */
    a->n++;
    double d = x - a->mean;
    a->mean += d / (double)a->n;
    a->m2 += d * (x - a->mean);
    a->sum += x;
    if (a->n == 1 || x < a->min)
        a->min = x;
    if (a->n == 1 || x > a->max)
        a->max = x;
}

/* Count, mean and extremes of a series, without the variance: the mean is
 * stats_acc's bit for bit (the same Welford steps), for counters that
 * report only these (each delivered message adds to four). */
typedef struct stats_mean {
    uint64_t n;      /* samples added */
    double mean;     /* running mean */
    double min, max; /* extremes (0 when n = 0) */
} stats_mean;

static inline void stats_mean_init(stats_mean *a) { *a = (stats_mean){0, 0.0, 0.0, 0.0}; }
static inline double stats_mean_value(const stats_mean *a) { return a->n ? a->mean : 0.0; }

static inline void stats_mean_add(stats_mean *a, double x)
{
    a->n++;
    a->mean += (x - a->mean) / (double)a->n;
    if (a->n == 1 || x < a->min)
        a->min = x;
    if (a->n == 1 || x > a->max)
        a->max = x;
}

typedef struct stats_sample {
    double *x;     /* samples, in the order added */
    size_t n, cap; /* count, allocated */
    int sorted;    /* x is sorted ascending (samples added in order) */
    stats_acc acc; /* moments of the same samples */
    /* Radix index for quantiles, built by the first one after an add: the
     * samples' order-preserving 64-bit keys (see stats.c) minus rbase,
     * shifted right by rshift, fall into STATS_RADIX_BUCKETS buckets;
     * rcum[b] samples lie in buckets before b. */
    uint32_t *rcum;  /* [STATS_RADIX_BUCKETS + 1], NULL until needed */
    uint64_t rbase;  /* smallest key */
    unsigned rshift; /* bucket width, log2 */
    int rvalid;      /* rcum describes x (cleared by add and clear) */
} stats_sample;

#define STATS_RADIX_BUCKETS 4096

void stats_sample_init(stats_sample *s);
void stats_sample_free(stats_sample *s);
void stats_sample_clear(stats_sample *s); /* keeps the allocation */
void stats_sample_grow(stats_sample *s);  /* room for one more (stats_sample_add's slow path) */
/* q in [0,1]; linear interpolation between order statistics
 * (gsl_stats_quantile_from_sorted_data), the same value bit for bit. 0 when
 * empty. x is left as it is. When x is not sorted, the order statistics
 * come from the radix index (one counting pass, shared by every quantile
 * until the next add) and a selection among the few samples of one
 * bucket, so p50 then p99 cost about three light passes over x. */
double stats_sample_quantile(stats_sample *s, double q);
/* out[i] = stats_sample_quantile(s, q[i]) for i < k, the same values, with
 * the samples read once for up to four of them. */
void stats_sample_quantiles(stats_sample *s, size_t k, const double *q, double *out);
/* The same quantiles of the samples of parts[0 .. np) together (np <= 8),
 * as one stats_sample holding them all in any order would give, without
 * copying them (the index is built afresh unless one part holds them all). */
void stats_samples_quantiles(stats_sample *const *parts, size_t np, size_t k, const double *q, double *out);

static inline void stats_sample_add(stats_sample *s, double x)
{
    if (s->n == s->cap)
        stats_sample_grow(s);
    /* Appending in order keeps the sample sorted: time-ordered latencies
     * often are, and then no selection is needed. */
    if (s->n > 0 && x < s->x[s->n - 1])
        s->sorted = 0;
    s->x[s->n++] = x;
    s->rvalid = 0;
    stats_acc_add(&s->acc, x);
}

/* Histogram over logarithmic bins (a gsl_histogram): `per_decade` bins per
 * factor 10 from lo to hi, plus an underflow bin [0, lo) and an overflow bin
 * [hi, inf) so that no sample is lost. For latency distributions. */
typedef struct stats_loghist {
    gsl_histogram *h;      /* the log bins, [lo, hi) */
    uint64_t under, over;  /* samples below lo, at or above hi (and NaN) */
    /* O(1) bin lookup: positive doubles order as their bit patterns, so
     * (bits(x) - lo_bits) >> shift names a cell, a slice of [lo, hi) thin
     * enough to hold at most one bin edge; cell_bin[] is the bin of the
     * cell's first value, and one comparison with the next edge settles x. */
    uint32_t *cell_bin;    /* [ncells] */
    size_t ncells;
    uint64_t lo_bits;      /* bit pattern of lo */
    unsigned shift;        /* log2 of a cell's width in units in the last place */
} stats_loghist;

/* 0 < lo < hi, per_decade >= 1; aborts otherwise. */
void stats_loghist_init(stats_loghist *hg, double lo, double hi, unsigned per_decade);
void stats_loghist_free(stats_loghist *hg);
/* Counts x in bin i with range[i] <= x < range[i+1] (gsl_histogram_increment's
 * bin, found without a search), below lo in the underflow bin, at or above
 * hi or NaN in the overflow bin. */
void stats_loghist_add(stats_loghist *hg, double x);
/* Bins including underflow (index 0) and overflow (last): nbins + 2. */
size_t stats_loghist_bins(const stats_loghist *hg);
/* Bin i's range [lo, hi) (underflow: [0, lo); overflow: [hi, inf)) and count. */
uint64_t stats_loghist_bin(const stats_loghist *hg, size_t i, double *lo, double *hi);

#endif
