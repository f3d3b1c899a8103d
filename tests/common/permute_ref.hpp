// Test oracle and case generator for N-d permutations: a plain loop over the
// output's multi-index, written independently of the library's plan and kernels.
#pragma once

#include <xpose/layout.hpp>
#include <xpose/plan.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace xpose_test {

/// out[i] = in[j] with j_{axes[k]} = i_k; conj flips the top bit of each element's
/// last byte (the imaginary part's sign of a little-endian c64 / c128).
inline void reference_permute(const void* in, void* out, const xpose::layout& li, const xpose::layout& lo,
                              const int* axes, bool conj) {
  const int r = lo.rank;
  const std::size_t es = static_cast<std::size_t>(lo.elem_size);
  for (int k = 0; k < r; ++k)
    if (lo.extents[k] == 0) return;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(r), 0);
  const auto* s = static_cast<const unsigned char*>(in);
  auto* d = static_cast<unsigned char*>(out);
  for (;;) {
    std::int64_t fi = 0, fo = 0;
    for (int k = 0; k < r; ++k) {
      fi += idx[k] * li.strides[axes[k]];
      fo += idx[k] * lo.strides[k];
    }
    std::memcpy(d + fo * es, s + fi * es, es);
    if (conj) d[fo * es + es - 1] ^= 0x80;
    int k = r - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < lo.extents[k]) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/// A random case: rank, extents (product <= max_elems), random axes, strides with a
/// random dimension order and padding on both sides (input may broadcast).
struct perm_case {
  xpose::layout in, out;
  int axes[xpose::layout::max_rank];
};

inline void random_strides(xpose::layout& l, std::mt19937_64& g, bool allow_broadcast, bool packed) {
  int order[xpose::layout::max_rank];
  for (int k = 0; k < l.rank; ++k) order[k] = k;
  if (!packed)
    for (int k = l.rank - 1; k > 0; --k) std::swap(order[k], order[g() % (k + 1)]);
  std::int64_t s = packed ? 1 : 1 + static_cast<std::int64_t>(g() % 2);
  for (int j = l.rank - 1; j >= 0; --j) {  // innermost first
    const int k = order[j];
    if (allow_broadcast && g() % 8 == 0) {
      l.strides[k] = 0;
      continue;
    }
    l.strides[k] = s;
    s = s * l.extents[k] + (packed || g() % 2 ? 0 : static_cast<std::int64_t>(g() % 3));
  }
}

inline perm_case random_case(std::mt19937_64& g, int rank, int elem_size, std::int64_t max_elems, bool padded) {
  perm_case c;
  c.in.rank = c.out.rank = rank;
  c.in.elem_size = c.out.elem_size = elem_size;
  std::int64_t n = 1;
  static const std::int64_t picks[] = {1, 2, 3, 5, 7, 8, 16, 17, 31, 32, 33, 64, 65, 100, 129};
  for (int k = 0; k < rank; ++k) {
    std::int64_t e = picks[g() % (sizeof(picks) / sizeof(picks[0]))];
    while (e > 1 && n * e > max_elems) e = e / 2;
    c.in.extents[k] = e;
    n *= e;
  }
  for (int k = 0; k < rank; ++k) c.axes[k] = k;
  for (int k = rank - 1; k > 0; --k) std::swap(c.axes[k], c.axes[g() % (k + 1)]);
  for (int k = 0; k < rank; ++k) c.out.extents[k] = c.in.extents[c.axes[k]];
  random_strides(c.in, g, padded, !padded);
  random_strides(c.out, g, false, !padded);
  return c;
}

/// A packed case of extents sh whose axes are shuffled at positions 1..top (Fisher-Yates;
/// top < 0: all of them), the output packed; a caller that adjusts the axes sets the
/// output layout again.
inline perm_case shuffled_case(std::mt19937_64& g, const std::vector<std::int64_t>& sh, int elem_size, int top = -1) {
  perm_case c;
  const int r = static_cast<int>(sh.size());
  c.in = xpose::layout::packed(r, sh.data(), elem_size);
  for (int q = 0; q < r; ++q) c.axes[q] = q;
  for (int q = top < 0 ? r - 1 : top; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);
  c.out = xpose::permuted_packed(c.in, c.axes, r);
  return c;
}

/// A case of rank r over prime extents (product <= max_elems where small primes allow)
/// with random axes, the input packed or of shuffled strides with gaps, the output
/// packed or with gaps.
inline perm_case prime_case(std::mt19937_64& g, int r, int elem_size, std::int64_t max_elems) {
  static const std::int64_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 61, 97, 101, 127, 131, 251};
  perm_case c;
  c.in.rank = c.out.rank = r;
  c.in.elem_size = c.out.elem_size = elem_size;
  std::int64_t n = 1;
  for (int q = 0; q < r; ++q) {
    std::int64_t e = primes[g() % (sizeof(primes) / sizeof(primes[0]))];
    while (e > 2 && n * e > max_elems) e = e > 3 ? primes[g() % 4] : 2;
    c.in.extents[q] = e, n *= e;
  }
  for (int q = 0; q < r; ++q) c.axes[q] = q;
  for (int q = r - 1; q > 0; --q) std::swap(c.axes[q], c.axes[g() % (q + 1)]);
  for (int q = 0; q < r; ++q) c.out.extents[q] = c.in.extents[c.axes[q]];
  random_strides(c.in, g, false, g() % 2 == 0);
  random_strides(c.out, g, false, g() % 3 != 0);
  return c;
}

}  // namespace xpose_test

namespace xpose_test {
/// Elements from the first to one past the last addressed element (0 if empty).
inline std::int64_t span_elems(const xpose::layout& l) {
  std::int64_t s = 1;
  for (int k = 0; k < l.rank; ++k) {
    if (l.extents[k] == 0) return 0;
    s += (l.extents[k] - 1) * l.strides[k];
  }
  return s;
}
}  // namespace xpose_test
