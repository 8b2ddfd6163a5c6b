/* The fabric framework: registry, instance life cycle, the counters and
 * latency samples every fabric gets, serialisation times and the message
 * pool. Fabrics only schedule events and call net_delivered. */
#include "network.h"
#include "transport.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "units.h"

extern const net_ops net_ideal_ops;  /* networks/net_ideal.c: contention-free */
extern const net_ops net_switch_ops; /* networks/net_switch.c: MODEL.md section 6 */
extern const net_ops net_spinet_ops; /* networks/net_spinet.c: MODEL.md section 7 */
extern const net_ops net_torus_ops;     /* networks/net_torus.c: over the switched core (swnet.c) */
extern const net_ops net_fattree_ops;   /* networks/net_fattree.c */
extern const net_ops net_leafspine_ops; /* networks/net_leafspine.c */
extern const net_ops net_dragonfly_ops; /* networks/net_dragonfly.c */
extern const net_ops net_graph_ops;     /* networks/net_graph.c */

const net_ops *const net_registry[] = {
    &net_ideal_ops,
    &net_switch_ops,
    &net_spinet_ops,
    &net_torus_ops,
    &net_fattree_ops,
    &net_leafspine_ops,
    &net_dragonfly_ops,
    &net_graph_ops,
    NULL,
};

const net_ops *const net_default = &net_switch_ops;

const net_ops *net_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; net_registry[i]; i++)
        if (strcmp(net_registry[i]->name, name) == 0)
            return net_registry[i];
    return NULL;
}

size_t net_count(void)
{
    size_t n = 0;
    while (net_registry[n])
        n++;
    return n;
}

size_t net_index(const net_ops *ops)
{
    for (size_t i = 0; net_registry[i]; i++)
        if (net_registry[i] == ops)
            return i;
    TN_ASSERT(0, "fabric %s is not in net_registry", ops ? ops->name : "(null)");
    return 0;
}

void net_lossy_refusal(int kind, const char *fabric, const char *who, const char **attr, char *buf, size_t n)
{
    const char *fix = "a transport must recover them (<transport type=\"tcp\"/> or \"dctcp\", or workload.transport)";
    if (kind == NET_LOSSY_FAILURES) {
        *attr = "network.fail-at";
        snprintf(buf, n, "the %s loses the packets on its links that fail during the run, and %s's transport is "
                 "none: %s; without one a lost message would leave its workload waiting for ever", fabric, who, fix);
    } else if (kind == NET_LOSSY_PFC) {
        *attr = "network.pfc-headroom";
        snprintf(buf, n, "a headroom given bounds what a paused (port, priority) of the %s may hold, so it drops "
                 "what arrives past it when the headroom is below the pause's round trip, and %s's transport is "
                 "none: %s, or leave pfc-headroom at 0 (the round trip: no drop)", fabric, who, fix);
    } else if (kind == NET_LOSSY_HOST) {
        *attr = "network.host-buffer";
        snprintf(buf, n, "the %s's host queues drop the messages that do not fit, and %s's transport is none: %s",
                 fabric, who, fix);
    } else {
        *attr = "network.buffer";
        snprintf(buf, n, "the %s's finite buffers drop packets, and %s's transport is none: %s", fabric, who, fix);
    }
}

int net_name_ok(const char *name, char *err, size_t errlen)
{
    if (net_find(name))
        return 0;
    /* List the known types so a typo in a configuration explains itself. */
    char known[512] = "";
    size_t used = 0;
    for (size_t i = 0; net_registry[i] && used < sizeof known; i++) {
        int w = snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", net_registry[i]->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return tn_error(err, errlen, "unknown network type '%s' (expected one of: %s)", name ? name : "(null)",
                    known);
}

/* Bounds that keep 2 link + switch + a serialisation far from int64_t
 * overflow (a quarter of the range is still 26 days). */
#define NET_LATENCY_MAX_PS (INT64_MAX / 4)

void net_check_core(const net_params *p, param_report *rep)
{
    if (p->nodes < 2)
        param_invalid(rep, "system.nodes", "N = %u: a network needs at least 2 nodes", p->nodes);
    if (p->bandwidth_bps != 0 && (!(p->bandwidth_bps > 0) || !isfinite(p->bandwidth_bps)))
        param_invalid(rep, "network.bandwidth", "must be positive and finite (got %g b/s)", p->bandwidth_bps);
    if (p->link_latency_ps < 0 || p->link_latency_ps > NET_LATENCY_MAX_PS)
        param_invalid(rep, "network.link-latency", "out of range (got %lld ps)", (long long)p->link_latency_ps);
    if (p->switch_latency_ps < 0 || p->switch_latency_ps > NET_LATENCY_MAX_PS)
        param_invalid(rep, "network.switch-latency", "out of range (got %lld ps)",
                      (long long)p->switch_latency_ps);
}

int64_t net_fixed_latency_ps(const net_ops *ops, const net_params *core, const void *params)
{
    if (ops->fixed_latency_ps)
        return ops->fixed_latency_ps(core, params);
    return 2 * core->link_latency_ps + core->switch_latency_ps;
}

double net_mem_bytes(const net_ops *ops, const net_params *core, const void *params)
{
    if (ops->mem_bytes)
        return ops->mem_bytes(core, params);
    return NET_MEM_PER_NODE_B * (double)core->nodes;
}

double net_uniform_bound(const net_ops *ops, const net_params *core, const void *params)
{
    double b = ops->uniform_bound ? ops->uniform_bound(core, params) : 1;
    return b > 0 && b <= 1 ? b : 1;
}

void *net_params_new(const net_ops *ops)
{
    void *p = tn_xcalloc(1, ops->params_size ? ops->params_size : 1);
    param_block_defaults(p, ops->params, ops->nparams);
    return p;
}

void net_params_free(const net_ops *ops, void *params)
{
    if (!params)
        return;
    param_block_free(params, ops->params, ops->nparams);
    free(params);
}

net *net_create(const net_ops *ops, const net_params *p, const void *params, const phy_params *phy, sim *s,
                gsl_rng *rng, net_deliver_fn deliver, void *owner, char *err, size_t errlen)
{
    TN_ASSERT(ops && p && s && deliver, "net_create(%s) without fabric, params, engine or deliver callback",
              ops ? ops->name : "(null)");
    /* the core parameters, strictly: B is known by now */
    char e2[1024];
    param_first first;
    param_report *rep = param_report_first(&first, e2, sizeof e2);
    net_check_core(p, rep);
    if (!(p->bandwidth_bps > 0))
        param_invalid(rep, "network.bandwidth", "must be positive and finite (got %g b/s)", p->bandwidth_bps);
    if (first.rep.n) {
        tn_error(err, errlen, "%s: %s", ops->name, e2);
        return NULL;
    }
    void *own = tn_xcalloc(1, ops->params_size ? ops->params_size : 1);
    if (params)
        param_block_copy(own, params, ops->params_size, ops->params, ops->nparams);
    else
        param_block_defaults(own, ops->params, ops->nparams);
    net_phy summary;
    if (phy && ops->resolve_phy && ops->resolve_phy(p, own, phy, &summary, e2, sizeof e2) != 0) {
        tn_error(err, errlen, "%s: %s", ops->name, e2);
        net_params_free(ops, own);
        return NULL;
    }
    net *n = tn_xcalloc(1, sizeof *n);
    n->ops = ops;
    n->own = own;
    n->state = tn_xcalloc(1, ops->state_size ? ops->state_size : 1);
    n->sim = s;
    n->rng = rng;
    n->params = *p;
    n->deliver = deliver;
    n->owner = owner;
    n->root = n;
    n->prio = -1;
    n->t_first_ps = n->t_last_ps = -1;
    stats_sample_init(&n->c.latency_s[NET_CONTROL]);
    stats_sample_init(&n->c.latency_s[NET_DATA]);
    stats_mean_init(&n->c.latency_both_s);
    stats_mean_init(&n->c.head_s[NET_CONTROL]);
    stats_mean_init(&n->c.head_s[NET_DATA]);
    stats_mean_init(&n->c.head_both_s);
    if (ops->init(n->state, n, n->own, e2, sizeof e2) != 0) {
        tn_error(err, errlen, "%s: %s", ops->name, e2);
        stats_sample_free(&n->c.latency_s[NET_CONTROL]);
        stats_sample_free(&n->c.latency_s[NET_DATA]);
        net_params_free(ops, n->own);
        free(n->state);
        free(n);
        return NULL;
    }
    return n;
}

static void free_counters(net_counters *c)
{
    stats_sample_free(&c->latency_s[NET_CONTROL]);
    stats_sample_free(&c->latency_s[NET_DATA]);
}

void net_destroy(net *n)
{
    if (!n)
        return;
    TN_ASSERT(n->root == n, "net_destroy of a client handle (the fabric's frees them)");
    for (unsigned i = 1; i <= n->nclients; i++) {
        net *c = n->clients[i];
        if (c->tp_set) /* its workload's own transport (read before c is freed) */
            tp_destroy(c->tp);
        free_counters(&c->c);
        free(c->rank_node);
        free(c->node_rank);
        free(c);
    }
    tp_destroy(n->tp);
    if (n->ops->fini)
        n->ops->fini(n->state);
    free(n->state);
    net_params_free(n->ops, n->own);
    stats_sample_free(&n->c.latency_s[NET_CONTROL]);
    stats_sample_free(&n->c.latency_s[NET_DATA]);
    free(n->fault);
    free(n);
}

void net_fault(net *n, const char *fmt, ...)
{
    net *r = n->root;
    if (r->fault)
        return;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    r->fault = tn_xmalloc((size_t)(len > 0 ? len : 0) + 1);
    va_start(ap, fmt);
    vsnprintf(r->fault, (size_t)(len > 0 ? len : 0) + 1, fmt, ap);
    va_end(ap);
    sim_stop(r->sim);
}

net *net_attach(net *root, uint32_t ranks, const uint32_t *rank_node, int prio, net_deliver_fn deliver, void *owner,
                char *err, size_t errlen)
{
    TN_ASSERT(root && root->root == root && deliver, "net_attach to a client handle or without a callback");
    if (root->nclients + 1 >= NET_MAX_CLIENTS)
        return tn_error(err, errlen, "more than %d workloads on one fabric", NET_MAX_CLIENTS - 1), NULL;
    if (ranks < 1 || ranks > root->params.nodes)
        return tn_error(err, errlen, "a workload of %u ranks on a fabric of %u nodes", ranks, root->params.nodes), NULL;
    if (prio >= NET_PRIO_CLASSES)
        return tn_error(err, errlen, "priority class %d (classes are 0 to %d)", prio, NET_PRIO_CLASSES - 1), NULL;
    net *c = tn_xcalloc(1, sizeof *c);
    c->ops = root->ops;
    c->state = root->state;
    c->own = root->own;
    c->sim = root->sim;
    c->rng = root->rng;
    c->params = root->params;
    c->params.nodes = ranks;
    c->deliver = deliver;
    c->owner = owner;
    c->root = root;
    c->prio = prio;
    c->rank_node = tn_xcalloc(ranks, sizeof *c->rank_node);
    c->node_rank = tn_xmalloc(root->params.nodes * sizeof *c->node_rank);
    for (uint32_t k = 0; k < root->params.nodes; k++)
        c->node_rank[k] = -1;
    for (uint32_t r = 0; r < ranks; r++) {
        uint32_t node = rank_node ? rank_node[r] : r;
        if (node >= root->params.nodes || c->node_rank[node] >= 0) {
            tn_error(err, errlen, "rank %u on node %u: %s", r, node,
                     node >= root->params.nodes ? "no such node" : "a node of another rank");
            free(c->rank_node);
            free(c->node_rank);
            free(c);
            return NULL;
        }
        c->rank_node[r] = node;
        c->node_rank[node] = (int32_t)r;
    }
    stats_sample_init(&c->c.latency_s[NET_CONTROL]);
    stats_sample_init(&c->c.latency_s[NET_DATA]);
    stats_mean_init(&c->c.latency_both_s);
    stats_mean_init(&c->c.head_s[NET_CONTROL]);
    stats_mean_init(&c->c.head_s[NET_DATA]);
    stats_mean_init(&c->c.head_both_s);
    c->client = (uint8_t)++root->nclients;
    root->clients[c->client] = c;
    return c;
}

void net_send(net *n, net_msg *m)
{
    TN_ASSERT(m->src < n->params.nodes && m->dst < n->params.nodes,
              "message %u -> %u on a %u-node network", m->src, m->dst, n->params.nodes);
    TN_ASSERT(m->cls <= NET_DATA && m->prio < NET_PRIO_CLASSES,
              "message %u -> %u with class %u, priority %u", m->src, m->dst, m->cls, m->prio);
    net *root = n->root;
    m->client = n->client;
    if (n != root) {
        m->src = n->rank_node[m->src];
        m->dst = n->rank_node[m->dst];
        if (n->prio >= 0)
            m->prio = (uint8_t)n->prio;
        n->c.sent++;
        n->c.bytes_sent += m->size_bytes;
    }
    m->id = root->next_id++;
    m->t_submit_ps = sim_now(root->sim);
    m->t_head_ps = -1;
    m->inject_hi = 0;
    m->inject_lo = 0;
    m->ecn = NET_ECN_NOT_ECT;
    m->next = NULL;
    root->c.sent++;
    root->c.bytes_sent += m->size_bytes;
    struct tp_inst *tp = n->tp_set ? n->tp : root->tp;
    if (tp) {
        if (root->t_first_ps < 0)
            root->t_first_ps = m->t_submit_ps;
        tp_send(tp, m);
        return;
    }
    root->ops->send(root->state, m);
}

/* net_counters' series of all messages, for an addition x of class bit b
 * when the classes that added so far (*cls) are not b alone: none yet, b
 * is the first; the other one alone, the series starts as its copy (`so
 * far`, what net_latency_all / net_head_all read before this addition);
 * both, x is added. Called before the class's own addition. */
static void both_add(stats_mean *both, uint8_t *cls, unsigned b, stats_mean so_far, double x)
{
    if (!*cls) {
        *cls = (uint8_t)b;
        return;
    }
    if (*cls != 3) {
        *both = so_far;
        *cls = 3;
    }
    stats_mean_add(both, x);
}

/* Inline (with app_delivered into both its callers): a delivery passed
 * four calls before its workload's (callgrind). */
static inline __attribute__((always_inline)) void count_delivery(net *n, const net_msg *m, int64_t lat_ps)
{
    TN_ASSERT(lat_ps >= 0 && n->c.delivered < n->c.sent,
              "message %llu delivered %lld ps after its hand-over (%llu of %llu delivered)",
              (unsigned long long)m->id, (long long)lat_ps, (unsigned long long)n->c.delivered,
              (unsigned long long)n->c.sent);
    n->c.delivered++;
    n->c.bytes_delivered += m->size_bytes;
    double lat_s = units_ps_to_s(lat_ps);
    /* The samples are kept per class only: "all" needs its moments, and
     * its quantiles come from the two classes together (net_metrics). */
    unsigned b = 1u << m->cls;
    if (__builtin_expect(n->c.latency_cls != b, 0))
        both_add(&n->c.latency_both_s, &n->c.latency_cls, b, net_latency_all(&n->c), lat_s);
    stats_sample_add(&n->c.latency_s[m->cls], lat_s);
    if (m->t_head_ps >= 0) {
        int64_t head_ps = m->t_head_ps - m->t_submit_ps;
        TN_ASSERT(head_ps >= 0 && head_ps <= lat_ps, "message %llu: first bit %lld ps, last bit %lld ps after its "
                  "hand-over", (unsigned long long)m->id, (long long)head_ps, (long long)lat_ps);
        double head_s = units_ps_to_s(head_ps);
        if (__builtin_expect(n->c.head_cls != b, 0))
            both_add(&n->c.head_both_s, &n->c.head_cls, b, net_head_all(&n->c), head_s);
        stats_mean_add(&n->c.head_s[m->cls], head_s);
    } else {
        n->c.head_untold++;
    }
}

void net_set_transport(net *root, struct tp_inst *t)
{
    TN_ASSERT(root->root == root, "a transport is set on the fabric's own handle");
    root->tp = t;
}

void net_set_client_transport(net *c, struct tp_inst *t)
{
    TN_ASSERT(c->root != c && !c->tp_set, "a workload's own transport is set once, on its client handle");
    c->tp = t;
    c->tp_set = 1;
}

int net_transport_counters(const net *root, tp_counters *out)
{
    memset(out, 0, sizeof *out);
    int any = 0;
    for (unsigned i = 0; i <= root->nclients; i++) {
        const struct tp_inst *t = i ? (root->clients[i]->tp_set ? root->clients[i]->tp : NULL) : root->tp;
        if (!t)
            continue;
        tp_counters c;
        tp_get_counters(t, &c);
        out->segments += c.segments;
        out->acks += c.acks;
        out->retransmissions += c.retransmissions;
        out->timeouts += c.timeouts;
        out->fast_retransmits += c.fast_retransmits;
        out->dropped += c.dropped;
        out->duplicates += c.duplicates;
        out->flows_live += c.flows_live;
        out->delivered_bytes += c.delivered_bytes;
        any = 1;
    }
    return any;
}

void net_dropped(net *n, net_msg *m)
{
    TN_ASSERT(n->root == n && m->client == NET_TP_CLIENT,
              "message %llu dropped without a transport to recover it", (unsigned long long)m->id);
    tp_dropped(tp_of(m), m);
}

static inline __attribute__((always_inline)) void app_delivered(net *n, net_msg *m);

void net_delivered(net *n, net_msg *m)
{
    if (m->client == NET_TP_CLIENT) {
        tp_arrived(tp_of(m), m);
        return;
    }
    app_delivered(n, m);
}

void net_app_delivered(net *n, net_msg *m) { app_delivered(n, m); }

static inline __attribute__((always_inline)) void app_delivered(net *n, net_msg *m)
{
    TN_ASSERT(n->root == n, "a fabric reports deliveries on its own handle");
    int64_t lat_ps = sim_now(n->sim) - m->t_submit_ps;
    count_delivery(n, m, lat_ps);
    net *c = n;
    if (m->client) {
        TN_ASSERT(m->client <= n->nclients, "message %llu of client %u (%u attached)", (unsigned long long)m->id,
                  m->client, n->nclients);
        c = n->clients[m->client];
        count_delivery(c, m, lat_ps);
        m->src = (uint32_t)c->node_rank[m->src];
        m->dst = (uint32_t)c->node_rank[m->dst];
    }
    /* Last: the workload may release or resend m. */
    c->deliver(c->owner, m);
}

int64_t net_zero_load_ps(const net *n, uint32_t src, uint32_t dst, uint64_t bytes)
{
    if (n != n->root) {
        src = n->rank_node[src];
        dst = n->rank_node[dst];
    }
    return n->ops->zero_load_ps(n->root->state, src, dst, bytes);
}

size_t net_route(const net *n, uint32_t src, uint32_t dst, uint64_t *links, size_t max)
{
    if (!n->ops->route)
        return 0;
    if (n != n->root) {
        src = n->rank_node[src];
        dst = n->rank_node[dst];
    }
    return n->ops->route(n->root->state, src, dst, links, max);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(1099511628211);
    return h;
}

uint64_t net_routes_digest(const net *root)
{
    const net_ops *o = root->ops;
    uint64_t h = fnv(UINT64_C(1469598103934665603), o->name, strlen(o->name) + 1);
    const net_params *c = &root->params;
    h = fnv(h, &c->nodes, sizeof c->nodes);
    h = fnv(h, &c->bandwidth_bps, sizeof c->bandwidth_bps);
    h = fnv(h, &c->link_latency_ps, sizeof c->link_latency_ps);
    h = fnv(h, &c->switch_latency_ps, sizeof c->switch_latency_ps);
    for (size_t i = 0; i < o->nparams && root->own; i++) {
        char *v = param_format(root->own, &o->params[i], NULL);
        h = fnv(h, o->params[i].path, strlen(o->params[i].path) + 1);
        h = fnv(h, v, strlen(v) + 1);
        free(v);
        uint64_t d = param_digest(root->own, &o->params[i]);
        h = fnv(h, &d, sizeof d);
    }
    uint64_t k = o->routes_key ? o->routes_key(root->state) : 0;
    return fnv(h, &k, sizeof k);
}

size_t net_route_many(const net *n, size_t count, const uint64_t *ends, uint32_t *links, uint32_t *len,
                      size_t stride)
{
    if (!n->ops->route_many)
        return SIZE_MAX;
    if (n == n->root)
        return n->ops->route_many(n->root->state, count, ends, links, len, stride);
    uint64_t nodes[512];
    for (size_t i = 0; i < count; i += 512) {
        size_t m = count - i < 512 ? count - i : 512;
        for (size_t j = 0; j < m; j++)
            nodes[j] = (uint64_t)n->rank_node[ends[i + j] >> 32] << 32 | n->rank_node[(uint32_t)ends[i + j]];
        size_t need = n->ops->route_many(n->root->state, m, nodes, links + i * stride, len + i, stride);
        if (need)
            return need;
    }
    return 0;
}

/* Mean, median, p99 and maximum of latencies whose moments are
 * (n, mean_s, max_s) and samples those of parts[0 .. np); NAN when the run
 * had none (the metric does not apply). */
static void latency_metrics(uint64_t n, double mean_s, double max_s, stats_sample *const *parts, size_t np,
                            double *mean, double *p50, double *p99, double *max)
{
    if (n == 0) {
        *mean = *p50 = *p99 = *max = NAN;
        return;
    }
    *mean = mean_s;
    static const double q[2] = {0.5, 0.99};
    double v[2];
    stats_samples_quantiles(parts, np, 2, q, v);
    *p50 = v[0];
    *p99 = v[1];
    *max = max_s;
}

void net_metrics(net *n, double *core, double *own)
{
    net_counters *c = &n->c;
    core[M_messages_sent] = (double)c->sent;
    core[M_messages_delivered] = (double)c->delivered;
    core[M_bytes_delivered] = (double)c->bytes_delivered;
    stats_sample *both[] = {&c->latency_s[NET_CONTROL], &c->latency_s[NET_DATA]};
    stats_mean all = net_latency_all(c), head_all = net_head_all(c);
    latency_metrics(all.n, stats_mean_value(&all), all.max, both, 2,
                    &core[M_msg_latency_mean_s], &core[M_msg_latency_p50_s], &core[M_msg_latency_p99_s],
                    &core[M_msg_latency_max_s]);
    for (int k = NET_CONTROL; k <= NET_DATA; k++) {
        stats_sample *s = &c->latency_s[k];
        int ctl = k == NET_CONTROL;
        latency_metrics(s->n, stats_acc_mean(&s->acc), s->acc.max, &s, 1,
                        &core[ctl ? M_msg_latency_control_mean_s : M_msg_latency_data_mean_s],
                        &core[ctl ? M_msg_latency_control_p50_s : M_msg_latency_data_p50_s],
                        &core[ctl ? M_msg_latency_control_p99_s : M_msg_latency_data_p99_s],
                        &core[ctl ? M_msg_latency_control_max_s : M_msg_latency_data_max_s]);
    }
    /* head latency: only when the fabric told it for every message */
    const stats_mean *head[] = {&head_all, &c->head_s[NET_CONTROL], &c->head_s[NET_DATA]};
    double *mean[] = {&core[M_msg_head_latency_mean_s], &core[M_msg_head_latency_control_mean_s],
                      &core[M_msg_head_latency_data_mean_s]};
    for (int k = 0; k < 3; k++)
        *mean[k] = head[k]->n && !c->head_untold ? stats_mean_value(head[k]) : NAN;
    core[M_msg_head_latency_max_s] = head_all.n && !c->head_untold ? head_all.max : NAN;
    core[M_drops] = core[M_ecn_marks] = core[M_queue_max_bytes] = core[M_queue_mean_bytes] = NAN;
    core[M_pause_frames] = core[M_paused_time_s] = NAN;
    net_queue_report qr = {0};
    int64_t t_end = n->t_last_ps > 0 ? n->t_last_ps : sim_now(n->sim);
    int buffered = n->root == n && n->ops->queue_report && n->ops->queue_report(n->state, t_end, &qr);
    if (buffered) {
        core[M_drops] = (double)qr.drops;
        core[M_ecn_marks] = (double)qr.marks;
        core[M_queue_max_bytes] = qr.queue_max;
        core[M_queue_mean_bytes] = qr.queue_mean;
        if (qr.pfc) {
            core[M_pause_frames] = (double)qr.pause_frames;
            core[M_paused_time_s] = qr.paused_s;
        }
    }
    core[M_retransmissions] = core[M_timeouts] = core[M_goodput_bps] = NAN;
    if (qr.has_retx)
        core[M_retransmissions] = (double)qr.retx;
    tp_counters tc;
    if (n->root == n && net_transport_counters(n, &tc)) {
        core[M_retransmissions] = (double)tc.retransmissions;
        core[M_timeouts] = (double)tc.timeouts;
        if (n->t_last_ps > n->t_first_ps && n->t_first_ps >= 0)
            core[M_goodput_bps] = 8.0 * (double)tc.delivered_bytes / units_ps_to_s(n->t_last_ps - n->t_first_ps);
    }
    metric_unset(own, n->ops->nmetrics);
    if (n->ops->fill_metrics)
        n->ops->fill_metrics(n->state, own);
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

void net_msg_pool_grow(net_msg_pool *p)
{
    net_msg *c = tn_xmalloc(NET_POOL_CHUNK * sizeof *c);
    p->chunks = tn_xrealloc(p->chunks, (p->nchunks + 1) * sizeof *p->chunks);
    p->chunks[p->nchunks++] = c;
    /* Linked from the end so the chunk is handed out in address order. */
    for (size_t i = NET_POOL_CHUNK; i-- > 0;) {
        c[i].next = p->free;
        p->free = &c[i];
    }
}
