/* The workload registry and the small helpers every workload shares. */
#include "workload.h"

/* TASKNET_OTF2 comes from configure (DEFS) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "rng.h"

extern const wl_ops wl_kernel_ops;         /* workloads/wl_kernel.c */
extern const wl_ops wl_pattern_ops;        /* workloads/wl_pattern.c */
extern const wl_ops wl_task_tree_ops;      /* workloads/wl_task_tree.c */
extern const wl_ops wl_dc_flows_ops;       /* workloads/wl_dc_flows.c */
extern const wl_ops wl_training_ops;       /* workloads/wl_training.c */
extern const wl_ops wl_uniform_random_ops; /* workloads/wl_uniform_random.c */
extern const wl_ops wl_vef_ops;            /* workloads/wl_vef.c */
extern const wl_ops wl_dag_ops;            /* workloads/wl_dag.c */
#ifdef TASKNET_OTF2
extern const wl_ops wl_mpi_trace_ops;      /* workloads/wl_mpi_trace.c (needs OTF2 to read traces) */
#endif

const wl_ops *const wl_registry[] = {
    &wl_task_tree_ops,
    &wl_uniform_random_ops,
    &wl_kernel_ops,
    &wl_pattern_ops,
    &wl_dc_flows_ops,
    &wl_training_ops,
    &wl_vef_ops,
    &wl_dag_ops,
#ifdef TASKNET_OTF2
    &wl_mpi_trace_ops,
#endif
    NULL,
};

const wl_ops *const wl_default = &wl_task_tree_ops;

const wl_ops *wl_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; wl_registry[i]; i++)
        if (strcmp(wl_registry[i]->name, name) == 0)
            return wl_registry[i];
    return NULL;
}

size_t wl_count(void)
{
    size_t n = 0;
    while (wl_registry[n])
        n++;
    return n;
}

void wl_pools_reset(void)
{
    for (size_t i = 0; wl_registry[i]; i++)
        if (wl_registry[i]->pool_reset)
            wl_registry[i]->pool_reset();
}

/* The file: for each workload with a pool, its registry index (uint32)
 * and what its pool_save wrote; UINT32_MAX at the end. */
int wl_pools_save(const char *path)
{
    size_t n = strlen(path) + 8;
    char *tmp = tn_xmalloc(n);
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int rc = f ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && wl_registry[i]; i++)
        if (wl_registry[i]->pool_save) {
            fwrite(&i, sizeof i, 1, f);
            rc = wl_registry[i]->pool_save(f);
        }
    uint32_t end = UINT32_MAX;
    if (f) {
        fwrite(&end, sizeof end, 1, f);
        rc |= ferror(f) ? -1 : 0;
        rc |= fclose(f) != 0 ? -1 : 0;
    }
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

int wl_pools_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t nw = wl_count();
    int rc = -1;
    for (;;) {
        uint32_t i;
        if (fread(&i, sizeof i, 1, f) != 1)
            break;
        if (i == UINT32_MAX) {
            rc = 0;
            break;
        }
        if (i >= nw || !wl_registry[i]->pool_load || wl_registry[i]->pool_load(f) != 0)
            break;
    }
    fclose(f);
    return rc;
}

size_t wl_index(const wl_ops *ops)
{
    for (size_t i = 0; wl_registry[i]; i++)
        if (wl_registry[i] == ops)
            return i;
    TN_ASSERT(0, "workload %s is not in wl_registry", ops ? ops->name : "(null)");
    return 0;
}

int wl_name_ok(const char *name, char *err, size_t errlen)
{
    if (wl_find(name))
        return 0;
#ifndef TASKNET_OTF2
    if (name && strcmp(name, "mpi-trace") == 0)
        return tn_error(err, errlen, "workload type 'mpi-trace' needs OTF2, which this tasknet was built without: "
                        "install libotf2-trace-dev (Debian) and rebuild (./configure --with-otf2)");
#endif
    char known[512] = "";
    size_t used = 0;
    for (size_t i = 0; wl_registry[i] && used < sizeof known; i++) {
        int w = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", wl_registry[i]->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return tn_error(err, errlen, "unknown workload type '%s' (expected one of: %s)", name ? name : "(null)",
                    known);
}

void *wl_params_new(const wl_ops *ops)
{
    void *p = tn_xcalloc(1, ops->params_size ? ops->params_size : 1);
    param_block_defaults(p, ops->params, ops->nparams);
    return p;
}

void wl_params_free(const wl_ops *ops, void *params)
{
    if (!params)
        return;
    param_block_free(params, ops->params, ops->nparams);
    free(params);
}

void wl_analysis_add(wl_analysis *a, const char *key, double value)
{
    TN_ASSERT(a->n < WL_ANALYSIS_MAX, "more than %d analysis values (adding %s)", WL_ANALYSIS_MAX, key);
    a->kv[a->n].key = key;
    a->kv[a->n].value = value;
    a->n++;
}

double wl_run_metric(const wl_run_view *v, const char *name)
{
    if (!v)
        return NAN;
    long k = metric_find(v->col, v->n, name);
    return k >= 0 ? v->m[k] : NAN;
}

gsl_rng *wl_stream(const wl_env *env, const char *purpose)
{
    if (!env->name || !env->name[0])
        return rng_stream_new(env->seed, env->replica, purpose);
    char name[160];
    snprintf(name, sizeof name, "%s.%s", env->name, purpose);
    return rng_stream_new(env->seed, env->replica, name);
}
