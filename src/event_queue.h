/* Priority queue of pending events: a 4-ary min-heap keyed by (time, seq).
 * seq is the insertion sequence number, so events at equal times pop in
 * the order they were scheduled (deterministic FIFO tie-break).
 * Hidden behind this header so the engine can change it (Redis ae.h style). */
#ifndef TASKNET_EVENT_QUEUE_H
#define TASKNET_EVENT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct evq_entry {
    int64_t time_ps; /* firing time */
    uint64_t seq;    /* insertion order, tie-break */
    uint32_t slot;   /* engine's event slot index */
} evq_entry;

typedef struct evq {
    evq_entry *heap; /* heap[0] is the minimum */
    size_t len;      /* entries in the heap */
    size_t cap;      /* allocated entries */
} evq;

void evq_init(evq *q);
void evq_free(evq *q);
void evq_push(evq *q, evq_entry e);
/* Removes and returns the minimum; the queue must not be empty. */
evq_entry evq_pop(evq *q);
static inline size_t evq_len(const evq *q) { return q->len; }
static inline const evq_entry *evq_peek(const evq *q) { return q->len ? &q->heap[0] : NULL; }

#endif
