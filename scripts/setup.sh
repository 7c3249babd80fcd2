#!/usr/bin/env bash
# Installs what pfarchive needs on a fresh Debian machine, idempotently:
#   - the C libraries json-c, zlib and SQLite (development packages) when pkg-config cannot find them;
#   - a PostgreSQL server (Debian's `postgresql`) for the PostgreSQL store's tests, when none is
#     installed (scripts/postgres.sh runs a throw-away one);
#   - a Python virtual environment in .venv with the peers the interop tests run.
# Pass --no-python to skip the virtual environment (the demo does not need it).
set -euo pipefail
cd "$(dirname "$0")/.."

want_python=1
[ "${1:-}" = "--no-python" ] && want_python=0

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
pkg-config --exists json-c 2>/dev/null || missing+=(libjson-c-dev)
pkg-config --exists zlib 2>/dev/null || missing+=(zlib1g-dev)
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
if [ "$want_python" = 1 ] && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
pkg-config --exists json-c zlib sqlite3 || { echo "setup: pkg-config still cannot find json-c, zlib and sqlite3" >&2; exit 1; }

if [ "$want_python" = 1 ]; then
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  # Reinstall whenever the pinned list changes (a stamp holds the list it was installed from).
  if ! cmp -s scripts/python-peers.txt .venv/.python-peers.installed; then
    echo "setup: installing the Python peers into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r scripts/python-peers.txt
    cp scripts/python-peers.txt .venv/.python-peers.installed
  fi
fi

# pytypedstream's source distribution carries real typedstream files made by Apple's
# NSArchiver (tests/data/). They are not ours to commit, so the typedstream interop tests
# read them from .venv/pytypedstream-sdist and fail with a pointer here when it is absent.
if [ "$want_python" = 1 ] && [ ! -d .venv/pytypedstream-sdist/pytypedstream-0.1.0 ]; then
  echo "setup: downloading pytypedstream's source distribution (real typedstream samples)"
  .venv/bin/python -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
    pytypedstream==0.1.0 -d .venv/pytypedstream-sdist
  tar -xzf .venv/pytypedstream-sdist/pytypedstream-0.1.0.tar.gz -C .venv/pytypedstream-sdist
fi
