#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200: one GPU was lent; carry .deps).
# Session 6, GPU call 4 (the final tree: call 3's plus branch f32w), one step after the other, each
# result written to $OUT as it ends: every gpu-labelled test; the sweep with best_next side by side for
# the 4-8 byte types (the routes f32w changed); PyTorch for every sweep row if device time is left.
export JOBS=16 STEP_TIMEOUT=200
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
( export LOGS=g0 NOBUILD=1; timeout 170 scripts/gpu.sh ctest:gpu >/dev/null 2>&1 ); tar czf $OUT/g0.tgz -C /tmp g0
grep -hE "rc=|tests passed|tests failed|Failed|Timeout" /tmp/g0/summary.txt | head -12
timeout 90 $B sweep --candidate --dtype f32,f64,c64 --format md --out $OUT/sweep_ab_wide.md >/dev/null 2>&1
python3 bench/sweep_summary.py $OUT/sweep_ab_wide.md 2>/dev/null | head -12
mkdir -p /tmp/res
timeout 200 python3 bench/sweep_torch.py --bench $B --full --json /tmp/res/sweep_torch.json >/tmp/res/sweep_torch.txt 2>&1
tar czf $OUT/torch.tgz -C /tmp/res .; tail -3 /tmp/res/sweep_torch.txt
