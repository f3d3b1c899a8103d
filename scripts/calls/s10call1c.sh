#!/usr/bin/env bash
# Run from the repository root on the GPU machine (nvidia-h200-x2; carry .deps .wt). The trees are built in
# this call: carrying .wt replaces the folder there, builds and all (what emptied call 1b's trees), and a
# call that does not carry it finds none.
# Session 10, GPU call 1c: call 1b again without the GPU tests (1b: 111/111): the trees built once more
# (step trees), then GPU 0: tree ga10 and one A/B round (old, new); GPU 1: trees sc10, bt10.
export OUT=${OUT:-/tmp/out} TREE_TIME=130
[ -x build-h200/tools/xpose-bench/xpose-bench ] || { JOBS=32 LOGS=b0 scripts/gpu.sh >/dev/null 2>&1; echo "root build rc=$?"; }
NOBUILD=1 JOBS=32 LOGS=b1 scripts/gpu.sh trees >/dev/null 2>&1; grep -h "tree" $OUT/b1-summary.txt
ab() { for t in old new; do b=build-h200/tools/xpose-bench/xpose-bench; [ $t = old ] && b=.wt/old/$b
  timeout 100 $b sweep --class CxHW,HWxC,skinny --reps 5 --format md --out $OUT/ab/${t}_$1.md >/dev/null 2>&1; done; }
mkdir -p $OUT/ab
( export CUDA_VISIBLE_DEVICES=0; NOBUILD=1 LOGS=g0 scripts/gpu.sh tree:ga10 >/dev/null 2>&1; ab 0 ) &
( export CUDA_VISIBLE_DEVICES=1; NOBUILD=1 LOGS=g1 scripts/gpu.sh tree:sc10 tree:bt10 >/dev/null 2>&1 ) &
wait
grep -hv "== env" $OUT/g0-summary.txt $OUT/g1-summary.txt | grep -E "==|passed|failed|Failed|Timeout"
for k in 0; do python3 bench/sweep_compare.py --a $OUT/ab/old_$k.md --b $OUT/ab/new_$k.md 2>&1 | tail -4; done
cd $OUT && for t in ga10 sc10 bt10 ab; do [ -d $t ] && tar czf $t.tgz $t && rm -rf $t; done; ls -la $OUT
