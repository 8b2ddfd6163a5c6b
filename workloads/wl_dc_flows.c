/* The dc-flows workload: datacenter flows of published sizes (issue 12 item
 * 2; seed 000 sec. 3.1 DCNW/CDCNW and 3.2 FLOWS; seed 002 sec. 5.4.2's
 * background web search).
 *
 * A flow is one message from a source node to a destination node; the
 * fabric cuts it into packets when it has a host NIC (network.mtu) and
 * delivers it with its last byte. Flow completion time FCT = delivery -
 * arrival (the flow is handed over at its arrival: open loop, no congestion
 * control, seed 002's flows start on their Poisson schedule whatever the
 * network does).
 *
 * Arrivals (seed 000 sec. 3.1 "LOAD l ... Gbps generated per each trace
 * task"; its supplement with the arrival law is not available, so: Poisson,
 * as seed 002's background flows and HOMA/pFabric's generators): every node
 * 0..N-1 generates flows as a Poisson process of rate lambda per second,
 *   lambda = load B / (8 E[size])      (workload.load, a fraction of B)
 *          = load_rate / (8 E[size])   (workload.load-rate, bit/s per node: seed 000's LOAD)
 *          = flow_rate                  (workload.flow-rate, flows/s per node: seed 002's 23/s..184/s)
 * E[size] the exact mean of the size distribution as sampled (with classes,
 * sum of share_k E[size_k]). Node i's first flow comes one exponential gap
 * after t = 0; nodes are started in order 0..N-1. Generation stops at the
 * first arrival at or after workload.duration (not generated), or once
 * workload.flows flows have been generated over all nodes. Seed 000's FLOWS
 * draws one global process of rate #Msgs / TIME over all tasks: the
 * superposition of N Poisson processes of rate #Msgs / (TIME N) with a
 * uniform source is that process in distribution, so FLOWS is written
 * flow-rate = #Msgs / (TIME N), flows = #Msgs.
 *
 * Sizes: workload.sizes, any distribution of sizes, or a published one by
 * name (the table below: the file of the data directory and its sampling,
 * configs/data/README.md), rounded to the nearest byte, at least 1 B (an
 * empty flow has no completion). FLOWS classes (seed 000 sec. 3.2): up to
 * DCF_CLASSES <classK share= size= destinations= priority=> in a
 * configuration, any number from a VEF FLOWS trace (workloads/wl_vef.c sets
 * dcf_params.classes; the per-class metrics are the first four's); a flow
 * is of class k with probability share_k (shares sum to 1): one uniform u,
 * the first class whose cumulative share exceeds u; seed 000's MIN/MAX in
 * Kbytes are size="uniform(1kB,10kB)" (kB = 1000 B). A trace's #Task sets
 * dcf_params.tasks: ranks 0..tasks-1 generate and receive, the rest of the
 * workload's nodes idle.
 *
 * Destinations (seed 000: uniform, Poisson, Gaussian; its supplement with
 * their parameters is not available, so, ours): with mu = destination-mean
 * N and sigma = destination-sigma N (defaults N/2 and N/8: seed 000 sec. 4
 * says Gaussian traffic concentrates "around the task 64" of 128),
 *   uniform: uniform over the N-1 other nodes;
 *   gaussian: round(mu + sigma Z), Z standard normal, drawn again while
 *     outside 0..N-1 or equal to the source;
 *   poisson: a Poisson(mu) draw, drawn again while above N-1 or equal to the
 *     source;
 * after DCF_REDRAWS draws (a degenerate mean and sigma) the destination is
 * uniform over the others.
 *
 * Flow list ("bring your flows": workload.flow-list, instead of load and
 * sizes): the flows themselves, a CSV file: '#' comment lines, a header
 * naming the columns start_s (or start), src, dst and bytes (any order,
 * other columns ignored), then one flow a line: its arrival in seconds (a
 * decimal number, rounded to the picosecond), its source and destination
 * ranks (0..N-1, different) and its size in bytes (an integer >= 1). Flows
 * arrive in time order (equal times in file order) whatever the file's
 * order; with workload.duration only those arriving before it, with
 * workload.flows only the first that many. Nothing is drawn: the same list
 * gives the same flows on every fabric and in a peer simulator fed the same
 * file (bench/flow-list.py draws such a list; bench/websearch-ns3.sh
 * compares). offered_load is then 8 bytes / (N B T), T the duration or the
 * last arrival.
 *
 * Priority: a flow's message is of the fabric's data class (NET_PRIO_LOW,
 * 1), or its FLOWS class's priority; the configuration's <workload
 * priority=> (several workloads) overrides both for all its messages.
 *
 * Metrics (flows whose arrival lies in [warmup, duration - cooldown); all
 * flows without a duration; with workload.measure="window", a background
 * workload's, only those of them whose arrival also lies in the
 * foreground's window [F0, F1) that finish gets in wl_run_view: the
 * earliest first activity of the foreground workloads and the latest end,
 * when it was stopped; the flows delivered are kept as records until then,
 * and window_start_s/window_end_s report F0 and F1): FCT and slowdown = FCT / zero-load time, the
 * fabric's own time for that flow alone (net_zero_load_ps: size*8/B + 2
 * link + switch on the switch and the ideal fabric, packets and SPINet's
 * holds included), mean, median and 99th percentile (GSL interpolation
 * between order statistics), overall, per size bucket (small < small-max,
 * large >= large-min, medium between: pFabric's and seed 002's 100 kB and
 * 10 MB) and per class; execution_time_s = the last delivery (seed 000's
 * "execution time": all traffic received); offered_load (fraction of B per
 * node) and, with a duration D, throughput = 8 bytes delivered by D / (N B D).
 *
 * Streams (wl_stream: own, so every fabric and every other workload leaves
 * the flows of a seed the same): "dc-flows.arrivals", "dc-flows.destinations",
 * "dc-flows.sizes", "dc-flows.classes" (drawn only with classes).
 * Several workloads: it shares its nodes (a traffic source); as a
 * background workload it stops generating when told (stop), and it has
 * finished once every node's generation has ended and every flow arrived.
 * Exactly once: per source, counts and sums of h(seq) of generated and
 * delivered flows (as uniform-random). No malloc in the event loop but the
 * pools' and samples' growth. */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "datadir.h"
#include "dc_flows.h"
#include "infile.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "rng.h"
#include "sim.h"
#include "stats.h"
#include "units.h"
#include "trace.h"
#include "workload.h"

#define DCF_REDRAWS 10000 /* gaussian/poisson draws before a uniform destination */

enum { DCF_UNIFORM = 0, DCF_GAUSSIAN = 1, DCF_POISSON = 2 };
static const char *const dcf_dest_names[] = {"uniform", "gaussian", "poisson", NULL};
static const char *const dcf_class_dest_names[] = {"inherit", "uniform", "gaussian", "poisson", NULL};
static const char *const dcf_class_prio_names[] = {"inherit", "0", "1", "2", "3", "4", "5", "6", "7", NULL};

/* The published distributions by name (configs/data/README.md). */
static const struct {
    const char *name, *file;
    int linear;
} dcf_named[] = {
    {"websearch", "pfabric_websearch_snkas_cdf.csv", 1},
    {"dctcp-websearch", "homa_w5_cdf.csv", 0},
    {"fb-keyvalue", "homa_w1_cdf.csv", 0},
    {"fb-cachefollower", "homasim_fb_cachefollower_intracluster_cdf.csv", 0},
    {"fb-webserver", "homasim_fb_webserver_intracluster_cdf.csv", 0},
    {"fb-hadoop", "homa_w4_cdf.csv", 0},
    {"google-allrpc", "homa_w3_cdf.csv", 0},
    {"google-searchrpc", "homa_w2_cdf.csv", 0},
    {"alistorage", "hpcc_alistorage2019_cdf.csv", 1},
    {"datamining", "pfabric_datamining_vl2_snkas_cdf.csv", 1},
};

static int dcf_size_name(const char *text, char *spec, size_t speclen, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof dcf_named / sizeof dcf_named[0]; i++) {
        if (strcmp(text, dcf_named[i].name) != 0)
            continue;
        char path[PARAM_PATH_MAX];
        if (tn_data_path(dcf_named[i].file, path, sizeof path, err, errlen) != 0)
            return -1;
        int n = snprintf(spec, speclen, "empirical(%s,%s)", path, dcf_named[i].linear ? "linear" : "step");
        if (n < 0 || (size_t)n >= speclen)
            return tn_error(err, errlen, "path of %s too long", dcf_named[i].file);
        return 1;
    }
    return 0;
}

#define DCF_ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_
#define DCF(field) offsetof(dcf_params, field)

#define DCF_CLASS_ROWS(k)                                                                                         \
    {DCF_ROW("workload.class" #k ".share", "number", "", "", "dc-flows class " #k ": fraction of the flows (0..1)"), \
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = DCF(cls[k].share), .flags = PARAM_NONNEG | PARAM_UNSET0,          \
     .example = "0.5"},                                                                                            \
        {DCF_ROW("workload.class" #k ".size", "distribution(size)", "B", "",                                       \
                 "dc-flows class " #k ": flow sizes (Andujar et al. FLOWS: uniform(MIN,MAX))"),                          \
         .kind = PARAM_DIST, .dim = UNIT_SIZE, .off = DCF(cls[k].size), .flags = PARAM_NONNEG,                     \
         .example = "uniform(1kB,10kB)", .dist_name = dcf_size_name},                                              \
        {DCF_ROW("workload.class" #k ".destinations", "choice", "", "inherit",                                     \
                 "dc-flows class " #k ": inherit | uniform | gaussian | poisson"),                                 \
         .kind = PARAM_CHOICE, .off = DCF(cls[k].dest), .choices = dcf_class_dest_names, .example = "gaussian"},   \
    {                                                                                                              \
        DCF_ROW("workload.class" #k ".priority", "choice", "", "inherit",                                          \
                "dc-flows class " #k ": inherit (the data class, 1) | 0..7 (fabric class, 0 first)"),                                  \
            .kind = PARAM_CHOICE, .off = DCF(cls[k].prio), .choices = dcf_class_prio_names, .example = "0"         \
    }

static const param_row dcf_rows[] = {
    {DCF_ROW("workload.sizes", "distribution(size)", "B", "",
             "dc-flows: flow sizes: websearch | dctcp-websearch | fb-keyvalue | fb-cachefollower | fb-webserver | "
             "fb-hadoop | google-allrpc | google-searchrpc | alistorage | datamining | any distribution, e.g. "
             "empirical(file.csv); or classes"),
     .kind = PARAM_DIST, .dim = UNIT_SIZE, .off = DCF(sizes), .flags = PARAM_NONNEG, .example = "google-allrpc",
     .dist_name = dcf_size_name},
    {DCF_ROW("workload.load", "number", "", "", "dc-flows: offered load per node, a fraction of B (> 0); or load-rate, flow-rate"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = DCF(load), .flags = PARAM_POS | PARAM_UNSET0, .example = "0.5"},
    {DCF_ROW("workload.load-rate", "rate", "b/s", "", "dc-flows: offered load per node in bit/s (Andujar et al.'s LOAD); or load, flow-rate"),
     .kind = PARAM_REAL, .dim = UNIT_RATE, .off = DCF(load_rate_bps), .flags = PARAM_POS | PARAM_UNSET0,
     .example = "1Gb/s"},
    {DCF_ROW("workload.flow-rate", "frequency", "1/s", "", "dc-flows: flows per second per node (Poisson); or load, load-rate"),
     .kind = PARAM_REAL, .dim = UNIT_FREQ, .off = DCF(flow_rate_per_s), .flags = PARAM_POS | PARAM_UNSET0,
     .example = "23/s"},
    {DCF_ROW("workload.duration", "time", "s", "", "dc-flows: generate flows for this long (> 0); or workload.flows (required without a flow-list)"),
     .kind = PARAM_PS, .off = DCF(duration_ps), .flags = PARAM_POS | PARAM_UNSET0,
     .alt = "workload.flows", .example = "100us"},
    {DCF_ROW("workload.flows", "integer", "", "", "dc-flows: flows generated over all nodes (>= 1); or workload.duration"),
     .kind = PARAM_U64, .off = DCF(flows), .flags = PARAM_UNSET0, .min = 1, .max = UINT64_MAX,
     .alt = "workload.duration", .example = "1000"},
    {DCF_ROW("workload.destinations", "choice", "", "uniform", "dc-flows: uniform | gaussian | poisson (around destination-mean)"),
     .kind = PARAM_CHOICE, .off = DCF(dest), .choices = dcf_dest_names, .example = "gaussian"},
    {DCF_ROW("workload.destination-mean", "number", "", "0.5", "dc-flows: gaussian/poisson destinations: mean, a fraction of N (0..1)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = DCF(dest_mean), .flags = PARAM_NONNEG, .example = "0.5"},
    {DCF_ROW("workload.destination-sigma", "number", "", "0.125", "dc-flows: gaussian destinations: standard deviation, a fraction of N (> 0)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = DCF(dest_sigma), .flags = PARAM_POS, .example = "0.125"},
    {DCF_ROW("workload.small-max", "size", "B", "100kB", "dc-flows: small flows are below this size"),
     .kind = PARAM_BYTES, .off = DCF(small_max_bytes), .flags = PARAM_POS, .example = "100kB"},
    {DCF_ROW("workload.large-min", "size", "B", "10MB", "dc-flows: large flows are at least this size"),
     .kind = PARAM_BYTES, .off = DCF(large_min_bytes), .flags = PARAM_POS, .example = "10MB"},
    {DCF_ROW("workload.warmup", "time", "s", "0s", "dc-flows: flows arriving before this are not measured"),
     .kind = PARAM_PS, .off = DCF(warmup_ps), .flags = PARAM_NONNEG, .example = "2s"},
    {DCF_ROW("workload.cooldown", "time", "s", "0s", "dc-flows: flows arriving in the last cooldown of the duration are not measured"),
     .kind = PARAM_PS, .off = DCF(cooldown_ps), .flags = PARAM_NONNEG, .example = "2s"},
    DCF_CLASS_ROWS(0),
    DCF_CLASS_ROWS(1),
    DCF_CLASS_ROWS(2),
    DCF_CLASS_ROWS(3),
    {DCF_ROW("workload.flow-list", "file", "", "",
             "dc-flows: the flows themselves, CSV start_s,src,dst,bytes one flow a line (instead of load and sizes)"),
     .kind = PARAM_FILE, .off = DCF(flow_list), .example = "flow-list-example.csv"},
};

enum { DCF_METRICS(METRIC_ENUM) DCF_NMETRICS };
static const metric_def dcf_metrics_def[] = {DCF_METRICS(METRIC_DEF)};

#define DCF_LIVE 0x4446u /* net_msg.kind of a flow in flight ("DF") */
#define DCF_DEAD 0xdeadu /* once delivered and released */

typedef struct dcf_node {
    double next_ps;     /* exact time of the next arrival, ps */
    uint64_t generated; /* flows generated (the next one's seq) */
    uint64_t delivered;
    uint64_t gen_hash, dlv_hash; /* sums of h(seq), mod 2^64 */
} dcf_node;

typedef struct dcf_flow { /* one flow of a flow list */
    int64_t t_ps;
    uint32_t src, dst;
    uint64_t bytes;
    uint64_t line;
} dcf_flow;

typedef struct dcf_group {
    stats_sample fct_s, slowdown;
} dcf_group;

enum { DCF_SMALL = 0, DCF_MEDIUM, DCF_LARGE, DCF_BUCKETS };

typedef struct dcf {
    const dcf_params *p;
    sim *s;
    net *n;
    uint32_t nodes;
    double bandwidth_bps;
    double mean_gap_ps;       /* 1 / lambda */
    double offered_load;      /* fraction of B per node */
    int use_classes;          /* flag */
    const dcf_class_params *cls_p; /* [ncls]: the configuration's cls or a trace's classes */
    uint32_t ncls;
    double *cum_share;        /* [ncls] */
    net_msg_pool pool;
    gsl_rng *rng_arrivals, *rng_dst, *rng_size, *rng_class;
    dcf_node *node;           /* [N] */
    uint64_t generated, bytes_generated, delivered, bytes_delivered, bad, measured;
    int64_t first_gen_ps, last_dlv_ps;
    uint32_t sources_ended;   /* nodes whose generation has ended */
    int stopped;              /* stop(): generate nothing more (a background workload) */
    int64_t win_lo_ps, win_hi_ps; /* measured: arrival in [lo, hi) */
    int window;               /* measure="window": records kept until finish knows the foreground's window */
    struct dcf_rec *rec;      /* [nrec] the flows of [lo, hi) delivered, in delivery order (window only) */
    size_t nrec, caprec;
    int64_t fg_lo_ps, fg_hi_ps; /* the foreground's window, at finish (window only; -1: none) */
    uint64_t bytes_by_duration;
    dcf_group all, bucket[DCF_BUCKETS], *cls; /* cls[ncls] */
    dcf_flow *list;           /* [nlist] a flow list's flows in arrival order (NULL: generated) */
    size_t nlist, next;       /* flows in the list, the next to arrive */
    int up;
    struct trace *trace; /* the timeline (--trace; NULL: none): each flow a span, and its message */
} dcf;

/* A delivered flow of the workload's own window, kept for finish when the
 * foreground's window decides whether it counts (measure="window"). */
typedef struct dcf_rec {
    int64_t arrival_ps;
    double fct_s, slowdown;
    uint32_t cls;
    int bucket;
} dcf_rec;

static uint64_t dcf_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* The classes: a trace's list, else the configuration's <classK> rows. */
static const dcf_class_params *class_list(const dcf_params *p, uint32_t *n)
{
    *n = p->classes ? p->nclasses : DCF_CLASSES;
    return p->classes ? p->classes : p->cls;
}

static int classes_given(const dcf_params *p)
{
    uint32_t n;
    const dcf_class_params *c = class_list(p, &n);
    for (uint32_t k = 0; k < n; k++)
        if (c[k].share > 0)
            return 1;
    return 0;
}

/* The ranks that take part: tasks, else all of the workload's. */
static uint32_t dcf_ranks(const dcf_params *p, uint32_t nodes) { return p->tasks ? p->tasks : nodes; }

/* E[size] as sampled, bytes (0 when undefined). */
static double mean_size(const dcf_params *p)
{
    if (!classes_given(p))
        return p->sizes.text ? dist_mean(&p->sizes) : 0;
    double e = 0;
    uint32_t n;
    const dcf_class_params *c = class_list(p, &n);
    for (uint32_t k = 0; k < n; k++)
        if (c[k].share > 0 && c[k].size.text)
            e += c[k].share * dist_mean(&c[k].size);
    return e;
}

/* Flows per second per node (0 when B is unknown and needed). */
static double rate_per_node(const dcf_params *p, double B)
{
    double e = mean_size(p);
    if (p->flow_rate_per_s > 0)
        return p->flow_rate_per_s;
    if (!(e > 0))
        return 0;
    if (p->load_rate_bps > 0)
        return p->load_rate_bps / (8 * e);
    return B > 0 ? p->load * B / (8 * e) : 0;
}

/* ---- flow lists ---- */

static const char *list_path(const dcf_params *p) { return p->flow_list.path[0] ? p->flow_list.path : p->flow_list.text; }

static int flow_order(const void *a, const void *b)
{
    const dcf_flow *x = a, *y = b;
    if (x->t_ps != y->t_ps)
        return x->t_ps < y->t_ps ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Read a flow list (workload.flow-list; the rules in the head comment):
 * *out [*n] in arrival order (caller frees), ranks checked against
 * `ranks` (0: not checked). 0, or -1 + "file:line: what was expected". */
static int flow_list_read(const char *path, uint32_t ranks, dcf_flow **out, size_t *n, char *err, size_t errlen)
{
    char why[1200];
    *out = NULL;
    *n = 0;
    FILE *f = tn_open_input(path, "r", why, sizeof why);
    if (!f)
        return tn_error(err, errlen, "flow list: %s", why);
    char *line = NULL;
    size_t cap = 0, room = 0;
    int col[4] = {-1, -1, -1, -1}, header = 0, rc = 0; /* start, src, dst, bytes */
    static const char *const names[4][2] = {{"start_s", "start"}, {"src", "src"}, {"dst", "dst"}, {"bytes", "bytes"}};
    long lineno = 0;
    dcf_flow *v = NULL;
    char *fields[64];
    long got;
    while (rc == 0 && (got = csv_next_record(f, &line, &cap, &lineno, fields, 64)) >= 0) {
        size_t nf = (size_t)got;
        if (!header) {
            for (size_t i = 0; i < nf; i++)
                for (int k = 0; k < 4; k++)
                    if (col[k] < 0 && (strcmp(fields[i], names[k][0]) == 0 || strcmp(fields[i], names[k][1]) == 0))
                        col[k] = (int)i;
            header = 1;
            for (int k = 0; k < 4 && rc == 0; k++)
                if (col[k] < 0)
                    rc = tn_error(err, errlen, "%s:%ld: the header names no %s column (expected start_s,src,dst,bytes)",
                                  path, lineno, names[k][0]);
            continue;
        }
        double val[4];
        for (int k = 0; k < 4 && rc == 0; k++) {
            if ((size_t)col[k] >= nf) {
                rc = tn_error(err, errlen, "%s:%ld: %zu fields, expected a %s in field %d", path, lineno, nf,
                              names[k][0], col[k] + 1);
                break;
            }
            const char *t = fields[col[k]];
            char *end;
            val[k] = strtod(t, &end);
            while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
                end++;
            if (end == t || *end || !isfinite(val[k]))
                rc = tn_error(err, errlen, "%s:%ld: %s '%s' is not a number", path, lineno, names[k][0], t);
            else if (k == 0 && !(val[k] >= 0 && val[k] <= WL_HORIZON_S))
                rc = tn_error(err, errlen, "%s:%ld: start %s s is outside 0..%g s", path, lineno, t, WL_HORIZON_S);
            else if (k > 0 && (val[k] != floor(val[k]) || val[k] < (k == 3 ? 1 : 0) || val[k] > (k == 3 ? 0x1p53 : 0xffffffffp0)))
                rc = tn_error(err, errlen, "%s:%ld: %s '%s': expected an integer %s", path, lineno, names[k][0], t,
                              k == 3 ? ">= 1" : "rank >= 0");
        }
        if (rc)
            break;
        if (val[1] == val[2]) {
            rc = tn_error(err, errlen, "%s:%ld: a flow from rank %.0f to itself", path, lineno, val[1]);
            break;
        }
        if (ranks && (val[1] >= ranks || val[2] >= ranks)) {
            rc = tn_error(err, errlen, "%s:%ld: rank %.0f, and the workload has ranks 0..%u", path, lineno,
                          val[1] >= ranks ? val[1] : val[2], ranks - 1);
            break;
        }
        if (*n == room) {
            room = room ? 2 * room : 256;
            v = tn_xrealloc(v, room * sizeof *v);
        }
        v[*n] = (dcf_flow){.t_ps = units_s_to_ps(val[0]), .src = (uint32_t)val[1], .dst = (uint32_t)val[2],
                           .bytes = (uint64_t)val[3], .line = (uint64_t)lineno};
        (*n)++;
    }
    if (rc == 0 && ferror(f))
        rc = tn_error(err, errlen, "%s: read error", path);
    if (rc == 0 && !header)
        rc = tn_error(err, errlen, "%s: no header (expected start_s,src,dst,bytes)", path);
    if (rc == 0 && *n == 0)
        rc = tn_error(err, errlen, "%s: no flows after the header", path);
    free(line);
    fclose(f);
    if (rc) {
        free(v);
        *n = 0;
        return -1;
    }
    qsort(v, *n, sizeof *v, flow_order);
    *out = v;
    return 0;
}

/* The flows of a list that arrive (duration, flows): count, bytes, the
 * largest and the last arrival. -1 when it cannot be read. */
typedef struct dcf_list_sum {
    double count, bytes, biggest;
    int64_t last_ps;
} dcf_list_sum;

static size_t list_used(const dcf_params *p, const dcf_flow *v, size_t n)
{
    size_t k = 0;
    while (k < n && (p->duration_ps == 0 || v[k].t_ps < p->duration_ps) && (p->flows == 0 || k < p->flows))
        k++;
    return k;
}

static int list_summary(const dcf_params *p, dcf_list_sum *s)
{
    char e[512];
    dcf_flow *v;
    size_t n;
    memset(s, 0, sizeof *s);
    if (flow_list_read(list_path(p), 0, &v, &n, e, sizeof e) != 0)
        return -1;
    size_t k = list_used(p, v, n);
    for (size_t i = 0; i < k; i++) {
        s->bytes += (double)v[i].bytes;
        if ((double)v[i].bytes > s->biggest)
            s->biggest = (double)v[i].bytes;
        s->last_ps = v[i].t_ps;
    }
    s->count = (double)k;
    free(v);
    return 0;
}

static void dcf_check(const net_params *core, const void *params, param_report *rep)
{
    const dcf_params *p = params;
    int nload = (p->load > 0) + (p->load_rate_bps > 0) + (p->flow_rate_per_s > 0);
    if (p->flow_list.text[0]) {
        /* the flows are the list's: nothing to draw */
        if (nload)
            param_invalid(rep, p->load > 0 ? "workload.load" : p->load_rate_bps > 0 ? "workload.load-rate" : "workload.flow-rate",
                          "a flow list gives the flows' arrivals: no load");
        if (p->sizes.text)
            param_invalid(rep, "workload.sizes", "a flow list gives the flows' sizes");
        if (classes_given(p))
            param_invalid(rep, "workload.class0.share", "a flow list gives the flows: no classes");
        if (p->tasks)
            param_invalid(rep, "workload.flow-list", "a trace's tasks and a flow list do not go together");
        if (core->nodes >= 2) {
            char e[1024];
            dcf_flow *v;
            size_t n;
            if (flow_list_read(list_path(p), dcf_ranks(p, core->nodes), &v, &n, e, sizeof e) != 0)
                param_invalid(rep, "workload.flow-list", "%s", e);
            else
                free(v);
        }
    } else if (p->duration_ps == 0 && p->flows == 0) {
        param_missing(rep, "workload.duration", "dc-flows: generate flows for this long (> 0); or workload.flows (required without a flow-list)");
    }
    if (nload == 0 && !p->flow_list.text[0])
        param_missing(rep, "workload.load", "dc-flows: the offered load per node, or workload.load-rate or workload.flow-rate");
    else if (nload > 1 && !p->flow_list.text[0])
        param_invalid(rep, p->flow_rate_per_s > 0 ? "workload.flow-rate" : "workload.load-rate",
                      "give one of workload.load, workload.load-rate and workload.flow-rate");
    int cls = classes_given(p);
    if (!cls && !p->sizes.text && !p->flow_list.text[0])
        param_missing(rep, "workload.sizes", "dc-flows: flow sizes, or <class0 share=.. size=..> classes");
    if (cls) {
        static const char *const share_path[] = {"workload.class0.share", "workload.class1.share",
                                                 "workload.class2.share", "workload.class3.share"};
        static const char *const size_path[] = {"workload.class0.size", "workload.class1.size",
                                                "workload.class2.size", "workload.class3.size"};
        if (p->sizes.text)
            param_invalid(rep, "workload.sizes", "give flow sizes or classes, not both");
        double sum = 0;
        uint32_t n;
        const dcf_class_params *c = class_list(p, &n);
        for (uint32_t k = 0; k < n; k++) {
            sum += c[k].share;
            /* a trace's classes (p->classes) are the trace file's */
            const char *sp = p->classes ? "workload.file" : share_path[k], *zp = p->classes ? "workload.file" : size_path[k];
            if (c[k].share > 1)
                param_invalid(rep, sp, "a share is a fraction of the flows, at most 1 (got %g)", c[k].share);
            if (c[k].share > 0 && !c[k].size.text)
                param_missing(rep, zp, "dc-flows: the sizes of a class with a share");
        }
        if (fabs(sum - 1) > 1e-9)
            param_invalid(rep, p->classes ? "workload.file" : "workload.class0.share", "the classes' shares sum to %.12g, not 1", sum);
    }
    if (p->dest_mean > 1)
        param_invalid(rep, "workload.destination-mean", "a fraction of N, at most 1 (got %g)", p->dest_mean);
    if (p->small_max_bytes > p->large_min_bytes)
        param_invalid(rep, "workload.small-max", "small flows (< %llu B) would overlap large ones (>= %llu B)",
                      (unsigned long long)p->small_max_bytes, (unsigned long long)p->large_min_bytes);
    if (p->cooldown_ps > 0 && p->duration_ps == 0)
        param_invalid(rep, "workload.cooldown", "a cool-down is counted back from workload.duration");
    if (p->duration_ps > 0 && p->warmup_ps + p->cooldown_ps >= p->duration_ps)
        param_invalid(rep, "workload.warmup", "warm-up and cool-down leave no measurement window in the duration");
    if (core->nodes > 0 && core->nodes < 2)
        param_invalid(rep, "system.nodes", "dc-flows needs at least 2 nodes");
    if (p->tasks == 1 || (p->tasks > 0 && core->nodes > 0 && p->tasks > core->nodes))
        param_invalid(rep, "workload.file", "%u tasks: dc-flows needs 2 to %u (the workload's nodes)", p->tasks,
                      core->nodes);
}

/* ---- generation ---- */

static void dcf_arrival(sim *s, void *ctx, uint64_t arg);

/* Node i's next arrival, or the end of its generation. */
static void dcf_schedule_next(dcf *w, uint32_t i)
{
    dcf_node *nd = &w->node[i];
    if (w->stopped || (w->p->flows > 0 && w->generated >= w->p->flows)) {
        w->sources_ended++;
        return;
    }
    nd->next_ps += gsl_ran_exponential(w->rng_arrivals, w->mean_gap_ps);
    TN_ASSERT(nd->next_ps < 0x1p62, "node %u: next arrival at %g ps overflows the clock", i, nd->next_ps);
    int64_t t = llround(nd->next_ps);
    if (w->p->duration_ps > 0 && t >= w->p->duration_ps) {
        w->sources_ended++;
        return;
    }
    sim_schedule_at(w->s, t, dcf_arrival, w, i);
}

static uint32_t uniform_other(dcf *w, uint32_t src)
{
    uint32_t d = (uint32_t)gsl_rng_uniform_int(w->rng_dst, w->nodes - 1);
    return d >= src ? d + 1 : d;
}

static uint32_t draw_destination(dcf *w, uint32_t src, int mode)
{
    if (mode == DCF_UNIFORM)
        return uniform_other(w, src);
    double mu = w->p->dest_mean * w->nodes, sigma = w->p->dest_sigma * w->nodes;
    for (int k = 0; k < DCF_REDRAWS; k++) {
        double x = mode == DCF_GAUSSIAN ? nearbyint(mu + gsl_ran_gaussian(w->rng_dst, sigma))
                                        : (double)gsl_ran_poisson(w->rng_dst, mu);
        if (x >= 0 && x <= (double)(w->nodes - 1) && (uint32_t)x != src)
            return (uint32_t)x;
    }
    return uniform_other(w, src);
}

static void dcf_arrival(sim *s, void *ctx, uint64_t arg)
{
    dcf *w = ctx;
    uint32_t src = (uint32_t)arg;
    if (w->stopped || (w->p->flows > 0 && w->generated >= w->p->flows)) {
        w->sources_ended++; /* another node generated the last flow, or a background stop */
        return;
    }
    dcf_node *nd = &w->node[src];
    int k = 0;
    const dist *size = &w->p->sizes;
    int dest = w->p->dest;
    unsigned prio = NET_PRIO_LOW;
    if (w->use_classes) {
        double u = gsl_rng_uniform(w->rng_class);
        while ((uint32_t)k < w->ncls - 1 && (u >= w->cum_share[k] || w->cls_p[k].share <= 0))
            k++;
        const dcf_class_params *c = &w->cls_p[k];
        size = &c->size;
        if (c->dest)
            dest = c->dest - 1;
        if (c->prio)
            prio = (unsigned)(c->prio - 1);
    }
    uint32_t dst = draw_destination(w, src, dest);
    double x = dist_sample(size, w->rng_size);
    uint64_t bytes = x < 1.5 ? 1 : (uint64_t)llround(x);

    net_msg *m = net_msg_alloc(&w->pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = bytes;
    m->cls = NET_DATA;
    m->prio = (uint8_t)prio;
    m->kind = DCF_LIVE;
    m->a = (uint32_t)k;
    m->b = nd->generated;
    nd->gen_hash += dcf_mix(nd->generated);
    nd->generated++;
    w->generated++;
    w->bytes_generated += bytes;
    if (w->first_gen_ps < 0)
        w->first_gen_ps = sim_now(s);
    net_send(w->n, m);
    dcf_schedule_next(w, src);
}

/* The next flow of a list, and the one after it (or the end of the list). */
static void dcf_list_arrival(sim *s, void *ctx, uint64_t arg)
{
    dcf *w = ctx;
    (void)arg;
    if (w->stopped) {
        w->sources_ended = w->nodes;
        return;
    }
    const dcf_flow *fl = &w->list[w->next++];
    dcf_node *nd = &w->node[fl->src];
    net_msg *m = net_msg_alloc(&w->pool);
    m->src = fl->src;
    m->dst = fl->dst;
    m->size_bytes = fl->bytes;
    m->cls = NET_DATA;
    m->prio = NET_PRIO_LOW;
    m->kind = DCF_LIVE;
    m->a = 0;
    m->b = nd->generated;
    nd->gen_hash += dcf_mix(nd->generated);
    nd->generated++;
    w->generated++;
    w->bytes_generated += fl->bytes;
    if (w->first_gen_ps < 0)
        w->first_gen_ps = sim_now(s);
    net_send(w->n, m);
    if (w->next < w->nlist)
        sim_schedule_at(w->s, w->list[w->next].t_ps, dcf_list_arrival, w, 0);
    else
        w->sources_ended = w->nodes;
}

static void group_add(dcf_group *g, double fct_s, double slowdown)
{
    stats_sample_add(&g->fct_s, fct_s);
    stats_sample_add(&g->slowdown, slowdown);
}

static void dcf_deliver(void *state, net_msg *m)
{
    dcf *w = state;
    int64_t now = sim_now(w->s);
    if (m->kind != DCF_LIVE || m->src >= w->nodes || m->dst >= w->nodes || m->src == m->dst ||
        m->a >= w->ncls) {
        w->bad++;
        return;
    }
    if (w->trace) {
        /* the flow, arrival to its last byte, on its source's track; and its message */
        const char *size = m->size_bytes < w->p->small_max_bytes    ? "small flow"
                           : m->size_bytes >= w->p->large_min_bytes ? "large flow"
                                                                    : "medium flow";
        trace_span(w->trace, m->src, "flow", size, m->id, m->src, m->t_submit_ps, now, m->size_bytes);
        trace_message(w->trace, m->src, m->dst, "flow", m->size_bytes, TRACE_NO_JOB, m->t_submit_ps, now);
    }
    dcf_node *nd = &w->node[m->src];
    nd->delivered++;
    nd->dlv_hash += dcf_mix(m->b);
    w->delivered++;
    w->bytes_delivered += m->size_bytes;
    w->last_dlv_ps = now;
    if (w->p->duration_ps > 0 && now <= w->p->duration_ps)
        w->bytes_by_duration += m->size_bytes;
    int64_t t0 = m->t_submit_ps;
    if (t0 >= w->win_lo_ps && t0 < w->win_hi_ps) {
        int64_t fct = now - t0;
        int64_t alone = net_zero_load_ps(w->n, m->src, m->dst, m->size_bytes);
        double fct_s = units_ps_to_s(fct), slow = alone > 0 ? (double)fct / (double)alone : NAN;
        int b = m->size_bytes < w->p->small_max_bytes ? DCF_SMALL
                : m->size_bytes >= w->p->large_min_bytes ? DCF_LARGE
                                                          : DCF_MEDIUM;
        if (w->window) { /* counted at finish if it arrived in the foreground's window */
            if (w->nrec == w->caprec) {
                w->caprec = w->caprec ? 2 * w->caprec : 256;
                w->rec = tn_xrealloc(w->rec, w->caprec * sizeof *w->rec);
            }
            w->rec[w->nrec++] = (dcf_rec){t0, fct_s, slow, m->a, b};
            m->kind = DCF_DEAD;
            net_msg_release(&w->pool, m);
            return;
        }
        group_add(&w->all, fct_s, slow);
        group_add(&w->bucket[b], fct_s, slow);
        group_add(&w->cls[m->a], fct_s, slow);
        w->measured++;
    }
    m->kind = DCF_DEAD;
    net_msg_release(&w->pool, m);
}

/* ---- life cycle ---- */

static void group_init(dcf_group *g)
{
    stats_sample_init(&g->fct_s);
    stats_sample_init(&g->slowdown);
}

static void group_free(dcf_group *g)
{
    stats_sample_free(&g->fct_s);
    stats_sample_free(&g->slowdown);
}

static int dcf_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    dcf *w = state;
    const dcf_params *p = env->params;
    memset(w, 0, sizeof *w);
    char e2[512];
    param_first first;
    net_params core = {.nodes = env->nodes, .bandwidth_bps = env->bandwidth_bps};
    dcf_check(&core, p, param_report_first(&first, e2, sizeof e2));
    if (first.rep.n)
        return tn_error(err, errlen, "dc-flows: %s", e2);
    if (!env->sim || !env->net || env->net->params.nodes != env->nodes)
        return tn_error(err, errlen, "dc-flows needs an engine and a network of %u nodes", env->nodes);
    uint32_t nodes = dcf_ranks(p, env->nodes);
    double lambda = rate_per_node(p, env->bandwidth_bps);
    double gap_ps = 1e12 / lambda;
    dcf_flow *list = NULL;
    size_t nlist = 0;
    if (p->flow_list.text[0]) {
        if (flow_list_read(list_path(p), nodes, &list, &nlist, err, errlen) != 0)
            return -1;
        nlist = list_used(p, list, nlist);
        gap_ps = 0;
    } else if (!(lambda > 0) || !(gap_ps > 0) || !isfinite(gap_ps))
        return tn_error(err, errlen, "dc-flows: flow rate %g /s per node is out of range", lambda);
    w->p = p;
    w->s = env->sim;
    w->trace = env->trace;
    w->n = env->net;
    w->nodes = nodes;
    w->bandwidth_bps = env->bandwidth_bps;
    w->mean_gap_ps = gap_ps;
    w->offered_load = lambda * 8 * mean_size(p) / env->bandwidth_bps;
    w->list = list;
    w->nlist = nlist;
    if (list) {
        double bytes = 0;
        for (size_t i = 0; i < nlist; i++)
            bytes += (double)list[i].bytes;
        double T = p->duration_ps > 0 ? units_ps_to_s(p->duration_ps) : nlist ? units_ps_to_s(list[nlist - 1].t_ps) : 0;
        w->offered_load = T > 0 ? 8 * bytes / ((double)nodes * env->bandwidth_bps * T) : NAN;
    }
    w->use_classes = classes_given(p);
    w->cls_p = class_list(p, &w->ncls);
    w->cum_share = tn_xcalloc(w->ncls, sizeof *w->cum_share);
    w->cls = tn_xcalloc(w->ncls, sizeof *w->cls);
    double cum = 0;
    for (uint32_t k = 0; k < w->ncls; k++) {
        cum += w->cls_p[k].share;
        w->cum_share[k] = cum;
    }
    w->first_gen_ps = -1;
    w->last_dlv_ps = -1;
    w->win_lo_ps = p->warmup_ps;
    w->win_hi_ps = p->duration_ps > 0 ? p->duration_ps - p->cooldown_ps : INT64_MAX;
    w->window = env->measure_window;
    w->fg_lo_ps = w->fg_hi_ps = -1;
    w->node = tn_xcalloc(nodes, sizeof *w->node);
    net_msg_pool_init(&w->pool);
    w->rng_arrivals = wl_stream(env, "dc-flows.arrivals");
    w->rng_dst = wl_stream(env, "dc-flows.destinations");
    w->rng_size = wl_stream(env, "dc-flows.sizes");
    w->rng_class = wl_stream(env, "dc-flows.classes");
    group_init(&w->all);
    for (int b = 0; b < DCF_BUCKETS; b++)
        group_init(&w->bucket[b]);
    for (uint32_t k = 0; k < w->ncls; k++)
        group_init(&w->cls[k]);
    w->up = 1;
    if (list) {
        if (nlist)
            sim_schedule_at(w->s, list[0].t_ps, dcf_list_arrival, w, 0);
        else
            w->sources_ended = w->nodes; /* every flow of the list is past the duration */
        return 0;
    }
    for (uint32_t i = 0; i < w->nodes; i++)
        dcf_schedule_next(w, i);
    return 0;
}

static int dcf_verify(const dcf *w, char *err, size_t errlen)
{
    if (w->bad)
        return tn_error(err, errlen, "dc-flows: %llu deliveries of flows already delivered, unknown or to their source",
                        (unsigned long long)w->bad);
    for (uint32_t i = 0; i < w->nodes; i++) {
        const dcf_node *nd = &w->node[i];
        if (nd->delivered != nd->generated || nd->dlv_hash != nd->gen_hash)
            return tn_error(err, errlen, "dc-flows: node %u generated %llu flows, %llu deliveries: not each exactly once",
                            i, (unsigned long long)nd->generated, (unsigned long long)nd->delivered);
    }
    if (w->pool.live != 0)
        return tn_error(err, errlen, "dc-flows: %llu flows still in flight", (unsigned long long)w->pool.live);
    if (w->bytes_delivered != w->bytes_generated)
        return tn_error(err, errlen, "dc-flows: %llu bytes generated, %llu delivered",
                        (unsigned long long)w->bytes_generated, (unsigned long long)w->bytes_delivered);
    if (w->p->flows > 0 && w->generated != w->p->flows && !w->list)
        return tn_error(err, errlen, "dc-flows: %llu of %llu flows generated", (unsigned long long)w->generated,
                        (unsigned long long)w->p->flows);
    return 0;
}

/* Count, FCT and slowdown statistics of a group into m[base..base+6] (NAN when empty). */
static void group_fill(dcf_group *g, double *m, size_t base)
{
    m[base] = (double)g->fct_s.n;
    if (!g->fct_s.n)
        return;
    m[base + 1] = stats_acc_mean(&g->fct_s.acc);
    m[base + 2] = stats_sample_quantile(&g->fct_s, 0.5);
    m[base + 3] = stats_sample_quantile(&g->fct_s, 0.99);
    m[base + 4] = stats_acc_mean(&g->slowdown.acc);
    m[base + 5] = stats_sample_quantile(&g->slowdown, 0.5);
    m[base + 6] = stats_sample_quantile(&g->slowdown, 0.99);
}

static int dcf_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    dcf *w = state;
    if (dcf_verify(w, err, errlen) != 0)
        return -1;
    if (w->window) {
        /* measure="window": the flows that arrived in [first foreground
         * activity, foreground's end), in delivery order as ever */
        w->fg_lo_ps = v ? v->fg_first_ps : -1;
        w->fg_hi_ps = v ? v->fg_end_ps : -1;
        for (size_t i = 0; i < w->nrec; i++) {
            const dcf_rec *r = &w->rec[i];
            if (w->fg_lo_ps < 0 || r->arrival_ps < w->fg_lo_ps || r->arrival_ps >= w->fg_hi_ps)
                continue;
            group_add(&w->all, r->fct_s, r->slowdown);
            group_add(&w->bucket[r->bucket], r->fct_s, r->slowdown);
            group_add(&w->cls[r->cls], r->fct_s, r->slowdown);
            w->measured++;
        }
        m[M_window_start_s] = w->fg_lo_ps >= 0 ? units_ps_to_s(w->fg_lo_ps) : NAN;
        m[M_window_end_s] = w->fg_lo_ps >= 0 ? units_ps_to_s(w->fg_hi_ps) : NAN;
    }
    m[M_flows_generated] = (double)w->generated;
    m[M_flows_measured] = (double)w->measured;
    if (w->all.fct_s.n) {
        m[M_fct_mean_s] = stats_acc_mean(&w->all.fct_s.acc);
        m[M_fct_p50_s] = stats_sample_quantile(&w->all.fct_s, 0.5);
        m[M_fct_p99_s] = stats_sample_quantile(&w->all.fct_s, 0.99);
        m[M_fct_slowdown_mean] = stats_acc_mean(&w->all.slowdown.acc);
        m[M_fct_slowdown_p50] = stats_sample_quantile(&w->all.slowdown, 0.5);
        m[M_fct_slowdown_p99] = stats_sample_quantile(&w->all.slowdown, 0.99);
    }
    group_fill(&w->bucket[DCF_SMALL], m, M_flows_small);
    group_fill(&w->bucket[DCF_MEDIUM], m, M_flows_medium);
    group_fill(&w->bucket[DCF_LARGE], m, M_flows_large);
    static const size_t cls_base[DCF_CLASSES] = {M_flows_class0, M_flows_class1, M_flows_class2, M_flows_class3};
    for (uint32_t k = 0; k < DCF_CLASSES && k < w->ncls; k++) /* per class metrics: the first four */
        if (w->use_classes ? w->cls_p[k].share > 0 : k == 0)
            group_fill(&w->cls[k], m, cls_base[k]);
    m[M_execution_time_s] = w->last_dlv_ps >= 0 ? units_ps_to_s(w->last_dlv_ps) : 0;
    m[M_offered_load] = w->offered_load;
    if (w->p->duration_ps > 0)
        m[M_throughput] = 8.0 * (double)w->bytes_by_duration /
                          ((double)w->nodes * w->bandwidth_bps * units_ps_to_s(w->p->duration_ps));
    if (w->generated) {
        span->first_ps = w->first_gen_ps;
        span->last_ps = w->last_dlv_ps;
    }
    return 0;
}

/* Every node's generation has ended (or the flow count is reached: the
 * other nodes' arrivals still pending send nothing, and none of them comes
 * with a delivery, where run.c asks) and every flow arrived. */
static int dcf_finished(const void *state)
{
    const dcf *w = state;
    int ended = w->sources_ended == w->nodes || (!w->list && w->p->flows > 0 && w->generated >= w->p->flows);
    return ended && w->delivered == w->generated;
}

static void dcf_stop(void *state) { ((dcf *)state)->stopped = 1; }

static void dcf_fini(void *state)
{
    dcf *w = state;
    if (!w->up)
        return;
    free(w->node);
    free(w->list);
    net_msg_pool_free(&w->pool);
    gsl_rng_free(w->rng_arrivals);
    gsl_rng_free(w->rng_dst);
    gsl_rng_free(w->rng_size);
    gsl_rng_free(w->rng_class);
    group_free(&w->all);
    for (int b = 0; b < DCF_BUCKETS; b++)
        group_free(&w->bucket[b]);
    for (uint32_t k = 0; k < w->ncls; k++)
        group_free(&w->cls[k]);
    free(w->cls);
    free(w->cum_share);
    free(w->rec);
    w->up = 0;
}

/* The run must fit in the clock: the largest flow at B, and with a flow
 * count the time the nodes need to generate them. */
static int dcf_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    const dcf_params *p = params;
    double B = rc->net->bandwidth_bps;
    if (!(B > 0))
        return 0;
    if (p->flow_list.text[0]) {
        dcf_list_sum ls;
        if (list_summary(p, &ls) != 0)
            return 0; /* check says why */
        if (8 * ls.biggest / B > WL_HORIZON_S)
            return tn_error(err, errlen, "dc-flows: a flow of %g B takes %.3g s at %g b/s, more than the %g s a run can span",
                            ls.biggest, 8 * ls.biggest / B, B, WL_HORIZON_S);
        return 0;
    }
    double biggest = p->sizes.text ? dist_practical_max(&p->sizes) : 0;
    uint32_t ncls;
    const dcf_class_params *c = class_list(p, &ncls);
    for (uint32_t k = 0; k < ncls; k++)
        if (c[k].share > 0 && c[k].size.text && dist_practical_max(&c[k].size) > biggest)
            biggest = dist_practical_max(&c[k].size);
    uint32_t N = dcf_ranks(p, rc->nodes);
    if (8 * biggest / B > WL_HORIZON_S)
        return tn_error(err, errlen, "dc-flows: a flow of %g B takes %.3g s at %g b/s, more than the %g s a run can span",
                        biggest, 8 * biggest / B, B, WL_HORIZON_S);
    double lambda = rate_per_node(p, B);
    if (p->flows > 0 && lambda > 0 && N > 0 && (double)p->flows / (lambda * N) > WL_HORIZON_S)
        return tn_error(err, errlen, "dc-flows: %llu flows at %g flows/s per node span %.3g s, more than the %g s a run "
                        "can span", (unsigned long long)p->flows, lambda, (double)p->flows / (lambda * N),
                        WL_HORIZON_S);
    return 0;
}

/* Flows expected in a run: workload.flows, or lambda N D for a duration. */
static double dcf_flows_expected(const dcf_params *p, double lambda, double N)
{
    return p->duration_ps > 0 ? lambda * N * units_ps_to_s(p->duration_ps) : (double)p->flows;
}

/* Every flow is alive from its arrival to its delivery: below the fabric's
 * saturation throughput (its uniform-random bound u) a few per node at
 * once, above it, at an overload x = load / u, a fraction 1 - 1/x of all
 * of them waits at the end of generation (as uniform-random). Each
 * measured flow keeps its FCT and slowdown in `all`, in its size bucket
 * and in its class (two doubles each, in arrays grown by doubling: 1.5
 * times that on average). Generation lasts flows / (lambda N), or the
 * duration; an overloaded fabric takes x times as long to drain it. */
static void dcf_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const dcf_params *p = params;
    double B = rc->net->bandwidth_bps, N = dcf_ranks(p, rc->nodes), lambda = rate_per_node(p, B), e = mean_size(p);
    dcf_list_sum ls;
    if (p->flow_list.text[0] && list_summary(p, &ls) == 0 && ls.count > 0) {
        /* a list: its flows (all alive at once at worst), arrivals until its last, drained at B per node */
        out->messages = ls.count;
        out->mem_bytes = sizeof(dcf) + N * sizeof(dcf_node) + ls.count * (sizeof(dcf_flow) + sizeof(net_msg)) +
                         ls.count * 2 * 2 * 1.5 * sizeof(double);
        out->horizon_s = units_ps_to_s(ls.last_ps) + (B > 0 ? 8 * ls.bytes / B : 0) + (double)rc->msg_fixed_ps * 1e-12;
        return;
    }
    if (!(lambda > 0) || !(N > 0))
        return;
    double total = dcf_flows_expected(p, lambda, N), load = B > 0 ? lambda * 8 * e / B : 0;
    double x = load / (rc->fabric_bound > 0 ? rc->fabric_bound : 1);
    double live = 4 * N + (x > 1 ? total * (1 - 1 / x) : 0);
    if (live > total)
        live = total;
    double groups = classes_given(p) ? 3 : 2;
    out->messages = total;
    out->mem_bytes =
        sizeof(dcf) + N * sizeof(dcf_node) + live * sizeof(net_msg) + total * groups * 2 * 1.5 * sizeof(double);
    if (rc->measure_window) /* the records kept until finish, grown by doubling */
        out->mem_bytes += total * 1.5 * sizeof(dcf_rec);
    double T = p->duration_ps > 0 ? units_ps_to_s(p->duration_ps) : total / (lambda * N);
    out->horizon_s = T * (x > 1 ? x : 1) + (double)rc->msg_fixed_ps * 1e-12;
}

static void dcf_analyze(const void *params, const wl_resolve *rc, wl_analysis *out)
{
    const dcf_params *p = params;
    double B = rc->net->bandwidth_bps, e = mean_size(p), lambda = rate_per_node(p, B);
    double load = B > 0 ? lambda * 8 * e / B : NAN;
    dcf_list_sum ls;
    if (p->flow_list.text[0] && list_summary(p, &ls) == 0 && ls.count > 0) {
        double N = dcf_ranks(p, rc->nodes);
        double T = p->duration_ps > 0 ? units_ps_to_s(p->duration_ps) : units_ps_to_s(ls.last_ps);
        e = ls.bytes / ls.count;
        lambda = T > 0 && N > 0 ? ls.count / (N * T) : NAN;
        load = T > 0 && N > 0 && B > 0 ? 8 * ls.bytes / (N * B * T) : NAN;
        wl_analysis_add(out, "mean_flow_bytes", e);
        wl_analysis_add(out, "flows_per_s_per_node", lambda);
        wl_analysis_add(out, "offered_load", load);
        wl_analysis_add(out, "flows_expected", ls.count);
        snprintf(out->text, sizeof out->text,
                 "  flow list  %.0f flows  mean %.6g B  %.6g /s per node  offered load=%.6g of B\n", ls.count, e,
                 lambda, load);
        return;
    }
    wl_analysis_add(out, "mean_flow_bytes", e);
    wl_analysis_add(out, "flows_per_s_per_node", lambda);
    wl_analysis_add(out, "offered_load", load);
    double expected = dcf_flows_expected(p, lambda, dcf_ranks(p, rc->nodes));
    wl_analysis_add(out, "flows_expected", expected);
    snprintf(out->text, sizeof out->text,
             "  flows     E[size]=%.6g B  lambda=%.6g /s per node  offered load=%.6g of B  flows=%.6g\n", e, lambda,
             load, expected);
}

static const wl_column dcf_table[] = {
    {"offered_load", "offered"},
    {"flows_measured", "flows"},
    {"fct_mean_s", "fct_s"},
    {"fct_p99_s", "fct_p99_s"},
    {"fct_slowdown_mean", "slowdown"},
    {"fct_slowdown_p99", "slowdown_p99"},
    {NULL, NULL},
};

const wl_ops wl_dc_flows_ops = {
    .name = "dc-flows",
    .description = "datacenter flows: Poisson arrivals per node at a load, published size distributions or FLOWS "
                   "classes, uniform/gaussian/poisson destinations; FCT and slowdown (Andujar et al.; Gao 2020)",
    .state_size = sizeof(dcf),
    .params = dcf_rows,
    .nparams = sizeof dcf_rows / sizeof dcf_rows[0],
    .params_size = sizeof(dcf_params),
    .check = dcf_check,
    .resolve = dcf_resolve,
    .analyze = dcf_analyze,
    .estimate = dcf_estimate,
    .init = dcf_init,
    .deliver = dcf_deliver,
    .finish = dcf_finish,
    .fini = dcf_fini,
    .finished = dcf_finished,
    .stop = dcf_stop,
    .shares_nodes = 1,
    .measures_window = 1,
    .metrics = dcf_metrics_def,
    .nmetrics = DCF_NMETRICS,
    .table = dcf_table,
    .plot_y = "fct_slowdown_mean",
};
