/* Independent GSL random streams, one per component. A stream's seed is a
 * hash of (base seed, replica, component name), so the same base seed gives
 * the same jobs on every fabric (common random numbers) and results never
 * depend on how many processes ran a sweep. */
#ifndef TASKNET_RNG_H
#define TASKNET_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* 64-bit seed for (base_seed, replica, component); a good mix (splitmix64 over FNV-1a). */
uint64_t rng_derive_seed(uint64_t base_seed, uint64_t replica, const char *component);
/* New stream (gsl_rng_mt19937) seeded with rng_derive_seed; free with gsl_rng_free. */
gsl_rng *rng_stream_new(uint64_t base_seed, uint64_t replica, const char *component);

#endif
