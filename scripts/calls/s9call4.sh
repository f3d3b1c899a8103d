#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps).
# Session 9, call 4: the sides-2-3 rule of the scatter slab table (batches only, 6eea65c) on the GPU:
# the GPU tests of the scatter routes and the one-matrix row it restores, beside a batched twin.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg.log 2>&1 && cmake --build --preset h200 -j 32 --target xpose_cuda_tests xpose-bench >/tmp/build.log 2>&1
echo "build rc=$? $(date -u +%T)"; grep -m5 error /tmp/build.log
( CUDA_VISIBLE_DEVICES=0 timeout 150 ./build-h200/tests/xpose_cuda_tests \
    --gtest_filter='BestScatterSlab.*:BestHalo.*:BestShapes.*:BestDirect.*:BestInterleave.*' >$OUT/tests.txt 2>&1; echo "tests rc=$?" >>$OUT/tests.txt ) &
( export CUDA_VISIBLE_DEVICES=1; B=./build-h200/tools/xpose-bench/xpose-bench
  for k in 1 2; do $B --variants memcpy,best --dtype u8 --size 11184810x3,50177x3,50177x2 --reps 15 --format csv 2>&1 | grep -vi "^size"
    $B --variants memcpy,best --dtype u8 --batch 222 --size 50177x3 --reps 15 --format csv 2>&1 | grep best; done >$OUT/rows.txt ) &
wait
tail -4 $OUT/tests.txt; cat $OUT/rows.txt
