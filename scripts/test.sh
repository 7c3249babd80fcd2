#!/usr/bin/env bash
# Runs pfarchive's whole test suite on a fresh machine: installs what is missing
# (scripts/setup.sh), builds, and runs `swift test` with the Python peers on hand.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PFARCHIVE_PYTHON="$PWD/.venv/bin/python"
# A crash in a child process must not hang in the Swift backtracer.
export SWIFT_BACKTRACE=enable=no
swift build --build-tests
swift test --skip-build "$@"
