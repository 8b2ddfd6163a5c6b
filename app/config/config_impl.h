/* Internals shared by the app/config/config_*.c files: the composed rows and the
 * elements they imply, the loader's state (the XML document and where each
 * element and attribute is in the file), and how cross-check errors are
 * reported (placed in the file while loading, listed otherwise). */
#ifndef TASKNET_CONFIG_IMPL_H
#define TASKNET_CONFIG_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/xmlerror.h>
#include <libxml/xmlversion.h>

#include "config.h"

#if LIBXML_VERSION >= 21200
typedef const xmlError *xml_error_ptr;
#else
typedef xmlErrorPtr xml_error_ptr;
#endif

/* Largest sweep: beyond this a typo (an axis of 10^6 values) is likelier
 * than an intended study. */
#define CFG_MAX_POINTS 100000000.0

/* ---- composed rows (config_rows.c) ---- */

/* Row i of the composed table; its canonical index is that of the first
 * row with the same path (the index `given` and failures are kept by). A
 * workload's row (crow_is_wl) exists once per workload k of a
 * configuration; for the other rows k is 0. */
const cfg_param_info *crow_at(size_t i);
size_t crow_count(void);
size_t crow_canon(size_t i);
int crow_is_wl(size_t i);
/* First row of a path (unqualified: "workload.jobs"), or -1. */
long crow_find(const char *path);
/* Where workload k's value of row i lives in c (its owner's params struct). */
void *crow_block(const cfg *c, size_t i, size_t k);
/* 1 when row i's owner is selected by c (core and phy always; a workload
 * type's row: by workload k). */
int crow_selected(const cfg *c, size_t i, size_t k);
/* Row i's owner is selected (by workload k) at some point of c's sweep. */
int crow_used(const cfg *c, size_t i, size_t k);
/* A path as written ("workload.train.priority", "network.bandwidth") to
 * the row that applies to c (the selected owner's, else the first) and its
 * workload: 0, or -1 + err (unknown path, unknown workload, a workload's
 * parameter unqualified with several workloads). */
int crow_resolve(const cfg *c, const char *path, long *row, size_t *k, char *err, size_t errlen);
/* Record where canonical row canon of workload k was written in the file (cfg_where). */
void crow_set_pos(cfg *c, size_t canon, size_t k, long line, long col);
/* The path of row i of workload k as a user writes it (caller frees). */
char *crow_path(const cfg *c, size_t i, size_t k);
/* The workload that holds a workload type's row outside <workload> (as
 * task-tree's network.zeta): the first whose type declares it. */
size_t crow_wl_home(const cfg *c, size_t i);
/* Row i's `when` condition (param_row.when) holds at some point of the
 * sweep for workload k (1; also when it has none), else 0 and seen gets
 * the values the other parameter takes ("deterministic"). */
int crow_when_holds(const cfg *c, size_t i, size_t k, char *seen, size_t len);
/* "owner" words for messages: the plugin's name, "the physical layer" or "the core". */
const char *crow_owner_name(size_t i);
/* Parse value for every row of path canon (each owner gets its own copy)
 * of workload k and clear its alternative: 0, or -1 + err (nothing changed)
 * when no owner takes it (err: the message of the owner c selects, else
 * every owner's where they differ). An owner whose row does not take a value others take (its
 * own choices: network.routing) keeps its value and is marked rejected
 * (crow_rejected): a point that selects it is refused (cfg_cross_check). */
int crow_set(cfg *c, size_t canon, size_t k, const char *value, char *err, size_t errlen);
/* The given flag of (canon, k). */
unsigned char *crow_given(const cfg *c, size_t canon, size_t k);
/* The rejected flag of row i (any row, not only canonical ones) and workload k. */
unsigned char *crow_rejected(const cfg *c, size_t i, size_t k);
/* Why row i's owner rejected the value its path was given (workload k),
 * the value and why, e.g. "'ugal': unknown value (expected one of: default,
 * dor, ...)", into err: 0,
 * or -1 when it did not. */
int crow_rejected_why(const cfg *c, size_t i, size_t k, char *err, size_t errlen);
/* Does some owner of canonical row canon take value (the axis check)? 0,
 * or -1 + err: as crow_set's. */
int crow_parse_any(const cfg *c, size_t canon, size_t k, const char *value, char *err, size_t errlen);

/* ---- elements, from the rows' paths ---- */

#define CFG_MAX_ELEMS 48
typedef struct celem {
    char name[32];   /* element name */
    char prefix[96]; /* parameter path prefix of its attributes ("network.phy"); "" if structural */
    int parent;      /* index of the parent element, -1 for the root */
    int many;        /* 1: may appear several times */
} celem;

enum { CE_ROOT = 0 };
size_t celem_count(void);
const celem *celem_at(size_t i);
int celem_find_child(int parent, const char *name); /* -1 if none */
int celem_workload(void);                           /* the <workload> element */
int celem_in_workload(int e);                       /* e is <workload> or below it */
int celem_sweep(void);                              /* the structural <sweep>, <axis>, <value> */
int celem_axis(void);
int celem_value(void);
int crow_elem(size_t i); /* element holding row i's attribute */
/* What to write when element e is missing ("e.g. <tree z=\"4 3\"/>"); caller frees. */
char *celem_hint(int e);

/* ---- small helpers (config_rows.c) ---- */

char *cfg_vformat(const char *fmt, va_list ap);
char *cfg_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *cfg_join(const char *const *items, size_t n); /* "a, b, c" */
const char *cfg_closest(const char *word, const char *const *cands, size_t n);
int cfg_unknown_param(const char *path, char *err, size_t errlen);
void cfg_errors_push(cfg_errors *e, char *msg);

/* ---- the loader (config_load.c) ---- */

typedef struct lerr {
    long line, col; /* 0 = unknown */
    size_t seq;     /* report order, to keep the sort stable */
    char *msg;
    int cli;        /* a check's problem that the file alone does not have: the command line's values
                       (cfg_load_with) cause it, and the report names them */
} lerr;

struct _xmlNode;
struct _xmlDoc;

typedef struct serr {
    struct _xmlNode *node; /* element the schema complained about, or NULL */
    long line;             /* from libxml2 */
    char *msg;             /* libxml2's message, newline stripped */
} serr;

/* A value of the file that the walk rejected, kept until the command
 * line's values are known (config_load.c ld_release). */
struct ld_held {
    struct _xmlNode *node;
    const char *attr;
    char *value, *err;
    size_t k, ri; /* workload, canonical row */
};

typedef struct loader {
    const char *file;             /* as given */
    cfg *c;
    char *text;                   /* the file's bytes, NUL-terminated */
    size_t len;
    size_t *lines;                /* offset of each line's first byte */
    size_t nlines;
    size_t *tags;                 /* offset of each start tag, document order */
    size_t ntags;
    int tags_ok;                  /* tags[] matches the elements one to one */
    struct _xmlDoc *doc;
    int phase;                    /* 0 parsing, 1 schema */
    lerr *e;                      /* errors */
    size_t ne, cape;
    serr *s;                      /* schema errors, filtered at the end */
    size_t ns, caps;
    struct _xmlNode **flagged;    /* elements with an error of ours */
    size_t nflag, capflag;
    int structural;               /* unknown/duplicate elements or attributes */
    unsigned char failed[CFG_MAX_WORKLOADS][CFG_MAX_ROWS]; /* value rejected (workload, canonical index) */
    int axis_failed;              /* a sweep axis was rejected */
    size_t suppressed;            /* errors past LD_MAX_ERRORS, counted only */
    char **failed_axes;           /* param= of each rejected axis, for with= */
    size_t nfailed_axes;
    struct _xmlNode *el[CFG_MAX_WORKLOADS][CFG_MAX_ELEMS]; /* first node of each element, per
                                                           workload for <workload> and below (else [0]) */
    size_t cur;                   /* the workload whose element is being walked */
    size_t nwl_seen;              /* <workload> elements walked */
    struct _xmlNode *axis_node[CFG_MAX_AXES];    /* element of each axis */
    const cfg_cli_value *cli;     /* the command line's values (cfg_load_with), applied after the walk */
    size_t ncli;
    uint16_t cli_row[CFG_MAX_WORKLOADS][CFG_MAX_ROWS]; /* 1 + index into cli of the value that set the row last
                                                          (workload, canonical index); 0: not set there */
    cfg_errors cli_errs;          /* problems of those values: "error: LABEL: ...", after the file's */
    struct ld_held *held;         /* the file's rejected values, reported after the walk unless the
                                     command line or an axis replaces them (config_load.c ld_release) */
    size_t nheld, capheld;
} loader;

/* Errors kept for the report; past it they are counted only, so a file of
 * thousands of mistakes is reported in linear time. */
#define LD_MAX_ERRORS 100

/* ---- where in the file (config_where.c) ---- */

void ld_add_err(loader *ld, long line, long col, struct _xmlNode *flag, char *msg);
void ld_err_at_attr(loader *ld, struct _xmlNode *n, const char *attr, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void ld_err_at_elem(loader *ld, struct _xmlNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ld_elem_loc(const loader *ld, struct _xmlNode *n, long *line, long *col);
char *ld_prop_of(struct _xmlNode *n, const char *name); /* attribute value or NULL (caller frees) */
void ld_flag_node(loader *ld, struct _xmlNode *n);
int ld_covered(const loader *ld, struct _xmlNode *n);
int ld_flagged_itself(const loader *ld, struct _xmlNode *n);
/* Line and column of attribute `name` of element n (of n itself if absent). */
void ld_attr_loc(const loader *ld, struct _xmlNode *n, const char *name, long *line, long *col);
/* The file's lines and start tags (ld->text, ld->len -> lines, tags). */
void ld_scan_text(loader *ld);
/* Number the elements in document order (node->_private = 1 + index). */
void ld_index_elements(struct _xmlNode *n, size_t *k);
/* `<elem attr="value">` for messages, long values shortened (caller frees). */
char *ld_tag_text(const char *elem, const char *attr, const char *value);
/* An attribute's value (caller frees). */
char *ld_prop(struct _xmlAttr *a);
/* libxml2's errors, gathered into the loader (parser: reported as they
 * are; schema: kept in ld->s for ld_schema_check to filter). */
void ld_on_xml_error(void *data, xml_error_ptr e);

/* ---- cross-checks (config_check.c) ---- */

typedef enum ec_mode { EC_LOAD, EC_LIST, EC_FIRST } ec_mode;

/* Where cross-check errors go: located in the document being loaded, a list
 * ("file: error: ..."), or the first one into a buffer (cfg_point). */
typedef struct ectx {
    ec_mode mode;
    loader *ld;       /* EC_LOAD */
    cfg_errors *errs; /* EC_LIST */
    size_t first;     /* EC_LIST: errors before ours (for de-duplication) */
    const char *file; /* EC_LIST: prefix, may be "" */
    char *buf;        /* EC_FIRST */
    size_t buflen;    /* EC_FIRST */
    int n;            /* errors reported */
} ectx;

/* Checks of one concrete configuration (a point). */
void cfg_cross_check(const cfg *c, ectx *ec);
/* The loader's element node for element e of workload k (NULL if absent). */
struct _xmlNode *ld_node(const loader *ld, int e, size_t k);
/* Checks of the whole sweep: parameters given that no point uses. */
void cfg_sweep_check(const cfg *c, ectx *ec);
/* Cross-check every point of c (or c itself). */
void cfg_check_points(const cfg *c, ectx *ec);

/* ---- sweep points (config_axes.c; the axes' storage: config_rows.c) ---- */

int cfg_axis_of(const cfg *c, const char *path); /* config_rows.c */
void cfg_axes_free(cfg *c);                       /* config_rows.c */
size_t cfg_axis_lead(const cfg *c, size_t a);
/* Copy of base with point i's axis values applied, not cross-checked
 * (cfg_point, config_check.c, cross-checks it). */
int cfg_build_point(const cfg *base, size_t i, cfg *out, char *err, size_t errlen);

/* ---- schema (config_schema.c) ---- */

/* Validate ld->doc against the schema made from the rows; keep what the
 * walk did not already say, reworded. */
void ld_schema_check(loader *ld);

#endif
