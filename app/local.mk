# The application: configuration, one run's wiring, sweeps, reports, plots
# and the command line (the only layer that prints).
libtasknet_a_SOURCES += \
	%D%/config.h %D%/config_impl.h \
	%D%/config_rows.c %D%/config_check.c %D%/config_axes.c \
	%D%/config_load.c %D%/config_schema.c %D%/config_write.c \
	%D%/run.c %D%/run.h %D%/run_files.c %D%/run_budget.c \
	%D%/report.c %D%/report.h \
	%D%/sweep.c %D%/sweep.h %D%/sweep_impl.h \
	%D%/sweep_store.c %D%/sweep_order.c %D%/sweep_fork.c \
	%D%/plot.c %D%/plot.h \
	%D%/cli.c %D%/cli.h

EXTRA_DIST += scripts/setup

# The MPI sweep driver, when ./configure found MPI (--with-mpi).
if HAVE_MPI
libtasknet_a_SOURCES += %D%/sweep_mpi.c
endif
AM_CFLAGS += $(MPI_CFLAGS)
tasknet_LDADD += $(MPI_LIBS)
