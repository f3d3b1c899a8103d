#!/usr/bin/env bash
# Run from the repository root on the GPU machine: bash scripts/calls/call1.sh (device tool; carry .deps, and .baseline for the before/after).
# GPU call 1 (session 3), one H200: build once, then the GPU steps in series and host-CPU steps beside them.
export JOBS=16 STEP_TIMEOUT=300
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; exit 1; }
( L=$OUT/cpu; mkdir -p $L; B=build-h200/tools/xpose-bench/xpose-bench
  lscpu | head -20 >$L/lscpu.txt
  timeout 120 taskset -c 12-15 build-h200/tests/xpose_cpu_tests --gtest_brief=1 --gtest_filter='PermuteHost.*:CpuBackend*:CpuTarget*:Reference*' >$L/cpu_tests.txt 2>&1
  timeout 200 taskset -c 14,15 $B ttc --cpu --threads 2 --dtype f32 >$L/ttc_cpu.txt 2>&1
  timeout 150 taskset -c 14,15 $B --cpu --threads 2 --size 8192x8192 --dtype u8,f16,f32,f64,c128 --variants memcpy,xpose_cpu --reps 5 --warmup 1 >$L/squares.txt 2>&1
  for a in "19771x6789 u8" "4943x6789 f32" "2473x6789 f64" "1048577x32 f32"; do set -- $a
    timeout 60 taskset -c 14,15 $B --cpu --threads 2 --size $1 --dtype $2 --variants memcpy,xpose_cpu --reps 5 --warmup 1 >>$L/weak.txt 2>&1; done
  timeout 60 taskset -c 14,15 $B --cpu --threads 2 --size 8x8 --batch 2097152 --dtype u8 --variants memcpy,xpose_cpu --reps 5 --warmup 1 >>$L/weak.txt 2>&1 ) &
( export LOGS=g0 NOBUILD=1
  B=build-h200/tools/xpose-bench/xpose-bench; L=$OUT/g1x; mkdir -p $L
  timeout 200 build-h200/tests/xpose_cuda_tests --gtest_brief=1 --gtest_filter='BestShapes.*:Best.*:BestNext*:PermuteGpu.*' >$L/gtests.txt 2>&1; echo "gtest rc=$?" >>$L/gtests.txt
  scripts/gpu.sh "sweep-ab:u8,f16,f32:CxHW,HWxC,batch,square" >/dev/null 2>&1; cp /tmp/g0/sweep_ab.md $L/sweep_ab1.md
  scripts/gpu.sh "sweep-ab::odd" >/dev/null 2>&1; cp /tmp/g0/sweep_ab.md $L/sweep_ab_odd.md
  timeout 60 $B --variants memcpy,best,best_next --size 16383x16385,8191x8195,16384x16384 --dtype i8,f16,f32,f64 --reps 10 >$L/realign_shapes.txt 2>&1
  timeout 200 $B ttc --dtype f32 --ab >$L/ttc_f32_ab.txt 2>&1 ) &
wait
for f in $OUT/g1x/sweep_ab1.md $OUT/g1x/sweep_ab_odd.md; do python3 bench/sweep_summary.py $f >$f.summary 2>&1; done
grep -E "rc=|FAILED" /tmp/build/summary.txt; tail -5 $OUT/g1x/gtests.txt; grep -h -A12 "^best_next / best" $OUT/g1x/*.summary
tar czf $OUT/extra.tgz -C $OUT g1x cpu && rm -rf $OUT/g1x $OUT/cpu; ls -la $OUT
