/* The RELAX NG schema, made from the composed rows (one truth: a parameter
 * added to a plugin's rows is in the schema with nothing else to edit), and
 * the validation of a loaded document against it. configs/tasknet.rng is
 * its copy for editors and other tools (`tasknet params --rng` writes it; a
 * test keeps the two equal).
 *
 * The schema is closed: an element or attribute not listed is an error.
 * Values are plain text except choices: units, ranges and distributions
 * are checked by the walk (config_load.c), whose messages name the unit
 * expected (a RELAX NG datatype error could only say "invalid value").
 * Elements are all optional: the cross-checks report what a configuration
 * lacks with the parameter it needs. */
#include "config_impl.h"

#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* ---------------------------------------------------------- generation */

typedef struct sbuf {
    char *s;
    size_t n, cap;
    int bare; /* 1: no comments (the schema the loader compiles: the same grammar) */
} sbuf;

/* Room for n more bytes and the NUL. */
static void grow(sbuf *b, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1);
        b->s = tn_xrealloc(b->s, b->cap);
    }
}

/* Formatted straight into the buffer (one vsnprintf when it fits): the
 * schema is made at every load, so no allocation per piece. */
static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int l = vsnprintf(room ? b->s + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (l < 0)
            return;
        if ((size_t)l < room) {
            b->n += (size_t)l;
            return;
        }
        grow(b, (size_t)l);
    }
}

static void put_char(sbuf *b, char c)
{
    grow(b, 1);
    b->s[b->n++] = c;
    b->s[b->n] = '\0';
}

/* Text that is safe inside an XML comment: no "--", no trailing '-'. */
static void put_comment(sbuf *b, int indent, const char *text)
{
    if (b->bare)
        return;
    put(b, "%*s<!-- ", indent, "");
    for (const char *p = text; *p; p++) {
        if (*p == '-' && (p[1] == '-' || p[1] == '\0'))
            put(b, "- ");
        else
            put_char(b, *p);
    }
    put(b, " -->\n");
}

/* XML text for an attribute value or a <value>. */
static void put_text(sbuf *b, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': put(b, "&amp;"); break;
        case '<': put(b, "&lt;"); break;
        case '>': put(b, "&gt;"); break;
        case '"': put(b, "&quot;"); break;
        default: put_char(b, *s);
        }
}

static void put_element(sbuf *b, int e, int indent);

/* Two choice lists with the same names in the same order. */
static int same_choices(const char *const *a, const char *const *b)
{
    size_t k = 0;
    while (a[k] && b[k] && strcmp(a[k], b[k]) == 0)
        k++;
    return !a[k] && !b[k];
}

/* put_attribute's comment: the path, who declares it, its help (and each
 * owner's with choices of its own) */
static void put_attribute_comment(sbuf *b, size_t i, int indent)
{
    const param_row *r = crow_at(i)->row;
    /* who declares it: the core, the physical layer, or the plugins */
    char who[512] = "";
    size_t o = 0;
    for (size_t k = i; k < crow_count() && o < sizeof who; k++)
        if (crow_canon(k) == i && crow_at(k)->plugin)
            o += (size_t)snprintf(who + o, sizeof who - o, "%s%s", o ? ", " : "", crow_at(k)->plugin);
    char *c = cfg_format("%s%s%s%s: %s", r->path, who[0] ? " (" : "", who, who[0] ? ")" : "", r->help);
    /* owners with choices of their own, and their help (network.routing:
     * each topology's routings) */
    for (size_t k = i + 1; k < crow_count(); k++)
        if (crow_canon(k) == i && r->kind == PARAM_CHOICE && !same_choices(crow_at(k)->row->choices, r->choices)) {
            const char *owner = crow_at(k)->plugin ? crow_at(k)->plugin : "core", *h = crow_at(k)->row->help;
            size_t wl = strlen(owner);
            /* named once: a help that begins with its owner's name (each topology's routings) keeps its own */
            char *more = strncmp(h, owner, wl) == 0 && h[wl] == ':' ? cfg_format("%s; %s", c, h)
                                                                     : cfg_format("%s; %s: %s", c, owner, h);
            free(c);
            c = more;
        }
    put_comment(b, indent, c);
    free(c);
}

static void put_attribute(sbuf *b, size_t i, int indent)
{
    const param_row *r = crow_at(i)->row;
    if (!b->bare)
        put_attribute_comment(b, i, indent);
    put(b, "%*s<optional><attribute name=\"", indent, "");
    put_text(b, param_attr(r));
    if (r->kind == PARAM_CHOICE) {
        /* every owner's choices, each once (the owners of a path may take
         * different ones: each topology its routings) */
        put(b, "\"><choice>");
        for (size_t ow = i; ow < crow_count(); ow++) {
            if (crow_canon(ow) != i)
                continue;
            const char *const *ch = crow_at(ow)->row->choices;
            for (size_t k = 0; ch[k]; k++) {
                if (!ch[k][0])
                    continue; /* a PARAM_UNSET0 row's unnamed "not given" */
                int seen = 0;
                for (size_t p = i; p < ow && !seen; p++)
                    if (crow_canon(p) == i)
                        for (size_t q = 0; crow_at(p)->row->choices[q] && !seen; q++)
                            seen = strcmp(crow_at(p)->row->choices[q], ch[k]) == 0;
                if (seen)
                    continue;
                put(b, "<value>");
                put_text(b, ch[k]);
                put(b, "</value>");
            }
        }
        put(b, "</choice></attribute></optional>\n");
    } else {
        put(b, "\"><text/></attribute></optional>\n");
    }
}

static void put_content(sbuf *b, int e, int indent)
{
    size_t items = 0;
    for (size_t i = 0; i < crow_count(); i++)
        items += crow_canon(i) == i && crow_elem(i) == e;
    for (size_t k = 0; k < celem_count(); k++)
        items += celem_at(k)->parent == e && (int)k != celem_sweep();
    if (items == 0) {
        put(b, "%*s<empty/>\n", indent, "");
        return;
    }
    /* attributes in an interleave: libxml2 validates a plain group of many
     * optional attributes in time exponential in how many are given */
    put(b, "%*s<interleave>\n", indent, "");
    for (size_t i = 0; i < crow_count(); i++)
        if (crow_canon(i) == i && crow_elem(i) == e)
            put_attribute(b, i, indent + 2);
    for (size_t k = 0; k < celem_count(); k++)
        if (celem_at(k)->parent == e && (int)k != celem_sweep()) {
            const char *wrap = celem_at(k)->many ? "zeroOrMore" : "optional";
            put(b, "%*s<%s>\n", indent + 2, "", wrap);
            put_element(b, (int)k, indent + 4);
            put(b, "%*s</%s>\n", indent + 2, "", wrap);
        }
    if (e == CE_ROOT)
        put(b, "%*s<optional><ref name=\"sweep\"/></optional>\n", indent + 2, "");
    put(b, "%*s</interleave>\n", indent, "");
}

static void put_element(sbuf *b, int e, int indent)
{
    put(b, "%*s<element name=\"%s\">\n", indent, "", celem_at((size_t)e)->name);
    put_content(b, e, indent + 2);
    put(b, "%*s</element>\n", indent, "");
}

static char *schema_text(int bare)
{
    sbuf b = {.bare = bare};
    put(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    put(&b, "<!--\n"
            "  tasknet configuration schema (RELAX NG, XML syntax), version 1.\n"
            "\n"
            "  Made by `tasknet params -rng` from the parameter rows of the core,\n"
            "  the physical layer and every fabric and workload (each attribute's\n"
            "  comment says which declare it); do not edit: `make check` fails when\n"
            "  this file and the program disagree. The program validates every file\n"
            "  with the same schema.\n"
            "\n"
            "  Closed: an element or attribute not listed here is an error. Values\n"
            "  are plain text but for choices: units, ranges and distributions are\n"
            "  checked by the program, with messages naming the unit expected.\n"
            "  `tasknet params` describes every attribute.\n"
            "-->\n");
    put(&b, "<grammar xmlns=\"http://relaxng.org/ns/structure/1.0\">\n");
    put(&b, "  <start>\n");
    put(&b, "    <element name=\"tasknet\">\n");
    put(&b, "      <attribute name=\"version\"><value>1</value></attribute>\n");
    put(&b, "      <optional><attribute name=\"base\"/></optional>\n");
    put_content(&b, CE_ROOT, 6);
    put(&b, "    </element>\n");
    put(&b, "  </start>\n\n");
    put(&b, "  <!-- The cartesian product of the axes (an axis with with=\"P\" follows the\n"
            "       axis of P value by value instead); the first axis varies slowest. -->\n"
            "  <define name=\"sweep\">\n"
            "    <element name=\"sweep\">\n"
            "      <zeroOrMore>\n"
            "        <element name=\"axis\">\n"
            "          <attribute name=\"param\"><text/></attribute>\n"
            "          <!-- vary together with the earlier axis of this param (as many values) -->\n"
            "          <optional><attribute name=\"with\"><text/></attribute></optional>\n"
            "          <choice>\n"
            "            <!-- whitespace-separated values -->\n"
            "            <attribute name=\"values\"><text/></attribute>\n"
            "            <!-- one value per element, for values holding spaces (\"4 3\") -->\n"
            "            <oneOrMore>\n"
            "              <element name=\"value\"><text/></element>\n"
            "            </oneOrMore>\n"
            "          </choice>\n"
            "        </element>\n"
            "      </zeroOrMore>\n"
            "    </element>\n"
            "  </define>\n"
            "</grammar>\n");
    return b.s;
}

char *cfg_schema_rng(void) { return schema_text(0); }

/* ---------------------------------------------------------- validation */

enum { SK_SPECIFIC, SK_CASCADE, SK_GENERIC };

/* First non-blank text directly inside n (caller frees), or NULL. */
static char *stray_text(xmlNodePtr n)
{
    for (xmlNodePtr k = n->children; k; k = k->next)
        if (k->type == XML_TEXT_NODE || k->type == XML_CDATA_SECTION_NODE) {
            xmlChar *s = xmlNodeGetContent(k);
            char *c = tn_xstrdup_trim(s ? (const char *)s : "");
            xmlFree(s);
            if (c[0])
                return c;
            free(c);
        }
    return NULL;
}

static int has_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr k = n ? n->children : NULL; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE && strcmp((const char *)k->name, name) == 0)
            return 1;
    return 0;
}

/* libxml2's RELAX NG wording, said the way the rest of our messages are.
 * *kind: SK_SPECIFIC (about this node alone), SK_CASCADE (may follow from
 * an error inside it), SK_GENERIC (a "failed to validate" follow-up). */
static char *reword_schema(const serr *s, int *kind)
{
    char a[128], b[128];
    const char *parent = s->node && s->node->parent && s->node->parent->type == XML_ELEMENT_NODE
                             ? (const char *)s->node->parent->name
                             : "document";
    *kind = SK_SPECIFIC;
    /* libxml2 blames stray text in an interleave on a "missing" element:
     * look for the text first. */
    char *text = s->node ? stray_text(s->node) : NULL;
    if (text) {
        char *m = cfg_format("<%s>: unexpected text '%.40s' (this element takes no text)",
                             (const char *)s->node->name, text);
        free(text);
        return m;
    }
    if (sscanf(s->msg, "Element %127s has extra content: %127s", a, b) == 2) {
        *kind = SK_CASCADE;
        return cfg_format("<%s>: unexpected content <%s>", a, b);
    }
    if (sscanf(s->msg, "Invalid attribute %127s for element %127s", a, b) == 2) {
        const char **names = tn_xmalloc((crow_count() + 1) * sizeof *names);
        size_t k = 0;
        for (size_t i = 0; i < crow_count(); i++)
            if (crow_canon(i) == i && strcmp(celem_at((size_t)crow_elem(i))->name, b) == 0)
                names[k++] = param_attr(crow_at(i)->row);
        char *list = cfg_join(names, k);
        char *m = cfg_format("<%s %s=...>: unknown attribute (expected one of: %s)", b, a, list);
        free(list);
        free(names);
        return m;
    }
    *kind = SK_CASCADE;
    if (sscanf(s->msg, "Did not expect element %127s there", a) == 1)
        return cfg_format("unknown element <%s> in <%s>", a, parent);
    if (sscanf(s->msg, "Expecting an element %127[^,], got nothing", a) == 1 && !has_child(s->node, a))
        return cfg_format("<%s>: missing <%s> element", s->node ? (const char *)s->node->name : "document", a);
    if (sscanf(s->msg, "Expecting element %127[^,], got %127s", a, b) == 2)
        return cfg_format("<%s>: expected <%s>, found <%s>", parent, a, b);
    *kind = SK_GENERIC;
    return cfg_format("does not match the schema: %s", s->msg);
}

/* The schema is made from the parameter rows, which are fixed for the
 * life of the process: it is made and compiled once, at the first load, and
 * kept (a sweep or the fuzzer loads many files: making and compiling it was
 * 85 % of a small file's load). libxml2 validates any number of documents
 * with one compiled schema, each with its own validation context. */
static xmlRelaxNGPtr schema_compiled(loader *ld)
{
    static xmlRelaxNGPtr kept;
    if (kept)
        return kept;
    /* without the comments (half its text, and their help's making): the
     * same grammar as `tasknet params -rng`'s */
    char *rng = schema_text(1);
    xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewMemParserCtxt(rng, (int)strlen(rng));
    if (!pc) {
        free(rng);
        ld_add_err(ld, 0, 0, NULL, tn_xstrdup("internal error: cannot read the built-in schema"));
        return NULL;
    }
    xmlRelaxNGSetParserStructuredErrors(pc, ld_on_xml_error, ld);
    kept = xmlRelaxNGParse(pc);
    xmlRelaxNGFreeParserCtxt(pc);
    free(rng);
    if (!kept) {
        char *m = cfg_format("internal error: the built-in schema does not parse%s%s", ld->ns ? ": " : "",
                             ld->ns ? ld->s[0].msg : "");
        ld_add_err(ld, 0, 0, NULL, m);
    }
    return kept;
}

void ld_schema_check(loader *ld)
{
    ld->phase = 1;
    xmlRelaxNGPtr schema = schema_compiled(ld);
    if (!schema)
        return;
    /* errors of the schema's own parsing are not the user's */
    for (size_t i = 0; i < ld->ns; i++)
        free(ld->s[i].msg);
    ld->ns = 0;
    xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(schema);
    if (vc) {
        xmlRelaxNGSetValidStructuredErrors(vc, ld_on_xml_error, ld);
        int rc = xmlRelaxNGValidateDoc(vc, ld->doc);
        xmlRelaxNGFreeValidCtxt(vc);
        if (rc != 0 && ld->ns == 0 && ld->ne == 0)
            ld_add_err(ld, 0, 0, NULL, tn_xstrdup("does not match the schema"));
    }

    /* Keep what the walk did not already say; prefer specific messages to
     * libxml2's "failed to validate" follow-ups. */
    size_t kept = 0, generic_at = SIZE_MAX;
    for (size_t i = 0; i < ld->ns; i++) {
        serr *s = &ld->s[i];
        int kind;
        char *m = reword_schema(s, &kind);
        int drop = s->node ? (kind == SK_SPECIFIC ? ld_flagged_itself(ld, s->node) : ld_covered(ld, s->node))
                           : ld->ne > 0;
        if (!drop && kind == SK_GENERIC && generic_at == SIZE_MAX)
            generic_at = i;
        if (drop || kind == SK_GENERIC) {
            free(m);
            continue;
        }
        long line = s->line, col = 0;
        if (s->node)
            ld_elem_loc(ld, s->node, &line, &col);
        ld_add_err(ld, line, col, s->node, m);
        kept++;
    }
    if (kept == 0 && generic_at != SIZE_MAX) {
        serr *s = &ld->s[generic_at];
        int kind;
        long line = s->line, col = 0;
        if (s->node)
            ld_elem_loc(ld, s->node, &line, &col);
        ld_add_err(ld, line, col, s->node, reword_schema(s, &kind));
    }
}
