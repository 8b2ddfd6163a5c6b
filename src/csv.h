/* Reading CSV files written by tasknet (RFC 4180 quoting). */
#ifndef TASKNET_CSV_H
#define TASKNET_CSV_H

#include <stddef.h>

/* Split one CSV line in place. Returns the field count (at most max). */
size_t csv_split(char *line, char **fields, size_t max);

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
