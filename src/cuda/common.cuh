// Helpers shared by the CUDA sources: element types by size and error mapping.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../internal.hpp"

namespace xpose::detail {

/// 16-byte element moved as one 128-bit access.
struct alignas(16) b16 {
  std::uint64_t lo, hi;
};

template <int Bytes> struct elem_of;
template <> struct elem_of<1> { using type = std::uint8_t; };
template <> struct elem_of<2> { using type = std::uint16_t; };
template <> struct elem_of<4> { using type = std::uint32_t; };
template <> struct elem_of<8> { using type = std::uint64_t; };
template <> struct elem_of<16> { using type = b16; };

/// Calls f.template operator()<T>() with T the element type of `elem_size` bytes.
template <class F>
status with_elem_type(int elem_size, F&& f) {
  switch (elem_size) {
    case 1: return f(std::uint8_t{});
    case 2: return f(std::uint16_t{});
    case 4: return f(std::uint32_t{});
    case 8: return f(std::uint64_t{});
    case 16: return f(b16{});
    default: return status::make(status_code::unsupported_elem_size, "element size %d", elem_size);
  }
}

/// Maps the last launch error to a status (clearing it).
inline status launch_status(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return {};
  return status::make(status_code::cuda_error, "%s: %s (%s)", what, cudaGetErrorName(e),
                      cudaGetErrorString(e));
}

inline status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  cudaGetLastError();  // clear a sticky-free error so later calls start clean
  return status::make(status_code::cuda_error, "%s: %s (%s)", what, cudaGetErrorName(e),
                      cudaGetErrorString(e));
}

/// Grid extents are limited (x: 2^31-1, y and z: 65535); kernels loop over the rest.
inline unsigned clamp_grid(index_t n, index_t limit) {
  return static_cast<unsigned>(n < limit ? (n < 1 ? 1 : n) : limit);
}

}  // namespace xpose::detail
