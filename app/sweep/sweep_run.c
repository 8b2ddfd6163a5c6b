/* The seam the drivers share (sweep_impl.h): one run of a sweep in this
 * process (its point resolved once per process, its trace and latency
 * histogram), the interruption by SIGINT/SIGTERM, notes, fingerprints and
 * the --runs selection. Below the result folder (sweep_store.c), the order
 * of runs (sweep_order.c) and the drivers (sweep_fork.c, sweep_mpi.c);
 * sweep.c plans and executes a sweep over them. */
#include "sweep_impl.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "run.h"
#include "trace.h"

static volatile sig_atomic_t interrupted;
static struct timespec interrupted_at; /* when the first signal came */

/* First SIGINT/SIGTERM: stop handing out runs and drop the run in progress
 * here (finished runs are on disk already; a rerun redoes the dropped one).
 * A second: the default action, at once, unless it comes within 0.5 s of
 * the first: tools that signal a process and then its group (GNU timeout,
 * some batch systems) deliver one request twice at once. */
static void on_signal(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
    if (interrupted) {
        double since = (double)(now.tv_sec - interrupted_at.tv_sec) + 1e-9 * (double)(now.tv_nsec - interrupted_at.tv_nsec);
        if (since < 0.5)
            return;
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    interrupted_at = now;
    interrupted = sig; /* the exit status says which: 128 + sig, as the shell reports a death by it */
    run_abort();
}

int sweep_interrupted(void) { return interrupted != 0; }
int sweep_signal(void) { return (int)interrupted; }

void sweep_signals_catch(struct sigaction *old_int, struct sigaction *old_term)
{
    interrupted = 0;
    run_abort_clear();
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

double sweep_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sweep_note(const sweep *sw, sweep_note_kind kind, const char *fmt, ...)
{
    if (!sw->ui || !sw->ui->note || (kind == SWEEP_INFO && sw->o->quiet))
        return;
    va_list ap;
    va_start(ap, fmt);
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sw->ui->note(sw->ui->ctx, kind, text);
}

uint64_t sweep_hash(const void *data, size_t len, uint64_t h)
{
    const unsigned char *p = data;
    if (!h)
        h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The canonical value of every parameter that applies to the point (the
 * core's, the physical layer's, its fabric's and its workload's), and the
 * contents of the input files values read (empirical(FILE)): two
 * configurations with the same fingerprint simulate the same thing, and a
 * plugin added to tasknet changes no existing fingerprint. run.replicas is
 * left out: replica r of a point is the same run whatever the number of
 * replicas (its streams come from the seed and r), so replicas can be added
 * to a folder later. A file enters by its contents, not its path. */
void sweep_strip_input_path(char *text)
{
    char *open = strchr(text, '(');
    if (!open || strncmp(text, "empirical(", 10) != 0)
        return;
    char *end = open + 1 + strcspn(open + 1, ",)");
    memmove(open + 1, end, strlen(end) + 1);
}

uint64_t sweep_fingerprint(const cfg *c)
{
    uint64_t h = 0;
    char buf[1024];
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        if ((p->row->flags & PARAM_REPORT) || strcmp(p->row->path, "run.replicas") == 0)
            continue;
        /* every workload's copy of a workload parameter, by its own path */
        for (size_t k = 0; k < cfg_param_copies(c, i); k++) {
            if (!cfg_param_applies_at(c, i, k))
                continue;
            if (cfg_param_get_at(c, i, k, buf, sizeof buf) != 0)
                buf[0] = '\0';
            /* a file's contents count, not where it is (config.xml names it by its absolute path) */
            uint64_t digest = cfg_input_digest_at(c, i, k);
            if (digest && p->row->kind == PARAM_FILE)
                buf[0] = '\0'; /* the value is the path itself */
            else if (digest)
                sweep_strip_input_path(buf);
            char *path = cfg_param_path_at(c, i, k);
            h = sweep_hash(path, strlen(path), h);
            free(path);
            h = sweep_hash("=", 1, h);
            h = sweep_hash(buf, strlen(buf), h);
            if (digest) {
                unsigned char d[8];
                for (int b = 0; b < 8; b++)
                    d[b] = (unsigned char)(digest >> (8 * b));
                h = sweep_hash("#", 1, h);
                h = sweep_hash(d, sizeof d, h);
            }
            h = sweep_hash("\n", 1, h);
        }
    }
    return h;
}

int sweep_parse_runs(const char *spec, uint64_t nruns, unsigned char *sel, char *err, size_t errlen)
{
    memset(sel, 0, nruns);
    const char *p = spec;
    while (*p) {
        char *end;
        errno = 0;
        /* digits only: strtoull would take "-1" as 2^64 - 1 */
        unsigned long long a = isdigit((unsigned char)*p) ? strtoull(p, &end, 10) : 0, b;
        if (!isdigit((unsigned char)*p) || errno)
            return tn_error(err, errlen, "--runs '%s': expected run ids and ranges like 3,5-9 (ids from 0: see "
                            "--list-runs)", spec);
        b = a;
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            b = isdigit((unsigned char)*q) ? strtoull(q, &end, 10) : 0;
            if (!isdigit((unsigned char)*q) || errno || b < a)
                return tn_error(err, errlen, "--runs '%s': bad range at '%s'", spec, p);
            p = end;
        }
        if (b >= nruns)
            return tn_error(err, errlen, "--runs '%s': run %llu does not exist (runs 0-%llu)", spec, b,
                            (unsigned long long)(nruns - 1));
        for (unsigned long long i = a; i <= b; i++)
            sel[i] = 1;
        if (*p == ',')
            p++;
        else if (*p)
            return tn_error(err, errlen, "--runs '%s': unexpected '%c'", spec, *p);
    }
    return 0;
}

/* ---------------------------------------------------------------- runs */

/* A run's progress, to wherever this process sends it. */
typedef struct progress_to {
    sweep *sw;
    uint64_t id;
} progress_to;

static void progress_relay(void *ctx, const run_progress *p)
{
    progress_to *t = ctx;
    t->sw->progress_sink(t->sw, t->id, p);
}

/* Resolve point p into the process's point cache (kept for its runs). 0 or -1 + err. */
int sweep_cache_point(sweep *sw, size_t point, char *err, size_t errlen)
{
    point_cache *pcache = &sw->pcache;
    if (pcache->point == point)
        return 0;
    if (pcache->point != SIZE_MAX)
        cfg_free(&pcache->pc);
    pcache->point = SIZE_MAX;
    if (cfg_point(sw->c, point, &pcache->pc, err, errlen) != 0)
        return -1;
    if (run_resolve(&pcache->pc, &pcache->rc, NULL, err, errlen) != 0) {
        cfg_free(&pcache->pc);
        return -1;
    }
    pcache->point = point;
    return 0;
}

/* Run id in this process, reusing the resolved point of the previous run. */
static int exec_run(sweep *sw, uint64_t id, double *m, trace *tr, const char *latency_csv, char *err,
                    size_t errlen)
{
    point_cache *pcache = &sw->pcache;
    size_t point = run_point(sw->c, id);
    uint64_t replica = run_replica(sw->c, id);
    if (sweep_cache_point(sw, point, err, errlen) != 0)
        return -1;
    progress_to to = {sw, id};
    run_outputs ro = {.trace = tr, .latency_csv = latency_csv};
    if (sw->progress_sink && sw->o->run_progress_every_s > 0) {
        ro.progress = progress_relay;
        ro.progress_ctx = &to;
        ro.progress_every_s = sw->o->run_progress_every_s;
    }
    return run_one(&pcache->pc, &sw->layout, replica, &pcache->rc, m, &ro, err, errlen);
}

void sweep_pcache_free(sweep *sw)
{
    if (sw->pcache.point != SIZE_MAX)
        cfg_free(&sw->pcache.pc);
    sw->pcache.point = SIZE_MAX;
    run_cache_free(&sw->pcache.rc);
}

size_t sweep_result_size(const sweep *sw) { return sizeof(sweep_result) + sw->layout.n * sizeof(double); }

sweep_result *sweep_result_new(const sweep *sw)
{
    sweep_result *r = tn_xcalloc(1, sweep_result_size(sw));
    r->id = SWEEP_NO_RUN;
    return r;
}

int sweep_run(sweep *sw, uint64_t id, trace *tr, const char *latency_csv, sweep_result *r)
{
    memset(r, 0, sweep_result_size(sw));
    r->id = id;
    r->status = exec_run(sw, id, r->m, tr, latency_csv, r->err, sizeof r->err) == 0 ? 0 : 1;
    return r->status;
}
