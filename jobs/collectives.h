/* MPI collectives as point-to-point programs (issue 20 item 4). Pure: no
 * engine, no fabric. Used by the training workload (allreduce=) and by MPI
 * trace replay; tp_coll_program puts one into a task program.
 *
 * A collective on a communicator of n ranks (0..n-1) is, for every rank, an
 * ordered list of operations send(peer, bytes, tag) and recv(peer, tag), as
 * the rank's own code in an MPI library issues them (coll_rank). Sends never
 * block, a recv waits for the matching message (the task-program model,
 * taskprog.h); the reduction itself takes no time (seed 002 sec. 5.2.1).
 * How a message travels is the caller's: training's task program sends
 * each at once whatever its size; the mpi-trace replay sends those at or
 * above its eager-limit by rendezvous (RTS, CTS, data) as its
 * point-to-point ones, the rank finishing the collective when its sends'
 * data has arrived (workloads/wl_mpi_trace.c).
 * Tags are small step numbers 0..coll_tags()-1, the same on both sides of
 * every message, so a caller adds its own base.
 *
 * Sizes: `bytes` is each rank's vector (bcast, reduce, allreduce), its block
 * (gather, scatter, allgather, reduce-scatter: every rank's block), or each
 * pair's block (alltoall). The v variants give counts[n] (gatherv, scatterv,
 * allgatherv, reduce_scatter's recvcounts: rank j's block) or for alltoallv
 * counts[n * n] (counts[i n + j]: bytes i sends j). A vector split into k
 * blocks gives block j floor(S/k) bytes, plus one for j < S mod k (the
 * training ring's chunks).
 *
 * Algorithms (relative ranks vr = (r - root) mod n where a root exists;
 * P' = the largest power of two <= n, rem = n - P', L = log2 P'):
 *  barrier
 *   linear              every rank sends 0 B to rank 0; rank 0, having all
 *                       n-1, sends 0 B to each (rank order)
 *   recursive-doubling  as allreduce recursive-doubling with 0 B
 *   bruck               dissemination: step k = 0..ceil(log2 n)-1, send to
 *                       r + 2^k, recv from r - 2^k (mod n)
 *  bcast
 *   linear              root sends S to every other rank, rank order
 *   binomial            vr receives from vr - lowbit(vr), then sends to
 *                       vr + m for m = lowbit/2 .. 1 (root: m = 2^(ceil(log2 n)-1) .. 1)
 *                       while vr + m < n (MPICH, Open MPI bmtree)
 *   pipeline            chain vr-1 -> vr -> vr+1 in segments of `segment`
 *                       bytes (ceil(S/seg), the last smaller): per segment
 *                       recv from vr-1, send to vr+1
 *   scatter-allgather   van de Geijn: binomial scatter of the n blocks of S,
 *                       then ring allgather of them
 *  reduce
 *   linear              every rank sends S to the root; root receives in rank order
 *   binomial            mirror of the bcast: vr receives from vr + m for
 *                       m = 1, 2, .. while vr & m = 0 (vr + m < n), then sends S
 *                       to vr - lowbit(vr)
 *   pipeline            chain towards the root: per segment recv from vr+1,
 *                       send to vr-1
 *  allreduce
 *   ring                2(n-1) steps: at step t rank r sends block (r - t) mod n
 *                       of S to r+1 and receives from r-1 (reduce-scatter,
 *                       then allgather; Horovod, Open MPI, the training model)
 *   recursive-doubling  pre: ranks r < 2 rem, r even, send S to r+1 and drop
 *                       out; the P' others (new rank r/2 or r - rem) exchange
 *                       S with new rank ^ 2^k for k = 0..L-1; post: r+1 sends
 *                       S back to even r (MPICH)
 *   rabenseifner        (halving-doubling) the same pre/post; between them a
 *                       reduce-scatter by recursive halving (distance P'/2
 *                       first, each step sending the half of its blocks it
 *                       does not keep) and an allgather by recursive doubling
 *                       (the reverse), over P' blocks of S
 *   direct              ASTRA-sim's direct: each rank sends block j of n to
 *                       rank j (all j != r), receives its block from all,
 *                       then sends its reduced block to all and receives all
 *   tree                double binary tree (NCCL): two binary trees over the
 *                       ranks (NCCL's construction, collectives.c), the
 *                       second the first shifted by one (n odd) or mirrored
 *                       (n even), each reducing and then
 *                       broadcasting half of S (ceil to tree 1), unsegmented;
 *                       rank r: the reduce sends of the trees where it is a
 *                       leaf, then per inner tree reduce (receive children,
 *                       send parent), per inner tree bcast, and last the leaf
 *                       trees' bcast receptions (trees in parallel, as
 *                       NCCL's channels)
 *   hierarchical        two-level ring (ASTRA-sim): groups of `group`
 *                       consecutive ranks; ring reduce-scatter inside the
 *                       group (G blocks of S), ring allreduce of the own
 *                       block among the ranks with the same index in every
 *                       group, ring allgather inside the group
 *   nonoverlapping      binomial reduce to rank 0, then binomial bcast
 *                       (Open MPI's reduce + bcast)
 *  gather(v), scatter(v)
 *   linear              each rank sends its block to the root (scatter: the
 *                       root sends each its block), rank order
 *   binomial            subtree blocks: vr receives [vr+m, min(vr+2m, n)) from
 *                       vr + m, then sends [vr, min(vr+lowbit, n)) to its
 *                       parent (scatter: the mirror)
 *  allgather(v)
 *   ring                n-1 steps: send block (r - t) mod n to r+1, receive
 *                       block (r - t - 1) from r-1
 *   recursive-doubling  (n a power of two, else bruck) step k: exchange the
 *                       2^k blocks of the own aligned group with r ^ 2^k
 *   bruck               step k (d = 2^k < n): send the min(d, n-d) blocks
 *                       r .. r+cnt-1 to r - d, receive r+d .. from r + d
 *   neighbor-exchange   (n even, else ring) Chen et al. / Open MPI: step 0
 *                       even r swaps its block with r+1; steps i = 1..n/2-1
 *                       swap the pair of blocks received last with r-1 and
 *                       r+1 alternately (odd ranks mirrored)
 *  alltoall(v)
 *   linear              send to r+1, r+2, .. (mod n), then receive from
 *                       r-1, r-2, ..; Open MPI basic linear
 *   pairwise            step s = 1..n-1: send to r+s, receive from r-s
 *   bruck               (uniform sizes; alltoallv: pairwise) step k: send to
 *                       r + 2^k, receive from r - 2^k, the blocks whose
 *                       index has bit k set: m x |{j < n : j & 2^k}|
 *  reduce-scatter
 *   ring                n-1 steps: send block (r - t - 1) mod n to r+1
 *   recursive-halving   the recursive-doubling pre step (S = all blocks),
 *                       recursive halving over the P' new ranks (new rank i
 *                       owns the blocks of the ranks it stands for), post:
 *                       r+1 sends even r its block
 *   nonoverlapping      binomial reduce of all blocks to rank 0, then linear
 *                       scatterv (Open MPI)
 * Defaults (coll_default): Open MPI 1.6's coll/tuned fixed decision rules
 * (coll_tuned_decision_fixed.c), written down per operation in
 * collectives.c; where a rule picks an algorithm tasknet does not have
 * (split binary tree, binary tree, segmented binomial or ring, linear-sync
 * gather) the nearest one here stands in, named there. */
#ifndef TASKNET_COLLECTIVES_H
#define TASKNET_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#include "taskprog.h"

typedef enum coll_op {
    COLL_BARRIER = 0,
    COLL_BCAST,
    COLL_REDUCE,
    COLL_ALLREDUCE,
    COLL_GATHER,
    COLL_SCATTER,
    COLL_ALLGATHER,
    COLL_ALLTOALL,
    COLL_REDUCE_SCATTER,
    COLL_NOPS
} coll_op;

typedef enum coll_alg {
    COLL_AUTO = 0, /* coll_default's choice */
    COLL_LINEAR,
    COLL_BINOMIAL,
    COLL_PIPELINE,
    COLL_SCATTER_ALLGATHER,
    COLL_RING,
    COLL_RECDBL,
    COLL_RABENSEIFNER,
    COLL_DIRECT,
    COLL_TREE,
    COLL_HIERARCHICAL,
    COLL_NONOVERLAPPING,
    COLL_BRUCK,
    COLL_NEIGHBOR,
    COLL_PAIRWISE,
    COLL_RECHALVING,
    COLL_NALGS
} coll_alg;

/* "barrier", "bcast", "reduce", "allreduce", "gather", "scatter",
 * "allgather", "alltoall", "reduce-scatter"; NULL-terminated. */
extern const char *const coll_op_names[];
/* "auto", "linear", "binomial", "pipeline", "scatter-allgather", "ring",
 * "recursive-doubling", "rabenseifner", "direct", "tree", "hierarchical",
 * "nonoverlapping", "bruck", "neighbor-exchange", "pairwise",
 * "recursive-halving"; NULL-terminated. */
extern const char *const coll_alg_names[];
/* The choices of a configuration's algorithm attributes (training's and
 * mpi-trace's allreduce=, mpi-trace's bcast=, ...): coll_alg_names and
 * "halving-doubling" (Rabenseifner's, ASTRA-sim's name); NULL-terminated.
 * coll_choice_alg: the algorithm of choice i. */
extern const char *const coll_choice_names[];
coll_alg coll_choice_alg(int i);
/* An algorithm by name ("halving-doubling" is rabenseifner); -1 if unknown. */
int coll_alg_find(const char *name);
/* Whether op has algorithm alg (COLL_AUTO: always). */
int coll_alg_valid(coll_op op, coll_alg alg);
/* "linear|binomial|..." the algorithms of op (static string). */
const char *coll_alg_list(coll_op op);

typedef struct coll_spec {
    coll_op op;
    coll_alg alg;           /* COLL_AUTO: coll_default */
    uint32_t ranks;         /* n >= 1 */
    uint32_t root;          /* bcast, reduce, gather, scatter */
    uint64_t bytes;         /* see the head comment */
    const uint64_t *counts; /* v variants (NULL: `bytes` everywhere) */
    uint64_t segment;       /* pipeline segment, bytes (0: the default rule's, else 64 KiB) */
    uint32_t group;         /* hierarchical: ranks per group (0: the largest divisor of n <= sqrt n) */
} coll_spec;

/* The algorithm a spec runs: its own, or coll_default's for COLL_AUTO, with
 * the fallbacks above (recursive-doubling allgather on a non-power of two
 * -> bruck, neighbor-exchange on odd n -> ring, bruck alltoallv ->
 * pairwise, a hierarchical group that does not divide n -> ring). */
coll_alg coll_resolve(const coll_spec *s);
/* Open MPI's fixed decision for op on n ranks of `bytes` (v variants:
 * counts), and the segment it picks for pipelines (*segment, may be NULL). */
coll_alg coll_default(coll_op op, uint32_t n, uint64_t bytes, const uint64_t *counts, uint64_t *segment);

/* 0, or -1 + err: n = 0, root out of range, an algorithm op does not have. */
int coll_check(const coll_spec *s, char *err, size_t errlen);

/* Tags a collective uses: 0 .. coll_tags - 1 (the same on every rank). */
uint32_t coll_tags(const coll_spec *s);

/* Rank r's operations in order: fn(ctx, 1, peer, bytes, tag) for a send,
 * fn(ctx, 0, peer, 0, tag) for a receive. No allocation. */
typedef void (*coll_emit_fn)(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag);
void coll_rank(const coll_spec *s, uint32_t rank, coll_emit_fn fn, void *ctx);

/* Messages and payload bytes of the whole collective (every rank's sends). */
void coll_count(const coll_spec *s, uint64_t *messages, uint64_t *bytes);

/* Append the collective to a task program: rank i is task task[i] (NULL:
 * task i), tags tag_base + 0 .. coll_tags - 1. */
void coll_program(const coll_spec *s, tp_builder *b, const uint32_t *task, uint32_t tag_base);

#endif
