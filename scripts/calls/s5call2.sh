#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .baseline).
# Session 5, GPU call 2: the pipelined whole-matrix micro-block slabs (best_next) -- their GPU
# tests and the batch class side by side; TTC-57 f32 with PyTorch on the new N-d default
# (vtile_rows_wide), f64 wide vs auto side by side; the before/after of issue 11 on this tree;
# a probe of 8-byte gathers of 1 MiB rows (interleave vs slab: best vs best_next).
export JOBS=32 STEP_TIMEOUT=300
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
B=build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0
  ctest --preset h200 -R "MicroWholeBatches|PipelinedSlabs|MicroSlabs|Best\.|BestInterleave" -j 4 --timeout 200 \
    --output-on-failure >$OUT/ctest_new.txt 2>&1; grep -E "tests passed|tests failed|Failed" $OUT/ctest_new.txt
  timeout 60 $B sweep --candidate --dtype u8,f16 --class batch --format md --out $OUT/sweep_batch.md >/dev/null 2>&1
  timeout 60 $B --variants memcpy,best,best_next --dtype f64,c64 --reps 10 --format md \
    --size 32x131072,16x131072,24x131072,32x65536,32x262144,32x131073,32x100000 >$OUT/probe_pow2.md 2>&1
  LOGS=g0 NOBUILD=1 timeout 200 scripts/gpu.sh ttc-torch:f32 >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1
  timeout 200 $B ttc --dtype f64 --ab --kernels vtile_rows_auto,vtile_rows_wide >$OUT/ttc_ab_f64.txt 2>&1
  LOGS=g1 NOBUILD=1 timeout 200 scripts/gpu.sh baseline >/dev/null 2>&1 ) &
wait
python3 bench/sweep_summary.py $OUT/sweep_batch.md 2>/dev/null | grep -vE "^$" | head -40
grep -E "^summary" $OUT/ttc_ab_f64.txt; grep -E "rc=|largest|median|summary" /tmp/g0/summary.txt /tmp/g1/summary.txt | head -20
cat $OUT/probe_pow2.md | grep -E "best|memcpy" | head -30
ls -la $OUT
