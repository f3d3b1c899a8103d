// Helpers shared by the CUDA sources: the element-type adapter and error mapping.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../core/elem.hpp"
#include "../internal.hpp"

namespace xpose::detail {

/// Calls f(T{}) with T the element type of `elem_size` bytes: an adapter over the one
/// element-size dispatch (core/elem.hpp) for kernels templated on the type.
template <class F>
status with_elem_type(int elem_size, F&& f) {
  return with_elem_size(elem_size, [&](auto e) { return f(typename uint_of<decltype(e)::value>::type{}); });
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

/// The current device and its compute capability (major*10+minor), read once per
/// device and cached (src/cuda/dispatch.cu).
status current_device(int* dev, int* cc);
/// The current device's SM count, read once per device and cached (src/cuda/dispatch.cu).
status current_sms(int* sms);

/// Grid extents are limited (x: 2^31-1, y and z: 65535); kernels loop over the rest.
inline unsigned clamp_grid(index_t n, index_t limit) {
  return static_cast<unsigned>(n < limit ? (n < 1 ? 1 : n) : limit);
}

}  // namespace xpose::detail
