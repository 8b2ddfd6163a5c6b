/* Distributions: parsing of every kind with units, exact means derived by
 * hand, sample means against them, and every error message. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "dist.h"
#include "harness.h"


/* tests/fixtures, from the test environment or else next to this file. */
static const char *fixtures(void)
{
    static char dir[4096];
    const char *top = getenv("top_srcdir");
    if (top && *top) {
        snprintf(dir, sizeof dir, "%s/tests/fixtures", top);
    } else {
        snprintf(dir, sizeof dir, "%s", __FILE__);
        char *slash = strrchr(dir, '/');
        if (slash)
            snprintf(slash, sizeof dir - (size_t)(slash - dir), "/fixtures");
        else
            snprintf(dir, sizeof dir, "fixtures");
    }
    return dir;
}

static dist parse_ok(const char *text, unit_kind unit)
{
    dist d;
    char err[1024] = "";
    int rc = dist_parse(text, unit, fixtures(), &d, err, sizeof err);
    ck_assert_msg(rc == 0, "dist_parse('%s') failed: %s", text, err);
    return d;
}

static void parse_err(const char *text, unit_kind unit, const char *expected)
{
    dist d;
    char err[2048] = "";
    int rc = dist_parse(text, unit, fixtures(), &d, err, sizeof err);
    ck_assert_msg(rc == -1, "dist_parse('%s') should fail", text);
    ck_assert_str_eq(err, expected);
}

/* Same, for messages that carry the fixture folder between two parts. */
static void parse_err_path(const char *text, unit_kind unit, const char *before, const char *after)
{
    char expected[2048];
    snprintf(expected, sizeof expected, "%s%s%s", before, fixtures(), after);
    parse_err(text, unit, expected);
}

START_TEST(test_parse_kinds)
{
    dist d = parse_ok("20kB", UNIT_SIZE);
    ck_assert_int_eq(d.kind, DIST_CONST);
    ck_assert(dist_is_const(&d));
    ck_assert(d.a == 20000.0);
    ck_assert_str_eq(d.text, "20kB");
    dist_free(&d);

    d = parse_ok("  uniform( 2us , 100us ) ", UNIT_TIME);
    ck_assert_int_eq(d.kind, DIST_UNIFORM);
    ck_assert(!dist_is_const(&d));
    ck_assert(d.a == 2e-6 && d.b == 100e-6);
    ck_assert_str_eq(d.text, "uniform( 2us , 100us )"); /* as written, trimmed */
    dist_free(&d);

    d = parse_ok("uniform-int(25,175)", UNIT_NONE);
    ck_assert_int_eq(d.kind, DIST_UNIFORM_INT);
    ck_assert(d.a == 25 && d.b == 175);
    dist_free(&d);

    d = parse_ok("uniform-int(1kB,2kB)", UNIT_SIZE); /* sizes may carry their unit */
    ck_assert(d.a == 1000 && d.b == 2000);
    dist_free(&d);

    d = parse_ok("uniform-int(100,200)", UNIT_SIZE); /* or be plain integers (bytes) */
    ck_assert(d.a == 100 && d.b == 200);
    dist_free(&d);

    d = parse_ok("exponential(50us)", UNIT_TIME);
    ck_assert_int_eq(d.kind, DIST_EXPONENTIAL);
    ck_assert(d.a == 50e-6);
    dist_free(&d);

    d = parse_ok("normal(50us,10us)", UNIT_TIME);
    ck_assert_int_eq(d.kind, DIST_NORMAL);
    ck_assert(d.a == 50e-6 && d.b == 10e-6);
    dist_free(&d);

    d = parse_ok("lognormal(20kB,0.5)", UNIT_SIZE);
    ck_assert_int_eq(d.kind, DIST_LOGNORMAL);
    ck_assert(d.a == 20000 && d.b == 0.5);
    dist_free(&d);

    d = parse_ok("exponential(200/s)", UNIT_FREQ);
    ck_assert(d.a == 200);
    dist_free(&d);

    d = parse_ok("empirical(cdf_small.csv)", UNIT_SIZE);
    ck_assert_int_eq(d.kind, DIST_EMPIRICAL);
    ck_assert_int_eq(d.linear, 0);
    /* header and comment lines skipped, blank line ignored */
    ck_assert_uint_eq(d.n, 4);
    const double x[] = {100, 200, 400, 1000}, c[] = {0.2, 0.5, 0.9, 1.0};
    for (int i = 0; i < 4; i++)
        ck_assert(d.x[i] == x[i] && d.cdf[i] == c[i]);
    dist_free(&d);

    d = parse_ok("empirical(cdf_small.csv, linear)", UNIT_SIZE);
    ck_assert_int_eq(d.linear, 1);
    dist_free(&d);
    d = parse_ok("empirical(cdf_small.csv,step)", UNIT_SIZE);
    ck_assert_int_eq(d.linear, 0);
    dist_free(&d);

    /* absolute paths ignore basedir */
    char abs[4200];
    snprintf(abs, sizeof abs, "empirical(%s/cdf_small.csv)", fixtures());
    if (abs[10] == '/') {
        dist e;
        char err[1024];
        ck_assert_msg(dist_parse(abs, UNIT_SIZE, "/nonexistent", &e, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(e.n, 4);
        dist_free(&e);
    }
}
END_TEST

START_TEST(test_exact_means)
{
    dist d = parse_ok("20kB", UNIT_SIZE);
    ck_assert(dist_mean(&d) == 20000);
    dist_free(&d);
    /* (2 + 100)/2 us = 51 us */
    d = parse_ok("uniform(2us,100us)", UNIT_TIME);
    CLOSE(dist_mean(&d), 51e-6, 1e-20);
    dist_free(&d);
    /* (25 + 175)/2 = 100 */
    d = parse_ok("uniform-int(25,175)", UNIT_NONE);
    ck_assert(dist_mean(&d) == 100);
    dist_free(&d);
    d = parse_ok("exponential(50us)", UNIT_TIME);
    ck_assert(dist_mean(&d) == 5e-5);
    dist_free(&d);
    /* median e^mu = 20000, E = e^(mu + sigma^2/2) = 20000 e^0.125 */
    d = parse_ok("lognormal(20kB,0.5)", UNIT_SIZE);
    CLOSE(dist_mean(&d), 20000 * exp(0.125), 1e-9);
    CLOSE(dist_mean(&d), 22662.969061336, 1e-6); /* e^0.125 = 1.1331484530668263 */
    dist_free(&d);
    /* normal(50us,10us): P(X<0) = Phi(-5) ~ 3e-7, mean = 50us to ~1e-12 s */
    d = parse_ok("normal(50us,10us)", UNIT_TIME);
    CLOSE(dist_mean(&d), 50e-6, 1e-12);
    dist_free(&d);
    /* clamped normal(10us,20us): z = 0.5, Phi(0.5) = 0.6914624612740131,
     * phi(0.5) = 0.3520653267642995 (tables); mean = mu Phi(z) + sigma phi(z)
     * = 6.914624612740131e-6 + 7.04130653528599e-6 = 1.395593114802612e-5 */
    d = parse_ok("normal(10us,20us)", UNIT_TIME);
    CLOSE(dist_mean(&d), 1.395593114802612e-5, 1e-18);
    dist_free(&d);
    /* normal(0,s) clamped is half-normal: mean s/sqrt(2 pi) */
    d = parse_ok("normal(0s,1s)", UNIT_TIME);
    CLOSE(dist_mean(&d), 0.3989422804014327, 1e-15); /* 1/sqrt(2 pi) */
    dist_free(&d);
    /* sigma 0: a constant, clamped at 0 */
    d = parse_ok("normal(-3us,0us)", UNIT_TIME);
    ck_assert(dist_mean(&d) == 0);
    dist_free(&d);
    d = parse_ok("normal(3us,0us)", UNIT_TIME);
    ck_assert(dist_mean(&d) == 3e-6);
    dist_free(&d);
    /* step: 100*0.2 + 200*0.3 + 400*0.4 + 1000*0.1 = 20+60+160+100 = 340 */
    d = parse_ok("empirical(cdf_small.csv)", UNIT_SIZE);
    CLOSE(dist_mean(&d), 340, 1e-12);
    dist_free(&d);
    /* linear: atom 100*0.2 + midpoints 150*0.3 + 300*0.4 + 700*0.1
     * = 20 + 45 + 120 + 70 = 255 */
    d = parse_ok("empirical(cdf_small.csv,linear)", UNIT_SIZE);
    CLOSE(dist_mean(&d), 255, 1e-12);
    dist_free(&d);
    /* last cum 0.9999995 is within 1e-6 of 1: normalised, c0 = 0.5/0.9999995;
     * step mean = 1*c0 + 3*(1-c0) = 3 - 2 c0 */
    d = parse_ok("empirical(cdf_near_one.csv)", UNIT_NONE);
    ck_assert_uint_eq(d.n, 2);
    ck_assert(d.cdf[1] == 1.0);
    CLOSE(d.cdf[0], 0.5 / 0.9999995, 1e-15);
    CLOSE(dist_mean(&d), 3 - 2 * (0.5 / 0.9999995), 1e-15);
    dist_free(&d);
}
END_TEST

/* Draws n samples; checks the sample mean is within 5 standard errors of
 * dist_mean (false alarm ~ 6e-7 per check) and returns the samples. */
static double *check_sample_mean(const char *text, unit_kind unit, size_t n, gsl_rng *r)
{
    dist d = parse_ok(text, unit);
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = dist_sample(&d, r);
    double m = gsl_stats_mean(v, 1, n), sd = gsl_stats_sd_m(v, 1, n, m);
    double se = sd / sqrt((double)n), want = dist_mean(&d);
    ck_assert_msg(fabs(m - want) <= 5 * se + 1e-12 * fabs(want), "%s: sample mean %.10g, exact %.10g, se %.3g", text, m,
                  want, se);
    dist_free(&d);
    return v;
}

START_TEST(test_sample_means)
{
    enum { N = 100000 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    const char *cases[][2] = {
        {"uniform(2us,100us)", "t"}, {"exponential(50us)", "t"}, {"normal(50us,10us)", "t"},
        {"normal(10us,20us)", "t"},  {"normal(-5us,10us)", "t"}, {"lognormal(20kB,0.5)", "b"},
        {"uniform-int(25,175)", "n"}, {"empirical(cdf_small.csv)", "b"},
        {"empirical(cdf_small.csv,linear)", "b"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unit_kind u = cases[k][1][0] == 't' ? UNIT_TIME : cases[k][1][0] == 'b' ? UNIT_SIZE : UNIT_NONE;
        double *v = check_sample_mean(cases[k][0], u, N, r);
        if (strncmp(cases[k][0], "normal", 6) == 0)
            for (size_t i = 0; i < N; i++)
                ck_assert(v[i] >= 0); /* clamped */
        free(v);
    }
    /* constant: every draw is the value */
    dist d = parse_ok("7ns", UNIT_TIME);
    for (int i = 0; i < 100; i++)
        ck_assert(dist_sample(&d, r) == 7e-9);
    dist_free(&d);
    gsl_rng_free(r);
}
END_TEST

START_TEST(test_uniform_int_range)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    double *v = check_sample_mean("uniform-int(25,175)", UNIT_NONE, 100000, r);
    /* every value an integer in [25,175]; missing an end in 10^5 draws has
     * probability (150/151)^1e5 ~ e^-662 */
    int lo = 0, hi = 0;
    for (int i = 0; i < 100000; i++) {
        ck_assert(v[i] >= 25 && v[i] <= 175 && floor(v[i]) == v[i]);
        lo += v[i] == 25;
        hi += v[i] == 175;
    }
    ck_assert(lo > 0 && hi > 0);
    free(v);
    /* a single point */
    dist d = parse_ok("uniform-int(4,4)", UNIT_NONE);
    ck_assert(dist_sample(&d, r) == 4 && dist_mean(&d) == 4);
    dist_free(&d);
    gsl_rng_free(r);
}
END_TEST

START_TEST(test_empirical_sampling)
{
    enum { N = 100000 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 9);
    /* step: only table values, with frequencies 0.2 0.3 0.4 0.1;
     * sd of a count is sqrt(N p (1-p)) <= 159, accept 5 sd = 800 */
    dist d = parse_ok("empirical(cdf_small.csv)", UNIT_SIZE);
    const double x[] = {100, 200, 400, 1000}, p[] = {0.2, 0.3, 0.4, 0.1};
    int count[4] = {0, 0, 0, 0};
    for (int i = 0; i < N; i++) {
        double v = dist_sample(&d, r);
        int k = 0;
        while (k < 4 && x[k] != v)
            k++;
        ck_assert_msg(k < 4, "step draw %g is not a table value", v);
        count[k]++;
    }
    for (int k = 0; k < 4; k++)
        ck_assert_msg(fabs(count[k] - N * p[k]) < 800, "value %g drawn %d times", x[k], count[k]);
    dist_free(&d);
    /* linear: atom of 0.2 at 100, the rest spread over (100,1000]; the
     * fraction at or below 200 is the cdf there, 0.5 */
    d = parse_ok("empirical(cdf_small.csv,linear)", UNIT_SIZE);
    int atom = 0, le200 = 0;
    for (int i = 0; i < N; i++) {
        double v = dist_sample(&d, r);
        ck_assert(v >= 100 && v <= 1000);
        atom += v == 100;
        le200 += v <= 200;
    }
    ck_assert_msg(fabs(atom - 0.2 * N) < 800, "atom %d", atom);
    ck_assert_msg(fabs(le200 - 0.5 * N) < 800, "<=200: %d", le200);
    dist_free(&d);
    gsl_rng_free(r);
}
END_TEST

START_TEST(test_const_copy_free)
{
    dist d;
    dist_const(&d, UNIT_SIZE, 20000);
    ck_assert_int_eq(d.kind, DIST_CONST);
    ck_assert_int_eq(d.unit, UNIT_SIZE);
    ck_assert_str_eq(d.text, "20kB");
    ck_assert(dist_mean(&d) == 20000 && dist_is_const(&d));
    dist_free(&d);
    ck_assert_ptr_null(d.text);

    dist src = parse_ok("empirical(cdf_small.csv,linear)", UNIT_SIZE), cp;
    dist_copy(&cp, &src);
    ck_assert(cp.x != src.x && cp.cdf != src.cdf && cp.text != src.text);
    dist_free(&src); /* the copy owns its own memory */
    ck_assert_uint_eq(cp.n, 4);
    ck_assert(cp.x[3] == 1000 && cp.cdf[0] == 0.2 && cp.linear == 1);
    ck_assert_str_eq(cp.text, "empirical(cdf_small.csv,linear)");
    CLOSE(dist_mean(&cp), 255, 1e-12);
    dist_free(&cp);
    dist_free(&cp); /* idempotent */
}
END_TEST

START_TEST(test_errors)
{
    parse_err("unifrm(1us,2us)", UNIT_TIME,
              "malformed distribution 'unifrm(1us,2us)': unknown function 'unifrm' (expected constant, "
              "uniform(a,b), uniform-int(a,b), exponential(mean), normal(mu,sigma), lognormal(median,sigma), "
              "empirical(file.csv[,step|linear]))");
    /* argument counts */
    parse_err("uniform(1us)", UNIT_TIME,
              "malformed distribution 'uniform(1us)': uniform takes 2 arguments: uniform(a,b), got 1");
    parse_err("exponential(1us,2us)", UNIT_TIME,
              "malformed distribution 'exponential(1us,2us)': exponential takes 1 argument: exponential(mean), got 2");
    parse_err("normal()", UNIT_TIME, "malformed distribution 'normal()': normal takes 2 arguments: normal(mu,sigma), got 0");
    parse_err("empirical(a.csv,step,x)", UNIT_SIZE,
              "malformed distribution 'empirical(a.csv,step,x)': empirical takes 1 or 2 arguments: "
              "empirical(file.csv[,step|linear]), got 3");
    parse_err("uniform(1us,)", UNIT_TIME, "malformed distribution 'uniform(1us,)': uniform argument 2 is empty");
    /* syntax */
    parse_err("uniform(1us,2us", UNIT_TIME, "malformed distribution 'uniform(1us,2us': expected ')' at the end");
    parse_err("uniform(1us,(2us))", UNIT_TIME, "malformed distribution 'uniform(1us,(2us))': unbalanced parentheses");
    /* units inside, with units_parse's own messages */
    parse_err("uniform(1,2us)", UNIT_TIME,
              "malformed distribution 'uniform(1,2us)': uniform argument 1: missing unit (e.g. 200ns)");
    parse_err("uniform(1us,2kB)", UNIT_TIME,
              "malformed distribution 'uniform(1us,2kB)': uniform argument 2: '2kB' is a size, expected a time (e.g. 200ns)");
    parse_err("exponential(5Gbit)", UNIT_SIZE,
              "malformed distribution 'exponential(5Gbit)': exponential argument 1: unknown unit 'Gbit' in '5Gbit' "
              "(expected a size such as 20kB; units: B kB MB GB TB KiB MiB GiB)");
    parse_err("lognormal(20kB,0.5s)", UNIT_SIZE,
              "malformed distribution 'lognormal(20kB,0.5s)': lognormal argument 2: '0.5s' is a time, expected a "
              "plain number (e.g. 1)");
    parse_err("uniform-int(x,5)", UNIT_NONE,
              "malformed distribution 'uniform-int(x,5)': uniform-int argument 1: 'x' is not a number");
    /* a constant reports the unit problem alone */
    parse_err("20", UNIT_SIZE, "missing unit (e.g. 20kB)");
    parse_err("abc", UNIT_SIZE, "'abc' is not a number");
    /* ranges */
    parse_err("uniform(5us,2us)", UNIT_TIME,
              "malformed distribution 'uniform(5us,2us)': uniform needs a <= b (got a = 5us > b = 2us)");
    parse_err("uniform-int(9,3)", UNIT_NONE,
              "malformed distribution 'uniform-int(9,3)': uniform-int needs a <= b (got a = 9 > b = 3)");
    parse_err("uniform-int(2.5,3)", UNIT_NONE,
              "malformed distribution 'uniform-int(2.5,3)': uniform-int argument 1: '2.5' is not an integer");
    parse_err("uniform-int(0,1e10)", UNIT_NONE,
              "malformed distribution 'uniform-int(0,1e10)': uniform-int range b - a + 1 must be below 2^32 (got 10000000001)");
    parse_err("exponential(-5us)", UNIT_TIME,
              "malformed distribution 'exponential(-5us)': exponential mean must not be negative (got -5us)");
    parse_err("normal(5us,-1us)", UNIT_TIME,
              "malformed distribution 'normal(5us,-1us)': normal sigma must not be negative (got -1us)");
    parse_err("lognormal(20kB,-0.5)", UNIT_SIZE,
              "malformed distribution 'lognormal(20kB,-0.5)': lognormal sigma must not be negative (got -0.5)");
    parse_err("lognormal(0B,0.5)", UNIT_SIZE,
              "malformed distribution 'lognormal(0B,0.5)': lognormal median must be positive (got 0B)");
    parse_err("empirical(cdf_small.csv,cubic)", UNIT_SIZE,
              "malformed distribution 'empirical(cdf_small.csv,cubic)': empirical mode must be 'step' or 'linear' (got 'cubic')");
}
END_TEST

START_TEST(test_empirical_errors)
{
    parse_err_path("empirical(missing.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(missing.csv)': cannot read '", "/missing.csv': No such file or directory");
    parse_err_path("empirical(bad_cdf/cdf_values_decrease.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(bad_cdf/cdf_values_decrease.csv)': ",
                   "/bad_cdf/cdf_values_decrease.csv:3: values must not decrease (200 after 300)");
    parse_err_path("empirical(bad_cdf/cdf_cum_decrease.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(bad_cdf/cdf_cum_decrease.csv)': ",
                   "/bad_cdf/cdf_cum_decrease.csv:2: cumulative fractions must not decrease (0.4 after 0.5)");
    parse_err_path("empirical(bad_cdf/cdf_not_one.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(bad_cdf/cdf_not_one.csv)': ",
                   "/bad_cdf/cdf_not_one.csv: the last cumulative fraction is 0.90000000000000002, expected 1");
    parse_err_path("empirical(bad_cdf/cdf_no_points.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(bad_cdf/cdf_no_points.csv)': ",
                   "/bad_cdf/cdf_no_points.csv: no data points (expected lines 'value,cumulative_fraction')");
    parse_err_path("empirical(bad_cdf/cdf_bad_number.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(bad_cdf/cdf_bad_number.csv)': ",
                   "/bad_cdf/cdf_bad_number.csv:3: '2OO' is not a number");
    parse_err_path("empirical(bad_cdf/cdf_one_column.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(bad_cdf/cdf_one_column.csv)': ",
                   "/bad_cdf/cdf_one_column.csv:1: expected 'value,cumulative_fraction'");
    parse_err_path("empirical(bad_cdf/cdf_above_one.csv)", UNIT_SIZE,
                   "malformed distribution 'empirical(bad_cdf/cdf_above_one.csv)': ",
                   "/bad_cdf/cdf_above_one.csv:2: cumulative fraction 1.5 outside [0,1]");
}
END_TEST

static Suite *dist_suite(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_parse_kinds);
    tcase_add_test(tc, test_exact_means);
    tcase_add_test(tc, test_sample_means);
    tcase_add_test(tc, test_uniform_int_range);
    tcase_add_test(tc, test_empirical_sampling);
    tcase_add_test(tc, test_const_copy_free);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_empirical_errors);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(dist_suite)
