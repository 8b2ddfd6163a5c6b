#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np (glibc 2.29) */
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

/* ---------------------------------------------------------- quantities */

/* Axis labels name the quantity and its unit with the SI prefix that puts
 * the largest value drawn in [1, 1000) ("job time, mean (ms)", "energy per
 * bit (pJ)"), so no tic reads 1x10^-11 and no label is a column name.
 * Metrics carry their SI unit in the name's last word (tasknet metrics:
 * _s seconds, _j joules, _bps bits per second, _per_s per second, bytes_
 * bytes); parameters in their row's type (tasknet params). */
static const struct {
    const char *from, *to;
} plot_words[] = {
    {"msg", "message"},     {"fct", "FCT"},          {"bw", "bandwidth"},   {"cong", "congestion"},
    {"lb", "lower bound"},  {"dep", "dependency"},   {"incl", "including"}, {"utilization", "utilisation"},
    {"ci95", "CI"},         {"tries", "tries"},      {"phy", "physical-layer"},
};

/* Words that say which statistic: put first ("mean job time"). */
static const struct {
    const char *word, *shown;
} plot_stats[] = {
    {"mean", "mean"}, {"p50", "median"}, {"p99", "99th-percentile"}, {"max", "maximum"},
    {"min", "minimum"}, {"first", "first"}, {"last", "last"},
};

/* Words that say which messages or flows: put last (", small flows"). */
static const struct {
    const char *word, *shown;
} plot_quals[] = {
    {"small", "small flows"}, {"medium", "medium flows"}, {"large", "large flows"},
    {"control", "control messages"}, {"data", "data messages"},
};

void plot_metric_quantity(const char *metric, char *name, size_t len, const char **unit)
{
    /* a metric of one of several workloads is NAME.metric: "NAME: ..." */
    const char *dot = strchr(metric, '.');
    if (dot && len > 2) {
        size_t k = (size_t)(dot - metric) + 2 < len ? (size_t)(dot - metric) : len - 3;
        memcpy(name, metric, k);
        memcpy(name + k, ": ", 2);
        plot_metric_quantity(dot + 1, name + k + 2, len - k - 2, unit);
        return;
    }
    /* ratios whose reference a reader needs (`tasknet metrics`) */
    static const struct {
        const char *metric, *shown;
    } ratios[] = {{"throughput", "accepted throughput (fraction of link bandwidth)"}};
    for (size_t k = 0; k < sizeof ratios / sizeof ratios[0]; k++)
        if (strcmp(metric, ratios[k].metric) == 0) {
            snprintf(name, len, "%s", ratios[k].shown);
            *unit = "";
            return;
        }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", metric);
    size_t l = strlen(buf);
    *unit = "";
    if (l > 6 && strcmp(buf + l - 6, "_per_s") == 0) {
        *unit = "1/s";
        buf[l - 6] = '\0';
    } else if (l > 4 && strcmp(buf + l - 4, "_bps") == 0) {
        *unit = "b/s";
        buf[l - 4] = '\0';
    } else if (l > 2 && strcmp(buf + l - 2, "_s") == 0) {
        *unit = "s";
        buf[l - 2] = '\0';
    } else if (l > 2 && strcmp(buf + l - 2, "_j") == 0) {
        *unit = "J";
        buf[l - 2] = '\0';
    } else if (strncmp(buf, "bytes_", 6) == 0) {
        *unit = "B";
    }
    char *tok[32];
    size_t n = 0;
    for (char *t = strtok(buf, "_"); t && n < 32; t = strtok(NULL, "_"))
        tok[n++] = t;
    const char *stat = NULL, *qual = NULL;
    char classq[64] = "";
    char words[512] = "";
    for (size_t i = 0; i < n; i++) {
        const char *w = tok[i];
        int used = 0;
        for (size_t k = 0; k < sizeof plot_stats / sizeof plot_stats[0] && !used; k++)
            if (!stat && strcmp(w, plot_stats[k].word) == 0 && n > 1)
                stat = plot_stats[k].shown, used = 1;
        for (size_t k = 0; k < sizeof plot_quals / sizeof plot_quals[0] && !used; k++)
            if (!qual && strcmp(w, plot_quals[k].word) == 0 && n > 1)
                qual = plot_quals[k].shown, used = 1;
        if (!used && !qual && strncmp(w, "class", 5) == 0 && w[5] >= '0' && w[5] <= '9') {
            snprintf(classq, sizeof classq, "class %s flows", w + 5);
            qual = classq;
            used = 1;
        }
        if (used)
            continue;
        for (size_t k = 0; k < sizeof plot_words / sizeof plot_words[0]; k++)
            if (strcmp(w, plot_words[k].from) == 0)
                w = plot_words[k].to;
        size_t wl = strlen(words);
        snprintf(words + wl, sizeof words - wl, "%s%s", wl ? " " : "", w);
    }
    snprintf(name, len, "%s%s%s%s%s", stat ? stat : "", stat ? " " : "", words, qual ? ", " : "",
             qual ? qual : "");
}

void plot_param_quantity(const char *path, char *name, size_t len, const char **unit, int *numeric)
{
    *unit = "";
    *numeric = 0;
    const char *dot = strrchr(path, '.');
    const char *last = dot ? dot + 1 : path;
    if (strcmp(path, "network.type") == 0)
        snprintf(name, len, "fabric");
    else if (strcmp(path, "workload.offered-load") == 0) /* uniform-random's: a fraction of B */
        snprintf(name, len, "offered load (fraction of link bandwidth)");
    else if (strcmp(path, "workload.type") == 0)
        snprintf(name, len, "workload");
    else
        snprintf(name, len, "%s", last);
    for (char *p = name; *p; p++)
        if (*p == '-' || *p == '_')
            *p = ' ';
    static const struct {
        const char *type, *unit;
    } map[] = {{"rate", "b/s"},   {"time", "s"},      {"size", "B"},
               {"frequency", "1/s"}, {"length", "m"}, {"integer", ""}, {"number", ""}};
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const cfg_param_info *p = cfg_param_at(i);
        if (strcmp(p->row->path, path) != 0)
            continue;
        for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
            if (strcmp(p->row->type, map[k].type) == 0) {
                *numeric = 1;
                *unit = map[k].unit;
                return;
            }
    }
}

double plot_axis_label(const char *name, const char *unit, double maxabs, char *label, size_t len)
{
    static const struct {
        int exp;
        const char *prefix;
    } si[] = {{-15, "f"}, {-12, "p"}, {-9, "n"}, {-6, "µ"}, {-3, "m"}, {0, ""},
              {3, "k"},   {6, "M"},   {9, "G"},  {12, "T"}};
    /* the prefixes a unit takes: seconds and joules down to femto, not
     * above (ks reads oddly); bytes and bits per second up, not below */
    int lo = 0, hi = 0;
    if (strcmp(unit, "s") == 0 || strcmp(unit, "J") == 0)
        lo = -15, hi = 0;
    else if (strcmp(unit, "B") == 0 || strcmp(unit, "b/s") == 0)
        lo = 0, hi = 12;
    else if (strcmp(unit, "m") == 0)
        lo = -6, hi = 3;
    if (!*unit) {
        snprintf(label, len, "%s", name);
        return 1;
    }
    int e = 0;
    if (maxabs > 0 && isfinite(maxabs)) {
        e = (int)floor(log10(maxabs) / 3 + 1e-9) * 3;
        e = e < lo ? lo : e > hi ? hi : e;
    }
    const char *prefix = "";
    for (size_t k = 0; k < sizeof si / sizeof si[0]; k++)
        if (si[k].exp == e)
            prefix = si[k].prefix;
    snprintf(label, len, "%s (%s%s)", name, prefix, unit);
    return pow(10, -e);
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

/* A label of more than `fit` characters (the colour box's, beside a
 * 600-pixel-high map, holds about 45) as two lines, broken at the space
 * nearest its middle: 'first half'."\n".'second half'. */
static void gp_wrapped(FILE *f, const char *s, size_t fit)
{
    size_t n = strlen(s), cut = 0;
    for (size_t i = 0; n > fit && i < n; i++)
        if (s[i] == ' ' && (cut == 0 || (i > n / 2 ? i - n / 2 : n / 2 - i) < (cut > n / 2 ? cut - n / 2 : n / 2 - cut)))
            cut = i;
    if (!cut) {
        gp_string(f, s);
        return;
    }
    char *a = tn_xstrdup(s);
    a[cut] = '\0';
    gp_string(f, a);
    fputs(".\"\\n\".", f);
    gp_string(f, a + cut + 1);
    free(a);
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
    const char *ext, *terminal, *unit, *rest;
    double w, h;
} formats[] = {
    {".png", "pngcairo", "", "enhanced font 'sans,15' linewidth 2", 900, 600},
    {".svg", "svg", "", "dynamic enhanced font 'sans,15' linewidth 2", 900, 600},
    {".pdf", "pdfcairo", "in", "enhanced font 'sans,9' linewidth 1.5", 5, 3.33},
};

static int format_of(const char *image)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (has_suffix(image, formats[i].ext))
            return (int)i;
    return -1;
}

static const char *terminal_for(const char *image) { return format_of(image) < 0 ? NULL : formats[format_of(image)].terminal; }

/* Terminal, output and common settings. The script runs from its own
 * folder (`cd DIR && gnuplot NAME.gp`; plot runs gnuplot there too): the
 * output is the image's name alone, which sits beside the script. A title
 * only when asked for: a paper's figure has a caption. */
static void gp_preamble_size(FILE *f, const char *image, const char *title, double wmul, double hmul)
{
    fputs("# Generated by `tasknet plot`: edit freely and re-run with `gnuplot THIS.gp` in this folder.\n", f);
    int k = format_of(image);
    k = k < 0 ? 0 : k;
    fprintf(f, "set terminal %s size %.4g%s,%.4g%s %s\n", formats[k].terminal, formats[k].w * wmul, formats[k].unit,
            formats[k].h * hmul, formats[k].unit, formats[k].rest);
    const char *slash = strrchr(image, '/');
    fputs("set output ", f);
    gp_string(f, slash ? slash + 1 : image);
    fputc('\n', f);
    if (title && *title) {
        fputs("set title ", f);
        gp_string(f, title);
        fputs(" noenhanced\n", f);
    }
    fputs("set grid\nset key outside right top noenhanced\n", f);
    /* 16 colours before they repeat (gnuplot has 8: a figure of 16 series
     * showed two of each) */
    static const char *const more[] = {"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                                       "#17becf", "#393b79", "#ad494a", "#637939"};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        fprintf(f, "set linetype %zu lc rgb '%s'\n", 9 + i, more[i]);
    fputs("set linetype cycle 16\n", f);
}

static void gp_preamble_rows(FILE *f, const char *image, const char *title, size_t rows)
{
    /* a figure of many rows (a heat map of 30 points) grows taller: 1/24
     * of the usual height per row past 16 */
    gp_preamble_size(f, image, title, 1, rows > 16 ? 1 + (double)(rows - 16) / 24 : 1);
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
    /* gnuplot runs in the script's folder, on the script's name: a name
     * that starts with '-' would read as an option */
    char dir[CFG_PATH_MAX], arg[CFG_PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s", script);
    char *slash = strrchr(dir, '/');
    const char *base = script;
    if (slash) {
        base = script + (slash - dir) + 1;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    snprintf(arg, sizeof arg, "%s%s", base[0] == '-' ? "./" : "", base);
    char *argv[] = {"gnuplot", arg, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (slash)
        posix_spawn_file_actions_addchdir_np(&fa, dir);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT) {
        plot_note(o, PLOT_NOTE_INFO,
                  "gnuplot is not installed (Debian: apt-get install gnuplot-nox); the script is written: %s — "
                  "run `gnuplot %s` in its folder where gnuplot is available", script, arg);
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
/* script holds len + 8 bytes */
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
    /* the script is the image's name and .gp: x.pdf and x.svg have their own */
    snprintf(script, len + 8, "%s.gp", image);
}

typedef struct series {
    char *name;   /* series value as written */
    char *data;   /* inline data lines */
    size_t len;
    FILE *f;
    char *panel, *sub; /* --panels: the panel it is drawn in, its name there (NULL otherwise) */
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
    s->panel = s->sub = NULL;
    return s;
}

static void series_free(series **all, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (all[i]->f)
            fclose(all[i]->f);
        free(all[i]->data);
        free(all[i]->name);
        free(all[i]->panel);
        free(all[i]->sub);
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

/* The metric drawn when --y is not given: the one the folder's (first)
 * workload names (DIR/config.xml), else the first metric of summary.csv.
 * Caller frees. */
static char *default_y(const plot_opts *o, char *const *hf, size_t nh, size_t first_metric)
{
    char path[CFG_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config.xml", o->input);
    cfg c;
    cfg_errors errs;
    cfg_errors_init(&errs);
    char *y = NULL;
    if (cfg_load(&c, path, &errs) == 0 && cfg_wl(&c) && cfg_wl(&c)->plot_y) {
        /* the first workload's: under its name when it is named and the
         * metric is its own (a core metric, msg_latency_mean_s, is not) */
        y = tn_xmalloc(strlen(c.wl[0].name) + strlen(cfg_wl(&c)->plot_y) + 8);
        sprintf(y, "%s.%s_mean", c.wl[0].name, cfg_wl(&c)->plot_y);
        int own = 0;
        for (size_t i = 0; c.wl[0].name[0] && i < nh && !own; i++)
            own = strcmp(hf[i], y) == 0;
        if (own)
            y[strlen(y) - 5] = '\0';
        else
            strcpy(y, cfg_wl(&c)->plot_y);
    }
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

/* The metric name NAME means in a summary.csv header: NAME itself when it
 * has a column (NAME_mean), else "<w>.NAME" when exactly one workload has
 * it (a named workload's columns are "<w>.<metric>": a bare metric name is
 * taken where it is unambiguous). The name into out (NAME when no column
 * has it); 0, or -1 with out the workloads' candidates (" a.NAME b.NAME")
 * when several have it. */
static int metric_named(const char *header, const char *name, char *out, size_t outlen)
{
    char *h = tn_xstrdup(header), *f[MAXF];
    size_t n = csv_split(h, f, MAXF), len = strlen(name), found = 0, l = 0;
    char cands[1024] = "";
    snprintf(out, outlen, "%s", name);
    for (size_t i = 0; i < n; i++)
        if (strncmp(f[i], name, len) == 0 && strcmp(f[i] + len, "_mean") == 0) {
            free(h);
            return 0;
        }
    for (size_t i = 0; i < n; i++) {
        size_t fl = strlen(f[i]);
        const char *dot = strchr(f[i], '.');
        /* "<w>.NAME_mean": the workload's name has no dot */
        if (dot && fl == (size_t)(dot - f[i]) + 1 + len + 5 && strncmp(dot + 1, name, len) == 0 &&
            strcmp(dot + 1 + len, "_mean") == 0) {
            if (!found++)
                snprintf(out, outlen, "%.*s", (int)(fl - 5), f[i]);
            if (l < sizeof cands)
                l += (size_t)snprintf(cands + l, sizeof cands - l, " %.*s", (int)(fl - 5), f[i]);
        }
    }
    free(h);
    if (found <= 1)
        return 0; /* none: out is NAME, which the caller finds no column for */
    snprintf(out, outlen, "%s", cands);
    return -1;
}

/* Whether column h of a summary's rows is a function of column x (one
 * value of h for each value of x): an axis varying with x (with=, its "-"
 * placeholders included) splits no curve, so it makes no series. */
static int follows_column(const csv_table *t, int x, int h)
{
    if (x < 0 || h < 0)
        return 0;
    for (size_t i = 0; i < t->nrows; i++) {
        char *a = tn_xstrdup(t->rows[i]), *fa[MAXF];
        size_t na = csv_split(a, fa, MAXF);
        int ok = (size_t)x < na && (size_t)h < na;
        for (size_t j = i + 1; ok && j < t->nrows; j++) {
            char *b = tn_xstrdup(t->rows[j]), *fb[MAXF];
            size_t nb = csv_split(b, fb, MAXF);
            if ((size_t)x < nb && (size_t)h < nb && strcmp(fa[x], fb[x]) == 0 && strcmp(fa[h], fb[h]) != 0)
                ok = 0;
            free(b);
        }
        free(a);
        if (!ok)
            return 0;
    }
    return 1;
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

/* The unit kind units_parse reads for an SI unit symbol. */
static unit_kind unit_of(const char *u)
{
    return strcmp(u, "b/s") == 0   ? UNIT_RATE
           : strcmp(u, "s") == 0   ? UNIT_TIME
           : strcmp(u, "B") == 0   ? UNIT_SIZE
           : strcmp(u, "1/s") == 0 ? UNIT_FREQ
           : strcmp(u, "m") == 0   ? UNIT_LENGTH
                                   : UNIT_NONE;
}

/* One drawn point of summary.csv. */
typedef struct prow {
    size_t s;     /* series */
    size_t cat;   /* category of x (its index in first-appearance order) */
    double x;     /* x in SI (a numeric parameter, or the x metric's mean) */
    char *xtext;  /* x as summary.csv writes it */
    char *xci;    /* --xy: x's CI half-width as written ("0" when none) */
    char *y, *yci; /* y's mean and CI half-width as written ("0" when none) */
} prow;

/* Index of s in list (appended when new). */
static size_t intern(char ***list, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0)
            return i;
    *list = tn_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[*n] = tn_xstrdup(s);
    return (*n)++;
}

static void free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* `using` column k scaled by factor f: "k" or "($k*f)". */
static void gp_col(FILE *g, int k, double f)
{
    if (f == 1)
        fprintf(g, "%d", k);
    else
        fprintf(g, "($%d*%.17g)", k, f);
}

/* Category tics: one per category at 0, 1, ...; rotated when they would
 * not fit side by side (about 100 characters across the plot). */
static void gp_category_tics(FILE *g, const char *axis, char **cats, size_t n, size_t every)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i += every)
        chars += strlen(cats[i]) + 3;
    fprintf(g, "set %stics (", axis);
    for (size_t i = 0; i < n; i++) {
        /* every k-th, and the last (then not a k-th closer to it than k) */
        if ((i % every != 0 || (i + every >= n && i + 1 != n)) && i + 1 != n)
            continue;
        fputs(i ? ", " : "", g);
        gp_string(g, cats[i]);
        fprintf(g, " %zu", i);
    }
    fputs(") noenhanced\n", g);
    if (axis[0] == 'x' && chars > 90)
        fputs("set xtics rotate by 45 right\n", g);
}

/* Series s's point type: filled circle, square, diamond, triangles, then
 * open ones, so series that coincide still show each other. */
static int gp_point(size_t s)
{
    static const int pt[] = {7, 5, 13, 9, 11, 6, 4, 12, 8, 10};
    return pt[s % (sizeof pt / sizeof pt[0])];
}

/* A perceptual colour map (viridis' stops) for heat maps. */
static void gp_palette(FILE *g)
{
    fputs("set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')\n", g);
}

/* x tics at each category's value (the last row of it, scaled by fx). */
static void put_xtics_at(FILE *g, const prow *rows, size_t nrows, size_t ncats, double fx)
{
    fputs("set xtics (", g);
    for (size_t c = 0; c < ncats; c++) {
        double v = 0;
        for (size_t i = 0; i < nrows; i++)
            if (rows[i].cat == c)
                v = rows[i].x * fx;
        fprintf(g, "%s%.17g", c ? ", " : "", v);
    }
    fputs(")\n", g);
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
    int status = 1;
    char **bkey = NULL; /* --change: the base points' other swept values, and their means */
    double *bval = NULL;
    size_t nbase = 0, no_base = 0;
    prow *rows = NULL;
    size_t nrows = 0;
    char **sname = NULL, **cats = NULL;
    size_t ns = 0, ncats = 0;
    if (!vs_metric && !x) {
        if (!naxes) {
            plot_note(o, PLOT_NOTE_ERROR, "%s has no swept parameter; name one with --x",
                    path);
            goto done;
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
            goto done;
        }
    }
    /* --change PARAM=BASE: each point's metric as its change in % from the
     * point with PARAM=BASE and the same other swept values (the thesis'
     * Fig. 5.19: low against same priority); PARAM splits no series */
    int cc = -1;
    const char *cbase = NULL;
    if (o->change) {
        const char *eq = strchr(o->change, '=');
        for (size_t a = 0; eq && a < naxes; a++)
            if (strlen(hf[first_axis + a]) == (size_t)(eq - o->change) &&
                strncmp(hf[first_axis + a], o->change, (size_t)(eq - o->change)) == 0)
                cc = (int)(first_axis + a);
        cbase = eq ? eq + 1 : "";
        if (cc < 0 || vs_metric || (x && strcmp(hf[cc], x) == 0)) {
            char swept[2048] = "";
            for (size_t a = 0, l = 0; a < naxes && l < sizeof swept; a++)
                l += (size_t)snprintf(swept + l, sizeof swept - l, " %s", hf[first_axis + a]);
            plot_note(o, PLOT_NOTE_ERROR, "--change %s: %s (swept:%s)", o->change,
                      vs_metric ? "not with --xy"
                      : !eq     ? "expected PARAM=BASE"
                      : cc >= 0 ? "PARAM is the x axis; it must be another swept parameter"
                                : "not a swept parameter of this folder",
                      swept[0] ? swept : " none");
            goto done;
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
        skip |= cc == (int)(first_axis + a);
        if (ser) { /* named already? */
            char named[1024];
            snprintf(named, sizeof named, "%s", ser);
            for (char *tok = strtok(named, ","); tok && !skip; tok = strtok(NULL, ","))
                skip = strcmp(tok, h) == 0;
        }
        /* not named by --series and set by x's value: it draws nothing apart */
        if (!skip && !vs_metric)
            skip = follows_column(&t, csv_column(t.header, x), (int)(first_axis + a));
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
    /* a bare metric name means the one workload that has it */
    char yfull[256], xfull[256];
    if (metric_named(t.header, y, yfull, sizeof yfull) != 0) {
        plot_note(o, PLOT_NOTE_ERROR, "%s: several workloads have metric %s:%s; name one", path, y, yfull);
        goto done;
    }
    y = yfull;
    if (vs_metric) {
        if (metric_named(t.header, x, xfull, sizeof xfull) != 0) {
            plot_note(o, PLOT_NOTE_ERROR, "%s: several workloads have metric %s:%s; name one", path, x, xfull);
            goto done;
        }
        x = xfull;
    }
    char col[300];
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
        goto done;
    }
    if (o->heatmap && vs_metric) {
        plot_note(o, PLOT_NOTE_ERROR, "--heatmap draws a metric over two swept parameters (--x and --series), "
                  "not with --xy");
        goto done;
    }
    if (o->heatmap && nser != 1) {
        plot_note(o, PLOT_NOTE_ERROR, "--heatmap needs exactly one swept parameter besides --x (the map's rows): "
                  "%s; name it with --series and fix the others with --where",
                  nser ? "there are several" : "there is none");
        goto done;
    }
    /* the quantities on the axes */
    char xname[256], yname[256];
    const char *xunit, *yunit;
    int xnumeric = 1;
    if (vs_metric)
        plot_metric_quantity(x, xname, sizeof xname, &xunit);
    else
        plot_param_quantity(x, xname, sizeof xname, &xunit, &xnumeric);
    plot_metric_quantity(y, yname, sizeof yname, &yunit);
    /* --change: the base points' means, keyed by their other swept values */
    if (cc >= 0) {
        for (size_t r = 0; r < t.nrows; r++) {
            char *line = tn_xstrdup(t.rows[r]), *f[MAXF];
            size_t n = csv_split(line, f, MAXF);
            if ((size_t)cc < n && (size_t)ym < n && strcmp(f[cc], cbase) == 0 && gp_number_ok(f[ym])) {
                char key[2048] = "";
                for (size_t a = 0, l = 0; a < naxes && first_axis + a < n && l < sizeof key; a++)
                    if ((int)(first_axis + a) != cc)
                        l += (size_t)snprintf(key + l, sizeof key - l, "%s\x1f", f[first_axis + a]);
                size_t k = intern(&bkey, &nbase, key);
                bval = tn_xrealloc(bval, nbase * sizeof *bval);
                bval[k] = strtod(f[ym], NULL);
            }
            free(line);
        }
        if (!nbase) {
            plot_note(o, PLOT_NOTE_ERROR, "--change %s: no point has %s (values as summary.csv writes them)",
                      o->change, cbase);
            goto done;
        }
        char q[sizeof yname], pn[64];
        const char *pu;
        int pnum;
        plot_param_quantity(hf[cc], pn, sizeof pn, &pu, &pnum);
        snprintf(q, sizeof q, "change in %.150s from %.40s %.40s", yname, pn, cbase);
        memcpy(yname, q, sizeof yname);
        yunit = "%";
    }
    size_t bad_cells = 0, matched = 0, no_ci = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        char *f[MAXF];
        size_t n = csv_split(t.rows[r], f, MAXF);
        int keep = 1;
        for (size_t k = 0; k < o->nwhere && keep; k++)
            keep = (size_t)wc[k] < n && strcmp(f[wc[k]], wv[k]) == 0;
        if (cc >= 0 && keep)
            keep = (size_t)cc < n && strcmp(f[cc], cbase) != 0; /* the base itself is 0 % */
        if (!keep)
            continue;
        matched++;
        if ((size_t)ym >= n || (size_t)xc >= n || !*f[ym] || (vs_metric && !*f[xc]))
            continue; /* a point with no finished run has empty cells */
        /* an empty CI cell (one replica: the interval is undefined) draws no bar */
        const char *ycit = yc >= 0 && (size_t)yc < n ? f[yc] : "";
        const char *xcit = xci >= 0 && (size_t)xci < n ? f[xci] : "";
        if (!gp_number_ok(f[ym]) || (*ycit && !gp_number_ok(ycit)) ||
            (vs_metric && (!gp_number_ok(f[xc]) || (*xcit && !gp_number_ok(xcit))))) {
            bad_cells++;
            continue;
        }
        char change[64] = "";
        if (cc >= 0) {
            /* 100 (y - base) / base, without a CI (the interval of a ratio
             * of two means is not the CI of either) */
            char bk[2048] = "";
            for (size_t a = 0, l = 0; a < naxes && first_axis + a < n && l < sizeof bk; a++)
                if ((int)(first_axis + a) != cc)
                    l += (size_t)snprintf(bk + l, sizeof bk - l, "%s\x1f", f[first_axis + a]);
            size_t k = 0;
            while (k < nbase && strcmp(bkey[k], bk) != 0)
                k++;
            if (k == nbase || bval[k] == 0) {
                no_base++;
                continue;
            }
            snprintf(change, sizeof change, "%.17g", 100 * (strtod(f[ym], NULL) - bval[k]) / bval[k]);
            ycit = "";
        }
        no_ci += !*ycit || (vs_metric && !*xcit);
        char key[1024] = "";
        for (size_t k = 0; k < nser; k++) {
            if ((size_t)sc[k] >= n)
                continue;
            size_t l = strlen(key);
            snprintf(key + l, sizeof key - l, "%s%s", l ? ", " : "", f[sc[k]]);
        }
        rows = tn_xrealloc(rows, (nrows + 1) * sizeof *rows);
        prow *p = &rows[nrows++];
        p->s = intern(&sname, &ns, key);
        p->cat = intern(&cats, &ncats, f[xc]);
        p->xtext = tn_xstrdup(f[xc]);
        p->y = tn_xstrdup(change[0] ? change : f[ym]);
        p->yci = tn_xstrdup(*ycit ? ycit : "0");
        p->xci = tn_xstrdup(*xcit ? xcit : "0");
        char err[256];
        if (vs_metric)
            p->x = strtod(f[xc], NULL);
        else if (!xnumeric || units_parse(f[xc], unit_of(xunit), &p->x, err, sizeof err) != 0)
            xnumeric = 0; /* a value that is not a number of the parameter's kind: categories */
    }
    if (o->nwhere && !matched) {
        plot_note(o, PLOT_NOTE_ERROR, "%s: no point has %s%s (values as summary.csv writes them)", path,
                  o->where[0], o->nwhere > 1 ? " and the other --where values" : "");
        goto done;
    }
    if (!nrows) {
        plot_note(o, PLOT_NOTE_ERROR, "%s: no point has a finished run to draw", path);
        goto done;
    }
    if (bad_cells)
        plot_note(o, PLOT_NOTE_WARNING, "%s: %zu rows hold cells that are not numbers (edited?); drawn without "
                  "them", path, bad_cells);
    if (no_base)
        plot_note(o, PLOT_NOTE_WARNING, "--change %s: %zu point%s without a base point (or a base of 0): not drawn",
                  o->change, no_base, no_base == 1 ? "" : "s");
    if (cc >= 0)
        no_ci = 0, plot_note(o, PLOT_NOTE_INFO, "--change: changes in %% are drawn without CI bars");
    if (no_ci)
        plot_note(o, PLOT_NOTE_INFO, "%zu point%s without a confidence interval (one replica): no bar", no_ci,
                  no_ci == 1 ? "" : "s");
    /* SI prefixes for the data */
    double xmax = 0, ymax = 0;
    for (size_t i = 0; i < nrows; i++) {
        double yv = fabs(strtod(rows[i].y, NULL));
        ymax = yv > ymax ? yv : ymax;
        if (vs_metric || xnumeric)
            xmax = fabs(rows[i].x) > xmax ? fabs(rows[i].x) : xmax;
    }
    char xlabel[400], ylabel[400];
    double fx = plot_axis_label(xname, xnumeric ? xunit : "", xmax, xlabel, sizeof xlabel);
    double fy = plot_axis_label(yname, yunit, ymax, ylabel, sizeof ylabel);
    /* the categories in order: first appearance (the sweep's order), or by
     * value when they are numbers (a heat map of numeric parameters) */
    size_t *rank = tn_xcalloc(ncats ? ncats : 1, sizeof *rank);
    for (size_t c = 0; c < ncats; c++)
        rank[c] = c;
    if (o->heatmap && xnumeric) {
        double *cv = tn_xcalloc(ncats, sizeof *cv);
        for (size_t i = 0; i < nrows; i++)
            cv[rows[i].cat] = rows[i].x;
        for (size_t a = 1; a < ncats; a++) /* rank[] is the order; insertion sort on values */
            for (size_t b = a; b > 0 && cv[rank[b - 1]] > cv[rank[b]]; b--) {
                size_t tmp = rank[b];
                rank[b] = rank[b - 1];
                rank[b - 1] = tmp;
            }
        char **sorted = tn_xcalloc(ncats, sizeof *sorted);
        size_t *pos = tn_xcalloc(ncats, sizeof *pos);
        for (size_t k = 0; k < ncats; k++) {
            sorted[k] = cats[rank[k]];
            pos[rank[k]] = k;
        }
        for (size_t i = 0; i < nrows; i++)
            rows[i].cat = pos[rows[i].cat];
        memcpy(cats, sorted, ncats * sizeof *cats);
        free(sorted);
        free(pos);
        free(cv);
    }
    free(rank);
    int categorical = !vs_metric && (!xnumeric || o->heatmap);
    /* distinct x values: a numeric axis with two or fewer is drawn as
     * points (a line would run through values nobody measured) */
    int lines = !categorical && !vs_metric && (ncats > 2 || o->lines);

    char image[CFG_PATH_MAX], script[CFG_PATH_MAX + 8], dflt[600];
    snprintf(dflt, sizeof dflt, "%s_vs_%s%s", y, x, o->heatmap ? "_map" : "");
    for (char *p = dflt; *p; p++)
        if (*p == '.' || *p == '/' || *p == ',')
            *p = '_';
    paths(o, dflt, image, script, sizeof image);
    FILE *g = fopen(script, "w");
    if (!g) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot write %s: %s", script, strerror(errno));
        goto done;
    }
    /* taller for a heat map of many rows, or a key of many series below the plot */
    gp_preamble_rows(g, image, o->title, o->heatmap ? ns : ns > 6 ? 16 + 2 * ((ns + 2) / 3) : 0);
    fputs("set xlabel ", g);
    gp_string(g, o->xlabel ? o->xlabel : xlabel);
    fputs(" noenhanced\n", g);
    if (o->heatmap) {
        char sl[300];
        const char *su;
        int snum;
        plot_param_quantity(sername[0], sl, sizeof sl, &su, &snum);
        fputs("set ylabel ", g);
        gp_string(g, sl);
        fputs(" noenhanced\nset cblabel ", g);
        gp_wrapped(g, o->ylabel ? o->ylabel : ylabel, 44);
        fputs(" noenhanced\n", g);
        gp_palette(g);
        gp_category_tics(g, "x", cats, ncats, 1);
        gp_category_tics(g, "y", sname, ns, 1);
        fprintf(g, "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\nunset grid\nunset key\n", ncats - 1,
                ns - 1);
        if (o->logy)
            fputs("set logscale cb\n", g);
        /* every cell: column, row, value (as summary.csv writes it); a cell
         * nobody ran is left out (the background shows through) */
        fputs("$map << EOD\n", g);
        for (size_t i = 0; i < nrows; i++)
            fprintf(g, "%zu %zu %s\n", rows[i].cat, rows[i].s, rows[i].y);
        fputs("EOD\nplot $map using 1:2:(0.5):(0.5):", g);
        gp_col(g, 3, fy);
        fputs(" with boxxyerror fillstyle solid 1.0 noborder fillcolor palette", g);
        if (ncats * ns <= 120) {
            /* each cell's value written in it: dark on the light end of
             * the palette (past 60 % of the range of the values), light on
             * the dark end */
            double lo = 0, hi = 0;
            for (size_t i = 0; i < nrows; i++) {
                double v = strtod(rows[i].y, NULL) * fy;
                lo = i == 0 || v < lo ? v : lo;
                hi = i == 0 || v > hi ? v : hi;
            }
            double mid = o->logy ? (lo > 0 ? lo * pow(hi / lo, 0.6) : hi) : lo + 0.6 * (hi - lo);
            fprintf(g, ", \\\n     $map using 1:2:(sprintf('%%.3g', $3*%.17g)):($3*%.17g > %.17g ? 0x000000 : 0xffffff) "
                       "with labels textcolor rgb variable font ',%d'", fy, fy, mid, ncats > 8 ? 10 : 12);
        }
        fputc('\n', g);
    } else {
        fputs("set ylabel ", g);
        gp_string(g, o->ylabel ? o->ylabel : ylabel);
        fputs(" noenhanced\n", g);
        /* the key: titled by the series parameters' names, an entry per
         * combination of their values; inside the plot unless crowded */
        if (nser) {
            char kt[1024] = "";
            for (size_t k = 0; k < nser; k++) {
                char qn[256];
                const char *qu;
                int qnum;
                plot_param_quantity(sername[k], qn, sizeof qn, &qu, &qnum);
                size_t l = strlen(kt);
                snprintf(kt + l, sizeof kt - l, "%s%s", k ? ", " : "", qn);
            }
            /* below the plot, a blank line and a colon: its title is not
             * read as a second line of the x label */
            fputs(ns <= 6 ? "set key title " : "set key title \"\\n\".", g);
            if (ns > 6)
                strncat(kt, ":", sizeof kt - strlen(kt) - 1);
            gp_string(g, kt);
            fputs(" noenhanced\n", g);
            if (ns <= 6)
                fputs("set key outside top center horizontal\n", g);
            else
                fputs("set key below center horizontal maxcols 3 height 1\n", g);
        } else {
            fputs("unset key\n", g);
        }
        if (o->logx && !categorical)
            fputs("set logscale x\nset format x '%g'\n", g);
        if (o->logy)
            fputs("set logscale y\nset format y '%g'\n", g);
        /* a log axis spans the data and every CI bar (gnuplot would widen
         * it to whole decades, leaving most of the plot empty): from the
         * lowest positive bar end (mean - CI, or the mean where the bar
         * reaches 0: that bar runs off the bottom, as it must on a log
         * axis) / 1.3 to the highest (mean + CI) x 1.3, in the axis' unit */
        size_t to_zero = 0;
        for (int axis = 0; axis < 2; axis++) {
            if (!(axis == 0 ? o->logx && !categorical : o->logy))
                continue;
            double lo = 0, hi = 0, vmin = 0;
            for (size_t i = 0; i < nrows; i++) {
                double v = axis == 0 ? rows[i].x : strtod(rows[i].y, NULL);
                vmin = v > 0 && (vmin == 0 || v < vmin) ? v : vmin;
            }
            for (size_t i = 0; i < nrows; i++) {
                int has_ci = axis == 1 || vs_metric; /* a swept x has none */
                double v = axis == 0 ? rows[i].x : strtod(rows[i].y, NULL);
                double c = has_ci ? fabs(strtod(axis == 0 ? rows[i].xci : rows[i].yci, NULL)) : 0;
                /* a bar reaching below a tenth of the smallest mean would
                 * stretch the axis over decades of nothing: it runs to the
                 * bottom edge too */
                double low = v - c >= vmin / 10 ? v - c : v;
                to_zero += v > 0 && v - c < vmin / 10;
                if (low > 0 && (lo == 0 || low < lo))
                    lo = low;
                hi = v + c > hi ? v + c : hi;
            }
            double fa = axis == 0 ? fx : fy;
            if (lo <= 0)
                continue;
            char ax = axis == 0 ? 'x' : 'y';
            double a = lo * fa / 1.3, b = hi * fa * 1.3;
            fprintf(g, "set %crange [%.6g:%.6g]\n", ax, a, b);
            /* three decades or fewer: tics at 1, 2 and 5 of each (not
             * only the powers of ten, which may be one or none) */
            if (b / a <= 1000) {
                fprintf(g, "set %ctics (", ax);
                int n = 0;
                for (double d = pow(10, floor(log10(a))); d <= b; d *= 10)
                    for (int m = 0; m < 3; m++) {
                        double v = d * (m == 0 ? 1 : m == 1 ? 2 : 5);
                        if (v >= a && v <= b)
                            fprintf(g, "%s%.6g", n++ ? ", " : "", v);
                    }
                fputs(")\n", g);
            }
        }
        if (to_zero)
            plot_note(o, PLOT_NOTE_INFO, "%zu CI bar%s reach%s 0, or below a tenth of the smallest mean: on the log "
                      "axis %s to the bottom edge",
                      to_zero, to_zero == 1 ? "" : "s", to_zero == 1 ? "es" : "", to_zero == 1 ? "it runs" : "they run");
        /* no point has a CI (one replica each, or --change): points and
         * lines without bars, so the key shows no bar either */
        int any_ci = 0;
        for (size_t i = 0; i < nrows && !any_ci; i++)
            any_ci = strtod(rows[i].yci, NULL) != 0;
        /* a category's series side by side around it, 0.8 wide in all */
        double step = categorical && ns > 1 ? 0.8 / (double)ns : 0;
        if (categorical) {
            gp_category_tics(g, "x", cats, ncats, 1);
            /* room above the highest point (one at the top would sit on the border) */
            fprintf(g, "set xrange [-0.6:%zu.6]\nset grid noxtics ytics\nset offsets 0, 0, graph 0.05, 0\n",
                    ncats - 1);
            if (o->bars)
                fprintf(g, "set boxwidth %.6g absolute\nset style fill solid 0.7 border -1\n",
                        ns > 1 ? step * 0.9 : 0.6);
        }
        if (!categorical && !vs_metric && o->logx && ncats <= 12) {
            /* a log axis over a few measured values: tics at them, and the
             * range they span (gnuplot would widen it to whole decades) */
            double lo = 0, hi = 0;
            fputs("set xtics (", g);
            for (size_t c = 0; c < ncats; c++) {
                double v = 0;
                for (size_t i = 0; i < nrows; i++)
                    if (rows[i].cat == c)
                        v = rows[i].x * fx;
                lo = c == 0 || v < lo ? v : lo;
                hi = c == 0 || v > hi ? v : hi;
                fprintf(g, "%s%.17g", c ? ", " : "", v);
            }
            fputs(")\n", g);
            if (lo > 0)
                fprintf(g, "set xrange [%.6g:%.6g]\n", lo / 1.2, hi * 1.2);
        } else if (!categorical && lines && !vs_metric && !o->logx) {
            /* a line over a linear axis: room either side, so the first
             * and last points and their bars are not on the border; whole
             * numbers (stages, nodes), a dozen or fewer: tics at them */
            int whole = ncats <= 12;
            for (size_t i = 0; i < nrows && whole; i++)
                whole = rows[i].x * fx == floor(rows[i].x * fx);
            if (whole)
                put_xtics_at(g, rows, nrows, ncats, fx);
            fputs("set autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n", g);
        } else if (!categorical && !lines && !vs_metric) {
            /* two measured values (or one): tics at them, room either side */
            put_xtics_at(g, rows, nrows, ncats, fx);
            fputs("set offsets graph 0.15, graph 0.15, graph 0.05, graph 0.05\n", g);
        }
        for (size_t s = 0; s < ns; s++) {
            fprintf(g, "$s%zu << EOD\n", s);
            for (size_t i = 0; i < nrows; i++) {
                prow *p = &rows[i];
                if (p->s != s)
                    continue;
                if (vs_metric) {
                    fprintf(g, "%s %s %s %s\n", p->xtext, p->y, p->xci, p->yci);
                } else if (categorical) {
                    fprintf(g, "%.6g ", (double)p->cat + step * ((double)s - (double)(ns - 1) / 2));
                    gp_datum(g, p->xtext);
                    fprintf(g, " %s %s\n", p->y, p->yci);
                } else {
                    fprintf(g, "%.17g %s %s\n", p->x * fx, p->y, p->yci);
                }
            }
            fputs("EOD\n", g);
        }
        fputs("plot ", g);
        for (size_t s = 0; s < ns; s++) {
            const char *label = ser ? sname[s] : yname;
            const char *sep = s ? ", \\\n     " : "";
            if (vs_metric) {
                fprintf(g, "%s$s%zu using ", sep, s);
                gp_col(g, 1, fx);
                fputc(':', g);
                gp_col(g, 2, fy);
                fputc(':', g);
                gp_col(g, 3, fx);
                fputc(':', g);
                gp_col(g, 4, fy);
                fprintf(g, " with xyerrorbars lc %zu pt %d ps 1.3 title ", s + 1, gp_point(s));
            } else if (categorical && o->bars) {
                fprintf(g, "%s$s%zu using 1:", sep, s);
                gp_col(g, 3, fy);
                fprintf(g, " with boxes lc %zu title ", s + 1);
                gp_string(g, label);
                if (any_ci) {
                    fprintf(g, ", \\\n     $s%zu using 1:", s);
                    gp_col(g, 3, fy);
                    fputc(':', g);
                    gp_col(g, 4, fy);
                    fputs(" with yerrorbars lc rgb 'black' pt 0 notitle", g);
                }
                continue;
            } else if (categorical) {
                fprintf(g, "%s$s%zu using 1:", sep, s);
                gp_col(g, 3, fy);
                if (any_ci) {
                    fputc(':', g);
                    gp_col(g, 4, fy);
                }
                fprintf(g, " with %s lc %zu pt %d ps 1.5 title ", any_ci ? "yerrorbars" : "points", s + 1,
                        gp_point(s));
            } else {
                fprintf(g, "%s$s%zu using 1:", sep, s);
                gp_col(g, 2, fy);
                if (any_ci) {
                    fputc(':', g);
                    gp_col(g, 3, fy);
                }
                fprintf(g, " with %s lc %zu pt %d ps 1.3 title ",
                        any_ci ? (lines ? "yerrorlines" : "yerrorbars") : (lines ? "linespoints" : "points"), s + 1,
                        gp_point(s));
            }
            gp_string(g, label);
        }
        fputc('\n', g);
    }
    if (gp_close(o, g, script) == 0)
        status = gp_run(o, script, image);
done:
    for (size_t i = 0; i < nrows; i++) {
        free(rows[i].xtext);
        free(rows[i].y);
        free(rows[i].yci);
        free(rows[i].xci);
    }
    free(rows);
    free_list(sname, ns);
    free_list(cats, ncats);
    free(hcopy);
    free(ydef);
    free_list(bkey, nbase);
    free(bval);
    csv_table_free(&t);
    return status;
}

/* The per-node timeline of a trace written by `tasknet run --trace`: every
 * workload's lanes, one group per workload (its processes 3k: compute by
 * rank, 3k+1: messages by sender, 3k+2: spans across ranks such as
 * allreduces and flows), labelled with its name. Groups are stacked from
 * the top in the workloads' order; in a group, its nodes upwards and the
 * rows of its spans below them. */
#define TL_SPAN_ROWS 8 /* span rows per workload: tracks past the 7th share the last */
typedef struct tl_group {
    int *row_of;       /* node track -> row in the group (-1: no track) */
    unsigned nrow_of, ntracks; /* ntracks: rows numbered (0 until the first event) */
    int have_tracks;   /* the trace named its node tracks (metadata) */
    unsigned maxnode;  /* highest row used */
    unsigned maxspan;  /* highest span row used */
    int used, spans;   /* has events; has spans */
    char name[64];     /* the workload's name ("" for one workload) */
    char rowname[TL_SPAN_ROWS][40]; /* a span row's category (its track's first span) */
    int span_over;     /* tracks past the last row share it */
    double base;       /* y of the group's lowest row */
} tl_group;

typedef struct tl_event {
    double t0, t1;
    unsigned k, row, row2; /* group; row (message: sender), message: receiver */
    int kind;              /* 1, 2, 3 phase colours; 4 span; 5 message */
} tl_event;

static tl_group *tl_group_at(tl_group **g, unsigned *n, unsigned k)
{
    if (k >= *n) {
        *g = tn_xrealloc(*g, (k + 1) * sizeof **g);
        memset(*g + *n, 0, (k + 1 - *n) * sizeof **g);
        *n = k + 1;
    }
    return &(*g)[k];
}

/* The row of node track `tid` in group gr, or -1 when it has no track
 * (a message to a node --trace-nodes left out). */
static int tl_row(tl_group *gr, unsigned tid)
{
    if (!gr->have_tracks)
        return (int)tid;
    if (!gr->ntracks) /* the metadata (written first) is done: number the rows in track order */
        for (unsigned k = 0; k < gr->nrow_of; k++)
            if (gr->row_of[k] >= 0)
                gr->row_of[k] = (int)gr->ntracks++;
    return tid < gr->nrow_of ? gr->row_of[tid] : -1;
}

static int plot_timeline(const plot_opts *o)
{
    char why[1200];
    FILE *in = tn_open_input(o->input, "r", why, sizeof why); /* not /dev/zero nor a FIFO */
    if (!in) {
        plot_note(o, PLOT_NOTE_ERROR, "%s", why);
        return 1;
    }
    int status = 1;
    FILE *g = NULL;
    tl_group *grp = NULL;
    unsigned ngrp = 0;
    tl_event *ev = NULL;
    size_t nev = 0, cap_ev = 0;
    char *line = NULL;
    size_t cap = 0;
    double tmax = 0, open_ts = 0;
    unsigned long long open_id = 0;
    int open = 0;
    while (getline(&line, &cap, in) > 0) {
        unsigned pid, tid, src, dst;
        char cat[32], name[64], ph;
        double ts, dur;
        unsigned long long id;
        if (sscanf(line, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\"", &pid, &tid) == 2) {
            if (pid % 3 == 0 && pid / 3 < 4096 && tid < (1u << 24)) { /* a workload's node track */
                tl_group *gr = tl_group_at(&grp, &ngrp, pid / 3);
                if (tid >= gr->nrow_of) {
                    gr->row_of = tn_xrealloc(gr->row_of, (tid + 1) * sizeof *gr->row_of);
                    for (unsigned k = gr->nrow_of; k <= tid; k++)
                        gr->row_of[k] = -1;
                    gr->nrow_of = tid + 1;
                }
                gr->row_of[tid] = 0;
                gr->have_tracks = 1;
            }
            continue;
        }
        char pname[128];
        if (sscanf(line, "{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":\"%127[^\"]", &pid,
                   pname) == 2) {
            /* "NAME: compute" names workload pid / 3 */
            char *colon = strstr(pname, ": compute");
            if (pid % 3 == 0 && pid / 3 < 4096 && colon && colon[9] == '\0') {
                *colon = '\0';
                tl_group *gr = tl_group_at(&grp, &ngrp, pid / 3);
                snprintf(gr->name, sizeof gr->name, "%.63s", pname);
            }
            continue;
        }
        if (sscanf(line, "{\"ph\":\"%c\",\"pid\":%u,\"tid\":%u,\"cat\":\"%31[^\"]\",\"name\":\"%63[^\"]\",\"id\":%llu,\"ts\":%lf",
                   &ph, &pid, &tid, cat, name, &id, &ts) == 7 && pid % 3 == 2 && pid / 3 < 4096 &&
            (ph == 'b' || ph == 'e')) {
            if (ph == 'b') {
                open = 1, open_id = id, open_ts = ts;
            } else if (open && id == open_id) { /* tasknet writes each span's end after its begin */
                tl_group *gr = tl_group_at(&grp, &ngrp, pid / 3);
                unsigned row = tid < TL_SPAN_ROWS - 1 ? tid : TL_SPAN_ROWS - 1;
                if (!gr->rowname[row][0])
                    snprintf(gr->rowname[row], sizeof gr->rowname[row], "%.31s", cat);
                gr->span_over |= tid >= TL_SPAN_ROWS;
                if (nev == cap_ev)
                    ev = tn_xrealloc(ev, (cap_ev = cap_ev ? 2 * cap_ev : 1024) * sizeof *ev);
                ev[nev++] = (tl_event){.t0 = open_ts, .t1 = ts, .k = pid / 3, .row = row, .kind = 4};
                gr->maxspan = row > gr->maxspan ? row : gr->maxspan;
                gr->spans = gr->used = 1;
                tmax = ts > tmax ? ts : tmax;
                open = 0;
            }
            continue;
        }
        if (sscanf(line, "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"cat\":\"%31[^\"]\",\"name\":\"%63[^\"]\",\"ts\":%lf,\"dur\":%lf",
                   &pid, &tid, cat, name, &ts, &dur) != 6 || pid / 3 >= 4096)
            continue;
        tl_group *gr = tl_group_at(&grp, &ngrp, pid / 3);
        tl_event e = {.t0 = ts, .t1 = ts + dur, .k = pid / 3};
        if (pid % 3 == 0) {
            /* colours: a first phase (a task's init, a layer's forward,
             * a program's compute), a second (aggregation, backward), waits */
            e.kind = strcmp(cat, "compute") != 0                                                 ? 3
                     : strcmp(name, "aggregation") == 0 || strncmp(name, "backward", 8) == 0 ? 2
                                                                                             : 1;
            int r = tl_row(gr, tid);
            if (r < 0)
                continue;
            e.row = (unsigned)r;
        } else if (pid % 3 == 1) {
            const char *a = strstr(line, "\"src\":"), *b = strstr(line, "\"dst\":");
            if (!a || !b || sscanf(a, "\"src\":%u", &src) != 1 || sscanf(b, "\"dst\":%u", &dst) != 1)
                continue;
            int rs = tl_row(gr, src), rd = tl_row(gr, dst);
            if (rs < 0 || rd < 0)
                continue;
            e.kind = 5, e.row = (unsigned)rs, e.row2 = (unsigned)rd;
            e.t1 = dur; /* the arrow's length */
        } else {
            continue;
        }
        if (nev == cap_ev)
            ev = tn_xrealloc(ev, (cap_ev = cap_ev ? 2 * cap_ev : 1024) * sizeof *ev);
        ev[nev++] = e;
        gr->used = 1;
        unsigned hi = e.kind == 5 && e.row2 > e.row ? e.row2 : e.row;
        gr->maxnode = hi > gr->maxnode ? hi : gr->maxnode;
        tmax = ts + dur > tmax ? ts + dur : tmax;
    }
    fclose(in);
    in = NULL;
    if (!nev) {
        plot_note(o, PLOT_NOTE_ERROR, "%s holds no tasknet trace events", o->input);
        goto done;
    }
    /* rows: each group's node tracks in order; groups from the top, in the
     * workloads' order, one empty row between them */
    unsigned ngroups = 0, nrows = 0;
    for (unsigned k = 0; k < ngrp; k++)
        ngroups += grp[k].used;
    double y = 0;
    for (unsigned k = ngrp; k-- > 0;) {
        tl_group *gr = &grp[k];
        if (!gr->used)
            continue;
        gr->base = y;
        y += (gr->spans ? gr->maxspan + 1 : 0) + gr->maxnode + 1 + 1;
        nrows += (gr->spans ? gr->maxspan + 1 : 0) + gr->maxnode + 1;
    }
    char image[CFG_PATH_MAX], script[CFG_PATH_MAX + 8];
    if (o->out) {
        snprintf(image, sizeof image, "%s", o->out);
    } else {
        snprintf(image, sizeof image, "%s", o->input);
        char *dot = strrchr(image, '.');
        if (dot)
            *dot = '\0';
        strncat(image, "-timeline.png", sizeof image - strlen(image) - 1);
    }
    snprintf(script, sizeof script, "%s.gp", image);
    g = fopen(script, "w");
    if (!g) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot write %s: %s", script, strerror(errno));
        goto done;
    }
    gp_preamble_rows(g, image, o->title, nrows + ngroups > 17 ? nrows + ngroups - 1 : 0);
    /* trace times are us: the axis in the unit the run's length calls for */
    char xlab[128];
    double fx = plot_axis_label("time", "s", tmax * 1e-6, xlab, sizeof xlab) * 1e-6;
    fputs("set xlabel ", g);
    gp_string(g, o->xlabel ? o->xlabel : xlab);
    fprintf(g, " noenhanced\nset ylabel 'node'\nset yrange [-0.8:%.1f]\nset style fill solid 0.85 noborder\n",
            y - 1 - 0.2);
    /* tics: node ids (every k-th past 24 in a group), the span rows' names */
    fputs("set ytics (", g);
    int first = 1;
    for (unsigned k = 0; k < ngrp; k++) {
        tl_group *gr = &grp[k];
        if (!gr->used)
            continue;
        double nodes0 = gr->base + (gr->spans ? gr->maxspan + 1 : 0);
        unsigned step = gr->maxnode > 24 ? (gr->maxnode + 23) / 24 : 1;
        for (unsigned n = 0; n <= gr->maxnode; n += step) {
            unsigned id = n; /* the node on row n */
            for (unsigned t = 0; gr->have_tracks && t < gr->nrow_of; t++)
                if (gr->row_of[t] == (int)n)
                    id = t;
            fprintf(g, "%s'%u' %g", first ? "" : ", ", id, nodes0 + n);
            first = 0;
        }
        for (unsigned r = 0; gr->spans && r <= gr->maxspan; r++) {
            /* a category on several rows (dc-flows: a row per sender)
             * numbers them; the last row holds the tracks past it too */
            int dup = 0;
            for (unsigned q = 0; q <= gr->maxspan; q++)
                dup |= q != r && strcmp(gr->rowname[q], gr->rowname[r]) == 0;
            char rn[64];
            if (dup)
                snprintf(rn, sizeof rn, "%s %u%s", gr->rowname[r], r,
                         r == TL_SPAN_ROWS - 1 && gr->span_over ? "+" : "");
            else
                snprintf(rn, sizeof rn, "%s", gr->rowname[r]);
            fputs(first ? "" : ", ", g);
            gp_string(g, rn);
            fprintf(g, " %g", nodes0 - 1 - r);
            first = 0;
        }
    }
    fputs(") noenhanced\nset key below horizontal\n", g);
    /* several workloads: a line between the groups, each named at the right */
    if (ngroups > 1) {
        fputs("set rmargin 6\n", g);
        unsigned lab = 0;
        for (unsigned k = 0; k < ngrp; k++) {
            tl_group *gr = &grp[k];
            if (!gr->used)
                continue;
            double top = gr->base + (gr->spans ? gr->maxspan + 1 : 0) + gr->maxnode;
            char wname[80];
            snprintf(wname, sizeof wname, "%s", gr->name[0] ? gr->name : "");
            if (!wname[0])
                snprintf(wname, sizeof wname, "workload %u", k + 1);
            fprintf(g, "set label %u ", ++lab);
            gp_string(g, wname);
            fprintf(g, " at graph 1.015, first %g center rotate by -90 noenhanced\n", (gr->base + top) / 2);
            if (gr->base > 0)
                fprintf(g, "set arrow %u from graph 0, first %g to graph 1, first %g nohead lc rgb 'black' lw 1\n",
                        lab, gr->base - 1, gr->base - 1);
        }
    }
    fprintf(g, "fx = %.17g\n", fx);
    /* the data: start, end, y[, colour]; messages start, y, length, dy */
    fputs("$phases << EOD\n", g);
    for (size_t i = 0; i < nev; i++)
        if (ev[i].kind <= 3) {
            tl_group *gr = &grp[ev[i].k];
            fprintf(g, "%.6f %.6f %g %d\n", ev[i].t0, ev[i].t1,
                    gr->base + (gr->spans ? gr->maxspan + 1 : 0) + ev[i].row, ev[i].kind);
        }
    fputs("EOD\n$spans << EOD\n", g);
    size_t nspan = 0;
    for (size_t i = 0; i < nev; i++)
        if (ev[i].kind == 4) {
            tl_group *gr = &grp[ev[i].k];
            fprintf(g, "%.6f %.6f %g\n", ev[i].t0, ev[i].t1, gr->base + gr->maxspan - ev[i].row);
            nspan++;
        }
    fputs("EOD\n$messages << EOD\n", g);
    for (size_t i = 0; i < nev; i++)
        if (ev[i].kind == 5) {
            tl_group *gr = &grp[ev[i].k];
            double y0 = gr->base + (gr->spans ? gr->maxspan + 1 : 0);
            fprintf(g, "%.6f %g %.6f %d\n", ev[i].t0, y0 + ev[i].row, ev[i].t1, (int)ev[i].row2 - (int)ev[i].row);
        }
    fputs("EOD\n", g);
    fputs("plot $phases using (($1+$2)/2*fx):3:(($2-$1)/2*fx):(0.3):($4==1?0x3b6fb6:$4==2?0xc0392b:0xb0b0b0) "
          "with boxxyerror lc rgb variable notitle, \\\n"
          "     NaN with boxes lc rgb 0x3b6fb6 title 'init / forward / compute', \\\n"
          "     NaN with boxes lc rgb 0xc0392b title 'aggregation / backward', \\\n"
          "     NaN with boxes lc rgb 0xb0b0b0 title 'waiting', \\\n",
          g);
    if (nspan)
        fputs("     $spans using (($1+$2)/2*fx):3:(($2-$1)/2*fx):(0.3) with boxxyerror lc rgb 0xe67e22 "
              "fillstyle solid 0.85 border lc rgb 0x8a4a12 title 'allreduce / flow', \\\n", g);
    fputs("     $messages using ($1*fx):2:($3*fx):4 with vectors head filled size screen 0.008,20 lc rgb 0x27ae60 "
          "lw 0.8 title 'messages'\n", g);
    int bad = gp_close(o, g, script);
    g = NULL;
    if (!bad)
        status = gp_run(o, script, image);
done:
    if (in)
        fclose(in);
    free(line);
    for (unsigned k = 0; k < ngrp; k++)
        free(grp[k].row_of);
    free(grp);
    free(ev);
    return status;
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
                o2 += (size_t)snprintf(p->label + o2, sizeof p->label - o2, "%s%s", a ? ", " : "", f[first_axis + a]);
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
    /* the key's title: the swept parameters' names */
    char keytitle[512] = "";
    for (size_t a = 0; a < naxes && first_axis + a < nh; a++) {
        char qn[256];
        const char *qu;
        int qnum;
        plot_param_quantity(hf[first_axis + a], qn, sizeof qn, &qu, &qnum);
        size_t l = strlen(keytitle);
        snprintf(keytitle + l, sizeof keytitle - l, "%s%s", a ? ", " : "", qn);
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
    char image[CFG_PATH_MAX + 64], script[CFG_PATH_MAX + 72];
    char dflt[64];
    snprintf(dflt, sizeof dflt, "latency_%s", cls);
    paths(o, dflt, image, script, sizeof image);
    FILE *f = fopen(script, "w");
    if (!f) {
        plot_note(o, PLOT_NOTE_ERROR, "%s: %s", script, strerror(errno));
        goto done;
    }
    gp_preamble_rows(f, image, o->title, drawn > 4 ? 16 + 2 * ((drawn + 1) / 2) : 0);
    /* latencies in the unit the slowest bin's upper edge calls for */
    double lmax = 0;
    for (size_t i = 0; i < npts; i++)
        for (size_t b = 0; b < pts[i].n; b++)
            if (pts[i].count[b] > 0 && isfinite(pts[i].hi[b]) && pts[i].hi[b] > lmax)
                lmax = pts[i].hi[b];
    char xlab[300];
    double fx = plot_axis_label("message latency", "s", lmax, xlab, sizeof xlab);
    fputs("set logscale xy\nset format x '%g'\nset format y '10^{%L}'\nset xlabel ", f);
    gp_string(f, o->xlabel ? o->xlabel : xlab);
    fputs(" noenhanced\nset ylabel ", f);
    gp_string(f, o->ylabel ? o->ylabel : "fraction of messages slower than x");
    fputs(" noenhanced\n", f);
    /* the curves fall from the top left to the bottom right: the bottom left is free */
    if (drawn <= 4)
        fputs("set key inside bottom left box opaque noenhanced\n", f);
    else
        fputs("set key below center horizontal maxcols 2 height 1 noenhanced\n", f);
    if (naxes) {
        /* below the plot, a blank line and a colon: not a second line of the x label */
        fputs(drawn > 4 ? "set key title \"\\n\"." : "set key title ", f);
        if (drawn > 4)
            strncat(keytitle, ":", sizeof keytitle - strlen(keytitle) - 1);
        gp_string(f, keytitle);
        fputc('\n', f);
    } else {
        fputs("unset key\n", f);
    }
    fputs("plot ", f);
    size_t k = 0;
    for (size_t i = 0; i < npts; i++) {
        if (pts[i].total <= 0)
            continue;
        fprintf(f, "%s'-' using ($1*%.17g):2 with steps lw 2 lc %zu title ", k ? ", \\\n     " : "", fx, k + 1);
        k++;
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

/* The quantity on a count file's x axis: its column named for a reader
 * (the workloads' files are described in their file heads), else the
 * column's words. */
static void count_x_quantity(const char *file, const char *column, char *out, size_t len)
{
    static const struct {
        const char *file, *column, *shown;
    } known[] = {
        /* wl_pattern.c: c_f, the flows sharing the busiest link of a flow's route (ORCS) */
        {"congestion_hist.csv", "weight", "flow congestion (flows on its busiest link)"},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (strcmp(file, known[k].file) == 0 && strcmp(column, known[k].column) == 0) {
            snprintf(out, len, "%s", known[k].shown);
            return;
        }
    snprintf(out, len, "%s", column);
    for (char *p = out; *p; p++)
        *p = *p == '_' ? ' ' : *p;
}

/* Small multiples of a count file (--panels): a grid of small panels, one
 * per point (or per combination of the swept values other than --series,
 * whose values are then the curves of each panel), sharing their axes:
 * the x range of every value, the y range of the largest fraction; tic
 * labels on the outer panels only, the axis labels once for the grid. The
 * panels run left to right, top to bottom, in the sweep's order. */
static void gp_count_panels(const plot_opts *o, FILE *g, const char *image, series **all, size_t ns, const char *xl,
                            const char *yl, const char *subname)
{
    char **panels = NULL, **subs = NULL;
    size_t np = 0, nsub = 0;
    for (size_t i = 0; i < ns; i++) {
        intern(&panels, &np, all[i]->panel);
        intern(&subs, &nsub, all[i]->sub);
    }
    /* shared ranges: every x, the largest fraction (the smallest positive
     * one for a log axis) */
    double xmin = 0, xmax = 0, gap = 0, ymax = 0, ymin = 0;
    int first = 1;
    for (size_t i = 0; i < ns; i++)
        for (const char *l = all[i]->data; l && *l; l = strchr(l, '\n') + 1) {
            double xv, fv;
            if (sscanf(l, "%lf %lf", &xv, &fv) != 2)
                continue;
            xmin = first || xv < xmin ? xv : xmin;
            xmax = first || xv > xmax ? xv : xmax;
            first = 0;
            ymax = fv > ymax ? fv : ymax;
            ymin = fv > 0 && (ymin == 0 || fv < ymin) ? fv : ymin;
            for (const char *m = all[i]->data; m && *m; m = strchr(m, '\n') + 1) {
                double x2 = strtod(m, NULL);
                if (x2 > xv && (gap == 0 || x2 - xv < gap))
                    gap = x2 - xv;
            }
        }
    if (gap <= 0)
        gap = 1;
    size_t cols = 1;
    while (cols * cols < np)
        cols++;
    size_t rows = (np + cols - 1) / cols;
    /* wider past three columns; a strip of height per row (a panel about as
     * high as it is wide, room for its title) */
    gp_preamble_size(g, image, o->title, cols > 3 ? 1.4 : 1, rows <= 2 ? 1 : 0.3 * (double)rows + 0.2);
    int key = nsub > 1;
    /* a panel's title fits about 130 / columns characters of its font
     * (11 against the figure's 15); a longer one breaks after its commas */
    size_t fit = 130 / cols, longest = 0;
    for (size_t k = 0; k < np; k++)
        longest = strlen(panels[k]) > longest ? strlen(panels[k]) : longest;
    int wrap = longest > fit;
    double top = (o->title && *o->title ? 0.93 : 0.97) - (key ? 0.06 : 0) - (wrap ? 0.025 : 0);
    fprintf(g, "set multiplot layout %zu,%zu rowsfirst margins screen 0.09,0.98,%.3g,%.3g spacing screen 0.015,%.3g\n",
            rows, cols, rows > 2 ? 0.1 : 0.15, top, (rows > 2 ? 0.05 : 0.09) + (wrap ? 0.025 : 0));
    /* each bar a box of x values, 0.8 of the closest values' gap wide
     * (shared among a panel's curves) */
    double w = nsub > 1 ? 0.8 / (double)nsub : 0.8;
    fprintf(g, "set xrange [%.6g:%.6g]\n", xmin - gap / 2, xmax + gap / 2);
    double ybase = 0;
    if (o->logy) {
        ybase = ymin / 2;
        fprintf(g, "set logscale y\nset yrange [%.6g:%.6g]\n", ybase, ymax * 2);
    } else {
        fprintf(g, "set yrange [0:%.6g]\n", ymax * 1.1);
    }
    /* the panels' tics and titles two thirds and three quarters of the
     * figure's font (15 pt in a PNG or SVG: 10 and 11; 9 pt in a PDF: 6 and 7) */
    int base = format_of(image) >= 0 && strcmp(formats[format_of(image)].ext, ".pdf") == 0 ? 9 : 15;
    fprintf(g, "set style fill solid 0.8 noborder\nset tics font ',%d'\nset xtics scale 0.5\nset ytics scale 0.5\n"
               "set grid\nunset key\nset title font ',%d' offset 0,-0.7 noenhanced\n",
            (base * 2 + 1) / 3, (base * 3 + 2) / 4);
    /* the axis labels once for the grid: drawn with the first panel */
    fputs("set label 101 ", g);
    gp_string(g, xl);
    fputs(" at screen 0.535,0.02 center noenhanced\nset label 102 ", g);
    gp_string(g, yl);
    fputs(" at screen 0.018,0.5 center rotate by 90 noenhanced\n", g);
    if (key) {
        /* the key on one line above the grid, drawn as labels and boxes (a
         * key of the first panel would be as narrow as that panel): about
         * 90 characters across the figure (a PDF at 9 pt on 7 in; a PNG fits more) */
        const double ch = 0.011, sq = 0.012;
        double width = (double)(strlen(subname) + 2) * ch;
        for (size_t j = 0; j < nsub; j++)
            width += sq + ch + (double)strlen(subs[j]) * ch + 2 * ch;
        double x = 0.535 - width / 2, y = 0.975;
        fputs("set label 103 ", g);
        gp_string(g, subname);
        fprintf(g, " at screen %.4f,%.4f left noenhanced\n", x, y);
        x += (double)(strlen(subname) + 2) * ch;
        for (size_t j = 0; j < nsub; j++) {
            fprintf(g, "set object %zu rect from screen %.4f,%.4f to screen %.4f,%.4f fillcolor lt %zu "
                       "fillstyle solid 0.8 noborder\n", 201 + j, x, y - 0.008, x + sq, y + 0.008, j + 1);
            x += sq + ch;
            fprintf(g, "set label %zu ", 201 + j);
            gp_string(g, subs[j]);
            fprintf(g, " at screen %.4f,%.4f left noenhanced\n", x, y);
            x += (double)strlen(subs[j]) * ch + 2 * ch;
        }
    }
    for (size_t i = 0; i < ns; i++)
        fprintf(g, "$s%zu << EOD\n%sEOD\n", i, all[i]->data ? all[i]->data : "");
    for (size_t k = 0; k < np; k++) {
        fputs("set title ", g);
        if (!wrap) {
            gp_string(g, panels[k]);
        } else { /* 'a, b,'."\n".'c': lines of at most `fit` characters where it can */
            char *t = tn_xstrdup(panels[k]), *line = t;
            size_t used = 0;
            for (char *tok = strtok(t, ","); tok; tok = strtok(NULL, ",")) {
                size_t l = strlen(tok);
                if (used && used + l + 1 > fit) {
                    gp_string(g, line);
                    fputs(".\"\\n\".", g);
                    line = tok[0] == ' ' ? tok + 1 : tok;
                    used = 0;
                } else if (tok != t) {
                    tok[-1] = ','; /* keep it on this line */
                }
                used += l + 1;
            }
            gp_string(g, line);
            free(t);
        }
        /* tic labels on the bottom panel of each column and the left column */
        fprintf(g, "\nset format x '%s'\nset format y '%s'\n", k + cols >= np ? "%g" : "",
                k % cols == 0 ? o->logy ? "10^{%L}" : "%g" : "");
        fputs("plot ", g);
        size_t drawn = 0;
        for (size_t i = 0; i < ns; i++) {
            if (strcmp(all[i]->panel, panels[k]) != 0)
                continue;
            size_t j = intern(&subs, &nsub, all[i]->sub);
            /* several curves: their bars side by side around each x */
            double at = (double)j - (double)(nsub - 1) / 2; /* in bar widths from the value */
            fprintf(g, "%s$s%zu using ($1%+.6g):2:($1%+.6g):($1%+.6g):(%.6g):2 with boxxyerror lc %zu notitle",
                    drawn++ ? ", " : "", i, gap * w * at, gap * w * (at - 0.5), gap * w * (at + 0.5), ybase, j + 1);
        }
        fputc('\n', g);
        if (k == 0) { /* the axis labels and the key are drawn once */
            fputs("unset label 101\nunset label 102\n", g);
            for (size_t j = 0; key && j < nsub; j++)
                fprintf(g, "unset object %zu\nunset label %zu\n", 201 + j, 201 + j);
            if (key)
                fputs("unset label 103\n", g);
        }
    }
    fputs("unset multiplot\n", g);
    free_list(panels, np);
    free_list(subs, nsub);
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
    char axname[16][128];
    for (size_t a = 0; a < naxes && a < 16; a++)
        snprintf(axname[a], sizeof axname[a], "%s", sf[2 + a]);
    naxes = naxes > 16 ? 16 : naxes;
    /* --panels --series PARAM: PARAM's values are the curves of each panel */
    int sub_axis = -1;
    if (o->series && !o->panels) {
        plot_note(o, PLOT_NOTE_ERROR, "--counts draws one curve per point; --series goes with --panels (the curves "
                  "of each panel)");
        goto done_sum;
    }
    if (o->series && o->panels) {
        for (size_t a = 0; a < naxes; a++)
            if (strcmp(axname[a], o->series) == 0)
                sub_axis = (int)a;
        if (sub_axis < 0) {
            char swept[1024] = "";
            for (size_t a = 0, l = 0; a < naxes && l < sizeof swept; a++)
                l += (size_t)snprintf(swept + l, sizeof swept - l, " %s", axname[a]);
            plot_note(o, PLOT_NOTE_ERROR, "--series %s: not one swept parameter of %s (swept:%s)", o->series,
                      o->input, naxes ? swept : " none");
            goto done_sum;
        }
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
        /* the point's label: its swept values; with --panels, the panel's
         * (every swept value but --series') and the curve's in it */
        char label[1024] = "", panel[1024] = "", sub[256] = "";
        for (size_t i = 0; have_sum && i < st.nrows && !label[0]; i++) {
            char *sl = tn_xstrdup(st.rows[i]), *g[MAXF];
            size_t gn = csv_split(sl, g, MAXF);
            if (gn > 0 && strtoull(g[0], NULL, 10) == p)
                for (size_t a = 0, l = 0, pl = 0; a < naxes && 2 + a < gn && l < sizeof label; a++) {
                    l += (size_t)snprintf(label + l, sizeof label - l, "%s%s", a ? ", " : "", g[2 + a]);
                    if ((int)a == sub_axis)
                        snprintf(sub, sizeof sub, "%s", g[2 + a]);
                    else if (pl < sizeof panel)
                        pl += (size_t)snprintf(panel + pl, sizeof panel - pl, "%s%s", pl ? ", " : "", g[2 + a]);
                }
            free(sl);
        }
        if (!label[0])
            snprintf(label, sizeof label, "point %zu", p);
        if (!panel[0])
            snprintf(panel, sizeof panel, "%s", sub_axis >= 0 ? "all points" : label);
        series *s = series_get(&all, &ns, label);
        if (o->panels && !s->panel) {
            s->panel = tn_xstrdup(panel);
            s->sub = tn_xstrdup(sub);
        }
        fprintf(s->f, "%s %.17g\n", f[1], total[p] > 0 ? strtod(f[2], NULL) / total[p] : 0.0);
        free(line);
    }
done_sum:
    if (have_sum)
        csv_table_free(&st);
    free(shcopy);
    if (o->series && sub_axis < 0)
        goto done;
    if (!ns) {
        plot_note(o, PLOT_NOTE_ERROR, "%s has no rows", path);
        goto done;
    }
    char image[CFG_PATH_MAX + 64], script[CFG_PATH_MAX + 72], dflt[600];
    snprintf(dflt, sizeof dflt, "%s", name);
    dflt[strlen(dflt) - 4] = '\0';
    paths(o, dflt, image, script, sizeof image);
    FILE *g = fopen(script, "w");
    if (!g) {
        plot_note(o, PLOT_NOTE_ERROR, "cannot write %s: %s", script, strerror(errno));
        goto done;
    }
    char xl[300], yl[300];
    count_x_quantity(name, hf[1], xl, sizeof xl);
    snprintf(yl, sizeof yl, "fraction of %s", hf[2]);
    for (char *p = yl; *p; p++)
        *p = *p == '_' ? ' ' : *p;
    for (size_t i = 0; i < ns; i++)
        fflush(all[i]->f);
    if (o->panels) {
        char sn[256] = "";
        const char *su;
        int snum;
        if (sub_axis >= 0)
            plot_param_quantity(axname[sub_axis], sn, sizeof sn, &su, &snum);
        gp_count_panels(o, g, image, all, ns, o->xlabel ? o->xlabel : xl, o->ylabel ? o->ylabel : yl, sn);
        goto written;
    }
    if (o->heatmap) {
        /* rows named at the left, the colour box at the right: wider when
         * the names are long, so the map keeps its width */
        size_t longest = 0;
        for (size_t i = 0; i < ns; i++)
            longest = strlen(all[i]->name) > longest ? strlen(all[i]->name) : longest;
        gp_preamble_size(g, image, o->title, longest > 16 ? 1.3 : 1, ns > 16 ? 1 + (double)(ns - 16) / 24 : 1);
    } else {
        gp_preamble_rows(g, image, o->title, 0);
    }
    fputs("set xlabel ", g);
    gp_string(g, o->xlabel ? o->xlabel : xl);
    fputs(" noenhanced\n", g);
    if (o->heatmap) {
        /* one row per point (the first at the top), a column per x value
         * (sorted; numbered columns when there are many), colour the
         * fraction: readable with dozens of points (ORCS's histogram over
         * 30 patterns) where curves would pile up */
        double *xs = NULL;
        size_t nx = 0;
        for (size_t i = 0; i < ns; i++)
            for (const char *l = all[i]->data; l && *l; l = strchr(l, '\n') + 1) {
                double xv = strtod(l, NULL);
                size_t k = 0;
                while (k < nx && xs[k] != xv)
                    k++;
                if (k == nx) {
                    xs = tn_xrealloc(xs, (nx + 1) * sizeof *xs);
                    xs[nx++] = xv;
                }
            }
        for (size_t a = 1; a < nx; a++)
            for (size_t b = a; b > 0 && xs[b - 1] > xs[b]; b--) {
                double tmp = xs[b];
                xs[b] = xs[b - 1];
                xs[b - 1] = tmp;
            }
        int columns = nx <= 60; /* one column per value, labelled with it */
        double gap = 0;
        for (size_t a = 1; a < nx; a++)
            if (gap == 0 || xs[a] - xs[a - 1] < gap)
                gap = xs[a] - xs[a - 1];
        if (gap <= 0)
            gap = 1;
        /* rows are named by the swept parameters (summary.csv) */
        char ylab[512] = "";
        for (size_t a = 0; a < naxes; a++) {
            char qn[256];
            const char *qu;
            int qnum;
            plot_param_quantity(axname[a], qn, sizeof qn, &qu, &qnum);
            size_t l = strlen(ylab);
            snprintf(ylab + l, sizeof ylab - l, "%s%s", a ? ", " : "", qn);
        }
        fputs("set ylabel ", g);
        gp_string(g, ylab[0] ? ylab : "point");
        fputs(" noenhanced\nset cblabel ", g);
        gp_wrapped(g, o->ylabel ? o->ylabel : yl, 44);
        fputs(" noenhanced\n", g);
        gp_palette(g);
        char **names = tn_xcalloc(ns, sizeof *names);
        for (size_t i = 0; i < ns; i++)
            names[i] = all[i]->name;
        gp_category_tics(g, "y", names, ns, 1);
        free(names);
        if (columns) {
            char **xl2 = tn_xcalloc(nx, sizeof *xl2);
            for (size_t a = 0; a < nx; a++) {
                char v[64];
                snprintf(v, sizeof v, "%g", xs[a]);
                xl2[a] = tn_xstrdup(v);
            }
            /* every value labelled up to 25 columns, then every k-th */
            gp_category_tics(g, "x", xl2, nx, nx > 12 ? (nx + 11) / 12 : 1);
            free_list(xl2, nx);
            fprintf(g, "set xrange [-0.5:%zu.5]\n", nx - 1);
        } else if (o->logx) {
            fputs("set logscale x\n", g);
        }
        fprintf(g, "set yrange [%zu.5:-0.5]\nunset grid\nunset key\nset cbrange [0:*]\nset ytics font ',%d'\n",
                ns - 1, ns > 16 ? 11 : 14);
        if (o->logy)
            fputs("set logscale cb\nset cbrange [*:*]\n", g);
        fputs("$map << EOD\n", g);
        for (size_t i = 0; i < ns; i++)
            for (const char *l = all[i]->data; l && *l; l = strchr(l, '\n') + 1) {
                double xv, fv;
                if (sscanf(l, "%lf %lf", &xv, &fv) != 2)
                    continue;
                size_t k = 0;
                while (k < nx && xs[k] != xv)
                    k++;
                if (columns)
                    fprintf(g, "%zu %zu %.17g\n", k, i, fv);
                else
                    fprintf(g, "%.17g %zu %.17g\n", xv, i, fv);
            }
        fprintf(g, "EOD\nplot $map using 1:2:(%.17g):(0.5):3 with boxxyerror fillstyle solid 1.0 noborder "
                   "fillcolor palette\n", columns ? 0.5 : gap / 2);
        free(xs);
    } else {
        fputs("set ylabel ", g);
        gp_string(g, o->ylabel ? o->ylabel : yl);
        fputs(" noenhanced\nset style data linespoints\nset yrange [0:*]\n", g);
        if (o->logx)
            fputs("set logscale x\n", g);
        if (o->logy)
            fputs("set logscale y\nset format y '%g'\n", g);
        if (ns > 10)
            plot_note(o, PLOT_NOTE_INFO, "%zu curves: --panels draws a small panel per point, --heatmap a row per "
                      "point", ns);
        for (size_t i = 0; i < ns; i++)
            fprintf(g, "$s%zu << EOD\n%sEOD\n", i, all[i]->data ? all[i]->data : "");
        fputs("plot ", g);
        for (size_t i = 0; i < ns; i++) {
            fprintf(g, "%s$s%zu using 1:2 pt 7 title ", i ? ", \\\n     " : "", i);
            gp_string(g, all[i]->name);
        }
        fputc('\n', g);
    }
written:
    if (gp_close(o, g, script) == 0)
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
                 {"--series", o->series}, {"--class", o->cls}, {"the input path", o->input},
                 {"--xlabel", o->xlabel}, {"--ylabel", o->ylabel}, {"--change", o->change}};
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
    if (o->panels && (o->kind != PLOT_COUNTS || o->heatmap || o->logx)) {
        plot_note(o, PLOT_NOTE_ERROR, "--panels draws a count file (--counts FILE) as small multiples%s",
                  o->kind != PLOT_COUNTS ? ""
                  : o->heatmap ? "; --heatmap is the other way to draw many points: one of the two"
                               : " on a linear x axis (histogram bars): not with --logx");
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
