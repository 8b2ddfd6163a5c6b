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
void stats_acc_add(stats_acc *a, double x);
double stats_acc_mean(const stats_acc *a);     /* 0 when empty */
double stats_acc_variance(const stats_acc *a); /* sample variance (n-1), 0 when n < 2 */
double stats_acc_stddev(const stats_acc *a);
/* Half-width of the 95% confidence interval of the mean (Student t, n-1 dof); 0 when n < 2. */
double stats_acc_ci95(const stats_acc *a);
/* The same at confidence level 0 < level < 1 (t quantile (1 + level) / 2). */
double stats_acc_ci(const stats_acc *a, double level);
void stats_acc_merge(stats_acc *into, const stats_acc *other);

typedef struct stats_sample {
    double *x;     /* samples */
    size_t n, cap; /* count, allocated */
    int sorted;    /* x is sorted ascending (samples added in order; a quantile reorders x) */
    stats_acc acc; /* moments of the same samples */
} stats_sample;

void stats_sample_init(stats_sample *s);
void stats_sample_free(stats_sample *s);
void stats_sample_clear(stats_sample *s); /* keeps the allocation */
void stats_sample_add(stats_sample *s, double x);
/* q in [0,1]; linear interpolation between order statistics (gsl_stats_quantile_from_sorted_data). 0 when empty. */
double stats_sample_quantile(stats_sample *s, double q);

/* Histogram over logarithmic bins (a gsl_histogram): `per_decade` bins per
 * factor 10 from lo to hi, plus an underflow bin [0, lo) and an overflow bin
 * [hi, inf) so that no sample is lost. For latency distributions. */
typedef struct stats_loghist {
    gsl_histogram *h;     /* the log bins, [lo, hi) */
    uint64_t under, over;    /* samples below lo, at or above hi */
} stats_loghist;

/* 0 < lo < hi, per_decade >= 1; aborts otherwise. */
void stats_loghist_init(stats_loghist *hg, double lo, double hi, unsigned per_decade);
void stats_loghist_free(stats_loghist *hg);
void stats_loghist_add(stats_loghist *hg, double x);
/* Bins including underflow (index 0) and overflow (last): nbins + 2. */
size_t stats_loghist_bins(const stats_loghist *hg);
/* Bin i's range [lo, hi) (underflow: [0, lo); overflow: [hi, inf)) and count. */
uint64_t stats_loghist_bin(const stats_loghist *hg, size_t i, double *lo, double *hi);

#endif
