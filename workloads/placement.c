/* Which fabric nodes a workload's ranks are on: the forms of its `nodes`
 * attribute (all | 0-7,12 | contiguous(o,n) | interleaved(o,s,n) |
 * random(n)), expanded over the N nodes of a fabric, given the nodes the
 * earlier exclusive workloads hold. The configuration checks a point with
 * it, the run wiring places each run's workloads with it (run_wl_nodes). */
#include "placement.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

/* Read an unsigned integer at *p (advancing); -1 if none. */
static long long read_uint(const char **p)
{
    while (**p == ' ')
        (*p)++;
    if (**p < '0' || **p > '9')
        return -1;
    long long v = 0;
    while (**p >= '0' && **p <= '9' && v < 1000000000LL)
        v = 10 * v + (*(*p)++ - '0');
    while (**p == ' ')
        (*p)++;
    return v;
}

/* Parse a nodes form into its kind and numbers (up to 3) or, for a range
 * list, call add(lo, hi) per range (a single id is lo = hi). Returns the
 * kind: 0 all, 1 list, 2 contiguous, 3 interleaved, 4 random; -1 + err
 * when malformed. Nothing here is proportional to the number of nodes: a
 * list is kept as its ranges, so "0-999999999" costs two numbers. */
static int nodes_form(const char *v, long long *a, int (*add)(void *ctx, long long lo, long long hi), void *ctx,
                      char *err, size_t errlen)
{
    static const struct {
        const char *name;
        int kind, nargs;
    } fn[] = {{"contiguous(", 2, 2}, {"interleaved(", 3, 3}, {"random(", 4, 1}};
    if (!v[0] || strcmp(v, "all") == 0)
        return 0;
    for (size_t f = 0; f < sizeof fn / sizeof fn[0]; f++) {
        size_t l = strlen(fn[f].name);
        if (strncmp(v, fn[f].name, l) != 0)
            continue;
        const char *p = v + l;
        for (int i = 0; i < fn[f].nargs; i++) {
            a[i] = read_uint(&p);
            if (a[i] < 0 || (i + 1 < fn[f].nargs ? *p != ',' : *p != ')'))
                return tn_error(err, errlen, "'%s': expected %s%s)", v, fn[f].name,
                                fn[f].nargs == 1 ? "n" : fn[f].nargs == 2 ? "o,n" : "o,s,n");
            p++;
        }
        if (*p)
            return tn_error(err, errlen, "'%s': unexpected text after ')'", v);
        if (a[fn[f].nargs - 1] < 1)
            return tn_error(err, errlen, "'%s': at least one node", v);
        return fn[f].kind;
    }
    /* a range list: 0-7,12 14 */
    const char *p = v;
    int any = 0;
    while (*p) {
        long long lo = read_uint(&p), hi = lo;
        if (lo < 0)
            return tn_error(err, errlen, "'%s': expected all, node ids and ranges (0-7,12), contiguous(o,n), "
                            "interleaved(o,s,n) or random(n)", v);
        if (*p == '-') {
            p++;
            hi = read_uint(&p);
            if (hi < lo)
                return tn_error(err, errlen, "'%s': bad range", v);
        }
        if (add && add(ctx, lo, hi) != 0)
            return tn_error(err, errlen, "'%s': node %lld given twice, or too many nodes", v, lo);
        any = 1;
        if (*p == ',')
            p++;
    }
    if (!any)
        return tn_error(err, errlen, "'%s': no node", v);
    return 1;
}

int wl_nodes_valid(const char *v, char *err, size_t errlen)
{
    long long a[3];
    return nodes_form(v, a, NULL, NULL, err, errlen) < 0 ? -1 : 0;
}

/* A range list as its ranges, in the order written (rank order). */
typedef struct node_list {
    long long (*r)[2];
    size_t nr, cap;
    long long n, N;
} node_list;

static int node_add(void *ctx, long long lo, long long hi)
{
    node_list *l = ctx;
    l->n += hi - lo + 1;
    if (hi >= l->N || l->n > l->N)
        return -1;
    if (l->nr == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->r = tn_xrealloc(l->r, l->cap * sizeof *l->r);
    }
    l->r[l->nr][0] = lo;
    l->r[l->nr][1] = hi;
    l->nr++;
    return 0;
}

static int cmp_range(const void *pa, const void *pb)
{
    const long long *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The first node two ranges of l share, or -1 (sorting a copy: a list
 * is as long as its text, not as the machine). */
static long long node_list_twice(const node_list *l)
{
    long long (*s)[2] = tn_xmalloc((l->nr ? l->nr : 1) * sizeof *s);
    memcpy(s, l->r, l->nr * sizeof *s);
    qsort(s, l->nr, sizeof *s, cmp_range);
    long long twice = -1;
    for (size_t i = 1; i < l->nr && twice < 0; i++)
        if (s[i][0] <= s[i - 1][1])
            twice = s[i][0];
    free(s);
    return twice;
}

int wl_nodes_place(const char *spec, uint32_t N, int exclusive, unsigned char *taken, gsl_rng *rng,
                   uint32_t *map, uint32_t *n, char *err, size_t errlen)
{
    long long a[3] = {0, 0, 0};
    node_list l = {NULL, 0, 0, 0, N};
    int kind = nodes_form(spec, a, node_add, &l, err, errlen);
    uint32_t count = 0;
    int rc = 0;
    switch (kind) {
    case 0:
        if (map)
            for (uint32_t r = 0; r < N; r++)
                map[r] = r;
        count = N;
        break;
    case 1: {
        long long twice = node_list_twice(&l);
        if (twice >= 0) {
            rc = tn_error(err, errlen, "'%s': node %lld given twice, or too many nodes", spec, twice);
            break;
        }
        for (size_t i = 0; i < l.nr; i++)
            if (map)
                for (long long x = l.r[i][0]; x <= l.r[i][1]; x++)
                    map[count++] = (uint32_t)x;
            else
                count += (uint32_t)(l.r[i][1] - l.r[i][0] + 1);
        break;
    }
    case 2:
    case 3: {
        long long o = a[0], s = kind == 2 ? 1 : a[1], cnt = kind == 2 ? a[1] : a[2];
        if (s < 1 || o + s * (cnt - 1) >= N)
            rc = tn_error(err, errlen, "nodes '%s': reaches node %lld, beyond N - 1 = %u", spec,
                          o + s * (cnt - 1), N - 1);
        for (long long r = 0; map && rc == 0 && r < cnt; r++)
            map[r] = (uint32_t)(o + s * r);
        count = rc == 0 ? (uint32_t)cnt : 0;
        break;
    }
    case 4: {
        if (!map && !taken) {
            /* a count only: what random(n) draws is decided per run */
            if (a[0] > (long long)N)
                rc = tn_error(err, errlen, "nodes '%s': only %u nodes are free of the workloads before it",
                              spec, N);
            else
                count = (uint32_t)a[0];
            break;
        }
        /* n ids drawn without replacement from the nodes no earlier
         * exclusive workload holds, Fisher-Yates, the drawn order the ranks' */
        uint32_t free_n = 0;
        uint32_t *pool = tn_xmalloc((N ? N : 1) * sizeof *pool);
        for (uint32_t x = 0; x < N; x++)
            if (!taken || !taken[x])
                pool[free_n++] = x;
        if ((long long)free_n < a[0]) {
            rc = tn_error(err, errlen, "nodes '%s': only %u nodes are free of the workloads before it",
                          spec, free_n);
        } else {
            TN_ASSERT(rng, "random nodes without a stream");
            for (uint32_t r = 0; r < (uint32_t)a[0]; r++) {
                uint32_t j = r + (uint32_t)gsl_rng_uniform_int(rng, free_n - r);
                uint32_t t = pool[r];
                pool[r] = pool[j];
                pool[j] = t;
                if (map)
                    map[r] = pool[r];
            }
            count = (uint32_t)a[0];
        }
        free(pool);
        break;
    }
    default: rc = -1; break;
    }
    free(l.r);
    if (rc == 0 && taken && map && exclusive)
        for (uint32_t r = 0; r < count; r++) {
            if (taken[map[r]]) {
                rc = tn_error(err, errlen, "node %u is given to two exclusive workloads (exclusive=\"no\" lets a "
                              "workload share nodes)", map[r]);
                break;
            }
        }
    if (rc == 0 && taken && map && exclusive)
        for (uint32_t r = 0; r < count; r++)
            taken[map[r]] = 1;
    *n = count;
    return rc;
}
