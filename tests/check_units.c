/* Units: every unit of every kind, the number formats, every error message,
 * rounding to picoseconds and the round trip of units_format. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "units.h"
#include "harness.h"

static double parse_ok(const char *text, unit_kind kind)
{
    double v = NAN;
    char err[512] = "";
    int rc = units_parse(text, kind, &v, err, sizeof err);
    ck_assert_msg(rc == 0, "units_parse('%s') failed: %s", text, err);
    return v;
}

static void parse_err(const char *text, unit_kind kind, const char *expected)
{
    double v = 12345;
    char err[512] = "";
    int rc = units_parse(text, kind, &v, err, sizeof err);
    ck_assert_msg(rc == -1, "units_parse('%s') should fail", text);
    ck_assert_str_eq(err, expected);
    ck_assert(v == 12345); /* output untouched on error */
}

/* Expected values are the decimal literals themselves: the parser converts
 * "<digits>e<exp+unit exp>" with one correctly rounded strtod, so the result
 * must be bit-identical to the C literal of the same decimal. */
#define EXACT(text, kind, value) ck_assert_msg(parse_ok(text, kind) == (value), "%s -> %.17g, expected %.17g", text, parse_ok(text, kind), (double)(value))

START_TEST(test_time_units)
{
    EXACT("1ps", UNIT_TIME, 1e-12);
    EXACT("200ns", UNIT_TIME, 200e-9);
    EXACT("200ns", UNIT_TIME, 2e-7);
    EXACT("5us", UNIT_TIME, 5e-6);
    EXACT("5\xc2\xb5s", UNIT_TIME, 5e-6); /* µs (micro sign) */
    EXACT("5\xce\xbcs", UNIT_TIME, 5e-6); /* μs (Greek mu) */
    EXACT("3ms", UNIT_TIME, 3e-3);
    EXACT("2s", UNIT_TIME, 2.0);
    EXACT("0.1us", UNIT_TIME, 1e-7); /* 0.1 * 1e-6 in doubles would be 1.0000000000000001e-07 */
}
END_TEST

START_TEST(test_size_units)
{
    EXACT("40B", UNIT_SIZE, 40.0);
    EXACT("20kB", UNIT_SIZE, 20000.0);
    EXACT("1.5MB", UNIT_SIZE, 1500000.0);
    EXACT("2GB", UNIT_SIZE, 2e9);
    EXACT("1TB", UNIT_SIZE, 1e12);
    EXACT("1KiB", UNIT_SIZE, 1024.0);
    EXACT("2MiB", UNIT_SIZE, 2097152.0);     /* 2 * 2^20 */
    EXACT("1GiB", UNIT_SIZE, 1073741824.0);  /* 2^30 */
    EXACT("0.5KiB", UNIT_SIZE, 512.0);
}
END_TEST

START_TEST(test_rate_units)
{
    EXACT("100b/s", UNIT_RATE, 100.0);
    EXACT("10kb/s", UNIT_RATE, 1e4);
    EXACT("10Mb/s", UNIT_RATE, 1e7);
    EXACT("40Gb/s", UNIT_RATE, 4e10);
    EXACT("1.6Tb/s", UNIT_RATE, 1.6e12);
    EXACT("100bps", UNIT_RATE, 100.0);
    EXACT("10kbps", UNIT_RATE, 1e4);
    EXACT("10Mbps", UNIT_RATE, 1e7);
    EXACT("40Gbps", UNIT_RATE, 4e10);
    EXACT("2Tbps", UNIT_RATE, 2e12);
    /* byte rates x 8 */
    EXACT("1B/s", UNIT_RATE, 8.0);
    EXACT("1kB/s", UNIT_RATE, 8000.0);
    EXACT("5MB/s", UNIT_RATE, 4e7);
    EXACT("5GB/s", UNIT_RATE, 4e10);
}
END_TEST

START_TEST(test_freq_units)
{
    EXACT("5000/s", UNIT_FREQ, 5000.0);
    EXACT("5/ms", UNIT_FREQ, 5000.0);
    EXACT("5/us", UNIT_FREQ, 5e6);
    EXACT("2/ns", UNIT_FREQ, 2e9);
    EXACT("50Hz", UNIT_FREQ, 50.0);
    EXACT("2kHz", UNIT_FREQ, 2000.0);
    EXACT("3MHz", UNIT_FREQ, 3e6);
    EXACT("1.5GHz", UNIT_FREQ, 1.5e9);
}
END_TEST

START_TEST(test_number_formats)
{
    EXACT("1e-6s", UNIT_TIME, 1e-6);
    EXACT("2.5e3/s", UNIT_FREQ, 2500.0);
    EXACT("1E3ns", UNIT_TIME, 1e-6);
    EXACT("1e+3B", UNIT_SIZE, 1000.0);
    EXACT("  40 Gb/s  ", UNIT_RATE, 4e10);   /* blanks around and between */
    EXACT("40\tGb/s", UNIT_RATE, 4e10);
    EXACT("-5ns", UNIT_TIME, -5e-9);         /* the caller checks ranges */
    EXACT("+5ns", UNIT_TIME, 5e-9);
    EXACT(".5us", UNIT_TIME, 5e-7);
    EXACT("5.us", UNIT_TIME, 5e-6);
    EXACT("0s", UNIT_TIME, 0.0);
    EXACT("1.5", UNIT_NONE, 1.5);
    EXACT(" 100 ", UNIT_NONE, 100.0);
    EXACT("-2e-3", UNIT_NONE, -0.002);
    EXACT("1.25e2", UNIT_NONE, 125.0);
}
END_TEST

START_TEST(test_errors)
{
    parse_err("40", UNIT_RATE, "missing unit (e.g. 40Gb/s)");
    parse_err("200", UNIT_TIME, "missing unit (e.g. 200ns)");
    parse_err("20", UNIT_SIZE, "missing unit (e.g. 20kB)");
    parse_err("5000", UNIT_FREQ, "missing unit (e.g. 5000/s)");
    parse_err("200ns", UNIT_RATE, "'200ns' is a time, expected a rate (e.g. 40Gb/s)");
    parse_err("40Gb/s", UNIT_TIME, "'40Gb/s' is a rate, expected a time (e.g. 200ns)");
    parse_err("20kB", UNIT_FREQ, "'20kB' is a size, expected a frequency (e.g. 5000/s)");
    parse_err("5/us", UNIT_SIZE, "'5/us' is a frequency, expected a size (e.g. 20kB)");
    parse_err("40Gbit", UNIT_RATE,
              "unknown unit 'Gbit' in '40Gbit' (expected a rate such as 40Gb/s; units: b/s kb/s Mb/s "
              "Gb/s Tb/s B/s kB/s MB/s GB/s)");
    parse_err("3 sec", UNIT_TIME,
              "unknown unit 'sec' in '3 sec' (expected a time such as 200ns; units: ps ns us ms s)");
    parse_err("4KB", UNIT_SIZE,
              "unknown unit 'KB' in '4KB' (expected a size such as 20kB; units: B kB MB GB TB KiB MiB GiB)");
    parse_err("5/min", UNIT_FREQ,
              "unknown unit '/min' in '5/min' (expected a frequency such as 5000/s; units: /s /ms /us Hz kHz MHz GHz)");
    parse_err("abc", UNIT_RATE, "'abc' is not a number");
    parse_err("Gb/s", UNIT_RATE, "'Gb/s' is not a number");
    parse_err("inf s", UNIT_TIME, "'inf s' is not a number"); /* strtod would accept it */
    parse_err("nan", UNIT_NONE, "'nan' is not a number");
    parse_err("-", UNIT_NONE, "'-' is not a number");
    parse_err("  ", UNIT_TIME, "empty value (expected a time such as 200ns)");
    parse_err("1e999s", UNIT_TIME, "'1e999s' is out of range");
    parse_err("5ns", UNIT_NONE, "'5ns' is a time, expected a plain number (e.g. 1)");
    parse_err("5x", UNIT_NONE, "unexpected 'x' after the number in '5x' (expected a plain number such as 1)");
    parse_err("1.2.3s", UNIT_TIME,
              "unknown unit '.3s' in '1.2.3s' (expected a time such as 200ns; units: ps ns us ms s)");
}
END_TEST

START_TEST(test_kind_names)
{
    ck_assert_str_eq(units_kind_name(UNIT_TIME), "time");
    ck_assert_str_eq(units_kind_name(UNIT_SIZE), "size");
    ck_assert_str_eq(units_kind_name(UNIT_RATE), "rate");
    ck_assert_str_eq(units_kind_name(UNIT_FREQ), "frequency");
    ck_assert_str_eq(units_kind_name(UNIT_NONE), "number");
    ck_assert_str_eq(units_example(UNIT_TIME), "200ns");
    ck_assert_str_eq(units_example(UNIT_SIZE), "20kB");
    ck_assert_str_eq(units_example(UNIT_RATE), "40Gb/s");
    ck_assert_str_eq(units_example(UNIT_FREQ), "5000/s");
    ck_assert_str_eq(units_example(UNIT_NONE), "1");
    ck_assert_str_eq(units_si_name(UNIT_TIME), "s");
    ck_assert_str_eq(units_si_name(UNIT_SIZE), "B");
    ck_assert_str_eq(units_si_name(UNIT_RATE), "b/s");
    ck_assert_str_eq(units_si_name(UNIT_FREQ), "1/s");
    ck_assert_str_eq(units_si_name(UNIT_NONE), "");
}
END_TEST

START_TEST(test_s_to_ps)
{
    ck_assert_int_eq(units_s_to_ps(2e-7), 200000);      /* 2e-7 * 1e12 = 200000.00000000003 -> nearest */
    ck_assert_int_eq(units_s_to_ps(1e-6), 1000000);
    ck_assert_int_eq(units_s_to_ps(1.0), 1000000000000LL);
    ck_assert_int_eq(units_s_to_ps(0.4e-12), 0);        /* 0.4 ps rounds down */
    ck_assert_int_eq(units_s_to_ps(0.6e-12), 1);        /* 0.6 ps rounds up */
    ck_assert_int_eq(units_s_to_ps(-0.6e-12), -1);
    ck_assert_int_eq(units_s_to_ps(1e300), INT64_MAX);  /* saturates */
    ck_assert_int_eq(units_s_to_ps(-1e300), INT64_MIN);
    ck_assert(units_ps_to_s(200000) == 200000 * 1e-12);
}
END_TEST

static void fmt_eq(double v, unit_kind kind, const char *expected)
{
    char buf[64];
    units_format(v, kind, buf, sizeof buf);
    ck_assert_str_eq(buf, expected);
}

START_TEST(test_format_examples)
{
    fmt_eq(4e10, UNIT_RATE, "40Gb/s");
    fmt_eq(1e11, UNIT_RATE, "100Gb/s");
    fmt_eq(1.5e12, UNIT_RATE, "1.5Tb/s");
    fmt_eq(999, UNIT_RATE, "999b/s");
    fmt_eq(2e-7, UNIT_TIME, "200ns");
    fmt_eq(1e-12, UNIT_TIME, "1ps");
    fmt_eq(5e-13, UNIT_TIME, "0.5ps");      /* below the smallest unit */
    fmt_eq(1.5e-6, UNIT_TIME, "1.5us");
    fmt_eq(3600, UNIT_TIME, "3600s");
    fmt_eq(0.001, UNIT_TIME, "1ms");
    fmt_eq(0, UNIT_TIME, "0s");
    fmt_eq(-2e-7, UNIT_TIME, "-200ns");
    fmt_eq(40, UNIT_SIZE, "40B");
    fmt_eq(20000, UNIT_SIZE, "20kB");
    fmt_eq(1024, UNIT_SIZE, "1.024kB");
    fmt_eq(1e15, UNIT_SIZE, "1000TB");
    fmt_eq(0, UNIT_SIZE, "0B");
    fmt_eq(5000, UNIT_FREQ, "5000/s");
    fmt_eq(0.25, UNIT_FREQ, "0.25/s");
    fmt_eq(1.5, UNIT_NONE, "1.5");
    fmt_eq(0.1, UNIT_NONE, "0.1");          /* shortest, not 0.10000000000000001 */
    fmt_eq(1e30, UNIT_NONE, "1e30");
    fmt_eq(1.25e-9, UNIT_NONE, "1.25e-9");
    fmt_eq(123456789012, UNIT_NONE, "123456789012");
}
END_TEST

/* format -> parse must give back the same double, for any value of any kind. */
START_TEST(test_format_round_trip)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    const unit_kind kinds[] = {UNIT_NONE, UNIT_TIME, UNIT_SIZE, UNIT_RATE, UNIT_FREQ};
    for (int i = 0; i < 20000; i++) {
        unit_kind k = kinds[i % 5];
        /* magnitudes 1e-15 .. 1e15, random mantissa bits, either sign */
        double v = (gsl_rng_uniform(r) + 0.5) * pow(10.0, (double)((int)gsl_rng_uniform_int(r, 31) - 15));
        if (i % 7 == 0)
            v = -v;
        if (i % 11 == 0)
            v = floor(v); /* integers too */
        char buf[64];
        units_format(v, k, buf, sizeof buf);
        double back = NAN;
        char err[256];
        ck_assert_msg(units_parse(buf, k, &back, err, sizeof err) == 0, "%s: %s", buf, err);
        ck_assert_msg(back == v, "%.17g -> '%s' -> %.17g", v, buf, back);
    }
    gsl_rng_free(r);
}
END_TEST

static Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_time_units);
    tcase_add_test(tc, test_size_units);
    tcase_add_test(tc, test_rate_units);
    tcase_add_test(tc, test_freq_units);
    tcase_add_test(tc, test_number_formats);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_kind_names);
    tcase_add_test(tc, test_s_to_ps);
    tcase_add_test(tc, test_format_examples);
    tcase_add_test(tc, test_format_round_trip);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(units_suite)
