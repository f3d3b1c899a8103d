#!/usr/bin/env bash
# Run from the repository root on the GPU machine: bash scripts/calls/call2.sh (device tool; carry .deps, and .baseline for the before/after).
# GPU call 2 (session 3), two H200s: the flipped tree (best = new routes, best_next = the routes they replaced).
export JOBS=32 STEP_TIMEOUT=300
OUT=${OUT:-/tmp/out}
LOGS=build scripts/gpu.sh || { echo BUILD FAILED; grep -E "error" /tmp/build/*.log | head; exit 1; }
( L=$OUT/cpu; mkdir -p $L; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 120 taskset -c 28-31 build-h200/tests/xpose_cpu_tests --gtest_brief=1 --gtest_filter='PermuteHost.*:CpuBackend*:CpuTarget*:Reference*' >$L/cpu_tests.txt 2>&1
  timeout 200 taskset -c 30,31 $B ttc --cpu --threads 2 --dtype f32 >$L/ttc_cpu.txt 2>&1
  timeout 200 taskset -c 30,31 $B ttc --cpu --threads 2 --dtype f32 --scale-mib 512 >$L/ttc_cpu_512.txt 2>&1
  timeout 150 taskset -c 30,31 $B --cpu --threads 2 --size 16384x16384 --dtype u8,f16,f32,f64 --variants memcpy,xpose_cpu --reps 3 --warmup 1 >$L/squares.txt 2>&1
  timeout 100 taskset -c 30,31 $B --cpu --threads 2 --size 11585x11585 --dtype c128 --variants memcpy,xpose_cpu --reps 3 --warmup 1 >>$L/squares.txt 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=0 LOGS=g0 NOBUILD=1 STEP_TIMEOUT=200
  timeout 540 scripts/gpu.sh ctest:gpu sweep-ab sweep-graph python host-overhead >/dev/null 2>&1 ) &
( export CUDA_VISIBLE_DEVICES=1 LOGS=g1 NOBUILD=1 STEP_TIMEOUT=250
  B=build-h200/tools/xpose-bench/xpose-bench; L=$OUT/g1x; mkdir -p $L
  timeout 130 $B ttc --dtype f32 --ab >$L/ttc_f32_ab.txt 2>&1
  timeout 150 $B ttc --dtype f64 --ab >$L/ttc_f64_ab.txt 2>&1
  timeout 90 $B ttc --dtype f16 >$L/ttc_f16.txt 2>&1
  timeout 200 scripts/gpu.sh baseline >/dev/null 2>&1 ) &
wait
grep -hE "rc=|tests passed|tests failed|Failed|Timeout|passed|failed" /tmp/g0/summary.txt /tmp/g1/summary.txt | head -30
grep -h "^summary" $OUT/g1x/ttc_*.txt; grep -A14 "^best_next / best" /tmp/g0/summary.txt | head -16
tar czf $OUT/extra.tgz -C $OUT g1x cpu && rm -rf $OUT/g1x $OUT/cpu; ls -la $OUT
