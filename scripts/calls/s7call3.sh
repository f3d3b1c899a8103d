#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 7, final GPU call (the merged tree): every gpu-labelled test (fuzzers and compute-sanitizer among
# them), then PyTorch beside every sweep row (sweep_torch.py --full), then the large cases of "Fast path (best)"
# (scripts/gpu.sh best: no regression) on GPU 0; the Python GPU tests (their build
# overlaps the GPU tests, not a benchmark), then the full sweep with best_next
# (every switch flipped: the routes replaced) side by side, tiny calls in a CUDA graph and
# the Python host time per call on GPU 1. $OUT keeps at most 8 files: the torch table travels as torch.tgz, the steps' logs as logs.tgz.
export JOBS=32 STEP_TIMEOUT=330
FINAL=${OUT:-/tmp/out}; export OUT=/tmp/o; mkdir -p $OUT  # the steps' archives; $FINAL gets four files
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 250 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
  timeout 230 python3 bench/sweep_torch.py --bench $B --full --json /tmp/sweep_torch.json >/tmp/sweep_torch.txt 2>&1
  tar czf $FINAL/torch.tgz -C /tmp sweep_torch.txt sweep_torch.json
  LOGS=g0b timeout 100 scripts/gpu.sh best >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 420 scripts/gpu.sh python sweep-ab sweep-graph host-overhead >/dev/null 2>&1
  cp /tmp/g1/sweep_ab.md $FINAL/sweep_ab.md ) &
wait
cat /tmp/g0/summary.txt /tmp/g0b/summary.txt /tmp/g1/summary.txt > $FINAL/summary.txt 2>/dev/null
tar czf $FINAL/logs.tgz -C $OUT .
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|passed|failed" $FINAL/summary.txt | head -30
tail -4 /tmp/sweep_torch.txt
python3 bench/sweep_summary.py $FINAL/sweep_ab.md 2>/dev/null | head -34
ls -la $FINAL
