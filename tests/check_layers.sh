#!/bin/sh
# The build keeps the layers (scripts/check-layers): the tree as it is
# passes, and each way of breaking them is caught, with the file and line.
# Fixtures: small trees with one violation each.
set -u
top_srcdir=${top_srcdir:-..}
top_builddir=${top_builddir:-..}
check=$top_srcdir/scripts/check-layers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# the tree: its includes and the symbols of its objects
if ! "$check" "$top_srcdir" "$top_builddir" >"$tmp/tree.log" 2>&1; then
    echo "FAIL the tree breaks its layers:"
    cat "$tmp/tree.log"
    fail=1
fi

# a fixture tree: $1 = name; files are written by the caller under $tmp/$1
expect() { # name, text the report must hold
    if "$check" "$tmp/$1" "$tmp/$1" >"$tmp/$1.log" 2>&1; then
        echo "FAIL $1: check-layers passed"
        fail=1
    elif ! grep -F -q -- "$2" "$tmp/$1.log"; then
        echo "FAIL $1: the report does not say '$2':"
        cat "$tmp/$1.log"
        fail=1
    fi
}
mk() { # name, file, text
    mkdir -p "$(dirname "$tmp/$1/$2")"
    printf '%s\n' "$3" >"$tmp/$1/$2"
}

# the core includes the command line's header
mk up src/core.h '/* core */'
mk up app/cli/cli.h '/* cli */'
mk up src/core.c '#include "core.h"
#include "cli.h"'
expect up 'src/core.c:2: includes "cli.h" of app/cli/, above src/'

# networks and jobs stand side by side: neither includes the other
mk side jobs/tree.h '/* jobs */'
mk side networks/net.c '#include <stdio.h>
  # include "tree.h"'
expect side 'networks/net.c:2: includes "tree.h" of jobs/, above networks/ (which may use only: src phy)'

# within app: configuration below the sweeps
mk app app/sweep/sweep.h '/* sweep */'
mk app app/config/config.h '#include "sweep.h"'
expect app 'app/config/config.h:1: includes "sweep.h" of app/sweep/, above app/config/'

# a header of no layer
mk none phy/link.c '#include "nowhere.h"'
expect none 'phy/link.c:1: includes "nowhere.h", a header of no layer'

# one header name in two folders
mk twice src/util.h '/* */'
mk twice workloads/util.h '/* */'
expect twice 'util.h: src workloads'

# a function declared low and defined high: caught in the objects
mk sym workloads/w.c 'double up(void); double w(void) { return up(); }'
mk sym app/run/r.c 'double up(void) { return 1.0; }'
if ${CC:-cc} -c -o "$tmp/sym/workloads/w.o" "$tmp/sym/workloads/w.c" &&
    ${CC:-cc} -c -o "$tmp/sym/app/run/r.o" "$tmp/sym/app/run/r.c"; then
    expect sym 'workloads/w.o: uses up, defined in'
else
    echo "FAIL sym: the fixture does not compile with ${CC:-cc}"
    fail=1
fi

# within app/sweep, a file using one after it (the result folder below
# the seam it records through), and a file the order does not name
mk order app/sweep/sweep_run.c 'int store_open(void); int sweep_run(void) { return store_open(); }'
mk order app/sweep/sweep_store.c 'int store_open(void) { return 0; }'
mk order app/sweep/sweep_extra.c 'int sweep_run(void); int extra(void) { return sweep_run(); }'
ok=1
for f in sweep_run sweep_store sweep_extra; do
    ${CC:-cc} -c -o "$tmp/order/app/sweep/$f.o" "$tmp/order/app/sweep/$f.c" || ok=0
done
if [ "$ok" -eq 1 ]; then
    expect order 'app/sweep/sweep_run.o: uses store_open, defined in'
    expect order 'app/sweep/ lists its files in order, and sweep_extra.o is not among them'
else
    echo "FAIL order: the fixture does not compile with ${CC:-cc}"
    fail=1
fi

# within app/config, the circle that was: the checks reporting through the
# loader (config_load.c calls them, so they may not call it back; the
# error positions are config_where.c's, below both)
mk corder app/config/config_check.c 'int ld_walk(void); int cfg_cross_check(void) { return ld_walk(); }'
mk corder app/config/config_load.c 'int cfg_cross_check(void); int ld_walk(void) { return 0; }
int cfg_load(void) { return cfg_cross_check(); }'
if ${CC:-cc} -c -o "$tmp/corder/app/config/config_check.o" "$tmp/corder/app/config/config_check.c" &&
    ${CC:-cc} -c -o "$tmp/corder/app/config/config_load.o" "$tmp/corder/app/config/config_load.c"; then
    expect corder 'app/config/config_check.o: uses ld_walk, defined in'
    expect corder 'a file after it in app/config/ (in order: config_rows config_axes config_where config_check'
else
    echo "FAIL corder: the fixture does not compile with ${CC:-cc}"
    fail=1
fi

[ "$fail" -eq 0 ] && echo "PASS the tree keeps its layers; 9 broken trees caught"
exit "$fail"
