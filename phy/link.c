/* Link timing: see link.h. */
#include "link.h"

#include <math.h>

#include "log.h"

#define PHY_PS_PER_S UINT64_C(1000000000000) /* 1e12 */

int64_t phy_propagation_ps(double length_m)
{
    TN_ASSERT(length_m >= 0 && isfinite(length_m), "propagation over %g m", length_m);
    double ps = length_m * PHY_PS_PER_M;
    /* 2^63 is exactly representable; anything at or above it does not fit. */
    TN_ASSERT(ps < 9223372036854775808.0, "propagation over %g m exceeds 2^63 ps", length_m);
    return (int64_t)llround(ps);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ceil(slots * 1e12 / rate) for a rate that is a positive integer below
 * 2^63: with g = gcd(1e12, rate), num = 1e12/g and den = rate/g coprime,
 * slots = q den + rem gives q num + ceil(rem num / den). */
static int64_t slots_ps_exact(uint64_t slots, uint64_t rate, double rate_d)
{
    uint64_t g = gcd_u64(PHY_PS_PER_S, rate);
    uint64_t num = PHY_PS_PER_S / g, den = rate / g;
    uint64_t q = slots / den, rem = slots % den;
    TN_ASSERT(q <= (uint64_t)INT64_MAX / num, "%llu bit slots at %g b/s exceed 2^63 ps",
              (unsigned long long)slots, rate_d);
    uint64_t whole = q * num, frac;
    if (rem == 0) {
        frac = 0;
    } else if (rem <= UINT64_MAX / num) {
        uint64_t p = rem * num;
        frac = p / den + (p % den != 0);
    } else {
        /* 0 < rem < den and num, den coprime: rem num / den is not an
         * integer, so the ceiling of the long double quotient is right. */
        frac = (uint64_t)ceill((long double)rem * (long double)num / (long double)den);
    }
    TN_ASSERT(frac <= (uint64_t)INT64_MAX - whole, "%llu bit slots at %g b/s exceed 2^63 ps",
              (unsigned long long)slots, rate_d);
    return (int64_t)(whole + frac);
}

int64_t phy_serialization_ps(uint64_t bits, unsigned wavelengths,
                             double rate_per_wavelength_bps)
{
    double r = rate_per_wavelength_bps;
    TN_ASSERT(wavelengths >= 1, "serialisation over %u wavelengths", wavelengths);
    TN_ASSERT(r > 0 && isfinite(r), "serialisation at %g b/s per wavelength", r);
    uint64_t slots = bits / wavelengths + (bits % wavelengths != 0);
    if (slots == 0)
        return 0;
    if (r == floor(r) && r < 9223372036854775808.0)
        return slots_ps_exact(slots, (uint64_t)r, r);
    long double t = ceill((long double)slots * 1e12L / (long double)r);
    TN_ASSERT(t < 9223372036854775808.0L, "%llu bit slots at %g b/s exceed 2^63 ps",
              (unsigned long long)slots, r);
    return (int64_t)t;
}
