/* Sweeps: the run table (point x replica), its execution in one process or
 * in worker processes (-j), resumable result folders, run selection for
 * clusters (--runs, --shard, SLURM_ARRAY_TASK_ID) and merging of folders.
 * Part of the command-line layer: it prints progress and results. */
#ifndef TASKNET_SWEEP_H
#define TASKNET_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

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

#endif
