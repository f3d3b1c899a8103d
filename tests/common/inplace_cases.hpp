// In-place transpose tests, written once for both backends: the shape list and a
// checker that compares an in-place result bitwise with the out-of-place oracle.
#pragma once

#include <functional>

#include "test_util.hpp"

namespace xpose_test {

struct inplace_shape {
  index_t rows, cols, batch;
};

/// 1, primes, coprime pairs, common factors, squares, skinny both ways, batches.
inline const std::vector<inplace_shape>& inplace_shapes() {
  static const std::vector<inplace_shape> s{
      {0, 5, 1},     {5, 0, 1},    {3, 3, 0},     {1, 1, 1},     {1, 17, 1},   {17, 1, 1},    {2, 3, 1},
      {3, 2, 1},     {7, 11, 1},   {13, 101, 1},  {101, 13, 1},  {4, 6, 1},    {6, 4, 1},     {12, 18, 1},
      {64, 96, 1},   {96, 64, 1},  {97, 89, 1},   {128, 256, 1}, {256, 128, 1}, {33, 33, 1},  {64, 64, 1},
      {65, 65, 1},   {100, 100, 1}, {257, 257, 1}, {2, 1000, 1}, {1000, 2, 1},  {3001, 7, 1}, {7, 3001, 1},
      {5000, 32, 1}, {32, 5000, 1}, {31, 4097, 1}, {4097, 31, 1}, {45, 60, 3},  {60, 45, 2},  {40, 40, 3},
      {1, 9, 4},     {9, 1, 2},    {360, 240, 1}, {1023, 1025, 1}, {48, 48, 1},  {272, 272, 2}};
  return s;
}

/// Runs `run` (an in-place transpose of the bytes of `d` in host memory, through
/// whatever backend, with `ws_bytes` of workspace) on random data and compares the
/// result with transpose_reference. Returns the run's status.
using inplace_runner =
    std::function<xpose::status(unsigned char* data, const matrix_desc& d, std::size_t ws_bytes)>;

inline xpose::status check_inplace(const matrix_desc& d, std::size_t ws_bytes, const inplace_runner& run,
                                   std::uint64_t seed = 1) {
  SCOPED_TRACE(shape_name(d) + " ws=" + std::to_string(ws_bytes));
  const std::size_t n = static_cast<std::size_t>(d.rows * d.cols * d.batch * d.elem_size);
  auto orig = random_bytes(n + 1, seed);
  auto data = orig;
  const xpose::status s = run(data.data(), d, ws_bytes);
  if (!s.ok()) {
    EXPECT_EQ(data, orig) << "a rejected call changed the data";
    return s;
  }
  if (n == 0) return s;
  std::vector<unsigned char> want(n + 1, 0xFF);
  matrix_desc out = d;
  EXPECT_TRUE(xpose::transpose_reference(orig.data(), want.data(), out).ok());
  EXPECT_EQ(first_mismatch(data.data(), want.data(), d), "");
  EXPECT_EQ(data[n], orig[n]) << "wrote past the matrix";
  return s;
}

/// The size query's answer for d (asserting it succeeds).
inline std::size_t inplace_ws(const matrix_desc& d, bool device) {
  std::size_t b = 0;
  const xpose::status s = xpose::inplace_workspace_size(d, device, &b);
  EXPECT_TRUE(s.ok()) << s.message();
  return b;
}

}  // namespace xpose_test
