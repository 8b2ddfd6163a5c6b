#!/bin/sh
# Results do not move by accident: replica 0 of every shipped configuration
# (configs/paper, configs/examples) must give the numbers stored in
# tests/golden/ (written by tests/golden/regen.sh from the model as it was).
# A configuration too long for `make check` is cut by tests/golden/NAME.args
# (extra arguments of `tasknet run`, one line: --runs and --set), read here
# and by regen.sh alike. Every shipped configuration must have a golden
# file; one replaying an OTF2 trace is skipped when tasknet was built
# without OTF2 (its workload does not exist then).
# Columns are matched by name, rows by run id, cells as exact %.17g text.
# A metric that does not apply to a run is an empty cell (or no column at
# all) and must have been 0 in the golden file. Not compared: config_hash
# (a fingerprint of the parameters' text, which may gain parameters),
# row_fnv1a64 (a checksum of the row's text, which gains a cell when a
# metric is added: every value it covers is compared here) and events
# (engine bookkeeping, not a result).
set -u
top_srcdir=${top_srcdir:-..}
top_builddir=${top_builddir:-..}
bin=$top_builddir/tasknet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
has_otf2=no
"$bin" params 2>/dev/null | grep -q '^workload.type="mpi-trace"' && has_otf2=yes
for f in "$top_srcdir"/configs/paper/*.xml "$top_srcdir"/configs/examples/*.xml; do
    name=$(basename "$(dirname "$f")")-$(basename "$f" .xml)
    if [ ! -f "$top_srcdir/tests/golden/$name.csv" ]; then
        echo "FAIL $name: $f has no golden file (tests/golden/regen.sh $name writes it;"
        echo "     a long configuration is cut by tests/golden/$name.args)"
        fail=1
    fi
done
for g in "$top_srcdir"/tests/golden/*.csv; do
    name=$(basename "$g" .csv)
    dir=${name%%-*}
    cfgname=${name#*-}
    f=$top_srcdir/configs/$dir/$cfgname.xml
    if [ ! -f "$f" ]; then
        echo "FAIL $name: $f is gone (remove its golden file on purpose, not by accident)"
        fail=1
        continue
    fi
    if [ $has_otf2 = no ] && grep -q 'type="mpi-trace"' "$f"; then
        echo "skip $name: tasknet was built without OTF2 (libotf2-trace-dev)"
        continue
    fi
    args=
    [ -f "$top_srcdir/tests/golden/$name.args" ] && args=$(cat "$top_srcdir/tests/golden/$name.args")
    # shellcheck disable=SC2086 # args is a list of words
    if ! "$bin" run "$f" --replicas 1 -q -j 2 $args --out "$tmp/$name" >"$tmp/$name.log" 2>&1; then
        echo "FAIL $name: tasknet run exited non-zero:"
        cat "$tmp/$name.log"
        fail=1
        continue
    fi
    if ! awk -F, -v name="$name" '
        function is_zero(v) { return v == "" || v + 0 == 0 }
        FNR == 1 && NR == 1 { for (i = 1; i <= NF; i++) gcol[$i] = i; gn = NF; split($0, ghead, ","); next }
        NR == FNR { grow[$1] = $0; next }
        FNR == 1 { for (i = 1; i <= NF; i++) ncol[$i] = i; next }
        { nrow[$1] = $0; nrows++ }
        END {
            bad = 0
            for (id in grow) {
                if (!(id in nrow)) { printf "FAIL %s: run %s missing\n", name, id; bad++; continue }
                split(grow[id], gv, ","); split(nrow[id], nv, ",")
                for (i = 1; i <= gn; i++) {
                    c = ghead[i]
                    if (c == "config_hash" || c == "events" || c == "row_fnv1a64") continue
                    if (c in ncol) {
                        v = nv[ncol[c]]
                        if (v == gv[i] || (v == "" && is_zero(gv[i]))) continue
                        printf "FAIL %s: run %s %s = %s, golden %s\n", name, id, c, v, gv[i]
                        bad++
                    } else if (!is_zero(gv[i])) {
                        printf "FAIL %s: run %s has no column %s (golden %s)\n", name, id, c, gv[i]
                        bad++
                    }
                }
            }
            if (nrows != length(grow)) { printf "FAIL %s: %d runs, golden %d\n", name, nrows, length(grow); bad++ }
            exit bad ? 1 : 0
        }' "$g" "$tmp/$name/runs.csv"; then
        echo "     (a deliberate change of the model: tests/golden/regen.sh $name, and say in"
        echo "     the commit which numbers moved and why)"
        fail=1
    else
        echo "ok $name"
    fi
done
exit $fail
