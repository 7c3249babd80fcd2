#!/usr/bin/env bash
# Regenerates Samples/codegen/Models from the sample export with `pfarchive codegen`, then
# builds and runs the sample that uses the generated types:
#   bash Samples/codegen/generate.sh
# (PFCodegenTests checks that the committed Models/ is what codegen writes today.)
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product pfarchive
rm -rf Samples/codegen/Models
.build/debug/pfarchive codegen Samples/data/scores.json --out Samples/codegen/Models --single-file
swift run sample-codegen
