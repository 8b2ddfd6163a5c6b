/* End-to-end tests of the `tasknet` program: help, analyze against the
 * paper's printed numbers, validation errors, params, reproducible runs,
 * sweeps spread over processes, shards, MPI ranks and interruptions, and
 * the figure 7 timeline. */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "harness.h"

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
    /* every command the main help lists ("  NAME ..." under "Commands:")
     * answers --help with its usage, as `help NAME` does (metrics printed
     * its whole listing, `help help` was "no help for 'help'"), and refuses
     * an argument it does not take */
    char *main_help = run_tasknet("--help", &st);
    char *cmds = strstr(main_help, "\nCommands:\n");
    ck_assert_ptr_nonnull(cmds);
    int ncmd = 0;
    for (char *line = strtok(cmds + 11, "\n"); line && strncmp(line, "  ", 2) == 0; line = strtok(NULL, "\n")) {
        char name[64];
        if (line[2] == ' ' || sscanf(line + 2, "%63s", name) != 1)
            continue; /* a description's second line */
        char args[128], want[128];
        snprintf(args, sizeof args, "%s --help", name);
        char *a = run_tasknet(args, &st);
        ck_assert_msg(st == 0, "tasknet %s: status %d\n%s", args, st, a);
        snprintf(want, sizeof want, "Usage: tasknet %s", name);
        ck_assert_msg(strncmp(a, want, strlen(want)) == 0, "tasknet %s:\n%s", args, a);
        snprintf(args, sizeof args, "help %s", name);
        char *b = run_tasknet(args, &st);
        ck_assert_msg(st == 0 && strcmp(a, b) == 0, "tasknet %s --help and help %s differ:\n%s\n%s", name, name, a, b);
        free(a), free(b);
        ncmd++;
    }
    free(main_help);
    ck_assert_int_eq(ncmd, 10); /* run analyze validate merge export-topology import-ib plot params metrics help */
    out = run_tasknet("metrics extra", &st);
    ck_assert_msg(st == 2 && strstr(out, "tasknet metrics: unknown argument 'extra'"), "status %d\n%s", st, out);
    free(out);
}
END_TEST

/* Output that cannot be written is an error: every command writing to a
 * full device (/dev/full takes nothing) exits 1 and says so on stderr,
 * instead of a silent 0. */
START_TEST(test_stdout_write_errors)
{
    static const char *const cmds[] = {
        "run configs/examples/quickstart.xml --json -q --set workload.jobs=5",
        "run configs/examples/quickstart.xml --set workload.jobs=5",
        "run configs/examples/quickstart.xml --list-runs",
        "params", "params --rng", "metrics", "--help", "help run", "run --help", "--version",
        "analyze configs/paper/fig6.xml", "validate configs/paper/fig6.xml",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char frag[512];
        snprintf(frag, sizeof frag, "\"$TASKNET\" %s 2>&1 >/dev/full; echo \"status $?\"", cmds[i]);
        int st;
        char *out = run_sh(frag, &st);
        ck_assert_msg(strstr(out, "tasknet: error writing standard output") != NULL,
                      "tasknet %s > /dev/full: %s", cmds[i], out);
        ck_assert_msg(strstr(out, "status 1\n") != NULL, "tasknet %s > /dev/full: %s", cmds[i], out);
        free(out);
    }
}
END_TEST

/* Docs that teach (issue 13, item 12): `run --help` explains zipped axes
 * and <value> children and lists every short option the shipped
 * configurations' headers use (found by reading them); `params` gives every
 * distribution form with its parameters; `metrics` says what the ideal
 * fabric can exceed 1 on. */
START_TEST(test_docs_teach)
{
    int st;
    char *help = run_tasknet("help run", &st);
    ck_assert_int_eq(st, 0);
    const char *want[] = {"with=\"PARAM\" varies together with the earlier axis", "<value> children",
                          "<value>4 3</value>", "(3 x 2 = 6 points)", "--replicas 5 on a folder of 2"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(help, want[i]) != NULL, "run --help lacks '%s'", want[i]);
    /* every "tasknet run ... -X" in a shipped configuration's header */
    int nshort = 0;
    char *opts = run_sh("cat configs/*/*.xml | grep -o 'tasknet run [^&]*' | grep -o ' -[A-Za-z]\\b' | sort -u", &st);
    for (char *line = strtok(opts, "\n"); line; line = strtok(NULL, "\n")) {
        char want2[16];
        snprintf(want2, sizeof want2, "(%s)", line + 1);
        if (strcmp(line + 1, "-q") == 0 || strcmp(line + 1, "-j") == 0 || strcmp(line + 1, "-v") == 0)
            snprintf(want2, sizeof want2, "  %s, --", line + 1);
        ck_assert_msg(strstr(help, want2) != NULL, "run --help lacks the short option %s used in configs/", line + 1);
        nshort++;
    }
    ck_assert_int_ge(nshort, 3); /* -o, -s, -T at least */
    free(opts);
    free(help);

    char *params = run_tasknet("params", &st);
    ck_assert_int_eq(st, 0);
    const char *forms[] = {"uniform(a,b)              continuous uniform on [a, b]",
                           "uniform-int(a,b)          integer uniform on {a, ..., b}",
                           "exponential(mean)         exponential with that mean",
                           "normal(mu,sigma)          normal; draws below 0 are taken as 0",
                           "lognormal(median,sigma)   median e^mu with the unit, sigma of ln X",
                           "empirical(file.csv[,step|linear])  a CDF table, lines value,cumulative_fraction",
                           "20kB                      a constant"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        ck_assert_msg(strstr(params, forms[i]) != NULL, "params lacks '%s'", forms[i]);
    free(params);
    char *metrics = run_tasknet("metrics", &st);
    ck_assert_msg(strstr(metrics, "On the ideal fabric") && strstr(metrics, "network_utilization and throughput can "
                                                                             "exceed 1"),
                  "%s", metrics);
    ck_assert_msg(strstr(metrics, "msg_head_latency_mean_s") != NULL, "%s", metrics);
    free(metrics);
    /* and the README says the same */
    char path[600];
    snprintf(path, sizeof path, "%s/README.md", srcdir());
    char *readme = slurp(path);
    ck_assert_ptr_nonnull(readme);
    const char *rwant[] = {"`lognormal(median,sigma)`", "`empirical(file.csv[,step\\|linear])`", "with=\"PARAM\"",
                           "`<value>` children", "can exceed 1", "`--replicas 5` on a folder"};
    for (size_t i = 0; i < sizeof rwant / sizeof rwant[0]; i++)
        ck_assert_msg(strstr(readme, rwant[i]) != NULL, "README.md lacks '%s'", rwant[i]);
    free(readme);
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
    /* uniform-random's latency mode with a duration: the duration's line and
     * column (line 4, the attribute at column 73) */
    f = fopen(path, "w");
    fputs("<tasknet version=\"1\">\n"
          "  <system nodes=\"8\"/>\n"
          "  <network type=\"electrical-switch\" bandwidth=\"40Gb/s\"/>\n"
          "  <workload type=\"uniform-random\" message-size=\"64B\" offered-load=\"0.1\" duration=\"1us\" "
          "sample-period=\"1us\"/>\n"
          "</tasknet>\n",
          f);
    fclose(f);
    out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "bad.xml:4:73: ") != NULL && strstr(out, "does not apply with workload.sample-period"),
                  "%s", out);
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

/* ------------------------------------------------------------- sweeps */

/* tests/fixtures/sweep_small.xml: 3 points x 2 replicas = 6 runs. */
#define SWEEP_CFG "tests/fixtures/sweep_small.xml"
#define SWEEP_RUNS 6

/* Made once (in the runner, before the tests fork): `run -j 1` of the small
 * sweep in sweep_root/ref, the reference every other way of running the
 * same sweep must reproduce byte for byte. */
static char sweep_root[] = "/tmp/tasknet-sweep-XXXXXX";

static void sweep_setup(void)
{
    if (!mkdtemp(sweep_root)) {
        perror("mkdtemp");
        exit(EXIT_FAILURE);
    }
    char args[512];
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q -j 1 --out %s/ref", sweep_root);
    int st;
    char *out = run_tasknet(args, &st);
    if (st != 0) {
        fprintf(stderr, "reference sweep failed:\n%s\n", out);
        exit(EXIT_FAILURE);
    }
    free(out);
}

static void sweep_teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", sweep_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", sweep_root);
}

/* Complete rows of a CSV file (lines ending in a newline, header excluded);
 * -1 when it cannot be read. */
static long csv_rows(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    long lines = 0;
    int ch;
    while ((ch = fgetc(f)) != EOF)
        lines += ch == '\n';
    fclose(f);
    return lines > 0 ? lines - 1 : 0;
}

/* Poll csv every 2 ms, at most `tries` times, until it holds at least
 * `at_least` complete rows (0: until it exists); its rows then, or the last
 * count seen (-1: never readable). */
static long wait_for_rows(const char *csv, long at_least, int tries)
{
    long rows = -1;
    for (int i = 0; i < tries; i++) {
        rows = csv_rows(csv);
        if (rows >= at_least)
            break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return rows;
}

/* dir/name is byte-identical to the reference's. */
static void assert_same_as_ref(const char *dir, const char *name)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/ref/%s", sweep_root, name);
    snprintf(b, sizeof b, "%s/%s", dir, name);
    char *x = slurp(a), *y = slurp(b);
    ck_assert_msg(x != NULL, "cannot read %s", a);
    ck_assert_msg(y != NULL, "cannot read %s", b);
    ck_assert_msg(strcmp(x, y) == 0, "%s differs from %s:\n--- reference\n%s--- this\n%s", b, a, x, y);
    free(x);
    free(y);
}

/* runs.csv, summary.csv and the latency histograms equal the reference's. */
static void assert_sweep_as_ref(const char *dir)
{
    assert_same_as_ref(dir, "runs.csv");
    assert_same_as_ref(dir, "summary.csv");
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "diff -r '%s/ref/latency' '%s/latency' >/dev/null", sweep_root, dir);
    ck_assert_msg(system(cmd) == 0, "%s/latency differs from the reference's", dir);
}

static void run_ok(const char *args)
{
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "tasknet %s: status %d\n%s", args, st, out);
    free(out);
}

/* `tasknet args` refuses (exit status 1, or 2 for a usage error; not a
 * crash) and says `want`. */
static void run_refused(const char *args, const char *want)
{
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 1 || st == 2, "tasknet %s: status %d, expected 1 or 2\n%s", args, st, out);
    ck_assert_msg(strstr(out, want) != NULL, "tasknet %s: output lacks '%s':\n%s", args, want, out);
    free(out);
}

/* Out-of-range and empty command-line values are refused, never wrapped,
 * saturated or taken as the file-system root. */
START_TEST(test_option_values_refused)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"run " SWEEP_CFG " --out ''", "--out needs a folder, not an empty string"},
        {"run " SWEEP_CFG " --seed 18446744073709551616 --list-runs", "--seed 18446744073709551616: must be at most"},
        {"run " SWEEP_CFG " --seed -1 --list-runs", "--seed -1"},
        {"run " SWEEP_CFG " --replicas 4294967297 --list-runs", "--replicas 4294967297: must be at most 4294967295"},
        {"run " SWEEP_CFG " --replicas 0 --list-runs", "--replicas 0: must be at least 1"},
        {"run " SWEEP_CFG " --shard 1/-1 --list-runs", "--shard needs K/N"},
        {"run " SWEEP_CFG " --shard 3/2 --list-runs", "--shard needs K/N"},
        {"run " SWEEP_CFG " --shard 1/99999999999999999999 --list-runs", "--shard needs K/N"},
        {"analyze " SWEEP_CFG " --samples 0", "--samples 0: must be at least 1"},
        {"plot ''", "an empty string is not a path"},
        {"merge '' x", "argument 1 is an empty string"},
        /* the fabric's own rules are checked by validate, not first at run time */
        {"validate configs/paper/fig11.xml --set system.nodes=100", "nodes=100 must be a power of two"},
        {"validate configs/examples/spinet-load.xml --set network.phy.ber-target=0.35", "arrives intact"},
        /* torus valiant/romm with failed links: the torus's refusal, not an internal error (abort) in the
         * memory estimate, which built the failed fabric first and walked alternative records that carry no
         * intermediate (review4) */
        {"validate tests/fixtures/bad/torus_valiant_failed.xml",
         "routing=valiant on a torus does not route around failed links"},
        /* network.host-buffer alone drops (no network.buffer set): the refusal names host-buffer, not buffer
         * (review4: it said "network.buffer: the electrical-switch's finite buffers drop packets"); it comes
         * before any run, at the option that set it (net_ops.lossy) */
        {"run configs/examples/quickstart.xml --set network.host-buffer=3kB --replicas 1 -q",
         "--set network.host-buffer=3kB: the electrical-switch's host queues drop the messages that do not fit, and "
         "the workload's transport is none"},
        /* values whose time would not fit in 2^63 ps: refused with the numbers */
        {"validate " SWEEP_CFG " --set network.bandwidth=1b/s",
         "workload.task.send-size can draw 128kB, which takes 1.02e+06 s at B = 1b/s"},
        {"validate " SWEEP_CFG " --set workload.arrival-rate=1e-12/s", "2000 jobs arriving at 1e-12/s span 2e+15 s"},
        {"validate configs/paper/fig8.xml --set network.zeta=1e300", "network bandwidth inf b/s (zeta F) is outside"},
        {"validate " SWEEP_CFG " --set workload.task.init-time=1e7s", "more than the largest time tasknet simulates, 100000s"},
        {"validate " SWEEP_CFG " --set workload.task.send-size=1e18B", "more than the largest size tasknet simulates, 1TB"},
        {"validate " SWEEP_CFG " --set 'workload.tree.vertices=normal(5,1e8)'",
         "can draw up to 927000005 vertices (one draw in 10^20)"},
        /* congestion isolation needs a routing of one deadlock class: validate refuses a torus (dor: 2
         * dateline classes) as run does, not "valid" and then a run-time error (review6) */
        {"validate configs/paper/navaridas-torus.xml --set network.congestion-isolation=destination",
         "--set network.congestion-isolation=destination: the 8x4 torus routes with 2 deadlock classes"},
        /* a table is a file: /dev/zero would be read without end */
        {"validate " SWEEP_CFG " --set 'workload.task.send-size=empirical(/dev/zero)'", "'/dev/zero' is not a regular file"},
        /* run ids are counted from 0: "-1" is not 2^64 - 1 */
        {"run " SWEEP_CFG " --runs -1 --list-runs", "--runs '-1': expected run ids and ranges like 3,5-9"},
        {"run " SWEEP_CFG " --runs 1--1 --list-runs", "--runs '1--1': bad range at '--1'"},
        {"run " SWEEP_CFG " --runs ' 1' --list-runs", "--runs ' 1': expected run ids"},
        /* the bound of a uniform-random message is its own, not a tree's */
        {"validate configs/examples/spinet-load.xml --set workload.message-size=0B",
         "--set workload.message-size=0B: must be at least 1B (a message carries at least one byte)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_refused(cases[i].args, cases[i].want);
    int st1;
    char *o1 = run_tasknet("validate configs/examples/spinet-load.xml --set workload.message-size=0B", &st1);
    ck_assert_msg(strstr(o1, "root") == NULL, "%s", o1);
    free(o1);
    /* --set network.zeta replaces the swept bandwidth: one point, not three
     * points silently computed at B = zeta F */
    int st0;
    char *o0 = run_tasknet("run " SWEEP_CFG " --set network.zeta=2 --list-runs", &st0);
    ck_assert_msg(st0 == 0 && strstr(o0, "run,point,replica,seed,done\n0,0,0,7,no\n1,0,1,7,no\n") != NULL, "%s", o0);
    free(o0);
    /* the largest seed is a seed */
    int st;
    char *out = run_tasknet("run " SWEEP_CFG " --seed 18446744073709551615 --list-runs", &st);
    ck_assert_msg(st == 0 && strstr(out, "\n0,0,0,18446744073709551615,no,") != NULL, "%s", out);
    free(out);
}
END_TEST

/* A Slurm array task takes its shard from the array's variables (ids MIN,
 * MIN+STEP, ... are shards 1..COUNT); variables that contradict each other
 * are refused rather than running the whole sweep in every task. */
START_TEST(test_slurm_variables)
{
    static const struct {
        const char *env, *want;
    } bad[] = {
        {"SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=2", "SLURM_ARRAY_TASK_ID=5 is not a task of an array of "
                                                           "SLURM_ARRAY_TASK_COUNT=2 tasks"},
        {"SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=2 SLURM_ARRAY_TASK_COUNT=2", "SLURM_ARRAY_TASK_ID=1 is not a task"},
        {"SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_STEP=2 SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_ID=3 is not a task"},
        {"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_COUNT is not"},
        {"SLURM_ARRAY_TASK_ID=x SLURM_ARRAY_TASK_COUNT=2", "SLURM_ARRAY_TASK_ID='x' is not a task number"},
        {"SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=-2", "SLURM_ARRAY_TASK_COUNT='-2' is not a task number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char frag[600];
        snprintf(frag, sizeof frag, "env %s \"$TASKNET\" run " SWEEP_CFG " --list-runs 2>&1; echo \"status $?\"",
                 bad[i].env);
        int st;
        char *out = run_sh(frag, &st);
        ck_assert_msg(strstr(out, bad[i].want) != NULL, "%s: %s", bad[i].env, out);
        ck_assert_msg(strstr(out, "status 2\n") != NULL, "%s: %s", bad[i].env, out);
        ck_assert_msg(strstr(out, "run,point") == NULL, "%s ran: %s", bad[i].env, out);
        free(out);
    }
    /* --array=0-4:2 is tasks 0, 2, 4: task 4 is shard 3/3, runs 2 and 5 of 6;
     * --shard given explicitly wins over the environment */
    int st;
    char *out = run_sh("env SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_STEP=2 "
                       "SLURM_ARRAY_TASK_COUNT=3 \"$TASKNET\" run " SWEEP_CFG " --list-runs 2>&1", &st);
    ck_assert_msg(st == 0 && strcmp(out, "run,point,replica,seed,done,network.bandwidth\n2,1,0,7,no,10Gb/s\n"
                                         "5,2,1,7,no,40Gb/s\n") == 0, "%s", out);
    free(out);
    out = run_sh("env SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=2 \"$TASKNET\" run " SWEEP_CFG
                 " --shard 1/3 --list-runs 2>&1", &st);
    ck_assert_msg(st == 0 && strstr(out, "\n0,0,0,7,no,5Gb/s\n3,1,1,7,no,10Gb/s\n") != NULL, "%s", out);
    free(out);
}
END_TEST

/* An error caused by --set is blamed on the option, not on the file,
 * whether the option's value itself is wrong or only with the rest; a
 * problem the option causes elsewhere in the file is placed there and names
 * the options ("FILE:LINE:COL (with --set ...): error:"). */
START_TEST(test_set_errors_blame_the_option)
{
    static const struct {
        const char *args, *want;
    } cases[] = {
        {"validate configs/examples/quickstart.xml --set network.extra-stages=1",
         "error: --set network.extra-stages=1: applies to spinet, and network.type is electrical-switch\n"},
        {"validate configs/examples/quickstart.xml --set network.type=spinet --set system.nodes=100",
         "error: --set system.nodes=100: spinet: nodes=100 must be a power of two"},
        {"validate configs/examples/quickstart.xml --set network.bandwidth=1b/s",
         "error: --set network.bandwidth=1b/s: sweep point 0: workload.task.send-size can draw 128kB"},
        {"validate configs/examples/quickstart.xml --set workload.tree.generator=deterministic",
         "configs/examples/quickstart.xml:16:5 (with --set workload.tree.generator=deterministic): error: <tree>: "
         "missing attribute z"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *out = run_tasknet(cases[i].args, &st);
        ck_assert_msg(st == 1 && strstr(out, cases[i].want) != NULL, "tasknet %s: status %d\n%s", cases[i].args, st,
                      out);
        ck_assert_msg(strstr(out, "quickstart.xml: error") == NULL, "tasknet %s blames the file:\n%s", cases[i].args,
                      out);
        free(out);
    }
}
END_TEST

/* --set applies before the checks, in validate as in run (one loader,
 * cfg_load_with), so it can complete or correct a file that is wrong on its
 * own: tests/fixtures/bad/routing_other_fabric.xml gives its torus the
 * dragonfly's routing="ugal" (refused at 3:55); --set network.routing=dor
 * makes it valid for both commands. A --set that does not touch the
 * problem leaves it the file's own (at its attribute, no "(with ...)", also
 * when the option renumbers the sweep's points), and a problem the option
 * causes elsewhere names the option. A value of the file that an option
 * replaces is the option's to check, not the file's: a template naming a
 * placeholder file runs with --set workload.file=... */
START_TEST(test_set_before_checks)
{
    static const struct {
        const char *args;
        int status;
        const char *want;
    } cases[] = {
        {"validate tests/fixtures/bad/routing_other_fabric.xml --set network.routing=dor", 0,
         "tests/fixtures/bad/routing_other_fabric.xml (with --set network.routing=dor): valid (1 point x 1 replica)\n"},
        {"run tests/fixtures/bad/routing_other_fabric.xml --set network.routing=dor --list-runs", 0,
         "run,point,replica,seed,done\n0,0,0,1,no\n"},
        {"validate tests/fixtures/bad/routing_other_fabric.xml --set network.bandwidth=20Gb/s", 1,
         "tests/fixtures/bad/routing_other_fabric.xml:3:55: error: <network routing=\"ugal\">: the torus does not "
         "take 'ugal'"},
        {"run tests/fixtures/bad/routing_other_fabric.xml --set network.bandwidth=20Gb/s --list-runs", 1,
         "tests/fixtures/bad/routing_other_fabric.xml:3:55: error: <network routing=\"ugal\">: the torus does not "
         "take 'ugal'"},
        /* an option that drops an axis renumbers the points: a refusal the file alone has at another point is
         * still the file's (sweep_value_refused.xml: destination at point 1 of 4, then of 2) */
        {"validate tests/fixtures/bad/sweep_value_refused.xml --set network.routing=dor", 1,
         "tests/fixtures/bad/sweep_value_refused.xml:7:11: error: <axis param=\"network.congestion-isolation\">: value "
         "'destination' at sweep point 1 (network.congestion-isolation=destination): the 4x4 torus"},
        /* a value of the file that the option replaces is not checked: a template's placeholder file
         * (placeholder_file.xml: file="GRAPH.dot" at 7:24, which does not exist), a malformed size */
        {"validate tests/fixtures/bad/placeholder_file.xml --set workload.file=../dag/forkjoin.dot", 0,
         "tests/fixtures/bad/placeholder_file.xml (with --set workload.file=../dag/forkjoin.dot): valid"},
        {"run tests/fixtures/bad/placeholder_file.xml --set workload.file=../dag/forkjoin.dot --list-runs", 0,
         "run,point,replica,seed,done\n0,0,0,1,no\n"},
        {"validate tests/fixtures/bad/placeholder_file.xml --set workload.jobs=8", 1,
         "tests/fixtures/bad/placeholder_file.xml:7:24: error: <workload file=\"GRAPH.dot\">: cannot read 'GRAPH.dot'"},
        {"validate tests/fixtures/bad/empirical_missing_file.xml --set 'workload.task.send-size=uniform(2kB,128kB)'", 0,
         "(with --set workload.task.send-size=uniform(2kB,128kB)): valid"},
        /* an axis that gives every point a value of its own replaces the file's too */
        {"validate tests/fixtures/good/placeholder_axis.xml", 0,
         "tests/fixtures/good/placeholder_axis.xml: valid (2 points x 1 replica)"},
        /* --set paths are from the configuration's folder, as the file's, and the refusal says so */
        {"validate tests/fixtures/bad/placeholder_file.xml --set workload.file=tests/fixtures/dag/forkjoin.dot", 1,
         "error: --set workload.file=tests/fixtures/dag/forkjoin.dot: cannot read 'tests/fixtures/dag/forkjoin.dot' "
         "(a relative path is from the configuration's folder: tests/fixtures/bad/tests/fixtures/dag/forkjoin.dot: "
         "No such file or directory)"},
        /* the same value from the command line: the option, not the file */
        {"validate tests/fixtures/bad/routing_other_fabric.xml --set network.routing=romm --set network.routing=ugal",
         1, "error: --set network.routing=ugal: the torus does not take 'ugal'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *out = run_tasknet(cases[i].args, &st);
        ck_assert_msg(st == cases[i].status && strstr(out, cases[i].want) != NULL, "tasknet %s: status %d\n%s",
                      cases[i].args, st, out);
        if (cases[i].status == 1 && strncmp(cases[i].want, "tests/", 6) == 0) /* the file's own error */
            ck_assert_msg(strstr(out, "(with ") == NULL, "tasknet %s blames the option for the file's own error:\n%s",
                          cases[i].args, out);
        free(out);
    }
}
END_TEST

/* A value an axis sends that the checks accept and resolving the point
 * refuses (a run's horizon, 1e6 s) is reported at that axis, as the checks
 * report theirs, by validate and by run alike. sweep_resolve_refused.xml:
 * 200 task trees on 64 nodes, axes network.bandwidth = 10Gb/s 1b/s (line
 * 11) and workload.arrival-rate = 5000/s 1e-4/s (line 12), "param" at
 * column 5 + 6 = 11 ("    <axis "). Points (bandwidth slowest): 0 = (10Gb/s,
 * 5000/s) runs; 1 = (10Gb/s, 1e-4/s): 200 jobs at 1e-4/s arrive over 2e6 s,
 * the message names no swept path, and moving the arrival rate alone to
 * 5000/s gives point 0, accepted: the arrival-rate axis; 2 = (1b/s,
 * 5000/s): a 128 kB message takes 131072 x 8 / 1 = 1.05e6 s, and the
 * message names network.bandwidth: that axis; 3 = (1b/s, 1e-4/s): the size
 * is checked first, the same value for the same reason as point 2, so not
 * repeated. Without the sweep, the same refusal names the file. */
/* A point refused past the checks (its memory estimate, resolving it) by
 * a value the command line set names that option, in validate and run
 * alike, not a line of the file it did not come from: the fixture's 200
 * jobs fit in 8 GB at every point, --set workload.jobs=1e10 does not (its
 * records alone: 680 GB); validate used to say <FILE>:2:11: system.nodes="64"
 * (run the same), and run's resolve refusal named no option at all
 * ("tasknet run: error: sweep point 0 (...)": 1e10 jobs at 5000/s span 2e6
 * s, more than a run's 1e6 s). As the loader's errors an option causes:
 * "error: --set ...: ..." (no place in the file). */
START_TEST(test_refusals_name_set)
{
    const char *f = "tests/fixtures/sweep_resolve_refused.xml";
    char cmd[1024];
    int st;
    snprintf(cmd, sizeof cmd, "TASKNET_MEMORY=8GB \"$TASKNET\" validate %s --set workload.jobs=1e10 2>&1", f);
    char *out = run_sh(cmd, &st);
    ck_assert_msg(st == 1 &&
                      strstr(out, "error: --set workload.jobs=1e10: sweep point 0 "
                                  "(network.bandwidth=10Gb/s workload.arrival-rate=5000/s): a run needs about ") &&
                      !strstr(out, "system.nodes=\"64\""),
                  "status %d\n%s", st, out);
    free(out);
    snprintf(cmd, sizeof cmd,
             "d=$(mktemp -d) && TASKNET_MEMORY=8GB \"$TASKNET\" run %s --set workload.jobs=1e10 -q -o \"$d/o\" 2>&1; "
             "st=$?; rm -rf \"$d\"; exit $st", f);
    out = run_sh(cmd, &st);
    ck_assert_msg(st == 1 && strstr(out, "tasknet run: error: --set "
                                         "workload.jobs=1e10: sweep point 0 (network.bandwidth=10Gb/s "
                                         "workload.arrival-rate=5000/s): 10000000000 jobs arriving at 5000/s span 2e+06 s"),
                  "status %d\n%s", st, out);
    free(out);
    /* a refusal at an axis with values from the command line: run adds
     * "(with --set ...)" after the place, as validate does (the 1 MB send
     * size is the option's; the axis sent 1b/s) */
    snprintf(cmd, sizeof cmd,
             "d=$(mktemp -d) && \"$TASKNET\" run %s --set workload.arrival-rate=5000/s --set "
             "workload.task.send-size=1MB -q -o \"$d/o\" 2>&1; st=$?; rm -rf \"$d\"; exit $st", f);
    out = run_sh(cmd, &st);
    ck_assert_msg(st == 1 && strstr(out, "tasknet run: error: tests/fixtures/sweep_resolve_refused.xml:11:11 (with --set "
                                         "workload.arrival-rate=5000/s, --set workload.task.send-size=1MB): <axis "
                                         "param=\"network.bandwidth\">: value '1b/s' at sweep point 1"),
                  "status %d\n%s", st, out);
    free(out);
}
END_TEST

/* A check's refusal that names a row keeping its default, caused by a
 * value an axis or --set sent to another row the message names, is placed
 * at that axis or option, not at the element of the row named: on a 4x4
 * torus (B = 10 Gb/s, mtu 4096 B by default, vc-buffer 16384 B), sweeping
 * network.bandwidth to 1 b/s makes a packet take 4096 x 8 s > 1 hour
 * (reported for network.mtu), and network.mtu to 2 GB overflows the
 * vc-buffer (reported for network.vc-buffer); both were reported at
 * <network> (line 3), a place neither value came from. */
START_TEST(test_check_refusals_at_axis)
{
    const char *mk = "d=$(mktemp -d) && printf '%%s\n' '<tasknet version=\"1\">' '  <system nodes=\"16\"/>' "
                     "'  <network type=\"torus\" dims=\"4 4\" bandwidth=\"10Gb/s\"/>' "
                     "'  <workload type=\"uniform-random\" message-size=\"4kB\" offered-load=\"0.1\" duration=\"1us\"/>' "
                     "'  <run replicas=\"1\" seed=\"1\"/>' '  <sweep>' '    <axis param=\"%s\" values=\"%s\"/>' "
                     "'  </sweep>' '</tasknet>' > \"$d/c.xml\" && \"$TASKNET\" %s \"$d/c.xml\" %s 2>&1; st=$?; "
                     "rm -rf \"$d\"; exit $st";
    char cmd[2048];
    int st;
    snprintf(cmd, sizeof cmd, mk, "network.bandwidth", "10Gb/s 1b/s", "validate", "");
    char *out = run_sh(cmd, &st);
    ck_assert_msg(st == 1 && strstr(out, "c.xml:7:11: error: <axis param=\"network.bandwidth\">: value '1b/s' at sweep "
                                         "point 1 (network.bandwidth=1b/s): a packet of 4096 B takes more than 1 hour "
                                         "at network.bandwidth = 1 b/s; raise network.bandwidth or lower network.mtu") &&
                      !strstr(out, "<network>"),
                  "status %d\n%s", st, out);
    free(out);
    snprintf(cmd, sizeof cmd, mk, "network.mtu", "4kB 2GB", "validate", "");
    out = run_sh(cmd, &st);
    ck_assert_msg(st == 1 && strstr(out, "c.xml:7:11: error: <axis param=\"network.mtu\">: value '2GB' at sweep point 1 "
                                         "(network.mtu=2GB): 16384 B cannot hold one packet of network.mtu = "
                                         "2000000000 B") &&
                      !strstr(out, "<network>"),
                  "status %d\n%s", st, out);
    free(out);
    /* the same value from the command line names the option (run as validate) */
    snprintf(cmd, sizeof cmd, mk, "workload.offered-load", "0.1 0.2", "run", "--set network.bandwidth=1b/s -q");
    out = run_sh(cmd, &st);
    ck_assert_msg(st == 1 && strstr(out, "error: --set network.bandwidth=1b/s: a packet of 4096 B takes more than 1 "
                                         "hour") &&
                      !strstr(out, "<network>"),
                  "status %d\n%s", st, out);
    free(out);
}
END_TEST

/* A transport's full segment must leave its host within the retransmission
 * timeout's 60 s ceiling (RFC 6298; transport.h TP_MAX_RTO_PS), or every
 * segment is sent again before its ACK can come back and the run never
 * ends (random-configs seed 4 configuration 51, dctcp at 1 b/s, reached
 * 2^62 ps of simulated time after 13 s and 975 MB). tcp's segment: mss
 * 1460 B + header 40 B = 1500 B = 12000 bits, so 200 b/s takes exactly 60 s
 * (accepted: 2 trees of 3 tasks, so that the run's span fits) and 199 b/s
 * 60.3 s (refused), at the option, the attribute or the axis that sent the
 * bandwidth. */
START_TEST(test_transport_segment_within_rto)
{
    int st;
    char *out = run_tasknet("validate configs/examples/quickstart.xml --set transport.type=tcp "
                            "--set network.bandwidth=200b/s --set workload.jobs=2 --set workload.tree.vertices=3",
                            &st);
    ck_assert_msg(st == 0, "status %d\n%s", st, out);
    free(out);
    out = run_tasknet("validate configs/examples/quickstart.xml --set transport.type=tcp --set network.bandwidth=199b/s",
                      &st);
    ck_assert_msg(st == 1 && strstr(out, "error: --set network.bandwidth=199b/s: a tcp segment of 1500 B (transport.mss "
                                         "1460 B + headers) takes 60.3 s to leave its host at network.bandwidth = 199 "
                                         "b/s, more than the 60 s the retransmission timeout can reach (RFC 6298)") &&
                      strstr(out, "raise network.bandwidth to at least 200 b/s or lower transport.mss"),
                  "status %d\n%s", st, out);
    free(out);
    /* written in the file: at the attribute; swept: at the axis (validate and run) */
    out = run_sh("sed 's#bandwidth=\"10Gb/s\"#bandwidth=\"100b/s\"#' configs/examples/quickstart.xml | \"$TASKNET\" "
                 "validate - --set transport.type=tcp 2>&1",
                 &st);
    ck_assert_msg(st == 1 && strstr(out, "<stdin>:14:37 (with --set transport.type=tcp): error: <network bandwidth="
                                         "\"100b/s\">: a tcp segment of 1500 B"),
                  "status %d\n%s", st, out);
    free(out);
    out = run_sh("d=$(mktemp -d) && sed 's#<run replicas=\"2\" seed=\"1\"/>#<run replicas=\"1\" seed=\"1\"/><sweep><axis "
                 "param=\"network.bandwidth\" values=\"10Gb/s 100b/s\"/></sweep>#' configs/examples/quickstart.xml > "
                 "\"$d/c.xml\" && \"$TASKNET\" run \"$d/c.xml\" --set transport.type=tcp -q -o \"$d/o\" 2>&1; st=$?; "
                 "rm -rf \"$d\"; exit $st",
                 &st);
    ck_assert_msg(st == 1 && strstr(out, "<axis param=\"network.bandwidth\">: value '100b/s' at sweep point 1 "
                                         "(network.bandwidth=100b/s): a tcp segment of 1500 B"),
                  "status %d\n%s", st, out);
    free(out);
}
END_TEST

/* export-topology writes one fabric, the sweep's first point's: it says so,
 * with that point's values and how to choose another (it used to say
 * nothing; configs/examples/hiperion-iq.xml with the router and flow control
 * set sweeps 2 destinations x 3 loads = 6 points), and a configuration
 * whose --set options leave one point says nothing. */
START_TEST(test_export_first_point_said)
{
    int st;
    char *out = run_sh("\"$TASKNET\" export-topology configs/examples/hiperion-iq.xml --set network.router=input-queued "
                       "--set network.flow-control=credit 2>&1 >/dev/null",
                       &st);
    ck_assert_msg(st == 0 && strstr(out, "tasknet export-topology: warning: configs/examples/hiperion-iq.xml sweeps 6 "
                                         "points; this is the first, sweep point 0 (workload.destinations=uniform "
                                         "workload.load-rate=1Gb/s); for another, give "
                                         "each swept parameter with --set PATH=VALUE"),
                  "status %d\n%s", st, out);
    free(out);
    out = run_sh("\"$TASKNET\" export-topology configs/examples/hiperion-iq.xml --set network.router=input-queued --set "
                 "network.flow-control=credit --set workload.destinations=gaussian --set workload.load-rate=4Gb/s "
                 "2>&1 >/dev/null",
                 &st);
    ck_assert_msg(st == 0 && out[0] == '\0', "status %d\n%s", st, out);
    free(out);
}
END_TEST

START_TEST(test_resolve_refusals_at_axis)
{
    const char *f = "tests/fixtures/sweep_resolve_refused.xml";
    const char *at_rate = "tests/fixtures/sweep_resolve_refused.xml:12:11: error: <axis param=\"workload.arrival-rate\">: "
                          "value '1e-4/s' at sweep point 1 (network.bandwidth=10Gb/s workload.arrival-rate=1e-4/s): 200 "
                          "jobs arriving at 0.0001/s span 2e+06 s: more than the 1e+06 s a run can span";
    const char *at_bw = "tests/fixtures/sweep_resolve_refused.xml:11:11: error: <axis param=\"network.bandwidth\">: value "
                        "'1b/s' at sweep point 2 (network.bandwidth=1b/s workload.arrival-rate=5000/s): "
                        "workload.task.send-size can draw 128kB, which takes 1.02e+06 s at B = 1b/s";
    char args[512];
    int st;
    snprintf(args, sizeof args, "validate %s", f);
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 1 && strstr(out, at_rate) && strstr(out, at_bw), "status %d\n%s", st, out);
    size_t n = 0;
    for (const char *q = out; (q = strstr(q, "error:")); q++)
        n++;
    ck_assert_msg(n == 2, "%zu errors, expected 2 (point 3 repeats point 2's):\n%s", n, out);
    ck_assert_msg(strstr(out, "sweep point 3") == NULL, "%s", out);
    free(out);
    /* run stops at the first point refused, at the same place */
    snprintf(args, sizeof args, "run %s --list-runs", f);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "--list-runs resolves nothing: status %d\n%s", st, out);
    free(out);
    snprintf(args, sizeof args, "d=$(mktemp -d) && \"$TASKNET\" run %s -q -o \"$d/o\" 2>&1; st=$?; rm -rf \"$d\"; exit $st", f);
    out = run_sh(args, &st);
    ck_assert_msg(st == 1 && strstr(out, "tasknet run: error: tests/fixtures/sweep_resolve_refused.xml:12:11: <axis "
                                         "param=\"workload.arrival-rate\">: value '1e-4/s' at sweep point 1 ("),
                  "status %d\n%s", st, out);
    free(out);
    /* the memory estimate too: 10^9 task trees need more than 8 GB (their
     * records alone), 200 fit; the jobs axis sent the value, not
     * system.nodes="64" (line 2), which the estimate used to name */
    out = run_sh("sed -e 's#values=\"10Gb/s 1b/s\"#values=\"10Gb/s\"#' -e 's#\"workload.arrival-rate\" "
                 "values=\"5000/s 1e-4/s\"#\"workload.jobs\" values=\"200 1e9\"#' "
                 "tests/fixtures/sweep_resolve_refused.xml | TASKNET_MEMORY=8GB \"$TASKNET\" validate - 2>&1",
                 &st);
    ck_assert_msg(st == 1 && strstr(out, "<stdin>:12:11: error: <axis param=\"workload.jobs\">: value '1e9' at sweep "
                                         "point 1 (network.bandwidth=10Gb/s workload.jobs=1e9): a run needs about ") &&
                      !strstr(out, "system.nodes=\"64\""),
                  "status %d\n%s", st, out);
    free(out);
    /* refused at every point by the file's own value (10^10 jobs: more than
     * 8 GB at any rate and bandwidth): no axis sent it, so each point is
     * reported at system.nodes="64", point 3 too (validate once took every
     * point after the first refused for accepted when looking for the axis
     * to blame, and blamed network.bandwidth there) */
    out = run_sh("sed -e 's#jobs=\"200\"#jobs=\"10000000000\"#' tests/fixtures/sweep_resolve_refused.xml | "
                 "TASKNET_MEMORY=8GB \"$TASKNET\" validate - 2>&1",
                 &st);
    n = 0;
    for (const char *q = out; (q = strstr(q, "<stdin>:2:11: error: system.nodes=\"64\", sweep point ")); q++)
        n++;
    ck_assert_msg(st == 1 && n == 4 && !strstr(out, "<axis"), "status %d, %zu at system.nodes, expected 4:\n%s", st, n,
                  out);
    free(out);
    /* one run of each point fits (validate accepts), two at once (-j 2) do
     * not: no axis sent that, so run names system.nodes="64" as before
     * 5e1192c (it blamed <axis param="network.bandwidth"> value '10Gb/s',
     * whose other value "fits" as much as this one) */
    const char *j2 = "sed -e 's#jobs=\"200\"#jobs=\"1000000\"#' -e 's#\"10Gb/s 1b/s\"#\"10Gb/s 20Gb/s\"#' -e "
                     "'s#\"5000/s 1e-4/s\"#\"5000/s 6000/s\"#' tests/fixtures/sweep_resolve_refused.xml > \"$d/c.xml\" && "
                     "TASKNET_MEMORY=3GB \"$TASKNET\" %s \"$d/c.xml\" %s 2>&1";
    char cmd[1024], sub[512];
    snprintf(sub, sizeof sub, j2, "validate", "");
    snprintf(cmd, sizeof cmd, "d=$(mktemp -d) && %s; st=$?; rm -rf \"$d\"; exit $st", sub);
    out = run_sh(cmd, &st);
    ck_assert_msg(st == 0 && strstr(out, "c.xml: valid (4 points x 1 replica)"), "status %d\n%s", st, out);
    free(out);
    snprintf(sub, sizeof sub, j2, "run", "-q -j 2 -o \"$d/o\"");
    snprintf(cmd, sizeof cmd, "d=$(mktemp -d) && %s; st=$?; rm -rf \"$d\"; exit $st", sub);
    out = run_sh(cmd, &st);
    ck_assert_msg(st == 1 && strstr(out, "c.xml:2:11: system.nodes=\"64\", sweep point 0 (network.bandwidth=10Gb/s "
                                         "workload.arrival-rate=5000/s): a run needs about 3.98 GB of memory (2 runs at "
                                         "once") && !strstr(out, "<axis"),
                  "status %d\n%s", st, out);
    free(out);
    /* the axis dropped by --set: the point's refusal is the configuration's */
    snprintf(args, sizeof args, "validate %s --set workload.arrival-rate=1e-4/s --set network.bandwidth=10Gb/s", f);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 1 && strstr(out, "sweep_resolve_refused.xml (with --set workload.arrival-rate=1e-4/s, --set "
                                         "network.bandwidth=10Gb/s): error: sweep point 0: 200 jobs arriving"),
                  "status %d\n%s", st, out);
    free(out);
}
END_TEST

/* `validate -` (and run, analyze) read the configuration from standard
 * input: named <stdin> in messages, relative files from the working folder. */
START_TEST(test_config_from_stdin)
{
    int st;
    char *out = run_sh("\"$TASKNET\" validate - < configs/paper/fig9.xml 2>&1", &st);
    ck_assert_msg(st == 0 && strcmp(out, "<stdin>: valid (15 points x 5 replicas)\n") == 0, "%s", out);
    free(out);
    out = run_sh("printf '<tasknet version=\"1\">\\n<system nodes=\"x\"/>\\n</tasknet>\\n' | \"$TASKNET\" validate - "
                 "2>&1", &st);
    ck_assert_msg(st == 1 && strstr(out, "<stdin>:2:9: error: <system nodes=\"x\">: 'x' is not a number") != NULL,
                  "%s", out);
    free(out);
    out = run_sh("\"$TASKNET\" run - --json -q --set workload.jobs=20 --replicas 1 < configs/examples/quickstart.xml "
                 "2>&1", &st);
    ck_assert_msg(st == 0 && strstr(out, "\"jobs_completed\":{\"mean\":20,") != NULL,
                  "%s", out);
    free(out);
}
END_TEST

/* Issue 13 defect 2: picosecond sums over a run's jobs overflowed. 50
 * jobs of one vertex arrive at once (1e9/s) on 50 compute nodes of the
 * ideal fabric with 1e5 s links: each job is its root assignment and its
 * job-complete, each 2 x 1e5 s + 200 ns + 40 B at 10 Gb/s (32 ns), plus
 * t_i + t_a = 3 ms: 400000.003000464 s, no queueing. The 50 sum to 2e19 ps,
 * beyond 2^63 (the old sum wrapped: 31065 s); summed in 128 bits the mean
 * is exact. */
START_TEST(test_job_sums_do_not_overflow)
{
    int st;
    char *out = run_tasknet("run configs/examples/quickstart.xml --set system.nodes=51 --set workload.jobs=50 "
                            "--set workload.arrival-rate=1e9/s --set workload.tree.vertices=1 "
                            "--set workload.task.init-time=1ms --set workload.task.aggregation-time=2ms "
                            "--set network.type=ideal --set network.link-latency=1e5s --replicas 1 --json -q",
                            &st);
    ck_assert_msg(st == 0, "%s", out);
    const char *jt = strstr(out, "\"job_time_mean_s\":");
    ck_assert_ptr_nonnull(jt);
    ck_assert_double_eq_tol(json_num(jt, "mean", 0), 400000.003000464, 1e-9);
    ck_assert_double_eq_tol(json_num(strstr(out, "\"service_time_mean_s\":"), "mean", 0), 400000.003000464, 1e-9);
    ck_assert_double_eq(json_num(strstr(out, "\"queue_time_mean_s\":"), "mean", 0), 0);
    /* speedup = work / service = 3 ms / 400000.003000464 s */
    ck_assert_double_eq_tol(json_num(strstr(out, "\"speedup\":"), "mean", 0), 3e-3 / 400000.003000464, 1e-20);
    free(out);
}
END_TEST

/* Issue 13 defect 2: a horizon that cannot fit in the clock is refused
 * before anything runs, with its numbers (was: a negative mean job time
 * with 20 jobs, an abort with 200). Each message of a job takes 1e5 s. */
START_TEST(test_horizon_refused_before_the_run)
{
    for (int jobs = 20; jobs <= 200; jobs *= 10) {
        char args[600];
        snprintf(args, sizeof args,
                 "run configs/examples/quickstart.xml --set network.switch-latency=1e5s --set workload.jobs=%d "
                 "--set run.replicas=1 --json", jobs);
        int st;
        char *out = run_tasknet(args, &st);
        ck_assert_msg(st == 1, "status %d: %s", st, out);
        /* the option that sent the value is named (test_refusals_name_set) */
        ck_assert_msg(strstr(out, "tasknet run: error: --set network.switch-latency=1e5s: sweep point 0: a mean job "
                                  "computes for ") != NULL &&
                          strstr(out, "more than the 1e+06 s a run can span") != NULL,
                      "%s", out);
        ck_assert_msg(strstr(out, "internal error") == NULL && strstr(out, "\"points\"") == NULL, "%s", out);
        free(out);
    }
}
END_TEST

/* Found by the random configurations: training counted compute and ring
 * bytes against the horizon, not the fabric's latency of each ring step,
 * so a configuration the clock cannot hold was valid and its run died at
 * 2^62 ps. train_and_flows.xml's training with layer-sizes="uniform": 8
 * layers of 4MB / 8 = 500 kB, fusion-buffer 1MB: 4 fusions, each a ring of
 * 2 (W - 1) = 6 steps one after another; 3 iterations: 72 steps of at least
 * 1e5 s (the switch latency): 7.2e6 s. */
START_TEST(test_training_horizon_counts_latency)
{
    int st;
    char *out = run_tasknet("validate tests/fixtures/good/train_and_flows.xml --set network.switch-latency=1e5s "
                            "--set workload.train.layer-sizes=uniform",
                            &st);
    ck_assert_msg(st == 1, "status %d: %s", st, out);
    ck_assert_msg(strstr(out, "training: 3 iterations of compute and ring traffic (with the fabric's latency of "
                              "each ring step) span 7.2e+06 s, more than the 1e+06 s a run can span") != NULL,
                  "%s", out);
    free(out);
}
END_TEST

/* Found by the random configurations: uniform traffic at B = 1 b/s draws
 * arrival gaps of days (mean 8 x 51 kB / (0.05 x 1 b/s) = 8.16e6 s), past
 * the clock's reach; with a 2 us duration no node generates anything (a
 * draw below 2 us: probability 2.5e-13 a node), a run of nothing, not an
 * abort. */
START_TEST(test_arrivals_past_the_clock)
{
    char frag[1200];
    snprintf(frag, sizeof frag,
             "printf '<tasknet version=\"1\"><system nodes=\"68\"/><network type=\"ideal\" bandwidth=\"1b/s\"/>"
             "<workload type=\"uniform-random\" message-size=\"uniform-int(2000B,100000B)\" offered-load=\"0.05\" "
             "duration=\"2us\"/><run replicas=\"1\" seed=\"923970716\"/></tasknet>' | \"$TASKNET\" run - --json -q 2>&1");
    int st;
    char *out = run_sh(frag, &st);
    ck_assert_msg(st == 0 && strstr(out, "\"messages_sent\":{\"mean\":0,") != NULL &&
                      strstr(out, "\"throughput\":{\"mean\":0,") != NULL,
                  "%s", out);
    free(out);
}
END_TEST

/* Issue 13 defect 8: what would not fit in memory is refused before it
 * runs, with the estimate (was: an abort after allocating, or 10 GB of
 * growth). The memory tasknet may use is set with TASKNET_MEMORY. */
/* A transport segment longer than network.mtu is valid but warned about:
 * incast.xml has mtu 1500 B and tcp's mss 1460 B; with a 42-B header a
 * segment is 1460 + 42 = 1502 B, which the NIC cuts at 1500 B into
 * ceil(1502 / 1500) = 2 packets. With the default 40-B header (1500 B) or
 * mtu 0 (whole messages) there is nothing to say. */
START_TEST(test_segment_longer_than_mtu_warned)
{
    int st;
    char *out = run_tasknet("validate configs/examples/incast.xml --set transport.header=42B", &st);
    ck_assert_msg(st == 0 && strstr(out, "warning: sweep point 0 (transport.type=tcp): a transport segment is 1502 B "
                                         "(transport.mss 1460 B + transport.header 42 B), more than network.mtu 1500 B: "
                                         "the host NIC sends each full segment as 2 packets") != NULL &&
                      strstr(out, "warning: the same at 1 more sweep point\n") != NULL &&
                      strstr(out, "valid (2 points x 1 replica)") != NULL,
                  "%s", out);
    free(out);
    out = run_tasknet("validate configs/examples/incast.xml", &st);
    ck_assert_msg(st == 0 && strstr(out, "warning") == NULL, "%s", out);
    free(out);
    out = run_tasknet("validate configs/examples/incast.xml --set transport.header=42B --set network.mtu=0B", &st);
    ck_assert_msg(st == 0 && strstr(out, "warning") == NULL, "%s", out);
    free(out);
    /* run says it too, once, before the runs (and runs them) */
    out = run_sh("\"$TASKNET\" run configs/examples/incast.xml --set transport.header=42B --set transport.mss=3000B "
                 "--runs 0 -q 2>&1; echo \"status $?\"", &st);
    ck_assert_msg(strstr(out, "tasknet run: warning: sweep point 0: a transport segment is 3042 B") != NULL &&
                      strstr(out, "as 3 packets") != NULL && strstr(out, "status 0\n") != NULL,
                  "%s", out);
    free(out);
    /* hpcc's segments carry the INT header too (transport.c seg_extra = header + int-header): 1460 + 40 + 42 =
     * 1542 B > 1500 B at the hpcc point, 1500 B at the dcqcn one (no warning there) */
    out = run_tasknet("validate configs/examples/hpcc-incast.xml --set transport.mss=1460B", &st);
    ck_assert_msg(st == 0 && strstr(out, "warning: sweep point 1 (transport.type=hpcc): a transport segment is 1542 B "
                                         "(transport.mss 1460 B + transport.header 40 B + transport.int-header 42 B), "
                                         "more than network.mtu 1500 B") != NULL &&
                      strstr(out, "more sweep point") == NULL,
                  "%s", out);
    free(out);
}
END_TEST

START_TEST(test_memory_refused_before_the_run)
{
    int st;
    /* 15 points x 1e9 replicas: a result per run cannot be held */
    char *out = run_sh("TASKNET_MEMORY=1GB \"$TASKNET\" run configs/paper/fig9.xml --set run.replicas=1000000000 "
                       "-q 2>&1; echo \"status $?\"", &st);
    ck_assert_msg(strstr(out, "error: the run table of 15000000000 runs (15 points x 1000000000 replicas) needs "
                              "about ") != NULL &&
                      strstr(out, "more than the 1 GB this process may use (TASKNET_MEMORY=1GB)") != NULL &&
                      strstr(out, "status 1\n") != NULL,
                  "%s", out);
    free(out);
    /* 10^8 nodes on the switch: its two times per node are 1.6 GB by hand */
    out = run_sh("TASKNET_MEMORY=4GB \"$TASKNET\" run configs/examples/quickstart.xml --set system.nodes=100000000 "
                 "-q 2>&1; echo \"status $?\"", &st);
    ck_assert_msg(strstr(out, "sweep point 0: a run needs about ") != NULL && strstr(out, "(fabric 1.6 GB,") != NULL &&
                      strstr(out, "more than the 4 GB this process may use") != NULL && strstr(out, "status 1\n"),
                  "%s", out);
    free(out);
    /* 1e8 datacenter flows: their latencies alone are 24 B each, 2.4 GB by
     * hand (dc-flows had no estimate: the run started and grew to 7 GB) */
    out = run_sh("TASKNET_MEMORY=1GB \"$TASKNET\" run configs/paper/vef-dcnw.xml --set workload.flows=100000000 "
                 "-q 2>&1; echo \"status $?\"", &st);
    ck_assert_msg(strstr(out, "latencies of 1e+08 messages 2.4 GB)") != NULL &&
                      strstr(out, "more than the 1 GB this process may use") != NULL && strstr(out, "status 1\n"),
                  "%s", out);
    free(out);
    /* uniform traffic at 3e8 times B: 64 nodes x 3e8 x 40 Gb/s x 200 us / 8 kb
     * = 1.92e13 messages, more than any machine holds; validate says so too */
    out = run_tasknet("validate configs/examples/spinet-load.xml --set workload.offered-load=3e8", &st);
    ck_assert_msg(st == 1 && strstr(out, "latencies of 1.92e+13 messages") != NULL, "%s", out);
    free(out);
    out = run_tasknet("run configs/examples/spinet-load.xml --set workload.offered-load=3e8 -q", &st);
    ck_assert_msg(st == 1 && strstr(out, "latencies of 1.92e+13 messages") != NULL, "%s", out);
    free(out);
    /* validate refuses what run refuses: a task tree's messages per job
     * come from its resolved shape (fig9's trees), which validate used to
     * leave out of the estimate (2e8 messages for 1e8 jobs, fitting in
     * 20 GB, where run counts 3.68e9 and refuses) */
    out = run_sh("TASKNET_MEMORY=20GB \"$TASKNET\" validate configs/paper/fig9.xml --set workload.jobs=1e8 2>&1; "
                 "echo \"status $?\"; TASKNET_MEMORY=20GB \"$TASKNET\" run configs/paper/fig9.xml "
                 "--set workload.jobs=1e8 -q 2>&1; echo \"status $?\"",
                 &st);
    {
        const char *v = strstr(out, "latencies of 3.68e+09 messages");
        ck_assert_msg(v != NULL && strstr(v + 1, "latencies of 3.68e+09 messages") != NULL &&
                          strstr(out, "status 1\n") != NULL && strstr(out, "valid (") == NULL,
                      "%s", out);
    }
    free(out);
    /* -j N holds N runs at once */
    out = run_sh("TASKNET_MEMORY=1GB \"$TASKNET\" run " SWEEP_CFG " --set workload.jobs=20000 -j 4 -q --list-runs "
                 ">/dev/null 2>&1 && TASKNET_MEMORY=60MB \"$TASKNET\" run " SWEEP_CFG
                 " --set workload.jobs=20000 -j 4 -q 2>&1; echo \"status $?\"", &st);
    ck_assert_msg(strstr(out, "(4 runs at once") != NULL && strstr(out, "status 1\n"), "%s", out);
    free(out);
}
END_TEST

/* Issue 13 defect 8: --progress shows progress inside a long run too:
 * simulated time, events/s and an ETA, every second, with -j 1 and -j 2. */
START_TEST(test_progress_inside_a_run)
{
    for (int jobs = 1; jobs <= 2; jobs++) {
        char frag[800];
        snprintf(frag, sizeof frag,
                 "timeout --preserve-status -s INT 3.5 \"$TASKNET\" run " SWEEP_CFG " --set workload.jobs=300000 --runs 0,2 -j %d "
                 "--progress 2>&1 >/dev/null; echo \"status $?\"",
                 jobs);
        int st;
        char *out = run_sh(frag, &st);
        /* (with -j 2 either run may report first on a loaded machine) */
        ck_assert_msg(strstr(out, "[0/2 runs] run 0: ") != NULL || strstr(out, "[0/2 runs] run 2: ") != NULL,
                      "-j %d: %s", jobs, out);
        ck_assert_msg(strstr(out, " s simulated, ") != NULL && strstr(out, " events/s, ") != NULL &&
                          strstr(out, "%, ETA ") != NULL,
                      "-j %d: %s", jobs, out);
        ck_assert_msg(strstr(out, "interrupted after 0 of 2 runs") != NULL && strstr(out, "status 130\n"), "%s", out);
        free(out);
    }
}
END_TEST

/* The reference is itself right: every run once, in id order, each point's
 * swept value on its rows (ids 0-1 at 5Gb/s, 2-3 at 10Gb/s, 4-5 at 40Gb/s). */
START_TEST(test_sweep_reference)
{
    char p[600];
    snprintf(p, sizeof p, "%s/ref/runs.csv", sweep_root);
    ck_assert_int_eq(csv_rows(p), SWEEP_RUNS);
    char *t = slurp(p);
    ck_assert_ptr_nonnull(strstr(t, "run,point,replica,seed,config_hash,network.bandwidth,"));
    const char *line = strchr(t, '\n') + 1;
    const char *bw[] = {"5Gb/s", "10Gb/s", "40Gb/s"};
    for (int id = 0; id < SWEEP_RUNS; id++) {
        char want[64];
        int n = snprintf(want, sizeof want, "%d,%d,%d,7,", id, id / 2, id % 2);
        ck_assert_msg(strncmp(line, want, (size_t)n) == 0, "row %d: %.40s", id, line);
        const char *f = line;
        for (int k = 0; k < 5; k++)
            f = strchr(f, ',') + 1;
        ck_assert_msg(strncmp(f, bw[id / 2], strlen(bw[id / 2])) == 0, "row %d: %.60s", id, line);
        line = strchr(line, '\n') + 1;
    }
    free(t);
}
END_TEST

/* Results never depend on how the sweep was spread: -j 2, and two shards
 * merged, give the files of -j 1 byte for byte. */
START_TEST(test_sweep_jobs_and_shards)
{
    char args[1024], dir[600];
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q -j 2 --out %s/j2", sweep_root);
    run_ok(args);
    snprintf(dir, sizeof dir, "%s/j2", sweep_root);
    assert_sweep_as_ref(dir);

    /* shard K/N runs the ids with id % N == K-1: 0,2,4 and 1,3,5 */
    for (int k = 1; k <= 2; k++) {
        snprintf(args, sizeof args, "run " SWEEP_CFG " -q --shard %d/2 --out %s/shard%d", k,
                 sweep_root, k);
        run_ok(args);
        char p[700];
        snprintf(p, sizeof p, "%s/shard%d/runs.csv", sweep_root, k);
        ck_assert_int_eq(csv_rows(p), SWEEP_RUNS / 2);
        char *t = slurp(p);
        for (int id = 0; id < SWEEP_RUNS; id++) {
            char row[32];
            snprintf(row, sizeof row, "\n%d,%d,%d,", id, id / 2, id % 2);
            ck_assert_msg((strstr(t, row) != NULL) == (id % 2 == k - 1), "shard %d, run %d", k, id);
        }
        free(t);
    }
    /* task 3 of a Slurm array 2-3 is shard 2/2: runs 1, 3 and 5 */
    setenv("SLURM_ARRAY_TASK_ID", "3", 1);
    setenv("SLURM_ARRAY_TASK_MIN", "2", 1);
    setenv("SLURM_ARRAY_TASK_COUNT", "2", 1);
    int st;
    char *out = run_tasknet("run " SWEEP_CFG " --list-runs", &st);
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("SLURM_ARRAY_TASK_MIN");
    unsetenv("SLURM_ARRAY_TASK_COUNT");
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_msg(strcmp(out, "run,point,replica,seed,done,network.bandwidth\n"
                              "1,0,1,7,no,5Gb/s\n3,1,1,7,no,10Gb/s\n5,2,1,7,no,40Gb/s\n") == 0,
                  "%s", out);
    free(out);

    snprintf(args, sizeof args, "merge %s/merged %s/shard2 %s/shard1", sweep_root, sweep_root,
             sweep_root);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_msg(strstr(out, "6 of 6 runs") != NULL, "%s", out);
    free(out);
    snprintf(dir, sizeof dir, "%s/merged", sweep_root);
    assert_sweep_as_ref(dir);
}
END_TEST

/* A sweep over files named relatively (configs/examples/infiniband.xml:
 * values="../data/ib-fattree.dot ...", from the configuration's folder):
 * its results folder's config.xml says that folder (base="...") and keeps
 * the values as written, so the shards merge, the merged summary equals
 * the one run's byte for byte, and the folder's config.xml validates and
 * resumes (it was refused: "cannot read '../data/ib-fattree.dot'", from the
 * results folder). */
START_TEST(test_relative_axis_files_merge)
{
    char args[2048];
    static const char *const fast = "configs/examples/infiniband.xml -q --set workload.duration=5us";
    snprintf(args, sizeof args, "run %s --out %s/ib", fast, sweep_root);
    run_ok(args);
    for (int k = 1; k <= 2; k++) {
        snprintf(args, sizeof args, "run %s --shard %d/2 --out %s/ib%d", fast, k, sweep_root, k);
        run_ok(args);
    }
    snprintf(args, sizeof args, "merge %s/ibm %s/ib1 %s/ib2", sweep_root, sweep_root, sweep_root);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 && strstr(out, "6 of 6 runs") != NULL, "%s", out);
    free(out);
    char p[700];
    snprintf(p, sizeof p, "%s/ib/summary.csv", sweep_root);
    char *one = slurp(p);
    snprintf(p, sizeof p, "%s/ibm/summary.csv", sweep_root);
    char *merged = slurp(p);
    ck_assert_msg(one && merged && strcmp(one, merged) == 0, "merged summary differs:\n%s\n---\n%s", one, merged);
    ck_assert_ptr_nonnull(strstr(one, ",../data/ib-fattree.dot,")); /* the values as written */
    free(one);
    free(merged);
    snprintf(p, sizeof p, "%s/ib/config.xml", sweep_root);
    char *cx = slurp(p);
    ck_assert_msg(strstr(cx, " base=\"/") != NULL && strstr(cx, "/configs/examples\">") != NULL, "%s", cx);
    free(cx);
    snprintf(args, sizeof args, "validate %s/ibm/config.xml", sweep_root);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 && strstr(out, "valid (3 points x 2 replicas)") != NULL, "%s", out);
    free(out);
    snprintf(args, sizeof args, "run %s/ib/config.xml --out %s/ib", sweep_root, sweep_root);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 && strstr(out, "6 runs already done") != NULL, "%s", out);
    free(out);
}
END_TEST

/* Start `tasknet ARGS` in its own process group, output to log. */
static pid_t spawn_tasknet(const char *args, const char *log)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' %s >'%s' 2>&1", srcdir(), TASKNET_BIN, args, log);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        setpgid(pid, pid);
    return pid;
}

static const struct {
    int sig;
    int jobs;
} kills[] = {{SIGKILL, 1}, {SIGINT, 1}, {SIGTERM, 1}, {SIGKILL, 2}, {SIGINT, 2}, {SIGTERM, 2}};

/* Kill a sweep midway (SIGKILL to its process group, workers included, or
 * Ctrl-C's SIGINT), then run the same command again: it resumes from the
 * runs already in runs.csv, runs only the others, and ends with the files
 * of an uninterrupted sweep (no run lost, none twice). */
START_TEST(test_sweep_resume_after_kill)
{
    int sig = kills[_i].sig, jobs = kills[_i].jobs;
    char dir[600], csv[700], log[700], args[1024];
    snprintf(dir, sizeof dir, "%s/killed-%d-%d", sweep_root, sig, jobs);
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    snprintf(log, sizeof log, "%s.log", dir);
    snprintf(args, sizeof args, "run " SWEEP_CFG " -j %d --out %s", jobs, dir);
    pid_t pid = spawn_tasknet(args, log);
    ck_assert_int_gt(pid, 0);
    /* wait for the first finished run (runs take ~0.1 s: poll every 2 ms) */
    long rows = wait_for_rows(csv, 1, 30000);
    ck_assert_int_ge(rows, 1);
    ck_assert_msg(rows < SWEEP_RUNS, "the sweep ended before it could be killed");
    ck_assert_int_eq(kill(-pid, sig), 0);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    char *text = slurp(log);
    if (sig == SIGKILL) {
        ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    } else {
        /* Ctrl-C or kill: runs under way are dropped, finished ones kept, the
         * files rewritten; the status is the shell's for a death by that
         * signal, 128 + signal (130 for SIGINT, 143 for SIGTERM) */
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 128 + sig, "signal %d: status %d: %s", sig, st, text);
        ck_assert_msg(strstr(text, "interrupted after") != NULL, "%s", text);
        ck_assert_msg(strstr(text, "run the same command again") != NULL, "%s", text);
    }
    free(text);
    long kept = csv_rows(csv);
    ck_assert_int_ge(kept, rows);
    ck_assert_msg(kept < SWEEP_RUNS, "all runs done before the kill took effect");

    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    char want[128];
    snprintf(want, sizeof want, "%ld run%s already done, resuming", kept, kept == 1 ? "" : "s");
    ck_assert_msg(strstr(out, want) != NULL, "expected '%s' in:\n%s", want, out);
    /* only the missing runs ran */
    snprintf(want, sizeof want, "\n%ld run%s in ", SWEEP_RUNS - kept, SWEEP_RUNS - kept == 1 ? "" : "s");
    ck_assert_msg(strstr(out, want) != NULL, "expected '%s' in:\n%s", want + 1, out);
    free(out);
    assert_sweep_as_ref(dir);
}
END_TEST

/* A folder holds one configuration's results: another configuration is
 * refused, saying what differs, and the folder is left as it was. */
START_TEST(test_sweep_refuses_changed_config)
{
    char dir[600], args[1200];
    snprintf(dir, sizeof dir, "%s/changed", sweep_root);
    snprintf(args, sizeof args, "cp -r '%s/ref' '%s'", sweep_root, dir);
    ck_assert_int_eq(system(args), 0);
    int st;
    /* same columns, other parameter values */
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q --set workload.jobs=100 --out %s", dir);
    char *out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "was made with a different configuration") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "results are never mixed") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "workload.jobs: 2000 in ") != NULL, "%s", out);
    ck_assert_msg(strstr(out, ", 100 now") != NULL, "%s", out);
    free(out);
    /* another seed is another configuration too */
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q --seed 8 --out %s", dir);
    out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "run.seed: 7 in ") != NULL, "%s", out);
    free(out);
    /* other axes: other columns */
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q --set network.bandwidth=1Gb/s --out %s", dir);
    out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "holds results with other columns") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "sweep axis 1: network.bandwidth = 5Gb/s 10Gb/s 40Gb/s in ") != NULL,
                  "%s", out);
    free(out);
    assert_sweep_as_ref(dir);
    assert_same_as_ref(dir, "config.xml");
    /* and the same configuration again finds nothing to do */
    snprintf(args, sizeof args, "run " SWEEP_CFG " --out %s", dir);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_msg(strstr(out, "6 runs already done") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\n0 runs in ") != NULL, "%s", out);
    free(out);
    assert_sweep_as_ref(dir);
}
END_TEST

/* Ctrl-C stops a long run at once (the run is dropped, not waited for),
 * and a second one is not needed. A run of 3 10^5 jobs takes a minute; the
 * process must be gone within 5 s of the signal. */
START_TEST(test_interrupt_long_run)
{
    char dir[600], csv[700], log[700], args[1024];
    snprintf(dir, sizeof dir, "%s/long", sweep_root);
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    snprintf(log, sizeof log, "%s.log", dir);
    snprintf(args, sizeof args, "run " SWEEP_CFG " --set workload.jobs=300000 --runs 0 --out %s", dir);
    pid_t pid = spawn_tasknet(args, log);
    ck_assert_int_gt(pid, 0);
    /* runs.csv (its header) exists once the sweep has started */
    ck_assert_int_eq(wait_for_rows(csv, 0, 5000), 0);
    struct timespec settle = {0, 300000000};
    nanosleep(&settle, NULL); /* well inside the simulation by now */
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    int st = 0;
    pid_t got = 0;
    for (int i = 0; i < 500 && got == 0; i++) {
        got = waitpid(pid, &st, WNOHANG);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        ck_abort_msg("still running 5 s after SIGINT");
    }
    char *text = slurp(log);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status %d: %s", st, text);
    ck_assert_msg(strstr(text, "interrupted after 0 of 1 runs") != NULL, "%s", text);
    free(text);
    ck_assert_int_eq(csv_rows(csv), 0);
}
END_TEST

/* One request to stop delivered twice at once (GNU timeout signals the
 * process, then its group) is one request: the sweep stops cleanly (status
 * 130, its message); a second Ctrl-C 0.5 s later or more quits at once. */
START_TEST(test_signal_twice_at_once)
{
    char dir[600], csv[700], log[700], args[1024];
    snprintf(dir, sizeof dir, "%s/twice", sweep_root);
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    snprintf(log, sizeof log, "%s.log", dir);
    snprintf(args, sizeof args, "run " SWEEP_CFG " --set workload.jobs=300000 --runs 0 --out %s", dir);
    pid_t pid = spawn_tasknet(args, log);
    ck_assert_int_eq(wait_for_rows(csv, 0, 5000), 0);
    struct timespec apart = {0, 50000000}; /* delivered separately (pending signals merge), well within 0.5 s */
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    nanosleep(&apart, NULL);
    kill(pid, SIGINT);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    char *text = slurp(log);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130 && strstr(text, "interrupted after 0 of 1 runs"),
                  "status %d: %s", st, text);
    free(text);
    /* a second one later is a decision: the default action */
    pid = spawn_tasknet(args, log);
    ck_assert_int_eq(wait_for_rows(csv, 0, 5000), 0);
    struct timespec settle = {0, 300000000}, gap = {0, 700000000};
    nanosleep(&settle, NULL);
    ck_assert_int_eq(kill(pid, SIGINT), 0);
    nanosleep(&gap, NULL);
    kill(pid, SIGINT); /* (it may have finished cleaning up already) */
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg((WIFSIGNALED(st) && WTERMSIG(st) == SIGINT) || (WIFEXITED(st) && WEXITSTATUS(st) == 130),
                  "status %d", st);
}
END_TEST

/* merge refuses folders of another configuration, a run present twice with
 * different results, and folders that are not result folders. */
START_TEST(test_merge_refuses_inconsistent)
{
    char args[2048];
    int st;
    /* a shard of another configuration (fewer jobs) */
    snprintf(args, sizeof args,
             "run " SWEEP_CFG " -q --set workload.jobs=50 --runs 1 --out %s/other", sweep_root);
    run_ok(args);
    snprintf(args, sizeof args, "merge %s/m1 %s/ref %s/other", sweep_root, sweep_root, sweep_root);
    char *out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "other/config.xml differs from") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "different sweeps and are not merged") != NULL, "%s", out);
    free(out);

    /* a copy of the reference whose run 3 says 1999 jobs instead of 2000 */
    snprintf(args, sizeof args, "cp -r '%s/ref' '%s/tampered'", sweep_root, sweep_root);
    ck_assert_int_eq(system(args), 0);
    char p[700];
    snprintf(p, sizeof p, "%s/tampered/runs.csv", sweep_root);
    char *t = slurp(p);
    char *row = strstr(t, "\n3,1,1,");
    ck_assert_ptr_nonnull(row);
    char *f = row + 1;
    for (int k = 0; k < 6; k++) /* run,point,replica,seed,config_hash,network.bandwidth */
        f = strchr(f, ',') + 1;
    ck_assert_msg(strncmp(f, "2000,", 5) == 0, "jobs_completed of run 3: %.20s", f);
    memcpy(f, "1999", 4);
    FILE *w = fopen(p, "wb");
    fputs(t, w);
    fclose(w);
    snprintf(args, sizeof args, "merge %s/m2 %s/ref %s/tampered", sweep_root, sweep_root, sweep_root);
    /* the edit alone breaks the row's own checksum (row_fnv1a64, issue 23) */
    run_refused(args, "tampered/runs.csv:5: the row's cells do not match its checksum (row_fnv1a64)");
    /* a row with its checksum made anew (two sweeps wrote the folder, say):
     * FNV-1a 64 of the text before the last comma */
    char *end = strchr(row + 1, '\n'), *last = end;
    while (*last != ',')
        last--;
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = row + 1; c < last; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    memcpy(last + 1, hex, 16);
    w = fopen(p, "wb");
    fputs(t, w);
    fclose(w);
    free(t);
    run_refused(args, "tampered/runs.csv:5: run already present elsewhere with different results");
    /* resuming a folder whose runs.csv holds run 3 twice, once tampered */
    snprintf(args, sizeof args, "cp -r '%s/ref' '%s/dup' && tail -n +5 '%s/tampered/runs.csv' | head -n 1 >> '%s/dup/runs.csv'",
             sweep_root, sweep_root, sweep_root, sweep_root);
    ck_assert_int_eq(system(args), 0);
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q --out %s/dup", sweep_root);
    run_refused(args, "dup/runs.csv:8: run 3 appears twice with different results");
    /* a runs.csv saved with CRLF line ends resumes as the LF one */
    snprintf(args, sizeof args, "cp -r '%s/ref' '%s/crlf' && sed -i 's/$/\\r/' '%s/crlf/runs.csv'", sweep_root,
             sweep_root, sweep_root);
    ck_assert_int_eq(system(args), 0);
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q --out %s/crlf", sweep_root);
    run_ok(args);
    snprintf(p, sizeof p, "%s/crlf", sweep_root);
    assert_sweep_as_ref(p);

    /* not a result folder */
    snprintf(args, sizeof args, "merge %s/m3 %s/ref %s/no-such-folder", sweep_root, sweep_root,
             sweep_root);
    run_refused(args, "no-such-folder/config.xml");
    /* and a folder merged with itself is just itself */
    snprintf(args, sizeof args, "merge %s/m4 %s/ref %s/ref", sweep_root, sweep_root, sweep_root);
    run_ok(args);
    snprintf(p, sizeof p, "%s/m4", sweep_root);
    assert_sweep_as_ref(p);
    /* also when the output is that folder spelled another way: its
     * histograms are not truncated by copying them onto themselves */
    snprintf(args, sizeof args, "merge %s/m4 %s/./m4", sweep_root, sweep_root);
    run_ok(args);
    assert_sweep_as_ref(p);
}
END_TEST

#ifdef TASKNET_MPI
/* The MPI driver (built by ./configure --with-mpi): rank 0 hands out runs
 * and writes, two ranks simulate; the files are those of -j 1, also when
 * it resumes a folder that -j 1 began. Skipped when mpirun is not found. */
START_TEST(test_sweep_mpi)
{
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        fprintf(stderr, "check_cli: mpirun not found, MPI sweep not tested\n");
        return;
    }
    /* Open MPI wants to be told that root and more ranks than cores are fine */
    const char *flags = system("mpirun --version 2>&1 | grep -q 'Open MPI'") == 0
                            ? "--allow-run-as-root --oversubscribe "
                            : "";
    /* MPI libraries keep memory to the end: no leak report from sanitizer builds */
    const char *env = "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" ";
    char cmd[2048], dir[600];
    snprintf(cmd, sizeof cmd, "cd '%s' && %smpirun %s-np 3 '%s' run " SWEEP_CFG " -q --out %s/mpi 2>&1",
             srcdir(), env, flags, TASKNET_BIN, sweep_root);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
    snprintf(dir, sizeof dir, "%s/mpi", sweep_root);
    assert_sweep_as_ref(dir);
    /* -np 1 is a sweep without MPI */
    snprintf(cmd, sizeof cmd, "cd '%s' && %smpirun %s-np 1 '%s' run " SWEEP_CFG " -q --out %s/mpi1 2>&1",
             srcdir(), env, flags, TASKNET_BIN, sweep_root);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
    snprintf(dir, sizeof dir, "%s/mpi1", sweep_root);
    assert_sweep_as_ref(dir);

    snprintf(cmd, sizeof cmd, "run " SWEEP_CFG " -q --runs 1,4 --out %s/mpi-resume", sweep_root);
    run_ok(cmd);
    snprintf(cmd, sizeof cmd, "cd '%s' && %smpirun %s-np 3 '%s' run " SWEEP_CFG " --out %s/mpi-resume 2>&1",
             srcdir(), env, flags, TASKNET_BIN, sweep_root);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char buf[1 << 14];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    ck_assert_msg(pclose(p) == 0, "%s\n%s", cmd, buf);
    ck_assert_msg(strstr(buf, "2 runs already done, resuming") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "4 runs in ") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "3 MPI ranks") != NULL, "%s", buf);
    snprintf(dir, sizeof dir, "%s/mpi-resume", sweep_root);
    assert_sweep_as_ref(dir);
}
END_TEST
#endif

/* ----------------------------------------------------------- timelines */

/* A minimal JSON validator (RFC 8259 grammar; no semantics): the end of the
 * value starting at s, or NULL. */
static const char *json_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

static const char *json_value(const char *s, int depth);

static const char *json_string(const char *s)
{
    if (*s++ != '"')
        return NULL;
    for (; *s != '"'; s++) {
        if ((unsigned char)*s < 0x20)
            return NULL;
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)s[i]))
                        return NULL;
                s += 4;
            } else if (!strchr("\"\\/bfnrt", *s) || !*s) {
                return NULL;
            }
        }
    }
    return s + 1;
}

static const char *json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (isdigit((unsigned char)*s))
        while (isdigit((unsigned char)*s))
            s++;
    else
        return NULL;
    if (*s == '.') {
        if (!isdigit((unsigned char)*++s))
            return NULL;
        while (isdigit((unsigned char)*s))
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return NULL;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return s;
}

static const char *json_value(const char *s, int depth)
{
    s = json_ws(s);
    if (depth > 64)
        return NULL;
    if (*s == '{' || *s == '[') {
        char close = *s == '{' ? '}' : ']';
        s = json_ws(s + 1);
        if (*s == close)
            return s + 1;
        for (;;) {
            if (close == '}') {
                s = json_string(json_ws(s));
                if (!s)
                    return NULL;
                s = json_ws(s);
                if (*s++ != ':')
                    return NULL;
            }
            s = json_value(s, depth + 1);
            if (!s)
                return NULL;
            s = json_ws(s);
            if (*s == close)
                return s + 1;
            if (*s++ != ',')
                return NULL;
        }
    }
    if (*s == '"')
        return json_string(s);
    if (strncmp(s, "true", 4) == 0 || strncmp(s, "null", 4) == 0)
        return s + 4;
    if (strncmp(s, "false", 5) == 0)
        return s + 5;
    return json_number(s);
}

static long count_of(const char *text, const char *what)
{
    long n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* The paper's figure 7: the timeline of the single z=[4,3] job on N=4 and
 * N=13 nodes at 10Gb/s. The trace is valid JSON; it has one track per node
 * (named in both the compute and the network process); every task of the
 * job (n = 17) shows its init and aggregation phases (2 x 17 compute
 * slices); and every message the run delivered is there once as a slice on
 * its sender's network track, once as a flow start and once as a flow end
 * at its receiver, so each count equals the run's messages_delivered. */
START_TEST(test_trace_fig7)
{
    const unsigned nodes = _i ? 13 : 4;
    char dir[] = "/tmp/tasknet-trace-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char args[1024], path[600];
    snprintf(path, sizeof path, "%s/fig7.json", dir);
    snprintf(args, sizeof args,
             "run configs/paper/fig6.xml --set system.nodes=%u --set network.bandwidth=10Gb/s "
             "--trace %s -q --json",
             nodes, path);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    const char *md = strstr(out, "\"messages_delivered\":");
    ck_assert_ptr_nonnull(md);
    double delivered = json_num(md, "mean", 0);
    const char *jc = strstr(out, "\"jobs_completed\":");
    ck_assert_ptr_nonnull(jc);
    ck_assert_double_eq(json_num(jc, "mean", 0), 1);
    ck_assert_msg(delivered > 0, "%s", out);

    char *t = slurp(path);
    ck_assert_ptr_nonnull(t);
    const char *end = json_value(t, 0);
    ck_assert_msg(end != NULL, "%s is not valid JSON", path);
    ck_assert_msg(*json_ws(end) == '\0', "%s: text after the JSON value", path);
    ck_assert_ptr_nonnull(strstr(t, "\"traceEvents\":["));

    ck_assert_int_eq(count_of(t, "\"name\":\"thread_name\""), 2 * nodes);
    ck_assert_int_eq(count_of(t, "\"cat\":\"compute\""), 2 * 17);
    ck_assert_int_eq(count_of(t, "\"cat\":\"compute\",\"name\":\"init\""), 17);
    ck_assert_int_eq(count_of(t, "\"cat\":\"compute\",\"name\":\"aggregation\""), 17);
    ck_assert_int_eq(count_of(t, "\"cat\":\"message\""), (long)delivered);
    ck_assert_int_eq(count_of(t, "\"ph\":\"s\""), (long)delivered);
    ck_assert_int_eq(count_of(t, "\"ph\":\"f\""), (long)delivered);
    /* one job: every event belongs to job 0 */
    ck_assert_int_eq(count_of(t, "\"job\":0"), count_of(t, "\"job\":"));
    free(t);
    free(out);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A training run worked by hand: 2 workers, 2 layers of 1 MB (uniform
 * sizes, model 2 MB), a fusion per layer (fusion-buffer 0), compute-time
 * 3 ms split forward:backward = 1:2 with time-ratio 1, so forward 0.5 ms
 * per layer and backward 1 ms per layer, one iteration, on the switch at
 * 10 Gb/s (link 20 ns, switch 200 ns). Each worker: forward 0 [0, 0.5 ms],
 * forward 1 [0.5, 1], backward 1 [1, 2], backward 0 [2, 3]. Layer 1's
 * fusion is ready at 2 ms: its ring allreduce of S = 1 MB takes 2(W-1) = 2
 * steps of S/W = 500 kB: 400 us + 2 x 20 ns + 200 ns = 400.24 us each, so
 * [2, 2.80048 ms]; layer 0's at 3 ms: [3, 3.80048 ms]. Each step both ranks
 * send one message: 8 messages. The trace holds exactly these spans (as
 * trace-event JSON, us with 6 decimals), nothing else, is valid JSON; its
 * filters keep what they say; and tracing changes no result. */
START_TEST(test_trace_training_by_hand)
{
    char dir[] = "/tmp/tasknet-trtrace-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cfg[300], path[300], args[1400];
    snprintf(cfg, sizeof cfg, "%s/tr.xml", dir);
    snprintf(path, sizeof path, "%s/tr.json", dir);
    FILE *f = fopen(cfg, "w");
    ck_assert_ptr_nonnull(f);
    fputs("<tasknet version=\"1\">\n  <system nodes=\"2\"/>\n"
          "  <network type=\"electrical-switch\" bandwidth=\"10Gb/s\"/>\n"
          "  <workload type=\"training\" workers=\"2\" layers=\"2\" layer-sizes=\"uniform\" model-size=\"2MB\"\n"
          "            fusion-buffer=\"0B\" compute-time=\"3ms\" time-ratio=\"1\" backward-ratio=\"2\" iterations=\"1\"/>\n"
          "</tasknet>\n", f);
    fclose(f);
    int st;
    snprintf(args, sizeof args, "run %s -q --json", cfg);
    char *plain = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", plain);
    snprintf(args, sizeof args, "run %s -q --json --trace %s", cfg, path);
    char *traced = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", traced);
    /* tracing changes no result: the same metrics (wall time aside) */
    const char *keys[] = {"\"iteration_time_mean_s\":", "\"allreduce_time_mean_s\":", "\"messages_delivered\":",
                          "\"events\":", "\"msg_latency_mean_s\":"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *a = strstr(plain, keys[k]), *b = strstr(traced, keys[k]);
        ck_assert_msg(a && b, "%s", keys[k]);
        ck_assert_double_eq(json_num(a, "mean", 0), json_num(b, "mean", 0));
    }
    ck_assert_double_eq_tol(json_num(strstr(plain, "\"iteration_time_mean_s\":"), "mean", 0), 3.80048e-3, 1e-15);
    free(plain);
    free(traced);

    char *t = slurp(path);
    ck_assert_ptr_nonnull(t);
    const char *end = json_value(t, 0);
    ck_assert_msg(end != NULL && *json_ws(end) == '\0', "%s is not valid JSON", path);
    const char *want[] = {
        "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"cat\":\"compute\",\"name\":\"forward 0\",\"ts\":0.000000,\"dur\":500.000000,",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"cat\":\"compute\",\"name\":\"forward 0\",\"ts\":0.000000,\"dur\":500.000000,",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"cat\":\"compute\",\"name\":\"forward 1\",\"ts\":500.000000,\"dur\":500.000000,",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"cat\":\"compute\",\"name\":\"forward 1\",\"ts\":500.000000,\"dur\":500.000000,",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"cat\":\"compute\",\"name\":\"backward 1\",\"ts\":1000.000000,\"dur\":1000.000000,",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"cat\":\"compute\",\"name\":\"backward 1\",\"ts\":1000.000000,\"dur\":1000.000000,",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"cat\":\"compute\",\"name\":\"backward 0\",\"ts\":2000.000000,\"dur\":1000.000000,",
        "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"cat\":\"compute\",\"name\":\"backward 0\",\"ts\":2000.000000,\"dur\":1000.000000,",
        "{\"ph\":\"b\",\"pid\":2,\"tid\":0,\"cat\":\"allreduce\",\"name\":\"allreduce layers 1-1 (iteration 0)\",\"id\":1,"
        "\"ts\":2000.000000,\"args\":{\"bytes\":1000000}}",
        "{\"ph\":\"e\",\"pid\":2,\"tid\":0,\"cat\":\"allreduce\",\"name\":\"allreduce layers 1-1 (iteration 0)\",\"id\":1,"
        "\"ts\":2800.480000}",
        "{\"ph\":\"b\",\"pid\":2,\"tid\":0,\"cat\":\"allreduce\",\"name\":\"allreduce layers 0-0 (iteration 0)\",\"id\":2,"
        "\"ts\":3000.000000,\"args\":{\"bytes\":1000000}}",
        "{\"ph\":\"e\",\"pid\":2,\"tid\":0,\"cat\":\"allreduce\",\"name\":\"allreduce layers 0-0 (iteration 0)\",\"id\":2,"
        "\"ts\":3800.480000}",
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        ck_assert_msg(strstr(t, want[k]) != NULL, "no %s in\n%s", want[k], t);
    /* the 8 ring steps: 0->1 and 1->0 at 2000, 2400.24, 3000 and 3400.24 us, 400.24 us each */
    const char *steps[] = {"2000.000000", "2400.240000", "3000.000000", "3400.240000"};
    for (int k = 0; k < 4; k++)
        for (int src = 0; src < 2; src++) {
            char m[300];
            snprintf(m, sizeof m,
                     "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"cat\":\"message\",\"name\":\"ring step\",\"ts\":%s,"
                     "\"dur\":400.240000,\"args\":{\"src\":%d,\"dst\":%d,\"bytes\":500000}}",
                     src, steps[k], src, 1 - src);
            ck_assert_msg(strstr(t, m) != NULL, "no %s", m);
        }
    /* and nothing else: 8 compute slices, 8 messages with their 2 flow
     * ends, 2 allreduce spans (begin and end), no wait (one iteration), no
     * queueing (each allreduce starts when its fusion is ready) */
    ck_assert_int_eq(count_of(t, "\"ph\":\"X\""), 16);
    ck_assert_int_eq(count_of(t, "\"cat\":\"compute\""), 8);
    ck_assert_int_eq(count_of(t, "\"cat\":\"message\""), 8);
    ck_assert_int_eq(count_of(t, "\"ph\":\"s\""), 8);
    ck_assert_int_eq(count_of(t, "\"ph\":\"f\""), 8);
    ck_assert_int_eq(count_of(t, "\"ph\":\"b\""), 2);
    ck_assert_int_eq(count_of(t, "\"ph\":\"e\""), 2);
    ck_assert_int_eq(count_of(t, "\"ph\":\"M\""), 6 + 2 * 2); /* 3 processes named and sorted, 2 tracks per node */
    free(t);

    /* node 1 only: its 4 compute slices; every message touches it (W = 2) */
    snprintf(args, sizeof args, "run %s -q --trace %s --trace-nodes 1", cfg, path);
    run_ok(args);
    t = slurp(path);
    ck_assert_int_eq(count_of(t, "\"cat\":\"compute\""), 4);
    ck_assert_int_eq(count_of(t, "\"pid\":0,\"tid\":0,\"cat\":\"compute\""), 0);
    ck_assert_int_eq(count_of(t, "\"cat\":\"message\""), 8);
    ck_assert_int_eq(count_of(t, "\"name\":\"thread_name\""), 2);
    free(t);
    /* [2.5 ms, 3.5 ms): backward 0 [2, 3] on both ranks; both allreduces;
     * the messages of [2.40024, 2.80048], [3, 3.40024] and [3.40024, 3.80048] */
    snprintf(args, sizeof args, "run %s -q --trace %s --trace-window 2.5ms:3.5ms", cfg, path);
    run_ok(args);
    t = slurp(path);
    ck_assert_int_eq(count_of(t, "\"cat\":\"compute\""), 2);
    ck_assert_int_eq(count_of(t, "\"name\":\"backward 0\""), 2);
    ck_assert_int_eq(count_of(t, "\"ph\":\"b\""), 2);
    ck_assert_int_eq(count_of(t, "\"cat\":\"message\""), 6);
    end = json_value(t, 0);
    ck_assert_msg(end != NULL && *json_ws(end) == '\0', "%s is not valid JSON", path);
    free(t);
    snprintf(args, sizeof args, "run %s -q --trace %s --trace-window 3ms", cfg, path);
    run_refused(args, "--trace-window '3ms': expected FROM:TO");
    snprintf(args, sizeof args, "run %s -q --trace %s --trace-nodes 3-1", cfg, path);
    run_refused(args, "--trace-nodes '3-1'");
    snprintf(args, sizeof args, "run %s -q --trace-nodes 1", cfg);
    run_refused(args, "give --trace FILE.json");
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(args), 0);
}
END_TEST

/* Task programs: the 4-task linear all-to-all on the switch (check_kernels'
 * K4) sends T(T-1) = 12 messages; each is in the trace once, from its
 * sender's network track to its receiver; every task's waits in a blocking
 * recv are on its own track. dc-flows: every delivered flow is a span and
 * a message. A task graph (dag): every task's compute and every message. */
START_TEST(test_trace_programs_and_flows)
{
    char dir[] = "/tmp/tasknet-pgtrace-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cfg[300], path[300], args[1400];
    snprintf(cfg, sizeof cfg, "%s/k4.xml", dir);
    snprintf(path, sizeof path, "%s/k4.json", dir);
    FILE *f = fopen(cfg, "w");
    ck_assert_ptr_nonnull(f);
    fputs("<tasknet version=\"1\">\n  <system nodes=\"4\"/>\n"
          "  <network type=\"electrical-switch\" bandwidth=\"10Gb/s\"/>\n"
          "  <workload type=\"kernel\" kernel=\"all-to-all\" order=\"linear\" message-size=\"1kB\"/>\n"
          "</tasknet>\n", f);
    fclose(f);
    snprintf(args, sizeof args, "run %s -q --trace %s", cfg, path);
    run_ok(args);
    char *t = slurp(path);
    ck_assert_ptr_nonnull(t);
    const char *end = json_value(t, 0);
    ck_assert_msg(end != NULL && *json_ws(end) == '\0', "%s is not valid JSON", path);
    ck_assert_int_eq(count_of(t, "\"cat\":\"message\""), 12);
    ck_assert_int_eq(count_of(t, "\"ph\":\"f\""), 12);
    for (int src = 0; src < 4; src++)
        for (int dst = 0; dst < 4; dst++) {
            char m[64];
            snprintf(m, sizeof m, "\"src\":%d,\"dst\":%d,\"bytes\":1000}", src, dst);
            ck_assert_int_eq(count_of(t, m), src != dst);
        }
    ck_assert_int_gt(count_of(t, "\"name\":\"wait recv\""), 0);
    free(t);

    snprintf(args, sizeof args,
             "run configs/examples/websearch-scheduling.xml --set network.host-scheduling=fifo --replicas 1 "
             "--set workload.duration=2ms -q --json --trace %s", path);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    double delivered = json_num(strstr(out, "\"messages_delivered\":"), "mean", 0);
    ck_assert_double_gt(delivered, 0);
    t = slurp(path);
    end = json_value(t, 0);
    ck_assert_msg(end != NULL && *json_ws(end) == '\0', "%s is not valid JSON", path);
    ck_assert_int_eq(count_of(t, "\"ph\":\"b\",\"pid\":2,"), (long)delivered);
    ck_assert_int_eq(count_of(t, "\"cat\":\"message\""), (long)delivered);
    free(t);
    free(out);

    /* dag: every task of every job computes once on its node's track
     * (3 jobs of the 10-task fork-join: 30), every message is there */
    snprintf(args, sizeof args, "run configs/dag/forkjoin.xml --set workload.jobs=3 --replicas 1 -q --json --trace %s",
             path);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    double tasks = json_num(strstr(out, "\"dag_tasks\":"), "mean", 0);
    delivered = json_num(strstr(out, "\"messages_delivered\":"), "mean", 0);
    ck_assert_double_eq(tasks, 10);
    t = slurp(path);
    end = json_value(t, 0);
    ck_assert_msg(end != NULL && *json_ws(end) == '\0', "%s is not valid JSON", path);
    ck_assert_int_eq(count_of(t, "\"cat\":\"compute\""), 3 * 10);
    ck_assert_int_eq(count_of(t, "\"cat\":\"message\""), (long)delivered);
    free(t);
    free(out);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(args), 0);
}
END_TEST

/* ------------------------------------------------------------- plots */

/* Field k (0-based) of a CSV line, copied into out. */
static void csv_field(const char *line, size_t k, char *out, size_t len)
{
    for (size_t i = 0; i < k && line; i++) {
        line = strchr(line, ',');
        line = line ? line + 1 : NULL;
    }
    ck_assert_ptr_nonnull(line);
    size_t n = strcspn(line, ",\n");
    ck_assert_uint_lt(n, len);
    memcpy(out, line, n);
    out[n] = '\0';
}

/* Index of column `name` in a CSV header line. */
static size_t csv_col(const char *header, const char *name)
{
    char f[128];
    for (size_t k = 0;; k++) {
        csv_field(header, k, f, sizeof f);
        if (strcmp(f, name) == 0)
            return k;
    }
}

static int have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* plot's status: 0 with gnuplot, 1 and a note without; the script is written
 * either way. With gnuplot the image is a PNG. */
static void plot_ok(const char *args, const char *image)
{
    int st;
    char *out = run_tasknet(args, &st);
    if (have_gnuplot()) {
        ck_assert_msg(st == 0, "tasknet %s: status %d\n%s", args, st, out);
        FILE *f = fopen(image, "rb");
        ck_assert_msg(f != NULL, "%s not written", image);
        unsigned char sig[8] = {0};
        ck_assert_uint_eq(fread(sig, 1, 8, f), 8);
        fclose(f);
        ck_assert_msg(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0, "%s is not a PNG", image);
    } else {
        ck_assert_int_eq(st, 1);
        ck_assert_msg(strstr(out, "gnuplot is not installed") != NULL, "%s", out);
    }
    free(out);
}

/* A metric against a swept parameter: the script beside the image holds one
 * row per point, x the swept value in the axis' unit, y the summary's mean
 * and the bar its 95% half-width, exactly as summary.csv prints them. */
START_TEST(test_plot_metric_vs_param)
{
    char args[1400], image[600], script[600], summary[600];
    snprintf(image, sizeof image, "%s/plots/speedup.png", sweep_root);
    snprintf(script, sizeof script, "%s/plots/speedup.png.gp", sweep_root);
    snprintf(summary, sizeof summary, "%s/ref/summary.csv", sweep_root);
    snprintf(args, sizeof args, "plot %s/ref --x network.bandwidth --y speedup --out %s", sweep_root, image);
    plot_ok(args, image);
    char *gp = slurp(script), *sum = slurp(summary);
    ck_assert_ptr_nonnull(gp);
    ck_assert_ptr_nonnull(sum);
    size_t cm = csv_col(sum, "speedup_mean"), cc = csv_col(sum, "speedup_ci95");
    const char *data = strstr(gp, "$s0 << EOD\n");
    ck_assert_msg(data != NULL, "%s", gp);
    data += strlen("$s0 << EOD\n");
    const char *row = strchr(sum, '\n') + 1;
    const char *x[] = {"5", "10", "40"}; /* 5Gb/s 10Gb/s 40Gb/s in Gb/s */
    for (int p = 0; p < 3; p++) {
        char mean[64], ci[64], want[200];
        csv_field(row, cm, mean, sizeof mean);
        csv_field(row, cc, ci, sizeof ci);
        snprintf(want, sizeof want, "%s %s %s\n", x[p], mean, ci);
        ck_assert_msg(strncmp(data, want, strlen(want)) == 0, "point %d: script has '%.80s', summary '%s'", p,
                      data, want);
        data += strlen(want);
        row = strchr(row, '\n') + 1;
    }
    ck_assert_msg(strncmp(data, "EOD\n", 4) == 0, "more rows than points: %.80s", data);
    ck_assert_ptr_nonnull(strstr(gp, "set output '"));
    free(gp);
    free(sum);

    /* a path holding a quote and a semicolon is just a path (no shell runs it) */
    snprintf(image, sizeof image, "%s/plots/it's'; touch %s/plots/INJECTED; echo '.png", sweep_root, sweep_root);
    snprintf(args, sizeof args, "plot %s/ref --out \"%s\"", sweep_root, image);
    plot_ok(args, image);
    snprintf(script, sizeof script, "%s/plots/INJECTED", sweep_root);
    ck_assert_msg(access(script, F_OK) != 0, "the image path was run by a shell");

    /* a sweep with runs of point 0 only: the other points' summary cells are
     * empty (not zeros) and the plot has point 0 alone */
    snprintf(args, sizeof args, "run " SWEEP_CFG " -q --runs 0,1 --out %s/partial", sweep_root);
    run_ok(args);
    snprintf(summary, sizeof summary, "%s/partial/summary.csv", sweep_root);
    sum = slurp(summary);
    ck_assert_ptr_nonnull(sum);
    ck_assert_msg(strstr(sum, "\n0,2,5Gb/s,2000,0,") != NULL, "%s", sum);
    ck_assert_msg(strstr(sum, "\n1,0,10Gb/s,,,,") != NULL, "%s", sum);
    ck_assert_msg(strstr(sum, "\n2,0,40Gb/s,,,,") != NULL, "%s", sum);
    free(sum);
    snprintf(image, sizeof image, "%s/plots/partial.png", sweep_root);
    snprintf(script, sizeof script, "%s/plots/partial.png.gp", sweep_root);
    snprintf(args, sizeof args, "plot %s/partial --y speedup --out %s", sweep_root, image);
    plot_ok(args, image);
    gp = slurp(script);
    ck_assert_ptr_nonnull(gp);
    data = strstr(gp, "$s0 << EOD\n5 ");
    ck_assert_msg(data != NULL, "%s", gp);
    data = strchr(data + strlen("$s0 << EOD\n"), '\n') + 1;
    ck_assert_msg(strncmp(data, "EOD\n", 4) == 0, "points without runs drawn: %s", gp);
    free(gp);

    /* an unknown metric is refused, naming it */
    snprintf(args, sizeof args, "plot %s/ref --y speeedup --out %s/plots/bad.png", sweep_root, sweep_root);
    run_refused(args, "speeedup");
}
END_TEST

/* Three swept parameters a, b, c (2 values each): with --x a --series b
 * the curves are split by c too (4 curves of 2 points, never one curve
 * through both values of c), --where c=1 keeps the 2 curves of c = 1, and a
 * --where naming no swept parameter or no value is refused. */
START_TEST(test_plot_where)
{
    char dir[600], path[700], args[1600], image[700], script[700];
    snprintf(dir, sizeof dir, "%s/three", sweep_root);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("point,replicas,a,b,c,m_mean,m_ci95\n", f);
    for (int p = 0; p < 8; p++)
        fprintf(f, "%d,1,%d,%d,%d,%d,0\n", p, p >> 2 & 1, p >> 1 & 1, p & 1, 10 * p);
    fclose(f);
    snprintf(image, sizeof image, "%s/all.png", dir);
    snprintf(script, sizeof script, "%s/all.png.gp", dir);
    snprintf(args, sizeof args, "plot %s --x a --y m --series b --out %s", dir, image);
    plot_ok(args, image);
    char *gp = slurp(script);
    ck_assert_ptr_nonnull(gp);
    /* curve (b, c): the points a = 0 and a = 1 (categories: a is no
     * parameter tasknet knows, so its values are names), m = 10 p with
     * p = 4a + 2b + c; the 4 curves side by side around each category,
     * 0.8 / 4 = 0.2 apart: offsets -0.3, -0.1, 0.1, 0.3 */
    const char *want[] = {"$s0 << EOD\n-0.3 \"0\" 0 0\n0.7 \"1\" 40 0\nEOD",
                          "$s1 << EOD\n-0.1 \"0\" 10 0\n0.9 \"1\" 50 0\nEOD",
                          "$s2 << EOD\n0.1 \"0\" 20 0\n1.1 \"1\" 60 0\nEOD",
                          "$s3 << EOD\n0.3 \"0\" 30 0\n1.3 \"1\" 70 0\nEOD"};
    for (int s = 0; s < 4; s++)
        ck_assert_msg(strstr(gp, want[s]) != NULL, "curve %d: no '%s' in\n%s", s, want[s], gp);
    ck_assert_ptr_null(strstr(gp, "$s4"));
    free(gp);
    snprintf(image, sizeof image, "%s/c1.png", dir);
    snprintf(script, sizeof script, "%s/c1.png.gp", dir);
    snprintf(args, sizeof args, "plot %s --x a --y m --series b --where c=1 --out %s", dir, image);
    plot_ok(args, image);
    gp = slurp(script);
    ck_assert_ptr_nonnull(gp);
    /* two curves 0.4 apart: offsets -0.2 and 0.2 */
    ck_assert_msg(strstr(gp, "$s0 << EOD\n-0.2 \"0\" 10 0\n0.8 \"1\" 50 0\nEOD") &&
                      strstr(gp, "$s1 << EOD\n0.2 \"0\" 30 0\n1.2 \"1\" 70 0\nEOD") &&
                      !strstr(gp, "$s2"),
                  "%s", gp);
    free(gp);
    snprintf(args, sizeof args, "plot %s --x a --y m --where c=7 --out %s/no.png", dir, dir);
    run_refused(args, "no point has c=7");
    snprintf(args, sizeof args, "plot %s --x a --y m --where d=1 --out %s/no.png", dir, dir);
    run_refused(args, "not a swept parameter");
}
END_TEST

/* Latency CCDF: each point's curve starts at 1 and never rises, and the
 * counts behind it are the histograms' (the step after bin b is the
 * fraction of messages in later bins). A class with no messages is named. */
START_TEST(test_plot_latency)
{
    char args[1400], image[600], script[600];
    snprintf(image, sizeof image, "%s/plots/lat.png", sweep_root);
    snprintf(script, sizeof script, "%s/plots/lat.png.gp", sweep_root);
    snprintf(args, sizeof args, "plot %s/ref --latency --class control --out %s", sweep_root, image);
    plot_ok(args, image);
    char *gp = slurp(script);
    ck_assert_ptr_nonnull(gp);
    /* after the plot command (its lines but the last end in a backslash):
     * one block of "x y" rows per point, each ended by "e" */
    const char *d = strstr(gp, "\nplot ");
    ck_assert_ptr_nonnull(d);
    d++;
    for (;;) {
        const char *eol = strchr(d, '\n');
        ck_assert_ptr_nonnull(eol);
        int more = eol > d && eol[-1] == '\\';
        d = eol + 1;
        if (!more)
            break;
    }
    double second_y[3] = {0};
    for (int c = 0; c < 3; c++) {
        double prev = 2, x, y, xprev = 0;
        int rows = 0;
        while (strncmp(d, "e\n", 2) != 0) {
            ck_assert_int_eq(sscanf(d, "%lf %lf", &x, &y), 2);
            if (rows == 0)
                ck_assert_double_eq(y, 1);
            if (rows == 1)
                second_y[c] = y;
            ck_assert_msg(y <= prev && y > 0 && x > xprev, "curve %d row %d: %g %g", c, rows, x, y);
            prev = y;
            xprev = x;
            rows++;
            d = strchr(d, '\n') + 1;
        }
        ck_assert_int_gt(rows, 2);
        d += 2;
    }
    ck_assert_msg(*d == '\0', "text after the 3 curves: %.80s", d);
    free(gp);

    /* point 0 = runs 0 and 1: the second row is the fraction of control
     * messages above the first (lowest) bin of their merged histograms */
    double lo_min = 1e300, first = 0, total = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int run = 0; run < 2; run++) {
            char path[700];
            snprintf(path, sizeof path, "%s/ref/latency/run-%d.csv", sweep_root, run);
            char *h = slurp(path);
            ck_assert_ptr_nonnull(h);
            for (char *l = strchr(h, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
                double lo, hi, cnt;
                if (strncmp(l, "control,", 8) == 0 && sscanf(l + 8, "%lf,%lf,%lf", &lo, &hi, &cnt) == 3) {
                    if (pass == 0 && lo < lo_min)
                        lo_min = lo;
                    if (pass == 1) {
                        total += cnt;
                        first += lo == lo_min ? cnt : 0;
                    }
                }
            }
            free(h);
        }
    ck_assert_double_gt(total, 0);
    ck_assert_double_eq_tol(second_y[0], (total - first) / total, 1e-8);

    /* uniform-random traffic has no control messages */
    char dir[400];
    snprintf(dir, sizeof dir, "%s/ur", sweep_root);
    snprintf(args, sizeof args,
             "run configs/examples/spinet-load.xml --set network.type=spinet --set network.extra-stages=1 "
             "--set workload.offered-load=0.3 --set system.nodes=16 --replicas 1 -q --out %s", dir);
    run_ok(args);
    snprintf(args, sizeof args, "plot %s --latency --class control --out %s/c.png", dir, dir);
    run_refused(args, "no control messages in the 1 latency histograms");
    snprintf(args, sizeof args, "plot %s --latency --class data --out %s/d.png", dir, dir);
    snprintf(image, sizeof image, "%s/d.png", dir);
    plot_ok(args, image);
}
END_TEST

/* Every string in a gnuplot script is data, never code: a title holding a
 * line break (whose next line would run as gnuplot commands, system()
 * included) is refused, and a result cell holding control characters is
 * written without them. The image format follows the name's extension:
 * .pdf through pdfcairo (a PDF, not PNG bytes), an unknown one refused. */
START_TEST(test_plot_strings_and_formats)
{
    char args[2400], image[700], script[700], dir[400];
    snprintf(dir, sizeof dir, "%s/plotsafe", sweep_root);
    snprintf(args, sizeof args, "mkdir -p '%s' && cp '%s/ref/summary.csv' '%s/ref/config.xml' '%s/'", dir, sweep_root,
             sweep_root, dir);
    ck_assert_int_eq(system(args), 0);
    snprintf(args, sizeof args, "plot %s --title \"$(printf 'fig\\nsystem \"touch %s/INJECTED\" #')\" --out %s/t.png",
             dir, dir, dir);
    run_refused(args, "--title holds a control character (code 10 at offset 3)");
    snprintf(image, sizeof image, "%s/INJECTED", dir);
    ck_assert_msg(access(image, F_OK) != 0, "the title ran as gnuplot code");
    snprintf(image, sizeof image, "%s/t.png.gp", dir);
    ck_assert_msg(access(image, F_OK) != 0, "a script was written");

    /* a hand-edited summary cell with an escape sequence and a quote */
    snprintf(args, sizeof args, "sed -i 's/,10Gb\\/s,/,\"10G\\x1b[31m\"\"b\\/s\",/' '%s/summary.csv' && grep -q "
             "'31m' '%s/summary.csv'", dir, dir);
    ck_assert_int_eq(system(args), 0);
    snprintf(image, sizeof image, "%s/esc.png", dir);
    snprintf(script, sizeof script, "%s/esc.png.gp", dir);
    snprintf(args, sizeof args, "plot %s --y speedup --out %s", dir, image);
    plot_ok(args, image);
    char *gp = slurp(script);
    ck_assert_ptr_nonnull(gp);
    for (const char *c = gp; *c; c++)
        ck_assert_msg((unsigned char)*c >= 0x20 || *c == '\n', "control character %d in %s", *c, script);
    ck_assert_msg(strstr(gp, "\"10G [31m b/s\" ") != NULL, "%s", gp);
    free(gp);

    /* formats */
    snprintf(args, sizeof args, "plot %s/ref --y speedup --out %s/f.jpg", sweep_root, dir);
    run_refused(args, "--out");
    run_refused(args, "plot writes .png (pngcairo), .svg or .pdf (pdfcairo) images");
    snprintf(args, sizeof args, "plot %s/ref --y speedup --out %s/noext", sweep_root, dir);
    run_refused(args, "the name has no extension");
    snprintf(image, sizeof image, "%s/f.pdf", dir);
    snprintf(args, sizeof args, "plot %s/ref --y speedup --out %s", sweep_root, image);
    int st;
    char *out = run_tasknet(args, &st);
    if (have_gnuplot()) {
        ck_assert_msg(st == 0, "%s", out);
        char *pdf = slurp(image);
        ck_assert_msg(pdf && strncmp(pdf, "%PDF-", 5) == 0, "%s is not a PDF", image);
        free(pdf);
    }
    free(out);
    snprintf(script, sizeof script, "%s/f.pdf.gp", dir);
    gp = slurp(script);
    ck_assert_msg(gp && strstr(gp, "set terminal pdfcairo ") != NULL, "%s", gp ? gp : script);
    free(gp);
}
END_TEST

/* Figure 7: the timeline of the traced job draws one bar per compute phase. */
START_TEST(test_plot_timeline)
{
    char args[1400], trace[600], image[600], script[600];
    snprintf(trace, sizeof trace, "%s/plots/fig7.json", sweep_root);
    snprintf(image, sizeof image, "%s/plots/fig7.png", sweep_root);
    snprintf(script, sizeof script, "%s/plots/fig7.png.gp", sweep_root);
    snprintf(args, sizeof args,
             "run configs/paper/fig6.xml --set system.nodes=4 --set network.bandwidth=10Gb/s --trace %s -q",
             trace);
    run_ok(args);
    snprintf(args, sizeof args, "plot --timeline %s --out %s", trace, image);
    plot_ok(args, image);
    char *gp = slurp(script);
    ck_assert_ptr_nonnull(gp);
    ck_assert_msg(strstr(gp, "set output '") != NULL, "%s", gp);
    free(gp);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_help_and_version);
    tcase_add_test(tc, test_stdout_write_errors);
    tcase_add_test(tc, test_docs_teach);
    tcase_add_test(tc, test_analyze_fig6);
    tcase_add_test(tc, test_analyze_beta_from_load);
    tcase_add_test(tc, test_analyze_fig9);
    tcase_add_test(tc, test_validate_reports_location);
    tcase_add_test(tc, test_validate_good);
    tcase_add_test(tc, test_params_lists_every_path);
    tcase_add_test(tc, test_run_reproducible);
    tcase_add_loop_test(tc, test_trace_fig7, 0, 2);
    tcase_add_test(tc, test_trace_training_by_hand);
    tcase_add_test(tc, test_trace_programs_and_flows);
    suite_add_tcase(s, tc);

    TCase *sw = tcase_create("sweep");
    tcase_set_timeout(sw, 120);
    tcase_add_unchecked_fixture(sw, sweep_setup, sweep_teardown);
    tcase_add_test(sw, test_sweep_reference);
    tcase_add_test(sw, test_option_values_refused);
    tcase_add_test(sw, test_slurm_variables);
    tcase_add_test(sw, test_set_errors_blame_the_option);
    tcase_add_test(sw, test_set_before_checks);
    tcase_add_test(sw, test_resolve_refusals_at_axis);
    tcase_add_test(sw, test_refusals_name_set);
    tcase_add_test(sw, test_check_refusals_at_axis);
    tcase_add_test(sw, test_transport_segment_within_rto);
    tcase_add_test(sw, test_export_first_point_said);
    tcase_add_test(sw, test_config_from_stdin);
    tcase_add_test(sw, test_job_sums_do_not_overflow);
    tcase_add_test(sw, test_horizon_refused_before_the_run);
    tcase_add_test(sw, test_training_horizon_counts_latency);
    tcase_add_test(sw, test_memory_refused_before_the_run);
    tcase_add_test(sw, test_segment_longer_than_mtu_warned);
    tcase_add_test(sw, test_arrivals_past_the_clock);
    tcase_add_test(sw, test_progress_inside_a_run);
    tcase_add_test(sw, test_sweep_jobs_and_shards);
    tcase_add_test(sw, test_relative_axis_files_merge);
    tcase_add_loop_test(sw, test_sweep_resume_after_kill, 0, (int)(sizeof kills / sizeof kills[0]));
    tcase_add_test(sw, test_sweep_refuses_changed_config);
    tcase_add_test(sw, test_interrupt_long_run);
    tcase_add_test(sw, test_signal_twice_at_once);
    tcase_add_test(sw, test_merge_refuses_inconsistent);
    tcase_add_test(sw, test_plot_metric_vs_param);
    tcase_add_test(sw, test_plot_where);
    tcase_add_test(sw, test_plot_latency);
    tcase_add_test(sw, test_plot_timeline);
    tcase_add_test(sw, test_plot_strings_and_formats);
#ifdef TASKNET_MPI
    tcase_add_test(sw, test_sweep_mpi);
#endif
    suite_add_tcase(s, sw);
    return s;
}

TH_MAIN(cli_suite)
