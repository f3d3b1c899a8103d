#!/usr/bin/env bash
# On the GPU machine: build HEAD for sm_90, run the C++ test suites and the lab.
# Usage: scripts/gpu-foundation.sh  (writes logs to $OUT)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
src=$PWD
cd "$src"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.mem --format=csv; nvcc --version | tail -2; git -C "$OLDPWD" log --oneline -1 2>/dev/null; } | tee "$OUT/env.txt"
cmake -S . -B build-h200 -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-h200 -j16 --target xpose_cuda_tests xpose-bench ${EXTRA_TARGETS:-} >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "== build ok"
[ -x build-h200/tests/xpose_cpu_tests ] && { ./build-h200/tests/xpose_cpu_tests --gtest_brief=1 >"$OUT/cpu_tests.log" 2>&1; echo "cpu tests rc=$?"; }
./build-h200/tests/xpose_cuda_tests --gtest_brief=1 >"$OUT/cuda_tests.log" 2>&1; echo "cuda tests rc=$?"; tail -15 "$OUT/cuda_tests.log"
B=./build-h200/tools/xpose-bench/xpose-bench
$B lab --format md --out "$OUT/lab.md" >/dev/null; echo "lab rc=$?"
$B lab --format json --out "$OUT/lab.json" >/dev/null
$B --block 32x32 --format md --out "$OUT/ladder_32x32.md" >/dev/null
for dt in i8 f16 f64 c128; do $B --dtype $dt --format md --out "$OUT/ladder_$dt.md" >/dev/null || echo "ladder $dt rc=$?"; done
cat "$OUT/lab.md"
