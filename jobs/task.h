/* The four random variables of a task (MODEL.md section 2). */
#ifndef TASKNET_TASK_H
#define TASKNET_TASK_H

#include "dist.h"

typedef struct task_spec {
    dist init_time;        /* t_i, seconds */
    dist aggregation_time; /* t_a, seconds */
    dist send_size;        /* s_s, bytes sent to start a delegated task */
    dist result_size;      /* s_r, bytes of a delegated task's result */
} task_spec;

void task_spec_copy(task_spec *dst, const task_spec *src);
void task_spec_free(task_spec *t);

#endif
