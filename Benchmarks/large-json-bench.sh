#!/bin/sh
# Peak RSS (/usr/bin/time -v) and CPU time of `pfarchive convert` on JSON documents that are
# not a sequence of records — canada (a GeoJSON feature collection), citm_catalog (an object
# of large maps) and twitter ({"statuses":[…],…}) scaled to about 150 MB — to JSON, CBOR, XML
# and binary property lists, for two binaries alternately (a base build and this one), with
# the load average (nulls dropped for the property lists). Each output of the new binary is compared with the base's (`cmp`; a binary
# property list by reading both back to JSON). See Docs/Benchmarks.md, "Streaming conversions".
#
# usage: Benchmarks/large-json-bench.sh BASE_BINARY [NEW_BINARY] [--megabytes N] [--work DIR]
# Generated data goes to --work (default /tmp/pfarchive-large-json-bench), never into the repo.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
base=$1; shift
new=$root/.build-release/release/pfarchive
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then new=$1; shift; fi
megabytes=150
work=/tmp/pfarchive-large-json-bench
while [ $# -gt 0 ]; do
    case "$1" in
    --megabytes) megabytes=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "usage: $0 BASE_BINARY [NEW_BINARY] [--megabytes N] [--work DIR]" >&2; exit 2 ;;
    esac
done
mkdir -p "$work"
export PFARCHIVE_NO_PROGRESS=1
[ -f "$work/twitter-scaled.json" ] || python3 "$here/data/gen_scaled.py" "$here/data" "$work" "$megabytes"

# run LABEL BINARY INPUT OUTPUT ARGS…: one conversion, its CPU time and peak RSS.
run() {
    label=$1; bin=$2; shift 2
    /usr/bin/time -f "%U %S %M" -o "$work/time.txt" "$bin" convert "$@" --drop-nulls --max-memory 100000000000 >/dev/null 2>"$work/err.txt" || {
        printf '%-36s failed: %s\n' "$label" "$(head -c 200 "$work/err.txt")"; return 0; }
    read -r user system kb <"$work/time.txt"
    printf '%-36s %6.2f s CPU %7d MB peak RSS   load %s\n' "$label" "$(echo "$user + $system" | bc)" $((kb / 1024)) \
        "$(cut -d' ' -f1 /proc/loadavg)"
}

for name in canada citm_catalog twitter; do
    input="$work/$name-scaled.json"
    echo "$name: $(($(wc -c <"$input") / 1000000)) MB"
    for ext in json cbor plist bplist; do
        run "  base -> $ext" "$base" "$input" "$work/base.$ext"
        run "  new  -> $ext" "$new" "$input" "$work/new.$ext"
        if [ "$ext" = bplist ]; then
            "$base" convert "$work/base.bplist" "$work/base-back.json" --max-memory 100000000000
            "$new" convert "$work/new.bplist" "$work/new-back.json" --max-memory 100000000000
            cmp -s "$work/base-back.json" "$work/new-back.json" || echo "  MISMATCH: $name bplist read back"
        else
            cmp -s "$work/base.$ext" "$work/new.$ext" || echo "  MISMATCH: $name -> $ext"
        fi
    done
    run "  base -> json --pretty" "$base" "$input" "$work/base.json" --pretty
    run "  new  -> json --pretty" "$new" "$input" "$work/new.json" --pretty
    cmp -s "$work/base.json" "$work/new.json" || echo "  MISMATCH: $name -> json --pretty"
done
