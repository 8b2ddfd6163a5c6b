#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

struct trace {
    FILE *f;
    uint64_t events;       /* JSON records written */
    uint64_t messages;     /* message slices written */
    uint64_t compute;      /* slices of category "compute" */
    uint64_t other;        /* other slices */
    int capped;            /* stopped at TRACE_MAX_EVENTS */
    uint64_t next_flow;    /* flow ids */
};

/* Trace timestamps are microseconds; picoseconds keep 6 decimals exact. */
static void ts(FILE *f, const char *key, int64_t ps)
{
    fprintf(f, ",\"%s\":%lld.%06lld", key, (long long)(ps / 1000000), (long long)(ps % 1000000));
}

static int room(trace *t, unsigned need)
{
    if (t->capped)
        return 0;
    if (t->events + need > TRACE_MAX_EVENTS) {
        t->capped = 1;
        return 0;
    }
    t->events += need;
    return 1;
}

trace *trace_open(const char *path, uint32_t nodes, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        tn_error(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    trace *t = tn_xcalloc(1, sizeof *t);
    t->f = f;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
    fputs("{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"nodes\"}}", f);
    fputs(",\n{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"network "
          "(by sender)\"}}",
          f);
    for (uint32_t k = 0; k < nodes; k++) {
        const char *what = k == 0 ? "scheduler" : "node";
        fprintf(f,
                ",\n{\"ph\":\"M\",\"pid\":0,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":"
                "\"%s %u\"}}",
                k, what, k);
        fprintf(f,
                ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":"
                "\"from %s %u\"}}",
                k, what, k);
    }
    return t;
}

void trace_slice(trace *t, uint32_t node, const char *cat, const char *name, int64_t t0_ps,
                 int64_t t1_ps, uint64_t job, uint32_t task)
{
    if (!t || !room(t, 1))
        return;
    fprintf(t->f, ",\n{\"ph\":\"X\",\"pid\":0,\"tid\":%u,\"cat\":\"%s\",\"name\":\"%s\"", node, cat,
            name);
    ts(t->f, "ts", t0_ps);
    ts(t->f, "dur", t1_ps - t0_ps);
    fprintf(t->f, ",\"args\":{\"job\":%llu,\"task\":%u}}", (unsigned long long)job, task);
    if (strcmp(cat, "compute") == 0)
        t->compute++;
    else
        t->other++;
}

void trace_message(trace *t, uint32_t src, uint32_t dst, const char *kind, uint64_t bytes,
                   uint64_t job, int64_t t_send_ps, int64_t t_deliver_ps)
{
    if (!t || !room(t, 3))
        return;
    uint64_t id = ++t->next_flow;
    fprintf(t->f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"cat\":\"message\",\"name\":\"%s\"", src,
            kind);
    ts(t->f, "ts", t_send_ps);
    ts(t->f, "dur", t_deliver_ps - t_send_ps);
    fprintf(t->f, ",\"args\":{\"src\":%u,\"dst\":%u,\"bytes\":%llu,\"job\":%llu}}", src, dst,
            (unsigned long long)bytes, (unsigned long long)job);
    fprintf(t->f, ",\n{\"ph\":\"s\",\"pid\":1,\"tid\":%u,\"cat\":\"flow\",\"name\":\"%s\",\"id\":%llu",
            src, kind, (unsigned long long)id);
    ts(t->f, "ts", t_send_ps);
    fputc('}', t->f);
    fprintf(t->f,
            ",\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":0,\"tid\":%u,\"cat\":\"flow\",\"name\":\"%s\","
            "\"id\":%llu",
            dst, kind, (unsigned long long)id);
    ts(t->f, "ts", t_deliver_ps);
    fputc('}', t->f);
    t->messages++;
}

uint64_t trace_slices(const trace *t, const char *cat)
{
    return strcmp(cat, "compute") == 0 ? t->compute : t->other;
}

uint64_t trace_messages(const trace *t) { return t->messages; }

int trace_close(trace *t, char *err, size_t errlen)
{
    if (!t)
        return 0;
    fputs("\n]}\n", t->f);
    int io = ferror(t->f);
    if (fclose(t->f) != 0)
        io = 1;
    int capped = t->capped;
    uint64_t events = t->events;
    free(t);
    if (io)
        return tn_error(err, errlen, "writing the trace failed");
    if (capped) {
        tn_error(err, errlen,
                 "the run is too large to trace whole: recording stopped after %llu events "
                 "(the file is valid but covers only the beginning); trace a smaller run",
                 (unsigned long long)events);
        return 1;
    }
    return 0;
}
