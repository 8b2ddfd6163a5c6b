#include "csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "infile.h"
#include "log.h"

/* Split one CSV line in place (RFC 4180 quoting). Returns the field count. */
size_t csv_split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *r = line, *w;
    while (n < max) {
        fields[n++] = w = r;
        if (*r == '"') {
            r++;
            for (;;) {
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                } else if (*r == '"') {
                    r++;
                    break;
                } else if (!*r) {
                    break;
                } else {
                    *w++ = *r++;
                }
            }
            while (*r && *r != ',')
                r++;
        } else {
            while (*r && *r != ',' && *r != '\n' && *r != '\r')
                *w++ = *r++;
        }
        int more = *r == ',';
        *w = '\0';
        if (!more)
            break;
        r++;
    }
    return n;
}

long csv_next_record(FILE *f, char **line, size_t *cap, long *lineno, char **fields, size_t max)
{
    while (getline(line, cap, f) >= 0) {
        ++*lineno;
        char *p = *line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
            continue;
        return (long)csv_split(p, fields, max);
    }
    return -1;
}

void csv_table_free(csv_table *t)
{
    free(t->header);
    for (size_t i = 0; i < t->nrows; i++)
        free(t->rows[i]);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* Read a CSV file's lines. 1 = read, 0 = file absent, -1 = error. */
int csv_read(const char *path, csv_table *t)
{
    memset(t, 0, sizeof *t);
    char why[64];
    FILE *f = tn_open_input(path, "r", why, sizeof why); /* not a device nor a pipe (errno EINVAL) */
    if (!f)
        return errno == ENOENT ? 0 : -1;
    char *line = NULL;
    size_t cap = 0, rcap = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) > 0) {
        if (line[got - 1] != '\n') {
            t->truncated = 1; /* a writer was killed mid-line: that run is redone */
            break;
        }
        if (got >= 2 && line[got - 2] == '\r') { /* CRLF (a file saved on Windows): as LF */
            line[got - 2] = '\n';
            line[got - 1] = '\0';
        }
        if (!t->header) {
            t->header = tn_xstrdup(line);
            continue;
        }
        if (t->nrows == rcap) {
            rcap = rcap ? 2 * rcap : 256;
            t->rows = tn_xrealloc(t->rows, rcap * sizeof *t->rows);
        }
        t->rows[t->nrows++] = tn_xstrdup(line);
    }
    free(line);
    fclose(f);
    return 1;
}

int csv_column(const char *header, const char *name)
{
    char *copy = tn_xstrdup(header);
    char *f[1024];
    size_t n = csv_split(copy, f, 1024);
    int idx = -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i], name) == 0) {
            idx = (int)i;
            break;
        }
    free(copy);
    return idx;
}
