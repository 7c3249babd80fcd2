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
# A library user's view (Examples/StoreConsumer, a package of its own that depends on this one by
# path): it resolves from this package's pins (Package.resolved, written by the build above), so
# it builds the same versions from the same local mirrors; then it writes and reads a SQLite store.
cp Package.resolved Examples/StoreConsumer/Package.resolved
swift build --package-path Examples/StoreConsumer --only-use-versions-from-resolved-file
consumer_out=$(mktemp -d)
Examples/StoreConsumer/.build/debug/StoreConsumer "$consumer_out/consumer.sqlite"
rm -rf "$consumer_out"
