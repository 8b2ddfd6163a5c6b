/* ORCS congestion metrics on static routes (specs/kernels-patterns.md §3);
 * definitions in congestion.h. */
#include "congestion.h"

#include <stdlib.h>
#include <string.h>

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

/* A link's counters during one evaluation. */
typedef struct cong_link {
    uint32_t load;  /* flows of level `level - 1` crossing it */
    uint32_t level; /* 1 + the level `load` and `mark` belong to (0: none yet) */
    uint32_t mark;  /* low 32 bits of 1 + the last flow of that level that crossed it */
} cong_link;

/* Histogram indexed by weight, grown on demand. */
static void hist_add(uint64_t **h, size_t *len, uint64_t w, uint64_t n)
{
    if (w >= *len) {
        size_t nl = (size_t)w + 1;
        *h = tn_xrealloc(*h, nl * sizeof **h);
        memset(*h + *len, 0, (nl - *len) * sizeof **h);
        *len = nl;
    }
    (*h)[w] += n;
}

#define CONG_AHEAD 16 /* link visits between a prefetch and its use */

int cong_eval(const pat_set *s, const uint32_t *node_of_rank, uint64_t nlinks, cong_route_fn route,
              const void *ctx, cong_acc *acc, cong_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    TN_ASSERT(!acc || acc->nlinks == nlinks, "accumulator of %llu links for %llu",
              (unsigned long long)acc->nlinks, (unsigned long long)nlinks);
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
    size_t wcap = (size_t)(widest ? widest : 1);
    /* The routes of one level, flow after flow: flow f's links are
     * links[off[f] .. off[f+1]); grown when a route does not fit. */
    size_t lcap = 4 * wcap, used = 0;
    uint64_t *links = tn_xmalloc(lcap * sizeof *links);
    size_t *off = tn_xmalloc((wcap + 1) * sizeof *off);
    uint64_t *cf = tn_xmalloc(wcap * sizeof *cf);
    uint64_t *ends = tn_xmalloc(wcap * sizeof *ends); /* src node << 32 | dst node, per flow */
    /* One small record per link, so a flow's visit touches one cache line:
     * its load in the level being counted (stale when `level` is an earlier
     * one, which spares a clearing pass) and the last flow that crossed it
     * (a route that comes back to a link is a loop). With an accumulator,
     * the flows over all levels (= sum of load(e) over levels) besides,
     * added to acc only at the end so acc stays unchanged on an error. The
     * loads of one level dominate the time (random accesses over every
     * link), so the record stays 12 bytes. */
    cong_link *lk = tn_xcalloc(nlinks ? (size_t)nlinks : 1, sizeof *lk);
    uint64_t *total = acc ? tn_xcalloc(nlinks ? (size_t)nlinks : 1, sizeof *total) : NULL;
    uint64_t *ready = tn_xcalloc(s->ranks ? s->ranks : 1, sizeof *ready);
    uint64_t *hist = NULL;
    size_t hist_len = 0;
    uint64_t sum_c = 0, sum_max = 0, c_max = 0, dep_max = 0, flows = 0;
    int rc = 0;

    for (uint32_t l = 0; l < L && rc == 0; l++) {
        /* The level's routes, in merged order (a route op that draws stays
         * reproducible), with their links checked against the fabric. */
        uint64_t n = 0;
        used = 0;
        for (uint32_t g = 0; g < s->ngroups && rc == 0; g++) {
            const pat_levels *lv = &s->group[g];
            if (l >= lv->nlevels)
                continue;
            for (uint64_t i = lv->start[l]; i < lv->start[l + 1] && rc == 0; i++, n++) {
                uint32_t a = node_of_rank[lv->pairs[i].src], b = node_of_rank[lv->pairs[i].dst];
                off[n] = used;
                ends[n] = (uint64_t)a << 32 | b;
                size_t k = route(ctx, a, b, links + used, lcap - used);
                if (k > lcap - used) {
                    while (k > lcap - used)
                        lcap *= 2;
                    links = tn_xrealloc(links, lcap * sizeof *links);
                    size_t again = route(ctx, a, b, links + used, lcap - used);
                    TN_ASSERT(again == k, "route %u -> %u has %zu links, then %zu", a, b, k, again);
                }
                for (size_t j = used; j < used + k; j++)
                    if (links[j] >= nlinks) {
                        rc = tn_error(err, errlen, "route from node %u to node %u uses link %llu of %llu", a, b,
                                      (unsigned long long)links[j], (unsigned long long)nlinks);
                        break;
                    }
                used += k;
            }
        }
        if (rc != 0)
            break; /* the scratch arrays are dropped, acc is untouched */
        off[n] = used;
        /* Loads. The link records are visited in random order (a few MB at
         * ORCS scale): fetching the record needed CONG_AHEAD visits later
         * lets the misses overlap, which more than halves the time. */
        for (uint64_t f = 0; f < n && rc == 0; f++)
            for (size_t j = off[f]; j < off[f + 1]; j++) {
                if (j + CONG_AHEAD < used) {
                    __builtin_prefetch(&lk[links[j + CONG_AHEAD]], 1);
                    if (total)
                        __builtin_prefetch(&total[links[j + CONG_AHEAD]], 1);
                }
                cong_link *e = &lk[links[j]];
                if (e->level != l + 1) {
                    e->level = l + 1;
                    e->load = 0;
                    e->mark = 0;
                } else if (e->mark == (uint32_t)(f + 1)) {
                    rc = tn_error(err, errlen, "route from node %u to node %u uses link %llu twice (routing loop)",
                                  (uint32_t)(ends[f] >> 32), (uint32_t)ends[f], (unsigned long long)links[j]);
                    break;
                }
                e->mark = (uint32_t)(f + 1);
                e->load++;
                if (total)
                    total[links[j]]++;
            }
        if (rc != 0)
            break;
        /* Congestion of each flow: its most loaded link. */
        uint64_t level_max = 0;
        for (uint64_t f = 0; f < n; f++) {
            uint64_t c = 1;
            if (off[f + 1] > off[f]) {
                c = 0;
                for (size_t j = off[f]; j < off[f + 1]; j++) {
                    if (j + CONG_AHEAD < used)
                        __builtin_prefetch(&lk[links[j + CONG_AHEAD]], 0);
                    if (lk[links[j]].load > c)
                        c = lk[links[j]].load;
                }
            }
            cf[f] = c;
            sum_c += c;
            if (c > level_max)
                level_max = c;
            if (c < hist_len)
                hist[c]++;
            else
                hist_add(&hist, &hist_len, c, 1);
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
        out->bw_fraction = cong_bw_fraction_hist(hist, hist_len);
        out->cong_max = (double)c_max;
        out->cong_mean = flows ? (double)sum_c / (double)flows : 0.0;
        out->dep_max_delay = (double)dep_max;
        out->flows = flows;
        out->levels = L;
        if (acc) {
            for (size_t w = 1; w < hist_len; w++)
                if (hist[w])
                    hist_add(&acc->hist, &acc->hist_len, w, hist[w]);
            for (uint64_t e = 0; e < nlinks; e++)
                acc->link_load[e] += total[e];
            acc->runs++;
        }
    }
    free(links);
    free(off);
    free(ends);
    free(cf);
    free(lk);
    free(total);
    free(ready);
    free(hist);
    return rc;
}
