/* End-to-end tests of result folders (app/sweep/sweep_store.c): one writer at a
 * time, resume that trusts nothing it cannot check (rows against the run
 * table, latency histograms against their checksums, input files against
 * the fingerprint), and folders that grow: replicas and axis values added
 * later keep the runs already there and end byte-identical to a sweep run
 * in one go. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "sweep_impl.h"
#include "harness.h"

/* tests/fixtures/sweep_small.xml with 200 jobs: 3 points x 2 replicas, runs
 * of a few ms. */
#define CFG "tests/fixtures/sweep_small.xml"
#define FAST "--set workload.jobs=200"

static char root[] = "/tmp/tasknet-store-XXXXXX";

static void run_ok(const char *args)
{
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "tasknet %s: status %d\n%s", args, st, out);
    free(out);
}

/* `tasknet args` exits with status 1 and says `want`. */
static void run_refused(const char *args, const char *want)
{
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 1, "tasknet %s: status %d, expected 1\n%s", args, st, out);
    ck_assert_msg(strstr(out, want) != NULL, "tasknet %s: output lacks '%s':\n%s", args, want, out);
    free(out);
}

/* A shell command, in the source folder (configurations are named from it). */
static void sh_ok(const char *cmd)
{
    char full[8192];
    snprintf(full, sizeof full, "cd '%s' && %s", srcdir(), cmd);
    ck_assert_msg(system(full) == 0, "%s", full);
}

/* The reference: the 6 runs in one go, in root/ref. */
static void setup(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        exit(EXIT_FAILURE);
    }
    char args[512];
    snprintf(args, sizeof args, "run " CFG " " FAST " -q --out %s/ref", root);
    int st;
    char *out = run_tasknet(args, &st);
    if (st != 0) {
        fprintf(stderr, "reference sweep failed:\n%s\n", out);
        exit(EXIT_FAILURE);
    }
    free(out);
}

static void teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
}

/* dir/name equals ref/name byte for byte. */
static void same_as_ref(const char *dir, const char *name)
{
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/ref/%s", root, name);
    snprintf(b, sizeof b, "%s/%s", dir, name);
    char *x = slurp(a), *y = slurp(b);
    ck_assert_msg(x && y, "cannot read %s or %s", a, b);
    ck_assert_msg(strcmp(x, y) == 0, "%s differs from %s:\n--- reference\n%s--- this\n%s", b, a, x, y);
    free(x);
    free(y);
}

/* runs.csv, summary.csv and every latency histogram equal the reference's. */
static void folder_as_ref(const char *dir)
{
    same_as_ref(dir, "runs.csv");
    same_as_ref(dir, "summary.csv");
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "diff -r '%s/ref/latency' '%s/latency' >/dev/null", root, dir);
    ck_assert_msg(system(cmd) == 0, "%s/latency differs from the reference's", dir);
}

/* A copy of the reference to damage. */
static void copy_ref(const char *name, char *dir, size_t len)
{
    snprintf(dir, len, "%s/%s", root, name);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/ref' '%s'", dir, root, dir);
    sh_ok(cmd);
}

/* Complete lines of a file (-1: unreadable). */
static long lines_of(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    long n = 0;
    int ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

static pid_t spawn(const char *args, const char *log)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && exec '%s' %s >'%s' 2>&1", srcdir(), TASKNET_BIN, args, log);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Issue 13 defect 1: two shards writing one folder at once lost runs (39
 * lines of 76, both exit 0). A folder has one writer: the second process is
 * refused, naming the first, while the first runs; merge does not read a
 * folder being written; once the first is gone, the folder is free. */
START_TEST(test_one_writer_per_folder)
{
    char dir[600], log[700], args[1400], csv[700];
    snprintf(dir, sizeof dir, "%s/locked", root);
    snprintf(log, sizeof log, "%s/locked.log", root);
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    /* shard 1/2 with a run of 3 10^5 jobs (a minute) */
    snprintf(args, sizeof args, "run " CFG " --set workload.jobs=300000 --shard 1/2 --out %s", dir);
    pid_t pid = spawn(args, log);
    ck_assert_int_gt(pid, 0);
    for (int i = 0; i < 2500 && lines_of(csv) < 1; i++) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    ck_assert_int_eq(lines_of(csv), 1); /* its header: the first is under way */
    char want[200];
    snprintf(want, sizeof want, "is being written by another tasknet (process %ld)", (long)pid);
    /* (under `timeout`: a tasknet that did not refuse would run for a minute) */
    snprintf(args, sizeof args,
             "timeout 60 \"$TASKNET\" run " CFG " --set workload.jobs=300000 --shard 2/2 -q --out %s 2>&1; "
             "echo \"status $?\"", dir);
    int st;
    char *out = run_sh(args, &st);
    ck_assert_msg(strstr(out, want) != NULL && strstr(out, "status 1\n") != NULL, "%s", out);
    free(out);
    snprintf(args, sizeof args, "merge %s/merged %s", root, dir);
    snprintf(want, sizeof want, "is being written by a running tasknet (process %ld)", (long)pid);
    run_refused(args, want);
    /* merge into it is a write too */
    snprintf(args, sizeof args, "merge %s %s/ref", dir, root);
    run_refused(args, "is being written by another tasknet");
    ck_assert_int_eq(lines_of(csv), 1);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 143, "status %d", st);
    /* the folder is free: the second shard runs (the first shard's run was dropped) */
    snprintf(args, sizeof args, "run " CFG " " FAST " --shard 2/2 -q --out %s", dir);
    run_ok(args);
    ck_assert_int_eq(lines_of(csv), 1 + 3);

    /* a lock left by a process killed with SIGKILL does not outlive it */
    snprintf(dir, sizeof dir, "%s/killed", root);
    snprintf(args, sizeof args, "run " CFG " --set workload.jobs=300000 --runs 0 --out %s", dir);
    pid = spawn(args, log);
    snprintf(csv, sizeof csv, "%s/runs.csv", dir);
    for (int i = 0; i < 2500 && lines_of(csv) < 1; i++) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    ck_assert_int_eq(kill(-pid, SIGKILL), 0);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    snprintf(args, sizeof args, "run " CFG " " FAST " --runs 1 -q --out %s", dir);
    run_ok(args);
}
END_TEST

/* Issue 13 defect 3: editing the file of an empirical(...) distribution
 * changes the results, so a folder made with the old contents refuses the
 * new ones (it used to resume, mixing both); with the old contents back it
 * resumes. The detail names the file, since no parameter's text differs. */
START_TEST(test_input_file_contents_in_fingerprint)
{
    char dir[600], cmd[4000], args[1400];
    snprintf(dir, sizeof dir, "%s/empirical", root);
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && printf '2000,0.5\\n128000,1\\n' > '%s/sizes.csv' && "
             "sed 's|send-size=\"uniform(2kB,128kB)\"|send-size=\"empirical(sizes.csv)\"|' " CFG " > '%s/cfg.xml' && "
             "grep -q 'empirical(sizes.csv)' '%s/cfg.xml'",
             dir, dir, dir, dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "run %s/cfg.xml " FAST " --runs 0-3 -q --out %s/out", dir, dir);
    run_ok(args);
    snprintf(cmd, sizeof cmd, "printf '2000,0.5\\n64000,1\\n' > '%s/sizes.csv'", dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "run %s/cfg.xml " FAST " -q --out %s/out", dir, dir);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 1 && strstr(out, "was made with a different configuration") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "workload.task.send-size = empirical(sizes.csv): the file's contents are part of "
                              "the fingerprint, and no parameter differs, so the file was edited since") != NULL &&
                      strstr(out, "send-size: empirical(") == NULL,
                  "%s", out);
    free(out);
    /* a comment changes the bytes: results are kept only for the very same file */
    snprintf(cmd, sizeof cmd, "printf '2000,0.5\\n128000,1\\n' > '%s/sizes.csv'", dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "run %s/cfg.xml " FAST " --out %s/out", dir, dir);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 && strstr(out, "4 runs already done, resuming") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\n2 runs in ") != NULL, "%s", out);
    free(out);
}
END_TEST

/* A PARAM_FILE (training's layers-file) enters the fingerprint by its
 * contents, as an empirical(...) file does: config.xml names it absolutely,
 * the configuration relatively, and a resume from either is the same folder
 * (config.xml was refused: its text differed); an edited file is refused
 * (it resumed, mixing both profiles: only the name counted). */
START_TEST(test_param_file_contents_in_fingerprint)
{
    char dir[600], cmd[4000], args[1400];
    snprintf(dir, sizeof dir, "%s/layers", root);
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && printf 'size_bytes,forward_s,backward_s\\n1000,1e-06,2e-06\\n3000,1e-06,2e-06\\n' "
             "> '%s/layers.csv' && printf '<tasknet version=\"1\">\\n<system nodes=\"4\"/>\\n"
             "<network type=\"ideal\" bandwidth=\"10Gb/s\"/>\\n<workload type=\"training\" workers=\"4\" "
             "iterations=\"2\" layers-file=\"layers.csv\"/>\\n<run replicas=\"3\" seed=\"1\"/>\\n</tasknet>\\n' "
             "> '%s/cfg.xml'",
             dir, dir, dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "run %s/cfg.xml --runs 0 -q --out %s/out", dir, dir);
    run_ok(args);
    /* config.xml names /tmp/.../layers.csv */
    snprintf(args, sizeof args, "run %s/out/config.xml --runs 1 --out %s/out", dir, dir);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 && strstr(out, "1 run already done, resuming") != NULL, "%s", out);
    free(out);
    /* another profile under the same name */
    snprintf(cmd, sizeof cmd, "printf 'size_bytes,forward_s,backward_s\\n1000,1e-06,2e-06\\n5000,1e-06,2e-06\\n' "
             "> '%s/layers.csv'", dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "run %s/cfg.xml -q --out %s/out", dir, dir);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 1 && strstr(out, "was made with a different configuration") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "workload.layers-file = layers.csv: the file's contents are part of the fingerprint") !=
                      NULL,
                  "%s", out);
    free(out);
}
END_TEST

/* Issue 13 defect 6: a deleted or damaged latency/run-N.csv was never
 * redone, and plot --latency drew what was left without a word. Each row
 * carries its histogram's checksum: plot names the runs without an intact
 * one, and a resume redoes exactly those, ending as the reference. */
START_TEST(test_latency_histograms_verified)
{
    char dir[600], cmd[1600], args[1400];
    copy_ref("hist", dir, sizeof dir);
    /* the checksum column is the FNV-1a 64 of the file, by hand: */
    char path[700];
    snprintf(path, sizeof path, "%s/latency/run-3.csv", dir);
    char *h = slurp(path);
    ck_assert_ptr_nonnull(h);
    uint64_t fnv = 1469598103934665603ULL;
    for (const char *c = h; *c; c++) {
        fnv ^= (unsigned char)*c;
        fnv *= 1099511628211ULL;
    }
    free(h);
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    char *runs = slurp(path), want[64];
    snprintf(want, sizeof want, ",%016llx,", (unsigned long long)fnv);
    ck_assert_msg(strstr(runs, want) != NULL, "run 3's row lacks %s:\n%s", want, runs);
    ck_assert_msg(strstr(runs, ",latency_csv_fnv1a64,row_fnv1a64\n") != NULL, "%s", runs);
    /* and the row's own checksum (issue 23) is the FNV-1a 64 of the row's
     * text before its last comma, by hand */
    char *row3 = strstr(runs, "\n3,1,1,");
    ck_assert_ptr_nonnull(row3);
    row3++;
    char *end3 = strchr(row3, '\n'), *last = end3;
    while (*last != ',')
        last--;
    fnv = 1469598103934665603ULL;
    for (const char *c = row3; c < last; c++) {
        fnv ^= (unsigned char)*c;
        fnv *= 1099511628211ULL;
    }
    char stated[17];
    snprintf(stated, sizeof stated, "%016llx", (unsigned long long)fnv);
    ck_assert_msg(strncmp(last + 1, stated, 16) == 0 && last + 17 == end3, "row 3 ends %.*s, by hand %s",
                  (int)(end3 - last), last, stated);
    free(runs);

    snprintf(cmd, sizeof cmd, "rm '%s/latency/run-1.csv' && sed -i '3s/,[0-9]*$/,999999/' '%s/latency/run-4.csv'",
             dir, dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "plot %s --latency --out %s/lat.png", dir, dir);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(strstr(out, "2 runs of ") != NULL && strstr(out, "(runs 1, 4) have no intact latency histogram") != NULL,
                  "%s", out);
    free(out);
    snprintf(args, sizeof args, "run " CFG " " FAST " --out %s", dir);
    out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_msg(strstr(out, "2 runs had a missing or damaged latency histogram (latency/run-ID.csv of runs 1, 4 "
                              "does not match the checksum in runs.csv): redone") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "4 runs already done, resuming") != NULL && strstr(out, "\n2 runs in ") != NULL, "%s",
                  out);
    free(out);
    folder_as_ref(dir);
    /* merge refuses to copy a damaged histogram */
    snprintf(cmd, sizeof cmd, "echo >> '%s/latency/run-2.csv'", dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "merge %s/hist-merged %s", root, dir);
    run_refused(args, "latency/run-2.csv is missing or damaged (it does not match the checksum in runs.csv)");
}
END_TEST

/* Issue 13 defect 7: a runs.csv row whose swept values, replica or seed
 * contradict its run id was trusted. Each is refused, naming both. */
START_TEST(test_rows_checked_against_run_table)
{
    static const struct {
        const char *sed, *want;
    } edits[] = {
        /* run 2 is point 1, replica 0, 10Gb/s */
        {"4s/,10Gb\\/s,/,40Gb\\/s,/", "runs.csv:4: the row of run 2 says point 1, replica 0, seed 7, "
                                       "network.bandwidth=40Gb/s; run 2 of this folder's sweep is point 1, replica "
                                       "0, seed 7, network.bandwidth=10Gb/s. The row was edited"},
        {"4s/^2,1,0,/2,1,1,/", "the row of run 2 says point 1, replica 1, seed 7"},
        {"4s/^2,1,0,7,/2,1,0,8,/", "the row of run 2 says point 1, replica 0, seed 8"},
        {"4s/^2,1,0,/2,0,0,/", "the row of run 2 says point 0, replica 0"},
        {"4s/^2,1,0,/9,4,1,/", "runs.csv:4: run 9 does not exist in this folder's sweep (runs 0-5)"},
        {"4s/^2,1,/2,x,/", "runs.csv:4: not a row of this sweep"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char dir[600], cmd[1600], args[1400];
        copy_ref("rows", dir, sizeof dir);
        snprintf(cmd, sizeof cmd, "sed -i '%s' '%s/runs.csv'", edits[i].sed, dir);
        sh_ok(cmd);
        snprintf(args, sizeof args, "run " CFG " " FAST " -q --out %s", dir);
        run_refused(args, edits[i].want);
    }
}
END_TEST

/* Issue 13 feature 10: replicas added later. Replica r of a point is the
 * same run whatever the number of replicas (its streams come from the seed
 * and r), so --replicas 2 on a folder of 1 replica runs only replica 1 of
 * each point, keeps replica 0, and ends byte-identical to 2 replicas run at
 * once. Ids stay point x replicas + replica for the sweep as it is now: with
 * 1 replica, point p's run was id p; with 2 it is id 2p (its row and
 * latency/run-ID.csv are renamed). Fewer replicas than the folder holds are
 * refused. */
START_TEST(test_replicas_added_later)
{
    char dir[600], args[1400];
    snprintf(dir, sizeof dir, "%s/grow", root);
    snprintf(args, sizeof args, "run " CFG " " FAST " --replicas 1 -q --out %s", dir);
    run_ok(args);
    char p[700];
    snprintf(p, sizeof p, "%s/latency/run-1.csv", dir);
    char *point1 = slurp(p); /* point 1, replica 0: id 1 of 3 */
    ck_assert_ptr_nonnull(point1);
    snprintf(args, sizeof args, "run " CFG " " FAST " --out %s", dir);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    ck_assert_msg(strstr(out, "3 runs already done, resuming (kept under the run ids of this sweep)") != NULL, "%s",
                  out);
    ck_assert_msg(strstr(out, "\n3 runs in ") != NULL, "%s", out);
    free(out);
    folder_as_ref(dir);
    snprintf(p, sizeof p, "%s/latency/run-2.csv", dir); /* point 1, replica 0: now id 2 */
    char *now = slurp(p);
    ck_assert_str_eq(now, point1);
    free(now);
    free(point1);
    /* timing.csv follows the ids: 6 rows, ids 0-5 once each */
    snprintf(p, sizeof p, "%s/timing.csv", dir);
    ck_assert_int_eq(lines_of(p), 7);
    char *timing = slurp(p);
    for (int id = 0; id < 6; id++) {
        char row[16];
        snprintf(row, sizeof row, "\n%d,", id);
        ck_assert_msg(strstr(timing, row) != NULL, "%s", timing);
    }
    free(timing);
    snprintf(args, sizeof args, "run " CFG " " FAST " --replicas 1 -q --out %s", dir);
    run_refused(args, "runs.csv:3: run 1 is replica 1, and this sweep has 1 replica per point; a folder keeps every "
                      "result it holds: run with --replicas 2 or more");

    /* a stop between writing runs.csv under the new ids and renaming the
     * histograms: the next start puts the waiting histogram in place */
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "cd '%s/latency' && mv run-2.csv remap-2.tmp && cp run-0.csv run-2.csv", dir);
    sh_ok(cmd);
    out = run_tasknet(args + 0, &st); /* --replicas 1 is still refused, and repairs nothing */
    free(out);
    snprintf(args, sizeof args, "run " CFG " " FAST " --out %s", dir);
    out = run_tasknet(args, &st);
    /* every run is there: nothing to resume (it said "resuming" and ran 0) */
    ck_assert_msg(st == 0 && strstr(out, "6 runs already done, nothing left to run") != NULL &&
                      strstr(out, "\n0 runs in ") != NULL,
                  "%s", out);
    free(out);
    folder_as_ref(dir);
}
END_TEST

/* Issue 13 feature 10: axis values added later. A folder of bandwidths
 * {5, 40} Gb/s resumed with {5, 10, 40} runs only 10Gb/s and ends as the
 * reference; runs are attributed by the fingerprint of their point's
 * configuration and their replica, not by their old ids. Dropping a value
 * the folder holds results for is refused. */
START_TEST(test_axis_values_added_later)
{
    char dir[600], cmd[3000], args[1400];
    snprintf(dir, sizeof dir, "%s/axis", root);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && sed 's|values=\"5Gb/s 10Gb/s 40Gb/s\"|values=\"5Gb/s 40Gb/s\"|' " CFG
             " > '%s/two.xml' && grep -q '\"5Gb/s 40Gb/s\"' '%s/two.xml'", dir, dir, dir);
    sh_ok(cmd);
    snprintf(args, sizeof args, "run %s/two.xml " FAST " -q --out %s/out", dir, dir);
    run_ok(args);
    snprintf(args, sizeof args, "run " CFG " " FAST " --out %s/out", dir);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0 && strstr(out, "4 runs already done, resuming (kept under the run ids of this sweep)") &&
                      strstr(out, "\n2 runs in "),
                  "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/out", dir);
    folder_as_ref(cmd);
    snprintf(args, sizeof args, "run %s/two.xml " FAST " -q --out %s/out", dir, dir);
    run_refused(args, "run 2 (network.bandwidth=10Gb/s) is of a point this sweep does not have, and a folder keeps "
                      "every result it holds");
}
END_TEST

/* A run's id and its point and replica (run.h): id = point x replicas +
 * replica, replica-major within a point. By hand with 3 replicas: point 2
 * replica 1 is run 7 (2 x 3 + 1), run 5 is point 1 replica 2; and every id
 * of 4 points x 3 replicas comes back to itself. */
START_TEST(test_run_ids)
{
    cfg c = {.replicas = 3};
    ck_assert_uint_eq(run_id(&c, 2, 1), 7);
    ck_assert_uint_eq(run_point(&c, 5), 1);
    ck_assert_uint_eq(run_replica(&c, 5), 2);
    for (uint64_t id = 0; id < 12; id++) {
        ck_assert_uint_eq(run_id(&c, run_point(&c, id), run_replica(&c, id)), id);
        ck_assert_uint_lt(run_replica(&c, id), 3);
    }
    /* beyond 32 bits: point 2^32 of 5 replicas */
    c.replicas = 5;
    ck_assert_uint_eq(run_id(&c, (size_t)1 << 32, 4), ((uint64_t)5 << 32) + 4);
    ck_assert_uint_eq(run_point(&c, ((uint64_t)5 << 32) + 4), (size_t)1 << 32);
}
END_TEST

/* ---- which run next with several processes (app/sweep/sweep_order.c) ---- */

/* A sweep of `points` points x `reps` replicas, every run pending, as
 * sweep_execute hands it to a driver. */
static sweep *order_sweep(size_t points, uint32_t reps)
{
    static cfg c;
    c.replicas = reps;
    sweep *sw = calloc(1, sizeof *sw);
    ck_assert_ptr_nonnull(sw);
    sw->c = &c;
    sw->npoints = points;
    sw->nruns = (uint64_t)points * reps;
    sw->todo = malloc(sw->nruns);
    memset(sw->todo, RUN_PENDING, sw->nruns);
    return sw;
}

static void order_free(sweep *sw)
{
    sweep_order_free(sw);
    free(sw->todo);
    free(sw);
}

static uint64_t next_of(sweep *sw, unsigned worker)
{
    uint64_t id = SWEEP_NO_RUN;
    ck_assert_int_eq(sweep_next(sw, worker, &id), 0);
    ck_assert_int_eq(sw->todo[id], RUN_INFLIGHT);
    return id;
}

START_TEST(test_order_costliest_first)
{
    /* Points 0, 1, 2 expected to send 100, 500 and 300 messages, 2
     * replicas each (run id = point x 2 + replica): point 1's runs (2, 3)
     * first, then point 2's (4, 5), then point 0's (0, 1); replicas of a
     * point lowest first. */
    sweep *sw = order_sweep(3, 2);
    sweep_order_estimate(sw, 0, 100);
    sweep_order_estimate(sw, 1, 500);
    sweep_order_estimate(sw, 2, 300);
    sweep_order_init(sw, 1, 2);
    static const uint64_t want[] = {2, 3, 4, 5, 0, 1};
    for (size_t i = 0; i < 6; i++)
        ck_assert_uint_eq(next_of(sw, (unsigned)(i % 2)), want[i]);
    uint64_t id;
    ck_assert_int_eq(sweep_next(sw, 0, &id), -1);
    /* a run handed out again after its worker died */
    sweep_requeue(sw, 4);
    sweep_worker_lost(sw, 1);
    ck_assert_uint_eq(next_of(sw, 1), 4);
    ck_assert_int_eq(sweep_next(sw, 1, &id), -1);
    order_free(sw);
}
END_TEST

START_TEST(test_order_measured_and_held)
{
    /* 4 points of 3 replicas, estimates 100, 400, 200, 300 messages.
     * Worker 0 takes point 1 replica 0 (run 3), worker 1 point 1 replica 1
     * (run 4). Run 3 ends after 2 s: 2 s for 400 estimated messages, so
     * point 3 is expected to take 300 x 2 / 400 = 1.5 s a run, point 2
     * 1 s, point 0 0.5 s. */
    sweep *sw = order_sweep(4, 3);
    static const double est[] = {100, 400, 200, 300};
    for (size_t p = 0; p < 4; p++)
        sweep_order_estimate(sw, p, est[p]);
    sweep_order_init(sw, 1, 2);
    ck_assert_uint_eq(next_of(sw, 0), 3);
    ck_assert_uint_eq(next_of(sw, 1), 4);
    sweep_order_measured(sw, 3, 2.0);
    sw->todo[3] = 0;
    /* point 1 (2 s) still has replica 2: worker 0 takes it */
    ck_assert_uint_eq(next_of(sw, 0), 5);
    /* then point 3 (1.5 s): worker 0 ran replica 2 last and gets it (run
     * 11), worker 1 ran replica 1 last and gets that one (run 10) */
    ck_assert_uint_eq(next_of(sw, 0), 11);
    ck_assert_uint_eq(next_of(sw, 1), 10);
    /* point 3's replica 0 is left; run 10 measures point 3 at 0.2 s, and
     * the estimates now scale by (2 + 0.2) s / (400 + 300) messages:
     * point 2 at 0.63 s, point 0 at 0.31 s, both above point 3 */
    sweep_order_measured(sw, 10, 0.2);
    ck_assert_uint_eq(next_of(sw, 1), 7);  /* point 2: worker 1 ran replica 1 last */
    ck_assert_uint_eq(next_of(sw, 0), 8);  /* point 2: worker 0 ran replica 2 last */
    ck_assert_uint_eq(next_of(sw, 0), 6);  /* point 2, the last replica */
    ck_assert_uint_eq(next_of(sw, 1), 1);  /* point 0: replica 1 again for worker 1 */
    ck_assert_uint_eq(next_of(sw, 1), 0);  /* then the lowest pending */
    ck_assert_uint_eq(next_of(sw, 1), 2);
    ck_assert_uint_eq(next_of(sw, 1), 9);  /* point 3 (0.2 s) last */
    uint64_t id;
    ck_assert_int_eq(sweep_next(sw, 0, &id), -1);
    order_free(sw);
}
END_TEST

START_TEST(test_order_one_process_by_id)
{
    /* In one process: id order whatever the estimates; a requeued run
     * comes back first. */
    sweep *sw = order_sweep(3, 2);
    sweep_order_estimate(sw, 2, 1000);
    sweep_order_init(sw, 0, 1);
    for (uint64_t i = 0; i < 4; i++)
        ck_assert_uint_eq(next_of(sw, 0), i);
    sweep_requeue(sw, 1);
    ck_assert_uint_eq(next_of(sw, 0), 1);
    ck_assert_uint_eq(next_of(sw, 0), 4);
    ck_assert_uint_eq(next_of(sw, 0), 5);
    uint64_t id;
    ck_assert_int_eq(sweep_next(sw, 0, &id), -1);
    order_free(sw);
}
END_TEST

static Suite *store_suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_one_writer_per_folder);
    tcase_add_test(tc, test_input_file_contents_in_fingerprint);
    tcase_add_test(tc, test_param_file_contents_in_fingerprint);
    tcase_add_test(tc, test_latency_histograms_verified);
    tcase_add_test(tc, test_rows_checked_against_run_table);
    tcase_add_test(tc, test_replicas_added_later);
    tcase_add_test(tc, test_axis_values_added_later);
    tcase_add_test(tc, test_run_ids);
    suite_add_tcase(s, tc);
    TCase *order = tcase_create("order");
    tcase_add_test(order, test_order_costliest_first);
    tcase_add_test(order, test_order_measured_and_held);
    tcase_add_test(order, test_order_one_process_by_id);
    suite_add_tcase(s, order);
    return s;
}

TH_MAIN(store_suite)
