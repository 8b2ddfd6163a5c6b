/* The workload contract. A workload drives a fabric: it hands messages over
 * (net_send) and reacts to deliveries, until it has nothing more to do (the
 * event queue empties). Workloads are plugins: `const wl_ops wl_<name>_ops`,
 * listed in the registry in jobs/workload.c. The framework allocates
 * state_size bytes (zeroed). A workload never prints and never exits. */
#ifndef TASKNET_WORKLOAD_H
#define TASKNET_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "network.h"
#include "task.h"
#include "tree.h"

/* Plain parameters of every workload (the config fills them). */
typedef struct wl_params {
    char type[32];             /* workload.type */
    uint64_t jobs;             /* task-tree: job arrivals */
    double arrival_rate_per_s; /* task-tree: Poisson rate beta (resolved) */
    double control_size_bytes; /* task-tree: eps */
    tree_spec tree;            /* task-tree: job shape */
    task_spec task;            /* task-tree: task values */
    /* uniform-random fabric characterisation */
    dist message_size;         /* bytes */
    double offered_load;       /* fraction of B per node */
    int64_t duration_ps;       /* stop generating after this (0 = use messages) */
    uint64_t messages;         /* messages per node (0 = use duration) */
} wl_params;

/* What a workload instance sees of its run. */
typedef struct wl_env {
    sim *sim;
    net *net;
    uint32_t nodes;
    double bandwidth_bps;
    uint64_t seed;    /* base seed of the run */
    uint64_t replica; /* replica index */
    const wl_params *p;
    struct trace *trace; /* optional timeline recorder, may be NULL */
} wl_env;

typedef struct wl_ops {
    const char *name;
    const char *description;
    size_t state_size;
    int (*init)(void *state, const wl_env *env, char *err, size_t errlen);
    /* Deliveries from the fabric; the workload owns and releases m. */
    void (*deliver)(void *state, net_msg *m);
    /* After the run: fill the workload's metrics into m[METRIC_COUNT]. 0, or -1 + err if an invariant failed. */
    int (*finish)(void *state, double *m, char *err, size_t errlen);
    void (*fini)(void *state);
} wl_ops;

extern const wl_ops *const wl_registry[]; /* NULL-terminated */
const wl_ops *wl_find(const char *name);

void wl_params_copy(wl_params *dst, const wl_params *src);
void wl_params_free(wl_params *p);

#endif
