#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .baseline).
# Session 4, GPU call 4: the final tree. GPU tests, Python tests, the shape sweep with the
# candidate policy side by side, tiny graph nodes, the before/after against the pre-core
# tree, TTC-57 in f32 (with PyTorch), f16 and f64 (steps last in each list may meet the time limit).
export JOBS=32 STEP_TIMEOUT=300
OUT=${OUT:-/tmp/out}
( cmake -S .baseline -B /tmp/base -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF >/dev/null &&
    cmake --build /tmp/base -j 8 --target xpose-bench >/dev/null ) &
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
wait
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 465 scripts/gpu.sh ctest:gpu sweep-graph ttc:f16 python >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 465 scripts/gpu.sh sweep-ab baseline ttc-torch:f32 ttc:f64 >/dev/null 2>&1 ) &
wait
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|^summary|passed|failed" /tmp/g0/summary.txt /tmp/g1/summary.txt 2>/dev/null | head -40
python3 bench/sweep_summary.py /tmp/g1/sweep_ab.md 2>/dev/null | head -14
ls -la $OUT
