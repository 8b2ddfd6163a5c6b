# Benchmarks: built with `make bench`, not part of `make check`.
EXTRA_PROGRAMS = bench/bench_engine
bench_bench_engine_SOURCES = %D%/bench_engine.c
bench_bench_engine_LDADD = libtasknet.a $(GSL_LIBS) $(XML_LIBS) -lm
EXTRA_DIST += %D%/run-bench.sh %D%/topologies.sh %D%/uniform.xml
CLEANFILES += bench/bench_engine
bench: bench/bench_engine tasknet
	$(SHELL) $(srcdir)/bench/run-bench.sh $(builddir)
	$(SHELL) $(srcdir)/bench/topologies.sh $(builddir)
.PHONY: bench
