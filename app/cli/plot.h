/* Figures through gnuplot: the command writes a self-contained, editable
 * gnuplot script (data inline) beside the image and runs gnuplot on it.
 * It never prints: the caller shows its notes. */
#ifndef TASKNET_PLOT_H
#define TASKNET_PLOT_H

#include <stddef.h>

typedef enum plot_kind {
    PLOT_METRIC_VS_PARAM,  /* metric mean +- CI (run.confidence) against a swept parameter, series by another */
    PLOT_METRIC_VS_METRIC, /* one metric against another, per point, series by a parameter */
    PLOT_TIMELINE,         /* per-node timeline of a trace (compute phases, waits, messages) */
    PLOT_LATENCY,          /* message latency distribution per point (CCDF) from DIR/latency/ */
    PLOT_COUNTS,           /* a count file of DIR (point,x,count rows): the fraction per x, per point */
} plot_kind;

typedef struct plot_opts {
    plot_kind kind;
    const char *input;  /* result folder, or the trace file for PLOT_TIMELINE */
    const char *x;      /* parameter path (or metric for METRIC_VS_METRIC); NULL = first axis */
    const char *y;      /* metric name; NULL = the workload's own (its plot_y) */
    const char *series; /* parameter path(s), comma-separated; NULL = the other axes, if any */
    /* PARAM=VALUE: only the points where swept PARAM has VALUE (as written
     * in summary.csv); swept axes neither x, series nor fixed here split
     * the series too, never one curve through several of their values */
#define PLOT_MAX_WHERE 8
    const char *where[PLOT_MAX_WHERE];
    size_t nwhere;
    const char *change; /* PARAM=BASE: the metric as its change in % from the point with PARAM=BASE
                         * (and the same other swept values); NULL = the metric itself */
    const char *out;    /* image path (.png or .svg); NULL = derived in the input folder */
    const char *title;  /* NULL = none (a paper's figure has a caption) */
    const char *xlabel, *ylabel; /* NULL = the quantity and its unit, derived */
    int heatmap;        /* metric over --x and one --series parameter as colours;
                         * PLOT_COUNTS: one row per point, colour the fraction */
    int panels;         /* PLOT_COUNTS: small multiples, a panel per point (per value of the
                         * swept parameters but --series, whose values are each panel's curves) */
    int bars;           /* categorical x: bars (with CI bars) rather than points */
    int lines;          /* numeric x with two values: join them all the same */
    int logx, logy;     /* logarithmic axes */
    const char *cls;    /* PLOT_LATENCY: message class control, data or all (NULL = all) */
    const char *counts; /* PLOT_COUNTS: the file in DIR ("NAME" or "NAME.csv") */
    /* where plot reports, one line at a time (the CLI prints: plot never does) */
    void (*note)(void *ctx, int kind, const char *text); /* enum plot_note */
    void *ctx;
} plot_opts;

enum plot_note {
    PLOT_NOTE_ERROR,   /* the figure was not made */
    PLOT_NOTE_WARNING, /* made, with something missing */
    PLOT_NOTE_INFO,    /* e.g. gnuplot is not installed: the script is written */
    PLOT_NOTE_WROTE,   /* a file written (the image, then its script) */
};

/* The quantity a metric measures, named for an axis ("mean job time" for
 * job_time_mean_s), and its SI unit ("s", "J", "b/s", "1/s", "B"; "" for a
 * ratio or a count), read from the name's unit suffix. */
void plot_metric_quantity(const char *metric, char *name, size_t len, const char **unit);
/* The same for a configuration parameter ("bandwidth", "b/s"); numeric is 0
 * for a parameter whose values are names (network.type, a policy). */
void plot_param_quantity(const char *path, char *name, size_t len, const char **unit, int *numeric);
/* "NAME (PREFIX UNIT)" with the SI prefix that puts maxabs in [1, 1000)
 * ("job time (ms)" for 0.0042 s), or NAME alone without a unit; returns
 * the factor a value in SI units is multiplied by on this axis. */
double plot_axis_label(const char *name, const char *unit, double maxabs, char *label, size_t len);

/* Returns a process exit status; reports through o->note. */
int plot_make(const plot_opts *o);

#endif
