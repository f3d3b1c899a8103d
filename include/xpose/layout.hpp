// Tensor layouts as values: rank, element size, extents and strides (in elements,
// 64-bit). A matrix_desc is one factory for a pair of layouts; permute() takes them
// directly. Span, count and overlap are computed in one place (src/core/layout.cpp).
#pragma once

#include "xpose/config.hpp"
#include "xpose/status.hpp"
#include "xpose/view.hpp"

namespace xpose {

/// Element (i_0, ..., i_{rank-1}) lives at base + sum_k i_k * strides[k] (elements).
/// Row-major packed means strides[rank-1] == 1 and strides[k] = strides[k+1]*extents[k+1].
/// An input stride may be 0 (the input is broadcast along that dimension); output
/// strides must keep output elements apart (checked by make_plan).
struct layout {
  static constexpr int max_rank = 16;
  int rank = 0;       ///< 0..16; rank 0 is one element
  int elem_size = 4;  ///< bytes: 1, 2, 4, 8 or 16
  index_t extents[max_rank] = {};
  index_t strides[max_rank] = {};

  /// Packed row-major layout of `rank` extents (strides computed with wrapping
  /// arithmetic: make_plan rejects a size that overflows).
  static layout packed(int rank, const index_t* extents, int elem_size) noexcept;
  /// The input of a matrix_desc: (batch, rows, cols), strides (stride_in, ld_in, 1).
  static layout matrix_in(const matrix_desc& d) noexcept;
  /// The output of a matrix_desc: (batch, cols, rows), strides (stride_out, ld_out, 1).
  static layout matrix_out(const matrix_desc& d) noexcept;

  /// Number of elements (product of extents). Meaningful once check_layout() passed.
  index_t count() const noexcept;
  /// True when some extent is 0 (no element is moved).
  bool empty() const noexcept;
  /// Elements from the first to one past the last addressed element (0 when empty).
  /// Meaningful once check_layout() passed.
  index_t span() const noexcept;
};

/// Checks one layout: rank in 0..16, supported element size, no negative extent or
/// stride, count and span in bytes fit in 64 bits. `which` names it in the message.
status check_layout(const layout& l, const char* which) noexcept;

/// True when no two in-range indices of `l` address the same element. A sufficient
/// test (strides must nest: sorted by stride, each stride exceeds the span of the
/// smaller ones); a layout that interleaves dimensions is refused. Call after check_layout.
bool elements_distinct(const layout& l) noexcept;

/// True when the byte ranges [a, a + a_bytes) and [b, b + b_bytes) intersect.
bool ranges_overlap(const void* a, index_t a_bytes, const void* b, index_t b_bytes) noexcept;

}  // namespace xpose
