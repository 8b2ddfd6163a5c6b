#include "plot.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "csv.h"
#include "infile.h"
#include "log.h"
#include "report.h"
#include "units.h"

extern char **environ;

static void plot_note(const plot_opts *o, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void plot_note(const plot_opts *o, int kind, const char *fmt, ...)
{
    if (!o->note)
        return;
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    o->note(o->ctx, kind, text);
}

#define MAXF 1024

/* How a swept parameter's values become numbers on an axis. */
typedef struct axis_scale {
    unit_kind unit; /* UNIT_NONE also for plain numbers */
    int numeric;    /* 0: categories */
    double factor;  /* SI value * factor = plotted value */
    char label[160];
} axis_scale;

static void scale_for(const char *param, axis_scale *a)
{
    memset(a, 0, sizeof *a);
    a->factor = 1;
    snprintf(a->label, sizeof a->label, "%s", param);
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        if (strcmp(p->row->path, param) != 0)
            continue;
        struct {
            const char *type;
            unit_kind unit;
            double factor;
            const char *shown;
        } map[] = {
            {"rate", UNIT_RATE, 1e-9, "Gb/s"},   {"time", UNIT_TIME, 1e6, "us"},
            {"size", UNIT_SIZE, 1e-3, "kB"},     {"frequency", UNIT_FREQ, 1, "1/s"},
            {"integer", UNIT_NONE, 1, NULL},     {"number", UNIT_NONE, 1, NULL},
        };
        for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
            if (strcmp(p->row->type, map[k].type) != 0)
                continue;
            a->numeric = 1;
            a->unit = map[k].unit;
            a->factor = map[k].factor;
            if (map[k].shown)
                snprintf(a->label, sizeof a->label, "%s [%s]", param, map[k].shown);
        }
    }
}

static int axis_value(const axis_scale *a, const char *text, double *v)
{
    char err[256];
    if (!a->numeric)
        return -1;
    if (units_parse(text, a->unit, v, err, sizeof err) != 0)
        return -1;
    *v *= a->factor;
    return 0;
}

/* A control character (newline, carriage return, tab, escape, DEL...):
 * gnuplot reads a script line by line, so a newline inside a string would
 * end the command and run the rest as gnuplot code (system(...) included). */
static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

static const char *first_control(const char *s)
{
    for (; s && *s; s++)
        if (is_control((unsigned char)*s))
            return s;
    return NULL;
}

/* gnuplot string literal: single quotes doubled (nothing else is special
 * inside single quotes); a control character, which no label needs and
 * which would end the command, becomes a space. Every string a script
 * holds goes through here or gp_datum. */
static void gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(is_control((unsigned char)*s) ? ' ' : *s, f);
    }
    fputc('\'', f);
}

/* A category label in inline data: double-quoted, with the characters that
 * would end the quote or the line replaced. */
static void gp_datum(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        fputc(is_control((unsigned char)*s) || *s == '"' || *s == '\\' ? ' ' : *s, f);
    fputc('"', f);
}

/* A number read from a result file, as data: the cell must be a number and
 * nothing else (a hand-edited cell holding a line break and gnuplot code is
 * not written into the script). */
static int gp_number_ok(const char *s)
{
    if (!s || !*s)
        return 0;
    char *end;
    strtod(s, &end);
    return *end == '\0' && !first_control(s);
}

/* Close a script, reporting a failed write. 0 or 1. */
static int gp_close(const plot_opts *o, FILE *g, const char *script);

static int has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The image formats plot writes, by the extension of the image's name:
 * the terminal gnuplot draws it with (the same size everywhere). */
static const struct {
    const char *ext, *terminal;
} formats[] = {
    {".png", "pngcairo size 960,640 enhanced font 'sans,11'"},
    {".svg", "svg size 960,640 dynamic enhanced font 'sans,12'"},
    {".pdf", "pdfcairo size 10in,6.67in enhanced font 'sans,11'"},
};

static const char *terminal_for(const char *image)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (has_suffix(image, formats[i].ext))
            return formats[i].terminal;
    return NULL;
}

/* Terminal, output and common settings. */
static void gp_preamble(FILE *f, const char *image, const char *title)
{
    fputs("# Generated by `tasknet plot`: edit freely and re-run with `gnuplot THIS.gp`.\n", f);
    const char *term = terminal_for(image);
    fprintf(f, "set terminal %s\n", term ? term : formats[0].terminal);
    fputs("set output ", f);
    gp_string(f, image);
    fputs("\nset title ", f);
    gp_string(f, title);
    fputs(" noenhanced\nset grid\nset key outside right top noenhanced\n", f);
}

static int gp_close(const plot_opts *o, FILE *g, const char *script)
{
    int bad = ferror(g);
    if (fclose(g) != 0 || bad) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot write %s: %s", script, strerror(errno ? errno : EIO));
        return 1;
    }
    return 0;
}

/* Run gnuplot on the script, with no shell between (any path is safe); say
 * what was written. */
static int gp_run(const plot_opts *o, const char *script, const char *image)
{
    /* a path that starts with '-' would read as an option */
    char arg[CFG_PATH_MAX + 8];
    snprintf(arg, sizeof arg, "%s%s", script[0] == '-' ? "./" : "", script);
    char *argv[] = {"gnuplot", arg, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (rc == ENOENT) {
        plot_note(o, PLOT_NOTE_INFO,
                  "gnuplot is not installed (Debian: apt-get install gnuplot-nox); the script is written: %s — "
                  "run `gnuplot %s` where gnuplot is available", script, script);
        return 1;
    }
    if (rc != 0) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot start gnuplot: %s", strerror(rc));
        return 1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            plot_note(o, PLOT_NOTE_ERROR, "waiting for gnuplot: %s", strerror(errno));
            return 1;
        }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        plot_note(o, PLOT_NOTE_ERROR, "gnuplot failed on %s", script);
        return 1;
    }
    plot_note(o, PLOT_NOTE_WROTE, "%s", image);
    plot_note(o, PLOT_NOTE_WROTE, "%s", script);
    return 0;
}

/* The image path and its script (image with .gp instead of the extension). */
static void paths(const plot_opts *o, const char *dflt, char *image, char *script, size_t len)
{
    if (o->out)
        snprintf(image, len, "%s", o->out);
    else
        snprintf(image, len, "%s/%s.png", o->input, dflt);
    /* the folder of an image given with --out may not exist yet */
    char *slash0 = strrchr(image, '/');
    if (slash0 && slash0 != image) {
        *slash0 = '\0';
        tn_mkdir_p(image);
        *slash0 = '/';
    }
    snprintf(script, len, "%s", image);
    char *dot = strrchr(script, '.');
    char *slash = strrchr(script, '/');
    if (dot && (!slash || dot > slash))
        *dot = '\0';
    strncat(script, ".gp", len - strlen(script) - 1);
}

typedef struct series {
    char *name;   /* series value as written */
    char *data;   /* inline data lines */
    size_t len;
    FILE *f;
} series;

/* Each series is allocated on its own: its memory stream keeps pointers to
 * data and len, which must not move when the list grows. */
static series *series_get(series ***all, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*all)[i]->name, name) == 0)
            return (*all)[i];
    *all = tn_xrealloc(*all, (*n + 1) * sizeof **all);
    series *s = tn_xmalloc(sizeof *s);
    (*all)[(*n)++] = s;
    s->name = tn_xstrdup(name);
    s->data = NULL;
    s->len = 0;
    s->f = open_memstream(&s->data, &s->len);
    return s;
}

static void series_free(series **all, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (all[i]->f)
            fclose(all[i]->f);
        free(all[i]->data);
        free(all[i]->name);
        free(all[i]);
    }
    free(all);
}

/* Read DIR/name of a result folder into t (path gets its name); says why not. 0 or -1. */
static int read_result(const plot_opts *o, const char *name, char *path, size_t len, csv_table *t)
{
    snprintf(path, len, "%s/%s", o->input, name);
    int rc = csv_read(path, t);
    if (rc <= 0 || !t->header) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot read %s%s%s", path, rc < 0 ? ": " : "",
                rc < 0 ? strerror(errno) : " (run `tasknet run CONFIG --out DIR` first)");
        csv_table_free(t);
        return -1;
    }
    return 0;
}

/* The metric drawn when --y is not given: the one the folder's workload
 * names (DIR/config.xml), else the first metric of summary.csv. Caller frees. */
static char *default_y(const plot_opts *o, char *const *hf, size_t nh, size_t first_metric)
{
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config.xml", o->input);
    cfg c;
    cfg_errors errs;
    cfg_errors_init(&errs);
    char *y = NULL;
    if (cfg_load(&c, path, &errs) == 0 && cfg_wl(&c) && cfg_wl(&c)->plot_y)
        y = tn_xstrdup(cfg_wl(&c)->plot_y);
    cfg_errors_free(&errs);
    cfg_free(&c);
    if (!y && first_metric < nh) {
        size_t l = strlen(hf[first_metric]);
        y = tn_xstrdup(hf[first_metric]);
        if (l > 5)
            y[l - 5] = '\0'; /* drop "_mean" */
    }
    return y ? y : tn_xstrdup("");
}

/* The confidence column of metric m in a summary.csv header: m_ci95, or
 * m_ci99 ... at another run.confidence; -1 if none. */
static int ci_column(const char *header, const char *m)
{
    char *h = tn_xstrdup(header), *f[MAXF];
    size_t n = csv_split(h, f, MAXF), len = strlen(m);
    int col = -1;
    for (size_t i = 0; i < n && col < 0; i++)
        if (strncmp(f[i], m, len) == 0 && strncmp(f[i] + len, "_ci", 3) == 0 && f[i][len + 3] >= '0' &&
            f[i][len + 3] <= '9')
            col = (int)i;
    free(h);
    return col;
}

/* Figures from summary.csv: metric against a parameter, or against a metric. */
static int plot_summary(const plot_opts *o)
{
    char path[CFG_PATH_MAX + 32];
    csv_table t;
    if (read_result(o, "summary.csv", path, sizeof path, &t) != 0)
        return 1;
    /* the swept parameters are the columns between "replicas" and the first metric */
    char *hcopy = tn_xstrdup(t.header), *hf[MAXF];
    size_t nh = csv_split(hcopy, hf, MAXF);
    size_t first_axis = 2, naxes = 0;
    while (first_axis + naxes < nh && !has_suffix(hf[first_axis + naxes], "_mean"))
        naxes++;
    char *ydef = o->y ? NULL : default_y(o, hf, nh, first_axis + naxes);
    const char *y = o->y ? o->y : ydef;
    const char *x = o->x, *ser = o->series;
    int vs_metric = o->kind == PLOT_METRIC_VS_METRIC;
    if (!vs_metric && !x) {
        if (!naxes) {
            plot_note(o, PLOT_NOTE_ERROR, "%s has no swept parameter; name one with --x",
                    path);
            goto fail;
        }
        x = hf[first_axis];
    }
    /* --where PARAM=VALUE: the swept column and its value */
    int wc[PLOT_MAX_WHERE];
    const char *wv[PLOT_MAX_WHERE];
    for (size_t k = 0; k < o->nwhere; k++) {
        const char *eq = strchr(o->where[k], '=');
        wc[k] = -1;
        wv[k] = eq ? eq + 1 : "";
        for (size_t a = 0; eq && a < naxes; a++)
            if (strlen(hf[first_axis + a]) == (size_t)(eq - o->where[k]) &&
                strncmp(hf[first_axis + a], o->where[k], (size_t)(eq - o->where[k])) == 0)
                wc[k] = (int)(first_axis + a);
        if (wc[k] < 0) {
            char swept[2048] = "";
            for (size_t a = 0, l = 0; a < naxes && l < sizeof swept; a++)
                l += (size_t)snprintf(swept + l, sizeof swept - l, " %s", hf[first_axis + a]);
            plot_note(o, PLOT_NOTE_ERROR, "--where %s: %s (swept:%s)", o->where[k],
                      eq ? "not a swept parameter of this folder" : "expected PARAM=VALUE", swept[0] ? swept : " none");
            goto fail;
        }
    }
    /* one series per combination of the swept parameters that are not x
     * and not fixed by --where: by default all of them; with --series, the
     * ones it names first, then any other (a curve never runs through
     * several values of a parameter it does not show) */
    char dser[1024] = "", extra[1024] = "";
    if (ser)
        snprintf(dser, sizeof dser, "%s", ser);
    for (size_t a = 0; a < naxes; a++) {
        const char *h = hf[first_axis + a];
        int skip = !vs_metric && strcmp(h, x) == 0;
        for (size_t k = 0; k < o->nwhere && !skip; k++)
            skip = wc[k] == (int)(first_axis + a);
        if (ser) { /* named already? */
            char named[1024];
            snprintf(named, sizeof named, "%s", ser);
            for (char *tok = strtok(named, ","); tok && !skip; tok = strtok(NULL, ","))
                skip = strcmp(tok, h) == 0;
        }
        if (skip)
            continue;
        size_t l = strlen(dser), le = strlen(extra);
        snprintf(dser + l, sizeof dser - l, "%s%s", l ? "," : "", h);
        snprintf(extra + le, sizeof extra - le, "%s%s", le ? ", " : "", h);
    }
    if (ser && extra[0])
        plot_note(o, PLOT_NOTE_INFO, "the series are split by %s too (swept; --where PARAM=VALUE draws one value)",
                  extra);
    ser = dser[0] ? dser : NULL;
    /* the series parameters: one, or several separated by commas */
    char sercopy[1024];
    const char *sername[16];
    int sc[16];
    size_t nser = 0;
    int sc_bad = -1;
    if (ser) {
        snprintf(sercopy, sizeof sercopy, "%s", ser);
        for (char *tok = strtok(sercopy, ","); tok && nser < 16; tok = strtok(NULL, ",")) {
            sername[nser] = tok;
            sc[nser] = csv_column(t.header, tok);
            if (sc[nser] < 0 && sc_bad < 0)
                sc_bad = (int)nser;
            nser++;
        }
    }
    char col[256];
    snprintf(col, sizeof col, "%s_mean", y);
    int ym = csv_column(t.header, col);
    int yc = ci_column(t.header, y);
    int xc = -1, xci = -1;
    if (vs_metric) {
        snprintf(col, sizeof col, "%s_mean", x);
        xc = csv_column(t.header, col);
        xci = ci_column(t.header, x);
    } else {
        xc = csv_column(t.header, x);
    }
    if (ym < 0 || xc < 0 || sc_bad >= 0) {
        char swept[2048] = "";
        for (size_t a = 0, l = 0; a < naxes && l < sizeof swept; a++)
            l += (size_t)snprintf(swept + l, sizeof swept - l, " %s", hf[first_axis + a]);
        plot_note(o, PLOT_NOTE_ERROR, "%s has no column for %s%s (swept:%s)", path,
                  ym < 0 ? y : xc < 0 ? x : sername[sc_bad],
                  ym < 0 || vs_metric ? " (a metric: see `tasknet metrics`)" : "", swept);
        goto fail;
    }
    axis_scale xs;
    if (!vs_metric)
        scale_for(x, &xs);
    series **all = NULL;
    size_t ns = 0, bad_cells = 0, matched = 0;
    int categorical = !vs_metric && !xs.numeric;
    for (size_t r = 0; r < t.nrows; r++) {
        char *f[MAXF];
        size_t n = csv_split(t.rows[r], f, MAXF);
        int keep = 1;
        for (size_t k = 0; k < o->nwhere && keep; k++)
            keep = (size_t)wc[k] < n && strcmp(f[wc[k]], wv[k]) == 0;
        if (!keep)
            continue;
        matched++;
        if ((size_t)ym >= n || (size_t)xc >= n || !*f[ym] || (vs_metric && !*f[xc]))
            continue; /* a point with no finished run has empty cells */
        if (!gp_number_ok(f[ym]) || (yc >= 0 && !gp_number_ok(f[yc])) ||
            (vs_metric && (!gp_number_ok(f[xc]) || (xci >= 0 && !gp_number_ok(f[xci]))))) {
            bad_cells++;
            continue;
        }
        char key[1024] = "";
        for (size_t k = 0; k < nser; k++) {
            if ((size_t)sc[k] >= n)
                continue;
            size_t l = strlen(key);
            if (nser == 1)
                snprintf(key, sizeof key, "%s=%s", sername[0], f[sc[0]]);
            else
                snprintf(key + l, sizeof key - l, "%s%s", l ? " " : "", f[sc[k]]);
        }
        series *s = series_get(&all, &ns, key);
        double xv;
        if (vs_metric) {
            fprintf(s->f, "%s %s %s %s\n", f[xc], f[ym], xci >= 0 ? f[xci] : "0",
                    yc >= 0 ? f[yc] : "0");
        } else if (!categorical && axis_value(&xs, f[xc], &xv) == 0) {
            fprintf(s->f, "%.17g %s %s\n", xv, f[ym], yc >= 0 ? f[yc] : "0");
        } else {
            categorical = 1;
            gp_datum(s->f, f[xc]);
            fprintf(s->f, " %s %s\n", f[ym], yc >= 0 ? f[yc] : "0");
        }
    }
    if (o->nwhere && !matched) {
        plot_note(o, PLOT_NOTE_ERROR, "%s: no point has %s%s (values as summary.csv writes them)", path,
                  o->where[0], o->nwhere > 1 ? " and the other --where values" : "");
        series_free(all, ns);
        goto fail;
    }
    if (bad_cells)
        plot_note(o, PLOT_NOTE_WARNING, "%s: %zu rows hold cells that are not numbers (edited?); drawn without "
                  "them", path, bad_cells);
    char image[CFG_PATH_MAX], script[CFG_PATH_MAX], title[512], dflt[300];
    snprintf(dflt, sizeof dflt, "%s_vs_%s", y, x);
    for (char *p = dflt; *p; p++)
        if (*p == '.' || *p == '/')
            *p = '_';
    paths(o, dflt, image, script, sizeof image);
    if (o->title)
        snprintf(title, sizeof title, "%s", o->title);
    else
        snprintf(title, sizeof title, "%s vs %s (%s)", y, x, o->input);
    FILE *g = fopen(script, "w");
    if (!g) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot write %s: %s", script, strerror(errno));
        series_free(all, ns);
        goto fail;
    }
    gp_preamble(g, image, title);
    fprintf(g, "set xlabel ");
    gp_string(g, vs_metric ? x : xs.label);
    fprintf(g, " noenhanced\nset ylabel ");
    gp_string(g, y);
    fputs(" noenhanced\n", g);
    if (nser > 1) {
        char kt[1024] = "";
        for (size_t k = 0; k < nser; k++) {
            size_t l = strlen(kt);
            snprintf(kt + l, sizeof kt - l, "%s%s", k ? " " : "", sername[k]);
        }
        fputs("set key title ", g);
        gp_string(g, kt);
        fputs(" noenhanced\n", g);
    }
    if (o->logx)
        fputs("set logscale x\n", g);
    if (o->logy)
        fputs("set logscale y\nset format y '%g'\n", g);
    for (size_t i = 0; i < ns; i++) {
        fflush(all[i]->f);
        fprintf(g, "$s%zu << EOD\n%sEOD\n", i, all[i]->data ? all[i]->data : "");
    }
    fputs("plot ", g);
    for (size_t i = 0; i < ns; i++) {
        char label[300];
        if (ser)
            snprintf(label, sizeof label, "%s", all[i]->name);
        else
            snprintf(label, sizeof label, "%s", y);
        if (vs_metric)
            fprintf(g, "%s$s%zu using 1:2:3:4 with xyerrorbars pt 7 title ", i ? ", \\\n     " : "", i);
        else if (categorical)
            fprintf(g, "%s$s%zu using 0:2:3:xtic(1) with yerrorlines pt 7 title ", i ? ", \\\n     " : "", i);
        else
            fprintf(g, "%s$s%zu using 1:2:3 with yerrorlines pt 7 title ", i ? ", \\\n     " : "", i);
        gp_string(g, label);
    }
    fputc('\n', g);
    series_free(all, ns);
    free(hcopy);
    free(ydef);
    csv_table_free(&t);
    if (gp_close(o, g, script) != 0)
        return 1;
    return gp_run(o, script, image);
fail:
    free(hcopy);
    free(ydef);
    csv_table_free(&t);
    return 1;
}

/* The per-node timeline of a trace written by `tasknet run --trace`. */
static int plot_timeline(const plot_opts *o)
{
    char why[1200];
    FILE *in = tn_open_input(o->input, "r", why, sizeof why); /* not /dev/zero nor a FIFO */
    if (!in) {
        plot_note(o, PLOT_NOTE_ERROR, "%s", why);
        return 1;
    }
    char *phases = NULL, *msgs = NULL;
    size_t plen = 0, mlen = 0;
    FILE *pf = open_memstream(&phases, &plen), *mf = open_memstream(&msgs, &mlen);
    char *line = NULL;
    size_t cap = 0;
    unsigned maxnode = 0;
    size_t nphase = 0, nmsg = 0;
    while (getline(&line, &cap, in) > 0) {
        unsigned pid, tid, src, dst;
        char cat[32], name[64];
        double ts, dur;
        if (sscanf(line, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"cat\":\"%31[^\"]\",\"name\":\"%63[^\"]\",\"ts\":%lf,\"dur\":%lf",
                   &pid, &tid, cat, name, &ts, &dur) != 6)
            continue;
        if (pid == 0) {
            int color = strcmp(name, "init") == 0 ? 1 : strcmp(name, "aggregation") == 0 ? 2 : 3;
            fprintf(pf, "%.6f %.6f %u %d\n", ts, ts + dur, tid, color);
            if (tid > maxnode)
                maxnode = tid;
            nphase++;
        } else if (pid == 1) {
            const char *a = strstr(line, "\"src\":"), *b = strstr(line, "\"dst\":");
            if (!a || !b || sscanf(a, "\"src\":%u", &src) != 1 || sscanf(b, "\"dst\":%u", &dst) != 1)
                continue;
            fprintf(mf, "%.6f %u %.6f %d\n", ts, src, dur, (int)dst - (int)src);
            if (dst > maxnode)
                maxnode = dst;
            nmsg++;
        }
    }
    free(line);
    fclose(in);
    fclose(pf);
    fclose(mf);
    if (!nphase && !nmsg) {
        plot_note(o, PLOT_NOTE_ERROR, "%s holds no tasknet trace events", o->input);
        free(phases);
        free(msgs);
        return 1;
    }
    char image[CFG_PATH_MAX], script[CFG_PATH_MAX], title[512];
    if (o->out) {
        snprintf(image, sizeof image, "%s", o->out);
    } else {
        snprintf(image, sizeof image, "%s", o->input);
        char *dot = strrchr(image, '.');
        if (dot)
            *dot = '\0';
        strncat(image, "-timeline.png", sizeof image - strlen(image) - 1);
    }
    snprintf(script, sizeof script, "%s", image);
    char *dot = strrchr(script, '.');
    if (dot)
        *dot = '\0';
    strncat(script, ".gp", sizeof script - strlen(script) - 1);
    snprintf(title, sizeof title, "%s", o->title ? o->title : o->input);
    FILE *g = fopen(script, "w");
    if (!g) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot write %s: %s", script, strerror(errno));
        free(phases);
        free(msgs);
        return 1;
    }
    gp_preamble(g, image, title);
    fprintf(g,
            "set xlabel 'time [us]'\nset ylabel 'node'\nset yrange [-0.8:%u.8]\nset ytics 1\n"
            "set style fill solid 0.85 border -1\n",
            maxnode);
    fprintf(g, "$phases << EOD\n%sEOD\n$messages << EOD\n%sEOD\n", phases ? phases : "",
            msgs ? msgs : "");
    fputs("plot $phases using (($1+$2)/2):3:(($2-$1)/2):(0.3):($4==1?0x3b6fb6:$4==2?0xc0392b:0xb0b0b0) "
          "with boxxyerror lc rgb variable notitle, \\\n"
          "     NaN with boxes lc rgb 0x3b6fb6 title 'initialisation', \\\n"
          "     NaN with boxes lc rgb 0xc0392b title 'aggregation', \\\n"
          "     NaN with boxes lc rgb 0xb0b0b0 title 'waiting', \\\n"
          "     $messages using 1:2:3:4 with vectors head filled size screen 0.008,20 lc rgb 0x27ae60 lw 0.8 title 'messages'\n",
          g);
    free(phases);
    free(msgs);
    if (gp_close(o, g, script) != 0)
        return 1;
    return gp_run(o, script, image);
}

/* The latency distribution of every point: the histograms of its replicas
 * (DIR/latency/run-ID.csv) summed, drawn as the fraction of messages slower
 * than x (complementary CDF) on log-log axes, which shows the tail. */
static int plot_latency(const plot_opts *o)
{
    const char *cls = o->cls ? o->cls : "all";
    if (strcmp(cls, "all") != 0 && strcmp(cls, "control") != 0 && strcmp(cls, "data") != 0) {
        plot_note(o, PLOT_NOTE_ERROR, "--class is control, data or all, not '%s'", cls);
        return 1;
    }
    char path[CFG_PATH_MAX + 32];
    csv_table t;
    if (read_result(o, "runs.csv", path, sizeof path, &t) != 0)
        return 1;
    /* runs.csv: run,point,replica,seed,config_hash,<axes>,<metrics>,latency_csv_fnv1a64;
     * the folder's config.xml says how many axes */
    char *hcopy = tn_xstrdup(t.header), *hf[MAXF];
    size_t nh = csv_split(hcopy, hf, MAXF);
    size_t first_axis = 5, naxes = 0;
    char cpath[CFG_PATH_MAX + 32];
    snprintf(cpath, sizeof cpath, "%s/config.xml", o->input);
    cfg fc;
    cfg_errors errs;
    cfg_errors_init(&errs);
    if (cfg_load(&fc, cpath, &errs) == 0 && first_axis + fc.naxes <= nh)
        naxes = fc.naxes;
    else
        while (first_axis + naxes < nh && strcmp(hf[first_axis + naxes], "jobs_completed") != 0)
            naxes++;
    cfg_errors_free(&errs);
    cfg_free(&fc);
    int digest_col = csv_column(t.header, "latency_csv_fnv1a64");
    char bad_ids[200] = "";
    /* per point: label and bin counts keyed by the bin's lower edge */
    typedef struct lpoint {
        long point;
        char label[512];
        double *lo, *hi;
        double *count;
        size_t n, cap;
        double total;
    } lpoint;
    lpoint *pts = NULL;
    size_t npts = 0, missing = 0, found = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        char *line = tn_xstrdup(t.rows[r]), *f[MAXF];
        size_t nf = csv_split(line, f, MAXF);
        if (nf < first_axis + naxes) {
            free(line);
            continue;
        }
        long point = strtol(f[1], NULL, 10);
        lpoint *p = NULL;
        for (size_t i = 0; i < npts; i++)
            if (pts[i].point == point)
                p = &pts[i];
        if (!p) {
            pts = tn_xrealloc(pts, (npts + 1) * sizeof *pts);
            p = &pts[npts++];
            memset(p, 0, sizeof *p);
            p->point = point;
            size_t o2 = 0;
            for (size_t a = 0; a < naxes && o2 < sizeof p->label; a++)
                o2 += (size_t)snprintf(p->label + o2, sizeof p->label - o2, "%s%s", a ? " " : "", f[first_axis + a]);
            if (!naxes)
                snprintf(p->label, sizeof p->label, "point %ld", point);
        }
        char hp[CFG_PATH_MAX + 64];
        report_latency_path(hp, sizeof hp, o->input, strtoull(f[0], NULL, 10));
        /* the file must be the one the run's row describes */
        int intact = 1;
        if (digest_col >= 0 && (size_t)digest_col < nf && f[digest_col][0]) {
            uint64_t want = strtoull(f[digest_col], NULL, 16), h = 0;
            FILE *hf2 = fopen(hp, "rb");
            intact = hf2 != NULL;
            if (hf2) {
                int ch;
                h = 1469598103934665603ULL;
                while ((ch = fgetc(hf2)) != EOF) {
                    h ^= (unsigned char)ch;
                    h *= 1099511628211ULL;
                }
                fclose(hf2);
                intact = h == want;
            }
        }
        csv_table h;
        if (!intact || csv_read(hp, &h) <= 0) {
            size_t l = strlen(bad_ids);
            if (missing < 8)
                snprintf(bad_ids + l, sizeof bad_ids - l, "%s%s", missing ? ", " : "", f[0]);
            else if (missing == 8)
                snprintf(bad_ids + l, sizeof bad_ids - l, ", ...");
            missing++;
            if (intact)
                csv_table_free(&h);
            free(line);
            continue;
        }
        found++;
        for (size_t i = 0; i < h.nrows; i++) {
            char *hl = tn_xstrdup(h.rows[i]), *g[8];
            if (csv_split(hl, g, 8) == 4 && strcmp(g[0], cls) == 0) {
                double lo = strtod(g[1], NULL), hi = strtod(g[2], NULL), c = strtod(g[3], NULL);
                size_t k = 0;
                while (k < p->n && p->lo[k] != lo)
                    k++;
                if (k == p->n) {
                    if (p->n == p->cap) {
                        p->cap = p->cap ? 2 * p->cap : 64;
                        p->lo = tn_xrealloc(p->lo, p->cap * sizeof *p->lo);
                        p->hi = tn_xrealloc(p->hi, p->cap * sizeof *p->hi);
                        p->count = tn_xrealloc(p->count, p->cap * sizeof *p->count);
                    }
                    p->lo[k] = lo;
                    p->hi[k] = hi;
                    p->count[k] = 0;
                    p->n++;
                }
                p->count[k] += c;
                p->total += c;
            }
            free(hl);
        }
        csv_table_free(&h);
        free(line);
    }
    csv_table_free(&t);
    free(hcopy);
    int status = 1;
    size_t drawn = 0;
    for (size_t i = 0; i < npts; i++)
        drawn += pts[i].total > 0;
    if (!drawn && found) {
        plot_note(o, PLOT_NOTE_ERROR, "no %s messages in the %zu latency histograms of %s/latency/ "
                "(--class is one of all, control, data)", cls, found, o->input);
        goto done;
    }
    if (!drawn) {
        plot_note(o, PLOT_NOTE_ERROR, "no latency histograms in %s/latency/ (they are written by "
                "`tasknet run --out DIR`)", o->input);
        goto done;
    }
    if (missing)
        plot_note(o, PLOT_NOTE_WARNING, "%zu run%s of %s (run%s %s) %s no intact latency histogram (missing, or not "
                  "matching the checksum in runs.csv); drawn without them: `tasknet run` on the folder redoes "
                  "those runs", missing, missing == 1 ? "" : "s", o->input, missing == 1 ? "" : "s", bad_ids,
                  missing == 1 ? "has" : "have");
    char image[CFG_PATH_MAX + 64], script[CFG_PATH_MAX + 64];
    char dflt[64];
    snprintf(dflt, sizeof dflt, "latency_%s", cls);
    paths(o, dflt, image, script, sizeof image);
    FILE *f = fopen(script, "w");
    if (!f) {
        plot_note(o, PLOT_NOTE_ERROR, "%s: %s", script, strerror(errno));
        goto done;
    }
    char title[512];
    snprintf(title, sizeof title, "%s", o->title ? o->title : "");
    if (!o->title)
        snprintf(title, sizeof title, "Latency distribution (%s messages), %s", cls, o->input);
    gp_preamble(f, image, title);
    fputs("set logscale xy\nset format x '10^{%L}'\nset format y '10^{%L}'\n"
          "set xlabel 'message latency (s)'\nset ylabel 'fraction of messages slower than x'\n", f);
    fputs("plot ", f);
    size_t k = 0;
    for (size_t i = 0; i < npts; i++) {
        if (pts[i].total <= 0)
            continue;
        fprintf(f, "%s'-' using 1:2 with steps lw 2 title ", k++ ? ", \\\n     " : "");
        gp_string(f, pts[i].label);
    }
    fputc('\n', f);
    for (size_t i = 0; i < npts; i++) {
        lpoint *p = &pts[i];
        if (p->total <= 0)
            continue;
        /* bins in increasing order; CCDF at each bin's upper edge */
        for (size_t a = 1; a < p->n; a++)
            for (size_t b = a; b > 0 && p->lo[b - 1] > p->lo[b]; b--) {
                double tl = p->lo[b], th = p->hi[b], tc = p->count[b];
                p->lo[b] = p->lo[b - 1], p->hi[b] = p->hi[b - 1], p->count[b] = p->count[b - 1];
                p->lo[b - 1] = tl, p->hi[b - 1] = th, p->count[b - 1] = tc;
            }
        double above = p->total;
        fprintf(f, "%.9g 1\n", p->lo[0] > 0 ? p->lo[0] : p->hi[0]);
        for (size_t b = 0; b < p->n; b++) {
            above -= p->count[b];
            if (isinf(p->hi[b]))
                break;
            /* log axes cannot show 0: the last step ends at half of 1/total,
             * below the smallest nonzero fraction, so it still shows as a drop */
            fprintf(f, "%.9g %.9g\n", p->hi[b], above > 0 ? above / p->total : 0.5 / p->total);
        }
        fputs("e\n", f);
    }
    if (gp_close(o, f, script) == 0)
        status = gp_run(o, script, image);
done:
    for (size_t i = 0; i < npts; i++) {
        free(pts[i].lo);
        free(pts[i].hi);
        free(pts[i].count);
    }
    free(pts);
    return status;
}

/* A count file a workload wrote in the result folder (wl_ops.write_files):
 * a header `point,X,COUNT[,...]` and rows of integers or numbers. Each
 * point's counts are drawn as fractions of its total against X, one curve
 * per point, labelled with the point's swept values (summary.csv): a
 * histogram pooled over the replicas of each point. */
static int plot_counts(const plot_opts *o)
{
    char name[512], path[CFG_PATH_MAX + 600];
    snprintf(name, sizeof name, "%s%s", o->counts, has_suffix(o->counts, ".csv") ? "" : ".csv");
    csv_table t;
    if (read_result(o, name, path, sizeof path, &t) != 0)
        return 1;
    char *hcopy = tn_xstrdup(t.header), *hf[MAXF];
    size_t nh = csv_split(hcopy, hf, MAXF);
    int status = 1;
    series **all = NULL;
    size_t ns = 0;
    double *total = NULL;
    if (nh < 3 || strcmp(hf[0], "point") != 0) {
        plot_note(o, PLOT_NOTE_ERROR, "%s is not a count file (its header must start with point,X,COUNT)", path);
        goto done;
    }
    /* labels from summary.csv: the swept values of each point */
    char spath[CFG_PATH_MAX + 32];
    snprintf(spath, sizeof spath, "%s/summary.csv", o->input);
    csv_table st;
    int have_sum = csv_read(spath, &st) > 0 && st.header;
    size_t naxes = 0;
    char *shcopy = have_sum ? tn_xstrdup(st.header) : NULL, *sf[MAXF];
    if (have_sum) {
        size_t sn = csv_split(shcopy, sf, MAXF);
        while (2 + naxes < sn && !has_suffix(sf[2 + naxes], "_mean"))
            naxes++;
    }
    /* totals per point first, then the fractions */
    size_t maxp = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        char *line = tn_xstrdup(t.rows[r]), *f[MAXF];
        if (csv_split(line, f, MAXF) >= 3) {
            size_t p = strtoull(f[0], NULL, 10);
            if (p + 1 > maxp) {
                total = tn_xrealloc(total, (p + 1) * sizeof *total);
                memset(total + maxp, 0, (p + 1 - maxp) * sizeof *total);
                maxp = p + 1;
            }
            total[p] += strtod(f[2], NULL);
        }
        free(line);
    }
    for (size_t r = 0; r < t.nrows; r++) {
        char *line = tn_xstrdup(t.rows[r]), *f[MAXF];
        if (csv_split(line, f, MAXF) < 3) {
            free(line);
            continue;
        }
        size_t p = strtoull(f[0], NULL, 10);
        char label[1024] = "";
        for (size_t i = 0; have_sum && i < st.nrows && !label[0]; i++) {
            char *sl = tn_xstrdup(st.rows[i]), *g[MAXF];
            size_t gn = csv_split(sl, g, MAXF);
            if (gn > 0 && strtoull(g[0], NULL, 10) == p)
                for (size_t a = 0, l = 0; a < naxes && 2 + a < gn && l < sizeof label; a++)
                    l += (size_t)snprintf(label + l, sizeof label - l, "%s%s", a ? " " : "", g[2 + a]);
            free(sl);
        }
        if (!label[0])
            snprintf(label, sizeof label, "point %zu", p);
        series *s = series_get(&all, &ns, label);
        fprintf(s->f, "%s %.17g\n", f[1], total[p] > 0 ? strtod(f[2], NULL) / total[p] : 0.0);
        free(line);
    }
    if (have_sum)
        csv_table_free(&st);
    free(shcopy);
    if (!ns) {
        plot_note(o, PLOT_NOTE_ERROR, "%s has no rows", path);
        goto done;
    }
    char image[CFG_PATH_MAX + 64], script[CFG_PATH_MAX + 64], title[1024], dflt[600];
    snprintf(dflt, sizeof dflt, "%s", name);
    dflt[strlen(dflt) - 4] = '\0';
    paths(o, dflt, image, script, sizeof image);
    FILE *g = fopen(script, "w");
    if (!g) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot write %s: %s", script, strerror(errno));
        goto done;
    }
    if (o->title)
        snprintf(title, sizeof title, "%s", o->title);
    else
        snprintf(title, sizeof title, "%s: %s distribution (%s)", name, hf[1], o->input);
    gp_preamble(g, image, title);
    fputs("set xlabel ", g);
    gp_string(g, hf[1]);
    fputs(" noenhanced\nset ylabel ", g);
    char yl[300];
    snprintf(yl, sizeof yl, "fraction of %s", hf[2]);
    gp_string(g, yl);
    fputs(" noenhanced\nset style data linespoints\nset yrange [0:*]\n", g);
    if (o->logx)
        fputs("set logscale x\n", g);
    if (o->logy)
        fputs("set logscale y\nset format y '%g'\n", g);
    for (size_t i = 0; i < ns; i++) {
        fflush(all[i]->f);
        fprintf(g, "$s%zu << EOD\n%sEOD\n", i, all[i]->data ? all[i]->data : "");
    }
    fputs("plot ", g);
    for (size_t i = 0; i < ns; i++) {
        fprintf(g, "%s$s%zu using 1:2 pt 7 title ", i ? ", \\\n     " : "", i);
        gp_string(g, all[i]->name);
    }
    fputc('\n', g);
    fclose(g);
    status = gp_run(o, script, image);
done:
    series_free(all, ns);
    free(total);
    free(hcopy);
    csv_table_free(&t);
    return status;
}

int plot_make(const plot_opts *o)
{
    /* what the user typed goes into the script: no control characters */
    const struct {
        const char *opt, *value;
    } typed[] = {{"--title", o->title}, {"--out", o->out},   {"--x", o->x},         {"--y", o->y},
                 {"--series", o->series}, {"--class", o->cls}, {"the input path", o->input}};
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        const char *c = first_control(typed[i].value);
        if (c) {
            plot_note(o, PLOT_NOTE_ERROR, "%s holds a control character (code %d at offset %zu); gnuplot would "
                      "read what follows a line break as commands, so plot refuses it", typed[i].opt,
                      (unsigned char)*c, (size_t)(c - typed[i].value));
            return 2;
        }
    }
    if (o->out && !terminal_for(o->out)) {
        const char *dot = strrchr(o->out, '.'), *slash = strrchr(o->out, '/');
        plot_note(o, PLOT_NOTE_ERROR, "--out %s: %s; plot writes .png (pngcairo), .svg or .pdf (pdfcairo) images, "
                  "chosen by the name's extension", o->out,
                  dot && (!slash || dot > slash) ? "not an image format plot writes" : "the name has no extension");
        return 2;
    }
    switch (o->kind) {
    case PLOT_COUNTS:
        return plot_counts(o);
    case PLOT_LATENCY:
        return plot_latency(o);
    case PLOT_TIMELINE:
        return plot_timeline(o);
    default:
        return plot_summary(o);
    }
}
