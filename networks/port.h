/* The output port shared by the electrical switch (net_switch.c) and the
 * switched core under every multi-switch topology (swnet.c), and by any
 * router model that keeps per-class / per-VC packet queues (issue 22; the
 * router helper's input-queued routers build on it).
 *
 * What it owns, each the one copy of a rule that used to live in each
 * fabric:
 *   - port_fifo: an intrusive FIFO of records linked through a pointer at a
 *     fixed byte offset of the record (the caller's `next`: swnet_pkt.next,
 *     nic_pkt.next, net_msg.next), so one FIFO type queues packets or
 *     messages without a wrapper; the offset is a constant at every call
 *     site, so the inline functions compile to the plain list code.
 *   - port_bands: strict priority bands, NET_PRIO_CLASSES FIFOs and the
 *     mask of the non-empty ones; the head of the lowest non-empty band is
 *     served first, FIFO within a band, never preempting the record on the
 *     wire (the switch's control-first / strict ports and sources, the
 *     thesis' three pfifo_fast bands with band = class).
 *   - port_out: the transmitter and the byte accounting of one output:
 *     busy until, busy time (utilisation), the bytes and records waiting
 *     and the bytes of the record on the wire (adaptive / UGAL load).
 * Which record a port sends next across several FIFOs of one band (oldest
 * head across VCs, credit) stays with the fabric: it is the fabric's
 * arbitration, not the queue's.
 *
 * Hot path: everything here is inline and allocates nothing. */
#ifndef TASKNET_PORT_H
#define TASKNET_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "network.h"

/* ---- intrusive FIFOs ---- */

typedef struct port_fifo {
    void *head, *tail; /* head NULL when empty */
} port_fifo;

/* The link of record e: a pointer at byte offset off. */
static inline void **port_link_(void *e, size_t off) { return (void **)((char *)e + off); }

static inline int port_fifo_empty(const port_fifo *f) { return f->head == NULL; }

/* e joins the tail of f (its link at offset off). */
static inline void port_fifo_push(port_fifo *f, void *e, size_t off)
{
    *port_link_(e, off) = NULL;
    if (f->tail)
        *port_link_(f->tail, off) = e;
    else
        f->head = e;
    f->tail = e;
}

/* The head of f, removed (its link cleared); f must not be empty. */
static inline void *port_fifo_pop(port_fifo *f, size_t off)
{
    void *e = f->head;
    void **l = port_link_(e, off);
    f->head = *l;
    if (!f->head)
        f->tail = NULL;
    *l = NULL;
    return e;
}

/* ---- strict priority bands ---- */

typedef struct port_bands {
    port_fifo q[NET_PRIO_CLASSES];
    uint32_t mask; /* bit b set iff q[b] is not empty */
} port_bands;

static inline int port_bands_empty(const port_bands *b) { return b->mask == 0; }

static inline void port_bands_push(port_bands *b, unsigned band, void *e, size_t off)
{
    port_fifo_push(&b->q[band], e, off);
    b->mask |= 1u << band;
}

/* The lowest non-empty band (b not empty). */
static inline unsigned port_bands_first(const port_bands *b) { return (unsigned)__builtin_ctz(b->mask); }

/* The head of the lowest non-empty band, removed; NULL when all are empty. */
static inline void *port_bands_pop(port_bands *b, size_t off)
{
    if (!b->mask)
        return NULL;
    unsigned k = port_bands_first(b);
    port_fifo *f = &b->q[k];
    void *e = port_fifo_pop(f, off);
    if (!f->head)
        b->mask &= ~(1u << k);
    return e;
}

/* ---- the transmitter and its accounting ---- */

typedef struct port_out {
    int64_t busy_until_ps; /* the record on the wire ends */
    int64_t busy_ps;       /* transmission time so far (utilisation), ps */
    uint64_t qbytes;       /* bytes waiting in its queues */
    uint32_t wire_bytes;   /* bytes of the record it sent last */
    uint32_t nqueued;      /* records waiting */
} port_out;

static inline void port_enqueued(port_out *o, uint64_t bytes)
{
    o->nqueued++;
    o->qbytes += bytes;
}

static inline void port_dequeued(port_out *o, uint64_t bytes)
{
    o->nqueued--;
    o->qbytes -= bytes;
}

/* o puts a record of `bytes` taking ser ps on the wire at now: busy until
 * now + ser, its busy time and the bytes on the wire kept. A fabric that
 * reads neither (the single switch) sets busy_until_ps alone. */
static inline void port_transmit(port_out *o, int64_t now, int64_t ser, uint32_t bytes)
{
    o->busy_until_ps = now + ser;
    o->wire_bytes = bytes;
    o->busy_ps += ser;
}

/* Bytes waiting and on the wire at now (adaptive routing's load). */
static inline uint64_t port_load(const port_out *o, int64_t now)
{
    return o->qbytes + (o->busy_until_ps > now ? o->wire_bytes : 0);
}

#endif
