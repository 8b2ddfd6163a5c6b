# The task-tree execution model: the scheduler node and the compute nodes.
libtasknet_a_SOURCES += \
	%D%/scheduler.c %D%/scheduler.h \
	%D%/exec_model.c %D%/exec_model.h
# The task-program executor (kernel and pattern workloads).
libtasknet_a_SOURCES += %D%/prog_exec.c %D%/prog_exec.h
