/* Results that do not mislead (issue 23): an interval of one value is
 * empty, not 0; a mean over fewer runs than the point has says over how
 * many; parameters that change nothing are refused; fractional bytes are
 * refused; an edited runs.csv number is detected; the README's numbers are
 * the runs'; the progress line does not claim "ETA 0.0 s" past the
 * estimate. */
#define _GNU_SOURCE /* strcasestr */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "harness.h"

static char root[] = "/tmp/tasknet-results-XXXXXX";

static void setup(void)
{
    /* each test case: the same folder, made anew */
    static int made;
    if (made++) {
        if (mkdir(root, 0700) != 0) {
            perror(root);
            exit(EXIT_FAILURE);
        }
        return;
    }
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        exit(EXIT_FAILURE);
    }
}

static void teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
}

/* The 0-based index of column name in a CSV header line, or -1. */
static int col_of(const char *header, const char *name)
{
    size_t n = strlen(name);
    int i = 0;
    for (const char *p = header; *p && *p != '\n'; i++) {
        const char *e = p + strcspn(p, ",\n");
        if ((size_t)(e - p) == n && strncmp(p, name, n) == 0)
            return i;
        p = *e == ',' ? e + 1 : e;
    }
    return -1;
}

/* Cell col of a CSV line (no quoting in these files) into buf. */
static const char *cell(const char *line, int col, char *buf, size_t len)
{
    const char *p = line;
    for (int i = 0; i < col && p; i++) {
        p = strchr(p, ',');
        if (p)
            p++;
    }
    size_t n = p ? strcspn(p, ",\n") : 0;
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p ? p : "");
    return buf;
}

static char *line_n(char *text, int n) /* 0-based line start */
{
    char *p = text;
    for (int i = 0; i < n && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return p;
}

static char *run_ok(const char *args)
{
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "tasknet %s: status %d\n%s", args, st, out);
    return out;
}

/* One replica: no interval (empty cell, JSON null), not 0; two: a number. */
START_TEST(test_ci_of_one_replica)
{
    char args[1024], path[700], buf[64];
    snprintf(args, sizeof args, "run configs/examples/quickstart.xml --set run.replicas=1 -q -o %s/one", root);
    free(run_ok(args));
    snprintf(path, sizeof path, "%s/one/summary.csv", root);
    char *s = slurp(path);
    ck_assert_ptr_nonnull(s);
    int m = col_of(s, "speedup_mean"), ci = col_of(s, "speedup_ci95");
    ck_assert_int_ge(m, 0);
    ck_assert_int_eq(ci, m + 1);
    ck_assert_msg(atof(cell(line_n(s, 1), m, buf, sizeof buf)) > 0, "%s", s);
    ck_assert_msg(strcmp(cell(line_n(s, 1), ci, buf, sizeof buf), "") == 0, "ci95 of one replica is '%s'", buf);
    free(s);
    char *js = run_ok("run configs/examples/quickstart.xml --set run.replicas=1 -q --json");
    ck_assert_msg(strstr(js, "\"speedup\":{\"mean\":") && strstr(js, "\"ci95\":null"), "%s", js);
    ck_assert_msg(!strstr(js, "\"ci95\":0,") && !strstr(js, "\"ci95\":0}"), "%s", js);
    free(js);
    js = run_ok("run configs/examples/quickstart.xml -q --json"); /* 2 replicas */
    const char *sp = strstr(js, "\"speedup\":{");
    ck_assert_msg(sp && json_num(sp, "ci95", 0) > 0, "%s", js);
    free(js);
}
END_TEST

/* 20 datacenter flows of Google's RPC sizes, 6 replicas: only some runs
 * have a medium flow, and fct_medium_mean_s averages those. summary.csv
 * says over how many (fct_medium_mean_s_replicas), and the mean is the
 * mean of exactly those runs' cells in runs.csv, recomputed here; the JSON
 * says "replicas" beside the mean where it differs from the point's. */
START_TEST(test_replicas_per_metric)
{
    char args[1024], path[700], buf[64];
    snprintf(args, sizeof args,
             "run configs/paper/vef-dcnw.xml --set workload.flows=20 --set run.replicas=6 -q -o %s/dc", root);
    free(run_ok(args));
    snprintf(path, sizeof path, "%s/dc/runs.csv", root);
    char *runs = slurp(path);
    snprintf(path, sizeof path, "%s/dc/summary.csv", root);
    char *sum = slurp(path);
    ck_assert_ptr_nonnull(runs);
    ck_assert_ptr_nonnull(sum);
    int rc = col_of(runs, "fct_medium_mean_s"), rp = col_of(runs, "point");
    int sm = col_of(sum, "fct_medium_mean_s_mean"), sn = col_of(sum, "fct_medium_mean_s_replicas"),
        sr = col_of(sum, "replicas");
    ck_assert_msg(rc >= 0 && sm >= 0 && sn == sm + 2 && sr == 1, "%s", sum);
    /* every metric every run measured has no such column */
    ck_assert_int_eq(col_of(sum, "fct_small_mean_s_replicas"), -1);
    for (int p = 0; p < 4; p++) {
        double total = 0;
        int n = 0;
        for (int i = 1; line_n(runs, i) && *line_n(runs, i); i++) {
            if (atoi(cell(line_n(runs, i), rp, buf, sizeof buf)) != p)
                continue;
            if (*cell(line_n(runs, i), rc, buf, sizeof buf)) {
                total += atof(buf);
                n++;
            }
        }
        char *row = line_n(sum, p + 1);
        ck_assert_int_eq(atoi(cell(row, sr, buf, sizeof buf)), 6);
        ck_assert_int_eq(atoi(cell(row, sn, buf, sizeof buf)), n);
        ck_assert_msg(n > 0 && n < 6, "point %d: %d of 6 runs with a medium flow (the case this tests)", p, n);
        ck_assert_double_eq_tol(atof(cell(row, sm, buf, sizeof buf)), total / n, 1e-15);
    }
    free(runs);
    free(sum);
    char *js = run_ok("run configs/paper/vef-dcnw.xml --set workload.flows=20 --set run.replicas=6 -q --json");
    ck_assert_msg(strstr(js, "\"fct_medium_mean_s\":{\"mean\":") != NULL, "%s", js);
    const char *fm = strstr(js, "\"fct_medium_mean_s\":{");
    const char *close = strchr(fm, '}');
    const char *rep = strstr(fm, "\"replicas\":");
    ck_assert_msg(rep && rep < close, "%.200s", fm);
    free(js);
}
END_TEST

/* A tree parameter its generator does not read changes nothing: refused
 * where it is written, as a fabric's parameter under another fabric is;
 * and the fabric message names the types the sweep does use. */
START_TEST(test_parameters_that_change_nothing)
{
    char path[700];
    snprintf(path, sizeof path, "%s/z.xml", root);
    FILE *f = fopen(path, "w");
    fputs("<tasknet version=\"1\">\n"
          "  <system nodes=\"64\"/>\n"
          "  <network type=\"electrical-switch\" bandwidth=\"10Gb/s\" arity=\"4\"/>\n"
          "  <workload type=\"task-tree\" jobs=\"200\" arrival-rate=\"5000/s\">\n"
          "    <tree generator=\"preferential\" vertices=\"uniform-int(25,175)\"/>\n"
          "    <task init-time=\"10us\" aggregation-time=\"10us\" send-size=\"2kB\" result-size=\"2kB\"/>\n"
          "  </workload>\n"
          "  <sweep>\n"
          "    <axis param=\"workload.tree.z\" values=\"4 3\"/>\n"
          "    <axis param=\"network.type\" values=\"spinet electrical-switch\"/>\n"
          "  </sweep>\n"
          "</tasknet>\n",
          f);
    fclose(f);
    char args[1024];
    int st;
    snprintf(args, sizeof args, "validate %s", path);
    char *out = run_tasknet(args, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "z.xml:3:") && strstr(out, "<network arity=\"4\">: applies to fat-tree, and "
                                                         "network.type is spinet or electrical-switch at every "
                                                         "point of the sweep"),
                  "%s", out);
    ck_assert_msg(strstr(out, "z.xml:9:") && strstr(out, "<axis param=\"workload.tree.z\">: axis workload.tree.z: "
                                                         "applies where workload.tree.generator is deterministic, "
                                                         "and it is preferential at every point of the sweep"),
                  "%s", out);
    free(out);
    out = run_tasknet("validate configs/paper/fig6.xml --set workload.tree.shape=2", &st);
    ck_assert_msg(st == 1 && strstr(out, "--set workload.tree.shape=2: applies where workload.tree.generator is "
                                         "preferential, and it is deterministic"),
                  "%s", out);
    free(out);
    /* a sweep over the generator uses z at one point and shape at the
     * other: both apply somewhere, valid */
    snprintf(path, sizeof path, "%s/gen.xml", root);
    f = fopen(path, "w");
    fputs("<tasknet version=\"1\">\n"
          "  <system nodes=\"64\"/>\n"
          "  <network type=\"electrical-switch\" bandwidth=\"10Gb/s\"/>\n"
          "  <workload type=\"task-tree\" jobs=\"200\" arrival-rate=\"5000/s\">\n"
          "    <tree z=\"4 3\" vertices=\"uniform-int(25,175)\" shape=\"2\"/>\n"
          "    <task init-time=\"10us\" aggregation-time=\"10us\" send-size=\"2kB\" result-size=\"2kB\"/>\n"
          "  </workload>\n"
          "  <sweep><axis param=\"workload.tree.generator\" values=\"deterministic preferential\"/></sweep>\n"
          "</tasknet>\n",
          f);
    fclose(f);
    snprintf(args, sizeof args, "validate %s", path);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 && strstr(out, "valid (2 points x 1 replica)"), "%s", out);
    free(out);
}
END_TEST

/* control-size 0.4B was sent as 0-byte messages (llround) while 0B is
 * refused and the footprint counted 0.4: a fraction of a byte is refused
 * the same way, in the file and by --set; 1B is fine. */
START_TEST(test_fractional_bytes)
{
    int st;
    char *out = run_tasknet("validate configs/examples/quickstart.xml --set workload.control-size=0.4B", &st);
    ck_assert_msg(st == 1 && strstr(out, "0.4B is not a whole number of bytes (a message carries whole bytes; e.g. "
                                         "1B)"),
                  "%s", out);
    free(out);
    out = run_tasknet("validate configs/examples/quickstart.xml --set workload.control-size=0B", &st);
    ck_assert_msg(st == 1 && strstr(out, "must be greater than 0"), "%s", out);
    free(out);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sed 's/control-size=\"40B\"/control-size=\"0.0015kB\"/' configs/examples/quickstart.xml "
             "> %s/cs.xml && \"$TASKNET\" validate %s/cs.xml 2>&1", root, root);
    out = run_sh(cmd, &st);
    ck_assert_msg(strstr(out, "cs.xml:15:63: error: <workload control-size=\"0.0015kB\">: 1.5B is not a whole "
                              "number of bytes"),
                  "%s", out);
    free(out);
    out = run_tasknet("validate configs/examples/quickstart.xml --set workload.control-size=1B -q", &st);
    ck_assert_msg(st == 0, "%s", out);
    free(out);
}
END_TEST

/* The reproducer: a plausible edited number in runs.csv. Resume
 * redoes that run (and ends byte-identical to the untouched folder); merge
 * refuses the row. */
START_TEST(test_edited_number_detected)
{
    char cmd[2048];
    int st;
    snprintf(cmd, sizeof cmd,
             "\"$TASKNET\" run tests/fixtures/sweep_small.xml --set workload.jobs=200 -q -o %s/e && cp -r %s/e %s/ref && "
             "sed -i '2s/,0\\.\\([0-9]\\)/,9.\\1/' %s/e/runs.csv && ! cmp -s %s/e/runs.csv %s/ref/runs.csv && "
             "cp -r %s/e %s/m && "
             "\"$TASKNET\" run tests/fixtures/sweep_small.xml --set workload.jobs=200 -o %s/e 2>&1 && "
             "cmp %s/e/runs.csv %s/ref/runs.csv && cmp %s/e/summary.csv %s/ref/summary.csv && echo SAME",
             root, root, root, root, root, root, root, root, root, root, root, root, root);
    char *out = run_sh(cmd, &st);
    ck_assert_msg(strstr(out, "runs.csv: 1 row (line 2) does not match its checksum (row_fnv1a64): edited after "
                              "the run, so that run is redone") &&
                      strstr(out, "5 runs already done, resuming") && strstr(out, "\nSAME\n"),
                  "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "merge %s/merged %s/m", root, root);
    out = run_tasknet(cmd, &st);
    ck_assert_msg(st == 1 && strstr(out, "runs.csv:2: the row's cells do not match its checksum (row_fnv1a64)"),
                  "%s", out);
    free(out);
}
END_TEST

/* The README's words on the leaf-spine are the runs' numbers: replica 0
 * of configs/examples/topologies.xml (tests/golden, which check_golden.sh
 * holds to the model) levels off between 0.483 and 0.489 for loads 0.6-1,
 * 87% of its bound 0.5625 = 4 x 63 / (8 x 56); the README says 0.49 and no
 * longer that it saturates at its bound. */
START_TEST(test_readme_leaf_spine)
{
    char path[700], buf[64];
    snprintf(path, sizeof path, "%s/tests/golden/examples-topologies.csv", srcdir());
    char *g = slurp(path);
    ck_assert_ptr_nonnull(g);
    int ct = col_of(g, "network.type"), cl = col_of(g, "workload.offered-load"), cx = col_of(g, "throughput"),
        cb = col_of(g, "saturation_bound");
    ck_assert_msg(ct >= 0 && cl >= 0 && cx >= 0 && cb >= 0, "%.300s", g);
    double lo = 1, hi = 0;
    int n = 0;
    for (int i = 1; line_n(g, i) && *line_n(g, i); i++) {
        char *row = line_n(g, i);
        if (strcmp(cell(row, ct, buf, sizeof buf), "leaf-spine") != 0 || atof(cell(row, cl, buf, sizeof buf)) < 0.6)
            continue;
        double x = atof(cell(row, cx, buf, sizeof buf));
        ck_assert_double_eq_tol(atof(cell(row, cb, buf, sizeof buf)), 4.0 * 63 / (8 * 56), 1e-12);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        n++;
    }
    free(g);
    ck_assert_int_eq(n, 5);
    ck_assert_msg(lo >= 0.483 && hi <= 0.4895, "leaf-spine levels off in [%g, %g]", lo, hi);
    ck_assert_msg(fabs(hi / 0.5625 - 0.87) < 0.005, "%g of the bound", hi / 0.5625);
    snprintf(path, sizeof path, "%s/README.md", srcdir());
    char *readme = slurp(path);
    ck_assert_ptr_nonnull(readme);
    ck_assert_msg(strstr(readme, "saturates at its bound 0.5625") == NULL, "README still says it");
    ck_assert_msg(strstr(readme, "the leaf-spine (2:1 oversubscribed) levels off at 0.49, below its bound 0.5625") &&
                      strstr(readme, "87% of its analytic\nbound 0.5625"),
                  "README lacks the measured plateau");
    free(readme);
}
END_TEST

/* A run past its estimate: uniform traffic at 4 times B for 4 ms is
 * generated by 4 ms simulated (100%) and drains for longer; the progress
 * line says so instead of sitting at "100%, ETA 0.0 s". The line comes once
 * a second of wall time: 4 ms (100% after about 2.5 s of this machine's 4 s
 * run) leaves at least one line past the estimate on an idle machine too
 * (1 ms ended within the first second there, before any line). */
START_TEST(test_progress_past_the_estimate)
{
    char cmd[1024];
    int st;
    snprintf(cmd, sizeof cmd,
             "\"$TASKNET\" run configs/examples/spinet-load.xml --set workload.offered-load=4 --set workload.duration=4ms "
             "--runs 0 --progress -o %s/pr 2>&1 >/dev/null",
             root);
    char *out = run_sh(cmd, &st);
    ck_assert_msg(strstr(out, "past its estimate, ETA unknown") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "100%, ETA") == NULL, "%s", out);
    free(out);
}
END_TEST


/* ------------------------------------------------------------ everyday use */

/* `tasknet params` lists every parameter, the workload element's own too
 * (name, nodes, priority, role, exclusive), with its default. */
START_TEST(test_params_lists_workload_attributes)
{
    int st;
    char *out = run_tasknet("params", &st);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(strstr(out, "Every workload (each <workload> element"));
    const char *want[] = {"\n  workload.type ", "\n  workload.name ", "\n  workload.nodes ", "\n  workload.priority ",
                          "\n  workload.role ", "\n  workload.exclusive "};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(out, want[i]) != NULL, "params lacks%s", want[i]);
    /* workload.name has no default (it was shown as "task-tree") */
    const char *name = strstr(out, "\n  workload.name ");
    char line[400];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(name + 1, "\n"), name + 1);
    ck_assert_msg(strstr(line, " (none) ") != NULL && strstr(line, "task-tree") == NULL, "%s", line);
    free(out);
}
END_TEST

/* The top-level help describes every workload and fabric the program has:
 * each workload.type="X" and network.type="X" that `params` lists (the
 * registries) is in --help with its description. */
START_TEST(test_help_lists_every_plugin)
{
    int st;
    char *help = run_tasknet("--help", &st);
    ck_assert_int_eq(st, 0);
    char *params = run_tasknet("params", &st);
    int n = 0;
    for (char *p = params; (p = strstr(p, "\n")) != NULL; p++) {
        const char *kinds[] = {"workload.type=\"", "network.type=\""};
        for (int k = 0; k < 2; k++) {
            if (strncmp(p + 1, kinds[k], strlen(kinds[k])) != 0)
                continue;
            char name[64], desc[200];
            const char *q = p + 1 + strlen(kinds[k]);
            size_t l = strcspn(q, "\"");
            snprintf(name, sizeof name, "%.*s", (int)l, q);
            const char *d = q + l + 3; /* past `": ` */
            snprintf(desc, sizeof desc, "%.*s", (int)(strcspn(d, "\n") < 60 ? strcspn(d, "\n") : 60), d);
            char line[300];
            snprintf(line, sizeof line, "\n  %-17s %s", name, desc);
            ck_assert_msg(strstr(help, line) != NULL, "--help lacks '%s'", line + 1);
            n++;
        }
    }
    ck_assert_int_ge(n, 14); /* 7 workloads and 7 fabrics at least */
    free(params);
    free(help);
}
END_TEST

/* The README names no file outside the repository and says how long the
 * tests take; no user-facing text names a source document "seed 00N": the
 * README, HACKING, the configurations' comments, --help, params, metrics. */
START_TEST(test_docs_name_sources_by_title)
{
    char path[700];
    const char *files[] = {"README.md", "HACKING.md", "configs/data/README.md"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", srcdir(), files[i]);
        char *t = slurp(path);
        ck_assert_ptr_nonnull(t);
        ck_assert_msg(strstr(t, "../shared") == NULL, "%s names ../shared", files[i]);
        ck_assert_msg(strcasestr(t, "seed 00") == NULL && strcasestr(t, "seeds 00") == NULL, "%s: %.80s", files[i],
                      strcasestr(t, "seed 00"));
        if (i == 0) {
            ck_assert_ptr_nonnull(strstr(t, "`make -j2 check` takes 3 to 6 minutes on a 2-core machine"));
            ck_assert_ptr_nonnull(strstr(t, "\"Making DDNNs Friendlier In The Data Center\""));
            ck_assert_ptr_nonnull(strstr(t, "\"Realistic Evaluation of Interconnection Networks Using Synthetic"));
        }
        free(t);
    }
    int st;
    char *out = run_sh("cat configs/*/*.xml; \"$TASKNET\" --help; \"$TASKNET\" params; \"$TASKNET\" metrics", &st);
    ck_assert_msg(strcasestr(out, "seed 00") == NULL && strcasestr(out, "seeds 00") == NULL, "%.120s",
                  strcasestr(out, "seed 00"));
    free(out);
}
END_TEST

/* analyze prints each workload's share of the estimate (two workloads on
 * 16 nodes, 8 ranks each): text lines and a JSON array. */
START_TEST(test_analyze_every_workload)
{
    int st;
    char *out = run_tasknet("analyze tests/fixtures/good/two_workloads.xml", &st);
    ck_assert_int_eq(st, 0);
    ck_assert_msg(strstr(out, "task-tree + uniform-random over electrical-switch") &&
                      strstr(out, "\n  workload  jobs (task-tree, 8 ranks): ~") &&
                      strstr(out, "\n  workload  noise (uniform-random, 8 ranks): ~"),
                  "%s", out);
    free(out);
    out = run_tasknet("analyze tests/fixtures/good/two_workloads.xml --json", &st);
    ck_assert_msg(st == 0 && strstr(out, "\"workloads\":[{\"name\":\"jobs\",\"type\":\"task-tree\",\"ranks\":8,") &&
                      strstr(out, "{\"name\":\"noise\",\"type\":\"uniform-random\",\"ranks\":8,"),
                  "%s", out);
    free(out);
}
END_TEST

/* ------------------------------------------------------------ pandas */

/* The README's pandas example runs as written on a result folder (the
 * sweep of tests/fixtures/sweep_small.xml: bandwidths 5, 10 and 40 Gb/s),
 * with its `out` pointed there: runs.csv and summary.csv load, the swept
 * bandwidth is a number in b/s, and the example's own assertion (its
 * per-point means from runs.csv equal summary.csv's) holds. Skipped, with
 * the reason, where no python3 imports pandas. */
START_TEST(test_readme_pandas)
{
    int st;
    char *py = run_sh("for p in python3 /usr/bin/python3; do \"$p\" -c 'import pandas' >/dev/null 2>&1 && "
                      "{ echo \"$p\"; break; }; done",
                      &st);
    py[strcspn(py, "\n")] = '\0';
    if (!py[0]) {
        printf("check_results: SKIP test_readme_pandas: no python3 with pandas (Debian: python3-pandas)\n");
        free(py);
        return;
    }
    char path[700], cmd[2048];
    snprintf(path, sizeof path, "%s/README.md", srcdir());
    char *readme = slurp(path);
    ck_assert_ptr_nonnull(readme);
    const char *mark = strstr(readme, "<!-- pandas-example");
    ck_assert_ptr_nonnull(mark);
    const char *code = strstr(mark, "```python\n");
    ck_assert_ptr_nonnull(code);
    code += strlen("```python\n");
    const char *end = strstr(code, "```");
    ck_assert_ptr_nonnull(end);
    const char *outline = strstr(code, "out = \"out/fig9\"");
    ck_assert_msg(outline && outline < end, "the example names its folder as out = \"out/fig9\"");
    snprintf(path, sizeof path, "%s/example.py", root);
    FILE *f = fopen(path, "w");
    fprintf(f, "%.*sout = \"%s/pd\"%.*s", (int)(outline - code), code, root,
            (int)(end - outline - strlen("out = \"out/fig9\"")), outline + strlen("out = \"out/fig9\""));
    fclose(f);
    free(readme);
    snprintf(cmd, sizeof cmd,
             "\"$TASKNET\" run tests/fixtures/sweep_small.xml --set workload.jobs=200 -q -o %s/pd && %s %s/example.py 2>&1",
             root, py, root);
    char *out = run_sh(cmd, &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_msg(strstr(out, "network.bandwidth_bps") && strstr(out, "5000000000") && strstr(out, "40000000000"),
                  "%s", out);
    free(out);
    free(py);
}
END_TEST

/* Swept quantities as numbers in SI base units (issue 23): z_axis.xml
 * sweeps workload.tree.z (a list: no number) and network.link-latency
 * "20ns 1us": runs.csv and summary.csv gain network.link-latency_s with
 * 2e-08 and 1e-06 (by hand: 20 x 10^-9 s, 10^-6 s), the JSON params too;
 * the values as written stay in their columns. */
START_TEST(test_si_columns)
{
    char args[1024], path[700], buf[64];
    snprintf(args, sizeof args, "run tests/fixtures/good/z_axis.xml --set run.replicas=1 -q -o %s/si", root);
    free(run_ok(args));
    const char *files[] = {"runs.csv", "summary.csv"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/si/%s", root, files[i]);
        char *t = slurp(path);
        ck_assert_ptr_nonnull(t);
        int written = col_of(t, "network.link-latency"), si = col_of(t, "network.link-latency_s");
        ck_assert_msg(written >= 0 && si > written, "%s: %.300s", files[i], t);
        ck_assert_int_eq(col_of(t, "workload.tree.z_s"), -1);
        ck_assert_int_eq(col_of(t, "workload.tree.z"), written - 1);
        const char *want_w[] = {"20ns", "1us", "20ns", "1us"}, *want_si[] = {"2e-08", "9.9999999999999995e-07",
                                                                              "2e-08", "9.9999999999999995e-07"};
        for (int r = 0; r < 4; r++) {
            char *row = line_n(t, r + 1);
            ck_assert_str_eq(cell(row, written, buf, sizeof buf), want_w[r]);
            ck_assert_str_eq(cell(row, si, buf, sizeof buf), want_si[r]);
        }
        free(t);
    }
    char *js = run_ok("run tests/fixtures/good/z_axis.xml --set run.replicas=1 -q --json");
    ck_assert_msg(strstr(js, "\"network.link-latency\":\"20ns\",\"network.link-latency_s\":2e-08"), "%.400s", js);
    free(js);
}
END_TEST

/* Fabrics compared in one sweep with axes varying with network.type (the
 * README's example, tests/fixtures/good/fabrics_with.xml): "-" leaves a
 * fabric's parameter unset where another fabric runs, so no dummy values.
 * Each point runs with its own values: the leaf-spine needs its 8 leaves
 * of 8 hosts for 64 nodes (its defaults, 4 x 4, would be refused), the
 * fat-tree its 4-ary 3-tree (4^3 = 64). "-" in the lead axis, or in an
 * axis of its own, is no value. */
START_TEST(test_fabrics_with_placeholders)
{
    char args[1024], path[700], buf[64];
    int st;
    snprintf(args, sizeof args, "run tests/fixtures/good/fabrics_with.xml -q -o %s/fw", root);
    free(run_ok(args));
    snprintf(path, sizeof path, "%s/fw/runs.csv", root);
    char *t = slurp(path);
    ck_assert_ptr_nonnull(t);
    int ct = col_of(t, "network.type"), ca = col_of(t, "network.arity"), cl = col_of(t, "network.leaves");
    const char *type[] = {"torus", "fat-tree", "leaf-spine"}, *arity[] = {"-", "4", "-"}, *leaves[] = {"-", "-", "8"};
    for (int r = 0; r < 3; r++) {
        char *row = line_n(t, r + 1);
        ck_assert_str_eq(cell(row, ct, buf, sizeof buf), type[r]);
        ck_assert_str_eq(cell(row, ca, buf, sizeof buf), arity[r]);
        ck_assert_str_eq(cell(row, cl, buf, sizeof buf), leaves[r]);
    }
    free(t);
    snprintf(args, sizeof args, "sed 's/values=\"torus fat-tree leaf-spine\"/values=\"torus - leaf-spine\"/' "
             "tests/fixtures/good/fabrics_with.xml > %s/lead.xml && \"$TASKNET\" validate %s/lead.xml 2>&1", root, root);
    char *out = run_sh(args, &st);
    ck_assert_msg(strstr(out, "value '-': unknown network type '-'"), "%s", out);
    free(out);
    out = run_tasknet("validate configs/examples/quickstart.xml --set 'network.switch-latency=-'", &st);
    ck_assert_msg(st != 0, "%s", out);
    free(out);
}
END_TEST

static Suite *results_suite(void)
{
    Suite *s = suite_create("results");
    TCase *tc = tcase_create("misleading");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_ci_of_one_replica);
    tcase_add_test(tc, test_replicas_per_metric);
    tcase_add_test(tc, test_parameters_that_change_nothing);
    tcase_add_test(tc, test_fractional_bytes);
    tcase_add_test(tc, test_edited_number_detected);
    tcase_add_test(tc, test_readme_leaf_spine);
    tcase_add_test(tc, test_progress_past_the_estimate);
    suite_add_tcase(s, tc);
    TCase *ev = tcase_create("everyday");
    tcase_set_timeout(ev, 120);
    tcase_add_unchecked_fixture(ev, setup, teardown);
    tcase_add_test(ev, test_params_lists_workload_attributes);
    tcase_add_test(ev, test_help_lists_every_plugin);
    tcase_add_test(ev, test_docs_name_sources_by_title);
    tcase_add_test(ev, test_analyze_every_workload);
    tcase_add_test(ev, test_si_columns);
    tcase_add_test(ev, test_fabrics_with_placeholders);
    tcase_add_test(ev, test_readme_pandas);
    suite_add_tcase(s, ev);
    return s;
}

TH_MAIN(results_suite)
