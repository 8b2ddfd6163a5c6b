/* The configuration: parsed and validated in one place (config.c, the only
 * file that includes libxml2) into plain structs. Every parameter has a
 * path mirroring the XML (`network.bandwidth`, `workload.tree.z`); the same
 * table drives XML attributes, --set overrides, sweep axes, `tasknet params`
 * and the expanded configuration written beside results. */
#ifndef TASKNET_CONFIG_H
#define TASKNET_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "energy.h"
#include "network.h"
#include "optical.h"
#include "workload.h"

#define CFG_MAX_AXES 8
#define CFG_PATH_MAX 4096

typedef struct cfg_axis {
    char param[64]; /* parameter path */
    char **values;  /* values as written (owned) */
    size_t nvalues;
    char with[64];  /* "" or the param of an earlier axis this one varies together with
                       (same number of values: value k goes with that axis's value k) */
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
    uint64_t packet_bytes;      /* network.packet-size (net.packet_size_bits = 8 x this) */
    phy_optical optical;        /* network.phy.*: the optical path (rate_per_wavelength_bps = B / wavelengths) */
    phy_energy energy;          /* network.phy.*: energy per bit of both fabrics */
    double waveguide_m_per_stage; /* network.phy.waveguide-per-stage (optical.waveguide_cm_per_stage = 100 x this) */
    uint32_t replicas;          /* run.replicas */
    uint64_t seed;              /* run.seed */
    uint64_t mc_samples;        /* run.mc-samples: Monte Carlo trees for stochastic footprints */
    cfg_axis axes[CFG_MAX_AXES]; /* sweep axes, first varies slowest */
    size_t naxes;               /* axes in use */
    size_t point;               /* 1 + index for a sweep point made by cfg_point (its axes are
                                   kept for reference and never written), 0 for a base config */
} cfg;

/* Errors gathered while loading: every one, compiler style. */
typedef struct cfg_errors {
    char **msg;   /* "file:line:col: error: ..." */
    size_t n, cap;
} cfg_errors;

void cfg_errors_init(cfg_errors *e);
void cfg_errors_free(cfg_errors *e);
void cfg_errors_add(cfg_errors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Defaults for every parameter (the table's "def" column); allocates nothing,
 * so c must not own memory (fresh, or after cfg_free). */
void cfg_defaults(cfg *c);
/* Load and validate an XML file (schema, units, ranges, cross-checks of every
 * sweep point). c must not own memory: it is reset to the defaults first.
 * 0 on success; -1 with every problem in errs ("file:line:col: error: ...",
 * in file order). On failure c may hold part of the file: cfg_free it. */
int cfg_load(cfg *c, const char *path, cfg_errors *errs);
/* Override one parameter by path ("network.bandwidth", "10Gb/s"). Setting one
 * of network.bandwidth/network.zeta (or workload.arrival-rate/workload.load)
 * clears the other. Relative file names resolve against c->basedir.
 * 0, or -1 + err (c unchanged). */
int cfg_set(cfg *c, const char *path, const char *value, char *err, size_t errlen);
/* Cross-parameter validation after overrides (N >= 2, bandwidth or zeta...),
 * of every sweep point. 0, or -1 with the problems appended to errs. */
int cfg_check(const cfg *c, cfg_errors *errs);
/* Deep copy; dst must not own memory. */
void cfg_copy(cfg *dst, const cfg *src);
/* Release what c owns and reset it to the defaults (so freeing twice is safe). */
void cfg_free(cfg *c);

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
/* Current value of a parameter, formatted as it would be written in XML
 * ("" when not set, e.g. network.zeta when bandwidth is given). 0, or -1 for
 * an unknown path or a value longer than len (truncated). */
int cfg_get(const cfg *c, const char *path, char *buf, size_t len);
/* Write the configuration as a complete XML file with every parameter
 * explicit (defaults included) that cfg_load reads back to an equal config;
 * relative empirical(...) files are written as absolute paths. A point
 * config is written without its sweep. 0, or -1 + err. */
int cfg_write_xml(const cfg *c, const char *path, char *err, size_t errlen);

#endif
