#!/usr/bin/env bash
# Session 11, GPU call 1. Run from the repository root on the GPU machine (nvidia-h200-x2; carry .deps .wt;
# .wt/old made here by `scripts/wt-trees.sh old=60b8bd8`: session 10's final code).
# This tree (the two-buffer direct scatter switched on, micro-block scatter spans in 64-byte units) built
# whole beside .wt/old (xpose-bench only); then GPU 0: every gpu-labelled test; GPU 1: old / new alternating,
# three rounds: the HWxC and skinny sweep classes (u8, f16, f32, f64; the rows both changes touch), f16 167x2x50176 alone
# (flagged in session 10's review), then this tree's f16 64 x 64 batches as best (pipelined cp.async tile)
# against best_next (the unpipelined batch tile) at 32-256 MiB. One archive comes back ($OUT/c1.tgz).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
FINAL=${OUT:-/tmp/out}; O=/tmp/o; rm -rf $O; mkdir -p $O/ab $O/batch; export OUT=$O
B=build-h200/tools/xpose-bench/xpose-bench; OB=.wt/old/$B
( JOBS=24 LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "build rc=$? $(date -u +%T)" ) &
( cd .wt/old && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >$O/old_cfg.log 2>&1 &&
  cmake --build --preset h200 -j 8 --target xpose-bench >$O/old_build.log 2>&1; echo "old build rc=$? $(date -u +%T)" ) &
wait
( export CUDA_VISIBLE_DEVICES=0; LOGS=g0 NOBUILD=1 STEP_TIMEOUT=270 scripts/gpu.sh ctest:gpu >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1
  for k in 0 1 2; do for t in old new; do b=$B; [ $t = old ] && b=$OB
    timeout 80 $b sweep --class HWxC,skinny --dtype u8,f16,f32,f64 --reps 7 --format md --out $O/ab/${t}_$k.md >/dev/null 2>&1
    timeout 20 $b --variants memcpy,best --dtype f16 --size 2x50176 --batch 167 --reps 20 --format csv >>$O/ab/f16_167x2_$t.csv 2>&1
  done; done
  for n in 4096 10000 16384 32768; do
    timeout 25 $B --variants memcpy,best,best_next --dtype f16 --size 64x64 --batch $n --reps 15 --format csv >>$O/batch/f16.csv 2>&1; done
  timeout 25 $B --variants memcpy,best,best_next --dtype f16 --size 40x64 --batch 52428 --reps 15 --format csv >>$O/batch/f16.csv 2>&1
  timeout 25 $B --variants memcpy,best,best_next --dtype f16 --size 48x64 --batch 6000 --reps 15 --format csv >>$O/batch/f16.csv 2>&1
  for n in 8192 32768 65536; do
    timeout 25 $B --variants memcpy,best,best_next --dtype u8 --size 64x64 --batch $n --reps 15 --format csv >>$O/batch/u8.csv 2>&1; done ) &
wait
grep -hE "==|passed|failed|Failed|Timeout" $O/g0-summary.txt
python3 bench/sweep_compare.py --a $O/ab/old_*.md --b $O/ab/new_*.md --tol 0.02 > $O/ab/compare.txt 2>&1; tail -30 $O/ab/compare.txt
cp /tmp/g0/ctest_gpu.log /tmp/build/env.txt $O/ 2>/dev/null
tar czf $FINAL/c1.tgz -C $O .; ls -la $FINAL
