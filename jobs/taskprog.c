/* Task programs (specs/kernels-patterns.md §0): builder, layout, lower bound.
 * The contract is in taskprog.h. */
#include "taskprog.h"

#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "log.h"

void tp_builder_init(tp_builder *b, uint32_t tasks, uint32_t groups)
{
    TN_ASSERT(tasks >= 1 && tasks <= TP_TASKS_MAX, "program of %u tasks", tasks);
    TN_ASSERT(groups >= 1 && groups <= TP_GROUPS_MAX, "program of %u groups", groups);
    memset(b, 0, sizeof *b);
    b->tasks = tasks;
    b->groups = groups;
    b->group = tn_xcalloc(tasks, sizeof *b->group);
}

void tp_builder_free(tp_builder *b)
{
    free(b->group);
    free(b->ops);
    free(b->owner);
    free(b->phases);
    free(b->psend);
    memset(b, 0, sizeof *b);
}

void tp_set_group(tp_builder *b, uint32_t task, uint32_t group)
{
    TN_ASSERT(task < b->tasks && group < b->groups, "task %u into group %u of %u tasks, %u groups",
              task, group, b->tasks, b->groups);
    b->group[task] = (uint8_t)group;
}

static void note_tag(tp_builder *b, uint32_t tag)
{
    if ((uint64_t)tag + 1 > b->tags)
        b->tags = (uint64_t)tag + 1;
}

/* Room for one more op; doubling keeps appends amortised O(1) (no malloc per op). */
static void push_op(tp_builder *b, uint32_t task, tp_op op)
{
    TN_ASSERT(b->nops + b->npsend < TP_OPS_MAX, "program over %llu ops",
              (unsigned long long)TP_OPS_MAX);
    if (b->nops == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        b->ops = tn_xrealloc(b->ops, b->cap * sizeof *b->ops);
        b->owner = tn_xrealloc(b->owner, b->cap * sizeof *b->owner);
    }
    b->ops[b->nops] = op;
    b->owner[b->nops] = task;
    b->nops++;
}

void tp_send_op(tp_builder *b, uint32_t task, uint32_t dst, uint64_t size_bytes, uint32_t tag)
{
    TN_ASSERT(task < b->tasks && dst < b->tasks && task != dst, "send %u -> %u in %u tasks", task,
              dst, b->tasks);
    note_tag(b, tag);
    push_op(b, task, (tp_op){.kp = ((uint32_t)TP_SEND << 30) | dst, .tag = tag, .arg = size_bytes});
}

void tp_recv_op(tp_builder *b, uint32_t task, uint32_t src, uint32_t tag)
{
    TN_ASSERT(task < b->tasks && src < b->tasks && task != src, "recv %u <- %u in %u tasks", task,
              src, b->tasks);
    note_tag(b, tag);
    push_op(b, task, (tp_op){.kp = ((uint32_t)TP_RECV << 30) | src, .tag = tag, .arg = 0});
}

void tp_compute_op(tp_builder *b, uint32_t task, uint64_t time_ps)
{
    TN_ASSERT(task < b->tasks && time_ps <= (uint64_t)INT64_MAX, "compute of %llu ps on task %u",
              (unsigned long long)time_ps, task);
    push_op(b, task, (tp_op){.kp = (uint32_t)TP_COMPUTE << 30, .tag = 0, .arg = time_ps});
}

uint32_t tp_phase_begin(tp_builder *b, uint32_t group, uint32_t after)
{
    TN_ASSERT(group < b->groups, "phase of group %u of %u", group, b->groups);
    TN_ASSERT(after == TP_AT_START || after < b->nphases, "phase %u after phase %u", b->nphases,
              after);
    TN_ASSERT(b->nphases < UINT32_MAX - 1, "too many phases");
    if (b->nphases == b->phase_cap) {
        b->phase_cap = b->phase_cap ? 2 * b->phase_cap : 16;
        b->phases = tn_xrealloc(b->phases, (size_t)b->phase_cap * sizeof *b->phases);
    }
    b->phases[b->nphases] =
        (tp_phase){.first = b->npsend, .count = 0, .after = after, .group = group};
    return b->nphases++;
}

void tp_phase_send(tp_builder *b, uint32_t src, uint32_t dst, uint64_t size_bytes, uint32_t tag)
{
    TN_ASSERT(b->nphases > 0, "phase send before any phase");
    TN_ASSERT(src < b->tasks && dst < b->tasks && src != dst, "phase send %u -> %u in %u tasks",
              src, dst, b->tasks);
    TN_ASSERT(b->nops + b->npsend < TP_OPS_MAX, "program over %llu ops",
              (unsigned long long)TP_OPS_MAX);
    if (b->npsend == b->psend_cap) {
        b->psend_cap = b->psend_cap ? 2 * b->psend_cap : 1024;
        b->psend = tn_xrealloc(b->psend, b->psend_cap * sizeof *b->psend);
    }
    note_tag(b, tag);
    b->psend[b->npsend++] = (tp_phase_msg){.src = src, .dst = dst, .tag = tag, .size_bytes = size_bytes};
    b->phases[b->nphases - 1].count++;
}

void tp_build(tp_builder *b, tp_prog *out)
{
    memset(out, 0, sizeof *out);
    out->tasks = b->tasks;
    out->groups = b->groups;
    TN_ASSERT(b->tags <= UINT32_MAX, "tags overflow");
    out->tags = (uint32_t)b->tags;
    out->group = b->group;
    out->start = tn_xcalloc((size_t)b->tasks + 1, sizeof *out->start);
    /* Stable counting sort by owner: each task keeps its emission order. */
    for (uint64_t i = 0; i < b->nops; i++)
        out->start[b->owner[i] + 1]++;
    for (uint32_t t = 0; t < b->tasks; t++)
        out->start[t + 1] += out->start[t];
    out->ops = tn_xmalloc((b->nops ? b->nops : 1) * sizeof *out->ops);
    uint64_t *fill = tn_xmalloc((size_t)b->tasks * sizeof *fill);
    memcpy(fill, out->start, (size_t)b->tasks * sizeof *fill);
    for (uint64_t i = 0; i < b->nops; i++) {
        const tp_op *o = &b->ops[i];
        out->ops[fill[b->owner[i]]++] = *o;
        if (tp_op_kind(o) == TP_SEND)
            out->messages++;
        else if (tp_op_kind(o) == TP_RECV)
            out->recvs++;
    }
    free(fill);
    out->nphases = b->nphases;
    out->phases = b->phases;
    out->npsend = b->npsend;
    out->psend = b->psend;
    out->messages += b->npsend;
    free(b->ops);
    free(b->owner);
    memset(b, 0, sizeof *b);
}

void tp_prog_free(tp_prog *p)
{
    free(p->group);
    free(p->start);
    free(p->ops);
    free(p->phases);
    free(p->psend);
    memset(p, 0, sizeof *p);
}

uint64_t tp_group_bytes(const tp_prog *p, uint32_t group)
{
    uint64_t sum = 0;
    for (uint32_t t = 0; t < p->tasks; t++) {
        if (p->group[t] != group)
            continue;
        for (uint64_t i = p->start[t]; i < p->start[t + 1]; i++)
            if (tp_op_kind(&p->ops[i]) == TP_SEND)
                sum += p->ops[i].arg;
    }
    for (uint64_t i = 0; i < p->npsend; i++)
        if (p->group[p->psend[i].src] == group)
            sum += p->psend[i].size_bytes;
    return sum;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

int64_t tp_lower_bound_ps(const tp_prog *p, uint32_t group, double bandwidth_bps,
                          int64_t fixed_ps)
{
    phy_rate rate;
    phy_rate_init(&rate, bandwidth_bps, 8);
    uint64_t *out_b = tn_xcalloc(p->tasks, sizeof *out_b);
    uint64_t *in_b = tn_xcalloc(p->tasks, sizeof *in_b);

    /* Per-task ops: one access link per task carries all of it. */
    int any = 0;
    for (uint32_t t = 0; t < p->tasks; t++) {
        for (uint64_t i = p->start[t]; i < p->start[t + 1]; i++) {
            const tp_op *o = &p->ops[i];
            if (tp_op_kind(o) != TP_SEND || p->group[t] != group)
                continue;
            out_b[t] += o->arg;
            in_b[tp_op_peer(o)] += o->arg;
            any = 1;
        }
    }
    uint64_t worst = 0;
    for (uint32_t t = 0; t < p->tasks; t++)
        worst = max_u64(worst, max_u64(out_b[t], in_b[t]));
    int64_t lb_ps = any ? phy_rate_ps(&rate, worst) + fixed_ps : 0;

    /* Phases: a phase starts no earlier than the end of the one it follows,
     * so bounds add along `after` chains (after < own index: one pass). */
    if (p->nphases > 0) {
        int64_t *chain_ps = tn_xcalloc(p->nphases, sizeof *chain_ps);
        for (uint32_t k = 0; k < p->nphases; k++) {
            const tp_phase *ph = &p->phases[k];
            int64_t before = ph->after == TP_AT_START ? 0 : chain_ps[ph->after];
            if (ph->group != group || ph->count == 0) {
                chain_ps[k] = before;
                continue;
            }
            uint64_t w = 0;
            for (uint64_t i = ph->first; i < ph->first + ph->count; i++) {
                const tp_phase_msg *s = &p->psend[i];
                out_b[s->src] = in_b[s->src] = out_b[s->dst] = in_b[s->dst] = 0;
            }
            for (uint64_t i = ph->first; i < ph->first + ph->count; i++) {
                const tp_phase_msg *s = &p->psend[i];
                out_b[s->src] += s->size_bytes;
                in_b[s->dst] += s->size_bytes;
                w = max_u64(w, max_u64(out_b[s->src], in_b[s->dst]));
            }
            chain_ps[k] = before + phy_rate_ps(&rate, w) + fixed_ps;
            if (chain_ps[k] > lb_ps)
                lb_ps = chain_ps[k];
        }
        free(chain_ps);
    }
    free(out_b);
    free(in_b);
    return lb_ps;
}
