// Plans: validate and normalise a permutation once, classify it into an algorithm,
// then execute it on the GPU or the CPU. A plan is a plain value: no device memory,
// no pointers, nothing to free; cheap to build per call and safe inside CUDA graphs.
#pragma once

#include <cstdint>

#include "xpose/layout.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace xpose {

/// What a plan runs. tools print it (to_string) and tests assert it.
enum class algorithm : int {
  empty,         ///< no element to move
  copy,          ///< both sides one contiguous range: one memcpy
  strided_copy,  ///< the fastest dimension is kept: contiguous runs copied row by row
  transpose_2d,  ///< batched 2-D transpose (b, r, c) -> (b, c, r): the fast path `best`
  permute_nd,    ///< general N-d permutation: tiles along the input's and output's fastest dims
};

/// Short stable name ("copy", "transpose_2d", ...).
const char* to_string(algorithm a) noexcept;

/// Options of a plan.
struct plan_options {
  /// Conjugate complex elements on the way: 8-byte elements are c64 (two f32) and
  /// 16-byte elements c128 (two f64); the imaginary part's sign bit is flipped
  /// (NaN payloads are kept, -0 and +0 swap). Other element sizes are rejected.
  bool conjugate = false;
};

/// A validated, normalised permutation. Fields are read-only for callers: make_plan
/// seals the plan with a checksum of every other field, and execute and execute_host
/// recompute it and return invalid_argument for a plan edited since, before touching
/// memory.
/// out element (i_0..i_{r-1}) = in element (j) with j_{axes[k]} = i_k, over the
/// normalised dims (unit dims dropped, dims adjacent on both sides fused).
struct plan {
  algorithm algo = algorithm::empty;
  layout in;                           ///< normalised input layout
  layout out;                          ///< normalised output layout, out.extents[k] == in.extents[axes[k]]
  int axes[layout::max_rank] = {};     ///< normalised axes
  matrix_desc desc;                    ///< for transpose_2d: the batched matrix it runs
  bool conjugate = false;
  index_t count = 0;                   ///< elements moved
  index_t in_bytes = 0, out_bytes = 0; ///< byte spans touched (for the pointer checks)
  std::uint64_t seal = 0;              ///< make_plan's checksum of the fields above
};

/// Plans out = permute(in, axes): output dimension k has the extent of input
/// dimension axes[k] (NumPy's np.transpose(x, axes) semantics). `axes` has
/// `naxes` entries, a permutation of 0..rank-1; axes == nullptr reverses the
/// dimensions (np.transpose's default). Validates everything that does not need
/// the pointers: element sizes, ranks, negative sizes, overflow, axes (repeated,
/// out of range, wrong length: bad_axes), extents (shape_mismatch), output elements
/// that would overlap each other (overlapping_output). On failure `*result` is untouched.
status make_plan(const layout& in, const layout& out, const int* axes, int naxes,
                 const plan_options& options, plan* result) noexcept;

/// The packed row-major output layout of permute(in, axes) (no validation).
layout permuted_packed(const layout& in, const int* axes, int naxes) noexcept;

struct host_options;

/// Runs a plan on the current CUDA device, ordered on `stream`. Checks the plan's fields
/// (invalid_argument for an edited plan) and the pointers (null, alignment, overlap,
/// device accessible) before any write. Asynchronous, no allocation, no host
/// synchronisation.
status execute(const plan& p, const void* in, void* out, cudaStream_t stream = nullptr) noexcept;

/// Runs a plan on the CPU (synchronous). Checks check_host_options, the plan's fields
/// and the pointers (host alignment) before any write.
status execute_host(const plan& p, const void* in, void* out, const host_options& options) noexcept;

}  // namespace xpose
