/* Navaridas & Miguel-Alonso communication micro-kernels as task programs
 * (specs/kernels-patterns.md §1, seed 003): pure generators, no fabric.
 *
 *   one-to-all  (A1)  for each iteration k: the root sends to r+1, r+2, ...,
 *                     r+T-1 (mod T), tag k; every other task recv(root, k).
 *   all-to-one  (A2)  for each k: every task s != r, in id order, sends to
 *                     the root, tag k; the root recv(s, k) in the same order.
 *   all-to-all  (A3)  for each k: task t sends to (t+u) mod T, u = 1..T-1
 *                     ("shifted", the paper) or to 0..T-1 skipping t
 *                     ("linear", INRFlow), then receives in the same
 *                     orientation: recv((t-u) mod T) resp. 0..T-1 skipping t.
 *   sync-random (A4)  M messages in waves of W; for each wave w: its messages'
 *                     sends in draw order (appended to each sender's list),
 *                     then their recvs in draw order, then (if the compute
 *                     time is not identically 0) one compute per task, task
 *                     order; tag w. Point-to-point causality, not a barrier.
 *   gups        (A4)  sync-random with W = M (one wave).
 *
 * Random draws, each on the stream the caller passes (the spec's names):
 *   "kernel-pairs"   per SR message in order: src = floor(u1 T), then
 *                    dst = floor(u2 T) (u = gsl_rng_uniform); both drawn
 *                    again while src == dst (INRFlow redraws; a message to
 *                    oneself never enters a network). kern_draw_pair.
 *   "kernel-sizes"   one size per message, in the order the sends are
 *                    generated (iteration, then sender, then destination;
 *                    SR: draw order), rounded to the nearest byte (a draw
 *                    below 0.5 B gives 0 B), as uniform-random does.
 *   "kernel-compute" one draw per task per wave (SR), task order, in
 *                    seconds, rounded to the nearest ps (negative: 0).
 * A constant distribution draws nothing.
 *
 * Determinism note (GUPS): §A4 says "every message is handed over at t = 0
 * in draw order". Under the §0 scheduling rule tasks start in id order and
 * each runs its list, so at t = 0 the hand-overs come task by task, each
 * task's in draw order. That is what these programs do; only ties between
 * different sources at one port can differ from a global draw order. */
#ifndef TASKNET_KERNELS_H
#define TASKNET_KERNELS_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "taskprog.h"

typedef enum kern_kind {
    KERN_ONE_TO_ALL = 0,
    KERN_ALL_TO_ONE,
    KERN_ALL_TO_ALL,
    KERN_SYNC_RANDOM,
    KERN_GUPS,
    KERN_COUNT
} kern_kind;

typedef enum kern_order { KERN_SHIFTED = 0, KERN_LINEAR = 1 } kern_order;

/* The `kernel` choices in kern_kind order ("one-to-all", ..., "gups"), and
 * the `order` choices ("shifted", "linear"); NULL-terminated. */
extern const char *const kern_names[];
extern const char *const kern_order_names[];
/* Index of `name` in kern_names / kern_order_names, or -1. */
int kern_find(const char *name);
int kern_order_find(const char *name);

typedef struct kern_params {
    kern_kind kernel;        /* which kernel */
    uint32_t tasks;          /* T, >= 2 */
    uint32_t root;           /* O2A/A2O root task, < T */
    kern_order order;        /* A2A destination order */
    uint32_t iterations;     /* O2A/A2O/A2A repeats, >= 1 (tags 0..iterations-1) */
    uint64_t total_messages; /* SR/GUPS: M >= 1 */
    uint64_t wave;           /* SR: W, 1 <= W <= M (GUPS: ignored, W = M) */
} kern_params;

/* Every rule p must meet (no allocation): 0, or -1 + a message naming the
 * value, e.g. "wave (200) is larger than total-messages (100)". Also refuses
 * programs over TP_OPS_MAX ops. */
int kern_check(const kern_params *p, char *err, size_t errlen);

/* Messages the kernel sends: (T-1) iterations (O2A, A2O), T(T-1) iterations
 * (A2A), M (SR, GUPS). */
uint64_t kern_messages(const kern_params *p);
/* SR/GUPS: waves ceil(M / W) (GUPS: 1); other kernels: 0. */
uint64_t kern_waves(const kern_params *p);

/* One SR message's (src, dst), as described above. */
void kern_draw_pair(gsl_rng *pairs, uint32_t tasks, uint32_t *src, uint32_t *dst);

/* Build the kernel's program into *out (one group, every task in group 0).
 * size: message size distribution (bytes), drawn from `sizes`;
 * compute: SR compute time per task per wave (seconds), drawn from
 * `compute_rng`; NULL or identically 0 adds no compute op;
 * pairs: the SR/GUPS pair stream (unused by other kernels; may be NULL then).
 * 0, or -1 + err (the kern_check messages); *out is untouched on -1. */
int kern_build(const kern_params *p, const dist *size, gsl_rng *sizes, const dist *compute,
               gsl_rng *compute_rng, gsl_rng *pairs, tp_prog *out, char *err, size_t errlen);

#endif
