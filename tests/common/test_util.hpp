// Test helpers: random bytes, 0xFF poisoning, bitwise comparison that reports the
// first mismatch with its batch, row and column.
#pragma once

#include <gtest/gtest.h>
#include <xpose/xpose.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <cstdlib>
#include <vector>

namespace xpose_test {

using xpose::index_t;
using xpose::matrix_desc;

inline std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> v(n);
  std::mt19937_64 g(seed);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t x = g();
    std::memcpy(v.data() + i, &x, 8);
  }
  for (; i < n; ++i) v[i] = static_cast<unsigned char>(g());
  return v;
}

/// Elements spanned by the input / output of a (valid, non-empty) desc.
inline index_t in_elems(const matrix_desc& d) {
  return (d.batch - 1) * d.stride_in + (d.rows - 1) * d.ld_in + d.cols;
}
inline index_t out_elems(const matrix_desc& d) {
  return (d.batch - 1) * d.stride_out + (d.cols - 1) * d.ld_out + d.rows;
}

/// A desc with padded leading dimensions and gapped batch strides.
inline matrix_desc padded(index_t rows, index_t cols, int es, index_t batch, index_t pad_in,
                          index_t pad_out, index_t gap) {
  matrix_desc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_size = es;
  d.batch = batch;
  d.ld_in = cols + pad_in;
  d.ld_out = rows + pad_out;
  d.stride_in = rows * d.ld_in + gap;
  d.stride_out = cols * d.ld_out + gap;
  return d;
}

/// Compares got against want over the output's valid elements only; on mismatch
/// returns a description of the first bad element, else "".
inline std::string first_mismatch(const unsigned char* got, const unsigned char* want,
                                  const matrix_desc& d) {
  const auto es = static_cast<std::size_t>(d.elem_size);
  for (index_t b = 0; b < d.batch; ++b)
    for (index_t c = 0; c < d.cols; ++c)
      for (index_t r = 0; r < d.rows; ++r) {
        const index_t off = b * d.stride_out + c * d.ld_out + r;
        if (std::memcmp(got + off * es, want + off * es, es) != 0)
          return "first mismatch at flat index " + std::to_string(off) + " (batch " + std::to_string(b) +
                 ", output row " + std::to_string(c) + ", col " + std::to_string(r) + ")";
      }
  return "";
}

inline std::string shape_name(const matrix_desc& d) {
  return std::to_string(d.batch) + "x" + std::to_string(d.rows) + "x" + std::to_string(d.cols) + " es=" +
         std::to_string(d.elem_size) + " ld=" + std::to_string(d.ld_in) + "/" + std::to_string(d.ld_out);
}

/// Case sampling for the slow runs (the sanitize preset, `make test-sanitize`): with
/// XPOSE_TEST_SAMPLE=k set, the host emulations of the kernels run one case in k, those
/// whose index plus an offset is a multiple of k. The offset comes from
/// XPOSE_TEST_SAMPLE_SEED, else from std::random_device, and is printed once, so each run
/// covers another slice and a failure can be repeated. Unset: every case runs.
inline int sample_every() {
  static const int k = [] {
    const char* e = std::getenv("XPOSE_TEST_SAMPLE");
    const long v = e != nullptr ? std::strtol(e, nullptr, 10) : 1;
    return v > 1 && v < 1000000 ? static_cast<int>(v) : 1;
  }();
  return k;
}
inline bool sampled_case() {
  const int k = sample_every();
  if (k == 1) return true;
  static const unsigned long long off = [] {
    const char* e = std::getenv("XPOSE_TEST_SAMPLE_SEED");
    const unsigned long long v = e != nullptr ? std::strtoull(e, nullptr, 10) : std::random_device{}();
    std::fprintf(stderr, "xpose_test: one case in %d, XPOSE_TEST_SAMPLE_SEED=%llu\n", sample_every(), v);
    return v;
  }();
  static unsigned long long n = 0;
  return (n++ + off) % static_cast<unsigned long long>(k) == 0;
}

/// The shared size list of the tests: extents at the edges of every tile, micro-kernel
/// and vector width. Under an emulator (XPOSE_TEST_EMULATED set: the Arm run under
/// qemu-user, cmake/arm64-qemu-test.sh, some 40x slower) the 4097 is left out: the same
/// edges, matrices of at most 1000 x 1000.
inline const std::vector<index_t>& edge_sizes() {
  static const std::vector<index_t> s = [] {
    std::vector<index_t> v{0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 1000, 4097};
    if (std::getenv("XPOSE_TEST_EMULATED") != nullptr) v.pop_back();
    return v;
  }();
  return s;
}
inline const std::vector<int>& elem_sizes() {
  static const std::vector<int> s{1, 2, 4, 8, 16};
  return s;
}

}  // namespace xpose_test
