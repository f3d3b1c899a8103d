#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 9, GPU call 1a: the build alone. .wt/main (this tree) whole; .wt/old (cd2b244, session 7's
# final tree) xpose-bench only, for the same-node regression check; each helper tree (.wt/<branch>,
# merged with main) xpose_cuda_tests xpose-bench best_bench. Call 1b (s9call1b.sh) runs right after.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
BR=${BR:-$(ls .wt)}
n=$(echo $BR | wc -w); jobs=$(( $(nproc) / n )); [ $jobs -lt 4 ] && jobs=4
for t in $BR; do
  tg="--target xpose_cuda_tests xpose-bench best_bench"; [ $t = main ] && tg=""; [ $t = old ] && tg="--target xpose-bench"
  ( cd .wt/$t && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg_$t.log 2>&1 &&
      cmake --build --preset h200 -j $jobs $tg >/tmp/build_$t.log 2>&1
    echo "$t build rc=$? $(date -u +%T)" ) &
done
wait
for t in $BR; do grep -m5 -E "error" /tmp/build_$t.log /tmp/cfg_$t.log; done
