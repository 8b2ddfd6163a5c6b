#include "metrics.h"

#include <string.h>

const metric_def metric_core[METRIC_CORE_COUNT] = {TN_METRICS(METRIC_DEF)};

long metric_find(const metric_def *defs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(defs[i].name, name) == 0)
            return (long)i;
    return -1;
}
