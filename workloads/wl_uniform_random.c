/* The uniform-random workload: fabric characterisation without a scheduler.
 *
 * Every node 0..N-1 generates messages as a Poisson process of rate
 *   lambda = offered_load * B / (8 * mean message size)   (messages/s per node)
 * so that, on average, it offers offered_load * B bit/s. Each message goes to
 * a destination drawn uniformly among the N-1 other nodes; its size is drawn
 * from workload.message-size and rounded to the nearest byte (negative draws
 * are impossible for valid distributions; a draw below 0.5 B gives 0 B).
 * The rate uses the distribution's exact mean, so a continuous distribution
 * loses nothing measurable to the rounding.
 * Generation starts at t = 0 on every node (the first message of a node comes
 * one exponential gap later) and stops either
 *   - duration mode (duration_ps > 0): at the first arrival at or after
 *     duration_ps, which is not generated (a Poisson process on [0, D));
 *   - messages mode (messages > 0): after the node's `messages`-th message.
 * Arrival times are accumulated exactly (double ps) and rounded to the
 * picosecond only when scheduled, so rounding never accumulates.
 *
 * Streams (never shared with the fabric, so the same seed offers the same
 * traffic to every fabric): "uniform-arrivals" (gaps), "uniform-destinations",
 * "uniform-sizes". Separate size and destination streams keep the arrival
 * times and destinations common between runs that differ only in the size
 * distribution's shape (for the same mean).
 *
 * Accepted throughput. Measurement window W = [0, T_end]:
 *   duration mode: T_end = duration_ps;
 *   messages mode: T_end = the instant the first node generates its last
 *     message (during W every node generates, so the offered load is
 *     stationary over the whole window).
 * throughput = 8 * (bytes of messages delivered at a time <= T_end)
 *              / (N * B * T_end).
 * No warm-up is excluded: the fabric starts empty, so the deficit is about
 * the messages in flight at T_end (rate N lambda times the mean latency),
 * negligible when T_end is much longer than a latency. Below saturation it
 * estimates offered_load; above, the fabric's saturation throughput.
 *
 * Exactly-once check: each node counts the messages it generated and those
 * of its messages delivered, and sums h(seq) over both (h: the splitmix64
 * finaliser, a bijection on 64 bits, seq: the message's per-source sequence
 * number). Equal counts and equal sums per source mean every message arrived
 * once: a loss compensated by a duplicate would need h(a) = h(b) for a != b,
 * impossible for one pair, and a ~2^-64 accident for several. A delivery of a
 * message already released (its marker is cleared on release), from a node to
 * itself or from an unknown node is counted as bad. finish() also checks the
 * fabric's counters (sent, delivered, bytes) and that the pool has no message
 * left.
 *
 * No malloc in the event loop: messages come from a net_msg_pool, per-node
 * records are allocated in init. */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "network.h"
#include "rng.h"
#include "sim.h"
#include "units.h"
#include "workload.h"

#define UR_LIVE 0x5552u /* net_msg.kind of a message in flight ("UR") */
#define UR_DEAD 0xdeadu /* net_msg.kind once delivered and released */

typedef struct ur_node {
    double next_ps;      /* exact time of the node's next arrival, ps */
    uint64_t generated;  /* messages generated (the next one's seq) */
    uint64_t delivered;  /* of its messages, delivered */
    uint64_t gen_hash;   /* sum of h(seq) over generated messages (mod 2^64) */
    uint64_t dlv_hash;   /* sum of h(seq) over delivered messages (mod 2^64) */
} ur_node;

typedef struct ur {
    const wl_params *p;       /* borrowed for the run */
    sim *s;
    net *n;
    uint32_t nodes;           /* N */
    double bandwidth_bps;     /* B */
    double mean_gap_ps;       /* 1 / lambda, ps */
    int64_t duration_ps;      /* > 0: duration mode */
    uint64_t messages;        /* > 0: messages mode, per node */
    net_msg_pool pool;
    gsl_rng *rng_arrivals;    /* inter-arrival gaps */
    gsl_rng *rng_dst;         /* destinations */
    gsl_rng *rng_size;        /* message sizes */
    ur_node *node;            /* [N] */
    uint64_t generated;       /* messages generated, all nodes */
    uint64_t bytes_generated; /* their bytes */
    uint64_t delivered;       /* messages delivered */
    uint64_t bytes_delivered; /* their bytes */
    uint64_t bad;             /* deliveries that failed a check */
    int64_t first_gen_ps;     /* first generation, -1 before */
    int64_t last_dlv_ps;      /* last delivery, -1 before */
    int64_t window_end_ps;    /* T_end; INT64_MAX until known (messages mode) */
    uint64_t window_bytes;    /* bytes delivered at times <= T_end */
    int up;                   /* init succeeded */
} ur;

static uint64_t ur_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static void ur_arrival(sim *s, void *ctx, uint64_t arg);

/* Draw node i's next arrival; schedule it unless generation has ended. */
static void ur_schedule_next(ur *w, uint32_t i)
{
    ur_node *nd = &w->node[i];
    if (w->messages > 0 && nd->generated >= w->messages)
        return;
    nd->next_ps += gsl_ran_exponential(w->rng_arrivals, w->mean_gap_ps);
    TN_ASSERT(nd->next_ps < 0x1p62, "node %u: next arrival at %g ps overflows the clock", i,
              nd->next_ps);
    int64_t t = llround(nd->next_ps);
    if (w->duration_ps > 0 && t >= w->duration_ps)
        return;
    sim_schedule_at(w->s, t, ur_arrival, w, i);
}

static void ur_arrival(sim *s, void *ctx, uint64_t arg)
{
    ur *w = ctx;
    uint32_t src = (uint32_t)arg;
    ur_node *nd = &w->node[src];
    int64_t now = sim_now(s);

    uint32_t dst = (uint32_t)gsl_rng_uniform_int(w->rng_dst, w->nodes - 1);
    if (dst >= src)
        dst++; /* uniform over the N-1 others */
    double x = dist_sample(&w->p->message_size, w->rng_size);
    uint64_t size = x <= 0 ? 0 : (uint64_t)llround(x);

    net_msg *m = net_msg_alloc(&w->pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = size;
    m->cls = NET_DATA;
    m->prio = NET_PRIO_LOW;
    m->kind = UR_LIVE;
    m->b = nd->generated;

    nd->gen_hash += ur_mix(nd->generated);
    nd->generated++;
    w->generated++;
    w->bytes_generated += size;
    if (w->first_gen_ps < 0)
        w->first_gen_ps = now;
    /* The first node to finish closes the window (messages mode). */
    if (w->messages > 0 && nd->generated == w->messages && w->window_end_ps == INT64_MAX)
        w->window_end_ps = now;

    net_send(w->n, m);
    ur_schedule_next(w, src);
}

static void ur_deliver(void *state, net_msg *m)
{
    ur *w = state;
    int64_t now = sim_now(w->s);
    if (m->kind != UR_LIVE || m->src >= w->nodes || m->dst >= w->nodes || m->src == m->dst) {
        /* Not one of ours, already delivered, or to itself: count it and
         * leave the message alone (it may belong to the pool already). */
        w->bad++;
        return;
    }
    ur_node *nd = &w->node[m->src];
    nd->delivered++;
    nd->dlv_hash += ur_mix(m->b);
    w->delivered++;
    w->bytes_delivered += m->size_bytes;
    if (now <= w->window_end_ps)
        w->window_bytes += m->size_bytes;
    w->last_dlv_ps = now;
    m->kind = UR_DEAD;
    net_msg_release(&w->pool, m);
}

static int ur_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    ur *w = state;
    const wl_params *p = env->p;
    memset(w, 0, sizeof *w);
    if (env->nodes < 2)
        return tn_error(err, errlen, "uniform-random needs at least 2 nodes, got %u", env->nodes);
    if (!env->sim || !env->net)
        return tn_error(err, errlen, "uniform-random needs an engine and a network");
    if (env->net->params.nodes != env->nodes)
        return tn_error(err, errlen, "the network has %u nodes and the workload %u",
                        env->net->params.nodes, env->nodes);
    if (!(env->bandwidth_bps > 0) || !isfinite(env->bandwidth_bps))
        return tn_error(err, errlen, "uniform-random: bandwidth must be positive (got %g b/s)",
                        env->bandwidth_bps);
    if (p->message_size.text == NULL)
        return tn_error(err, errlen, "uniform-random: no message size distribution");
    double mean_bytes = dist_mean(&p->message_size);
    if (!(mean_bytes > 0) || !isfinite(mean_bytes))
        return tn_error(err, errlen,
                        "uniform-random: mean message size must be positive (got %g B)",
                        mean_bytes);
    if (!(p->offered_load > 0) || !isfinite(p->offered_load))
        return tn_error(err, errlen, "uniform-random: offered load must be positive (got %g)",
                        p->offered_load);
    if (p->duration_ps < 0)
        return tn_error(err, errlen, "uniform-random: negative duration (%lld ps)",
                        (long long)p->duration_ps);
    if ((p->duration_ps > 0) == (p->messages > 0))
        return tn_error(err, errlen,
                        p->duration_ps > 0
                            ? "uniform-random: give either a duration or a message count, not both"
                            : "uniform-random: give a duration or a message count per node");
    /* lambda = rho B / (8 E[size]) per second; mean gap in ps. */
    double rate_per_s = p->offered_load * env->bandwidth_bps / (8.0 * mean_bytes);
    double gap_ps = 1e12 / rate_per_s;
    if (!(gap_ps > 0) || !isfinite(gap_ps))
        return tn_error(err, errlen, "uniform-random: message rate %g /s per node is out of range",
                        rate_per_s);

    w->p = p;
    w->s = env->sim;
    w->n = env->net;
    w->nodes = env->nodes;
    w->bandwidth_bps = env->bandwidth_bps;
    w->mean_gap_ps = gap_ps;
    w->duration_ps = p->duration_ps;
    w->messages = p->messages;
    w->first_gen_ps = -1;
    w->last_dlv_ps = -1;
    w->window_end_ps = w->duration_ps > 0 ? w->duration_ps : INT64_MAX;
    w->node = tn_xcalloc(env->nodes, sizeof *w->node);
    net_msg_pool_init(&w->pool);
    w->rng_arrivals = rng_stream_new(env->seed, env->replica, "uniform-arrivals");
    w->rng_dst = rng_stream_new(env->seed, env->replica, "uniform-destinations");
    w->rng_size = rng_stream_new(env->seed, env->replica, "uniform-sizes");
    w->up = 1;
    /* Node order: the engine fires equal times in scheduling order. */
    for (uint32_t i = 0; i < w->nodes; i++)
        ur_schedule_next(w, i);
    return 0;
}

static int ur_check(const ur *w, char *err, size_t errlen)
{
    if (w->bad)
        return tn_error(err, errlen,
                        "%llu deliveries of messages already delivered, unknown or to their source",
                        (unsigned long long)w->bad);
    for (uint32_t i = 0; i < w->nodes; i++) {
        const ur_node *nd = &w->node[i];
        if (w->messages > 0 && nd->generated != w->messages)
            return tn_error(err, errlen, "node %u generated %llu of %llu messages", i,
                            (unsigned long long)nd->generated, (unsigned long long)w->messages);
        if (nd->delivered != nd->generated || nd->dlv_hash != nd->gen_hash)
            return tn_error(err, errlen,
                            "node %u: %llu messages generated, %llu deliveries, not each "
                            "delivered exactly once",
                            i, (unsigned long long)nd->generated,
                            (unsigned long long)nd->delivered);
    }
    if (w->pool.live != 0)
        return tn_error(err, errlen, "%llu messages are still live",
                        (unsigned long long)w->pool.live);
    const net_counters *c = &w->n->c;
    if (c->sent != w->generated || c->delivered != w->generated)
        return tn_error(err, errlen,
                        "the workload generated %llu messages, the fabric took %llu and "
                        "delivered %llu",
                        (unsigned long long)w->generated, (unsigned long long)c->sent,
                        (unsigned long long)c->delivered);
    if (c->bytes_sent != w->bytes_generated || c->bytes_delivered != w->bytes_generated ||
        w->bytes_delivered != w->bytes_generated)
        return tn_error(err, errlen, "%llu bytes generated, %llu sent, %llu delivered",
                        (unsigned long long)w->bytes_generated,
                        (unsigned long long)c->bytes_sent,
                        (unsigned long long)c->bytes_delivered);
    return 0;
}

static int ur_finish(void *state, double *m, char *err, size_t errlen)
{
    ur *w = state;
    if (ur_check(w, err, errlen) != 0)
        return -1;
    m[M_offered_load] = w->p->offered_load;
    m[M_messages_sent] = (double)w->generated;
    if (w->generated > 0)
        m[M_span_s] = units_ps_to_s(w->last_dlv_ps - w->first_gen_ps);
    if (w->window_end_ps > 0 && w->window_end_ps < INT64_MAX)
        m[M_throughput] = 8.0 * (double)w->window_bytes /
                          ((double)w->nodes * w->bandwidth_bps * units_ps_to_s(w->window_end_ps));
    return 0;
}

static void ur_fini(void *state)
{
    ur *w = state;
    if (!w->up)
        return;
    free(w->node);
    net_msg_pool_free(&w->pool);
    gsl_rng_free(w->rng_arrivals);
    gsl_rng_free(w->rng_dst);
    gsl_rng_free(w->rng_size);
    w->up = 0;
}

const wl_ops wl_uniform_random_ops = {
    .name = "uniform-random",
    .description = "every node sends Poisson traffic of a given offered load to uniformly "
                   "random other nodes (fabric characterisation)",
    .state_size = sizeof(ur),
    .init = ur_init,
    .deliver = ur_deliver,
    .finish = ur_finish,
    .fini = ur_fini,
};
