/* One run: a configuration point and a replica, wired together (fabric,
 * workload, engine, streams) and measured into double[METRIC_COUNT]. */
#ifndef TASKNET_RUN_H
#define TASKNET_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "footprint.h"

/* Compute the analytic footprint of c's workload and resolve derived
 * parameters in place: bandwidth from network.zeta (B = zeta F), arrival
 * rate from workload.load (beta = rho_x (N-1) / F_x). 0 or -1 + err. */
int run_resolve(cfg *c, footprint *fp, load_bounds *lb, char *err, size_t errlen);

/* Footprints already computed in this process, keyed by everything a
 * footprint depends on (the workload's tree and task parameters, eps, the
 * Monte Carlo sample count and seed): the points of a sweep over N or B
 * share one Monte Carlo instead of redoing it (most of a fig9 sweep). */
typedef struct run_fp_cache {
    char **key;
    footprint *fp;
    size_t n, cap;
} run_fp_cache;

void run_fp_cache_free(run_fp_cache *fc); /* a zeroed cache is empty */
/* run_resolve, reusing and filling fc (NULL: no cache). */
int run_resolve_cached(cfg *c, run_fp_cache *fc, footprint *fp, load_bounds *lb, char *err,
                       size_t errlen);

/* Simulate replica `replica` of the resolved configuration c. Fills every
 * metric in m (METRIC_COUNT entries). 0, or -1 + err. */
int run_one(const cfg *c, const footprint *fp, uint64_t replica, double *m, struct trace *tr,
            char *err, size_t errlen);

/* The latency histogram of a run: log bins from RUN_HIST_LO_S to
 * RUN_HIST_HI_S, RUN_HIST_PER_DECADE per decade, plus the two open ends. */
#define RUN_HIST_LO_S 1e-9
#define RUN_HIST_HI_S 10.0
#define RUN_HIST_PER_DECADE 20

/* What a run writes besides its metrics (each optional). */
typedef struct run_outputs {
    struct trace *trace;     /* timeline recorder */
    const char *latency_csv; /* message latency histogram: rows class,bin_lo_s,bin_hi_s,count
                                (class control, data or all; non-empty bins), written atomically */
} run_outputs;

/* Stop the run in progress in this process, and any run started after, at
 * once (async-signal-safe: sweep's SIGINT/SIGTERM handler calls it): it
 * returns -1 with "interrupted" and nothing recorded. run_abort_clear
 * re-arms runs. */
void run_abort(void);
void run_abort_clear(void);

/* run_one with outputs; o may be NULL. */
int run_one_out(const cfg *c, const footprint *fp, uint64_t replica, double *m, const run_outputs *o,
                char *err, size_t errlen);

#endif
