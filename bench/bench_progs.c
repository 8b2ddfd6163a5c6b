/* Task-program benchmark (kernels and patterns, specs/kernels-patterns.md):
 * build + run times of the two shapes issue 11 asks about, and the static
 * congestion analysis at ORCS scale. Prints `key: value` lines.
 *
 *   bench_progs [--quick]
 *
 *   a2a      all-to-all shifted, T = 1024 on a 1024-port electrical switch,
 *            1 kB messages at 10 Gb/s: 1,047,552 messages
 *   sr10     sync-random T = 32, M = 10,000, W = 10, 1 kB (seed 003's
 *            Table 1: INSEE needed 46-48 s on a 3 GHz Pentium IV)
 *   bruck    static congestion of bruck on 16,384 SPINet ports (extra 0,
 *            the unique path of spec §3.2 in closed form), 1,000 random
 *            mappings (--quick: 20)
 * Wall times on shared machines are noisy; compare instruction counts
 * (valgrind --tool=callgrind) for small differences. Not a workload plugin:
 * it drives jobs/ and scheduler/ directly, as the plugin will. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "congestion.h"
#include "dist.h"
#include "kernels.h"
#include "mapping.h"
#include "network.h"
#include "patterns.h"
#include "prog_exec.h"
#include "rng.h"
#include "sim.h"

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

static int run_kernel(const char *name, const kern_params *p, uint32_t nodes)
{
    char err[256];
    dist size;
    dist_const(&size, UNIT_SIZE, 1000);
    gsl_rng *pairs = rng_stream_new(1, 0, "kernel-pairs");
    double t0 = now_s();
    tp_prog prog;
    if (kern_build(p, &size, NULL, NULL, NULL, pairs, &prog, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 1;
    }
    double t1 = now_s();
    net_params np;
    memset(&np, 0, sizeof np);
    np.nodes = nodes;
    np.bandwidth_bps = 10e9;
    np.link_latency_ps = 20000;
    np.switch_latency_ps = 200000;
    sim *s = sim_create();
    gsl_rng *nr = rng_stream_new(1, 0, "network");
    pexec *x = pexec_create(&prog, NULL, nodes, 0x4b50, err, sizeof err);
    net *n = x ? net_create(net_find("electrical-switch"), &np, NULL, NULL, s, nr, pexec_deliver, x, err,
                              sizeof err)
               : NULL;
    if (!n) {
        fprintf(stderr, "%s: %s\n", name, err);
        return 1;
    }
    pexec_start(x, s, n);
    sim_run(s, SIM_TIME_MAX);
    double t2 = now_s();
    int rc = pexec_finish(x, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", name, err);
    uint64_t ev = sim_events_executed(s);
    printf("== %s\n", name);
    printf("messages: %llu\n", (unsigned long long)prog.messages);
    printf("kernel_time_s: %.9g\n", (double)pexec_done_ps(x) * 1e-12);
    printf("kernel_time_lb_s: %.9g\n",
           (double)tp_lower_bound_ps(&prog, 0, np.bandwidth_bps, 240000) * 1e-12);
    printf("build_wall_s: %.3f\n", t1 - t0);
    printf("run_wall_s: %.3f\n", t2 - t1);
    printf("events: %llu\n", (unsigned long long)ev);
    printf("events_per_s: %.4g\n", (double)ev / (t2 - t1));
    printf("peak_rss_kb: %ld\n", peak_rss_kb());
    pexec_destroy(x);
    net_destroy(n);
    sim_destroy(s);
    gsl_rng_free(nr);
    gsl_rng_free(pairs);
    tp_prog_free(&prog);
    dist_free(&size);
    return rc != 0;
}

/* SPINet without extra stages (spec §3.2): the element at stage s is
 * (k/2 + (delta mod 2^s)) mod E, the output bit s of delta, delta =
 * (d/2 - k/2) mod E; links in(k) = k, out(s, j, o) = N + 2 (s E + j) + o,
 * ej(d) = N + N (S-1) + d. */
typedef struct spinet_closed {
    uint32_t nodes, stages;
} spinet_closed;

static size_t route_spinet_closed(const void *ctx, uint32_t a, uint32_t b, uint64_t *links, size_t cap)
{
    const spinet_closed *t = ctx;
    uint32_t N = t->nodes, E = N / 2, S = t->stages;
    if (cap < (size_t)S + 1)
        return S + 1;
    uint32_t delta = (b / 2 + E - a / 2) & (E - 1);
    links[0] = a;
    for (uint32_t s = 0; s + 1 < S; s++) {
        uint32_t j = (a / 2 + (delta & ((1u << s) - 1))) & (E - 1);
        links[1 + s] = N + 2 * (s * E + j) + ((delta >> s) & 1u);
    }
    links[S] = N + N * (S - 1) + b;
    return S + 1;
}

static int run_bruck(uint32_t C, unsigned runs)
{
    char err[256];
    pat_levels lv;
    if (pat_generate(PAT_BRUCK, C, 0, NULL, &lv, err, sizeof err) != 0) {
        fprintf(stderr, "bruck: %s\n", err);
        return 1;
    }
    pat_set set;
    pat_single(&lv, &set);
    spinet_closed t = {C, 0};
    while ((1u << t.stages) < C)
        t.stages++;
    uint32_t nlinks = C * (t.stages + 1);
    cong_acc acc;
    cong_acc_init(&acc, nlinks);
    uint32_t *map = malloc((size_t)C * sizeof *map), *scratch = malloc((size_t)C * sizeof *map);
    double sum_bw = 0, t0 = now_s();
    for (unsigned r = 0; r < runs; r++) {
        gsl_rng *mr = rng_stream_new(1, r, "pattern-mapping");
        map_random(map, C, C, mr, scratch);
        gsl_rng_free(mr);
        cong_result res;
        if (cong_eval(&set, map, nlinks, route_spinet_closed, &t, &acc, &res, err, sizeof err) != 0) {
            fprintf(stderr, "bruck: %s\n", err);
            return 1;
        }
        sum_bw += res.bw_fraction;
    }
    double t1 = now_s();
    printf("== bruck static, spinet %u ports, %u mappings\n", C, runs);
    printf("flows_per_run: %llu\n", (unsigned long long)pat_set_pairs(&set));
    printf("bw_fraction_mean: %.6f\n", sum_bw / runs);
    printf("bw_fraction_pooled: %.6f\n", cong_acc_bw_fraction(&acc));
    printf("cong_max_pooled: %zu\n", acc.hist_len ? acc.hist_len - 1 : 0);
    printf("wall_s: %.3f\n", t1 - t0);
    printf("peak_rss_kb: %ld\n", peak_rss_kb());
    free(map);
    free(scratch);
    cong_acc_free(&acc);
    pat_set_free(&set);
    return 0;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    kern_params a2a = {.kernel = KERN_ALL_TO_ALL, .tasks = quick ? 256 : 1024,
                       .order = KERN_SHIFTED, .iterations = 1};
    kern_params sr10 = {.kernel = KERN_SYNC_RANDOM, .tasks = 32, .iterations = 1,
                        .total_messages = 10000, .wave = 10};
    int rc = run_kernel("a2a", &a2a, a2a.tasks);
    rc |= run_kernel("sr10", &sr10, 32);
    rc |= run_bruck(16384, quick ? 20 : 1000);
    return rc;
}
