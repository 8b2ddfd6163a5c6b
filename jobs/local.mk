# Job generation: trees, task values, analytic footprints, workload registry.
libtasknet_a_SOURCES += \
	%D%/task.c %D%/task.h \
	%D%/tree.c %D%/tree.h \
	%D%/tree_det.c %D%/tree_pa.c \
	%D%/footprint.c %D%/footprint.h \
	%D%/workload.c %D%/workload.h \
	%D%/wl_uniform_random.c
