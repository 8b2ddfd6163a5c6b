/* The dag workload: task graphs from a Graphviz DOT file (issue 20 item 5;
 * seed 004 sec. 6's future work, "general task graphs"),
 * <workload type="dag" file="app.dot"/>. The file (jobs/dag.h: tasks with
 * compute="10us" and optional "node"="3" (DOT reserves the bare word),
 * edges with size="1MB") is one job;
 * jobs arrive at the scheduler node and run on the compute nodes as task
 * trees' do (MODEL.md sec. 3, scheduler/scheduler.c: the same scheduler
 * code, its FIFO, its random idle nodes and its control messages of
 * control-size bytes).
 *
 * Model (MODEL.md sec. 3 for the scheduler; the rest ours, written after
 * sec. 4's execute(T) for a graph instead of a tree):
 *   - Arrivals: a Poisson process of rate workload.arrival-rate, or of
 *     rate rho_x (N-1) / W for a computing load workload.load = rho_x, W a
 *     job's work (MODEL.md sec. 2's beta = rho_x (N-1) / F_x), workload.jobs
 *     arrivals, the first one gap after t = 0 (as task-tree).
 *   - Job arrival: the scheduler assigns the job to a random idle compute
 *     node M (its master), or queues it (FIFO) while none is idle; the
 *     assignment is a control message (MODEL.md sec. 3).
 *   - On the assignment, M needs u nodes for the u tasks without node=: if
 *     u > 1 it sends an allocation request for u - 1 nodes and waits for the
 *     grant of k <= u - 1 (MODEL.md sec. 3: as many as are idle). The
 *     unplaced tasks, in the graph's topological order (jobs/dag.h), go
 *     round-robin to M, then the granted nodes in grant order: with k = 0
 *     every unplaced task runs on M. A task with node="r" runs on rank r,
 *     which the scheduler does not allocate (the user placed it; it may
 *     also run other jobs' tasks).
 *   - A task is ready once every in-edge's data has arrived (an edge
 *     between two tasks on one node carries no message: the data is
 *     there). A node is one CPU (MODEL.md sec. 1): it computes one task at a
 *     time, its ready tasks in the order they became ready (FIFO). A task
 *     computes its compute time, then hands its out-edges' messages (data
 *     class, low priority, in edge order) to the fabric at once.
 *   - A sink (no out-edge) that finishes on a node other than M tells M
 *     with a control message (high priority, as a task tree's result). Once
 *     every sink has finished, M releases each granted node (one release
 *     each) and sends job-complete to the scheduler (MODEL.md sec. 3), which
 *     records the job's completion at its reception.
 * On the ideal fabric a job of the fork-join a -> {b, c} -> d (10, 20, 30,
 * 5 us; 1 MB edges; B = 10 Gb/s; control 40 B: 272 ns a message) takes
 * 3 x 272 ns (assignment, request, grant) + 10 us + 800.24 us + 30 us +
 * 800.24 us + 5 us + 2 x 272 ns (d's sink message, job-complete) =
 * 1,646.84 us (tests/check_dag.c).
 *
 * Metrics: task-tree's where they mean the same (job time from arrival to
 * job-complete, queue and service time, speedup = sum of work / sum of
 * service, node utilisation = compute time / ((N-1) span)), and the graph's
 * own: tasks, edges, work (sum of compute), the critical path on an
 * uncontended fabric (computes plus, per edge, its serialisation at B plus
 * the fabric's fixed latency, a 0-byte message's zero-load time from rank
 * 0 to rank 1; without the scheduler's messages).
 * Streams: "dag.arrivals" (inter-arrival times), "dag.scheduler" (the
 * scheduler's choices). Exclusive nodes (not a traffic source); it has
 * finished when every job is complete. No malloc in the event loop but the
 * pools' growth (jobs are records reused once complete). */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "scheduler.h"
#include "sim.h"
#include "trace.h"
#include "stats.h"
#include "units.h"
#include "workload.h"

typedef struct dag_params {
    param_file file;
    uint64_t jobs;
    double arrival_rate_per_s; /* jobs/s (or derived from load by resolve) */
    double load;               /* rho_x (0: not given) */
    double control_size_bytes;
} dag_params;

#define DG(field) offsetof(dag_params, field)
static const param_row dag_rows[] = {
    {.path = "workload.file", .type = "file", .unit = "", .def = "",
     .help = "dag: a task graph in Graphviz DOT: nodes compute=\"10us\" [\"node\"=\"3\"], edges size=\"1MB\"",
     .kind = PARAM_FILE, .off = DG(file), .flags = PARAM_REQUIRED, .example = "dag-example.dot"},
    {.path = "workload.jobs", .type = "integer", .unit = "", .def = "1", .help = "dag: jobs, each one run of the graph (>= 1)",
     .kind = PARAM_U64, .off = DG(jobs), .min = 1, .max = UINT64_MAX, .example = "100"},
    {.path = "workload.arrival-rate", .type = "frequency", .unit = "1/s", .def = "",
     .help = "dag: Poisson job arrival rate (> 0); or workload.load", .kind = PARAM_REAL, .dim = UNIT_FREQ,
     .off = DG(arrival_rate_per_s), .flags = PARAM_POS | PARAM_UNSET0 | PARAM_REQUIRED, .alt = "workload.load",
     .example = "5000/s"},
    {.path = "workload.load", .type = "number", .unit = "",  .def = "",
     .help = "dag: computing load rho_x: arrival rate = rho_x (N-1) / work of a job (> 0); or workload.arrival-rate",
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = DG(load), .flags = PARAM_POS | PARAM_UNSET0,
     .alt = "workload.arrival-rate", .example = "0.5"},
    {.path = "workload.control-size", .type = "size", .unit = "B", .def = "40B",
     .help = "dag: control message size (assignment, request, grant, release, sink done, job-complete)",
     .kind = PARAM_REAL, .dim = UNIT_SIZE, .off = DG(control_size_bytes), .flags = PARAM_POS, .example = "40B"},
};

#define DAG_METRICS(X)                                                                                   \
    X(jobs_completed, "jobs whose job-complete reached the scheduler")                                  \
    X(job_time_mean_s, "mean job time, arrival to job-complete reception")                              \
    X(job_time_p99_s, "99th percentile of job time")                                                    \
    X(queue_time_mean_s, "mean time a job waits in the scheduler FIFO")                                 \
    X(service_time_mean_s, "mean time from the assignment to job-complete reception")                   \
    X(speedup, "sum of job work / sum of job service time")                                             \
    X(speedup_incl_queue, "sum of job work / sum of job time (queueing included)")                      \
    X(node_utilization, "compute time / ((N-1) * span)")                                                \
    X(dag_tasks, "tasks of the graph")                                                                  \
    X(dag_edges, "edges of the graph")                                                                  \
    X(dag_work_s, "sum of the tasks' compute times: a job's work")                                      \
    X(dag_critical_path_s, "longest path: computes + per edge its bytes at B + the fabric's fixed latency")
enum { DAG_METRICS(METRIC_ENUM) DAG_NMETRICS };
static const metric_def dag_metrics_def[] = {DAG_METRICS(METRIC_DEF)};

/* Our message kinds, beside the scheduler's (enum sched_msg_kind). */
enum { DAG_DATA = 0x4447, DAG_SINK = 0x4448, DAG_DEAD = 0xdead };

/* A ready task in a node's FIFO. */
typedef struct dag_job dag_job;
typedef struct dag_ref {
    dag_job *job;
    uint32_t task;
} dag_ref;

struct dag_job {
    sched_job sj;         /* first: the scheduler's record (sj.p of its messages) */
    uint32_t master;      /* M */
    uint32_t *map;        /* [tasks] node of each task */
    uint32_t *pending;    /* [tasks] in-edge data still to come */
    dag_ref *qnext;       /* [tasks] next in its node's ready FIFO */
    uint32_t *grant;      /* [unplaced] the grant buffer */
    uint32_t granted;
    uint32_t sinks_left;
    dag_job *next_free;
};

typedef struct dag_node {
    dag_ref head, tail;   /* ready FIFO */
    int busy;
    dag_job *running;     /* the job of the task computing now */
    int64_t compute_ps;
} dag_node;

typedef struct dagw {
    const dag_params *p;
    dag g;
    sim *s;
    net *n;
    uint32_t nodes;
    sched_port port;
    sched sch;
    struct trace *trace;  /* the timeline (--trace; NULL: none): each task's compute, every message */
    gsl_rng *rng_arrivals, *rng_sched;
    dag_node *node;       /* [nodes] */
    dag_job *free_jobs;
    dag_job **all_jobs;
    size_t njobs_alloc, all_cap;
    uint64_t arrived, completed;
    double mean_gap_s;
    int64_t first_ps, last_ps;
    stats_sample job_time_s;
    double queue_sum_s, service_sum_s, work_sum_s, time_sum_s;
    uint64_t bad;
    int up;
} dagw;

static int dag_load(const dag_params *p, dag *g, char *err, size_t errlen)
{
    if (!p->file.text[0])
        return tn_error(err, errlen, "dag: no file");
    return dag_read(p->file.path[0] ? p->file.path : p->file.text, g, err, errlen);
}

static void dag_check(const net_params *core, const void *params, param_report *rep)
{
    const dag_params *p = params;
    if (core->nodes > 0 && core->nodes < 2)
        param_invalid(rep, "system.nodes", "dag needs a scheduler and a compute node (N >= 2)");
    if (!p->file.text[0])
        return;
    dag g;
    char err[1024];
    if (dag_load(p, &g, err, sizeof err) != 0) {
        param_invalid(rep, "workload.file", "%s", err);
        return;
    }
    if (core->nodes > 0 && g.max_node >= core->nodes) {
        for (uint32_t t = 0; t < g.tasks; t++)
            if (g.node[t] != DAG_UNPLACED && g.node[t] >= core->nodes) {
                param_invalid(rep, "workload.file", "%s:%ld: task '%s' is on node %u, and the workload has ranks 0..%u",
                              p->file.path, dag_task_line(p->file.path, g.name[t]), g.name[t], g.node[t],
                              core->nodes - 1);
                break;
            }
    }
    dag_free(&g);
}

/* ------------------------------------------------------------ execution */

static dag_job *job_get(dagw *w)
{
    dag_job *j = w->free_jobs;
    if (j) {
        w->free_jobs = j->next_free;
    } else {
        j = tn_xcalloc(1, sizeof *j);
        j->map = tn_xcalloc(w->g.tasks, sizeof *j->map);
        j->pending = tn_xcalloc(w->g.tasks, sizeof *j->pending);
        j->qnext = tn_xcalloc(w->g.tasks, sizeof *j->qnext);
        /* the grant buffer, its job just before it: a grant (p = the buffer) finds its job */
        dag_job **blk = tn_xcalloc(1 + (w->g.unplaced + 1) / 2, sizeof *blk);
        blk[0] = j;
        j->grant = (uint32_t *)(blk + 1);
        if (w->njobs_alloc == w->all_cap) {
            w->all_cap = w->all_cap ? 2 * w->all_cap : 16;
            w->all_jobs = tn_xrealloc(w->all_jobs, w->all_cap * sizeof *w->all_jobs);
        }
        w->all_jobs[w->njobs_alloc++] = j;
    }
    j->next_free = NULL;
    return j;
}

static void run_next(dagw *w, uint32_t node);

static void compute_done(sim *s, void *ctx, uint64_t arg);

/* Task `task` of job j is ready on its node. */
static void make_ready(dagw *w, dag_job *j, uint32_t task)
{
    dag_node *nd = &w->node[j->map[task]];
    j->qnext[task].job = NULL;
    if (nd->tail.job)
        nd->tail.job->qnext[nd->tail.task] = (dag_ref){j, task};
    else
        nd->head = (dag_ref){j, task};
    nd->tail = (dag_ref){j, task};
    if (!nd->busy)
        run_next(w, j->map[task]);
}

static void run_next(dagw *w, uint32_t node)
{
    dag_node *nd = &w->node[node];
    if (nd->busy || !nd->head.job)
        return;
    dag_ref r = nd->head;
    nd->head = r.job->qnext[r.task];
    if (!nd->head.job)
        nd->tail = (dag_ref){NULL, 0};
    nd->busy = 1;
    nd->running = r.job;
    int64_t t = w->g.compute_ps[r.task];
    nd->compute_ps += t;
    if (w->trace) {
        char name[32];
        snprintf(name, sizeof name, "task %u", r.task);
        trace_slice(w->trace, node, "compute", name, sim_now(w->s), sim_now(w->s) + t, r.job->sj.seq, r.task);
    }
    sim_schedule(w->s, t, compute_done, w, ((uint64_t)node << 32) | r.task);
}

static void job_complete_at_master(dagw *w, dag_job *j)
{
    for (uint32_t i = 0; i < j->granted; i++)
        sched_send(&w->port, j->master, 0, w->port.eps_bytes, NET_CONTROL, NET_PRIO_HIGH, SCHED_RELEASE,
                   j->grant[i], j->sj.seq, NULL);
    sched_send(&w->port, j->master, 0, w->port.eps_bytes, NET_CONTROL, NET_PRIO_LOW, SCHED_JOB_DONE, 0, j->sj.seq,
               &j->sj);
}

static void send_msg(dagw *w, uint32_t src, uint32_t dst, uint64_t bytes, uint8_t cls, uint8_t prio, uint16_t kind,
                     uint32_t a, dag_job *j)
{
    net_msg *m = net_msg_alloc(&w->port.pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = bytes;
    m->cls = cls;
    m->prio = prio;
    m->kind = kind;
    m->a = a;
    m->b = j->sj.seq;
    m->p = j;
    net_send(w->n, m);
}

static void task_finished(dagw *w, dag_job *j, uint32_t task, uint32_t node)
{
    const dag *g = &w->g;
    for (uint32_t k = g->out_off[task]; k < g->out_off[task + 1]; k++) {
        uint32_t e = g->out[k], succ = g->edst[e];
        if (j->map[succ] == node) {
            if (--j->pending[succ] == 0)
                make_ready(w, j, succ);
        } else
            send_msg(w, node, j->map[succ], g->ebytes[e], NET_DATA, NET_PRIO_LOW, DAG_DATA, succ, j);
    }
    if (g->out_off[task] == g->out_off[task + 1]) { /* a sink */
        if (node == j->master) {
            if (--j->sinks_left == 0)
                job_complete_at_master(w, j);
        } else
            send_msg(w, node, j->master, w->port.eps_bytes, NET_CONTROL, NET_PRIO_HIGH, DAG_SINK, task, j);
    }
}

static void start_job(dagw *w, dag_job *j)
{
    const dag *g = &w->g;
    uint32_t slots = 1 + j->granted, k = 0;
    for (uint32_t i = 0; i < g->tasks; i++) {
        uint32_t t = g->topo[i];
        if (g->node[t] != DAG_UNPLACED)
            j->map[t] = g->node[t];
        else {
            j->map[t] = k == 0 ? j->master : j->grant[k - 1];
            k = (k + 1) % slots;
        }
    }
    for (uint32_t t = 0; t < g->tasks; t++)
        j->pending[t] = g->indeg[t];
    j->sinks_left = g->sinks;
    for (uint32_t i = 0; i < g->tasks; i++)
        if (g->indeg[g->topo[i]] == 0)
            make_ready(w, j, g->topo[i]);
}

static void arrival(sim *s, void *ctx, uint64_t arg);

static void schedule_arrival(dagw *w)
{
    if (w->arrived >= w->p->jobs)
        return;
    int64_t gap_ps = units_s_to_ps(gsl_ran_exponential(w->rng_arrivals, w->mean_gap_s));
    int64_t limit = (INT64_C(1) << 62) + 1;
    if (gap_ps > limit - sim_now(w->s))
        gap_ps = sim_now(w->s) < limit ? limit - sim_now(w->s) : 0;
    sim_schedule(w->s, gap_ps, arrival, w, 0);
}

static void arrival(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    dagw *w = ctx;
    dag_job *j = job_get(w);
    memset(&j->sj, 0, sizeof j->sj);
    j->sj.seq = w->arrived++;
    j->sj.arrival_ps = sim_now(s);
    j->sj.work_ps = w->g.work_ps;
    j->granted = 0;
    if (w->first_ps < 0)
        w->first_ps = sim_now(s);
    sched_job_arrival(&w->sch, &j->sj);
    schedule_arrival(w);
}

/* A message's job: p is the job (its sched_job first), or the grant buffer for a grant. */
static dag_job *job_of(net_msg *m)
{
    return m->kind == SCHED_GRANT ? ((dag_job **)m->p)[-1] : (dag_job *)m->p;
}

static void dag_deliver(void *state, net_msg *m)
{
    dagw *w = state;
    if (w->trace)
        trace_message(w->trace, m->src, m->dst,
                      m->kind == DAG_DATA ? "data" : m->kind == DAG_SINK ? "sink done" : sched_kind_name(m->kind), m->size_bytes,
                      TRACE_NO_JOB, m->t_submit_ps, sim_now(w->s));
    if (m->dst == 0) {
        if (m->kind == SCHED_ALLOC_REQ || m->kind == SCHED_RELEASE || m->kind == SCHED_JOB_DONE) {
            sched_job *done = sched_deliver(&w->sch, m); /* releases m */
            if (done) {
                dag_job *j = (dag_job *)done;
                int64_t now = sim_now(w->s);
                double t = units_ps_to_s(now - j->sj.arrival_ps);
                stats_sample_add(&w->job_time_s, t);
                w->time_sum_s += t;
                w->queue_sum_s += units_ps_to_s(j->sj.assigned_ps - j->sj.arrival_ps);
                w->service_sum_s += units_ps_to_s(now - j->sj.assigned_ps);
                w->work_sum_s += units_ps_to_s(j->sj.work_ps);
                w->completed++;
                w->last_ps = now;
                j->next_free = w->free_jobs;
                w->free_jobs = j;
            }
            return;
        }
        w->bad++;
        net_msg_release(&w->port.pool, m);
        return;
    }
    dag_job *j = job_of(m);
    switch (m->kind) {
    case SCHED_ASSIGN:
        j->master = m->dst;
        if (w->g.unplaced > 1)
            sched_send(&w->port, j->master, 0, w->port.eps_bytes, NET_CONTROL, NET_PRIO_HIGH, SCHED_ALLOC_REQ,
                       w->g.unplaced - 1, j->sj.seq, j->grant);
        else
            start_job(w, j);
        break;
    case SCHED_GRANT:
        if (m->dst != j->master || m->p != j->grant) {
            w->bad++;
            break;
        }
        j->granted = m->a;
        start_job(w, j);
        break;
    case DAG_DATA:
        if (m->a >= w->g.tasks || j->map[m->a] != m->dst || j->pending[m->a] == 0) {
            w->bad++;
            break;
        }
        if (--j->pending[m->a] == 0)
            make_ready(w, j, m->a);
        break;
    case DAG_SINK:
        if (m->dst != j->master || j->sinks_left == 0) {
            w->bad++;
            break;
        }
        if (--j->sinks_left == 0)
            job_complete_at_master(w, j);
        break;
    default:
        w->bad++;
    }
    m->kind = DAG_DEAD;
    net_msg_release(&w->port.pool, m);
}

/* ----------------------------------------------------------- life cycle */

static int dag_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    dagw *w = state;
    memset(w, 0, sizeof *w);
    const dag_params *p = env->params;
    char e2[1024];
    param_first first;
    net_params core = {.nodes = env->nodes, .bandwidth_bps = env->bandwidth_bps};
    dag_check(&core, p, param_report_first(&first, e2, sizeof e2));
    if (first.rep.n)
        return tn_error(err, errlen, "dag: %s", e2);
    if (!env->sim || !env->net || env->net->params.nodes != env->nodes)
        return tn_error(err, errlen, "dag needs an engine and a network of %u nodes", env->nodes);
    if (dag_load(p, &w->g, err, errlen) != 0)
        return -1;
    w->up = 1;
    w->p = p;
    w->s = env->sim;
    w->n = env->net;
    w->nodes = env->nodes;
    w->port.sim = env->sim;
    w->port.net = env->net;
    w->port.eps_bytes = (uint64_t)llround(p->control_size_bytes);
    w->port.trace = NULL;
    w->trace = env->trace;
    net_msg_pool_init(&w->port.pool);
    w->rng_arrivals = wl_stream(env, "dag.arrivals");
    w->rng_sched = wl_stream(env, "dag.scheduler");
    sched_init(&w->sch, &w->port, w->rng_sched, env->nodes);
    w->node = tn_xcalloc(env->nodes, sizeof *w->node);
    w->mean_gap_s = p->arrival_rate_per_s > 0 ? 1 / p->arrival_rate_per_s : 0;
    w->first_ps = w->last_ps = -1;
    stats_sample_init(&w->job_time_s);
    schedule_arrival(w);
    return 0;
}

static void compute_done(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    dagw *w = ctx;
    uint32_t node = (uint32_t)(arg >> 32), task = (uint32_t)arg;
    dag_node *nd = &w->node[node];
    dag_job *j = nd->running;
    nd->running = NULL;
    nd->busy = 0;
    task_finished(w, j, task, node);
    run_next(w, node);
}

static int dag_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    (void)v;
    dagw *w = state;
    if (w->bad)
        return tn_error(err, errlen, "dag: %llu deliveries not expected (unknown, repeated or misplaced)",
                        (unsigned long long)w->bad);
    if (w->completed != w->p->jobs || w->arrived != w->p->jobs)
        return tn_error(err, errlen, "dag: %llu of %llu jobs complete", (unsigned long long)w->completed,
                        (unsigned long long)w->p->jobs);
    if (w->port.pool.live != 0)
        return tn_error(err, errlen, "dag: %llu messages still in flight", (unsigned long long)w->port.pool.live);
    for (uint32_t i = 0; i < w->nodes; i++)
        if (w->node[i].busy || w->node[i].head.job)
            return tn_error(err, errlen, "dag: node %u still has tasks", i);
    m[M_jobs_completed] = (double)w->completed;
    m[M_dag_tasks] = w->g.tasks;
    m[M_dag_edges] = w->g.edges;
    m[M_dag_work_s] = units_ps_to_s(w->g.work_ps);
    m[M_dag_critical_path_s] =
        units_ps_to_s(dag_critical_path_ps(&w->g, w->n->params.bandwidth_bps, net_zero_load_ps(w->n, 0, 1, 0)));
    if (w->completed) {
        m[M_job_time_mean_s] = w->time_sum_s / (double)w->completed;
        m[M_job_time_p99_s] = stats_sample_quantile(&w->job_time_s, 0.99);
        m[M_queue_time_mean_s] = w->queue_sum_s / (double)w->completed;
        m[M_service_time_mean_s] = w->service_sum_s / (double)w->completed;
        m[M_speedup] = w->service_sum_s > 0 ? w->work_sum_s / w->service_sum_s : NAN;
        m[M_speedup_incl_queue] = w->time_sum_s > 0 ? w->work_sum_s / w->time_sum_s : NAN;
        int64_t busy = 0;
        for (uint32_t i = 0; i < w->nodes; i++)
            busy += w->node[i].compute_ps;
        int64_t T = w->last_ps - w->first_ps;
        if (T > 0 && w->nodes > 1)
            m[M_node_utilization] = (double)busy / ((double)(w->nodes - 1) * (double)T);
        span->first_ps = w->first_ps;
        span->last_ps = w->last_ps;
    }
    return 0;
}

static void dag_fini(void *state)
{
    dagw *w = state;
    if (!w->up)
        return;
    for (size_t i = 0; i < w->njobs_alloc; i++) {
        dag_job *j = w->all_jobs[i];
        free(j->map);
        free(j->pending);
        free(j->qnext);
        free((dag_job **)j->grant - 1);
        free(j);
    }
    free(w->all_jobs);
    free(w->node);
    sched_fini(&w->sch);
    net_msg_pool_free(&w->port.pool);
    gsl_rng_free(w->rng_arrivals);
    gsl_rng_free(w->rng_sched);
    stats_sample_free(&w->job_time_s);
    dag_free(&w->g);
    w->up = 0;
}

static int dag_finished(const void *state)
{
    const dagw *w = state;
    return w->completed == w->p->jobs;
}

/* The run must fit in the clock: the arrivals' span and a job's critical
 * path (its work, serialised, bounds a job alone from above with its
 * messages). */
static int dag_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    const dag_params *p = params;
    dag g;
    if (dag_load(p, &g, err, errlen) != 0)
        return -1;
    double B = rc->net->bandwidth_bps;
    double job_s = units_ps_to_s(g.work_ps) + (B > 0 ? 8.0 * (double)g.bytes / B : 0) +
                   (double)(g.edges + 6) * (double)rc->msg_fixed_ps * 1e-12;
    if (p->load > 0) {
        if (!(g.work_ps > 0) || rc->nodes < 2) {
            dag_free(&g);
            return tn_error(err, errlen, "dag: workload.load needs a graph with compute times and N >= 2");
        }
        ((dag_params *)params)->arrival_rate_per_s = p->load * (rc->nodes - 1) / units_ps_to_s(g.work_ps);
    }
    double span = p->arrival_rate_per_s > 0 ? (double)p->jobs / p->arrival_rate_per_s : 0;
    int rcode = 0;
    if (job_s > WL_HORIZON_S || span > WL_HORIZON_S)
        rcode = tn_error(err, errlen, "dag: jobs of up to %.3g s arriving over %.3g s: more than the %g s a run can span",
                         job_s, span, WL_HORIZON_S);
    else if (rc->nodes > 0 && g.max_node >= rc->nodes)
        rcode = tn_error(err, errlen, "%s: a task is on node %u, and the workload has ranks 0..%u", p->file.path,
                         g.max_node, rc->nodes - 1);
    dag_free(&g);
    return rcode;
}

/* Per job: assignment, request and grant, one message per edge (at most:
 * edges within a node carry none), a sink message per sink (at most),
 * a release per granted node and job-complete. Memory: a job record per
 * job in flight (all of them at worst), the graph, per node a record. */
static void dag_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const dag_params *p = params;
    dag g;
    char err[512];
    if (dag_load(p, &g, err, sizeof err) != 0)
        return;
    double J = (double)p->jobs, N = rc->nodes;
    uint32_t grant = g.unplaced > 1 ? g.unplaced - 1 : 0;
    if (N > 1 && grant > N - 2)
        grant = (uint32_t)(N - 2);
    double per_job = 1 + (g.unplaced > 1 ? 2 : 0) + g.edges + g.sinks + grant + 1;
    out->messages = J * per_job;
    double rec = sizeof(dag_job) + g.tasks * (2 * sizeof(uint32_t) + sizeof(dag_ref)) + g.unplaced * sizeof(uint32_t);
    double inflight = J < 64 ? J : 64;
    out->mem_bytes = sizeof(dagw) + N * (sizeof(dag_node) + 5 * sizeof(uint64_t)) + inflight * rec +
                     g.tasks * (DAG_NAME_MAX + 40.0) + g.edges * 24.0 + inflight * (g.edges + 4) * sizeof(net_msg) +
                     J * sizeof(double) * 1.5;
    double B = rc->net->bandwidth_bps;
    double job_s = units_ps_to_s(g.work_ps) + (B > 0 ? 8.0 * (double)g.bytes / B : 0);
    out->horizon_s = (p->arrival_rate_per_s > 0 ? J / p->arrival_rate_per_s : 0) + job_s;
    dag_free(&g);
}

static void dag_analyze(const void *params, const wl_resolve *rc, wl_analysis *out)
{
    const dag_params *p = params;
    dag g;
    char err[512];
    if (dag_load(p, &g, err, sizeof err) != 0)
        return;
    double B = rc->net->bandwidth_bps;
    int64_t cp = dag_critical_path_ps(&g, B, rc->msg_fixed_ps);
    wl_analysis_add(out, "dag_tasks", g.tasks);
    wl_analysis_add(out, "dag_edges", g.edges);
    wl_analysis_add(out, "dag_work_s", units_ps_to_s(g.work_ps));
    wl_analysis_add(out, "dag_bytes", (double)g.bytes);
    wl_analysis_add(out, "dag_critical_path_s", units_ps_to_s(cp));
    snprintf(out->text, sizeof out->text,
             "  dag       %u tasks (%u unplaced), %u edges, %u sinks; work %.6g s, %.6g B per job; critical path "
             "%.6g s (parallelism %.3g)\n",
             g.tasks, g.unplaced, g.edges, g.sinks, units_ps_to_s(g.work_ps), (double)g.bytes, units_ps_to_s(cp),
             cp > 0 ? (double)g.work_ps / (double)cp : 0);
    dag_free(&g);
}

static const wl_column dag_table[] = {
    {"jobs_completed", "jobs"},
    {"job_time_mean_s", "job_time_s"},
    {"dag_critical_path_s", "crit_path_s"},
    {"speedup", "speedup"},
    {NULL, NULL},
};

const wl_ops wl_dag_ops = {
    .name = "dag",
    .description = "task graphs from a Graphviz DOT file (compute, node, edge sizes), jobs placed by the scheduler "
                   "node as task trees' (issue 20)",
    .state_size = sizeof(dagw),
    .params = dag_rows,
    .nparams = sizeof dag_rows / sizeof dag_rows[0],
    .params_size = sizeof(dag_params),
    .check = dag_check,
    .resolve = dag_resolve,
    .analyze = dag_analyze,
    .estimate = dag_estimate,
    .init = dag_init,
    .deliver = dag_deliver,
    .finish = dag_finish,
    .fini = dag_fini,
    .finished = dag_finished,
    .shares_nodes = 0,
    .metrics = dag_metrics_def,
    .nmetrics = DAG_NMETRICS,
    .table = dag_table,
    .plot_y = "job_time_mean_s",
};
