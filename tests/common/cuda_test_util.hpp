// Helpers for the GPU tests: CUDA call checks, the no-GPU skip, a device buffer.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <cstddef>

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x
#define REQUIRE_GPU() \
  if (xpose::device_count() == 0) GTEST_SKIP() << "no CUDA device"

namespace xpose_test {

/// cudaMalloc'd bytes, freed on scope exit; p is null when the allocation failed.
struct dev_buf {
  unsigned char* p = nullptr;
  std::size_t n = 0;
  explicit dev_buf(std::size_t bytes) : n(bytes) {
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) p = nullptr;
  }
  ~dev_buf() { cudaFree(p); }
  dev_buf(const dev_buf&) = delete;
  dev_buf& operator=(const dev_buf&) = delete;
};

}  // namespace xpose_test
