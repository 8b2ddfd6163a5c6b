/* Link timing of the physical layer: pure functions, integer picoseconds.
 *
 * Propagation: light in fibre and in a silicon/III-V waveguide is taken to
 * travel 1 m in 5 ns (group index ~1.5, the value MODEL.md section 7 uses
 * for node <-> fabric links); a length in metres becomes
 * round(L * 5000) ps, to nearest, halves away from zero (llround), the
 * rounding networks/net_spinet.c uses for its links.
 *
 * Serialisation of a wavelength-striped packet: the b bits are dealt over W
 * wavelengths that are modulated in parallel, each at r bit/s, so the
 * packet occupies ceil(b / W) bit slots of 1/r each; the time is rounded up
 * to a whole picosecond (the last bit has left only once the slot ends).
 * When W divides b this equals b / (W r), e.g. 1000 b on 8 x 10 Gb/s =
 * 125 slots of 100 ps = 12500 ps. For an integer rate the result is exact
 * (integer arithmetic); otherwise it is computed in long double.
 *
 * Arguments outside the domain (negative or non-finite length, W = 0,
 * r <= 0, a time beyond 2^63 ps) are caller bugs and abort via TN_ASSERT. */
#ifndef TASKNET_PHY_LINK_H
#define TASKNET_PHY_LINK_H

#include <stdint.h>

#define PHY_PS_PER_M 5000.0 /* propagation delay, ps per metre (5 ns/m) */

/* Propagation delay of a fibre or waveguide of length_m metres, ps (nearest). */
int64_t phy_propagation_ps(double length_m);

/* Transmission time at a fixed rate, exact: the time of n units of
 * unit_bits bits at bps is ceil(n unit_bits 1e12 / bps) ps. For an integer
 * rate unit_bits 1e12 / bps is kept as a reduced fraction num/den, so the
 * result is exact (40 B at 40 Gb/s is 8000 ps, not 8001) with no division
 * by a gcd per call; otherwise it is computed in long double, a quotient a
 * few ulps above an integer being taken as that integer. Shared by the
 * fabrics (bytes at B, networks/network.h) and wavelength striping here. */
typedef struct phy_rate {
    double bps;         /* the rate, bit/s */
    unsigned unit_bits; /* bits per unit counted (8: bytes, 1: bits) */
    uint64_t num;       /* ps per den units (0: rate not an integer, long double path) */
    uint64_t den;       /* units per num ps */
} phy_rate;

/* Aborts unless 0 < bps finite and unit_bits >= 1. */
void phy_rate_init(phy_rate *r, double bps, unsigned unit_bits);
/* The general case of phy_rate_ps (call phy_rate_ps). */
int64_t phy_rate_ps_slow(const phy_rate *r, uint64_t units);
/* Time of `units` units at r, ps, rounded up; aborts beyond 2^63 ps.
 * Inline fast path: every rate the shipped configurations use is a whole
 * number of ps per unit (den 1: 1, 10, 40, 100 Gb/s in bytes or bits), and
 * then the time is one multiplication. The general path divides twice per
 * call (units / den, then the remainder's share), which was 4% of fig9's
 * cycles for 1.2% of its instructions. */
static inline int64_t phy_rate_ps(const phy_rate *r, uint64_t units)
{
    uint64_t t;
    if (r->den == 1 && !__builtin_mul_overflow(units, r->num, &t) && t <= (uint64_t)INT64_MAX)
        return (int64_t)t;
    return phy_rate_ps_slow(r, units);
}

/* Time for `bits` striped over `wavelengths` lanes of one `lane` rate each:
 * ceil(bits / wavelengths) units of lane (unit_bits 1). For a fabric that
 * keeps the lane rate; phy_serialization_ps below is the same, one call. */
static inline int64_t phy_striped_ps(const phy_rate *lane, uint64_t bits, unsigned wavelengths)
{
    /* one lane (the usual case): no division */
    uint64_t units = wavelengths == 1 ? bits : bits / wavelengths + (bits % wavelengths != 0);
    return phy_rate_ps(lane, units);
}

/* Time for `bits` striped over `wavelengths` lanes of rate_per_wavelength_bps
 * each: ceil(ceil(bits / wavelengths) * 1e12 / rate) ps. 0 bits take 0 ps. */
int64_t phy_serialization_ps(uint64_t bits, unsigned wavelengths,
                             double rate_per_wavelength_bps);

#endif
