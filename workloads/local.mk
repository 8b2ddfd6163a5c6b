# Workloads: the wl_ops contract, its registry and one file per workload.
libtasknet_a_SOURCES += \
	%D%/workload.c %D%/workload.h %D%/placement.c %D%/placement.h \
	%D%/wl_task_tree.c %D%/wl_task_tree.h \
	%D%/wl_uniform_random.c \
	%D%/wl_kernel.c \
	%D%/wl_pattern.c \
	%D%/wl_dc_flows.c %D%/dc_flows.h \
	%D%/wl_training.c %D%/training.h \
	%D%/wl_vef.c \
	%D%/wl_dag.c
