#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 9, GPU call 2a: the build alone. .wt/main (this tree) whole; each helper tree (.wt/<branch>,
# merged with main) xpose_cuda_tests xpose-bench best_bench; the Python package from the repository
# root (scripts/gpu.sh python-build). Call 2b (s9call2b.sh) runs on the warm machine right after.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
BR=${BR:-$(ls .wt)}
n=$(( $(echo $BR | wc -w) + 1 )); jobs=$(( $(nproc) / n )); [ $jobs -lt 4 ] && jobs=4
for t in $BR; do
  tg="--target xpose_cuda_tests xpose-bench best_bench"; [ $t = main ] && tg=""
  ( cd .wt/$t && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg_$t.log 2>&1 &&
      cmake --build --preset h200 -j $jobs $tg >/tmp/build_$t.log 2>&1
    echo "$t build rc=$? $(date -u +%T)" ) &
done
( NOBUILD=1 JOBS=$jobs LOGS=py OUT=/tmp/pyo scripts/gpu.sh python-build >/dev/null 2>&1; echo "python build rc=$? $(date -u +%T)" ) &
wait
for t in $BR; do grep -m5 -E "error" /tmp/build_$t.log /tmp/cfg_$t.log; done
grep -hE "rc=" /tmp/py/summary.txt 2>/dev/null | head -3
