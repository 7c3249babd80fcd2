#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests (the recipe of ../shared/notes/postgres.md):
# initdb in a temporary directory as the `postgres` user (PostgreSQL refuses to run as root),
# trust authentication, listening on 127.0.0.1 only, on a free port.
#
#   scripts/postgres.sh start   # starts it; prints its URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   scripts/postgres.sh url     # prints the URL of the running server
#   scripts/postgres.sh stop    # stops it and removes its directory
#
# The state (directory and port) is kept in .build/postgres-test.state so `stop` finds it.
set -euo pipefail
cd "$(dirname "$0")/.."
state=.build/postgres-test.state

find_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$dir" ] || [ ! -x "$dir/initdb" ]; then
    echo "postgres.sh: no PostgreSQL server found under /usr/lib/postgresql (run scripts/setup.sh)" >&2
    return 1
  fi
  echo "$dir"
}

# Runs a command as the postgres user when we are root, as ourselves otherwise.
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  local port=55432
  while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

url_of() { echo "postgres://postgres@127.0.0.1:$1/postgres"; }

case "${1:-}" in
  start)
    if [ -f "$state" ]; then
      . "$state"
      if as_postgres "$PG/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then url_of "$PORT"; exit 0; fi
      rm -rf "$DIR"; rm -f "$state"
    fi
    PG=$(find_bin)
    DIR=$(mktemp -d /tmp/pfarchive-pg.XXXXXX)
    [ "$(id -u)" -eq 0 ] && chown postgres "$DIR"
    PORT=$(free_port)
    mkdir -p .build
    printf 'PG=%q\nDIR=%q\nPORT=%q\n' "$PG" "$DIR" "$PORT" >"$state"
    as_postgres "$PG/initdb" -D "$DIR/data" -A trust -U postgres >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; exit 1; }
    as_postgres "$PG/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w \
      -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1" start >/dev/null \
      || { cat "$DIR/log" >&2; exit 1; }
    url_of "$PORT"
    ;;
  url)
    [ -f "$state" ] || { echo "postgres.sh: no server started (run scripts/postgres.sh start)" >&2; exit 1; }
    . "$state"; url_of "$PORT"
    ;;
  stop)
    [ -f "$state" ] || exit 0
    . "$state"
    as_postgres "$PG/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$DIR"; rm -f "$state"
    ;;
  *)
    echo "usage: scripts/postgres.sh start|stop|url" >&2; exit 2
    ;;
esac
