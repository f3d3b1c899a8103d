// Division by a run-time constant with a multiply-high and a shift (Granlund and
// Montgomery, "Division by invariant integers using multiplication", PLDI 1994):
// the divisor's magic number is computed once on the host, each division costs one
// multiply-high. Exact for every unsigned dividend of the width (64 or 32 bits).
// Shared by the GPU kernels and the CPU tests.
#pragma once

#include <cstdint>

#include "xpose/config.hpp"

namespace xpose::detail {

/// U: the dividend and divisor type (std::uint64_t or std::uint32_t); W: a type of
/// twice its width for the host's magic number and the host's multiply-high. The
/// 32-bit instance costs one 32-bit multiply-high on the GPU (a 64-bit one is
/// several instructions); the N-d kernels use it when every index they divide fits.
template <class U, class W>
struct fast_div_t {
  static constexpr int bits = 8 * static_cast<int>(sizeof(U));
  U d = 1;      // divisor (>= 1)
  U magic = 0;  // m = floor(2^bits * (2^l - d) / d) + 1
  int shift = 0;  // l - 1 (l = ceil(log2 d)); -1 when d == 1

  fast_div_t() = default;
  /// Host only: d >= 1.
  explicit fast_div_t(U divisor) : d(divisor) {
    int l = 0;
    while (l < bits && (W{1} << l) < divisor) ++l;
    if (divisor == 1) {
      shift = -1;
      magic = 0;
      return;
    }
    const W two_l = W{1} << l;
    magic = static_cast<U>(((two_l - divisor) << bits) / divisor + 1);
    shift = l - 1;
  }

  XPOSE_HD static U mulhi(U a, U b) {
#if defined(__CUDA_ARCH__)
    if constexpr (bits == 64) return __umul64hi(a, b);
    else return __umulhi(a, b);
#else
    return static_cast<U>((static_cast<W>(a) * b) >> bits);
#endif
  }

  /// n / d.
  XPOSE_HD U div(U n) const {
    if (shift < 0) return n;
    const U t = mulhi(magic, n);
    return (t + ((n - t) >> 1)) >> shift;
  }
  /// Quotient and remainder at once.
  XPOSE_HD U divmod(U n, U* rem) const {
    const U q = div(n);
    *rem = n - q * d;
    return q;
  }
};

using fast_div = fast_div_t<std::uint64_t, unsigned __int128>;
using fast_div32 = fast_div_t<std::uint32_t, std::uint64_t>;

}  // namespace xpose::detail
