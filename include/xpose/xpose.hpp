// xpose public API: out-of-place transpose of strided, optionally batched matrices,
// on the GPU (stream-ordered, asynchronous) and on the CPU (blocked, threaded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "xpose/config.hpp"
#include "xpose/status.hpp"
#include "xpose/view.hpp"

// cudaStream_t without including the CUDA headers; identical to CUDA's own typedef.
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace xpose {

// ---------------------------------------------------------------------------
// Validation and discovery
// ---------------------------------------------------------------------------

/// Checks `desc` and the two pointers without touching memory: sizes, leading
/// dimensions, strides, overflow, alignment, null pointers and overlap.
status validate(const void* in, const void* out, const matrix_desc& desc) noexcept;

/// Number of usable CUDA devices; 0 when there is no GPU, no driver, any discovery
/// error, or the library was built without CUDA.
int device_count() noexcept;

/// True when the library was compiled with its CUDA backend.
bool built_with_cuda() noexcept;

// ---------------------------------------------------------------------------
// Device entry (GPU)
// ---------------------------------------------------------------------------

/// Transposes on the current CUDA device, ordered on `stream` (0 = legacy default
/// stream). Asynchronous: returns once the work is enqueued; never synchronises the
/// host, allocates no memory. Both pointers must be accessible to the device.
/// Uses the library's default variant, chosen by the dispatch policy.
status transpose(const void* in, void* out, const matrix_desc& desc,
                 cudaStream_t stream = nullptr) noexcept;

/// Typed convenience: packed rows x cols matrix of T on the device.
template <class T>
status transpose(const T* in, T* out, index_t rows, index_t cols,
                 cudaStream_t stream = nullptr) noexcept {
  static_assert(std::is_trivially_copyable_v<T>, "xpose moves bytes: T must be trivially copyable");
  return transpose(static_cast<const void*>(in), static_cast<void*>(out),
                   matrix_desc::packed(rows, cols, static_cast<int>(sizeof(T))), stream);
}

// ---------------------------------------------------------------------------
// Host entry (CPU backend)
// ---------------------------------------------------------------------------

/// Options for the CPU backend.
struct host_options {
  int threads = 0;  ///< 0 = OpenMP's default (all cores); 1 = single-threaded
};

/// Transposes host memory with the fast CPU backend (cache-blocked, threaded).
/// Synchronous.
status transpose_host(const void* in, void* out, const matrix_desc& desc,
                      const host_options& options = {}) noexcept;

/// Typed convenience: packed rows x cols matrix of T in host memory.
template <class T>
status transpose_host(const T* in, T* out, index_t rows, index_t cols,
                      const host_options& options = {}) noexcept {
  static_assert(std::is_trivially_copyable_v<T>, "xpose moves bytes: T must be trivially copyable");
  return transpose_host(static_cast<const void*>(in), static_cast<void*>(out),
                        matrix_desc::packed(rows, cols, static_cast<int>(sizeof(T))), options);
}

/// The plain-loop reference transpose (the test oracle). Slow; validates like the
/// other entries.
status transpose_reference(const void* in, void* out, const matrix_desc& desc) noexcept;

/// Name of the SIMD target the CPU backend dispatched to on this CPU (Highway's
/// names: "AVX2", "AVX3", "SSE4", "NEON", "SVE", ..., "EMU128" for the portable one).
const char* cpu_backend_target() noexcept;

}  // namespace xpose
