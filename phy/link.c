/* Link timing: see link.h. */
#include "link.h"

#include <float.h>
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

void phy_rate_init(phy_rate *r, double bps, unsigned unit_bits)
{
    TN_ASSERT(bps > 0 && isfinite(bps), "transmission at %g b/s", bps);
    TN_ASSERT(unit_bits >= 1, "units of %u bits", unit_bits);
    r->bps = bps;
    r->unit_bits = unit_bits;
    r->num = r->den = 0;
    uint64_t ps_unit = unit_bits * PHY_PS_PER_S; /* ps per unit at 1 b/s */
    if (bps == floor(bps) && bps < 0x1p63) {
        uint64_t b = (uint64_t)bps;
        uint64_t g = gcd_u64(ps_unit, b);
        r->num = ps_unit / g;
        r->den = b / g;
    }
}

/* Ceiling of x, except that a value a few ulps above an integer is taken as
 * that integer: the exact quotient was a multiple that rounding pushed up. */
static int64_t ceil_fixed(long double x, uint64_t units, const phy_rate *r)
{
    TN_ASSERT(x < 0x1p63L, "%llu units of %u bits at %g b/s take more than 2^63 ps",
              (unsigned long long)units, r->unit_bits, r->bps);
    long double k = ceill(x);
    if (k >= 1 && x - (k - 1) <= 8 * LDBL_EPSILON * x)
        k -= 1;
    return (int64_t)k;
}

/* ceil(a b / d) for a < d, so the quotient is below b and fits; exact
 * whatever the size of the 128-bit product. */
static uint64_t mul_div_ceil(uint64_t a, uint64_t b, uint64_t d)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 p = (unsigned __int128)a * b;
    return (uint64_t)(p / d) + (p % d != 0);
#else
    /* Schoolbook: walk b's bits from the top, keeping q d + r = a (bits so
     * far) with r < d; every step avoids overflow by comparing before adding. */
    uint64_t q = 0, r = 0;
    for (int i = 63; i >= 0; i--) {
        /* (q, r) <- 2 (q, r) */
        q <<= 1;
        if (r >= d - r) {
            r = r - (d - r);
            q += 1;
        } else {
            r <<= 1;
        }
        if ((b >> i) & 1) {
            if (r >= d - a) {
                r = r - (d - a);
                q += 1;
            } else {
                r += a;
            }
        }
    }
    return q + (r != 0);
#endif
}

int64_t phy_rate_ps_slow(const phy_rate *r, uint64_t units)
{
    if (r->num == 0)
        return ceil_fixed((long double)units * (long double)r->unit_bits * 1e12L / r->bps, units, r);
    /* units * num / den without forming the (possibly 100-bit) product:
     * (q den + rem) num / den = q num + rem num / den. */
    uint64_t q = units / r->den, rem = units % r->den;
    TN_ASSERT(q <= (uint64_t)INT64_MAX / r->num, "%llu units of %u bits at %g b/s take more than 2^63 ps",
              (unsigned long long)units, r->unit_bits, r->bps);
    uint64_t whole = q * r->num, frac;
    if (rem == 0) {
        frac = 0;
    } else if (rem <= UINT64_MAX / r->num) {
        uint64_t p = rem * r->num;
        frac = p / r->den + (p % r->den != 0);
    } else {
        frac = mul_div_ceil(rem, r->num, r->den);
    }
    TN_ASSERT(frac <= (uint64_t)INT64_MAX - whole, "%llu units of %u bits at %g b/s take more than 2^63 ps",
              (unsigned long long)units, r->unit_bits, r->bps);
    return (int64_t)(whole + frac);
}

int64_t phy_serialization_ps(uint64_t bits, unsigned wavelengths,
                             double rate_per_wavelength_bps)
{
    double r = rate_per_wavelength_bps;
    TN_ASSERT(wavelengths >= 1, "serialisation over %u wavelengths", wavelengths);
    TN_ASSERT(r > 0 && isfinite(r), "serialisation at %g b/s per wavelength", r);
    phy_rate rate;
    phy_rate_init(&rate, r, 1);
    return phy_striped_ps(&rate, bits, wavelengths);
}
