/* Timelines in Chrome trace-event JSON (opens in Perfetto and
 * chrome://tracing). Every workload of a run has three processes:
 *   - its ranks' compute (one track per rank: phases such as a task tree's
 *     init and aggregation, training's per-layer forward and backward, a
 *     task program's compute, and the waits between them);
 *   - its network, by sender (every message as a slice on its sender's
 *     track, with a flow arrow to the receiver's compute track);
 *   - its activities that span ranks (training's allreduce of each fusion,
 *     dc-flows' flows from arrival to the last byte), as async spans.
 * The first workload (or a workload alone) has processes 0, 1 and 2; the
 * k-th of several 3k, 3k+1 and 3k+2, named after it.
 *
 * A filter keeps a large run readable: only some nodes (ranks; a message is
 * kept when its sender or receiver is), a time window (an event is kept
 * when it overlaps [from, to)) and some jobs (a task tree's job ids; events
 * of other workloads have none and are not filtered by job). Filtering and
 * tracing never change a run: the trace only reads what the run does.
 * Events stream to the file as they happen; past TRACE_MAX_EVENTS the trace
 * stops recording (the file stays valid) and trace_close says so. */
#ifndef TASKNET_TRACE_H
#define TASKNET_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_EVENTS 2000000
#define TRACE_NO_JOB UINT64_MAX /* an event that belongs to no job */

typedef struct trace trace;

/* What to keep: ranges of nodes and jobs (inclusive; none = all) and a
 * window in ps (to_ps < 0: no end). */
typedef struct trace_filter {
    uint64_t (*nodes)[2];
    size_t nnodes;
    uint64_t (*jobs)[2];
    size_t njobs;
    int64_t from_ps, to_ps;
} trace_filter;

/* Parse --trace-nodes "0-15,32", --trace-jobs "0-3" and --trace-window
 * "1ms:2ms" (or "1ms:" to the end, ":2ms" from the start); NULL or "" =
 * no limit. 0, or -1 with a message naming the option. */
int trace_filter_parse(trace_filter *f, const char *nodes, const char *window, const char *jobs, char *err,
                       size_t errlen);
void trace_filter_free(trace_filter *f);

/* The trace of a run on `nodes` nodes; f (copied) may be NULL. */
trace *trace_open(const char *path, uint32_t nodes, const trace_filter *f, char *err, size_t errlen);
/* Finish the file. 0; 1 when the trace was capped (err says where); -1 on an I/O error. */
int trace_close(trace *t, char *err, size_t errlen);

/* The view workload k (of several, named `name`, on `ranks` ranks) writes
 * through: its own three processes, named "NAME: compute" ... (what
 * `tasknet plot --timeline` labels its lanes with). k = 0 is t itself, its
 * processes renamed once when `name` is not empty. Owned by t. */
trace *trace_workload(trace *t, unsigned k, const char *name, uint32_t ranks);

/* Whether events of rank `node` are kept (a workload may skip work for the
 * others: training writes a span per rank). */
int trace_wants_node(const trace *t, uint32_t node);

/* A phase on node's compute track ("init", "forward 3", "wait grant"); job
 * TRACE_NO_JOB and task UINT32_MAX when they do not apply. */
void trace_slice(trace *t, uint32_t node, const char *cat, const char *name, int64_t t0_ps,
                 int64_t t1_ps, uint64_t job, uint32_t task);
/* A message from hand-over to delivery, with a flow arrow src -> dst. */
void trace_message(trace *t, uint32_t src, uint32_t dst, const char *kind, uint64_t bytes,
                   uint64_t job, int64_t t_send_ps, int64_t t_deliver_ps);
/* An activity spanning ranks (an allreduce, a flow) on track `track` of the
 * activities process, as an async span (they may overlap): `id` unique per
 * activity of the workload; `node` the rank it is filtered by (UINT32_MAX:
 * every rank takes part, kept whatever the node filter). */
void trace_span(trace *t, uint32_t track, const char *cat, const char *name, uint64_t id, uint32_t node,
                int64_t t0_ps, int64_t t1_ps, uint64_t bytes);

/* Counts written so far (tests compare them with the run's metrics). */
uint64_t trace_slices(const trace *t, const char *cat);
uint64_t trace_messages(const trace *t);

#endif
