#!/usr/bin/env bash
# Codegen over a large synthetic Parse export: wall time and peak RSS of
# `pfarchive codegen` (release build), which reads every object once and keeps only per-field
# statistics.
#   bash Benchmarks/codegen-bench.sh [N]      # N objects, default 1,000,000 (~795 MB of JSON)
# The export is generated into a temporary directory and removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
bin=${PFARCHIVE_BIN:-.build-release/release/pfarchive}
[ -x "$bin" ] || { echo "build it first: swift build -c release --scratch-path .build-release --product pfarchive" >&2; exit 2; }
python=${PFARCHIVE_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/export"
"$python" Benchmarks/data/gen_parse_export.py "$n" "$work/export/GameScore.json" >/dev/null
bytes=$(stat -c %s "$work/export/GameScore.json")
/usr/bin/time -f '%e s wall, %M KiB peak RSS' -o "$work/time" \
    "$bin" codegen "$work/export" --out "$work/Models" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
echo "codegen over $n objects ($bytes bytes of JSON): $(cat "$work/time")"
cat "$work/out"
grep -c 'conflict' "$work/err" | sed 's/^/conflicts reported: /'
