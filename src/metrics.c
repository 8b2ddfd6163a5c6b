#include "metrics.h"

const metric_def metric_core[METRIC_CORE_COUNT] = {TN_METRICS(METRIC_DEF)};
