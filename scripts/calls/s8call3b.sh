#!/usr/bin/env bash
# Run from the repository root on the GPU machine right after s8call3a.sh (warm machine, builds kept; carry .deps).
# GPU 0: every gpu-labelled test, then PyTorch beside every sweep row (sweep_torch.py --full), then the Python
# host time per call. GPU 1: the Python GPU tests, the Fast-path large cases (scripts/gpu.sh best: no
# regression), the tiny calls as CUDA graph nodes (sweep-graph). $FINAL keeps at most 8 files.
export JOBS=32 STEP_TIMEOUT=330
FINAL=${OUT:-/tmp/out}; export OUT=/tmp/o; mkdir -p $OUT
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 230 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
  timeout 250 python3 bench/sweep_torch.py --bench $B --full --json /tmp/sweep_torch.json >/tmp/sweep_torch.txt 2>&1
  tar czf $FINAL/torch.tgz -C /tmp sweep_torch.txt sweep_torch.json
  LOGS=g0b timeout 60 scripts/gpu.sh host-overhead >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 120 scripts/gpu.sh python-test >/dev/null 2>&1
  LOGS=g1b timeout 330 scripts/gpu.sh best sweep-graph >/dev/null 2>&1 ) &
wait
cat /tmp/g0/summary.txt /tmp/g0b/summary.txt /tmp/g1/summary.txt /tmp/g1b/summary.txt > $FINAL/summary.txt 2>/dev/null
tar czf $FINAL/logs.tgz -C $OUT .
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|passed|failed" $FINAL/summary.txt | head -30
tail -4 /tmp/sweep_torch.txt
ls -la $FINAL
