#!/bin/sh
# Times `pfarchive import SOURCE out.sqlite` (release build) on a generated store and reports
# objects/s and peak memory (/usr/bin/time -v). See Docs/Benchmarks.md, "Import".
#
# usage: Benchmarks/import-bench.sh [--objects N] [--source export|sqlite] [--jobs N] [--work DIR] [--keep]
#        Benchmarks/import-bench.sh --to postgres [--objects N[,N…]] [--postgres URL] [--jobs N] [--work DIR]
#   --to postgres    imports into PostgreSQL instead (a new database per run, dropped afterwards),
#                    then loads the very same rows (the imported table written out with
#                    `psql \copy … TO`) into an identical new table with `psql \copy … FROM`, back
#                    to back, and prints both rates and their ratio. Default --objects 100000,1000000.
#                    With the server on this machine it also prints the CPU time of the server
#                    process serving each load (its /proc/PID/stat, sampled every 0.1 s).
#                    --postgres URL: a server URL (postgres://user@host:port/db); default: the
#                    server of scripts/postgres.sh (started, and stopped at the end, if none runs).
#   --source export  a Parse export directory holding GameScore.json from
#                    Benchmarks/data/gen_parse_export.py (1,000,000 objects: about 795 MB)
#   --jobs N         threads parsing the export's rows (pfarchive import --jobs; default: its own, one less than the cores)
#   --source sqlite  the same shape of objects as a pfarchive SQLite store, built with the
#                    sqlite3 shell (measures the SQLite reader and writer alone)
# Generated data goes to --work (default /tmp/pfarchive-import-bench), never into the repo.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
objects=1000000
source=export
work=/tmp/pfarchive-import-bench
keep=no
jobs=
to=sqlite
pgurl=
while [ $# -gt 0 ]; do
    case "$1" in
    --to) to=$2; shift 2 ;;
    --postgres) pgurl=$2; shift 2 ;;
    --objects) objects=$2; objects_given=yes; shift 2 ;;
    --source) source=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --keep) keep=yes; shift ;;
    *) echo "usage: $0 [--objects N] [--source export|sqlite] [--jobs N] [--work DIR] [--keep] [--to sqlite|postgres] [--postgres URL]" >&2; exit 2 ;;
    esac
done
bin=${PFARCHIVE:-$root/.build-release/release/pfarchive}
if [ ! -x "$bin" ]; then
    echo "build first: swift build -c release --scratch-path .build-release --product pfarchive" >&2
    exit 2
fi
mkdir -p "$work"

if [ "$to" = postgres ]; then
    [ "${objects_given:-no}" = yes ] || objects=100000,1000000
    started=no
    if [ -z "$pgurl" ]; then
        pgurl=$(bash "$root/scripts/postgres.sh" url 2>/dev/null) && psql "$pgurl" -qAtc 'select 1' >/dev/null 2>&1 || {
            pgurl=$(bash "$root/scripts/postgres.sh" start); started=yes; }
    fi
    base=${pgurl%/*}
    cleanup() {
        for db in pfbench_import pfbench_copy; do psql "$base/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done
        rm -f "$work/rows.tsv" "$work/table.sql" "$work"/server-pfbench_*.txt*
        [ "$started" = no ] || bash "$root/scripts/postgres.sh" stop
    }
    trap cleanup EXIT
    pg_dump=$(ls -d /usr/lib/postgresql/*/bin/pg_dump 2>/dev/null | sort -V | tail -n 1)
    # Writes to file $2, every 0.1 s until it is stopped, the CPU seconds so far of the server
    # process serving database $1 (its /proc/PID/stat: only for a server on this machine).
    sample_server_cpu() {
        b=
        while [ -z "$b" ]; do
            b=$(psql "$base/postgres" -qAtc "select pid from pg_stat_activity where datname = '$1' and backend_type = 'client backend'" 2>/dev/null | head -n 1)
            [ -n "$b" ] || sleep 0.05
        done
        hz=$(getconf CLK_TCK)
        while awk -v hz="$hz" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$b/stat" > "$2.new" 2>/dev/null; do
            mv "$2.new" "$2"
            sleep 0.1
        done
    }
    # Runs a load (the rest of the arguments) while sampling database $1's server process into
    # $work/server-$1.txt.
    sampled() {
        db=$1; shift
        echo "?" > "$work/server-$db.txt"
        sample_server_cpu "$db" "$work/server-$db.txt" &
        sampler=$!
        status=0
        "$@" || status=$?
        kill "$sampler" 2>/dev/null || true
        wait "$sampler" 2>/dev/null || true
        return $status
    }
    psql "$base/postgres" -qAtc 'select version()'
    for n in $(echo "$objects" | tr ',' ' '); do
        src="$work/export-$n"
        if [ ! -s "$src/GameScore.json" ]; then
            mkdir -p "$src"
            python3 "$here/data/gen_parse_export.py" "$n" "$src/GameScore.json"
        fi
        for db in pfbench_import pfbench_copy; do
            psql "$base/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
        done
        # 1. pfarchive import (a Parse export: reads and parses the JSON, checks, writes by COPY).
        sampled pfbench_import /usr/bin/time -v "$bin" import "$src" "$base/pfbench_import" ${jobs:+--jobs "$jobs"} --json \
            > "$work/report.json" 2> "$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
        import_server=$(cat "$work/server-pfbench_import.txt")
        # 2. The very same rows, as PostgreSQL prints them, into an identical table by psql \copy.
        psql "$base/pfbench_import" -qc '\copy "GameScore" TO '"'$work/rows.tsv'"
        "$pg_dump" --schema-only --no-owner -t '"GameScore"' "$base/pfbench_import" > "$work/table.sql"
        psql "$base/pfbench_copy" -q -v ON_ERROR_STOP=1 -f "$work/table.sql" >/dev/null
        t0=$(date +%s.%N)
        sampled pfbench_copy psql "$base/pfbench_copy" -q -v ON_ERROR_STOP=1 -c '\copy "GameScore" FROM '"'$work/rows.tsv'"
        t1=$(date +%s.%N)
        copy_server=$(cat "$work/server-pfbench_copy.txt")
        copied=$(psql "$base/pfbench_copy" -qAtc 'select count(*) from "GameScore"')
        imported=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totalObjects'])" "$work/report.json")
        python3 - "$imported" "$copied" "$t0" "$t1" "$work/time.txt" "$(du -sh "$src/GameScore.json" | cut -f1)" "$import_server" "$copy_server" <<'PY'
import re, sys
n, copied, t0, t1, timefile, size = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
import_server, copy_server = sys.argv[7], sys.argv[8]
text = open(timefile).read()
wall = re.search(r"Elapsed \(wall clock\) time.*: (.*)", text).group(1).split(":")
seconds = sum(float(p) * 60 ** i for i, p in enumerate(reversed(wall)))
cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): (.*)", text))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
c = t1 - t0
print(f"{n:,} GameScore objects ({size} export): pfarchive import {seconds:.2f} s = {n / seconds:,.0f} objects/s "
      f"({cpu:.2f} CPU s, peak RSS {rss / 1024:.0f} MB, server {import_server} CPU s); psql \\copy of the same {copied:,} rows "
      f"{c:.2f} s = {copied / c:,.0f} rows/s (server {copy_server} CPU s); import/\\copy = {(n / seconds) / (copied / c):.2f}")
PY
    done
    exit 0
fi

case "$source" in
export)
    src="$work/export-$objects"
    if [ ! -s "$src/GameScore.json" ]; then
        mkdir -p "$src"
        python3 "$here/data/gen_parse_export.py" "$objects" "$src/GameScore.json"
    fi
    ;;
sqlite)
    src="$work/source-$objects.sqlite"
    if [ ! -s "$src" ]; then
        rm -f "$src"
        sqlite3 "$src" <<SQL
PRAGMA application_id = 1346781554; PRAGMA user_version = 1; PRAGMA journal_mode = OFF;
CREATE TABLE "_TABLES" (name TEXT NOT NULL PRIMARY KEY, tableName TEXT NOT NULL UNIQUE COLLATE NOCASE,
  kind TEXT NOT NULL, owningClass TEXT, field TEXT, targetClass TEXT);
CREATE TABLE "_SCHEMA" (className TEXT NOT NULL, field TEXT NOT NULL, type TEXT NOT NULL, targetClass TEXT,
  columnName TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (className, field));
INSERT INTO _TABLES VALUES ('GameScore', 'GameScore', 'class', NULL, NULL, NULL);
INSERT INTO _SCHEMA VALUES ('GameScore','score','Number',NULL,'score',0), ('GameScore','playerName','String',NULL,'playerName',1),
  ('GameScore','cheatMode','Boolean',NULL,'cheatMode',2), ('GameScore','accuracy','Number',NULL,'accuracy',3),
  ('GameScore','level','Number',NULL,'level',4), ('GameScore','tags','Array',NULL,'tags',5),
  ('GameScore','history','Array',NULL,'history',6), ('GameScore','position','Object',NULL,'position',7),
  ('GameScore','stats','Object',NULL,'stats',8), ('GameScore','lastPlayed','Date',NULL,'lastPlayed',9),
  ('GameScore','player','Pointer','_User','player',10), ('GameScore','game','Pointer','Game','game',11),
  ('GameScore','comment','String',NULL,'comment',12);
CREATE TABLE "GameScore" ("objectId" TEXT UNIQUE, "createdAt" INTEGER, "updatedAt" INTEGER, "ACL" TEXT, "_extra" TEXT,
  "score", "playerName" TEXT, "cheatMode" INTEGER, "accuracy", "level", "tags" TEXT, "history" TEXT,
  "position" TEXT, "stats" TEXT, "lastPlayed" INTEGER, "player" TEXT, "game" TEXT, "comment" TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $objects)
INSERT INTO GameScore SELECT printf('gs%08d', i), 1577836800000 + i * 97, 1577836800000 + i * 101,
  '{"*":{"read":true},"u' || (i % 100000) || '":{"read":true,"write":true}}', NULL,
  (i * 7919) % 1000000, 'Zoë García ' || i, i % 10 = 0, ((i * 7) % 10000) / 100.0 + 0.25, 1 + i % 99,
  '["ranked","daily","event-🎉"]', '[1,-20,300,4000]',
  '{"x":' || (i % 2000 - 1000.5) || ',"y":12.75,"zone":"北区-' || (i % 19) || '"}',
  '{"kills":' || (i % 500) || ',"deaths":12,"ratio":2.125,"weapons":[{"name":"sword","uses":' || (i % 1000) || '}]}',
  1577836800000 + i * 13, 'u' || (i % 100000), 'g' || (i % 50),
  'great game again 😀 "quoted" tab	here café ' || i FROM n;
SQL
    fi
    ;;
*) echo "--source must be export or sqlite" >&2; exit 2 ;;
esac

out="$work/out.sqlite"
rm -f "$out"
du -sh "$src"
/usr/bin/time -v "$bin" import "$src" "$out" ${jobs:+--jobs "$jobs"} --json > "$work/report.json" 2> "$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time.txt")
rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time.txt")
cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/time.txt")
imported=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totalObjects'])" "$work/report.json")
python3 - "$imported" "$seconds" "$rss" "$cpu" <<PY
import sys
n, s, rss, cpu = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
print(f"source: $source, {n} objects imported in {s:.2f} s: {n / s:,.0f} objects/s, "
      f"{cpu:.2f} CPU s ({n / cpu:,.0f} objects per CPU second), peak RSS {rss / 1024:.0f} MB")
PY
ls -l "$out" | awk '{ print "out.sqlite:", $5, "bytes" }'
[ "$keep" = yes ] || rm -f "$out"
