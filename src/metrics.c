#include "metrics.h"

#include <string.h>

const char *const metric_names[METRIC_COUNT] = {
#define TN_METRIC_NAME(name, desc) #name,
    TN_METRICS(TN_METRIC_NAME)
#undef TN_METRIC_NAME
};

const char *const metric_descriptions[METRIC_COUNT] = {
#define TN_METRIC_DESC(name, desc) desc,
    TN_METRICS(TN_METRIC_DESC)
#undef TN_METRIC_DESC
};

int metric_find(const char *name)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        if (strcmp(metric_names[i], name) == 0)
            return i;
    return -1;
}
