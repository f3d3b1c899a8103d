// The standalone benchmarks' CUDA error check: print the call, file and line, exit 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                    \
  do {                                                                                           \
    const cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)
