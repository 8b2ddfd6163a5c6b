#include "joblist.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

int64_t joblist_draw(tree *t, const tree_spec *ts, const task_spec *ks, gsl_rng *r)
{
    tree_generate(t, ts, r);
    tree_sample_tasks(t, ks, r);
    int64_t work_ps = 0;
    for (uint32_t v = 0; v < t->n; v++)
        work_ps += t->t_init_ps[v] + t->t_agg_ps[v];
    return work_ps;
}

/* Kept jobs are bump-allocated in chunks of at least this many bytes: a
 * job is its tree header and arrays, contiguous (a job's values are read
 * together while it runs), and nothing is ever freed before the list. */
#define JOBLIST_CHUNK ((size_t)256 << 10)

typedef struct jl_chunk {
    struct jl_chunk *prev;
    size_t size, used; /* bytes of data[], bytes handed out */
    _Alignas(16) unsigned char data[];
} jl_chunk;

struct joblist {
    tree_spec ts;       /* copies: the point that made the list may be gone */
    task_spec ks;
    gsl_rng *rng;       /* the stream, where job n is drawn */
    tree scratch;       /* the generator's storage, reused */
    tree **job;         /* [n]: the kept trees (in chunks) */
    int64_t *work_ps;   /* [n]: their work */
    uint64_t n, cap;
    jl_chunk *chunk;    /* the newest; older ones through prev */
    size_t bytes;       /* chunks + index */
    size_t max_bytes;   /* 0: no limit */
};

joblist *joblist_new(const tree_spec *ts, const task_spec *ks, gsl_rng *rng, size_t max_bytes)
{
    joblist *l = tn_xcalloc(1, sizeof *l);
    tree_spec_copy(&l->ts, ts);
    task_spec_copy(&l->ks, ks);
    l->rng = rng;
    tree_init(&l->scratch);
    l->max_bytes = max_bytes;
    return l;
}

void joblist_free(joblist *l)
{
    if (!l)
        return;
    for (jl_chunk *c = l->chunk, *prev; c; c = prev) {
        prev = c->prev;
        free(c);
    }
    free(l->job);
    free(l->work_ps);
    tree_destroy(&l->scratch);
    gsl_rng_free(l->rng);
    tree_spec_free(&l->ts);
    task_spec_free(&l->ks);
    free(l);
}

static void *jl_alloc(joblist *l, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    jl_chunk *c = l->chunk;
    if (!c || c->size - c->used < bytes) {
        size_t size = bytes > JOBLIST_CHUNK ? bytes : JOBLIST_CHUNK;
        c = tn_xmalloc(sizeof *c + size);
        c->prev = l->chunk;
        c->size = size;
        c->used = 0;
        l->chunk = c;
        l->bytes += sizeof *c + size;
    }
    void *p = c->data + c->used;
    c->used += bytes;
    return p;
}

/* The scratch tree's job, copied into the list's storage. */
static tree *keep(joblist *l, const tree *s)
{
    uint32_t n = s->n;
    size_t v64 = (size_t)n * sizeof(int64_t), off = ((size_t)n + 1) * sizeof(uint32_t),
           ch = (n > 1 ? (size_t)n - 1 : 1) * sizeof(uint32_t);
    size_t head = (sizeof(tree) + 15) & ~(size_t)15;
    unsigned char *p = jl_alloc(l, head + 4 * v64 + off + ch);
    tree *t = (tree *)(void *)p;
    memset(t, 0, sizeof *t);
    t->n = t->cap = n;
    p += head;
    t->t_init_ps = (int64_t *)(void *)p;
    t->t_agg_ps = (int64_t *)(void *)(p + v64);
    t->send_bytes = (uint64_t *)(void *)(p + 2 * v64);
    t->result_bytes = (uint64_t *)(void *)(p + 3 * v64);
    t->child_off = (uint32_t *)(void *)(p + 4 * v64);
    t->child = (uint32_t *)(void *)(p + 4 * v64 + off);
    memcpy(t->t_init_ps, s->t_init_ps, v64);
    memcpy(t->t_agg_ps, s->t_agg_ps, v64);
    memcpy(t->send_bytes, s->send_bytes, v64);
    memcpy(t->result_bytes, s->result_bytes, v64);
    memcpy(t->child_off, s->child_off, off);
    if (n > 1)
        memcpy(t->child, s->child, ((size_t)n - 1) * sizeof(uint32_t));
    return t;
}

const tree *joblist_get(joblist *l, uint64_t i, int64_t *work_ps)
{
    while (l->n <= i) {
        if (l->max_bytes && l->bytes >= l->max_bytes)
            return NULL;
        if (l->n == l->cap) {
            size_t before = l->cap * (sizeof *l->job + sizeof *l->work_ps);
            l->cap = l->cap ? 2 * l->cap : 1024;
            l->job = tn_xrealloc(l->job, l->cap * sizeof *l->job);
            l->work_ps = tn_xrealloc(l->work_ps, l->cap * sizeof *l->work_ps);
            l->bytes += l->cap * (sizeof *l->job + sizeof *l->work_ps) - before;
        }
        l->work_ps[l->n] = joblist_draw(&l->scratch, &l->ts, &l->ks, l->rng);
        l->job[l->n] = keep(l, &l->scratch);
        l->n++;
    }
    *work_ps = l->work_ps[i];
    return l->job[i];
}

uint64_t joblist_count(const joblist *l) { return l->n; }

size_t joblist_bytes(const joblist *l) { return l->bytes; }

gsl_rng *joblist_stream(const joblist *l)
{
    gsl_rng *r = gsl_rng_clone(l->rng);
    TN_ASSERT(r != NULL, "gsl_rng_clone failed");
    return r;
}
