// check_best: runs `best` on the GPU with input / output placed off_in / off_out
// elements past a 256-byte boundary and compares the whole output extent (gaps and
// padding included, poisoned with 0xFF) bitwise with the CPU reference; a failure names
// the route the table took (route_for). Which shape takes which route: the table
// (src/cuda/route_table.hpp), its golden file (tests/route/golden.txt) and
// BestRoutes.EveryRow* (every row on the GPU).
#pragma once

#include <cuda_runtime.h>
#include <xpose/registry.hpp>

#include <cstdint>
#include <string>

#include "cuda/route_table.hpp"
#include "cuda_test_util.hpp"
#include "test_util.hpp"

namespace xpose_test {

/// The current device's compute capability (major*10+minor).
inline int device_cc() {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor;
}

inline void check_best(const matrix_desc& d, std::uint64_t seed, index_t off_in = 0, index_t off_out = 0) {
  if (d.rows == 0 || d.cols == 0 || d.batch == 0) return;
  const std::size_t es = static_cast<std::size_t>(d.elem_size);
  const std::size_t oi = static_cast<std::size_t>(off_in) * es, oo = static_cast<std::size_t>(off_out) * es;
  const auto in = random_bytes(static_cast<std::size_t>(in_elems(d)) * es, seed);
  std::vector<unsigned char> want(static_cast<std::size_t>(out_elems(d)) * es, 0xFF);
  ASSERT_TRUE(xpose::transpose_reference(in.data(), want.data(), d).ok());
  // The input ends at the allocation's end: compute-sanitizer sees any read past it.
  dev_buf din(in.size() + oi), dout(want.size() + oo);
  ASSERT_NE(din.p, nullptr);
  ASSERT_NE(dout.p, nullptr);
  // The route the table gives for these pointers, in the trace of a failure.
  const xpose::detail::route r =
      xpose::detail::route_for(d, reinterpret_cast<std::uintptr_t>(din.p + oi), reinterpret_cast<std::uintptr_t>(dout.p + oo),
                               device_cc());
  SCOPED_TRACE(std::string("best ") + shape_name(d) + " offsets " + std::to_string(off_in) + "/" +
               std::to_string(off_out) + ", route " + xpose::detail::best_path_name(r.path) + " (row " +
               std::to_string(r.row) + ")");
  CUDA_OK(cudaMemcpy(din.p + oi, in.data(), in.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dout.p, 0xFF, want.size() + oo));
  const xpose::status s = xpose::transpose_variant("best", din.p + oi, dout.p + oo, d);
  ASSERT_TRUE(s.ok()) << s.message();
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned char> got(want.size() + oo);
  CUDA_OK(cudaMemcpy(got.data(), dout.p, got.size(), cudaMemcpyDeviceToHost));
  ASSERT_EQ(first_mismatch(got.data() + oo, want.data(), d), "");
  ASSERT_EQ(std::memcmp(got.data() + oo, want.data(), want.size()), 0) << "padding or gap bytes were written";
  for (std::size_t i = 0; i < oo; ++i) ASSERT_EQ(got[i], 0xFF) << "a byte before the output was written";
}

}  // namespace xpose_test
