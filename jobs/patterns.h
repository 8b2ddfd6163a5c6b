/* ORCS communication patterns (specs/kernels-patterns.md §2, seed 001):
 * pure generators of levels of (src, dst) rank pairs, the ptrnvsptrn
 * composition (B2), and the conversion of levels into task programs under
 * the three level timings of B1. No fabric, no engine.
 *
 * A pattern on a communicator of C ranks is a list of levels; a level is an
 * ordered list of pairs. Generators (P = 2^floor(log2 C), level l = 0, 1, ...):
 *   null           no level
 *   rand           1: a derangement drawn rank by rank: for src = 0..C-1, dst
 *                  uniform among the unused destinations other than src; if
 *                  only src is left (src = C-1), a uniformly drawn earlier pair
 *                  (s', d') becomes (s', C-1) and (C-1, d') is added (ORCS's
 *                  swap; not uniform over derangements, kept to compare
 *                  with ORCS). Draws: gsl_rng_uniform_int on the caller's
 *                  "pattern-rand" stream, one per rank in rank order (the
 *                  last rank's picks the earlier pair when it must swap).
 *   bisect         1: (2i, 2i+1), i < floor(C/2) (Deviation: ORCS's
 *                  unsequenced counter++, spec §2)
 *   bisect_fb_sym  1: (2i, 2i+1) then (2i+1, 2i)
 *   tree           ceil(log2 C): d = 2^l: (i, i+d) for i < d while i+d < C
 *   bruck          ceil(log2 C): d = 2^l: (i, (i+d) mod C), i = 0..C-1
 *   recdbl         log2 P (+1 if C > P): d = 2^l, blocks b = 0, 2d, .. < P,
 *                  j < d, k = b+j: (k, k+d) then (k+d, k); extra level
 *                  (i, i+P), i < C-P
 *   gather         1: (i, 0), i = 1..C-1;  scatter: (0, i)
 *   ring           C: level l is the single pair (l, (l+1) mod C)
 *   neighbor-1d    1: ring neighbours r-1, r+1 (mod C)
 *   neighbor-2d    1: X = ceil(sqrt C), Y = ceil(C/X), rank r at
 *                  (r mod X, r div X); W, E, N, S on the X x Y torus,
 *   neighbor-3d    1: X = Y = Z = ceil(C^(1/3)), r at (r mod X, (r div X)
 *                  mod Y, r div XY); the 6 face neighbours.
 *                  1d/2d/3d: a step onto an empty cell (index >= C) keeps
 *                  going in that direction (wrapping); self pairs and
 *                  duplicates removed; pairs sorted by (src, dst).
 *   neighbor       1 (arg k, k > C-1 becomes C-1): greedy k-regular pairing,
 *                  for i = 0..C-1, while i has a free slot, the smallest
 *                  j > i not yet paired with i with a free slot fills one
 *                  slot of each; pairs: for each i its slots in fill order.
 *   receivers      1 (arg r, 1 <= r <= floor(C/2)): ranks r..C-1 in a
 *                  uniformly random order (Fisher-Yates on "pattern-rand",
 *                  C-r-1 draws) are the senders; the i-th sends to i mod r.
 * Every generator but null needs C >= 2. */
#ifndef TASKNET_PATTERNS_H
#define TASKNET_PATTERNS_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "taskprog.h"

typedef enum pat_kind {
    PAT_NULL = 0,
    PAT_RAND,
    PAT_BISECT,
    PAT_BISECT_FB_SYM,
    PAT_TREE,
    PAT_BRUCK,
    PAT_RECDBL,
    PAT_GATHER,
    PAT_SCATTER,
    PAT_RING,
    PAT_NEIGHBOR_1D,
    PAT_NEIGHBOR_2D,
    PAT_NEIGHBOR_3D,
    PAT_NEIGHBOR,
    PAT_RECEIVERS,
    PAT_PTRNVSPTRN, /* a composition (pat_compose), not a generator */
    PAT_COUNT
} pat_kind;

/* `pattern` choices in pat_kind order ("null", "rand", ..., "ptrnvsptrn"),
 * NULL-terminated; pat_find gives the index or -1. */
extern const char *const pat_names[];
int pat_find(const char *name);
/* 1 for the generators that take an argument (neighbor: k, receivers: r). */
int pat_takes_arg(pat_kind k);
/* 1 for the generators that draw from the "pattern-rand" stream. */
int pat_is_random(pat_kind k);

typedef struct pat_pair {
    uint32_t src, dst; /* ranks */
} pat_pair;

/* Levels of one pattern: level l is pairs[start[l] .. start[l+1]). */
typedef struct pat_levels {
    uint32_t ranks;     /* C */
    uint32_t nlevels;   /* levels (none empty) */
    uint64_t *start;    /* [nlevels + 1] */
    pat_pair *pairs;    /* [start[nlevels]] */
    uint32_t level_cap; /* room in start[] - 1 (building) */
    uint64_t pair_cap;  /* room in pairs[] (building) */
} pat_levels;

static inline uint64_t pat_npairs(const pat_levels *lv) { return lv->start ? lv->start[lv->nlevels] : 0; }
static inline uint64_t pat_level_size(const pat_levels *lv, uint32_t l)
{
    return lv->start[l + 1] - lv->start[l];
}

/* Generate pattern k on C ranks into *out (arg: neighbor's k, receivers' r;
 * ignored otherwise; rng: "pattern-rand", used by rand and receivers, may be
 * NULL for the others). 0, or -1 + err ("receivers: r = 5 must be between 1
 * and floor(C/2) = 4"); *out is empty on -1. */
int pat_generate(pat_kind k, uint32_t ranks, uint32_t arg, gsl_rng *rng, pat_levels *out,
                 char *err, size_t errlen);
void pat_levels_free(pat_levels *lv);

/* What pat_generate(k, C, arg) would make, without making it (for a
 * workload's estimate before a run, where C (C - 1) pairs may not fit):
 * its levels exactly, its pairs and the size of its largest level exactly
 * for every generator but the neighbor ones, whose self pairs and
 * duplicates are not counted off (2C, 4C, 6C, C min(k, C-1): at most those).
 * Arguments pat_generate would refuse give 0 levels and pairs. */
typedef struct pat_count_t {
    uint32_t levels;
    uint64_t pairs;     /* all levels */
    uint64_t max_level; /* pairs of the largest level */
} pat_count_t;
pat_count_t pat_count(pat_kind k, uint32_t ranks, uint32_t arg);
/* The same for ptrnvsptrn: fg on z ranks, bg on C - z, merged as
 * pat_compose does (the background's levels repeat over the foreground's):
 * at most the background's largest level per foreground level, and at most
 * its pairs per full cycle. */
pat_count_t pat_count_compose(pat_count_t fg, pat_count_t bg);

/* Sub-patterns sharing the machine. Group 0 is the foreground (the whole
 * pattern when there is one group), group 1 the background of ptrnvsptrn.
 * Group g owns ranks first[g] .. first[g+1]-1 and its levels use global
 * ranks. With two groups both have the foreground's level count L, or the
 * background has none (null background); merged level l is group 0's
 * level l followed by group 1's level l. */
#define PAT_GROUPS_MAX 2
typedef struct pat_set {
    uint32_t ranks;                      /* C */
    uint32_t ngroups;                    /* 1 or 2 */
    uint32_t first[PAT_GROUPS_MAX + 1];  /* rank ranges of the groups */
    pat_levels group[PAT_GROUPS_MAX];    /* levels of each group, on global ranks */
} pat_set;

/* A single pattern as a set (takes lv's arrays over; lv is left empty). */
void pat_single(pat_levels *lv, pat_set *out);
/* ptrnvsptrn (B2): fg on ranks 0..z-1 (z = fg->ranks), bg on ranks z..C-1
 * (its own rank i is global z+i, C = z + bg->ranks). Merged level l =
 * fg level l then bg level (l mod L_bg): the background repeats for as long
 * as the foreground runs and stops with it (Deviation from ORCS, spec B2).
 * Copies the pairs; fg and bg stay the caller's. */
void pat_compose(const pat_levels *fg, const pat_levels *bg, pat_set *out);
void pat_set_free(pat_set *s);
/* Merged level count (the foreground's) and pairs of all groups. */
uint32_t pat_set_levels(const pat_set *s);
uint64_t pat_set_pairs(const pat_set *s);

/* Level timing (B1). */
typedef enum pat_timing { PAT_BARRIER = 0, PAT_DEPENDENCY, PAT_FREE, PAT_TIMING_COUNT } pat_timing;
extern const char *const pat_timing_names[]; /* "barrier", "dependency", "free"; NULL-terminated */
int pat_timing_find(const char *name);

/* Task program of a pattern set (one task per rank, group per rank range,
 * tag = merged level index):
 *   barrier     one phase per (group, level), in merged order; level l+1 of
 *               a group is released when its level l has delivered its last
 *               message (a barrier per sub-pattern, B2); within a phase the
 *               pairs are handed over in list order at one instant. Each
 *               destination lists recv(src, l) for its pairs, level order.
 *   dependency  rank r, for each level l: send of its pairs (src = r) in
 *               list order, then recv of its pairs (dst = r) in list order.
 *   free        one phase per group holding all its levels in order,
 *               released at t = 0 (foreground's phase first).
 * Sizes: one draw of `size` (bytes, rounded to nearest) per pair in merged
 * order (level, group, list position), the same whatever the timing, so
 * the three timings see the same messages. sizes may be NULL for a
 * constant. 0, or -1 + err. */
int pat_program(const pat_set *s, pat_timing timing, const dist *size, gsl_rng *sizes,
                tp_prog *out, char *err, size_t errlen);

#endif
