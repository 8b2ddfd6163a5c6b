/* Parameter values: parsing with units and ranges, storing into a module's
 * params struct, formatting back to text, copies and releases. */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"
#include "infile.h"
#include "log.h"


static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = tn_xmalloc((size_t)(n < 0 ? 0 : n) + 1);
    vsnprintf(s, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    va_end(ap);
    return s;
}

const char *param_attr(const param_row *r)
{
    const char *dot = strrchr(r->path, '.');
    return dot ? dot + 1 : r->path;
}

/* ------------------------------------------------------------- parsing */

static int parse_integer(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                         size_t errlen)
{
    char *t = tn_xstrdup_trim(text);
    int rc = 0;
    size_t n = strlen(t), digits = strspn(t, "0123456789");
    if (n == 0) {
        rc = tn_error(err, errlen, "empty value (expected an integer such as 100)");
    } else if (t[0] == '-' && n > 1 && strspn(t + 1, "0123456789") == n - 1) {
        rc = min == 0 ? tn_error(err, errlen, "must not be negative")
                      : tn_error(err, errlen, "must be at least %llu", (unsigned long long)min);
    } else if (digits == n) {
        errno = 0;
        unsigned long long v = strtoull(t, NULL, 10);
        if (errno == ERANGE || v > max)
            rc = tn_error(err, errlen, "must be at most %llu", (unsigned long long)max);
        else if (v < min)
            rc = tn_error(err, errlen, "must be at least %llu", (unsigned long long)min);
        else
            *out = v;
    } else {
        /* "1e6" is a convenient way to write a million jobs. */
        double v;
        if (units_parse(t, UNIT_NONE, &v, err, errlen) != 0)
            rc = -1;
        else if (floor(v) != v)
            rc = tn_error(err, errlen, "'%s' is not an integer", t);
        else if (v < (double)min)
            rc = min == 0 ? tn_error(err, errlen, "must not be negative")
                          : tn_error(err, errlen, "must be at least %llu", (unsigned long long)min);
        else if (v >= 18446744073709551616.0 || (uint64_t)v > max)
            rc = tn_error(err, errlen, "must be at most %llu", (unsigned long long)max);
        else
            *out = (uint64_t)v;
    }
    free(t);
    return rc;
}

static int check_sign(double v, unsigned flags, char *err, size_t errlen)
{
    if ((flags & PARAM_POS) && !(v > 0))
        return tn_error(err, errlen, "must be greater than 0");
    if ((flags & PARAM_NONNEG) && v < 0)
        return tn_error(err, errlen, "must not be negative");
    return 0;
}

/* drawn: 0 a value, 1 the largest value of a bounded distribution, 2 the
 * largest likely draw of an unbounded one (dist_practical_max). */
static int check_magnitude(const param_row *r, unit_kind unit, double v, int drawn, char *err, size_t errlen)
{
    double max;
    switch (unit) {
    case UNIT_TIME: max = PARAM_MAX_TIME_S; break;
    case UNIT_SIZE: max = PARAM_MAX_SIZE_B; break;
    case UNIT_LENGTH: max = PARAM_MAX_LENGTH_M; break;
    default:
        if (!(r->flags & PARAM_MIN1))
            return 0;
        unit = UNIT_NONE;
        max = PARAM_MAX_COUNT;
        break;
    }
    if (v <= max)
        return 0;
    char a[64], b[64];
    units_format(v, unit, a, sizeof a);
    units_format(max, unit, b, sizeof b);
    /* a count is named by its attribute ("vertices"), a quantity by its kind */
    const char *what = unit == UNIT_NONE ? "count" : units_kind_name(unit);
    char per[72] = "";
    if (unit == UNIT_NONE)
        snprintf(per, sizeof per, " %s", param_attr(r));
    if (drawn == 2) /* an unbounded distribution: its largest likely draw */
        return tn_error(err, errlen, "can draw up to %s%s (one draw in 10^20), more than the largest %s "
                        "tasknet simulates, %s%s", a, per, what, b, per);
    if (drawn == 1) /* a bounded one: its largest value */
        return tn_error(err, errlen, "can draw %s%s, more than the largest %s tasknet simulates, %s%s", a, per,
                        what, b, per);
    return tn_error(err, errlen, "%s%s is more than the largest %s tasknet simulates, %s%s", a, per, what, b, per);
}

/* Distribution bounds dist_parse leaves to the caller: only normal() may
 * draw negative values (it is clamped at 0); nothing may draw beyond
 * check_magnitude's limits. */
static int check_dist_range(const param_row *r, const dist *d, char *err, size_t errlen)
{
    int tail = d->kind == DIST_EXPONENTIAL || d->kind == DIST_NORMAL || d->kind == DIST_LOGNORMAL;
    if (check_magnitude(r, d->unit, dist_practical_max(d), tail ? 2 : d->kind == DIST_CONST ? 0 : 1, err,
                        errlen) != 0)
        return -1;
    double lo;
    switch (d->kind) {
    case DIST_CONST:
    case DIST_UNIFORM:
    case DIST_UNIFORM_INT: lo = d->a; break;
    case DIST_EMPIRICAL: lo = d->n ? d->x[0] : 0; break;
    default: return 0; /* exponential, lognormal: >= 0; normal: clamped */
    }
    char v[64];
    units_format(lo, d->unit, v, sizeof v);
    const char *note = r->note ? r->note : "";
    if ((r->flags & PARAM_MIN1) && lo < 1) {
        char one[64];
        units_format(1, d->unit, one, sizeof one);
        if (d->kind == DIST_CONST)
            return tn_error(err, errlen, "must be at least %s%s%s%s", one, note[0] ? " (" : "", note,
                            note[0] ? ")" : "");
        return tn_error(err, errlen, "can draw %s, below %s%s%s%s", v, one, note[0] ? " (" : "", note,
                        note[0] ? ")" : "");
    }
    if ((r->flags & PARAM_NONNEG) && lo < 0) {
        const char *what = units_kind_name(d->unit);
        if (d->kind == DIST_CONST)
            return tn_error(err, errlen, "must not be negative");
        return tn_error(err, errlen,
                        "can draw %s: a %s must not be negative (only normal(mu,sigma) may, its "
                        "samples being clamped at 0)",
                        v, what);
    }
    return 0;
}

/* Whitespace- or comma-separated integers, each >= r->min, at most r->max
 * of them (and PARAM_LIST_MAX). */
static int parse_list(const param_row *r, const char *text, param_value *v, char *err, size_t errlen)
{
    const char *p = text, *name = param_attr(r);
    uint32_t n = 0, cap = r->max && r->max < PARAM_LIST_MAX ? (uint32_t)r->max : PARAM_LIST_MAX;
    const char *ex = r->example ? r->example : "1 2";
    for (;;) {
        while (tn_is_space(*p) || *p == ',')
            p++;
        if (!*p)
            break;
        size_t len = 0;
        while (p[len] && !tn_is_space(p[len]) && p[len] != ',')
            len++;
        if (n == cap)
            return tn_error(err, errlen, "%s has more than %u entries", name, cap);
        char tok[32];
        int ok = len < sizeof tok && strspn(p, "0123456789") >= len;
        unsigned long long k = 0;
        if (ok) {
            memcpy(tok, p, len);
            tok[len] = '\0';
            errno = 0;
            k = strtoull(tok, NULL, 10);
            ok = errno != ERANGE && k <= UINT32_MAX;
        }
        if (!ok)
            return tn_error(err, errlen, "%s element %u '%.*s' is not a non-negative integer (e.g. \"%s\")", name,
                            n + 1, (int)(len > 40 ? 40 : len), p, ex);
        if (k < r->min) {
            if (r->note)
                return tn_error(err, errlen, "%s contains %llu at position %u: %s", name, k, n + 1, r->note);
            return tn_error(err, errlen, "%s contains %llu at position %u: each must be at least %llu", name, k,
                            n + 1, (unsigned long long)r->min);
        }
        v->list[n++] = (uint32_t)k;
        p += len;
    }
    if (n == 0)
        return tn_error(err, errlen, "empty %s (e.g. \"%s\")", name, ex);
    v->nlist = n;
    return 0;
}

static void normalize_path(char *p);

/* A file relative to basedir (or absolute), else a bare name in the data
 * directory; "" is "not given". */
static int parse_file(const char *text, const char *basedir, param_file *f, char *err, size_t errlen)
{
    char *t = tn_xstrdup_trim(text);
    int rc = 0;
    char cand[PARAM_PATH_MAX], e2[PARAM_PATH_MAX + 256];
    if (!t[0]) {
        /* not given */
    } else if (strlen(t) >= sizeof f->text) {
        rc = tn_error(err, errlen, "file name '%.40s...' is longer than %zu characters", t, sizeof f->text - 1);
    } else {
        memcpy(f->text, t, strlen(t) + 1);
        int n = t[0] == '/' ? snprintf(cand, sizeof cand, "%s", t)
                            : snprintf(cand, sizeof cand, "%s/%s", basedir && basedir[0] ? basedir : ".", t);
        if (n < 0 || (size_t)n >= sizeof cand) {
            rc = tn_error(err, errlen, "path of '%s' too long", t);
        } else if (access(cand, R_OK) != 0 &&
                   (strchr(t, '/') || tn_data_path(t, cand, sizeof cand, e2, sizeof e2) != 0)) {
            if (t[0] == '/')
                rc = tn_error(err, errlen, "cannot read '%s': %s", t, strerror(errno));
            else if (strchr(t, '/')) /* say where it looked: --set values too are from the configuration's folder */
                rc = tn_error(err, errlen, "cannot read '%s' (a relative path is from the configuration's folder: "
                              "%s: %s)", t, cand, strerror(errno));
            else
                rc = tn_error(err, errlen, "cannot read '%s' (%s)", t, e2);
        } else {
            /* absolute, so a written configuration runs from any folder */
            if (param_abs_path(cand, f->path, sizeof f->path) != 0)
                snprintf(f->path, sizeof f->path, "%s", cand);
            /* its contents, not its name, make a run (a file named relatively
             * here and absolutely in a written config.xml is the same input) */
            char why[PARAM_PATH_MAX + 128];
            FILE *in = tn_open_input(cand, "rb", why, sizeof why);
            if (!in) {
                rc = errno == EINVAL ? tn_error(err, errlen, "%s", why)
                                     : tn_error(err, errlen, "cannot read '%s': %s", t, strerror(errno));
            } else {
                uint64_t h = 1469598103934665603ULL;
                unsigned char buf[4096];
                size_t got;
                while ((got = fread(buf, 1, sizeof buf, in)) > 0)
                    for (size_t i = 0; i < got; i++)
                        h = (h ^ buf[i]) * 1099511628211ULL;
                if (ferror(in))
                    rc = tn_error(err, errlen, "cannot read '%s': %s", t, strerror(errno));
                fclose(in);
                f->digest = h ? h : 1;
            }
        }
    }
    free(t);
    return rc;
}

int param_parse(const param_row *r, const char *text, const char *basedir, param_value *v, char *err,
                size_t errlen)
{
    memset(v, 0, sizeof *v);
    if (!text)
        text = "";
    /* The kinds whose parsers take "" (text, names, files: "not given"):
     * where the default is not empty, an empty value is a slip, and the
     * writer, which leaves empty values out, would write it as the default
     * (AFL++ found workload.nodes, the empty-value scan network.file). */
    if ((r->kind == PARAM_TEXT || r->kind == PARAM_NAME || r->kind == PARAM_FILE) && r->def && r->def[0] &&
        !text[strspn(text, " \t\r\n")])
        return tn_error(err, errlen, "empty: expected %s (default %s)", r->kind == PARAM_FILE ? "a file name" : "a value",
                        r->def);
    switch (r->kind) {
    case PARAM_U32:
    case PARAM_U64:
        if (parse_integer(text, r->min, r->max, &v->u, err, errlen) != 0) {
            if (r->note && strncmp(err, "must be", 7) == 0) {
                size_t n = strlen(err);
                snprintf(err + n, errlen > n ? errlen - n : 0, " (%s)", r->note);
            }
            return -1;
        }
        return 0;
    case PARAM_REAL:
        if (units_parse(text, r->dim, &v->d, err, errlen) != 0 || check_sign(v->d, r->flags, err, errlen) != 0)
            return -1;
        return check_magnitude(r, r->dim, v->d, 0, err, errlen);
    case PARAM_PS: {
        double s;
        if (units_parse(text, UNIT_TIME, &s, err, errlen) != 0 || check_sign(s, r->flags, err, errlen) != 0 ||
            check_magnitude(r, UNIT_TIME, s, 0, err, errlen) != 0)
            return -1;
        v->ps = units_s_to_ps(s);
        if ((r->flags & PARAM_POS) && v->ps <= 0)
            return tn_error(err, errlen, "must be at least 1ps");
        return 0;
    }
    case PARAM_BYTES: {
        double b;
        if (units_parse(text, UNIT_SIZE, &b, err, errlen) != 0 || check_sign(b, r->flags, err, errlen) != 0)
            return -1;
        if (check_magnitude(r, UNIT_SIZE, b, 0, err, errlen) != 0)
            return -1;
        v->u = (uint64_t)llround(b);
        if ((r->flags & PARAM_POS) && v->u == 0)
            return tn_error(err, errlen, "must be at least 1B");
        return 0;
    }
    case PARAM_DIST: {
        /* a name the owner knows stands for its distribution, keeping the name as its text */
        char *name = r->dist_name ? tn_xstrdup_trim(text) : NULL;
        char spec[PARAM_PATH_MAX + 64];
        int known = name ? r->dist_name(name, spec, sizeof spec, err, errlen) : 0;
        int rc = known < 0 ? -1 : dist_parse(known ? spec : text, r->dim, basedir ? basedir : ".", &v->dist, err, errlen);
        if (rc == 0 && known) {
            free(v->dist.text);
            v->dist.text = name;
            name = NULL;
        }
        free(name);
        if (rc != 0)
            return -1;
        if (check_dist_range(r, &v->dist, err, errlen) != 0) {
            dist_free(&v->dist);
            return -1;
        }
        return 0;
    }
    case PARAM_FILE:
        return parse_file(text, basedir, &v->file, err, errlen);
    case PARAM_CHOICE: {
        char *t = tn_xstrdup_trim(text);
        size_t n = 0, len = 1;
        while (r->choices[n])
            len += strlen(r->choices[n++]) + 2;
        for (size_t i = 0; i < n; i++)
            if (strcmp(t, r->choices[i]) == 0) {
                v->choice = (int)i;
                free(t);
                return 0;
            }
        free(t);
        char *list = tn_xmalloc(len);
        list[0] = '\0';
        for (size_t i = 0; i < n; i++) {
            if (!r->choices[i][0])
                continue; /* a PARAM_UNSET0 row's unnamed "not given" */
            if (list[0])
                strcat(list, ", ");
            strcat(list, r->choices[i]);
        }
        tn_error(err, errlen, "unknown value (expected one of: %s)", list);
        free(list);
        return -1;
    }
    case PARAM_NAME: {
        char *t = tn_xstrdup_trim(text);
        int rc = 0;
        if (r->name_ok && r->name_ok(t, err, errlen) != 0)
            rc = -1;
        else if (strlen(t) >= sizeof v->name)
            rc = tn_error(err, errlen, "'%.40s' is longer than %d characters", t, PARAM_NAME_MAX - 1);
        else
            memcpy(v->name, t, strlen(t) + 1);
        free(t);
        return rc;
    }
    case PARAM_U32_LIST:
        return parse_list(r, text, v, err, errlen);
    case PARAM_TEXT: {
        char *t = tn_xstrdup_trim(text);
        if (r->name_ok && r->name_ok(t, err, errlen) != 0) {
            free(t);
            return -1;
        }
        if (strlen(t) >= r->max) {
            tn_error(err, errlen, "'%.40s...' is longer than %llu characters", t, (unsigned long long)(r->max - 1));
            free(t);
            return -1;
        }
        v->text = t;
        return 0;
    }
    }
    TN_ASSERT(0, "unknown parameter kind %d", (int)r->kind);
    return -1;
}

void param_value_free(param_value *v)
{
    dist_free(&v->dist);
    free(v->text);
    v->text = NULL;
}

/* ------------------------------------------------------------- storing */

void param_store(void *block, const param_row *r, param_value *v)
{
    void *f = (char *)block + r->off;
    switch (r->kind) {
    case PARAM_U32: {
        uint32_t u = (uint32_t)v->u;
        memcpy(f, &u, sizeof u);
        break;
    }
    case PARAM_U64:
    case PARAM_BYTES: memcpy(f, &v->u, sizeof v->u); break;
    case PARAM_REAL: memcpy(f, &v->d, sizeof v->d); break;
    case PARAM_PS: memcpy(f, &v->ps, sizeof v->ps); break;
    case PARAM_DIST:
        dist_free(f);
        memcpy(f, &v->dist, sizeof v->dist);
        memset(&v->dist, 0, sizeof v->dist);
        break;
    case PARAM_CHOICE: memcpy(f, &v->choice, sizeof v->choice); break;
    case PARAM_NAME: memcpy(f, v->name, sizeof v->name); break;
    case PARAM_TEXT:
        snprintf(f, r->max, "%s", v->text ? v->text : "");
        free(v->text);
        v->text = NULL;
        break;
    case PARAM_U32_LIST:
        memcpy(f, v->list, v->nlist * sizeof v->list[0]);
        memcpy((char *)block + r->count_off, &v->nlist, sizeof v->nlist);
        break;
    case PARAM_FILE: memcpy(f, &v->file, sizeof v->file); break;
    }
}

uint64_t param_digest(const void *block, const param_row *r)
{
    if (r->kind == PARAM_FILE)
        return ((const param_file *)((const char *)block + r->off))->digest;
    if (r->kind != PARAM_DIST)
        return 0;
    return ((const dist *)((const char *)block + r->off))->digest;
}

int param_is_set(const void *block, const param_row *r)
{
    const char *f = (const char *)block + r->off;
    switch (r->kind) {
    case PARAM_DIST: return ((const dist *)f)->text != NULL;
    case PARAM_U32_LIST: {
        uint32_t n;
        memcpy(&n, (const char *)block + r->count_off, sizeof n);
        return n > 0;
    }
    case PARAM_NAME:
    case PARAM_TEXT: return f[0] != '\0';
    case PARAM_FILE: return ((const param_file *)f)->text[0] != '\0';
    default: break;
    }
    if (!(r->flags & PARAM_UNSET0))
        return 1;
    switch (r->kind) {
    case PARAM_U32: {
        uint32_t u;
        memcpy(&u, f, sizeof u);
        return u != 0;
    }
    case PARAM_U64:
    case PARAM_BYTES: {
        uint64_t u;
        memcpy(&u, f, sizeof u);
        return u != 0;
    }
    case PARAM_REAL: {
        double d;
        memcpy(&d, f, sizeof d);
        return d != 0;
    }
    case PARAM_PS: {
        int64_t ps;
        memcpy(&ps, f, sizeof ps);
        return ps != 0;
    }
    case PARAM_CHOICE: {
        int k;
        memcpy(&k, f, sizeof k);
        return k != 0;
    }
    default: return 1;
    }
}

void param_clear(void *block, const param_row *r)
{
    char *f = (char *)block + r->off;
    switch (r->kind) {
    case PARAM_U32: memset(f, 0, sizeof(uint32_t)); break;
    case PARAM_U64:
    case PARAM_BYTES: memset(f, 0, sizeof(uint64_t)); break;
    case PARAM_REAL: {
        double z = 0;
        memcpy(f, &z, sizeof z);
        break;
    }
    case PARAM_PS: memset(f, 0, sizeof(int64_t)); break;
    case PARAM_DIST: dist_free((dist *)f); memset(f, 0, sizeof(dist)); break;
    case PARAM_CHOICE: memset(f, 0, sizeof(int)); break;
    case PARAM_NAME: memset(f, 0, PARAM_NAME_MAX); break;
    case PARAM_TEXT: memset(f, 0, r->max); break;
    case PARAM_U32_LIST: memset((char *)block + r->count_off, 0, sizeof(uint32_t)); break;
    case PARAM_FILE: memset(f, 0, sizeof(param_file)); break;
    }
}

/* ---------------------------------------------------------- formatting */

/* Drop "." and "dir/.." components of an absolute path, in place: the
 * written configuration should name files the way a person would. */
static void normalize_path(char *p)
{
    size_t n = strlen(p), o = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && p[i] == '/')
            i++;
        size_t j = i;
        while (j < n && p[j] != '/')
            j++;
        size_t len = j - i;
        if (len == 0 || (len == 1 && p[i] == '.')) {
            /* nothing */
        } else if (len == 2 && p[i] == '.' && p[i + 1] == '.') {
            while (o > 0 && p[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            p[o++] = '/';
            memmove(p + o, p + i, len);
            o += len;
        }
        i = j;
    }
    if (o == 0)
        p[o++] = '/';
    p[o] = '\0';
}

int param_abs_path(const char *p, char *out, size_t outlen)
{
    char cwd[4096];
    int n = p[0] == '/' ? snprintf(out, outlen, "%s", p)
            : getcwd(cwd, sizeof cwd) ? snprintf(out, outlen, "%s/%s", cwd, p[0] ? p : ".") : -1;
    if (n < 0 || (size_t)n >= outlen)
        return -1;
    normalize_path(out);
    return 0;
}

/* empirical(FILE[,mode]) with FILE made absolute from absdir, so the
 * written configuration runs from any folder. */
static char *absolute_empirical(const dist *d, const char *absdir)
{
    const char *open = strchr(d->text, '(');
    const char *fstart = open ? open + 1 : NULL;
    while (fstart && tn_is_space(*fstart))
        fstart++;
    if (!fstart || *fstart == '/')
        return tn_xstrdup(d->text);
    size_t flen = strcspn(fstart, ",)");
    while (flen > 0 && tn_is_space(fstart[flen - 1]))
        flen--;
    char *rel = format("%s/%.*s", absdir[0] ? absdir : ".", (int)flen, fstart);
    char joined[8192];
    int bad = param_abs_path(rel, joined, sizeof joined);
    free(rel);
    if (bad)
        return tn_xstrdup(d->text);
    return format("empirical(%s%s", joined, fstart + strcspn(fstart, ",)"));
}

char *param_format(const void *block, const param_row *r, const char *absdir)
{
    const void *f = (const char *)block + r->off;
    char buf[96];
    if ((r->flags & PARAM_UNSET0) && !param_is_set(block, r))
        return tn_xstrdup("");
    switch (r->kind) {
    case PARAM_U32: {
        uint32_t u;
        memcpy(&u, f, sizeof u);
        return format("%lu", (unsigned long)u);
    }
    case PARAM_U64: {
        uint64_t u;
        memcpy(&u, f, sizeof u);
        return format("%llu", (unsigned long long)u);
    }
    case PARAM_BYTES: {
        uint64_t u;
        memcpy(&u, f, sizeof u);
        units_format((double)u, UNIT_SIZE, buf, sizeof buf);
        return tn_xstrdup(buf);
    }
    case PARAM_REAL: {
        double d;
        memcpy(&d, f, sizeof d);
        units_format(d, r->dim, buf, sizeof buf);
        return tn_xstrdup(buf);
    }
    case PARAM_PS: {
        int64_t ps;
        memcpy(&ps, f, sizeof ps);
        /* ps / 1e12, correctly rounded: 200 ms prints as 200ms (ps x 1e-12 gives 199.99999999999998ms) */
        units_format((double)ps / 1e12, UNIT_TIME, buf, sizeof buf);
        return tn_xstrdup(buf);
    }
    case PARAM_DIST: {
        const dist *d = f;
        if (!d->text)
            return tn_xstrdup("");
        if (!absdir || d->kind != DIST_EMPIRICAL)
            return tn_xstrdup(d->text);
        return absolute_empirical(d, absdir);
    }
    case PARAM_CHOICE: {
        int k;
        memcpy(&k, f, sizeof k);
        return tn_xstrdup(r->choices[k]);
    }
    case PARAM_NAME: {
        char name[PARAM_NAME_MAX];
        memcpy(name, f, sizeof name);
        name[PARAM_NAME_MAX - 1] = '\0';
        return tn_xstrdup(name);
    }
    case PARAM_TEXT: {
        char *t = tn_xmalloc(r->max + 1);
        memcpy(t, f, r->max);
        t[r->max] = '\0';
        return t;
    }
    case PARAM_U32_LIST: {
        uint32_t n;
        memcpy(&n, (const char *)block + r->count_off, sizeof n);
        char *s = tn_xmalloc(12 * (size_t)n + 1);
        size_t o = 0;
        s[0] = '\0';
        for (uint32_t i = 0; i < n; i++) {
            uint32_t x;
            memcpy(&x, (const char *)f + i * sizeof x, sizeof x);
            o += (size_t)sprintf(s + o, "%s%lu", i ? " " : "", (unsigned long)x);
        }
        return s;
    }
    case PARAM_FILE: {
        const param_file *pf = f;
        return tn_xstrdup(absdir && pf->path[0] ? pf->path : pf->text);
    }
    }
    TN_ASSERT(0, "unknown parameter kind %d", (int)r->kind);
    return NULL;
}

/* ------------------------------------------------------- whole structs */

void param_block_defaults(void *block, const param_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].def || !rows[i].def[0])
            continue;
        param_value v;
        char err[256];
        int rc = param_parse(&rows[i], rows[i].def, NULL, &v, err, sizeof err);
        TN_ASSERT(rc == 0, "default of %s '%s' does not parse: %s", rows[i].path, rows[i].def, err);
        param_store(block, &rows[i], &v);
    }
}

void param_block_copy(void *dst, const void *src, size_t size, const param_row *rows, size_t n)
{
    memcpy(dst, src, size);
    for (size_t i = 0; i < n; i++)
        if (rows[i].kind == PARAM_DIST)
            dist_copy((dist *)((char *)dst + rows[i].off), (const dist *)((const char *)src + rows[i].off));
}

void param_block_free(void *block, const param_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].kind == PARAM_DIST) {
            dist *d = (dist *)((char *)block + rows[i].off);
            dist_free(d);
            memset(d, 0, sizeof *d);
        }
}

/* ------------------------------------------------------------- reports */

void param_invalid(param_report *r, const char *path, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *msg = tn_xmalloc((size_t)(n < 0 ? 0 : n) + 1);
    vsnprintf(msg, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    va_end(ap);
    r->n++;
    r->invalid(r->ctx, path, msg);
    free(msg);
}

void param_missing(param_report *r, const char *path, const char *why)
{
    r->n++;
    r->missing(r->ctx, path, why);
}

static void first_invalid(void *ctx, const char *path, const char *msg)
{
    param_first *f = ctx;
    if (f->rep.n == 1)
        tn_error(f->err, f->errlen, "%s: %s", path, msg);
}

static void first_missing(void *ctx, const char *path, const char *why)
{
    param_first *f = ctx;
    if (f->rep.n == 1)
        tn_error(f->err, f->errlen, "missing %s (%s)", path, why);
}

param_report *param_report_first(param_first *f, char *err, size_t errlen)
{
    f->rep = (param_report){.invalid = first_invalid, .missing = first_missing, .ctx = f};
    f->err = err;
    f->errlen = errlen;
    if (errlen)
        err[0] = '\0';
    return &f->rep;
}
