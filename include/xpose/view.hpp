// Description of an out-of-place (batched) transpose: shapes, leading dimensions,
// batch strides and element size. All counts are in elements and 64-bit.
#pragma once

#include "xpose/config.hpp"

namespace xpose {

/// Input  element (b, r, c) lives at in  + b*stride_in  + r*ld_in  + c,  0 <= r < rows, 0 <= c < cols.
/// Output element (b, c, r) lives at out + b*stride_out + c*ld_out + r.
/// The output matrix is cols x rows; ld_out >= rows, ld_in >= cols.
/// Batch strides matter only when batch > 1; stride_in may be 0 (one input, many outputs).
/// packed() derives the batch strides from rows, cols and the leading dimensions; a
/// later change of ld_in / ld_out / rows / cols without setting the stride too would
/// leave a stale stride, so validation rejects it (invalid_argument) instead of
/// reading the wrong memory.
struct matrix_desc {
  index_t rows = 0;
  index_t cols = 0;
  index_t ld_in = 0;
  index_t ld_out = 0;
  index_t batch = 1;
  index_t stride_in = 0;
  index_t stride_out = 0;
  int elem_size = 4;  ///< bytes: 1, 2, 4, 8 or 16
  /// The strides packed() derived (-1: not derived). Read by validation only.
  index_t derived_stride_in = -1;
  index_t derived_stride_out = -1;

  /// A packed rows x cols matrix (or `batch` of them, back to back).
  static constexpr matrix_desc packed(index_t rows, index_t cols, int elem_size,
                                      index_t batch = 1) noexcept {
    matrix_desc d;
    d.rows = rows;
    d.cols = cols;
    d.ld_in = cols;
    d.ld_out = rows;
    d.batch = batch;
    // Unsigned product: a hostile size wraps instead of overflowing (undefined
    // behaviour), and validate() rejects it from rows * cols.
    const auto n = static_cast<index_t>(static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols));
    d.stride_in = n;
    d.stride_out = n;
    d.derived_stride_in = n;
    d.derived_stride_out = n;
    d.elem_size = elem_size;
    return d;
  }

  /// Number of elements transposed (over all batches). Valid only after validation.
  constexpr index_t elements() const noexcept { return rows * cols * batch; }
};

}  // namespace xpose
