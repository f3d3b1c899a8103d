#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 6, GPU call 3 (the merged final tree): every gpu-labelled test (fuzzers and compute-sanitizer
# among them) and PyTorch for every sweep row on GPU 0; the full sweep with best_next (every switch
# flipped: the routes replaced) side by side, tiny calls in a CUDA graph and the Python GPU tests on GPU 1.
export JOBS=32 STEP_TIMEOUT=330
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 250 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
  timeout 250 python3 bench/sweep_torch.py --bench $B --full --json $OUT/sweep_torch.json >$OUT/sweep_torch.txt 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 330 scripts/gpu.sh sweep-ab sweep-graph python >/dev/null 2>&1
  cp /tmp/g1/sweep_ab.md $OUT/sweep_ab.md ) &
wait
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|passed|failed" /tmp/g0/summary.txt /tmp/g1/summary.txt 2>/dev/null | head -30
tail -4 $OUT/sweep_torch.txt
python3 bench/sweep_summary.py /tmp/g1/sweep_ab.md 2>/dev/null | head -34
tar czf $OUT/logs.tgz -C /tmp g0 g1
ls -la $OUT
