#!/bin/sh
# Issue 24: reads a generated SQLite database (not a pfarchive store) whose table holds a
# binary plist per row, and reports, in the same run:
#   - Python: sqlite3 + plistlib.loads over the column (the one-off script a forensic user writes);
#   - pfarchive convert DB OUT.jsonl --table item --decode-blobs (read, decode, write JSON lines);
#   - pfarchive import DB out.sqlite --decode-blobs (read, decode, write pfarchive's SQLite store);
# each with rows/s, CPU time (user + system) and peak memory (/usr/bin/time -v), and pfarchive's
# speed against Python's, by the wall clock and by CPU time (pfarchive decodes on every core).
# See Docs/SQLite.md, "Performance", and Docs/Benchmarks.md.
#
# usage: Benchmarks/sqlite-bench.sh [--rows N] [--work DIR] [--bin PFARCHIVE] [--keep]
#   --rows N   rows in the table (default 1000000)
#   --bin P    the pfarchive binary to measure (default $PFARCHIVE, else the release build), so
#              one build's figures can be taken before and after another is built
# Generated data goes to --work (default /tmp/pfarchive-sqlite-bench), never into the repo.
# Needs the release build (swift build -c release --scratch-path .build-release --product pfarchive)
# and python3 (the repository's .venv or $PFARCHIVE_PYTHON when set).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rows=1000000
work=/tmp/pfarchive-sqlite-bench
keep=no
bin=${PFARCHIVE:-$root/.build-release/release/pfarchive}
while [ $# -gt 0 ]; do
    case "$1" in
    --rows) rows=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --keep) keep=yes; shift ;;
    *) echo "usage: $0 [--rows N] [--work DIR] [--bin PFARCHIVE] [--keep]" >&2; exit 2 ;;
    esac
done
if [ ! -x "$bin" ]; then
    echo "build first: swift build -c release --scratch-path .build-release --product pfarchive" >&2
    exit 2
fi
python=${PFARCHIVE_PYTHON:-$root/.venv/bin/python}
[ -x "$python" ] || python=python3
mkdir -p "$work"
db="$work/bench-$rows.db"
if [ ! -f "$db" ]; then
    echo "generating $db ($rows rows, one binary plist each)" >&2
    "$python" - "$db" "$rows" <<'PY'
import sys, sqlite3, plistlib, datetime
path, n = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(path)
c.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, payload BLOB)")
base = datetime.datetime(2023, 3, 8, 20, 26, 40)
def rows():
    for i in range(n):
        p = {"id": i, "title": "item %d" % i, "tags": ["a", "b", str(i % 7)], "score": i * 0.5,
             "ok": i % 2 == 0, "when": base + datetime.timedelta(seconds=i), "meta": {"n": i % 100, "s": "x" * (i % 13)}}
        yield (i + 1, "row %d" % i, plistlib.dumps(p, fmt=plistlib.FMT_BINARY))
c.executemany("INSERT INTO item VALUES (?, ?, ?)", rows())
c.commit()
PY
fi
size=$(du -k "$db" | cut -f1)
echo "database: $db, $rows rows, $((size / 1024)) MiB"

measure() { # label, command...: prints "label seconds peakMiB cpuSeconds" (CPU: user + system)
    label=$1; shift
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
    peak=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
    cpu=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { print s }' "$work/time.txt")
    echo "$label $wall $((peak / 1024)) $cpu"
}

py=$(measure python "$python" -c '
import sys, sqlite3, plistlib
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
n = 0
for (blob,) in c.execute("SELECT payload FROM item ORDER BY id"):
    plistlib.loads(blob)
    n += 1
print(n)
' "$db")
rm -rf "$work/out.jsonl" "$work/out.sqlite"
cv=$(measure convert "$bin" convert "$db" "$work/out.jsonl" --table item --decode-blobs)
im=$(measure import "$bin" import "$db" "$work/out.sqlite" --decode-blobs)
lines=$(wc -l < "$work/out.jsonl")
[ "$lines" -eq "$rows" ] || { echo "convert wrote $lines lines, expected $rows" >&2; exit 1; }

echo "$py
$cv
$im" | awk -v rows="$rows" '
    { t[$1] = $2; m[$1] = $3; c[$1] = $4 }
    END {
        printf "%-48s %10s %12s %10s %10s\n", "", "seconds", "rows/s", "CPU s", "peak MiB"
        printf "%-48s %10.2f %12.0f %10.2f %10d\n", "Python sqlite3 + plistlib.loads (decode only)", t["python"], rows / t["python"], c["python"], m["python"]
        printf "%-48s %10.2f %12.0f %10.2f %10d\n", "pfarchive convert --table --decode-blobs", t["convert"], rows / t["convert"], c["convert"], m["convert"]
        printf "%-48s %10.2f %12.0f %10.2f %10d\n", "pfarchive import --decode-blobs (into .sqlite)", t["import"], rows / t["import"], c["import"], m["import"]
        printf "wall clock: convert is %.1fx Python, import %.1fx (goal: 5x); CPU time (user + system): convert %.1fx, import %.1fx; peak memory %s\n", t["python"] / t["convert"], t["python"] / t["import"], c["python"] / c["convert"], c["python"] / c["import"], (m["convert"] < 200 && m["import"] < 200) ? "under 200 MB" : "OVER 200 MB"
    }'
[ "$keep" = yes ] || rm -rf "$work/out.jsonl" "$work/out.sqlite"
