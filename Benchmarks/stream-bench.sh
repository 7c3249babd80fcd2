#!/bin/sh
# Peak RSS (/usr/bin/time -v) and wall time of `pfarchive convert` on a generated Parse export
# (release build): the streamed routes (JSON -> JSON Lines -> JSON, -> CBOR sequence, JSON
# Lines -> Parse class file; JSON -> one CBOR document, XML plist or binary plist, a record at a
# time; and those documents back to JSON, read a record at a time).
# See Docs/Benchmarks.md, "Streaming conversions".
#
# usage: Benchmarks/stream-bench.sh [--objects N] [--lines-objects N] [--work DIR]
#   --objects N        objects in the export (default 250000: about 200 MB)
#   --lines-objects N  objects in the JSON Lines file converted to a Parse class file
#                      (default 1250000: about 1 GB)
# Generated data goes to --work (default /tmp/pfarchive-stream-bench), never into the repo.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
objects=250000
lines_objects=1250000
work=/tmp/pfarchive-stream-bench
while [ $# -gt 0 ]; do
    case "$1" in
    --objects) objects=$2; shift 2 ;;
    --lines-objects) lines_objects=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "usage: $0 [--objects N] [--lines-objects N] [--work DIR]" >&2; exit 2 ;;
    esac
done
bin=${PFARCHIVE:-$root/.build-release/release/pfarchive}
if [ ! -x "$bin" ]; then
    echo "build first: swift build -c release --scratch-path .build-release --product pfarchive" >&2
    exit 2
fi
mkdir -p "$work"
export PFARCHIVE_NO_PROGRESS=1
[ -f "$work/export.json" ] || python3 "$here/data/gen_parse_export.py" "$objects" "$work/export.json"

# run LABEL ARGS…: one conversion, its time and peak RSS.
run() {
    label=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" convert "$@" >/dev/null 2>"$work/err.txt" || {
        printf '%-34s failed: %s\n' "$label" "$(head -c 200 "$work/err.txt")"; return 0; }
    read -r seconds kb <"$work/time.txt"
    printf '%-34s %8.2f s %8d MB peak RSS\n' "$label" "$seconds" $((kb / 1024))
}

size=$(wc -c <"$work/export.json")
echo "export: $objects objects, $((size / 1000000)) MB ($bin)"
echo "-- streamed"
run "JSON -> JSONL" "$work/export.json" "$work/export.jsonl"
run "JSONL -> JSON" "$work/export.jsonl" "$work/back.json"
run "JSON -> CBOR sequence" "$work/export.json" "$work/export.cborseq"
run "CBOR sequence -> JSONL" "$work/export.cborseq" "$work/back.jsonl"
cmp -s "$work/export.jsonl" "$work/back.jsonl" || echo "MISMATCH: JSONL -> CBOR sequence -> JSONL"
echo "-- one CBOR document, XML or binary property list, written a record at a time"
run "JSON -> CBOR" "$work/export.json" "$work/export.cbor"
run "JSON -> XML plist" "$work/export.json" "$work/export.plist"
run "JSON -> bplist" "$work/export.json" "$work/export.bplist"
echo "-- documents of records read a record at a time"
run "bplist -> JSON" "$work/export.bplist" "$work/back2.json" --max-memory 100000000000
run "CBOR -> JSON" "$work/export.cbor" "$work/back3.json" --max-memory 100000000000
run "XML plist -> JSON" "$work/export.plist" "$work/back4.json" --max-memory 100000000000
run "bplist -> CBOR" "$work/export.bplist" "$work/back5.cbor" --max-memory 100000000000
# (XML plist -> JSON differs from these by what XML cannot carry, as the whole-tree route does.)
cmp -s "$work/back2.json" "$work/back3.json" || echo "MISMATCH: bplist -> JSON vs CBOR -> JSON"
rm -f "$work/export.plist" "$work/export.bplist" "$work/export.cbor" "$work/back2.json" "$work/back3.json" "$work/back4.json" "$work/back5.cbor" "$work/back.json"

# A ~1 GB JSON Lines file: the export's lines repeated (objectIds made unique per copy).
if [ ! -f "$work/big.jsonl" ]; then
    python3 - "$work/export.jsonl" "$work/big.jsonl" "$objects" "$lines_objects" <<'PY'
import sys
src, dst, n, want = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = open(src, encoding="utf-8").read().splitlines()
with open(dst, "w", encoding="utf-8") as out:
    copy = 0
    written = 0
    while written < want:
        for line in lines:
            if written >= want: break
            out.write(line.replace('"objectId":"', '"objectId":"c%d' % copy, 1) + "\n")
            written += 1
        copy += 1
PY
fi
echo "-- $(($(wc -c <"$work/big.jsonl") / 1000000)) MB of JSON Lines"
run "JSONL -> Parse class file" "$work/big.jsonl" "$work/GameScore.json" --to parse
rm -f "$work/GameScore.json"
