#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .baseline).
# Session 5, GPU call 3: every gpu-labelled test and the Python GPU tests on the merged tree
# (halo scatters and the short pipelined gathers as best_next candidates, pipelined whole
# matrices and the pipe_path refactor in best); the full sweep side by side; the before/after
# of issue 11 with two alternations; the halo helper's slowest rows alone.
export JOBS=32 STEP_TIMEOUT=300
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 440 scripts/gpu.sh ctest:gpu python >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1 BASELINE_ROUNDS=2; timeout 440 scripts/gpu.sh sweep-ab baseline >/dev/null 2>&1
  for a in "f16 50177x128 8" "u8 50177x96 24" "u8 50177x8 83"; do set -- $a
    CUDA_VISIBLE_DEVICES=1 timeout 20 $B --variants memcpy,best,best_next --dtype $1 --size $2 --batch $3 --reps 10 --format md
  done >$OUT/halo_rows.md 2>&1 ) &
wait
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|passed|failed|largest" /tmp/g0/summary.txt /tmp/g1/summary.txt 2>/dev/null | head -40
python3 bench/sweep_summary.py /tmp/g1/sweep_ab.md 2>/dev/null | head -60
grep -E "best" $OUT/halo_rows.md
ls -la $OUT
