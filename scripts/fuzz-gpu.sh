#!/usr/bin/env bash
# GPU differential fuzz run (docs/RELIABILITY.md): >= 10,000 random cases, each run
# through every registered variant and the default device entry and compared bitwise
# with the CPU reference, guards and padding included. The case range of one seed is
# split over parallel shards (the host-side reference is the bottleneck).
#
# usage: scripts/fuzz-gpu.sh BUILD_DIR [CASES]
#   env: SEED (default 7), SHARDS (default 8, at most the cores), TIME_LIMIT (seconds
#        per shard, default 210), OUT (directory for the logs; default BUILD_DIR/fuzz-gpu)
# exit: 0 all cases ran and passed; 1 a failure (FAIL lines name seed, case and the
#       replay command); 3 fewer cases ran than asked (time limit); 77 no GPU.
set -uo pipefail
build=${1:?usage: $0 BUILD_DIR [CASES]}
cases=${2:-10000}
seed=${SEED:-7}
shards=${SHARDS:-8}
ncpu=$(nproc)
((shards > ncpu)) && shards=$ncpu
limit=${TIME_LIMIT:-210}
out=${OUT:-$build/fuzz-gpu}
fuzz=$build/tests/fuzz/xpose_fuzz
[ -x "$fuzz" ] || { echo "fuzz-gpu: $fuzz not found (build the tests first)" >&2; exit 2; }
mkdir -p "$out"

{
  echo "fuzz-gpu: $(date -u +%FT%TZ) commit $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo ?)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "nvidia-smi: n/a"
  echo "fuzz-gpu: seed $seed, cases 0..$((cases - 1)), $shards shards, time limit ${limit}s per shard"
} | tee "$out/summary.txt"

per=$(((cases + shards - 1) / shards))
start=$(date +%s)
pids=()
for ((k = 0; k < shards; ++k)); do
  first=$((k * per))
  n=$((first + per > cases ? cases - first : per))
  ((n > 0)) || continue
  "$fuzz" --mode gpu --seed "$seed" --first "$first" --cases "$n" --time-limit "$limit" \
    >"$out/shard-$k.log" 2>&1 &
  pids+=($!)
done
rc_all=0
for p in "${pids[@]}"; do
  wait "$p"
  rc=$?
  ((rc == 77)) && { echo "fuzz-gpu: no GPU: skipped" | tee -a "$out/summary.txt"; exit 77; }
  ((rc != 0 && rc_all == 0)) && rc_all=1
done

grep -h '^FAIL' -A3 "$out"/shard-*.log | head -80 | tee -a "$out/summary.txt"
grep -h '^xpose_fuzz: mode=' "$out"/shard-*.log >>"$out/summary.txt"
ran=$(grep -ho ' cases=[0-9]*' "$out"/shard-*.log | awk -F= '{s += $2} END {print s + 0}')
checks=$(grep -ho ' checks=[0-9]*' "$out"/shard-*.log | awk -F= '{s += $2} END {print s + 0}')
hostile=$(grep -ho 'hostile_checks=[0-9]*' "$out"/shard-*.log | awk -F= '{s += $2} END {print s + 0}')
fails=$(grep -ho 'failures=[0-9]*' "$out"/shard-*.log | awk -F= '{s += $2} END {print s + 0}')
status=PASS
((rc_all != 0 || fails != 0)) && status=FAIL
[ "$status" = PASS ] && ((ran < cases)) && status=INCOMPLETE
echo "fuzz-gpu: $status seed=$seed cases=$ran/$cases variant_runs=$checks hostile_runs=$hostile failures=$fails" \
     "wall=$(($(date +%s) - start))s logs=$out" | tee -a "$out/summary.txt"
case $status in PASS) exit 0 ;; INCOMPLETE) exit 3 ;; *) exit 1 ;; esac
