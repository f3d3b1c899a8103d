#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 4, GPU call 2: the helpers' checkpoint branches (nd4, u8s, u8t: `git archive` of each
# into .wt/NAME, git-ignored) built side by side with main; each runs its own candidate
# routes against the current ones in one run (best vs best_next, ttc --ab), plus main's
# dependent-launch test and the tiny graph nodes (best vs best_next = with dependent launch).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
OUT=${OUT:-/tmp/out}; R=/tmp/res; mkdir -p $OUT $R/main $R/nd4 $R/u8s $R/u8t
ROOT=$PWD
bld() {  # bld DIR TARGETS...: configure and build the h200 preset of one tree
  local d=$1; shift
  (cd $d && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/dev/null 2>&1 && cmake --build --preset h200 -j 8 --target "$@" 2>&1 | tail -3)
}
pack() { (cd /tmp && tar czf $OUT/res.tgz res); }
t0=$SECONDS
bld . xpose_cuda_tests xpose-bench >$R/main/build.txt 2>&1 &
bld .wt/nd4 xpose_cuda_tests xpose-bench >$R/nd4/build.txt 2>&1 &
bld .wt/u8s xpose_cuda_tests xpose-bench >$R/u8s/build.txt 2>&1 &
bld .wt/u8t xpose_cuda_tests xpose-bench best_bench >$R/u8t/build.txt 2>&1 &
wait; echo "builds: $((SECONDS - t0)) s"; pack
g0() {
  export CUDA_VISIBLE_DEVICES=0
  cd $ROOT; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 60 build-h200/tests/xpose_cuda_tests --gtest_filter='DependentLaunch.*' >$R/main/ctest_dl.txt 2>&1
  timeout 90 $B sweep --graph --class tiny --reps 20 --format md --out $R/main/sweep_graph.md >/dev/null 2>&1; pack
  cd $ROOT/.wt/u8s; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 120 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestShapes.PipelinedSlabs:BestShapes.GroupedSlabs:BestShapes.ChannelShuffles:BestShapes.MicroSlabs:BestShapes.SkinnyPaddedAndOffset:BestShapes.ImageBatches' >$R/u8s/tests.txt 2>&1; tail -3 $R/u8s/tests.txt
  timeout 150 $B sweep --candidate --dtype u8,f16 --class HWxC,CxHW,skinny --format md --out $R/u8s/sweep_ab.md >/dev/null 2>&1
  python3 bench/sweep_summary.py $R/u8s/sweep_ab.md >$R/u8s/summary.txt 2>&1; pack
}
g1() {
  export CUDA_VISIBLE_DEVICES=1
  cd $ROOT/.wt/nd4; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 60 ./build-h200/tests/xpose_cuda_tests --gtest_filter='PermuteGpu.VectorTileCandidatesOnTtcLikeShapes:PermuteGpu.VectorTileCandidatesOnRandomLayouts:PermuteGpu.RunTileCandidateOnShortRuns:PermuteGpu.TtcLikeShapesEveryTileClass' >$R/nd4/tests.txt 2>&1; tail -3 $R/nd4/tests.txt
  timeout 60 $B ttc --dtype f16 --ab --kernels vtile,vtile_tuned,vtile_fit,vtile_rows,vtile_rows_packed --cases 15,18,19,21,22,24,33,34,39,45,48,49,54,56 >$R/nd4/ab_f16.txt 2>&1
  timeout 50 $B ttc --dtype f32 --ab --kernels vtile,vtile_tuned,vtile_fit,vtile_rows,vtile_rows_packed --cases 21,33,34,39,48,54,55,56 >$R/nd4/ab_f32.txt 2>&1
  timeout 40 $B ttc --dtype f16,f32 --ab --kernels policy,vtile,vtile_fit --cases 27,29,42,44 >$R/nd4/ab_copies.txt 2>&1; pack
  cd $ROOT/.wt/u8t; B=build-h200/tools/xpose-bench/xpose-bench
  timeout 60 ./build-h200/tests/xpose_cuda_tests --gtest_filter='BestAsync.*:Best.*:BestNextSkew.*:BestShapes.SmallMatrixBatches' >$R/u8t/tests.txt 2>&1; tail -3 $R/u8t/tests.txt
  timeout 90 $B sweep --candidate --dtype u8,f16 --class square,batch,odd --format md --out $R/u8t/sweep_ab.md >/dev/null 2>&1
  python3 bench/sweep_summary.py $R/u8t/sweep_ab.md >$R/u8t/summary.txt 2>&1; pack
  timeout 40 $B --variants memcpy,best,best_next --dtype u8 --size 16384x16384,16383x16385 --reps 10 >$R/u8t/big.txt 2>&1
  timeout 30 $B --variants memcpy,best,best_next --dtype f16 --size 16383x8193 --reps 10 >>$R/u8t/big.txt 2>&1; pack
  timeout 40 ./build-h200/bench/best_bench --async >$R/u8t/best_bench_async.txt 2>&1; pack
}
export -f g0 g1 pack; export R ROOT OUT
( timeout 330 bash -c g0 ) >$R/g0.log 2>&1 &
( timeout 330 bash -c g1 ) >$R/g1.log 2>&1 &
wait; pack
tail -2 $R/*/build.txt; tail -3 $R/main/ctest_dl.txt; grep -h "tests\|PASSED\|FAILED" $R/*/tests.txt | tail -12
ls -la $OUT
