/* Statistics: Welford moments, Student-t confidence, merge, quantiles
 * (equal to the old selection bit for bit), log histogram bins (equal to
 * GSL's search, edges included). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "stats.h"
#include "harness.h"


START_TEST(test_empty)
{
    stats_acc a;
    stats_acc_init(&a);
    ck_assert(a.n == 0);
    ck_assert(stats_acc_mean(&a) == 0);
    ck_assert(stats_acc_variance(&a) == 0);
    ck_assert(stats_acc_ci95(&a) == 0);
    ck_assert(a.min == 0 && a.max == 0);
    stats_acc_add(&a, -3.5);
    /* one sample: mean is it, no spread defined -> 0 */
    ck_assert(stats_acc_mean(&a) == -3.5);
    ck_assert(stats_acc_variance(&a) == 0);
    ck_assert(stats_acc_ci95(&a) == 0);
    ck_assert(a.min == -3.5 && a.max == -3.5);
}
END_TEST

START_TEST(test_one_to_four)
{
    stats_acc a;
    stats_acc_init(&a);
    for (int i = 1; i <= 4; i++)
        stats_acc_add(&a, i);
    /* mean (1+2+3+4)/4 = 2.5; squared deviations 2.25+0.25+0.25+2.25 = 5,
     * sample variance 5/3; t(0.975, 3 dof) = 3.182446305284263 (tables),
     * ci95 = t * sqrt(5/3) / sqrt(4) */
    ck_assert(a.n == 4);
    CLOSE(stats_acc_mean(&a), 2.5, 1e-15);
    CLOSE(stats_acc_variance(&a), 5.0 / 3.0, 1e-15);
    CLOSE(stats_acc_stddev(&a), sqrt(5.0 / 3.0), 1e-15);
    CLOSE(stats_acc_ci95(&a), 3.182446305284263 * sqrt(5.0 / 3.0) / 2.0, 1e-9);
    /* run.confidence 0.99: t(0.995, 3 dof) = 5.840909309733 (tables) */
    CLOSE(stats_acc_ci(&a, 0.99), 5.840909309733 * sqrt(5.0 / 3.0) / 2.0, 1e-9);
    CLOSE(stats_acc_ci(&a, 0.95), stats_acc_ci95(&a), 0);
    ck_assert(a.sum == 10.0);
    ck_assert(a.min == 1.0 && a.max == 4.0);
}
END_TEST

START_TEST(test_ci95_large_n)
{
    /* 0,1 alternating, n = 1000: mean 0.5, variance 0.25*1000/999;
     * t(0.975, 999) = 1.962341461 (tables) */
    stats_acc a;
    stats_acc_init(&a);
    for (int i = 0; i < 1000; i++)
        stats_acc_add(&a, i % 2);
    CLOSE(stats_acc_mean(&a), 0.5, 1e-15);
    CLOSE(stats_acc_variance(&a), 0.25 * 1000.0 / 999.0, 1e-14);
    CLOSE(stats_acc_ci95(&a), 1.962341461 * sqrt(0.25 * 1000.0 / 999.0) / sqrt(1000.0), 1e-9);
}
END_TEST

START_TEST(test_welford_stable)
{
    /* 1e9 + {4, 7, 13, 16}: variance is that of {4,7,13,16} = 30 (deviations
     * -6,-3,3,6 -> 90/3); the naive sum-of-squares formula loses it all. */
    stats_acc a;
    stats_acc_init(&a);
    const double v[] = {4, 7, 13, 16};
    for (int i = 0; i < 4; i++)
        stats_acc_add(&a, 1e9 + v[i]);
    CLOSE(stats_acc_mean(&a), 1e9 + 10, 1e-6);
    CLOSE(stats_acc_variance(&a), 30.0, 1e-6);
}
END_TEST

/* stats_mean takes stats_acc's Welford steps: the same mean bit for bit,
 * the same extremes, 0 when empty. */
START_TEST(test_mean_equals_acc)
{
    stats_acc a;
    stats_mean m;
    stats_acc_init(&a);
    stats_mean_init(&m);
    ck_assert(stats_mean_value(&m) == 0 && m.n == 0);
    for (int i = 0; i < 1000; i++) {
        double x = 1e-6 * (1.0 + sin(i * 0.7)) + (i % 17) * 1e-9;
        stats_acc_add(&a, x);
        stats_mean_add(&m, x);
        ck_assert(m.n == a.n && stats_mean_value(&m) == stats_acc_mean(&a) && m.min == a.min && m.max == a.max);
    }
}
END_TEST

START_TEST(test_merge)
{
    stats_acc all, a, b, empty;
    stats_acc_init(&all);
    stats_acc_init(&a);
    stats_acc_init(&b);
    stats_acc_init(&empty);
    for (int i = 0; i < 37; i++) {
        double x = sin(i) * 10 + i;
        stats_acc_add(&all, x);
        stats_acc_add(i < 12 ? &a : &b, x);
    }
    stats_acc_merge(&a, &b);
    ck_assert(a.n == all.n);
    CLOSE(a.mean, all.mean, 1e-12);
    CLOSE(a.m2, all.m2, 1e-9);
    CLOSE(a.sum, all.sum, 1e-12);
    ck_assert(a.min == all.min && a.max == all.max);
    /* merging an empty accumulator is a no-op, into an empty one a copy */
    stats_acc_merge(&a, &empty);
    ck_assert(a.n == all.n);
    stats_acc_merge(&empty, &all);
    ck_assert(empty.n == 37 && empty.mean == all.mean && empty.min == all.min);
}
END_TEST

START_TEST(test_quantiles)
{
    stats_sample s;
    stats_sample_init(&s);
    ck_assert(stats_sample_quantile(&s, 0.5) == 0); /* empty */
    /* 100..1 in decreasing order, so the selection has work to do */
    for (int i = 100; i >= 1; i--)
        stats_sample_add(&s, i);
    ck_assert(!s.sorted);
    /* sorted x[k] = k+1; quantile q sits at index q*(n-1) = 99q, linear
     * between neighbours: q=0 -> 1, q=1 -> 100, median index 49.5 -> 50.5,
     * q=0.9 index 89.1 -> 90 + 0.1 = 90.1, q=0.25 index 24.75 -> 25.75 */
    CLOSE(stats_sample_quantile(&s, 0.0), 1.0, 1e-12);
    CLOSE(stats_sample_quantile(&s, 1.0), 100.0, 1e-12);
    CLOSE(stats_sample_quantile(&s, 0.5), 50.5, 1e-12);
    CLOSE(stats_sample_quantile(&s, 0.9), 90.1, 1e-12);
    CLOSE(stats_sample_quantile(&s, 0.25), 25.75, 1e-12);
    /* out-of-range orders clamp to the extremes */
    CLOSE(stats_sample_quantile(&s, 1.5), 100.0, 1e-12);
    CLOSE(stats_sample_quantile(&s, -1), 1.0, 1e-12);
    /* moments tracked alongside: mean 50.5, variance n(n+1)/12 = 841.666.. */
    ck_assert(s.acc.n == 100);
    CLOSE(stats_acc_mean(&s.acc), 50.5, 1e-12);
    CLOSE(stats_acc_variance(&s.acc), 100.0 * 101.0 / 12.0, 1e-9);
    /* adding after a quantile re-sorts: 0 becomes the new minimum */
    stats_sample_add(&s, 0);
    CLOSE(stats_sample_quantile(&s, 0.0), 0.0, 1e-12);
    /* clear keeps the buffer, resets the contents */
    double *buf = s.x;
    stats_sample_clear(&s);
    ck_assert(s.n == 0 && s.acc.n == 0 && s.x == buf);
    stats_sample_add(&s, 7);
    CLOSE(stats_sample_quantile(&s, 0.3), 7.0, 0);
    stats_sample_free(&s);
    ck_assert(s.x == NULL && s.n == 0);
}
END_TEST

/* Log bins from 1 ns to 10 s at 20 per decade: 10 decades = 200 bins plus
 * the two open ends. Bin k (1-based) is [1e-9 * 10^((k-1)/20), 1e-9 * 10^(k/20)). */
START_TEST(test_loghist)
{
    stats_loghist hg;
    stats_loghist_init(&hg, 1e-9, 10.0, 20);
    ck_assert_uint_eq(stats_loghist_bins(&hg), 202);
    double lo, hi;
    stats_loghist_bin(&hg, 0, &lo, &hi);
    ck_assert(lo == 0 && hi == 1e-9);
    stats_loghist_bin(&hg, 201, &lo, &hi);
    ck_assert(lo == 10.0 && isinf(hi));
    stats_loghist_bin(&hg, 21, &lo, &hi); /* [1e-8, 1e-8 * 10^(1/20)) */
    ck_assert_double_eq_tol(lo, 1e-8, 1e-20);
    ck_assert_double_eq_tol(hi, 1e-8 * pow(10, 0.05), 1e-20);
    /* 0.5 ns and 0 below; 10 s and 1e9 s above; 1e-8 s in bin 21;
     * 1.2e-8 s: log10(1.2e-8 / 1e-9) * 20 = 21.58 -> bin 22 */
    static const double x[] = {0.0, 0.5e-9, 1e-8, 1.2e-8, 10.0, 1e9};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        stats_loghist_add(&hg, x[i]);
    ck_assert_uint_eq(stats_loghist_bin(&hg, 0, &lo, &hi), 2);
    ck_assert_uint_eq(stats_loghist_bin(&hg, 21, &lo, &hi), 1);
    ck_assert_uint_eq(stats_loghist_bin(&hg, 22, &lo, &hi), 1);
    ck_assert_uint_eq(stats_loghist_bin(&hg, 201, &lo, &hi), 2);
    /* nothing lost: the counts add up to the samples */
    uint64_t total = 0;
    for (size_t b = 0; b < stats_loghist_bins(&hg); b++)
        total += stats_loghist_bin(&hg, b, &lo, &hi);
    ck_assert_uint_eq(total, 6);
    stats_loghist_free(&hg);
}
END_TEST

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The method stats_sample_quantile used before keeping order statistics
 * in place: gsl_stats_select afresh, then the minimum of what follows. */
static double old_quantile(double *x, size_t n, double q)
{
    double index = q * (double)(n - 1);
    size_t lhs = (size_t)index;
    double delta = index - (double)lhs;
    double lo = gsl_stats_select(x, 1, n, lhs);
    if (lhs == n - 1)
        return lo;
    double hi = x[lhs + 1];
    for (size_t k = lhs + 2; k < n; k++)
        if (x[k] < hi)
            hi = x[k];
    return (1 - delta) * lo + delta * hi;
}

/* On random samples (continuous, and with heavy repetition as latencies
 * have), every sequence of orders gives bit for bit the value of the old
 * selection and of sorting then gsl_stats_quantile_from_sorted_data, also
 * after more samples are added between calls. */
START_TEST(test_quantiles_equal_old_method)
{
    static const size_t sizes[] = {1, 2, 3, 5, 16, 17, 18, 100, 1001, 100003};
    static const double orders[][8] = {
        {0.5, 0.99, -1},
        {0.99, 0.5, -1},
        {0.5, 0.5, 0.99, 0.25, 1.0, 0.0, 0.999999, -1},
        {0.0, 1.0, 0.75, 0.5, 0.01, 0.99, 0.9, 0.1},
    };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 21);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int dup = 0; dup < 3; dup++)
            for (size_t oi = 0; oi < sizeof orders / sizeof *orders; oi++) {
                size_t n = sizes[si];
                stats_sample s, part[2]; /* part[i % 3 == 0]: the same samples split in two */
                stats_sample_init(&s);
                stats_sample_init(&part[0]);
                stats_sample_init(&part[1]);
                double *sorted = malloc((n + 20) * sizeof *sorted);
                double *old = malloc((n + 20) * sizeof *old);
                for (size_t i = 0; i < n; i++) {
                    /* dup 0: continuous; 1: 40 distinct values; 2: all equal but a few */
                    double v = dup == 0   ? gsl_rng_uniform(r) * 1e-3
                               : dup == 1 ? (double)gsl_rng_uniform_int(r, 40) * 1e-7
                                          : (gsl_rng_uniform(r) < 0.01 ? gsl_rng_uniform(r) : 5e-6);
                    stats_sample_add(&s, v);
                    stats_sample_add(&part[i % 3 == 0], v);
                    sorted[i] = old[i] = v;
                }
                size_t m = n;
                for (int round = 0; round < 2; round++) {
                    qsort(sorted, m, sizeof *sorted, dbl_cmp);
                    /* all the row's orders at once (up to 4 in one pass over
                     * the samples, more one at a time), before the index
                     * exists: the same values as one at a time after it */
                    size_t nq = 0;
                    while (nq < 8 && orders[oi][nq] >= 0)
                        nq++;
                    double batch[8];
                    stats_sample_quantiles(&s, nq, orders[oi], batch);
                    /* the same from the two parts together */
                    stats_sample *parts[] = {&part[0], &part[1]};
                    double joint[8];
                    stats_samples_quantiles(parts, 2, nq, orders[oi], joint);
                    for (size_t k = 0; k < nq; k++)
                        ck_assert_msg(joint[k] == batch[k], "n=%zu dup=%d q=%g: %.17g in two parts, %.17g in one",
                                      m, dup, orders[oi][k], joint[k], batch[k]);
                    if (nq >= 2) {
                        double two[2];
                        stats_sample_quantiles(&s, 2, orders[oi] + nq - 2, two);
                        ck_assert(two[0] == batch[nq - 2] && two[1] == batch[nq - 1]);
                    }
                    for (int k = 0; k < 8 && orders[oi][k] >= 0; k++) {
                        double q = orders[oi][k];
                        double got = stats_sample_quantile(&s, q);
                        ck_assert_msg(got == batch[k], "n=%zu dup=%d q=%g: %.17g one at a time, %.17g together", m,
                                      dup, q, got, batch[k]);
                        double want = s.sorted ? gsl_stats_quantile_from_sorted_data(old, 1, m, q)
                                               : old_quantile(old, m, q);
                        ck_assert_msg(got == want, "n=%zu dup=%d q=%g: %.17g vs old %.17g", m, dup, q, got, want);
                        ck_assert(got == gsl_stats_quantile_from_sorted_data(sorted, 1, m, q));
                    }
                    /* ten more samples, some below everything: the order
                     * statistics kept in place no longer hold */
                    for (int j = 0; j < 10; j++) {
                        double v = j % 2 ? -1.0 - j : gsl_rng_uniform(r);
                        stats_sample_add(&s, v);
                        stats_sample_add(&part[j % 3 == 0], v);
                        sorted[m] = old[m] = v;
                        m++;
                    }
                }
                free(sorted);
                free(old);
                stats_sample_free(&s);
                stats_sample_free(&part[0]);
                stats_sample_free(&part[1]);
            }
    gsl_rng_free(r);
}
END_TEST

/* Samples that stress the radix index: all equal (one bucket), both
 * signs and both zeros, infinities, magnitudes from 1e-300 to 1e300, and
 * two far clusters (the order statistic after the median in another
 * bucket than the median), zeros of both signs as the smallest. Each quantile equals the sorted data's, x is
 * left in the order added, and an add in between is seen. */
START_TEST(test_quantiles_radix_cases)
{
    static const double orders[] = {0.0, 0.25, 0.5, 0.75, 0.99, 1.0, 0.3333};
    for (int c = 0; c < 6; c++) {
        enum { N = 999 };
        double x[N + 1], sorted[N + 1];
        for (int i = 0; i < N; i++) {
            switch (c) {
            case 0: x[i] = 2.5e-6; break;
            case 1: x[i] = (i % 7 - 3) * (i % 2 ? 0.0 : 1.5) + (i % 5 == 0 ? -0.0 : 0.0); break;
            case 2: x[i] = i % 11 == 0 ? (i % 2 ? INFINITY : -INFINITY) : (double)(i % 13) - 6; break;
            case 3: x[i] = pow(10.0, (double)((i * 37) % 601) - 300); break;
            /* +0 first, -0 later: the moments' minimum is +0, above -0's
             * key, so the range of the index must be scanned */
            case 5: x[i] = i % 3 == 0 ? -0.0 : i % 3 == 1 ? 0.0 : 1e-9 * i; break;
            default: x[i] = i % 2 ? 1e-7 + i * 1e-12 : 5e3 + i; /* 499 low, 500 high; then -7 makes 500 low */
            }
        }
        x[0] = x[N - 1] + 1; /* never in order */
        stats_sample s;
        stats_sample_init(&s);
        for (int i = 0; i < N; i++)
            stats_sample_add(&s, x[i]);
        ck_assert(!s.sorted);
        for (int round = 0; round < 2; round++) {
            int n = N + round;
            memcpy(sorted, x, n * sizeof *x);
            qsort(sorted, n, sizeof *sorted, dbl_cmp);
            for (size_t k = 0; k < sizeof orders / sizeof *orders; k++) {
                double want = gsl_stats_quantile_from_sorted_data(sorted, 1, n, orders[k]);
                double got = stats_sample_quantile(&s, orders[k]);
                ck_assert_msg(got == want || (isnan(got) && isnan(want)), "case %d n=%d q=%g: %.17g vs %.17g",
                              c, n, orders[k], got, want);
            }
            for (int i = 0; i < n; i++) /* untouched: same bits in the same order */
                ck_assert(memcmp(&s.x[i], &x[i], sizeof x[i]) == 0);
            x[N] = -7.0; /* below everything but -inf */
            stats_sample_add(&s, x[N]);
        }
        stats_sample_free(&s);
    }
}
END_TEST

/* The bin gsl_histogram_find gives (range[i] <= x < range[i+1]), with the
 * two open ends: 0 below lo, nbins + 1 at or above hi. */
static size_t gsl_bin(const gsl_histogram *h, double x)
{
    if (x < h->range[0])
        return 0;
    if (!(x < h->range[h->n]))
        return h->n + 1;
    size_t i;
    ck_assert_int_eq(gsl_histogram_find(h, x, &i), GSL_SUCCESS);
    return i + 1;
}

/* Adds one x and returns the bin whose count moved. */
static size_t bin_of(stats_loghist *hg, double x)
{
    size_t nb = stats_loghist_bins(hg), found = nb;
    uint64_t *before = malloc(nb * sizeof *before);
    double lo, hi;
    for (size_t b = 0; b < nb; b++)
        before[b] = stats_loghist_bin(hg, b, &lo, &hi);
    stats_loghist_add(hg, x);
    for (size_t b = 0; b < nb; b++)
        if (stats_loghist_bin(hg, b, &lo, &hi) != before[b]) {
            ck_assert_uint_eq(found, nb); /* exactly one bin moves */
            ck_assert_uint_eq(stats_loghist_bin(hg, b, &lo, &hi), before[b] + 1);
            found = b;
        }
    free(before);
    ck_assert_uint_lt(found, nb);
    return found;
}

/* Every edge, exactly and one ulp either side, lands where GSL's binary
 * search puts it: an edge opens its bin; one ulp below is the bin before.
 * Checked on the latency default and on odd shapes. */
START_TEST(test_loghist_edges)
{
    static const struct {
        double lo, hi;
        unsigned per_decade;
    } shapes[] = {
        {1e-9, 10.0, 20}, /* the latency histogram (src/run.c) */
        {1e-9, 10.0, 1},
        {3e-7, 2.5e-3, 7}, /* edges nowhere near powers of two or ten */
        {1.0, 1.001, 1000000},
        {1e-150, 1e150, 3}, /* 997 binades */
    };
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        stats_loghist hg;
        stats_loghist_init(&hg, shapes[si].lo, shapes[si].hi, shapes[si].per_decade);
        const gsl_histogram *h = hg.h;
        size_t n = h->n;
        for (size_t i = 0; i <= n; i++) {
            double e = h->range[i];
            double below = nextafter(e, 0), above = nextafter(e, INFINITY);
            ck_assert_uint_eq(bin_of(&hg, e), i + 1); /* bin i+1 (1-based past underflow), or overflow at hi */
            ck_assert_uint_eq(bin_of(&hg, below), i);
            ck_assert_uint_eq(bin_of(&hg, above), gsl_bin(h, above));
            ck_assert_uint_eq(gsl_bin(h, e), i + 1);
            ck_assert_uint_eq(gsl_bin(h, below), i);
        }
        ck_assert_uint_eq(bin_of(&hg, 0.0), 0);
        ck_assert_uint_eq(bin_of(&hg, -1.0), 0);
        ck_assert_uint_eq(bin_of(&hg, -INFINITY), 0);
        ck_assert_uint_eq(bin_of(&hg, INFINITY), n + 1);
        ck_assert_uint_eq(bin_of(&hg, NAN), n + 1);
        ck_assert_uint_eq(bin_of(&hg, DBL_MAX), n + 1);
        ck_assert_uint_eq(bin_of(&hg, DBL_TRUE_MIN), 0);
        stats_loghist_free(&hg);
    }
}
END_TEST

/* Random values across the range, and a histogram too fine for 2^20 cells
 * (several edges per cell): counts equal gsl_histogram_increment's. */
START_TEST(test_loghist_random_equals_gsl)
{
    static const struct {
        double lo, hi;
        unsigned per_decade;
    } shapes[] = {{1e-9, 10.0, 20}, {1.0, 100.0, 200000}};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    for (size_t si = 0; si < 2; si++) {
        stats_loghist hg;
        stats_loghist_init(&hg, shapes[si].lo, shapes[si].hi, shapes[si].per_decade);
        gsl_histogram *ref = gsl_histogram_alloc(hg.h->n);
        gsl_histogram_set_ranges(ref, hg.h->range, hg.h->n + 1);
        uint64_t under = 0, over = 0;
        double l0 = log10(shapes[si].lo / 3), l1 = log10(shapes[si].hi * 3);
        for (int i = 0; i < 300000; i++) {
            double x = pow(10.0, l0 + (l1 - l0) * gsl_rng_uniform(r));
            stats_loghist_add(&hg, x);
            if (x < ref->range[0])
                under++;
            else if (x >= ref->range[ref->n])
                over++;
            else
                ck_assert_int_eq(gsl_histogram_increment(ref, x), GSL_SUCCESS);
        }
        double lo, hi;
        ck_assert_uint_eq(stats_loghist_bin(&hg, 0, &lo, &hi), under);
        ck_assert_uint_eq(stats_loghist_bin(&hg, ref->n + 1, &lo, &hi), over);
        ck_assert_uint_gt(under, 0);
        ck_assert_uint_gt(over, 0);
        for (size_t b = 0; b < ref->n; b++)
            ck_assert_uint_eq(stats_loghist_bin(&hg, b + 1, &lo, &hi), (uint64_t)gsl_histogram_get(ref, b));
        if (si == 1) /* capped at 2^20 cells, each wider than half a bin */
            ck_assert(hg.ncells <= ((size_t)1 << 20) && ldexp(1.0, (int)hg.shift - 52) >= (1 - pow(10, -1.0 / 200000)) / 2);
        gsl_histogram_free(ref);
        stats_loghist_free(&hg);
    }
    gsl_rng_free(r);
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_one_to_four);
    tcase_add_test(tc, test_ci95_large_n);
    tcase_add_test(tc, test_welford_stable);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_mean_equals_acc);
    tcase_add_test(tc, test_quantiles);
    tcase_add_test(tc, test_loghist);
    tcase_add_test(tc, test_quantiles_equal_old_method);
    tcase_add_test(tc, test_quantiles_radix_cases);
    tcase_add_test(tc, test_loghist_edges);
    tcase_add_test(tc, test_loghist_random_equals_gsl);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(stats_suite)
