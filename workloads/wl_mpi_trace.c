/* The mpi-trace workload: replay of an MPI program's trace (OTF2, as
 * Score-P or tasknet's tracer writes it) over a fabric (issue 20 item 2).
 *
 * Model:
 *   - Rank r of the trace is the workload's rank r (its nodes= mapping
 *     places it); each rank runs its operations (jobs/mpitrace.h) in order.
 *   - compute(t): the rank is busy t x compute-scale (the trace's time
 *     outside MPI calls).
 *   - Point-to-point, MPI's matching: a receive takes the first message (in
 *     arrival order) from its source with its tag on its communicator; a
 *     message nobody waits for waits in the receiver's unexpected queue.
 *     The trace names each receive's actual source and tag, so no wildcard
 *     is left to resolve. Messages of one pair are matched in arrival order
 *     (the fabric's: FIFO on the switch).
 *   - Eager (payload < eager-limit): the data leaves at the send, which
 *     completes at once (the library buffers it); the receive completes at
 *     its arrival or, if it came first, at the receive's post.
 *   - Rendezvous (payload >= eager-limit): the send hands over a request
 *     (RTS, rts-size bytes); when it meets the matching receive (posted
 *     first, or posted later and finding the RTS unexpected) the receiver
 *     returns a clear-to-send (CTS, rts-size bytes), on whose arrival the
 *     sender hands over the data; both requests complete when the data has
 *     arrived (an RDMA write's completion). Control messages are of the
 *     fabric's control class. Progress is asynchronous (an RTS or CTS is
 *     answered when it arrives, whatever the rank is doing).
 *   - Blocking Send/Recv complete before the rank goes on; Isend/Irecv go on
 *     at once and a Wait (where the trace completed the request: Wait,
 *     Waitall, Test) blocks until the request is complete.
 *   - Collectives: the collectives module's algorithm (one attribute per
 *     operation, named after it, but barrier-algorithm: training's
 *     workload.barrier is on/off; `auto` = Open MPI's default rules by size) among the
 *     communicator's members, its messages matched on (communicator
 *     instance, step, source). Its messages follow the point-to-point
 *     protocol, as an MPI library's collectives run on its point-to-point
 *     layer (Open MPI's coll/tuned over its PML): below eager-limit a send
 *     leaves at once; at or above it the send hands over an RTS and the
 *     rank goes on down its list (an Isend); the receiver answers with a
 *     CTS when it reaches that receive in its list and the request has
 *     arrived, and waits there for the data. The rank goes on past the
 *     collective when its own list is run and the data of each of its
 *     rendezvous sends has arrived (the library's wait on its sends).
 *   - Messages are of the data class at the workload's priority.
 * Metrics: replay_time_s, the start of the replay to the last rank's last
 * operation; per rank its MPI time (its end minus its computation) and
 * its share of its end; compute replayed and the trace's; messages and
 * bytes by kind; mpi_events (operations replayed but computation).
 * Exactly once: every message is expected by its receiver (a foreign or
 * repeated one is counted as bad); finish checks every rank ran its list,
 * no receive or unexpected message is left over and every message came
 * back. Memory: the trace (jobs/mpitrace.h) and per operation a byte and a
 * match index; a pool of queue entries grows by doubling (the only
 * allocation during a run, as net_msg_pool's). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "log.h"
#include "metrics.h"
#include "mpitrace.h"
#include "network.h"
#include "sim.h"
#include "units.h"
#include "workload.h"

#define MP_KIND 0x4d50u /* net_msg.kind ("MP") */
#define MP_DEAD 0xdeadu
/* net_msg.a: the type in its low MSG_BITS bits, a collective message's tag above */
enum { MSG_EAGER = 1, MSG_RTS, MSG_CTS, MSG_DATA, MSG_COLL, MSG_CRTS, MSG_CCTS, MSG_CDATA };
#define MSG_BITS 4
/* a collective's rendezvous messages carry in net_msg.b the instance and,
 * above CIDX_SHIFT, the sender's index in its list (CRTS, CCTS) */
#define CIDX_SHIFT 40
#define CINST_MASK ((1ull << CIDX_SHIFT) - 1)

static coll_alg mp_alg(int i) { return coll_choice_alg(i); }

typedef struct mp_params {
    param_file file;
    uint64_t eager_bytes;
    uint64_t control_bytes;
    double compute_scale;
    int alg[COLL_NOPS]; /* index into mp_alg_names */
} mp_params;

#define MP_ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_
#define MP(field) offsetof(mp_params, field)
#define MP_ALG_ROW(op, name)                                                                                   \
    {MP_ROW("workload." name, "choice", "", "auto",                                                            \
            "mpi-trace: " name " algorithm, auto (Open MPI's rules by size) or one of the collectives module's"), \
     .kind = PARAM_CHOICE, .off = MP(alg) + (op) * sizeof(int), .choices = coll_choice_names, .example = "auto"}

static const param_row mp_rows[] = {
    {MP_ROW("workload.file", "file", "", "", "mpi-trace: an OTF2 archive's anchor file (Score-P's traces.otf2, or tasknet's tracer)"),
     .kind = PARAM_FILE, .off = MP(file), .flags = PARAM_REQUIRED, .example = "mpi-ring.otf2"},
    {MP_ROW("workload.eager-limit", "size", "B", "64kB", "mpi-trace: messages below it (point-to-point and inside collectives) go eagerly, the others by rendezvous (RTS, CTS, data)"),
     .kind = PARAM_BYTES, .off = MP(eager_bytes), .flags = PARAM_NONNEG, .example = "64kB"},
    {MP_ROW("workload.rts-size", "size", "B", "64B", "mpi-trace: bytes of a rendezvous request (RTS) and of a clear-to-send (CTS)"),
     .kind = PARAM_BYTES, .off = MP(control_bytes), .flags = PARAM_NONNEG, .example = "64B"},
    {MP_ROW("workload.compute-scale", "number", "", "1", "mpi-trace: factor on the trace's computation between MPI calls (0: none)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = MP(compute_scale), .flags = PARAM_NONNEG, .example = "0.5"},
    MP_ALG_ROW(COLL_BARRIER, "barrier-algorithm"), /* "barrier" is training's on/off */
    MP_ALG_ROW(COLL_BCAST, "bcast"),
    MP_ALG_ROW(COLL_REDUCE, "reduce"),
    MP_ALG_ROW(COLL_ALLREDUCE, "allreduce"),
    MP_ALG_ROW(COLL_GATHER, "gather"),
    MP_ALG_ROW(COLL_SCATTER, "scatter"),
    MP_ALG_ROW(COLL_ALLGATHER, "allgather"),
    MP_ALG_ROW(COLL_ALLTOALL, "alltoall"),
    MP_ALG_ROW(COLL_REDUCE_SCATTER, "reduce-scatter"),
};

#define MP_METRICS(X)                                                                                       \
    X(replay_time_s, "replay: its start to the last rank's last operation")                                 \
    X(trace_time_s, "the trace's own span, first event to last")                                            \
    X(mpi_time_mean_s, "per rank: its end minus its computation (time in MPI): mean")                       \
    X(mpi_time_max_s, "per rank: time in MPI: the largest")                                                 \
    X(mpi_share_mean, "per rank: time in MPI over its end: mean")                                           \
    X(mpi_share_max, "per rank: time in MPI over its end: the largest")                                     \
    X(compute_time_s, "computation replayed, all ranks (trace x compute-scale)")                            \
    X(trace_compute_time_s, "the trace's computation between MPI calls, all ranks")                         \
    X(ranks, "ranks of the trace")                                                                          \
    X(mpi_events, "MPI operations replayed (sends, receives, waits, collectives)")                         \
    X(p2p_messages, "point-to-point messages (eager and rendezvous data)")                                  \
    X(p2p_bytes, "point-to-point payload bytes")                                                            \
    X(eager_messages, "point-to-point messages sent eagerly")                                               \
    X(rendezvous_messages, "point-to-point messages sent by rendezvous")                                    \
    X(control_messages, "rendezvous requests and clear-to-sends (point-to-point and collectives')")                                           \
    X(collectives, "collective operations (instances)")                                                     \
    X(collective_messages, "messages of collective operations (eager or rendezvous data)")                                             \
    X(collective_bytes, "payload bytes of collective operations")
enum { MP_METRICS(METRIC_ENUM) MP_NMETRICS };
static const metric_def mp_metrics_def[] = {MP_METRICS(METRIC_DEF)};

/* ---- matching queues ---- */

enum { Q_POSTED = 1, Q_EAGER, Q_RTS, Q_COLL_POSTED, Q_COLL_MSG, Q_COLL_RTS };

typedef struct mp_q {
    uint32_t dst, src, tag;
    uint64_t ctx;   /* p2p: comm << 1; collective: instance << 1 | 1 */
    uint8_t type;   /* Q_* */
    uint64_t item;  /* posted: the receive op; eager/rts: the send op */
    uint32_t next;  /* chain in its bucket, UINT32_MAX at the end */
} mp_q;
#define Q_NIL UINT32_MAX

typedef struct mp_rank {
    uint64_t pc, end;
    uint64_t wait_op;    /* the op it waits for (UINT64_MAX: none) */
    uint8_t state;       /* enum below */
    int64_t done_ps, compute_ps;
    /* collective in progress */
    uint64_t coll;       /* instance */
    uint32_t cidx;       /* own index in the communicator */
    uint32_t cpc, cn;    /* its list: cl[cpc .. cn) */
    uint32_t cl0;        /* its list's slot in mp.cl */
    uint32_t cpend;      /* its rendezvous sends of the collective whose data has not arrived */
    uint8_t cdata;       /* blocked at a receive whose CTS has left: waits for the data */
    /* the spec and communicator its list was built for (a collective of
     * the same shape on the same communicator reuses it) */
    coll_spec lspec;
    uint32_t lcomm, lme, ln;
} mp_rank;
enum { R_RUN = 0, R_WAIT, R_COMPUTE, R_COLL, R_DONE };

typedef struct mp_citem { /* one op of a collective list */
    uint32_t peer;        /* world rank */
    uint32_t tag;
    uint64_t bytes;
    uint8_t send;
} mp_citem;

/* A trace read once per process: the checks and the estimates see the
 * configuration only (no run cache), and each asked for the trace, so one
 * `tasknet run` read the archive six times (79 % of its instructions at 64
 * ranks, bench/mpi-replay.sh). Traces stay loaded, keyed by path and digest,
 * for the process's life; a trace no running workload holds (users = 0) is
 * dropped when the traces held pass MP_KEEP_OPS operations. Several
 * workloads replaying different traces on one fabric each hold their own. */
typedef struct mp_loaded {
    uint64_t digest;
    char path[PARAM_PATH_MAX];
    mt_trace t;
    uint32_t users;
    /* the estimate's point-to-point messages and bytes at est_eager (a
     * walk of every op, asked for several times per point) */
    uint64_t est_eager;
    double est_msgs, est_bytes;
    int est_ok;
    struct mp_loaded *next;
} mp_loaded;
#define MP_KEEP_OPS (4u << 20) /* 4 Mi operations, 160 MiB of mt_op */
static mp_loaded *mp_traces;

typedef struct mp {
    const mp_params *p;
    const mt_trace *t;
    sim *s;
    net *n;
    mp_loaded *held;     /* the trace's entry (users counts this workload) */
    mp_rank *rank;       /* [ranks] */
    uint8_t *done;       /* [nops] request complete */
    uint64_t *match;     /* [nops] a rendezvous send's receive op */
    mp_citem *cl;        /* [ranks * cmax] collective lists */
    uint32_t cmax;
    mp_q *q;             /* pool */
    uint32_t nq, qcap, qfree;
    uint32_t *bucket, *btail;
    uint32_t nb;         /* buckets (power of two) */
    uint64_t live_q;
    net_msg_pool pool;
    uint64_t bad;
    uint32_t left;       /* ranks not done */
    int64_t start_ps;
    /* counters */
    uint64_t events, p2p, p2p_bytes, eager, rdv, ctrl, coll_msgs, coll_bytes;
    int up;
} mp;

static inline uint32_t q_hash(const mp *w, uint32_t dst, uint32_t src, uint32_t tag, uint64_t ctx)
{
    uint64_t h = ((uint64_t)dst * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)src * 0xc2b2ae3d27d4eb4fULL) ^
                 ((uint64_t)tag * 0x165667b19e3779f9ULL) ^ (ctx * 0xd6e8feb86659fd93ULL);
    h ^= h >> 29;
    return (uint32_t)h & (w->nb - 1);
}

/* The first entry of the key if it is a waiting receive (posted = 1) or an
 * unexpected message (posted = 0), removed from its chain; else Q_NIL
 * (every entry of a key is on one side: receives waiting, or messages
 * unexpected). */
static uint32_t q_take_side(mp *w, uint32_t dst, uint32_t src, uint32_t tag, uint64_t ctx, int posted)
{
    uint32_t b = q_hash(w, dst, src, tag, ctx), prev = Q_NIL;
    for (uint32_t i = w->bucket[b]; i != Q_NIL; prev = i, i = w->q[i].next) {
        mp_q *e = &w->q[i];
        if (e->dst == dst && e->src == src && e->tag == tag && e->ctx == ctx) {
            if ((e->type == Q_POSTED || e->type == Q_COLL_POSTED) != posted)
                return Q_NIL;
            if (prev == Q_NIL)
                w->bucket[b] = e->next;
            else
                w->q[prev].next = e->next;
            if (w->btail[b] == i)
                w->btail[b] = prev;
            w->live_q--;
            return i;
        }
    }
    return Q_NIL;
}

static void q_free(mp *w, uint32_t i)
{
    w->q[i].next = w->qfree;
    w->qfree = i;
}

static void q_put(mp *w, uint32_t dst, uint32_t src, uint32_t tag, uint64_t ctx, uint8_t type, uint64_t item)
{
    uint32_t i = w->qfree;
    if (i == Q_NIL) {
        if (w->nq == w->qcap) { /* the pool grows by doubling */
            w->qcap = w->qcap ? 2 * w->qcap : 1024;
            w->q = tn_xrealloc(w->q, (size_t)w->qcap * sizeof *w->q);
        }
        i = w->nq++;
    } else {
        w->qfree = w->q[i].next;
    }
    w->q[i] = (mp_q){dst, src, tag, ctx, type, item, Q_NIL};
    uint32_t b = q_hash(w, dst, src, tag, ctx);
    if (w->btail[b] == Q_NIL)
        w->bucket[b] = i;
    else
        w->q[w->btail[b]].next = i;
    w->btail[b] = i;
    w->live_q++;
}

/* ---- messages ---- */

static void hand(mp *w, uint32_t src, uint32_t dst, uint64_t bytes, uint8_t cls, uint32_t a, uint64_t b)
{
    wl_send(w->n, &w->pool, src, dst, bytes, cls, MP_KIND, a, b);
}

static void run_rank(mp *w, uint32_t r);

static uint32_t op_rank(const mp *w, uint64_t k)
{
    /* ranks are few next to ops: binary search of start[] */
    const mt_trace *t = w->t;
    uint32_t lo = 0, hi = t->ranks;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->start[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void complete(mp *w, uint64_t k, uint32_t r)
{
    w->done[k] = 1;
    mp_rank *rk = &w->rank[r];
    if (rk->state == R_WAIT && rk->wait_op == k) {
        rk->state = R_RUN;
        rk->wait_op = UINT64_MAX;
        run_rank(w, r);
    }
}

static void start_send(mp *w, uint32_t r, uint64_t k)
{
    const mt_op *o = &w->t->ops[k];
    if (o->bytes < w->p->eager_bytes) {
        w->eager++;
        w->p2p++;
        w->p2p_bytes += o->bytes;
        w->done[k] = 1;
        hand(w, r, o->peer, o->bytes, NET_DATA, MSG_EAGER, k);
    } else {
        w->ctrl++;
        hand(w, r, o->peer, w->p->control_bytes, NET_CONTROL, MSG_RTS, k);
    }
}

static void send_cts(mp *w, uint64_t send_op, uint64_t recv_op, uint32_t receiver)
{
    w->match[send_op] = recv_op;
    w->ctrl++;
    hand(w, receiver, op_rank(w, send_op), w->p->control_bytes, NET_CONTROL, MSG_CTS, send_op);
}

static void post_recv(mp *w, uint32_t r, uint64_t k)
{
    const mt_op *o = &w->t->ops[k];
    uint32_t e = q_take_side(w, r, o->peer, o->tag, (uint64_t)o->comm << 1, 0);
    if (e == Q_NIL) { /* nothing unexpected: it waits, after any receive of its key posted earlier */
        q_put(w, r, o->peer, o->tag, (uint64_t)o->comm << 1, Q_POSTED, k);
        return;
    }
    mp_q x = w->q[e];
    q_free(w, e);
    if (x.type == Q_EAGER)
        w->done[k] = 1;
    else if (x.type == Q_RTS)
        send_cts(w, x.item, k, r);
    else
        w->bad++;
}

/* ---- collectives ---- */

typedef struct cl_fill {
    mp_citem *out;
    uint32_t n;
    const uint32_t *members;
} cl_fill;

static void cl_emit(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    cl_fill *f = ctx;
    f->out[f->n++] = (mp_citem){f->members[peer], tag, bytes, (uint8_t)send};
}

static void count_emit(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    (void)send, (void)peer, (void)bytes, (void)tag;
    (*(uint32_t *)ctx)++;
}

typedef struct rdv_count {
    uint64_t eager, n;
} rdv_count;

static void rdv_emit(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    (void)peer, (void)tag;
    rdv_count *c = ctx;
    c->n += send && bytes >= c->eager;
}

static coll_spec spec_of(const mp *w, const mt_coll *c)
{
    coll_spec s = c->spec;
    s.alg = mp_alg(w->p->alg[s.op]);
    if (!coll_alg_valid(s.op, s.alg))
        s.alg = COLL_AUTO;
    return s;
}

/* Two specs of one shape with no per-rank counts: the same messages (a
 * trace repeats its collectives: CG's allreduce 1,200 times at 64 ranks;
 * the estimate and the list sizes are worked once per run of them). */
static const uint64_t spec_none[1];
static int spec_same(const coll_spec *a, const coll_spec *b)
{
    return !a->counts && !b->counts && a->op == b->op && a->alg == b->alg && a->ranks == b->ranks &&
           a->root == b->root && a->bytes == b->bytes && a->segment == b->segment && a->group == b->group;
}

/* The receiver of a collective's RTS (sent by world rank `sender`, its
 * list index idx) answers with a CTS and waits for the data. */
static void coll_cts(mp *w, uint32_t r, uint32_t sender, uint32_t tag, uint64_t idx)
{
    mp_rank *rk = &w->rank[r];
    rk->cdata = 1;
    w->ctrl++;
    hand(w, r, sender, w->p->control_bytes, NET_CONTROL, MSG_CCTS | (tag << MSG_BITS),
         rk->coll | (idx << CIDX_SHIFT));
}

/* Run rank r's collective list; 1 when it is through: every op run and
 * every rendezvous send's data arrived (MPI's wait on the sends at the
 * collective's end). A send below eager-limit leaves at once (MSG_COLL);
 * one at or above it sends an RTS and the rank goes on (an Isend). */
static int coll_go(mp *w, uint32_t r)
{
    mp_rank *rk = &w->rank[r];
    uint64_t ctx = (rk->coll << 1) | 1;
    if (rk->cdata)
        return 0;
    while (rk->cpc < rk->cn) {
        const mp_citem *it = &w->cl[rk->cl0 + rk->cpc];
        if (it->send) {
            if (it->bytes < w->p->eager_bytes) {
                w->coll_msgs++;
                w->coll_bytes += it->bytes;
                hand(w, r, it->peer, it->bytes, NET_DATA, MSG_COLL | (it->tag << MSG_BITS), rk->coll);
            } else {
                TN_ASSERT(rk->coll <= CINST_MASK, "collective instance %llu", (unsigned long long)rk->coll);
                w->ctrl++;
                rk->cpend++;
                hand(w, r, it->peer, w->p->control_bytes, NET_CONTROL, MSG_CRTS | (it->tag << MSG_BITS),
                     rk->coll | ((uint64_t)rk->cpc << CIDX_SHIFT));
            }
            rk->cpc++;
            continue;
        }
        uint32_t e = q_take_side(w, r, it->peer, it->tag, ctx, 0);
        if (e == Q_NIL) {
            q_put(w, r, it->peer, it->tag, ctx, Q_COLL_POSTED, 0);
            return 0;
        }
        mp_q x = w->q[e];
        q_free(w, e);
        if (x.type == Q_COLL_RTS) { /* a request waited for this receive */
            coll_cts(w, r, it->peer, it->tag, x.item);
            return 0;
        }
        rk->cpc++;
    }
    return rk->cpend == 0;
}

/* ---- ranks ---- */

static void ev_compute_done(sim *s, void *ctx, uint64_t r)
{
    (void)s;
    mp *w = ctx;
    w->rank[r].state = R_RUN;
    run_rank(w, (uint32_t)r);
}

static void rank_done(mp *w, uint32_t r)
{
    mp_rank *rk = &w->rank[r];
    rk->state = R_DONE;
    rk->done_ps = sim_now(w->s);
    w->left--;
}

static void run_rank(mp *w, uint32_t r)
{
    mp_rank *rk = &w->rank[r];
    const mt_op *ops = w->t->ops;
    if (rk->state == R_COLL) {
        if (!coll_go(w, r))
            return;
        rk->state = R_RUN;
        rk->pc++;
    }
    while (rk->pc < rk->end) {
        uint64_t k = rk->pc;
        const mt_op *o = &ops[k];
        switch (o->kind) {
        case MT_COMPUTE: {
            rk->pc++;
            int64_t t = (int64_t)llround((double)o->arg * w->p->compute_scale);
            if (t > 0) {
                rk->compute_ps += t;
                rk->state = R_COMPUTE;
                sim_schedule(w->s, t, ev_compute_done, w, r);
                return;
            }
            break;
        }
        case MT_SEND:
        case MT_ISEND:
            w->events++;
            rk->pc++;
            start_send(w, r, k);
            if (o->kind == MT_SEND && !w->done[k]) {
                rk->state = R_WAIT;
                rk->wait_op = k;
                return;
            }
            break;
        case MT_RECV:
        case MT_IRECV:
            w->events++;
            rk->pc++;
            post_recv(w, r, k);
            if (o->kind == MT_RECV && !w->done[k]) {
                rk->state = R_WAIT;
                rk->wait_op = k;
                return;
            }
            break;
        case MT_WAIT:
            if (!w->done[o->arg]) {
                rk->state = R_WAIT;
                rk->wait_op = o->arg;
                return;
            }
            w->events++;
            rk->pc++;
            break;
        case MT_COLL: {
            w->events++;
            const mt_coll *c = &w->t->colls[o->arg];
            const mt_comm *cm = &w->t->comms[c->comm];
            coll_spec sp = spec_of(w, c);
            if (!spec_same(&sp, &rk->lspec) || rk->lcomm != c->comm) { /* else its list is still in place */
                uint32_t me = 0;
                if (r < cm->size && cm->members[r] == r) /* the world, and the like */
                    me = r;
                else
                    while (me < cm->size && cm->members[me] != r)
                        me++;
                cl_fill f = {&w->cl[rk->cl0], 0, cm->members};
                if (me < cm->size)
                    coll_rank(&sp, me, cl_emit, &f);
                TN_ASSERT(f.n <= w->cmax, "collective list of %u ops, room for %u", f.n, w->cmax);
                rk->lspec = sp;
                rk->lcomm = c->comm;
                rk->lme = me;
                rk->ln = f.n;
            }
            rk->coll = o->arg;
            rk->cidx = rk->lme;
            rk->cpc = 0;
            rk->cn = rk->ln;
            if (!coll_go(w, r)) {
                rk->state = R_COLL;
                return;
            }
            rk->pc++;
            break;
        }
        default: /* MT_NOP */
            rk->pc++;
            break;
        }
    }
    rank_done(w, r);
}

static void ev_start(sim *s, void *ctx, uint64_t r)
{
    (void)s;
    run_rank(ctx, (uint32_t)r);
}

/* ---- deliveries ---- */

static void mp_deliver(void *state, net_msg *m)
{
    mp *w = state;
    const mt_trace *t = w->t;
    uint32_t a = m->a, type = a & ((1u << MSG_BITS) - 1);
    if (m->kind != MP_KIND || m->dst >= t->ranks || m->src >= t->ranks) {
        w->bad++;
        return;
    }
    uint32_t src = m->src, dst = m->dst;
    uint64_t k = m->b;
    m->kind = MP_DEAD;
    net_msg_release(&w->pool, m);
    if (type == MSG_COLL || type == MSG_CRTS) {
        /* an eager message or a request: a receive waiting takes it; else it waits unexpected */
        uint32_t tag = a >> MSG_BITS;
        uint64_t inst = k & CINST_MASK, ctx = (inst << 1) | 1;
        uint32_t e = q_take_side(w, dst, src, tag, ctx, 1);
        if (e == Q_NIL) {
            q_put(w, dst, src, tag, ctx, type == MSG_COLL ? Q_COLL_MSG : Q_COLL_RTS, k >> CIDX_SHIFT);
            return;
        }
        q_free(w, e);
        mp_rank *rk = &w->rank[dst];
        if (rk->state != R_COLL || rk->coll != inst || rk->cdata) {
            w->bad++;
        } else if (type == MSG_CRTS) {
            coll_cts(w, dst, src, tag, k >> CIDX_SHIFT);
        } else {
            rk->cpc++;
            run_rank(w, dst);
        }
        return;
    }
    if (type == MSG_CCTS) { /* at the sender: the data of its list's op idx leaves */
        uint64_t inst = k & CINST_MASK, idx = k >> CIDX_SHIFT;
        mp_rank *rk = &w->rank[dst];
        const mp_citem *it = idx < rk->cn ? &w->cl[rk->cl0 + idx] : NULL;
        if (rk->state != R_COLL || rk->coll != inst || !it || !it->send || it->peer != src) {
            w->bad++;
            return;
        }
        w->coll_msgs++;
        w->coll_bytes += it->bytes;
        hand(w, dst, src, it->bytes, NET_DATA, MSG_CDATA | (it->tag << MSG_BITS), inst);
        return;
    }
    if (type == MSG_CDATA) { /* the receiver goes on; the sender's request is complete */
        mp_rank *rd = &w->rank[dst], *rs = &w->rank[src];
        if (rd->state != R_COLL || rd->coll != k || !rd->cdata || rs->state != R_COLL || rs->coll != k ||
            rs->cpend == 0) {
            w->bad++;
            return;
        }
        rd->cdata = 0;
        rd->cpc++;
        run_rank(w, dst);
        if (--rs->cpend == 0 && rs->cpc == rs->cn)
            run_rank(w, src);
        return;
    }
    if (k >= t->nops) {
        w->bad++;
        return;
    }
    const mt_op *o = &t->ops[k];
    switch (type) {
    case MSG_EAGER:
    case MSG_RTS: {
        /* a receive waiting takes it; else it waits behind any unexpected message of its key */
        uint32_t e = q_take_side(w, dst, src, o->tag, (uint64_t)o->comm << 1, 1);
        if (e == Q_NIL) {
            q_put(w, dst, src, o->tag, (uint64_t)o->comm << 1, type == MSG_EAGER ? Q_EAGER : Q_RTS, k);
            return;
        }
        mp_q x = w->q[e];
        q_free(w, e);
        if (type == MSG_EAGER)
            complete(w, x.item, dst);
        else
            send_cts(w, k, x.item, dst);
        return;
    }
    case MSG_CTS: /* at the sender: the data leaves */
        w->rdv++;
        w->p2p++;
        w->p2p_bytes += o->bytes;
        hand(w, dst, o->peer, o->bytes, NET_DATA, MSG_DATA, k);
        return;
    case MSG_DATA: {
        uint64_t rcv = w->match[k];
        if (rcv >= t->nops) {
            w->bad++;
            return;
        }
        complete(w, rcv, dst);
        complete(w, k, src);
        return;
    }
    default: w->bad++; return;
    }
}

/* ---- life cycle ---- */

static void mp_check(const net_params *core, const void *params, param_report *rep)
{
    (void)core;
    const mp_params *p = params;
    for (int op = 0; op < COLL_NOPS; op++) {
        coll_alg a = mp_alg(p->alg[op]);
        if (!coll_alg_valid((coll_op)op, a)) {
            char path[64];
            snprintf(path, sizeof path, "workload.%s%s", coll_op_names[op], op == COLL_BARRIER ? "-algorithm" : "");
            param_invalid(rep, path, "%s has no algorithm '%s' (auto or one of %s)", coll_op_names[op],
                          coll_choice_names[p->alg[op]], coll_alg_list((coll_op)op));
        }
    }
}

/* The trace of the params' file (mp_loaded): valid until the next get_trace
 * unless held (users + 1, as mp_init does; mp_fini lets go). */
static mp_loaded *get_trace(const mp_params *p, char *err, size_t errlen)
{
    mp_loaded *e = mp_traces;
    while (e && !(e->digest == p->file.digest && strcmp(e->path, p->file.path) == 0))
        e = e->next;
    if (!e) {
        e = tn_xcalloc(1, sizeof *e);
        if (mt_load(p->file.path, &e->t, err, errlen) != 0) {
            free(e);
            return NULL;
        }
        e->digest = p->file.digest;
        snprintf(e->path, sizeof e->path, "%s", p->file.path);
        /* drop traces nobody holds while the others pass the bound */
        uint64_t kept = e->t.nops;
        for (mp_loaded **pp = &mp_traces; *pp;) {
            mp_loaded *x = *pp;
            if (x->users == 0 && kept + x->t.nops > MP_KEEP_OPS) {
                *pp = x->next;
                mt_free(&x->t);
                free(x);
                continue;
            }
            kept += x->t.nops;
            pp = &x->next;
        }
        e->next = mp_traces;
        mp_traces = e;
    }
    return e;
}

static int mp_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    const mp_params *p = params;
    char e2[PARAM_PATH_MAX + 256];
    const mp_loaded *e = get_trace(p, e2, sizeof e2);
    if (!e)
        return tn_error(err, errlen, "mpi-trace: %s", e2);
    if (e->t.ranks > rc->nodes)
        return tn_error(err, errlen, "mpi-trace: the trace has %u ranks, the workload %u nodes", e->t.ranks,
                        rc->nodes);
    return 0;
}

static int mp_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    mp *w = state;
    const mp_params *p = env->params;
    memset(w, 0, sizeof *w);
    char e2[PARAM_PATH_MAX + 256];
    mp_loaded *e = get_trace(p, e2, sizeof e2);
    if (!e)
        return tn_error(err, errlen, "mpi-trace: %s", e2);
    const mt_trace *t = &e->t;
    if (t->ranks > env->nodes)
        return tn_error(err, errlen, "mpi-trace: the trace has %u ranks, the workload %u nodes", t->ranks, env->nodes);
    e->users++;
    w->held = e;
    w->p = p;
    w->t = t;
    w->s = env->sim;
    w->n = env->net;
    w->rank = tn_xcalloc(t->ranks ? t->ranks : 1, sizeof *w->rank);
    w->done = tn_xcalloc(t->nops ? t->nops : 1, 1);
    w->match = tn_xmalloc((t->nops ? t->nops : 1) * sizeof *w->match);
    for (uint64_t k = 0; k < t->nops; k++)
        w->match[k] = UINT64_MAX;
    /* room for the longest collective list of any rank */
    w->cmax = 1;
    coll_spec prev = {.counts = spec_none}; /* matches nothing */
    for (uint64_t i = 0; i < t->ncolls; i++) {
        coll_spec sp = spec_of(w, &t->colls[i]);
        if (spec_same(&sp, &prev))
            continue;
        prev = sp;
        for (uint32_t me = 0; me < sp.ranks; me++) {
            uint32_t c = 0;
            coll_rank(&sp, me, count_emit, &c);
            if (c > w->cmax)
                w->cmax = c;
        }
    }
    w->cl = tn_xmalloc((size_t)(t->ranks ? t->ranks : 1) * w->cmax * sizeof *w->cl);
    for (w->nb = 1024; w->nb < 4 * (uint64_t)t->ranks; w->nb *= 2)
        ;
    w->bucket = tn_xmalloc((size_t)w->nb * sizeof *w->bucket);
    w->btail = tn_xmalloc((size_t)w->nb * sizeof *w->btail);
    for (uint32_t b = 0; b < w->nb; b++)
        w->bucket[b] = w->btail[b] = Q_NIL;
    w->qfree = Q_NIL;
    net_msg_pool_init(&w->pool);
    w->left = t->ranks;
    w->start_ps = sim_now(w->s);
    for (uint32_t r = 0; r < t->ranks; r++) {
        mp_rank *rk = &w->rank[r];
        rk->pc = t->start[r];
        rk->end = t->start[r + 1];
        rk->wait_op = UINT64_MAX;
        rk->done_ps = -1;
        rk->cl0 = r * w->cmax;
        rk->lspec.counts = spec_none; /* no list yet */
        sim_schedule(w->s, 0, ev_start, w, r);
    }
    w->up = 1;
    return 0;
}

static const char *kind_name(uint8_t k)
{
    static const char *const n[] = {"compute", "send", "isend", "recv", "irecv", "wait", "collective", "nop"};
    return k < 8 ? n[k] : "?";
}

static int mp_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    (void)v;
    mp *w = state;
    const mt_trace *t = w->t;
    if (w->bad)
        return tn_error(err, errlen, "mpi-trace: %llu messages no rank expected", (unsigned long long)w->bad);
    for (uint32_t r = 0; r < t->ranks; r++) {
        const mp_rank *rk = &w->rank[r];
        if (rk->state == R_DONE)
            continue;
        const mt_op *o = rk->pc < rk->end ? &t->ops[rk->pc] : NULL;
        const mt_op *wo = rk->wait_op < t->nops ? &t->ops[rk->wait_op] : o;
        return tn_error(err, errlen,
                        "mpi-trace: rank %u did not finish: blocked at its operation %llu of %llu (%s, peer %u, "
                        "tag %u) (%u ranks not finished)",
                        r, (unsigned long long)(rk->pc - t->start[r]), (unsigned long long)(rk->end - t->start[r]),
                        wo ? kind_name(wo->kind) : "end", wo ? wo->peer : 0, wo ? wo->tag : 0, w->left);
    }
    if (w->live_q)
        return tn_error(err, errlen, "mpi-trace: %llu messages or receives never matched",
                        (unsigned long long)w->live_q);
    if (w->pool.live)
        return tn_error(err, errlen, "mpi-trace: %llu messages still in flight", (unsigned long long)w->pool.live);
    int64_t end = w->start_ps;
    double mpi_sum = 0, mpi_max = 0, share_sum = 0, share_max = 0, comp = 0, tcomp = 0;
    for (uint32_t r = 0; r < t->ranks; r++) {
        const mp_rank *rk = &w->rank[r];
        if (rk->done_ps > end)
            end = rk->done_ps;
        double life = units_ps_to_s(rk->done_ps - w->start_ps), mpi_s = life - units_ps_to_s(rk->compute_ps);
        mpi_sum += mpi_s;
        mpi_max = mpi_s > mpi_max ? mpi_s : mpi_max;
        double sh = life > 0 ? mpi_s / life : 0;
        share_sum += sh;
        share_max = sh > share_max ? sh : share_max;
        comp += units_ps_to_s(rk->compute_ps);
        tcomp += units_ps_to_s(t->compute_ps[r]);
    }
    double R = t->ranks ? t->ranks : 1;
    m[M_replay_time_s] = units_ps_to_s(end - w->start_ps);
    m[M_trace_time_s] = units_ps_to_s(t->span_ps);
    m[M_mpi_time_mean_s] = mpi_sum / R;
    m[M_mpi_time_max_s] = mpi_max;
    m[M_mpi_share_mean] = share_sum / R;
    m[M_mpi_share_max] = share_max;
    m[M_compute_time_s] = comp;
    m[M_trace_compute_time_s] = tcomp;
    m[M_ranks] = t->ranks;
    m[M_mpi_events] = (double)w->events;
    m[M_p2p_messages] = (double)w->p2p;
    m[M_p2p_bytes] = (double)w->p2p_bytes;
    m[M_eager_messages] = (double)w->eager;
    m[M_rendezvous_messages] = (double)w->rdv;
    m[M_control_messages] = (double)w->ctrl;
    m[M_collectives] = (double)t->ncolls;
    m[M_collective_messages] = (double)w->coll_msgs;
    m[M_collective_bytes] = (double)w->coll_bytes;
    span->first_ps = w->start_ps;
    span->last_ps = end;
    return 0;
}

static int mp_finished(const void *state)
{
    const mp *w = state;
    return w->up && w->left == 0 && w->pool.live == 0;
}

static void mp_fini(void *state)
{
    mp *w = state;
    if (!w->up)
        return;
    free(w->rank);
    free(w->done);
    free(w->match);
    free(w->cl);
    free(w->q);
    free(w->bucket);
    free(w->btail);
    net_msg_pool_free(&w->pool);
    w->held->users--;
    w->up = 0;
}

/* Messages: per send op one (eager) or three (RTS, CTS, data), and every
 * collective's likewise; the horizon: the trace's computation of its busiest rank
 * plus its messages' bytes at B (generous). */
static void mp_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const mp_params *p = params;
    char e2[PARAM_PATH_MAX + 256];
    mp_loaded *e = get_trace(p, e2, sizeof e2);
    if (!e)
        return;
    const mt_trace *t = &e->t;
    mp_loaded *le = e;
    if (!le->est_ok || le->est_eager != p->eager_bytes) {
        double pm = 0, pb = 0;
        for (uint64_t k = 0; k < t->nops; k++) {
            const mt_op *o = &t->ops[k];
            if (o->kind == MT_SEND || o->kind == MT_ISEND) {
                pm += o->bytes < p->eager_bytes ? 1 : 3;
                pb += (double)o->bytes;
            }
        }
        le->est_ok = 1;
        le->est_eager = p->eager_bytes;
        le->est_msgs = pm;
        le->est_bytes = pb;
    }
    double msgs = le->est_msgs, bytes = le->est_bytes;
    double cmax = 0;
    mp tmp = {.p = p};
    coll_spec prev = {.counts = spec_none}; /* matches nothing */
    uint64_t m = 0, b = 0;
    for (uint64_t i = 0; i < t->ncolls; i++) {
        coll_spec sp = spec_of(&tmp, &t->colls[i]);
        if (!spec_same(&sp, &prev)) {
            coll_count(&sp, &m, &b);
            /* each send at or above eager-limit adds an RTS and a CTS */
            rdv_count rc2 = {p->eager_bytes, 0};
            for (uint32_t me = 0; me < sp.ranks; me++)
                coll_rank(&sp, me, rdv_emit, &rc2);
            m += 2 * rc2.n;
        }
        prev = sp;
        msgs += (double)m;
        bytes += (double)b;
    }
    for (uint32_t r = 0; r < t->ranks; r++)
        cmax = (double)t->compute_ps[r] > cmax ? (double)t->compute_ps[r] : cmax;
    double B = rc->net->bandwidth_bps;
    out->messages = msgs;
    out->mem_bytes = sizeof(mp) + (double)t->nops * (sizeof(mt_op) + 1 + sizeof(uint64_t)) +
                     (double)t->ranks * sizeof(mp_rank) + msgs * 0.01 * sizeof(net_msg) + 4096.0 * sizeof(mp_q);
    out->horizon_s = cmax * 1e-12 * p->compute_scale + (B > 0 ? 8 * bytes / B : 0) +
                     msgs * (double)rc->msg_fixed_ps * 1e-12;
}

static const wl_column mp_table[] = {
    {"replay_time_s", "replay_s"},
    {"mpi_share_mean", "mpi_share"},
    {"p2p_messages", "p2p_msgs"},
    {"collectives", "colls"},
    {NULL, NULL},
};

const wl_ops wl_mpi_trace_ops = {
    .name = "mpi-trace",
    .description = "replay of an MPI program's OTF2 trace (Score-P or tasknet's tracer): MPI matching, eager "
                   "and rendezvous, collectives by algorithm",
    .state_size = sizeof(mp),
    .params = mp_rows,
    .nparams = sizeof mp_rows / sizeof mp_rows[0],
    .params_size = sizeof(mp_params),
    .check = mp_check,
    .resolve = mp_resolve,
    .estimate = mp_estimate,
    .init = mp_init,
    .deliver = mp_deliver,
    .finish = mp_finish,
    .fini = mp_fini,
    .finished = mp_finished,
    .metrics = mp_metrics_def,
    .nmetrics = MP_NMETRICS,
    .table = mp_table,
    .plot_y = "replay_time_s",
};
