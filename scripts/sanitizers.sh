#!/usr/bin/env bash
# compute-sanitizer over every registered variant and the default device entry
# (docs/RELIABILITY.md): memcheck, racecheck, synccheck and initcheck, each running
# the fuzzer in its small mode: first a fixed representative list (ragged, skinny,
# batched with stride_in 0 and interleaved strides, unaligned by one element, every
# element size, launch shapes 32x8 and 32x32), then random small cases until the case
# count or the time budget runs out. Fails on any sanitizer report or fuzz failure.
#
# usage: scripts/sanitizers.sh BUILD_DIR
#   env: OUT (log directory; default BUILD_DIR/sanitizers), SAN_TIME (seconds of
#        fuzzing per tool, default 45), SAN_CASES (cases per tool, default 400),
#        SAN_TOOLS (default "memcheck racecheck synccheck initcheck"), SEED (default 3)
# exit: 0 clean; 1 a report or failure; 77 no GPU.
set -uo pipefail
build=${1:?usage: $0 BUILD_DIR}
out=${OUT:-$build/sanitizers}
budget=${SAN_TIME:-45}
ncases=${SAN_CASES:-400}
seed=${SEED:-3}
tools=${SAN_TOOLS:-memcheck racecheck synccheck initcheck}
fuzz=$build/tests/fuzz/xpose_fuzz
rep_cases=60  # the representative list of the fuzzer's --small mode (12 shapes x 5 element sizes)
[ -x "$fuzz" ] || { echo "sanitizers: $fuzz not found (build the tests first)" >&2; exit 2; }
"$fuzz" --mode gpu --small --cases 1 >/dev/null 2>&1
[ $? -eq 77 ] && { echo "sanitizers: no GPU: skipped"; exit 77; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "sanitizers: compute-sanitizer not found" >&2; exit 2; }
mkdir -p "$out"

echo "sanitizers: $(date -u +%FT%TZ) $("$cs" --version | tail -1)" | tee "$out/summary.txt"
rc_all=0
for tool in $tools; do
  extra=()
  case $tool in
    memcheck) extra=(--leak-check full) ;;
    racecheck) extra=(--racecheck-report all) ;;
  esac
  log=$out/$tool.log
  t0=$(date +%s)
  "$cs" --tool "$tool" --error-exitcode 99 --print-limit 20 "${extra[@]}" \
    "$fuzz" --mode gpu --small --seed "$seed" --cases "$ncases" --time-limit "$budget" --max-failures 5 \
    >"$log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  ran=$(grep -o ' cases=[0-9]*' "$log" | tail -1 | cut -d= -f2)
  runs=$(grep -o ' checks=[0-9]*' "$log" | tail -1 | cut -d= -f2)
  fails=$(grep -o 'failures=[0-9]*' "$log" | tail -1 | cut -d= -f2)
  errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$log" | tail -1 | awk '{print $3}')
  hazards=$(grep -o 'RACECHECK SUMMARY: [0-9]* hazard' "$log" | tail -1 | awk '{print $3}')
  verdict=PASS
  [ "$rc" -ne 0 ] && verdict=FAIL
  [ -n "$errors" ] && [ "$errors" != 0 ] && verdict=FAIL
  [ -n "$hazards" ] && [ "$hazards" != 0 ] && verdict=FAIL
  [ -z "$errors" ] && [ -z "$hazards" ] && verdict=FAIL  # no summary line: the tool did not finish
  [ "${ran:-0}" -lt "$rep_cases" ] && verdict=FAIL  # the representative list must complete
  line="sanitizers: $tool: $verdict cases=${ran:-0} variant_runs=${runs:-0} fuzz_failures=${fails:-?}"
  line+="${errors:+ errors=$errors}${hazards:+ hazards=$hazards} exit=$rc time=${secs}s log=$log"
  echo "$line" | tee -a "$out/summary.txt"
  if [ "$verdict" != PASS ]; then
    rc_all=1
    grep -E '^(FAIL|  what|  case|  replay)|^========= (Invalid|Race|Barrier|Uninitialized|Error|Program hit)' "$log" |
      head -30 | tee -a "$out/summary.txt"
  fi
done
[ $rc_all -eq 0 ] && echo "sanitizers: all clean" | tee -a "$out/summary.txt"
exit $rc_all
