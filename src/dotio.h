/* The one DOT reader of tasknet (shared/DESIGN.md: "DOT is read through
 * Graphviz's cgraph, once, for topologies and task graphs"): open a file
 * with cgraph, turn its errors into "file:line: message", look attributes
 * up and parse them with the project's unit parsers, and name a node in an
 * error by the line that first mentions it.
 *
 * cgraph keeps no line numbers for nodes or edges; dot_line_of finds the
 * first line of the file where the node's name occurs as a DOT identifier
 * (bare or quoted), which is where a hand-written or generated file declares
 * or first uses it. It reads the file again and is meant for errors only.
 *
 * Contract: nothing prints, nothing exits; every error is returned as -1 (or
 * NULL) with a message in the caller's buffer. cgraph is not thread-safe:
 * read one file at a time (tasknet reads them during checks and init, which
 * run in one thread per process). */
#ifndef TASKNET_DOTIO_H
#define TASKNET_DOTIO_H

#include <stddef.h>
#include <stdint.h>

#include <graphviz/cgraph.h>

#include "units.h"

/* Read the DOT file at path (a regular file). NULL + "path:line: message"
 * (cgraph's syntax errors carry their line) or "path: not a regular file",
 * "path: No such file or directory". Release with agclose. */
Agraph_t *dot_open(const char *path, char *err, size_t errlen);

/* The value of attribute `name` of a node, edge or graph, or NULL when the
 * file does not declare the attribute or leaves it empty for this object. */
const char *dot_attr(void *obj, const char *name);

/* The attribute parsed as a quantity of `kind` (units_parse: "40Gb/s",
 * "100ns"); 0 with *out set, 1 when it is absent (*out unchanged), -1 +
 * err ("bandwidth=\"fast\": missing unit ...") when it does not parse. */
int dot_attr_unit(void *obj, const char *name, unit_kind kind, double *out, char *err, size_t errlen);

/* The attribute as a non-negative integer below `max`: 0, 1 (absent), -1 + err. */
int dot_attr_u32(void *obj, const char *name, uint32_t max, uint32_t *out, char *err, size_t errlen);

/* The line (from 1) of path where `name` first occurs as an identifier, 0
 * when the file cannot be read or never names it. */
int dot_line_of(const char *path, const char *name);

/* "path:line: node NAME: " + the formatted message (line 0: "path: node
 * NAME: "); returns -1 for `return dot_node_error(...)`. */
int dot_node_error(char *err, size_t errlen, const char *path, const char *node, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
