# The application, in its modules (each folder may use only the ones before
# it): config/ (the configuration: rows, XML load, checks, axes), run/ (one
# run's wiring, its budget and files), report/ (result files and analyze
# records), sweep/ (sweeps and the result folder), cli/ (the command line and
# plots: the only module that prints).
libtasknet_a_SOURCES += \
	%D%/config/config.h %D%/config/config_impl.h \
	%D%/config/config_rows.c %D%/config/config_axes.c %D%/config/config_where.c %D%/config/config_check.c \
	%D%/config/config_load.c %D%/config/config_schema.c %D%/config/config_write.c \
	%D%/run/run.c %D%/run/run.h %D%/run/run_files.c %D%/run/run_budget.c \
	%D%/report/report.c %D%/report/report.h \
	%D%/sweep/sweep.c %D%/sweep/sweep.h %D%/sweep/sweep_impl.h %D%/sweep/sweep_run.c \
	%D%/sweep/sweep_store.c %D%/sweep/sweep_order.c %D%/sweep/sweep_fork.c \
	%D%/cli/plot.c %D%/cli/plot.h \
	%D%/cli/cli.c %D%/cli/cli.h

EXTRA_DIST += scripts/setup

# The MPI sweep driver, when ./configure found MPI (--with-mpi).
if HAVE_MPI
libtasknet_a_SOURCES += %D%/sweep/sweep_mpi.c
endif
AM_CFLAGS += $(MPI_CFLAGS)
tasknet_LDADD += $(MPI_LIBS)
