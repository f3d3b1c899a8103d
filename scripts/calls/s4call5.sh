#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200; carry .deps).
# Session 4, GPU call 5: the four GPU tests that failed in call 4 (after the fixes), then
# every other gpu-labelled test, on the final tree; only the test binaries are built.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
cmake --preset h200 >$OUT/configure.txt 2>&1 &&
  cmake --build --preset h200 -j 16 --target xpose_cuda_tests xpose_inplace_cuda_tests xpose_fuzz >$OUT/build.txt 2>&1 ||
  { tail -30 $OUT/build.txt; exit 1; }
F='GraphCaptureNoAllocationNoSync|MicroWholeBatches|OddRowLengths|compute_sanitizer'
ctest --preset h200 -R "$F" -j 4 --timeout 100 --output-on-failure >$OUT/first.txt 2>&1
grep -E "tests passed|tests failed|Failed|sanitizers:" $OUT/first.txt
ctest --preset h200 -L gpu -E "dist|$F" -j 4 --timeout 100 --output-on-failure >$OUT/rest.txt 2>&1
grep -E "tests passed|tests failed|Failed|Not Run" $OUT/rest.txt | head
