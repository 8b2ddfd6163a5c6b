/* The configuration: parsed and validated in one place (app/config/config_*.c, the
 * only files that include libxml2) into plain structs. Every parameter is a
 * row (src/params.h) with a path mirroring the XML (`network.bandwidth`,
 * `workload.tree.z`); the rows are composed from the core's (below), the
 * physical layer's (phy/phy_params.c) and every registered plugin's, and
 * the same composition drives XML attributes, --set, sweep axes, `tasknet
 * params`, the RELAX NG schema and the written configuration. A plugin's
 * values live in its own params struct (one per registered plugin, so that
 * a sweep over network.type keeps every fabric's values).
 *
 * Files, each using only those before it (scripts/check-layers): config_rows.c
 * (composition, values, defaults, set/get, the axes' storage), config_axes.c
 * (sweep points), config_where.c (positions and errors in the file),
 * config_check.c (errors, cross-checks, cfg_point), config_schema.c (the
 * schema), config_load.c (XML), config_write.c (the written configuration). */
#ifndef TASKNET_CONFIG_H
#define TASKNET_CONFIG_H

#include <stddef.h>
#include <stdint.h>


#include "network.h"
#include "params.h"
#include "phy_params.h"
#include "transport.h"
#include "workload.h"

#define CFG_MAX_AXES 8
#define CFG_PATH_MAX 4096
#define CFG_MAX_ROWS 512 /* composed rows at most (core, phy, every plugin) */

typedef struct cfg_axis {
    char param[64]; /* parameter path */
    char **values;  /* values as written (owned) */
    size_t nvalues;
    char with[64];  /* "" or the param of an earlier axis this one varies together with
                       (same number of values: value k goes with that axis's value k) */
    uint32_t line, col; /* where its param attribute is in the file (0: not from a file) */
} cfg_axis;

/* Where a parameter given in the file was written (cfg_where). */
typedef struct cfg_pos {
    uint32_t k, canon; /* workload (0 for the others) and canonical row */
    uint32_t line, col;
} cfg_pos;

#define CFG_MAX_WORKLOADS 16
#define CFG_NODES_MAX 256

/* One workload of a configuration (a <workload> element). */
typedef struct cfg_workload {
    char name[PARAM_NAME_MAX];     /* workload.name: "" for a workload alone and unnamed */
    char type[PARAM_NAME_MAX];     /* workload.type */
    char nodes[CFG_NODES_MAX];     /* workload.nodes as written: "all", "0-7,12", "contiguous(o,n)",
                                      "interleaved(o,s,n)", "random(n)" */
    char priority[PARAM_NAME_MAX]; /* workload.priority: "" (its own classes), 0..7, high (0) or low (7) */
    int role;                      /* workload.role: 0 foreground, 1 background */
    int measure;                   /* workload.measure: 0 all, 1 window (what arrives while the foreground runs) */
    int exclusive;                 /* workload.exclusive: 0 auto (the workload's own), 1 yes, 2 no */
    int transport;                 /* workload.transport: 0 inherit (the run's), else transport type + 1 */
    int ack_class;                 /* workload.ack-class: 0 inherit (the run's transport.ack-class), else its value + 1 */
    int connection;                /* workload.connection: 0 inherit (transport.connection), 1 message, 2 persistent */
    void **block;                  /* [wl_count()]: each workload type's own params */
} cfg_workload;

typedef struct cfg {
    char file[CFG_PATH_MAX];    /* the XML file as given ("" when built in code) */
    char basedir[CFG_PATH_MAX]; /* folder relative paths resolve against */
    uint32_t nodes;             /* system.nodes: N */
    char net_type[PARAM_NAME_MAX]; /* network.type */
    net_params net;             /* network.*: the core's (net.nodes mirrors nodes) */
    phy_params phy;             /* network.phy.* */
    tp_params tp;               /* transport.*: the host transport (networks/transport.h) */
    void **net_block;           /* [net_count()]: each fabric's own params */
    cfg_workload wl[CFG_MAX_WORKLOADS]; /* the workloads, in document order */
    size_t nwl;                 /* workloads (>= 1) */
    uint32_t replicas;          /* run.replicas */
    uint64_t seed;              /* run.seed */
    double confidence;          /* run.confidence: level of summary.csv's confidence intervals, in (0, 1) */
    unsigned char *given;       /* [CFG_MAX_WORKLOADS * CFG_MAX_ROWS]: parameter given (XML, --set,
                                   axis), by workload (0 for the others) and row index */
    unsigned char *rejected;    /* [CFG_MAX_WORKLOADS * CFG_MAX_ROWS]: by workload and row index (not
                                   canonical): the value given for the row's path, which another owner of the
                                   path took, is not one of this owner's (network.routing="ugal": the
                                   dragonfly's, not the torus's); a point selecting this owner is refused */
    cfg_pos *pos;               /* [npos]: where each attribute given in the file is (cfg_where) */
    size_t npos;
    cfg_axis axes[CFG_MAX_AXES]; /* sweep axes, first varies slowest */
    size_t naxes;               /* axes in use */
    size_t point;               /* 1 + index for a sweep point made by cfg_point (its axes are
                                   kept for reference and never written), 0 for a base config */
} cfg;

/* Errors gathered while loading: every one, compiler style. */
typedef struct cfg_errors {
    char **msg; /* "file:line:col: error: ..." */
    size_t n, cap;
} cfg_errors;

void cfg_errors_init(cfg_errors *e);
void cfg_errors_free(cfg_errors *e);
void cfg_errors_add(cfg_errors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Defaults for every parameter. c must own nothing (fresh, or after
 * cfg_free); afterwards it owns its plugins' params: cfg_free it. */
void cfg_defaults(cfg *c);
/* Load and validate an XML file (schema, units, ranges, cross-checks of every
 * sweep point); "-" reads standard input, named "<stdin>" in messages and
 * c->file, its relative files resolving against the working folder. c must own nothing: it gets the defaults first. 0 on
 * success; -1 with every problem in errs ("file:line:col: error: ...", in
 * file order). Either way c owns memory afterwards: cfg_free it. */
int cfg_load(cfg *c, const char *path, cfg_errors *errs);
/* A value the command line gives (--set PATH=VALUE, --replicas R): path
 * NULL when the option was not PATH=VALUE; label names the option in
 * messages ("--set network.mtu=4kB"). */
typedef struct cfg_cli_value {
    const char *path, *value, *label;
} cfg_cli_value;
/* cfg_load, with the command line's values applied after the file's and
 * before every check (an axis over a path set is dropped), so they can
 * complete or correct a file: a problem they cause is reported as "error:
 * LABEL: ..." (no place in the file); the file's own syntax (XML, schema,
 * units, a value its row refuses) is still the file's. A bad value of
 * theirs ("error: LABEL: ...") stops the checks. */
int cfg_load_with(cfg *c, const char *path, const cfg_cli_value *cli, size_t ncli, cfg_errors *errs);
/* Override one parameter by path ("network.bandwidth", "10Gb/s"). Setting a
 * parameter clears the one it excludes (network.bandwidth/network.zeta,
 * workload.arrival-rate/workload.load, ...). Relative file names resolve
 * against c->basedir. 0, or -1 + err (c unchanged). */
int cfg_set(cfg *c, const char *path, const char *value, char *err, size_t errlen);
/* Cross-parameter validation after overrides (required parameters,
 * exclusions, every plugin's check), of every sweep point. 0, or -1 with the
 * problems appended to errs. */
int cfg_check(const cfg *c, cfg_errors *errs);
/* Deep copy; dst must own nothing. */
void cfg_copy(cfg *dst, const cfg *src);
/* Release what c owns; c is then zeroed (freeing twice is safe). */
void cfg_free(cfg *c);

/* The plugins a configuration selects (at its own point; for a base config
 * of a sweep, its base values) and their params; cfg_wl/cfg_wl_params are
 * those of the first workload. */
const net_ops *cfg_net(const cfg *c);
void *cfg_net_params(const cfg *c);
const wl_ops *cfg_wl(const cfg *c);
void *cfg_wl_params(const cfg *c);
const wl_ops *cfg_wl_at(const cfg *c, size_t k);
void *cfg_wl_params_at(const cfg *c, size_t k);
/* Add a workload (with every default) named `name`; its index, or -1 + err. */
long cfg_add_workload(cfg *c, const char *name, char *err, size_t errlen);
/* Whether a point fits in the memory this process may use (nonzero: it
 * does): the checks ask before they build anything proportional to
 * system.nodes (the workloads' node maps), so 10^9 nodes are refused by
 * the estimate instead of allocating gigabytes to check them. The program
 * sets it to the run wiring's estimate (run_check_memory); NULL (tests,
 * libraries): every point is taken to fit. */
extern int (*cfg_point_fits)(const cfg *c);
/* The priority class of workload k's messages, -1 for the workload's own. */
int cfg_wl_priority(const cfg *c, size_t k);
/* Workload k is exclusive (no other exclusive workload on its nodes). */
int cfg_wl_exclusive(const cfg *c, size_t k);
/* The plugins any point of c's sweep selects, in registry order: *n set, at
 * most max written. */
size_t cfg_used_nets(const cfg *c, const net_ops **out, size_t max);
/* Whether some point of c's sweep sets fabric `plugin`'s parameter to a
 * value: `when` is "path=value" (metric_def.when), the base value or one
 * of the path's axis values. 1 when the plugin has no such row. */
int cfg_net_when_somewhere(const cfg *c, const char *plugin, const char *when);
size_t cfg_used_wls(const cfg *c, const wl_ops **out, size_t max);

/* Sweep: number of points (product of axis lengths; 1 without axes or for a
 * point config) and the configuration of point i (a copy of base with the
 * axes applied, first axis varying slowest, then cross-checked). out must
 * not own memory; on failure it owns nothing (cfg_free is optional). */
size_t cfg_points(const cfg *c);
/* Remove the axis sweeping `path` (a --set fixes it), and the axis of its
 * alternative (network.zeta for network.bandwidth, workload.load for
 * workload.arrival-rate, and the reverse); an axis that varied with one
 * takes its place as the lead of the others. 1 if one was removed. */
int cfg_drop_axis(cfg *c, const char *path);
int cfg_point(const cfg *base, size_t i, cfg *out, char *err, size_t errlen);
/* The value (as written) of sweep axis `axis` at point i; for a point
 * config, its own point's value whatever i. "" when out of range. */
/* The value of an axis varying with another (with="PARAM") that leaves its
 * parameter unset at that point, as written in the configuration: "-". */
#define CFG_AXIS_UNSET "-"
const char *cfg_point_value(const cfg *base, size_t i, size_t axis);
/* Point i with axis `axis` at its value v (v < its nvalues; the axes varying
 * with it move along): v over its values gives the points that differ from
 * i in that axis alone. */
size_t cfg_point_moved(const cfg *base, size_t i, size_t axis, size_t v);
/* Whether text names parameter path as a whole word ("raise
 * network.bandwidth or ..."; not network.bandwidth-share): where a message
 * names the parameter whose value it refuses. */
int cfg_names_path(const char *text, const char *path);
/* A warning for point config c (not a refusal: the run is valid), into buf:
 * a transport segment (transport.mss + transport.header) longer than the
 * fabric's network.mtu, which the host NIC then sends as several packets
 * that the switch ports queue, mark and drop one by one. 1 with the text,
 * 0 when there is nothing to say (no transport, or no network.mtu). */
int cfg_point_warning(const cfg *c, char *buf, size_t len);
/* A swept quantity with a unit as a number for analysis (pandas, R): the
 * SI base unit of axis a's values ("bps" for network.bandwidth, "s",
 * "bytes", "per_s", ...), NULL when its values are not such a quantity; and
 * point i's value in it (0, or -1: not a quantity). Result files add a
 * column <param>_<unit> beside the value as written. */
const char *cfg_axis_si_unit(const cfg *c, size_t a);
int cfg_point_si(const cfg *c, size_t i, size_t a, double *v);

/* The composed parameter table (for `tasknet params`, fingerprints, the
 * expanded config): core rows, then the physical layer's, then each
 * fabric's, then each workload's, in registry order. A path several
 * plugins declare appears once per plugin. */
/* owners: the core, the physical layer, a fabric, a workload's own
 * parameters (CFG_OWN_WLI: name, type, nodes, ...) or a workload type's. */
typedef enum cfg_owner { CFG_OWN_CORE, CFG_OWN_PHY, CFG_OWN_NET, CFG_OWN_WL, CFG_OWN_WLI } cfg_owner;
typedef struct cfg_param_info {
    const param_row *row;
    cfg_owner owner;
    const char *plugin; /* the fabric's or workload's name; NULL for the core and the phy */
} cfg_param_info;

size_t cfg_param_count(void);
const cfg_param_info *cfg_param_at(size_t i);
/* 1 when parameter i applies to c's point (core, phy, or a row of the
 * fabric or of a workload it selects). */
int cfg_param_applies(const cfg *c, size_t i);
/* The same for workload k's copy of parameter i, and its value as written
 * (for fingerprints and comparisons; rows outside workloads: k = 0). 0, or
 * -1 when buf is too short. */
int cfg_param_applies_at(const cfg *c, size_t i, size_t k);
int cfg_param_get_at(const cfg *c, size_t i, size_t k, char *buf, size_t len);
/* The copies of parameter i in c: c->nwl for a workload's row, else 1; and
 * copy k's path as --set takes it (workload.<name>.<attr> for a named
 * workload; the caller frees it). */
size_t cfg_param_copies(const cfg *c, size_t i);
char *cfg_param_path_at(const cfg *c, size_t i, size_t k);
/* Current value of a parameter, formatted as it would be written in XML
 * ("" when not set, e.g. network.zeta when bandwidth is given); for a path
 * several plugins declare, the value of the plugin c selects. A workload's
 * parameter is `workload.<name>.<attr>` when there are several workloads.
 * 0, or -1 for an unknown path or a value longer than len (truncated). */
int cfg_get(const cfg *c, const char *path, char *buf, size_t len);
/* Where parameter `path` got its value: "FILE:LINE:COL" of its attribute in
 * c->file (1), or of the <axis> that sweeps it (2); or 0 and "" when it was
 * not written in the file (a default, or --set). */
int cfg_where(const cfg *c, const char *path, char *buf, size_t len);
/* What a parameter's value reads besides its text: a digest of the file
 * contents of an empirical(FILE) distribution (0: nothing), so that
 * fingerprints of results notice an edited file. */
uint64_t cfg_input_digest(const cfg *c, const char *path);
uint64_t cfg_input_digest_at(const cfg *c, size_t i, size_t k);
/* Write the configuration as a complete XML file with every parameter that
 * applies explicit (defaults included) that cfg_load reads back to an
 * equal config; relative empirical(...) files are written as absolute
 * paths. A point config is written without its sweep. 0, or -1 + err. */
int cfg_write_xml(const cfg *c, const char *path, char *err, size_t errlen);
/* The RELAX NG schema of every configuration this build reads, made from
 * the rows (configs/tasknet.rng is a copy; a test keeps them equal).
 * Caller frees. */
char *cfg_schema_rng(void);

#endif
