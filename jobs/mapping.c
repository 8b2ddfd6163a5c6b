/* Task-to-node mappings; contract in mapping.h. */
#include "mapping.h"

#include <stdlib.h>

#include "log.h"

void map_identity(uint32_t *map, uint32_t tasks)
{
    for (uint32_t i = 0; i < tasks; i++)
        map[i] = i;
}

void map_random(uint32_t *map, uint32_t tasks, uint32_t nodes, gsl_rng *r, uint32_t *scratch)
{
    TN_ASSERT(tasks <= nodes, "%u tasks on %u nodes", tasks, nodes);
    uint32_t *a = scratch ? scratch : tn_xmalloc((size_t)(nodes ? nodes : 1) * sizeof *a);
    for (uint32_t i = 0; i < nodes; i++)
        a[i] = i;
    /* Only the first `tasks` positions are needed: a partial shuffle draws
     * each of them uniformly among the nodes not yet taken. */
    for (uint32_t i = 0; i < tasks; i++) {
        uint32_t j = i + (uint32_t)gsl_rng_uniform_int(r, nodes - i);
        uint32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
        map[i] = a[i];
    }
    if (!scratch)
        free(a);
}

void map_invert(const uint32_t *map, uint32_t tasks, uint32_t nodes, uint32_t *node_task)
{
    for (uint32_t n = 0; n < nodes; n++)
        node_task[n] = UINT32_MAX;
    for (uint32_t i = 0; i < tasks; i++) {
        TN_ASSERT(map[i] < nodes && node_task[map[i]] == UINT32_MAX,
                  "mapping is not an injection: task %u on node %u", i, map[i]);
        node_task[map[i]] = i;
    }
}
