#!/bin/sh
# Results do not move by accident: replica 0 of every shipped configuration
# (configs/paper, configs/examples) must give the numbers stored in
# tests/golden/ (written by tests/golden/regen.sh from the model as it was).
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
    if ! "$bin" run "$f" --replicas 1 -q -j 2 --out "$tmp/$name" >"$tmp/$name.log" 2>&1; then
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
        fail=1
    else
        echo "ok $name"
    fi
done
exit $fail
