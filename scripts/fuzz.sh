#!/usr/bin/env bash
# Runs pfarchive's libFuzzer targets (Fuzz/<Target>/main.swift).
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]
#
# Default: 30 seconds for each of the nine targets, one after another. Targets: FuzzJSON,
# FuzzBinaryPlist, FuzzXMLPlist, FuzzCBOR, FuzzKeyed, FuzzTypedStream, FuzzParse, FuzzRealm,
# FuzzCompression. Environment:
#   FUZZ_JOBS=N        run N targets at a time (default 1)
#   FUZZ_NICE=1        run under nice (a shared machine)
#   FUZZ_NO_BUILD=1    use the binaries already in .build-fuzz
#   FUZZ_MAX_LEN, FUZZ_RSS_MB, FUZZ_TIMEOUT   libFuzzer's -max_len (65536), -rss_limit_mb
#                      (2048) and -timeout per input (60 s: a wall-clock limit, so it must
#                      allow for a loaded machine and a niced process; a real hang still trips it)
#
# Builds each target with `-sanitize=fuzzer,address -DPFFUZZ` in .build-fuzz (a separate
# scratch path: the sanitizer flags apply to every module the build compiles). The working
# corpus is .build-fuzz/corpus/<Target> (kept between runs, seeded by scripts/fuzz-seeds.sh);
# crashes, timeouts and OOMs land in .build-fuzz/findings/<Target>/ (not artifacts/:
# SwiftPM empties <scratch>/artifacts on every build) and fail the script.
# Each target's log is .build-fuzz/logs/<Target>.log; the last line with exec/s and cov/ft is
# printed per target. See Docs/Security.md, "Fuzzing".
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
all=(FuzzJSON FuzzBinaryPlist FuzzXMLPlist FuzzCBOR FuzzKeyed FuzzTypedStream FuzzParse FuzzCompression FuzzRealm)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
scratch=.build-fuzz
nice_cmd=()
[ "${FUZZ_NICE:-0}" = 1 ] && nice_cmd=(nice -n 10)
export SWIFT_BACKTRACE=enable=no

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  for t in "${targets[@]}"; do
    # No -parse-as-library: the targets' main.swift starts libFuzzer itself (see FuzzDriver).
    "${nice_cmd[@]}" swift build -c debug --scratch-path "$scratch" \
      -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPFFUZZ --product "$t" >&2
  done
fi
bin="$scratch/debug"
bash scripts/fuzz-seeds.sh "$scratch/seeds" "${targets[@]}" >/dev/null
mkdir -p "$scratch/logs"

run_one() {
  local t="$1"
  local corpus="$scratch/corpus/$t" artifacts="$scratch/findings/$t"
  mkdir -p "$corpus" "$artifacts"
  "${nice_cmd[@]}" "$bin/$t" "$corpus" "$scratch/seeds/$t" \
    -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-65536}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
    -timeout="${FUZZ_TIMEOUT:-60}" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    >"$scratch/logs/$t.log" 2>&1
}

status=0
running=0
pids=()
names=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  running=$((running + 1))
  if [ "$running" -ge "${FUZZ_JOBS:-1}" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" 2>/dev/null || true
done
for t in "${targets[@]}"; do
  log="$scratch/logs/$t.log"
  last="$(grep -E '#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)"
  execs="$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}' || true)"
  found="$(ls "$scratch/findings/$t" 2>/dev/null | wc -l)"
  if [ "$found" -gt 0 ] || grep -qE 'ERROR: (libFuzzer|AddressSanitizer)|deadly signal|Fuzz target exited' "$log"; then
    echo "$t: FAILED ($found artifact(s) in $scratch/findings/$t; log $log)"
    status=1
  else
    echo "$t: ok, ${execs:-?} exec/s; $last"
  fi
done
exit "$status"
