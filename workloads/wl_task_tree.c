#include "wl_task_tree.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec_model.h"
#include "log.h"
#include "metrics.h"
#include "rng.h"
#include "scheduler.h"
#include "stats.h"
#include "trace.h"
#include "units.h"

/* Records are preallocated up to this many jobs; beyond, they grow by
 * doubling (rarely: O(log jobs) reallocations in a run). */
#define RECORDS_PREALLOC_MAX (1u << 22)

typedef struct tasktree {
    const wl_params *p;           /* borrowed for the run */
    uint32_t nodes;               /* N */
    sched_port port;              /* fabric side: sim, net, message pool */
    sched sch;                    /* scheduler node */
    exec ex;                      /* compute nodes */
    gsl_rng *rng_arrivals;        /* inter-arrival times */
    gsl_rng *rng_jobs;            /* tree shapes and task values, one job per arrival */
    gsl_rng *rng_sched;           /* the scheduler's choices */
    uint64_t jobs_total;          /* arrivals to generate */
    uint64_t jobs_arrived;        /* arrivals so far */
    uint64_t jobs_done;           /* job-complete messages received */
    int64_t *given_arrival_ps;    /* explicit schedule (tests), NULL for Poisson */
    double mean_gap_s;            /* Poisson: 1 / beta */
    tasktree_job_record *rec;     /* per arrival */
    uint64_t rec_cap;             /* records allocated */
    sched_job *free_jobs;         /* job pool (trees kept for reuse) */
    sched_job **all_jobs;         /* every job ever allocated */
    uint64_t njobs_alloc, all_cap; /* jobs allocated, capacity of all_jobs */
    int up;                       /* init succeeded: fini has something to free */
} tasktree;

static sched_job *job_get(tasktree *w)
{
    sched_job *j = w->free_jobs;
    if (j) {
        w->free_jobs = j->next;
        j->next = NULL;
        return j;
    }
    j = tn_xcalloc(1, sizeof *j);
    tree_init(&j->t);
    if (w->njobs_alloc == w->all_cap) {
        w->all_cap = w->all_cap ? 2 * w->all_cap : 16;
        w->all_jobs = tn_xrealloc(w->all_jobs, w->all_cap * sizeof *w->all_jobs);
    }
    w->all_jobs[w->njobs_alloc++] = j;
    return j;
}

static void job_put(tasktree *w, sched_job *j)
{
    j->next = w->free_jobs;
    w->free_jobs = j;
}

static void arrival(sim *s, void *ctx, uint64_t arg);

static void schedule_next_arrival(tasktree *w)
{
    if (w->jobs_arrived >= w->jobs_total)
        return;
    sim *s = w->port.sim;
    if (w->given_arrival_ps) {
        sim_schedule_at(s, w->given_arrival_ps[w->jobs_arrived], arrival, w, 0);
        return;
    }
    /* Rounded to the picosecond: the error is far below any latency. */
    int64_t gap_ps = units_s_to_ps(gsl_ran_exponential(w->rng_arrivals, w->mean_gap_s));
    sim_schedule(s, gap_ps, arrival, w, 0);
}

static void arrival(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    tasktree *w = ctx;
    const wl_params *p = w->p;
    sched_job *j = job_get(w);
    /* Drawn here, in arrival order, from the jobs' own stream: the same
     * seed gives the same jobs whatever the fabric does. */
    tree_generate(&j->t, &p->tree, w->rng_jobs);
    tree_sample_tasks(&j->t, &p->task, w->rng_jobs);
    int64_t work_ps = 0;
    for (uint32_t v = 0; v < j->t.n; v++)
        work_ps += j->t.t_init_ps[v] + j->t.t_agg_ps[v];
    j->seq = w->jobs_arrived++;
    j->arrival_ps = sim_now(s);
    j->work_ps = work_ps;

    if (j->seq >= w->rec_cap) {
        w->rec_cap = w->rec_cap ? 2 * w->rec_cap : 1024;
        w->rec = tn_xrealloc(w->rec, w->rec_cap * sizeof *w->rec);
    }
    tasktree_job_record *r = &w->rec[j->seq];
    r->arrival_ps = j->arrival_ps;
    r->assigned_ps = -1;
    r->completed_ps = -1;
    r->work_ps = work_ps;
    r->root_node = 0;
    r->tasks = j->t.n;

    sched_job_arrival(&w->sch, j);
    if (j->assigned_ps >= 0) {
        r->assigned_ps = j->assigned_ps;
        r->root_node = j->root_node;
    }
    schedule_next_arrival(w);
}

static void job_done(tasktree *w, sched_job *j)
{
    tasktree_job_record *r = &w->rec[j->seq];
    TN_ASSERT(r->completed_ps < 0, "job %llu completed twice", (unsigned long long)j->seq);
    /* A queued job got its node later than its arrival: record it now. */
    r->assigned_ps = j->assigned_ps;
    r->root_node = j->root_node;
    r->completed_ps = sim_now(w->port.sim);
    w->jobs_done++;
    job_put(w, j);
}

static void tt_deliver(void *state, net_msg *m)
{
    tasktree *w = state;
    if (w->port.trace)
        trace_message(w->port.trace, m->src, m->dst, sched_kind_name(m->kind), m->size_bytes,
                      exec_msg_job_seq(m), m->t_submit_ps, sim_now(w->port.sim));
    if (m->dst == 0) {
        sched_job *j = sched_deliver(&w->sch, m);
        if (j)
            job_done(w, j);
    } else {
        exec_deliver(&w->ex, m);
    }
}

static int setup(tasktree *w, const wl_env *env, const int64_t *given, uint64_t ngiven, char *err,
                 size_t errlen)
{
    const wl_params *p = env->p;
    memset(w, 0, sizeof *w);
    if (env->nodes < 2)
        return tn_error(err, errlen,
                        "task-tree needs at least 2 nodes (the scheduler and one compute node), "
                        "got %u",
                        env->nodes);
    if (env->net && env->net->params.nodes != 0 && env->net->params.nodes != env->nodes)
        return tn_error(err, errlen, "the network has %u nodes and the workload %u",
                        env->net->params.nodes, env->nodes);
    if (!(p->control_size_bytes >= 0) || p->control_size_bytes > 1e15)
        return tn_error(err, errlen, "control message size %g B is not a valid size",
                        p->control_size_bytes);
    if (given) {
        for (uint64_t i = 0; i < ngiven; i++)
            if (given[i] < 0 || (i > 0 && given[i] < given[i - 1]))
                return tn_error(err, errlen,
                                "explicit arrival %llu at %lld ps is negative or out of order",
                                (unsigned long long)i, (long long)given[i]);
        w->jobs_total = ngiven;
    } else {
        w->jobs_total = p->jobs;
        if (p->jobs > 0 && !(p->arrival_rate_per_s > 0 && isfinite(p->arrival_rate_per_s)))
            return tn_error(err, errlen, "task-tree arrival rate must be positive (got %g /s)",
                            p->arrival_rate_per_s);
        w->mean_gap_s = p->jobs > 0 ? 1.0 / p->arrival_rate_per_s : 0.0;
    }

    w->p = p;
    w->nodes = env->nodes;
    w->port.sim = env->sim;
    w->port.net = env->net;
    w->port.eps_bytes = (uint64_t)llround(p->control_size_bytes);
    w->port.trace = env->trace;
    net_msg_pool_init(&w->port.pool);
    w->rng_arrivals = rng_stream_new(env->seed, env->replica, "arrivals");
    w->rng_jobs = rng_stream_new(env->seed, env->replica, "jobs");
    w->rng_sched = rng_stream_new(env->seed, env->replica, "scheduler");
    sched_init(&w->sch, &w->port, w->rng_sched, env->nodes);
    exec_init(&w->ex, &w->port, env->nodes);
    if (given) {
        w->given_arrival_ps = tn_xmalloc((ngiven ? ngiven : 1) * sizeof *given);
        memcpy(w->given_arrival_ps, given, ngiven * sizeof *given);
    }
    w->rec_cap = w->jobs_total < RECORDS_PREALLOC_MAX ? w->jobs_total : RECORDS_PREALLOC_MAX;
    if (w->rec_cap)
        w->rec = tn_xmalloc(w->rec_cap * sizeof *w->rec);
    w->up = 1;
    schedule_next_arrival(w);
    return 0;
}

static int tt_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    return setup(state, env, NULL, 0, err, errlen);
}

int tasktree_init_arrivals(void *state, const wl_env *env, const int64_t *arrival_ps, uint64_t n,
                           char *err, size_t errlen)
{
    if (n > 0 && !arrival_ps)
        return tn_error(err, errlen, "explicit arrivals: no schedule given");
    static const int64_t none = 0;
    return setup(state, env, arrival_ps ? arrival_ps : &none, n, err, errlen);
}

static void tt_fini(void *state)
{
    tasktree *w = state;
    if (!w->up)
        return;
    exec_fini(&w->ex);
    sched_fini(&w->sch);
    for (uint64_t i = 0; i < w->njobs_alloc; i++) {
        tree_destroy(&w->all_jobs[i]->t);
        free(w->all_jobs[i]);
    }
    free(w->all_jobs);
    free(w->rec);
    free(w->given_arrival_ps);
    net_msg_pool_free(&w->port.pool);
    gsl_rng_free(w->rng_arrivals);
    gsl_rng_free(w->rng_jobs);
    gsl_rng_free(w->rng_sched);
    w->up = 0;
}

int tasktree_check_invariants(const void *state, char *err, size_t errlen)
{
    const tasktree *w = state;
    if (w->jobs_arrived != w->jobs_total)
        return tn_error(err, errlen, "%llu of %llu jobs arrived",
                        (unsigned long long)w->jobs_arrived, (unsigned long long)w->jobs_total);
    for (uint64_t i = 0; i < w->jobs_arrived; i++)
        if (w->rec[i].completed_ps < 0)
            return tn_error(err, errlen, "job %llu (arrived at %lld ps) never completed",
                            (unsigned long long)i, (long long)w->rec[i].arrival_ps);
    if (w->sch.fifo_len != 0)
        return tn_error(err, errlen, "%llu jobs still wait in the scheduler's FIFO",
                        (unsigned long long)w->sch.fifo_len);
    if (w->sch.nidle != w->nodes - 1)
        return tn_error(err, errlen, "%u of %u compute nodes are still allocated",
                        w->nodes - 1 - w->sch.nidle, w->nodes - 1);
    if (w->ex.live_frames != 0)
        return tn_error(err, errlen, "%u task frames are still live", w->ex.live_frames);
    if (w->port.pool.live != 0)
        return tn_error(err, errlen, "%llu messages are still live",
                        (unsigned long long)w->port.pool.live);
    uint64_t sent = 0;
    for (unsigned k = 0; k < SCHED_KIND_COUNT; k++)
        sent += w->port.sent_by_kind[k];
    const net_counters *c = &w->port.net->c;
    if (c->sent != sent || c->delivered != sent)
        return tn_error(err, errlen,
                        "the workload sent %llu messages, the fabric took %llu and delivered %llu",
                        (unsigned long long)sent, (unsigned long long)c->sent,
                        (unsigned long long)c->delivered);
    if (c->bytes_sent != c->bytes_delivered)
        return tn_error(err, errlen, "%llu bytes sent but %llu delivered",
                        (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_delivered);
    int64_t compute = 0, work = 0;
    for (uint32_t k = 1; k < w->nodes; k++) {
        const exec_node *n = &w->ex.node[k];
        if (n->top)
            return tn_error(err, errlen, "node %u still runs a task", k);
        if (n->compute_ps > w->sch.alloc_total_ps[k])
            return tn_error(err, errlen, "node %u computed %lld ps but was allocated %lld ps", k,
                            (long long)n->compute_ps, (long long)w->sch.alloc_total_ps[k]);
        compute += n->compute_ps;
    }
    for (uint64_t i = 0; i < w->jobs_arrived; i++)
        work += w->rec[i].work_ps;
    if (compute != work)
        return tn_error(err, errlen, "nodes computed %lld ps for %lld ps of work",
                        (long long)compute, (long long)work);
    return 0;
}

static int tt_finish(void *state, double *m, char *err, size_t errlen)
{
    tasktree *w = state;
    if (tasktree_check_invariants(w, err, errlen) != 0)
        return -1;
    stats_sample job_time;
    stats_sample_init(&job_time);
    int64_t work = 0, service = 0, total = 0, queue = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint64_t i = 0; i < w->jobs_arrived; i++) {
        const tasktree_job_record *r = &w->rec[i];
        work += r->work_ps;
        service += r->completed_ps - r->assigned_ps;
        queue += r->assigned_ps - r->arrival_ps;
        total += r->completed_ps - r->arrival_ps;
        stats_sample_add(&job_time, units_ps_to_s(r->completed_ps - r->arrival_ps));
        if (r->arrival_ps < first)
            first = r->arrival_ps;
        if (r->completed_ps > last)
            last = r->completed_ps;
    }
    int64_t compute = 0, allocated = 0;
    for (uint32_t k = 1; k < w->nodes; k++) {
        compute += w->ex.node[k].compute_ps;
        allocated += w->sch.alloc_total_ps[k];
    }
    double n = (double)w->jobs_arrived;
    m[M_jobs_completed] = (double)w->jobs_done;
    if (w->jobs_arrived > 0) {
        int64_t span = last - first;
        m[M_job_time_mean_s] = units_ps_to_s(total) / n;
        m[M_job_time_p99_s] = stats_sample_quantile(&job_time, 0.99);
        m[M_queue_time_mean_s] = units_ps_to_s(queue) / n;
        m[M_service_time_mean_s] = units_ps_to_s(service) / n;
        m[M_speedup] = service > 0 ? (double)work / (double)service : 0.0;
        m[M_speedup_incl_queue] = total > 0 ? (double)work / (double)total : 0.0;
        m[M_span_s] = units_ps_to_s(span);
        m[M_node_utilization] =
            span > 0 ? (double)compute / ((double)(w->nodes - 1) * (double)span) : 0.0;
        m[M_sync_overhead] = allocated > 0 ? 1.0 - (double)compute / (double)allocated : 0.0;
    }
    stats_sample_free(&job_time);
    return 0;
}

uint64_t tasktree_jobs_arrived(const void *state)
{
    return ((const tasktree *)state)->jobs_arrived;
}

const tasktree_job_record *tasktree_job(const void *state, uint64_t i)
{
    const tasktree *w = state;
    TN_ASSERT(i < w->jobs_arrived, "job %llu of %llu", (unsigned long long)i,
              (unsigned long long)w->jobs_arrived);
    return &w->rec[i];
}

void tasktree_node(const void *state, uint32_t node, tasktree_node_stats *out)
{
    const tasktree *w = state;
    TN_ASSERT(node < w->nodes, "node %u of %u", node, w->nodes);
    const exec_node *n = &w->ex.node[node];
    out->compute_ps = n->compute_ps;
    out->allocated_ps = w->sch.alloc_total_ps[node];
    out->allocations = w->sch.allocations[node];
    out->tasks = n->tasks;
    out->roots = n->roots;
    out->delegations_in = n->delegations_in;
    out->depth_max = n->depth_max;
    out->allocated = node > 0 && sched_is_allocated(&w->sch, node);
}

uint64_t tasktree_sent_by_kind(const void *state, unsigned kind)
{
    const tasktree *w = state;
    return kind < SCHED_KIND_COUNT ? w->port.sent_by_kind[kind] : 0;
}

void tasktree_sched_counts(const void *state, uint64_t *requested, uint64_t *granted,
                           uint64_t *fifo_max)
{
    const tasktree *w = state;
    *requested = w->sch.nodes_requested;
    *granted = w->sch.nodes_granted;
    *fifo_max = w->sch.fifo_max;
}

const wl_ops wl_task_tree_ops = {
    .name = "task-tree",
    .description = "jobs as task trees, a scheduler node and delegating compute nodes (paper 3.3)",
    .state_size = sizeof(tasktree),
    .init = tt_init,
    .deliver = tt_deliver,
    .finish = tt_finish,
    .fini = tt_fini,
};
