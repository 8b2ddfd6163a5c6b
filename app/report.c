#include "report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void report_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

void report_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* JSON has no NaN/inf: write null for them. */
static void json_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
    else
        fputs("null", f);
}

static void params_json(FILE *f, const cfg *base, size_t point)
{
    fputc('{', f);
    for (size_t a = 0; a < base->naxes; a++) {
        if (a)
            fputc(',', f);
        report_json_string(f, base->axes[a].param);
        fputc(':', f);
        report_json_string(f, cfg_point_value(base, point, a));
    }
    fputc('}', f);
}

void report_runs_header(FILE *f, const cfg *base)
{
    fputs("run,point,replica,seed,config_hash", f);
    for (size_t a = 0; a < base->naxes; a++) {
        fputc(',', f);
        report_csv_field(f, base->axes[a].param);
    }
    for (int i = 0; i < METRIC_COUNT; i++)
        if (metric_is_deterministic(i))
            fprintf(f, ",%s", metric_names[i]);
    fputc('\n', f);
}

void report_runs_row(FILE *f, const cfg *base, size_t point, uint64_t replica, uint64_t config_hash,
                     const double *m)
{
    fprintf(f, "%llu,%zu,%llu,%llu,%016llx", (unsigned long long)(point * base->replicas + replica),
            point, (unsigned long long)replica, (unsigned long long)base->seed,
            (unsigned long long)config_hash);
    for (size_t a = 0; a < base->naxes; a++) {
        fputc(',', f);
        report_csv_field(f, cfg_point_value(base, point, a));
    }
    for (int i = 0; i < METRIC_COUNT; i++)
        if (metric_is_deterministic(i))
            fprintf(f, ",%.17g", m[i]);
    fputc('\n', f);
}

int report_summary_csv(const char *path, const cfg *base, const report_point *pts, size_t npoints)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("point,replicas", f);
    for (size_t a = 0; a < base->naxes; a++) {
        fputc(',', f);
        report_csv_field(f, base->axes[a].param);
    }
    for (int i = 0; i < METRIC_COUNT; i++)
        if (metric_is_deterministic(i))
            fprintf(f, ",%s_mean,%s_ci95", metric_names[i], metric_names[i]);
    fputc('\n', f);
    for (size_t p = 0; p < npoints; p++) {
        fprintf(f, "%zu,%llu", p, (unsigned long long)pts[p].m[0].n);
        for (size_t a = 0; a < base->naxes; a++) {
            fputc(',', f);
            report_csv_field(f, cfg_point_value(base, p, a));
        }
        /* a point with no finished run (an incomplete merge or --runs
         * subset) has no values: empty cells, not zeros */
        for (int i = 0; i < METRIC_COUNT; i++)
            if (metric_is_deterministic(i)) {
                if (pts[p].m[0].n)
                    fprintf(f, ",%.17g,%.17g", stats_acc_mean(&pts[p].m[i]), stats_acc_ci95(&pts[p].m[i]));
                else
                    fputs(",,", f);
            }
        fputc('\n', f);
    }
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

void report_summary_json(FILE *f, const cfg *base, const report_point *pts, size_t npoints)
{
    fputs("{\"points\":[", f);
    for (size_t p = 0; p < npoints; p++) {
        fputs(p ? ",\n{" : "\n{", f);
        fputs("\"params\":", f);
        params_json(f, base, p);
        fprintf(f, ",\"replicas\":%llu,\"metrics\":{", (unsigned long long)pts[p].m[0].n);
        for (int i = 0; i < METRIC_COUNT; i++) {
            int any = pts[p].m[0].n > 0; /* no run: null, not 0 */
            fprintf(f, "%s\"%s\":{\"mean\":", i ? "," : "", metric_names[i]);
            json_number(f, any ? stats_acc_mean(&pts[p].m[i]) : NAN);
            fputs(",\"ci95\":", f);
            json_number(f, any ? stats_acc_ci95(&pts[p].m[i]) : NAN);
            fputc('}', f);
        }
        fputs("}}", f);
    }
    fputs("\n]}\n", f);
}

void report_analyze_json(FILE *f, const cfg *base, size_t point, const cfg *pc, const footprint *fp,
                         const load_bounds *lb)
{
    fputs("{\"params\":", f);
    params_json(f, base, point);
    fprintf(f, ",\"nodes\":%u", pc->nodes);
    fputs(",\"bandwidth_bps\":", f);
    json_number(f, pc->net.bandwidth_bps);
    struct {
        const char *k;
        double v;
    } kv[] = {
        {"n", fp->n},
        {"leaves", fp->leaves},
        {"delegating", fp->delegating},
        {"depth", fp->depth},
        {"F_x_s", fp->F_x_s},
        {"F_c_bytes", fp->F_c_bytes},
        {"F_bps", fp->F_bps},
        {"beta_per_s", lb->beta_per_s},
        {"rho_x", lb->rho_x},
        {"rho_c", lb->rho_c},
        {"zeta", lb->zeta},
        {"speedup_bound", fp->speedup_bound},
        {"bit_error_rate", pc->net.bit_error_rate},
        {"energy_per_bit_j", pc->net.energy_per_bit_j},
    };
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        fprintf(f, ",\"%s\":", kv[i].k);
        json_number(f, kv[i].v);
    }
    fprintf(f, ",\"mc_samples\":%llu,\"exact\":%s}", (unsigned long long)fp->samples,
            fp->samples ? "false" : "true");
}

void report_analyze_text(FILE *f, const cfg *base, size_t point, const cfg *pc, const footprint *fp,
                         const load_bounds *lb)
{
    if (base->naxes) {
        fprintf(f, "point %zu:", point);
        for (size_t a = 0; a < base->naxes; a++)
            fprintf(f, " %s=%s", base->axes[a].param, cfg_point_value(base, point, a));
        fputc('\n', f);
    }
    const char *how = fp->samples ? "Monte Carlo" : "exact";
    fprintf(f, "  tree      n=%.6g  leaves L=%.6g  delegating d=%.6g  depth D=%.6g  (%s",
            fp->n, fp->leaves, fp->delegating, fp->depth, how);
    if (fp->samples)
        fprintf(f, ", %llu trees", (unsigned long long)fp->samples);
    fputs(")\n", f);
    fprintf(f, "  footprint F_x=%.6g us  F_c=%.6g kB  F=%.6g Gb/s  speedup bound n/D=%.6g\n",
            fp->F_x_s * 1e6, fp->F_c_bytes / 1e3, fp->F_bps / 1e9, fp->speedup_bound);
    fprintf(f, "  system    N=%u  B=%.6g Gb/s  beta=%.6g /s\n", pc->nodes,
            pc->net.bandwidth_bps / 1e9, lb->beta_per_s);
    fprintf(f, "  loads     rho_x=%.6g  rho_c=%.6g  zeta=%.6g\n", lb->rho_x, lb->rho_c, lb->zeta);
    if (pc->net.energy_per_bit_j > 0 || pc->net.bit_error_rate > 0)
        fprintf(f, "  phy       path BER=%.3g  energy=%.4g pJ/bit\n", pc->net.bit_error_rate,
                pc->net.energy_per_bit_j * 1e12);
}

void report_latency_path(char *buf, size_t len, const char *dir, uint64_t run_id)
{
    snprintf(buf, len, "%s/latency/run-%llu.csv", dir, (unsigned long long)run_id);
}
