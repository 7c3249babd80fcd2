#!/bin/sh
# Issue 24: checks that two pfarchive builds read an SQLite database (not a pfarchive store)
# to the same bytes — for a change meant to make the SQLite source faster without changing
# what it writes. A database made by Python's sqlite3 holds every SQLite value kind, binary
# and XML plists (some gzip-compressed, with nested plists and Parse-like keys), JSON text,
# colliding field names (objectId, objectId_sqlite, payload_bytes), one- and two-column
# foreign keys, a WITHOUT ROWID table, and every file under Tests/Fixtures/real but the Core
# Data stores (real archives and plists and the hostile ones) as is, gzip'd and zlib'd.
# Both builds then run convert --table (each table, with and without --decode-blobs,
# --keep-blob-bytes, --date-column), convert of the whole database and import into
# pfarchive's SQLite store (--decode-blobs, --keep-blob-bytes, --strict); the JSON, the
# stores' `sqlite3 .dump`, the warnings and the exit codes must be the same bytes.
#
# usage: Benchmarks/sqlite-same-output.sh OLD_PFARCHIVE NEW_PFARCHIVE [WORK_DIR]
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OLD_PFARCHIVE NEW_PFARCHIVE [WORK_DIR]" >&2; exit 2; }
old=$1; new=$2
work=${3:-/tmp/pfarchive-sqlite-same-output}
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PFARCHIVE_PYTHON:-$root/.venv/bin/python}
[ -x "$python" ] || python=python3
mkdir -p "$work"
db="$work/cmp.db"
"$python" - "$db" "$root/Tests/Fixtures" <<'PY'
import sys, sqlite3, plistlib, gzip, zlib, json, glob, os, datetime
path, fixtures = sys.argv[1], sys.argv[2]
if os.path.exists(path): os.remove(path)
c = sqlite3.connect(path)
c.executescript('''
CREATE TABLE parent(a INTEGER, b TEXT, name TEXT, PRIMARY KEY(a, b));
CREATE TABLE kinds(id INTEGER PRIMARY KEY, "objectId" TEXT, "objectId_sqlite" TEXT, payload BLOB, payload_bytes BLOB,
  t TEXT, r REAL, n, d INTEGER, pa INTEGER, pb TEXT, "createdAt" TEXT, "ACL" TEXT, "odd name.$x" TEXT,
  FOREIGN KEY(pa, pb) REFERENCES parent(a, b));
CREATE TABLE files(name TEXT PRIMARY KEY, data BLOB, gz BLOB, z BLOB, kind_id INTEGER REFERENCES kinds(id)) WITHOUT ROWID;
CREATE TABLE plain(x, y);
''')
c.execute("INSERT INTO parent VALUES (1, 'one', 'p1'), (2, 'two', 'p2')")
base = datetime.datetime(2023, 3, 8, 20, 26, 40)
vals = [None, 0, -1, 2**63 - 1, -2**63, 1.5, -0.0, 2.5e-8, 1e300, 'text', '', 'é€😀\u0000x', '{"a": [1, 2, {"b": null}]}', '[1, 2',
        '<?xml version="1.0"?><plist version="1.0"><dict><key>k</key><string>v</string></dict></plist>', b'', b'\x00\x01', b'bplist00\xff\xff']
for i in range(60):
    p = {"id": i, "title": "item %d \"q\" \\ / \u2028" % i, "tags": ["a", "b", str(i % 7)], "score": i * 0.5, "ok": i % 2 == 0,
         "when": base + datetime.timedelta(seconds=i * 1000003), "meta": {"n": i % 100, "s": "x" * (i % 13), "data": b"\x01\x02"},
         "nested": plistlib.dumps({"inner": i}, fmt=plistlib.FMT_BINARY), "__type": "Date" if i % 5 == 0 else "x", "$k": 1, "a.b": 2}
    blob = plistlib.dumps(p, fmt=plistlib.FMT_BINARY if i % 3 else plistlib.FMT_XML)
    if i % 4 == 1: blob = gzip.compress(blob)
    v = vals[i % len(vals)]
    c.execute("INSERT INTO kinds VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
              (i + 1, "oid%d" % i, "sq%d" % i, blob, b'bytes%d' % i, json.dumps(p, default=str) if i % 2 else "plain %d" % i,
               i / 7.0, v, 700000000 + i * 86400, (i % 3) or None, ['one', 'two', 'x'][i % 3], "2020-01-01", '{"*":{"read":true}}', "o%d" % i))
files = sorted(glob.glob(os.path.join(fixtures, "real", "*", "*")) + glob.glob(os.path.join(fixtures, "real", "*", "*", "*")))
files = [f for f in files if "coredata" not in f and os.path.isfile(f) and os.path.getsize(f) < 2_000_000]
for k, f in enumerate(files):
    data = open(f, 'rb').read()
    c.execute("INSERT INTO files VALUES (?,?,?,?,?)", (os.path.relpath(f, fixtures), data, gzip.compress(data), zlib.compress(data), (k % 60) + 1))
for i in range(10):
    c.execute("INSERT INTO plain VALUES (?, ?)", (vals[i], vals[-i]))
c.execute("INSERT INTO plain VALUES (?, ?)", (float('inf'), 1))
c.commit()
print(len(files), "fixture files")
PY
run() { # BIN OUTDIR
    B=$1; O=$2; rm -rf "$O"; mkdir -p "$O"
    for t in kinds files plain parent; do
        for opts in "" "--decode-blobs" "--decode-blobs --keep-blob-bytes" "--decode-blobs --date-column kinds.d=mac"; do
            tag=$(echo "$t $opts" | tr ' =.' '___')
            rc=0; "$B" convert "$db" "$O/$tag.jsonl" --table $t $opts 2>"$O/$tag.err" || rc=$?; echo "rc=$rc" >> "$O/$tag.err"
        done
    done
    for opts in "" "--decode-blobs" "--decode-blobs --keep-blob-bytes" "--decode-blobs --strict"; do
        tag=$(echo "all $opts" | tr ' =.' '___')
        rc=0; "$B" convert "$db" "$O/$tag.json" --tables kinds,files,parent $opts 2>"$O/$tag.err" || rc=$?; echo "rc=$rc" >> "$O/$tag.err"
        rc=0; "$B" import "$db" "$O/$tag.sqlite" $opts 2>"$O/$tag.ierr" >/dev/null || rc=$?; echo "rc=$rc" >> "$O/$tag.ierr"
        if [ -f "$O/$tag.sqlite" ]; then sqlite3 "$O/$tag.sqlite" .dump > "$O/$tag.dump"; rm "$O/$tag.sqlite"; fi
    done
    # Messages name the output path: the same name in both runs.
    for f in "$O"/*.err "$O"/*.ierr; do sed "s|$O/|OUT/|g" "$f" > "$f.n" && mv "$f.n" "$f"; done
}
run "$old" "$work/old"
run "$new" "$work/new"
if diff -r -q "$work/old" "$work/new"; then
    echo "same output: $(ls "$work/old" | wc -l) files ($(du -sk "$work/old" | cut -f1) KiB)"
else
    exit 1
fi
