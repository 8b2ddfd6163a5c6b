/* Sweep axes and points: the cartesian product of the lead axes (first
 * varying slowest), axes that vary together with a lead, and the
 * configuration of one point, built (cfg_build_point; cfg_point in
 * config_check.c cross-checks it). The axes' storage: config_rows.c. */
#include "config_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "log.h"
#include "units.h"

/* The axis whose position axis `a` follows: itself, or the lead it varies with. */
size_t cfg_axis_lead(const cfg *c, size_t a)
{
    int l = c->axes[a].with[0] ? cfg_axis_of(c, c->axes[a].with) : -1;
    return l >= 0 ? (size_t)l : a;
}

size_t cfg_points(const cfg *c)
{
    if (c->point)
        return 1;
    size_t n = 1;
    for (size_t a = 0; a < c->naxes; a++)
        if (cfg_axis_lead(c, a) == a)
            n *= c->axes[a].nvalues;
    return n;
}

/* Only lead axes span the product; the first varies slowest. */
static size_t axis_index(const cfg *c, size_t i, size_t axis)
{
    axis = cfg_axis_lead(c, axis);
    size_t stride = 1;
    for (size_t a = c->naxes; a-- > axis + 1;)
        if (cfg_axis_lead(c, a) == a)
            stride *= c->axes[a].nvalues;
    return (i / stride) % c->axes[axis].nvalues;
}

static int drop_one_axis(cfg *c, const char *path)
{
    int d = cfg_axis_of(c, path);
    if (d < 0)
        return 0;
    cfg_axis *ax = &c->axes[d];
    /* its first follower leads the others */
    char heir[64] = "";
    for (size_t a = 0; a < c->naxes; a++) {
        if (strcmp(c->axes[a].with, path) != 0)
            continue;
        if (!heir[0]) {
            snprintf(heir, sizeof heir, "%s", c->axes[a].param);
            c->axes[a].with[0] = '\0';
        } else {
            snprintf(c->axes[a].with, sizeof c->axes[a].with, "%s", heir);
        }
    }
    for (size_t v = 0; v < ax->nvalues; v++)
        free(ax->values[v]);
    free(ax->values);
    memmove(ax, ax + 1, (c->naxes - (size_t)d - 1) * sizeof *ax);
    c->naxes--;
    return 1;
}

int cfg_drop_axis(cfg *c, const char *path)
{
    /* fixing B fixes zeta too (one replaces the other), and the reverse */
    int n = drop_one_axis(c, path);
    long r = crow_find(path);
    const char *alt = r >= 0 ? crow_at((size_t)r)->row->alt : NULL;
    for (size_t i = 0; r >= 0 && i < crow_count(); i++) {
        const param_row *row = crow_at(i)->row;
        if ((alt && strcmp(row->path, alt) == 0) || (row->alt && strcmp(row->alt, path) == 0))
            n |= drop_one_axis(c, row->path);
    }
    return n;
}

const char *cfg_point_value(const cfg *base, size_t i, size_t axis)
{
    if (axis >= base->naxes || base->axes[axis].nvalues == 0)
        return "";
    if (base->point)
        i = base->point - 1;
    else if (i >= cfg_points(base))
        return "";
    return base->axes[axis].values[axis_index(base, i, axis)];
}

size_t cfg_point_moved(const cfg *base, size_t i, size_t axis, size_t v)
{
    size_t lead = cfg_axis_lead(base, axis), stride = 1;
    for (size_t a = base->naxes; a-- > lead + 1;)
        if (cfg_axis_lead(base, a) == a)
            stride *= base->axes[a].nvalues;
    return i - axis_index(base, i, lead) * stride + v * stride;
}

int cfg_build_point(const cfg *base, size_t i, cfg *out, char *err, size_t errlen)
{
    cfg_copy(out, base);
    out->point = i + 1;
    for (size_t a = 0; a < base->naxes; a++) {
        const char *v = base->axes[a].values[axis_index(base, i, a)];
        char e2[1024];
        if (base->axes[a].with[0] && strcmp(v, CFG_AXIS_UNSET) == 0)
            continue; /* not set at this point: the configuration's own value */
        if (cfg_set(out, base->axes[a].param, v, e2, sizeof e2) != 0) {
            cfg_free(out);
            return tn_error(err, errlen, "sweep axis %s, value '%s': %s", base->axes[a].param, v, e2);
        }
    }
    return 0;
}

/* The unit kind of axis a's values, or -1 when they are not a quantity
 * with a unit (plain numbers, names, lists, distributions). */
static int axis_unit(const cfg *c, size_t a)
{
    long row;
    size_t k;
    char err[256];
    if (a >= c->naxes || crow_resolve(c, c->axes[a].param, &row, &k, err, sizeof err) != 0 || row < 0)
        return -1;
    const param_row *r = crow_at((size_t)row)->row;
    switch (r->kind) {
    case PARAM_PS: return UNIT_TIME;
    case PARAM_BYTES: return UNIT_SIZE;
    case PARAM_REAL: return r->dim == UNIT_NONE ? -1 : (int)r->dim;
    default: return -1;
    }
}

const char *cfg_axis_si_unit(const cfg *c, size_t a)
{
    switch (axis_unit(c, a)) {
    case UNIT_TIME: return "s";
    case UNIT_SIZE: return "bytes";
    case UNIT_RATE: return "bps";
    case UNIT_FREQ: return "per_s";
    case UNIT_LENGTH: return "m";
    case UNIT_POWER: return "w";
    case UNIT_DB: return "db";
    case UNIT_DBM: return "dbm";
    case UNIT_ATTEN: return "db_per_cm";
    case UNIT_EBIT: return "j_per_bit";
    default: return NULL;
    }
}

int cfg_point_si(const cfg *c, size_t p, size_t a, double *v)
{
    int u = axis_unit(c, a);
    char err[256];
    if (u < 0 || units_parse(cfg_point_value(c, p, a), (unit_kind)u, v, err, sizeof err) != 0)
        return -1;
    return 0;
}

/* Whether text names parameter path as a whole word ("raise
 * network.bandwidth or ..."; not network.bandwidth-share). */
int cfg_names_path(const char *text, const char *path)
{
    size_t n = strlen(path);
    for (const char *s = text; n && (s = strstr(s, path)); s++) {
        char before = s == text ? ' ' : s[-1], after = s[n];
        int word_before = isalnum((unsigned char)before) || strchr("._-", before);
        int word_after = isalnum((unsigned char)after) || after == '_' || after == '-' ||
                         (after == '.' && isalnum((unsigned char)s[n + 1]));
        if (!word_before && !word_after)
            return 1;
    }
    return 0;
}
