/* The data directory (see datadir.h). The folders are fixed at build time
 * (TASKNET_SRCDIR, TASKNET_DATADIR from Makefile.am) so the same binary
 * finds its files in the build tree and after `make install`; the
 * environment variable comes first so a relocated installation still works. */
#include "datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#ifndef TASKNET_SRCDIR
#define TASKNET_SRCDIR "."
#endif
#ifndef TASKNET_DATADIR
#define TASKNET_DATADIR "/usr/local/share/tasknet"
#endif

int tn_data_path(const char *name, char *out, size_t outlen, char *err, size_t errlen)
{
    if (!name || !name[0] || strchr(name, '/'))
        return tn_error(err, errlen, "'%s' is not a file name of the data directory", name ? name : "");
    const char *env = getenv("TASKNET_DATA_DIR");
    const char *dirs[3] = {env && env[0] ? env : NULL, TASKNET_SRCDIR "/configs/data", TASKNET_DATADIR "/data"};
    for (int i = 0; i < 3; i++) {
        if (!dirs[i])
            continue;
        int n = snprintf(out, outlen, "%s/%s", dirs[i], name);
        if (n > 0 && (size_t)n < outlen && access(out, R_OK) == 0)
            return 0;
    }
    return tn_error(err, errlen, "no data file '%s' in %s%s%s/configs/data or %s/data", name,
                    env && env[0] ? env : "", env && env[0] ? ", " : "", TASKNET_SRCDIR, TASKNET_DATADIR);
}
