/* Task graphs from DOT files, read with cgraph through src/dotio.h (jobs/dag.h). */
#include "dag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dotio.h"
#include "infile.h"
#include "log.h"
#include "units.h"

#define DAG_AT_MAX 1200 /* "path:line: " */

/* A task's id, bound to its cgraph node. */
typedef struct dag_rec {
    Agrec_t h;
    uint32_t id;
} dag_rec;

void dag_free(dag *d)
{
    free(d->name);
    free(d->compute_ps);
    free(d->node);
    free(d->out_off);
    free(d->out);
    free(d->esrc);
    free(d->edst);
    free(d->ebytes);
    free(d->indeg);
    free(d->topo);
    memset(d, 0, sizeof *d);
}

/* "path:line: " for task name (just "path: " when not found). */
static void where(char *out, size_t len, const char *path, const char *name)
{
    int l = dot_line_of(path, name);
    if (l > 0)
        snprintf(out, len, "%s:%d: ", path, l);
    else
        snprintf(out, len, "%s: ", path);
}

static int cmp_seq(const void *a, const void *b)
{
    uint64_t x = AGSEQ(*(Agedge_t *const *)a), y = AGSEQ(*(Agedge_t *const *)b);
    return x < y ? -1 : x > y;
}

/* Name a cycle among the tasks Kahn's algorithm left (each has a
 * predecessor left): walk back along in-edges until a task repeats. */
static void name_cycle(const dag *d, const uint32_t *left_indeg, char *out, size_t len)
{
    uint32_t start = UINT32_MAX;
    for (uint32_t i = 0; i < d->tasks && start == UINT32_MAX; i++)
        if (left_indeg[i] > 0)
            start = i;
    uint32_t *seen = tn_xcalloc(d->tasks, sizeof *seen), *pred = tn_xcalloc(d->tasks, sizeof *pred);
    uint32_t v = start, step = 1;
    while (!seen[v]) {
        seen[v] = step++;
        uint32_t u = UINT32_MAX;
        for (uint32_t e = 0; e < d->edges && u == UINT32_MAX; e++)
            if (d->edst[e] == v && left_indeg[d->esrc[e]] > 0)
                u = d->esrc[e];
        TN_ASSERT(u != UINT32_MAX, "task %u left by Kahn's algorithm has no predecessor left", v);
        pred[v] = u;
        v = u;
    }
    /* v is on the cycle; its successors along the cycle are the pred chain reversed */
    uint32_t n = 0, *cyc = tn_xcalloc(d->tasks + 1, sizeof *cyc);
    uint32_t w = v;
    do {
        cyc[n++] = w;
        w = pred[w];
    } while (w != v && n < d->tasks);
    /* forward: v, then the chain of predecessors reversed, back to v */
    size_t used = 0;
    for (uint32_t k = 0; k < n && used < len; k++) {
        int m = snprintf(out + used, len - used, "%s -> ", d->name[cyc[k == 0 ? 0 : n - k]]);
        if (m < 0)
            break;
        used += (size_t)m;
    }
    if (used < len)
        snprintf(out + used, len - used, "%s", d->name[cyc[0]]);
    free(seen);
    free(pred);
    free(cyc);
}

int dag_read(const char *path, dag *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    char why[512];
    FILE *f = tn_open_input(path, "r", why, sizeof why); /* no FIFO or device: refused without blocking */
    if (!f)
        return tn_error(err, errlen, "%s", why);
    fclose(f);
    Agraph_t *g = dot_open(path, err, errlen);
    if (!g) {
        size_t n = strlen(err);
        if (strstr(err, "near 'node'") && n + 1 < errlen) /* node="3" unquoted */
            snprintf(err + n, errlen - n, " (a task's rank is written \"node\"=\"3\", quoted: DOT reserves the word node)");
        return -1;
    }
    int rc = 0;
    if (!agisdirected(g)) {
        int l = dot_line_of(path, "graph");
        rc = tn_error(err, errlen, "%s:%d: a task graph is a digraph (got 'graph': its edges need a direction)",
                      path, l > 0 ? l : 1);
        goto out;
    }
    uint32_t T = (uint32_t)agnnodes(g), E = (uint32_t)agnedges(g);
    if (T == 0) {
        rc = tn_error(err, errlen, "%s: the graph has no task", path);
        goto out;
    }
    d->tasks = T;
    d->edges = E;
    d->name = tn_xcalloc(T, sizeof *d->name);
    d->compute_ps = tn_xcalloc(T, sizeof *d->compute_ps);
    d->node = tn_xcalloc(T, sizeof *d->node);
    d->out_off = tn_xcalloc(T + 1, sizeof *d->out_off);
    d->out = tn_xcalloc(E ? E : 1, sizeof *d->out);
    d->esrc = tn_xcalloc(E ? E : 1, sizeof *d->esrc);
    d->edst = tn_xcalloc(E ? E : 1, sizeof *d->edst);
    d->ebytes = tn_xcalloc(E ? E : 1, sizeof *d->ebytes);
    d->indeg = tn_xcalloc(T, sizeof *d->indeg);
    d->topo = tn_xcalloc(T, sizeof *d->topo);
    Agnode_t **nodes = tn_xcalloc(T, sizeof *nodes);
    Agedge_t **edges = tn_xcalloc(E ? E : 1, sizeof *edges);
    uint32_t i = 0;
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        dag_rec *r = agbindrec(n, "tasknet-dag", sizeof(dag_rec), 0);
        r->id = i;
        nodes[i++] = n; /* agfstnode walks by sequence: creation order */
    }
    uint32_t ne = 0;
    for (uint32_t t = 0; t < T; t++)
        for (Agedge_t *e = agfstout(g, nodes[t]); e; e = agnxtout(g, e))
            edges[ne++] = e;
    TN_ASSERT(ne == E, "cgraph counted %u edges and listed %u", E, ne);
    qsort(edges, E, sizeof *edges, cmp_seq);
    for (uint32_t t = 0; t < T && rc == 0; t++) {
        Agnode_t *n = nodes[t];
        const char *nm = agnameof(n);
        snprintf(d->name[t], DAG_NAME_MAX, "%s", nm);
        double sec = 0;
        char e2[256];
        int got = dot_attr_unit(n, "compute", UNIT_TIME, &sec, e2, sizeof e2);
        if (got == 0 && !(sec >= 0 && sec <= 1e5))
            got = tn_error(e2, sizeof e2, "compute=\"%s\": a time from 0 to 1e5 s", dot_attr(n, "compute"));
        if (got < 0) {
            rc = dot_node_error(err, errlen, path, nm, "%s", e2);
            break;
        }
        d->compute_ps[t] = got == 0 ? units_s_to_ps(sec) : 0;
        uint32_t rank = 0;
        got = dot_attr_u32(n, "node", UINT32_MAX, &rank, e2, sizeof e2);
        if (got == 0 && rank == 0)
            got = tn_error(e2, sizeof e2, "node=\"0\": a rank from 1 (rank 0 is the scheduler)");
        if (got < 0) {
            rc = dot_node_error(err, errlen, path, nm, "%s", e2);
            break;
        }
        d->node[t] = got == 0 ? rank : DAG_UNPLACED;
        if (got == 0 && rank > d->max_node)
            d->max_node = rank;
        if (got != 0)
            d->unplaced++;
        d->work_ps += d->compute_ps[t];
    }
    for (uint32_t k = 0; k < E && rc == 0; k++) {
        Agedge_t *e = edges[k];
        uint32_t s = ((dag_rec *)aggetrec(agtail(e), "tasknet-dag", 0))->id;
        uint32_t t = ((dag_rec *)aggetrec(aghead(e), "tasknet-dag", 0))->id;
        d->esrc[k] = s;
        d->edst[k] = t;
        double bytes = 0;
        char e2[256];
        int got = dot_attr_unit(e, "size", UNIT_SIZE, &bytes, e2, sizeof e2);
        if (got == 0 && !(bytes >= 0 && bytes <= 1e12))
            got = tn_error(e2, sizeof e2, "size=\"%s\": a size from 0 to 1TB", dot_attr(e, "size"));
        if (got < 0) {
            rc = dot_node_error(err, errlen, path, d->name[s], "edge %s -> %s: %s", d->name[s], d->name[t], e2);
            break;
        }
        d->ebytes[k] = got == 0 ? (uint64_t)llround(bytes) : 0;
        d->bytes += d->ebytes[k];
        d->out_off[s + 1]++;
        d->indeg[t]++;
    }
    free(nodes);
    free(edges);
    if (rc)
        goto out;
    for (uint32_t t = 0; t < T; t++)
        d->out_off[t + 1] += d->out_off[t];
    {
        uint32_t *fill = tn_xcalloc(T, sizeof *fill);
        for (uint32_t k = 0; k < E; k++) {
            uint32_t s = d->esrc[k];
            d->out[d->out_off[s] + fill[s]++] = k;
        }
        free(fill);
    }
    for (uint32_t t = 0; t < T; t++)
        d->sinks += d->out_off[t + 1] == d->out_off[t];
    /* Kahn's algorithm, ties in task order (a FIFO of ready tasks) */
    {
        uint32_t *left = tn_xcalloc(T, sizeof *left), head = 0, tail = 0;
        memcpy(left, d->indeg, T * sizeof *left);
        for (uint32_t t = 0; t < T; t++)
            if (!left[t])
                d->topo[tail++] = t;
        while (head < tail) {
            uint32_t v = d->topo[head++];
            for (uint32_t k = d->out_off[v]; k < d->out_off[v + 1]; k++)
                if (--left[d->edst[d->out[k]]] == 0)
                    d->topo[tail++] = d->edst[d->out[k]];
        }
        if (tail < T) {
            char cyc[512];
            name_cycle(d, left, cyc, sizeof cyc);
            char at2[DAG_AT_MAX];
            uint32_t first = 0;
            while (first < T && !left[first])
                first++;
            where(at2, sizeof at2, path, d->name[first]);
            rc = tn_error(err, errlen, "%sthe graph has a cycle (%s): a task graph is acyclic", at2, cyc);
        }
        free(left);
    }
out:
    agclose(g);
    if (rc)
        dag_free(d);
    return rc;
}

long dag_task_line(const char *path, const char *name) { return dot_line_of(path, name); }

int64_t dag_critical_path_ps(const dag *d, double bandwidth_bps, int64_t fixed_ps)
{
    int64_t *fin = tn_xcalloc(d->tasks ? d->tasks : 1, sizeof *fin), best = 0;
    int64_t *start = tn_xcalloc(d->tasks ? d->tasks : 1, sizeof *start);
    for (uint32_t k = 0; k < d->tasks; k++) {
        uint32_t v = d->topo[k];
        fin[v] = start[v] + d->compute_ps[v];
        if (fin[v] > best)
            best = fin[v];
        for (uint32_t j = d->out_off[v]; j < d->out_off[v + 1]; j++) {
            uint32_t e = d->out[j], w = d->edst[e];
            int64_t ser = bandwidth_bps > 0 ? (int64_t)ceil((double)d->ebytes[e] * 8e12 / bandwidth_bps) : 0;
            int64_t at = fin[v] + ser + fixed_ps;
            if (at > start[w])
                start[w] = at;
        }
    }
    free(fin);
    free(start);
    return best;
}
