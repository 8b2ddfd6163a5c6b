/* Statistics: Welford moments, Student-t confidence, merge, quantiles. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

#define CLOSE(a, b, tol) ck_assert_msg(fabs((a) - (b)) <= (tol), "%.17g != %.17g", (double)(a), (double)(b))

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

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_one_to_four);
    tcase_add_test(tc, test_ci95_large_n);
    tcase_add_test(tc, test_welford_stable);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_quantiles);
    tcase_add_test(tc, test_loghist);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stats_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
