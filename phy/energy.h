/* Energy per transmitted bit of a path through each kind of fabric: pure
 * functions. Energies are those spent while the path carries data at its
 * full rate (idle laser/SOA/SerDes power is not counted); both fabrics
 * count the SerDes a bit crosses, so they compare like for like.
 *
 * Optical fabric (stages S, W wavelengths of rate r, aggregate W r):
 *   laser  = W P_launch / eta / (W r) = P_launch / (eta r)
 *            (P_launch per wavelength in W, eta = wall-plug efficiency)
 *   SOA    = S P_soa / (W r)     one gate SOA per stage on the path, on for
 *                                the whole striped packet (all W wavelengths)
 *   SerDes = serdes_per_optical_path (a + b r)      node TX and node RX, each
 *            wavelength is one lane at r (the fabric itself is all-optical)
 *   core   = 0
 * Electrical switch (MODEL.md section 6; lane rate R = min(B, electrical
 * lane rate): a port of B runs B / R lanes, as 40GBASE-R4 runs 4 x 10 Gb/s,
 * at the lane rate the optical side uses per wavelength by default):
 *   SerDes = serdes_per_electrical_path (a + b R)   node TX, switch RX,
 *            switch TX, node RX: 2 links x 2 ends = 4
 *   core   = switch_core_j_per_bit
 * with the SerDes energy per bit a + b R (a intercept, b slope per bit/s). */
#ifndef TASKNET_PHY_ENERGY_H
#define TASKNET_PHY_ENERGY_H

#include <stddef.h>

#include "optical.h"

/* Electrical-side parameters (defaults: phy_energy_defaults). */
typedef struct phy_energy {
    double wall_plug_efficiency;         /* laser optical out / electrical in, ratio (0, 1] */
    double soa_power_w;                  /* electrical power of one SOA gate while on, W */
    double serdes_j_per_bit;             /* SerDes energy intercept a (lane rate -> 0), J/bit */
    double serdes_j_per_bit_per_bps;     /* SerDes energy slope b, J/bit per bit/s of lane rate */
    double switch_core_j_per_bit;        /* electrical switch core (buffers, crossbar, control), J/bit */
    unsigned serdes_per_electrical_path; /* SerDes crossed node -> switch -> node, count */
    unsigned serdes_per_optical_path;    /* SerDes at the optical edges, count (0: leave out) */
    double electrical_lane_bps;          /* SerDes lane rate of the switch's ports, bit/s (0: B) */
} phy_energy;

/* One energy per bit split into its terms (all J/bit). */
typedef struct phy_energy_parts {
    double laser_j_per_bit;  /* lasers (optical fabric only) */
    double soa_j_per_bit;    /* SOA gates on the path (optical fabric only) */
    double serdes_j_per_bit; /* every SerDes the bit crosses */
    double core_j_per_bit;   /* electrical switch core (electrical fabric only) */
    double total_j_per_bit;  /* sum of the above */
} phy_energy_parts;

/* Published defaults, each cited in energy.c. */
void phy_energy_defaults(phy_energy *e);

/* Validate e: 0, or -1 with a message naming the first bad field. */
int phy_energy_check(const phy_energy *e, char *err, size_t errlen);

/* Energy per bit of one SerDes at lane_rate_bps: a + b rate, J/bit. */
double phy_serdes_j_per_bit(const phy_energy *e, double lane_rate_bps);

/* Optical fabric, path of `stages` stages, J/bit; fills parts if non-NULL.
 * Uses o's launch power, wavelengths and rate. Aborts on parameters that
 * phy_optical_check / phy_energy_check reject (validate first). */
double phy_energy_optical_j_per_bit(const phy_optical *o, const phy_energy *e, unsigned stages,
                                    phy_energy_parts *parts);

/* Electrical single switch with lanes of lane_rate_bps, J/bit; fills parts
 * if non-NULL. Aborts on lane_rate_bps <= 0 or an invalid e. */
double phy_energy_electrical_j_per_bit(const phy_energy *e, double lane_rate_bps,
                                       phy_energy_parts *parts);

#endif
