/* Result files and machine-readable output: runs.csv (one row per run),
 * summary.csv (one row per point: mean and confidence half-width per
 * metric, at run.confidence),
 * JSON. Numbers are printed with %.17g (exact round trip); a metric that
 * does not apply to a run (NAN) is an empty cell, and null in JSON. */
#ifndef TASKNET_REPORT_H
#define TASKNET_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "metrics.h"
#include "run.h"
#include "stats.h"

/* Per point: the runs it has and, per metric, the accumulator of the
 * values its runs measured (a run's NAN is left out). */
typedef struct report_point {
    uint64_t runs;
    stats_acc *m; /* [layout n] */
} report_point;

report_point *report_points_new(size_t npoints, const run_layout *l);
void report_points_free(report_point *pts, size_t npoints);
void report_point_add(report_point *p, const run_layout *l, const double *m);

/* runs.csv: run,point,replica,seed,config_hash,<swept values>,<metrics>,latency_csv_fnv1a64,row_fnv1a64.
 * row_fnv1a64 is the FNV-1a 64 of the row's text before its last comma:
 * an edited cell (a plausible number) no longer matches it, and resume
 * redoes that run, merge refuses it. */
void report_runs_header(FILE *f, const cfg *base, const run_layout *l);
/* FNV-1a 64 of text (row_fnv1a64). */
uint64_t report_row_digest(const char *text, size_t len);
/* config_hash: fingerprint of the point's configuration (resume and merge
 * check it); latency_digest: FNV-1a 64 of the run's latency/run-ID.csv
 * (resume redoes a run whose file does not match it), NULL = none. */
void report_runs_row(FILE *f, const cfg *base, const run_layout *l, size_t point, uint64_t replica,
                     uint64_t config_hash, const double *m, const uint64_t *latency_digest);
/* The name of the confidence-interval columns of summary.csv at level
 * (run.confidence): "ci95" at 0.95, "ci99" at 0.99, "ci99.9" at 0.999. */
void report_ci_name(double level, char *buf, size_t len);
/* Write summary.csv for npoints points: per metric <name>_mean and its
 * confidence half-width <name>_<report_ci_name(base->confidence)>.
 * Returns 0 or -1 (errno set). */
int report_summary_csv(const char *path, const cfg *base, const run_layout *l, const report_point *pts,
                       size_t npoints);
/* {"points":[{"params":{...},"replicas":R,"metrics":{"name":{"mean":x,"ci95":y},...}}]}
 * (the key follows run.confidence, as the CSV columns do) */
void report_summary_json(FILE *f, const cfg *base, const run_layout *l, const report_point *pts, size_t npoints);

/* One analyze record of a resolved point pc of base: its swept values, N,
 * B, the fabric's physical layer and the workload's analytic model. */
void report_analyze_json(FILE *f, const cfg *base, size_t point, const cfg *pc, const run_info *info,
                         const wl_analysis *a);
void report_analyze_text(FILE *f, const cfg *base, size_t point, const cfg *pc, const run_info *info,
                         const wl_analysis *a);

/* DIR/latency/run-ID.csv: the latency histogram of run ID (run_outputs.latency_csv). */
void report_latency_path(char *buf, size_t len, const char *dir, uint64_t id);

/* JSON string with escapes. */
void report_json_string(FILE *f, const char *s);
/* CSV field, quoted when it holds a comma, quote or newline. */
void report_csv_field(FILE *f, const char *s);

#endif
