/* ORCS communication patterns (specs/kernels-patterns.md §2, B1, B2):
 * generators, ptrnvsptrn, levels -> task programs. Definitions and draw
 * order are in patterns.h; comments here say why. */
#include "patterns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

const char *const pat_names[] = {
    "null", "rand",        "bisect",      "bisect_fb_sym", "tree",     "bruck",
    "recdbl", "gather",    "scatter",     "ring",          "neighbor-1d", "neighbor-2d",
    "neighbor-3d", "neighbor", "receivers", "ptrnvsptrn",  NULL,
};

const char *const pat_timing_names[] = {"barrier", "dependency", "free", NULL};

static int find_in(const char *const *names, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

int pat_find(const char *name) { return find_in(pat_names, name); }
int pat_timing_find(const char *name) { return find_in(pat_timing_names, name); }
int pat_takes_arg(pat_kind k) { return k == PAT_NEIGHBOR || k == PAT_RECEIVERS; }
int pat_is_random(pat_kind k) { return k == PAT_RAND || k == PAT_RECEIVERS; }

/* ---- building levels ---- */

static void lv_init(pat_levels *lv, uint32_t ranks)
{
    memset(lv, 0, sizeof *lv);
    lv->ranks = ranks;
    lv->level_cap = 4;
    lv->start = tn_xcalloc((size_t)lv->level_cap + 1, sizeof *lv->start);
}

static void lv_add(pat_levels *lv, uint32_t src, uint32_t dst)
{
    uint64_t n = lv->start[lv->nlevels + 1];
    if (n == lv->pair_cap) {
        lv->pair_cap = lv->pair_cap ? 2 * lv->pair_cap : 64;
        lv->pairs = tn_xrealloc(lv->pairs, lv->pair_cap * sizeof *lv->pairs);
    }
    lv->pairs[n] = (pat_pair){src, dst};
    lv->start[lv->nlevels + 1] = n + 1;
}

/* Close the level being filled; an empty one is dropped (ORCS stops at the
 * first empty level, and no generator here makes an empty level in the
 * middle). start[nlevels + 1] is the running end of the open level. */
static void lv_close(pat_levels *lv)
{
    if (lv->start[lv->nlevels + 1] == lv->start[lv->nlevels])
        return;
    lv->nlevels++;
    if (lv->nlevels == lv->level_cap) {
        lv->level_cap *= 2;
        lv->start = tn_xrealloc(lv->start, ((size_t)lv->level_cap + 1) * sizeof *lv->start);
    }
    lv->start[lv->nlevels + 1] = lv->start[lv->nlevels];
}

void pat_levels_free(pat_levels *lv)
{
    free(lv->start);
    free(lv->pairs);
    memset(lv, 0, sizeof *lv);
}

/* ---- generators ---- */

static uint32_t ceil_log2(uint32_t c)
{
    uint32_t l = 0;
    while (((uint64_t)1 << l) < c)
        l++;
    return l;
}

static uint32_t floor_log2(uint32_t c)
{
    uint32_t l = 0;
    while (((uint64_t)2 << l) <= c)
        l++;
    return l;
}

static void gen_rand(pat_levels *lv, uint32_t C, gsl_rng *r)
{
    /* avail[0..navail) are the unused destinations; pos[d] is d's index
     * there (or UINT32_MAX once used), so removal is a swap with the last. */
    uint32_t *avail = tn_xmalloc((size_t)C * sizeof *avail);
    uint32_t *pos = tn_xmalloc((size_t)C * sizeof *pos);
    for (uint32_t i = 0; i < C; i++)
        avail[i] = pos[i] = i;
    uint32_t navail = C;
    for (uint32_t src = 0; src < C; src++) {
        uint32_t d;
        if (navail == 1 && avail[0] == src) {
            /* Only src is left (src = C-1): ORCS's swap with an earlier pair. */
            uint64_t j = gsl_rng_uniform_int(r, src);
            d = lv->pairs[j].dst;
            lv->pairs[j].dst = src;
            lv_add(lv, src, d);
            break;
        }
        if (pos[src] != UINT32_MAX) {
            uint32_t k = (uint32_t)gsl_rng_uniform_int(r, navail - 1);
            if (k >= pos[src])
                k++; /* skip src itself */
            d = avail[k];
        } else {
            d = avail[gsl_rng_uniform_int(r, navail)];
        }
        uint32_t i = pos[d], last = avail[navail - 1];
        avail[i] = last;
        pos[last] = i;
        pos[d] = UINT32_MAX;
        navail--;
        lv_add(lv, src, d);
    }
    lv_close(lv);
    free(avail);
    free(pos);
}

static void gen_recdbl(pat_levels *lv, uint32_t C)
{
    uint32_t lp = floor_log2(C), P = UINT32_C(1) << lp;
    for (uint32_t l = 0; l < lp; l++) {
        uint32_t d = UINT32_C(1) << l;
        for (uint32_t b = 0; b < P; b += 2 * d)
            for (uint32_t j = 0; j < d; j++) {
                lv_add(lv, b + j, b + j + d);
                lv_add(lv, b + j + d, b + j);
            }
        lv_close(lv);
    }
    for (uint32_t i = 0; i + P < C; i++)
        lv_add(lv, i, i + P);
    lv_close(lv);
}

/* Smallest X with X^dims >= C. */
static uint32_t ceil_root(uint32_t C, unsigned dims)
{
    uint32_t x = 1;
    for (;;) {
        uint64_t p = 1;
        for (unsigned i = 0; i < dims; i++)
            p *= x;
        if (p >= C)
            return x;
        x++;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Face neighbours on a torus of dims dimensions with extents ext[], ranks
 * at cell x0 + e0 (x1 + e1 x2); a step onto a cell >= C keeps going. */
static void gen_grid(pat_levels *lv, uint32_t C, unsigned dims, const uint32_t ext[3])
{
    for (uint32_t r = 0; r < C; r++) {
        uint32_t c[3] = {0, 0, 0}, rest = r;
        for (unsigned a = 0; a < dims; a++) {
            c[a] = rest % ext[a];
            rest /= ext[a];
        }
        uint32_t nb[6];
        unsigned n = 0;
        for (unsigned a = 0; a < dims; a++)
            for (int dir = -1; dir <= 1; dir += 2) {
                uint32_t q[3] = {c[0], c[1], c[2]};
                uint64_t cell;
                do { /* ends at the latest back at r's own cell */
                    q[a] = dir < 0 ? (q[a] + ext[a] - 1) % ext[a] : (q[a] + 1) % ext[a];
                    cell = q[0] + (uint64_t)ext[0] * (q[1] + (uint64_t)ext[1] * q[2]);
                } while (cell >= C);
                if (cell != r)
                    nb[n++] = (uint32_t)cell;
            }
        qsort(nb, n, sizeof nb[0], cmp_u32);
        for (unsigned i = 0; i < n; i++)
            if (i == 0 || nb[i] != nb[i - 1])
                lv_add(lv, r, nb[i]);
    }
    lv_close(lv);
}

static void gen_neighbor(pat_levels *lv, uint32_t C, uint32_t k)
{
    if (k > C - 1)
        k = C - 1;
    uint32_t *slot = tn_xmalloc((size_t)C * k * sizeof *slot); /* [C][k] in fill order */
    uint32_t *cnt = tn_xcalloc(C, sizeof *cnt);
    for (uint32_t i = 0; i < C; i++) {
        /* i's own picks are increasing, so "not yet paired with i" means
         * beyond the last j it picked (smaller ranks picked i themselves). */
        uint32_t j = i + 1;
        while (cnt[i] < k) {
            while (j < C && cnt[j] >= k)
                j++;
            if (j >= C)
                break;
            slot[(size_t)i * k + cnt[i]++] = j;
            slot[(size_t)j * k + cnt[j]++] = i;
            j++;
        }
    }
    for (uint32_t i = 0; i < C; i++)
        for (uint32_t s = 0; s < cnt[i]; s++)
            lv_add(lv, i, slot[(size_t)i * k + s]);
    lv_close(lv);
    free(slot);
    free(cnt);
}

static void gen_receivers(pat_levels *lv, uint32_t C, uint32_t r, gsl_rng *rng)
{
    uint32_t n = C - r;
    uint32_t *s = tn_xmalloc((size_t)n * sizeof *s);
    for (uint32_t i = 0; i < n; i++)
        s[i] = r + i;
    for (uint32_t i = 0; i + 1 < n; i++) {
        uint32_t j = i + (uint32_t)gsl_rng_uniform_int(rng, n - i);
        uint32_t t = s[i];
        s[i] = s[j];
        s[j] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        lv_add(lv, s[i], i % r);
    lv_close(lv);
    free(s);
}

int pat_generate(pat_kind k, uint32_t C, uint32_t arg, gsl_rng *rng, pat_levels *out,
                 char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)k >= PAT_COUNT)
        return tn_error(err, errlen, "pattern: unknown pattern %d", (int)k);
    const char *name = pat_names[k];
    if (k == PAT_PTRNVSPTRN)
        return tn_error(err, errlen, "ptrnvsptrn is a composition of two patterns, not a generator");
    if (C > TP_TASKS_MAX)
        return tn_error(err, errlen, "%s: at most %u ranks (got %u)", name, TP_TASKS_MAX, C);
    if (k != PAT_NULL && C < 2)
        return tn_error(err, errlen, "%s: needs at least 2 ranks (got %u)", name, C);
    if (k == PAT_NEIGHBOR && arg < 1)
        return tn_error(err, errlen, "neighbor: neighbors must be at least 1 (got %u)", arg);
    if (k == PAT_RECEIVERS && (arg < 1 || arg > C / 2))
        return tn_error(err, errlen,
                        "receivers: r = %u must be between 1 and floor(C/2) = %u", arg, C / 2);
    if (pat_is_random(k) && !rng)
        return tn_error(err, errlen, "%s: needs the pattern-rand stream", name);
    /* Pair counts are at most C log2 C (bruck) or C k (neighbor): only the
     * latter can outgrow a program. */
    if (k == PAT_NEIGHBOR && (uint64_t)C * (arg < C ? arg : C - 1) > TP_OPS_MAX / 2)
        return tn_error(err, errlen, "neighbor: %u ranks x %u neighbors is more than %llu pairs",
                        C, arg, (unsigned long long)(TP_OPS_MAX / 2));
    lv_init(out, C);
    switch (k) {
    case PAT_NULL: break;
    case PAT_RAND: gen_rand(out, C, rng); break;
    case PAT_BISECT:
    case PAT_BISECT_FB_SYM:
        for (uint32_t i = 0; i < C / 2; i++) {
            lv_add(out, 2 * i, 2 * i + 1);
            if (k == PAT_BISECT_FB_SYM)
                lv_add(out, 2 * i + 1, 2 * i);
        }
        lv_close(out);
        break;
    case PAT_TREE:
        for (uint32_t l = 0, L = ceil_log2(C); l < L; l++) {
            uint32_t d = UINT32_C(1) << l;
            for (uint32_t i = 0; i < d && (uint64_t)i + d < C; i++)
                lv_add(out, i, i + d);
            lv_close(out);
        }
        break;
    case PAT_BRUCK:
        for (uint32_t l = 0, L = ceil_log2(C); l < L; l++) {
            uint32_t d = UINT32_C(1) << l;
            for (uint32_t i = 0; i < C; i++)
                lv_add(out, i, (uint32_t)(((uint64_t)i + d) % C));
            lv_close(out);
        }
        break;
    case PAT_RECDBL: gen_recdbl(out, C); break;
    case PAT_GATHER:
    case PAT_SCATTER:
        for (uint32_t i = 1; i < C; i++)
            lv_add(out, k == PAT_GATHER ? i : 0, k == PAT_GATHER ? 0 : i);
        lv_close(out);
        break;
    case PAT_RING:
        for (uint32_t l = 0; l < C; l++) {
            lv_add(out, l, (uint32_t)(((uint64_t)l + 1) % C));
            lv_close(out);
        }
        break;
    case PAT_NEIGHBOR_1D: {
        uint32_t ext[3] = {C, 1, 1};
        gen_grid(out, C, 1, ext);
        break;
    }
    case PAT_NEIGHBOR_2D: {
        uint32_t x = ceil_root(C, 2);
        uint32_t ext[3] = {x, (C + x - 1) / x, 1};
        gen_grid(out, C, 2, ext);
        break;
    }
    case PAT_NEIGHBOR_3D: {
        uint32_t x = ceil_root(C, 3);
        uint32_t ext[3] = {x, x, x};
        gen_grid(out, C, 3, ext);
        break;
    }
    case PAT_NEIGHBOR: gen_neighbor(out, C, arg); break;
    case PAT_RECEIVERS: gen_receivers(out, C, arg, rng); break;
    default: break;
    }
    return 0;
}

pat_count_t pat_count(pat_kind k, uint32_t C, uint32_t arg)
{
    pat_count_t c = {0, 0, 0};
    if ((unsigned)k >= PAT_COUNT || k == PAT_NULL || k == PAT_PTRNVSPTRN || C < 2 || C > TP_TASKS_MAX)
        return c;
    uint64_t n = C;
    switch (k) {
    case PAT_RAND: c = (pat_count_t){1, n, n}; break;
    case PAT_BISECT: c = (pat_count_t){1, n / 2, n / 2}; break;
    case PAT_BISECT_FB_SYM: c = (pat_count_t){1, 2 * (n / 2), 2 * (n / 2)}; break;
    case PAT_TREE: /* level l: i < d = 2^l with i + d < C, so every rank 1..C-1 once */
        c.levels = ceil_log2(C);
        c.pairs = n - 1;
        for (uint32_t l = 0; l < c.levels; l++) {
            uint64_t d = UINT64_C(1) << l, m = d < n - d ? d : n - d;
            c.max_level = m > c.max_level ? m : c.max_level;
        }
        break;
    case PAT_BRUCK: c = (pat_count_t){ceil_log2(C), n * ceil_log2(C), n}; break;
    case PAT_RECDBL: { /* P = 2^floor(log2 C): log2 P levels of P pairs, and C - P more */
        uint32_t lp = 0;
        while ((UINT64_C(2) << lp) <= n)
            lp++;
        uint64_t P = UINT64_C(1) << lp;
        c = (pat_count_t){lp + (n > P), P * lp + (n - P), lp ? P : n - P};
        if (n - P > c.max_level)
            c.max_level = n - P;
        break;
    }
    case PAT_GATHER:
    case PAT_SCATTER: c = (pat_count_t){1, n - 1, n - 1}; break;
    case PAT_RING: c = (pat_count_t){C, n, 1}; break;
    case PAT_NEIGHBOR_1D: c = (pat_count_t){1, 2 * n, 2 * n}; break;
    case PAT_NEIGHBOR_2D: c = (pat_count_t){1, 4 * n, 4 * n}; break;
    case PAT_NEIGHBOR_3D: c = (pat_count_t){1, 6 * n, 6 * n}; break;
    case PAT_NEIGHBOR:
        if (arg >= 1)
            c = (pat_count_t){1, n * (arg < C ? arg : C - 1), n * (arg < C ? arg : C - 1)};
        break;
    case PAT_RECEIVERS:
        if (arg >= 1 && arg <= C / 2)
            c = (pat_count_t){1, n - arg, n - arg};
        break;
    default: break;
    }
    return c;
}

pat_count_t pat_count_compose(pat_count_t fg, pat_count_t bg)
{
    pat_count_t c = fg;
    if (bg.levels == 0)
        return c;
    uint64_t cycles = (fg.levels + bg.levels - 1) / bg.levels, by_level = bg.max_level * fg.levels;
    c.pairs += cycles * bg.pairs < by_level ? cycles * bg.pairs : by_level;
    c.max_level += bg.max_level;
    return c;
}

/* ---- sets ---- */

void pat_single(pat_levels *lv, pat_set *out)
{
    memset(out, 0, sizeof *out);
    out->ranks = lv->ranks;
    out->ngroups = 1;
    out->first[0] = 0;
    out->first[1] = lv->ranks;
    out->group[0] = *lv;
    memset(lv, 0, sizeof *lv);
}

/* dst = src's levels src_level[0..n) with ranks shifted by `offset`. */
static void copy_levels(pat_levels *dst, const pat_levels *src, uint32_t ranks, uint32_t n,
                        uint32_t offset)
{
    lv_init(dst, ranks);
    uint32_t L = src->nlevels;
    for (uint32_t l = 0; L > 0 && l < n; l++) {
        uint32_t ls = l % L; /* the background wraps (B2) */
        for (uint64_t i = src->start[ls]; i < src->start[ls + 1]; i++)
            lv_add(dst, src->pairs[i].src + offset, src->pairs[i].dst + offset);
        lv_close(dst);
    }
}

void pat_compose(const pat_levels *fg, const pat_levels *bg, pat_set *out)
{
    memset(out, 0, sizeof *out);
    uint32_t z = fg->ranks, C = fg->ranks + bg->ranks;
    TN_ASSERT(C >= z, "ptrnvsptrn of %u + %u ranks", fg->ranks, bg->ranks);
    out->ranks = C;
    out->ngroups = 2;
    out->first[0] = 0;
    out->first[1] = z;
    out->first[2] = C;
    copy_levels(&out->group[0], fg, C, fg->nlevels, 0);
    copy_levels(&out->group[1], bg, C, fg->nlevels, z);
}

void pat_set_free(pat_set *s)
{
    for (uint32_t g = 0; g < PAT_GROUPS_MAX; g++)
        pat_levels_free(&s->group[g]);
    memset(s, 0, sizeof *s);
}

uint32_t pat_set_levels(const pat_set *s) { return s->ngroups ? s->group[0].nlevels : 0; }

uint64_t pat_set_pairs(const pat_set *s)
{
    uint64_t n = 0;
    for (uint32_t g = 0; g < s->ngroups; g++)
        n += pat_npairs(&s->group[g]);
    return n;
}

/* ---- levels -> programs ---- */

int pat_program(const pat_set *s, pat_timing timing, const dist *size, gsl_rng *sizes,
                tp_prog *out, char *err, size_t errlen)
{
    if ((unsigned)timing >= PAT_TIMING_COUNT)
        return tn_error(err, errlen, "pattern: unknown level timing %d", (int)timing);
    if (s->ngroups < 1 || s->ngroups > PAT_GROUPS_MAX || s->ranks < 1)
        return tn_error(err, errlen, "pattern: empty pattern set");
    if (!size)
        return tn_error(err, errlen, "pattern: no message-size");
    if (!dist_is_const(size) && !sizes)
        return tn_error(err, errlen, "pattern: a random message-size needs a stream");
    if (pat_set_pairs(s) > TP_OPS_MAX / 2)
        return tn_error(err, errlen, "pattern: more than %llu messages",
                        (unsigned long long)(TP_OPS_MAX / 2));
    uint32_t L = pat_set_levels(s);
    for (uint32_t g = 1; g < s->ngroups; g++)
        if (s->group[g].nlevels != 0 && s->group[g].nlevels != L)
            return tn_error(err, errlen, "pattern: group %u has %u levels, the foreground %u", g,
                            s->group[g].nlevels, L);

    /* Sizes in merged order, stored per group beside the pairs. */
    uint64_t *sz[PAT_GROUPS_MAX] = {NULL, NULL};
    for (uint32_t g = 0; g < s->ngroups; g++)
        sz[g] = tn_xmalloc((pat_npairs(&s->group[g]) + 1) * sizeof *sz[g]);
    for (uint32_t l = 0; l < L; l++)
        for (uint32_t g = 0; g < s->ngroups; g++) {
            const pat_levels *lv = &s->group[g];
            if (l >= lv->nlevels)
                continue;
            for (uint64_t i = lv->start[l]; i < lv->start[l + 1]; i++) {
                double x = dist_sample(size, sizes);
                sz[g][i] = x < 0.5 ? 0 : (uint64_t)llround(x);
            }
        }

    tp_builder b;
    tp_builder_init(&b, s->ranks, s->ngroups);
    for (uint32_t g = 0; g < s->ngroups; g++)
        for (uint32_t r = s->first[g]; r < s->first[g + 1]; r++)
            tp_set_group(&b, r, g);

    uint32_t prev[PAT_GROUPS_MAX] = {TP_AT_START, TP_AT_START};
    if (timing == PAT_FREE)
        for (uint32_t g = 0; g < s->ngroups; g++) {
            const pat_levels *lv = &s->group[g];
            if (lv->nlevels == 0)
                continue;
            tp_phase_begin(&b, g, TP_AT_START);
            for (uint32_t l = 0; l < lv->nlevels; l++)
                for (uint64_t i = lv->start[l]; i < lv->start[l + 1]; i++)
                    tp_phase_send(&b, lv->pairs[i].src, lv->pairs[i].dst, sz[g][i], l);
        }
    for (uint32_t l = 0; l < L; l++) {
        for (uint32_t g = 0; g < s->ngroups; g++) {
            const pat_levels *lv = &s->group[g];
            if (l >= lv->nlevels)
                continue;
            if (timing == PAT_BARRIER)
                prev[g] = tp_phase_begin(&b, g, prev[g]);
            for (uint64_t i = lv->start[l]; i < lv->start[l + 1]; i++) {
                const pat_pair *p = &lv->pairs[i];
                if (timing == PAT_BARRIER)
                    tp_phase_send(&b, p->src, p->dst, sz[g][i], l);
                else if (timing == PAT_DEPENDENCY)
                    tp_send_op(&b, p->src, p->dst, sz[g][i], l);
            }
        }
        /* Receptions after every send of the level: in dependency mode a
         * rank's level-l sends precede its level-l recvs (B1). */
        for (uint32_t g = 0; g < s->ngroups; g++) {
            const pat_levels *lv = &s->group[g];
            if (l >= lv->nlevels)
                continue;
            for (uint64_t i = lv->start[l]; i < lv->start[l + 1]; i++)
                tp_recv_op(&b, lv->pairs[i].dst, lv->pairs[i].src, l);
        }
    }
    for (uint32_t g = 0; g < s->ngroups; g++)
        free(sz[g]);
    tp_build(&b, out);
    return 0;
}
