#include "report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "log.h"

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
        double v;
        const char *u = cfg_axis_si_unit(base, a);
        if (u && cfg_point_si(base, point, a, &v) == 0) {
            char name[CFG_PATH_MAX];
            snprintf(name, sizeof name, "%s_%s", base->axes[a].param, u);
            fputc(',', f);
            report_json_string(f, name);
            fputc(':', f);
            json_number(f, v);
        }
    }
    fputc('}', f);
}

report_point *report_points_new(size_t npoints, const run_layout *l)
{
    report_point *pts = tn_xcalloc(npoints ? npoints : 1, sizeof *pts);
    for (size_t p = 0; p < npoints; p++) {
        pts[p].m = tn_xcalloc(l->n ? l->n : 1, sizeof *pts[p].m);
        for (size_t i = 0; i < l->n; i++)
            stats_acc_init(&pts[p].m[i]);
    }
    return pts;
}

void report_points_free(report_point *pts, size_t npoints)
{
    if (!pts)
        return;
    for (size_t p = 0; p < npoints; p++)
        free(pts[p].m);
    free(pts);
}

void report_point_add(report_point *p, const run_layout *l, const double *m)
{
    p->runs++;
    for (size_t i = 0; i < l->n; i++)
        if (!isnan(m[i]))
            stats_acc_add(&p->m[i], m[i]);
}

/* The swept quantities as numbers in SI base units, one column each,
 * "<param>_<unit>" (network.bandwidth_bps), after the metrics: pandas and R
 * read them as numbers; the column of the value as written stays. */
static void si_header(FILE *f, const cfg *base)
{
    for (size_t a = 0; a < base->naxes; a++) {
        const char *u = cfg_axis_si_unit(base, a);
        if (u) {
            char name[CFG_PATH_MAX];
            snprintf(name, sizeof name, "%s_%s", base->axes[a].param, u);
            fputc(',', f);
            report_csv_field(f, name);
        }
    }
}

static void si_cells(FILE *f, const cfg *base, size_t point)
{
    for (size_t a = 0; a < base->naxes; a++) {
        double v;
        if (!cfg_axis_si_unit(base, a))
            continue;
        if (cfg_point_si(base, point, a, &v) == 0)
            fprintf(f, ",%.17g", v);
        else
            fputc(',', f);
    }
}

void report_runs_header(FILE *f, const cfg *base, const run_layout *l)
{
    fputs("run,point,replica,seed,config_hash", f);
    for (size_t a = 0; a < base->naxes; a++) {
        fputc(',', f);
        report_csv_field(f, base->axes[a].param);
    }
    for (size_t i = 0; i < l->n; i++)
        if (metric_is_deterministic(l->col[i].name))
            fprintf(f, ",%s", l->col[i].name);
    si_header(f, base);
    fputs(",latency_csv_fnv1a64,row_fnv1a64\n", f);
}

uint64_t report_row_digest(const char *text, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a 64 */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
    return h;
}

void report_runs_row(FILE *f, const cfg *base, const run_layout *l, size_t point, uint64_t replica,
                     uint64_t config_hash, const double *m, const uint64_t *latency_digest)
{
    /* the row is written to memory first: its last cell is the digest of
     * the text before it */
    char *row = NULL;
    size_t len = 0;
    FILE *g = open_memstream(&row, &len);
    TN_ASSERT(g, "open_memstream");
    fprintf(g, "%llu,%zu,%llu,%llu,%016llx", (unsigned long long)run_id(base, point, replica),
            point, (unsigned long long)replica, (unsigned long long)base->seed,
            (unsigned long long)config_hash);
    for (size_t a = 0; a < base->naxes; a++) {
        fputc(',', g);
        report_csv_field(g, cfg_point_value(base, point, a));
    }
    for (size_t i = 0; i < l->n; i++)
        if (metric_is_deterministic(l->col[i].name)) {
            if (isnan(m[i]))
                fputc(',', g);
            else
                fprintf(g, ",%.17g", m[i]);
        }
    si_cells(g, base, point);
    if (latency_digest)
        fprintf(g, ",%016llx", (unsigned long long)*latency_digest);
    else
        fputc(',', g);
    TN_ASSERT(fclose(g) == 0, "open_memstream");
    fputs(row, f);
    fprintf(f, ",%016llx\n", (unsigned long long)report_row_digest(row, len));
    free(row);
}

void report_ci_name(double level, char *buf, size_t len)
{
    double pct = 100.0 * level;
    if (fabs(pct - round(pct)) < 1e-9)
        snprintf(buf, len, "ci%.0f", pct);
    else
        snprintf(buf, len, "ci%.6g", pct);
}

int report_summary_csv(const char *path, const cfg *base, const run_layout *l, const report_point *pts,
                       size_t npoints)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("point,replicas", f);
    for (size_t a = 0; a < base->naxes; a++) {
        fputc(',', f);
        report_csv_field(f, base->axes[a].param);
    }
    char ci[32];
    report_ci_name(base->confidence, ci, sizeof ci);
    /* a metric some point averages over fewer runs than it has (a
     * dc-flows run that finished no flow has no fct): its count too */
    unsigned char *partial = tn_xcalloc(l->n ? l->n : 1, 1);
    for (size_t i = 0; i < l->n; i++)
        for (size_t p = 0; p < npoints && !partial[i]; p++)
            partial[i] = pts[p].m[i].n > 0 && pts[p].m[i].n < pts[p].runs;
    for (size_t i = 0; i < l->n; i++)
        if (metric_is_deterministic(l->col[i].name)) {
            fprintf(f, ",%s_mean,%s_%s", l->col[i].name, l->col[i].name, ci);
            if (partial[i])
                fprintf(f, ",%s_replicas", l->col[i].name);
        }
    si_header(f, base);
    fputc('\n', f);
    for (size_t p = 0; p < npoints; p++) {
        fprintf(f, "%zu,%llu", p, (unsigned long long)pts[p].runs);
        for (size_t a = 0; a < base->naxes; a++) {
            fputc(',', f);
            report_csv_field(f, cfg_point_value(base, p, a));
        }
        /* a point with no finished run (an incomplete merge or --runs
         * subset), or a metric none of its runs measured, has no value:
         * empty cells, not zeros */
        for (size_t i = 0; i < l->n; i++)
            if (metric_is_deterministic(l->col[i].name)) {
                /* one value has no interval: an empty cell, not 0 */
                if (pts[p].m[i].n >= 2)
                    fprintf(f, ",%.17g,%.17g", stats_acc_mean(&pts[p].m[i]),
                            stats_acc_ci(&pts[p].m[i], base->confidence));
                else if (pts[p].m[i].n)
                    fprintf(f, ",%.17g,", stats_acc_mean(&pts[p].m[i]));
                else
                    fputs(",,", f);
                if (partial[i])
                    fprintf(f, ",%llu", (unsigned long long)pts[p].m[i].n);
            }
        si_cells(f, base, p);
        fputc('\n', f);
    }
    free(partial);
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

void report_summary_json(FILE *f, const cfg *base, const run_layout *l, const report_point *pts, size_t npoints)
{
    char ci[32];
    report_ci_name(base->confidence, ci, sizeof ci);
    fputs("{\"points\":[", f);
    for (size_t p = 0; p < npoints; p++) {
        fputs(p ? ",\n{" : "\n{", f);
        fputs("\"params\":", f);
        params_json(f, base, p);
        fprintf(f, ",\"replicas\":%llu,\"metrics\":{", (unsigned long long)pts[p].runs);
        for (size_t i = 0; i < l->n; i++) {
            int any = pts[p].m[i].n > 0; /* nothing measured: null, not 0 */
            fprintf(f, "%s\"%s\":{\"mean\":", i ? "," : "", l->col[i].name);
            json_number(f, any ? stats_acc_mean(&pts[p].m[i]) : NAN);
            fprintf(f, ",\"%s\":", ci);
            json_number(f, pts[p].m[i].n >= 2 ? stats_acc_ci(&pts[p].m[i], base->confidence) : NAN);
            if (any && pts[p].m[i].n < pts[p].runs) /* averaged over fewer runs than the point has */
                fprintf(f, ",\"replicas\":%llu", (unsigned long long)pts[p].m[i].n);
            fputc('}', f);
        }
        fputs("}}", f);
    }
    fputs("\n]}\n", f);
}

/* The point's fabric's uniform-random saturation throughput, a fraction of
 * B per node, or NAN if the fabric derives none (net_ops.uniform_bound). */
static double point_bound(const cfg *pc)
{
    const net_ops *nops = cfg_net(pc);
    if (!nops || !nops->uniform_bound)
        return NAN;
    net_params core = pc->net;
    core.nodes = pc->nodes;
    return net_uniform_bound(nops, &core, cfg_net_params(pc));
}

void report_analyze_json(FILE *f, const cfg *base, size_t point, const cfg *pc, const run_info *info,
                         const wl_analysis *a)
{
    fputs("{\"params\":", f);
    params_json(f, base, point);
    fprintf(f, ",\"nodes\":%u", pc->nodes);
    fputs(",\"bandwidth_bps\":", f);
    json_number(f, pc->net.bandwidth_bps);
    for (size_t i = 0; i < a->n; i++) {
        fprintf(f, ",\"%s\":", a->kv[i].key);
        json_number(f, a->kv[i].value);
    }
    double bound = point_bound(pc);
    if (!isnan(bound)) {
        fputs(",\"saturation_bound\":", f);
        json_number(f, bound);
    }
    fputs(",\"bit_error_rate\":", f);
    json_number(f, info->has_phy ? info->phy.bit_error_rate : NAN);
    fputs(",\"energy_per_bit_j\":", f);
    json_number(f, info->has_phy ? info->phy.energy_per_bit_j : NAN);
    run_estimate e;
    run_estimate_point(pc, &e);
    fputs(",\"run_memory_bytes\":", f);
    json_number(f, e.mem_bytes);
    fputs(",\"run_messages\":", f);
    json_number(f, e.messages > 0 ? e.messages : NAN);
    fputs(",\"run_horizon_s\":", f);
    json_number(f, e.horizon_s > 0 ? e.horizon_s : NAN);
    /* each workload's share of the estimate */
    fputs(",\"workloads\":[", f);
    for (size_t k = 0; k < e.nwl; k++) {
        fputs(k ? ",{\"name\":" : "{\"name\":", f);
        report_json_string(f, pc->wl[k].name);
        fputs(",\"type\":", f);
        report_json_string(f, pc->wl[k].type);
        fprintf(f, ",\"ranks\":%u,\"memory_bytes\":", e.wl[k].ranks);
        json_number(f, e.wl[k].mem_bytes);
        fputs(",\"messages\":", f);
        json_number(f, e.wl[k].messages > 0 ? e.wl[k].messages : NAN);
        fputs(",\"horizon_s\":", f);
        json_number(f, e.wl[k].horizon_s > 0 ? e.wl[k].horizon_s : NAN);
        fputc('}', f);
    }
    fputs("]}", f);
}

void report_analyze_text(FILE *f, const cfg *base, size_t point, const cfg *pc, const run_info *info,
                         const wl_analysis *a)
{
    if (base->naxes) {
        fprintf(f, "point %zu:", point);
        for (size_t k = 0; k < base->naxes; k++)
            fprintf(f, " %s=%s", base->axes[k].param, cfg_point_value(base, point, k));
        fputc('\n', f);
    }
    fputs(a->text, f);
    fprintf(f, "  system    N=%u  B=%.6g Gb/s  ", pc->nodes, pc->net.bandwidth_bps / 1e9);
    for (size_t k = 0; k < pc->nwl; k++)
        fprintf(f, "%s%s", k ? " + " : "", pc->wl[k].type);
    fprintf(f, " over %s\n", pc->net_type);
    double bound = point_bound(pc);
    if (!isnan(bound))
        fprintf(f, "  fabric    uniform-random saturation throughput %.4g of B per node\n", bound);
    if (info->has_phy)
        fprintf(f, "  phy       path BER=%.3g  energy=%.4g pJ/bit\n", info->phy.bit_error_rate,
                info->phy.energy_per_bit_j * 1e12);
    run_estimate e;
    run_estimate_point(pc, &e);
    char mem[32];
    run_format_bytes(e.mem_bytes, mem, sizeof mem);
    fprintf(f, "  a run     ~%s of memory", mem);
    if (e.messages > 0)
        fprintf(f, ", ~%.3g messages", e.messages);
    if (e.horizon_s > 0)
        fprintf(f, ", ~%.3g s simulated", e.horizon_s);
    fputs(" (estimates)\n", f);
    /* with several workloads, each one's share (the run lasts as the longest) */
    for (size_t k = 0; e.nwl > 1 && k < e.nwl; k++) {
        run_format_bytes(e.wl[k].mem_bytes, mem, sizeof mem);
        fprintf(f, "  workload  %s (%s, %u ranks): ~%s of memory", pc->wl[k].name[0] ? pc->wl[k].name : "-",
                pc->wl[k].type, e.wl[k].ranks, mem);
        if (e.wl[k].messages > 0)
            fprintf(f, ", ~%.3g messages", e.wl[k].messages);
        if (e.wl[k].horizon_s > 0)
            fprintf(f, ", ~%.3g s simulated", e.wl[k].horizon_s);
        fputc('\n', f);
    }
}

void report_latency_path(char *buf, size_t len, const char *dir, uint64_t id)
{
    snprintf(buf, len, "%s/latency/run-%llu.csv", dir, (unsigned long long)id);
}
