/* Result files and machine-readable output: runs.csv (one row per run),
 * summary.csv (one row per point: mean and 95% CI half-width per metric),
 * JSON on stdout. Numbers are printed with %.17g (exact round trip). */
#ifndef TASKNET_REPORT_H
#define TASKNET_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "footprint.h"
#include "metrics.h"
#include "stats.h"

/* Per point: the accumulators of every metric over its replicas. */
typedef struct report_point {
    stats_acc m[METRIC_COUNT];
} report_point;

void report_runs_header(FILE *f, const cfg *base);
/* config_hash: fingerprint of the point's configuration (resume and merge check it). */
void report_runs_row(FILE *f, const cfg *base, size_t point, uint64_t replica, uint64_t config_hash,
                     const double *m);
/* Write summary.csv for npoints points. Returns 0 or -1 (errno set). */
int report_summary_csv(const char *path, const cfg *base, const report_point *pts, size_t npoints);
/* {"points":[{"params":{...},"replicas":R,"metrics":{"name":{"mean":x,"ci95":y},...}}]} */
void report_summary_json(FILE *f, const cfg *base, const report_point *pts, size_t npoints);

/* One analyze record: params of the point, footprint and bounds. */
void report_analyze_json(FILE *f, const cfg *base, size_t point, const cfg *pc, const footprint *fp,
                         const load_bounds *lb);
void report_analyze_text(FILE *f, const cfg *base, size_t point, const cfg *pc, const footprint *fp,
                         const load_bounds *lb);

/* DIR/latency/run-ID.csv: the latency histogram of run ID (run_outputs.latency_csv). */
void report_latency_path(char *buf, size_t len, const char *dir, uint64_t run_id);

/* JSON string with escapes. */
void report_json_string(FILE *f, const char *s);
/* CSV field, quoted when it holds a comma, quote or newline. */
void report_csv_field(FILE *f, const char *s);

#endif
