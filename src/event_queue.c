#include "event_queue.h"

#include <stdlib.h>

#include "log.h"

/* A 4-ary heap halves the depth of a binary one; the four children of a
 * node are adjacent (4 x 24 bytes, usually two cache lines), so the extra
 * comparisons per level are cheaper than the saved levels' cache misses. */
#define EVQ_ARITY 4
#define EVQ_INITIAL_CAP 64
/* Heap size (entries) from which sifting down switches from conditional
 * moves to branches. Branch-free selection wins while the heap sits in
 * cache (no mispredictions: 63 vs 85 ns per hold event at 10^3 pending);
 * beyond, a predicted branch lets the CPU start the next level's cache
 * misses early, which conditional moves serialise (445 vs 689 ns at 10^6).
 * Measured crossover with bench/bench_engine: about 3 x 10^4 entries. */
#define EVQ_BRANCHY_MIN 32768

/* (time, seq) order as one 128-bit unsigned comparison (cmp + sbb, no
 * branch). Flipping the sign bit maps signed times onto unsigned order. */
__extension__ typedef unsigned __int128 evq_key;

static inline evq_key evq_key_of(const evq_entry *e)
{
    return ((evq_key)((uint64_t)e->time_ps ^ (UINT64_C(1) << 63)) << 64) | e->seq;
}

static inline int evq_less(const evq_entry *a, const evq_entry *b)
{
    return evq_key_of(a) < evq_key_of(b);
}

void evq_init(evq *q)
{
    q->heap = NULL;
    q->len = 0;
    q->cap = 0;
}

void evq_free(evq *q)
{
    free(q->heap);
    evq_init(q);
}

static void evq_grow(evq *q)
{
    size_t cap = q->cap ? 2 * q->cap : EVQ_INITIAL_CAP;
    q->heap = tn_xrealloc(q->heap, cap * sizeof *q->heap);
    q->cap = cap;
}

void evq_push(evq *q, evq_entry e)
{
    if (q->len == q->cap)
        evq_grow(q);
    evq_entry *h = q->heap;
    /* Sift the hole up instead of swapping: one store per level. */
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) / EVQ_ARITY;
        if (!evq_less(&e, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

/* Index (0..3) of the smallest of four adjacent entries. Written with
 * bitwise logic so the compiler emits conditional moves: heap keys are
 * random, so branches here would mispredict about half the time. */
static inline size_t evq_min4(const evq_entry *p)
{
    size_t b01 = (size_t)evq_less(&p[1], &p[0]);
    size_t b23 = 2 + (size_t)evq_less(&p[3], &p[2]);
    size_t take23 = -(size_t)evq_less(&p[b23], &p[b01]); /* all ones or zero; a ?: would branch */
    return b01 ^ ((b01 ^ b23) & take23);
}

/* Same, with branches (see EVQ_BRANCHY_MIN for why both exist). */
static inline int evq_less_branchy(const evq_entry *a, const evq_entry *b)
{
    return a->time_ps < b->time_ps || (a->time_ps == b->time_ps && a->seq < b->seq);
}

static inline size_t evq_min4_branchy(const evq_entry *p)
{
    size_t best = 0;
    for (size_t k = 1; k < EVQ_ARITY; k++)
        if (evq_less_branchy(&p[k], &p[best]))
            best = k;
    return best;
}

/* Moves the hole at the root down along the smallest children until
 * `last` fits; returns where it goes. `branchy` is a constant at each call
 * site, so each inlined copy keeps only one selection method. */
static inline size_t evq_sift_down(evq_entry *h, size_t n, const evq_entry *last, int branchy)
{
    size_t i = 0, c;
    while ((c = EVQ_ARITY * i + 1) < n) {
        size_t best;
        if (c + EVQ_ARITY <= n) {
            best = c + (branchy ? evq_min4_branchy(&h[c]) : evq_min4(&h[c]));
        } else { /* the last, partial group of children */
            best = c;
            for (size_t k = c + 1; k < n; k++)
                if (evq_less(&h[k], &h[best]))
                    best = k;
        }
        if (branchy ? !evq_less_branchy(&h[best], last) : !evq_less(&h[best], last))
            break;
        h[i] = h[best];
        i = best;
    }
    return i;
}

evq_entry evq_pop(evq *q)
{
    TN_ASSERT(q->len > 0, "evq_pop on an empty queue");
    evq_entry *h = q->heap;
    evq_entry top = h[0];
    size_t n = --q->len;
    if (n == 0)
        return top;
    /* The former last entry refills the root. Not Floyd's bottom-up
     * variant: in a simulation the last entry is a typical, not a maximal,
     * key, so it settles midway and the deepest (cache-missing) levels are
     * skipped; bottom-up measured 740 vs 470 ns per hold event at 10^6. */
    evq_entry last = h[n];
    size_t i = n < EVQ_BRANCHY_MIN ? evq_sift_down(h, n, &last, 0) : evq_sift_down(h, n, &last, 1);
    h[i] = last;
    return top;
}
