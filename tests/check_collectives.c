/* The collectives module (jobs/collectives.c): every algorithm of every
 * operation run as a task program on the §4 star (electrical-switch,
 * B = 10 Gb/s, link 20 ns, switch 200 ns) for 2, 3, 4 and 8 ranks, its
 * message count, payload bytes and completion time derived by hand beside
 * the table; the default rules; v variants; errors.
 *
 * The switch's rules (MODEL §6): a source sends its messages one after
 * another at B; an output port is a FIFO with virtual cut-through: a
 * message whose first bit left at t0 starts on the port at
 * max(t0 + 220 ns, port free) and arrives 20 ns after its last bit. Alone,
 * m bytes take T(m) = 0.8 m + 240 ns (ser(m) = 0.8 m ns):
 *   T(0) = 240, T(1000) = 1040, T(2000) = 1840, T(3000) = 2640,
 *   T(4000) = 3440, T(6000) = 5040, T(8000) = 6640, T(12000) = 9840,
 *   T(24000) = 19440 ns.
 * Same-time hand-overs follow rank order (the executor starts ranks in
 * order). bcast/reduce/allreduce move S = 24000 B (divisible by 2, 3, 4, 8),
 * the others blocks of 1000 B; roots are rank 0. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "collectives.h"
#include "harness.h"
#include "prog_exec.h"

#define XK 0x434cu /* net_msg.kind of the tests' programs */

typedef struct outcome {
    int64_t done_ps;
    uint64_t msgs, bytes;
} outcome;

/* Run one collective alone on the star; every rank must finish and every
 * message be received exactly once (pexec_finish). */
static outcome run_spec(const coll_spec *s)
{
    char err[256];
    ck_assert_msg(coll_check(s, err, sizeof err) == 0, "%s", err);
    tp_builder b;
    tp_builder_init(&b, s->ranks, 1);
    coll_program(s, &b, NULL, 0);
    tp_prog p;
    tp_build(&b, &p);
    ck_assert_uint_le(p.tags, coll_tags(s));
    net_params np = th_star(s->ranks < 2 ? 2 : s->ranks, 10e9); /* a fabric has 2 nodes at least */
    pexec *x = pexec_create(&p, NULL, np.nodes, XK, err, sizeof err);
    ck_assert_msg(x != NULL, "%s", err);
    th_net *h = th_net_to("electrical-switch", &np, NULL, NULL, 1, pexec_deliver, x);
    pexec_start(x, h->s, h->n);
    th_net_go(h);
    ck_assert_msg(pexec_finish(x, err, sizeof err) == 0, "%s %s n=%u: %s", coll_op_names[s->op],
                  coll_alg_names[s->alg], s->ranks, err);
    pexec_counts c;
    pexec_get_counts(x, &c);
    outcome o = {pexec_done_ps(x), c.sent, c.bytes_sent};
    uint64_t m, by;
    coll_count(s, &m, &by);
    ck_assert_uint_eq(m, c.sent);
    ck_assert_uint_eq(by, c.bytes_sent);
    pexec_destroy(x);
    th_net_free(h);
    tp_prog_free(&p);
    return o;
}

typedef struct row {
    coll_op op;
    coll_alg alg;
    uint32_t n;
    uint64_t msgs, bytes;
    int64_t ns; /* completion, ns */
} row;

/* Derivations, per algorithm (n = 2, 3, 4, 8):
 * barrier (0 B: T = 240, nothing serialises)
 *   linear: n-1 to rank 0 (240), rank 0 answers (480); 2(n-1) messages.
 *   recursive-doubling: log2 n rounds of 240 (n log2 n messages); n = 3: 0 -> 1
 *     (240) while 2 -> 1 (240); 1 -> 2 and the post 1 -> 0 at 240: 480; 4 messages.
 *   bruck: ceil(log2 n) rounds of 240, n per round.
 * bcast S = 24000
 *   linear: the root's n-1 copies serialise on its link: (n-2) 19200 + 19440.
 *   binomial: n=3: root -> 2 (19440), -> 1 (19200 + 19440 = 38640); n=4: -> 2
 *     (19440), -> 1 (38640), 2 -> 3 at 19440 (38880); n=8: root -> 4, 2, 1 at
 *     19440, 38640, 57840; 4 -> 6 (38880), 6 -> 7 (58320), the last.
 *   pipeline (one 64 KiB segment: the chain): (n-1) 19440.
 *   scatter-allgather (blocks S/n): n=2: root -> 1 (12000 B, 9840); ring: 0's
 *     block queued behind it (19200 + 240 = 19440), 1's at 9840 (19680).
 *     n=3 (8000 B, ser 6400): scatter 0 -> 2 (6640), 0 -> 1 (13040); ring step 0:
 *     0 -> 1 first bit 12800 (19440), 2 -> 0 (13280), 1 -> 2 (19680); step 1: 0 at
 *     max(13280, free 19200) (25840), 1 at 19440 (26080), 2 at 19680 (26320).
 *     n=4 (6000 B, ser 4800): scatter 0 -> 2 (12000 B: 9840), 0 -> 1 (14640),
 *     2 -> 3 (14880); ring with a(r,t) = max(ready, own link free) + 5040:
 *     step 0: 19440, 19680, 19680, 19920; step 1: 24960, 24480, 24720, 24720;
 *     step 2: 29760, 30000, 29520, 29760 -> 30000. n=8 (3000 B): scatter at
 *     ranks 1..7: 17040, 14640, 17280, 9840, 17280, 14880, 17520 (links free at
 *     16800 (0), 17040 (2, 4), 17280 (6)); the same ring recurrence with
 *     2640 / 2400 over 7 steps ends at 36000. Messages (n-1) + n(n-1).
 * reduce S = 24000: linear: n-1 into the root's port: 240 + (n-1) 19200.
 *   binomial: n=3: 1 and 2 into 0 (19440, 38640); n=4: 1 -> 0, 3 -> 2 (19440),
 *   2 -> 0 (38880); n=8: three rounds, 58320. pipeline: (n-1) 19440.
 * allreduce S = 24000
 *   ring: 2(n-1) steps of T(S/n): 2 x 9840, 4 x 6640, 6 x 5040, 14 x 2640.
 *   recursive-doubling: n=2: 19440; n=4: 2 x 19440; n=8: 3 x 19440; n=3: 0 -> 1
 *     and 2 -> 1 at 0 share 1's port (19440, 38640), 1 -> 2 at 19440 (38880),
 *     post 1 -> 0 when its link frees at 38640 (58080).
 *   rabenseifner: halves then doubles: n=2: 2 x 9840; n=4: 12000, 6000, 6000,
 *     12000 B: 2 (9840 + 5040); n=8: 2 (9840 + 5040 + 2640); n=3: pre 0 -> 1
 *     (19440) while 2 -> 1 sends its half 12000 (port after 0's: 19420 + 9620 =
 *     29040), 1 -> 2 its half at 19440 (29280); allgather 1 -> 2 when its link
 *     frees at 29040 (38880), 2 -> 1 at 29280 (39120); post 1 -> 0 S at 39120
 *     (58560). 6 messages.
 *   direct: two phases of n-1 sends of S/n, serialised on each link, each port
 *     receiving one at a time: n=2: 2 x 9840; n=3: 8000 B at first bits 0 and
 *     6400: 13040, x 2 = 26080; n=4: 6000 B, 14640 x 2; n=8: 3000 B, 6 x 2400 +
 *     2640 = 17040, x 2 = 34080.
 *   tree (two trees of 12000 B, T 9840, ser 9600): n=2: each rank leaf of one
 *     tree sends at 0 (9840), each root answers (19680). n=3: trees 0 -> 2 -> 1 and
 *     1 -> 0 -> 2; 1 -> 2 and 2 -> 0 at 0 (9840), 2 -> 0 at 9840 (19680), 0 -> 1
 *     at 19680 (29520), 0 -> 2 queued (29280 + 9840 = 39120), 1 -> 0 at 29520
 *     (39360), 0 -> 2 at 39360 (49200). n=4: trees 0 -> 2 -> {1, 3} and
 *     3 -> 1 -> {2, 0}: leaves 1, 3 -> 2 and 0, 2 -> 1 at 0 (9840, 19440 behind
 *     each other), 2 -> 0 and 1 -> 3 at 19440 (29280), 0 -> 2 and 3 -> 1 at 29280
 *     (39120), then two sends each: 48960 and 58560. n=8: trees 0 -> 4 -> {2, 6},
 *     2 -> {1, 3}, 6 -> {5, 7} and its mirror 7 -> 3 -> {5, 1} ...; tree 0:
 *     leaves pair up at 2 and 6 (9840, 19440), both -> 4 (29280, 38880), 4 -> 0
 *     (48720), 0 -> 4 (58560), 4 -> 2 (68400), 4 -> 6 (78000), 6 -> 5 (87840),
 *     6 -> 7 (97440); the mirror tree the same; where they meet (ports 1 and 6
 *     around 68400) only leaves' last receptions wait: 97440.
 *   hierarchical (group = the largest divisor <= sqrt n): n=2, 3: groups of 1,
 *     the ring; n=4 (2 x 2): 9840 + 2 x 5040 + 9840; n=8 (groups of 2, 4 of
 *     them): 9840 + 6 x 2640 + 9840.
 *   nonoverlapping: binomial reduce then bcast: 2 x 19440, 38640 + 38640,
 *     2 x 38880, 2 x 58320.
 * gather, scatter (1000 B blocks): linear: n-1 through one port (or link):
 *   240 + 800 (n-1). binomial: n=3 as linear; n=4: 1 -> 0, 3 -> 2 (1040),
 *   2 -> 0 2000 B (2880); n=8: 1040, 2000 B (2880), 4000 B (6320); bytes
 *   1000 (n-1) linear, 1000 + 1000 + 2000 (n=4), 4 + 4 + 4 thousand (n=8);
 *   scatter the mirror (n=8: 0 -> 4 3440, 4 -> 6 5280, 6 -> 7 6320).
 * allgather (1000 B blocks): ring n-1 x 1040; recursive-doubling 2^k blocks
 *   at step k: 1040, 2880, 6320 (n=3: bruck); bruck min(d, n-d) blocks:
 *   1040, 2 x 1040, 1040 + 1840, 1040 + 1840 + 3440; neighbor-exchange one
 *   block then pairs: 1040, (ring), 1040 + 1840, 1040 + 3 x 1840.
 * alltoall (1000 B a pair): linear: n-1 sends per link, each port fed at the
 *   link's pace: 240 + 800 (n-1); pairwise: n-1 x 1040; bruck: blocks with bit
 *   k: n=3: 1, 1; n=4: 2, 2 (2 x 1840); n=8: 4, 4, 4 (3 x 3440).
 * reduce-scatter (1000 B blocks): ring n-1 x 1040; recursive-halving: n=2
 *   1040; n=4: 1840 + 1040; n=8: 3440 + 1840 + 1040; n=3: pre 0 -> 1 3000 B
 *   (2640) while 2 -> 1 2000 B waits for the port (4240), 1 -> 2 at 2640
 *   (3680), post 1 -> 0 at 4240 (5280), 7000 B in all; nonoverlapping: reduce
 *   of n 1000 B then n-1 sends of 1000 B from 0: n=2: 1840 + 1040; n=3: 2640,
 *   5040, + 1040, + 800 = 6880; n=4: 3440 x 2 + 1040 + 2 x 800 = 9520;
 *   n=8: 3 x 6640 + 1040 + 6 x 800 = 25760. */
static const row rows[] = {
    {COLL_BARRIER, COLL_LINEAR, 2, 2, 0, 480}, {COLL_BARRIER, COLL_LINEAR, 3, 4, 0, 480},
    {COLL_BARRIER, COLL_LINEAR, 4, 6, 0, 480}, {COLL_BARRIER, COLL_LINEAR, 8, 14, 0, 480},
    {COLL_BARRIER, COLL_RECDBL, 2, 2, 0, 240}, {COLL_BARRIER, COLL_RECDBL, 3, 4, 0, 480},
    {COLL_BARRIER, COLL_RECDBL, 4, 8, 0, 480}, {COLL_BARRIER, COLL_RECDBL, 8, 24, 0, 720},
    {COLL_BARRIER, COLL_BRUCK, 2, 2, 0, 240},  {COLL_BARRIER, COLL_BRUCK, 3, 6, 0, 480},
    {COLL_BARRIER, COLL_BRUCK, 4, 8, 0, 480},  {COLL_BARRIER, COLL_BRUCK, 8, 24, 0, 720},

    {COLL_BCAST, COLL_LINEAR, 2, 1, 24000, 19440},   {COLL_BCAST, COLL_LINEAR, 3, 2, 48000, 38640},
    {COLL_BCAST, COLL_LINEAR, 4, 3, 72000, 57840},   {COLL_BCAST, COLL_LINEAR, 8, 7, 168000, 134640},
    {COLL_BCAST, COLL_BINOMIAL, 2, 1, 24000, 19440}, {COLL_BCAST, COLL_BINOMIAL, 3, 2, 48000, 38640},
    {COLL_BCAST, COLL_BINOMIAL, 4, 3, 72000, 38880}, {COLL_BCAST, COLL_BINOMIAL, 8, 7, 168000, 58320},
    {COLL_BCAST, COLL_PIPELINE, 2, 1, 24000, 19440}, {COLL_BCAST, COLL_PIPELINE, 3, 2, 48000, 38880},
    {COLL_BCAST, COLL_PIPELINE, 4, 3, 72000, 58320}, {COLL_BCAST, COLL_PIPELINE, 8, 7, 168000, 136080},
    {COLL_BCAST, COLL_SCATTER_ALLGATHER, 2, 3, 36000, 19680},
    {COLL_BCAST, COLL_SCATTER_ALLGATHER, 3, 8, 64000, 26320},
    {COLL_BCAST, COLL_SCATTER_ALLGATHER, 4, 15, 96000, 30000},
    {COLL_BCAST, COLL_SCATTER_ALLGATHER, 8, 63, 204000, 36000},

    {COLL_REDUCE, COLL_LINEAR, 2, 1, 24000, 19440},   {COLL_REDUCE, COLL_LINEAR, 3, 2, 48000, 38640},
    {COLL_REDUCE, COLL_LINEAR, 4, 3, 72000, 57840},   {COLL_REDUCE, COLL_LINEAR, 8, 7, 168000, 134640},
    {COLL_REDUCE, COLL_BINOMIAL, 2, 1, 24000, 19440}, {COLL_REDUCE, COLL_BINOMIAL, 3, 2, 48000, 38640},
    {COLL_REDUCE, COLL_BINOMIAL, 4, 3, 72000, 38880}, {COLL_REDUCE, COLL_BINOMIAL, 8, 7, 168000, 58320},
    {COLL_REDUCE, COLL_PIPELINE, 2, 1, 24000, 19440}, {COLL_REDUCE, COLL_PIPELINE, 3, 2, 48000, 38880},
    {COLL_REDUCE, COLL_PIPELINE, 4, 3, 72000, 58320}, {COLL_REDUCE, COLL_PIPELINE, 8, 7, 168000, 136080},

    {COLL_ALLREDUCE, COLL_RING, 2, 4, 48000, 19680},    {COLL_ALLREDUCE, COLL_RING, 3, 12, 96000, 26560},
    {COLL_ALLREDUCE, COLL_RING, 4, 24, 144000, 30240},  {COLL_ALLREDUCE, COLL_RING, 8, 112, 336000, 36960},
    {COLL_ALLREDUCE, COLL_RECDBL, 2, 2, 48000, 19440},  {COLL_ALLREDUCE, COLL_RECDBL, 3, 4, 96000, 58080},
    {COLL_ALLREDUCE, COLL_RECDBL, 4, 8, 192000, 38880}, {COLL_ALLREDUCE, COLL_RECDBL, 8, 24, 576000, 58320},
    {COLL_ALLREDUCE, COLL_RABENSEIFNER, 2, 4, 48000, 19680},
    {COLL_ALLREDUCE, COLL_RABENSEIFNER, 3, 6, 96000, 58560},
    {COLL_ALLREDUCE, COLL_RABENSEIFNER, 4, 16, 144000, 29760},
    {COLL_ALLREDUCE, COLL_RABENSEIFNER, 8, 48, 336000, 35040},
    {COLL_ALLREDUCE, COLL_DIRECT, 2, 4, 48000, 19680},   {COLL_ALLREDUCE, COLL_DIRECT, 3, 12, 96000, 26080},
    {COLL_ALLREDUCE, COLL_DIRECT, 4, 24, 144000, 29280}, {COLL_ALLREDUCE, COLL_DIRECT, 8, 112, 336000, 34080},
    {COLL_ALLREDUCE, COLL_TREE, 2, 4, 48000, 19680},     {COLL_ALLREDUCE, COLL_TREE, 3, 8, 96000, 49200},
    {COLL_ALLREDUCE, COLL_TREE, 4, 12, 144000, 58560},   {COLL_ALLREDUCE, COLL_TREE, 8, 28, 336000, 97440},
    {COLL_ALLREDUCE, COLL_HIERARCHICAL, 2, 4, 48000, 19680},
    {COLL_ALLREDUCE, COLL_HIERARCHICAL, 3, 12, 96000, 26560},
    {COLL_ALLREDUCE, COLL_HIERARCHICAL, 4, 16, 144000, 29760},
    {COLL_ALLREDUCE, COLL_HIERARCHICAL, 8, 64, 336000, 35520},
    {COLL_ALLREDUCE, COLL_NONOVERLAPPING, 2, 2, 48000, 38880},
    {COLL_ALLREDUCE, COLL_NONOVERLAPPING, 3, 4, 96000, 77280},
    {COLL_ALLREDUCE, COLL_NONOVERLAPPING, 4, 6, 144000, 77760},
    {COLL_ALLREDUCE, COLL_NONOVERLAPPING, 8, 14, 336000, 116640},

    {COLL_GATHER, COLL_LINEAR, 2, 1, 1000, 1040},   {COLL_GATHER, COLL_LINEAR, 3, 2, 2000, 1840},
    {COLL_GATHER, COLL_LINEAR, 4, 3, 3000, 2640},   {COLL_GATHER, COLL_LINEAR, 8, 7, 7000, 5840},
    {COLL_GATHER, COLL_BINOMIAL, 2, 1, 1000, 1040}, {COLL_GATHER, COLL_BINOMIAL, 3, 2, 2000, 1840},
    {COLL_GATHER, COLL_BINOMIAL, 4, 3, 4000, 2880}, {COLL_GATHER, COLL_BINOMIAL, 8, 7, 12000, 6320},
    {COLL_SCATTER, COLL_LINEAR, 2, 1, 1000, 1040},   {COLL_SCATTER, COLL_LINEAR, 3, 2, 2000, 1840},
    {COLL_SCATTER, COLL_LINEAR, 4, 3, 3000, 2640},   {COLL_SCATTER, COLL_LINEAR, 8, 7, 7000, 5840},
    {COLL_SCATTER, COLL_BINOMIAL, 2, 1, 1000, 1040}, {COLL_SCATTER, COLL_BINOMIAL, 3, 2, 2000, 1840},
    {COLL_SCATTER, COLL_BINOMIAL, 4, 3, 4000, 2880}, {COLL_SCATTER, COLL_BINOMIAL, 8, 7, 12000, 6320},

    {COLL_ALLGATHER, COLL_RING, 2, 2, 2000, 1040},   {COLL_ALLGATHER, COLL_RING, 3, 6, 6000, 2080},
    {COLL_ALLGATHER, COLL_RING, 4, 12, 12000, 3120}, {COLL_ALLGATHER, COLL_RING, 8, 56, 56000, 7280},
    {COLL_ALLGATHER, COLL_RECDBL, 2, 2, 2000, 1040}, {COLL_ALLGATHER, COLL_RECDBL, 3, 6, 6000, 2080},
    {COLL_ALLGATHER, COLL_RECDBL, 4, 8, 12000, 2880}, {COLL_ALLGATHER, COLL_RECDBL, 8, 24, 56000, 6320},
    {COLL_ALLGATHER, COLL_BRUCK, 2, 2, 2000, 1040},  {COLL_ALLGATHER, COLL_BRUCK, 3, 6, 6000, 2080},
    {COLL_ALLGATHER, COLL_BRUCK, 4, 8, 12000, 2880}, {COLL_ALLGATHER, COLL_BRUCK, 8, 24, 56000, 6320},
    {COLL_ALLGATHER, COLL_NEIGHBOR, 2, 2, 2000, 1040}, {COLL_ALLGATHER, COLL_NEIGHBOR, 3, 6, 6000, 2080},
    {COLL_ALLGATHER, COLL_NEIGHBOR, 4, 8, 12000, 2880}, {COLL_ALLGATHER, COLL_NEIGHBOR, 8, 32, 56000, 6560},

    {COLL_ALLTOALL, COLL_LINEAR, 2, 2, 2000, 1040},   {COLL_ALLTOALL, COLL_LINEAR, 3, 6, 6000, 1840},
    {COLL_ALLTOALL, COLL_LINEAR, 4, 12, 12000, 2640}, {COLL_ALLTOALL, COLL_LINEAR, 8, 56, 56000, 5840},
    {COLL_ALLTOALL, COLL_PAIRWISE, 2, 2, 2000, 1040}, {COLL_ALLTOALL, COLL_PAIRWISE, 3, 6, 6000, 2080},
    {COLL_ALLTOALL, COLL_PAIRWISE, 4, 12, 12000, 3120}, {COLL_ALLTOALL, COLL_PAIRWISE, 8, 56, 56000, 7280},
    {COLL_ALLTOALL, COLL_BRUCK, 2, 2, 2000, 1040},   {COLL_ALLTOALL, COLL_BRUCK, 3, 6, 6000, 2080},
    {COLL_ALLTOALL, COLL_BRUCK, 4, 8, 16000, 3680},  {COLL_ALLTOALL, COLL_BRUCK, 8, 24, 96000, 10320},

    {COLL_REDUCE_SCATTER, COLL_RING, 2, 2, 2000, 1040},   {COLL_REDUCE_SCATTER, COLL_RING, 3, 6, 6000, 2080},
    {COLL_REDUCE_SCATTER, COLL_RING, 4, 12, 12000, 3120}, {COLL_REDUCE_SCATTER, COLL_RING, 8, 56, 56000, 7280},
    {COLL_REDUCE_SCATTER, COLL_RECHALVING, 2, 2, 2000, 1040},
    {COLL_REDUCE_SCATTER, COLL_RECHALVING, 3, 4, 7000, 5280},
    {COLL_REDUCE_SCATTER, COLL_RECHALVING, 4, 8, 12000, 2880},
    {COLL_REDUCE_SCATTER, COLL_RECHALVING, 8, 24, 56000, 6320},
    {COLL_REDUCE_SCATTER, COLL_NONOVERLAPPING, 2, 2, 3000, 2880},
    {COLL_REDUCE_SCATTER, COLL_NONOVERLAPPING, 3, 4, 8000, 6880},
    {COLL_REDUCE_SCATTER, COLL_NONOVERLAPPING, 4, 6, 15000, 9520},
    {COLL_REDUCE_SCATTER, COLL_NONOVERLAPPING, 8, 14, 63000, 25760},
};

START_TEST(test_table)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *w = &rows[i];
        int big = w->op == COLL_BCAST || w->op == COLL_REDUCE || w->op == COLL_ALLREDUCE;
        coll_spec s = {.op = w->op, .alg = w->alg, .ranks = w->n, .bytes = big ? 24000 : 1000};
        outcome o = run_spec(&s);
        ck_assert_msg(o.msgs == w->msgs && o.bytes == w->bytes && o.done_ps == w->ns * NS,
                      "%s %s n=%u: %llu messages, %llu B, %lld ps; expected %llu, %llu, %lld ns",
                      coll_op_names[w->op], coll_alg_names[w->alg], w->n, (unsigned long long)o.msgs,
                      (unsigned long long)o.bytes, (long long)o.done_ps, (unsigned long long)w->msgs,
                      (unsigned long long)w->bytes, (long long)w->ns);
    }
}
END_TEST

/* Every algorithm completes (no deadlock, every message taken once) on odd
 * sizes and a non-zero root, and its byte total is what the operation
 * must move at least: allgather and alltoall n(n-1) blocks, gather and
 * scatter the n-1 non-root blocks. */
START_TEST(test_all_sizes)
{
    for (int op = 0; op < COLL_NOPS; op++)
        for (int a = 1; a < COLL_NALGS; a++) {
            if (!coll_alg_valid(op, a))
                continue;
            for (uint32_t n = 1; n <= 13; n++) {
                coll_spec s = {.op = op, .alg = a, .ranks = n, .root = n / 2, .bytes = 1000, .segment = 300};
                outcome o = run_spec(&s);
                if (op == COLL_ALLGATHER || op == COLL_ALLTOALL)
                    ck_assert_uint_ge(o.bytes, 1000ull * n * (n - 1));
                if (op == COLL_GATHER || op == COLL_SCATTER)
                    ck_assert_uint_ge(o.bytes, 1000ull * (n - 1));
                if (n == 1)
                    ck_assert_uint_eq(o.msgs, 0);
            }
        }
}
END_TEST

/* A root other than 0 rotates the tree: binomial bcast from root 2 of 4
 * sends 2 -> 0 (relative 2) then 2 -> 3, and 0 -> 1: 38880 ns as from 0. */
START_TEST(test_root)
{
    coll_spec s = {.op = COLL_BCAST, .alg = COLL_BINOMIAL, .ranks = 4, .root = 2, .bytes = 24000};
    outcome o = run_spec(&s);
    ck_assert_int_eq(o.done_ps, 38880 * NS);
    /* a pipeline of 3 segments of 8000 B over 3 ranks: the chain 0 -> 1 -> 2;
     * segment k leaves 0 at k 6400 and reaches 1 at k 6400 + 6640, which
     * forwards it then (its link free): the last reaches 2 at 12800 + 6640 + 6640 */
    coll_spec p = {.op = COLL_BCAST, .alg = COLL_PIPELINE, .ranks = 3, .bytes = 24000, .segment = 8000};
    o = run_spec(&p);
    ck_assert_uint_eq(o.msgs, 6);
    ck_assert_int_eq(o.done_ps, 26080 * NS);
}
END_TEST

/* v variants. gatherv {1000, 2000, 3000} to root 1, linear: 0 -> 1 (1040)
 * and 2 -> 1 behind it on the port (1020 + 2400 + 20 = 3440). allgatherv
 * ring: step 0: 0 -> 1 1000 B (1040), 1 -> 2 2000 B (1840), 2 -> 0 3000 B
 * (2640); step 1: 0 sends block 2 at 2640 (5280), 1 block 0 at its link's
 * 1600 (2640), 2 block 1 at 2400 (4240): 5280, 12000 B. */
START_TEST(test_v)
{
    const uint64_t c[3] = {1000, 2000, 3000};
    coll_spec g = {.op = COLL_GATHER, .alg = COLL_LINEAR, .ranks = 3, .root = 1, .counts = c};
    outcome o = run_spec(&g);
    ck_assert_uint_eq(o.bytes, 4000);
    ck_assert_int_eq(o.done_ps, 3440 * NS);
    coll_spec a = {.op = COLL_ALLGATHER, .alg = COLL_RING, .ranks = 3, .counts = c};
    o = run_spec(&a);
    ck_assert_uint_eq(o.msgs, 6);
    ck_assert_uint_eq(o.bytes, 12000);
    ck_assert_int_eq(o.done_ps, 5280 * NS);
    /* alltoallv: rank i sends 1000 (j + 1) to j; pairwise moves every cell */
    uint64_t m[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m[i * 3 + j] = i == j ? 0 : 1000u * (j + 1);
    coll_spec t = {.op = COLL_ALLTOALL, .alg = COLL_BRUCK, .ranks = 3, .counts = m};
    ck_assert_int_eq(coll_resolve(&t), COLL_PAIRWISE);
    o = run_spec(&t);
    ck_assert_uint_eq(o.bytes, 2000 + 3000 + 1000 + 3000 + 1000 + 2000);
    /* reduce_scatter ring with counts: n-1 = 2 steps, each rank's every block
     * but one crosses once per step: 2 (1000 + 2000 + 3000) */
    coll_spec r = {.op = COLL_REDUCE_SCATTER, .alg = COLL_RING, .ranks = 3, .counts = c};
    o = run_spec(&r);
    ck_assert_uint_eq(o.bytes, 12000);
}
END_TEST

/* Open MPI 1.6's fixed rules at their thresholds. */
START_TEST(test_defaults)
{
    ck_assert_int_eq(coll_default(COLL_BARRIER, 8, 0, NULL, NULL), COLL_RECDBL);
    ck_assert_int_eq(coll_default(COLL_BARRIER, 6, 0, NULL, NULL), COLL_BRUCK);
    ck_assert_int_eq(coll_default(COLL_ALLREDUCE, 16, 9999, NULL, NULL), COLL_RECDBL);
    ck_assert_int_eq(coll_default(COLL_ALLREDUCE, 16, 10000, NULL, NULL), COLL_RING);
    ck_assert_int_eq(coll_default(COLL_ALLREDUCE, 2000, 10000, NULL, NULL), COLL_NONOVERLAPPING);
    ck_assert_int_eq(coll_default(COLL_BCAST, 64, 2047, NULL, NULL), COLL_BINOMIAL);
    ck_assert_int_eq(coll_default(COLL_BCAST, 64, 2048, NULL, NULL), COLL_SCATTER_ALLGATHER);
    uint64_t seg = 0;
    /* 1 MB to 2 ranks: 2 < 1.6134e-6 1e6 + 2.1102 = 3.72: pipeline of 128 KiB */
    ck_assert_int_eq(coll_default(COLL_BCAST, 2, 1000000, NULL, &seg), COLL_PIPELINE);
    ck_assert_uint_eq(seg, 128 << 10);
    /* 1 MB to 64 ranks: not < 3.72, not < 13, not < 2.3679 + 1.1787 = 3.55, not
     * < 3.21 + 8.79 = 12.0: 8 KiB segments */
    ck_assert_int_eq(coll_default(COLL_BCAST, 64, 1000000, NULL, &seg), COLL_PIPELINE);
    ck_assert_uint_eq(seg, 8 << 10);
    ck_assert_int_eq(coll_default(COLL_REDUCE, 4, 511, NULL, NULL), COLL_LINEAR);
    ck_assert_int_eq(coll_default(COLL_REDUCE, 4, 512, NULL, NULL), COLL_BINOMIAL);
    ck_assert_int_eq(coll_default(COLL_ALLTOALL, 16, 199, NULL, NULL), COLL_BRUCK);
    ck_assert_int_eq(coll_default(COLL_ALLTOALL, 16, 200, NULL, NULL), COLL_LINEAR);
    ck_assert_int_eq(coll_default(COLL_ALLTOALL, 16, 3000, NULL, NULL), COLL_PAIRWISE);
    ck_assert_int_eq(coll_default(COLL_ALLGATHER, 8, 1000, NULL, NULL), COLL_RECDBL);
    ck_assert_int_eq(coll_default(COLL_ALLGATHER, 6, 1000, NULL, NULL), COLL_BRUCK);
    ck_assert_int_eq(coll_default(COLL_ALLGATHER, 6, 10000, NULL, NULL), COLL_NEIGHBOR);
    ck_assert_int_eq(coll_default(COLL_ALLGATHER, 7, 10000, NULL, NULL), COLL_RING);
    ck_assert_int_eq(coll_default(COLL_GATHER, 4, 7000, NULL, NULL), COLL_LINEAR);
    ck_assert_int_eq(coll_default(COLL_GATHER, 61, 5000, NULL, NULL), COLL_BINOMIAL);
    ck_assert_int_eq(coll_default(COLL_SCATTER, 11, 299, NULL, NULL), COLL_BINOMIAL);
    ck_assert_int_eq(coll_default(COLL_REDUCE_SCATTER, 4, 3072, NULL, NULL), COLL_RECHALVING);
    /* 6 x 100 KB: not <= 12 KiB, not a power of two, 6 < 0.0012 600000 + 8: ring */
    ck_assert_int_eq(coll_default(COLL_REDUCE_SCATTER, 6, 100000, NULL, NULL), COLL_RING);
    /* auto runs the default: 8 ranks x 1000 B allgather is recursive doubling (24 messages) */
    coll_spec s = {.op = COLL_ALLGATHER, .alg = COLL_AUTO, .ranks = 8, .bytes = 1000};
    ck_assert_int_eq(run_spec(&s).msgs, 24);
}
END_TEST

START_TEST(test_names_errors)
{
    ck_assert_int_eq(coll_alg_find("halving-doubling"), COLL_RABENSEIFNER);
    ck_assert_int_eq(coll_alg_find("tree"), COLL_TREE);
    ck_assert_int_eq(coll_alg_find("nope"), -1);
    ck_assert_str_eq(coll_alg_list(COLL_BARRIER), "linear|recursive-doubling|bruck");
    char err[256];
    coll_spec s = {.op = COLL_BCAST, .alg = COLL_RING, .ranks = 4};
    ck_assert_int_eq(coll_check(&s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "bcast has no algorithm 'ring'"), "%s", err);
    s = (coll_spec){.op = COLL_REDUCE, .alg = COLL_BINOMIAL, .ranks = 4, .root = 4};
    ck_assert_int_eq(coll_check(&s, err, sizeof err), -1);
    s = (coll_spec){.op = COLL_ALLREDUCE, .alg = COLL_HIERARCHICAL, .ranks = 6, .group = 4};
    ck_assert_int_eq(coll_check(&s, err, sizeof err), -1);
    /* hierarchical with groups of 3 on 6 ranks, 24000 B: ring reduce-scatter
     * of 3 blocks (2 x T(8000)), ring allreduce of 8000 B over 2 (2 x T(4000)),
     * allgather (2 x T(8000)): 4 x 6640 + 2 x 3440 = 33440 ns; messages
     * 6 (2 + 2 + 2) = 36 */
    s.group = 3;
    s.bytes = 24000;
    outcome o = run_spec(&s);
    ck_assert_uint_eq(o.msgs, 36);
    ck_assert_int_eq(o.done_ps, 33440 * NS);
}
END_TEST

/* coll_program maps ranks to tasks and shifts tags. */
START_TEST(test_program_map)
{
    coll_spec s = {.op = COLL_ALLREDUCE, .alg = COLL_RING, .ranks = 3, .bytes = 3000};
    const uint32_t task[3] = {4, 0, 2};
    tp_builder b;
    tp_builder_init(&b, 5, 1);
    coll_program(&s, &b, task, 10);
    tp_prog p;
    tp_build(&b, &p);
    ck_assert_uint_eq(p.messages, 12);
    ck_assert_uint_eq(p.tags, 10 + 4);
    ck_assert_uint_eq(p.start[2] - p.start[1], 0); /* task 1 holds no rank */
    /* rank 0 = task 4 sends its block 0 (1000 B) to rank 1 = task 0 first */
    const tp_op *o = &p.ops[p.start[4]];
    ck_assert_uint_eq(tp_op_kind(o), TP_SEND);
    ck_assert_uint_eq(tp_op_peer(o), 0);
    ck_assert_uint_eq(o->tag, 10);
    ck_assert_uint_eq(o->arg, 1000);
    tp_prog_free(&p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("collectives");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_all_sizes);
    tcase_add_test(tc, test_root);
    tcase_add_test(tc, test_v);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_names_errors);
    tcase_add_test(tc, test_program_map);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(suite)
