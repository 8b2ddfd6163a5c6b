#include "event_queue.h"

#include <stdlib.h>

#include "log.h"

#define EVQ_INITIAL_CAP 64

void evq_init(evq *q)
{
    q->heap = NULL;
    q->len = 0;
    q->cap = 0;
    q->seq = 0;
    q->wide = 0;
    q->hole = 0;
}

void evq_free(evq *q)
{
    free(q->heap);
    evq_init(q);
}

static void evq_grow(evq *q)
{
    size_t cap = q->cap ? 2 * q->cap : EVQ_INITIAL_CAP;
    q->heap = tn_xrealloc(q->heap, (cap + EVQ_PAD) * sizeof *q->heap);
    for (size_t i = q->len; i < cap + EVQ_PAD; i++)
        q->heap[i] = EVQ_KEY_MAX;
    q->cap = cap;
}

static int key_cmp(const void *a, const void *b)
{
    evq_key x = *(const evq_key *)a, y = *(const evq_key *)b;
    return (x > y) - (x < y);
}

void evq_renumber(evq *q)
{
    TN_ASSERT(q->len < UINT32_MAX, "%zu queued events", q->len);
    /* A sorted array is a heap of any arity: sort, then number in that
     * order, which is the order the keys had. */
    qsort(q->heap, q->len, sizeof *q->heap, key_cmp);
    for (size_t i = 0; i < q->len; i++) {
        evq_key k = q->heap[i];
        q->heap[i] = evq_make_key(evq_key_time(k), (uint32_t)i, evq_key_slot(k));
    }
    q->seq = (uint32_t)q->len;
}

/* Sifts h[i] down a heap of n keys with 2 << wide children per node
 * (branches: only for rebuilding, off the hot path). */
static void sift_down_any(evq_key *h, size_t n, size_t i, unsigned wide)
{
    size_t arity = (size_t)2 << wide;
    evq_key x = h[i];
    for (;;) {
        size_t c = arity * i + 1, best = c;
        if (c >= n)
            break;
        for (size_t k = c + 1; k < c + arity && k < n; k++)
            if (h[k] < h[best])
                best = k;
        if (!(h[best] < x))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = x;
}

/* Rebuilds the heap in the other layout (Floyd's bottom-up heap
 * construction, O(n)). */
static void evq_relayout(evq *q, unsigned wide)
{
    q->wide = wide;
    size_t n = q->len, arity = (size_t)2 << wide;
    if (n < 2)
        return;
    for (size_t i = (n - 2) / arity + 1; i-- > 0;)
        sift_down_any(q->heap, n, i, wide);
}

void evq_push_slow(evq *q)
{
    if (q->len == q->cap)
        evq_grow(q);
    if (q->seq == UINT32_MAX)
        evq_renumber(q);
    if (q->len == EVQ_WIDE_ON && !q->wide)
        evq_relayout(q, 1);
}

/* Index (0..3) of the smallest of four adjacent keys, with branches: in a
 * heap too big for the cache a predicted branch lets the CPU start the next
 * level's misses early, which conditional moves would serialise. */
static inline size_t min4_branchy(const evq_key *p)
{
    size_t best = 0;
    for (size_t k = 1; k < 4; k++)
        if (p[k] < p[best])
            best = k;
    return best;
}

evq_key evq_pop_wide(evq *q)
{
    evq_key *h = q->heap;
    evq_key top = h[0];
    size_t n = --q->len;
    evq_key last = h[n];
    h[n] = EVQ_KEY_MAX; /* padding: every group of four children is complete */
    /* Not Floyd's bottom-up variant: in a simulation the last entry is a
     * typical, not a maximal, key, so it settles midway and the deepest
     * (cache-missing) levels are skipped; bottom-up measured 740 vs 470 ns
     * per hold event at 10^6. */
    size_t i = 0, c;
    while ((c = 4 * i + 1) < n) {
        c += min4_branchy(&h[c]);
        if (!(h[c] < last))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last; /* n >= EVQ_WIDE_OFF > 0 */
    if (n == EVQ_WIDE_OFF)
        evq_relayout(q, 0);
    return top;
}
