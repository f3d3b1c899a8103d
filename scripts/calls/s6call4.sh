#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 6, GPU call 4 (the final tree: call 3's plus branch f32w): every gpu-labelled test, then
# PyTorch for every sweep row (per-row table kept in the archive) on GPU 0; the full sweep with
# best_next side by side on GPU 1.
export JOBS=32 STEP_TIMEOUT=200
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
mkdir -p /tmp/res
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 170 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
  tar czf $OUT/g0.tgz -C /tmp g0
  timeout 170 python3 bench/sweep_torch.py --bench $B --full --json /tmp/res/sweep_torch.json >/tmp/res/sweep_torch.txt 2>&1
  tar czf $OUT/torch.tgz -C /tmp/res . ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 150 scripts/gpu.sh sweep-ab sweep-graph >/dev/null 2>&1
  cp /tmp/g1/sweep_ab.md $OUT/sweep_ab.md; tar czf $OUT/g1.tgz -C /tmp g1 ) &
wait
grep -hE "rc=|tests passed|tests failed|Failed|Timeout" /tmp/g0/summary.txt /tmp/g1/summary.txt 2>/dev/null | head -20
tail -3 /tmp/res/sweep_torch.txt
python3 bench/sweep_summary.py /tmp/g1/sweep_ab.md 2>/dev/null | head -12
ls -la $OUT
