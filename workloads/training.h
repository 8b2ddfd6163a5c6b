/* The training workload's metrics and its hook for the workloads built on
 * it (workloads/wl_vef.c: Andujar et al.'s HOROVOD trace records). The
 * model and its rules: workloads/wl_training.c's head. */
#ifndef TASKNET_TRAINING_H
#define TASKNET_TRAINING_H

#include <stdint.h>

/* One layer as a HOROVOD trace gives it (forward order of training's layers). */
typedef struct tr_layer {
    uint64_t bytes;               /* gradient bytes: its allreduce */
    int64_t fwd_ps, bwd_ps;       /* compute before it is ready */
    int64_t loop_ps;              /* negotiation=vef: wait between rounds */
    uint64_t gatherv_bytes;       /* a non-empty gatherv */
    uint64_t gatherv_total_bytes; /* bytes the master needs from each rank */
    double gatherv_prob;          /* probability a rank's gatherv is not empty */
    uint64_t bcast_bytes;         /* the broadcast of the tensors to reduce */
} tr_layer;

/* Give training's params (a wl_training_ops params struct) the layers
 * [n] (not copied: they must outlive the params' use) instead of its
 * generated profile or layers-file, each with its own negotiation values
 * instead of the workload.vef.* rows'. */
void tr_params_set_layers(void *params, const tr_layer *layers, uint32_t n);

#define TR_METRICS(X)                                                                                        \
    X(iterations_completed, "training iterations completed")                                                \
    X(iteration_time_mean_s, "iteration time, forward start to the next forward start (last: to its last allreduce's end): mean") \
    X(iteration_time_first_s, "the first iteration's time")                                                  \
    X(iteration_time_max_s, "the longest iteration's time")                                                  \
    X(allreduces, "ring allreduces of fused tensors completed")                                              \
    X(allreduce_time_mean_s, "allreduce, start to completion on every rank: mean")                          \
    X(allreduce_wait_mean_s, "allreduce, eligible (ready on every worker) to start: mean")                  \
    X(exposed_comm_mean_s, "iteration time not spent computing (iteration time - compute-time): mean")      \
    X(link_utilization, "8 ring bytes sent by all workers / (W B time of all iterations)")                  \
    X(compute_to_network_ratio, "R = compute-time B / (8 2 (1 - 1/W) model bytes) (Gao 2020 eq. 5.1)")      \
    X(fusions, "fused tensors per iteration")                                                                \
    X(negotiation_rounds, "negotiation=vef: rounds over all fusions")

#endif
