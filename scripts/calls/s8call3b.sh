#!/usr/bin/env bash
# Run from the repository root on the GPU machine right after s8call3a.sh (warm machine, build kept; carry .deps).
# One GPU, in turn: every gpu-labelled test (fuzzers and compute-sanitizer among them), then PyTorch
# beside every sweep row (sweep_torch.py --full). (The session's device time left no room for the Python
# tests, the Fast-path step or the graph sweep.)
export JOBS=16 STEP_TIMEOUT=330
FINAL=${OUT:-/tmp/out}; export OUT=/tmp/o; mkdir -p $OUT
B=build-h200/tools/xpose-bench/xpose-bench
LOGS=g0 NOBUILD=1 timeout 230 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
timeout 270 python3 bench/sweep_torch.py --bench $B --full --json /tmp/sweep_torch.json >/tmp/sweep_torch.txt 2>&1
tar czf $FINAL/torch.tgz -C /tmp sweep_torch.txt sweep_torch.json
cp /tmp/g0/summary.txt $FINAL/summary.txt; tar czf $FINAL/logs.tgz -C $OUT .
grep -hE "rc=|tests passed|tests failed|Failed|Timeout" $FINAL/summary.txt | head -30
tail -4 /tmp/sweep_torch.txt
ls -la $FINAL
