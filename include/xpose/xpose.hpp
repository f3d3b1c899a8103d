// xpose public API: out-of-place transpose of strided, optionally batched matrices,
// on the GPU (stream-ordered, asynchronous) and on the CPU (blocked, threaded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "xpose/config.hpp"
#include "xpose/layout.hpp"
#include "xpose/plan.hpp"
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
[[nodiscard]] status validate(const void* in, const void* out, const matrix_desc& desc) noexcept;

/// Number of usable CUDA devices; 0 when there is no GPU, no driver, any discovery
/// error, or the library was built without CUDA.
[[nodiscard]] int device_count() noexcept;

/// True when the library was compiled with its CUDA backend.
[[nodiscard]] bool built_with_cuda() noexcept;

/// The library's version, "MAJOR.MINOR.PATCH" (the same as XPOSE_VERSION_STRING in
/// xpose/version.hpp when the headers match the library).
[[nodiscard]] const char* version() noexcept;

// ---------------------------------------------------------------------------
// Device entry (GPU)
// ---------------------------------------------------------------------------

/// Transposes on the current CUDA device, ordered on `stream` (0 = legacy default
/// stream). Asynchronous: returns once the work is enqueued; never synchronises the
/// host, allocates no memory. Both pointers must be accessible to the device.
/// Uses the library's default variant, chosen by the dispatch policy.
[[nodiscard]] status transpose(const void* in, void* out, const matrix_desc& desc,
                 cudaStream_t stream = nullptr) noexcept;

/// Typed convenience: packed rows x cols matrix of T on the device.
template <class T>
[[nodiscard]] status transpose(const T* in, T* out, index_t rows, index_t cols,
                 cudaStream_t stream = nullptr) noexcept {
  static_assert(std::is_trivially_copyable_v<T>, "xpose moves bytes: T must be trivially copyable");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "xpose moves elements of 1, 2, 4, 8 or 16 bytes");
  return transpose(static_cast<const void*>(in), static_cast<void*>(out),
                   matrix_desc::packed(rows, cols, static_cast<int>(sizeof(T))), stream);
}

// ---------------------------------------------------------------------------
// Host entry (CPU backend)
// ---------------------------------------------------------------------------

/// Options for the CPU backend.
struct host_options {
  /// 0 = OpenMP's default (all cores, OMP_NUM_THREADS), capped at max_host_threads();
  /// 1 = single-threaded; negative or above max_host_threads() => invalid_argument.
  int threads = 0;
};

/// Largest thread count the CPU backend accepts: max(4 x processors, 256).
[[nodiscard]] int max_host_threads() noexcept;

/// Threads transpose_host runs with for `requested` (0 = the default above), or 0
/// when `requested` is out of range.
[[nodiscard]] int host_threads(int requested) noexcept;

/// The one check of host_options that every host entry runs first (transpose_host,
/// permute_host, execute_host, transpose_inplace_host, dist::transpose_mpi; tools
/// check their own thread options with it): invalid_argument when `threads` is
/// negative or above max_host_threads(). On success `*threads` (when not null) is the
/// count the backend runs with, host_threads(options.threads): the OpenMP default
/// (OMP_NUM_THREADS included) is clamped to 1..max_host_threads().
[[nodiscard]] status check_host_options(const host_options& options, int* threads = nullptr) noexcept;

/// Transposes host memory with the fast CPU backend (cache-blocked, threaded).
/// Synchronous.
[[nodiscard]] status transpose_host(const void* in, void* out, const matrix_desc& desc,
                      const host_options& options = {}) noexcept;

/// Typed convenience: packed rows x cols matrix of T in host memory.
template <class T>
[[nodiscard]] status transpose_host(const T* in, T* out, index_t rows, index_t cols,
                      const host_options& options = {}) noexcept {
  static_assert(std::is_trivially_copyable_v<T>, "xpose moves bytes: T must be trivially copyable");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "xpose moves elements of 1, 2, 4, 8 or 16 bytes");
  return transpose_host(static_cast<const void*>(in), static_cast<void*>(out),
                        matrix_desc::packed(rows, cols, static_cast<int>(sizeof(T))), options);
}

/// The plain-loop reference transpose (the test oracle). Slow; validates like the
/// other entries.
[[nodiscard]] status transpose_reference(const void* in, void* out, const matrix_desc& desc) noexcept;

// ---------------------------------------------------------------------------
// N-d permutation (plan-centred core: include/xpose/plan.hpp)
// ---------------------------------------------------------------------------

/// out = np.transpose(in, axes): output dimension k has input dimension axes[k]'s
/// extent. `axes` has `naxes` entries (nullptr = reversed dims); the output is packed
/// row-major. Rank up to 16, strides in elements (input strides may be 0), element
/// sizes 1-16. On the device: asynchronous on `stream`, no allocation, no host sync.
status permute(const void* in, void* out, const layout& in_layout, const int* axes, int naxes,
               cudaStream_t stream = nullptr) noexcept;
/// As above with an explicit (strided) output layout and options (conjugation).
status permute(const void* in, void* out, const layout& in_layout, const layout& out_layout,
               const int* axes, int naxes, const plan_options& options = {},
               cudaStream_t stream = nullptr) noexcept;
/// Host versions (CPU backend, synchronous).
status permute_host(const void* in, void* out, const layout& in_layout, const int* axes, int naxes,
                    const host_options& options = {}) noexcept;
status permute_host(const void* in, void* out, const layout& in_layout, const layout& out_layout,
                    const int* axes, int naxes, const plan_options& plan_opts = {},
                    const host_options& options = {}) noexcept;

/// Name of the SIMD target the CPU backend dispatched to on this CPU (Highway's
/// names: "AVX2", "AVX3", "SSE4", "NEON", "SVE", ..., "EMU128" for the portable one).
const char* cpu_backend_target() noexcept;

}  // namespace xpose

// In-place transpose.
#include "xpose/inplace.hpp"
