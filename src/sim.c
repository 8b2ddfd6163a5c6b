#include "sim.h"

#include <signal.h>
#include <stdlib.h>

#include "event_queue.h"
#include "log.h"

/* An event's payload lives in a pooled slot; the heap holds only the small
 * (time, seq, slot) key so sifting moves 16 bytes, not the callback. */
typedef struct sim_slot {
    sim_cb cb;          /* NULL while cancelled-but-still-queued or free */
    void *ctx;          /* callback context */
    uint64_t arg;       /* callback argument */
    uint32_t gen;       /* bumped when the slot is freed: makes old ids stale */
    uint32_t next_free; /* free-list link (SLOT_NONE = end) */
} sim_slot;

enum { LANE_FIFO, LANE_PF, LANE_CAL };
#define LANE_DELAY_CAL (-2) /* lane_delay_ps of a calendar lane (-1: a FIFO lane at absolute times) */

#define SLOT_NONE UINT32_MAX
#define SLOT_INITIAL_CAP 64u

struct sim {
    struct sim_clock clock; /* first, so that sim_now (sim.h) reads it through the sim pointer */
    evq q;              /* pending (and cancelled, not yet popped) events */
    sim_slot *slots;    /* slot pool */
    uint32_t nslots;    /* slots ever handed out (pool high-water mark) */
    uint32_t cap;       /* allocated slots */
    uint32_t free_head; /* first free slot, SLOT_NONE if none */
    volatile sig_atomic_t stop; /* sim_stop called during the current sim_run (a signal handler may) */
    uint64_t executed;  /* events run since creation (a batch as its events: sim_count_events) */
    uint64_t pending;   /* scheduled, not fired, not cancelled */
    int running;        /* inside sim_run */
    int64_t lane_delay_ps[EVQ_MAX_LANES]; /* each lane's delay (-1: absolute times, sim_lane_abs), callback and
                                             context (sim_lane) */
    sim_cb lane_cb[EVQ_MAX_LANES];
    void *lane_ctx[EVQ_MAX_LANES];
    sim_lane_pf lane_pf[EVQ_MAX_LANES]; /* lookahead prefetcher, NULL if none (sim_lane_prefetch) */
    uint8_t lane_kind[EVQ_MAX_LANES];   /* LANE_FIFO, LANE_PF (a FIFO lane with a prefetcher) or LANE_CAL */
    uint32_t lane_ahead[EVQ_MAX_LANES]; /* its distance behind the head, per stage */
    uint32_t lane_stages[EVQ_MAX_LANES]; /* its stages */
};

/* id = generation in the high half, slot + 1 in the low half (so 0 is never
 * an id). A stale id could only match again after 2^32 reuses of its slot. */
static inline sim_event_id make_id(uint32_t slot, uint32_t gen)
{
    return ((uint64_t)gen << 32) | ((uint64_t)slot + 1);
}

sim *sim_create(void)
{
    sim *s = tn_xcalloc(1, sizeof *s);
    evq_init(&s->q);
    s->free_head = SLOT_NONE;
    return s;
}

void sim_destroy(sim *s)
{
    if (!s)
        return;
    evq_free(&s->q);
    free(s->slots);
    free(s);
}

uint64_t sim_events_executed(const sim *s) { return s->executed; }
uint64_t sim_pending(const sim *s) { return s->pending; }
void sim_count_events(sim *s, uint64_t k) { s->executed += k; }

static void slot_pool_grow(sim *s)
{
    TN_ASSERT(s->cap < SLOT_NONE / 2, "more than 2^31 pending events (%u slots)", s->cap);
    uint32_t cap = s->cap ? 2 * s->cap : SLOT_INITIAL_CAP;
    s->slots = tn_xrealloc(s->slots, (size_t)cap * sizeof *s->slots);
    s->cap = cap;
}

static inline uint32_t slot_alloc(sim *s)
{
    uint32_t i = s->free_head;
    if (i != SLOT_NONE) {
        s->free_head = s->slots[i].next_free;
        return i;
    }
    if (s->nslots == s->cap)
        slot_pool_grow(s);
    i = s->nslots++;
    s->slots[i].gen = 0;
    return i;
}

static inline void slot_release(sim *s, uint32_t i)
{
    sim_slot *e = &s->slots[i];
    e->cb = NULL;
    e->gen++;
    e->next_free = s->free_head;
    s->free_head = i;
}

/* Shared by both entry points and inlined into each: scheduling is on the
 * hot path of every model. Forced, with evq_push inside it: GCC 12 -O2
 * made it a function of its own behind both entry points (two calls and
 * nine register saves per event, 3% of fig9's instructions), and once
 * inlined left evq_push out of line instead. */
static inline __attribute__((always_inline)) sim_event_id schedule_abs(sim *s, int64_t t_ps, sim_cb cb, void *ctx, uint64_t arg)
{
    TN_ASSERT(t_ps >= s->clock.now_ps, "event scheduled in the past: t = %lld ps < now = %lld ps",
              (long long)t_ps, (long long)s->clock.now_ps);
    TN_ASSERT(cb != NULL, "event scheduled without a callback at t = %lld ps", (long long)t_ps);
    uint32_t i = slot_alloc(s);
    sim_slot *e = &s->slots[i];
    e->cb = cb;
    e->ctx = ctx;
    e->arg = arg;
    evq_push(&s->q, t_ps, i);
    s->pending++;
    return make_id(i, e->gen);
}

sim_event_id sim_schedule_at(sim *s, int64_t t_ps, sim_cb cb, void *ctx, uint64_t arg)
{
    return schedule_abs(s, t_ps, cb, ctx, arg);
}

sim_event_id sim_schedule(sim *s, int64_t delay_ps, sim_cb cb, void *ctx, uint64_t arg)
{
    TN_ASSERT(delay_ps >= 0, "event scheduled with a negative delay (%lld ps) at now = %lld ps",
              (long long)delay_ps, (long long)s->clock.now_ps);
    TN_ASSERT(delay_ps <= SIM_TIME_MAX - s->clock.now_ps,
              "event time overflows: now = %lld ps + delay = %lld ps", (long long)s->clock.now_ps,
              (long long)delay_ps);
    return schedule_abs(s, s->clock.now_ps + delay_ps, cb, ctx, arg);
}

/* sim_lane's, with delay -1 for a lane at absolute times */
static int lane_of(sim *s, int64_t delay_ps, sim_cb cb, void *ctx)
{
    for (unsigned i = 0; i < s->q.nlanes; i++)
        if (s->lane_delay_ps[i] == delay_ps && s->lane_cb[i] == cb && s->lane_ctx[i] == ctx)
            return (int)i;
    int i = evq_lane_add(&s->q);
    if (i >= 0) {
        s->lane_delay_ps[i] = delay_ps;
        s->lane_cb[i] = cb;
        s->lane_ctx[i] = ctx;
    }
    return i;
}

int sim_lane(sim *s, int64_t delay_ps, sim_cb cb, void *ctx)
{
    TN_ASSERT(!s->running, "sim_lane during sim_run");
    TN_ASSERT(delay_ps >= 0 && cb != NULL, "lane with a negative delay (%lld ps) or no callback",
              (long long)delay_ps);
    return lane_of(s, delay_ps, cb, ctx);
}

int sim_lane_abs(sim *s, sim_cb cb, void *ctx)
{
    TN_ASSERT(!s->running, "sim_lane_abs during sim_run");
    TN_ASSERT(cb != NULL, "lane without a callback");
    return lane_of(s, -1, cb, ctx);
}

int sim_lane_cal(sim *s, sim_cb cb, void *ctx, int64_t width_ps, int64_t span_ps)
{
    TN_ASSERT(cb != NULL && width_ps > 0 && span_ps >= 0, "calendar lane without a callback, or of buckets %lld ps "
              "wide reaching %lld ps", (long long)width_ps, (long long)span_ps);
    if (s->running)
        return -1;
    for (unsigned i = 0; i < s->q.nlanes; i++)
        if (s->lane_delay_ps[i] == LANE_DELAY_CAL && s->lane_cb[i] == cb && s->lane_ctx[i] == ctx)
            return (int)i;
    unsigned shift = 0;
    while (shift < 40 && (INT64_C(2) << shift) <= width_ps)
        shift++;
    int i = evq_cal_add(&s->q, shift, (uint64_t)span_ps);
    if (i >= 0) {
        s->lane_delay_ps[i] = LANE_DELAY_CAL;
        s->lane_cb[i] = cb;
        s->lane_ctx[i] = ctx;
        s->lane_kind[i] = LANE_CAL;
    }
    return i;
}

void sim_schedule_cal_at(sim *s, int lane, int64_t t_ps, uint32_t arg)
{
    TN_ASSERT((unsigned)lane < s->q.nlanes && s->lane_kind[lane] == LANE_CAL, "no calendar lane %d", lane);
    TN_ASSERT(t_ps >= s->clock.now_ps, "event scheduled in the past: t = %lld ps < now = %lld ps", (long long)t_ps,
              (long long)s->clock.now_ps);
    if (__builtin_expect(!evq_cal_push(&s->q, (unsigned)lane, t_ps, s->clock.now_ps, arg), 0)) {
        schedule_abs(s, t_ps, s->lane_cb[lane], s->lane_ctx[lane], arg); /* not in the ring: the heap */
        return;
    }
    s->pending++;
}

void sim_schedule_lane_at(sim *s, int lane, int64_t t_ps, uint32_t arg)
{
    TN_ASSERT((unsigned)lane < s->q.nlanes && s->lane_delay_ps[lane] == -1, "no lane %d at absolute times", lane);
    TN_ASSERT(t_ps >= s->clock.now_ps, "event scheduled in the past: t = %lld ps < now = %lld ps", (long long)t_ps,
              (long long)s->clock.now_ps);
    evq_lane_push(&s->q, (unsigned)lane, t_ps, arg); /* (asserts the lane's order) */
    s->pending++;
}

void sim_schedule_lane(sim *s, int lane, uint32_t arg)
{
    /* (not for a lane at absolute times, sim_lane_abs's: not checked here, on the output-queued hot path) */
    TN_ASSERT((unsigned)lane < s->q.nlanes, "no lane %d", lane);
    int64_t d = s->lane_delay_ps[lane];
    TN_ASSERT(d <= SIM_TIME_MAX - s->clock.now_ps, "event time overflows: now = %lld ps + delay = %lld ps",
              (long long)s->clock.now_ps, (long long)d);
    evq_lane_push(&s->q, (unsigned)lane, s->clock.now_ps + d, arg);
    s->pending++;
}

void sim_lane_prefetch(sim *s, int lane, sim_lane_pf pf, unsigned ahead, unsigned stages)
{
    TN_ASSERT(!s->running, "sim_lane_prefetch during sim_run");
    TN_ASSERT((unsigned)lane < s->q.nlanes && s->lane_kind[lane] != LANE_CAL && ahead >= 1 && stages >= 1 &&
              stages <= 4, "no FIFO lane %d, or lookahead %u in %u stages", lane, ahead, stages);
    s->lane_kind[lane] = LANE_PF;
    s->lane_pf[lane] = pf;
    s->lane_ahead[lane] = ahead;
    s->lane_stages[lane] = stages;
}

/* Lane i's head is about to fire: its prefetcher's stages, farthest first. */
static inline void lane_lookahead(sim *s, unsigned i)
{
    const evq_lane *ln = &s->q.lane[i];
    uint32_t held = ln->tail - ln->head, ahead = s->lane_ahead[i], stages = s->lane_stages[i];
    /* the ring itself: a busy lane's keys were written long ago (at 65,536
     * ports a hop's lane holds 10^5 keys) and fell out of the caches */
    __builtin_prefetch(&ln->buf[(ln->head + stages * ahead + 16) & (ln->cap - 1)]);
    for (uint32_t k = 0; k < stages; k++) {
        uint32_t d = (stages - k) * ahead;
        if (held > d)
            s->lane_pf[i](s->lane_ctx[i], evq_key_slot(ln->buf[(ln->head + d) & (ln->cap - 1)]), k);
    }
}

bool sim_cancel(sim *s, sim_event_id id)
{
    uint64_t low = id & 0xffffffffu;
    if (low == 0 || low > s->nslots)
        return false;
    sim_slot *e = &s->slots[low - 1];
    /* A fired slot has a newer generation; a cancelled one has no callback
     * until it is popped and freed. */
    if (e->gen != (uint32_t)(id >> 32) || e->cb == NULL)
        return false;
    e->cb = NULL;
    s->pending--;
    return true;
}

/* sim_run's loop; `lanes` (a constant in each copy) adds the lane heads
 * to the minimum, so a run without lanes pays nothing for them. */
static inline __attribute__((always_inline)) uint64_t run_loop(sim *s, int64_t until_ps, const int lanes)
{
    const uint64_t executed0 = s->executed; /* (sim_run's return: with sim_count_events' batches) */
    const uint64_t until_hi = (uint64_t)until_ps ^ (UINT64_C(1) << 63); /* flipped, as in the keys */
    (void)until_hi;
    /* a stop asked before the call (a signal handler racing with it) holds:
     * the flag is cleared on the way out, not on the way in */
    while (!s->stop) {
        evq_key k;
        if (lanes) {
            evq_key h = s->q.heap[0], l = s->q.lmin_key; /* heap[0]: padding if the heap is empty */
            int lane = l < h;
            k = lane ? l : h;
            /* one comparison while the time is before until_ps's (the
             * empty queue's EVQ_KEY_MAX has the last time) */
            if (__builtin_expect((uint64_t)(k >> 64) >= until_hi, 0) &&
                (k == EVQ_KEY_MAX || evq_key_time(k) > until_ps))
                break;
            if (lane) {
                /* from a lane: no slot, the argument is in the key */
                unsigned i = s->q.lmin;
                if (__builtin_expect(s->lane_kind[i] != LANE_FIFO, 0)) {
                    if (s->lane_kind[i] == LANE_CAL)
                        evq_cal_pop(&s->q);
                    else {
                        lane_lookahead(s, i);
                        evq_lane_pop(&s->q);
                    }
                } else
                    evq_lane_pop(&s->q);
                s->clock.now_ps = evq_key_time(k);
                s->pending--;
                s->executed++;
                s->lane_cb[i](s, s->lane_ctx[i], evq_key_slot(k));
                continue;
            }
            evq_take_top(&s->q);
        } else {
            if (evq_empty(&s->q) || evq_key_time(evq_top(&s->q)) > until_ps)
                break;
            /* Deferred pop (event_queue.h): the key stays at the root while
             * the callback runs, so the callback's first schedule replaces it. */
            k = evq_take_top(&s->q);
        }
        uint32_t slot = evq_key_slot(k);
        sim_slot *e = &s->slots[slot];
        sim_cb cb = e->cb;
        void *ctx = e->ctx;
        uint64_t arg = e->arg;
        /* Free before calling so the callback may reuse the slot and its own
         * id already reads as fired. */
        slot_release(s, slot);
        /* The next event's slot is likely the next one read, and in a large
         * pool a cache miss: start fetching it while this callback runs.
         * After a deferred pop it is one of the taken root's children: both
         * are fetched rather than their keys compared (the comparison was 1.3%
         * of fig9's instructions). */
        if (s->q.hole) {
            if (s->q.len > 2) {
                __builtin_prefetch(&s->slots[evq_key_slot(s->q.heap[1])]);
                __builtin_prefetch(&s->slots[evq_key_slot(s->q.heap[2])]);
            }
        } else if (s->q.len) {
            __builtin_prefetch(&s->slots[evq_key_slot(s->q.heap[0])]);
        }
        if (!cb) {
            evq_settle(&s->q);
            continue; /* cancelled: time does not advance for it */
        }
        s->clock.now_ps = evq_key_time(k);
        s->pending--;
        s->executed++;
        cb(s, ctx, arg);
        evq_settle(&s->q);
    }
    s->stop = 0;
    return s->executed - executed0;
}

uint64_t sim_run(sim *s, int64_t until_ps)
{
    s->running = 1;
    uint64_t ran = s->q.nlanes ? run_loop(s, until_ps, 1) : run_loop(s, until_ps, 0);
    s->running = 0;
    return ran;
}

void sim_stop(sim *s) { s->stop = 1; }
