/* The task-program executor (specs/kernels-patterns.md §0, B1); the model
 * and the contract are in prog_exec.h. */
#include "prog_exec.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

#define PX_DEAD 0xdeadu /* net_msg.kind of a released message */

enum px_state { PX_IDLE = 0, PX_RUN, PX_RECV, PX_COMPUTE, PX_DONE };

/* One (src, tag) slot of a task's unexpected-message table. */
typedef struct px_slot {
    uint32_t src;   /* sending task; PX_EMPTY when unused */
    uint32_t tag;
    uint32_t count; /* delivered and not yet received */
} px_slot;
#define PX_EMPTY UINT32_MAX

typedef struct px_task {
    uint64_t pc, end;  /* next op and end of the task's ops in prog->ops */
    uint64_t slot0;    /* first slot of its table in x->slot */
    uint32_t mask;     /* table size - 1 (size a power of two; 0 slots: no recv) */
    uint32_t nslots;   /* table size */
    uint32_t node;     /* map[i] */
    uint8_t state;     /* enum px_state */
    int64_t done_ps;   /* -1 until done */
} px_task;

typedef struct px_phase {
    uint64_t delivered; /* messages of the phase delivered */
    uint8_t released;   /* flag */
} px_phase;

typedef struct px_bucket { /* messages of (group, tag) */
    int64_t first_send_ps, last_dlv_ps;
    uint64_t sent, delivered;
} px_bucket;

struct pexec {
    const tp_prog *p;
    sim *s;
    net *n;
    uint16_t kind;
    uint32_t nodes;
    px_task *task;          /* [tasks] */
    uint32_t *node_task;    /* [nodes] task on each node or UINT32_MAX */
    px_slot *slot;          /* all tables */
    uint8_t *seen;          /* [messages / 8 + 1] bit per sequence number */
    px_bucket *bucket;      /* [groups * tags] */
    px_phase *phase;        /* [nphases] */
    uint32_t *dep_start;    /* [nphases + 1] phases released by phase k: dep[dep_start[k]..] */
    uint32_t *dep;          /* [nphases] */
    uint32_t *work;         /* [nphases] phases to release (worklist) */
    net_msg_pool pool;
    uint64_t seq;           /* next sequence number */
    int64_t start_ps;
    int64_t *group_done_ps; /* [groups] latest done time so far */
    uint32_t *group_left;   /* [groups] tasks not done */
    pexec_counts c;
    int releasing;          /* release_phases is running (flag) */
    struct trace *trace;    /* the timeline (pexec_set_trace; NULL: none) */
    int64_t *wait_from;     /* [tasks] with a trace: when the task's blocking recv began */
};

void pexec_set_trace(pexec *x, struct trace *t)
{
    x->trace = t;
    if (t && !x->wait_from)
        x->wait_from = tn_xcalloc(x->p->tasks ? x->p->tasks : 1, sizeof *x->wait_from);
}

static inline uint32_t slot_hash(uint32_t src, uint32_t tag)
{
    uint64_t h = ((uint64_t)src << 32 | tag) * 0x9e3779b97f4a7c15ULL;
    return (uint32_t)(h >> 32);
}

/* The slot of (src, tag) in t's table, or NULL if no recv of t takes it. */
static px_slot *slot_find(pexec *x, const px_task *t, uint32_t src, uint32_t tag)
{
    if (t->nslots == 0)
        return NULL;
    for (uint32_t i = slot_hash(src, tag) & t->mask;; i = (i + 1) & t->mask) {
        px_slot *e = &x->slot[t->slot0 + i];
        if (e->src == src && e->tag == tag)
            return e;
        if (e->src == PX_EMPTY)
            return NULL; /* the table is never full: sized 2x its keys */
    }
}

static void slot_insert(pexec *x, const px_task *t, uint32_t src, uint32_t tag)
{
    for (uint32_t i = slot_hash(src, tag) & t->mask;; i = (i + 1) & t->mask) {
        px_slot *e = &x->slot[t->slot0 + i];
        if (e->src == src && e->tag == tag)
            return;
        if (e->src == PX_EMPTY) {
            e->src = src;
            e->tag = tag;
            return;
        }
    }
}

double pexec_mem_bytes(double messages, double tasks, double buckets)
{
    return messages * (2 * 2 * sizeof(tp_op) + 2 * sizeof(uint32_t) + 4 * sizeof(px_slot) + 0.125 + sizeof(net_msg)) +
           tasks * (sizeof(px_task) + 2 * sizeof(uint64_t) + sizeof(uint8_t)) + buckets * sizeof(px_bucket) +
           sizeof(pexec);
}

pexec *pexec_create(const tp_prog *prog, const uint32_t *map, uint32_t nodes, uint16_t kind,
                    char *err, size_t errlen)
{
    if (prog->tasks > nodes) {
        tn_error(err, errlen, "%u tasks do not fit on %u nodes", prog->tasks, nodes);
        return NULL;
    }
    if (kind == PX_DEAD) {
        tn_error(err, errlen, "message kind 0x%x is reserved", PX_DEAD);
        return NULL;
    }
    uint32_t *node_task = tn_xmalloc((size_t)nodes * sizeof *node_task);
    for (uint32_t k = 0; k < nodes; k++)
        node_task[k] = UINT32_MAX;
    for (uint32_t i = 0; i < prog->tasks; i++) {
        uint32_t k = map ? map[i] : i;
        if (k >= nodes || node_task[k] != UINT32_MAX) {
            tn_error(err, errlen, "task %u mapped to node %u: %s", i, k,
                     k >= nodes ? "no such node" : "node already taken");
            free(node_task);
            return NULL;
        }
        node_task[k] = i;
    }

    pexec *x = tn_xcalloc(1, sizeof *x);
    x->p = prog;
    x->kind = kind;
    x->nodes = nodes;
    x->node_task = node_task;
    x->task = tn_xcalloc(prog->tasks ? prog->tasks : 1, sizeof *x->task);

    /* Tables: twice the task's recv ops, rounded up to a power of two, so
     * probing always meets an empty slot. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < prog->tasks; i++) {
        px_task *t = &x->task[i];
        t->pc = prog->start[i];
        t->end = prog->start[i + 1];
        t->node = map ? map[i] : i;
        t->done_ps = -1;
        uint64_t recvs = 0;
        for (uint64_t k = t->pc; k < t->end; k++)
            recvs += tp_op_kind(&prog->ops[k]) == TP_RECV;
        uint64_t size = 0;
        if (recvs > 0)
            for (size = 2; size < 2 * recvs; size *= 2)
                ;
        TN_ASSERT(size <= UINT32_MAX, "task %u: %llu recv ops", i, (unsigned long long)recvs);
        t->nslots = (uint32_t)size;
        t->mask = size ? (uint32_t)size - 1 : 0;
        t->slot0 = total;
        total += size;
    }
    x->slot = tn_xmalloc((total ? total : 1) * sizeof *x->slot);
    for (uint64_t k = 0; k < total; k++)
        x->slot[k] = (px_slot){PX_EMPTY, 0, 0};
    for (uint32_t i = 0; i < prog->tasks; i++) {
        px_task *t = &x->task[i];
        for (uint64_t k = t->pc; k < t->end; k++)
            if (tp_op_kind(&prog->ops[k]) == TP_RECV)
                slot_insert(x, t, tp_op_peer(&prog->ops[k]), prog->ops[k].tag);
    }

    x->seen = tn_xcalloc(prog->messages / 8 + 1, 1);
    size_t nb = (size_t)prog->groups * prog->tags;
    x->bucket = tn_xcalloc(nb ? nb : 1, sizeof *x->bucket);
    for (size_t k = 0; k < nb; k++)
        x->bucket[k].first_send_ps = x->bucket[k].last_dlv_ps = -1;
    x->group_done_ps = tn_xcalloc(prog->groups, sizeof *x->group_done_ps);
    x->group_left = tn_xcalloc(prog->groups, sizeof *x->group_left);
    for (uint32_t i = 0; i < prog->tasks; i++)
        x->group_left[prog->group[i]]++;

    /* Phases released by each phase (CSR over `after`). */
    uint32_t np = prog->nphases;
    x->phase = tn_xcalloc(np ? np : 1, sizeof *x->phase);
    x->dep_start = tn_xcalloc((size_t)np + 1, sizeof *x->dep_start);
    x->dep = tn_xmalloc((np ? np : 1) * sizeof *x->dep);
    x->work = tn_xmalloc((np ? np : 1) * sizeof *x->work);
    for (uint32_t k = 0; k < np; k++)
        if (prog->phases[k].after != TP_AT_START)
            x->dep_start[prog->phases[k].after + 1]++;
    for (uint32_t k = 0; k < np; k++)
        x->dep_start[k + 1] += x->dep_start[k];
    uint32_t *fill = tn_xmalloc((np ? np : 1) * sizeof *fill);
    memcpy(fill, x->dep_start, np * sizeof *fill);
    for (uint32_t k = 0; k < np; k++)
        if (prog->phases[k].after != TP_AT_START)
            x->dep[fill[prog->phases[k].after]++] = k;
    free(fill);
    net_msg_pool_init(&x->pool);
    return x;
}

void pexec_destroy(pexec *x)
{
    if (!x)
        return;
    net_msg_pool_free(&x->pool);
    free(x->task);
    free(x->node_task);
    free(x->slot);
    free(x->seen);
    free(x->bucket);
    free(x->phase);
    free(x->dep_start);
    free(x->dep);
    free(x->work);
    free(x->wait_from);
    free(x->group_done_ps);
    free(x->group_left);
    free(x);
}

/* ---- running ---- */

static void hand_over(pexec *x, uint32_t src, uint32_t dst, uint64_t size, uint32_t tag,
                      void *phase)
{
    net_msg *m = net_msg_alloc(&x->pool);
    m->src = x->task[src].node;
    m->dst = x->task[dst].node;
    m->size_bytes = size;
    m->cls = NET_DATA;
    m->prio = NET_PRIO_LOW;
    m->kind = x->kind;
    m->a = tag;
    m->b = x->seq++;
    m->p = phase;
    px_bucket *bk = &x->bucket[(size_t)x->p->group[src] * x->p->tags + tag];
    if (bk->sent++ == 0)
        bk->first_send_ps = sim_now(x->s);
    x->c.sent++;
    x->c.bytes_sent += size;
    net_send(x->n, m);
}

static void ev_compute_done(sim *s, void *ctx, uint64_t task);

static void task_done(pexec *x, uint32_t i)
{
    px_task *t = &x->task[i];
    uint32_t g = x->p->group[i];
    t->state = PX_DONE;
    t->done_ps = sim_now(x->s);
    x->c.tasks_done++;
    x->group_left[g]--;
    if (t->done_ps > x->group_done_ps[g])
        x->group_done_ps[g] = t->done_ps;
}

/* Run task i's list until it blocks or ends (all at this ps). */
static void run_task(pexec *x, uint32_t i)
{
    px_task *t = &x->task[i];
    const tp_op *ops = x->p->ops;
    t->state = PX_RUN;
    while (t->pc < t->end) {
        const tp_op *o = &ops[t->pc];
        switch (tp_op_kind(o)) {
        case TP_SEND:
            t->pc++;
            hand_over(x, i, tp_op_peer(o), o->arg, o->tag, NULL);
            break;
        case TP_RECV: {
            px_slot *e = slot_find(x, t, tp_op_peer(o), o->tag);
            TN_ASSERT(e, "task %u: recv(src=%u, tag=%u) has no table slot", i, tp_op_peer(o),
                      o->tag);
            if (e->count == 0) {
                t->state = PX_RECV;
                if (x->trace)
                    x->wait_from[i] = sim_now(x->s);
                return;
            }
            e->count--;
            t->pc++;
            break;
        }
        default: /* TP_COMPUTE */
            t->pc++;
            if (o->arg > 0) {
                t->state = PX_COMPUTE;
                x->c.compute_ps += (int64_t)o->arg;
                if (x->trace)
                    trace_slice(x->trace, t->node, "compute", "compute", sim_now(x->s),
                                sim_now(x->s) + (int64_t)o->arg, TRACE_NO_JOB, i);
                sim_schedule(x->s, (int64_t)o->arg, ev_compute_done, x, i);
                return;
            }
            break;
        }
    }
    task_done(x, i);
}

static void ev_compute_done(sim *s, void *ctx, uint64_t task)
{
    (void)s;
    run_task(ctx, (uint32_t)task);
}

static void ev_task_start(sim *s, void *ctx, uint64_t task)
{
    (void)s;
    run_task(ctx, (uint32_t)task);
}

/* Release phase k and, iteratively, every phase it completes at once (a
 * phase without messages) and those that follow it. The worklist is shared:
 * a fabric delivers from its own events, never inside net_send (network.h),
 * so this is never re-entered; the flag checks it. */
static void release_phases(pexec *x, uint32_t k)
{
    TN_ASSERT(!x->releasing, "phase %u released from inside a hand-over", k);
    x->releasing = 1;
    uint32_t top = 0;
    x->work[top++] = k;
    while (top > 0) {
        uint32_t q = x->work[--top];
        const tp_phase *ph = &x->p->phases[q];
        x->phase[q].released = 1;
        for (uint64_t i = ph->first; i < ph->first + ph->count; i++) {
            const tp_phase_msg *sd = &x->p->psend[i];
            hand_over(x, sd->src, sd->dst, sd->size_bytes, sd->tag, &x->phase[q]);
        }
        if (ph->count == 0)
            /* Pushed in reverse so they are released in index order. */
            for (uint32_t d = x->dep_start[q + 1]; d-- > x->dep_start[q];)
                x->work[top++] = x->dep[d];
    }
    x->releasing = 0;
}

static void ev_release_start(sim *s, void *ctx, uint64_t unused)
{
    (void)s;
    (void)unused;
    pexec *x = ctx;
    for (uint32_t k = 0; k < x->p->nphases; k++)
        if (x->p->phases[k].after == TP_AT_START)
            release_phases(x, k);
}

void pexec_start(pexec *x, sim *s, net *n)
{
    TN_ASSERT(!x->s, "pexec_start called twice");
    x->s = s;
    x->n = n;
    x->start_ps = sim_now(s);
    for (uint32_t g = 0; g < x->p->groups; g++)
        x->group_done_ps[g] = x->start_ps;
    if (x->p->nphases > 0)
        sim_schedule(s, 0, ev_release_start, x, 0);
    for (uint32_t i = 0; i < x->p->tasks; i++)
        sim_schedule(s, 0, ev_task_start, x, i);
}

void pexec_deliver(void *owner, net_msg *m)
{
    pexec *x = owner;
    if (m->kind != x->kind || m->src >= x->nodes || m->dst >= x->nodes || m->b >= x->seq) {
        x->c.bad++; /* foreign, or already released (kind PX_DEAD): leave it alone */
        return;
    }
    uint32_t si = x->node_task[m->src], di = x->node_task[m->dst];
    if (si == UINT32_MAX || di == UINT32_MAX || (x->seen[m->b >> 3] >> (m->b & 7)) & 1) {
        x->c.bad++;
        return;
    }
    x->seen[m->b >> 3] |= (uint8_t)(1u << (m->b & 7));
    int64_t now = sim_now(x->s);
    if (x->trace)
        trace_message(x->trace, m->src, m->dst, "message", m->size_bytes, TRACE_NO_JOB, m->t_submit_ps, now);
    uint32_t tag = m->a;
    x->c.delivered++;
    x->c.bytes_delivered += m->size_bytes;
    if (tag < x->p->tags) {
        px_bucket *bk = &x->bucket[(size_t)x->p->group[si] * x->p->tags + tag];
        bk->delivered++;
        bk->last_dlv_ps = now;
    }
    px_phase *ph = m->p;
    m->kind = PX_DEAD;
    net_msg_release(&x->pool, m);

    /* Matching (§0): the receiver resumes now if it waits for exactly this
     * (checked first: the table is not touched then, and it is the common
     * case of an ordered exchange); else the message waits in the table. */
    px_task *t = &x->task[di];
    if (t->state == PX_RECV && tp_op_peer(&x->p->ops[t->pc]) == si && x->p->ops[t->pc].tag == tag) {
        if (x->trace)
            trace_slice(x->trace, t->node, "wait", "wait recv", x->wait_from[di], now, TRACE_NO_JOB, di);
        t->pc++;
        run_task(x, di);
    } else {
        px_slot *e = slot_find(x, t, si, tag);
        if (!e)
            x->c.bad++; /* no recv of di ever takes it */
        else
            e->count++;
    }

    /* A phase's last delivery releases the phases that follow it. */
    if (ph) {
        uint32_t k = (uint32_t)(ph - x->phase);
        if (++ph->delivered == x->p->phases[k].count)
            for (uint32_t d = x->dep_start[k]; d < x->dep_start[k + 1]; d++)
                release_phases(x, x->dep[d]);
    }
}

/* ---- results ---- */

int pexec_finish(pexec *x, char *err, size_t errlen)
{
    const tp_prog *p = x->p;
    if (!x->s)
        return tn_error(err, errlen, "the program was never started");
    if (x->c.bad > 0)
        return tn_error(err, errlen,
                        "%llu deliveries refused (foreign, delivered twice, or no recv takes "
                        "them)",
                        (unsigned long long)x->c.bad);
    uint32_t first = UINT32_MAX, more = 0;
    for (uint32_t i = 0; i < p->tasks; i++)
        if (x->task[i].state != PX_DONE) {
            if (first == UINT32_MAX)
                first = i;
            else
                more++;
        }
    if (first != UINT32_MAX) {
        const px_task *t = &x->task[first];
        char tail[64] = "";
        if (more)
            snprintf(tail, sizeof tail, " (and %u more task%s not finished)", more,
                     more > 1 ? "s" : "");
        if (t->state == PX_RECV)
            return tn_error(err, errlen, "task %u blocked on recv(src=%u, tag=%u)%s", first,
                            tp_op_peer(&p->ops[t->pc]), p->ops[t->pc].tag, tail);
        return tn_error(err, errlen, "task %u %s%s", first,
                        t->state == PX_COMPUTE ? "still computing" : "never started", tail);
    }
    for (uint32_t i = 0; i < p->tasks; i++) {
        const px_task *t = &x->task[i];
        for (uint32_t k = 0; k < t->nslots; k++) {
            const px_slot *e = &x->slot[t->slot0 + k];
            if (e->src != PX_EMPTY && e->count > 0)
                return tn_error(err, errlen,
                                "task %u finished with %u message%s from task %u (tag %u) "
                                "never received",
                                i, e->count, e->count > 1 ? "s" : "", e->src, e->tag);
        }
    }
    for (uint32_t k = 0; k < p->nphases; k++)
        if (!x->phase[k].released)
            return tn_error(err, errlen, "phase %u (group %u) was never released", k,
                            p->phases[k].group);
    if (x->c.sent != p->messages || x->c.delivered != x->c.sent)
        return tn_error(err, errlen, "%llu messages in the program, %llu sent, %llu delivered",
                        (unsigned long long)p->messages, (unsigned long long)x->c.sent,
                        (unsigned long long)x->c.delivered);
    if (x->pool.live != 0)
        return tn_error(err, errlen, "%llu messages never returned to the pool",
                        (unsigned long long)x->pool.live);
    return 0;
}

void pexec_get_counts(const pexec *x, pexec_counts *c) { *c = x->c; }

int64_t pexec_fixed_ps(const pexec *x, const net *n)
{
    const tp_prog *p = x->p;
    if (!n->ops->zero_load_ps || p->messages == 0)
        return 0;
    int64_t best = INT64_MAX;
    uint32_t last_a = UINT32_MAX, last_b = UINT32_MAX; /* consecutive sends often share a pair */
    for (uint32_t i = 0; i < p->tasks; i++)
        for (uint64_t k = p->start[i]; k < p->start[i + 1]; k++) {
            const tp_op *o = &p->ops[k];
            if (tp_op_kind(o) != TP_SEND)
                continue;
            uint32_t a = x->task[i].node, b = x->task[tp_op_peer(o)].node;
            if (a == last_a && b == last_b)
                continue;
            last_a = a, last_b = b;
            int64_t z = net_zero_load_ps(n, a, b, 0); /* ranks: a workload's handle maps them to nodes */
            if (z < best)
                best = z;
        }
    for (uint64_t k = 0; k < p->npsend; k++) {
        uint32_t a = x->task[p->psend[k].src].node, b = x->task[p->psend[k].dst].node;
        if (a == last_a && b == last_b)
            continue;
        last_a = a, last_b = b;
        int64_t z = net_zero_load_ps(n, a, b, 0); /* ranks: a workload's handle maps them to nodes */
        if (z < best)
            best = z;
    }
    return best;
}

int64_t pexec_task_done_ps(const pexec *x, uint32_t task)
{
    TN_ASSERT(task < x->p->tasks, "task %u of %u", task, x->p->tasks);
    return x->task[task].done_ps;
}

int64_t pexec_group_done_ps(const pexec *x, uint32_t group)
{
    TN_ASSERT(group < x->p->groups, "group %u of %u", group, x->p->groups);
    return x->group_left[group] ? -1 : x->group_done_ps[group];
}

int64_t pexec_done_ps(const pexec *x)
{
    int64_t t = x->start_ps;
    for (uint32_t g = 0; g < x->p->groups; g++) {
        int64_t d = pexec_group_done_ps(x, g);
        if (d < 0)
            return -1;
        if (d > t)
            t = d;
    }
    return t;
}

uint64_t pexec_tag_span(const pexec *x, uint32_t group, uint32_t tag, int64_t *first_send_ps,
                        int64_t *last_delivery_ps)
{
    if (group >= x->p->groups || tag >= x->p->tags)
        return 0;
    const px_bucket *bk = &x->bucket[(size_t)group * x->p->tags + tag];
    if (bk->sent == 0)
        return 0;
    *first_send_ps = bk->first_send_ps;
    *last_delivery_ps = bk->last_dlv_ps;
    return bk->sent;
}

void pexec_tag_spans(const pexec *x, uint32_t group, pexec_spans *out)
{
    memset(out, 0, sizeof *out);
    double sum = 0;
    for (uint32_t tag = 0; tag < x->p->tags; tag++) {
        int64_t a, b;
        if (pexec_tag_span(x, group, tag, &a, &b) == 0 || b < 0)
            continue;
        out->tags++;
        sum += (double)(b - a);
        if (b - a > out->max_ps)
            out->max_ps = b - a;
    }
    out->mean_ps = out->tags ? sum / (double)out->tags : 0.0;
}
