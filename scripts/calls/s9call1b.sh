#!/usr/bin/env bash
# Run from the repository root on the GPU machine right after s9call1a.sh (warm machine; carry .deps only).
# GPU 0: main's GPU tests (.wt/main: ctest -L gpu), then each helper tree's commands
# (scripts/calls/s9c1_<tree>.sh, from its root, OUT=$OUT/<tree>). GPU 1, alone: the regression check:
# the whole sweep of session 7's final tree (.wt/old, cd2b244) and of main, alternately, twice each
# (bench/sweep_compare.py), then both trees' tiny calls as CUDA graph nodes.
OUT=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
R=$PWD
runtree() { mkdir -p $OUT/$1; ( cd .wt/$1 && OUT=$OUT/$1 timeout ${BTIME:-100} bash $R/scripts/calls/s9c1_$1.sh >$OUT/$1/log.txt 2>&1 ); }
( export CUDA_VISIBLE_DEVICES=0; mkdir -p $OUT/main
  ( cd .wt/main && timeout 230 ctest --preset h200 -L gpu -j 4 --timeout 220 --output-on-failure >$OUT/main/ctest_gpu.txt 2>&1 )
  for t in ${G0:-}; do runtree $t; done ) &
( export CUDA_VISIBLE_DEVICES=1; mkdir -p $OUT/ab
  for k in 1 2; do for t in old main; do
    s=$(date +%s); timeout 110 .wt/$t/build-h200/tools/xpose-bench/xpose-bench sweep --reps 7 --format md \
      --out $OUT/ab/${t}_$k.md >$OUT/ab/${t}_$k.log 2>&1; echo "$t $k rc=$? $(( $(date +%s) - s )) s" >>$OUT/ab/times.txt
  done; done
  for t in old main; do timeout 40 .wt/$t/build-h200/tools/xpose-bench/xpose-bench sweep --graph --class tiny --reps 20 \
      --format md --out $OUT/ab/graph_$t.md >/dev/null 2>&1; done
  python3 bench/sweep_compare.py --a $OUT/ab/old_*.md --b $OUT/ab/main_*.md >$OUT/ab/compare.md 2>&1 ) &
wait
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" $OUT/main/ctest_gpu.txt
cat $OUT/ab/times.txt; head -3 $OUT/ab/compare.md
for t in ${G0:-}; do echo "######## $t"; grep -E "tests passed|tests failed|FAILED|PASSED|Failed" $OUT/$t/log.txt | head -8; done
cd $OUT && for t in $(ls); do [ -d $t ] && tar czf $t.tgz $t && rm -rf $t; done; ls -la $OUT
