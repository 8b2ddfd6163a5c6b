/* Internals shared by the app/sweep/sweep*.c files: the sweep's state, the seam
 * between running a run and recording it (for the drivers), the result
 * folder, and the drivers' table. */
#ifndef TASKNET_SWEEP_IMPL_H
#define TASKNET_SWEEP_IMPL_H

#include <signal.h>
#include <stdio.h>

#include "sweep.h"
#include "trace.h"

typedef struct run_rec {
    int done;      /* result present (this session or an earlier one) */
    uint64_t hash; /* fingerprint of the point's configuration */
    double *m;     /* metrics [layout n] (wall_s only for runs of this session) */
    uint64_t from; /* the id its row and histogram have in the folder: this id, unless the folder
                      was written by a sweep with other replicas or axis values (store_open renames) */
    uint64_t hist; /* FNV-1a 64 of its latency histogram file's bytes (has_hist) */
    int has_hist;  /* the run has a histogram in the folder (every run written with --out) */
} run_rec;

/* A process's resolved point, reused across that point's replicas. */
typedef struct point_cache {
    size_t point; /* SIZE_MAX = empty */
    cfg pc;
    run_cache rc; /* what the workloads keep between points (e.g. footprints) */
} point_cache;

/* Which run next with several processes (app/sweep/sweep_order.c). */
#define SWEEP_HELD 8 /* replicas remembered per worker, most recent first */
typedef struct sweep_order {
    int by_cost;          /* 1: the costliest point first (several processes); 0: id order */
    double *est;          /* [npoints] static cost: messages the point's runs send (1 when unknown) */
    double *meas_s;       /* [npoints] wall time of its first finished run, s (NAN: none yet) */
    double sum_est, sum_meas; /* over the measured points: scales the unmeasured ones' estimates */
    uint64_t *npend;      /* [npoints] runs pending */
    uint64_t *rep_next;   /* [npoints] no replica below is pending */
    size_t *pos;          /* [npoints] place in its heap (SIZE_MAX: in none) */
    size_t *heap[2];      /* points with runs pending: [0] not measured, by est; [1] measured, by meas_s */
    size_t len[2];
    unsigned workers;
    uint64_t *held;       /* [workers * SWEEP_HELD] replicas each worker ran, most recent first
                             (UINT64_MAX: empty) */
} sweep_order;

typedef struct sweep {
    const cfg *c;
    const sweep_opts *o;
    const sweep_ui *ui;
    unsigned jobs;            /* worker processes this time (-j, at most the runs to do) */
    run_layout layout;        /* the runs' metrics */
    double *mstore;           /* [nruns * layout.n]: rec[id].m */
    size_t npoints;
    uint64_t nruns;
    uint64_t *point_hash;     /* per point */
    run_rec *rec;             /* per run id */
    unsigned char *todo;      /* per run id: RUN_PENDING, RUN_INFLIGHT or 0 (done or not selected) */
    unsigned char *selected;  /* per run id: selected by --runs/--shard */
    FILE *runs_csv;           /* appended as runs finish */
    FILE *timing_csv;
    double t0_s;
    uint64_t ndone_now, ntodo;
    double events_now;
    double last_summary_s;
    uint64_t next;            /* sweep_next resumes its scan here (id order) */
    sweep_order ord;          /* which run next (several processes) */
    point_cache pcache;       /* this process's resolved point */
    int giving_up;            /* a failure that would repeat: hand out no more runs */
    int lock_fd;              /* the folder's lock (store_lock), -1 when not held */
    /* where progress inside a run goes in this process (NULL: nowhere): the
     * ui in the process that owns it, the parent's pipe in a -j worker */
    void (*progress_sink)(struct sweep *sw, uint64_t id, const run_progress *p);
    int progress_fd;          /* a -j worker's result pipe */
    int remapped;             /* some kept run has another id in the folder (rec.from != id) */
    char procs[80];           /* how the runs ran, for the last line */
} sweep;

enum { RUN_PENDING = 1, RUN_INFLIGHT = 2 };

/* Column layout of runs.csv: run,point,replica,seed,config_hash,<axes>,<metrics>,latency_csv_fnv1a64. */
#define RUNS_FIXED_COLS 5

/* The fingerprint of a point's configuration (sweep.c): every parameter
 * that applies but run.replicas, and the contents of the files values read. */
uint64_t sweep_fingerprint(const cfg *c);
/* "empirical(PATH,linear)" -> "empirical(,linear)": a value without the
 * file it reads (which the fingerprint takes by its contents). */
void sweep_strip_input_path(char *text);

/* A note for the user through the caller's ui (never printed here). */
void sweep_note(const sweep *sw, sweep_note_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
double sweep_now_s(void);
/* SIGINT/SIGTERM arrived during this sweep; sweep_signal: which (0: none). */
int sweep_interrupted(void);
int sweep_signal(void);
/* From now on a SIGINT/SIGTERM stops the sweep cleanly (the run in
 * progress is dropped); the handlers before go to old_int, old_term. */
void sweep_signals_catch(struct sigaction *old_int, struct sigaction *old_term);
/* Resolve point `point` into the process's point cache (sw->pcache), once
 * for all its replicas. 0, or -1 + err. */
int sweep_cache_point(sweep *sw, size_t point, char *err, size_t errlen);

/* ---- the seam between running a run and recording it ----
 * A driver asks sweep_next for run ids, has them simulated (sweep_run, in
 * any process holding the same sweep) and hands each result to
 * sweep_record in the one process that writes the folder. */

#define SWEEP_NO_RUN UINT64_MAX

/* One run's outcome, sent as plain bytes between processes of one binary:
 * sweep_result_size(sw) bytes, its metrics in the sweep's layout. */
typedef struct sweep_result {
    uint64_t id;    /* run id, or SWEEP_NO_RUN */
    int32_t status; /* 0 = ok, SWEEP_PROGRESS = prog holds where run id stands (it goes on), else
                       err holds the message */
    char err[400];
    run_progress prog;
    double m[];     /* metrics of the run, [layout n] */
} sweep_result;

#define SWEEP_PROGRESS 2

size_t sweep_result_size(const sweep *sw);
sweep_result *sweep_result_new(const sweep *sw); /* zeroed, id SWEEP_NO_RUN; free() it */
/* Simulate run id in this process into r (tr: a timeline, may be NULL);
 * its latency histogram goes to latency_csv (NULL = none). Returns r->status. */
int sweep_run(sweep *sw, uint64_t id, trace *tr, const char *latency_csv, sweep_result *r);
/* Where run id's latency histogram belongs in the result folder (buf), or
 * NULL without --out. */
const char *sweep_latency_path(const sweep *sw, uint64_t id, char *buf, size_t len);
/* ---- which run next (sweep_order.c) ---- */

/* The static cost of a point's runs (before sweep_order_init): the
 * messages its workload expects to send (0 or unknown: 1). */
void sweep_order_estimate(sweep *sw, size_t point, double cost);
/* Hand out by cost to `workers` processes (by_cost), or in id order,
 * over the runs todo holds pending now. */
void sweep_order_init(sweep *sw, int by_cost, unsigned workers);
void sweep_order_free(sweep *sw);
/* The next run for worker `worker` (0 .. workers-1) to run, marked in
 * flight: 0, or -1 when none is left or the sweep was interrupted (SIGINT,
 * SIGTERM). Results do not depend on the order. */
int sweep_next(sweep *sw, unsigned worker, uint64_t *id);
/* A run handed out came back without a result (its process died, or a
 * signal dropped it): hand it out again. */
void sweep_requeue(sweep *sw, uint64_t id);
/* Worker `worker`'s process was replaced: it holds nothing any more. */
void sweep_worker_lost(sweep *sw, unsigned worker);
/* Run id finished in wall_s: the first of its point measures the point. */
void sweep_order_measured(sweep *sw, uint64_t id, double wall_s);
/* Record a finished run (runs.csv row, progress), or report its failure;
 * only in the process that writes the folder (sweep_store.c). 0, or 1 if
 * the run failed. */
int sweep_record(sweep *sw, const sweep_result *r);
void sweep_pcache_free(sweep *sw);

/* ---- drivers: how the selected runs are executed ---- */

typedef struct sweep_driver {
    const char *name;
    /* run every selected run (sweep_next until none is left); exit status */
    int (*run)(sweep *sw);
} sweep_driver;

extern const sweep_driver sweep_serial_driver; /* sweep.c: in this process, in id order */
extern const sweep_driver sweep_fork_driver;   /* sweep_fork.c: -j worker processes */

#ifdef TASKNET_MPI
/* MPI (sweep_mpi.c, built by ./configure --with-mpi). sweep_mpi_init starts
 * MPI only when the environment says an MPI launcher started more than one
 * process; *size = 1 otherwise and the sweep runs as without MPI (-j
 * included). Rank 0 is the only writer of the folder: it hands out one run
 * id at a time to whichever rank asks (sweep_mpi_driver) and records every
 * result; the other ranks simulate (sweep_mpi_worker) and send their
 * metrics and latency histograms back. Every rank must reach
 * sweep_mpi_finalize. */
extern const sweep_driver sweep_mpi_driver;
int sweep_mpi_init(int *rank, int *size, char *err, size_t errlen);
int sweep_mpi_worker(sweep *sw);              /* exit status */
void sweep_mpi_stop_workers(const sweep *sw); /* rank 0 without runs to hand out */
void sweep_mpi_finalize(void);
#endif

/* ---- the result folder (sweep_store.c) ---- */

/* The layout of the runs' metrics and one record per run. */
void sweep_records_init(sweep *sw);
void sweep_records_free(sweep *sw);
/* Take the folder for this process alone (creating it): a lock on
 * out/.lock held until store_unlock or the process ends (a POSIX record
 * lock: it dies with the process, even SIGKILLed, and works over NFS). A
 * folder another process holds is refused, naming that process. 0 or -1. */
int store_lock(sweep *sw);
void store_unlock(sweep *sw);
/* Earlier results from out/runs.csv, each row checked against the folder's
 * own run table (its config.xml) and attributed to this sweep's run of the
 * same point configuration (fingerprint) and replica, so a folder resumes
 * with more replicas or more axis values; a folder holding results this
 * sweep would not keep (another configuration, a point or replica it no
 * longer has) is refused. A run whose latency histogram is missing or does
 * not match its checksum is dropped (and so redone). 0 or -1. */
int store_load(sweep *sw);
/* Open the folder for this session: latency/ (histograms of kept runs
 * renamed to their ids in this sweep), runs.csv (what is kept, rewritten),
 * then config.xml, and timing.csv opened for appending. 0 or -1. */
int store_open(sweep *sw);
/* FNV-1a 64 of a file's bytes: 0, or -1 when it cannot be read. */
int store_file_digest(const char *path, uint64_t *digest);
/* A finished run's row, timing and (every 2 s) the summary. */
void store_append(sweep *sw, uint64_t id);
/* Close the folder: runs.csv sorted by id, summary.csv. 0 or -1. */
int store_close(sweep *sw);
/* Per-point accumulators over the done runs. */
report_point *sweep_accumulate(const sweep *sw);

#endif
