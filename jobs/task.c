#include "task.h"

void task_spec_copy(task_spec *dst, const task_spec *src)
{
    dist_copy(&dst->init_time, &src->init_time);
    dist_copy(&dst->aggregation_time, &src->aggregation_time);
    dist_copy(&dst->send_size, &src->send_size);
    dist_copy(&dst->result_size, &src->result_size);
}

void task_spec_free(task_spec *t)
{
    dist_free(&t->init_time);
    dist_free(&t->aggregation_time);
    dist_free(&t->send_size);
    dist_free(&t->result_size);
}
