/* Which run a process runs next (sweep_next). Results never depend on it:
 * a run is reproducible from its point and replica, and the folder's files
 * are written by run id; only the wall time of the sweep does.
 *
 * One process: in id order (point by point, replica by replica), so it
 * keeps one resolved point and the job lists of a point's replicas.
 *
 * Several (-j workers, MPI ranks): the longest run first, so that the runs
 * left when the processes run out of work are short ones and none idles
 * long while the last finishes (fig9's largest N and smallest B come last
 * in id order, and took the end of a -j 2 sweep on one core). A point's
 * cost is its static estimate, the messages its workload expects to send
 * (run_estimate_point), until one of its runs has finished: from then on
 * its measured wall time, against which the estimates of the points not
 * yet measured are scaled by measured time per estimated message so far.
 * All replicas of a point cost the same; among them a worker gets one of
 * a replica it ran recently, whose jobs its process likely keeps (the
 * task-tree workload's job lists), else the lowest pending replica.
 *
 * The points with runs pending sit in two max-heaps, the unmeasured by
 * estimate and the measured by time (so a new measurement moves one point
 * and rescales no key): a hand-out is O(log points). */
#include "sweep_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define ORDER_NONE SIZE_MAX

static double order_key(const sweep *sw, int h, size_t p)
{
    return h ? sw->ord.meas_s[p] : sw->ord.est[p];
}

/* a before b in heap h: the larger key, then the lower point */
static int order_before(const sweep *sw, int h, size_t a, size_t b)
{
    double ka = order_key(sw, h, a), kb = order_key(sw, h, b);
    return ka > kb || (ka == kb && a < b);
}

static void heap_place(sweep_order *o, int h, size_t i, size_t p)
{
    o->heap[h][i] = p;
    o->pos[p] = i;
}

static void heap_up(sweep *sw, int h, size_t i)
{
    sweep_order *o = &sw->ord;
    size_t p = o->heap[h][i];
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!order_before(sw, h, p, o->heap[h][up]))
            break;
        heap_place(o, h, i, o->heap[h][up]);
        i = up;
    }
    heap_place(o, h, i, p);
}

static void heap_down(sweep *sw, int h, size_t i)
{
    sweep_order *o = &sw->ord;
    size_t n = o->len[h], p = o->heap[h][i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && order_before(sw, h, o->heap[h][c + 1], o->heap[h][c]))
            c++;
        if (!order_before(sw, h, o->heap[h][c], p))
            break;
        heap_place(o, h, i, o->heap[h][c]);
        i = c;
    }
    heap_place(o, h, i, p);
}

static int measured(const sweep *sw, size_t p) { return !isnan(sw->ord.meas_s[p]); }

static void heap_insert(sweep *sw, size_t p)
{
    sweep_order *o = &sw->ord;
    int h = measured(sw, p);
    o->heap[h][o->len[h]] = p;
    o->pos[p] = o->len[h]++;
    heap_up(sw, h, o->pos[p]);
}

static void heap_remove(sweep *sw, size_t p)
{
    sweep_order *o = &sw->ord;
    int h = measured(sw, p);
    size_t i = o->pos[p], last = o->heap[h][--o->len[h]];
    o->pos[p] = ORDER_NONE;
    if (last == p)
        return;
    heap_place(o, h, i, last);
    heap_up(sw, h, i);
    heap_down(sw, h, o->pos[last]);
}

void sweep_order_init(sweep *sw, int by_cost, unsigned workers)
{
    sweep_order *o = &sw->ord;
    o->by_cost = by_cost;
    if (!by_cost)
        return;
    size_t np = sw->npoints ? sw->npoints : 1;
    if (!o->est) {
        o->est = tn_xcalloc(np, sizeof *o->est);
        for (size_t p = 0; p < sw->npoints; p++)
            o->est[p] = 1;
    }
    o->meas_s = tn_xmalloc(np * sizeof *o->meas_s);
    o->npend = tn_xcalloc(np, sizeof *o->npend);
    o->rep_next = tn_xcalloc(np, sizeof *o->rep_next);
    o->pos = tn_xmalloc(np * sizeof *o->pos);
    o->heap[0] = tn_xmalloc(np * sizeof *o->heap[0]);
    o->heap[1] = tn_xmalloc(np * sizeof *o->heap[1]);
    o->len[0] = o->len[1] = 0;
    o->workers = workers ? workers : 1;
    o->held = tn_xmalloc((size_t)o->workers * SWEEP_HELD * sizeof *o->held);
    for (size_t i = 0; i < (size_t)o->workers * SWEEP_HELD; i++)
        o->held[i] = UINT64_MAX;
    for (size_t p = 0; p < sw->npoints; p++) {
        o->meas_s[p] = NAN;
        o->pos[p] = ORDER_NONE;
        for (uint64_t r = 0; r < sw->c->replicas; r++)
            o->npend[p] += sw->todo[run_id(sw->c, p, r)] == RUN_PENDING;
        if (o->npend[p])
            heap_insert(sw, p);
    }
}

void sweep_order_free(sweep *sw)
{
    sweep_order *o = &sw->ord;
    free(o->est);
    free(o->meas_s);
    free(o->npend);
    free(o->rep_next);
    free(o->pos);
    free(o->heap[0]);
    free(o->heap[1]);
    free(o->held);
    memset(o, 0, sizeof *o);
}

void sweep_order_estimate(sweep *sw, size_t point, double cost)
{
    sweep_order *o = &sw->ord;
    if (!o->est) {
        o->est = tn_xcalloc(sw->npoints ? sw->npoints : 1, sizeof *o->est);
        for (size_t p = 0; p < sw->npoints; p++)
            o->est[p] = 1;
    }
    o->est[point] = cost > 0 && isfinite(cost) ? cost : 1;
}

/* The point whose runs cost most now: the larger of the heaps' tops, the
 * unmeasured one's estimate scaled to seconds; ORDER_NONE when none. */
static size_t costliest(const sweep *sw)
{
    const sweep_order *o = &sw->ord;
    if (!o->len[0] && !o->len[1])
        return ORDER_NONE;
    if (!o->len[1])
        return o->heap[0][0];
    if (!o->len[0])
        return o->heap[1][0];
    size_t u = o->heap[0][0], m = o->heap[1][0];
    double per = o->sum_est > 0 ? o->sum_meas / o->sum_est : 0;
    return o->est[u] * per >= o->meas_s[m] ? u : m;
}

static void held_note(sweep_order *o, unsigned worker, uint64_t replica)
{
    uint64_t *h = o->held + (size_t)worker * SWEEP_HELD;
    size_t i = 0;
    while (i < SWEEP_HELD - 1 && h[i] != replica)
        i++;
    memmove(h + 1, h, i * sizeof *h);
    h[0] = replica;
}

static void take(sweep *sw, uint64_t id)
{
    sw->todo[id] = RUN_INFLIGHT;
    if (!sw->ord.by_cost)
        return;
    size_t p = run_point(sw->c, id);
    if (--sw->ord.npend[p] == 0)
        heap_remove(sw, p);
}

int sweep_next(sweep *sw, unsigned worker, uint64_t *id)
{
    if (sweep_interrupted() || sw->giving_up)
        return -1;
    sweep_order *o = &sw->ord;
    if (!o->by_cost) {
        while (sw->next < sw->nruns && sw->todo[sw->next] != RUN_PENDING)
            sw->next++;
        if (sw->next >= sw->nruns)
            return -1;
        *id = sw->next++;
        take(sw, *id);
        return 0;
    }
    size_t p = costliest(sw);
    if (p == ORDER_NONE)
        return -1;
    uint64_t R = sw->c->replicas, base = (uint64_t)p * R, pick = UINT64_MAX;
    if (worker >= o->workers)
        worker = o->workers - 1;
    const uint64_t *h = o->held + (size_t)worker * SWEEP_HELD;
    for (size_t i = 0; i < SWEEP_HELD && h[i] != UINT64_MAX && pick == UINT64_MAX; i++)
        if (h[i] < R && sw->todo[base + h[i]] == RUN_PENDING)
            pick = h[i];
    if (pick == UINT64_MAX) {
        while (o->rep_next[p] < R && sw->todo[base + o->rep_next[p]] != RUN_PENDING)
            o->rep_next[p]++;
        TN_ASSERT(o->rep_next[p] < R, "point %zu has %llu runs pending and none found", p,
                  (unsigned long long)o->npend[p]);
        pick = o->rep_next[p];
    }
    held_note(o, worker, pick);
    *id = base + pick;
    take(sw, *id);
    return 0;
}

void sweep_requeue(sweep *sw, uint64_t id)
{
    sw->todo[id] = RUN_PENDING;
    sweep_order *o = &sw->ord;
    if (!o->by_cost) {
        if (id < sw->next)
            sw->next = id;
        return;
    }
    size_t p = run_point(sw->c, id);
    uint64_t r = run_replica(sw->c, id);
    if (r < o->rep_next[p])
        o->rep_next[p] = r;
    if (o->npend[p]++ == 0)
        heap_insert(sw, p);
}

void sweep_worker_lost(sweep *sw, unsigned worker)
{
    sweep_order *o = &sw->ord;
    if (!o->by_cost || worker >= o->workers)
        return;
    for (size_t i = 0; i < SWEEP_HELD; i++)
        o->held[(size_t)worker * SWEEP_HELD + i] = UINT64_MAX;
}

void sweep_order_measured(sweep *sw, uint64_t id, double wall_s)
{
    sweep_order *o = &sw->ord;
    size_t p = run_point(sw->c, id);
    if (!o->by_cost || measured(sw, p) || !(wall_s >= 0) || !isfinite(wall_s))
        return;
    int queued = o->pos[p] != ORDER_NONE;
    if (queued)
        heap_remove(sw, p);
    o->meas_s[p] = wall_s;
    o->sum_est += o->est[p];
    o->sum_meas += wall_s;
    if (queued)
        heap_insert(sw, p);
}
