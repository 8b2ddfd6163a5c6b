# Core (engine, rng, units, distributions, statistics) and the wiring (config, run, CLI).
libtasknet_a_SOURCES += \
	%D%/log.c %D%/log.h \
	%D%/metrics.c %D%/metrics.h \
	%D%/event_queue.c %D%/event_queue.h \
	%D%/sim.c %D%/sim.h \
	%D%/rng.c %D%/rng.h \
	%D%/units.c %D%/units.h \
	%D%/dist.c %D%/dist.h \
	%D%/stats.c %D%/stats.h \
	%D%/config.c %D%/config.h \
	%D%/run.c %D%/run.h \
	%D%/report.c %D%/report.h \
	%D%/csv.c %D%/csv.h \
	%D%/sweep.c %D%/sweep.h \
	%D%/plot.c %D%/plot.h \
	%D%/trace.c %D%/trace.h \
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
