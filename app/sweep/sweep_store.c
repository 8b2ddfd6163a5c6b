/* The result folder: runs.csv (one row per run, appended as runs finish,
 * rewritten sorted at the end), summary.csv, timing.csv, config.xml and
 * latency/run-ID.csv; resuming from what is there (refusing results of
 * another configuration), and merging the folders of a sweep's shards. */
#include "sweep_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
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
        sw->rec[id].from = id;
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

int store_file_digest(const char *path, uint64_t *digest)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char buf[8192];
    size_t n;
    uint64_t h = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = sweep_hash(buf, n, h);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return -1;
    *digest = h ? h : sweep_hash("", 0, 0);
    return 0;
}

static int copy_file(const char *src, const char *dst);

/* ------------------------------------------------------------- the lock */

int store_lock(sweep *sw)
{
    char path[CFG_PATH_MAX + 32];
    if (tn_mkdir_p(sw->o->out) != 0) {
        sweep_note(sw, SWEEP_ERROR, "cannot create %s: %s", sw->o->out, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/.lock", sw->o->out);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        sweep_note(sw, SWEEP_ERROR, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        int e = errno;
        if (e == EACCES || e == EAGAIN) {
            /* who holds it: the kernel says, the file may say too */
            struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
            long pid = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK ? (long)who.l_pid : 0;
            sweep_note(sw, SWEEP_ERROR,
                       "%s is being written by another tasknet (process %ld); two processes writing one "
                       "folder would lose runs. Wait for it to finish and run this command again (it resumes), "
                       "or write this part to another --out and combine them with `tasknet merge`",
                       sw->o->out, pid);
        } else {
            sweep_note(sw, SWEEP_ERROR, "cannot lock %s: %s", path, strerror(e));
        }
        close(fd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && write(fd, pid, (size_t)n) != n) {
        /* the pid is a courtesy for people: the lock is what counts */
    }
    sw->lock_fd = fd;
    return 0;
}

void store_unlock(sweep *sw)
{
    if (sw->lock_fd >= 0)
        close(sw->lock_fd); /* releases the lock */
    sw->lock_fd = -1;
}

/* A folder merge reads must not be under way: 0, or -1 when a running
 * tasknet holds its lock. */
static int folder_idle(const char *dir, long *pid)
{
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/.lock", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    int busy = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid != getpid();
    *pid = busy ? (long)who.l_pid : 0;
    close(fd);
    return busy ? -1 : 0;
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

/* One runs.csv row, split (the strings point into the line). */
typedef struct row_info {
    uint64_t id, point, replica, seed, hash, hist;
    int has_hist;
    int row_ok; /* its cells match its row_fnv1a64 */
    const char *value[CFG_MAX_AXES]; /* the swept values as written */
} row_info;

static int parse_u64(const char *s, int base, uint64_t *v)
{
    char *end;
    errno = 0;
    if (!isxdigit((unsigned char)s[0]))
        return -1;
    *v = strtoull(s, &end, base);
    return *end || errno ? -1 : 0;
}

/* Parse one runs.csv row into r and its metrics (an empty cell is NAN). 0 or -1. */
static int parse_row(const sweep *sw, char *line, row_info *r, double *m)
{
    enum { MAXF = 1024 };
    char *f[MAXF];
    /* row_fnv1a64: of the text before the last comma (before splitting) */
    const char *last = strrchr(line, ',');
    uint64_t digest = last ? report_row_digest(line, (size_t)(last - line)) : 0;
    size_t n = csv_split(line, f, MAXF);
    const run_layout *l = &sw->layout;
    size_t naxes = sw->c->naxes;
    size_t want = RUNS_FIXED_COLS + naxes + 2, nsi = 0;
    for (size_t i = 0; i < l->n; i++)
        want += metric_is_deterministic(l->col[i].name);
    for (size_t a = 0; a < naxes; a++)
        nsi += cfg_axis_si_unit(sw->c, a) != NULL;
    want += nsi;
    if (n != want)
        return -1;
    if (parse_u64(f[0], 10, &r->id) || parse_u64(f[1], 10, &r->point) || parse_u64(f[2], 10, &r->replica) ||
        parse_u64(f[3], 10, &r->seed) || parse_u64(f[4], 16, &r->hash))
        return -1;
    for (size_t a = 0; a < naxes; a++)
        r->value[a] = f[RUNS_FIXED_COLS + a];
    size_t k = RUNS_FIXED_COLS + naxes;
    char *end;
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
    k += nsi; /* the swept values in SI units: derived, covered by the row's checksum */
    r->has_hist = f[k][0] != '\0';
    if (r->has_hist && parse_u64(f[k], 16, &r->hist))
        return -1;
    uint64_t stated;
    r->row_ok = parse_u64(f[k + 1], 16, &stated) == 0 && stated == digest;
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
    size_t point = run_point(sw->c, id);
    uint64_t replica = run_replica(sw->c, id);
    const run_rec *r = &sw->rec[id];
    report_runs_row(f, sw->c, &sw->layout, point, replica, sw->point_hash[point], r->m,
                    r->has_hist ? &r->hist : NULL);
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
    int said = 0;
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        if (!cfg_param_applies(&old, i) && !cfg_param_applies(c, i))
            continue;
        int first = 1; /* a path several plugins declare: once */
        for (size_t k = 0; k < i && first; k++)
            first = strcmp(cfg_param_at(k)->row->path, p->row->path) != 0;
        if (!first)
            continue;
        /* each workload's copy by its own path (workload.<name>.<attr>) */
        for (size_t k = 0; k < cfg_param_copies(c, i); k++) {
            char *pk = cfg_param_path_at(c, i, k);
            if (cfg_get(&old, pk, a, sizeof a) != 0 || cfg_get(c, pk, b, sizeof b) != 0) {
                free(pk);
                continue;
            }
            if (cfg_input_digest(&old, pk) && cfg_input_digest(c, pk)) {
                /* the same file named relatively here and absolutely in config.xml is no change */
                if (p->row->kind == PARAM_FILE) {
                    free(pk);
                    continue;
                }
                sweep_strip_input_path(a);
                char b2[512];
                snprintf(b2, sizeof b2, "%s", b);
                sweep_strip_input_path(b2);
                if (strcmp(a, b2) == 0) {
                    free(pk);
                    continue;
                }
            }
            if (strcmp(a, b) != 0) {
                sweep_note(sw, SWEEP_DETAIL, "  %s: %s in %s, %s now", pk, a, path, b);
                said = 1;
            }
            free(pk);
        }
    }
    for (size_t i = 0; i < old.naxes || i < c->naxes; i++) {
        a[0] = b[0] = '\0';
        if (i < old.naxes)
            axis_text(&old.axes[i], a, sizeof a);
        if (i < c->naxes)
            axis_text(&c->axes[i], b, sizeof b);
        if (strcmp(a, b) != 0) {
            sweep_note(sw, SWEEP_DETAIL, "  sweep axis %zu: %s in %s, %s now", i + 1, a[0] ? a : "(none)", path,
                       b[0] ? b : "(none)");
            said = 1;
        }
    }
    if (!said)
        /* the texts agree: what a value reads does not (config.xml names the file, not what it held) */
        for (size_t i = 0; i < cfg_param_count(); i++)
            for (size_t k = 0; k < cfg_param_copies(c, i); k++)
                if (cfg_param_applies_at(c, i, k) && cfg_input_digest_at(c, i, k) &&
                    cfg_param_get_at(c, i, k, b, sizeof b) == 0) {
                    char *pk = cfg_param_path_at(c, i, k);
                    sweep_note(sw, SWEEP_DETAIL, "  %s = %s: the file's contents are part of the fingerprint, and "
                               "no parameter differs, so the file was edited since (or another file of that name "
                               "is read now)", pk, b);
                    free(pk);
                }
    cfg_free(&old);
}

/* The swept values of point p of c as "a=x b=y" (or "no sweep"). */
static void point_text(const cfg *c, size_t p, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = '\0';
    for (size_t a = 0; a < c->naxes && l < len; a++)
        l += (size_t)snprintf(buf + l, len - l, "%s%s=%s", a ? " " : "", c->axes[a].param, cfg_point_value(c, p, a));
    if (!c->naxes)
        snprintf(buf, len, "no swept values");
}

static void row_values_text(const cfg *c, const row_info *r, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = '\0';
    for (size_t a = 0; a < c->naxes && l < len; a++)
        l += (size_t)snprintf(buf + l, len - l, "%s%s=%s", a ? " " : "", c->axes[a].param, r->value[a]);
    if (!c->naxes)
        snprintf(buf, len, "no swept values");
}

/* The row is run r->id of the table of c (point, replica, seed and swept values agree). */
static int row_fits_table(const cfg *c, const row_info *r)
{
    uint64_t np = cfg_points(c), R = c->replicas;
    if (r->id >= np * R || r->point != r->id / R || r->replica != r->id % R || r->seed != c->seed)
        return 0;
    for (size_t a = 0; a < c->naxes; a++)
        if (strcmp(r->value[a], cfg_point_value(c, (size_t)r->point, a)) != 0)
            return 0;
    return 1;
}

/* Points by fingerprint, for attributing rows. */
typedef struct hash_point {
    uint64_t hash;
    size_t point;
} hash_point;

static int cmp_hash_point(const void *pa, const void *pb)
{
    const hash_point *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->point < b->point ? -1 : a->point > b->point;
}

/* The points of fingerprint h: [*first, *first + count). */
static size_t points_of(const hash_point *hp, size_t n, uint64_t h, size_t *first)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hp[mid].hash < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo;
    size_t k = lo;
    while (k < n && hp[k].hash == h)
        k++;
    return k - lo;
}

/* A point of this sweep with the row's swept values, or SIZE_MAX. */
static size_t point_with_values(const sweep *sw, const row_info *r)
{
    for (size_t p = 0; p < sw->npoints; p++) {
        size_t a = 0;
        while (a < sw->c->naxes && strcmp(r->value[a], cfg_point_value(sw->c, p, a)) == 0)
            a++;
        if (a == sw->c->naxes)
            return p;
    }
    return SIZE_MAX;
}

/* Is run id's histogram in the folder the one its row describes? A
 * histogram the last remap left under its new name (a stop between writing
 * runs.csv and renaming) is put in place when `repair`. */
static int hist_ok(const sweep *sw, uint64_t id, int repair)
{
    const run_rec *r = &sw->rec[id];
    if (!r->has_hist)
        return 1;
    char path[CFG_PATH_MAX + 64], tmp[CFG_PATH_MAX + 64];
    uint64_t h;
    report_latency_path(path, sizeof path, sw->o->out, r->from);
    if (store_file_digest(path, &h) == 0 && h == r->hist)
        return 1;
    snprintf(tmp, sizeof tmp, "%s/latency/remap-%llu.tmp", sw->o->out, (unsigned long long)id);
    if (r->from == id && store_file_digest(tmp, &h) == 0 && h == r->hist)
        return !repair || rename(tmp, path) == 0;
    return 0;
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
    const cfg *c = sw->c;
    /* the folder's own run table: its config.xml, as it was written (the
     * rows of a folder being laid out anew may already be this sweep's) */
    char cpath[CFG_PATH_MAX + 32];
    snprintf(cpath, sizeof cpath, "%s/config.xml", sw->o->out);
    cfg old;
    cfg_errors errs;
    cfg_errors_init(&errs);
    int have_old = cfg_load(&old, cpath, &errs) == 0 && old.naxes == c->naxes;
    cfg_errors_free(&errs);
    if (!have_old)
        cfg_free(&old);

    hash_point *hp = tn_xmalloc((sw->npoints ? sw->npoints : 1) * sizeof *hp);
    for (size_t p = 0; p < sw->npoints; p++)
        hp[p] = (hash_point){sw->point_hash[p], p};
    qsort(hp, sw->npoints, sizeof *hp, cmp_hash_point);

    size_t reused = 0, line = 0, edited = 0;
    char edited_lines[256] = "";
    double *m = tn_xcalloc(sw->layout.n ? sw->layout.n : 1, sizeof *m);
    int fail = 0;
    char a[1024], b[1024];
    for (size_t i = 0; i < t.nrows && !fail; i++) {
        line = i + 2;
        row_info r;
        if (parse_row(sw, t.rows[i], &r, m) != 0) {
            sweep_note(sw, SWEEP_ERROR, "%s:%zu: not a row of this sweep (a field is missing or not a number)",
                       path, line);
            fail = 1;
            break;
        }
        /* the row must be the run its id says, in the folder's table */
        if (!(have_old && row_fits_table(&old, &r)) && !row_fits_table(c, &r)) {
            const cfg *tab = have_old ? &old : c;
            uint64_t R = tab->replicas, n = (uint64_t)cfg_points(tab) * R;
            row_values_text(tab, &r, a, sizeof a);
            if (r.id < n) {
                point_text(tab, (size_t)(r.id / R), b, sizeof b);
                sweep_note(sw, SWEEP_ERROR,
                           "%s:%zu: the row of run %llu says point %llu, replica %llu, seed %llu, %s; run %llu of "
                           "this folder's sweep is point %llu, replica %llu, seed %llu, %s. The row was edited "
                           "(or comes from another folder), so its results cannot be trusted: remove it (its "
                           "run is then redone) or use another --out",
                           path, line, (unsigned long long)r.id, (unsigned long long)r.point,
                           (unsigned long long)r.replica, (unsigned long long)r.seed, a, (unsigned long long)r.id,
                           (unsigned long long)(r.id / R), (unsigned long long)(r.id % R),
                           (unsigned long long)tab->seed, b);
            } else {
                sweep_note(sw, SWEEP_ERROR,
                           "%s:%zu: run %llu does not exist in this folder's sweep (runs 0-%llu): the row was "
                           "edited (or comes from another folder); remove it or use another --out",
                           path, line, (unsigned long long)r.id, (unsigned long long)(n ? n - 1 : 0));
            }
            fail = 1;
            break;
        }
        /* this sweep's run of the same configuration and replica */
        size_t first, nsame = points_of(hp, sw->npoints, r.hash, &first);
        if (!nsame) {
            size_t p = point_with_values(sw, &r);
            row_values_text(c, &r, a, sizeof a);
            if (p != SIZE_MAX)
                sweep_note(sw, SWEEP_ERROR, "%s: run %llu was made with a different configuration "
                        "(fingerprint %016llx, now %016llx); results are never mixed: use another "
                        "--out or remove %s",
                        path, (unsigned long long)r.id, (unsigned long long)r.hash,
                        (unsigned long long)sw->point_hash[p], sw->o->out);
            else
                sweep_note(sw, SWEEP_ERROR, "%s:%zu: run %llu (%s) is of a point this sweep does not have, "
                           "and a folder keeps every result it holds: sweep that point too, or use another --out",
                           path, line, (unsigned long long)r.id, a);
            explain_change(sw);
            fail = 1;
            break;
        }
        if (r.replica >= c->replicas) {
            sweep_note(sw, SWEEP_ERROR, "%s:%zu: run %llu is replica %llu, and this sweep has %u replica%s per "
                       "point; a folder keeps every result it holds: run with --replicas %llu or more, or use "
                       "another --out",
                       path, line, (unsigned long long)r.id, (unsigned long long)r.replica, c->replicas,
                       c->replicas == 1 ? "" : "s", (unsigned long long)r.replica + 1);
            fail = 1;
            break;
        }
        if (!r.row_ok) {
            /* a row that names its run right but whose cells were edited (a
             * plausible number): its results are not trusted, its run is redone */
            size_t l = strlen(edited_lines);
            if (edited < 8)
                snprintf(edited_lines + l, sizeof edited_lines - l, "%s%zu", edited ? ", " : "", line);
            else if (edited == 8)
                snprintf(edited_lines + l, sizeof edited_lines - l, ", ...");
            edited++;
            continue;
        }
        /* identical points share a fingerprint: the one of the row's values, else the first */
        size_t p = hp[first].point;
        for (size_t k = first; k < first + nsame; k++) {
            size_t q = hp[k].point, ax = 0;
            while (ax < c->naxes && strcmp(r.value[ax], cfg_point_value(c, q, ax)) == 0)
                ax++;
            if (ax == c->naxes) {
                p = q;
                break;
            }
        }
        uint64_t id = run_id(c, p, r.replica);
        run_rec *rec = &sw->rec[id];
        if (rec->done && (!same_metrics(rec->m, m, sw->layout.n) || rec->has_hist != r.has_hist ||
                          rec->hist != r.hist)) {
            sweep_note(sw, SWEEP_ERROR, "%s:%zu: run %llu appears twice with different results (the "
                    "file was edited or two sweeps wrote it); use another --out or remove the wrong row",
                    path, line, (unsigned long long)r.id);
            fail = 1;
            break;
        }
        if (!rec->done)
            reused++;
        rec->done = 1;
        rec->hash = r.hash;
        rec->from = r.id;
        rec->has_hist = r.has_hist;
        rec->hist = r.hist;
        memcpy(rec->m, m, sw->layout.n * sizeof *m);
    }
    free(m);
    free(hp);
    if (have_old)
        cfg_free(&old);
    if (fail) {
        csv_table_free(&t);
        return -1;
    }
    if (edited)
        sweep_note(sw, SWEEP_WARNING, "%s: %zu row%s (line%s %s) do%s not match %s checksum (row_fnv1a64): "
                   "edited after the run, so %s redone",
                   path, edited, edited == 1 ? "" : "s", edited == 1 ? "" : "s", edited_lines, edited == 1 ? "es" : "",
                   edited == 1 ? "its" : "their", edited == 1 ? "that run is" : "those runs are");
    /* every kept run's histogram must be the one its row describes */
    size_t bad = 0;
    char ids[256] = "";
    for (uint64_t id = 0; id < sw->nruns; id++) {
        run_rec *rec = &sw->rec[id];
        if (!rec->done || hist_ok(sw, id, !sw->o->list_only))
            continue;
        size_t l = strlen(ids);
        if (bad < 8)
            snprintf(ids + l, sizeof ids - l, "%s%llu", bad ? ", " : "", (unsigned long long)rec->from);
        else if (bad == 8)
            snprintf(ids + l, sizeof ids - l, ", ...");
        bad++;
        reused--;
        rec->done = 0;
        rec->from = id;
        rec->has_hist = 0;
        metric_unset(rec->m, sw->layout.n);
    }
    for (uint64_t id = 0; id < sw->nruns; id++)
        if (sw->rec[id].done && sw->rec[id].from != id)
            sw->remapped = 1;
    if (bad)
        sweep_note(sw, SWEEP_WARNING, "%s: %zu run%s had a missing or damaged latency histogram (latency/run-ID.csv "
                   "of run%s %s does not match the checksum in runs.csv): redone", sw->o->out, bad,
                   bad == 1 ? "" : "s", bad == 1 ? "" : "s", ids);
    /* "resuming" only when a selected run is left to do (rerunning a finished sweep runs nothing) */
    uint64_t left = 0;
    for (uint64_t id = 0; id < sw->nruns; id++)
        left += sw->todo[id] && !sw->rec[id].done;
    if (reused && !sw->o->quiet)
        sweep_note(sw, SWEEP_INFO, "%s: %zu run%s already done, %s%s", sw->o->out, reused, reused == 1 ? "" : "s",
                   left ? "resuming" : "nothing left to run",
                   sw->remapped ? " (kept under the run ids of this sweep)" : "");
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
            report_point_add(&pts[run_point(sw->c, id)], &sw->layout, sw->rec[id].m);
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

/* Copy file src to dst (created or truncated). 0, or -1 + errno. */
static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb");
    if (!in)
        return -1;
    FILE *outf = fopen(dst, "wb");
    if (!outf) {
        int e = errno;
        fclose(in);
        errno = e;
        return -1;
    }
    char buf[8192];
    size_t n;
    int e = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, outf) != n && !e)
            e = errno ? errno : EIO;
    if (ferror(in) && !e)
        e = errno ? errno : EIO;
    fclose(in);
    if (fclose(outf) != 0 && !e)
        e = errno ? errno : EIO;
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

/* Copy run id's latency histogram from folder `from` (its id there:
 * from_id) into `to`, checking it against the row's checksum. The same file
 * reached by two spellings of one folder (out/x and out/./x, a symlink) is
 * left alone, never truncated by opening it for writing. 0, 1 when the
 * row has none (folders written before histograms existed), or -1 with the
 * reason in err. */
static int copy_latency(const char *from, const char *to, uint64_t from_id, uint64_t id, const run_rec *r,
                        char *err, size_t errlen)
{
    char src[CFG_PATH_MAX + 64], dst[CFG_PATH_MAX + 64];
    report_latency_path(src, sizeof src, from, from_id);
    report_latency_path(dst, sizeof dst, to, id);
    if (!r->has_hist)
        return 1;
    uint64_t h;
    if (store_file_digest(src, &h) != 0 || h != r->hist)
        return tn_error(err, errlen, "%s is missing or damaged (it does not match the checksum in runs.csv); "
                        "run that folder's command again (it redoes the run), then merge", src);
    struct stat ss, ds;
    if (stat(src, &ss) == 0 && stat(dst, &ds) == 0 && ds.st_dev == ss.st_dev && ds.st_ino == ss.st_ino)
        return 0;
    if (copy_file(src, dst) != 0)
        return tn_error(err, errlen, "copying %s to %s: %s", src, dst, strerror(errno));
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

/* Kept runs whose histograms have other ids in the folder (replicas or
 * axis values added): link each to latency/remap-NEWID.tmp now, before
 * runs.csv names them by their new ids; store_open renames the links after.
 * A stop in between leaves either the old runs.csv (the next start lays the
 * folder out again) or the new one with the links, which hist_ok puts in
 * place: never a histogram under the wrong run. 0 or -1. */
static int remap_link(sweep *sw)
{
    char from[CFG_PATH_MAX + 64], to[CFG_PATH_MAX + 64];
    for (uint64_t id = 0; id < sw->nruns; id++) {
        run_rec *r = &sw->rec[id];
        if (!r->done || r->from == id || !r->has_hist)
            continue;
        report_latency_path(from, sizeof from, sw->o->out, r->from);
        snprintf(to, sizeof to, "%s/latency/remap-%llu.tmp", sw->o->out, (unsigned long long)id);
        unlink(to);
        if (link(from, to) != 0 && copy_file(from, to) != 0) {
            sweep_note(sw, SWEEP_ERROR, "cannot copy %s to %s: %s", from, to, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int remap_rename(sweep *sw)
{
    char from[CFG_PATH_MAX + 64], to[CFG_PATH_MAX + 64];
    for (uint64_t id = 0; id < sw->nruns; id++) {
        run_rec *r = &sw->rec[id];
        if (!r->done || r->from == id)
            continue;
        if (r->has_hist) {
            snprintf(from, sizeof from, "%s/latency/remap-%llu.tmp", sw->o->out, (unsigned long long)id);
            report_latency_path(to, sizeof to, sw->o->out, id);
            if (rename(from, to) != 0) {
                sweep_note(sw, SWEEP_ERROR, "cannot rename %s to %s: %s", from, to, strerror(errno));
                return -1;
            }
        }
        r->from = id;
    }
    sw->remapped = 0;
    return 0;
}

/* timing.csv on opening a folder: the rows of the runs kept, under this
 * sweep's ids (after a remap), one row a run (the last written); those of
 * runs not kept (damaged, redone) are dropped, so a run redone after a
 * resume is not listed twice. */
static int cmp_u64_pair(const void *pa, const void *pb)
{
    const uint64_t *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

static void keep_timing(const sweep *sw, const char *path)
{
    csv_table t;
    if (csv_read(path, &t) <= 0 || !t.header) {
        csv_table_free(&t);
        return;
    }
    /* (id in the folder, id now) of every kept run, by the former */
    uint64_t (*map)[2] = tn_xmalloc((sw->nruns ? sw->nruns : 1) * sizeof *map);
    size_t n = 0;
    for (uint64_t id = 0; id < sw->nruns; id++)
        if (sw->rec[id].done) {
            map[n][0] = sw->rec[id].from;
            map[n++][1] = id;
        }
    qsort(map, n, sizeof *map, cmp_u64_pair);
    /* the row each kept run keeps: its last */
    size_t *last = tn_xmalloc((n ? n : 1) * sizeof *last), *hit_of = tn_xmalloc((t.nrows ? t.nrows : 1) * sizeof *hit_of);
    for (size_t h = 0; h < n; h++)
        last[h] = SIZE_MAX;
    for (size_t i = 0; i < t.nrows; i++) {
        const char *comma = strchr(t.rows[i], ',');
        char idtext[32];
        size_t len = comma ? (size_t)(comma - t.rows[i]) : 0;
        uint64_t key[2];
        hit_of[i] = SIZE_MAX;
        if (!comma || len >= sizeof idtext)
            continue;
        memcpy(idtext, t.rows[i], len);
        idtext[len] = '\0';
        if (parse_u64(idtext, 10, &key[0]) != 0)
            continue;
        const uint64_t(*hit)[2] = bsearch(key, map, n, sizeof *map, cmp_u64_pair);
        if (hit) {
            hit_of[i] = (size_t)(hit - map);
            last[hit_of[i]] = i;
        }
    }
    char tmp[CFG_PATH_MAX + 48];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f) {
        fputs(t.header, f);
        for (size_t i = 0; i < t.nrows; i++)
            if (hit_of[i] != SIZE_MAX && last[hit_of[i]] == i)
                fprintf(f, "%llu%s", (unsigned long long)map[hit_of[i]][1], strchr(t.rows[i], ','));
        int bad = ferror(f);
        if (fclose(f) == 0 && !bad)
            rename(tmp, path);
        else
            unlink(tmp);
    }
    free(last);
    free(hit_of);
    free(map);
    csv_table_free(&t);
}

int store_open(sweep *sw)
{
    const char *out = sw->o->out;
    char path[CFG_PATH_MAX + 32], err[512];
    snprintf(path, sizeof path, "%s/latency", out);
    if (tn_mkdir_p(path) != 0) {
        sweep_note(sw, SWEEP_ERROR, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int remapped = sw->remapped;
    if (remapped && remap_link(sw) != 0)
        return -1;
    /* rewrite what is kept (drops a torn last line, names runs by this
     * sweep's ids), then the configuration it belongs to, then append */
    snprintf(path, sizeof path, "%s/runs.csv", out);
    if (rewrite_runs(sw, path) != 0) {
        sweep_note(sw, SWEEP_ERROR, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/config.xml", out);
    if (cfg_write_xml(sw->c, path, err, sizeof err) != 0) {
        sweep_note(sw, SWEEP_ERROR, "%s", err);
        return -1;
    }
    snprintf(path, sizeof path, "%s/timing.csv", out);
    keep_timing(sw, path);
    if (remapped && remap_rename(sw) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/runs.csv", out);
    if (!(sw->runs_csv = fopen(path, "a"))) {
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
    sweep sw = {.lock_fd = -1};
    sweep_opts o = {.out = out};
    sw.o = &o;
    sw.ui = ui;

    for (size_t d = 0; d < ndirs; d++) {
        long pid;
        if (folder_idle(dirs[d], &pid) != 0) {
            sweep_note(&sw, SWEEP_ERROR, "%s is being written by a running tasknet (process %ld); merge it once "
                       "that run has finished", dirs[d], pid);
            goto out;
        }
    }
    if (store_lock(&sw) != 0)
        goto out;
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
            row_info r;
            int bad = parse_row(&sw, t.rows[i], &r, m) != 0 ? 1 : !r.row_ok ? 5 : !row_fits_table(&c, &r) ? 4 : 0;
            uint64_t id = bad ? 0 : r.id;
            size_t p = bad ? 0 : run_point(&c, id);
            if (!bad && sw.point_hash[p] && sw.point_hash[p] != r.hash)
                bad = 2;
            run_rec *rec = &sw.rec[id];
            if (!bad && rec->done &&
                (!same_metrics(rec->m, m, sw.layout.n) || rec->has_hist != r.has_hist || rec->hist != r.hist))
                bad = 3;
            if (bad) {
                sweep_note(&sw, SWEEP_ERROR, "%s:%zu: %s", path, i + 2,
                        bad == 1   ? "not a row of this sweep"
                        : bad == 5 ? "the row's cells do not match its checksum (row_fnv1a64): it was edited after "
                                     "the run; remove the row from that folder and run it there again"
                        : bad == 4 ? "the row's point, replica, seed or swept values are not those of its run id "
                                     "(the row was edited)"
                        : bad == 2 ? "made with a different configuration than other rows of its point"
                                   : "run already present elsewhere with different results");
                csv_table_free(&t);
                free(want);
                goto out;
            }
            sw.point_hash[p] = r.hash;
            if (!rec->done) {
                total++;
                rec->has_hist = r.has_hist;
                rec->hist = r.hist;
                int cl = copy_latency(dirs[d], out, id, id, rec, err, sizeof err);
                no_hist += cl == 1;
                if (cl < 0) {
                    sweep_note(&sw, SWEEP_ERROR, "the latency histogram of run %llu: %s", (unsigned long long)id,
                               err);
                    csv_table_free(&t);
                    free(want);
                    goto out;
                }
            }
            rec->done = 1;
            rec->hash = r.hash;
            memcpy(rec->m, m, sw.layout.n * sizeof *m);
        }
        csv_table_free(&t);
    }
    free(want);
    snprintf(path, sizeof path, "%s/runs.csv", out);
    if (rewrite_runs(&sw, path) != 0 || write_summary(&sw) != 0) {
        sweep_note(&sw, SWEEP_ERROR, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    snprintf(path, sizeof path, "%s/config.xml", out);
    if (cfg_write_xml(&c, path, err, sizeof err) != 0) {
        sweep_note(&sw, SWEEP_ERROR, "%s", err);
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
    store_unlock(&sw);
    free(ref_cfg);
    free(sw.point_hash);
    free(m);
    if (sw.rec)
        sweep_records_free(&sw);
    cfg_free(&c);
    return rc;
}

/* ---------------------------------------------- recording a run */

static void record(sweep *sw, uint64_t id, const double *m)
{
    run_rec *r = &sw->rec[id];
    r->done = 1;
    r->hash = sw->point_hash[run_point(sw->c, id)];
    memcpy(r->m, m, sw->layout.n * sizeof *m);
    sw->todo[id] = 0;
    sw->ndone_now++;
    double events = m[run_core(&sw->layout, M_events)], wall = m[run_core(&sw->layout, M_wall_s)];
    sw->events_now += events;
    if (sw->runs_csv)
        store_append(sw, id);
    if (sw->ui && sw->ui->run_done)
        sw->ui->run_done(sw->ui->ctx, id, run_point(sw->c, id), run_replica(sw->c, id), events, wall);
    if (sw->ui && sw->ui->progress)
        sw->ui->progress(sw->ui->ctx, sw->ndone_now, sw->ntodo, sweep_now_s() - sw->t0_s);
}

int sweep_record(sweep *sw, const sweep_result *r)
{
    if (r->status != 0) {
        sw->todo[r->id] = 0;
        sweep_note(sw, SWEEP_ERROR, "run %llu: %s", (unsigned long long)r->id, r->err);
        return 1;
    }
    /* the row carries the checksum of the histogram the run left (a resume
     * redoes the run if the file is later lost or damaged) */
    run_rec *rec = &sw->rec[r->id];
    char hist[CFG_PATH_MAX + 64];
    if (sweep_latency_path(sw, r->id, hist, sizeof hist)) {
        if (store_file_digest(hist, &rec->hist) != 0) {
            sw->todo[r->id] = 0;
            sweep_note(sw, SWEEP_ERROR, "run %llu: its latency histogram %s cannot be read: %s",
                       (unsigned long long)r->id, hist, strerror(errno));
            return 1;
        }
        rec->has_hist = 1;
    }
    rec->from = r->id;
    sweep_order_measured(sw, r->id, r->m[run_core(&sw->layout, M_wall_s)]);
    record(sw, r->id, r->m);
    return 0;
}
