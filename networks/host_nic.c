/* The host NIC (issue 12 item 1): hosts that share their uplink between
 * the messages they send.
 *
 * Rules (none is in seeds 000 or 002, which take TCP/ns-3 or an IQ switch
 * for granted; each is the textbook discipline its name says):
 *   - Hand-over: a message becomes active at its source NIC at once (the
 *     NIC has room for every message: a blocking send is host memory).
 *   - Cutting: a message of s bytes leaves as K = ceil(s / mtu) packets,
 *     K - 1 of mtu bytes and the rest last (mtu 0: K = 1; a 0-byte message
 *     is one 0-byte packet). The fabric delivers the message when its last
 *     packet arrives.
 *   - Selection, each time the uplink is free: the lowest non-empty class
 *     when classes are on (net_msg.prio, 0 first; on with the policy
 *     `priority` or when the fabric asks, e.g. the switch's
 *     priority="control-first"/"strict"), else one class; within it
 *       fifo: the oldest active message, all its packets before the next
 *         message's (with mtu 0 exactly the historical source FIFO);
 *       round-robin: the active messages in a circle in order of arrival,
 *         one packet each in turn; the message that sent a packet goes to
 *         the back just before the next pick, so one that arrived while
 *         that packet was on the wire is served next (deficit round robin
 *         with a quantum of one packet, Shreedhar and Varghese 1995: the
 *         per-flow fair share TCP flows sharing a NIC roughly get);
 *       priority: classes on, round-robin within a class (the issue's
 *         "strict classes, then round-robin");
 *       srpt: the message with the fewest bytes left to cut, ties to the
 *         earlier hand-over (lower net_msg.id): pFabric's sender (Alizadeh
 *         et al., SIGCOMM 2013, sec. 4.1: "the flow with the smallest
 *         remaining size"), preemptive at packet boundaries.
 *     A packet on the wire is never preempted.
 *   - Uplink (nic_link): one transmitter per node at B; a packet's first bit
 *     leaves at max(the instant it is picked, end of the previous packet)
 *     and its last ser(bytes) = net_rate_ps later. Alone, a message of s
 *     bytes spends nic_ser_ps(s) on its uplink: (K-1) ser(mtu) + ser(last).
 * Events: a packet starts inside nic_send when its uplink is idle and nothing
 * waits; otherwise one "uplink free" event per packet that waited (none while
 * the uplink idles). No malloc once the pools and heaps have grown. */
#include "host_nic.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

const char *const nic_policy_names[] = {"fifo", "round-robin", "priority", "srpt", NULL};

#define NIC_CHUNK 256 /* records allocated at once */

void nic_check(const nic_params *p, param_report *rep)
{
    if (p->policy < NIC_FIFO || p->policy > NIC_SRPT)
        param_invalid(rep, "network.host-scheduling", "unknown policy %d", p->policy);
}

/* ---- pools ---- */

static void *chunk(host_nic *h, size_t size)
{
    void *c = tn_xcalloc(NIC_CHUNK, size);
    h->chunks = tn_xrealloc(h->chunks, (h->nchunks + 1) * sizeof *h->chunks);
    h->chunks[h->nchunks++] = c;
    return c;
}

static nic_flow *flow_alloc(host_nic *h)
{
    if (!h->flow_free) {
        nic_flow *c = chunk(h, sizeof *c);
        for (size_t i = NIC_CHUNK; i-- > 0;) {
            c[i].next = h->flow_free;
            h->flow_free = &c[i];
        }
    }
    nic_flow *f = h->flow_free;
    h->flow_free = f->next;
    memset(f, 0, sizeof *f);
    return f;
}

static void flow_release(host_nic *h, nic_flow *f)
{
    f->next = h->flow_free;
    h->flow_free = f;
}

static nic_pkt *pkt_alloc(host_nic *h)
{
    if (!h->pkt_free) {
        nic_pkt *c = chunk(h, sizeof *c);
        for (size_t i = NIC_CHUNK; i-- > 0;) {
            c[i].next = h->pkt_free;
            h->pkt_free = &c[i];
        }
    }
    nic_pkt *p = h->pkt_free;
    h->pkt_free = p->next;
    memset(p, 0, sizeof *p);
    h->live_pkts++;
    return p;
}

void nic_pkt_free(host_nic *h, nic_pkt *p)
{
    TN_ASSERT(h->live_pkts > 0, "packet freed with no packet live");
    h->live_pkts--;
    p->next = h->pkt_free;
    h->pkt_free = p;
}

/* Class c's queue of node's NIC (c < h->ncls). */
static inline nic_queue *qat(const host_nic *h, uint32_t node, unsigned c)
{
    return &h->q[(size_t)node * h->ncls + c];
}

/* ---- srpt heap: min on (left_bytes, msg id) ---- */

static int flow_before(const nic_flow *a, const nic_flow *b)
{
    return a->left_bytes < b->left_bytes || (a->left_bytes == b->left_bytes && a->msg->id < b->msg->id);
}

static void heap_push(nic_queue *q, nic_flow *f)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 8;
        q->heap = tn_xrealloc(q->heap, q->cap * sizeof *q->heap);
    }
    uint32_t i = q->n++;
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (!flow_before(f, q->heap[up]))
            break;
        q->heap[i] = q->heap[up];
        i = up;
    }
    q->heap[i] = f;
}

static void heap_pop(nic_queue *q)
{
    nic_flow *last = q->heap[--q->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && flow_before(q->heap[c + 1], q->heap[c]))
            c++;
        if (!flow_before(q->heap[c], last))
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (q->n)
        q->heap[i] = last;
}

/* ---- life cycle ---- */

void nic_init(host_nic *h, uint32_t nodes, const nic_params *p, int classes)
{
    memset(h, 0, sizeof *h);
    h->policy = (nic_policy)p->policy;
    h->classes = nic_classes_on(p, classes);
    h->mtu_bytes = p->mtu_bytes;
    h->nodes = nodes;
    h->node = tn_xcalloc(nodes, sizeof *h->node);
    h->ncls = h->classes ? NET_PRIO_CLASSES : 1;
    h->q = tn_xcalloc((size_t)nodes * h->ncls, sizeof *h->q);
}

double nic_mem_bytes(uint32_t nodes, const nic_params *p, int classes)
{
    unsigned ncls = nic_classes_on(p, classes) ? NET_PRIO_CLASSES : 1;
    return (double)nodes * (sizeof(nic_node) + ncls * sizeof(nic_queue));
}

void nic_fini(host_nic *h)
{
    if (h->q)
        for (size_t i = 0; i < (size_t)h->nodes * h->ncls; i++)
            free(h->q[i].heap);
    free(h->q);
    free(h->node);
    for (size_t i = 0; i < h->nchunks; i++)
        free(h->chunks[i]);
    free(h->chunks);
    memset(h, 0, sizeof *h);
}

/* ---- selection ---- */

void nic_push(host_nic *h, net_msg *m)
{
    TN_ASSERT(m->src < h->nodes && m->prio < NET_PRIO_CLASSES, "message %u -> %u, class %u, at a %u-node NIC",
              m->src, m->dst, m->prio, h->nodes);
    nic_node *nd = &h->node[m->src];
    unsigned c = h->classes ? m->prio : 0;
    nic_queue *q = qat(h, m->src, c);
    nic_flow *f = flow_alloc(h);
    f->msg = m;
    f->left_bytes = m->size_bytes;
    nd->qbytes += m->size_bytes;
    if (h->policy == NIC_SRPT) {
        heap_push(q, f);
    } else {
        if (q->tail)
            q->tail->next = f;
        else
            q->head = f;
        q->tail = f;
    }
    if (nd->paused & (1u << c))
        nd->held |= (uint8_t)(1u << c); /* PFC: joins mask on resume */
    else
        nd->mask |= 1u << c;
    nd->active++;
}

/* The flow whose packet class c of node's NIC cuts next (c in mask). */
static nic_flow *pick_in(const host_nic *h, uint32_t node, unsigned c)
{
    const nic_queue *q = qat(h, node, c);
    if (h->policy == NIC_SRPT)
        return q->heap[0];
    /* round-robin: the head sent the last packet, so it is served after the others */
    return q->rotate && q->head != q->tail ? q->head->next : q->head;
}

/* The flow whose packet node's NIC cuts next, and its class queue (mask != 0). */
static nic_flow *pick(const host_nic *h, uint32_t node, unsigned *cls)
{
    unsigned c = (unsigned)__builtin_ctz(h->node[node].mask);
    *cls = c;
    return pick_in(h, node, c);
}

static inline uint64_t cut_bytes(uint64_t left, uint64_t cap) { return cap && left > cap ? cap : left; }

int64_t nic_peek_bytes(const host_nic *h, uint32_t node)
{
    const nic_node *nd = &h->node[node];
    if (!nd->mask)
        return -1;
    unsigned c;
    return (int64_t)cut_bytes(pick(h, node, &c)->left_bytes, h->mtu_bytes);
}

int64_t nic_peek_class(const host_nic *h, uint32_t node, unsigned c)
{
    if (c >= h->ncls || !(h->node[node].mask & (1u << c)))
        return -1;
    return (int64_t)cut_bytes(pick_in(h, node, c)->left_bytes, h->mtu_bytes);
}

static int take_in(host_nic *h, uint32_t node, unsigned c, uint64_t max_bytes, nic_piece *out);

int nic_take(host_nic *h, uint32_t node, uint64_t max_bytes, nic_piece *out)
{
    nic_node *nd = &h->node[node];
    if (!nd->mask)
        return 0;
    return take_in(h, node, (unsigned)__builtin_ctz(nd->mask), max_bytes, out);
}

int nic_take_class(host_nic *h, uint32_t node, unsigned c, uint64_t max_bytes, nic_piece *out)
{
    if (c >= h->ncls || !(h->node[node].mask & (1u << c)))
        return 0;
    return take_in(h, node, c, max_bytes, out);
}

static inline __attribute__((always_inline)) int take_at(host_nic *h, uint32_t node, unsigned c, nic_flow *f,
                                                          nic_flow *prev, uint64_t max_bytes, nic_piece *out);

static int take_in(host_nic *h, uint32_t node, unsigned c, uint64_t max_bytes, nic_piece *out)
{
    nic_flow *f = pick_in(h, node, c);
    nic_queue *q = qat(h, node, c);
    if (h->policy != NIC_SRPT && f != q->head) { /* round-robin: move the head back now */
        nic_flow *r = q->head;
        q->head = r->next;
        r->next = NULL;
        q->tail->next = r;
        q->tail = r;
    }
    return take_at(h, node, c, f, NULL, max_bytes, out);
}

nic_flow *nic_find_class(const host_nic *h, uint32_t node, unsigned c, nic_flow_ok ok, void *ctx, uint64_t *bytes)
{
    if (c >= h->ncls || !(h->node[node].mask & (1u << c)))
        return NULL;
    TN_ASSERT(h->policy != NIC_SRPT, "nic_find_class: not with srpt");
    const nic_queue *q = qat(h, node, c);
    nic_flow *start = pick_in(h, node, c), *f = start;
    do { /* fifo: start is the head, so this is the list in order; round-robin: the circle from the pick */
        uint64_t b = cut_bytes(f->left_bytes, h->mtu_bytes);
        if (ok(ctx, f->msg, b)) {
            *bytes = b;
            return f;
        }
        f = f->next ? f->next : q->head;
    } while (f != start);
    return NULL;
}

int nic_take_flow(host_nic *h, uint32_t node, unsigned c, nic_flow *f, nic_piece *out)
{
    TN_ASSERT(h->policy != NIC_SRPT && c < h->ncls && (h->node[node].mask & (1u << c)),
              "nic_take_flow: class %u of node %u not active or srpt", c, node);
    nic_queue *q = qat(h, node, c);
    if (h->policy == NIC_FIFO) { /* in place: the oldest message that can go */
        nic_flow *prev = NULL;
        for (nic_flow *g = q->head; g != f; g = g->next) {
            TN_ASSERT(g, "nic_take_flow: flow not in class %u of node %u", c, node);
            prev = g;
        }
        return take_at(h, node, c, f, prev, 0, out);
    }
    /* round-robin: the pending move of the head (it sent the last packet) first, then f to the head, where
     * take_at leaves it to go back before the next pick (the pick itself is exactly take_in) */
    if (q->rotate && q->head != q->tail) {
        nic_flow *r = q->head;
        q->head = r->next;
        r->next = NULL;
        q->tail->next = r;
        q->tail = r;
    }
    if (f != q->head) {
        nic_flow *prev = q->head;
        while (prev->next != f) {
            prev = prev->next;
            TN_ASSERT(prev, "nic_take_flow: flow not in class %u of node %u", c, node);
        }
        prev->next = f->next;
        if (q->tail == f)
            q->tail = prev;
        f->next = q->head;
        q->head = f;
    }
    return take_at(h, node, c, f, NULL, 0, out);
}

/* Cut f's next packet; prev: f's predecessor in the list (NULL: f is the head; srpt: f is the root). */
static inline __attribute__((always_inline)) int take_at(host_nic *h, uint32_t node, unsigned c, nic_flow *f,
                                                          nic_flow *prev, uint64_t max_bytes, nic_piece *out)
{
    nic_node *nd = &h->node[node];
    nic_queue *q = qat(h, node, c);
    q->rotate = 0;
    uint64_t bytes = cut_bytes(f->left_bytes, max_bytes ? max_bytes : h->mtu_bytes);
    out->msg = f->msg;
    out->bytes = bytes;
    out->left_bytes = f->left_bytes;
    out->seq = f->cut++;
    out->prio = f->msg->prio;
    out->last = 0;
    f->left_bytes -= bytes;
    nd->qbytes -= bytes;
    h->packets++;
    if (f->left_bytes == 0) {
        out->last = 1;
        if (h->policy == NIC_SRPT) {
            heap_pop(q);
        } else if (prev) {
            prev->next = f->next;
            if (q->tail == f)
                q->tail = prev;
        } else {
            q->head = f->next;
            if (!q->head)
                q->tail = NULL;
        }
        flow_release(h, f);
        nd->active--;
        if (h->policy == NIC_SRPT ? q->n == 0 : q->head == NULL)
            nd->mask &= ~(1u << c);
    } else if (h->policy == NIC_ROUND_ROBIN || h->policy == NIC_PRIORITY) {
        q->rotate = 1;
    }
    /* srpt: the root only shrank, so the heap still holds */
    return 1;
}

nic_pkt *nic_pop(host_nic *h, uint32_t node, uint64_t max_bytes)
{
    nic_piece pc;
    if (!nic_take(h, node, max_bytes, &pc))
        return NULL;
    nic_pkt *p = pkt_alloc(h);
    p->msg = pc.msg;
    p->bytes = pc.bytes;
    p->seq = pc.seq;
    p->prio = pc.prio;
    p->left_bytes = pc.left_bytes;
    p->last = pc.last;
    return p;
}

/* ---- the uplink ---- */

static void uplink_start(host_nic *h, uint32_t node, int64_t now)
{
    nic_node *nd = &h->node[node];
    nic_pkt *p = nic_pop(h, node, 0);
    if (!p)
        return; /* a "free" event after PFC paused every class with a message: resuming restarts it */
    p->ser_ps = net_rate_ps(&h->rate, p->bytes);
    nd->free_ps = now + p->ser_ps;
    net_msg_set_inject(p->msg, now); /* its first packet's first bit leaves the host now */
    h->start(h->ctx, p);
}

static void ev_uplink_free(sim *s, void *ctx, uint64_t node)
{
    host_nic *h = ctx;
    nic_node *nd = &h->node[node];
    nd->wake = 0;
    uplink_start(h, (uint32_t)node, sim_now(s));
    if (nd->mask) {
        nd->wake = 1;
        sim_schedule_at(s, nd->free_ps, ev_uplink_free, h, node);
    }
}

int nic_hold(host_nic *h, uint32_t node, unsigned c, int on)
{
    nic_node *nd = &h->node[node];
    uint32_t b = 1u << c;
    if (on) {
        nd->paused |= (uint8_t)b;
        if (nd->mask & b) { /* its messages leave mask: no pick sees them */
            nd->mask &= ~b;
            nd->held |= (uint8_t)b;
        }
        return 0;
    }
    nd->paused &= (uint8_t)~b;
    if (!(nd->held & b))
        return 0;
    nd->held &= (uint8_t)~b;
    nd->mask |= b;
    return 1;
}

void nic_pause(host_nic *h, uint32_t node, unsigned c, int on)
{
    nic_node *nd = &h->node[node];
    if (!nic_hold(h, node, c, on) || on)
        return;
    if (nd->wake)
        return;
    int64_t now = sim_now(h->s);
    if (now >= nd->free_ps) {
        uplink_start(h, node, now);
        if (!nd->mask)
            return;
    }
    nd->wake = 1;
    sim_schedule_at(h->s, nd->free_ps, ev_uplink_free, h, node);
}

void nic_link(host_nic *h, sim *s, double bps, nic_start_fn start, void *ctx)
{
    h->s = s;
    net_rate_init(&h->rate, bps);
    h->start = start;
    h->ctx = ctx;
}

void nic_send(host_nic *h, net_msg *m)
{
    TN_ASSERT(h->s, "nic_send without an uplink (nic_link)");
    nic_push(h, m);
    uint32_t i = m->src;
    nic_node *nd = &h->node[i];
    if (nd->wake)
        return; /* the pending "free" event picks among all, this one included */
    if (!nd->mask)
        return; /* its class is paused (PFC): resuming starts it */
    int64_t now = sim_now(h->s);
    if (now >= nd->free_ps) {
        uplink_start(h, i, now);
        if (!nd->mask)
            return;
    }
    nd->wake = 1;
    sim_schedule_at(h->s, nd->free_ps, ev_uplink_free, h, i);
}

/* ---- a lone message ---- */

uint64_t nic_packets(uint64_t bytes, uint64_t mtu_bytes)
{
    if (!mtu_bytes || bytes <= mtu_bytes)
        return 1;
    return bytes / mtu_bytes + (bytes % mtu_bytes != 0);
}

int64_t nic_ser_ps(const net_rate *r, uint64_t bytes, uint64_t mtu_bytes)
{
    uint64_t K = nic_packets(bytes, mtu_bytes);
    if (K == 1)
        return net_rate_ps(r, bytes);
    return (int64_t)(K - 1) * net_rate_ps(r, mtu_bytes) + net_rate_ps(r, bytes - (K - 1) * mtu_bytes);
}

int64_t nic_max_packet_ser_ps(const net_rate *r, uint64_t bytes, uint64_t mtu_bytes)
{
    return net_rate_ps(r, nic_packets(bytes, mtu_bytes) == 1 ? bytes : mtu_bytes);
}
