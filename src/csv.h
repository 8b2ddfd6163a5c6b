/* Reading CSV files written by tasknet (RFC 4180 quoting). */
#ifndef TASKNET_CSV_H
#define TASKNET_CSV_H

#include <stddef.h>
#include <stdio.h>

/* Split one CSV line in place. Returns the field count (at most max). */
size_t csv_split(char *line, char **fields, size_t max);

/* The next record of a user's CSV file (a flow list, a layer table): blank
 * lines and '#' comment lines are skipped, leading blanks dropped, the rest
 * split in place into fields (pointing into *line, valid until the next
 * call). *lineno counts every line read, for "file:line" errors. Returns the
 * field count, or -1 at end of file (ferror(f) tells a read error). */
long csv_next_record(FILE *f, char **line, size_t *cap, long *lineno, char **fields, size_t max);

typedef struct csv_table {
    char *header;  /* first line, with its newline */
    char **rows;   /* complete data lines (with newline) */
    size_t nrows;
    int truncated; /* a last line without newline was dropped (a writer was killed mid-line) */
} csv_table;

/* Read a CSV file's lines. 1 = read, 0 = file absent, -1 = error (errno). */
int csv_read(const char *path, csv_table *t);
void csv_table_free(csv_table *t);
/* Index of column `name` in a header line, or -1. */
int csv_column(const char *header, const char *name);

#endif
