#include "dist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "infile.h"
#include "log.h"

#define DIST_FUNCS                                                                               \
    "constant, uniform(a,b), uniform-int(a,b), exponential(mean), normal(mu,sigma), "            \
    "lognormal(median,sigma), empirical(file.csv[,step|linear])"

/* Tolerance on the last cumulative fraction of an empirical table: tables
 * written with 6 decimals do not sum to exactly 1. */
#define DIST_CDF_TOL 1e-6

/* Largest span of uniform-int: gsl_rng_uniform_int needs n <= the
 * generator's range, which is 2^32 - 1 for mt19937. */
#define DIST_INT_SPAN_MAX 4294967295.0

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Copy of s[0..n) without surrounding blanks. */
static char *trimmed_copy(const char *s, size_t n)
{
    while (n > 0 && is_blank(*s))
        s++, n--;
    while (n > 0 && is_blank(s[n - 1]))
        n--;
    char *r = tn_xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

/* Formats the "malformed distribution '...': " prefix then the reason. */
static int dist_fail(char *err, size_t errlen, const char *text, const char *reason)
{
    return tn_error(err, errlen, "malformed distribution '%s': %s", text, reason);
}

/* Parses argument `idx` (1-based) of `fn` as a quantity of `kind`. */
static int parse_arg(const char *text, const char *fn, int idx, const char *arg, unit_kind kind,
                     double *out, char *err, size_t errlen)
{
    char msg[512];
    if (units_parse(arg, kind, out, msg, sizeof msg) == 0)
        return 0;
    char reason[768];
    snprintf(reason, sizeof reason, "%s argument %d: %s", fn, idx, msg);
    return dist_fail(err, errlen, text, reason);
}

/* uniform-int bounds: plain integers, or (for sizes) integers with the
 * variable's unit such as 2kB. */
static int parse_int_arg(const char *text, int idx, const char *arg, unit_kind kind, double *out,
                         char *err, size_t errlen)
{
    char msg[512];
    if (units_parse(arg, UNIT_NONE, out, msg, sizeof msg) != 0 &&
        (kind == UNIT_NONE || units_parse(arg, kind, out, msg, sizeof msg) != 0))
        return parse_arg(text, "uniform-int", idx, arg, UNIT_NONE, out, err, errlen);
    if (floor(*out) != *out) {
        char reason[768];
        snprintf(reason, sizeof reason, "uniform-int argument %d: '%s' is not an integer", idx, arg);
        return dist_fail(err, errlen, text, reason);
    }
    return 0;
}

/* Strict number for CSV fields: the whole field, finite. */
static int csv_number(const char *field, double *out)
{
    char *end;
    while (is_blank(*field))
        field++;
    if (!*field)
        return -1;
    errno = 0;
    double v = strtod(field, &end);
    while (is_blank(*end))
        end++;
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Reads "value,cum" lines of `path` into d->x/d->cdf; messages name the
 * resolved path so a user can see where a relative name was looked up. */
static int load_empirical(dist *d, const char *text, const char *path, char *err, size_t errlen)
{
    char reason[1024];
    /* a table is a file: a device or a pipe (/dev/zero, /dev/stdin) would be
     * read without end, and fopen of a FIFO waits for a writer forever */
    FILE *f = tn_open_input(path, "r", reason, sizeof reason);
    if (!f)
        return dist_fail(err, errlen, text, reason);
    size_t cap = 16, n = 0;
    double *x = tn_xmalloc(cap * sizeof *x), *c = tn_xmalloc(cap * sizeof *c);
    char *line = NULL;
    size_t linecap = 0;
    long lineno = 0;
    int seen_data_line = 0, rc = 0;
    uint64_t digest = 1469598103934665603ULL; /* FNV-1a 64 of the file's bytes */
    ssize_t got;
    while ((got = getline(&line, &linecap, f)) >= 0) {
        for (ssize_t i = 0; i < got; i++) {
            digest ^= (unsigned char)line[i];
            digest *= 1099511628211ULL;
        }
        lineno++;
        char *p = line;
        while (is_blank(*p))
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        double v, cum;
        int first_ok = csv_number(p, &v) == 0;
        if (!seen_data_line && !first_ok) {
            seen_data_line = 1; /* a header line such as "bytes,cdf" */
            continue;
        }
        seen_data_line = 1;
        if (!comma) {
            snprintf(reason, sizeof reason, "%s:%ld: expected 'value,cumulative_fraction'", path, lineno);
            rc = -1;
            break;
        }
        char *second = comma + 1, *comma2 = strchr(second, ',');
        if (comma2)
            *comma2 = '\0'; /* extra columns are ignored */
        if (!first_ok || csv_number(second, &cum) != 0) {
            snprintf(reason, sizeof reason, "%s:%ld: '%s' is not a number", path, lineno,
                     first_ok ? second : p);
            reason[strcspn(reason, "\r\n")] = '\0';
            rc = -1;
            break;
        }
        if (cum < 0 || cum > 1 + DIST_CDF_TOL) {
            snprintf(reason, sizeof reason, "%s:%ld: cumulative fraction %g outside [0,1]", path, lineno, cum);
            rc = -1;
            break;
        }
        if (n > 0 && v < x[n - 1]) {
            snprintf(reason, sizeof reason, "%s:%ld: values must not decrease (%g after %g)", path, lineno,
                     v, x[n - 1]);
            rc = -1;
            break;
        }
        if (n > 0 && cum < c[n - 1]) {
            snprintf(reason, sizeof reason, "%s:%ld: cumulative fractions must not decrease (%g after %g)",
                     path, lineno, cum, c[n - 1]);
            rc = -1;
            break;
        }
        if (n == cap) {
            cap *= 2;
            x = tn_xrealloc(x, cap * sizeof *x);
            c = tn_xrealloc(c, cap * sizeof *c);
        }
        x[n] = v;
        c[n] = cum;
        n++;
    }
    free(line);
    fclose(f);
    if (rc == 0 && n == 0) {
        snprintf(reason, sizeof reason, "%s: no data points (expected lines 'value,cumulative_fraction')", path);
        rc = -1;
    }
    if (rc == 0 && fabs(c[n - 1] - 1.0) > DIST_CDF_TOL) {
        snprintf(reason, sizeof reason, "%s: the last cumulative fraction is %.17g, expected 1", path, c[n - 1]);
        rc = -1;
    }
    if (rc != 0) {
        free(x);
        free(c);
        return dist_fail(err, errlen, text, reason);
    }
    /* Normalise so the table ends at exactly 1: sampling relies on it. */
    double last = c[n - 1];
    for (size_t i = 0; i < n; i++)
        c[i] /= last;
    c[n - 1] = 1.0;
    d->n = n;
    d->x = x;
    d->cdf = c;
    d->digest = digest;
    return 0;
}

/* Splits "a, b ,c" at commas into at most `max` trimmed copies. Returns the
 * count (which may exceed max: the extra ones are not stored). */
static int split_args(const char *s, char **args, int max)
{
    int n = 0;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (n < max)
            args[n] = trimmed_copy(s, len);
        n++;
        if (!comma)
            break;
        s = comma + 1;
    }
    return n;
}

static int parse_function(dist *d, const char *text, const char *fn, const char *argstr,
                          unit_kind unit, const char *basedir, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        dist_kind kind;
        int min_args, max_args;
        const char *usage;
    } funcs[] = {
        {"uniform", DIST_UNIFORM, 2, 2, "uniform(a,b)"},
        {"uniform-int", DIST_UNIFORM_INT, 2, 2, "uniform-int(a,b)"},
        {"exponential", DIST_EXPONENTIAL, 1, 1, "exponential(mean)"},
        {"normal", DIST_NORMAL, 2, 2, "normal(mu,sigma)"},
        {"lognormal", DIST_LOGNORMAL, 2, 2, "lognormal(median,sigma)"},
        {"empirical", DIST_EMPIRICAL, 1, 2, "empirical(file.csv[,step|linear])"},
    };
    size_t fi = 0, nf = sizeof funcs / sizeof funcs[0];
    while (fi < nf && strcmp(funcs[fi].name, fn) != 0)
        fi++;
    char reason[1024];
    if (fi == nf) {
        snprintf(reason, sizeof reason, "unknown function '%s' (expected %s)", fn, DIST_FUNCS);
        return dist_fail(err, errlen, text, reason);
    }
    char *args[2] = {NULL, NULL};
    int nargs = split_args(argstr, args, 2);
    if (nargs == 1 && args[0][0] == '\0')
        nargs = 0;
    int rc = 0;
    if (nargs < funcs[fi].min_args || nargs > funcs[fi].max_args) {
        if (funcs[fi].min_args == funcs[fi].max_args)
            snprintf(reason, sizeof reason, "%s takes %d argument%s: %s, got %d", fn, funcs[fi].min_args,
                     funcs[fi].min_args == 1 ? "" : "s", funcs[fi].usage, nargs);
        else
            snprintf(reason, sizeof reason, "%s takes %d or %d arguments: %s, got %d", fn,
                     funcs[fi].min_args, funcs[fi].max_args, funcs[fi].usage, nargs);
        rc = dist_fail(err, errlen, text, reason);
        goto out;
    }
    for (int i = 0; i < nargs && i < 2; i++)
        if (args[i][0] == '\0') {
            snprintf(reason, sizeof reason, "%s argument %d is empty", fn, i + 1);
            rc = dist_fail(err, errlen, text, reason);
            goto out;
        }
    d->kind = funcs[fi].kind;
    char sa[64], sb[64];
    switch (d->kind) {
    case DIST_UNIFORM:
        if ((rc = parse_arg(text, fn, 1, args[0], unit, &d->a, err, errlen)) != 0 ||
            (rc = parse_arg(text, fn, 2, args[1], unit, &d->b, err, errlen)) != 0)
            goto out;
        if (d->a > d->b) {
            units_format(d->a, unit, sa, sizeof sa);
            units_format(d->b, unit, sb, sizeof sb);
            snprintf(reason, sizeof reason, "uniform needs a <= b (got a = %s > b = %s)", sa, sb);
            rc = dist_fail(err, errlen, text, reason);
        }
        break;
    case DIST_UNIFORM_INT:
        if ((rc = parse_int_arg(text, 1, args[0], unit, &d->a, err, errlen)) != 0 ||
            (rc = parse_int_arg(text, 2, args[1], unit, &d->b, err, errlen)) != 0)
            goto out;
        if (d->a > d->b) {
            snprintf(reason, sizeof reason, "uniform-int needs a <= b (got a = %.17g > b = %.17g)", d->a, d->b);
            rc = dist_fail(err, errlen, text, reason);
        } else if (d->b - d->a >= DIST_INT_SPAN_MAX) {
            snprintf(reason, sizeof reason, "uniform-int range b - a + 1 must be below 2^32 (got %.17g)",
                     d->b - d->a + 1);
            rc = dist_fail(err, errlen, text, reason);
        }
        break;
    case DIST_EXPONENTIAL:
        if ((rc = parse_arg(text, fn, 1, args[0], unit, &d->a, err, errlen)) != 0)
            goto out;
        if (d->a < 0) {
            units_format(d->a, unit, sa, sizeof sa);
            snprintf(reason, sizeof reason, "exponential mean must not be negative (got %s)", sa);
            rc = dist_fail(err, errlen, text, reason);
        }
        break;
    case DIST_NORMAL:
        if ((rc = parse_arg(text, fn, 1, args[0], unit, &d->a, err, errlen)) != 0 ||
            (rc = parse_arg(text, fn, 2, args[1], unit, &d->b, err, errlen)) != 0)
            goto out;
        if (d->b < 0) {
            units_format(d->b, unit, sb, sizeof sb);
            snprintf(reason, sizeof reason, "normal sigma must not be negative (got %s)", sb);
            rc = dist_fail(err, errlen, text, reason);
        }
        break;
    case DIST_LOGNORMAL:
        if ((rc = parse_arg(text, fn, 1, args[0], unit, &d->a, err, errlen)) != 0 ||
            (rc = parse_arg(text, fn, 2, args[1], UNIT_NONE, &d->b, err, errlen)) != 0)
            goto out;
        if (!(d->a > 0)) {
            units_format(d->a, unit, sa, sizeof sa);
            snprintf(reason, sizeof reason, "lognormal median must be positive (got %s)", sa);
            rc = dist_fail(err, errlen, text, reason);
        } else if (d->b < 0) {
            snprintf(reason, sizeof reason, "lognormal sigma must not be negative (got %.17g)", d->b);
            rc = dist_fail(err, errlen, text, reason);
        }
        break;
    case DIST_EMPIRICAL: {
        d->linear = 0;
        if (nargs == 2) {
            if (strcmp(args[1], "linear") == 0)
                d->linear = 1;
            else if (strcmp(args[1], "step") != 0) {
                snprintf(reason, sizeof reason, "empirical mode must be 'step' or 'linear' (got '%s')", args[1]);
                rc = dist_fail(err, errlen, text, reason);
                goto out;
            }
        }
        const char *file = args[0];
        char *path;
        if (file[0] != '/' && basedir && basedir[0]) {
            size_t bl = strlen(basedir), fl = strlen(file);
            path = tn_xmalloc(bl + fl + 2);
            memcpy(path, basedir, bl);
            path[bl] = '/';
            memcpy(path + bl + 1, file, fl + 1);
        } else {
            path = tn_xstrdup(file);
        }
        rc = load_empirical(d, text, path, err, errlen);
        free(path);
        break;
    }
    case DIST_CONST: break;
    }
out:
    free(args[0]);
    free(args[1]);
    return rc;
}

int dist_parse(const char *text, unit_kind unit, const char *basedir, dist *out, char *err,
               size_t errlen)
{
    TN_ASSERT(out != NULL, "dist_parse: out is NULL");
    memset(out, 0, sizeof *out);
    char *t = trimmed_copy(text ? text : "", strlen(text ? text : ""));
    dist d = {.kind = DIST_CONST, .unit = unit};
    int rc;
    char *open = strchr(t, '(');
    if (!open) {
        /* A plain constant: the unit message alone reads best here, it is
         * what a user writing bandwidth="40" expects to see. */
        rc = units_parse(t, unit, &d.a, err, errlen);
    } else {
        size_t tl = strlen(t);
        if (t[tl - 1] != ')') {
            rc = dist_fail(err, errlen, t, "expected ')' at the end");
        } else if (strchr(open + 1, '(') || strchr(open + 1, ')') != t + tl - 1) {
            rc = dist_fail(err, errlen, t, "unbalanced parentheses");
        } else {
            char *fn = trimmed_copy(t, (size_t)(open - t));
            char *argstr = trimmed_copy(open + 1, (size_t)(t + tl - 1 - (open + 1)));
            rc = parse_function(&d, t, fn, argstr, unit, basedir, err, errlen);
            free(fn);
            free(argstr);
        }
    }
    if (rc != 0) {
        free(d.x);
        free(d.cdf);
        free(t);
        return -1;
    }
    d.text = t;
    *out = d;
    return 0;
}

void dist_copy(dist *dst, const dist *src)
{
    *dst = *src;
    dst->text = src->text ? tn_xstrdup(src->text) : NULL;
    if (src->n) {
        dst->x = tn_xmalloc(src->n * sizeof *dst->x);
        dst->cdf = tn_xmalloc(src->n * sizeof *dst->cdf);
        memcpy(dst->x, src->x, src->n * sizeof *dst->x);
        memcpy(dst->cdf, src->cdf, src->n * sizeof *dst->cdf);
    } else {
        dst->x = dst->cdf = NULL;
    }
}

void dist_free(dist *d)
{
    if (!d)
        return;
    free(d->x);
    free(d->cdf);
    free(d->text);
    d->x = d->cdf = NULL;
    d->text = NULL;
    d->n = 0;
    d->digest = 0;
}

void dist_const(dist *d, unit_kind unit, double value)
{
    char buf[64];
    memset(d, 0, sizeof *d);
    d->kind = DIST_CONST;
    d->unit = unit;
    d->a = value;
    units_format(value, unit, buf, sizeof buf);
    d->text = tn_xstrdup(buf);
}

int dist_is_const(const dist *d) { return d->kind == DIST_CONST; }

/* Index of the first point whose cumulative fraction is >= u. */
static size_t cdf_search(const double *c, size_t n, double u)
{
    size_t lo = 0, hi = n - 1; /* c[n-1] = 1 > u, so the answer exists */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c[mid] >= u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

double dist_draw(const dist *d, gsl_rng *r)
{
    switch (d->kind) {
    case DIST_CONST: return d->a;
    case DIST_UNIFORM: return d->a + (d->b - d->a) * gsl_rng_uniform(r);
    case DIST_UNIFORM_INT: {
        unsigned long span = (unsigned long)(d->b - d->a) + 1;
        /* gsl_rng_uniform_int needs n <= max - min; dist_parse keeps spans
         * within mt19937's 2^32 - 1, other generators may be narrower. */
        TN_ASSERT(span <= gsl_rng_max(r) - gsl_rng_min(r), "uniform-int span %lu exceeds the generator's range",
                  span);
        return d->a + (double)gsl_rng_uniform_int(r, span);
    }
    case DIST_EXPONENTIAL: return d->a > 0 ? gsl_ran_exponential(r, d->a) : 0.0;
    case DIST_NORMAL: {
        double v = d->a + gsl_ran_gaussian(r, d->b);
        return v < 0 ? 0.0 : v;
    }
    case DIST_LOGNORMAL: return gsl_ran_lognormal(r, log(d->a), d->b);
    case DIST_EMPIRICAL: {
        double u = gsl_rng_uniform(r);
        size_t i = cdf_search(d->cdf, d->n, u);
        if (!d->linear || i == 0)
            return d->x[i]; /* linear: below cdf[0] is the atom at x[0] */
        double c0 = d->cdf[i - 1], c1 = d->cdf[i];
        if (c1 <= c0)
            return d->x[i];
        return d->x[i - 1] + (d->x[i] - d->x[i - 1]) * (u - c0) / (c1 - c0);
    }
    }
    TN_ASSERT(0, "unknown distribution kind %d", (int)d->kind);
    return 0;
}

double dist_practical_max(const dist *d)
{
    /* P(X > x) = 1e-20: exponential exp(-x/m) -> x = 46.05 m; a standard
     * normal's upper 1e-20 quantile is 9.26 */
    const double tail_exp = 46.06, tail_z = 9.27;
    switch (d->kind) {
    case DIST_CONST: return d->a;
    case DIST_UNIFORM:
    case DIST_UNIFORM_INT: return d->b;
    case DIST_EXPONENTIAL: return tail_exp * d->a;
    case DIST_NORMAL: return d->a + tail_z * d->b;
    case DIST_LOGNORMAL: return d->a * exp(tail_z * d->b);
    case DIST_EMPIRICAL: return d->n ? d->x[d->n - 1] : 0;
    }
    TN_ASSERT(0, "unknown distribution kind %d", (int)d->kind);
    return 0;
}

double dist_mean(const dist *d)
{
    switch (d->kind) {
    case DIST_CONST: return d->a;
    case DIST_UNIFORM:
    case DIST_UNIFORM_INT: return 0.5 * (d->a + d->b);
    case DIST_EXPONENTIAL: return d->a;
    case DIST_NORMAL: {
        /* E[max(X,0)] for X ~ N(mu, sigma^2). */
        double mu = d->a, sigma = d->b;
        if (sigma == 0)
            return mu > 0 ? mu : 0.0;
        double z = mu / sigma;
        return mu * gsl_cdf_ugaussian_P(z) + sigma * gsl_ran_ugaussian_pdf(z);
    }
    case DIST_LOGNORMAL: return d->a * exp(0.5 * d->b * d->b);
    case DIST_EMPIRICAL: {
        double m = d->x[0] * d->cdf[0];
        for (size_t i = 1; i < d->n; i++) {
            double p = d->cdf[i] - d->cdf[i - 1];
            m += p * (d->linear ? 0.5 * (d->x[i - 1] + d->x[i]) : d->x[i]);
        }
        return m;
    }
    }
    TN_ASSERT(0, "unknown distribution kind %d", (int)d->kind);
    return 0;
}
