#!/usr/bin/env bash
# Builds the seed corpus of each fuzz target from the test fixtures:
#   bash scripts/fuzz-seeds.sh [OUT_DIR [TARGET…]]      (default .build-fuzz/seeds, every target)
# One folder per target (FuzzJSON, FuzzBinaryPlist, …). Seeds are the fixtures of the
# target's format, the hostile corpus's files for it, and Tests/Fixtures/regressions/<format>.
# Files larger than 64 KiB are left out (scripts/fuzz.sh runs with -max_len 65536).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build-fuzz/seeds}"
shift || true
wanted=" $* "
fx=Tests/Fixtures
seed() { # seed TARGET FILE…
  local target="$1"; shift
  [ "$wanted" = "  " ] || [[ "$wanted" == *" $target "* ]] || return 0
  rm -rf "$out/$target"
  mkdir -p "$out/$target"
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le 65536 ] || continue
    cp "$f" "$out/$target/$(basename "$(dirname "$f")")-$(basename "$f")"
  done
}
shopt -s nullglob
seed FuzzJSON $fx/conformance/JSONTestSuite/test_parsing/* $fx/conformance/hostile/json_* $fx/real/parse/*.json $fx/regressions/json/*
seed FuzzBinaryPlist $fx/conformance/hostile/bplist_* $fx/real/bplist/* $fx/real/keyed/*.bplist $fx/regressions/bplist/*
seed FuzzXMLPlist $fx/real/xmlplist/* $fx/real/keyed/*.xml $fx/regressions/xmlplist/*
seed FuzzCBOR $fx/regressions/cbor/* $fx/mutation/cbor/*
seed FuzzKeyed $fx/conformance/hostile/ka_* $fx/real/keyed/*.bplist $fx/real/keyed/*.xml $fx/real/keyed/*.archive $fx/regressions/keyed/*
seed FuzzTypedStream $fx/conformance/hostile/ts_* Tests/PFVersioningTests/Fixtures/classic/*.typedstream $fx/regressions/typedstream/*
seed FuzzParse $fx/real/parse/*.json $fx/regressions/parse/*
seed FuzzCompression $fx/conformance/hostile/zlib_* $fx/regressions/compression/* $fx/mutation/compression/*
seed FuzzRealm $fx/real/realm/*.realm $fx/regressions/realm/*
# CBOR has no fixture files of its own: hand-made items cover every major type.
if [ -d "$out/FuzzCBOR" ]; then
printf '\xa2\x61\x61\x01\x61\x62\x82\xf5\xf6' > "$out/FuzzCBOR/seed-map.cbor"
printf '\x9f\x01\x02\xfb\x3f\xf1\x99\x99\x99\x99\x99\x9a\xff' > "$out/FuzzCBOR/seed-indefinite.cbor"
printf '\xd9\xd9\xf7\xc1\x1a\x5f\x5e\x10\x00' > "$out/FuzzCBOR/seed-tags.cbor"
printf '\x7f\x62ab\x61c\xff\x5f\x41\x00\xff' > "$out/FuzzCBOR/seed-chunks.cbor"
printf '\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00\xf9\x7e\x00' > "$out/FuzzCBOR/seed-bignum.cbor"
# A CBOR sequence (RFC 8742) of the items above: the target reads its input as one too.
cat "$out"/FuzzCBOR/seed-*.cbor > "$out/FuzzCBOR/seed-sequence.cborseq"
fi
# JSON Lines (the target reads its input as them too): values, a blank line, CRLF, no last newline.
if [ -d "$out/FuzzJSON" ]; then
printf '{"objectId":"a1","score":7,"tags":["x","y"]}\n[1,2.5,null]\n\n"text \\u00e9"\r\ntrue\n{"nested":{"k":{}}}' > "$out/FuzzJSON/seed-lines.jsonl"
fi
for d in "$out"/*; do [ -d "$d" ] && echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"; done
