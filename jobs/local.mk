# Job generation, pure: trees, task values, analytic footprints.
libtasknet_a_SOURCES += \
	%D%/task.c %D%/task.h \
	%D%/tree.c %D%/tree.h \
	%D%/tree_det.c %D%/tree_pa.c \
	%D%/footprint.c %D%/footprint.h
