/* Figures through gnuplot: the command writes a self-contained, editable
 * gnuplot script (data inline) beside the image and runs gnuplot on it.
 * Part of the command-line layer. */
#ifndef TASKNET_PLOT_H
#define TASKNET_PLOT_H

typedef enum plot_kind {
    PLOT_METRIC_VS_PARAM,  /* metric mean +- 95% CI against a swept parameter, series by another */
    PLOT_METRIC_VS_METRIC, /* one metric against another, per point, series by a parameter */
    PLOT_TIMELINE,         /* per-node timeline of a trace (compute phases, waits, messages) */
    PLOT_LATENCY,          /* message latency distribution per point (CCDF) from DIR/latency/ */
} plot_kind;

typedef struct plot_opts {
    plot_kind kind;
    const char *input;  /* result folder, or the trace file for PLOT_TIMELINE */
    const char *x;      /* parameter path (or metric for METRIC_VS_METRIC); NULL = first axis */
    const char *y;      /* metric name; NULL = speedup */
    const char *series; /* parameter path; NULL = the other axis, if any */
    const char *out;    /* image path (.png or .svg); NULL = derived in the input folder */
    const char *title;  /* NULL = derived */
    int logx, logy;     /* logarithmic axes */
    const char *cls;    /* PLOT_LATENCY: message class control, data or all (NULL = all) */
} plot_opts;

/* Returns a process exit status; prints what it wrote. */
int plot_make(const plot_opts *o);

#endif
