/* How MODEL.md 4 and paper 3.3 are read here (k > 0 granted nodes):
 *
 *   pending = the children; delegate pending's last to each granted node,
 *             in grant order
 *   while pending is not empty:
 *       run pending's last locally (nesting: it may itself delegate)
 *       wait round: W = every delegate holding one of our children now;
 *           for each reply from r in W, in arrival order:
 *               more than one child pending -> delegate the last to r
 *                                              (r is awaited next round)
 *               else                        -> release r
 *           the round ends when every member of W has replied
 *   aggregate
 *
 * "More than one" because the paper's node M has already assigned the next
 * pending child to itself ("it assigns the (k+2)th subtask to itself but
 * does not execute it until k answers are received"). A reply that arrives
 * while M computes (its own child, or anything nested in it) is queued and
 * handled, at no cost in time, when the next wait round begins; so is a
 * reply, arriving during a round, to a delegation made in that same round.
 * Rounds are told apart by a tag: a delegation carries the number of rounds
 * begun when it left, and a reply counts in the current round iff its tag is
 * smaller than that number now. With k = 0 every child runs locally, also
 * from the end of the list (MODEL.md 2). */
#include "exec_model.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "trace.h"

/* How the task of a frame came to its node; decides where its end goes. */
enum frame_origin {
    ORIGIN_ROOT,      /* root assignment from the scheduler: job-complete */
    ORIGIN_DELEGATED, /* delegation from another node: result back to it */
    ORIGIN_LOCAL,     /* child run inside its parent's execution: return to it */
};

enum frame_phase {
    PHASE_INIT,       /* computing t_i */
    PHASE_WAIT_GRANT, /* blocked on the allocation request */
    PHASE_LOCAL,      /* a child runs locally (the frame above) */
    PHASE_WAIT,       /* waiting for this round's delegates */
    PHASE_AGG,        /* computing t_a */
};

/* What the frame does with its children once t_i is done. */
enum frame_mode {
    MODE_NONE,      /* leaf */
    MODE_SINGLE,    /* one child: run locally, no message */
    MODE_ALL_LOCAL, /* empty grant: every child locally */
    MODE_DELEGATE,  /* k > 0 delegates */
};

/* Laid out for compute_done, the model's hottest event: the task's phase
 * ends long after it began, when its frame and tree are out of cache, and
 * each field read was a dependent miss (node -> frame -> job -> tree).
 * Everything an ending phase reads for a leaf, a one-child task and a
 * local return sits in the frame's first cache line (frames are 64-byte
 * aligned), the tree's values copied there when the task starts, where
 * its t_i is read from the same tree anyway; delegation state and what a
 * delegated task's end sends back fill the second. */
struct exec_frame {
    /* first cache line */
    int64_t mark_ps;       /* start of the current phase (compute time, traces) */
    int64_t t_agg_ps;      /* the task's t_a (copied from the tree at start) */
    sched_job *job;        /* the job the task belongs to */
    exec_frame *below;     /* next frame down this node's stack; free-list link */
    uint32_t vertex;       /* the task */
    uint32_t nchild;       /* its children (copied from the tree at start) */
    uint32_t child_base;   /* they are t->child[child_base .. + nchild) */
    uint32_t npend;        /* children not yet started: child[0 .. npend) */
    uint8_t origin;        /* enum frame_origin */
    uint8_t phase;         /* enum frame_phase */
    uint8_t mode;          /* enum frame_mode */
    uint32_t depth;        /* frames on this node's stack up to this one */
    uint32_t working;      /* delegates holding one of our children */
    uint32_t dq_len;       /* ring of deferred replies: entries */
    /* second cache line: delegation */
    uint64_t result_bytes; /* s_r of the task (copied from the tree at start) */
    uint32_t ret_node;     /* delegated: node to send the result to */
    exec_frame *ret_frame; /* delegated: the delegating frame on ret_node */
    uint64_t ret_tag;      /* delegated: round tag to echo in the result */
    uint32_t round;        /* wait rounds started */
    uint32_t round_left;   /* replies still expected in the current round */
    uint32_t *granted;     /* grant buffer, cap entries (the request's payload) */
    uint32_t *deferred;    /* ring of delegates whose reply waits to be handled, cap entries */
    uint32_t dq_head;      /* ring: oldest entry */
    uint32_t cap;          /* entries of granted[] and deferred[] */
};

#define FRAME_ALIGN 64
_Static_assert(offsetof(exec_frame, dq_len) + sizeof(uint32_t) <= FRAME_ALIGN,
               "the fields an ending phase reads fit the frame's first cache line");
#define FRAME_BYTES ((sizeof(exec_frame) + FRAME_ALIGN - 1) / FRAME_ALIGN * FRAME_ALIGN)

void exec_init(exec *e, sched_port *port, uint32_t nodes)
{
    e->port = port;
    e->nodes = nodes;
    e->node = tn_xcalloc(nodes, sizeof *e->node);
    e->free_frames = NULL;
    e->all_frames = NULL;
    e->nall = e->all_cap = 0;
    e->live_frames = 0;
}

void exec_fini(exec *e)
{
    for (uint32_t i = 0; i < e->nall; i++) {
        free(e->all_frames[i]->granted);
        free(e->all_frames[i]);
    }
    free(e->all_frames);
    free(e->node);
    e->all_frames = NULL;
    e->node = NULL;
    e->free_frames = NULL;
    e->nall = e->all_cap = 0;
}

static exec_frame *frame_get(exec *e)
{
    exec_frame *f = e->free_frames;
    if (f) {
        e->free_frames = f->below;
    } else {
        f = aligned_alloc(FRAME_ALIGN, FRAME_BYTES);
        TN_ASSERT(f != NULL, "out of memory for a task frame");
        memset(f, 0, FRAME_BYTES);
        if (e->nall == e->all_cap) {
            e->all_cap = e->all_cap ? 2 * e->all_cap : 64;
            e->all_frames = tn_xrealloc(e->all_frames, e->all_cap * sizeof *e->all_frames);
        }
        e->all_frames[e->nall++] = f;
    }
    e->live_frames++;
    /* Keep the buffers: they are what makes the pool allocation-free. */
    f->npend = f->working = f->round = f->round_left = 0;
    f->dq_head = f->dq_len = 0;
    f->below = NULL;
    return f;
}

static void frame_put(exec *e, exec_frame *f)
{
    f->job = NULL;
    f->ret_frame = NULL;
    f->below = e->free_frames;
    e->free_frames = f;
    e->live_frames--;
}

static void frame_reserve(exec_frame *f, uint32_t n)
{
    if (f->cap >= n)
        return;
    uint32_t cap = f->cap ? f->cap : 4;
    while (cap < n)
        cap *= 2;
    /* One block for both arrays; nothing is in them between tasks. */
    free(f->granted);
    f->granted = tn_xmalloc(2 * (size_t)cap * sizeof *f->granted);
    f->deferred = f->granted + cap;
    f->cap = cap;
}

static void compute_done(sim *s, void *ctx, uint64_t arg);

static void start_compute(exec *e, uint32_t node, exec_frame *f, uint8_t phase, int64_t dur_ps)
{
    TN_ASSERT(dur_ps >= 0, "negative compute time %lld ps (job %llu task %u)", (long long)dur_ps,
              (unsigned long long)f->job->seq, f->vertex);
    f->phase = phase;
    f->mark_ps = sim_now(e->port->sim);
    sim_schedule(e->port->sim, dur_ps, compute_done, e, node);
}

static void start_task(exec *e, uint32_t node, exec_frame *f)
{
    exec_node *n = &e->node[node];
    f->below = n->top;
    f->depth = f->below ? f->below->depth + 1 : 1;
    n->top = f;
    if (f->depth > n->depth_max)
        n->depth_max = f->depth;
    const tree *t = f->job->t;
    uint32_t v = f->vertex;
    f->t_agg_ps = t->t_agg_ps[v];
    f->result_bytes = t->result_bytes[v];
    f->child_base = t->child_off[v];
    f->nchild = t->child_off[v + 1] - f->child_base;
    start_compute(e, node, f, PHASE_INIT, t->t_init_ps[v]);
}

static void run_next_local(exec *e, uint32_t node, exec_frame *f)
{
    TN_ASSERT(f->npend > 0, "no pending child to run locally");
    uint32_t c = f->job->t->child[f->child_base + --f->npend];
    f->phase = PHASE_LOCAL;
    exec_frame *cf = frame_get(e);
    cf->job = f->job;
    cf->vertex = c;
    cf->origin = ORIGIN_LOCAL;
    cf->mode = MODE_NONE;
    start_task(e, node, cf);
}

static void delegate(exec *e, uint32_t node, exec_frame *f, uint32_t to)
{
    TN_ASSERT(f->npend > 0, "no pending child to delegate");
    TN_ASSERT(to != node && to != 0, "node %u delegating to node %u", node, to);
    const tree *t = f->job->t;
    uint32_t c = t->child[f->child_base + --f->npend];
    /* The tag is the round in which the delegation left: its reply belongs
     * to the first wait that starts after it (see on_result). */
    sched_send(e->port, node, to, t->send_bytes[c], NET_DATA, NET_PRIO_LOW, SCHED_DELEGATE, c,
               f->round, f);
}

static void trace_wait(exec *e, uint32_t node, exec_frame *f, const char *name)
{
    int64_t now = sim_now(e->port->sim);
    if (e->port->trace && now > f->mark_ps)
        trace_slice(e->port->trace, node, "wait", name, f->mark_ps, now, f->job->seq, f->vertex);
}

static void start_agg(exec *e, uint32_t node, exec_frame *f)
{
    start_compute(e, node, f, PHASE_AGG, f->t_agg_ps);
}

/* A reply counted in the current round: re-delegate while more than one
 * child is pending (the last one is M's own), else give the node back. */
static void handle_reply(exec *e, uint32_t node, exec_frame *f, uint32_t r)
{
    TN_ASSERT(f->round_left > 0, "reply from node %u outside a wait round", r);
    f->round_left--;
    if (f->npend > 1) {
        delegate(e, node, f, r);
    } else {
        f->working--;
        sched_send(e->port, node, 0, e->port->eps_bytes, NET_CONTROL, NET_PRIO_HIGH,
                   SCHED_RELEASE, r, f->job->seq, NULL);
    }
}

static void end_round(exec *e, uint32_t node, exec_frame *f)
{
    trace_wait(e, node, f, "wait delegates");
    if (f->npend > 0) {
        run_next_local(e, node, f);
        return;
    }
    TN_ASSERT(f->working == 0, "%u delegates still working with no child pending", f->working);
    start_agg(e, node, f);
}

/* After each local child: wait for every delegate working now. Replies
 * that came while the node computed were deferred and are handled first,
 * in arrival order, at this instant. */
static void start_wait(exec *e, uint32_t node, exec_frame *f)
{
    f->phase = PHASE_WAIT;
    f->mark_ps = sim_now(e->port->sim);
    f->round++;
    f->round_left = f->working;
    TN_ASSERT(f->dq_len <= f->working, "%u deferred replies for %u delegates", f->dq_len,
              f->working);
    while (f->dq_len > 0) {
        uint32_t r = f->deferred[f->dq_head];
        f->dq_head = f->dq_head + 1 == f->cap ? 0 : f->dq_head + 1;
        f->dq_len--;
        handle_reply(e, node, f, r);
    }
    if (f->round_left == 0)
        end_round(e, node, f);
}

/* The frame below a finished local child resumes. */
static void child_returned(exec *e, uint32_t node, exec_frame *f)
{
    TN_ASSERT(f->phase == PHASE_LOCAL, "frame resumed in phase %u", f->phase);
    switch (f->mode) {
    case MODE_SINGLE:
        start_agg(e, node, f);
        break;
    case MODE_ALL_LOCAL:
        if (f->npend > 0)
            run_next_local(e, node, f);
        else
            start_agg(e, node, f);
        break;
    case MODE_DELEGATE:
        start_wait(e, node, f);
        break;
    default:
        TN_ASSERT(0, "leaf frame resumed (mode %u)", f->mode);
    }
}

static void after_init(exec *e, uint32_t node, exec_frame *f)
{
    uint32_t m = f->nchild;
    if (m == 0) {
        f->mode = MODE_NONE;
        start_agg(e, node, f);
    } else if (m == 1) {
        f->mode = MODE_SINGLE;
        f->npend = 1;
        run_next_local(e, node, f);
    } else {
        frame_reserve(f, m - 1);
        f->phase = PHASE_WAIT_GRANT;
        f->mark_ps = sim_now(e->port->sim);
        sched_send(e->port, node, 0, e->port->eps_bytes, NET_CONTROL, NET_PRIO_HIGH,
                   SCHED_ALLOC_REQ, m - 1, f->job->seq, f->granted);
    }
}

static void finish_task(exec *e, uint32_t node, exec_frame *f)
{
    exec_node *n = &e->node[node];
    TN_ASSERT(n->top == f, "finishing a frame that is not on top");
    TN_ASSERT(f->working == 0 && f->dq_len == 0 && f->npend == 0,
              "task finished with %u delegates, %u deferred replies, %u pending children",
              f->working, f->dq_len, f->npend);
    n->top = f->below;
    n->tasks++;
    sched_job *j = f->job;
    switch (f->origin) {
    case ORIGIN_ROOT:
        TN_ASSERT(n->top == NULL, "root task finished above another frame");
        sched_send(e->port, node, 0, e->port->eps_bytes, NET_CONTROL, NET_PRIO_LOW,
                   SCHED_JOB_DONE, 0, j->seq, j);
        frame_put(e, f);
        break;
    case ORIGIN_DELEGATED:
        TN_ASSERT(n->top == NULL, "delegated task finished above another frame");
        sched_send(e->port, node, f->ret_node, f->result_bytes, NET_DATA,
                   NET_PRIO_HIGH, SCHED_RESULT, f->vertex, f->ret_tag, f->ret_frame);
        frame_put(e, f);
        break;
    default:
        TN_ASSERT(n->top != NULL, "local task finished with no parent frame");
        frame_put(e, f);
        child_returned(e, node, n->top);
    }
}

static void compute_done(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    exec *e = ctx;
    uint32_t node = (uint32_t)arg;
    exec_frame *f = e->node[node].top;
    TN_ASSERT(f != NULL, "compute phase ended on node %u with no task", node);
    int64_t now = sim_now(e->port->sim);
    e->node[node].compute_ps += now - f->mark_ps;
    if (f->phase == PHASE_INIT) {
        if (e->port->trace)
            trace_slice(e->port->trace, node, "compute", "init", f->mark_ps, now, f->job->seq,
                        f->vertex);
        after_init(e, node, f);
    } else {
        TN_ASSERT(f->phase == PHASE_AGG, "compute phase ended in phase %u", f->phase);
        if (e->port->trace)
            trace_slice(e->port->trace, node, "compute", "aggregation", f->mark_ps, now,
                        f->job->seq, f->vertex);
        finish_task(e, node, f);
    }
}

static void on_grant(exec *e, uint32_t node, exec_frame *f, uint32_t k)
{
    TN_ASSERT(f->phase == PHASE_WAIT_GRANT, "grant reached node %u in phase %u", node, f->phase);
    trace_wait(e, node, f, "wait grant");
    uint32_t m = f->nchild;
    TN_ASSERT(k < m, "granted %u nodes for %u children", k, m);
    f->npend = m;
    if (k == 0) {
        f->mode = MODE_ALL_LOCAL;
        run_next_local(e, node, f);
        return;
    }
    f->mode = MODE_DELEGATE;
    for (uint32_t i = 0; i < k; i++)
        delegate(e, node, f, f->granted[i]);
    f->working = k;
    run_next_local(e, node, f);
}

static void on_result(exec *e, uint32_t node, exec_frame *f, uint32_t r, uint64_t tag)
{
    TN_ASSERT(f->mode == MODE_DELEGATE && f->working > 0,
              "result from node %u reached a frame with no delegate", r);
    /* Only a reply to a delegation sent before the current wait began is
     * awaited now; anything else waits for the next wait (in order). */
    if (f->phase == PHASE_WAIT && tag < f->round) {
        handle_reply(e, node, f, r);
        if (f->round_left == 0)
            end_round(e, node, f);
        return;
    }
    TN_ASSERT(f->dq_len < f->cap && f->dq_len < f->working, "deferred ring overflow (%u of %u)",
              f->dq_len, f->cap);
    uint32_t at = f->dq_head + f->dq_len;
    if (at >= f->cap)
        at -= f->cap;
    f->deferred[at] = r;
    f->dq_len++;
}

void exec_deliver(exec *e, net_msg *m)
{
    uint32_t node = m->dst;
    TN_ASSERT(node >= 1 && node < e->nodes, "message kind %u for node %u", (unsigned)m->kind,
              node);
    exec_node *n = &e->node[node];
    switch (m->kind) {
    case SCHED_ASSIGN: {
        TN_ASSERT(n->top == NULL, "root assignment reached busy node %u", node);
        exec_frame *f = frame_get(e);
        f->job = m->p;
        f->vertex = 0;
        f->origin = ORIGIN_ROOT;
        f->mode = MODE_NONE;
        n->roots++;
        net_msg_release(&e->port->pool, m);
        start_task(e, node, f);
        break;
    }
    case SCHED_DELEGATE: {
        TN_ASSERT(n->top == NULL, "delegation reached busy node %u", node);
        exec_frame *parent = m->p;
        exec_frame *f = frame_get(e);
        f->job = parent->job;
        f->vertex = m->a;
        f->origin = ORIGIN_DELEGATED;
        f->mode = MODE_NONE;
        f->ret_node = m->src;
        f->ret_frame = parent;
        f->ret_tag = m->b;
        n->delegations_in++;
        net_msg_release(&e->port->pool, m);
        start_task(e, node, f);
        break;
    }
    case SCHED_GRANT: {
        exec_frame *f = n->top;
        TN_ASSERT(f != NULL && f->granted == m->p, "grant reached node %u, which did not ask",
                  node);
        uint32_t k = m->a;
        net_msg_release(&e->port->pool, m);
        on_grant(e, node, f, k);
        break;
    }
    case SCHED_RESULT: {
        exec_frame *f = m->p;
        uint32_t r = m->src;
        uint64_t tag = m->b;
        net_msg_release(&e->port->pool, m);
        on_result(e, node, f, r, tag);
        break;
    }
    default:
        TN_ASSERT(0, "message kind %u (%s) is not for a compute node", (unsigned)m->kind,
                  sched_kind_name(m->kind));
    }
}

uint64_t exec_msg_job_seq(const net_msg *m)
{
    if (m->kind == SCHED_DELEGATE || m->kind == SCHED_RESULT)
        return ((const exec_frame *)m->p)->job->seq;
    return m->b;
}
