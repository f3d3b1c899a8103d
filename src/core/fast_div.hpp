// Division by a run-time constant with a multiply-high and a shift (Granlund and
// Montgomery, "Division by invariant integers using multiplication", PLDI 1994):
// the divisor's magic number is computed once on the host, each division costs one
// 64-bit multiply-high. Exact for every 64-bit unsigned dividend. Shared by the GPU
// kernels and the CPU tests.
#pragma once

#include <cstdint>

#include "xpose/config.hpp"

namespace xpose::detail {

struct fast_div {
  std::uint64_t d = 1;      // divisor (>= 1)
  std::uint64_t magic = 0;  // m = floor(2^64 * (2^l - d) / d) + 1
  int shift = 0;            // l - 1 (l = ceil(log2 d)); -1 when d == 1

  fast_div() = default;
  /// Host only: d >= 1.
  explicit fast_div(std::uint64_t divisor) : d(divisor) {
    int l = 0;
    while (l < 64 && (std::uint64_t{1} << l) < divisor) ++l;
    if (divisor == 1) {
      shift = -1;
      magic = 0;
      return;
    }
    const unsigned __int128 two_l = static_cast<unsigned __int128>(1) << l;
    magic = static_cast<std::uint64_t>(((two_l - divisor) << 64) / divisor + 1);
    shift = l - 1;
  }

  XPOSE_HD static std::uint64_t mulhi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
  }

  /// n / d.
  XPOSE_HD std::uint64_t div(std::uint64_t n) const {
    if (shift < 0) return n;
    const std::uint64_t t = mulhi(magic, n);
    return (t + ((n - t) >> 1)) >> shift;
  }
  /// Quotient and remainder at once.
  XPOSE_HD std::uint64_t divmod(std::uint64_t n, std::uint64_t* rem) const {
    const std::uint64_t q = div(n);
    *rem = n - q * d;
    return q;
  }
};

}  // namespace xpose::detail
