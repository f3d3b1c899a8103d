#!/usr/bin/env bash
# Cross-builds the CPU tests for aarch64 and runs them under qemu-user: the vector
# kernels must be exact on Arm, and Highway must dispatch a NEON/SVE target there
# (CpuTarget.*). Exit 77 (skipped, with the reason) when the tools are missing.
# Usage: arm64-qemu-test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed (scripts/install-deps.sh)"; exit 77; }
done
[ -f /usr/lib/aarch64-linux-gnu/pkgconfig/libhwy.pc ] ||
  { echo "SKIPPED: libhwy-dev:arm64 is not installed (scripts/install-deps.sh)"; exit 77; }
cmake -S "$src" -B "$work" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DXPOSE_CUDA=OFF -DXPOSE_BUILD_TOOLS=OFF -DXPOSE_PYTHON=OFF >/dev/null
cmake --build "$work" --target xpose_cpu_backend_tests -j "${XPOSE_ARM64_JOBS:-2}" >/dev/null
# qemu-user 7.2 (Debian 12) hangs starting a second thread on the dev machine (even a
# plain two-thread std::thread program), so the emulated run is single-threaded and
# takes the suites of the CPU backend and its oracle only (other suites ask for thread
# counts explicitly); the tests that ask for thread counts, and the slowest
# large-output ones, run natively. A hang still ends: timeout fails the test.
export OMP_NUM_THREADS=1 XPOSE_TEST_EMULATED=1  # test_util.hpp: the size grid without its 4097 extents
exec timeout 900 qemu-aarch64 -L /usr/aarch64-linux-gnu "$work/tests/xpose_cpu_backend_tests" --gtest_brief=1 \
  --gtest_filter='CpuBackend*:CpuTarget*:Reference*-CpuBackend.ThreadCountsAgree:CpuBackend.LargeOutputsStreamingPath:CpuBackend.RowStripsPhasedToCacheLines:CpuBackendShapes.StreamingEveryClass:CpuBackend.OddRowsStreamedAsPanels:CpuBackendShapes.FiveToEightRowsOrColumnsStreamed'
