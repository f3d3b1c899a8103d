#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 6, GPU call 2: the four helper branches' first candidates, each merged with main (the tiny
# 4-8 byte candidate and the halo sides on) and carried as a source tree in .wt/<branch>, built side by
# side; each runs its GPU tests and its side-by-side benchmarks (commands: /work/wt/notes/<branch>.gpu,
# copied below). GPU 0: gath, skew; GPU 1: f32w, sq.
OUT=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
for t in gath f32w skew sq; do
  ( cd .wt/$t && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg_$t.log 2>&1 &&
      cmake --build --preset h200 -j 8 --target xpose_cuda_tests xpose-bench best_bench >/tmp/build_$t.log 2>&1
    echo "$t build rc=$?" ) &
done
wait
for t in gath f32w skew sq; do grep -m5 -E "error" /tmp/build_$t.log /tmp/cfg_$t.log; done
( export CUDA_VISIBLE_DEVICES=0; for t in gath skew; do
    ( cd .wt/$t && mkdir -p $OUT/$t && OUT=$OUT/$t timeout 190 bash ../../scripts/calls/s6c2_$t.sh >$OUT/$t/log.txt 2>&1 ); done ) &
( export CUDA_VISIBLE_DEVICES=1; for t in f32w sq; do
    ( cd .wt/$t && mkdir -p $OUT/$t && OUT=$OUT/$t timeout 190 bash ../../scripts/calls/s6c2_$t.sh >$OUT/$t/log.txt 2>&1 ); done ) &
wait
for t in gath f32w skew sq; do echo "######## $t"; grep -E "tests passed|tests failed|FAILED|PASSED|Failed" $OUT/$t/log.txt | head -8; done
cd $OUT && for t in gath f32w skew sq; do tar czf $t.tgz $t && rm -rf $t; done; ls -la $OUT
