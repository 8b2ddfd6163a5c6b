/* The network.phy.* parameter rows. Defaults are the physical layer's own
 * (phy_optical_defaults, phy_energy_defaults: each value cited in
 * optical.c and energy.c); a row's default must print them exactly. */
#include "phy_params.h"

#include <stddef.h>

#define ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_
#define OPT(field) offsetof(phy_params, optical.field)
#define NRG(field) offsetof(phy_params, energy.field)

const param_row phy_param_rows[] = {
    {ROW("network.phy.launch-power", "power level", "dBm", "0dBm", "optical: laser power per wavelength"),
     .kind = PARAM_REAL, .dim = UNIT_DBM, .off = OPT(launch_power_dbm), .example = "0dBm"},
    {ROW("network.phy.wavelengths", "integer", "", "8",
         "optical: wavelengths a packet is striped over, each at B / wavelengths (>= 1)"),
     .kind = PARAM_U32, .off = OPT(wavelengths), .min = 1, .max = 4096, .example = "16"},
    {ROW("network.phy.modulator-loss", "ratio in dB", "dB", "4dB", "optical: modulator insertion loss"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(modulator_loss_db), .flags = PARAM_NONNEG, .example = "4dB"},
    {ROW("network.phy.coupler-loss", "ratio in dB", "dB", "1dB", "optical: one fibre-to-chip coupler (a path crosses two)"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(coupler_loss_db), .flags = PARAM_NONNEG, .example = "1dB"},
    {ROW("network.phy.stage-loss", "ratio in dB", "dB", "7dB", "optical: insertion loss of one 2x2 element before SOA gain"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(stage_loss_db), .flags = PARAM_NONNEG, .example = "7dB"},
    {ROW("network.phy.soa-gain", "ratio in dB", "dB", "6.5dB", "optical: gain of the SOA gate of each stage"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(soa_gain_db), .flags = PARAM_NONNEG, .example = "6.5dB"},
    {ROW("network.phy.crossings-per-stage", "integer", "", "16", "optical: waveguide crossings a path passes per stage"),
     .kind = PARAM_U32, .off = OPT(crossings_per_stage), .min = 0, .max = 1000000, .example = "16"},
    {ROW("network.phy.crossing-loss", "ratio in dB", "dB", "0.028dB", "optical: loss of one waveguide crossing"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(crossing_loss_db), .flags = PARAM_NONNEG, .example = "0.028dB"},
    {ROW("network.phy.waveguide-loss", "attenuation", "dB/cm", "1dB/cm", "optical: on-chip waveguide propagation loss"),
     .kind = PARAM_REAL, .dim = UNIT_ATTEN, .off = OPT(waveguide_loss_db_per_cm), .flags = PARAM_NONNEG,
     .example = "1dB/cm"},
    {ROW("network.phy.waveguide-per-stage", "length", "m", "5mm", "optical: waveguide length a path runs per stage"),
     .kind = PARAM_REAL, .dim = UNIT_LENGTH, .off = offsetof(phy_params, waveguide_m_per_stage),
     .flags = PARAM_NONNEG, .example = "5mm"},
    {ROW("network.phy.crosstalk", "ratio in dB", "dB", "-25dB", "optical: crosstalk one element leaks into a path (< 0dB)"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(crosstalk_db), .example = "-25dB"},
    {ROW("network.phy.extinction-ratio", "ratio in dB", "dB", "10dB",
         "optical: extinction ratio of the modulated signal (> 0dB)"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(extinction_ratio_db), .flags = PARAM_POS, .example = "10dB"},
    {ROW("network.phy.osnr-per-soa", "ratio in dB", "dB", "30dB",
         "optical: OSNR after one SOA in 0.1 nm (ASE adds up over the stages)"),
     .kind = PARAM_REAL, .dim = UNIT_DB, .off = OPT(osnr_per_soa_db), .example = "30dB"},
    {ROW("network.phy.sensitivity", "power level", "dBm", "-20dBm", "optical: receiver sensitivity at the BER target"),
     .kind = PARAM_REAL, .dim = UNIT_DBM, .off = OPT(receiver_sensitivity_dbm), .example = "-20dBm"},
    {ROW("network.phy.sensitivity-rate", "rate", "b/s", "10Gb/s",
         "optical: per-wavelength rate at which the sensitivity holds; +5 log10(r / it) dB at rate r (0 = any rate)"),
     .kind = PARAM_REAL, .dim = UNIT_RATE, .off = OPT(sensitivity_rate_bps), .flags = PARAM_NONNEG,
     .example = "10Gb/s"},
    {ROW("network.phy.ber-target", "number", "", "1e-12", "optical: BER at which the sensitivity is specified (0 < BER < 0.5)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = OPT(ber_target), .flags = PARAM_POS, .example = "1e-12"},
    {ROW("network.phy.laser-efficiency", "number", "", "0.1", "optical: laser wall-plug efficiency (0 < eta <= 1)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = NRG(wall_plug_efficiency), .flags = PARAM_POS, .example = "0.1"},
    {ROW("network.phy.soa-power", "power", "W", "30mW", "optical: electrical power of one SOA gate while it passes a packet"),
     .kind = PARAM_REAL, .dim = UNIT_POWER, .off = NRG(soa_power_w), .flags = PARAM_NONNEG, .example = "30mW"},
    {ROW("network.phy.serdes-energy", "energy per bit", "J/b", "1.496pJ/b",
         "energy of one SerDes per bit, plus 0.189pJ/b per Gb/s of lane rate"),
     .kind = PARAM_REAL, .dim = UNIT_EBIT, .off = NRG(serdes_j_per_bit), .flags = PARAM_NONNEG, .example = "1.496pJ/b"},
    {ROW("network.phy.serdes-lane-rate", "rate", "b/s", "10Gb/s",
         "electrical: SerDes lane rate of a switch port (B / it lanes; 0 = one lane at B)"),
     .kind = PARAM_REAL, .dim = UNIT_RATE, .off = NRG(electrical_lane_bps), .flags = PARAM_NONNEG,
     .example = "10Gb/s"},
    {ROW("network.phy.switch-core-energy", "energy per bit", "J/b", "8pJ/b", "electrical: switch core energy per bit"),
     .kind = PARAM_REAL, .dim = UNIT_EBIT, .off = NRG(switch_core_j_per_bit), .flags = PARAM_NONNEG,
     .example = "8pJ/b"},
};

const size_t phy_param_nrows = sizeof phy_param_rows / sizeof phy_param_rows[0];

void phy_params_defaults(phy_params *p)
{
    phy_optical_defaults(&p->optical);
    phy_energy_defaults(&p->energy);
    p->waveguide_m_per_stage = p->optical.waveguide_cm_per_stage / 100.0;
    param_block_defaults(p, phy_param_rows, phy_param_nrows);
}

void phy_params_check(const phy_params *p, param_report *rep)
{
    if (!(p->optical.crosstalk_db < 0))
        param_invalid(rep, "network.phy.crosstalk", "%gdB: the leak must be below the signal, < 0dB",
                      p->optical.crosstalk_db);
    if (!(p->optical.ber_target < 0.5))
        param_invalid(rep, "network.phy.ber-target", "%g: a bit error rate target must be below 0.5",
                      p->optical.ber_target);
    if (!(p->energy.wall_plug_efficiency <= 1))
        param_invalid(rep, "network.phy.laser-efficiency", "%g: a wall-plug efficiency is at most 1",
                      p->energy.wall_plug_efficiency);
}

void phy_params_optical(const phy_params *p, double bandwidth_bps, phy_optical *out)
{
    *out = p->optical;
    out->rate_per_wavelength_bps = bandwidth_bps / out->wavelengths;
    out->waveguide_cm_per_stage = 100.0 * p->waveguide_m_per_stage;
}
