#!/bin/sh
# Regenerate the golden runs of tests/check_golden.sh: replica 0 of every
# shipped configuration (run with --replicas 1), as runs.csv.
# Only after a deliberate change of the model: say in the commit which
# numbers moved and why.   Usage: tests/golden/regen.sh [TASKNET]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=${1:-$top/tasknet}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$top"/configs/paper/*.xml "$top"/configs/examples/*.xml; do
    name=$(basename "$(dirname "$f")")-$(basename "$f" .xml)
    "$bin" run "$f" --replicas 1 -q -j 2 --out "$tmp/$name"
    cp "$tmp/$name/runs.csv" "$here/$name.csv"
done
