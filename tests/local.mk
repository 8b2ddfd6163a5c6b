# One Check program per module; `make check` runs them all.
TESTS_MODULES = \
	tests/check_sim \
	tests/check_units \
	tests/check_dist \
	tests/check_stats \
	tests/check_rng \
	tests/check_config \
	tests/check_tree \
	tests/check_footprint \
	tests/check_net \
	tests/check_sched \
	tests/check_spinet \
	tests/check_phy \
	tests/check_uniform \
	tests/check_conformance \
	tests/check_head \
	tests/check_cli \
	tests/check_sweep
check_PROGRAMS += $(TESTS_MODULES)
# The one harness every check program links (tests/harness.h).
check_LIBRARIES = tests/libharness.a
tests_libharness_a_SOURCES = %D%/harness.c %D%/harness.h
tests_libharness_a_CFLAGS = $(TEST_CFLAGS)
TESTS += $(TESTS_MODULES) tests/check_golden.sh

tests_check_sim_SOURCES = %D%/check_sim.c
tests_check_units_SOURCES = %D%/check_units.c
tests_check_dist_SOURCES = %D%/check_dist.c
tests_check_stats_SOURCES = %D%/check_stats.c
tests_check_rng_SOURCES = %D%/check_rng.c
tests_check_config_SOURCES = %D%/check_config.c
tests_check_tree_SOURCES = %D%/check_tree.c
tests_check_footprint_SOURCES = %D%/check_footprint.c
tests_check_net_SOURCES = %D%/check_net.c
tests_check_sched_SOURCES = %D%/check_sched.c
tests_check_spinet_SOURCES = %D%/check_spinet.c
tests_check_phy_SOURCES = %D%/check_phy.c
tests_check_uniform_SOURCES = %D%/check_uniform.c
tests_check_conformance_SOURCES = %D%/check_conformance.c
tests_check_head_SOURCES = %D%/check_head.c
tests_check_cli_SOURCES = %D%/check_cli.c %D%/cli_helpers.h
tests_check_sweep_SOURCES = %D%/check_sweep.c %D%/cli_helpers.h

tests_check_sim_CFLAGS = $(TEST_CFLAGS)
tests_check_units_CFLAGS = $(TEST_CFLAGS)
tests_check_dist_CFLAGS = $(TEST_CFLAGS)
tests_check_stats_CFLAGS = $(TEST_CFLAGS)
tests_check_rng_CFLAGS = $(TEST_CFLAGS)
tests_check_config_CFLAGS = $(TEST_CFLAGS)
tests_check_tree_CFLAGS = $(TEST_CFLAGS)
tests_check_footprint_CFLAGS = $(TEST_CFLAGS)
tests_check_net_CFLAGS = $(TEST_CFLAGS)
tests_check_sched_CFLAGS = $(TEST_CFLAGS)
tests_check_spinet_CFLAGS = $(TEST_CFLAGS)
tests_check_phy_CFLAGS = $(TEST_CFLAGS)
tests_check_uniform_CFLAGS = $(TEST_CFLAGS)
tests_check_conformance_CFLAGS = $(TEST_CFLAGS)
tests_check_head_CFLAGS = $(TEST_CFLAGS)
tests_check_cli_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'
tests_check_sweep_CFLAGS = $(TEST_CFLAGS) -DTASKNET_BIN='"$(abs_top_builddir)/tasknet"'

tests_check_sim_LDADD = $(TEST_LDADD)
tests_check_units_LDADD = $(TEST_LDADD)
tests_check_dist_LDADD = $(TEST_LDADD)
tests_check_stats_LDADD = $(TEST_LDADD)
tests_check_rng_LDADD = $(TEST_LDADD)
tests_check_config_LDADD = $(TEST_LDADD)
tests_check_tree_LDADD = $(TEST_LDADD)
tests_check_footprint_LDADD = $(TEST_LDADD)
tests_check_net_LDADD = $(TEST_LDADD)
tests_check_sched_LDADD = $(TEST_LDADD)
tests_check_spinet_LDADD = $(TEST_LDADD)
tests_check_phy_LDADD = $(TEST_LDADD)
tests_check_uniform_LDADD = $(TEST_LDADD)
tests_check_conformance_LDADD = $(TEST_LDADD)
tests_check_head_LDADD = $(TEST_LDADD)
tests_check_cli_LDADD = $(TEST_LDADD)
tests_check_sweep_LDADD = $(TEST_LDADD)

# check_cli runs the built program.
EXTRA_tests_check_cli_DEPENDENCIES = tasknet$(EXEEXT)
EXTRA_tests_check_sweep_DEPENDENCIES = tasknet$(EXEEXT)

EXTRA_DIST += %D%/fixtures %D%/golden %D%/check_golden.sh
# check_golden.sh runs the built program (make check builds `all` first).

# The configuration loader for a fuzzer (.ci/run), built with the tests.
check_PROGRAMS += tests/fuzz_config
tests_fuzz_config_SOURCES = %D%/fuzz_config.c
tests_fuzz_config_LDADD = libtasknet.a $(GSL_LIBS) $(XML_LIBS) -lm

# The slow check, not part of `make check` (a few minutes): random
# configurations over every plugin, every invariant (bench/random-configs.py).
check-random: tasknet$(EXEEXT)
	python3 $(srcdir)/bench/random-configs.py --tasknet $(builddir)/tasknet --count 500
.PHONY: check-random
EXTRA_DIST += bench/random-configs.py
