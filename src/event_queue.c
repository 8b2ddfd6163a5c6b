#include "event_queue.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

#define EVQ_INITIAL_CAP 64
#define EVQ_BUCKET_MAX 48 /* a bucket with more keys is split into a finer rung, not heaped */
#define EVQ_PER_BUCKET 4  /* keys per bucket aimed at when a rung is made */

void evq_init(evq *q)
{
    memset(q, 0, sizeof *q);
    q->hb = UINT64_MAX;
    q->top.head = EVQ_NONE;
    q->chunk_free = EVQ_NONE;
    for (unsigned i = 0; i < EVQ_MAX_LANES; i++)
        q->lhead[i] = EVQ_KEY_MAX;
    q->lleaves = 1;
    q->lmin_key = EVQ_KEY_MAX;
}

static void cal_free(evq_cal *c)
{
    if (!c)
        return;
    free(c->ck);
    free(c->cnext);
    free(c->b);
    free(c->bits);
    free(c);
}

void evq_free(evq *q)
{
    for (unsigned i = 0; i < q->nlanes; i++) {
        free(q->lane[i].buf);
        cal_free(q->lane[i].cal);
    }
    free(q->heap);
    free(q->chunk);
    free(q->chunk_next);
    for (unsigned r = 0; r < EVQ_MAX_RUNGS; r++)
        free(q->rung[r].b);
    evq_init(q);
}

/* Where evq_push leaves its fast path (see evq.limit). */
static void set_limit(evq *q)
{
    q->limit = evq_laddered(q) || q->cap < EVQ_LADDER_ON ? q->cap : EVQ_LADDER_ON;
}

/* Room for `need` heap entries, the padding kept at EVQ_KEY_MAX. */
static void heap_reserve(evq *q, size_t need)
{
    if (need <= q->cap)
        return;
    size_t cap = q->cap ? 2 * q->cap : EVQ_INITIAL_CAP;
    while (cap < need)
        cap *= 2;
    q->heap = tn_xrealloc(q->heap, (cap + EVQ_PAD) * sizeof *q->heap);
    for (size_t i = q->cap; i < cap + EVQ_PAD; i++)
        q->heap[i] = EVQ_KEY_MAX;
    q->cap = cap;
    set_limit(q);
}

static int key_cmp(const void *a, const void *b)
{
    evq_key x = *(const evq_key *)a, y = *(const evq_key *)b;
    return (x > y) - (x < y);
}

/* Sorts h[0..n) (a sorted array is a heap). */
static void sort_keys(evq_key *h, size_t n)
{
    if (n > 32) {
        qsort(h, n, sizeof *h, key_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        evq_key x = h[i];
        size_t j = i;
        for (; j > 0 && x < h[j - 1]; j--)
            h[j] = h[j - 1];
        h[j] = x;
    }
}

static uint32_t chunk_alloc(evq *q)
{
    uint32_t c = q->chunk_free;
    if (c != EVQ_NONE) {
        q->chunk_free = q->chunk_next[c];
        return c;
    }
    if (q->nchunk == q->chunk_cap) {
        TN_ASSERT(q->chunk_cap < EVQ_NONE / 2, "more than 2^31 chunks of laddered events");
        uint32_t cap = q->chunk_cap ? 2 * q->chunk_cap : 256;
        /* line-aligned, so that a chunk is one cache line */
        void *mem = NULL;
        TN_ASSERT(posix_memalign(&mem, 64, (size_t)cap * EVQ_CHUNK * sizeof(evq_key)) == 0,
                  "out of memory (%u chunks)", cap);
        if (q->nchunk)
            memcpy(mem, q->chunk, (size_t)q->nchunk * EVQ_CHUNK * sizeof(evq_key));
        free(q->chunk);
        q->chunk = mem;
        q->chunk_next = tn_xrealloc(q->chunk_next, (size_t)cap * sizeof *q->chunk_next);
        q->chunk_cap = cap;
    }
    return q->nchunk++;
}

/* Adds a key to a bucket list: into its head chunk, or a new head chunk if
 * that one is full. */
static inline void bucket_add(evq *q, evq_bucket *b, evq_key k)
{
    if (b->n % EVQ_CHUNK == 0) {
        uint32_t c = chunk_alloc(q);
        q->chunk_next[c] = b->head;
        b->head = c;
    }
    q->chunk[(size_t)b->head * EVQ_CHUNK + b->n % EVQ_CHUNK] = k;
    b->n++;
}

/* Calls `body` with `k` set to each key of bucket list `b` (head chunk
 * first, then the full ones); `c` and `m` are scratch. */
#define BUCKET_FOREACH(q, b, k, body)                                                                  \
    do {                                                                                               \
        uint32_t fe_c = (b).head, fe_m = (b).n ? ((b).n - 1) % EVQ_CHUNK + 1 : 0;                      \
        for (; fe_c != EVQ_NONE; fe_c = (q)->chunk_next[fe_c], fe_m = EVQ_CHUNK)                       \
            for (uint32_t fe_j = 0; fe_j < fe_m; fe_j++) {                                             \
                evq_key k = (q)->chunk[(size_t)fe_c * EVQ_CHUNK + fe_j];                               \
                body;                                                                                  \
            }                                                                                          \
    } while (0)

/* Returns a bucket list's chunks to the free list. */
static void bucket_release(evq *q, evq_bucket b)
{
    uint32_t c = b.head;
    while (c != EVQ_NONE) {
        uint32_t next = q->chunk_next[c];
        q->chunk_next[c] = q->chunk_free;
        q->chunk_free = c;
        c = next;
    }
}

/* Adds a key to the ladder: the finest rung that covers its time, else top. */
static void ladder_insert(evq *q, uint64_t hi, uint64_t lo)
{
    evq_key k = ((evq_key)hi << 64) | lo;
    q->far++;
    for (unsigned r = q->nr; r-- > 0;) {
        evq_rung *g = &q->rung[r];
        if (hi <= g->last) {
            bucket_add(q, &g->b[(hi - g->start) >> g->shift], k);
            return;
        }
    }
    if (q->top.n == 0)
        q->top_min = q->top_max = hi;
    else if (hi < q->top_min)
        q->top_min = hi;
    else if (hi > q->top_max)
        q->top_max = hi;
    bucket_add(q, &q->top, k);
}

/* Makes rung q->nr over [start, last] with buckets of 2^shift, and pours
 * the bucket list `from` into it. */
static void rung_make(evq *q, uint64_t start, uint64_t last, unsigned shift, evq_bucket from)
{
    evq_rung *g = &q->rung[q->nr++];
    size_t nb = (size_t)((last - start) >> shift) + 1;
    if (nb > g->cap) {
        free(g->b);
        g->b = tn_xrealloc(NULL, nb * sizeof *g->b);
        g->cap = nb;
    }
    for (size_t k = 0; k < nb; k++)
        g->b[k] = (evq_bucket){.head = EVQ_NONE, .n = 0};
    g->start = start;
    g->last = last;
    g->shift = shift;
    g->nb = nb;
    g->cur = 0;
    BUCKET_FOREACH(q, from, k, bucket_add(q, &g->b[((uint64_t)(k >> 64) - start) >> shift], k));
    bucket_release(q, from);
}

/* Bucket width (log2) so that about `want` buckets span `range` + 1. */
static unsigned width_shift(uint64_t range, uint64_t want)
{
    uint64_t w = range / (want ? want : 1);
    unsigned s = w ? 64 - (unsigned)__builtin_clzll(w) : 0; /* 2^s > w */
    return s > 63 ? 63 : s;
}

/* Last time covered by nb = (range >> s) + 1 buckets of 2^s from start,
 * saturated at the end of time. */
static uint64_t span_last(uint64_t start, uint64_t range, unsigned s)
{
    __extension__ unsigned __int128 end = (unsigned __int128)start + ((((unsigned __int128)(range >> s)) + 1) << s) - 1;
    return end > UINT64_MAX ? UINT64_MAX : (uint64_t)end;
}

static void ladder_drain(evq *q);

/* The heap is empty and the ladder is not: moves the ladder's earliest
 * bucket into the heap (splitting crowded buckets into finer rungs first)
 * and sets hb to that bucket's end. */
static void refill(evq *q)
{
    TN_ASSERT(q->len == 0 && q->far > 0, "refill with %zu in the heap, %zu laddered", q->len, q->far);
    for (;;) {
        if (q->nr == 0) {
            /* Everything is in top: it becomes rung 0, about EVQ_PER_BUCKET keys a bucket. */
            uint64_t range = q->top_max - q->top_min;
            unsigned s = width_shift(range, q->top.n / EVQ_PER_BUCKET);
            evq_bucket top = q->top;
            q->top = (evq_bucket){.head = EVQ_NONE, .n = 0};
            rung_make(q, q->top_min, span_last(q->top_min, range, s), s, top);
        }
        evq_rung *g = &q->rung[q->nr - 1];
        while (g->cur < g->nb && g->b[g->cur].n == 0)
            g->cur++;
        if (g->cur == g->nb) {
            q->nr--; /* spent: the rung above resumes where this one ended */
            continue;
        }
        evq_bucket b = g->b[g->cur];
        g->b[g->cur] = (evq_bucket){.head = EVQ_NONE, .n = 0};
        uint64_t lo = g->start + ((uint64_t)g->cur << g->shift);
        uint64_t hi = g->cur + 1 == g->nb ? g->last : lo + ((UINT64_C(1) << g->shift) - 1);
        g->cur++;
        if (b.n > EVQ_BUCKET_MAX && g->shift > 0 && q->nr < EVQ_MAX_RUNGS) {
            unsigned s = width_shift(hi - lo, b.n / EVQ_PER_BUCKET); /* < g->shift */
            rung_make(q, lo, hi, s, b);
            continue;
        }
        heap_reserve(q, b.n);
        size_t n = 0;
        BUCKET_FOREACH(q, b, k, q->heap[n++] = k);
        bucket_release(q, b);
        sort_keys(q->heap, b.n);
        q->len = b.n;
        q->far -= b.n;
        q->hb = hi;
        if (hi == UINT64_MAX) /* the end of time: nothing can be later, so no ladder */
            ladder_drain(q);
        set_limit(q);
        return;
    }
}

/* Appends every laddered key to the heap array, unordered, and leaves the
 * ladder empty (the caller restores the heap order). */
static void ladder_drain(evq *q)
{
    heap_reserve(q, q->len + q->far);
    size_t n = q->len;
    for (unsigned r = 0; r < q->nr; r++) {
        evq_rung *g = &q->rung[r];
        for (size_t b = g->cur; b < g->nb; b++)
            BUCKET_FOREACH(q, g->b[b], k, q->heap[n++] = k);
    }
    BUCKET_FOREACH(q, q->top, k, q->heap[n++] = k);
    TN_ASSERT(n == q->len + q->far, "ladder held %zu keys, counted %zu", n - q->len, q->far);
    q->len = n;
    q->far = 0;
    q->nr = 0;
    q->top = (evq_bucket){.head = EVQ_NONE, .n = 0};
    q->nchunk = 0;
    q->chunk_free = EVQ_NONE;
    q->hb = UINT64_MAX;
    set_limit(q);
}

/* Small queue to ladder: the whole heap goes to top, then the earliest
 * bucket comes back. */
static void ladder_enter(evq *q)
{
    for (size_t k = 0; k < q->len; k++) {
        evq_key x = q->heap[k];
        ladder_insert(q, (uint64_t)(x >> 64), (uint64_t)x);
        q->heap[k] = EVQ_KEY_MAX;
    }
    q->len = 0;
    refill(q);
}

int evq_lane_add(evq *q)
{
    if (q->nlanes == EVQ_MAX_LANES)
        return -1;
    heap_reserve(q, 1); /* evq_min_key reads heap[0] */
    evq_lane *l = &q->lane[q->nlanes];
    memset(l, 0, sizeof *l);
    l->cap = 16;
    l->buf = tn_xrealloc(NULL, l->cap * sizeof *l->buf);
    q->lhead[q->nlanes] = EVQ_KEY_MAX;
    int i = (int)q->nlanes++;
    while (q->lleaves < q->nlanes)
        q->lleaves *= 2;
    evq_lane_rescan(q);
    return i;
}

int evq_cal_add(evq *q, unsigned shift, uint64_t span)
{
    TN_ASSERT(shift < 62, "calendar buckets of 2^%u time units", shift);
    int i = evq_lane_add(q);
    if (i < 0)
        return -1;
    evq_cal *c = tn_xcalloc(1, sizeof *c);
    uint64_t want = (span >> shift) + 2; /* mask << shift >= span */
    uint32_t nb = 64;
    while (nb < want && nb < (UINT32_C(1) << 16))
        nb *= 2;
    c->shift = shift;
    c->mask = nb - 1;
    c->span = (uint64_t)c->mask << shift;
    c->bits = tn_xcalloc(nb / 64, sizeof *c->bits);
    c->b = tn_xcalloc(nb, sizeof *c->b);
    c->cfree = EVQ_NONE;
    q->lane[i].cal = c;
    return i;
}

uint32_t evq_cal_chunk_new(evq_cal *c)
{
    if (c->nck == c->ccap) {
        TN_ASSERT(c->ccap < UINT32_MAX / 4, "%u calendar chunks", c->ccap);
        c->ccap = c->ccap ? 2 * c->ccap : 64;
        c->ck = tn_xrealloc(c->ck, (size_t)c->ccap * EVQ_CHUNK * sizeof *c->ck);
        c->cnext = tn_xrealloc(c->cnext, (size_t)c->ccap * sizeof *c->cnext);
    }
    return c->nck++;
}

/* The place of bucket b's j-th key (j < b->n). */
static evq_key *cal_key_at(const evq_cal *c, const evq_cbucket *b, uint32_t j)
{
    uint32_t ch = b->head, p = b->hpos + j;
    for (; p >= EVQ_CHUNK; p -= EVQ_CHUNK)
        ch = c->cnext[ch];
    return &c->ck[(size_t)ch * EVQ_CHUNK + p];
}

void evq_lane_grow(evq *q, unsigned i)
{
    evq_lane *l = &q->lane[i];
    TN_ASSERT(l->cap < UINT32_MAX / 2 + 1, "lane %u holds %u keys", i, l->cap);
    evq_key *b = tn_xrealloc(NULL, 2 * (size_t)l->cap * sizeof *b);
    uint32_t n = l->tail - l->head;
    for (uint32_t k = 0; k < n; k++)
        b[k] = l->buf[(l->head + k) & (l->cap - 1)];
    free(l->buf);
    l->buf = b;
    l->cap *= 2;
    l->head = 0;
    l->tail = n;
}

/* A key and where it is held. */
typedef struct tagged_key {
    evq_key k;
    evq_key *at;
} tagged_key;

static int tagged_cmp(const void *a, const void *b)
{
    return key_cmp(&((const tagged_key *)a)->k, &((const tagged_key *)b)->k);
}

void evq_renumber(evq *q)
{
    TN_ASSERT(evq_len(q) < UINT32_MAX, "%zu queued events", evq_len(q));
    int laddered = evq_laddered(q);
    ladder_drain(q);
    if (q->lanes_len == 0) {
        /* A sorted array is a heap: sort, then number in that order, which
         * is the order the keys had. */
        qsort(q->heap, q->len, sizeof *q->heap, key_cmp);
        for (size_t i = 0; i < q->len; i++) {
            evq_key k = q->heap[i];
            q->heap[i] = evq_make_key(evq_key_time(k), (uint32_t)i, evq_key_slot(k));
        }
        q->seq = (uint32_t)q->len;
    } else {
        /* Heap and lanes numbered together in the keys' order, each key
         * where it is: the order among any of them is kept, so the heap
         * stays a heap and each lane and bucket sorted (the heap sorted
         * first: the ladder's keys were appended to it unordered). */
        qsort(q->heap, q->len, sizeof *q->heap, key_cmp);
        size_t n = q->len + q->lanes_len, m = 0;
        tagged_key *all = tn_xrealloc(NULL, n * sizeof *all);
        for (size_t i = 0; i < q->len; i++)
            all[m++] = (tagged_key){q->heap[i], &q->heap[i]};
        for (unsigned i = 0; i < q->nlanes; i++) {
            evq_lane *l = &q->lane[i];
            if (l->cal) {
                for (uint32_t b = 0; b <= l->cal->mask; b++)
                    for (uint32_t j = 0; j < l->cal->b[b].n; j++) {
                        evq_key *at = cal_key_at(l->cal, &l->cal->b[b], j);
                        all[m++] = (tagged_key){*at, at};
                    }
                continue;
            }
            for (uint32_t j = l->head; j != l->tail; j++)
                all[m++] = (tagged_key){l->buf[j & (l->cap - 1)], &l->buf[j & (l->cap - 1)]};
        }
        TN_ASSERT(m == n, "renumbering %zu keys of %zu", m, n);
        qsort(all, n, sizeof *all, tagged_cmp);
        for (size_t i = 0; i < n; i++)
            *all[i].at = evq_make_key(evq_key_time(all[i].k), (uint32_t)i, evq_key_slot(all[i].k));
        free(all);
        for (unsigned i = 0; i < q->nlanes; i++) {
            const evq_lane *l = &q->lane[i];
            if (l->cal) {
                const evq_cbucket *bk = &l->cal->b[(uint32_t)l->cal->cur & l->cal->mask];
                q->lhead[i] = l->cal->n ? *cal_key_at(l->cal, bk, 0) : EVQ_KEY_MAX;
            } else
                q->lhead[i] = l->head != l->tail ? l->buf[l->head & (l->cap - 1)] : EVQ_KEY_MAX;
        }
        evq_lane_rescan(q);
        q->seq = (uint32_t)n;
    }
    if (laddered && q->len > EVQ_LADDER_OFF)
        ladder_enter(q);
}

void evq_lane_wrap(evq *q)
{
    if (q->hole)
        evq_settle_slow(q); /* renumbering needs a whole heap */
    evq_renumber(q);
}

void evq_push_slow(evq *q, uint64_t hi, uint32_t slot)
{
    if (q->seq == UINT32_MAX)
        evq_renumber(q);
    if (hi > q->hb) {
        if (q->len > 0) {
            ladder_insert(q, hi, ((uint64_t)q->seq++ << 32) | slot);
            return;
        }
        ladder_drain(q); /* empty: start again as a small queue */
    }
    if (!evq_laddered(q) && q->len >= EVQ_LADDER_ON) {
        ladder_enter(q);
        if (hi > q->hb) {
            ladder_insert(q, hi, ((uint64_t)q->seq++ << 32) | slot);
            return;
        }
    }
    heap_reserve(q, q->len + 1);
    evq_heap_push(q, ((evq_key)hi << 64) | ((evq_key)q->seq++ << 32) | slot);
}

evq_key evq_pop_far(evq *q)
{
    evq_key top = evq_heap_pop(q);
    if (q->len == 0)
        refill(q);
    if (q->len + q->far <= EVQ_LADDER_OFF) {
        /* Back to a plain heap: the ladder's keys are all later than the
         * heap's, so heap-ordering the whole array suffices. */
        size_t n0 = q->len;
        ladder_drain(q);
        size_t n = q->len;
        q->len = n0;
        for (size_t k = n0; k < n; k++)
            evq_heap_push(q, q->heap[k]);
    }
    return top;
}

/* Keys and chunks of a bucket list consistent with its count. */
static int bucket_ok(const evq *q, evq_bucket b)
{
    uint32_t chunks = 0;
    for (uint32_t c = b.head; c != EVQ_NONE; c = q->chunk_next[c])
        if (++chunks > q->nchunk)
            return 0; /* a cycle */
    return chunks == (b.n + EVQ_CHUNK - 1) / EVQ_CHUNK;
}

int evq_check(const evq *q)
{
    for (size_t i = 0; i < q->len; i++) {
        if ((uint64_t)(q->heap[i] >> 64) > q->hb)
            return 1; /* a heap key past the border */
        if (i > 0 && q->heap[i] < q->heap[(i - 1) / 2])
            return 2; /* heap order */
    }
    for (size_t i = q->len; i < q->cap + EVQ_PAD; i++)
        if (q->heap[i] != EVQ_KEY_MAX)
            return 3; /* padding */
    if (q->far > 0 && q->len == 0)
        return 4; /* laddered keys behind an empty heap */
    size_t n = 0;
    uint64_t lo = q->hb; /* each rung, finest first, starts past the one below */
    for (unsigned r = q->nr; r-- > 0;) {
        const evq_rung *g = &q->rung[r];
        if (g->cur < g->nb && g->start + ((uint64_t)g->cur << g->shift) != lo + 1)
            return 5; /* a gap or an overlap between rungs */
        for (size_t b = 0; b < g->nb; b++) {
            int bad = 0;
            if (!bucket_ok(q, g->b[b]))
                return 7; /* chunks and count disagree */
            BUCKET_FOREACH(q, g->b[b], k, {
                uint64_t t = (uint64_t)(k >> 64);
                if (b < g->cur || t < g->start || t > g->last || (t - g->start) >> g->shift != b || t <= q->hb)
                    bad = 1;
            });
            if (bad)
                return 6; /* a key in the wrong bucket (consumed buckets are empty) */
            n += g->b[b].n;
        }
        if (g->cur < g->nb)
            lo = g->last;
    }
    if (!bucket_ok(q, q->top))
        return 7;
    int bad = 0;
    BUCKET_FOREACH(q, q->top, k, {
        uint64_t t = (uint64_t)(k >> 64);
        if (t <= lo || t < q->top_min || t > q->top_max)
            bad = 1;
    });
    if (bad)
        return 8; /* a top key inside a rung, or outside top's range */
    if (n + q->top.n != q->far)
        return 9; /* counts */
    size_t nl = 0;
    for (unsigned i = 0; i < EVQ_MAX_LANES; i++) {
        const evq_lane *l = &q->lane[i];
        if (i >= q->nlanes) {
            if (q->lhead[i] != EVQ_KEY_MAX)
                return 10; /* a head for a lane not made */
            continue;
        }
        if (l->cal) {
            const evq_cal *c = l->cal;
            size_t held = 0, chunks = 0;
            evq_key least = EVQ_KEY_MAX;
            for (uint32_t b = 0; b <= c->mask; b++) {
                const evq_cbucket *bk = &c->b[b];
                if (((c->bits[b >> 6] >> (b & 63)) & 1) != (bk->n > 0))
                    return 18; /* a bucket's bit */
                if (!bk->n)
                    continue;
                if (bk->hpos >= EVQ_CHUNK || bk->tpos > EVQ_CHUNK || bk->hpos + bk->n + (EVQ_CHUNK - bk->tpos) < EVQ_CHUNK ||
                    (bk->hpos + bk->n + (EVQ_CHUNK - bk->tpos)) % EVQ_CHUNK != 0)
                    return 18; /* a chain's places and count disagree */
                chunks += (bk->hpos + bk->n + (EVQ_CHUNK - bk->tpos)) / EVQ_CHUNK;
                if (*cal_key_at(c, bk, bk->n - 1) != c->ck[(size_t)bk->tail * EVQ_CHUNK + bk->tpos - 1])
                    return 18; /* the chain does not end at tail */
                for (uint32_t j = 0; j < bk->n; j++) {
                    evq_key k = *cal_key_at(c, bk, j);
                    uint64_t a = (uint64_t)(k >> 64) >> c->shift;
                    if (j > 0 && !(*cal_key_at(c, bk, j - 1) < k))
                        return 19; /* a bucket out of order */
                    if ((uint64_t)(k >> 64) != bk->hi || (a & c->mask) != b || a - c->cur > c->mask)
                        return 20; /* a key of another time, in the wrong bucket, or out of the ring's reach */
                    least = k < least ? k : least;
                }
                held += bk->n;
            }
            size_t nfree = 0;
            for (uint32_t ch = c->cfree; ch != EVQ_NONE && nfree <= c->nck; ch = c->cnext[ch])
                nfree++;
            if (held != c->n || chunks + nfree != c->nck)
                return 21; /* calendar counts: keys, or chunks in use and free */
            if (q->lhead[i] != least)
                return 14; /* stale head */
            if (q->lhead[i] < q->lhead[q->lmin] || q->lmin_key != q->lhead[q->lmin])
                return 15;
            if (q->lhead[i] != EVQ_KEY_MAX && q->lwin[q->lleaves + i] != i)
                return 17;
            nl += held;
            continue;
        }
        if (l->tail - l->head > l->cap)
            return 11; /* ring overrun */
        for (uint32_t j = l->head; j != l->tail; j++) {
            evq_key k = l->buf[j & (l->cap - 1)];
            if (j != l->head && !(l->buf[(j - 1) & (l->cap - 1)] < k))
                return 12; /* a lane out of order */
            if ((uint64_t)(k >> 64) > l->last_hi)
                return 13; /* a key after the last pushed */
        }
        if (q->lhead[i] != (l->head != l->tail ? l->buf[l->head & (l->cap - 1)] : EVQ_KEY_MAX))
            return 14; /* stale head */
        if (q->lhead[i] < q->lhead[q->lmin] || q->lmin_key != q->lhead[q->lmin])
            return 15; /* lmin is not the least head */
        if (q->lhead[i] != EVQ_KEY_MAX && q->lwin[q->lleaves + i] != i)
            return 17; /* winner tree leaves */
        nl += l->tail - l->head;
    }
    if (nl != q->lanes_len)
        return 16; /* lane count */
    return 0;
}
