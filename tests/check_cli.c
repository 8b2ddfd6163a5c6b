/* End-to-end tests of the `tasknet` program: help, analyze against the
 * paper's printed numbers, validation errors, params, reproducible runs. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli_helpers.h"

START_TEST(test_help_and_version)
{
    int st;
    char *out = run_tasknet("--help", &st);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "Usage: tasknet COMMAND"));
    ck_assert_ptr_nonnull(strstr(out, "analyze"));
    free(out);
    out = run_tasknet("help run", &st);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "--out DIR"));
    free(out);
    out = run_tasknet("--version", &st);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "tasknet "));
    free(out);
    out = run_tasknet("frobnicate", &st);
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(out, "unknown command 'frobnicate'"));
    free(out);
    out = run_tasknet("run", &st);
    ck_assert_int_eq(st, 2);
    ck_assert_ptr_nonnull(strstr(out, "missing CONFIG.xml"));
    free(out);
}
END_TEST

/* Paper section 4.1: z=[4,3] gives n=17, L=12, d=5, F_x=340us, F_c=660.92kB,
 * F=15.55Gb/s; D=3 so the bound is 17/3. */
START_TEST(test_analyze_fig6)
{
    int st;
    char *out = run_tasknet("analyze configs/paper/fig6.xml --json", &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_double_eq(json_num(out, "n", 0), 17);
    ck_assert_double_eq(json_num(out, "leaves", 0), 12);
    ck_assert_double_eq(json_num(out, "delegating", 0), 5);
    ck_assert_double_eq(json_num(out, "depth", 0), 3);
    ck_assert_double_eq_tol(json_num(out, "F_x_s", 0), 340e-6, 1e-15);
    ck_assert_double_eq_tol(json_num(out, "F_c_bytes", 0), 660920, 1e-6);
    /* 660920 B * 8 / 340 us = 15.5510588 Gb/s */
    ck_assert_double_eq_tol(json_num(out, "F_bps", 0), 15.55e9, 0.01e9);
    ck_assert_double_eq_tol(json_num(out, "speedup_bound", 0), 17.0 / 3.0, 1e-12);
    ck_assert_double_eq(json_num(out, "mc_samples", 0), 0);
    free(out);
}
END_TEST

/* beta = rho_x (N-1) / F_x = 0.1 * 99 / 340us = 29117.6 /s (paper: 29117). */
START_TEST(test_analyze_beta_from_load)
{
    int st;
    char *out = run_tasknet("analyze configs/paper/fig6.xml --json --set system.nodes=100 "
                            "--set workload.load=0.1 --set network.bandwidth=10Gb/s",
                            &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_double_eq_tol(json_num(out, "beta_per_s", 0), 29117, 1.0);
    ck_assert_double_eq_tol(json_num(out, "rho_x", 0), 0.1, 1e-12);
    free(out);
}
END_TEST

/* Paper 4.2: F_x = 100 * (51us + 51us) = 10.2 ms; rho_x = 5000 * 10.2ms / (N-1):
 * 1.0408 at N=50, 0.051051 at N=1000. */
START_TEST(test_analyze_fig9)
{
    int st;
    char *out = run_tasknet("analyze configs/paper/fig9.xml --json --samples 2000", &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "\"system.nodes\":\"50\""));
    ck_assert_double_eq_tol(json_num(out, "F_x_s", 0), 10.2e-3, 1e-9);
    ck_assert_double_eq_tol(json_num(out, "rho_x", 0), 5000 * 10.2e-3 / 49, 1e-6);
    /* points: N in {50,100,200,500,1000} x B in {1,10,100}: N=1000 starts at point 12 */
    ck_assert_double_eq_tol(json_num(out, "rho_x", 12), 5000 * 10.2e-3 / 999, 1e-7);
    ck_assert_double_eq(json_num(out, "mc_samples", 0), 2000);
    free(out);
}
END_TEST

START_TEST(test_validate_reports_location)
{
    char dir[] = "/tmp/tasknet-cli-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/bad.xml", dir);
    FILE *f = fopen(path, "w");
    fputs("<tasknet version=\"1\">\n"
          "  <system nodes=\"8\"/>\n"
          "  <network type=\"electrical-switch\" bandwidth=\"40\"/>\n"
          "</tasknet>\n",
          f);
    fclose(f);
    char args[600];
    snprintf(args, sizeof args, "validate %s", path);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    /* line 3, the bandwidth attribute starts at column 40 */
    ck_assert_msg(strstr(out, "bad.xml:3:") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "missing unit") != NULL, "%s", out);
    free(out);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(test_validate_good)
{
    int st;
    char *out = run_tasknet("validate configs/paper/fig9.xml", &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "valid (15 points x 5 replicas)"));
    free(out);
}
END_TEST

START_TEST(test_params_lists_every_path)
{
    int st;
    char *out = run_tasknet("params", &st);
    ck_assert_int_eq(st, 0);
    const char *paths[] = {"system.nodes", "network.bandwidth", "network.zeta",
                           "network.switch-latency", "network.link-latency", "workload.jobs",
                           "workload.arrival-rate", "workload.load", "workload.control-size",
                           "workload.tree.generator", "workload.tree.z", "workload.tree.vertices",
                           "workload.tree.shape", "workload.task.init-time",
                           "workload.task.aggregation-time", "workload.task.send-size",
                           "workload.task.result-size", "run.replicas", "run.seed"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        ck_assert_msg(strstr(out, paths[i]) != NULL, "params lacks %s", paths[i]);
    free(out);
}
END_TEST

/* Same seed, same files: runs.csv and summary.csv byte for byte. */
START_TEST(test_run_reproducible)
{
    char dir[] = "/tmp/tasknet-run-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char args[1024], p1[600], p2[600];
    int st;
    for (int i = 0; i < 2; i++) {
        snprintf(args, sizeof args,
                 "run configs/examples/quickstart.xml -q --set workload.jobs=50 --out %s/r%d", dir,
                 i);
        char *out = run_tasknet(args, &st);
        ck_assert_msg(st == 0, "%s", out);
        free(out);
    }
    snprintf(p1, sizeof p1, "%s/r0/runs.csv", dir);
    snprintf(p2, sizeof p2, "%s/r1/runs.csv", dir);
    char *a = slurp(p1), *b = slurp(p2);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, "jobs_completed"));
    free(a);
    free(b);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(args), 0);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_help_and_version);
    tcase_add_test(tc, test_analyze_fig6);
    tcase_add_test(tc, test_analyze_beta_from_load);
    tcase_add_test(tc, test_analyze_fig9);
    tcase_add_test(tc, test_validate_reports_location);
    tcase_add_test(tc, test_validate_good);
    tcase_add_test(tc, test_params_lists_every_path);
    tcase_add_test(tc, test_run_reproducible);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cli_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
