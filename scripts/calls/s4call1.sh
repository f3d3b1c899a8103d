#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .baseline .peers).
# Session 4, GPU call 1: issue 11's last row (best_f32_rows_tile_default side by side, and the
# before/after with the candidate), every N-d kernel on TTC-57 in f32 and f16, LibreTT against
# xpose's f64 TTC on the same GPU, and Nsight Compute sections of the slowest sweep kernels.
export JOBS=32 STEP_TIMEOUT=420
OUT=${OUT:-/tmp/out}
( cmake -S .baseline -B /tmp/base -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF >/dev/null &&
    cmake --build /tmp/base -j 8 --target xpose-bench >/dev/null ) &
( cmake -S .peers/librett -B /tmp/librett -G Ninja -DENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build /tmp/librett -j 8 --target librett_bench >/dev/null ) &
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
wait
# extra files of GPU k, packed after every stage (the call may stop at its time limit)
pack() { (cd /tmp && tar czf $OUT/$1-extra.tgz $(ls -d $1/rows_*.csv $1/ncu_*.txt 2>/dev/null)); }
export B=build-h200/tools/xpose-bench/xpose-bench OUT
g0() {
  export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1
  scripts/gpu.sh sweep-ab:f32:CxHW,skinny,batch ttc-ab:f32
  L=/tmp/g0; O=/tmp/base/tools/xpose-bench/xpose-bench
  for k in 1 2 3; do
    timeout 60 $O --variants memcpy,best --dtype f32 --size 32x100000,64x100000,48x100000 --reps 30 --format csv --out $L/rows_before_$k.csv >/dev/null 2>&1
    timeout 60 $B --variants memcpy,best,best_next --dtype f32 --size 32x100000,64x100000,48x100000 --reps 30 --format csv --out $L/rows_after_$k.csv >/dev/null 2>&1
  done; pack g0
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
  n=0
  for a in "--dtype u8 --batch 27 --size 50177x24" "--dtype u8 --batch 83 --size 50177x8" "--dtype u8 --size 7x4793490" \
           "--dtype u8 --size 16384x16384" "--dtype u8 --batch 16384 --size 64x64" "--dtype u8 --batch 27 --size 24x50176" "--dtype f16 --size 8191x8195"; do
    n=$((n+1)); timeout 60 $NCU -k regex:"slab|tile|skew" -c 1 $S $B --variants best --warmup 0 --reps 1 $a >$L/ncu_$n.txt 2>&1; pack g0
  done
}
g1() {
  export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1
  scripts/gpu.sh librett ttc:f64 ttc-ab:f16
  L=/tmp/g1; NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
  for c in 44 48; do for d in f32 f16; do
    timeout 60 $NCU -k regex:"nd_" -c 1 $S $B ttc --cases $c --dtype $d --warmup 0 --reps 1 >$L/ncu_ttc${c}_$d.txt 2>&1; pack g1
  done; done
}
( timeout 470 bash -c "$(declare -f g0 pack); g0" ) >/tmp/g0.log 2>&1 &
( timeout 470 bash -c "$(declare -f g1 pack); g1" ) >/tmp/g1.log 2>&1 &
wait
cat /tmp/g0/summary.txt /tmp/g1/summary.txt | grep -E "rc=|^summary|median" | head -40
ls -la $OUT
