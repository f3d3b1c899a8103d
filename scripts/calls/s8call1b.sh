#!/usr/bin/env bash
# Run from the repository root on the GPU machine right after s8call1a.sh (warm machine, builds kept; carry .deps only).
# GPU 0: every gpu-labelled test, then the Fast-path cases (scripts/gpu.sh best: no regression), then tiny
# calls in a CUDA graph (sweep-graph). GPU 1: compute-sanitizer memcheck on the session-7 direct and deep
# scatter tests (the direct scatter's slack past its staging buffers, dac526f), the same-run A/B of the
# pipelined scatters (main vs .wt/nd: buffer count read at run time vs compile-time 2), Nsight Compute
# profiles of the rows the session's helpers work on, and the side-by-side sweep (best_next).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0 JOBS=32 STEP_TIMEOUT=300
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
FINAL=${OUT:-/tmp/out}; export OUT=/tmp/o; mkdir -p $OUT
B=build-h200/tools/xpose-bench/xpose-bench; ND=.wt/nd/build-h200/tools/xpose-bench/xpose-bench
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1
  timeout 280 scripts/gpu.sh ctest:gpu >/dev/null 2>&1
  LOGS=g0b timeout 110 scripts/gpu.sh best sweep-graph >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1; mkdir -p /tmp/g1
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 build-h200/tests/xpose_cuda_tests \
    --gtest_filter='BestDeep.*' >/tmp/g1/memcheck.txt 2>&1; echo "memcheck rc=$?" >>/tmp/g1/memcheck.txt
  rows="u8:20:50177x32 u8:6:50177x96 u8:27:50176x24 u8:27:50177x24 u8:167:50177x4 u8:13:50177x48 u8:111:50177x6
        f16:3:50177x96 f16:2:50177x128 f16:83:50177x4 c64:5:50177x16 f32:20:50177x8"
  for k in 1 2; do for r in $rows; do IFS=: read t b s <<<"$r"
    for bin in $B $ND; do [ $k = 2 ] && bin=$([ $bin = $B ] && echo $ND || echo $B)
      echo "## $k $bin"; timeout 20 $bin --variants memcpy,best --dtype $t --batch $b --size $s --reps 15 --format csv
    done; done; done >/tmp/g1/ab.txt 2>&1
  mkdir -p /tmp/g1/ncu; i=0
  SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats"
  for r in u8:27:50177x24 u8:27:50176x24 u8:6:50177x96 u8:6:50176x96 u8:167:50177x4 f16:3:50177x96 \
           u8:111:6x50177 u8:111:6x50176 u8:256:2x50177 f16:167:2x50177 \
           c64:1:32x131072 f32:1:32x262144 u8:1:5759x5763 f16:1:4095x4099 f16:1:4096x4097; do
    IFS=: read t b s <<<"$r"; i=$((i + 1))
    timeout 30 ncu $SEC -k regex:'slab_kernel|pipe_kernel|tile_kernel|skew|realign|direct_kernel|async' -c 1 $B --variants best --dtype $t --batch $b --size $s --reps 1 --warmup 0 \
      >/tmp/g1/ncu/ncu_${t}_${b}x${s}.txt 2>&1
  done
  LOGS=g1s NOBUILD=1 timeout 150 scripts/gpu.sh sweep-ab >/dev/null 2>&1 ) &
wait
cat /tmp/g0/summary.txt /tmp/g0b/summary.txt /tmp/g1s/summary.txt > $FINAL/summary.txt 2>/dev/null
cp /tmp/g1/ab.txt /tmp/g1/memcheck.txt $FINAL/ 2>/dev/null; cp /tmp/g1s/sweep_ab.md $FINAL/ 2>/dev/null
tar czf $FINAL/ncu.tgz -C /tmp/g1 ncu; tar czf $FINAL/logs.tgz -C $OUT .
grep -hE "rc=|tests passed|tests failed|Failed|Timeout" $FINAL/summary.txt | head -30
tail -3 /tmp/g1/memcheck.txt
python3 bench/sweep_summary.py $FINAL/sweep_ab.md 2>/dev/null | head -20
ls -la $FINAL
