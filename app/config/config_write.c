/* The written configuration: every parameter that applies, defaults
 * included, in the element its path names, and the sweep; cfg_load reads
 * it back to an equal configuration. */
#include "config_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static void put_escaped(FILE *f, const char *s, int attr)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs(attr ? "&quot;" : "\"", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        case '\t': fputs(attr ? "&#9;" : "\t", f); break;
        case '\r': fputs("&#13;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* The row of canonical row i whose value c writes for workload k: the
 * owner selected, or (for a sweep) the first owner some point uses; -1 if
 * none applies. */
static long row_to_write(const cfg *c, size_t i, size_t k)
{
    long fallback = -1;
    for (size_t j = i; j < crow_count(); j++) {
        if (crow_canon(j) != i)
            continue;
        if (*crow_rejected(c, j, k))
            continue; /* holds its own value, not the one given */
        /* the base's owner, unless the sweep gives every point another (a sweep
         * of network.type over the topologies only: the switch's own rows
         * apply nowhere, and read back they would be refused as such) */
        if (crow_selected(c, j, k) && (c->point || crow_used(c, j, k)))
            return (long)j;
        if (fallback < 0 && !c->point && crow_used(c, j, k))
            fallback = (long)j;
    }
    return fallback;
}

/* A parameter not given whose owners across the sweep hold different
 * values (their own defaults: network.mtu is 0B on the switch, 4.096kB on
 * the topologies) is left out: written, it would be given to every owner
 * when read back, and a point of another fabric would change (or be
 * refused). Read back without it, each owner takes its own default again.
 * A point too: there the owners are the core and the one fabric it uses,
 * which differ where a fabric declares a core path with a default of its
 * own (network.switch-latency: 200ns in the core, 0ns for the switched
 * fabrics' input-queued router). */
static int defaults_differ(const cfg *c, size_t i, size_t k, const char *v, const char *absdir)
{
    if (*crow_given(c, i, k))
        return 0;
    int differ = 0;
    for (size_t j = i; j < crow_count() && !differ; j++) {
        if (crow_canon(j) != i || !(crow_used(c, j, k) || crow_selected(c, j, k)))
            continue; /* the base's owner too, used or not: read back, it takes what is written */
        char *w = param_format(crow_block(c, j, k), crow_at(j)->row, absdir);
        differ = strcmp(v, w) != 0;
        free(w);
    }
    return differ;
}

/* The workload whose value of row i an element outside <workload> holds. */
static size_t wl_of(const cfg *c, size_t i) { return crow_is_wl(i) ? crow_wl_home(c, i) : 0; }

/* Element e's attributes for workload k (f NULL: only tell whether any
 * would be written). 1 if any. */
static int put_attrs(FILE *f, const cfg *c, int e, size_t k)
{
    int any = 0;
    char absdir[CFG_PATH_MAX];
    snprintf(absdir, sizeof absdir, "%s", c->basedir[0] ? c->basedir : ".");
    for (size_t i = 0; i < crow_count(); i++) {
        if (crow_canon(i) != i || crow_elem(i) != e)
            continue;
        size_t kk = celem_in_workload(e) ? k : wl_of(c, i);
        long j = row_to_write(c, i, kk);
        if (j < 0)
            continue;
        char seen[256];
        if (!*crow_given(c, i, kk) && !crow_when_holds(c, (size_t)j, kk, seen, sizeof seen))
            continue; /* a default that applies nowhere here (shape under the deterministic generator) */
        char *v = param_format(crow_block(c, (size_t)j, kk), crow_at((size_t)j)->row, absdir);
        if (v[0] && !defaults_differ(c, i, kk, v, absdir)) {
            any = 1;
            if (f) {
                fprintf(f, " %s=\"", param_attr(crow_at(i)->row));
                put_escaped(f, v, 1);
                fputc('"', f);
            }
        }
        free(v);
    }
    return any;
}

/* Anything to write in e or below? */
static int has_content(const cfg *c, int e, size_t k)
{
    if (put_attrs(NULL, c, e, k))
        return 1;
    for (size_t j = 0; j < celem_count(); j++)
        if (celem_at(j)->parent == e && celem_at(j)->prefix[0] && has_content(c, (int)j, k))
            return 1;
    return 0;
}

static void put_elem(FILE *f, const cfg *c, int e, size_t k, int indent)
{
    fprintf(f, "%*s<%s", indent, "", celem_at((size_t)e)->name);
    put_attrs(f, c, e, k);
    int children = 0;
    for (size_t j = 0; j < celem_count(); j++) {
        if (celem_at(j)->parent != e || !celem_at(j)->prefix[0] || !has_content(c, (int)j, k))
            continue;
        if (!children)
            fputs(">\n", f);
        children = 1;
        put_elem(f, c, (int)j, k, indent + 2);
    }
    if (children)
        fprintf(f, "%*s</%s>\n", indent, "", celem_at((size_t)e)->name);
    else
        fputs("/>\n", f);
}

/* Attribute values are written absolute (param_format), axis values as
 * given: a relative file among them (values="../data/a.dot ../data/b.dot")
 * is from the configuration's folder, not from the folder written to (a
 * results folder's config.xml, read again by run, merge or a resume). The
 * root's base="FOLDER" says where they are from when the two differ: 1 and
 * the absolute folder in out. */
static int write_base(const cfg *c, const char *path, char *out, size_t outlen)
{
    char dir[CFG_PATH_MAX], to[CFG_PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", !slash ? 0 : slash == path ? 1 : (int)(slash - path), path);
    if (param_abs_path(c->basedir, out, outlen) != 0)
        return 0;
    return param_abs_path(dir, to, sizeof to) != 0 || strcmp(to, out) != 0;
}

int cfg_write_xml(const cfg *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return tn_error(err, errlen, "cannot write %s: %s", path, strerror(errno));
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fputs("<!-- Written by tasknet: every parameter explicit, defaults included. -->\n", f);
    char base[CFG_PATH_MAX];
    if (!c->point && c->naxes && write_base(c, path, base, sizeof base)) {
        fputs("<tasknet version=\"1\" base=\"", f);
        put_escaped(f, base, 1);
        fputs("\">\n", f);
    } else {
        fputs("<tasknet version=\"1\">\n", f);
    }
    for (size_t e = 0; e < celem_count(); e++) {
        if (celem_at(e)->parent != CE_ROOT || !celem_at(e)->prefix[0])
            continue;
        if ((int)e == celem_workload()) {
            for (size_t k = 0; k < c->nwl; k++)
                put_elem(f, c, (int)e, k, 2);
        } else if (has_content(c, (int)e, 0)) {
            put_elem(f, c, (int)e, 0, 2);
        }
    }
    if (!c->point && c->naxes) {
        fputs("  <sweep>\n", f);
        for (size_t a = 0; a < c->naxes; a++) {
            const cfg_axis *ax = &c->axes[a];
            int spaces = 0;
            for (size_t v = 0; v < ax->nvalues; v++)
                if (!ax->values[v][0] || strpbrk(ax->values[v], " \t\r\n"))
                    spaces = 1;
            fputs("    <axis param=\"", f);
            put_escaped(f, ax->param, 1);
            if (ax->with[0]) {
                fputs("\" with=\"", f);
                put_escaped(f, ax->with, 1);
            }
            if (!spaces) {
                fputs("\" values=\"", f);
                for (size_t v = 0; v < ax->nvalues; v++) {
                    if (v)
                        fputc(' ', f);
                    put_escaped(f, ax->values[v], 1);
                }
                fputs("\"/>\n", f);
            } else {
                fputs("\">\n", f);
                for (size_t v = 0; v < ax->nvalues; v++) {
                    fputs("      <value>", f);
                    put_escaped(f, ax->values[v], 0);
                    fputs("</value>\n", f);
                }
                fputs("    </axis>\n", f);
            }
        }
        fputs("  </sweep>\n", f);
    }
    fputs("</tasknet>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return tn_error(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
    return 0;
}
