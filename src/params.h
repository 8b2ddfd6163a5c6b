/* Parameter rows: the one description of a configuration parameter. A
 * module (the core, the physical layer, a fabric, a workload) declares a
 * const array of rows; each row names a parameter by its path in the XML
 * (`network.extra-stages` is the extra-stages attribute of <network>), says
 * how its text is parsed and checked, and where its value lives: at `off`
 * bytes into the module's own params struct. The application composes the
 * rows of every module (app/config/config_rows.c): the same rows drive the XML
 * attributes, --set, sweep axes, `tasknet params`, the schema and the
 * written configuration. This file parses, formats, copies and frees
 * values; it knows nothing of XML, of paths' owners or of other rows.
 *
 * Values are SI base units in memory (seconds as integer ps for PARAM_PS,
 * bytes, bit/s, metres); text always carries its unit ("40Gb/s", "200ns").
 *
 * Checks across parameters are a module's own (its check op), reported
 * through a param_report so that the application can place each problem at
 * the attribute it is about (file:line:col). */
#ifndef TASKNET_PARAMS_H
#define TASKNET_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "units.h"

typedef enum param_kind {
    PARAM_U32,      /* uint32_t, integer range min..max */
    PARAM_U64,      /* uint64_t, integer range min..max */
    PARAM_REAL,     /* double of unit kind `dim` */
    PARAM_PS,       /* int64_t picoseconds, written as a time */
    PARAM_BYTES,    /* uint64_t bytes, written as a size */
    PARAM_DIST,     /* dist of unit kind `dim` (owns memory) */
    PARAM_CHOICE,   /* int-sized enum: index into `choices` */
    PARAM_NAME,     /* char[PARAM_NAME_MAX], accepted by `name_ok` */
    PARAM_TEXT,     /* char[max] (longer text), accepted by `name_ok` */
    PARAM_U32_LIST, /* uint32_t[max] at off, its count (uint32_t) at count_off; each >= min */
    PARAM_FILE,     /* param_file at off: a readable file (see param_file) */
} param_kind;

#define PARAM_NAME_MAX 32
#define PARAM_PATH_MAX 1024

/* A file named in a configuration: relative to the configuration's folder,
 * or else (a bare file name) in the data directory (src/datadir.h). */
typedef struct param_file {
    char text[256];           /* as written ("" = not given) */
    char path[PARAM_PATH_MAX]; /* where it was found, absolute */
    uint64_t digest;           /* FNV-1a 64 of its bytes, nonzero once found: what fingerprints hold */
} param_file;
#define PARAM_LIST_MAX 64 /* entries of a PARAM_U32_LIST at most */

enum {
    PARAM_POS = 1u,      /* value must be > 0 */
    PARAM_NONNEG = 2u,   /* value must be >= 0 */
    PARAM_UNSET0 = 4u,   /* 0 means "not given" (written as nothing) */
    PARAM_MIN1 = 8u,     /* distribution values must be >= 1 (a count); `note` says why */
    PARAM_REQUIRED = 16u, /* must be given (or its `alt`) whenever its owner is in use */
    PARAM_REPORT = 32u,   /* changes how results are reported, not what is simulated (left out of fingerprints) */
};

typedef struct param_row {
    const char *path;    /* "network.bandwidth": element path, then the attribute */
    const char *type;    /* shown by `tasknet params`: "rate", "time", "distribution(size)", ... */
    const char *unit;    /* shown: "b/s", "s", "B", "" */
    const char *def;     /* default as written; "" or NULL: none (0 / unset) */
    const char *help;    /* one line */
    param_kind kind;
    unit_kind dim;       /* PARAM_REAL and PARAM_DIST: the unit kind of values */
    size_t off;          /* offset of the value in the owner's params struct */
    size_t count_off;    /* PARAM_U32_LIST: offset of its uint32_t count */
    uint64_t min, max;   /* integer kinds: accepted range; PARAM_U32_LIST: min per element, max entries */
    unsigned flags;      /* PARAM_* */
    const char *const *choices; /* PARAM_CHOICE: names, NULL-terminated, index = stored value */
    /* PARAM_NAME, PARAM_TEXT: 0 if the text is acceptable, else -1 + err */
    int (*name_ok)(const char *name, char *err, size_t errlen);
    const char *alt;     /* path of the parameter this one excludes (the last given wins) */
    const char *example; /* a valid value, for messages */
    const char *note;    /* why the range is what it is, appended to range errors */
    /* PARAM_DIST: names its owner knows ("websearch"): 1 and the
     * distribution the name stands for in spec, 0 if text is no such name,
     * -1 + err (a known name whose data is missing). May be NULL. The value
     * keeps the name as its text. */
    int (*dist_name)(const char *text, char *spec, size_t speclen, char *err, size_t errlen);
    /* Applies only where another parameter of the same owner has a value:
     * "workload.tree.generator=preferential". NULL: wherever its owner is
     * used. One given where that never holds changes nothing and is refused
     * (as a fabric's parameter under another fabric is). */
    const char *when;
} param_row;

/* A parsed value, before it is stored. */
typedef struct param_value {
    uint64_t u;     /* integer kinds, PARAM_BYTES */
    double d;       /* PARAM_REAL */
    int64_t ps;     /* PARAM_PS */
    int choice;     /* PARAM_CHOICE */
    dist dist;      /* PARAM_DIST (owned until stored or freed) */
    char name[PARAM_NAME_MAX];
    char *text;     /* PARAM_TEXT (owned until stored or freed) */
    uint32_t list[PARAM_LIST_MAX]; /* PARAM_U32_LIST */
    uint32_t nlist;
    param_file file; /* PARAM_FILE */
} param_value;

/* The largest value of each kind tasknet simulates. Time is counted in
 * integer picoseconds up to 2^63 ps = 106 days; keeping every single time,
 * and each size at the slowest likely rate, within about a day leaves room
 * for the sums a run makes. A value beyond is a typo (1e18B) or a unit
 * slip, refused rather than overflowing mid-run. */
#define PARAM_MAX_TIME_S 1e5   /* 27.8 hours */
#define PARAM_MAX_SIZE_B 1e12  /* 1 TB */
#define PARAM_MAX_LENGTH_M 1e6 /* 1000 km of fibre (5 ms) */
#define PARAM_MAX_COUNT 1e8    /* a drawn count (PARAM_MIN1), e.g. tree vertices */

/* Parse `text` for row r (relative file names resolve against basedir,
 * NULL = "."). 0, or -1 with a message without the path ("must be at
 * least 2", "missing unit (e.g. 40Gb/s)"). On success v may own a
 * distribution: hand it to param_store or param_value_free. */
int param_parse(const param_row *r, const char *text, const char *basedir, param_value *v, char *err,
                size_t errlen);
void param_value_free(param_value *v);
/* Store v into the params struct `block` (taking over its distribution). */
void param_store(void *block, const param_row *r, param_value *v);
/* The value as it would be written ("" when unset; caller frees). With
 * absdir, a relative empirical(FILE) is written with FILE resolved against
 * absdir (made absolute from the working directory if needed). */
char *param_format(const void *block, const param_row *r, const char *absdir);
/* A digest of the input the value reads besides its text (an empirical
 * distribution's file contents, a PARAM_FILE's), 0 when it reads none. */
uint64_t param_digest(const void *block, const param_row *r);
/* 1 when the value is given: not a PARAM_UNSET0 zero, not an unset distribution or empty list. */
int param_is_set(const void *block, const param_row *r);
/* Reset the value to unset (zero; a distribution freed). */
void param_clear(void *block, const param_row *r);

/* Whole params structs: every row's default (asserting each parses); a deep
 * copy (dst owns nothing before); release what the rows own. */
void param_block_defaults(void *block, const param_row *rows, size_t n);
void param_block_copy(void *dst, const void *src, size_t size, const param_row *rows, size_t n);
void param_block_free(void *block, const param_row *rows, size_t n);

/* The attribute of a path: its last component ("bandwidth"). */
const char *param_attr(const param_row *r);

/* Where a module's checks report. The application places each problem at
 * the attribute of `path` (or its element); a test or an init keeps the
 * first as text (param_report_first). */
typedef struct param_report {
    void (*invalid)(void *ctx, const char *path, const char *msg); /* the value of path is wrong */
    void (*missing)(void *ctx, const char *path, const char *why); /* path must be given */
    void *ctx;
    unsigned n; /* problems reported */
} param_report;

void param_invalid(param_report *r, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void param_missing(param_report *r, const char *path, const char *why);

/* Path p (a folder or a file) as an absolute path, "." and ".." segments
 * resolved by name (no link followed): 0, or -1 (too long, no working
 * folder). */
int param_abs_path(const char *p, char *out, size_t outlen);

/* A report that keeps the first problem as "path: message" in err. */
typedef struct param_first {
    param_report rep;
    char *err;
    size_t errlen;
} param_first;
param_report *param_report_first(param_first *f, char *err, size_t errlen);

#endif
