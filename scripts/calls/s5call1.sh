#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 5, GPU call 1: the GPU tests on the tree that turns on the realigning interleave
# gather (sides <= 16), the pipelined micro scatter to aligned output rows and takes side-5
# scatters with aligned output off the pipelined kernel; the sweep with best_next (those
# routes off) side by side; PyTorch per sweep row; the 256-thread f32 N-d tile side by side.
export JOBS=32 STEP_TIMEOUT=300
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 420 scripts/gpu.sh ctest:gpu python >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 420 scripts/gpu.sh sweep-ab sweep-torch >/dev/null 2>&1
  CUDA_VISIBLE_DEVICES=1 timeout 60 $B ttc --dtype f32 --ab --kernels vtile_rows_auto,vtile_rows_wide \
    --cases 9,24,25,26,30,31,32,39,40,41,54 >$OUT/ttc_ab_wide.txt 2>&1 ) &
wait
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|^summary|passed|failed" /tmp/g0/summary.txt /tmp/g1/summary.txt 2>/dev/null | head -40
python3 bench/sweep_summary.py /tmp/g1/sweep_ab.md 2>/dev/null | head -14
tail -5 $OUT/ttc_ab_wide.txt
ls -la $OUT
