/* The plan of a sweep and its execution: the run table (point x replica,
 * run id = point * replicas + replica), each point's fingerprint, the
 * selection (--runs, --shard), resuming from the result folder, the choice
 * of a driver, and the seam the drivers use (next, run, record). */
#include "sweep_impl.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "log.h"
#include "report.h"
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
static int cache_point(sweep *sw, size_t point, char *err, size_t errlen)
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
    if (cache_point(sw, point, err, errlen) != 0)
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

static void record(sweep *sw, uint64_t id, const double *m)
{
    run_rec *r = &sw->rec[id];
    r->done = 1;
    r->hash = sw->point_hash[run_point(sw->c, id)];
    memcpy(r->m, m, sw->layout.n * sizeof *m);
    sw->todo[id] = 0;
    sw->ndone_now++;
    double events = m[run_core(&sw->layout, M_events)], wall = m[run_core(&sw->layout, M_wall_s)];
    sw->events_now += events;
    if (sw->runs_csv)
        store_append(sw, id);
    if (sw->ui && sw->ui->run_done)
        sw->ui->run_done(sw->ui->ctx, id, run_point(sw->c, id), run_replica(sw->c, id), events, wall);
    if (sw->ui && sw->ui->progress)
        sw->ui->progress(sw->ui->ctx, sw->ndone_now, sw->ntodo, sweep_now_s() - sw->t0_s);
}

int sweep_record(sweep *sw, const sweep_result *r)
{
    if (r->status != 0) {
        sw->todo[r->id] = 0;
        sweep_note(sw, SWEEP_ERROR, "run %llu: %s", (unsigned long long)r->id, r->err);
        return 1;
    }
    /* the row carries the checksum of the histogram the run left (a resume
     * redoes the run if the file is later lost or damaged) */
    run_rec *rec = &sw->rec[r->id];
    char hist[CFG_PATH_MAX + 64];
    if (sweep_latency_path(sw, r->id, hist, sizeof hist)) {
        if (store_file_digest(hist, &rec->hist) != 0) {
            sw->todo[r->id] = 0;
            sweep_note(sw, SWEEP_ERROR, "run %llu: its latency histogram %s cannot be read: %s",
                       (unsigned long long)r->id, hist, strerror(errno));
            return 1;
        }
        rec->has_hist = 1;
    }
    rec->from = r->id;
    sweep_order_measured(sw, r->id, r->m[run_core(&sw->layout, M_wall_s)]);
    record(sw, r->id, r->m);
    return 0;
}

/* Progress inside a run of this process, to the caller's ui. */
static void progress_to_ui(sweep *sw, uint64_t id, const run_progress *p)
{
    if (sw->ui && sw->ui->run_progress)
        sw->ui->run_progress(sw->ui->ctx, id, p);
}

/* ------------------------------------------------------ serial driver */

/* In this process, in id order (the only driver that records a trace). */
static int run_serial(sweep *sw)
{
    int rc = 0;
    trace *tr = NULL;
    if (sw->o->trace) {
        char err[512];
        uint64_t id = 0;
        while (id < sw->nruns && !sw->todo[id])
            id++;
        cfg pc;
        if (cfg_point(sw->c, run_point(sw->c, id), &pc, err, sizeof err) != 0) {
            sweep_note(sw, SWEEP_ERROR, "%s", err);
            return 1;
        }
        tr = trace_open(sw->o->trace, pc.nodes, err, sizeof err);
        cfg_free(&pc);
        if (!tr) {
            sweep_note(sw, SWEEP_ERROR, "--trace: %s", err);
            return 1;
        }
    }
    uint64_t id;
    sweep_result *r = sweep_result_new(sw);
    while (sweep_next(sw, 0, &id) == 0) {
        char hist[CFG_PATH_MAX + 64];
        sweep_run(sw, id, tr, sweep_latency_path(sw, id, hist, sizeof hist), r);
        if (r->status != 0 && interrupted) {
            sweep_requeue(sw, id); /* dropped by the signal: not a failure */
            break;
        }
        if (sweep_record(sw, r) != 0) {
            rc = 1;
            break;
        }
    }
    free(r);
    if (tr) {
        char err[512];
        int trc = trace_close(tr, err, sizeof err);
        if (trc > 0) {
            sweep_note(sw, SWEEP_WARNING, "--trace: %s", err);
        } else if (trc < 0) {
            sweep_note(sw, SWEEP_ERROR, "--trace: %s", err);
            rc = 1;
        }
    }
    return rc;
}

const sweep_driver sweep_serial_driver = {.name = "serial", .run = run_serial};

/* ------------------------------------------------------------- execute */

static long peak_rss_mib(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    long kib = self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss : kids.ru_maxrss;
    return kib / 1024;
}

/* Memory of the run table: a result (every metric) and a record per run, a
 * fingerprint per point. */
double sweep_table_bytes(const cfg *c)
{
    size_t npoints = cfg_points(c);
    uint64_t nruns = (uint64_t)npoints * c->replicas;
    run_layout l;
    run_layout_init(&l, c);
    double per_run = (double)l.n * sizeof(double) + sizeof(run_rec) + 2;
    run_layout_free(&l);
    return (double)nruns * per_run + (double)npoints * sizeof(uint64_t);
}

/* The runs this invocation selects: --runs, --shard (or a Slurm array task). 0 or exit status. */
static int select_runs(sweep *sw)
{
    const sweep_opts *o = sw->o;
    char err[512];
    if (o->runs) {
        if (sweep_parse_runs(o->runs, sw->nruns, sw->todo, err, sizeof err) != 0) {
            sweep_note(sw, SWEEP_ERROR, "%s", err);
            return 2;
        }
    } else {
        memset(sw->todo, RUN_PENDING, sw->nruns);
    }
    if (o->shard_n)
        for (uint64_t id = 0; id < sw->nruns; id++)
            if (id % o->shard_n != o->shard_k - 1)
                sw->todo[id] = 0;
    for (uint64_t id = 0; id < sw->nruns; id++)
        sw->selected[id] = sw->todo[id] != 0;
    return 0;
}

/* The driver for this sweep: MPI ranks when launched so, worker processes
 * with -j, else this process. A trace is recorded in this process. */
static const sweep_driver *choose_driver(sweep *sw, int mpi_size)
{
#ifdef TASKNET_MPI
    if (mpi_size > 1 && !sw->o->trace) {
        if (sw->o->jobs > 1)
            sweep_note(sw, SWEEP_INFO, "-j %u ignored under mpirun: %d ranks run the runs", sw->o->jobs,
                       mpi_size - 1);
        snprintf(sw->procs, sizeof sw->procs, "%d MPI ranks: rank 0 writes, %d run", mpi_size, mpi_size - 1);
        return &sweep_mpi_driver;
    }
#else
    (void)mpi_size;
#endif
    snprintf(sw->procs, sizeof sw->procs, "%u process%s", sw->jobs, sw->jobs == 1 ? "" : "es");
    return sw->jobs > 1 && !sw->o->trace ? &sweep_fork_driver : &sweep_serial_driver;
}

void sweep_execute(const cfg *c, const sweep_opts *o, const sweep_ui *ui, sweep_outcome *out)
{
    memset(out, 0, sizeof *out);
    sweep sw = {.c = c, .o = o, .ui = ui, .pcache = {.point = SIZE_MAX}, .lock_fd = -1};
    sw.npoints = cfg_points(c);
    sw.nruns = (uint64_t)sw.npoints * c->replicas;
    sw.progress_sink = progress_to_ui;
    sw.progress_fd = -1;
    int rc = 0, ran = 0, handlers = 0;
    struct sigaction old_int, old_term;
    char err[512];
    int mpi_rank = 0, mpi_size = 1;
    const sweep_driver *driver = NULL;
    /* the run table is held in memory (a result per run): refuse one that cannot be */
    double table_bytes = sweep_table_bytes(c);
    {
        char how[128], a[64], b[64];
        double avail = run_memory_available(how, sizeof how);
        if (table_bytes > avail) {
            run_format_bytes(table_bytes, a, sizeof a);
            run_format_bytes(avail, b, sizeof b);
            sweep_note(&sw, SWEEP_ERROR, "the run table of %llu runs (%zu points x %u replicas) needs about %s of "
                       "memory, more than the %s this process may use (%s); fewer replicas or points would fit",
                       (unsigned long long)sw.nruns, sw.npoints, c->replicas, a, b, how);
            memset(&sw.layout, 0, sizeof sw.layout);
            sw.nruns = 0;
            rc = 1;
            goto out;
        }
    }
    sw.point_hash = tn_xcalloc(sw.npoints ? sw.npoints : 1, sizeof *sw.point_hash);
    sweep_records_init(&sw);
    sw.todo = tn_xcalloc(sw.nruns ? sw.nruns : 1, 1);
    sw.selected = tn_xcalloc(sw.nruns ? sw.nruns : 1, 1);

    for (size_t p = 0; p < sw.npoints; p++) {
        cfg pc;
        if (cfg_point(c, p, &pc, err, sizeof err) != 0) {
            sweep_note(&sw, SWEEP_ERROR, "sweep point %zu: %s", p, err);
            rc = 1;
            goto out;
        }
        sw.point_hash[p] = sweep_fingerprint(&pc);
        cfg_free(&pc);
    }

    /* Under mpirun every rank gets here with the same configuration; rank 0
     * goes on as a sweep without MPI would, the others only simulate. */
#ifdef TASKNET_MPI
    if (sweep_mpi_init(&mpi_rank, &mpi_size, err, sizeof err) != 0) {
        sweep_note(&sw, SWEEP_ERROR, "%s", err);
        rc = 1;
        goto out;
    }
    if (mpi_rank > 0) {
        sw.progress_sink = NULL; /* only rank 0 talks to the user */
        rc = sweep_mpi_worker(&sw);
        goto out;
    }
#endif

    if ((rc = select_runs(&sw)) != 0)
        goto out;
    /* from here a SIGINT/SIGTERM stops the sweep cleanly, whenever it comes */
    if (!o->list_only) {
        interrupted = 0;
        run_abort_clear();
        struct sigaction sa = {.sa_handler = on_signal};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        handlers = 1;
    }
    /* one writer per folder: from reading what it holds to the last write */
    if (o->out && !o->list_only && store_lock(&sw) != 0) {
        rc = 1;
        goto out;
    }
    if (o->out && store_load(&sw) != 0) {
        rc = 1;
        goto out;
    }
    for (uint64_t id = 0; id < sw.nruns; id++) {
        if (sw.rec[id].done)
            sw.todo[id] = 0;
        sw.ntodo += sw.todo[id] != 0;
    }
    if (o->list_only)
        goto results;
    /* every point with runs to do resolves and fits in memory before any
     * runs (the resolved points stay cached for this process and, by fork,
     * its workers) */
    {
        unsigned copies = o->jobs > 1 && mpi_size <= 1 ? o->jobs : 1;
        if (copies > sw.ntodo)
            copies = sw.ntodo ? (unsigned)sw.ntodo : 1;
        for (size_t p = 0; p < sw.npoints && rc == 0 && !interrupted; p++) {
            int any = 0;
            for (uint64_t r = 0; r < c->replicas && !any; r++)
                any = sw.todo[run_id(c, p, r)] != 0;
            if (!any)
                continue;
            char where[600] = "";
            for (size_t a = 0, l = 0; a < c->naxes && l < sizeof where; a++)
                l += (size_t)snprintf(where + l, sizeof where - l, "%s%s=%s", a ? " " : " (", c->axes[a].param,
                                      cfg_point_value(c, p, a));
            if (c->naxes && strlen(where) + 1 < sizeof where)
                strcat(where, ")");
            if (cache_point(&sw, p, err, sizeof err) != 0 ||
                run_check_memory(&sw.pcache.pc, copies, table_bytes, err, sizeof err) != 0) {
                sweep_note(&sw, SWEEP_ERROR, "sweep point %zu%s: %s", p, where, err);
                rc = 1;
            } else if (copies > 1 || mpi_size > 1) {
                run_estimate e;
                run_estimate_point(&sw.pcache.pc, &e);
                sweep_order_estimate(&sw, p, e.messages);
            }
        }
        if (interrupted && !rc) {
            sweep_note(&sw, SWEEP_WARNING, "interrupted before the first run; nothing was run");
            rc = 128 + (int)interrupted;
        }
        if (rc)
            goto out;
    }
    if (o->trace && sw.ntodo != 1) {
        sweep_note(&sw, SWEEP_ERROR,
                   "--trace records one run, and %llu are selected; choose one with --runs ID (see --list-runs)",
                   (unsigned long long)sw.ntodo);
        rc = 2;
        goto out;
    }
    if (o->out && store_open(&sw) != 0) {
        rc = 1;
        goto out;
    }

    sw.t0_s = sweep_now_s();
    sw.last_summary_s = sw.t0_s;
    sw.jobs = o->jobs ? o->jobs : 1;
    if (sw.jobs > sw.ntodo)
        sw.jobs = sw.ntodo ? (unsigned)sw.ntodo : 1;
    driver = choose_driver(&sw, mpi_size);
    sweep_order_init(&sw, driver != &sweep_serial_driver, driver == &sweep_fork_driver ? sw.jobs : (unsigned)mpi_size);
    if (ui && ui->progress && sw.ntodo)
        ui->progress(ui->ctx, 0, sw.ntodo, 0); /* the total, before the first run ends */
    if (sw.ntodo || driver != &sweep_serial_driver)
        rc = driver->run(&sw);
    ran = 1;
    out->wall_s = sweep_now_s() - sw.t0_s;
    if (sw.runs_csv && store_close(&sw) != 0)
        rc = 1;
    if (interrupted)
        rc = 128 + (int)interrupted; /* 130 for SIGINT, 143 for SIGTERM */

results:
    out->have_results = 1;
    out->pts = sweep_accumulate(&sw);
    out->npoints = sw.npoints;
    out->layout = sw.layout;
    memset(&sw.layout, 0, sizeof sw.layout); /* handed over */
    out->selected = sw.selected;
    sw.selected = NULL;
    out->done = tn_xcalloc(sw.nruns ? sw.nruns : 1, 1);
    for (uint64_t id = 0; id < sw.nruns; id++)
        out->done[id] = (unsigned char)sw.rec[id].done;
out:
    if (handlers) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
#ifdef TASKNET_MPI
    if (mpi_size > 1 && mpi_rank == 0 && driver != &sweep_mpi_driver)
        sweep_mpi_stop_workers(&sw);
    sweep_mpi_finalize();
#else
    (void)mpi_rank;
#endif
    (void)ran;
    out->status = rc;
    out->interrupted = interrupted != 0;
    out->gave_up = sw.giving_up;
    out->nruns = sw.nruns;
    out->ntodo = sw.ntodo;
    out->ndone = sw.ndone_now;
    out->events = sw.events_now;
    out->peak_rss_mib = peak_rss_mib();
    snprintf(out->procs, sizeof out->procs, "%s", sw.procs);
    sweep_pcache_free(&sw);
    sweep_order_free(&sw);
    if (sw.runs_csv)
        fclose(sw.runs_csv);
    if (sw.timing_csv)
        fclose(sw.timing_csv);
    store_unlock(&sw);
    free(sw.point_hash);
    sweep_records_free(&sw);
    free(sw.todo);
    free(sw.selected);
}

void sweep_outcome_free(sweep_outcome *out)
{
    report_points_free(out->pts, out->npoints);
    run_layout_free(&out->layout);
    free(out->selected);
    free(out->done);
    memset(out, 0, sizeof *out);
}
