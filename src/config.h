/* The configuration: parsed and validated in one place (config.c, the only
 * file that includes libxml2) into plain structs. Every parameter has a
 * path mirroring the XML (`network.bandwidth`, `workload.tree.z`); the same
 * table drives XML attributes, --set overrides, sweep axes, `tasknet params`
 * and the expanded configuration written beside results. */
#ifndef TASKNET_CONFIG_H
#define TASKNET_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "network.h"
#include "workload.h"

#define CFG_MAX_AXES 8
#define CFG_PATH_MAX 4096

typedef struct cfg_axis {
    char param[64]; /* parameter path */
    char **values;  /* values as written (owned) */
    size_t nvalues;
} cfg_axis;

typedef struct cfg {
    char file[CFG_PATH_MAX];    /* the XML file as given ("" when built in code) */
    char basedir[CFG_PATH_MAX]; /* folder relative paths resolve against */
    uint32_t nodes;             /* system.nodes: N */
    char net_type[32];          /* network.type */
    net_params net;             /* network.* (net.nodes mirrors nodes) */
    double zeta;                /* network.zeta (> 0 when set: B = zeta F) */
    wl_params wl;               /* workload.* */
    double load;                /* workload.load (> 0 when set: beta from rho_x) */
    uint32_t replicas;          /* run.replicas */
    uint64_t seed;              /* run.seed */
    uint64_t mc_samples;        /* run.mc-samples: Monte Carlo trees for stochastic footprints */
    cfg_axis axes[CFG_MAX_AXES]; /* sweep axes, first varies slowest */
    size_t naxes;
} cfg;

/* Errors gathered while loading: every one, compiler style. */
typedef struct cfg_errors {
    char **msg;   /* "file:line:col: error: ..." */
    size_t n, cap;
} cfg_errors;

void cfg_errors_init(cfg_errors *e);
void cfg_errors_free(cfg_errors *e);
void cfg_errors_add(cfg_errors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Defaults for every parameter. */
void cfg_defaults(cfg *c);
/* Load and validate an XML file (schema, units, ranges, cross-checks).
 * 0 on success; -1 with every problem in errs. */
int cfg_load(cfg *c, const char *path, cfg_errors *errs);
/* Override one parameter by path ("network.bandwidth", "10Gb/s"). 0 or -1 + err. */
int cfg_set(cfg *c, const char *path, const char *value, char *err, size_t errlen);
/* Cross-parameter validation after overrides (N >= 2, bandwidth or zeta...). */
int cfg_check(const cfg *c, cfg_errors *errs);
void cfg_copy(cfg *dst, const cfg *src);
void cfg_free(cfg *c);

/* Sweep: number of points (product of axis lengths, 1 without axes) and
 * the configuration of point i (axes applied; first axis varies slowest). */
size_t cfg_points(const cfg *c);
int cfg_point(const cfg *base, size_t i, cfg *out, char *err, size_t errlen);
/* "param=value" pairs of point i, in axis order (for CSV/JSON). */
const char *cfg_point_value(const cfg *base, size_t i, size_t axis);

/* The parameter table (for `tasknet params`, CSV headers, expanded config). */
typedef struct cfg_param_info {
    const char *path;        /* "network.bandwidth" */
    const char *type;        /* "rate", "time", "size", "integer", "number", "distribution(time)", "string", "list" */
    const char *unit;        /* "b/s", "s", "B", "" */
    const char *def;         /* default as written, "" when none */
    const char *description; /* one line */
} cfg_param_info;

size_t cfg_param_count(void);
const cfg_param_info *cfg_param_at(size_t i);
/* Current value of a parameter, formatted as it would be written in XML. */
int cfg_get(const cfg *c, const char *path, char *buf, size_t len);
/* Write the configuration as a complete XML file (the expanded config). */
int cfg_write_xml(const cfg *c, const char *path, char *err, size_t errlen);

#endif
