#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 7, GPU call 1: the helper branches' first candidates, each merged with main and carried as a
# source tree in .wt/<branch>, built side by side; each runs its GPU tests and its side-by-side
# benchmarks (commands: scripts/calls/${PREFIX}_<branch>.sh, PREFIX=s7c1 by default, copied from the helpers'
# notes; call 2 ran this script with PREFIX=s7c2: scripts/calls/s7call2.sh). Branches are
# spread over the GPUs round-robin; on each GPU they run one after the other.
OUT=${OUT:-/tmp/out}
PREFIX=${PREFIX:-s7c1}
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
BR=${BR:-"g12 w48 odd s12 sqw"}
n=$(echo $BR | wc -w); ngpu=$(nvidia-smi -L | wc -l); jobs=$(( $(nproc) / n )); [ $jobs -lt 2 ] && jobs=2
for t in $BR; do
  ( cd .wt/$t && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg_$t.log 2>&1 &&
      cmake --build --preset h200 -j $jobs --target xpose_cuda_tests xpose-bench best_bench >/tmp/build_$t.log 2>&1
    echo "$t build rc=$? $(date -u +%T)" ) &
done
wait
for t in $BR; do grep -m5 -E "error" /tmp/build_$t.log /tmp/cfg_$t.log; done
i=0
for g in $(seq 0 $((ngpu - 1))); do
  list=""; k=0
  for t in $BR; do [ $((k % ngpu)) -eq $g ] && list="$list $t"; k=$((k + 1)); done
  ( export CUDA_VISIBLE_DEVICES=$g; for t in $list; do
      ( cd .wt/$t && mkdir -p $OUT/$t && OUT=$OUT/$t timeout ${BTIME:-150} bash ../../scripts/calls/${PREFIX}_$t.sh >$OUT/$t/log.txt 2>&1 )
    done ) &
done
wait
for t in $BR; do echo "######## $t"; grep -E "tests passed|tests failed|FAILED|PASSED|Failed" $OUT/$t/log.txt | head -8; done
cd $OUT && for t in $BR; do tar czf $t.tgz $t && rm -rf $t; done; ls -la $OUT
