/* ORCS congestion metrics on static routes (specs/kernels-patterns.md §3);
 * definitions in congestion.h. */
#include "congestion.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

void cong_acc_init(cong_acc *a, uint32_t nlinks)
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

double cong_acc_link_scaled(const cong_acc *a, uint32_t link)
{
    uint64_t mx = 0;
    for (uint32_t e = 0; e < a->nlinks; e++)
        if (a->link_load[e] > mx)
            mx = a->link_load[e];
    return mx ? (double)a->link_load[link] / (double)mx : 0.0;
}

/* A link's counters during one evaluation. */
typedef struct cong_link {
    uint32_t load;  /* flows of level `level - 1` crossing it */
    uint32_t level; /* 1 + the level `load` counts (0: none yet) */
    uint64_t total; /* flows crossing it, all levels */
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

int cong_eval(const pat_set *s, const uint32_t *node_of_rank, uint32_t nlinks, size_t max_route,
              cong_route_fn route, void *ctx, cong_acc *acc, cong_result *out, char *err,
              size_t errlen)
{
    memset(out, 0, sizeof *out);
    TN_ASSERT(!acc || acc->nlinks == nlinks, "accumulator of %u links for %u", acc->nlinks,
              nlinks);
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
    size_t stride = max_route ? max_route : 1;
    uint32_t *links = tn_xmalloc((size_t)(widest ? widest : 1) * stride * sizeof *links);
    uint32_t *rlen = tn_xmalloc((size_t)(widest ? widest : 1) * sizeof *rlen);
    uint64_t *cf = tn_xmalloc((size_t)(widest ? widest : 1) * sizeof *cf);
    /* One record per link, so a flow's visit touches one cache line: its
     * load in the level being counted (stale when `level` is an earlier
     * one, which spares a clearing pass) and the flows over all levels
     * (= sum of load(e) over levels, added to acc only at the end so acc
     * stays unchanged on an error). */
    cong_link *lk = tn_xcalloc(nlinks ? nlinks : 1, sizeof *lk);
    uint64_t *ready = tn_xcalloc(s->ranks ? s->ranks : 1, sizeof *ready);
    uint64_t *hist = NULL;
    size_t hist_len = 0;
    uint64_t sum_c = 0, sum_max = 0, c_max = 0, dep_max = 0, flows = 0;
    int rc = 0;

    for (uint32_t l = 0; l < L && rc == 0; l++) {
        uint64_t n = 0;
        for (uint32_t g = 0; g < s->ngroups && rc == 0; g++) {
            const pat_levels *lv = &s->group[g];
            if (l >= lv->nlevels)
                continue;
            for (uint64_t i = lv->start[l]; i < lv->start[l + 1]; i++, n++) {
                uint32_t a = node_of_rank[lv->pairs[i].src], b = node_of_rank[lv->pairs[i].dst];
                uint32_t *r = links + n * stride;
                int k = route(ctx, a, b, r, max_route);
                if (k < 0) {
                    rc = tn_error(err, errlen, "no route from node %u to node %u", a, b);
                    break;
                }
                if ((size_t)k > max_route) {
                    rc = tn_error(err, errlen,
                                  "route from node %u to node %u has %d links, more than %zu", a,
                                  b, k, max_route);
                    break;
                }
                rlen[n] = (uint32_t)k;
                for (int j = 0; j < k && rc == 0; j++) {
                    uint32_t e = r[j];
                    if (e >= nlinks) {
                        rc = tn_error(err, errlen,
                                      "route from node %u to node %u uses link %u of %u", a, b, e,
                                      nlinks);
                        break;
                    }
                    /* Routes are short (a few links): a quadratic scan finds a
                     * loop without a per-link array to touch. */
                    for (int q = 0; q < j; q++)
                        if (r[q] == e) {
                            rc = tn_error(err, errlen,
                                          "route from node %u to node %u uses link %u twice "
                                          "(routing loop)",
                                          a, b, e);
                            break;
                        }
                }
                if (rc == 0)
                    for (int j = 0; j < k; j++) {
                        cong_link *e = &lk[r[j]];
                        if (e->level != l + 1) {
                            e->level = l + 1;
                            e->load = 0;
                        }
                        e->load++;
                        e->total++;
                    }
                if (rc != 0)
                    break;
            }
        }
        if (rc != 0)
            break; /* the scratch arrays are dropped, acc is untouched */
        /* Congestion of each flow: its most loaded link. */
        uint64_t level_max = 0;
        for (uint64_t f = 0; f < n; f++) {
            uint64_t c = 1;
            if (rlen[f] > 0) {
                c = 0;
                for (uint32_t j = 0; j < rlen[f]; j++)
                    if (lk[links[f * stride + j]].load > c)
                        c = lk[links[f * stride + j]].load;
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
            for (uint32_t e = 0; e < nlinks; e++)
                acc->link_load[e] += lk[e].total;
            acc->runs++;
        }
    }
    free(links);
    free(rlen);
    free(cf);
    free(lk);
    free(ready);
    free(hist);
    return rc;
}
