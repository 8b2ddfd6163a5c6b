/* Priority queue of pending events, ordered by (time, seq). seq is the
 * insertion sequence number the queue hands out itself, so events at equal
 * times pop in the order they were pushed (deterministic FIFO tie-break).
 * The payload (the engine's slot index; in a lane, the event's own 32-bit
 * argument) rides in the key's low bits and never decides the order,
 * because seq is unique among queued keys.
 *
 * Two structures, chosen by size:
 * - up to EVQ_LADDER_ON entries, a binary min-heap of 16-byte keys sifted
 *   with conditional moves: in cache the fewest instructions per level win
 *   (fig9 keeps about 140 events pending);
 * - beyond, a ladder queue (after Tang, Goh and Thng, ACM TOMACS 2005) in
 *   front of the same heap. The heap then holds only the near future (keys
 *   whose time is <= hb); later keys sit unsorted in time buckets: a "top"
 *   list for the far future and up to EVQ_MAX_RUNGS rungs of power-of-two
 *   buckets, each rung splitting one bucket of the rung above. When the
 *   heap empties, the next non-empty bucket of the finest rung is sorted
 *   into it (or, holding more than EVQ_BUCKET_MAX keys, split into a finer
 *   rung). A push costs a shift and an append, a pop a pop from a heap of a
 *   few keys. Keys are stored in 64-byte chunks of four, so a bucket is read
 *   a cache line at a time: with one linked node per key (a miss per key,
 *   chased serially) the ladder halved the heap's instructions and D1
 *   misses but gained little wall time.
 * Why: with one pending arrival per node (65k-130k events) each heap pop
 * walked 8-17 levels, a cache miss each (perf: 43.5% of the 65,536-port
 * switch's cycles in the 4-ary pop). Measured against that heap:
 * - hold model (bench/bench_engine, 5M events, ns per event): 72 vs 72 at
 *   10^3 pending (a heap either way), 108 vs 106 at 10^4, 171 vs 211 at
 *   10^5, 340 vs 675 at 10^6; cachegrind at 131,072 pending, 2M events:
 *   997M instructions and 8.9M D1 misses (mostly sequential lines) vs
 *   1,720M and 19.8M (scattered);
 * - the 65,536-port switch (bench/uniform.xml, 16 messages a node):
 *   2,356M instructions and 24.6M D1 misses vs 3,345M and 42.2M, 1.00 vs
 *   1.39 us of CPU per message; the 4-ary fat tree 12.5 vs 16.4.
 * EVQ_LADDER_ON: at 8,192 pending the ladder already takes 601M
 * instructions and 2.9M D1 misses per 1M hold events against the heap's
 * 676M and 4.8M; at 2,048 the heap is in L1/L2 and as cheap.
 * Pop order does not depend on the structure: any key in the heap is
 * earlier than any key in the ladder, and the heap and the bucket sort both
 * order by the full (time, seq) key. The ladder is left (everything back
 * into the heap) when the queue shrinks to EVQ_LADDER_OFF < EVQ_LADDER_ON,
 * so a queue hovering at the border does not switch on every event.
 *
 * Push and the small-queue pop are inline: the engine calls them once per
 * event. Only the engine (src/sim.c) and the tests use this header.
 *
 * Deferred pop (evq_take_top, evq_settle): the engine takes the minimum
 * but leaves it at the root, a hole, while its callback runs; the
 * callback's first push then fills the root and sifts down from there
 * (one sift instead of the pop's sift-down of the last leaf plus the
 * push's sift-up). A callback that schedules nothing pays the ordinary pop
 * afterwards (evq_settle). Most callbacks schedule one event, often a near
 * one (SPINet's NACK 45 ns ahead, a port's next departure) that settles
 * near the root: fig9 -14% instructions, fig11 -6.4% (callgrind, one
 * replica). Heap only: a laddered queue pops at once (its push may refill
 * or rebuild the heap). The order of the pops is that of the keys, unique
 * by seq, whatever the heap's shape, so nothing else changes. */
#ifndef TASKNET_EVENT_QUEUE_H
#define TASKNET_EVENT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"

/* One heap key: bits 127..64 the time with its sign bit flipped (signed
 * order as unsigned order), 63..32 seq, 31..0 the slot. Comparing two keys
 * is one 128-bit unsigned comparison (cmp + sbb, no branch). */
__extension__ typedef unsigned __int128 evq_key;

#define EVQ_LADDER_ON (1u << 12) /* a heap grown past this many entries spills into the ladder */
#define EVQ_LADDER_OFF (1u << 10) /* a laddered queue shrunk to this many entries is a heap again */
#define EVQ_MAX_RUNGS 16          /* deeper splits are not made: the bucket goes to the heap whole */
#define EVQ_PAD 4                 /* keys past the end held at EVQ_KEY_MAX (see evq_pop) */
#define EVQ_KEY_MAX (~(evq_key)0)

typedef struct evq_entry {
    int64_t time_ps; /* firing time */
    uint32_t seq;    /* insertion order (relative: see evq_renumber) */
    uint32_t slot;   /* engine's event slot index */
} evq_entry;

/* Laddered keys are kept in chunks of EVQ_CHUNK keys (one 64-byte cache
 * line), chained into unsorted bucket lists. */
#define EVQ_CHUNK 4

typedef struct evq_bucket {
    uint32_t head; /* first chunk, EVQ_NONE if empty; only it may be part full */
    uint32_t n;    /* keys in the list */
} evq_bucket;

/* A rung: nb buckets of 2^shift time units from start (flipped times);
 * buckets before cur are consumed. Covers up to `last` inclusive. */
typedef struct evq_rung {
    uint64_t start, last;
    evq_bucket *b;
    size_t nb, cur, cap;
    unsigned shift;
} evq_rung;

#define EVQ_NONE UINT32_MAX

/* Lanes: FIFOs beside the heap for keys pushed in nondecreasing (time, seq)
 * order (evq_lane_push). An engine that schedules many events at now + d
 * for a few fixed delays d gives each d a lane: now never decreases and
 * seq increases, so a lane is already sorted by the full key, and the
 * queue's minimum is the least of the heap's root and the lane heads,
 * compared by the same 128-bit key: the pop order is the one a single heap
 * would give, only the cost differs (an append and a scan of the heads
 * instead of a sift through the middle of the heap). SPINet's NACKed
 * tries, nine in ten at saturation, come back after one of S fixed round
 * trips. */
#define EVQ_MAX_LANES 16

/* Calendar lanes (evq_cal_add): a lane whose keys need not come in order,
 * for a model with many events of one callback pending at scattered times
 * a short way ahead (a workload's next arrival, one per node: 64 to 1,024
 * keys that made the heap 6 to 10 levels deep, 200-300 instructions a
 * push, callgrind). The keys sit in a ring of buckets of 2^shift time
 * units each, bucket (flipped time >> shift) & mask, a bucket holding keys
 * of one time only, in the order pushed, which is their seq's; the lane's
 * head is the first key of bucket cur, the least. A key is held only
 * within the ring's reach of now and when its bucket is empty or of its
 * time (evq_cal_push; else the caller pushes it to the heap, the same
 * order): every held key then lies in buckets cur .. cur + mask, so the
 * next bucket after an emptied one is the next non-empty one round the
 * ring (bits). A bucket's keys are a chain of 64-byte chunks of EVQ_CHUNK
 * keys taken from and given back to a free list, most recently freed
 * first, so the few chunks in use stay in the caches (a ring of arrays
 * sized for the reach spread each push over a line of its own). The lane
 * joins the winner tree as any lane does, so the pop order is the single
 * heap's: only the cost differs. */
typedef struct evq_cbucket {
    uint64_t hi;         /* the flipped time of its keys (while n > 0) */
    uint32_t head, tail; /* first and last chunk (while n > 0) */
    uint32_t n;          /* keys */
    uint8_t hpos, tpos;  /* the first key's place in head; the next free place in tail (EVQ_CHUNK: full) */
} evq_cbucket;

typedef struct evq_cal {
    unsigned shift;   /* bucket width, log2 of time units */
    uint32_t mask;    /* buckets - 1 (buckets: a power of two >= 64) */
    uint64_t span;    /* mask << shift: a key less than this after now may be held */
    uint64_t cur;     /* flipped time >> shift of the least key (while n > 0) */
    size_t n;         /* keys held */
    uint64_t *bits;   /* [buckets / 64]: bucket b holds keys */
    evq_cbucket *b;   /* [buckets] */
    evq_key *ck;      /* chunks: chunk c is ck[EVQ_CHUNK * c ...] */
    uint32_t *cnext;  /* chunk links, and the free list's */
    uint32_t nck, ccap, cfree; /* chunks made, allocated; the free list (EVQ_NONE: empty) */
} evq_cal;

typedef struct evq_lane {
    evq_key *buf;       /* ring of cap (a power of two) keys */
    uint32_t cap;       /* allocated keys */
    uint32_t head, tail; /* keys buf[head & (cap - 1)] .. buf[(tail - 1) & (cap - 1)] (free-running) */
    uint64_t last_hi;   /* flipped time of the last key pushed (order check) */
    evq_cal *cal;       /* a calendar lane's buckets (buf unused); NULL: a FIFO lane */
} evq_lane;

typedef struct evq {
    evq_key *heap; /* heap[0] is the minimum; heap[len .. cap + EVQ_PAD) hold EVQ_KEY_MAX */
    size_t len;    /* entries in the heap */
    size_t cap;    /* usable entries (EVQ_PAD more are allocated) */
    size_t limit;  /* a push at this length takes the slow path: cap, or EVQ_LADDER_ON without a ladder */
    uint32_t seq;  /* next insertion sequence number */
    unsigned hole; /* 1: heap[0] was taken (evq_take_top) and awaits a push or evq_settle */
    /* The heap holds the keys whose flipped time is <= hb, the ladder the
     * others; hb = UINT64_MAX: no ladder (the small-queue state). While the
     * ladder holds keys the heap is not empty (refilled when it empties). */
    uint64_t hb;
    size_t far;                      /* entries in the ladder (top + rungs) */
    unsigned nr;                     /* rungs in use; rung[nr - 1] is the finest */
    evq_rung rung[EVQ_MAX_RUNGS];
    evq_bucket top;                  /* keys past rung[0] (all, if nr = 0) */
    uint64_t top_min, top_max;       /* flipped-time range of the top list */
    evq_key *chunk;                  /* chunk pool: chunk c is chunk[EVQ_CHUNK * c ...] */
    uint32_t *chunk_next;            /* list links (and the free list's) */
    uint32_t nchunk, chunk_cap, chunk_free; /* high-water mark, allocated, free list */
    unsigned nlanes;                 /* lanes made (evq_lane_add) */
    unsigned lmin;                   /* lane whose head is least (lhead[lmin] = EVQ_KEY_MAX: none queued) */
    evq_key lmin_key;                /* lhead[lmin] */
    unsigned lleaves;                /* leaves of the winner tree: a power of two >= nlanes (1 if none) */
    uint8_t lwin[2 * EVQ_MAX_LANES]; /* winner tree: lwin[n] is the lane of least head under node n
                                      * (leaves lwin[lleaves + i] = i; lwin[1] = lmin) */
    size_t lanes_len;                /* keys in all lanes */
    evq_key lhead[EVQ_MAX_LANES];    /* each lane's head key, EVQ_KEY_MAX when empty or not made */
    evq_lane lane[EVQ_MAX_LANES];
} evq;

void evq_init(evq *q);
void evq_free(evq *q);
/* Renumbers the queued entries 0..len-1 keeping their order, so seq can
 * restart at len. evq_push calls it when seq would wrap (after 2^32 - 1
 * pushes: only the relative order of queued entries matters). */
void evq_renumber(evq *q);
/* Out-of-line parts of push and pop (growth, renumbering, the ladder);
 * call evq_push and evq_pop instead. */
void evq_push_slow(evq *q, uint64_t hi, uint32_t slot);
evq_key evq_pop_far(evq *q);
/* Makes a lane; returns its index, or -1 if EVQ_MAX_LANES are made. */
int evq_lane_add(evq *q);
void evq_lane_grow(evq *q, unsigned i);
void evq_lane_wrap(evq *q);
/* Makes a calendar lane of buckets 2^shift time units wide reaching at
 * least span units past now (at most 2^16 buckets); its index, or -1 if
 * EVQ_MAX_LANES are made. */
int evq_cal_add(evq *q, unsigned shift, uint64_t span);
uint32_t evq_cal_chunk_new(evq_cal *c); /* a chunk more (the free list is empty) */
/* 0 if the structure's invariants hold, else the number of the first one
 * broken (see event_queue.c); for the tests. */
int evq_check(const evq *q);

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

static inline size_t evq_len(const evq *q) { return q->len + q->far + q->lanes_len; }
/* Whether the heap (and so the ladder) is empty; with lanes, evq_min_key
 * tells whether the whole queue is. */
static inline int evq_empty(const evq *q) { return q->len == 0; }
/* Whether the ladder is in use (for tests and benchmarks). */
static inline int evq_laddered(const evq *q) { return q->hb != UINT64_MAX; }
/* The minimum's key; the queue must not be empty. */
static inline evq_key evq_top(const evq *q) { return q->heap[0]; }

/* Whether queued key k goes before x. With `fresh` (a constant at each
 * call), x was pushed now: its seq is the largest queued (seq only grows;
 * evq_renumber keeps the order), so k is before x iff its time is not after
 * x's, one 64-bit comparison instead of two words' (fig9: 1.3% fewer
 * instructions, most pushes being deferred pops' fills). */
static inline __attribute__((always_inline)) int evq_before(evq_key k, evq_key x, const int fresh)
{
    return fresh ? (uint64_t)(k >> 64) <= (uint64_t)(x >> 64) : k < x;
}

/* Sifts x down from the root of a binary heap of n keys (h[n] and the
 * padding after it hold EVQ_KEY_MAX, so a node's second child always
 * exists); fresh as evq_before. */
static inline __attribute__((always_inline)) void evq_sift_root_by(evq_key *h, size_t n, evq_key x,
                                                                   const int fresh)
{
    size_t i = 0, c;
    while ((c = 2 * i + 1) < n) {
        /* Which child is smaller, as a 0/1 value rather than a branch:
         * heap keys are random, so a branch would mispredict half the time. */
        c += (size_t)(h[c + 1] < h[c]);
        if (!evq_before(h[c], x, fresh))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static inline void evq_sift_root(evq_key *h, size_t n, evq_key x) { evq_sift_root_by(h, n, x, 0); }
/* For a key x pushed now. */
static inline void evq_sift_root_new(evq_key *h, size_t n, evq_key x) { evq_sift_root_by(h, n, x, 1); }

/* Removes the root of the heap (taken by evq_take_top, or popped). */
static inline void evq_settle_slow(evq *q)
{
    evq_key *h = q->heap;
    size_t n = --q->len;
    evq_key last = h[n];
    /* The former last entry refills the root; its old place becomes
     * padding, so a node's second child always exists (a missing one is
     * EVQ_KEY_MAX and loses) and the loop needs no bounds check on it. */
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

/* Heap part of a push: room, seq and layout are checked by the caller;
 * fresh as evq_before (e pushed now). */
static inline __attribute__((always_inline)) void evq_heap_push_by(evq *q, evq_key e, const int fresh)
{
    evq_key *h = q->heap;
    /* Sift the hole up instead of swapping: one store per level. New
     * events are mostly late ones, so this loop rarely runs long. */
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) >> 1;
        if (evq_before(h[parent], e, fresh))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

static inline void evq_heap_push(evq *q, evq_key e) { evq_heap_push_by(q, e, 0); }
/* For a key pushed now. */
static inline void evq_heap_push_new(evq *q, evq_key e) { evq_heap_push_by(q, e, 1); }

/* Queue `slot` at time_ps, after every entry already queued at the same time.
 * Always inline: the engine's schedule calls it once per event (sim.c). */
static inline __attribute__((always_inline)) void evq_push(evq *q, int64_t time_ps, uint32_t slot)
{
    uint64_t hi = (uint64_t)time_ps ^ (UINT64_C(1) << 63);
    if (q->hole) {
        /* a deferred pop (never while laddered: hb is UINT64_MAX) */
        if (__builtin_expect(q->seq != UINT32_MAX, 1)) {
            /* the root was taken: the new key replaces it */
            q->hole = 0;
            evq_sift_root_new(q->heap, q->len, ((evq_key)hi << 64) | ((evq_key)q->seq++ << 32) | slot);
            return;
        }
        evq_settle_slow(q); /* renumbering needs a whole heap */
    }
    if (__builtin_expect(hi > q->hb || q->len == q->limit || q->seq == UINT32_MAX, 0)) {
        evq_push_slow(q, hi, slot);
        return;
    }
    evq_heap_push_new(q, ((evq_key)hi << 64) | ((evq_key)q->seq++ << 32) | slot);
}

/* Heap part of a pop; the heap must not be empty. */
static inline evq_key evq_heap_pop(evq *q)
{
    evq_key top = q->heap[0];
    evq_settle_slow(q);
    return top;
}

/* Removes and returns the minimum's key; the queue must not be empty. */
static inline evq_key evq_pop_key(evq *q)
{
    TN_ASSERT(q->len > 0 && !q->hole, "evq_pop on an empty queue or during a deferred pop");
    if (__builtin_expect(q->far != 0, 0))
        return evq_pop_far(q);
    return evq_heap_pop(q);
}

/* Deferred pop: returns the minimum's key and, in a queue without a ladder,
 * leaves it at the root until the next push replaces it or evq_settle
 * removes it (nothing else may touch the queue meanwhile). The queue must
 * not be empty. */
static inline evq_key evq_take_top(evq *q)
{
    TN_ASSERT(q->len > 0 && !q->hole, "evq_take_top on an empty queue or during a deferred pop");
    if (__builtin_expect(evq_laddered(q), 0))
        return evq_pop_key(q);
    q->hole = 1;
    return q->heap[0];
}

/* Removes and returns the minimum; the queue must not be empty. */
static inline evq_entry evq_pop(evq *q)
{
    evq_key k = evq_pop_key(q);
    return (evq_entry){.time_ps = evq_key_time(k), .seq = evq_key_seq(k), .slot = evq_key_slot(k)};
}

/* The least key of the heap and the lanes, EVQ_KEY_MAX if the queue is
 * empty (no key is EVQ_KEY_MAX: seq UINT32_MAX is never handed out). Not
 * during a deferred pop. */
static inline evq_key evq_min_key(const evq *q)
{
    evq_key h = q->heap[0], l = q->lmin_key; /* heap[0] is padding when the heap is empty */
    return l < h ? l : h;
}

/* Lane i's head changed: replays its matches up the winner tree (log2 of
 * the lanes, rounded up, comparisons; a scan of every head cost three
 * times as many instructions with 8 lanes). */
static inline void evq_lane_update(evq *q, unsigned i)
{
    unsigned cur = i, n = q->lleaves + i;
    evq_key ck = q->lhead[i];
    if (n > 1) { /* (one lane: no match) */
        if (q->lleaves == 2) {
            /* two lanes (a fabric's and a workload's calendar: the
             * input-queued and output-queued tori's benches): the one
             * match without the loop (8x8 input-queued bench: 2 updates a
             * packet, -12 instructions each, callgrind) */
            unsigned c = q->lhead[1] < q->lhead[0];
            q->lwin[1] = (uint8_t)c;
            q->lmin = c;
            q->lmin_key = q->lhead[c];
            return;
        }
        /* the leaves' match: lane i's sibling leaf is lane i ^ 1, not read
         * from lwin (which pays for the test above with more lanes) */
        unsigned s = i ^ 1;
        evq_key sk = q->lhead[s];
        int c = sk < ck;
        cur = c ? s : cur;
        ck = c ? sk : ck;
        n >>= 1;
        q->lwin[n] = (uint8_t)cur;
        for (; n > 1; n >>= 1) {
            s = q->lwin[n ^ 1];
            sk = q->lhead[s];
            /* equal keys only when both are EVQ_KEY_MAX: either lane is right */
            c = sk < ck;
            cur = c ? s : cur;
            ck = c ? sk : ck;
            q->lwin[n >> 1] = (uint8_t)cur;
        }
    }
    q->lmin = cur;
    q->lmin_key = ck;
}

/* Rebuilds the winner tree from the heads. */
static inline void evq_lane_rescan(evq *q)
{
    for (unsigned i = 0; i < q->lleaves; i++)
        q->lwin[q->lleaves + i] = (uint8_t)i;
    for (unsigned n = q->lleaves; n-- > 1;) {
        unsigned a = q->lwin[2 * n], b = q->lwin[2 * n + 1];
        q->lwin[n] = (uint8_t)(q->lhead[b] < q->lhead[a] ? b : a);
    }
    q->lmin = q->lwin[1];
    q->lmin_key = q->lhead[q->lmin];
}

/* Queue `slot` in lane i at time_ps, which must not be earlier than the
 * lane's previous key: after every entry already queued at the same time.
 * Always inline: with two callers in sim.c (sim_schedule_lane and
 * sim_schedule_lane_at) GCC 12 -O2 made it a function of its own, +0.9 %
 * instructions on the output-queued torus (oq.xml, callgrind). */
static inline __attribute__((always_inline)) void evq_lane_push(evq *q, unsigned i, int64_t time_ps, uint32_t slot)
{
    uint64_t hi = (uint64_t)time_ps ^ (UINT64_C(1) << 63);
    evq_lane *l = &q->lane[i];
    TN_ASSERT(i < q->nlanes && hi >= l->last_hi, "lane %u: time %lld before its last key", i, (long long)time_ps);
    if (__builtin_expect(q->seq == UINT32_MAX, 0))
        evq_lane_wrap(q);
    if (__builtin_expect(l->tail - l->head == l->cap, 0))
        evq_lane_grow(q, i);
    evq_key k = ((evq_key)hi << 64) | ((evq_key)q->seq++ << 32) | slot;
    l->last_hi = hi;
    l->buf[l->tail++ & (l->cap - 1)] = k;
    q->lanes_len++;
    if (l->tail - l->head == 1) {
        q->lhead[i] = k;
        evq_lane_update(q, i);
    }
}

/* Removes and returns the least lane head; it must be the queue's minimum
 * (lhead[lmin] < heap[0]). */
static inline evq_key evq_lane_pop(evq *q)
{
    unsigned i = q->lmin;
    evq_lane *l = &q->lane[i];
    evq_key k = q->lhead[i];
    l->head++;
    q->lanes_len--;
    q->lhead[i] = l->head != l->tail ? l->buf[l->head & (l->cap - 1)] : EVQ_KEY_MAX;
    evq_lane_update(q, i);
    return k;
}

static inline uint32_t evq_cal_chunk(evq_cal *c)
{
    uint32_t ch = c->cfree;
    if (__builtin_expect(ch == EVQ_NONE, 0))
        return evq_cal_chunk_new(c);
    c->cfree = c->cnext[ch];
    return ch;
}

/* Queue `slot` in calendar lane i at time_ps >= now_ps, after every entry
 * already queued at the same time, and return 1; or return 0 and queue
 * nothing when the ring does not hold it (beyond its reach, or its bucket
 * holds another time): push it to the heap then. */
static inline __attribute__((always_inline)) int evq_cal_push(evq *q, unsigned i, int64_t time_ps, int64_t now_ps,
                                                              uint32_t slot)
{
    evq_cal *c = q->lane[i].cal;
    if ((uint64_t)(time_ps - now_ps) >= c->span)
        return 0;
    uint64_t hi = (uint64_t)time_ps ^ (UINT64_C(1) << 63);
    uint64_t a = hi >> c->shift;
    uint32_t bi = (uint32_t)a & c->mask;
    evq_cbucket *b = &c->b[bi];
    if (b->n && b->hi != hi)
        return 0;
    if (__builtin_expect(q->seq == UINT32_MAX, 0))
        evq_lane_wrap(q);
    evq_key k = ((evq_key)hi << 64) | ((evq_key)q->seq++ << 32) | slot;
    if (!b->n) {
        uint32_t ch = evq_cal_chunk(c);
        b->hi = hi;
        b->head = b->tail = ch;
        b->hpos = b->tpos = 0;
        c->bits[bi >> 6] |= UINT64_C(1) << (bi & 63);
    } else if (b->tpos == EVQ_CHUNK) {
        uint32_t ch = evq_cal_chunk(c);
        c->cnext[b->tail] = ch;
        b->tail = ch;
        b->tpos = 0;
    }
    c->ck[(size_t)b->tail * EVQ_CHUNK + b->tpos++] = k;
    b->n++;
    c->n++;
    q->lanes_len++;
    if (k < q->lhead[i]) { /* the least (EVQ_KEY_MAX: the lane was empty) */
        c->cur = a;
        q->lhead[i] = k;
        evq_lane_update(q, i);
    }
    return 1;
}

/* Removes and returns calendar lane lmin's head; it must be the queue's
 * minimum (as evq_lane_pop). */
static inline evq_key evq_cal_pop(evq *q)
{
    unsigned i = q->lmin;
    evq_cal *c = q->lane[i].cal;
    evq_key k = q->lhead[i];
    uint32_t bi = (uint32_t)c->cur & c->mask;
    evq_cbucket *b = &c->b[bi];
    b->hpos++;
    b->n--;
    c->n--;
    q->lanes_len--;
    if (!b->n) {
        c->cnext[b->head] = c->cfree;
        c->cfree = b->head;
        c->bits[bi >> 6] &= ~(UINT64_C(1) << (bi & 63));
        if (!c->n) {
            q->lhead[i] = EVQ_KEY_MAX;
            evq_lane_update(q, i);
            return k;
        }
        /* the next non-empty bucket round the ring (one exists: n > 0) */
        uint32_t nw = (c->mask >> 6) + 1, w = bi >> 6;
        uint64_t x = c->bits[w] & (~UINT64_C(0) << (bi & 63)); /* (bit bi is clear; the bits below it are
                                                                  * read when the scan comes round) */
        while (!x) {
            w = w + 1 == nw ? 0 : w + 1;
            x = c->bits[w];
        }
        uint32_t nb = (w << 6) + (uint32_t)__builtin_ctzll(x);
        c->cur += (nb - bi) & c->mask;
        b = &c->b[nb];
    } else if (b->hpos == EVQ_CHUNK) {
        uint32_t ch = b->head;
        b->head = c->cnext[ch];
        b->hpos = 0;
        c->cnext[ch] = c->cfree;
        c->cfree = ch;
    }
    q->lhead[i] = c->ck[(size_t)b->head * EVQ_CHUNK + b->hpos];
    evq_lane_update(q, i);
    return k;
}

/* Removes and returns the minimum of heap and lanes; the queue must not be
 * empty. */
static inline evq_key evq_pop_any(evq *q)
{
    if (q->lmin_key < q->heap[0])
        return q->lane[q->lmin].cal ? evq_cal_pop(q) : evq_lane_pop(q);
    return evq_pop_key(q);
}

#endif
