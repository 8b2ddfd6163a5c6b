# The task-tree execution model: the scheduler node and the compute nodes.
libtasknet_a_SOURCES += \
	%D%/scheduler.c %D%/scheduler.h \
	%D%/exec_model.c %D%/exec_model.h
