#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "units.h"

#define TRACE_MAX_VIEWS 16

struct trace {
    struct trace *root;    /* the file's owner (itself for the root) */
    unsigned pid0;         /* compute process; network pid0 + 1, activities pid0 + 2 */
    /* root only */
    FILE *f;
    uint64_t events;       /* JSON records written */
    uint64_t messages;     /* message slices written */
    uint64_t compute;      /* slices of category "compute" */
    uint64_t other;        /* other slices */
    int capped;            /* stopped at TRACE_MAX_EVENTS */
    int named0;            /* the first workload's processes carry its name */
    uint64_t next_flow;    /* flow ids */
    trace_filter flt;
    struct trace *views[TRACE_MAX_VIEWS];
};

/* Trace timestamps are microseconds; picoseconds keep 6 decimals exact. */
static void ts(FILE *f, const char *key, int64_t ps)
{
    fprintf(f, ",\"%s\":%s%lld.%06lld", key, ps < 0 ? "-" : "", (long long)(llabs(ps) / 1000000),
            (long long)(llabs(ps) % 1000000));
}

static int room(trace *r, unsigned need)
{
    if (r->capped)
        return 0;
    if (r->events + need > TRACE_MAX_EVENTS) {
        r->capped = 1;
        return 0;
    }
    r->events += need;
    return 1;
}

/* ---- the filter ---- */

static int in_ranges(uint64_t (*r)[2], size_t n, uint64_t v)
{
    if (!n)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (v >= r[i][0] && v <= r[i][1])
            return 1;
    return 0;
}

static int parse_ranges(const char *opt, const char *s, uint64_t (**out)[2], size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (!s || !*s)
        return 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long a = strtoull(p, &end, 10), b = a;
        if (end == p || *p == '-' || errno)
            goto bad;
        p = end;
        if (*p == '-') {
            p++;
            b = strtoull(p, &end, 10);
            if (end == p || *p == '-' || errno || b < a)
                goto bad;
            p = end;
        }
        *out = tn_xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[*n][0] = a;
        (*out)[*n][1] = b;
        (*n)++;
        if (*p == ',')
            p++;
        else if (*p)
            goto bad;
    }
    return 0;
bad:
    free(*out);
    *out = NULL;
    *n = 0;
    return tn_error(err, errlen, "%s '%s': expected ids and ranges such as 0-15,32 (at '%s')", opt, s, p);
}

int trace_filter_parse(trace_filter *f, const char *nodes, const char *window, const char *jobs, char *err,
                       size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->to_ps = -1;
    if (parse_ranges("--trace-nodes", nodes, &f->nodes, &f->nnodes, err, errlen) != 0 ||
        parse_ranges("--trace-jobs", jobs, &f->jobs, &f->njobs, err, errlen) != 0) {
        trace_filter_free(f);
        return -1;
    }
    if (window && *window) {
        const char *colon = strchr(window, ':');
        if (!colon) {
            trace_filter_free(f);
            return tn_error(err, errlen, "--trace-window '%s': expected FROM:TO with units, e.g. 1ms:2ms "
                            "(either side may be empty)", window);
        }
        char a[64], uerr[256];
        snprintf(a, sizeof a, "%.*s", (int)(colon - window < 63 ? colon - window : 63), window);
        double v;
        if (a[0]) {
            if (units_parse(a, UNIT_TIME, &v, uerr, sizeof uerr) != 0 || v < 0) {
                trace_filter_free(f);
                return tn_error(err, errlen, "--trace-window '%s': FROM '%s': %s", window, a,
                                v < 0 ? "negative" : uerr);
            }
            f->from_ps = units_s_to_ps(v);
        }
        if (colon[1]) {
            if (units_parse(colon + 1, UNIT_TIME, &v, uerr, sizeof uerr) != 0 || v < 0) {
                trace_filter_free(f);
                return tn_error(err, errlen, "--trace-window '%s': TO '%s': %s", window, colon + 1,
                                v < 0 ? "negative" : uerr);
            }
            f->to_ps = units_s_to_ps(v);
            if (f->to_ps <= f->from_ps) {
                trace_filter_free(f);
                return tn_error(err, errlen, "--trace-window '%s': TO must be after FROM", window);
            }
        }
    }
    return 0;
}

void trace_filter_free(trace_filter *f)
{
    free(f->nodes);
    free(f->jobs);
    f->nodes = NULL;
    f->jobs = NULL;
    f->nnodes = f->njobs = 0;
}

static int keep_time(const trace_filter *f, int64_t t0, int64_t t1)
{
    return t1 >= f->from_ps && (f->to_ps < 0 || t0 < f->to_ps);
}

static int keep_job(const trace_filter *f, uint64_t job)
{
    return job == TRACE_NO_JOB || in_ranges(f->jobs, f->njobs, job);
}

int trace_wants_node(const trace *t, uint32_t node)
{
    return t && !t->root->capped && in_ranges(t->root->flt.nodes, t->root->flt.nnodes, node);
}

/* ---- files and views ---- */

/* Name processes pid0..pid0+2 and, for `ranks` > 0, the tracks of the ranks kept. */
static void name_processes(trace *r, unsigned pid0, const char *prefix, uint32_t ranks)
{
    static const char *const what[] = {"compute", "network (by sender)", "collectives and flows"};
    for (unsigned k = 0; k < 3; k++) {
        fprintf(r->f, "%s{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":\"", r->events ? ",\n" : "",
                pid0 + k);
        for (const char *c = prefix; *c; c++) /* a workload's name: letters, digits, - _ . */
            if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20)
                fputc(*c, r->f);
        fprintf(r->f, "%s%s\"}}", *prefix ? ": " : "", what[k]);
        r->events++;
        if (!ranks)
            continue;
        fprintf(r->f, ",\n{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%u}}",
                pid0 + k, pid0 + k);
        r->events++;
    }
    /* the tracks of the ranks kept (a 1,024-node run limited to 16 names 16) */
    for (uint32_t n = 0; n < ranks; n++) {
        if (!in_ranges(r->flt.nodes, r->flt.nnodes, n))
            continue;
        for (unsigned k = 0; k < 2; k++) {
            fprintf(r->f, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"%s %u\"}}",
                    pid0 + k, n, k ? "from node" : "node", n);
            r->events++;
        }
    }
}

trace *trace_open(const char *path, uint32_t nodes, const trace_filter *flt, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        tn_error(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    trace *t = tn_xcalloc(1, sizeof *t);
    t->root = t;
    t->f = f;
    t->flt.to_ps = -1;
    if (flt) {
        t->flt = *flt;
        if (flt->nnodes) {
            t->flt.nodes = tn_xmalloc(flt->nnodes * sizeof *flt->nodes);
            memcpy(t->flt.nodes, flt->nodes, flt->nnodes * sizeof *flt->nodes);
        }
        if (flt->njobs) {
            t->flt.jobs = tn_xmalloc(flt->njobs * sizeof *flt->jobs);
            memcpy(t->flt.jobs, flt->jobs, flt->njobs * sizeof *flt->jobs);
        }
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
    name_processes(t, 0, "", nodes);
    return t;
}

trace *trace_workload(trace *t, unsigned k, const char *name, uint32_t ranks)
{
    if (!t)
        return t;
    trace *r = t->root;
    if (k == 0) {
        /* the first of several workloads: its processes (named at open)
         * take its name too; the last process_name of a process counts */
        if (name && *name && !r->named0) {
            name_processes(r, 0, name, 0);
            r->named0 = 1;
        }
        return t;
    }
    if (k >= TRACE_MAX_VIEWS)
        return NULL; /* not traced: more workloads than views */
    if (!r->views[k]) {
        trace *v = tn_xcalloc(1, sizeof *v);
        v->root = r;
        v->pid0 = 3 * k;
        r->views[k] = v;
        name_processes(r, v->pid0, name, ranks);
    }
    return r->views[k];
}

/* ---- events ---- */

static void args_job(FILE *f, uint64_t job, uint32_t task)
{
    if (job == TRACE_NO_JOB && task == UINT32_MAX)
        return;
    fputs(",\"args\":{", f);
    if (job != TRACE_NO_JOB)
        fprintf(f, "\"job\":%llu%s", (unsigned long long)job, task != UINT32_MAX ? "," : "");
    if (task != UINT32_MAX)
        fprintf(f, "\"task\":%u", task);
    fputc('}', f);
}

void trace_slice(trace *t, uint32_t node, const char *cat, const char *name, int64_t t0_ps,
                 int64_t t1_ps, uint64_t job, uint32_t task)
{
    if (!t)
        return;
    trace *r = t->root;
    if (!in_ranges(r->flt.nodes, r->flt.nnodes, node) || !keep_time(&r->flt, t0_ps, t1_ps) ||
        !keep_job(&r->flt, job) || !room(r, 1))
        return;
    fprintf(r->f, ",\n{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"cat\":\"%s\",\"name\":\"%s\"", t->pid0, node, cat,
            name);
    ts(r->f, "ts", t0_ps);
    ts(r->f, "dur", t1_ps - t0_ps);
    args_job(r->f, job, task);
    fputc('}', r->f);
    if (strcmp(cat, "compute") == 0)
        r->compute++;
    else
        r->other++;
}

void trace_message(trace *t, uint32_t src, uint32_t dst, const char *kind, uint64_t bytes,
                   uint64_t job, int64_t t_send_ps, int64_t t_deliver_ps)
{
    if (!t)
        return;
    trace *r = t->root;
    if ((!in_ranges(r->flt.nodes, r->flt.nnodes, src) && !in_ranges(r->flt.nodes, r->flt.nnodes, dst)) ||
        !keep_time(&r->flt, t_send_ps, t_deliver_ps) || !keep_job(&r->flt, job) || !room(r, 3))
        return;
    uint64_t id = ++r->next_flow;
    FILE *f = r->f;
    fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"cat\":\"message\",\"name\":\"%s\"", t->pid0 + 1, src,
            kind);
    ts(f, "ts", t_send_ps);
    ts(f, "dur", t_deliver_ps - t_send_ps);
    fprintf(f, ",\"args\":{\"src\":%u,\"dst\":%u,\"bytes\":%llu", src, dst, (unsigned long long)bytes);
    if (job != TRACE_NO_JOB)
        fprintf(f, ",\"job\":%llu", (unsigned long long)job);
    fputs("}}", f);
    fprintf(f, ",\n{\"ph\":\"s\",\"pid\":%u,\"tid\":%u,\"cat\":\"flow\",\"name\":\"%s\",\"id\":%llu", t->pid0 + 1,
            src, kind, (unsigned long long)id);
    ts(f, "ts", t_send_ps);
    fputc('}', f);
    fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":%u,\"tid\":%u,\"cat\":\"flow\",\"name\":\"%s\",\"id\":%llu",
            t->pid0, dst, kind, (unsigned long long)id);
    ts(f, "ts", t_deliver_ps);
    fputc('}', f);
    r->messages++;
}

void trace_span(trace *t, uint32_t track, const char *cat, const char *name, uint64_t id, uint32_t node,
                int64_t t0_ps, int64_t t1_ps, uint64_t bytes)
{
    if (!t)
        return;
    trace *r = t->root;
    if ((node != UINT32_MAX && !in_ranges(r->flt.nodes, r->flt.nnodes, node)) || !keep_time(&r->flt, t0_ps, t1_ps) ||
        !room(r, 2))
        return;
    FILE *f = r->f;
    /* async begin and end ("b"/"e"), matched by cat and id: spans may overlap */
    fprintf(f, ",\n{\"ph\":\"b\",\"pid\":%u,\"tid\":%u,\"cat\":\"%s\",\"name\":\"%s\",\"id\":%llu", t->pid0 + 2,
            track, cat, name, (unsigned long long)id);
    ts(f, "ts", t0_ps);
    if (bytes)
        fprintf(f, ",\"args\":{\"bytes\":%llu}", (unsigned long long)bytes);
    fputc('}', f);
    fprintf(f, ",\n{\"ph\":\"e\",\"pid\":%u,\"tid\":%u,\"cat\":\"%s\",\"name\":\"%s\",\"id\":%llu", t->pid0 + 2,
            track, cat, name, (unsigned long long)id);
    ts(f, "ts", t1_ps);
    fputc('}', f);
    r->other++;
}

uint64_t trace_slices(const trace *t, const char *cat)
{
    return strcmp(cat, "compute") == 0 ? t->root->compute : t->root->other;
}

uint64_t trace_messages(const trace *t) { return t->root->messages; }

int trace_close(trace *t, char *err, size_t errlen)
{
    if (!t)
        return 0;
    t = t->root;
    fputs("\n]}\n", t->f);
    int io = ferror(t->f);
    if (fclose(t->f) != 0)
        io = 1;
    int capped = t->capped;
    uint64_t events = t->events;
    for (unsigned k = 0; k < TRACE_MAX_VIEWS; k++)
        free(t->views[k]);
    trace_filter_free(&t->flt);
    free(t);
    if (io)
        return tn_error(err, errlen, "writing the trace failed");
    if (capped) {
        tn_error(err, errlen,
                 "the run is too large to trace whole: recording stopped after %llu events "
                 "(the file is valid but covers only the beginning); limit it with --trace-nodes, "
                 "--trace-jobs or --trace-window",
                 (unsigned long long)events);
        return 1;
    }
    return 0;
}
