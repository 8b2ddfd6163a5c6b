#include "scheduler.h"

#include <stdlib.h>

#include "log.h"
#include "trace.h"

#define NOT_IDLE UINT32_MAX

const char *sched_kind_name(unsigned kind)
{
    static const char *const names[SCHED_KIND_COUNT] = {
        [SCHED_ASSIGN] = "assign",     [SCHED_ALLOC_REQ] = "request", [SCHED_GRANT] = "grant",
        [SCHED_RELEASE] = "release",   [SCHED_JOB_DONE] = "job-complete",
        [SCHED_DELEGATE] = "delegate", [SCHED_RESULT] = "result",
    };
    return kind < SCHED_KIND_COUNT && names[kind] ? names[kind] : "?";
}

void sched_send(sched_port *pt, uint32_t src, uint32_t dst, uint64_t size_bytes, uint8_t cls,
                uint8_t prio, uint16_t kind, uint32_t a, uint64_t b, void *p)
{
    TN_ASSERT(kind > 0 && kind < SCHED_KIND_COUNT, "bad message kind %u", (unsigned)kind);
    net_msg *m = net_msg_alloc(&pt->pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = size_bytes;
    m->cls = cls;
    m->prio = prio;
    m->kind = kind;
    m->a = a;
    m->b = b;
    m->p = p;
    pt->sent_by_kind[kind]++;
    net_send(pt->net, m);
}

void sched_init(sched *s, sched_port *port, gsl_rng *rng, uint32_t nodes)
{
    TN_ASSERT(nodes >= 2, "the scheduler needs at least one compute node (N = %u)", nodes);
    s->port = port;
    s->rng = rng;
    s->nodes = nodes;
    s->idle = tn_xcalloc(nodes, sizeof *s->idle);
    s->idle_pos = tn_xcalloc(nodes, sizeof *s->idle_pos);
    s->alloc_since_ps = tn_xcalloc(nodes, sizeof *s->alloc_since_ps);
    s->alloc_total_ps = tn_xcalloc(nodes, sizeof *s->alloc_total_ps);
    s->allocations = tn_xcalloc(nodes, sizeof *s->allocations);
    /* Node 0 is the scheduler itself and is never handed out. */
    s->idle_pos[0] = NOT_IDLE;
    s->nidle = 0;
    for (uint32_t k = 1; k < nodes; k++) {
        s->idle_pos[k] = s->nidle;
        s->idle[s->nidle++] = k;
    }
    s->fifo_head = s->fifo_tail = NULL;
    s->fifo_len = s->fifo_max = 0;
    s->nodes_granted = s->nodes_requested = 0;
}

void sched_fini(sched *s)
{
    free(s->idle);
    free(s->idle_pos);
    free(s->alloc_since_ps);
    free(s->alloc_total_ps);
    free(s->allocations);
    s->idle = s->idle_pos = NULL;
    s->alloc_since_ps = s->alloc_total_ps = NULL;
    s->allocations = NULL;
}

/* Uniform over the idle set; the last idle id fills the hole, so removal is
 * O(1) and the array's order depends only on earlier draws. */
static uint32_t take_idle(sched *s)
{
    TN_ASSERT(s->nidle > 0, "no idle node to take");
    uint32_t i = (uint32_t)gsl_rng_uniform_int(s->rng, s->nidle);
    uint32_t node = s->idle[i];
    TN_ASSERT(node >= 1 && node < s->nodes && s->idle_pos[node] == i,
              "idle set corrupt: slot %u holds node %u (pos %u)", i, node,
              node < s->nodes ? s->idle_pos[node] : 0u);
    uint32_t last = s->idle[--s->nidle];
    s->idle[i] = last;
    s->idle_pos[last] = i;
    s->idle_pos[node] = NOT_IDLE;
    s->alloc_since_ps[node] = sim_now(s->port->sim);
    s->allocations[node]++;
    return node;
}

static void free_node(sched *s, uint32_t node)
{
    TN_ASSERT(node >= 1 && node < s->nodes, "release of node %u outside 1..%u", node,
              s->nodes - 1);
    TN_ASSERT(s->idle_pos[node] == NOT_IDLE, "release of node %u, which is already idle", node);
    s->alloc_total_ps[node] += sim_now(s->port->sim) - s->alloc_since_ps[node];
    s->idle_pos[node] = s->nidle;
    s->idle[s->nidle++] = node;
}

static void assign(sched *s, sched_job *j)
{
    uint32_t node = take_idle(s);
    if (j->t) /* a task graph's job (workloads/wl_dag.c) has no tree */
        tree_prefetch(j->t);
    j->assigned_ps = sim_now(s->port->sim);
    j->root_node = node;
    sched_send(s->port, 0, node, s->port->eps_bytes, NET_CONTROL, NET_PRIO_LOW, SCHED_ASSIGN, 0,
               j->seq, j);
}

/* Called whenever a node turns idle: the FIFO is non-empty only while no
 * node is idle, so one freed node serves at most the head job. */
static void serve_fifo(sched *s)
{
    if (!s->fifo_head || s->nidle == 0)
        return;
    sched_job *j = s->fifo_head;
    s->fifo_head = j->next;
    if (!s->fifo_head)
        s->fifo_tail = NULL;
    j->next = NULL;
    s->fifo_len--;
    assign(s, j);
}

void sched_job_arrival(sched *s, sched_job *j)
{
    j->next = NULL;
    j->assigned_ps = -1;
    j->root_node = 0;
    if (s->nidle > 0) {
        TN_ASSERT(s->fifo_len == 0, "%llu jobs wait while %u nodes are idle",
                  (unsigned long long)s->fifo_len, s->nidle);
        assign(s, j);
        return;
    }
    if (s->fifo_tail)
        s->fifo_tail->next = j;
    else
        s->fifo_head = j;
    s->fifo_tail = j;
    if (++s->fifo_len > s->fifo_max)
        s->fifo_max = s->fifo_len;
}

sched_job *sched_deliver(sched *s, net_msg *m)
{
    sched_job *done = NULL;
    TN_ASSERT(m->dst == 0, "message kind %u for node %u reached the scheduler", (unsigned)m->kind,
              m->dst);
    switch (m->kind) {
    case SCHED_ALLOC_REQ: {
        /* Fewer nodes than asked is normal under load; the requester then
         * runs the rest of its children itself. */
        uint32_t want = m->a;
        uint32_t k = want < s->nidle ? want : s->nidle;
        uint32_t *ids = m->p;
        TN_ASSERT(want == 0 || ids != NULL, "allocation request without a grant buffer");
        for (uint32_t i = 0; i < k; i++) {
            uint32_t node = take_idle(s);
            TN_ASSERT(node != m->src, "node %u granted to itself", node);
            ids[i] = node;
        }
        s->nodes_requested += want;
        s->nodes_granted += k;
        sched_send(s->port, 0, m->src, s->port->eps_bytes, NET_CONTROL, NET_PRIO_HIGH, SCHED_GRANT,
                   k, m->b, ids);
        break;
    }
    case SCHED_RELEASE:
        free_node(s, m->a);
        serve_fifo(s);
        break;
    case SCHED_JOB_DONE:
        done = m->p;
        TN_ASSERT(done && done->root_node == m->src,
                  "job-complete from node %u for a job rooted at node %u", m->src,
                  done ? done->root_node : 0u);
        free_node(s, m->src);
        serve_fifo(s);
        break;
    default:
        TN_ASSERT(0, "message kind %u (%s) is not for the scheduler", (unsigned)m->kind,
                  sched_kind_name(m->kind));
    }
    net_msg_release(&s->port->pool, m);
    return done;
}
