/* Quantities with units, as written in configurations and on the command line.
 * Every parsed value is returned in SI base units: seconds, bytes, bits per
 * second, events per second. A number without a unit is an error for every
 * kind but UNIT_NONE. kB = 1000 B, KiB = 1024 B. */
#ifndef TASKNET_UNITS_H
#define TASKNET_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef enum unit_kind {
    UNIT_NONE, /* plain number: "1.5", "100" */
    UNIT_TIME, /* ps ns us ms s (also "µs") -> seconds */
    UNIT_SIZE, /* B kB MB GB TB KiB MiB GiB -> bytes */
    UNIT_RATE, /* b/s kb/s Mb/s Gb/s Tb/s (also bps forms) and B/s kB/s MB/s GB/s -> bit/s */
    UNIT_FREQ, /* 5000/s, 5/ms, 5/us, Hz kHz MHz GHz -> 1/s */
    UNIT_LENGTH, /* km m cm mm um -> metres */
    UNIT_POWER,  /* W mW uW -> watts */
    UNIT_DB,     /* dB: a power ratio in decibels (may be negative) */
    UNIT_DBM,    /* dBm: an absolute power in decibels over 1 mW (may be negative) */
    UNIT_ATTEN,  /* dB/cm dB/m dB/km -> dB per cm */
    UNIT_EBIT,   /* J/b nJ/b pJ/b fJ/b -> joules per bit */
} unit_kind;

/* Parse `text` (surrounding blanks allowed) as a quantity of `kind`.
 * Returns 0, or -1 with a message such as
 * "missing unit (e.g. 40Gb/s)" or "unit 'ns' is a time, expected a rate (e.g. 40Gb/s)". */
int units_parse(const char *text, unit_kind kind, double *out, char *err, size_t errlen);

const char *units_kind_name(unit_kind kind); /* "time", "size", "rate", "frequency", "length", "power", "ratio", "power level", "attenuation", "energy per bit", "number" */
const char *units_example(unit_kind kind);   /* "200ns", "20kB", "40Gb/s", "5000/s", "2m", "20mW", "1dB", "-20dBm", "1dB/cm", "8pJ/b", "1" */
const char *units_si_name(unit_kind kind);   /* "s", "B", "b/s", "1/s", "m", "W", "dB", "dBm", "dB/cm", "J/b", "" */

/* Seconds to integer picoseconds, rounded to nearest. */
int64_t units_s_to_ps(double seconds);
static inline double units_ps_to_s(int64_t ps) { return (double)ps * 1e-12; }

/* Human-readable value with a unit that round-trips through units_parse
 * (e.g. 4e10 rate -> "40Gb/s", 2e-7 time -> "200ns"); full precision. */
void units_format(double value, unit_kind kind, char *buf, size_t len);

#endif
