/* RNG streams: reproducible, distinct per (seed, replica, component), and
 * uncorrelated across neighbouring replicas. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_statistics_double.h>

#include "rng.h"
#include "harness.h"

START_TEST(test_seed_deterministic)
{
    ck_assert(rng_derive_seed(1, 0, "network") == rng_derive_seed(1, 0, "network"));
    /* every input matters */
    uint64_t base = rng_derive_seed(1, 0, "network");
    ck_assert(base != rng_derive_seed(2, 0, "network"));
    ck_assert(base != rng_derive_seed(1, 1, "network"));
    ck_assert(base != rng_derive_seed(1, 0, "networl"));
    ck_assert(base != rng_derive_seed(1, 0, ""));
    /* not symmetric in seed and replica */
    ck_assert(rng_derive_seed(1, 2, "x") != rng_derive_seed(2, 1, "x"));
    /* NULL component is the empty name */
    ck_assert(rng_derive_seed(5, 3, NULL) == rng_derive_seed(5, 3, ""));
}
END_TEST

START_TEST(test_seed_avalanche)
{
    /* A good mix flips ~32 of 64 bits when one input bit changes. Over 64
     * replica pairs (r, r+1) the mean Hamming distance of a binomial(64, 1/2)
     * has sd 4/sqrt(64) = 0.5: accept 32 +- 3. */
    double total = 0;
    for (uint64_t r = 0; r < 64; r++)
        total += __builtin_popcountll(rng_derive_seed(42, r, "jobs") ^ rng_derive_seed(42, r + 1, "jobs"));
    double mean = total / 64;
    ck_assert_msg(fabs(mean - 32) < 3, "mean flipped bits %g", mean);
}
END_TEST

START_TEST(test_stream_same_sequence)
{
    gsl_rng *a = rng_stream_new(7, 3, "scheduler");
    gsl_rng *b = rng_stream_new(7, 3, "scheduler");
    ck_assert_str_eq(gsl_rng_name(a), "mt19937");
    for (int i = 0; i < 1000; i++)
        ck_assert(gsl_rng_get(a) == gsl_rng_get(b));
    gsl_rng_free(a);
    gsl_rng_free(b);
}
END_TEST

/* Count of equal draws in 1000 pairs: two independent 32-bit streams agree
 * with probability 2^-32 per draw, so any agreement means shared seeds. */
static int agreements(gsl_rng *a, gsl_rng *b)
{
    int same = 0;
    for (int i = 0; i < 1000; i++)
        same += gsl_rng_get(a) == gsl_rng_get(b);
    return same;
}

START_TEST(test_streams_differ)
{
    gsl_rng *other[3] = {rng_stream_new(8, 3, "scheduler"), rng_stream_new(7, 4, "scheduler"),
                         rng_stream_new(7, 3, "network")};
    for (int k = 0; k < 3; k++) {
        gsl_rng *ref = rng_stream_new(7, 3, "scheduler");
        ck_assert_int_eq(agreements(ref, other[k]), 0);
        gsl_rng_free(ref);
        gsl_rng_free(other[k]);
    }
}
END_TEST

START_TEST(test_replicas_uncorrelated)
{
    /* 16 replicas, 10^4 uniforms each. Each mean ~ 0.5 with sd
     * sqrt(1/12/1e4) = 0.00289: accept 5 sd (0.0144). Draw i of replica r
     * against draw i of replica r+1: sample correlation of independent
     * streams ~ 0 with sd 1/sqrt(1e4) = 0.01: accept 5 sd (0.05). */
    enum { R = 16, N = 10000 };
    static double u[R][N];
    for (int r = 0; r < R; r++) {
        gsl_rng *g = rng_stream_new(2013, (uint64_t)r, "workload");
        for (int i = 0; i < N; i++)
            u[r][i] = gsl_rng_uniform(g);
        gsl_rng_free(g);
        double m = gsl_stats_mean(u[r], 1, N);
        ck_assert_msg(fabs(m - 0.5) < 0.0144, "replica %d mean %g", r, m);
    }
    for (int r = 0; r + 1 < R; r++) {
        double c = gsl_stats_correlation(u[r], 1, u[r + 1], 1, N);
        ck_assert_msg(fabs(c) < 0.05, "replicas %d,%d correlation %g", r, r + 1, c);
    }
    /* The very first draw across 10^4 consecutive replicas: these come from
     * 10^4 different seeds, so their mean is again ~0.5 +- 0.0144. */
    double first[N];
    for (int r = 0; r < N; r++) {
        gsl_rng *g = rng_stream_new(1, (uint64_t)r, "workload");
        first[r] = gsl_rng_uniform(g);
        gsl_rng_free(g);
    }
    double m = gsl_stats_mean(first, 1, N);
    ck_assert_msg(fabs(m - 0.5) < 0.0144, "first-draw mean %g", m);
    double lag1 = gsl_stats_correlation(first, 1, first + 1, 1, N - 1);
    ck_assert_msg(fabs(lag1) < 0.05, "first-draw lag-1 correlation %g", lag1);
}
END_TEST

static Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_seed_deterministic);
    tcase_add_test(tc, test_seed_avalanche);
    tcase_add_test(tc, test_stream_same_sequence);
    tcase_add_test(tc, test_streams_differ);
    tcase_add_test(tc, test_replicas_uncorrelated);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(rng_suite)
