#include "units.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* A unit scales a value by 10^exp10 * mul. Decimal prefixes go into exp10 so
 * that "0.1us" is converted by one correctly rounded strtod("0.1e-6")
 * instead of 0.1 * 1e-6 (which is off by an ulp); mul is a power of two
 * (KiB, bytes -> bits) and so multiplies exactly. */
typedef struct unit_def {
    const char *name; /* as written after the number */
    unit_kind kind;   /* what it measures */
    int exp10;        /* decimal scale to the SI base unit */
    double mul;       /* extra binary scale (1, 8, 1024, ...) */
} unit_def;

static const unit_def unit_table[] = {
    {"ps", UNIT_TIME, -12, 1},
    {"ns", UNIT_TIME, -9, 1},
    {"us", UNIT_TIME, -6, 1},
    {"\xc2\xb5s", UNIT_TIME, -6, 1}, /* µs, micro sign U+00B5 */
    {"\xce\xbcs", UNIT_TIME, -6, 1}, /* μs, Greek mu U+03BC, what some keyboards type */
    {"ms", UNIT_TIME, -3, 1},
    {"s", UNIT_TIME, 0, 1},

    {"B", UNIT_SIZE, 0, 1},
    {"kB", UNIT_SIZE, 3, 1},
    {"MB", UNIT_SIZE, 6, 1},
    {"GB", UNIT_SIZE, 9, 1},
    {"TB", UNIT_SIZE, 12, 1},
    {"KiB", UNIT_SIZE, 0, 1024.0},
    {"MiB", UNIT_SIZE, 0, 1048576.0},
    {"GiB", UNIT_SIZE, 0, 1073741824.0},

    {"b/s", UNIT_RATE, 0, 1},
    {"kb/s", UNIT_RATE, 3, 1},
    {"Mb/s", UNIT_RATE, 6, 1},
    {"Gb/s", UNIT_RATE, 9, 1},
    {"Tb/s", UNIT_RATE, 12, 1},
    {"bps", UNIT_RATE, 0, 1},
    {"kbps", UNIT_RATE, 3, 1},
    {"Mbps", UNIT_RATE, 6, 1},
    {"Gbps", UNIT_RATE, 9, 1},
    {"Tbps", UNIT_RATE, 12, 1},
    {"B/s", UNIT_RATE, 0, 8},
    {"kB/s", UNIT_RATE, 3, 8},
    {"MB/s", UNIT_RATE, 6, 8},
    {"GB/s", UNIT_RATE, 9, 8},

    {"/s", UNIT_FREQ, 0, 1},
    {"/ms", UNIT_FREQ, 3, 1},
    {"/us", UNIT_FREQ, 6, 1},
    {"/\xc2\xb5s", UNIT_FREQ, 6, 1},
    {"/ns", UNIT_FREQ, 9, 1},
    {"Hz", UNIT_FREQ, 0, 1},
    {"kHz", UNIT_FREQ, 3, 1},
    {"MHz", UNIT_FREQ, 6, 1},
    {"GHz", UNIT_FREQ, 9, 1},

    {"km", UNIT_LENGTH, 3, 1},
    {"m", UNIT_LENGTH, 0, 1},
    {"cm", UNIT_LENGTH, -2, 1},
    {"mm", UNIT_LENGTH, -3, 1},
    {"um", UNIT_LENGTH, -6, 1},

    {"W", UNIT_POWER, 0, 1},
    {"mW", UNIT_POWER, -3, 1},
    {"uW", UNIT_POWER, -6, 1},

    {"dB", UNIT_DB, 0, 1},
    {"dBm", UNIT_DBM, 0, 1},

    {"dB/cm", UNIT_ATTEN, 0, 1},
    {"dB/m", UNIT_ATTEN, -2, 1},
    {"dB/km", UNIT_ATTEN, -5, 1},

    {"J/b", UNIT_EBIT, 0, 1},
    {"nJ/b", UNIT_EBIT, -9, 1},
    {"pJ/b", UNIT_EBIT, -12, 1},
    {"fJ/b", UNIT_EBIT, -15, 1},
};

static const unit_def *unit_lookup(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof unit_table / sizeof unit_table[0]; i++)
        if (strlen(unit_table[i].name) == len && memcmp(unit_table[i].name, name, len) == 0)
            return &unit_table[i];
    return NULL;
}

const char *units_kind_name(unit_kind kind)
{
    switch (kind) {
    case UNIT_TIME: return "time";
    case UNIT_SIZE: return "size";
    case UNIT_RATE: return "rate";
    case UNIT_FREQ: return "frequency";
    case UNIT_LENGTH: return "length";
    case UNIT_POWER: return "power";
    case UNIT_DB: return "ratio in dB";
    case UNIT_DBM: return "power level in dBm";
    case UNIT_ATTEN: return "attenuation";
    case UNIT_EBIT: return "energy per bit";
    case UNIT_NONE: break;
    }
    return "number";
}

const char *units_example(unit_kind kind)
{
    switch (kind) {
    case UNIT_TIME: return "200ns";
    case UNIT_SIZE: return "20kB";
    case UNIT_RATE: return "40Gb/s";
    case UNIT_FREQ: return "5000/s";
    case UNIT_LENGTH: return "2m";
    case UNIT_POWER: return "20mW";
    case UNIT_DB: return "1dB";
    case UNIT_DBM: return "-20dBm";
    case UNIT_ATTEN: return "1dB/cm";
    case UNIT_EBIT: return "8pJ/b";
    case UNIT_NONE: break;
    }
    return "1";
}

const char *units_si_name(unit_kind kind)
{
    switch (kind) {
    case UNIT_TIME: return "s";
    case UNIT_SIZE: return "B";
    case UNIT_RATE: return "b/s";
    case UNIT_FREQ: return "1/s";
    case UNIT_LENGTH: return "m";
    case UNIT_POWER: return "W";
    case UNIT_DB: return "dB";
    case UNIT_DBM: return "dBm";
    case UNIT_ATTEN: return "dB/cm";
    case UNIT_EBIT: return "J/b";
    case UNIT_NONE: break;
    }
    return "";
}

/* The units a user is told about when they wrote an unknown one. */
static const char *units_list(unit_kind kind)
{
    switch (kind) {
    case UNIT_TIME: return "ps ns us ms s";
    case UNIT_SIZE: return "B kB MB GB TB KiB MiB GiB";
    case UNIT_RATE: return "b/s kb/s Mb/s Gb/s Tb/s B/s kB/s MB/s GB/s";
    case UNIT_FREQ: return "/s /ms /us Hz kHz MHz GHz";
    case UNIT_LENGTH: return "km m cm mm um";
    case UNIT_POWER: return "W mW uW";
    case UNIT_DB: return "dB";
    case UNIT_DBM: return "dBm";
    case UNIT_ATTEN: return "dB/cm dB/m dB/km";
    case UNIT_EBIT: return "J/b nJ/b pJ/b fJ/b";
    case UNIT_NONE: break;
    }
    return "none";
}

/* "a rate", "an empty ..." - only "a" is needed for our kind names. */
static const char *units_article(unit_kind kind) { return kind == UNIT_NONE ? "a plain" : "a"; }

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Scans [+-]digits[.digits][(e|E)[+-]digits] by hand: strtod alone would
 * also take "inf", "nan" and hex floats, and would swallow the 'e' of a
 * unit. Returns the length of the mantissa (sign, digits, point), sets
 * *total to the length including the exponent, *exp10 to its value
 * (saturated, so adding a unit's exponent cannot overflow). 0 = no number. */
static size_t scan_number(const char *p, size_t *total, long *exp10)
{
    size_t i = 0, digits = 0;
    if (p[i] == '+' || p[i] == '-')
        i++;
    while (isdigit((unsigned char)p[i]))
        i++, digits++;
    if (p[i] == '.') {
        i++;
        while (isdigit((unsigned char)p[i]))
            i++, digits++;
    }
    if (digits == 0)
        return 0;
    size_t mant = i;
    *exp10 = 0;
    if (p[i] == 'e' || p[i] == 'E') {
        size_t j = i + 1;
        int neg = 0;
        if (p[j] == '+' || p[j] == '-')
            neg = p[j++] == '-';
        if (isdigit((unsigned char)p[j])) {
            long e = 0;
            while (isdigit((unsigned char)p[j])) {
                if (e < 100000)
                    e = e * 10 + (p[j] - '0');
                j++;
            }
            *exp10 = neg ? -e : e;
            i = j;
        }
    }
    *total = i;
    return mant;
}

int units_parse(const char *text, unit_kind kind, double *out, char *err, size_t errlen)
{
    if (!text)
        text = "";
    while (is_blank(*text))
        text++;
    size_t tlen = strlen(text);
    while (tlen > 0 && is_blank(text[tlen - 1]))
        tlen--;
    int qlen = tlen > INT_MAX ? INT_MAX : (int)tlen; /* for "%.*s" quoting */

    if (tlen == 0)
        return tn_error(err, errlen, "empty value (expected %s %s such as %s)", units_article(kind),
                        units_kind_name(kind), units_example(kind));

    size_t total = 0;
    long exp10 = 0;
    size_t mant = scan_number(text, &total, &exp10);
    if (mant == 0 || total > tlen)
        return tn_error(err, errlen, "'%.*s' is not a number", qlen, text);

    const char *u = text + total;
    size_t ulen = tlen - total;
    while (ulen > 0 && is_blank(*u))
        u++, ulen--;

    const unit_def *def = NULL;
    if (ulen == 0) {
        if (kind != UNIT_NONE)
            return tn_error(err, errlen, "missing unit (e.g. %s)", units_example(kind));
    } else {
        def = unit_lookup(u, ulen);
        if (kind == UNIT_NONE) {
            if (def)
                return tn_error(err, errlen, "'%.*s' is a %s, expected a plain number (e.g. 1)", qlen,
                                text, units_kind_name(def->kind));
            return tn_error(err, errlen, "unexpected '%.*s' after the number in '%.*s' (expected a plain number such as 1)",
                            (int)ulen, u, qlen, text);
        }
        if (!def)
            return tn_error(err, errlen, "unknown unit '%.*s' in '%.*s' (expected %s %s such as %s; units: %s)",
                            (int)ulen, u, qlen, text, units_article(kind), units_kind_name(kind),
                            units_example(kind), units_list(kind));
        if (def->kind != kind)
            return tn_error(err, errlen, "'%.*s' is a %s, expected a %s (e.g. %s)", qlen, text,
                            units_kind_name(def->kind), units_kind_name(kind), units_example(kind));
    }

    /* One correctly rounded conversion of "<mantissa>e<exponent + unit's>". */
    char buf[512];
    if (mant > sizeof buf - 32)
        return tn_error(err, errlen, "'%.*s' has too many digits", qlen, text);
    long e = exp10 + (def ? def->exp10 : 0);
    snprintf(buf, sizeof buf, "%.*se%ld", (int)mant, text, e);
    double v = strtod(buf, NULL); /* overflow shows up as inf below */
    if (def)
        v *= def->mul;
    if (!isfinite(v))
        return tn_error(err, errlen, "'%.*s' is out of range", qlen, text);
    *out = v;
    return 0;
}

int64_t units_s_to_ps(double seconds)
{
    TN_ASSERT(!isnan(seconds), "time is NaN");
    double ps = seconds * 1e12;
    /* Saturate instead of overflowing: "forever" maps to the end of time. */
    if (ps >= 9.2233720368547758e18)
        return INT64_MAX;
    if (ps <= -9.2233720368547758e18)
        return INT64_MIN;
    return (int64_t)llround(ps);
}

/* Shortest decimal form of |v| that strtod reads back exactly: its digits
 * (no point) and the exponent E of the first digit (v = d.ddd x 10^E). */
static void shortest_digits(double v, char *digits, size_t dlen, int *exp10)
{
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
        if (strtod(buf, NULL) == v || prec == 17)
            break;
    }
    /* buf = d[.ddd]e[+-]XX */
    size_t n = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p) && n + 1 < dlen)
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    *exp10 = *p == 'e' ? atoi(p + 1) : 0;
}

/* Writes digits d1d2.. scaled so the first digit has weight 10^e as a plain
 * decimal when that stays short, else in exponent notation. */
static void place_point(const char *digits, int e, char *out, size_t len)
{
    int nd = (int)strlen(digits);
    if (e >= 21 || e < -7) {
        snprintf(out, len, "%c%s%se%d", digits[0], nd > 1 ? "." : "", digits + 1, e);
        return;
    }
    char tmp[64];
    size_t o = 0;
    if (e < 0) {
        tmp[o++] = '0';
        tmp[o++] = '.';
        for (int z = 0; z < -e - 1; z++)
            tmp[o++] = '0';
        for (int i = 0; i < nd; i++)
            tmp[o++] = digits[i];
    } else {
        for (int i = 0; i <= e || i < nd; i++) {
            if (i == e + 1)
                tmp[o++] = '.';
            tmp[o++] = i < nd ? digits[i] : '0';
        }
    }
    tmp[o] = '\0';
    snprintf(out, len, "%s", tmp);
}

void units_format(double value, unit_kind kind, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    /* Decimal units only, so the printed digits are exactly the shortest
     * round-tripping digits of the value itself; frequencies stay per second
     * because "5000/s" reads better than "5/ms". */
    static const struct {
        const char *name;
        int exp10;
    } time_u[] = {{"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}, {"ps", -12}},
      size_u[] = {{"TB", 12}, {"GB", 9}, {"MB", 6}, {"kB", 3}, {"B", 0}},
      rate_u[] = {{"Tb/s", 12}, {"Gb/s", 9}, {"Mb/s", 6}, {"kb/s", 3}, {"b/s", 0}},
      freq_u[] = {{"/s", 0}}, none_u[] = {{"", 0}},
      length_u[] = {{"km", 3}, {"m", 0}, {"mm", -3}, {"um", -6}},
      power_u[] = {{"W", 0}, {"mW", -3}, {"uW", -6}}, db_u[] = {{"dB", 0}}, dbm_u[] = {{"dBm", 0}},
      atten_u[] = {{"dB/cm", 0}}, ebit_u[] = {{"J/b", 0}, {"nJ/b", -9}, {"pJ/b", -12}, {"fJ/b", -15}};
    const void *tab;
    size_t n;
    switch (kind) {
    case UNIT_TIME: tab = time_u, n = 5; break;
    case UNIT_SIZE: tab = size_u, n = 5; break;
    case UNIT_RATE: tab = rate_u, n = 5; break;
    case UNIT_FREQ: tab = freq_u, n = 1; break;
    case UNIT_LENGTH: tab = length_u, n = 4; break;
    case UNIT_POWER: tab = power_u, n = 3; break;
    case UNIT_DB: tab = db_u, n = 1; break;
    case UNIT_DBM: tab = dbm_u, n = 1; break;
    case UNIT_ATTEN: tab = atten_u, n = 1; break;
    case UNIT_EBIT: tab = ebit_u, n = 4; break;
    default: tab = none_u, n = 1; break;
    }
    const struct {
        const char *name;
        int exp10;
    } *units = tab;

    if (!isfinite(value)) {
        snprintf(buf, len, "%s%s", isnan(value) ? "nan" : value < 0 ? "-inf" : "inf", units[n - 1].name);
        return;
    }
    if (value == 0) {
        snprintf(buf, len, "0%s", units[kind == UNIT_TIME ? 0 : n - 1].name);
        return;
    }
    char digits[32];
    int e;
    shortest_digits(fabs(value), digits, sizeof digits, &e);
    /* Largest unit in which the value is >= 1 (the smallest unit otherwise). */
    size_t k = 0;
    while (k + 1 < n && e < units[k].exp10)
        k++;
    char num[64];
    place_point(digits, e - units[k].exp10, num, sizeof num);
    snprintf(buf, len, "%s%s%s", value < 0 ? "-" : "", num, units[k].name);
}
