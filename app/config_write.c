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

/* The row of canonical row i whose value c writes: the owner c selects, or
 * (for a sweep) the first owner some point uses; -1 if none applies. */
static long row_to_write(const cfg *c, size_t i)
{
    long fallback = -1;
    for (size_t k = i; k < crow_count(); k++) {
        if (crow_canon(k) != i)
            continue;
        if (crow_selected(c, k))
            return (long)k;
        if (fallback < 0 && !c->point && crow_used(c, k))
            fallback = (long)k;
    }
    return fallback;
}

/* Element e's attributes (f NULL: only tell whether any would be written). 1 if any. */
static int put_attrs(FILE *f, const cfg *c, int e)
{
    int any = 0;
    char absdir[CFG_PATH_MAX];
    snprintf(absdir, sizeof absdir, "%s", c->basedir[0] ? c->basedir : ".");
    for (size_t i = 0; i < crow_count(); i++) {
        if (crow_canon(i) != i || crow_elem(i) != e)
            continue;
        long k = row_to_write(c, i);
        if (k < 0)
            continue;
        char *v = param_format(crow_block(c, (size_t)k), crow_at((size_t)k)->row, absdir);
        if (v[0]) {
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
static int has_content(const cfg *c, int e)
{
    if (put_attrs(NULL, c, e))
        return 1;
    for (size_t k = 0; k < celem_count(); k++)
        if (celem_at(k)->parent == e && celem_at(k)->prefix[0] && has_content(c, (int)k))
            return 1;
    return 0;
}

static void put_elem(FILE *f, const cfg *c, int e, int indent)
{
    fprintf(f, "%*s<%s", indent, "", celem_at((size_t)e)->name);
    put_attrs(f, c, e);
    int children = 0;
    for (size_t k = 0; k < celem_count(); k++) {
        if (celem_at(k)->parent != e || !celem_at(k)->prefix[0] || !has_content(c, (int)k))
            continue;
        if (!children)
            fputs(">\n", f);
        children = 1;
        put_elem(f, c, (int)k, indent + 2);
    }
    if (children)
        fprintf(f, "%*s</%s>\n", indent, "", celem_at((size_t)e)->name);
    else
        fputs("/>\n", f);
}

int cfg_write_xml(const cfg *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return tn_error(err, errlen, "cannot write %s: %s", path, strerror(errno));
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fputs("<!-- Written by tasknet: every parameter explicit, defaults included. -->\n", f);
    fputs("<tasknet version=\"1\">\n", f);
    for (size_t k = 0; k < celem_count(); k++)
        if (celem_at(k)->parent == CE_ROOT && celem_at(k)->prefix[0] && has_content(c, (int)k))
            put_elem(f, c, (int)k, 2);
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
