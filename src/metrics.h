/* The metrics of one run, in one table: name (with its unit) and meaning.
 * Every run fills a double[METRIC_COUNT]; runs.csv and summary.csv have one
 * column per entry, in this order. A metric that does not apply is 0.
 * Adding a metric: one line here, then fill it where it is measured. */
#ifndef TASKNET_METRICS_H
#define TASKNET_METRICS_H

#define TN_METRICS(X)                                                                          \
    X(jobs_completed, "jobs whose job-complete reached the scheduler")                         \
    X(job_time_mean_s, "mean job time, arrival to job-complete reception")                     \
    X(job_time_p99_s, "99th percentile of job time")                                           \
    X(queue_time_mean_s, "mean time a job waits in the scheduler FIFO")                        \
    X(service_time_mean_s, "mean time from root assignment to job-complete reception")         \
    X(speedup, "sum of job work / sum of job service time")                                    \
    X(speedup_incl_queue, "sum of job work / sum of job time (queueing included)")             \
    X(node_utilization, "compute-phase time / ((N-1) * span): measured rho_x")                 \
    X(network_utilization, "bits delivered / (B * N * span): measured rho_c")                  \
    X(offered_load, "uniform-random: configured offered load per node, a fraction of B")       \
    X(throughput, "uniform-random: accepted load, bits delivered by the end T of generation / (N B T)") \
    X(sync_overhead, "1 - compute time / allocated time of compute nodes")                     \
    X(span_s, "first job arrival to last job-complete reception (or last delivery)")           \
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
    X(packets_dropped, "packets dropped by contention in the fabric")                          \
    X(retransmissions, "packet retransmissions")                                               \
    X(tries_per_packet_mean, "mean transmissions per delivered packet")                        \
    X(phy_losses, "packets lost to bit errors (physical layer)")                               \
    X(edge_fifo_full, "messages that did not fit their source's edge FIFO and waited in host memory") \
    X(edge_fifo_wait_mean_s, "mean time such a message waited until its last bit entered the FIFO") \
    X(energy_per_bit_j, "network energy per delivered bit")                                    \
    X(energy_per_job_j, "network energy per completed job")                                    \
    X(bandwidth_bps, "per-node access bandwidth B used by the run")                            \
    X(beta_per_s, "job arrival rate used by the run")                                          \
    X(rho_x, "analytic offered computing load beta F_x / (N-1)")                               \
    X(rho_c, "analytic communication load bound beta F_c / (B N)")                             \
    X(zeta, "analytic asymmetry rho_x / rho_c")                                                \
    X(F_bps, "analytic balanced bandwidth F_c / F_x")                                          \
    X(speedup_bound, "analytic speedup bound n / D")                                           \
    X(events, "simulation events executed")                                                    \
    X(wall_s, "wall-clock seconds of the run")

typedef enum metric_id {
#define TN_METRIC_ENUM(name, desc) M_##name,
    TN_METRICS(TN_METRIC_ENUM)
#undef TN_METRIC_ENUM
        METRIC_COUNT
} metric_id;

extern const char *const metric_names[METRIC_COUNT];
extern const char *const metric_descriptions[METRIC_COUNT];
/* Index of a metric by name, or -1. */
int metric_find(const char *name);
/* 1 when the metric depends only on the configuration and the seed (all but
 * wall_s): only those go to runs.csv/summary.csv, so equal seeds give
 * byte-identical files; wall time goes to timing.csv. */
static inline int metric_is_deterministic(int i) { return i != M_wall_s; }

#endif
