#!/bin/sh
# Regenerate the golden runs of tests/check_golden.sh: replica 0 of every
# shipped configuration (run with --replicas 1 and the extra arguments of
# tests/golden/NAME.args, if any), as runs.csv.
# Only after a deliberate change of the model: say in the commit which
# numbers moved and why.
# Usage: tests/golden/regen.sh [--bin TASKNET] [NAME...]
#   NAME is a golden file's name without .csv (examples-incast); without
#   names every configuration is regenerated.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$top/tasknet
if [ "${1:-}" = --bin ]; then bin=$2; shift 2; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then
    set --
    for f in "$top"/configs/paper/*.xml "$top"/configs/examples/*.xml; do
        set -- "$@" "$(basename "$(dirname "$f")")-$(basename "$f" .xml)"
    done
fi
has_otf2=no
"$bin" params 2>/dev/null | grep -q '^workload.type="mpi-trace"' && has_otf2=yes
for name; do
    f=$top/configs/${name%%-*}/${name#*-}.xml
    [ -f "$f" ] || { echo "regen.sh: no configuration $f for $name" >&2; exit 2; }
    if [ $has_otf2 = no ] && grep -q 'type="mpi-trace"' "$f"; then
        echo "regen.sh: $name kept: $bin was built without OTF2" >&2
        continue
    fi
    args=
    [ -f "$here/$name.args" ] && args=$(cat "$here/$name.args")
    # shellcheck disable=SC2086 # args is a list of words
    "$bin" run "$f" --replicas 1 -q -j 2 $args --out "$tmp/$name"
    cp "$tmp/$name/runs.csv" "$here/$name.csv"
done
