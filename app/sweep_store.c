/* The result folder: runs.csv (one row per run, appended as runs finish,
 * rewritten sorted at the end), summary.csv, timing.csv, config.xml and
 * latency/run-ID.csv; resuming from what is there (refusing results of
 * another configuration), and merging the folders of a sweep's shards. */
#include "sweep_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "log.h"
#include "report.h"

void sweep_records_init(sweep *sw)
{
    run_layout_init(&sw->layout, sw->c);
    size_t n = sw->layout.n ? sw->layout.n : 1;
    sw->rec = tn_xcalloc(sw->nruns ? sw->nruns : 1, sizeof *sw->rec);
    sw->mstore = tn_xmalloc((sw->nruns ? sw->nruns : 1) * n * sizeof *sw->mstore);
    for (uint64_t id = 0; id < sw->nruns; id++) {
        sw->rec[id].m = sw->mstore + id * n;
        metric_unset(sw->rec[id].m, sw->layout.n);
    }
}

void sweep_records_free(sweep *sw)
{
    free(sw->rec);
    free(sw->mstore);
    run_layout_free(&sw->layout);
    sw->rec = NULL;
    sw->mstore = NULL;
}

/* ------------------------------------------------------------------- CSV */

/* The runs.csv header this configuration writes, as one string. */
static char *runs_header(const cfg *c, const run_layout *l)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_runs_header(f, c, l);
    fclose(f);
    return buf;
}

/* Column layout of runs.csv: run,point,replica,seed,config_hash,<axes>,<metrics>. */
#define RUNS_FIXED_COLS 5

/* Parse one runs.csv row into (id, hash, metrics: an empty cell is NAN). 0 or -1. */
static int parse_row(const sweep *sw, char *line, uint64_t *id, uint64_t *hash, double *m)
{
    enum { MAXF = 1024 };
    char *f[MAXF];
    size_t n = csv_split(line, f, MAXF);
    const run_layout *l = &sw->layout;
    size_t want = RUNS_FIXED_COLS + sw->c->naxes;
    for (size_t i = 0; i < l->n; i++)
        want += metric_is_deterministic(l->col[i].name);
    if (n != want)
        return -1;
    char *end;
    *id = strtoull(f[0], &end, 10);
    if (*end)
        return -1;
    *hash = strtoull(f[4], &end, 16);
    if (*end)
        return -1;
    size_t k = RUNS_FIXED_COLS + sw->c->naxes;
    for (size_t i = 0; i < l->n; i++) {
        if (!metric_is_deterministic(l->col[i].name)) {
            m[i] = NAN;
            continue;
        }
        const char *cell = f[k++];
        if (!cell[0]) {
            m[i] = NAN;
            continue;
        }
        m[i] = strtod(cell, &end);
        if (*end)
            return -1;
    }
    return 0;
}

/* Same metrics, NAN equal to NAN. */
static int same_metrics(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
            return 0;
    return 1;
}

static void write_row(FILE *f, const sweep *sw, uint64_t id)
{
    size_t point = id / sw->c->replicas;
    uint64_t replica = id % sw->c->replicas;
    report_runs_row(f, sw->c, &sw->layout, point, replica, sw->point_hash[point], sw->rec[id].m);
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
        if (!cfg_param_applies(&old, i) && !cfg_param_applies(c, i))
            continue;
        int first = 1; /* a path several plugins declare: once */
        for (size_t k = 0; k < i && first; k++)
            first = strcmp(cfg_param_at(k)->row->path, p->row->path) != 0;
        if (!first)
            continue;
        if (cfg_get(&old, p->row->path, a, sizeof a) != 0 || cfg_get(c, p->row->path, b, sizeof b) != 0)
            continue;
        if (strcmp(a, b) != 0)
            sweep_note(sw, SWEEP_DETAIL, "  %s: %s in %s, %s now", p->row->path, a, path, b);
    }
    for (size_t i = 0; i < old.naxes || i < c->naxes; i++) {
        a[0] = b[0] = '\0';
        if (i < old.naxes)
            axis_text(&old.axes[i], a, sizeof a);
        if (i < c->naxes)
            axis_text(&c->axes[i], b, sizeof b);
        if (strcmp(a, b) != 0)
            sweep_note(sw, SWEEP_DETAIL, "  sweep axis %zu: %s in %s, %s now", i + 1, a[0] ? a : "(none)", path,
                    b[0] ? b : "(none)");
    }
    cfg_free(&old);
}

/* Load earlier results from out/runs.csv; refuse a folder of another sweep. */
int store_load(sweep *sw)
{
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/runs.csv", sw->o->out);
    csv_table t;
    int rc = csv_read(path, &t);
    if (rc < 0) {
        sweep_note(sw, SWEEP_ERROR, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (rc == 0 || !t.header) {
        csv_table_free(&t);
        return 0;
    }
    char *want = runs_header(sw->c, &sw->layout);
    if (strcmp(want, t.header) != 0) {
        sweep_note(sw, SWEEP_ERROR, "%s holds results with other columns (another sweep or "
                "another tasknet version); use another --out or remove it",
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
        double *scratch = tn_xcalloc(sw->layout.n ? sw->layout.n : 1, sizeof *scratch), *m = scratch;
        if (parse_row(sw, t.rows[i], &id, &hash, m) != 0 || id >= sw->nruns) {
            free(scratch);
            sweep_note(sw, SWEEP_ERROR, "%s:%zu: not a row of this sweep", path, i + 2);
            csv_table_free(&t);
            return -1;
        }
        size_t point = id / sw->c->replicas;
        if (hash != sw->point_hash[point]) {
            sweep_note(sw, SWEEP_ERROR, "%s: run %llu was made with a different configuration "
                    "(fingerprint %016llx, now %016llx); results are never mixed: use another "
                    "--out or remove %s",
                    path, (unsigned long long)id, (unsigned long long)hash,
                    (unsigned long long)sw->point_hash[point], sw->o->out);
            explain_change(sw);
            free(scratch);
            csv_table_free(&t);
            return -1;
        }
        if (sw->rec[id].done && !same_metrics(sw->rec[id].m, m, sw->layout.n)) {
            free(scratch);
            sweep_note(sw, SWEEP_ERROR, "%s:%zu: run %llu appears twice with different results (the "
                    "file was edited or two sweeps wrote it); use another --out or remove the wrong row",
                    path, i + 2, (unsigned long long)id);
            csv_table_free(&t);
            return -1;
        }
        if (!sw->rec[id].done)
            reused++;
        sw->rec[id].done = 1;
        sw->rec[id].hash = hash;
        memcpy(sw->rec[id].m, m, sw->layout.n * sizeof *m);
        free(scratch);
    }
    if (reused && !sw->o->quiet)
        sweep_note(sw, SWEEP_INFO, "%s: %zu run%s already done, resuming", sw->o->out, reused,
                reused == 1 ? "" : "s");
    if (t.truncated && !sw->o->quiet)
        sweep_note(sw, SWEEP_INFO, "%s: dropped an incomplete last line (that run is redone)",
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
    report_runs_header(f, sw->c, &sw->layout);
    for (uint64_t id = 0; id < sw->nruns; id++)
        if (sw->rec[id].done)
            write_row(f, sw, id);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return -1;
    return rename(tmp, path);
}

/* Per-point accumulators over the done runs. */
report_point *sweep_accumulate(const sweep *sw)
{
    report_point *pts = report_points_new(sw->npoints, &sw->layout);
    for (uint64_t id = 0; id < sw->nruns; id++)
        if (sw->rec[id].done)
            report_point_add(&pts[id / sw->c->replicas], &sw->layout, sw->rec[id].m);
    return pts;
}

static int write_summary(const sweep *sw)
{
    char path[CFG_PATH_MAX + 48], tmp[CFG_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/summary.csv", sw->o->out);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    report_point *pts = sweep_accumulate(sw);
    int rc = report_summary_csv(tmp, sw->c, &sw->layout, pts, sw->npoints);
    report_points_free(pts, sw->npoints);
    if (rc == 0)
        rc = rename(tmp, path);
    if (rc != 0)
        sweep_note(sw, SWEEP_ERROR, "cannot write %s: %s", path, strerror(errno));
    return rc;
}

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

/* The workloads' own files (wl_ops.write_files) for the done runs. */
static int write_plugin_files(const sweep *sw)
{
    unsigned char *done = tn_xcalloc(sw->nruns ? sw->nruns : 1, 1);
    for (uint64_t id = 0; id < sw->nruns; id++)
        done[id] = (unsigned char)sw->rec[id].done;
    char err[512];
    int rc = run_write_files(sw->c, sw->o->out, done, err, sizeof err);
    if (rc != 0)
        sweep_note(sw, SWEEP_ERROR, "%s", err);
    free(done);
    return rc;
}

/* ----------------------------------------------------- this session */

int store_open(sweep *sw)
{
    const char *out = sw->o->out;
    char path[CFG_PATH_MAX + 32], err[512];
    snprintf(path, sizeof path, "%s/latency", out);
    if (tn_mkdir_p(path) != 0) {
        sweep_note(sw, SWEEP_ERROR, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/config.xml", out);
    if (cfg_write_xml(sw->c, path, err, sizeof err) != 0) {
        sweep_note(sw, SWEEP_ERROR, "%s", err);
        return -1;
    }
    /* rewrite what is kept (drops a torn last line), then append */
    snprintf(path, sizeof path, "%s/runs.csv", out);
    if (rewrite_runs(sw, path) != 0 || !(sw->runs_csv = fopen(path, "a"))) {
        sweep_note(sw, SWEEP_ERROR, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/timing.csv", out);
    struct stat st;
    int fresh = stat(path, &st) != 0;
    if (!(sw->timing_csv = fopen(path, "a"))) {
        sweep_note(sw, SWEEP_ERROR, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    if (fresh)
        fputs("run,events,wall_s,events_per_s\n", sw->timing_csv);
    return 0;
}

void store_append(sweep *sw, uint64_t id)
{
    const double *m = sw->rec[id].m;
    double events = m[run_core(&sw->layout, M_events)], wall = m[run_core(&sw->layout, M_wall_s)];
    write_row(sw->runs_csv, sw, id);
    fflush(sw->runs_csv);
    fprintf(sw->timing_csv, "%llu,%.17g,%.6f,%.6g\n", (unsigned long long)id, events, wall,
            wall > 0 ? events / wall : 0.0);
    fflush(sw->timing_csv);
    double now = sweep_now_s();
    if (now - sw->last_summary_s > 2.0) {
        write_summary(sw);
        sw->last_summary_s = now;
    }
}

int store_close(sweep *sw)
{
    int rc = 0;
    fclose(sw->runs_csv);
    sw->runs_csv = NULL;
    fclose(sw->timing_csv);
    sw->timing_csv = NULL;
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/runs.csv", sw->o->out);
    if (rewrite_runs(sw, path) != 0) {
        sweep_note(sw, SWEEP_ERROR, "cannot write %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (write_summary(sw) != 0)
        rc = -1;
    if (write_plugin_files(sw) != 0)
        rc = -1;
    return rc;
}

/* ---------------------------------------------------------------- merge */

int sweep_merge(const char *out, char *const *dirs, size_t ndirs, const sweep_ui *ui)
{
    char path[CFG_PATH_MAX + 32], err[512];
    char *ref_cfg = NULL;
    cfg c;
    memset(&c, 0, sizeof c);
    double *m = NULL;
    int rc = 1;
    sweep sw = {0};
    sweep_opts o = {.out = out};
    sw.o = &o;
    sw.ui = ui;

    for (size_t d = 0; d < ndirs; d++) {
        snprintf(path, sizeof path, "%s/config.xml", dirs[d]);
        FILE *f = fopen(path, "r");
        if (!f) {
            sweep_note(&sw, SWEEP_ERROR, "cannot read %s: %s", path, strerror(errno));
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
            sweep_note(&sw, SWEEP_ERROR, "%s/config.xml differs from %s/config.xml: these "
                    "folders hold different sweeps and are not merged",
                    dirs[d], dirs[0]);
            goto out;
        }
    }
    cfg_errors errs;
    cfg_errors_init(&errs);
    snprintf(path, sizeof path, "%s/config.xml", dirs[0]);
    if (cfg_load(&c, path, &errs) != 0) {
        for (size_t i = 0; i < errs.n; i++)
            sweep_note(&sw, SWEEP_DETAIL, "%s", errs.msg[i]);
        cfg_errors_free(&errs);
        goto out;
    }
    cfg_errors_free(&errs);
    sw.c = &c;
    sw.npoints = cfg_points(&c);
    sw.nruns = (uint64_t)sw.npoints * c.replicas;
    sw.point_hash = tn_xcalloc(sw.npoints, sizeof *sw.point_hash);
    sweep_records_init(&sw);
    m = tn_xcalloc(sw.layout.n ? sw.layout.n : 1, sizeof *m);
    snprintf(path, sizeof path, "%s/latency", out);
    if (tn_mkdir_p(path) != 0) {
        sweep_note(&sw, SWEEP_ERROR, "cannot create %s: %s", path, strerror(errno));
        goto out;
    }
    char *want = runs_header(&c, &sw.layout);
    size_t total = 0, no_hist = 0;
    for (size_t d = 0; d < ndirs; d++) {
        snprintf(path, sizeof path, "%s/runs.csv", dirs[d]);
        csv_table t;
        if (csv_read(path, &t) <= 0 || !t.header) {
            sweep_note(&sw, SWEEP_ERROR, "cannot read %s", path);
            free(want);
            goto out;
        }
        if (strcmp(t.header, want) != 0) {
            sweep_note(&sw, SWEEP_ERROR, "%s: columns differ from its config.xml", path);
            csv_table_free(&t);
            free(want);
            goto out;
        }
        for (size_t i = 0; i < t.nrows; i++) {
            char *copy = tn_xstrdup(t.rows[i]);
            uint64_t id, hash;
            int bad = parse_row(&sw, t.rows[i], &id, &hash, m) != 0 || id >= sw.nruns;
            size_t p = bad ? 0 : id / c.replicas;
            if (!bad && sw.point_hash[p] && sw.point_hash[p] != hash)
                bad = 2;
            if (!bad && sw.rec[id].done && !same_metrics(sw.rec[id].m, m, sw.layout.n))
                bad = 3;
            if (bad) {
                sweep_note(&sw, SWEEP_ERROR, "%s:%zu: %s", path, i + 2,
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
                    sweep_note(&sw, SWEEP_ERROR, "copying the latency histogram of run %llu: %s",
                            (unsigned long long)id, err);
                    csv_table_free(&t);
                    free(want);
                    goto out;
                }
            }
            sw.rec[id].done = 1;
            sw.rec[id].hash = hash;
            memcpy(sw.rec[id].m, m, sw.layout.n * sizeof *m);
        }
        csv_table_free(&t);
    }
    free(want);
    snprintf(path, sizeof path, "%s/config.xml", out);
    if (cfg_write_xml(&c, path, err, sizeof err) != 0) {
        sweep_note(&sw, SWEEP_ERROR, "%s", err);
        goto out;
    }
    snprintf(path, sizeof path, "%s/runs.csv", out);
    if (rewrite_runs(&sw, path) != 0 || write_summary(&sw) != 0) {
        sweep_note(&sw, SWEEP_ERROR, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    if (write_plugin_files(&sw) != 0)
        goto out;
    if (no_hist)
        sweep_note(&sw, SWEEP_WARNING, "%zu runs have no latency histogram in their folder "
                "(plot --latency draws without them)", no_hist);
    sweep_note(&sw, SWEEP_INFO, "%zu of %llu runs in %s%s", total,
            (unsigned long long)sw.nruns, out, total < sw.nruns ? " (incomplete sweep)" : "");
    rc = 0;
out:
    free(ref_cfg);
    free(sw.point_hash);
    free(m);
    if (sw.rec)
        sweep_records_free(&sw);
    cfg_free(&c);
    return rc;
}
