// check_best: runs `best` on the GPU with input / output placed off_in / off_out
// elements past a 256-byte boundary and compares the whole output extent (gaps and
// padding included, poisoned with 0xFF) bitwise with the CPU reference; when a path is
// expected, also asserts that best_path_for (the classification launch_best runs)
// picks it for these pointers. Shared by test_best.cpp and test_shapes.cpp.
// candidate: asserts the path best_path_for gives under the candidate flag (best runs the route table).
// XPOSE_ROUTE_ONLY (xpose_route_tests, built without CUDA too): the path assertion alone, for
// input / output at off_in / off_out elements past 256-byte boundaries, as cudaMalloc places them.
#pragma once

#ifndef XPOSE_ROUTE_ONLY
#include <cuda_runtime.h>
#endif
#include <xpose/registry.hpp>

#include <cstdint>
#include <optional>

#include "cuda/policy.hpp"
#include "cuda_test_util.hpp"
#include "test_util.hpp"

namespace xpose_test {

/// The path under `candidate` for an element-aligned layout whose old route is `old`: the
/// cp.async skewed tile where its switch is on under that flag and it fits (policy.hpp),
/// with the output placed off_out elements past a 256-byte boundary; the sector-aligned
/// skewed tiles where their switch is on and they fit; the fitted skewed tiles (4-8 bytes,
/// best_skew_fit_or) where their switch is on and they pad less.
inline xpose::detail::best_path or_skew_async(xpose::detail::best_path old, const matrix_desc& d, index_t off_out,
                                              bool candidate) {
  const auto out = static_cast<unsigned long long>(off_out * d.elem_size);
  if (xpose::detail::best_route_on(xpose::detail::best_skew_sector_default, candidate) &&
      xpose::detail::best_skew_sector_fits(d, out))
    return xpose::detail::best_path::realign_skew_sector;
  return xpose::detail::best_skew_fit_or(xpose::detail::best_route_on(xpose::detail::best_skew_async_default, candidate) &&
                                                 xpose::detail::best_skew_async_fits(d, out)
                                             ? xpose::detail::best_path::realign_skew_async
                                             : old,
                                         d, out, candidate);
}

/// The row-fitted tile's route where a fitted-tile switch has the `candidate` flag take the
/// gather d (best_fit_tile_route: 1-2 byte gathers of 33-128 rows, 4-8 byte gathers of 24 / 32
/// aligned rows), for offsets in elements; else `other`.
inline std::optional<xpose::detail::best_path> or_fit(std::optional<xpose::detail::best_path> other,
                                                      const matrix_desc& d, index_t off_in, index_t off_out,
                                                      bool candidate) {
  const auto f = xpose::detail::best_fit_tile_route(d, static_cast<unsigned long long>(off_in * d.elem_size),
                                                    static_cast<unsigned long long>(off_out * d.elem_size), candidate);
  return f != xpose::detail::best_path::copy ? std::optional(f) : other;
}

/// The pipelined micro-block route of a 4-8 byte slab where best_pipe_wide_default has the
/// `candidate` flag take it (best_pipe_wide_fits), for offsets in elements, the row-fitted
/// tile's ahead of it (or_fit); else `other`.
inline std::optional<xpose::detail::best_path> or_wide(std::optional<xpose::detail::best_path> other,
                                                       const matrix_desc& d, bool gather, index_t off_in,
                                                       index_t off_out, bool candidate) {
  const auto in = static_cast<unsigned long long>(off_in * d.elem_size),
             out = static_cast<unsigned long long>(off_out * d.elem_size);
  if (gather && d.ld_out == d.rows)
    if (const auto f = or_fit(std::nullopt, d, off_in, off_out, candidate)) return f;
  const bool slab = gather ? d.ld_out == d.rows : d.ld_in == d.cols;
  if (slab && xpose::detail::best_pipe_wide_fits(d, gather, in, out, candidate))
    return xpose::detail::best_pipe_wide_route(d, gather, out);
  return other;
}

/// check_best's path assertion for input / output at these addresses: best_path_for under
/// `candidate` picks `path` (or what a switch that has this flag take d puts in its place).
/// Route assertions made (xpose_route_tests reports the tests that made none).
inline long& route_assertions() {
  static long n = 0;
  return n;
}

inline void assert_best_route(const matrix_desc& d, std::uintptr_t in_addr, std::uintptr_t out_addr,
                              xpose::detail::best_path path, bool candidate) {
  ++route_assertions();
  const auto got = xpose::detail::best_path_for(d, in_addr, out_addr, 90, candidate);
  // The row-fitted tile, where its switch has this flag take it, precedes the gather routes.
  path = xpose::detail::best_fit_tile_or(path, d, in_addr, out_addr, candidate);
  // The two-buffer direct scatter, where its switch has this flag take the side, replaces the
  // grouped scatter routes.
  path = xpose::detail::best_scatter_direct2_or(path, d, out_addr, candidate);
  // A base slab route also accepts its micro-block refinement (best_micro_default may
  // route the default policy there); a micro route is asserted exactly.
  using xpose::detail::best_path_base;
  const auto g = path == best_path_base(path) ? best_path_base(got.path) : got.path;
  ASSERT_EQ(std::string(xpose::detail::best_path_name(g)), std::string(xpose::detail::best_path_name(path)));
}

inline void check_best(const matrix_desc& d, std::uint64_t seed, index_t off_in = 0, index_t off_out = 0,
                       std::optional<xpose::detail::best_path> path = std::nullopt, bool candidate = false) {
  SCOPED_TRACE(std::string(candidate ? "best_next " : "best ") + shape_name(d) + " offsets " +
               std::to_string(off_in) + "/" + std::to_string(off_out));
  if (d.rows == 0 || d.cols == 0 || d.batch == 0) return;
  const std::size_t es = static_cast<std::size_t>(d.elem_size);
  const std::size_t oi = static_cast<std::size_t>(off_in) * es, oo = static_cast<std::size_t>(off_out) * es;
#ifdef XPOSE_ROUTE_ONLY
  (void)seed;
  if (path) assert_best_route(d, 0x10000000u + oi, 0x20000000u + oo, *path, candidate);
}
#else
  const auto in = random_bytes(static_cast<std::size_t>(in_elems(d)) * es, seed);
  std::vector<unsigned char> want(static_cast<std::size_t>(out_elems(d)) * es, 0xFF);
  ASSERT_TRUE(xpose::transpose_reference(in.data(), want.data(), d).ok());
  // The input ends at the allocation's end: compute-sanitizer sees any read past it.
  dev_buf din(in.size() + oi), dout(want.size() + oo);
  ASSERT_NE(din.p, nullptr);
  ASSERT_NE(dout.p, nullptr);
  if (path) {
    assert_best_route(d, reinterpret_cast<std::uintptr_t>(din.p + oi), reinterpret_cast<std::uintptr_t>(dout.p + oo),
                      *path, candidate);
    if (::testing::Test::HasFatalFailure()) return;
  }
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
#endif

}  // namespace xpose_test
