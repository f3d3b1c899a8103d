#!/usr/bin/env bash
# On the GPU machine: the access model's predictions beside Nsight Compute's counters
# for the whole ladder at 4096^2 fp32, blocks 32x8 and 32x32 (issue 5's evidence).
# Usage: scripts/gpu-model.sh BUILD_DIR   (repo root as cwd; builds xpose-bench there if
# missing; writes to $OUT). About 28 short ncu runs (7 variants x 2 blocks x json + md).
set -uo pipefail
build=${1:?usage: scripts/gpu-model.sh BUILD_DIR}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=$build/tools/xpose-bench/xpose-bench
if [ ! -x "$B" ]; then  # not built yet: configure and build just the tool
  cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >"$OUT/model_build.log" 2>&1 &&
    cmake --build "$build" -j16 --target xpose-bench >>"$OUT/model_build.log" 2>&1 ||
    { grep -E "error|Error" "$OUT/model_build.log" | head -20; exit 1; }
fi
# ncu ships with the toolkit but is not always on PATH.
if ! command -v ncu >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda/nsight-compute* /opt/nvidia/nsight-compute/*; do
    [ -x "$d/ncu" ] && { PATH="$d:$PATH"; break; }
  done
fi
{ command -v ncu && ncu --version | tail -1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | tee "$OUT/model_env.txt"
rc=0
for block in 32x8 32x32; do
  tag=${block/x/_}
  start=$SECONDS
  # JSON: every pred_* and ncu_* field (the evidence); md: the tables for docs/RESULTS.md.
  $B --model --counters --size 4096x4096 --dtype f32 --block $block --format json \
     --out "$OUT/model_counters_$tag.json" >/dev/null 2>"$OUT/model_counters_$tag.err" || rc=$?
  $B --model --counters --size 4096x4096 --dtype f32 --block $block --format md \
     --out "$OUT/model_counters_$tag.md" >/dev/null 2>>"$OUT/model_counters_$tag.err" || rc=$?
  echo "== block $block: $((SECONDS - start)) s, rc=$rc"
  cat "$OUT/model_counters_$tag.md"
  grep -v "^xpose-bench: ncu " "$OUT/model_counters_$tag.err" | tail -5
done
# The issue names this file: the 32x8 run.
cp "$OUT/model_counters_32_8.json" "$OUT/model_counters.json"
exit $rc
