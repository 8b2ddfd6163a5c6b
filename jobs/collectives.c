/* MPI collectives as point-to-point programs; the algorithms and their
 * sources are in collectives.h, the default rules here (coll_default). */
#include "collectives.h"

#include <string.h>

#include "log.h"

const char *const coll_op_names[] = {"barrier",   "bcast",    "reduce",   "allreduce",      "gather",
                                     "scatter",   "allgather", "alltoall", "reduce-scatter", NULL};

/* The algorithms in coll_alg order; the configuration's choices are the
 * same names plus the aliases after them (coll_choice_alg maps those). */
#define COLL_ALG_NAMES                                                                                      \
    "auto", "linear", "binomial", "pipeline", "scatter-allgather", "ring", "recursive-doubling",            \
        "rabenseifner", "direct", "tree", "hierarchical", "nonoverlapping", "bruck", "neighbor-exchange", \
        "pairwise", "recursive-halving"

const char *const coll_alg_names[] = {COLL_ALG_NAMES, NULL};

const char *const coll_choice_names[] = {COLL_ALG_NAMES,
                                         "halving-doubling",
                                         NULL};

coll_alg coll_choice_alg(int i) { return i >= COLL_NALGS ? COLL_RABENSEIFNER : (coll_alg)i; }

int coll_alg_find(const char *name)
{
    if (!name)
        return -1;
    if (strcmp(name, "halving-doubling") == 0)
        return COLL_RABENSEIFNER;
    for (int i = 0; coll_alg_names[i]; i++)
        if (strcmp(coll_alg_names[i], name) == 0)
            return i;
    return -1;
}

/* Algorithms of each operation, as bit sets. */
#define B(a) (1u << (a))
static const uint32_t coll_valid[COLL_NOPS] = {
    [COLL_BARRIER] = B(COLL_LINEAR) | B(COLL_RECDBL) | B(COLL_BRUCK),
    [COLL_BCAST] = B(COLL_LINEAR) | B(COLL_BINOMIAL) | B(COLL_PIPELINE) | B(COLL_SCATTER_ALLGATHER),
    [COLL_REDUCE] = B(COLL_LINEAR) | B(COLL_BINOMIAL) | B(COLL_PIPELINE),
    [COLL_ALLREDUCE] = B(COLL_RING) | B(COLL_RECDBL) | B(COLL_RABENSEIFNER) | B(COLL_DIRECT) | B(COLL_TREE) |
                       B(COLL_HIERARCHICAL) | B(COLL_NONOVERLAPPING),
    [COLL_GATHER] = B(COLL_LINEAR) | B(COLL_BINOMIAL),
    [COLL_SCATTER] = B(COLL_LINEAR) | B(COLL_BINOMIAL),
    [COLL_ALLGATHER] = B(COLL_RING) | B(COLL_RECDBL) | B(COLL_BRUCK) | B(COLL_NEIGHBOR),
    [COLL_ALLTOALL] = B(COLL_LINEAR) | B(COLL_PAIRWISE) | B(COLL_BRUCK),
    [COLL_REDUCE_SCATTER] = B(COLL_RING) | B(COLL_RECHALVING) | B(COLL_NONOVERLAPPING),
};

int coll_alg_valid(coll_op op, coll_alg alg)
{
    if ((unsigned)op >= COLL_NOPS || (unsigned)alg >= COLL_NALGS)
        return 0;
    return alg == COLL_AUTO || (coll_valid[op] & B(alg)) != 0;
}

const char *coll_alg_list(coll_op op)
{
    static char buf[COLL_NOPS][256];
    if ((unsigned)op >= COLL_NOPS)
        return "";
    if (!buf[op][0]) {
        char *p = buf[op];
        size_t room = sizeof buf[op];
        for (int a = 1; a < COLL_NALGS; a++)
            if (coll_valid[op] & B(a)) {
                int k = snprintf(p, room, "%s%s", p == buf[op] ? "" : "|", coll_alg_names[a]);
                p += k;
                room -= (size_t)k;
            }
    }
    return buf[op];
}

/* ---- sizes ---- */

static uint32_t pow2_floor(uint32_t n)
{
    uint32_t p = 1;
    while ((uint64_t)p * 2 <= n)
        p *= 2;
    return p;
}

static uint32_t log2_ceil(uint32_t n)
{
    uint32_t l = 0;
    while (((uint64_t)1 << l) < n)
        l++;
    return l;
}

static int is_pow2(uint32_t n) { return n && (n & (n - 1)) == 0; }

/* Block j of k of a vector of S bytes. */
static inline uint64_t chunk(uint64_t S, uint32_t k, uint32_t j) { return S / k + (j < S % k ? 1 : 0); }

static uint64_t total_counts(const coll_spec *s)
{
    if (!s->counts)
        return s->bytes * s->ranks;
    uint64_t t = 0;
    for (uint32_t j = 0; j < s->ranks; j++)
        t += s->counts[j];
    return t;
}

/* ---- default rules (Open MPI 1.6 coll_tuned_decision_fixed.c) ---- */

coll_alg coll_default(coll_op op, uint32_t n, uint64_t bytes, const uint64_t *counts, uint64_t *segment)
{
    uint64_t seg = 0;
    coll_alg a = COLL_LINEAR;
    double m = (double)bytes;
    switch (op) {
    case COLL_BARRIER:
        /* two procs and powers of two: recursive doubling, else bruck */
        a = is_pow2(n) ? COLL_RECDBL : COLL_BRUCK;
        break;
    case COLL_BCAST:
        /* < 2048 B binomial; < 370728 B split binary tree (1 KiB segments:
         * scatter-allgather here, which also halves the root's bytes); large:
         * pipeline with 128/64/16/8 KiB segments by n < a m + b, and n < 13
         * split binary (8 KiB: scatter-allgather here) */
        if (bytes < 2048)
            a = COLL_BINOMIAL;
        else if (bytes < 370728)
            a = COLL_SCATTER_ALLGATHER;
        else if (n < 1.6134e-6 * m + 2.1102)
            a = COLL_PIPELINE, seg = 128 << 10;
        else if (n < 13)
            a = COLL_SCATTER_ALLGATHER;
        else if (n < 2.3679e-6 * m + 1.1787)
            a = COLL_PIPELINE, seg = 64 << 10;
        else if (n < 3.2118e-6 * m + 8.7936)
            a = COLL_PIPELINE, seg = 16 << 10;
        else
            a = COLL_PIPELINE, seg = 8 << 10;
        break;
    case COLL_REDUCE:
        /* commutative: n < 8 and < 512 B linear; (n < 8 and < 20480 B) or
         * < 2048 B binomial; then by n > a m + b: binomial 1 KiB segments
         * (binomial), pipeline 1 KiB, binary 32 KiB (binomial), pipeline
         * 32 KiB, else pipeline 64 KiB */
        if (n < 8 && bytes < 512)
            a = COLL_LINEAR;
        else if ((n < 8 && bytes < 20480) || bytes < 2048)
            a = COLL_BINOMIAL;
        else if (n > 0.6016 / 1024 * m + 1.3496)
            a = COLL_BINOMIAL;
        else if (n > 0.0410 / 1024 * m + 9.7128)
            a = COLL_PIPELINE, seg = 1 << 10;
        else if (n > 0.0422 / 1024 * m + 1.1614)
            a = COLL_BINOMIAL;
        else if (n > 0.0033 / 1024 * m + 1.6761)
            a = COLL_PIPELINE, seg = 32 << 10;
        else
            a = COLL_PIPELINE, seg = 64 << 10;
        break;
    case COLL_ALLREDUCE:
        /* < 10000 B recursive doubling; count > n (count in 8-byte
         * elements here): ring (segmented ring above n MiB: ring here);
         * else nonoverlapping */
        if (bytes < 10000)
            a = COLL_RECDBL;
        else if (bytes / 8 > n)
            a = COLL_RING;
        else
            a = COLL_NONOVERLAPPING;
        break;
    case COLL_GATHER: {
        /* block > 6000 B linear (linear-sync there); n > 60 or (n > 10 and
         * block < 1024 B) binomial; else linear */
        uint64_t blk = counts ? total_counts(&(coll_spec){.ranks = n, .counts = counts}) / (n ? n : 1) : bytes;
        if (blk > 6000)
            a = COLL_LINEAR;
        else if (n > 60 || (n > 10 && blk < 1024))
            a = COLL_BINOMIAL;
        else
            a = COLL_LINEAR;
        break;
    }
    case COLL_SCATTER: {
        /* n > 10 and block < 300 B binomial, else linear */
        uint64_t blk = counts ? total_counts(&(coll_spec){.ranks = n, .counts = counts}) / (n ? n : 1) : bytes;
        a = n > 10 && blk < 300 ? COLL_BINOMIAL : COLL_LINEAR;
        break;
    }
    case COLL_ALLGATHER: {
        /* n = 2: two procs (recursive doubling); total < 50000 B: recursive
         * doubling on powers of two (allgatherv: bruck), else bruck;
         * larger: odd n ring, even n neighbor exchange */
        uint64_t total = counts ? total_counts(&(coll_spec){.ranks = n, .counts = counts}) : bytes * n;
        if (n == 2)
            a = COLL_RECDBL;
        else if (total < 50000)
            a = is_pow2(n) && !counts ? COLL_RECDBL : COLL_BRUCK;
        else
            a = n % 2 ? COLL_RING : COLL_NEIGHBOR;
        break;
    }
    case COLL_ALLTOALL:
        /* n = 2 two procs (pairwise); block < 200 B and n > 12 bruck;
         * < 3000 B linear; else pairwise; alltoallv: pairwise */
        if (counts || n == 2)
            a = COLL_PAIRWISE;
        else if (bytes < 200 && n > 12)
            a = COLL_BRUCK;
        else if (bytes < 3000)
            a = COLL_LINEAR;
        else
            a = COLL_PAIRWISE;
        break;
    case COLL_REDUCE_SCATTER: {
        /* a zero count: nonoverlapping; total <= 12 KiB, or <= 256 KiB on a
         * power of two, or n >= 0.0012 total + 8: recursive halving; else ring */
        int zero = 0;
        for (uint32_t j = 0; counts && j < n; j++)
            zero |= counts[j] == 0;
        uint64_t total = counts ? total_counts(&(coll_spec){.ranks = n, .counts = counts}) : bytes * n;
        if (zero || (!counts && bytes == 0))
            a = COLL_NONOVERLAPPING;
        else if (total <= 12 * 1024 || (total <= 256 * 1024 && is_pow2(n)) || n >= 0.0012 * (double)total + 8)
            a = COLL_RECHALVING;
        else
            a = COLL_RING;
        break;
    }
    default: break;
    }
    if (segment)
        *segment = seg;
    return a;
}

static uint32_t hier_group(const coll_spec *s)
{
    if (s->group)
        return s->group;
    uint32_t g = 1;
    for (uint32_t d = 1; (uint64_t)d * d <= s->ranks; d++)
        if (s->ranks % d == 0)
            g = d;
    return g;
}

coll_alg coll_resolve(const coll_spec *s)
{
    coll_alg a = s->alg;
    if (a == COLL_AUTO)
        a = coll_default(s->op, s->ranks, s->bytes, s->counts, NULL);
    if (s->op == COLL_ALLGATHER && a == COLL_RECDBL && !is_pow2(s->ranks))
        a = COLL_BRUCK;
    if (s->op == COLL_ALLGATHER && a == COLL_NEIGHBOR && s->ranks % 2)
        a = COLL_RING;
    if (s->op == COLL_ALLTOALL && a == COLL_BRUCK && s->counts)
        a = COLL_PAIRWISE;
    if (a == COLL_HIERARCHICAL && (s->ranks % hier_group(s) != 0))
        a = COLL_RING;
    return a;
}

static uint64_t seg_of(const coll_spec *s)
{
    if (s->segment)
        return s->segment;
    uint64_t seg = 0;
    coll_default(s->op, s->ranks, s->bytes, s->counts, &seg);
    return seg ? seg : 64 << 10;
}

static uint32_t nseg_of(const coll_spec *s)
{
    uint64_t seg = seg_of(s), k = s->bytes ? (s->bytes + seg - 1) / seg : 1;
    return k > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)k;
}

int coll_check(const coll_spec *s, char *err, size_t errlen)
{
    if ((unsigned)s->op >= COLL_NOPS)
        return tn_error(err, errlen, "collective: unknown operation %d", (int)s->op);
    if (s->ranks == 0 || s->ranks > TP_TASKS_MAX)
        return tn_error(err, errlen, "%s: %u ranks", coll_op_names[s->op], s->ranks);
    if (!coll_alg_valid(s->op, s->alg))
        return tn_error(err, errlen, "%s has no algorithm '%s' (one of %s)", coll_op_names[s->op],
                        (unsigned)s->alg < COLL_NALGS ? coll_alg_names[s->alg] : "?", coll_alg_list(s->op));
    if ((s->op == COLL_BCAST || s->op == COLL_REDUCE || s->op == COLL_GATHER || s->op == COLL_SCATTER) &&
        s->root >= s->ranks)
        return tn_error(err, errlen, "%s: root %u of %u ranks", coll_op_names[s->op], s->root, s->ranks);
    if (s->alg == COLL_HIERARCHICAL && s->group && s->ranks % s->group)
        return tn_error(err, errlen, "allreduce hierarchical: group of %u ranks does not divide %u ranks", s->group,
                        s->ranks);
    return 0;
}

/* ---- emission ---- */

/* A view: ranks i = 0..n-1 of a sub-communicator, global rank base + i
 * stride, relative to a root (index (i + rot) mod n). */
typedef struct cv {
    uint32_t n, me; /* me: own index in the view (relative) */
    uint32_t base, stride, rot;
} cv;

typedef struct em {
    coll_emit_fn fn;
    void *ctx;
    uint32_t tag; /* base of the current algorithm's tags */
} em;

static inline uint32_t glob(const cv *v, uint32_t i)
{
    uint32_t j = (uint32_t)(((uint64_t)i + v->rot) % v->n);
    return v->base + j * v->stride;
}

static inline void snd(em *e, const cv *v, uint32_t i, uint64_t bytes, uint32_t t)
{
    e->fn(e->ctx, 1, glob(v, i), bytes, e->tag + t);
}

static inline void rcv(em *e, const cv *v, uint32_t i, uint32_t t) { e->fn(e->ctx, 0, glob(v, i), 0, e->tag + t); }

/* Block sizes of a view: counts (indexed by global rank) or chunks of S. */
typedef struct blocks {
    uint64_t S;
    uint32_t k;              /* chunks of S */
    const uint64_t *counts;  /* [global rank] or NULL */
    const cv *v;             /* to map view index -> global rank */
} blocks;

static inline uint64_t blk(const blocks *b, uint32_t i)
{
    if (b->counts)
        return b->counts[glob(b->v, i % b->v->n)];
    return chunk(b->S, b->k, i % b->k);
}

/* Sum of blocks i .. i+cnt-1 (mod the block count). */
static uint64_t blk_sum(const blocks *b, uint32_t i, uint32_t cnt)
{
    uint32_t k = b->counts ? b->v->n : b->k;
    if (!b->counts && cnt == k)
        return b->S;
    uint64_t t = 0;
    for (uint32_t j = 0; j < cnt; j++)
        t += blk(b, (uint32_t)(((uint64_t)i + j) % k));
    return t;
}

/* Binomial tree helpers on a rooted view (me = relative rank). */
static uint32_t lowbit_or_top(uint32_t vr, uint32_t n)
{
    if (vr == 0)
        return (uint32_t)1 << log2_ceil(n);
    return vr & (~vr + 1);
}

/* Tree bcast of `bytes` (or subtree blocks for scatter, when b != NULL). */
static void bino_down(em *e, const cv *v, uint64_t bytes, const blocks *b, uint32_t t)
{
    uint32_t vr = v->me, n = v->n, low = lowbit_or_top(vr, n);
    if (vr != 0)
        rcv(e, v, vr - low, t);
    for (uint32_t m = low >> 1; m >= 1; m >>= 1)
        if ((uint64_t)vr + m < n) {
            uint32_t cnt = (uint64_t)vr + 2 * m < n ? m : n - vr - m;
            snd(e, v, vr + m, b ? blk_sum(b, vr + m, cnt) : bytes, t);
        }
}

/* Tree reduce of `bytes` (or subtree blocks for gather). */
static void bino_up(em *e, const cv *v, uint64_t bytes, const blocks *b, uint32_t t)
{
    uint32_t vr = v->me, n = v->n;
    for (uint32_t m = 1; m < n; m <<= 1) {
        if (vr & m) {
            uint32_t cnt = (uint64_t)vr + m < n ? m : n - vr;
            snd(e, v, vr - m, b ? blk_sum(b, vr, cnt) : bytes, t);
            return;
        }
        if ((uint64_t)vr + m < n)
            rcv(e, v, vr + m, t);
    }
}

/* Ring steps on a view: first + t for t = 0..steps-1, rank sends block
 * (me - t - shift) to me+1. */
static void ring_steps(em *e, const cv *v, const blocks *b, uint32_t steps, uint32_t shift, uint32_t t0)
{
    uint32_t n = v->n;
    for (uint32_t t = 0; t < steps; t++) {
        uint32_t j = (uint32_t)(((uint64_t)v->me + 2 * (uint64_t)n - (t + shift) % n) % n);
        snd(e, v, (v->me + 1) % n, blk(b, j), t0 + t);
        rcv(e, v, (v->me + n - 1) % n, t0 + t);
    }
}

/* MPICH's pre/post steps for non-powers of two. Returns the new rank
 * (UINT32_MAX: dropped out); new rank q stands for view index newidx(q). */
static uint32_t rd_pre(em *e, const cv *v, uint64_t bytes, uint32_t t)
{
    uint32_t n = v->n, P = pow2_floor(n), rem = n - P, me = v->me;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            snd(e, v, me + 1, bytes, t);
            return UINT32_MAX;
        }
        rcv(e, v, me - 1, t);
        return me / 2;
    }
    return me - rem;
}

static inline uint32_t rd_idx(uint32_t q, uint32_t rem) { return q < rem ? 2 * q + 1 : q + rem; }

static void rd_post(em *e, const cv *v, uint64_t odd_bytes, uint32_t t)
{
    uint32_t n = v->n, P = pow2_floor(n), rem = n - P, me = v->me;
    if (me < 2 * rem) {
        if (me % 2)
            snd(e, v, me - 1, odd_bytes, t);
        else
            rcv(e, v, me + 1, t);
    }
}

/* Recursive halving over P' new ranks of the blocks of nb (new rank q owns
 * block q, blocks by new rank); keeps [q, q+1) at the end. Tags t0 ..
 * t0 + L - 1. Then optionally the recursive doubling allgather back. */
typedef uint64_t (*nblk_fn)(const void *ctx, uint32_t lo, uint32_t hi); /* bytes of new-rank blocks [lo, hi) */

static void halving(em *e, const cv *v, uint32_t q, uint32_t P, nblk_fn nb, const void *nctx, uint32_t t0, int gather_back)
{
    uint32_t rem = v->n - P, lo = 0, hi = P, L = 0;
    for (uint32_t d = P / 2; d >= 1; d /= 2, L++) {
        uint32_t partner = q ^ d, mid = lo + (hi - lo) / 2;
        uint32_t slo = q & d ? lo : mid, shi = q & d ? mid : hi; /* the half sent */
        snd(e, v, rd_idx(partner, rem), nb(nctx, slo, shi), t0 + L);
        rcv(e, v, rd_idx(partner, rem), t0 + L);
        if (q & d)
            lo = mid;
        else
            hi = mid;
    }
    if (!gather_back)
        return;
    for (uint32_t d = 1, k = 0; d < P; d *= 2, k++) {
        uint32_t partner = q ^ d;
        snd(e, v, rd_idx(partner, rem), nb(nctx, lo, hi), t0 + L + k);
        rcv(e, v, rd_idx(partner, rem), t0 + L + k);
        if (q & d)
            lo -= hi - lo;
        else
            hi += hi - lo;
    }
}

typedef struct chunk_ctx {
    uint64_t S;
    uint32_t P;
} chunk_ctx;

static uint64_t chunk_range(const void *ctx, uint32_t lo, uint32_t hi)
{
    const chunk_ctx *c = ctx;
    uint64_t t = 0;
    if (lo == 0 && hi == c->P)
        return c->S;
    for (uint32_t j = lo; j < hi; j++)
        t += chunk(c->S, c->P, j);
    return t;
}

/* reduce-scatter: new rank q's blocks are those of the view indices it stands for */
typedef struct rs_ctx {
    const blocks *b;
    uint32_t rem;
} rs_ctx;

static uint64_t rs_newblock(const rs_ctx *c, uint32_t q)
{
    if (q < c->rem)
        return blk(c->b, 2 * q) + blk(c->b, 2 * q + 1);
    return blk(c->b, q + c->rem);
}

static uint64_t rs_range(const void *ctx, uint32_t lo, uint32_t hi)
{
    uint64_t t = 0;
    for (uint32_t q = lo; q < hi; q++)
        t += rs_newblock(ctx, q);
    return t;
}

/* NCCL's binary tree over positions 0..n-1 (its ncclGetBtree, as its
 * documentation describes it): 0 is the root with the one child 2^k, the
 * largest power of two < n; position p with lowest set bit b has parent
 * (p ^ b) | 2b, or p ^ b when that is >= n, and children p - b/2 and
 * p + b/2 (halving b/2 while p + b/2 >= n); odd positions are leaves. */
static void btree(uint32_t n, uint32_t pos, uint32_t *parent, uint32_t *c0, uint32_t *c1)
{
    *parent = *c0 = *c1 = UINT32_MAX;
    if (pos == 0) {
        if (n > 1)
            *c1 = pow2_floor(n - 1);
        return;
    }
    uint32_t bit = pos & (~pos + 1);
    uint64_t up = (uint64_t)(pos ^ bit) | ((uint64_t)bit << 1);
    *parent = (uint32_t)(up >= n ? (pos ^ bit) : up);
    uint32_t low = bit >> 1;
    if (low == 0)
        return;
    *c0 = pos - low;
    while (low > 0 && (uint64_t)pos + low >= n)
        low >>= 1;
    if (low > 0)
        *c1 = pos + low;
}

/* The second tree (NCCL's ncclGetDtree): the first shifted by one (n odd:
 * position (r - 1) mod n) or mirrored (n even: position n - 1 - r), so the
 * leaves of one are inner nodes of the other. */
static uint32_t dbt_pos(uint32_t n, uint32_t r, int tree)
{
    if (tree == 0)
        return r;
    return n % 2 ? (r + n - 1) % n : n - 1 - r;
}

static uint32_t dbt_rank(uint32_t n, uint32_t pos, int tree)
{
    if (tree == 0)
        return pos;
    return n % 2 ? (pos + 1) % n : n - 1 - pos;
}

static void dbt_phase(em *e, const cv *v, int tree, int down, uint64_t bytes, uint32_t t)
{
    uint32_t n = v->n, par, c[2];
    btree(n, dbt_pos(n, v->me, tree), &par, &c[0], &c[1]);
    if (!down) {
        for (int k = 0; k < 2; k++)
            if (c[k] != UINT32_MAX)
                rcv(e, v, dbt_rank(n, c[k], tree), t);
        if (par != UINT32_MAX)
            snd(e, v, dbt_rank(n, par, tree), bytes, t);
    } else {
        if (par != UINT32_MAX)
            rcv(e, v, dbt_rank(n, par, tree), t);
        for (int k = 0; k < 2; k++)
            if (c[k] != UINT32_MAX)
                snd(e, v, dbt_rank(n, c[k], tree), bytes, t);
    }
}

/* Recursive doubling of S bytes with the pre/post steps: tags 0 .. L+1. */
static void recdbl(em *e, const cv *v, uint64_t S)
{
    uint32_t P = pow2_floor(v->n), rem = v->n - P, L = 0;
    for (uint32_t d = 1; d < P; d *= 2)
        L++;
    uint32_t q = rd_pre(e, v, S, 0);
    if (q != UINT32_MAX)
        for (uint32_t d = 1, k = 1; d < P; d *= 2, k++) {
            uint32_t p = rd_idx(q ^ d, rem);
            snd(e, v, p, S, k);
            rcv(e, v, p, k);
        }
    rd_post(e, v, S, L + 1);
}

/* Tags of each (op, algorithm) on n ranks; must match what emit uses. */
static uint32_t tags_of(const coll_spec *s, coll_alg a)
{
    uint32_t n = s->ranks, L = 0;
    for (uint32_t p = pow2_floor(n); p > 1; p /= 2)
        L++;
    switch (s->op) {
    case COLL_BARRIER:
        return a == COLL_LINEAR ? 2 : a == COLL_RECDBL ? L + 2 : log2_ceil(n);
    case COLL_BCAST:
    case COLL_REDUCE:
        if (a == COLL_PIPELINE)
            return nseg_of(s);
        if (a == COLL_SCATTER_ALLGATHER)
            return 1 + (n - 1);
        return 1;
    case COLL_ALLREDUCE:
        switch (a) {
        case COLL_RING: return 2 * (n - 1);
        case COLL_RECDBL: return L + 2;
        case COLL_RABENSEIFNER: return 2 * L + 2;
        case COLL_DIRECT: return 2;
        case COLL_TREE: return 4;
        case COLL_HIERARCHICAL: {
            uint32_t G = hier_group(s), X = n / G;
            return 2 * (G - 1) + 2 * (X - 1);
        }
        default: return 2; /* nonoverlapping */
        }
    case COLL_GATHER:
    case COLL_SCATTER: return 1;
    case COLL_ALLGATHER:
        if (a == COLL_RING)
            return n - 1;
        if (a == COLL_NEIGHBOR)
            return n / 2;
        return log2_ceil(n);
    case COLL_ALLTOALL: return a == COLL_PAIRWISE ? n - 1 : a == COLL_BRUCK ? log2_ceil(n) : 1;
    case COLL_REDUCE_SCATTER:
        if (a == COLL_RING)
            return n - 1;
        if (a == COLL_RECHALVING)
            return L + 2;
        return 2;
    default: return 0;
    }
}

uint32_t coll_tags(const coll_spec *s)
{
    uint32_t t = tags_of(s, coll_resolve(s));
    return t ? t : 1;
}

void coll_rank(const coll_spec *s, uint32_t r, coll_emit_fn fn, void *ctx)
{
    uint32_t n = s->ranks;
    TN_ASSERT(r < n, "rank %u of %u", r, n);
    if (n < 2)
        return;
    coll_alg a = coll_resolve(s);
    em e = {fn, ctx, 0};
    int rooted = s->op == COLL_BCAST || s->op == COLL_REDUCE || s->op == COLL_GATHER || s->op == COLL_SCATTER;
    uint32_t root = rooted ? s->root : 0;
    cv v = {.n = n, .me = (r + n - root) % n, .base = 0, .stride = 1, .rot = root};
    cv flat = {.n = n, .me = r, .base = 0, .stride = 1, .rot = 0};
    uint64_t S = s->op == COLL_BARRIER ? 0 : s->bytes;
    uint32_t P = pow2_floor(n), rem = n - P;

    switch (s->op) {
    case COLL_BARRIER:
        if (a == COLL_LINEAR) {
            if (r == 0) {
                for (uint32_t i = 1; i < n; i++)
                    rcv(&e, &flat, i, 0);
                for (uint32_t i = 1; i < n; i++)
                    snd(&e, &flat, i, 0, 1);
            } else {
                snd(&e, &flat, 0, 0, 0);
                rcv(&e, &flat, 0, 1);
            }
        } else if (a == COLL_RECDBL) {
            recdbl(&e, &flat, 0);
        } else { /* bruck: dissemination */
            for (uint32_t k = 0, d = 1; d < n; k++, d *= 2) {
                snd(&e, &flat, (uint32_t)(((uint64_t)r + d) % n), 0, k);
                rcv(&e, &flat, (uint32_t)(((uint64_t)r + n - d) % n), k);
            }
        }
        return;

    case COLL_BCAST:
        if (a == COLL_LINEAR) {
            if (v.me == 0)
                for (uint32_t i = 1; i < n; i++)
                    snd(&e, &v, i, S, 0);
            else
                rcv(&e, &v, 0, 0);
        } else if (a == COLL_BINOMIAL) {
            bino_down(&e, &v, S, NULL, 0);
        } else if (a == COLL_PIPELINE) {
            uint64_t seg = seg_of(s);
            uint32_t ns = nseg_of(s);
            for (uint32_t k = 0; k < ns; k++) {
                uint64_t b = k + 1 < ns ? seg : S - (uint64_t)(ns - 1) * seg;
                if (v.me > 0)
                    rcv(&e, &v, v.me - 1, k);
                if (v.me + 1 < n)
                    snd(&e, &v, v.me + 1, b, k);
            }
        } else { /* scatter-allgather: blocks by relative rank */
            blocks b = {.S = S, .k = n, .counts = NULL, .v = &v};
            bino_down(&e, &v, 0, &b, 0);
            e.tag = 1;
            ring_steps(&e, &v, &b, n - 1, 0, 0);
        }
        return;

    case COLL_REDUCE:
        if (a == COLL_LINEAR) {
            if (v.me == 0)
                for (uint32_t i = 1; i < n; i++)
                    rcv(&e, &v, i, 0);
            else
                snd(&e, &v, 0, S, 0);
        } else if (a == COLL_BINOMIAL) {
            bino_up(&e, &v, S, NULL, 0);
        } else { /* pipeline towards the root */
            uint64_t seg = seg_of(s);
            uint32_t ns = nseg_of(s);
            for (uint32_t k = 0; k < ns; k++) {
                uint64_t b = k + 1 < ns ? seg : S - (uint64_t)(ns - 1) * seg;
                if (v.me + 1 < n)
                    rcv(&e, &v, v.me + 1, k);
                if (v.me > 0)
                    snd(&e, &v, v.me - 1, b, k);
            }
        }
        return;

    case COLL_ALLREDUCE:
        switch (a) {
        case COLL_RING: {
            blocks b = {.S = S, .k = n, .counts = NULL, .v = &flat};
            ring_steps(&e, &flat, &b, 2 * (n - 1), 0, 0);
            return;
        }
        case COLL_RECDBL:
            recdbl(&e, &flat, S);
            return;
        case COLL_RABENSEIFNER: {
            uint32_t q = rd_pre(&e, &flat, S, 0), L = 0;
            for (uint32_t d = 1; d < P; d *= 2)
                L++;
            chunk_ctx cc = {S, P};
            if (q != UINT32_MAX)
                halving(&e, &flat, q, P, chunk_range, &cc, 1, 1);
            rd_post(&e, &flat, S, 2 * L + 1);
            return;
        }
        case COLL_DIRECT:
            for (uint32_t j = 1; j < n; j++) {
                uint32_t p = (r + j) % n;
                snd(&e, &flat, p, chunk(S, n, p), 0);
            }
            for (uint32_t j = 1; j < n; j++)
                rcv(&e, &flat, (r + n - j) % n, 0);
            for (uint32_t j = 1; j < n; j++)
                snd(&e, &flat, (r + j) % n, chunk(S, n, r), 1);
            for (uint32_t j = 1; j < n; j++)
                rcv(&e, &flat, (r + n - j) % n, 1);
            return;
        case COLL_TREE: {
            /* each tree a stream of its own: the reduce sends of the trees
             * where r is a leaf first (nothing to wait for), then the trees
             * where it is inner (reduce, then bcast, tree order), then the
             * leaf trees' bcast receptions last */
            uint64_t h[2] = {S - S / 2, S / 2};
            int leaf[2];
            for (int k = 0; k < 2; k++) {
                uint32_t par, c0, c1;
                btree(n, dbt_pos(n, r, k), &par, &c0, &c1);
                leaf[k] = c0 == UINT32_MAX && c1 == UINT32_MAX;
            }
            for (int k = 0; k < 2; k++)
                if (leaf[k])
                    dbt_phase(&e, &flat, k, 0, h[k], (uint32_t)k);
            for (int k = 0; k < 2; k++)
                if (!leaf[k])
                    dbt_phase(&e, &flat, k, 0, h[k], (uint32_t)k);
            for (int k = 0; k < 2; k++)
                if (!leaf[k])
                    dbt_phase(&e, &flat, k, 1, h[k], 2 + (uint32_t)k);
            for (int k = 0; k < 2; k++)
                if (leaf[k])
                    dbt_phase(&e, &flat, k, 1, h[k], 2 + (uint32_t)k);
            return;
        }
        case COLL_HIERARCHICAL: {
            uint32_t G = hier_group(s), X = n / G, g = r / G, l = r % G;
            cv local = {.n = G, .me = l, .base = g * G, .stride = 1, .rot = 0};
            cv cross = {.n = X, .me = g, .base = l, .stride = G, .rot = 0};
            blocks bl = {.S = S, .k = G, .counts = NULL, .v = &local};
            if (G > 1)
                ring_steps(&e, &local, &bl, G - 1, 1, 0); /* ends with block l */
            e.tag = G - 1;
            blocks bx = {.S = chunk(S, G, l), .k = X, .counts = NULL, .v = &cross};
            if (X > 1)
                ring_steps(&e, &cross, &bx, 2 * (X - 1), 0, 0);
            e.tag = G - 1 + 2 * (X - 1);
            if (G > 1)
                ring_steps(&e, &local, &bl, G - 1, 0, 0);
            return;
        }
        default: { /* nonoverlapping */
            bino_up(&e, &flat, S, NULL, 0);
            bino_down(&e, &flat, S, NULL, 1);
            return;
        }
        }

    case COLL_GATHER:
    case COLL_SCATTER: {
        blocks b = {.S = S * n, .k = n, .counts = s->counts, .v = &v}; /* chunk(S n, n, j) = S */
        int gather = s->op == COLL_GATHER;
        if (a == COLL_LINEAR) {
            if (v.me == 0) {
                for (uint32_t i = 1; i < n; i++) {
                    if (gather)
                        rcv(&e, &v, i, 0);
                    else
                        snd(&e, &v, i, blk(&b, i), 0);
                }
            } else if (gather) {
                snd(&e, &v, 0, blk(&b, v.me), 0);
            } else {
                rcv(&e, &v, 0, 0);
            }
        } else if (gather) {
            bino_up(&e, &v, 0, &b, 0);
        } else {
            bino_down(&e, &v, 0, &b, 0);
        }
        return;
    }

    case COLL_ALLGATHER: {
        blocks b = {.S = S * n, .k = n, .counts = s->counts, .v = &flat};
        if (a == COLL_RING) {
            ring_steps(&e, &flat, &b, n - 1, 0, 0);
        } else if (a == COLL_RECDBL) { /* n a power of two */
            for (uint32_t d = 1, k = 0; d < n; d *= 2, k++) {
                uint32_t p = r ^ d;
                snd(&e, &flat, p, blk_sum(&b, r & ~(d - 1), d), k);
                rcv(&e, &flat, p, k);
            }
        } else if (a == COLL_BRUCK) {
            for (uint32_t d = 1, k = 0; d < n; d *= 2, k++) {
                uint32_t cnt = d < n - d ? d : n - d;
                snd(&e, &flat, (uint32_t)(((uint64_t)r + n - d) % n), blk_sum(&b, r, cnt), k);
                rcv(&e, &flat, (uint32_t)(((uint64_t)r + d) % n), k);
            }
        } else { /* neighbor exchange, n even */
            int even = r % 2 == 0;
            uint32_t base = even ? r : r - 1; /* pair start held after step 0 */
            uint32_t nb0 = even ? (r + 1) % n : (r + n - 1) % n, nb1 = even ? (r + n - 1) % n : (r + 1) % n;
            snd(&e, &flat, nb0, blk(&b, r), 0);
            rcv(&e, &flat, nb0, 0);
            uint32_t last = base; /* start of the pair received last (step 0: own pair) */
            for (uint32_t i = 1; i < n / 2; i++) {
                uint32_t p = i % 2 ? nb1 : nb0;
                snd(&e, &flat, p, blk_sum(&b, last, 2), i);
                rcv(&e, &flat, p, i);
                int64_t off = even ? (i % 2 ? -(int64_t)(i + 1) : (int64_t)i) : (i % 2 ? (int64_t)(i + 1) : -(int64_t)i);
                last = (uint32_t)(((int64_t)base + off % (int64_t)n + 2 * (int64_t)n) % (int64_t)n);
            }
        }
        return;
    }

    case COLL_ALLTOALL: {
        const uint64_t *m = s->counts;
#define A2A(i, j) (m ? m[(uint64_t)(i) * n + (j)] : S)
        if (a == COLL_LINEAR) {
            for (uint32_t j = 1; j < n; j++)
                snd(&e, &flat, (r + j) % n, A2A(r, (r + j) % n), 0);
            for (uint32_t j = 1; j < n; j++)
                rcv(&e, &flat, (r + n - j) % n, 0);
        } else if (a == COLL_PAIRWISE) {
            for (uint32_t k = 1; k < n; k++) {
                snd(&e, &flat, (r + k) % n, A2A(r, (r + k) % n), k - 1);
                rcv(&e, &flat, (r + n - k) % n, k - 1);
            }
        } else { /* bruck, uniform */
            for (uint32_t d = 1, k = 0; d < n; d *= 2, k++) {
                uint64_t cnt = 0;
                for (uint32_t j = 0; j < n; j++)
                    cnt += (j & d) != 0;
                snd(&e, &flat, (uint32_t)(((uint64_t)r + d) % n), cnt * S, k);
                rcv(&e, &flat, (uint32_t)(((uint64_t)r + n - d) % n), k);
            }
        }
#undef A2A
        return;
    }

    case COLL_REDUCE_SCATTER: {
        blocks b = {.S = S * n, .k = n, .counts = s->counts, .v = &flat};
        if (a == COLL_RING) {
            ring_steps(&e, &flat, &b, n - 1, 1, 0);
        } else if (a == COLL_RECHALVING) {
            uint64_t total = blk_sum(&b, 0, n);
            uint32_t q = rd_pre(&e, &flat, total, 0), L = 0;
            for (uint32_t d = 1; d < P; d *= 2)
                L++;
            rs_ctx rc = {&b, rem};
            if (q != UINT32_MAX)
                halving(&e, &flat, q, P, rs_range, &rc, 1, 0);
            rd_post(&e, &flat, r < 2 * rem && r % 2 ? blk(&b, r - 1) : 0, L + 1);
        } else { /* nonoverlapping: binomial reduce of everything to 0, linear scatterv */
            uint64_t total = blk_sum(&b, 0, n);
            bino_up(&e, &flat, total, NULL, 0);
            if (r == 0)
                for (uint32_t i = 1; i < n; i++)
                    snd(&e, &flat, i, blk(&b, i), 1);
            else
                rcv(&e, &flat, 0, 1);
        }
        return;
    }
    default: return;
    }
}

/* ---- whole collectives ---- */

typedef struct count_ctx {
    uint64_t messages, bytes;
} count_ctx;

static void count_fn(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    (void)peer;
    (void)tag;
    count_ctx *c = ctx;
    if (send) {
        c->messages++;
        c->bytes += bytes;
    }
}

void coll_count(const coll_spec *s, uint64_t *messages, uint64_t *bytes)
{
    count_ctx c = {0, 0};
    for (uint32_t r = 0; r < s->ranks; r++)
        coll_rank(s, r, count_fn, &c);
    *messages = c.messages;
    *bytes = c.bytes;
}

typedef struct prog_ctx {
    tp_builder *b;
    const uint32_t *task;
    uint32_t me, tag_base;
} prog_ctx;

static void prog_fn(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    prog_ctx *c = ctx;
    uint32_t a = c->task ? c->task[c->me] : c->me, p = c->task ? c->task[peer] : peer;
    if (send)
        tp_send_op(c->b, a, p, bytes, c->tag_base + tag);
    else
        tp_recv_op(c->b, a, p, c->tag_base + tag);
}

void coll_program(const coll_spec *s, tp_builder *b, const uint32_t *task, uint32_t tag_base)
{
    prog_ctx c = {b, task, 0, tag_base};
    for (uint32_t r = 0; r < s->ranks; r++) {
        c.me = r;
        coll_rank(s, r, prog_fn, &c);
    }
}
