#!/usr/bin/env bash
# Session 11, GPU call 3. Run from the repository root on the GPU machine (nvidia-h200-x2; carry .deps .wt;
# .wt/old made by `scripts/wt-trees.sh old=a0631b5`: the final call's code plus review fixes to tests).
# This tree balances the micro-block scatter spans in whole 64-byte units (the table's span rounded down
# first, then best_pipe_span in units: never more rounds than the rounded span; the review's finding F2)
# where a0631b5 rounds best_pipe_span's balanced span down (often one more round). Built whole beside
# .wt/old (xpose-bench only); GPU 0: every gpu-labelled test on this tree (LargeTwoByteBatches' new rows
# ending inside a chunk too); GPU 1: old / new alternating, three rounds, sweep classes HWxC and skinny
# (u8, f16, f32: every micro-block scatter row). One archive comes back ($OUT/c3.tgz).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
FINAL=${OUT:-/tmp/out}; O=/tmp/o; rm -rf $O; mkdir -p $O/ab; export OUT=$O
B=build-h200/tools/xpose-bench/xpose-bench; OB=.wt/old/$B
( JOBS=24 LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "build rc=$? $(date -u +%T)" ) &
( cd .wt/old && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >$O/old_cfg.log 2>&1 &&
  cmake --build --preset h200 -j 8 --target xpose-bench >$O/old_build.log 2>&1; echo "old build rc=$? $(date -u +%T)" ) &
wait
( export CUDA_VISIBLE_DEVICES=0; LOGS=g0 NOBUILD=1 STEP_TIMEOUT=240 scripts/gpu.sh ctest:gpu >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1
  for k in 0 1 2; do for t in old new; do b=$B; [ $t = old ] && b=$OB
    ((SECONDS < 470)) && timeout 60 $b sweep --class HWxC,skinny --dtype u8,f16,f32 --reps 7 --format md --out $O/ab/${t}_$k.md >/dev/null 2>&1
  done; done ) &
wait
grep -hE "==|passed|failed|Failed|Timeout" $O/g0-summary.txt
python3 bench/sweep_compare.py --a $O/ab/old_*.md --b $O/ab/new_*.md --tol 0.015 > $O/ab/compare.txt 2>&1; head -30 $O/ab/compare.txt | cut -c1-220
cp /tmp/g0/ctest_gpu.log /tmp/build/env.txt $O/ 2>/dev/null
tar czf $FINAL/c3.tgz -C $O .; ls -la $FINAL
