#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .baseline).
# Session 5, GPU call 4 (final tree): every gpu-labelled test with the halo scatters and the short
# pipelined gathers on; the full sweep (best) with best_next (the routes they replaced) side by side;
# PyTorch per sweep row; tiny calls in a CUDA graph; 100000x32 f32 / f64 before/after in five alternations of 50 reps.
export JOBS=32 STEP_TIMEOUT=300
OUT=${OUT:-/tmp/out}
( cmake -S .baseline -B /tmp/base -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF >/dev/null &&
    cmake --build /tmp/base -j 8 --target xpose-bench >/dev/null ) &
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
wait
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 300 scripts/gpu.sh ctest:gpu sweep-torch >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 200 scripts/gpu.sh sweep-ab sweep-graph >/dev/null 2>&1
  R=(--variants memcpy,best --dtype f32,f64 --size 100000x32 --reps 50 --format csv)
  for k in 1 2 3 4 5; do
    CUDA_VISIBLE_DEVICES=1 timeout 20 /tmp/base/tools/xpose-bench/xpose-bench "${R[@]}" --out /tmp/g1/before_$k.csv >/dev/null 2>&1
    CUDA_VISIBLE_DEVICES=1 timeout 20 $B "${R[@]}" --out /tmp/g1/after_$k.csv >/dev/null 2>&1
  done
  python3 bench/baseline_compare.py /tmp/g1 >$OUT/ba_100000x32.txt 2>&1 ) &
wait
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|best vs torch" /tmp/g0/summary.txt /tmp/g1/summary.txt 2>/dev/null | head -30
python3 bench/sweep_summary.py /tmp/g1/sweep_ab.md 2>/dev/null | head -34
cat $OUT/ba_100000x32.txt
tar czf $OUT/g1b.tgz -C /tmp g1
ls -la $OUT
