// In-place transpose: a packed rows x cols matrix (or a batch of them)
// becomes the cols x rows matrix in the same memory. Squares need no workspace;
// other shapes need the caller's workspace, sized by inplace_workspace_size().
#pragma once

#include <cstddef>

#include "xpose/xpose.hpp"  // matrix_desc, status, host_options, cudaStream_t

namespace xpose {

/// Workspace in bytes that transpose_inplace (device = true) or
/// transpose_inplace_host (device = false) needs for `desc` (docs/MODEL.md,
/// "In-place transpose: traffic per method"): 0 for squares and vectors. Rectangles
/// with a blocked plan (a side with a divisor giving slabs of at most a quarter; every
/// shape whose short side divides the long one) need the slabs the workspace holds (one
/// on the host, a quarter of them on the device) or, for square slabs, a sixteenth of
/// the matrix plus one line: at most a quarter of one matrix, on the device times the
/// batch (a batch runs in the same launches). Other rectangles (both sides without a
/// usable divisor) need a quarter of one matrix (a few rows split off; a batch runs one
/// matrix after another); where no split fits (small matrices), L lines of
/// max(rows, cols) elements, L = min(ceil(lo / 4), 1024) on the device and
/// min(ceil(lo / 4), 64) on the host, lo = min(rows, cols). On the device a batch of
/// 4 or more rectangles needs batch / 4 (rounded down) whole matrices instead.
/// `desc` must be packed: matrix_desc::packed(rows, cols, elem_size, batch).
/// More workspace than this may be given; the device takes a workspace of one matrix
/// or more as groups of matrices, each transposed into it by `best` and copied back.
status inplace_workspace_size(const matrix_desc& desc, bool device, std::size_t* bytes) noexcept;

/// Transposes each rows x cols matrix of `desc` in place on the current device,
/// ordered on `stream`. Asynchronous, allocates nothing, never synchronises the
/// host, graph-capturable. `workspace` is device memory of `workspace_bytes`
/// (may be null when the size query returned 0). Statuses: not_packed,
/// null_pointer (data, or a needed workspace), misaligned (data or workspace not
/// aligned to the element), workspace_too_small, overlap (workspace inside the
/// data), not_device_memory, no_device; the data is untouched on any of them.
status transpose_inplace(void* data, const matrix_desc& desc, void* workspace, std::size_t workspace_bytes,
                         cudaStream_t stream = nullptr) noexcept;

/// The same on host memory with the CPU backend (OpenMP threads, synchronous);
/// check_host_options first (invalid_argument for a bad thread count).
status transpose_inplace_host(void* data, const matrix_desc& desc, void* workspace, std::size_t workspace_bytes,
                              const host_options& options = {}) noexcept;

}  // namespace xpose
