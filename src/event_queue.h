/* Priority queue of pending events: a min-heap of 16-byte keys ordered by
 * (time, seq). seq is the insertion sequence number the queue hands out
 * itself, so events at equal times pop in the order they were pushed
 * (deterministic FIFO tie-break). The payload (the engine's slot index)
 * rides in the key's low bits and never decides the order, because seq is
 * unique among queued keys.
 *
 * The layout follows the size, chosen by measurement (bench/bench_engine,
 * hold model; callgrind on fig9, whose queue holds about 140 events):
 * - up to EVQ_WIDE_ON entries, a binary heap sifted with conditional moves:
 *   in cache the fewest instructions per level win (57 vs 70-75 ns per
 *   hold event at 128 pending for 4-ary layouts, 69 vs 88 at 1000);
 * - beyond, a 4-ary heap sifted with branches: four children share a cache
 *   line, so half the levels means half the cache misses, and a predicted
 *   branch starts the next level's misses early (396 vs 473 ns at 10^6).
 * Switching rebuilds the heap in O(n) (the pop order does not depend on the
 * layout); EVQ_WIDE_OFF < EVQ_WIDE_ON so a queue hovering at the border
 * does not rebuild on every event.
 *
 * Push and the in-cache pop are inline: the engine calls them once per
 * event. Only the engine (src/sim.c) and the tests use this header.
 *
 * Deferred pop (evq_take_top, evq_settle): the engine takes the minimum
 * but leaves it at the root, a hole, while its callback runs; the
 * callback's first push then fills the root and sifts down from there
 * (one sift instead of the pop's sift-down of the last leaf plus the
 * push's sift-up). A callback that schedules nothing pays the ordinary pop
 * afterwards (evq_settle). Most callbacks schedule one event, often a
 * near one (SPINet's NACK 45 ns ahead, a port's next departure) that
 * settles near the root. The order of the pops is that of the keys, unique
 * by seq, whatever the heap's shape, so nothing else changes. Measured by
 * callgrind, --replicas 1: see the commit that added it. Binary layout
 * only; a 4-ary heap pops at once. */
#ifndef TASKNET_EVENT_QUEUE_H
#define TASKNET_EVENT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"

/* One heap key: bits 127..64 the time with its sign bit flipped (signed
 * order as unsigned order), 63..32 seq, 31..0 the slot. Comparing two keys
 * is one 128-bit unsigned comparison (cmp + sbb, no branch). */
__extension__ typedef unsigned __int128 evq_key;

#define EVQ_WIDE_ON (1u << 15)  /* a heap grown past this many entries turns 4-ary */
#define EVQ_WIDE_OFF (1u << 13) /* a 4-ary heap shrunk to this many entries turns binary */
#define EVQ_PAD 4               /* keys past the end held at EVQ_KEY_MAX (see evq_pop) */
#define EVQ_KEY_MAX (~(evq_key)0)

typedef struct evq_entry {
    int64_t time_ps; /* firing time */
    uint32_t seq;    /* insertion order (relative: see evq_renumber) */
    uint32_t slot;   /* engine's event slot index */
} evq_entry;

typedef struct evq {
    evq_key *heap; /* heap[0] is the minimum; heap[len .. cap + EVQ_PAD) hold EVQ_KEY_MAX */
    size_t len;    /* entries in the heap */
    size_t cap;    /* usable entries (EVQ_PAD more are allocated) */
    uint32_t seq;  /* next insertion sequence number */
    unsigned wide; /* 0: binary layout, 1: 4-ary; log2(arity) - 1 */
    unsigned hole; /* 1: heap[0] was taken (evq_take_top) and awaits a push or evq_settle */
} evq;

void evq_init(evq *q);
void evq_free(evq *q);
/* Renumbers the queued entries 0..len-1 keeping their order, so seq can
 * restart at len. evq_push calls it when seq would wrap (after 2^32 - 1
 * pushes: only the relative order of queued entries matters). */
void evq_renumber(evq *q);
/* Out-of-line parts of push and pop (growth, renumbering, layout changes
 * and the 4-ary pop); call evq_push and evq_pop instead. */
void evq_push_slow(evq *q);
evq_key evq_pop_wide(evq *q);

static inline evq_key evq_make_key(int64_t time_ps, uint32_t seq, uint32_t slot)
{
    return ((evq_key)((uint64_t)time_ps ^ (UINT64_C(1) << 63)) << 64) | ((evq_key)seq << 32) | slot;
}
static inline int64_t evq_key_time(evq_key k)
{
    return (int64_t)((uint64_t)(k >> 64) ^ (UINT64_C(1) << 63));
}
static inline uint32_t evq_key_seq(evq_key k) { return (uint32_t)(k >> 32); }
static inline uint32_t evq_key_slot(evq_key k) { return (uint32_t)k; }

static inline size_t evq_len(const evq *q) { return q->len; }
/* The minimum's key; the queue must not be empty. */
static inline evq_key evq_top(const evq *q) { return q->heap[0]; }

/* Sifts x down from the root of a binary heap of n keys (h[n] and the
 * padding after it hold EVQ_KEY_MAX, so a node's second child always
 * exists). */
static inline void evq_sift_root(evq_key *h, size_t n, evq_key x)
{
    size_t i = 0, c;
    while ((c = 2 * i + 1) < n) {
        /* Which child is smaller, as a 0/1 value rather than a branch:
         * heap keys are random, so a branch would mispredict half the time. */
        c += (size_t)(h[c + 1] < h[c]);
        if (!(h[c] < x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/* Removes the root, taken by evq_take_top (binary layout). */
static inline void evq_settle_slow(evq *q)
{
    evq_key *h = q->heap;
    size_t n = --q->len;
    evq_key last = h[n];
    h[n] = EVQ_KEY_MAX;
    q->hole = 0;
    /* With n = 0 the root is padding now and stays so. */
    if (n > 0)
        evq_sift_root(h, n, last);
}

/* Ends a deferred pop: removes the taken minimum unless a push replaced it. */
static inline void evq_settle(evq *q)
{
    if (q->hole)
        evq_settle_slow(q);
}

/* Queue `slot` at time_ps, after every entry already queued at the same time. */
static inline void evq_push(evq *q, int64_t time_ps, uint32_t slot)
{
    if (q->hole) {
        if (__builtin_expect(q->seq != UINT32_MAX, 1)) {
            /* the root was taken: the new key replaces it */
            q->hole = 0;
            evq_sift_root(q->heap, q->len, evq_make_key(time_ps, q->seq++, slot));
            return;
        }
        evq_settle_slow(q); /* renumbering needs a whole heap */
    }
    if (__builtin_expect(q->len == q->cap || q->seq == UINT32_MAX || q->len == EVQ_WIDE_ON, 0))
        evq_push_slow(q);
    evq_key e = evq_make_key(time_ps, q->seq++, slot);
    evq_key *h = q->heap;
    unsigned shift = 1 + q->wide; /* parent of i: (i - 1) / arity */
    /* Sift the hole up instead of swapping: one store per level. New
     * events are mostly late ones, so this loop rarely runs long. */
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) >> shift;
        if (!(e < h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

/* Removes and returns the minimum's key; the queue must not be empty. */
static inline evq_key evq_pop_key(evq *q)
{
    TN_ASSERT(q->len > 0 && !q->hole, "evq_pop on an empty queue or during a deferred pop");
    if (q->wide)
        return evq_pop_wide(q);
    /* The former last entry refills the root; its old place becomes
     * padding, so a node's second child always exists (a missing one is
     * EVQ_KEY_MAX and loses) and the loop needs no bounds check on it. */
    evq_key top = q->heap[0];
    evq_settle_slow(q);
    return top;
}

/* The slot of the entry likely to be the minimum once a deferred pop has
 * settled (the smaller child of the taken root; the root in a 4-ary
 * heap), for prefetching; UINT32_MAX if none. */
static inline uint32_t evq_next_slot_hint(const evq *q)
{
    const evq_key *h = q->heap;
    if (!q->hole)
        return q->len ? evq_key_slot(h[0]) : UINT32_MAX;
    if (q->len < 2)
        return UINT32_MAX;
    return evq_key_slot(h[1 + (h[2] < h[1])]); /* h[2] is padding if len is 2 */
}

/* Deferred pop: returns the minimum's key and, in the binary layout, leaves
 * it at the root until the next push replaces it or evq_settle removes it
 * (nothing else may touch the queue meanwhile). The queue must not be
 * empty. */
static inline evq_key evq_take_top(evq *q)
{
    TN_ASSERT(q->len > 0 && !q->hole, "evq_take_top on an empty queue or during a deferred pop");
    if (q->wide)
        return evq_pop_wide(q);
    q->hole = 1;
    return q->heap[0];
}

/* Removes and returns the minimum; the queue must not be empty. */
static inline evq_entry evq_pop(evq *q)
{
    evq_key k = evq_pop_key(q);
    return (evq_entry){.time_ps = evq_key_time(k), .seq = evq_key_seq(k), .slot = evq_key_slot(k)};
}

#endif
