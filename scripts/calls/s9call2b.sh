#!/usr/bin/env bash
# Run from the repository root on the GPU machine right after s9call2a.sh (warm machine; carry .deps only).
# GPU 0: main's GPU tests (.wt/main: ctest -L gpu), then the Python tests and the host time per call
# (scripts/gpu.sh python-test host-overhead, the package built in call 2a), then the helper trees in G0. GPU 1: each helper tree's
# commands in G1 (scripts/calls/s9c2_<tree>.sh from its root, OUT=$OUT/<tree>), then main's Fast-path
# bench (bench/best_bench, the cases of docs/RESULTS.md "Fast path (best)").
OUT=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
R=$PWD
runtree() { mkdir -p $OUT/$1; ( cd .wt/$1 && OUT=$OUT/$1 timeout ${BTIME:-100} bash $R/scripts/calls/s9c2_$1.sh >$OUT/$1/log.txt 2>&1 ); }
( export CUDA_VISIBLE_DEVICES=0; mkdir -p $OUT/main
  ( cd .wt/main && timeout 230 ctest --preset h200 -L gpu -j 4 --timeout 220 --output-on-failure >$OUT/main/ctest_gpu.txt 2>&1 )
  LOGS=py2 NOBUILD=1 OUT=/tmp/pyo STEP_TIMEOUT=150 timeout 200 scripts/gpu.sh python-test host-overhead >/dev/null 2>&1
  cp -r /tmp/py2 $OUT/main/python 2>/dev/null
  for t in ${G0:-}; do runtree $t; done ) &
( export CUDA_VISIBLE_DEVICES=1; for t in ${G1:-}; do runtree $t; done
  mkdir -p $OUT/fp; timeout ${FPTIME:-150} .wt/main/build-h200/bench/best_bench >$OUT/fp/best_bench.csv 2>$OUT/fp/err.txt
  echo "best_bench rc=$?" >>$OUT/fp/err.txt ) &
wait
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" $OUT/main/ctest_gpu.txt
grep -hE "rc=|passed|failed" $OUT/main/python/summary.txt 2>/dev/null | head -8
for t in ${G0:-} ${G1:-}; do echo "######## $t"; grep -E "tests passed|tests failed|FAILED|PASSED|Failed" $OUT/$t/log.txt | head -8; done
tail -2 $OUT/fp/err.txt
cd $OUT && for t in $(ls); do [ -d $t ] && tar czf $t.tgz $t && rm -rf $t; done; ls -la $OUT
