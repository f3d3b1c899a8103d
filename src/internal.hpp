// Library-internal declarations shared by the host and CUDA halves of xpose.
#pragma once

#include "xpose/registry.hpp"
#include "xpose/xpose.hpp"

namespace xpose::detail {

/// Validates a call; `copy_shaped` means the output mirrors the input's layout
/// (the ceiling variants) instead of being the transposed matrix. Pointers must be
/// aligned to the element size, or to `align` bytes when that is smaller and > 0.
status validate(const void* in, const void* out, const matrix_desc& d, bool copy_shaped, int align = 0) noexcept;

/// The shape rules of validate alone (sizes, pitches, strides, overflow): the entries
/// that go on to a plan leave the pointer checks to its execute.
status validate_desc(const matrix_desc& d, bool copy_shaped) noexcept;

/// Host entries: every CPU kernel loads and stores unaligned, so 16-byte elements
/// need only the 8-byte alignment NumPy gives complex128 (a 16-byte aligned view
/// must not be assumed).
constexpr int host_align = 8;

/// True when the (validated) call moves no element.
inline bool empty(const matrix_desc& d) noexcept { return d.rows == 0 || d.cols == 0 || d.batch == 0; }

/// Extent in elements touched by the input / transposed output of a validated desc.
index_t in_extent(const matrix_desc& d) noexcept;
index_t out_extent(const matrix_desc& d) noexcept;

// CPU backend (src/cpu). Both assume a validated, non-empty desc.
void reference_transpose(const void* in, void* out, const matrix_desc& d) noexcept;
void blocked_transpose(const void* in, void* out, const matrix_desc& d, int threads) noexcept;

/// Signature shared by every GPU variant's launcher. Called with a validated,
/// non-empty desc, on the current device, after the pointer checks.
using launcher_fn = status (*)(const void* in, void* out, const matrix_desc& d,
                               const launch_options& launch, cudaStream_t stream);

}  // namespace xpose::detail
