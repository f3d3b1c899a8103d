#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 8, GPU call 1a: the build alone (main's whole tree, and .wt/nd's xpose-bench: main with the
# pipelined scatter's buffer count a compile-time 2 again and its launch sized for two buffers, for the
# same-run A/B of call 1b). The machine stays warm for call 1b (scripts/calls/s8call1b.sh).
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
export PKG_CONFIG_PATH=$PWD/.deps/hwy/lib/pkgconfig LD_LIBRARY_PATH=$PWD/.deps/hwy/lib
( cd .wt/nd && cmake --preset h200 -DXPOSE_BUILD_BENCH=ON >/tmp/cfg_nd.log 2>&1 &&
    cmake --build --preset h200 -j 12 --target xpose-bench >/tmp/build_nd.log 2>&1; echo "nd build rc=$? $(date -u +%T)" ) &
JOBS=24 LOGS=build scripts/gpu.sh >/dev/null 2>&1; echo "main build rc=$? $(date -u +%T)"
wait
grep -m5 -E "error" /tmp/build/build.log /tmp/build_nd.log /tmp/cfg_nd.log
ls -la build-h200/tools/xpose-bench/xpose-bench .wt/nd/build-h200/tools/xpose-bench/xpose-bench
