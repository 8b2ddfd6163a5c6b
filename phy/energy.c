/* Energy per bit: the model is in energy.h. */
#include "energy.h"

#include <math.h>

#include "log.h"

void phy_energy_defaults(phy_energy *e)
{
    /* 10 % wall-plug efficiency of the laser source (issue value for phy/). */
    e->wall_plug_efficiency = 0.1;
    /* 30 mW per SOA gate (about 25 mA at 1.2 V for a short integrated gate
     * SOA; assumed, the issue gives no figure: integrated gate SOAs draw
     * tens of mW). */
    e->soa_power_w = 30e-3;
    /* SerDes 1.496 pJ/bit + 0.189 pJ/bit per Gb/s of lane rate, switch
     * core 8 pJ/bit (issue values for phy/). */
    e->serdes_j_per_bit = 1.496e-12;
    e->serdes_j_per_bit_per_bps = 0.189e-12 / 1e9;
    e->switch_core_j_per_bit = 8e-12;
    /* node TX, switch RX, switch TX, node RX */
    e->serdes_per_electrical_path = 4;
    /* node TX and node RX at the fabric's electronic edges */
    e->serdes_per_optical_path = 2;
    /* 10 Gb/s lanes: a 40 Gb/s port as 4 x 10 Gb/s (IEEE 802.3ba 40GBASE-R4),
     * the rate of one SPINet wavelength, so both fabrics pay the same SerDes
     * per bit (assumed; 0 makes the whole port one lane at B). */
    e->electrical_lane_bps = 10e9;
}

static int bad(char *err, size_t errlen, const char *field, double v, const char *want)
{
    return tn_error(err, errlen, "energy parameter %s = %g: %s", field, v, want);
}

#define NONNEG_FINITE(f)                                                                  \
    do {                                                                                  \
        if (!(e->f >= 0) || isinf(e->f))                                                  \
            return bad(err, errlen, #f, e->f, "must be a finite value >= 0");            \
    } while (0)

int phy_energy_check(const phy_energy *e, char *err, size_t errlen)
{
    if (!e)
        return tn_error(err, errlen, "energy parameters missing");
    if (!(e->wall_plug_efficiency > 0 && e->wall_plug_efficiency <= 1))
        return bad(err, errlen, "wall_plug_efficiency", e->wall_plug_efficiency,
                   "must be in (0, 1]");
    NONNEG_FINITE(soa_power_w);
    NONNEG_FINITE(serdes_j_per_bit);
    NONNEG_FINITE(serdes_j_per_bit_per_bps);
    NONNEG_FINITE(switch_core_j_per_bit);
    NONNEG_FINITE(electrical_lane_bps);
    return 0;
}

static void assert_valid(const phy_energy *e)
{
    char err[160];
    TN_ASSERT(phy_energy_check(e, err, sizeof err) == 0, "%s", err);
}

double phy_serdes_j_per_bit(const phy_energy *e, double lane_rate_bps)
{
    TN_ASSERT(lane_rate_bps > 0 && isfinite(lane_rate_bps), "SerDes lane rate %g b/s",
              lane_rate_bps);
    return e->serdes_j_per_bit + e->serdes_j_per_bit_per_bps * lane_rate_bps;
}

double phy_energy_optical_j_per_bit(const phy_optical *o, const phy_energy *e, unsigned stages,
                                    phy_energy_parts *parts)
{
    assert_valid(e);
    TN_ASSERT(o && o->wavelengths >= 1 && isfinite(o->launch_power_dbm),
              "optical energy: invalid optical parameters");
    double r = o->rate_per_wavelength_bps;
    TN_ASSERT(r > 0 && isfinite(r), "optical energy at %g b/s per wavelength", r);
    double aggregate_bps = o->wavelengths * r;
    phy_energy_parts p = {0};
    p.laser_j_per_bit =
        o->wavelengths * phy_dbm_to_w(o->launch_power_dbm) / e->wall_plug_efficiency /
        aggregate_bps;
    p.soa_j_per_bit = stages * e->soa_power_w / aggregate_bps;
    p.serdes_j_per_bit = e->serdes_per_optical_path * phy_serdes_j_per_bit(e, r);
    p.core_j_per_bit = 0.0;
    p.total_j_per_bit = p.laser_j_per_bit + p.soa_j_per_bit + p.serdes_j_per_bit;
    if (parts)
        *parts = p;
    return p.total_j_per_bit;
}

double phy_energy_electrical_j_per_bit(const phy_energy *e, double lane_rate_bps,
                                       phy_energy_parts *parts)
{
    assert_valid(e);
    phy_energy_parts p = {0};
    p.serdes_j_per_bit = e->serdes_per_electrical_path * phy_serdes_j_per_bit(e, lane_rate_bps);
    p.core_j_per_bit = e->switch_core_j_per_bit;
    p.total_j_per_bit = p.serdes_j_per_bit + p.core_j_per_bit;
    if (parts)
        *parts = p;
    return p.total_j_per_bit;
}
