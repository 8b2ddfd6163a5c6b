/* Optical path budget: the model and its formulas are in optical.h. */
#include "optical.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_erf.h>
#include <math.h>
#include <stdio.h>

#include "log.h"

void phy_optical_defaults(phy_optical *p)
{
    /* 0 dBm per wavelength: a directly usable DFB/transmitter level, inside
     * the 10GBASE-LR average launch power range of -8.2 to +0.5 dBm
     * (IEEE Std 802.3ae-2002, clause 52). */
    p->launch_power_dbm = 0.0;
    /* SPINet demonstrated wavelength-striped packets of 8 wavelengths x
     * 10 Gb/s at BER < 1e-12 (A. Shacham, K. Bergman, "An experimental
     * validation of a wavelength-striped, packet switched, optical
     * interconnection network", J. Lightwave Technol. 27(7):841-850, 2009). */
    p->wavelengths = 8;
    p->rate_per_wavelength_bps = 10e9;
    /* 4 dB: insertion loss of a 10 Gb/s lithium-niobate Mach-Zehnder
     * modulator, typically 3-5 dB in vendor data sheets (assumed value). */
    p->modulator_loss_db = 4.0;
    /* 1 dB per fibre-to-chip coupler (issue value for phy/). */
    p->coupler_loss_db = 1.0;
    /* SPINet's 2x2 element is broadcast-and-select: each input is split
     * 1:2 (3 dB), gated by an SOA, and combined 2:1 (3 dB) onto its output
     * (A. Shacham, K. Bergman, "Building ultralow-latency interconnection
     * networks using photonic integration", IEEE Micro 27(4):6-20, 2007);
     * 6 dB of splitting and combining plus 1 dB of excess loss (assumed). */
    p->stage_loss_db = 7.0;
    /* 6.5 dB: the gate SOA biased to compensate all but 0.5 dB of the
     * element's loss, so the cascade stays far from gain saturation
     * (assumed; integrated gate SOAs give 10-20 dB of small-signal gain). */
    p->soa_gain_db = 6.5;
    /* A path crosses the inter-stage shuffle of 32 elements once per stage;
     * its longest links span half the array, about N/4 = 16 waveguides in a
     * planar layout (assumed geometry). 0.028 dB per crossing (issue value). */
    p->crossings_per_stage = 16;
    p->crossing_loss_db = 0.028;
    /* 1 dB/cm waveguide loss (issue value); 5 mm of waveguide per stage
     * (assumed layout: 8 stages on a ~4 cm die). */
    p->waveguide_loss_db_per_cm = 1.0;
    p->waveguide_cm_per_stage = 0.5;
    /* -25 dB crosstalk per element (assumed: a gate SOA in its off state
     * typically blocks 25-40 dB; the low end is taken). */
    p->crosstalk_db = -25.0;
    /* 10 dB extinction ratio: a typical 10 Gb/s modulated transmitter, well
     * above the 3.5 dB minimum of 10GBASE-LR (IEEE Std 802.3ae-2002). */
    p->extinction_ratio_db = 10.0;
    /* OSNR after one SOA, in 0.1 nm: OSNR = 58 dB + P_in(dBm) - NF(dB)
     * (h nu Bo = -58 dBm at 1550 nm, 0.1 nm; the textbook rule, e.g.
     * Ramaswami, Sivarajan, Sasaki, Optical Networks, 3rd ed., 2010), with
     * a conservative SOA input of -20 dBm per wavelength and NF = 8 dB
     * (SOA noise figures are typically 7-10 dB): 58 - 20 - 8 = 30 dB. */
    p->osnr_per_soa_db = 30.0;
    /* -20 dBm at BER 1e-12 (issue values; Q_ref = 7.034), taken at the
     * 10 Gb/s per wavelength SPINet demonstrated. A thermal-noise-limited
     * receiver's noise grows with the square root of its bandwidth, so at a
     * rate r it needs 5 log10(r / 10 Gb/s) dB more (1.5 dB per doubling;
     * e.g. Agrawal, Fiber-Optic Communication Systems, 4th ed., 2010, 4.5). */
    p->receiver_sensitivity_dbm = -20.0;
    p->sensitivity_rate_bps = 10e9;
    p->ber_target = 1e-12;
}

static int bad(char *err, size_t errlen, const char *field, double v, const char *want)
{
    return tn_error(err, errlen, "optical parameter %s = %g: %s", field, v, want);
}

#define NONNEG_FINITE(f)                                                                  \
    do {                                                                                  \
        if (!(p->f >= 0) || isinf(p->f))                                                  \
            return bad(err, errlen, #f, p->f, "must be a finite value >= 0");            \
    } while (0)

int phy_optical_check(const phy_optical *p, char *err, size_t errlen)
{
    if (!p)
        return tn_error(err, errlen, "optical parameters missing");
    if (!isfinite(p->launch_power_dbm))
        return bad(err, errlen, "launch_power_dbm", p->launch_power_dbm, "must be finite");
    if (p->wavelengths < 1)
        return bad(err, errlen, "wavelengths", p->wavelengths, "must be at least 1");
    if (!(p->rate_per_wavelength_bps > 0) || isinf(p->rate_per_wavelength_bps))
        return bad(err, errlen, "rate_per_wavelength_bps", p->rate_per_wavelength_bps,
                   "must be finite and > 0");
    NONNEG_FINITE(modulator_loss_db);
    NONNEG_FINITE(coupler_loss_db);
    NONNEG_FINITE(stage_loss_db);
    NONNEG_FINITE(soa_gain_db);
    NONNEG_FINITE(crossing_loss_db);
    NONNEG_FINITE(waveguide_loss_db_per_cm);
    NONNEG_FINITE(waveguide_cm_per_stage);
    if (!(p->crosstalk_db < 0))
        return bad(err, errlen, "crosstalk_db", p->crosstalk_db,
                   "must be < 0 dB (a leak below the signal; -inf for none)");
    if (!(p->extinction_ratio_db > 0) || isinf(p->extinction_ratio_db))
        return bad(err, errlen, "extinction_ratio_db", p->extinction_ratio_db,
                   "must be finite and > 0 dB");
    if (isnan(p->osnr_per_soa_db) || p->osnr_per_soa_db == -INFINITY)
        return bad(err, errlen, "osnr_per_soa_db", p->osnr_per_soa_db,
                   "must be a number of dB (+inf for no ASE)");
    if (!(p->sensitivity_rate_bps >= 0) || isinf(p->sensitivity_rate_bps))
        return bad(err, errlen, "sensitivity_rate_bps", p->sensitivity_rate_bps, "must be a finite rate >= 0");
    if (!isfinite(p->receiver_sensitivity_dbm))
        return bad(err, errlen, "receiver_sensitivity_dbm", p->receiver_sensitivity_dbm,
                   "must be finite");
    if (!(p->ber_target > 0 && p->ber_target < 0.5))
        return bad(err, errlen, "ber_target", p->ber_target, "must be in (0, 0.5)");
    return 0;
}

double phy_ber_from_q(double q)
{
    gsl_sf_result r;
    /* The _e form reports instead of calling GSL's (aborting) error
     * handler; erfc of a large argument underflows to 0, which is the
     * right answer for a simulation. */
    int status = gsl_sf_erfc_e(q * 0.70710678118654752440 /* 1/sqrt 2 */, &r);
    if (status == GSL_SUCCESS)
        return 0.5 * r.val;
    if (isnan(q))
        return NAN;
    return status == GSL_EUNDRFLW || q > 0 ? 0.0 : 1.0;
}

double phy_q_from_ber(double ber)
{
    if (isnan(ber))
        return NAN;
    if (ber <= 0)
        return INFINITY;
    if (ber >= 1)
        return -INFINITY;
    return gsl_cdf_ugaussian_Qinv(ber);
}

double phy_packet_error(double ber, uint64_t bits)
{
    TN_ASSERT(ber >= 0 && ber <= 1, "packet error with BER %g", ber);
    if (ber == 0 || bits == 0)
        return 0.0;
    return -expm1((double)bits * log1p(-ber));
}

double phy_crosstalk_penalty_db(double q, double crosstalk_ratio, double extinction_ratio)
{
    return 10.0 * log10(1.0 + q * crosstalk_ratio * (extinction_ratio + 1.0) /
                                  (2.0 * (extinction_ratio - 1.0)));
}

double phy_q_ase(double osnr_db, double rate_bps)
{
    if (osnr_db == INFINITY)
        return INFINITY;
    double be_hz = rate_bps / 2.0;
    return sqrt(phy_db_to_ratio(osnr_db) * PHY_OSNR_REF_BANDWIDTH_HZ / be_hz);
}

double phy_ase_penalty_db(double q, double q_ase)
{
    if (!(q_ase > q))
        return INFINITY;
    if (isinf(q_ase))
        return 0.0; /* not -0.0 */
    double r = q / q_ase;
    return -10.0 * log10(1.0 - r * r);
}

int phy_path_budget(const phy_optical *p, unsigned stages, phy_budget *out, char *err,
                    size_t errlen)
{
    if (phy_optical_check(p, err, errlen) < 0)
        return -1;
    phy_budget b = {.stages = stages};
    double s = (double)stages;
    double per_stage_db = p->stage_loss_db - p->soa_gain_db +
                          p->crossings_per_stage * p->crossing_loss_db +
                          p->waveguide_loss_db_per_cm * p->waveguide_cm_per_stage;
    b.loss_db = p->modulator_loss_db + 2.0 * p->coupler_loss_db + s * per_stage_db;
    b.received_dbm = p->launch_power_dbm - b.loss_db;
    b.q_ref = phy_q_from_ber(p->ber_target);

    double x_path = s * phy_db_to_ratio(p->crosstalk_db);
    double er = phy_db_to_ratio(p->extinction_ratio_db);
    b.crosstalk_penalty_db = phy_crosstalk_penalty_db(b.q_ref, x_path, er);

    b.osnr_db = stages ? p->osnr_per_soa_db - 10.0 * log10(s) : INFINITY;
    b.q_ase = phy_q_ase(b.osnr_db, p->rate_per_wavelength_bps);
    b.ase_penalty_db = phy_ase_penalty_db(b.q_ref, b.q_ase);

    b.sensitivity_dbm = p->receiver_sensitivity_dbm;
    if (p->sensitivity_rate_bps > 0)
        b.sensitivity_dbm += 5.0 * log10(p->rate_per_wavelength_bps / p->sensitivity_rate_bps);
    b.required_dbm = b.sensitivity_dbm + b.crosstalk_penalty_db + b.ase_penalty_db;
    b.margin_db = b.received_dbm - b.required_dbm;
    b.ok = b.margin_db >= 0;

    /* x = I_1 / sigma_th; 2 Q_ref at the sensitivity (thermal limit). */
    double x = 2.0 * b.q_ref *
               phy_db_to_ratio(b.received_dbm - b.crosstalk_penalty_db - b.sensitivity_dbm);
    if (isinf(b.q_ase)) {
        b.q = x / 2.0;
    } else {
        double y = x / b.q_ase;
        b.q = x / (1.0 + sqrt(1.0 + y * y));
    }
    b.ber = phy_ber_from_q(b.q);
    *out = b;
    return 0;
}

int phy_budget_format(const phy_budget *b, const phy_optical *p, char *buf, size_t len)
{
    if (isinf(b->ase_penalty_db)) /* Q_ase <= Q_ref: no power is enough, and "required inf dBm" reads badly */
        return snprintf(buf, len,
                        "S=%u: the ASE noise of %u SOA stages (OSNR %.2f dB) alone limits Q to %.3g, below the "
                        "%.3g that the BER target %.3g needs: no received power meets it (received %.2f dBm)",
                        b->stages, b->stages, b->osnr_db, b->q_ase, b->q_ref, p->ber_target, b->received_dbm);
    return snprintf(buf, len,
                    "S=%u: received %.2f dBm %s required %.2f dBm (sensitivity %.2f dBm + "
                    "crosstalk %.2f dB + ASE %.2f dB), margin %.2f dB, Q %.3g, BER %.3g",
                    b->stages, b->received_dbm, b->ok ? ">=" : "<", b->required_dbm,
                    b->sensitivity_dbm, b->crosstalk_penalty_db, b->ase_penalty_db,
                    b->margin_db, b->q, b->ber);
}
