/* Task graphs from DOT files, read with cgraph (jobs/dag.h). */
#include "dag.h"

#include <ctype.h>
#include <graphviz/cgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "log.h"
#include "units.h"

#define DAG_AT_MAX 1200 /* "path:line: " */

/* A task's id, bound to its cgraph node. */
typedef struct dag_rec {
    Agrec_t h;
    uint32_t id;
} dag_rec;

/* cgraph reports through a callback (agseterrf); the message of the last
 * error is kept here while agread runs (a process reads one file at a time). */
static char dag_cgraph_msg[512];

static int dag_cgraph_err(char *msg)
{
    size_t n = strlen(dag_cgraph_msg);
    if (n + 1 < sizeof dag_cgraph_msg)
        snprintf(dag_cgraph_msg + n, sizeof dag_cgraph_msg - n, "%s", msg);
    return 0;
}

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

/* The first line of text that names `name` as a node (a token of its own,
 * bare or quoted, not an attribute's value after '='), 0 when none does. */
static long line_of(const char *text, const char *name)
{
    long line = 1;
    size_t nl = strlen(name);
    int block = 0;
    for (const char *p = text; *p;) {
        if (block) {
            if (p[0] == '*' && p[1] == '/') {
                block = 0;
                p += 2;
            } else {
                line += *p == '\n';
                p++;
            }
            continue;
        }
        if (*p == '\n') {
            line++;
            p++;
        } else if (p[0] == '/' && p[1] == '*') {
            block = 1;
            p += 2;
        } else if ((p[0] == '/' && p[1] == '/') || (p[0] == '#' && (p == text || p[-1] == '\n'))) {
            while (*p && *p != '\n')
                p++;
        } else if (*p == '"' || isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-') {
            const char *s = p, *e;
            int quoted = *p == '"';
            if (quoted) {
                s = ++p;
                while (*p && *p != '"') {
                    if (*p == '\\' && p[1])
                        p++;
                    line += *p == '\n';
                    p++;
                }
                e = p;
                if (*p)
                    p++;
            } else {
                while (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || (*p == '-' && p[1] != '>'))
                    p++;
                e = p;
                if (e == s) { /* a lone '-' of "->" */
                    p++;
                    continue;
                }
            }
            /* a value after '=' is an attribute's, not a node's */
            const char *b = s - (quoted ? 2 : 1);
            while (b >= text && (*b == ' ' || *b == '\t'))
                b--;
            int value = b >= text && *b == '=';
            if (!value && (size_t)(e - s) == nl && strncmp(s, name, nl) == 0)
                return line;
        } else
            p++;
    }
    return 0;
}

/* "path:line: " for task name (just "path: " when not found). */
static void where(char *out, size_t len, const char *path, const char *text, const char *name)
{
    long l = text ? line_of(text, name) : 0;
    if (l > 0)
        snprintf(out, len, "%s:%ld: ", path, l);
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
    FILE *f = tn_open_input(path, "r", why, sizeof why);
    if (!f)
        return tn_error(err, errlen, "%s", why);
    char *text = NULL;
    size_t tlen = 0;
    int rd = tn_read_all(f, (size_t)64 << 20, &text, &tlen);
    if (rd != 0) {
        fclose(f);
        return tn_error(err, errlen, "%s: cannot read it whole (%s)", path, strerror(rd));
    }
    rewind(f);
    dag_cgraph_msg[0] = '\0';
    agusererrf old = agseterrf(dag_cgraph_err);
    agerrlevel_t oldlvl = agseterr(AGERR);
    agreseterrors();
    /* cgraph's line count starts again, and its messages name the file
     * (it keeps the pointer: a buffer that outlives the call) */
    static char cgraph_file[1024];
    snprintf(cgraph_file, sizeof cgraph_file, "%s", path);
    agsetfile(cgraph_file);
    Agraph_t *g = agread(f, NULL);
    int nerr = agerrors();
    agseterrf(old);
    agseterr(oldlvl);
    fclose(f);
    int rc = 0;
    if (!g || nerr) {
        /* cgraph: "syntax error in line 3 near 'x'" */
        char *m = dag_cgraph_msg;
        while (*m == ' ' || *m == '\n')
            m++;
        size_t k = strlen(m);
        while (k && (m[k - 1] == '\n' || m[k - 1] == ' '))
            m[--k] = '\0';
        const char *ln = strstr(m, "line ");
        long line = ln ? strtol(ln + 5, NULL, 10) : 0;
        char *msg = strncmp(m, "Error: ", 7) == 0 ? m + 7 : m;
        size_t pl = strlen(path);
        if (strncmp(msg, path, pl) == 0 && msg[pl] == ':')
            msg += pl + 1 + (msg[pl + 1] == ' ');
        char *in = strstr(msg, " in line ");
        if (in) { /* the line goes in front, as file:line */
            char *e = in + 9;
            while (*e >= '0' && *e <= '9')
                e++;
            memmove(in, e, strlen(e) + 1);
        }
        if (line > 0)
            rc = tn_error(err, errlen, "%s:%ld: %s", path, line, msg[0] ? msg : "not a DOT graph");
        else
            rc = tn_error(err, errlen, "%s: %s", path, msg[0] ? msg : "no DOT graph in it");
        goto out;
    }
    if (!agisdirected(g)) {
        rc = tn_error(err, errlen, "%s:%ld: a task graph is a digraph (got 'graph': its edges need a direction)",
                      path, line_of(text, "graph") > 0 ? line_of(text, "graph") : 1);
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
    char at[DAG_AT_MAX];
    for (uint32_t t = 0; t < T && rc == 0; t++) {
        Agnode_t *n = nodes[t];
        const char *nm = agnameof(n);
        snprintf(d->name[t], DAG_NAME_MAX, "%s", nm);
        char *c = agget(n, "compute");
        char *pl = agget(n, "node");
        d->node[t] = DAG_UNPLACED;
        if (c && c[0]) {
            double s;
            char e2[256];
            if (units_parse(c, UNIT_TIME, &s, e2, sizeof e2) != 0 || !(s >= 0) || s > 1e5) {
                where(at, sizeof at, path, text, nm);
                rc = tn_error(err, errlen, "%snode '%s': compute=\"%s\": %s", at, nm, c,
                              s < 0 || s > 1e5 ? "a time from 0 to 1e5 s" : e2);
                break;
            }
            d->compute_ps[t] = units_s_to_ps(s);
        }
        if (pl && pl[0]) {
            char *end;
            long v = strtol(pl, &end, 10);
            if (*end || end == pl || v < 1 || v > (long)UINT32_MAX - 1) {
                where(at, sizeof at, path, text, nm);
                rc = tn_error(err, errlen, "%snode '%s': node=\"%s\": a rank from 1 (rank 0 is the scheduler)", at,
                              nm, pl);
                break;
            }
            d->node[t] = (uint32_t)v;
            if ((uint32_t)v > d->max_node)
                d->max_node = (uint32_t)v;
        } else
            d->unplaced++;
        d->work_ps += d->compute_ps[t];
    }
    for (uint32_t k = 0; k < E && rc == 0; k++) {
        Agedge_t *e = edges[k];
        uint32_t s = ((dag_rec *)aggetrec(agtail(e), "tasknet-dag", 0))->id;
        uint32_t t = ((dag_rec *)aggetrec(aghead(e), "tasknet-dag", 0))->id;
        d->esrc[k] = s;
        d->edst[k] = t;
        char *sz = agget(e, "size");
        if (sz && sz[0]) {
            double b;
            char e2[256];
            if (units_parse(sz, UNIT_SIZE, &b, e2, sizeof e2) != 0 || !(b >= 0) || b > 1e12) {
                where(at, sizeof at, path, text, d->name[s]);
                rc = tn_error(err, errlen, "%sedge '%s' -> '%s': size=\"%s\": %s", at, d->name[s], d->name[t], sz,
                              b < 0 || b > 1e12 ? "a size from 0 to 1TB" : e2);
                break;
            }
            d->ebytes[k] = (uint64_t)llround(b);
        }
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
            where(at2, sizeof at2, path, text, d->name[first]);
            rc = tn_error(err, errlen, "%sthe graph has a cycle (%s): a task graph is acyclic", at2, cyc);
        }
        free(left);
    }
out:
    if (g)
        agclose(g);
    free(text);
    if (rc)
        dag_free(d);
    return rc;
}

long dag_task_line(const char *path, const char *name)
{
    char why[512];
    FILE *f = tn_open_input(path, "r", why, sizeof why);
    if (!f)
        return 0;
    char *text = NULL;
    size_t len = 0;
    long l = tn_read_all(f, (size_t)64 << 20, &text, &len) == 0 ? line_of(text, name) : 0;
    fclose(f);
    free(text);
    return l;
}

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
