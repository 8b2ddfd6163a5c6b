/* The physical layer's configuration: the network.phy.* parameters (rows
 * declared here, values in a phy_params), shared by every fabric that
 * models optics or energy. A fabric turns them into its own budget, bit
 * error rate and energy per bit in its resolve_phy op (networks/network.h). */
#ifndef TASKNET_PHY_PARAMS_H
#define TASKNET_PHY_PARAMS_H

#include <stddef.h>

#include "energy.h"
#include "optical.h"
#include "params.h"

typedef struct phy_params {
    phy_optical optical;          /* the optical path, as configured (rate_per_wavelength_bps and
                                     waveguide_cm_per_stage are filled by phy_params_optical) */
    phy_energy energy;            /* energy per bit of electrical and optical parts */
    double waveguide_m_per_stage; /* network.phy.waveguide-per-stage, m */
} phy_params;

extern const param_row phy_param_rows[];
extern const size_t phy_param_nrows;

/* Defaults: every row's, and the physical layer's values no row exposes. */
void phy_params_defaults(phy_params *p);
/* Ranges beyond each row's own (crosstalk < 0 dB, BER target < 0.5,
 * wall-plug efficiency <= 1), reported at the parameters' paths. */
void phy_params_check(const phy_params *p, param_report *rep);
/* The optical path of a fabric of access bandwidth B: the configured
 * values with the per-wavelength rate B / wavelengths and the waveguide
 * length in cm. */
void phy_params_optical(const phy_params *p, double bandwidth_bps, phy_optical *out);

#endif
