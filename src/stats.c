#include "stats.h"

#include <math.h>
#include <stdlib.h>

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

void stats_acc_add(stats_acc *a, double x)
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
    stats_acc_init(&s->acc);
}

void stats_sample_free(stats_sample *s)
{
    free(s->x);
    stats_sample_init(s);
}

void stats_sample_clear(stats_sample *s)
{
    s->n = 0;
    s->sorted = 1;
    stats_acc_init(&s->acc);
}

void stats_sample_add(stats_sample *s, double x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->x = tn_xrealloc(s->x, s->cap * sizeof *s->x);
    }
    /* Appending in order keeps the sample sorted: time-ordered latencies
     * often are, and then no sort is needed. */
    if (s->n > 0 && x < s->x[s->n - 1])
        s->sorted = 0;
    s->x[s->n++] = x;
    stats_acc_add(&s->acc, x);
}

double stats_sample_quantile(stats_sample *s, double q)
{
    TN_ASSERT(!isnan(q), "quantile of NaN order");
    if (s->n == 0)
        return 0.0;
    /* GSL reads past the data for q outside [0,1]. */
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    if (s->sorted)
        return gsl_stats_quantile_from_sorted_data(s->x, 1, s->n, q);
    /* The same interpolation between order statistics i and i+1 as
     * gsl_stats_quantile_from_sorted_data, found by selection (quickselect,
     * O(n)) instead of a sort: sorting the latency samples was a quarter of
     * a fig9 sweep. After the selection every element past i is >= x_(i),
     * so x_(i+1) is their minimum. */
    double index = q * (double)(s->n - 1);
    size_t lhs = (size_t)index;
    double delta = index - (double)lhs;
    double lo = gsl_stats_select(s->x, 1, s->n, lhs);
    if (lhs == s->n - 1)
        return lo;
    double hi = s->x[lhs + 1];
    for (size_t k = lhs + 2; k < s->n; k++)
        if (s->x[k] < hi)
            hi = s->x[k];
    return (1 - delta) * lo + delta * hi;
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
}

void stats_loghist_free(stats_loghist *hg)
{
    if (hg->h)
        gsl_histogram_free(hg->h);
    hg->h = NULL;
}

void stats_loghist_add(stats_loghist *hg, double x)
{
    /* gsl_histogram_increment refuses values outside [lo, hi): they go to
     * the two open bins instead of being dropped */
    if (x < hg->h->range[0])
        hg->under++;
    else if (x >= hg->h->range[hg->h->n] || gsl_histogram_increment(hg->h, x) != GSL_SUCCESS)
        hg->over++;
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
