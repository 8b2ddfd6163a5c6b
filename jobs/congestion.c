/* ORCS congestion metrics on static routes (specs/kernels-patterns.md §3);
 * definitions in congestion.h. */
#include "congestion.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "log.h"

void cong_acc_init(cong_acc *a, uint64_t nlinks)
{
    memset(a, 0, sizeof *a);
    a->nlinks = nlinks;
    a->link_load = tn_xcalloc(nlinks ? nlinks : 1, sizeof *a->link_load);
}

void cong_acc_free(cong_acc *a)
{
    free(a->link_load);
    free(a->hist);
    memset(a, 0, sizeof *a);
}

double cong_bw_fraction_hist(const uint64_t *hist, size_t len)
{
    double share = 0, n = 0;
    for (size_t w = 1; w < len; w++) {
        share += (double)hist[w] / (double)w;
        n += (double)hist[w];
    }
    return n > 0 ? share / n : 1.0;
}

uint64_t cong_acc_link_max(const cong_acc *a)
{
    uint64_t mx = 0;
    for (uint64_t e = 0; e < a->nlinks; e++)
        if (a->link_load[e] > mx)
            mx = a->link_load[e];
    return mx;
}

double cong_acc_link_scaled(const cong_acc *a, uint64_t link)
{
    uint64_t mx = cong_acc_link_max(a);
    return mx ? (double)a->link_load[link] / (double)mx : 0.0;
}

/* Histogram indexed by weight, grown on demand (cap: its allocation). */
static void hist_add(uint64_t **h, size_t *len, size_t *cap, uint64_t w, uint64_t n)
{
    if (w >= *len) {
        size_t nl = (size_t)w + 1;
        if (nl > *cap) {
            size_t nc = *cap ? *cap : 64;
            while (nc < nl)
                nc *= 2;
            *h = tn_xrealloc(*h, nc * sizeof **h);
            memset(*h + *cap, 0, (nc - *cap) * sizeof **h);
            *cap = nc;
        }
        *len = nl;
    }
    (*h)[w] += n;
}

void cong_ws_free(cong_ws *w)
{
    free(w->load);
    free(w->total);
    free(w->total32);
    free(w->mark);
    free(w->links);
    free(w->len);
    free(w->ends);
    free(w->cf);
    free(w->tmp);
    free(w->ready);
    free(w->hist);
    memset(w, 0, sizeof *w);
}

/* Room for `flows` flows of `stride` links (the routes kept as they are:
 * the first `keep` flows laid out at the old stride move to the new one). */
static void ws_room(cong_ws *w, size_t flows, size_t stride, size_t keep)
{
    if (flows > w->flows_cap) {
        w->len = tn_xrealloc(w->len, flows * sizeof *w->len);
        w->ends = tn_xrealloc(w->ends, flows * sizeof *w->ends);
        w->cf = tn_xrealloc(w->cf, flows * sizeof *w->cf);
    }
    size_t old = w->stride;
    if (flows > w->flows_cap || stride > old) {
        size_t fc = flows > w->flows_cap ? flows : w->flows_cap, st = stride > old ? stride : old;
        w->links = tn_xrealloc(w->links, (fc * st + 8) * sizeof *w->links); /* + 8: route_loop reads 8 cells */
        for (size_t f = keep; f-- > 0;) /* backwards: a flow moves up, over none not moved yet */
            memmove(w->links + f * st, w->links + f * old, w->len[f] * sizeof *w->links);
        w->flows_cap = fc;
        w->stride = st;
    }
}

/* A route's check: a link outside the fabric (an id >= nlinks), or a link
 * it crosses twice (a routing loop). 0, or CK_RANGE with *bad the first
 * link outside in path order, or CK_LOOP with *bad the first link met
 * again (range first). Short routes compare pairs; long ones stamp the
 * links (w->mark). */
enum { CK_OK = 0, CK_RANGE = 1, CK_LOOP = 2 };
static uint64_t route_loop_slow(cong_ws *w, const uint32_t *r, uint32_t k);

static __attribute__((noinline)) int route_check_slow(cong_ws *w, const uint32_t *r, uint32_t k, uint64_t nlinks,
                                                      uint64_t *bad)
{
    for (uint32_t j = 0; j < k; j++)
        if (r[j] >= nlinks) {
            *bad = r[j];
            return CK_RANGE;
        }
    uint64_t d = route_loop_slow(w, r, k);
    if (d == UINT64_MAX)
        return CK_OK;
    *bad = d;
    return CK_LOOP;
}

static inline int route_check(cong_ws *w, const uint32_t *r, uint32_t k, uint64_t nlinks, uint64_t *bad)
{
#ifdef __SSE2__
    if (k <= 8 && nlinks > 0) {
        /* Routes without loops are the rule: their 8 first cells (the
         * buffer holds 8 past any route's start) with the cells from k on
         * replaced by fillers, compared all pairs at once (within each half:
         * it against itself turned by 1 and 2; across: one half against the
         * other turned by 0..3). A filler equal to a link only sends the
         * route to the exact check. The range at the same time: the cells
         * (0 from k on) above nlinks - 1, compared unsigned (signed with the
         * top bit flipped). */
        const __m128i idx = _mm_set_epi32(3, 2, 1, 0), kk = _mm_set1_epi32((int)k);
        const __m128i fill = _mm_set_epi32(-4, -3, -2, -1), fill2 = _mm_set_epi32(-8, -7, -6, -5);
        const __m128i top = _mm_set1_epi32(INT32_MIN), lim = _mm_set1_epi32((int32_t)((uint32_t)(nlinks - 1) ^ 0x80000000u));
        __m128i m0 = _mm_cmpgt_epi32(kk, idx), m1 = _mm_cmpgt_epi32(kk, _mm_add_epi32(idx, _mm_set1_epi32(4)));
        __m128i v0 = _mm_loadu_si128((const __m128i *)r), u0 = _mm_loadu_si128((const __m128i *)(r + 4));
        __m128i out = _mm_or_si128(_mm_cmpgt_epi32(_mm_xor_si128(_mm_and_si128(m0, v0), top), lim),
                                   _mm_cmpgt_epi32(_mm_xor_si128(_mm_and_si128(m1, u0), top), lim));
        __m128i v = _mm_or_si128(_mm_and_si128(m0, v0), _mm_andnot_si128(m0, fill));
        __m128i u = _mm_or_si128(_mm_and_si128(m1, u0), _mm_andnot_si128(m1, fill2));
        __m128i eq = _mm_cmpeq_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 3, 2, 1)));
        eq = _mm_or_si128(eq, _mm_cmpeq_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2))));
        eq = _mm_or_si128(eq, _mm_cmpeq_epi32(u, _mm_shuffle_epi32(u, _MM_SHUFFLE(0, 3, 2, 1))));
        eq = _mm_or_si128(eq, _mm_cmpeq_epi32(u, _mm_shuffle_epi32(u, _MM_SHUFFLE(1, 0, 3, 2))));
        eq = _mm_or_si128(eq, _mm_cmpeq_epi32(v, u));
        eq = _mm_or_si128(eq, _mm_cmpeq_epi32(v, _mm_shuffle_epi32(u, _MM_SHUFFLE(0, 3, 2, 1))));
        eq = _mm_or_si128(eq, _mm_cmpeq_epi32(v, _mm_shuffle_epi32(u, _MM_SHUFFLE(1, 0, 3, 2))));
        eq = _mm_or_si128(eq, _mm_cmpeq_epi32(v, _mm_shuffle_epi32(u, _MM_SHUFFLE(2, 1, 0, 3))));
        if (!_mm_movemask_epi8(_mm_or_si128(eq, out)))
            return CK_OK;
    }
#endif
    return route_check_slow(w, r, k, nlinks, bad);
}

static uint64_t route_loop_slow(cong_ws *w, const uint32_t *r, uint32_t k)
{
    if (k <= 16) {
        for (uint32_t j = 1; j < k; j++)
            for (uint32_t i = 0; i < j; i++)
                if (r[i] == r[j])
                    return r[j];
    }
    if (!w->mark)
        w->mark = tn_xcalloc((size_t)w->nlinks, sizeof *w->mark);
    if (++w->stamp == 0) { /* wrapped: every stamp is stale again */
        memset(w->mark, 0, (size_t)w->nlinks * sizeof *w->mark);
        w->stamp = 1;
    }
    for (uint32_t j = 0; j < k; j++) {
        if (w->mark[r[j]] == w->stamp)
            return r[j];
        w->mark[r[j]] = w->stamp;
    }
    return UINT64_MAX;
}

/* Flows between a prefetch of a flow's link loads and their use (about 32
 * link visits: the loads are random accesses over every link, and fetching
 * them ahead lets the misses overlap), or 0: no prefetch while the load
 * counters fit a core's second-level cache (CONG_PF_BYTES), where the
 * prefetches cost more than they save (a fifth of the counting at 21,296
 * hosts, 256 kB of counters: bench/graph.sh). */
#define CONG_PF_BYTES (512 * 1024)
static size_t ahead_of(size_t stride, uint64_t load_bytes)
{
    return load_bytes <= CONG_PF_BYTES ? 0 : stride >= 32 ? 1 : 32 / stride;
}

/* total[e] += load[e] and load[e] = 0 over every link (the level's loads
 * into the evaluation's totals, 4 bytes a link: see cong_eval_ws), eight
 * links a step. */
static void add_clear16(uint32_t *total, uint16_t *load, uint64_t n)
{
    uint64_t e = 0;
#ifdef __SSE2__
    const __m128i z = _mm_setzero_si128();
    for (; e + 8 <= n; e += 8) {
        __m128i x = _mm_loadu_si128((const __m128i *)(load + e));
        __m128i *t = (__m128i *)(total + e);
        _mm_storeu_si128(t, _mm_add_epi32(_mm_loadu_si128(t), _mm_unpacklo_epi16(x, z)));
        _mm_storeu_si128(t + 1, _mm_add_epi32(_mm_loadu_si128(t + 1), _mm_unpackhi_epi16(x, z)));
        _mm_storeu_si128((__m128i *)(load + e), z);
    }
#endif
    for (; e < n; e++) {
        total[e] += load[e];
        load[e] = 0;
    }
}

static void add_clear32(uint32_t *total, uint32_t *load, uint64_t n)
{
    for (uint64_t e = 0; e < n; e++) {
        total[e] += load[e];
        load[e] = 0;
    }
}

/* One level's counting on the routes in w (n flows): each route checked
 * (route_check), the loads (a dense counter a link, 2 or 4 bytes: wide),
 * each flow's c_f (into w->cf, the histogram, *sum_c, *level_max), the
 * loads added to total (may be NULL) and set back to 0. Returns CK_OK, or
 * the first flow's failed check (*bad_flow, *bad; the loads are 0 again):
 * a link outside the fabric in any flow before a loop (as when every
 * route's range was checked before the counting). */
static inline __attribute__((always_inline)) int level_counts(cong_ws *w, int wide, uint64_t n, uint64_t nlinks,
                                                              uint32_t *total, uint64_t *sum_c, uint64_t *level_max,
                                                              size_t *hist_len, uint64_t *bad_flow, uint64_t *bad)
{
    uint16_t *l16 = (uint16_t *)w->load;
    uint32_t *l32 = w->load;
#define LD(e) (wide ? l32[e] : (uint32_t)l16[e])
#define LDP(e) (wide ? (void *)&l32[e] : (void *)&l16[e])
    const size_t st = w->stride, D = ahead_of(st, nlinks * (wide ? 4 : 2));
    const uint32_t *links = w->links, *len = w->len;
    uint64_t visits = 0;
    for (uint64_t f = 0; f < n; f++) {
        if (D && f + D < n)
            for (uint32_t j = 0; j < len[f + D]; j++)
                __builtin_prefetch(LDP(links[(f + D) * st + j]), 1);
        const uint32_t *r = links + f * st;
        int ck = route_check(w, r, len[f], nlinks, bad);
        if (ck != CK_OK) {
            memset(w->load, 0, (size_t)nlinks * (wide ? 4 : 2));
            *bad_flow = f;
            for (uint64_t g = f + 1; ck == CK_LOOP && g < n; g++) /* a later flow's range comes first */
                for (uint32_t j = 0; j < len[g]; j++)
                    if (links[g * st + j] >= nlinks) {
                        *bad_flow = g;
                        *bad = links[g * st + j];
                        ck = CK_RANGE;
                        break;
                    }
            return ck;
        }
        for (uint32_t j = 0; j < len[f]; j++) {
            if (wide)
                l32[r[j]]++;
            else
                l16[r[j]]++;
        }
        visits += len[f];
    }
    for (uint64_t f = 0; f < n; f++) {
        if (D && f + D < n)
            for (uint32_t j = 0; j < len[f + D]; j++)
                __builtin_prefetch(LDP(links[(f + D) * st + j]), 0);
        uint64_t c = 1;
        if (len[f] > 0) {
            const uint32_t *r = links + f * st;
            uint32_t m = 0;
            for (uint32_t j = 0; j < len[f]; j++)
                m = LD(r[j]) > m ? LD(r[j]) : m;
            c = m;
        }
        w->cf[f] = c;
        *sum_c += c;
        if (c > *level_max)
            *level_max = c;
        if (c < *hist_len)
            w->hist[c]++;
        else
            hist_add(&w->hist, hist_len, &w->hist_cap, c, 1);
    }
    /* a sweep over every link when the level visited many, else its links
     * again (a link met twice adds its load once: it is 0 the second time) */
    if (nlinks <= 2 * visits) {
        if (total && wide)
            add_clear32(total, l32, nlinks);
        else if (total)
            add_clear16(total, l16, nlinks);
        else
            memset(w->load, 0, (size_t)nlinks * (wide ? 4 : 2));
    } else {
        for (uint64_t f = 0; f < n; f++) {
            const uint32_t *r = links + f * st;
            for (uint32_t j = 0; j < len[f]; j++) {
                if (total)
                    total[r[j]] += LD(r[j]);
                if (wide)
                    l32[r[j]] = 0;
                else
                    l16[r[j]] = 0;
            }
        }
    }
#undef LD
#undef LDP
    return CK_OK;
}

static int level_counts16(cong_ws *w, uint64_t n, uint64_t nlinks, uint32_t *total, uint64_t *sum_c,
                          uint64_t *level_max, size_t *hist_len, uint64_t *bad_flow, uint64_t *bad)
{
    return level_counts(w, 0, n, nlinks, total, sum_c, level_max, hist_len, bad_flow, bad);
}

static int level_counts32(cong_ws *w, uint64_t n, uint64_t nlinks, uint32_t *total, uint64_t *sum_c,
                          uint64_t *level_max, size_t *hist_len, uint64_t *bad_flow, uint64_t *bad)
{
    return level_counts(w, 1, n, nlinks, total, sum_c, level_max, hist_len, bad_flow, bad);
}

int cong_eval(const pat_set *s, const uint32_t *node_of_rank, uint64_t nlinks, cong_route_fn route,
              const void *ctx, cong_acc *acc, cong_result *out, char *err, size_t errlen)
{
    cong_ws w;
    memset(&w, 0, sizeof w);
    int rc = cong_eval_ws(&w, s, node_of_rank, nlinks, route, NULL, ctx, acc, out, err, errlen);
    cong_ws_free(&w);
    return rc;
}

int cong_eval_ws(cong_ws *w, const pat_set *s, const uint32_t *node_of_rank, uint64_t nlinks, cong_route_fn route,
                 cong_route_many_fn many, const void *ctx, cong_acc *acc, cong_result *out, char *err,
                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    TN_ASSERT(!acc || acc->nlinks == nlinks, "accumulator of %llu links for %llu",
              (unsigned long long)acc->nlinks, (unsigned long long)nlinks);
    if (nlinks > UINT32_MAX)
        return tn_error(err, errlen, "a fabric of %llu links: static routes count at most 2^32",
                        (unsigned long long)nlinks);
    uint32_t L = pat_set_levels(s);
    uint64_t widest = 0; /* flows of the largest merged level */
    for (uint32_t l = 0; l < L; l++) {
        uint64_t n = 0;
        for (uint32_t g = 0; g < s->ngroups; g++)
            if (l < s->group[g].nlevels)
                n += pat_level_size(&s->group[g], l);
        if (n > widest)
            widest = n;
    }
    /* Scratch: one load counter a link (zero between levels), the routes of
     * one level at a fixed stride (flow f's links at links[f stride ..]),
     * the totals over levels with an accumulator (added to acc only at the
     * end, so acc stays unchanged on an error): 4 bytes a link (total32;
     * a link's total is at most the flows counted into it, and they are
     * folded into the 8-byte w->total before they could pass 2^32 - 1). */
    if (w->nlinks != nlinks || !w->load) { /* a fabric of no links too: load is never NULL (memset) */
        free(w->load);
        free(w->total);
        free(w->total32);
        free(w->mark);
        w->load = tn_xcalloc(nlinks ? (size_t)nlinks : 1, sizeof *w->load);
        w->total = NULL;
        w->total32 = NULL;
        w->mark = NULL;
        w->stamp = 0;
        w->nlinks = nlinks;
    }
    if (acc) {
        if (!w->total32)
            w->total32 = tn_xmalloc((nlinks ? (size_t)nlinks : 1) * sizeof *w->total32);
        memset(w->total32, 0, (size_t)nlinks * sizeof *w->total32);
    }
    uint32_t *total = acc ? w->total32 : NULL;
    uint64_t in_total = 0; /* flows counted into total32 since it was last folded */
    int folded = 0;        /* w->total holds folded totals */
    ws_room(w, (size_t)(widest ? widest : 1), w->stride ? w->stride : 8, 0);
    if (w->ready_cap < s->ranks) {
        free(w->ready);
        w->ready = tn_xmalloc((size_t)s->ranks * sizeof *w->ready);
        w->ready_cap = s->ranks;
    }
    uint64_t *ready = w->ready;
    memset(ready, 0, (size_t)s->ranks * sizeof *ready);
    if (w->hist_cap)
        memset(w->hist, 0, w->hist_cap * sizeof *w->hist);
    size_t hist_len = 0;
    if (!w->tmp) {
        w->tmp_cap = 64;
        w->tmp = tn_xmalloc(w->tmp_cap * sizeof *w->tmp);
    }
    uint64_t sum_c = 0, sum_max = 0, c_max = 0, dep_max = 0, flows = 0;
    int rc = 0;

    for (uint32_t l = 0; l < L && rc == 0; l++) {
        /* The level's pairs, in merged order (foreground, then background). */
        uint64_t n = 0;
        for (uint32_t g = 0; g < s->ngroups; g++) {
            const pat_levels *lv = &s->group[g];
            if (l >= lv->nlevels)
                continue;
            for (uint64_t i = lv->start[l]; i < lv->start[l + 1]; i++, n++)
                w->ends[n] = (uint64_t)node_of_rank[lv->pairs[i].src] << 32 | node_of_rank[lv->pairs[i].dst];
        }
        /* Their routes: all at once, or pair after pair in that order (a
         * route op that draws stays reproducible), their links checked
         * against the fabric's. */
        size_t need = many ? many(ctx, n, w->ends, w->links, w->len, w->stride) : SIZE_MAX;
        if (many && need) {
            ws_room(w, w->flows_cap, need, 0);
            need = many(ctx, n, w->ends, w->links, w->len, w->stride);
            TN_ASSERT(need == 0, "route_many asks a stride of %zu, then %zu", w->stride, need);
        }
        for (uint64_t f = 0; !many && f < n; f++) { /* route_many's: checked by the counting (route_check) */
            uint32_t a = (uint32_t)(w->ends[f] >> 32), b = (uint32_t)w->ends[f];
            {
                size_t k = route(ctx, a, b, w->tmp, w->tmp_cap);
                if (k > w->tmp_cap) {
                    while (k > w->tmp_cap)
                        w->tmp_cap *= 2;
                    w->tmp = tn_xrealloc(w->tmp, w->tmp_cap * sizeof *w->tmp);
                    size_t again = route(ctx, a, b, w->tmp, w->tmp_cap);
                    TN_ASSERT(again == k, "route %u -> %u has %zu links, then %zu", a, b, k, again);
                }
                if (k > w->stride)
                    ws_room(w, w->flows_cap, k > 2 * w->stride ? k : 2 * w->stride, (size_t)f);
                uint32_t *r = w->links + f * w->stride;
                for (size_t j = 0; j < k; j++) {
                    if (w->tmp[j] >= nlinks) {
                        rc = tn_error(err, errlen, "route from node %u to node %u uses link %llu of %llu", a, b,
                                      (unsigned long long)w->tmp[j], (unsigned long long)nlinks);
                        break;
                    }
                    r[j] = (uint32_t)w->tmp[j];
                }
                w->len[f] = (uint32_t)k;
            }
            if (rc != 0)
                break; /* the scratch is kept, acc is untouched */
        }
        if (rc != 0)
            break;
        if (total && in_total + n > UINT32_MAX) { /* fold total32 into the 8-byte totals */
            if (!w->total)
                w->total = tn_xmalloc((nlinks ? (size_t)nlinks : 1) * sizeof *w->total);
            for (uint64_t e = 0; e < nlinks; e++) {
                w->total[e] = (folded ? w->total[e] : 0) + total[e];
                total[e] = 0;
            }
            folded = 1;
            in_total = 0;
        }
        in_total += n;
        /* The level's loads, each flow's congestion, the loads into the
         * totals and back to 0: with 2-byte counters when a level has
         * fewer than 2^16 flows (a link's load is at most that), which
         * halves the memory these random accesses touch. */
        uint64_t level_max = 0, bad_flow = 0, bad = 0;
        int ck = widest < 65536 ? level_counts16(w, n, nlinks, total, &sum_c, &level_max, &hist_len, &bad_flow, &bad)
                                : level_counts32(w, n, nlinks, total, &sum_c, &level_max, &hist_len, &bad_flow, &bad);
        if (ck == CK_RANGE) {
            rc = tn_error(err, errlen, "route from node %u to node %u uses link %llu of %llu",
                          (uint32_t)(w->ends[bad_flow] >> 32), (uint32_t)w->ends[bad_flow], (unsigned long long)bad,
                          (unsigned long long)nlinks);
            break;
        }
        if (ck == CK_LOOP) {
            rc = tn_error(err, errlen, "route from node %u to node %u uses link %llu twice (routing loop)",
                          (uint32_t)(w->ends[bad_flow] >> 32), (uint32_t)w->ends[bad_flow], (unsigned long long)bad);
            break;
        }
        sum_max += level_max;
        if (level_max > c_max)
            c_max = level_max;
        flows += n;
        /* Foreground dependency delays: finishes from the ready times before
         * this level, then the receivers' ready times move on. */
        const pat_levels *fg = &s->group[0];
        if (l < fg->nlevels) {
            uint64_t n0 = pat_level_size(fg, l);
            const pat_pair *p = fg->pairs + fg->start[l];
            uint64_t *cf = w->cf;
            for (uint64_t f = 0; f < n0; f++)
                cf[f] += ready[p[f].src]; /* cf[] now holds finish(f) */
            for (uint64_t f = 0; f < n0; f++) {
                if (cf[f] > ready[p[f].dst])
                    ready[p[f].dst] = cf[f];
                if (cf[f] > dep_max)
                    dep_max = cf[f];
            }
        }
    }

    if (rc == 0) {
        out->sum_max_cong = (double)sum_max;
        out->bw_fraction = cong_bw_fraction_hist(w->hist, hist_len);
        out->cong_max = (double)c_max;
        out->cong_mean = flows ? (double)sum_c / (double)flows : 0.0;
        out->dep_max_delay = (double)dep_max;
        out->flows = flows;
        out->levels = L;
        if (acc) {
            if (hist_len > acc->hist_len) {
                acc->hist = tn_xrealloc(acc->hist, hist_len * sizeof *acc->hist);
                memset(acc->hist + acc->hist_len, 0, (hist_len - acc->hist_len) * sizeof *acc->hist);
                acc->hist_len = hist_len;
            }
            for (size_t i = 1; i < hist_len; i++)
                acc->hist[i] += w->hist[i];
            for (uint64_t e = 0; e < nlinks; e++)
                acc->link_load[e] += (folded ? w->total[e] : 0) + total[e];
            acc->runs++;
        }
    }
    return rc;
}
