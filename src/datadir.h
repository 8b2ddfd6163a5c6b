/* The data directory: files tasknet ships for configurations to name
 * without a path (message-size CDFs, layer profiles: configs/data/ in the
 * source tree, $(pkgdatadir)/data once installed). */
#ifndef TASKNET_DATADIR_H
#define TASKNET_DATADIR_H

#include <stddef.h>

/* The readable file `name` (a file name, no folder) of the data directory:
 * looked up in $TASKNET_DATA_DIR when set, then in the source tree this
 * program was built from (configs/data), then where it is installed
 * ($(pkgdatadir)/data). 0 and its path in out, or -1 and err naming the
 * folders searched. */
int tn_data_path(const char *name, char *out, size_t outlen, char *err, size_t errlen);

#endif
