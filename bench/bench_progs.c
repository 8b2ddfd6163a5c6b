/* Task-program benchmark (the kernel and pattern workloads,
 * specs/kernels-patterns.md): the shapes issue 11 asks about, each run
 * exactly as `tasknet run` runs it (configuration rows, run_resolve,
 * run_one: a fresh engine, fabric and workload per run). Prints `key:
 * value` lines: wall time, events, events/s, peak RSS, and the run's main
 * metrics (to see that it did what it says).
 *
 *   bench_progs [--quick]
 *
 *   a2a        kernel all-to-all (shifted), T = 1024 on a 1024-port
 *              electrical switch, 1 kB at 10 Gb/s: 1,047,552 messages
 *              (--quick: T = 256)
 *   sr10       kernel sync-random T = 32, M = 10,000, W = 10, 1 kB, on the
 *              switch and on SPINet (seed 003's Table 1: INSEE needed
 *              46-48 s on a 3 GHz Pentium IV)
 *   bruck      pattern bruck, timing off (static congestion only), random
 *              mappings, one run per mapping: 16,384 ports of the switch
 *              (1,000 mappings; --quick: 20) and 8,192 ports of SPINet
 *              (10 mappings; --quick: 2; 16 wavelengths, as 13 stages miss
 *              the receiver's sensitivity with 8), where building the
 *              fabric's routing table in every run dominates; then the
 *              analysis alone (one fabric, 1,000 mappings through its
 *              route op, as the workload's files are made). SPINet at
 *              16,384 ports is refused: its routing table (stages x N/2 x
 *              N / 4 bytes, 470 MB) exceeds SPINET_TOPO_MAX_TABLE_BYTES
 *              (256 MB).
 * Wall times on shared machines are noisy (other engineers build and test
 * on the same 2 cores); compare instruction counts (valgrind
 * --tool=callgrind) for small differences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "config.h"
#include "congestion.h"
#include "mapping.h"
#include "metrics.h"
#include "patterns.h"
#include "rng.h"
#include "run.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Replicas 0..runs-1 of the configuration `sets` ("path=value", NULL-terminated)
 * in this process; the mean of each metric of `show`. */
static int bench(const char *title, const char *const *sets, unsigned runs, const char *const *show)
{
    char err[1024];
    cfg c;
    memset(&c, 0, sizeof c);
    cfg_defaults(&c);
    for (size_t i = 0; sets[i]; i++) {
        const char *eq = strchr(sets[i], '=');
        char path[128];
        snprintf(path, sizeof path, "%.*s", (int)(eq - sets[i]), sets[i]);
        if (cfg_set(&c, path, eq + 1, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s: %s\n", title, sets[i], err);
            return 1;
        }
    }
    cfg_errors errs;
    cfg_errors_init(&errs);
    if (cfg_check(&c, &errs) != 0) {
        for (size_t i = 0; i < errs.n; i++)
            fprintf(stderr, "%s: %s\n", title, errs.msg[i]);
        cfg_errors_free(&errs);
        return 1;
    }
    cfg_errors_free(&errs);
    run_cache rc = {0};
    if (run_resolve(&c, &rc, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", title, err);
        return 1;
    }
    run_layout l;
    run_layout_init(&l, &c);
    double *m = calloc(l.n, sizeof *m), *sum = calloc(l.n, sizeof *sum);
    double events = 0, run_wall = 0, t0 = now_s();
    int status = 0;
    for (unsigned r = 0; r < runs; r++) {
        if (run_one(&c, &l, r, &rc, m, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "%s, replica %u: %s\n", title, r, err);
            status = 1;
            break;
        }
        events += m[run_core(&l, M_events)];
        run_wall += m[run_core(&l, M_wall_s)];
        for (size_t k = 0; k < l.n; k++)
            sum[k] += m[k];
    }
    double wall = now_s() - t0;
    printf("== %s\n", title);
    printf("runs: %u\n", runs);
    for (size_t i = 0; show[i]; i++) {
        long k = run_layout_find(&l, show[i]);
        printf("%s: %.9g\n", show[i], k >= 0 ? sum[k] / runs : 0.0 / 0.0);
    }
    printf("wall_s: %.3f\n", wall);
    printf("wall_per_run_s: %.4f\n", wall / runs);
    printf("events: %.0f\n", events);
    printf("events_per_s: %.4g\n", run_wall > 0 ? events / run_wall : 0.0);
    printf("peak_rss_kb: %ld\n", peak_rss_kb());
    fflush(stdout);
    free(m);
    free(sum);
    run_layout_free(&l);
    run_cache_free(&rc);
    cfg_free(&c);
    return status;
}

static void no_delivery(void *owner, net_msg *m)
{
    (void)owner;
    (void)m;
    abort();
}

/* The static analysis alone, as the pattern workload's write_files runs it:
 * one fabric (built once) and `runs` random mappings of bruck on all its
 * nodes through its route op. */
static int bench_static(const char *title, const char *const *sets, unsigned runs)
{
    char err[1024];
    cfg c;
    memset(&c, 0, sizeof c);
    cfg_defaults(&c);
    for (size_t i = 0; sets[i]; i++) {
        const char *eq = strchr(sets[i], '=');
        char path[128];
        snprintf(path, sizeof path, "%.*s", (int)(eq - sets[i]), sets[i]);
        if (cfg_set(&c, path, eq + 1, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s: %s\n", title, sets[i], err);
            return 1;
        }
    }
    run_cache rc = {0};
    if (run_resolve(&c, &rc, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", title, err);
        return 1;
    }
    double t0 = now_s();
    sim *s = sim_create();
    gsl_rng *nr = rng_stream_new(1, 0, "network");
    net *n = net_create(cfg_net(&c), &c.net, cfg_net_params(&c), NULL, s, nr, no_delivery, NULL, err, sizeof err);
    if (!n) {
        fprintf(stderr, "%s: %s\n", title, err);
        return 1;
    }
    double t1 = now_s();
    uint32_t N = c.nodes;
    pat_levels lv;
    pat_set set;
    pat_generate(PAT_BRUCK, N, 0, NULL, &lv, err, sizeof err);
    pat_single(&lv, &set);
    uint32_t *map = malloc((size_t)N * sizeof *map), *scratch = malloc((size_t)N * sizeof *map);
    cong_acc acc;
    cong_acc_init(&acc, n->ops->link_count(n->state));
    double bw = 0;
    for (unsigned r = 0; r < runs; r++) {
        gsl_rng *mr = rng_stream_new(1, r, "pattern-mapping");
        map_random(map, N, N, mr, scratch);
        gsl_rng_free(mr);
        cong_result res;
        if (cong_eval(&set, map, acc.nlinks, n->ops->route, n->state, &acc, &res, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", title, err);
            return 1;
        }
        bw += res.bw_fraction;
    }
    double t2 = now_s();
    printf("== %s\n", title);
    printf("mappings: %u\n", runs);
    printf("flows_per_mapping: %llu\n", (unsigned long long)pat_set_pairs(&set));
    printf("bw_fraction_mean: %.6f\n", bw / runs);
    printf("bw_fraction_pooled: %.6f\n", cong_acc_bw_fraction(&acc));
    printf("fabric_build_s: %.3f\n", t1 - t0);
    printf("analysis_wall_s: %.3f\n", t2 - t1);
    printf("analysis_per_mapping_s: %.4f\n", (t2 - t1) / runs);
    printf("peak_rss_kb: %ld\n", peak_rss_kb());
    fflush(stdout);
    cong_acc_free(&acc);
    free(map);
    free(scratch);
    pat_set_free(&set);
    net_destroy(n);
    gsl_rng_free(nr);
    sim_destroy(s);
    run_cache_free(&rc);
    cfg_free(&c);
    return 0;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    static const char *const kshow[] = {"messages_delivered", "kernel_time_s", "kernel_time_lb_s", "kernel_slowdown",
                                        NULL};
    static const char *const pshow[] = {"sum_max_cong", "bw_fraction", "cong_max", "dep_max_delay", NULL};
    int rc = 0;
    const char *a2a[] = {"system.nodes=1024", "network.type=electrical-switch", "network.bandwidth=10Gb/s",
                         "workload.type=kernel", "workload.kernel=all-to-all", "workload.message-size=1kB", NULL};
    if (quick)
        a2a[0] = "system.nodes=256";
    rc |= bench(quick ? "kernel all-to-all, 256-port switch" : "kernel all-to-all, 1024-port switch", a2a, 1, kshow);
    const char *sr10[] = {"system.nodes=32", "network.type=electrical-switch", "network.bandwidth=10Gb/s",
                          "workload.type=kernel", "workload.kernel=sync-random", "workload.message-size=1kB",
                          "workload.total-messages=10000", "workload.wave=10", NULL};
    rc |= bench("kernel SR10 (T 32, M 10000, W 10), switch", sr10, quick ? 2 : 10, kshow);
    sr10[1] = "network.type=spinet";
    rc |= bench("kernel SR10 (T 32, M 10000, W 10), spinet", sr10, quick ? 2 : 10, kshow);
    const char *bruck[] = {"system.nodes=16384", "network.type=electrical-switch", "network.bandwidth=10Gb/s",
                           "workload.type=pattern", "workload.pattern=bruck", "workload.message-size=1kB",
                           "workload.timing=off", "workload.mapping=random", NULL, NULL};
    rc |= bench("pattern bruck, timing off, 16384-port switch, random mappings", bruck, quick ? 20 : 1000, pshow);
    bruck[0] = "system.nodes=8192";
    bruck[1] = "network.type=spinet";
    /* 13 stages: the default 8 wavelengths (1.25 Gb/s each) miss the
     * receiver's sensitivity; 16 close the budget */
    bruck[8] = "network.phy.wavelengths=16";
    rc |= bench("pattern bruck, timing off, 8192-port spinet, random mappings", bruck, quick ? 2 : 10, pshow);
    rc |= bench_static("bruck static analysis alone, 8192-port spinet (one fabric)", bruck, quick ? 20 : 1000);
    bruck[0] = "system.nodes=16384";
    bruck[1] = "network.type=electrical-switch";
    bruck[8] = NULL;
    rc |= bench_static("bruck static analysis alone, 16384-port switch (one fabric)", bruck, quick ? 20 : 1000);
    return rc;
}
