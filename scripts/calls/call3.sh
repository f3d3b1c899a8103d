#!/usr/bin/env bash
# Run from the repository root on the GPU machine: bash scripts/calls/call3.sh (device tool; carry .deps, and .baseline for the before/after).
# GPU call 3 (session 3): the final tree. Tests, the sweep, the before/after, PyTorch and TTC, same runs.
export JOBS=32 STEP_TIMEOUT=250
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
NG=$(nvidia-smi -L | wc -l)
if [ "$NG" -ge 2 ]; then
  ( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1; timeout 420 scripts/gpu.sh ctest:gpu sweep >/dev/null 2>&1 ) &
  ( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1; timeout 420 scripts/gpu.sh baseline ttc-torch:f32 sweep-torch >/dev/null 2>&1 ) &
  wait
else
  LOGS=g0 NOBUILD=1 timeout 480 scripts/gpu.sh ctest:gpu baseline ttc-torch:f32 >/dev/null 2>&1
fi
grep -hE "rc=|tests passed|tests failed|Failed|Timeout" /tmp/g0/summary.txt /tmp/g1/summary.txt 2>/dev/null | head -30
python3 bench/sweep_summary.py /tmp/g0/sweep.md 2>/dev/null | head -12
tail -3 /tmp/g1/ttc_torch_f32.log /tmp/g0/ttc_torch_f32.log 2>/dev/null
ls -la $OUT
