#!/bin/sh
# Times `pfarchive diff` (release build) on two generated Parse exports that differ in one field of
# 1% of their objects, against Python's deepdiff and jsondiff on the same JSON files, in one run,
# with each side's peak memory (/usr/bin/time -v). See Docs/Benchmarks.md, "diff".
#
# usage: Benchmarks/diff-bench.sh [--objects N] [--work DIR] [--peers "deepdiff jsondiff"] [--base BIN] [--keep]
# Generated data goes to --work (default /tmp/pfarchive-diff-bench), never into the repo; the
# peers (pinned in Benchmarks/python-bench.txt) are installed into .venv when missing.
# --base BIN also times another pfarchive build (an older main) in the same run and checks
# that its output is the same byte for byte. The load average is printed before and after.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
objects=1000000
work=/tmp/pfarchive-diff-bench
peers="jsondiff deepdiff"
keep=no
base=
while [ $# -gt 0 ]; do
    case "$1" in
    --objects) objects=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --keep) keep=yes; shift ;;
    *) echo "usage: $0 [--objects N] [--work DIR] [--peers \"deepdiff jsondiff\"] [--base BIN] [--keep]" >&2; exit 2 ;;
    esac
done
bin=${PFARCHIVE:-$root/.build-release/release/pfarchive}
if [ ! -x "$bin" ]; then
    echo "build first: swift build -c release --scratch-path .build-release --product pfarchive" >&2
    exit 2
fi
python=$root/.venv/bin/python
[ -x "$python" ] || { echo "run scripts/setup.sh first (it makes .venv)" >&2; exit 2; }
if ! "$python" -c 'import deepdiff, jsondiff' 2>/dev/null; then
    "$python" -m pip install -q --disable-pip-version-check -r "$here/python-bench.txt"
fi
mkdir -p "$work"
a="$work/a-$objects" b="$work/b-$objects"
if [ ! -s "$a/GameScore.json" ] || [ ! -s "$b/GameScore.json" ]; then
    "$python" "$here/data/gen_diff_pair.py" "$objects" "$a" "$b"
fi
size=$(wc -c < "$a/GameScore.json")
echo "two exports of $objects GameScore objects ($size bytes each), one field changed in 1% of them"

measure() { # label, command...
    label=$1; shift
    /usr/bin/time -v "$@" > "$work/out.txt" 2> "$work/time.txt" || true
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
    user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
    sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
    printf '%-34s wall %9s  user %8s s  sys %6s s  peak %6d MB  %s\n' "$label" "$wall" "$user" "$sys" $((rss / 1024)) "$(tail -n 1 "$work/out.txt")"
}
echo "load: $(uptime)"
if [ -n "$base" ]; then
    measure "pfarchive diff, base build" "$base" diff "$a" "$b"
    mv "$work/out.txt" "$work/base-out.txt"
fi
measure "pfarchive diff (export dirs)" "$bin" diff "$a" "$b"
if [ -n "$base" ]; then
    if cmp -s "$work/base-out.txt" "$work/out.txt"; then echo "output: the same byte for byte as the base build's"; else echo "output: DIFFERS from the base build's"; fi
fi
for peer in $peers; do
    measure "$peer (json.load, keyed by id)" "$python" "$here/diff_peers.py" "$peer" "$a/GameScore.json" "$b/GameScore.json"
done
echo "load: $(uptime)"
[ "$keep" = yes ] || rm -rf "$work"
