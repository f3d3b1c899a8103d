// One in-place transpose timed on its own, for Nsight Compute (docs/RESULTS.md "In-place transposes"): the time of
// xpose::transpose_inplace on a rows x cols matrix (best of 4 calls after 2 warm-ups, the orientation alternating as the
// matrix turns; CUDA events), then one more call inside cudaProfilerStart/Stop so that
//   ncu --profile-from-start off --metrics gpu__time_duration.sum,dram__bytes.sum ./inplace_one R C E
// reports each kernel of one call.
//   nvcc -O2 -std=c++17 -arch=sm_90 -Iinclude -Ibuild/include bench/inplace_one.cu -Lbuild -lxpose -o inplace_one
//   ./inplace_one ROWS COLS ELEM_BYTES    (LD_LIBRARY_PATH with libxpose and libhwy)
#include <cuda_profiler_api.h>

#include <cstdio>
#include <cstdlib>

#include "bench_util.hpp"
#include "xpose/xpose.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s ROWS COLS ELEM_BYTES\n", argv[0]);
    return 2;
  }
  const long long m = std::atoll(argv[1]), n = std::atoll(argv[2]);
  const int es = std::atoi(argv[3]);
  const auto d = xpose::matrix_desc::packed(m, n, es), dt = xpose::matrix_desc::packed(n, m, es);
  std::size_t ws = 0;
  if (xpose::status s = xpose::inplace_workspace_size(d, true, &ws); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message());
    return 2;
  }
  const auto bytes = static_cast<std::size_t>(m) * static_cast<std::size_t>(n) * static_cast<std::size_t>(es);
  void *a = nullptr, *w = nullptr;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&w, ws ? ws : 16));
  CK(cudaMemset(a, 1, bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int r = 0; r < 6; ++r) {
    CK(cudaEventRecord(e0));
    const xpose::status s = xpose::transpose_inplace(a, r % 2 ? dt : d, w, ws);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message());
      return 1;
    }
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2 && ms < best) best = ms;
  }
  CK(cudaProfilerStart());
  if (xpose::status s = xpose::transpose_inplace(a, d, w, ws); !s.ok()) return 1;
  CK(cudaDeviceSynchronize());
  CK(cudaProfilerStop());
  std::printf("%lldx%lld es %d: %.3f ms, %.1f GB/s (2 x matrix bytes), workspace %.1f MiB\n", m, n, es, best,
              2.0 * static_cast<double>(bytes) / best / 1e6, static_cast<double>(ws) / 1048576.0);
  return 0;
}
