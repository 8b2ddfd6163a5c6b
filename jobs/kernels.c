/* Communication micro-kernels as task programs (specs/kernels-patterns.md
 * §1, A1-A4); contract and draw order in kernels.h. */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "units.h"

const char *const kern_names[] = {"one-to-all", "all-to-one", "all-to-all", "sync-random", "gups",
                                  NULL};
const char *const kern_order_names[] = {"shifted", "linear", NULL};

static int find_in(const char *const *names, const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

int kern_find(const char *name) { return find_in(kern_names, name); }
int kern_order_find(const char *name) { return find_in(kern_order_names, name); }

static uint64_t wave_of(const kern_params *p)
{
    return p->kernel == KERN_GUPS ? p->total_messages : p->wave;
}

uint64_t kern_messages(const kern_params *p)
{
    uint64_t t = p->tasks;
    switch (p->kernel) {
    case KERN_ONE_TO_ALL:
    case KERN_ALL_TO_ONE: return (t - 1) * p->iterations;
    case KERN_ALL_TO_ALL: return t * (t - 1) * p->iterations;
    case KERN_SYNC_RANDOM:
    case KERN_GUPS: return p->total_messages;
    default: return 0;
    }
}

uint64_t kern_waves(const kern_params *p)
{
    if (p->kernel != KERN_SYNC_RANDOM && p->kernel != KERN_GUPS)
        return 0;
    uint64_t w = wave_of(p);
    return w ? (p->total_messages + w - 1) / w : 0;
}

int kern_check(const kern_params *p, char *err, size_t errlen)
{
    if ((unsigned)p->kernel >= KERN_COUNT)
        return tn_error(err, errlen, "kernel: unknown kernel %d", (int)p->kernel);
    const char *k = kern_names[p->kernel];
    if (p->tasks < 2)
        return tn_error(err, errlen, "%s: needs at least 2 tasks (got %u)", k, p->tasks);
    if (p->tasks > TP_TASKS_MAX)
        return tn_error(err, errlen, "%s: at most %u tasks (got %u)", k, TP_TASKS_MAX, p->tasks);
    switch (p->kernel) {
    case KERN_ONE_TO_ALL:
    case KERN_ALL_TO_ONE:
        if (p->root >= p->tasks)
            return tn_error(err, errlen, "%s: root (%u) must be a task, 0..%u", k, p->root,
                            p->tasks - 1);
        /* fall through */
    case KERN_ALL_TO_ALL:
        if (p->kernel == KERN_ALL_TO_ALL && p->order != KERN_SHIFTED && p->order != KERN_LINEAR)
            return tn_error(err, errlen, "%s: unknown order %d", k, (int)p->order);
        if (p->iterations < 1)
            return tn_error(err, errlen, "%s: iterations must be at least 1", k);
        break;
    case KERN_SYNC_RANDOM:
    case KERN_GUPS:
        if (p->total_messages < 1)
            return tn_error(err, errlen, "%s: total-messages must be at least 1", k);
        if (p->kernel == KERN_SYNC_RANDOM && (p->wave < 1 || p->wave > p->total_messages))
            return tn_error(err, errlen,
                            "%s: wave (%llu) must be between 1 and total-messages (%llu)", k,
                            (unsigned long long)p->wave, (unsigned long long)p->total_messages);
        if (p->total_messages / wave_of(p) >= UINT32_MAX)
            return tn_error(err, errlen, "%s: more than %u waves", k, UINT32_MAX - 1);
        break;
    default: break;
    }
    /* Every message is one send and one recv op. */
    uint64_t t = p->tasks, it = p->iterations;
    uint64_t msgs_max = TP_OPS_MAX / 2;
    int too_big = p->kernel == KERN_ALL_TO_ALL ? (t * (t - 1) > msgs_max / it)
                  : (p->kernel == KERN_SYNC_RANDOM || p->kernel == KERN_GUPS)
                      ? p->total_messages > msgs_max
                      : (t - 1) > msgs_max / it;
    if (too_big)
        return tn_error(err, errlen, "%s: more than %llu messages", k,
                        (unsigned long long)msgs_max);
    return 0;
}

void kern_draw_pair(gsl_rng *pairs, uint32_t tasks, uint32_t *src, uint32_t *dst)
{
    uint32_t s, d;
    do {
        s = (uint32_t)floor(gsl_rng_uniform(pairs) * tasks);
        d = (uint32_t)floor(gsl_rng_uniform(pairs) * tasks);
    } while (s == d);
    *src = s;
    *dst = d;
}

/* Sizes and compute times: one draw each, rounded to bytes / ps. */
static uint64_t draw_size(const dist *size, gsl_rng *r)
{
    double x = dist_sample(size, r);
    return x < 0.5 ? 0 : (uint64_t)llround(x);
}

static uint64_t draw_compute_ps(const dist *c, gsl_rng *r)
{
    int64_t ps = units_s_to_ps(dist_sample(c, r));
    return ps < 0 ? 0 : (uint64_t)ps;
}

static void build_o2a(const kern_params *p, const dist *size, gsl_rng *sizes, tp_builder *b)
{
    uint32_t T = p->tasks, r = p->root;
    for (uint32_t k = 0; k < p->iterations; k++)
        for (uint32_t i = 1; i < T; i++) {
            uint32_t d = (uint32_t)(((uint64_t)r + i) % T);
            tp_send_op(b, r, d, draw_size(size, sizes), k);
            tp_recv_op(b, d, r, k);
        }
}

static void build_a2o(const kern_params *p, const dist *size, gsl_rng *sizes, tp_builder *b)
{
    uint32_t T = p->tasks, r = p->root;
    for (uint32_t k = 0; k < p->iterations; k++)
        for (uint32_t s = 0; s < T; s++) {
            if (s == r)
                continue;
            tp_send_op(b, s, r, draw_size(size, sizes), k);
            tp_recv_op(b, r, s, k);
        }
}

static void build_a2a(const kern_params *p, const dist *size, gsl_rng *sizes, tp_builder *b)
{
    uint32_t T = p->tasks;
    for (uint32_t k = 0; k < p->iterations; k++) {
        /* Every task posts all its sends before its first recv (Fig. 3). */
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t u = 1; u < T; u++) {
                uint32_t d = p->order == KERN_SHIFTED ? (uint32_t)(((uint64_t)t + u) % T)
                                                      : (u - 1 < t ? u - 1 : u);
                tp_send_op(b, t, d, draw_size(size, sizes), k);
            }
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t u = 1; u < T; u++) {
                uint32_t s = p->order == KERN_SHIFTED ? (uint32_t)(((uint64_t)t + T - u) % T)
                                                      : (u - 1 < t ? u - 1 : u);
                tp_recv_op(b, t, s, k);
            }
    }
}

static void build_sr(const kern_params *p, const dist *size, gsl_rng *sizes, const dist *compute,
                     gsl_rng *compute_rng, gsl_rng *pairs, tp_builder *b)
{
    uint32_t T = p->tasks;
    uint64_t M = p->total_messages, W = wave_of(p);
    int with_compute = compute && !(dist_is_const(compute) && compute->a == 0);
    uint32_t *ps = tn_xmalloc((size_t)W * 2 * sizeof *ps); /* (src, dst) of the wave */
    for (uint64_t w = 0, m0 = 0; m0 < M; w++, m0 += W) {
        uint64_t n = M - m0 < W ? M - m0 : W;
        for (uint64_t i = 0; i < n; i++) {
            kern_draw_pair(pairs, T, &ps[2 * i], &ps[2 * i + 1]);
            tp_send_op(b, ps[2 * i], ps[2 * i + 1], draw_size(size, sizes), (uint32_t)w);
        }
        for (uint64_t i = 0; i < n; i++)
            tp_recv_op(b, ps[2 * i + 1], ps[2 * i], (uint32_t)w);
        if (with_compute)
            for (uint32_t t = 0; t < T; t++)
                tp_compute_op(b, t, draw_compute_ps(compute, compute_rng));
    }
    free(ps);
}

int kern_build(const kern_params *p, const dist *size, gsl_rng *sizes, const dist *compute,
               gsl_rng *compute_rng, gsl_rng *pairs, tp_prog *out, char *err, size_t errlen)
{
    if (kern_check(p, err, errlen) != 0)
        return -1;
    if (!size)
        return tn_error(err, errlen, "%s: no message-size", kern_names[p->kernel]);
    if (!dist_is_const(size) && !sizes)
        return tn_error(err, errlen, "%s: a random message-size needs a stream",
                        kern_names[p->kernel]);
    int sr = p->kernel == KERN_SYNC_RANDOM || p->kernel == KERN_GUPS;
    if (sr && !pairs)
        return tn_error(err, errlen, "%s: needs the pair stream", kern_names[p->kernel]);
    if (sr && compute && !dist_is_const(compute) && !compute_rng)
        return tn_error(err, errlen, "%s: a random compute-time needs a stream",
                        kern_names[p->kernel]);
    /* A compute op per task per wave can outgrow the messages' ops. */
    if (sr && compute && !(dist_is_const(compute) && compute->a == 0) &&
        kern_waves(p) > (TP_OPS_MAX - 2 * p->total_messages) / p->tasks)
        return tn_error(err, errlen, "%s: %llu waves x %u tasks compute phases are too many",
                        kern_names[p->kernel], (unsigned long long)kern_waves(p), p->tasks);
    tp_builder b;
    tp_builder_init(&b, p->tasks, 1);
    switch (p->kernel) {
    case KERN_ONE_TO_ALL: build_o2a(p, size, sizes, &b); break;
    case KERN_ALL_TO_ONE: build_a2o(p, size, sizes, &b); break;
    case KERN_ALL_TO_ALL: build_a2a(p, size, sizes, &b); break;
    default: build_sr(p, size, sizes, compute, compute_rng, pairs, &b); break;
    }
    tp_build(&b, out);
    return 0;
}
