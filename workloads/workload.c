#include "workload.h"

#include <string.h>

#include "wl_task_tree.h"

extern const wl_ops wl_uniform_random_ops; /* jobs/wl_uniform_random.c */

const wl_ops *const wl_registry[] = {
    &wl_task_tree_ops,
    &wl_uniform_random_ops,
    NULL,
};

const wl_ops *wl_find(const char *name)
{
    for (size_t i = 0; wl_registry[i]; i++)
        if (strcmp(wl_registry[i]->name, name) == 0)
            return wl_registry[i];
    return NULL;
}

void wl_params_copy(wl_params *dst, const wl_params *src)
{
    *dst = *src;
    tree_spec_copy(&dst->tree, &src->tree);
    task_spec_copy(&dst->task, &src->task);
    dist_copy(&dst->message_size, &src->message_size);
}

void wl_params_free(wl_params *p)
{
    tree_spec_free(&p->tree);
    task_spec_free(&p->task);
    dist_free(&p->message_size);
}
