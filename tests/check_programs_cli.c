/* The kernel and pattern workloads end to end, through `tasknet run`: the
 * numbers of runs.csv (K4 by hand), same seed same runs.csv whatever -j,
 * the pattern workload's own files in the result folder (wl_ops.write_files
 * seam: congestion_runs/hist/links.csv) for K9 on SPINet by hand (P1's
 * histogram end to end), through -j, shards and merge, run.confidence and
 * its column names (a change resumes the folder), and `tasknet plot
 * --counts`. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "harness.h"

static char root[] = "/tmp/tasknet-programs-XXXXXX";

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static char *run_ok(const char *args)
{
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "tasknet %s: status %d\n%s", args, st, out);
    return out;
}

/* Column `name` of a CSV header line (0-based); fails if absent. */
static size_t col_of(const char *csv, const char *name)
{
    size_t k = 0, len = strlen(name);
    for (const char *p = csv; *p && *p != '\n'; k++) {
        const char *e = p + strcspn(p, ",\n");
        if ((size_t)(e - p) == len && strncmp(p, name, len) == 0)
            return k;
        p = *e == ',' ? e + 1 : e;
    }
    ck_abort_msg("no column %s in %.200s", name, csv);
    return 0;
}

/* Field k of the row-th data line (0-based) as a number. */
static double cell(const char *csv, size_t row, size_t k)
{
    const char *p = strchr(csv, '\n');
    for (size_t r = 0; p && r < row; r++)
        p = strchr(p + 1, '\n');
    ck_assert_ptr_nonnull(p);
    p++;
    for (size_t i = 0; i < k; i++) {
        p += strcspn(p, ",\n");
        ck_assert_int_eq(*p, ',');
        p++;
    }
    return strtod(p, NULL);
}

static char *read_in(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *t = slurp(path);
    ck_assert_msg(t != NULL, "%s not written", path);
    return t;
}

/* K4 (check_kernels.c): A2A linear, T = 4, switch: 4240 ns, bound 2640 ns,
 * slowdown 4240/2640; shifted: 2640 ns, slowdown 1. One row per point. */
START_TEST(test_kernel_run)
{
    char cfg[600], args[1400];
    snprintf(cfg, sizeof cfg, "%s/k4.xml", root);
    write_text(cfg, "<tasknet version=\"1\">\n"
                    "  <system nodes=\"4\"/>\n"
                    "  <network type=\"electrical-switch\" bandwidth=\"10Gb/s\"/>\n"
                    "  <workload type=\"kernel\" kernel=\"all-to-all\" message-size=\"1kB\"/>\n"
                    "  <sweep><axis param=\"workload.order\" values=\"linear shifted\"/></sweep>\n"
                    "</tasknet>\n");
    snprintf(args, sizeof args, "run %s -q --out %s/k4", cfg, root);
    free(run_ok(args));
    char dir[600];
    snprintf(dir, sizeof dir, "%s/k4", root);
    char *runs = read_in(dir, "runs.csv");
    size_t t = col_of(runs, "kernel_time_s"), lb = col_of(runs, "kernel_time_lb_s"),
           sd = col_of(runs, "kernel_slowdown");
    ck_assert_double_eq(cell(runs, 0, t), 4240000 * 1e-12);
    ck_assert_double_eq(cell(runs, 0, lb), 2640000 * 1e-12);
    ck_assert_double_eq_tol(cell(runs, 0, sd), 4240.0 / 2640.0, 1e-15);
    ck_assert_double_eq(cell(runs, 1, t), 2640000 * 1e-12);
    ck_assert_double_eq(cell(runs, 1, sd), 1.0);
    free(runs);
    /* the kernel workload writes no files of its own */
    snprintf(args, sizeof args, "%s/k4/congestion_hist.csv", root);
    ck_assert_int_ne(access(args, F_OK), 0);
}
END_TEST

/* Same seed, same runs.csv, byte for byte, with one process or two:
 * random kernels and patterns with random mappings on SPINet. */
START_TEST(test_same_seed_same_runs)
{
    char cfg[600], args[1400];
    snprintf(cfg, sizeof cfg, "%s/mix.xml", root);
    write_text(cfg, "<tasknet version=\"1\">\n"
                    "  <system nodes=\"16\"/>\n"
                    "  <network type=\"spinet\" bandwidth=\"10Gb/s\"/>\n"
                    "  <workload type=\"kernel\" kernel=\"sync-random\" message-size=\"uniform(100B,2kB)\"\n"
                    "            total-messages=\"300\" wave=\"10\" mapping=\"random\" pattern=\"bruck\" tasks=\"12\"/>\n"
                    "  <run replicas=\"3\" seed=\"7\"/>\n"
                    "  <sweep><axis param=\"workload.type\" values=\"kernel pattern\"/></sweep>\n"
                    "</tasknet>\n");
    snprintf(args, sizeof args, "run %s -q -j 1 --out %s/mix1", cfg, root);
    free(run_ok(args));
    snprintf(args, sizeof args, "run %s -q -j 2 --out %s/mix2", cfg, root);
    free(run_ok(args));
    char d1[600], d2[600];
    snprintf(d1, sizeof d1, "%s/mix1", root);
    snprintf(d2, sizeof d2, "%s/mix2", root);
    char *a = read_in(d1, "runs.csv"), *b = read_in(d2, "runs.csv");
    ck_assert_str_eq(a, b);
    /* six runs: the kernel's and the pattern's metrics side by side */
    size_t t = col_of(a, "kernel_time_s"), bw = col_of(a, "bw_fraction");
    for (size_t r = 0; r < 6; r++)
        ck_assert(cell(a, r, t) > 0);
    ck_assert(cell(a, 3, bw) > 0 && cell(a, 3, bw) <= 1);
    free(a);
    free(b);
    a = read_in(d1, "congestion_runs.csv");
    b = read_in(d2, "congestion_runs.csv");
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

/* K9 on SPINet, N = C = 4, identity, timing off (derived in
 * check_congestion.c), 3 replicas: every run gives sum_max_cong 3, bw 0.75,
 * cong_max 2, cong_mean 1.5, dep_max_delay 3; pooled over the 3 runs
 * the histogram {1: 12, 2: 12}, whose BW is P1's 0.75; link loads 3 x
 * {2 on in(k) and ej(d), 1, 3, 1, 3 on the four outputs of stage 0}:
 * 6, 3 and 9, scaled by 9. The same from shards merged, and from -j 2. */
static const char k9_cfg[] = "<tasknet version=\"1\">\n"
                             "  <system nodes=\"4\"/>\n"
                             "  <network type=\"spinet\" bandwidth=\"40Gb/s\" extra-stages=\"0\"/>\n"
                             "  <workload type=\"pattern\" pattern=\"bruck\" message-size=\"1kB\" mapping=\"identity\"\n"
                             "            timing=\"off\"/>\n"
                             "  <run replicas=\"3\" seed=\"1\" confidence=\"0.99\"/>\n"
                             "</tasknet>\n";

static void assert_k9_files(const char *dir)
{
    char *hist = read_in(dir, "congestion_hist.csv");
    ck_assert_str_eq(hist, "point,weight,flows,fraction,bw_fraction_pooled\n"
                           "0,1,12,0.5,0.75\n"
                           "0,2,12,0.5,0.75\n");
    free(hist);
    char *runs = read_in(dir, "congestion_runs.csv");
    ck_assert_str_eq(runs, "point,replica,seed,sum_max_cong,bw_fraction,cong_max,cong_mean,dep_max_delay\n"
                           "0,0,1,3,0.75,2,1.5,3\n"
                           "0,1,1,3,0.75,2,1.5,3\n"
                           "0,2,1,3,0.75,2,1.5,3\n");
    free(runs);
    char *links = read_in(dir, "congestion_links.csv");
    static const int load[12] = {6, 6, 6, 6, 6, 6, 6, 6, 3, 9, 3, 9};
    const char *p = strchr(links, '\n') + 1;
    for (int e = 0; e < 12; e++) {
        char want[128];
        snprintf(want, sizeof want, "0,%d,%d,%.17g\n", e, load[e], load[e] / 9.0);
        ck_assert_msg(strncmp(p, want, strlen(want)) == 0, "link %d: %.60s, want %s", e, p, want);
        p += strlen(want);
    }
    ck_assert_str_eq(p, "");
    free(links);
}

START_TEST(test_pattern_files)
{
    char cfg[600], args[1400], dir[600];
    snprintf(cfg, sizeof cfg, "%s/k9.xml", root);
    write_text(cfg, k9_cfg);
    snprintf(dir, sizeof dir, "%s/k9", root);
    snprintf(args, sizeof args, "run %s -q --out %s", cfg, dir);
    free(run_ok(args));
    assert_k9_files(dir);
    /* the run's own row has the same scalars, no time (nothing simulated) */
    char *runs = read_in(dir, "runs.csv");
    ck_assert_double_eq(cell(runs, 2, col_of(runs, "bw_fraction")), 0.75);
    ck_assert_double_eq(cell(runs, 2, col_of(runs, "events")), 0);
    free(runs);

    snprintf(dir, sizeof dir, "%s/k9j", root);
    snprintf(args, sizeof args, "run %s -q -j 2 --out %s", cfg, dir);
    free(run_ok(args));
    assert_k9_files(dir);

    snprintf(args, sizeof args, "run %s -q --shard 1/2 --out %s/k9a", cfg, root);
    free(run_ok(args));
    snprintf(args, sizeof args, "run %s -q --shard 2/2 --out %s/k9b", cfg, root);
    free(run_ok(args));
    snprintf(args, sizeof args, "merge %s/k9m %s/k9a %s/k9b", root, root, root);
    free(run_ok(args));
    snprintf(dir, sizeof dir, "%s/k9m", root);
    assert_k9_files(dir);
}
END_TEST

/* run.confidence = 0.99: summary.csv's columns are <metric>_ci99 with the
 * Student half-width at 0.995 (3 equal runs: 0). Setting 0.95 on the same
 * folder changes no fingerprint: every run is reused, and the summary is
 * rewritten with _ci95. */
START_TEST(test_confidence)
{
    char cfg[600], args[1400], dir[600];
    snprintf(cfg, sizeof cfg, "%s/conf.xml", root);
    write_text(cfg, k9_cfg);
    snprintf(dir, sizeof dir, "%s/conf", root);
    snprintf(args, sizeof args, "run %s -q --out %s", cfg, dir);
    free(run_ok(args));
    char *sum = read_in(dir, "summary.csv");
    ck_assert_double_eq(cell(sum, 0, col_of(sum, "bw_fraction_mean")), 0.75);
    ck_assert_double_eq(cell(sum, 0, col_of(sum, "bw_fraction_ci99")), 0);
    ck_assert_ptr_null(strstr(sum, "_ci95"));
    free(sum);
    snprintf(args, sizeof args, "run %s --set run.confidence=0.95 --out %s", cfg, dir);
    char *out = run_ok(args);
    ck_assert_msg(strstr(out, "3 runs already done") != NULL, "%s", out);
    free(out);
    sum = read_in(dir, "summary.csv");
    ck_assert_double_eq(cell(sum, 0, col_of(sum, "bw_fraction_ci95")), 0);
    ck_assert_ptr_null(strstr(sum, "_ci99"));
    free(sum);
    /* out of (0, 1): refused at the attribute */
    int st;
    snprintf(args, sizeof args, "validate %s --set run.confidence=1", cfg);
    out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "must be between 0 and 1") != NULL, "%s", out);
    free(out);
}
END_TEST

/* plot --counts: the script holds, per point, weight and fraction of the
 * flows (K9: 1 -> 0.5, 2 -> 0.5), whether or not gnuplot is installed. */
START_TEST(test_plot_counts)
{
    char cfg[600], args[1400], dir[600];
    snprintf(cfg, sizeof cfg, "%s/pl.xml", root);
    write_text(cfg, k9_cfg);
    snprintf(dir, sizeof dir, "%s/pl", root);
    snprintf(args, sizeof args, "run %s -q --out %s", cfg, dir);
    free(run_ok(args));
    int st;
    snprintf(args, sizeof args, "plot %s --counts congestion_hist", dir);
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 || strstr(out, "gnuplot is not installed"), "%s", out);
    free(out);
    char *gp = read_in(dir, "congestion_hist.png.gp");
    ck_assert_msg(strstr(gp, "$s0 << EOD\n1 0.5\n2 0.5\nEOD\n") != NULL, "%s", gp);
    ck_assert_msg(strstr(gp, "set ylabel 'fraction of flows'") != NULL, "%s", gp);
    free(gp);
    /* not a count file */
    snprintf(args, sizeof args, "plot %s --counts timing", dir);
    out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "is not a count file") != NULL, "%s", out);
    free(out);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("programs_cli");
    TCase *tc = tcase_create("run");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kernel_run);
    tcase_add_test(tc, test_same_seed_same_runs);
    tcase_add_test(tc, test_pattern_files);
    tcase_add_test(tc, test_confidence);
    tcase_add_test(tc, test_plot_counts);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    int status = th_main(suite());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return status;
}
