/* The output port's decisions that are not on every packet's path: buffer
 * admission (drop-tail static or dynamic, ECN threshold or RED) and the
 * queue report. Rules and sources: port.h. */
#include "port.h"

#include <gsl/gsl_rng.h>

const char *const port_policy_names[] = {"static", "dynamic", NULL};
const char *const port_ecn_names[] = {"threshold", "red", NULL};

void port_cfg_check(const port_cfg *c, uint64_t mtu, param_report *rep)
{
    if (c->policy != PORT_STATIC && c->policy != PORT_DYNAMIC)
        param_invalid(rep, "network.buffer-policy", "unknown policy %d", c->policy);
    if (c->ecn != PORT_ECN_THRESHOLD && c->ecn != PORT_ECN_RED)
        param_invalid(rep, "network.ecn", "unknown marking %d", c->ecn);
    if (c->buffer_bytes > 0 && mtu > 0 && c->buffer_bytes < mtu)
        param_invalid(rep, "network.buffer", "%llu B cannot hold one packet of network.mtu = %llu B",
                      (unsigned long long)c->buffer_bytes, (unsigned long long)mtu);
    if (!(c->alpha > 0) || c->alpha > 1e6)
        param_invalid(rep, "network.buffer-alpha", "must be in (0, 1e6] (got %g)", c->alpha);
    if (c->ecn == PORT_ECN_RED) {
        if (c->red_min_bytes >= c->red_max_bytes)
            param_invalid(rep, "network.red-min", "red-min (%llu B) must be below red-max (%llu B)",
                          (unsigned long long)c->red_min_bytes, (unsigned long long)c->red_max_bytes);
        if (!(c->red_pmax > 0) || c->red_pmax > 1)
            param_invalid(rep, "network.red-max-probability", "must be in (0, 1] (got %g)", c->red_pmax);
        if (!(c->red_weight > 0) || c->red_weight > 1)
            param_invalid(rep, "network.red-weight", "must be in (0, 1] (got %g)", c->red_weight);
    }
}

int port_admit(const port_cfg *c, uint64_t qbytes, uint64_t shared, uint64_t bytes, int ect, port_red *red,
               gsl_rng *rng)
{
    if (c->buffer_bytes > 0) {
        if (c->policy == PORT_STATIC) {
            if (qbytes + bytes > c->buffer_bytes)
                return PORT_DROP;
        } else {
            uint64_t free = shared < c->buffer_bytes ? c->buffer_bytes - shared : 0;
            if (bytes > free || (double)(qbytes + bytes) > c->alpha * (double)free)
                return PORT_DROP;
        }
    }
    if (c->ecn == PORT_ECN_RED) {
        red->avg = (1 - c->red_weight) * red->avg + c->red_weight * (double)qbytes;
        if (red->avg < (double)c->red_min_bytes) {
            red->count = 0;
            return PORT_ENQUEUE;
        }
        int hit = 1;
        if (red->avg < (double)c->red_max_bytes) {
            double pb = c->red_pmax * (red->avg - (double)c->red_min_bytes) /
                        (double)(c->red_max_bytes - c->red_min_bytes);
            red->count++;
            double den = 1 - red->count * pb;
            double pa = den > 0 ? pb / den : 1;
            hit = gsl_rng_uniform(rng) < pa;
        }
        if (!hit)
            return PORT_ENQUEUE;
        red->count = 0;
        return ect ? PORT_MARK : PORT_DROP;
    }
    if (c->ecn_threshold_bytes > 0 && ect && qbytes >= c->ecn_threshold_bytes)
        return PORT_MARK;
    return PORT_ENQUEUE;
}

void port_report_fold(port_report *r, const port_stats *s, uint64_t qbytes, int64_t now)
{
    if (s->max > r->queue_max)
        r->queue_max = s->max;
    if (qbytes > r->queue_now)
        r->queue_now = qbytes;
    double area = s->area + (s->t_ps < now ? (double)qbytes * (double)(now - s->t_ps) : 0);
    double mean = now > 0 ? area / (double)now : 0;
    if (mean > r->queue_mean)
        r->queue_mean = mean;
}
