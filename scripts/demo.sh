#!/usr/bin/env bash
# Runs pfarchive's main job on the built-in sample: a Parse-style JSON export converted to a
# binary property list, to gzip-compressed CBOR and back to JSON, then inspected.
# Outputs go to out/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --no-python
swift build --product pfarchive >/dev/null
pfarchive="$(swift build --show-bin-path)/pfarchive"
mkdir -p out
set -x
"$pfarchive" convert Samples/data/scores.json out/scores.bplist
"$pfarchive" convert out/scores.bplist out/scores.cbor.gz
"$pfarchive" convert out/scores.cbor.gz out/scores.xml --to xmlplist
"$pfarchive" convert out/scores.xml out/scores.json --pretty
"$pfarchive" inspect out/scores.cbor.gz --path 'results[1]'
"$pfarchive" inspect out/scores.bplist --path 'results[0].lastPlayed' --json
