/* The plan of a sweep and its execution: the run table (point x replica,
 * run id = point * replicas + replica), each point's fingerprint, the
 * selection (--runs, --shard), resuming from the result folder, the choice
 * of a driver and the serial driver. The top of app/sweep: the seam the
 * drivers use is below it (sweep_run.c: run; sweep_order.c: next;
 * sweep_store.c: record). */
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
        trace_filter flt;
        if (trace_filter_parse(&flt, sw->o->trace_nodes, sw->o->trace_window, sw->o->trace_jobs, err,
                               sizeof err) != 0) {
            cfg_free(&pc);
            sweep_note(sw, SWEEP_ERROR, "%s", err);
            return 1;
        }
        tr = trace_open(sw->o->trace, pc.nodes, &flt, err, sizeof err);
        trace_filter_free(&flt);
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
        if (r->status != 0 && sweep_interrupted()) {
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

/* A point refused past the checks (resolving it, its memory estimate),
 * reported as validate does: at the sweep axis that sent the refused value
 * (run_refusal_axis), else by the point. */
static const char *refused_by_option(sweep *sw, size_t p, int memory)
{
    return sw->o->culprit ? sw->o->culprit(sw->o->culprit_ctx, p, memory) : NULL;
}

static void refused_at_axis(sweep *sw, size_t p, const char *where, const char *err, int memory)
{
    char at[CFG_PATH_MAX + 64], what[1024];
    run_cache rc = {0};
    long a = run_refusal_axis(sw->c, p, err, NULL, &rc);
    run_cache_free(&rc);
    const char *opt, *file = sw->c->file[0] ? sw->c->file : sw->o->config;
    /* the command line's values after the place, as validate: " (with --set ...)" */
    const char *tag = sw->o->with && strncmp(sw->o->with, file, strlen(file)) == 0 ? sw->o->with + strlen(file) : "";
    if (run_refusal_where(sw->c, p, a, at, sizeof at, what, sizeof what))
        sweep_note(sw, SWEEP_ERROR, "%s%s: %s: %s", at, tag, what, err);
    else if ((opt = refused_by_option(sw, p, memory)) != NULL) /* the option, as validate (cli.c point_refused) */
        sweep_note(sw, SWEEP_ERROR, "%s: sweep point %zu%s: %s", opt, p, where, err);
    else if (sw->o->with)
        sweep_note(sw, SWEEP_ERROR, "%s: sweep point %zu%s: %s", sw->o->with, p, where, err);
    else
        sweep_note(sw, SWEEP_ERROR, "sweep point %zu%s: %s", p, where, err);
}

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

    size_t nwarn = 0; /* points with a warning (cfg_point_warning), the first one's text */
    char warn[1024] = "";
    for (size_t p = 0; p < sw.npoints; p++) {
        cfg pc;
        if (cfg_point(c, p, &pc, err, sizeof err) != 0) {
            sweep_note(&sw, SWEEP_ERROR, "sweep point %zu: %s", p, err);
            rc = 1;
            goto out;
        }
        sw.point_hash[p] = sweep_fingerprint(&pc);
        if (cfg_point_warning(&pc, err, sizeof err) && nwarn++ == 0)
            snprintf(warn, sizeof warn, "sweep point %zu: %s", p, err);
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

    /* after the MPI split (only rank 0 talks to the user); not with
     * --list-runs, whose listing is for programs */
    if (o->list_only)
        nwarn = 0;
    if (nwarn)
        sweep_note(&sw, SWEEP_WARNING, "%s", warn);
    if (nwarn > 1)
        sweep_note(&sw, SWEEP_WARNING, "the same at %zu more sweep point%s", nwarn - 1, nwarn == 2 ? "" : "s");
    if ((rc = select_runs(&sw)) != 0)
        goto out;
    /* from here a SIGINT/SIGTERM stops the sweep cleanly, whenever it comes */
    if (!o->list_only) {
        sweep_signals_catch(&old_int, &old_term);
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
        for (size_t p = 0; p < sw.npoints && rc == 0 && !sweep_interrupted(); p++) {
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
            char at[CFG_PATH_MAX + 64], what[1024];
            int w = 0;
            if (sweep_cache_point(&sw, p, err, sizeof err) != 0) {
                refused_at_axis(&sw, p, where, err, 0);
                rc = 1;
            } else if (run_check_memory(&sw.pcache.pc, copies, table_bytes, err, sizeof err) != 0) {
                /* at the axis sweeping N, else at the axis that sent the value refused, else at the
                 * attribute that sizes it (N) when the file has it: as validate. An axis is blamed only
                 * when one run of the point alone does not fit (validate's refusal): when only the
                 * worker processes (-j) or the run table make it too much, no value an axis sent does */
                char err1[1024];
                run_cache rc1 = {0};
                int alone = run_check_memory(&sw.pcache.pc, 1, 0, err1, sizeof err1) != 0;
                if ((w = run_memory_where(&sw.pcache.pc, at, sizeof at, what, sizeof what)) == 2 ||
                    (w == 1 && (!alone || (run_refusal_axis(c, p, err, NULL, &rc1) < 0 && !refused_by_option(&sw, p, 1)))))
                    sweep_note(&sw, SWEEP_ERROR, "%s: %s, sweep point %zu%s: %s", at, what, p, where, err);
                else if (!alone)
                    sweep_note(&sw, SWEEP_ERROR, "sweep point %zu%s: %s", p, where, err);
                else
                    refused_at_axis(&sw, p, where, err, 1);
                run_cache_free(&rc1);
                rc = 1;
            } else if (copies > 1 || mpi_size > 1) {
                run_estimate e;
                run_estimate_point(&sw.pcache.pc, &e);
                sweep_order_estimate(&sw, p, e.messages);
            }
        }
        if (sweep_interrupted() && !rc) {
            sweep_note(&sw, SWEEP_WARNING, "interrupted before the first run; nothing was run");
            rc = 128 + sweep_signal();
        }
        if (rc)
            goto out;
    }
    if (!o->trace && (o->trace_nodes || o->trace_window || o->trace_jobs)) {
        sweep_note(&sw, SWEEP_ERROR, "--trace-nodes, --trace-window and --trace-jobs limit a trace: give --trace FILE.json");
        rc = 2;
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
    if (sweep_interrupted())
        rc = 128 + sweep_signal(); /* 130 for SIGINT, 143 for SIGTERM */

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
    /* interrupted: on_signal stays, so the same request delivered again within 0.5 s (a signal to the
     * process, then to its group) still does not kill what is left to do (the summary, the exit status
     * 130/143); a later one takes the default action there. Restoring the old handlers at once let that
     * second copy kill the process with the signal (status 2 under a slow exit: review6) */
    if (handlers && !sweep_interrupted()) {
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
    out->interrupted = sweep_interrupted();
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
