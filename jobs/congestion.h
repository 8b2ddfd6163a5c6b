/* ORCS congestion metrics on static routes (specs/kernels-patterns.md §3):
 * a pure evaluation of a pattern under one mapping, without the event engine
 * (O(levels x flows x route length)), and the accumulators behind
 * congestion_hist.csv and congestion_links.csv. Never prints, never writes
 * files: the caller gets numbers.
 *
 * Model (§3.1, ORCS simulator.cpp / statistics.cpp). A flow f = (src, dst)
 * of merged level l (all groups of the set, B2) crosses the directed links
 * route(map(src), map(dst)), the source's injection and the destination's
 * ejection link included. load(e) = flows of the level whose route contains
 * e; c_f = max over e in route(f) of load(e); a flow with an empty route
 * (the ideal fabric) has c_f = 1. Per evaluation (one mapping = one run):
 *   sum_max_cong  = sum over levels of max c_f of the level
 *   bw_fraction   = mean of 1/c_f over all flows (= sum_w n_w/w / sum_w n_w)
 *   cong_max      = max c_f;   cong_mean = mean c_f
 *   dep_max_delay = longest path through the B1 `dependency` DAG of the
 *                   foreground (group 0) flows, flow edges weighing c_f and
 *                   program-order edges 0: finish(f) = ready(src) + c_f where
 *                   ready(r) = max finish of the flows r received in earlier
 *                   levels (a rank's level-l sends follow all its earlier
 *                   receptions, B1); the result is max finish. Loads count
 *                   every group (the background is noise, B2).
 * A route is asked once per flow, level by level, flows in merged order
 * (foreground pairs of the level, then background), so a route op that
 * draws (SPINet routes="random", stream "pattern-routes") is reproducible.
 * A route that uses a link twice is a routing loop and an error (ORCS only
 * reported them, §8). A fabric's route op has no "no route" answer: every
 * pair of its nodes is connected (a fabric that could leave pairs without a
 * route would refuse them at its own check, §8). */
#ifndef TASKNET_CONGESTION_H
#define TASKNET_CONGESTION_H

#include <stddef.h>
#include <stdint.h>

#include "patterns.h"

/* The static route from node src to node dst, the shape of the fabrics'
 * `route` op (networks/network.h), so a fabric's op and state are passed as
 * they are: the route's link ids (each < the fabric's link count) in path
 * order go to links[0..max) and the return value is how many the route has
 * (a value > max means it did not fit: cong_eval asks again with room for
 * it). A route of 0 links shares nothing: its flow has c_f = 1. */
typedef size_t (*cong_route_fn)(const void *ctx, uint32_t src, uint32_t dst, uint64_t *links, size_t max);

/* Scalars of one evaluation (dimensionless, CSV columns of §3.1). */
typedef struct cong_result {
    double sum_max_cong;  /* sum over levels of the level's max c_f */
    double bw_fraction;   /* mean 1/c_f over all flows (1 when there is none) */
    double cong_max;      /* max c_f (0 when there is no flow) */
    double cong_mean;     /* mean c_f (0 when there is no flow) */
    double dep_max_delay; /* longest foreground dependency path, in c_f units */
    uint64_t flows;       /* flows evaluated, all groups */
    uint32_t levels;      /* merged levels */
} cong_result;

/* Pooled over evaluations (runs): ORCS hist_max_cong and get_cable_cong. */
typedef struct cong_acc {
    uint64_t nlinks;     /* links of the fabric */
    uint64_t *link_load; /* [nlinks] sum over levels and runs of load(e) */
    uint64_t *hist;      /* [hist_len] flows with c_f = w, at index w (index 0 unused) */
    size_t hist_len;     /* 1 + the largest c_f seen */
    uint64_t runs;       /* evaluations added */
} cong_acc;

void cong_acc_init(cong_acc *a, uint64_t nlinks);
void cong_acc_free(cong_acc *a);
/* ORCS's "BW" of a histogram: sum_w n_w / w / sum_w n_w, n_w = hist[w]
 * (index 0 ignored); 1 for an empty histogram. Summed by increasing w, so
 * ORCS's printed examples come out exactly (P1: {1: 4, 2: 4} -> 0.75). */
double cong_bw_fraction_hist(const uint64_t *hist, size_t len);
/* bw_fraction_pooled of congestion_hist.csv. */
static inline double cong_acc_bw_fraction(const cong_acc *a)
{
    return cong_bw_fraction_hist(a->hist, a->hist_len);
}
/* congestion_links.csv "scaled": link_load[e] / max link_load (0 if all 0). */
double cong_acc_link_scaled(const cong_acc *a, uint64_t link);
/* The largest link_load (0 if none): scaled = link_load / this. */
uint64_t cong_acc_link_max(const cong_acc *a);

/* The routes of n pairs at once, the shape of net_route_many
 * (networks/network.h): pair i is ends[i] = src << 32 | dst, its links go
 * to links[i * stride ..] and their number to len[i]; returns 0, or (having
 * written nothing) the stride its longest route needs when stride is
 * smaller. Only for routes that are functions of the pair. */
typedef size_t (*cong_route_many_fn)(const void *ctx, size_t n, const uint64_t *ends, uint32_t *links,
                                     uint32_t *len, size_t stride);

/* Scratch memory of evaluations, kept from one to the next (no allocation
 * per mapping once grown): zero it before the first, free it with
 * cong_ws_free. Its size: 4 B a link (4 more with an accumulator) and,
 * for the widest level, a route's stride of 4-byte links plus 28 B a flow. */
typedef struct cong_ws {
    uint64_t nlinks;    /* links the per-link arrays hold */
    uint32_t *load;     /* [nlinks] flows of the level being counted crossing each link; 0 between levels */
    uint32_t *total32;  /* [nlinks] sum over levels of load (with an accumulator), since last folded */
    uint64_t *total;    /* [nlinks] total32 folded (evaluations of 2^32 flows or more) */
    uint32_t *mark;     /* [nlinks] loop check of routes longer than 16 links: the last route stamp */
    uint32_t stamp;     /* routes stamped so far */
    uint32_t *links;    /* [flows_cap * stride] the level's routes */
    uint32_t *len;      /* [flows_cap] */
    uint64_t *ends;     /* [flows_cap] src node << 32 | dst node */
    uint64_t *cf;       /* [flows_cap] */
    size_t flows_cap, stride;
    uint64_t *tmp;      /* one route of a per-pair route op */
    size_t tmp_cap;
    uint64_t *ready;    /* [ready_cap] */
    size_t ready_cap;
    uint64_t *hist;     /* [hist_cap] */
    size_t hist_cap;
} cong_ws;
void cong_ws_free(cong_ws *w);

/* Evaluate set s under node_of_rank (an injection of its ranks into nodes)
 * on a fabric of nlinks links whose routes `route` gives (ctx: its state).
 * Fills *out; adds the flows' c_f and the links' loads to acc (may be NULL).
 * 0, or -1 + err ("route from node 3 to node 5 uses link 7 twice (routing
 * loop)", "route from node 3 to node 5 uses link 99 of 40"); acc is
 * unchanged on -1. */
int cong_eval(const pat_set *s, const uint32_t *node_of_rank, uint64_t nlinks, cong_route_fn route,
              const void *ctx, cong_acc *acc, cong_result *out, char *err, size_t errlen);
/* The same with scratch memory w kept between calls, and the routes asked
 * of many (when not NULL: all of a level's at once, which lets a fabric
 * overlap their table reads) instead of route. Results identical. */
int cong_eval_ws(cong_ws *w, const pat_set *s, const uint32_t *node_of_rank, uint64_t nlinks, cong_route_fn route,
                 cong_route_many_fn many, const void *ctx, cong_acc *acc, cong_result *out, char *err,
                 size_t errlen);

#endif
