/* Event engine: time order, FIFO ties, cancellation, run-until, stop,
 * scheduling from callbacks, and the invariants that abort. */
#include <check.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "event_queue.h"
#include "harness.h"
#include "sim.h"

/* Records every firing: its time and argument. */
typedef struct trace {
    size_t n, cap;
    int64_t *t_ps;
    uint64_t *arg;
} trace;

static void trace_init(trace *tr, size_t cap)
{
    tr->n = 0;
    tr->cap = cap;
    tr->t_ps = malloc(cap * sizeof *tr->t_ps);
    tr->arg = malloc(cap * sizeof *tr->arg);
}

static void trace_free(trace *tr)
{
    free(tr->t_ps);
    free(tr->arg);
}

static void record(sim *s, void *ctx, uint64_t arg)
{
    trace *tr = ctx;
    ck_assert(tr->n < tr->cap);
    tr->t_ps[tr->n] = sim_now(s);
    tr->arg[tr->n] = arg;
    tr->n++;
}

START_TEST(test_random_order)
{
    enum { N = 100000 };
    sim *s = sim_create();
    trace tr;
    trace_init(&tr, N);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 1);
    /* arg = the scheduled time, so each firing can check now() against it;
     * only 10^4 distinct times, so many ties are mixed in */
    for (int i = 0; i < N; i++) {
        int64_t t = (int64_t)gsl_rng_uniform_int(r, 10000) * 1000;
        sim_schedule_at(s, t, record, &tr, (uint64_t)t);
    }
    ck_assert_uint_eq(sim_pending(s), N);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), N);
    ck_assert_uint_eq(tr.n, N);
    for (size_t i = 0; i < tr.n; i++) {
        ck_assert_int_eq(tr.t_ps[i], (int64_t)tr.arg[i]); /* fired at its own time */
        if (i)
            ck_assert_int_le(tr.t_ps[i - 1], tr.t_ps[i]); /* never backwards */
    }
    ck_assert_uint_eq(sim_pending(s), 0);
    ck_assert_uint_eq(sim_events_executed(s), N);
    ck_assert_int_eq(sim_now(s), tr.t_ps[N - 1]);
    gsl_rng_free(r);
    trace_free(&tr);
    sim_destroy(s);
}
END_TEST

START_TEST(test_fifo_ties)
{
    sim *s = sim_create();
    trace tr;
    trace_init(&tr, 3000);
    /* 1000 events at t=5 interleaved with others at 3 and 9: the t=5 ones
     * must come out in scheduling order 0..999 */
    for (uint64_t i = 0; i < 1000; i++) {
        sim_schedule_at(s, 9, record, &tr, 20000 + i);
        sim_schedule_at(s, 5, record, &tr, i);
        sim_schedule_at(s, 3, record, &tr, 10000 + i);
    }
    sim_run(s, SIM_TIME_MAX);
    ck_assert_uint_eq(tr.n, 3000);
    for (uint64_t i = 0; i < 1000; i++) {
        ck_assert_uint_eq(tr.arg[i], 10000 + i);
        ck_assert_uint_eq(tr.arg[1000 + i], i);
        ck_assert_uint_eq(tr.arg[2000 + i], 20000 + i);
    }
    trace_free(&tr);
    sim_destroy(s);
}
END_TEST

START_TEST(test_cancel)
{
    sim *s = sim_create();
    trace tr;
    trace_init(&tr, 16);
    sim_event_id a = sim_schedule(s, 10, record, &tr, 1);
    sim_event_id b = sim_schedule(s, 20, record, &tr, 2);
    sim_event_id c = sim_schedule(s, 30, record, &tr, 3);
    ck_assert(a != 0 && b != 0 && c != 0 && a != b && b != c);
    ck_assert_uint_eq(sim_pending(s), 3);
    ck_assert(sim_cancel(s, b));
    ck_assert(!sim_cancel(s, b)); /* twice */
    ck_assert_uint_eq(sim_pending(s), 2);
    ck_assert(!sim_cancel(s, 0));                  /* never an id */
    ck_assert(!sim_cancel(s, 0x00000007ffffffffull)); /* slot never allocated */
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 2);
    ck_assert_uint_eq(tr.n, 2);
    ck_assert_uint_eq(tr.arg[0], 1);
    ck_assert_uint_eq(tr.arg[1], 3);
    ck_assert(!sim_cancel(s, a)); /* already fired */
    ck_assert_uint_eq(sim_pending(s), 0);

    /* The freed slots are reused (LIFO free list), but ids from their old
     * lives are stale: cancelling one must not touch the new event. */
    sim_event_id d = sim_schedule(s, 5, record, &tr, 4);
    sim_event_id e = sim_schedule(s, 5, record, &tr, 5);
    sim_event_id f = sim_schedule(s, 5, record, &tr, 6);
    ck_assert(d != a && d != b && d != c && e != a && e != b && e != c && f != a && f != b && f != c);
    /* same slots (low 32 bits), new generations */
    uint64_t old_slots = (1ull << (a & 0xffffffff)) | (1ull << (b & 0xffffffff)) | (1ull << (c & 0xffffffff));
    uint64_t new_slots = (1ull << (d & 0xffffffff)) | (1ull << (e & 0xffffffff)) | (1ull << (f & 0xffffffff));
    ck_assert_uint_eq(old_slots, new_slots);
    ck_assert(!sim_cancel(s, a));
    ck_assert(!sim_cancel(s, b));
    ck_assert(!sim_cancel(s, c));
    ck_assert_uint_eq(sim_pending(s), 3);
    ck_assert(sim_cancel(s, e));
    ck_assert_uint_eq(sim_pending(s), 2);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 2);
    ck_assert_uint_eq(tr.n, 4);
    ck_assert_uint_eq(tr.arg[2], 4);
    ck_assert_uint_eq(tr.arg[3], 6);
    ck_assert_uint_eq(sim_events_executed(s), 4);
    trace_free(&tr);
    sim_destroy(s);
}
END_TEST

START_TEST(test_cancelled_does_not_advance_time)
{
    sim *s = sim_create();
    trace tr;
    trace_init(&tr, 4);
    sim_schedule_at(s, 50, record, &tr, 1);
    sim_event_id late = sim_schedule_at(s, 100, record, &tr, 2);
    ck_assert(sim_cancel(s, late));
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 1);
    ck_assert_int_eq(sim_now(s), 50); /* not 100: the cancelled one is skipped */
    trace_free(&tr);
    sim_destroy(s);
}
END_TEST

START_TEST(test_run_until)
{
    sim *s = sim_create();
    trace tr;
    trace_init(&tr, 4);
    sim_schedule_at(s, 100, record, &tr, 1);
    sim_schedule_at(s, 200, record, &tr, 2);
    ck_assert_uint_eq(sim_run(s, 99), 0);
    ck_assert_int_eq(sim_now(s), 0);
    ck_assert_uint_eq(sim_run(s, 100), 1); /* exactly at until fires */
    ck_assert_int_eq(sim_now(s), 100);
    ck_assert_uint_eq(sim_pending(s), 1);
    ck_assert_uint_eq(sim_run(s, 150), 0);
    ck_assert_int_eq(sim_now(s), 100); /* never advanced past the last event */
    ck_assert_uint_eq(sim_run(s, 200), 1);
    ck_assert_int_eq(sim_now(s), 200);
    ck_assert_uint_eq(sim_pending(s), 0);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 0); /* empty queue */
    ck_assert_uint_eq(tr.n, 2);
    trace_free(&tr);
    sim_destroy(s);
}
END_TEST

static void stopper(sim *s, void *ctx, uint64_t arg)
{
    record(s, ctx, arg);
    sim_stop(s);
}

START_TEST(test_stop)
{
    sim *s = sim_create();
    trace tr;
    trace_init(&tr, 8);
    sim_schedule_at(s, 10, stopper, &tr, 1);
    sim_schedule_at(s, 10, record, &tr, 2);
    sim_schedule_at(s, 20, record, &tr, 3);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 1); /* returns right after the stopper */
    ck_assert_int_eq(sim_now(s), 10);
    ck_assert_uint_eq(sim_pending(s), 2);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 2); /* the next call carries on */
    ck_assert_uint_eq(tr.arg[1], 2);
    ck_assert_uint_eq(tr.arg[2], 3);
    ck_assert_int_eq(sim_now(s), 20);
    /* a stop asked between calls (as a signal handler may) is not lost: the
     * next call returns at once, and the one after runs */
    sim_schedule_at(s, 30, record, &tr, 4);
    sim_stop(s);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 0);
    ck_assert_uint_eq(sim_pending(s), 1);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 1);
    ck_assert_uint_eq(tr.arg[3], 4);
    trace_free(&tr);
    sim_destroy(s);
}
END_TEST

/* A batch: a callback that did the work of 1 + arg events counts arg more
 * (sim_count_events) in sim_run's return and sim_events_executed, also
 * across a stop; it is one event to sim_pending. */
static void batch_of(sim *s, void *ctx, uint64_t arg)
{
    record(s, ctx, arg);
    sim_count_events(s, arg);
}

START_TEST(test_count_events)
{
    sim *s = sim_create();
    trace tr;
    trace_init(&tr, 8);
    sim_schedule_at(s, 10, batch_of, &tr, 4); /* 5 events */
    sim_schedule_at(s, 10, stopper, &tr, 1);  /* 1 */
    sim_schedule_at(s, 20, batch_of, &tr, 2); /* 3 */
    sim_schedule_at(s, 30, record, &tr, 3);   /* 1 */
    ck_assert_uint_eq(sim_pending(s), 4);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 5 + 1);
    ck_assert_uint_eq(sim_pending(s), 2);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 3 + 1);
    ck_assert_uint_eq(sim_events_executed(s), 10);
    ck_assert_uint_eq(sim_pending(s), 0);
    ck_assert_uint_eq(tr.n, 4);
    trace_free(&tr);
    sim_destroy(s);
}
END_TEST

/* A chain: each link checks now, schedules the next link 7 ps later and a
 * zero-delay follower, which must run after everything already queued at
 * the same time (FIFO), then cancels a decoy scheduled for the same time. */
typedef struct chain {
    trace tr;
    int64_t expect_ps;
    int links;
    sim_event_id decoy;
} chain;

static void chain_follower(sim *s, void *ctx, uint64_t arg)
{
    chain *c = ctx;
    record(s, &c->tr, arg);
}

static void chain_link(sim *s, void *ctx, uint64_t arg)
{
    chain *c = ctx;
    ck_assert_int_eq(sim_now(s), c->expect_ps);
    record(s, &c->tr, arg);
    if (c->decoy) {
        ck_assert(sim_cancel(s, c->decoy));
        c->decoy = 0;
    }
    if (--c->links == 0)
        return;
    sim_schedule(s, 0, chain_follower, c, 1000 + arg);
    c->expect_ps += 7;
    sim_schedule(s, 7, chain_link, c, arg + 1);
    c->decoy = sim_schedule(s, 7, chain_follower, c, 9999);
}

START_TEST(test_schedule_from_callback)
{
    sim *s = sim_create();
    chain c = {.expect_ps = 3, .links = 5};
    trace_init(&c.tr, 32);
    sim_schedule_at(s, 3, chain_link, &c, 0);
    /* already queued at t=3 before the first link runs: fires before the
     * link's zero-delay follower */
    sim_schedule_at(s, 3, chain_follower, &c, 500);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 5 + 4 + 1);
    /* t=3: link0, 500, follower 1000; t=10: link1, 1001; ... t=31: link4 */
    const uint64_t want[] = {0, 500, 1000, 1, 1001, 2, 1002, 3, 1003, 4};
    ck_assert_uint_eq(c.tr.n, 10);
    for (size_t i = 0; i < 10; i++)
        ck_assert_uint_eq(c.tr.arg[i], want[i]);
    ck_assert_int_eq(sim_now(s), 3 + 4 * 7);
    ck_assert_uint_eq(sim_pending(s), 0); /* every decoy was cancelled */
    trace_free(&c.tr);
    sim_destroy(s);
}
END_TEST

static void nop(sim *s, void *ctx, uint64_t arg) {}

START_TEST(test_now_and_schedule_relative)
{
    sim *s = sim_create();
    ck_assert_int_eq(sim_now(s), 0);
    sim_schedule(s, 1000, nop, NULL, 0);
    sim_run(s, SIM_TIME_MAX);
    ck_assert_int_eq(sim_now(s), 1000);
    /* relative to the new now */
    sim_schedule(s, 250, nop, NULL, 0);
    sim_schedule_at(s, 1000, nop, NULL, 0); /* t = now is allowed */
    ck_assert_uint_eq(sim_run(s, 1000), 1);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 1);
    ck_assert_int_eq(sim_now(s), 1250);
    /* the far end of time is a legal time */
    sim_schedule_at(s, SIM_TIME_MAX, nop, NULL, 0);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), 1);
    ck_assert_int_eq(sim_now(s), SIM_TIME_MAX);
    ck_assert_uint_eq(sim_events_executed(s), 4);
    sim_destroy(s);
}
END_TEST

/* Heap alone: pops sorted by (time, seq) whatever the push order. */
START_TEST(test_evq_order)
{
    evq q;
    evq_init(&q);
    ck_assert_uint_eq(evq_len(&q), 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    for (uint64_t i = 0; i < 5000; i++)
        evq_push(&q, (int64_t)gsl_rng_uniform_int(r, 100), (uint32_t)i);
    ck_assert_uint_eq(evq_len(&q), 5000);
    evq_entry prev = evq_pop(&q);
    for (int i = 1; i < 5000; i++) {
        evq_entry e = evq_pop(&q);
        ck_assert(prev.time_ps < e.time_ps || (prev.time_ps == e.time_ps && prev.seq < e.seq));
        ck_assert_uint_eq(e.slot, e.seq);
        prev = e;
    }
    ck_assert_uint_eq(evq_len(&q), 0);
    gsl_rng_free(r);
    evq_free(&q);
}
END_TEST

/* (time, insertion index) pairs, sorted independently of the heap. */
typedef struct ti {
    int64_t t;
    uint32_t i;
} ti;

static int ti_cmp(const void *a, const void *b)
{
    const ti *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The queue turns into a ladder past EVQ_LADDER_ON entries and back into a
 * heap at EVQ_LADDER_OFF: across both switches the pops are exactly the
 * qsort order of (time, insertion index), ties included. */
START_TEST(test_evq_layouts)
{
    enum { N = 3 * EVQ_LADDER_ON + 7000 };
    evq q;
    evq_init(&q);
    ti *ref = malloc(N * sizeof *ref);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    for (uint32_t i = 0; i < N; i++) {
        ref[i] = (ti){.t = (int64_t)gsl_rng_uniform_int(r, 5000) - 2500, .i = i}; /* ties, negatives */
        evq_push(&q, ref[i].t, i);
        ck_assert_int_eq(evq_laddered(&q), i + 1 > EVQ_LADDER_ON);
        ck_assert_uint_eq(evq_len(&q), i + 1);
    }
    qsort(ref, N, sizeof *ref, ti_cmp);
    for (uint32_t k = 0; k < N; k++) {
        evq_entry e = evq_pop(&q);
        ck_assert_int_eq(e.time_ps, ref[k].t);
        ck_assert_uint_eq(e.slot, ref[k].i);
        ck_assert_uint_eq(e.seq, ref[k].i); /* no renumbering yet: seq = insertion index */
        /* laddered down to EVQ_LADDER_OFF, then a heap (or an empty ladder) */
        if (N - k - 1 > EVQ_LADDER_OFF)
            ck_assert(evq_laddered(&q));
        else
            ck_assert(!evq_laddered(&q) || q.far == 0);
    }
    ck_assert_uint_eq(evq_len(&q), 0);
    gsl_rng_free(r);
    free(ref);
    evq_free(&q);
}
END_TEST

/* Reference priority queue for test_evq_reference: a plain binary heap of
 * (time, insertion index) pairs, unrelated to the queue's code. */
typedef struct refpq {
    ti *h;
    size_t n, cap;
} refpq;

static void refpq_push(refpq *p, ti x)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        p->h = realloc(p->h, p->cap * sizeof *p->h);
    }
    size_t i = p->n++;
    while (i > 0 && ti_cmp(&x, &p->h[(i - 1) / 2]) < 0) {
        p->h[i] = p->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    p->h[i] = x;
}

static ti refpq_pop(refpq *p)
{
    ti top = p->h[0], x = p->h[--p->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= p->n)
            break;
        if (c + 1 < p->n && ti_cmp(&p->h[c + 1], &p->h[c]) < 0)
            c++;
        if (ti_cmp(&p->h[c], &x) >= 0)
            break;
        p->h[i] = p->h[c];
        i = c;
    }
    if (p->n > 0)
        p->h[i] = x;
    return top;
}

/* a + b for b >= 0, held at INT64_MAX (once an end-of-time key has popped,
 * now is near it: a plain sum would overflow) */
static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

/* Long random push/pop sequences against the reference queue: sizes that
 * cross EVQ_LADDER_ON and EVQ_LADDER_OFF both ways, many equal times (zero
 * increments, bursts at one time), time jumps (up to the end of time),
 * pushes before the last pop, and seq wrapping (renumbering) both as a heap
 * and as a ladder. Every pop must be the reference's, time and slot. */
START_TEST(test_evq_reference)
{
    evq q;
    evq_init(&q);
    refpq p = {0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 29);
    uint32_t pushed = 0;
    uint64_t iter = 0;
    int64_t now = 0;
    int was_ladder = 0, back_to_heap = 0, renumbered_ladder = 0, renumbered_heap = 0;
    /* the sizes to drift to, one phase each */
    const uint32_t target[] = {EVQ_LADDER_ON * 5, 100, EVQ_LADDER_ON + 1, EVQ_LADDER_OFF - 1, EVQ_LADDER_ON * 3,
                               EVQ_LADDER_ON * 2, 10, EVQ_LADDER_ON * 4, 0};
    const size_t nphase = sizeof target / sizeof *target;
    for (size_t phase = 0; phase < nphase; phase++) {
        uint64_t steps = 0;
        /* drift to the target, then hold there a while */
        while (evq_len(&q) != target[phase] || steps++ < 20000) {
            int grow = evq_len(&q) < target[phase];
            int shrink = evq_len(&q) > target[phase];
            double u = gsl_rng_uniform(r);
            if (evq_len(&q) > 0 && (shrink ? u < 0.7 : grow ? u < 0.3 : u < 0.5)) {
                evq_entry e = evq_pop(&q);
                ti x = refpq_pop(&p);
                /* plain tests first: a Check assertion per pop costs more than the queue */
                if (e.time_ps != x.t || e.slot != x.i)
                    ck_abort_msg("pop %" PRIu64 ": (%" PRId64 ", slot %u), expected (%" PRId64 ", slot %u)", iter,
                                 e.time_ps, e.slot, x.t, x.i);
                if (e.time_ps > now)
                    now = e.time_ps;
            } else if (!shrink || gsl_rng_uniform(r) < 0.3) {
                int64_t t;
                double v = gsl_rng_uniform(r);
                if (v < 0.25)
                    t = now; /* equal times */
                else if (v < 0.9)
                    t = sat_add(now, (int64_t)gsl_rng_uniform_int(r, 1000 * (1 + phase)));
                else if (v < 0.95)
                    t = now - (int64_t)gsl_rng_uniform_int(r, 100); /* before the last pop */
                else if (v < 0.99)
                    t = sat_add(now, (int64_t)gsl_rng_uniform_int(r, 1u << 30) * 1000000); /* a jump */
                else
                    t = INT64_MAX - (int64_t)gsl_rng_uniform_int(r, 3); /* the end of time */
                if (v > 0.999 && target[phase] > 1000) { /* a burst at one time */
                    uint32_t burst = 200 + (uint32_t)gsl_rng_uniform_int(r, 3000);
                    for (uint32_t k = 0; k < burst; k++) {
                        refpq_push(&p, (ti){.t = t, .i = pushed});
                        evq_push(&q, t, pushed++);
                    }
                }
                refpq_push(&p, (ti){.t = t, .i = pushed});
                evq_push(&q, t, pushed++);
            }
            if (evq_len(&q) != p.n)
                ck_assert_uint_eq(evq_len(&q), p.n);
            if (++iter % 4096 == 0 || evq_len(&q) == 1) {
                int broken = evq_check(&q);
                if (broken)
                    ck_abort_msg("step %" PRIu64 ": invariant %d broken", iter, broken);
            }
            if (evq_laddered(&q) && q.far > 0)
                was_ladder = 1;
            else if (was_ladder && !evq_laddered(&q))
                back_to_heap = 1;
            /* wrap seq now and then, in either state */
            if (gsl_rng_uniform(r) < 0.0002) {
                if (evq_laddered(&q) && q.far > 0)
                    renumbered_ladder++;
                else
                    renumbered_heap++;
                q.seq = UINT32_MAX - (uint32_t)gsl_rng_uniform_int(r, 5);
            }
        }
        /* Far times drift `now` towards the end of time: start afresh
         * below it when a phase has emptied the queue. */
        if (evq_len(&q) == 0)
            now = 0;
        if (now > INT64_MAX / 2 && evq_len(&q) < 1000)
            while (evq_len(&q) > 0) {
                evq_entry e = evq_pop(&q);
                ti x = refpq_pop(&p);
                ck_assert_int_eq(e.time_ps, x.t);
                ck_assert_uint_eq(e.slot, x.i);
                now = 0;
            }
    }
    ck_assert_uint_eq(evq_len(&q), 0);
    ck_assert(was_ladder && back_to_heap);
    ck_assert_int_gt(renumbered_ladder, 0);
    ck_assert_int_gt(renumbered_heap, 0);
    free(p.h);
    gsl_rng_free(r);
    evq_free(&q);
}
END_TEST


/* the end of a lane test's step: the queue settled, as long as the
 * reference, its invariants held now and then; *laddered notes a ladder */
static void lanes_step_end(evq *q, const refpq *p, uint64_t step, int *laddered)
{
    evq_settle(q);
    *laddered |= evq_laddered(q) && q->far > 0;
    if (evq_len(q) != p->n)
        ck_assert_uint_eq(evq_len(q), p->n);
    if (step % 997 == 0) {
        int broken = evq_check(q);
        if (broken)
            ck_abort_msg("step %" PRIu64 ": invariant %d broken", step, broken);
    }
}

/* a lane test's end: every key left pops as the reference's, time and
 * slot, and the empty queue holds its invariants */
static void lanes_drain_equal(evq *q, refpq *p)
{
    while (evq_len(q) > 0) {
        evq_key k = evq_pop_any(q);
        ti x = refpq_pop(p);
        ck_assert_int_eq(evq_key_time(k), x.t);
        ck_assert_uint_eq(evq_key_slot(k), x.i);
    }
    ck_assert(evq_min_key(q) == EVQ_KEY_MAX);
    ck_assert_int_eq(evq_check(q), 0);
}

/* Lanes beside the heap (and the ladder): pops in the engine's way (the
 * least of the heap's root and the lane heads; from the heap a deferred
 * pop, settled after the pushes) must be the reference queue's, time and
 * slot. Lanes of equal delays (ties between lanes), delay 0 (ties with the
 * key just popped), heap pushes at the same times, sizes across the ladder
 * border, and seq wrapping with keys in the lanes. */
START_TEST(test_evq_lanes)
{
    evq q;
    evq_init(&q);
    refpq p = {0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 31);
    const int64_t delay[] = {45, 50, 50, 0, 7, 60, 1000};
    const unsigned nl = sizeof delay / sizeof *delay;
    for (unsigned i = 0; i < nl; i++)
        ck_assert_int_eq(evq_lane_add(&q), (int)i);
    uint32_t pushed = 0;
    int64_t now = 0;
    int wraps = 0, from_lane = 0, from_heap = 0, laddered = 0;
    for (uint64_t step = 0; step < 400000; step++) {
        /* the queue's size drifts up to beyond the ladder border and back */
        size_t want = (step / 50000) % 2 ? EVQ_LADDER_ON * 2 : 50;
        unsigned npush = evq_len(&q) < want ? 1 + (unsigned)gsl_rng_uniform_int(r, 3)
                                            : (unsigned)gsl_rng_uniform_int(r, 2);
        int hole = 0;
        if (evq_len(&q) > 0) {
            evq_key k = evq_min_key(&q);
            ti x = refpq_pop(&p);
            if (k != q.heap[0]) {
                ck_assert(evq_lane_pop(&q) == k);
                from_lane++;
            } else {
                ck_assert(evq_take_top(&q) == k);
                hole = q.hole;
                from_heap++;
            }
            if (evq_key_time(k) != x.t || evq_key_slot(k) != x.i)
                ck_abort_msg("step %" PRIu64 ": (%" PRId64 ", slot %u), expected (%" PRId64 ", slot %u)", step,
                             evq_key_time(k), evq_key_slot(k), x.t, x.i);
            ck_assert_int_ge(evq_key_time(k), now);
            now = evq_key_time(k);
        }
        (void)hole;
        for (unsigned j = 0; j < npush; j++) {
            if (gsl_rng_uniform(r) < 0.00005) {
                q.seq = UINT32_MAX - (uint32_t)gsl_rng_uniform_int(r, 3);
                wraps++;
            }
            double v = gsl_rng_uniform(r);
            int64_t t;
            if (v < 0.6) {
                unsigned i = (unsigned)gsl_rng_uniform_int(r, nl);
                t = now + delay[i];
                evq_lane_push(&q, i, t, pushed);
            } else {
                t = now + (v < 0.7 ? 0 : v < 0.8 ? 50 : (int64_t)gsl_rng_uniform_int(r, 3000));
                evq_push(&q, t, pushed);
            }
            refpq_push(&p, (ti){.t = t, .i = pushed});
            pushed++;
        }
        lanes_step_end(&q, &p, step, &laddered);
    }
    lanes_drain_equal(&q, &p);
    ck_assert_int_gt(wraps, 3);
    ck_assert_int_gt(from_lane, 1000);
    ck_assert_int_gt(from_heap, 1000);
    ck_assert(laddered);
    free(p.h);
    gsl_rng_free(r);
    evq_free(&q);
}
END_TEST

/* The engine with lanes fires the events of a random model in the order
 * (and at the times) of the same model scheduling through sim_schedule. */
typedef struct lane_model {
    sim *s;
    gsl_rng *r;
    int use_lanes;
    int lane[4];
    uint64_t fired, log_hash;
} lane_model;

static const int64_t lane_model_delay[4] = {45, 50, 0, 45};

static void lane_model_ev(sim *s, void *ctx, uint64_t arg)
{
    lane_model *m = ctx;
    m->log_hash = m->log_hash * 1000003u ^ ((uint64_t)sim_now(s) * 31u + arg);
    if (++m->fired > 200000)
        return;
    unsigned n = (unsigned)gsl_rng_uniform_int(m->r, 3);
    for (unsigned j = 0; j < n; j++) {
        uint64_t a = m->fired * 4 + j;
        if (gsl_rng_uniform(m->r) < 0.7) {
            unsigned i = (unsigned)gsl_rng_uniform_int(m->r, 4);
            if (m->use_lanes)
                sim_schedule_lane(s, m->lane[i], (uint32_t)a);
            else
                sim_schedule(s, lane_model_delay[i], lane_model_ev, m, a);
        } else {
            sim_schedule(s, (int64_t)gsl_rng_uniform_int(m->r, 200), lane_model_ev, m, a);
        }
    }
}

START_TEST(test_sim_lanes_same_order)
{
    uint64_t hash[2], fired[2];
    for (int use = 0; use < 2; use++) {
        lane_model m = {.s = sim_create(), .r = gsl_rng_alloc(gsl_rng_mt19937), .use_lanes = use};
        gsl_rng_set(m.r, 5);
        if (use) {
            for (int i = 0; i < 4; i++)
                m.lane[i] = sim_lane(m.s, lane_model_delay[i], lane_model_ev, &m);
            ck_assert_int_eq(m.lane[3], m.lane[0]); /* the same delay, the same lane */
            /* another callback or context: another lane */
            ck_assert_int_ne(sim_lane(m.s, lane_model_delay[0], lane_model_ev, NULL), m.lane[0]);
        }
        for (uint64_t i = 0; i < 40; i++)
            sim_schedule(m.s, (int64_t)i % 7, lane_model_ev, &m, 1000000000 + i);
        sim_run(m.s, 1000000); /* in two calls: the loop restarts with keys in the lanes */
        sim_run(m.s, SIM_TIME_MAX);
        hash[use] = m.log_hash;
        fired[use] = m.fired;
        ck_assert_uint_eq(sim_pending(m.s), 0);
        gsl_rng_free(m.r);
        sim_destroy(m.s);
    }
    ck_assert_uint_gt(fired[0], 200000);
    ck_assert_uint_eq(fired[0], fired[1]);
    ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

/* A lane at absolute times (sim_lane_abs) fires the events of a random
 * model in the order and at the times of the same model scheduling them
 * through sim_schedule_at: times on a 10-ps grid so that ties with the
 * heap's events are frequent, each lane time at or after the lane's last
 * one (the model keeps it so), two runs, hashes compared. */
typedef struct abs_model {
    gsl_rng *r;
    int use_lane, lane;
    int64_t last;
    uint64_t fired, log_hash;
} abs_model;

static void abs_model_ev(sim *s, void *ctx, uint64_t arg)
{
    abs_model *m = ctx;
    m->log_hash = m->log_hash * 1000003u ^ ((uint64_t)sim_now(s) * 31u + arg);
    if (++m->fired > 200000)
        return;
    unsigned n = (unsigned)gsl_rng_uniform_int(m->r, 3);
    for (unsigned j = 0; j < n; j++) {
        uint64_t a = (m->fired * 4 + j) & 0xffffffffu;
        if (gsl_rng_uniform(m->r) < 0.6) {
            int64_t t = sim_now(s) + 10 * (int64_t)gsl_rng_uniform_int(m->r, 8);
            if (t < m->last)
                t = m->last;
            m->last = t;
            if (m->use_lane)
                sim_schedule_lane_at(s, m->lane, t, (uint32_t)a);
            else
                sim_schedule_at(s, t, abs_model_ev, m, a);
        } else {
            sim_schedule(s, 10 * (int64_t)gsl_rng_uniform_int(m->r, 12), abs_model_ev, m, a);
        }
    }
}

START_TEST(test_sim_lane_abs_same_order)
{
    uint64_t hash[2], fired[2], events[2];
    for (int use = 0; use < 2; use++) {
        sim *s = sim_create();
        abs_model m = {.r = gsl_rng_alloc(gsl_rng_mt19937), .use_lane = use};
        gsl_rng_set(m.r, 11);
        if (use) {
            m.lane = sim_lane_abs(s, abs_model_ev, &m);
            ck_assert_int_ge(m.lane, 0);
            ck_assert_int_eq(sim_lane_abs(s, abs_model_ev, &m), m.lane); /* the same cb and ctx: the same lane */
            ck_assert_int_ne(sim_lane(s, 0, abs_model_ev, &m), m.lane); /* a lane of delay 0 is another */
        }
        for (uint64_t i = 0; i < 40; i++)
            sim_schedule(s, 10 * ((int64_t)i % 7), abs_model_ev, &m, 1000000000 + i);
        events[use] = sim_run(s, 500000); /* in two calls: the loop restarts with keys in the lane */
        events[use] += sim_run(s, SIM_TIME_MAX);
        hash[use] = m.log_hash;
        fired[use] = m.fired;
        ck_assert_uint_eq(sim_pending(s), 0);
        gsl_rng_free(m.r);
        sim_destroy(s);
    }
    ck_assert_uint_gt(fired[0], 200000);
    ck_assert_uint_eq(fired[0], fired[1]);
    ck_assert_uint_eq(events[0], events[1]);
    ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

/* Calendar lanes (evq_cal) beside FIFO lanes and the heap: pops in the
 * engine's way must be the reference queue's, time and slot. Keys at any
 * times up to twice a calendar's reach (those it does not hold, beyond the
 * reach or in a bucket of another time, pushed to the heap as
 * sim_schedule_cal_at does), on a grid that ties them with the heap's and
 * the FIFO lane's keys and off it, buckets of many keys (chains of
 * chunks), the queue's size across the ladder border, and seq wrapping
 * with keys in the buckets; the structure's invariants checked (evq_check
 * 18-21). */
START_TEST(test_evq_calendar)
{
    evq q;
    evq_init(&q);
    refpq p = {0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 77);
    ck_assert_int_eq(evq_lane_add(&q), 0);          /* a FIFO lane, delay 40 */
    ck_assert_int_eq(evq_cal_add(&q, 3, 600), 1);   /* 8-unit buckets, at least 600 ahead: 128 buckets */
    ck_assert_int_eq(evq_cal_add(&q, 0, 10), 2);    /* 1-unit buckets: the least ring, 64 */
    ck_assert_uint_eq(q.lane[1].cal->mask, 127);
    ck_assert_uint_eq(q.lane[2].cal->mask, 63);
    ck_assert_uint_eq(q.lane[1].cal->span, 127 * 8);
    uint32_t pushed = 0;
    int64_t now = 0;
    int wraps = 0, far = 0, laddered = 0;
    uint64_t from_cal = 0, from_other = 0;
    for (uint64_t step = 0; step < 300000; step++) {
        size_t want = (step / 40000) % 2 ? EVQ_LADDER_ON * 2 : 60;
        unsigned npush = evq_len(&q) < want ? 1 + (unsigned)gsl_rng_uniform_int(r, 3)
                                            : (unsigned)gsl_rng_uniform_int(r, 2);
        if (evq_len(&q) > 0) {
            evq_key k = evq_min_key(&q);
            ti x = refpq_pop(&p);
            if (k != q.heap[0]) {
                if (q.lane[q.lmin].cal) {
                    ck_assert(evq_cal_pop(&q) == k);
                    from_cal++;
                } else {
                    ck_assert(evq_lane_pop(&q) == k);
                    from_other++;
                }
            } else {
                ck_assert(evq_take_top(&q) == k);
                from_other++;
            }
            if (evq_key_time(k) != x.t || evq_key_slot(k) != x.i)
                ck_abort_msg("step %" PRIu64 ": (%" PRId64 ", slot %u), expected (%" PRId64 ", slot %u)", step,
                             evq_key_time(k), evq_key_slot(k), x.t, x.i);
            ck_assert_int_ge(evq_key_time(k), now);
            now = evq_key_time(k);
        }
        for (unsigned j = 0; j < npush; j++) {
            if (gsl_rng_uniform(r) < 0.00005) {
                q.seq = UINT32_MAX - (uint32_t)gsl_rng_uniform_int(r, 3);
                wraps++;
            }
            double v = gsl_rng_uniform(r);
            int64_t t;
            if (v < 0.7) {
                unsigned i = v < 0.5 ? 1 : 2;
                uint64_t reach = q.lane[i].cal->span;
                /* three in four on a 10-unit grid, the others anywhere */
                t = now + (int64_t)gsl_rng_uniform_int(r, 2 * reach);
                if (gsl_rng_uniform(r) < 0.75)
                    t -= t % 10;
                if (t < now)
                    t += 10;
                if (!evq_cal_push(&q, i, t, now, pushed)) {
                    evq_push(&q, t, pushed); /* beyond the reach, or its bucket holds another time */
                    far++;
                }
            } else if (v < 0.8) {
                t = now + 40;
                evq_lane_push(&q, 0, t, pushed);
            } else {
                t = now + 10 * (int64_t)gsl_rng_uniform_int(r, 30);
                evq_push(&q, t, pushed);
            }
            refpq_push(&p, (ti){.t = t, .i = pushed});
            pushed++;
        }
        lanes_step_end(&q, &p, step, &laddered);
    }
    lanes_drain_equal(&q, &p);
    ck_assert_int_gt(wraps, 3);
    ck_assert_int_gt(far, 1000);
    ck_assert_uint_gt(from_cal, 80000);
    ck_assert_uint_gt(from_other, 100000);
    ck_assert(laddered);
    free(p.h);
    gsl_rng_free(r);
    evq_free(&q);
}
END_TEST

/* A calendar lane (sim_lane_cal) fires the events of a random model in the
 * order and at the times of the same model scheduling them through
 * sim_schedule_at: a workload's arrivals, one pending per "node", each
 * next one a random gap ahead (on a 10-ps grid, so that ties among them and
 * with the heap's events are frequent; a few beyond the ring's reach), and
 * other events through the heap; two runs, hashes and event counts
 * compared. */
typedef struct cal_model {
    gsl_rng *r;
    int lane; /* -1: sim_schedule_at */
    uint64_t fired, log_hash;
} cal_model;

static void cal_model_other(sim *s, void *ctx, uint64_t arg)
{
    cal_model *m = ctx;
    m->log_hash = m->log_hash * 1000003u ^ ((uint64_t)sim_now(s) * 37u + arg);
}

static void cal_model_ev(sim *s, void *ctx, uint64_t arg)
{
    cal_model *m = ctx;
    m->log_hash = m->log_hash * 1000003u ^ ((uint64_t)sim_now(s) * 31u + arg);
    if (++m->fired > 200000)
        return;
    if (gsl_rng_uniform(m->r) < 0.3)
        sim_schedule(s, 10 * (int64_t)gsl_rng_uniform_int(m->r, 6), cal_model_other, m, m->fired);
    int64_t gap = gsl_rng_uniform(m->r) < 0.01 ? 100000 : 10 * (1 + (int64_t)gsl_rng_uniform_int(m->r, 40));
    if (m->lane >= 0)
        sim_schedule_cal_at(s, m->lane, sim_now(s) + gap, (uint32_t)arg);
    else
        sim_schedule_at(s, sim_now(s) + gap, cal_model_ev, m, arg);
}

START_TEST(test_sim_cal_same_order)
{
    uint64_t hash[2], fired[2], events[2];
    for (int use = 0; use < 2; use++) {
        sim *s = sim_create();
        cal_model m = {.r = gsl_rng_alloc(gsl_rng_mt19937), .lane = -1};
        gsl_rng_set(m.r, 13);
        if (use) {
            m.lane = sim_lane_cal(s, cal_model_ev, &m, 10, 1000);
            ck_assert_int_ge(m.lane, 0);
            ck_assert_int_eq(sim_lane_cal(s, cal_model_ev, &m, 10, 1000), m.lane); /* the same cb and ctx */
            ck_assert_int_ne(sim_lane_abs(s, cal_model_ev, &m), m.lane);          /* a FIFO lane is another */
        }
        for (uint32_t i = 0; i < 100; i++)
            if (m.lane >= 0)
                sim_schedule_cal_at(s, m.lane, 10 * (int64_t)(i % 13), i);
            else
                sim_schedule_at(s, 10 * (int64_t)(i % 13), cal_model_ev, &m, i);
        events[use] = sim_run(s, 500000); /* in two calls: the loop restarts with keys in the lane */
        events[use] += sim_run(s, SIM_TIME_MAX);
        hash[use] = m.log_hash;
        fired[use] = m.fired;
        ck_assert_uint_eq(sim_pending(s), 0);
        gsl_rng_free(m.r);
        sim_destroy(s);
    }
    ck_assert_uint_gt(fired[0], 200000);
    ck_assert_uint_eq(fired[0], fired[1]);
    ck_assert_uint_eq(events[0], events[1]);
    ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

/* A lane's lookahead prefetcher sees, before each head fires, the events
 * (stages - k) x ahead behind it, farthest stage first, and only those the
 * lane holds: 20 events of one lane, ahead 3, 2 stages. */
typedef struct pf_log {
    int lane;
    char log[512];
    size_t n;
} pf_log;

static void pf_log_add(pf_log *l, const char *what, uint32_t a, unsigned k)
{
    l->n += (size_t)snprintf(l->log + l->n, sizeof l->log - l->n, "%s%u.%u ", what, a, k);
}

static void pf_log_pf(void *ctx, uint32_t arg, unsigned stage) { pf_log_add(ctx, "p", arg, stage); }

static void pf_log_ev(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    pf_log_add(ctx, "f", (uint32_t)arg, 0);
}

static void pf_log_start(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    pf_log *l = ctx;
    for (uint32_t i = 0; i < 20; i++)
        sim_schedule_lane(s, l->lane, i);
}

START_TEST(test_sim_lane_prefetch)
{
    sim *s = sim_create();
    pf_log l = {0};
    l.lane = sim_lane(s, 10, pf_log_ev, &l);
    ck_assert_int_ge(l.lane, 0);
    sim_lane_prefetch(s, l.lane, pf_log_pf, 3, 2);
    sim_schedule(s, 0, pf_log_start, &l, 0);
    sim_run(s, SIM_TIME_MAX);
    char want[512];
    size_t n = 0;
    for (uint32_t a = 0; a < 20; a++) {
        if (a + 6 < 20)
            n += (size_t)snprintf(want + n, sizeof want - n, "p%u.0 ", a + 6);
        if (a + 3 < 20)
            n += (size_t)snprintf(want + n, sizeof want - n, "p%u.1 ", a + 3);
        n += (size_t)snprintf(want + n, sizeof want - n, "f%u.0 ", a);
    }
    ck_assert_str_eq(l.log, want);
    sim_destroy(s);
}
END_TEST

/* tn_xalloc_big: zeroed, 64-byte aligned, and 2 MiB aligned from 2 MiB on
 * (the huge pages themselves are the kernel's to give). */
START_TEST(test_alloc_big)
{
    const size_t sizes[] = {0, 1, 100, 4096, (size_t)2 << 20, ((size_t)3 << 20) + 5};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = tn_xalloc_big(sizes[i]);
        size_t held = tn_xalloc_big_bytes(sizes[i]);
        ck_assert_uint_ge(held, sizes[i] ? sizes[i] : 1);
        ck_assert_uint_lt(held, (sizes[i] ? sizes[i] : 1) + (sizes[i] >= ((size_t)2 << 20) ? ((size_t)2 << 20) : 64));
        ck_assert_uint_eq((uintptr_t)p % (sizes[i] >= ((size_t)2 << 20) ? ((size_t)2 << 20) : 64), 0);
        for (size_t j = 0; j < sizes[i]; j++)
            ck_assert_uint_eq(p[j], 0);
        if (sizes[i])
            p[sizes[i] - 1] = 1; /* writable to its last byte */
        free(p);
    }
}
END_TEST

/* The hold pattern of a simulation (pop one, push one no earlier) at a size
 * that crosses the layout border both ways: pops never go back in
 * (time, seq), and every key pushed comes out exactly once. */
START_TEST(test_evq_hold_across_layouts)
{
    evq q;
    evq_init(&q);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12);
    uint32_t pushed = 0, popped = 0;
    uint64_t slot_sum_in = 0, slot_sum_out = 0;
    int64_t prev_t = INT64_MIN;
    uint32_t prev_seq = 0;
    /* grow to 3 x EVQ_LADDER_ON, shrink to EVQ_LADDER_OFF / 2, grow again */
    const uint32_t target[] = {EVQ_LADDER_ON * 3, EVQ_LADDER_OFF / 2, EVQ_LADDER_ON + 100};
    int64_t now = 0;
    for (int phase = 0; phase < 3; phase++) {
        while (evq_len(&q) != target[phase]) {
            int grow = evq_len(&q) < target[phase];
            /* mostly hold (pop + push), drifting towards the target */
            if (evq_len(&q) > 0 && (gsl_rng_uniform(r) < 0.5 || !grow)) {
                evq_entry e = evq_pop(&q);
                ck_assert(e.time_ps > prev_t || (e.time_ps == prev_t && e.seq > prev_seq));
                prev_t = e.time_ps;
                prev_seq = e.seq;
                now = e.time_ps;
                slot_sum_out += e.slot;
                popped++;
            }
            if (grow || gsl_rng_uniform(r) < 0.5) {
                evq_push(&q, now + (int64_t)gsl_rng_uniform_int(r, 50), pushed);
                slot_sum_in += pushed++;
            }
        }
    }
    while (evq_len(&q) > 0) {
        evq_entry e = evq_pop(&q);
        ck_assert(e.time_ps > prev_t || (e.time_ps == prev_t && e.seq > prev_seq));
        prev_t = e.time_ps;
        prev_seq = e.seq;
        slot_sum_out += e.slot;
        popped++;
    }
    ck_assert_uint_eq(popped, pushed);
    ck_assert_uint_eq(slot_sum_out, slot_sum_in);
    gsl_rng_free(r);
    evq_free(&q);
}
END_TEST

/* The engine's deferred pop (evq_take_top, then 0, 1 or 2 pushes, then
 * evq_settle) against the plain pop-then-push on a twin queue: the same keys
 * in the same order, across a seq wrap (the push during a deferred pop
 * renumbers only a whole heap) and both structures (a laddered queue pops
 * at once). */
START_TEST(test_evq_deferred_pop)
{
    evq a, b;
    evq_init(&a);
    evq_init(&b);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 13);
    uint32_t slot = 0;
    int laddered = 0;
    for (; slot < 200; slot++) {
        int64_t t = (int64_t)gsl_rng_uniform_int(r, 1000);
        evq_push(&a, t, slot);
        evq_push(&b, t, slot);
    }
    for (int step = 0; step < 200000; step++) {
        if (step == 1000)
            a.seq = b.seq = UINT32_MAX - 500; /* wrap within the next steps */
        if (evq_len(&a) == 0)
            break;
        evq_key ka = evq_take_top(&a);
        evq_key kb = evq_pop_key(&b);
        ck_assert(ka == kb);
        int64_t now = evq_key_time(ka);
        /* grow to past EVQ_LADDER_ON, then drain */
        unsigned pushes = step < 120000 ? (unsigned)gsl_rng_uniform_int(r, 3) + (step % 3 == 0)
                                        : (unsigned)gsl_rng_uniform_int(r, 2);
        for (unsigned k = 0; k < pushes; k++) {
            int64_t t = now + (int64_t)gsl_rng_uniform_int(r, k ? 2000 : 40); /* ties too */
            evq_push(&a, t, slot);
            evq_push(&b, t, slot);
            slot++;
        }
        evq_settle(&a);
        ck_assert_uint_eq(evq_len(&a), evq_len(&b));
        ck_assert_int_eq(evq_laddered(&a), evq_laddered(&b));
        laddered |= evq_laddered(&a);
        if (step % 1024 == 0)
            ck_assert_int_eq(evq_check(&a), 0);
    }
    ck_assert(laddered);
    ck_assert(b.seq < UINT32_MAX - 500); /* the wrap happened */
    while (evq_len(&b) > 0) {
        evq_key kb = evq_pop_key(&b);
        ck_assert(evq_take_top(&a) == kb);
        evq_settle(&a);
    }
    ck_assert_uint_eq(evq_len(&a), 0);
    gsl_rng_free(r);
    evq_free(&a);
    evq_free(&b);
}
END_TEST

/* seq is 32 bits: when it would wrap the queue renumbers what it holds.
 * Equal times keep their push order across the wrap, as a heap and as a ladder. */
START_TEST(test_evq_seq_wrap)
{
    for (int ladder = 0; ladder < 2; ladder++) {
        evq q;
        evq_init(&q);
        uint32_t n = 0, filler = ladder ? 2 * EVQ_LADDER_ON : 10;
        for (uint32_t i = 0; i < filler; i++) /* later keys, to fill the heap */
            evq_push(&q, 1000 + (int64_t)(i % 97), 100000 + i);
        ck_assert_int_eq(evq_laddered(&q), ladder);
        q.seq = UINT32_MAX - 20; /* as after 2^32 - 21 pushes */
        for (; n < 60; n++) {    /* slots 0..59 at t = 7 cross the wrap */
            evq_push(&q, 7, n);
            if (n % 3 == 0)
                evq_push(&q, 7 - (int64_t)(n % 2), 50000 + n); /* at 6 or 7 */
        }
        ck_assert_uint_lt(q.seq, 2 * (filler + 100)); /* renumbered once, from the count */
        /* t = 6 first (in push order), then t = 7 in push order */
        uint32_t expect6[] = {50003, 50009, 50015, 50021, 50027, 50033, 50039, 50045, 50051, 50057};
        for (size_t k = 0; k < sizeof expect6 / sizeof *expect6; k++) {
            evq_entry e = evq_pop(&q);
            ck_assert_int_eq(e.time_ps, 6);
            ck_assert_uint_eq(e.slot, expect6[k]);
        }
        for (uint32_t i = 0; i < 60; i++) {
            evq_entry e = evq_pop(&q);
            ck_assert_int_eq(e.time_ps, 7);
            ck_assert_uint_eq(e.slot, i);
            if (i % 3 == 0 && i % 2 == 0) {
                e = evq_pop(&q);
                ck_assert_int_eq(e.time_ps, 7);
                ck_assert_uint_eq(e.slot, 50000 + i);
            }
        }
        ck_assert_uint_eq(evq_len(&q), filler);
        ck_assert_int_eq(evq_key_time(evq_top(&q)), 1000);
        evq_free(&q);
    }
}
END_TEST

static void record_fire(sim *s, void *ctx, uint64_t arg)
{
    ti **out = ctx;
    **out = (ti){.t = sim_now(s), .i = (uint32_t)arg};
    (*out)++;
}

/* Cancelling a random third of a queue large enough to change layout:
 * exactly the others fire, in (time, scheduling order). */
START_TEST(test_cancel_many)
{
    enum { N = 3 * EVQ_LADDER_ON };
    sim *s = sim_create();
    ti *ref = malloc(N * sizeof *ref), *fired = malloc(N * sizeof *fired), *cur = fired;
    sim_event_id *id = malloc(N * sizeof *id);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 13);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < N; i++) {
        int64_t t = (int64_t)gsl_rng_uniform_int(r, 3000);
        id[i] = sim_schedule_at(s, t, record_fire, &cur, i);
        if (gsl_rng_uniform(r) < 2.0 / 3.0)
            ref[kept++] = (ti){.t = t, .i = i};
        else
            ck_assert(sim_cancel(s, id[i]));
    }
    ck_assert_uint_eq(sim_pending(s), kept);
    ck_assert_uint_eq(sim_run(s, SIM_TIME_MAX), kept);
    ck_assert_uint_eq((size_t)(cur - fired), kept);
    qsort(ref, kept, sizeof *ref, ti_cmp);
    for (uint32_t k = 0; k < kept; k++) {
        ck_assert_int_eq(fired[k].t, ref[k].t);
        ck_assert_uint_eq(fired[k].i, ref[k].i);
    }
    for (uint32_t i = 0; i < N; i++)
        ck_assert(!sim_cancel(s, id[i])); /* fired or cancelled: stale either way */
    gsl_rng_free(r);
    free(ref);
    free(fired);
    free(id);
    sim_destroy(s);
}
END_TEST

/* Broken invariants abort (Check runs each test in a child process). */
START_TEST(test_past_aborts)
{
    sim *s = sim_create();
    sim_schedule_at(s, 100, nop, NULL, 0);
    sim_run(s, SIM_TIME_MAX);
    sim_schedule_at(s, 99, nop, NULL, 0);
}
END_TEST

START_TEST(test_negative_delay_aborts)
{
    sim *s = sim_create();
    sim_schedule(s, -1, nop, NULL, 0);
}
END_TEST

/* TN_CHECK (src/log.h): in the checking build (--enable-checks) a false
 * condition aborts like TN_ASSERT; in the ordinary build the condition is
 * not even evaluated. */
static int check_calls;
static int counted_false(void)
{
    check_calls++;
    return 0;
}

START_TEST(test_check_compiled_per_build)
{
    TN_CHECK(counted_false(), "a checked invariant");
#ifdef TN_CHECKS
    ck_abort_msg("TN_CHECK of a false condition returned in the checking build");
#else
    ck_assert_int_eq(check_calls, 0);
#endif
}
END_TEST

static Suite *sim_suite(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_random_order);
    tcase_add_test(tc, test_fifo_ties);
    tcase_add_test(tc, test_cancel);
    tcase_add_test(tc, test_cancelled_does_not_advance_time);
    tcase_add_test(tc, test_run_until);
    tcase_add_test(tc, test_stop);
    tcase_add_test(tc, test_count_events);
    tcase_add_test(tc, test_schedule_from_callback);
    tcase_add_test(tc, test_now_and_schedule_relative);
    tcase_add_test(tc, test_evq_order);
    tcase_add_test(tc, test_evq_layouts);
    tcase_add_test(tc, test_evq_hold_across_layouts);
    tcase_add_test(tc, test_evq_reference);
    tcase_add_test(tc, test_evq_lanes);
    tcase_add_test(tc, test_sim_lanes_same_order);
    tcase_add_test(tc, test_sim_lane_abs_same_order);
    tcase_add_test(tc, test_evq_calendar);
    tcase_add_test(tc, test_sim_cal_same_order);
    tcase_add_test(tc, test_sim_lane_prefetch);
    tcase_add_test(tc, test_alloc_big);
    tcase_add_test(tc, test_evq_seq_wrap);
    tcase_add_test(tc, test_evq_deferred_pop);
    tcase_add_test(tc, test_cancel_many);
    suite_add_tcase(s, tc);
    return s;
}

/* The suite, and the invariants' aborts only where Check forks. */
static Suite *sim_suite_all(void)
{
    Suite *s = sim_suite();
    if (th_forks()) {
        TCase *die = tcase_create("invariants");
        tcase_add_test_raise_signal(die, test_past_aborts, SIGABRT);
        tcase_add_test_raise_signal(die, test_negative_delay_aborts, SIGABRT);
#ifdef TN_CHECKS
        tcase_add_test_raise_signal(die, test_check_compiled_per_build, SIGABRT);
#else
        tcase_add_test(die, test_check_compiled_per_build);
#endif
        suite_add_tcase(s, die);
    }
    return s;
}

TH_MAIN(sim_suite_all)
