/* The configuration: one parameter table drives the XML attributes, --set,
 * sweep axes, `tasknet params`, cfg_get and the written configuration.
 *
 * Loading checks in three layers, reporting every problem:
 *  1. the XML parser (well-formedness), with its own line:col;
 *  2. a walk of the document against the table (unknown elements and
 *     attributes, units, ranges, distributions, sweep axes) and then the
 *     cross-checks of every sweep point (required parameters, exclusions);
 *  3. the closed RELAX NG schema (configs/tasknet.rng, compiled in). It is
 *     authoritative, but its messages are poor, so its errors on elements the
 *     walk already reported are dropped and the others are reworded.
 * libxml2 gives no column for attributes, so the file's bytes are kept and
 * each element's start tag is found in them (the n-th start tag of the text
 * is the n-th element in document order). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "dist.h"
#include "log.h"
#include "network.h"
#include "tree.h"
#include "units.h"
#include "workload.h"

extern const char tasknet_schema_rng[];

/* Largest deterministic tree accepted: tree vertex ids are 32-bit and a job
 * of more vertices would not fit in memory anyway. */
#define CFG_MAX_TREE_VERTICES 100000000.0
/* Largest sweep: beyond this a typo (an axis of 10^6 values) is likelier
 * than an intended study. */
#define CFG_MAX_POINTS 100000000.0

/* ------------------------------------------------------------------ errors */

void cfg_errors_init(cfg_errors *e)
{
    e->msg = NULL;
    e->n = e->cap = 0;
}

void cfg_errors_free(cfg_errors *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->msg[i]);
    free(e->msg);
    cfg_errors_init(e);
}

static void errors_push(cfg_errors *e, char *msg)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 8;
        e->msg = tn_xrealloc(e->msg, e->cap * sizeof *e->msg);
    }
    e->msg[e->n++] = msg;
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *s = tn_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

void cfg_errors_add(cfg_errors *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errors_push(e, vformat(fmt, ap));
    va_end(ap);
}

/* ------------------------------------------------------- parameter table */

typedef enum pkind {
    PK_U32,     /* uint32_t, integer range imin..imax */
    PK_U64,     /* uint64_t, integer range imin..imax */
    PK_REAL,    /* double with a unit kind */
    PK_PS,      /* int64_t picoseconds from a time */
    PK_BYTES,   /* uint64_t bytes from a size */
    PK_DIST,    /* dist of a unit kind */
    PK_CHOICE,  /* int-sized enum, index into choices */
    PK_NETTYPE, /* char[32], a registered fabric */
    PK_WLTYPE,  /* char[32], a registered workload */
    PK_Z,       /* the deterministic tree's z vector */
} pkind;

enum {
    PF_POS = 1u,    /* value must be > 0 */
    PF_NONNEG = 2u, /* value must be >= 0 */
    PF_UNSET0 = 4u, /* 0 means "not given": the alternative (alt) is used instead */
    PF_MIN1 = 8u,   /* distribution values must be >= 1 */
};

typedef struct prow {
    cfg_param_info info;        /* first: cfg_param_at hands out &row->info */
    pkind kind;                 /* storage and parser */
    unit_kind unit;             /* unit of PK_REAL / PK_DIST values */
    size_t off;                 /* offset of the field in cfg */
    uint64_t imin, imax;        /* integer kinds: accepted range */
    unsigned flags;             /* PF_* */
    const char *const *choices; /* PK_CHOICE: names, NULL-terminated, index = stored value */
    const char *alt;            /* parameter this one excludes (last given wins) */
    const char *example;        /* a valid value, for messages */
    const char *note;           /* why the range is what it is, appended to range errors */
} prow;

static const char *const switching_names[] = {"cut-through", "store-and-forward", NULL};
static const char *const priority_names[] = {"fifo", "control-first", NULL};
static const char *const protocol_names[] = {"fast-nack", "nack", "ack", "slotted", NULL};
static const char *const generator_names[] = {"deterministic", "preferential", NULL};

/* PK_CHOICE fields are written through an int. */
_Static_assert(sizeof(net_switching) == sizeof(int), "enum net_switching is not int-sized");
_Static_assert(sizeof(net_recovery) == sizeof(int), "enum net_recovery is not int-sized");
_Static_assert(sizeof(tree_gen) == sizeof(int), "enum tree_gen is not int-sized");
_Static_assert(NET_CUT_THROUGH == 0 && NET_STORE_AND_FORWARD == 1, "switching_names order");
_Static_assert(NET_FAST_NACK == 0 && NET_NACK == 1 && NET_ACK == 2 && NET_SLOTTED == 3,
               "protocol_names order");
_Static_assert(TREE_DETERMINISTIC == 0 && TREE_PREFERENTIAL == 1, "generator_names order");

#define INFO(path, type, unit, def, desc) .info = {path, type, unit, def, desc}

/* Adding a parameter: one row here (path = element.attribute, the field it
 * lands in) and the attribute in configs/tasknet.rng. Rows of one element
 * are contiguous; their order is the order of `tasknet params` and of the
 * written XML. */
static const prow rows[] = {
    {INFO("system.nodes", "integer", "", "", "nodes N, node 0 being the scheduler (>= 2)"),
     .kind = PK_U32, .off = offsetof(cfg, nodes), .flags = PF_UNSET0, .imin = 2, .imax = UINT32_MAX, .example = "100",
     .note = "N counts the scheduler, node 0, and at least one compute node"},

    {INFO("network.type", "string", "", "electrical-switch", "fabric (one of the network types listed below)"),
     .kind = PK_NETTYPE, .off = offsetof(cfg, net_type), .example = "electrical-switch"},
    {INFO("network.bandwidth", "rate", "b/s", "", "access bandwidth B of every node (> 0); or network.zeta"),
     .kind = PK_REAL, .unit = UNIT_RATE, .off = offsetof(cfg, net.bandwidth_bps),
     .flags = PF_POS | PF_UNSET0, .alt = "network.zeta", .example = "40Gb/s"},
    {INFO("network.zeta", "number", "", "", "bandwidth over-provisioning, B = zeta F (> 0); or network.bandwidth"),
     .kind = PK_REAL, .unit = UNIT_NONE, .off = offsetof(cfg, zeta), .flags = PF_POS | PF_UNSET0,
     .alt = "network.bandwidth", .example = "1"},
    {INFO("network.switch-latency", "time", "s", "200ns", "electrical switch traversal (>= 0)"),
     .kind = PK_PS, .off = offsetof(cfg, net.switch_latency_ps), .flags = PF_NONNEG, .example = "200ns"},
    {INFO("network.link-latency", "time", "s", "20ns", "propagation on one node<->switch link (>= 0)"),
     .kind = PK_PS, .off = offsetof(cfg, net.link_latency_ps), .flags = PF_NONNEG, .example = "20ns"},
    {INFO("network.switching", "choice", "", "cut-through", "electrical switch: cut-through | store-and-forward"),
     .kind = PK_CHOICE, .off = offsetof(cfg, net.switching), .choices = switching_names,
     .example = "cut-through"},
    {INFO("network.priority", "choice", "", "fifo", "electrical switch: fifo | control-first (FIFOs serve control messages first)"),
     .kind = PK_CHOICE, .off = offsetof(cfg, net.control_first), .choices = priority_names,
     .example = "fifo"},
    {INFO("network.extra-stages", "integer", "", "0", "SPINet: stages beyond log2(N) (0 to 32)"),
     .kind = PK_U32, .off = offsetof(cfg, net.extra_stages), .imin = 0, .imax = 32, .example = "1"},
    {INFO("network.switching-time", "time", "s", "1ns", "SPINet: decision time of one switching element (>= 0)"),
     .kind = PK_PS, .off = offsetof(cfg, net.switching_time_ps), .flags = PF_NONNEG, .example = "1ns"},
    {INFO("network.reaction-time", "time", "s", "1ns", "SPINet: time to generate a NACK or an ACK (>= 0)"),
     .kind = PK_PS, .off = offsetof(cfg, net.reaction_time_ps), .flags = PF_NONNEG, .example = "1ns"},
    {INFO("network.protocol", "choice", "", "fast-nack", "SPINet contention recovery: fast-nack | nack | ack | slotted"),
     .kind = PK_CHOICE, .off = offsetof(cfg, net.recovery), .choices = protocol_names,
     .example = "fast-nack"},
    {INFO("network.slot", "time", "s", "100ns", "SPINet: slot length of the slotted protocol (> 0)"),
     .kind = PK_PS, .off = offsetof(cfg, net.slot_ps), .flags = PF_POS, .example = "100ns"},
    {INFO("network.buffer", "size", "B", "0B", "SPINet: edge FIFO capacity per node (0 = unbounded)"),
     .kind = PK_BYTES, .off = offsetof(cfg, net.buffer_bytes), .flags = PF_NONNEG, .example = "1MB"},
    {INFO("network.link-length", "length", "m", "4m", "SPINet: fibre between a node and the fabric, 5 ns/m (>= 0)"),
     .kind = PK_REAL, .unit = UNIT_LENGTH, .off = offsetof(cfg, net.link_length_m), .flags = PF_NONNEG,
     .example = "4m"},
    {INFO("network.packet-size", "size", "B", "1kB", "SPINet: largest packet payload; messages are cut into packets (> 0)"),
     .kind = PK_BYTES, .off = offsetof(cfg, packet_bytes), .flags = PF_POS, .example = "1kB"},
    {INFO("network.ack-timeout", "time", "s", "0s", "SPINet ack protocol: retransmission timeout (0 = the shortest safe one)"),
     .kind = PK_PS, .off = offsetof(cfg, net.ack_timeout_ps), .flags = PF_NONNEG, .example = "200ns"},

    {INFO("network.phy.launch-power", "power level", "dBm", "0dBm", "SPINet phy: laser power per wavelength"),
     .kind = PK_REAL, .unit = UNIT_DBM, .off = offsetof(cfg, optical.launch_power_dbm), .example = "0dBm"},
    {INFO("network.phy.wavelengths", "integer", "", "8", "SPINet phy: wavelengths a packet is striped over, each at B / wavelengths (>= 1)"),
     .kind = PK_U32, .off = offsetof(cfg, optical.wavelengths), .imin = 1, .imax = 4096, .example = "16"},
    {INFO("network.phy.modulator-loss", "ratio in dB", "dB", "4dB", "SPINet phy: modulator insertion loss"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.modulator_loss_db), .flags = PF_NONNEG, .example = "4dB"},
    {INFO("network.phy.coupler-loss", "ratio in dB", "dB", "1dB", "SPINet phy: one fibre-to-chip coupler (a path crosses two)"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.coupler_loss_db), .flags = PF_NONNEG, .example = "1dB"},
    {INFO("network.phy.stage-loss", "ratio in dB", "dB", "7dB", "SPINet phy: insertion loss of one 2x2 element before SOA gain"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.stage_loss_db), .flags = PF_NONNEG, .example = "7dB"},
    {INFO("network.phy.soa-gain", "ratio in dB", "dB", "6.5dB", "SPINet phy: gain of the SOA gate of each stage"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.soa_gain_db), .flags = PF_NONNEG, .example = "6.5dB"},
    {INFO("network.phy.crossings-per-stage", "integer", "", "16", "SPINet phy: waveguide crossings a path passes per stage"),
     .kind = PK_U32, .off = offsetof(cfg, optical.crossings_per_stage), .imin = 0, .imax = 1000000, .example = "16"},
    {INFO("network.phy.crossing-loss", "ratio in dB", "dB", "0.028dB", "SPINet phy: loss of one waveguide crossing"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.crossing_loss_db), .flags = PF_NONNEG, .example = "0.028dB"},
    {INFO("network.phy.waveguide-loss", "attenuation", "dB/cm", "1dB/cm", "SPINet phy: on-chip waveguide propagation loss"),
     .kind = PK_REAL, .unit = UNIT_ATTEN, .off = offsetof(cfg, optical.waveguide_loss_db_per_cm), .flags = PF_NONNEG, .example = "1dB/cm"},
    {INFO("network.phy.waveguide-per-stage", "length", "m", "5mm", "SPINet phy: waveguide length a path runs per stage"),
     .kind = PK_REAL, .unit = UNIT_LENGTH, .off = offsetof(cfg, waveguide_m_per_stage), .flags = PF_NONNEG, .example = "5mm"},
    {INFO("network.phy.crosstalk", "ratio in dB", "dB", "-25dB", "SPINet phy: crosstalk one element leaks into a path (< 0dB)"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.crosstalk_db), .example = "-25dB"},
    {INFO("network.phy.extinction-ratio", "ratio in dB", "dB", "10dB", "SPINet phy: extinction ratio of the modulated signal (> 0dB)"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.extinction_ratio_db), .flags = PF_POS, .example = "10dB"},
    {INFO("network.phy.osnr-per-soa", "ratio in dB", "dB", "30dB", "SPINet phy: OSNR after one SOA in 0.1 nm (ASE adds up over the stages)"),
     .kind = PK_REAL, .unit = UNIT_DB, .off = offsetof(cfg, optical.osnr_per_soa_db), .example = "30dB"},
    {INFO("network.phy.sensitivity", "power level", "dBm", "-20dBm", "SPINet phy: receiver sensitivity at the BER target"),
     .kind = PK_REAL, .unit = UNIT_DBM, .off = offsetof(cfg, optical.receiver_sensitivity_dbm), .example = "-20dBm"},
    {INFO("network.phy.sensitivity-rate", "rate", "b/s", "10Gb/s", "SPINet phy: per-wavelength rate at which the sensitivity holds; +5 log10(r / it) dB at rate r (0 = any rate)"),
     .kind = PK_REAL, .unit = UNIT_RATE, .off = offsetof(cfg, optical.sensitivity_rate_bps), .flags = PF_NONNEG, .example = "10Gb/s"},
    {INFO("network.phy.ber-target", "number", "", "1e-12", "SPINet phy: BER at which the sensitivity is specified (0 < BER < 0.5)"),
     .kind = PK_REAL, .unit = UNIT_NONE, .off = offsetof(cfg, optical.ber_target), .flags = PF_POS, .example = "1e-12"},
    {INFO("network.phy.laser-efficiency", "number", "", "0.1", "SPINet phy: laser wall-plug efficiency (0 < eta <= 1)"),
     .kind = PK_REAL, .unit = UNIT_NONE, .off = offsetof(cfg, energy.wall_plug_efficiency), .flags = PF_POS, .example = "0.1"},
    {INFO("network.phy.soa-power", "power", "W", "30mW", "SPINet phy: electrical power of one SOA gate while it passes a packet"),
     .kind = PK_REAL, .unit = UNIT_POWER, .off = offsetof(cfg, energy.soa_power_w), .flags = PF_NONNEG, .example = "30mW"},
    {INFO("network.phy.serdes-energy", "energy per bit", "J/b", "1.496pJ/b", "energy of one SerDes per bit, plus 0.189pJ/b per Gb/s of lane rate"),
     .kind = PK_REAL, .unit = UNIT_EBIT, .off = offsetof(cfg, energy.serdes_j_per_bit), .flags = PF_NONNEG, .example = "1.496pJ/b"},
    {INFO("network.phy.serdes-lane-rate", "rate", "b/s", "10Gb/s", "electrical switch: SerDes lane rate of a port (B / it lanes; 0 = one lane at B)"),
     .kind = PK_REAL, .unit = UNIT_RATE, .off = offsetof(cfg, energy.electrical_lane_bps), .flags = PF_NONNEG, .example = "10Gb/s"},
    {INFO("network.phy.switch-core-energy", "energy per bit", "J/b", "8pJ/b", "electrical switch core energy per bit"),
     .kind = PK_REAL, .unit = UNIT_EBIT, .off = offsetof(cfg, energy.switch_core_j_per_bit), .flags = PF_NONNEG, .example = "8pJ/b"},

    {INFO("workload.type", "string", "", "task-tree", "workload (one of the workload types listed below)"),
     .kind = PK_WLTYPE, .off = offsetof(cfg, wl.type), .example = "task-tree"},
    {INFO("workload.jobs", "integer", "", "1500", "job arrivals (>= 1)"),
     .kind = PK_U64, .off = offsetof(cfg, wl.jobs), .imin = 1, .imax = UINT64_MAX, .example = "1500"},
    {INFO("workload.arrival-rate", "frequency", "1/s", "", "Poisson job arrival rate beta (> 0); or workload.load"),
     .kind = PK_REAL, .unit = UNIT_FREQ, .off = offsetof(cfg, wl.arrival_rate_per_s),
     .flags = PF_POS | PF_UNSET0, .alt = "workload.load", .example = "5000/s"},
    {INFO("workload.load", "number", "", "", "target computing load rho_x: beta = rho_x (N-1) / F_x (> 0); or workload.arrival-rate"),
     .kind = PK_REAL, .unit = UNIT_NONE, .off = offsetof(cfg, load), .flags = PF_POS | PF_UNSET0,
     .alt = "workload.arrival-rate", .example = "0.5"},
    {INFO("workload.control-size", "size", "B", "40B", "control message size eps (> 0)"),
     .kind = PK_REAL, .unit = UNIT_SIZE, .off = offsetof(cfg, wl.control_size_bytes), .flags = PF_POS,
     .example = "40B"},

    {INFO("workload.message-size", "distribution(size)", "B", "", "uniform-random: bytes of each message (values >= 1)"),
     .kind = PK_DIST, .unit = UNIT_SIZE, .off = offsetof(cfg, wl.message_size), .flags = PF_MIN1,
     .example = "1kB"},
    {INFO("workload.offered-load", "number", "", "", "uniform-random: offered load per node, a fraction of B (> 0)"),
     .kind = PK_REAL, .unit = UNIT_NONE, .off = offsetof(cfg, wl.offered_load), .flags = PF_POS | PF_UNSET0,
     .example = "0.5"},
    {INFO("workload.duration", "time", "s", "", "uniform-random: generate messages for this long (> 0); or workload.messages"),
     .kind = PK_PS, .off = offsetof(cfg, wl.duration_ps), .flags = PF_POS | PF_UNSET0, .alt = "workload.messages",
     .example = "100us"},
    {INFO("workload.messages", "integer", "", "", "uniform-random: messages generated by every node (>= 1); or workload.duration (better for throughput: with messages, T ends when the first node is done, which biases throughput low below ~1000)"),
     .kind = PK_U64, .off = offsetof(cfg, wl.messages), .flags = PF_UNSET0, .imin = 1, .imax = UINT64_MAX,
     .alt = "workload.duration", .example = "1000"},

    {INFO("workload.tree.generator", "choice", "", "deterministic", "deterministic (needs z) | preferential (needs vertices)"),
     .kind = PK_CHOICE, .off = offsetof(cfg, wl.tree.gen), .choices = generator_names,
     .example = "deterministic"},
    {INFO("workload.tree.z", "list", "", "", "deterministic: children per vertex of each level, e.g. \"4 3\" (each >= 1)"),
     .kind = PK_Z, .off = offsetof(cfg, wl.tree.z), .example = "4 3"},
    {INFO("workload.tree.vertices", "distribution(number)", "", "", "preferential: vertices n per tree (values >= 1)"),
     .kind = PK_DIST, .unit = UNIT_NONE, .off = offsetof(cfg, wl.tree.vertices), .flags = PF_MIN1,
     .example = "uniform-int(25,175)"},
    {INFO("workload.tree.shape", "number", "", "1", "preferential: shape s in w(u) = (2 deg u)^s"),
     .kind = PK_REAL, .unit = UNIT_NONE, .off = offsetof(cfg, wl.tree.shape), .example = "1"},

    {INFO("workload.task.init-time", "distribution(time)", "s", "", "initialisation time t_i of a task"),
     .kind = PK_DIST, .unit = UNIT_TIME, .off = offsetof(cfg, wl.task.init_time), .flags = PF_NONNEG,
     .example = "10us"},
    {INFO("workload.task.aggregation-time", "distribution(time)", "s", "", "aggregation time t_a of a task"),
     .kind = PK_DIST, .unit = UNIT_TIME, .off = offsetof(cfg, wl.task.aggregation_time),
     .flags = PF_NONNEG, .example = "10us"},
    {INFO("workload.task.send-size", "distribution(size)", "B", "", "bytes s_s sent to start a delegated task"),
     .kind = PK_DIST, .unit = UNIT_SIZE, .off = offsetof(cfg, wl.task.send_size), .flags = PF_NONNEG,
     .example = "20kB"},
    {INFO("workload.task.result-size", "distribution(size)", "B", "", "bytes s_r of a delegated task's result"),
     .kind = PK_DIST, .unit = UNIT_SIZE, .off = offsetof(cfg, wl.task.result_size), .flags = PF_NONNEG,
     .example = "40kB"},

    {INFO("run.replicas", "integer", "", "1", "independent replicas of every sweep point (>= 1)"),
     .kind = PK_U32, .off = offsetof(cfg, replicas), .imin = 1, .imax = UINT32_MAX, .example = "5"},
    {INFO("run.seed", "integer", "", "1", "base seed of the random streams (0 .. 2^64-1)"),
     .kind = PK_U64, .off = offsetof(cfg, seed), .imin = 0, .imax = UINT64_MAX, .example = "1"},
    {INFO("run.mc-samples", "integer", "", "10000", "Monte Carlo trees for the footprint of stochastic trees (>= 1)"),
     .kind = PK_U64, .off = offsetof(cfg, mc_samples), .imin = 1, .imax = UINT64_MAX, .example = "10000"},
};

#define NROWS (sizeof rows / sizeof rows[0])

size_t cfg_param_count(void) { return NROWS; }

const cfg_param_info *cfg_param_at(size_t i) { return i < NROWS ? &rows[i].info : NULL; }

static const prow *find_row(const char *path)
{
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(rows[i].info.path, path) == 0)
            return &rows[i];
    return NULL;
}

static size_t row_index(const prow *r) { return (size_t)(r - rows); }

/* The attribute name: the path's last component. */
static const char *row_attr(const prow *r) { return strrchr(r->info.path, '.') + 1; }

/* ------------------------------------------------------- element table */

typedef struct espec {
    const char *name;   /* element name */
    const char *prefix; /* parameter path prefix of its attributes, NULL if structural */
    int parent;         /* index of the parent element, -1 for the root */
    int many;           /* 1: may appear several times */
    const char *hint;   /* what to write when it is missing */
} espec;

enum { E_TASKNET, E_SYSTEM, E_NETWORK, E_WORKLOAD, E_TREE, E_TASK, E_RUN, E_SWEEP, E_AXIS, E_VALUE, E_PHY, NELEM };

static const espec elems[NELEM] = {
    [E_TASKNET] = {"tasknet", NULL, -1, 0, "<tasknet version=\"1\">"},
    [E_SYSTEM] = {"system", "system", E_TASKNET, 0, "e.g. <system nodes=\"100\"/>"},
    [E_NETWORK] = {"network", "network", E_TASKNET, 0,
                   "e.g. <network type=\"electrical-switch\" bandwidth=\"40Gb/s\"/>"},
    [E_WORKLOAD] = {"workload", "workload", E_TASKNET, 0,
                    "e.g. <workload type=\"task-tree\" jobs=\"1500\" arrival-rate=\"5000/s\">"},
    [E_TREE] = {"tree", "workload.tree", E_WORKLOAD, 0,
                "e.g. <tree generator=\"deterministic\" z=\"4 3\"/> or <tree generator=\"preferential\" "
                "vertices=\"uniform-int(25,175)\"/>"},
    [E_TASK] = {"task", "workload.task", E_WORKLOAD, 0,
                "it gives init-time, aggregation-time, send-size and result-size, e.g. <task "
                "init-time=\"10us\" aggregation-time=\"10us\" send-size=\"20kB\" result-size=\"40kB\"/>"},
    [E_RUN] = {"run", "run", E_TASKNET, 0, "e.g. <run replicas=\"5\" seed=\"1\"/>"},
    [E_SWEEP] = {"sweep", NULL, E_TASKNET, 0, "<sweep>"},
    [E_AXIS] = {"axis", NULL, E_SWEEP, 1, "<axis param=\"...\" values=\"...\"/>"},
    [E_VALUE] = {"value", NULL, E_AXIS, 1, "<value>...</value>"},
    [E_PHY] = {"phy", "network.phy", E_NETWORK, 0, "e.g. <phy wavelengths=\"16\" launch-power=\"0dBm\"/>"},
};

/* Element holding a parameter's attribute. */
static int row_elem(const prow *r)
{
    size_t plen = (size_t)(row_attr(r) - 1 - r->info.path);
    for (int e = 0; e < NELEM; e++)
        if (elems[e].prefix && strlen(elems[e].prefix) == plen &&
            strncmp(elems[e].prefix, r->info.path, plen) == 0)
            return e;
    TN_ASSERT(0, "parameter %s belongs to no element", r->info.path);
    return -1;
}

/* Attribute names an element accepts, for "expected one of" lists. */
static size_t elem_attrs(int e, const char **out, size_t max)
{
    size_t n = 0;
    if (e == E_TASKNET && n < max)
        out[n++] = "version";
    if (e == E_AXIS) {
        out[n++] = "param";
        out[n++] = "values";
    }
    for (size_t i = 0; i < NROWS; i++)
        if (elems[e].prefix && row_elem(&rows[i]) == e && n < max)
            out[n++] = row_attr(&rows[i]);
    return n;
}

static size_t elem_children(int e, const char **out, size_t max)
{
    size_t n = 0;
    for (int k = 0; k < NELEM; k++)
        if (elems[k].parent == e && n < max)
            out[n++] = elems[k].name;
    return n;
}

/* --------------------------------------------------------- small helpers */

static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Edit distance, for "did you mean"; long words are never close. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t m = del < ins ? del : ins;
            cur[j] = m < sub ? m : sub;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

/* The candidate nearest to word if it is plausibly a typo of it. */
static const char *closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bestd = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    size_t len = strlen(word), limit = len < 6 ? 2 : len / 3;
    return best && bestd <= limit ? best : NULL;
}

/* "a, b, c" (caller frees). */
static char *join(const char *const *items, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(items[i]) + 2;
    char *s = tn_xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, items[i]);
    }
    return s;
}

/* "unknown parameter 'x' (did you mean y? / parameters: ...)" */
static int unknown_param(const char *path, char *err, size_t errlen)
{
    const char *paths[NROWS];
    for (size_t i = 0; i < NROWS; i++)
        paths[i] = rows[i].info.path;
    const char *near = closest(path, paths, NROWS);
    if (near)
        return tn_error(err, errlen, "unknown parameter '%s' (did you mean %s?)", path, near);
    char *all = join(paths, NROWS);
    tn_error(err, errlen, "unknown parameter '%s' (parameters: %s)", path, all);
    free(all);
    return -1;
}

static char *registry_names(int networks)
{
    const char *names[64];
    size_t n = 0;
    if (networks)
        for (size_t i = 0; net_registry[i] && n < 64; i++)
            names[n++] = net_registry[i]->name;
    else
        for (size_t i = 0; wl_registry[i] && n < 64; i++)
            names[n++] = wl_registry[i]->name;
    return join(names, n);
}

/* ------------------------------------------------------- parsing values */

typedef struct pval {
    uint64_t u;                  /* integer kinds, PK_BYTES */
    double d;                    /* PK_REAL */
    int64_t ps;                  /* PK_PS */
    int choice;                  /* PK_CHOICE */
    dist dist;                   /* PK_DIST (owned until committed) */
    char str[32];                /* type names */
    uint32_t z[TREE_MAX_LEVELS]; /* PK_Z */
    uint32_t zlen;               /* PK_Z */
} pval;

static char *trim_dup(const char *s)
{
    while (is_space(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && is_space(s[n - 1]))
        n--;
    char *r = tn_xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

static int parse_integer(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *err,
                         size_t errlen)
{
    char *t = trim_dup(text);
    int rc = 0;
    size_t n = strlen(t), digits = strspn(t, "0123456789");
    if (n == 0) {
        rc = tn_error(err, errlen, "empty value (expected an integer such as 100)");
    } else if (t[0] == '-' && n > 1 && strspn(t + 1, "0123456789") == n - 1) {
        rc = min == 0 ? tn_error(err, errlen, "must not be negative")
                      : tn_error(err, errlen, "must be at least %llu", (unsigned long long)min);
    } else if (digits == n) {
        errno = 0;
        unsigned long long v = strtoull(t, NULL, 10);
        if (errno == ERANGE || v > max)
            rc = tn_error(err, errlen, "must be at most %llu", (unsigned long long)max);
        else if (v < min)
            rc = tn_error(err, errlen, "must be at least %llu", (unsigned long long)min);
        else
            *out = v;
    } else {
        /* "1e6" is a convenient way to write a million jobs. */
        double v;
        if (units_parse(t, UNIT_NONE, &v, err, errlen) != 0)
            rc = -1;
        else if (floor(v) != v)
            rc = tn_error(err, errlen, "'%s' is not an integer", t);
        else if (v < (double)min)
            rc = min == 0 ? tn_error(err, errlen, "must not be negative")
                          : tn_error(err, errlen, "must be at least %llu", (unsigned long long)min);
        else if (v >= 18446744073709551616.0 || (uint64_t)v > max)
            rc = tn_error(err, errlen, "must be at most %llu", (unsigned long long)max);
        else
            *out = (uint64_t)v;
    }
    free(t);
    return rc;
}

static int check_sign(double v, unsigned flags, char *err, size_t errlen)
{
    if ((flags & PF_POS) && !(v > 0))
        return tn_error(err, errlen, "must be greater than 0");
    if ((flags & PF_NONNEG) && v < 0)
        return tn_error(err, errlen, "must not be negative");
    return 0;
}

/* The largest value of each kind tasknet simulates. Time is counted in
 * integer picoseconds up to 2^63 ps = 106 days; keeping every single time,
 * and each size at the slowest likely rate, within about a day leaves room
 * for the sums a run makes. A value beyond is a typo (1e18B) or a unit
 * slip, refused here rather than overflowing mid-run. */
#define CFG_MAX_TIME_S 1e5       /* 27.8 hours */
#define CFG_MAX_SIZE_B 1e12      /* 1 TB */
#define CFG_MAX_LENGTH_M 1e6     /* 1000 km of fibre (5 ms) */
#define CFG_MAX_VERTICES 1e8     /* the cap on a tree (as for z) */

/* drawn: 0 a value, 1 the largest value of a bounded distribution, 2 the
 * largest likely draw of an unbounded one (dist_practical_max). */
static int check_magnitude(const prow *r, unit_kind unit, double v, int drawn, char *err, size_t errlen)
{
    double max;
    switch (unit) {
    case UNIT_TIME: max = CFG_MAX_TIME_S; break;
    case UNIT_SIZE: max = CFG_MAX_SIZE_B; break;
    case UNIT_LENGTH: max = CFG_MAX_LENGTH_M; break;
    default:
        if (!(r->flags & PF_MIN1))
            return 0;
        unit = UNIT_NONE;
        max = CFG_MAX_VERTICES;
        break;
    }
    if (v <= max)
        return 0;
    char a[64], b[64];
    units_format(v, unit, a, sizeof a);
    units_format(max, unit, b, sizeof b);
    const char *what = unit == UNIT_NONE ? "tree" : units_kind_name(unit);
    const char *per = unit == UNIT_NONE ? " vertices" : "";
    if (drawn == 2) /* an unbounded distribution: its largest likely draw */
        return tn_error(err, errlen, "can draw up to %s%s (one draw in 10^20), more than the largest %s "
                        "tasknet simulates, %s%s", a, per, what, b, per);
    if (drawn == 1) /* a bounded one: its largest value */
        return tn_error(err, errlen, "can draw %s%s, more than the largest %s tasknet simulates, %s%s", a, per, what,
                        b, per);
    return tn_error(err, errlen, "%s%s is more than the largest %s tasknet simulates, %s%s", a, per, what, b, per);
}

/* Distribution bounds dist_parse leaves to the caller: only normal() may
 * draw negative values (it is clamped at 0); nothing may draw beyond
 * check_magnitude's limits. */
static int check_dist_range(const prow *r, const dist *d, char *err, size_t errlen)
{
    int tail = d->kind == DIST_EXPONENTIAL || d->kind == DIST_NORMAL || d->kind == DIST_LOGNORMAL;
    if (check_magnitude(r, d->unit, dist_practical_max(d), tail ? 2 : d->kind == DIST_CONST ? 0 : 1, err, errlen) != 0)
        return -1;
    double lo;
    switch (d->kind) {
    case DIST_CONST:
    case DIST_UNIFORM:
    case DIST_UNIFORM_INT: lo = d->a; break;
    case DIST_EMPIRICAL: lo = d->n ? d->x[0] : 0; break;
    default: return 0; /* exponential, lognormal: >= 0; normal: clamped */
    }
    char v[64];
    units_format(lo, d->unit, v, sizeof v);
    if ((r->flags & PF_MIN1) && lo < 1) {
        if (d->kind == DIST_CONST)
            return tn_error(err, errlen, "must be at least 1 (a tree has at least its root)");
        return tn_error(err, errlen, "can draw %s, below 1 (a tree has at least its root)", v);
    }
    if ((r->flags & PF_NONNEG) && lo < 0) {
        const char *what = units_kind_name(d->unit);
        if (d->kind == DIST_CONST)
            return tn_error(err, errlen, "must not be negative");
        return tn_error(err, errlen,
                        "can draw %s: a %s must not be negative (only normal(mu,sigma) may, its "
                        "samples being clamped at 0)",
                        v, what);
    }
    return 0;
}

static int parse_z(const char *text, pval *v, char *err, size_t errlen)
{
    const char *p = text;
    uint32_t n = 0;
    for (;;) {
        while (is_space(*p) || *p == ',')
            p++;
        if (!*p)
            break;
        size_t len = 0;
        while (p[len] && !is_space(p[len]) && p[len] != ',')
            len++;
        if (n == TREE_MAX_LEVELS)
            return tn_error(err, errlen, "z has more than %d levels", TREE_MAX_LEVELS);
        char tok[32];
        int ok = len < sizeof tok && strspn(p, "0123456789") >= len;
        unsigned long long k = 0;
        if (ok) {
            memcpy(tok, p, len);
            tok[len] = '\0';
            errno = 0;
            k = strtoull(tok, NULL, 10);
            ok = errno != ERANGE && k <= UINT32_MAX;
        }
        if (!ok)
            return tn_error(err, errlen,
                            "z element %u '%.*s' is not a positive integer (z lists children per "
                            "level, e.g. \"4 3\")",
                            n + 1, (int)(len > 40 ? 40 : len), p);
        if (k == 0)
            return tn_error(err, errlen,
                            "z contains 0 at position %u: every level needs at least one child", n + 1);
        v->z[n++] = (uint32_t)k;
        p += len;
    }
    if (n == 0)
        return tn_error(err, errlen, "empty z (children per level, e.g. \"4 3\")");
    double vertices = 1, level = 1;
    for (uint32_t i = 0; i < n; i++) {
        level *= v->z[i];
        vertices += level;
    }
    if (vertices > CFG_MAX_TREE_VERTICES)
        return tn_error(err, errlen, "z gives trees of %.6g vertices (at most %.0f)", vertices,
                        CFG_MAX_TREE_VERTICES);
    v->zlen = n;
    return 0;
}

/* Parse text for row r. check_registry = 0 only for the built-in defaults,
 * which must not depend on what the registries hold. */
static int parse_value(const prow *r, const char *text, const char *basedir, int check_registry,
                       pval *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    switch (r->kind) {
    case PK_U32:
    case PK_U64:
        if (parse_integer(text, r->imin, r->imax, &v->u, err, errlen) != 0) {
            if (r->note && strncmp(err, "must be", 7) == 0) {
                size_t n = strlen(err);
                snprintf(err + n, errlen - n, " (%s)", r->note);
            }
            return -1;
        }
        return 0;
    case PK_REAL:
        if (units_parse(text, r->unit, &v->d, err, errlen) != 0 || check_sign(v->d, r->flags, err, errlen) != 0)
            return -1;
        return check_magnitude(r, r->unit, v->d, 0, err, errlen);
    case PK_PS: {
        double s;
        if (units_parse(text, UNIT_TIME, &s, err, errlen) != 0 || check_sign(s, r->flags, err, errlen) != 0 ||
            check_magnitude(r, UNIT_TIME, s, 0, err, errlen) != 0)
            return -1;
        v->ps = units_s_to_ps(s);
        if ((r->flags & PF_POS) && v->ps <= 0)
            return tn_error(err, errlen, "must be at least 1ps");
        return 0;
    }
    case PK_BYTES: {
        double b;
        if (units_parse(text, UNIT_SIZE, &b, err, errlen) != 0 || check_sign(b, r->flags, err, errlen) != 0)
            return -1;
        if (check_magnitude(r, UNIT_SIZE, b, 0, err, errlen) != 0)
            return -1;
        v->u = (uint64_t)llround(b);
        return 0;
    }
    case PK_DIST:
        if (dist_parse(text, r->unit, basedir, &v->dist, err, errlen) != 0)
            return -1;
        if (check_dist_range(r, &v->dist, err, errlen) != 0) {
            dist_free(&v->dist);
            return -1;
        }
        return 0;
    case PK_CHOICE: {
        char *t = trim_dup(text);
        size_t n = 0;
        while (r->choices[n])
            n++;
        for (size_t i = 0; i < n; i++)
            if (strcmp(t, r->choices[i]) == 0) {
                v->choice = (int)i;
                free(t);
                return 0;
            }
        free(t);
        char *list = join(r->choices, n);
        tn_error(err, errlen, "unknown value (expected one of: %s)", list);
        free(list);
        return -1;
    }
    case PK_NETTYPE:
    case PK_WLTYPE: {
        char *t = trim_dup(text);
        int known = !check_registry || (r->kind == PK_NETTYPE ? net_find(t) != NULL : wl_find(t) != NULL);
        int rc = 0;
        if (!known || strlen(t) >= sizeof v->str) {
            char *names = registry_names(r->kind == PK_NETTYPE);
            rc = tn_error(err, errlen, "unknown %s type '%s' (expected one of: %s)",
                          r->kind == PK_NETTYPE ? "network" : "workload", t, names);
            free(names);
        } else {
            memcpy(v->str, t, strlen(t) + 1);
        }
        free(t);
        return rc;
    }
    case PK_Z:
        return parse_z(text, v, err, errlen);
    }
    TN_ASSERT(0, "unknown parameter kind %d", (int)r->kind);
    return -1;
}

static void *field(cfg *c, const prow *r) { return (char *)c + r->off; }
static const void *cfield(const cfg *c, const prow *r) { return (const char *)c + r->off; }

/* Store a parsed value (taking ownership of a distribution). */
static void commit(cfg *c, const prow *r, pval *v)
{
    void *f = field(c, r);
    switch (r->kind) {
    case PK_U32: {
        uint32_t u = (uint32_t)v->u;
        memcpy(f, &u, sizeof u);
        break;
    }
    case PK_U64:
    case PK_BYTES: memcpy(f, &v->u, sizeof v->u); break;
    case PK_REAL: memcpy(f, &v->d, sizeof v->d); break;
    case PK_PS: memcpy(f, &v->ps, sizeof v->ps); break;
    case PK_DIST:
        dist_free(f);
        memcpy(f, &v->dist, sizeof v->dist);
        memset(&v->dist, 0, sizeof v->dist);
        break;
    case PK_CHOICE: memcpy(f, &v->choice, sizeof v->choice); break;
    case PK_NETTYPE:
    case PK_WLTYPE: memcpy(f, v->str, sizeof v->str); break;
    case PK_Z:
        memcpy(c->wl.tree.z, v->z, sizeof v->z);
        c->wl.tree.zlen = v->zlen;
        break;
    }
    if (r->alt) {
        const prow *a = find_row(r->alt);
        double zero = 0;
        memcpy(field(c, a), &zero, sizeof zero);
    }
    c->net.nodes = c->nodes;
    c->net.packet_size_bits = 8 * c->packet_bytes;
    c->optical.waveguide_cm_per_stage = 100.0 * c->waveguide_m_per_stage;
}

/* Drop "." and "dir/.." components of an absolute path, in place: the
 * written configuration should name files the way a person would. */
static void normalize_path(char *p)
{
    size_t n = strlen(p), o = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && p[i] == '/')
            i++;
        size_t j = i;
        while (j < n && p[j] != '/')
            j++;
        size_t len = j - i;
        if (len == 0 || (len == 1 && p[i] == '.')) {
            /* nothing */
        } else if (len == 2 && p[i] == '.' && p[i + 1] == '.') {
            while (o > 0 && p[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            p[o++] = '/';
            memmove(p + o, p + i, len);
            o += len;
        }
        i = j;
    }
    if (o == 0)
        p[o++] = '/';
    p[o] = '\0';
}

/* Value as written in XML (caller frees); "" when not given. absolute: a
 * relative empirical file becomes absolute (resolved from c->basedir). */
static char *format_value(const cfg *c, const prow *r, int absolute)
{
    const void *f = cfield(c, r);
    char buf[96];
    switch (r->kind) {
    case PK_U32: {
        uint32_t u;
        memcpy(&u, f, sizeof u);
        if ((r->flags & PF_UNSET0) && u == 0)
            return tn_xstrdup("");
        return format("%lu", (unsigned long)u);
    }
    case PK_U64: {
        uint64_t u;
        memcpy(&u, f, sizeof u);
        if ((r->flags & PF_UNSET0) && u == 0)
            return tn_xstrdup("");
        return format("%llu", (unsigned long long)u);
    }
    case PK_BYTES: {
        uint64_t u;
        memcpy(&u, f, sizeof u);
        units_format((double)u, UNIT_SIZE, buf, sizeof buf);
        return tn_xstrdup(buf);
    }
    case PK_REAL: {
        double d;
        memcpy(&d, f, sizeof d);
        if ((r->flags & PF_UNSET0) && d == 0)
            return tn_xstrdup("");
        units_format(d, r->unit, buf, sizeof buf);
        return tn_xstrdup(buf);
    }
    case PK_PS: {
        int64_t ps;
        memcpy(&ps, f, sizeof ps);
        if ((r->flags & PF_UNSET0) && ps == 0)
            return tn_xstrdup("");
        units_format(units_ps_to_s(ps), UNIT_TIME, buf, sizeof buf);
        return tn_xstrdup(buf);
    }
    case PK_DIST: {
        const dist *d = f;
        if (!d->text)
            return tn_xstrdup("");
        if (!absolute || d->kind != DIST_EMPIRICAL)
            return tn_xstrdup(d->text);
        /* empirical(FILE[,mode]): make FILE absolute so the written
         * configuration runs from any folder. */
        const char *open = strchr(d->text, '(');
        const char *fstart = open ? open + 1 : NULL;
        while (fstart && is_space(*fstart))
            fstart++;
        if (!fstart || *fstart == '/')
            return tn_xstrdup(d->text);
        size_t flen = strcspn(fstart, ",)");
        while (flen > 0 && is_space(fstart[flen - 1]))
            flen--;
        char cwd[CFG_PATH_MAX];
        const char *base = c->basedir[0] ? c->basedir : ".";
        int absdir = base[0] == '/';
        if (!absdir && !getcwd(cwd, sizeof cwd))
            return tn_xstrdup(d->text);
        char *joined = format("%s%s%s/%.*s", absdir ? "" : cwd, absdir ? "" : "/", base, (int)flen, fstart);
        normalize_path(joined);
        char *s = format("empirical(%s%s", joined, fstart + strcspn(fstart, ",)"));
        free(joined);
        return s;
    }
    case PK_CHOICE: {
        int k;
        memcpy(&k, f, sizeof k);
        return tn_xstrdup(r->choices[k]);
    }
    case PK_NETTYPE:
    case PK_WLTYPE: return tn_xstrdup(f);
    case PK_Z: {
        char *s = tn_xmalloc(12 * TREE_MAX_LEVELS + 1);
        size_t o = 0;
        s[0] = '\0';
        for (uint32_t i = 0; i < c->wl.tree.zlen && i < TREE_MAX_LEVELS; i++)
            o += (size_t)sprintf(s + o, "%s%lu", i ? " " : "", (unsigned long)c->wl.tree.z[i]);
        return s;
    }
    }
    TN_ASSERT(0, "unknown parameter kind %d", (int)r->kind);
    return NULL;
}

/* ----------------------------------------------------- defaults and copies */

void cfg_defaults(cfg *c)
{
    memset(c, 0, sizeof *c);
    /* what the table does not expose keeps the physical layer's defaults */
    phy_optical_defaults(&c->optical);
    phy_energy_defaults(&c->energy);
    for (size_t i = 0; i < NROWS; i++) {
        if (!rows[i].info.def[0])
            continue;
        pval v;
        char err[256];
        int rc = parse_value(&rows[i], rows[i].info.def, NULL, 0, &v, err, sizeof err);
        TN_ASSERT(rc == 0, "default of %s '%s' does not parse: %s", rows[i].info.path, rows[i].info.def, err);
        commit(c, &rows[i], &v);
    }
}

static void axes_free(cfg *c)
{
    for (size_t a = 0; a < c->naxes; a++) {
        for (size_t v = 0; v < c->axes[a].nvalues; v++)
            free(c->axes[a].values[v]);
        free(c->axes[a].values);
    }
    c->naxes = 0;
}

void cfg_free(cfg *c)
{
    if (!c)
        return;
    wl_params_free(&c->wl);
    axes_free(c);
    cfg_defaults(c);
}

void cfg_copy(cfg *dst, const cfg *src)
{
    *dst = *src;
    memset(&dst->wl, 0, sizeof dst->wl);
    wl_params_copy(&dst->wl, &src->wl);
    for (size_t a = 0; a < src->naxes; a++) {
        dst->axes[a].values = tn_xmalloc((src->axes[a].nvalues ? src->axes[a].nvalues : 1) * sizeof(char *));
        for (size_t v = 0; v < src->axes[a].nvalues; v++)
            dst->axes[a].values[v] = tn_xstrdup(src->axes[a].values[v]);
    }
}

int cfg_set(cfg *c, const char *path, const char *value, char *err, size_t errlen)
{
    const prow *r = find_row(path);
    if (!r)
        return unknown_param(path, err, errlen);
    pval v;
    if (parse_value(r, value ? value : "", c->basedir, 1, &v, err, errlen) != 0)
        return -1;
    commit(c, r, &v);
    return 0;
}

int cfg_get(const cfg *c, const char *path, char *buf, size_t len)
{
    const prow *r = find_row(path);
    if (!r) {
        if (len)
            buf[0] = '\0';
        return -1;
    }
    char *s = format_value(c, r, 0);
    int n = snprintf(buf, len, "%s", s);
    free(s);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* ------------------------------------------------------------- reporting */

typedef enum ec_mode { EC_LOAD, EC_LIST, EC_FIRST } ec_mode;

struct loader;

/* Where cross-check errors go: located in the document being loaded, a list
 * ("file: error: ..."), or the first one into a buffer (cfg_point). */
typedef struct ectx {
    ec_mode mode;
    struct loader *ld; /* EC_LOAD */
    cfg_errors *errs;  /* EC_LIST */
    size_t first;      /* EC_LIST: errors before ours (for de-duplication) */
    const char *file;  /* EC_LIST: prefix, may be "" */
    char *buf;         /* EC_FIRST */
    size_t buflen;     /* EC_FIRST */
    int n;             /* errors reported */
} ectx;

typedef struct lerr {
    long line, col; /* 0 = unknown */
    size_t seq;     /* report order, to keep the sort stable */
    char *msg;
} lerr;

typedef struct serr {
    xmlNodePtr node; /* element the schema complained about, or NULL */
    long line;       /* from libxml2 */
    char *msg;       /* libxml2's message, newline stripped */
} serr;

typedef struct loader {
    const char *file;               /* as given */
    cfg *c;
    char *text;                     /* the file's bytes, NUL-terminated */
    size_t len;
    size_t *lines;                  /* offset of each line's first byte */
    size_t nlines;
    size_t *tags;                   /* offset of each start tag, document order */
    size_t ntags;
    int tags_ok;                    /* tags[] matches the elements one to one */
    xmlDocPtr doc;
    int phase;                      /* 0 parsing, 1 schema */
    lerr *e;                        /* errors */
    size_t ne, cape;
    serr *s;                        /* schema errors, filtered at the end */
    size_t ns, caps;
    xmlNodePtr *flagged;            /* elements with an error of ours */
    size_t nflag, capflag;
    int structural;                 /* unknown/duplicate elements or attributes */
    unsigned char failed[NROWS];    /* parameter whose value was rejected */
    int axis_failed;                /* a sweep axis was rejected */
    size_t suppressed;              /* errors past LD_MAX_ERRORS, counted only */
    char **failed_axes;             /* param= of each rejected axis, for with= */
    size_t nfailed_axes;
    xmlNodePtr el[NELEM];           /* first node of each element */
    xmlNodePtr axis_node[CFG_MAX_AXES]; /* element of each axis */
} loader;

static void flag_node(loader *ld, xmlNodePtr n)
{
    if (!n)
        return;
    if (ld->nflag == ld->capflag) {
        ld->capflag = ld->capflag ? 2 * ld->capflag : 16;
        ld->flagged = tn_xrealloc(ld->flagged, ld->capflag * sizeof *ld->flagged);
    }
    ld->flagged[ld->nflag++] = n;
}

/* Errors kept for the report; past it they are counted only, so a file of
 * thousands of mistakes is reported in linear time. */
#define LD_MAX_ERRORS 100

static int ld_full(loader *ld, xmlNodePtr flag)
{
    if (ld->ne < LD_MAX_ERRORS)
        return 0;
    ld->suppressed++;
    flag_node(ld, flag);
    return 1;
}

static void add_err(loader *ld, long line, long col, xmlNodePtr flag, char *msg)
{
    if (ld_full(ld, flag)) {
        free(msg);
        return;
    }
    for (size_t i = 0; i < ld->ne; i++)
        if (strcmp(ld->e[i].msg, msg) == 0 && ld->e[i].line == line && ld->e[i].col == col) {
            free(msg);
            flag_node(ld, flag);
            return;
        }
    if (ld->ne == ld->cape) {
        ld->cape = ld->cape ? 2 * ld->cape : 16;
        ld->e = tn_xrealloc(ld->e, ld->cape * sizeof *ld->e);
    }
    ld->e[ld->ne] = (lerr){line, col, ld->ne, msg};
    ld->ne++;
    flag_node(ld, flag);
}

/* Line and 1-based column (in characters) of a byte offset. */
static void offset_loc(const loader *ld, size_t off, long *line, long *col)
{
    size_t lo = 0, hi = ld->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ld->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    long c = 1;
    size_t from = ld->lines[lo];
    if (from == 0 && ld->len >= 3 && memcmp(ld->text, "\xEF\xBB\xBF", 3) == 0 && off >= 3)
        from = 3; /* a byte-order mark is no character of the line */
    for (size_t i = from; i < off; i++)
        if (((unsigned char)ld->text[i] & 0xC0) != 0x80)
            c++;
    *line = (long)lo + 1;
    *col = c;
}

static int tag_of(const loader *ld, xmlNodePtr n, size_t *off)
{
    uintptr_t k = (uintptr_t)n->_private;
    if (!ld->tags_ok || k == 0 || k > ld->ntags)
        return -1;
    *off = ld->tags[k - 1];
    return 0;
}

static void elem_loc(const loader *ld, xmlNodePtr n, long *line, long *col)
{
    size_t off;
    if (tag_of(ld, n, &off) == 0) {
        offset_loc(ld, off, line, col);
        return;
    }
    /* Fallback: libxml2's line, and the first "<name" on it. */
    long l = xmlGetLineNo(n);
    *line = l > 0 ? l : 0;
    *col = 0;
    if (l > 0 && (size_t)l <= ld->nlines) {
        size_t start = ld->lines[l - 1], end = (size_t)l < ld->nlines ? ld->lines[l] : ld->len;
        size_t nl = strlen((const char *)n->name);
        for (size_t i = start; i + nl < end; i++)
            if (ld->text[i] == '<' && strncmp(ld->text + i + 1, (const char *)n->name, nl) == 0) {
                offset_loc(ld, i, line, col);
                break;
            }
    }
}

/* Column of attribute `name` in the start tag of element n. */
static void attr_loc(const loader *ld, xmlNodePtr n, const char *name, long *line, long *col)
{
    size_t i;
    if (tag_of(ld, n, &i) != 0) {
        elem_loc(ld, n, line, col);
        return;
    }
    const char *t = ld->text;
    size_t len = ld->len, nl = strlen(name);
    i++;
    while (i < len && !is_space(t[i]) && t[i] != '>' && t[i] != '/')
        i++;
    for (;;) {
        while (i < len && is_space(t[i]))
            i++;
        if (i >= len || t[i] == '>' || t[i] == '/')
            break;
        size_t start = i;
        while (i < len && !is_space(t[i]) && t[i] != '=' && t[i] != '>' && t[i] != '/')
            i++;
        size_t alen = i - start;
        while (i < len && is_space(t[i]))
            i++;
        if (i < len && t[i] == '=')
            i++;
        while (i < len && is_space(t[i]))
            i++;
        if (i < len && (t[i] == '"' || t[i] == '\'')) {
            char q = t[i++];
            while (i < len && t[i] != q)
                i++;
            i++;
        }
        if (alen == nl && strncmp(t + start, name, nl) == 0) {
            offset_loc(ld, start, line, col);
            return;
        }
    }
    elem_loc(ld, n, line, col);
}

/* The file's lines and start tags. */
static void scan_text(loader *ld)
{
    const char *t = ld->text;
    size_t n = ld->len, cap = 64;
    ld->lines = tn_xmalloc(cap * sizeof *ld->lines);
    ld->lines[ld->nlines++] = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '\n') {
            if (ld->nlines == cap) {
                cap *= 2;
                ld->lines = tn_xrealloc(ld->lines, cap * sizeof *ld->lines);
            }
            ld->lines[ld->nlines++] = i + 1;
        }
    size_t tcap = 32;
    ld->tags = tn_xmalloc(tcap * sizeof *ld->tags);
    size_t i = 0;
    while (i < n) {
        if (t[i] != '<') {
            i++;
            continue;
        }
        const char *end = NULL;
        if (strncmp(t + i, "<!--", 4) == 0) {
            end = strstr(t + i + 4, "-->");
            i = end ? (size_t)(end - t) + 3 : n;
        } else if (strncmp(t + i, "<![CDATA[", 9) == 0) {
            end = strstr(t + i + 9, "]]>");
            i = end ? (size_t)(end - t) + 3 : n;
        } else if (strncmp(t + i, "<?", 2) == 0) {
            end = strstr(t + i + 2, "?>");
            i = end ? (size_t)(end - t) + 2 : n;
        } else if (t[i + 1] == '!') {
            /* DOCTYPE with an optional internal subset */
            int depth = 0;
            char q = 0;
            for (i += 2; i < n; i++) {
                char ch = t[i];
                if (q) {
                    if (ch == q)
                        q = 0;
                } else if (ch == '"' || ch == '\'') {
                    q = ch;
                } else if (ch == '[') {
                    depth++;
                } else if (ch == ']') {
                    depth--;
                } else if (ch == '>' && depth <= 0) {
                    i++;
                    break;
                }
            }
        } else if (t[i + 1] == '/') {
            i += 2;
        } else {
            if (ld->ntags == tcap) {
                tcap *= 2;
                ld->tags = tn_xrealloc(ld->tags, tcap * sizeof *ld->tags);
            }
            ld->tags[ld->ntags++] = i;
            char q = 0;
            for (i++; i < n; i++) {
                if (q) {
                    if (t[i] == q)
                        q = 0;
                } else if (t[i] == '"' || t[i] == '\'') {
                    q = t[i];
                } else if (t[i] == '>') {
                    i++;
                    break;
                }
            }
        }
    }
}

/* Number the elements in document order (node->_private = 1 + index). */
static void index_elements(xmlNodePtr n, size_t *k)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        n->_private = (void *)(uintptr_t)(++*k);
        index_elements(n->children, k);
    }
}

static char *prop(xmlAttrPtr a)
{
    xmlChar *v = xmlNodeListGetString(a->doc, a->children, 1);
    char *s = tn_xstrdup(v ? (const char *)v : "");
    xmlFree(v);
    return s;
}

/* `<elem attr="value">` for messages, long values shortened. */
static char *tag_text(const char *elem, const char *attr, const char *value)
{
    if (!attr)
        return format("<%s>", elem);
    size_t n = strlen(value);
    if (n > 60)
        return format("<%s %s=\"%.50s...\">", elem, attr, value);
    return format("<%s %s=\"%s\">", elem, attr, value);
}

static void err_at_attr(loader *ld, xmlNodePtr n, const char *attr, const char *value, const char *fmt,
                        ...) __attribute__((format(printf, 5, 6)));
static void err_at_attr(loader *ld, xmlNodePtr n, const char *attr, const char *value, const char *fmt, ...)
{
    if (ld_full(ld, n))
        return;
    long line, col;
    if (attr)
        attr_loc(ld, n, attr, &line, &col);
    else
        elem_loc(ld, n, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    char *body = vformat(fmt, ap);
    va_end(ap);
    char *tag = tag_text((const char *)n->name, attr, value);
    add_err(ld, line, col, n, format("%s: %s", tag, body));
    free(tag);
    free(body);
}

static void err_at_elem(loader *ld, xmlNodePtr n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err_at_elem(loader *ld, xmlNodePtr n, const char *fmt, ...)
{
    if (ld_full(ld, n))
        return;
    long line, col;
    elem_loc(ld, n, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    add_err(ld, line, col, n, vformat(fmt, ap));
    va_end(ap);
}

/* --------------------------------------------------------- the cross-checks */

static void ec_emit(ectx *ec, char *msg)
{
    ec->n++;
    if (ec->mode == EC_FIRST) {
        if (ec->n == 1)
            tn_error(ec->buf, ec->buflen, "%s", msg);
        free(msg);
        return;
    }
    char *line = ec->file && ec->file[0] ? format("%s: error: %s", ec->file, msg) : format("error: %s", msg);
    free(msg);
    for (size_t i = ec->first; i < ec->errs->n; i++)
        if (strcmp(ec->errs->msg[i], line) == 0) {
            free(line);
            return;
        }
    errors_push(ec->errs, line);
}

/* A required parameter (or one of a pair) is missing. */
static void x_missing(ectx *ec, const char *path, const char *reason)
{
    const prow *r = find_row(path), *alt = r->alt ? find_row(r->alt) : NULL;
    if (ec->mode != EC_LOAD) {
        if (alt)
            ec_emit(ec, format("missing %s or %s (%s; e.g. %s=%s)", path, alt->info.path, reason,
                               path, r->example));
        else
            ec_emit(ec, format("missing %s (%s; e.g. %s=%s)", path, reason, path, r->example));
        return;
    }
    loader *ld = ec->ld;
    if (ld->failed[row_index(r)] || (alt && ld->failed[row_index(alt)]))
        return; /* its value was rejected: already reported */
    ec->n++;
    int e = row_elem(r);
    if (ld->el[e]) {
        if (alt)
            err_at_attr(ld, ld->el[e], NULL, NULL, "missing attribute %s or %s (%s; e.g. %s=\"%s\")",
                        row_attr(r), row_attr(alt), reason, row_attr(r), r->example);
        else
            err_at_attr(ld, ld->el[e], NULL, NULL, "missing attribute %s (%s; e.g. %s=\"%s\")",
                        row_attr(r), reason, row_attr(r), r->example);
        return;
    }
    /* The element itself is absent: report the outermost absent one, once. */
    while (elems[e].parent >= 0 && !ld->el[elems[e].parent])
        e = elems[e].parent;
    xmlNodePtr parent = elems[e].parent >= 0 ? ld->el[elems[e].parent] : NULL;
    if (!parent)
        return; /* no root: reported by the walk */
    err_at_elem(ld, parent, "<%s>: missing <%s> element (%s)", elems[elems[e].parent].name, elems[e].name,
                elems[e].hint);
}

/* A parameter's value is wrong in combination with others. */
static void x_invalid(ectx *ec, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void x_invalid(ectx *ec, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = vformat(fmt, ap);
    va_end(ap);
    if (ec->mode != EC_LOAD) {
        ec_emit(ec, format("%s: %s", path, body));
        free(body);
        return;
    }
    loader *ld = ec->ld;
    const prow *r = find_row(path);
    if (ld->failed[row_index(r)]) {
        free(body);
        return;
    }
    ec->n++;
    int e = row_elem(r);
    xmlNodePtr n = ld->el[e];
    xmlAttrPtr a = n ? xmlHasProp(n, (const xmlChar *)row_attr(r)) : NULL;
    if (a) {
        char *v = prop(a);
        err_at_attr(ld, n, row_attr(r), v, "%s", body);
        free(v);
    } else if (n) {
        err_at_elem(ld, n, "<%s>: %s", elems[e].name, body);
    } else if (ld->el[E_TASKNET]) {
        err_at_elem(ld, ld->el[E_TASKNET], "%s: %s", path, body);
    }
    free(body);
}

static int is_unset_dist(const dist *d) { return d->text == NULL; }

/* Checks that involve several parameters, on one concrete configuration. */
static void cross_check(const cfg *c, ectx *ec)
{
    if (c->nodes == 0)
        x_missing(ec, "system.nodes", "the number of nodes N, node 0 being the scheduler");
    else if (c->nodes < 2)
        x_invalid(ec, "system.nodes", "N = %lu: at least 2 nodes are needed (node 0 is the scheduler)",
                  (unsigned long)c->nodes);
    if (!net_find(c->net_type)) {
        char *names = registry_names(1);
        x_invalid(ec, "network.type", "unknown network type '%s' (expected one of: %s)", c->net_type, names);
        free(names);
    }
    if (c->net.bandwidth_bps > 0 && c->zeta > 0)
        x_invalid(ec, "network.zeta", "give either network.bandwidth or network.zeta, not both");
    else if (!(c->net.bandwidth_bps > 0) && !(c->zeta > 0))
        x_missing(ec, "network.bandwidth", "the access bandwidth B, or B = zeta F");
    if (!wl_find(c->wl.type)) {
        char *names = registry_names(0);
        x_invalid(ec, "workload.type", "unknown workload type '%s' (expected one of: %s)", c->wl.type, names);
        free(names);
    }
    if (c->wl.jobs < 1)
        x_invalid(ec, "workload.jobs", "must be at least 1");
    if (strcmp(c->wl.type, "uniform-random") == 0) {
        if (is_unset_dist(&c->wl.message_size))
            x_missing(ec, "workload.message-size", "a uniform-random workload needs the message sizes");
        if (!(c->wl.offered_load > 0))
            x_missing(ec, "workload.offered-load", "the offered load per node as a fraction of B");
        if (c->wl.duration_ps > 0 && c->wl.messages > 0)
            x_invalid(ec, "workload.duration", "give either workload.duration or workload.messages, not both");
        else if (c->wl.duration_ps <= 0 && c->wl.messages == 0)
            x_missing(ec, "workload.duration", "how long the nodes generate messages");
        if (c->load > 0)
            x_invalid(ec, "workload.load", "applies to task-tree workloads; use workload.offered-load");
    }
    if (strcmp(c->wl.type, "task-tree") == 0) {
        if (c->wl.arrival_rate_per_s > 0 && c->load > 0)
            x_invalid(ec, "workload.load", "give either workload.arrival-rate or workload.load, not both");
        else if (!(c->wl.arrival_rate_per_s > 0) && !(c->load > 0))
            x_missing(ec, "workload.arrival-rate", "the job arrival rate beta, or a target load rho_x");
        if (c->wl.tree.gen == TREE_DETERMINISTIC && c->wl.tree.zlen == 0)
            x_missing(ec, "workload.tree.z", "generator deterministic, the default, needs it");
        if (c->wl.tree.gen == TREE_PREFERENTIAL && is_unset_dist(&c->wl.tree.vertices))
            x_missing(ec, "workload.tree.vertices", "generator preferential needs it");
        const struct {
            const char *path;
            const dist *d;
        } task[] = {
            {"workload.task.init-time", &c->wl.task.init_time},
            {"workload.task.aggregation-time", &c->wl.task.aggregation_time},
            {"workload.task.send-size", &c->wl.task.send_size},
            {"workload.task.result-size", &c->wl.task.result_size},
        };
        for (size_t i = 0; i < sizeof task / sizeof task[0]; i++)
            if (is_unset_dist(task[i].d))
                x_missing(ec, task[i].path, "a task-tree workload needs every task variable");
    }
    /* Ranges beyond the sign flags of the table, checked for every fabric so a
     * bad value is reported at its attribute whatever network.type is. */
    if (!(c->optical.crosstalk_db < 0))
        x_invalid(ec, "network.phy.crosstalk", "%gdB: the leak must be below the signal, < 0dB",
                  c->optical.crosstalk_db);
    if (!(c->optical.ber_target < 0.5))
        x_invalid(ec, "network.phy.ber-target", "%g: a bit error rate target must be below 0.5",
                  c->optical.ber_target);
    if (!(c->energy.wall_plug_efficiency <= 1))
        x_invalid(ec, "network.phy.laser-efficiency", "%g: a wall-plug efficiency is at most 1",
                  c->energy.wall_plug_efficiency);
    if (c->replicas < 1)
        x_invalid(ec, "run.replicas", "must be at least 1");
    if (c->mc_samples < 1)
        x_invalid(ec, "run.mc-samples", "must be at least 1");
}

/* ------------------------------------------------------------------ sweep */

/* Index of the axis sweeping `path`, or -1. */
static int axis_of(const cfg *c, const char *path)
{
    for (size_t a = 0; a < c->naxes; a++)
        if (strcmp(c->axes[a].param, path) == 0)
            return (int)a;
    return -1;
}

/* The axis whose position axis `a` follows: itself, or the lead it varies with. */
static size_t axis_lead(const cfg *c, size_t a)
{
    int l = c->axes[a].with[0] ? axis_of(c, c->axes[a].with) : -1;
    return l >= 0 ? (size_t)l : a;
}

size_t cfg_points(const cfg *c)
{
    if (c->point)
        return 1;
    size_t n = 1;
    for (size_t a = 0; a < c->naxes; a++)
        if (axis_lead(c, a) == a)
            n *= c->axes[a].nvalues;
    return n;
}

/* Only lead axes span the product; the first varies slowest. */
static size_t axis_index(const cfg *c, size_t i, size_t axis)
{
    axis = axis_lead(c, axis);
    size_t stride = 1;
    for (size_t a = c->naxes; a-- > axis + 1;)
        if (axis_lead(c, a) == a)
            stride *= c->axes[a].nvalues;
    return (i / stride) % c->axes[axis].nvalues;
}

static int drop_one_axis(cfg *c, const char *path);

int cfg_drop_axis(cfg *c, const char *path)
{
    /* fixing B fixes zeta too (one replaces the other), and the reverse */
    int n = drop_one_axis(c, path);
    const prow *r = find_row(path);
    for (size_t i = 0; r && i < NROWS; i++)
        if ((r->alt && strcmp(rows[i].info.path, r->alt) == 0) || (rows[i].alt && strcmp(rows[i].alt, path) == 0))
            n |= drop_one_axis(c, rows[i].info.path);
    return n;
}

static int drop_one_axis(cfg *c, const char *path)
{
    int d = axis_of(c, path);
    if (d < 0)
        return 0;
    cfg_axis *ax = &c->axes[d];
    /* its first follower leads the others */
    char heir[64] = "";
    for (size_t a = 0; a < c->naxes; a++) {
        if (strcmp(c->axes[a].with, path) != 0)
            continue;
        if (!heir[0]) {
            snprintf(heir, sizeof heir, "%s", c->axes[a].param);
            c->axes[a].with[0] = '\0';
        } else {
            snprintf(c->axes[a].with, sizeof c->axes[a].with, "%s", heir);
        }
    }
    for (size_t v = 0; v < ax->nvalues; v++)
        free(ax->values[v]);
    free(ax->values);
    memmove(ax, ax + 1, (c->naxes - (size_t)d - 1) * sizeof *ax);
    c->naxes--;
    return 1;
}

const char *cfg_point_value(const cfg *base, size_t i, size_t axis)
{
    if (axis >= base->naxes || base->axes[axis].nvalues == 0)
        return "";
    if (base->point)
        i = base->point - 1;
    else if (i >= cfg_points(base))
        return "";
    return base->axes[axis].values[axis_index(base, i, axis)];
}

/* Copy of base with point i's axis values applied, not cross-checked. */
static int build_point(const cfg *base, size_t i, cfg *out, char *err, size_t errlen)
{
    cfg_copy(out, base);
    out->point = i + 1;
    for (size_t a = 0; a < base->naxes; a++) {
        const char *v = base->axes[a].values[axis_index(base, i, a)];
        char e2[1024];
        if (cfg_set(out, base->axes[a].param, v, e2, sizeof e2) != 0) {
            cfg_free(out);
            return tn_error(err, errlen, "sweep axis %s, value '%s': %s", base->axes[a].param, v, e2);
        }
    }
    return 0;
}

int cfg_point(const cfg *base, size_t i, cfg *out, char *err, size_t errlen)
{
    if (base->point) {
        if (i != 0) {
            cfg_defaults(out);
            return tn_error(err, errlen, "a sweep point has one point (asked for %zu)", i);
        }
        cfg_copy(out, base);
        return 0;
    }
    size_t np = cfg_points(base);
    if (i >= np) {
        cfg_defaults(out);
        return tn_error(err, errlen, "sweep point %zu out of range (%zu points)", i, np);
    }
    if (build_point(base, i, out, err, errlen) != 0)
        return -1;
    ectx ec = {.mode = EC_FIRST, .buf = err, .buflen = errlen};
    cross_check(out, &ec);
    if (ec.n) {
        cfg_free(out);
        return -1;
    }
    return 0;
}

/* Cross-check every point of c (or c itself). */
static void check_points(const cfg *c, ectx *ec)
{
    if (c->point || c->naxes == 0) {
        cross_check(c, ec);
        return;
    }
    size_t np = cfg_points(c);
    for (size_t p = 0; p < np; p++) {
        cfg pc;
        char err[1024];
        if (build_point(c, p, &pc, err, sizeof err) != 0) {
            if (ec->mode == EC_LOAD)
                continue; /* the axis value was reported where it is written */
            ec_emit(ec, format("sweep point %zu: %s", p, err));
            continue;
        }
        cross_check(&pc, ec);
        cfg_free(&pc);
    }
}

int cfg_check(const cfg *c, cfg_errors *errs)
{
    ectx ec = {.mode = EC_LIST, .errs = errs, .first = errs->n, .file = c->file};
    check_points(c, &ec);
    return ec.n ? -1 : 0;
}

/* ------------------------------------------------------------ the walk */

static void unknown_attr(loader *ld, xmlNodePtr n, int e, xmlAttrPtr a)
{
    const char *names[NROWS + 2];
    size_t k = elem_attrs(e, names, NROWS + 2);
    const char *name = (const char *)a->name;
    char *v = prop(a);
    char *list = join(names, k);
    const char *near = closest(name, names, k);
    char qname[128];
    if (a->ns && a->ns->prefix)
        snprintf(qname, sizeof qname, "%s:%s", (const char *)a->ns->prefix, name);
    else
        snprintf(qname, sizeof qname, "%s", name);
    if (k == 0)
        err_at_attr(ld, n, qname, v, "unknown attribute (<%s> takes none)", elems[e].name);
    else if (near && !a->ns)
        err_at_attr(ld, n, qname, v, "unknown attribute (did you mean %s? expected one of: %s)", near, list);
    else
        err_at_attr(ld, n, qname, v, "unknown attribute (expected one of: %s)", list);
    ld->structural = 1;
    free(list);
    free(v);
}

static void param_attrs(loader *ld, xmlNodePtr n, int e)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next) {
        const prow *r = NULL;
        if (!a->ns)
            for (size_t i = 0; i < NROWS && !r; i++)
                if (row_elem(&rows[i]) == e && strcmp(row_attr(&rows[i]), (const char *)a->name) == 0)
                    r = &rows[i];
        if (!r) {
            unknown_attr(ld, n, e, a);
            continue;
        }
        char *v = prop(a);
        const prow *alt = r->alt ? find_row(r->alt) : NULL;
        if (alt && row_elem(alt) == e && xmlHasProp(n, (const xmlChar *)row_attr(alt)) &&
            row_index(alt) < row_index(r)) {
            err_at_attr(ld, n, row_attr(r), v, "give either %s or %s, not both", row_attr(alt), row_attr(r));
            ld->failed[row_index(r)] = ld->failed[row_index(alt)] = 1;
            free(v);
            continue;
        }
        pval pv;
        char err[1024];
        if (parse_value(r, v, ld->c->basedir, 1, &pv, err, sizeof err) != 0) {
            err_at_attr(ld, n, row_attr(r), v, "%s", err);
            ld->failed[row_index(r)] = 1;
        } else {
            commit(ld->c, r, &pv);
        }
        free(v);
    }
}

static char *trimmed_content(xmlNodePtr n)
{
    xmlChar *s = xmlNodeGetContent(n);
    char *t = trim_dup(s ? (const char *)s : "");
    xmlFree(s);
    return t;
}

static void add_value(char ***vals, size_t *n, size_t *cap, char *v)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *vals = tn_xrealloc(*vals, *cap * sizeof **vals);
    }
    (*vals)[(*n)++] = v;
}

static void walk_children(loader *ld, xmlNodePtr n, int e);

static void walk_axis(loader *ld, xmlNodePtr n)
{
    char *param = NULL, *values = NULL, *with = NULL;
    for (xmlAttrPtr a = n->properties; a; a = a->next) {
        if (!a->ns && strcmp((const char *)a->name, "param") == 0) {
            param = prop(a);
        } else if (!a->ns && strcmp((const char *)a->name, "with") == 0) {
            with = prop(a);
        } else if (!a->ns && strcmp((const char *)a->name, "values") == 0) {
            values = prop(a);
        } else {
            unknown_attr(ld, n, E_AXIS, a);
        }
    }
    /* the values, with the node and attribute to report each at */
    char **vals = NULL;
    xmlNodePtr *vnode = NULL;
    size_t nv = 0, cap = 0, nchild = 0;
    for (xmlNodePtr k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && !k->ns && strcmp((const char *)k->name, "value") == 0)
            nchild++;
    vnode = tn_xmalloc((nchild + 1) * sizeof *vnode);
    if (values) {
        const char *p = values;
        for (;;) {
            while (is_space(*p))
                p++;
            if (!*p)
                break;
            size_t l = 0;
            while (p[l] && !is_space(p[l]))
                l++;
            char *v = tn_xmalloc(l + 1);
            memcpy(v, p, l);
            v[l] = '\0';
            add_value(&vals, &nv, &cap, v);
            p += l;
        }
    }
    size_t nvattr = nv, iv = 0;
    for (xmlNodePtr k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE)
            continue;
        if (k->ns || strcmp((const char *)k->name, "value") != 0)
            continue; /* reported by walk_children */
        for (xmlAttrPtr a = k->properties; a; a = a->next)
            unknown_attr(ld, k, E_VALUE, a);
        for (xmlNodePtr g = k->children; g; g = g->next)
            if (g->type == XML_ELEMENT_NODE) {
                err_at_elem(ld, g, "unknown element <%s> in <value> (it holds text only)", (const char *)g->name);
                ld->structural = 1;
            }
        vnode[iv++] = k;
        add_value(&vals, &nv, &cap, trimmed_content(k));
    }
    walk_children(ld, n, E_AXIS);

    const prow *r = NULL;
    int bad = 0;
    if (!param) {
        err_at_attr(ld, n, NULL, NULL, "missing attribute param (the parameter to sweep, e.g. param=\"system.nodes\")");
        bad = 1;
    } else if (!(r = find_row(param))) {
        char err[4096];
        unknown_param(param, err, sizeof err);
        err_at_attr(ld, n, "param", param, "%s", err);
        bad = 1;
    } else if (strcmp(r->info.path, "run.replicas") == 0 || strcmp(r->info.path, "run.seed") == 0) {
        /* every point has the same replicas, and its own streams from
         * (seed, point, replica): neither varies from point to point */
        err_at_attr(ld, n, "param", param,
                    "%s cannot be swept: it applies to the whole sweep (set it in <run> or with "
                    "--%s; every point already draws its own random streams)",
                    r->info.path, strcmp(r->info.path, "run.seed") == 0 ? "seed" : "replicas");
        r = NULL;
        bad = 1;
    }
    if (values && nchild) {
        err_at_attr(ld, n, "values", values, "give either values=\"...\" or <value> children, not both");
        bad = 1;
    } else if (nv == 0) {
        if (values)
            err_at_attr(ld, n, "values", values, "no values (whitespace-separated, e.g. values=\"1 2 4\")");
        else
            err_at_attr(ld, n, NULL, NULL,
                        "no values (give values=\"1 2 4\", or <value> children for values "
                        "holding spaces)");
        bad = 1;
    }
    if (r) {
        for (size_t a = 0; a < ld->c->naxes; a++)
            if (strcmp(ld->c->axes[a].param, r->info.path) == 0) {
                long line, col;
                elem_loc(ld, ld->axis_node[a], &line, &col);
                err_at_attr(ld, n, "param", param, "%s is already swept by the axis at line %ld",
                            r->info.path, line);
                bad = 1;
                break;
            }
    }
    if (r && !bad) {
        for (size_t i = 0; i < nv; i++) {
            pval pv;
            char err[1024];
            if (parse_value(r, vals[i], ld->c->basedir, 1, &pv, err, sizeof err) != 0) {
                char *tag = tag_text("axis", "param", param);
                long line, col;
                if (i < nvattr)
                    attr_loc(ld, n, "values", &line, &col);
                else
                    elem_loc(ld, vnode[i - nvattr], &line, &col);
                add_err(ld, line, col, n, format("%s: value '%s': %s", tag, vals[i], err));
                free(tag);
                bad = 1;
            } else {
                if (r->kind == PK_DIST)
                    dist_free(&pv.dist);
            }
        }
    }
    int lead = -1;
    if (with && !bad) {
        lead = axis_of(ld->c, with);
        int lead_failed = 0;
        for (size_t a = 0; a < ld->nfailed_axes; a++)
            lead_failed |= strcmp(ld->failed_axes[a], with) == 0;
        if (lead < 0 && lead_failed) {
            bad = 1; /* its axis was reported already */
        } else if (lead < 0) {
            err_at_attr(ld, n, "with", with,
                        "no earlier axis sweeps '%s' (with=\"PARAM\" names the param of an axis above "
                        "this one, whose values this axis follows one by one)", with);
            bad = 1;
        } else {
            lead = (int)axis_lead(ld->c, (size_t)lead);
            if (ld->c->axes[lead].nvalues != nv) {
                err_at_attr(ld, n, "with", with,
                            "this axis has %zu values and the axis of %s has %zu: axes that vary "
                            "together need as many values", nv, ld->c->axes[lead].param,
                            ld->c->axes[lead].nvalues);
                bad = 1;
            }
        }
    }
    if (!bad && ld->c->naxes == CFG_MAX_AXES) {
        err_at_attr(ld, n, NULL, NULL, "too many axes (at most %d)", CFG_MAX_AXES);
        bad = 1;
    }
    if (!bad) {
        double points = (double)cfg_points(ld->c) * (lead >= 0 ? 1.0 : (double)nv);
        if (points > CFG_MAX_POINTS) {
            err_at_attr(ld, n, NULL, NULL, "the sweep would have %.6g points (at most %.0f)", points,
                        CFG_MAX_POINTS);
            bad = 1;
        }
    }
    if (bad) {
        ld->axis_failed = 1;
        if (param) {
            ld->failed_axes = tn_xrealloc(ld->failed_axes, (ld->nfailed_axes + 1) * sizeof *ld->failed_axes);
            ld->failed_axes[ld->nfailed_axes++] = tn_xstrdup(param);
        }
        for (size_t i = 0; i < nv; i++)
            free(vals[i]);
        free(vals);
    } else {
        cfg_axis *ax = &ld->c->axes[ld->c->naxes];
        ld->axis_node[ld->c->naxes] = n;
        ld->c->naxes++;
        snprintf(ax->param, sizeof ax->param, "%s", r->info.path);
        ax->values = vals;
        ax->nvalues = nv;
        ax->with[0] = '\0';
        if (lead >= 0)
            snprintf(ax->with, sizeof ax->with, "%s", ld->c->axes[lead].param);
    }
    free(vnode);
    free(param);
    free(with);
    free(values);
}

static void walk_elem(loader *ld, xmlNodePtr n, int e)
{
    if (ld->el[e] == NULL)
        ld->el[e] = n;
    if (e == E_AXIS) {
        walk_axis(ld, n);
        return;
    }
    if (e == E_TASKNET) {
        int version = 0;
        for (xmlAttrPtr a = n->properties; a; a = a->next) {
            if (!a->ns && strcmp((const char *)a->name, "version") == 0) {
                char *v = prop(a);
                char *t = trim_dup(v);
                if (strcmp(t, "1") != 0)
                    err_at_attr(ld, n, "version", v, "unsupported version (this tasknet reads version 1)");
                version = 1;
                free(t);
                free(v);
            } else {
                unknown_attr(ld, n, e, a);
            }
        }
        if (!version)
            err_at_elem(ld, n, "<tasknet>: missing attribute version=\"1\"");
    } else if (elems[e].prefix) {
        param_attrs(ld, n, e);
    } else {
        for (xmlAttrPtr a = n->properties; a; a = a->next)
            unknown_attr(ld, n, e, a);
    }
    walk_children(ld, n, e);
}

static void walk_children(loader *ld, xmlNodePtr n, int e)
{
    xmlNodePtr seen[NELEM] = {0};
    for (xmlNodePtr k = n->children; k; k = k->next) {
        if (k->type == XML_ENTITY_REF_NODE) {
            /* its elements would be invisible to both the walk and the schema */
            err_at_elem(ld, n, "<%s>: entity reference &%s; in element content (write its content out)",
                        elems[e].name, (const char *)k->name);
            ld->structural = 1;
            continue;
        }
        if (k->type != XML_ELEMENT_NODE)
            continue; /* text is the schema's business */
        int ke = -1;
        for (int i = 0; i < NELEM && ke < 0; i++)
            if (elems[i].parent == e && !k->ns && strcmp(elems[i].name, (const char *)k->name) == 0)
                ke = i;
        if (e == E_AXIS && ke == E_VALUE)
            continue; /* read by walk_axis */
        if (ke < 0) {
            const char *names[NELEM];
            size_t m = elem_children(e, names, NELEM);
            char *list = join(names, m);
            const char *near = closest((const char *)k->name, names, m);
            if (m == 0)
                err_at_elem(ld, k, "unknown element <%s> in <%s> (<%s> takes no elements)", (const char *)k->name,
                            elems[e].name, elems[e].name);
            else if (near)
                err_at_elem(ld, k, "unknown element <%s> in <%s> (did you mean <%s>? expected one of: %s)",
                            (const char *)k->name, elems[e].name, near, list);
            else
                err_at_elem(ld, k, "unknown element <%s> in <%s> (expected one of: %s)", (const char *)k->name,
                            elems[e].name, list);
            free(list);
            ld->structural = 1;
            continue;
        }
        if (!elems[ke].many && seen[ke]) {
            long line, col;
            elem_loc(ld, seen[ke], &line, &col);
            err_at_elem(ld, k, "<%s> given twice in <%s> (first at line %ld)", elems[ke].name, elems[e].name, line);
            ld->structural = 1;
            continue;
        }
        seen[ke] = k;
        walk_elem(ld, k, ke);
    }
}

/* ------------------------------------------------------ libxml2 errors */

#if LIBXML_VERSION >= 21200
typedef const xmlError *xml_error_ptr;
#else
typedef xmlErrorPtr xml_error_ptr;
#endif

static void on_xml_error(void *data, xml_error_ptr e)
{
    loader *ld = data;
    if (!ld || !e || e->level < XML_ERR_ERROR)
        return;
    char *msg = trim_dup(e->message ? e->message : "");
    if (ld->phase == 0) {
        /* well-formedness: the parser's own position is right */
        const char *why = msg;
        char *m = e->code == XML_ERR_DOCUMENT_EMPTY || e->code == XML_ERR_DOCUMENT_START
                      ? format("not an XML document: %s", why)
                      : format("malformed XML: %s", why);
        add_err(ld, e->line > 0 ? e->line : 0, e->line > 0 ? (e->int2 > 0 ? e->int2 : 1) : 0, NULL, m);
        free(msg);
        return;
    }
    xmlNodePtr node = e->node;
    while (node && node->type != XML_ELEMENT_NODE)
        node = node->parent;
    if (ld->ns == ld->caps) {
        ld->caps = ld->caps ? 2 * ld->caps : 8;
        ld->s = tn_xrealloc(ld->s, ld->caps * sizeof *ld->s);
    }
    ld->s[ld->ns++] = (serr){node, e->line, msg};
}

static void xml_silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* Does an error of ours sit on n or below it? */
static int covered(const loader *ld, xmlNodePtr n)
{
    for (size_t i = 0; i < ld->nflag; i++)
        for (xmlNodePtr f = ld->flagged[i]; f; f = f->parent)
            if (f == n)
                return 1;
    return 0;
}

/* Was an error of ours reported on exactly n? */
static int flagged_itself(const loader *ld, xmlNodePtr n)
{
    for (size_t i = 0; i < ld->nflag; i++)
        if (ld->flagged[i] == n)
            return 1;
    return 0;
}

enum { SK_SPECIFIC, SK_CASCADE, SK_GENERIC };

/* First non-blank text directly inside n (caller frees), or NULL. */
static char *stray_text(xmlNodePtr n)
{
    for (xmlNodePtr k = n->children; k; k = k->next)
        if (k->type == XML_TEXT_NODE || k->type == XML_CDATA_SECTION_NODE) {
            char *c = trimmed_content(k);
            if (c[0])
                return c;
            free(c);
        }
    return NULL;
}

static int has_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr k = n ? n->children : NULL; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && strcmp((const char *)k->name, name) == 0)
            return 1;
    return 0;
}

/* libxml2's RELAX NG wording, said the way the rest of our messages are.
 * *kind: SK_SPECIFIC (about this node alone), SK_CASCADE (may follow from
 * an error inside it), SK_GENERIC (a "failed to validate" follow-up). */
static char *reword_schema(const serr *s, int *kind)
{
    char a[128], b[128];
    const char *parent = s->node && s->node->parent && s->node->parent->type == XML_ELEMENT_NODE
                             ? (const char *)s->node->parent->name
                             : "document";
    *kind = SK_SPECIFIC;
    /* libxml2 blames stray text in an interleave on a "missing" element:
     * look for the text first. */
    char *text = s->node ? stray_text(s->node) : NULL;
    if (text) {
        char *m = format("<%s>: unexpected text '%.40s' (this element takes no text)",
                         (const char *)s->node->name, text);
        free(text);
        return m;
    }
    if (sscanf(s->msg, "Element %127s has extra content: %127s", a, b) == 2) {
        *kind = SK_CASCADE;
        return format("<%s>: unexpected content <%s>", a, b);
    }
    if (sscanf(s->msg, "Invalid attribute %127s for element %127s", a, b) == 2) {
        int e = -1;
        for (int i = 0; i < NELEM; i++)
            if (strcmp(elems[i].name, b) == 0)
                e = i;
        const char *names[NROWS + 2];
        size_t k = e >= 0 ? elem_attrs(e, names, NROWS + 2) : 0;
        char *list = join(names, k);
        char *m = format("<%s %s=...>: unknown attribute (expected one of: %s)", b, a, list);
        free(list);
        return m;
    }
    *kind = SK_CASCADE;
    if (sscanf(s->msg, "Did not expect element %127s there", a) == 1)
        return format("unknown element <%s> in <%s>", a, parent);
    if (sscanf(s->msg, "Expecting an element %127[^,], got nothing", a) == 1 && !has_child(s->node, a))
        return format("<%s>: missing <%s> element", s->node ? (const char *)s->node->name : "document", a);
    if (sscanf(s->msg, "Expecting element %127[^,], got %127s", a, b) == 2)
        return format("<%s>: expected <%s>, found <%s>", parent, a, b);
    *kind = SK_GENERIC;
    return format("does not match the schema: %s", s->msg);
}

static void schema_check(loader *ld)
{
    xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewMemParserCtxt(tasknet_schema_rng, (int)strlen(tasknet_schema_rng));
    if (!pc) {
        add_err(ld, 0, 0, NULL, tn_xstrdup("internal error: cannot read the built-in schema"));
        return;
    }
    ld->phase = 1;
    xmlRelaxNGSetParserStructuredErrors(pc, on_xml_error, ld);
    xmlRelaxNGPtr schema = xmlRelaxNGParse(pc);
    xmlRelaxNGFreeParserCtxt(pc);
    if (!schema) {
        char *m = format("internal error: the built-in schema does not parse%s%s", ld->ns ? ": " : "",
                         ld->ns ? ld->s[0].msg : "");
        add_err(ld, 0, 0, NULL, m);
        return;
    }
    /* errors of the schema's own parsing are not the user's */
    for (size_t i = 0; i < ld->ns; i++)
        free(ld->s[i].msg);
    ld->ns = 0;
    xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(schema);
    if (vc) {
        xmlRelaxNGSetValidStructuredErrors(vc, on_xml_error, ld);
        int rc = xmlRelaxNGValidateDoc(vc, ld->doc);
        xmlRelaxNGFreeValidCtxt(vc);
        if (rc != 0 && ld->ns == 0 && ld->ne == 0)
            add_err(ld, 0, 0, NULL, tn_xstrdup("does not match the schema"));
    }
    xmlRelaxNGFree(schema);

    /* Keep what the walk did not already say; prefer specific messages to
     * libxml2's "failed to validate" follow-ups. */
    size_t kept = 0, generic_at = SIZE_MAX;
    for (size_t i = 0; i < ld->ns; i++) {
        serr *s = &ld->s[i];
        int kind;
        char *m = reword_schema(s, &kind);
        int drop = s->node ? (kind == SK_SPECIFIC ? flagged_itself(ld, s->node) : covered(ld, s->node))
                           : ld->ne > 0;
        if (!drop && kind == SK_GENERIC && generic_at == SIZE_MAX)
            generic_at = i;
        if (drop || kind == SK_GENERIC) {
            free(m);
            continue;
        }
        long line = s->line, col = 0;
        if (s->node)
            elem_loc(ld, s->node, &line, &col);
        add_err(ld, line, col, s->node, m);
        kept++;
    }
    if (kept == 0 && generic_at != SIZE_MAX) {
        serr *s = &ld->s[generic_at];
        int kind;
        long line = s->line, col = 0;
        if (s->node)
            elem_loc(ld, s->node, &line, &col);
        add_err(ld, line, col, s->node, reword_schema(s, &kind));
    }
}

/* ------------------------------------------------------------------ load */

static int read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno ? errno : EIO;
    size_t cap = 4096, n = 0;
    char *buf = tn_xmalloc(cap);
    for (;;) {
        if (cap - n < 2) {
            cap *= 2;
            buf = tn_xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (e) {
        free(buf);
        return e;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int cmp_lerr(const void *pa, const void *pb)
{
    const lerr *a = pa, *b = pb;
    /* unlocated errors last */
    long la = a->line ? a->line : LONG_MAX, lb = b->line ? b->line : LONG_MAX;
    if (la != lb)
        return la < lb ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void set_paths(cfg *c, const char *path)
{
    snprintf(c->file, sizeof c->file, "%s", path);
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(c->basedir, sizeof c->basedir, ".");
    else if (slash == path)
        snprintf(c->basedir, sizeof c->basedir, "/");
    else
        snprintf(c->basedir, sizeof c->basedir, "%.*s", (int)(slash - path), path);
}

int cfg_load(cfg *c, const char *path, cfg_errors *errs)
{
    cfg_defaults(c);
    set_paths(c, path);
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.file = path;
    ld.c = c;
    int e = read_file(path, &ld.text, &ld.len);
    if (e) {
        cfg_errors_add(errs, "%s: error: cannot read: %s", path, strerror(e));
        return -1;
    }
    scan_text(&ld);

    xmlInitParser();
    /* libxml2 prints to stderr unless told otherwise; models never print. */
    xmlStructuredErrorFunc old_serror = xmlStructuredError;
    void *old_sctx = xmlStructuredErrorContext;
    xmlGenericErrorFunc old_gerror = xmlGenericError;
    void *old_gctx = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(&ld, on_xml_error);
    xmlSetGenericErrorFunc(NULL, xml_silent);

    xmlParserCtxtPtr pctx = xmlNewParserCtxt();
    if (pctx) {
        if (ld.len > (size_t)INT32_MAX)
            add_err(&ld, 0, 0, NULL, tn_xstrdup("file too large"));
        else
            ld.doc = xmlCtxtReadMemory(pctx, ld.text, (int)ld.len, path, NULL,
                                       XML_PARSE_NONET | XML_PARSE_NOWARNING);
        xmlFreeParserCtxt(pctx);
    } else {
        add_err(&ld, 0, 0, NULL, tn_xstrdup("internal error: cannot create an XML parser"));
    }
    if (ld.doc && ld.ne == 0) {
        xmlNodePtr root = xmlDocGetRootElement(ld.doc);
        size_t k = 0;
        index_elements(ld.doc->children, &k);
        ld.tags_ok = k == ld.ntags;
        if (!root) {
            add_err(&ld, 1, 1, NULL, tn_xstrdup("not an XML document: no root element"));
        } else if (root->ns && strcmp((const char *)root->name, "tasknet") == 0) {
            err_at_elem(&ld, root, "<tasknet> is in namespace '%s': tasknet files use no namespace (remove xmlns)",
                        root->ns->href ? (const char *)root->ns->href : "");
        } else if (root->ns || strcmp((const char *)root->name, "tasknet") != 0) {
            err_at_elem(&ld, root, "root element is <%s>, expected <tasknet version=\"1\">", (const char *)root->name);
        } else {
            walk_elem(&ld, root, E_TASKNET);
            if (!ld.structural) {
                ectx ec = {.mode = EC_LOAD, .ld = &ld};
                if (ld.axis_failed) {
                    /* the swept values are unusable: check what does not depend on them */
                    size_t naxes = c->naxes;
                    c->naxes = 0;
                    cross_check(c, &ec);
                    c->naxes = naxes;
                } else {
                    check_points(c, &ec);
                }
            }
            schema_check(&ld);
        }
    } else if (ld.ne == 0) {
        add_err(&ld, 0, 0, NULL, tn_xstrdup("malformed XML"));
    }
    if (ld.doc)
        xmlFreeDoc(ld.doc);
    xmlSetStructuredErrorFunc(old_sctx, old_serror);
    xmlSetGenericErrorFunc(old_gctx, old_gerror);

    if (ld.ne)
        qsort(ld.e, ld.ne, sizeof *ld.e, cmp_lerr);
    for (size_t i = 0; i < ld.ne; i++) {
        if (ld.e[i].line > 0 && ld.e[i].col > 0)
            cfg_errors_add(errs, "%s:%ld:%ld: error: %s", path, ld.e[i].line, ld.e[i].col, ld.e[i].msg);
        else if (ld.e[i].line > 0)
            cfg_errors_add(errs, "%s:%ld: error: %s", path, ld.e[i].line, ld.e[i].msg);
        else
            cfg_errors_add(errs, "%s: error: %s", path, ld.e[i].msg);
        free(ld.e[i].msg);
    }
    if (ld.suppressed)
        cfg_errors_add(errs, "%s: error: %zu more errors not shown (fix the first %d and run again)", path,
                       ld.suppressed, LD_MAX_ERRORS);
    int rc = ld.ne ? -1 : 0;
    for (size_t i = 0; i < ld.ns; i++)
        free(ld.s[i].msg);
    free(ld.s);
    free(ld.e);
    free(ld.flagged);
    for (size_t a = 0; a < ld.nfailed_axes; a++)
        free(ld.failed_axes[a]);
    free(ld.failed_axes);
    free(ld.lines);
    free(ld.tags);
    free(ld.text);
    return rc;
}

/* ----------------------------------------------------------------- write */

static void put_escaped(FILE *f, const char *s, int attr)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs(attr ? "&quot;" : "\"", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        case '\t': fputs(attr ? "&#9;" : "\t", f); break;
        case '\r': fputs("&#13;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* One element's attributes from the table (f NULL: only tell whether any
 * would be written). 1 if any. */
static int put_attrs(FILE *f, const cfg *c, int e)
{
    int any = 0;
    for (size_t i = 0; i < NROWS; i++) {
        if (row_elem(&rows[i]) != e)
            continue;
        char *v = format_value(c, &rows[i], 1);
        if (v[0]) {
            any = 1;
            if (f) {
                fprintf(f, " %s=\"", row_attr(&rows[i]));
                put_escaped(f, v, 1);
                fputc('"', f);
            }
        }
        free(v);
    }
    return any;
}

int cfg_write_xml(const cfg *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return tn_error(err, errlen, "cannot write %s: %s", path, strerror(errno));
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fputs("<!-- Written by tasknet: every parameter explicit, defaults included. -->\n", f);
    fputs("<tasknet version=\"1\">\n", f);
    fputs("  <system", f);
    put_attrs(f, c, E_SYSTEM);
    fputs("/>\n", f);
    fputs("  <network", f);
    put_attrs(f, c, E_NETWORK);
    fputs(">\n    <phy", f);
    put_attrs(f, c, E_PHY);
    fputs("/>\n  </network>\n", f);
    fputs("  <workload", f);
    put_attrs(f, c, E_WORKLOAD);
    fputs(">\n", f);
    static const int sub[] = {E_TREE, E_TASK};
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        /* an element with nothing set would only be noise */
        if (!put_attrs(NULL, c, sub[i]))
            continue;
        fprintf(f, "    <%s", elems[sub[i]].name);
        put_attrs(f, c, sub[i]);
        fputs("/>\n", f);
    }
    fputs("  </workload>\n", f);
    fputs("  <run", f);
    put_attrs(f, c, E_RUN);
    fputs("/>\n", f);
    if (!c->point && c->naxes) {
        fputs("  <sweep>\n", f);
        for (size_t a = 0; a < c->naxes; a++) {
            const cfg_axis *ax = &c->axes[a];
            int spaces = 0;
            for (size_t v = 0; v < ax->nvalues; v++)
                if (!ax->values[v][0] || strpbrk(ax->values[v], " \t\r\n"))
                    spaces = 1;
            fputs("    <axis param=\"", f);
            put_escaped(f, ax->param, 1);
            if (ax->with[0]) {
                fputs("\" with=\"", f);
                put_escaped(f, ax->with, 1);
            }
            if (!spaces) {
                fputs("\" values=\"", f);
                for (size_t v = 0; v < ax->nvalues; v++) {
                    if (v)
                        fputc(' ', f);
                    put_escaped(f, ax->values[v], 1);
                }
                fputs("\"/>\n", f);
            } else {
                fputs("\">\n", f);
                for (size_t v = 0; v < ax->nvalues; v++) {
                    fputs("      <value>", f);
                    put_escaped(f, ax->values[v], 0);
                    fputs("</value>\n", f);
                }
                fputs("    </axis>\n", f);
            }
        }
        fputs("  </sweep>\n", f);
    }
    fputs("</tasknet>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return tn_error(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
    return 0;
}
