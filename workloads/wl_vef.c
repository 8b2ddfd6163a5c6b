/* The vef workload: seed 000's extended VEF trace files (issue 20 item 1),
 * <workload type="vef" file="x.vef"/>, each model mapped onto the workload
 * that already simulates it: DCNW, CDCNW and FLOWS onto dc-flows
 * (workloads/wl_dc_flows.c), HOROVOD onto training with negotiation=vef
 * (workloads/wl_training.c). The file is read by every op that needs it
 * (check, resolve, estimate, analyze, init: a few lines), so the params
 * hold only the file; an instance owns the inner workload's params and
 * state, and the inner workload draws from its own streams with this
 * workload's name: a trace and the configuration it stands for give the
 * same numbers for the same seed (tests/check_vef.c compares every metric).
 *
 * Format (seed 000 sec. 3; its listings are images, so where the order of
 * fields is not printed it is ours, and keywords are accepted in any order
 * and in any case). Tokens are separated by blanks; blank lines and lines
 * starting with '#' are skipped (ours: the seed shows none).
 *   line 1, the trace header (seed 000, printed):
 *     VEF3 #Task #Msgs #COMM gGComm lGCom oSFlag [clock]
 *   #Task: tasks, ranks 0..#Task-1 of the workload (at most its nodes; the
 *   others idle); #Msgs: messages (DCNW, CDCNW) or flows (FLOWS) in all;
 *   #COMM gGComm lGCom oSFlag: integers, unused by these models (seed 000);
 *   clock: ps per cycle, 1000 when omitted (seed 000).
 *   line 2: EXT DCNW | CDCNW | FLOWS | HOROVOD.
 *   DCNW (sec. 3.1): one record, `model [destination] [LOAD l]`: model one
 *     of the size distributions of dc-flows (workload.sizes) by its name or
 *     an alias: WEBSEARCH|DCTCP|W5 = dctcp-websearch, MEMCACHED|KEYVALUE|W1
 *     = fb-keyvalue, CACHEFOLLOWER = fb-cachefollower, WEBSERVER =
 *     fb-webserver, HADOOP|W4 = fb-hadoop, GOOGLE|GOOGLE_ALL|W3 =
 *     google-allrpc (the aggregated Google workload of listing 3),
 *     GOOGLE_SEARCH|W2 = google-searchrpc (HOMA's W1-W5, seed 000's
 *     ref. [10]); destination UNIFORM (default) | GAUSS | GAUSSIAN |
 *     POISSON; LOAD l: Gb/s generated per task, 1 by default (seed 000).
 *     Mapped: sizes=model, load-rate=l Gb/s, flows=#Msgs, destinations.
 *   CDCNW: the same, the model replaced by the user's size distribution
 *     file: a CDF table "bytes,cumulative fraction" as dc-flows'
 *     empirical(FILE) reads it (step sampling), relative to the trace's
 *     folder (the seed's file format is in its unavailable supplement).
 *   FLOWS (sec. 3.2): `CLASSES c TIME t [destination]`, then c class lines
 *     `id MAX max MIN min PERC p [destination]`, the id first, the rest in
 *     any order (seed 000); sizes in KB = 1000 B (dc-flows' convention),
 *     uniform on [min, max] (a constant when equal); p percent of the
 *     flows, summing to 100; a class without a destination takes the
 *     default (UNIFORM when the record gives none). Mapped: flows=#Msgs,
 *     flow-rate = #Msgs / (t clock #Task) per task (the superposition of
 *     the #Task Poisson sources is seed 000's one process of #Msgs flows
 *     over t cycles: wl_dc_flows.c's head), classes share=p/100,
 *     size=uniform(min kB, max kB), any number of them (the per-class
 *     metrics are the first four's).
 *   HOROVOD (sec. 3.3): `BATCHES b LAYERS l` (any order), then `DEFAULT`
 *     with every field, then per-layer records `id` with any of them (the
 *     default's values elsewhere; the seed's listing 8 overrides two
 *     fields of layer 3), fields in any order: COMPUTE_MS c (ms, > 0),
 *     NEGOTIATION_LOOP_MS nl (ms, > 0), GATV_BYTES, GATV_TOTAL_BYTES,
 *     BCAST_BYTES (bytes, integers > 0), GATV_PROB (in [0, 1]), ARED_KBYTES
 *     (the allreduce, KB = 1000 B). #Msgs is unused (0 allowed). Mapped:
 *     training with negotiation=vef (its head gives the rounds: 4-B gather,
 *     gatherv or empty 25-B one, the master's 4-B and bcast or 25-B
 *     broadcasts), workers=#Task, iterations=b, fusion-buffer=0 (a fusion
 *     per layer), layer i computed i-th (training's layer l-1-i: backward
 *     time c, no forward time, gradient bytes akb x 1000), each layer with
 *     its own negotiation values, the loop a constant nl (the seed gives
 *     its mean). Where the two models differ: training lets a worker
 *     compute its next layer while the previous one negotiates and
 *     reduces (Horovod's background thread, Gao 2020 sec. 4.3); the seed's
 *     step 5 -> 1 reads as the next layer's compute after the allreduce.
 * Errors name the trace file and line, as the configuration's do.
 *
 * Metrics: dc-flows' for the flow models, training's for HOROVOD (NAN
 * otherwise). Several workloads: a traffic source (it shares its nodes,
 * stops when told; training has no stop). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dc_flows.h"
#include "training.h"
#include "infile.h"
#include "log.h"
#include "metrics.h"
#include "network.h"
#include "units.h"
#include "workload.h"

extern const wl_ops wl_dc_flows_ops;
extern const wl_ops wl_training_ops;

enum { VEF_DCNW = 0, VEF_CDCNW, VEF_FLOWS, VEF_HOROVOD };
static const char *const vef_model_names[] = {"DCNW", "CDCNW", "FLOWS", "HOROVOD", NULL};

/* HOROVOD's layer fields (Andujar et al. sec. 3.3), in the order of tr_layer's use. */
enum { HV_COMPUTE_MS = 0, HV_LOOP_MS, HV_GATV_BYTES, HV_GATV_TOTAL_BYTES, HV_GATV_PROB, HV_BCAST_BYTES, HV_ARED_KBYTES,
       HV_FIELDS };
static const char *const hv_field_names[HV_FIELDS] = {"COMPUTE_MS",       "NEGOTIATION_LOOP_MS", "GATV_BYTES",
                                                      "GATV_TOTAL_BYTES", "GATV_PROB",           "BCAST_BYTES",
                                                      "ARED_KBYTES"};

/* Destinations as dc-flows numbers them; -1: not given. */
enum { VEF_DEST_NONE = -1, VEF_DEST_UNIFORM = 0, VEF_DEST_GAUSSIAN = 1, VEF_DEST_POISSON = 2 };

typedef struct vef_class {
    int given;             /* flag: its line was read */
    double min_kb, max_kb; /* KB = 1000 B */
    double perc;
    int dest;              /* VEF_DEST_* */
    long line;
} vef_class;

/* What a trace file says. */
typedef struct vef_trace {
    char path[PARAM_PATH_MAX];
    uint32_t tasks;
    uint64_t msgs;
    uint64_t clock_ps;
    int model;                    /* VEF_* */
    char sizes[PARAM_PATH_MAX + 32]; /* DCNW: dc-flows' name; CDCNW: empirical(<path>) */
    char load[64];                /* LOAD as written, "" = 1 Gb/s */
    int dest;                     /* VEF_DEST_* (FLOWS: the default) */
    uint64_t time_cycles;         /* FLOWS */
    uint32_t nclasses;
    vef_class *cls;               /* [nclasses] */
    uint64_t batches;             /* HOROVOD */
    uint32_t nlayers;
    double (*hv)[HV_FIELDS];      /* [nlayers] each layer's fields (the default's where not overridden) */
} vef_trace;

static void vef_trace_free(vef_trace *t)
{
    free(t->cls);
    free(t->hv);
    t->cls = NULL;
    t->hv = NULL;
}

typedef struct vef_params {
    param_file file;
    int overlap_off; /* HOROVOD: training's workload.overlap (0 on, 1 off) */
} vef_params;

static const char *const vef_onoff_names[] = {"on", "off", NULL};

static const param_row vef_rows[] = {
    {.path = "workload.file", .type = "file", .unit = "", .def = "",
     .help = "vef: an extended VEF trace (Andujar et al.: VEF3 header, EXT DCNW | CDCNW | FLOWS | HOROVOD records)",
     .kind = PARAM_FILE, .off = offsetof(vef_params, file), .flags = PARAM_REQUIRED, .example = "vef-example.vef"},
    {.path = "workload.overlap", .type = "choice", .unit = "", .def = "on",
     .help = "vef, HOROVOD: on: a layer computes while the one before negotiates and reduces (training's overlap); "
             "off: compute, negotiation and allreduce of a layer one after the other, as Andujar et al.'s steps 1-5",
     .kind = PARAM_CHOICE, .off = offsetof(vef_params, overlap_off), .choices = vef_onoff_names, .example = "off"},
};

/* dc-flows' metrics, then training's */
#define VEF_METRICS(X) DCF_METRICS(X) TR_METRICS(X)
enum { VEF_METRICS(METRIC_ENUM) VEF_NMETRICS };
static const metric_def vef_metrics_def[] = {VEF_METRICS(METRIC_DEF)};
#define VEF_ONE(name, desc) +1
enum { VEF_DCF_BASE = 0, VEF_TR_BASE = 0 DCF_METRICS(VEF_ONE) }; /* each one's metrics from here */

/* ------------------------------------------------------------- reading */

typedef struct vef_reader {
    const char *path;
    long line;
    char *err;
    size_t errlen;
} vef_reader;

static int rd_error(vef_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rd_error(vef_reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->line > 0)
        return tn_error(r->err, r->errlen, "%s:%ld: %s", r->path, r->line, msg);
    return tn_error(r->err, r->errlen, "%s: %s", r->path, msg);
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* An unsigned integer token, whole. */
static int tok_u64(const char *s, uint64_t *v)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *v = x;
    return 0;
}

/* A finite number token, whole. */
static int tok_real(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

static int tok_dest(const char *s)
{
    if (ieq(s, "UNIFORM"))
        return VEF_DEST_UNIFORM;
    if (ieq(s, "GAUSS") || ieq(s, "GAUSSIAN"))
        return VEF_DEST_GAUSSIAN;
    if (ieq(s, "POISSON"))
        return VEF_DEST_POISSON;
    return VEF_DEST_NONE;
}

/* DCNW models: dc-flows' names and seed 000's / HOMA's names for them. */
static const struct {
    const char *alias, *name;
} vef_size_alias[] = {
    {"WEBSEARCH", "dctcp-websearch"}, {"DCTCP", "dctcp-websearch"},   {"W5", "dctcp-websearch"},
    {"MEMCACHED", "fb-keyvalue"},     {"KEYVALUE", "fb-keyvalue"},    {"W1", "fb-keyvalue"},
    {"CACHEFOLLOWER", "fb-cachefollower"}, {"WEBSERVER", "fb-webserver"},
    {"HADOOP", "fb-hadoop"},          {"W4", "fb-hadoop"},            {"GOOGLE", "google-allrpc"},
    {"GOOGLE_ALL", "google-allrpc"},  {"W3", "google-allrpc"},        {"GOOGLE_SEARCH", "google-searchrpc"},
    {"W2", "google-searchrpc"},       {"dctcp-websearch", NULL},      {"fb-keyvalue", NULL},
    {"fb-cachefollower", NULL},       {"fb-webserver", NULL},         {"fb-hadoop", NULL},
    {"google-allrpc", NULL},          {"google-searchrpc", NULL},     {"websearch", NULL},
    {"alistorage", NULL},             {"datamining", NULL},
};

static const char *tok_model(const char *s)
{
    char t[64];
    size_t n = strlen(s);
    if (n >= sizeof t)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        t[i] = s[i] == '-' ? '_' : s[i];
    for (size_t i = 0; i < sizeof vef_size_alias / sizeof vef_size_alias[0]; i++) {
        char a[64];
        const char *src = vef_size_alias[i].alias;
        size_t m = strlen(src);
        for (size_t k = 0; k <= m; k++)
            a[k] = src[k] == '-' ? '_' : src[k];
        if (ieq(t, a))
            return vef_size_alias[i].name ? vef_size_alias[i].name : vef_size_alias[i].alias;
    }
    return NULL;
}

#define VEF_MAX_TOKENS 64

/* The next record of f (blank and # lines skipped): its tokens, 0 at EOF. */
static int next_record(FILE *f, vef_reader *r, char **line, size_t *cap, char **tok, int *ntok)
{
    while (getline(line, cap, f) >= 0) {
        r->line++;
        char *p = *line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
            continue;
        int n = 0;
        for (char *s = strtok(p, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
            if (n == VEF_MAX_TOKENS)
                return rd_error(r, "more than %d fields", VEF_MAX_TOKENS);
            tok[n++] = s;
        }
        *ntok = n;
        return 1;
    }
    return 0;
}

/* `model|file [destination] [LOAD l]` of DCNW and CDCNW. */
static int read_dcnw(vef_reader *r, vef_trace *t, char **tok, int n, const char *dir)
{
    int have_sizes = 0;
    t->dest = VEF_DEST_NONE;
    for (int i = 0; i < n; i++) {
        int d = tok_dest(tok[i]);
        if (ieq(tok[i], "LOAD")) {
            double l;
            if (i + 1 >= n || tok_real(tok[i + 1], &l) != 0 || !(l > 0))
                return rd_error(r, "LOAD takes the Gb/s each task generates, a number > 0");
            if (t->load[0])
                return rd_error(r, "LOAD given twice");
            snprintf(t->load, sizeof t->load, "%sGb/s", tok[++i]);
        } else if (d != VEF_DEST_NONE) {
            if (t->dest != VEF_DEST_NONE)
                return rd_error(r, "two destination distributions ('%s')", tok[i]);
            t->dest = d;
        } else if (!have_sizes && t->model == VEF_DCNW) {
            const char *name = tok_model(tok[i]);
            if (!name)
                return rd_error(r, "unknown DCNW model '%s' (expected GOOGLE, GOOGLE_SEARCH, WEBSEARCH, MEMCACHED, "
                                   "CACHEFOLLOWER, WEBSERVER, HADOOP, W1..W5 or a dc-flows size name)",
                                tok[i]);
            snprintf(t->sizes, sizeof t->sizes, "%s", name);
            have_sizes = 1;
        } else if (!have_sizes && t->model == VEF_CDCNW) {
            char path[PARAM_PATH_MAX];
            int k = tok[i][0] == '/' ? snprintf(path, sizeof path, "%s", tok[i])
                                     : snprintf(path, sizeof path, "%s/%s", dir, tok[i]);
            if (k < 0 || (size_t)k >= sizeof path)
                return rd_error(r, "size distribution file name too long");
            char why[512];
            FILE *g = tn_open_input(path, "r", why, sizeof why);
            if (!g)
                return rd_error(r, "cannot read the size distribution file: %s", why);
            fclose(g);
            snprintf(t->sizes, sizeof t->sizes, "empirical(%s)", path);
            have_sizes = 1;
        } else
            return rd_error(r, "unexpected '%s' (expected %s, a destination UNIFORM|GAUSS|POISSON or LOAD l)", tok[i],
                            have_sizes ? "nothing more of the sizes"
                                       : t->model == VEF_DCNW ? "a model" : "a size distribution file");
    }
    if (!have_sizes)
        return rd_error(r, "%s needs %s", vef_model_names[t->model],
                        t->model == VEF_DCNW ? "a model (e.g. GOOGLE)" : "a size distribution file");
    if (t->dest == VEF_DEST_NONE)
        t->dest = VEF_DEST_UNIFORM;
    return 0;
}

static int read_flows_head(vef_reader *r, vef_trace *t, char **tok, int n)
{
    uint64_t c = 0;
    int have_c = 0, have_t = 0;
    t->dest = VEF_DEST_NONE;
    for (int i = 0; i < n; i++) {
        int d = tok_dest(tok[i]);
        if (ieq(tok[i], "CLASSES")) {
            if (have_c || i + 1 >= n || tok_u64(tok[i + 1], &c) != 0 || c < 1 || c > 1000000)
                return rd_error(r, "CLASSES takes the number of traffic classes, an integer > 0 (once)");
            have_c = 1;
            i++;
        } else if (ieq(tok[i], "TIME")) {
            if (have_t || i + 1 >= n || tok_u64(tok[i + 1], &t->time_cycles) != 0 || t->time_cycles < 1)
                return rd_error(r, "TIME takes the generation time in cycles, an integer > 0 (once)");
            have_t = 1;
            i++;
        } else if (d != VEF_DEST_NONE) {
            if (t->dest != VEF_DEST_NONE)
                return rd_error(r, "two default destination distributions");
            t->dest = d;
        } else
            return rd_error(r, "unexpected '%s' (expected CLASSES c, TIME t and a destination UNIFORM|GAUSS|POISSON)",
                            tok[i]);
    }
    if (!have_c)
        return rd_error(r, "FLOWS needs CLASSES c");
    if (!have_t)
        return rd_error(r, "FLOWS needs TIME t");
    if (t->dest == VEF_DEST_NONE)
        t->dest = VEF_DEST_UNIFORM;
    t->nclasses = (uint32_t)c;
    t->cls = tn_xcalloc(c, sizeof *t->cls);
    return 0;
}

static int read_flows_class(vef_reader *r, vef_trace *t, char **tok, int n)
{
    uint64_t id;
    if (tok_u64(tok[0], &id) != 0 || id >= t->nclasses)
        return rd_error(r, "a class line starts with its id, an integer in [0, %u] (got '%s')", t->nclasses - 1,
                        tok[0]);
    vef_class *c = &t->cls[id];
    if (c->given)
        return rd_error(r, "class %llu given twice (first at line %ld)", (unsigned long long)id, c->line);
    int have_max = 0, have_min = 0, have_p = 0;
    c->dest = VEF_DEST_NONE;
    for (int i = 1; i < n; i++) {
        double v = 0;
        int d = tok_dest(tok[i]);
        int kw = ieq(tok[i], "MAX") ? 1 : ieq(tok[i], "MIN") ? 2 : ieq(tok[i], "PERC") ? 3 : 0;
        if (kw) {
            int *have = kw == 1 ? &have_max : kw == 2 ? &have_min : &have_p;
            if (*have)
                return rd_error(r, "class %llu: %s given twice", (unsigned long long)id, tok[i]);
            if (i + 1 >= n || tok_real(tok[i + 1], &v) != 0 || !(v > 0) || (kw == 3 && v > 100))
                return rd_error(r, "class %llu: %s takes %s", (unsigned long long)id, tok[i],
                                kw == 3 ? "a percentage of the flows, in (0, 100]" : "a size in KB, > 0");
            if (kw == 1)
                c->max_kb = v;
            else if (kw == 2)
                c->min_kb = v;
            else
                c->perc = v;
            *have = 1;
            i++;
        } else if (d != VEF_DEST_NONE) {
            if (c->dest != VEF_DEST_NONE)
                return rd_error(r, "class %llu: two destination distributions", (unsigned long long)id);
            c->dest = d;
        } else
            return rd_error(r, "class %llu: unexpected '%s' (expected MAX max, MIN min, PERC p, a destination)",
                            (unsigned long long)id, tok[i]);
    }
    if (!have_max || !have_min || !have_p)
        return rd_error(r, "class %llu needs MAX, MIN and PERC (missing %s)", (unsigned long long)id,
                        !have_max ? "MAX" : !have_min ? "MIN" : "PERC");
    if (c->min_kb > c->max_kb)
        return rd_error(r, "class %llu: MIN %g KB is above MAX %g KB", (unsigned long long)id, c->min_kb, c->max_kb);
    if (c->dest == VEF_DEST_NONE)
        c->dest = t->dest;
    c->given = 1;
    c->line = r->line;
    return 0;
}

/* One field value of a HOROVOD layer record: its checks (Andujar et al.
 * sec. 3.3: integers > 0 but the two times, floats > 0, and GATV_PROB, in
 * [0, 1]). */
static int hv_value(vef_reader *r, int k, const char *text, double *v)
{
    uint64_t u;
    if (k == HV_COMPUTE_MS || k == HV_LOOP_MS) {
        if (tok_real(text, v) != 0 || !(*v > 0) || *v > 1e8)
            return rd_error(r, "%s takes milliseconds, a number > 0 (got '%s')", hv_field_names[k], text);
    } else if (k == HV_GATV_PROB) {
        if (tok_real(text, v) != 0 || !(*v >= 0 && *v <= 1))
            return rd_error(r, "GATV_PROB takes a probability in [0, 1] (got '%s')", text);
    } else {
        if (tok_u64(text, &u) != 0 || u < 1 || u > (uint64_t)1e12)
            return rd_error(r, "%s takes an integer > 0 (got '%s')", hv_field_names[k], text);
        *v = (double)u;
    }
    return 0;
}

/* `FIELD value ...` of a layer record from tok[first]; every field when all. */
static int hv_fields(vef_reader *r, char **tok, int n, int first, double *out, int all, const char *what)
{
    int have[HV_FIELDS] = {0}, any = 0;
    for (int i = first; i < n; i++) {
        int k = -1;
        for (int j = 0; j < HV_FIELDS; j++)
            if (ieq(tok[i], hv_field_names[j]))
                k = j;
        if (k < 0)
            return rd_error(r, "%s: unexpected '%s' (expected COMPUTE_MS, NEGOTIATION_LOOP_MS, GATV_BYTES, "
                               "GATV_TOTAL_BYTES, GATV_PROB, BCAST_BYTES, ARED_KBYTES, each with its value)",
                            what, tok[i]);
        if (have[k])
            return rd_error(r, "%s: %s given twice", what, hv_field_names[k]);
        if (i + 1 >= n)
            return rd_error(r, "%s: %s has no value", what, hv_field_names[k]);
        if (hv_value(r, k, tok[++i], &out[k]) != 0)
            return -1;
        have[k] = any = 1;
    }
    for (int k = 0; all && k < HV_FIELDS; k++)
        if (!have[k])
            return rd_error(r, "%s needs every field (missing %s)", what, hv_field_names[k]);
    if (!any)
        return rd_error(r, "%s overrides no field", what);
    return 0;
}

/* HOROVOD (sec. 3.3): `BATCHES b LAYERS l`, `DEFAULT <every field>`, then
 * per-layer records `i <some fields>`, each layer at most once. */
static int read_horovod(FILE *f, vef_reader *r, vef_trace *t, char **line, size_t *cap, char **tok, int n)
{
    uint64_t layers = 0;
    int have_b = 0, have_l = 0;
    for (int i = 0; i < n; i++) {
        int isb = ieq(tok[i], "BATCHES"), isl = ieq(tok[i], "LAYERS");
        uint64_t v;
        if (!isb && !isl)
            return rd_error(r, "unexpected '%s' (expected BATCHES b and LAYERS l)", tok[i]);
        if ((isb ? have_b : have_l) || i + 1 >= n || tok_u64(tok[i + 1], &v) != 0 || v < 1 ||
            v > (isb ? UINT32_MAX : 100000))
            return rd_error(r, "%s takes an integer > 0 (once)", isb ? "BATCHES" : "LAYERS");
        if (isb) {
            t->batches = v;
            have_b = 1;
        } else {
            layers = v;
            have_l = 1;
        }
        i++;
    }
    if (!have_b || !have_l)
        return rd_error(r, "HOROVOD needs BATCHES b and LAYERS l (missing %s)", have_b ? "LAYERS" : "BATCHES");
    t->nlayers = (uint32_t)layers;
    int got = next_record(f, r, line, cap, tok, &n);
    if (got <= 0)
        return got < 0 ? -1 : rd_error(r, "HOROVOD needs a DEFAULT layer record after BATCHES and LAYERS");
    if (!ieq(tok[0], "DEFAULT"))
        return rd_error(r, "expected the DEFAULT layer record (got '%s')", tok[0]);
    double def[HV_FIELDS];
    if (hv_fields(r, tok, n, 1, def, 1, "DEFAULT") != 0)
        return -1;
    t->hv = tn_xcalloc(t->nlayers, sizeof *t->hv);
    long *seen = tn_xcalloc(t->nlayers, sizeof *seen);
    for (uint32_t i = 0; i < t->nlayers; i++)
        memcpy(t->hv[i], def, sizeof def);
    int rc = 0;
    while (rc == 0 && (got = next_record(f, r, line, cap, tok, &n)) > 0) {
        uint64_t id;
        if (tok_u64(tok[0], &id) != 0 || id >= t->nlayers) {
            rc = rd_error(r, "a layer record starts with its id, an integer in [0, %u] (got '%s')", t->nlayers - 1,
                          tok[0]);
            break;
        }
        if (seen[id]) {
            rc = rd_error(r, "layer %llu given twice (first at line %ld)", (unsigned long long)id, seen[id]);
            break;
        }
        seen[id] = r->line;
        char what[64];
        snprintf(what, sizeof what, "layer %llu", (unsigned long long)id);
        rc = hv_fields(r, tok, n, 1, t->hv[id], 0, what);
    }
    free(seen);
    if (got < 0)
        rc = -1;
    return rc;
}

/* Read the trace at path into t (t->cls owned: vef_trace_free). */
static int vef_read(const char *path, vef_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    vef_reader r = {.path = path, .err = err, .errlen = errlen};
    char why[512];
    FILE *f = tn_open_input(path, "r", why, sizeof why);
    if (!f)
        return tn_error(err, errlen, "%s", why);
    char dir[PARAM_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    char *line = NULL, *tok[VEF_MAX_TOKENS];
    size_t cap = 0;
    int n = 0, rc = 0, got;
    uint32_t classes_read = 0;
    long head_line = 0;
    /* the header */
    if ((got = next_record(f, &r, &line, &cap, tok, &n)) <= 0) {
        rc = got < 0 ? -1 : rd_error(&r, "empty trace (expected the header VEF3 #Task #Msgs ...)");
        goto out;
    }
    uint64_t v[7];
    if (strcmp(tok[0], "VEF3") != 0 || (n != 7 && n != 8)) {
        rc = rd_error(&r, "expected the header 'VEF3 #Task #Msgs #COMM gGComm lGCom oSFlag [clock]'");
        goto out;
    }
    for (int i = 1; i < n; i++)
        if (tok_u64(tok[i], &v[i - 1]) != 0) {
            static const char *const field[] = {"#Task", "#Msgs", "#COMM", "gGComm", "lGCom", "oSFlag", "clock"};
            rc = rd_error(&r, "header field %s is '%s', not an integer >= 0", field[i - 1], tok[i]);
            goto out;
        }
    if (v[0] < 2 || v[0] > UINT32_MAX) {
        rc = rd_error(&r, "#Task is %llu: these models need at least 2 tasks", (unsigned long long)v[0]);
        goto out;
    }
    t->tasks = (uint32_t)v[0];
    t->msgs = v[1];
    t->clock_ps = n == 8 ? v[6] : 1000;
    if (t->clock_ps < 1) {
        rc = rd_error(&r, "clock is 0 ps per cycle");
        goto out;
    }
    /* EXT type */
    if ((got = next_record(f, &r, &line, &cap, tok, &n)) <= 0) {
        rc = got < 0 ? -1 : rd_error(&r, "no EXT record after the header (expected 'EXT DCNW|CDCNW|FLOWS|HOROVOD')");
        goto out;
    }
    if (strcmp(tok[0], "EXT") != 0 || n != 2) {
        rc = rd_error(&r, "expected 'EXT DCNW|CDCNW|FLOWS|HOROVOD' (a trace of MPI events is not an extended trace)");
        goto out;
    }
    t->model = -1;
    for (int i = 0; vef_model_names[i]; i++)
        if (ieq(tok[1], vef_model_names[i]))
            t->model = i;
    if (t->model < 0) {
        rc = rd_error(&r, "unknown extended model '%s' (expected DCNW, CDCNW, FLOWS or HOROVOD)", tok[1]);
        goto out;
    }
    if (t->msgs < 1 && t->model != VEF_HOROVOD) {
        r.line = 1;
        rc = rd_error(&r, "#Msgs is 0: nothing to generate");
        goto out;
    }
    /* the model's records */
    if ((got = next_record(f, &r, &line, &cap, tok, &n)) <= 0) {
        rc = got < 0 ? -1 : rd_error(&r, "EXT %s has no record", vef_model_names[t->model]);
        goto out;
    }
    if (t->model == VEF_HOROVOD) {
        rc = read_horovod(f, &r, t, &line, &cap, tok, n);
        goto out;
    }
    if (t->model == VEF_FLOWS) {
        head_line = r.line;
        if ((rc = read_flows_head(&r, t, tok, n)) != 0)
            goto out;
        while ((got = next_record(f, &r, &line, &cap, tok, &n)) > 0) {
            if (classes_read == t->nclasses) {
                rc = rd_error(&r, "more class lines than CLASSES %u", t->nclasses);
                goto out;
            }
            if ((rc = read_flows_class(&r, t, tok, n)) != 0)
                goto out;
            classes_read++;
        }
        if (got < 0) {
            rc = -1;
            goto out;
        }
        if (classes_read < t->nclasses) {
            r.line = head_line;
            rc = rd_error(&r, "CLASSES %u, and %u class lines follow", t->nclasses, classes_read);
            goto out;
        }
        double sum = 0;
        for (uint32_t k = 0; k < t->nclasses; k++)
            sum += t->cls[k].perc;
        if (fabs(sum - 100) > 1e-9) {
            r.line = head_line;
            rc = rd_error(&r, "the classes' PERC sum to %.12g, not 100", sum);
            goto out;
        }
        /* the rate must be a number: #Msgs / (t clock #Task) */
        if (!((double)t->time_cycles * (double)t->clock_ps < 1e12 * WL_HORIZON_S)) {
            r.line = head_line;
            rc = rd_error(&r, "TIME %llu cycles of %llu ps: more than the %g s a run can span",
                          (unsigned long long)t->time_cycles, (unsigned long long)t->clock_ps, WL_HORIZON_S);
            goto out;
        }
    } else {
        if ((rc = read_dcnw(&r, t, tok, n, dir)) != 0)
            goto out;
        if ((got = next_record(f, &r, &line, &cap, tok, &n)) != 0) {
            rc = got < 0 ? -1 : rd_error(&r, "unexpected record after the %s record", vef_model_names[t->model]);
            goto out;
        }
    }
out:
    free(line);
    fclose(f);
    if (rc)
        vef_trace_free(t);
    return rc;
}

/* ---------------------------------------------------- the inner workload */

/* Set the inner workload's row `path` from text, as a configuration would. */
static int set_row(const wl_ops *ops, void *block, const char *path, const char *text, char *err, size_t errlen)
{
    for (size_t i = 0; i < ops->nparams; i++) {
        const param_row *row = &ops->params[i];
        if (strcmp(row->path, path) != 0)
            continue;
        param_value v;
        char e2[512];
        if (param_parse(row, text, ".", &v, e2, sizeof e2) != 0)
            return tn_error(err, errlen, "%s=\"%s\": %s", path, text, e2);
        param_store(block, row, &v);
        return 0;
    }
    TN_ASSERT(0, "%s has no row %s", ops->name, path);
    return -1;
}

/* A model's workload: its ops, its params and what they point at. */
typedef struct vef_inner {
    const wl_ops *ops;
    void *params;              /* the ops' params struct (owned) */
    dcf_class_params *classes; /* FLOWS (owned) */
    uint32_t nclasses;
    tr_layer *layers;          /* HOROVOD (owned) */
    size_t metric_base;        /* its metrics in ours */
} vef_inner;

static void inner_free(vef_inner *in)
{
    for (uint32_t k = 0; k < in->nclasses; k++)
        dist_free(&in->classes[k].size);
    free(in->classes);
    free(in->layers);
    if (in->params)
        wl_params_free(in->ops, in->params);
    memset(in, 0, sizeof *in);
}

static const char *const vef_dest_text[] = {"uniform", "gaussian", "poisson"};

static int inner_dcf(const vef_trace *t, vef_inner *in, char *err, size_t errlen)
{
    in->ops = &wl_dc_flows_ops;
    in->metric_base = VEF_DCF_BASE;
    in->params = wl_params_new(in->ops);
    dcf_params *p = in->params;
    char num[64];
    snprintf(num, sizeof num, "%llu", (unsigned long long)t->msgs);
    if (set_row(in->ops, p, "workload.flows", num, err, errlen) != 0 ||
        set_row(in->ops, p, "workload.destinations", vef_dest_text[t->dest], err, errlen) != 0)
        return -1;
    p->tasks = t->tasks;
    if (t->model != VEF_FLOWS)
        return set_row(in->ops, p, "workload.sizes", t->sizes, err, errlen) != 0 ||
                       set_row(in->ops, p, "workload.load-rate", t->load[0] ? t->load : "1Gb/s", err, errlen) != 0
                   ? -1
                   : 0;
    /* #Msgs / (TIME clock #Task) per s: 1e12 #Msgs / (TIME clock_ps #Task), exact when it is an integer */
    p->flow_rate_per_s = 1e12 * (double)t->msgs / ((double)t->time_cycles * (double)t->clock_ps * (double)t->tasks);
    in->classes = tn_xcalloc(t->nclasses, sizeof *in->classes);
    in->nclasses = t->nclasses;
    for (uint32_t k = 0; k < t->nclasses; k++) {
        const vef_class *c = &t->cls[k];
        char spec[128];
        if (c->min_kb == c->max_kb)
            snprintf(spec, sizeof spec, "%.17gkB", c->min_kb);
        else
            snprintf(spec, sizeof spec, "uniform(%.17gkB,%.17gkB)", c->min_kb, c->max_kb);
        char e2[512];
        if (dist_parse(spec, UNIT_SIZE, ".", &in->classes[k].size, e2, sizeof e2) != 0)
            return tn_error(err, errlen, "%s:%ld: class %u: %s", t->path, c->line, k, e2);
        in->classes[k].share = c->perc / 100;
        in->classes[k].dest = c->dest == t->dest ? 0 : 1 + c->dest;
    }
    p->classes = in->classes;
    p->nclasses = in->nclasses;
    return 0;
}

/* HOROVOD as training with negotiation=vef: workers = #Task (rank 0 the
 * master), iterations = BATCHES, a fusion per layer; HOROVOD's layer i is
 * the i-th computed, so training's layer L-1-i (its backward pass runs from
 * the last layer down): backward time COMPUTE_MS, no forward time, gradient
 * bytes ARED_KBYTES x 1000, its own negotiation values (the loop time a
 * constant: the trace gives its mean); overlap as the vef workload's
 * (off: the seed's steps 1-5 one after the other for each layer). */
static int inner_tr(const vef_trace *t, int overlap_off, vef_inner *in, char *err, size_t errlen)
{
    in->ops = &wl_training_ops;
    in->metric_base = VEF_TR_BASE;
    in->params = wl_params_new(in->ops);
    char w[32], it[32];
    snprintf(w, sizeof w, "%u", t->tasks);
    snprintf(it, sizeof it, "%llu", (unsigned long long)t->batches);
    if (set_row(in->ops, in->params, "workload.workers", w, err, errlen) != 0 ||
        set_row(in->ops, in->params, "workload.iterations", it, err, errlen) != 0 ||
        set_row(in->ops, in->params, "workload.negotiation", "vef", err, errlen) != 0 ||
        set_row(in->ops, in->params, "workload.fusion-buffer", "0B", err, errlen) != 0 ||
        set_row(in->ops, in->params, "workload.overlap", overlap_off ? "off" : "on", err, errlen) != 0)
        return -1;
    uint32_t L = t->nlayers;
    in->layers = tn_xcalloc(L, sizeof *in->layers);
    for (uint32_t i = 0; i < L; i++) {
        const double *h = t->hv[i];
        tr_layer *l = &in->layers[L - 1 - i];
        l->bytes = (uint64_t)llround(h[HV_ARED_KBYTES] * 1000);
        l->fwd_ps = 0;
        l->bwd_ps = llround(h[HV_COMPUTE_MS] * 1e9);
        l->loop_ps = llround(h[HV_LOOP_MS] * 1e9);
        l->gatherv_bytes = (uint64_t)h[HV_GATV_BYTES];
        l->gatherv_total_bytes = (uint64_t)h[HV_GATV_TOTAL_BYTES];
        l->gatherv_prob = h[HV_GATV_PROB];
        l->bcast_bytes = (uint64_t)h[HV_BCAST_BYTES];
    }
    tr_params_set_layers(in->params, in->layers, L);
    return 0;
}

/* Read the trace of params and build its workload; 0, or -1 + err. */
static int vef_build(const vef_params *p, vef_trace *t, vef_inner *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    if (!p->file.text[0])
        return tn_error(err, errlen, "no trace file");
    if (vef_read(p->file.path[0] ? p->file.path : p->file.text, t, err, errlen) != 0)
        return -1;
    if (t->model != VEF_HOROVOD && p->overlap_off) {
        tn_error(err, errlen, "%s: overlap=\"off\" is for HOROVOD traces (this one is %s)", t->path,
                 vef_model_names[t->model]);
        vef_trace_free(t);
        return -1;
    }
    int rc = t->model == VEF_HOROVOD ? inner_tr(t, p->overlap_off, in, err, errlen) : inner_dcf(t, in, err, errlen);
    if (rc) {
        inner_free(in);
        vef_trace_free(t);
    }
    return rc;
}

/* ---------------------------------------------------------------- ops */

/* The inner check's problems, each at workload.file. */
typedef struct fwd_ctx {
    param_report *outer;
    const char *path;
} fwd_ctx;

static void fwd_invalid(void *ctx, const char *path, const char *msg)
{
    fwd_ctx *c = ctx;
    param_invalid(c->outer, "workload.file", "%s: %s (as %s)", c->path, msg, path);
}

static void fwd_missing(void *ctx, const char *path, const char *why)
{
    fwd_ctx *c = ctx;
    param_invalid(c->outer, "workload.file", "%s: %s is missing (%s)", c->path, path, why);
}

static void vef_check(const net_params *core, const void *params, param_report *rep)
{
    const vef_params *p = params;
    if (!p->file.text[0])
        return; /* PARAM_REQUIRED says so */
    vef_trace t;
    vef_inner in;
    char err[1024];
    if (vef_build(p, &t, &in, err, sizeof err) != 0) {
        param_invalid(rep, "workload.file", "%s", err);
        return;
    }
    if (core->nodes > 0 && t.tasks > core->nodes)
        param_invalid(rep, "workload.file", "%s:1: %u tasks need %u nodes (the workload has %u)", t.path, t.tasks,
                      t.tasks, core->nodes);
    else if (in.ops->check) {
        fwd_ctx c = {rep, t.path};
        param_report fwd = {.invalid = fwd_invalid, .missing = fwd_missing, .ctx = &c};
        in.ops->check(core, in.params, &fwd);
    }
    inner_free(&in);
    vef_trace_free(&t);
}

static int vef_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    vef_trace t;
    vef_inner in;
    if (vef_build(params, &t, &in, err, errlen) != 0)
        return -1;
    int r = 0;
    if (rc->nodes > 0 && t.tasks > rc->nodes)
        r = tn_error(err, errlen, "%s:1: %u tasks need %u nodes (the workload has %u)", t.path, t.tasks, t.tasks,
                     rc->nodes);
    else if (in.ops->resolve)
        r = in.ops->resolve(in.params, rc, err, errlen);
    inner_free(&in);
    vef_trace_free(&t);
    return r;
}

static void vef_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    vef_trace t;
    vef_inner in;
    char err[512];
    if (vef_build(params, &t, &in, err, sizeof err) != 0)
        return;
    if (in.ops->estimate)
        in.ops->estimate(in.params, rc, out);
    inner_free(&in);
    vef_trace_free(&t);
}

static void vef_analyze(const void *params, const wl_resolve *rc, wl_analysis *out)
{
    vef_trace t;
    vef_inner in;
    char err[512];
    if (vef_build(params, &t, &in, err, sizeof err) != 0)
        return;
    wl_analysis_add(out, "vef_tasks", t.tasks);
    wl_analysis_add(out, "vef_messages", (double)t.msgs);
    if (in.ops->analyze) {
        wl_analysis sub = {0};
        in.ops->analyze(in.params, rc, &sub);
        for (size_t i = 0; i < sub.n && out->n < WL_ANALYSIS_MAX; i++)
            wl_analysis_add(out, sub.kv[i].key, sub.kv[i].value);
        snprintf(out->text, sizeof out->text, "  vef       EXT %s, %u tasks, #Msgs %llu (as %s)\n%.1900s",
                 vef_model_names[t.model], t.tasks, (unsigned long long)t.msgs, in.ops->name, sub.text);
    }
    inner_free(&in);
    vef_trace_free(&t);
}

typedef struct vef {
    vef_trace t;
    vef_inner in;
    void *state; /* the inner workload's */
    int up, inner_up;
} vef;

static int vef_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    vef *w = state;
    memset(w, 0, sizeof *w);
    if (vef_build(env->params, &w->t, &w->in, err, errlen) != 0)
        return -1;
    w->up = 1;
    if (w->t.tasks > env->nodes)
        return tn_error(err, errlen, "%s:1: %u tasks need %u nodes (the workload has %u)", w->t.path, w->t.tasks,
                        w->t.tasks, env->nodes);
    w->state = tn_xcalloc(1, w->in.ops->state_size ? w->in.ops->state_size : 1);
    wl_env e = *env;
    e.params = w->in.params;
    if (w->in.ops->init(w->state, &e, err, errlen) != 0)
        return -1;
    w->inner_up = 1;
    return 0;
}

static void vef_deliver(void *state, net_msg *m)
{
    vef *w = state;
    w->in.ops->deliver(w->state, m);
}

static int vef_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    vef *w = state;
    return w->in.ops->finish(w->state, v, m + w->in.metric_base, span, err, errlen);
}

static void vef_fini(void *state)
{
    vef *w = state;
    if (w->inner_up && w->in.ops->fini)
        w->in.ops->fini(w->state);
    free(w->state);
    if (w->up) {
        inner_free(&w->in);
        vef_trace_free(&w->t);
    }
    memset(w, 0, sizeof *w);
}

static int vef_finished(const void *state)
{
    const vef *w = state;
    return w->in.ops->finished ? w->in.ops->finished(w->state) : 0;
}

static void vef_stop(void *state)
{
    vef *w = state;
    if (w->in.ops->stop)
        w->in.ops->stop(w->state);
}

static const wl_column vef_table[] = {
    {"flows_generated", "flows"},
    {"fct_mean_s", "fct_s"},
    {"fct_slowdown_mean", "slowdown"},
    {"execution_time_s", "exec_s"},
    {"iteration_time_mean_s", "iter_s"},
    {"negotiation_rounds", "rounds"},
    {NULL, NULL},
};

const wl_ops wl_vef_ops = {
    .name = "vef",
    .description = "an extended VEF trace file (Andujar et al.: DCNW, CDCNW, FLOWS as dc-flows; HOROVOD as training)",
    .state_size = sizeof(vef),
    .params = vef_rows,
    .nparams = sizeof vef_rows / sizeof vef_rows[0],
    .params_size = sizeof(vef_params),
    .check = vef_check,
    .resolve = vef_resolve,
    .analyze = vef_analyze,
    .estimate = vef_estimate,
    .init = vef_init,
    .deliver = vef_deliver,
    .finish = vef_finish,
    .fini = vef_fini,
    .finished = vef_finished,
    .stop = vef_stop,
    .shares_nodes = 1,
    .metrics = vef_metrics_def,
    .nmetrics = VEF_NMETRICS,
    .table = vef_table,
    .plot_y = "execution_time_s",
};
