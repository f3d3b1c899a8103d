#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 4, GPU call 3: the helpers' second checkpoints (`git archive` of branches nd4, u8s,
# u8t, w4 into .wt/NAME, git-ignored), each built and run with its own candidates against
# the current routes in one run (best vs best_next, ttc --ab); u8t's tree (main merged)
# also times the tiny graph nodes with the tiny narrow-tile candidate.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
OUT=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $OUT $R/nd4 $R/u8s $R/u8t $R/w4
ROOT=$PWD
bld() {
  local d=$1; shift
  (cd $d && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/dev/null 2>&1 && cmake --build --preset h200 -j 8 --target "$@" 2>&1 | tail -3)
}
pack() { (cd /tmp && tar czf $OUT/res.tgz res); }
t0=$SECONDS
bld .wt/nd4 xpose_cuda_tests xpose-bench >$R/nd4/build.txt 2>&1 &
bld .wt/u8s xpose_cuda_tests xpose-bench >$R/u8s/build.txt 2>&1 &
bld .wt/u8t xpose_cuda_tests xpose-bench best_bench >$R/u8t/build.txt 2>&1 &
bld .wt/w4 xpose_cuda_tests xpose-bench interleave_bench >$R/w4/build.txt 2>&1 &
wait; echo "builds: $((SECONDS - t0)) s"; pack
g0() {
  export CUDA_VISIBLE_DEVICES=0
  cd $ROOT/.wt/u8s; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 60 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestShapes.PipelinedSlabs:BestShapes.GroupedSlabs:BestShapes.ChannelShuffles:BestShapes.MicroSlabs:BestShapes.SkinnyPaddedAndOffset:BestShapes.ImageBatches' >$R/u8s/tests.txt 2>&1
  timeout 100 $B sweep --candidate --dtype u8,f16 --class HWxC,CxHW,skinny --format md --out $R/u8s/sweep_ab.md >/dev/null 2>&1
  python3 bench/sweep_summary.py $R/u8s/sweep_ab.md >$R/u8s/summary.txt 2>&1
  for a in "--size 50177x24 --batch 216" "--size 7x38347922" "--size 50177x96 --batch 48"; do
    timeout 20 $B --variants memcpy,best,best_next --dtype u8 $a --reps 10 >>$R/u8s/rows.txt 2>&1; done; pack
  cd $ROOT/.wt/w4; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 40 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestInterleave.*:BestShapes.ChannelShuffles' >$R/w4/tests.txt 2>&1
  timeout 80 $B sweep --candidate --dtype f32,f64,c64 --class CxHW,HWxC --format md --out $R/w4/sweep_ab.md >/dev/null 2>&1
  python3 bench/sweep_summary.py $R/w4/sweep_ab.md >$R/w4/summary.txt 2>&1; pack
  timeout 30 ./build-h200/bench/interleave_bench >$R/w4/interleave_bench.txt 2>&1; pack
}
g1() {
  export CUDA_VISIBLE_DEVICES=1
  cd $ROOT/.wt/nd4; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 60 ./build-h200/tests/xpose_cuda_tests --gtest_filter='PermuteGpu.VectorTileCandidatesOnTtcLikeShapes:PermuteGpu.VectorTileCandidatesOnRandomLayouts:PermuteGpu.RunTileCandidateOnShortRuns' >$R/nd4/tests.txt 2>&1
  timeout 80 $B ttc --dtype f16 --ab --kernels vtile,vtile_rows_auto,vtile_rows_occ --cases 9,10,11,15,16,17,18,19,20,21,22,23,24,25,26,27,29,30,31,32,33,34,35,36,37,38,39,40,41,42,44,45,46,47,48,49,50,51,52,53,54,55,56 >$R/nd4/ab_f16.txt 2>&1
  timeout 50 $B ttc --dtype f32 --ab --kernels vtile,vtile_rows_auto --cases 15,18,24,27,29,30,33,36,39,42,44,45,48,51,54 >$R/nd4/ab_f32.txt 2>&1; pack
  cd $ROOT/.wt/u8t; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 40 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestAsync.*:Best.RealignEveryOffset:Best.Batches:DependentLaunch.*:BestShapes.TinyNarrowTile' >$R/u8t/tests.txt 2>&1
  timeout 60 $B sweep --candidate --dtype u8,f16 --class square,batch,odd --format md --out $R/u8t/sweep_ab.md >/dev/null 2>&1
  python3 bench/sweep_summary.py $R/u8t/sweep_ab.md >$R/u8t/summary.txt 2>&1; pack
  timeout 30 $B sweep --graph --class tiny --reps 20 --format md --out $R/u8t/sweep_graph.md >/dev/null 2>&1; pack
  timeout 30 ./build-h200/bench/best_bench --async >$R/u8t/best_bench_async.txt 2>&1; pack
}
export -f g0 g1 pack; export R ROOT OUT
( timeout 300 bash -c g0 ) >$R/g0.log 2>&1 &
( timeout 300 bash -c g1 ) >$R/g1.log 2>&1 &
wait; pack
for b in nd4 u8s u8t w4; do echo "== $b"; tail -n 2 $R/$b/build.txt; grep -hE "PASSED|FAILED" $R/$b/tests.txt | tail -3; done
ls -la $OUT
