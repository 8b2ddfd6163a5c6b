/* Where in the file: the loader's positions and errors, below every file
 * that reports at an attribute or element (the checks, the schema, the
 * walk). libxml2 gives no column for attributes, so the file's bytes are
 * kept (ld_scan_text) and each element's start tag is found in them (the
 * n-th start tag of the text is the n-th element in document order,
 * ld_index_elements). Also libxml2's error callback (ld_on_xml_error). */
#include "config_impl.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "log.h"

void ld_flag_node(loader *ld, xmlNodePtr n)
{
    if (!n)
        return;
    if (ld->nflag == ld->capflag) {
        ld->capflag = ld->capflag ? 2 * ld->capflag : 16;
        ld->flagged = tn_xrealloc(ld->flagged, ld->capflag * sizeof *ld->flagged);
    }
    ld->flagged[ld->nflag++] = n;
}

/* Errors kept for the report; past it they are counted only, so a file of
 * thousands of mistakes is reported in linear time. */
#define LD_MAX_ERRORS 100

static int ld_full(loader *ld, xmlNodePtr flag)
{
    if (ld->ne < LD_MAX_ERRORS)
        return 0;
    ld->suppressed++;
    ld_flag_node(ld, flag);
    return 1;
}

void ld_add_err(loader *ld, long line, long col, xmlNodePtr flag, char *msg)
{
    if (ld_full(ld, flag)) {
        free(msg);
        return;
    }
    for (size_t i = 0; i < ld->ne; i++)
        if (strcmp(ld->e[i].msg, msg) == 0 && ld->e[i].line == line && ld->e[i].col == col) {
            free(msg);
            ld_flag_node(ld, flag);
            return;
        }
    if (ld->ne == ld->cape) {
        ld->cape = ld->cape ? 2 * ld->cape : 16;
        ld->e = tn_xrealloc(ld->e, ld->cape * sizeof *ld->e);
    }
    ld->e[ld->ne] = (lerr){line, col, ld->ne, msg, 0};
    ld->ne++;
    ld_flag_node(ld, flag);
}

/* Line and 1-based column (in characters) of a byte offset. */
static void offset_loc(const loader *ld, size_t off, long *line, long *col)
{
    size_t lo = 0, hi = ld->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ld->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    long c = 1;
    size_t from = ld->lines[lo];
    if (from == 0 && ld->len >= 3 && memcmp(ld->text, "\xEF\xBB\xBF", 3) == 0 && off >= 3)
        from = 3; /* a byte-order mark is no character of the line */
    for (size_t i = from; i < off; i++)
        if (((unsigned char)ld->text[i] & 0xC0) != 0x80)
            c++;
    *line = (long)lo + 1;
    *col = c;
}

static int tag_of(const loader *ld, xmlNodePtr n, size_t *off)
{
    uintptr_t k = (uintptr_t)n->_private;
    if (!ld->tags_ok || k == 0 || k > ld->ntags)
        return -1;
    *off = ld->tags[k - 1];
    return 0;
}

void ld_elem_loc(const loader *ld, xmlNodePtr n, long *line, long *col)
{
    size_t off;
    if (tag_of(ld, n, &off) == 0) {
        offset_loc(ld, off, line, col);
        return;
    }
    /* Fallback: libxml2's line, and the first "<name" on it. */
    long l = xmlGetLineNo(n);
    *line = l > 0 ? l : 0;
    *col = 0;
    if (l > 0 && (size_t)l <= ld->nlines) {
        size_t start = ld->lines[l - 1], end = (size_t)l < ld->nlines ? ld->lines[l] : ld->len;
        size_t nl = strlen((const char *)n->name);
        for (size_t i = start; i + nl < end; i++)
            if (ld->text[i] == '<' && strncmp(ld->text + i + 1, (const char *)n->name, nl) == 0) {
                offset_loc(ld, i, line, col);
                break;
            }
    }
}

/* Column of attribute `name` in the start tag of element n. */
void ld_attr_loc(const loader *ld, xmlNodePtr n, const char *name, long *line, long *col)
{
    size_t i;
    if (tag_of(ld, n, &i) != 0) {
        ld_elem_loc(ld, n, line, col);
        return;
    }
    const char *t = ld->text;
    size_t len = ld->len, nl = strlen(name);
    i++;
    while (i < len && !tn_is_space(t[i]) && t[i] != '>' && t[i] != '/')
        i++;
    for (;;) {
        while (i < len && tn_is_space(t[i]))
            i++;
        if (i >= len || t[i] == '>' || t[i] == '/')
            break;
        size_t start = i;
        while (i < len && !tn_is_space(t[i]) && t[i] != '=' && t[i] != '>' && t[i] != '/')
            i++;
        size_t alen = i - start;
        while (i < len && tn_is_space(t[i]))
            i++;
        if (i < len && t[i] == '=')
            i++;
        while (i < len && tn_is_space(t[i]))
            i++;
        if (i < len && (t[i] == '"' || t[i] == '\'')) {
            char q = t[i++];
            while (i < len && t[i] != q)
                i++;
            i++;
        }
        if (alen == nl && strncmp(t + start, name, nl) == 0) {
            offset_loc(ld, start, line, col);
            return;
        }
    }
    ld_elem_loc(ld, n, line, col);
}

/* The file's lines and start tags. */
void ld_scan_text(loader *ld)
{
    const char *t = ld->text;
    size_t n = ld->len, cap = 64;
    ld->lines = tn_xmalloc(cap * sizeof *ld->lines);
    ld->lines[ld->nlines++] = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '\n') {
            if (ld->nlines == cap) {
                cap *= 2;
                ld->lines = tn_xrealloc(ld->lines, cap * sizeof *ld->lines);
            }
            ld->lines[ld->nlines++] = i + 1;
        }
    size_t tcap = 32;
    ld->tags = tn_xmalloc(tcap * sizeof *ld->tags);
    size_t i = 0;
    while (i < n) {
        if (t[i] != '<') {
            i++;
            continue;
        }
        const char *end = NULL;
        if (strncmp(t + i, "<!--", 4) == 0) {
            end = strstr(t + i + 4, "-->");
            i = end ? (size_t)(end - t) + 3 : n;
        } else if (strncmp(t + i, "<![CDATA[", 9) == 0) {
            end = strstr(t + i + 9, "]]>");
            i = end ? (size_t)(end - t) + 3 : n;
        } else if (strncmp(t + i, "<?", 2) == 0) {
            end = strstr(t + i + 2, "?>");
            i = end ? (size_t)(end - t) + 2 : n;
        } else if (t[i + 1] == '!') {
            /* DOCTYPE with an optional internal subset */
            int depth = 0;
            char q = 0;
            for (i += 2; i < n; i++) {
                char ch = t[i];
                if (q) {
                    if (ch == q)
                        q = 0;
                } else if (ch == '"' || ch == '\'') {
                    q = ch;
                } else if (ch == '[') {
                    depth++;
                } else if (ch == ']') {
                    depth--;
                } else if (ch == '>' && depth <= 0) {
                    i++;
                    break;
                }
            }
        } else if (t[i + 1] == '/') {
            i += 2;
        } else {
            if (ld->ntags == tcap) {
                tcap *= 2;
                ld->tags = tn_xrealloc(ld->tags, tcap * sizeof *ld->tags);
            }
            ld->tags[ld->ntags++] = i;
            char q = 0;
            for (i++; i < n; i++) {
                if (q) {
                    if (t[i] == q)
                        q = 0;
                } else if (t[i] == '"' || t[i] == '\'') {
                    q = t[i];
                } else if (t[i] == '>') {
                    i++;
                    break;
                }
            }
        }
    }
}

/* Number the elements in document order (node->_private = 1 + index). */
void ld_index_elements(xmlNodePtr n, size_t *k)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        n->_private = (void *)(uintptr_t)(++*k);
        ld_index_elements(n->children, k);
    }
}

char *ld_prop(xmlAttrPtr a)
{
    xmlChar *v = xmlNodeListGetString(a->doc, a->children, 1);
    char *s = tn_xstrdup(v ? (const char *)v : "");
    xmlFree(v);
    return s;
}

char *ld_prop_of(xmlNodePtr n, const char *name)
{
    xmlAttrPtr a = xmlHasProp(n, (const xmlChar *)name);
    return a ? ld_prop(a) : NULL;
}

/* Does an error of ours sit on n or below it? */
int ld_covered(const loader *ld, xmlNodePtr n)
{
    for (size_t i = 0; i < ld->nflag; i++)
        for (xmlNodePtr f = ld->flagged[i]; f; f = f->parent)
            if (f == n)
                return 1;
    return 0;
}

/* Was an error of ours reported on exactly n? */
int ld_flagged_itself(const loader *ld, xmlNodePtr n)
{
    for (size_t i = 0; i < ld->nflag; i++)
        if (ld->flagged[i] == n)
            return 1;
    return 0;
}

/* `<elem attr="value">` for messages, long values shortened. */
char *ld_tag_text(const char *elem, const char *attr, const char *value)
{
    if (!attr)
        return cfg_format("<%s>", elem);
    size_t n = strlen(value);
    if (n > 60)
        return cfg_format("<%s %s=\"%.50s...\">", elem, attr, value);
    return cfg_format("<%s %s=\"%s\">", elem, attr, value);
}

void ld_err_at_attr(loader *ld, xmlNodePtr n, const char *attr, const char *value, const char *fmt, ...)
{
    if (ld_full(ld, n))
        return;
    long line, col;
    if (attr)
        ld_attr_loc(ld, n, attr, &line, &col);
    else
        ld_elem_loc(ld, n, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    char *body = cfg_vformat(fmt, ap);
    va_end(ap);
    char *tag = ld_tag_text((const char *)n->name, attr, value);
    ld_add_err(ld, line, col, n, cfg_format("%s: %s", tag, body));
    free(tag);
    free(body);
}

void ld_err_at_elem(loader *ld, xmlNodePtr n, const char *fmt, ...)
{
    if (ld_full(ld, n))
        return;
    long line, col;
    ld_elem_loc(ld, n, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    ld_add_err(ld, line, col, n, cfg_vformat(fmt, ap));
    va_end(ap);
}


/* Attribute names an element accepts, for "expected one of" lists (caller frees the array). */
/* ------------------------------------------------------ libxml2 errors */

void ld_on_xml_error(void *data, xml_error_ptr e)
{
    loader *ld = data;
    if (!ld || !e || e->level < XML_ERR_ERROR)
        return;
    char *msg = tn_xstrdup_trim(e->message ? e->message : "");
    if (ld->phase == 0) {
        /* well-formedness: the parser's own position is right */
        const char *why = msg;
        char *m = e->code == XML_ERR_DOCUMENT_EMPTY || e->code == XML_ERR_DOCUMENT_START
                      ? cfg_format("not an XML document: %s", why)
                      : cfg_format("malformed XML: %s", why);
        ld_add_err(ld, e->line > 0 ? e->line : 0, e->line > 0 ? (e->int2 > 0 ? e->int2 : 1) : 0, NULL, m);
        free(msg);
        return;
    }
    xmlNodePtr node = e->node;
    while (node && node->type != XML_ELEMENT_NODE)
        node = node->parent;
    if (ld->ns == ld->caps) {
        ld->caps = ld->caps ? 2 * ld->caps : 8;
        ld->s = tn_xrealloc(ld->s, ld->caps * sizeof *ld->s);
    }
    ld->s[ld->ns++] = (serr){node, e->line, msg};
}

