/* Discrete-event engine. Time is integer picoseconds. One event = callback +
 * context + one integer argument; scheduling returns an id that cancels it.
 * Events at equal times fire in the order they were scheduled. No globals:
 * every model receives its `sim *`. No malloc once the pools have grown. */
#ifndef TASKNET_SIM_H
#define TASKNET_SIM_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim sim;
typedef uint64_t sim_event_id; /* 0 is never a valid id */
typedef void (*sim_cb)(sim *s, void *ctx, uint64_t arg);

#define SIM_TIME_MAX INT64_MAX

sim *sim_create(void);
void sim_destroy(sim *s);

/* The engine's first member, public only so sim_now inlines (models read
 * the time on almost every event); nothing outside sim.c writes it. */
struct sim_clock {
    int64_t now_ps; /* current simulated time */
};

/* current time, ps */
static inline int64_t sim_now(const sim *s) { return ((const struct sim_clock *)(const void *)s)->now_ps; }
uint64_t sim_events_executed(const sim *s); /* callbacks run so far */
uint64_t sim_pending(const sim *s);         /* events scheduled, not yet fired or cancelled */

/* Schedule cb(s, ctx, arg) at now + delay_ps (delay_ps >= 0). */
sim_event_id sim_schedule(sim *s, int64_t delay_ps, sim_cb cb, void *ctx, uint64_t arg);
/* Schedule at absolute time t_ps >= now. */
sim_event_id sim_schedule_at(sim *s, int64_t t_ps, sim_cb cb, void *ctx, uint64_t arg);
/* Lanes: a model that schedules many events of one callback at now + d
 * for a few fixed delays d may give each (d, cb, ctx) a lane; events in a
 * lane fire exactly when and in the order they would through sim_schedule
 * (ties included), for less work: an append to a FIFO, and no slot (the
 * argument rides in the queue's key, so it is 32 bits, and a lane event
 * cannot be cancelled). sim_lane returns the lane of delay_ps >= 0, cb and
 * ctx (the same one for the same three), or -1 if there are no lanes left
 * (then use sim_schedule); not during sim_run. */
int sim_lane(sim *s, int64_t delay_ps, sim_cb cb, void *ctx);
/* Schedule the lane's cb(s, ctx, arg) at now + the lane's delay, like
 * sim_schedule. */
void sim_schedule_lane(sim *s, int lane, uint32_t arg);
/* Lanes at absolute times: a model that schedules events of one callback
 * at times that never go back (each at or after the one scheduled before
 * it, in the order scheduled) may give (cb, ctx) a lane of its own; its
 * events fire exactly when and in the order they would through
 * sim_schedule_at, ties with every other event included (the same key:
 * time, then the order of scheduling), for an append and no slot (32-bit
 * argument, no cancelling). sim_lane_abs returns the lane (the same one
 * for the same cb and ctx), or -1 if there are no lanes left; not during
 * sim_run. sim_schedule_lane_at schedules at t_ps >= now, not before the
 * lane's previous event. */
int sim_lane_abs(sim *s, sim_cb cb, void *ctx);
void sim_schedule_lane_at(sim *s, int lane, int64_t t_ps, uint32_t arg);
/* Calendar lanes: a model with many events of one callback pending at
 * scattered times a short way ahead (a workload's next arrival, one per
 * node) may give (cb, ctx) a calendar lane; its events fire exactly when
 * and in the order they would through sim_schedule_at, ties with every
 * other event included, for an insertion into a ring of time buckets
 * instead of a sift through a heap that holds them all (event_queue.h,
 * evq_cal). Buckets are width_ps rounded down to a power of two wide and
 * hold one time each: an event more than about span_ps after now, or in a
 * bucket of another time, goes to the heap (the same order), so the lane
 * pays when events come at times closer than width_ps apart. sim_lane_cal returns the lane (the same one for the same cb and
 * ctx), or -1 if there are no lanes left or the run has started (then use
 * sim_schedule_at). sim_schedule_cal_at schedules at t_ps >= now, in any
 * order (32-bit argument, no cancelling). */
int sim_lane_cal(sim *s, sim_cb cb, void *ctx, int64_t width_ps, int64_t span_ps);
void sim_schedule_cal_at(sim *s, int lane, int64_t t_ps, uint32_t arg);
/* Lookahead: a lane's events are known in firing order before they fire,
 * so the engine can tell its model which ones come soon. With a prefetcher
 * of `stages` stages set, each time the lane's head event fires the engine
 * first calls pf(ctx, arg, k), for k = 0 .. stages - 1, with the argument
 * of the event (stages - k) x ahead places behind it in the lane (if the
 * lane holds one): stage 0 sees an event first, the last stage last, so a
 * model can fetch a record at stage 0 and, at a later stage, what the
 * record points to (a packet at 65,536 ports is a cache miss by the time
 * it fires, and so is the port it goes to). A hint only: pf must change
 * nothing but timing. ahead >= 1, 1 <= stages <= 4; not during sim_run. */
typedef void (*sim_lane_pf)(void *ctx, uint32_t arg, unsigned stage);
/* Set a prefetcher only for state beyond this many bytes: a fabric whose
 * tables stay in the caches pays the calls for nothing (spinet-load, 64
 * ports: 4% of its cycles in pf_retry). */
#define SIM_LOOKAHEAD_MIN_BYTES ((size_t)1 << 20)
void sim_lane_prefetch(sim *s, int lane, sim_lane_pf pf, unsigned ahead, unsigned stages);
/* Batches: a callback that does the work of 1 + k events of its own
 * (same time, consecutive in the queue's order, so that nothing else could
 * fire between them: a fabric's same-time deliveries scheduled back to
 * back) counts the k more, so sim_events_executed and sim_run's return are
 * those of the unbatched events (runs.csv's events). The batch is one
 * event to sim_pending. */
void sim_count_events(sim *s, uint64_t k);
/* Cancel a pending event; returns false if it already fired, was cancelled or id is unknown. */
bool sim_cancel(sim *s, sim_event_id id);

/* Run events in time order while their time <= until_ps and sim_stop was
 * not called. Returns the number of events executed by this call. After the
 * call, now = time of the last executed event (never advanced past it). */
uint64_t sim_run(sim *s, int64_t until_ps);
/* Ask sim_run to return after the current callback (async-signal-safe);
 * asked between calls, the next sim_run returns at once. */
void sim_stop(sim *s);

#endif
