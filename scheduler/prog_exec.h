/* The task-program executor: runs a tp_prog (jobs/taskprog.h) over a fabric,
 * event by event (specs/kernels-patterns.md §0, B1).
 *
 * Model (§0):
 *   - Task i runs on node map[i]. send(dst, size, tag) hands a message to
 *     the fabric at once (net_send: cls NET_DATA, prio NET_PRIO_LOW, kind =
 *     the caller's workload id, a = tag) and the task goes on: sends never
 *     block; consecutive sends leave in program order at the same ps.
 *   - recv(src, tag) completes when a message from task src with that tag
 *     has been delivered; a delivery nobody waits for yet is counted in the
 *     destination's unexpected-message table (open addressing on (src, tag),
 *     sized at creation from the task's recv ops), FSIN's matching.
 *   - compute(t) keeps the task busy t ps (one event; t = 0 costs nothing).
 *   - Phases (B1 barrier/free): at their release every send of the phase is
 *     handed over in list order at that ps; a phase is released at t = 0 or
 *     the instant the last message of the phase it follows is delivered.
 * Determinism (§0): pexec_start schedules, at now, one event releasing the
 * phases that start at t = 0 (if any), then one start event per task in id
 * order. A task made runnable (start, matching delivery, end of compute)
 * runs its list until it blocks or ends, inside that event. Same-time
 * events follow the engine's insertion order.
 * Completion: a task is done when its list is exhausted; the run ends when
 * the event queue empties. A task still blocked then is a bug in the
 * program or the fabric: pexec_finish returns -1 with
 * "task 5 blocked on recv(src=2, tag=3)".
 * Exactly once: every message carries a sequence number (net_msg.b); the
 * executor marks each delivered one and counts anything else (a second
 * delivery, a foreign message, a message no recv of its destination takes)
 * as a bad delivery; finish also checks sent = delivered, that no table
 * holds a message nobody received, that every phase was released, and
 * that every message went back to the pool.
 *
 * Memory: everything is sized at creation (tasks, tables, per-tag timing,
 * phase lists); messages come from a net_msg_pool. Nothing is allocated in
 * an event callback except when the pool grows by a chunk. */
#ifndef TASKNET_PROG_EXEC_H
#define TASKNET_PROG_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "network.h"
#include "sim.h"
#include "taskprog.h"

typedef struct pexec pexec;

/* Executor for prog (borrowed: it must outlive the executor) with task i on
 * node map[i] (an injection into 0..nodes-1; NULL = identity, which needs
 * tasks <= nodes). kind is the net_msg.kind of its messages (the workload's
 * id; 0xdead is reserved for released messages). NULL + err on a bad
 * mapping. */
pexec *pexec_create(const tp_prog *prog, const uint32_t *map, uint32_t nodes, uint16_t kind,
                    char *err, size_t errlen);
void pexec_destroy(pexec *x);
/* Record the run's timeline (before pexec_start): each task's compute
 * phases and its waits in a blocking recv on its node's track, and every
 * message it delivers. t may be NULL (none). */
struct trace;
void pexec_set_trace(pexec *x, struct trace *t);
/* Memory a program of `messages` point-to-point messages among `tasks`
 * tasks, with `buckets` (group, tag) pairs, holds with its executor at
 * their peak, generous (for a workload's estimate): per message its send
 * and recv ops (twice, as the builder grows them by doubling), its recv's
 * table slots (at most four), its bit and its net_msg (sends never block,
 * so all may be alive at once); per task and bucket their records. */
double pexec_mem_bytes(double messages, double tasks, double buckets);

/* Schedule the start of the program at sim_now(s) on fabric n (whose
 * deliver callback must lead to pexec_deliver). Call once. */
void pexec_start(pexec *x, sim *s, net *n);

/* Deliver callback (net_deliver_fn shape, owner = the pexec): matches the
 * message, resumes its task, releases m to the executor's pool. */
void pexec_deliver(void *owner, net_msg *m);

/* After the run (event queue empty): 0 if every task finished and every
 * message was received exactly once, or -1 + err naming the first problem
 * (task order), e.g. "task 5 blocked on recv(src=2, tag=3) (and 2 more
 * tasks not finished)". */
int pexec_finish(pexec *x, char *err, size_t errlen);

/* The fixed latency L0 of tp_lower_bound_ps on fabric n: the least
 * zero-load latency of a 0-byte message (n's zero_load_ps op) between the
 * nodes of any message of the program, ps (0 without messages or without
 * the op). 2 link + switch on the switch and the ideal fabric. */
int64_t pexec_fixed_ps(const pexec *x, const net *n);

/* Counters of the run. Times are engine times (ps); the program started at
 * the time pexec_start was called (0 in a run). */
typedef struct pexec_counts {
    uint64_t sent, delivered;             /* messages */
    uint64_t bytes_sent, bytes_delivered; /* payload bytes */
    uint64_t bad;                         /* deliveries refused (see above) */
    uint64_t tasks_done;                  /* tasks whose list is exhausted */
    int64_t compute_ps;                   /* sum of compute phases started */
} pexec_counts;
void pexec_get_counts(const pexec *x, pexec_counts *c);

/* Time task t finished, ps (-1 if it did not). */
int64_t pexec_task_done_ps(const pexec *x, uint32_t task);
/* Time the last task of group g finished, ps (-1 if one did not; the start
 * time if the group has no task). kernel_time of §0 is
 * pexec_group_done_ps(x, 0) minus the start for a single-group program and
 * the foreground's for ptrnvsptrn (B2). */
int64_t pexec_group_done_ps(const pexec *x, uint32_t group);
/* Time every task had finished, ps (-1 if one did not). */
int64_t pexec_done_ps(const pexec *x);

/* The span of the messages of group g (sender's group) with tag `tag`: the
 * first hand-over and the last delivery, ps; returns their number (0: no
 * message, spans untouched). A wave of sync-random, a level of a pattern. */
uint64_t pexec_tag_span(const pexec *x, uint32_t group, uint32_t tag, int64_t *first_send_ps,
                        int64_t *last_delivery_ps);
/* Over the tags of group g that have messages: how many, the mean and the
 * largest span (last delivery - first hand-over), ps. wave_time_mean_s
 * (A5), level_time_mean_s and level_time_max_s (B3, barrier). */
typedef struct pexec_spans {
    uint64_t tags;    /* tags with at least one message */
    double mean_ps;   /* mean span, ps (0 if none) */
    int64_t max_ps;   /* largest span, ps (0 if none) */
} pexec_spans;
void pexec_tag_spans(const pexec *x, uint32_t group, pexec_spans *out);

#endif
