/* Task programs: what every task of a kernel or pattern workload does, as
 * data (specs/kernels-patterns.md §0). Pure: no engine, no fabric.
 *
 * A program has T tasks, ids 0..T-1. Each task owns an ordered list of
 * operations (§0 "Program"):
 *   send(dst, size, tag)  hand a message to the fabric; costs no time
 *   recv(src, tag)        block until a message from src with that tag has
 *                         been delivered (earlier deliveries wait in an
 *                         unexpected-message table)
 *   compute(t)            the task is busy t ps
 * Besides the per-task lists, a program may hold *phases* (B1 `barrier`
 * and `free`): an ordered list of sends handed over together, in list order
 * at one instant, either at t = 0 or the instant the last message of an
 * earlier phase is delivered. A barrier is collective, so it cannot be a
 * per-task op without changing the hand-over order the spec fixes ("within
 * a level, pairs are handed over in list order at the same ps"); receptions
 * of phase messages are ordinary recv ops of the destination task.
 *
 * Tasks belong to groups (ptrnvsptrn, B2: 0 = foreground, 1 = background;
 * everything else: one group). Completion, lower bounds and per-tag timing
 * are reported per group.
 *
 * Memory: all ops of a program live in one array (task i's ops are
 * ops[start[i] .. start[i+1])), so a million-message all-to-all is two
 * allocations, not two million. The builder appends ops in any task order to
 * one growable array and sorts them by task (stable counting sort) once.
 *
 * Units: sizes in bytes, times in ps, as everywhere. */
#ifndef TASKNET_TASKPROG_H
#define TASKNET_TASKPROG_H

#include <stddef.h>
#include <stdint.h>

enum tp_kind { TP_SEND = 0, TP_RECV = 1, TP_COMPUTE = 2 };

#define TP_TASKS_MAX (UINT32_C(1) << 30) /* peers are packed in 30 bits of tp_op.kp */
#define TP_GROUPS_MAX 256u               /* groups are stored in one byte per task */
#define TP_AT_START UINT32_MAX           /* tp_phase.after: released at t = 0 */
#define TP_OPS_MAX (UINT64_C(1) << 32)   /* largest program accepted (ops + phase sends) */

typedef struct tp_op {
    uint32_t kp;  /* kind (enum tp_kind, top 2 bits) | peer task (low 30 bits): send dst, recv src */
    uint32_t tag; /* matching tag of a send or recv (0 for compute) */
    uint64_t arg; /* send: size, bytes; compute: duration, ps; recv: 0 */
} tp_op;

static inline unsigned tp_op_kind(const tp_op *o) { return o->kp >> 30; }
static inline uint32_t tp_op_peer(const tp_op *o) { return o->kp & (TP_TASKS_MAX - 1); }

/* One message of a phase. */
typedef struct tp_phase_msg {
    uint32_t src, dst;   /* tasks */
    uint32_t tag;        /* matching tag */
    uint64_t size_bytes; /* payload */
} tp_phase_msg;

/* Sends handed over together, in order, at one instant. */
typedef struct tp_phase {
    uint64_t first; /* index of its first send in tp_prog.psend */
    uint64_t count; /* number of sends */
    uint32_t after; /* released when phase `after` (< own index) has delivered its last
                       message; TP_AT_START: at t = 0 */
    uint32_t group; /* group of every sender in the phase */
} tp_phase;

typedef struct tp_prog {
    uint32_t tasks;    /* T */
    uint32_t groups;   /* number of groups, >= 1 */
    uint32_t tags;     /* 1 + the largest tag of any send or recv (0: no message) */
    uint8_t *group;    /* [tasks] group of each task */
    uint64_t *start;   /* [tasks + 1] task i's ops are ops[start[i] .. start[i+1]) */
    tp_op *ops;        /* [start[tasks]] all ops, task by task */
    uint32_t nphases;  /* phases */
    tp_phase *phases;  /* [nphases] */
    uint64_t npsend;   /* sends of all phases */
    tp_phase_msg *psend;    /* [npsend] phase sends, phase by phase */
    uint64_t messages; /* sends: ops + phase sends */
    uint64_t recvs;    /* recv ops */
} tp_prog;

/* Collects ops in any order; tp_build turns them into a tp_prog. Emitters
 * abort (TN_ASSERT) on caller bugs: task or peer out of range, a message to
 * oneself (it would never enter a network), a phase whose `after` is not an
 * earlier phase, a program over TP_OPS_MAX. User-facing limits are checked by
 * the generators before they emit, with messages. */
typedef struct tp_builder {
    uint32_t tasks, groups;
    uint8_t *group;       /* [tasks] */
    tp_op *ops;           /* [nops] in emission order */
    uint32_t *owner;      /* [nops] task of each op */
    uint64_t nops, cap;
    tp_phase *phases;     /* [nphases] */
    uint32_t nphases, phase_cap;
    tp_phase_msg *psend;       /* [npsend] */
    uint64_t npsend, psend_cap;
    uint64_t tags;        /* 1 + largest tag seen */
} tp_builder;

/* tasks in 1..TP_TASKS_MAX, groups in 1..TP_GROUPS_MAX; every task in group 0. */
void tp_builder_init(tp_builder *b, uint32_t tasks, uint32_t groups);
void tp_builder_free(tp_builder *b); /* only needed when tp_build is not called */
void tp_set_group(tp_builder *b, uint32_t task, uint32_t group);
void tp_send_op(tp_builder *b, uint32_t task, uint32_t dst, uint64_t size_bytes, uint32_t tag);
void tp_recv_op(tp_builder *b, uint32_t task, uint32_t src, uint32_t tag);
void tp_compute_op(tp_builder *b, uint32_t task, uint64_t time_ps);
/* Open a new phase of `group` (sends added next belong to it); returns its index. */
uint32_t tp_phase_begin(tp_builder *b, uint32_t group, uint32_t after);
/* Append a send to the phase opened last. */
void tp_phase_send(tp_builder *b, uint32_t src, uint32_t dst, uint64_t size_bytes, uint32_t tag);

/* Sort the ops by task (keeping each task's emission order) into *out and
 * release the builder's arrays. */
void tp_build(tp_builder *b, tp_prog *out);
void tp_prog_free(tp_prog *p);

/* Lower bound on the completion time of `group` from t = 0, ps: the
 * injection/consumption bound of §0 and B3. For every task of the group,
 * the bytes it sends and receives must cross its one access link at B,
 * and the last message still needs the fixed latency:
 *   ops only:  max over tasks of ser(max(bytes out, bytes in)) + fixed_ps
 *   phases:    the longest chain of phases (`after` links) of the sum of
 *              ser(max over tasks of max(out, in) within the phase) + fixed_ps
 * (the larger of the two if a group had both). ser(b) = b 8 / B rounded up to
 * a ps (phy_rate_ps); a message-free group gives 0. fixed_ps is the fabric's
 * zero-load latency without serialisation (switch and ideal: 2 link +
 * switch). A lower bound on fabrics that serialise each source and each
 * destination at B (the switch); the ideal fabric can beat it (§4 K1). */
int64_t tp_lower_bound_ps(const tp_prog *p, uint32_t group, double bandwidth_bps,
                          int64_t fixed_ps);

/* Payload bytes of all sends whose sender is in `group`. */
uint64_t tp_group_bytes(const tp_prog *p, uint32_t group);

#endif
