/* Timelines in Chrome trace-event JSON (opens in Perfetto and
 * chrome://tracing): one track per node with its compute phases and waits,
 * and every message as a slice on the network's track for its sender plus a
 * flow arrow to the receiver. Events stream to the file as they happen; past
 * TRACE_MAX_EVENTS the trace stops recording (the file stays valid) and
 * trace_close says so. */
#ifndef TASKNET_TRACE_H
#define TASKNET_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_EVENTS 2000000

typedef struct trace trace;

trace *trace_open(const char *path, uint32_t nodes, char *err, size_t errlen);
/* Finish the file. 0; 1 when the trace was capped (err says where); -1 on an I/O error. */
int trace_close(trace *t, char *err, size_t errlen);

/* A phase on node's track ("init", "aggregation", "wait grant", "wait delegates"). */
void trace_slice(trace *t, uint32_t node, const char *cat, const char *name, int64_t t0_ps,
                 int64_t t1_ps, uint64_t job, uint32_t task);
/* A message from hand-over to delivery, with a flow arrow src -> dst. */
void trace_message(trace *t, uint32_t src, uint32_t dst, const char *kind, uint64_t bytes,
                   uint64_t job, int64_t t_send_ps, int64_t t_deliver_ps);

/* Counts written so far (tests compare them with the run's metrics). */
uint64_t trace_slices(const trace *t, const char *cat);
uint64_t trace_messages(const trace *t);

#endif
