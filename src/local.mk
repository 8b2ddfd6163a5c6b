# Core: engine, rng, units, distributions, statistics, CSV, traces, logging.
# Imports nothing of the models or the application.
libtasknet_a_SOURCES += \
	%D%/log.c %D%/log.h \
	%D%/metrics.c %D%/metrics.h \
	%D%/event_queue.c %D%/event_queue.h \
	%D%/sim.c %D%/sim.h \
	%D%/rng.c %D%/rng.h \
	%D%/units.c %D%/units.h \
	%D%/dist.c %D%/dist.h \
	%D%/datadir.c %D%/datadir.h \
	%D%/stats.c %D%/stats.h \
	%D%/csv.c %D%/csv.h \
	%D%/infile.c %D%/infile.h \
	%D%/trace.c %D%/trace.h \
	%D%/params.c %D%/params.h \
	%D%/dotio.c %D%/dotio.h
