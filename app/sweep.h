/* Sweeps: the run table (point x replica), its execution in one process,
 * in worker processes (-j) or over MPI ranks (sweep_mpi.c), resumable result
 * folders, run selection for clusters (--runs, --shard, SLURM_ARRAY_TASK_ID)
 * and merging of folders.
 * Part of the command-line layer: it prints progress and results. */
#ifndef TASKNET_SWEEP_H
#define TASKNET_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "metrics.h"

typedef struct sweep_opts {
    const char *out;     /* result folder (runs.csv, summary.csv, ...), NULL = none */
    unsigned jobs;       /* worker processes; 1 = run in this process */
    const char *runs;    /* run ids to execute, "3,5-9"; NULL = all */
    unsigned shard_k;    /* with shard_n: run the ids with id % shard_n == shard_k - 1 */
    unsigned shard_n;    /* 0 = no sharding */
    int json;            /* print the summary as JSON on stdout */
    int quiet;           /* nothing on stderr but errors, no table */
    int progress;        /* progress line on stderr */
    int verbose;         /* one line per finished run (events/s) */
    int list_only;       /* print the run table and run nothing */
    const char *trace;   /* Chrome trace-event JSON of the (single) selected run */
    const char *config;  /* the configuration file, for messages */
} sweep_opts;

/* Execute the selected runs of c. Returns a process exit status. */
int sweep_execute(const cfg *c, const sweep_opts *o);

/* Combine the runs.csv of several result folders into out/ (runs.csv and
 * summary.csv), refusing inconsistent inputs. Returns an exit status. */
int sweep_merge(const char *out, char *const *dirs, size_t ndirs);

/* Parse "3,5-9" into a membership test over [0, nruns). Returns 0 or -1 + err.
 * sel must hold nruns bytes. */
int sweep_parse_runs(const char *spec, uint64_t nruns, unsigned char *sel, char *err, size_t errlen);

/* FNV-1a 64 of a byte string (configuration fingerprints). */
uint64_t sweep_hash(const void *data, size_t len, uint64_t h);

/* ------------------------------------------------------------------------
 * The seam between running a run and recording it, for drivers that run
 * runs elsewhere (the -j worker processes in sweep.c, MPI ranks in
 * sweep_mpi.c). A driver asks sweep_next for run ids, has them simulated
 * (sweep_run, in any process holding the same sweep) and hands each
 * result to sweep_record in the one process that writes the folder. */

typedef struct sweep sweep;

#define SWEEP_NO_RUN UINT64_MAX

/* One run's outcome, sent as plain bytes between processes of one binary. */
typedef struct sweep_result {
    uint64_t id;            /* run id, or SWEEP_NO_RUN */
    int32_t status;         /* 0 = ok, else err holds the message */
    double m[METRIC_COUNT]; /* metrics of the run */
    char err[400];
} sweep_result;

/* Simulate run id in this process into r; its latency histogram goes to
 * latency_csv (NULL = none). Returns r->status. */
int sweep_run(sweep *sw, uint64_t id, const char *latency_csv, sweep_result *r);
/* Where run id's latency histogram belongs in the result folder (buf), or
 * NULL without --out. */
const char *sweep_latency_path(const sweep *sw, uint64_t id, char *buf, size_t len);
/* The next run to hand out, marked in flight: 0, or -1 when none is left or
 * the sweep was interrupted (SIGINT, SIGTERM). */
int sweep_next(sweep *sw, uint64_t *id);
/* Record a finished run (runs.csv row, progress), or report its failure;
 * only in the process that writes the folder. 0, or 1 if the run failed. */
int sweep_record(sweep *sw, const sweep_result *r);

#ifdef TASKNET_MPI
/* MPI driver (src/sweep_mpi.c, built by ./configure --with-mpi).
 * sweep_mpi_init starts MPI only when the environment says an MPI launcher
 * started more than one process; *size = 1 otherwise and the sweep runs as
 * without MPI (-j included). Rank 0 is the only writer of the folder: it hands
 * out one run id at a time to whichever rank asks (sweep_mpi_master) and
 * records every result; the other ranks simulate (sweep_mpi_worker) and
 * send their metrics and latency histograms back. Every rank must reach
 * sweep_mpi_finalize. */
int sweep_mpi_init(int *rank, int *size, char *err, size_t errlen);
int sweep_mpi_master(sweep *sw);        /* exit status */
int sweep_mpi_worker(sweep *sw);        /* exit status */
void sweep_mpi_stop_workers(void);      /* rank 0 without runs to hand out */
void sweep_mpi_finalize(void);
#endif

#endif
