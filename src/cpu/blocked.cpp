// Fast CPU backend: cache-blocked, OpenMP-threaded transpose with a fixed-size
// inner kernel per element size. Handles ragged edges, leading dimensions, batches.
// Assumes a validated, non-empty desc.
#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../internal.hpp"

namespace xpose::detail {
namespace {

struct alignas(16) b16 {
  std::uint64_t lo, hi;
};

template <class T>
void transpose_typed(const T* in, T* out, const matrix_desc& d, int threads) {
  constexpr index_t B = 64;  // block edge in elements
  const index_t tr = (d.rows + B - 1) / B, tc = (d.cols + B - 1) / B;
  const index_t total = d.batch * tr * tc;
#pragma omp parallel for schedule(static) num_threads(threads) if (total > 1)
  for (index_t t = 0; t < total; ++t) {
    const index_t b = t / (tr * tc), rem = t % (tr * tc);
    const index_t r0 = (rem / tc) * B, c0 = (rem % tc) * B;
    const index_t r1 = std::min(r0 + B, d.rows), c1 = std::min(c0 + B, d.cols);
    const T* src = in + b * d.stride_in;
    T* dst = out + b * d.stride_out;
    for (index_t c = c0; c < c1; ++c)
      for (index_t r = r0; r < r1; ++r) dst[c * d.ld_out + r] = src[r * d.ld_in + c];
  }
}

}  // namespace

void blocked_transpose(const void* in, void* out, const matrix_desc& d, int threads) noexcept {
#if defined(_OPENMP)
  if (threads <= 0) threads = omp_get_max_threads();
#else
  threads = 1;
#endif
  switch (d.elem_size) {
    case 1: transpose_typed(static_cast<const std::uint8_t*>(in), static_cast<std::uint8_t*>(out), d, threads); break;
    case 2: transpose_typed(static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(out), d, threads); break;
    case 4: transpose_typed(static_cast<const std::uint32_t*>(in), static_cast<std::uint32_t*>(out), d, threads); break;
    case 8: transpose_typed(static_cast<const std::uint64_t*>(in), static_cast<std::uint64_t*>(out), d, threads); break;
    default: transpose_typed(static_cast<const b16*>(in), static_cast<b16*>(out), d, threads); break;
  }
}

}  // namespace xpose::detail
