/* Task graphs read from a Graphviz DOT file (issue 20 item 5; seed 004's
 * future work: "general task graphs"): pure, no engine, no fabric. Read
 * with Graphviz's own cgraph library through src/dotio.h, tasknet's one
 * DOT reader (the graph fabric's too), once per file.
 *
 * A digraph; every node is a task, every edge a dependency carrying data:
 *   node attribute compute="10us"  the task's compute time (a time with its
 *                                  unit; absent: 0, a task that only
 *                                  forwards)
 *   node attribute "node"="3"      optional: the rank the task runs on
 *                                  (1..N-1: rank 0 is the scheduler);
 *                                  quoted, because DOT reserves the word
 *                                  node (unquoted, cgraph stops with a
 *                                  syntax error near 'node')
 *   edge attribute size="1MB"      bytes the edge's message carries (a size
 *                                  with its unit; absent: 0 B, a dependency
 *                                  whose message has only latency)
 * Other attributes (label, shape, ...) are left alone. Tasks are numbered
 * in the order cgraph created them (their first mention in the file), edges
 * likewise (AGSEQ); several edges between two tasks are several messages.
 * A cycle is refused, naming it. Errors name the file, the line and the
 * node: cgraph's syntax errors carry its line (dot_open); a node's or an
 * edge's value is placed at the first line that names the node
 * (dot_line_of: cgraph keeps no line per object). Units as everywhere: ps,
 * bytes. */
#ifndef TASKNET_DAG_H
#define TASKNET_DAG_H

#include <stddef.h>
#include <stdint.h>

#define DAG_UNPLACED UINT32_MAX
#define DAG_NAME_MAX 64

typedef struct dag {
    uint32_t tasks, edges;
    char (*name)[DAG_NAME_MAX]; /* [tasks] as in the file (cut to DAG_NAME_MAX - 1 bytes) */
    int64_t *compute_ps;  /* [tasks] */
    uint32_t *node;       /* [tasks] rank, DAG_UNPLACED when the scheduler places it */
    uint32_t *out_off;    /* [tasks + 1] task i's out-edges are out[out_off[i] .. out_off[i+1]) */
    uint32_t *out;        /* [edges] edge ids, in edge order per task */
    uint32_t *esrc, *edst; /* [edges] */
    uint64_t *ebytes;     /* [edges] */
    uint32_t *indeg;      /* [tasks] in-edges */
    uint32_t *topo;       /* [tasks] a topological order: Kahn's, ties in task order */
    uint32_t unplaced;    /* tasks without node= */
    uint32_t sinks;       /* tasks without out-edges */
    uint32_t max_node;    /* largest node= given (0: none) */
    int64_t work_ps;      /* sum of compute */
    uint64_t bytes;       /* sum of edge sizes */
} dag;

/* Read the DOT file at path into d; 0, or -1 + err ("app.dot:7: node 'b':
 * compute=\"10\": missing unit (e.g. 200ns)", "app.dot: cycle b -> c -> b"). */
int dag_read(const char *path, dag *d, char *err, size_t errlen);
void dag_free(dag *d);

/* The line of path that first names task `name` (0: none), for messages. */
long dag_task_line(const char *path, const char *name);

/* The longest path through the graph, ps: compute times along it plus, per
 * edge, edge_ps(bytes) + fixed_ps (a message on an uncontended fabric);
 * with a NULL rate (bandwidth_bps 0) edges cost fixed_ps alone. */
int64_t dag_critical_path_ps(const dag *d, double bandwidth_bps, int64_t fixed_ps);

#endif
