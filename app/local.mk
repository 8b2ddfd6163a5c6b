# The application: configuration, one run's wiring, sweeps, reports, plots
# and the command line (the only layer that prints).
libtasknet_a_SOURCES += \
	%D%/config.c %D%/config.h \
	%D%/run.c %D%/run.h \
	%D%/report.c %D%/report.h \
	%D%/sweep.c %D%/sweep.h \
	%D%/plot.c %D%/plot.h \
	%D%/cli.c %D%/cli.h

# The RELAX NG schema is compiled into the program (no install-path lookup).
nodist_libtasknet_a_SOURCES = %D%/schema_rng.c
BUILT_SOURCES += %D%/schema_rng.c
CLEANFILES += %D%/schema_rng.c
%D%/schema_rng.c: $(top_srcdir)/configs/tasknet.rng $(top_srcdir)/scripts/embed-text.sh
	$(AM_V_GEN)mkdir -p $(@D) && $(SHELL) $(top_srcdir)/scripts/embed-text.sh tasknet_schema_rng < $(top_srcdir)/configs/tasknet.rng > $@-t && mv $@-t $@
EXTRA_DIST += scripts/embed-text.sh scripts/setup

# The MPI sweep driver, when ./configure found MPI (--with-mpi).
if HAVE_MPI
libtasknet_a_SOURCES += %D%/sweep_mpi.c
endif
AM_CFLAGS += $(MPI_CFLAGS)
tasknet_LDADD += $(MPI_LIBS)
