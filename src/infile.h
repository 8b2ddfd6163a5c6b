/* Opening an input file the way every reader of tasknet should: a file
 * where a file is expected, never a device, a pipe or a folder (/dev/zero
 * would be read without end, a FIFO with no writer blocks fopen forever),
 * and standard input read up to a bound. */
#ifndef TASKNET_INFILE_H
#define TASKNET_INFILE_H

#include <stddef.h>
#include <stdio.h>

/* What standard input may hold (a configuration piped in). */
#define TN_STDIN_MAX ((size_t)16 * 1024 * 1024)

/* fopen(path, "r"/"rb") for a regular file only, without blocking on a
 * FIFO: NULL + why ("cannot read 'x': No such file or directory", "'x' is
 * not a regular file (a character device): tasknet reads files") when it
 * cannot be read. errno is that of the failure (EINVAL for a non-regular
 * file). */
FILE *tn_open_input(const char *path, const char *mode, char *why, size_t whylen);

/* The whole of f, up to max bytes (NUL-terminated, caller frees): 0, or an
 * errno value (EFBIG when f holds more than max). */
int tn_read_all(FILE *f, size_t max, char **text, size_t *len);

#endif
