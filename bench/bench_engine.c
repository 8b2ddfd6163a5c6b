/* Event-engine benchmark: the classic hold model. The queue is filled with
 * `pending` events at exponential times; then every event, when it fires,
 * schedules one successor at now + an exponential increment, so the queue
 * size stays constant while `events` events run. Prints `key: value` lines.
 *
 *   bench_engine [--pending N] [--events M] [--seed S]
 *
 * Increments come from a precomputed table so the figure measures the
 * engine (heap + slot pool + dispatch), not the logarithm in the sampler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim.h"

#define INCR_TABLE_SIZE (1u << 20) /* power of two: index by masking */
#define MEAN_INCREMENT_PS 1000000.0 /* 1 us: the value is irrelevant to a heap, only its shape */

typedef struct hold {
    int64_t *incr_ps;  /* precomputed exponential increments */
    uint32_t next;     /* next table index */
    uint64_t target;   /* events to run before stopping */
    uint64_t fired;    /* events run */
    uint64_t checksum; /* sum of args, so the work cannot be optimised away */
} hold;

static void hold_event(sim *s, void *ctx, uint64_t arg)
{
    hold *h = ctx;
    h->checksum += arg;
    int64_t d = h->incr_ps[h->next++ & (INCR_TABLE_SIZE - 1)];
    sim_schedule(s, d, hold_event, h, arg + 1);
    /* After rescheduling, so the queue ends as full as it started. */
    if (++h->fired == h->target)
        sim_stop(s);
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static unsigned long long arg_ull(int argc, char **argv, const char *name, unsigned long long dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtoull(argv[i + 1], NULL, 10);
    return dflt;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [--pending N] [--events M] [--seed S]\n", argv[0]);
            return 0;
        }
    uint64_t pending = arg_ull(argc, argv, "--pending", 1000000);
    uint64_t events = arg_ull(argc, argv, "--events", 20000000);
    unsigned long seed = (unsigned long)arg_ull(argc, argv, "--seed", 1);

    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    hold h = {.incr_ps = malloc(INCR_TABLE_SIZE * sizeof(int64_t)), .target = events};
    if (!h.incr_ps) {
        fprintf(stderr, "bench_engine: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < INCR_TABLE_SIZE; i++)
        h.incr_ps[i] = (int64_t)gsl_ran_exponential(r, MEAN_INCREMENT_PS);

    sim *s = sim_create();
    double t0 = wall_s();
    for (uint64_t i = 0; i < pending; i++)
        sim_schedule(s, (int64_t)gsl_ran_exponential(r, MEAN_INCREMENT_PS), hold_event, &h, 0);
    double t1 = wall_s();
    uint64_t ran = sim_run(s, SIM_TIME_MAX);
    double t2 = wall_s();

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("bench: hold\n");
    printf("pending_initial: %llu\n", (unsigned long long)pending);
    printf("events: %llu\n", (unsigned long long)ran);
    printf("fill_wall_s: %.3f\n", t1 - t0);
    printf("wall_s: %.3f\n", t2 - t1);
    printf("events_per_s: %.0f\n", t2 > t1 ? (double)ran / (t2 - t1) : 0.0);
    printf("ns_per_event: %.1f\n", ran ? 1e9 * (t2 - t1) / (double)ran : 0.0);
    printf("pending: %llu\n", (unsigned long long)sim_pending(s));
    printf("sim_time_s: %.6f\n", (double)sim_now(s) * 1e-12);
    printf("peak_rss_kB: %ld\n", ru.ru_maxrss);
    printf("checksum: %llu\n", (unsigned long long)h.checksum);

    sim_destroy(s);
    free(h.incr_ps);
    gsl_rng_free(r);
    return 0;
}
