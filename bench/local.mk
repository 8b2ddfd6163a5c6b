# Benchmarks: built with `make bench`, not part of `make check`.
EXTRA_PROGRAMS = bench/bench_engine
bench_bench_engine_SOURCES = %D%/bench_engine.c
bench_bench_engine_LDADD = libtasknet.a $(DEP_LIBS)
EXTRA_DIST += %D%/mpi-replay.sh %D%/run-bench.sh %D%/baseline.txt %D%/websearch-1000.xml %D%/topologies.sh %D%/uniform.xml %D%/iqrouter.sh %D%/graph.sh %D%/websearch-ns3.sh %D%/flow-list.py %D%/flow-compare.py %D%/iqr-diff.sh
CLEANFILES += bench/bench_engine
# make bench BENCH_FLAGS='--runs 5 -j 2' (see bench/run-bench.sh for the flags)
bench: bench/bench_engine bench/bench_progs tasknet
	$(SHELL) $(srcdir)/bench/run-bench.sh $(builddir) $(BENCH_FLAGS)
	$(SHELL) $(srcdir)/bench/topologies.sh $(builddir)
.PHONY: bench
# Task programs (kernels, patterns, static congestion): bench/bench_progs [--quick].
EXTRA_PROGRAMS += bench/bench_progs
bench_bench_progs_SOURCES = %D%/bench_progs.c
bench_bench_progs_LDADD = libtasknet.a $(DEP_LIBS)
CLEANFILES += bench/bench_progs
