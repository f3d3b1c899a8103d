#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 8, GPU call 2a: the build alone. Each tree in .wt/<name> (a helper branch merged with main, or
# main itself: .wt/main) is configured with the h200 preset and built side by side: .wt/main whole (its
# GPU tests run in call 2b), the others xpose_cuda_tests xpose-bench best_bench. Call 2b
# (scripts/calls/s8call2b.sh) runs on the warm machine right after, without carrying .wt again.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
BR=${BR:-$(ls .wt)}
n=$(echo $BR | wc -w); jobs=$(( $(nproc) / n )); [ $jobs -lt 4 ] && jobs=4
for t in $BR; do
  tg="--target xpose_cuda_tests xpose-bench best_bench"; [ $t = main ] && tg=""
  ( cd .wt/$t && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg_$t.log 2>&1 &&
      cmake --build --preset h200 -j $jobs $tg >/tmp/build_$t.log 2>&1
    echo "$t build rc=$? $(date -u +%T)" ) &
done
wait
for t in $BR; do grep -m5 -E "error" /tmp/build_$t.log /tmp/cfg_$t.log; done
