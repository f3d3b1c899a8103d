// Status values returned by every xpose call. The library never throws across its
// API, never exits and never prints: a failure is a status_code plus a message.
#pragma once

#include <cstddef>

namespace xpose {

/// Why a call failed. `ok` is zero; every other value names one class of bad input
/// or environment problem.
enum class status_code : int {
  ok = 0,
  null_pointer,           ///< a null input or output pointer with a non-empty matrix
  negative_size,          ///< rows, cols, batch, a leading dimension or a stride is negative
  size_overflow,          ///< an extent in bytes does not fit in 64 bits
  bad_leading_dim,        ///< ld_in < cols or ld_out < rows
  bad_batch_stride,       ///< output batches would overlap (stride_out too small)
  overlap,                ///< input and output memory ranges intersect
  unsupported_elem_size,  ///< element size not in {1, 2, 4, 8, 16}
  misaligned,             ///< a pointer is not aligned to its element size
  not_device_memory,      ///< the device entry was given a pointer the GPU cannot access
  no_device,              ///< no usable CUDA device (or the library was built without CUDA)
  cuda_error,             ///< the CUDA runtime reported an error
  unknown_variant,        ///< no registered variant has this name
  unsupported_variant,    ///< the variant cannot run this element size / device / launch shape
  invalid_argument,       ///< any other invalid argument (e.g. a block shape the variant rejects)
  // Distributed transpose (xpose::dist, include/xpose/dist.hpp).
  size_mismatch,          ///< ranks disagree on the distributed matrix's sizes or blocks
  comm_size_mismatch,     ///< the communicator's size is not the number of ranks the caller described
  workspace_too_small,    ///< the caller's workspace is smaller than the size query (dist, in-place) asked for
  comm_error,             ///< NCCL or MPI reported an error
  // Layouts and plans (include/xpose/layout.hpp, plan.hpp)
  bad_rank,               ///< a layout's rank is outside 0..16, or input and output ranks differ
  bad_axes,               ///< axes repeated, out of range, or not one per dimension
  shape_mismatch,         ///< an output extent differs from the input extent its axis names
  overlapping_output,     ///< output strides make two output elements share memory
  // In-place transpose.
  not_packed,             ///< an in-place transpose needs ld_in == cols, ld_out == rows, strides == rows*cols
};

/// Short stable name of a status code ("ok", "null_pointer", ...).
const char* to_string(status_code code) noexcept;

/// Result of an xpose call: a code and a human-readable message (empty when ok).
/// Trivially copyable, no allocation: the message lives in a fixed buffer.
class [[nodiscard]] status {
 public:
  status() noexcept = default;
  /// Builds a status with a printf-style message.
  static status make(status_code code, const char* fmt, ...) noexcept
#if defined(__GNUC__)
      __attribute__((format(printf, 2, 3)))
#endif
      ;
  bool ok() const noexcept { return code_ == status_code::ok; }
  explicit operator bool() const noexcept { return ok(); }
  status_code code() const noexcept { return code_; }
  const char* message() const noexcept { return message_; }

 private:
  status_code code_ = status_code::ok;
  char message_[224] = {};
};

}  // namespace xpose
