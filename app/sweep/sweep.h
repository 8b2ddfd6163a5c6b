/* Sweeps: the run table (point x replica), its execution in one process,
 * in worker processes (-j) or over MPI ranks (a driver each, chosen from a
 * table), resumable result folders, run selection for clusters (--runs,
 * --shard, SLURM_ARRAY_TASK_ID) and merging of folders.
 *
 * A sweep never prints: what it has to say goes through the caller's
 * sweep_ui (the CLI prints it), and what it computed comes back in a
 * sweep_outcome (the CLI prints the table or the JSON).
 *
 * Files: sweep.c (the plan and its execution), sweep_store.c (the result
 * folder: resume, summary, merge), sweep_fork.c (-j worker processes),
 * sweep_mpi.c (MPI ranks). */
#ifndef TASKNET_SWEEP_H
#define TASKNET_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "metrics.h"
#include "report.h"
#include "run.h"

typedef struct sweep_opts {
    const char *out;     /* result folder (runs.csv, summary.csv, ...), NULL = none */
    unsigned jobs;       /* worker processes; 1 = run in this process */
    const char *runs;    /* run ids to execute, "3,5-9"; NULL = all */
    unsigned shard_k;    /* with shard_n: run the ids with id % shard_n == shard_k - 1 */
    unsigned shard_n;    /* 0 = no sharding */
    int quiet;           /* no information notes (errors and warnings still) */
    int list_only;       /* work out the run table and run nothing */
    const char *trace;   /* Chrome trace-event JSON of the (single) selected run */
    const char *trace_nodes, *trace_window, *trace_jobs; /* its filter (trace_filter_parse); NULL = all */
    const char *config;  /* the configuration file, for messages */
    /* A point refused past the checks by a value the command line set (its
     * removal alone would let the point through): that value's option, as
     * written ("--set workload.jobs=1e10"), else NULL; culprit NULL: none.
     * with: "FILE (with --set ...)" when the command line set values, else
     * NULL (a refusal blamed on no option and no axis names them all). */
    const char *(*culprit)(void *ctx, size_t point, int memory); /* memory: the estimate refused it */
    void *culprit_ctx;
    const char *with;
    double run_progress_every_s; /* progress inside each run this often (ui->run_progress; 0 = none;
                                    in this process and -j workers, not MPI ranks) */
} sweep_opts;

/* An error, a warning, information (not shown with -q), or a detail line
 * that belongs to the note before it (shown as is, indented). */
typedef enum sweep_note_kind { SWEEP_ERROR, SWEEP_WARNING, SWEEP_INFO, SWEEP_DETAIL } sweep_note_kind;

/* Where a sweep reports as it goes (each callback may be NULL). */
typedef struct sweep_ui {
    void *ctx;
    /* a line to show the user (no trailing newline) */
    void (*note)(void *ctx, sweep_note_kind kind, const char *text);
    /* after each finished run: runs done of todo, seconds since the start */
    void (*progress)(void *ctx, uint64_t done, uint64_t todo, double elapsed_s);
    /* after each finished run, its id, point, replica, events and wall time */
    void (*run_done)(void *ctx, uint64_t id, size_t point, uint64_t replica, double events, double wall_s);
    /* inside a long run, every sweep_opts.run_progress_every_s */
    void (*run_progress)(void *ctx, uint64_t id, const run_progress *p);
} sweep_ui;

/* What a sweep did, for the caller to show. */
typedef struct sweep_outcome {
    int status;            /* process exit status: 0, 1 failure, 2 usage, 128 + signal when interrupted
                              (130 SIGINT, 143 SIGTERM) */
    int interrupted;       /* SIGINT/SIGTERM stopped it */
    int gave_up;           /* failures stopped it */
    uint64_t nruns;        /* runs of the table */
    uint64_t ntodo, ndone; /* selected and not yet done at the start; done this time */
    double wall_s, events; /* of the runs done this time */
    long peak_rss_mib;     /* this process and its children */
    char procs[80];        /* "2 processes", "4 MPI ranks: ..." */
    int have_results;      /* the fields below are set (the sweep got as far as running) */
    run_layout layout;     /* the runs' metrics */
    report_point *pts;     /* [npoints]: every point's done runs */
    size_t npoints;
    unsigned char *selected; /* [nruns]: part of this invocation's selection */
    unsigned char *done;     /* [nruns]: a result exists */
} sweep_outcome;

/* Execute the selected runs of c (an MPI rank other than 0 only
 * simulates: its outcome has no results). out must be freed with
 * sweep_outcome_free. */
void sweep_execute(const cfg *c, const sweep_opts *o, const sweep_ui *ui, sweep_outcome *out);
void sweep_outcome_free(sweep_outcome *out);

/* Combine the runs.csv of several result folders into out/ (runs.csv and
 * summary.csv), refusing inconsistent inputs. Returns an exit status. */
int sweep_merge(const char *out, char *const *dirs, size_t ndirs, const sweep_ui *ui);

/* Parse "3,5-9" into a membership test over [0, nruns). Returns 0 or -1 + err.
 * sel must hold nruns bytes. */
int sweep_parse_runs(const char *spec, uint64_t nruns, unsigned char *sel, char *err, size_t errlen);

/* Memory a sweep of c holds for its run table (a result per run), bytes:
 * checked before anything is allocated. */
double sweep_table_bytes(const cfg *c);

/* FNV-1a 64 of a byte string (configuration fingerprints). */
uint64_t sweep_hash(const void *data, size_t len, uint64_t h);

#endif
