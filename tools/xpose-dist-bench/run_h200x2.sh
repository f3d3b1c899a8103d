#!/usr/bin/env bash
# On the two-GPU machine (nvidia-h200-x2): build xpose::dist for sm_90, run its tests
# (label dist: the NCCL test on 2 GPUs, the host-only plan tests, the MPI tests when
# MPI is installed) and xpose-dist-bench (issue 15's table and the chunk sweep).
# Logs go to $OUT. Fits one 10-minute call (build ~2-3 min on 16 cores, tests < 1 min,
# benchmarks ~3 min). Usage: tools/xpose-dist-bench/run_h200x2.sh [--torch]
#   --torch: also pip-installs xpose and runs bench/dist_torch.py and the torch tests
#            (a second call: the extension build takes minutes).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvidia-smi topo -m; nvcc --version | tail -2;
  ls /usr/include/nccl.h /usr/local/cuda/include/nccl.h 2>&1; which mpirun; git log --oneline -1; } > "$OUT/dist_env.txt" 2>&1
cat "$OUT/dist_env.txt"
B=build-h200
if [[ " $* " != *" --torch "* ]]; then
  cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >"$OUT/dist_build.log" 2>&1 &&
  cmake --build $B -j16 --target xpose_dist_nccl_tests xpose_dist_plan_tests xpose-dist-bench >>"$OUT/dist_build.log" 2>&1 ||
    { grep -E "error|xpose::dist" "$OUT/dist_build.log" | head -30; exit 1; }
  cmake --build $B -j16 --target xpose_dist_mpi_tests >>"$OUT/dist_build.log" 2>&1 || echo "(no MPI on this machine: MPI tests not built)"
  grep "xpose::dist" "$OUT/dist_build.log"
  echo "== build ok"
  timeout 200 ./$B/tests/dist/xpose_dist_nccl_tests >"$OUT/dist_nccl_tests.log" 2>&1; echo "NCCL tests rc=$?"; grep -E "FAIL|passed" "$OUT/dist_nccl_tests.log"
  (cd $B && timeout 200 ctest -L dist -E "dist_nccl|python" --output-on-failure) >"$OUT/dist_ctest.log" 2>&1; echo "ctest -L dist rc=$?"; tail -4 "$OUT/dist_ctest.log"
  X=./$B/tools/xpose-dist-bench/xpose-dist-bench
  # Issue 15's table (fp32) with the chunk sweep, then 1- and 2-byte types, then batched.
  timeout 200 $X --sizes 8192,16384,32768,65536 --types f32 --chunks 0,1,2,4,8,16 --json "$OUT/dist_f32.json" | tee "$OUT/dist_f32.txt"
  timeout 120 $X --sizes 8192,16384,32768,65536 --types bf16,u8 --chunks 0,4,8 --json "$OUT/dist_small.json" | tee "$OUT/dist_small.txt"
  timeout 100 $X --sizes 16384,32768 --types f32,u8 --batch 4 --chunks 0,8 --json "$OUT/dist_batched.json" | tee "$OUT/dist_batched.txt"
else
  CMAKE_BUILD_PARALLEL_LEVEL=16 timeout 420 python3 -m pip install -q . -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 >"$OUT/dist_pip.log" 2>&1; echo "pip rc=$?"; tail -3 "$OUT/dist_pip.log"
  timeout 120 torchrun --nproc_per_node 2 bench/dist_torch.py | tee "$OUT/dist_torch.txt"
  timeout 120 python3 -m pytest -q tests/python/test_dist_torch.py 2>&1 | tail -5
fi
