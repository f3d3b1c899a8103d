#!/usr/bin/env bash
# Run from the repository root on the GPU machine right after s10call1a.sh (warm machine; carry .deps .wt).
# GPU 0: this tree's GPU tests (ctest -L gpu), then helper tree ga10's commands (.wt/ga10/tree.gpu).
# GPU 1: helper trees sc10 and bt10. Then, on each GPU, one round of the slab classes (sweep --class
# CxHW,HWxC,skinny) from old (.wt/old) and from this tree, one after the other: the A/B of pipe_path's
# run-time slab sizes (expected: same routes, ratios within the run-to-run noise).
export OUT=${OUT:-/tmp/out} TREE_TIME=130
ab() { for t in old new; do b=build-h200/tools/xpose-bench/xpose-bench; [ $t = old ] && b=.wt/old/$b
  timeout 100 $b sweep --class CxHW,HWxC,skinny --reps 5 --format md --out $OUT/ab/${t}_$1.md >/dev/null 2>&1; done; }
mkdir -p $OUT/ab
( export CUDA_VISIBLE_DEVICES=0; NOBUILD=1 LOGS=g0 STEP_TIMEOUT=260 scripts/gpu.sh ctest:gpu tree:ga10 >/dev/null 2>&1; ab 0 ) &
( export CUDA_VISIBLE_DEVICES=1; NOBUILD=1 LOGS=g1 scripts/gpu.sh tree:sc10 tree:bt10 >/dev/null 2>&1; ab 1 ) &
wait
grep -hv "== env" $OUT/g0-summary.txt $OUT/g1-summary.txt | grep -E "==|passed|failed|Failed|Timeout"
for k in 0 1; do python3 bench/sweep_compare.py --a $OUT/ab/old_$k.md --b $OUT/ab/new_$k.md 2>&1 | tail -4; done
cd $OUT && for t in ga10 sc10 bt10 ab; do [ -d $t ] && tar czf $t.tgz $t && rm -rf $t; done; ls -la $OUT
