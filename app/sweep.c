#include "sweep.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "csv.h"
#include "metrics.h"
#include "report.h"
#include "run.h"
#include "stats.h"
#include "trace.h"

/* ---------------------------------------------------------------- records */

typedef struct run_rec {
    int done;                 /* result present (this session or an earlier one) */
    uint64_t hash;            /* fingerprint of the point's configuration */
    double m[METRIC_COUNT];   /* metrics (wall_s only for runs of this session) */
} run_rec;

/* A process's resolved point, reused across that point's replicas. */
typedef struct point_cache {
    size_t point; /* SIZE_MAX = empty */
    cfg pc;
    footprint fp;
    run_fp_cache fps; /* footprints of the points resolved so far */
} point_cache;

struct sweep {
    const cfg *c;
    const sweep_opts *o;
    size_t npoints;
    uint64_t nruns;
    uint64_t *point_hash;     /* per point */
    run_rec *rec;             /* per run id */
    unsigned char *todo;      /* per run id: RUN_PENDING, RUN_INFLIGHT or 0 (done or not selected) */
    FILE *runs_csv;           /* appended as runs finish */
    FILE *timing_csv;
    double t0_s;
    uint64_t ndone_now, ntodo;
    double events_now;
    double last_summary_s;
    uint64_t next;            /* sweep_next resumes its scan here */
    point_cache pcache;       /* this process's resolved point */
    int giving_up;            /* a failure that would repeat: hand out no more runs */
};

enum { RUN_PENDING = 1, RUN_INFLIGHT = 2 };

static volatile sig_atomic_t interrupted;

/* First SIGINT/SIGTERM: stop handing out runs and drop the run in progress
 * here (finished runs are on disk already; a rerun redoes the dropped one).
 * A second: the default action, at once. */
static void on_signal(int sig)
{
    if (interrupted) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    interrupted = 1;
    run_abort();
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t sweep_hash(const void *data, size_t len, uint64_t h)
{
    const unsigned char *p = data;
    if (!h)
        h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Every parameter's canonical value: two configurations with the same
 * fingerprint simulate the same thing. */
static uint64_t cfg_fingerprint(const cfg *c)
{
    uint64_t h = 0;
    char buf[1024];
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        if (cfg_get(c, p->path, buf, sizeof buf) != 0)
            buf[0] = '\0';
        h = sweep_hash(p->path, strlen(p->path), h);
        h = sweep_hash("=", 1, h);
        h = sweep_hash(buf, strlen(buf), h);
        h = sweep_hash("\n", 1, h);
    }
    return h;
}

int sweep_parse_runs(const char *spec, uint64_t nruns, unsigned char *sel, char *err, size_t errlen)
{
    memset(sel, 0, nruns);
    const char *p = spec;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long a = strtoull(p, &end, 10), b;
        if (end == p || errno)
            return tn_error(err, errlen, "--runs '%s': expected ids and ranges like 3,5-9", spec);
        b = a;
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            b = strtoull(q, &end, 10);
            if (end == q || b < a)
                return tn_error(err, errlen, "--runs '%s': bad range at '%s'", spec, p);
            p = end;
        }
        if (b >= nruns)
            return tn_error(err, errlen, "--runs '%s': run %llu does not exist (runs 0-%llu)", spec,
                            b, (unsigned long long)(nruns - 1));
        for (unsigned long long i = a; i <= b; i++)
            sel[i] = 1;
        if (*p == ',')
            p++;
        else if (*p)
            return tn_error(err, errlen, "--runs '%s': unexpected '%c'", spec, *p);
    }
    return 0;
}

/* ------------------------------------------------------------------- CSV */

/* The runs.csv header this configuration writes, as one string. */
static char *runs_header(const cfg *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_runs_header(f, c);
    fclose(f);
    return buf;
}

/* Column layout of runs.csv: run,point,replica,seed,config_hash,<axes>,<metrics>. */
#define RUNS_FIXED_COLS 5

/* Parse one runs.csv row into (id, hash, metrics). 0 or -1. */
static int parse_row(char *line, size_t naxes, uint64_t *id, uint64_t *hash, double *m)
{
    enum { MAXF = 512 };
    char *f[MAXF];
    size_t n = csv_split(line, f, MAXF);
    size_t want = RUNS_FIXED_COLS + naxes;
    for (int i = 0; i < METRIC_COUNT; i++)
        want += metric_is_deterministic(i);
    if (n != want)
        return -1;
    char *end;
    *id = strtoull(f[0], &end, 10);
    if (*end)
        return -1;
    *hash = strtoull(f[4], &end, 16);
    if (*end)
        return -1;
    size_t k = RUNS_FIXED_COLS + naxes;
    for (int i = 0; i < METRIC_COUNT; i++) {
        if (!metric_is_deterministic(i)) {
            m[i] = 0;
            continue;
        }
        m[i] = strtod(f[k++], &end);
        if (*end)
            return -1;
    }
    return 0;
}

static void write_row(FILE *f, const sweep *sw, uint64_t id)
{
    size_t point = id / sw->c->replicas;
    uint64_t replica = id % sw->c->replicas;
    report_runs_row(f, sw->c, point, replica, sw->point_hash[point], sw->rec[id].m);
}

/* ------------------------------------------------------------ the folder */

static void axis_text(const cfg_axis *a, char *buf, size_t len)
{
    size_t l = (size_t)snprintf(buf, len, "%s =", a->param);
    for (size_t v = 0; v < a->nvalues && l < len; v++)
        l += (size_t)snprintf(buf + l, len - l, " %s", a->values[v]);
    if (a->with[0] && l < len)
        snprintf(buf + l, len - l, " (with %s)", a->with);
}

/* Say what differs between the configuration of the folder's earlier
 * results (its config.xml) and this one. */
static void explain_change(const sweep *sw)
{
    char path[CFG_PATH_MAX + 32], a[512], b[512];
    snprintf(path, sizeof path, "%s/config.xml", sw->o->out);
    cfg old;
    cfg_defaults(&old);
    cfg_errors errs;
    cfg_errors_init(&errs);
    int loaded = cfg_load(&old, path, &errs) == 0;
    cfg_errors_free(&errs);
    if (!loaded) {
        cfg_free(&old);
        return;
    }
    const cfg *c = sw->c;
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        if (cfg_get(&old, p->path, a, sizeof a) != 0 || cfg_get(c, p->path, b, sizeof b) != 0)
            continue;
        if (strcmp(a, b) != 0)
            fprintf(stderr, "  %s: %s in %s, %s now\n", p->path, a, path, b);
    }
    for (size_t i = 0; i < old.naxes || i < c->naxes; i++) {
        a[0] = b[0] = '\0';
        if (i < old.naxes)
            axis_text(&old.axes[i], a, sizeof a);
        if (i < c->naxes)
            axis_text(&c->axes[i], b, sizeof b);
        if (strcmp(a, b) != 0)
            fprintf(stderr, "  sweep axis %zu: %s in %s, %s now\n", i + 1, a[0] ? a : "(none)", path,
                    b[0] ? b : "(none)");
    }
    cfg_free(&old);
}

/* Load earlier results from out/runs.csv; refuse a folder of another sweep. */
static int load_previous(sweep *sw)
{
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/runs.csv", sw->o->out);
    csv_table t;
    int rc = csv_read(path, &t);
    if (rc < 0) {
        fprintf(stderr, "tasknet run: error: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (rc == 0 || !t.header) {
        csv_table_free(&t);
        return 0;
    }
    char *want = runs_header(sw->c);
    if (strcmp(want, t.header) != 0) {
        fprintf(stderr,
                "tasknet run: error: %s holds results with other columns (another sweep or "
                "another tasknet version); use another --out or remove it\n",
                path);
        explain_change(sw);
        free(want);
        csv_table_free(&t);
        return -1;
    }
    free(want);
    size_t reused = 0;
    for (size_t i = 0; i < t.nrows; i++) {
        uint64_t id, hash;
        double m[METRIC_COUNT];
        if (parse_row(t.rows[i], sw->c->naxes, &id, &hash, m) != 0 || id >= sw->nruns) {
            fprintf(stderr, "tasknet run: error: %s:%zu: not a row of this sweep\n", path, i + 2);
            csv_table_free(&t);
            return -1;
        }
        size_t point = id / sw->c->replicas;
        if (hash != sw->point_hash[point]) {
            fprintf(stderr,
                    "tasknet run: error: %s: run %llu was made with a different configuration "
                    "(fingerprint %016llx, now %016llx); results are never mixed: use another "
                    "--out or remove %s\n",
                    path, (unsigned long long)id, (unsigned long long)hash,
                    (unsigned long long)sw->point_hash[point], sw->o->out);
            explain_change(sw);
            csv_table_free(&t);
            return -1;
        }
        if (sw->rec[id].done && memcmp(sw->rec[id].m, m, sizeof m) != 0) {
            fprintf(stderr,
                    "tasknet run: error: %s:%zu: run %llu appears twice with different results (the "
                    "file was edited or two sweeps wrote it); use another --out or remove the wrong row\n",
                    path, i + 2, (unsigned long long)id);
            csv_table_free(&t);
            return -1;
        }
        if (!sw->rec[id].done)
            reused++;
        sw->rec[id].done = 1;
        sw->rec[id].hash = hash;
        memcpy(sw->rec[id].m, m, sizeof m);
    }
    if (reused && !sw->o->quiet)
        fprintf(stderr, "tasknet run: %s: %zu run%s already done, resuming\n", sw->o->out, reused,
                reused == 1 ? "" : "s");
    if (t.truncated && !sw->o->quiet)
        fprintf(stderr, "tasknet run: %s: dropped an incomplete last line (that run is redone)\n",
                path);
    csv_table_free(&t);
    return 0;
}

/* Rewrite path atomically with the done runs, sorted by id. */
static int rewrite_runs(const sweep *sw, const char *path)
{
    char tmp[CFG_PATH_MAX + 48];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    report_runs_header(f, sw->c);
    for (uint64_t id = 0; id < sw->nruns; id++)
        if (sw->rec[id].done)
            write_row(f, sw, id);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return -1;
    return rename(tmp, path);
}

/* Per-point accumulators over the done runs. */
static report_point *accumulate(const sweep *sw)
{
    report_point *pts = tn_xcalloc(sw->npoints, sizeof *pts);
    for (size_t p = 0; p < sw->npoints; p++)
        for (int i = 0; i < METRIC_COUNT; i++)
            stats_acc_init(&pts[p].m[i]);
    for (uint64_t id = 0; id < sw->nruns; id++) {
        if (!sw->rec[id].done)
            continue;
        size_t p = id / sw->c->replicas;
        for (int i = 0; i < METRIC_COUNT; i++)
            stats_acc_add(&pts[p].m[i], sw->rec[id].m[i]);
    }
    return pts;
}

static int write_summary(const sweep *sw)
{
    char path[CFG_PATH_MAX + 48], tmp[CFG_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/summary.csv", sw->o->out);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    report_point *pts = accumulate(sw);
    int rc = report_summary_csv(tmp, sw->c, pts, sw->npoints);
    free(pts);
    if (rc == 0)
        rc = rename(tmp, path);
    if (rc != 0)
        fprintf(stderr, "tasknet run: error: cannot write %s: %s\n", path, strerror(errno));
    return rc;
}

/* ---------------------------------------------------------- running one */

/* Copy run id's latency histogram from folder `from` into `to` (none is
 * fine: folders written before histograms existed). The same file reached
 * by two spellings of one folder (out/x and out/./x, a symlink) is left
 * alone, never truncated by opening it for writing. 0, 1 when `from` has
 * none, or -1 with the reason in err. */
static int copy_latency(const char *from, const char *to, uint64_t id, char *err, size_t errlen)
{
    char src[CFG_PATH_MAX + 64], dst[CFG_PATH_MAX + 64];
    report_latency_path(src, sizeof src, from, id);
    report_latency_path(dst, sizeof dst, to, id);
    struct stat ss, ds;
    if (stat(src, &ss) != 0)
        return errno == ENOENT ? 1 : tn_error(err, errlen, "%s: %s", src, strerror(errno));
    if (stat(dst, &ds) == 0 && ds.st_dev == ss.st_dev && ds.st_ino == ss.st_ino)
        return 0;
    FILE *in = fopen(src, "rb");
    if (!in)
        return tn_error(err, errlen, "%s: %s", src, strerror(errno));
    FILE *outf = fopen(dst, "wb");
    if (!outf) {
        tn_error(err, errlen, "%s: %s", dst, strerror(errno));
        fclose(in);
        return -1;
    }
    char buf[8192];
    size_t n;
    int bad_in = 0, bad_out = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, outf) != n)
            bad_out = errno ? errno : EIO;
    if (ferror(in))
        bad_in = errno ? errno : EIO;
    fclose(in);
    if (fclose(outf) != 0 && !bad_out)
        bad_out = errno ? errno : EIO;
    if (bad_in)
        return tn_error(err, errlen, "reading %s: %s", src, strerror(bad_in));
    if (bad_out)
        return tn_error(err, errlen, "writing %s: %s", dst, strerror(bad_out));
    return 0;
}

const char *sweep_latency_path(const sweep *sw, uint64_t id, char *buf, size_t len)
{
    if (!sw->o->out)
        return NULL;
    report_latency_path(buf, len, sw->o->out, id);
    return buf;
}

/* Run id in this process, reusing the resolved point of the previous run. */
static int exec_run(sweep *sw, uint64_t id, double *m, trace *tr, const char *latency_csv,
                    char *err, size_t errlen)
{
    point_cache *pcache = &sw->pcache;
    size_t point = id / sw->c->replicas;
    uint64_t replica = id % sw->c->replicas;
    if (pcache->point != point) {
        if (pcache->point != SIZE_MAX)
            cfg_free(&pcache->pc);
        pcache->point = SIZE_MAX;
        load_bounds lb;
        if (cfg_point(sw->c, point, &pcache->pc, err, errlen) != 0)
            return -1;
        if (run_resolve_cached(&pcache->pc, &pcache->fps, &pcache->fp, &lb, err, errlen) != 0) {
            cfg_free(&pcache->pc);
            return -1;
        }
        pcache->point = point;
    }
    run_outputs ro = {.trace = tr, .latency_csv = latency_csv};
    return run_one_out(&pcache->pc, &pcache->fp, replica, m, &ro, err, errlen);
}

static void pcache_free(sweep *sw)
{
    if (sw->pcache.point != SIZE_MAX)
        cfg_free(&sw->pcache.pc);
    sw->pcache.point = SIZE_MAX;
    run_fp_cache_free(&sw->pcache.fps);
}

int sweep_run(sweep *sw, uint64_t id, const char *latency_csv, sweep_result *r)
{
    memset(r, 0, sizeof *r);
    r->id = id;
    r->status = exec_run(sw, id, r->m, NULL, latency_csv, r->err, sizeof r->err) == 0 ? 0 : 1;
    return r->status;
}

int sweep_next(sweep *sw, uint64_t *id)
{
    if (interrupted || sw->giving_up)
        return -1;
    while (sw->next < sw->nruns && sw->todo[sw->next] != RUN_PENDING)
        sw->next++;
    if (sw->next >= sw->nruns)
        return -1;
    sw->todo[sw->next] = RUN_INFLIGHT;
    *id = sw->next++;
    return 0;
}

/* A run handed out came back without a result (its process died): hand it
 * out again. */
static void requeue(sweep *sw, uint64_t id)
{
    sw->todo[id] = RUN_PENDING;
    if (id < sw->next)
        sw->next = id;
}

static void record(sweep *sw, uint64_t id, const double *m)
{
    run_rec *r = &sw->rec[id];
    r->done = 1;
    r->hash = sw->point_hash[id / sw->c->replicas];
    memcpy(r->m, m, sizeof r->m);
    sw->todo[id] = 0;
    sw->ndone_now++;
    sw->events_now += m[M_events];
    if (sw->runs_csv) {
        write_row(sw->runs_csv, sw, id);
        fflush(sw->runs_csv);
        fprintf(sw->timing_csv, "%llu,%.17g,%.6f,%.6g\n", (unsigned long long)id, m[M_events],
                m[M_wall_s], m[M_wall_s] > 0 ? m[M_events] / m[M_wall_s] : 0.0);
        fflush(sw->timing_csv);
        double now = monotonic_s();
        if (now - sw->last_summary_s > 2.0) {
            write_summary(sw);
            sw->last_summary_s = now;
        }
    }
    double el = monotonic_s() - sw->t0_s;
    if (sw->o->verbose)
        fprintf(stderr, "%srun %llu (point %zu replica %llu): %.0f events in %.3f s, %.4g events/s\n",
                sw->o->progress ? "\r\033[K" : "", (unsigned long long)id,
                (size_t)(id / sw->c->replicas), (unsigned long long)(id % sw->c->replicas),
                m[M_events], m[M_wall_s], m[M_wall_s] > 0 ? m[M_events] / m[M_wall_s] : 0.0);
    if (sw->o->progress) {
        double rate = el > 0 ? (double)sw->ndone_now / el : 0;
        double eta = rate > 0 ? (double)(sw->ntodo - sw->ndone_now) / rate : 0;
        fprintf(stderr, "\r\033[K[%llu/%llu runs] %.2f runs/s, %.1f s elapsed, ETA %.1f s",
                (unsigned long long)sw->ndone_now, (unsigned long long)sw->ntodo, rate, el, eta);
        fflush(stderr);
    }
}

int sweep_record(sweep *sw, const sweep_result *r)
{
    if (r->status != 0) {
        sw->todo[r->id] = 0;
        fprintf(stderr, "%stasknet run: error: run %llu: %s\n", sw->o->progress ? "\n" : "",
                (unsigned long long)r->id, r->err);
        return 1;
    }
    record(sw, r->id, r->m);
    return 0;
}

/* In this process, in id order. */
static int run_serial(sweep *sw)
{
    int rc = 0;
    trace *tr = NULL;
    if (sw->o->trace) {
        char err[512];
        uint64_t id = 0;
        while (id < sw->nruns && !sw->todo[id])
            id++;
        cfg pc;
        if (cfg_point(sw->c, id / sw->c->replicas, &pc, err, sizeof err) != 0) {
            fprintf(stderr, "tasknet run: error: %s\n", err);
            return 1;
        }
        tr = trace_open(sw->o->trace, pc.nodes, err, sizeof err);
        cfg_free(&pc);
        if (!tr) {
            fprintf(stderr, "tasknet run: error: --trace: %s\n", err);
            return 1;
        }
    }
    uint64_t id;
    while (sweep_next(sw, &id) == 0) {
        sweep_result r = {.id = id};
        char hist[CFG_PATH_MAX + 64];
        r.status = exec_run(sw, id, r.m, tr, sweep_latency_path(sw, id, hist, sizeof hist), r.err,
                            sizeof r.err);
        if (r.status != 0 && interrupted) {
            requeue(sw, id); /* dropped by the signal: not a failure */
            break;
        }
        if (sweep_record(sw, &r) != 0) {
            rc = 1;
            break;
        }
    }
    if (tr) {
        char err[512];
        int trc = trace_close(tr, err, sizeof err);
        if (trc > 0) {
            fprintf(stderr, "tasknet run: warning: --trace: %s\n", err);
        } else if (trc < 0) {
            fprintf(stderr, "tasknet run: error: --trace: %s\n", err);
            rc = 1;
        }
    }
    return rc;
}

/* Worker protocol: the parent writes run ids (uint64) to the worker's
 * command pipe; the worker answers with one sweep_result per id. */

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t put = write(fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return -1;
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

static void worker_main(sweep *sw, int cmd_fd, int res_fd)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    uint64_t id;
    while (read_full(cmd_fd, &id, sizeof id) == 0) {
        sweep_result r;
        char hist[CFG_PATH_MAX + 64];
        sweep_run(sw, id, sweep_latency_path(sw, id, hist, sizeof hist), &r);
        if (write_full(res_fd, &r, sizeof r) != 0)
            break;
    }
    pcache_free(sw);
    _exit(0);
}

typedef struct worker {
    pid_t pid;
    int cmd_fd, res_fd;
    uint64_t busy_id; /* SWEEP_NO_RUN = idle */
} worker;

static int spawn(sweep *sw, worker *w)
{
    int cmd[2], res[2];
    if (pipe(cmd) != 0)
        return -1;
    if (pipe(res) != 0) {
        int e = errno;
        close(cmd[0]);
        close(cmd[1]);
        errno = e;
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(cmd[0]);
        close(cmd[1]);
        close(res[0]);
        close(res[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(cmd[1]);
        close(res[0]);
        worker_main(sw, cmd[0], res[1]);
    }
    close(cmd[0]);
    close(res[1]);
    w->pid = pid;
    w->cmd_fd = cmd[1];
    w->res_fd = res[0];
    w->busy_id = SWEEP_NO_RUN;
    return 0;
}

static void retire(worker *w)
{
    if (w->pid <= 0)
        return;
    if (w->cmd_fd >= 0)
        close(w->cmd_fd);
    close(w->res_fd);
    waitpid(w->pid, NULL, 0);
    w->pid = 0;
}

/* Hand runs out dynamically to sw->o->jobs worker processes. */
static int run_parallel(sweep *sw)
{
    unsigned nw = sw->o->jobs;
    worker *w = tn_xcalloc(nw, sizeof *w);
    struct pollfd *pfd = tn_xcalloc(nw, sizeof *pfd);
    int rc = 0;
    unsigned respawns = 0;
    signal(SIGPIPE, SIG_IGN);
    for (unsigned i = 0; i < nw; i++)
        if (spawn(sw, &w[i]) != 0) {
            fprintf(stderr, "tasknet run: error: cannot start worker: %s\n", strerror(errno));
            rc = 1;
            goto out;
        }
    for (;;) {
        /* give every idle worker a run */
        for (unsigned i = 0; i < nw && rc == 0; i++) {
            if (w[i].pid <= 0 || w[i].busy_id != SWEEP_NO_RUN)
                continue;
            uint64_t id;
            if (sweep_next(sw, &id) != 0)
                break;
            if (write_full(w[i].cmd_fd, &id, sizeof id) == 0)
                w[i].busy_id = id;
            else
                requeue(sw, id);
        }
        unsigned busy = 0;
        for (unsigned i = 0; i < nw; i++) {
            pfd[i].fd = w[i].pid > 0 && w[i].busy_id != SWEEP_NO_RUN ? w[i].res_fd : -1;
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
            busy += pfd[i].fd >= 0;
        }
        if (!busy || interrupted)
            break;
        if (poll(pfd, nw, -1) < 0) {
            if (errno == EINTR)
                continue;
            rc = 1;
            break;
        }
        for (unsigned i = 0; i < nw; i++) {
            if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            sweep_result r;
            if (read_full(w[i].res_fd, &r, sizeof r) != 0) {
                /* the worker died: its run is lost, the run table is not */
                int st = 0;
                close(w[i].cmd_fd);
                close(w[i].res_fd);
                waitpid(w[i].pid, &st, 0);
                w[i].pid = 0;
                requeue(sw, w[i].busy_id);
                if (interrupted || sw->giving_up)
                    continue;
                fprintf(stderr, "%stasknet run: worker %d died (%s %d) during run %llu\n",
                        sw->o->progress ? "\n" : "", (int)i,
                        WIFSIGNALED(st) ? "signal" : "status",
                        WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                        (unsigned long long)w[i].busy_id);
                /* hand its run to the next free worker, up to a point */
                if (respawns++ >= 2 * nw) {
                    fprintf(stderr, "tasknet run: error: workers keep dying (%u deaths), so the cause "
                            "is in the runs, not chance: see the first message above; stopping\n",
                            respawns);
                    rc = 1;
                    sw->giving_up = 1;
                } else if (spawn(sw, &w[i]) != 0) {
                    fprintf(stderr, "tasknet run: error: cannot start a worker in its place: %s; stopping\n",
                            strerror(errno));
                    rc = 1;
                    sw->giving_up = 1;
                }
                continue;
            }
            w[i].busy_id = SWEEP_NO_RUN;
            if (sweep_record(sw, &r) != 0)
                rc = 1;
        }
    }
out:
    /* A worker inherits the command pipes of the workers forked before it,
     * so a worker sees the end of its commands only when every later worker
     * has exited too: close every command pipe first, then wait. */
    for (unsigned i = 0; i < nw; i++) {
        if (interrupted && w[i].pid > 0)
            kill(w[i].pid, SIGTERM);
        if (w[i].pid > 0) {
            close(w[i].cmd_fd);
            w[i].cmd_fd = -1;
        }
    }
    for (unsigned i = 0; i < nw; i++)
        retire(&w[i]);
    free(w);
    free(pfd);
    return rc;
}

/* ------------------------------------------------------------ reporting */

static void print_table(const sweep *sw, const report_point *pts)
{
    const cfg *c = sw->c;
    printf("%-6s", "point");
    for (size_t a = 0; a < c->naxes; a++)
        printf(" %-18s", c->axes[a].param);
    printf(" %4s %8s %12s %9s %9s %9s %9s %12s\n", "reps", "jobs", "job_time_s", "speedup",
           "node_util", "net_util", "sync_ovh", "latency_s");
    for (size_t p = 0; p < sw->npoints; p++) {
        const report_point *rp = &pts[p];
        if (!rp->m[0].n)
            continue;
        printf("%-6zu", p);
        for (size_t a = 0; a < c->naxes; a++)
            printf(" %-18s", cfg_point_value(c, p, a));
        printf(" %4llu %8.6g %12.6g %9.4g %9.4g %9.4g %9.4g %12.6g\n",
               (unsigned long long)rp->m[0].n, stats_acc_mean(&rp->m[M_jobs_completed]),
               stats_acc_mean(&rp->m[M_job_time_mean_s]), stats_acc_mean(&rp->m[M_speedup]),
               stats_acc_mean(&rp->m[M_node_utilization]),
               stats_acc_mean(&rp->m[M_network_utilization]),
               stats_acc_mean(&rp->m[M_sync_overhead]), stats_acc_mean(&rp->m[M_msg_latency_mean_s]));
    }
}

static void list_runs(const sweep *sw)
{
    printf("run,point,replica,seed,done");
    for (size_t a = 0; a < sw->c->naxes; a++) {
        putchar(',');
        report_csv_field(stdout, sw->c->axes[a].param);
    }
    putchar('\n');
    for (uint64_t id = 0; id < sw->nruns; id++) {
        if (!sw->todo[id] && !sw->rec[id].done)
            continue;
        size_t p = id / sw->c->replicas;
        printf("%llu,%zu,%llu,%llu,%s", (unsigned long long)id, p,
               (unsigned long long)(id % sw->c->replicas), (unsigned long long)sw->c->seed,
               sw->rec[id].done ? "yes" : "no");
        for (size_t a = 0; a < sw->c->naxes; a++) {
            putchar(',');
            report_csv_field(stdout, cfg_point_value(sw->c, p, a));
        }
        putchar('\n');
    }
}

static long peak_rss_mib(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    long kib = self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss : kids.ru_maxrss;
    return kib / 1024;
}

int sweep_execute(const cfg *c, const sweep_opts *o)
{
    sweep sw = {.c = c, .o = o, .pcache = {.point = SIZE_MAX}};
    sw.npoints = cfg_points(c);
    sw.nruns = (uint64_t)sw.npoints * c->replicas;
    sw.point_hash = tn_xcalloc(sw.npoints, sizeof *sw.point_hash);
    sw.rec = tn_xcalloc(sw.nruns, sizeof *sw.rec);
    sw.todo = tn_xcalloc(sw.nruns, 1);
    int rc = 0;
    char err[512];
    int mpi_rank = 0, mpi_size = 1, mpi_dispatched = 0;

    for (size_t p = 0; p < sw.npoints; p++) {
        cfg pc;
        if (cfg_point(c, p, &pc, err, sizeof err) != 0) {
            fprintf(stderr, "tasknet run: error: sweep point %zu: %s\n", p, err);
            rc = 1;
            goto out;
        }
        sw.point_hash[p] = cfg_fingerprint(&pc);
        cfg_free(&pc);
    }

    /* Under mpirun every rank gets here with the same configuration; rank 0
     * goes on as a sweep without MPI would, the others only simulate. */
#ifdef TASKNET_MPI
    if (sweep_mpi_init(&mpi_rank, &mpi_size, err, sizeof err) != 0) {
        fprintf(stderr, "tasknet run: error: %s\n", err);
        rc = 1;
        goto out;
    }
    if (mpi_rank > 0) {
        rc = sweep_mpi_worker(&sw);
        goto out;
    }
#endif

    /* selection: --runs, --shard (or a Slurm array task) */
    if (o->runs) {
        if (sweep_parse_runs(o->runs, sw.nruns, sw.todo, err, sizeof err) != 0) {
            fprintf(stderr, "tasknet run: error: %s\n", err);
            rc = 2;
            goto out;
        }
    } else {
        memset(sw.todo, RUN_PENDING, sw.nruns);
    }
    if (o->shard_n)
        for (uint64_t id = 0; id < sw.nruns; id++)
            if (id % o->shard_n != o->shard_k - 1)
                sw.todo[id] = 0;

    if (o->out && load_previous(&sw) != 0) {
        rc = 1;
        goto out;
    }
    for (uint64_t id = 0; id < sw.nruns; id++) {
        if (sw.rec[id].done)
            sw.todo[id] = 0;
        sw.ntodo += sw.todo[id];
    }
    if (o->list_only) {
        list_runs(&sw);
        goto out;
    }
    if (o->trace && sw.ntodo != 1) {
        fprintf(stderr,
                "tasknet run: error: --trace records one run, and %llu are selected; choose one "
                "with --runs ID (see --list-runs)\n",
                (unsigned long long)sw.ntodo);
        rc = 2;
        goto out;
    }

    if (o->out) {
        char path[CFG_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/latency", o->out);
        if (tn_mkdir_p(path) != 0) {
            fprintf(stderr, "tasknet run: error: cannot create %s: %s\n", path, strerror(errno));
            rc = 1;
            goto out;
        }
        snprintf(path, sizeof path, "%s/config.xml", o->out);
        if (cfg_write_xml(c, path, err, sizeof err) != 0) {
            fprintf(stderr, "tasknet run: error: %s\n", err);
            rc = 1;
            goto out;
        }
        /* rewrite what is kept (drops a torn last line), then append */
        snprintf(path, sizeof path, "%s/runs.csv", o->out);
        if (rewrite_runs(&sw, path) != 0 || !(sw.runs_csv = fopen(path, "a"))) {
            fprintf(stderr, "tasknet run: error: cannot write %s: %s\n", path, strerror(errno));
            rc = 1;
            goto out;
        }
        snprintf(path, sizeof path, "%s/timing.csv", o->out);
        struct stat st;
        int fresh = stat(path, &st) != 0;
        if (!(sw.timing_csv = fopen(path, "a"))) {
            fprintf(stderr, "tasknet run: error: cannot write %s: %s\n", path, strerror(errno));
            rc = 1;
            goto out;
        }
        if (fresh)
            fputs("run,events,wall_s,events_per_s\n", sw.timing_csv);
    }

    interrupted = 0;
    run_abort_clear();
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sw.t0_s = monotonic_s();
    sw.last_summary_s = sw.t0_s;
    unsigned jobs = o->jobs ? o->jobs : 1;
    if (jobs > sw.ntodo)
        jobs = sw.ntodo ? (unsigned)sw.ntodo : 1;
    sweep_opts eff = *o;
    eff.jobs = jobs;
    sw.o = &eff;
    char procs[64];
    snprintf(procs, sizeof procs, "%u process%s", jobs, jobs == 1 ? "" : "es");
    if (mpi_size > 1 && !o->trace) {
#ifdef TASKNET_MPI
        if (o->jobs > 1 && !o->quiet)
            fprintf(stderr, "tasknet run: -j %u ignored under mpirun: %d ranks run the runs\n",
                    o->jobs, mpi_size - 1);
        snprintf(procs, sizeof procs, "%d MPI ranks: rank 0 writes, %d run", mpi_size,
                 mpi_size - 1);
        rc = sweep_mpi_master(&sw);
        mpi_dispatched = 1;
#endif
    } else if (sw.ntodo) {
        rc = (jobs > 1 && !o->trace) ? run_parallel(&sw) : run_serial(&sw);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    double wall = monotonic_s() - sw.t0_s;
    if (o->progress)
        fputs("\r\033[K", stderr);

    if (sw.runs_csv) {
        fclose(sw.runs_csv);
        sw.runs_csv = NULL;
        fclose(sw.timing_csv);
        sw.timing_csv = NULL;
        char path[CFG_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/runs.csv", o->out);
        if (rewrite_runs(&sw, path) != 0) {
            fprintf(stderr, "tasknet run: error: cannot write %s: %s\n", path, strerror(errno));
            rc = 1;
        }
        if (write_summary(&sw) != 0)
            rc = 1;
    }
    report_point *pts = accumulate(&sw);
    if (o->json)
        report_summary_json(stdout, c, pts, sw.npoints);
    else if (!o->quiet)
        print_table(&sw, pts);
    free(pts);
    if (interrupted) {
        fprintf(stderr, "tasknet run: interrupted after %llu of %llu runs; %s\n",
                (unsigned long long)sw.ndone_now, (unsigned long long)sw.ntodo,
                o->out ? "run the same command again to finish the sweep"
                       : "nothing was saved (no --out)");
        rc = 130;
    } else if (sw.giving_up) {
        fprintf(stderr, "tasknet run: stopped after %llu of %llu runs%s\n", (unsigned long long)sw.ndone_now,
                (unsigned long long)sw.ntodo, o->out ? " (those are kept)" : "");
    } else if (!o->quiet) {
        fprintf(stderr, "%llu run%s in %.2f s wall (%s), %.4g events/s, peak memory %ld MiB\n",
                (unsigned long long)sw.ndone_now, sw.ndone_now == 1 ? "" : "s", wall, procs,
                wall > 0 ? sw.events_now / wall : 0.0, peak_rss_mib());
    }
out:
#ifdef TASKNET_MPI
    if (mpi_size > 1 && mpi_rank == 0 && !mpi_dispatched)
        sweep_mpi_stop_workers();
    sweep_mpi_finalize();
#else
    (void)mpi_rank;
    (void)mpi_dispatched;
#endif
    pcache_free(&sw);
    if (sw.runs_csv)
        fclose(sw.runs_csv);
    if (sw.timing_csv)
        fclose(sw.timing_csv);
    free(sw.point_hash);
    free(sw.rec);
    free(sw.todo);
    return rc;
}

/* ---------------------------------------------------------------- merge */

int sweep_merge(const char *out, char *const *dirs, size_t ndirs)
{
    char path[CFG_PATH_MAX + 32], err[512];
    char *ref_cfg = NULL;
    cfg c;
    cfg_defaults(&c);
    int rc = 1;
    sweep sw = {0};
    sweep_opts o = {.out = out, .quiet = 1};
    sw.o = &o;

    for (size_t d = 0; d < ndirs; d++) {
        snprintf(path, sizeof path, "%s/config.xml", dirs[d]);
        FILE *f = fopen(path, "r");
        if (!f) {
            fprintf(stderr, "tasknet merge: error: cannot read %s: %s\n", path, strerror(errno));
            goto out;
        }
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        int ch;
        while ((ch = fgetc(f)) != EOF)
            fputc(ch, mem);
        fclose(f);
        fclose(mem);
        if (!ref_cfg) {
            ref_cfg = text;
            continue;
        }
        int same = strcmp(ref_cfg, text) == 0;
        free(text);
        if (!same) {
            fprintf(stderr,
                    "tasknet merge: error: %s/config.xml differs from %s/config.xml: these "
                    "folders hold different sweeps and are not merged\n",
                    dirs[d], dirs[0]);
            goto out;
        }
    }
    cfg_errors errs;
    cfg_errors_init(&errs);
    snprintf(path, sizeof path, "%s/config.xml", dirs[0]);
    if (cfg_load(&c, path, &errs) != 0) {
        for (size_t i = 0; i < errs.n; i++)
            fprintf(stderr, "%s\n", errs.msg[i]);
        cfg_errors_free(&errs);
        goto out;
    }
    cfg_errors_free(&errs);
    sw.c = &c;
    sw.npoints = cfg_points(&c);
    sw.nruns = (uint64_t)sw.npoints * c.replicas;
    sw.point_hash = tn_xcalloc(sw.npoints, sizeof *sw.point_hash);
    sw.rec = tn_xcalloc(sw.nruns, sizeof *sw.rec);
    snprintf(path, sizeof path, "%s/latency", out);
    if (tn_mkdir_p(path) != 0) {
        fprintf(stderr, "tasknet merge: error: cannot create %s: %s\n", path, strerror(errno));
        goto out;
    }
    char *want = runs_header(&c);
    size_t total = 0, no_hist = 0;
    for (size_t d = 0; d < ndirs; d++) {
        snprintf(path, sizeof path, "%s/runs.csv", dirs[d]);
        csv_table t;
        if (csv_read(path, &t) <= 0 || !t.header) {
            fprintf(stderr, "tasknet merge: error: cannot read %s\n", path);
            free(want);
            goto out;
        }
        if (strcmp(t.header, want) != 0) {
            fprintf(stderr, "tasknet merge: error: %s: columns differ from its config.xml\n", path);
            csv_table_free(&t);
            free(want);
            goto out;
        }
        for (size_t i = 0; i < t.nrows; i++) {
            char *copy = tn_xstrdup(t.rows[i]);
            uint64_t id, hash;
            double m[METRIC_COUNT];
            int bad = parse_row(t.rows[i], c.naxes, &id, &hash, m) != 0 || id >= sw.nruns;
            size_t p = bad ? 0 : id / c.replicas;
            if (!bad && sw.point_hash[p] && sw.point_hash[p] != hash)
                bad = 2;
            if (!bad && sw.rec[id].done && memcmp(sw.rec[id].m, m, sizeof m) != 0)
                bad = 3;
            if (bad) {
                fprintf(stderr, "tasknet merge: error: %s:%zu: %s\n", path, i + 2,
                        bad == 1   ? "not a row of this sweep"
                        : bad == 2 ? "made with a different configuration than other rows of its point"
                                   : "run already present elsewhere with different results");
                free(copy);
                csv_table_free(&t);
                free(want);
                goto out;
            }
            free(copy);
            sw.point_hash[p] = hash;
            if (!sw.rec[id].done) {
                total++;
                int cl = copy_latency(dirs[d], out, id, err, sizeof err);
                no_hist += cl == 1;
                if (cl < 0) {
                    fprintf(stderr, "tasknet merge: error: copying the latency histogram of run %llu: %s\n",
                            (unsigned long long)id, err);
                    csv_table_free(&t);
                    free(want);
                    goto out;
                }
            }
            sw.rec[id].done = 1;
            sw.rec[id].hash = hash;
            memcpy(sw.rec[id].m, m, sizeof m);
        }
        csv_table_free(&t);
    }
    free(want);
    snprintf(path, sizeof path, "%s/config.xml", out);
    if (cfg_write_xml(&c, path, err, sizeof err) != 0) {
        fprintf(stderr, "tasknet merge: error: %s\n", err);
        goto out;
    }
    snprintf(path, sizeof path, "%s/runs.csv", out);
    if (rewrite_runs(&sw, path) != 0 || write_summary(&sw) != 0) {
        fprintf(stderr, "tasknet merge: error: cannot write %s: %s\n", path, strerror(errno));
        goto out;
    }
    if (no_hist)
        fprintf(stderr, "tasknet merge: warning: %zu runs have no latency histogram in their folder "
                "(plot --latency draws without them)\n", no_hist);
    fprintf(stderr, "tasknet merge: %zu of %llu runs in %s%s\n", total,
            (unsigned long long)sw.nruns, out, total < sw.nruns ? " (incomplete sweep)" : "");
    rc = 0;
out:
    free(ref_cfg);
    free(sw.point_hash);
    free(sw.rec);
    cfg_free(&c);
    return rc;
}
