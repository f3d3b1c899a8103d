#!/usr/bin/env bash
# Run from the repository root on the GPU machine (nvidia-h200-x2; carry .deps .wt: trees ga10, sc10 only).
# Session 10, GPU call 1d: call 1c's outputs of trees ga10 and sc10 did not come back (at most 8 files
# come back from $OUT: everything goes into one archive now). Trees built, GPU 0: ga10, GPU 1: sc10.
FINAL=${OUT:-/tmp/out}; export OUT=/tmp/o1d TREE_TIME=130; mkdir -p $OUT
NOBUILD=1 JOBS=32 LOGS=b1 scripts/gpu.sh trees >/dev/null 2>&1; grep -h "tree" $OUT/b1-summary.txt
( export CUDA_VISIBLE_DEVICES=0; NOBUILD=1 LOGS=g0 scripts/gpu.sh tree:ga10 >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1; NOBUILD=1 LOGS=g1 scripts/gpu.sh tree:sc10 >/dev/null 2>&1 ) &
wait
grep -hv "== env" $OUT/g0-summary.txt $OUT/g1-summary.txt | grep -E "==|passed|failed|Failed|Timeout"
tar czf $FINAL/call1d.tgz -C $OUT .; ls -la $FINAL
