/* Optical path budget of a multistage SOA-gated fabric (MODEL.md section 8):
 * pure functions, no events, no printing, no state.
 *
 * A packet is striped over `wavelengths` wavelengths of
 * rate_per_wavelength_bps each. Every wavelength leaves its laser at
 * launch_power_dbm (average), crosses the modulator, a coupler into the
 * fabric chip, S switching stages and a coupler out of the chip to the
 * receiver. All powers are average powers of one wavelength.
 *
 * Received power (dBm):
 *   P_rx = launch - modulator - 2 coupler
 *          - S (stage_loss - soa_gain + crossings_per_stage crossing_loss
 *               + waveguide_loss_db_per_cm waveguide_cm_per_stage)
 * (the node <-> fabric fibre, ~0.5 dB/km, is neglected at rack lengths).
 *
 * Penalties are computed at the reference Q, Q_ref = phy_q_from_ber(ber_target)
 * (7.034 at 1e-12), the Q at which the receiver sensitivity is specified:
 *
 * - Crosstalk, the form of MODEL.md section 8, with every element of the
 *   path adding its leak incoherently, X_path = S x (x, ER linear):
 *     pen_xt = 10 log10(1 + Q_ref X_path (ER + 1) / (2 (ER - 1)))
 *
 * - ASE of the cascaded SOAs (one gate SOA per stage on the path). If every
 *   SOA sees about the same input power (gain compensates the element's
 *   loss), the ASE powers add and 1/OSNR_path = sum 1/OSNR_i = S/OSNR_1:
 *     OSNR_path(dB) = osnr_per_soa_db - 10 log10(S)
 *   (textbook cascade rule, e.g. R. Ramaswami, K. N. Sivarajan, G. H. Sasaki,
 *   "Optical Networks: A Practical Perspective", 3rd ed., Morgan Kaufmann
 *   2010, chapter on optical amplifiers and transmission system engineering).
 *   OSNR is referred to PHY_OSNR_REF_BANDWIDTH_HZ (0.1 nm at 1550 nm) and the
 *   receiver's electrical bandwidth is Be = rate_per_wavelength_bps / 2.
 *   Signal-ASE beat noise (ASE in both polarisations, only the co-polarised
 *   half beats; spontaneous-spontaneous beat and beat noise on the "0"
 *   level neglected) gives, with ASE alone, the Q (G. P. Agrawal,
 *   "Fiber-Optic Communication Systems", 4th ed., Wiley 2010, chapter 7,
 *   signal-spontaneous beat noise and the Q factor):
 *     Q_ase = sqrt(OSNR_path Bo / Be)
 *   Derivation: mark power 2 P_s (average P_s), ASE density per polarisation
 *   S_sp = P_ase / (2 Bo), sigma^2 = 4 R^2 (2 P_s) S_sp Be, I_1 = 2 R P_s,
 *   Q = I_1 / sigma = sqrt(P_s Bo / (P_ase Be)).
 *   The receiver is thermal-noise limited: sigma_th on both levels,
 *   Q = I_1 / (sigma_1 + sigma_0) with sigma_0 = sigma_th and
 *   sigma_1 = sqrt(sigma_th^2 + (I_1 / Q_ase)^2). Without ASE Q = I_1 / (2
 *   sigma_th), proportional to the received power. Solving for the I_1 that
 *   gives Q_ref with ASE: I_1 / sigma_th = 2 Q_ref / (1 - (Q_ref/Q_ase)^2), so
 *     pen_ase = -10 log10(1 - (Q_ref / Q_ase)^2)          (Q_ase > Q_ref)
 *   and +INFINITY when Q_ase <= Q_ref (a BER floor above the target: no
 *   received power is enough).
 *
 * The sensitivity holds at sensitivity_rate_bps; the thermal noise of the
 * receiver grows as the square root of its bandwidth, so at a rate r per
 * wavelength: sensitivity(r) = sensitivity + 5 log10(r / sensitivity_rate)
 * dB (1.5 dB per doubling; sensitivity_rate 0: the same at every rate).
 *
 * Required power = sensitivity(r) + pen_xt + pen_ase; margin = P_rx - required;
 * ok = margin >= 0.
 *
 * Q at the receiver, from the same noise model: x = I_1 / sigma_th =
 * 2 Q_ref 10^((P_rx - pen_xt - sensitivity(r)) / 10) (the crosstalk penalty
 * taken as lost signal power), Q = x / (1 + sqrt(1 + (x / Q_ase)^2)).
 * Without ASE (Q_ase infinite) this is the thermal-limited
 * Q = Q_ref 10^(margin / 10); with ASE it equals Q_ref exactly at margin 0
 * (so q >= Q_ref if and only if ok) and saturates at Q_ase for large powers.
 * BER = 0.5 erfc(Q / sqrt 2). It underflows to exactly 0 once Q exceeds
 * about 38 (BER below ~1e-308): an error-free path, as far as a simulation
 * can tell. */
#ifndef TASKNET_PHY_OPTICAL_H
#define TASKNET_PHY_OPTICAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define PHY_OSNR_REF_BANDWIDTH_HZ 12.5e9 /* OSNR reference bandwidth Bo: 0.1 nm at 1550 nm, Hz */

/* Parameters of the optical path (defaults: phy_optical_defaults). */
typedef struct phy_optical {
    double launch_power_dbm;         /* average laser power per wavelength, dBm */
    unsigned wavelengths;            /* wavelengths a packet is striped over, count (>= 1) */
    double rate_per_wavelength_bps;  /* modulation rate of one wavelength, bit/s */
    double modulator_loss_db;        /* modulator insertion loss, dB */
    double coupler_loss_db;          /* one fibre-to-chip coupler, dB (a path crosses 2) */
    double stage_loss_db;            /* insertion loss of one 2x2 element before SOA gain, dB */
    double soa_gain_db;              /* gain of the element's SOA gate, dB (net = stage_loss - gain) */
    unsigned crossings_per_stage;    /* waveguide crossings a path passes per stage, count */
    double crossing_loss_db;         /* loss of one waveguide crossing, dB */
    double waveguide_loss_db_per_cm; /* on-chip waveguide propagation loss, dB/cm */
    double waveguide_cm_per_stage;   /* waveguide length per stage, cm */
    double crosstalk_db;             /* X: leak added by one element, dB (< 0; -INFINITY = none) */
    double extinction_ratio_db;      /* ER of the modulated signal, dB (> 0, finite) */
    double osnr_per_soa_db;          /* OSNR after one SOA in 0.1 nm, dB (+INFINITY = no ASE) */
    double receiver_sensitivity_dbm; /* power/wavelength giving ber_target, no impairments, dBm */
    double sensitivity_rate_bps;     /* rate at which that sensitivity holds (0: at every rate), bit/s */
    double ber_target;               /* BER at which the sensitivity is specified (0 < ber < 0.5) */
} phy_optical;

/* The budget of one path through `stages` stages. */
typedef struct phy_budget {
    unsigned stages;             /* S, the stages crossed */
    double loss_db;              /* launch - received: all losses net of SOA gain, dB */
    double received_dbm;         /* average power per wavelength at the receiver, dBm */
    double q_ref;                /* Q at ber_target (7.034 at 1e-12) */
    double crosstalk_penalty_db; /* pen_xt, dB */
    double osnr_db;              /* OSNR at the receiver in 0.1 nm, dB (+INFINITY for S = 0) */
    double q_ase;                /* Q the ASE alone allows (+INFINITY without ASE) */
    double ase_penalty_db;       /* pen_ase, dB (+INFINITY when q_ase <= q_ref) */
    double sensitivity_dbm;      /* the sensitivity at this rate: + 5 log10(r / r_sens) dB */
    double required_dbm;         /* sensitivity + penalties, dBm */
    double margin_db;            /* received - required, dB (negative: the path fails) */
    double q;                    /* Q at the receiver */
    double ber;                  /* 0.5 erfc(q / sqrt 2); may underflow to 0 */
    int ok;                      /* 1 if margin_db >= 0 */
} phy_budget;

/* Published defaults (64-port SPINet-like fabric, 8 x 10 Gb/s striping),
 * each value cited in optical.c. With them S = 6, 7, 8 pass and S >= 9 fail. */
void phy_optical_defaults(phy_optical *p);

/* Validate p: 0, or -1 with a message naming the first bad field. */
int phy_optical_check(const phy_optical *p, char *err, size_t errlen);

/* Budget of a path through `stages` stages (0 = chip crossed with no
 * element, back to back). Validates p first: 0, or -1 + err (out untouched). */
int phy_path_budget(const phy_optical *p, unsigned stages, phy_budget *out, char *err,
                    size_t errlen);

/* One line describing b for error messages, e.g. "S=16: received -29.17 dBm <
 * required -17.49 dBm (sensitivity -20 dBm + crosstalk 0.85 dB + ASE 1.65 dB),
 * margin -11.68 dB". Returns snprintf's result. */
int phy_budget_format(const phy_budget *b, const phy_optical *p, char *buf, size_t len);

/* BER = 0.5 erfc(q / sqrt 2) (Gaussian noise, optimum threshold); never
 * aborts: underflows to 0 for q >~ 38; q <= 0 gives >= 0.5; NaN gives NaN. */
double phy_ber_from_q(double q);

/* Inverse of phy_ber_from_q on 0 < ber < 1 (gsl_cdf_ugaussian_Qinv):
 * 1e-12 -> 7.034; ber 0 -> +INFINITY; ber >= 1 -> -INFINITY; NaN -> NaN. */
double phy_q_from_ber(double ber);

/* Probability that a packet of `bits` bits has at least one error,
 * 1 - (1 - ber)^bits, as -expm1(bits log1p(-ber)): accurate for tiny ber
 * (1e-12 and 1e6 bits -> 1e-6 to 1e-12 relative), exactly 0 for ber = 0 or
 * bits = 0. Aborts unless 0 <= ber <= 1. */
double phy_packet_error(double ber, uint64_t bits);

/* The three terms of the budget, exposed for tests and for fabric designs
 * other than phy_path_budget's (ratios linear, not dB):
 * 10 log10(1 + q x (er + 1) / (2 (er - 1))); requires er > 1, x >= 0. */
double phy_crosstalk_penalty_db(double q, double crosstalk_ratio, double extinction_ratio);
/* sqrt(osnr Bo / Be) with Bo = PHY_OSNR_REF_BANDWIDTH_HZ, Be = rate_bps / 2. */
double phy_q_ase(double osnr_db, double rate_bps);
/* -10 log10(1 - (q / q_ase)^2), or +INFINITY when q_ase <= q. */
double phy_ase_penalty_db(double q, double q_ase);

static inline double phy_db_to_ratio(double db) { return pow(10.0, db / 10.0); }
static inline double phy_ratio_to_db(double ratio) { return 10.0 * log10(ratio); }
static inline double phy_dbm_to_w(double dbm) { return 1e-3 * pow(10.0, dbm / 10.0); }

#endif
