# Benchmarks: built with `make bench`, not part of `make check`.
EXTRA_PROGRAMS = bench/bench_engine
bench_bench_engine_SOURCES = %D%/bench_engine.c
bench_bench_engine_LDADD = libtasknet.a $(GSL_LIBS) $(XML_LIBS) -lm
EXTRA_DIST += %D%/run-bench.sh %D%/baseline.txt
CLEANFILES += bench/bench_engine
# make bench BENCH_FLAGS='--runs 5 -j 2' (see bench/run-bench.sh for the flags)
bench: bench/bench_engine tasknet
	$(SHELL) $(srcdir)/bench/run-bench.sh $(builddir) $(BENCH_FLAGS)
.PHONY: bench
