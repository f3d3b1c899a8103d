// Helpers of the standalone benchmarks: the CUDA error check (print the call, file and
// line, exit 1) and the flushed timing loop.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(x)                                                                                    \
  do {                                                                                           \
    const cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

/// Median microseconds of f() on stream st over `reps` runs after `warmup` untimed ones,
/// each run between two events, the L2 flushed before it (scratch overwritten).
inline double flushed_us(const std::function<void()>& f, unsigned char* scratch, size_t scratch_bytes, cudaStream_t st,
                         int warmup = 3, int reps = 20) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> v;
  for (int i = 0; i < warmup + reps; ++i) {
    CK(cudaMemsetAsync(scratch, i & 0xFF, scratch_bytes, st));
    CK(cudaEventRecord(a, st));
    f();
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (i >= warmup) v.push_back(1000.0 * ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
