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

/// The same division for 32-bit dividends and divisors: one 32-bit multiply-high
/// instead of a 64-bit one (a 64-bit mulhi is several instructions on the GPU). The
/// N-d kernels use it when every index they divide fits in 32 bits.
struct fast_div32 {
  std::uint32_t d = 1;
  std::uint32_t magic = 0;  // m = floor(2^32 * (2^l - d) / d) + 1
  int shift = 0;            // l - 1; -1 when d == 1

  fast_div32() = default;
  /// Host only: 1 <= d < 2^32.
  explicit fast_div32(std::uint32_t divisor) : d(divisor) {
    int l = 0;
    while (l < 32 && (std::uint64_t{1} << l) < divisor) ++l;
    if (divisor == 1) {
      shift = -1;
      magic = 0;
      return;
    }
    const std::uint64_t two_l = std::uint64_t{1} << l;
    magic = static_cast<std::uint32_t>(((two_l - divisor) << 32) / divisor + 1);
    shift = l - 1;
  }

  XPOSE_HD static std::uint32_t mulhi(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
  }

  XPOSE_HD std::uint32_t div(std::uint32_t n) const {
    if (shift < 0) return n;
    const std::uint32_t t = mulhi(magic, n);
    return (t + ((n - t) >> 1)) >> shift;
  }
  XPOSE_HD std::uint32_t divmod(std::uint32_t n, std::uint32_t* rem) const {
    const std::uint32_t q = div(n);
    *rem = n - q * d;
    return q;
  }
};

}  // namespace xpose::detail
