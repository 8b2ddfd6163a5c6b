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
    const char *out;    /* image path (.png or .svg); NULL = derived in the input folder */
    const char *title;  /* NULL = derived */
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

/* Returns a process exit status; reports through o->note. */
int plot_make(const plot_opts *o);

#endif
