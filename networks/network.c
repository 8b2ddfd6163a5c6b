/* The fabric framework: registry, instance life cycle, the counters and
 * latency samples every fabric gets, serialisation times and the message
 * pool. Fabrics only schedule events and call net_delivered. */
#include "network.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "units.h"

const net_ops *const net_registry[] = {
    &net_ideal_ops,
    &net_switch_ops,
    &net_spinet_ops,
    NULL,
};

const net_ops *net_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; net_registry[i]; i++)
        if (strcmp(net_registry[i]->name, name) == 0)
            return net_registry[i];
    return NULL;
}

/* Bounds that keep 2 link + switch + a serialisation far from int64_t
 * overflow (a quarter of the range is still 26 days). */
#define NET_LATENCY_MAX_PS (INT64_MAX / 4)

int net_check_params(const char *fabric, const net_params *p, char *err, size_t errlen)
{
    if (p->nodes < 2)
        return tn_error(err, errlen, "%s: needs at least 2 nodes (got %u)", fabric, p->nodes);
    if (!(p->bandwidth_bps > 0) || !isfinite(p->bandwidth_bps))
        return tn_error(err, errlen, "%s: bandwidth must be positive and finite (got %g b/s)",
                        fabric, p->bandwidth_bps);
    if (p->link_latency_ps < 0 || p->link_latency_ps > NET_LATENCY_MAX_PS)
        return tn_error(err, errlen, "%s: link latency out of range (got %lld ps)", fabric,
                        (long long)p->link_latency_ps);
    if (p->switch_latency_ps < 0 || p->switch_latency_ps > NET_LATENCY_MAX_PS)
        return tn_error(err, errlen, "%s: switch latency out of range (got %lld ps)", fabric,
                        (long long)p->switch_latency_ps);
    return 0;
}

net *net_create(const char *type, const net_params *p, sim *s, gsl_rng *rng,
                net_deliver_fn deliver, void *owner, char *err, size_t errlen)
{
    TN_ASSERT(p && s && deliver, "net_create(%s) without params, engine or deliver callback",
              type ? type : "(null)");
    const net_ops *ops = net_find(type);
    if (!ops) {
        /* List the known types so a typo in a configuration explains itself. */
        char known[256] = "";
        size_t used = 0;
        for (size_t i = 0; net_registry[i] && used < sizeof known; i++) {
            int w = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                             net_registry[i]->name);
            if (w < 0)
                break;
            used += (size_t)w;
        }
        tn_error(err, errlen, "unknown network type '%s' (known: %s)", type ? type : "(null)",
                 known);
        return NULL;
    }
    net *n = tn_xcalloc(1, sizeof *n);
    n->ops = ops;
    n->state = tn_xcalloc(1, ops->state_size);
    n->sim = s;
    n->rng = rng;
    n->params = *p;
    n->deliver = deliver;
    n->owner = owner;
    stats_sample_init(&n->c.latency_s[NET_CONTROL]);
    stats_sample_init(&n->c.latency_s[NET_DATA]);
    stats_sample_init(&n->c.latency_all_s);
    /* The fabric reads the instance's own copy, so the caller's struct may go. */
    if (ops->init(n->state, n, &n->params, err, errlen) != 0) {
        free(n->state);
        free(n);
        return NULL;
    }
    return n;
}

void net_destroy(net *n)
{
    if (!n)
        return;
    if (n->ops->fini)
        n->ops->fini(n->state);
    free(n->state);
    stats_sample_free(&n->c.latency_s[NET_CONTROL]);
    stats_sample_free(&n->c.latency_s[NET_DATA]);
    stats_sample_free(&n->c.latency_all_s);
    free(n);
}

void net_send(net *n, net_msg *m)
{
    TN_ASSERT(m->src < n->params.nodes && m->dst < n->params.nodes,
              "message %u -> %u on a %u-node network", m->src, m->dst, n->params.nodes);
    TN_ASSERT(m->cls <= NET_DATA && m->prio <= NET_PRIO_LOW,
              "message %u -> %u with class %u, priority %u", m->src, m->dst, m->cls, m->prio);
    m->id = n->next_id++;
    m->t_submit_ps = sim_now(n->sim);
    m->next = NULL;
    n->c.sent++;
    n->c.bytes_sent += m->size_bytes;
    n->ops->send(n->state, m);
}

void net_delivered(net *n, net_msg *m)
{
    int64_t lat_ps = sim_now(n->sim) - m->t_submit_ps;
    TN_ASSERT(lat_ps >= 0 && n->c.delivered < n->c.sent,
              "message %llu delivered %lld ps after its hand-over (%llu of %llu delivered)",
              (unsigned long long)m->id, (long long)lat_ps, (unsigned long long)n->c.delivered,
              (unsigned long long)n->c.sent);
    n->c.delivered++;
    n->c.bytes_delivered += m->size_bytes;
    double lat_s = units_ps_to_s(lat_ps);
    stats_sample_add(&n->c.latency_all_s, lat_s);
    stats_sample_add(&n->c.latency_s[m->cls], lat_s);
    /* Last: the workload may release or resend m. */
    n->deliver(n->owner, m);
}

void net_metrics(net *n, double *m)
{
    net_counters *c = &n->c;
    m[M_messages_sent] = (double)c->sent;
    m[M_messages_delivered] = (double)c->delivered;
    m[M_bytes_delivered] = (double)c->bytes_delivered;
    m[M_msg_latency_mean_s] = stats_acc_mean(&c->latency_all_s.acc);
    m[M_msg_latency_p50_s] = stats_sample_quantile(&c->latency_all_s, 0.5);
    m[M_msg_latency_p99_s] = stats_sample_quantile(&c->latency_all_s, 0.99);
    m[M_msg_latency_max_s] = c->latency_all_s.acc.max;
    m[M_msg_latency_control_mean_s] = stats_acc_mean(&c->latency_s[NET_CONTROL].acc);
    m[M_msg_latency_control_p50_s] = stats_sample_quantile(&c->latency_s[NET_CONTROL], 0.5);
    m[M_msg_latency_control_p99_s] = stats_sample_quantile(&c->latency_s[NET_CONTROL], 0.99);
    m[M_msg_latency_control_max_s] = c->latency_s[NET_CONTROL].acc.max;
    m[M_msg_latency_data_mean_s] = stats_acc_mean(&c->latency_s[NET_DATA].acc);
    m[M_msg_latency_data_p50_s] = stats_sample_quantile(&c->latency_s[NET_DATA], 0.5);
    m[M_msg_latency_data_p99_s] = stats_sample_quantile(&c->latency_s[NET_DATA], 0.99);
    m[M_msg_latency_data_max_s] = c->latency_s[NET_DATA].acc.max;
    if (n->ops->metrics)
        n->ops->metrics(n->state, m);
}

/* ---- serialisation ---- */

int64_t net_serialization_ps(uint64_t bytes, double bps)
{
    net_rate r;
    net_rate_init(&r, bps);
    return net_rate_ps(&r, bytes);
}

/* ---- message pool ---- */

#define NET_POOL_CHUNK 1024 /* messages allocated at once */

void net_msg_pool_init(net_msg_pool *p) { memset(p, 0, sizeof *p); }

void net_msg_pool_free(net_msg_pool *p)
{
    for (size_t i = 0; i < p->nchunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    memset(p, 0, sizeof *p);
}

net_msg *net_msg_alloc(net_msg_pool *p)
{
    if (!p->free) {
        net_msg *c = tn_xmalloc(NET_POOL_CHUNK * sizeof *c);
        p->chunks = tn_xrealloc(p->chunks, (p->nchunks + 1) * sizeof *p->chunks);
        p->chunks[p->nchunks++] = c;
        /* Linked from the end so the chunk is handed out in address order. */
        for (size_t i = NET_POOL_CHUNK; i-- > 0;) {
            c[i].next = p->free;
            p->free = &c[i];
        }
    }
    net_msg *m = p->free;
    p->free = m->next;
    memset(m, 0, sizeof *m);
    p->live++;
    return m;
}

void net_msg_release(net_msg_pool *p, net_msg *m)
{
    TN_ASSERT(m && p->live > 0, "message released to a pool with %llu live messages",
              (unsigned long long)p->live);
    m->next = p->free;
    p->free = m;
    p->live--;
}
