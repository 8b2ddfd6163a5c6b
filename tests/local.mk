# One Check program per module (tests/check_<module>.c); `make check` runs
# them all. A new test is one line in TESTS_MODULES (alphabetical order):
# its source is tests/check_<module>.c by default, compiled with
# TEST_CFLAGS and linked with the harness and the library (LDADD below);
# it includes harness.h and ends with TH_MAIN(its_suite) (B10, NS, CLOSE
# are there too).
TESTS_MODULES = \
	tests/check_cli \
	tests/check_collectives \
	tests/check_dag \
	tests/check_config \
	tests/check_conformance \
	tests/check_congestion \
	tests/check_dc_flows \
	tests/check_dc_mix \
	tests/check_dist \
	tests/check_footprint \
	tests/check_graph \
	tests/check_head \
	tests/check_host_nic \
	tests/check_input \
	tests/check_joblist \
	tests/check_kernels \
	tests/check_mix \
	tests/check_net \
	tests/check_patterns \
	tests/check_phy \
	tests/check_plot \
	tests/check_prog_exec \
	tests/check_programs_cli \
	tests/check_results \
	tests/check_rng \
	tests/check_sched \
	tests/check_sim \
	tests/check_spinet \
	tests/check_stats \
	tests/check_sweep \
	tests/check_swnet \
	tests/check_hpcc \
	tests/check_iqrouter \
	tests/check_swnet_nic \
	tests/check_switch_iq \
	tests/check_topo \
	tests/check_training \
	tests/check_transport \
	tests/check_tree \
	tests/check_uniform \
	tests/check_units \
	tests/check_vef
check_PROGRAMS += $(TESTS_MODULES)
TESTS += $(TESTS_MODULES) tests/check_golden.sh tests/check_export.sh tests/check_congestion_pool.sh

# The one harness every check program links (tests/harness.h).
check_LIBRARIES = tests/libharness.a
tests_libharness_a_SOURCES = %D%/harness.c %D%/harness.h

# Every program without its own _LDADD is a test (tasknet and the benches
# have theirs).
LDADD = $(TEST_LDADD)
AM_CFLAGS += $(CHECK_CFLAGS)
AM_CPPFLAGS += -I$(top_srcdir)/tests

# check_cli runs the built program.
tests_check_cli_SOURCES = %D%/check_cli.c %D%/cli_helpers.h
tests_check_cli_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'
EXTRA_tests_check_cli_DEPENDENCIES = tasknet$(EXEEXT)
# check_programs_cli too (the kernel and pattern workloads end to end).
tests_check_programs_cli_SOURCES = %D%/check_programs_cli.c %D%/cli_helpers.h
tests_check_programs_cli_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'
EXTRA_tests_check_programs_cli_DEPENDENCIES = tasknet$(EXEEXT)
# check_plot too (the scripts tasknet plot writes).
tests_check_plot_SOURCES = %D%/check_plot.c %D%/cli_helpers.h
tests_check_plot_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'
EXTRA_tests_check_plot_DEPENDENCIES = tasknet$(EXEEXT)
# check_input too (bad input fails fast).
tests_check_input_SOURCES = %D%/check_input.c %D%/cli_helpers.h
tests_check_input_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'
EXTRA_tests_check_input_DEPENDENCIES = tasknet$(EXEEXT)
# check_results too (results that do not mislead).
tests_check_results_SOURCES = %D%/check_results.c %D%/cli_helpers.h
tests_check_results_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'
EXTRA_tests_check_results_DEPENDENCIES = tasknet$(EXEEXT)
# check_sweep too (resume, locks, signals, merges through the program).
tests_check_sweep_SOURCES = %D%/check_sweep.c %D%/cli_helpers.h
tests_check_sweep_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'
EXTRA_tests_check_sweep_DEPENDENCIES = tasknet$(EXEEXT)

EXTRA_DIST += %D%/fixtures %D%/golden %D%/check_golden.sh %D%/check_export.sh %D%/check_congestion_pool.sh

# The layers (scripts/check-layers): includes and symbols of every layered
# folder; `make check-layers` runs it alone.
TESTS += tests/check_priority_vcs.sh tests/check_ack_class.sh
EXTRA_DIST += %D%/check_priority_vcs.sh %D%/check_ack_class.sh

TESTS += tests/check_layers.sh
EXTRA_DIST += %D%/check_layers.sh scripts/check-layers
check-layers: $(libtasknet_a_OBJECTS) $(tasknet_OBJECTS)
	$(srcdir)/scripts/check-layers $(srcdir) $(builddir)
.PHONY: check-layers
# check_golden.sh runs the built program (make check builds `all` first).

# The configuration loader for a fuzzer (.ci/run), built with the tests.
check_PROGRAMS += tests/fuzz_config
tests_fuzz_config_SOURCES = %D%/fuzz_config.c
tests_fuzz_config_LDADD = libtasknet.a $(DEP_LIBS)
# The readers of the other input files (DOT, VEF, CSV, InfiniBand dumps)
# for a fuzzer (scripts/fuzz-input; not in .ci/run), built with the tests.
check_PROGRAMS += tests/fuzz_input
tests_fuzz_input_SOURCES = %D%/fuzz_input.c
tests_fuzz_input_LDADD = libtasknet.a $(DEP_LIBS)

# The slow check, not part of `make check` (a few minutes): random
# configurations over every plugin, every invariant (bench/random-configs.py).
check-random: tasknet$(EXEEXT)
	python3 $(srcdir)/bench/random-configs.py --tasknet $(builddir)/tasknet --count 500
.PHONY: check-random
EXTRA_DIST += bench/random-configs.py

# MPI trace replay (OTF2 only).
if HAVE_OTF2
check_PROGRAMS += tests/check_mpi_trace
TESTS += tests/check_mpi_trace
# the tracer on tests/mpi/'s programs under mpirun (skips itself without MPI)
check_PROGRAMS += tests/check_mpi_tracer
endif
TESTS += tests/check_mpi_tracer.sh
EXTRA_DIST += tests/check_mpi_tracer.sh tests/mpi
