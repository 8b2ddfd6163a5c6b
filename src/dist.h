/* Random-variable specifications as written in configurations, with their
 * exact mean. Values are in SI base units of the variable's unit kind
 * (seconds, bytes, ...). Grammar (each number carries the kind's unit):
 *   20kB                      constant
 *   uniform(2us,100us)        continuous uniform on [a,b]
 *   uniform-int(25,175)       integer uniform on {a..b} (unit-less or unit'd)
 *   exponential(50us)         exponential with that mean
 *   normal(50us,10us)         normal(mu, sigma), samples below 0 are clamped to 0
 *   lognormal(20kB,0.5)       median exp(mu) with unit, sigma of ln(X) unit-less
 *   empirical(file.csv)       CDF table "value,cum_fraction" (# comments and a
 *   empirical(file.csv,linear) header line allowed); step sampling (the first
 *                             value whose cum >= u) by default, or linear
 *                             interpolation between points. Relative paths
 *                             resolve against `basedir`. Values in the table
 *                             are in the SI base unit (bytes, seconds).
 */
#ifndef TASKNET_DIST_H
#define TASKNET_DIST_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "units.h"

typedef enum dist_kind {
    DIST_CONST,
    DIST_UNIFORM,
    DIST_UNIFORM_INT,
    DIST_EXPONENTIAL,
    DIST_NORMAL,
    DIST_LOGNORMAL,
    DIST_EMPIRICAL,
} dist_kind;

typedef struct dist {
    dist_kind kind;
    unit_kind unit;
    double a, b;        /* parameters in SI base units (meaning per kind, see above) */
    int linear;         /* empirical: 1 = linear interpolation, 0 = step */
    size_t n;           /* empirical: points */
    double *x, *cdf;    /* empirical: values (ascending) and cumulative fractions (last = 1) */
    char *text;         /* the specification as written (owned) */
    uint64_t digest;    /* empirical: FNV-1a 64 of the file's bytes as read (0 otherwise): the
                           text names the file, this says what it held (result fingerprints) */
} dist;

/* Parse `text` for a variable of unit kind `unit`. Returns 0, or -1 with an
 * error message ("malformed distribution 'unifrm(1,2)': expected one of ...").
 * On success *out owns its memory: release with dist_free. */
int dist_parse(const char *text, unit_kind unit, const char *basedir, dist *out, char *err,
               size_t errlen);
/* Deep copy (dst must not own memory). */
void dist_copy(dist *dst, const dist *src);
void dist_free(dist *d);
/* A constant without parsing (text made from the value). */
void dist_const(dist *d, unit_kind unit, double value);

double dist_draw(const dist *d, gsl_rng *r); /* dist_sample's kinds that draw (out of line) */
/* A constant draws nothing and returns its value inline (a workload draws a size per message). */
static inline double dist_sample(const dist *d, gsl_rng *r) { return d->kind == DIST_CONST ? d->a : dist_draw(d, r); }
double dist_mean(const dist *d); /* exact mean of what dist_sample draws */
/* The largest value dist_sample draws: exact for bounded kinds; for the
 * others the value exceeded with probability below 1e-20 (exponential:
 * 46 x mean; normal: mu + 9.3 sigma; lognormal: median x exp(9.3 sigma)).
 * Used to refuse configurations whose draws would not fit in time. */
double dist_practical_max(const dist *d);
int dist_is_const(const dist *d);

#endif
