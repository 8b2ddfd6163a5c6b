# The task-tree workload: scheduler node and compute nodes (execution model).
libtasknet_a_SOURCES += \
	%D%/scheduler.c %D%/scheduler.h \
	%D%/exec_model.c %D%/exec_model.h \
	%D%/tasktree.c %D%/tasktree.h
