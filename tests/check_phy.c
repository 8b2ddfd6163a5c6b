/* Physical layer (phy/): every expected value is derived by hand in the
 * comment beside its assertion, from the formulas in phy/link.h,
 * phy/optical.h and phy/energy.h.
 *
 * The defaults (phy_optical_defaults, phy_energy_defaults) used below:
 *   launch 0 dBm/wavelength, 8 x 10 Gb/s, modulator 4 dB, coupler 1 dB (x2),
 *   stage 7 dB, SOA gain 6.5 dB, 16 crossings x 0.028 dB, 1 dB/cm x 0.5 cm,
 *   X = -25 dB, ER = 10 dB, OSNR/SOA = 30 dB (0.1 nm), sensitivity -20 dBm
 *   at BER 1e-12; wall-plug 0.1, SOA 30 mW, SerDes 1.496 pJ/b + 0.189 pJ/b
 *   per Gb/s, switch core 8 pJ/b, 4 SerDes (electrical), 2 (optical).
 * Constants used in the hand derivations:
 *   Q_ref = Q(1e-12) = 7.0344838 (standard normal upper tail 1e-12)
 *   Q_ref^2 = 49.48396
 *   net loss per stage = 7 - 6.5 + 16 x 0.028 + 1 x 0.5 = 0.5 + 0.448 + 0.5
 *                      = 1.448 dB
 *   fixed loss = modulator 4 + 2 couplers x 1 = 6 dB -> P(S) = -6 - 1.448 S dBm
 *   X = 10^-2.5 = 0.00316228, ER = 10: (ER + 1) / (2 (ER - 1)) = 11/18
 *     = 0.611111, so Q_ref X (ER+1)/(2(ER-1)) = 7.0344838 x 0.00316228 x
 *     0.611111 = 0.0135942 per stage
 *   Bo / Be = 12.5 GHz / (10 Gb/s / 2) = 2.5; OSNR_1 = 1000:
 *     Q_ase(S)^2 = (1000 / S) x 2.5 = 2500 / S */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "energy.h"
#include "harness.h"
#include "link.h"
#include "net_spinet.h"
#include "network.h"
#include "optical.h"
#include "params.h"
#include "phy_params.h"
#include "run.h"

#define Q_REF 7.0344838253

static void assert_rel(double got, double want, double rel)
{
    ck_assert_msg(fabs(got - want) <= rel * fabs(want), "got %.17g, want %.17g (rel %g)", got,
                  want, rel);
}

static phy_budget budget(const phy_optical *p, unsigned stages)
{
    phy_budget b;
    char err[256];
    ck_assert_msg(phy_path_budget(p, stages, &b, err, sizeof err) == 0, "%s", err);
    return b;
}

/* ---------------------------------------------------------------- link */

START_TEST(test_propagation)
{
    /* 2 m x 5000 ps/m = 10000 ps = 10 ns */
    ck_assert_int_eq(phy_propagation_ps(2.0), 10000);
    ck_assert_int_eq(phy_propagation_ps(0.0), 0);
    /* 0.25 m x 5000 = 1250 ps */
    ck_assert_int_eq(phy_propagation_ps(0.25), 1250);
    /* 2^-13 m = 0.0001220703125 m -> 0.6103515625 ps -> nearest 1 ps */
    ck_assert_int_eq(phy_propagation_ps(0.0001220703125), 1);
    /* 2^-14 m -> 0.30517578125 ps -> nearest 0 ps */
    ck_assert_int_eq(phy_propagation_ps(0.00006103515625), 0);
    /* 2.5 m: 12500 ps exactly */
    ck_assert_int_eq(phy_propagation_ps(2.5), 12500);
}
END_TEST

START_TEST(test_serialization)
{
    /* 1000 b over 8 wavelengths = 125 slots of 1/10 GHz = 100 ps:
     * 12500 ps = 12.5 ns (= 1000 b / 80 Gb/s) */
    ck_assert_int_eq(phy_serialization_ps(1000, 8, 10e9), 12500);
    /* 1001 b: ceil(1001 / 8) = 126 slots x 100 ps = 12600 ps (the last
     * slot is partly empty on 7 of the 8 wavelengths) */
    ck_assert_int_eq(phy_serialization_ps(1001, 8, 10e9), 12600);
    /* 4096 b over 16 x 10 Gb/s: 256 slots x 100 ps = 25600 ps
     * = 4096 b / 160 Gb/s, the SPINet packet time of check_spinet.c */
    ck_assert_int_eq(phy_serialization_ps(4096, 16, 10e9), 25600);
    /* 1 b at 3 Gb/s: 1e12 / 3e9 = 333.33 ps -> rounded up to 334 */
    ck_assert_int_eq(phy_serialization_ps(1, 1, 3e9), 334);
    /* 3 b at 3 Gb/s: exactly 1000 ps, not rounded up */
    ck_assert_int_eq(phy_serialization_ps(3, 1, 3e9), 1000);
    /* non-integer rate, long double path: 3 b at 1.5 b/s = 2 s = 2e12 ps */
    ck_assert_int_eq(phy_serialization_ps(3, 1, 1.5), 2000000000000LL);
    /* 0 b: 0 ps */
    ck_assert_int_eq(phy_serialization_ps(0, 8, 10e9), 0);
    /* 2^40 b on 1 x 1 Tb/s: 2^40 x 1 ps = 1099511627776 ps (exact) */
    ck_assert_int_eq(phy_serialization_ps(1099511627776ULL, 1, 1e12), 1099511627776LL);
}
END_TEST

START_TEST(test_serialization_zero_wavelengths_aborts)
{
    phy_serialization_ps(1000, 0, 10e9); /* W = 0 is a caller bug: TN_ASSERT */
}
END_TEST

/* ---------------------------------------------------------------- BER and Q */

START_TEST(test_ber_from_q)
{
    /* 0.5 erfc(7 / sqrt 2) = 0.5 erfc(4.9497) = 1.2798e-12 (tables of the
     * normal tail: Q(7) = 1.28e-12) */
    assert_rel(phy_ber_from_q(7.0), 1.28e-12, 0.01);
    /* Q = 1: 0.5 erfc(0.70711) = 0.158655 (normal tail beyond 1 sigma) */
    assert_rel(phy_ber_from_q(1.0), 0.158655, 1e-5);
    /* Q = 0: 0.5 erfc(0) = 0.5 */
    ck_assert_double_eq_tol(phy_ber_from_q(0.0), 0.5, 1e-15);
    /* Q = 40: the tail is ~e^-800 < DBL_MIN: underflows to exactly 0, no
     * GSL error handler abort */
    ck_assert(phy_ber_from_q(40.0) == 0.0);
    ck_assert(phy_ber_from_q(1e6) == 0.0);
    ck_assert(isnan(phy_ber_from_q(NAN)));
}
END_TEST

START_TEST(test_q_from_ber)
{
    /* upper-tail inverse of 1e-12: 7.0345 */
    ck_assert_double_eq_tol(phy_q_from_ber(1e-12), 7.034, 1e-3);
    /* 1e-9: 5.9978 */
    ck_assert_double_eq_tol(phy_q_from_ber(1e-9), 5.998, 1e-3);
    /* 0.5: Q = 0 */
    ck_assert_double_eq_tol(phy_q_from_ber(0.5), 0.0, 1e-12);
    /* limits */
    ck_assert(phy_q_from_ber(0.0) == INFINITY);
    ck_assert(phy_q_from_ber(1.0) == -INFINITY);
    /* round trips: BER -> Q -> BER and Q -> BER -> Q */
    const double bers[] = {0.3, 1e-3, 1e-9, 1e-12, 1e-15, 1e-30, 1e-100};
    for (size_t i = 0; i < sizeof bers / sizeof bers[0]; i++)
        assert_rel(phy_ber_from_q(phy_q_from_ber(bers[i])), bers[i], 1e-9);
    const double qs[] = {0.5, 3.0, 7.0, 7.0344838, 12.0, 20.0};
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
        assert_rel(phy_q_from_ber(phy_ber_from_q(qs[i])), qs[i], 1e-9);
}
END_TEST

START_TEST(test_packet_error)
{
    /* 1 - (1 - 1e-12)^1e6 = 1e6 x 1e-12 - (1e-6)^2 / 2 + ... = 9.999995e-7 */
    assert_rel(phy_packet_error(1e-12, 1000000), 1e-6, 1e-6);
    assert_rel(phy_packet_error(1e-12, 1000000), 9.999995e-7, 1e-9);
    /* BER 0: exactly 0, whatever the size */
    ck_assert(phy_packet_error(0.0, 1000000) == 0.0);
    ck_assert(phy_packet_error(0.0, UINT64_MAX) == 0.0);
    /* 0 bits: exactly 0 */
    ck_assert(phy_packet_error(0.25, 0) == 0.0);
    /* 1e-20 x 1000 b = 1e-17 (a naive 1 - pow(1 - 1e-20, 1000) gives 0,
     * since 1 - 1e-20 rounds to 1) */
    assert_rel(phy_packet_error(1e-20, 1000), 1e-17, 1e-12);
    /* BER 0.5, 2 bits: 1 - 0.25 = 0.75 */
    assert_rel(phy_packet_error(0.5, 2), 0.75, 1e-15);
    /* BER 1: every packet is lost */
    ck_assert(phy_packet_error(1.0, 10) == 1.0);
}
END_TEST

/* ---------------------------------------------------------------- penalties */

START_TEST(test_crosstalk_penalty)
{
    /* Q = 7, X = 0.01, ER = 10: 1 + 7 x 0.01 x 11 / 18 = 1.0427778,
     * 10 log10(1.0427778) = 0.181918 dB */
    ck_assert_double_eq_tol(phy_crosstalk_penalty_db(7.0, 0.01, 10.0), 0.181918, 1e-6);
    /* Q = 5, X = 0.02, ER = 3: (3 + 1) / (2 x 2) = 1, 1 + 5 x 0.02 = 1.1,
     * 10 log10(1.1) = 0.413927 dB */
    ck_assert_double_eq_tol(phy_crosstalk_penalty_db(5.0, 0.02, 3.0), 0.413927, 1e-6);
    /* no crosstalk: 0 dB */
    ck_assert_double_eq_tol(phy_crosstalk_penalty_db(7.0, 0.0, 10.0), 0.0, 1e-15);
}
END_TEST

START_TEST(test_ase_penalty)
{
    /* OSNR 30 dB = 1000 at 10 Gb/s: Bo/Be = 12.5/5 = 2.5, sqrt(2500) = 50 */
    ck_assert_double_eq_tol(phy_q_ase(30.0, 10e9), 50.0, 1e-9);
    /* OSNR 20 dB = 100: sqrt(250) = 15.811388 */
    ck_assert_double_eq_tol(phy_q_ase(20.0, 10e9), 15.811388, 1e-6);
    /* 40 Gb/s: Bo/Be = 12.5/20 = 0.625, sqrt(1000 x 0.625) = sqrt(625) = 25 */
    ck_assert_double_eq_tol(phy_q_ase(30.0, 40e9), 25.0, 1e-9);
    ck_assert(phy_q_ase(INFINITY, 10e9) == INFINITY);
    /* Q = 7 and Q_ase = 14: -10 log10(1 - 0.25) = 1.249387 dB */
    ck_assert_double_eq_tol(phy_ase_penalty_db(7.0, 14.0), 1.249387, 1e-6);
    /* no ASE: 0 dB (and not -0) */
    ck_assert(phy_ase_penalty_db(7.0, INFINITY) == 0.0 &&
              !signbit(phy_ase_penalty_db(7.0, INFINITY)));
    /* BER floor above the target: no power is enough */
    ck_assert(phy_ase_penalty_db(7.0, 7.0) == INFINITY);
    ck_assert(phy_ase_penalty_db(7.0, 5.0) == INFINITY);

    /* Growth with S in the budget (defaults): Q_ase(S)^2 = 2500 / S.
     * S = 1: Q_ase = 50, pen = -10 log10(1 - 49.48396/2500) = 0.086825 dB
     * S = 4: Q_ase = 25, pen = -10 log10(1 - 49.48396/625)  = 0.358226 dB
     * S = 16: Q_ase = 12.5, pen = -10 log10(1 - 49.48396/156.25) = 1.653869 dB
     * and OSNR_path(S = 10) = 30 - 10 = 20 dB. */
    phy_optical p;
    phy_optical_defaults(&p);
    phy_budget b1 = budget(&p, 1), b4 = budget(&p, 4), b10 = budget(&p, 10),
               b16 = budget(&p, 16);
    ck_assert_double_eq_tol(b1.q_ase, 50.0, 1e-9);
    ck_assert_double_eq_tol(b4.q_ase, 25.0, 1e-9);
    ck_assert_double_eq_tol(b16.q_ase, 12.5, 1e-9);
    ck_assert_double_eq_tol(b10.osnr_db, 20.0, 1e-12);
    ck_assert_double_eq_tol(b1.ase_penalty_db, 0.086825, 1e-6);
    ck_assert_double_eq_tol(b4.ase_penalty_db, 0.358226, 1e-6);
    ck_assert_double_eq_tol(b16.ase_penalty_db, 1.653869, 1e-6);
    /* strictly increasing in S, and more than linearly (1/(1 - c S) is convex) */
    double prev = budget(&p, 0).ase_penalty_db, prev_step = 0;
    ck_assert(prev == 0.0); /* S = 0: no SOA, no ASE */
    for (unsigned s = 1; s <= 40; s++) {
        double pen = budget(&p, s).ase_penalty_db;
        ck_assert_msg(pen > prev, "S=%u: %g <= %g", s, pen, prev);
        ck_assert_msg(pen - prev >= prev_step - 1e-12, "S=%u: step shrinks", s);
        prev_step = pen - prev;
        prev = pen;
    }
    /* Q_ase(S)^2 = 2500/S <= Q_ref^2 = 49.48 once S >= 51: BER floor */
    ck_assert(isfinite(budget(&p, 50).ase_penalty_db));
    ck_assert(budget(&p, 51).ase_penalty_db == INFINITY);
    ck_assert(budget(&p, 51).ok == 0);
}
END_TEST

/* ---------------------------------------------------------------- budget */

START_TEST(test_budget_s6_by_hand)
{
    /* The default 64-port SPINet, S = log2(64) = 6, every term:
     *  loss      = 4 + 2 x 1 + 6 x 1.448 = 6 + 8.688 = 14.688 dB
     *  received  = 0 - 14.688 = -14.688 dBm
     *  X_path    = 6 x 0.00316228 = 0.0189737
     *  crosstalk = 10 log10(1 + 6 x 0.0135942) = 10 log10(1.0815651)
     *            = 0.340526 dB
     *  OSNR_path = 30 - 10 log10 6 = 30 - 7.781513 = 22.218487 dB
     *  Q_ase     = sqrt(2500 / 6) = sqrt(416.6667) = 20.412415
     *  ASE       = -10 log10(1 - 49.48396 / 416.6667) = -10 log10(0.8812385)
     *            = 0.549065 dB
     *  required  = -20 + 0.340526 + 0.549065 = -19.110408 dBm
     *  margin    = -14.688 + 19.110408 = 4.422408 dB -> ok
     *  Q: x = 2 Q_ref 10^((-14.688 - 0.340526 + 20) / 10)
     *       = 14.068968 x 10^0.4971474 = 14.068968 x 3.141575 = 44.19871
     *     Q = x / (1 + sqrt(1 + (44.19871 / 20.412415)^2))
     *       = 44.19871 / (1 + sqrt(1 + 4.688463)) = 44.19871 / 3.385050
     *       = 13.05703  (the thermal-only form would give
     *         Q_ref 10^(4.422408/10) = 19.47: the ASE caps Q below Q_ase)
     *  BER = 0.5 erfc(13.0570 / sqrt 2) = 2.9e-39 */
    phy_optical p;
    phy_optical_defaults(&p);
    phy_budget b = budget(&p, 6);
    ck_assert_uint_eq(b.stages, 6);
    ck_assert_double_eq_tol(b.loss_db, 14.688, 1e-9);
    ck_assert_double_eq_tol(b.received_dbm, -14.688, 1e-9);
    ck_assert_double_eq_tol(b.q_ref, Q_REF, 1e-6);
    ck_assert_double_eq_tol(b.crosstalk_penalty_db, 0.340526, 1e-6);
    ck_assert_double_eq_tol(b.osnr_db, 22.218487, 1e-6);
    ck_assert_double_eq_tol(b.q_ase, 20.412415, 1e-6);
    ck_assert_double_eq_tol(b.ase_penalty_db, 0.549065, 1e-6);
    ck_assert_double_eq_tol(b.required_dbm, -19.110408, 1e-6);
    ck_assert_double_eq_tol(b.margin_db, 4.422408, 1e-6);
    ck_assert_int_eq(b.ok, 1);
    ck_assert_double_eq_tol(b.q, 13.0570, 1e-3);
    assert_rel(b.ber, 2.9e-39, 0.01);
}
END_TEST

/* The sensitivity follows the rate: 5 log10(r / 10 Gb/s) dB, so at 20 Gb/s
 * per wavelength -20 + 5 log10 2 = -18.494850 dBm, at 5 Gb/s -21.505150;
 * the margin falls by exactly that against a rate-independent receiver
 * (sensitivity-rate 0) at the same rate, whose penalties are the same. */
START_TEST(test_budget_sensitivity_rate)
{
    phy_optical p;
    phy_optical_defaults(&p);
    static const struct {
        double rate, sens;
    } cases[] = {{10e9, -20.0}, {20e9, -18.494850}, {5e9, -21.505150}, {40e9, -16.989700}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p.rate_per_wavelength_bps = cases[i].rate;
        p.sensitivity_rate_bps = 10e9;
        phy_budget b = budget(&p, 6);
        ck_assert_double_eq_tol(b.sensitivity_dbm, cases[i].sens, 1e-6);
        ck_assert_double_eq_tol(b.required_dbm, b.sensitivity_dbm + b.crosstalk_penalty_db + b.ase_penalty_db,
                                1e-12);
        p.sensitivity_rate_bps = 0;
        phy_budget flat = budget(&p, 6);
        ck_assert_double_eq_tol(flat.sensitivity_dbm, -20.0, 1e-12);
        ck_assert_double_eq_tol((flat.margin_db - b.margin_db), (cases[i].sens + 20.0), 1e-6);
        /* a worse sensitivity never gives a better Q */
        ck_assert(b.q <= flat.q || cases[i].rate <= 10e9);
    }
    /* B = 160 Gb/s over 8 wavelengths (20 Gb/s): S = 6 keeps a margin,
     * S = 8 (-17.58 dBm received) no longer does (it did at a flat -20 dBm);
     * over 4 (40 Gb/s) even S = 6 (-14.69 dBm) fails */
    p.sensitivity_rate_bps = 10e9;
    p.rate_per_wavelength_bps = 20e9;
    ck_assert_int_eq(budget(&p, 6).ok, 1);
    ck_assert_int_eq(budget(&p, 8).ok, 0);
    p.sensitivity_rate_bps = 0;
    ck_assert_int_eq(budget(&p, 8).ok, 1);
    p.sensitivity_rate_bps = 10e9;
    p.rate_per_wavelength_bps = 40e9;
    ck_assert_int_eq(budget(&p, 6).ok, 0);
}
END_TEST

START_TEST(test_budget_64port_passes_and_fails)
{
    /* S = 7: received -6 - 10.136 = -16.136 dBm;
     *   crosstalk 10 log10(1 + 7 x 0.0135942) = 10 log10(1.0951594) = 0.394772
     *   ASE -10 log10(1 - 49.48396 x 7 / 2500) = -10 log10(0.8614449) = 0.647725
     *   required -18.957503, margin 2.821503 dB
     * S = 8: received -6 - 11.584 = -17.584 dBm;
     *   crosstalk 10 log10(1.1087536) = 0.448349
     *   ASE -10 log10(1 - 0.1583487) = 0.748678
     *   required -18.802973, margin 1.218973 dB
     * S = 9 (3 extra stages): received -19.032 dBm;
     *   crosstalk 10 log10(1.1223478) = 0.501273, ASE -10 log10(0.8218657) = 0.852034
     *   required -18.646693, margin -0.385307 dB: fails
     * S = 16: received -6 - 23.168 = -29.168 dBm;
     *   crosstalk 10 log10(1.2175072) = 0.854713, ASE 1.653869 (above)
     *   required -17.491418, margin -11.676582 dB: fails */
    phy_optical p;
    phy_optical_defaults(&p);
    const struct {
        unsigned s;
        double margin_db;
        int ok;
    } cases[] = {
        {6, 4.422408, 1}, {7, 2.821503, 1}, {8, 1.218973, 1}, {9, -0.385307, 0}, {16, -11.676582, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        phy_budget b = budget(&p, cases[i].s);
        ck_assert_msg(fabs(b.margin_db - cases[i].margin_db) < 1e-6, "S=%u: margin %.7f",
                      cases[i].s, b.margin_db);
        ck_assert_msg(b.ok == cases[i].ok, "S=%u: ok %d", cases[i].s, b.ok);
        /* q >= Q_ref exactly when the margin is >= 0 (optical.h) */
        ck_assert_msg((b.q >= b.q_ref) == cases[i].ok, "S=%u: q %g", cases[i].s, b.q);
        /* and so BER <= 1e-12 exactly when ok */
        ck_assert_msg((b.ber <= 1e-12) == cases[i].ok, "S=%u: ber %g", cases[i].s, b.ber);
    }
    /* S = 16: x = 14.068968 x 10^((-29.168 - 0.854713 + 20) / 10)
     *   = 14.068968 x 10^-1.0022713 = 14.068968 x 0.0994784 = 1.399558;
     *   (1.399558 / 12.5)^2 = 0.0125361, sqrt(1.0125361) = 1.0062485,
     *   Q = 1.399558 / 2.0062485 = 0.697600
     *   -> BER = 0.5 erfc(0.697600 / sqrt 2) = 0.5 erfc(0.493278) = 0.2427 */
    phy_budget b16 = budget(&p, 16);
    ck_assert_double_eq_tol(b16.q, 0.6976, 1e-3);
    ck_assert_double_eq_tol(b16.ber, 0.2427, 1e-3);

    /* Without SOA gain (soa_gain_db = 0), S = 6: per stage 7 + 0.448 + 0.5
     * = 7.948 dB, received -6 - 47.688 = -53.688 dBm; penalties unchanged
     * (required -19.110408): margin -34.577592 dB */
    p.soa_gain_db = 0.0;
    phy_budget b = budget(&p, 6);
    ck_assert_double_eq_tol(b.margin_db, -34.577592, 1e-6);
    ck_assert_int_eq(b.ok, 0);
    ck_assert(b.margin_db < 0);
}
END_TEST

START_TEST(test_budget_q_invariants)
{
    phy_optical p;
    phy_optical_defaults(&p);
    /* Launch exactly the required power: margin 0 and Q = Q_ref (the ASE
     * penalty is defined as the power for which the noise model gives Q_ref). */
    phy_budget b = budget(&p, 7);
    p.launch_power_dbm = b.required_dbm + b.loss_db;
    phy_budget z = budget(&p, 7);
    ck_assert_double_eq_tol(z.margin_db, 0.0, 1e-12);
    assert_rel(z.q, Q_REF, 1e-9);
    assert_rel(z.ber, 1e-12, 1e-6);

    /* No ASE (OSNR +inf): thermal-limited Q = Q_ref 10^(margin/10).
     * S = 6 with defaults: margin = -14.688 + 20 - 0.340526 = 4.971474 dB,
     * Q = 7.0344838 x 10^0.4971474 = 7.0344838 x 3.141575 = 22.09936 */
    phy_optical_defaults(&p);
    p.osnr_per_soa_db = INFINITY;
    b = budget(&p, 6);
    ck_assert(b.ase_penalty_db == 0.0 && b.q_ase == INFINITY);
    ck_assert_double_eq_tol(b.margin_db, 4.971474, 1e-6);
    assert_rel(b.q, Q_REF * pow(10.0, b.margin_db / 10.0), 1e-12);
    ck_assert_double_eq_tol(b.q, 22.0994, 1e-3);

    /* Received power drops by 1.448 dB per stage, for any S. */
    phy_optical_defaults(&p);
    for (unsigned s = 0; s < 64; s++)
        ck_assert_double_eq_tol(budget(&p, s).received_dbm - budget(&p, s + 1).received_dbm,
                                1.448, 1e-9);
    /* S = 0 (back to back): -6 dBm, no crosstalk, no ASE, margin 14 dB */
    b = budget(&p, 0);
    ck_assert_double_eq_tol(b.margin_db, 14.0, 1e-12);
    ck_assert(b.crosstalk_penalty_db == 0.0 && b.osnr_db == INFINITY);
}
END_TEST

START_TEST(test_budget_format)
{
    phy_optical p;
    phy_optical_defaults(&p);
    phy_budget b = budget(&p, 16);
    char buf[512];
    phy_budget_format(&b, &p, buf, sizeof buf);
    /* the numbers of test_budget_64port_passes_and_fails, rounded */
    ck_assert_msg(strstr(buf, "S=16: received -29.17 dBm < required -17.49 dBm") != NULL, "%s",
                  buf);
    ck_assert_msg(strstr(buf, "crosstalk 0.85 dB + ASE 1.65 dB") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "margin -11.68 dB") != NULL, "%s", buf);
    /* ASE-limited: OSNR 10 dB per SOA over 16 stages is 10 - 10 log10 16 =
     * -2.04 dB, whose Q_ase is below the target's Q_ref (7.03 at 1e-12): the
     * penalty is infinite, and the text says why instead of "required inf dBm" */
    p.osnr_per_soa_db = 10;
    b = budget(&p, 16);
    ck_assert(isinf(b.ase_penalty_db));
    phy_budget_format(&b, &p, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "S=16: the ASE noise of 16 SOA stages (OSNR -2.04 dB) alone limits Q to") != NULL &&
                      strstr(buf, "below the 7.03 that the BER target 1e-12 needs") != NULL &&
                      strstr(buf, "inf") == NULL, "%s", buf);
}
END_TEST

START_TEST(test_invalid_params)
{
    phy_optical p;
    phy_budget b, untouched;
    char err[256];
    memset(&untouched, 0x5a, sizeof untouched);
    /* wavelengths 0 */
    phy_optical_defaults(&p);
    p.wavelengths = 0;
    b = untouched;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "wavelengths") != NULL, "%s", err);
    ck_assert(memcmp(&b, &untouched, sizeof b) == 0);
    /* ER 0 dB (linear 1: the penalty divides by ER - 1 = 0) and ER < 0 */
    phy_optical_defaults(&p);
    p.extinction_ratio_db = 0.0;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "extinction_ratio_db") != NULL, "%s", err);
    p.extinction_ratio_db = -3.0;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "extinction_ratio_db") != NULL, "%s", err);
    /* rate 0 */
    phy_optical_defaults(&p);
    p.rate_per_wavelength_bps = 0.0;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "rate_per_wavelength_bps") != NULL, "%s", err);
    /* crosstalk 0 dB: as strong as the signal */
    phy_optical_defaults(&p);
    p.crosstalk_db = 0.0;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "crosstalk_db") != NULL, "%s", err);
    /* negative loss, NaN launch, BER target 0 */
    phy_optical_defaults(&p);
    p.coupler_loss_db = -1.0;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "coupler_loss_db") != NULL, "%s", err);
    phy_optical_defaults(&p);
    p.launch_power_dbm = NAN;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "launch_power_dbm") != NULL, "%s", err);
    phy_optical_defaults(&p);
    p.ber_target = 0.0;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "ber_target") != NULL, "%s", err);
    phy_optical_defaults(&p);
    p.osnr_per_soa_db = NAN;
    ck_assert_int_eq(phy_path_budget(&p, 6, &b, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "osnr_per_soa_db") != NULL, "%s", err);
    /* the defaults and limit values are accepted */
    phy_optical_defaults(&p);
    ck_assert_int_eq(phy_optical_check(&p, err, sizeof err), 0);
    p.crosstalk_db = -INFINITY;
    p.osnr_per_soa_db = INFINITY;
    ck_assert_int_eq(phy_optical_check(&p, err, sizeof err), 0);

    phy_energy e;
    phy_energy_defaults(&e);
    ck_assert_int_eq(phy_energy_check(&e, err, sizeof err), 0);
    e.wall_plug_efficiency = 0.0;
    ck_assert_int_eq(phy_energy_check(&e, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "wall_plug_efficiency") != NULL, "%s", err);
    e.wall_plug_efficiency = 1.5;
    ck_assert_int_eq(phy_energy_check(&e, err, sizeof err), -1);
    phy_energy_defaults(&e);
    e.soa_power_w = -0.01;
    ck_assert_int_eq(phy_energy_check(&e, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "soa_power_w") != NULL, "%s", err);
}
END_TEST

/* ---------------------------------------------------------------- energy */

START_TEST(test_energy_optical)
{
    /* Defaults, S = 6:
     *  laser  = 8 x 1 mW / 0.1 / 80 Gb/s = 80 mW / 80e9 = 1.0 pJ/b
     *  SOA    = 6 x 30 mW / 80e9 = 180 mW / 80e9 = 2.25 pJ/b
     *  SerDes = 2 x (1.496 + 0.189 x 10) = 2 x 3.386 = 6.772 pJ/b
     *  total  = 10.022 pJ/b
     * S = 7: + 30 mW / 80e9 = + 0.375 -> 10.397 pJ/b; S = 8: 10.772 pJ/b */
    phy_optical p;
    phy_energy e;
    phy_optical_defaults(&p);
    phy_energy_defaults(&e);
    phy_energy_parts parts;
    double total = phy_energy_optical_j_per_bit(&p, &e, 6, &parts);
    assert_rel(parts.laser_j_per_bit, 1.0e-12, 1e-12);
    assert_rel(parts.soa_j_per_bit, 2.25e-12, 1e-12);
    assert_rel(parts.serdes_j_per_bit, 6.772e-12, 1e-12);
    ck_assert(parts.core_j_per_bit == 0.0);
    assert_rel(parts.total_j_per_bit, 10.022e-12, 1e-12);
    ck_assert(total == parts.total_j_per_bit);
    assert_rel(phy_energy_optical_j_per_bit(&p, &e, 7, NULL), 10.397e-12, 1e-12);
    assert_rel(phy_energy_optical_j_per_bit(&p, &e, 8, NULL), 10.772e-12, 1e-12);
    /* Edge SerDes left out: S = 6 -> 1.0 + 2.25 = 3.25 pJ/b */
    e.serdes_per_optical_path = 0;
    assert_rel(phy_energy_optical_j_per_bit(&p, &e, 6, NULL), 3.25e-12, 1e-12);
    /* 16 x 10 Gb/s (160 Gb/s), 3 dBm launch = 1.995262 mW, S = 6, no SerDes:
     * laser = 1.995262 mW / 0.1 / 10 Gb/s = 1.995262 pJ/b,
     * SOA = 180 mW / 160e9 = 1.125 pJ/b, total 3.120262 pJ/b */
    p.wavelengths = 16;
    p.launch_power_dbm = 3.0;
    assert_rel(phy_energy_optical_j_per_bit(&p, &e, 6, NULL), 3.120262e-12, 1e-6);
}
END_TEST

START_TEST(test_energy_electrical)
{
    /* 40 Gb/s lanes: SerDes 1.496 + 0.189 x 40 = 1.496 + 7.56 = 9.056 pJ/b,
     * 4 of them = 36.224 pJ/b, + core 8 = 44.224 pJ/b */
    phy_energy e;
    phy_energy_defaults(&e);
    phy_energy_parts parts;
    assert_rel(phy_serdes_j_per_bit(&e, 40e9), 9.056e-12, 1e-12);
    double total = phy_energy_electrical_j_per_bit(&e, 40e9, &parts);
    assert_rel(parts.serdes_j_per_bit, 36.224e-12, 1e-12);
    assert_rel(parts.core_j_per_bit, 8e-12, 1e-12);
    ck_assert(parts.laser_j_per_bit == 0.0 && parts.soa_j_per_bit == 0.0);
    assert_rel(total, 44.224e-12, 1e-12);
    /* 10 Gb/s lanes: 4 x (1.496 + 1.89) + 8 = 4 x 3.386 + 8 = 21.544 pJ/b */
    assert_rel(phy_energy_electrical_j_per_bit(&e, 10e9, NULL), 21.544e-12, 1e-12);
}
END_TEST

/* ---- the physical layer in a run: configuration and resolution ---- */

/* The parameter table's defaults (what `tasknet params` shows: the
 * network.phy.* rows, in a configuration's phy_params) are the physical
 * layer's own defaults: one source of truth, checked. The waveguide runs
 * 5 mm per stage in the rows (metres) and 0.5 cm in phy_optical. */
START_TEST(test_config_defaults_match)
{
    cfg c;
    cfg_defaults(&c);
    phy_optical o;
    phy_energy e;
    phy_optical_defaults(&o);
    phy_energy_defaults(&e);
    ck_assert(memcmp(&c.phy.optical, &o, sizeof o) == 0);
    ck_assert(memcmp(&c.phy.energy, &e, sizeof e) == 0);
    ck_assert_double_eq_tol(c.phy.waveguide_m_per_stage, o.waveguide_cm_per_stage / 100.0, 1e-18);
    /* the same from the physical layer's own constructor */
    phy_params pp;
    phy_params_defaults(&pp);
    ck_assert(memcmp(&pp.optical, &o, sizeof o) == 0);
    ck_assert(memcmp(&pp.energy, &e, sizeof e) == 0);
    /* and the path a fabric gets from them: 0.5 cm per stage, B / W per wavelength */
    phy_optical path;
    phy_params_optical(&c.phy, 80e9, &path);
    ck_assert_double_eq_tol(path.waveguide_cm_per_stage, 0.5, 1e-15);
    ck_assert(path.rate_per_wavelength_bps == 10e9); /* 80 Gb/s over the default 8 */
    cfg_free(&c);
}
END_TEST

static void fig11_point(cfg *pc, size_t point, const char *set_path, const char *set_value)
{
    const char *top = getenv("top_srcdir");
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/paper/fig11.xml", top && *top ? top : "..");
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_msg(cfg_load(&c, path, &e) == 0, "%s", e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
    char err[512];
    if (set_path) { /* as --set does: the value replaces the axis */
        ck_assert_int_eq(cfg_set(&c, set_path, set_value, err, sizeof err), 0);
        cfg_drop_axis(&c, set_path);
    }
    ck_assert_int_eq(cfg_point(&c, point, pc, err, sizeof err), 0);
    cfg_free(&c);
}

/* fig11: SPINet at 160 Gb/s over 16 wavelengths of 10 Gb/s, S = 6 + extra.
 * The 10 Gb/s per wavelength budgets are those of test_budget_s6_by_hand
 * and test_budget_64port_passes_and_fails (margins 4.42, 2.82, 1.22 dB);
 * energy = laser 1 mW / 0.1 / 10 Gb/s = 1 pJ/b, SOA S x 30 mW / 160 Gb/s
 * = 0.1875 S pJ/b, SerDes 2 x (1.496 + 0.189 x 10) = 6.772 pJ/b:
 * S = 6: 1 + 1.125 + 6.772 = 8.897 pJ/b; S = 8: 9.272 pJ/b.
 * The switch at 40 Gb/s in 10 Gb/s lanes: 4 x (1.496 + 0.189 x 10) + 8
 * = 21.544 pJ/b, BER 0; as one 40 Gb/s lane (serdes-lane-rate 0):
 * 4 x (1.496 + 0.189 x 40) + 8 = 44.224 pJ/b.
 * What resolve works out is the fabric's summary (run_info: BER, energy per
 * bit) and, for SPINet, the energies of a dropped try in its own params
 * (net_spinet.h); test_fig11_drop_energy checks them by their effect on a
 * run. */
START_TEST(test_resolve_fig11)
{
    run_info info;
    char err[1024];
    cfg pc;
    fig11_point(&pc, 0, NULL, NULL);
    ck_assert_msg(run_resolve(&pc, NULL, &info, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(info.has_phy, 1);
    assert_rel(info.phy.energy_per_bit_j, 21.544e-12, 1e-12);
    ck_assert(info.phy.bit_error_rate == 0);
    cfg_free(&pc);
    fig11_point(&pc, 0, "network.phy.serdes-lane-rate", "0b/s");
    ck_assert_msg(run_resolve(&pc, NULL, &info, err, sizeof err) == 0, "%s", err);
    assert_rel(info.phy.energy_per_bit_j, 44.224e-12, 1e-12);
    cfg_free(&pc);
    /* a lane faster than the port is the port: at 5 Gb/s, 4 x (1.496 + 0.945) + 8 */
    fig11_point(&pc, 0, "network.bandwidth", "5Gb/s");
    ck_assert_msg(run_resolve(&pc, NULL, &info, err, sizeof err) == 0, "%s", err);
    assert_rel(info.phy.energy_per_bit_j, 17.764e-12, 1e-12);
    cfg_free(&pc);

    fig11_point(&pc, 1, NULL, NULL);
    ck_assert_msg(run_resolve(&pc, NULL, &info, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(info.has_phy, 1);
    /* 160 Gb/s over 16 wavelengths: the path SPINet's budget is made for */
    phy_optical o;
    phy_params_optical(&pc.phy, pc.net.bandwidth_bps, &o);
    ck_assert(o.rate_per_wavelength_bps == 10e9);
    assert_rel(info.phy.energy_per_bit_j, 8.897e-12, 1e-12);
    /* a dropped bit: laser 1 + one SerDes 3.386 = 4.386 pJ/b, plus 30 mW /
     * 160 Gb/s = 0.1875 pJ/b per stage crossed (SPINet's own, resolved) */
    ck_assert_str_eq(pc.net_type, "spinet");
    const spn_params *sp = cfg_net_params(&pc);
    ck_assert_int_eq(sp->phy_resolved, 1);
    ck_assert_uint_eq(sp->wavelengths, 16);
    assert_rel(sp->energy_per_bit_j, 8.897e-12, 1e-12);
    assert_rel(sp->energy_edge_per_bit_j, 4.386e-12, 1e-12);
    assert_rel(sp->energy_stage_per_bit_j, 0.1875e-12, 1e-12);
    ck_assert(sp->bit_error_rate == info.phy.bit_error_rate);
    ck_assert(info.phy.bit_error_rate > 0 && info.phy.bit_error_rate < 1e-30); /* Q = 13.06 */
    cfg_free(&pc);

    fig11_point(&pc, 3, NULL, NULL);
    ck_assert_msg(run_resolve(&pc, NULL, &info, err, sizeof err) == 0, "%s", err);
    assert_rel(info.phy.energy_per_bit_j, 9.272e-12, 1e-12);
    ck_assert(info.phy.bit_error_rate > 1e-18 && info.phy.bit_error_rate < 1e-12); /* Q = 8.50: 9.1e-18 */
    cfg_free(&pc);

    /* S = 9 misses the sensitivity by 0.39 dB: refused, with the numbers */
    fig11_point(&pc, 3, "network.extra-stages", "3");
    ck_assert_int_eq(run_resolve(&pc, NULL, &info, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "misses the receiver sensitivity") && strstr(err, "S=9") &&
                      strstr(err, "margin -0.39 dB"), "%s", err);
    cfg_free(&pc);
}
END_TEST

/* A configuration point's fabric alone, on the shared harness: its own
 * params as the point has them (each row written out and read back as
 * "path=value"), its physical layer resolved from the point's phy. */
static th_net *point_fabric(const cfg *pc, size_t cap)
{
    const net_ops *ops = cfg_net(pc);
    const void *own = cfg_net_params(pc);
    ck_assert_ptr_nonnull(ops);
    char **text = calloc(ops->nparams + 1, sizeof *text);
    const char **sets = calloc(ops->nparams + 1, sizeof *sets);
    ck_assert(text && sets);
    size_t k = 0;
    for (size_t i = 0; i < ops->nparams; i++) {
        if (!param_is_set(own, &ops->params[i]))
            continue;
        char *v = param_format(own, &ops->params[i], NULL);
        size_t len = strlen(ops->params[i].path) + strlen(v) + 2;
        text[k] = malloc(len);
        ck_assert_ptr_nonnull(text[k]);
        snprintf(text[k], len, "%s=%s", ops->params[i].path, v);
        sets[k] = text[k];
        k++;
        free(v);
    }
    sets[k] = NULL;
    net_params core = pc->net;
    core.nodes = pc->nodes;
    th_net *h = th_net_new(ops->name, &core, sets, &pc->phy, 1, cap);
    for (size_t i = 0; i < k; i++)
        free(text[i]);
    free(text);
    free(sets);
    return h;
}

/* fig11 point 1 (SPINet, N = 64, S = 6, 160 Gb/s over 16 x 10 Gb/s, fibre
 * 4 m = 20 ns, t_sw = t_r = 1 ns, fast NACK, 1 kB packets), its energies
 * resolved from the point's phy (test_resolve_fig11): delivered bits
 * 8.897 pJ/b; a dropped try's bits 4.386 pJ/b plus 0.1875 pJ/b per SOA
 * crossed before the drop. One 1000 B message is one packet of 8000 b,
 * P = 500 slots of 100 ps = 50 ns on each wavelength; F = 2 x 20 + 6 x 1
 * = 46 ns; alone: delivered at 96 ns. The header meets stage s (0..5) at
 * t0 + 20 + (s+1) ns and locks its output until 50 ns later; a drop at
 * stage s sends the NACK back after 2 (20 + (s+1)) + 1 ns, and the source
 * has emitted the whole lane slots before it: floor(t x 10 Gb/s) x 16 b.
 * A (handed over first) always wins. */
START_TEST(test_fig11_drop_energy)
{
    cfg pc;
    char err[1024];
    fig11_point(&pc, 1, NULL, NULL);
    ck_assert_msg(run_resolve(&pc, NULL, NULL, err, sizeof err) == 0, "%s", err);

    /* Alone: 8000 b at 8.897 pJ/b. */
    th_net *h = point_fabric(&pc, 4);
    net_msg *a = th_at_low(h, 0, 0, 63, 1000);
    th_net_go(h);
    ck_delivered_at(a, 96000);
    ck_assert(th_net_metric_of(h, "packets_dropped") == 0);
    assert_rel(th_net_metric_of(h, "energy_per_bit_j"), 8.897e-12, 1e-12);
    th_net_free(h);

    /* Stage 0: sources 0 and 1 share element 0 of the first stage; both
     * send to node 63. A locks the output there over [21, 71) ns. B meets it
     * at 21 ns: dropped before any SOA, NACK back at 2 x 21 + 1 = 43 ns,
     * 430 slots x 16 = 6880 b emitted; again from 43 ns (meets it at 64 ns):
     * NACK at 86 ns, 6880 b; from 86 ns it passes (107 ns >= 71 ns) and
     * arrives at 86 + 96 = 182 ns. Energy: 16000 b delivered x 8.897 +
     * 13760 b dropped x 4.386 = 142352 + 60351.36 = 202703.36 pJ over
     * 16000 b = 12.66896 pJ/b. */
    h = point_fabric(&pc, 4);
    a = th_at_low(h, 0, 0, 63, 1000);
    net_msg *b = th_at_low(h, 0, 1, 63, 1000);
    th_net_go(h);
    ck_delivered_at(a, 96000);
    ck_delivered_at(b, 182000);
    ck_assert(th_net_metric_of(h, "packets_dropped") == 2);
    assert_rel(th_net_metric_of(h, "energy_per_bit_j"), 202703.36e-12 / 16000, 1e-12);
    th_net_free(h);

    /* Last stage: to node 0, source 0 stays on element 0 through all six
     * stages, source 32 (element 16) goes on output 1 only from stage 4
     * (shift 16) and meets source 0's path at stage 5 alone. A locks stage 5
     * over [26, 76) ns; B reaches it at 26 ns: dropped after 5 SOAs, NACK
     * at 2 x 26 + 1 = 53 ns, by when the whole 8000 b packet has left (530
     * slots x 16 > 8000); from 53 ns it passes (stage 5 at 79 ns) and
     * arrives at 53 + 96 = 149 ns. Energy: 16000 x 8.897 + 8000 x (4.386 +
     * 5 x 0.1875) = 142352 + 42588 = 184940 pJ over 16000 b = 11.55875 pJ/b. */
    h = point_fabric(&pc, 4);
    a = th_at_low(h, 0, 0, 0, 1000);
    b = th_at_low(h, 0, 32, 0, 1000);
    th_net_go(h);
    ck_delivered_at(a, 96000);
    ck_delivered_at(b, 149000);
    ck_assert(th_net_metric_of(h, "packets_dropped") == 1);
    assert_rel(th_net_metric_of(h, "energy_per_bit_j"), 184940e-12 / 16000, 1e-12);
    th_net_free(h);
    cfg_free(&pc);
}
END_TEST

static Suite *phy_suite(void)
{
    Suite *s = suite_create("phy");
    TCase *tc = tcase_create("link");
    tcase_add_test(tc, test_propagation);
    tcase_add_test(tc, test_serialization);
    tcase_add_test_raise_signal(tc, test_serialization_zero_wavelengths_aborts, SIGABRT);
    suite_add_tcase(s, tc);
    tc = tcase_create("optical");
    tcase_add_test(tc, test_ber_from_q);
    tcase_add_test(tc, test_q_from_ber);
    tcase_add_test(tc, test_packet_error);
    tcase_add_test(tc, test_crosstalk_penalty);
    tcase_add_test(tc, test_ase_penalty);
    tcase_add_test(tc, test_budget_s6_by_hand);
    tcase_add_test(tc, test_budget_64port_passes_and_fails);
    tcase_add_test(tc, test_budget_sensitivity_rate);
    tcase_add_test(tc, test_budget_q_invariants);
    tcase_add_test(tc, test_budget_format);
    tcase_add_test(tc, test_invalid_params);
    suite_add_tcase(s, tc);
    tc = tcase_create("energy");
    tcase_add_test(tc, test_energy_optical);
    tcase_add_test(tc, test_energy_electrical);
    suite_add_tcase(s, tc);
    tc = tcase_create("resolve");
    tcase_add_test(tc, test_config_defaults_match);
    tcase_add_test(tc, test_resolve_fig11);
    tcase_add_test(tc, test_fig11_drop_energy);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(phy_suite)
