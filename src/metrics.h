/* Metrics: one double per metric and run, each named with its unit
 * (`job_time_mean_s`) and described in one line. The core's own metrics
 * (those of every run: messages, latencies, span, events) are the table
 * below; a fabric or a workload declares its own in its file with the same
 * X-macro shape (METRIC_DEF) and fills them itself. A run's metrics are laid
 * out by the application (app/run/run.h: run_layout) as the union, by name, of
 * the core's and those of every plugin a sweep uses; a metric that does not
 * apply to a run (or that its plugin did not measure) is NAN, written as an
 * empty cell in CSV and null in JSON, never as 0.
 * Adding a core metric: one line here, then fill it where it is measured. */
#ifndef TASKNET_METRICS_H
#define TASKNET_METRICS_H

#include <math.h>
#include <stddef.h>
#include <string.h>

typedef struct metric_def {
    const char *name; /* column name, unit last: "msg_latency_mean_s" */
    const char *desc; /* one line */
    /* NULL (a column whenever the plugin is used), or "path=value" of one of
     * the plugin's own parameters: a fabric's column only when some point of
     * the sweep has that value (app/run/run.c's layout; e.g. the electrical
     * switch's link utilisation, "network.router=input-queued"), so a
     * plugin's other runs keep their files */
    const char *when;
} metric_def;

/* X(name, description) -> an enum entry and a metric_def entry. */
#define METRIC_ENUM(name, desc) M_##name,
#define METRIC_DEF(name, desc) {#name, desc, NULL},

#define TN_METRICS(X)                                                                          \
    X(span_s, "first activity to last (job arrival to job completion, generation to delivery; several workloads: the earliest first to the latest last)") \
    X(network_utilization, "bits delivered / (B * N * span): measured rho_c")                  \
    X(messages_sent, "messages handed to the network")                                         \
    X(messages_delivered, "messages delivered to their destination")                           \
    X(bytes_delivered, "bytes of all delivered messages")                                      \
    X(msg_latency_mean_s, "message latency, hand-over to last bit at destination: mean")       \
    X(msg_latency_p50_s, "message latency: median")                                            \
    X(msg_latency_p99_s, "message latency: 99th percentile")                                   \
    X(msg_latency_max_s, "message latency: maximum")                                           \
    X(msg_latency_control_mean_s, "control-message latency: mean")                             \
    X(msg_latency_control_p50_s, "control-message latency: median")                           \
    X(msg_latency_control_p99_s, "control-message latency: 99th percentile")                   \
    X(msg_latency_control_max_s, "control-message latency: maximum")                           \
    X(msg_latency_data_mean_s, "data-message latency: mean")                                   \
    X(msg_latency_data_p50_s, "data-message latency: median")                                  \
    X(msg_latency_data_p99_s, "data-message latency: 99th percentile")                         \
    X(msg_latency_data_max_s, "data-message latency: maximum")                                 \
    X(msg_head_latency_mean_s, "message head latency, hand-over to first bit at destination: mean") \
    X(msg_head_latency_max_s, "message head latency: maximum")                                 \
    X(msg_head_latency_control_mean_s, "control-message head latency: mean")                   \
    X(msg_head_latency_data_mean_s, "data-message head latency: mean")                         \
    X(bandwidth_bps, "per-node access bandwidth B used by the run")                            \
    X(drops, "packets dropped at switch buffers (network.buffer, RED; empty: no finite buffers)") \
    X(ecn_marks, "packets marked CE at switch ports (empty: no buffers or marking configured)") \
    X(queue_max_bytes, "largest bytes waiting at a switch output port, over ports and time")  \
    X(queue_mean_bytes, "time-weighted mean bytes waiting at the busiest switch output port over the run") \
    X(pause_frames, "PFC pause frames sent by switches (empty: no PFC)")                      \
    X(paused_time_s, "time host classes spent paused by PFC, summed over hosts and classes")  \
    X(retransmissions, "data segments the transport sent again (empty: transport none)")      \
    X(timeouts, "retransmission timer expiries of the transport")                             \
    X(goodput_bps, "application bytes delivered through the transport x 8 / (last delivery - first hand-over)") \
    X(events, "simulation events executed")                                                    \
    X(wall_s, "wall-clock seconds of the run")

typedef enum metric_id { TN_METRICS(METRIC_ENUM) METRIC_CORE_COUNT } metric_id;

extern const metric_def metric_core[METRIC_CORE_COUNT];

/* 1 when the metric depends only on the configuration and the seed (all
 * but wall_s): only those go to runs.csv/summary.csv, so equal seeds give
 * byte-identical files; wall time goes to timing.csv. */
static inline int metric_is_deterministic(const char *name)
{
    return strcmp(name, "wall_s") != 0;
}

/* Index of the metric called name among n definitions, or -1. */
long metric_find(const metric_def *defs, size_t n, const char *name);

/* Fill n metrics with NAN ("not measured"). */
static inline void metric_unset(double *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        m[i] = NAN;
}

#endif
