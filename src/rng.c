#include "rng.h"

#include "log.h"

/* splitmix64's output function: a bijection on 64 bits with full avalanche,
 * so nearby inputs (replica 0, 1, 2 ...) give unrelated outputs. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* FNV-1a turns the component name into 64 bits; it mixes poorly on its own,
 * which is why the result goes through mix64 below. */
static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t rng_derive_seed(uint64_t base_seed, uint64_t replica, const char *component)
{
    /* Chained, not XORed side by side: mix(a) ^ mix(b) would be symmetric
     * in its inputs and (seed 1, replica 2) would equal (seed 2, replica 1).
     * The golden-ratio increments are splitmix64's, so a zero input is not a
     * fixed point. */
    const uint64_t gamma = 0x9e3779b97f4a7c15ull;
    uint64_t h = mix64(base_seed + gamma);
    h = mix64(h ^ (replica + 2 * gamma));
    h = mix64(h ^ (fnv1a64(component) + 3 * gamma));
    return h;
}

gsl_rng *rng_stream_new(uint64_t base_seed, uint64_t replica, const char *component)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    TN_ASSERT(r != NULL, "gsl_rng_alloc failed");
    uint64_t h = rng_derive_seed(base_seed, replica, component);
    /* MT19937 takes a 32-bit seed; fold both halves in so no part of the
     * hash is thrown away. GSL maps seed 0 to its default seed 4357, so
     * steer 0 elsewhere to keep it distinct from a genuine 4357. */
    unsigned long seed = (unsigned long)(uint32_t)(h ^ (h >> 32));
    if (seed == 0)
        seed = 0x6a09e667ul;
    gsl_rng_set(r, seed);
    return r;
}
