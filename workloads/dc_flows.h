/* The dc-flows workload's parameters and metrics, for the workloads built on
 * it (workloads/wl_vef.c: seed 000's DCNW, CDCNW and FLOWS trace records).
 * The model and its rules: workloads/wl_dc_flows.c's head. */
#ifndef TASKNET_DC_FLOWS_H
#define TASKNET_DC_FLOWS_H

#include <stdint.h>

#include "dist.h"
#include "params.h"

#define DCF_CLASSES 4 /* <classK> elements of a configuration (a VEF FLOWS trace: any number) */

typedef struct dcf_class_params {
    double share; /* fraction of flows (0: class unused) */
    dist size;    /* bytes */
    int dest;     /* 0 inherit, else 1 + DCF_* (uniform, gaussian, poisson) */
    int prio;     /* 0 inherit, else 1 + class */
} dcf_class_params;

typedef struct dcf_params {
    dist sizes;              /* bytes (or classes) */
    double load;             /* fraction of B per node */
    double load_rate_bps;    /* bit/s per node */
    double flow_rate_per_s;  /* flows/s per node */
    int64_t duration_ps;     /* generate until (0 = use flows) */
    uint64_t flows;          /* flows over all nodes (0 = use duration) */
    int dest;                /* 0 uniform, 1 gaussian, 2 poisson */
    double dest_mean;        /* fraction of N */
    double dest_sigma;       /* fraction of N */
    uint64_t small_max_bytes; /* small: size < this */
    uint64_t large_min_bytes; /* large: size >= this */
    int64_t warmup_ps;       /* measured: arrival >= warmup */
    int64_t cooldown_ps;     /* measured: arrival < duration - cooldown */
    dcf_class_params cls[DCF_CLASSES];
    param_file flow_list;    /* the flows themselves (start_s,src,dst,bytes): no generation */
    /* Not rows: set by a workload built on this one (NULL / 0 from a configuration). */
    const dcf_class_params *classes; /* [nclasses] instead of cls (not owned): a FLOWS trace's classes */
    uint32_t nclasses;
    uint32_t tasks;                  /* the ranks 0..tasks-1 generate and receive (0: all of the workload's) */
} dcf_params;

/* Seven metrics per group of flows: count, FCT mean/p50/p99, slowdown mean/p50/p99. */
#define DCF_GROUP(X, g, what)                                                        \
    X(flows_##g, "measured " what " flows")                                          \
    X(fct_##g##_mean_s, "flow completion time of " what " flows: mean")              \
    X(fct_##g##_p50_s, "flow completion time of " what " flows: median")             \
    X(fct_##g##_p99_s, "flow completion time of " what " flows: 99th percentile")    \
    X(fct_slowdown_##g##_mean, "FCT / zero-load time of " what " flows: mean")       \
    X(fct_slowdown_##g##_p50, "FCT / zero-load time of " what " flows: median")      \
    X(fct_slowdown_##g##_p99, "FCT / zero-load time of " what " flows: 99th percentile")

#define DCF_METRICS(X)                                                                                     \
    X(flows_generated, "flows generated")                                                                 \
    X(flows_measured, "flows in the measurement window")                                                   \
    X(fct_mean_s, "flow completion time (arrival to last byte delivered): mean")                          \
    X(fct_p50_s, "flow completion time: median")                                                          \
    X(fct_p99_s, "flow completion time: 99th percentile")                                                 \
    X(fct_slowdown_mean, "FCT / the flow's zero-load time on the fabric: mean")                           \
    X(fct_slowdown_p50, "FCT slowdown: median")                                                           \
    X(fct_slowdown_p99, "FCT slowdown: 99th percentile")                                                  \
    DCF_GROUP(X, small, "small (< small-max)")                                                            \
    DCF_GROUP(X, medium, "medium")                                                                        \
    DCF_GROUP(X, large, "large (>= large-min)")                                                           \
    DCF_GROUP(X, class0, "class 0")                                                                       \
    DCF_GROUP(X, class1, "class 1")                                                                       \
    DCF_GROUP(X, class2, "class 2")                                                                       \
    DCF_GROUP(X, class3, "class 3")                                                                       \
    X(execution_time_s, "time of the last delivery: all traffic received (Andujar et al.)")                    \
    X(offered_load, "offered load per node, a fraction of B")                                             \
    X(throughput, "with a duration D: bits delivered by D / (N B D)")                                    \
    X(window_start_s, "measure=window: start of the foreground's window, its first activity")             \
    X(window_end_s, "measure=window: end of the foreground's window, its last workload's end")

#endif
