#!/usr/bin/env bash
# On the GPU machine: build for sm_90, run best's GPU tests, the comparison benchmark
# (best_bench + compare.py: PyTorch, CuPy) and xpose-bench rows. Logs go to $OUT.
# Usage: bench/run_h200.sh [--quick] [--skip-tests]
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -2;
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'; python3 -c 'import cupy; print("cupy", cupy.__version__)'; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
cmake -S . -B build-h200 -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_BENCH=ON >"$OUT/build.log" 2>&1 &&
cmake --build build-h200 -j16 --target xpose_cuda_tests best_bench >>"$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
cmake --build build-h200 -j16 --target xpose-bench >>"$OUT/build.log" 2>&1 || echo "xpose-bench did not build"
echo "== build ok"
if [[ " $* " != *" --skip-tests "* ]]; then
  timeout 240 ./build-h200/tests/xpose_cuda_tests --gtest_filter="*Best*" --gtest_brief=1 >"$OUT/best_tests.log" 2>&1; echo "best tests rc=$?"
  timeout 150 ./build-h200/tests/xpose_cuda_tests --gtest_filter="Device.*" --gtest_brief=1 >"$OUT/device_tests.log" 2>&1; echo "device tests rc=$?"; tail -8 "$OUT/device_tests.log"
  tail -25 "$OUT/best_tests.log"
fi
q=""; [[ " $* " == *" --quick "* ]] && q="--quick"
timeout 200 ./build-h200/bench/best_bench $q > "$OUT/bench.csv" 2>"$OUT/bench.err"; echo "best_bench rc=$?"; cat "$OUT/bench.err" | tail -5
timeout 150 python3 bench/compare.py "$OUT/bench.csv" > "$OUT/compare.md" 2>"$OUT/compare.err"; echo "compare rc=$?"; tail -3 "$OUT/compare.err"
B=./build-h200/tools/xpose-bench/xpose-bench
if [ -x $B ]; then
  timeout 60 $B --variants best,copy,memcpy,tiled_padded --size 16384x16384 --dtype f32,i8 --format md --out "$OUT/xbench.md" >/dev/null 2>"$OUT/xbench.err"; echo "xpose-bench rc=$?"
fi
grep -E "^sweep|^square|^ragged" "$OUT/bench.csv" | grep -E "sweep|,best,|memcpy" | cut -d, -f1-12 | head -80
