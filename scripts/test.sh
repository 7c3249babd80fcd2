#!/usr/bin/env bash
# Runs pfarchive's whole test suite on a fresh machine: installs what is missing
# (scripts/setup.sh), builds, and runs `swift test` with the Python peers on hand and a
# throw-away PostgreSQL server (scripts/postgres.sh) whose URL is in PFARCHIVE_POSTGRES_URL;
# the server is stopped and its directory removed when the script exits, even on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PFARCHIVE_PYTHON="$PWD/.venv/bin/python"
# A crash in a child process must not hang in the Swift backtracer.
export SWIFT_BACKTRACE=enable=no
# Every target imports exactly the modules Package.swift declares for it (and no more).
bash scripts/check-imports.sh
swift build --build-tests
trap 'bash scripts/postgres.sh stop' EXIT
if url=$(bash scripts/postgres.sh start); then
  export PFARCHIVE_POSTGRES_URL="$url"
else
  echo "test: no PostgreSQL server could start; the PostgreSQL store's server tests will be skipped" >&2
fi
swift test --skip-build "$@"
