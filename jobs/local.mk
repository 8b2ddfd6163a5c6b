# Job generation, pure: trees, task values, analytic footprints.
libtasknet_a_SOURCES += \
	%D%/task.c %D%/task.h \
	%D%/tree.c %D%/tree.h \
	%D%/tree_det.c %D%/tree_pa.c \
	%D%/joblist.c %D%/joblist.h \
	%D%/footprint.c %D%/footprint.h
# Task programs of the kernel and pattern workloads (specs/kernels-patterns.md):
# the program representation, mappings, the generators, static congestion.
libtasknet_a_SOURCES += \
	%D%/taskprog.c %D%/taskprog.h \
	%D%/mapping.c %D%/mapping.h \
	%D%/kernels.c %D%/kernels.h \
	%D%/patterns.c %D%/patterns.h \
	%D%/collectives.c %D%/collectives.h \
	%D%/congestion.c %D%/congestion.h
# Task graphs read from DOT files with Graphviz's cgraph (the dag workload).
libtasknet_a_SOURCES += \
	%D%/dag.c %D%/dag.h
