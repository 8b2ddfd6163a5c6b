/* The training workload: data-parallel synchronous SGD with Horovod's ring
 * allreduce of fused tensors (issue 12 item 3; seed 002 ch. 4-5, seed 000
 * sec. 3.3).
 *
 * Model (seed 002 sec. 4.2-4.5 unless said):
 *   - W workers, its ranks 0..W-1 (nodes 0..W-1 alone, or the nodes its
 *     <workload nodes=> maps them to), on a logical ring: rank r sends to
 *     rank (r + 1) mod W.
 *   - L layers, layer i with P_i gradient bytes, forward time F_i, backward
 *     time B_i. Generated as the thesis does (sec. 4.4, Table 4.1): total
 *     compute-time T_c (a constant: the row is shared with the kernel
 *     workload, which takes a distribution) split forward:backward =
 *     1:backward-ratio (1:2, sec.
 *     3.6), both arithmetic progressions, forward decreasing and backward
 *     increasing with the layer index: F_i = F_0 (1 - (1 - r) i / (L - 1)),
 *     r = time-ratio = F_{L-1} / F_0 (the thesis gives no value; 0.5 is
 *     ours), sum F_i = T_c / (1 + backward-ratio), B_i = (backward-ratio)
 *     F_{L-1-i}. Sizes: model-size M split by layer-sizes = resnet50 (the
 *     thesis divides M "according to the parameter size distribution" of
 *     ResNet-50, its Fig. 3.4: here the published architecture,
 *     configs/data/resnet50-layers.csv, resampled by depth: layer i of L
 *     holds the parameters of the depth slice [i/L, (i+1)/L) of ResNet-50's
 *     107 layers, each layer's parameters spread evenly over its slice,
 *     P_i = round(M C((i+1)/L)) - round(M C(i/L)), C the cumulative
 *     fraction, so the P_i sum to M exactly) or uniform (M / L, the
 *     remainder one byte each to the highest layers). Or layers-file: a
 *     CSV with a size_bytes column (forward order) and optionally
 *     forward_s and backward_s (else the times are generated over its
 *     rows); model-size, when given, rescales its sizes. Times are rounded
 *     to the picosecond once.
 *   - Tensor fusion (Horovod's; seed 002 sec. 4.5: tensors are mapped to
 *     fusions at initialisation, and sec. 5.1: a layer is never split):
 *     walking the layers from L-1 down to 0, a layer joins the open fusion
 *     while the fusion stays within fusion-buffer bytes, else it opens the
 *     next (a layer larger than the buffer is a fusion of its own;
 *     fusion-buffer 0: one fusion per layer). A fusion's index and
 *     priority is its lowest layer index (sec. 4.3).
 *   - Compute, per worker: forward F_0 .. F_{L-1}, then backward B_{L-1}
 *     .. B_0 back to back. A fusion is ready when the backward of its
 *     lowest layer ends. Forward of layer i of iteration j > 0 starts when
 *     the compute before it has ended and (barrier on) every allreduce of
 *     iteration j-1 has completed, or (barrier off) the allreduce holding
 *     layer i has (sec. 4.3.1, Fig. 4.5). Compute and communication
 *     overlap (a worker's GPU computes while its NIC sends). overlap = off
 *     (ours, for seed 000 sec. 3.3's HOROVOD steps 1-5, which run a layer's
 *     compute, negotiation and allreduce one after the other): the
 *     backward of layer i starts only when the fusion layer i+1 made ready
 *     (if it made one) has completed its allreduce.
 *   - Coordinator (Horovod's rank-0 negotiation, seed 002's "global
 *     syncer", sec. 5.2.2: no messages, no time, unless negotiation =
 *     vef): a fusion is eligible when it is ready on every worker. One
 *     allreduce is on the wire at a time (sec. 4.5); when none is and some
 *     fusion is eligible, the transmission queue picks: fifo = the first to
 *     become eligible, priority = the lowest index (sec. 4.3), never
 *     preempting the allreduce in progress.
 *   - Ring allreduce of S bytes (sec. 4.2, 5.2.1): chunks c_m = floor(S/W)
 *     (+1 for m < S mod W), m = 0..W-1; 2(W-1) steps; at step t rank r
 *     sends chunk (r - t) mod W to rank r+1 as one message; rank r sends
 *     step 0 when the allreduce starts and step t+1 when it has received
 *     step t from rank r-1 (the reduction takes no time, sec. 5.2.1). The
 *     allreduce completes when every rank has received its last step. Alone
 *     on the switch or the ideal fabric each step takes ser(S/W) + 2 link +
 *     switch (4 workers, 4 MB at 10 Gb/s: 6 steps of 800 us + 240 ns).
 *   - allreduce = tree | halving-doubling | direct | hierarchical (issue 20:
 *     ASTRA-sim's choices): the allreduce of S bytes is instead the
 *     collectives module's algorithm of that name (jobs/collectives.h:
 *     NCCL's double binary tree, Rabenseifner's reduce-scatter +
 *     allgather, ASTRA-sim's direct and two-level ring with groups of
 *     allreduce-group workers), each rank running its list of sends and
 *     receives (sends never block, a receive waits for its message; the
 *     reduction takes no time); it completes when every rank has run its
 *     list. ring keeps the steps above (the module's ring is the same
 *     algorithm, checked against it in check_training).
 *   - negotiation = vef (seed 000 sec. 3.3, HOROVOD model, its listing 8
 *     for the defaults): a ready fusion is negotiated before it becomes
 *     eligible, one fusion at a time in the order they became ready. A
 *     round: every rank but the master (rank 0) sends the master a 4-B
 *     gather and a gatherv of gatherv-size bytes with probability
 *     gatherv-prob, else an empty 25-B one; the master counts each rank's
 *     non-empty gatherv bytes. With both messages of every rank in: if
 *     every rank has sent at least gatherv-total bytes, the master sends
 *     each rank a 4-B and a bcast-size broadcast (flat, rank order) and the
 *     fusion is eligible once every rank has both; else it sends each a 4-B
 *     and a 25-B broadcast, and each rank, with both, waits a
 *     negotiation-loop time (a distribution: seed 000 gives a mean) and
 *     starts the next round.
 *   - Every message is of the fabric's data class (NET_PRIO_LOW); the
 *     configuration's <workload priority=> (several workloads: seed 002's
 *     Horovod at the same or a lower priority than the web search) sets it.
 * All workers compute the same times and every gate is a global event (an
 * allreduce's completion on all ranks), so one compute timeline stands for
 * all W workers (exact, not an approximation; a straggler would need one
 * timeline each).
 *
 * stop-time (ours; seed 002 counts the iterations of a 12-s run): no
 * iteration starts at or after it; the run's iterations are those started.
 *
 * Metrics (issue 12): iteration j runs from the start of its forward pass
 * to the start of the next one's (the last: to the end of its last
 * allreduce); iteration_time_mean_s over all iterations; allreduce time
 * (start to completion) and wait (eligible to start); exposed
 * communication = iteration time - T_c (the time of an iteration a worker
 * does not compute); link_utilization = 8 ring bytes sent by all workers /
 * (W B time of all iterations) (seed 002 eq. 5.2 measured); the
 * compute-to-network ratio R = T_c B / (8 2 (1 - 1/W) M) (seed 002 eq. 5.1).
 *
 * Streams: wl_stream "training.negotiation" (vef only). Exactly once: every
 * message of an allreduce or a negotiation is counted against the ones
 * expected. Several workloads: its ranks are its own (exclusive); it has
 * finished with its last allreduce; it cannot be a background workload. */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "csv.h"
#include "datadir.h"
#include "infile.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "rng.h"
#include "sim.h"
#include "trace.h"
#include "units.h"
#include "training.h"
#include "workload.h"

#define TR_DEFAULT_MODEL_BYTES 100000000ULL /* Table 4.1: 100 MB */
#define TR_DEFAULT_LAYERS 100               /* Table 4.1 */
#define TR_MAX_LAYERS 100000
#define TR_RESNET50_FILE "resnet50-layers.csv"

enum { TR_FIFO = 0, TR_PRIORITY = 1 };
enum { TR_SIZES_RESNET50 = 0, TR_SIZES_UNIFORM = 1 };
enum { TR_NEG_NONE = 0, TR_NEG_VEF = 1 };
static const char *const tr_queue_names[] = {"fifo", "priority", NULL};
static const char *const tr_onoff_names[] = {"on", "off", NULL};
static const char *const tr_sizes_names[] = {"resnet50", "uniform", NULL};
static const char *const tr_neg_names[] = {"none", "vef", NULL};
/* allreduce=: the collectives module's choices (shared with mpi-trace's
 * attribute of the same name), of which training takes ring (its own
 * steps above), tree, halving-doubling (rabenseifner), direct and
 * hierarchical */
/* auto (the default, shared with mpi-trace, where it means Open MPI's
 * rules) is training's own: the ring */
static int tr_ring(int i) { return coll_choice_alg(i) == COLL_RING || coll_choice_alg(i) == COLL_AUTO; }
static int tr_ar_ok(int i)
{
    coll_alg a = coll_choice_alg(i);
    return tr_ring(i) || a == COLL_TREE || a == COLL_RABENSEIFNER || a == COLL_DIRECT || a == COLL_HIERARCHICAL;
}

typedef struct tr_params {
    uint32_t workers;
    uint64_t model_bytes;      /* 0: 100 MB (or the file's sizes as they are) */
    uint32_t layers;           /* 0: 100 (or the file's rows) */
    int layer_sizes;           /* TR_SIZES_* */
    param_file layers_file;    /* optional CSV */
    dist compute_time;         /* T_c per iteration, s (a constant) */
    double backward_ratio;     /* sum B / sum F */
    double time_ratio;         /* F_{L-1} / F_0 */
    uint64_t fusion_bytes;     /* 0: a fusion per layer */
    uint32_t iterations;
    int64_t stop_ps;           /* no iteration starts at or after it (0 = none) */
    int queue;                 /* TR_FIFO | TR_PRIORITY */
    int barrier_off;           /* 0 on, 1 off */
    int overlap_off;           /* 0 on, 1 off: a backward waits for the allreduce of the fusion ready before it */
    int negotiation;           /* TR_NEG_* */
    dist neg_loop;             /* time between rounds */
    uint64_t gatherv_bytes, gatherv_total_bytes, bcast_bytes;
    double gatherv_prob;
    int allreduce;             /* index into coll_choice_names */
    uint32_t ar_group;         /* hierarchical: workers per group (0: the module's default) */
    /* Not rows: set by tr_params_set_layers (a HOROVOD trace, workloads/wl_vef.c); NULL from a configuration. */
    const tr_layer *layer;     /* [nlayer] the layers, each with its negotiation values (not owned) */
    uint32_t nlayer;
} tr_params;

void tr_params_set_layers(void *params, const tr_layer *layers, uint32_t n)
{
    tr_params *p = params;
    p->layer = layers;
    p->nlayer = n;
}

#define TR_ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_
#define TR(field) offsetof(tr_params, field)

static const param_row tr_rows[] = {
    {TR_ROW("workload.workers", "integer", "", "2", "training: workers on the ring, its ranks 0..W-1 (>= 2)"),
     .kind = PARAM_U32, .off = TR(workers), .min = 2, .max = UINT32_MAX, .example = "4"},
    {TR_ROW("workload.model-size", "size", "B", "", "training: gradient bytes of the whole model (default 100MB; with layers-file: rescales it)"),
     .kind = PARAM_BYTES, .off = TR(model_bytes), .flags = PARAM_UNSET0, .example = "100MB"},
    {TR_ROW("workload.layers", "integer", "", "", "training: layers of the generated profile (default 100; not with layers-file)"),
     .kind = PARAM_U32, .off = TR(layers), .flags = PARAM_UNSET0, .min = 1, .max = TR_MAX_LAYERS, .example = "100"},
    {TR_ROW("workload.layer-sizes", "choice", "", "resnet50",
            "training: generated sizes: resnet50 (ResNet-50's parameters resampled by depth) | uniform"),
     .kind = PARAM_CHOICE, .off = TR(layer_sizes), .choices = tr_sizes_names, .example = "uniform"},
    {TR_ROW("workload.layers-file", "file", "", "",
            "training: CSV of layers in forward order: size_bytes[, forward_s, backward_s] (e.g. resnet50-layers.csv)"),
     .kind = PARAM_FILE, .off = TR(layers_file), .example = "resnet50-layers.csv"},
    {TR_ROW("workload.compute-time", "distribution(time)", "s", "0s",
            "training: forward + backward compute of one iteration, a constant (Gao 2020 Table 4.1: 900ms)"),
     .kind = PARAM_DIST, .dim = UNIT_TIME, .off = TR(compute_time), .flags = PARAM_NONNEG, .example = "900ms"},
    {TR_ROW("workload.backward-ratio", "number", "", "2", "training: backward time over forward time (Gao 2020: 2)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = TR(backward_ratio), .flags = PARAM_NONNEG, .example = "2"},
    {TR_ROW("workload.time-ratio", "number", "", "0.5",
            "training: last layer's forward time over the first's (arithmetic progression, > 0)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = TR(time_ratio), .flags = PARAM_POS, .example = "0.5"},
    {TR_ROW("workload.fusion-buffer", "size", "B", "6.28MB", "training: Horovod's tensor fusion buffer (0 = a fusion per layer)"),
     .kind = PARAM_BYTES, .off = TR(fusion_bytes), .flags = PARAM_NONNEG, .example = "6.28MB"},
    {TR_ROW("workload.iterations", "integer", "", "1", "training: iterations (>= 1; Gao 2020 Table 4.1: 2)"),
     .kind = PARAM_U32, .off = TR(iterations), .min = 1, .max = UINT32_MAX, .example = "2"},
    {TR_ROW("workload.stop-time", "time", "s", "0s",
            "training: no iteration starts at or after this time (0 = run every iteration)"),
     .kind = PARAM_PS, .off = TR(stop_ps), .flags = PARAM_NONNEG, .example = "12s"},
    {TR_ROW("workload.queue", "choice", "", "fifo", "training: transmission queue of fused tensors: fifo | priority (lowest layer first)"),
     .kind = PARAM_CHOICE, .off = TR(queue), .choices = tr_queue_names, .example = "priority"},
    {TR_ROW("workload.barrier", "choice", "", "on", "training: inter-iteration barrier: on | off"),
     .kind = PARAM_CHOICE, .off = TR(barrier_off), .choices = tr_onoff_names, .example = "off"},
    {TR_ROW("workload.overlap", "choice", "", "on",
            "training: on: the backward pass goes on while fusions reduce; off: a layer's backward waits until the "
            "fusion made ready before it has reduced (Andujar et al.'s serial HOROVOD steps)"),
     .kind = PARAM_CHOICE, .off = TR(overlap_off), .choices = tr_onoff_names, .example = "off"},
    {TR_ROW("workload.negotiation", "choice", "", "none", "training: none (instant coordinator) | vef (Andujar et al.'s HOROVOD negotiation loop)"),
     .kind = PARAM_CHOICE, .off = TR(negotiation), .choices = tr_neg_names, .example = "vef"},
    {TR_ROW("workload.vef.loop", "distribution(time)", "s", "1.5ms", "training, negotiation=vef: wait between rounds"),
     .kind = PARAM_DIST, .dim = UNIT_TIME, .off = TR(neg_loop), .flags = PARAM_NONNEG, .example = "1.5ms"},
    {TR_ROW("workload.vef.gatherv-size", "size", "B", "60B", "training, negotiation=vef: a non-empty gatherv"),
     .kind = PARAM_BYTES, .off = TR(gatherv_bytes), .flags = PARAM_POS, .example = "60B"},
    {TR_ROW("workload.vef.gatherv-total", "size", "B", "600B", "training, negotiation=vef: bytes the master needs from each rank"),
     .kind = PARAM_BYTES, .off = TR(gatherv_total_bytes), .flags = PARAM_NONNEG, .example = "600B"},
    {TR_ROW("workload.vef.gatherv-prob", "number", "", "0.01", "training, negotiation=vef: probability a rank's gatherv is not empty"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = TR(gatherv_prob), .flags = PARAM_NONNEG, .example = "0.01"},
    {TR_ROW("workload.vef.bcast-size", "size", "B", "1kB", "training, negotiation=vef: the broadcast of the tensors to reduce"),
     .kind = PARAM_BYTES, .off = TR(bcast_bytes), .flags = PARAM_POS, .example = "1000B"},
    {TR_ROW("workload.allreduce", "choice", "", "auto",
            "training: allreduce algorithm: auto = ring (Horovod) | tree (double binary tree) | halving-doubling "
            "(Rabenseifner) | direct | hierarchical (two-level ring)"),
     .kind = PARAM_CHOICE, .off = TR(allreduce), .choices = coll_choice_names, .example = "halving-doubling"},
    {TR_ROW("workload.allreduce-group", "integer", "", "",
            "training, allreduce=hierarchical: workers per group, dividing workers (default: the largest divisor <= sqrt W)"),
     .kind = PARAM_U32, .off = TR(ar_group), .flags = PARAM_UNSET0, .min = 1, .max = UINT32_MAX, .example = "4"},
};

enum { TR_METRICS(METRIC_ENUM) TR_NMETRICS };
static const metric_def tr_metrics_def[] = {TR_METRICS(METRIC_DEF)};

#define TR_RING 0x5452u /* net_msg.kind: a ring step ("TR") */
#define TR_NEG 0x544eu  /* a negotiation message ("TN") */
#define TR_COLL 0x5443u /* a message of a module allreduce ("TC") */
#define TR_DEAD 0xdeadu

enum { NEG_GATHER = 0, NEG_GATHERV = 1, NEG_BCAST0 = 2, NEG_BCAST1 = 3 };

/* ------------------------------------------------------ layer profile */

typedef struct tr_profile {
    uint32_t L;
    uint64_t *bytes;  /* [L] */
    int64_t *fwd_ps;  /* [L] */
    int64_t *bwd_ps;  /* [L] */
    uint64_t total_bytes;
    int64_t compute_ps; /* sum of both */
} tr_profile;

static void profile_free(tr_profile *p)
{
    free(p->bytes);
    free(p->fwd_ps);
    free(p->bwd_ps);
    memset(p, 0, sizeof *p);
}

/* A layer CSV: comment lines (#), a header naming the columns, numbers. */
static int read_layers(const char *path, double **size, double **fwd, double **bwd, uint32_t *n, char *err,
                       size_t errlen)
{
    char why[1200];
    FILE *f = tn_open_input(path, "r", why, sizeof why);
    if (!f)
        return tn_error(err, errlen, "layers file: %s", why);
    char *line = NULL;
    size_t cap = 0, room = 0;
    int cs = -1, cf = -1, cb = -1, rc = 0, header = 0;
    long lineno = 0;
    *n = 0;
    *size = *fwd = *bwd = NULL;
    char *fields[64];
    long got;
    while ((got = csv_next_record(f, &line, &cap, &lineno, fields, 64)) >= 0) {
        size_t nf = (size_t)got;
        if (!header) {
            for (size_t i = 0; i < nf; i++) {
                if (strcmp(fields[i], "size_bytes") == 0)
                    cs = (int)i;
                else if (strcmp(fields[i], "forward_s") == 0)
                    cf = (int)i;
                else if (strcmp(fields[i], "backward_s") == 0)
                    cb = (int)i;
            }
            header = 1;
            if (cs < 0) {
                rc = tn_error(err, errlen, "%s:%ld: no size_bytes column in the header", path, lineno);
                break;
            }
            if ((cf < 0) != (cb < 0)) {
                rc = tn_error(err, errlen, "%s:%ld: give both forward_s and backward_s, or neither", path, lineno);
                break;
            }
            continue;
        }
        double v[3];
        int col[3] = {cs, cf, cb};
        for (int k = 0; k < 3 && rc == 0; k++) {
            v[k] = 0;
            if (col[k] < 0)
                continue;
            char *end;
            v[k] = (size_t)col[k] < nf ? strtod(fields[col[k]], &end) : NAN;
            if ((size_t)col[k] >= nf || end == fields[col[k]] || !(v[k] >= 0) || !isfinite(v[k]))
                rc = tn_error(err, errlen, "%s:%ld: column %d is not a number >= 0", path, lineno, col[k] + 1);
        }
        if (rc)
            break;
        if (*n == room) {
            room = room ? 2 * room : 128;
            *size = tn_xrealloc(*size, room * sizeof **size);
            *fwd = tn_xrealloc(*fwd, room * sizeof **fwd);
            *bwd = tn_xrealloc(*bwd, room * sizeof **bwd);
        }
        (*size)[*n] = v[0];
        (*fwd)[*n] = cf >= 0 ? v[1] : NAN;
        (*bwd)[*n] = cb >= 0 ? v[2] : NAN;
        if (++*n > TR_MAX_LAYERS) {
            rc = tn_error(err, errlen, "%s: more than %d layers", path, TR_MAX_LAYERS);
            break;
        }
    }
    free(line);
    fclose(f);
    if (rc == 0 && *n == 0)
        rc = tn_error(err, errlen, "%s: no layers", path);
    if (rc) {
        free(*size);
        free(*fwd);
        free(*bwd);
        *size = *fwd = *bwd = NULL;
    }
    return rc;
}

/* Cumulative fractions cum[0..n] of weights w[0..n-1]. */
static void cumulate(const double *w, uint32_t n, double *cum)
{
    double total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += w[i];
    double run = 0;
    cum[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        run += w[i];
        cum[i + 1] = total > 0 ? run / total : (double)(i + 1) / n;
    }
    cum[n] = 1;
}

/* C(x): the fraction of the weights in the depth [0, x) of n layers, each
 * spread evenly over its slice [k/n, (k+1)/n). */
static double depth_fraction(const double *cum, uint32_t n, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double k = floor(x * n);
    uint32_t i = (uint32_t)k;
    return cum[i] + (x * n - k) * (cum[i + 1] - cum[i]);
}

static int profile_build(const tr_params *p, tr_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (p->layer) { /* a trace's layers, as they are */
        out->L = p->nlayer;
        out->bytes = tn_xcalloc(p->nlayer, sizeof *out->bytes);
        out->fwd_ps = tn_xcalloc(p->nlayer, sizeof *out->fwd_ps);
        out->bwd_ps = tn_xcalloc(p->nlayer, sizeof *out->bwd_ps);
        for (uint32_t i = 0; i < p->nlayer; i++) {
            out->bytes[i] = p->layer[i].bytes;
            out->fwd_ps[i] = p->layer[i].fwd_ps;
            out->bwd_ps[i] = p->layer[i].bwd_ps;
            out->total_bytes += out->bytes[i];
            out->compute_ps += out->fwd_ps[i] + out->bwd_ps[i];
        }
        return 0;
    }
    double *fsize = NULL, *ffwd = NULL, *fbwd = NULL;
    uint32_t fn = 0;
    const char *file = p->layers_file.text[0] ? p->layers_file.path : NULL;
    char path[PARAM_PATH_MAX];
    if (file && read_layers(file, &fsize, &ffwd, &fbwd, &fn, err, errlen) != 0)
        return -1;
    if (!file && p->layer_sizes == TR_SIZES_RESNET50) {
        if (tn_data_path(TR_RESNET50_FILE, path, sizeof path, err, errlen) != 0 ||
            read_layers(path, &fsize, &ffwd, &fbwd, &fn, err, errlen) != 0)
            return -1;
    }
    uint32_t L = file ? fn : (p->layers ? p->layers : TR_DEFAULT_LAYERS);
    uint64_t M = p->model_bytes ? p->model_bytes : TR_DEFAULT_MODEL_BYTES;
    out->L = L;
    out->bytes = tn_xcalloc(L, sizeof *out->bytes);
    out->fwd_ps = tn_xcalloc(L, sizeof *out->fwd_ps);
    out->bwd_ps = tn_xcalloc(L, sizeof *out->bwd_ps);
    if (file && !p->model_bytes) {
        for (uint32_t i = 0; i < L; i++)
            out->bytes[i] = (uint64_t)llround(fsize[i]);
    } else if (fsize) {
        /* the file's shape (or ResNet-50's) over L layers, scaled to M */
        double *cum = tn_xmalloc((fn + 1) * sizeof *cum);
        cumulate(fsize, fn, cum);
        uint64_t prev = 0;
        for (uint32_t i = 0; i < L; i++) {
            uint64_t upto = (uint64_t)llround((double)M * depth_fraction(cum, fn, (double)(i + 1) / L));
            if (i + 1 == L)
                upto = M;
            out->bytes[i] = upto > prev ? upto - prev : 0;
            prev = upto > prev ? upto : prev;
        }
        free(cum);
    } else {
        for (uint32_t i = 0; i < L; i++)
            out->bytes[i] = M / L + (i >= L - M % L ? 1 : 0);
    }
    for (uint32_t i = 0; i < L; i++)
        out->total_bytes += out->bytes[i];
    if (file && ffwd && !isnan(ffwd[0])) {
        for (uint32_t i = 0; i < L; i++) {
            out->fwd_ps[i] = units_s_to_ps(ffwd[i]);
            out->bwd_ps[i] = units_s_to_ps(fbwd[i]);
        }
    } else {
        double Tc_ps = p->compute_time.text ? 1e12 * dist_mean(&p->compute_time) : 0;
        double Tf = Tc_ps / (1 + p->backward_ratio), r = p->time_ratio;
        double F0 = L > 1 ? 2 * Tf / (L * (1 + r)) : Tf;
        for (uint32_t i = 0; i < L; i++) {
            double fi = L > 1 ? F0 * (1 - (1 - r) * i / (L - 1)) : F0;
            double fm = L > 1 ? F0 * (1 - (1 - r) * (L - 1 - i) / (L - 1)) : F0; /* F_{L-1-i} */
            out->fwd_ps[i] = llround(fi);
            out->bwd_ps[i] = llround(p->backward_ratio * fm);
        }
    }
    for (uint32_t i = 0; i < L; i++)
        out->compute_ps += out->fwd_ps[i] + out->bwd_ps[i];
    free(fsize);
    free(ffwd);
    free(fbwd);
    return 0;
}

/* --------------------------------------------------------------- state */

typedef struct tr_fusion {
    uint32_t lo, hi;   /* layers lo..hi */
    uint64_t bytes;    /* S */
    int64_t done_iter; /* last iteration whose allreduce completed (-1: none) */
} tr_fusion;

typedef struct tr_queued {
    uint32_t k;        /* fusion */
    uint32_t iter;
    int64_t eligible_ps;
    uint64_t order;    /* eligibility order (fifo) */
} tr_queued;

typedef struct tr {
    const tr_params *p;
    sim *s;
    net *n;
    uint32_t W;
    double bandwidth_bps;
    tr_profile prof;
    tr_fusion *fus;          /* [nf] in readiness order: 0 holds layer L-1 */
    uint32_t nf;
    uint32_t *fusion_of;     /* [L] the fusion holding layer i */
    net_msg_pool pool;
    /* compute timeline */
    uint32_t iter;           /* current iteration */
    uint32_t layer;          /* current layer */
    int backward;            /* in the backward pass (flag) */
    int waiting;             /* a compute phase blocked on an allreduce (flag) */
    int finished;            /* every iteration computed (flag) */
    uint32_t *done_count;    /* [I] allreduces completed per iteration */
    int64_t *iter_start_ps;  /* [I] forward start of each iteration */
    uint32_t niter;          /* iterations run: workload.iterations, or fewer (stop-time) */
    int64_t *iter_end_ps;    /* [I] its last allreduce's completion (-1 before) */
    int64_t end_ps;          /* the last iteration's last allreduce (-1 before) */
    /* coordinator */
    tr_queued *queue;        /* [nf] eligible, waiting */
    uint32_t nq;
    uint64_t order;
    int busy;                /* an allreduce is on the wire (flag) */
    tr_queued cur;           /* the allreduce on the wire */
    int64_t cur_start_ps;
    uint64_t cur_delivered;  /* its messages delivered */
    uint64_t ar_serial;      /* allreduces started (the current one's id) */
    /* negotiation (vef) */
    gsl_rng *rng_neg;
    tr_queued *neg_q;        /* [nf] ready, in ready order */
    uint32_t neg_n;
    int neg_busy;
    tr_queued neg_cur;
    uint64_t *neg_acc;       /* [W] non-empty gatherv bytes per rank */
    uint32_t neg_in;         /* gather messages in, this round */
    uint32_t neg_bcast_in;   /* broadcast messages delivered, this round */
    int neg_success;         /* this round's broadcast says go */
    uint64_t neg_round;      /* rounds started (all fusions) */
    uint32_t *neg_rank_bc;   /* [W] broadcast messages each rank has this round */
    /* a module allreduce (allreduce != ring): every rank's list, built once
     * (its structure does not depend on S), sizes written at each start */
    coll_spec cs;
    uint64_t *cstart;        /* [W + 1] rank r's ops are cops[cstart[r] .. cstart[r+1]) */
    struct tr_cop *cops;     /* [ncops] */
    uint64_t ncops;
    uint8_t *arrived;        /* [ncops] a receive's message has come */
    uint64_t *cpc;           /* [W] next op of each rank */
    uint32_t cdone;          /* ranks whose list is run */
    /* the timeline (--trace; NULL: none): every worker computes the same
     * phases, so each kept rank's track shows each layer's forward and
     * backward and the waits for an allreduce; each fusion's allreduce is
     * a span from its start to its completion, its queueing another */
    struct trace *trace;
    int64_t phase_ps;        /* start of the compute phase or wait in progress */
    /* measurements */
    uint64_t allreduces, bad, ring_bytes;
    double ar_time_sum_s, ar_wait_sum_s;
    int up;
} tr;

static void compute_next(tr *w);

/* A phase of every worker on the kept ranks' tracks; iteration as the job. */
static void trace_phase(tr *w, const char *cat, const char *name, int64_t t0, int64_t t1)
{
    for (uint32_t r = 0; r < w->W; r++)
        if (trace_wants_node(w->trace, r))
            trace_slice(w->trace, r, cat, name, t0, t1, w->iter, UINT32_MAX);
}

typedef struct tr_cop {
    uint32_t peer;  /* send: destination; recv: source (ranks) */
    uint32_t tag;   /* the module's step tag (build only) */
    uint64_t match; /* send: index of the receive that takes it */
    uint64_t bytes; /* send: this allreduce's size */
    uint8_t send;
} tr_cop;

static uint64_t chunk_bytes(uint64_t S, uint32_t W, uint32_t m)
{
    return S / W + (m < S % W ? 1 : 0);
}

static void send_msg(tr *w, uint32_t src, uint32_t dst, uint64_t bytes, uint16_t kind, uint8_t cls, uint32_t a,
                     uint64_t b)
{
    wl_send(w->n, &w->pool, src, dst, bytes, cls, kind, a, b);
}

/* Rank r sends step t of the current allreduce. */
static void ring_send(tr *w, uint32_t r, uint32_t t)
{
    uint32_t W = w->W, m = (r + W - t % W) % W;
    uint64_t c = chunk_bytes(w->fus[w->cur.k].bytes, W, m);
    w->ring_bytes += c;
    send_msg(w, r, (r + 1) % W, c, TR_RING, NET_DATA, t, w->ar_serial);
}

/* The transmission queue's pick (index into queue). */
static uint32_t queue_pick(const tr *w)
{
    uint32_t best = 0;
    for (uint32_t q = 1; q < w->nq; q++) {
        const tr_queued *a = &w->queue[q], *b = &w->queue[best];
        int before = w->p->queue == TR_PRIORITY
                         ? (a->iter < b->iter ||
                            (a->iter == b->iter && w->fus[a->k].lo < w->fus[b->k].lo))
                         : a->order < b->order;
        if (before)
            best = q;
    }
    return best;
}

static void allreduce_done(tr *w);

/* ---- module allreduce ---- */

typedef struct cop_fill {
    tr *w;
    uint64_t k;   /* next op slot */
    int build;    /* 1: count/record ops; 0: write sizes */
} cop_fill;

static void cop_emit(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    cop_fill *f = ctx;
    if (f->build) {
        if (f->w->cops)
            f->w->cops[f->k] = (tr_cop){.peer = peer, .tag = tag, .send = (uint8_t)send};
    } else if (send) {
        f->w->cops[f->k].bytes = bytes;
    }
    f->k++;
}

/* Run rank r's list until it waits for a message or ends. */
static void coll_run(tr *w, uint32_t r)
{
    uint64_t k = w->cpc[r], end = w->cstart[r + 1];
    while (k < end) {
        const tr_cop *o = &w->cops[k];
        if (o->send) {
            w->ring_bytes += o->bytes;
            send_msg(w, r, o->peer, o->bytes, TR_COLL, NET_DATA, 0, o->match);
            k++;
        } else if (w->arrived[k]) {
            k++;
        } else {
            break;
        }
    }
    w->cpc[r] = k;
    if (k == end && ++w->cdone == w->W)
        allreduce_done(w);
}

static void coll_start(tr *w)
{
    coll_spec s = w->cs;
    s.bytes = w->fus[w->cur.k].bytes;
    cop_fill f = {w, 0, 0};
    for (uint32_t r = 0; r < w->W; r++)
        coll_rank(&s, r, cop_emit, &f);
    memset(w->arrived, 0, w->ncops);
    w->cdone = 0;
    for (uint32_t r = 0; r < w->W; r++)
        w->cpc[r] = w->cstart[r];
    for (uint32_t r = 0; r < w->W && w->busy; r++)
        coll_run(w, r);
}

/* Every rank's list, and for each send the receive that takes it: within
 * one allreduce of the module's (src, dst, tag) is unique. */
static void coll_build(tr *w)
{
    const tr_params *p = w->p;
    w->cs = (coll_spec){.op = COLL_ALLREDUCE, .alg = coll_choice_alg(p->allreduce), .ranks = w->W, .group = p->ar_group};
    w->cstart = tn_xcalloc((size_t)w->W + 1, sizeof *w->cstart);
    cop_fill f = {w, 0, 1};
    for (uint32_t r = 0; r < w->W; r++) {
        coll_rank(&w->cs, r, cop_emit, &f);
        w->cstart[r + 1] = f.k;
    }
    w->ncops = f.k;
    w->cops = tn_xcalloc(w->ncops ? w->ncops : 1, sizeof *w->cops);
    f.k = 0;
    for (uint32_t r = 0; r < w->W; r++)
        coll_rank(&w->cs, r, cop_emit, &f);
    /* receives by (dst, src, tag) in an open-addressing table */
    uint64_t cap = 2;
    while (cap < 2 * w->ncops)
        cap *= 2;
    uint64_t *slot = tn_xmalloc(cap * sizeof *slot);
    for (uint64_t i = 0; i < cap; i++)
        slot[i] = UINT64_MAX;
#define COP_KEY(d, s_, t) ((((uint64_t)(d) * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(s_) << 20) ^ (t)) * 0xff51afd7ed558ccdULL)
    for (uint32_t r = 0; r < w->W; r++)
        for (uint64_t k = w->cstart[r]; k < w->cstart[r + 1]; k++) {
            if (w->cops[k].send)
                continue;
            uint64_t h = COP_KEY(r, w->cops[k].peer, w->cops[k].tag) & (cap - 1);
            while (slot[h] != UINT64_MAX)
                h = (h + 1) & (cap - 1);
            slot[h] = k;
        }
    for (uint32_t r = 0; r < w->W; r++)
        for (uint64_t k = w->cstart[r]; k < w->cstart[r + 1]; k++) {
            tr_cop *o = &w->cops[k];
            if (!o->send)
                continue;
            uint64_t h = COP_KEY(o->peer, r, o->tag) & (cap - 1);
            for (;; h = (h + 1) & (cap - 1)) {
                TN_ASSERT(slot[h] != UINT64_MAX, "allreduce %s: rank %u's send to %u (tag %u) has no receive",
                          coll_choice_names[p->allreduce], r, o->peer, o->tag);
                uint64_t j = slot[h];
                if (w->cops[j].peer == r && w->cops[j].tag == o->tag && j >= w->cstart[o->peer] &&
                    j < w->cstart[o->peer + 1])
                    break;
            }
            o->match = slot[h];
        }
#undef COP_KEY
    free(slot);
    w->arrived = tn_xcalloc(w->ncops ? w->ncops : 1, 1);
    w->cpc = tn_xcalloc(w->W, sizeof *w->cpc);
}

static void coll_deliver(tr *w, net_msg *m)
{
    uint64_t k = m->b;
    if (!w->busy || !w->cops || k >= w->ncops || w->cops[k].send || w->arrived[k] || m->dst >= w->W ||
        k < w->cstart[m->dst] || k >= w->cstart[m->dst + 1] || w->cops[k].peer != m->src) {
        w->bad++;
        return;
    }
    w->arrived[k] = 1;
    w->cur_delivered++;
    if (w->cpc[m->dst] == k)
        coll_run(w, m->dst);
}

static void coordinator_kick(tr *w)
{
    if (w->busy || !w->nq)
        return;
    uint32_t q = queue_pick(w);
    w->cur = w->queue[q];
    w->queue[q] = w->queue[--w->nq];
    w->busy = 1;
    w->ar_serial++;
    w->cur_delivered = 0;
    w->cur_start_ps = sim_now(w->s);
    w->ar_wait_sum_s += units_ps_to_s(w->cur_start_ps - w->cur.eligible_ps);
    if (w->cops) {
        coll_start(w);
        return;
    }
    for (uint32_t r = 0; r < w->W; r++)
        ring_send(w, r, 0);
}

static void make_eligible(tr *w, tr_queued f)
{
    f.eligible_ps = sim_now(w->s);
    f.order = w->order++;
    w->queue[w->nq++] = f;
    coordinator_kick(w);
}

static void allreduce_done(tr *w)
{
    int64_t now = sim_now(w->s);
    tr_fusion *f = &w->fus[w->cur.k];
    f->done_iter = w->cur.iter;
    w->done_count[w->cur.iter]++;
    w->allreduces++;
    w->ar_time_sum_s += units_ps_to_s(now - w->cur_start_ps);
    w->busy = 0;
    if (w->trace) {
        char name[96];
        snprintf(name, sizeof name, "allreduce layers %u-%u (iteration %u)", f->lo, f->hi, w->cur.iter);
        trace_span(w->trace, 0, "allreduce", name, w->ar_serial, UINT32_MAX, w->cur_start_ps, now, f->bytes);
        if (w->cur_start_ps > w->cur.eligible_ps) {
            snprintf(name, sizeof name, "queued layers %u-%u (iteration %u)", f->lo, f->hi, w->cur.iter);
            trace_span(w->trace, 1, "queue", name, w->ar_serial, UINT32_MAX, w->cur.eligible_ps, w->cur_start_ps, 0);
        }
    }
    if (w->done_count[w->cur.iter] == w->nf) {
        w->iter_end_ps[w->cur.iter] = now;
        if (w->cur.iter + 1 == w->niter)
            w->end_ps = now;
    }
    coordinator_kick(w);
    if (w->waiting)
        compute_next(w);
}

/* ---- negotiation (vef) ---- */

static void neg_round(tr *w);

static void ev_neg_loop(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    (void)arg;
    neg_round(ctx);
}

/* The layer whose negotiation runs (a trace's per-layer values), or NULL: the rows'. */
static const tr_layer *neg_layer(const tr *w)
{
    return w->p->layer ? &w->p->layer[w->fus[w->neg_cur.k].lo] : NULL;
}

static void neg_round(tr *w)
{
    w->neg_round++;
    w->neg_in = 0;
    w->neg_bcast_in = 0;
    for (uint32_t r = 0; r < w->W; r++)
        w->neg_rank_bc[r] = 0;
    const tr_layer *L = neg_layer(w);
    double prob = L ? L->gatherv_prob : w->p->gatherv_prob;
    uint64_t gv = L ? L->gatherv_bytes : w->p->gatherv_bytes;
    for (uint32_t r = 1; r < w->W; r++) {
        int full = gsl_rng_uniform(w->rng_neg) < prob;
        send_msg(w, r, 0, 4, TR_NEG, NET_CONTROL, NEG_GATHER, w->neg_round);
        send_msg(w, r, 0, full ? gv : 25, TR_NEG, NET_CONTROL, NEG_GATHERV | (full ? 0x100u : 0),
                 w->neg_round);
    }
}

static void neg_kick(tr *w)
{
    if (w->neg_busy || !w->neg_n)
        return;
    w->neg_cur = w->neg_q[0];
    memmove(w->neg_q, w->neg_q + 1, (w->neg_n - 1) * sizeof *w->neg_q);
    w->neg_n--;
    w->neg_busy = 1;
    for (uint32_t r = 0; r < w->W; r++)
        w->neg_acc[r] = 0;
    neg_round(w);
}

static void neg_deliver(tr *w, net_msg *m)
{
    uint32_t type = m->a & 0xff;
    if (m->b != w->neg_round || !w->neg_busy) {
        w->bad++;
        return;
    }
    if (type == NEG_GATHER || type == NEG_GATHERV) {
        if (m->dst != 0 || m->src == 0 || m->src >= w->W) {
            w->bad++;
            return;
        }
        if (type == NEG_GATHERV && (m->a & 0x100u))
            w->neg_acc[m->src] += m->size_bytes;
        if (++w->neg_in < 2 * (w->W - 1))
            return;
        /* every rank's round is in: broadcast the verdict */
        const tr_layer *L = neg_layer(w);
        uint64_t total = L ? L->gatherv_total_bytes : w->p->gatherv_total_bytes;
        uint64_t bc = L ? L->bcast_bytes : w->p->bcast_bytes;
        int go = 1;
        for (uint32_t r = 1; r < w->W; r++)
            go &= w->neg_acc[r] >= total;
        w->neg_success = go;
        for (uint32_t r = 1; r < w->W; r++) {
            send_msg(w, 0, r, 4, TR_NEG, NET_CONTROL, NEG_BCAST0, w->neg_round);
            send_msg(w, 0, r, go ? bc : 25, TR_NEG, NET_CONTROL, NEG_BCAST1, w->neg_round);
        }
        return;
    }
    if (m->src != 0 || m->dst == 0 || m->dst >= w->W) {
        w->bad++;
        return;
    }
    w->neg_rank_bc[m->dst]++;
    if (++w->neg_bcast_in < 2 * (w->W - 1))
        return;
    if (w->neg_success) {
        w->neg_busy = 0;
        make_eligible(w, w->neg_cur);
        neg_kick(w);
        return;
    }
    /* every rank waits its loop time; the round starts when the last does
     * (all draw the same loop: one draw per round) */
    const tr_layer *L = neg_layer(w);
    if (L) { /* a trace's loop: its mean, a constant (as the row's default) */
        sim_schedule(w->s, L->loop_ps, ev_neg_loop, w, 0);
        return;
    }
    double loop_s = dist_sample(&w->p->neg_loop, w->rng_neg);
    sim_schedule(w->s, units_s_to_ps(loop_s > 0 ? loop_s : 0), ev_neg_loop, w, 0);
}

static void fusion_ready(tr *w, uint32_t k)
{
    tr_queued f = {.k = k, .iter = w->iter};
    if (w->p->negotiation == TR_NEG_VEF) {
        w->neg_q[w->neg_n++] = f;
        neg_kick(w);
    } else {
        make_eligible(w, f);
    }
}

/* ---- compute ---- */

static void ev_compute_done(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    (void)arg;
    tr *w = ctx;
    uint32_t L = w->prof.L;
    if (w->trace) {
        char name[48];
        snprintf(name, sizeof name, "%s %u", w->backward ? "backward" : "forward", w->layer);
        trace_phase(w, "compute", name, w->phase_ps, sim_now(w->s));
    }
    if (!w->backward) {
        if (w->layer + 1 < L) {
            w->layer++;
        } else {
            w->backward = 1;
        }
        compute_next(w);
        return;
    }
    /* backward of w->layer ended */
    uint32_t k = w->fusion_of[w->layer];
    if (w->fus[k].lo == w->layer)
        fusion_ready(w, k);
    if (w->layer > 0) {
        w->layer--;
        compute_next(w);
        return;
    }
    if (w->iter + 1 == w->niter) {
        w->finished = 1;
        return;
    }
    w->iter++;
    w->backward = 0;
    w->layer = 0;
    compute_next(w);
}

/* Start the current compute phase, or wait for its allreduce. */
static void compute_next(tr *w)
{
    int was_waiting = w->waiting;
    w->waiting = 0;
    if (w->finished)
        return;
    uint32_t i = w->layer;
    if (w->backward && w->p->overlap_off && i + 1 < w->prof.L) {
        /* overlap off: the fusion layer i+1 made ready (if it did) must have reduced first */
        const tr_fusion *f = &w->fus[w->fusion_of[i + 1]];
        if (f->lo == i + 1 && f->done_iter < (int64_t)w->iter) {
            if (!was_waiting)
                w->phase_ps = sim_now(w->s);
            w->waiting = 1;
            return;
        }
    }
    if (!w->backward && w->iter > 0) {
        int ok = w->p->barrier_off ? w->fus[w->fusion_of[i]].done_iter >= (int64_t)w->iter - 1
                                   : w->done_count[w->iter - 1] == w->nf;
        if (!ok) {
            if (!was_waiting)
                w->phase_ps = sim_now(w->s); /* the wait starts */
            w->waiting = 1;
            return;
        }
    }
    if (w->trace && was_waiting)
        trace_phase(w, "wait", "wait allreduce", w->phase_ps, sim_now(w->s));
    w->phase_ps = sim_now(w->s);
    if (!w->backward && i == 0) {
        int64_t now = sim_now(w->s);
        if (w->iter > 0 && w->p->stop_ps > 0 && now >= w->p->stop_ps) {
            /* stop-time: iteration iter does not start; the run ends with its predecessor's allreduces */
            w->niter = w->iter;
            w->finished = 1;
            w->end_ps = w->iter_end_ps[w->niter - 1];
            return;
        }
        w->iter_start_ps[w->iter] = now;
    }
    sim_schedule(w->s, w->backward ? w->prof.bwd_ps[i] : w->prof.fwd_ps[i], ev_compute_done, w, 0);
}

/* ---- deliveries ---- */

static void tr_deliver(void *state, net_msg *m)
{
    tr *w = state;
    if (w->trace)
        trace_message(w->trace, m->src, m->dst,
                      m->kind == TR_RING ? "ring step" : m->kind == TR_COLL ? "allreduce" : "negotiation",
                      m->size_bytes, TRACE_NO_JOB, m->t_submit_ps, sim_now(w->s));
    if (m->kind == TR_NEG) {
        neg_deliver(w, m);
    } else if (m->kind == TR_COLL) {
        coll_deliver(w, m);
    } else if (m->kind != TR_RING || !w->busy || m->b != w->ar_serial || m->src >= w->W ||
               m->dst != (m->src + 1) % w->W || m->a >= 2 * (w->W - 1)) {
        w->bad++;
        return;
    } else {
        uint32_t t = m->a, r = m->dst;
        w->cur_delivered++;
        if (t + 1 < 2 * (w->W - 1))
            ring_send(w, r, t + 1);
        if (w->cur_delivered == (uint64_t)w->W * 2 * (w->W - 1))
            allreduce_done(w);
    }
    m->kind = TR_DEAD;
    net_msg_release(&w->pool, m);
}

/* ---- life cycle ---- */

static void tr_check(const net_params *core, const void *params, param_report *rep)
{
    const tr_params *p = params;
    if (core->nodes > 0 && p->workers > core->nodes)
        param_invalid(rep, "workload.workers", "%u workers need %u nodes (system.nodes is %u)", p->workers, p->workers,
                      core->nodes);
    if (p->compute_time.text && !dist_is_const(&p->compute_time))
        param_invalid(rep, "workload.compute-time", "training computes the same time every iteration: a constant "
                      "(e.g. 900ms), not %s", p->compute_time.text);
    if (p->layers_file.text[0] && p->layers)
        param_invalid(rep, "workload.layers", "the layers come from workload.layers-file");
    if (p->gatherv_prob > 1)
        param_invalid(rep, "workload.vef.gatherv-prob", "a probability is at most 1 (got %g)", p->gatherv_prob);
    if (!tr_ar_ok(p->allreduce))
        param_invalid(rep, "workload.allreduce", "training's allreduce is ring, tree, halving-doubling, direct or "
                      "hierarchical (got %s)", coll_choice_names[p->allreduce]);
    if (coll_choice_alg(p->allreduce) == COLL_HIERARCHICAL && p->ar_group && p->workers % p->ar_group)
        param_invalid(rep, "workload.allreduce-group", "groups of %u workers do not divide %u workers", p->ar_group,
                      p->workers);
    if (p->ar_group && coll_choice_alg(p->allreduce) != COLL_HIERARCHICAL)
        param_invalid(rep, "workload.allreduce-group", "only allreduce=hierarchical has groups");
    if (p->negotiation == TR_NEG_VEF && p->gatherv_total_bytes > 0 && p->gatherv_prob == 0)
        param_invalid(rep, "workload.vef.gatherv-prob",
                      "with a probability of 0 no gatherv carries bytes, so gatherv-total is never reached");
}

static int build_fusions(tr *w)
{
    uint32_t L = w->prof.L;
    w->fus = tn_xcalloc(L, sizeof *w->fus);
    w->fusion_of = tn_xcalloc(L, sizeof *w->fusion_of);
    uint32_t nf = 0;
    for (uint32_t j = L; j-- > 0;) {
        uint64_t b = w->prof.bytes[j];
        tr_fusion *f = nf ? &w->fus[nf - 1] : NULL;
        if (f && w->p->fusion_bytes > 0 && f->bytes + b <= w->p->fusion_bytes) {
            f->lo = j;
            f->bytes += b;
        } else {
            f = &w->fus[nf++];
            f->lo = f->hi = j;
            f->bytes = b;
            f->done_iter = -1;
        }
        w->fusion_of[j] = nf - 1;
    }
    return (int)nf;
}

static int tr_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    tr *w = state;
    const tr_params *p = env->params;
    memset(w, 0, sizeof *w);
    char e2[PARAM_PATH_MAX + 256];
    param_first first;
    net_params core = {.nodes = env->nodes, .bandwidth_bps = env->bandwidth_bps};
    tr_check(&core, p, param_report_first(&first, e2, sizeof e2));
    if (first.rep.n)
        return tn_error(err, errlen, "training: %s", e2);
    if (!env->sim || !env->net || env->net->params.nodes != env->nodes || p->workers < 2)
        return tn_error(err, errlen, "training needs an engine, a network of %u nodes and 2 workers", env->nodes);
    if (profile_build(p, &w->prof, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "training: %s", e2);
    w->p = p;
    w->s = env->sim;
    w->n = env->net;
    w->trace = env->trace;
    w->W = p->workers;
    w->bandwidth_bps = env->bandwidth_bps;
    w->nf = (uint32_t)build_fusions(w);
    w->queue = tn_xcalloc(w->nf, sizeof *w->queue);
    w->neg_q = tn_xcalloc(w->nf, sizeof *w->neg_q);
    w->neg_acc = tn_xcalloc(w->W, sizeof *w->neg_acc);
    w->neg_rank_bc = tn_xcalloc(w->W, sizeof *w->neg_rank_bc);
    w->done_count = tn_xcalloc(p->iterations, sizeof *w->done_count);
    w->iter_start_ps = tn_xcalloc(p->iterations, sizeof *w->iter_start_ps);
    w->iter_end_ps = tn_xcalloc(p->iterations, sizeof *w->iter_end_ps);
    w->niter = p->iterations;
    for (uint32_t j = 0; j < p->iterations; j++)
        w->iter_end_ps[j] = -1;
    for (uint32_t j = 0; j < p->iterations; j++)
        w->iter_start_ps[j] = -1;
    w->end_ps = -1;
    net_msg_pool_init(&w->pool);
    w->rng_neg = wl_stream(env, "training.negotiation");
    if (!tr_ring(p->allreduce))
        coll_build(w);
    w->up = 1;
    compute_next(w);
    return 0;
}

static int tr_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    (void)v;
    tr *w = state;
    uint32_t I = w->niter;
    if (w->bad)
        return tn_error(err, errlen, "training: %llu messages that no allreduce or negotiation expected",
                        (unsigned long long)w->bad);
    if (w->pool.live)
        return tn_error(err, errlen, "training: %llu messages still in flight", (unsigned long long)w->pool.live);
    if (!w->finished || w->busy || w->nq || w->neg_busy || w->neg_n || w->end_ps < 0 ||
        w->allreduces != (uint64_t)I * w->nf)
        return tn_error(err, errlen, "training: %llu of %llu allreduces completed",
                        (unsigned long long)w->allreduces, (unsigned long long)I * w->nf);
    double sum = 0, max = 0;
    for (uint32_t j = 0; j < I; j++) {
        int64_t end = j + 1 < I ? w->iter_start_ps[j + 1] : w->end_ps;
        double t = units_ps_to_s(end - w->iter_start_ps[j]);
        sum += t;
        max = t > max ? t : max;
        if (j == 0)
            m[M_iteration_time_first_s] = t;
    }
    double Tc = units_ps_to_s(w->prof.compute_ps), M = (double)w->prof.total_bytes;
    m[M_iterations_completed] = I;
    m[M_iteration_time_mean_s] = sum / I;
    m[M_iteration_time_max_s] = max;
    m[M_allreduces] = (double)w->allreduces;
    m[M_allreduce_time_mean_s] = w->ar_time_sum_s / (double)w->allreduces;
    m[M_allreduce_wait_mean_s] = w->ar_wait_sum_s / (double)w->allreduces;
    m[M_exposed_comm_mean_s] = sum / I - Tc;
    m[M_link_utilization] = sum > 0 ? 8.0 * (double)w->ring_bytes / ((double)w->W * w->bandwidth_bps * sum) : NAN;
    m[M_compute_to_network_ratio] = M > 0 ? Tc * w->bandwidth_bps / (8 * 2 * (1 - 1.0 / w->W) * M) : NAN;
    m[M_fusions] = w->nf;
    if (w->p->negotiation == TR_NEG_VEF)
        m[M_negotiation_rounds] = (double)w->neg_round;
    span->first_ps = w->iter_start_ps[0];
    span->last_ps = w->end_ps;
    return 0;
}

/* Every iteration computed and every allreduce completed. */
static int tr_finished(const void *state)
{
    const tr *w = state;
    return w->finished && w->end_ps >= 0 && !w->busy;
}

static void tr_fini(void *state)
{
    tr *w = state;
    if (!w->up)
        return;
    profile_free(&w->prof);
    free(w->fus);
    free(w->fusion_of);
    free(w->queue);
    free(w->neg_q);
    free(w->neg_acc);
    free(w->neg_rank_bc);
    free(w->done_count);
    free(w->iter_start_ps);
    free(w->iter_end_ps);
    net_msg_pool_free(&w->pool);
    gsl_rng_free(w->rng_neg);
    free(w->cstart);
    free(w->cops);
    free(w->arrived);
    free(w->cpc);
    w->up = 0;
}

/* Fusions of the profile as build_fusions packs them (from the last layer,
 * a layer joins the previous fusion while it fits in fusion_bytes). */
static uint64_t count_fusions(const tr_profile *prof, uint64_t fusion_bytes)
{
    uint64_t nf = 0, fill = 0;
    for (uint32_t j = prof->L; j-- > 0;) {
        if (nf && fusion_bytes > 0 && fill + prof->bytes[j] <= fusion_bytes) {
            fill += prof->bytes[j];
        } else {
            nf++;
            fill = prof->bytes[j];
        }
    }
    return nf;
}

/* One allreduce of S bytes: its messages, the bytes the busiest rank sends
 * (ring: 2 (1 - 1/W) S; the module's algorithms: counted rank by rank), and
 * the steps of its longest chain (ring: 2 (W - 1); the module's: its tags
 * plus twice the depth of a tree, generous). */
typedef struct tr_ar_shape {
    double messages, rank_bytes, steps;
} tr_ar_shape;

typedef struct rank_bytes_ctx {
    uint64_t bytes;
} rank_bytes_ctx;

static void rank_bytes_fn(void *ctx, int send, uint32_t peer, uint64_t bytes, uint32_t tag)
{
    (void)peer;
    (void)tag;
    if (send)
        ((rank_bytes_ctx *)ctx)->bytes += bytes;
}

static tr_ar_shape tr_ar_shape_of(const tr_params *p, double S)
{
    double W = p->workers;
    if (tr_ring(p->allreduce))
        return (tr_ar_shape){2 * (W - 1) * W, 2 * (1 - 1 / W) * S, 2 * (W - 1)};
    coll_spec cs = {.op = COLL_ALLREDUCE, .alg = coll_choice_alg(p->allreduce), .ranks = p->workers,
                    .group = p->ar_group, .bytes = S > 0 ? (uint64_t)S : 0};
    uint64_t m, b, worst = 0;
    coll_count(&cs, &m, &b);
    for (uint32_t r = 0; r < p->workers; r++) {
        rank_bytes_ctx c = {0};
        coll_rank(&cs, r, rank_bytes_fn, &c);
        worst = c.bytes > worst ? c.bytes : worst;
    }
    double depth = ceil(log2(W));
    return (tr_ar_shape){(double)m, (double)worst, coll_tags(&cs) + 2 * depth};
}

/* What I iterations span at most: compute, the busiest rank's allreduce
 * traffic of the whole model at B, and the fabric's fixed latency of every
 * step (the allreduces run one at a time, each its steps after one
 * another). */
static double tr_span_s(const tr_params *p, const tr_profile *prof, const wl_resolve *rc, double I)
{
    double B = rc->net->bandwidth_bps, W = p->workers;
    double net_s = B > 0 ? 8 * 2 * (1 - 1 / W) * (double)prof->total_bytes / B : 0;
    double steps = (double)count_fusions(prof, p->fusion_bytes) * 2 * (W - 1);
    if (!tr_ring(p->allreduce)) { /* the module's algorithms (the ring's expression kept as it was) */
        tr_ar_shape sh = tr_ar_shape_of(p, (double)prof->total_bytes);
        net_s = B > 0 ? 8 * sh.rank_bytes / B : 0;
        steps = (double)count_fusions(prof, p->fusion_bytes) * sh.steps;
    }
    return I * (units_ps_to_s(prof->compute_ps) + net_s + steps * (double)rc->msg_fixed_ps * 1e-12);
}

/* Iterations a run starts: workload.iterations, or with a stop-time the
 * fewer that can start before it. An iteration lasts at least its compute
 * T_c and, on average, its ring traffic at B (each worker's uplink carries
 * 2 (W - 1) / W of the model per iteration, whatever the overlap): at most
 * floor(stop / max(T_c, ring)) + 1 start. */
static double tr_iterations_expected(const tr_params *p, const tr_profile *prof, double B)
{
    double I = p->iterations, W = p->workers;
    double ring_s = B > 0 ? 8 * 2 * (1 - 1 / W) * (double)prof->total_bytes / B : 0;
    double least_s = units_ps_to_s(prof->compute_ps) > ring_s ? units_ps_to_s(prof->compute_ps) : ring_s;
    if (p->stop_ps > 0 && least_s > 0) {
        double n = floor(units_ps_to_s(p->stop_ps) / least_s) + 1;
        if (n < I)
            I = n;
    }
    return I;
}

/* The profile must build and the run fit in the clock (tr_span_s). */
static int tr_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    const tr_params *p = params;
    tr_profile prof;
    char e2[PARAM_PATH_MAX + 256];
    if (profile_build(p, &prof, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "training: %s", e2);
    double I = p->iterations, span = tr_span_s(p, &prof, rc, I);
    profile_free(&prof);
    if (span > WL_HORIZON_S)
        return tn_error(err, errlen, "training: %g iterations of compute and ring traffic (with the fabric's latency of "
                        "each ring step) span %.3g s, more than the %g s a run can span", I, span, WL_HORIZON_S);
    return 0;
}

/* Negotiation rounds of one fusion (vef), generous: a rank needs
 * k = ceil(gatherv-total / gatherv-size) non-empty gathervs, one per round
 * with probability q, so k / q rounds on average (negative binomial, sd
 * sqrt(k (1 - q)) / q); the round count is the largest of W - 1 ranks':
 * the mean plus sqrt(2 ln W) sd, plus one. */
static double neg_rounds_of(double q, uint64_t gv, uint64_t total, uint32_t W)
{
    double k = gv > 0 ? ceil((double)total / gv) : 1;
    if (!(q > 0))
        return 1; /* never succeeds: resolve's horizon check has the say */
    if (k < 1)
        return 1;
    return (k + sqrt(k * (1 - q)) * sqrt(2 * log((double)W))) / q + 1;
}

/* Per fusion; with a trace's layers, their mean. */
static double neg_rounds(const tr_params *p)
{
    if (p->negotiation != TR_NEG_VEF)
        return 0;
    if (p->layer && p->nlayer) {
        double sum = 0;
        for (uint32_t i = 0; i < p->nlayer; i++)
            sum += neg_rounds_of(p->layer[i].gatherv_prob, p->layer[i].gatherv_bytes, p->layer[i].gatherv_total_bytes,
                                 p->workers);
        return sum / p->nlayer;
    }
    return neg_rounds_of(p->gatherv_prob, p->gatherv_bytes, p->gatherv_total_bytes, p->workers);
}

/* Per iteration started (tr_iterations_expected) and per fusion: an
 * allreduce, 2 (W - 1) steps of W messages, and with vef its negotiation
 * rounds, 4 (W - 1) messages each. At most W ring messages and 2 (W - 1)
 * negotiation messages are alive at once. Memory: the layer profile and
 * fusions, per iteration of workload.iterations its records, per rank its
 * counters. Horizon: tr_span_s of the iterations started. */
static void tr_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const tr_params *p = params;
    tr_profile prof;
    char e2[PARAM_PATH_MAX + 256];
    if (p->workers < 2 || profile_build(p, &prof, e2, sizeof e2) != 0)
        return;
    double I = tr_iterations_expected(p, &prof, rc->net->bandwidth_bps), W = p->workers, L = prof.L;
    double nf = (double)count_fusions(&prof, p->fusion_bytes);
    double ar_msgs = tr_ring(p->allreduce) ? 2 * (W - 1) * W : tr_ar_shape_of(p, 0).messages;
    out->messages = I * nf * (ar_msgs + neg_rounds(p) * 4 * (W - 1));
    out->mem_bytes = sizeof(tr) + L * (sizeof(uint64_t) + 2 * sizeof(int64_t) + sizeof(tr_fusion) + sizeof(uint32_t)) +
                     nf * 2 * sizeof(tr_queued) + (double)p->iterations * (sizeof(uint32_t) + 2 * sizeof(int64_t)) +
                     W * 2 * sizeof(uint64_t) + 3 * W * sizeof(net_msg);
    out->horizon_s = tr_span_s(p, &prof, rc, I);
    profile_free(&prof);
}

static void tr_analyze(const void *params, const wl_resolve *rc, wl_analysis *out)
{
    const tr_params *p = params;
    tr_profile prof;
    char e2[PARAM_PATH_MAX + 256];
    if (profile_build(p, &prof, e2, sizeof e2) != 0) {
        snprintf(out->text, sizeof out->text, "  training  %s\n", e2);
        return;
    }
    double B = rc->net->bandwidth_bps, W = p->workers, M = (double)prof.total_bytes;
    double Tc = units_ps_to_s(prof.compute_ps), Tnet = B > 0 ? 8 * 2 * (1 - 1 / W) * M / B : NAN;
    wl_analysis_add(out, "layers", prof.L);
    wl_analysis_add(out, "model_bytes", M);
    wl_analysis_add(out, "compute_s", Tc);
    wl_analysis_add(out, "ring_time_s", Tnet);
    wl_analysis_add(out, "compute_to_network_ratio", Tc / Tnet);
    snprintf(out->text, sizeof out->text,
             "  training  L=%u  M=%.6g B  T_c=%.6g s  ring bytes at B: %.6g s  R=%.6g\n", prof.L, M, Tc, Tnet,
             Tc / Tnet);
    profile_free(&prof);
}

static const wl_column tr_table[] = {
    {"iteration_time_mean_s", "iteration_s"},
    {"allreduce_time_mean_s", "allreduce_s"},
    {"exposed_comm_mean_s", "exposed_s"},
    {"link_utilization", "link_util"},
    {"compute_to_network_ratio", "R"},
    {NULL, NULL},
};

const wl_ops wl_training_ops = {
    .name = "training",
    .description = "data-parallel training: ring allreduce of fused tensors (Horovod), fifo or priority "
                   "transmission, inter-iteration barrier (Gao 2020; Andujar et al.'s negotiation optional)",
    .state_size = sizeof(tr),
    .params = tr_rows,
    .nparams = sizeof tr_rows / sizeof tr_rows[0],
    .params_size = sizeof(tr_params),
    .check = tr_check,
    .resolve = tr_resolve,
    .analyze = tr_analyze,
    .estimate = tr_estimate,
    .init = tr_init,
    .deliver = tr_deliver,
    .finish = tr_finish,
    .fini = tr_fini,
    .finished = tr_finished,
    .metrics = tr_metrics_def,
    .nmetrics = TR_NMETRICS,
    .table = tr_table,
    .plot_y = "iteration_time_mean_s",
};
