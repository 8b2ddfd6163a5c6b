/* DOT files through Graphviz's cgraph (contract in dotio.h). */
#include "dotio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"

/* cgraph's lexer (libcgraph exports it, cgraph.h does not declare it):
 * aglexbad drops what the lexer still holds of the file just read. Without
 * it the newline after a file's closing brace is read as the next file's
 * first line, and that file's error lines come out one too high. */
extern void aglexbad(void);

/* cgraph reports through agerr; the user function gets each message. */
static char dot_errbuf[512];
static int dot_err_cb(char *msg)
{
    /* cgraph hands a message over in pieces ("Error", ": ", "syntax error in line 3 ...") */
    size_t have = strlen(dot_errbuf);
    if (have < sizeof dot_errbuf - 1)
        snprintf(dot_errbuf + have, sizeof dot_errbuf - have, "%s", msg);
    return 0;
}

Agraph_t *dot_open(const char *path, char *err, size_t errlen)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        tn_error(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(sb.st_mode)) {
        tn_error(err, errlen, "%s: not a regular file", path);
        return NULL;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        tn_error(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    dot_errbuf[0] = '\0';
    agusererrf prev = agseterrf(dot_err_cb);
    agerrlevel_t prevlvl = agseterr(AGERR);
    agreadline(1);
    Agraph_t *g = agread(f, NULL);
    aglexbad();
    agseterrf(prev);
    agseterr(prevlvl);
    fclose(f);
    if (!g || dot_errbuf[0]) {
        if (g)
            agclose(g);
        /* cgraph: "syntax error in line 5 near 'x'\n" */
        char msg[sizeof dot_errbuf];
        snprintf(msg, sizeof msg, "%s", dot_errbuf[0] ? dot_errbuf : "not a DOT graph");
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
            msg[--n] = '\0';
        const char *body = msg;
        if (strncmp(body, "Error: ", 7) == 0)
            body += 7;
        else if (strncmp(body, "Error:", 6) == 0)
            body += 6;
        const char *ln = strstr(msg, "in line ");
        if (ln)
            tn_error(err, errlen, "%s:%d: %s", path, atoi(ln + 8), body);
        else
            tn_error(err, errlen, "%s: %s", path, body[0] ? body : "empty file, expected a DOT graph");
        return NULL;
    }
    return g;
}

const char *dot_attr(void *obj, const char *name)
{
    Agraph_t *g = agraphof(obj);
    int kind = AGTYPE(obj) == AGINEDGE ? AGOUTEDGE : AGTYPE(obj);
    Agsym_t *sym = agattr(g, kind == AGOUTEDGE ? AGEDGE : kind, (char *)name, NULL);
    if (!sym)
        return NULL;
    const char *v = agxget(obj, sym);
    return v && v[0] ? v : NULL;
}

int dot_attr_unit(void *obj, const char *name, unit_kind kind, double *out, char *err, size_t errlen)
{
    const char *v = dot_attr(obj, name);
    if (!v)
        return 1;
    char e2[256];
    if (units_parse(v, kind, out, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "%s=\"%s\": %s", name, v, e2);
    return 0;
}

int dot_attr_u32(void *obj, const char *name, uint32_t max, uint32_t *out, char *err, size_t errlen)
{
    const char *v = dot_attr(obj, name);
    if (!v)
        return 1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    while (*end && tn_is_space(*end))
        end++;
    if (v[0] == '-' || errno || *end || x >= max)
        return tn_error(err, errlen, "%s=\"%s\": expected an integer from 0 to %u", name, v, max - 1);
    *out = (uint32_t)x;
    return 0;
}

static int id_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c >= 128;
}

int dot_line_of(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    if (!f || !name || !name[0]) {
        if (f)
            fclose(f);
        return 0;
    }
    size_t nl = strlen(name);
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, found = 0;
    while (!found && getline(&line, &cap, f) >= 0) {
        lineno++;
        for (const char *p = strstr(line, name); p; p = strstr(p + 1, name)) {
            int before = p == line ? ' ' : (unsigned char)p[-1];
            int after = (unsigned char)p[nl];
            int quoted = before == '"' && after == '"';
            if (quoted || (!id_char(before) && before != '"' && !id_char(after) && after != '"')) {
                found = 1;
                break;
            }
        }
    }
    free(line);
    fclose(f);
    return found ? lineno : 0;
}

int dot_node_error(char *err, size_t errlen, const char *path, const char *node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = dot_line_of(path, node);
    if (line > 0)
        return tn_error(err, errlen, "%s:%d: node %s: %s", path, line, node, msg);
    return tn_error(err, errlen, "%s: node %s: %s", path, node, msg);
}
