#!/usr/bin/env bash
# Run from the repository root on the GPU machine right after s8call2a.sh (warm machine; carry .deps only).
# GPU 0: main's GPU tests (.wt/main: ctest -L gpu), then the trees in G0; GPU 1: the trees in G1. Each
# tree runs scripts/calls/${PREFIX}_<tree>.sh (its helper's commands) from its root with OUT=$OUT/<tree>.
OUT=${OUT:-/tmp/out}
PREFIX=${PREFIX:-s8c2}
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
R=$PWD
runtree() { mkdir -p $OUT/$1; ( cd .wt/$1 && OUT=$OUT/$1 timeout ${BTIME:-120} bash $R/scripts/calls/${PREFIX}_$1.sh >$OUT/$1/log.txt 2>&1 ); }
( export CUDA_VISIBLE_DEVICES=0; mkdir -p $OUT/main
  ( cd .wt/main && timeout 240 ctest --preset h200 -L gpu -j 4 --timeout 230 --output-on-failure >$OUT/main/ctest_gpu.txt 2>&1 )
  for t in ${G0:-}; do runtree $t; done ) &
( export CUDA_VISIBLE_DEVICES=1; for t in ${G1:-}; do runtree $t; done ) &
wait
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" $OUT/main/ctest_gpu.txt
for t in ${G0:-} ${G1:-}; do echo "######## $t"; grep -E "tests passed|tests failed|FAILED|PASSED|Failed" $OUT/$t/log.txt | head -8; done
cd $OUT && for t in $(ls); do [ -d $t ] && tar czf $t.tgz $t && rm -rf $t; done; ls -la $OUT  # (each folder once: call 2 listed main twice and lost it)
